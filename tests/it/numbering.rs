//! Move numbers follow the side that moved first. From a start with Black to move
//! (a FEN or odds), Black's first move is move 1 (`1... e5`, as the PGN writes it) on the board's
//! move list, on `arbiter display`, and in `wrong-move N` (7c).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::board::session::{Memory, Session};
use arbiter::board::tui::UiState;
use arbiter::core::game::Game;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::tui_support::{Rig, t, text};

/// Black to move in the start position (after 1. e4, given as a FEN).
const BLACK_FIRST: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

/// The 2003 rules starting from [`BLACK_FIRST`], nothing declared.
fn black_first_draft() -> Game {
    let text = format!(
        "{}\n[start]\nclause = \"odds\"\ngames = [ {{ game = 1, fen = \"{BLACK_FIRST}\" }} ]\n",
        crate::clauses::rules_text(crate::clauses::KASPAROV_2003)
    );
    crate::clauses::game_from_text(crate::clauses::KASPAROV_2003, &text, 1, None)
}

/// The moves both tests play from [`BLACK_FIRST`], with their times.
const MOVES: &[(&str, &str)] = &[
    ("0:40", "move e5"),
    ("2:10", "move Nf3"),
    ("3:00", "move Nc6"),
    ("5:30", "move Bb5"),
];

/// The Black-first game in the clauses harness (the log kept), started at 0, [`MOVES`] played.
fn black_first_match() -> crate::clauses::Match {
    let mut m = crate::clauses::given_game(black_first_draft(), crate::clauses::HUMAN_WHITE)
        .and("0 arbiter start");
    for (at, line) in MOVES {
        m.at(&format!("{} {line}", t(at) as f64 / 1000.0));
    }
    m
}

/// The 2003 rules starting from [`BLACK_FIRST`], Kasparov White (human), Deep Junior Black.
fn black_first_game() -> Game {
    let mut g = black_first_draft();
    for l in crate::clauses::HUMAN_WHITE {
        let line = l.strip_prefix("0 ").unwrap();
        g.declare(&arbiter::core::command::parse(line).unwrap())
            .unwrap();
    }
    g
}

/// The board on the Black-first game, started at 0, then `e5 Nf3 Nc6 Bb5`.
fn black_first_rig() -> Rig {
    let utc = chrono::DateTime::from_timestamp(1_044_000_000, 0).unwrap();
    let mut r = Rig {
        s: Session::new(black_first_game(), Box::new(Memory::default()), utc),
        ui: UiState {
            utc_origin: Some(utc),
            ..UiState::new(None)
        },
        last: None,
        signed_upto: None,
        countersigned: Vec::new(),
        index_countersigned: Vec::new(),
    };
    r.at("0", "arbiter start");
    for (at, line) in MOVES {
        r.at(at, line);
    }
    r
}

/// Rule 6a / FIDE Laws 8.1 (the scoresheet's numbering): from a FEN with Black to move, the
/// board's list opens `1. …  e5` and White's reply is move 2, as the PGN writes `1... e5 2. Nf3`.
#[test]
fn rule_6a_board_move_list_numbers_from_black_when_black_moves_first_80x24() {
    let mut r = black_first_rig();
    let s = r.shot("6:00", 80, 24);
    let rows: Vec<&str> = s.lines().collect();
    let one = rows.iter().position(|l| l.contains("1. …")).expect(&s);
    assert!(rows[one].contains("e5       0:40 1:59:20"), "{s}");
    assert!(!rows[one].contains("Nf3"), "{s}");
    assert!(
        rows[one + 1].contains("2. Nf3      1:30 1:58:30   Nc6"),
        "{s}"
    );
    assert!(rows[one + 2].contains("3. Bb5"), "{s}");
    assert!(s.contains("last 3. Bb5"), "{s}");
    assert!(!s.contains("1. e5") && !s.contains("2... Bb5"), "{s}");
    // The PGN of the same log numbers the moves the same way.
    let pgn =
        arbiter::after::postgame::pgn_of(&black_first_match().log, "2003-01-26T16:00:00Z").unwrap();
    assert!(pgn.contains("1... e5"), "{pgn}");
    assert!(pgn.contains("2. Nf3"), "{pgn}");
    assert!(pgn.contains("3. Bb5"), "{pgn}");
    // The compact list of a wide screen numbers them the same way.
    let m = black_first_match();
    let times = arbiter::board::tui::movelist::move_times(&m.log);
    let compact = arbiter::board::tui::movelist::compact_rows(&m.view(t("6:00")), &times, false);
    assert_eq!(
        compact[0].split_whitespace().collect::<Vec<_>>(),
        ["1.", "…", "e5"]
    );
    assert!(compact[1].starts_with(" 2. Nf3"), "{compact:?}");
    // The take-back question names the moves by the same numbers.
    r.at("6:00", "arbiter stop wrong entry");
    assert_eq!(
        arbiter::board::tui::keys::consequence(
            &arbiter::core::command::parse("arbiter correct 7e takeback 3 wrong entry").unwrap(),
            &r.s.game
        )
        .unwrap(),
        "2. Nf3 2... Nc6 3. Bb5 will be taken back; typed again before the resume, no time is charged"
    );
    insta::assert_snapshot!(s);
}

/// `arbiter display` (the player's screen) draws the same list from the log: `1. …  e5`.
#[test]
fn rule_6a_display_move_list_numbers_from_black_when_black_moves_first_80x24() {
    let m = black_first_match();
    let shown = arbiter::board::display::Shown {
        view: Some(m.view(t("6:00"))),
        times: arbiter::board::tui::movelist::move_times(&m.log),
        ..Default::default()
    };
    let area = Rect::new(0, 0, 80, 24);
    let mut buf = Buffer::empty(area);
    arbiter::board::display::render(&shown, area, &mut buf);
    let s = text(&buf);
    let rows: Vec<&str> = s.lines().collect();
    let one = rows.iter().position(|l| l.contains("1. …")).expect(&s);
    assert!(rows[one].contains("e5"), "{s}");
    assert!(
        rows[one + 1].contains("2. Nf3") && rows[one + 1].contains("Nc6"),
        "{s}"
    );
    assert!(rows[one + 2].contains("3. Bb5"), "{s}");
    assert!(s.contains("last move: 3. Bb5"), "{s}");
    insta::assert_snapshot!(s);
}

/// Rule 7c found after the human replied, from a FEN with Black to move: the arbiter names the
/// machine's move by the scoresheet's number (Black's first move is 1, White's first is 2), the
/// moves after it are taken back and the correction is an infraction with its penalty.
#[test]
fn rule_7c_wrong_move_number_counts_from_black_when_black_moves_first() {
    // The machine is Black and moves first: its `1... c5` should have been `1... e5`.
    crate::clauses::given_game(black_first_draft(), crate::clauses::HUMAN_WHITE)
        .and("0 arbiter start")
        .and("10 move c5")
        .and("20 move Nf3")
        .and("30 move Nc6")
        .and("40 move Bb5")
        .when("50 arbiter wrong-move c5 e5")
        .then_refused_saying("7c", "say arbiter wrong-move 1 c5 e5")
        .and("50 arbiter stop the operator played c5; the machine shows e5")
        .when("51 arbiter wrong-move 3 c5 e5")
        .then_refused_saying(
            "7c",
            "the machine (black) has made its moves 1 to 2: there is no move 3",
        )
        .when("52 arbiter wrong-move 1 c5 e5")
        .then_events(&[("moves_taken_back", "7c"), ("wrong_move", "7c")])
        .then(|m, ev| {
            let body = serde_json::to_value(&ev[0].kind).unwrap();
            assert_eq!(body["body"]["plies"], 3, "{body}");
            let body = serde_json::to_value(&ev[1].kind).unwrap();
            assert_eq!(body["body"]["infraction"], 1, "{body}");
            assert_eq!(body["body"]["penalty_ms"], 600_000, "{body}");
            let v = m.view(52_000);
            assert_eq!(v.plies, 1);
            assert_eq!(v.last_moves, ["1... e5"]);
        });
    // The machine is White and replies to the human's first move: its first move is move 2.
    crate::clauses::given_game(black_first_draft(), crate::clauses::MACHINE_WHITE)
        .and("0 arbiter start")
        .and("10 move e5")
        .and("20 move Nf3") // the machine's move was Nc3
        .and("30 move Nc6")
        .when("40 arbiter wrong-move Nf3 Nc3")
        .then_refused_saying("7c", "say arbiter wrong-move 2 Nf3 Nc3")
        .and("40 arbiter stop the operator played Nf3; the machine shows Nc3")
        .when("41 arbiter wrong-move 1 Nf3 Nc3")
        .then_refused_saying(
            "7c",
            "the machine (white) has made its move 2: there is no move 1",
        )
        .when("42 arbiter wrong-move 2 Nf3 Nc3")
        .then_events(&[("moves_taken_back", "7c"), ("wrong_move", "7c")])
        .then(|m, _| {
            let v = m.view(42_000);
            assert_eq!(v.last_moves, ["1... e5", "2. Nc3"]);
        });
}

/// The initial position given as a FEN at fullmove 23 (a game resumed on a scoresheet that
/// already has 22 moves): White's first move here is `23.`.
const FULLMOVE_23: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 23";

/// 2003 rules from [`FULLMOVE_23`], Kasparov White (human), Deep Junior Black; the first `plies`
/// moves of [`crate::clauses::LONG_GAME`], one every 30 s.
fn fullmove_23_match(plies: usize) -> crate::clauses::Match {
    let text = format!(
        "{}\n[start]\nclause = \"odds\"\ngames = [ {{ game = 1, fen = \"{FULLMOVE_23}\" }} ]\n",
        crate::clauses::rules_text(crate::clauses::KASPAROV_2003)
    );
    let draft = crate::clauses::game_from_text(crate::clauses::KASPAROV_2003, &text, 1, None);
    let mut m =
        crate::clauses::given_game(draft, crate::clauses::HUMAN_WHITE).and("0 arbiter start");
    for (i, san) in crate::clauses::LONG_GAME
        .split_whitespace()
        .take(plies)
        .enumerate()
    {
        m.at(&format!(
            "{} move {san}",
            crate::clauses::secs((i as u64 + 1) * 30_000)
        ));
    }
    m
}

/// python-chess reads `pgn` and writes its moves again (no comments): the same numbers as the
/// kit's movetext with its comments and Black's repeated numbers left out.
fn python_chess_numbers_alike(pgn: &str) {
    if crate::realgame::tool("python3").is_none() {
        return; // `tool` fails the test in CI when python3 is missing
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fen23.pgn");
    std::fs::write(&path, pgn).unwrap();
    let code = "import chess.pgn,sys\ng=chess.pgn.read_game(open(sys.argv[1]))\nassert not g.errors, g.errors\nprint(g.accept(chess.pgn.StringExporter(headers=False, variations=False, comments=False)))";
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(code)
        .arg(&path)
        .output()
        .unwrap();
    if !out.status.success()
        && String::from_utf8_lossy(&out.stderr).contains("No module named 'chess'")
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "python-chess is required in CI"
        );
        println!("SKIPPED part of the test: python-chess is not installed");
        return;
    }
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut ours = Vec::new();
    let mut depth = 0;
    for tok in movetext(pgn).split_whitespace() {
        let opens = tok.matches('{').count();
        let closes = tok.matches('}').count();
        let inside = depth > 0 || opens > 0;
        depth = depth + opens - closes;
        if inside || tok.ends_with("...") {
            continue;
        }
        ours.push(tok);
    }
    assert_eq!(theirs, ours.join(" "));
}

/// The movetext of a PGN (what follows the tags).
fn movetext(pgn: &str) -> &str {
    pgn.split_once("\n\n").map_or("", |(_, m)| m)
}

/// FIDE Laws 8.1 (the scoresheet's numbers), the PGN standard's `[FEN]` numbering and rule 3
/// (the time control counts the moves played): from a FEN at fullmove 23, the board's move list,
/// its compact list, the view, the report's moves table and timeline, the PGN and the relay all
/// number White's first move `23.`, through one numbering; the period addition comes after the
/// 40th move played in this game, which all of them show as move 62.
#[test]
fn rule_3_and_laws_8_1_one_numbering_from_a_fen_at_fullmove_23() {
    let sans: Vec<&str> = crate::clauses::LONG_GAME
        .split_whitespace()
        .take(82)
        .collect();
    let m = fullmove_23_match(82);
    let end: arbiter::core::Ms = 82 * 30_000 + 1_000;
    let v = m.view(end);
    assert_eq!(v.numbering.first_number, 23);
    assert_eq!(v.last_moves[0], format!("23. {}", sans[0]));
    assert_eq!(v.last_moves[1], format!("23... {}", sans[1]));
    assert_eq!(v.last_moves[78], format!("62. {}", sans[78]));
    assert_eq!(v.last_moves[81], format!("63... {}", sans[81]));
    // Rule 3 counts moves played: 41 each, in the second period (40 moves, then 20).
    for c in &v.clocks {
        assert_eq!(c.moves_made, 41, "{c:?}");
        assert_eq!(c.moves_to_control, Some(19), "{c:?}");
    }
    // The board's move list and the compact list (the board and `arbiter display`).
    let times = arbiter::board::tui::movelist::move_times(&m.log);
    let rows = arbiter::board::tui::movelist::rows(&v, &times);
    assert!(
        rows[0]
            .trim_start()
            .starts_with(&format!("23. {}", sans[0])),
        "{rows:?}"
    );
    assert!(
        rows[39]
            .trim_start()
            .starts_with(&format!("62. {}", sans[78])),
        "{rows:?}"
    );
    assert_eq!(rows.len(), 41);
    let compact = arbiter::board::tui::movelist::compact_rows(&v, &times, false);
    assert!(
        compact[0].starts_with(&format!("23. {}", sans[0])),
        "{compact:?}"
    );
    assert!(
        compact[40].starts_with(&format!("63. {}", sans[80])),
        "{compact:?}"
    );
    // The PGN: numbered from the FEN's fullmove, the period addition a rule-3 comment after
    // 62. (White's 40th move played), not before.
    let pgn = arbiter::after::postgame::pgn_of(&m.log, "2003-01-26T16:00:00Z").unwrap();
    assert!(pgn.contains(&format!("[FEN \"{FULLMOVE_23}\"]")), "{pgn}");
    let text = movetext(&pgn).replace('\n', " ");
    assert!(text.starts_with(&format!("23. {} {{", sans[0])), "{text}");
    assert!(text.contains(&format!("23... {} {{", sans[1])), "{text}");
    assert!(!text.contains(" 1. ") && !text.contains(" 22. "), "{text}");
    let at62 = text.find(&format!("62. {} ", sans[78])).expect(&text);
    let at63 = text.find(&format!("63. {} ", sans[80])).expect(&text);
    let white_period = text
        .find(
            "{3: the next period's time added to white's clock at its move 62 (40 moves played \
             in this game) (+1:00:00)}",
        )
        .unwrap_or_else(|| panic!("no rule-3 comment for White: {text}"));
    assert!(at62 < white_period && white_period < at63, "{text}");
    // python-chess, reading the PGN and writing it again without comments, numbers the moves
    // as the kit does (the standard's numbering under a [FEN] tag).
    python_chess_numbers_alike(&pgn);
    // The relay writes the same movetext.
    let stamps: Vec<arbiter::board::follow::Stamp> = m
        .log
        .iter()
        .map(|e| arbiter::board::follow::Stamp {
            utc: chrono::DateTime::from_timestamp(1_043_596_800, 0).unwrap()
                + chrono::Duration::milliseconds(e.at as i64),
            mono: e.at,
        })
        .collect();
    let relayed = arbiter::board::relay::game_pgn(&m.log, &stamps).unwrap();
    assert_eq!(movetext(&relayed), movetext(&pgn));
    // The report: the moves table's rows and the timeline.
    let r = arbiter::report::model::build(
        &m.log,
        &[],
        &arbiter::report::model::Verification::not_checked(m.log.len()),
        false,
    );
    let table: Vec<u32> = r.move_rows().iter().map(|(n, _, _)| *n).collect();
    assert_eq!(table, (23..=63).collect::<Vec<u32>>());
    let periods: Vec<(&str, &str)> = r
        .time_items
        .iter()
        .map(|t| (t.clause.as_str(), t.text.as_str()))
        .collect();
    assert_eq!(
        periods,
        [
            (
                "3",
                "the next period's time added to white's clock at its move 62 (40 moves played \
                 in this game)"
            ),
            (
                "3",
                "the next period's time added to black's clock at its move 62 (40 moves played \
                 in this game)"
            )
        ]
    );
    let md = arbiter::report::markdown::render(&r);
    assert!(md.contains(&format!("| 23 | 1 | {} |", sans[0])), "{md}");
    assert!(md.contains(&format!("| 62 | 1 | {} |", sans[78])), "{md}");
    assert!(md.contains(&format!("| 63 | 2 | {} |", sans[80])), "{md}");
    let html = arbiter::report::html::render(&r);
    assert!(html.contains(r#"<td class="num">23</td>"#), "html");
    assert!(
        !html.contains(r#"<td class="num">1</td><td class="num">1</td>"#),
        "html"
    );
}

/// Rule 7c from a FEN at fullmove 23: the arbiter names the machine's move by the number the
/// board and the PGN show (Black's first move here is `23...`), not by its count in this game.
#[test]
fn rule_7c_wrong_move_number_from_a_fen_at_fullmove_23() {
    let m = fullmove_23_match(4); // 23. f3 f6 24. Nc3 g6
    // The human to move (after the machine's 24... g6): the same hint.
    let m = m
        .when("125 arbiter wrong-move f6 e5")
        .then_refused_saying("7c", "say arbiter wrong-move 23 f6 e5")
        .and("125 move d3");
    m.when("160 arbiter wrong-move f6 e5")
        .then_refused_saying("7c", "say arbiter wrong-move 23 f6 e5")
        .and("160 arbiter stop the operator played f6; the machine shows e5")
        .when("161 arbiter wrong-move 1 f6 e5")
        .then_refused_saying(
            "7c",
            "the machine (black) has made its moves 23 to 24: there is no move 1",
        )
        .when("162 arbiter wrong-move 23 f6 e5")
        .then_events(&[("moves_taken_back", "7c"), ("wrong_move", "7c")])
        .then(|m, _| {
            assert_eq!(m.view(162_000).last_moves, ["23. f3", "23... e5"]);
        });
}

/// Rule 6a (a result never loses a move) from a FEN at fullmove 23: the refusal names the pressed
/// moves awaiting their notation by the numbers the board and the PGN will give them.
#[test]
fn rule_6a_result_over_pressed_moves_names_them_by_the_fen_s_numbers() {
    fullmove_23_match(2) // 23. f3 f6
        .and("70 press")
        .and("80 press")
        .when("90 human resign")
        .then_refused_saying(
            "6a",
            "white's move 24 (pressed at 0:01:10), black's move 24 (pressed at 0:01:20)",
        );
}

/// FIDE Laws 8.1: the one numbering and its inverse agree for every ply, from either side and any
/// fullmove number; a number before the start or White's half of a Black-first number has no ply.
#[test]
fn laws_8_1_numbering_and_its_inverse_agree() {
    use arbiter::core::Side;
    use arbiter::core::board::Numbering;
    for first in Side::BOTH {
        for first_number in [1, 23, 150] {
            let n = Numbering {
                first,
                first_number,
            };
            assert_eq!(n.number(0), first_number);
            assert_eq!(n.side(0), first);
            for ply in 0..300 {
                assert_eq!(
                    n.ply_of(n.side(ply), n.number(ply)),
                    Some(ply),
                    "{n:?} {ply}"
                );
                let label = n.label(ply);
                assert_eq!(
                    label.ends_with("..."),
                    n.side(ply) == Side::Black,
                    "{label}"
                );
                assert!(label.starts_with(&n.number(ply).to_string()), "{label}");
            }
            assert_eq!(n.ply_of(first, first_number - 1), None);
            if first == Side::Black {
                assert_eq!(n.ply_of(Side::White, first_number), None);
            }
        }
    }
}
