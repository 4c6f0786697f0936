//! After the game (rule 13): the engine-log and program archive appended to the game log with the
//! 13a deadline check and the 13c coverage, and the PGN export.
use std::process::ExitCode;

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::archive::archive_copies;
use crate::cli::{ArchiveArgs, PgnArgs, fail};
use crate::core::event::{Event, EventKind, Score};
use crate::core::game::{Game, Phase};
use crate::core::{Actor, Ms, clause};
use crate::enginelog::{self, MachineMove};
use crate::journal::Journal;
use crate::log::NewEntry;
use crate::matchdir::{arbiter_key, events_of};
use crate::report::pgn::{PgnGame, PgnMove, write_pgn};
use crate::session::{game_dir, kind_and_body, log_path, match_id};

fn parse_utc(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The machine's moves of a finished game with the time each took, for the 13c check.
pub fn machine_moves(game: &Game, events: &[Event]) -> Result<Vec<MachineMove>, String> {
    let Some(m) = game.machine_side() else {
        return Ok(Vec::new());
    };
    let sans: Vec<String> = game.board.moves().iter().map(|x| x.san.clone()).collect();
    let mut mm = enginelog::machine_moves_from_san(&sans, m == crate::core::Side::White, None)
        .map_err(|e| e.to_string())?;
    let spent = pgn_moves(events);
    for x in &mut mm {
        x.spent_ms = spent.get(x.ply).map(|p| p.spent_ms);
    }
    Ok(mm)
}

/// The moves standing at the end with their clock figures, following takebacks and 7c corrections.
pub fn pgn_moves(events: &[Event]) -> Vec<PgnMove> {
    let mut out: Vec<PgnMove> = Vec::new();
    for e in events {
        match &e.kind {
            EventKind::MoveMade {
                san,
                spent_ms,
                remaining_ms,
                ..
            } => out.push(PgnMove {
                san: san.clone(),
                clock_ms: (*remaining_ms).max(0) as u64,
                spent_ms: *spent_ms,
            }),
            EventKind::MovesTakenBack { plies, .. } => {
                out.truncate(out.len().saturating_sub(*plies))
            }
            EventKind::WrongMove {
                pressed: true,
                correct,
                ..
            } => {
                if let Some(last) = out.last_mut() {
                    last.san = correct.clone();
                }
            }
            _ => {}
        }
    }
    out
}

/// The game as PGN.
pub fn pgn_of(events: &[Event], first_utc: &str) -> Result<String, String> {
    let game = Game::replay(events.iter()).map_err(|e| e.to_string())?;
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
        moves: pgn_moves(events),
    };
    Ok(write_pgn(&pg))
}

pub fn cmd_pgn(a: &PgnArgs) -> ExitCode {
    let entries = match crate::journal::read_entries(&log_path(&a.m.dir, a.game)) {
        Ok(e) => e,
        Err(e) => return fail(65, e),
    };
    let events = match events_of(&entries) {
        Ok(e) => e,
        Err(e) => return fail(65, e),
    };
    let first = entries.first().map(|e| e.utc.clone()).unwrap_or_default();
    let text = match pgn_of(&events, &first) {
        Ok(t) => t,
        Err(e) => return fail(65, e),
    };
    match &a.out {
        Some(p) => match crate::journal::write_atomic(p, text.as_bytes()) {
            Ok(()) => {
                println!("{}", p.display());
                ExitCode::SUCCESS
            }
            Err(e) => fail(74, format!("{}: {e}", p.display())),
        },
        None => {
            print!("{text}");
            ExitCode::SUCCESS
        }
    }
}

/// Whether a delivery is late, and by how much, against a deadline after the game's end.
fn lateness(end: DateTime<Utc>, delivered: DateTime<Utc>, deadline_s: u64) -> (bool, i64) {
    let after = (delivered - end).num_milliseconds();
    (after > deadline_s as i64 * 1000, after)
}

pub fn cmd_archive(a: &ArchiveArgs) -> ExitCode {
    match archive(a) {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err((code, msg)) => fail(code, msg),
    }
}

fn archive(a: &ArchiveArgs) -> Result<String, (u8, String)> {
    let path = log_path(&a.m.dir, a.game);
    let mut journal = Journal::open(&path).map_err(|e| (66, e.to_string()))?;
    if let Some(d) = journal.damage() {
        return Err((
            65,
            format!("the game log is damaged; nothing archived: {d}"),
        ));
    }
    let entries = journal.entries().to_vec();
    let events = events_of(&entries).map_err(|e| (65, e))?;
    let game = Game::replay(events.iter()).map_err(|e| (65, e.to_string()))?;
    if game.phase != Phase::Ended {
        return Err((1, "refused (rule 13a): the machine's log is handed over after the conclusion of the game; this game has no result yet".into()));
    }
    let end_entry = entries
        .iter()
        .find(|e| e.kind == "game_ended")
        .ok_or((65, "no game_ended entry".to_string()))?;
    let end_utc =
        parse_utc(&end_entry.utc).ok_or((65, "bad utc in the game_ended entry".to_string()))?;
    let delivered = match &a.delivered {
        Some(s) => {
            parse_utc(s).ok_or((65, format!("--delivered '{s}' is not an RFC 3339 time")))?
        }
        None => Utc::now(),
    };
    let log_rules = game.profile.engine_log.clone();
    let min = log_rules.as_ref().map_or(2, |r| r.min_copies) as usize;
    let outcome = archive_copies(
        &game_dir(&a.m.dir, a.game),
        &a.copies,
        min,
        a.program.as_deref(),
    )
    .map_err(|e| (1, format!("refused: {e}")))?;

    // 13c: what the archived log shows for every machine move.
    let stored = game_dir(&a.m.dir, a.game).join(&outcome.log.name);
    let file =
        std::fs::File::open(&stored).map_err(|e| (66, format!("{}: {e}", stored.display())))?;
    let parsed =
        enginelog::parse(std::io::BufReader::new(file)).map_err(|e| (66, e.to_string()))?;
    let mm = machine_moves(&game, &events).map_err(|e| (65, e))?;
    let coverage = enginelog::coverage(&parsed, &mm);

    let last = entries.last().ok_or((65, "empty log".to_string()))?;
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
        let (kind, body) = kind_and_body(e);
        journal
            .append(NewEntry {
                mono_ms: e.at,
                utc: Utc::now(),
                actor: e.actor.name().into(),
                clause: e.clause.clone(),
                kind,
                body,
            })
            .map_err(|e| (74, e.to_string()))?;
    }
    let signed = match arbiter_key(&a.key, &a.m.dir) {
        Ok((key, _)) => crate::sign::sign_checkpoint(
            &a.m.dir,
            a.game,
            &match_id(&a.m.dir),
            journal.entries(),
            &key,
            Utc::now(),
        )
        .map(|p| p.display().to_string())
        .map_err(|e| e.to_string()),
        Err(e) => Err(e),
    };
    let mut s = format!(
        "archived {} ({} bytes, sha256 {}) from {} identical copies; {}\n13c: {}\n",
        outcome.log.name,
        outcome.log.size,
        outcome.log.sha256,
        outcome.copies.len(),
        outcome.sums_file,
        coverage.summary
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
        Ok(p) => s.push_str(&format!("checkpoint signed: {p}")),
        Err(e) => s.push_str(&format!("WARNING: checkpoint not signed: {e}")),
    }
    Ok(s)
}
