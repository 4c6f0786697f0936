//! `arbiter authorize`: the arbiter's ruling on one arbiter-only entry that stands UNAUTHORIZED
//! (the entry in flight at a crash): checked, it is authorized with the arbiter's key,
//! recorded with the reason, signed (a checkpoint and the index), so `verify` reads it.
use chrono::Utc;
use clap::Args;

use super::{KeyArgs, MatchArg};
use crate::board::matchdir::signer_for;
use crate::error::{Error, Exit};

#[derive(Debug, Clone, Args)]
pub struct AuthorizeArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long, value_parser = super::game_number)]
    pub game: Option<u32>,
    /// The entry the arbiter rules on (its number in the log, as `verify` names it).
    #[arg(long, value_name = "SEQ")]
    pub entry: u64,
    /// Why the arbiter authorizes it (recorded).
    #[arg(long, value_name = "REASON")]
    pub reason: String,
    #[command(flatten)]
    pub key: KeyArgs,
}

pub fn run(a: &AuthorizeArgs) -> Result<Exit, Error> {
    let dir = &a.m.dir;
    let n = a.m.game_or_last(a.game)?;
    if a.reason.trim().is_empty() {
        return Err(Error::bad_input(
            "--reason needs a reason (5b: every act is recorded with its reason)",
        ));
    }
    // The agent (`--agent`), else the key decrypted for this command and wiped at its end.
    let (signer, _) = signer_for(&a.key.source(), dir, Some(n)).map_err(Error::cannot_read)?;
    let key = signer.open_once(true).map_err(Error::cannot_read)?;
    let key = key.as_ref();
    let said = crate::record::witness::authorize_entry(dir, n, key, a.entry, &a.reason, Utc::now())
        .map_err(Error::refused)?;
    outln!("{said}")?;
    // What was just recorded is covered by a signed checkpoint, so `verify` reads what this
    // command says.
    let t = crate::record::journal::tally(&crate::record::layout::log_path(dir, n))
        .map_err(super::journal_failure)?;
    let p = crate::record::witness::sign_and_index_tally(dir, n, &t, key, Utc::now())
        .map_err(Error::write_failed)?;
    outln!("checkpoint signed: {}", p.display())?;
    Ok(Exit::Ok)
}
