//! After the game (rule 13): the engine-log and program archive appended to the game log with the
//! 13a deadline check and the 13c coverage, and the PGN export.
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::archive::{ArchiveError, archive_copies};
use crate::core::event::{Event, EventKind, Score};
use crate::core::game::{Game, Phase, ReplayError};
use crate::core::{Actor, Ms, clause};
use crate::enginelog::{self, EngineLogError, MachineMove};
use crate::journal::{Damage, Journal, JournalError};
use crate::layout::{game_dir, log_path};
use crate::log::codec::{DecodeError, events_of, new_entry};
use crate::matchdir::arbiter_key;
use crate::report::pgn::{PgnGame, PgnMove, write_pgn};
use crate::sign::KeySource;

fn parse_utc(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The machine's moves of a finished game with the time each took, for the 13c check.
pub fn machine_moves(game: &Game, events: &[Event]) -> Result<Vec<MachineMove>, EngineLogError> {
    let Some(m) = game.machine_side() else {
        return Ok(Vec::new());
    };
    let sans: Vec<String> = game.board.moves().iter().map(|x| x.san.clone()).collect();
    let mut mm = enginelog::machine_moves_from_san(&sans, m == crate::core::Side::White, None)?;
    let spent = pgn_moves(events);
    for x in &mut mm {
        x.spent_ms = spent.get(x.ply).map(|p| p.spent_ms);
    }
    Ok(mm)
}

/// Rule 6c from the engine's own log: the clock it was given at each search against the machine's
/// official clock when its turn began, with the declared threshold (else the profile's).
pub fn audit_6c(
    game: &Game,
    events: &[Event],
    log: &enginelog::EngineLog,
    coverage: &enginelog::Coverage,
) -> enginelog::ClockAudit {
    let machine = game.machine_side();
    let official: Vec<enginelog::OfficialClock> = crate::report::times::times(events)
        .moves
        .iter()
        .filter(|m| Some(m.side) == machine)
        .map(|m| enginelog::OfficialClock {
            ply: m.ply,
            official_ms: m.turn_clock_ms,
            synced: m.synced_in_turn,
        })
        .collect();
    let threshold = game
        .decl
        .as_ref()
        .map_or(game.profile.sync_threshold_ms(), |d| {
            d.algorithm.threshold_ms
        });
    enginelog::clock_audit(
        log,
        coverage,
        machine == Some(crate::core::Side::White),
        &official,
        threshold,
    )
}

/// The moves standing at the end with their clock figures, following takebacks and 7c corrections;
/// each move's time is the drop of its side's clock between its presses (`report::times`).
pub fn pgn_moves(events: &[Event]) -> Vec<PgnMove> {
    crate::report::times::times(events).pgn_moves().0
}

/// The game as PGN.
pub fn pgn_of(events: &[Event], first_utc: &str) -> Result<String, ReplayError> {
    let game = Game::replay(events.iter())?;
    let date = parse_utc(first_utc).map_or_else(
        || "????.??.??".to_string(),
        |t| t.format("%Y.%m.%d").to_string(),
    );
    let name = |s| {
        game.player(s)
            .map_or_else(|| "?".to_string(), |p| p.name.clone())
    };
    let (result, termination) = match &game.outcome {
        Some(o) => (
            o.score.text().to_string(),
            Some(o.termination.pgn().to_string()),
        ),
        None => ("*".to_string(), None),
    };
    let (moves, trailing) = crate::report::times::times(events).pgn_moves();
    let pg = PgnGame {
        event: game.profile.profile.name.clone(),
        site: "?".into(),
        date,
        round: game.ctx.game.to_string(),
        white: name(crate::core::Side::White),
        black: name(crate::core::Side::Black),
        result,
        time_control: game.profile.pgn_time_control(crate::core::Side::White),
        termination,
        moves,
        trailing,
    };
    Ok(write_pgn(&pg))
}

/// Whether a delivery is late, and by how much, against a deadline after the game's end.
fn lateness(end: DateTime<Utc>, delivered: DateTime<Utc>, deadline_s: u64) -> (bool, i64) {
    let after = (delivered - end).num_milliseconds();
    (after > deadline_s as i64 * 1000, after)
}

/// Why the archive of rule 13 was refused or failed; nothing is appended to the log unless the
/// copies were stored.
#[derive(Debug, thiserror::Error)]
pub enum PostgameError {
    /// The game log could not be opened.
    #[error(transparent)]
    Open(JournalError),
    #[error("the game log is damaged; nothing archived: {0}")]
    Damaged(Box<Damage>),
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error(transparent)]
    Replay(#[from] ReplayError),
    #[error(
        "refused (rule 13a): the machine's log is handed over after the conclusion of the game; this game has no result yet"
    )]
    NotEnded,
    #[error("no game_ended entry")]
    NoEnd,
    #[error("bad utc in the game_ended entry")]
    BadEndUtc,
    #[error("--delivered '{0}' is not an RFC 3339 time")]
    Delivered(String),
    /// The copies were refused (13a) or could not be stored.
    #[error("refused: {0}")]
    Copies(#[from] ArchiveError),
    #[error("{}: {source}", .path.display())]
    ReadStored {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The stored engine log or the game's moves could not be read for 13c.
    #[error(transparent)]
    EngineLog(EngineLogError),
    #[error(transparent)]
    MachineMoves(EngineLogError),
    #[error("empty log")]
    EmptyLog,
    /// The archive entries could not be appended to the game log.
    #[error(transparent)]
    Append(JournalError),
}

/// What the operator hands over after the game (rule 13).
#[derive(Debug, Clone)]
pub struct Handover<'a> {
    pub match_dir: &'a Path,
    pub game: u32,
    /// The copies of the machine's log file (13a).
    pub copies: &'a [PathBuf],
    /// The copy of the program (13d).
    pub program: Option<&'a Path>,
    /// Delivery time (RFC 3339); `None`: now.
    pub delivered: Option<&'a str>,
    /// The key that signs the checkpoint after the archive entries.
    pub key: &'a KeySource,
}

/// Archive the copies (13a, 13d), append the archive entries with the 13c coverage to the game
/// log and sign a checkpoint. Returns the summary to print.
pub fn archive(a: &Handover<'_>) -> Result<String, PostgameError> {
    let path = log_path(a.match_dir, a.game);
    let mut journal = Journal::open(&path).map_err(PostgameError::Open)?;
    if let Some(d) = journal.damage() {
        return Err(PostgameError::Damaged(Box::new(d.clone())));
    }
    let entries = journal.entries().to_vec();
    let events = events_of(&entries)?;
    let game = Game::replay(events.iter())?;
    if game.phase != Phase::Ended {
        return Err(PostgameError::NotEnded);
    }
    let end_entry = entries
        .iter()
        .find(|e| e.kind == "game_ended")
        .ok_or(PostgameError::NoEnd)?;
    let end_utc = parse_utc(&end_entry.utc).ok_or(PostgameError::BadEndUtc)?;
    let delivered = match a.delivered {
        Some(s) => parse_utc(s).ok_or_else(|| PostgameError::Delivered(s.to_string()))?,
        None => Utc::now(),
    };
    let log_rules = game.profile.engine_log.clone();
    let min = log_rules.as_ref().map_or(2, |r| r.min_copies) as usize;
    let outcome = archive_copies(&game_dir(a.match_dir, a.game), a.copies, min, a.program)?;

    // 13c: what the archived log shows for every machine move.
    let stored = game_dir(a.match_dir, a.game).join(&outcome.log.name);
    let file = crate::fsio::open_regular(&stored).map_err(|source| PostgameError::ReadStored {
        path: stored.clone(),
        source,
    })?;
    let parsed =
        enginelog::parse(std::io::BufReader::new(file)).map_err(PostgameError::EngineLog)?;
    let mm = machine_moves(&game, &events).map_err(PostgameError::MachineMoves)?;
    let coverage = enginelog::coverage(&parsed, &mm);
    let clock_audit = audit_6c(&game, &events, &parsed, &coverage);

    let last = entries.last().ok_or(PostgameError::EmptyLog)?;
    let last_utc = parse_utc(&last.utc).unwrap_or(end_utc);
    let now_ms: Ms = last.mono_ms + (Utc::now() - last_utc).num_milliseconds().max(0) as Ms;
    let deadline = log_rules.as_ref().map_or(1800, |r| r.deadline_seconds);
    let (late, after_ms) = lateness(end_utc, delivered, deadline);
    let score = game.outcome.as_ref().map_or(Score::Draw, |o| o.score);
    let body = json!({
        "copies": outcome.copies,
        "stored": outcome.log,
        "sums_file": outcome.sums_file,
        "sums_sha256": outcome.sums_sha256,
        "delivered": crate::log::format_utc(&delivered),
        "after_game_end_ms": after_ms,
        "deadline_ms": deadline * 1000,
        "late": late,
        "min_copies": min,
        "result": score.text(),
        "coverage": coverage,
        "clock_audit": clock_audit,
    });
    let mut new_events = vec![Event::new(
        now_ms,
        Actor::Arbiter,
        if late {
            clause::ENGINE_LOG
        } else {
            clause::ENGINE_LOG_CONTENT
        },
        EventKind::EngineLogArchived(body),
    )];
    if let Some(p) = &outcome.program {
        let pdeadline = game
            .profile
            .program_copy
            .as_ref()
            .map_or(1800, |r| r.deadline_seconds);
        let (plate, pafter) = lateness(end_utc, delivered, pdeadline);
        let pbody = json!({"stored": p, "delivered": crate::log::format_utc(&delivered), "after_game_end_ms": pafter, "deadline_ms": pdeadline * 1000, "late": plate, "confidential": "13d: kept by the arbiter, not distributed"});
        new_events.push(Event::new(
            now_ms,
            Actor::Arbiter,
            clause::PROGRAM_COPY,
            EventKind::ProgramArchived(pbody),
        ));
    }
    for e in &new_events {
        journal
            .append(new_entry(e, Utc::now()))
            .map_err(PostgameError::Append)?;
    }
    let signed = arbiter_key(a.key, a.match_dir).and_then(|(key, _)| {
        crate::witness::sign_and_index(a.match_dir, a.game, journal.entries(), &key, Utc::now())
    });
    let mut s = format!(
        "archived {} ({} bytes, sha256 {}) from {} identical copies; {}\n13c: {}\n6c: {}\n",
        outcome.log.name,
        outcome.log.size,
        outcome.log.sha256,
        outcome.copies.len(),
        outcome.sums_file,
        coverage.summary,
        clock_audit.summary
    );
    if late {
        s.push_str(&format!(
            "13a: delivered {} after the end of the game, later than {} — accepted and flagged\n",
            crate::core::timefmt::clock(after_ms),
            crate::core::timefmt::clock(deadline as i64 * 1000)
        ));
    }
    if let Some(p) = &outcome.program {
        s.push_str(&format!(
            "13d: program {} ({} bytes, sha256 {})\n",
            p.name, p.size, p.sha256
        ));
    }
    match signed {
        Ok(p) => s.push_str(&format!("checkpoint signed: {}", p.display())),
        Err(e) => s.push_str(&format!("WARNING: checkpoint not signed: {e}")),
    }
    Ok(s)
}
