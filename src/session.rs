//! Glue between the shell and the pure core: `now -> decide -> append -> evolve`.
//!
//! Every event is first appended to the game's storage (the journal: write + fdatasync), and only
//! then applied to the state and shown. Events the passing of time causes (flag fall, the 9e
//! limit, automatic results) are recorded by [`Session::catch_up`] before any command.
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::cli::{CheckpointArgs, ScriptArgs, StatusArgs};
use crate::core::command::Command;
use crate::core::event::{Event, EventKind, ProfileRef};
use crate::core::game::{Game, GameContext, Phase};
use crate::core::rules::Profile;
use crate::core::script::{ScriptLine, parse_script};
use crate::core::{Ms, Refusal, Side, timefmt};

/// Where a session's events go. `append` returns only once the event is durable.
pub trait Storage {
    fn append(&mut self, event: &Event, utc: DateTime<Utc>) -> Result<(), String>;
    /// Entries recorded so far (for the status line).
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// What the Board UI's status line shows about the log.
    fn status(&self) -> StorageStatus {
        StorageStatus {
            entries: self.len(),
            ..StorageStatus::default()
        }
    }
    /// Call `f` after every durable append.
    fn set_on_append(&mut self, _f: crate::matchdir::OnAppend) {}
    /// Sign a checkpoint now (when the arbiter asks). Returns its path.
    fn checkpoint_now(&mut self, _now: DateTime<Utc>) -> Result<String, String> {
        Err("this session keeps no log to sign (dry run)".into())
    }
}

/// The log's state for the status line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StorageStatus {
    pub entries: usize,
    pub last_entry: Option<String>,
    /// Entries covered by the latest signed checkpoint.
    pub signed_upto: Option<usize>,
    /// A problem that does not stop play (e.g. a checkpoint that could not be signed).
    pub warning: Option<String>,
}

/// In-memory storage, for dry runs and tests.
#[derive(Debug, Default)]
pub struct Memory {
    pub events: Vec<Event>,
    /// Fail every append from this index on (fault injection in tests).
    pub fail_from: Option<usize>,
}

impl Storage for Memory {
    fn append(&mut self, event: &Event, _utc: DateTime<Utc>) -> Result<(), String> {
        if self.fail_from.is_some_and(|n| self.events.len() >= n) {
            return Err("injected storage failure".into());
        }
        self.events.push(event.clone());
        Ok(())
    }
    fn len(&self) -> usize {
        self.events.len()
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SessionError {
    #[error("{0}")]
    Refused(#[from] Refusal),
    /// The log could not be written: nothing more is accepted (the alarm of the Board UI).
    #[error("LOG WRITE FAILED, input frozen: {0}")]
    Storage(String),
    /// An event produced by the core could not be applied (a bug; nothing was shown as done).
    #[error("internal error applying an event: {0}")]
    Apply(String),
}

/// A live game: its state and its storage. The state is never stored anywhere else.
pub struct Session {
    pub game: Game,
    pub storage: Box<dyn Storage>,
    /// UTC time of monotonic offset 0, for the wall-clock column of the log.
    pub utc_origin: DateTime<Utc>,
    /// Set when an append failed: every later command is refused.
    pub frozen: Option<String>,
    /// After a restart with a clock running: the measured gap, until the arbiter decides whether
    /// the running clock is charged for it (8b waive / 6d charge). Nothing else is accepted
    /// before that decision, and no time-caused event is recorded.
    pub restart_gap: Option<Ms>,
}

impl Session {
    pub fn new(game: Game, storage: Box<dyn Storage>, utc_origin: DateTime<Utc>) -> Session {
        Session {
            game,
            storage,
            utc_origin,
            frozen: None,
            restart_gap: None,
        }
    }

    /// Print every entry as soon as it is durable (script mode `--echo`, used by the crash test).
    pub fn set_echo(&mut self) {
        self.storage
            .set_on_append(Box::new(|e: &crate::log::Entry| {
                use std::io::Write;
                let mut out = std::io::stdout().lock();
                let _ = writeln!(
                    out,
                    "appended {} {} {}",
                    e.seq,
                    crate::log::hex32(&e.hash),
                    e.kind
                );
                let _ = out.flush();
            }));
    }

    pub fn utc_at(&self, at: Ms) -> DateTime<Utc> {
        self.utc_origin + Duration::milliseconds(at as i64)
    }

    fn record(&mut self, e: &Event) -> Result<(), SessionError> {
        if let Some(f) = &self.frozen {
            return Err(SessionError::Storage(f.clone()));
        }
        // Check the event applies before writing it, so the log never holds an entry the
        // state refuses; then write durably; only then change the state.
        let mut next = self.game.clone();
        next.evolve(e).map_err(SessionError::Apply)?;
        if let Err(msg) = self.storage.append(e, self.utc_at(e.at)) {
            self.frozen = Some(msg.clone());
            return Err(SessionError::Storage(msg));
        }
        self.game = next;
        Ok(())
    }

    /// Record every event that time or state makes due at or before `now`.
    pub fn catch_up(&mut self, now: Ms) -> Result<Vec<Event>, SessionError> {
        let mut out = Vec::new();
        if self.restart_gap.is_some() {
            return Ok(out);
        }
        while let Some(e) = self.game.due(now) {
            self.record(&e)?;
            out.push(e);
        }
        Ok(out)
    }

    /// Run one command at `now`: due events first, then the command's events, then any events
    /// they make due (e.g. a checkmate). Returns everything recorded.
    pub fn execute(&mut self, cmd: &Command, now: Ms) -> Result<Vec<Event>, SessionError> {
        if let Some(f) = &self.frozen {
            return Err(SessionError::Storage(f.clone()));
        }
        if let Some(gap) = self.restart_gap {
            let Command::RestartGap { charge, .. } = cmd else {
                return Err(SessionError::Refused(Refusal::new(
                    crate::core::clause::POWER_FAILURE,
                    format!(
                        "the kit restarted {} after its last entry with a clock running: decide first, arbiter restart-gap {} charge|waive",
                        timefmt::clock(gap as i64),
                        timefmt::exact(gap)
                    ),
                )));
            };
            let decided = Command::RestartGap {
                gap_ms: gap,
                charge: *charge,
            };
            let now = now.max(self.game.last_at);
            let events = self.game.decide(&decided, now)?;
            let mut out = Vec::new();
            for e in &events {
                self.record(e)?;
                out.push(e.clone());
            }
            self.restart_gap = None;
            out.extend(self.catch_up(now)?);
            return Ok(out);
        }
        let mut out = self.catch_up(now)?;
        if Game::is_declaration(cmd) && self.game.phase == Phase::Draft {
            self.game.declare(cmd)?;
            return Ok(out);
        }
        let now = now.max(self.game.last_at);
        let events = self.game.decide(cmd, now)?;
        for e in &events {
            self.record(e)?;
            out.push(e.clone());
        }
        out.extend(self.catch_up(now)?);
        Ok(out)
    }
}

// ----- match folders ----------------------------------------------------------------------

/// Folder of game `n` of a match.
pub fn game_dir(match_dir: &Path, n: u32) -> PathBuf {
    match_dir.join(format!("game-{n}"))
}

/// Log file of game `n`.
pub fn log_path(match_dir: &Path, n: u32) -> PathBuf {
    game_dir(match_dir, n).join("log.jsonl")
}

/// Game numbers that have a folder in the match, ascending.
pub fn games(match_dir: &Path) -> Vec<u32> {
    let mut v: Vec<u32> = std::fs::read_dir(match_dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| {
                    e.file_name()
                        .to_str()
                        .and_then(|n| n.strip_prefix("game-"))
                        .and_then(|n| n.parse().ok())
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort_unstable();
    v
}

/// The match id: the match folder's name.
pub fn match_id(match_dir: &Path) -> String {
    let canon = std::fs::canonicalize(match_dir).unwrap_or_else(|_| match_dir.to_path_buf());
    canon
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("match")
        .to_string()
}

/// A session kept in memory only (dry runs, rehearsals, tests), on the rules profile at `rules`.
pub fn memory_session(rules: &Path, match_id: &str, game: u32) -> Result<Session, String> {
    let (profile, pref) = load_profile(rules)?;
    let ctx = GameContext::unsigned(match_id, game, pref);
    Ok(Session::new(
        Game::new(ctx, profile),
        Box::new(Memory::default()),
        Utc::now(),
    ))
}

/// Load a rules profile file, with the reference line 0 binds.
pub fn load_profile(path: &Path) -> Result<(Profile, ProfileRef), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let profile = Profile::parse(&path.display().to_string(), &text).map_err(|e| e.to_string())?;
    let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(text.as_bytes()));
    let file = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("rules.toml")
        .to_string();
    let r = ProfileRef {
        name: profile.profile.name.clone(),
        file,
        sha256: sha,
        toml: text,
    };
    Ok((profile, r))
}

// ----- printing the state ---------------------------------------------------------------

#[derive(Debug, Serialize)]
pub struct Summary {
    pub match_id: String,
    pub game: u32,
    pub phase: Phase,
    pub clocks: Vec<(Side, String, String)>,
    pub moves: Vec<String>,
    pub result: Option<String>,
    pub entries: usize,
}

/// The final-state text of `arbiter script` and `arbiter status`.
pub fn summary_text(game: &Game, now: Ms, entries: usize) -> String {
    let v = game.view(now, usize::MAX);
    let mut s = String::new();
    s.push_str(&format!(
        "match {} game {} ({})\n",
        v.match_id, v.game, v.rules
    ));
    for c in &v.clocks {
        let mark = if c.running { " (running)" } else { "" };
        s.push_str(&format!(
            "  {:<5} {:<24} {}{}  moves {}  period {}\n",
            c.side.name(),
            c.name,
            timefmt::clock(c.remaining_ms),
            mark,
            c.moves_made,
            c.period
        ));
    }
    let moves: Vec<String> = v.last_moves.clone();
    s.push_str(&format!(
        "moves ({}): {}\n",
        v.plies,
        if moves.is_empty() {
            "-".to_string()
        } else {
            moves.join(" ")
        }
    ));
    if let Some(fen) = &v.fen {
        s.push_str(&format!("fen: {fen}\n"));
    }
    match &game.outcome {
        Some(o) => s.push_str(&format!(
            "result: {} ({:?}: {})\n",
            o.score.text(),
            o.termination,
            o.detail
        )),
        None => s.push_str(&format!("result: none yet ({:?})\n", game.phase)),
    }
    s.push_str(&format!("log entries: {entries}\n"));
    s
}

/// Match score over the games of a folder: (name, points) per player, in order of appearance.
pub fn match_score(match_dir: &Path) -> Vec<(String, f64)> {
    let mut table: Vec<(String, f64)> = Vec::new();
    for n in games(match_dir) {
        let Ok(events) = read_events(&log_path(match_dir, n)) else {
            continue;
        };
        let Ok(g) = Game::replay(events.iter()) else {
            continue;
        };
        let Some(points) = g.points() else { continue };
        for side in Side::BOTH {
            let name = g
                .player(side)
                .map_or_else(|| side.to_string(), |p| p.name.clone());
            match table.iter_mut().find(|(n, _)| *n == name) {
                Some(row) => row.1 += points[side.index()],
                None => table.push((name, points[side.index()])),
            }
        }
    }
    table
}

/// Read the events of a log file (strict; no repair).
pub fn read_events(path: &Path) -> Result<Vec<Event>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .map(|(i, l)| event_from_line(l).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1)))
        .collect()
}

/// An event from one log line's JSON (`mono_ms`, `actor`, `clause`, `kind`, `body`).
pub fn event_from_line(line: &str) -> Result<Event, String> {
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
    event_from_value(&v)
}

pub fn event_from_value(v: &serde_json::Value) -> Result<Event, String> {
    let at = v
        .get("mono_ms")
        .and_then(|x| x.as_u64())
        .ok_or("missing mono_ms")?;
    let actor = v
        .get("actor")
        .and_then(|x| x.as_str())
        .and_then(crate::core::Actor::parse)
        .ok_or("bad actor")?;
    let clause = v
        .get("clause")
        .and_then(|x| x.as_str())
        .ok_or("missing clause")?
        .to_string();
    let mut kb = serde_json::Map::new();
    kb.insert("kind".into(), v.get("kind").cloned().ok_or("missing kind")?);
    if let Some(b) = v.get("body").filter(|b| !b.is_null()) {
        kb.insert("body".into(), b.clone());
    }
    let kind: EventKind =
        serde_json::from_value(serde_json::Value::Object(kb)).map_err(|e| format!("body: {e}"))?;
    Ok(Event {
        at,
        actor,
        clause,
        kind,
    })
}

/// The `kind` and `body` of an event as written in the log.
pub fn kind_and_body(e: &Event) -> (String, serde_json::Value) {
    let v = serde_json::to_value(&e.kind).unwrap_or(serde_json::Value::Null);
    let kind = v
        .get("kind")
        .and_then(|k| k.as_str())
        .unwrap_or("")
        .to_string();
    let body = v.get("body").cloned().unwrap_or(serde_json::Value::Null);
    (kind, body)
}

// ----- script mode ----------------------------------------------------------------------

/// Run parsed script lines through a session. Stops at the first refusal, which is returned
/// with its script line number.
pub fn run_script(
    session: &mut Session,
    lines: &[ScriptLine],
) -> Result<Ms, (usize, SessionError)> {
    let mut now = 0;
    for l in lines {
        now = l.at.max(now);
        session.execute(&l.command, now).map_err(|e| (l.line, e))?;
    }
    // Let due events at the last time be recorded (e.g. a flag at exactly that moment).
    session.catch_up(now).map_err(|e| (0, e))?;
    Ok(now)
}

pub fn cmd_script(a: &ScriptArgs) -> ExitCode {
    let text = match std::fs::read_to_string(&a.file) {
        Ok(t) => t,
        Err(e) => return crate::cli::fail(66, format!("{}: {e}", a.file.display())),
    };
    let lines = match parse_script(&text) {
        Ok(l) => l,
        Err(e) => return crate::cli::fail(65, format!("{}:{e}", a.file.display())),
    };
    let mut session = if a.dry_run {
        let n = a
            .game
            .unwrap_or_else(|| games(&a.m.dir).last().map_or(1, |g| g + 1));
        match memory_session(&a.rules, &match_id(&a.m.dir), n) {
            Ok(s) => s,
            Err(e) => return crate::cli::fail(65, e),
        }
    } else {
        let n = a
            .game
            .unwrap_or_else(|| games(&a.m.dir).last().map_or(1, |g| g + 1));
        if log_path(&a.m.dir, n).exists() {
            return crate::cli::fail(
                65,
                format!(
                    "game {n} of {} already has a log; a script starts a new game (leave out --game)",
                    a.m.dir.display()
                ),
            );
        }
        match crate::matchdir::open_game(&a.m.dir, Some(n), &a.rules, &a.key) {
            Ok(mut o) => {
                if a.echo {
                    o.session.set_echo();
                }
                o.session
            }
            Err(e) => return crate::cli::fail(66, e),
        }
    };
    let result = run_script(&mut session, &lines);
    if !a.dry_run && !session.storage.is_empty() && session.frozen.is_none() {
        // Closing the session: sign what was recorded, so nothing is left as an unsigned tail.
        if let Err(w) = session.storage.checkpoint_now(Utc::now()) {
            eprintln!("arbiter: warning: checkpoint not signed: {w}");
        }
    }
    let now = match &result {
        Ok(t) => *t,
        Err(_) => session.game.last_at,
    };
    if a.json {
        let v = session.game.view(now, usize::MAX);
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        print!(
            "{}",
            summary_text(&session.game, now, session.storage.len())
        );
        if !a.dry_run {
            for (name, pts) in match_score(&a.m.dir) {
                println!("match score: {name} {pts}");
            }
        }
    }
    if let Some(w) = session.storage.status().warning {
        eprintln!("arbiter: warning: {w}");
    }
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err((line, e)) => crate::cli::fail(
            if matches!(e, SessionError::Refused(_)) {
                1
            } else {
                74
            },
            format!("{}:{line}: {e}", a.file.display()),
        ),
    }
}

pub fn cmd_status(a: &StatusArgs) -> ExitCode {
    let Some(n) = a.game.or_else(|| games(&a.m.dir).last().copied()) else {
        return crate::cli::fail(66, format!("{}: no games", a.m.dir.display()));
    };
    let events = match read_events(&log_path(&a.m.dir, n)) {
        Ok(e) => e,
        Err(e) => return crate::cli::fail(66, e),
    };
    match Game::replay(events.iter()) {
        Ok(g) => {
            if a.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&g.view(g.last_at, usize::MAX))
                        .unwrap_or_default()
                );
            } else {
                print!("{}", summary_text(&g, g.last_at, events.len()));
                for (name, pts) in match_score(&a.m.dir) {
                    println!("match score: {name} {pts}");
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => crate::cli::fail(65, e),
    }
}

pub fn cmd_checkpoint(a: &CheckpointArgs) -> ExitCode {
    let Some(n) = a.game.or_else(|| games(&a.m.dir).last().copied()) else {
        return crate::cli::fail(66, format!("{}: no games", a.m.dir.display()));
    };
    let entries = match crate::journal::read_entries(&log_path(&a.m.dir, n)) {
        Ok(e) => e,
        Err(e) => return crate::cli::fail(65, e),
    };
    let (key, _) = match crate::matchdir::arbiter_key(&a.key, &a.m.dir) {
        Ok(k) => k,
        Err(e) => return crate::cli::fail(66, e),
    };
    match crate::sign::sign_checkpoint(&a.m.dir, n, &match_id(&a.m.dir), &entries, &key, Utc::now())
    {
        Ok(p) => {
            println!("{}", p.display());
            ExitCode::SUCCESS
        }
        Err(e) => crate::cli::fail(74, e),
    }
}
