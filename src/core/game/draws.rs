//! Rule 9: draw offers and answers (9a, 9d), resignation (9b), the team (9c) and the ten-minute
//! consultation (9e).
use super::*;

impl Game {
    /// Decide a command of this family (dispatched by [`Game::decide`]).
    pub(super) fn decide_draws(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        use Command as C;
        match cmd {
            C::Consult { with } => {
                self.playing()?;
                self.need_machine()?;
                let o = self.offer.as_ref().ok_or_else(|| {
                    Refusal::new(
                        c::CONSULTATION,
                        "there is no draw offer from the human to consider",
                    )
                })?;
                if o.limit_reached {
                    return refuse(
                        c::CONSULTATION,
                        "the ten minutes of consultation on this offer are used up",
                    );
                }
                if o.consulting.is_some() {
                    return refuse(c::CONSULTATION, "a consultation is already in progress");
                }
                let team = self
                    .decl
                    .as_ref()
                    .map(|d| d.team.clone())
                    .unwrap_or_default();
                let strangers: Vec<&String> = with
                    .iter()
                    .filter(|n| !team.iter().any(|t| t.eq_ignore_ascii_case(n)))
                    .collect();
                if !strangers.is_empty() {
                    let names: Vec<&str> = strangers.iter().map(|s| s.as_str()).collect();
                    return refuse(
                        c::TEAM,
                        format!(
                            "not registered as machine team members before the game: {}",
                            names.join(", ")
                        ),
                    );
                }
                self.one(
                    now,
                    Actor::Operator,
                    c::CONSULTATION,
                    EventKind::ConsultationStarted { with: with.clone() },
                )
            }
            C::ConsultEnd => {
                self.playing()?;
                match self.consultation_close(now, Actor::Operator) {
                    Some(e) => Ok(vec![e]),
                    None => refuse(c::CONSULTATION, "no consultation is in progress"),
                }
            }
            C::AcceptDraw => {
                self.playing()?;
                let m = self.need_machine()?;
                if self.offer.as_ref().is_none_or(|o| o.answered.is_some()) {
                    return refuse(
                        c::DRAW_ANSWER,
                        "there is no unanswered draw offer from the human",
                    );
                }
                let mut out: Vec<Event> = self
                    .consultation_close(now, Actor::Operator)
                    .into_iter()
                    .collect();
                let detail = format!(
                    "{} ({}) accepted the human's draw offer",
                    self.player(m).map_or("the machine", |p| p.name.as_str()),
                    m
                );
                out.push(self.ev(
                    now,
                    Actor::Operator,
                    c::DRAW_ANSWER,
                    self.ended(Score::Draw, Termination::DrawAgreed, detail),
                ));
                Ok(out)
            }
            C::DeclineDraw => {
                self.playing()?;
                let m = self.need_machine()?;
                if self.offer.as_ref().is_none_or(|o| o.answered.is_some()) {
                    return refuse(
                        c::DRAW_ANSWER,
                        "there is no unanswered draw offer from the human",
                    );
                }
                self.one(
                    now,
                    Actor::Operator,
                    c::DRAW_ANSWER,
                    EventKind::DrawDeclined {
                        by: m,
                        how: DeclineHow::Declined,
                    },
                )
            }
            C::OfferDraw { justification } => self.decide_machine_offer(justification, now),
            C::Resign => {
                self.playing()?;
                let m = self.need_machine()?;
                self.one(
                    now,
                    Actor::Operator,
                    c::RESIGN,
                    self.ended(
                        Score::win_for(m.other()),
                        Termination::Resignation,
                        format!("the machine ({}) resigned", self.side_label(m)),
                    ),
                )
            }
            C::HumanResign => {
                self.playing()?;
                let h = self.need_human()?;
                self.one(
                    now,
                    Actor::Arbiter,
                    // 9b is the operator's discretion; the human resigns under the FIDE Laws (rule 2).
                    c::LAWS,
                    self.ended(
                        Score::win_for(h.other()),
                        Termination::Resignation,
                        format!("the human ({}) resigned", self.side_label(h)),
                    ),
                )
            }
            C::HumanOfferDraw => {
                self.playing()?;
                let h = self.need_human()?;
                self.need_machine()?;
                // FIDE Laws 9.1.2: the offer belongs with the move, but one made at another time
                // (on his own turn, before his move) is still valid; it stands until answered.
                if self
                    .offer
                    .as_ref()
                    .is_some_and(|o| o.ply == self.board.plies())
                {
                    return refuse(
                        c::CONSULTATION,
                        "a draw offer was already made with this move",
                    );
                }
                // FIDE Laws 9.1.2: the machine's offer stands until the human accepts it, rejects
                // it orally or by touching a piece, or the game ends. A counter-offer is none of
                // these (the Laws do not make it an acceptance), so it is not recorded as an
                // offer of its own: the arbiter records the answer the human gave.
                if self
                    .machine_offer
                    .as_ref()
                    .is_some_and(|o| o.answered.is_none())
                {
                    return refuse(
                        c::LAWS,
                        "the machine's draw offer stands until the human accepts or rejects it \
                         (FIDE Laws 9.1.2): a counter-offer is neither; record his answer \
                         (human accept-draw or human decline-draw)",
                    );
                }
                let mut out: Vec<Event> = self
                    .consultation_close(now, Actor::Kit)
                    .into_iter()
                    .collect();
                out.push(self.ev(
                    now,
                    Actor::Arbiter,
                    c::CONSULTATION,
                    EventKind::DrawOffered {
                        by: h,
                        justification: None,
                    },
                ));
                Ok(out)
            }
            C::HumanAcceptDraw => {
                let h = self.machine_offer_to_answer()?;
                self.one(
                    now,
                    Actor::Arbiter,
                    c::MACHINE_DRAW_OFFER,
                    self.ended(
                        Score::Draw,
                        Termination::DrawAgreed,
                        format!("the human ({h}) accepted the machine's draw offer"),
                    ),
                )
            }
            C::HumanDeclineDraw => {
                let h = self.machine_offer_to_answer()?;
                self.one(
                    now,
                    Actor::Arbiter,
                    c::MACHINE_DRAW_OFFER,
                    EventKind::DrawDeclined {
                        by: h,
                        how: DeclineHow::Declined,
                    },
                )
            }
            _ => refuse_state("not a command of this rule family"),
        }
    }

    /// Apply an event of this family (dispatched by [`Game::evolve`]).
    pub(super) fn evolve_draws(&mut self, e: &Event) -> Result<(), Inconsistent> {
        let at = e.at;
        match &e.kind {
            EventKind::DrawOffered { by, justification } => {
                if self.human_side() == Some(*by) {
                    self.offer = Some(HumanOffer {
                        offered_at: at,
                        ply: self.board.plies(),
                        answered: None,
                        consult_used: 0,
                        consulting: None,
                        limit_reached: false,
                    });
                } else {
                    self.machine_offer = justification.clone().map(|j| MachineOffer {
                        at,
                        ply: self.board.plies(),
                        justification: j,
                        answered: None,
                    });
                }
            }
            EventKind::ConsultationStarted { with } => {
                if let Some(o) = self.offer.as_mut() {
                    o.consulting = Some((at, with.clone()));
                }
            }
            EventKind::ConsultationEnded {
                total_ms,
                limit_reached,
                ..
            } => {
                if let Some(o) = self.offer.as_mut() {
                    o.consult_used = *total_ms;
                    o.consulting = None;
                    o.limit_reached |= *limit_reached;
                }
            }
            EventKind::DrawDeclined { by, .. } => {
                if self.machine_side() == Some(*by) {
                    if let Some(o) = self.offer.as_mut() {
                        o.answered = Some(false);
                    }
                } else if let Some(o) = self.machine_offer.as_mut() {
                    o.answered = Some(false);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// FIDE Laws 9.1.2: the move (its 0-based ply) a draw offer by `by` made now goes with: the
    /// offerer's own move — the one he pressed the clock for whose notation is still to come,
    /// else, on his turn, the move he is about to make, else the move he has just made.
    pub fn draw_offer_ply(&self, by: Side) -> usize {
        let plies = self.board.plies();
        if let Some(k) = self.presses.iter().position(|p| p.side == by) {
            return plies + k;
        }
        let pending = self.presses.len();
        let stm = self.board.side_to_move();
        let to_move = if pending.is_multiple_of(2) {
            stm
        } else {
            stm.other()
        };
        if to_move == by {
            plies + pending
        } else {
            (plies + pending).saturating_sub(1)
        }
    }

    /// When the current consultation reaches the 9e limit.
    pub fn consultation_limit_at(&self) -> Option<Ms> {
        let limit = self
            .profile
            .draw_offers
            .as_ref()?
            .consultation_limit_seconds
            * 1000;
        let o = self.offer.as_ref()?;
        let (since, _) = o.consulting.as_ref()?;
        Some(since.saturating_add(limit.saturating_sub(o.consult_used)))
    }

    /// Consultation time used so far on the current offer at `now`.
    pub fn consultation_used(&self, now: Ms) -> Option<Ms> {
        let o = self.offer.as_ref()?;
        Some(
            o.consult_used
                + o.consulting
                    .as_ref()
                    .map_or(0, |(s, _)| now.saturating_sub(*s)),
        )
    }

    /// The human's side, when the machine's draw offer awaits his answer.
    pub(super) fn machine_offer_to_answer(&self) -> Result<Side, Refusal> {
        self.playing()?;
        let h = self.need_human()?;
        if self
            .machine_offer
            .as_ref()
            .is_none_or(|o| o.answered.is_some())
        {
            return refuse(
                c::MACHINE_DRAW_OFFER,
                "there is no unanswered draw offer from the machine",
            );
        }
        Ok(h)
    }

    /// The event that closes a consultation in progress at `now`, if one is.
    pub(super) fn consultation_close(&self, now: Ms, actor: Actor) -> Option<Event> {
        let o = self.offer.as_ref()?;
        let (since, _) = o.consulting.as_ref()?;
        let used = now.saturating_sub(*since);
        Some(Event::new(
            now,
            actor,
            c::CONSULTATION,
            EventKind::ConsultationEnded {
                used_ms: used,
                total_ms: o.consult_used + used,
                limit_reached: false,
            },
        ))
    }

    pub(super) fn decide_machine_offer(
        &self,
        j: &Justification,
        now: Ms,
    ) -> Result<Vec<Event>, Refusal> {
        self.playing()?;
        let m = self.need_machine()?;
        if let Some(r) = &self.profile.match_rules
            && r.draw_offers_by == crate::core::rules::DrawOffersBy::Human
        {
            return refuse(
                c::MACHINE_DRAW_OFFER,
                format!(
                    "under these match rules ({}, clause {}) only the human may offer a draw",
                    self.profile.profile.name, r.clause
                ),
            );
        }
        let rules = self.profile.draw_offers.as_ref().ok_or_else(|| {
            Refusal::new(
                c::MACHINE_DRAW_OFFER,
                "this rules profile has no [draw_offers] section",
            )
        })?;
        if self.offer.as_ref().is_some_and(|o| o.answered.is_none()) {
            return refuse(
                c::DRAW_ANSWER,
                "the human's draw offer stands until it is accepted or rejected (FIDE Laws 9.1.2): \
                 a counter-offer is neither; answer it first (operator accept-draw or decline-draw)",
            );
        }
        let just_moved = self.last_was_machine_move;
        if self
            .machine_offer
            .as_ref()
            .is_some_and(|o| o.ply == self.board.plies() && o.answered.is_none())
        {
            return refuse(
                c::MACHINE_DRAW_OFFER,
                "a draw offer was already made with this move",
            );
        }
        if self.board.side_to_move() != m && !just_moved {
            return refuse(
                c::MACHINE_DRAW_OFFER,
                "the machine offers a draw when making its move: before it, or right after it, not later",
            );
        }
        match j {
            Justification::Eval { cp }
                if cp.unsigned_abs() > rules.near_draw_threshold_cp.unsigned_abs() =>
            {
                return refuse(
                    c::MACHINE_DRAW_OFFER,
                    format!(
                        "the machine shows {cp} cp, outside the near-draw range of ±{} cp: no draw offer",
                        rules.near_draw_threshold_cp
                    ),
                );
            }
            Justification::Repetition { line } if line.trim().is_empty() => {
                return refuse(c::MACHINE_DRAW_OFFER, "give the repetition line shown");
            }
            Justification::Repetition { line } => self.check_repetition_line(line)?,
            _ => {}
        }
        Ok(vec![self.ev(
            now,
            Actor::Operator,
            c::MACHINE_DRAW_OFFER,
            EventKind::DrawOffered {
                by: m,
                justification: Some(j.clone()),
            },
        )])
    }

    /// 9d: the line the machine shows must be legal from the current position and reach a
    /// position that has occurred before (in the game or along the line). Move numbers (`12.`,
    /// `12...`) are skipped.
    fn check_repetition_line(&self, line: &str) -> Result<(), Refusal> {
        let mut b = self.board.clone();
        let mut repeats = false;
        let moves = line
            .split_whitespace()
            .filter(|w| !w.trim_end_matches('.').chars().all(|c| c.is_ascii_digit()));
        for (i, w) in moves.enumerate() {
            let mv = b.check(w).map_err(|e| {
                Refusal::new(
                    c::MACHINE_DRAW_OFFER,
                    format!("the repetition line, move {} '{w}': {e}", i + 1),
                )
            })?;
            b.play(&mv).map_err(Refusal::board)?;
            repeats |= b.repetitions() >= 2;
        }
        if !repeats {
            return refuse(
                c::MACHINE_DRAW_OFFER,
                "the line shown reaches no position that occurred before: not a repetition",
            );
        }
        Ok(())
    }
}
