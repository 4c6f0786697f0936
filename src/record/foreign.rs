//! `arbiter foreign` (SHELL): entries the kit did not write in a session of the match's key,
//! shown, cut to a side file or accepted by the arbiter.
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::log::Entry;
use crate::record::bindings::*;
use crate::record::layout;
use crate::record::seal_v1::*;

/// What `arbiter foreign` found and did.
#[derive(Debug, Clone, Default)]
pub struct ForeignOutcome {
    /// Entries bound by the seal or a signed checkpoint, and in the log, before anything was done.
    pub bound: u64,
    pub entries: u64,
    /// The entries past the binding, in words (at most 20).
    pub listed: Vec<String>,
    /// The side file the cut entries went to, and how many.
    pub cut: Option<(PathBuf, u64)>,
    /// Entries accepted with the reason (one `note` each, then one signed `authorized`).
    pub accepted: u64,
    /// Entries still foreign afterwards.
    pub remaining: u64,
}

/// The byte offset of entry `seq` in the log at `log`, read line by line up to it.
pub(crate) fn entry_offset(log: &Path, seq: u64) -> Result<u64, String> {
    let mut at = None;
    crate::record::journal::for_each_entry(log, |e| {
        if e.seq == seq {
            at = Some(e.offset);
        }
        at.is_none()
    })
    .map_err(|e| e.to_string())?;
    at.ok_or_else(|| format!("{}: no entry #{seq}", log.display()))
}

/// `arbiter foreign`: show the entries of game `game` that the kit did not write in a session of
/// the match's key; with `cut_from`, move entries `cut_from..` to `log.jsonl.foreign-<seq>` and
/// record the cut (a `recovery` entry naming the side file, its length and SHA-256); with
/// `accept`, record each remaining one as accepted by the arbiter with the reason (a `note`
/// each) and sign the acceptance (`authorized`, covering them). The seal then binds the log.
pub fn resolve_foreign(
    match_dir: &Path,
    game: u32,
    key: &dyn crate::record::sign::Signs,
    cut_from: Option<u64>,
    accept: Option<&str>,
    utc: chrono::DateTime<chrono::Utc>,
) -> Result<ForeignOutcome, String> {
    use crate::log::NewEntry;
    use crate::record::journal::Journal;
    let log = layout::log_path(match_dir, game);
    let Some((b, listed)) =
        binding_on_disk(match_dir, game, key.public_key()).map_err(|e| e.to_string())?
    else {
        return Err(format!(
            "{}: a log of format v1 without a `binding` in line 0: no authorization to hold entries against",
            log.display()
        ));
    };
    let mut out = ForeignOutcome {
        bound: b.bound,
        entries: b.entries,
        listed,
        ..ForeignOutcome::default()
    };
    let first = crate::record::journal::first_entry(&log).map_err(|e| e.to_string())?;
    let mid = first
        .body
        .get("match_id")
        .and_then(|m| m.as_str())
        .ok_or("line 0 binds no match id")?
        .to_owned();
    let origin = crate::log::checkpoint::origin(&mid, game);
    // The crashed session's own sealed entries, never authorized (its seal left open): bound
    // with the ruling, since the seal is closed after it.
    let crash =
        crashed_plan(match_dir, game, key.public_key(), &origin, true)?.filter(|p| p.count > 0);
    let mut j = Journal::open(&log).map_err(|e| e.to_string())?;
    if let Some(from) = cut_from {
        if from < b.bound || from >= j.len() {
            return Err(format!(
                "--cut-from {from}: only entries past the binding (#{} to #{}) can be cut",
                b.bound,
                j.len().saturating_sub(1)
            ));
        }
        let at = entry_offset(&log, from)?;
        let side = log.with_file_name(format!("log.jsonl.foreign-{from}"));
        let cut = crate::record::journal::copy_tail_to_new_file(&log, at, &side)
            .map_err(|e| format!("{}: {e}", side.display()))?;
        drop(j);
        let f = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&log)
            .map_err(|e| format!("{}: {e}", log.display()))?;
        f.set_len(at)
            .and_then(|()| f.sync_all())
            .map_err(|e| format!("{}: {e}", log.display()))?;
        drop(f);
        j = Journal::open(&log).map_err(|e| e.to_string())?;
        let mono = j.last().map_or(0, |e| e.mono_ms);
        j.append(NewEntry {
            mono_ms: mono,
            utc,
            actor: "kit".into(),
            clause: "5b".into(),
            kind: crate::log::RECOVERY_KIND.into(),
            body: serde_json::json!({
                "offset": at,
                "length": cut.len,
                "sha256": hex::encode(cut.sha256),
                "side_file": side.file_name().map(|n| n.to_string_lossy().into_owned()),
                "why": format!("{} entries not written by the kit in a session of the arbiter key, cut by the arbiter", cut.lines),
            }),
        })
        .map_err(|e| e.to_string())?;
        out.cut = Some((side, cut.lines));
    }
    // The foreign entries are read from the file one at a time (twice when accepted: counted,
    // then each recorded), never held together.
    let end = j.len();
    let is_foreign =
        |e: &Entry| e.seq >= b.bound && !(e.kind == crate::log::RECOVERY_KIND && e.actor == "kit");
    let mut foreign = 0u64;
    crate::record::journal::for_each_entry(&log, |e| {
        foreign += u64::from(e.seq < end && is_foreign(&e));
        e.seq + 1 < end
    })
    .map_err(|e| e.to_string())?;
    if let Some(reason) = accept.filter(|_| foreign > 0) {
        // A line whose body does not decode as an event would wedge every reader of the game:
        // it is cut, never accepted.
        let mut undecodable = None;
        crate::record::journal::for_each_entry(&log, |e| {
            if e.seq < end
                && is_foreign(&e)
                && let Err(why) = crate::log::codec::event_of(&e)
            {
                undecodable = Some((e.seq, why.to_string()));
                return false;
            }
            e.seq + 1 < end
        })
        .map_err(|e| e.to_string())?;
        if let Some((seq, why)) = undecodable {
            return Err(format!(
                "entry #{seq} does not decode as an entry of its kind ({why}): it cannot be accepted, only cut to a side file: arbiter foreign --match {} --game {game} --cut-from {seq}; nothing recorded",
                match_dir.display()
            ));
        }
        let mono = j.last().map_or(0, |e| e.mono_ms);
        let from = j.len();
        let mut failed = None;
        // The notes are appended past `end` while the entries before it are read.
        crate::record::journal::for_each_entry(&log, |e| {
            if e.seq >= end {
                return false;
            }
            if is_foreign(&e)
                && let Err(err) = j.append(NewEntry {
                    mono_ms: mono,
                    utc,
                    actor: "arbiter".into(),
                    clause: "1".into(),
                    kind: "note".into(),
                    body: serde_json::json!({"text": format!(
                        "entry #{} ({} {} {}, E={}) was not written by the kit in a session of the arbiter key; accepted by the arbiter: {reason}",
                        e.seq, e.actor, e.kind, e.clause, crate::log::hex32(&e.hash)
                    )}),
                })
            {
                failed = Some(err.to_string());
                return false;
            }
            e.seq + 1 < end
        })
        .map_err(|e| e.to_string())?;
        if let Some(err) = failed {
            return Err(err);
        }
        let last = j.len() - 1;
        let first = crash.as_ref().map_or(b.bound, |c| c.from.min(b.bound));
        let crashed = crash
            .as_ref()
            .map(|c| format!("; entries #{}..#{} ({}) were written by the kit in a session of this key that stopped before authorizing them", c.from, c.to, c.named))
            .unwrap_or_default();
        append_authorization(
            &mut j,
            key,
            &origin,
            (first, last),
            "the arbiter's signing key (arbiter foreign --accept)",
            format!(
                "accept foreign entries #{}..#{}: {reason}{crashed}",
                b.bound,
                from - 1
            ),
            utc,
        )?;
        out.accepted = foreign;
    } else {
        out.remaining = foreign;
        if foreign == 0
            && let Some(c) = &crash
        {
            append_authorization(
                &mut j,
                key,
                &origin,
                (c.from, c.to),
                "the arbiter's signing key, at the reopen after a crash",
                format!(
                    "entries #{}..#{} ({}) were written by the kit in a session of this key (its seal, left open) that stopped before authorizing them: authorized once what followed them was cut",
                    c.from, c.to, c.named
                ),
                utc,
            )?;
        }
    }
    Ok(out)
}
