//! The committee report's shell (SHELL): gathers what [`crate::report`] renders — a game log's
//! events with each entry's UTC text, and the verifier's verdict — and writes the rendering
//! readable by its owner only. `report` itself reads no file; `arbiter report` calls
//! [`write_report`], which streams the log twice and never holds it ([`load`] then
//! [`crate::report::render`] give the same bytes, for the tests).
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
    let mut events = Vec::new();
    let mut utc = Vec::new();
    for_each_event(path, |e, u| {
        events.push(e);
        utc.push(u.to_string());
    })?;
    Ok((events, utc))
}

/// [`read_log`] without keeping anything: `each` sees every event with its line's `utc` text, in
/// order. Returns how many there were. Memory is one line.
pub fn for_each_event(
    path: &Path,
    mut each: impl FnMut(Event, &str),
) -> Result<usize, ReadLogError> {
    use std::io::{BufRead, Read};
    let file_error = |source| ReadLogError::File {
        path: path.to_owned(),
        source,
    };
    let file = crate::fsio::open_match_file(path).map_err(file_error)?;
    let mut r = std::io::BufReader::with_capacity(1 << 16, file);
    let mut buf = Vec::new();
    let mut count = 0;
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
        let event = event_from_value(&v).map_err(at)?;
        each(
            event,
            v.get("utc").and_then(|u| u.as_str()).unwrap_or_default(),
        );
        count += 1;
    }
    Ok(count)
}

/// Why `arbiter report` could not write its report.
#[derive(Debug, thiserror::Error)]
pub enum WriteReportError {
    #[error(transparent)]
    Read(#[from] ReadLogError),
    /// The output could not be written (nothing was replaced).
    #[error("{}: {source}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Write the report of game `n` to `out` without holding the log or the timeline: a first pass
/// over the log builds the report's sections ([`crate::report::model::Stream`]); what comes
/// before the timeline is written, then a second pass writes the timeline's rows as the entries
/// are read ([`crate::report::model::Timeline`]), then the rest. The bytes are those of
/// [`render_game`]; `out` is replaced as by [`write_private`] (a new file, then a rename), and
/// only when everything was written.
pub fn write_report(
    match_dir: &Path,
    n: u32,
    format: Format,
    public: bool,
    verification: Option<Verification>,
    out: &Path,
) -> Result<(), WriteReportError> {
    use crate::report::model::{Stream, Timeline};
    let path = log_path(match_dir, n);
    // Without a verdict the count of entries comes from the first pass.
    let given = verification.clone();
    let mut stream = Stream::new(
        &verification.unwrap_or_else(|| Verification::not_checked(0)),
        public,
    );
    let entries = for_each_event(&path, |e, utc| stream.push(&e, utc))?;
    let streamed = stream.finish();
    let mut report = streamed.report;
    if given.is_none() {
        report.verification = Verification::not_checked(entries);
    }
    let (head, tail) = crate::report::parts(&report, streamed.timeline_rows, format);
    drop(report);
    let mut read_error = None;
    let mut timeline = Timeline::new(public, streamed.voids);
    crate::journal::write_atomic_with(out, |w| {
        w.write_all(head.as_bytes())?;
        let mut row = String::new();
        let mut failed = None;
        let read = for_each_event(&path, |e, utc| {
            if failed.is_some() {
                return;
            }
            if let Some(t) = timeline.push(&e, utc) {
                row.clear();
                crate::report::timeline_row(&mut row, &t, format);
                if let Err(x) = w.write_all(row.as_bytes()) {
                    failed = Some(x);
                }
            }
        });
        if let Some(x) = failed {
            return Err(x);
        }
        if let Err(e) = read {
            read_error = Some(e);
            return Err(std::io::Error::other("the log could not be read again"));
        }
        w.write_all(tail.as_bytes())
    })
    .map_err(|source| match read_error.take() {
        Some(e) => WriteReportError::Read(e),
        None => WriteReportError::Write {
            path: out.to_owned(),
            source,
        },
    })
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
