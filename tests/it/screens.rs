//! Every Board UI screen and panel, drawn on ratatui's TestBackend from real states produced by
//! driving the core through a Session at explicit times, and snapshot-tested.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::session::Memory;
use arbiter::tui::{Mode, MsgKind};
use crossterm::event::KeyCode;
use ratatui::style::Color;

use crate::tui_support::{Rig, ch, fg_at, key, text};

const AMBER: Color = Color::Rgb(255, 176, 0);

/// Started, 1. e4 played by the operator for Kasparov at 0:10; Deep Junior to move.
fn after_e4() -> Rig {
    let mut r = Rig::new();
    r.at("0", "arbiter start").at("10", "move e4");
    r
}

#[test]
fn screen_pre_game_80x24() {
    let mut r = Rig::new();
    let s = r.shot("0", 80, 24);
    assert!(s.contains("PRE-GAME"), "{s}");
    assert!(!s.contains("RUNNING"));
    insta::assert_snapshot!(s);
}

fn four_moves() -> Rig {
    let mut r = Rig::new();
    r.at("0", "arbiter start")
        .at("0:30", "move e4")
        .at("3:10", "move c5")
        .at("5:00", "move Nf3")
        .at("7:42", "move d6");
    r.signed_upto = Some(3);
    r
}

#[test]
fn screen_running_clocks_80x24() {
    let mut r = four_moves();
    // White has used 0:30 + 1:50 and is 0:33.5 into its third move.
    let s = r.shot("8:15.5", 80, 24);
    assert!(s.contains("RUNNING"), "{s}");
    // Two columns: each move with the time it took and the mover's clock after it.
    assert!(
        s.contains("1. e4       0:30 1:59:30   c5       2:40 1:57:20"),
        "{s}"
    );
    assert!(
        s.contains("2. Nf3      1:50 1:57:40   d6       2:42 1:54:38"),
        "{s}"
    );
    assert!(s.contains("2 moves · 38 to the control"), "{s}");
    assert!(s.contains("3 of 6 entries signed (3 unsigned)"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn screen_running_clocks_large_160x48() {
    let mut r = four_moves();
    let s = r.shot("8:15.5", 160, 48);
    assert!(s.contains("clauses in force"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn screen_resize_compact_then_large_same_state() {
    // The same state drawn at 80x24, then 120x40 (a resize): both layouts hold the clocks.
    let mut r = four_moves();
    let small = r.shot("8:15.5", 80, 24);
    let large = r.shot("8:15.5", 120, 40);
    for s in [&small, &large] {
        assert!(s.contains("WHITE · HUMAN · Garry Kasparov"), "{s}");
        assert!(s.contains("BLACK · MACHINE · Deep Junior"), "{s}");
    }
    insta::assert_snapshot!(large);
}

#[test]
fn screen_very_small_terminal_falls_back_to_plain_clocks() {
    let mut r = four_moves();
    let s = r.shot("8:15.5", 60, 16);
    assert!(s.contains("RUNNING"), "{s}");
    insta::assert_snapshot!(s);
}

/// The human offers a draw with 1. e4; the operator consults from 0:20.
fn consulting() -> Rig {
    let mut r = after_e4();
    r.at("10", "human offer-draw")
        .at("20", "operator consult Shay Bushinsky, Boris Alterman");
    r
}

#[test]
fn screen_draw_offer_normal() {
    let mut r = consulting();
    let buf = r.draw("2:00", 80, 24);
    let s = text(&buf);
    assert!(s.contains("8:20 left"), "{s}");
    assert_eq!(fg_at(&buf, "8:20 left"), Some(Color::Cyan));
    insta::assert_snapshot!(s);
}

#[test]
fn screen_draw_offer_amber_under_two_minutes() {
    let mut r = consulting();
    let buf = r.draw("8:50", 80, 24);
    let s = text(&buf);
    assert!(s.contains("1:30 left"), "{s}");
    assert_eq!(fg_at(&buf, "1:30 left"), Some(AMBER));
    insta::assert_snapshot!(s);
}

#[test]
fn screen_draw_offer_red_at_zero_and_further_consultation_refused() {
    let mut r = consulting();
    // At 10:20 the ten minutes are used: catch-up records the end of the consultation.
    r.catch_up(arbiter::core::timefmt::parse_duration("10:20").unwrap());
    assert!(arbiter::tui::bell(
        &mut r.ui,
        &r.s.game.view(620_000, 10),
        false
    ));
    // The bell rings once when the alarm appears, not on every frame.
    assert!(!arbiter::tui::bell(
        &mut r.ui,
        &r.s.game.view(621_000, 10),
        false
    ));
    // Asking again is refused by the core and named in the message line.
    r.key("10:25", ch(':'));
    r.typed("10:25", "operator consult Shay Bushinsky");
    r.key("10:25", key(KeyCode::Enter));
    let m = r.ui.message.clone().unwrap();
    assert_eq!(m.kind, MsgKind::Refused);
    assert!(m.text.contains("rule 9e"), "{m:?}");
    let buf = r.draw("10:25", 80, 24);
    let s = text(&buf);
    assert!(s.contains("0:00 left"), "{s}");
    assert_eq!(fg_at(&buf, "0:00 left"), Some(Color::Red));
    insta::assert_snapshot!(s);
}

#[test]
fn screen_machine_draw_offer() {
    let mut r = after_e4();
    r.at("40", "operator offer-draw eval 0.05");
    insta::assert_snapshot!(r.shot("45", 100, 30));
}

#[test]
fn screen_technical_problem_then_info_stop() {
    let mut r = after_e4();
    r.at("1:00", "operator technical-problem engine process hung");
    let running = r.shot("1:30", 100, 30);
    assert!(running.contains("machine's clock RUNNING"), "{running}");
    insta::assert_snapshot!("technical_running", running);
    r.at(
        "1:30",
        "supervisor info-stop which process are you restarting?",
    );
    let s = r.shot("2:00", 100, 30);
    assert!(s.contains("machine's clock STOPPED"), "{s}");
    assert!(s.contains("which process are you restarting?"), "{s}");
    insta::assert_snapshot!("technical_info_stop", s);
}

#[test]
fn screen_power_failure_and_reset_window() {
    let mut r = after_e4();
    r.at("1:00", "arbiter power-failure hall lights out");
    insta::assert_snapshot!("power_suspended", r.shot("2:00", 80, 24));
    r.at("5:00", "arbiter power-restored");
    let s = r.shot("7:15", 80, 24);
    assert!(s.contains("reset window 17:45 left"), "{s}");
    insta::assert_snapshot!("power_window", s);
}

#[test]
fn screen_operator_errors_one_then_two() {
    let mut r = Rig::new();
    r.at("0", "arbiter start")
        .at("10", "move e4")
        .at("40", "move e6")
        .at("50", "arbiter wrong-move e6 e5");
    let one = r.shot("1:00", 80, 24);
    assert!(one.contains("7c operator errors 1/2"), "{one}");
    insta::assert_snapshot!("operator_errors_1", one);
    r.at("1:10", "move Nf3").at("1:40", "move d6");
    r.at("1:50", "arbiter wrong-move d6 Nc6");
    let two = r.shot("2:00", 80, 24);
    assert!(two.contains("7c operator errors 2/2"), "{two}");
    assert!(two.contains("RESULT 1-0"), "{two}");
    insta::assert_snapshot!("operator_errors_2_forfeit", two);
}

#[test]
fn screen_sync_warning_internal_clock() {
    let mut r = after_e4();
    r.at("30", "operator internal-clock 1:50:00");
    let s = r.shot("40", 80, 24);
    assert!(s.contains("6c SYNC INTERNAL CLOCK"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn screen_flag_fall_result() {
    let mut r = Rig::new();
    r.at("0", "arbiter start")
        .at("10", "move e4")
        .at("20", "move e5");
    // White's 2 hours minus 10 s run out at 2:00:20; the loop's catch-up records the flag.
    let buf = r.draw("2:00:21", 80, 24);
    let s = text(&buf);
    assert!(s.contains("RESULT 0-1"), "{s}");
    assert!(s.contains("flag fall"), "{s}");
    assert!(arbiter::tui::bell(
        &mut r.ui,
        &r.s.game.view(7_221_000, 10),
        false
    ));
    insta::assert_snapshot!(s);
}

#[test]
fn screen_stopped_by_arbiter() {
    let mut r = after_e4();
    r.key("1:00", ch('s'));
    let s = r.shot("1:30", 80, 24);
    assert!(s.contains("1 CLOCKS STOPPED"), "{s}");
    assert!(!s.contains("RUNNING"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn screen_help_overlay() {
    let mut r = after_e4();
    r.key("20", ch('?'));
    let s = r.shot("20", 100, 30);
    assert!(s.contains("ARBITER"), "{s}");
    insta::assert_snapshot!("help_top", s);
    for _ in 0..3 {
        r.key("20", key(KeyCode::PageDown));
    }
    let s = r.shot("20", 100, 30);
    assert!(s.contains("OPERATOR") || s.contains("operator"), "{s}");
    insta::assert_snapshot!("help_scrolled", s);
}

#[test]
fn screen_confirm_prompt_for_resignation() {
    let mut r = after_e4();
    r.key("20", ch(':'));
    r.typed("20", "operator resign");
    r.key("20", key(KeyCode::Enter));
    assert!(matches!(r.ui.mode, Mode::Confirm { .. }));
    let s = r.shot("20", 80, 24);
    assert!(s.contains("irreversible"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn screen_alarm_banner_when_the_log_append_fails() {
    // Entries 0 and 1 (opening, clock started) are written; the third append fails.
    let mut r = Rig::with_storage(Memory {
        events: Vec::new(),
        fail_from: Some(2),
    });
    r.at("0", "arbiter start");
    r.key("10", ch(' '));
    r.typed("10", "e4");
    r.key("10", key(KeyCode::Enter));
    assert!(r.ui.frozen.is_some());
    // Nothing is shown as done: the move is not on the board.
    assert_eq!(r.s.game.board.plies(), 0);
    let s = r.shot("15", 80, 24);
    assert!(s.contains("LOG WRITE FAILED"), "{s}");
    assert!(s.contains("NOT recorded"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn screen_move_line_with_completion() {
    let mut r = after_e4();
    r.key("20", ch('N'));
    r.key("20", key(KeyCode::Tab));
    r.key("20", key(KeyCode::Tab));
    let s = r.shot("20", 80, 24);
    assert!(s.contains("move black ▸  Nc6"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn screen_refusal_names_the_clause() {
    let mut r = after_e4();
    r.at("30", "arbiter stop toilet break");
    r.key("40", ch(' '));
    r.typed("40", "e5");
    r.key("40", key(KeyCode::Enter));
    let s = r.shot("40", 100, 30);
    assert!(s.contains("refused (rule 1)"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn screen_many_panels_at_once_80x24() {
    let mut r = consulting();
    r.at("30", "operator internal-clock 1:50:00")
        .at("40", "operator technical-problem monitor cable loose")
        .at("50", "supervisor info-stop which cable?");
    let s = r.shot("1:00", 80, 24);
    for needle in [
        "9e DRAW OFFER",
        "8a TECHNICAL",
        "6c SYNC",
        "7c operator errors",
    ] {
        assert!(s.contains(needle), "{needle}\n{s}");
    }
    insta::assert_snapshot!(s);
}
