//! The game: state, `decide` (command -> events, or a refusal naming the clause), `evolve`
//! (event -> state; the same fold live and in replay), `due` (events the passing of time causes:
//! flag fall, the 9e consultation limit, automatic results) and `next_deadline`.
use serde::Serialize;

use super::board::Board;
use super::clock::Clock;
use super::command::{ClaimKind, Command, SideRef};
use super::event::*;
use super::rules::{GameKind, Profile};
use super::{Actor, Ms, Refusal, Side, clause as c};

/// What the shell knows when it creates a game: identity, rules and key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameContext {
    pub match_id: String,
    pub game: u32,
    pub profile: ProfileRef,
    pub arbiter_key: KeyRef,
    /// 6c: the algorithm in force for the previous game, which applies unless a new one is given.
    pub previous_algorithm: Option<(u32, Algorithm)>,
}

impl GameContext {
    /// A game not bound to any arbiter key: dry runs, rehearsals in memory, tests.
    pub fn unsigned(match_id: &str, game: u32, profile: ProfileRef) -> GameContext {
        GameContext {
            match_id: match_id.to_string(),
            game,
            profile,
            arbiter_key: KeyRef {
                principal: "arbiter".into(),
                fingerprint: "none (unsigned, in memory)".into(),
                demo: false,
            },
            previous_algorithm: None,
        }
    }
}

/// Declarations being prepared before the game is opened (not yet in any log).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Draft {
    pub white: Option<Player>,
    pub black: Option<Player>,
    pub operator: Option<String>,
    pub team: Vec<String>,
    pub algorithm: Option<Algorithm>,
    pub config_sha256: Option<String>,
    pub camps: Vec<Camp>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Phase {
    /// Declarations being prepared; nothing recorded yet.
    Draft,
    /// Line 0 written; the clock has not started.
    Opened,
    Playing,
    Ended,
}

/// A draw offer made by the human to the machine, with its consultation (9e).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HumanOffer {
    pub offered_at: Ms,
    /// Plies recorded when the offer was made.
    pub ply: usize,
    /// `Some(accepted?)` once answered (a machine move answers it as a rejection).
    pub answered: Option<bool>,
    pub consult_used: Ms,
    pub consulting: Option<(Ms, Vec<String>)>,
    pub limit_reached: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MachineOffer {
    pub at: Ms,
    pub ply: usize,
    pub justification: Justification,
    pub answered: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Stop {
    /// Rule 1: the arbiter stopped both clocks.
    Arbiter { since: Ms, reason: String },
    /// Rule 8a: the supervisor stopped the machine's clock to ask for information.
    Info { since: Ms, question: String },
    /// Rule 8b: power failure; `restored` starts the reset window.
    Power {
        since: Ms,
        text: String,
        restored: Option<Ms>,
        window_ms: Ms,
        reset_done: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Technical {
    pub since: Ms,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InternalReport {
    pub at: Ms,
    pub reading_ms: Ms,
    pub game_clock_ms: i64,
    pub diff_ms: i64,
    pub owed: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParamRequest {
    pub id: u32,
    pub name: String,
    pub advised: bool,
    pub decided: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub at: Ms,
    pub score: Score,
    pub termination: Termination,
    pub detail: String,
}

/// A corrupt or foreign log: an event that cannot follow the state it is applied to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("event {index} ({kind}): {message}")]
pub struct ReplayError {
    pub index: usize,
    pub kind: String,
    pub message: String,
}

#[derive(Debug, Clone)]
pub struct Game {
    pub ctx: GameContext,
    pub profile: Profile,
    pub phase: Phase,
    pub draft: Draft,
    pub decl: Option<Declarations>,
    pub board: Board,
    pub clock: Clock,
    pub started_at: Option<Ms>,
    pub stop: Option<Stop>,
    pub machine_has_moved: bool,
    pub infractions: u32,
    pub offer: Option<HumanOffer>,
    pub machine_offer: Option<MachineOffer>,
    pub technical: Option<Technical>,
    pub internal: Option<InternalReport>,
    pub params: Vec<ParamRequest>,
    pub disputes: u32,
    pub rulings: Vec<(u32, u32)>,
    pub outcome: Option<Outcome>,
    /// Whether the latest event applied is the machine's move (9d: its draw offer goes with it).
    pub last_was_machine_move: bool,
    /// Time of the latest event applied.
    pub last_at: Ms,
    /// Events applied so far.
    pub applied: usize,
}

fn refuse<T>(clause: &'static str, msg: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::new(clause, msg))
}

fn refuse_state<T>(msg: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::state(msg))
}

impl Game {
    /// A new game in the draft phase.
    pub fn new(ctx: GameContext, profile: Profile) -> Game {
        let board = match profile.profile.game {
            GameKind::Chess => Board::new_chess(),
            GameKind::Free => Board::new_free(),
        };
        let clock = Clock::new(profile.time_control.truncate_move_time_to_seconds);
        Game {
            ctx,
            profile,
            phase: Phase::Draft,
            draft: Draft::default(),
            decl: None,
            board,
            clock,
            started_at: None,
            stop: None,
            machine_has_moved: false,
            infractions: 0,
            offer: None,
            machine_offer: None,
            technical: None,
            internal: None,
            params: Vec::new(),
            disputes: 0,
            rulings: Vec::new(),
            outcome: None,
            last_was_machine_move: false,
            last_at: 0,
            applied: 0,
        }
    }

    /// Rebuild a game from its events (the first must be `game_opened`).
    pub fn replay<'a>(events: impl IntoIterator<Item = &'a Event>) -> Result<Game, ReplayError> {
        let mut it = events.into_iter();
        let first = it.next().ok_or_else(|| ReplayError {
            index: 0,
            kind: "-".into(),
            message: "the log is empty".into(),
        })?;
        let EventKind::GameOpened(opening) = &first.kind else {
            return Err(ReplayError {
                index: 0,
                kind: first.kind_name(),
                message: "the first entry must be game_opened".into(),
            });
        };
        let mut g = Game::from_opening(opening).map_err(|m| ReplayError {
            index: 0,
            kind: "game_opened".into(),
            message: m,
        })?;
        g.evolve(first).map_err(|m| ReplayError {
            index: 0,
            kind: "game_opened".into(),
            message: m,
        })?;
        for (i, e) in it.enumerate() {
            g.evolve(e).map_err(|m| ReplayError {
                index: i + 1,
                kind: e.kind_name(),
                message: m,
            })?;
        }
        Ok(g)
    }

    /// The draft game a `game_opened` entry describes.
    pub fn from_opening(o: &Opening) -> Result<Game, String> {
        let profile = Profile::parse(&o.profile.file, &o.profile.toml)
            .map_err(|e| format!("embedded rules profile: {e}"))?;
        let ctx = GameContext {
            match_id: o.match_id.clone(),
            game: o.game,
            profile: o.profile.clone(),
            arbiter_key: o.arbiter_key.clone(),
            previous_algorithm: None,
        };
        Ok(Game::new(ctx, profile))
    }

    // ----- derived facts -------------------------------------------------------------------

    pub fn player(&self, side: Side) -> Option<&Player> {
        match &self.decl {
            Some(d) => Some(if side == Side::White {
                &d.white
            } else {
                &d.black
            }),
            None => match side {
                Side::White => self.draft.white.as_ref(),
                Side::Black => self.draft.black.as_ref(),
            },
        }
    }

    fn side_of_kind(&self, kind: PlayerKind) -> Option<Side> {
        let mut found = Side::BOTH
            .iter()
            .filter(|s| self.player(**s).is_some_and(|p| p.kind == kind));
        match (found.next(), found.next()) {
            (Some(s), None) => Some(*s),
            _ => None,
        }
    }

    /// The machine's side (exactly one machine).
    pub fn machine_side(&self) -> Option<Side> {
        self.side_of_kind(PlayerKind::Machine)
    }

    /// The human's side (exactly one human).
    pub fn human_side(&self) -> Option<Side> {
        self.side_of_kind(PlayerKind::Human)
    }

    fn need_machine(&self) -> Result<Side, Refusal> {
        self.machine_side().ok_or_else(|| {
            Refusal::new(
                c::OPERATOR_FIXED,
                "operator commands need exactly one machine player",
            )
        })
    }

    fn need_human(&self) -> Result<Side, Refusal> {
        self.human_side()
            .ok_or_else(|| Refusal::state("this game has no human player"))
    }

    fn resolve(&self, s: &SideRef) -> Result<Side, Refusal> {
        match s {
            SideRef::Side(s) => Ok(*s),
            SideRef::Human => self.need_human(),
            SideRef::Machine => self.need_machine(),
        }
    }

    pub fn moves_of(&self, side: Side) -> u32 {
        self.board.moves_by(side)
    }

    /// Remaining time of a side at `now` (negative after a flag fall).
    pub fn remaining(&self, side: Side, now: Ms) -> i64 {
        self.clock
            .remaining(&self.profile, side, self.moves_of(side), now)
    }

    /// What the clock face of a side shows at `now`.
    pub fn displayed(&self, side: Side, now: Ms) -> i64 {
        self.clock
            .displayed(&self.profile, side, self.moves_of(side), now)
    }

    pub fn flag_at(&self) -> Option<Ms> {
        if self.phase != Phase::Playing {
            return None;
        }
        // A flag already down (a clock corrected below zero) falls now, not in the past.
        self.clock
            .flag_at(&self.profile, |s| self.board.moves_by(s))
            .map(|t| t.max(self.last_at))
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

    /// When the 8b reset window ends, if one is open.
    pub fn reset_window_end(&self) -> Option<Ms> {
        match &self.stop {
            Some(Stop::Power {
                restored: Some(r),
                window_ms,
                ..
            }) => Some(r.saturating_add(*window_ms)),
            _ => None,
        }
    }

    /// When the no-show (default) time passes for a side that has not yet moved.
    pub fn no_show_at(&self) -> Option<Ms> {
        let secs = self.profile.limits.as_ref()?.no_show_seconds?;
        let start = self.started_at?;
        (self.phase == Phase::Playing && self.board.plies() < 2)
            .then_some(start.saturating_add(secs * 1000))
    }

    /// The next moment something changes on its own: flag fall, 9e limit, 8b window, no-show.
    pub fn next_deadline(&self) -> Option<Ms> {
        [
            self.flag_at(),
            self.consultation_limit_at(),
            self.reset_window_end(),
            self.no_show_at(),
        ]
        .into_iter()
        .flatten()
        .filter(|t| *t >= self.last_at)
        .min()
    }

    /// A result the state itself calls for (position, forfeit, move cap), not yet recorded.
    fn due_result(&self) -> Option<Event> {
        if self.phase != Phase::Playing {
            return None;
        }
        let at = self.last_at;
        let fen = self.board.fen();
        if let Some(end) = self.board.automatic_end() {
            let score = if end == super::board::PositionEnd::Checkmate {
                Score::win_for(self.board.winner_by_mate())
            } else {
                Score::Draw
            };
            let kind = EventKind::GameEnded {
                score,
                termination: Termination::from_position(end),
                detail: end.describe().to_string(),
                fen,
                ruling: None,
            };
            return Some(Event::new(at, Actor::Kit, c::LAWS, kind));
        }
        if let (Some(o), Some(m)) = (&self.profile.operator_errors, self.machine_side())
            && self.infractions >= o.forfeit_at_infraction
        {
            let detail = format!(
                "infraction {} of rule 7c in this game: the machine forfeits",
                self.infractions
            );
            let kind = EventKind::GameEnded {
                score: Score::win_for(m.other()),
                termination: Termination::Forfeit,
                detail,
                fen,
                ruling: None,
            };
            return Some(Event::new(at, Actor::Kit, c::WRONG_MOVE_PRESSED, kind));
        }
        if let Some(l) = &self.profile.limits
            && let Some(max) = l.max_plies
            && self.board.plies() >= max as usize
        {
            let kind = EventKind::GameEnded {
                score: Score::Draw,
                termination: Termination::MoveCap,
                detail: format!("{max} moves played: the game is drawn"),
                fen,
                ruling: None,
            };
            return Some(Event::new(at, Actor::Kit, c::LAWS, kind));
        }
        None
    }

    /// A game-ending event at the current position.
    fn ended(&self, score: Score, termination: Termination, detail: String) -> EventKind {
        EventKind::GameEnded {
            score,
            termination,
            detail,
            fen: self.board.fen(),
            ruling: None,
        }
    }

    /// The human's side, when the machine's draw offer awaits his answer.
    fn machine_offer_to_answer(&self) -> Result<Side, Refusal> {
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
    fn consultation_close(&self, now: Ms, actor: Actor) -> Option<Event> {
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

    /// The earliest event that is due at or before `now` because time passed or the state calls
    /// for it. The shell appends and applies it, then asks again, before any command at `now`.
    pub fn due(&self, now: Ms) -> Option<Event> {
        if let Some(e) = self.due_result() {
            return Some(e);
        }
        if self.phase == Phase::Ended {
            // The game ended during a consultation: record its time (9e).
            return self.consultation_close(self.last_at, Actor::Kit);
        }
        let flag = self.flag_at().filter(|t| *t <= now);
        let consult = self.consultation_limit_at().filter(|t| *t <= now);
        match (flag, consult) {
            (Some(f), cl) if cl.is_none_or(|x| f <= x) => {
                let side = self.clock.running()?;
                let (score, termination, detail) = if self.board.can_checkmate(side.other()) {
                    (
                        Score::win_for(side.other()),
                        Termination::FlagFall,
                        match self.profile.period_of(side, self.moves_of(side)).1 {
                            Some(n) => format!("{side}'s flag fell before its move {n} was made"),
                            None => format!("{side}'s flag fell in the last period"),
                        },
                    )
                } else {
                    (
                        Score::Draw,
                        Termination::FlagFallDraw,
                        format!(
                            "{side}'s flag fell, but {} cannot checkmate by any legal sequence (FIDE Laws 6.9)",
                            side.other()
                        ),
                    )
                };
                let kind = self.ended(score, termination, detail);
                Some(Event::new(f, Actor::Kit, c::TIME_CONTROL, kind))
            }
            (_, Some(t)) => {
                let o = self.offer.as_ref()?;
                let (since, _) = o.consulting.as_ref()?;
                let used = t.saturating_sub(*since);
                Some(Event::new(
                    t,
                    Actor::Kit,
                    c::CONSULTATION,
                    EventKind::ConsultationEnded {
                        used_ms: used,
                        total_ms: o.consult_used + used,
                        limit_reached: true,
                    },
                ))
            }
            _ => None,
        }
    }

    // ----- declarations (draft phase: in memory until `arbiter open`) -------------------------

    fn declared_clause(cmd: &Command) -> Option<(&'static str, &'static str)> {
        Some(match cmd {
            Command::DeclarePlayer { .. } => (
                c::ARBITER,
                "players and colours are fixed once the game is opened",
            ),
            Command::DeclareOperator { .. } => (
                c::OPERATOR_FIXED,
                "the machine operator may not be changed during a game (4d); change him between games (4c)",
            ),
            Command::DeclareTeam { .. } => (
                c::TEAM,
                "the machine team is registered before the start of the game",
            ),
            Command::DeclareAlgorithm { .. } => (
                c::INTERNAL_CLOCK,
                "the internal-clock algorithm is presented before the start of the game",
            ),
            Command::DeclareConfig { .. } | Command::DeclareConfigFile { .. } => (
                c::TECHNICAL,
                "the configuration document is submitted before the game",
            ),
            Command::DeclareCamp { .. } => (
                c::ARBITER,
                "the camps' witness keys are declared before the game",
            ),
            _ => return None,
        })
    }

    /// Whether a command is a pre-game declaration.
    pub fn is_declaration(cmd: &Command) -> bool {
        Self::declared_clause(cmd).is_some()
    }

    /// Apply a declaration to the draft (before `arbiter open`).
    pub fn declare(&mut self, cmd: &Command) -> Result<(), Refusal> {
        if self.phase != Phase::Draft
            && let Some((cl, msg)) = Self::declared_clause(cmd)
        {
            return refuse(cl, msg);
        }
        match cmd {
            Command::DeclarePlayer { side, kind, name } => {
                let p = Some(Player {
                    name: name.clone(),
                    kind: *kind,
                });
                match side {
                    Side::White => self.draft.white = p,
                    Side::Black => self.draft.black = p,
                }
            }
            Command::DeclareOperator { name } => self.draft.operator = Some(name.clone()),
            Command::DeclareTeam { names } => self.draft.team = names.clone(),
            Command::DeclareAlgorithm { threshold_ms, text } => {
                let threshold_ms = threshold_ms.unwrap_or_else(|| self.profile.sync_threshold_ms());
                self.draft.algorithm = Some(Algorithm {
                    text: text.clone(),
                    threshold_ms,
                    source: "declared".into(),
                });
            }
            Command::DeclareConfig { sha256 } => self.draft.config_sha256 = Some(sha256.clone()),
            Command::DeclareCamp { name, key } => {
                self.draft.camps.retain(|c| c.name != *name);
                self.draft.camps.push(Camp {
                    name: name.clone(),
                    key: key.clone(),
                });
            }
            Command::DeclareConfigFile { path } => {
                return refuse(
                    c::TECHNICAL,
                    format!(
                        "the digest of {path} is computed by the shell before the game sees it"
                    ),
                );
            }
            _ => return refuse_state("not a declaration"),
        }
        Ok(())
    }

    fn opening(&self) -> Result<Opening, Refusal> {
        let d = &self.draft;
        let white = d.white.clone().ok_or_else(|| {
            Refusal::new(
                c::ARBITER,
                "declare white first: arbiter declare white human|machine NAME",
            )
        })?;
        let black = d.black.clone().ok_or_else(|| {
            Refusal::new(
                c::ARBITER,
                "declare black first: arbiter declare black human|machine NAME",
            )
        })?;
        let machines = [&white, &black]
            .iter()
            .filter(|p| p.kind == PlayerKind::Machine)
            .count();
        let operator = match (&d.operator, machines) {
            (Some(o), _) => o.clone(),
            (None, 0) => String::new(),
            (None, _) => {
                return refuse(
                    c::OPERATOR_CHANGE_BETWEEN,
                    "declare the machine operator for this game: arbiter declare operator NAME",
                );
            }
        };
        let algorithm = match (&d.algorithm, &self.ctx.previous_algorithm) {
            (Some(a), _) => a.clone(),
            (None, Some((n, a))) => Algorithm { source: format!("carried over from game {n}"), ..a.clone() },
            (None, None) => Algorithm {
                text: "default of rule 6c: adjust the internal clock to the game clock when a move is entered and they differ by the threshold or more".into(),
                threshold_ms: self.profile.sync_threshold_ms(),
                source: "default".into(),
            },
        };
        Ok(Opening {
            match_id: self.ctx.match_id.clone(),
            game: self.ctx.game,
            profile: self.ctx.profile.clone(),
            declarations: Declarations {
                white,
                black,
                operator,
                team: d.team.clone(),
                algorithm,
                config_sha256: d.config_sha256.clone(),
                camps: d.camps.clone(),
            },
            arbiter_key: self.ctx.arbiter_key.clone(),
            kit_version: env!("CARGO_PKG_VERSION").to_string(),
        })
    }

    // ----- decide ---------------------------------------------------------------------------

    fn playing(&self) -> Result<(), Refusal> {
        match self.phase {
            Phase::Draft | Phase::Opened => {
                refuse(c::TIME_CONTROL, "the game has not started: arbiter start")
            }
            Phase::Ended => refuse_state(match &self.outcome {
                Some(o) => format!("the game is over ({}, {})", o.score.text(), o.detail),
                None => "the game is over".into(),
            }),
            Phase::Playing => Ok(()),
        }
    }

    fn opened(&self) -> Result<(), Refusal> {
        if self.phase == Phase::Draft {
            refuse(
                c::MACHINE_LOG,
                "the game is not opened yet: arbiter open (or arbiter start)",
            )
        } else {
            Ok(())
        }
    }

    fn clock_must_run(&self) -> Result<(), Refusal> {
        match &self.stop {
            None => Ok(()),
            Some(Stop::Arbiter { reason, .. }) => refuse(
                c::ARBITER,
                format!("the clocks are stopped by the arbiter ({reason}): arbiter resume first"),
            ),
            Some(Stop::Info { .. }) => refuse(
                c::TECHNICAL,
                "the machine's clock is stopped for the supervisor's question: supervisor info-resume first",
            ),
            Some(Stop::Power { .. }) => refuse(
                c::POWER_FAILURE,
                "the game is suspended after a power failure",
            ),
        }
    }

    fn ev(&self, now: Ms, actor: Actor, clause: &str, kind: EventKind) -> Event {
        Event::new(now, actor, clause, kind)
    }

    /// Turn a command into the events that record it, or refuse it. Pure: state is unchanged.
    pub fn decide(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        if now < self.last_at {
            return refuse_state(format!(
                "time {now} ms is before the latest entry ({} ms)",
                self.last_at
            ));
        }
        if let Some(d) = self.due(now) {
            return refuse_state(format!(
                "'{}' at {} ms must be recorded first",
                d.kind_name(),
                d.at
            ));
        }
        if Self::is_declaration(cmd) {
            return match Self::declared_clause(cmd) {
                Some((cl, msg)) if self.phase != Phase::Draft => refuse(cl, msg),
                _ => refuse_state("declarations go to the draft (Game::declare)"),
            };
        }
        use Command as C;
        let one = |actor: Actor, clause: &str, kind: EventKind| {
            Ok(vec![self.ev(now, actor, clause, kind)])
        };
        match cmd {
            C::Open => {
                if self.phase != Phase::Draft {
                    return refuse_state("the game is already opened");
                }
                one(
                    Actor::Arbiter,
                    c::MACHINE_LOG,
                    EventKind::GameOpened(Box::new(self.opening()?)),
                )
            }
            C::Start => {
                let mut out = Vec::new();
                match self.phase {
                    Phase::Draft => out.push(self.ev(
                        now,
                        Actor::Arbiter,
                        c::MACHINE_LOG,
                        EventKind::GameOpened(Box::new(self.opening()?)),
                    )),
                    Phase::Opened => {}
                    _ => return refuse_state("the game has already started"),
                }
                out.push(self.ev(
                    now,
                    Actor::Arbiter,
                    c::TIME_CONTROL,
                    EventKind::ClockStarted { side: Side::White },
                ));
                Ok(out)
            }
            C::Move { text } => self.decide_move(text, now),
            C::Stop { reason } => {
                self.playing()?;
                if let Some(s) = &self.stop {
                    return refuse_state(format!(
                        "the clock is already stopped ({})",
                        stop_text(s)
                    ));
                }
                one(
                    Actor::Arbiter,
                    c::ARBITER,
                    EventKind::ClockStopped {
                        reason: reason.clone(),
                    },
                )
            }
            C::Resume => {
                self.playing()?;
                let side = self.board.side_to_move();
                match &self.stop {
                    None => refuse_state("the clock is running"),
                    Some(Stop::Arbiter { .. }) => {
                        one(Actor::Arbiter, c::ARBITER, EventKind::ClockResumed { side })
                    }
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
                            one(
                                Actor::Arbiter,
                                c::POWER_FAILURE,
                                EventKind::ClockResumed { side },
                            )
                        } else {
                            refuse(
                                c::POWER_FAILURE,
                                format!(
                                    "the machine team has until {} to reset the machine ({} left); earlier only when the operator reports operator reset-done",
                                    super::timefmt::clock((r + window_ms) as i64),
                                    super::timefmt::short((r + window_ms - now) as i64)
                                ),
                            )
                        }
                    }
                }
            }
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
                    (from + ms, *ms)
                } else {
                    (*ms, ms - from)
                };
                one(
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
                        clause,
                        "stop the clocks first (arbiter stop), then take back, then correct the clocks and resume",
                    );
                }
                if *plies > self.board.plies() {
                    return refuse(
                        clause,
                        format!("only {} moves are recorded", self.board.plies()),
                    );
                }
                let mut b = self.board.clone();
                let removed: Vec<String> = b.moves()[b.plies() - plies..]
                    .iter()
                    .map(|m| m.san.clone())
                    .collect();
                b.take_back(*plies).map_err(Refusal::state)?;
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
                        reason: reason.clone(),
                        fen: b.fen(),
                    },
                ));
                Ok(out)
            }
            C::WrongMove { played, correct } => self.decide_wrong_move(played, correct, now),
            C::PowerFailure { text } => {
                self.playing()?;
                if self.profile.power_failure.is_none() {
                    // nothing could restore the game: the arbiter stops the clocks (rule 1)
                    return refuse(
                        c::POWER_FAILURE,
                        "this rules profile has no [power_failure] section: arbiter stop REASON",
                    );
                }
                if matches!(self.stop, Some(Stop::Power { .. })) {
                    return refuse(c::POWER_FAILURE, "the game is already suspended");
                }
                one(
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
                    Some(Stop::Power { restored: None, .. }) => one(
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
                    }) => one(Actor::Operator, c::POWER_FAILURE, EventKind::MachineReset),
                    Some(Stop::Power { restored: None, .. }) => {
                        refuse(c::POWER_FAILURE, "power is not restored yet")
                    }
                    _ => refuse(c::POWER_FAILURE, "there is no reset window open"),
                }
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
                one(
                    Actor::Arbiter,
                    c::PARAMETER_CORRECTION,
                    EventKind::ParameterDecided {
                        id: *id,
                        permitted: *permit,
                        reason: reason.clone(),
                    },
                )
            }
            C::Dispute { text } => {
                self.opened()?;
                one(
                    Actor::Arbiter,
                    c::COMMITTEE,
                    EventKind::DisputeRaised {
                        id: self.disputes + 1,
                        text: text.clone(),
                    },
                )
            }
            C::Ruling { dispute, text } => {
                self.opened()?;
                if *dispute == 0 || *dispute > self.disputes {
                    return refuse(c::COMMITTEE, format!("there is no dispute {dispute}"));
                }
                one(
                    Actor::Committee,
                    c::COMMITTEE,
                    EventKind::RulingGiven {
                        id: self.rulings.len() as u32 + 1,
                        dispute: *dispute,
                        text: text.clone(),
                    },
                )
            }
            C::Decide {
                ruling,
                score,
                reason,
            } => {
                self.playing()?;
                if !self.rulings.iter().any(|(r, _)| r == ruling) {
                    return refuse(
                        c::COMMITTEE,
                        format!(
                            "there is no ruling {ruling}: the arbiter's decision is bound by the committee's ruling (12c)"
                        ),
                    );
                }
                one(
                    Actor::Arbiter,
                    c::COMMITTEE,
                    EventKind::GameEnded {
                        score: *score,
                        termination: Termination::ArbiterDecision,
                        detail: reason.clone(),
                        fen: self.board.fen(),
                        ruling: Some(*ruling),
                    },
                )
            }
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
                    return refuse(c::LAWS, format!("{side} has already moved"));
                }
                let since = now.saturating_sub(self.started_at.unwrap_or(0));
                if since < secs * 1000 {
                    return refuse(
                        c::LAWS,
                        format!(
                            "the default time is {}; only {} has passed since the start",
                            super::timefmt::clock(secs as i64 * 1000),
                            super::timefmt::clock(since as i64)
                        ),
                    );
                }
                let detail = format!("{side} did not appear within the default time");
                one(
                    Actor::Arbiter,
                    c::LAWS,
                    self.ended(Score::win_for(side.other()), Termination::NoShow, detail),
                )
            }
            C::Note { text } => {
                self.opened()?;
                one(
                    Actor::Arbiter,
                    c::MACHINE_LOG,
                    EventKind::Note { text: text.clone() },
                )
            }
            C::RestartGap { gap_ms, charge } => {
                self.playing()?;
                let side = self.clock.running();
                one(
                    Actor::Arbiter,
                    if *charge {
                        c::OPERATOR_CORRECTION
                    } else {
                        c::POWER_FAILURE
                    },
                    EventKind::RestartGap {
                        gap_ms: *gap_ms,
                        charged: *charge,
                        side,
                    },
                )
            }
            C::InternalClock { reading_ms } => {
                self.playing()?;
                let m = self.need_machine()?;
                let game_clock = self.remaining(m, now);
                let threshold = self
                    .decl
                    .as_ref()
                    .map_or(self.profile.sync_threshold_ms(), |d| {
                        d.algorithm.threshold_ms
                    });
                let diff = *reading_ms as i64 - game_clock;
                let owed = diff.unsigned_abs() >= threshold;
                one(
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
                match &self.internal {
                    Some(r) if r.owed => one(
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
                one(
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
                one(
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
                    Some(r) if r.decided.is_none() => one(
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
                one(
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
                one(
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
                one(
                    Actor::Operator,
                    c::RESIGN,
                    self.ended(
                        Score::win_for(m.other()),
                        Termination::Resignation,
                        format!("the machine ({m}) resigned"),
                    ),
                )
            }
            C::HumanResign => {
                self.playing()?;
                let h = self.need_human()?;
                one(
                    Actor::Arbiter,
                    c::RESIGN,
                    self.ended(
                        Score::win_for(h.other()),
                        Termination::Resignation,
                        format!("the human ({h}) resigned"),
                    ),
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
                one(
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
                one(
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
                one(
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
                one(Actor::Supervisor, c::TECHNICAL, EventKind::InfoResumed)
            }
            C::WorkNote { text } => {
                self.opened()?;
                one(
                    Actor::Supervisor,
                    c::TECHNICAL,
                    EventKind::WorkNote { text: text.clone() },
                )
            }
            C::TablebaseDraw => {
                self.playing()?;
                self.need_machine()?;
                let tb = self.profile.tablebase.as_ref().ok_or_else(|| {
                    Refusal::new(
                        c::TABLEBASE,
                        "this rules profile has no [tablebase] section",
                    )
                })?;
                let men = self.board.men().ok_or_else(|| {
                    Refusal::new(c::TABLEBASE, "tablebase draws apply to chess only")
                })?;
                if men > tb.max_men {
                    return refuse(
                        c::TABLEBASE,
                        format!(
                            "the position has {men} men; endgame databases cover at most {}",
                            tb.max_men
                        ),
                    );
                }
                let detail = format!("the machine's endgame database shows a draw ({men} men)");
                one(
                    Actor::Operator,
                    c::TABLEBASE,
                    self.ended(Score::Draw, Termination::TablebaseDraw, detail),
                )
            }
            C::Claim { kind, by_human } => {
                self.playing()?;
                let claimant = if *by_human {
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
                let (ok, term, detail) = match kind {
                    ClaimKind::Threefold => {
                        let n = self.board.repetitions();
                        (
                            n >= 3,
                            Termination::ThreefoldClaim,
                            format!(
                                "threefold repetition claimed by {claimant} (position occurred {n} times)"
                            ),
                        )
                    }
                    ClaimKind::FiftyMoves => {
                        let n = self.board.halfmove_clock();
                        (
                            n >= 100,
                            Termination::FiftyMoveClaim,
                            format!(
                                "50-move rule claimed by {claimant} ({} moves without capture or pawn move)",
                                n / 2
                            ),
                        )
                    }
                };
                if !ok {
                    return refuse(c::LAWS, format!("the claim is not correct: {detail}"));
                }
                let actor = if *by_human {
                    Actor::Arbiter
                } else {
                    Actor::Operator
                };
                one(actor, c::LAWS, self.ended(Score::Draw, term, detail))
            }
            C::HumanOfferDraw => {
                self.playing()?;
                let h = self.need_human()?;
                let m = self.need_machine()?;
                let last_by_human = self.board.plies() > 0 && self.board.side_to_move() == m;
                if !last_by_human {
                    return refuse(
                        c::CONSULTATION,
                        "the human offers a draw with his move: make the move first, then human offer-draw",
                    );
                }
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
                one(
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
                one(
                    Actor::Arbiter,
                    c::MACHINE_DRAW_OFFER,
                    EventKind::DrawDeclined {
                        by: h,
                        how: DeclineHow::Declined,
                    },
                )
            }
            C::DeclarePlayer { .. }
            | C::DeclareOperator { .. }
            | C::DeclareTeam { .. }
            | C::DeclareAlgorithm { .. }
            | C::DeclareConfig { .. }
            | C::DeclareCamp { .. }
            | C::DeclareConfigFile { .. } => refuse_state("declarations go to the draft"),
        }
    }

    fn decide_move(&self, text: &str, now: Ms) -> Result<Vec<Event>, Refusal> {
        self.playing()?;
        self.clock_must_run()?;
        let side = self.board.side_to_move();
        let mv = self
            .board
            .check(text)
            .map_err(|m| Refusal::new(c::LAWS, m))?;
        let mut after = self.board.clone();
        after.play(&mv).map_err(Refusal::state)?;
        let moves_after = after.moves_by(side);
        let elapsed = self.clock.turn_elapsed(side, now);
        let spent = if self.clock.truncate {
            elapsed / 1000 * 1000
        } else {
            elapsed
        };
        let increment = self.profile.increment_for_move(side, moves_after);
        let remaining = self.clock.available(&self.profile, side, moves_after) + increment as i64
            - (self.clock.used[side.index()] + spent) as i64;
        let is_machine = self.machine_side() == Some(side);
        let declines_draw = if is_machine {
            self.offer.as_ref().is_some_and(|o| o.answered.is_none())
        } else {
            self.machine_offer
                .as_ref()
                .is_some_and(|o| o.answered.is_none())
        };
        let clause = match self.player(side).map(|p| p.kind) {
            Some(PlayerKind::Machine) => c::EXECUTE_MACHINE_MOVE,
            Some(PlayerKind::Human) => c::ENTER_HUMAN_MOVE,
            None => c::TIME_CONTROL,
        };
        let kind = EventKind::MoveMade {
            side,
            san: mv.san,
            uci: mv.uci,
            spent_ms: spent,
            increment_ms: increment,
            remaining_ms: remaining,
            fen: after.fen(),
            declines_draw,
        };
        Ok(vec![self.ev(now, Actor::Operator, clause, kind)])
    }

    fn decide_wrong_move(
        &self,
        played: &str,
        correct: &str,
        now: Ms,
    ) -> Result<Vec<Event>, Refusal> {
        self.playing()?;
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
            if self.board.check(played).is_ok_and(|p| p.uci == ok.uci) {
                return refuse(
                    c::WRONG_MOVE_NOTIFY,
                    "the move played is the machine's move",
                );
            }
            let kind = EventKind::WrongMove {
                played: played.to_string(),
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

    fn decide_machine_offer(&self, j: &Justification, now: Ms) -> Result<Vec<Event>, Refusal> {
        self.playing()?;
        let m = self.need_machine()?;
        let rules = self.profile.draw_offers.as_ref().ok_or_else(|| {
            Refusal::new(
                c::MACHINE_DRAW_OFFER,
                "this rules profile has no [draw_offers] section",
            )
        })?;
        if self.offer.as_ref().is_some_and(|o| o.answered.is_none()) {
            return refuse(
                c::DRAW_ANSWER,
                "answer the human's draw offer first (operator accept-draw or decline-draw)",
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

    // ----- evolve ---------------------------------------------------------------------------

    /// Apply one event. The same function serves the live session and replay; an error means the
    /// event cannot follow this state (a corrupt or foreign log).
    pub fn evolve(&mut self, e: &Event) -> Result<(), String> {
        if e.at < self.last_at {
            return Err(format!(
                "time goes backwards: {} ms after {} ms",
                e.at, self.last_at
            ));
        }
        let at = e.at;
        match &e.kind {
            EventKind::GameOpened(o) => {
                if self.phase != Phase::Draft {
                    return Err("game_opened after the game was opened".into());
                }
                self.decl = Some(o.declarations.clone());
                self.phase = Phase::Opened;
            }
            EventKind::ClockStarted { side } => {
                if self.phase != Phase::Opened {
                    return Err("clock_started when the game is not waiting to start".into());
                }
                self.started_at = Some(at);
                self.phase = Phase::Playing;
                self.clock.start_turn(*side, at);
            }
            EventKind::MoveMade {
                side,
                san,
                uci,
                spent_ms,
                increment_ms,
                declines_draw,
                ..
            } => {
                self.need_phase(Phase::Playing)?;
                if *side != self.board.side_to_move() {
                    return Err(format!("{side} moved out of turn"));
                }
                let charged = self.clock.end_turn(at);
                if charged != *spent_ms {
                    return Err(format!(
                        "the move's time is {charged} ms by the clock, the entry says {spent_ms} ms"
                    ));
                }
                self.board.play(&super::board::RecordedMove {
                    san: san.clone(),
                    uci: uci.clone(),
                })?;
                self.clock.add(*side, *increment_ms as i64);
                self.clock.start_turn(side.other(), at);
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
            EventKind::ClockStopped { reason } => {
                self.clock.stop(at);
                self.stop = Some(Stop::Arbiter {
                    since: at,
                    reason: reason.clone(),
                });
            }
            EventKind::ClockResumed { side } => {
                if *side != self.board.side_to_move() {
                    return Err(format!(
                        "resumed {side}'s clock, but {} is to move",
                        self.board.side_to_move()
                    ));
                }
                if self.clock.turn.is_none() {
                    self.clock.turn = Some(super::clock::Turn {
                        side: *side,
                        banked: 0,
                        since: None,
                    });
                }
                self.clock.resume(at);
                self.stop = None;
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
                self.clock.end_turn(at);
                self.board.take_back(*plies)?;
                self.clock.turn = Some(super::clock::Turn {
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
            EventKind::WrongMove {
                correct_uci,
                correct,
                pressed,
                infraction,
                penalty_ms,
                ..
            } => {
                self.infractions = *infraction;
                if *pressed {
                    self.board.take_back(1)?;
                    self.board.play(&super::board::RecordedMove {
                        san: correct.clone(),
                        uci: correct_uci.clone(),
                    })?;
                    if let Some(h) = self.human_side() {
                        self.clock.add(h, *penalty_ms as i64);
                    }
                }
            }
            EventKind::TechnicalProblem { text } => {
                self.technical = Some(Technical {
                    since: at,
                    text: text.clone(),
                })
            }
            EventKind::TechnicalResolved { .. } => self.technical = None,
            EventKind::WorkNote { .. }
            | EventKind::Note { .. }
            | EventKind::DisputeRaised { .. } => {
                if let EventKind::DisputeRaised { id, .. } = &e.kind {
                    self.disputes = *id;
                }
            }
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
            EventKind::MachineReset => {
                if let Some(Stop::Power { reset_done, .. }) = self.stop.as_mut() {
                    *reset_done = true;
                }
            }
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
            EventKind::RulingGiven { id, dispute, .. } => self.rulings.push((*id, *dispute)),
            EventKind::RestartGap {
                gap_ms,
                charged,
                side,
            } => {
                if let (false, Some(s)) = (charged, side) {
                    self.clock.add(*s, *gap_ms as i64);
                }
            }
            EventKind::GameEnded {
                score,
                termination,
                detail,
                ..
            } => {
                if self.phase == Phase::Ended {
                    return Err("game_ended twice".into());
                }
                self.clock.stop(at);
                // A consultation still in progress is closed by `due` with its own entry.
                self.phase = Phase::Ended;
                self.outcome = Some(Outcome {
                    at,
                    score: *score,
                    termination: *termination,
                    detail: detail.clone(),
                });
            }
            EventKind::Recovery(_)
            | EventKind::EngineLogArchived(_)
            | EventKind::ProgramArchived(_) => {}
        }
        self.last_was_machine_move = match &e.kind {
            EventKind::MoveMade { side, .. } => self.machine_side() == Some(*side),
            _ => false,
        };
        self.last_at = at;
        self.applied += 1;
        Ok(())
    }

    fn need_phase(&self, p: Phase) -> Result<(), String> {
        if self.phase == p {
            Ok(())
        } else {
            Err(format!("the game is {:?}, not {:?}", self.phase, p))
        }
    }

    /// Points of each side for the game's result under the profile's scoring.
    pub fn points(&self) -> Option<[f64; 2]> {
        let s = &self.profile.scoring;
        self.outcome.as_ref().map(|o| match o.score {
            Score::WhiteWins => [s.win, s.loss],
            Score::BlackWins => [s.loss, s.win],
            Score::Draw => [s.draw_first, s.draw_second],
        })
    }
}

fn stop_text(s: &Stop) -> String {
    match s {
        Stop::Arbiter { reason, .. } => format!("by the arbiter: {reason}"),
        Stop::Info { question, .. } => format!("by the supervisor: {question}"),
        Stop::Power { text, .. } => format!("power failure: {text}"),
    }
}
