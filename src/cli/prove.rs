//! `arbiter prove`: the inclusion proof (JSON) of one entry against the latest signed checkpoint.
use clap::Args;

use super::MatchArg;
use crate::error::{Error, Exit};
use crate::record::verify::{ProveError, prove};

#[derive(Debug, Clone, Args)]
pub struct ProveArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long, value_parser = super::game_number)]
    pub game: u32,
    /// Sequence number of the entry to prove (an inclusion proof).
    #[arg(long, required_unless_present = "from", conflicts_with = "from")]
    pub seq: Option<u64>,
    /// Entry count of an older checkpoint a camp kept: a consistency proof from it to the
    /// latest checkpoint (check it with `arbiter verify --consistency FILE`).
    #[arg(long, value_name = "N")]
    pub from: Option<u64>,
}

pub fn run(a: &ProveArgs) -> Result<Exit, Error> {
    a.m.require_game(a.game).map_err(Error::unreadable)?;
    let s = match (a.seq, a.from) {
        (_, Some(from)) => {
            let p =
                crate::record::witness::prove_consistency(&a.m.dir, a.game, from).map_err(|e| {
                    Error::Verify {
                        exit: Exit::NotCovered,
                        cause: Box::new(e),
                    }
                })?;
            serde_json::to_string_pretty(&p).map_err(Error::unreadable)?
        }
        (Some(seq), None) => {
            let p = prove(&a.m.dir, a.game, seq)?;
            serde_json::to_string_pretty(&p).map_err(Error::unreadable)?
        }
        (None, None) => return Err(Error::bad_input("give --seq K or --from N")),
    };
    outln!("{s}")?;
    Ok(Exit::Ok)
}

impl From<ProveError> for Error {
    fn from(e: ProveError) -> Error {
        Error::Verify {
            exit: e.exit(),
            cause: Box::new(e),
        }
    }
}
