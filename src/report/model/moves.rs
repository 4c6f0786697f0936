//! Moves in the report: moves made (6a, 6b), moves taken back (6d), and a move made without
//! answering a draw offer, which rejects it (9e). The moves standing at the end make the
//! time-per-move table and the clock chart.
use super::{Builder, MoveRow, Stamp};
use crate::core::event::{Event, EventKind};

impl Builder {
    /// The timeline text of a move or a take-back (6a, 6b, 6d; 9e).
    pub(super) fn describe_move(&self, e: &Event) -> String {
        use EventKind as K;
        match &e.kind {
            K::MoveMade {
                side,
                san,
                declines_draw,
                ..
            } => {
                // Described before `collect` adds it: its ply is the current length.
                let mut t = format!(
                    "{} by {}",
                    self.numbered(self.line.len(), san),
                    self.who(*side)
                );
                if *declines_draw {
                    t.push_str(": made without answering the draw offer, which rejects it (9e)");
                }
                t
            }
            K::MovesTakenBack {
                plies,
                removed,
                reason,
                ..
            } => format!(
                "{plies} move(s) taken back ({}): {reason}",
                removed.join(" ")
            ),
            _ => e.kind_name(),
        }
    }

    /// A move joins the line (answering the opponent's draw offer when it rejects it, 9e); a take-back
    /// removes moves from it.
    pub(super) fn collect_move(&mut self, s: Stamp, e: &Event) {
        use EventKind as K;
        match &e.kind {
            K::MoveMade {
                side,
                san,
                spent_ms,
                remaining_ms,
                declines_draw,
                ..
            } => {
                let number = self.moves_of(*side) + 1;
                let period = self
                    .game
                    .as_ref()
                    .map_or(1, |g| g.profile().period_of(*side, number - 1).0 + 1);
                let ply = self.line.len();
                // The stamp goes to the row; a copy only for the offer this move answers.
                let answer = declines_draw.then(|| s.clone());
                self.line.push(MoveRow {
                    stamp: s,
                    ply,
                    number,
                    side: *side,
                    san: san.to_string(),
                    spent_ms: i64::try_from(*spent_ms).unwrap_or(i64::MAX),
                    remaining_ms: *remaining_ms,
                    period,
                    declines_draw: *declines_draw,
                    corrected_from: None,
                });
                if let Some(s) = answer
                    && let Some(k) = self.offer_of[side.other().index()]
                    && self
                        .report
                        .draw_offers
                        .get(k)
                        .is_some_and(|o| o.answered.is_none())
                {
                    let numbered = self.numbered(ply, san);
                    let Some(o) = self.report.draw_offers.get_mut(k) else {
                        return;
                    };
                    o.answered = Some(s);
                    o.outcome = format!(
                        "rejected by {}'s move {} (9e)",
                        self.names[side.index()],
                        numbered
                    );
                }
            }
            K::MovesTakenBack { plies, .. } => {
                let keep = self.line.len().saturating_sub(*plies);
                // Rule 1: a void reaches only the latest entries, so an older take-back can never
                // be given back: forget it (memory flat in the log's length). The rows of the
                // last one forgotten are replaced by these in place (no buffer of a take-back's
                // size made and dropped per take-back: issue 21).
                let reach = s.entry.saturating_sub(2 * crate::core::game::VOID_WINDOW) as u64;
                let mut removed = Vec::new();
                while let Some(old) = self.taken.first_entry() {
                    if *old.key() >= reach {
                        break;
                    }
                    removed = old.remove();
                }
                removed.clear();
                removed.extend(self.line.drain(keep..));
                self.taken.insert(s.entry as u64, removed);
            }
            _ => {}
        }
    }
}
