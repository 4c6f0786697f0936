//! Reading the files a match is made of without trusting them (SHELL, issue 14): a FIFO, a
//! device or a folder in a file's place is refused at once with a clear message (opened
//! non-blocking, then checked to be a regular file), match files are opened without following a
//! symlink, and inputs with a natural size are read with a bound.
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

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
    let f = open_regular(path)?;
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

/// A game log read whole (no size bound: logs grow with the game), refusing a symlink, FIFO,
/// device or folder in its place.
pub fn read_match_log(path: &Path) -> io::Result<Vec<u8>> {
    let mut f = open_match_file(path)?;
    let mut out = Vec::new();
    f.read_to_end(&mut out)?;
    Ok(out)
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
