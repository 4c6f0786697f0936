//! The arbiter's acts (pause, resume, note, eject, readmit, ruling) and a restart of the serving
//! process (profile `table.on_restart`): each an entry citing its section.
use super::event::Event;
use super::flow::{Run, advance, end_game};
use super::profile::{OnRestart, Winner};
use super::sections as s;
use super::table::Table;
use super::verdicts::fail_if_pending;
use super::{Act, Refusal};

pub(super) fn arbiter(r: &mut Run, t: &Table, act: &Act, at_ms: u64) -> Result<(), Refusal> {
    let seat_ok = |seat: usize| {
        if seat < t.seats.len() {
            Ok(())
        } else {
            Err(Refusal::new(s::ARBITER, format!("no seat {seat}")))
        }
    };
    match act {
        Act::Pause { reason } => {
            if t.paused.is_some() {
                return Err(Refusal::new(s::ARBITER, "the table is already paused"));
            }
            r.emit(Event::Paused {
                at_ms,
                reason: reason.clone(),
            });
        }
        Act::Resume => {
            if t.paused.is_none() {
                return Err(Refusal::new(s::ARBITER, "the table is not paused"));
            }
            resume(r, true);
            advance(r);
        }
        Act::Note { text } => r.emit(Event::Noted {
            at_ms,
            text: text.clone(),
        }),
        Act::Eject { seat, reason } => {
            seat_ok(*seat)?;
            if t.seats[*seat].error {
                return Err(Refusal::new(
                    s::ARBITER,
                    format!("seat {seat} is already in error"),
                ));
            }
            r.emit(Event::Ejected {
                at_ms,
                seat: *seat,
                reason: reason.clone(),
            });
            fail_if_pending(r, *seat, "the arbiter ejected the seat");
            advance(r);
        }
        Act::Readmit { seat } => {
            seat_ok(*seat)?;
            if !t.seats[*seat].error {
                return Err(Refusal::new(
                    s::ARBITER,
                    format!("seat {seat} is not in error"),
                ));
            }
            r.emit(Event::Readmitted { at_ms, seat: *seat });
            advance(r);
        }
        Act::End { winner, reason } => {
            r.emit(Event::Ruled {
                at_ms,
                winner: *winner,
                reason: reason.clone(),
            });
            end_game(r, *winner, format!("the arbiter's ruling: {reason}"));
        }
    }
    Ok(())
}

/// Resume: the awaited answer's deadline moves by the pause; after a restart the awaited request
/// is sent again with a fresh deadline.
pub(super) fn resume(r: &mut Run, by_arbiter: bool) {
    let since = r.t.paused.as_ref().map(|(at, _)| *at).unwrap_or(r.at);
    let restarted = r.t.restart_wait;
    r.emit(Event::Resumed {
        at_ms: r.at,
        paused_ms: r.at.saturating_sub(since),
        by_arbiter,
    });
    if restarted && let Some(p) = r.t.pending.clone() {
        let frame = p.frame.clone();
        let deadline_ms = Some(r.at.saturating_add(r.t.profile.timeouts.action_ms));
        r.emit(Event::Sent {
            seat: p.seat,
            request: p.request,
            frame,
            deadline_ms,
        });
    }
}

/// A seat connected again. After a restart the table resumes once every seat not in error is
/// back; a seat that closed during the game stays in error unless the arbiter readmits it.
pub(super) fn on_reconnected(r: &mut Run, seat: usize, at_ms: u64) {
    r.emit(Event::Reconnected { seat, at_ms });
    if r.t.restart_wait && r.t.seats.iter().all(|s| s.error || s.connected) {
        resume(r, false);
    }
    advance(r);
}

/// The serving process restarted: per the profile, wait for the seats and resume, or end the
/// game with no winner.
pub(super) fn on_restarted(r: &mut Run, at_ms: u64, on_restart: OnRestart) {
    r.emit(Event::Restarted { at_ms, on_restart });
    if on_restart == OnRestart::End {
        end_game(
            r,
            Winner::None,
            "the serving process restarted and the profile ends the game".into(),
        );
    }
}
