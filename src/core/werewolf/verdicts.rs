//! The referee's verdict on every answer (regulation 注意事項: forced timeout, late talk ignored;
//! official server model/agent.go: the NAME probe; the kit: unsolicited frames never taken as an
//! answer): on time, late, probe answered or failed, and what a failed request leaves.
use super::event::{Ballot, Event, Request, Stage, TalkKind, Verdict};
use super::flow::{Run, advance, strip};
use super::table::{Table, stage_of};
use super::{ballots, talk};

pub(super) fn on_frame(r: &mut Run, seat: usize, raw: &str, at_ms: u64) {
    let text = strip(raw);
    let pending =
        r.t.pending
            .clone()
            .filter(|p| p.seat == seat && at_ms >= p.sent_ms);
    let Some(p) = pending else {
        r.emit(Event::FrameReceived {
            seat,
            at_ms,
            text: raw.to_string(),
            request: None,
            verdict: Verdict::Unsolicited,
        });
        return;
    };
    let paused = r.t.paused();
    let grace = r.t.profile.timeouts.acceptable_ms;
    let received = |verdict| Event::FrameReceived {
        seat,
        at_ms,
        text: raw.to_string(),
        request: Some(p.request),
        verdict,
    };
    match p.probe_deadline_ms {
        Some(pd) => {
            if text == r.t.seats[seat].spec.name && (paused || at_ms <= pd) {
                r.emit(received(Verdict::ProbeAnswered));
                fail(
                    r,
                    seat,
                    p.request,
                    "the seat answered the probe: the request failed",
                );
            } else {
                r.emit(received(Verdict::ProbeFailed));
                let reason = if text == r.t.seats[seat].spec.name {
                    "the name came after the probe's response timeout".to_string()
                } else {
                    format!(
                        "the probe asked for the name {:?}; the seat sent something else first",
                        r.t.seats[seat].spec.name
                    )
                };
                r.emit(Event::SeatInError { seat, reason });
                fail(r, seat, p.request, "no answer in time");
            }
        }
        None if paused || at_ms <= p.deadline_ms.saturating_add(grace) => {
            r.emit(received(Verdict::OnTime));
            answer(r, seat, p.request, &text);
        }
        None => {
            r.emit(received(Verdict::Late));
            r.emit(Event::SeatInError {
                seat,
                reason: "the answer came after the action timeout and grace, before any answer to a probe".into(),
            });
            fail(r, seat, p.request, "the answer came late");
        }
    }
    advance(r);
}

pub(super) fn fail_if_pending(r: &mut Run, seat: usize, why: &str) {
    if let Some(p) = r.t.pending.clone()
        && p.seat == seat
    {
        fail(r, seat, p.request, why);
    }
}

/// A request that got no usable answer: talk recorded as Skip, vote or target none.
pub(super) fn fail(r: &mut Run, seat: usize, request: Request, why: &str) {
    let consequence = match request {
        Request::Talk | Request::Whisper => "recorded as Skip",
        Request::Vote | Request::Attack => "no vote",
        Request::Divine => "no divination",
        Request::Guard => "no guard",
        _ => "none",
    };
    r.emit(Event::RequestFailed {
        seat,
        request,
        consequence: format!("{why}: {consequence}"),
    });
    if matches!(request, Request::Talk | Request::Whisper) {
        talk::talked(r, seat, TalkKind::ForcedSkip, "Skip".into());
    }
}

pub(super) fn answer(r: &mut Run, seat: usize, request: Request, text: &str) {
    match request {
        Request::Talk | Request::Whisper => talk::talk_answer(r, seat, text),
        Request::Vote => ballots::ballot_answer(r, seat, Ballot::Vote, text),
        Request::Attack => ballots::ballot_answer(r, seat, Ballot::Attack, text),
        Request::Divine | Request::Guard => ballots::single_answer(r, seat, request, text),
        _ => {}
    }
}

/// The shell's tick at the deadline: the NAME probe goes out, or (the probe unanswered) the seat is
/// in error. A tick before the deadline, or with nothing awaited, records nothing.
pub(super) fn on_tick(r: &mut Run, t: &Table, at_ms: u64) {
    let Some(d) = t.deadline() else {
        return;
    };
    let Some(p) = t.pending.clone() else {
        return;
    };
    if at_ms < d {
        return;
    }
    let stage = stage_of(&p);
    r.emit(Event::TimedOut {
        seat: p.seat,
        at_ms,
        request: p.request,
        stage,
    });
    match stage {
        Stage::Action => r.send(p.seat, Request::Name),
        Stage::Probe => {
            r.emit(Event::SeatInError {
                seat: p.seat,
                reason: "no answer to the NAME probe within the response timeout".into(),
            });
            fail(r, p.seat, p.request, "no answer in time");
            advance(r);
        }
    }
}

/// A closed connection: the seat is in error for the rest of the game (official server
/// model/agent.go); its awaited request fails.
pub(super) fn on_closed(r: &mut Run, seat: usize, at_ms: u64) {
    r.emit(Event::ConnectionClosed { seat, at_ms });
    if !r.t.seats[seat].error {
        r.emit(Event::SeatInError {
            seat,
            reason: "the connection closed".into(),
        });
    }
    fail_if_pending(r, seat, "the connection closed");
    advance(r);
}
