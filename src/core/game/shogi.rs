//! Rules 13 and 23 of the Denryu-sen 2024 (`../shared/denryusen-2024.md`), for shogi: the ends (13.1
//! mate and illegal moves, 13.2 / 13.3 the 512-move cap, 13.5 sennichite, perpetual check as the
//! profile says), the entering-king declaration (23, and 13.4 at the cap), both sides absent
//! (13.7), a side that has not moved never flags on its own, so the no-show can be judged (13.6), and the articles a shogi log cites in
//! place of the 2003 clauses. Any entrant's resignation (`sente resign`, `white resign`) is here
//! too: program-vs-program games have no single "operator" or "human" side.
use super::*;
use crate::core::articles::Article as A;
use crate::core::rules::{IllegalMove, PerpetualCheck};
use crate::core::shogi::{ShogiEnd, ShogiRecord, side_name};

impl Game {
    /// The side's name in messages: sente / gote in shogi, white / black otherwise.
    pub fn side_label(&self, side: Side) -> &'static str {
        if self.board.shogi().is_some() {
            side_name(side)
        } else {
            side.name()
        }
    }

    /// [`Game::decide`] for shogi: the shogi-only checks, then the common path with its entries
    /// and refusals citing the Denryu-sen articles.
    pub(super) fn decide_shogi(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        use Command as C;
        let ready = self.phase == Phase::Playing && now >= self.last_at && self.due(now).is_none();
        if ready {
            if let Some(cap) = self.cap()
                && self.board.plies() >= cap
                && matches!(cmd, C::Move { .. } | C::Press)
            {
                return refuse(
                    self.art(A::MaxMoves).to_string(),
                    format!(
                        "move {cap} was the last (13.2): only the side to move's entering-king declaration remains (13.4: {} declare); if it does not declare, the game is drawn when its time runs out",
                        self.side_label(self.board.side_to_move())
                    ),
                );
            }
            if let Some(e) = self.held_flag_falls(cmd, now) {
                return Ok(vec![e]);
            }
            // 13.1 judges what an entrant plays, not a slip of the keyboard: an illegal move typed
            // at the board is refused, nothing recorded, unless the arbiter confirms it.
            if let C::Move { text } = cmd
                && let Some(r) = self.illegal_move_refusal(text)
            {
                return Err(r);
            }
        }
        if let C::IllegalMove { text } = cmd
            && now >= self.last_at
            && self.due(now).is_none()
        {
            return self
                .decide_illegal_move(text, now)
                .map_err(|r| self.cited_refusal(r, None));
        }
        if let C::Claim { .. }
        | C::OfferDraw { .. }
        | C::HumanOfferDraw
        | C::TablebaseDraw
        | C::ArbiterTablebaseDraw { .. } = cmd
        {
            return refuse(
                self.art(A::ServerJudgement).to_string(),
                "shogi has no draw offers or claims: sennichite (13.5) and the move cap (13.2) are judged by the kit",
            );
        }
        let over = match cmd {
            C::NoShow { .. } => Some(self.art(A::NoShow)),
            C::NoShowBoth => Some(self.art(A::BothAbsent)),
            _ => None,
        };
        match self.decide_any(cmd, now) {
            Ok(events) => Ok(events.into_iter().map(|e| self.cited(e, over)).collect()),
            Err(r) => Err(self.cited_refusal(r, over)),
        }
    }

    /// 13.2: the move cap, if the profile has one.
    fn cap(&self) -> Option<usize> {
        self.profile
            .limits
            .as_ref()
            .and_then(|l| l.max_plies)
            .map(|m| m as usize)
    }

    /// 13.1 at the board: an illegal move typed under a profile where it loses is refused like a
    /// chess move (nothing recorded), the refusal saying how the arbiter records it if the
    /// entrant did play it.
    fn illegal_move_refusal(&self, text: &str) -> Option<Refusal> {
        let rules = self.profile.shogi.as_ref()?;
        if rules.illegal_move != IllegalMove::Loss
            || !self.presses.is_empty()
            || self.clock_must_run().is_err()
        {
            return None;
        }
        let r = self.board.shogi()?;
        let e = r.check(text).err().filter(|e| e.is_illegal_move())?;
        let side = side_name(r.side_to_move());
        Some(Refusal::new(
            self.art(A::ServerJudgement).to_string(),
            format!(
                "{e}: nothing recorded, type the move again; if {side} did play it, the arbiter records the loss: arbiter illegal-move {text}"
            ),
        ))
    }

    /// 13.1 confirmed by the arbiter: the entrant to move played the illegal move `text`, and
    /// loses (the profile judging illegal moves a loss, as shogi-server does).
    fn decide_illegal_move(&self, text: &str, now: Ms) -> Result<Vec<Event>, Refusal> {
        self.playing()?;
        let art = self.art(A::ServerJudgement).to_string();
        let loses = self
            .profile
            .shogi
            .as_ref()
            .is_some_and(|r| r.illegal_move == IllegalMove::Loss);
        if !loses {
            return refuse(
                art,
                "these rules refuse an illegal move (illegal_move = \"refuse\"): it is typed again, nothing to record",
            );
        }
        let r = self
            .board
            .shogi()
            .ok_or_else(|| Refusal::state("not a shogi game"))?;
        let e = match r.check(text) {
            Ok(_) => {
                return refuse(
                    art,
                    format!("'{text}' is a legal move here: enter it with move {text}"),
                );
            }
            Err(e) if !e.is_illegal_move() => {
                return refuse(art, format!("{e}: not a move, nothing to rule on"));
            }
            Err(e) => e,
        };
        let side = r.side_to_move();
        let events = vec![Event::new(
            now,
            Actor::Arbiter,
            self.art(A::ServerJudgement),
            self.ended(
                Score::win_for(side.other()),
                Termination::IllegalMove,
                format!(
                    "{} played an illegal move: {e} (confirmed by the arbiter)",
                    side_name(side)
                ),
            ),
        )];
        self.no_result_over_presses(&events)?;
        Ok(events)
    }

    /// Who records a side's act: the operator for a program, the arbiter otherwise.
    fn entrant_actor(&self, side: Side) -> Actor {
        if self
            .player(side)
            .is_some_and(|p| p.kind == PlayerKind::Machine)
        {
            Actor::Operator
        } else {
            Actor::Arbiter
        }
    }

    /// A result the shogi position calls for: mate (13.1), sennichite (13.5), perpetual check,
    /// the cap (13.2, 13.3; not while the side to move could still declare a win, 13.4).
    pub(super) fn shogi_due_result(&self, r: &ShogiRecord) -> Option<Event> {
        let at = self.last_at;
        let end = |score, term, detail: String, art| {
            Some(Event::new(
                at,
                Actor::Kit,
                art,
                self.ended(score, term, detail),
            ))
        };
        if let Some(cap) = self.cap()
            && r.moves().len() >= cap
        {
            if r.is_mated() {
                return end(
                    Score::Draw,
                    Termination::MoveCap,
                    format!("checkmate on move {cap}, the cap: a draw (13.3)"),
                    self.art(A::MateAtMaxMoves),
                );
            }
            if self
                .declaration_failures(r.side_to_move(), at)
                .is_some_and(|f| f.is_empty())
            {
                // 13.4: the side to move may declare a win; the draw waits for its clock.
                return None;
            }
            return end(
                Score::Draw,
                Termination::MoveCap,
                format!("{cap} moves without a result: a draw (13.2)"),
                self.art(A::MaxMoves),
            );
        }
        match r.end()? {
            ShogiEnd::Mate { winner } => end(
                Score::win_for(winner),
                Termination::Checkmate,
                format!("{} is checkmated", side_name(winner.other())),
                self.art(A::ServerJudgement),
            ),
            ShogiEnd::Sennichite => end(
                Score::Draw,
                Termination::Sennichite,
                "the same position for the fourth time (sennichite): a draw, not replayed".into(),
                self.art(A::Sennichite),
            ),
            ShogiEnd::PerpetualCheck { checker } => {
                let loss = self
                    .profile
                    .shogi
                    .as_ref()
                    .is_none_or(|s| s.perpetual_check == PerpetualCheck::Loss);
                if loss {
                    end(
                        Score::win_for(checker.other()),
                        Termination::PerpetualCheck,
                        format!(
                            "sennichite by perpetual check: {} gave check with every move and loses",
                            side_name(checker)
                        ),
                        self.art(A::ServerJudgement),
                    )
                } else {
                    end(
                        Score::Draw,
                        Termination::Sennichite,
                        format!(
                            "sennichite by perpetual check ({} checking): a draw, as the profile says",
                            side_name(checker)
                        ),
                        self.art(A::Sennichite),
                    )
                }
            }
        }
    }

    /// At the cap, a flag ends the game as the cap does (13.2): the side to move did not declare.
    pub(super) fn shogi_flag_event(&self, at: Ms, side: Side) -> Option<Event> {
        self.board.shogi()?;
        let cap = self.cap()?;
        (self.board.plies() >= cap).then(|| {
            Event::new(
                at,
                Actor::Kit,
                self.art(A::MaxMoves),
                self.ended(
                    Score::Draw,
                    Termination::MoveCap,
                    format!(
                        "{cap} moves without a result: a draw (13.2); {} did not declare",
                        side_name(side)
                    ),
                ),
            )
        })
    }

    /// 13.6, 13.7 with 22.3: the flag of the side to move is held while that side has not made
    /// its first move and the profile has a no-show window. Such a side is absent until it moves,
    /// and only the arbiter can tell one absent side (13.6: it forfeits) from two (13.7: both
    /// lose), so its clock never flags on its own: the arbiter's no-show ruling may be recorded at
    /// any time from the window's end and takes precedence over a flag that would have fallen in
    /// the meantime. Should the side turn up and move (or press) with its time already gone, the
    /// held flag falls at that instant instead ([`Game::held_flag_falls`]). A side that has moved
    /// flags as usual (22.3); chess is unchanged.
    pub(in crate::core) fn flag_held(&self) -> bool {
        if self.board.shogi().is_none()
            || self
                .profile
                .limits
                .as_ref()
                .and_then(|l| l.no_show_seconds)
                .is_none()
        {
            return false;
        }
        self.clock
            .running()
            .is_some_and(|side| self.moves_of(side) == 0)
    }

    /// 22.3 after a held flag (13.6): the side that had not moved makes its first move, or presses,
    /// once its time is gone. The flag falls now, not the move.
    fn held_flag_falls(&self, cmd: &Command, now: Ms) -> Option<Event> {
        if !matches!(cmd, Command::Move { .. } | Command::Press) || !self.flag_held() {
            return None;
        }
        let side = self.clock.running()?;
        let fell = self
            .clock
            .flag_at(&self.profile, |s| self.board.moves_by(s))
            .filter(|t| *t <= now)?;
        let mut e = self.flag_fall_event(now, side)?;
        if let EventKind::GameEnded { detail, .. } = &mut e.kind {
            detail.push_str(&format!(
                " (its time ran out at {}; its flag was held for the no-show (13.6) until it moved)",
                crate::core::timefmt::clock(i64::try_from(fell).unwrap_or(i64::MAX))
            ));
        }
        Some(self.cited(e, None))
    }

    /// Article 23's conditions a declaration by `side` at `now` fails (empty: a valid declaration);
    /// `None` when the game has no declaration rule.
    pub(in crate::core) fn declaration_failures(&self, side: Side, now: Ms) -> Option<Vec<String>> {
        let rule = self.profile.shogi.as_ref()?.declaration.as_ref()?;
        let r = self.board.shogi()?;
        let f = r.declaration_facts(side);
        let mut out = Vec::new();
        if r.side_to_move() != side || !self.presses.is_empty() {
            out.push(format!("23.1: it is not {}'s turn", side_name(side)));
        }
        if !f.king_in_camp {
            out.push("23.2: the king is not in the enemy camp".to_string());
        }
        let need = rule.points_for(side);
        if f.points < need {
            out.push(format!("23.3: {} points, {need} needed", f.points));
        }
        if f.pieces_in_camp < rule.pieces_in_camp {
            out.push(format!(
                "23.4: {} pieces in the enemy camp besides the king, {} needed",
                f.pieces_in_camp, rule.pieces_in_camp
            ));
        }
        if f.in_check {
            out.push("23.5: the king is in check".to_string());
        }
        if self.remaining(side, now) <= 0 {
            out.push("23.6: no time left".to_string());
        }
        Some(out)
    }

    /// Any entrant's resignation, the entering-king declaration (23), both sides absent (13.7).
    pub(super) fn decide_entrants(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        use Command as C;
        match cmd {
            C::SideResign { side } => {
                self.playing()?;
                let side = self.resolve(side)?;
                self.one(
                    now,
                    self.entrant_actor(side),
                    c::RESIGN,
                    self.ended(
                        Score::win_for(side.other()),
                        Termination::Resignation,
                        format!("{} resigned", self.side_label(side)),
                    ),
                )
            }
            C::DeclareWin { side } => {
                self.playing()?;
                let side = self.resolve(side)?;
                if self.board.shogi().is_none() {
                    return refuse_state(
                        "the entering-king declaration is a shogi rule (Denryu-sen 23)",
                    );
                }
                let failures = self.declaration_failures(side, now).ok_or_else(|| {
                    Refusal::new(
                        self.art(A::Declaration).to_string(),
                        "this rules profile has no entering-king declaration ([shogi.declaration])",
                    )
                })?;
                let facts = self
                    .board
                    .shogi()
                    .map(|r| r.declaration_facts(side))
                    .ok_or_else(|| Refusal::state("not a shogi game"))?;
                let measured = format!(
                    "{} points, {} pieces in the enemy camp besides the king, king {}in the camp, {}in check",
                    facts.points,
                    facts.pieces_in_camp,
                    if facts.king_in_camp { "" } else { "not " },
                    if facts.in_check { "" } else { "not " }
                );
                let name = side_name(side);
                let (score, term, detail, art) = if failures.is_empty() {
                    let at_cap = self.cap().is_some_and(|cap| self.board.plies() >= cap);
                    (
                        Score::win_for(side),
                        Termination::Declaration,
                        format!(
                            "{name} declared an entering-king win, every condition met ({measured})"
                        ),
                        if at_cap {
                            self.art(A::DeclarationAtMaxMoves)
                        } else {
                            self.art(A::Declaration)
                        },
                    )
                } else {
                    (
                        Score::win_for(side.other()),
                        Termination::FailedDeclaration,
                        format!(
                            "{name} declared an entering-king win and loses: {} ({measured})",
                            failures.join("; ")
                        ),
                        self.art(A::Declaration),
                    )
                };
                self.one(
                    now,
                    self.entrant_actor(side),
                    art,
                    self.ended(score, term, detail),
                )
            }
            C::NoShowBoth => {
                self.playing()?;
                let secs = self
                    .profile
                    .limits
                    .as_ref()
                    .and_then(|l| l.no_show_seconds)
                    .ok_or_else(|| {
                        Refusal::new(c::LAWS, "this rules profile sets no default (no-show) time")
                    })?;
                if self.board.plies() > 0 || !self.presses.is_empty() {
                    return refuse(c::LAWS, "a side has already moved");
                }
                let since = now.saturating_sub(self.started_at.unwrap_or(0));
                if since < secs.saturating_mul(1000) {
                    return refuse(
                        c::LAWS,
                        format!(
                            "the default time is {}; only {} has passed since the start",
                            crate::core::timefmt::clock(
                                i64::try_from(secs.saturating_mul(1000)).unwrap_or(i64::MAX)
                            ),
                            crate::core::timefmt::clock(i64::try_from(since).unwrap_or(i64::MAX))
                        ),
                    );
                }
                self.one(
                    now,
                    Actor::Arbiter,
                    c::LAWS,
                    self.ended(
                        Score::BothLose,
                        Termination::NoShow,
                        "neither side appeared within the default time: both lose".into(),
                    ),
                )
            }
            C::Consulted { side, text } => {
                self.opened()?;
                let side = self.resolve(side)?;
                let Some(Entrant::HumanWithAi { program, .. }) =
                    self.player(side).and_then(|p| p.entrant.as_ref())
                else {
                    return refuse(
                        self.art(A::Entrants).to_string(),
                        format!(
                            "{} is not declared as a human consulting an AI (5.2 (4)): arbiter declare {} consulting NAME with PROGRAM: METHOD",
                            self.side_label(side),
                            self.side_label(side)
                        ),
                    );
                };
                self.one(
                    now,
                    Actor::Arbiter,
                    self.art(A::Entrants),
                    EventKind::Note {
                        text: format!("{} consulted {program}: {text}", self.side_label(side))
                            .into(),
                    },
                )
            }
            _ => refuse_state("not a command of this rule family"),
        }
    }

    /// The sides whose moves an engine log handed over must show (13c; in shogi, 28.1): the
    /// machine's; in a shogi game between two programs (5.2), both, for a program that played
    /// itself and logged both sides in one file. With `only`, that side's program alone, whose own
    /// log it is (two different programs hand over a log each: coverage per side); refused when
    /// that side is not a program, as it has no engine log.
    pub fn engine_log_sides(&self, only: Option<Side>) -> Result<Vec<Side>, Refusal> {
        let program = |s: Side| {
            self.player(s)
                .is_some_and(|p| p.kind == PlayerKind::Machine)
        };
        let shogi = self.board.shogi().is_some();
        match only {
            Some(s) if program(s) && (shogi || self.machine_side() == Some(s)) => Ok(vec![s]),
            Some(s) => refuse(
                if shogi {
                    self.art(A::Entrants).to_string()
                } else {
                    c::ENGINE_LOG_CONTENT.to_string()
                },
                format!(
                    "{} is not a program in this game (its entrant is {}): it has no engine log to check",
                    self.side_label(s),
                    self.player(s).map_or("not declared", |p| match p.kind {
                        PlayerKind::Human => "a human",
                        PlayerKind::Machine => "a machine",
                    })
                ),
            ),
            None => Ok(match self.machine_side() {
                Some(m) => vec![m],
                None if shogi && program(Side::White) && program(Side::Black) => {
                    vec![Side::White, Side::Black]
                }
                None => Vec::new(),
            }),
        }
    }
}
