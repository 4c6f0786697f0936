//! When the loop must wake next, and when the bell rings (pure).
use std::time::Duration;

use crate::core::Ms;
use crate::core::event::{Event, EventKind, Termination};
use crate::core::timefmt;
use crate::core::view::{Panel, Urgency, View};

use super::keys::{Alarm, UiState};

/// Longest sleep when nothing on screen changes on its own (the shell's status may change).
pub const IDLE_WAKE: Duration = Duration::from_secs(30);

/// Milliseconds until a clock face (rounding down: `h:mm:ss` shows a second while any of it is
/// left) shows a different second.
fn floor_boundary(ms: i64) -> u64 {
    ms.rem_euclid(1000) as u64 + 1
}

/// Milliseconds until a countdown shown rounding up (`m:ss`, [`crate::core::timefmt::short`])
/// changes.
fn ceil_boundary(ms: i64) -> u64 {
    (ms - 1).rem_euclid(1000) as u64 + 1
}

/// How long the loop may sleep at `now`: until the earliest of the next displayed-second
/// boundary of a running clock or countdown on screen and the core's next deadline (flag fall,
/// 9e limit, 8b window). Deadlines already past are ignored (they are recorded by catch-up, or
/// wait for the arbiter), so this never returns zero: no busy loop.
pub fn wait_for(view: &View, now: Ms) -> Duration {
    let mut wake: Vec<u64> = Vec::new();
    for c in &view.clocks {
        if c.running {
            wake.push(floor_boundary(c.shown_ms));
        }
    }
    for p in &view.panels {
        match p {
            Panel::DrawOffer {
                consulting_with,
                left_ms,
                ..
            } if !consulting_with.is_empty() && *left_ms > 0 => {
                wake.push(ceil_boundary(*left_ms));
            }
            Panel::Power {
                window_left_ms: Some(w),
                reset_done: false,
                ..
            } if *w > 0 => wake.push(ceil_boundary(*w)),
            Panel::Handover {
                log_left_ms,
                log_handed,
                program_left_ms,
                program_handed,
                ..
            } => {
                for (left, done) in [(log_left_ms, log_handed), (program_left_ms, program_handed)] {
                    if let (Some(l), false) = (left, done) {
                        // Counting down (rounding up), then the lateness (rounding down).
                        wake.push(if *l > 0 {
                            ceil_boundary(*l)
                        } else {
                            floor_boundary(-*l)
                        });
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(d) = view.next_deadline.filter(|d| *d > now) {
        wake.push(d - now);
    }
    wake.into_iter().min().map_or(IDLE_WAKE, |ms| {
        Duration::from_millis(ms.max(1)).min(IDLE_WAKE)
    })
}

/// Whether the machine slept between two readings: the monotonic clock (which stops while the
/// system is suspended) advanced `mono`, the wall clock `wall`. More than 5 s apart is a suspend
/// (or the wall clock was set by hand: the arbiter rules either way); returns the time missed.
pub fn suspended_ms(mono: Duration, wall: Duration) -> Option<Ms> {
    let missed = wall.checked_sub(mono)?;
    (missed > Duration::from_secs(5)).then(|| u64::try_from(missed.as_millis()).unwrap_or(u64::MAX))
}

/// The red alarms currently on screen: 9e limit reached, flag fallen, 8b window over, log
/// failure.
pub fn red_alarms(view: &View, frozen: bool) -> Vec<&'static str> {
    let mut out = Vec::new();
    for p in &view.panels {
        match p {
            Panel::DrawOffer {
                urgency: Urgency::Red,
                ..
            } => out.push("9e"),
            Panel::Result {
                termination: Termination::FlagFall | Termination::FlagFallDraw,
                ..
            } => out.push("flag"),
            Panel::Power {
                window_left_ms: Some(w),
                reset_done: false,
                ..
            } if *w <= 0 => out.push("8b"),
            _ => {}
        }
    }
    if frozen {
        out.push("log");
    }
    out
}

/// Whether the terminal bell must ring now: a red alarm appeared that was not on screen at the
/// previous call. Updates `ui.rung`.
pub fn bell(ui: &mut UiState, view: &View, frozen: bool) -> bool {
    let now = red_alarms(view, frozen);
    let ring = now.iter().any(|a| !ui.rung.contains(a));
    ui.rung = now;
    ring
}

/// Whether entry `e` can raise a sticky alarm ([`sticky_alarms`]): a 9e consultation limit
/// reached, an owed 6c correction, one not made at move entry, the end of an 8b reset window.
pub fn is_alarm_source(e: &Event) -> bool {
    matches!(
        e.kind,
        EventKind::ConsultationEnded {
            limit_reached: true,
            ..
        } | EventKind::InternalClockReported {
            correction_owed: true,
            ..
        } | EventKind::SyncNotMade { .. }
            | EventKind::ResetWindowEnded { .. }
    )
}

/// Whether entry `e` satisfies what an earlier alarm asks for ([`sticky_alarms`]): the owed 6c
/// correction made, the arbiter's correction of a clock, the draw offer answered, the machine's
/// clock restarted or its reset reported, the game over.
pub fn clears_alarm(e: &Event) -> bool {
    matches!(
        e.kind,
        EventKind::InternalClockCorrected { .. }
            | EventKind::ClockCorrected { .. }
            | EventKind::DrawDeclined { .. }
            | EventKind::MoveMade {
                declines_draw: true,
                ..
            }
            | EventKind::ClockResumed { .. }
            | EventKind::MachineReset
            | EventKind::GameEnded { .. }
    )
}

/// Whether `later` satisfies the alarm raised by `source`.
fn satisfies(source: &Event, later: &Event) -> bool {
    use EventKind as K;
    matches!(
        (&source.kind, &later.kind),
        (_, K::GameEnded { .. })
            | (
                K::ConsultationEnded { .. },
                K::DrawDeclined { .. } | K::MoveMade { .. }
            )
            | (
                K::InternalClockReported { .. },
                K::InternalClockCorrected { .. }
            )
            | (
                K::SyncNotMade { .. },
                K::InternalClockCorrected { .. } | K::ClockCorrected { .. }
            )
            | (
                K::ResetWindowEnded { .. },
                K::ClockResumed { .. } | K::MachineReset
            )
    )
}

/// The alarms that must stay red on screen until the arbiter acknowledges them or what they ask
/// for is recorded (then they clear themselves): a reached 9e
/// limit, an owed 6c correction, an 8b reset window that ended, a restart whose gap awaits the
/// arbiter's ruling. Each carries the log entry it comes from, so an acknowledged one never
/// returns and a new occurrence always shows. `restart_gap` is the session's pending gap.
/// `log` holds the entries that can raise one, with their numbers ([`is_alarm_source`]; the
/// Board UI keeps those of the whole log, not the log).
pub fn sticky_alarms(log: &[(usize, Event)], restart_gap: Option<Ms>) -> Vec<Alarm> {
    let mut out = Vec::new();
    for (k, (i, e)) in log.iter().map(|(i, e)| (*i, e)).enumerate() {
        if log[k + 1..].iter().any(|(_, later)| satisfies(e, later)) {
            continue;
        }
        match &e.kind {
            EventKind::ConsultationEnded {
                limit_reached: true,
                total_ms,
                ..
            } => out.push(Alarm {
                key: format!("9e#{i}"),
                text: format!(
                    "9e consultation limit reached at {} (#{i}): {} used; the operator must cease consulting",
                    timefmt::clock(e.at as i64),
                    timefmt::short(*total_ms as i64)
                ),
            }),
            EventKind::InternalClockReported {
                correction_owed: true,
                diff_ms,
                ..
            } => out.push(Alarm {
                key: format!("6c#{i}"),
                text: format!(
                    "6c internal clock off by {}{} (#{i}): a correction is owed (operator sync-internal-clock)",
                    if *diff_ms < 0 { "-" } else { "+" },
                    timefmt::short(diff_ms.abs())
                ),
            }),
            EventKind::SyncNotMade { diff_ms, .. } => out.push(Alarm {
                key: format!("6c-not-made#{i}"),
                text: format!(
                    "6c the machine's move was entered with the owed correction ({}{}) not made (#{i}): the arbiter decides",
                    if *diff_ms < 0 { "-" } else { "+" },
                    timefmt::short(diff_ms.abs())
                ),
            }),
            EventKind::ResetWindowEnded { .. } => out.push(Alarm {
                key: format!("8b#{i}"),
                text: format!(
                    "8b reset window over (#{i}) and no reset reported: the arbiter may restart the machine's clock (r / arbiter resume)"
                ),
            }),
            _ => {}
        }
    }
    if let Some(gap) = restart_gap {
        out.push(Alarm {
            key: format!("restart#{}", log.len()),
            text: format!(
                "restart ruling pending: the kit was down {} with a clock running: arbiter restart-gap waive|charge [H:MM:SS] REASON",
                timefmt::clock(gap as i64)
            ),
        });
    }
    out
}
