//! A log scanned as a stream (PURE: handed a reader): [`ScanLines`] yields, one at a time, the
//! lines [`super::scan::scan_reader`] collects, and [`FaultFinder`] finds
//! [`super::scan::first_fault`]'s fault as the lines go by, with one line of lookahead. Together
//! they let `verify`'s detailed path (a log with something to report) hold a few lines, not the
//! log (a damaged log of 1,000,000 entries took 1.5 GB).
use super::scan::{Fault, Plain, Problem, ScannedLine, Witness, scan_line};
use super::{LineError, ZERO_HASH, entry_hash, fast};
use std::io::{self, BufRead, Read};

/// The lines of a log read from `r`, one at a time, exactly as [`super::scan::scan_reader`]
/// gives them: only one line's bytes are held, and a line longer than `max_line` bytes is
/// yielded (its first `max_line + 1` bytes, unterminated, as [`LineError::TooLong`]) and ends
/// the stream.
pub struct ScanLines<R> {
    r: io::BufReader<R>,
    max_line: usize,
    /// The line being read, with its newline.
    buf: Vec<u8>,
    offset: u64,
    done: bool,
}

impl<R: Read> ScanLines<R> {
    pub fn new(r: R, max_line: usize) -> ScanLines<R> {
        ScanLines {
            r: io::BufReader::with_capacity(1 << 16, r),
            max_line,
            buf: Vec::new(),
            offset: 0,
            done: false,
        }
    }

    /// The next line into `self.buf`: `(terminated, too_long)`, the buffer empty at the end.
    fn fill(&mut self) -> io::Result<(bool, bool)> {
        self.buf.clear();
        loop {
            let avail = match self.r.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                return Ok((false, false));
            }
            let (take, terminated) = match avail.iter().position(|&b| b == b'\n') {
                Some(p) => (p + 1, true),
                None => (avail.len(), false),
            };
            let room = (self.max_line + 1).saturating_sub(self.buf.len());
            if take > room {
                self.buf.extend_from_slice(&avail[..room]);
                self.r.consume(room);
                return Ok((false, true));
            }
            self.buf.extend_from_slice(&avail[..take]);
            self.r.consume(take);
            if terminated {
                return Ok((true, false));
            }
        }
    }
}

impl<R: Read> Iterator for ScanLines<R> {
    type Item = io::Result<ScannedLine>;

    fn next(&mut self) -> Option<io::Result<ScannedLine>> {
        if self.done {
            return None;
        }
        let (terminated, too_long) = match self.fill() {
            Ok(f) => f,
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        if self.buf.is_empty() {
            self.done = true;
            return None;
        }
        let offset = self.offset;
        if too_long {
            self.done = true;
            return Some(Ok(ScannedLine {
                offset,
                len: self.buf.len() as u64,
                terminated: false,
                hash: entry_hash(&self.buf),
                prev: None,
                entry: Err(LineError::TooLong {
                    limit: self.max_line,
                }),
            }));
        }
        self.offset += self.buf.len() as u64;
        let line = if terminated {
            &self.buf[..self.buf.len() - 1]
        } else {
            &self.buf[..]
        };
        Some(Ok(match terminated.then(|| canonical(&self.buf, offset)) {
            Some(Some(l)) => l,
            _ => scan_line(line, offset, terminated),
        }))
    }
}

/// A terminated line (`with_newline`) that [`fast::check_line`] proves canonical, read with a
/// plain serde parse (as [`super::scan::scan`] does); `None` when it is not proven.
fn canonical(with_newline: &[u8], offset: u64) -> Option<ScannedLine> {
    let (facts, len) = fast::check_line(with_newline)?;
    let line = with_newline.get(..len)?;
    if len + 1 != with_newline.len() {
        return None;
    }
    let p: Plain = serde_json::from_slice(line).ok()?;
    if p.seq != facts.seq {
        return None;
    }
    let hash = entry_hash(line);
    Some(ScannedLine {
        offset,
        len: len as u64,
        terminated: true,
        hash,
        prev: Some(facts.prev),
        entry: Ok(p.into_entry(hash, offset, len as u64)),
    })
}

/// What the fault search keeps of a line it has seen.
#[derive(Debug, Clone)]
struct Seen {
    offset: u64,
    len: u64,
    hash: [u8; 32],
    /// [`ScannedLine::placed`] at its own position.
    placed: Option<[u8; 32]>,
    /// What is wrong with the line in isolation (as [`super::scan::first_fault`] weighs it).
    local: Option<Problem>,
}

impl Seen {
    fn of(l: &ScannedLine, index: u64) -> Seen {
        let local = match &l.entry {
            // A line past the bound is named so, not as a torn write (no crash leaves one).
            Err(e @ LineError::TooLong { .. }) => Some(Problem::Line(e.clone())),
            _ if !l.terminated => Some(Problem::Unterminated),
            Err(e) => Some(Problem::Line(e.clone())),
            Ok(e) if e.seq != index => Some(Problem::Seq { found: e.seq }),
            Ok(_) => None,
        };
        Seen {
            offset: l.offset,
            len: l.len,
            hash: l.hash,
            placed: usize::try_from(index).ok().and_then(|i| l.placed(i)),
            local,
        }
    }
}

/// [`super::scan::first_fault`] over lines handed one at a time ([`FaultFinder::push`], then
/// [`FaultFinder::finish`]): the same fault, from the line before, the line and the line after
/// (a broken link blames one of two lines by what the next line and the signed chain heads
/// record). Memory is three lines' hashes, whatever the log's length.
#[derive(Debug, Clone)]
pub struct FaultFinder {
    /// The chain heads `(N, E_{N-1})` of trusted (signed) checkpoints.
    anchors: Vec<(u64, [u8; 32])>,
    /// Lines pushed.
    pushed: u64,
    /// The line before `current`.
    before: Option<Seen>,
    /// The last line pushed, judged when its successor (or the end) comes.
    current: Option<Seen>,
    fault: Option<Fault>,
}

impl FaultFinder {
    pub fn new(mut anchors: Vec<(u64, [u8; 32])>) -> FaultFinder {
        // By size (in their order within a size): a line's heads are found by a binary search,
        // so a log with thousands of checkpoints is judged as fast as one with a single one.
        anchors.sort_by_key(|a| a.0);
        FaultFinder {
            anchors,
            pushed: 0,
            before: None,
            current: None,
            fault: None,
        }
    }

    /// The next line of the log.
    pub fn push(&mut self, l: &ScannedLine) {
        if self.fault.is_some() {
            self.pushed += 1;
            return;
        }
        let next = Seen::of(l, self.pushed);
        self.judge(Some(&next));
        self.before = self.current.replace(next);
        self.pushed += 1;
    }

    /// The first bad line of all those pushed.
    pub fn finish(mut self) -> Option<Fault> {
        self.judge(None);
        self.fault
    }

    /// The signed chain heads of `E_i` (those of checkpoints over `i + 1` entries).
    fn anchors_at(&self, i: u64) -> impl Iterator<Item = &(u64, [u8; 32])> {
        let from = self.anchors.partition_point(|a| a.0 < i + 1);
        self.anchors
            .get(from..)
            .unwrap_or_default()
            .iter()
            .take_while(move |a| a.0 == i + 1)
    }

    /// The signed chain head of `E_i` when it disagrees with `hash`.
    fn anchor_against(&self, i: u64, hash: &[u8; 32]) -> Option<(u64, [u8; 32])> {
        self.anchors_at(i).find(|(_, chain)| chain != hash).copied()
    }

    /// Judge the current line, now that the one after it (`next`, `None` at the end) is known.
    fn judge(&mut self, next: Option<&Seen>) {
        let Some(cur) = self.current.as_ref().filter(|_| self.fault.is_none()) else {
            return;
        };
        let i = self.pushed - 1;
        let next_prev = next.and_then(|n| n.placed);
        if let Some(problem) = &cur.local {
            let expected = next_prev.or_else(|| self.anchors_at(i).next().map(|(_, c)| *c));
            self.fault = Some(Fault {
                index: i,
                offset: cur.offset,
                len: cur.len,
                problem: problem.clone(),
                expected,
                found: cur.hash,
            });
            return;
        }
        let want = self.before.as_ref().map_or(ZERO_HASH, |b| b.hash);
        if let Some(prev) = cur.placed.filter(|p| *p != want) {
            let disputed = next_prev.is_some_and(|p| p != cur.hash)
                || self.anchor_against(i, &cur.hash).is_some();
            self.fault = Some(match self.before.as_ref() {
                Some(b) if !disputed => Fault {
                    index: i - 1,
                    offset: b.offset,
                    len: b.len,
                    problem: Problem::Hash(Witness::NextLine),
                    expected: Some(prev),
                    found: b.hash,
                },
                _ => Fault {
                    index: i,
                    offset: cur.offset,
                    len: cur.len,
                    problem: Problem::Prev,
                    expected: Some(want),
                    found: prev,
                },
            });
            return;
        }
        if let Some((n, chain)) = self.anchor_against(i, &cur.hash) {
            self.fault = Some(Fault {
                index: i,
                offset: cur.offset,
                len: cur.len,
                problem: Problem::Hash(Witness::Checkpoint(n)),
                expected: Some(chain),
                found: cur.hash,
            });
        }
    }
}
