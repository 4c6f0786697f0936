//! Rule 1: the arbiter voids an entry that records something that did not happen. The
//! entry stays in the log, an `entry_voided` entry names it with the reason, and the game goes on as
//! if its effect had never been; replay of the log gives the same game.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::core::command::{Role, parse};
use arbiter::core::event::EventKind;
use arbiter::core::game::{Game, Phase};

use crate::clauses::{Match, started};

/// The log entry number of the latest event of `kind`.
fn seq_of(m: &Match, kind: &str) -> usize {
    m.log
        .iter()
        .rposition(|e| e.kind_name() == kind)
        .unwrap_or_else(|| panic!("no {kind} in the log"))
}

/// The live game and the game replayed from the log agree.
fn replays_the_same(m: &Match) {
    let replayed = Game::replay(&m.log).unwrap();
    let at = m.now + 1_000;
    assert_eq!(replayed.view(at, usize::MAX), m.view(at));
    assert_eq!(replayed.voided(), m.game().voided());
}

#[test]
fn clause_1_void_a_mis_keyed_human_draw_offer_undoes_it_and_keeps_the_trail() {
    let mut m = started();
    m.at("0:10 move e4");
    m.at("0:20 human offer-draw");
    let offer = seq_of(&m, "draw_offered");
    assert!(m.game().offer().is_some(), "the offer stands");
    let ev = m.at(&format!("0:30 arbiter void {offer} F7 pressed by mistake"));
    assert_eq!(ev.len(), 1);
    match &ev[0].kind {
        EventKind::EntryVoided { seq, kind, reason } => {
            assert_eq!(*seq, offer as u64);
            assert_eq!(kind, "draw_offered");
            assert_eq!(reason, "F7 pressed by mistake");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(ev[0].clause, "1");
    assert!(m.game().offer().is_none(), "the effect is gone");
    assert_eq!(m.game().voided(), &[offer as u64]);
    // The trail stays: the offer is still entry `offer` of the log.
    assert_eq!(m.log[offer].kind_name(), "draw_offered");
    // The operator cannot now accept an offer that was never made.
    let m = m
        .when("0:40 operator accept-draw")
        .then_refused("9a")
        .and("0:50 move e5");
    replays_the_same(&m);
}

#[test]
fn clause_1_void_a_resignation_typed_for_the_wrong_side_reopens_the_game() {
    let mut m = started();
    m.at("0:10 move e4");
    m.at("0:20 human resign");
    assert_eq!(m.game().phase(), Phase::Ended);
    let resign = seq_of(&m, "game_ended");
    m.at(&format!(
        "0:30 arbiter void {resign} the operator typed human for operator"
    ));
    assert_eq!(m.game().phase(), Phase::Playing);
    assert!(m.game().outcome().is_none());
    replays_the_same(&m);
    m.at("0:40 operator resign");
    assert_eq!(m.game().phase(), Phase::Ended);
    replays_the_same(&m);
}

#[test]
fn clause_1_void_refuses_what_is_not_a_mis_key() {
    let mut m = started();
    m.at("0:10 move e4");
    let mv = seq_of(&m, "move_made");
    m.at("0:20 arbiter note all well");
    let note = seq_of(&m, "note");
    let started_at = seq_of(&m, "clock_started");
    let mut m = m
        .when(&format!("0:30 arbiter void {mv} wrong move"))
        .then_refused_saying("1", "taken back, not voided")
        .when("0:30 arbiter void 0 start again")
        .then_refused_saying("1", "line 0")
        .when("0:30 arbiter void 999 nothing")
        .then_refused_saying("1", "no entry #999")
        .when(&format!("0:30 arbiter void {started_at} started too early"))
        .then_refused_saying("1", "rests on entry")
        .and(&format!(
            "0:30 arbiter void {note} a note on the wrong board"
        ));
    let void = seq_of(&m, "entry_voided");
    m = m
        .when(&format!("0:40 arbiter void {note} again"))
        .then_refused_saying("1", "already void")
        .when(&format!("0:40 arbiter void {void} undo the void"))
        .then_refused_saying("1", "a void cannot be voided")
        .and("0:50 arbiter note still here");
    assert_eq!(m.game().voided(), &[note as u64]);
    assert!(parse("arbiter void 3").is_err(), "a reason is required");
    // The kit's own entries (a checkmate's result) are consequences, not mis-keys.
    let mut mate = started();
    for (t, mv) in [
        ("0:10", "f3"),
        ("0:20", "e5"),
        ("0:30", "g4"),
        ("0:40", "Qh4#"),
    ] {
        mate.at(&format!("{t} move {mv}"));
    }
    let end = seq_of(&mate, "game_ended");
    mate.when(&format!("0:50 arbiter void {end} not a mate"))
        .then_refused_saying("1", "the kit's own entry");
    assert!(parse("arbiter void x a reason").is_err());
    assert_eq!(
        parse("arbiter void 3 a reason").unwrap().role(),
        Role::Arbiter
    );
}

#[test]
fn clause_1_void_under_a_later_result_is_refused_until_the_result_is_voided() {
    let mut m = started();
    m.at("0:10 move e4");
    m.at("0:20 human offer-draw");
    let offer = seq_of(&m, "draw_offered");
    m.at("0:30 operator accept-draw");
    let result = seq_of(&m, "game_ended");
    let mut m = m
        .when(&format!("0:40 arbiter void {offer} F7 by mistake"))
        .then_refused_saying("1", "void the result first")
        .and(&format!(
            "0:40 arbiter void {result} agreed on a mis-keyed offer"
        ));
    assert_eq!(m.game().phase(), Phase::Playing);
    // The acceptance was the operator's real act on an offer that was never made: with the result
    // gone, the offer can go too.
    m.at(&format!("0:50 arbiter void {offer} F7 by mistake"));
    assert!(m.game().offer().is_none());
    replays_the_same(&m);
}

#[test]
fn clause_1_void_reaches_the_recent_entries_only_and_memory_stays_bounded() {
    let mut m = started();
    m.at("0:01 arbiter note first");
    let early = seq_of(&m, "note");
    for k in 0..(2 * arbiter::core::game::VOID_WINDOW + 10) {
        m.at(&format!(
            "{}.{:03} arbiter note n{k}",
            2 + k / 1000,
            k % 1000
        ));
    }
    let t = format!("{}", 3 + 2 * arbiter::core::game::VOID_WINDOW / 1000);
    let recent = m.log.len() - arbiter::core::game::VOID_WINDOW;
    let m = m
        .when(&format!("{t} arbiter void {early} too late"))
        .then_refused_saying("1", "older than the entries a void reaches")
        .and(&format!("{t} arbiter void {recent} a recent note"));
    replays_the_same(&m);
}

#[test]
fn clause_1_void_is_confirmed_stating_which_entry_becomes_void() {
    let mut m = started();
    m.at("0:10 move e4");
    m.at("0:20 human offer-draw");
    let offer = seq_of(&m, "draw_offered");
    let cmd = parse(&format!("arbiter void {offer} F7 by mistake")).unwrap();
    assert!(cmd.needs_confirmation());
    let said = arbiter::board::tui::keys::consequence(&cmd, m.game()).unwrap();
    assert!(
        said.contains(&format!("entry #{offer} (draw offered) becomes VOID")),
        "{said}"
    );
    // Checked before the question: a move is refused before anything is asked.
    let mv = seq_of(&m, "move_made");
    let refused = arbiter::board::tui::keys::consequence(
        &parse(&format!("arbiter void {mv} no")).unwrap(),
        m.game(),
    );
    let refused = refused.unwrap_err();
    assert!(refused.clause.is_some(), "{refused}");
    assert!(refused.to_string().contains("taken back"), "{refused}");
}

/// `text` at the `k`-th step of a long run of entries (times as in the test above), `k` moved on.
fn step(m: &mut Match, k: &mut usize, text: &str) {
    m.at(&format!("{}.{:03} {text}", 2 + *k / 1000, *k % 1000));
    *k += 1;
}

#[test]
fn clause_1_void_keeps_its_effect_when_the_window_moves_on_past_it() {
    // The window's next base is a snapshot of the game taken when it held VOID_WINDOW
    // entries. A void made after that snapshot, of an entry before it, must reach the base too:
    // a later void rebuilds from that base, and the voided offer must not come back.
    let w = arbiter::core::game::VOID_WINDOW;
    let mut m = started();
    m.at("0:10 move e4");
    m.at("0:20 human offer-draw");
    let offer = seq_of(&m, "draw_offered");
    assert!(offer < w);
    let mut k = 0;
    while m.log.len() < w + 10 {
        step(&mut m, &mut k, "arbiter note one of many");
    }
    assert!(m.game().offer().is_some(), "the offer stands");
    step(
        &mut m,
        &mut k,
        &format!("arbiter void {offer} F7 by mistake"),
    );
    assert!(m.game().offer().is_none(), "the effect is gone");
    // The window moves on: its base is now past the offer and the first void.
    while m.log.len() < 2 * w + 20 {
        step(&mut m, &mut k, "arbiter note one of many");
    }
    let note = m.log.len() - 5;
    assert_eq!(m.log[note].kind_name(), "note");
    step(
        &mut m,
        &mut k,
        &format!("arbiter void {note} a note for another game"),
    );
    assert_eq!(m.game().voided(), &[offer as u64, note as u64]);
    assert!(
        m.game().offer().is_none(),
        "the voided offer came back when the game was rebuilt from the window's base"
    );
    // The offer itself is now out of reach.
    let m = m
        .when(&format!("3.000 arbiter void {offer} again"))
        .then_refused_saying("1", "older than the entries a void reaches");
    replays_the_same(&m);
}
