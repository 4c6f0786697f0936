//! `arbiter checkpoint`: sign a checkpoint of a game log now.
use chrono::Utc;
use clap::Args;

use super::{KeyArgs, MatchArg};
use crate::board::matchdir::arbiter_key_for;
use crate::error::{Error, Exit};
use crate::record::journal::tally;
use crate::record::layout;

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
    let (key, _) = arbiter_key_for(&a.key.source(), dir, Some(n)).map_err(Error::cannot_read)?;
    // A crashed session's unauthorized entries are authorized first (recorded, said).
    if let Some(said) = crate::record::witness::authorize_crashed_session(dir, n, &key, Utc::now())
        .map_err(Error::write_failed)?
    {
        super::warn(said);
    }
    // A game the match policy does not hold (its binding removed, another match's, its camps
    // left out) is never signed: the index would name it.
    let refused = crate::record::witness::policy_refusals(dir, n);
    if !refused.is_empty() {
        return Err(Error::refused(format!(
            "game {n} does not hold to the match policy ({}): {}; no checkpoint is signed",
            crate::record::witness::policy_path(dir).display(),
            refused.join("; ")
        )));
    }
    let t = tally(&layout::log_path(dir, n)).map_err(super::journal_failure)?;
    // Never sign entries the kit did not write in a session of this key.
    if let Some((b, listed)) = crate::record::witness::binding_on_disk(dir, n, key.public_key())
        .map_err(super::journal_failure)?
        && b.foreign() > 0
    {
        return Err(Error::refused(format!(
            "game {n}: {} entries past #{} were not written by this kit in a session of the match's arbiter key{}: {}{}; no checkpoint is signed over them. Have them cut to a side file or accepted one by one with a reason: arbiter foreign --match {} --game {n} [--cut-from SEQ] [--accept REASON]",
            b.entries - b.bound,
            b.bound.saturating_sub(1),
            b.seal_problem
                .as_deref()
                .map(|p| format!(" ({p})"))
                .unwrap_or_default(),
            listed.join(", "),
            b.in_flight_words(),
            dir.display()
        )));
    }
    let p = crate::record::witness::sign_and_index_tally(dir, n, &t, &key, Utc::now())
        .map_err(Error::write_failed)?;
    outln!("{}", p.display())?;
    Ok(Exit::Ok)
}
