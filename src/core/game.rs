//! The game: state, `decide` (command -> events, or a refusal naming the clause), `evolve`
//! (event -> state; the same fold live and in replay), `due` (events the passing of time causes:
//! flag fall, the 9e consultation limit, automatic results) and `next_deadline`.
//!
//! The rulebook is in the tree: `decide` and `evolve` here only dispatch; each rule family's
//! decisions, evolve arms and deadline queries live in one file under `game/`, which opens with the
//! clauses it implements:
//!
//! | file | rules |
//! |---|---|
//! | `setup.rs` | 1, 3, 4, 6c, 8a, 9c — declarations, opening, the start |
//! | `adjourn.rs` | a profile's `[adjournment]` — open or sealed move, engine stopped, resumption |
//! | `match_rules.rs` | a profile's `[match]` — operator replaced off the human's turn, colours by game number, a decided match |
//! | `start.rs` | the profile's start position per game: FEN, odds, Chess960 |
//! | `moves.rs` | 6a–6l, 7e — moves, corrections, takebacks, internal clock, parameters |
//! | `arbiter.rs` | 1, 5b — stops, resumptions, notes |
//! | `operator_errors.rs` | 7b, 7c — wrong moves, penalties |
//! | `technical.rs` | 8a, 8b — technical problems, power failure, restart gaps |
//! | `draws.rs` | 9 — offers, answers, resignation, the 9e consultation |
//! | `claims.rs` | 2, 10a — claims under the Laws, no-show, tablebase draw |
//! | `committee.rs` | 12 — disputes, rulings, decisions |
//! | `after.rs` | 13 — the machine's log and program handed over |
//! | `void.rs` | 1 — the arbiter voids a mis-keyed entry; the trail stays |
//! | `shogi.rs` | Denryu-sen 13, 23 — shogi's ends, the declaration, citations; any side's resignation |
use serde::Serialize;

use super::board::Board;
use super::clock::Clock;
use super::command::{ClaimKind, Command, SideRef, TablebaseProbe};
use super::event::*;
use super::rules::{GameKind, Profile};
use super::{Actor, Ms, Refusal, Side, clause as c};

mod adjourn; // Adjournments, sealed moves, breaks
mod after; // rule 13
mod arbiter; // rules 1, 5b
mod cite; // every rule: entries and refusals cite the profile's article map
mod claims; // rules 2, 10a
mod committee; // rule 12
mod draws; // rule 9
mod match_rules; // The [match] rules across games: operator, colours, decided match
mod moves; // rules 6a-6l, 7e
mod operator_errors; // rules 7b, 7c
mod setup; // rules 1, 3, 4, 6c, 8a, 9c
mod shogi; // Denryu-sen 13, 22, 23: shogi's ends, the declaration; any entrant's resignation
pub mod start; // Odds starts, Chess960, a FEN per game
mod technical; // rules 8a, 8b
mod void; // rule 1: the arbiter voids a mis-keyed entry
pub mod witness; // What the camps countersign at each time control

pub use adjourn::{Adjourned, seal};
pub use after::{HandoverDue, HandoverFacts, HandoverTerms};
pub use match_rules::MatchHistory;
pub use void::WINDOW as VOID_WINDOW;

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
        /// The reset window ended with no reset (recorded by the kit).
        window_ended: bool,
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

/// An event that cannot follow the state it is applied to: what `evolve` returns.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Inconsistent(pub String);

impl From<String> for Inconsistent {
    fn from(s: String) -> Inconsistent {
        Inconsistent(s)
    }
}

impl From<super::board::BoardError> for Inconsistent {
    fn from(e: super::board::BoardError) -> Inconsistent {
        Inconsistent(e.to_string())
    }
}

impl From<&str> for Inconsistent {
    fn from(s: &str) -> Inconsistent {
        Inconsistent(s.to_string())
    }
}

/// A `game_opened` entry whose embedded rules profile does not load.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("embedded rules profile: {0}")]
pub struct OpeningError(#[from] pub super::rules::ProfileError);

/// A corrupt or foreign log: an event that cannot follow the state it is applied to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("event {index} ({kind}): {message}")]
pub struct ReplayError {
    pub index: usize,
    pub kind: String,
    pub message: String,
}

/// A game's clocks at one moment ([`Game::clock_snapshot`]): its clock and each side's moves, all
/// a side's remaining time depends on but the instant it is read at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockSnapshot {
    clock: Clock,
    moves: [u32; 2],
}

impl ClockSnapshot {
    /// What [`Game::remaining`] said at `now` of the game the state was taken of, while it stood
    /// so (`profile`: its rules).
    pub fn remaining(&self, profile: &Profile, side: Side, now: Ms) -> i64 {
        self.clock
            .remaining(profile, side, self.moves[side.index()], now)
    }

    /// The side whose clock runs.
    pub fn running(&self) -> Option<Side> {
        self.clock.running()
    }
}

#[derive(Debug, Clone)]
pub struct Game {
    /// Shared: the game is cloned for every entry the session checks and at every void window.
    pub(in crate::core) ctx: std::sync::Arc<GameContext>,
    pub(in crate::core) profile: std::sync::Arc<Profile>,
    pub(in crate::core) phase: Phase,
    pub(in crate::core) draft: Draft,
    pub(in crate::core) decl: Option<Declarations>,
    pub(in crate::core) board: Board,
    pub(in crate::core) clock: Clock,
    pub(in crate::core) started_at: Option<Ms>,
    /// When the current session of play began: the clock's start, or the latest resumption of
    /// an adjournment (the hours of play an adjournment rule counts).
    pub(in crate::core) session_since: Option<Ms>,
    pub(in crate::core) stop: Option<Stop>,
    pub(in crate::core) machine_has_moved: bool,
    pub(in crate::core) infractions: u32,
    pub(in crate::core) offer: Option<HumanOffer>,
    pub(in crate::core) machine_offer: Option<MachineOffer>,
    pub(in crate::core) technical: Option<Technical>,
    pub(in crate::core) internal: Option<InternalReport>,
    pub(in crate::core) params: Vec<ParamRequest>,
    pub(in crate::core) disputes: u32,
    pub(in crate::core) rulings: Vec<(u32, u32)>,
    pub(in crate::core) outcome: Option<Outcome>,
    /// Whether the latest event applied is the machine's move (9d: its draw offer goes with it).
    pub(in crate::core) last_was_machine_move: bool,
    /// Time of the latest event applied.
    pub(in crate::core) last_at: Ms,
    /// Events applied so far.
    pub(in crate::core) applied: usize,
    /// Rule 13: what has been handed over after the game.
    pub(in crate::core) handed: after::Handed,
    /// 7b: the machine's move the arbiter recorded as owed after a wrong move on the board; the
    /// only move accepted next.
    pub(in crate::core) owed_move: Option<super::board::RecordedMove>,
    /// Rule 1: the recent entries a void rebuilds from (none before the first event).
    pub(in crate::core) recent: Option<Box<void::Recent>>,
    /// Rule 1: entries the arbiter voided; their effect is skipped.
    pub(in crate::core) voided: Vec<u64>,
    /// Clock presses whose move notation has not been entered yet, oldest first (4a, 6b).
    pub(in crate::core) presses: std::collections::VecDeque<Press>,
    /// 6d / 7e: moves taken back that the operator may type again while the arbiter keeps the
    /// clocks stopped; none charges time, and the resume starts the clock of the side to move.
    pub(in crate::core) retype: usize,
    /// The adjournment in progress.
    pub(in crate::core) adjourned: Option<Adjourned>,
    /// What the match's earlier games say (given by the shell; not in the log).
    pub(in crate::core) history: MatchHistory,
    /// What the camps are asked to countersign at the latest time control.
    pub(in crate::core) witness: witness::ControlWitness,
    /// [`Game::due_result`] depends on the applied entries only, so it is judged once
    /// after each entry, not at every tick; emptied by every change of state.
    pub(in crate::core) due_result_memo: DueMemo,
}

/// The result the state calls for, judged once per state. A cache, not state: it is
/// left out of the game's `Debug` so that a refusal's unchanged-state check does not see it.
#[derive(Clone, Default)]
pub(in crate::core) struct DueMemo(std::sync::OnceLock<Option<Event>>);

impl std::fmt::Debug for DueMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DueMemo")
    }
}

/// A clock press awaiting its move's notation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Press {
    pub side: Side,
    pub at: Ms,
    pub spent_ms: Ms,
    pub increment_ms: Ms,
    pub remaining_ms: i64,
    /// Byo-yomi periods that ran out during the move (with byo-yomi only).
    pub byoyomi_periods_lost: Option<u32>,
}

fn refuse<T>(
    clause: impl Into<std::borrow::Cow<'static, str>>,
    msg: impl Into<String>,
) -> Result<T, Refusal> {
    Err(Refusal::new(clause, msg))
}

fn refuse_state<T>(msg: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::state(msg))
}

impl Game {
    // ----- read access for the shell (fields are written only by the core) ---------------------

    /// Identity, rules reference and key the shell gave when creating the game.
    pub fn ctx(&self) -> &GameContext {
        &self.ctx
    }
    /// The rules profile in force.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }
    /// Draft, opened, playing or ended.
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// Declarations being prepared (before line 0).
    pub fn draft(&self) -> &Draft {
        &self.draft
    }
    /// The declarations recorded in line 0, once the game is opened.
    pub fn decl(&self) -> Option<&Declarations> {
        self.decl.as_ref()
    }
    /// The position and the moves played.
    pub fn board(&self) -> &Board {
        &self.board
    }
    /// The official clock.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }
    /// The clocks as they stand, to be read at any instant later ([`ClockSnapshot::remaining`]).
    pub fn clock_snapshot(&self) -> ClockSnapshot {
        ClockSnapshot {
            clock: self.clock.clone(),
            moves: Side::BOTH.map(|s| self.moves_of(s)),
        }
    }
    /// Whether the clocks stand as in `state`: every side's remaining time is then the same at
    /// any instant.
    pub fn clocks_stand_as(&self, state: &ClockSnapshot) -> bool {
        self.clock == state.clock && Side::BOTH.map(|s| self.moves_of(s)) == state.moves
    }
    /// The rules the game is played by, shared.
    pub fn profile_shared(&self) -> &std::sync::Arc<Profile> {
        &self.profile
    }
    /// Time of the latest event applied.
    pub fn last_at(&self) -> Ms {
        self.last_at
    }
    /// The result, once recorded.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }
    /// Rulings given: (ruling id, dispute id).
    pub fn rulings(&self) -> &[(u32, u32)] {
        &self.rulings
    }

    /// When the clock was started.
    pub fn started_at(&self) -> Option<Ms> {
        self.started_at
    }
    /// Why the clocks are stopped, if they are.
    pub fn stop(&self) -> Option<&Stop> {
        self.stop.as_ref()
    }
    /// Whether the machine has made a move in this game.
    pub fn machine_has_moved(&self) -> bool {
        self.machine_has_moved
    }
    /// 7c infractions recorded in this game.
    pub fn infractions(&self) -> u32 {
        self.infractions
    }
    /// The human's draw offer being considered (9e).
    pub fn offer(&self) -> Option<&HumanOffer> {
        self.offer.as_ref()
    }
    /// The machine's latest draw offer (9d).
    pub fn machine_offer(&self) -> Option<&MachineOffer> {
        self.machine_offer.as_ref()
    }
    /// The technical problem in progress (8a).
    pub fn technical(&self) -> Option<&Technical> {
        self.technical.as_ref()
    }
    /// The latest report of the machine's internal clock (6c).
    pub fn internal(&self) -> Option<&InternalReport> {
        self.internal.as_ref()
    }
    /// Parameter requests (6l).
    pub fn params(&self) -> &[ParamRequest] {
        &self.params
    }
    /// Disputes raised so far (12).
    pub fn disputes(&self) -> u32 {
        self.disputes
    }
    /// Whether the latest event applied is the machine's move.
    pub fn last_was_machine_move(&self) -> bool {
        self.last_was_machine_move
    }
    /// Events applied so far.
    pub fn applied(&self) -> usize {
        self.applied
    }

    /// 6c: the internal-clock threshold in force: the declared algorithm's, else the profile's.
    pub fn sync_threshold_ms(&self) -> Ms {
        self.decl
            .as_ref()
            .map_or(self.profile.sync_threshold_ms(), |d| {
                d.algorithm.threshold_ms
            })
    }

    /// Rule 1: the entries the arbiter voided (they stay in the log; their effect is gone).
    pub fn voided(&self) -> &[u64] {
        &self.voided
    }

    /// A new game in the draft phase.
    pub fn new(ctx: GameContext, profile: Profile) -> Game {
        let board = match (profile.profile.game, profile.start_for(ctx.game)) {
            // The profile was checked when parsed: its starts are legal positions.
            (GameKind::Chess, Some((fen, chess960))) => {
                Board::new_chess_from(&fen, chess960).unwrap_or_else(|_| Board::new_chess())
            }
            (GameKind::Chess, None) => Board::new_chess(),
            (GameKind::Shogi, _) => {
                Board::new_shogi(profile.shogi.as_ref().and_then(|s| s.start_sfen.as_deref()))
            }
            (GameKind::Free, _) => Board::new_free(),
        };
        let clock = Clock::new(profile.rounding());
        Game {
            ctx: std::sync::Arc::new(ctx),
            profile: std::sync::Arc::new(profile),
            phase: Phase::Draft,
            draft: Draft::default(),
            decl: None,
            board,
            clock,
            started_at: None,
            session_since: None,
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
            handed: after::Handed::default(),
            owed_move: None,
            recent: None,
            voided: Vec::new(),
            presses: std::collections::VecDeque::new(),
            retype: 0,
            adjourned: None,
            history: MatchHistory::default(),
            witness: witness::ControlWitness::default(),
            due_result_memo: DueMemo::default(),
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
            message: m.to_string(),
        })?;
        g.evolve(first).map_err(|m| ReplayError {
            index: 0,
            kind: "game_opened".into(),
            message: m.0,
        })?;
        for (i, e) in it.enumerate() {
            g.evolve(e).map_err(|m| ReplayError {
                index: i + 1,
                kind: e.kind_name(),
                message: m.0,
            })?;
        }
        Ok(g)
    }

    /// The draft game a `game_opened` entry describes.
    pub fn from_opening(o: &Opening) -> Result<Game, OpeningError> {
        let profile = Profile::parse(&o.profile.file, &o.profile.toml)?;
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

    /// Moves `side` has completed on the clock: those on the board and its presses whose notation
    /// is still to come (the time control counts presses).
    pub fn moves_of(&self, side: Side) -> u32 {
        let pressed = self.presses.iter().filter(|p| p.side == side).count();
        self.board
            .moves_by(side)
            .saturating_add(u32::try_from(pressed).unwrap_or(u32::MAX))
    }

    /// The side whose turn it is on the clock: the side to move on the board, or after presses
    /// that ran ahead of their notation, the side the last press handed the clock to.
    pub fn clock_side(&self) -> Side {
        self.presses
            .back()
            .map_or_else(|| self.board.side_to_move(), |p| p.side.other())
    }

    /// Clock presses awaiting their move's notation, oldest first.
    pub fn pending_presses(&self) -> impl Iterator<Item = &Press> {
        self.presses.iter()
    }

    /// Refuse what changes the moves while a press awaits its notation.
    fn no_pending_press(&self, clause: &'static str) -> Result<(), Refusal> {
        match self.presses.front() {
            Some(p) => refuse(
                clause,
                format!(
                    "{} pressed the clock at {} and its move is not entered yet: enter it first (move SAN)",
                    p.side,
                    super::timefmt::clock(i64::try_from(p.at).unwrap_or(i64::MAX))
                ),
            ),
            None => Ok(()),
        }
    }

    /// Remaining time of a side at `now` (negative after a flag fall).
    pub fn remaining(&self, side: Side, now: Ms) -> i64 {
        self.clock
            .remaining(&self.profile, side, self.moves_of(side), now)
    }

    /// The time `side` has left as the profile's flag rule counts it, from its clock's
    /// `remaining`: under shogi-server's rule (Denryu-sen 22.3) the increment of the move in
    /// progress counts toward it, so a clock up to the increment below zero has not fallen, and
    /// the flag falls at 0 counted so; never below 0. Other rules: `remaining` as it is.
    pub fn counted_remaining(&self, side: Side, remaining: i64) -> i64 {
        if self.profile.time_control.flag != super::rules::FlagRule::ShogiServer || remaining >= 0 {
            return remaining;
        }
        remaining
            .saturating_add(self.increment_in_progress(side))
            .max(0)
    }

    /// The increment of `side`'s move in progress (its next move), in ms.
    fn increment_in_progress(&self, side: Side) -> i64 {
        let n = self.moves_of(side).saturating_add(1);
        i64::try_from(self.profile.increment_for_move(side, n)).unwrap_or(i64::MAX)
    }

    /// A line explaining a clock below zero under shogi-server's flag rule (Denryu-sen 22.3): what
    /// the rule counts, and why the flag falls after the clock showed 0:00:00. `None` otherwise.
    pub fn flag_rule_note(&self, side: Side, remaining: i64) -> Option<String> {
        if self.profile.time_control.flag != super::rules::FlagRule::ShogiServer || remaining >= 0 {
            return None;
        }
        let inc = self.increment_in_progress(side);
        Some(format!(
            "{} {} as {} counts it (shogi-server): the increment of the move in progress ({}) counts toward the time left, so the flag falls when a move's whole seconds pass the time left plus the increment; the clock ran {} past 0:00:00",
            self.side_label(side),
            super::timefmt::clock(self.counted_remaining(side, remaining)),
            self.cites(c::TIME_CONTROL),
            super::timefmt::clock(inc),
            super::timefmt::clock(remaining.saturating_neg()),
        ))
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
        // 13.6: a shogi side that has not moved is absent until the arbiter rules (flag held).
        if self.flag_held() {
            return None;
        }
        // A flag already down (a clock corrected below zero) falls now, not in the past.
        self.clock
            .flag_at(&self.profile, |s| self.board.moves_by(s))
            .map(|t| t.max(self.last_at))
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
    /// Judged once per state: an idle tick only reads it back.
    fn due_result(&self) -> Option<Event> {
        self.due_result_memo
            .0
            .get_or_init(|| self.judge_due_result())
            .clone()
    }

    /// [`Game::due_result`] judged afresh from the state.
    fn judge_due_result(&self) -> Option<Event> {
        if self.phase != Phase::Playing {
            return None;
        }
        if let Some(r) = self.board.shogi() {
            return self.shogi_due_result(r);
        }
        let at = self.last_at;
        let fen = self.board.fen();
        if let Some(end) = self.board.automatic_end().filter(|e| {
            // Fivefold repetition and the 75-move rule end a game by themselves only under the
            // Laws from 2014 on; under the 2001 Laws they are claims.
            self.profile.profile.laws.automatic_draws()
                || !matches!(
                    e,
                    super::board::PositionEnd::FivefoldRepetition
                        | super::board::PositionEnd::SeventyFiveMoves
                )
        }) {
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

    /// The earliest event that is due at or before `now` because time passed or the state calls
    /// for it. The shell appends and applies it, then asks again, before any command at `now`.
    pub fn due(&self, now: Ms) -> Option<Event> {
        let e = self.due_any(now)?;
        Some(self.cited(e, None))
    }

    /// [`Game::due`] for any game: the 2003 clauses.
    fn due_any(&self, now: Ms) -> Option<Event> {
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
                self.flag_fall_event(f, side)
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
            _ => match &self.stop {
                // 8b: the reset window ends with no reset reported.
                Some(Stop::Power {
                    restored: Some(r),
                    window_ms,
                    reset_done: false,
                    window_ended: false,
                    ..
                }) if r.saturating_add(*window_ms) <= now => Some(Event::new(
                    r.saturating_add(*window_ms).max(self.last_at),
                    Actor::Kit,
                    c::POWER_FAILURE,
                    EventKind::ResetWindowEnded {
                        window_ms: *window_ms,
                    },
                )),
                _ => None,
            },
        }
    }

    /// The running side's flag fell at `at` (rule 3; in shogi 22.3, or the move cap's draw).
    fn flag_fall_event(&self, at: Ms, side: Side) -> Option<Event> {
        if let Some(e) = self.shogi_flag_event(at, side) {
            return Some(e);
        }
        let (score, termination, detail) = if self.board.can_checkmate(side.other()) {
            (
                Score::win_for(side.other()),
                Termination::FlagFall,
                match self.profile.period_of(side, self.moves_of(side)).1 {
                    Some(n) => format!(
                        "{}'s flag fell before its move {n} was made",
                        self.side_label(side)
                    ),
                    None => format!("{}'s flag fell in the last period", self.side_label(side)),
                },
            )
        } else {
            (
                Score::Draw,
                Termination::FlagFallDraw,
                format!(
                    "{}'s flag fell, but {} cannot checkmate by any legal sequence (FIDE Laws 6.9)",
                    self.side_label(side),
                    self.side_label(side.other())
                ),
            )
        };
        let kind = self.ended(score, termination, detail);
        Some(Event::new(at, Actor::Kit, c::TIME_CONTROL, kind))
    }

    // ----- declarations (draft phase: in memory until `arbiter open`) -------------------------

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

    /// 6d / 7e: whether a move typed now is one taken back and typed again while the arbiter
    /// keeps the clocks stopped (no time charged, no increment given again).
    fn retyping(&self) -> bool {
        self.retype > 0
            && self.presses.is_empty()
            && matches!(self.stop, Some(Stop::Arbiter { .. }))
    }

    fn clock_must_run(&self) -> Result<(), Refusal> {
        if self.adjourned.is_some() {
            return refuse(
                c::ARBITER,
                "the game is adjourned: arbiter resume-adjourned (with MOVE NONCE for a sealed move)",
            );
        }
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

    /// A decision that records one event.
    fn one(
        &self,
        now: Ms,
        actor: Actor,
        clause: &str,
        kind: EventKind,
    ) -> Result<Vec<Event>, Refusal> {
        Ok(vec![self.ev(now, actor, clause, kind)])
    }

    /// Turn a command into the events that record it, or refuse it. Pure: state is unchanged.
    /// A shogi game's entries and refusals cite its rulebook's articles (`game/shogi.rs`).
    pub fn decide(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        if self.board.shogi().is_some() {
            return self.decide_shogi(cmd, now);
        }
        // The same article map as shogi's (`game/cite.rs`): the 2003 numbers without one.
        match self.decide_any(cmd, now) {
            Ok(events) => Ok(events.into_iter().map(|e| self.cited(e, None)).collect()),
            Err(r) => Err(self.cited_refusal(r, None)),
        }
    }

    /// [`Game::decide`] for any game: the 2003 clauses.
    fn decide_any(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
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
        let events = self.decide_command(cmd, now)?;
        self.no_result_over_presses(&events)?;
        Ok(events)
    }

    /// A result never loses a move: a result decided while pressed moves await their notation is
    /// refused, naming them, until they are entered (6a, 6b: the operator enters every move).
    fn no_result_over_presses(&self, events: &[Event]) -> Result<(), Refusal> {
        if self.presses.is_empty()
            || !events
                .iter()
                .any(|e| matches!(e.kind, EventKind::GameEnded { .. }))
        {
            return Ok(());
        }
        // The presses are the next plies, in order: numbered as everywhere (the one numbering).
        let numbering = self.board.numbering();
        let plies = self.board.plies();
        let named: Vec<String> = self
            .presses
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let n = numbering.number(plies + k);
                format!(
                    "{}'s move {n} (pressed at {})",
                    p.side,
                    super::timefmt::clock(i64::try_from(p.at).unwrap_or(i64::MAX))
                )
            })
            .collect();
        refuse(
            c::ENTER_HUMAN_MOVE,
            format!(
                "no result while pressed moves await their notation: {}; enter {} first (move SAN)",
                named.join(", "),
                if named.len() == 1 { "it" } else { "them" }
            ),
        )
    }

    fn decide_command(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        use Command as C;
        match cmd {
            C::DeclarePlayer { .. }
            | C::DeclareOperator { .. }
            | C::DeclareTeam { .. }
            | C::DeclareAlgorithm { .. }
            | C::DeclareConfig { .. }
            | C::DeclareCamp { .. }
            | C::DeclareCampProofFile { .. }
            | C::DeclareConfigFile { .. }
            | C::DeclareEntrant { .. } => refuse_state("declarations go to the draft"),
            C::Open | C::Start => self.decide_setup(cmd, now),
            C::Move { text } if self.adjourned.is_some() => self.decide_break_move(text, now),
            C::Move { .. }
            | C::Press
            | C::CorrectClock { .. }
            | C::TakeBack { .. }
            | C::ParamDecision { .. }
            | C::InternalClock { .. }
            | C::SyncInternalClock
            | C::Param { .. }
            | C::ParamRequest { .. }
            | C::Advise { .. } => self.decide_moves(cmd, now),
            C::Stop { .. }
            | C::Resume
            | C::Note { .. }
            | C::Authorize { .. }
            | C::AuthorizationFailed { .. } => self.decide_arbiter(cmd, now),
            C::IllegalMove { .. } => refuse(
                c::LAWS,
                "an illegal move is refused and typed again; 'arbiter illegal-move' rules one a loss only where the rules do (shogi, Denryu-sen 13.1)",
            ),
            C::WrongMove { .. } | C::ReleaseOwedMove { .. } => {
                self.decide_operator_errors(cmd, now)
            }
            C::PowerFailure { .. }
            | C::PowerRestored
            | C::ResetDone
            | C::RestartGap { .. }
            | C::TechnicalProblem { .. }
            | C::Repaired { .. }
            | C::InfoStop { .. }
            | C::InfoResume
            | C::WorkNote { .. } => self.decide_technical(cmd, now),
            C::Consult { .. }
            | C::ConsultEnd
            | C::AcceptDraw
            | C::DeclineDraw
            | C::OfferDraw { .. }
            | C::Resign
            | C::HumanResign
            | C::HumanOfferDraw
            | C::HumanAcceptDraw
            | C::HumanDeclineDraw => self.decide_draws(cmd, now),
            C::NoShow { .. }
            | C::TablebaseDraw
            | C::ArbiterTablebaseDraw { .. }
            | C::Claim { .. } => self.decide_claims(cmd, now),
            C::Handover(..) | C::HandOverFiles { .. } => self.decide_after(cmd, now),
            C::Dispute { .. } | C::Ruling { .. } | C::Decide { .. } => {
                self.decide_committee(cmd, now)
            }
            C::Void { .. } => self.decide_void(cmd, now),
            C::ReplaceOperator { .. } => self.decide_match_rules(cmd, now),
            C::Adjourn { .. } | C::EngineStopped | C::ResumeAdjourned { .. } => {
                self.decide_adjourn(cmd, now)
            }
            C::SideResign { .. } | C::DeclareWin { .. } | C::NoShowBoth | C::Consulted { .. } => {
                self.decide_entrants(cmd, now)
            }
        }
    }

    // ----- evolve ---------------------------------------------------------------------------

    /// Apply one event. The same function serves the live session and replay; an error means the
    /// event cannot follow this state (a corrupt or foreign log).
    pub fn evolve(&mut self, e: &Event) -> Result<(), Inconsistent> {
        self.evolve_keeping(e, || std::sync::Arc::new(e.clone()))
    }

    /// [`Game::evolve`] with the event handed over: the void window keeps it as it is, not a
    /// copy (what a replay of a log uses, as it owns each event it decoded).
    pub fn evolve_owned(&mut self, e: Event) -> Result<(), Inconsistent> {
        self.evolve_shared(std::sync::Arc::new(e))
    }

    /// [`Game::evolve`] with the event shared: the void window keeps this reference.
    pub fn evolve_shared(&mut self, e: std::sync::Arc<Event>) -> Result<(), Inconsistent> {
        let kept = std::sync::Arc::clone(&e);
        self.evolve_keeping(&e, move || kept)
    }

    /// Apply `e`; once it applied, the void window keeps what `keep` gives (`e` itself).
    fn evolve_keeping(
        &mut self,
        e: &Event,
        keep: impl FnOnce() -> std::sync::Arc<Event>,
    ) -> Result<(), Inconsistent> {
        if let Some(actors) = &self.profile.actors {
            actors
                .check(e.kind_str(), e.actor.name())
                .map_err(|r| Inconsistent::from(r.to_string()))?;
        }
        if e.at < self.last_at {
            return Err(
                format!("time goes backwards: {} ms after {} ms", e.at, self.last_at).into(),
            );
        }
        let mut recent = match self.recent.take() {
            Some(r) => r,
            None => Box::new(void::Recent::new(self)),
        };
        let applied = match &e.kind {
            EventKind::EntryVoided { .. } => {
                let (seq, passed) = (self.applied as u64, self.controls_passed_if_witnessed());
                let done = self.evolve_void(&mut recent, e);
                // A void is a ruling the camps sign at the next control.
                if done.is_ok() {
                    self.note_for_camps(e, seq, passed);
                }
                done
            }
            _ => self.evolve_one(e),
        };
        if applied.is_ok() {
            recent.push(keep(), self);
        }
        self.recent = Some(recent);
        // The state changed (or may have, on an error): judge its result afresh.
        self.due_result_memo = DueMemo::default();
        applied
    }

    /// [`Game::evolve`] without the void window: one event's effect on the state.
    fn evolve_one(&mut self, e: &Event) -> Result<(), Inconsistent> {
        if e.at < self.last_at {
            return Err(
                format!("time goes backwards: {} ms after {} ms", e.at, self.last_at).into(),
            );
        }
        let at = e.at;
        // Counted only where the profile has the camps countersign at controls.
        let passed_before = self.controls_passed_if_witnessed();
        match &e.kind {
            EventKind::EntryVoided { .. } => {
                return Err("entry_voided is applied with the void window".into());
            }
            EventKind::ClaimDismissed { added_ms, to, .. } => {
                self.need_phase(Phase::Playing)?;
                self.clock
                    .add(*to, i64::try_from(*added_ms).unwrap_or(i64::MAX));
            }
            EventKind::Note { .. }
            | EventKind::Authorized { .. }
            | EventKind::AuthorizationFailed { .. } => {}
            EventKind::GameEnded {
                score,
                termination,
                detail,
                ..
            } => {
                if self.phase == Phase::Ended {
                    // 12c: only the committee's ruling changes a result; the game's end stays.
                    let on_ruling = matches!(
                        &e.kind,
                        EventKind::GameEnded {
                            ruling: Some(r),
                            termination: Termination::ArbiterDecision,
                            ..
                        } if self.rulings.iter().any(|(id, _)| id == r)
                    );
                    let Some(o) = self.outcome.as_mut().filter(|_| on_ruling) else {
                        return Err("game_ended twice".into());
                    };
                    o.score = *score;
                    o.termination = *termination;
                    o.detail = detail.clone();
                } else {
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
            }
            EventKind::Recovery(_) => {}
            EventKind::EngineLogArchived(_) | EventKind::ProgramArchived(_) => {
                self.evolve_after(e)?
            }
            EventKind::GameOpened(..) | EventKind::ClockStarted { .. } => self.evolve_setup(e)?,
            EventKind::MoveMade { .. }
            | EventKind::ClockPressed { .. }
            | EventKind::InternalClockReported { .. }
            | EventKind::SyncNotMade { .. }
            | EventKind::InternalClockCorrected { .. }
            | EventKind::ClockCorrected { .. }
            | EventKind::MovesTakenBack { .. }
            | EventKind::ParameterSet { .. }
            | EventKind::ParameterRequested { .. }
            | EventKind::CommitteeAdvised { .. }
            | EventKind::ParameterDecided { .. } => self.evolve_moves(e)?,
            EventKind::ClockStopped { .. } | EventKind::ClockResumed { .. } => {
                self.evolve_arbiter(e)?
            }
            EventKind::WrongMove { .. } | EventKind::OwedMoveReleased { .. } => {
                self.evolve_operator_errors(e)?
            }
            EventKind::DisputeRaised { .. } | EventKind::RulingGiven { .. } => {
                self.evolve_committee(e)?
            }
            EventKind::TechnicalProblem { .. }
            | EventKind::WorkNote { .. }
            | EventKind::TechnicalResolved { .. }
            | EventKind::InfoStopped { .. }
            | EventKind::InfoResumed
            | EventKind::PowerFailed { .. }
            | EventKind::PowerRestored { .. }
            | EventKind::MachineReset
            | EventKind::ResetWindowEnded { .. }
            | EventKind::RestartGap { .. } => self.evolve_technical(e)?,
            EventKind::Adjourned { .. }
            | EventKind::EngineStopped
            | EventKind::AdjournmentResumed { .. } => self.evolve_adjourn(e)?,
            EventKind::OperatorReplaced { .. } => self.evolve_match_rules(e)?,
            EventKind::DrawOffered { .. }
            | EventKind::ConsultationStarted { .. }
            | EventKind::ConsultationEnded { .. }
            | EventKind::DrawDeclined { .. } => self.evolve_draws(e)?,
        }
        // A machine's move made during a break leaves the clocks stopped until play
        // resumes.
        if self.adjourned.is_some() && matches!(e.kind, EventKind::MoveMade { .. }) {
            self.clock.stop(at);
        }
        self.last_was_machine_move = match &e.kind {
            EventKind::MoveMade { side, .. } => self.machine_side() == Some(*side),
            _ => false,
        };
        self.note_for_camps(e, self.applied as u64, passed_before);
        self.last_at = at;
        self.applied += 1;
        Ok(())
    }

    fn need_phase(&self, p: Phase) -> Result<(), Inconsistent> {
        if self.phase == p {
            Ok(())
        } else {
            Err(format!("the game is {:?}, not {:?}", self.phase, p).into())
        }
    }

    /// Points of each side for the game's result under the profile's scoring.
    pub fn points(&self) -> Option<[f64; 2]> {
        let s = &self.profile.scoring;
        self.outcome.as_ref().map(|o| match o.score {
            Score::WhiteWins => [s.win, s.loss],
            Score::BlackWins => [s.loss, s.win],
            Score::Draw => [s.draw_first, s.draw_second],
            Score::BothLose => [s.loss, s.loss],
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
