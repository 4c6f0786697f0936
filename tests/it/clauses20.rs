//! The rules' corners the committee reads — each test named after its clause or FIDE
//! article, driving the core through it (given / when / then, `clauses`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::clauses::{ended, started};
use arbiter::core::event::Termination;

/// 6a / 6b: a result recorded while pressed moves await their notation is refused, naming them;
/// once they are entered the result stands and no move is lost.
#[test]
fn rule_6a_a_result_never_loses_a_pressed_move() {
    started()
        .and("10 press")
        .and("20 press")
        .when("30 human resign")
        .then_refused_saying(
            "6a",
            "white's move 1 (pressed at 0:00:10), black's move 1 (pressed at 0:00:20)",
        )
        .when("31 operator resign")
        .then_refused("6a")
        .and("32 move e4")
        .when("33 human resign")
        .then_refused_saying("6a", "black's move 1 (pressed at 0:00:20); enter it first")
        .and("34 move e5")
        .when("35 human resign")
        .then(|m, ev| {
            let e = ev.iter().find(|e| e.kind_name() == "game_ended").unwrap();
            assert_eq!(ended(e).1, Termination::Resignation);
            assert_eq!(m.view(35_000).plies, 2);
            let pgn = arbiter::after::postgame::pgn_of(&m.log, "2003-01-26T16:00:00Z").unwrap();
            assert!(
                pgn.contains("1. e4 {[%clk 1:59:50] [%emt 0:00:10]} 1... e5"),
                "{pgn}"
            );
        });
}

/// Play `sans` one second apart from 1 s on a started game (human White).
fn after(sans: &str) -> crate::clauses::Match {
    let mut m = started();
    m.moves(sans, 1000);
    m
}

/// The last move recorded, as the log has it (canonical SAN).
fn last_san(m: &crate::clauses::Match) -> String {
    m.log
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            arbiter::core::event::EventKind::MoveMade { san, .. } => Some(san.to_string()),
            _ => None,
        })
        .unwrap()
}

/// FIDE Laws Appendix C.9 (2001: C.8): a promotion is written with the piece after the square,
/// `bxa8Q`; the kit also reads `bxa8=Q` (PGN), `bxa8q`, `bxa8(Q)`, `bxa8/Q` and underpromotions.
#[test]
fn fide_appendix_c_promotion_as_people_write_it() {
    const TO_PROMOTION: &str = "a4 b5 axb5 a6 bxa6 Bb7 axb7 Nc6";
    for (written, recorded) in [
        ("bxa8Q", "bxa8=Q"),
        ("bxa8=Q", "bxa8=Q"),
        ("bxa8q", "bxa8=Q"),
        ("bxa8(Q)", "bxa8=Q"),
        ("bxa8/Q", "bxa8=Q"),
        ("bxa8=q", "bxa8=Q"),
        ("bxa8N", "bxa8=N"),
        ("bxa8r", "bxa8=R"),
        ("b7a8q", "bxa8=Q"),
    ] {
        let mut m = after(TO_PROMOTION);
        m.at(&format!("20 move {written}"));
        assert_eq!(last_san(&m), recorded, "{written}");
    }
    let mut m = after(TO_PROMOTION);
    let err = m.try_line("20 move bxa8K").unwrap_err().to_string();
    assert!(err.contains("bxa8K"), "{err}");
}

/// FIDE Laws Appendix C.13: castling is written 0-0 / 0-0-0; scoresheets and keyboards also give
/// O-O and o-o.
#[test]
fn fide_appendix_c_castling_as_people_write_it() {
    for (written, recorded) in [
        ("O-O", "O-O"),
        ("0-0", "O-O"),
        ("o-o", "O-O"),
        ("o-o+", "O-O"),
    ] {
        let mut m = after("e4 e5 Nf3 Nc6 Bc4 Bc5");
        m.at(&format!("20 move {written}"));
        assert_eq!(last_san(&m), recorded, "{written}");
    }
    for written in ["O-O-O", "0-0-0", "o-o-o"] {
        let mut m = after("d4 d5 Nc3 Nc6 Bf4 Bf5 Qd2 Qd7");
        m.at(&format!("20 move {written}"));
        assert_eq!(last_san(&m), "O-O-O", "{written}");
    }
}

/// A move or a line of moves with its number in front, as scoresheets and PGN exports write it:
/// `20.Kf2`, `20...Kf2`, `20. Kf2`, `20…Kf2`, for a move and for a 9d repetition line.
#[test]
fn rule_9d_and_fide_appendix_c_numbered_moves_as_people_write_them() {
    let mut m = started();
    m.at("1 move 1.e4");
    m.at("2 move 1...e5");
    m.at("3 move 2.Nf3");
    m.at("4 move 2…Nc6");
    assert_eq!(m.view(5_000).plies, 4);
    assert_eq!(last_san(&m), "Nc6");
    // A number that is not the move to make is refused, naming the move to make (FIDE Laws 8.1:
    // the wrong line of the scoresheet), and nothing is recorded.
    for wrong in ["7.Bc4", "3...Bc4", "3…Bc4", "2.Bc4"] {
        let err = m
            .try_line(&format!("5 move {wrong}"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(wrong) && err.contains("the move to make is 3."),
            "{wrong}: {err}"
        );
    }
    assert_eq!(m.view(5_000).plies, 4);
    m.at("5 move 3. Bc4");
    m.at("6 move 3.Bc5"); // a single dot may stand before Black's move, as many scoresheets do
    let err = m.try_line("7 move 4...O-O").unwrap_err().to_string();
    assert!(err.contains("the move to make is 4."), "{err}");
    m.at("7 move 4.O-O");
    assert_eq!(m.view(8_000).plies, 7);
    let mut m = after("Nf3 Nf6 Ng1 Ng8");
    m.moves("Nf3", 1000);
    m.when("6 operator offer-draw repetition 3...Nf6 4.Ng1 4...Ng8")
        .then_events(&[("draw_offered", "9d")]);
    let mut m = after("Nf3 Nf6 Ng1 Ng8");
    m.moves("Nf3", 1000);
    m.when("6 operator offer-draw repetition 3... Nf6 4. Ng1 Ng8")
        .then_events(&[("draw_offered", "9d")]);
    // A human's claim naming its intended move with a number.
    let m = after("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8");
    m.when("10 human claim threefold 5.Nf3")
        .then_events(&[("game_ended", "2")]);
}

/// 7c found after the human replied: the arbiter names the machine's move number; with the clocks
/// stopped the reply is taken back, the machine's move replaces the wrong one, the human gets his
/// 10 minutes, and the second infraction forfeits the game.
#[test]
fn rule_7c_wrong_move_found_after_the_human_replied() {
    use arbiter::core::Side;
    started()
        .and("10 move e4")
        .and("20 move c5") // the machine's move was e5
        .and("50 move Nf3")
        .when("60 arbiter wrong-move c5 e5")
        .then_refused_saying("7c", "say arbiter wrong-move 1 c5 e5")
        .when("60 arbiter wrong-move 1 c5 e5")
        .then_refused_saying("7c", "stop the clocks first")
        .and("60 arbiter stop the operator played c5; the machine shows e5")
        .when("61 arbiter wrong-move 2 c5 e5")
        .then_refused_saying("7c", "no move 2")
        .when("61 arbiter wrong-move 1 d5 e5")
        .then_refused("7c")
        .when("62 arbiter wrong-move 1 c5 e5")
        .then_events(&[("moves_taken_back", "7c"), ("wrong_move", "7c")])
        .then(|m, ev| {
            let body = serde_json::to_value(&ev[1].kind).unwrap();
            assert_eq!(body["body"]["infraction"], 1, "{body}");
            assert_eq!(body["body"]["penalty_ms"], 600_000, "{body}");
            let v = m.view(62_000);
            assert_eq!(v.plies, 2, "1. e4 e5 stand; Nf3 was taken back");
            // White used 10 s + 30 s (Nf3, taken back: its time stays used), +10 min.
            assert_eq!(
                m.remaining(Side::White, 62_000),
                7_200_000 - 40_000 + 600_000
            );
            // Black: 10 s for c5, and 10 s run on its turn after Nf3 until the stop.
            assert_eq!(m.remaining(Side::Black, 62_000), 7_200_000 - 20_000);
        })
        .and("63 arbiter resume")
        .and("70 move Nf3")
        .and("80 move Nc6")
        .and("90 move Bb5")
        .and("100 move d6") // the machine's move was a6
        .and("110 move O-O")
        .and("115 arbiter stop second wrong move")
        .when("116 arbiter wrong-move 3 d6 a6")
        .then_events(&[
            ("moves_taken_back", "7c"),
            ("wrong_move", "7c"),
            ("game_ended", "7c"),
        ])
        .then(|_, ev| {
            assert_eq!(crate::clauses::ended(&ev[2]).1, Termination::Forfeit);
            assert_eq!(crate::clauses::ended(&ev[2]).0.text(), "1-0");
        });
}

/// 8b: power can fail again whenever it is on — inside the reset window or after it, before play
/// resumes — and the 20-minute window starts again from the next restoration; while the power is
/// off there is nothing more to record. The clocks stay stopped throughout.
#[test]
fn rule_8b_a_second_power_failure_restarts_the_reset_window() {
    use arbiter::core::Side;
    let m = started()
        .and("10 move e4")
        .and("20 arbiter power-failure the hall loses power")
        .when("25 arbiter power-failure again")
        .then_refused_saying("8b", "not restored yet")
        .and("30 arbiter power-restored");
    assert_eq!(m.game().reset_window_end(), Some(30_000 + 1_200_000));
    let mut m = m
        .when("100 arbiter power-failure it fails again inside the window")
        .then_events(&[("power_failed", "8b")])
        .and("200 arbiter power-restored");
    assert_eq!(m.game().reset_window_end(), Some(200_000 + 1_200_000));
    let ended = m.tick(1_400_000);
    assert_eq!(ended.len(), 1, "{ended:?}");
    assert_eq!(ended[0].kind_name(), "reset_window_ended");
    let m = m
        .when("1500 arbiter power-failure after the window, before the resume")
        .then_events(&[("power_failed", "8b")])
        .and("1600 arbiter power-restored")
        .and("1700 operator reset-done")
        .and("1710 arbiter resume");
    assert_eq!(m.remaining(Side::Black, 1_710_000), 7_200_000 - 10_000);
    assert_eq!(m.remaining(Side::White, 1_710_000), 7_200_000 - 10_000);
    let r = arbiter::report::model::build(
        &m.log,
        &[],
        &arbiter::report::model::Verification::not_checked(m.log.len()),
        false,
    );
    let power: Vec<_> = r.incidents.iter().filter(|i| i.clause == "8b").collect();
    assert_eq!(power.len(), 1, "one suspension: {:?}", r.incidents);
    let again = power[0]
        .details
        .iter()
        .filter(|(_, t)| t.starts_with("power failed again"))
        .count();
    assert_eq!(again, 2, "{:?}", power[0].details);
    // Each outage measured from its own failure: 10 s, 100 s, 100 s.
    let off: Vec<u64> = power[0]
        .durations
        .iter()
        .filter(|(k, _)| k == "without power")
        .map(|(_, d)| *d)
        .collect();
    assert_eq!(off, vec![10_000, 100_000, 100_000]);
}

/// 10a with what the kit knows: without tables (none given, or an empty folder) the elementary
/// wins are refused by name; the game goes on.
#[test]
fn rule_10a_elementary_wins_are_refused_without_tables() {
    use crate::clauses::{SEVEN_MEN, SEVEN_MEN_EVEN};
    // K+R+B+N+P+P against White's lone king, Black to move.
    let mut m = started();
    m.moves(SEVEN_MEN, 1000);
    let t = crate::clauses::secs(m.now + 1000);
    let m = m
        .when(&format!("{t} arbiter tablebase-draw"))
        .then_refused_saying("10a", "K+R+B+N+P+P v K is a win for black")
        .then_refused_saying("10a", "K+Q, K+R, K+B+B (bishops on both colours) or K+B+N")
        .m;
    assert_eq!(m.game().phase(), arbiter::core::game::Phase::Playing);
    // The same with an empty --syzygy folder.
    let mut m = m;
    let dir = tempfile::tempdir().unwrap();
    m.s.syzygy = Some(dir.path().to_path_buf());
    let t = crate::clauses::secs(m.now + 1000);
    m.when(&format!("{t} arbiter tablebase-draw"))
        .then_refused_saying("10a", "a win for black");
    // Material the kit cannot judge alone: the arbiter's word, and it says nothing was checked.
    let mut m = started();
    m.moves(SEVEN_MEN_EVEN, 1000);
    let t = crate::clauses::secs(m.now + 1000);
    m.when(&format!("{t} arbiter tablebase-draw"))
        .then_events(&[("game_ended", "10a")])
        .then(|_, ev| {
            let detail = ended(&ev[0]).2;
            assert!(detail.contains("nothing could be checked"), "{detail}");
        });
}

/// The elementary-win judge on its own: K+Q v K and K+R v K are wins whoever moves, unless the
/// lone king can capture; K+N v K and K+B v K are not in the list.
#[test]
fn rule_10a_elementary_win_list() {
    use arbiter::core::Side;
    use arbiter::core::board::Board;
    let b = |fen: &str| Board::new_chess_from(fen, false).unwrap();
    assert_eq!(
        b("8/8/8/4k3/8/8/8/4KQ2 b - - 0 1").elementary_win(),
        Some((Side::White, "K+Q v K".into()))
    );
    assert_eq!(
        b("8/8/8/4k3/8/8/8/R3K3 w - - 0 1").elementary_win(),
        Some((Side::White, "K+R v K".into()))
    );
    assert_eq!(
        b("4k3/8/8/8/8/8/8/1n2K1b1 w - - 0 1").elementary_win(),
        Some((Side::Black, "K+B+N v K".into()))
    );
    // The lone king to move takes the rook: not judged.
    assert_eq!(b("8/8/8/8/8/8/5r2/k5K1 w - - 0 1").elementary_win(), None);
    // K+N v K and K+B v K are dead positions (the game is over on the board): not in the list.
    assert!(Board::new_chess_from("8/8/8/4k3/8/8/8/4KN2 b - - 0 1", false).is_err());
}

/// README's words are the kit's: the signed note's file name (`<N>.note`, written for every
/// checkpoint) and the countersignature verdict (`NOT COUNTERSIGNED`, `UNWITNESSED` in JSON, 12).
#[test]
fn rule_12_readme_names_the_note_file_and_the_countersignature_verdict() {
    let readme =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .unwrap();
    let label = arbiter::record::verify::Status::Unwitnessed.label();
    let verdict = arbiter::error::Exit::Unwitnessed.verdict().unwrap();
    let code = arbiter::error::Exit::Unwitnessed.code();
    assert!(
        readme
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(&format!(
                "is `{label}` (exit {code}, verdict `{verdict}` in `--json`)"
            )),
        "README's countersignature sentence"
    );
    assert!(readme.contains("(`<N>.note` beside `<N>.txt`"));
    assert!(!readme.contains(".txt.note"));
    // The kit writes exactly that name for every checkpoint.
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let script = t.path().join("g.arb");
    std::fs::write(
        &script,
        "0 arbiter declare white human A\n0 arbiter declare black machine B\n\
         0 arbiter declare operator C\n0 arbiter start\n1 move e4\n2 move e5\n3 human resign\n",
    )
    .unwrap();
    crate::realgame::ok(&crate::realgame::arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
    ]));
    let cps: Vec<String> = std::fs::read_dir(dir.join("game-1/checkpoints"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let txt: Vec<&String> = cps.iter().filter(|n| n.ends_with(".txt")).collect();
    assert!(!txt.is_empty(), "{cps:?}");
    for t in txt {
        let stem = t.trim_end_matches(".txt");
        assert!(
            cps.contains(&format!("{stem}.note")),
            "{stem}.note in {cps:?}"
        );
    }
    assert!(!cps.iter().any(|n| n.ends_with(".txt.note")), "{cps:?}");
}

/// The report of a live game's log (no verification).
fn report_of(m: &crate::clauses::Match) -> arbiter::report::model::Report {
    arbiter::report::model::build(
        &m.log,
        &[],
        &arbiter::report::model::Verification::not_checked(m.log.len()),
        false,
    )
}

/// The standing moves' (san, time, clock) from the one times function.
fn move_times(log: &[arbiter::core::event::Event]) -> Vec<(String, i64, i64)> {
    arbiter::report::times::times(log)
        .moves
        .iter()
        .map(|m| (m.san.clone(), m.time_ms, m.clock_ms))
        .collect()
}

/// Rule 1 with 6d: a voided clock correction leaves no mark on the clock chart, no clock line in
/// the report or the PGN; the clocks are as if it had never been.
#[test]
fn rule_1_a_voided_clock_correction_leaves_no_mark_on_the_chart() {
    let mut m = after("e4 e5 Nf3");
    m.at("10 arbiter stop the clock was set wrongly");
    m.at("11 arbiter correct 6d clock black +60 entered late");
    let corr = m
        .log
        .iter()
        .rposition(|e| e.kind_name() == "clock_corrected")
        .unwrap();
    let marked = report_of(&m);
    assert_eq!(marked.chart.marks.len(), 1, "{:?}", marked.chart.marks);
    m.at(&format!("12 arbiter void {corr} typed for the wrong game"));
    m.at("13 arbiter resume");
    m.at("14 move Nc6");
    let r = report_of(&m);
    assert!(r.chart.marks.is_empty(), "{:?}", r.chart.marks);
    assert!(
        r.time_items
            .iter()
            .all(|t| t.kind != arbiter::report::times::ItemKind::Correction),
        "{:?}",
        r.time_items
    );
    let pgn = arbiter::after::postgame::pgn_of(&m.log, "2003-01-26T16:00:00Z").unwrap();
    assert!(!pgn.contains("corrected"), "{pgn}");
    let t = arbiter::report::times::times(&m.log);
    assert!(t.totals.iter().all(|x| x.adds_up()), "{:?}", t.totals);
    assert_eq!(t.totals[1].added_ms, 0, "{:?}", t.totals);
}

/// Rule 1 with 6d: a voided take-back gives the moves back with their own times, in the report,
/// the PGN and the board, all read from the one times function; the totals still add up.
#[test]
fn rule_1_a_voided_take_back_restores_the_per_move_times() {
    let plain = after("e4 e5 Nf3 Nc6");
    let mut m = after("e4 e5 Nf3");
    m.at("3.5 arbiter stop to take back");
    m.at("3.6 arbiter correct 6d takeback 2 a move entered wrongly");
    let tb = m
        .log
        .iter()
        .rposition(|e| e.kind_name() == "moves_taken_back")
        .unwrap();
    assert_eq!(move_times(&m.log).len(), 1);
    m.at(&format!("3.7 arbiter void {tb} typed on the wrong board"));
    m.at("3.8 arbiter resume");
    m.at("4 move Nc6");
    let got = move_times(&m.log);
    let want = move_times(&plain.log);
    assert_eq!(got.len(), 4, "{got:?}");
    // The first three moves are exactly as played; Black's reply took its clock's whole drop.
    assert_eq!(got[..3], want[..3], "{got:?} vs {want:?}");
    assert_eq!(got[3].0, "Nc6");
    let t = arbiter::report::times::times(&m.log);
    assert!(t.totals.iter().all(|x| x.adds_up()), "{:?}", t.totals);
    assert!(
        t.items
            .iter()
            .all(|i| i.kind != arbiter::report::times::ItemKind::TakenBack),
        "{:?}",
        t.items
    );
    // The report's move table has the four moves with the same times.
    let r = report_of(&m);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let rows: Vec<(String, i64, i64)> = r
        .moves
        .iter()
        .map(|x| (x.san.clone(), x.spent_ms, x.remaining_ms))
        .collect();
    assert_eq!(rows, got);
    // The board's move list: the same figures, folded entry by entry.
    let board: Vec<(i64, i64)> = arbiter::board::tui::movelist::move_times(&m.log)
        .into_iter()
        .map(|t| {
            let t = t.unwrap();
            (t.spent_ms as i64, t.remaining_ms)
        })
        .collect();
    let times: Vec<(i64, i64)> = got.iter().map(|(_, t, c)| (*t, *c)).collect();
    assert_eq!(board, times);
    let cut = m
        .log
        .iter()
        .position(|e| e.kind_name() == "entry_voided")
        .unwrap();
    assert_eq!(
        arbiter::board::tui::movelist::move_times(&m.log[..cut]).len(),
        1,
        "the board showed the take-back until the void"
    );
    // The PGN: four moves, White's 2. Nf3 with its own 1 s.
    let pgn = arbiter::after::postgame::pgn_of(&m.log, "2003-01-26T16:00:00Z").unwrap();
    assert!(
        pgn.contains("2. Nf3 {[%clk 1:59:58] [%emt 0:00:01]}"),
        "{pgn}"
    );
    assert!(!pgn.contains("taken back"), "{pgn}");
}

/// Rule 1 (the arbiter runs the match; an item the rules leave unclear): a game opened while an earlier
/// game of the match has no result. The kit does not refuse (an adjourned game, a suspension
/// under 8b or a ruling awaited under 12 may leave it open), but `script`, `status` and the
/// board (`play`'s opening notice) name the unfinished game, and the score leaves it out.
#[test]
fn rule_1_a_game_opened_while_the_previous_is_unfinished_is_named() {
    use crate::realgame::{arbiter, ok};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let head = "0 arbiter declare white human Garry Kasparov\n0 arbiter declare black machine \
                Deep Junior\n0 arbiter declare operator Amir Ban\n0 arbiter start\n";
    let unfinished = tmp.path().join("g1.arb");
    std::fs::write(&unfinished, format!("{head}10 move e4\n")).unwrap();
    let finished = tmp.path().join("g2.arb");
    std::fs::write(&finished, format!("{head}10 move e4\n20 operator resign\n")).unwrap();
    let d = dir.to_str().unwrap();
    let first = arbiter(&["script", unfinished.to_str().unwrap(), "--match", d]);
    ok(&first);
    assert!(
        !String::from_utf8_lossy(&first.stderr).contains("UNFINISHED"),
        "game 1 has no game before it"
    );
    let second = arbiter(&["script", finished.to_str().unwrap(), "--match", d]);
    ok(&second);
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains("UNFINISHED: game 1 of this match has no result recorded while game 2"),
        "{err}"
    );
    let status = ok(&arbiter(&["status", "--match", d, "--game", "2"]));
    assert!(status.contains("UNFINISHED: game 1"), "{status}");
    // Game 1 is not in the score; game 2 is.
    assert!(status.contains("match score: Garry Kasparov 1"), "{status}");
    let json = arbiter(&["status", "--match", d, "--game", "2", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&ok(&json)).unwrap();
    assert_eq!(v["unfinished_games"], serde_json::json!([1]));
    // Game 1's own status has nothing before it to warn about.
    let own = ok(&arbiter(&["status", "--match", d, "--game", "1"]));
    assert!(!own.contains("UNFINISHED"), "{own}");
    // The board opening game 3 (the next) shows it in its first message.
    let o = arbiter::board::matchdir::open_game(
        &dir,
        Some(3),
        Some(&crate::clauses::rules_path(crate::clauses::KASPAROV_2003)),
        &arbiter::record::sign::KeySource::default(),
    )
    .unwrap();
    let notice = o.notice.unwrap_or_default();
    assert!(
        notice.contains("UNFINISHED: game 1 of this match"),
        "{notice}"
    );
    assert!(!notice.contains("game 2"), "game 2 is finished: {notice}");
}

/// FIDE Laws 9.1.2 (rule 2; 2001: 9.1b) with 9d: the machine's draw offer stands until the human
/// accepts or rejects it. A counter-offer by the human is neither (the Laws do not make it an
/// acceptance): it is refused, naming the offer that stands and how to record his answer, and
/// nothing is recorded; the offer can then be accepted. The same holds the other way (9a).
#[test]
fn fide_9_1_2_a_counter_offer_to_a_pending_draw_offer_is_refused_and_the_offer_stands() {
    let m = crate::clauses::given(crate::clauses::MACHINE_WHITE)
        .and("0 arbiter start")
        .and("5 move e4")
        .and("6 operator offer-draw eval 0")
        .when("20 human offer-draw")
        .then_refused_saying("2", "the machine's draw offer stands")
        .then_refused_saying("2", "FIDE Laws 9.1.2")
        .then_refused_saying("2", "human accept-draw")
        .m;
    assert!(
        m.game()
            .machine_offer()
            .is_some_and(|o| o.answered.is_none()),
        "the machine's offer still stands"
    );
    let m = m
        .when("21 human accept-draw")
        .then(|m, ev| {
            let (score, term, _, _) = ended(ev.last().unwrap());
            assert_eq!(score.text(), "1/2-1/2");
            assert_eq!(term, Termination::DrawAgreed);
            assert_eq!(m.game().phase(), arbiter::core::game::Phase::Ended);
        })
        .m;
    assert_eq!(
        m.log
            .iter()
            .filter(|e| e.kind_name() == "draw_offered")
            .count(),
        1
    );
    // The human's offer stands the same way: the operator answers it, he does not counter it.
    started()
        .and("5 move e4")
        .and("5.5 human offer-draw")
        .when("6 operator offer-draw eval 0")
        .then_refused_saying("9a", "FIDE Laws 9.1.2")
        .when("7 operator decline-draw")
        .then_events(&[("draw_declined", "9a")]);
    // Once the human has rejected it by moving, his own offer with that move is recorded.
    crate::clauses::given(crate::clauses::MACHINE_WHITE)
        .and("0 arbiter start")
        .and("5 move e4")
        .and("6 operator offer-draw eval 0")
        .and("20 move e5")
        .when("21 human offer-draw")
        .then_events(&[("draw_offered", "9e")]);
}

/// Rule 12c: the arbiter's decisions are bound by the committee's ruling, after the result as
/// before it. `arbiter decide` on an ended game needs a ruling, records the new result citing 12c
/// with the result it replaces, and the log, the report, the PGN and `verify`'s tally show the
/// final result; the game's end (for rule 13's deadlines) stays where play ended.
#[test]
fn rule_12c_a_committee_ruling_after_the_result_changes_it() {
    let m = started()
        .and("5 move e4")
        .and("10 move e5")
        .and("20 human resign")
        .when("30 arbiter decide 1 1/2-1/2 no ruling")
        .then_refused_saying("12c", "there is no ruling 1")
        .and("40 arbiter dispute the human says he offered a draw before he resigned")
        .and("50 committee ruling 1 the draw offer stood; the game is drawn")
        .when("60 arbiter decide 1 0-1 upheld")
        .then_refused_saying("12c", "already 0-1")
        .when("70 arbiter decide 1 1/2-1/2 the committee ruled the game drawn")
        .then_events(&[("game_ended", "12c")])
        .then(|m, ev| {
            let (score, term, detail, _) = ended(&ev[0]);
            assert_eq!(score.text(), "1/2-1/2");
            assert_eq!(term, Termination::ArbiterDecision);
            assert!(
                detail.contains("the result 0-1 recorded earlier"),
                "{detail}"
            );
            assert_eq!(ev[0].actor, arbiter::core::Actor::Arbiter);
            let o = m.game().outcome().unwrap();
            assert_eq!(o.score.text(), "1/2-1/2");
            assert_eq!(o.at, 20_000, "the game ended when play ended");
        })
        .m;
    // Replay gives the same final result; a second change needs a ruling again.
    let replayed = arbiter::core::game::Game::replay(&m.log).unwrap();
    assert_eq!(replayed.outcome().unwrap().score.text(), "1/2-1/2");
    let pgn = arbiter::after::postgame::pgn_of(&m.log, "2003-01-26T16:00:00Z").unwrap();
    assert!(pgn.contains("[Result \"1/2-1/2\"]"), "{pgn}");
    assert!(pgn.trim_end().ends_with("1/2-1/2"), "{pgn}");
    let r = report_of(&m);
    let result = r.result.as_ref().unwrap();
    assert_eq!(result.score, "1/2-1/2");
    assert_eq!(result.clause, "12c");
    assert_eq!(result.ruling, Some(1));
    m.when("80 arbiter decide 2 1-0 no such ruling")
        .then_refused_saying("12c", "there is no ruling 2");
}

/// Rule 12c through the binary: the result a ruling changes after the game is what `verify`
/// and `report` show.
#[test]
fn rule_12c_verify_and_report_show_the_final_result() {
    use crate::realgame::{arbiter, ok};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let script = tmp.path().join("g.arb");
    std::fs::write(
        &script,
        "0 arbiter declare white human Garry Kasparov\n0 arbiter declare black machine Deep \
         Junior\n0 arbiter declare operator Amir Ban\n0 arbiter start\n5 move e4\n10 move e5\n\
         20 human resign\n40 arbiter dispute the human offered a draw before he resigned\n\
         50 committee ruling 1 the game is drawn\n70 arbiter decide 1 1/2-1/2 per ruling 1\n",
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    ok(&arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        d,
    ]));
    // The signed match index records the final result, and verify finds it consistent.
    let v = ok(&arbiter(&["verify", "--match", d, "--game", "1"]));
    assert!(v.contains("game 1: OK"), "{v}");
    let index = std::fs::read_to_string(dir.join("index.txt")).unwrap();
    let line = index.lines().find(|l| l.starts_with("game 1 ")).unwrap();
    assert!(line.ends_with(" 1/2-1/2"), "{index}");
    let out = tmp.path().join("r.md");
    ok(&arbiter(&[
        "report",
        "--match",
        d,
        "--game",
        "1",
        "--markdown",
        "--out",
        out.to_str().unwrap(),
    ]));
    let md = std::fs::read_to_string(out).unwrap();
    assert!(md.contains("12c"), "{md}");
    let status = ok(&arbiter(&["status", "--match", d]));
    assert!(
        status.contains("match score: Garry Kasparov 0.5"),
        "{status}"
    );
}

/// Rule 12c on the board: the match score in the header follows a result a ruling changes after
/// the game (the old points leave, the new come in, counted once), and a voided result (1)
/// leaves the score.
#[test]
fn rule_12c_the_boards_match_score_follows_a_changed_result() {
    let mut ui = arbiter::board::tui::keys::UiState::new(None);
    ui.score_table = vec![("Garry Kasparov".into(), 1.0), ("Deep Junior".into(), 1.0)];
    let mut m = started()
        .and("5 move e4")
        .and("10 move e5")
        .and("20 human resign");
    arbiter::board::tui::refresh_score(&mut ui, m.game());
    assert_eq!(
        ui.score.as_deref(),
        Some("Garry Kasparov 1 – Deep Junior 2")
    );
    m.at("40 arbiter dispute the human offered a draw first");
    m.at("50 committee ruling 1 drawn");
    m.at("60 arbiter decide 1 1/2-1/2 per ruling 1");
    arbiter::board::tui::refresh_score(&mut ui, m.game());
    arbiter::board::tui::refresh_score(&mut ui, m.game());
    assert_eq!(
        ui.score.as_deref(),
        Some("Garry Kasparov 1½ – Deep Junior 1½")
    );
    let decided = m.log.len() - 1;
    m.at(&format!(
        "70 arbiter void {decided} typed before the ruling was read"
    ));
    arbiter::board::tui::refresh_score(&mut ui, m.game());
    assert_eq!(
        ui.score.as_deref(),
        Some("Garry Kasparov 1 – Deep Junior 2"),
        "the void of the ruling's result restores the resignation's points"
    );
}
