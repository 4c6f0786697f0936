//! Moves in the report: moves made (6a, 6b), moves taken back (6d), and a move made without
//! answering a draw offer, which rejects it (9e). The moves standing at the end make the
//! time-per-move table and the clock chart.
use super::{Builder, MoveRow, Stamp};
use crate::core::Side;
use crate::core::event::{Event, EventKind};

/// Most rows of moves taken back kept to be written over by later moves: a few
/// take-backs' worth, whatever the log's length.
const SPARE_ROWS: usize = 1024;

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
            K::MoveMade { .. } => {
                let row = MoveRow {
                    stamp: s,
                    ply: 0,
                    number: 0,
                    side: Side::White,
                    san: String::new(),
                    spent_ms: 0,
                    remaining_ms: 0,
                    period: 0,
                    declines_draw: false,
                    corrected_from: None,
                };
                self.push_move(row, e);
            }
            K::MovesTakenBack { .. } => self.take_back(s.entry, e),
            _ => {}
        }
    }

    /// [`Builder::collect_move`] of a move made (entry `i`, `utc` its UTC text), its row written
    /// over a spare one, texts and all (a long log makes and drops no text per move).
    pub(super) fn collect_move_made(&mut self, i: usize, e: &Event, utc: &str) {
        let Some(mut row) = self.spare_rows.pop() else {
            self.collect_move(super::stamp(i, e, utc), e);
            return;
        };
        row.stamp.entry = i;
        row.stamp.at_ms = e.at;
        row.stamp.game_time.clear();
        super::push_hms(&mut row.stamp.game_time, e.at);
        row.stamp.utc.clear();
        row.stamp.utc.push_str(utc);
        self.push_move(row, e);
    }

    /// A move made joins the line, in `row` (its stamp written; the rest is written here).
    fn push_move(&mut self, mut row: MoveRow, e: &Event) {
        let EventKind::MoveMade {
            side,
            san,
            spent_ms,
            remaining_ms,
            declines_draw,
            ..
        } = &e.kind
        else {
            return;
        };
        let number = self.moves_of(*side) + 1;
        let period = self
            .game
            .as_ref()
            .map_or(1, |g| g.profile().period_of(*side, number - 1).0 + 1);
        let ply = self.line.len();
        // A copy of the stamp only for the offer this move answers.
        let answer = declines_draw.then(|| row.stamp.clone());
        row.ply = ply;
        row.number = number;
        row.side = *side;
        row.san.clear();
        row.san.push_str(san);
        row.spent_ms = i64::try_from(*spent_ms).unwrap_or(i64::MAX);
        row.remaining_ms = *remaining_ms;
        row.period = period;
        row.declines_draw = *declines_draw;
        row.corrected_from = None;
        self.line.push(row);
        if !self.offer_awaits.is_empty() {
            let numbered = self.numbered(ply, san);
            let offers = &mut self.report.draw_offers;
            self.offer_awaits.retain(|(k, p)| {
                if *p != ply {
                    return true;
                }
                if let Some(o) = offers.get_mut(*k) {
                    o.with_move = Some(numbered.clone());
                }
                false
            });
        }
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

    /// A take-back (entry `entry`) removes moves from the line.
    fn take_back(&mut self, entry: usize, e: &Event) {
        let EventKind::MovesTakenBack { plies, .. } = &e.kind else {
            return;
        };
        let keep = self.line.len().saturating_sub(*plies);
        // Rule 1: a void reaches only the latest entries, so an older take-back can never be
        // given back: forget it (memory flat in the log's length). The rows of the last one
        // forgotten are replaced by these in place (no buffer of a take-back's size made and
        // dropped per take-back), and its rows kept to be written over by the moves
        // to come.
        let reach = entry.saturating_sub(2 * crate::core::game::VOID_WINDOW) as u64;
        let mut removed = Vec::new();
        while let Some(old) = self.taken.first_entry() {
            if *old.key() >= reach {
                break;
            }
            removed = old.remove();
            if self.spare_rows.is_empty() {
                // They become the spare rows whole (not moved one by one).
                std::mem::swap(&mut self.spare_rows, &mut removed);
                self.spare_rows.truncate(SPARE_ROWS);
            } else {
                let room = SPARE_ROWS.saturating_sub(self.spare_rows.len());
                let spare = removed.len().min(room);
                self.spare_rows.extend(removed.drain(..spare));
            }
        }
        removed.clear();
        if keep == 0 {
            // The whole line taken back (back to the start position): its rows change hands
            // whole, not one by one.
            std::mem::swap(&mut removed, &mut self.line);
        } else {
            removed.extend(self.line.drain(keep..));
        }
        self.taken.insert(entry as u64, removed);
    }
}
