//! Rules 1 and 5b: the arbiter stops and resumes the clocks; notes for the log.
use super::*;

impl Game {
    /// Decide a command of this family (dispatched by [`Game::decide`]).
    pub(super) fn decide_arbiter(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        use Command as C;
        match cmd {
            C::Authorize {
                by,
                words,
                first,
                last,
            } => {
                self.opened()?;
                self.one(
                    now,
                    Actor::Arbiter,
                    c::MACHINE_LOG,
                    EventKind::Authorized {
                        by: by.clone(),
                        command: words.clone(),
                        first: *first,
                        last: *last,
                    },
                )
            }
            C::AuthorizationFailed { words, why } => {
                self.opened()?;
                self.one(
                    now,
                    Actor::Kit,
                    c::MACHINE_LOG,
                    EventKind::AuthorizationFailed {
                        command: words.clone(),
                        why: why.clone(),
                    },
                )
            }
            C::Stop { reason } => {
                self.playing()?;
                if let Some(s) = &self.stop {
                    return refuse_state(format!(
                        "the clock is already stopped ({})",
                        stop_text(s)
                    ));
                }
                self.one(
                    now,
                    Actor::Arbiter,
                    c::ARBITER,
                    EventKind::ClockStopped {
                        reason: reason.as_str().into(),
                    },
                )
            }
            C::Resume => {
                self.playing()?;
                if self.adjourned.is_some() {
                    return refuse(
                        c::ARBITER,
                        "the game is adjourned: arbiter resume-adjourned (with MOVE NONCE for a sealed move)",
                    );
                }
                let side = self.clock_side();
                match &self.stop {
                    None => refuse_state("the clock is running"),
                    Some(Stop::Arbiter { .. }) => self.one(
                        now,
                        Actor::Arbiter,
                        c::ARBITER,
                        EventKind::ClockResumed { side },
                    ),
                    Some(Stop::Info { .. }) => refuse(
                        c::TECHNICAL,
                        "the supervisor stopped the machine's clock: supervisor info-resume",
                    ),
                    Some(Stop::Power { restored: None, .. }) => refuse(
                        c::POWER_FAILURE,
                        "power is not restored yet: arbiter power-restored",
                    ),
                    Some(Stop::Power {
                        restored: Some(r),
                        window_ms,
                        reset_done,
                        ..
                    }) => {
                        if now >= r + window_ms || *reset_done {
                            self.one(
                                now,
                                Actor::Arbiter,
                                c::POWER_FAILURE,
                                EventKind::ClockResumed { side },
                            )
                        } else {
                            refuse(
                                c::POWER_FAILURE,
                                format!(
                                    "the machine team has until {} to reset the machine ({} left); earlier only when the operator reports operator reset-done",
                                    crate::core::timefmt::clock((r + window_ms) as i64),
                                    crate::core::timefmt::short((r + window_ms - now) as i64)
                                ),
                            )
                        }
                    }
                }
            }
            C::Note { text } => {
                self.opened()?;
                self.one(
                    now,
                    Actor::Arbiter,
                    c::MACHINE_LOG,
                    EventKind::Note {
                        text: text.as_str().into(),
                    },
                )
            }
            _ => refuse_state("not a command of this rule family"),
        }
    }

    /// Apply an event of this family (dispatched by [`Game::evolve`]).
    pub(super) fn evolve_arbiter(&mut self, e: &Event) -> Result<(), Inconsistent> {
        let at = e.at;
        match &e.kind {
            EventKind::ClockStopped { reason } => {
                self.clock.stop(at);
                self.stop = Some(Stop::Arbiter {
                    since: at,
                    reason: reason.to_string(),
                });
            }
            EventKind::ClockResumed { side } => {
                if *side != self.clock_side() {
                    return Err(format!(
                        "resumed {}'s clock, but it is {}'s turn on the clock",
                        self.side_label(*side),
                        self.side_label(self.clock_side())
                    )
                    .into());
                }
                if self.clock.turn.is_none() {
                    self.clock.turn = Some(crate::core::clock::Turn {
                        side: *side,
                        banked: 0,
                        since: None,
                    });
                }
                self.clock.resume(at);
                self.stop = None;
                self.retype = 0;
            }
            _ => {}
        }
        Ok(())
    }
}
