//! A match folder on disk: games opened or created with their journal and the arbiter's key, the
//! restart after a crash, and checkpoint signing at the moments the rules make important.
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use zeroize::Zeroizing;

use crate::board::session::{
    LoadProfileError, OnAppend, Session, Storage, StorageError, StorageStatus, load_profile,
};
use crate::core::event::{
    Algorithm, Declarations, Event, EventKind, KeyRef, PlayerKind, ProfileRef,
};
use crate::core::game::{Game, GameContext, MatchHistory, Phase, ReplayError};
use crate::core::{Ms, Side, timefmt};
use crate::log::Entry;
use crate::log::codec::{DecodeError, event_of, events_of, new_entry};
use crate::record::journal::{Journal, JournalError};
use crate::record::layout::{self, games, log_path, match_id};
use crate::record::sign::{self, KeySource, SignError};

pub mod beat;
mod pipe;

/// Event kinds after which a checkpoint is signed: clock corrections, draw-offer decisions,
/// breaks (their start and end), results, and the archive of rule 13.
pub fn signs_checkpoint(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::ClockCorrected { .. }
            | EventKind::InternalClockCorrected { .. }
            | EventKind::WrongMove { .. }
            | EventKind::RestartGap { .. }
            | EventKind::MovesTakenBack { .. }
            | EventKind::DrawDeclined { .. }
            | EventKind::ConsultationEnded { .. }
            | EventKind::ParameterDecided { .. }
            | EventKind::ClockStopped { .. }
            | EventKind::ClockResumed { .. }
            | EventKind::InfoStopped { .. }
            | EventKind::InfoResumed
            | EventKind::Adjourned { .. }
            | EventKind::AdjournmentResumed { .. }
            | EventKind::TechnicalProblem { .. }
            | EventKind::TechnicalResolved { .. }
            | EventKind::PowerFailed { .. }
            | EventKind::PowerRestored { .. }
            | EventKind::GameEnded { .. }
            | EventKind::EngineLogArchived(_)
            | EventKind::ProgramArchived(_)
    )
}

/// The game log as a session's storage: the journal is created with line 0 (`game_opened`).
pub struct JournalStorage {
    pub match_dir: PathBuf,
    pub game: u32,
    pub match_id: String,
    pub path: PathBuf,
    pub journal: Option<Journal>,
    /// The arbiter's key as the session keeps it: its file and public half, never decrypted
    /// between two signatures ([`sign::SessionKey::sign_with`]).
    pub signer: Option<sign::SessionKey>,
    /// The key opened with the passphrase the arbiter typed for the act being recorded
    /// ([`Storage::arm`]): the act's authorization, the checkpoint it signs and a heartbeat
    /// anchor are signed with it, and it is dropped (wiped) when the act is recorded — within
    /// the one key press that recorded it. `None` at every other moment.
    pub armed: Option<sign::ActKey>,
    /// Whether a signature may ask the passphrase on the terminal (a script's; never the
    /// Board UI's, whose terminal is the board).
    pub may_ask: bool,
    pub signed_upto: Option<usize>,
    /// The short code of that checkpoint (shown on the Board UI for the camps' scoresheets).
    pub signed_code: Option<String>,
    pub warning: Option<String>,
    /// Called after every durable append (script mode's `--echo`).
    pub on_append: Option<OnAppend>,
    /// The log binds its acts (`signed-acts/1`): line 0 names the binding and the match
    /// policy, each `authorized` entry carries the key's fingerprint and signature, and the
    /// heartbeat is v2. Nothing else is written per entry: one write and one fdatasync.
    pub sealed: bool,
    /// `game-<n>/heartbeat` and this session's hash chain (heartbeat v2), made at the first
    /// beat: the file is kept open (an open, a write and a close each second), opened
    /// again when it was removed or replaced. `None` to start with.
    pub beat_file: Option<beat::BeatFile>,
    /// The camps' countersignatures as last read, with the checkpoints folder's modification
    /// time then: the status the board asks for every second reads the folder again only when
    /// it changed (one stat instead of a listing). `Default` to start with.
    pub countersigned_seen: std::cell::RefCell<Option<CountersignedSeen>>,
    /// The camps that countersigned the match index in force, with the modification times of
    /// the index and of its kept copies' folder then (read again only when one moved).
    pub index_seen: std::cell::RefCell<Option<IndexSeen>>,
    /// This session's checkpoints folder holds no leftover of an interrupted signing (swept at
    /// its first checkpoint). `false` to start with.
    pub checkpoints_swept: bool,
    /// The match policy has the camps witness live every N entries (`witness <camp> every
    /// <N>`): a checkpoint is signed whenever N entries were recorded since the last one, so
    /// that each camp's witness can cosign every interval. `None`: no such policy.
    pub witness_every: Option<u64>,
    /// Under that policy, the entry count at which a due checkpoint could not be written (a
    /// full disk): it is tried again at each entry until one is signed. `None`: none owed.
    pub checkpoint_owed: Option<u64>,
}

/// The index's and the kept copies' folder's modification times, and the camps that
/// countersigned the index in force.
pub type IndexSeen = (
    Option<std::time::SystemTime>,
    Option<std::time::SystemTime>,
    Vec<String>,
);

/// The checkpoints folder's modification time and each camp's latest countersigned checkpoint.
pub type CountersignedSeen = (std::time::SystemTime, Vec<(String, u64)>);

impl JournalStorage {
    /// [`crate::record::witness::countersigned_upto`], read again only when the checkpoints folder's
    /// modification time moved (a countersignature file added or removed).
    fn countersigned(&self) -> Vec<(String, u64)> {
        let dir = crate::record::layout::checkpoints_dir(&self.match_dir, self.game);
        let Ok(mtime) = std::fs::metadata(&dir).and_then(|m| m.modified()) else {
            return Vec::new();
        };
        let mut seen = self.countersigned_seen.borrow_mut();
        if let Some((at, list)) = seen.as_ref()
            && *at == mtime
        {
            return list.clone();
        }
        let list = crate::record::witness::countersigned_upto(&self.match_dir, self.game);
        // A time still within the file system's granularity of now could be shared by a change
        // yet to come: kept only once it is a second old.
        let settled = std::time::SystemTime::now()
            .duration_since(mtime)
            .is_ok_and(|d| d >= std::time::Duration::from_secs(1));
        *seen = settled.then(|| (mtime, list.clone()));
        list
    }

    /// The camps whose countersignature of the match index in force is kept beside it, when
    /// that index lists this game (an older index does not count for this game's result).
    fn index_countersigned(&self) -> Vec<String> {
        let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        let index = crate::record::witness::index_path(&self.match_dir);
        let kept = crate::record::witness::kept_index_dir(&self.match_dir);
        let (a, b) = (mtime(&index), mtime(&kept));
        let mut seen = self.index_seen.borrow_mut();
        if let Some((x, y, list)) = seen.as_ref()
            && (*x, *y) == (a, b)
            && a.is_some()
        {
            return list.clone();
        }
        let list = match crate::record::witness::index_in_force(&self.match_dir) {
            Some(i) if i.games.iter().any(|g| g.game == self.game) => {
                let prefix = format!("{}.txt.cosig-", i.version);
                let mut camps: Vec<String> = std::fs::read_dir(&kept)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .filter_map(|e| {
                        e.file_name()
                            .to_str()
                            .and_then(|n| n.strip_prefix(&prefix))
                            .map(str::to_owned)
                    })
                    .collect();
                camps.sort();
                camps
            }
            _ => Vec::new(),
        };
        let settled = [a, b].into_iter().flatten().all(|t| {
            std::time::SystemTime::now()
                .duration_since(t)
                .is_ok_and(|d| d >= std::time::Duration::from_secs(1))
        });
        *seen = settled.then(|| (a, b, list.clone()));
        list
    }

    fn origin(&self) -> String {
        crate::log::checkpoint::origin(&self.match_id, self.game)
    }

    /// Use the arbiter's key once ([`sign::SessionKey::sign_with`]): with the passphrase armed for
    /// the act, else the environment's (a rehearsal), else (a script) asked on the terminal.
    pub fn sign_with<T>(&self, f: impl FnOnce(&dyn sign::Signs) -> T) -> Result<T, StorageError> {
        let signer = self.signer.as_ref().ok_or(StorageError::NoKey)?;
        Ok(signer.sign_with_act(self.armed.as_ref(), self.may_ask, f)?)
    }

    /// An anchor's signature, when the key can sign without asking anything.
    fn sign_anchor(&self, text: &str) -> Option<String> {
        if !self.can_sign() {
            return None;
        }
        self.sign_with(|k| sign::sign_authorization(k, text).ok())
            .ok()
            .flatten()
    }

    /// Sign the heartbeat's anchor now (at game time `now`) when the chain in use has less
    /// than half its length to run (or there is none), so that the beats of the hours to come
    /// need no key.
    pub fn prepare_anchor(&mut self, now: Ms, utc: DateTime<Utc>) {
        if !self.sealed || self.signer.is_none() {
            return;
        }
        let origin = self.origin();
        let mut w = self.beat_file.take().unwrap_or_default();
        let (boot_id, boottime_ms) = boot_clock();
        let t = beat::BeatTimes {
            boot_id,
            boottime_ms,
            mono_ms: now,
            utc: &utc,
        };
        w.beater.prepare(&origin, t, &|text| self.sign_anchor(text));
        self.beat_file = Some(w);
    }

    /// Whether a signature can be made now without asking anything.
    pub fn can_sign(&self) -> bool {
        self.signer
            .as_ref()
            .is_some_and(|s| self.armed.is_some() || s.at_hand())
    }

    /// The fields a log that binds its acts adds to an entry's body before it is written: the
    /// binding and the policy in line 0, the key and signature of an `authorized` entry. The
    /// key is decrypted for that signature only.
    fn bind(&self, e: &Event, ne: &mut crate::log::NewEntry) -> Result<(), StorageError> {
        if !self.sealed {
            return Ok(());
        }
        match (&self.journal, &e.kind) {
            (None, EventKind::GameOpened(_)) => {
                // The match policy this game is held to (written and signed now for the match's
                // first game under one), named by its digest.
                let policy = match self.signer.as_ref() {
                    Some(signer) => Some(
                        crate::record::witness::ensure_policy(
                            &self.match_dir,
                            self.game,
                            signer.public(),
                            signer.demo() || signer.from_env(),
                            &|text| {
                                self.sign_with(|k| sign::sign_policy(k, text))
                                    .map_err(|e| e.to_string())?
                            },
                            &ne.body,
                        )
                        .map_err(StorageError::Unbound)?,
                    ),
                    None => None,
                };
                if let Some(k) = ne
                    .body
                    .get_mut("arbiter_key")
                    .and_then(|k| k.as_object_mut())
                {
                    k.insert(
                        "binding".into(),
                        serde_json::Value::String(crate::log::seal::SIGNED_ACTS.into()),
                    );
                    if let Some(p) = policy {
                        k.insert("policy".into(), serde_json::Value::String(p));
                    }
                }
            }
            (Some(j), EventKind::Authorized { first, last, .. }) => {
                let (Some(signer), Some(prev)) = (self.signer.as_ref(), j.last()) else {
                    return Ok(());
                };
                let fingerprint = sign::fingerprint(signer.public());
                let text = crate::log::seal::authorization_text(
                    &self.origin(),
                    j.len(),
                    *first,
                    *last,
                    &crate::log::hex32(&prev.hash),
                );
                let sig = self
                    .sign_with(|k| sign::sign_authorization(k, &text))?
                    .map_err(|e| StorageError::Unbound(e.to_string()))?;
                if let Some(b) = ne.body.as_object_mut() {
                    b.insert("key".into(), serde_json::Value::String(fingerprint));
                    b.insert("sig".into(), serde_json::Value::String(sig));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

impl JournalStorage {
    /// Whether the policy's live-witness interval is reached: N entries recorded since the last
    /// checkpoint signed (since entry 0 when none is).
    fn witness_due(&self) -> bool {
        self.witness_every.is_some_and(|n| {
            let since = self.len().saturating_sub(self.signed_upto.unwrap_or(0));
            since as u64 >= n || self.checkpoint_owed.is_some()
        })
    }

    /// The interval's checkpoint that could not be written (`err`): owed from now, tried
    /// again at each entry, and said on the status line (⚠) until one is signed.
    fn checkpoint_failed(&mut self, err: &StorageError) {
        let every = self.witness_every.unwrap_or(0);
        let from = self.signed_upto.unwrap_or(0);
        let owed = *self.checkpoint_owed.get_or_insert(self.len() as u64);
        self.warning = Some(format!(
            "CHECKPOINT NOT SIGNED: {err}; the camps witness live every {every} entries, and entries #{from}..#{} await a checkpoint (owed since entry #{owed}): the kit tries again at each entry; free space on the disk",
            self.len().saturating_sub(1)
        ));
    }

    /// A checkpoint signed over `from..len` after one was owed: the stretch is the kit's gap when
    /// longer than the interval (`verify` names it so), said once on the status line.
    fn checkpoint_paid(&mut self, from: usize) {
        let Some(owed) = self.checkpoint_owed.take() else {
            return;
        };
        let every = self.witness_every.unwrap_or(0);
        let to = self.len();
        let stretch = to.saturating_sub(from) as u64;
        self.warning = (stretch > every).then(|| format!(
            "checkpoint signed again over entries #{from}..#{} (owed since entry #{owed}): {stretch} entries since the one before, more than the {every} the match policy allows; verify names the stretch as the kit's gap, not the camps'",
            to.saturating_sub(1),
        ));
    }

    /// Sign a checkpoint over everything recorded so far.
    pub fn checkpoint(&mut self, now: DateTime<Utc>) -> Result<PathBuf, StorageError> {
        let j = self.journal.as_ref().ok_or(StorageError::NothingRecorded)?;
        // The folder's leftovers of an interrupted signing are swept at this session's first
        // checkpoint (and again after one that failed): only this session signs this game's
        // checkpoints meanwhile, so a checkpoint costs the same at the ten-thousandth as at the
        // first (no listing of the folder).
        let sweep = !self.checkpoints_swept;
        self.checkpoints_swept = false;
        let p = self.sign_with(|key| {
            crate::record::witness::sign_and_index_tally_swept(
                &self.match_dir,
                self.game,
                j.tally(),
                key,
                now,
                sweep,
            )
        })??;
        self.checkpoints_swept = true;
        self.signed_upto = Some(j.len() as usize);
        // The checkpoint just signed is the latest: its code from the tree head signed.
        self.signed_code = j
            .tally()
            .head()
            .map(|h| crate::log::checkpoint::ShortCode::of(h.size, &h.root).to_string());
        Ok(p)
    }
}

impl Storage for JournalStorage {
    fn append(&mut self, e: &Event, utc: DateTime<Utc>) -> Result<(), StorageError> {
        // UTC never runs backwards in a log: an entry is never stamped before the one it follows
        // (a script that stamped the future, a wall clock set back, a reopening).
        let utc = match self.journal.as_ref().and_then(|j| j.last()) {
            Some(last) => DateTime::parse_from_rfc3339(&last.utc)
                .map(|t| t.with_timezone(&Utc))
                .map_or(utc, |t| utc.max(t)),
            None => utc,
        };
        let mut ne = new_entry(e, utc);
        self.bind(e, &mut ne)?;
        let entry = match &mut self.journal {
            Some(j) => j.append(ne)?.clone(),
            None => {
                let j = Journal::create(&self.path, ne)?;
                let first = j.last().cloned().ok_or(StorageError::LostLineZero)?;
                self.journal = Some(j);
                first
            }
        };
        if let Some(f) = self.on_append.as_mut() {
            f(&entry);
        }
        // A checkpoint at the moments the rules make important, and every N entries when the
        // camps witness live, when the key can sign now (the act's passphrase armed, or nothing
        // to ask); else the next one covers it.
        let interval = self.witness_due();
        let from = self.signed_upto.unwrap_or(0);
        if (signs_checkpoint(&e.kind) || interval) && self.can_sign() {
            match self.checkpoint(Utc::now()) {
                // The entry is durable and acknowledged (the camps' witnesses already hold
                // it); only the signature is missing. Under a live policy the checkpoint is
                // owed, tried again at each entry, and the arbiter is told on the status line.
                Err(w) if self.witness_every.is_some() => self.checkpoint_failed(&w),
                Err(w) => self.warning = Some(format!("checkpoint not signed: {w}")),
                Ok(_) => self.checkpoint_paid(from),
            }
        } else if interval && !self.can_sign() {
            self.warning = Some(
                "checkpoint not signed: the camps witness live, but the key cannot sign without asking (the ssh-agent is gone?): the interval goes unwitnessed".into(),
            );
        }
        Ok(())
    }

    fn len(&self) -> usize {
        self.journal.as_ref().map_or(0, |j| j.len() as usize)
    }

    fn status(&self) -> StorageStatus {
        let last = self
            .journal
            .as_ref()
            .and_then(|j| j.last())
            .map(|e| format!("#{} {} {} ({})", e.seq, e.actor, e.kind, e.clause));
        StorageStatus {
            entries: self.len(),
            last_entry: last,
            signed_upto: self.signed_upto,
            signed_code: self.signed_code.clone(),
            warning: self.warning.clone(),
            countersigned: self.countersigned(),
            index_countersigned: self.index_countersigned(),
        }
    }

    fn set_on_append(&mut self, f: OnAppend) {
        self.on_append = Some(f);
    }

    fn checkpoint_now(&mut self, now: DateTime<Utc>) -> Result<PathBuf, StorageError> {
        let from = self.signed_upto.unwrap_or(0);
        let signed = self.checkpoint(now);
        match &signed {
            // The status line says so too (the caller may have nobody to tell).
            Err(w) => self.warning = Some(format!("checkpoint not signed: {w}")),
            Ok(_) => self.checkpoint_paid(from),
        }
        signed
    }

    fn needs_key_first(&self) -> bool {
        self.journal.is_none()
            && self.sealed
            && !self.can_sign()
            && !crate::record::witness::policy_path(&self.match_dir).exists()
    }

    fn allow_prompt(&mut self) {
        self.may_ask = true;
    }

    fn open_key(&mut self, now: Ms, utc: DateTime<Utc>) -> Result<(), StorageError> {
        let Some(signer) = self.signer.clone() else {
            return Ok(());
        };
        // Decrypted once (its passphrase asked on the terminal, before the board draws), used
        // for the anchor, and wiped. The anchor is taken once the key is open: the game time
        // stands still until the board starts, while UTC and the boot clock run on.
        let started = std::time::Instant::now();
        let origin = self.origin();
        let sealed = self.sealed;
        let mut w = self.beat_file.take().unwrap_or_default();
        let signed = signer.sign_with(None, true, |k| {
            if sealed {
                let (boot_id, boottime_ms) = boot_clock();
                let utc = chrono::Duration::from_std(started.elapsed())
                    .ok()
                    .and_then(|d| utc.checked_add_signed(d))
                    .unwrap_or(utc);
                let t = beat::BeatTimes {
                    boot_id,
                    boottime_ms,
                    mono_ms: now,
                    utc: &utc,
                };
                w.beater
                    .prepare(&origin, t, &|text| sign::sign_authorization(k, text).ok());
            }
        });
        self.beat_file = Some(w);
        signed.map_err(StorageError::Sign)
    }

    fn arm(&mut self, passphrase: Option<Zeroizing<String>>, now: Ms, utc: DateTime<Utc>) {
        let key = match (passphrase, self.signer.as_ref()) {
            (Some(p), Some(s)) => match s.open_for_act(&p) {
                Ok(k) => Some(k),
                Err(e) => {
                    self.warning = Some(format!("the act's signatures cannot be made: {e}"));
                    None
                }
            },
            _ => None,
        };
        self.arm_key(key, now, utc);
    }

    fn arm_key(&mut self, key: Option<sign::ActKey>, now: Ms, utc: DateTime<Utc>) {
        self.armed = key;
        if self.armed.is_some() && self.sealed {
            // The heartbeat's anchor is signed now, while the key may be used, for the hours
            // the board runs on (each later beat reveals a value of its hash chain; none needs
            // the key).
            self.prepare_anchor(now, utc);
        }
    }

    fn outside_changes(&self) -> Option<u64> {
        self.beat_file
            .as_ref()
            .and_then(beat::BeatFile::folder_changes)
    }

    fn heartbeat(&mut self, now: Ms, utc: DateTime<Utc>) -> Option<String> {
        // Best effort: a lost beat only makes the next restart's measured gap longer (and a
        // sealed log's reopen says the beat is missing).
        // The game's origin and the beat's path stay the same for the session: made at its first
        // beat, kept with the file.
        let mut w = self.beat_file.take().unwrap_or_default();
        let (origin, path) = match w.names.take() {
            Some(names) => names,
            None => (
                self.origin(),
                crate::record::layout::heartbeat_path(&self.match_dir, self.game),
            ),
        };
        // A log that binds its acts beats heartbeat v2: a hash chain whose anchor the arbiter
        // key signed once, when it was at hand (the session's open, an act of the arbiter); a
        // beat past the chain with no key at hand is a plain one (the reopen says it is not
        // authentic and measures from the last entry).
        let record = match (self.sealed, self.signer.is_some()) {
            (true, true) => {
                let (boot_id, boottime_ms) = boot_clock();
                let t = beat::BeatTimes {
                    boot_id,
                    boottime_ms,
                    mono_ms: now,
                    utc: &utc,
                };
                if self.can_sign() {
                    w.beater.record(&origin, t, &|text| self.sign_anchor(text))
                } else {
                    w.beater.record_unsigned(&origin, t)
                }
            }
            _ => None,
        };
        // Overwritten in place at a fixed length, without fsync: no file is created or renamed
        // (metadata work that blocks), and a beat stays in the page cache, which a killed kit
        // (kill -9, a crash) does not lose; after a power cut an older beat, or a torn one that
        // does not parse (then the last entry counts), is read: the gap is longer and the
        // arbiter rules on it either way. A create, rename and two fsyncs a second
        // woke the board several more times a second.
        let line = record.unwrap_or_else(|| {
            let text = format!(
                "{{\"mono_ms\":{now},\"utc\":\"{}\"}}",
                crate::log::format_utc(&utc)
            );
            format!("{text:<79}\n")
        });
        let said = w.write(&path, line.as_bytes());
        w.names = Some((origin, path));
        self.beat_file = Some(w);
        said.map(|say| format!("HEARTBEAT: game-{}/heartbeat {say}", self.game))
    }
}

/// [`arbiter_key_for`] without decrypting the key: the match's key as a session keeps it (its
/// file and public half), checked to be the match's before anything else.
pub fn signer_for(
    k: &KeySource,
    match_dir: &Path,
    game: Option<u32>,
) -> Result<(sign::SessionKey, KeyRef), SignError> {
    let path = sign::key_path(k, match_dir)?;
    let public = sign::load_public_key(&path)?;
    check_match_key(&path, &public, match_dir, game)?;
    let signer = sign::SessionKey::new(&path, k, match_dir)?;
    let fp = sign::fingerprint(signer.public());
    Ok((
        signer.clone(),
        KeyRef {
            principal: principal_of(match_dir, &fp),
            fingerprint: fp,
            demo: signer.demo(),
        },
    ))
}

/// The principal `allowed_signers` lists for the key `fp` (else `arbiter`).
fn principal_of(match_dir: &Path, fp: &str) -> String {
    crate::record::fsio::read_to_string(&layout::allowed_signers(match_dir))
        .ok()
        .and_then(|t| {
            let (signers, _) = sign::parse_allowed_signers(&t);
            signers
                .into_iter()
                .find(|s| sign::fingerprint(&s.key) == fp)
                .and_then(|s| s.principals.first().cloned())
        })
        .unwrap_or_else(|| sign::DEFAULT_PRINCIPAL.to_string())
}

/// The arbiter's key of a match and how line 0 names it (see [`arbiter_key_for`]).
pub fn arbiter_key(
    k: &KeySource,
    match_dir: &Path,
) -> Result<(ssh_key::PrivateKey, KeyRef), SignError> {
    arbiter_key_for(k, match_dir, None)
}

/// Which keys a match accepts as its arbiter's (a key is the match's or nothing): the
/// key line 0 of `game` binds, else line 0 of the match's first game, else (no game yet) the
/// keys `allowed_signers` lists for the principal `arbiter` (`keygen` registers them). Returns
/// the fingerprints, the principal and where the binding comes from; `None` when the match
/// registers no key at all.
pub fn bound_arbiter_keys(
    match_dir: &Path,
    game: Option<u32>,
) -> Option<(Vec<String>, String, String)> {
    let line0 = |n: u32| -> Option<(Vec<String>, String, String)> {
        let first = crate::record::journal::first_entry(&log_path(match_dir, n)).ok()?;
        let k = first.body.get("arbiter_key")?;
        let fp = k.get("fingerprint")?.as_str()?.to_owned();
        let principal = k
            .get("principal")
            .and_then(|p| p.as_str())
            .unwrap_or(sign::DEFAULT_PRINCIPAL)
            .to_owned();
        Some((vec![fp], principal, format!("bound in line 0 of game {n}")))
    };
    if let Some(b) = game.and_then(line0) {
        return Some(b);
    }
    if let Some(b) = games(match_dir).into_iter().find_map(line0) {
        return Some(b);
    }
    let text = crate::record::fsio::read_to_string(&layout::allowed_signers(match_dir)).ok()?;
    let (signers, _) = sign::parse_allowed_signers(&text);
    let fps: Vec<String> = signers
        .iter()
        .filter(|s| s.principals.iter().any(|p| p == sign::DEFAULT_PRINCIPAL))
        .map(|s| sign::fingerprint(&s.key))
        .collect();
    (!fps.is_empty()).then(|| {
        (
            fps,
            sign::DEFAULT_PRINCIPAL.to_owned(),
            format!(
                "registered in {}",
                layout::allowed_signers(match_dir).display()
            ),
        )
    })
}

/// The arbiter's key for game `game` (or the match) and how line 0 names it. Any key but the
/// one the match binds ([`bound_arbiter_keys`]) is refused by name and fingerprint, before its
/// passphrase is asked.
pub fn arbiter_key_for(
    k: &KeySource,
    match_dir: &Path,
    game: Option<u32>,
) -> Result<(ssh_key::PrivateKey, KeyRef), SignError> {
    let path = sign::key_path(k, match_dir)?;
    let public = sign::load_public_key(&path)?;
    check_match_key(&path, &public, match_dir, game)?;
    let key = sign::load_key_at(&path, k, match_dir)?;
    let fp = sign::fingerprint(key.public_key());
    let principal = principal_of(match_dir, &fp);
    let demo = sign::is_demo_key(&key);
    Ok((
        key,
        KeyRef {
            principal,
            fingerprint: fp,
            demo,
        },
    ))
}

/// The key at `path` (public half `public`) is the one match `match_dir` binds for `game`
/// ([`bound_arbiter_keys`]): any other is refused by name and fingerprint, before a passphrase
/// is asked.
fn check_match_key(
    path: &Path,
    public: &ssh_key::PublicKey,
    match_dir: &Path,
    game: Option<u32>,
) -> Result<(), SignError> {
    let path = path.to_path_buf();
    let found = sign::fingerprint(public);
    match bound_arbiter_keys(match_dir, game) {
        Some((fps, _, _)) if fps.contains(&found) => {}
        Some((fps, principal, bound_by)) => {
            return Err(sign::not_match_key(
                &path,
                &found,
                &fps.join(" or "),
                &principal,
                match_dir,
                &bound_by,
            ));
        }
        None => {
            return Err(sign::not_match_key(
                &path,
                &found,
                "none registered",
                sign::DEFAULT_PRINCIPAL,
                match_dir,
                "register the arbiter's key first with `arbiter keygen --existing KEY.pub`",
            ));
        }
    }
    Ok(())
}

/// The match id a game binds: line 0's of the game if it exists, else line 0's of the match's
/// first game, else the folder's name. Checkpoint origins come from it, so a renamed or copied
/// match folder keeps its identity.
pub fn bound_match_id(match_dir: &Path, game: u32) -> String {
    let line0 = |n: u32| -> Option<String> {
        let first = crate::record::journal::first_entry(&log_path(match_dir, n)).ok()?;
        match event_of(&first).ok()?.kind {
            EventKind::GameOpened(o) => Some(o.match_id),
            _ => None,
        }
    };
    line0(game)
        .or_else(|| games(match_dir).into_iter().find_map(line0))
        .unwrap_or_else(|| match_id(match_dir))
}

/// 6c: the algorithm in force for the previous game, if there is one.
pub fn previous_algorithm(match_dir: &Path, game: u32) -> Option<(u32, Algorithm)> {
    let prev = games(match_dir).into_iter().filter(|g| *g < game).max()?;
    let first = crate::record::journal::first_entry(&log_path(match_dir, prev)).ok()?;
    match event_of(&first).ok()?.kind {
        EventKind::GameOpened(o) => Some((prev, o.declarations.algorithm)),
        _ => None,
    }
}

/// What the match's games before `game` say, for its `[match]` rules: the latest earlier
/// game's number and the side its human had (line 0), and the score of the earlier games.
pub fn match_history(match_dir: &Path, game: u32) -> MatchHistory {
    let colours = previous_declarations(match_dir, game).and_then(|(k, d)| {
        let human = |p: &crate::core::event::Player| p.kind == PlayerKind::Human;
        match (human(&d.white), human(&d.black)) {
            (true, false) => Some((k, Side::White)),
            (false, true) => Some((k, Side::Black)),
            _ => None,
        }
    });
    MatchHistory {
        colours,
        scores: match_score_before(match_dir, Some(game)),
    }
}

/// The profile game `game`'s line 0 binds.
fn line0_profile(match_dir: &Path, game: u32) -> Option<ProfileRef> {
    let first = crate::record::journal::first_entry(&log_path(match_dir, game)).ok()?;
    match event_of(&first).ok()?.kind {
        EventKind::GameOpened(o) => Some(o.profile),
        _ => None,
    }
}

/// The match's rules profile for game `game`: the one the latest earlier game's line 0 binds
/// (with that game's number), or `None` for the match's first game.
pub fn match_profile(match_dir: &Path, game: u32) -> Option<(u32, ProfileRef)> {
    games(match_dir)
        .into_iter()
        .filter(|g| *g < game)
        .rev()
        .find_map(|g| line0_profile(match_dir, g).map(|p| (g, p)))
}

/// The profile a `--rules` names is the one game `game` is bound to (the same text), or the
/// refusal naming both.
fn same_profile(asked: &Path, game: u32, bound: &ProfileRef) -> Result<(), MatchError> {
    let (_, named) = load_profile(asked)?;
    if named.sha256 == bound.sha256 {
        return Ok(());
    }
    Err(MatchError::OtherProfile {
        named: format!("{} ({})", named.name, asked.display()),
        bound: format!("{} ({})", bound.name, bound.file),
        game,
    })
}

/// The profile a new game `n` opens under: the match's, as its earlier games bind it; for the
/// match's first game, the one named (or the default profile).
pub fn new_game_profile(
    match_dir: &Path,
    n: u32,
    rules: Option<&Path>,
) -> Result<(crate::core::rules::Profile, ProfileRef), MatchError> {
    match match_profile(match_dir, n) {
        Some((game, bound)) => {
            if let Some(asked) = rules {
                same_profile(asked, game, &bound)?;
            }
            let profile = crate::core::rules::Profile::parse(&bound.file, &bound.toml)
                .map_err(LoadProfileError::from)?;
            Ok((profile, bound))
        }
        None => Ok(load_profile(
            rules.unwrap_or(Path::new(crate::record::layout::DEFAULT_RULES)),
        )?),
    }
}

/// The declarations of the latest game before `game` (line 0), for the next game's draft.
pub fn previous_declarations(match_dir: &Path, game: u32) -> Option<(u32, Declarations)> {
    let prev = games(match_dir).into_iter().filter(|g| *g < game).max()?;
    let first = crate::record::journal::first_entry(&log_path(match_dir, prev)).ok()?;
    match event_of(&first).ok()?.kind {
        EventKind::GameOpened(o) => Some((prev, o.declarations)),
        _ => None,
    }
}

/// Why a game could not be opened or read.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    #[error(transparent)]
    Key(#[from] SignError),
    #[error(transparent)]
    Profile(#[from] LoadProfileError),
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error("{}: {source}", .path.display())]
    Replay { path: PathBuf, source: ReplayError },
    #[error("empty log")]
    EmptyLog,
    /// The match's last game (the highest number a match may hold) has ended: no next game.
    #[error(
        "{} already has game {last}, the highest a match may hold, and it has ended: no game {} is opened (start a new match folder)",
        .dir.display(),
        u64::from(*.last) + 1
    )]
    Full { dir: PathBuf, last: u32 },
    #[error(
        "game {game}: {count} entr{} of {} {} not bound by the arbiter's word (not written by this kit in a session of the match's arbiter key, or from an arbiter-only entry no signed authorization covers; {bound} entries are bound): {listed}; nothing is appended or signed over {}. Have them cut to a side file or accepted one by one with a reason: arbiter foreign --match DIR --game {game} [--cut-from SEQ] [--accept REASON], or arbiter authorize --game {game} --entry SEQ --reason REASON",
        if *.count == 1 { "y" } else { "ies" },
        .path.display(),
        if *.count == 1 { "was" } else { "were" },
        if *.count == 1 { "it" } else { "them" }
    )]
    Foreign {
        path: PathBuf,
        game: u32,
        count: u64,
        bound: u64,
        listed: String,
    },
    /// `verify` and the replay of a command that shows a game read the log apart (it
    /// had something to report, or grew meanwhile) and did not read the same entries.
    #[error(
        "{}: the log changed while it was read (verify checked {verified} entries, the replay read {read}): nothing is shown; run the command again",
        .path.display()
    )]
    Changed {
        path: PathBuf,
        verified: u64,
        read: u64,
    },
    /// `--rules` names a profile other than the one the match's games are bound to.
    #[error(
        "--rules names the profile {named}, but this match plays under {bound} (bound by game {game}'s first entry): nothing is opened; leave out --rules and the game opens under the match's profile, or start a new match folder for other rules"
    )]
    OtherProfile {
        named: String,
        bound: String,
        game: u32,
    },
    /// The match policy (or, for a match's first game, its profile) has the camps witness live,
    /// and the arbiter's key cannot sign the checkpoint due every N entries without asking.
    #[error(
        "game {game}: {why} has the camps witness live {}, so the kit signs a checkpoint {} without asking anything; the key {} is encrypted and no ssh-agent signs for it: nothing is opened or recorded. Load the key into ssh-agent (ssh-add) and give --agent (a key with no passphrase, or --passphrase-env, only in a rehearsal)",
        crate::core::rules::every_entries(*.every),
        crate::core::rules::every_entries(*.every),
        .path.display()
    )]
    LiveWitnessKey {
        game: u32,
        every: u64,
        path: PathBuf,
        why: &'static str,
    },
    #[error("{}: line 0 binds game {found}, but this is the folder of game {want}: nothing is appended", .path.display())]
    WrongGame {
        path: PathBuf,
        found: u32,
        want: u32,
    },
}

/// A game log read whole (strict, no lock, no repair): its entries and their events. Holds the
/// whole log in memory (benches/replay.rs measures it): the commands use [`replay_log`].
pub fn read_game(path: &Path) -> Result<(Vec<Entry>, Vec<Event>), MatchError> {
    let entries = crate::record::journal::read_entries(path)?;
    let events = events_of(&entries)?;
    Ok((entries, events))
}

/// A game rebuilt event by event (as [`Game::replay`], without a list of the events): memory is
/// the game's state, whatever the log's length.
#[derive(Default)]
pub struct Replayer {
    game: Option<Game>,
    index: usize,
    error: Option<MatchError>,
}

impl Replayer {
    pub fn new() -> Replayer {
        Replayer::default()
    }

    /// The next entry of the log; after the first error, nothing more is taken in.
    pub fn push_entry(&mut self, e: &Entry) -> bool {
        if self.error.is_some() {
            return false;
        }
        match event_of(e) {
            Ok(ev) => self.push_owned(ev),
            Err(d) => {
                self.error = Some(MatchError::Decode(d));
                false
            }
        }
    }

    /// An entry that is not an event of this kit (`d` says why): the replay fails with it,
    /// unless it failed before. Always `false`.
    pub fn push_decode_error(&mut self, d: DecodeError) -> bool {
        if self.error.is_none() {
            self.error = Some(MatchError::Decode(d));
        }
        false
    }

    /// The next event; `false` once the replay has failed.
    pub fn push(&mut self, ev: &Event) -> bool {
        self.push_owned(ev.clone())
    }

    /// [`Replayer::push`] with the event handed over: the game's void window keeps it without
    /// a copy.
    pub fn push_owned(&mut self, ev: Event) -> bool {
        self.push_shared(Arc::new(ev))
    }

    /// [`Replayer::push_owned`] with the event already shared (decoded on a checking thread and
    /// handed over: the void window keeps this very event).
    pub fn push_shared(&mut self, ev: Arc<Event>) -> bool {
        if self.error.is_some() {
            return false;
        }
        let i = self.index;
        self.index += 1;
        let fail = |message: String| ReplayError {
            index: i,
            kind: ev.kind_name(),
            message,
        };
        let r = match &mut self.game {
            Some(g) => g
                .evolve_shared(std::sync::Arc::clone(&ev))
                .map_err(|m| fail(m.0)),
            None => match &ev.kind {
                EventKind::GameOpened(o) => Game::from_opening(o)
                    .map_err(|e| fail(e.to_string()))
                    .and_then(|mut g| {
                        g.evolve_shared(std::sync::Arc::clone(&ev))
                            .map_err(|m| fail(m.0))?;
                        self.game = Some(g);
                        Ok(())
                    }),
                _ => Err(fail("the first entry must be game_opened".into())),
            },
        };
        match r {
            Ok(()) => true,
            Err(source) => {
                self.error = Some(MatchError::Replay {
                    path: PathBuf::new(),
                    source,
                });
                false
            }
        }
    }

    /// [`Replayer::push`], handing `observe` what the replay did with the event: the clocks just
    /// before it and the game just after it, or why it did not apply (what
    /// [`crate::report::times::TimesStream::push_replayed`] takes), so that a fold of the times
    /// reads this one replay, not a second game of its own.
    pub fn push_observed(
        &mut self,
        ev: &Arc<Event>,
        observe: impl FnOnce(crate::report::times::Replayed<'_>),
    ) -> bool {
        use crate::report::times::{Before, Replayed as Step};
        let before = self.game().map(|g| Before::of(g, ev));
        let ok = self.push_shared(Arc::clone(ev));
        observe(match (before, self.game(), self.failure()) {
            (Some(before), Some(game), _) => before.replayed(ev, game),
            (Some(_), _, Some(m)) => Step::Failed(m.to_owned()),
            _ => Step::NotReplayed,
        });
        ok
    }

    /// [`Replayer::push_observed`] into the game's times.
    pub fn push_times(
        &mut self,
        ev: &Arc<Event>,
        times: &mut crate::report::times::TimesStream,
    ) -> bool {
        self.push_observed(ev, |step| times.push_replayed(ev, step))
    }

    /// Why the replay failed, when an event did not apply to the game.
    pub fn failure(&self) -> Option<&str> {
        match &self.error {
            Some(MatchError::Replay { source, .. }) => Some(&source.message),
            _ => None,
        }
    }

    /// The game rebuilt so far (none before `game_opened`, or after the replay failed).
    pub fn game(&self) -> Option<&Game> {
        self.game.as_ref().filter(|_| self.error.is_none())
    }

    /// Events taken in.
    pub fn len(&self) -> usize {
        self.index
    }

    pub fn is_empty(&self) -> bool {
        self.index == 0
    }

    /// The game, or why it could not be rebuilt (a replay error names `path`).
    pub fn finish(self, path: &Path) -> Result<Game, MatchError> {
        match (self.error, self.game) {
            (Some(MatchError::Replay { source, .. }), _) => Err(MatchError::Replay {
                path: path.to_owned(),
                source,
            }),
            (Some(e), _) => Err(e),
            (None, Some(g)) => Ok(g),
            (None, None) => Err(MatchError::Replay {
                path: path.to_owned(),
                source: ReplayError {
                    index: 0,
                    kind: "-".into(),
                    message: "the log is empty".into(),
                },
            }),
        }
    }
}

/// A game log replayed line by line (strict, no lock, no repair).
pub struct Replayed {
    pub game: Game,
    /// Entries in the log.
    pub entries: u64,
    /// Line 0 and the latest entry.
    pub first: Entry,
    pub last: Entry,
    /// Replayed from the lines of verify's one pass over the log ([`replay_verified`]), not from
    /// a read of its own.
    pub one_pass: bool,
}

/// Read a game log line by line and rebuild its game, without holding the log: `each` sees every
/// line (checked, with its hash) and its event in order. Memory is one line plus the game's
/// state. Each line is checked, hashed and decoded once ([`crate::record::journal::for_each_line`],
/// [`crate::log::codec::decode_canonical`]: no `Value`); line 0 and the last line are parsed
/// whole for [`Replayed`].
pub fn replay_log(
    path: &Path,
    mut each: impl FnMut(&crate::record::journal::CheckedLine<'_>, &Event),
) -> Result<Replayed, MatchError> {
    replay_log_with(path, |l, ev, r| {
        each(l, ev);
        r.push_shared(Arc::clone(ev))
    })
}

/// [`replay_log`] where `step` pushes each event into the replay itself (and reads what the
/// replay did with it: [`Replayer::push_times`]); `false` once the replay failed.
fn replay_log_with(
    path: &Path,
    mut step: impl FnMut(&crate::record::journal::CheckedLine<'_>, &Arc<Event>, &mut Replayer) -> bool,
) -> Result<Replayed, MatchError> {
    let mut r = Replayer::new();
    let mut first = None;
    let (mut last, mut last_offset) = (Vec::new(), 0u64);
    let mut decode = None;
    let entries = crate::record::journal::for_each_line(path, |l| {
        let ok = match crate::log::codec::decode_canonical(l.bytes) {
            Ok(d) => step(l, &Arc::new(d.event), &mut r),
            Err(d) => {
                decode = Some(d);
                false
            }
        };
        if l.seq == 0 {
            first = Some(crate::log::parse_line(l.bytes, l.offset));
        }
        last.clear();
        last.extend_from_slice(l.bytes);
        last_offset = l.offset;
        ok
    })?;
    if let Some(d) = decode {
        return Err(MatchError::Decode(d));
    }
    let game = r.finish(path)?;
    let line = |seq: u64, offset: u64| {
        move |e: crate::log::LineError| JournalError::BadLine {
            path: path.to_owned(),
            seq,
            offset,
            problem: e.to_string(),
        }
    };
    let first = first.ok_or(MatchError::EmptyLog)?.map_err(line(0, 0))?;
    let last = if entries > 1 {
        crate::log::parse_line(&last, last_offset).map_err(line(entries - 1, last_offset))?
    } else {
        first.clone()
    };
    Ok(Replayed {
        game,
        entries,
        first,
        last,
        one_pass: false,
    })
}

/// A game's log checked as `verify` checks it ([`crate::record::witness::check_before_showing`]) and
/// replayed from the very lines that check read (one read, one hash and one canonical
/// check of each line, each line decoded once by [`crate::log::codec::decode_line`]). `init`
/// makes what `each` folds every event into (the caller's own reading of the log, as
/// [`replay_log`]'s `each`); it is made again when the check could not hand the replay every line
/// (the log had something to report, or changed while it was read): the log is then replayed
/// apart ([`replay_log`]), and when that read finds other entries than the check's while the
/// check passed, the replay is refused ([`MatchError::Changed`]) rather than show a state verify
/// did not check. The check is returned either way. `each` sees each event as the pass reads
/// it, on this thread: `status` replays here (with nothing else to fold, this thread
/// is no busier than the checking threads, and a replay on a thread of its own cost more CPU
/// than it saved; `pgn` and the open, which fold the times as well, replay apart:
/// [`replay_verified_with`], [`open_game_observed`]).
pub fn replay_verified<S>(
    match_dir: &Path,
    n: u32,
    init: impl Fn() -> S,
    mut each: impl FnMut(&mut S, &Event),
) -> (
    crate::record::witness::LogCheck,
    Result<(Replayed, S), MatchError>,
) {
    replay_verified_inline(match_dir, n, init, |s, ev, r| {
        each(s, ev);
        r.push_shared(Arc::clone(ev))
    })
}

/// [`replay_verified`] with the game's times gathered from the same replay
/// ([`Replayer::push_times`]): `pgn` replays the game once, not once more for its clocks.
pub fn replay_verified_times(
    match_dir: &Path,
    n: u32,
) -> (
    crate::record::witness::LogCheck,
    Result<(Replayed, crate::report::times::TimesStream), MatchError>,
) {
    replay_verified_with(match_dir, n, Default::default, |t, ev, r| {
        r.push_times(ev, t)
    })
}

/// [`replay_verified`] where `step` pushes each event into the replay itself (`false` once the
/// replay failed), on a thread of its own beside the pass ([`pipe`]).
pub fn replay_verified_with<S: Send>(
    match_dir: &Path,
    n: u32,
    init: impl Fn() -> S,
    mut step: impl FnMut(&mut S, &Arc<Event>, &mut Replayer) -> bool + Send,
) -> (
    crate::record::witness::LogCheck,
    Result<(Replayed, S), MatchError>,
) {
    let (mut fold, mut tail) = Fold::start(match_dir, n, init());
    // Each line's event is decoded on the cores that check the lines; this thread
    // reads and joins them, and the game is replayed on a thread of its own ([`pipe`]), from
    // each block's events handed over whole. The replay's void window keeps the latest events.
    fold.handed = true;
    let (check, streamed) = {
        let mut consume = |item: pipe::Step<'_>| tail.take(item, &mut step);
        pipe::pipelined(&mut consume, 2 * crate::core::game::VOID_WINDOW, |feed| {
            fold.pass(match_dir, n, feed)
        })
    };
    verified_or_apart(match_dir, n, (check, streamed), fold, tail, init, step)
}

/// [`replay_verified_with`], the replay on this thread as the pass reads each line
/// ([`replay_verified`]).
fn replay_verified_inline<S>(
    match_dir: &Path,
    n: u32,
    init: impl Fn() -> S,
    mut step: impl FnMut(&mut S, &Arc<Event>, &mut Replayer) -> bool,
) -> (
    crate::record::witness::LogCheck,
    Result<(Replayed, S), MatchError>,
) {
    let (mut fold, mut tail) = Fold::start(match_dir, n, init());
    let (check, streamed) = {
        let mut consume = |item: pipe::Step<'_>| tail.take(item, &mut step);
        pipe::inline(&mut consume, |feed| fold.pass(match_dir, n, feed))
    };
    verified_or_apart(match_dir, n, (check, streamed), fold, tail, init, step)
}

/// [`replay_verified_with`]'s and [`replay_verified_inline`]'s end: the game from the pass's
/// lines, or (when the pass could not hand every line over) replayed apart and compared.
fn verified_or_apart<S>(
    match_dir: &Path,
    n: u32,
    (check, streamed): (crate::record::witness::LogCheck, bool),
    fold: Fold,
    tail: FoldTail<S>,
    init: impl Fn() -> S,
    mut step: impl FnMut(&mut S, &Arc<Event>, &mut Replayer) -> bool,
) -> (
    crate::record::witness::LogCheck,
    Result<(Replayed, S), MatchError>,
) {
    let path = log_path(match_dir, n);
    // (Every line's event reached the replay: one a line, in order.)
    if streamed && fold.whole && fold.has_last() && tail.taken == fold.entries {
        return (check, fold.finish(tail, &path));
    }
    drop(tail);
    let mut state = init();
    let r = replay_log_with(&path, |_, ev, r| step(&mut state, ev, r)).and_then(|r| {
        let same = check.entries == Some(r.entries)
            && check.chain_head.as_deref() == Some(crate::log::hex32(&r.last.hash).as_str());
        if same || check.failing.is_some() {
            Ok((r, state))
        } else {
            Err(MatchError::Changed {
                path: path.clone(),
                verified: check.entries.unwrap_or(0),
                read: r.entries,
            })
        }
    });
    (check, r)
}

/// What [`replay_verified`] keeps of the lines of verify's pass, on the thread that joins them.
struct Fold {
    first: Option<Entry>,
    /// The log's length before the pass: a line that ends before it is not the last.
    tail_from: u64,
    /// The latest line kept, its seq and its offset (parsed whole once, at the end).
    last: Vec<u8>,
    last_seq: Option<u64>,
    last_offset: u64,
    offset: u64,
    entries: u64,
    /// Every line came with its bytes.
    whole: bool,
    /// The events come to the replay with their blocks ([`pipe::pipelined`]), not line by line.
    handed: bool,
}

/// What [`replay_verified`] folds from the events of verify's pass, on the replay thread.
struct FoldTail<S> {
    state: S,
    replay: Replayer,
    decode: Option<DecodeError>,
    /// The replay (or a decoding) failed: later events are dropped.
    failed: bool,
    /// Lines taken.
    taken: u64,
}

impl<S> FoldTail<S> {
    fn take(
        &mut self,
        item: pipe::Step<'_>,
        step: &mut impl FnMut(&mut S, &Arc<Event>, &mut Replayer) -> bool,
    ) {
        if let pipe::Step::Line(..) | pipe::Step::Held(..) = item {
            self.taken += 1;
        }
        match item {
            _ if self.failed => {}
            pipe::Step::Line(_, Ok(ev)) | pipe::Step::Held(_, Ok(ev)) => {
                self.failed = !step(&mut self.state, ev, &mut self.replay);
            }
            pipe::Step::Line(_, Err(d)) | pipe::Step::Held(_, Err(d)) => {
                self.decode = Some(d.clone());
                self.failed = true;
            }
            // The pass of verify never reads the log a second time; the replay keeps its own.
            pipe::Step::Restart | pipe::Step::Kept(_) => {}
        }
    }
}

impl Fold {
    /// Before the pass over game `n`'s log: nothing read, `state` not fed.
    fn start<S>(match_dir: &Path, n: u32, state: S) -> (Fold, FoldTail<S>) {
        let fold = Fold {
            first: None,
            // Only the lines that reach the log's length now are kept: the last one, unless the
            // log grows meanwhile (then each line past that length).
            tail_from: std::fs::metadata(log_path(match_dir, n)).map_or(0, |m| m.len()),
            last: Vec::new(),
            last_seq: None,
            last_offset: 0,
            offset: 0,
            entries: 0,
            whole: true,
            handed: false,
        };
        let tail = FoldTail {
            state,
            replay: Replayer::new(),
            decode: None,
            failed: false,
            taken: 0,
        };
        (fold, tail)
    }

    /// Verify's pass over game `n`'s log ([`crate::record::witness::check_before_showing_watching`]),
    /// each line's event decoded on the checking threads and handed to `feed`; whether the pass
    /// streamed every line.
    fn pass(
        &mut self,
        match_dir: &Path,
        n: u32,
        feed: &mut pipe::Feed,
    ) -> (crate::record::witness::LogCheck, bool) {
        crate::record::journal::with_events_decoded(|| {
            crate::record::witness::check_before_showing_watching(match_dir, n, &mut |v| {
                self.take(v, feed);
            })
        })
    }

    fn take(&mut self, v: &crate::record::journal::LineView<'_>, feed: &mut pipe::Feed) {
        let Some(line) = v.line.filter(|_| v.seq == self.entries) else {
            self.whole = false;
            return;
        };
        if v.seq == 0 {
            self.first = v.entry.cloned();
        }
        self.entries += 1;
        // Not a copy of each line (365 MB of copying for a 1,000,000-entry log).
        let end = self.offset + line.len() as u64;
        if end + 1 >= self.tail_from {
            self.last.clear();
            self.last.extend_from_slice(line);
            self.last_seq = Some(v.seq);
            self.last_offset = self.offset;
        }
        self.offset = end + 1;
        match v.event {
            // Handed over with its block (not touched on this thread).
            Some(_) if self.handed => {}
            Some(e) => feed.push(pipe::Item::Line(v.seq, e.clone())),
            None => feed.push(pipe::Item::Line(
                v.seq,
                crate::log::codec::decode_canonical(line).map(|d| Arc::new(d.event)),
            )),
        }
    }

    /// The last line read is the one kept.
    fn has_last(&self) -> bool {
        self.entries == 0 || self.last_seq == Some(self.entries - 1)
    }

    fn finish<S>(self, tail: FoldTail<S>, path: &Path) -> Result<(Replayed, S), MatchError> {
        if let Some(d) = tail.decode {
            return Err(MatchError::Decode(d));
        }
        let game = tail.replay.finish(path)?;
        let first = self.first.ok_or(MatchError::EmptyLog)?;
        let last = if self.entries > 1 {
            crate::log::parse_line(&self.last, self.last_offset).map_err(|e| {
                JournalError::BadLine {
                    path: path.to_owned(),
                    seq: self.entries - 1,
                    offset: self.last_offset,
                    problem: e.to_string(),
                }
            })?
        } else {
            first.clone()
        };
        Ok((
            Replayed {
                game,
                entries: self.entries,
                first,
                last,
                one_pass: true,
            },
            tail.state,
        ))
    }
}

/// A game ready for the Board UI or a script: its session and the monotonic offset of "now".
pub struct Opened {
    pub session: Session,
    /// Monotonic game time at the moment of opening.
    pub now_ms: Ms,
    /// What the arbiter must be told first (restart gap, recovery, damage).
    pub notice: Option<String>,
    /// The latest events of the log (at most [`EVENTS_KEPT`]), oldest first (none for a new
    /// game, or when not kept).
    pub events: Vec<Event>,
    /// How many events of the log come before `events[0]` (its entry number).
    pub events_from: usize,
}

/// Events [`open_game`] keeps: the latest ones only, so that memory does not grow with the log
/// (the Board UI's log page reads older ones from the file when asked).
pub const EVENTS_KEPT: usize = 2_000;

/// Open game `n` (or the unfinished one, or a new one) of a match folder for writing, with the
/// events of its log (for the Board UI's log page).
pub fn open_game(
    match_dir: &Path,
    n: Option<u32>,
    rules: Option<&Path>,
    key: &KeySource,
) -> Result<Opened, MatchError> {
    open_game_with(match_dir, n, rules, key, true)
}

/// [`open_game`]; with `keep_events` false, [`Opened::events`] stays empty. Either way the log
/// is replayed as it is read, so memory does not grow with the log.
pub fn open_game_with(
    match_dir: &Path,
    n: Option<u32>,
    rules: Option<&Path>,
    key: &KeySource,
    keep_events: bool,
) -> Result<Opened, MatchError> {
    open_game_observed(match_dir, n, rules, key, keep_events, &mut ())
}

/// What folds a game's events as [`open_game_observed`] replays them (the Board UI's move times
/// and alarms), without keeping the log. It runs on the replay's thread, beside the reading of
/// the log, hence `Send`.
pub trait OpenObserver: Send {
    /// The next event of the log, with what the open's one replay did with it (the clocks
    /// before it, the game after it: [`crate::report::times::TimesStream::push_replayed`]).
    fn event(&mut self, ev: &Event, replayed: crate::report::times::Replayed<'_>);
    /// Forget every event seen: they come again from the first (the log is read again).
    fn restart(&mut self);
}

/// Folds nothing.
impl OpenObserver for () {
    fn event(&mut self, _: &Event, _: crate::report::times::Replayed<'_>) {}
    fn restart(&mut self) {}
}

/// [`open_game_with`], and `each` sees every event of the log in order as it is replayed (for
/// what the caller folds from the whole log without keeping it).
///
/// A crash corner: when the log's last entry is a complete, chained line that no checkpoint
/// signs but that the game cannot apply (a byte flipped in a move: `d6t5`), it is cut into a side
/// file like a torn tail and a `recovery` entry records it (nothing lost), and the game opens
/// without it — instead of a game no command can ever open again. `each` is then restarted and
/// sees the events of the log as cut.
pub fn open_game_observed(
    match_dir: &Path,
    n: Option<u32>,
    rules: Option<&Path>,
    key: &KeySource,
    keep_events: bool,
    each: &mut dyn OpenObserver,
) -> Result<Opened, MatchError> {
    match open_game_once(match_dir, n, rules, key, keep_events, each, false)? {
        Attempt::Opened(o) => Ok(*o),
        // The last entry was cut: open again, from the first event.
        Attempt::Cut { game, what } => {
            each.restart();
            match open_game_once(match_dir, Some(game), rules, key, keep_events, each, true)? {
                Attempt::Opened(mut o) => {
                    let note = format!(
                        "recovered: the last entry could not be applied ({what}); it was cut to a side file and recorded, nothing lost"
                    );
                    o.notice = Some(match o.notice.take() {
                        Some(n) => format!("{note}\n{n}"),
                        None => note,
                    });
                    Ok(*o)
                }
                Attempt::Cut { .. } => Err(MatchError::EmptyLog),
            }
        }
    }
}

/// One opening of a game: opened, or its unappliable last entry cut (open it again).
enum Attempt {
    Opened(Box<Opened>),
    Cut { game: u32, what: String },
}

/// What [`open_game_once`] gathers from each line of the log as it is read, on the thread that
/// reads and joins the lines; the events go on to the replay's thread ([`OpenReplay`]).
struct OpenPass {
    listed_from: u64,
    beyond: Vec<String>,
    line0_sealed: bool,
    /// Line 0 binds with the seal (`seal/1`), which this kit no longer writes.
    line0_seal_v1: bool,
    recovered: Vec<u64>,
    line0_game: Option<u32>,
}

impl OpenPass {
    fn new(listed_from: u64) -> OpenPass {
        OpenPass {
            listed_from,
            beyond: Vec::new(),
            line0_sealed: false,
            line0_seal_v1: false,
            recovered: Vec::new(),
            line0_game: None,
        }
    }

    /// Line `seq` (of kind `kind`; `first` is line 0's entry) decoded from its checked bytes:
    /// what this thread reads of it. The event goes to the replay with its block (`handed`:
    /// Not touched here), or else from here.
    fn line(
        &mut self,
        seq: u64,
        kind: &str,
        first: Option<&Entry>,
        ev: Result<&Arc<Event>, &DecodeError>,
        handed: bool,
        feed: &mut pipe::Feed,
    ) {
        let ev = match ev {
            Ok(ev) => ev,
            Err(_) if handed => return,
            Err(d) => return feed.push(pipe::Item::Line(seq, Err(d.clone()))),
        };
        if kind == crate::log::RECOVERY_KIND && ev.actor == crate::core::Actor::Kit {
            self.recovered.push(seq);
        }
        if seq >= self.listed_from && self.beyond.len() < 20 {
            self.beyond
                .push(format!("#{seq} {} {kind} ({})", ev.actor.name(), ev.clause));
        }
        // (Line 0 only: the other events are not read on this thread.)
        if let Some(e) = first.filter(|_| seq == 0)
            && let EventKind::GameOpened(o) = &ev.kind
        {
            self.line0_game = Some(o.game);
            self.line0_sealed = crate::record::witness::signs_acts(e);
            self.line0_seal_v1 = crate::record::witness::is_sealed_log(e);
        }
        if !handed {
            feed.push(pipe::Item::Line(seq, Ok(Arc::clone(ev))));
        }
    }
}

/// What [`open_game_once`] folds from each event of the log, on the replay's thread.
struct OpenReplay {
    replay: Replayer,
    keep_events: bool,
    /// The latest events, shared with the pass (a copy of each of 1,000,000 events,
    /// dropped soon after, was a third of the joining thread's time); copied once, at the end.
    /// Their blocks are held as long ([`pipe::pipelined`]'s `hold`): an event let go here is
    /// never the last reference, and its block's checking thread writes over it. `None`: an
    /// event still in its block ([`pipe::Step::Held`]), taken from the blocks kept at the end
    /// ([`OpenReplay::kept`]).
    events: std::collections::VecDeque<Option<Arc<Event>>>,
    seen: usize,
    /// The seq of the first entry the replay could not take (decoded or applied).
    first_failed: Option<u64>,
}

impl OpenReplay {
    fn new(keep_events: bool) -> OpenReplay {
        OpenReplay {
            replay: Replayer::new(),
            keep_events,
            events: std::collections::VecDeque::new(),
            seen: 0,
            first_failed: None,
        }
    }

    /// A step of the pass: an event or an undecodable entry, or a new start.
    fn take(&mut self, item: pipe::Step<'_>, each: &mut dyn OpenObserver) {
        match item {
            pipe::Step::Line(seq, Ok(ev)) => self.event(seq, ev, each),
            pipe::Step::Held(seq, Ok(ev)) => self.held(seq, ev, each),
            pipe::Step::Line(seq, Err(d)) | pipe::Step::Held(seq, Err(d)) => {
                self.undecodable(seq, d.clone())
            }
            pipe::Step::Restart => {
                *self = OpenReplay::new(self.keep_events);
                each.restart();
            }
            pipe::Step::Kept(blocks) => self.kept(blocks),
        }
    }

    /// [`OpenReplay::event`] of an event its block keeps: no reference of its own taken yet.
    fn held(&mut self, seq: u64, ev: &Arc<Event>, each: &mut dyn OpenObserver) {
        self.replay_one(seq, ev, each);
        if self.keep_events {
            self.keep(None);
        }
    }

    /// The end of the pass: the kept events still in their blocks (the latest events of the
    /// blocks, in order), each now referenced here.
    fn kept(&mut self, blocks: &std::collections::VecDeque<Vec<crate::record::journal::Decoded>>) {
        let mut latest = blocks
            .iter()
            .rev()
            .flat_map(|b| b.iter().rev())
            .filter_map(|d| d.as_ref().ok());
        // The latest first: the places still empty are filled from the newest back.
        for slot in self.events.iter_mut().rev().filter(|e| e.is_none()) {
            *slot = latest.next().map(Arc::clone);
        }
    }

    fn keep(&mut self, ev: Option<Arc<Event>>) {
        if self.events.len() == EVENTS_KEPT {
            self.events.pop_front();
        }
        self.events.push_back(ev);
    }

    /// The next event (entry `seq`): replayed once, for the game and for `each`, then kept
    /// (only when events are kept).
    fn event(&mut self, seq: u64, ev: &Arc<Event>, each: &mut dyn OpenObserver) {
        self.replay_one(seq, ev, each);
        if self.keep_events {
            self.keep(Some(Arc::clone(ev)));
        }
    }

    fn replay_one(&mut self, seq: u64, ev: &Arc<Event>, each: &mut dyn OpenObserver) {
        if !self.replay.push_observed(ev, |step| each.event(ev, step))
            && self.first_failed.is_none()
        {
            self.first_failed = Some(seq);
        }
        self.seen += 1;
    }

    /// Entry `seq` is not an event of this kit.
    fn undecodable(&mut self, seq: u64, d: DecodeError) {
        if !self.replay.push_decode_error(d) && self.first_failed.is_none() {
            self.first_failed = Some(seq);
        }
    }
}

/// [`open_game_observed`]'s one pass. `retry`: after a cut (no second cut).
fn open_game_once(
    match_dir: &Path,
    n: Option<u32>,
    rules: Option<&Path>,
    key: &KeySource,
    keep_events: bool,
    each: &mut dyn OpenObserver,
    retry: bool,
) -> Result<Attempt, MatchError> {
    let existing = games(match_dir);
    let n = match n {
        Some(n) => n,
        None => match existing.last() {
            Some(&last) if !is_finished(match_dir, last) => last,
            Some(&last) if last >= crate::record::layout::MAX_GAME => {
                return Err(MatchError::Full {
                    dir: match_dir.to_path_buf(),
                    last,
                });
            }
            Some(&last) => last + 1,
            None => 1,
        },
    };
    let path = log_path(match_dir, n);
    // The match keeps its profile: a `--rules` naming another is refused before anything is
    // opened or written.
    if let Some(asked) = rules {
        let bound = if path.exists() {
            line0_profile(match_dir, n).map(|p| (n, p))
        } else {
            match_profile(match_dir, n)
        };
        if let Some((game, bound)) = bound {
            same_profile(asked, game, &bound)?;
        }
    }
    // The key is read, not decrypted: it is decrypted for each signature only.
    let (signer, keyref) = signer_for(key, match_dir, Some(n))?;
    let mid = bound_match_id(match_dir, n);
    let mut storage = JournalStorage {
        match_dir: match_dir.to_path_buf(),
        game: n,
        match_id: mid.clone(),
        path: path.clone(),
        journal: None,
        signer: Some(signer),
        armed: None,
        may_ask: false,
        signed_upto: None,
        signed_code: None,
        warning: None,
        on_append: None,
        sealed: true,
        beat_file: None,
        countersigned_seen: Default::default(),
        index_seen: Default::default(),
        checkpoints_swept: false,
        witness_every: None,
        checkpoint_owed: None,
    };
    let new_game = if path.exists() {
        None
    } else {
        Some(new_game_profile(match_dir, n, rules)?)
    };
    // Under a policy that has the camps witness live, the kit signs a checkpoint every N
    // entries without asking: a key that cannot is refused now, before anything is written.
    storage.witness_every =
        crate::record::witness::witness_interval(match_dir, n, new_game.as_ref().map(|(p, _)| p));
    if let (Some(every), Some(signer)) = (storage.witness_every, storage.signer.as_ref())
        && !signer.at_hand()
    {
        return Err(MatchError::LiveWitnessKey {
            game: n,
            every,
            path: signer.path().to_owned(),
            why: if crate::record::witness::policy_path(match_dir).exists() {
                "the match policy"
            } else {
                "the profile's [witness] every (the match policy this game writes)"
            },
        });
    }
    if let Some((profile, pref)) = new_game {
        let ctx = GameContext {
            match_id: mid,
            game: n,
            profile: pref,
            arbiter_key: keyref,
            previous_algorithm: previous_algorithm(match_dir, n),
        };
        let game = Game::new(ctx, profile)
            .with_history(match_history(match_dir, n))
            .with_match_camps(crate::record::witness::match_camps(match_dir, n));
        return Ok(Attempt::Opened(Box::new(Opened {
            session: Session::new(game, Box::new(storage), Utc::now()),
            now_ms: 0,
            notice: unfinished_warning(match_dir, n),
            events: Vec::new(),
            events_from: 0,
        })));
    }
    // How far the arbiter's own word (the seal, a signed checkpoint) binds the log.
    let public = storage
        .signer
        .as_ref()
        .map(|k| k.public().clone())
        .ok_or(MatchError::Key(SignError::EmptyLog))?;
    let origin = crate::log::checkpoint::origin(&mid, n);
    let mut sizes = Vec::new();
    if let Ok(s) = crate::record::witness::read_seal(match_dir, n, &public, &origin) {
        sizes.push(s.size);
    }
    if let Some(cp) = crate::record::witness::latest_signed_checkpoint(match_dir, n, &public) {
        sizes.push(cp.size);
    }
    let listed_from = sizes.iter().copied().min().unwrap_or(0);
    // The log is read once, by the checked pass (on the cores, as verify reads it),
    // each line decoded once and the game replayed once, for the session and for `each`, on a
    // thread of its own beside the reading ([`pipe`]).
    let mut pass = OpenPass::new(listed_from);
    let mut folded = OpenReplay::new(keep_events);
    let opened = {
        let mut consume = |item: pipe::Step<'_>| folded.take(item, each);
        // The latest events the open keeps (and the void window's) are still in their blocks.
        let hold = EVENTS_KEPT.max(2 * crate::core::game::VOID_WINDOW);
        pipe::pipelined(&mut consume, hold, |feed| {
            Journal::open_streamed(
                &path,
                Box::new(crate::record::journal::RealOps),
                &sizes,
                |l| match l {
                    crate::record::journal::OpenLine::View(v) => match (v.event, v.line) {
                        // Handed over with its block.
                        (Some(ev), _) => pass.line(v.seq, v.kind, v.entry, ev.as_ref(), true, feed),
                        (None, Some(line)) => {
                            let ev = crate::log::codec::decode_canonical(line)
                                .map(|d| Arc::new(d.event));
                            pass.line(v.seq, v.kind, v.entry, ev.as_ref(), false, feed)
                        }
                        (None, None) => {
                            feed.push(pipe::Item::Line(v.seq, Err(DecodeError::Missing("line"))))
                        }
                    },
                    crate::record::journal::OpenLine::Entry(e, line) => {
                        let ev =
                            crate::log::codec::decode_canonical(line).map(|d| Arc::new(d.event));
                        pass.line(
                            e.seq,
                            &e.kind,
                            Some(e).filter(|e| e.seq == 0),
                            ev.as_ref(),
                            false,
                            feed,
                        )
                    }
                    crate::record::journal::OpenLine::Restart => {
                        pass = OpenPass::new(listed_from);
                        feed.push(pipe::Item::Restart);
                    }
                },
            )
        })
    };
    let (mut journal, heads) = opened?;
    // The recovery entries the open appended (a torn tail cut off) belong to the game too.
    for e in journal.recoveries() {
        match event_of(e) {
            Ok(ev) => folded.event(e.seq, &Arc::new(ev), each),
            Err(d) => folded.undecodable(e.seq, d),
        }
    }
    let OpenPass {
        beyond,
        line0_sealed,
        line0_seal_v1,
        recovered,
        line0_game,
        ..
    } = pass;
    let OpenReplay {
        replay,
        events,
        seen,
        first_failed,
        ..
    } = folded;
    // Line 0 binds the game: a log that names another game (copied or linked in) is not appended.
    if let Some(found) = line0_game
        && found != n
    {
        return Err(MatchError::WrongGame {
            path: path.clone(),
            found,
            want: n,
        });
    }
    let game = match replay.finish(&path) {
        Ok(g) => g,
        Err(e) => {
            // The last entry, unsigned, complete and chained, but not a move or fact the game
            // can take: cut it like a torn tail (only on the first pass, never line 0).
            let last = journal.len().saturating_sub(1);
            let signed = latest_checkpoint(match_dir, n).unwrap_or(0) as u64;
            let cuttable = !retry
                && first_failed == Some(last)
                && last >= 1
                && last >= signed
                && journal.recoveries().is_empty()
                && journal.damage().is_none();
            if !cuttable {
                return Err(e);
            }
            let what = e.to_string();
            journal
                .cut_unappliable_last(&what)
                .map_err(MatchError::Journal)?;
            return Ok(Attempt::Cut { game: n, what });
        }
    };
    let mut notes: Vec<String> = Vec::new();
    // A damaged log opens read-only: nothing is appended or sealed, nothing to refuse.
    storage.sealed = line0_sealed && journal.damage().is_none();
    if storage.sealed && line0_seal_v1 {
        let written = journal.len() - journal.recoveries().len() as u64;
        let mut b =
            crate::record::witness::binding_of(match_dir, n, &public, &origin, written, &|size| {
                heads.iter().find(|h| h.0 == size).map(|h| h.1)
            });
        b.neutral = recovered.iter().filter(|s| **s >= b.bound).count() as u64;
        if b.foreign() > 0 {
            let first = b.bound;
            let listed: Vec<&String> = beyond
                .iter()
                .filter(|d| {
                    d.trim_start_matches('#')
                        .split(' ')
                        .next()
                        .and_then(|s| s.parse::<u64>().ok())
                        .is_some_and(|s| s >= first)
                })
                .collect();
            let mut listed = listed
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            if listed.is_empty() {
                listed = format!("entries #{first} to #{}", written - 1);
            }
            if let Some(p) = &b.seal_problem {
                listed.push_str(&format!(" ({p})"));
            }
            listed.push_str(&b.in_flight_words());
            storage.sealed = false;
            return Err(MatchError::Foreign {
                path: path.clone(),
                game: n,
                count: b.entries - b.bound,
                bound: b.bound,
                listed,
            });
        }
    }
    if let Some(r) = journal.recovery() {
        notes.push(format!(
            "recovered: a torn last line was cut off ({}); see entry #{}",
            r.body, r.seq
        ));
    }
    let damage = journal.damage().map(|d| d.to_string());
    storage.signed_upto = latest_checkpoint(match_dir, n);
    storage.signed_code =
        crate::record::witness::latest_checkpoint(match_dir, n).map(|c| c.short_code().to_string());
    let last = journal.last().cloned().ok_or(MatchError::EmptyLog)?;
    storage.journal = Some(journal);
    let last_utc = DateTime::parse_from_rfc3339(&last.utc)
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_else(|_| Utc::now());
    let since_entry = (Utc::now() - last_utc).num_milliseconds().max(0) as Ms;
    let now_ms = last.mono_ms + since_entry;
    // The log's last UTC at the log's last game time: later entries are never stamped before it,
    // even when that UTC is ahead of this machine's clock (a script that stamped the future).
    let last_origin = i64::try_from(last.mono_ms)
        .ok()
        .and_then(chrono::Duration::try_milliseconds)
        .and_then(|d| last_utc.checked_sub_signed(d));
    // The kit ran until its last heartbeat: the gap to rule on starts there.
    let (gap, uncertainty) =
        measured_gap_bounds(Utc::now(), last.mono_ms, last_utc, read_beat(match_dir, n));
    let log_origin = origin.clone();
    let origin = i64::try_from(now_ms)
        .ok()
        .and_then(chrono::Duration::try_milliseconds)
        .and_then(|d| Utc::now().checked_sub_signed(d))
        .unwrap_or_else(Utc::now);
    let origin = last_origin.map_or(origin, |o| origin.max(o));
    let running = game.clock().running();
    let playing = game.phase() == Phase::Playing;
    if game.phase() != Phase::Ended
        && let Some(w) = unfinished_warning(match_dir, n)
    {
        notes.push(w);
    }
    if storage.sealed && !line0_seal_v1 {
        // An arbiter-only entry no signed authorization covers (the one in flight at a crash,
        // one left pending at the prompt, one appended by anything else): nothing is appended
        // past it; the arbiter accepts it with a reason or cuts it (`authorize`, `foreign`).
        if let Ok(Some((b, listed))) =
            crate::record::witness::binding_on_disk(match_dir, n, &public)
            && b.foreign() > 0
        {
            return Err(MatchError::Foreign {
                path: path.clone(),
                game: n,
                count: b.foreign(),
                bound: b.bound,
                listed: format!("UNAUTHORIZED from #{}: {}", b.bound, listed.join(", ")),
            });
        }
    }
    // Under a policy that has the camps witness live, the entries a crash left past the latest
    // checkpoint (and the recovery entry of a torn tail) are signed at once, before anything new
    // is recorded: the interval resumes from here, and the stretch the camps cosign is never
    // longer than the N entries the policy allows.
    if storage.sealed
        && !line0_seal_v1
        && damage.is_none()
        && storage.witness_every.is_some()
        && storage.can_sign()
        && storage.len() > storage.signed_upto.unwrap_or(0)
        && let Err(w) = storage.checkpoint(Utc::now())
    {
        storage.checkpoint_failed(&w);
        notes.extend(storage.warning.clone());
    }
    let seal_v1 = storage.sealed && line0_seal_v1;
    let mut session = Session::new(game, Box::new(storage), origin);
    if seal_v1 {
        // The seal of `seal/1` is read, never written any more: the game is shown, verified and
        // signed as it is, and not continued.
        let m = format!(
            "game {n} binds its entries with the per-entry seal (seal/1), which this kit reads but no longer writes: it opens read-only (verify, checkpoint, status and pgn read it; a new game binds signed-acts/1)"
        );
        session.frozen = Some(m.clone());
        notes.push(m);
    }
    if let Some(d) = damage {
        session.frozen = Some(format!("the log is damaged and open read-only: {d}"));
        notes.push(format!("LOG DAMAGED, read-only: {d}"));
    }
    let (mut gap, mut uncertainty) = (gap, uncertainty);
    let mut wall_clock = None;
    if playing && running.is_some() && line0_sealed {
        // A sealed log's gap runs only from a beat the arbiter key vouches for (never from the
        // unauthenticated read above).
        let found = heartbeat_findings(match_dir, n, &public, &log_origin, Utc::now());
        notes.extend(found.notes.iter().cloned());
        wall_clock = found.wall_clock.clone();
        let from_beat;
        (gap, uncertainty, from_beat) = gap_from_beat(
            Utc::now(),
            last.mono_ms,
            last_utc,
            found.beat,
            found.after_beat,
        );
        let fits = found.beat.is_some_and(|(mono, _)| mono >= last.mono_ms);
        if let Some(g) = found.by_boot
            && (from_beat || fits)
        {
            (gap, uncertainty) = (g, found.after_beat.min(g));
        }
    }
    if playing && let Some(side) = running {
        session.restart_gap = Some(gap);
        session.restart_side = Some(side);
        session.restart_uncertainty = uncertainty;
        session.restart_wall_clock = wall_clock;
        notes.push(restart_notice(gap, uncertainty, side));
    } else if playing
        && matches!(
            session.game.stop(),
            Some(crate::core::game::Stop::Power { .. })
        )
    {
        // 8b: a restart during the suspension charges nobody, and is recorded all the same: the
        // arbiter records it before anything else.
        session.restart_gap = Some(gap);
        session.restart_side = None;
        session.restart_uncertainty = 0;
        notes.push(format!(
            "RESTART during the 8b suspension: the kit was down {} ({gap} ms measured); no clock ran, nothing is charged: record it with :arbiter restart-gap waive REASON",
            timefmt::clock(gap as i64)
        ));
    }
    // The kept events as the Board UI holds them: each copied once, here (the void window may
    // still share the latest). (A place left empty would be among the oldest: the blocks kept
    // hold at least as many events as are kept.)
    let events: Vec<Event> = events
        .into_iter()
        .flatten()
        .map(|e| Arc::try_unwrap(e).unwrap_or_else(|e| Event::clone(&e)))
        .collect();
    Ok(Attempt::Opened(Box::new(Opened {
        session,
        now_ms,
        notice: (!notes.is_empty()).then(|| notes.join("\n")),
        events_from: seen - events.len(),
        events,
    })))
}

/// The bytes a sealed log's heartbeat signs (Ed25519, the arbiter key): six lines, each ending in
/// `\n`: `arbiter-kit heartbeat v1`, the origin, the game time, the UTC, the boot id and the
/// milliseconds since boot (CLOCK_BOOTTIME, which counts a suspend and ignores the wall clock).
pub fn heartbeat_text(
    origin: &str,
    mono_ms: Ms,
    utc: &str,
    boot_id: &str,
    boottime_ms: u64,
) -> String {
    format!("arbiter-kit heartbeat v1\n{origin}\n{mono_ms}\n{utc}\n{boot_id}\n{boottime_ms}\n")
}

pub use crate::record::live::clock::boot_clock;

/// What a reopen learns from the heartbeat of a sealed log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BeatFindings {
    /// In words for the arbiter: a beat missing, not authentic, a wall clock that moved.
    pub notes: Vec<String>,
    /// The authenticated beat: the game time and UTC the kit is known to have been alive at.
    pub beat: Option<(Ms, DateTime<Utc>)>,
    /// The gap from that beat on the boot clock, when the machine did not restart.
    pub by_boot: Option<Ms>,
    /// How long after `beat` the kit may still have run: the beat interval, plus a v2 beat's slot
    /// (the beat proves only the start of its slot).
    pub after_beat: Ms,
    /// After a restart of the machine: the boot clock's floor on the outage (the kit was down
    /// at least since this boot began), when the wall clock gives less (it was set back). The
    /// gap itself stays the wall clock's, as the running clock was advanced by it: the arbiter
    /// rules with both readings in sight.
    pub reboot_floor: Option<Ms>,
    /// The wall clock disagreed with the boot clock across the outage: both readings, in words
    /// (for the ruling's entry).
    pub wall_clock: Option<String>,
}

/// Across a restart of the machine (the beat's boot is not this one) the boot clock cannot
/// measure the gap, but it bounds it from below: the kit was down from its last beat on, so at
/// least as long as this machine has been up (`up_ms`). A wall-clock reading since the beat
/// (`wall_ms`) shorter than that means the wall clock was set back across the restart: both
/// readings, in words, and the floor.
pub fn reboot_reading(wall_ms: i64, up_ms: u64) -> Option<(String, Ms)> {
    let up = i64::try_from(up_ms).ok()?;
    if wall_ms + 2_000 >= up {
        return None;
    }
    let wall = if wall_ms < 0 {
        format!("{} BEFORE the last heartbeat", timefmt::clock(-wall_ms))
    } else {
        format!("{} since the last heartbeat", timefmt::clock(wall_ms))
    };
    Some((
        format!(
            "the WALL CLOCK was set BACK across the restart of the machine by at least {}: it reads {wall}, but the machine has been up {} since it restarted (boot clock) and the kit was down all that time; the outage was at least {} (boot clock), the gap measured below is the wall clock's {}",
            timefmt::clock(up - wall_ms),
            timefmt::clock(up),
            timefmt::clock(up),
            timefmt::clock(wall_ms.max(0))
        ),
        up_ms,
    ))
}

/// A v1 heartbeat (one line, each beat signed by the arbiter key), still read.
fn verify_beat_v1(
    bytes: &[u8],
    key: &ssh_key::PublicKey,
    origin: &str,
) -> Result<beat::Verified, String> {
    let v: serde_json::Value = serde_json::from_slice(bytes).unwrap_or_default();
    let s = |k: &str| {
        v.get(k)
            .and_then(|x| x.as_str())
            .unwrap_or_default()
            .to_owned()
    };
    let u = |k: &str| v.get(k).and_then(|x| x.as_u64());
    let (Some(mono), Some(boottime)) = (u("mono_ms"), u("boottime_ms")) else {
        return Err("not the kit's signed format".into());
    };
    let (utc, boot_id, sig) = (s("utc"), s("boot_id"), s("sig"));
    let text = heartbeat_text(origin, mono, &utc, &boot_id, boottime);
    if !sign::verify_authorization(key, &text, &sig) {
        return Err("its signature by the arbiter key does not verify".into());
    }
    let utc = DateTime::parse_from_rfc3339(&utc)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| "its UTC does not parse".to_string())?;
    Ok(beat::Verified {
        mono_ms: mono,
        utc,
        boot_id,
        boottime_ms: boottime,
        slack_ms: 0,
    })
}

/// What a reopen learns from the heartbeat of a sealed log (v2, or v1 written by an older kit),
/// in words for the arbiter, the beat it may trust and the gap measured on the boot clock when
/// the machine did not restart.
pub fn heartbeat_findings(
    match_dir: &Path,
    n: u32,
    key: &ssh_key::PublicKey,
    origin: &str,
    now: DateTime<Utc>,
) -> BeatFindings {
    let path = crate::record::layout::heartbeat_path(match_dir, n);
    let mut found = BeatFindings::default();
    let bytes = match crate::record::fsio::read_match_small(&path) {
        Ok(b) => b,
        Err(_) => {
            found.notes.push("heartbeat MISSING: the gap is measured from the last entry, so it may be longer than the outage (was game-N/heartbeat removed?)".into());
            return found;
        }
    };
    let verified = if beat::is_v2(&bytes) {
        beat::verify(&bytes, key, origin)
    } else {
        verify_beat_v1(&bytes, key, origin)
    };
    let v = match verified {
        Ok(v) => v,
        Err(why) => {
            found.notes.push(format!("heartbeat NOT AUTHENTIC ({why}): it is ignored, the gap is measured from the last entry"));
            return found;
        }
    };
    found.beat = Some((v.mono_ms, v.utc));
    found.after_beat = HEARTBEAT_MAX_INTERVAL_MS.saturating_add(v.slack_ms);
    let (now_id, now_boot) = boot_clock();
    let wall = (now - v.utc).num_milliseconds();
    if !now_id.is_empty() && now_id == v.boot_id && now_boot >= v.boottime_ms {
        let by_boot = now_boot - v.boottime_ms;
        let diff = wall - by_boot as i64;
        if diff.abs() > 2_000 {
            let note = format!(
                "the WALL CLOCK {} by {} while the kit was down (boot clock: {} ms, wall clock: {} ms): the gap is measured on the boot clock",
                if diff < 0 {
                    "moved BACKWARDS"
                } else {
                    "JUMPED forward"
                },
                timefmt::clock(diff.abs()),
                by_boot,
                wall
            );
            found.wall_clock = Some(note.clone());
            found.notes.push(note);
        }
        found.by_boot = Some(by_boot);
        return found;
    }
    if let Some((note, floor)) = reboot_reading(wall, now_boot) {
        found.wall_clock = Some(note.clone());
        found.notes.push(note);
        found.reboot_floor = Some(floor);
    } else if wall < 0 {
        let note = format!(
            "the WALL CLOCK is {} behind the last heartbeat and the machine restarted: it was set back while the kit was down; the measured gap is not reliable",
            timefmt::clock(-wall)
        );
        found.wall_clock = Some(note.clone());
        found.notes.push(note);
    }
    found
}

/// The game's last heartbeat (game time, UTC), if it can be read.
fn read_beat(match_dir: &Path, n: u32) -> Option<(Ms, DateTime<Utc>)> {
    let text =
        crate::record::fsio::read(&crate::record::layout::heartbeat_path(match_dir, n), 4096)
            .ok()?;
    let v: serde_json::Value = serde_json::from_slice(&text).ok()?;
    let mono = v.get("mono_ms")?.as_u64()?;
    let utc = DateTime::parse_from_rfc3339(v.get("utc")?.as_str()?)
        .ok()?
        .with_timezone(&Utc);
    Some((mono, utc))
}

/// The gap a restart at `now` rules on: from the last heartbeat when it is later than the last
/// entry and not in the future (a beat that does not fit is ignored), else from the last entry.
pub fn measured_gap(
    now: DateTime<Utc>,
    last_mono: Ms,
    last_utc: DateTime<Utc>,
    beat: Option<(Ms, DateTime<Utc>)>,
) -> Ms {
    measured_gap_bounds(now, last_mono, last_utc, beat).0
}

/// The longest time between two heartbeats while a clock runs: the Board UI beats at its
/// once-a-second tick when at least 0.9 s passed since the last beat, so a tick that came just
/// too early (after a key's beat) is followed by one at most a second later.
pub const HEARTBEAT_MAX_INTERVAL_MS: Ms = 2_000;

/// [`measured_gap`] and how much shorter the real downtime may have been: measured from a
/// heartbeat, the kit ran on for at most one beat interval after it, so the downtime lies
/// between `gap - uncertainty` and `gap`; measured from the last entry (no beat that fits), the
/// uncertainty is not bounded by anything the kit wrote and 0 is given (the gap is the most the
/// downtime can have been).
pub fn measured_gap_bounds(
    now: DateTime<Utc>,
    last_mono: Ms,
    last_utc: DateTime<Utc>,
    beat: Option<(Ms, DateTime<Utc>)>,
) -> (Ms, Ms) {
    let (gap, uncertainty, _) =
        gap_from_beat(now, last_mono, last_utc, beat, HEARTBEAT_MAX_INTERVAL_MS);
    (gap, uncertainty)
}

/// [`measured_gap_bounds`] when the kit may have run up to `after_beat` ms after the beat (a v2
/// beat adds its slot), and whether the gap runs from the beat.
pub fn gap_from_beat(
    now: DateTime<Utc>,
    last_mono: Ms,
    last_utc: DateTime<Utc>,
    beat: Option<(Ms, DateTime<Utc>)>,
    after_beat: Ms,
) -> (Ms, Ms, bool) {
    let (from, beat) = match beat {
        Some((mono, utc)) if mono >= last_mono && utc >= last_utc && utc <= now => (utc, true),
        _ => (last_utc, false),
    };
    let gap = (now - from).num_milliseconds().max(0) as Ms;
    let uncertainty = if beat { after_beat.min(gap) } else { 0 };
    (gap, uncertainty, beat)
}

/// What the arbiter is told at a restart with `side`'s clock running: the gap measured and, when
/// it runs from a heartbeat, the range the real downtime lies in (a `charge` counts its short end).
pub fn restart_notice(gap: Ms, uncertainty: Ms, side: crate::core::Side) -> String {
    let measured = if uncertainty > 0 {
        format!(
            "{gap} ms measured from its last heartbeat; it stopped at most {uncertainty} ms after that beat, so it was down between {} ({} ms) and {}: a charge counts the shorter, in {side}'s favour",
            timefmt::clock(gap.saturating_sub(uncertainty) as i64),
            gap.saturating_sub(uncertainty),
            timefmt::clock(gap as i64)
        )
    } else {
        format!("{gap} ms measured")
    };
    format!(
        "RESTART: the kit was down {} ({measured}) with {side}'s clock running: :arbiter restart-gap waive|charge [H:MM:SS] REASON (arbiter stop stops the clocks meanwhile)",
        timefmt::clock(gap as i64)
    )
}

impl MatchError {
    /// The game is held by another arbiter process (another board, a script): not available now.
    pub fn is_held_elsewhere(&self) -> bool {
        matches!(self, MatchError::Journal(JournalError::Locked(_)))
    }
}

/// Games of the match before game `n` whose log records no result.
pub fn unfinished_before(match_dir: &Path, n: u32) -> Vec<u32> {
    games(match_dir)
        .into_iter()
        .filter(|&g| g < n && !is_finished(match_dir, g))
        .collect()
}

/// Game `n` is opened while an earlier game of the match has no result. The arbiter
/// may have a reason (an adjourned game, a game suspended under 8b, a dispute before the
/// committee, 12), so the kit does not refuse; it names the unfinished games wherever game `n` is
/// opened or shown (`play`'s board, `script`, `status`), so the score is never read as final.
pub fn unfinished_warning(match_dir: &Path, n: u32) -> Option<String> {
    let open = unfinished_before(match_dir, n);
    let names: Vec<String> = open.iter().map(|g| format!("game {g}")).collect();
    match names.len() {
        0 => None,
        k => Some(format!(
            "UNFINISHED: {} of this match {} no result recorded while game {n} is played (1: \
             record {} result, or note why {} open: an adjournment, a suspension (8b), a ruling \
             awaited (12)); the match score leaves {} out",
            names.join(", "),
            if k == 1 { "has" } else { "have" },
            if k == 1 { "its" } else { "their" },
            if k == 1 { "it stays" } else { "they stay" },
            if k == 1 { "it" } else { "them" },
        )),
    }
}

/// Whether a game's log records a result. Each line's kind is read from its header (the
/// entries are not parsed: opening game 2 after a 1,000,000-entry game 1); what a log
/// said is kept for the process while the file stays as it was ([`read_once`]).
pub fn is_finished(match_dir: &Path, n: u32) -> bool {
    static SEEN: Seen<bool> = std::sync::Mutex::new(Vec::new());
    let path = log_path(match_dir, n);
    read_once(&SEEN, &path, || {
        let mut ended = false;
        let _ = crate::record::journal::for_each_line(&path, |l| {
            let kind = match crate::log::codec::line_kind(l.bytes) {
                Some(k) => k == "game_ended",
                None => match crate::log::parse_line(l.bytes, l.offset) {
                    Ok(e) => e.kind == "game_ended",
                    // As the entry reader: the reading stops at a line it cannot parse.
                    Err(_) => return false,
                },
            };
            ended |= kind;
            !ended
        });
        ended
    })
}

/// What one process learnt of a game log, by path, with the file's length and modification
/// time when it was read.
type Seen<T> = std::sync::Mutex<Vec<(PathBuf, (u64, Option<std::time::SystemTime>), T)>>;

/// `read()` of the log at `path`, or what it gave before in this process if the file has the
/// same length and modification time (a command that opens game `n` asks of the earlier games
/// more than once: whether each is finished, the score).
fn read_once<T: Clone>(seen: &Seen<T>, path: &Path, read: impl FnOnce() -> T) -> T {
    let stamp = std::fs::symlink_metadata(path)
        .map(|m| (m.len(), m.modified().ok()))
        .ok();
    let Some(stamp) = stamp else {
        return read();
    };
    if let Ok(kept) = seen.lock()
        && let Some((_, _, v)) = kept.iter().find(|(p, s, _)| p == path && *s == stamp)
    {
        return v.clone();
    }
    let v = read();
    if let Ok(mut kept) = seen.lock() {
        kept.retain(|(p, _, _)| p != path);
        kept.push((path.to_owned(), stamp, v.clone()));
    }
    v
}

/// Entries covered by the latest checkpoint file of a game.
pub fn latest_checkpoint(match_dir: &Path, n: u32) -> Option<usize> {
    std::fs::read_dir(layout::checkpoints_dir(match_dir, n))
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|f| f.strip_suffix(".txt"))
                .and_then(|n| n.parse().ok())
        })
        .max()
}

/// Match score over the games of a folder: (name, points) per player, in order of appearance.
/// Games whose log cannot be read or replayed are left out.
pub fn match_score(match_dir: &Path) -> Vec<(String, f64)> {
    match_score_with(match_dir, None)
}

/// [`match_score`] over the games numbered below `before` (all games when `None`).
fn match_score_before(match_dir: &Path, before: Option<u32>) -> Vec<(String, f64)> {
    score_table(match_dir, before, None)
}

/// [`match_score`] with one game already rebuilt by the caller (`known`: its number and state,
/// as the log holds it): that game's log is not read again (`status` and the board's
/// opening read a 1,000,000-entry log once more for the score alone).
pub fn match_score_with(match_dir: &Path, known: Option<(u32, &Game)>) -> Vec<(String, f64)> {
    score_table(match_dir, None, known)
}

/// The score table over the games below `before` (all when `None`), `known` not read again.
fn score_table(
    match_dir: &Path,
    before: Option<u32>,
    known: Option<(u32, &Game)>,
) -> Vec<(String, f64)> {
    let mut table: Vec<(String, f64)> = Vec::new();
    for n in games(match_dir)
        .into_iter()
        .filter(|n| before.is_none_or(|b| *n < b))
    {
        let scored = match known {
            Some((k, g)) if k == n => game_score(g),
            _ => {
                static SEEN: Seen<Option<[(String, f64); 2]>> = std::sync::Mutex::new(Vec::new());
                let path = log_path(match_dir, n);
                read_once(&SEEN, &path, || {
                    replay_log(&path, |_, _| {})
                        .ok()
                        .and_then(|r| game_score(&r.game))
                })
            }
        };
        for (name, points) in scored.into_iter().flatten() {
            match table.iter_mut().find(|(n, _)| *n == name) {
                Some(row) => row.1 += points,
                None => table.push((name, points)),
            }
        }
    }
    table
}

/// A finished game's points, by player name (White's first).
fn game_score(g: &Game) -> Option<[(String, f64); 2]> {
    let points = g.points()?;
    Some(Side::BOTH.map(|side| {
        let name = g
            .player(side)
            .map_or_else(|| side.to_string(), |p| p.name.clone());
        (name, points[side.index()])
    }))
}
