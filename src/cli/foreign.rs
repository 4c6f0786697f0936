//! `arbiter foreign`: the entries of a game the kit did not write in a session of the match's
//! arbiter key — shown, cut to a side file, or accepted one by one with a reason.
use chrono::Utc;
use clap::Args;

use super::{KeyArgs, MatchArg};
use crate::board::matchdir::signer_for;
use crate::error::{Error, Exit};

#[derive(Debug, Clone, Args)]
pub struct ForeignArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long)]
    pub game: Option<u32>,
    /// Move entries SEQ.. (past the seal and every signed checkpoint) to
    /// `game-N/log.jsonl.foreign-SEQ` and record the cut.
    #[arg(long, value_name = "SEQ")]
    pub cut_from: Option<u64>,
    /// Accept the remaining foreign entries, one recorded note each with this reason, signed.
    #[arg(long, value_name = "REASON")]
    pub accept: Option<String>,
    #[command(flatten)]
    pub key: KeyArgs,
}

pub fn run(a: &ForeignArgs) -> Result<Exit, Error> {
    let dir = &a.m.dir;
    let n = a.m.game_or_last(a.game)?;
    if a.accept.as_deref().is_some_and(|r| r.trim().is_empty()) {
        return Err(Error::bad_input(
            "--accept needs a reason (5b: every act is recorded with its reason)",
        ));
    }
    // The agent (`--agent`), else the key decrypted for this command and wiped at its end.
    let (signer, _) = signer_for(&a.key.source(), dir, Some(n)).map_err(Error::cannot_read)?;
    let key = signer.open_once(true).map_err(Error::cannot_read)?;
    let key = key.as_ref();
    let o = crate::record::witness::resolve_foreign(
        dir,
        n,
        key,
        a.cut_from,
        a.accept.as_deref(),
        Utc::now(),
    )
    .map_err(Error::refused)?;
    let past = o.entries.saturating_sub(o.bound);
    outln!(
        "game {n}: {} entries bound by the kit's seal or a signed checkpoint; {past} past them",
        o.bound
    )?;
    for l in &o.listed {
        outln!("  {l}")?;
    }
    if let Some((side, count)) = &o.cut {
        outln!("cut {count} entries to {} (recorded)", side.display())?;
    }
    if o.remaining == 0 && (o.accepted > 0 || o.cut.is_some()) {
        // What was just recorded is covered by a signed checkpoint now, so `verify` reads what
        // this command says (no unsigned tail left for a later `checkpoint` to close).
        let t = crate::record::journal::tally(&crate::record::layout::log_path(dir, n))
            .map_err(super::journal_failure)?;
        let p = crate::record::witness::sign_and_index_tally(dir, n, &t, key, Utc::now())
            .map_err(Error::write_failed)?;
        if o.accepted > 0 {
            outln!(
                "accepted {} entries with the reason given (recorded, signed)",
                o.accepted
            )?;
        }
        outln!("checkpoint signed: {}", p.display())?;
    }
    if o.remaining > 0 {
        outln!(
            "{} entries remain foreign: nothing is signed or appended over them until they are cut (--cut-from SEQ) or accepted (--accept REASON)",
            o.remaining
        )?;
        return Err(Error::refused(format!(
            "game {n}: {} foreign entries",
            o.remaining
        )));
    }
    Ok(Exit::Ok)
}
