//! `arbiter report`: the committee report of one game (HTML, or Markdown with `--markdown`).
use std::path::PathBuf;

use clap::Args;

use super::MatchArg;
use crate::after::report_io::{
    ReadLogError, WriteReportError, default_path, verification_watching, write_report_verified,
};
use crate::error::{Error, Exit};
use crate::report::Format;

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
        Format::Html => crate::record::fsio::Purpose::ReportHtml,
        Format::Markdown => crate::record::fsio::Purpose::ReportMarkdown,
    };
    crate::record::fsio::check_output(&out, purpose, a.force).map_err(super::output_refused)?;
    let dir = &a.m.dir;
    if crate::after::report_io::is_werewolf_game(dir, a.game) {
        if a.markdown {
            return Err(Error::bad_input(format!(
                "game {}: a werewolf table's report is HTML (leave out --markdown)",
                a.game
            )));
        }
        return super::werewolf::report(dir, a.game, &out);
    }
    let (game, public) = (a.game, a.public);
    // The report is built from the lines the verifier's full check reads, decoded
    // on the cores that check them (the log is read once).
    let verdict = move |watch: &mut dyn FnMut(&crate::record::journal::LineView<'_>)| {
        let (mut verdict, watched) = verification_watching(dir, game, Some(watch));
        if public {
            // 13e / 5b: no folder of this laptop in the public version, the match folder
            // included.
            verdict = verdict.public(&dir.display().to_string());
            if let Ok(abs) = std::fs::canonicalize(dir) {
                verdict = verdict.public(&abs.display().to_string());
            }
        }
        (Some(verdict), watched)
    };
    // Streamed: the log is never held.
    write_report_verified(dir, a.game, format, a.public, verdict, &out).map_err(|e| match e {
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
