//! FIDE Laws 9.1.2: a draw offer goes with the offerer's own move. Made the FIDE way at the board
//! (the human moves, presses, offers; the operator types the move afterwards), the report and the
//! PGN show it with the human's move, never with the machine's move before it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::report::model::{self, Verification};

use crate::clauses::{Match, started};

fn report_and_pgn(m: &Match) -> (model::Report, String) {
    let utc: Vec<String> = m.log.iter().map(|_| String::new()).collect();
    let v = Verification {
        status: "verified".into(),
        detail: String::new(),
        entries: m.log.len(),
        signed_upto: Some(m.log.len()),
    };
    let r = model::build(&m.log, &utc, &v, false);
    let pgn = arbiter::after::postgame::pgn_of(&m.log, "2003-01-26T16:00:00Z").unwrap();
    (r, pgn)
}

#[test]
fn fide_9_1_2_an_offer_made_after_the_press_goes_with_the_offerers_own_next_move() {
    // Kasparov (White) moves, presses, offers (F7); the operator types 2. Nf3 afterwards.
    let mut m = started();
    m.at("10 move e4");
    m.at("20 move e5");
    m.at("30 press");
    m.at("31 human offer-draw");
    m.at("40 move Nf3");
    m.at("50 move Nc6");
    let (r, pgn) = report_and_pgn(&m);
    assert_eq!(r.draw_offers.len(), 1);
    assert_eq!(
        r.draw_offers[0].with_move.as_deref(),
        Some("2. Nf3"),
        "not with the machine's 1... e5"
    );
    let flat = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("2. Nf3 {[%clk"), "{pgn}");
    let after_nf3 = &flat[flat.find("2. Nf3").unwrap()..];
    let mark = after_nf3.find("{(=)}").expect("the offer marked");
    assert!(
        mark < after_nf3.find("2... Nc6").unwrap(),
        "(=) follows 2. Nf3:\n{pgn}"
    );
    assert!(
        !flat[..flat.find("2. Nf3").unwrap()].contains("(=)"),
        "no mark on an earlier move:\n{pgn}"
    );
}

#[test]
fn fide_9_1_2_an_offer_with_the_move_just_made_and_one_before_moving() {
    // With the move just made (the machine to move): that move.
    let mut m = started();
    m.at("10 move e4");
    m.at("11 human offer-draw");
    m.at("20 move e5");
    let (r, pgn) = report_and_pgn(&m);
    assert_eq!(r.draw_offers[0].with_move.as_deref(), Some("1. e4"));
    let flat = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    let e4 = flat.find("1. e4").unwrap();
    assert!(
        flat[e4..].find("{(=)}").unwrap() < flat[e4..].find("1... e5").unwrap(),
        "{pgn}"
    );
    // On his own turn before moving: the move he then makes.
    let mut m = started();
    m.at("10 move e4");
    m.at("20 move e5");
    m.at("25 human offer-draw");
    m.at("30 move Nf3");
    let (r, _) = report_and_pgn(&m);
    assert_eq!(r.draw_offers[0].with_move.as_deref(), Some("2. Nf3"));
}
