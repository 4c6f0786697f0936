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
