//! Rules 7b and 7c: a wrong move announced or pressed by the operator; penalties and forfeit.
use super::*;

impl Game {
    /// Decide a command of this family (dispatched by [`Game::decide`]).
    pub(super) fn decide_operator_errors(
        &self,
        cmd: &Command,
        now: Ms,
    ) -> Result<Vec<Event>, Refusal> {
        use Command as C;
        match cmd {
            C::WrongMove { played, correct } => self.decide_wrong_move(played, correct, now),
            C::ReleaseOwedMove { reason } => {
                self.playing()?;
                let Some(owed) = &self.owed_move else {
                    return refuse(
                        c::WRONG_MOVE_NOTIFY,
                        "no machine move is owed (7b): nothing to release",
                    );
                };
                self.one(
                    now,
                    Actor::Arbiter,
                    c::WRONG_MOVE_NOTIFY,
                    EventKind::OwedMoveReleased {
                        san: owed.san.clone(),
                        reason: reason.clone(),
                    },
                )
            }
            _ => refuse_state("not a command of this rule family"),
        }
    }

    /// Apply an event of this family (dispatched by [`Game::evolve`]).
    pub(super) fn evolve_operator_errors(&mut self, e: &Event) -> Result<(), Inconsistent> {
        if let EventKind::OwedMoveReleased { .. } = &e.kind {
            if self.owed_move.take().is_none() {
                return Err("owed_move_released with no move owed".into());
            }
            return Ok(());
        }
        if let EventKind::WrongMove {
            correct_uci,
            correct,
            pressed,
            infraction,
            penalty_ms,
            ..
        } = &e.kind
        {
            self.infractions = *infraction;
            if !*pressed {
                // 7b: the machine's move is owed; it is the only move accepted next.
                self.owed_move = Some(crate::core::board::RecordedMove {
                    san: correct.clone(),
                    uci: correct_uci.clone(),
                });
            }
            if *pressed {
                self.board.take_back(1)?;
                self.board.play(&crate::core::board::RecordedMove {
                    san: correct.clone(),
                    uci: correct_uci.clone(),
                })?;
                if let Some(h) = self.human_side() {
                    self.clock.add(h, *penalty_ms as i64);
                }
            }
        }
        Ok(())
    }

    pub(super) fn decide_wrong_move(
        &self,
        played: &str,
        correct: &str,
        now: Ms,
    ) -> Result<Vec<Event>, Refusal> {
        self.playing()?;
        self.no_pending_press(c::WRONG_MOVE_NOTIFY)?;
        let m = self.need_machine()?;
        let rules = self.profile.operator_errors.as_ref().ok_or_else(|| {
            Refusal::new(
                c::WRONG_MOVE_PRESSED,
                "this rules profile has no [operator_errors] section",
            )
        })?;
        if self.board.side_to_move() == m {
            // 7b: the wrong move is on the board but the clock was not pressed: nothing recorded yet.
            let ok = self.board.check(correct).map_err(|e| {
                Refusal::new(c::WRONG_MOVE_NOTIFY, format!("the machine's move: {e}"))
            })?;
            // The move played on the board must be a move of this position.
            let p = self
                .board
                .check(played)
                .map_err(|e| Refusal::new(c::WRONG_MOVE_NOTIFY, format!("the move played: {e}")))?;
            if p.uci == ok.uci {
                return refuse(
                    c::WRONG_MOVE_NOTIFY,
                    "the move played is the machine's move",
                );
            }
            let kind = EventKind::WrongMove {
                played: p.san,
                correct: ok.san,
                correct_uci: ok.uci,
                pressed: false,
                infraction: self.infractions,
                penalty_ms: 0,
                forfeit: false,
            };
            return Ok(vec![self.ev(
                now,
                Actor::Arbiter,
                c::WRONG_MOVE_NOTIFY,
                kind,
            )]);
        }
        // 7c: the wrong move was completed and the clock pressed: it is the last move recorded.
        let Some(last) = self.board.moves().last() else {
            return refuse(c::WRONG_MOVE_NOTIFY, "no move has been made");
        };
        let mut before = self.board.clone();
        before.take_back(1).map_err(Refusal::state)?;
        let p = before
            .check(played)
            .map_err(|e| Refusal::new(c::WRONG_MOVE_PRESSED, format!("the move played: {e}")))?;
        if p.uci != last.uci {
            return refuse(
                c::WRONG_MOVE_PRESSED,
                format!("the last move recorded is {}, not {played}", last.san),
            );
        }
        let ok = before
            .check(correct)
            .map_err(|e| Refusal::new(c::WRONG_MOVE_PRESSED, format!("the machine's move: {e}")))?;
        if ok.uci == p.uci {
            return refuse(
                c::WRONG_MOVE_PRESSED,
                "the move played is the machine's move",
            );
        }
        let infraction = self.infractions + 1;
        let forfeit = infraction >= rules.forfeit_at_infraction;
        let penalty = if forfeit {
            0
        } else {
            rules.wrong_move_penalty_seconds * 1000
        };
        let kind = EventKind::WrongMove {
            played: last.san.clone(),
            correct: ok.san,
            correct_uci: ok.uci,
            pressed: true,
            infraction,
            penalty_ms: penalty,
            forfeit,
        };
        Ok(vec![self.ev(
            now,
            Actor::Arbiter,
            c::WRONG_MOVE_PRESSED,
            kind,
        )])
    }
}
