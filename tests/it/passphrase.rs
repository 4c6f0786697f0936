//! "Downtime measured honestly": every failed passphrase is logged (5b) in every state
//! of the game, a pending restart ruling included, and after failures the prompt takes the next
//! passphrase only after a wait that doubles (1 s, 2 s, 4 s …, capped), shown on screen.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::board::tui::backoff::{Backoff, FIRST_WAIT_MS, MAX_WAIT_MS};
use arbiter::core::Side;
use arbiter::core::command::Command;
use arbiter::core::event::EventKind;

use crate::clauses::{Match, started};

fn fail(m: &mut Match, at: arbiter::core::Ms, words: &str) {
    let before = m.log.len();
    let ev =
        m.s.execute(
            &Command::AuthorizationFailed {
                words: words.to_string(),
                why: "wrong passphrase".to_string(),
            },
            at,
        )
        .unwrap_or_else(|e| panic!("a failed passphrase must be logged ({words}): {e}"));
    let last = ev.last().expect("an entry");
    assert!(
        matches!(&last.kind, EventKind::AuthorizationFailed { command, why }
            if command == words && why == "wrong passphrase"),
        "{ev:?}"
    );
    assert_eq!(last.clause, "5b");
    m.log.extend(ev);
    assert!(m.log.len() > before);
}

#[test]
fn clause_5b_failed_passphrase_is_logged_while_a_restart_ruling_is_pending() {
    let mut m = started();
    m.at("0:10 move e4");
    m.at("0:20 move e5");
    m.s.restart_gap = Some(60_000);
    m.s.restart_side = Some(Side::White);
    // Three wrong passphrases for the ruling: each is logged, the ruling stays pending.
    for at in [70_000, 72_000, 76_000] {
        fail(&mut m, at, "arbiter restart-gap waive the kit crashed");
    }
    assert_eq!(m.s.restart_gap, Some(60_000));
    assert!(m.try_line("1:20 move Nf3").is_err(), "still pending");
    // A stop while pending is authorized, and that record is taken too.
    let ev = m.at("1:21 arbiter stop the arbiter thinks");
    let seq = (m.s.storage.len() - 1) as u64;
    assert!(
        matches!(ev[0].kind, EventKind::ClockStopped { .. }),
        "{ev:?}"
    );
    let ok =
        m.s.execute(
            &Command::Authorize {
                by: "passphrase".into(),
                words: "arbiter stop the arbiter thinks".into(),
                first: seq,
                last: seq,
            },
            81_000,
        )
        .unwrap();
    assert!(matches!(ok[0].kind, EventKind::Authorized { .. }), "{ok:?}");
    m.log.extend(ok);
    // Then the ruling itself.
    m.at("1:30 arbiter restart-gap waive the kit crashed");
    assert_eq!(m.s.restart_gap, None);
}

#[test]
fn clause_5b_failed_passphrase_is_logged_in_every_state_of_the_game() {
    // Clock running.
    let mut m = started();
    m.at("0:10 move e4");
    fail(
        &mut m,
        12_000,
        "arbiter correct 6d clock machine +600 running",
    );
    // Clocks stopped.
    m.at("0:20 arbiter stop a question");
    fail(&mut m, 21_000, "arbiter resume");
    m.at("0:22 arbiter resume");
    // Suspended by a power failure (8b).
    m.at("0:30 arbiter power-failure the hall loses power");
    fail(&mut m, 31_000, "arbiter power-restored");
    m.at("0:40 arbiter power-restored");
    m.at("0:41 operator reset-done");
    m.at("0:42 arbiter resume");
    // Game over.
    m.at("0:50 human resign");
    fail(&mut m, 51_000, "arbiter void 5 forged");
    // Before the clock starts.
    let mut m = crate::clauses::given(crate::clauses::HUMAN_WHITE);
    m.at("0 arbiter open");
    fail(&mut m, 1_000, "arbiter start");
}

#[test]
fn clause_5b_passphrase_wait_doubles_after_each_failure_capped() {
    let mut b = Backoff::default();
    assert_eq!(
        b.wait_left(0),
        None,
        "the first passphrase is taken at once"
    );
    let mut now = 0u64;
    let mut waits = Vec::new();
    for _ in 0..8 {
        let w = b.fail(now);
        assert_eq!(b.wait_left(now), Some(w));
        assert_eq!(
            b.wait_left(now + w),
            None,
            "taken again when the wait is over"
        );
        waits.push(w);
        now += w;
    }
    assert_eq!(FIRST_WAIT_MS, 1_000);
    assert_eq!(
        waits,
        [
            1_000,
            2_000,
            4_000,
            8_000,
            16_000,
            MAX_WAIT_MS,
            MAX_WAIT_MS,
            MAX_WAIT_MS
        ]
    );
    assert_eq!(b.failures(), 8);
    // Shown on screen, in words.
    b.fail(now);
    assert_eq!(
        b.say(now + 500),
        "9 failed passphrases in a row: the next is taken in 30 s"
    );
    // A right passphrase starts again at 1 s.
    b.succeed();
    assert_eq!(b.wait_left(now), None);
    assert_eq!(b.fail(now), 1_000);
    assert_eq!(
        b.say(now),
        "1 failed passphrase in a row: the next is taken in 1 s"
    );
}
