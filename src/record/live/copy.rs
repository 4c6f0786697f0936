//! A camp's own copy of the match (`arbiter witness --copy DIR`), and holding a match folder
//! against it (`arbiter verify --witness-copy DIR`). The copy is `DIR/game-<n>/log.jsonl`, every
//! entry exactly as the live record sent it, appended and fdatasynced as it arrives;
//! `DIR/game-<n>/cosigned` remembers the size and root of the last checkpoint the camp
//! cosigned; `DIR/game-<n>/checkpoints/<N>.note` and `<N>.cosig` keep each note it cosigned
//! and its cosignature; `DIR/game-<n>/received` notes when the witness received each entry, by
//! its own clock ([`super::clock`]), appended and fdatasynced with the entry;
//! `DIR/game-<n>/evidence/` keeps whatever conflicted with the copy (an entry that differs, a
//! checkpoint the arbiter's key signed over another history) and, as `refused-…`, what the
//! rules refused (the entry with its verdict, a checkpoint signed over it), and as `outage-…`
//! an outage the record claims that the witness's clock does not allow. Files 0600,
//! folders 0700.
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use super::clock::{Outage, RECEIVED_HEAD, Reception, Written};
use crate::log::checkpoint::Checkpoint;
use crate::log::{ZERO_HASH, entry_hash, hex32, merkle, parse_line};

/// First line of the `cosigned` state file.
const STATE_HEAD: &str = "arbiter-kit witness state v1";

/// Why a copy cannot be opened or kept.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    #[error("cannot {op} {}: {source}", .path.display())]
    Io {
        op: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error("the copy {} is damaged: {problem}", .path.display())]
    Damaged { path: PathBuf, problem: String },
}

fn io_err(op: &'static str, path: &Path) -> impl FnOnce(io::Error) -> CopyError + use<> {
    let path = path.to_owned();
    move |source| CopyError::Io { op, path, source }
}

/// The copy's Merkle tree, kept as it grows: every complete aligned subtree's hash, level by
/// level, so the tree hash over any first N entries costs O(log N) (RFC 6962's split).
#[derive(Debug, Default, Clone)]
pub struct Tree {
    levels: Vec<Vec<[u8; 32]>>,
}

impl Tree {
    /// Add a leaf (an entry hash).
    pub fn push(&mut self, leaf: [u8; 32]) {
        let mut node = leaf;
        let mut k = 0;
        loop {
            if self.levels.len() == k {
                self.levels.push(Vec::new());
            }
            self.levels[k].push(node);
            let level = &self.levels[k];
            if level.len() % 2 == 1 {
                break;
            }
            node = merkle::node_hash(&level[level.len() - 2], &level[level.len() - 1]);
            k += 1;
        }
    }

    pub fn len(&self) -> u64 {
        self.levels.first().map_or(0, |l| l.len() as u64)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Leaf `i`.
    pub fn leaf(&self, i: u64) -> Option<[u8; 32]> {
        self.levels.first()?.get(i as usize).copied()
    }

    /// The tree hash over the first `n` leaves (`None` past the leaves held).
    pub fn root(&self, n: u64) -> Option<[u8; 32]> {
        if n > self.len() {
            return None;
        }
        if n == 0 {
            return Some(merkle::root(&[]));
        }
        self.range(0, n)
    }

    /// The hash of leaves `lo..lo+n`, where every left part of the split is an aligned subtree.
    fn range(&self, lo: u64, n: u64) -> Option<[u8; 32]> {
        if n.is_power_of_two() {
            let k = n.trailing_zeros() as usize;
            return self.levels.get(k)?.get((lo >> k) as usize).copied();
        }
        let k = 1u64 << (63 - (n - 1).leading_zeros());
        let k = if k == n { k / 2 } else { k };
        Some(merkle::node_hash(
            &self.range(lo, k)?,
            &self.range(lo + k, n - k)?,
        ))
    }
}

/// What became of an entry the live record sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Taken {
    /// New, chained to the copy, appended and fdatasynced.
    Appended,
    /// Already in the copy, byte for byte.
    Same,
    /// Not the next entry (the record skipped one): not taken.
    Gap { have: u64 },
    /// It differs from the copy's entry, or does not chain: kept as evidence.
    Conflict { problem: String, evidence: PathBuf },
}

/// What a witness does with a checkpoint the arbiter's key signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// A consistent extension of the copy and of what it cosigned before: cosign it.
    Cosign,
    /// It covers entries the copy does not hold yet: wait for them.
    NotYet,
    /// Older than the last checkpoint cosigned (nothing conflicts; nothing to sign).
    Older { cosigned: u64 },
    /// Refused without conflict (another game's checkpoint, the game already conflicted).
    Refused(String),
    /// It conflicts with the copy or with what was cosigned before: kept as evidence.
    Conflict { problem: String, evidence: PathBuf },
}

/// One game's copy.
#[derive(Debug)]
pub struct GameCopy {
    pub game: u32,
    dir: PathBuf,
    file: File,
    leaves: Tree,
    /// The origin line its checkpoints carry (from line 0's match id), once line 0 is held.
    pub origin: Option<String>,
    /// Line 0's arbiter key fingerprint, once held.
    pub arbiter_fingerprint: Option<String>,
    /// Size and root of the last checkpoint cosigned.
    pub cosigned: Option<(u64, [u8; 32])>,
    /// Something conflicted with this copy (evidence kept): never cosign for this game again.
    pub conflicted: bool,
    /// What is kept of each entry to find where an outage lies (its game time, its kind).
    written: Vec<Written>,
    /// When the witness received each entry, by its own clock (first reception only).
    received: Vec<Option<Reception>>,
    /// `received`, opened for appending.
    received_file: File,
    /// Receptions written to `received` and not yet fdatasynced (noted while catching up).
    received_unsynced: bool,
}

fn mkdir(p: &Path) -> Result<(), CopyError> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(p)
        .map_err(io_err("create folder", p))
}

/// `DIR/game-<n>`.
pub fn game_dir(copy: &Path, game: u32) -> PathBuf {
    copy.join(format!("game-{game}"))
}

/// The games a copy holds, in order.
pub fn games(copy: &Path) -> Result<Vec<u32>, CopyError> {
    let mut out: Vec<u32> = fs::read_dir(copy)
        .map_err(io_err("read", copy))?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n: u32 = name.strip_prefix("game-")?.parse().ok()?;
            (format!("game-{n}") == name).then_some(n)
        })
        .collect();
    out.sort_unstable();
    Ok(out)
}

/// The lines of a log file (complete lines only; a tail without its newline is left out).
pub fn read_lines(path: &Path) -> Result<Vec<Vec<u8>>, CopyError> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(io_err("read", path)(e)),
    };
    let mut out = Vec::new();
    let mut rest = bytes.as_slice();
    while let Some(nl) = rest.iter().position(|b| *b == b'\n') {
        out.push(rest[..nl].to_vec());
        rest = &rest[nl + 1..];
    }
    Ok(out)
}

/// The `received` file as read: its receptions, and the bytes of its lines up to the first that
/// is not whole or does not read (a crash of the witness mid-append, or before the lines of a
/// catch-up were made durable, may leave a torn or zeroed tail; the entries it names just have
/// no reception noted); 0 for a file not started.
struct Noted {
    lines: Vec<Reception>,
    whole: u64,
}

fn read_received(path: &Path) -> Result<Noted, CopyError> {
    let lines = read_lines(path)?;
    let mut out = Noted {
        lines: Vec::new(),
        whole: 0,
    };
    for (i, l) in lines.iter().enumerate() {
        let text = std::str::from_utf8(l).ok();
        if i == 0 {
            if text != Some(RECEIVED_HEAD) {
                return Err(CopyError::Damaged {
                    path: path.to_owned(),
                    problem: format!("its first line is not {RECEIVED_HEAD:?}"),
                });
            }
        } else {
            match text.and_then(Reception::parse) {
                Some(r) => out.lines.push(r),
                None => break,
            }
        }
        out.whole += l.len() as u64 + 1;
    }
    Ok(out)
}

/// Append `bytes` to `file` and fdatasync it.
fn write_synced(file: &mut File, bytes: &[u8], path: &Path) -> Result<(), CopyError> {
    file.write_all(bytes)
        .and_then(|()| file.sync_data())
        .map_err(io_err("append to", path))
}

fn parse_state(text: &str) -> Option<(u64, [u8; 32])> {
    let mut lines = text.lines();
    (lines.next()? == STATE_HEAD).then_some(())?;
    let size: u64 = lines.next()?.strip_prefix("size ")?.parse().ok()?;
    let root = STANDARD.decode(lines.next()?.strip_prefix("root ")?).ok()?;
    Some((size, root.try_into().ok()?))
}

impl GameCopy {
    /// Open (or start) game `game`'s copy in `copy`: its entries are read and their chain
    /// checked, the last cosigned checkpoint is read back.
    pub fn open(copy: &Path, game: u32) -> Result<GameCopy, CopyError> {
        let dir = game_dir(copy, game);
        mkdir(&dir)?;
        let log = dir.join("log.jsonl");
        let lines = read_lines(&log)?;
        let received_path = dir.join("received");
        let noted = read_received(&received_path)?;
        let received_file = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&received_path)
            .map_err(io_err("open", &received_path))?;
        let mut c = GameCopy {
            game,
            file: OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(&log)
                .map_err(io_err("open", &log))?,
            dir: dir.clone(),
            leaves: Tree::default(),
            origin: None,
            arbiter_fingerprint: None,
            cosigned: None,
            conflicted: false,
            written: Vec::new(),
            received: Vec::new(),
            received_file,
            received_unsynced: false,
        };
        if noted.whole
            < c.received_file
                .metadata()
                .map_err(io_err("stat", &received_path))?
                .len()
        {
            c.received_file
                .set_len(noted.whole)
                .map_err(io_err("cut the torn tail of", &received_path))?;
        }
        if noted.whole == 0 {
            write_synced(
                &mut c.received_file,
                format!("{RECEIVED_HEAD}\n").as_bytes(),
                &received_path,
            )?;
        }
        // A tail without its newline (a crash of the witness mid-append) is cut off.
        let whole: u64 = lines.iter().map(|l| l.len() as u64 + 1).sum();
        if c.file.metadata().map_err(io_err("stat", &log))?.len() > whole {
            c.file
                .set_len(whole)
                .map_err(io_err("cut the torn tail of", &log))?;
        }
        for (seq, line) in lines.iter().enumerate() {
            let w = c
                .check_next(seq as u64, line)
                .map_err(|problem| CopyError::Damaged {
                    path: log.clone(),
                    problem,
                })?;
            c.leaves.push(entry_hash(line));
            c.written.push(w);
        }
        c.received = vec![None; c.written.len()];
        for r in noted.lines {
            if let Some(slot) = c.received.get_mut(r.seq as usize)
                && slot.is_none()
            {
                *slot = Some(r);
            }
        }
        let state = dir.join("cosigned");
        match fs::read_to_string(&state) {
            Ok(t) => {
                c.cosigned = Some(parse_state(&t).ok_or_else(|| CopyError::Damaged {
                    path: state.clone(),
                    problem: "not a witness state (size, root)".into(),
                })?);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_err("read", &state)(e)),
        }
        c.conflicted = fs::read_dir(dir.join("evidence"))
            .map(|mut d| d.next().is_some())
            .unwrap_or(false);
        Ok(c)
    }

    /// Entries held.
    pub fn len(&self) -> u64 {
        self.leaves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.leaves.is_empty()
    }

    /// Whether `line` may follow the copy as entry `seq`: it parses, its number is `seq`, its
    /// `prev` is the copy's last entry hash; line 0 gives the origin and the arbiter key.
    /// Its game time and kind when it may.
    fn check_next(&mut self, seq: u64, line: &[u8]) -> Result<Written, String> {
        let e = parse_line(line, 0).map_err(|e| format!("entry {seq}: {e}"))?;
        let prev = self
            .leaves
            .len()
            .checked_sub(1)
            .and_then(|i| self.leaves.leaf(i))
            .unwrap_or(ZERO_HASH);
        if e.seq != seq || e.prev != hex32(&prev) {
            return Err(format!(
                "entry {seq} does not follow the previous one (its seq or prev hash)"
            ));
        }

        if seq == 0 {
            let id = e.body.get("match_id").and_then(|m| m.as_str());
            self.origin = id.map(|m| crate::log::checkpoint::origin(m, self.game));
            self.arbiter_fingerprint = e
                .body
                .pointer("/arbiter_key/fingerprint")
                .and_then(|f| f.as_str())
                .map(str::to_owned);
        }
        Ok(Written::new(e.mono_ms, &e.kind))
    }

    /// Take entry `seq` as the live record sent it (received while catching up: see
    /// [`GameCopy::take_as`]).
    pub fn take(&mut self, seq: u64, line: &str) -> Result<Taken, CopyError> {
        self.take_as(seq, line, false)
    }

    /// Take entry `seq` as the live record sent it; a new entry's reception is noted in
    /// `received` by the witness's clock, `live` when the connection had caught up with the
    /// record.
    pub fn take_as(&mut self, seq: u64, line: &str, live: bool) -> Result<Taken, CopyError> {
        let bytes = line.as_bytes();
        if seq < self.len() {
            if self.leaves.leaf(seq) == Some(entry_hash(bytes)) {
                return Ok(Taken::Same);
            }
            let problem = format!(
                "game {} entry {seq} differs from the entry the copy holds: the history was rewritten after the camp saw it",
                self.game
            );
            let evidence = self.keep_evidence(&format!("entry-{seq}.jsonl"), bytes)?;
            return Ok(Taken::Conflict { problem, evidence });
        }
        if seq > self.len() {
            return Ok(Taken::Gap { have: self.len() });
        }
        if bytes.contains(&b'\n') {
            let evidence = self.keep_evidence(&format!("entry-{seq}.jsonl"), bytes)?;
            return Ok(Taken::Conflict {
                problem: format!("game {} entry {seq} holds a newline", self.game),
                evidence,
            });
        }
        let w = match self.check_next(seq, bytes) {
            Ok(w) => w,
            Err(problem) => {
                let evidence = self.keep_evidence(&format!("entry-{seq}.jsonl"), bytes)?;
                return Ok(Taken::Conflict {
                    problem: format!("game {}: {problem}", self.game),
                    evidence,
                });
            }
        };
        let log = self.dir.join("log.jsonl");
        let mut buf = Vec::with_capacity(bytes.len() + 1);
        buf.extend_from_slice(bytes);
        buf.push(b'\n');
        self.file
            .write_all(&buf)
            .and_then(|()| self.file.sync_data())
            .map_err(io_err("append to", &log))?;
        self.leaves.push(entry_hash(bytes));
        self.written.push(w);
        let r = Reception::now(seq, live);
        let path = self.dir.join("received");
        if live {
            write_synced(&mut self.received_file, r.line().as_bytes(), &path)?;
        } else {
            // While catching up, one fdatasync per entry would double the cost of taking a
            // long log: the receptions are made durable together once caught up.
            self.received_file
                .write_all(r.line().as_bytes())
                .map_err(io_err("append to", &path))?;
            self.received_unsynced = true;
        }
        self.received.push(Some(r));
        Ok(Taken::Appended)
    }

    /// Make the receptions noted while catching up durable (one fdatasync).
    pub fn sync_received(&mut self) -> Result<(), CopyError> {
        if self.received_unsynced {
            self.received_file
                .sync_data()
                .map_err(io_err("sync", &self.dir.join("received")))?;
            self.received_unsynced = false;
        }
        Ok(())
    }

    /// What the witness's clock says of the outage entry `seq` records, if it records one
    /// (a `restart_gap` ruling).
    pub fn outage(&self, seq: u64, line: &[u8]) -> Option<Outage> {
        let claimed = super::clock::claimed_gap(line)?;
        Some(super::clock::judge(
            seq,
            claimed,
            &|s| self.written.get(s as usize).copied(),
            &|s| self.received.get(s as usize).cloned().flatten(),
        ))
    }

    /// Whether the evidence of an outage entry `seq` records was kept.
    pub fn has_outage_evidence(&self, seq: u64) -> bool {
        fs::symlink_metadata(
            self.dir
                .join("evidence")
                .join(format!("outage-entry-{seq}.txt")),
        )
        .is_ok()
    }

    /// Keep the evidence of an outage the witness's clock does not allow as
    /// `evidence/outage-entry-<seq>.txt`: the verdict, the entry, and the reception lines of the
    /// entries before and after the outage (the game is cosigned no more).
    pub fn keep_outage(&mut self, o: &Outage, line: &[u8]) -> Result<PathBuf, CopyError> {
        let Outage::Exceeds {
            entry, from, to, ..
        } = o
        else {
            return Ok(self.dir.join("evidence"));
        };
        let mut text = format!("{o}\n").into_bytes();
        text.extend_from_slice(line);
        text.push(b'\n');
        for s in [from, to] {
            if let Some(r) = self.received.get(*s as usize).cloned().flatten() {
                text.extend_from_slice(r.line().as_bytes());
            }
        }
        self.keep_evidence(&format!("outage-entry-{entry}.txt"), &text)
    }

    /// Whether to cosign checkpoint `cp` (its note already checked against the arbiter key):
    /// it must be this game's, cover only entries the copy holds with the same tree hash and
    /// last entry, and be no smaller than the last checkpoint cosigned, whose root the copy
    /// must still give.
    pub fn consider(&mut self, cp: &Checkpoint, note: &str) -> Result<Decision, CopyError> {
        if let Some(origin) = &self.origin
            && *origin != cp.origin
        {
            return Ok(Decision::Refused(format!(
                "checkpoint of {} sent for game {} ({origin})",
                cp.origin, self.game
            )));
        }
        if self.conflicted {
            return Ok(Decision::Refused(format!(
                "game {} conflicted with the copy or broke the rules before (evidence in {}): nothing more is cosigned for it",
                self.game,
                self.dir.join("evidence").display()
            )));
        }
        if cp.size == 0 {
            return Ok(Decision::Refused("a checkpoint of no entries".into()));
        }
        if let Some((n, root)) = self.cosigned {
            if n <= self.len() && self.leaves.root(n) != Some(root) {
                return Err(CopyError::Damaged {
                    path: self.dir.join("log.jsonl"),
                    problem: format!(
                        "its first {n} entries no longer give the root the camp cosigned"
                    ),
                });
            }
            if cp.size < n {
                return Ok(Decision::Older { cosigned: n });
            }
        }
        if cp.size > self.len() {
            return Ok(Decision::NotYet);
        }
        let n = cp.size;
        let problem = if self.leaves.root(n) != Some(cp.root) {
            Some(format!(
                "the arbiter's key signed checkpoint {} of game {} over another history: its tree hash is not the one of the copy's first {} entries",
                cp.size, self.game, cp.size
            ))
        } else if self.leaves.leaf(n - 1) != Some(cp.chain) {
            Some(format!(
                "checkpoint {} of game {}: its chain line is not the copy's entry {}",
                cp.size,
                self.game,
                n - 1
            ))
        } else {
            None
        };
        if let Some(problem) = problem {
            let evidence =
                self.keep_evidence(&format!("checkpoint-{}.note", cp.size), note.as_bytes())?;
            return Ok(Decision::Conflict { problem, evidence });
        }
        Ok(Decision::Cosign)
    }

    /// The cosignature made before for checkpoint `size`, if it is the one remembered (sent
    /// again as it was after a reconnection, never a second signature).
    pub fn cosignature_of(&self, size: u64) -> Option<String> {
        (self.cosigned?.0 == size)
            .then(|| fs::read_to_string(self.dir.join(format!("checkpoints/{size}.cosig"))).ok())?
    }

    /// Remember checkpoint `cp` as cosigned (before the cosignature leaves): its note and the
    /// cosignature are kept and the state file says its size and root.
    pub fn remember(
        &mut self,
        cp: &Checkpoint,
        note: &str,
        signature: &str,
    ) -> Result<(), CopyError> {
        let cps = self.dir.join("checkpoints");
        mkdir(&cps)?;
        for (name, bytes) in [("note", note), ("cosig", signature)] {
            let kept = cps.join(format!("{}.{name}", cp.size));
            if !kept.exists() {
                crate::record::journal::write_new_file(&kept, bytes.as_bytes())
                    .map_err(io_err("write", &kept))?;
            }
        }
        let state = self.dir.join("cosigned");
        let text = format!(
            "{STATE_HEAD}\nsize {}\nroot {}\n",
            cp.size,
            STANDARD.encode(cp.root)
        );
        crate::record::journal::write_atomic(&state, text.as_bytes())
            .map_err(io_err("write", &state))?;
        self.cosigned = Some((cp.size, cp.root));
        Ok(())
    }

    /// Keep an entry the rules refused as `evidence/refused-entry-<seq>.txt`: the verdict,
    /// then the entry as the copy holds it (the game is cosigned no more).
    pub fn keep_refused(&mut self, f: &super::rules::Fault) -> Result<PathBuf, CopyError> {
        let log = self.dir.join("log.jsonl");
        let line = read_lines(&log)?
            .into_iter()
            .nth(f.seq as usize)
            .unwrap_or_default();
        let mut text = format!("{f}\n").into_bytes();
        text.extend_from_slice(&line);
        text.push(b'\n');
        self.keep_evidence(&format!("refused-entry-{}.txt", f.seq), &text)
    }

    /// Keep `bytes` as `evidence/<name>` (a new file; `.1`, `.2`, … when one exists) and mark
    /// the game as conflicted.
    pub fn keep_evidence(&mut self, name: &str, bytes: &[u8]) -> Result<PathBuf, CopyError> {
        let dir = self.dir.join("evidence");
        mkdir(&dir)?;
        self.conflicted = true;
        let mut path = dir.join(name);
        let mut k = 0;
        while fs::symlink_metadata(&path).is_ok() {
            k += 1;
            path = dir.join(format!("{name}.{k}"));
        }
        crate::record::journal::write_new_file(&path, bytes).map_err(io_err("write", &path))?;
        Ok(path)
    }
}

/// Append one alarm (a JSON line: the frame sent to the live record) to game `game`'s
/// `alarms` in the copy, and fdatasync it.
pub fn keep_alarm(copy: &Path, game: u32, line: &str) -> Result<(), CopyError> {
    let dir = game_dir(copy, game);
    mkdir(&dir)?;
    let path = dir.join("alarms");
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&path)
        .map_err(io_err("open", &path))?;
    write_synced(&mut f, format!("{line}\n").as_bytes(), &path)
}

/// The alarms kept in game `game`'s copy (`alarms`), one line each (a torn last line left out).
pub fn kept_alarms(copy: &Path, game: u32) -> Result<Vec<String>, CopyError> {
    Ok(read_lines(&game_dir(copy, game).join("alarms"))?
        .into_iter()
        .filter_map(|l| String::from_utf8(l).ok())
        .collect())
}

/// An alarm for each piece of evidence game `game`'s copy keeps: the entry or checkpoint it is
/// about, its kind, its summary and its text (a refused entry's or an outage's verdict is the
/// first line of its evidence). A checkpoint signed over a refused entry raises none of its own.
pub fn evidence_alarms(
    copy: &Path,
    game: u32,
) -> Result<Vec<(u64, super::AlarmKind, String, String)>, CopyError> {
    use super::AlarmKind as K;
    let dir = game_dir(copy, game).join("evidence");
    let mut names: Vec<String> = fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let number = |prefix: &str, suffix: &str| -> Option<u64> {
            name.strip_prefix(prefix)?
                .strip_suffix(suffix)?
                .parse()
                .ok()
        };
        let first_line = || -> String {
            fs::read(dir.join(&name))
                .ok()
                .and_then(|b| {
                    let end = b.iter().position(|c| *c == b'\n').unwrap_or(b.len());
                    String::from_utf8(b[..end.min(4096)].to_vec()).ok()
                })
                .unwrap_or_default()
        };
        let kept = dir.join(&name);
        let found = if let Some(seq) = number("refused-entry-", ".txt") {
            let verdict = first_line();
            // `entry #N actor kind (clause c) refused under …` → `actor kind refused under …`.
            let summary = verdict
                .strip_prefix(&format!("entry #{seq} "))
                .and_then(|r| {
                    let (who, rest) = r.split_once(" (clause ")?;
                    Some(format!("{who} {}", rest.split_once(") ")?.1))
                })
                .unwrap_or_else(|| verdict.clone());
            Some((
                seq,
                K::RefusedEntry,
                summary,
                format!(
                    "game {game} {verdict}; kept as evidence: {}",
                    kept.display()
                ),
            ))
        } else if let Some(seq) = number("outage-entry-", ".txt") {
            let verdict = first_line();
            Some((
                seq,
                K::Outage,
                verdict
                    .split_once("; ")
                    .map_or(verdict.as_str(), |(a, _)| a)
                    .to_owned(),
                format!(
                    "game {game} {verdict}; kept as evidence: {}",
                    kept.display()
                ),
            ))
        } else if let Some(seq) = number("entry-", ".jsonl") {
            Some((
                seq,
                K::Conflict,
                format!("entry {seq} conflicted with the copy"),
                format!(
                    "CONFLICT: game {game} entry {seq} differed from the copy or did not chain; kept as evidence: {}",
                    kept.display()
                ),
            ))
        } else {
            number("checkpoint-", ".note").map(|size| {
                (
                    size,
                    K::Conflict,
                    format!("checkpoint {size} signed over another history"),
                    format!(
                        "CONFLICT: the arbiter's key signed checkpoint {size} of game {game} over another history than the copy's; kept as evidence: {}",
                        kept.display()
                    ),
                )
            })
        };
        out.extend(found);
    }
    Ok(out)
}

/// What holding a match folder against a camp's copy found, per game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyFinding {
    pub game: u32,
    /// Entries the copy holds.
    pub held: u64,
    /// What fails (empty: every entry the camp holds is in the log as the camp holds it).
    pub problems: Vec<String>,
    /// What the camp's witness's clock says of each outage the copy's entries record, when it
    /// is no failure (it holds, or the witness cannot bound it).
    pub notes: Vec<String>,
}

/// What the witness's clock, as its `received` file noted it, says of each outage the entries
/// of game `game` in the copy record (read only: nothing is written).
pub fn outages(copy: &Path, game: u32) -> Result<Vec<Outage>, CopyError> {
    let dir = game_dir(copy, game);
    let log = dir.join("log.jsonl");
    let lines = read_lines(&log)?;
    let mut written = Vec::with_capacity(lines.len());
    for (seq, l) in lines.iter().enumerate() {
        let e = parse_line(l, 0).map_err(|e| CopyError::Damaged {
            path: log.clone(),
            problem: format!("entry {seq}: {e}"),
        })?;
        written.push(Written::new(e.mono_ms, &e.kind));
    }
    let mut received: Vec<Option<Reception>> = vec![None; lines.len()];
    let path = dir.join("received");
    if fs::symlink_metadata(&path).is_ok() {
        for r in read_received(&path)?.lines {
            if let Some(slot) = received.get_mut(r.seq as usize)
                && slot.is_none()
            {
                *slot = Some(r);
            }
        }
    }
    Ok(lines
        .iter()
        .enumerate()
        .filter_map(|(seq, l)| {
            let claimed = super::clock::claimed_gap(l)?;
            Some(super::clock::judge(
                seq as u64,
                claimed,
                &|s| written.get(s as usize).copied(),
                &|s| received.get(s as usize).cloned().flatten(),
            ))
        })
        .collect())
}

/// Hold each game of `match_dir` against the camp's copy `copy`: every entry the copy holds
/// must be in the game's log, byte for byte; evidence the witness kept is named.
pub fn check_against(match_dir: &Path, copy: &Path) -> Result<Vec<CopyFinding>, CopyError> {
    let mut out = Vec::new();
    for game in games(copy)? {
        let dir = game_dir(copy, game);
        let held = read_lines(&dir.join("log.jsonl"))?;
        let log = read_lines(&crate::record::layout::log_path(match_dir, game))?;
        let mut problems = Vec::new();
        if log.is_empty() && !held.is_empty() {
            problems.push(format!(
                "game {game}: the match folder has no log, the camp's copy holds {} entries",
                held.len()
            ));
        } else {
            for (seq, line) in held.iter().enumerate() {
                match log.get(seq) {
                    None => {
                        let last = held.len() - 1;
                        let which = if last == seq {
                            format!("entry {seq}")
                        } else {
                            format!("entries {seq} to {last}")
                        };
                        problems.push(format!(
                            "game {game}: the log lacks {which} the camp's copy holds (cut back)"
                        ));
                        break;
                    }
                    Some(l) if l != line => {
                        problems.push(format!(
                            "game {game}: entry {seq} of the log is not the one the camp's copy holds (rewritten)"
                        ));
                        break;
                    }
                    Some(_) => {}
                }
            }
        }
        let mut evidence: Vec<String> = fs::read_dir(dir.join("evidence"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        evidence.sort();
        let mut notes = Vec::new();
        let mut flagged = Vec::new();
        for o in outages(copy, game)? {
            match &o {
                Outage::Exceeds { entry, .. } => {
                    flagged.push(format!("outage-entry-{entry}.txt"));
                    problems.push(format!("game {game}: {o}"));
                }
                _ => notes.push(format!("game {game}: {o}")),
            }
        }
        let (outage, evidence): (Vec<String>, Vec<String>) =
            evidence.into_iter().partition(|n| n.starts_with("outage-"));
        let unflagged: Vec<String> = outage
            .into_iter()
            .filter(|n| !flagged.contains(n))
            .collect();
        if !unflagged.is_empty() {
            problems.push(format!(
                "game {game}: the camp's witness found an outage its clock did not allow as it was written, and kept it: {}",
                unflagged.join(", ")
            ));
        }
        let (refused, conflicting): (Vec<String>, Vec<String>) = evidence
            .into_iter()
            .partition(|n| n.starts_with("refused-"));
        if !conflicting.is_empty() {
            problems.push(format!(
                "game {game}: the camp's witness kept evidence of a conflicting history: {}",
                conflicting.join(", ")
            ));
        }
        if !refused.is_empty() {
            problems.push(format!(
                "game {game}: the camp's witness refused entries under the rules or the match policy as they were written, and kept them: {}",
                refused.join(", ")
            ));
        }
        out.push(CopyFinding {
            game,
            held: held.len() as u64,
            problems,
            notes,
        });
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_kept_tree_gives_rfc6962_roots_of_every_prefix() {
        let leaves: Vec<[u8; 32]> = (0u8..70).map(|i| crate::log::sha256(&[i])).collect();
        let mut t = Tree::default();
        for (i, l) in leaves.iter().enumerate() {
            t.push(*l);
            for n in 0..=i + 1 {
                assert_eq!(
                    t.root(n as u64),
                    Some(merkle::root(&leaves[..n])),
                    "{n} of {}",
                    i + 1
                );
            }
        }
        assert_eq!(t.root(71), None);
    }

    /// `n` chained note lines.
    fn chained(n: u64) -> Vec<String> {
        let mut prev = ZERO_HASH;
        (0..n)
            .map(|seq| {
                let e = crate::log::NewEntry {
                    mono_ms: seq * 1_000,
                    utc: chrono::Utc::now(),
                    actor: "arbiter".into(),
                    clause: "5b".into(),
                    kind: "note".into(),
                    body: serde_json::json!({"text": format!("note {seq}")}),
                };
                let line = crate::log::encode_line(seq, &prev, &e);
                let line = String::from_utf8(line).unwrap().trim_end().to_owned();
                prev = entry_hash(line.as_bytes());
                line
            })
            .collect()
    }

    #[test]
    fn evidence_kept_without_its_alarm_gives_one_alarm_each() {
        use super::super::AlarmKind as K;
        let tmp = tempfile::tempdir().unwrap();
        let ev = game_dir(tmp.path(), 2).join("evidence");
        fs::create_dir_all(&ev).unwrap();
        let refused = "entry #7 operator clock_corrected (clause 7e) refused under clause 5b: BAD_ACTOR: not the operator's";
        fs::write(ev.join("refused-entry-7.txt"), format!("{refused}\n{{}}\n")).unwrap();
        fs::write(ev.join("refused-entry-7.txt.1"), "again\n").unwrap();
        fs::write(ev.join("refused-checkpoint-9.note"), "note\n").unwrap();
        fs::write(ev.join("entry-3.jsonl"), "{}").unwrap();
        fs::write(ev.join("checkpoint-12.note"), "note\n").unwrap();
        let got = evidence_alarms(tmp.path(), 2).unwrap();
        let kinds: Vec<(u64, K, &str)> = got
            .iter()
            .map(|(s, k, summary, _)| (*s, *k, summary.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                (12, K::Conflict, "checkpoint 12 signed over another history"),
                (3, K::Conflict, "entry 3 conflicted with the copy"),
                (
                    7,
                    K::RefusedEntry,
                    "operator clock_corrected refused under clause 5b: BAD_ACTOR: not the operator's"
                ),
            ]
        );
        assert!(
            got[2]
                .3
                .starts_with(&format!("game 2 {refused}; kept as evidence: "))
        );
    }

    #[test]
    fn received_notes_each_entry_once_and_a_torn_tail_is_cut_at_the_reopening() {
        let tmp = tempfile::tempdir().unwrap();
        let lines = chained(4);
        let mut c = GameCopy::open(tmp.path(), 1).unwrap();
        for (seq, l) in lines.iter().enumerate().take(3) {
            assert_eq!(c.take_as(seq as u64, l, seq > 0).unwrap(), Taken::Appended);
        }
        // Sent again after a reconnection: its first reception stands.
        assert_eq!(c.take_as(1, &lines[1], false).unwrap(), Taken::Same);
        c.sync_received().unwrap();
        drop(c);
        let path = game_dir(tmp.path(), 1).join("received");
        let whole = fs::read(&path).unwrap();
        let text = String::from_utf8(whole.clone()).unwrap();
        let kept: Vec<&str> = text.lines().collect();
        assert_eq!(kept.len(), 4, "{text}");
        assert_eq!(kept[0], RECEIVED_HEAD);
        assert!(
            kept[1].starts_with("0 ") && kept[1].ends_with(" backlog"),
            "{text}"
        );
        assert!(
            kept[3].starts_with("2 ") && kept[3].ends_with(" live"),
            "{text}"
        );
        // A zeroed line and a torn one, as a machine down before they were made durable leaves.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"\0\0\0\n3 2026-").unwrap();
        drop(f);
        let mut c = GameCopy::open(tmp.path(), 1).unwrap();
        assert_eq!(
            fs::read(&path).unwrap(),
            whole,
            "cut back to its whole lines"
        );
        assert_eq!(c.take_as(3, &lines[3], true).unwrap(), Taken::Appended);
        let r = read_received(&path).unwrap();
        assert_eq!(
            r.lines.iter().map(|r| (r.seq, r.live)).collect::<Vec<_>>(),
            [(0, false), (1, true), (2, true), (3, true)]
        );
    }
}
