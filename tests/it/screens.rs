//! Every Board UI screen and panel, drawn on ratatui's TestBackend from real states produced by
//! driving the core through a Session at explicit times, and snapshot-tested.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::board::session::Memory;
use arbiter::board::tui::{Mode, MsgKind};
use crossterm::event::KeyCode;
use ratatui::style::Color;

use crate::tui_support::{Rig, ch, fg_at, key, rig_with_profile, text};

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
    assert!(arbiter::board::tui::bell(
        &mut r.ui,
        &r.s.game.view(620_000, 10),
        false
    ));
    // The bell rings once when the alarm appears, not on every frame.
    assert!(!arbiter::board::tui::bell(
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
    assert!(arbiter::board::tui::bell(
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
    assert_eq!(r.s.game.board().plies(), 0);
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

// ----- the board screen an arbiter wants ----------------------------------------------

/// The two sizes every new panel is drawn at.
const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

/// Snapshot the screen at both sizes (`NAME_80x24`, `NAME_120x40`) and return both texts.
fn both(r: &mut Rig, at: &str, name: &str) -> Vec<String> {
    SIZES
        .iter()
        .map(|(w, h)| {
            let s = r.shot(at, *w, *h);
            insta::assert_snapshot!(format!("{name}_{w}x{h}"), s);
            s
        })
        .collect()
}

/// Play SAN moves one every 20 s from 0:20 (White's first at 0:20).
fn played(moves: &[&str]) -> Rig {
    let mut r = Rig::new();
    r.at("0", "arbiter start");
    for (i, m) in moves.iter().enumerate() {
        let at = format!("{}", 20 * (i + 1));
        r.at(&at, &format!("move {m}"));
    }
    r
}

/// The Opera game to 16... Nxb8 (32 plies, no result yet).
const OPERA: [&str; 32] = [
    "e4", "e5", "Nf3", "d6", "d4", "Bg4", "dxe5", "Bxf3", "Qxf3", "dxe5", "Bc4", "Nf6", "Qb3",
    "Qe7", "Nc3", "c6", "Bg5", "b5", "Nxb5", "cxb5", "Bxb5+", "Nbd7", "O-O-O", "Rd8", "Rxd7",
    "Rxd7", "Rd1", "Qe6", "Bxd7+", "Nxd7", "Qb8+", "Nxb8",
];

#[test]
fn clause_6a_diagram_marks_the_last_move_and_a_check() {
    // 1. e4 f5 2. Qh5+: Black is in check.
    let mut r = played(&["e4", "f5", "Qh5+"]);
    for s in both(&mut r, "1:05", "board_check") {
        assert!(s.contains("+♚+"), "the king in check is marked:\n{s}");
        assert!(s.contains("CHECK"), "{s}");
        assert!(
            s.contains("[♕]"),
            "the last move's squares are bracketed:\n{s}"
        );
        assert!(s.contains("last 2. Qh5+"), "{s}");
        assert!(s.contains("a  b  c  d  e  f  g  h"), "{s}");
    }
}

#[test]
fn clause_6a_diagram_from_blacks_side_and_in_letters() {
    let mut r = played(&["e4", "e5"]);
    r.key("1:00", ch('o'));
    r.ui.ascii = true;
    let s = r.shot("1:00", 80, 24);
    assert!(s.contains("h  g  f  e  d  c  b  a"), "{s}");
    assert!(s.contains("Black below"), "{s}");
    // Rank 1 at the top, in letters: White's pieces read from h to a.
    assert!(s.contains("1  R  N  B  K  Q  B  N  R"), "{s}");
    assert!(!s.contains('♔'), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn clause_6a_move_list_has_every_move_with_its_time_and_follows_then_scrolls_back() {
    let mut r = played(&OPERA);
    let shots = both(&mut r, "11:00", "moves_follow");
    for s in &shots {
        // The latest row, with each move's time and the clock after it.
        assert!(
            s.contains("16. Qb8+     0:20 1:54:40   Nxb8     0:20 1:54:40"),
            "{s}"
        );
    }
    // 80×24 holds a few rows: the opening is not shown until scrolled back to.
    assert!(!shots[0].contains("  1. e4"), "{}", shots[0]);
    r.key("11:00", key(KeyCode::Home));
    let s = r.shot("11:00", 80, 24);
    assert!(
        s.contains("1. e4       0:20 1:59:40   e5       0:20 1:59:40"),
        "{s}"
    );
    assert!(s.contains("moves 1-8 of 16 · End follows the game"), "{s}");
    insta::assert_snapshot!("moves_scrolled_back_80x24", s);
    r.key("11:00", key(KeyCode::End));
    assert!(r.shot("11:00", 80, 24).contains("16. Qb8+"));
    // At 120×40 the big clocks give up their air for the list: moves 3 to 16 at once.
    assert!(
        shots[1].contains("  3. d4") && shots[1].contains("16. Qb8+"),
        "{}",
        shots[1]
    );
}

#[test]
fn clause_6a_the_running_moves_time_is_shown() {
    let mut r = played(&["e4"]);
    // Black's clock started at 0:20; at 1:47.3 its move has run 1:27.
    let s = r.shot("1:47.3", 80, 24);
    assert!(s.contains("this move 0:01:27"), "{s}");
}

#[test]
fn clause_free_text_profile_shows_the_move_list_only() {
    let mut r = rig_with_profile("tests/fixtures/profiles/free-text.toml");
    r.at("0", "arbiter start")
        .at("5", "move 7g7f")
        .at("9", "move 3c3d");
    for s in both(&mut r, "12", "free_text") {
        assert!(
            !s.contains("a  b  c  d"),
            "no chess diagram for shogi:\n{s}"
        );
        assert!(s.contains("7g7f") && s.contains("3c3d"), "{s}");
    }
}

#[test]
fn clause_5b_log_page_lists_every_entry_in_full_and_scrolls() {
    let mut r = played(&["e4", "e5"]);
    let long = "the operator reports that the engine's opening book was updated last night \
                and asks that the committee note the file's digest before the next game begins";
    r.at("1:10", &format!("arbiter note {long}"));
    r.key("1:20", ch('l'));
    assert!(matches!(r.ui.mode, Mode::Log { back: 0 }));
    for s in both(&mut r, "1:20", "log_page") {
        assert!(s.contains("the log: 5 entries"), "{s}");
        assert!(s.contains("#4"), "{s}");
        assert!(s.contains("clause 5b"), "{s}");
        // Wrapped, never cut: every word of the note is on screen.
        let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
        for w in long.split_whitespace() {
            assert!(flat.contains(w), "'{w}' missing:\n{s}");
        }
        assert!(flat.contains("before the next game begins"), "{s}");
    }
    // Home goes to line 0; Esc closes.
    r.key("1:20", key(KeyCode::Home));
    let s = r.shot("1:20", 80, 24);
    assert!(s.contains("#0") && s.contains("game_opened"), "{s}");
    insta::assert_snapshot!("log_page_top_80x24", s);
    r.key("1:20", key(KeyCode::Esc));
    assert_eq!(r.ui.mode, Mode::Clock);
}

#[test]
fn clause_9c_a_long_refusal_wraps_instead_of_being_cut() {
    let mut r = after_e4();
    r.at("20", "human offer-draw");
    r.key("30", ch(':'));
    r.typed(
        "30",
        "operator consult Shay Bushinsky, Somebody Unregistered, Another Stranger",
    );
    r.key("30", key(KeyCode::Enter));
    let m = r.ui.message.clone().unwrap();
    assert_eq!(m.kind, MsgKind::Refused);
    for s in both(&mut r, "30", "refusal_wrapped") {
        let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
        let want: String = m.text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(&want), "refusal cut:\n{s}\nwant: {want}");
    }
}

#[test]
fn clause_help_wraps_at_80_columns_and_cuts_no_description() {
    let mut r = after_e4();
    r.key("20", ch('?'));
    // Tall enough to hold the whole help: every description appears in full.
    let s = r.shot("20", 80, 300);
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    for h in arbiter::core::command::HELP {
        let want: String = h.what.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(&want), "help cuts '{}'", h.what);
    }
    insta::assert_snapshot!("help_80x24", r.shot("20", 80, 24));
}

#[test]
fn clause_1_stopped_clock_says_stopped_and_the_title_says_so() {
    let mut r = after_e4();
    r.key("1:00", ch('s'));
    let s = r.shot("1:30", 120, 40);
    assert!(s.contains("■ STOPPED ■"), "{s}");
    assert!(s.contains("CLOCKS STOPPED by the arbiter"), "{s}");
    assert!(!s.contains("PLAYING"), "{s}");
}

#[test]
fn clause_8b_suspended_on_both_clocks_and_not_playing_in_the_title() {
    let mut r = after_e4();
    r.at("1:00", "arbiter power-failure hall lights out");
    for s in both(&mut r, "2:00", "power_clocks") {
        assert!(s.matches("SUSPENDED ‖").count() >= 2, "{s}");
        assert!(s.contains("SUSPENDED · power failure (8b)"), "{s}");
        assert!(!s.contains("PLAYING"), "{s}");
    }
}

#[test]
fn clause_3_flag_on_the_big_clock() {
    let mut r = Rig::new();
    r.at("0", "arbiter start")
        .at("10", "move e4")
        .at("20", "move e5");
    let s = r.shot("2:00:21", 120, 40);
    assert!(s.contains("⚑ FLAG FELL ⚑"), "{s}");
}

#[test]
fn clause_9e_limit_stays_red_after_the_panel_goes_until_acknowledged() {
    let mut r = consulting();
    // The machine moves (declining the offer) while the team consults; the limit comes at 10:20.
    r.at("1:00", "move e5");
    let s = r.shot("10:21", 80, 24);
    // The 9e panel is gone (the offer was answered, the consultation closed)...
    assert!(!s.contains("9e DRAW OFFER"), "{s}");
    // ...but the reached limit stays red until acknowledged.
    assert!(s.contains("9e consultation limit reached"), "{s}");
    assert_eq!(
        fg_at(&r.draw("10:21", 80, 24), "9e consultation"),
        Some(Color::White)
    );
    for s in both(&mut r, "12:00", "alarm_9e") {
        assert!(s.contains("press ! to acknowledge"), "{s}");
    }
    r.key("12:00", ch('!'));
    assert!(r.ui.alarms.is_empty());
    let s = r.shot("13:00", 80, 24);
    assert!(!s.contains("9e consultation limit reached"), "{s}");
    assert!(s.contains("1 red alarm acknowledged"), "{s}");
}

#[test]
fn clause_6c_owed_correction_clears_itself_once_corrected() {
    let mut r = after_e4();
    r.at("30", "operator internal-clock 1:50:00");
    assert!(
        r.shot("40", 80, 24)
            .contains("6c internal clock off by -9:40")
    );
    r.at("50", "operator sync-internal-clock");
    let s = r.shot("1:00", 80, 24);
    assert!(
        !s.contains("6c SYNC INTERNAL CLOCK"),
        "the panel goes with the correction:\n{s}"
    );
    // What the alarm asks for is recorded: it clears itself.
    assert!(
        !s.contains("6c internal clock off by -9:40"),
        "the alarm clears itself once the correction is recorded:\n{s}"
    );
    // Before the correction, acknowledging stays available.
    r.at("1:10", "operator internal-clock 1:40:00");
    assert!(r.shot("1:20", 80, 24).contains("6c internal clock off"));
    r.key("1:20", ch('!'));
    assert!(!r.shot("1:30", 80, 24).contains("6c internal clock off"));
}

#[test]
fn clause_8b_window_end_and_a_restart_ruling_stay_red_until_acknowledged() {
    let mut r = after_e4();
    r.at("1:00", "arbiter power-failure hall lights out")
        .at("2:00", "arbiter power-restored");
    // The 20-minute reset window ends at 22:00 with no reset reported.
    let s = r.shot("22:01", 80, 24);
    assert!(s.contains("8b reset window over"), "{s}");
    // A restart with a clock running: the ruling is pending.
    r.s.restart_gap = Some(65_000);
    let s = r.shot("22:05", 80, 24);
    assert!(s.contains("restart ruling pending"), "{s}");
    assert!(s.contains("2 red alarms until acknowledged"), "{s}");
    insta::assert_snapshot!("alarms_8b_and_restart_80x24", s);
    r.key("22:05", ch('!'));
    let s = r.shot("22:06", 80, 24);
    assert!(!s.contains("8b reset window over (power"), "{s}");
    assert!(!s.contains("restart ruling pending"), "{s}");
}

#[test]
fn clause_colour_is_never_alone_and_no_color_removes_it() {
    let mut r = four_moves();
    r.ui.no_color = true;
    let buf = r.draw("8:15.5", 80, 24);
    let a = buf.area;
    for y in 0..a.height {
        for x in 0..a.width {
            let c = &buf[(x, y)];
            assert_eq!(
                (c.fg, c.bg),
                (Color::Reset, Color::Reset),
                "colour at {x},{y}"
            );
        }
    }
    let s = text(&buf);
    // The states are words.
    assert!(s.contains("▶ RUNNING ◀") && s.contains("waiting"), "{s}");
    assert!(
        s.contains("[♟]"),
        "the last move is bracketed, not coloured:\n{s}"
    );
}

#[test]
fn clause_8a_declarations_panel_before_the_start_warns_of_a_missing_digest() {
    let mut r = Rig::new();
    r.s.game = crate::tui_support::demo_game_without_config();
    for s in both(&mut r, "0", "declarations_missing_digest") {
        assert!(s.contains("Garry Kasparov (human)"), "{s}");
        assert!(s.contains("Shay Bushinsky, Boris Alterman"), "{s}");
        assert!(s.contains("MISSING · 8a"), "{s}");
        assert!(s.contains("config-file"), "{s}");
    }
    r.at("0", &format!("arbiter declare config {}", "c".repeat(64)));
    let s = r.shot("0", 120, 40);
    assert!(s.contains(&format!("8a SHA-256 {}", "c".repeat(64))), "{s}");
    assert!(!s.contains("MISSING"), "{s}");
}

#[test]
fn clause_9b_match_score_in_the_header_counts_the_game_ended_on_this_board() {
    let mut r = four_moves();
    r.ui.score_table = vec![("Garry Kasparov".into(), 1.0), ("Deep Junior".into(), 1.0)];
    r.ui.score = arbiter::board::tui::score_text(&r.ui.score_table);
    arbiter::board::tui::refresh_score(&mut r.ui, &r.s.game);
    assert_eq!(
        r.ui.score.as_deref(),
        Some("Garry Kasparov 1 – Deep Junior 1")
    );
    r.at("9:00", "human resign");
    arbiter::board::tui::refresh_score(&mut r.ui, &r.s.game);
    assert_eq!(
        r.ui.score.as_deref(),
        Some("Garry Kasparov 1 – Deep Junior 2")
    );
    // Counted once, however often the loop asks.
    arbiter::board::tui::refresh_score(&mut r.ui, &r.s.game);
    let s = r.shot("9:00", 120, 40);
    assert!(s.contains("match Garry Kasparov 1 – Deep Junior 2"), "{s}");
}

#[test]
fn clause_match_score_and_game_number_in_the_header() {
    let mut r = four_moves();
    r.ui.score = Some("Garry Kasparov 1½ – Deep Junior ½".into());
    for s in both(&mut r, "8:15.5", "header_score") {
        assert!(
            s.contains("game 1 · match Garry Kasparov 1½ – Deep Junior ½"),
            "{s}"
        );
    }
}

#[test]
fn clause_13a_board_counts_down_the_hand_over_after_the_result() {
    let mut r = four_moves();
    r.at("8:00", "human resign");
    let s = r.shot("9:00", 120, 40);
    assert!(s.contains("13 HAND-OVER"), "{s}");
    assert!(
        s.contains("13a machine's log (2 copies) due, 29:00 left"),
        "{s}"
    );
    assert!(s.contains("13d program copy due, 29:00 left"), "{s}");
    let s = r.shot("39:00", 120, 40);
    assert!(s.contains("LATE by 1:00"), "{s}");
}

/// At 120×40 the move list uses the width — column pairs side by side — so the whole
/// game up to 60 moves is visible, move 1 included; at 80×24 it follows the game as before.
#[test]
fn clause_6a_at_120x40_the_whole_game_of_60_moves_is_visible() {
    let mut r = Rig::new();
    r.at("0", "arbiter start");
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"];
    for ply in 0..120 {
        let at = format!("{}", 10 + ply * 7);
        r.at(&at, &format!("move {}", shuffle[ply % 4]));
    }
    let s = r.shot("900", 120, 40);
    for n in [1, 2, 30, 31, 59, 60] {
        assert!(
            s.contains(&format!(" {n:>2}. N")),
            "move {n} not shown:\n{s}"
        );
    }
    assert!(s.contains("the whole game"), "{s}");
    // With fewer moves, each with its time (PGN's: 7 s each).
    let mut r = Rig::new();
    r.at("0", "arbiter start");
    for ply in 0..60 {
        let at = format!("{}", 10 + ply * 7);
        r.at(&at, &format!("move {}", shuffle[ply % 4]));
    }
    let s = r.shot("900", 120, 40);
    assert!(s.contains(" 1. Nf3    0:10 Nf6    0:07"), "{s}");
    assert!(s.contains("30. Ng1    0:07 Ng8    0:07"), "{s}");
}

/// A move's time on the board is the one PGN's %emt and the report give (the same
/// function): 78.089 s reads 1:18, never 1:19.
#[test]
fn clause_6a_move_time_is_computed_as_in_pgn() {
    use arbiter::board::tui::movelist::move_time;
    assert_eq!(move_time(78_089), "1:18");
    assert_eq!(
        format!("0:0{}", move_time(78_089)),
        arbiter::report::pgn::format_elapsed(78_089)
    );
    assert_eq!(move_time(3_723_000), "1:02:03");
    let mut r = Rig::new();
    r.at("0", "arbiter start").at("1:18.089", "move e4");
    let s = r.shot("1:20", 80, 24);
    let row = s
        .lines()
        .find(|l| l.contains(" 1. e4") && l.contains("1:58"))
        .unwrap_or_default();
    assert!(row.contains("1:18"), "{s}");
}

/// The camps and their keys' fingerprints are on the declarations panel, or "none: the
/// result will not be witnessed".
#[test]
fn clause_12_declarations_panel_names_the_camps_and_their_fingerprints() {
    let mut r = Rig::new();
    assert!(
        r.shot("0", 100, 30)
            .contains("none: the result will not be witnessed")
    );
    let dir = tempfile::tempdir().unwrap();
    let public = arbiter::record::sign::keygen(&dir.path().join("camp"), None, "kasparov").unwrap();
    let key = public.to_openssh().unwrap();
    // The camp's proof of possession comes with its key.
    let statement = arbiter::core::camp::statement(&r.s.game.ctx().match_id, "kasparov", &key);
    let proof = arbiter::record::sign::load_key(&dir.path().join("camp"), None)
        .unwrap()
        .sign(
            arbiter::core::camp::NAMESPACE,
            ssh_key::HashAlg::Sha512,
            statement.as_bytes(),
        )
        .unwrap()
        .to_pem(ssh_key::LineEnding::LF)
        .unwrap();
    r.s.game
        .declare(&arbiter::core::command::Command::DeclareCamp {
            name: "kasparov".into(),
            key,
            proof: Some(proof),
        })
        .unwrap();
    let s = r.shot("0", 100, 30);
    let fp = arbiter::record::sign::fingerprint(&public);
    assert!(s.contains(&format!("kasparov {fp}")), "{s}");
    assert!(!s.contains("will not be witnessed"), "{s}");
}

/// The log page gives an entry the game time the log, the message line, the report and the relay
/// give it (from the game's first entry), even when the clock started five minutes later (3).
#[test]
fn clause_3_the_log_page_counts_game_time_as_the_log_does_not_from_the_clock_start() {
    let mut r = Rig::new();
    r.at("5:00", "arbiter start").at("5:10", "move e4");
    r.ui.mode = Mode::Log { back: 0 };
    let s = r.shot("5:20", 100, 30);
    let row = s
        .lines()
        .find(|l| l.contains("operator") && l.contains("clause 6a"))
        .unwrap_or_default();
    assert!(row.contains(" 0:05:10 "), "{s}");
}

/// Alarms clear themselves when what they ask for is recorded: the restart alarm with
/// the ruling, the 8b window's with the machine's clock restarted.
#[test]
fn clause_8b_alarms_clear_themselves_when_what_they_ask_for_is_recorded() {
    let mut r = after_e4();
    r.at("1:00", "arbiter power-failure hall lights out")
        .at("2:00", "arbiter power-restored");
    assert!(r.shot("22:01", 80, 24).contains("8b reset window over"));
    r.at("22:10", "arbiter resume");
    let s = r.shot("22:20", 80, 24);
    assert!(!s.contains("8b reset window over"), "{s}");
    r.s.restart_gap = Some(65_000);
    r.s.restart_side = r.s.game.clock().running();
    assert!(r.shot("22:30", 80, 24).contains("restart ruling pending"));
    r.at("22:40", "arbiter restart-gap waive the kit restarted");
    let s = r.shot("22:50", 80, 24);
    assert!(!s.contains("restart ruling pending"), "{s}");
    assert!(r.ui.alarms.is_empty(), "{:?}", r.ui.alarms);
}

#[test]
fn help_and_key_bar_name_the_press_keys_as_remapped() {
    // `--human-key F2 --machine-key Insert`: the help and the key bar name those keys, never the
    // defaults (F12, F4), and a remapped key presses its side's clock.
    let mut r = after_e4();
    r.ui.press_keys = arbiter::board::tui::keys::PressKeys {
        human: KeyCode::F(2),
        machine: KeyCode::Insert,
    };
    let bar = r.shot("20", 120, 40);
    let last = bar.lines().last().unwrap_or_default().to_string();
    assert!(last.contains("F2 human press"), "{last}");
    assert!(last.contains("Insert machine press"), "{last}");
    assert!(!last.contains("F12") && !last.contains("F4 "), "{last}");
    r.key("20", ch('?'));
    let s = r.shot("20", 120, 300);
    let line_of = |what: &str| {
        s.lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no '{what}' in help:\n{s}"))
            .to_string()
    };
    let human = line_of("the human's press, in any screen state");
    assert!(human.contains("  F2 "), "{human}");
    let machine = line_of("the operator's press for the machine");
    assert!(machine.contains("  Insert "), "{machine}");
    assert!(!s.contains("F12"), "help names the default key:\n{s}");
    // Narrow help (key on its own line): the same keys.
    let narrow = r.shot("20", 80, 400);
    assert!(
        narrow.contains("  F2\n") || narrow.contains("  F2 "),
        "{narrow}"
    );
    assert!(!narrow.contains("F12"), "{narrow}");
    r.key("20", key(KeyCode::Esc));
    // The remapped machine key presses Deep Junior's clock (running after 1. e4); F4 does not.
    let game = &r.s.game;
    assert_eq!(
        arbiter::board::tui::on_key(&mut r.ui, key(KeyCode::F(4)), game),
        arbiter::board::tui::Action::None
    );
    assert_eq!(
        arbiter::board::tui::on_key(&mut r.ui, key(KeyCode::Insert), game),
        arbiter::board::tui::Action::Execute(arbiter::core::command::Command::Press)
    );
}

/// FIDE Laws 6 and rule 8b: quitting the board with a clock running is no pause, and the quit
/// question says so, naming the clock that keeps running and how to stop it first; with no clock
/// running it says the clocks stand.
#[test]
fn clause_8b_the_quit_question_says_what_the_clocks_will_do() {
    let mut r = after_e4();
    r.key("30", ch('q'));
    let s = r.shot("30", 120, 40);
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("Deep Junior's clock KEEPS RUNNING: quitting does not pause the game"),
        "{s}"
    );
    assert!(flat.contains("s (arbiter stop)"), "{s}");
    r.key("30", ch('n'));
    r.at("31", "arbiter stop a pause");
    r.key("32", ch('q'));
    let s = r.shot("32", 120, 40);
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("No clock is running"), "{s}");
}
