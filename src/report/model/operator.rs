//! Operator errors in the report: a wrong move executed on the board (7b) or executed and the
//! clock pressed (7c), with the 7c correction of the move, the time added to the human's clock and
//! the forfeit.
use super::{Builder, InfractionRow, Mark, MarkKind, Stamp, hms, signed_hms};
use crate::core::event::{Event, EventKind};

impl Builder {
    /// The timeline text of an operator error (7b, 7c).
    pub(super) fn describe_wrong_move(&self, e: &Event) -> String {
        use EventKind as K;
        let K::WrongMove {
            played,
            correct,
            pressed,
            infraction,
            penalty_ms,
            forfeit,
            ..
        } = &e.kind
        else {
            return e.kind_name();
        };
        if *pressed {
            let mut t = format!(
                "operator executed {played} and pressed the clock; the machine's move \
                 is {correct}: corrected (infraction {infraction})"
            );
            if *penalty_ms > 0 {
                t.push_str(&format!(
                    "; {} added to the human's clock",
                    hms(*penalty_ms)
                ));
            }
            if *forfeit {
                t.push_str("; the machine forfeits the game");
            }
            t
        } else {
            format!(
                "operator executed {played} on the board, the machine's move is \
                 {correct}; clock not pressed: move re-entered"
            )
        }
    }

    /// An operator error: its row, the corrected move (7c) and the penalty's mark on the chart.
    pub(super) fn collect_wrong_move(&mut self, s: Stamp, e: &Event) {
        use EventKind as K;
        let K::WrongMove {
            played,
            correct,
            pressed,
            infraction,
            penalty_ms,
            forfeit,
            ..
        } = &e.kind
        else {
            return;
        };
        if *pressed && let Some(last) = self.line.last_mut() {
            last.corrected_from = Some(last.san.clone());
            last.san = correct.clone();
        }
        if *pressed
            && *penalty_ms > 0
            && let Some(h) = self.human_side()
        {
            let y = match &self.game {
                Some(g) => g.remaining(h, e.at),
                None => {
                    self.line
                        .iter()
                        .rev()
                        .find(|m| m.side == h)
                        .map_or(0, |m| m.remaining_ms)
                        + *penalty_ms as i64
                }
            };
            self.mark(Mark {
                entry: s.entry,
                kind: MarkKind::Penalty,
                side: h,
                x: f64::from(self.moves_of(h)) + 0.5,
                y_ms: y,
                label: format!(
                    "{}: {} added to {} (infraction {infraction})",
                    self.report.cites.c(crate::core::clause::WRONG_MOVE_PRESSED),
                    signed_hms(*penalty_ms as i64),
                    self.name(h)
                ),
            });
        }
        self.report.infractions.push(InfractionRow {
            stamp: s,
            clause: e.clause.to_string(),
            played: played.clone(),
            correct: correct.clone(),
            pressed: *pressed,
            infraction: *infraction,
            penalty_ms: *penalty_ms,
            forfeit: *forfeit,
        });
    }
}
