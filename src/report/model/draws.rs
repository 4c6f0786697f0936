//! Draw offers in the report (9): offers by either side (9a; the machine's with its justification,
//! 9d), the human's consultation with the team (9c, 9e) and how each offer was answered.
use super::{Builder, Consultation, DrawOfferRow, Stamp, hms};
use crate::core::event::{DeclineHow, Event, EventKind, Justification};

impl Builder {
    /// The timeline text of a draw offer, a consultation or an answer (9a, 9c, 9d, 9e).
    pub(super) fn describe_draw(&self, e: &Event) -> String {
        use EventKind as K;
        match &e.kind {
            K::DrawOffered { by, justification } => match justification {
                Some(j) => format!(
                    "draw offered by {} ({})",
                    self.who(*by),
                    justification_text(j)
                ),
                None => format!("draw offered by {}", self.who(*by)),
            },
            K::ConsultationStarted { with } => {
                format!("consultation started with {}", with.join(", "))
            }
            K::ConsultationEnded {
                used_ms,
                total_ms,
                limit_reached,
            } => format!(
                "consultation ended after {} ({} in total on this offer){}",
                hms(*used_ms),
                hms(*total_ms),
                if *limit_reached {
                    "; the ten-minute limit was reached"
                } else {
                    ""
                }
            ),
            K::DrawDeclined { by, how } => match how {
                DeclineHow::Declined => format!("draw offer declined by {}", self.who(*by)),
                DeclineHow::ByMove => {
                    format!("draw offer rejected by {}'s move (9e)", self.who(*by))
                }
            },
            _ => e.kind_name(),
        }
    }

    /// A draw offer opens a row; consultations (9c, 9e) and the answer fill it.
    pub(super) fn collect_draw(&mut self, s: Stamp, e: &Event) {
        use EventKind as K;
        match &e.kind {
            K::DrawOffered { by, justification } => {
                // FIDE Laws 9.1.2: the offer goes with the offerer's own move (one still to be
                // entered is named when it is).
                let ply = self.game.as_ref().map_or_else(
                    || self.line.len().saturating_sub(1),
                    |g| g.draw_offer_ply(*by),
                );
                let with_move = self.line.get(ply).map(|m| self.numbered(ply, &m.san));
                if with_move.is_none() {
                    self.offer_awaits.push((self.report.draw_offers.len(), ply));
                }
                self.report.draw_offers.push(DrawOfferRow {
                    stamp: s,
                    by: *by,
                    by_name: self.name(*by),
                    clause: e.clause.to_string(),
                    with_move,
                    justification: justification.as_ref().map(justification_text),
                    consultations: Vec::new(),
                    consultation_ms: 0,
                    limit_reached: false,
                    answered: None,
                    outcome: "not answered".into(),
                });
                self.offer_of[by.index()] = Some(self.report.draw_offers.len() - 1);
            }
            K::ConsultationStarted { with } => {
                if let Some(o) = self.human_offer_mut() {
                    o.consultations.push(Consultation {
                        started: s,
                        with: with.clone(),
                        ended: None,
                        used_ms: None,
                        limit_reached: false,
                    });
                }
            }
            K::ConsultationEnded {
                used_ms,
                total_ms,
                limit_reached,
            } => {
                if let Some(o) = self.human_offer_mut() {
                    if let Some(c) = o.consultations.last_mut()
                        && c.ended.is_none()
                    {
                        c.ended = Some(s);
                        c.used_ms = Some(*used_ms);
                        c.limit_reached = *limit_reached;
                    }
                    o.consultation_ms = *total_ms;
                    o.limit_reached |= *limit_reached;
                }
            }
            K::DrawDeclined { by, how } => {
                let name = self.name(*by);
                if let Some(k) = self.offer_of[by.other().index()]
                    && let Some(o) = self.report.draw_offers.get_mut(k)
                    && o.answered.is_none()
                {
                    o.answered = Some(s);
                    o.outcome = match how {
                        DeclineHow::Declined => format!("declined by {name} ({})", e.clause),
                        DeclineHow::ByMove => format!("rejected by {name}'s move (9e)"),
                    };
                }
            }
            _ => {}
        }
    }

    fn human_offer_mut(&mut self) -> Option<&mut DrawOfferRow> {
        let h = self.human_side()?;
        let k = self.offer_of[h.index()]?;
        self.report.draw_offers.get_mut(k)
    }
}

fn justification_text(j: &Justification) -> String {
    match j {
        Justification::Eval { cp } => format!("evaluation {:+.2} (pawns)", f64::from(*cp) / 100.0),
        Justification::Repetition { line } => format!("repetition line {line}"),
    }
}
