//! `arbiter report`: the committee report of one game (HTML, or Markdown with `--markdown`).
use std::path::PathBuf;

use clap::Args;

use super::MatchArg;
use crate::error::{Error, Exit};
use crate::report::Format;
use crate::report_io::{
    ReadLogError, WriteReportError, default_path, verification, write_report_checked,
};

#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long, value_parser = super::game_number)]
    pub game: u32,
    /// Output path (default DIR/game-<n>/report.html, or report.md with --markdown).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Markdown for the terminal instead of HTML.
    #[arg(long)]
    pub markdown: bool,
    /// Leave out what rule 13e keeps confidential (engine-log contents), for the 5b release.
    #[arg(long)]
    pub public: bool,
    /// Replace an existing `--out` file that is not a report the kit wrote (the match's own
    /// files are refused even so).
    #[arg(long)]
    pub force: bool,
}

pub fn run(a: &ReportArgs) -> Result<Exit, Error> {
    let format = if a.markdown {
        Format::Markdown
    } else {
        Format::Html
    };
    a.m.require_game(a.game).map_err(Error::cannot_read)?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| default_path(&a.m.dir, a.game, format));
    let purpose = match format {
        Format::Html => crate::fsio::Purpose::ReportHtml,
        Format::Markdown => crate::fsio::Purpose::ReportMarkdown,
    };
    crate::fsio::check_output(&out, purpose, a.force).map_err(super::output_refused)?;
    let dir = &a.m.dir;
    let (game, public) = (a.game, a.public);
    // The verifier's full check runs on a thread of its own beside the pass that builds the
    // report (its verdict is needed only for the head).
    let verdict = move || {
        let mut verdict = verification(dir, game);
        if public {
            // 13e / 5b: no folder of this laptop in the public version, the match folder
            // included.
            verdict = verdict.public(&dir.display().to_string());
            if let Ok(abs) = std::fs::canonicalize(dir) {
                verdict = verdict.public(&abs.display().to_string());
            }
        }
        Some(verdict)
    };
    // Streamed: the log is read once here (and once by the verifier), never held.
    write_report_checked(dir, a.game, format, a.public, verdict, &out).map_err(|e| match e {
        WriteReportError::Read(e @ (ReadLogError::Line { .. } | ReadLogError::NotJson { .. })) => {
            Error::bad_input(format!("report: {e}"))
        }
        WriteReportError::Read(e @ ReadLogError::File { .. }) => {
            Error::cannot_read(format!("report: {e}"))
        }
        WriteReportError::Write { path, source } => {
            Error::write_failed(format!("report: {}: {source}", path.display()))
        }
    })?;
    outln!("{}", out.display())?;
    Ok(Exit::Ok)
}
