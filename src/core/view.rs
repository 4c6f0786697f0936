//! What a screen or a report shows: a pure function of the state and `now`.
use serde::Serialize;

use super::event::{Entrant, Justification, Player, PlayerKind, Termination};
use super::game::{Game, Phase, Stop};
use super::{Ms, Side};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClockView {
    pub side: Side,
    pub name: String,
    pub kind: Option<PlayerKind>,
    /// What the clock face shows.
    pub shown_ms: i64,
    /// All time left (differs from `shown_ms` only with on-flag period addition).
    pub remaining_ms: i64,
    pub running: bool,
    /// 1-based period number.
    pub period: usize,
    pub moves_made: u32,
    /// Moves still to make before the next time control, if there is one.
    pub moves_to_control: Option<u32>,
    /// The clock's state in words, so no screen has to tell it by colour alone.
    pub state: ClockState,
    /// Byo-yomi (periods left, their length, the current period's time), when the side
    /// has byo-yomi.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byoyomi: Option<super::clock::ByoyomiFace>,
    /// A shogi game's clock: the side as shogi names it and its entrant (Denryu-sen 5.2), for the
    /// clock's title (`先手 (sente) · PROGRAM · Suisho`). `None` for chess, whose title is unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shogi: Option<ShogiClockSide>,
}

/// A shogi clock's side: sente or gote, and the entrant of Denryu-sen 5.2 if declared so.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShogiClockSide {
    /// `true` for sente (先手), `false` for gote (後手).
    pub sente: bool,
    pub entrant: Option<Entrant>,
}

impl ShogiClockSide {
    /// The side's name in kanji with its reading: `先手 (sente)`, `後手 (gote)`.
    pub fn side_text(&self) -> &'static str {
        if self.sente {
            "先手 (sente)"
        } else {
            "後手 (gote)"
        }
    }

    /// The entrant's kind in words (5.2), from the declared entrant, else from the player kind.
    pub fn entrant_text(&self, kind: Option<PlayerKind>) -> &'static str {
        match (&self.entrant, kind) {
            (Some(Entrant::Program), _) | (None, Some(PlayerKind::Machine)) => "PROGRAM",
            (Some(Entrant::Human), _) | (None, Some(PlayerKind::Human)) => "HUMAN",
            (Some(Entrant::HumanTeam { .. }), _) => "HUMAN TEAM",
            (Some(Entrant::HumanWithAi { .. }), _) => "HUMAN + AI",
            (None, None) => "?",
        }
    }
}

/// What a clock is doing, as the big clock face names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ClockState {
    /// Before the start (3).
    NotStarted,
    /// This side's turn, its clock running.
    Running,
    /// The other side's turn.
    Waiting,
    /// Stopped by the arbiter (1) or, for the machine, by the supervisor's question (8a).
    Stopped,
    /// The game is suspended after a power failure (8b).
    Suspended,
    /// This side's flag fell.
    Flag,
    /// This side's time is gone but, as it has not made its first move, its flag is held until
    /// the arbiter rules on a no-show (Denryu-sen 13.6, 13.7).
    Held,
    /// The game is over.
    Over,
}

impl ClockState {
    /// The word on the clock face.
    pub fn word(self) -> &'static str {
        match self {
            ClockState::NotStarted => "NOT STARTED",
            ClockState::Running => "RUNNING",
            ClockState::Waiting => "WAITING",
            ClockState::Stopped => "STOPPED",
            ClockState::Suspended => "SUSPENDED",
            ClockState::Flag => "FLAG",
            ClockState::Held => "FLAG HELD",
            ClockState::Over => "GAME OVER",
        }
    }
}

/// What is declared for the game: the draft before line 0, the recorded declarations after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeclarationsView {
    /// `true` once line 0 holds them (they can no longer change).
    pub recorded: bool,
    pub white: Option<Player>,
    pub black: Option<Player>,
    pub operator: Option<String>,
    pub team: Vec<String>,
    /// The 6c algorithm: declared text, or where it comes from if not declared.
    pub algorithm: String,
    /// 8a: SHA-256 of the machine configuration document.
    pub config_sha256: Option<String>,
    /// The camps' witness keys (name, OpenSSH public key).
    pub camps: Vec<super::event::Camp>,
    /// The clauses these rows cite, in the game's own numbers (the profile's article map).
    pub cites: DeclarationCites,
}

/// What the declarations cite: the operator (4c), the team (9c), the algorithm (6c) and the
/// configuration digest (8a) in the 2003 numbers; a shogi profile's articles otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeclarationCites {
    pub operator: String,
    pub team: String,
    pub algorithm: String,
    pub config: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Urgency {
    Normal,
    /// Under two minutes left.
    Amber,
    /// Nothing left.
    Red,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Panel {
    /// 9e: the human's draw offer and the consultation countdown.
    DrawOffer {
        answered: Option<bool>,
        consulting_with: Vec<String>,
        used_ms: Ms,
        left_ms: i64,
        urgency: Urgency,
        limit_reached: bool,
    },
    /// 9d: the machine's draw offer awaiting the human's answer.
    MachineOffer { justification: Justification },
    /// 8a: technical problem; the machine's clock keeps running unless the supervisor stopped it.
    Technical {
        text: String,
        since_ms: Ms,
        machine_clock_running: bool,
        info_question: Option<String>,
    },
    /// 8b: power failure; the reset window countdown once power is back.
    Power {
        text: String,
        window_left_ms: Option<i64>,
        reset_done: bool,
    },
    /// Rule 1: the arbiter stopped the clocks.
    Stopped { reason: String },
    /// 4a / 6b: a side pressed its clock; its move's notation is still to be entered.
    Pressed { side: Side, at_ms: Ms, spent_ms: Ms },
    /// 7c: operator errors in this game, out of the forfeit limit.
    OperatorErrors { count: u32, forfeit_at: u32 },
    /// 6c: a correction of the internal clock is owed.
    SyncWarning {
        reading_ms: Ms,
        game_clock_ms: i64,
        diff_ms: i64,
    },
    /// 6l: parameter requests awaiting a decision.
    ParamRequests { open: Vec<u32> },
    /// Rule 13 after the result: time left to hand over the machine's log (13a) and the program
    /// (13d), negative when late; ticked off once archived.
    Handover {
        log_left_ms: Option<i64>,
        min_copies: u32,
        log_handed: bool,
        program_left_ms: Option<i64>,
        program_handed: bool,
    },
    /// A time control was passed under a profile that has the camps countersign at
    /// each one: what they sign (checkpoint `checkpoint` covers the control move), and who.
    Countersign {
        control: usize,
        move_number: u32,
        /// The checkpoint's size: entries `0..checkpoint` (the control move is the last).
        checkpoint: u64,
        /// Both clocks at the control move, White (sente) first.
        clocks: [i64; 2],
        /// Arbiter and committee entries up to the control move (each camp is shown those
        /// since its own last countersignature).
        rulings: Acts,
        /// The declared camps still to countersign it.
        camps: Vec<CampToSign>,
    },
    /// The game is over; the camps countersign a checkpoint covering the result (of
    /// `checkpoint` entries at least), each shown the result, both clocks and the arbiter's and
    /// committee's entries since its own last countersignature.
    CountersignEnd {
        score: String,
        /// The size a checkpoint must have to cover the result and every later change.
        checkpoint: u64,
        /// Both clocks as the game ended, White (sente) first.
        clocks: [i64; 2],
        rulings: Acts,
        camps: Vec<CampToSign>,
    },
    /// The result, flag fall included.
    Result {
        score: String,
        termination: Termination,
        detail: String,
    },
}

/// A declared camp asked to countersign, with its latest countersigned checkpoint (its
/// size) as the shell found it beside the log (`None` in the core's view: the core reads no file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CampToSign {
    pub name: String,
    pub last: Option<u64>,
}

pub use super::game::witness::Acts;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct View {
    pub phase: Phase,
    pub match_id: String,
    pub game: u32,
    pub rules: String,
    pub clocks: [ClockView; 2],
    pub to_move: Side,
    /// The side that moves first in the start position (Black from a FEN with Black to move):
    /// ply 0 is its move `1.` (or `1...`).
    pub first: Side,
    /// How the moves are numbered (from the start's fullmove number): [`Numbering`].
    pub numbering: super::board::Numbering,
    pub plies: usize,
    /// The last moves, numbered from the side that moved first (`12. Nf3`, `12... Nf6`; a
    /// start with Black to move begins `1... e5`), oldest first.
    pub last_moves: Vec<String>,
    pub fen: Option<String>,
    /// The shogi position, for a shogi game.
    pub shogi: Option<crate::core::shogi::ShogiView>,
    /// The latest move (UCI for chess, the text otherwise), to mark on the diagram.
    pub last_move: Option<String>,
    /// The side to move is in check (the latest SAN ends in `+` or `#`).
    pub in_check: bool,
    /// Time of the move in progress so far (its running time, stoppages excluded).
    pub turn_elapsed_ms: Option<Ms>,
    pub declarations: DeclarationsView,
    pub panels: Vec<Panel>,
    pub next_deadline: Option<Ms>,
    /// The profile's article for each 2003 clause the kit names (`[articles.clauses]`), empty
    /// without a map: the board words its panels and dialogs with them ([`View::reword`]).
    pub articles: Vec<(String, String)>,
}

impl View {
    /// `text` with the 2003 clauses in its wording replaced by the profile's articles.
    pub fn reword(&self, text: &str) -> String {
        if self.articles.is_empty() {
            return text.to_string();
        }
        super::articles::reword(text, |c| {
            self.articles
                .iter()
                .find(|(k, _)| k == c)
                .map_or(c, |(_, a)| a.as_str())
        })
    }
}

/// What a [`View`] of a game was made from, but for the time: two equal stamps are the same
/// events applied to the same game, so everything in the view but what [`Game::retime`] sets
/// is the same (the Board UI keeps its view from tick to tick and retimes it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ViewStamp {
    game: u32,
    phase: Phase,
    applied: usize,
    last_at: Ms,
    last_n: usize,
}

impl Game {
    pub fn view(&self, now: Ms, last_n: usize) -> View {
        let mut v = self.view_untimed(last_n);
        self.retime(&mut v, now);
        v
    }

    /// The stamp of this state's view; `None` while declarations are drafted (they change with
    /// no event applied), when a view is never kept.
    pub fn view_stamp(&self, last_n: usize) -> Option<ViewStamp> {
        (self.phase != Phase::Draft).then_some(ViewStamp {
            game: self.ctx.game,
            phase: self.phase,
            applied: self.applied,
            last_at: self.last_at,
            last_n,
        })
    }

    /// Bring a view of this state (same [`Game::view_stamp`]) to `now`: the clocks, the running
    /// move's time, the panels and the next deadline, the parts that change with the time alone.
    /// The move list, the position and the declarations are left as they are.
    pub fn retime(&self, v: &mut View, now: Ms) {
        let clocks = Side::BOTH.map(|side| {
            let moves = self.moves_of(side);
            let (period, control) = self.profile.period_of(side, moves);
            ClockView {
                side,
                name: self
                    .player(side)
                    .map_or_else(|| side.to_string(), |p| p.name.clone()),
                kind: self.player(side).map(|p| p.kind),
                shown_ms: self.displayed(side, now),
                remaining_ms: self.remaining(side, now),
                running: self.phase == Phase::Playing && self.clock.running() == Some(side),
                period: period + 1,
                moves_made: moves,
                moves_to_control: control.map(|c| c.saturating_sub(moves)),
                state: self.clock_state(side, now),
                byoyomi: self.clock.byoyomi_face(&self.profile, side, moves, now),
                shogi: self.board.shogi().map(|_| ShogiClockSide {
                    sente: side == Side::White, // the kit's white is sente (shogi::color_of)
                    entrant: self.player(side).and_then(|p| p.entrant.clone()),
                }),
            }
        });
        let mut panels = Vec::new();
        // Once the game is over a stop no longer suspends anything: no panel, no countdown.
        match self.stop.as_ref().filter(|_| self.phase != Phase::Ended) {
            Some(Stop::Arbiter { reason, .. }) => panels.push(Panel::Stopped {
                reason: reason.clone(),
            }),
            Some(Stop::Power {
                text,
                restored,
                window_ms,
                reset_done,
                ..
            }) => panels.push(Panel::Power {
                text: text.clone(),
                window_left_ms: restored.map(|r| (r + window_ms) as i64 - now as i64),
                reset_done: *reset_done,
            }),
            _ => {}
        }
        if self.phase == Phase::Playing {
            for p in &self.presses {
                panels.push(Panel::Pressed {
                    side: p.side,
                    at_ms: p.at,
                    spent_ms: p.spent_ms,
                });
            }
        }
        if let Some(o) = &self.offer
            && self.phase == Phase::Playing
            && (o.answered.is_none() || o.consulting.is_some())
        {
            let limit = self
                .profile
                .draw_offers
                .as_ref()
                .map_or(0, |d| d.consultation_limit_seconds * 1000);
            let used = self.consultation_used(now).unwrap_or(0);
            let left = limit as i64 - used as i64;
            let urgency = if left <= 0 || o.limit_reached {
                Urgency::Red
            } else if left < 120_000 {
                Urgency::Amber
            } else {
                Urgency::Normal
            };
            panels.push(Panel::DrawOffer {
                answered: o.answered,
                consulting_with: o
                    .consulting
                    .as_ref()
                    .map(|(_, w)| w.clone())
                    .unwrap_or_default(),
                used_ms: used,
                left_ms: left.max(0),
                urgency,
                limit_reached: o.limit_reached,
            });
        }
        if let Some(o) = &self.machine_offer
            && o.answered.is_none()
            && self.phase == Phase::Playing
        {
            panels.push(Panel::MachineOffer {
                justification: o.justification.clone(),
            });
        }
        if let Some(t) = &self.technical {
            let m = self.machine_side();
            let info = match &self.stop {
                Some(Stop::Info { question, .. }) => Some(question.clone()),
                _ => None,
            };
            panels.push(Panel::Technical {
                text: t.text.clone(),
                since_ms: t.since,
                machine_clock_running: m.is_some() && self.clock.running() == m,
                info_question: info,
            });
        } else if let Some(Stop::Info { question, .. }) = &self.stop {
            panels.push(Panel::Technical {
                text: "information requested".into(),
                since_ms: self.last_at,
                machine_clock_running: false,
                info_question: Some(question.clone()),
            });
        }
        if let Some(o) = &self.profile.operator_errors
            && self.machine_side().is_some()
        {
            panels.push(Panel::OperatorErrors {
                count: self.infractions,
                forfeit_at: o.forfeit_at_infraction,
            });
        }
        if let Some(r) = &self.internal
            && r.owed
            && self.phase == Phase::Playing
        {
            panels.push(Panel::SyncWarning {
                reading_ms: r.reading_ms,
                game_clock_ms: r.game_clock_ms,
                diff_ms: r.diff_ms,
            });
        }
        let open: Vec<u32> = self
            .params
            .iter()
            .filter(|p| p.decided.is_none())
            .map(|p| p.id)
            .collect();
        if !open.is_empty() {
            panels.push(Panel::ParamRequests { open });
        }
        if let (Some(due), Some(d)) = (self.control_to_countersign(), &self.decl)
            && !d.camps.is_empty()
        {
            panels.push(Panel::Countersign {
                control: due.control,
                move_number: due.move_number,
                checkpoint: due.entry + 1,
                clocks: due.clocks,
                rulings: self.acts_before(due.entry + 1),
                camps: camps_to_sign(d),
            });
        }
        if let Some(o) = &self.outcome {
            panels.push(Panel::Result {
                score: o.score.text().to_string(),
                termination: o.termination,
                detail: o.detail.clone(),
            });
            if let Some(d) = &self.decl
                && !d.camps.is_empty()
            {
                panels.push(Panel::CountersignEnd {
                    score: o.score.text().to_string(),
                    checkpoint: self.last_witnessed_change() + 1,
                    clocks: [
                        self.remaining(Side::White, now),
                        self.remaining(Side::Black, now),
                    ],
                    rulings: self.acts_before(u64::MAX),
                    camps: camps_to_sign(d),
                });
            }
        }
        if let Some(d) = self.handover_due() {
            let left = |at: Option<Ms>| at.map(|t| t as i64 - now as i64);
            panels.push(Panel::Handover {
                log_left_ms: left(d.log_at),
                min_copies: d.min_copies,
                log_handed: d.log_handed,
                program_left_ms: left(d.program_at),
                program_handed: d.program_handed,
            });
        }
        v.clocks = clocks;
        v.turn_elapsed_ms =
            (self.phase == Phase::Playing).then(|| self.clock.turn_elapsed(self.clock_side(), now));
        v.panels = panels;
        v.next_deadline = self.next_deadline();
    }

    /// Everything in the view that changes only with an event; the time-dependent parts are
    /// left at rest (no time, no panels) for [`Game::retime`].
    fn view_untimed(&self, last_n: usize) -> View {
        let clocks = Side::BOTH.map(|side| ClockView {
            side,
            name: String::new(),
            kind: None,
            shown_ms: 0,
            remaining_ms: 0,
            running: false,
            period: 1,
            moves_made: 0,
            moves_to_control: None,
            state: ClockState::NotStarted,
            byoyomi: None,
            shogi: None,
        });
        let moves = self.board.moves();
        let start = moves.len().saturating_sub(last_n);
        let last_moves = moves[start..]
            .iter()
            .enumerate()
            .map(|(k, m)| {
                if self.board.shogi().is_some() {
                    // Shogi numbers every move: 1 ▲７六歩, 2 △３四歩.
                    format!("{} {}", start + k + 1, m.san)
                } else {
                    self.board.numbering().numbered(start + k, &m.san)
                }
            })
            .collect();
        View {
            phase: self.phase,
            match_id: self.ctx.match_id.clone(),
            game: self.ctx.game,
            rules: self.profile.profile.name.clone(),
            clocks,
            to_move: self.board.side_to_move(),
            first: self.board.first_side(),
            numbering: self.board.numbering(),
            plies: self.board.plies(),
            last_moves,
            fen: self.board.fen(),
            shogi: self.board.shogi().map(|r| r.view()),
            last_move: moves.last().map(|m| m.uci.to_string()),
            in_check: moves
                .last()
                .is_some_and(|m| m.san.ends_with('+') || m.san.ends_with('#')),
            turn_elapsed_ms: None,
            declarations: self.declarations_view(),
            panels: Vec::new(),
            next_deadline: None,
            articles: match &self.profile.articles {
                Some(_) => super::articles::CLAUSES
                    .iter()
                    .map(|(_, n, _)| (n.to_string(), self.profile.cite(n).to_string()))
                    .collect(),
                None => Vec::new(),
            },
        }
    }
}

impl Game {
    fn clock_state(&self, side: Side, now: Ms) -> ClockState {
        match self.phase {
            Phase::Draft | Phase::Opened => return ClockState::NotStarted,
            Phase::Ended => {
                let flagged = self.outcome.as_ref().is_some_and(|o| {
                    matches!(
                        o.termination,
                        Termination::FlagFall | Termination::FlagFallDraw
                    )
                }) && self.remaining(side, now) <= 0;
                return if flagged {
                    ClockState::Flag
                } else {
                    ClockState::Over
                };
            }
            Phase::Playing => {}
        }
        let to_move = self.clock_side() == side;
        match &self.stop {
            Some(Stop::Power { .. }) => ClockState::Suspended,
            Some(Stop::Arbiter { .. }) if to_move => ClockState::Stopped,
            Some(Stop::Info { .. }) if to_move && self.machine_side() == Some(side) => {
                ClockState::Stopped
            }
            _ if self.clock.running() == Some(side) => {
                let byoyomi_time = self
                    .clock
                    .byoyomi_face(&self.profile, side, self.moves_of(side), now)
                    .is_some_and(|b| b.period_left_ms > 0);
                if self.remaining(side, now) <= 0 && !byoyomi_time {
                    if self.flag_held() {
                        ClockState::Held
                    } else {
                        ClockState::Flag
                    }
                } else {
                    ClockState::Running
                }
            }
            _ if to_move => ClockState::Stopped,
            _ => ClockState::Waiting,
        }
    }

    fn declarations_view(&self) -> DeclarationsView {
        use super::clause as c;
        let cites = DeclarationCites {
            operator: self.profile.cite(c::OPERATOR_CHANGE_BETWEEN).to_string(),
            team: self.profile.cite(c::TEAM).to_string(),
            algorithm: self.profile.cite(c::INTERNAL_CLOCK).to_string(),
            config: self.profile.cite(c::TECHNICAL).to_string(),
        };
        match &self.decl {
            Some(d) => DeclarationsView {
                recorded: true,
                white: Some(d.white.clone()),
                black: Some(d.black.clone()),
                operator: (!d.operator.is_empty()).then(|| d.operator.clone()),
                team: d.team.clone(),
                algorithm: format!(
                    "{} ({}, threshold {})",
                    d.algorithm.text,
                    d.algorithm.source,
                    super::timefmt::short(d.algorithm.threshold_ms as i64)
                ),
                config_sha256: d.config_sha256.clone(),
                camps: d.camps.clone(),
                cites,
            },
            None => {
                let d = &self.draft;
                let algorithm = match (&d.algorithm, &self.ctx.previous_algorithm) {
                    (Some(a), _) => format!("{} (declared)", a.text),
                    (None, Some((n, a))) => format!("{} (carried over from game {n})", a.text),
                    (None, None) => self.profile.no_sync_rule_text().unwrap_or_else(|| {
                        format!(
                            "the default of rule {}",
                            self.profile.cite(super::clause::INTERNAL_CLOCK)
                        )
                    }),
                };
                DeclarationsView {
                    recorded: false,
                    white: d.white.clone(),
                    black: d.black.clone(),
                    operator: d.operator.clone(),
                    team: d.team.clone(),
                    algorithm,
                    config_sha256: d.config_sha256.clone(),
                    camps: d.camps.clone(),
                    cites,
                }
            }
        }
    }
}

/// The declared camps, none known to have countersigned yet (the shell says which have).
fn camps_to_sign(d: &super::event::Declarations) -> Vec<CampToSign> {
    d.camps
        .iter()
        .map(|c| CampToSign {
            name: c.name.clone(),
            last: None,
        })
        .collect()
}
