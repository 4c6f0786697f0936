//! The per-entry seal of `seal/1` logs (SHELL): reading a game's seal for `verify`, and the
//! session paths that write it.
use std::path::{Path, PathBuf};

use ssh_key::PrivateKey;

use crate::record::bindings::*;
use crate::record::facts::*;
use crate::record::journal::write_atomic;
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

/// Write a game's seal (atomically) with the session's key.
pub fn write_seal(
    match_dir: &Path,
    game: u32,
    key: &PrivateKey,
    seal: &crate::log::seal::Seal,
) -> Result<(), String> {
    let note = sign::sign_seal(key, seal).map_err(|e| e.to_string())?;
    let p = seal_path(match_dir, game);
    write_atomic(&p, note.as_bytes()).map_err(|e| format!("{}: {e}", p.display()))
}

/// After a crash of a kit session of the match's key (its seal left `open`), the arbiter-only
/// entries that session wrote (inside the seal, or the one entry in flight) and never got to
/// authorize — a `script` authorizes at its end, the board after each command — are authorized
/// now by `key`, with the reason recorded, and the seal is closed over them. Entries the kit did
/// not write in a session of the key (past the seal: foreign) are never touched here, nor those
/// a session already ruled on (before its last `authorization_failed` or `authorized`).
/// `Ok(Some(words))` says what was recorded; `Ok(None)`: nothing to do.
pub fn authorize_crashed_session(
    match_dir: &Path,
    game: u32,
    key: &PrivateKey,
    utc: chrono::DateTime<chrono::Utc>,
) -> Result<Option<String>, String> {
    use crate::record::journal::Journal;
    let log = layout::log_path(match_dir, game);
    let first = crate::record::journal::first_entry(&log).map_err(|e| e.to_string())?;
    if !is_sealed_log(&first) {
        return Ok(None);
    }
    let Some(mid) = first.body.get("match_id").and_then(|m| m.as_str()) else {
        return Ok(None);
    };
    let origin = crate::log::checkpoint::origin(mid, game);
    // Read first (nothing is opened for writing when there is nothing to do), then again under
    // the game's lock: a session still running (its seal open too) holds it, and nothing read
    // changes while this one holds it.
    match crashed_plan(match_dir, game, key.public_key(), &origin, false) {
        Ok(Some(p)) if p.count > 0 => {}
        Ok(p) => return Ok(p.map(|p| format!("after a crash{}", p.in_flight))),
        // A torn last line (a power cut mid-write): the open below cuts it to its side file
        // (a recovery entry), then the log is read again.
        Err(_) => {}
    }
    let mut j = match Journal::open(&log) {
        Ok(j) => j,
        Err(crate::record::journal::JournalError::Locked(_)) => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if j.damage().is_some() {
        return Ok(None);
    }
    let Some(CrashPlan {
        from,
        to,
        named,
        count,
        in_flight,
    }) = crashed_plan(match_dir, game, key.public_key(), &origin, false)?.filter(|p| p.count > 0)
    else {
        return Ok(None);
    };
    let Some(last) = j.last().cloned() else {
        return Ok(None);
    };
    let seq = j.len();
    // The signature covers the sealed entries only: the one in flight (the last, past the seal)
    // stands unauthorized, as the words below say (it used to be covered all the same).
    let covered = if in_flight.is_empty() {
        last.seq
    } else {
        last.seq.saturating_sub(1).max(to)
    };
    append_authorization(
        &mut j,
        key,
        &origin,
        (from, covered),
        "the arbiter's signing key, at the reopen after a crash",
        format!(
            "entries #{from}..#{to} ({named}) were written by the kit in a session of this key (its seal, left open) that stopped before authorizing them: authorized at the reopen"
        ),
        utc,
    )?;
    close_seal_over(match_dir, game, key, origin, &j)?;
    Ok(Some(format!(
        "after a crash: {} arbiter-only entr{} written by the kit in a session of the arbiter key but never authorized ({named}) {} authorized now with the arbiter key (recorded as entry #{seq}){in_flight}",
        count,
        if count == 1 { "y" } else { "ies" },
        if count == 1 { "is" } else { "are" },
    )))
}

/// Close game `game`'s seal over every entry of `j` (signed with `key`): what the kit writes
/// after an append it made in a session of the key.
pub(crate) fn close_seal_over(
    match_dir: &Path,
    game: u32,
    key: &PrivateKey,
    origin: String,
    j: &crate::record::journal::Journal,
) -> Result<(), String> {
    let Some(head) = j.last() else {
        return Ok(());
    };
    let seal = crate::log::seal::Seal {
        origin,
        size: j.len(),
        chain: head.hash,
        closed: true,
    };
    write_seal(match_dir, game, key, &seal)
}

/// What [`authorize_crashed_session`] would authorize: `None` when the seal is closed (no
/// crash), or entries lie past the seal (foreign: refused elsewhere).
pub(crate) struct CrashPlan {
    pub(crate) from: u64,
    pub(crate) to: u64,
    pub(crate) named: String,
    pub(crate) count: usize,
    pub(crate) in_flight: String,
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
        .find(|(s, _)| b.in_flight && *s == b.bound)
        .map(|(s, k)| {
            format!(
                "; entry #{s} {k}, in flight at the crash (written, never sealed), stands UNAUTHORIZED: nothing tells it from an entry appended by anything else; check it, the arbiter rules on it (arbiter authorize --game {game} --entry {s} --reason REASON)"
            )
        })
        .unwrap_or_default();
    let (Some(from), Some(to)) = (open.first().map(|o| o.0), open.last().map(|o| o.0)) else {
        return Ok((!in_flight.is_empty()).then_some(CrashPlan {
            from: 0,
            to: 0,
            named: String::new(),
            count: 0,
            in_flight,
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
        in_flight,
    }))
}
