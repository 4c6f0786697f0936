//! Engine-log and program archive (rules 13a, 13c, 13d).
//!
//! SHELL: reads the copies the operator hands over, checks they are byte-identical (13a: at
//! least two copies of one log), stores one of them and the program (13d) under
//! `GAME/engine/` (files 0600, folder 0700, each fsynced, the folder too), and writes
//! `GAME/engine/SHA256SUMS` in the format `sha256sum -c` reads in that folder. Every file is read
//! in fixed 1 MiB chunks: memory does not grow with the size of the log, so multi-GB logs work.
//!
//! An archived file is never replaced: storing a different file under a name already taken is
//! refused; storing the same content again is accepted and reported as already archived.

use serde::Serialize;
use sha2::{Digest, Sha256};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Size of the read buffer for hashing, comparing and copying.
pub const CHUNK: usize = 1 << 20;
/// Files larger than this get a progress bar on stderr (when asked for and stderr is a terminal).
pub const PROGRESS_THRESHOLD: u64 = 64 << 20;
/// Rule 13a: "at least two electronic copies of the machine's log file". The caller passes the
/// figure from the rules profile; this is the 2003 value.
pub const MIN_COPIES_13A: usize = 2;
/// Folder under the game folder that holds the archive.
pub const ENGINE_DIR: &str = "engine";
/// Checksum file in [`ENGINE_DIR`].
pub const SUMS_FILE: &str = "SHA256SUMS";

/// Why copies were refused or could not be archived.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error(
        "rule 13a: at least {need} electronic copies of the machine's log file are required, \
         {got} given"
    )]
    TooFewCopies { got: usize, need: usize },
    #[error("rule 13a: {} and {} are the same file, not two copies", .a.display(), .b.display())]
    SameFile { a: PathBuf, b: PathBuf },
    #[error(
        "the copies are not identical: {} and {} first differ at byte offset {offset}",
        .a.display(), .b.display()
    )]
    CopiesDiffer { a: PathBuf, b: PathBuf, offset: u64 },
    #[error(
        "the copies are not identical: {} is a prefix of {} (it ends at byte offset {len}, \
         the other goes on)",
        .shorter.display(), .longer.display()
    )]
    CopyIsPrefix {
        shorter: PathBuf,
        longer: PathBuf,
        len: u64,
    },
    #[error("{} is not a regular file", .path.display())]
    NotAFile { path: PathBuf },
    #[error("{} has no usable file name to archive it under", .path.display())]
    NoFileName { path: PathBuf },
    #[error("the log copy and the program would both be archived as {name}")]
    NameClash { name: String },
    #[error(
        "refusing to overwrite {}: it already holds different content (sha256 {existing}, \
         new {new})",
        .path.display()
    )]
    WouldOverwrite {
        path: PathBuf,
        existing: String,
        new: String,
    },
    #[error("{} changed while it was being archived (sha256 {before}, then {after})", .path.display())]
    Changed {
        path: PathBuf,
        before: String,
        after: String,
    },
    #[error("{}: line {line} is not a `sha256sum` line", .path.display())]
    BadSums { path: PathBuf, line: usize },
    #[error("{op} {}: {source}", .path.display())]
    Io {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

fn io_err<'a>(op: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> ArchiveError + 'a {
    move |source| ArchiveError::Io {
        op,
        path: path.to_path_buf(),
        source,
    }
}

/// One archived file, as the game log records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchivedFile {
    /// Path relative to the game folder, e.g. `engine/machine-debug.log`.
    pub name: String,
    /// Where it was copied from.
    pub source: String,
    /// SHA-256, lower-case hex.
    pub sha256: String,
    pub size: u64,
    /// The same content was archived under this name before; nothing was written.
    pub already_archived: bool,
}

/// One copy handed over (all identical to the archived one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CopyRecord {
    pub path: String,
    pub size: u64,
}

/// What `archive_copies` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchiveOutcome {
    /// The copies compared (13a), all byte-identical.
    pub copies: Vec<CopyRecord>,
    /// The stored copy of the machine's log.
    pub log: ArchivedFile,
    /// The stored program (13d).
    pub program: Option<ArchivedFile>,
    /// `engine/SHA256SUMS`, relative to the game folder.
    pub sums_file: String,
    /// SHA-256 of the checksum file as written.
    pub sums_sha256: String,
}

fn progress_bar(len: u64, what: &str, progress: bool) -> Option<indicatif::ProgressBar> {
    if !progress || len <= PROGRESS_THRESHOLD {
        return None;
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(len),
        indicatif::ProgressDrawTarget::stderr(),
    );
    let style = indicatif::ProgressStyle::with_template(
        "{msg} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message(what.to_owned());
    Some(bar)
}

fn open_regular(path: &Path) -> Result<(File, fs::Metadata), ArchiveError> {
    let file = crate::record::fsio::open_regular(path).map_err(io_err("open", path))?;
    let meta = file.metadata().map_err(io_err("stat", path))?;
    if !meta.is_file() {
        return Err(ArchiveError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    Ok((file, meta))
}

/// Read until `buf` is full or the file ends; returns the bytes read.
fn fill(file: &mut File, buf: &mut [u8], path: &Path) -> Result<usize, ArchiveError> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_err("read", path)(e)),
        }
    }
    Ok(n)
}

/// Streaming SHA-256 of a file: (lower-case hex digest, size in bytes). With `progress`, files
/// over [`PROGRESS_THRESHOLD`] show a progress bar on stderr.
pub fn hash_file(path: &Path, progress: bool) -> Result<(String, u64), ArchiveError> {
    let (mut file, meta) = open_regular(path)?;
    let bar = progress_bar(meta.len(), &format!("sha256 {}", path.display()), progress);
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; CHUNK];
    let mut size = 0u64;
    loop {
        let n = fill(&mut file, &mut buf, path)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        size += n as u64;
        if let Some(b) = &bar {
            b.set_position(size);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok((hex::encode(hasher.finalize()), size))
}

/// Check that all `paths` are byte-identical, reading them side by side in chunks. Refuses the
/// first pair that differs, naming both files and the first differing byte offset.
pub fn compare_copies(paths: &[PathBuf]) -> Result<(), ArchiveError> {
    compare_and_hash(paths, false).map(|_| ())
}

/// Compare all copies against the first and hash the first, in one pass over each file.
fn compare_and_hash(paths: &[PathBuf], progress: bool) -> Result<(String, u64), ArchiveError> {
    let Some(first) = paths.first() else {
        return Err(ArchiveError::TooFewCopies { got: 0, need: 1 });
    };
    let mut files = Vec::with_capacity(paths.len());
    let mut ids: Vec<(u64, u64)> = Vec::with_capacity(paths.len());
    for p in paths {
        let (file, meta) = open_regular(p)?;
        let id = (meta.dev(), meta.ino());
        if let Some(k) = ids.iter().position(|x| *x == id) {
            return Err(ArchiveError::SameFile {
                a: paths[k].clone(),
                b: p.clone(),
            });
        }
        ids.push(id);
        files.push((file, meta.len()));
    }
    let total = files.first().map_or(0, |f| f.1);
    let bar = progress_bar(total, &format!("compare {}", first.display()), progress);
    let mut bufs: Vec<Vec<u8>> = paths.iter().map(|_| vec![0u8; CHUNK]).collect();
    let mut hasher = Sha256::new();
    let mut offset = 0u64;
    loop {
        let mut lens = Vec::with_capacity(files.len());
        for (i, (file, _)) in files.iter_mut().enumerate() {
            lens.push(fill(file, &mut bufs[i], &paths[i])?);
        }
        let n0 = lens[0];
        for i in 1..files.len() {
            let ni = lens[i];
            let common = n0.min(ni);
            let (a, b) = (&bufs[0][..common], &bufs[i][..common]);
            if let Some(j) = (a != b)
                .then(|| a.iter().zip(b).position(|(x, y)| x != y))
                .flatten()
            {
                return Err(ArchiveError::CopiesDiffer {
                    a: first.clone(),
                    b: paths[i].clone(),
                    offset: offset + j as u64,
                });
            }
            if ni != n0 {
                let (shorter, longer) = if ni < n0 {
                    (paths[i].clone(), first.clone())
                } else {
                    (first.clone(), paths[i].clone())
                };
                return Err(ArchiveError::CopyIsPrefix {
                    shorter,
                    longer,
                    len: offset + common as u64,
                });
            }
        }
        if n0 == 0 {
            break;
        }
        hasher.update(&bufs[0][..n0]);
        offset += n0 as u64;
        if let Some(b) = &bar {
            b.set_position(offset);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok((hex::encode(hasher.finalize()), offset))
}

/// A file name safe for the archive and for `sha256sum`: ASCII letters, digits, `.`, `_`, `-`,
/// `+`; anything else becomes `_`; no leading dot.
fn archive_name(path: &Path) -> Result<String, ArchiveError> {
    let raw = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut name: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+') {
                c
            } else {
                '_'
            }
        })
        .take(200)
        .collect();
    if name.starts_with('.') {
        name.insert(0, '_');
    }
    if name.is_empty() || name.chars().all(|c| c == '_' || c == '.') {
        return Err(ArchiveError::NoFileName {
            path: path.to_path_buf(),
        });
    }
    if name == SUMS_FILE {
        return Err(ArchiveError::NameClash { name });
    }
    Ok(name)
}

fn sync_dir(dir: &Path) -> Result<(), ArchiveError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err("fsync folder", dir))
}

fn make_private_dir(dir: &Path) -> Result<(), ArchiveError> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io_err("create folder", dir))?;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).map_err(io_err("chmod", dir))
}

/// `name -> digest` lines of an existing checksum file.
fn read_sums(path: &Path) -> Result<Vec<(String, String)>, ArchiveError> {
    let text = match crate::record::fsio::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err("read", path)(e)),
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() {
            continue;
        }
        let bad = || ArchiveError::BadSums {
            path: path.to_path_buf(),
            line: i + 1,
        };
        let (digest, rest) = line.split_once(' ').ok_or_else(bad)?;
        let name = rest
            .strip_prefix(' ')
            .or_else(|| rest.strip_prefix('*'))
            .ok_or_else(bad)?;
        if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        out.push((name.to_owned(), digest.to_ascii_lowercase()));
    }
    Ok(out)
}

/// Write `path` through a temporary file (0600), fsync it, rename it into place.
fn write_replace(path: &Path, bytes: &[u8]) -> Result<(), ArchiveError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(".{SUMS_FILE}.partial-{}", std::process::id()));
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(io_err("create", &tmp))?;
    f.write_all(bytes).map_err(io_err("write", &tmp))?;
    f.sync_all().map_err(io_err("fsync", &tmp))?;
    drop(f);
    fs::rename(&tmp, path).map_err(io_err("rename", path))?;
    sync_dir(dir)
}

/// Store `src` as `dir/name` unless that name already holds the same content.
fn store(
    src: &Path,
    dir: &Path,
    name: &str,
    digest: &str,
    size: u64,
) -> Result<ArchivedFile, ArchiveError> {
    let dest = dir.join(name);
    let record = |already_archived| ArchivedFile {
        name: format!("{ENGINE_DIR}/{name}"),
        source: src.display().to_string(),
        sha256: digest.to_owned(),
        size,
        already_archived,
    };
    if dest.symlink_metadata().is_ok() {
        return check_existing(&dest, digest).map(|()| record(true));
    }
    let tmp = dir.join(format!(".{name}.partial-{}", std::process::id()));
    let result = copy_hashing(src, &tmp, digest);
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    // A hard link never replaces an existing file: the name is taken atomically or not at all.
    let linked = fs::hard_link(&tmp, &dest);
    let _ = fs::remove_file(&tmp);
    match linked {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            return check_existing(&dest, digest).map(|()| record(true));
        }
        Err(e) => return Err(io_err("link", &dest)(e)),
    }
    sync_dir(dir)?;
    Ok(record(false))
}

fn check_existing(dest: &Path, digest: &str) -> Result<(), ArchiveError> {
    let (existing, _) = hash_file(dest, true)?;
    if existing != digest {
        return Err(ArchiveError::WouldOverwrite {
            path: dest.to_path_buf(),
            existing,
            new: digest.to_owned(),
        });
    }
    fs::set_permissions(dest, fs::Permissions::from_mode(0o600)).map_err(io_err("chmod", dest))
}

/// Copy `src` to a new file `tmp` (0600), hashing what is written; refuse if the digest is not
/// the one measured before (the source changed in between).
fn copy_hashing(src: &Path, tmp: &Path, digest: &str) -> Result<(), ArchiveError> {
    let (mut input, meta) = open_regular(src)?;
    let mut out = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(tmp)
        .map_err(io_err("create", tmp))?;
    let bar = progress_bar(meta.len(), &format!("copy {}", src.display()), true);
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; CHUNK];
    let mut done = 0u64;
    loop {
        let n = fill(&mut input, &mut buf, src)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n]).map_err(io_err("write", tmp))?;
        done += n as u64;
        if let Some(b) = &bar {
            b.set_position(done);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    out.sync_all().map_err(io_err("fsync", tmp))?;
    let after = hex::encode(hasher.finalize());
    if after != digest {
        return Err(ArchiveError::Changed {
            path: src.to_path_buf(),
            before: digest.to_owned(),
            after,
        });
    }
    Ok(())
}

/// Rules 13a and 13d: check the copies of the machine's log (at least `min_copies`, all
/// byte-identical), store one of them and the program under `game_dir/engine/`, and write
/// `game_dir/engine/SHA256SUMS`. Nothing archived before is ever replaced.
/// Remove the partial copies (`.NAME.partial-PID`) that earlier `archive` runs killed midway left
/// in `dir` (the confidential engine log must not linger in hidden files). A copy whose process
/// still runs is left alone.
pub fn remove_partial_copies(dir: &Path) -> usize {
    let mut removed = 0;
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.starts_with('.'))
            .and_then(|n| n.rsplit_once(".partial-"))
            .and_then(|(_, pid)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let alive = pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists();
        if !alive && fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

pub fn archive_copies(
    game_dir: &Path,
    copies: &[PathBuf],
    min_copies: usize,
    program: Option<&Path>,
) -> Result<ArchiveOutcome, ArchiveError> {
    remove_partial_copies(&game_dir.join(ENGINE_DIR));
    let need = min_copies.max(1);
    if copies.len() < need {
        return Err(ArchiveError::TooFewCopies {
            got: copies.len(),
            need,
        });
    }
    let log_name = archive_name(&copies[0])?;
    let program_name = program.map(archive_name).transpose()?;
    if program_name.as_deref() == Some(log_name.as_str()) {
        return Err(ArchiveError::NameClash { name: log_name });
    }
    let mut records = Vec::with_capacity(copies.len());
    for c in copies {
        let size = fs::metadata(c).map_err(io_err("stat", c))?.len();
        records.push(CopyRecord {
            path: c.display().to_string(),
            size,
        });
    }
    let (log_digest, log_size) = compare_and_hash(copies, true)?;
    let program_hash = program.map(|p| hash_file(p, true)).transpose()?;

    let dir = game_dir.join(ENGINE_DIR);
    make_private_dir(&dir)?;
    let sums_path = dir.join(SUMS_FILE);
    let mut sums = read_sums(&sums_path)?;
    let mut planned = vec![(log_name.clone(), log_digest.clone())];
    if let (Some(n), Some((d, _))) = (&program_name, &program_hash) {
        planned.push((n.clone(), d.clone()));
    }
    // Refuse before writing anything if the checksum file already pins another content.
    for (name, digest) in &planned {
        if let Some((_, old)) = sums.iter().find(|(n, d)| n == name && d != digest) {
            return Err(ArchiveError::WouldOverwrite {
                path: dir.join(name),
                existing: old.clone(),
                new: digest.clone(),
            });
        }
    }

    let log = store(&copies[0], &dir, &log_name, &log_digest, log_size)?;
    let program_file = match (program, &program_name, &program_hash) {
        (Some(p), Some(n), Some((d, s))) => Some(store(p, &dir, n, d, *s)?),
        _ => None,
    };

    let before = sums.clone();
    for (name, digest) in planned {
        if !sums.iter().any(|(n, _)| *n == name) {
            sums.push((name, digest));
        }
    }
    sums.sort();
    let text: String = sums.iter().map(|(n, d)| format!("{d}  {n}\n")).collect();
    let mut before_sorted = before;
    before_sorted.sort();
    let sums_sha256 = if before_sorted != sums || !sums_path.exists() {
        write_replace(&sums_path, text.as_bytes())?;
        hex::encode(Sha256::digest(text.as_bytes()))
    } else {
        hash_file(&sums_path, false)?.0
    };
    Ok(ArchiveOutcome {
        copies: records,
        log,
        program: program_file,
        sums_file: format!("{ENGINE_DIR}/{SUMS_FILE}"),
        sums_sha256,
    })
}
