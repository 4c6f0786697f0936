//! (idle cost): the Board UI writes only what changed, and a tick of the clock draws
//! only the clocks and the move list again. What the terminal shows must be, cell for cell, the
//! screen a whole frame draws: a painter on a TestBackend follows a game second by second
//! (moves, a stop, help, a draw offer with its countdown, a message, a resize) and is compared
//! with a fresh whole frame at every step.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::board::tui::{
    self,
    frame::{Painter, Views},
};
use crossterm::event::KeyCode;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

use crate::tui_support::{Rig, ch, key, t, text};

/// The Board UI's painter with the view it keeps from tick to tick, as the loop holds them.
struct Screen {
    painter: Painter,
    views: Views,
}

impl std::ops::Deref for Screen {
    type Target = Painter;
    fn deref(&self) -> &Painter {
        &self.painter
    }
}

impl std::ops::DerefMut for Screen {
    fn deref_mut(&mut self) -> &mut Painter {
        &mut self.painter
    }
}

/// Paint the screen at `now` (from the kept view, retimed) and check the terminal shows what a
/// whole frame of a freshly built view shows.
fn step(r: &mut Rig, p: &mut Screen, b: &mut TestBackend, now: &str) {
    let area = p.shown().area;
    let whole = r.draw(now, area.width, area.height);
    let view = p.views.at(&r.s.game, t(now), tui::LAST_MOVES);
    assert_eq!(
        view,
        &r.s.game.view(t(now), tui::LAST_MOVES),
        "at {now}: the kept view differs from a fresh one"
    );
    let st = r.status();
    p.painter.paint(b, view, &mut r.ui, &st).unwrap();
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
fn seconds(r: &mut Rig, p: &mut Screen, b: &mut TestBackend, from: u64, to: u64) {
    for s in from..=to {
        // Half a second in: the faces change on whole seconds, the frame on every one.
        step(r, p, b, &format!("{s}.5"));
    }
}

fn painter(w: u16, h: u16) -> (Screen, TestBackend) {
    let painter = Painter::new(Rect::new(0, 0, w, h));
    let views = Views::default();
    (Screen { painter, views }, TestBackend::new(w, h))
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

/// The Board UI keeps its view (move list, position, declarations) from tick to tick
/// and only retimes it; it is built again only after an entry. At every half second through
/// moves (past the screen's move list), a draw offer's countdown, a stop and a power failure's
/// window, the kept view is the view built fresh from the same state at the same time.
#[test]
fn frame_kept_view_rebuilt_only_after_an_entry() {
    let mut r = Rig::new();
    let mut views = Views::default();
    let mut ticks = 0u64;
    let mut entries = 0u64;
    let mut check = |r: &Rig, from: u64, to: u64, ticks: &mut u64| {
        for s in from..=to {
            for half in ["", ".5"] {
                let now = t(&format!("{s}{half}"));
                let kept = views.at(&r.s.game, now, tui::LAST_MOVES).clone();
                assert_eq!(kept, r.s.game.view(now, tui::LAST_MOVES), "at {s}{half}");
                *ticks += 1;
            }
        }
        (views.rebuilt, views.retimed)
    };
    check(&r, 0, 2, &mut ticks);
    r.at("3", "arbiter start");
    entries += 1;
    let moves = [
        "e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4", "Nf6", "Nc3", "a6", "Be3", "e5", "Nb3",
        "Be6", "f3", "Be7", "Qd2", "O-O", "O-O-O", "Nbd7", "g4", "b5",
    ];
    let mut at = 4;
    for m in moves {
        r.at(&at.to_string(), &format!("move {m}"));
        entries += 1;
        check(&r, at, at + 2, &mut ticks);
        at += 3;
    }
    assert!(
        r.s.game.view(t("100"), 4).last_moves.len() == 4,
        "a short list"
    );
    r.at(&at.to_string(), "human offer-draw");
    r.at(&(at + 1).to_string(), "operator consult Shay Bushinsky");
    entries += 2;
    check(&r, at + 1, at + 20, &mut ticks);
    r.at(&(at + 21).to_string(), "operator decline-draw");
    r.at(&(at + 22).to_string(), "arbiter stop toilet break");
    entries += 2;
    check(&r, at + 22, at + 30, &mut ticks);
    r.at(&(at + 31).to_string(), "arbiter resume");
    r.at(
        &(at + 40).to_string(),
        "arbiter power-failure hall lights out",
    );
    r.at(&(at + 50).to_string(), "arbiter power-restored");
    entries += 3;
    let (rebuilt, retimed) = check(&r, at + 50, at + 80, &mut ticks);
    assert_eq!(rebuilt + retimed, ticks);
    eprintln!("kept view: built {rebuilt}, retimed {retimed}, {entries} entries, {ticks} ticks");
    // Built once at the first tick and once after each entry; every other tick retimed.
    assert_eq!(
        rebuilt,
        1 + entries,
        "built {rebuilt} times for {entries} entries over {ticks} ticks"
    );
}
