//! Splitting a log into lines and locating the first bad one.
//!
//! [`first_local_fault`] is what the journal uses on open (each line against its predecessor).
//! [`first_fault`] is what `verify` uses: it also weighs the chain heads of signed checkpoints
//! ("anchors") and decides which of two lines around a broken link is the altered one.
use super::{Entry, LineError, ZERO_HASH, entry_hash, hex32, parse_line};
use std::fmt;

/// One line of a log file as found.
#[derive(Debug, Clone, PartialEq)]
pub struct ScannedLine {
    pub offset: u64,
    /// Length without the newline.
    pub len: u64,
    /// Whether the line ends in `\n` (only the last segment of a file can lack it).
    pub terminated: bool,
    /// SHA-256(0x00 || line bytes).
    pub hash: [u8; 32],
    /// The entry's `prev`, decoded once (None if the line is invalid).
    pub prev: Option<[u8; 32]>,
    pub entry: Result<Entry, LineError>,
}

impl ScannedLine {
    /// The decoded `prev` if the line is valid, terminated and sits at position `index`.
    pub fn placed(&self, index: usize) -> Option<[u8; 32]> {
        match &self.entry {
            Ok(e) if self.terminated && e.seq == index as u64 => self.prev,
            _ => None,
        }
    }
}

/// Split into `(offset, line without newline, terminated)`.
pub fn split(bytes: &[u8]) -> Vec<(u64, &[u8], bool)> {
    let mut out = Vec::new();
    let mut start = 0usize;
    while start < bytes.len() {
        match bytes[start..].iter().position(|&b| b == b'\n') {
            Some(p) => {
                out.push((start as u64, &bytes[start..start + p], true));
                start += p + 1;
            }
            None => {
                out.push((start as u64, &bytes[start..], false));
                start = bytes.len();
            }
        }
    }
    out
}

/// Analyse one line in isolation.
pub fn scan_line(line: &[u8], offset: u64, terminated: bool) -> ScannedLine {
    let entry = parse_line(line, offset);
    ScannedLine {
        offset,
        len: line.len() as u64,
        terminated,
        hash: entry_hash(line),
        prev: entry.as_ref().ok().map(Entry::prev_bytes),
        entry,
    }
}

/// Analyse every line of a log file. A terminated line that [`super::fast::check_line`] proves
/// canonical is read with a plain serde parse (canonical form already rules out duplicate keys and
/// every other difference); any other line goes through [`parse_line`], which names the problem.
pub fn scan(bytes: &[u8]) -> Vec<ScannedLine> {
    split(bytes)
        .into_iter()
        .map(
            |(o, l, t)| match t.then(|| fast_entry(bytes, o, l)).flatten() {
                Some(line) => line,
                None => scan_line(l, o, t),
            },
        )
        .collect()
}

/// [`scan`] of a file read line by line: only one line's bytes are held at a time, never the
/// whole file. A line longer than `max_line` bytes ends the scan: it is kept (its first bytes,
/// unterminated) as a [`LineError::TooLong`] line and nothing after it is read, so memory and
/// time stay bounded whatever the file holds (a sparse or zero-filled file, a foreign tail, a
/// line of gigabytes).
pub fn scan_reader<R: std::io::Read>(r: R, max_line: usize) -> std::io::Result<Vec<ScannedLine>> {
    use std::io::BufRead;
    let mut r = std::io::BufReader::with_capacity(1 << 16, r);
    let mut out = Vec::new();
    // The line with its newline.
    let mut buf: Vec<u8> = Vec::new();
    let mut offset = 0u64;
    loop {
        buf.clear();
        let (mut terminated, mut too_long) = (false, false);
        loop {
            let avail = match r.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                break;
            }
            let take = match avail.iter().position(|&b| b == b'\n') {
                Some(p) => {
                    terminated = true;
                    p + 1
                }
                None => avail.len(),
            };
            let room = (max_line + 1).saturating_sub(buf.len());
            if take > room {
                buf.extend_from_slice(&avail[..room]);
                r.consume(room);
                (terminated, too_long) = (false, true);
                break;
            }
            buf.extend_from_slice(&avail[..take]);
            r.consume(take);
            if terminated {
                break;
            }
        }
        if buf.is_empty() {
            break;
        }
        if too_long {
            out.push(ScannedLine {
                offset,
                len: buf.len() as u64,
                terminated: false,
                hash: entry_hash(&buf),
                prev: None,
                entry: Err(LineError::TooLong { limit: max_line }),
            });
            break;
        }
        let line = if terminated {
            &buf[..buf.len() - 1]
        } else {
            &buf[..]
        };
        let scanned = match terminated.then(|| fast_entry(&buf, 0, line)).flatten() {
            Some(mut l) => {
                l.offset = offset;
                if let Ok(e) = &mut l.entry {
                    e.offset = offset;
                }
                l
            }
            None => scan_line(line, offset, terminated),
        };
        out.push(scanned);
        offset += buf.len() as u64;
    }
    Ok(out)
}

/// The fields of a line, for lines already proven canonical by [`super::fast::check_line`]
/// (canonical form rules out duplicate keys and every other difference, so a plain serde parse
/// reads it).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Plain {
    v: u32,
    pub(crate) seq: u64,
    prev: String,
    utc: String,
    mono_ms: u64,
    actor: String,
    clause: String,
    kind: String,
    body: serde_json::Value,
}

impl Plain {
    /// The entry of this line, with its hash, offset and length.
    pub(crate) fn into_entry(self, hash: [u8; 32], offset: u64, len: u64) -> Entry {
        Entry {
            v: self.v,
            seq: self.seq,
            prev: self.prev,
            utc: self.utc,
            mono_ms: self.mono_ms,
            actor: self.actor,
            clause: self.clause,
            kind: self.kind,
            body: self.body,
            hash,
            offset,
            len,
        }
    }
}

/// A terminated line read through the fast canonical check; `None` when it is not proven.
fn fast_entry(bytes: &[u8], offset: u64, line: &[u8]) -> Option<ScannedLine> {
    let start = usize::try_from(offset).ok()?;
    let with_newline = bytes.get(start..start + line.len() + 1)?;
    let (facts, len) = super::fast::check_line(with_newline)?;
    if len != line.len() {
        return None;
    }
    let p: Plain = serde_json::from_slice(line).ok()?;
    if p.seq != facts.seq {
        return None;
    }
    let hash = entry_hash(line);
    Some(ScannedLine {
        offset,
        len: line.len() as u64,
        terminated: true,
        hash,
        prev: Some(facts.prev),
        entry: Ok(p.into_entry(hash, offset, line.len() as u64)),
    })
}

/// Which evidence disagrees with a line's hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Witness {
    /// The `prev` field of the next line.
    NextLine,
    /// The `chain` line of the signed checkpoint covering this many entries.
    Checkpoint(u64),
}

/// What is wrong with a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Not a valid v1 line.
    Line(LineError),
    /// The file ends without a newline after this line.
    Unterminated,
    /// The line is valid but carries another sequence number: lines deleted, duplicated or moved.
    Seq { found: u64 },
    /// The `prev` field does not hold the previous line's hash.
    Prev,
    /// The line's bytes do not hash to what the chain recorded for it.
    Hash(Witness),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Line(e) => write!(f, "not a valid entry: {e}"),
            Problem::Unterminated => {
                f.write_str("last line has no newline (torn write or truncation)")
            }
            Problem::Seq { found } => {
                write!(
                    f,
                    "line holds seq {found}: lines were deleted, duplicated or moved"
                )
            }
            Problem::Prev => f.write_str("its prev field does not hold the previous line's hash"),
            Problem::Hash(Witness::NextLine) => {
                f.write_str("its bytes were changed: the next line records another hash for it")
            }
            Problem::Hash(Witness::Checkpoint(n)) => write!(
                f,
                "its hash differs from the chain head signed in checkpoint {n} (the log was changed at or before this line)"
            ),
        }
    }
}

/// The first bad line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// Position of the line (= the seq it should carry).
    pub index: u64,
    pub offset: u64,
    pub len: u64,
    pub problem: Problem,
    /// The hash the evidence expects (for [`Problem::Prev`]: the previous line's hash).
    pub expected: Option<[u8; 32]>,
    /// The hash found (for [`Problem::Prev`]: the recorded prev; otherwise the line's hash).
    pub found: [u8; 32],
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line seq {} at byte offset {}: {}",
            self.index, self.offset, self.problem
        )?;
        if let Some(e) = &self.expected {
            write!(f, " (expected {}, found {})", hex32(e), hex32(&self.found))?;
        }
        Ok(())
    }
}

fn local_problem(lines: &[ScannedLine], i: usize) -> Option<Problem> {
    let l = &lines[i];
    // A line past the bound is named so, not as a torn write (no crash leaves one).
    if let Err(e @ LineError::TooLong { .. }) = &l.entry {
        return Some(Problem::Line(e.clone()));
    }
    if !l.terminated {
        return Some(Problem::Unterminated);
    }
    match &l.entry {
        Err(e) => Some(Problem::Line(e.clone())),
        Ok(e) if e.seq != i as u64 => Some(Problem::Seq { found: e.seq }),
        Ok(_) => None,
    }
}

fn previous_hash(lines: &[ScannedLine], i: usize) -> [u8; 32] {
    if i == 0 { ZERO_HASH } else { lines[i - 1].hash }
}

/// First line that is invalid, misplaced or whose `prev` is not its predecessor's hash.
pub fn first_local_fault(lines: &[ScannedLine]) -> Option<Fault> {
    for (i, l) in lines.iter().enumerate() {
        if let Some(problem) = local_problem(lines, i) {
            return Some(Fault {
                index: i as u64,
                offset: l.offset,
                len: l.len,
                problem,
                expected: None,
                found: l.hash,
            });
        }
        if let Some(prev) = l.prev {
            let want = previous_hash(lines, i);
            if prev != want {
                return Some(Fault {
                    index: i as u64,
                    offset: l.offset,
                    len: l.len,
                    problem: Problem::Prev,
                    expected: Some(want),
                    found: prev,
                });
            }
        }
    }
    None
}

/// Every witness of `E_i` that disagrees with line `i`'s actual hash, first one only.
fn disputed(
    lines: &[ScannedLine],
    anchors: &[(u64, [u8; 32])],
    i: usize,
) -> Option<(Witness, [u8; 32])> {
    let actual = lines[i].hash;
    if let Some(next_prev) = lines.get(i + 1).and_then(|l| l.placed(i + 1))
        && next_prev != actual
    {
        return Some((Witness::NextLine, next_prev));
    }
    anchors
        .iter()
        .find(|(n, chain)| *n == i as u64 + 1 && *chain != actual)
        .map(|(n, chain)| (Witness::Checkpoint(*n), *chain))
}

/// A witness of `E_i` (for reporting the expected hash of an invalid line).
fn witness(lines: &[ScannedLine], anchors: &[(u64, [u8; 32])], i: usize) -> Option<[u8; 32]> {
    lines.get(i + 1).and_then(|l| l.placed(i + 1)).or_else(|| {
        anchors
            .iter()
            .find(|(n, _)| *n == i as u64 + 1)
            .map(|(_, c)| *c)
    })
}

/// The first bad line, given the chain heads `(N, E_{N-1})` of trusted (signed) checkpoints.
///
/// A broken link between lines k and k+1 blames line k+1 when line k+1's own hash is disputed
/// too (its `prev` field was altered, which changes its hash), and line k otherwise.
pub fn first_fault(lines: &[ScannedLine], anchors: &[(u64, [u8; 32])]) -> Option<Fault> {
    let first_local = (0..lines.len()).find(|&i| local_problem(lines, i).is_some());
    let limit = first_local.unwrap_or(lines.len());
    let mut link: Option<Fault> = None;
    for i in 0..limit {
        let l = &lines[i];
        if let Some(prev) = l.placed(i) {
            let want = previous_hash(lines, i);
            if prev != want {
                link = Some(if i == 0 || disputed(lines, anchors, i).is_some() {
                    Fault {
                        index: i as u64,
                        offset: l.offset,
                        len: l.len,
                        problem: Problem::Prev,
                        expected: Some(want),
                        found: prev,
                    }
                } else {
                    let p = &lines[i - 1];
                    Fault {
                        index: i as u64 - 1,
                        offset: p.offset,
                        len: p.len,
                        problem: Problem::Hash(Witness::NextLine),
                        expected: Some(prev),
                        found: p.hash,
                    }
                });
                break;
            }
        }
        if let Some((n, chain)) = anchors
            .iter()
            .find(|(n, c)| *n == i as u64 + 1 && *c != l.hash)
        {
            link = Some(Fault {
                index: i as u64,
                offset: l.offset,
                len: l.len,
                problem: Problem::Hash(Witness::Checkpoint(*n)),
                expected: Some(*chain),
                found: l.hash,
            });
            break;
        }
    }
    match (first_local, link) {
        (None, Some(f)) => Some(f),
        (Some(j), Some(f)) if f.index < j as u64 => Some(f),
        (Some(j), _) => {
            let l = &lines[j];
            Some(Fault {
                index: j as u64,
                offset: l.offset,
                len: l.len,
                problem: local_problem(lines, j).unwrap_or(Problem::Unterminated),
                expected: witness(lines, anchors, j),
                found: l.hash,
            })
        }
        (None, None) => None,
    }
}
