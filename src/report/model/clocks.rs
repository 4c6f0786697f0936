//! The game clock and the machine's internal clock in the report: clocks started, stopped and
//! restarted (3), the internal clock reported and set (6c), clocks corrected by the arbiter (6d,
//! 7e) and the kit's restart gaps, with their marks on the clock chart.
use super::{Builder, Mark, MarkKind, hms, push_internal_clock, signed_hms};
use crate::core::event::{ClockSet, Event, EventKind};
use crate::core::timefmt;

impl Builder {
    /// [`Builder::describe_clock`], appended to `out`: an internal clock reported (6c) written in
    /// place (the most frequent entry of a long log), any other as described.
    pub(super) fn describe_clock_into(&self, e: &Event, out: &mut String) {
        let EventKind::InternalClockReported {
            reading_ms,
            game_clock_ms,
            diff_ms,
            threshold_ms,
            correction_owed,
        } = &e.kind
        else {
            out.push_str(&self.describe_clock(e));
            return;
        };
        push_internal_clock(
            out,
            *reading_ms,
            *game_clock_ms,
            *diff_ms,
            *threshold_ms,
            *correction_owed,
        );
    }

    /// The timeline text of a clock entry (3, 6c, 6d, 7e, restart gaps).
    pub(super) fn describe_clock(&self, e: &Event) -> String {
        use EventKind as K;
        match &e.kind {
            K::ClockStarted { side } => format!("clock of {} started", self.who(*side)),
            K::ClockStopped { reason } => format!("both clocks stopped: {reason}"),
            K::ClockResumed { side } => format!("clock of {} restarted", self.who(*side)),
            K::InternalClockReported { .. } => {
                let mut s = String::with_capacity(112);
                self.describe_clock_into(e, &mut s);
                s
            }
            K::InternalClockCorrected { from_ms, to_ms } => format!(
                "internal clock set from {} to the game clock {}",
                hms(*from_ms),
                timefmt::clock(*to_ms)
            ),
            K::ClockCorrected {
                side,
                how,
                from_ms,
                to_ms,
                delta_ms,
                reason,
            } => format!(
                "clock of {} {} from {} to {} ({}): {reason}",
                self.who(*side),
                match how {
                    ClockSet::Remaining => "set",
                    ClockSet::Delta => "adjusted",
                },
                timefmt::clock(*from_ms),
                timefmt::clock(*to_ms),
                signed_hms(*delta_ms)
            ),
            K::RestartGap {
                gap_ms,
                charged,
                side,
                charged_ms,
                reason,
                wall_clock,
            } => format!(
                "gap of {} after a restart of the kit {}{}{}",
                hms(*gap_ms),
                match (charged, side, charged_ms) {
                    (true, Some(s), Some(x)) if x < gap_ms => {
                        format!("{} charged to {}, the rest waived", hms(*x), self.who(*s))
                    }
                    (true, Some(s), _) => format!("charged to {}", self.who(*s)),
                    (true, None, _) => "charged (no clock running)".into(),
                    (false, _, _) => "waived".into(),
                },
                reason
                    .as_ref()
                    .map_or_else(String::new, |r| format!(" ({r})")),
                wall_clock
                    .as_ref()
                    .map_or_else(String::new, |w| format!("; {w}"))
            ),
            _ => e.kind_name(),
        }
    }

    /// A clock correction or a charged restart gap: a mark on the clock chart (6d, 7e).
    pub(super) fn collect_clock(&mut self, entry: usize, e: &Event) {
        use EventKind as K;
        match &e.kind {
            K::ClockCorrected {
                side,
                to_ms,
                delta_ms,
                reason,
                ..
            } => {
                self.mark(Mark {
                    entry,
                    kind: MarkKind::Correction,
                    side: *side,
                    x: f64::from(self.moves_of(*side)) + 0.5,
                    y_ms: *to_ms,
                    label: format!(
                        "{}: {} {} ({reason})",
                        e.clause,
                        self.name(*side),
                        signed_hms(*delta_ms)
                    ),
                });
            }
            K::RestartGap {
                gap_ms,
                charged: true,
                side: Some(side),
                ..
            } => {
                let y = self.game.as_ref().map_or_else(
                    || {
                        self.line
                            .iter()
                            .rev()
                            .find(|m| m.side == *side)
                            .map_or(0, |m| m.remaining_ms)
                    },
                    |g| g.remaining(*side, e.at),
                );
                self.mark(Mark {
                    entry,
                    kind: MarkKind::Correction,
                    side: *side,
                    x: f64::from(self.moves_of(*side)) + 0.5,
                    y_ms: y,
                    label: format!(
                        "{}: restart gap of {} charged to {}",
                        e.clause,
                        hms(*gap_ms),
                        self.name(*side)
                    ),
                });
            }
            _ => {}
        }
    }
}
