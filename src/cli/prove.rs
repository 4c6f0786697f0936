//! `arbiter prove`: the inclusion proof (JSON) of one entry against the latest signed checkpoint.
use clap::Args;

use super::MatchArg;
use crate::error::{Error, Exit};
use crate::verify::{ProveError, prove};

#[derive(Debug, Clone, Args)]
pub struct ProveArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long)]
    pub game: u32,
    /// Sequence number of the entry to prove.
    #[arg(long)]
    pub seq: u64,
}

pub fn run(a: &ProveArgs) -> Result<Exit, Error> {
    let p = prove(&a.m.dir, a.game, a.seq)?;
    let s = serde_json::to_string_pretty(&p).map_err(Error::unreadable)?;
    println!("{s}");
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
