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
            C::WrongMove {
                played,
                correct,
                number,
            } => match number {
                Some(n) => self.decide_wrong_move_found_later(*n, played, correct, now),
                None => self.decide_wrong_move(played, correct, now),
            },
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
                        san: owed.san.to_string(),
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
                    san: correct.as_str().into(),
                    uci: correct_uci.as_str().into(),
                });
            }
            if *pressed {
                self.board.take_back(1)?;
                self.board.play(&crate::core::board::RecordedMove {
                    san: correct.as_str().into(),
                    uci: correct_uci.as_str().into(),
                })?;
                if let Some(h) = self.human_side() {
                    self.clock.add(h, *penalty_ms as i64);
                }
            }
        }
        Ok(())
    }

    /// What every 7b/7c command needs first: a game in play, no press awaiting its notation
    /// (refused under `pending_clause`), the machine's side and the profile's [operator_errors].
    fn wrong_move_prelude(
        &self,
        pending_clause: &'static str,
    ) -> Result<(Side, &crate::core::rules::OperatorErrors), Refusal> {
        self.playing()?;
        self.no_pending_press(pending_clause)?;
        let m = self.need_machine()?;
        let rules = self.profile.operator_errors.as_ref().ok_or_else(|| {
            Refusal::new(
                c::WRONG_MOVE_PRESSED,
                "this rules profile has no [operator_errors] section",
            )
        })?;
        Ok((m, rules))
    }

    pub(super) fn decide_wrong_move(
        &self,
        played: &str,
        correct: &str,
        now: Ms,
    ) -> Result<Vec<Event>, Refusal> {
        let (m, rules) = self.wrong_move_prelude(c::WRONG_MOVE_NOTIFY)?;
        if self.board.side_to_move() == m {
            // 7b: the wrong move is on the board but the clock was not pressed: nothing recorded yet.
            let ok = self.board.check(correct).map_err(|e| {
                Refusal::new(c::WRONG_MOVE_NOTIFY, format!("the machine's move: {e}"))
            })?;
            // The move played on the board must be a move of this position.
            let p = self.board.check(played).map_err(|e| {
                match self.earlier_machine_move(m, played) {
                    // 7c found after the human replied: the arbiter names the move.
                    Some(n) => Refusal::new(
                        c::WRONG_MOVE_PRESSED,
                        format!(
                            "{played} is the machine's move {n}, already pressed and answered: \
                             stop the clocks and say arbiter wrong-move {n} {played} {correct}"
                        ),
                    ),
                    None => Refusal::new(c::WRONG_MOVE_NOTIFY, format!("the move played: {e}")),
                }
            })?;
            if p.uci == ok.uci {
                return refuse(
                    c::WRONG_MOVE_NOTIFY,
                    "the move played is the machine's move",
                );
            }
            let kind = EventKind::WrongMove {
                played: p.san.into(),
                correct: ok.san.into(),
                correct_uci: ok.uci.into(),
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
        // The human to move: the machine's last move is the one pressed. An earlier move of the
        // machine was answered already (7c found after the reply): the arbiter names its number.
        let want = crate::core::board::normalise_notation(played);
        let want = want.trim_end_matches(['+', '#']);
        let is_last = self
            .board
            .moves()
            .last()
            .is_some_and(|x| x.san.trim_end_matches(['+', '#']) == want || x.uci == want);
        if !is_last && let Some(n) = self.earlier_machine_move(m, played) {
            return refuse(
                c::WRONG_MOVE_PRESSED,
                format!(
                    "{played} is the machine's move {n}, already pressed and answered: \
                     stop the clocks and say arbiter wrong-move {n} {played} {correct}"
                ),
            );
        }
        self.wrong_move_pressed(&self.board, played, correct, rules, now)
            .map(|e| vec![e])
    }

    /// 7c found after the human replied: the arbiter names the machine's move number `n`. With the
    /// clocks stopped, the moves after it are taken back (7c: the move is corrected on the board)
    /// and the wrong move is recorded as an infraction like any other: the penalty and the
    /// forfeit count apply. The time of the moves taken back stays on their sides' clocks.
    pub(super) fn decide_wrong_move_found_later(
        &self,
        n: u32,
        played: &str,
        correct: &str,
        now: Ms,
    ) -> Result<Vec<Event>, Refusal> {
        let (m, rules) = self.wrong_move_prelude(c::WRONG_MOVE_PRESSED)?;
        let numbering = self.board.numbering();
        let plies = self.board.plies();
        let Some(ply) = numbering.ply_of(m, n).filter(|p| *p < plies) else {
            // The machine's moves as the scoresheet numbers them (from Black's `1...` when Black
            // moved first).
            let numbers = (0..plies)
                .filter(|p| numbering.side(*p) == m)
                .map(|p| numbering.number(p))
                .collect::<Vec<_>>();
            let made = match (numbers.first(), numbers.last()) {
                (Some(a), Some(b)) if a == b => format!("its move {a}"),
                (Some(a), Some(b)) => format!("its moves {a} to {b}"),
                _ => "no move yet".to_string(),
            };
            return refuse(
                c::WRONG_MOVE_PRESSED,
                format!("the machine ({m}) has made {made}: there is no move {n} to correct"),
            );
        };
        let after = plies - ply - 1;
        if after == 0 {
            return self
                .wrong_move_pressed(&self.board, played, correct, rules, now)
                .map(|e| vec![e]);
        }
        if !matches!(self.stop, Some(Stop::Arbiter { .. })) {
            return refuse(
                c::WRONG_MOVE_PRESSED,
                format!(
                    "{after} move(s) were made after move {n}: stop the clocks first (arbiter stop); \
                     they are taken back with the correction"
                ),
            );
        }
        let mut b = self.board.clone();
        let removed: Vec<Text> = b.moves()[ply + 1..].iter().map(|x| x.san.clone()).collect();
        b.take_back(after).map_err(Refusal::board)?;
        let wrong = self.wrong_move_pressed(&b, played, correct, rules, now)?;
        let mut out: Vec<Event> = self
            .consultation_close(now, Actor::Kit)
            .into_iter()
            .collect();
        let (p, ok) = match &wrong.kind {
            EventKind::WrongMove {
                played, correct, ..
            } => (played.clone(), correct.clone()),
            _ => (played.to_string(), correct.to_string()),
        };
        out.push(
            self.ev(
                now,
                Actor::Arbiter,
                c::WRONG_MOVE_PRESSED,
                EventKind::MovesTakenBack {
                    plies: after,
                    removed,
                    reason: format!(
                        "the machine's move {n} was {p} on the board, not its move {ok}: the moves \
                     after it are taken back to correct it"
                    )
                    .into(),
                    fen: b.fen().map(Text::from),
                },
            ),
        );
        out.push(wrong);
        Ok(out)
    }

    /// The number of the machine's latest move on the board written `played` (SAN as recorded,
    /// or UCI), if any.
    fn earlier_machine_move(&self, m: Side, played: &str) -> Option<u32> {
        let want = crate::core::board::normalise_notation(played);
        let want = want.trim_end_matches(['+', '#']);
        let numbering = self.board.numbering();
        self.board
            .moves()
            .iter()
            .enumerate()
            .rev()
            .filter(|(ply, _)| numbering.side(*ply) == m)
            .find(|(_, x)| x.san.trim_end_matches(['+', '#']) == want || x.uci == want)
            .map(|(ply, _)| numbering.number(ply))
    }

    /// 7c on `board`: its last move is the wrong move `played`, completed and pressed; the
    /// machine's move `correct` replaces it.
    fn wrong_move_pressed(
        &self,
        board: &crate::core::board::Board,
        played: &str,
        correct: &str,
        rules: &crate::core::rules::OperatorErrors,
        now: Ms,
    ) -> Result<Event, Refusal> {
        // 7c: the wrong move was completed and the clock pressed: it is the last move recorded.
        let Some(last) = board.moves().last() else {
            return refuse(c::WRONG_MOVE_NOTIFY, "no move has been made");
        };
        let mut before = board.clone();
        before.take_back(1).map_err(Refusal::board)?;
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
            played: last.san.to_string(),
            correct: ok.san.into(),
            correct_uci: ok.uci.into(),
            pressed: true,
            infraction,
            penalty_ms: penalty,
            forfeit,
        };
        Ok(self.ev(now, Actor::Arbiter, c::WRONG_MOVE_PRESSED, kind))
    }
}
