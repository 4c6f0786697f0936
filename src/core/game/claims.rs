//! Rule 2 (the FIDE Laws) and 10a: claims under the Laws, the no-show default, the tablebase draw.
use super::*;

impl Game {
    /// Decide a command of this family (dispatched by [`Game::decide`]).
    pub(super) fn decide_claims(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        use Command as C;
        match cmd {
            C::NoShow { side } => {
                self.playing()?;
                let side = self.resolve(side)?;
                let secs = self
                    .profile
                    .limits
                    .as_ref()
                    .and_then(|l| l.no_show_seconds)
                    .ok_or_else(|| {
                        Refusal::new(c::LAWS, "this rules profile sets no default (no-show) time")
                    })?;
                if self.moves_of(side) > 0 {
                    return refuse(
                        c::LAWS,
                        format!("{} has already moved", self.side_label(side)),
                    );
                }
                let since = now.saturating_sub(self.started_at.unwrap_or(0));
                if since < secs * 1000 {
                    return refuse(
                        c::LAWS,
                        format!(
                            "the default time is {}; only {} has passed since the start",
                            crate::core::timefmt::clock(secs as i64 * 1000),
                            crate::core::timefmt::clock(since as i64)
                        ),
                    );
                }
                let detail = format!(
                    "{} did not appear within the default time",
                    self.side_label(side)
                );
                self.one(
                    now,
                    Actor::Arbiter,
                    c::LAWS,
                    self.ended(Score::win_for(side.other()), Termination::NoShow, detail),
                )
            }
            C::TablebaseDraw => {
                let men = self.tablebase_position()?;
                refuse(
                    c::TABLEBASE,
                    format!(
                        "the operator advises the human player and the arbiter ({men} men); the game ends when the arbiter has seen the machine's display show the database draw and records it: arbiter tablebase-draw"
                    ),
                )
            }
            C::ArbiterTablebaseDraw { probe } => {
                let men = self.tablebase_position()?;
                // Without an answer from tables, the elementary wins the kit judges alone.
                if matches!(probe, None | Some(TablebaseProbe::Unavailable { .. }))
                    && let Some((winner, material)) = self.board.elementary_win()
                {
                    return refuse(
                        c::TABLEBASE,
                        format!(
                            "{material} is a win for {winner} with correct play (an elementary \
                             win, judged without tables: {}): not a database draw; the game goes on",
                            crate::core::board::ELEMENTARY_WINS
                        ),
                    );
                }
                let alone = format!(
                    "nothing could be checked: the kit judges alone only {}",
                    crate::core::board::ELEMENTARY_WINS
                );
                let checked = match probe {
                    None => format!("no Syzygy tables given to the kit; {alone}"),
                    Some(TablebaseProbe::Unavailable { reason }) => {
                        format!("the Syzygy tables could not answer ({reason}); {alone}")
                    }
                    Some(TablebaseProbe::Wdl { wdl, tables }) => {
                        let mover = self.board.side_to_move();
                        match wdl {
                            2 | -2 => {
                                let winner = if *wdl > 0 { mover } else { mover.other() };
                                return refuse(
                                    c::TABLEBASE,
                                    format!(
                                        "the Syzygy tables ({tables}) show a win for {winner} with correct play, not a draw: the game goes on"
                                    ),
                                );
                            }
                            0 => format!("Syzygy tables ({tables}): draw"),
                            _ => format!("Syzygy tables ({tables}): drawn by the fifty-move rule"),
                        }
                    }
                };
                let detail = format!(
                    "the arbiter saw the machine's display show an endgame-database draw ({men} men; {checked})"
                );
                self.one(
                    now,
                    Actor::Arbiter,
                    c::TABLEBASE,
                    self.ended(Score::Draw, Termination::TablebaseDraw, detail),
                )
            }
            C::Claim {
                kind,
                by_human,
                with_move,
            } => self.decide_claim(kind, *by_human, with_move.as_deref(), now),
            _ => refuse_state("not a command of this rule family"),
        }
    }

    /// FIDE 9.2 / 9.3 / 9.5: a draw claim by the player having the move, on the position on the
    /// board or with his intended move (not played if the claim is correct). An incorrect claim is
    /// recorded: the opponent is given the edition's time and the intended move is played.
    fn decide_claim(
        &self,
        kind: &ClaimKind,
        by_human: bool,
        with_move: Option<&str>,
        now: Ms,
    ) -> Result<Vec<Event>, Refusal> {
        self.playing()?;
        self.clock_must_run()?;
        self.no_pending_press(c::LAWS)?;
        let claimant = if by_human {
            self.need_human()?
        } else {
            self.need_machine()?
        };
        if self.board.side_to_move() != claimant {
            return refuse(
                c::LAWS,
                "a draw is claimed by the player having the move (FIDE Laws 9.2, 9.3)",
            );
        }
        let intended = match with_move {
            Some(m) => {
                let mv = self
                    .board
                    .check(m)
                    .map_err(|e| Refusal::new(c::LAWS, format!("the intended move: {e}")))?;
                let mut after = self.board.clone();
                after.play(&mv).map_err(Refusal::board)?;
                Some((mv, after))
            }
            None => None,
        };
        let with = intended
            .as_ref()
            .map(|(mv, _)| format!(" with the intended move {}", mv.san))
            .unwrap_or_default();
        let (ok, term, detail) = match kind {
            ClaimKind::Threefold => {
                let now_n = self.board.repetitions();
                let after_n = intended.as_ref().map_or(0, |(_, b)| b.repetitions());
                let n = now_n.max(after_n);
                (
                    n >= 3,
                    Termination::ThreefoldClaim,
                    format!(
                        "threefold repetition claimed by {claimant}{with} (the position occurs {n} times)"
                    ),
                )
            }
            ClaimKind::FiftyMoves => {
                let now_n = self.board.halfmove_clock();
                let after_n = intended.as_ref().map_or(0, |(_, b)| b.halfmove_clock());
                let n = now_n.max(after_n);
                (
                    n >= 100,
                    Termination::FiftyMoveClaim,
                    format!(
                        "50-move rule claimed by {claimant}{with} ({} moves without capture or pawn move)",
                        n / 2
                    ),
                )
            }
        };
        let actor = if by_human {
            Actor::Arbiter
        } else {
            Actor::Operator
        };
        if ok {
            return self.one(now, actor, c::LAWS, self.ended(Score::Draw, term, detail));
        }
        if !by_human {
            // Time for the human is the arbiter's to give (9.5): the operator's own claim, when it
            // is not correct, records nothing and changes no clock.
            return refuse(
                c::LAWS,
                format!(
                    "the claim is not correct: {detail}; nothing recorded{}",
                    intended
                        .as_ref()
                        .map(|(mv, _)| format!(" (the machine plays its move: move {})", mv.san))
                        .unwrap_or_default()
                ),
            );
        }
        // 9.5: not correct. The opponent is given time; the intended move must be played.
        let laws = self.profile.profile.laws;
        let dismissed = self.ev(
            now,
            actor,
            c::LAWS,
            EventKind::ClaimDismissed {
                claimant,
                claim: match kind {
                    ClaimKind::Threefold => "threefold",
                    ClaimKind::FiftyMoves => "fifty",
                }
                .into(),
                detail: format!("the claim is not correct: {detail}"),
                with_move: intended.as_ref().map(|(mv, _)| mv.san.to_string()),
                added_ms: laws.incorrect_claim_ms(),
                to: claimant.other(),
                laws: laws.name().into(),
            },
        );
        let mut events = vec![dismissed];
        if let Some((mv, _)) = &intended {
            let mut next = self.clone();
            next.evolve(&events[0])
                .map_err(|e| Refusal::state(e.to_string()))?;
            events.extend(next.decide_move(&mv.uci, now)?);
        }
        Ok(events)
    }

    /// When the no-show (default) time passes for a side that has not yet moved.
    pub fn no_show_at(&self) -> Option<Ms> {
        let secs = self.profile.limits.as_ref()?.no_show_seconds?;
        let start = self.started_at?;
        (self.phase == Phase::Playing && self.board.plies() < 2)
            .then_some(start.saturating_add(secs * 1000))
    }

    /// 10a applies: a chess game in play with a machine, in a position of at most the profile's
    /// number of men. Returns the number of men.
    fn tablebase_position(&self) -> Result<u32, Refusal> {
        self.playing()?;
        self.need_machine()?;
        let tb = self.profile.tablebase.as_ref().ok_or_else(|| {
            Refusal::new(
                c::TABLEBASE,
                "this rules profile has no [tablebase] section",
            )
        })?;
        let men = self
            .board
            .men()
            .ok_or_else(|| Refusal::new(c::TABLEBASE, "tablebase draws apply to chess only"))?;
        if men > tb.max_men {
            return refuse(
                c::TABLEBASE,
                format!(
                    "the position has {men} men; endgame databases cover at most {}",
                    tb.max_men
                ),
            );
        }
        Ok(men)
    }
}
