//! How a game's arbiter-only entries are bound to the arbiter's key (SHELL): signed
//! `authorized` entries, the latest signed checkpoint, and `arbiter authorize`.
use std::fs;
use std::path::Path;

use crate::log::Entry;
use crate::log::checkpoint::Checkpoint;
use crate::record::facts::*;
use crate::record::index::*;
use crate::record::layout;
use crate::record::seal_v1::*;
use crate::record::sign::{self, AllowedSigner};
use crate::record::verify::raise;

/// Whether line 0 (an entry) binds a sealed log (`arbiter_key.binding` = `seal/1`).
pub fn is_sealed_log(first: &Entry) -> bool {
    first
        .body
        .pointer("/arbiter_key/binding")
        .and_then(|b| b.as_str())
        == Some(crate::log::seal::BINDING)
}

/// Whether line 0 (an entry) binds the log's acts: sealed (`seal/1`, still read) or
/// `signed-acts/1` (every arbiter-only entry covered by an authorization signed at the act).
pub fn signs_acts(first: &Entry) -> bool {
    matches!(
        first
            .body
            .pointer("/arbiter_key/binding")
            .and_then(|b| b.as_str()),
        Some(crate::log::seal::BINDING | crate::log::seal::SIGNED_ACTS)
    )
}

/// Whether an `authorized` entry carries a valid signature by `key` over what it covers.
pub fn authorization_holds(
    e: &Entry,
    key: &ssh_key::PublicKey,
    origin: &str,
) -> Result<(u64, u64), String> {
    let b = &e.body;
    let first = b
        .get("first")
        .and_then(|v| v.as_u64())
        .ok_or("no `first`")?;
    let last = b.get("last").and_then(|v| v.as_u64()).ok_or("no `last`")?;
    let named = b
        .get("key")
        .and_then(|v| v.as_str())
        .ok_or("names no key")?;
    let fp = sign::fingerprint(key);
    if named != fp {
        return Err(format!("names key {named}, not the arbiter key {fp}"));
    }
    if last >= e.seq || first > last {
        return Err(format!("covers {first}..={last}, not entries before it"));
    }
    let sig = b
        .get("sig")
        .and_then(|v| v.as_str())
        .ok_or("carries no signature")?;
    let text = crate::log::seal::authorization_text(origin, e.seq, first, last, &e.prev);
    if sign::verify_authorization(key, &text, sig) {
        Ok((first, last))
    } else {
        Err(format!("its signature by {fp} does not verify"))
    }
}

/// The latest checkpoint of a game whose signature by `key` verifies (the sizes it covers are
/// the arbiter's word).
pub fn latest_signed_checkpoint(
    match_dir: &Path,
    game: u32,
    key: &ssh_key::PublicKey,
) -> Option<Checkpoint> {
    let signers = [AllowedSigner {
        principals: vec![sign::DEFAULT_PRINCIPAL.to_owned()],
        namespaces: None,
        key: key.clone(),
    }];
    let dir = layout::checkpoints_dir(match_dir, game);
    let mut best: Option<Checkpoint> = None;
    for e in fs::read_dir(dir).ok()?.flatten() {
        let name = e.file_name();
        let Some(n) = name.to_str().and_then(|f| f.strip_suffix(".txt")) else {
            continue;
        };
        let Ok(size) = n.parse::<u64>() else { continue };
        if best.as_ref().is_some_and(|b| b.size >= size) {
            continue;
        }
        let Ok(text) = crate::record::fsio::read_match_small(&e.path()) else {
            continue;
        };
        let Ok(sig) = crate::record::fsio::read_match_small(&sig_path(&e.path())) else {
            continue;
        };
        let (Ok(text), Ok(sig)) = (String::from_utf8(text), String::from_utf8(sig)) else {
            continue;
        };
        if sign::verify_signature(&signers, text.as_bytes(), &sig).is_err() {
            continue;
        }
        if let Ok(cp) = Checkpoint::parse(&text)
            && cp.size == size
        {
            best = Some(cp);
        }
    }
    best
}

/// Entries of a game the kit may sign or append after: how far the arbiter's own word (the
/// seal, a signed checkpoint) binds the log, and what lies beyond.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// Entries bound by the seal or a signed checkpoint.
    pub bound: u64,
    /// Entries in the log.
    pub entries: u64,
    /// The one entry past the seal is the one in flight when the kit stopped (an open seal,
    /// exactly one entry more).
    pub in_flight: bool,
    /// The seal's state, in words, when it is missing or does not hold.
    pub seal_problem: Option<String>,
    /// Recovery entries (the journal's own torn-tail repairs, which change nothing) past the
    /// binding: not counted as foreign.
    pub neutral: u64,
}

impl Binding {
    /// Entries past the binding, the one in flight at a crash included: nothing tells an entry
    /// in flight from one appended by anything else, so no routine command signs or appends past
    /// it; the arbiter cuts or accepts it (`arbiter foreign`, `arbiter authorize`).
    pub fn foreign(&self) -> u64 {
        self.entries
            .saturating_sub(self.bound)
            .saturating_sub(self.neutral)
    }

    /// The words that name the first entry past the binding when it is the one in flight.
    pub fn in_flight_words(&self) -> String {
        if self.in_flight {
            format!(
                "; entry #{} was in flight at a crash (written, never bound): the arbiter accepts it with a reason or cuts it",
                self.bound
            )
        } else {
            String::new()
        }
    }
}

/// [`binding_of`] for a log on disk, read once (for `arbiter checkpoint`, which holds no
/// session): `Ok(None)` for a v1 log (no binding), else its binding and the entries past it in
/// words (at most 20). In a `signed-acts/1` log (no seal) the binding ends at the first
/// arbiter-only entry no signed authorization covers (what no routine command signs past:
/// the arbiter accepts it with a reason or cuts it), else at the log's end.
pub fn binding_on_disk(
    match_dir: &Path,
    game: u32,
    key: &ssh_key::PublicKey,
) -> Result<Option<(Binding, Vec<String>)>, crate::record::journal::JournalError> {
    let log = layout::log_path(match_dir, game);
    let first = crate::record::journal::first_entry(&log)?;
    if !signs_acts(&first) {
        return Ok(None);
    }
    let Some(mid) = first.body.get("match_id").and_then(|m| m.as_str()) else {
        return Ok(None);
    };
    let origin = crate::log::checkpoint::origin(mid, game);
    if !is_sealed_log(&first) {
        return signed_acts_binding(&log, key, &origin).map(Some);
    }
    let mut sizes = Vec::new();
    if let Ok(s) = read_seal(match_dir, game, key, &origin) {
        sizes.push(s.size);
    }
    if let Some(cp) = latest_signed_checkpoint(match_dir, game, key) {
        sizes.push(cp.size);
    }
    let from = sizes.iter().copied().min().unwrap_or(0);
    let mut heads = Vec::new();
    let mut beyond: Vec<(u64, String)> = Vec::new();
    let mut recoveries: Vec<u64> = Vec::new();
    let n = crate::record::journal::for_each_entry(&log, |e| {
        if e.kind == crate::log::RECOVERY_KIND && e.actor == "kit" {
            recoveries.push(e.seq);
        }
        if sizes.contains(&(e.seq + 1)) {
            heads.push((e.seq + 1, e.hash));
        }
        if e.seq >= from {
            if beyond.len() == 20 {
                beyond.remove(0);
            }
            beyond.push((
                e.seq,
                format!("#{} {} {} ({})", e.seq, e.actor, e.kind, e.clause),
            ));
        }
        true
    })?;
    let mut b = binding_of(match_dir, game, key, &origin, n, &|size| {
        heads
            .iter()
            .find(|h: &&(u64, [u8; 32])| h.0 == size)
            .map(|h| h.1)
    });
    b.neutral = recoveries.iter().filter(|s| **s >= b.bound).count() as u64;
    let listed = beyond
        .into_iter()
        .filter(|(s, _)| *s >= b.bound)
        .map(|(_, d)| d)
        .collect();
    Ok(Some((b, listed)))
}

/// [`binding_on_disk`] of a `signed-acts/1` log: bound up to its first unauthorized
/// arbiter-only entry.
fn signed_acts_binding(
    log: &Path,
    key: &ssh_key::PublicKey,
    origin: &str,
) -> Result<(Binding, Vec<String>), crate::record::journal::JournalError> {
    let facts = log_facts_checked(log, &[], Some((key, origin)))?;
    let bound = facts
        .unauthorized
        .iter()
        .map(|(s, _)| *s)
        .min()
        .unwrap_or(facts.entries);
    // The entries from the first unauthorized one on (the latest 20), as a sealed log's are
    // listed.
    let mut listed: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    let mut recoveries = 0;
    crate::record::journal::for_each_entry(log, |e| {
        if e.seq >= bound {
            recoveries += u64::from(e.kind == crate::log::RECOVERY_KIND && e.actor == "kit");
            if listed.len() == 20 {
                listed.pop_front();
            }
            listed.push_back(format!("#{} {} {} ({})", e.seq, e.actor, e.kind, e.clause));
        }
        true
    })?;
    let listed: Vec<String> = listed.into();
    Ok((
        Binding {
            bound,
            entries: facts.entries,
            in_flight: false,
            seal_problem: None,
            neutral: recoveries,
        },
        listed,
    ))
}

/// How far game `game`'s log is bound, given the chain heads `chain_at(size)` of the log, its
/// length `entries` and the arbiter's key.
pub fn binding_of(
    match_dir: &Path,
    game: u32,
    key: &ssh_key::PublicKey,
    origin: &str,
    entries: u64,
    chain_at: &dyn Fn(u64) -> Option<[u8; 32]>,
) -> Binding {
    let mut bound = 0;
    let mut in_flight = false;
    let mut seal_problem = None;
    match read_seal(match_dir, game, key, origin) {
        Ok(s) if s.size <= entries && chain_at(s.size) == Some(s.chain) => {
            bound = s.size;
            in_flight = !s.closed && entries == s.size + 1;
        }
        Ok(s) => {
            seal_problem = Some(format!(
                "the seal binds {} entries with chain head {}, which this log ({entries} entries) does not have: the log was cut back or rewritten",
                s.size,
                crate::log::hex32(&s.chain)
            ))
        }
        Err(e) => seal_problem = Some(format!("no valid seal ({e})")),
    }
    if let Some(cp) = latest_signed_checkpoint(match_dir, game, key)
        && cp.size > bound
        && cp.size <= entries
        && chain_at(cp.size) == Some(cp.chain)
    {
        bound = cp.size;
        in_flight = false;
    }
    Binding {
        bound,
        entries,
        in_flight,
        seal_problem,
        neutral: 0,
    }
}

/// The checks of a log that binds its acts: every arbiter-only entry covered by a signed
/// authorization; in a sealed log (`seal_v1`), the entries past the seal and every signed
/// checkpoint named too.
pub(crate) fn check_sealed(
    facts: &LogFacts,
    seal: Option<Result<crate::log::seal::Seal, String>>,
    seal_v1: bool,
    key_known: bool,
    v: &mut crate::record::verify::GameVerification,
) {
    use crate::record::verify::Status;
    if !key_known {
        v.problems.push("UNAUTHORIZED: line 0's arbiter key is not among the trusted signers: no authorization can be checked".into());
        raise(v, Status::Unauthorized);
        return;
    }
    for (seq, why) in facts.bad_authorizations.iter().take(20) {
        v.problems
            .push(format!("UNAUTHORIZED: authorized entry #{seq} {why}"));
    }
    // Entries of the unsigned tail are not judged here (the tail is never a pass, and an
    // authorization may still follow them); signed ones must be authorized.
    let unauthorized: Vec<&(u64, String)> = facts
        .unauthorized
        .iter()
        .filter(|(s, _)| *s < v.signed_entries)
        .collect();
    if !unauthorized.is_empty() {
        let named: Vec<String> = unauthorized
            .iter()
            .take(20)
            .map(|(s, k)| format!("#{s} {k}"))
            .collect();
        v.problems.push(format!(
            "UNAUTHORIZED: {} arbiter-only entr{} no valid authorization by the arbiter key covers: {}{}",
            unauthorized.len(),
            if unauthorized.len() == 1 { "y" } else { "ies" },
            named.join(", "),
            if unauthorized.len() > 20 { ", …" } else { "" }
        ));
    }
    if !unauthorized.is_empty() || !facts.bad_authorizations.is_empty() {
        raise(v, Status::Unauthorized);
    }
    if !seal_v1 {
        // signed-acts/1: no seal; the entries past the last signed checkpoint are the unsigned
        // tail the chain's verdict names (bound by the camps' live witnesses meanwhile).
        return;
    }
    let sealed_upto = match seal {
        Some(Ok(s)) if facts.chain_at(s.size) == Some(s.chain) => s.size,
        Some(Ok(s)) => {
            v.problems.push(format!(
                "SEAL: the kit's seal binds {} entries with chain head {}, which this log does not have: the log was cut back or rewritten after the kit last wrote it",
                s.size,
                crate::log::hex32(&s.chain)
            ));
            raise(v, Status::RolledBack);
            0
        }
        Some(Err(e)) => {
            v.problems.push(format!("no valid seal: {e}"));
            0
        }
        None => 0,
    };
    let bound = sealed_upto.max(v.signed_entries);
    if facts.entries > bound {
        v.problems.push(format!(
            "FOREIGN: entries #{}..#{} are bound neither by the kit's seal nor by a signed checkpoint: they were not written by the kit in a session of the arbiter key (or the last one was in flight at a crash)",
            bound,
            facts.entries - 1
        ));
        raise(v, Status::UnsignedTail);
    }
}

/// Append a signed `authorized` entry (5b) covering entries `first..=last` of `j`: the
/// authorization text (origin, the entry's own number, the range, the chain head before it)
/// signed with `key`, with who authorized (`by`) and what (`command`) in words.
pub(crate) fn append_authorization(
    j: &mut crate::record::journal::Journal,
    key: &dyn crate::record::sign::Signs,
    origin: &str,
    (first, last): (u64, u64),
    by: &str,
    command: String,
    utc: chrono::DateTime<chrono::Utc>,
) -> Result<(), String> {
    let (mono_ms, prev) = j
        .last()
        .map(|e| (e.mono_ms, crate::log::hex32(&e.hash)))
        .ok_or("the log is empty")?;
    let text = crate::log::seal::authorization_text(origin, j.len(), first, last, &prev);
    let sig = sign::sign_authorization(key, &text).map_err(|e| e.to_string())?;
    j.append(crate::log::NewEntry {
        mono_ms,
        utc,
        actor: "arbiter".into(),
        clause: "5b".into(),
        kind: "authorized".into(),
        body: serde_json::json!({
            "by": by,
            "command": command,
            "first": first,
            "last": last,
            "key": sign::fingerprint(key.public_key()),
            "sig": sig,
        }),
    })
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// The arbiter's ruling on one arbiter-only entry that stands UNAUTHORIZED: the entry
/// in flight at a crash, which nothing tells from an entry appended by anything else, so no
/// reopen authorizes it. Having checked it (and voided it at the board if it records something
/// that did not happen), the arbiter authorizes it here with the key: an `authorized` entry
/// covering exactly that entry, with the reason, signed, and the seal closed over it. Refused,
/// with nothing written, for an entry that does not exist or does not stand unauthorized, for a
/// log that is not sealed, damaged, held by a board or script, left by a crash not yet reopened,
/// or with foreign entries past the seal. Returns what was recorded, in words.
pub fn authorize_entry(
    match_dir: &Path,
    game: u32,
    key: &dyn crate::record::sign::Signs,
    seq: u64,
    reason: &str,
    utc: chrono::DateTime<chrono::Utc>,
) -> Result<String, String> {
    use crate::record::journal::Journal;
    if reason.trim().is_empty() {
        return Err(
            "give the reason for the ruling (5b: every act is recorded with its reason)".into(),
        );
    }
    let log = layout::log_path(match_dir, game);
    let first = crate::record::journal::first_entry(&log).map_err(|e| e.to_string())?;
    if !signs_acts(&first) {
        return Err(format!(
            "{}: a log of format v1 without a `binding` in line 0: its arbiter entries carry no authorization to rule on",
            log.display()
        ));
    }
    let seal_v1 = is_sealed_log(&first);
    let mid = first
        .body
        .get("match_id")
        .and_then(|m| m.as_str())
        .ok_or("line 0 binds no match id")?
        .to_owned();
    let origin = crate::log::checkpoint::origin(&mid, game);
    let binding = if seal_v1 {
        binding_on_disk(match_dir, game, key.public_key()).map_err(|e| e.to_string())?
    } else {
        // signed-acts/1: every unauthorized entry is the arbiter's to rule on, one by one.
        None
    };
    // The one entry in flight at a crash is the arbiter's to rule on, here or with `foreign`;
    // the crashed session's own sealed entries are bound with that ruling.
    let in_flight = binding
        .as_ref()
        .is_some_and(|(b, _)| b.in_flight && b.foreign() == 1 && b.bound == seq);
    let crash = if in_flight {
        crashed_plan(match_dir, game, key.public_key(), &origin, true)?.filter(|p| p.count > 0)
    } else {
        if seal_v1
            && crashed_plan(match_dir, game, key.public_key(), &origin, false)?
                .is_some_and(|p| p.count > 0)
        {
            return Err(format!(
                "game {game} was left by a crash and not reopened: its sealed entries are authorized at the reopen first (arbiter checkpoint --game {game}); nothing recorded"
            ));
        }
        None
    };
    if let Some((b, listed)) = binding
        && b.foreign() > 0
        && !in_flight
    {
        return Err(format!(
            "game {game}: entries past #{} were not written by the kit in a session of the arbiter key ({}): arbiter foreign cuts or accepts them first; nothing recorded",
            b.bound.saturating_sub(1),
            listed.join(", ")
        ));
    }
    let mut j = match Journal::open(&log) {
        Ok(j) => j,
        Err(crate::record::journal::JournalError::Locked(_)) => {
            return Err(format!(
                "game {game} is open in a board or a script: rule once it is closed; nothing recorded"
            ));
        }
        Err(e) => return Err(e.to_string()),
    };
    if let Some(d) = j.damage() {
        return Err(format!("{}: {d}; nothing recorded", log.display()));
    }
    if seq >= j.len() {
        return Err(format!(
            "there is no entry #{seq}: the log of game {game} holds #0 to #{}",
            j.len().saturating_sub(1)
        ));
    }
    let facts = log_facts_checked(&log, &[], Some((key.public_key(), &origin)))
        .map_err(|e| e.to_string())?;
    let Some((_, kind)) = facts.unauthorized.iter().find(|(s, _)| *s == seq) else {
        return Err(format!(
            "entry #{seq} of game {game} does not stand UNAUTHORIZED (it is authorized already, or not an arbiter-only entry): nothing to rule on; nothing recorded"
        ));
    };
    let mut hash = None;
    crate::record::journal::for_each_entry(&log, |e| {
        if e.seq == seq {
            hash = Some(e.hash);
        }
        e.seq < seq
    })
    .map_err(|e| e.to_string())?;
    let hash = hash.ok_or_else(|| format!("entry #{seq} was not read"))?;
    let at = j.len();
    let first = crash.as_ref().map_or(seq, |c| c.from.min(seq));
    let crashed = crash
        .as_ref()
        .map(|c| format!("; entries #{}..#{} ({}) were written by the kit in a session of this key that stopped before authorizing them", c.from, c.to, c.named))
        .unwrap_or_default();
    append_authorization(
        &mut j,
        key,
        &origin,
        (first, seq),
        "the arbiter's signing key (arbiter authorize)",
        format!(
            "entry #{seq} ({kind}, E={}) stood UNAUTHORIZED; checked and authorized by the arbiter: {reason}{crashed}",
            crate::log::hex32(&hash)
        ),
        utc,
    )?;
    Ok(format!(
        "entry #{seq} ({kind}) of game {game} authorized by the arbiter (recorded as entry #{at}, signed): {reason}"
    ))
}
