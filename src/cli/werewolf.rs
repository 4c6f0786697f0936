//! `status`, `record` and `report` of a werewolf table's game: the game read back from its log
//! (checked first, as every command that shows a game), re-run, and printed or written.
use std::path::Path;

use crate::error::{Error, Exit};
use crate::record::witness::LogCheck;
use crate::report::werewolf::{self as ww, Record, Rerun};

/// The game checked (its lines printed on standard error, as for a board game), read and re-run.
fn load(dir: &Path, game: u32) -> Result<(LogCheck, Record, Rerun), Error> {
    let check = crate::record::witness::check_before_showing(dir, game);
    for l in &check.lines {
        errln!("arbiter: {l}");
    }
    let rec = match crate::after::report_io::read_werewolf(dir, game) {
        Ok(Some(r)) => r,
        Ok(None) => {
            return Err(Error::bad_input(format!(
                "game {game} is not a werewolf table's game"
            )));
        }
        Err(crate::after::report_io::WerewolfReadError::Journal(e)) => {
            return Err(super::journal_failure(e));
        }
        Err(e) => return Err(Error::bad_input(e.to_string())),
    };
    let rerun = ww::rerun(&rec);
    if rerun.fails() {
        errln!("arbiter: BAD REPLAY: {}", rerun.describe());
    }
    Ok((check, rec, rerun))
}

fn exit_of(check: &LogCheck, rerun: &Rerun) -> Exit {
    let worst = match (check.failing, rerun.fails()) {
        (f, true) => Some(f.map_or(crate::record::verify::Status::BadReplay, |s| {
            s.max(crate::record::verify::Status::BadReplay)
        })),
        (f, false) => f,
    };
    worst.map_or(Exit::Ok, |s| s.exit())
}

/// `arbiter status` of a werewolf game.
pub fn status(dir: &Path, game: u32, json: bool) -> Result<Exit, Error> {
    let (check, rec, rerun) = load(dir, game)?;
    if json {
        let v = ww::status_json(&rec, &rerun);
        outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default())?;
    } else {
        out!("{}", ww::status_text(&rec, &rerun))?;
        if let Some(cp) = crate::record::witness::latest_checkpoint(dir, game) {
            outln!(
                "latest checkpoint: {} entries, code {} (a team notes it; arbiter verify --code checks it)",
                cp.size,
                cp.short_code()
            )?;
        }
    }
    Ok(exit_of(&check, &rerun))
}

/// The contest's own files of a werewolf game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Official {
    /// The official server's CSV game log (`.log`).
    Log,
    /// The official server's JSON log (`.json`).
    Json,
}

/// `arbiter record --format aiwolf-log|aiwolf-json`: the official files, byte for byte in the
/// official server's shape; a talk whose comma the official CSV readers would split is named on
/// standard error.
pub fn record(dir: &Path, game: u32, format: Official, out: Option<&Path>) -> Result<Exit, Error> {
    let (check, rec, rerun) = load(dir, game)?;
    let text = match format {
        Official::Log => {
            let (text, warnings) = ww::aiwolf_log(&rec);
            for w in &warnings {
                errln!("arbiter: warning: {w}");
            }
            text
        }
        Official::Json => ww::aiwolf_json(&rec) + "\n",
    };
    super::write_text_out(out, &text)?;
    Ok(exit_of(&check, &rerun))
}

/// `arbiter report` of a werewolf game: the committee's HTML page.
pub fn report(dir: &Path, game: u32, out: &Path) -> Result<Exit, Error> {
    let (check, rec, rerun) = load(dir, game)?;
    let verdict = match check.failing {
        Some(s) => format!("verify says {}", s.label()),
        None => "verify says OK".to_owned(),
    };
    let html = ww::html(&rec, &rerun, &verdict);
    crate::record::journal::write_atomic(out, html.as_bytes())
        .map_err(|e| Error::write_failed(format!("report: {}: {e}", out.display())))?;
    outln!("{}", out.display())?;
    Ok(exit_of(&check, &rerun))
}
