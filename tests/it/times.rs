//! Times that add up: every per-move time in the report and the PGN is the drop of that
//! side's clock between its presses; take-backs (6d), penalties (7c), clock corrections (6d, 7e)
//! and restart gaps appear as their own lines; per-game totals equal the clocks.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use crate::realgame::{arbiter, ok};

const HEAD: &str = "0 arbiter declare white human Garry Kasparov
0 arbiter declare black machine Deep Junior
0 arbiter declare operator Amir Ban
0 arbiter start
";

/// A played script: the match folder and its temporary home.
struct Played {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

/// Run `body` (after the declarations and the start) through `arbiter script`.
fn play(body: &str) -> Played {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("game.arb");
    std::fs::write(&file, format!("{HEAD}{body}")).unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    ok(&arbiter(&[
        "script",
        file.to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
    ]));
    Played { _tmp: tmp, dir }
}

fn report_md(dir: &Path) -> String {
    let out = dir.join("report.md");
    ok(&arbiter(&[
        "report",
        "--match",
        dir.to_str().unwrap(),
        "--game",
        "1",
        "--markdown",
        "--out",
        out.to_str().unwrap(),
    ]));
    std::fs::read_to_string(out).unwrap()
}

/// The PGN, its lines joined with spaces (the writer wraps at 79 columns).
fn pgn(dir: &Path) -> String {
    ok(&arbiter(&[
        "pgn",
        "--match",
        dir.to_str().unwrap(),
        "--game",
        "1",
    ]))
    .lines()
    .collect::<Vec<_>>()
    .join(" ")
}

/// The Markdown move table's row of move `n`.
fn move_row(md: &str, n: u32) -> String {
    let table = md.split("## Time per move").nth(1).unwrap_or("");
    table
        .lines()
        .find(|l| l.starts_with(&format!("| {n} |")))
        .unwrap_or_else(|| panic!("no row for move {n} in\n{md}"))
        .to_string()
}

/// The first example: White's 2. Nf3 is taken back and played again. The clock of White
/// fell 9.7 s between its presses at 1. e4 and the final 2. Nf3 (9.3 s before the take-back, 0.4 s
/// after it), and the report showed 0.4 s.
const TAKEBACK: &str = "5 move e4
10 move e5
19.3 move Nf3
19.8 arbiter stop the operator entered a move the machine did not make
20 arbiter correct 6d takeback 1 the operator entered a move the machine did not make
21 arbiter resume
21.4 move Nf3
30 move Nc6
";

#[test]
fn clause_6d_a_taken_back_moves_time_stays_in_the_next_move_report_and_pgn() {
    let p = play(TAKEBACK);
    let md = report_md(&p.dir);
    let row = move_row(&md, 2);
    assert!(row.contains("Nf3 | 0:00:09.700 |"), "{row}");
    // Black's clock ran 0.5 s (19.3 to 19.8) in the taken-back turn: it counts in 2... Nc6.
    assert!(row.contains("Nc6 | 0:00:09.100 |"), "{row}");
    assert!(
        md.contains("2. Nf3 taken back"),
        "the take-back is a line of its own:\n{md}"
    );
    let text = pgn(&p.dir);
    assert!(
        text.contains("2. Nf3 {[%clk 1:59:45] [%emt 0:00:10]}"),
        "{text}"
    );
    assert!(text.contains("taken back"), "{text}");
}

/// A game played through the core on a session that sees the kit's restarts: a line `T restart`
/// makes the kit come back at T after it last ran at its previous entry, with the running clock's
/// side (as `matchdir` does on reopening), so the next line is the arbiter's ruling on that gap.
/// Returns the report in Markdown and HTML and the PGN (lines joined).
fn through_restart(body: &str) -> (String, String, String) {
    let mut m = crate::clauses::given(&[
        "0 arbiter declare white human Garry Kasparov",
        "0 arbiter declare black machine Deep Junior",
        "0 arbiter declare operator Amir Ban",
        "0 arbiter start",
    ]);
    for line in body.lines() {
        if let Some(t) = line.strip_suffix(" restart") {
            let now = arbiter::core::script::parse_script(&format!("{t} arbiter stop a restart"))
                .unwrap()[0]
                .at;
            let side =
                m.s.game
                    .clock()
                    .running()
                    .expect("a clock runs at the restart");
            m.s.restart_gap = Some(now - m.s.game.last_at());
            m.s.restart_side = Some(side);
            continue;
        }
        m.at(line);
    }
    let log = m.log.clone();
    let report = build(&log, &[], &Verification::not_checked(log.len()), false);
    let md = arbiter::report::markdown::render(&report);
    let html = arbiter::report::html::render(&report);
    let pgn = arbiter::after::postgame::pgn_of(&log, "2003-01-26T16:00:00.000Z")
        .unwrap()
        .lines()
        .collect::<Vec<_>>()
        .join(" ");
    (md, html, pgn)
}

/// The second example: a waived restart gap of 59 s was counted as thinking (23… Qc7 shown
/// 2:14, the clock fell 1:15). Here on Black's first move: the kit last ran at 5 s, came back at
/// 64 s, and the arbiter waived the gap.
const WAIVED: &str = "5 move e4
64 restart
64 arbiter restart-gap waive the laptop crashed
139 move e5
150 move Nf3
";

#[test]
fn clause_8b_a_waived_restart_gap_is_not_thinking_time() {
    let (md, _, text) = through_restart(WAIVED);
    let row = move_row(&md, 1);
    assert!(row.contains("e5 | 0:01:15.000 | 1:58:45 |"), "{row}");
    assert!(md.contains("waived"), "{md}");
    assert!(
        md.contains("the laptop crashed"),
        "the ruling's reason: {md}"
    );
    assert!(
        text.contains("1... e5 {[%clk 1:58:45] [%emt 0:01:15]}"),
        "{text}"
    );
    assert!(text.contains("waived"), "{text}");
}

/// 8b: the arbiter charges 20 s of a 59 s gap (the machine was thinking meanwhile): those 20 s are
/// in the move's time, the 39 s given back are not.
#[test]
fn clause_8b_a_partly_charged_restart_gap_counts_only_its_charged_part() {
    let (md, _, text) = through_restart(
        "5 move e4
64 restart
64 arbiter restart-gap charge 0:00:20 the engine kept thinking on its own machine
139 move e5
150 move Nf3
",
    );
    let row = move_row(&md, 1);
    assert!(row.contains("e5 | 0:01:35.000 | 1:58:25 |"), "{row}");
    assert!(md.contains("restart gap charged"), "{md}");
    assert!(md.contains("restart gap waived"), "{md}");
    assert!(
        text.contains("1... e5 {[%clk 1:58:25] [%emt 0:01:35]}"),
        "{text}"
    );
}

/// The third example: per-game totals (8:01) differed from the clocks (7:08). Black's moves
/// take 2:00 + 3:00 + 3:01 = 8:01 by the entries; a waived gap of 53 s inside the last one makes
/// its clock fall 7:08.
const TOTALS: &str = "0:00:10 move e4
0:02:10 move e5
0:02:20 move Nf3
0:05:20 move Nc6
0:05:30 move Bb5
0:06:23 restart
0:06:23 arbiter restart-gap waive the kit was restarted
0:08:31 move a6
0:08:40 human resign
";

#[test]
fn clause_3_per_game_totals_equal_the_clocks() {
    let (md, html, _) = through_restart(TOTALS);
    let total = "Deep Junior (black): 0:07:08.000 used = budget 2:00:00.000 + added +0:00:00.000 \
                 - left 1:52:52.000";
    assert!(md.contains(total), "the total is the clock's:\n{md}");
    assert!(!md.contains("0:08:01"), "{md}");
    assert!(html.contains(total), "{html}");
    assert!(!html.contains("0:08:01"), "{html}");
}

/// 7c: the operator executed c5 for the machine's e5 and pressed; the arbiter adds ten minutes to
/// the human's clock. White's 2. Nf3 took 30 s (35 to 65); its clock shows 2:09:25.
const PENALTY: &str = "5 move e4
35 move c5
45 arbiter wrong-move c5 e5
65 move Nf3
";

#[test]
fn clause_7c_the_penalty_is_a_line_of_its_own_and_not_in_the_move_time() {
    let p = play(PENALTY);
    let md = report_md(&p.dir);
    let row = move_row(&md, 2);
    assert!(row.contains("Nf3 | 0:00:30.000 | 2:09:25 |"), "{row}");
    assert!(
        md.contains("| 7c | penalty | penalty for the operator's wrong move c5 (the machine's move was e5): added to white's clock | +0:10:00 |"),
        "{md}"
    );
    assert!(
        md.contains(
            "- Garry Kasparov (white): 0:00:35.000 used = budget 2:00:00.000 + added +0:10:00.000 - left \
             2:09:25.000"
        ),
        "{md}"
    );
    let text = pgn(&p.dir);
    assert!(
        text.contains(
            "1... e5 {[%clk 1:59:30] [%emt 0:00:30]} {7c: penalty for the operator's wrong move \
             c5 (the machine's move was e5): added to white's clock (+0:10:00)} 2. Nf3"
        ),
        "{text}"
    );
    assert!(
        text.contains("2. Nf3 {[%clk 2:09:25] [%emt 0:00:30]}"),
        "{text}"
    );
}

/// 7e: the arbiter takes 20 s off Black's clock during Black's turn (operator input delay the
/// other way): 1... e5 still shows the 30 s its clock ran; the correction is its own line.
const CORRECTION: &str = "5 move e4
20 arbiter correct 7e clock black -20 the clock ran on during a dispute
35 move e5
";

#[test]
fn clause_7e_a_clock_correction_is_a_line_of_its_own() {
    let p = play(CORRECTION);
    let md = report_md(&p.dir);
    let row = move_row(&md, 1);
    assert!(row.contains("e5 | 0:00:30.000 | 1:59:10 |"), "{row}");
    assert!(md.contains("| 7e | correction |"), "{md}");
    assert!(
        md.contains(
            "- Deep Junior (black): 0:00:30.000 used = budget 2:00:00.000 + added -0:00:20.000 - left \
             1:59:10.000"
        ),
        "{md}"
    );
    let text = pgn(&p.dir);
    assert!(
        text.contains(
            "{7e: black's clock corrected: the clock ran on during a dispute (-0:00:20)} 1... e5 \
             {[%clk 1:59:10] [%emt 0:00:30]}"
        ),
        "{text}"
    );
}

// ----- the property: per-move times plus clock lines equal the clocks ------------------------

use arbiter::board::session::{Memory, Session, SessionError};
use arbiter::core::board::complete_san;
use arbiter::core::command::parse;
use arbiter::core::event::{Event, EventKind};
use arbiter::core::game::{Game, Phase, Stop};
use arbiter::core::{Ms, Side};
use arbiter::report::model::{Verification, build};
use arbiter::report::times::times;
use proptest::prelude::*;

use crate::clauses::{HUMAN_WHITE, KASPAROV_2003, MACHINE_WHITE, new_game};

/// A command for the current state: mostly moves, with take-backs (stop first), clock
/// corrections, stops and resumptions, 7c wrong moves and restart gaps no longer than the time
/// since the previous entry.
fn time_command(g: &Game, pick: u8, r: u32, since_last: Ms) -> Vec<String> {
    let r = r as usize;
    let side = ["white", "black"][r % 2];
    if let Some(Stop::Arbiter { .. }) = &g.stop()
        && !pick.is_multiple_of(4)
    {
        return vec!["arbiter resume".into()];
    }
    match pick {
        // The press first, the notation after (4a, 6b).
        0..=39 if r.is_multiple_of(5) && g.pending_presses().count() < 2 => vec!["press".into()],
        0..=39 => {
            let legal = complete_san(g.board(), "");
            match legal.get(r % legal.len().max(1)) {
                Some(m) => vec![format!("move {m}")],
                None => vec!["arbiter note no legal move".into()],
            }
        }
        40..=41 => vec!["arbiter stop a stop".into()],
        42..=43 => vec![
            "arbiter stop to take back".into(),
            format!(
                "arbiter correct 6d takeback {} a move entered wrongly",
                1 + r % 3
            ),
        ],
        44 => vec![format!(
            "arbiter correct 6d clock {side} {}{} entered late",
            ["+", "-"][r / 2 % 2],
            r % 300
        )],
        45 => vec![format!(
            "arbiter correct 7e clock {side} 1:{:02}:{:02} set",
            30 + r % 30,
            r / 7 % 60
        )],
        46 => {
            // 7c: the machine's last move was executed wrongly and pressed.
            let machine = g.machine_side();
            if g.board().plies() > 0 && machine == Some(g.board().side_to_move().other()) {
                let played = g
                    .board()
                    .moves()
                    .last()
                    .map(|m| m.san.clone())
                    .unwrap_or_default();
                let mut before = g.board().clone();
                let _ = before.take_back(1);
                let others: Vec<String> = complete_san(&before, "")
                    .into_iter()
                    .filter(|m| played.trim_end_matches(['+', '#']) != m)
                    .collect();
                match others.get(r % others.len().max(1)) {
                    Some(c) => vec![format!("arbiter wrong-move {played} {c}")],
                    None => vec![],
                }
            } else {
                vec![]
            }
        }
        // The kit restarts here (the caller measures the gap since the last entry) and the
        // arbiter rules on it: waived, charged whole, or charged in part.
        _ => {
            let part = (r as u64 % (since_last + 1)) / 1000;
            vec![
                "@restart".into(),
                match r / 3 % 3 {
                    0 => "arbiter restart-gap waive the kit crashed".into(),
                    1 => "arbiter restart-gap charge the machine kept thinking".into(),
                    _ => format!(
                        "arbiter restart-gap charge {}:{:02}:{:02} part of it thinking",
                        part / 3600,
                        part / 60 % 60,
                        part % 60
                    ),
                },
            ]
        }
    }
}

/// Runs the steps on a session; returns the log and the time of its last entry.
pub(crate) fn time_session(
    machine_white: bool,
    steps: &[(u8, u32, Ms)],
) -> (Vec<Event>, Ms, Vec<String>) {
    let decl = if machine_white {
        MACHINE_WHITE
    } else {
        HUMAN_WHITE
    };
    let mut s = Session::new(
        new_game(KASPAROV_2003),
        Box::new(Memory::default()),
        chrono::Utc::now(),
    );
    let mut log: Vec<Event> = Vec::new();
    let mut transcript = Vec::new();
    for l in decl.iter().chain(&["0 arbiter start"]) {
        let (_, cmd) = l.split_once(' ').unwrap();
        log.extend(s.execute(&parse(cmd).unwrap(), 0).unwrap());
    }
    let mut now: Ms = 0;
    let mut last_entry: Ms = 0;
    let mut run = |s: &mut Session, log: &mut Vec<Event>, now: Ms, text: &str| {
        transcript.push(format!("{now} {text}"));
        log.extend(s.catch_up(now).unwrap());
        match s.execute(&parse(text).unwrap(), now) {
            Ok(ev) => log.extend(ev),
            Err(SessionError::Refused(r)) => transcript.push(format!("    refused: {r}")),
            Err(e) => panic!("{e}"),
        }
    };
    for (pick, r, dt) in steps {
        now += dt;
        if s.game.phase() != Phase::Playing {
            break;
        }
        for text in time_command(&s.game, *pick, *r, now - last_entry) {
            if text == "@restart" {
                // As matchdir does on reopening: a clock running, the gap since the last entry.
                if let Some(side) = s.game.clock().running() {
                    s.restart_gap = Some(now - last_entry);
                    s.restart_side = Some(side);
                }
                continue;
            }
            run(&mut s, &mut log, now, &text);
        }
        last_entry = log.last().map_or(0, |e| e.at);
    }
    // Presses still waiting for their notation get it (the notation changes no clock).
    while s.game.phase() == Phase::Playing && s.game.pending_presses().next().is_some() {
        match complete_san(s.game.board(), "").first() {
            Some(m) => run(&mut s, &mut log, now, &format!("move {m}")),
            None => break,
        }
    }
    // Both sides move once more, so every time taken back counts in a standing move, and the log
    // ends at the instant of the last press.
    for k in 0..2 {
        if s.game.phase() != Phase::Playing {
            break;
        }
        now += 1000 + k;
        if s.game.stop().is_some() {
            run(&mut s, &mut log, now, "arbiter resume");
        }
        if let Some(m) = complete_san(s.game.board(), "").first() {
            run(&mut s, &mut log, now, &format!("move {m}"));
        }
    }
    let end = log.last().map_or(0, |e| e.at);
    (log, end, transcript)
}

/// The right-hand side of the property, per side, from the events' own fields and the replayed
/// clock (not from `report::times`): the budget of the periods unlocked + increments + 7c
/// penalties + 6d/7e corrections − the remaining time at `end`.
fn clock_drop(log: &[Event], end: Ms) -> Result<[i64; 2], TestCaseError> {
    let g = Game::replay(log).map_err(|e| TestCaseError::fail(format!("{e}")))?;
    let human = g.human_side();
    let mut added = [0i64; 2];
    for e in log {
        match &e.kind {
            EventKind::MoveMade {
                side, increment_ms, ..
            } => added[side.index()] += *increment_ms as i64,
            EventKind::WrongMove {
                pressed: true,
                penalty_ms,
                ..
            } => {
                if let Some(h) = human {
                    added[h.index()] += *penalty_ms as i64;
                }
            }
            EventKind::ClockCorrected { side, delta_ms, .. } => added[side.index()] += delta_ms,
            _ => {}
        }
    }
    Ok(Side::BOTH.map(|side| {
        g.profile().unlocked_budget(side, g.moves_of(side)) as i64 + added[side.index()]
            - g.remaining(side, end)
    }))
}

/// Σ per-move times of a side (plus, when the game ended on its own, the time in no standing
/// move) must equal its clock's drop.
fn check_sums(
    log: &[Event],
    end: Ms,
    per_move: &[(Side, i64)],
    open: [i64; 2],
    transcript: &[String],
) -> Result<(), TestCaseError> {
    let drop = clock_drop(log, end)?;
    for side in Side::BOTH {
        let sum: i64 = per_move
            .iter()
            .filter(|(s, _)| *s == side)
            .map(|(_, t)| t)
            .sum();
        prop_assert_eq!(
            sum + open[side.index()],
            drop[side.index()],
            "{}: per-move {} + open {} != the clock's drop {}\n{}",
            side,
            sum,
            open[side.index()],
            drop[side.index()],
            transcript.join("\n")
        );
    }
    Ok(())
}

/// The property on one log, with the report's per-move times and the PGN's.
fn check_times_add_up(log: &[Event], end: Ms, transcript: &[String]) -> Result<(), TestCaseError> {
    let report = build(log, &[], &Verification::not_checked(log.len()), false);
    let t = times(log);
    prop_assert!(t.not_replayed.is_none(), "{:?}", t.not_replayed);
    prop_assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let ended = Game::replay(log)
        .map(|g| g.phase() == Phase::Ended)
        .unwrap_or(false);
    // Nothing is left outside the standing moves unless the game ended on its own.
    let open = Side::BOTH.map(|s| {
        if ended {
            report.totals[s.index()].total.open_ms
        } else {
            0
        }
    });
    for side in Side::BOTH {
        let total = &report.totals[side.index()].total;
        prop_assert_eq!(
            total.open_ms,
            open[side.index()],
            "{}",
            transcript.join("\n")
        );
        prop_assert!(total.adds_up());
    }
    prop_assert!(report.moves.iter().all(|m| m.spent_ms >= 0));
    let per_move: Vec<(Side, i64)> = report.moves.iter().map(|m| (m.side, m.spent_ms)).collect();
    check_sums(log, end, &per_move, open, transcript)?;
    // The PGN's figures are the report's.
    let (pgn, _) = t.pgn_moves();
    prop_assert_eq!(pgn.len(), report.moves.len());
    for (p, m) in pgn.iter().zip(&report.moves) {
        prop_assert_eq!(p.spent_ms as i64, m.spent_ms);
        prop_assert_eq!(&p.san, &m.san);
    }
    Ok(())
}

pub(crate) fn time_step() -> impl Strategy<Value = (u8, u32, Ms)> {
    (
        prop_oneof![40 => 0u8..40, 10 => 40u8..48, 3 => 48u8..50],
        any::<u32>(),
        prop_oneof![10 => 0u64..20_000, 2 => 0u64..90_000],
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn clause_3_6d_7c_7e_per_move_times_and_clock_lines_add_up_to_the_clocks(
        machine_white in any::<bool>(),
        steps in prop::collection::vec(time_step(), 1..260),
    ) {
        let (log, end, transcript) = time_session(machine_white, &steps);
        check_times_add_up(&log, end, &transcript)?;
    }
}

#[test]
fn clause_3_the_property_fails_on_the_entries_own_move_times() {
    // Not a tautology: the figures the report used to show (each standing move's entry
    // `spent_ms`) fail it on the take-back game of and the clock's figures pass.
    let text = format!("{HEAD}{TAKEBACK}");
    let p = play(TAKEBACK);
    let (_, events) = arbiter::board::matchdir::read_game(&p.dir.join("game-1/log.jsonl")).unwrap();
    let end = events.last().unwrap().at;
    let transcript = vec![text];
    assert!(check_times_add_up(&events, end, &transcript).is_ok());
    let mut standing: Vec<(Side, i64)> = Vec::new();
    for e in &events {
        match &e.kind {
            EventKind::MoveMade { side, spent_ms, .. } => standing.push((*side, *spent_ms as i64)),
            EventKind::MovesTakenBack { plies, .. } => standing.truncate(standing.len() - plies),
            _ => {}
        }
    }
    assert!(check_sums(&events, end, &standing, [0, 0], &transcript).is_err());
}
