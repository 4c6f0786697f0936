//! `arbiter checkpoint`: sign a checkpoint of a game log now.
use chrono::Utc;
use clap::Args;

use super::{KeyArgs, MatchArg};
use crate::board::matchdir::signer_for;
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
    // The key is read, not decrypted, until everything is checked; it is decrypted to sign and
    // wiped. A checkpoint authorizes nothing: an arbiter-only entry no signed authorization
    // covers stays the arbiter's to rule on (`authorize`, `foreign`), however often this runs.
    let (key, _) = signer_for(&a.key.source(), dir, Some(n)).map_err(Error::cannot_read)?;
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
    // Never sign past an entry the arbiter's word does not bind: in a sealed log one the kit did
    // not write in a session of this key, in a signed-acts log an unauthorized arbiter-only one.
    if let Some((b, listed)) = crate::record::witness::binding_on_disk(dir, n, key.public())
        .map_err(super::journal_failure)?
        && b.foreign() > 0
    {
        return Err(Error::refused(format!(
            "game {n}: {} entries past #{} are not bound by the arbiter's word (not written by this kit in a session of the match's arbiter key, or an arbiter-only entry no signed authorization covers){}: {}{}; no checkpoint is signed over them. Have them cut to a side file or accepted one by one with a reason: arbiter foreign --match {} --game {n} [--cut-from SEQ] [--accept REASON], or arbiter authorize --entry SEQ --reason REASON",
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
    let p = key
        .sign_with(None, true, |key| {
            crate::record::witness::sign_and_index_tally(dir, n, &t, key, Utc::now())
        })
        .map_err(Error::cannot_read)?
        .map_err(Error::write_failed)?;
    outln!("{}", p.display())?;
    Ok(Exit::Ok)
}
