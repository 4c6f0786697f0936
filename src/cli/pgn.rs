//! `arbiter pgn`: the game in PGN with clock comments.
use std::path::PathBuf;

use clap::Args;

use super::MatchArg;
use crate::error::{Error, Exit};
use crate::matchdir::replay_verified_times;
use crate::postgame::pgn_of_game;

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
}

pub fn run(a: &PgnArgs) -> Result<Exit, Error> {
    if let Some(p) = &a.out {
        crate::fsio::check_output(p, crate::fsio::Purpose::Pgn, a.force)
            .map_err(super::output_refused)?;
    }
    a.m.require_game(a.game).map_err(Error::cannot_read)?;
    // Issue 21: the game is replayed once, from the lines verify's one pass checked, for the
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
    let mut text = pgn_of_game(&r.game, &times.finish(), &r.first.utc);
    if check.demo || check.failing.is_some() {
        // A PGN comment before the moves, so the warning travels with the file.
        let warning = check.lines.join("; ").replace(['{', '}'], "");
        if let Some(at) = text.find("\n\n") {
            text.insert_str(at + 2, &format!("{{{warning}}}\n"));
        }
    }
    super::write_text_out(a.out.as_deref(), &text)?;
    Ok(check.failing.map_or(Exit::Ok, |s| s.exit()))
}
