//! A whole game of about seven hours under the 2003 rules on a fake clock: both time controls
//! (40 and 60 moves) pass, an operator error costs the machine ten minutes (7c), a power failure
//! suspends the game for 25 minutes (8b), the internal clock is corrected (6c), and the human's
//! flag finally falls in the third period. Every clock value is checked to the millisecond against
//! arithmetic done here, from the think times the test chose.
//!
//! The example scripts of `examples/scripts/` run through `run_script` without a refusal.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::board::session::{Memory, Session, run_script};
use arbiter::core::board::complete_san;
use arbiter::core::event::{Event, EventKind, Score, Termination};
use arbiter::core::game::Phase;
use arbiter::core::script::parse_script;
use arbiter::core::{Ms, Side};

use crate::clauses::{KASPAROV_2003, LONG_GAME, Match, ended, move_made, new_game, secs, started};

/// The human's (White's) think time for his move `n`, in ms.
fn white_think(n: u32) -> Ms {
    match n {
        1..=40 => 140_000 + Ms::from(n % 5) * 15_000,
        41..=60 => 150_000 + Ms::from(n % 3) * 10_000,
        _ => 210_000,
    }
}

/// The machine's (Black's) think time for its move `n`, in ms.
fn black_think(n: u32) -> Ms {
    match n {
        1..=40 => 120_000 + Ms::from(n % 4) * 20_000,
        41..=60 => 150_000,
        _ => 100_000,
    }
}

/// Time a side has had after `moves` moves, read off rule 3: 2 h, +1 h at 40, +30 min at 60.
fn budget(moves: u32) -> i64 {
    let hours = [(0, 7_200_000), (40, 3_600_000), (60, 1_800_000)];
    hours
        .iter()
        .filter(|(m, _)| moves >= *m)
        .map(|(_, b)| b)
        .sum()
}

/// The independent account of both clocks.
#[derive(Default)]
struct Account {
    used: [i64; 2],
    moves: [u32; 2],
    added: [i64; 2],
}

impl Account {
    fn remaining(&self, side: Side) -> i64 {
        let i = side.index();
        budget(self.moves[i]) + self.added[i] - self.used[i]
    }
}

fn check(m: &Match, acc: &Account, to_move: Side, turn_used: i64, at: Ms) {
    let v = m.view(at);
    for side in Side::BOTH {
        let running = if side == to_move { turn_used } else { 0 };
        assert_eq!(
            v.clocks[side.index()].remaining_ms,
            acc.remaining(side) - running,
            "{side} at {}",
            secs(at)
        );
        assert_eq!(v.clocks[side.index()].moves_made, acc.moves[side.index()]);
    }
}

#[test]
fn fullgame_seven_hours_both_controls_flag_fall_in_the_third_period() {
    let plies: Vec<&str> = LONG_GAME.split_whitespace().collect();
    let mut m = started();
    let mut acc = Account::default();
    let mut t: Ms = 0; // the clock of the side to move started at t
    let mut operator_errors = 0;
    let (power_out, power_back, window) = (60_000, 300_000, 1_200_000);
    for (i, san) in plies.iter().enumerate() {
        let side = if i % 2 == 0 { Side::White } else { Side::Black };
        let n = acc.moves[side.index()] + 1;
        let think = match side {
            Side::White => white_think(n),
            Side::Black => black_think(n),
        };
        if side == Side::White && acc.remaining(side) <= think as i64 {
            break; // the flag will fall on this turn
        }
        // half-way through the turn the clocks read exactly what the account says
        check(&m, &acc, side, (think / 2) as i64, t + think / 2);
        let mut paused = 0;
        if side == Side::Black && n == 31 {
            // 6c: the operator reports the engine's clock 125 s ahead of the game clock
            let at = t + 30_000;
            let game_clock = acc.remaining(side) - 30_000;
            let reading = game_clock + 125_000;
            let ev = m.at(&format!(
                "{} operator internal-clock {}",
                secs(at),
                secs(reading as Ms)
            ));
            match &ev[0].kind {
                EventKind::InternalClockReported {
                    game_clock_ms,
                    correction_owed,
                    ..
                } => assert_eq!((*game_clock_ms, *correction_owed), (game_clock, true)),
                k => panic!("{k:?}"),
            }
            let ev = m.at(&format!("{} operator sync-internal-clock", secs(at)));
            assert!(matches!(
                ev[0].kind,
                EventKind::InternalClockCorrected { to_ms, .. } if to_ms == game_clock
            ));
        }
        if side == Side::Black && n == 50 {
            // 8b: power fails 60 s into the machine's turn; back 300 s later; 20 min to reset
            let out = t + power_out;
            m.at(&format!(
                "{} arbiter power-failure hall blackout",
                secs(out)
            ));
            check(&m, &acc, side, power_out as i64, out + 100_000);
            m.at(&format!(
                "{} arbiter power-restored",
                secs(out + power_back)
            ));
            assert_eq!(
                m.view(out + power_back).next_deadline,
                Some(out + power_back + window)
            );
            m.at(&format!(
                "{} arbiter resume",
                secs(out + power_back + window)
            ));
            paused = power_back + window;
            check(&m, &acc, side, power_out as i64 + 1, out + paused + 1);
        }
        let at = t + think + paused;
        if side == Side::Black && n == 20 {
            // 7c: the operator executes and presses another move; corrected 10 s later
            let wrong = complete_san(m.game().board(), "")
                .into_iter()
                .find(|s| s != san)
                .unwrap();
            m.at(&format!("{} move {wrong}", secs(at)));
            let ev = m.at(&format!(
                "{} arbiter wrong-move {wrong} {san}",
                secs(at + 10_000)
            ));
            assert!(matches!(
                ev[0].kind,
                EventKind::WrongMove {
                    pressed: true,
                    infraction: 1,
                    penalty_ms: 600_000,
                    ..
                }
            ));
            operator_errors += 1;
            acc.added[Side::White.index()] += 600_000;
            assert_eq!(m.game().board().moves().last().unwrap().san, *san);
        } else {
            let ev = m.at(&format!("{} move {san}", secs(at)));
            let (s, _, spent, inc, remaining, _) = move_made(&ev[0]);
            acc.used[side.index()] += think as i64;
            acc.moves[side.index()] += 1;
            assert_eq!((s, spent, inc), (side, think, 0));
            assert_eq!(remaining, acc.remaining(side), "{side}'s move {n}");
            check(&m, &acc, side.other(), 0, at);
            t = at;
            continue;
        }
        acc.used[side.index()] += think as i64;
        acc.moves[side.index()] += 1;
        t = at;
    }
    assert_eq!(operator_errors, 1);
    // both controls passed, by both sides
    assert_eq!(acc.moves, [75, 75]);
    assert_eq!(m.game().phase(), Phase::Playing);
    assert_eq!(m.view(t).clocks[0].period, 3);
    // White: 2 h + 1 h + 30 min + 10 min, minus what its 75 moves took
    let white_used: i64 = (1..=75).map(|n| white_think(n) as i64).sum();
    let left = 7_200_000 + 3_600_000 + 1_800_000 + 600_000 - white_used;
    assert_eq!(acc.remaining(Side::White), left);
    assert!(left > 0 && left < white_think(76) as i64);
    let flag = t + left as Ms;
    assert_eq!(m.view(t).next_deadline, Some(flag));
    assert!(m.tick(flag - 1).is_empty());
    let ev = m.tick(flag);
    let (score, term, detail, _) = ended(&ev[0]);
    assert_eq!(detail, "white's flag fell in the last period");
    assert_eq!(
        (score, term, ev[0].at),
        (Score::BlackWins, Termination::FlagFall, flag)
    );
    // the game took about seven hours: both clocks' time plus the 25-minute suspension
    let black_used: i64 = (1..=75).map(|n| black_think(n) as i64).sum();
    assert!(
        (6 * 3_600_000..8 * 3_600_000).contains(&flag),
        "{}",
        secs(flag)
    );
    let v = m.view(flag + 3_600_000);
    assert_eq!(v.clocks[0].remaining_ms, 0);
    assert_eq!(
        v.clocks[1].remaining_ms,
        7_200_000 + 3_600_000 + 1_800_000 - black_used
    );
    assert!(v.clocks.iter().all(|c| !c.running));
    // and the log replays to the same state
    let replayed = arbiter::core::game::Game::replay(&m.log).unwrap();
    assert_eq!(replayed.view(flag, usize::MAX), m.view(flag));
}

fn example(name: &str) -> Vec<arbiter::core::script::ScriptLine> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/scripts")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    parse_script(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn session() -> Session {
    Session::new(
        new_game(KASPAROV_2003),
        Box::new(Memory::default()),
        chrono::Utc::now(),
    )
}

/// Run an example through `run_script` (no refusal allowed), and once more line by line to
/// collect the events it records (the session's storage is write-only).
fn run_example(name: &str) -> (Session, Vec<Event>) {
    let lines = example(name);
    let mut s = session();
    if let Err((line, e)) = run_script(&mut s, &lines) {
        panic!("{name}:{line}: {e}");
    }
    let mut again = session();
    let mut events = Vec::new();
    for l in &lines {
        events.extend(again.execute(&l.command, l.at).unwrap());
    }
    events.extend(again.catch_up(lines.last().unwrap().at).unwrap());
    assert_eq!(events.len(), s.storage.len());
    (s, events)
}

/// SAN moves of a PGN's movetext (tags, comments, move numbers and the result dropped).
fn pgn_moves(pgn: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_comment = false;
    for w in pgn
        .lines()
        .filter(|l| !l.starts_with('['))
        .flat_map(str::split_whitespace)
    {
        if w.starts_with('{') {
            in_comment = true;
        }
        if in_comment {
            in_comment = !w.ends_with('}');
            continue;
        }
        if !w.ends_with('.') && !["1-0", "0-1", "1/2-1/2", "*"].contains(&w) {
            out.push(w.to_string());
        }
    }
    out
}

#[test]
fn fullgame_example_script_of_the_stockfish_game_runs_to_mate() {
    let (s, events) = run_example("full-game.arb");
    let g = &s.game;
    let o = g.outcome().unwrap();
    assert_eq!(
        (o.score, o.termination),
        (Score::BlackWins, Termination::Checkmate)
    );
    // the PGN's moves, in order
    let pgn = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/stockfish-game/game.pgn"
    ))
    .unwrap();
    let played: Vec<&str> = g.board().moves().iter().map(|m| m.san.as_str()).collect();
    assert_eq!(played, pgn_moves(&pgn));
    assert_eq!(g.board().plies(), 106);
    // both sides passed the first control, nobody's flag fell; the spent times add up
    let v = g.view(o.at, usize::MAX);
    for c in &v.clocks {
        let spent: i64 = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::MoveMade { side, spent_ms, .. } if *side == c.side => {
                    Some(*spent_ms as i64)
                }
                _ => None,
            })
            .sum();
        assert_eq!(c.period, 2);
        assert_eq!(c.remaining_ms, 7_200_000 + 3_600_000 - spent);
        assert!(c.remaining_ms > 0);
    }
    // the mate ends it at the time of the script's last line
    assert_eq!(o.at, example("full-game.arb").last().unwrap().at);
}

#[test]
fn fullgame_every_clause_script_runs_without_refusal() {
    let (s, events) = run_example("every-clause.arb");
    let g = &s.game;
    let o = g.outcome().unwrap();
    assert_eq!(
        (o.score, o.termination),
        (Score::Draw, Termination::ArbiterDecision)
    );
    let cited: std::collections::BTreeSet<&str> =
        events.iter().map(|e| e.clause.as_str()).collect();
    for clause in [
        "1", "3", "5b", "6a", "6b", "6c", "6d", "6g", "6l", "7b", "7c", "7e", "8a", "8b", "9a",
        "9d", "9e", "12",
    ] {
        assert!(cited.contains(clause), "{clause} not cited: {cited:?}");
    }
    let opened = match &events[0].kind {
        EventKind::GameOpened(o) => o.declarations.clone(),
        k => panic!("{k:?}"),
    };
    assert_eq!(opened.operator, "Amir Ban"); // 4c
    assert_eq!(opened.team.len(), 2); // 9c
    assert!(opened.config_sha256.is_some()); // 8a
    assert_eq!(g.infractions(), 1); // 7c
    assert!(g.params().iter().any(|p| p.decided == Some(true))); // 6l
    assert_eq!(g.rulings(), vec![(1, 1)]); // 12
}
