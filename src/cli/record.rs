//! `arbiter record`: the game record shogi and chess software read: CSA V3.0 or KIF for a shogi
//! game (every move with its time, the result), PGN for a chess game (as `arbiter pgn`).
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::MatchArg;
use crate::after::postgame::pgn_of_game;
use crate::board::matchdir::replay_log;
use crate::error::{Error, Exit};
use crate::record::layout;
use crate::report::csa::{RecordError, shogi_record, write_csa};
use crate::report::kif::write_kif;
use crate::report::times::TimesStream;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// CSA standard format V3.0 (shogi).
    Csa,
    /// KIF (shogi).
    Kif,
    /// PGN with %clk and %emt (chess).
    Pgn,
    /// The official AI Werewolf server's game log (`.log`, CSV) of a werewolf game.
    AiwolfLog,
    /// The official AI Werewolf server's JSON log (`.json`) of a werewolf game.
    AiwolfJson,
}

#[derive(Debug, Clone, Args)]
pub struct RecordArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long)]
    pub game: u32,
    /// The record's format.
    #[arg(long, value_enum)]
    pub format: Format,
    /// Output path (default: standard output).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace an existing `--out` file that is not a record the kit wrote (the match's own files
    /// are refused even so).
    #[arg(long, requires = "out")]
    pub force: bool,
}

pub fn run(a: &RecordArgs) -> Result<Exit, Error> {
    if let Some(p) = &a.out {
        crate::record::fsio::check_output(p, crate::record::fsio::Purpose::Record, a.force)
            .map_err(super::output_refused)?;
    }
    let official = match a.format {
        Format::AiwolfLog => Some(super::werewolf::Official::Log),
        Format::AiwolfJson => Some(super::werewolf::Official::Json),
        Format::Csa | Format::Kif | Format::Pgn => None,
    };
    let werewolf = crate::after::report_io::is_werewolf_game(&a.m.dir, a.game);
    match (official, werewolf) {
        (Some(f), true) => return super::werewolf::record(&a.m.dir, a.game, f, a.out.as_deref()),
        (Some(_), false) => {
            return Err(Error::bad_input(format!(
                "game {}: the AI Werewolf formats are for a werewolf table's game; this game is a board game (csa, kif or pgn)",
                a.game
            )));
        }
        (None, true) => {
            return Err(Error::bad_input(format!(
                "game {}: a werewolf table's game is written as aiwolf-log or aiwolf-json",
                a.game
            )));
        }
        (None, false) => {}
    }
    let mut times = TimesStream::default();
    let r = replay_log(&layout::log_path(&a.m.dir, a.game), |_, ev| times.push(ev))
        .map_err(|e| super::replay_failure(&a.m.dir, a.game, e))?;
    let check = crate::record::witness::check_before_showing(&a.m.dir, a.game);
    for l in &check.lines {
        errln!("arbiter: {l}");
    }
    let times = times.finish();
    let shogi = r.game.board().shogi().is_some();
    let text = match a.format {
        Format::Pgn if shogi => {
            return Err(Error::bad_input(RecordError::NotChess(a.game).to_string()));
        }
        Format::Pgn => pgn_of_game(&r.game, &times, &r.first.utc),
        Format::AiwolfLog | Format::AiwolfJson => {
            return Err(Error::bad_input(format!(
                "game {}: the AI Werewolf formats are for a werewolf table's game",
                a.game
            )));
        }
        Format::Csa | Format::Kif => {
            let rec = shogi_record(&r.game, &times, &r.first.utc)
                .map_err(|e| Error::bad_input(e.to_string()))?;
            if a.format == Format::Csa {
                write_csa(&rec)
            } else {
                write_kif(&rec).map_err(|e| Error::bad_input(e.to_string()))?
            }
        }
    };
    super::write_text_out(a.out.as_deref(), &text)?;
    Ok(check.failing.map_or(Exit::Ok, |s| s.exit()))
}
