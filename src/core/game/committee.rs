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
                if self.phase == Phase::Ended {
                    return self.decide_after_result(*ruling, *score, reason, now);
                }
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

    /// 12c: the committee's ruling binds the arbiter, after the result as before it. `arbiter
    /// decide RULING SCORE REASON` on an ended game records a new result citing 12c, naming the
    /// ruling and the result it replaces; the game's end (its time, for rule 13's deadlines) stays.
    fn decide_after_result(
        &self,
        ruling: u32,
        score: Score,
        reason: &str,
        now: Ms,
    ) -> Result<Vec<Event>, Refusal> {
        if !self.rulings.iter().any(|(r, _)| *r == ruling) {
            return refuse(
                c::COMMITTEE_BINDS,
                format!(
                    "there is no ruling {ruling}: a result recorded is changed only on the \
                     committee's ruling (12c); record it first (committee ruling DISPUTE TEXT)"
                ),
            );
        }
        let Some(old) = &self.outcome else {
            return refuse_state("the game is over but records no result");
        };
        if old.score == score {
            return refuse(
                c::COMMITTEE_BINDS,
                format!(
                    "the result is already {} ({}): a ruling that upholds it changes nothing \
                     (the ruling itself is in the log)",
                    score.text(),
                    old.detail
                ),
            );
        }
        if reason.trim().is_empty() {
            return refuse(c::COMMITTEE_BINDS, "give the reason for the new result");
        }
        self.one(
            now,
            Actor::Arbiter,
            c::COMMITTEE_BINDS,
            EventKind::GameEnded {
                score,
                termination: Termination::ArbiterDecision,
                detail: format!(
                    "{reason} (on the committee's ruling {ruling}, which binds the arbiter (12c): \
                     the result {} recorded earlier ({}) is replaced)",
                    old.score.text(),
                    old.detail
                ),
                fen: self.board.fen(),
                ruling: Some(ruling),
            },
        )
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
