//! `arbiter archive`: the machine's log copies (13a, 13c) and the program copy (13d) into the
//! game folder and the game log.
use std::path::PathBuf;

use clap::Args;

use super::{KeyArgs, MatchArg};
use crate::after::archive::ArchiveError;
use crate::after::postgame::{HandedFiles, Handover, PostgameError, archive};
use crate::error::{Error, Exit};

#[derive(Debug, Clone, Args)]
pub struct ArchiveArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long, value_parser = super::game_number)]
    pub game: u32,
    /// The copies of the machine's log file handed over by the operator (13a).
    #[arg(required = true)]
    pub copies: Vec<PathBuf>,
    /// The copy of the program used for the game (13d).
    #[arg(long, value_name = "FILE")]
    pub program: Option<PathBuf>,
    /// The side whose program's own log the copies are, in a game between two different programs
    /// (Denryu-sen 5.2): only that side's moves are checked against it (coverage per side); run
    /// once per side. Without it the log must show every program side's moves.
    #[arg(long, value_name = "sente|gote|white|black", value_parser = side_arg)]
    pub side: Option<crate::core::Side>,
    /// Delivery time (RFC 3339); default now.
    #[arg(long)]
    pub delivered: Option<String>,
    #[command(flatten)]
    pub key: KeyArgs,
}

pub fn run(a: &ArchiveArgs) -> Result<Exit, Error> {
    a.m.require_game(a.game).map_err(Error::cannot_read)?;
    let key = a.key.source();
    let (summary, finding) = archive(&Handover {
        files: HandedFiles {
            match_dir: &a.m.dir,
            game: a.game,
            copies: &a.copies,
            program: a.program.as_deref(),
            delivered: a.delivered.as_deref(),
            side: a.side,
        },
        key: &key,
    })?;
    outln!("{summary}")?;
    match finding {
        // 13c: recorded, and the command says so with a non-zero exit.
        Some(f) => Err(Error::refused(f)),
        None => Ok(Exit::Ok),
    }
}

/// `--side`: shogi's names or chess's.
fn side_arg(s: &str) -> Result<crate::core::Side, String> {
    match s {
        "sente" | "white" => Ok(crate::core::Side::White),
        "gote" | "black" => Ok(crate::core::Side::Black),
        _ => Err(format!(
            "{s:?} is not a side: say sente, gote, white or black"
        )),
    }
}

impl From<PostgameError> for Error {
    fn from(e: PostgameError) -> Error {
        use PostgameError as P;
        match e {
            P::Copies(ArchiveError::Io {
                op: "open" | "read" | "stat",
                ..
            }) => Error::cannot_read(e),
            P::Copies(ArchiveError::NotAFile { .. }) => Error::cannot_read(e),
            P::Copies(ArchiveError::Io { .. }) => Error::write_failed(e),
            P::Copies(_) => Error::refused(e),
            // The core's refusals and the session's failures: the one mapping every command uses.
            P::Refused(r) => super::session_failure(r.into(), |s| P::Session(s).into()),
            P::Session(s) => super::session_failure(s, |s| P::Session(s).into()),
            P::Game(ref m) if m.is_held_elsewhere() => Error::unavailable(e),
            // Refused as `play` and `script` refuse it (exit 1), naming --agent.
            P::Game(crate::board::matchdir::MatchError::LiveWitnessKey { .. }) => Error::refused(e),
            P::Game(_) => Error::cannot_read(e),
            P::Open(j) => super::journal_failure(j),
            P::ReadStored { .. } | P::EngineLog(_) => Error::cannot_read(e),
            P::Append(_) => Error::write_failed(e),
            P::Damaged(_)
            | P::Decode(_)
            | P::Replay(_)
            | P::NoEnd
            | P::BadEndUtc
            | P::Delivered(_)
            | P::MachineMoves(_)
            | P::EmptyLog => Error::bad_input(e),
        }
    }
}
