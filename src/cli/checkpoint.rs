//! `arbiter checkpoint`: sign a checkpoint of a game log now.
use chrono::Utc;
use clap::Args;

use super::{KeyArgs, MatchArg};
use crate::error::{Error, Exit};
use crate::journal::tally;
use crate::layout;
use crate::matchdir::arbiter_key;

#[derive(Debug, Clone, Args)]
pub struct CheckpointArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long, value_parser = super::game_number)]
    pub game: Option<u32>,
    #[command(flatten)]
    pub key: KeyArgs,
}

pub fn run(a: &CheckpointArgs) -> Result<Exit, Error> {
    let dir = &a.m.dir;
    let n = a.m.game_or_last(a.game)?;
    let t = tally(&layout::log_path(dir, n)).map_err(super::journal_failure)?;
    let (key, _) = arbiter_key(&a.key.source(), dir).map_err(Error::cannot_read)?;
    let p = crate::witness::sign_and_index_tally(dir, n, &t, &key, Utc::now())
        .map_err(Error::write_failed)?;
    outln!("{}", p.display())?;
    Ok(Exit::Ok)
}
