//! Rules of the match across games (a profile's `[match]`): the operator replaceable
//! during a game only when it is not the human's turn (Deep Blue 1996/97), colours alternating by
//! game number whatever postponements or forfeits happen (Deep Blue 1996/97), and no further game
//! once the match is decided unless the rules still play the remaining games (X3D 2003; Bonn 2006),
//! and none beyond the match's length (a four-game match has no fifth game).
//!
//! The core reads no file: what the earlier games of the match say (the colours of one of them,
//! the score) is gathered by the shell into a [`MatchHistory`] given with the game.
use super::*;

/// What the match's earlier games say, as the shell read their logs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MatchHistory {
    /// An earlier game's number and the side the human had in it (line 0), for the colours.
    pub colours: Option<(u32, Side)>,
    /// Points per player over the games played, in order of appearance.
    pub scores: Vec<(String, f64)>,
}

impl Game {
    /// The game with what the match's earlier games say (the shell gathers it).
    pub fn with_history(mut self, history: MatchHistory) -> Game {
        self.history = history;
        self.due_result_memo = super::DueMemo::default();
        self
    }

    /// What the match's earlier games say.
    pub fn history(&self) -> &MatchHistory {
        &self.history
    }

    /// The side the human must have in this game when colours alternate by game number, with the
    /// earlier game it follows from.
    pub fn human_side_by_game_number(&self) -> Option<(Side, u32, Side)> {
        let m = self.profile.match_rules.as_ref()?;
        if !m.colours_alternate_by_game_number {
            return None;
        }
        let (k, side) = self.history.colours?;
        let same = self.ctx.game.abs_diff(k) % 2 == 0;
        Some((if same { side } else { side.other() }, k, side))
    }

    /// Colours alternate by game number: a declaration putting the human (or the machine) on the
    /// other side than the game number gives is refused, naming the rule.
    pub(super) fn check_colours(&self, side: Side, kind: PlayerKind) -> Result<(), Refusal> {
        let Some((human, k, had)) = self.human_side_by_game_number() else {
            return Ok(());
        };
        let wrong = match kind {
            PlayerKind::Human => side != human,
            PlayerKind::Machine => side == human,
        };
        if !wrong {
            return Ok(());
        }
        let clause = self
            .profile
            .match_rules
            .as_ref()
            .map_or("match", |m| m.clause.as_str());
        refuse(
            c::ARBITER,
            format!(
                "colours alternate by game number, whatever postponements or forfeits happen ({}, clause {clause}): the human had {had} in game {k}, so in game {} the human has {human} and the machine {}",
                self.profile.profile.name,
                self.ctx.game,
                human.other()
            ),
        )
    }

    /// The line saying the match is decided, from the scores of the games recorded so far.
    pub fn match_decided_text(&self) -> Option<String> {
        self.profile
            .match_rules
            .as_ref()?
            .decided_text(&self.history.scores)
    }

    /// No game is opened beyond the match's length: game N+1 of an N-game match is refused,
    /// naming the rule (none of the matches' rules provides a tie-break).
    pub(super) fn check_match_length(&self) -> Result<(), Refusal> {
        let Some(m) = self.profile.match_rules.as_ref() else {
            return Ok(());
        };
        match m.games {
            Some(n) if self.ctx.game > n => refuse(
                c::ARBITER,
                format!(
                    "the match has {n} games ({}, clause {}): game {} may not be opened, and these rules provide no tie-break",
                    self.profile.profile.name, m.clause, self.ctx.game
                ),
            ),
            _ => Ok(()),
        }
    }

    /// No game is opened after the match is decided, unless the rules still play the remaining
    /// games.
    pub(super) fn check_match_not_decided(&self) -> Result<(), Refusal> {
        let Some(m) = self.profile.match_rules.as_ref() else {
            return Ok(());
        };
        if m.play_after_decided {
            return Ok(());
        }
        match m.decided(&self.history.scores) {
            Some((name, points)) => refuse(
                c::ARBITER,
                format!(
                    "the match is decided: {name} has {points} points, the winning score is {} ({}, clause {}), and these rules play no further game",
                    m.winning_score.unwrap_or_default(),
                    self.profile.profile.name,
                    m.clause
                ),
            ),
            None => Ok(()),
        }
    }

    /// Decide a command of this family (dispatched by [`Game::decide`]).
    pub(super) fn decide_match_rules(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        let Command::ReplaceOperator { name, reason } = cmd else {
            return refuse_state("not a command of this rule family");
        };
        let rules = self
            .profile
            .match_rules
            .as_ref()
            .filter(|m| m.operator_replaceable_off_human_turn);
        let Some(rules) = rules else {
            return refuse(
                c::OPERATOR_FIXED,
                "the machine operator may not be changed during a game (4d); change him between games (4c)",
            );
        };
        if self.phase == Phase::Ended {
            return refuse(
                c::OPERATOR_CHANGE_BETWEEN,
                "the game is over: declare the next game's operator (arbiter declare operator NAME)",
            );
        }
        self.need_machine()?;
        let from = self.decl.as_ref().map_or("", |d| d.operator.as_str());
        if from == name {
            return refuse_state(format!("{name} is already the machine's operator"));
        }
        let to_move = self.board.side_to_move();
        if self.human_side() == Some(to_move) {
            return refuse(
                c::OPERATOR_FIXED,
                format!(
                    "the operator may be replaced only when it is not the human's turn ({}, clause {}): it is {to_move}'s turn, the human's",
                    self.profile.profile.name, rules.clause
                ),
            );
        }
        self.one(
            now,
            Actor::Arbiter,
            &rules.clause,
            EventKind::OperatorReplaced {
                from: from.to_string(),
                to: name.clone(),
                reason: reason.clone(),
            },
        )
    }

    /// Apply an event of this family (dispatched by [`Game::evolve`]).
    pub(super) fn evolve_match_rules(&mut self, e: &Event) -> Result<(), Inconsistent> {
        if let EventKind::OperatorReplaced { to, .. } = &e.kind {
            match self.decl.as_mut() {
                Some(d) if self.phase != Phase::Ended => d.operator = to.clone(),
                _ => return Err("operator_replaced outside a game".into()),
            }
        }
        Ok(())
    }
}
