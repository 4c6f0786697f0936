//! Issue 20: the rules' corners the committee reads — each test named after its clause or FIDE
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
            let pgn = arbiter::postgame::pgn_of(&m.log, "2003-01-26T16:00:00Z").unwrap();
            assert!(
                pgn.contains("1. e4 {[%clk 1:59:50] [%emt 0:00:10]} 1... e5"),
                "{pgn}"
            );
        });
}
