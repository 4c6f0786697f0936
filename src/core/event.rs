//! What the log records. One event per line of the game log: the line's `kind` and `body` are the
//! serde form of [`EventKind`]; `mono_ms`, `actor` and `clause` come from [`Event`].
use serde::{Deserialize, Serialize};

use super::board::PositionEnd;
use super::{Actor, Ms, Side};

/// A short text of an event (a clause, a move's SAN or UCI, a FEN, a note): at most 24 bytes are
/// kept inline, without an allocation (a move's entry was five allocations, read a
/// million times by `status`, `pgn`, `report` and the Board UI's open).
pub type Text = compact_str::CompactString;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Monotonic time of the event, ms since the game's start.
    pub at: Ms,
    pub actor: Actor,
    /// Clause of the match rules the entry cites.
    pub clause: Text,
    #[serde(flatten)]
    pub kind: EventKind,
}

impl Event {
    pub fn new(at: Ms, actor: Actor, clause: &str, kind: EventKind) -> Event {
        Event {
            at,
            actor,
            clause: Text::new(clause),
            kind,
        }
    }
    /// The event kind's name as written in the log.
    pub fn kind_name(&self) -> String {
        self.kind_str().to_owned()
    }
    /// [`Event::kind_name`] without an allocation: the same `snake_case` name serde writes
    /// (the codec's test checks every kind against the log's own).
    pub fn kind_str(&self) -> &'static str {
        (&self.kind).into()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlayerKind {
    Human,
    Machine,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub name: String,
    pub kind: PlayerKind,
    /// Denryu-sen 5.2: which of the four kinds of entrant, when declared so (bound into line 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entrant: Option<Entrant>,
}

/// Denryu-sen 5.2: the four kinds of entrant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Entrant {
    /// (1) A shogi AI program with its own work in it.
    Program,
    /// (2) A human playing alone.
    Human,
    /// (3) Humans playing as a team.
    HumanTeam { members: Vec<String> },
    /// (4) A human consulting an AI: the program used and how they consult, declared beforehand.
    HumanWithAi { program: String, method: String },
}

impl Entrant {
    /// The player kind the clock and the move entry treat the entrant as: a program's moves
    /// come from the machine; humans send theirs by hand (19.6).
    pub fn player_kind(&self) -> PlayerKind {
        match self {
            Entrant::Program => PlayerKind::Machine,
            _ => PlayerKind::Human,
        }
    }
}

/// The internal-clock algorithm of rule 6c.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Algorithm {
    pub text: String,
    /// A correction is owed when the internal clock differs from the game clock by this or more.
    pub threshold_ms: Ms,
    /// `default` (6c), `declared`, or `carried over from game N`.
    pub source: String,
}

/// Pre-game declarations, bound into the game's first entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declarations {
    pub white: Player,
    pub black: Player,
    /// Rules 4c, 4d.
    pub operator: String,
    /// Rule 9c: the persons the operator may consult about draw offers.
    pub team: Vec<String>,
    /// Rule 6c.
    pub algorithm: Algorithm,
    /// Rule 8a: SHA-256 of the machine configuration document.
    pub config_sha256: Option<String>,
    /// The camps' witness keys: each camp countersigns the final checkpoint, as both players
    /// sign the scoresheet.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub camps: Vec<Camp>,
}

/// A camp's representative and the SSH public key he countersigns the record with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Camp {
    /// Short name: lowercase letters, digits and `-` (e.g. `kasparov`, `junior`).
    pub name: String,
    /// The public key in OpenSSH form (`ssh-ed25519 AAAA…`, no comment).
    pub key: String,
    /// The camp's proof of possession, version 1 ([`super::camp`]): its armored SSHSIG
    /// (namespace `arbiter-kit-camp-key@v1`) over its own declaration. Absent in lines 0
    /// written by kits of the first log format (`verify` then says the camp keys are not proven).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileRef {
    pub name: String,
    pub file: String,
    pub sha256: String,
    /// The profile's TOML, so that the log alone rebuilds the game.
    pub toml: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyRef {
    pub principal: String,
    pub fingerprint: String,
    /// The public demo key of `logs/demo` signs this game: its signatures prove nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub demo: bool,
}

/// Body of line 0: the identity of the match and game, the rules, the declarations and the key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    pub match_id: String,
    pub game: u32,
    pub profile: ProfileRef,
    pub declarations: Declarations,
    pub arbiter_key: KeyRef,
    pub kit_version: String,
}

/// Why the machine may offer a draw (9d).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Justification {
    /// The evaluation shown, in centipawns from the machine's point of view.
    Eval { cp: i32 },
    /// A repetition line shown by the machine.
    Repetition { line: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    Checkmate,
    Stalemate,
    InsufficientMaterial,
    FivefoldRepetition,
    SeventyFiveMoves,
    ThreefoldClaim,
    FiftyMoveClaim,
    FlagFall,
    FlagFallDraw,
    Resignation,
    DrawAgreed,
    TablebaseDraw,
    Forfeit,
    NoShow,
    ArbiterDecision,
    MoveCap,
    /// Shogi: the same position a fourth time (Denryu-sen 13.5).
    Sennichite,
    /// Shogi: sennichite by perpetual check, lost by the checking side.
    PerpetualCheck,
    /// Shogi: an illegal move, lost by its maker (13.1).
    IllegalMove,
    /// Shogi: an entering-king declaration that met every condition of article 23.
    Declaration,
    /// Shogi: an entering-king declaration that failed a condition of article 23: the declarer loses.
    FailedDeclaration,
}

impl Termination {
    pub fn from_position(p: PositionEnd) -> Termination {
        match p {
            PositionEnd::Checkmate => Termination::Checkmate,
            PositionEnd::Stalemate => Termination::Stalemate,
            PositionEnd::InsufficientMaterial => Termination::InsufficientMaterial,
            PositionEnd::FivefoldRepetition => Termination::FivefoldRepetition,
            PositionEnd::SeventyFiveMoves => Termination::SeventyFiveMoves,
        }
    }
    /// PGN `Termination` tag value.
    pub fn pgn(self) -> &'static str {
        match self {
            Termination::FlagFall | Termination::FlagFallDraw => "time forfeit",
            Termination::Forfeit | Termination::NoShow => "rules infraction",
            Termination::ArbiterDecision => "adjudication",
            _ => "normal",
        }
    }
}

/// The result of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Score {
    #[serde(rename = "1-0")]
    WhiteWins,
    #[serde(rename = "0-1")]
    BlackWins,
    #[serde(rename = "1/2-1/2")]
    Draw,
    /// Both sides lose (Denryu-sen 13.7: neither appeared).
    #[serde(rename = "0-0")]
    BothLose,
}

impl Score {
    pub fn win_for(side: Side) -> Score {
        match side {
            Side::White => Score::WhiteWins,
            Side::Black => Score::BlackWins,
        }
    }
    pub fn text(self) -> &'static str {
        match self {
            Score::WhiteWins => "1-0",
            Score::BlackWins => "0-1",
            Score::Draw => "1/2-1/2",
            Score::BothLose => "0-0",
        }
    }
    pub fn parse(s: &str) -> Option<Score> {
        match s {
            "1-0" => Some(Score::WhiteWins),
            "0-1" => Some(Score::BlackWins),
            "1/2-1/2" | "½-½" | "draw" => Some(Score::Draw),
            "0-0" => Some(Score::BothLose),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeclineHow {
    /// The answering side said no.
    Declined,
    /// The answering side moved without answering (9e: this constitutes rejection).
    ByMove,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockSet {
    /// Set the side's remaining time.
    Remaining,
    /// Add (or with a negative delta, remove) time.
    Delta,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, strum::IntoStaticStr)]
#[serde(tag = "kind", content = "body", rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum EventKind {
    /// Line 0.
    GameOpened(Box<Opening>),
    /// The clock of `side` starts: the game has begun (3).
    ClockStarted { side: Side },
    /// A move made and the clock pressed (6a for the human's moves, 6b for the machine's).
    MoveMade {
        side: Side,
        san: Text,
        uci: Text,
        /// Time charged for the move.
        spent_ms: Ms,
        /// Fischer increment added after it.
        increment_ms: Ms,
        /// The mover's remaining time after the move (for readers; the state recomputes it).
        remaining_ms: i64,
        /// Position after the move (chess).
        fen: Option<Text>,
        /// The move was made while the opponent's draw offer was unanswered: rejection (9e).
        declines_draw: bool,
        /// The clock was pressed for this move by an earlier `clock_pressed` entry at this time;
        /// this entry names the move (its notation came after the press). Absent: the move and
        /// its press are one act at this entry's time.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pressed_at: Option<Ms>,
        /// Byo-yomi periods that ran out during the move (for readers; the state
        /// recomputes it). Present only when the mover has byo-yomi.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        byoyomi_periods_lost: Option<u32>,
        /// Byo-yomi periods the mover has left after the move. Present only when the
        /// mover has byo-yomi.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        byoyomi_periods_left: Option<u32>,
    },
    /// 4a / 6b: the side to move pressed its clock (the human on his own key, the operator for the
    /// machine); the move's notation follows in a `move_made` entry naming this press.
    ClockPressed {
        side: Side,
        /// Time charged for the move (the clock's drop since the side's turn began).
        spent_ms: Ms,
        /// Fischer increment added at the press.
        increment_ms: Ms,
        /// The side's remaining time after the press.
        remaining_ms: i64,
        /// Byo-yomi periods that ran out during the move (present with byo-yomi only).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        byoyomi_periods_lost: Option<u32>,
        /// Byo-yomi periods left after the press (present with byo-yomi only).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        byoyomi_periods_left: Option<u32>,
    },
    /// The arbiter stops both clocks (1).
    ClockStopped { reason: Text },
    /// The clock of the side to move starts again.
    ClockResumed { side: Side },
    /// 6c: the engine's internal clock as reported by the operator, against the game clock.
    InternalClockReported {
        reading_ms: Ms,
        game_clock_ms: i64,
        diff_ms: i64,
        threshold_ms: Ms,
        correction_owed: bool,
    },
    /// 7b: the arbiter released the owed machine move `san`: another move may be entered.
    OwedMoveReleased { san: String, reason: String },
    /// 8b: the reset window after the power came back ended with no reset reported: the arbiter
    /// may restart the machine's clock (`arbiter resume`).
    ResetWindowEnded { window_ms: Ms },
    /// 6c: the machine's move was entered while a correction of its internal clock was owed and
    /// not made; the arbiter decides.
    SyncNotMade {
        /// The owed difference (internal clock minus game clock) when it was reported.
        diff_ms: i64,
        /// When the difference was reported.
        reported_at: Ms,
        threshold_ms: Ms,
    },
    /// 6c: the operator set the internal clock to the game clock.
    InternalClockCorrected { from_ms: Ms, to_ms: i64 },
    /// 6d / 7e: the arbiter corrects a clock.
    ClockCorrected {
        side: Side,
        how: ClockSet,
        from_ms: i64,
        to_ms: i64,
        delta_ms: i64,
        reason: String,
    },
    /// 6d / 7e: the arbiter takes back moves to restore the position.
    MovesTakenBack {
        plies: usize,
        removed: Vec<Text>,
        reason: Text,
        fen: Option<Text>,
    },
    /// 6g: a parameter set before the machine's first move.
    ParameterSet { name: String, value: String },
    /// 6l: the operator asks to correct a parameter set incorrectly by accident.
    ParameterRequested {
        id: u32,
        name: String,
        reason: String,
    },
    /// 6l, 12: the committee's advice on a request or dispute.
    CommitteeAdvised { request: u32, text: String },
    /// 6l: the arbiter permits or refuses the correction.
    ParameterDecided {
        id: u32,
        permitted: bool,
        reason: String,
    },
    /// 7b (not pressed) or 7c (pressed): the operator executed a move that is not the machine's.
    WrongMove {
        played: String,
        correct: String,
        correct_uci: String,
        pressed: bool,
        infraction: u32,
        penalty_ms: Ms,
        forfeit: bool,
    },
    /// 8a: a technical problem; the machine's clock keeps running.
    TechnicalProblem { text: String },
    /// 8a: the supervisor's note of work done.
    WorkNote { text: String },
    /// 8a: the supervisor stops the machine's clock to ask for information.
    InfoStopped { question: String },
    /// 8a: information received; the machine's clock restarts.
    InfoResumed,
    /// 8a: the machine is restored.
    TechnicalResolved { text: String },
    /// 8b: power failure or other external disruption: the game is suspended.
    PowerFailed { text: String },
    /// 8b: power is back; the reset window starts.
    PowerRestored { window_ms: Ms },
    /// 8b: the operator reports the machine reset before the window ends.
    MachineReset,
    /// A draw offer (9d for the machine; the human's under the FIDE Laws).
    DrawOffered {
        by: Side,
        justification: Option<Justification>,
    },
    /// 9e: consultation with registered team members starts.
    ConsultationStarted { with: Vec<String> },
    /// 9e: consultation ends (by the operator, by the limit, or with the game).
    ConsultationEnded {
        used_ms: Ms,
        total_ms: Ms,
        limit_reached: bool,
    },
    /// 9a: the offer is declined.
    DrawDeclined { by: Side, how: DeclineHow },
    /// 12: a dispute is raised.
    DisputeRaised { id: u32, text: String },
    /// 12: the committee's ruling.
    RulingGiven { id: u32, dispute: u32, text: String },
    /// A note for the log of machine-related actions (5b).
    Note { text: Text },
    /// FIDE 9.5 (rule 2): a draw claim found incorrect; time added to the opponent's clock.
    ClaimDismissed {
        claimant: Side,
        /// `threefold` or `fifty`.
        claim: String,
        /// Why it is not correct.
        detail: String,
        /// The intended move, played after this entry as the Laws require.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        with_move: Option<String>,
        added_ms: Ms,
        /// The side given the time (the claimant's opponent).
        to: Side,
        /// The edition of the Laws the amount comes from.
        laws: String,
    },
    /// 1: the arbiter voided entry `seq` (of kind `kind`): it records something that did not
    /// happen. The entry stays; its effect is gone.
    EntryVoided {
        seq: u64,
        kind: String,
        reason: String,
    },
    /// 5b: how the arbiter authorized the entries `first..=last` at the keyboard (the signing key's
    /// passphrase, or an unencrypted key that anyone at the keyboard holds).
    Authorized {
        by: String,
        command: String,
        first: u64,
        last: u64,
    },
    /// 5b: an arbiter-only command at the keyboard whose authorization failed; nothing else recorded.
    AuthorizationFailed { command: String, why: String },
    /// The game is adjourned (or a break begins); both clocks stop. With a sealed move,
    /// `sealed_sha256` commits to it: SHA-256 of `MOVE NONCE` (hex), revealed at resumption.
    Adjourned {
        /// The side to move, whose move is open or sealed.
        side: Side,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sealed_sha256: Option<String>,
    },
    /// The operator records that the engine was stopped during the adjournment.
    EngineStopped,
    /// Deep Blue 1996/97: the machine's operator replaced during the game, when it was
    /// not the human's turn.
    OperatorReplaced {
        from: String,
        to: String,
        reason: String,
    },
    /// Play resumes after an adjournment; a sealed move's reveal, checked against the
    /// commitment, is recorded here and its move follows as its own entry.
    AdjournmentResumed {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        revealed: Option<String>,
    },
    /// After a restart of the kit: the arbiter's decision on the time between the last entry and
    /// the restart (8b: waived, the running clock is credited; 6d: charged).
    RestartGap {
        gap_ms: Ms,
        charged: bool,
        side: Option<Side>,
        /// How much of the gap the side is charged, when the ruling says (the rest is given back);
        /// absent in older logs: all when `charged`, none otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        charged_ms: Option<Ms>,
        /// Why the arbiter ruled so.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// What the kit saw of the wall clock across the restart, when it does not agree with
        /// the boot clock (set back, or jumped): both readings, in words.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wall_clock: Option<String>,
    },
    /// The game is over.
    GameEnded {
        score: Score,
        termination: Termination,
        detail: String,
        fen: Option<String>,
        ruling: Option<u32>,
    },
    /// The journal cut off a torn last line on open (written by the journal, not the core).
    Recovery(serde_json::Value),
    /// 13a / 13c: the machine's log files archived, with their digests and coverage.
    EngineLogArchived(serde_json::Value),
    /// 13d: the program copy archived.
    ProgramArchived(serde_json::Value),
}
