//! `arbiter pgn`: the game in PGN with clock comments.
use std::path::PathBuf;

use clap::Args;

use super::MatchArg;
use crate::board::matchdir::replay_verified_times;
use crate::error::{Error, Exit};

#[derive(Debug, Clone, Args)]
pub struct PgnArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long, value_parser = super::game_number)]
    pub game: u32,
    /// Output path (default: standard output).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace an existing `--out` file that is not a PGN the kit wrote (the match's own files
    /// are refused even so).
    #[arg(long, requires = "out")]
    pub force: bool,
    /// The PGN `Site` tag: where the match is played (`"New York, NY USA"`); `?` without it.
    #[arg(long, value_name = "PLACE")]
    pub site: Option<String>,
}

pub fn run(a: &PgnArgs) -> Result<Exit, Error> {
    if let Some(p) = &a.out {
        crate::record::fsio::check_output(p, crate::record::fsio::Purpose::Pgn, a.force)
            .map_err(super::output_refused)?;
    }
    a.m.require_game(a.game).map_err(Error::cannot_read)?;
    // The game is replayed once, from the lines verify's one pass checked, for the
    // moves and their times.
    let (check, replayed) = replay_verified_times(&a.m.dir, a.game);
    let (r, times) =
        replayed.map_err(|e| super::replay_failure_checked(&a.m.dir, a.game, e, Some(&check)))?;
    if r.game.board().shogi().is_some() {
        // Refused as `record --format pgn` is (exit 65): nothing is written.
        return Err(Error::bad_input(
            crate::report::csa::RecordError::PgnOfShogi(a.game).to_string(),
        ));
    }
    for l in &check.lines {
        errln!("arbiter: {l}");
    }
    let times = times.finish();
    let mut game = crate::report::pgn::pgn_game(&r.game, &times, &r.first.utc);
    if let Some(site) = a.site.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        game.site = site.to_string();
    }
    // (A long log's clock lines are megabytes: freed on a thread of their own.)
    crate::after::report_io::drop_aside(times);
    // A PGN comment before the moves, so the warning travels with the file.
    let warning = (check.demo || check.failing.is_some())
        .then(|| check.lines.join("; ").replace(['{', '}'], ""));
    match a.out.as_deref() {
        // Written to the file as it is made, not held whole first.
        Some(p) => {
            crate::record::journal::write_atomic_with(p, |w| {
                crate::report::pgn::write_pgn_to(&game, warning.as_deref(), w)
            })
            .map_err(|e| Error::write_failed(format!("{}: {e}", p.display())))?;
            outln!("{}", p.display())?;
        }
        None => {
            let mut text = Vec::new();
            crate::report::pgn::write_pgn_to(&game, warning.as_deref(), &mut text)
                .map_err(|e| Error::write_failed(e.to_string()))?;
            super::write_text_out(None, &String::from_utf8_lossy(&text))?;
        }
    }
    crate::after::report_io::drop_aside((game, r));
    Ok(check.failing.map_or(Exit::Ok, |s| s.exit()))
}
