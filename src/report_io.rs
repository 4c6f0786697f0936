//! The committee report's shell (SHELL): gathers what [`crate::report`] renders — a game log's
//! events with each entry's UTC text, and the verifier's verdict — and writes the rendering
//! readable by its owner only. `report` itself reads no file; `arbiter report` calls [`load`],
//! then [`crate::report::render`], then [`write_private`].
//!
//! The log is read leniently, line by line through the one codec ([`event_from_value`]): the
//! chain is not checked here (that is the verifier's verdict, shown in the report), so a tampered
//! log still gets its report. A line that is not an event of this kit stops the report.
use std::path::{Path, PathBuf};

use crate::core::event::Event;
use crate::layout::{game_dir, log_path};
use crate::log::codec::{DecodeError, event_from_value};
use crate::report::{Format, Input, Verification};

/// Why a game log could not be read for the report.
#[derive(Debug, thiserror::Error)]
pub enum ReadLogError {
    /// The file could not be read (or is not UTF-8).
    #[error("{}: {source}", .path.display())]
    File {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Line `line` (1-based) is not JSON, or not an event of this kit.
    #[error("{}:{line}: {problem}", .path.display())]
    Line {
        path: PathBuf,
        line: usize,
        problem: DecodeError,
    },
}

/// Default output path of the report of game `n`.
pub fn default_path(match_dir: &Path, n: u32, format: Format) -> PathBuf {
    game_dir(match_dir, n).join(match format {
        Format::Html => "report.html",
        Format::Markdown => "report.md",
    })
}

/// Read a game log line by line (the file is never held whole): the events and each line's `utc`
/// text (empty when absent). Blank lines are skipped; a line that is not UTF-8 or longer than
/// [`crate::journal::MAX_LINE_BYTES`] is named by its number.
pub fn read_log(path: &Path) -> Result<(Vec<Event>, Vec<String>), ReadLogError> {
    use std::io::{BufRead, Read};
    let file_error = |source| ReadLogError::File {
        path: path.to_owned(),
        source,
    };
    let file = crate::fsio::open_match_file(path).map_err(file_error)?;
    let mut r = std::io::BufReader::with_capacity(1 << 16, file);
    let mut events = Vec::new();
    let mut utc = Vec::new();
    let mut buf = Vec::new();
    for i in 0.. {
        buf.clear();
        let limit = crate::journal::MAX_LINE_BYTES as u64 + 1;
        let got = (&mut r)
            .take(limit)
            .read_until(b'\n', &mut buf)
            .map_err(file_error)?;
        if got == 0 {
            break;
        }
        let at = |problem: DecodeError| ReadLogError::Line {
            path: path.to_owned(),
            line: i + 1,
            problem,
        };
        if got as u64 == limit && buf.last() != Some(&b'\n') {
            return Err(at(DecodeError::Json(format!(
                "line longer than {} bytes",
                crate::journal::MAX_LINE_BYTES
            ))));
        }
        let line = std::str::from_utf8(&buf)
            .map_err(|e| at(DecodeError::Json(format!("not UTF-8: {e}"))))?;
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| at(DecodeError::Json(e.to_string())))?;
        events.push(event_from_value(&v).map_err(at)?);
        utc.push(
            v.get("utc")
                .and_then(|u| u.as_str())
                .unwrap_or_default()
                .to_string(),
        );
    }
    Ok((events, utc))
}

/// What the report of game `n` is made from: its log, and `verification` (the verifier's verdict
/// from [`verification`], or, when `None`, a note that the log was not checked).
pub fn load(
    match_dir: &Path,
    n: u32,
    verification: Option<Verification>,
) -> Result<Input, ReadLogError> {
    let (events, utc) = read_log(&log_path(match_dir, n))?;
    Ok(Input::new(events, utc, verification))
}

/// Read the log of game `n`, build the report and render it ([`load`] then
/// [`crate::report::render`]).
pub fn render_game(
    match_dir: &Path,
    n: u32,
    format: Format,
    public: bool,
    verification: Option<Verification>,
) -> Result<String, ReadLogError> {
    Ok(crate::report::render(
        &load(match_dir, n, verification)?,
        format,
        public,
    ))
}

/// Write a file readable by its owner only (0600), replacing any earlier one atomically, and only
/// a regular file or a new name (never a device, never through a symlink).
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::journal::write_atomic(path, bytes)
}

/// The verifier's verdict on the log of game `n`, for the report.
pub fn verification(match_dir: &Path, n: u32) -> Verification {
    // The full check `arbiter verify` makes (demo key, bindings, index, countersignatures).
    let m = crate::witness::verify_match(match_dir, &[n], &crate::witness::Trust::default(), &[]);
    let Some(mut v) = m.games.into_iter().next() else {
        return Verification {
            status: "UNREADABLE".into(),
            detail: String::new(),
            entries: 0,
            signed_upto: None,
        };
    };
    v.problems.extend(m.match_problems);
    if m.match_status > v.status {
        v.status = m.match_status;
        v.exit_code = m.match_status.exit_code();
    }
    let mut detail = Vec::new();
    if let Some(h) = &v.chain_head {
        detail.push(format!("chain head {h}"));
    }
    if let Some(b) = &v.bad_line {
        detail.push(format!(
            "first bad line: {}",
            serde_json::to_string(b).unwrap_or_default()
        ));
    }
    if let Some(t) = &v.truncated {
        detail.push(format!(
            "truncated: {}",
            serde_json::to_string(t).unwrap_or_default()
        ));
    }
    if let Some(u) = &v.unsigned_tail {
        detail.push(format!(
            "unsigned tail: {}",
            serde_json::to_string(u).unwrap_or_default()
        ));
    }
    if !v.recoveries.is_empty() {
        detail.push(format!(
            "{} recovery entries (torn tails cut after a crash)",
            v.recoveries.len()
        ));
    }
    detail.extend(v.problems.iter().cloned());
    Verification {
        status: format!("{:?} (arbiter verify exit code {})", v.status, v.exit_code),
        detail: detail.join("; "),
        entries: v.lines as usize,
        signed_upto: (v.signed_entries > 0).then_some(v.signed_entries as usize),
    }
}
