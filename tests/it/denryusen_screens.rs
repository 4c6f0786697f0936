//! The Board UI on a shogi game (Denryu-sen 2024): the 9×9 board in kanji or letters, both
//! hands, the last move, the moves in Japanese notation with ▲/△, at 80×24 and 120×40.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tui_support::{Rig, rig_with_profile};

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

fn shogi_game() -> Rig {
    let mut r = rig_with_profile("rules/denryusen-2024.toml");
    r.at("0", "arbiter start")
        .at("5", "move 7g7f")
        .at("9", "move 3c3d")
        .at("12", "move 8h2b+")
        .at("20", "move 同　銀");
    r
}

#[test]
fn denryusen_board_shows_the_shogi_position_hands_and_last_move() {
    let mut r = shogi_game();
    for (w, h) in SIZES {
        let s = r.shot("25", w, h);
        insta::assert_snapshot!(format!("shogi_board_{w}x{h}"), s);
        // The text dump writes a wide character's second cell as a space: compare without them.
        let c = s.replace(' ', "");
        // Both hands: each side took a bishop.
        assert!(c.contains("▲持駒角") && c.contains("△持駒角"), "{s}");
        // Gote's pieces marked v, the files in full-width digits, the ranks in kanji.
        assert!(c.contains("v香v桂v銀v金v玉v金・v桂v香一"), "{s}");
        assert!(c.contains("９８７６５４３２１"), "{s}");
        assert!(c.contains("香桂銀金玉金銀桂香九"), "{s}");
        // The moves in Japanese with ▲/△.
        assert!(c.contains("▲７六歩") && c.contains("△同銀"), "{s}");
        assert!(!s.contains("a  b  c  d"), "no chess diagram:\n{s}");
    }
}

#[test]
fn denryusen_board_in_letters_where_kanji_cannot_be_shown() {
    let mut r = shogi_game();
    r.ui.ascii = true;
    let s = r.shot("25", 120, 40);
    insta::assert_snapshot!("shogi_board_letters_120x40", s);
    assert!(
        s.contains("sente in hand: B") && s.contains("gote in hand: B"),
        "{s}"
    );
    assert!(s.contains("  l  n  s  g  k  g"), "{s}");
}

/// The first `n` moves of the real engine game of `tests/fixtures/shogi/human-vs-engine` (times to
/// the ms, mostly under ten seconds, so the list shows times and both clocks).
fn fixture_game(n: usize) -> Rig {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/shogi/human-vs-engine/game.arb");
    let text = std::fs::read_to_string(path).unwrap();
    let mut r = rig_with_profile("rules/denryusen-2024.toml");
    r.at("0", "arbiter start");
    for l in text.lines().filter(|l| l.contains(" move ")).take(n) {
        let (at, mv) = l.split_once(' ').unwrap();
        r.at(&secs(at), mv);
    }
    r
}

/// `h:mm:ss.fff` as seconds with a fraction (the rig's time).
fn secs(hms: &str) -> String {
    let (whole, ms) = hms.split_once('.').unwrap();
    let p: Vec<u64> = whole.split(':').map(|x| x.parse().unwrap()).collect();
    format!("{}.{ms}", (p[0] * 60 + p[1]) * 60 + p[2])
}

/// The move rows of a screen dump (a move, its time, the mover's clock), and the cell where each
/// row's clock ends: the dump writes a wide character's second cell as a space, so a character's
/// index is its cell.
fn move_rows(s: &str) -> Vec<(String, usize)> {
    s.lines()
        .filter(|l| l.contains('▲') || l.contains('△'))
        .filter(|l| {
            let t = l.trim_end().trim_end_matches('│').trim_end();
            let b = t.as_bytes();
            b.len() > 8 && b[b.len() - 3] == b':' && b[b.len() - 6] == b':'
        })
        .map(|l| {
            let t = l.trim_end().trim_end_matches('│').trim_end();
            (t.to_string(), t.chars().count())
        })
        .collect()
}

#[test]
fn denryusen_board_move_list_one_move_a_line_in_japanese_with_times() {
    let mut r = fixture_game(8);
    for (w, h) in SIZES {
        let s = r.shot("41", w, h);
        insta::assert_snapshot!(format!("shogi_move_list_{w}x{h}"), s);
        let c = s.replace(' ', "");
        // Every move counts (手数): 8 is gote's 4th; the heading is the shogi list's.
        assert!(c.contains("#movetookclock"), "{s}");
        assert!(c.contains("1▲７六歩0:020:03:00"), "{s}");
        assert!(c.contains("6△５一金左0:080:09:50"), "{s}");
        assert!(c.contains("8△６二銀0:110:09:41"), "{s}");
        // The side to move is named as shogi names it.
        assert!(s.contains("clock running: SENTE"), "{s}");
        // The columns line up whatever the move's width in cells (a kanji takes two).
        let rows = move_rows(&s);
        assert_eq!(rows.len(), 8, "{s}");
        let end = rows[0].1;
        assert!(rows.iter().all(|(_, e)| *e == end), "{rows:#?}");
    }
}

#[test]
fn denryusen_board_move_list_of_a_whole_game_in_columns_on_a_wide_screen() {
    let mut r = fixture_game(60);
    let s = r.shot("345", 120, 40);
    insta::assert_snapshot!("shogi_move_list_whole_game_120x40", s);
    let c = s.replace(' ', "");
    assert!(c.contains("thewholegame"), "{s}");
    // Move 1 and move 60 on one screen, in columns.
    assert!(c.contains("1▲７六歩20△４二銀上39▲１一飛成58△同玉"), "{s}");
    assert!(c.contains("60△５五桂"), "{s}");
    // 80×24 follows the game: the last moves, in columns, from the row it names.
    let s = r.shot("345", 80, 24);
    insta::assert_snapshot!("shogi_move_list_whole_game_80x24", s);
    let c = s.replace(' ', "");
    assert!(c.contains("fromrow43"), "{s}");
    assert!(c.contains("43▲１三歩成52△４四歩"), "{s}");
    assert!(c.contains("51▲２六歩60△５五桂"), "{s}");
    assert!(!c.contains("1▲７六歩"), "{s}");
}

/// Denryu-sen 5.2: a shogi clock names its side 先手/後手 (with the reading, for terminals
/// without kanji) and the entrant's kind, never WHITE/BLACK · MACHINE; chess keeps its titles.
#[test]
fn denryusen_5_2_clock_panels_name_sente_gote_and_the_entrant() {
    let mut r = rig_with_profile("rules/denryusen-2024.toml");
    r.at(
        "0",
        "arbiter declare gote consulting Sato with Suisho: reads its top line",
    )
    .at("1", "arbiter start")
    .at("5", "move 7g7f");
    for (w, h) in SIZES {
        let s = r.shot("6", w, h);
        let c = s.replace(' ', "");
        assert!(c.contains("先手(sente)·PROGRAM·Suisho"), "{s}");
        assert!(c.contains("後手(gote)·HUMAN+AI·Sato"), "{s}");
        assert!(!s.contains("WHITE") && !s.contains("BLACK"), "{s}");
        assert!(!s.contains("MACHINE"), "{s}");
    }
    let mut chess = rig_with_profile("rules/kasparov-deep-junior-2003.toml");
    chess.at("0", "arbiter start");
    let s = chess.shot("1", 120, 40);
    assert!(
        s.contains("WHITE · HUMAN ·") || s.contains("WHITE · MACHINE ·"),
        "{s}"
    );
    assert!(!s.contains("先手"), "{s}");
}

/// The board's per-side hand-over (28.1, 5.2 (1)): in a game between two programs,
/// `:arbiter archive --side sente COPY COPY` checks sente's moves against sente's program's own
/// log, in a real terminal (tmux), and the entry names the side.
#[test]
fn denryusen_28_1_the_board_archives_one_program_s_log_with_side() {
    use crate::pty::{DEADLINE, Tmux, bin, tmux_available};
    use arbiter::core::command::{Command, parse};
    // The words: a side by shogi's or chess's name, before the copies; never human or machine.
    assert_eq!(
        parse("arbiter archive --side gote a.log b.log").unwrap(),
        Command::HandOverFiles {
            copies: vec!["a.log".into(), "b.log".into()],
            program: None,
            side: Some(arbiter::core::Side::Black),
        }
    );
    assert!(parse("arbiter archive --side machine a.log").is_err());
    assert!(parse("arbiter archive --side").is_err());
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let decl = dir.path().join("declarations.arb");
    std::fs::write(
        &decl,
        "arbiter declare sente program Sente Engine\narbiter declare gote program Gote Engine\n\
         arbiter declare operator Op\n\
         arbiter declare config 3151b90fbc02afcb28e4f6e600a0cd2cb71e4292b48c398bffcc35b5e0150d25\n",
    )
    .unwrap();
    // Sente's program's own log: its two searches, none of gote's.
    let usi = ">> position startpos\n>> go btime 180000 wtime 600000 binc 2000 winc 2000\n\
               << info depth 1 score cp 10 nodes 100 time 5 pv 7g7f\n<< bestmove 7g7f\n\
               >> position startpos moves 7g7f 3c3d\n\
               >> go btime 181000 wtime 600000 binc 2000 winc 2000\n\
               << info depth 1 score cp 10 nodes 100 time 5 pv 2g2f\n<< bestmove 2g2f\n";
    let copies: Vec<String> = ["a.log", "b.log"]
        .iter()
        .map(|n| {
            let p = dir.path().join(n);
            std::fs::write(&p, usi).unwrap();
            p.display().to_string()
        })
        .collect();
    let rules = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/denryusen-2024.toml");
    let args = [
        "play",
        "--match",
        m.to_str().unwrap(),
        "--rules",
        rules.to_str().unwrap(),
        "--declarations",
        decl.to_str().unwrap(),
    ];
    let t = Tmux::start("shogi-archive", &args, dir.path(), 100, 30);
    assert!(bin().ends_with("arbiter"));
    t.wait_for("PRE-GAME", DEADLINE);
    t.keys(&["Space"]);
    t.wait_for("RUNNING", DEADLINE);
    for (mv, shown) in [
        ("7g7f", "▲７六歩"),
        ("3c3d", "△３四歩"),
        ("2g2f", "▲２六歩"),
    ] {
        t.keys(&[":"]);
        t.type_text(&format!("move {mv}"));
        t.keys(&["Enter"]);
        t.wait_for(shown, DEADLINE);
    }
    t.keys(&[":"]);
    t.type_text("gote resign");
    t.keys(&["Enter"]);
    t.wait_for("irreversible", DEADLINE);
    t.keys(&["y"]);
    t.wait_for("RESULT 1-0", DEADLINE);
    t.keys(&[":"]);
    t.type_text(&format!(
        "arbiter archive --side sente {} {}",
        copies[0], copies[1]
    ));
    t.keys(&["Enter"]);
    // The confirmation and the summary wrap at the screen's width: read them as one line.
    // Compared without spaces, line breaks and the frame's edges.
    let flat = |s: &str| {
        s.chars()
            .filter(|c| !c.is_whitespace() && *c != '┃')
            .collect::<String>()
    };
    t.wait_until(
        |s| {
            flat(s).contains(&flat(
                "2 copies of sente's program's log are examined, stored and recorded (28.1)",
            ))
        },
        "the consequence naming sente's program",
        DEADLINE,
    );
    t.keys(&["y"]);
    t.wait_until(
        |s| flat(s).contains(&flat("28.1 (sente's program): 2/2 machine moves covered")),
        "sente's two moves covered by its own log",
        DEADLINE,
    );
    t.keys(&["q"]);
    t.wait_for("quit the board UI?", DEADLINE);
    t.keys(&["y"]);
    assert!(
        t.wait_exit(DEADLINE),
        "arbiter play did not exit:\n{}",
        t.screen()
    );
    let entries = arbiter::record::journal::read_entries(&m.join("game-1/log.jsonl")).unwrap();
    let archived: Vec<_> = entries
        .iter()
        .filter(|e| e.kind == "engine_log_archived")
        .collect();
    assert_eq!(archived.len(), 1);
    assert_eq!(archived[0].clause, "28.1");
    let body = &archived[0].body;
    assert_eq!(body["side"], "sente", "{body}");
}

/// Before a shogi game starts, the declarations cite the profile's articles (5.2 for the team,
/// 22.3 for the algorithm, 26.3 for the configuration), not the 2003 clauses (9c, 6c, 8a).
#[test]
fn denryusen_5_2_the_pre_game_declarations_cite_the_profiles_articles() {
    let mut r = rig_with_profile("rules/denryusen-2024.toml");
    for (w, h) in SIZES {
        let s = r.shot("0", w, h);
        assert!(
            s.contains("none registered (5.2: no one may be consulted)"),
            "{s}"
        );
        assert!(
            s.contains("algorithm 22.3 no rule on the engine's own clock (22.3"),
            "{s}"
        );
        assert!(!s.contains("default of rule"), "{s}");
        assert!(s.contains("config    26.3 SHA-256"), "{s}");
        assert_eq!(
            crate::denryusen_articles::clause_tokens_2003(&s),
            Vec::<String>::new(),
            "{s}"
        );
    }
}

/// The board's panels, header and confirmation dialog of a shogi game speak the profile's
/// articles: no 2003 clause token (`8a TECHNICAL PROBLEM`, the header's `(1)`) on any screen.
#[test]
fn denryusen_board_panels_and_dialogs_cite_the_profiles_articles_not_2003_clauses() {
    use crate::denryusen_articles::clause_tokens_2003;
    use crate::tui_support::{ch, key};
    use arbiter::board::tui::Mode;
    use crossterm::event::KeyCode;
    let mut r = rig_with_profile("rules/denryusen-2024.toml");
    r.at("0", "arbiter declare gote human Taro Yamada")
        .at("1", "arbiter start")
        .at("5", "move 7g7f")
        .at("9", "move 3c3d");
    let mut shots = Vec::new();
    r.at("31", "operator technical-problem the USI bridge hangs");
    shots.push(r.shot("32", 120, 40));
    r.at("33", "operator repaired restarted the bridge");
    r.at("34", "arbiter stop the server reconnected");
    shots.push(r.shot("35", 120, 40));
    r.at("36", "arbiter resume");
    r.key("40", ch(':'));
    r.typed("40", "operator resign");
    r.key("40", key(KeyCode::Enter));
    assert!(matches!(r.ui.mode, Mode::Confirm { .. }));
    shots.push(r.shot("40", 120, 40));
    let all = shots.join("\n");
    // The panels are there, with the profile's numbers.
    assert!(all.contains("TECHNICAL PROBLEM"), "{all}");
    assert!(all.contains("CLOCKS STOPPED"), "{all}");
    assert!(all.contains("irreversible"), "{all}");
    assert_eq!(clause_tokens_2003(&all), Vec::<String>::new(), "{all}");
}

#[test]
fn denryusen_13_1_an_illegal_move_typed_at_the_board_is_refused_and_the_arbiter_confirms_it() {
    use arbiter::board::tui::{Mode, MsgKind};
    use arbiter::core::game::Phase;
    use crossterm::event::KeyCode;

    use crate::tui_support::{ch, key};
    let mut r = shogi_game();
    let entries = r.s.storage.len();
    // Sente's pawn left 7g long ago: 7g7f typed now is a slip, refused like a chess move.
    r.key("30", ch(' '));
    r.typed("30", "7g7f");
    r.key("30", key(KeyCode::Enter));
    let m = r.ui.message.clone().unwrap();
    assert_eq!(m.kind, MsgKind::Refused, "{m:?}");
    assert!(m.text.contains("nothing recorded"), "{}", m.text);
    assert!(m.text.contains("arbiter illegal-move 7g7f"), "{}", m.text);
    assert_eq!(r.ui.mode, Mode::Line(arbiter::board::tui::LineKind::Move));
    assert_eq!(r.ui.line, "7g7f", "the line is given back to be corrected");
    assert_eq!(r.s.storage.len(), entries, "nothing recorded");
    assert_eq!(r.s.game.phase(), Phase::Playing);
    // The arbiter, having seen sente play it, confirms: asked y/n with the result first.
    r.key("31", key(KeyCode::Esc));
    r.key("31", ch(':'));
    r.typed("31", "arbiter illegal-move 7g7f");
    r.key("31", key(KeyCode::Enter));
    match &r.ui.mode {
        Mode::Confirm { text, .. } => {
            assert!(text.contains("the game ENDS 0-1"), "{text}");
            assert!(text.contains("illegal move"), "{text}");
        }
        other => panic!("asked y/n first, got {other:?}"),
    }
    assert_eq!(r.s.storage.len(), entries, "nothing recorded before the y");
    r.key("32", ch('y'));
    assert_eq!(r.s.game.phase(), Phase::Ended);
}

/// Denryu-sen 5.2 and 13: the board speaks shogi. Sente and gote name the sides in the message
/// and status lines; the key bar and help offer no draw (shogi has none) and no chess key, and the
/// help cites the Denryu-sen articles with shogi's own commands.
#[test]
fn denryusen_13_the_board_speaks_shogi_in_its_lines_key_bar_and_help() {
    use crossterm::event::KeyCode;

    use crate::tui_support::{ch, key};
    let mut r = shogi_game();
    let s = r.shot("25", 120, 40);
    let bottom: String = s.lines().rev().take(4).collect::<Vec<_>>().join("\n");
    assert!(
        bottom.contains("move_made gote △同銀") || bottom.contains("move_made gote △同 銀"),
        "{bottom}"
    );
    for chess in [" black ", " white ", "F7", "draw offer", "F8"] {
        assert!(
            !bottom.contains(chess),
            "'{chess}' on a shogi board:\n{bottom}"
        );
    }
    r.key("25", ch('?'));
    let help = r.shot("25", 120, 300);
    for chess in [
        "offer-draw",
        "claim",
        "tablebase",
        "operator consult",
        "F7",
        "White's",
        "a-h N B R Q K O",
        "white|black",
    ] {
        assert!(
            !help.contains(chess),
            "'{chess}' in the shogi help:\n{help}"
        );
    }
    for shogi in [
        "sente|gote resign",
        "sente|gote declare",
        "arbiter illegal-move MOVE",
        "arbiter declare sente|gote",
        "(the flag)",
    ] {
        assert!(
            help.contains(shogi),
            "'{shogi}' missing from the shogi help:\n{help}"
        );
    }
    let flat: String = help
        .replace(['║', '│', '┃'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains("the flag falls up to the increment (2 s) after the clock shows 0:00:00"),
        "the flag rule explained:\n{help}"
    );
    r.key("25", key(KeyCode::Esc));
    // The chess board's help keeps its own.
    let mut c = crate::tui_support::Rig::new();
    c.key("0", ch('?'));
    let help = c.shot("0", 120, 300);
    assert!(
        help.contains("human offer-draw") && help.contains("F7"),
        "{help}"
    );
}

/// Denryu-sen 14: a draw scores 0.4 to sente and 0.6 to gote; the board's header and the
/// audience's display write the match score as `status` does, never rounded to a half.
#[test]
fn denryusen_14_the_header_and_display_score_a_draw_0_4_and_0_6_as_status_does() {
    let table = vec![("Suisho".to_string(), 1.4), ("Dlshogi".to_string(), 0.6)];
    assert_eq!(
        arbiter::board::tui::score_text(&table).as_deref(),
        Some("Suisho 1.4 – Dlshogi 0.6")
    );
    // Chess halves stay as a scoresheet writes them.
    let chess = vec![
        ("Kasparov".to_string(), 1.5),
        ("Deep Junior".to_string(), 0.5),
    ];
    assert_eq!(
        arbiter::board::tui::score_text(&chess).as_deref(),
        Some("Kasparov 1½ – Deep Junior ½")
    );
    let two = vec![("A".to_string(), 2.0), ("B".to_string(), 0.0)];
    assert_eq!(
        arbiter::board::tui::score_text(&two).as_deref(),
        Some("A 2 – B 0")
    );
}
