//! The per-entry seal of `seal/1` logs (SHELL), read only: `verify` and the arbiter's rulings
//! on such logs read a game's seal; the kit writes no seal any more (`signed-acts/1` binds new
//! logs without one).
use std::path::{Path, PathBuf};

use crate::record::bindings::*;
use crate::record::facts::*;
use crate::record::layout;
use crate::record::sign::{self};

/// Where a game's seal lives (`game-<n>/seal`, a C2SP signed note).
pub fn seal_path(match_dir: &Path, game: u32) -> PathBuf {
    layout::game_dir(match_dir, game).join("seal")
}

/// A game's seal, checked against the arbiter key.
pub fn read_seal(
    match_dir: &Path,
    game: u32,
    key: &ssh_key::PublicKey,
    origin: &str,
) -> Result<crate::log::seal::Seal, String> {
    let p = seal_path(match_dir, game);
    let bytes = crate::record::fsio::read_match_small(&p).map_err(|e| e.to_string())?;
    sign::verify_seal(&bytes, key, origin).map_err(|e| format!("{}: {e}", p.display()))
}

/// The crashed session of a sealed log: what its ruling covers: `None` when the seal is closed (no
/// crash), or entries lie past the seal (foreign: refused elsewhere).
pub(crate) struct CrashPlan {
    pub(crate) from: u64,
    pub(crate) to: u64,
    pub(crate) named: String,
    pub(crate) count: usize,
}

pub(crate) fn crashed_plan(
    match_dir: &Path,
    game: u32,
    key: &ssh_key::PublicKey,
    origin: &str,
    allow_past: bool,
) -> Result<Option<CrashPlan>, String> {
    let log = layout::log_path(match_dir, game);
    let sealed = match read_seal(match_dir, game, key, origin) {
        Ok(s) if !s.closed => s.size,
        _ => return Ok(None),
    };
    let Some((b, _)) = binding_on_disk(match_dir, game, key).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    if b.foreign() > 0 && !allow_past {
        return Ok(None);
    }
    // Only entries inside the seal: the one in flight (written, never sealed) cannot be told
    // from one appended by anything else, so it is never authorized here, nor anything a
    // checkpoint signed past the seal.
    let written = sealed.min(b.bound);
    let mut ruled = 0;
    crate::record::journal::for_each_entry(&log, |e| {
        if e.kind == "authorization_failed" || e.kind == "authorized" {
            ruled = e.seq + 1;
        }
        true
    })
    .map_err(|e| e.to_string())?;
    let facts = log_facts_checked(&log, &[], Some((key, origin))).map_err(|e| e.to_string())?;
    let open: Vec<&(u64, String)> = facts
        .unauthorized
        .iter()
        .filter(|(s, _)| *s >= ruled && *s < written)
        .collect();
    let in_flight = facts
        .unauthorized
        .iter()
        .any(|(s, _)| b.in_flight && *s == b.bound);
    let (Some(from), Some(to)) = (open.first().map(|o| o.0), open.last().map(|o| o.0)) else {
        return Ok(in_flight.then_some(CrashPlan {
            from: 0,
            to: 0,
            named: String::new(),
            count: 0,
        }));
    };
    let named: Vec<String> = open
        .iter()
        .take(20)
        .map(|(s, k)| format!("#{s} {k}"))
        .collect();
    Ok(Some(CrashPlan {
        from,
        to,
        named: format!(
            "{}{}",
            named.join(", "),
            if open.len() > 20 { ", …" } else { "" }
        ),
        count: open.len(),
    }))
}
