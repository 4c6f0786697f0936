//! Committee report and PGN.
//!
//! The report is built in two pure steps: [`model::build`] turns the game's events into a
//! [`model::Report`], and the renderers ([`html::render`], [`markdown::render`], with the clock
//! chart of [`svg::chart`]) turn the model into text. `arbiter report` (`cli/report.rs`) is the thin shell
//! around them.
pub mod html;
pub mod markdown;
pub mod model;
pub mod pgn;
pub mod svg;

use std::path::{Path, PathBuf};

pub use model::{Report, Verification};

/// Which rendering of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Html,
    Markdown,
}

/// Default output path of the report of game `n`.
pub fn default_path(match_dir: &Path, n: u32, format: Format) -> PathBuf {
    crate::layout::game_dir(match_dir, n).join(match format {
        Format::Html => "report.html",
        Format::Markdown => "report.md",
    })
}

/// Read the log of game `n`, build the report and render it.
pub fn render_game(
    match_dir: &Path,
    n: u32,
    format: Format,
    public: bool,
    verification: Option<Verification>,
) -> Result<String, String> {
    let (events, utc) = model::read_log(&crate::layout::log_path(match_dir, n))?;
    let v = verification.unwrap_or_else(|| Verification::not_checked(events.len()));
    let r = model::build(&events, &utc, &v, public);
    Ok(match format {
        Format::Html => html::render(&r),
        Format::Markdown => markdown::render(&r),
    })
}

/// Write a file readable by its owner only (0600), replacing any earlier one atomically, and only
/// a regular file or a new name (never a device, never through a symlink).
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::journal::write_atomic(path, bytes)
}

/// The verifier's verdict on a game log, for the report.
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
