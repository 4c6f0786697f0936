//! Rule 12: disputes, the committee's rulings and decisions.
use super::*;

impl Game {
    /// Decide a command of this family (dispatched by [`Game::decide`]).
    pub(super) fn decide_committee(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        use Command as C;
        match cmd {
            C::Dispute { text } => {
                self.opened()?;
                self.one(
                    now,
                    Actor::Arbiter,
                    c::COMMITTEE,
                    EventKind::DisputeRaised {
                        id: self.disputes + 1,
                        text: text.clone(),
                    },
                )
            }
            C::Ruling { dispute, text } => {
                self.opened()?;
                if *dispute == 0 || *dispute > self.disputes {
                    return refuse(c::COMMITTEE, format!("there is no dispute {dispute}"));
                }
                self.one(
                    now,
                    Actor::Committee,
                    c::COMMITTEE,
                    EventKind::RulingGiven {
                        id: self.rulings.len() as u32 + 1,
                        dispute: *dispute,
                        text: text.clone(),
                    },
                )
            }
            C::Decide {
                ruling,
                score,
                reason,
            } => {
                self.playing()?;
                if !self.rulings.iter().any(|(r, _)| r == ruling) {
                    return refuse(
                        c::COMMITTEE,
                        format!(
                            "there is no ruling {ruling}: the arbiter's decision is bound by the committee's ruling (12c)"
                        ),
                    );
                }
                self.one(
                    now,
                    Actor::Arbiter,
                    c::COMMITTEE,
                    EventKind::GameEnded {
                        score: *score,
                        termination: Termination::ArbiterDecision,
                        detail: reason.clone(),
                        fen: self.board.fen(),
                        ruling: Some(*ruling),
                    },
                )
            }
            _ => refuse_state("not a command of this rule family"),
        }
    }

    /// Apply an event of this family (dispatched by [`Game::evolve`]).
    pub(super) fn evolve_committee(&mut self, e: &Event) -> Result<(), Inconsistent> {
        match &e.kind {
            EventKind::DisputeRaised { id, .. } => self.disputes = *id,
            EventKind::RulingGiven { id, dispute, .. } => self.rulings.push((*id, *dispute)),
            _ => {}
        }
        Ok(())
    }
}
