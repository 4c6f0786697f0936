//! The referee's verdicts at a werewolf table, each its own entry citing its section: on time,
//! late, the NAME probe, unsolicited, binary and oversize frames, closed connections, line
//! breaks, empty answers, and the arbiter's acts (given / when / then).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::core::werewolf::{
    self, Act, Event, Input, OnRestart, Request, Stage, TalkKind, Verdict, Winner,
};

use crate::werewolf_support::{G, quiet};

/// A 5-seat game waiting for the first TALK answer.
fn first_talk() -> (G, usize) {
    let mut g = G::new("aiwolf-2025-5", 1);
    g.begin();
    let (seat, req) = g.pending().unwrap();
    assert_eq!(req, Request::Talk);
    (g, seat)
}

fn verdict(ev: &[Event]) -> Verdict {
    match &ev[0] {
        Event::FrameReceived { verdict, .. } => *verdict,
        e => panic!("not a frame: {e:?}"),
    }
}

fn in_error(g: &G, seat: usize) -> bool {
    g.t.seats()[seat].error
}

#[test]
fn server_answer_within_action_timeout_and_grace_is_on_time() {
    // Given a TALK sent at 0 (action 60 s, grace 5 s); when the answer comes at 65 s exactly.
    let (mut g, seat) = first_talk();
    assert_eq!(werewolf::deadline(&g.t), Some(65_000));
    let ev = g.frame(seat, "こんにちは", 65_000);
    // Then it is on time and recorded as said.
    assert_eq!(verdict(&ev), Verdict::OnTime);
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Talked { text, .. } if text == "こんにちは"))
    );
    assert_eq!(ev[0].section(), werewolf::sections::PROTOCOL);
}

#[test]
fn server_late_answer_before_any_probe_puts_the_seat_in_error() {
    // Given a TALK sent at 0; when the answer comes at 65.001 s, before the shell's tick.
    let (mut g, seat) = first_talk();
    let ev = g.frame(seat, "こんにちは", 65_001);
    // Then it is late: the request failed (Skip), the seat is in error for the rest of the game.
    assert_eq!(verdict(&ev), Verdict::Late);
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::SeatInError { seat: s, .. } if *s == seat))
    );
    assert!(ev.iter().any(|e| matches!(e, Event::Talked { counts_as: TalkKind::ForcedSkip, text, .. } if text == "Skip")));
    assert!(in_error(&g, seat));
    assert_eq!(ev[0].section(), werewolf::sections::TIMEOUT);
}

#[test]
fn server_timeout_sends_the_name_probe_with_the_response_timeout() {
    // Given a TALK sent at 0; when the shell ticks at the deadline (65 s).
    let (mut g, seat) = first_talk();
    let ev = g.tick();
    // Then the timeout is recorded and NAME goes to the seat, due 120 s later.
    assert!(
        matches!(&ev[0], Event::TimedOut { seat: s, stage: Stage::Action, request: Request::Talk, .. } if *s == seat)
    );
    assert!(
        matches!(&ev[1], Event::Sent { seat: s, request: Request::Name, frame, deadline_ms: Some(185_000) } if *s == seat && frame == r#"{"request":"NAME"}"#)
    );
    assert_eq!(werewolf::deadline(&g.t), Some(185_000));
}

#[test]
fn server_probe_answered_with_the_right_name_keeps_the_seat_and_the_talk_is_skip() {
    // Given a timed-out TALK and the probe sent.
    let (mut g, seat) = first_talk();
    g.tick();
    // When the seat answers its own name (with the client's line break).
    let name = g.seats[seat].name.clone();
    let ev = g.frame(seat, &format!("{name}\n"), 1_000);
    // Then the seat stays, the request failed: the talk is recorded as Skip.
    assert_eq!(verdict(&ev), Verdict::ProbeAnswered);
    assert!(!in_error(&g, seat));
    assert!(ev.iter().any(|e| matches!(e, Event::Talked { seat: s, counts_as: TalkKind::ForcedSkip, .. } if *s == seat)));
    assert!(matches!(g.pending(), Some((s, Request::Talk)) if s != seat));
}

#[test]
fn server_late_answer_after_probe_puts_seat_in_error() {
    // Given a timed-out TALK and the probe sent.
    let (mut g, seat) = first_talk();
    g.tick();
    // When the late answer to TALK arrives before the name.
    let ev = g.frame(seat, "遅れてすみません", 500);
    // Then the probe failed: the seat is in error for the rest of the game.
    assert_eq!(verdict(&ev), Verdict::ProbeFailed);
    assert!(in_error(&g, seat));
    // And it is never asked again: its turns are recorded as Skip without a request.
    g.play_until(
        |_, _, _| "こんにちは".into(),
        |g| {
            matches!(g.pending(), Some((_, Request::Divine | Request::Vote)))
                || werewolf::finished(&g.t).is_some()
        },
    );
    let asked_after = g
        .events
        .iter()
        .skip_while(|e| !matches!(e, Event::SeatInError { .. }))
        .filter(|e| matches!(e, Event::Sent { seat: s, .. } if *s == seat))
        .count();
    assert_eq!(asked_after, 0);
}

#[test]
fn server_probe_unanswered_within_the_response_timeout_puts_the_seat_in_error() {
    // Given a timed-out TALK and the probe sent; when the probe's deadline passes too.
    let (mut g, seat) = first_talk();
    g.tick();
    let ev = g.tick();
    // Then the seat is in error and the talk recorded as Skip.
    assert!(matches!(
        &ev[0],
        Event::TimedOut {
            stage: Stage::Probe,
            ..
        }
    ));
    assert!(in_error(&g, seat));
}

#[test]
fn kit_tick_before_the_deadline_records_nothing() {
    // Given a TALK sent at 0; when the shell ticks early.
    let (g, _) = first_talk();
    let ev = werewolf::decide(&g.t, &Input::Tick { at_ms: 64_999 }).unwrap();
    // Then nothing happens.
    assert!(ev.is_empty());
}

#[test]
fn kit_unsolicited_frame_is_recorded_never_taken_as_the_next_answer() {
    // Given a TALK awaited from one seat; when another seat sends a frame.
    let (mut g, seat) = first_talk();
    let other = (0..5).find(|&s| s != seat).unwrap();
    let ev = g.frame(other, "Over", 10);
    // Then it is recorded as unsolicited and changes nothing.
    assert_eq!(ev.len(), 1);
    assert_eq!(verdict(&ev), Verdict::Unsolicited);
    assert_eq!(ev[0].section(), werewolf::sections::UNSOLICITED);
    // And when that seat is asked later, the earlier frame is not its answer: it is awaited.
    g.play_until(
        |_, _, _| "こんにちは".into(),
        |g| matches!(g.pending(), Some((s, Request::Talk)) if s == other),
    );
    assert!(matches!(g.pending(), Some((s, Request::Talk)) if s == other));
    let ev = g.answer("はじめまして");
    assert!(ev.iter().any(|e| matches!(e, Event::Talked { seat: s, text, .. } if *s == other && text == "はじめまして")));
}

#[test]
fn kit_binary_frame_is_refused_and_the_request_still_waits() {
    // Given a TALK awaited; when the seat sends a binary frame.
    let (mut g, seat) = first_talk();
    g.now += 5;
    let ev = g.input(Input::Binary {
        seat,
        len: 12,
        at_ms: g.now,
    });
    // Then it is recorded; the request still waits for a text frame.
    assert!(matches!(&ev[..], [Event::BinaryFrame { len: 12, .. }]));
    assert_eq!(g.pending(), Some((seat, Request::Talk)));
    assert!(!in_error(&g, seat));
}

#[test]
fn kit_oversize_frame_is_refused_the_seat_stays() {
    // Given a TALK awaited; when the seat sends a frame over the profile's limit.
    let (mut g, seat) = first_talk();
    g.now += 5;
    let ev = g.input(Input::Oversize {
        seat,
        len: 1 << 20,
        at_ms: g.now,
    });
    // Then it is recorded with the limit; the seat stays and the request still waits.
    assert!(matches!(
        &ev[..],
        [Event::OversizeFrame { limit: 65_536, .. }]
    ));
    assert_eq!(g.pending(), Some((seat, Request::Talk)));
    assert!(!in_error(&g, seat));
    assert_eq!(ev[0].section(), werewolf::sections::OVERSIZE);
}

#[test]
fn server_closed_connection_puts_the_seat_in_error_and_its_talk_is_skip() {
    // Given a TALK awaited; when the seat's connection closes.
    let (mut g, seat) = first_talk();
    g.now += 5;
    let ev = g.input(Input::Closed { seat, at_ms: g.now });
    // Then the seat is in error, the talk is Skip, the next seat is asked.
    assert!(ev.iter().any(|e| matches!(e, Event::SeatInError { .. })));
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Talked {
            counts_as: TalkKind::ForcedSkip,
            ..
        }
    )));
    assert!(matches!(g.pending(), Some((s, Request::Talk)) if s != seat));
}

#[test]
fn server_seats_in_error_at_the_limit_end_the_game_with_no_winner() {
    // Given a 5-seat game (limit: int(5 x 0.2) = 1 seat); when one seat closes on day 0.
    let (mut g, seat) = first_talk();
    g.now += 5;
    g.input(Input::Closed { seat, at_ms: g.now });
    g.play(quiet);
    // Then the game ends at the end of the phase with no winner.
    let Some(Event::GameEnded {
        winner,
        reason,
        day,
        ..
    }) = g.events.last()
    else {
        panic!()
    };
    assert_eq!((*winner, *day), (Winner::None, 0));
    assert!(reason.contains("in error"), "{reason}");
    assert_eq!(
        g.events.last().unwrap().section(),
        werewolf::sections::ERRORS
    );
}

#[test]
fn server_line_breaks_are_stripped_but_the_log_keeps_the_raw_text() {
    // Given a TALK awaited; when the seat answers "Over\r\n".
    let (mut g, _) = first_talk();
    let ev = g.answer("Over\r\n");
    // Then the table saw Over; the entry keeps the frame as received.
    assert!(matches!(&ev[0], Event::FrameReceived { text, .. } if text == "Over\r\n"));
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Talked {
            counts_as: TalkKind::Over,
            ..
        }
    )));
}

#[test]
fn server_empty_answer_counts_as_over() {
    // Given a TALK awaited; when the seat answers an empty text.
    let (mut g, seat) = first_talk();
    let ev = g.answer("\n");
    // Then the table records Over and says why.
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::TalkReplaced { reason, .. } if reason.contains("empty")))
    );
    assert!(
        ev.iter().any(
            |e| matches!(e, Event::Talked { seat: s, text, .. } if *s == seat && text == "Over")
        )
    );
}

#[test]
fn server_upper_case_skip_and_lower_case_over_are_ordinary_talk() {
    // Given a TALK awaited; when seats answer "SKIP" and "over".
    let (mut g, _) = first_talk();
    let a = g.answer("SKIP");
    let b = g.answer("over");
    // Then both are talk like any other text.
    assert!(a.iter().any(
        |e| matches!(e, Event::Talked { text, counts_as: TalkKind::Said, .. } if text == "SKIP")
    ));
    assert!(b.iter().any(
        |e| matches!(e, Event::Talked { text, counts_as: TalkKind::Said, .. } if text == "over")
    ));
}

// ----- the arbiter -----

#[test]
fn kit_pause_stops_the_deadline_and_resume_moves_it_by_the_pause() {
    // Given a TALK sent at 0 (deadline 65 s); when the arbiter pauses at 10 s for 30 s.
    let (mut g, seat) = first_talk();
    g.now = 10_000;
    let ev = g.input(Input::Arbiter {
        act: Act::Pause {
            reason: "network".into(),
        },
        at_ms: g.now,
    });
    assert_eq!(ev[0].actor(), "arbiter");
    // Then no deadline runs while paused.
    assert_eq!(werewolf::deadline(&g.t), None);
    g.now = 40_000;
    g.input(Input::Arbiter {
        act: Act::Resume,
        at_ms: g.now,
    });
    // And the deadline moved by the 30 s of the pause.
    assert_eq!(werewolf::deadline(&g.t), Some(95_000));
    let ev = g.frame(seat, "こんにちは", 50_000);
    assert_eq!(verdict(&ev), Verdict::OnTime);
}

#[test]
fn kit_pause_twice_and_resume_unpaused_are_refused() {
    let (mut g, _) = first_talk();
    g.input(Input::Arbiter {
        act: Act::Pause { reason: "x".into() },
        at_ms: 1,
    });
    let r = werewolf::decide(
        &g.t,
        &Input::Arbiter {
            act: Act::Pause { reason: "y".into() },
            at_ms: 2,
        },
    )
    .unwrap_err();
    assert!(r.to_string().contains("already paused"), "{r}");
    g.input(Input::Arbiter {
        act: Act::Resume,
        at_ms: 3,
    });
    let r = werewolf::decide(
        &g.t,
        &Input::Arbiter {
            act: Act::Resume,
            at_ms: 4,
        },
    )
    .unwrap_err();
    assert!(r.to_string().contains("not paused"), "{r}");
}

#[test]
fn kit_eject_puts_the_seat_in_error_and_readmit_lets_it_play_again() {
    // Given a TALK awaited; when the arbiter ejects that seat.
    let (mut g, seat) = first_talk();
    let ev = g.input(Input::Arbiter {
        act: Act::Eject {
            seat,
            reason: "two programs".into(),
        },
        at_ms: 5,
    });
    // Then its request failed and it is in error; readmitted, it is asked again.
    assert!(ev.iter().any(|e| matches!(e, Event::RequestFailed { .. })));
    assert!(in_error(&g, seat));
    g.input(Input::Arbiter {
        act: Act::Readmit { seat },
        at_ms: 6,
    });
    assert!(!in_error(&g, seat));
}

#[test]
fn kit_arbiter_ends_the_game_with_a_ruling() {
    // Given a game under way; when the arbiter ends it for the village.
    let (mut g, _) = first_talk();
    let ev = g.input(Input::Arbiter {
        act: Act::End {
            winner: Winner::Villager,
            reason: "forfeit".into(),
        },
        at_ms: 7,
    });
    // Then the ruling, FINISH to all, and the end with the seed.
    assert_eq!(ev[0].kind(), "ruled");
    assert_eq!(
        ev.iter()
            .filter(|e| matches!(
                e,
                Event::Sent {
                    request: Request::Finish,
                    ..
                }
            ))
            .count(),
        5
    );
    assert_eq!(werewolf::finished(&g.t), Some(Winner::Villager));
    // And nothing more is taken.
    assert!(werewolf::decide(&g.t, &Input::Tick { at_ms: 8 }).is_err());
}

#[test]
fn kit_restart_resumes_when_every_seat_is_back_and_sends_the_awaited_request_again() {
    // Given a TALK awaited; when the serving process restarts (profile: resume).
    let (mut g, seat) = first_talk();
    let frame = g.t.pending().unwrap().frame.clone();
    g.now = 30_000;
    g.input(Input::Restarted {
        at_ms: g.now,
        on_restart: OnRestart::Resume,
    });
    // Then nothing runs until every seat is back.
    assert_eq!(werewolf::deadline(&g.t), None);
    for s in 0..5 {
        g.now += 100;
        let ev = g.input(Input::Reconnected {
            seat: s,
            at_ms: g.now,
        });
        if s < 4 {
            assert_eq!(ev.len(), 1);
        } else {
            // And the awaited request goes out again, with a fresh deadline.
            assert!(matches!(
                &ev[1],
                Event::Resumed {
                    by_arbiter: false,
                    ..
                }
            ));
            assert!(
                matches!(&ev[2], Event::Sent { seat: x, frame: f, deadline_ms: Some(d), .. } if *x == seat && *f == frame && *d == g.now + 60_000)
            );
        }
    }
    let ev = g.answer("ただいま");
    assert_eq!(verdict(&ev), Verdict::OnTime);
}

#[test]
fn kit_restart_ends_the_game_with_no_winner_when_the_profile_says_end() {
    let (mut g, _) = first_talk();
    let ev = g.input(Input::Restarted {
        at_ms: 9,
        on_restart: OnRestart::End,
    });
    assert!(matches!(
        ev.last(),
        Some(Event::GameEnded {
            winner: Winner::None,
            ..
        })
    ));
}

#[test]
fn kit_inputs_before_the_start_for_unknown_seats_or_after_the_end_are_refused() {
    let g = G::new("aiwolf-2025-5", 1);
    assert!(werewolf::decide(&g.t, &Input::Tick { at_ms: 0 }).is_err());
    let (g, _) = first_talk();
    let r = werewolf::decide(
        &g.t,
        &Input::Frame {
            seat: 9,
            text: "x".into(),
            at_ms: 1,
        },
    )
    .unwrap_err();
    assert!(r.to_string().contains("no seat 9"), "{r}");
    assert!(werewolf::decide(&g.t, &Input::Begin { at_ms: 1 }).is_err());
}
