//! The game log on disk (SHELL): append + fdatasync, one writer (OS file lock), torn-tail repair.
//!
//! Every line is written, then `fdatasync`ed, and only then reported as appended. A failed write
//! or sync is never retried: the journal is poisoned and refuses every later append, so the
//! session can stop taking input and raise the alarm.
use crate::log::fast::{self, BlockFacts, CleanLog, check_block};
use crate::log::index::IndexResult;
use crate::log::merkle::RootBuilder;
use crate::log::scan::{self, Fault, Problem, ScannedLine};
use crate::log::{self, Entry, LineError, NewEntry, RECOVERY_KIND, ZERO_HASH, hex32};
use std::fmt;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Mode of every file the kit creates in a match folder.
pub const FILE_MODE: u32 = 0o600;
/// Mode of every folder the kit creates in a match folder.
pub const DIR_MODE: u32 = 0o700;

/// Errors of the journal; each names the file and the problem.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("cannot {op} {path}: {source}")]
    Io {
        op: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error(
        "game log {0} already exists: another board or script opened this game first; nothing was written and the disk is fine — quit and open the game again"
    )]
    Exists(PathBuf),
    #[error(
        "game log {0} is already open in another arbiter process (its file lock is held); close that session first"
    )]
    Locked(PathBuf),
    #[error("game log {path} has no complete first entry (line 0); nothing was changed: {detail}")]
    NoFirstEntry { path: PathBuf, detail: String },
    #[error("game log {path} is open read-only because it is damaged: {damage}")]
    ReadOnly { path: PathBuf, damage: Box<Damage> },
    #[error(
        "game log {path} refuses further input after an earlier failure ({reason}); stop the session and raise the alarm"
    )]
    Poisoned { path: PathBuf, reason: String },
    #[error("game log {path}: {fault}")]
    Damaged { path: PathBuf, fault: Box<Fault> },
    #[error("game log {path}: line seq {seq} at byte offset {offset}: {problem}")]
    BadLine {
        path: PathBuf,
        seq: u64,
        offset: u64,
        problem: String,
    },
    #[error("entry refused before writing (it would not read back as a valid line): {0}")]
    Invalid(LineError),
    #[error(
        "game log {path}: entry seq {seq} would be a line of {len} bytes, longer than the {MAX_LINE_BYTES} a log line may hold; refused before writing, nothing was written"
    )]
    TooLong { path: PathBuf, seq: u64, len: usize },
}

/// Damage found on open anywhere but the tail: the game opens read-only and nothing is repaired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    pub fault: Fault,
    /// Number of valid entries before the damage.
    pub valid_entries: u64,
    /// Size of the file.
    pub file_len: u64,
}

impl fmt::Display for Damage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}; entries 0..{} are intact; the file ({} bytes) was not repaired",
            self.fault, self.valid_entries, self.file_len
        )
    }
}

/// The file operations the journal performs while appending; tests replace them to inject
/// failures (see [`FaultPlan`]).
pub trait FileOps: Send {
    fn write_all(&mut self, file: &mut File, buf: &[u8]) -> io::Result<()> {
        file.write_all(buf)
    }
    fn sync_data(&mut self, file: &File) -> io::Result<()> {
        file.sync_data()
    }
}

/// The real thing.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealOps;
impl FileOps for RealOps {}

/// Injected failures, counted over the appends made through one journal handle (the recovery
/// entry written by `open` counts too). Indexes are 0-based.
#[derive(Debug, Default, Clone)]
pub struct FaultPlan {
    /// Fail the write of this append.
    pub fail_write_at: Option<u64>,
    /// With `fail_write_at`: write this many bytes of the line first (a torn write).
    pub torn_bytes: Option<usize>,
    /// Fail the fdatasync of this append (the line itself was written).
    pub fail_sync_at: Option<u64>,
    writes: u64,
    syncs: u64,
}

impl FaultPlan {
    pub fn new() -> FaultPlan {
        FaultPlan::default()
    }
    pub fn fail_write(mut self, at: u64, torn_bytes: Option<usize>) -> FaultPlan {
        self.fail_write_at = Some(at);
        self.torn_bytes = torn_bytes;
        self
    }
    pub fn fail_sync(mut self, at: u64) -> FaultPlan {
        self.fail_sync_at = Some(at);
        self
    }
}

impl FileOps for FaultPlan {
    fn write_all(&mut self, file: &mut File, buf: &[u8]) -> io::Result<()> {
        let n = self.writes;
        self.writes += 1;
        if self.fail_write_at == Some(n) {
            if let Some(k) = self.torn_bytes {
                file.write_all(&buf[..k.min(buf.len())])?;
            }
            return Err(io::Error::other("injected write failure"));
        }
        file.write_all(buf)
    }
    fn sync_data(&mut self, file: &File) -> io::Result<()> {
        let n = self.syncs;
        self.syncs += 1;
        if self.fail_sync_at == Some(n) {
            return Err(io::Error::other("injected fdatasync failure"));
        }
        file.sync_data()
    }
}

fn io_err(op: &'static str, path: &Path) -> impl FnOnce(io::Error) -> JournalError + use<> {
    let path = path.to_owned();
    move |source| JournalError::Io { op, path, source }
}

/// fsync a folder (so a file created or renamed in it survives a crash).
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Create `dir` and its missing parents with mode 0700, fsyncing the parent of each one created.
pub fn ensure_dir(dir: &Path) -> io::Result<()> {
    if dir.as_os_str().is_empty() || dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent() {
        ensure_dir(parent)?;
    }
    match DirBuilder::new().mode(DIR_MODE).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => return Ok(()),
        Err(e) => return Err(e),
    }
    match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => sync_dir(p),
        _ => sync_dir(Path::new(".")),
    }
}

fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// Write a new file (0600, refused if it exists), fsync it and its folder.
pub fn write_new_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(path)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    sync_dir(&parent_of(path))
}

/// What [`copy_tail_to_new_file`] copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopiedTail {
    /// Bytes copied.
    pub len: u64,
    pub sha256: [u8; 32],
    /// Newlines among them (the complete lines).
    pub lines: u64,
}

/// Copy the bytes of the log `from` past `offset` to a new file `to` (0600, refused if it
/// exists) in blocks, never the whole tail in memory; fsync it and its folder. A failed copy
/// leaves no side file.
pub fn copy_tail_to_new_file(from: &Path, offset: u64, to: &Path) -> io::Result<CopiedTail> {
    use sha2::Digest;
    use std::io::{Seek, SeekFrom};
    let mut src = crate::record::fsio::open_match_file(from)?;
    src.seek(SeekFrom::Start(offset))?;
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(to)?;
    let copied = (|| {
        let mut h = sha2::Sha256::new();
        let (mut len, mut lines) = (0u64, 0u64);
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let k = match src.read(&mut buf) {
                Ok(0) => break,
                Ok(k) => k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let block = &buf[..k];
            h.update(block);
            lines += block.iter().filter(|&&b| b == b'\n').count() as u64;
            f.write_all(block)?;
            len += k as u64;
        }
        f.sync_all()?;
        Ok(CopiedTail {
            len,
            sha256: h.finalize().into(),
            lines,
        })
    })();
    match copied {
        Ok(c) => sync_dir(&parent_of(to)).map(|()| c),
        Err(e) => {
            let _ = fs::remove_file(to);
            Err(e)
        }
    }
}

/// Replace `path` atomically with `bytes` (temp file 0600, fsync, rename, fsync folder), only over
/// a regular file or nothing: never over a device, a FIFO or a folder, never through a symlink.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |f| f.write_all(bytes))
}

/// [`write_atomic`] with the bytes written by `fill` (buffered), for an output too large to hold:
/// when `fill` fails, the temporary file is removed and `path` is left as it was.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_file() => {
            let what = if m.file_type().is_symlink() {
                "a symbolic link"
            } else if m.file_type().is_dir() {
                "a folder"
            } else {
                "a device or FIFO"
            };
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is {what}: the kit writes only over a regular file or a new name",
                    path.display()
                ),
            ));
        }
        _ => {}
    }
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".tmp");
    let tmp = path.with_file_name(name);
    let _ = fs::remove_file(&tmp);
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(&tmp)?;
    let written = (|| {
        let mut w = io::BufWriter::with_capacity(1 << 16, &mut f);
        fill(&mut w)?;
        w.flush()?;
        drop(w);
        f.sync_all()
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    fs::rename(&tmp, path)?;
    sync_dir(&parent_of(path))
}

/// Suffix of a game log being created (`log.jsonl.new-<pid>`) before it takes its name.
const NEW_SUFFIX: &str = ".new-";

/// Remove the leftovers of creations killed before their log took its name. A leftover whose
/// lock is held belongs to a creation still under way (another board or script racing for the
/// game): it is left alone, so that creation ends with its own verdict, not a missing file.
fn remove_stale_new_files(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    let prefix = format!("{name}{NEW_SUFFIX}");
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        let Some(pid) = e
            .file_name()
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .map(str::to_owned)
        else {
            continue;
        };
        // Another kit creating this game right now (its process is alive) is never disturbed:
        // between its create and its lock the file is not yet locked, and removing it then made
        // that kit's creation fail with "No such file or directory" instead of the race's 70.
        if pid != std::process::id().to_string() && Path::new("/proc").join(&pid).exists() {
            continue;
        }
        {
            let held = OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
                .open(e.path())
                .is_ok_and(|f| matches!(f.try_lock(), Err(fs::TryLockError::WouldBlock)));
            if !held {
                let _ = fs::remove_file(e.path());
            }
        }
    }
}

/// What a checkpoint states of a log's first `size` entries, gathered without holding them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeHead {
    /// Line 0's match id (the origin's).
    pub match_id: String,
    pub size: u64,
    pub root: [u8; 32],
    pub last_hash: [u8; 32],
}

/// What the kit needs to know of a log's entries without holding them: line 0, the last entry,
/// the Merkle frontier, the result and the side files already recorded. Memory is O(log n) in
/// the number of entries; feed it with [`Tally::push`] in log order.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    first: Option<Entry>,
    last: Option<Entry>,
    tree: RootBuilder,
    result: Option<IndexResult>,
    side_files: Vec<String>,
}

impl Tally {
    pub fn new() -> Tally {
        Tally::default()
    }

    /// Take the next entry into account (the caller has checked it is next in the chain).
    pub fn push(&mut self, e: Entry) {
        self.tree.push(e.hash);
        if e.kind == "game_ended" {
            self.result = Some(result_of(&e));
        }
        if e.kind == RECOVERY_KIND
            && let Some(name) = e.body.get("side_file").and_then(|s| s.as_str())
        {
            self.side_files.push(name.to_owned());
        }
        if self.first.is_none() {
            self.first = Some(e);
        } else {
            self.last = Some(e);
        }
    }

    /// Entries taken in.
    pub fn len(&self) -> u64 {
        self.tree.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    /// Line 0.
    pub fn first(&self) -> Option<&Entry> {
        self.first.as_ref()
    }

    /// The latest entry.
    pub fn last(&self) -> Option<&Entry> {
        self.last.as_ref().or(self.first.as_ref())
    }

    /// The result the log records (the latest `game_ended`'s score), `Unfinished` without one.
    pub fn result(&self) -> IndexResult {
        self.result.unwrap_or(IndexResult::Unfinished)
    }

    /// Whether the log records a result.
    pub fn finished(&self) -> bool {
        self.result.is_some()
    }

    /// What a checkpoint over every entry taken in states; `None` before line 0 or when line 0
    /// names no match.
    pub fn head(&self) -> Option<TreeHead> {
        let first = self.first.as_ref()?;
        let last = self.last()?;
        Some(TreeHead {
            match_id: first.body.get("match_id")?.as_str()?.to_owned(),
            size: self.tree.len(),
            root: self.tree.root(),
            last_hash: last.hash,
        })
    }
}

/// Read a whole game log into a [`Tally`] (checked line by line, as [`for_each_entry`]).
pub fn tally(path: &Path) -> Result<Tally, JournalError> {
    let mut t = Tally::new();
    for_each_entry(path, |e| {
        t.push(e);
        true
    })?;
    Ok(t)
}

/// Why an empty `log.jsonl` holds no game, and what to do.
const EMPTY_LOG_HINT: &str = "the file is empty: the kit never leaves an empty log (line 0 is written whole before the file takes its name), so it was emptied or made by hand; move it aside (it holds nothing) and open the game again to declare it";

/// Longest line a game log may hold (an entry is a few hundred bytes): a longer one is a bad line,
/// and it is never held in memory whole.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The lines of a file, read one at a time into a reused buffer of at most [`MAX_LINE_BYTES`].
struct LineReader<R> {
    r: io::BufReader<R>,
    /// Offset of the next line.
    offset: u64,
    buf: Vec<u8>,
    /// Stop reading a line once it is known to be too long (its length then counts only what
    /// was read): for readers that refuse such a line anyway, so one endless line (a sparse
    /// 6 GiB log) is not read to its end.
    stop_long: bool,
}

/// One line as read: where it starts, its length without the newline, and how it ends.
struct RawLine {
    offset: u64,
    len: u64,
    terminated: bool,
    /// Longer than [`MAX_LINE_BYTES`]: the buffer holds only its start.
    too_long: bool,
}

impl<R: Read> LineReader<R> {
    fn new(r: R) -> LineReader<R> {
        LineReader {
            r: io::BufReader::with_capacity(1 << 16, r),
            offset: 0,
            buf: Vec::new(),
            stop_long: false,
        }
    }

    /// The next line into `self.buf`, `None` at the end of the file.
    fn next(&mut self) -> io::Result<Option<RawLine>> {
        use std::io::BufRead;
        self.buf.clear();
        let start = self.offset;
        let (mut len, mut terminated, mut too_long) = (0u64, false, false);
        loop {
            let avail = match self.r.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                break;
            }
            let (take, used) = match avail.iter().position(|&b| b == b'\n') {
                Some(p) => {
                    terminated = true;
                    (p, p + 1)
                }
                None => (avail.len(), avail.len()),
            };
            let room = MAX_LINE_BYTES.saturating_sub(self.buf.len());
            if take > room {
                too_long = true;
            }
            self.buf.extend_from_slice(&avail[..take.min(room)]);
            len += take as u64;
            self.r.consume(used);
            self.offset += used as u64;
            if terminated || (too_long && self.stop_long) {
                break;
            }
        }
        if self.offset == start {
            return Ok(None);
        }
        Ok(Some(RawLine {
            offset: start,
            len,
            terminated,
            too_long,
        }))
    }

    /// Whether anything follows what was read.
    fn at_end(&mut self) -> io::Result<bool> {
        use std::io::BufRead;
        Ok(self.r.fill_buf()?.is_empty())
    }
}

/// A streamed journal scan: the valid entries before the first local fault (each line against
/// its predecessor, as [`scan::first_local_fault`]), the fault, and whether it is the last line.
struct LocalScan {
    tally: Tally,
    fault: Option<Fault>,
    fault_is_last: bool,
    file_len: u64,
}

/// Kinds whose body [`Tally::push`] reads (besides line 0's and the last entry's).
fn tally_reads_body(kind: &str) -> bool {
    kind == "game_ended" || kind == RECOVERY_KIND
}

/// The latest valid entry of a scan, whole: the scan hands entries with their body left out
/// ([`parse_terminated_head`]); the tally's last entry gets its body back from its line.
fn restore_last(tally: &mut Tally, last: &[u8], offset: u64) {
    if let Some(e) = tally.last.as_mut()
        && e.offset == offset
        && let Ok(whole) = log::parse_line(last, offset)
    {
        *e = whole;
    }
}

/// `whole`: every entry handed to `each` with its body; otherwise only line 0's, the last one's
/// and those [`tally_reads_body`] names (the others' bodies are skipped, not parsed).
fn scan_local(
    file: &mut File,
    whole: bool,
    mut each: impl FnMut(&Entry, &[u8]),
) -> io::Result<LocalScan> {
    let mut lines = LineReader::new(file);
    let mut tally = Tally::new();
    let mut prev = ZERO_HASH;
    let mut index = 0u64;
    // The latest valid line's bytes and offset (its entry's body is put back at the end).
    let (mut last, mut last_offset) = (Vec::new(), 0u64);
    while let Some(raw) = lines.next()? {
        let mut sl = if raw.terminated && !raw.too_long {
            let entry = if whole {
                parse_terminated(&mut lines.buf, raw.offset)
            } else {
                parse_terminated_head(&mut lines.buf, raw.offset)
            };
            let hash = match &entry {
                Ok(e) => e.hash,
                Err(_) => log::entry_hash(&lines.buf),
            };
            ScannedLine {
                offset: raw.offset,
                len: raw.len,
                terminated: true,
                hash,
                prev: entry.as_ref().ok().map(Entry::prev_bytes),
                entry,
            }
        } else {
            scan::scan_line(&lines.buf, raw.offset, raw.terminated)
        };
        sl.len = raw.len;
        if raw.too_long {
            sl.entry = Err(LineError::Json(format!(
                "line of {} bytes, longer than the {MAX_LINE_BYTES} a log line may hold",
                raw.len
            )));
        }
        let problem = if !raw.terminated {
            Some(Problem::Unterminated)
        } else {
            match &sl.entry {
                Err(e) => Some(Problem::Line(e.clone())),
                Ok(e) if e.seq != index => Some(Problem::Seq { found: e.seq }),
                Ok(_) => None,
            }
        };
        let fault = match (problem, sl.prev) {
            (Some(problem), _) => Some(Fault {
                index,
                offset: raw.offset,
                len: raw.len,
                problem,
                expected: None,
                found: sl.hash,
            }),
            (None, Some(p)) if p != prev => Some(Fault {
                index,
                offset: raw.offset,
                len: raw.len,
                problem: Problem::Prev,
                expected: Some(prev),
                found: p,
            }),
            _ => None,
        };
        if let Some(f) = fault {
            let fault_is_last = lines.at_end()?;
            let mut file_len = lines.offset;
            if !fault_is_last {
                file_len = lines.r.get_ref().metadata()?.len();
            }
            restore_last(&mut tally, &last, last_offset);
            return Ok(LocalScan {
                tally,
                fault: Some(f),
                fault_is_last,
                file_len,
            });
        }
        if let Ok(e) = sl.entry {
            prev = e.hash;
            each(&e, &lines.buf);
            last.clear();
            last.extend_from_slice(&lines.buf);
            last_offset = e.offset;
            tally.push(e);
        }
        index += 1;
    }
    restore_last(&mut tally, &last, last_offset);
    Ok(LocalScan {
        tally,
        fault: None,
        fault_is_last: false,
        file_len: lines.offset,
    })
}

/// A game log's file opened for reading and appending: never through a symlink
/// (game-2/log.jsonl -> ../game-1/log.jsonl must not append to game 1), never a FIFO, device or
/// folder (refused at once, not a hang).
fn open_log_file(path: &Path) -> Result<File, JournalError> {
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} is a symbolic link, not a game log", path.display()),
                )
            } else {
                e
            }
        })
        .map_err(io_err("open", path))?;
    let ft = file.metadata().map_err(io_err("stat", path))?.file_type();
    if !ft.is_file() {
        return Err(io_err("open", path)(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        )));
    }
    Ok(file)
}

/// A log's size and the chain hash of its last entry at that size (`E_{size-1}`).
pub type ChainAt = (u64, [u8; 32]);

/// What [`Journal::open_streamed`] hands its reader, line by line.
#[derive(Debug, Clone, Copy)]
pub enum OpenLine<'a> {
    /// The next line as the checked pass read it.
    View(&'a LineView<'a>),
    /// Forget every line seen: the log is read again, entry by entry.
    Restart,
    /// The next valid entry (its body read only for line 0, `game_ended` and `recovery`) with
    /// its line's bytes.
    Entry(&'a Entry, &'a [u8]),
}

/// The result a `game_ended` entry records.
fn result_of(e: &Entry) -> IndexResult {
    IndexResult::of_game_ended(&e.body)
}

/// An open game log, holding its exclusive lock. It keeps no list of entries: only what
/// appending and signing need ([`Tally`]), so its memory does not grow with the log.
pub struct Journal {
    path: PathBuf,
    file: File,
    tally: Tally,
    damage: Option<Damage>,
    recoveries: Vec<Entry>,
    poisoned: Option<String>,
    ops: Box<dyn FileOps>,
    /// Why the next side file recorded was cut, when it is not a torn tail.
    pending_reason: Option<String>,
}

impl fmt::Debug for Journal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Journal")
            .field("path", &self.path)
            .field("entries", &self.tally.len())
            .field("damage", &self.damage)
            .field("poisoned", &self.poisoned)
            .finish_non_exhaustive()
    }
}

fn lock(file: &File, path: &Path) -> Result<(), JournalError> {
    // A process forked by this one holds a copy of the descriptor (and so of the lock) until it
    // execs; wait a little before concluding that another arbiter holds the game.
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(LOCK_PATIENCE_MS);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(fs::TryLockError::WouldBlock) => return Err(JournalError::Locked(path.to_owned())),
            Err(fs::TryLockError::Error(e)) => return Err(io_err("lock", path)(e)),
        }
    }
}

/// How long `open` waits for the lock before refusing the game as open elsewhere.
pub const LOCK_PATIENCE_MS: u64 = 300;

/// The name of the side file for bytes cut at `offset` (a numbered suffix if it exists already).
fn side_file_for(path: &Path, offset: u64) -> PathBuf {
    let base = format!(
        "{}.torn-{offset}",
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    let mut candidate = path.with_file_name(&base);
    let mut k = 2;
    while candidate.exists() {
        candidate = path.with_file_name(format!("{base}.{k}"));
        k += 1;
    }
    candidate
}

impl Journal {
    /// Create a new game log with its line 0 (parent folders 0700, file 0600; refused if the file
    /// exists), fdatasync it and fsync its folder; the lock is held until the journal is dropped.
    pub fn create(path: &Path, first: NewEntry) -> Result<Journal, JournalError> {
        Journal::create_with(path, first, Box::new(RealOps))
    }

    /// [`Journal::create`] with injected file operations.
    pub fn create_with(
        path: &Path,
        first: NewEntry,
        ops: Box<dyn FileOps>,
    ) -> Result<Journal, JournalError> {
        let dir = parent_of(path);
        ensure_dir(&dir).map_err(io_err("create folder", &dir))?;
        if fs::symlink_metadata(path).is_ok() {
            return Err(JournalError::Exists(path.to_owned()));
        }
        // The log is created complete: line 0 is written and synced under a temporary name, and
        // only then does the file take its name (a kill in between leaves no empty log.jsonl
        // that would block the game; the leftover is removed by the next create).
        remove_stale_new_files(path);
        let mut tmp_name = path
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        tmp_name.push(format!("{NEW_SUFFIX}{}", std::process::id()));
        let tmp = path.with_file_name(tmp_name);
        let _ = fs::remove_file(&tmp);
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create_new(true)
            .mode(FILE_MODE)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)
            .map_err(io_err("create", &tmp))?;
        lock(&file, &tmp)?;
        let mut j = Journal {
            path: tmp.clone(),
            file,
            tally: Tally::new(),
            damage: None,
            recoveries: Vec::new(),
            poisoned: None,
            ops,
            pending_reason: None,
        };
        if let Err(e) = j.append(first) {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        // A hard link never replaces an existing file (a second board racing for the game).
        if let Err(e) = fs::hard_link(&tmp, path) {
            let _ = fs::remove_file(&tmp);
            return Err(if e.kind() == io::ErrorKind::AlreadyExists {
                JournalError::Exists(path.to_owned())
            } else {
                io_err("create", path)(e)
            });
        }
        let _ = fs::remove_file(&tmp);
        sync_dir(&dir).map_err(io_err("fsync folder of", path))?;
        j.path = path.to_owned();
        Ok(j)
    }

    /// Open an existing game log for appending (exclusive, non-blocking lock). A torn last line
    /// is cut off into a side file and a `recovery` entry is appended; damage anywhere else opens
    /// the journal read-only (see [`Journal::damage`]).
    pub fn open(path: &Path) -> Result<Journal, JournalError> {
        Journal::open_with(path, Box::new(RealOps))
    }

    /// [`Journal::open`] with injected file operations.
    pub fn open_with(path: &Path, ops: Box<dyn FileOps>) -> Result<Journal, JournalError> {
        Journal::open_each(path, ops, |_, _| {})
    }

    /// [`Journal::open_with`], handing `each` every valid entry in order as the log is read
    /// (before any repair is appended): the one pass a caller replays the game from.
    ///
    /// `each` gets every valid entry with its line's bytes. The entry's `body` is read
    /// only for line 0, `game_ended` and `recovery` (it is `null` for the others): read the event
    /// from the bytes ([`crate::log::codec::decode_canonical`]), each line then parsed once.
    pub fn open_each(
        path: &Path,
        ops: Box<dyn FileOps>,
        each: impl FnMut(&Entry, &[u8]),
    ) -> Result<Journal, JournalError> {
        let file = open_log_file(path)?;
        lock(&file, path)?;
        Journal::open_locked(path, file, ops, each)
    }

    /// [`Journal::open_each`] on the log's file, opened and locked.
    fn open_locked(
        path: &Path,
        mut file: File,
        ops: Box<dyn FileOps>,
        each: impl FnMut(&Entry, &[u8]),
    ) -> Result<Journal, JournalError> {
        let scanned = scan_local(&mut file, false, each).map_err(io_err("read", path))?;
        let mut j = Journal {
            path: path.to_owned(),
            file,
            tally: scanned.tally,
            damage: None,
            recoveries: Vec::new(),
            poisoned: None,
            ops,
            pending_reason: None,
        };
        match scanned.fault {
            None if j.tally.is_empty() => {
                return Err(JournalError::NoFirstEntry {
                    path: path.to_owned(),
                    detail: EMPTY_LOG_HINT.into(),
                });
            }
            None => {}
            Some(f) if f.index == 0 => {
                return Err(JournalError::NoFirstEntry {
                    path: path.to_owned(),
                    detail: f.to_string(),
                });
            }
            Some(f) if scanned.fault_is_last => {
                j.cut_tail(f.offset, scanned.file_len)?;
            }
            Some(f) => {
                j.damage = Some(Damage {
                    valid_entries: f.index,
                    fault: f,
                    file_len: scanned.file_len,
                });
                return Ok(j);
            }
        }
        j.record_pending_side_files()?;
        Ok(j)
    }

    /// [`Journal::open_each`] over the checked pass `verify` makes ([`stream_clean_file_each`]:
    /// every line checked canonical, linked and hashed on the cores, in blocks) when the log has
    /// nothing to report, which is the common case: `each` gets [`OpenLine::View`] for every line
    /// in order. A log with anything to report (a torn tail, damage, a line in another form) is
    /// then read as [`Journal::open_each`] reads it: `each` gets [`OpenLine::Restart`] (forget
    /// what the views gave) and then [`OpenLine::Entry`] for every valid entry. Either way the
    /// chain hash at each of `sizes` the log reaches is returned, as `(size, E_{size-1})`.
    pub fn open_streamed(
        path: &Path,
        ops: Box<dyn FileOps>,
        sizes: &[u64],
        mut each: impl FnMut(OpenLine<'_>),
    ) -> Result<(Journal, Vec<ChainAt>), JournalError> {
        let file = open_log_file(path)?;
        lock(&file, path)?;
        let (mut result, mut last) = (None, (0u64, 0u64));
        // Each line's event is decoded on the checking threads ([`LineView::event`]).
        let streamed = file.try_clone().ok().and_then(|reader| {
            let mut offset = 0u64;
            let _decode = DecodeInPass::on();
            stream_clean_each(reader, path, sizes, &|k| k == "game_ended", |v| {
                if let Some(e) = v.entry.filter(|e| e.kind == "game_ended") {
                    result = Some(result_of(e));
                }
                let len = v.line.map_or(0, |l| l.len() as u64);
                last = (offset, len);
                offset += len + 1;
                each(OpenLine::View(v));
            })
        });
        if let Some(clean) = streamed {
            let heads = clean.heads.iter().map(|h| (h.0, h.2)).collect();
            let last = if clean.entries > 1 {
                let mut buf = vec![0u8; last.1 as usize];
                std::os::unix::fs::FileExt::read_exact_at(&file, &mut buf, last.0)
                    .map_err(io_err("read", path))?;
                let e = log::parse_line(&buf, last.0).map_err(|e| JournalError::BadLine {
                    path: path.to_owned(),
                    seq: clean.entries - 1,
                    offset: last.0,
                    problem: e.to_string(),
                })?;
                Some(e)
            } else {
                None
            };
            let side_files = clean
                .recoveries
                .iter()
                .filter_map(|e| e.body.get("side_file").and_then(|s| s.as_str()))
                .map(str::to_owned)
                .collect();
            let mut j = Journal {
                path: path.to_owned(),
                file,
                tally: Tally {
                    first: Some(clean.first),
                    last,
                    tree: clean.tree,
                    result,
                    side_files,
                },
                damage: None,
                recoveries: Vec::new(),
                poisoned: None,
                ops,
                pending_reason: None,
            };
            j.record_pending_side_files()?;
            return Ok((j, heads));
        }
        {
            use std::io::{Seek, SeekFrom};
            let mut f = &file;
            f.seek(SeekFrom::Start(0)).map_err(io_err("read", path))?;
        }
        each(OpenLine::Restart);
        let mut heads = Vec::new();
        let j = Journal::open_locked(path, file, ops, |e, line| {
            if sizes.contains(&(e.seq + 1)) {
                heads.push((e.seq + 1, e.hash));
            }
            each(OpenLine::Entry(e, line));
        })?;
        Ok((j, heads))
    }

    /// Cut the last entry — a complete line that decodes but that the game cannot apply (a byte
    /// flipped by a crash in a line no checkpoint signs) — into a side file like a torn tail, and
    /// record it with a `recovery` entry (nothing is lost: the side file keeps its bytes and the
    /// recovery entry their digest). `why` is kept in the recovery entry. Refused for line 0 and
    /// on a damaged or poisoned journal.
    pub fn cut_unappliable_last(&mut self, why: &str) -> Result<(), JournalError> {
        use std::io::{Seek, SeekFrom};
        if self.damage.is_some() || self.poisoned.is_some() || self.tally.len() < 2 {
            return Err(JournalError::Poisoned {
                path: self.path.clone(),
                reason: "the last entry cannot be cut here".into(),
            });
        }
        let Some(last) = self.tally.last().cloned() else {
            return Ok(());
        };
        let file_len = self
            .file
            .metadata()
            .map_err(io_err("stat", &self.path))?
            .len();
        self.cut_tail(last.offset, file_len)?;
        // The tally again, without the entry cut (a rare path: one more read of the log).
        let mut file = &self.file;
        file.seek(SeekFrom::Start(0))
            .map_err(io_err("read", &self.path))?;
        let scanned =
            scan_local(&mut self.file, false, |_, _| {}).map_err(io_err("read", &self.path))?;
        self.tally = scanned.tally;
        self.pending_reason = Some(why.to_owned());
        self.record_pending_side_files()
    }

    /// Move the bytes from `offset` to `file_len` into a side file, then cut the log there.
    fn cut_tail(&mut self, offset: u64, file_len: u64) -> Result<(), JournalError> {
        use std::io::{Seek, SeekFrom};
        let side = side_file_for(&self.path, offset);
        let copy = || -> io::Result<()> {
            let mut from = &self.file;
            from.seek(SeekFrom::Start(offset))?;
            let mut to = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(FILE_MODE)
                .open(&side)?;
            io::copy(&mut from.take(file_len.saturating_sub(offset)), &mut to)?;
            to.sync_all()?;
            sync_dir(&parent_of(&side))
        };
        copy().map_err(io_err("write side file", &side))?;
        let path = self.path.clone();
        self.file
            .set_len(offset)
            .map_err(io_err("truncate", &path))?;
        self.file.sync_all().map_err(io_err("fsync", &path))?;
        Ok(())
    }

    /// Append a `recovery` entry for every side file of this log that no recovery entry names
    /// yet (normally the one just cut; also one left by a crash right after cutting).
    fn record_pending_side_files(&mut self) -> Result<(), JournalError> {
        let dir = parent_of(&self.path);
        let prefix = format!(
            "{}.torn-",
            self.path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        );
        let mut pending: Vec<(u64, String)> = Vec::new();
        for item in fs::read_dir(&dir).map_err(io_err("list", &dir))? {
            let item = item.map_err(io_err("list", &dir))?;
            let name = item.file_name().to_string_lossy().into_owned();
            let Some(rest) = name.strip_prefix(&prefix) else {
                continue;
            };
            let Ok(offset) = rest.split('.').next().unwrap_or_default().parse::<u64>() else {
                continue;
            };
            if !self.tally.side_files.contains(&name) {
                pending.push((offset, name));
            }
        }
        pending.sort();
        for (offset, name) in pending {
            let side = dir.join(&name);
            let (length, digest) = hash_file(&side).map_err(io_err("read side file", &side))?;
            let last = self.tally.last().map_or(0, |e| e.mono_ms);
            let e = NewEntry {
                mono_ms: last,
                utc: chrono::Utc::now(),
                actor: "kit".into(),
                clause: "5b".into(),
                kind: RECOVERY_KIND.into(),
                body: match self.pending_reason.take() {
                    None => serde_json::json!({
                        "offset": offset,
                        "length": length,
                        "sha256": hex32(&digest),
                        "side_file": name,
                    }),
                    Some(reason) => serde_json::json!({
                        "offset": offset,
                        "length": length,
                        "sha256": hex32(&digest),
                        "side_file": name,
                        "reason": reason,
                    }),
                },
            };
            let entry = self.append(e)?.clone();
            self.recoveries.push(entry);
        }
        Ok(())
    }

    /// What the journal knows of its entries (line 0, the last one, the tree head).
    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// Number of entries in the log (up to the damage, if any).
    pub fn len(&self) -> u64 {
        self.tally.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tally.is_empty()
    }

    /// The latest entry.
    pub fn last(&self) -> Option<&Entry> {
        self.tally.last()
    }

    /// Every entry of the log (up to the damage, if any), read back from the file: for tests and
    /// tools. The kit itself never holds them all (see [`Journal::tally`]).
    pub fn entries(&self) -> Vec<Entry> {
        use std::io::{Seek, SeekFrom};
        let mut out = Vec::new();
        let mut from = &self.file;
        if from.seek(SeekFrom::Start(0)).is_err() {
            return out;
        }
        let mut lines = LineReader::new(from);
        while out.len() < self.tally.len() as usize {
            let Ok(Some(raw)) = lines.next() else { break };
            match log::parse_line(&lines.buf, raw.offset) {
                Ok(e) => out.push(e),
                Err(_) => break,
            }
        }
        out
    }

    /// `Some` when the log is damaged before its tail: the journal is read-only.
    pub fn damage(&self) -> Option<&Damage> {
        self.damage.as_ref()
    }

    /// The (first) recovery entry appended by this open, if any.
    pub fn recovery(&self) -> Option<&Entry> {
        self.recoveries.first()
    }

    /// Every recovery entry appended by this open.
    pub fn recoveries(&self) -> &[Entry] {
        &self.recoveries
    }

    /// Why the journal refuses input after a failed write or sync.
    pub fn poisoned(&self) -> Option<&str> {
        self.poisoned.as_deref()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Take the last entry back out of the file: it was written but never acknowledged, because
    /// what binds it (the seal) could not be written. The file is cut back to the entry's offset
    /// and synced (cutting needs no free space), and the journal refuses every later append: the
    /// session stops, and a reopen reads the log as it was before the entry.
    pub fn retract_last(&mut self, why: &str) -> Result<(), JournalError> {
        let Some(last) = self.tally.last() else {
            return Ok(());
        };
        let (seq, offset) = (last.seq, last.offset);
        let undone = self
            .file
            .set_len(offset)
            .and_then(|()| self.file.sync_all());
        self.poisoned = Some(match &undone {
            Ok(()) => format!("entry #{seq} could not be bound ({why}); it was taken back out"),
            Err(e) => format!(
                "entry #{seq} could not be bound ({why}); taking it back out failed too: {e}"
            ),
        });
        undone.map_err(io_err("cut back", &self.path))
    }

    /// Write the entry's line and its newline, fdatasync, and only then return it. Any failure
    /// poisons the journal: every later append is refused.
    pub fn append(&mut self, e: NewEntry) -> Result<&Entry, JournalError> {
        if let Some(reason) = &self.poisoned {
            return Err(JournalError::Poisoned {
                path: self.path.clone(),
                reason: reason.clone(),
            });
        }
        if let Some(damage) = &self.damage {
            return Err(JournalError::ReadOnly {
                path: self.path.clone(),
                damage: Box::new(damage.clone()),
            });
        }
        let seq = self.tally.len();
        let prev = self.tally.last().map_or(ZERO_HASH, |l| l.hash);
        let offset = self.tally.last().map_or(0, Entry::end);
        let mut line = log::encode_line(seq, &prev, &e);
        if line.len() >= MAX_LINE_BYTES {
            // Never write a line the log could not be read back with (the game would never open
            // again): refused before anything is written, the journal unchanged.
            return Err(JournalError::TooLong {
                path: self.path.clone(),
                seq,
                len: line.len(),
            });
        }
        let entry = log::parse_line(&line, offset).map_err(JournalError::Invalid)?;
        line.push(b'\n');
        if let Err(err) = self.ops.write_all(&mut self.file, &line) {
            // A failed append leaves the file exactly as it was (a full disk may have taken part
            // of the line): truncate back to the last good length, then freeze.
            let undone = match self
                .file
                .set_len(offset)
                .and_then(|()| self.file.sync_all())
            {
                Ok(()) => "the file is as it was before".to_string(),
                Err(e) => format!("cutting the partial line failed too: {e}"),
            };
            self.poisoned = Some(format!("write of seq {seq} failed: {err}; {undone}"));
            return Err(io_err("append to", &self.path)(err));
        }
        if let Err(err) = self.ops.sync_data(&self.file) {
            // The whole line was written but is not acknowledged: take it back out (best effort),
            // so that a reopened log does not hold an entry the session reported as failed.
            let undone = self
                .file
                .set_len(offset)
                .and_then(|()| self.file.sync_all());
            let undone = match undone {
                Ok(()) => "the unsynced line was removed".to_string(),
                Err(e) => format!("removing the unsynced line failed too: {e}"),
            };
            self.poisoned = Some(format!("fdatasync after seq {seq} failed: {err}; {undone}"));
            return Err(io_err("fdatasync", &self.path)(err));
        }
        self.tally.push(entry);
        self.tally
            .last()
            .ok_or(JournalError::Invalid(LineError::Empty))
    }

    /// [`Journal::append`] for several entries at once: every line written in one write, one
    /// fdatasync, and only then are they all appended (the table's one decision: the answer
    /// recorded and the next request, durable together before the request goes out). Nothing
    /// is appended when any entry is refused before writing; a failed write or sync poisons the
    /// journal and takes the lines back out, as for one entry.
    pub fn append_all(&mut self, es: Vec<NewEntry>) -> Result<u64, JournalError> {
        if let Some(reason) = &self.poisoned {
            return Err(JournalError::Poisoned {
                path: self.path.clone(),
                reason: reason.clone(),
            });
        }
        if let Some(damage) = &self.damage {
            return Err(JournalError::ReadOnly {
                path: self.path.clone(),
                damage: Box::new(damage.clone()),
            });
        }
        let first_seq = self.tally.len();
        let mut prev = self.tally.last().map_or(ZERO_HASH, |l| l.hash);
        let start = self.tally.last().map_or(0, Entry::end);
        let mut offset = start;
        let mut bytes = Vec::new();
        let mut parsed = Vec::with_capacity(es.len());
        for (i, e) in es.iter().enumerate() {
            let seq = first_seq + i as u64;
            let line = log::encode_line(seq, &prev, e);
            if line.len() >= MAX_LINE_BYTES {
                return Err(JournalError::TooLong {
                    path: self.path.clone(),
                    seq,
                    len: line.len(),
                });
            }
            let entry = log::parse_line(&line, offset).map_err(JournalError::Invalid)?;
            prev = entry.hash;
            offset = entry.end();
            bytes.extend_from_slice(&line);
            bytes.push(b'\n');
            parsed.push(entry);
        }
        if parsed.is_empty() {
            return Ok(first_seq);
        }
        let last_seq = first_seq + parsed.len() as u64 - 1;
        if let Err(err) = self.ops.write_all(&mut self.file, &bytes) {
            let undone = match self.file.set_len(start).and_then(|()| self.file.sync_all()) {
                Ok(()) => "the file is as it was before".to_string(),
                Err(e) => format!("cutting the partial lines failed too: {e}"),
            };
            self.poisoned = Some(format!(
                "write of seq {first_seq}..={last_seq} failed: {err}; {undone}"
            ));
            return Err(io_err("append to", &self.path)(err));
        }
        if let Err(err) = self.ops.sync_data(&self.file) {
            let undone = match self.file.set_len(start).and_then(|()| self.file.sync_all()) {
                Ok(()) => "the unsynced lines were removed".to_string(),
                Err(e) => format!("removing the unsynced lines failed too: {e}"),
            };
            self.poisoned = Some(format!(
                "fdatasync after seq {first_seq}..={last_seq} failed: {err}; {undone}"
            ));
            return Err(io_err("fdatasync", &self.path)(err));
        }
        for e in parsed {
            self.tally.push(e);
        }
        Ok(first_seq)
    }
}

/// Length and SHA-256 of a file, read in blocks.
fn hash_file(path: &Path) -> io::Result<(u64, [u8; 32])> {
    use sha2::Digest;
    let mut f = crate::record::fsio::open_match_file(path)?;
    let mut h = sha2::Sha256::new();
    let n = io::copy(&mut f, &mut h)?;
    Ok((n, h.finalize().into()))
}

/// Read a game log line by line without holding it in memory (no lock, no repair): `f` gets
/// each entry in order, checked (a valid line, its `seq` in place, its `prev` the previous
/// line's hash), and returns `false` to stop early. Returns the number of entries read. Memory
/// stays one line, whatever the log's size.
pub fn for_each_entry(path: &Path, mut f: impl FnMut(Entry) -> bool) -> Result<u64, JournalError> {
    let mut failed = None;
    let n = for_each_line(path, |l| match entry_of_checked(l) {
        Ok(e) => f(e),
        Err(problem) => {
            failed = Some(JournalError::BadLine {
                path: path.to_owned(),
                seq: l.seq,
                offset: l.offset,
                problem: problem.to_string(),
            });
            false
        }
    })?;
    failed.map_or(Ok(n), Err)
}

/// The entry of a line [`for_each_line`] checked and hashed (its hash is not computed again).
fn entry_of_checked(l: &CheckedLine<'_>) -> Result<Entry, LineError> {
    let plain = l
        .canonical
        .then(|| serde_json::from_slice::<log::scan::Plain>(l.bytes).ok())
        .flatten()
        .filter(|p| p.seq == l.seq);
    match plain {
        Some(p) => Ok(p.into_entry(l.hash, l.offset, l.bytes.len() as u64)),
        None => log::parse_line(l.bytes, l.offset),
    }
}

/// One line of a game log as [`for_each_line`] hands it: checked (a valid line, its `seq` in
/// place, its `prev` the previous line's hash), not parsed.
#[derive(Debug, Clone, Copy)]
pub struct CheckedLine<'a> {
    pub seq: u64,
    /// Byte offset of the line in the file.
    pub offset: u64,
    /// `E_seq`: SHA-256(0x00 || line bytes).
    pub hash: [u8; 32],
    /// The line's bytes, without the newline.
    pub bytes: &'a [u8],
    /// Proven in the kit's canonical form by [`fast::check_line`] (else the strict parser read it).
    pub canonical: bool,
}

/// [`for_each_entry`] without parsing the entries: each line is checked as there (canonical by
/// [`fast::check_line`], else by the strict parser, which names the problem), hashed once, and
/// handed over as bytes for the caller to decode what it needs
/// ([`crate::log::codec::decode_canonical`]). Memory stays one line.
pub fn for_each_line(
    path: &Path,
    mut f: impl FnMut(&CheckedLine<'_>) -> bool,
) -> Result<u64, JournalError> {
    let file = crate::record::fsio::open_match_file(path).map_err(io_err("open", path))?;
    let mut lines = LineReader::new(file);
    lines.stop_long = true;
    let (mut n, mut offset, mut prev) = (0u64, 0u64, ZERO_HASH);
    let bad = |seq: u64, offset: u64, problem: String| JournalError::BadLine {
        path: path.to_owned(),
        seq,
        offset,
        problem,
    };
    while let Some(raw) = lines.next().map_err(io_err("read", path))? {
        if raw.too_long {
            return Err(bad(
                n,
                offset,
                format!(
                    "a line of more than {} bytes, longer than the {MAX_LINE_BYTES} a log line may hold",
                    raw.len.min(MAX_LINE_BYTES as u64)
                ),
            ));
        }
        if !raw.terminated {
            return Err(bad(
                n,
                offset,
                "the last line has no newline (a torn tail)".into(),
            ));
        }
        lines.buf.push(b'\n');
        let proven = fast::check_line(&lines.buf).filter(|(_, len)| *len + 1 == lines.buf.len());
        lines.buf.pop();
        let (seq, line_prev) = match proven {
            Some((facts, _)) => (facts.seq, facts.prev),
            None => {
                let e = log::parse_line(&lines.buf, offset)
                    .map_err(|e| bad(n, offset, e.to_string()))?;
                (e.seq, e.prev_bytes())
            }
        };
        if seq != n {
            return Err(bad(n, offset, format!("seq {seq} out of place")));
        }
        if line_prev != prev {
            return Err(bad(
                n,
                offset,
                "its prev field does not hold the previous line's hash".into(),
            ));
        }
        prev = log::entry_hash(&lines.buf);
        let line = CheckedLine {
            seq,
            offset,
            hash: prev,
            bytes: &lines.buf,
            canonical: proven.is_some(),
        };
        offset += raw.len + 1;
        n += 1;
        if !f(&line) {
            break;
        }
    }
    if n == 0 {
        return Err(JournalError::NoFirstEntry {
            path: path.to_owned(),
            detail: EMPTY_LOG_HINT.into(),
        });
    }
    Ok(n)
}

/// Line 0 of a game log, read alone.
pub fn first_entry(path: &Path) -> Result<Entry, JournalError> {
    let mut first = None;
    for_each_entry(path, |e| {
        first = Some(e);
        false
    })?;
    first.ok_or_else(|| JournalError::NoFirstEntry {
        path: path.to_owned(),
        detail: EMPTY_LOG_HINT.into(),
    })
}

/// Read a game log without locking or repairing it; any bad line is an error. The file is read
/// line by line as [`Journal::open`] reads it (the first local fault, a line past
/// [`MAX_LINE_BYTES`] named so): only the entries returned are held, never the file's bytes or
/// its scanned lines. For tests and tools: the kit's own readers use [`for_each_entry`].
pub fn read_entries(path: &Path) -> Result<Vec<Entry>, JournalError> {
    let mut file = crate::record::fsio::open_match_file(path).map_err(io_err("read", path))?;
    let mut entries = Vec::new();
    let scan = scan_local(&mut file, true, |e, _| entries.push(e.clone()))
        .map_err(io_err("read", path))?;
    if let Some(fault) = scan.fault {
        return Err(JournalError::Damaged {
            path: path.to_owned(),
            fault: Box::new(fault),
        });
    }
    if entries.is_empty() {
        return Err(JournalError::NoFirstEntry {
            path: path.to_owned(),
            detail: EMPTY_LOG_HINT.into(),
        });
    }
    Ok(entries)
}

/// The fast path of `verify` over a log file ([`fast::scan_clean_source`], each thread reading
/// the file in blocks). `None` if the file cannot be read, changes length meanwhile, or has
/// anything at all to report.
pub fn scan_clean_file(path: &Path) -> Option<CleanLog> {
    let file = crate::record::fsio::open_match_file(path).ok()?;
    let len = usize::try_from(file.metadata().ok()?.len()).ok()?;
    let clean = fast::scan_clean_source(|| crate::record::fsio::open_match_file(path).ok(), len)?;
    // The file must not have grown meanwhile either (its last line was checked to end in \n).
    (file.metadata().ok()?.len() == len as u64).then_some(clean)
}

/// What a clean log gives the verifier, read in one streamed pass ([`stream_clean_file`]).
#[derive(Debug, Clone)]
pub struct StreamedClean {
    /// Number of entries (N >= 1).
    pub entries: u64,
    /// Line 0, parsed by [`log::parse_line`].
    pub first: Entry,
    /// `E_0` and `E_{N-1}`.
    pub first_hash: [u8; 32],
    pub last_hash: [u8; 32],
    /// Every entry of kind [`RECOVERY_KIND`], in order.
    pub recoveries: Vec<Entry>,
    /// For each size asked for that the log reaches: (size, Merkle tree hash of the first `size`
    /// entries, `E_{size-1}`).
    pub heads: Vec<(u64, [u8; 32], [u8; 32])>,
    /// The Merkle tree's frontier over every entry (what a journal appends to).
    pub tree: RootBuilder,
}

/// One entry as the streamed pass hands it to its caller, in log order (see
/// [`stream_clean_file_each`]). Only what the fast check read from the line's bytes, and the whole
/// entry when it was asked for.
#[derive(Debug, Clone, Copy)]
pub struct LineView<'a> {
    pub seq: u64,
    pub kind: &'a str,
    pub actor: &'static str,
    /// The parsed entry: always for line 0 and for [`RECOVERY_KIND`], else when the caller's
    /// `wants(kind)` said so.
    pub entry: Option<&'a Entry>,
    /// The line's bytes (without the newline) as they were checked and hashed, when the reader
    /// has them (the streamed pass always): a reader of the line decodes these, never a second
    /// read of the file ([`crate::log::codec::decode_line`]).
    pub line: Option<&'a [u8]>,
    /// The line's event, decoded from those bytes on the checking thread that checked them
    /// ([`crate::log::codec::decode_canonical`]), inside [`with_events_decoded`] only.
    pub event: Option<&'a Decoded>,
    /// The line's `utc` text as the checking thread found it, where it gathered them (with the
    /// events).
    pub utc: Option<&'a str>,
}

/// A line's event as the streamed pass decodes it ([`LineView::event`]).
pub type Decoded =
    Result<std::sync::Arc<crate::core::event::Event>, crate::log::codec::DecodeError>;

/// A block as a checking thread hands it back: checked, and its lines' events when asked.
type Checked = (BlockFacts, Vec<Decoded>);

thread_local! {
    /// Whether the streamed pass started on this thread decodes each line's event.
    static DECODE_IN_PASS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Run `f` with every streamed pass it makes on this thread ([`stream_clean_file_each`], as
/// `verify`'s check of a game reaches it) decoding each line's event on the checking threads,
/// beside the check and the hashing of the other blocks ([`LineView::event`]): a reader that
/// replays the game from the pass's lines ([`crate::board::matchdir::replay_verified`]) then only
/// replays, and the decoding runs on the cores.
pub fn with_events_decoded<R>(f: impl FnOnce() -> R) -> R {
    let _on = DecodeInPass::on();
    f()
}

thread_local! {
    /// Where the streamed pass started on this thread hands each joined block's decoded events
    /// ([`with_events_handed`]).
    static EVENTS_TO: std::cell::RefCell<Option<Handing>> = const { std::cell::RefCell::new(None) };
}

/// Where a streamed pass hands each joined block's events (called on the joining thread, the
/// thread that started the pass), and where they come back once seen ([`with_events_handed`]).
type Handing = (
    std::rc::Rc<dyn Fn(Vec<Decoded>)>,
    std::sync::Arc<std::sync::Mutex<std::sync::mpsc::Receiver<Vec<Decoded>>>>,
);

/// [`with_events_decoded`], each joined block's events then handed to `to` by value, once
/// `each` saw the block's lines (in log order, one `Vec` a block, an event for each of its
/// lines), instead of going back to the checking threads: a reader that keeps them (the
/// report's model, on a thread of its own) takes them without touching each on the joining
/// thread (no reference count of an event made on one core taken on another only to
/// be handed on). The `Vec`s sent back by `back` (their events seen) go to the checking threads
/// with their next blocks, to be dropped there, where they were made.
pub fn with_events_handed<R>(
    to: std::sync::mpsc::Sender<Vec<Decoded>>,
    back: std::sync::mpsc::Receiver<Vec<Decoded>>,
    f: impl FnOnce() -> R,
) -> R {
    // The reader is gone only after a panic, which its join hands on: the events are dropped.
    let to = move |events| {
        let _ = to.send(events);
    };
    with_events_handed_to(std::rc::Rc::new(to), back, f)
}

/// [`with_events_handed`], each joined block's events handed to `to`, called on this thread
/// (the joining thread) once `each` saw the block's lines: `to` may wait, which holds the pass
/// back (the events in hand stay bounded however slow the reader).
pub fn with_events_handed_to<R>(
    to: std::rc::Rc<dyn Fn(Vec<Decoded>)>,
    back: std::sync::mpsc::Receiver<Vec<Decoded>>,
    f: impl FnOnce() -> R,
) -> R {
    struct Handed(Option<Handing>);
    impl Drop for Handed {
        fn drop(&mut self) {
            let before = self.0.take();
            EVENTS_TO.with(|t| *t.borrow_mut() = before);
        }
    }
    let _on = DecodeInPass::on();
    let handing = (to, std::sync::Arc::new(std::sync::Mutex::new(back)));
    let _to = Handed(EVENTS_TO.with(|t| t.replace(Some(handing))));
    f()
}

/// [`DECODE_IN_PASS`] on for this thread while it lives (put back as it was on drop, a panic
/// included).
struct DecodeInPass(bool);

impl DecodeInPass {
    fn on() -> DecodeInPass {
        DecodeInPass(DECODE_IN_PASS.with(|d| d.replace(true)))
    }
}

impl Drop for DecodeInPass {
    fn drop(&mut self) {
        DECODE_IN_PASS.with(|d| d.set(self.0));
    }
}

/// [`check_block`] of a block whose events the pass decodes, each into `out` in line order: a
/// hot kind's body read into its event while its line is checked
/// ([`crate::log::codec::decode_fused`]: read once, not checked and then read again),
/// any other line decoded once the block is checked ([`crate::log::codec::decode_checked`]). `out` is emptied
/// first; on `None` it holds anything.
fn check_and_decode(
    block: Vec<u8>,
    base: u64,
    cuts: &[u64],
    wants: &(dyn Fn(&str) -> bool + Sync),
    lines: Vec<crate::log::fast::LineMeta>,
    out: &mut Vec<Decoded>,
    reuse: &mut Reuse,
) -> Option<crate::log::fast::BlockFacts> {
    out.clear();
    // The lines whose bodies were not read in the check (a placeholder in `out` until then).
    let mut later: Vec<usize> = Vec::new();
    let mut utc = String::with_capacity(lines.capacity() * fast::UTC_LEN);
    let mut b = fast::check_block_reading(block, base, cuts, wants, lines, |line, at| {
        // (Checked by then: digits and separators.)
        if let Some(text) = line
            .get(at.utc..at.utc + fast::UTC_LEN)
            .and_then(|t| std::str::from_utf8(t).ok())
        {
            utc.push_str(text);
        }
        let spare = reuse[reuse_slot_of(at.kind)].pop();
        match crate::log::codec::decode_fused(line, at, spare) {
            Some((event, end)) => {
                out.push(Ok(event));
                Some(end)
            }
            None => {
                later.push(out.len());
                out.push(Err(crate::log::codec::DecodeError::Missing("body")));
                None
            }
        }
    })?;
    if out.len() != b.lines.len() {
        return None;
    }
    if utc.len() == b.lines.len() * fast::UTC_LEN {
        b.utc = utc;
    }
    for i in later {
        let (m, slot) = (b.lines.get(i)?, out.get_mut(i)?);
        let (at, len) = (m.line.0 as usize, m.line.1 as usize);
        let line = b.block.get(at..at + len).unwrap_or_default();
        *slot = match b.kinds.get(m.kind as usize) {
            Some(kind) => {
                let spare = reuse[reuse_slot(kind)].pop();
                crate::log::codec::decode_checked(line, m, kind, spare)
            }
            None => crate::log::codec::decode_shared(line),
        };
    }
    Some(b)
}

/// [`reuse_slot`] of a kind's bytes.
fn reuse_slot_of(kind: &[u8]) -> usize {
    match kind {
        b"move_made" => 0,
        b"internal_clock_reported" => 1,
        b"note" => 2,
        _ => 3,
    }
}

/// Events of blocks joined before that nothing holds any more, by kind ([`reuse_slot`]): a move
/// is written over a move (its FEN's memory then fits), a note over a note.
type Reuse = [Vec<std::sync::Arc<crate::core::event::Event>>; 4];

/// The [`Reuse`] list for events of `kind`.
fn reuse_slot(kind: &str) -> usize {
    reuse_slot_of(kind.as_bytes())
}

/// The events of `done` (a block joined before) that nothing else holds any more, moved to
/// `reuse` by kind (at most a block's worth); the others dropped. `done` is left empty.
fn keep_unshared(done: &mut Vec<Decoded>, reuse: &mut Reuse) {
    for d in done.drain(..) {
        if let Ok(mut e) = d
            && let Some(event) = std::sync::Arc::get_mut(&mut e)
        {
            let list = &mut reuse[reuse_slot(event.kind_str())];
            if list.len() < STREAM_BLOCK / 64 {
                list.push(e);
            }
        }
    }
}

/// What the joining thread hands back to a checking thread with its next block: a joined
/// block's decoded events (dropped by the thread that made them) and its lines' buffer, both
/// reused (no buffer of a block's size made on one thread and freed on another).
type DoneWith = (Vec<Decoded>, Vec<crate::log::fast::LineMeta>);

/// Bytes handed from the reader to a checking thread at a time (whole lines).
const STREAM_BLOCK: usize = 256 * 1024;
/// Blocks read but not yet merged, per checking thread.
const STREAM_QUEUE: usize = 4;
/// Joined blocks whose events a checking thread gets back only after this many more were joined
/// (when the pass decodes events): a reader that replays on this thread (`status`) still holds
/// the latest 512 in its void window when a block is joined, fewer than a block's lines. A
/// reader on a thread of its own hands each block back itself once done with it
/// ([`with_events_handed_to`]); five blocks more (for events handed one by one) only
/// kept them away from the checking threads until they were cold (pgn at 1M entries 0.605 ->
/// 0.575 s with one, medians of 12 quiet rounds).
const GARBAGE_HOLD: usize = 1;
/// Below this size the log is checked by one thread.
const STREAM_PARALLEL_MIN: u64 = 1 << 20;

/// The fast path of `verify` over a log file in one streamed pass, without holding the log or its
/// leaf hashes: [`stream_clean_file_each`] with nothing asked of the entries.
pub fn stream_clean_file(path: &Path, sizes: &[u64]) -> Option<StreamedClean> {
    stream_clean_file_each(path, sizes, &|_| false, |_| {})
}

/// The one streamed pass over a log file that `verify` makes: the file is read in blocks of whole
/// lines; each block is checked on one of the cores (every line canonical, [`fast::check_line`],
/// in place and linked to the one before it), its lines hashed and folded into the block's aligned
/// Merkle subtrees ([`log::merkle::AlignedRun`], never across one of `sizes`); this thread joins
/// the blocks in order (the link across each cut), combines the subtrees into the Merkle frontier,
/// notes the tree head at each of `sizes`, and hands `each` every entry in order ([`LineView`]:
/// its seq, kind and actor, and the parsed entry where `wants(kind)` asked for it). Memory is a
/// few blocks and O(log n) hashes.
///
/// `None` if the file cannot be read, changes length meanwhile, or has anything at all to report
/// (the caller then takes the exact path); `each` may have seen some entries by then, and what
/// it gathered must then be thrown away.
pub fn stream_clean_file_each(
    path: &Path,
    sizes: &[u64],
    wants: &(dyn Fn(&str) -> bool + Sync),
    each: impl FnMut(&LineView<'_>),
) -> Option<StreamedClean> {
    let file = crate::record::fsio::open_match_file(path).ok()?;
    stream_clean_each(file, path, sizes, wants, each)
}

/// [`stream_clean_file_each`] over `file`, the log at `path` opened (read from its start).
fn stream_clean_each(
    mut file: File,
    path: &Path,
    sizes: &[u64],
    wants: &(dyn Fn(&str) -> bool + Sync),
    mut each: impl FnMut(&LineView<'_>),
) -> Option<StreamedClean> {
    use std::sync::mpsc::{channel, sync_channel};
    use std::sync::{Arc, Mutex};
    let len = file.metadata().ok()?.len();
    if len == 0 {
        return None;
    }
    let decode = DECODE_IN_PASS.with(std::cell::Cell::get);
    let hand = EVENTS_TO.with(|t| t.borrow().clone()).filter(|_| decode);
    let workers = if len < STREAM_PARALLEL_MIN {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
    };
    let mut join = Join::new(sizes);
    join.hand = hand;
    let cuts = join.sizes.clone();
    let cuts = &cuts;
    let read = std::thread::scope(|s| {
        // A job: a block to check, and the events of a block joined before, dropped by the
        // thread that made them (their memory is freed where it was taken, not on this thread).
        let (jobs_tx, jobs_rx) = sync_channel::<(u64, u64, Vec<u8>, DoneWith)>(workers);
        let jobs_rx = Arc::new(Mutex::new(jobs_rx));
        let (done_tx, done_rx) = channel::<(u64, Option<Checked>)>();
        for _ in 0..workers {
            let (jobs, done) = (Arc::clone(&jobs_rx), done_tx.clone());
            s.spawn(move || {
                // Events of blocks joined before that nothing holds any more: their memory is
                // written over by the next block's events (no allocation per event).
                let mut reuse = Reuse::default();
                loop {
                    let job = match jobs.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((k, base, block, (mut events, lines))) = job else {
                        return;
                    };
                    keep_unshared(&mut events, &mut reuse);
                    let checked = if decode {
                        check_and_decode(block, base, cuts, wants, lines, &mut events, &mut reuse)
                            .map(|b| (b, events))
                    } else {
                        check_block(block, base, cuts, wants, lines).map(|b| (b, events))
                    };
                    if done.send((k, checked)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        let mut pending = std::collections::BTreeMap::new();
        let mut sent = 0u64;
        let limit = (workers * STREAM_QUEUE) as u64;
        let spare: std::cell::RefCell<Vec<Vec<u8>>> = Default::default();
        let mut garbage: std::collections::VecDeque<DoneWith> = Default::default();
        // A joined block's events go back to a checking thread only once the reader
        // that replays them is most likely done with them, so that the thread that made them
        // writes over them or drops them (freed where they were taken).
        let hold = if decode { GARBAGE_HOLD } else { 0 };
        let read = read_blocks(
            &mut file,
            || spare.borrow_mut().pop(),
            |block, base| {
                while sent - join.blocks >= limit {
                    let Ok((k, facts)) = done_rx.recv() else {
                        return false;
                    };
                    pending.insert(k, facts);
                    if !join.drain(
                        &mut pending,
                        &mut each,
                        &mut spare.borrow_mut(),
                        &mut garbage,
                    ) {
                        return false;
                    }
                }
                let done_with = if garbage.len() > hold {
                    garbage.pop_front().unwrap_or_default()
                } else {
                    DoneWith::default()
                };
                let ok = jobs_tx.send((sent, base, block, done_with)).is_ok();
                sent += 1;
                ok
            },
        );
        drop(jobs_tx);
        for (k, facts) in done_rx {
            pending.insert(k, facts);
        }
        let all = join.drain(
            &mut pending,
            &mut each,
            &mut Vec::new(),
            &mut Default::default(),
        ) && join.blocks == sent;
        read.filter(|_| all)
    });
    let unchanged = crate::record::fsio::open_match_file(path)
        .ok()?
        .metadata()
        .ok()?
        .len()
        == len;
    (read == Some(len) && unchanged && join.failed.is_none())
        .then(|| join.finish())
        .flatten()
}

/// The blocks joined in order: the links across the cuts, the Merkle frontier, the tree heads.
struct Join {
    sizes: Vec<u64>,
    next_size: usize,
    tree: RootBuilder,
    last: [u8; 32],
    first: Option<(Entry, [u8; 32])>,
    recoveries: Vec<Entry>,
    heads: Vec<(u64, [u8; 32], [u8; 32])>,
    /// Blocks joined so far.
    blocks: u64,
    failed: Option<u64>,
    /// Where each joined block's decoded events go, and come back ([`with_events_handed`]).
    hand: Option<Handing>,
}

impl Join {
    fn new(sizes: &[u64]) -> Join {
        let mut sizes: Vec<u64> = sizes.iter().copied().filter(|&s| s > 0).collect();
        sizes.sort_unstable();
        sizes.dedup();
        Join {
            sizes,
            next_size: 0,
            tree: RootBuilder::new(),
            last: ZERO_HASH,
            first: None,
            recoveries: Vec::new(),
            heads: Vec::new(),
            blocks: 0,
            failed: None,
            hand: None,
        }
    }

    /// Join every block of `pending` that comes next, handing its entries to `each`, its bytes
    /// to `spare` and its decoded events to `garbage` (for a checking thread to drop); `false`
    /// once a block failed or does not link.
    fn drain(
        &mut self,
        pending: &mut std::collections::BTreeMap<u64, Option<Checked>>,
        each: &mut impl FnMut(&LineView<'_>),
        spare: &mut Vec<Vec<u8>>,
        garbage: &mut std::collections::VecDeque<DoneWith>,
    ) -> bool {
        while self.failed.is_none() {
            let Some(facts) = pending.remove(&self.blocks) else {
                break;
            };
            match facts {
                // A block's events are handed over only with an event for each of its lines (as
                // `decode_block` makes them): its reader counts them to know each one's entry.
                Some((b, events))
                    if b.first_seq == self.tree.len()
                        && b.first_prev == self.last
                        && (self.hand.is_none() || events.len() == b.lines.len()) =>
                {
                    let (ok, lines) = self.take(b, &events, each, spare);
                    let events = match &self.hand {
                        Some((to, back)) if ok => {
                            to(events);
                            // A block's events seen by the reader, to be dropped by a checking
                            // thread with its next block.
                            let seen = back.lock().ok().and_then(|b| b.try_recv().ok());
                            seen.unwrap_or_default()
                        }
                        _ => events,
                    };
                    if garbage.len() < STREAM_QUEUE + GARBAGE_HOLD {
                        garbage.push_back((events, lines));
                    }
                    if !ok {
                        self.failed = Some(self.blocks);
                    }
                }
                _ => self.failed = Some(self.blocks),
            }
            self.blocks += 1;
        }
        self.failed.is_none()
    }

    fn take(
        &mut self,
        b: BlockFacts,
        events: &[Decoded],
        each: &mut impl FnMut(&LineView<'_>),
        spare: &mut Vec<Vec<u8>>,
    ) -> (bool, Vec<crate::log::fast::LineMeta>) {
        let mut b = b;
        let ok = self.take_lines(&mut b, events, each);
        if spare.len() < STREAM_QUEUE {
            spare.push(b.block);
        }
        (ok, b.lines)
    }

    fn take_lines(
        &mut self,
        b: &mut BlockFacts,
        events: &[Decoded],
        each: &mut impl FnMut(&LineView<'_>),
    ) -> bool {
        let mut wanted = b.entries.iter().peekable();
        for (k, meta) in b.lines.iter().enumerate() {
            let entry = wanted.next_if(|(at, _)| *at as usize == k).map(|(_, e)| e);
            let Some(kind) = b.kinds.get(meta.kind as usize) else {
                return false;
            };
            let (la, ll) = (meta.line.0 as usize, meta.line.1 as usize);
            each(&LineView {
                seq: b.first_seq + k as u64,
                kind,
                actor: log::ACTORS
                    .get(usize::from(meta.actor))
                    .copied()
                    .unwrap_or(""),
                entry,
                line: b.block.get(la..la + ll),
                event: events.get(k),
                utc: b
                    .utc
                    .get(k * fast::UTC_LEN..(k + 1) * fast::UTC_LEN)
                    .filter(|_| b.utc.len() == b.lines.len() * fast::UTC_LEN),
            });
        }
        for (_, e) in std::mem::take(&mut b.entries) {
            if e.seq == 0 {
                self.first = Some((e, b.first_leaf));
            } else if e.kind == RECOVERY_KIND {
                self.recoveries.push(e);
            }
        }
        for (h, x) in b.run.subtrees() {
            if !self.tree.push_subtree(h, x) {
                return false;
            }
            let len = self.tree.len();
            if self.sizes.get(self.next_size) == Some(&len) {
                let Some(&(_, chain)) = b.chains.iter().find(|(s, _)| *s == len) else {
                    return false;
                };
                self.heads.push((len, self.tree.root(), chain));
                self.next_size += 1;
            }
        }
        self.last = b.last_leaf;
        b.count != 0 && self.tree.len() == b.first_seq + b.count
    }

    fn finish(self) -> Option<StreamedClean> {
        let (first, first_hash) = self.first?;
        Some(StreamedClean {
            entries: self.tree.len(),
            first,
            first_hash,
            last_hash: self.last,
            recoveries: self.recoveries,
            heads: self.heads,
            tree: self.tree,
        })
    }
}

/// Read `file` in blocks that end after a newline, handing each and its offset in the file to
/// `send` (`false`: stop); a block's buffer is taken from `reuse` when it has one. Returns the
/// number of bytes handed over, `None` on a read error, an over-long line or a last line without
/// its newline.
fn read_blocks(
    file: &mut File,
    mut reuse: impl FnMut() -> Option<Vec<u8>>,
    mut send: impl FnMut(Vec<u8>, u64) -> bool,
) -> Option<u64> {
    let mut total = 0u64;
    let mut carry: Vec<u8> = Vec::new();
    loop {
        // A spare buffer takes the start of the next line, unless that is long already.
        let spare = if carry.len() <= STREAM_BLOCK / 4 {
            reuse()
        } else {
            None
        };
        let start = carry.len();
        let mut block = match spare {
            Some(mut b) => {
                // What the buffer holds already is overwritten by the read: only what it lacks
                // is zeroed (not the whole block each time).
                b.resize(start + STREAM_BLOCK, 0);
                b[..start].copy_from_slice(&carry);
                carry.clear();
                b
            }
            None => std::mem::take(&mut carry),
        };
        block.resize(start + STREAM_BLOCK, 0);
        let got = loop {
            match file.read(&mut block[start..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return None,
            }
        };
        block.truncate(start + got);
        if got == 0 {
            return block.is_empty().then_some(total);
        }
        // The carried start of a line holds no newline: only what was just read is searched
        // (a long line is not searched again at every block).
        match block[start..]
            .iter()
            .rposition(|&b| b == b'\n')
            .map(|p| p + start)
        {
            Some(p) => {
                carry.clear();
                carry.extend_from_slice(&block[p + 1..]);
                block.truncate(p + 1);
                let base = total;
                total += block.len() as u64;
                if !send(block, base) {
                    return None;
                }
            }
            None if block.len() > MAX_LINE_BYTES => return None,
            None => carry = block,
        }
    }
}

/// A line's entry with its header only, as the journal's scan needs it ([`parse_terminated`]
/// when its body is needed: line 0, [`tally_reads_body`]'s kinds, a line not proven canonical);
/// the body of any other proven line is skipped, not parsed (`null` in the entry).
fn parse_terminated_head(buf: &mut Vec<u8>, offset: u64) -> Result<Entry, LineError> {
    /// A canonical line's fields, its body skipped.
    #[derive(serde::Deserialize)]
    struct Head {
        seq: u64,
        prev: String,
        utc: String,
        mono_ms: u64,
        actor: String,
        clause: String,
        kind: String,
        #[allow(dead_code)]
        body: serde::de::IgnoredAny,
    }
    buf.push(b'\n');
    let proven = fast::check_line(buf).filter(|(_, len)| *len + 1 == buf.len());
    buf.pop();
    let head = proven
        .filter(|(facts, _)| facts.seq != 0)
        .and_then(|(facts, _)| {
            serde_json::from_slice::<Head>(buf)
                .ok()
                .filter(|h| h.seq == facts.seq && !tally_reads_body(&h.kind))
        });
    match head {
        Some(h) => Ok(Entry {
            v: log::FORMAT_VERSION,
            seq: h.seq,
            prev: h.prev,
            utc: h.utc,
            mono_ms: h.mono_ms,
            actor: h.actor,
            clause: h.clause,
            kind: h.kind,
            body: serde_json::Value::Null,
            hash: log::entry_hash(buf),
            offset,
            len: buf.len() as u64,
        }),
        None => parse_terminated(buf, offset),
    }
}

/// [`log::parse_line`] for a line that was followed by a newline, taking the fast path when
/// [`fast::check_line`] proves the line canonical (canonical form already rules out duplicate
/// keys and every other difference, so a plain serde parse reads it), the strict parser otherwise
/// (which names the problem). `buf` holds the line without its newline; it is given back as it
/// was.
fn parse_terminated(buf: &mut Vec<u8>, offset: u64) -> Result<Entry, LineError> {
    buf.push(b'\n');
    let proven = fast::check_line(buf).filter(|(_, len)| *len + 1 == buf.len());
    buf.pop();
    let plain = proven.and_then(|(facts, _)| {
        serde_json::from_slice::<log::scan::Plain>(buf)
            .ok()
            .filter(|p| p.seq == facts.seq)
    });
    match plain {
        Some(p) => Ok(p.into_entry(log::entry_hash(buf), offset, buf.len() as u64)),
        None => log::parse_line(buf, offset),
    }
}
