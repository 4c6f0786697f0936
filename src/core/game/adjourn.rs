//! Rules of adjournment and breaks (a profile's `[adjournment]`): the game adjourned
//! with the move open or sealed (committed by the SHA-256 of `MOVE NONCE`, revealed at resumption
//! and checked), both clocks stopped at the adjournment and restored exactly at resumption, and
//! the engine stopped meanwhile when the profile bars it from thinking (the operator records it).
use sha2::{Digest, Sha256};

use super::*;

/// An adjournment in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Adjourned {
    pub since: Ms,
    /// The side to move, whose move is open or sealed.
    pub side: Side,
    pub sealed_sha256: Option<String>,
    /// The operator recorded that the engine was stopped.
    pub engine_stopped: bool,
}

/// The commitment to a sealed move: hex SHA-256 of `MOVE NONCE`.
pub fn seal(mv: &str, nonce: &str) -> String {
    let d = Sha256::digest(format!("{mv} {nonce}").as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

impl Game {
    /// The adjournment in progress, if any.
    pub fn adjourned(&self) -> Option<&Adjourned> {
        self.adjourned.as_ref()
    }

    fn adjournment_rules(&self) -> Result<&crate::core::rules::Adjournment, Refusal> {
        self.profile.adjournment.as_ref().ok_or_else(|| {
            Refusal::new(
                c::ARBITER,
                "these rules provide no adjournment (the profile has no [adjournment])",
            )
        })
    }

    /// Decide a command of this family (dispatched by [`Game::decide`]).
    pub(super) fn decide_adjourn(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        match cmd {
            Command::Adjourn { sealed_sha256 } => {
                self.playing()?;
                let rules = self.adjournment_rules()?;
                self.clock_must_run()?;
                self.no_pending_press(c::ARBITER)?;
                let side = self.clock_side();
                let number = self.moves_of(side).saturating_add(1);
                if let Some(after) = rules.after_move {
                    let moved = self.moves_of(Side::White).max(self.moves_of(Side::Black));
                    let played = now.saturating_sub(self.session_since.unwrap_or(now));
                    let hours_passed = rules
                        .after_hours
                        .is_some_and(|h| played >= Ms::from(h).saturating_mul(3_600_000));
                    if moved < after && !hours_passed {
                        let or_hours = match rules.after_hours {
                            Some(h) => format!(
                                " or after {h} hours of play ({} played since play began)",
                                crate::core::timefmt::clock(
                                    i64::try_from(played).unwrap_or(i64::MAX)
                                )
                            ),
                            None => String::new(),
                        };
                        return refuse(
                            c::ARBITER,
                            format!(
                                "the game may be adjourned only after move {after}{or_hours} ({}, clause {})",
                                self.profile.profile.name, rules.clause
                            ),
                        );
                    }
                }
                match (rules.sealed, sealed_sha256) {
                    (true, None) => {
                        return refuse(
                            c::ARBITER,
                            format!(
                                "under these rules the move is sealed (clause {}): {} writes move {number}, the arbiter records its commitment: arbiter adjourn sealed SHA256",
                                rules.clause,
                                self.side_label(side)
                            ),
                        );
                    }
                    (false, Some(_)) => {
                        return refuse(
                            c::ARBITER,
                            format!(
                                "under these rules the move stays open (clause {}): arbiter adjourn",
                                rules.clause
                            ),
                        );
                    }
                    (true, Some(h))
                        if h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit()) =>
                    {
                        return refuse(
                            c::ARBITER,
                            "the commitment is the hex SHA-256 of 'MOVE NONCE': 64 hex digits",
                        );
                    }
                    _ => {}
                }
                self.one(
                    now,
                    Actor::Arbiter,
                    &rules.clause,
                    EventKind::Adjourned {
                        side,
                        sealed_sha256: sealed_sha256.clone(),
                    },
                )
            }
            Command::EngineStopped => {
                let rules = self.adjournment_rules()?;
                if self.adjourned.is_none() {
                    return refuse(c::ARBITER, "the game is not adjourned");
                }
                self.need_machine()?;
                self.one(
                    now,
                    Actor::Operator,
                    &rules.clause,
                    EventKind::EngineStopped,
                )
            }
            Command::ResumeAdjourned { reveal } => {
                let rules = self.adjournment_rules()?;
                let Some(a) = &self.adjourned else {
                    return refuse(c::ARBITER, "the game is not adjourned");
                };
                if !rules.engine_may_think && !a.engine_stopped && self.machine_side().is_some() {
                    return refuse(
                        c::ARBITER,
                        format!(
                            "the engine may not think during the adjournment (clause {}): the operator records first that it was stopped (operator engine-stopped)",
                            rules.clause
                        ),
                    );
                }
                let mut out = Vec::new();
                match (&a.sealed_sha256, reveal) {
                    (None, None) => out.push(self.ev(
                        now,
                        Actor::Arbiter,
                        &rules.clause,
                        EventKind::AdjournmentResumed { revealed: None },
                    )),
                    (None, Some(_)) => {
                        return refuse(
                            c::ARBITER,
                            "the move was not sealed: arbiter resume-adjourned",
                        );
                    }
                    (Some(_), None) => {
                        return refuse(
                            c::ARBITER,
                            "the move was sealed: arbiter resume-adjourned MOVE NONCE reveals it",
                        );
                    }
                    (Some(h), Some((mv, nonce))) => {
                        if seal(mv, nonce) != *h {
                            return refuse(
                                c::ARBITER,
                                format!(
                                    "'{mv} {nonce}' does not match the sealed commitment {h}: the envelope and the log disagree"
                                ),
                            );
                        }
                        let checked = self.board.check(mv).map_err(|e| {
                            Refusal::new(
                                c::ARBITER,
                                format!(
                                    "the sealed move is not legal: {e}; the arbiter rules on it"
                                ),
                            )
                        })?;
                        out.push(self.ev(
                            now,
                            Actor::Arbiter,
                            &rules.clause,
                            EventKind::AdjournmentResumed {
                                revealed: Some(mv.clone()),
                            },
                        ));
                        // The sealed move is made with the time charged up to the seal: the
                        // clock stood still since.
                        let mut after = self.clone();
                        after.evolve(&out[0]).map_err(|e| Refusal::state(e.0))?;
                        out.extend(after.decide(
                            &Command::Move {
                                text: checked.san.into(),
                            },
                            now,
                        )?);
                    }
                }
                Ok(out)
            }
            _ => refuse_state("not a command of this rule family"),
        }
    }

    /// A move entered while the game is adjourned: only the engine's, in a break whose rules say
    /// it counts; charged the time up to the break (the clock stood still since).
    pub(super) fn decide_break_move(&self, text: &str, now: Ms) -> Result<Vec<Event>, Refusal> {
        let rules = self.adjournment_rules()?;
        let side = self.board.side_to_move();
        let allowed = rules.engine_move_in_break_counts
            && rules.engine_may_think
            && !rules.sealed
            && self.machine_side() == Some(side)
            && self.adjourned.as_ref().is_some_and(|a| a.side == side);
        if !allowed {
            return refuse(
                c::ARBITER,
                format!(
                    "the game is adjourned (clause {}): moves resume with arbiter resume-adjourned{}",
                    rules.clause,
                    if rules.engine_move_in_break_counts {
                        "; only the engine's move, if it is to move, counts during the break"
                    } else {
                        ""
                    }
                ),
            );
        }
        let mut running = self.clone();
        running.adjourned = None;
        running.stop = None;
        running.decide_move(text, now)
    }

    /// Apply an event of this family (dispatched by [`Game::evolve`]).
    pub(super) fn evolve_adjourn(&mut self, e: &Event) -> Result<(), Inconsistent> {
        let at = e.at;
        match &e.kind {
            EventKind::Adjourned {
                side,
                sealed_sha256,
            } => {
                self.need_phase(Phase::Playing)?;
                if self.stop.is_some() {
                    return Err("adjourned while the clocks were already stopped".into());
                }
                self.clock.stop(at);
                self.stop = Some(Stop::Arbiter {
                    since: at,
                    reason: match sealed_sha256 {
                        Some(_) => format!("adjourned, {}'s move sealed", self.side_label(*side)),
                        None => format!("adjourned, {}'s move open", self.side_label(*side)),
                    },
                });
                self.adjourned = Some(Adjourned {
                    since: at,
                    side: *side,
                    sealed_sha256: sealed_sha256.clone(),
                    engine_stopped: false,
                });
            }
            EventKind::EngineStopped => match self.adjourned.as_mut() {
                Some(a) => a.engine_stopped = true,
                None => return Err("engine_stopped outside an adjournment".into()),
            },
            EventKind::AdjournmentResumed { .. } => {
                if self.adjourned.take().is_none() {
                    return Err("adjournment_resumed when the game is not adjourned".into());
                }
                self.clock.resume(at);
                self.stop = None;
                self.session_since = Some(at);
            }
            _ => {}
        }
        Ok(())
    }
}
