//! A match folder on disk: games opened or created with their journal and the arbiter's key, the
//! restart after a crash, and checkpoint signing at the moments the rules make important.
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use ssh_key::PrivateKey;

use crate::cli::KeyArgs;
use crate::core::event::{Algorithm, Event, EventKind, KeyRef};
use crate::core::game::{Game, GameContext, Phase};
use crate::core::{Ms, timefmt};
use crate::journal::Journal;
use crate::log::{Entry, NewEntry};
use crate::session::{
    Session, Storage, StorageStatus, event_from_value, game_dir, games, kind_and_body,
    load_profile, log_path, match_id,
};
use crate::sign;

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
            | EventKind::TechnicalProblem { .. }
            | EventKind::TechnicalResolved { .. }
            | EventKind::PowerFailed { .. }
            | EventKind::PowerRestored { .. }
            | EventKind::GameEnded { .. }
            | EventKind::EngineLogArchived(_)
            | EventKind::ProgramArchived(_)
    )
}

/// A callback run after every durable append.
pub type OnAppend = Box<dyn FnMut(&Entry)>;

/// The game log as a session's storage: the journal is created with line 0 (`game_opened`).
pub struct JournalStorage {
    pub match_dir: PathBuf,
    pub game: u32,
    pub match_id: String,
    pub path: PathBuf,
    pub journal: Option<Journal>,
    pub key: Option<PrivateKey>,
    pub signed_upto: Option<usize>,
    pub warning: Option<String>,
    /// Called after every durable append (script mode's `--echo`).
    pub on_append: Option<OnAppend>,
}

impl JournalStorage {
    /// Sign a checkpoint over everything recorded so far.
    pub fn checkpoint(&mut self, now: DateTime<Utc>) -> Result<PathBuf, String> {
        let j = self.journal.as_ref().ok_or("nothing recorded yet")?;
        let key = self.key.as_ref().ok_or("no signing key")?;
        let p = sign::sign_checkpoint(
            &self.match_dir,
            self.game,
            &self.match_id,
            j.entries(),
            key,
            now,
        )
        .map_err(|e| e.to_string())?;
        self.signed_upto = Some(j.entries().len());
        Ok(p)
    }
}

impl Storage for JournalStorage {
    fn append(&mut self, e: &Event, utc: DateTime<Utc>) -> Result<(), String> {
        let (kind, body) = kind_and_body(e);
        let ne = NewEntry {
            mono_ms: e.at,
            utc,
            actor: e.actor.name().to_string(),
            clause: e.clause.clone(),
            kind,
            body,
        };
        let entry = match &mut self.journal {
            Some(j) => j.append(ne).map_err(|e| e.to_string())?.clone(),
            None => {
                let j = Journal::create(&self.path, ne).map_err(|e| e.to_string())?;
                let first = j
                    .entries()
                    .first()
                    .cloned()
                    .ok_or("the journal lost line 0")?;
                self.journal = Some(j);
                first
            }
        };
        if let Some(f) = self.on_append.as_mut() {
            f(&entry);
        }
        if signs_checkpoint(&e.kind)
            && let Err(w) = self.checkpoint(Utc::now())
        {
            // The entry is durable; only the signature is missing. Tell the arbiter, go on.
            self.warning = Some(format!("checkpoint not signed: {w}"));
        }
        Ok(())
    }

    fn len(&self) -> usize {
        self.journal.as_ref().map_or(0, |j| j.entries().len())
    }

    fn status(&self) -> StorageStatus {
        let last = self
            .journal
            .as_ref()
            .and_then(|j| j.entries().last())
            .map(|e| format!("#{} {} {} ({})", e.seq, e.actor, e.kind, e.clause));
        StorageStatus {
            entries: self.len(),
            last_entry: last,
            signed_upto: self.signed_upto,
            warning: self.warning.clone(),
        }
    }

    fn set_on_append(&mut self, f: OnAppend) {
        self.on_append = Some(f);
    }

    fn checkpoint_now(&mut self, now: DateTime<Utc>) -> Result<String, String> {
        self.checkpoint(now).map(|p| p.display().to_string())
    }
}

/// The arbiter's key and how line 0 names it.
pub fn arbiter_key(k: &KeyArgs, match_dir: &Path) -> Result<(PrivateKey, KeyRef), String> {
    let key = sign::key_from_args(k, match_dir).map_err(|e| e.to_string())?;
    let fp = sign::fingerprint(key.public_key());
    let principal = std::fs::read_to_string(match_dir.join("allowed_signers"))
        .ok()
        .and_then(|t| {
            let (signers, _) = sign::parse_allowed_signers(&t);
            signers
                .into_iter()
                .find(|s| sign::fingerprint(&s.key) == fp)
                .and_then(|s| s.principals.first().cloned())
        })
        .unwrap_or_else(|| sign::DEFAULT_PRINCIPAL.to_string());
    Ok((
        key,
        KeyRef {
            principal,
            fingerprint: fp,
        },
    ))
}

/// 6c: the algorithm in force for the previous game, if there is one.
pub fn previous_algorithm(match_dir: &Path, game: u32) -> Option<(u32, Algorithm)> {
    let prev = games(match_dir).into_iter().filter(|g| *g < game).max()?;
    let entries = crate::journal::read_entries(&log_path(match_dir, prev)).ok()?;
    let first = event_from_value(&entry_value(entries.first()?)).ok()?;
    match first.kind {
        EventKind::GameOpened(o) => Some((prev, o.declarations.algorithm)),
        _ => None,
    }
}

/// An entry as the JSON object of its line.
pub fn entry_value(e: &Entry) -> serde_json::Value {
    serde_json::json!({"mono_ms": e.mono_ms, "actor": e.actor, "clause": e.clause, "kind": e.kind, "body": e.body})
}

/// Events of journal entries (one copy of each body, no intermediate line object).
pub fn events_of(entries: &[Entry]) -> Result<Vec<Event>, String> {
    entries.iter().map(event_of).collect()
}

/// The event of one journal entry.
pub fn event_of(e: &Entry) -> Result<Event, String> {
    let fail = |m: String| format!("entry {} ({}): {m}", e.seq, e.kind);
    let actor = crate::core::Actor::parse(&e.actor)
        .ok_or_else(|| fail(format!("unknown actor '{}'", e.actor)))?;
    let mut kb = serde_json::Map::with_capacity(2);
    kb.insert("kind".into(), serde_json::Value::String(e.kind.clone()));
    if !e.body.is_null() {
        kb.insert("body".into(), e.body.clone());
    }
    let kind: EventKind = serde_json::from_value(serde_json::Value::Object(kb))
        .map_err(|m| fail(format!("body: {m}")))?;
    Ok(Event {
        at: e.mono_ms,
        actor,
        clause: e.clause.clone(),
        kind,
    })
}

/// A game ready for the Board UI or a script: its session and the monotonic offset of "now".
pub struct Opened {
    pub session: Session,
    /// Monotonic game time at the moment of opening.
    pub now_ms: Ms,
    /// What the arbiter must be told first (restart gap, recovery, damage).
    pub notice: Option<String>,
}

/// Open game `n` (or the unfinished one, or a new one) of a match folder for writing.
pub fn open_game(
    match_dir: &Path,
    n: Option<u32>,
    rules: &Path,
    key: &KeyArgs,
) -> Result<Opened, String> {
    let existing = games(match_dir);
    let n = match n {
        Some(n) => n,
        None => match existing.last() {
            Some(&last) if !is_finished(match_dir, last) => last,
            Some(&last) => last + 1,
            None => 1,
        },
    };
    let (key, keyref) = arbiter_key(key, match_dir)?;
    let path = log_path(match_dir, n);
    let mid = match_id(match_dir);
    let mut storage = JournalStorage {
        match_dir: match_dir.to_path_buf(),
        game: n,
        match_id: mid.clone(),
        path: path.clone(),
        journal: None,
        key: Some(key),
        signed_upto: None,
        warning: None,
        on_append: None,
    };
    if !path.exists() {
        let (profile, pref) = load_profile(rules)?;
        let ctx = GameContext {
            match_id: mid,
            game: n,
            profile: pref,
            arbiter_key: keyref,
            previous_algorithm: previous_algorithm(match_dir, n),
        };
        let game = Game::new(ctx, profile);
        return Ok(Opened {
            session: Session::new(game, Box::new(storage), Utc::now()),
            now_ms: 0,
            notice: None,
        });
    }
    let journal = Journal::open(&path).map_err(|e| e.to_string())?;
    let entries = journal.entries().to_vec();
    let events = events_of(&entries)?;
    let game = Game::replay(events.iter()).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut notes = Vec::new();
    if let Some(r) = journal.recovery() {
        notes.push(format!(
            "recovered: a torn last line was cut off ({}); see entry #{}",
            r.body, r.seq
        ));
    }
    let damage = journal.damage().map(|d| d.to_string());
    storage.signed_upto = latest_checkpoint(match_dir, n);
    storage.journal = Some(journal);
    let last = entries.last().ok_or("empty log")?;
    let last_utc = DateTime::parse_from_rfc3339(&last.utc)
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_else(|_| Utc::now());
    let gap = (Utc::now() - last_utc).num_milliseconds().max(0) as Ms;
    let now_ms = last.mono_ms + gap;
    let origin = Utc::now() - chrono::Duration::milliseconds(now_ms as i64);
    let running = game.clock.running();
    let playing = game.phase == Phase::Playing;
    let mut session = Session::new(game, Box::new(storage), origin);
    if let Some(d) = damage {
        session.frozen = Some(format!("the log is damaged and open read-only: {d}"));
        notes.push(format!("LOG DAMAGED, read-only: {d}"));
    }
    if playing && let Some(side) = running {
        session.restart_gap = Some(gap);
        notes.push(format!("RESTART {} after the last entry, {side}'s clock running: :arbiter restart-gap {} charge|waive", timefmt::clock(gap as i64), timefmt::exact(gap)));
    }
    Ok(Opened {
        session,
        now_ms,
        notice: (!notes.is_empty()).then(|| notes.join("\n")),
    })
}

/// Whether a game's log records a result.
pub fn is_finished(match_dir: &Path, n: u32) -> bool {
    crate::journal::read_entries(&log_path(match_dir, n))
        .map(|es| es.iter().any(|e| e.kind == "game_ended"))
        .unwrap_or(false)
}

/// Entries covered by the latest checkpoint file of a game.
pub fn latest_checkpoint(match_dir: &Path, n: u32) -> Option<usize> {
    std::fs::read_dir(game_dir(match_dir, n).join("checkpoints"))
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
