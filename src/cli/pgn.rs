//! `arbiter pgn`: the game in PGN with clock comments.
use std::path::PathBuf;

use clap::Args;

use super::MatchArg;
use crate::error::{Error, Exit};
use crate::journal::write_atomic;
use crate::layout;
use crate::matchdir::read_game;
use crate::postgame::pgn_of;

#[derive(Debug, Clone, Args)]
pub struct PgnArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long)]
    pub game: u32,
    /// Output path (default: standard output).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

pub fn run(a: &PgnArgs) -> Result<Exit, Error> {
    let (entries, events) =
        read_game(&layout::log_path(&a.m.dir, a.game)).map_err(Error::bad_input)?;
    let first = entries.first().map(|e| e.utc.clone()).unwrap_or_default();
    let check = crate::witness::check_before_showing(&a.m.dir, a.game);
    for l in &check.lines {
        errln!("{l}");
    }
    let mut text = pgn_of(&events, &first).map_err(Error::bad_input)?;
    if check.demo || check.failing.is_some() {
        // A PGN comment before the moves, so the warning travels with the file.
        let warning = check.lines.join("; ").replace(['{', '}'], "");
        if let Some(at) = text.find("\n\n") {
            text.insert_str(at + 2, &format!("{{{warning}}}\n"));
        }
    }
    match &a.out {
        Some(p) => {
            write_atomic(p, text.as_bytes())
                .map_err(|e| Error::write_failed(format!("{}: {e}", p.display())))?;
            outln!("{}", p.display())?;
        }
        None => out!("{text}")?,
    }
    Ok(check.failing.map_or(Exit::Ok, |s| s.exit()))
}
