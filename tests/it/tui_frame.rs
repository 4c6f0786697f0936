//! Issue 25 (idle cost): the Board UI writes only what changed, and a tick of the clock draws
//! only the clocks and the move list again. What the terminal shows must be, cell for cell, the
//! screen a whole frame draws: a painter on a TestBackend follows a game second by second
//! (moves, a stop, help, a draw offer with its countdown, a message, a resize) and is compared
//! with a fresh whole frame at every step.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::tui::{self, frame::Painter};
use crossterm::event::KeyCode;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

use crate::tui_support::{Rig, ch, key, t, text};

/// Paint the screen at `now` and check the terminal shows what a whole frame shows.
fn step(r: &mut Rig, p: &mut Painter, b: &mut TestBackend, now: &str) {
    let area = p.shown().area;
    let whole = r.draw(now, area.width, area.height);
    let view = r.s.game.view(t(now), tui::LAST_MOVES);
    let st = r.status();
    p.paint(b, view, &mut r.ui, &st).unwrap();
    assert_eq!(
        text(b.buffer()),
        text(&whole),
        "at {now}: the terminal differs from a whole frame"
    );
    assert_eq!(
        b.buffer(),
        &whole,
        "at {now}: styles differ from a whole frame"
    );
    assert_eq!(p.shown(), &whole, "at {now}: the painter's copy differs");
}

/// Every second from `from` to `to` (game seconds).
fn seconds(r: &mut Rig, p: &mut Painter, b: &mut TestBackend, from: u64, to: u64) {
    for s in from..=to {
        // Half a second in: the faces change on whole seconds, the frame on every one.
        step(r, p, b, &format!("{s}.5"));
    }
}

fn painter(w: u16, h: u16) -> (Painter, TestBackend) {
    (Painter::new(Rect::new(0, 0, w, h)), TestBackend::new(w, h))
}

#[test]
fn frame_clock_ticks_draw_only_the_clocks_and_match_a_whole_frame() {
    for (w, h) in [(80, 24), (100, 40), (160, 48)] {
        let mut r = Rig::new();
        let (mut p, mut b) = painter(w, h);
        step(&mut r, &mut p, &mut b, "0");
        r.at("1", "arbiter start");
        seconds(&mut r, &mut p, &mut b, 1, 12);
        let (whole, partial) = (p.whole, p.partial);
        assert!(
            partial >= 10,
            "{w}x{h}: ticks of a running clock were drawn whole ({whole} whole, {partial} in part)"
        );
        r.at("13", "move e4");
        seconds(&mut r, &mut p, &mut b, 13, 20);
        assert!(p.whole > whole, "{w}x{h}: a move did not redraw the screen");
        r.at("21", "move c5").at("25", "move Nf3");
        seconds(&mut r, &mut p, &mut b, 25, 30);
        // A stop, help over the clocks, the log page: the screen follows each.
        r.key("31", ch('s'));
        seconds(&mut r, &mut p, &mut b, 31, 33);
        r.key("34", ch('r'));
        seconds(&mut r, &mut p, &mut b, 34, 36);
        r.key("37", ch('?'));
        seconds(&mut r, &mut p, &mut b, 37, 39);
        r.key("40", key(KeyCode::Esc));
        seconds(&mut r, &mut p, &mut b, 40, 42);
        r.key("43", ch('l'));
        seconds(&mut r, &mut p, &mut b, 43, 44);
        r.key("45", key(KeyCode::Esc));
        seconds(&mut r, &mut p, &mut b, 45, 47);
        // The move line open while the clock runs; then a refusal in the message line.
        r.key("48", ch('d'));
        seconds(&mut r, &mut p, &mut b, 48, 50);
        r.key("51", key(KeyCode::Esc));
        r.key("51", ch(':'));
        r.typed("51", "move Kxx9");
        r.key("51", key(KeyCode::Enter));
        seconds(&mut r, &mut p, &mut b, 51, 54);
        assert!(
            p.partial > partial,
            "{w}x{h}: no tick drawn in part after the moves"
        );
    }
}

#[test]
fn frame_countdown_panels_match_a_whole_frame() {
    // A draw offer under consultation (9e): its countdown is in the panels, drawn whole each
    // second; then the offer is declined.
    let mut r = Rig::new();
    let (mut p, mut b) = painter(120, 40);
    r.at("0", "arbiter start").at("10", "move e4");
    r.at("10", "human offer-draw")
        .at("20", "operator consult Shay Bushinsky, Boris Alterman");
    seconds(&mut r, &mut p, &mut b, 20, 40);
    r.at("41", "operator decline-draw");
    seconds(&mut r, &mut p, &mut b, 41, 45);
}

#[test]
fn frame_a_resize_draws_whole_and_matches() {
    let mut r = Rig::new();
    let (mut p, mut b) = painter(80, 24);
    r.at("0", "arbiter start");
    seconds(&mut r, &mut p, &mut b, 0, 3);
    // The loop clears the terminal on a resize and tells the painter.
    let mut b = TestBackend::new(130, 44);
    p.cleared(Rect::new(0, 0, 130, 44));
    seconds(&mut r, &mut p, &mut b, 4, 7);
}

#[test]
fn frame_no_color_ticks_match_a_whole_frame() {
    let mut r = Rig::new();
    r.ui.no_color = true;
    let (mut p, mut b) = painter(100, 40);
    r.at("0", "arbiter start");
    seconds(&mut r, &mut p, &mut b, 0, 5);
    assert!(p.partial >= 4);
}
