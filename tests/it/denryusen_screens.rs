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
