//! Rules 6a-6l and 7e: moves entered and executed, clock corrections, takebacks, the machine's
//! internal clock (6c), parameters (6g, 6h, 6l).
use super::*;

impl Game {
    /// Decide a command of this family (dispatched by [`Game::decide`]).
    pub(super) fn decide_moves(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        use Command as C;
        match cmd {
            C::Move { text } => self.decide_move(text, now),
            C::Press => self.decide_press(now),
            C::CorrectClock {
                clause,
                side,
                delta,
                ms,
                reason,
            } => {
                self.playing()?;
                let side = self.resolve(side)?;
                let from = self.remaining(side, now);
                let (to, d) = if *delta {
                    (from.saturating_add(*ms), *ms)
                } else {
                    (*ms, ms.saturating_sub(from))
                };
                self.one(
                    now,
                    Actor::Arbiter,
                    clause,
                    EventKind::ClockCorrected {
                        side,
                        how: if *delta {
                            ClockSet::Delta
                        } else {
                            ClockSet::Remaining
                        },
                        from_ms: from,
                        to_ms: to,
                        delta_ms: d,
                        reason: reason.clone(),
                    },
                )
            }
            C::TakeBack {
                clause,
                plies,
                reason,
            } => {
                self.playing()?;
                if !matches!(self.stop, Some(Stop::Arbiter { .. })) {
                    return refuse(
                        *clause,
                        "stop the clocks first (arbiter stop), then take back, then correct the clocks and resume",
                    );
                }
                self.no_pending_press(clause)?;
                if *plies > self.board.plies() {
                    return refuse(
                        *clause,
                        format!("only {} moves are recorded", self.board.plies()),
                    );
                }
                let mut b = self.board.clone();
                let removed: Vec<Text> = b.moves()[b.plies() - plies..]
                    .iter()
                    .map(|m| m.san.clone())
                    .collect();
                b.take_back(*plies).map_err(Refusal::board)?;
                // A consultation in progress ends with the position it was about (9e).
                let mut out: Vec<Event> = self
                    .consultation_close(now, Actor::Kit)
                    .into_iter()
                    .collect();
                out.push(self.ev(
                    now,
                    Actor::Arbiter,
                    clause,
                    EventKind::MovesTakenBack {
                        plies: *plies,
                        removed,
                        reason: reason.as_str().into(),
                        fen: b.fen().map(Text::from),
                    },
                ));
                Ok(out)
            }
            C::ParamDecision { id, permit, reason } => {
                self.opened()?;
                let r = self.params.iter().find(|r| r.id == *id).ok_or_else(|| {
                    Refusal::new(
                        c::PARAMETER_CORRECTION,
                        format!("there is no parameter request {id}"),
                    )
                })?;
                if r.decided.is_some() {
                    return refuse(
                        c::PARAMETER_CORRECTION,
                        format!("request {id} is already decided"),
                    );
                }
                if !r.advised {
                    return refuse(
                        c::PARAMETER_CORRECTION,
                        format!(
                            "the arbiter decides after consulting the committee: committee advise {id} TEXT first"
                        ),
                    );
                }
                self.one(
                    now,
                    Actor::Arbiter,
                    c::PARAMETER_CORRECTION,
                    EventKind::ParameterDecided {
                        id: *id,
                        permitted: *permit,
                        reason: reason.clone(),
                    },
                )
            }
            C::InternalClock { reading_ms } => {
                self.playing()?;
                let m = self.need_machine()?;
                let game_clock = self.remaining(m, now);
                let threshold = self.sync_threshold_ms();
                let diff = *reading_ms as i64 - game_clock;
                let owed = self.profile.sync_rule() && diff.unsigned_abs() >= threshold;
                self.one(
                    now,
                    Actor::Operator,
                    c::INTERNAL_CLOCK,
                    EventKind::InternalClockReported {
                        reading_ms: *reading_ms,
                        game_clock_ms: game_clock,
                        diff_ms: diff,
                        threshold_ms: threshold,
                        correction_owed: owed,
                    },
                )
            }
            C::SyncInternalClock => {
                self.playing()?;
                let m = self.need_machine()?;
                // Without a sync rule nothing is owed, but the operator may still set the
                // engine's clock to the official one after reporting a difference.
                let voluntary = |r: &InternalReport| {
                    !self.profile.sync_rule()
                        && r.diff_ms.unsigned_abs() >= self.sync_threshold_ms()
                };
                match &self.internal {
                    Some(r) if r.owed || voluntary(r) => self.one(
                        now,
                        Actor::Operator,
                        c::INTERNAL_CLOCK,
                        EventKind::InternalClockCorrected {
                            from_ms: r.reading_ms,
                            to_ms: self.remaining(m, now),
                        },
                    ),
                    Some(_) => refuse(
                        c::NO_PARAMETER_CHANGE,
                        "no correction is owed under the declared algorithm (6c); other changes are not allowed (6h)",
                    ),
                    None => refuse(
                        c::INTERNAL_CLOCK,
                        "report the internal clock first: operator internal-clock H:MM:SS",
                    ),
                }
            }
            C::Param { name, value } => {
                self.opened()?;
                self.need_machine()?;
                if self.machine_has_moved {
                    return refuse(
                        c::NO_PARAMETER_CHANGE,
                        "the machine has made its first move: parameters may not be changed (6h); ask with operator param-request (6l)",
                    );
                }
                self.one(
                    now,
                    Actor::Operator,
                    c::BEFORE_FIRST_MOVE,
                    EventKind::ParameterSet {
                        name: name.clone(),
                        value: value.clone(),
                    },
                )
            }
            C::ParamRequest { name, reason } => {
                self.opened()?;
                self.need_machine()?;
                self.one(
                    now,
                    Actor::Operator,
                    c::PARAMETER_CORRECTION,
                    EventKind::ParameterRequested {
                        id: self.params.len() as u32 + 1,
                        name: name.clone(),
                        reason: reason.clone(),
                    },
                )
            }
            C::Advise { request, text } => {
                self.opened()?;
                match self.params.iter().find(|r| r.id == *request) {
                    Some(r) if r.decided.is_none() => self.one(
                        now,
                        Actor::Committee,
                        c::PARAMETER_CORRECTION,
                        EventKind::CommitteeAdvised {
                            request: *request,
                            text: text.clone(),
                        },
                    ),
                    Some(_) => refuse(
                        c::PARAMETER_CORRECTION,
                        format!("request {request} is already decided"),
                    ),
                    None => refuse(
                        c::PARAMETER_CORRECTION,
                        format!("there is no parameter request {request}"),
                    ),
                }
            }
            _ => refuse_state("not a command of this rule family"),
        }
    }

    /// Apply an event of this family (dispatched by [`Game::evolve`]).
    pub(super) fn evolve_moves(&mut self, e: &Event) -> Result<(), Inconsistent> {
        let at = e.at;
        match &e.kind {
            EventKind::ClockPressed {
                side,
                spent_ms,
                increment_ms,
                remaining_ms,
                ..
            } => {
                self.need_phase(Phase::Playing)?;
                if self.clock.running() != Some(*side) {
                    return Err(format!(
                        "{} pressed a clock that was not running",
                        self.side_label(*side)
                    )
                    .into());
                }
                let lost = self.press_clock(*side, at, *spent_ms, *increment_ms)?;
                let byoyomi_periods_lost = self.profile.byoyomi(*side).map(|_| lost);
                self.presses.push_back(super::Press {
                    side: *side,
                    at,
                    spent_ms: *spent_ms,
                    increment_ms: *increment_ms,
                    remaining_ms: *remaining_ms,
                    byoyomi_periods_lost,
                });
            }
            EventKind::MoveMade {
                side,
                san,
                uci,
                spent_ms,
                increment_ms,
                declines_draw,
                pressed_at,
                ..
            } => {
                self.need_phase(Phase::Playing)?;
                if *side != self.board.side_to_move() {
                    return Err(format!("{} moved out of turn", self.side_label(*side)).into());
                }
                self.owed_move = None;
                match pressed_at {
                    Some(t) => match self.presses.pop_front() {
                        Some(p) if p.side == *side && p.at == *t && p.spent_ms == *spent_ms => {}
                        _ => {
                            return Err(format!(
                                "the move names a press of {} at {t} ms that is not the next one awaiting its move",
                                self.side_label(*side)
                            )
                            .into());
                        }
                    },
                    None if self.retyping() => {
                        // 6d / 7e: typed again with the clocks stopped; the turn passes, stopped.
                        if *spent_ms != 0 || *increment_ms != 0 {
                            return Err(format!(
                                "a move typed again with the clocks stopped is charged {spent_ms} ms and given {increment_ms} ms"
                            )
                            .into());
                        }
                        self.retype -= 1;
                        self.clock.end_turn(at);
                        self.clock.start_turn(side.other(), at);
                        self.clock.stop(at);
                    }
                    None => {
                        if !self.presses.is_empty() {
                            return Err(
                                "a move pressed at once while presses await their moves".into()
                            );
                        }
                        self.press_clock(*side, at, *spent_ms, *increment_ms)?;
                    }
                }
                self.board.play_owned(crate::core::board::RecordedMove {
                    san: san.clone(),
                    uci: uci.clone(),
                })?;
                if self.machine_side() == Some(*side) {
                    self.machine_has_moved = true;
                    if let Some(o) = self.offer.as_mut().filter(|o| o.answered.is_none()) {
                        o.answered = Some(false);
                    }
                } else if let Some(o) = self.machine_offer.as_mut().filter(|o| o.answered.is_none())
                {
                    o.answered = Some(false);
                }
                let _ = declines_draw;
            }
            EventKind::SyncNotMade { .. } => {
                // Recorded as not made; the arbiter decides. The report is spent.
                if let Some(r) = self.internal.as_mut() {
                    r.owed = false;
                }
            }
            EventKind::InternalClockReported {
                reading_ms,
                game_clock_ms,
                diff_ms,
                correction_owed,
                ..
            } => {
                self.internal = Some(InternalReport {
                    at,
                    reading_ms: *reading_ms,
                    game_clock_ms: *game_clock_ms,
                    diff_ms: *diff_ms,
                    owed: *correction_owed,
                });
            }
            EventKind::InternalClockCorrected { .. } => {
                if let Some(r) = self.internal.as_mut() {
                    r.owed = false;
                }
            }
            EventKind::ClockCorrected { side, delta_ms, .. } => self.clock.add(*side, *delta_ms),
            EventKind::MovesTakenBack { plies, .. } => {
                self.owed_move = None;
                self.retype = self.retype.saturating_add(*plies);
                self.clock.end_turn(at);
                self.board.take_back(*plies)?;
                self.clock.turn = Some(crate::core::clock::Turn {
                    side: self.board.side_to_move(),
                    banked: 0,
                    since: None,
                });
                self.offer = None;
                self.machine_offer = None;
            }
            EventKind::ParameterSet { .. } => {}
            EventKind::ParameterRequested { id, name, .. } => self.params.push(ParamRequest {
                id: *id,
                name: name.clone(),
                advised: false,
                decided: None,
            }),
            EventKind::CommitteeAdvised { request, .. } => {
                if let Some(r) = self.params.iter_mut().find(|r| r.id == *request) {
                    r.advised = true;
                }
            }
            EventKind::ParameterDecided { id, permitted, .. } => {
                if let Some(r) = self.params.iter_mut().find(|r| r.id == *id) {
                    r.decided = Some(*permitted);
                }
            }
            _ => {}
        }
        Ok(())
    }

    pub(super) fn decide_move(&self, text: &str, now: Ms) -> Result<Vec<Event>, Refusal> {
        self.playing()?;
        let side = self.board.side_to_move();
        let press = self.presses.front();
        let retyped = press.is_none() && self.retyping();
        if press.is_none() && !retyped {
            // The move and its press are one act: the clock must run.
            self.clock_must_run()?;
        }
        let mv = self.board.check(text).map_err(|m| match press {
            // The clock was pressed for a move the typed text does not name: most often a typo.
            // Nothing is recorded and the press stands; the move is typed again. Only the arbiter,
            // seeing the board, decides whether the move played is illegal (FIDE Laws, rule 2).
            Some(p) => Refusal::new(
                c::LAWS,
                format!(
                    "{m}: nothing recorded — {} pressed the clock at {} for a move still to be typed; type it again",
                    p.side,
                    crate::core::timefmt::clock(i64::try_from(p.at).unwrap_or(i64::MAX))
                ),
            ),
            None => Refusal::new(c::LAWS, m.to_string()),
        })?;
        if let Some(owed) = &self.owed_move
            && owed.uci != mv.uci
        {
            return refuse(
                c::WRONG_MOVE_NOTIFY,
                format!(
                    "the arbiter recorded the machine's move as {} (7b): only it is accepted now, not {} (the arbiter may allow another: arbiter release-move REASON)",
                    owed.san, mv.san
                ),
            );
        }
        let mut after = self.board.clone();
        after.play(&mv).map_err(Refusal::board)?;
        let declines_draw = if self.machine_side() == Some(side) {
            self.offer.as_ref().is_some_and(|o| o.answered.is_none())
        } else {
            self.machine_offer
                .as_ref()
                .is_some_and(|o| o.answered.is_none())
        };
        let clause = self.move_clause(side);
        if let Some(p) = press {
            // The notation of a press already recorded: the clock's figures are the press's.
            let kind = EventKind::MoveMade {
                side,
                san: mv.san,
                uci: mv.uci,
                spent_ms: p.spent_ms,
                increment_ms: p.increment_ms,
                remaining_ms: p.remaining_ms,
                fen: after.fen().map(Text::from),
                declines_draw,
                pressed_at: Some(p.at),
                byoyomi_periods_lost: p.byoyomi_periods_lost,
                // The press already counted the lost periods: what the clock has left now.
                byoyomi_periods_left: self.clock.byoyomi_left(&self.profile, side),
            };
            let mut out = vec![self.ev(now, Actor::Operator, clause, kind)];
            out.extend(self.sync_not_made(side, now));
            return Ok(out);
        }
        let mut f = self.press_figures(side, now);
        if retyped {
            // 6d / 7e: a move taken back, typed again with the clocks stopped: its time and its
            // increment were counted when it was first pressed.
            f.remaining = f
                .remaining
                .saturating_sub(i64::try_from(f.increment).unwrap_or(0));
            f.increment = 0;
        }
        let (byoyomi_periods_lost, byoyomi_periods_left) = self.byoyomi_figures(side, &f);
        let kind = EventKind::MoveMade {
            side,
            san: mv.san,
            uci: mv.uci,
            spent_ms: f.spent,
            increment_ms: f.increment,
            remaining_ms: f.remaining,
            fen: after.fen().map(Text::from),
            declines_draw,
            pressed_at: None,
            byoyomi_periods_lost,
            byoyomi_periods_left,
        };
        let mut out = vec![self.ev(now, Actor::Operator, clause, kind)];
        out.extend(self.sync_not_made(side, now));
        Ok(out)
    }

    /// 6c: the machine's move entered while a correction of its internal clock is owed: recorded
    /// as not made, for the arbiter to decide.
    fn sync_not_made(&self, side: Side, now: Ms) -> Option<Event> {
        let r = self.internal.as_ref().filter(|r| r.owed)?;
        (self.machine_side() == Some(side)).then(|| {
            let threshold = self.sync_threshold_ms();
            self.ev(
                now,
                Actor::Kit,
                c::INTERNAL_CLOCK,
                EventKind::SyncNotMade {
                    diff_ms: r.diff_ms,
                    reported_at: r.at,
                    threshold_ms: threshold,
                },
            )
        })
    }

    /// The clock's side of a press: the turn ends, its time checked against the entry's, the
    /// increment added, the opponent's turn begins.
    fn press_clock(
        &mut self,
        side: Side,
        at: Ms,
        spent_ms: Ms,
        increment_ms: Ms,
    ) -> Result<u32, Inconsistent> {
        let elapsed = self.clock.turn_elapsed(side, at);
        let f = self
            .clock
            .move_figures(&self.profile, side, self.moves_of(side), elapsed);
        if f.spent != spent_ms {
            return Err(format!(
                "the move's time is {} ms by the clock, the entry says {spent_ms} ms",
                f.spent
            )
            .into());
        }
        self.clock.end_turn_with(&f, increment_ms);
        self.clock.start_turn(side.other(), at);
        Ok(f.periods_lost)
    }

    /// The clause a side's move is recorded under.
    fn move_clause(&self, side: Side) -> &'static str {
        match self.player(side).map(|p| p.kind) {
            Some(PlayerKind::Machine) => c::EXECUTE_MACHINE_MOVE,
            Some(PlayerKind::Human) => c::ENTER_HUMAN_MOVE,
            None => c::TIME_CONTROL,
        }
    }

    /// The figures of a press by `side` at `now`: time charged, increment, remaining after.
    fn press_figures(&self, side: Side, now: Ms) -> crate::core::clock::MoveFigures {
        self.clock.move_figures(
            &self.profile,
            side,
            self.moves_of(side),
            self.clock.turn_elapsed(side, now),
        )
    }

    /// The byo-yomi periods a move with figures `f` loses and leaves (None without
    /// byo-yomi).
    fn byoyomi_figures(
        &self,
        side: Side,
        f: &crate::core::clock::MoveFigures,
    ) -> (Option<u32>, Option<u32>) {
        match self.clock.byoyomi_left(&self.profile, side) {
            Some(left) => (
                Some(f.periods_lost),
                Some(left.saturating_sub(f.periods_lost)),
            ),
            None => (None, None),
        }
    }

    /// 4a / 6b: the side whose clock runs presses it; its move's notation follows.
    pub(super) fn decide_press(&self, now: Ms) -> Result<Vec<Event>, Refusal> {
        /// Presses that may wait for their notation at once.
        const MAX_PENDING: usize = 4;
        self.playing()?;
        self.clock_must_run()?;
        let Some(side) = self.clock.running() else {
            return refuse_state("no clock is running");
        };
        if self.presses.len() >= MAX_PENDING {
            return refuse(
                c::ENTER_HUMAN_MOVE,
                format!(
                    "{MAX_PENDING} presses already await their moves: enter the moves first (move SAN)"
                ),
            );
        }
        let f = self.press_figures(side, now);
        let (byoyomi_periods_lost, byoyomi_periods_left) = self.byoyomi_figures(side, &f);
        let clause = self.move_clause(side);
        // The operator presses for the machine; the human's own key is read by the kit.
        let actor = if self.machine_side() == Some(side) {
            Actor::Operator
        } else {
            Actor::Kit
        };
        Ok(vec![self.ev(
            now,
            actor,
            clause,
            EventKind::ClockPressed {
                side,
                spent_ms: f.spent,
                increment_ms: f.increment,
                remaining_ms: f.remaining,
                byoyomi_periods_lost,
                byoyomi_periods_left,
            },
        )])
    }
}
