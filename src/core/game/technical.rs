//! Rules 8a and 8b: technical problems, supervisor questions, power failure, the 8b reset window
//! and restart gaps.
use super::*;
use crate::core::command::GapRuling;

impl Game {
    /// Decide a command of this family (dispatched by [`Game::decide`]).
    pub(super) fn decide_technical(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        use Command as C;
        match cmd {
            C::PowerFailure { text } => {
                self.playing()?;
                if self.profile.power_failure.is_none() {
                    // nothing could restore the game: the arbiter stops the clocks (rule 1)
                    return refuse(
                        c::POWER_FAILURE,
                        "this rules profile has no [power_failure] section: arbiter stop REASON",
                    );
                }
                // 8b: power can fail again whenever it is on, the reset window open or over;
                // the window starts again when it is restored. Only while it is off is there
                // nothing to record.
                if let Some(Stop::Power {
                    since,
                    restored: None,
                    ..
                }) = &self.stop
                {
                    return refuse(
                        c::POWER_FAILURE,
                        format!(
                            "the power is off since {} and not restored yet: record power-restored \
                             when it comes back",
                            crate::core::timefmt::clock(i64::try_from(*since).unwrap_or(i64::MAX))
                        ),
                    );
                }
                self.one(
                    now,
                    Actor::Arbiter,
                    c::POWER_FAILURE,
                    EventKind::PowerFailed { text: text.clone() },
                )
            }
            C::PowerRestored => {
                self.playing()?;
                let window = self
                    .profile
                    .power_failure
                    .as_ref()
                    .ok_or_else(|| {
                        Refusal::new(
                            c::POWER_FAILURE,
                            "this rules profile has no [power_failure] section",
                        )
                    })?
                    .reset_window_seconds
                    * 1000;
                match &self.stop {
                    Some(Stop::Power { restored: None, .. }) => self.one(
                        now,
                        Actor::Arbiter,
                        c::POWER_FAILURE,
                        EventKind::PowerRestored { window_ms: window },
                    ),
                    Some(Stop::Power { .. }) => {
                        refuse(c::POWER_FAILURE, "power was already restored")
                    }
                    _ => refuse(c::POWER_FAILURE, "there is no power failure"),
                }
            }
            C::ResetDone => {
                self.playing()?;
                match &self.stop {
                    Some(Stop::Power {
                        restored: Some(_),
                        reset_done: false,
                        ..
                    }) => self.one(
                        now,
                        Actor::Operator,
                        c::POWER_FAILURE,
                        EventKind::MachineReset,
                    ),
                    Some(Stop::Power { restored: None, .. }) => {
                        refuse(c::POWER_FAILURE, "power is not restored yet")
                    }
                    _ => refuse(c::POWER_FAILURE, "there is no reset window open"),
                }
            }
            C::RestartGap {
                ruling,
                reason,
                measured,
            } => {
                self.playing()?;
                let Some((gap_ms, side)) = *measured else {
                    return refuse(
                        c::POWER_FAILURE,
                        "no restart of the kit with a clock running awaits a ruling: restart-gap rules only on the gap the kit measured at a restart, once",
                    );
                };
                let charged_ms = match *ruling {
                    GapRuling::Waive => 0,
                    // 8b: the kit restarted during a suspension; no clock ran, nothing to charge.
                    _ if side.is_none() => {
                        return refuse(
                            c::POWER_FAILURE,
                            "the kit restarted during the 8b suspension: no clock ran, nothing is charged; record the restart with arbiter restart-gap waive REASON",
                        );
                    }
                    GapRuling::Charge => gap_ms,
                    GapRuling::ChargePart(x) if x <= gap_ms => x,
                    GapRuling::ChargePart(x) => {
                        return refuse(
                            c::POWER_FAILURE,
                            format!(
                                "{} is more than the measured gap of {}",
                                crate::core::timefmt::exact(x),
                                crate::core::timefmt::exact(gap_ms)
                            ),
                        );
                    }
                };
                if reason.trim().is_empty() {
                    return refuse(c::POWER_FAILURE, "give the reason of the ruling");
                }
                self.one(
                    now,
                    Actor::Arbiter,
                    // The kit's restart is an external disruption: the arbiter rules on the time
                    // it cost under 8b, whether he waives or charges it (6d is the operator's
                    // input when instructed, not the arbiter's ruling on time).
                    c::POWER_FAILURE,
                    EventKind::RestartGap {
                        gap_ms,
                        charged: charged_ms > 0,
                        side,
                        charged_ms: Some(charged_ms),
                        reason: Some(reason.clone()),
                        wall_clock: None,
                    },
                )
            }
            C::TechnicalProblem { text } => {
                self.playing()?;
                self.need_machine()?;
                if let Some(t) = &self.technical {
                    return refuse(
                        c::TECHNICAL,
                        format!("a technical problem is already open ({})", t.text),
                    );
                }
                self.one(
                    now,
                    Actor::Operator,
                    c::TECHNICAL,
                    EventKind::TechnicalProblem { text: text.clone() },
                )
            }
            C::Repaired { text } => {
                self.playing()?;
                if self.technical.is_none() {
                    return refuse(c::TECHNICAL, "there is no open technical problem");
                }
                if matches!(self.stop, Some(Stop::Info { .. })) {
                    return refuse(
                        c::TECHNICAL,
                        "the machine's clock is stopped for the supervisor: supervisor info-resume first",
                    );
                }
                self.one(
                    now,
                    Actor::Operator,
                    c::TECHNICAL,
                    EventKind::TechnicalResolved { text: text.clone() },
                )
            }
            C::InfoStop { question } => {
                self.playing()?;
                let m = self.need_machine()?;
                if self.stop.is_some() || self.clock.running() != Some(m) {
                    return refuse(
                        c::TECHNICAL,
                        "the machine's clock is not running: ask without stopping it",
                    );
                }
                self.one(
                    now,
                    Actor::Supervisor,
                    c::TECHNICAL,
                    EventKind::InfoStopped {
                        question: question.clone(),
                    },
                )
            }
            C::InfoResume => {
                self.playing()?;
                if !matches!(self.stop, Some(Stop::Info { .. })) {
                    return refuse(
                        c::TECHNICAL,
                        "the supervisor has not stopped the machine's clock",
                    );
                }
                self.one(now, Actor::Supervisor, c::TECHNICAL, EventKind::InfoResumed)
            }
            C::WorkNote { text } => {
                self.opened()?;
                self.one(
                    now,
                    Actor::Supervisor,
                    c::TECHNICAL,
                    EventKind::WorkNote { text: text.clone() },
                )
            }
            _ => refuse_state("not a command of this rule family"),
        }
    }

    /// Apply an event of this family (dispatched by [`Game::evolve`]).
    pub(super) fn evolve_technical(&mut self, e: &Event) -> Result<(), Inconsistent> {
        let at = e.at;
        match &e.kind {
            EventKind::WorkNote { .. } => {}
            EventKind::TechnicalProblem { text } => {
                self.technical = Some(Technical {
                    since: at,
                    text: text.clone(),
                })
            }
            EventKind::TechnicalResolved { .. } => self.technical = None,
            EventKind::InfoStopped { question } => {
                self.clock.stop(at);
                self.stop = Some(Stop::Info {
                    since: at,
                    question: question.clone(),
                });
            }
            EventKind::InfoResumed => {
                self.clock.resume(at);
                self.stop = None;
            }
            EventKind::PowerFailed { text } => {
                self.clock.stop(at);
                self.stop = Some(Stop::Power {
                    since: at,
                    text: text.clone(),
                    restored: None,
                    window_ms: 0,
                    reset_done: false,
                    window_ended: false,
                });
            }
            EventKind::PowerRestored { window_ms } => {
                if let Some(Stop::Power {
                    restored,
                    window_ms: w,
                    ..
                }) = self.stop.as_mut()
                {
                    *restored = Some(at);
                    *w = *window_ms;
                }
            }
            EventKind::ResetWindowEnded { .. } => match self.stop.as_mut() {
                Some(Stop::Power {
                    restored: Some(_),
                    reset_done: false,
                    window_ended,
                    ..
                }) => *window_ended = true,
                _ => return Err("reset_window_ended without an open reset window".into()),
            },
            EventKind::MachineReset => {
                if let Some(Stop::Power { reset_done, .. }) = self.stop.as_mut() {
                    *reset_done = true;
                }
            }
            EventKind::RestartGap {
                gap_ms,
                charged,
                side,
                charged_ms,
                ..
            } => {
                let charged_ms = charged_ms.unwrap_or(if *charged { *gap_ms } else { 0 });
                if charged_ms > *gap_ms {
                    return Err("restart_gap charges more than the gap".into());
                }
                if let Some(s) = side {
                    self.clock.add(*s, (*gap_ms - charged_ms) as i64);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// When the 8b reset window ends, if one is open.
    pub fn reset_window_end(&self) -> Option<Ms> {
        if self.phase == Phase::Ended {
            return None;
        }
        match &self.stop {
            Some(Stop::Power {
                restored: Some(r),
                window_ms,
                ..
            }) => Some(r.saturating_add(*window_ms)),
            _ => None,
        }
    }
}
