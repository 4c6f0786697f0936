//! Reading the files a match is made of without trusting them (SHELL): a FIFO, a
//! device or a folder in a file's place is refused at once with a clear message (opened
//! non-blocking, then checked to be a regular file), match files are opened without following a
//! symlink, and inputs with a natural size are read with a bound.
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Bound on the small inputs: keys, allowed_signers, checkpoints and their signatures, proofs,
/// rules profiles, scripts and declarations (16 MiB; the largest real one is a few KB).
pub const SMALL_FILE_LIMIT: u64 = 16 * 1024 * 1024;

/// What a path holds instead of a regular file, in words.
fn kind_of(ft: std::fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a folder"
    } else if ft.is_fifo() {
        "a FIFO (named pipe)"
    } else if ft.is_char_device() || ft.is_block_device() {
        "a device"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

fn not_regular(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} is {what}, not a regular file", path.display()),
    )
}

fn check_regular(path: &Path, f: &File) -> io::Result<()> {
    let ft = f.metadata()?.file_type();
    if ft.is_file() {
        Ok(())
    } else {
        Err(not_regular(path, kind_of(ft)))
    }
}

/// Open `path` for reading: non-blocking (a FIFO cannot hang the kit), and refused unless it is
/// a regular file. Symlinks are followed (an input the user names may be one).
pub fn open_regular(path: &Path) -> io::Result<File> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    check_regular(path, &f)?;
    Ok(f)
}

/// As [`open_regular`], and a symlink in the file's place is refused too: for the files of a
/// match folder (a log symlinked to another game's log must not be read or appended as this one).
pub fn open_match_file(path: &Path) -> io::Result<File> {
    match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
    {
        Ok(f) => {
            check_regular(path, &f)?;
            Ok(f)
        }
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            Err(not_regular(path, "a symbolic link"))
        }
        Err(e) => Err(e),
    }
}

/// The whole of a regular file of at most `limit` bytes.
pub fn read(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    read_bounded(open_regular(path)?, limit, path)
}

/// A small input the user names that may be a pipe: a regular file as [`read`], or a FIFO or
/// pipe (`verify --proof <(arbiter prove …)`) read to its end, with the same bound. Opened
/// non-blocking (a named FIFO with no writer reads as empty at once, never a hang), then read
/// blocking while a writer is there. A folder or device is refused.
pub fn read_input(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let ft = f.metadata()?.file_type();
    if ft.is_fifo() {
        rustix::fs::fcntl_setfl(&f, rustix::fs::OFlags::empty()).map_err(io::Error::from)?;
    } else if !ft.is_file() {
        return Err(not_regular(path, kind_of(ft)));
    }
    read_bounded(f, limit, path)
}

/// Everything `f` holds, refused by name when it is larger than `limit` bytes (one byte past
/// the limit is read to tell "exactly at the limit" from "larger").
fn read_bounded(f: File, limit: u64, path: &Path) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    f.take(limit.saturating_add(1)).read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is larger than {limit} bytes", path.display()),
        ));
    }
    Ok(out)
}

/// A small input as UTF-8 text (bounded by [`SMALL_FILE_LIMIT`]); non-UTF-8 is named with the
/// line it is on.
pub fn read_to_string(path: &Path) -> io::Result<String> {
    let bytes = read(path, SMALL_FILE_LIMIT)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}:{line}: not UTF-8 text", path.display()),
        )
    })
}

/// What an output path is written for: which files of a match folder it may land on, and what an
/// existing file there must look like to be replaced without `--force`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// `arbiter pgn --out`: a PGN.
    Pgn,
    /// `arbiter report --out`: the HTML report (its default is `game-<n>/report.html`).
    ReportHtml,
    /// `arbiter report --markdown --out`: the Markdown report (default `game-<n>/report.md`).
    ReportMarkdown,
    /// `arbiter keygen --out`: a new private key (never over an existing file; `keys/` is its place).
    Key,
    /// `arbiter record --out`: a game record (CSA, KIF or PGN).
    Record,
}

impl Purpose {
    fn noun(self) -> &'static str {
        match self {
            Purpose::Pgn => "a PGN",
            Purpose::ReportHtml => "an HTML report",
            Purpose::ReportMarkdown => "a Markdown report",
            Purpose::Key => "a key",
            Purpose::Record => "a game record",
        }
    }

    /// Whether `head` (the start of an existing file) is what the kit writes for this purpose.
    fn written_by_kit(self, head: &[u8]) -> bool {
        match self {
            Purpose::Pgn => head.starts_with(b"[Event \""),
            Purpose::ReportHtml => {
                head.starts_with(b"<!DOCTYPE html>")
                    && head.windows(20).any(|w| w == b"name=\"report-version")
            }
            Purpose::ReportMarkdown => head.starts_with(b"# Arbiter report: "),
            Purpose::Key => false,
            Purpose::Record => {
                head.starts_with(b"'CSA encoding=")
                    || head.starts_with("# KIF形式棋譜ファイル (arbiter)".as_bytes())
                    || head.starts_with(b"[Event \"")
            }
        }
    }

    /// The file name this purpose writes inside a game folder (`game-<n>/NAME`), if any.
    fn own_name_in_game(self) -> Option<&'static str> {
        match self {
            Purpose::ReportHtml => Some("report.html"),
            Purpose::ReportMarkdown => Some("report.md"),
            Purpose::Pgn | Purpose::Key | Purpose::Record => None,
        }
    }
}

/// Why an output path was refused before anything was written.
#[derive(Debug, thiserror::Error)]
pub enum OutputRefused {
    #[error(
        "{} would land on the match's own files ({part} of match folder {}): refused, nothing was written; choose a path outside game-*, keys, checkpoints, engine, the index and index/",
        .path.display(), .match_dir.display()
    )]
    MatchFile {
        path: PathBuf,
        match_dir: PathBuf,
        part: String,
    },
    #[error(
        "{} exists and is not {noun} the kit wrote: refused, nothing was written (give --force to replace it)",
        .path.display()
    )]
    NotOurs { path: PathBuf, noun: &'static str },
    #[error("{} exists: a key is never replaced; nothing was written", .path.display())]
    KeyExists { path: PathBuf },
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("{} names no file", .path.display())]
    NoName { path: PathBuf },
}

/// Resolve `path` as a write would reach it: its folder canonicalised (`..` and symlinks gone),
/// and a symlink in the file's own place followed (up to 40 links).
fn resolve_output(path: &Path) -> Result<PathBuf, OutputRefused> {
    let io = |source| OutputRefused::Io {
        path: path.to_owned(),
        source,
    };
    let mut current = path.to_owned();
    for _ in 0..40 {
        let name = match current.file_name() {
            Some(n)
                if !matches!(
                    current.components().next_back(),
                    Some(std::path::Component::ParentDir)
                ) =>
            {
                n.to_owned()
            }
            _ => {
                return Err(OutputRefused::NoName {
                    path: path.to_owned(),
                });
            }
        };
        let parent = match current.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
            _ => PathBuf::from("."),
        };
        let resolved = match std::fs::canonicalize(&parent) {
            Ok(p) => p.join(name),
            // A folder that does not exist holds no match file (and the write itself fails).
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(io(e)),
        };
        match std::fs::symlink_metadata(&resolved) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&resolved).map_err(io)?;
                current = match resolved.parent() {
                    Some(p) => p.join(target),
                    None => target,
                };
            }
            _ => return Ok(resolved),
        }
    }
    Err(io(io::Error::other("too many levels of symbolic links")))
}

fn is_game_folder_name(name: &str) -> bool {
    name.strip_prefix("game-")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `dir` is a match folder: it holds a game folder with a log, the allowed signers, the
/// keys or the signed index.
fn is_match_folder(dir: &Path) -> bool {
    ["allowed_signers", "keys", "index.txt", "index.txt.sig"]
        .iter()
        .any(|n| std::fs::symlink_metadata(dir.join(n)).is_ok())
        || std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                e.file_name().to_str().is_some_and(is_game_folder_name)
                    && std::fs::symlink_metadata(e.path().join("log.jsonl")).is_ok()
            })
}

/// Check an output path before anything is written to it: refused when it lands (after `..`
/// and symlinks are resolved) on a match folder's own files — anything under `game-<n>/`
/// (log, checkpoints, engine archive, heartbeat), `keys/`, `allowed_signers`, the index or its
/// kept countersigned copies (`index/`) —
/// except the file the purpose itself writes there (`game-<n>/report.html` for the report,
/// `keys/` for a new key); and when an existing file is not what the kit writes for this purpose,
/// unless `force`. Returns the resolved path.
pub fn check_output(path: &Path, purpose: Purpose, force: bool) -> Result<PathBuf, OutputRefused> {
    let resolved = resolve_output(path)?;
    for dir in resolved.ancestors().skip(1) {
        let Ok(rel) = resolved.strip_prefix(dir) else {
            continue;
        };
        let parts: Vec<&str> = rel
            .components()
            .filter_map(|c| c.as_os_str().to_str())
            .collect();
        let Some(first) = parts.first().copied() else {
            continue;
        };
        let game = is_game_folder_name(first);
        // `index/` keeps the camps' countersigned copies of the index.
        let own = matches!(
            first,
            "keys" | "allowed_signers" | "index.txt" | "index.txt.sig" | "index"
        ) || first.starts_with("index.txt.");
        if !(game || own) || !is_match_folder(dir) {
            continue;
        }
        let allowed = match purpose {
            Purpose::Key => first == "keys" && parts.len() == 2,
            p => game && parts.len() == 2 && p.own_name_in_game() == Some(parts[1]),
        };
        if allowed {
            break;
        }
        let part = if game {
            match parts.get(1).copied() {
                Some("checkpoints") => "checkpoints",
                Some("engine") => "the engine archive",
                Some("log.jsonl") => "a game log",
                _ => "a game folder",
            }
        } else if first == "keys" {
            "the keys"
        } else if first == "allowed_signers" {
            "the allowed signers"
        } else if first == "index" {
            "the camps' countersigned copies of the index"
        } else {
            "the match index"
        };
        return Err(OutputRefused::MatchFile {
            path: path.to_owned(),
            match_dir: dir.to_owned(),
            part: part.to_owned(),
        });
    }
    // A symlink, FIFO, device or folder in the file's own place is refused by the write itself
    // ([`crate::record::journal::write_atomic`]: the kit writes only over a regular file or a new name).
    match std::fs::symlink_metadata(path) {
        Ok(_) if purpose == Purpose::Key => Err(OutputRefused::KeyExists {
            path: path.to_owned(),
        }),
        Ok(m) if m.file_type().is_file() && !force => {
            let mut head = Vec::new();
            let f = open_regular(&resolved).map_err(|source| OutputRefused::Io {
                path: path.to_owned(),
                source,
            })?;
            f.take(512)
                .read_to_end(&mut head)
                .map_err(|source| OutputRefused::Io {
                    path: path.to_owned(),
                    source,
                })?;
            if purpose.written_by_kit(&head) {
                Ok(resolved)
            } else {
                Err(OutputRefused::NotOurs {
                    path: path.to_owned(),
                    noun: purpose.noun(),
                })
            }
        }
        _ => Ok(resolved),
    }
}

/// A small file of a match folder (a seal, a checkpoint, the index and their signatures), read
/// without following a symlink and bounded by [`SMALL_FILE_LIMIT`].
pub fn read_match_small(path: &Path) -> io::Result<Vec<u8>> {
    let f = open_match_file(path)?;
    let mut out = Vec::new();
    f.take(SMALL_FILE_LIMIT + 1).read_to_end(&mut out)?;
    if out.len() as u64 > SMALL_FILE_LIMIT {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is larger than {SMALL_FILE_LIMIT} bytes", path.display()),
        ));
    }
    Ok(out)
}
