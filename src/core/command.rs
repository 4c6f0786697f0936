//! Commands: the exact words accepted by script mode and by the Board UI's `:` line.
//! `<who> <verb> [args]`, or `move <SAN|UCI>` for the operator entering a move.
use serde::Serialize;

use super::event::{Entrant, Justification, PlayerKind, Score};
use super::timefmt::{TimeError, parse_duration, parse_signed};
use super::{Ms, Side};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum SideRef {
    Side(Side),
    Human,
    Machine,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum ClaimKind {
    Threefold,
    FiftyMoves,
}

/// Who may give a command. The human's acts are recorded by the arbiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Role {
    /// The machine's operator: moves, the machine's clock press and internal clock, the machine's
    /// draw offers and answers with the 9c/9e consultation, its resignation, technical problems,
    /// parameter requests.
    Operator,
    /// The arbiter (and through him the supervisor and the committee): everything else.
    Arbiter,
}

impl Command {
    /// Whether the command can end the game or change what was played: the Board UI asks y/n
    /// first, stating the consequence.
    pub fn needs_confirmation(&self) -> bool {
        use Command as C;
        matches!(
            self,
            C::Resign
                | C::HumanResign
                | C::AcceptDraw
                | C::HumanAcceptDraw
                | C::ArbiterTablebaseDraw { .. }
                | C::Decide { .. }
                | C::NoShow { .. }
                | C::NoShowBoth
                | C::SideResign { .. }
                | C::DeclareWin { .. }
                | C::Claim { .. }
                | C::WrongMove { .. }
                | C::IllegalMove { .. }
                | C::CorrectClock { .. }
                | C::TakeBack { .. }
                | C::Void { .. }
        )
    }

    /// Who may give this command: the operator's own rights need nothing more; everything else
    /// needs the arbiter's authorization at the keyboard.
    pub fn role(&self) -> Role {
        use Command as C;
        match self {
            C::Move { .. }
            | C::Press
            | C::InternalClock { .. }
            | C::SyncInternalClock
            | C::OfferDraw { .. }
            | C::AcceptDraw
            | C::DeclineDraw
            | C::Consult { .. }
            | C::ConsultEnd
            | C::Resign
            | C::TechnicalProblem { .. }
            | C::Repaired { .. }
            | C::ResetDone
            | C::TablebaseDraw
            | C::Param { .. }
            | C::ParamRequest { .. }
            | C::Claim {
                by_human: false, ..
            }
            | C::Authorize { .. }
            | C::AuthorizationFailed { .. }
            | C::EngineStopped => Role::Operator,
            _ => Role::Arbiter,
        }
    }
}

/// How much of a measured restart gap the running side is charged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum GapRuling {
    /// None of it (8b): the gap is given back.
    Waive,
    /// All of it (6d).
    Charge,
    /// This much of it (6d), the rest given back.
    ChargePart(Ms),
}

/// What Syzygy endgame tables say of a position (10a), probed by the shell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum TablebaseProbe {
    /// Win-draw-loss for the side to move: -2 loss, -1 loss saved by the 50-move rule, 0 draw,
    /// 1 win spoiled by the 50-move rule, 2 win.
    Wdl { wdl: i8, tables: String },
    /// The tables could not answer (no table for this material, unreadable files).
    Unavailable { reason: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Command {
    /// Adjourn the game, the move open or sealed (the hex SHA-256 of `MOVE NONCE`).
    Adjourn {
        sealed_sha256: Option<String>,
    },
    /// The operator records that the engine was stopped during the adjournment.
    EngineStopped,
    /// Deep Blue 1996/97: replace the machine's operator during the game.
    ReplaceOperator {
        name: String,
        reason: String,
    },
    /// Resume an adjourned game; a sealed move is revealed as `MOVE NONCE`.
    ResumeAdjourned {
        reveal: Option<(String, String)>,
    },
    /// 5b: the shell records how the entries `first..=last` were authorized. Never typed.
    Authorize {
        by: String,
        words: String,
        first: u64,
        last: u64,
    },
    /// 5b: the shell records a failed authorization of `words`. Never typed.
    AuthorizationFailed {
        words: String,
        why: String,
    },
    /// Rule 13: the machine's log (and program copy) handed over after the game, as the shell
    /// examined and stored them. Never typed: `arbiter archive` builds it.
    Handover(Box<crate::core::game::HandoverFacts>),
    /// Rule 13 on the Board UI: the copies of the machine's log (13a) and the program copy (13d)
    /// handed over; the board examines and stores them, then records `Handover`.
    HandOverFiles {
        copies: Vec<String>,
        program: Option<String>,
        /// `--side sente|gote|white|black`: the copies are that side's program's own log (a
        /// game between two programs, Denryu-sen 5.2); `None`: every program side's.
        side: Option<Side>,
    },
    // arbiter, before the game (declarations, bound into line 0)
    DeclarePlayer {
        side: Side,
        kind: PlayerKind,
        name: String,
    },
    /// Denryu-sen 5.2: a side's entrant, one of the four kinds (a program, a human, a human team,
    /// a human consulting an AI with the declared method).
    DeclareEntrant {
        side: Side,
        entrant: Entrant,
        name: String,
    },
    DeclareOperator {
        name: String,
    },
    DeclareTeam {
        names: Vec<String>,
    },
    DeclareAlgorithm {
        threshold_ms: Option<Ms>,
        text: String,
    },
    DeclareConfig {
        sha256: String,
    },
    /// A camp's witness key (countersigns the final checkpoint).
    DeclareCamp {
        name: String,
        key: String,
        /// The camp's proof of possession ([`super::camp`]): its armored SSHSIG over its own
        /// declaration. A camp key without a valid one is refused.
        proof: Option<String>,
    },
    /// A camp's key with its proof of possession in a file (`proof FILE`); the shell reads the
    /// file (the core reads none) and gives a [`Command::DeclareCamp`] with the proof.
    DeclareCampProofFile {
        name: String,
        /// The key typed on the line, if any (else the one that made the proof).
        key: Option<String>,
        path: String,
    },
    /// 8a: the configuration document by its path; the shell reads it and declares its SHA-256
    /// (the core reads no file), so this never reaches the game.
    DeclareConfigFile {
        path: String,
    },
    /// Write line 0 (declarations bound) without starting the clock.
    Open,
    /// Open if needed and start White's clock.
    Start,
    // arbiter, during the game
    Stop {
        reason: String,
    },
    Resume,
    CorrectClock {
        clause: &'static str,
        side: SideRef,
        delta: bool,
        ms: i64,
        reason: String,
    },
    TakeBack {
        clause: &'static str,
        plies: usize,
        reason: String,
    },
    WrongMove {
        played: String,
        correct: String,
        /// 7c found after the human replied: the machine's move number the arbiter names (the
        /// moves after it are taken back to correct it). None: the last move, or 7b.
        number: Option<u32>,
    },
    /// 7b: the arbiter releases the owed machine move: another move may be entered (reason given).
    ReleaseOwedMove {
        reason: String,
    },
    PowerFailure {
        text: String,
    },
    PowerRestored,
    ParamDecision {
        id: u32,
        permit: bool,
        reason: String,
    },
    Dispute {
        text: String,
    },
    Decide {
        ruling: u32,
        score: Score,
        reason: String,
    },
    NoShow {
        side: SideRef,
    },
    Note {
        text: String,
    },
    /// Rule 1: void entry `seq`, which records something that did not happen (the trail stays).
    Void {
        seq: u64,
        reason: String,
    },
    /// 8b: the arbiter's ruling on the time a running clock was charged while the kit was
    /// down (a restart after a crash or a suspend). `measured` is filled by the shell from what it
    /// measured at the restart (gap, side whose clock ran: none for a restart during an 8b
    /// suspension, which is recorded all the same); without a restart it stays `None`.
    RestartGap {
        ruling: GapRuling,
        reason: String,
        measured: Option<(Ms, Option<Side>)>,
    },
    /// Shogi 13.1: the arbiter confirms that the entrant to move played this illegal move (as
    /// typed at the board it was refused, nothing recorded): the mover loses.
    IllegalMove {
        text: String,
    },
    // the operator
    Move {
        text: String,
    },
    /// The press of the side whose clock runs (its key went down now); the move's notation is
    /// entered after it with `move SAN`.
    Press,
    InternalClock {
        reading_ms: Ms,
    },
    SyncInternalClock,
    Param {
        name: String,
        value: String,
    },
    ParamRequest {
        name: String,
        reason: String,
    },
    Consult {
        with: Vec<String>,
    },
    ConsultEnd,
    AcceptDraw,
    DeclineDraw,
    OfferDraw {
        justification: Justification,
    },
    Resign,
    TechnicalProblem {
        text: String,
    },
    Repaired {
        text: String,
    },
    ResetDone,
    TablebaseDraw,
    /// 10a: the arbiter has seen the machine's display show the database draw and ends the game;
    /// `probe` is what the shell's Syzygy tables say of the position, if it has tables.
    ArbiterTablebaseDraw {
        probe: Option<TablebaseProbe>,
    },
    /// FIDE 9.2 / 9.3: a draw claimed by the player having the move, on the position on the board
    /// or with the move he intends to play (written, not played: FIDE 9.2.1.1, 9.3.1). A claim
    /// found incorrect adds time to the opponent's clock and the intended move is played (9.5).
    Claim {
        kind: ClaimKind,
        by_human: bool,
        with_move: Option<String>,
    },
    // the technical supervisor
    InfoStop {
        question: String,
    },
    InfoResume,
    WorkNote {
        text: String,
    },
    // the committee
    Advise {
        request: u32,
        text: String,
    },
    Ruling {
        dispute: u32,
        text: String,
    },
    // the human player (recorded by the arbiter)
    HumanOfferDraw,
    HumanAcceptDraw,
    HumanDeclineDraw,
    HumanResign,
    // any entrant, named by its side (program-vs-program games too; Denryu-sen 5.2, 13.1, 23)
    /// The side resigns (`sente resign`, `gote resign`, `white resign`, `black resign`).
    SideResign {
        side: SideRef,
    },
    /// Denryu-sen 23: the side declares an entering-king win (`%KACHI`); judged at once.
    DeclareWin {
        side: SideRef,
    },
    /// Denryu-sen 13.7: neither side appeared within the default time: both lose.
    NoShowBoth,
    /// Denryu-sen 5.2 (4): what a human consulting an AI consulted, logged.
    Consulted {
        side: SideRef,
        text: String,
    },
}

/// One line of help: who may say it, the words, and the clause.
pub struct HelpLine {
    pub who: &'static str,
    pub words: &'static str,
    pub clause: &'static str,
    pub what: &'static str,
}

/// Every command, grouped by who may use it (shown by `?` in the Board UI and in README).
pub const HELP: &[HelpLine] = &[
    HelpLine {
        who: "arbiter",
        words: "arbiter declare white|black human|machine NAME",
        clause: super::clause::ARBITER,
        what: "players and colours",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter declare operator NAME",
        clause: super::clause::OPERATOR_CHANGE_BETWEEN,
        what: "the machine operator for this game",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter declare team NAME, NAME, ...",
        clause: super::clause::TEAM,
        what: "machine team members the operator may consult",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter declare algorithm [threshold SECONDS] TEXT",
        clause: super::clause::INTERNAL_CLOCK,
        what: "internal-clock algorithm",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter declare config SHA256",
        clause: super::clause::TECHNICAL,
        what: "digest of the machine configuration document",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter declare camp NAME [ssh-ed25519 AAAA…] proof FILE",
        clause: super::clause::ARBITER,
        what: "a camp's witness key: it countersigns the final checkpoint",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter declare config-file PATH",
        clause: super::clause::TECHNICAL,
        what: "the same, the kit computing the SHA-256 of the document",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter replace-operator NAME, REASON",
        clause: super::clause::OPERATOR_FIXED,
        what: "replace the machine operator mid-game, if the match rules allow",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter open",
        clause: super::clause::MACHINE_LOG,
        what: "write the game's first entry (declarations bound)",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter start",
        clause: super::clause::TIME_CONTROL,
        what: "start White's clock",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter stop REASON",
        clause: super::clause::ARBITER,
        what: "stop both clocks",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter resume",
        clause: super::clause::ARBITER,
        what: "restart the clock of the side to move",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter correct 6d|7e clock white|black|human|machine H:MM:SS|+S|-S REASON",
        clause: super::clause::OPERATOR_CORRECTION,
        what: "set or adjust a clock",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter correct 6d|7e takeback N REASON",
        clause: super::clause::OPERATOR_CORRECTION,
        what: "take back N moves (clocks stopped)",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter wrong-move PLAYED CORRECT",
        clause: super::clause::WRONG_MOVE_PRESSED,
        what: "operator executed a move not the machine's",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter wrong-move MOVE# PLAYED CORRECT",
        clause: super::clause::WRONG_MOVE_PRESSED,
        what: "the same, found after the reply (clocks stopped)",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter illegal-move MOVE",
        clause: super::clause::LAWS,
        what: "shogi, 13.1: the mover played this illegal move and loses",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter power-failure TEXT",
        clause: super::clause::POWER_FAILURE,
        what: "suspend the game",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter power-restored",
        clause: super::clause::POWER_FAILURE,
        what: "start the reset window",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter param-decision ID permit|refuse REASON",
        clause: super::clause::PARAMETER_CORRECTION,
        what: "decide a parameter-correction request",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter dispute TEXT",
        clause: super::clause::COMMITTEE,
        what: "record a dispute",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter decide RULING 1-0|0-1|1/2-1/2 REASON",
        clause: super::clause::COMMITTEE,
        what: "end the game on a committee ruling",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter no-show white|black|human|machine",
        clause: super::clause::LAWS,
        what: "default time passed: the absent side loses",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter note TEXT",
        clause: super::clause::MACHINE_LOG,
        what: "a note in the log",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter release-move REASON",
        clause: super::clause::WRONG_MOVE_NOTIFY,
        what: "after 7b, let a move other than the recorded one be entered",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter void SEQ REASON",
        clause: super::clause::ARBITER,
        what: "void a mis-keyed entry; it stays in the log",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter restart-gap waive|charge [H:MM:SS] REASON",
        clause: super::clause::POWER_FAILURE,
        what: "after a restart: charge the gap to the running clock or not",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter archive [--side SIDE] COPY COPY … [program FILE]",
        clause: super::clause::ENGINE_LOG,
        what: "after the result: machine's log copies (13a/13c), program (13d)",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter tablebase-draw",
        clause: super::clause::TABLEBASE,
        what: "seen on the machine's display: database draw, game ends",
    },
    HelpLine {
        who: "arbiter",
        words: "arbiter adjourn [sealed SHA256]",
        clause: super::clause::ARBITER,
        what: "adjourn, the move open or sealed; then arbiter resume-adjourned",
    },
    HelpLine {
        who: "operator",
        words: "move SAN|UCI",
        clause: super::clause::ENTER_HUMAN_MOVE,
        what: "enter a move (after its press, or pressing now)",
    },
    HelpLine {
        who: "operator",
        words: "press",
        clause: super::clause::EXECUTE_MACHINE_MOVE,
        what: "press the running clock now; the move follows",
    },
    HelpLine {
        who: "operator",
        words: "operator internal-clock H:MM:SS",
        clause: super::clause::INTERNAL_CLOCK,
        what: "report the engine's internal clock",
    },
    HelpLine {
        who: "operator",
        words: "operator sync-internal-clock",
        clause: super::clause::INTERNAL_CLOCK,
        what: "internal clock set to the game clock",
    },
    HelpLine {
        who: "operator",
        words: "operator param NAME VALUE",
        clause: super::clause::BEFORE_FIRST_MOVE,
        what: "set a parameter (before the machine's first move)",
    },
    HelpLine {
        who: "operator",
        words: "operator param-request NAME REASON",
        clause: super::clause::PARAMETER_CORRECTION,
        what: "ask to correct a parameter",
    },
    HelpLine {
        who: "operator",
        words: "operator consult NAME, NAME",
        clause: super::clause::CONSULTATION,
        what: "start consulting registered team members",
    },
    HelpLine {
        who: "operator",
        words: "operator consult-end",
        clause: super::clause::CONSULTATION,
        what: "end the consultation",
    },
    HelpLine {
        who: "operator",
        words: "operator accept-draw",
        clause: super::clause::DRAW_ANSWER,
        what: "accept the human's draw offer",
    },
    HelpLine {
        who: "operator",
        words: "operator decline-draw",
        clause: super::clause::DRAW_ANSWER,
        what: "decline the human's draw offer",
    },
    HelpLine {
        who: "operator",
        words: "operator offer-draw eval CP|PAWNS",
        clause: super::clause::MACHINE_DRAW_OFFER,
        what: "offer a draw on a near-draw evaluation",
    },
    HelpLine {
        who: "operator",
        words: "operator offer-draw repetition LINE",
        clause: super::clause::MACHINE_DRAW_OFFER,
        what: "offer a draw on a repetition line",
    },
    HelpLine {
        who: "operator",
        words: "operator resign",
        clause: super::clause::RESIGN,
        what: "resign for the machine",
    },
    HelpLine {
        who: "operator",
        words: "operator technical-problem TEXT",
        clause: super::clause::TECHNICAL,
        what: "report a technical problem",
    },
    HelpLine {
        who: "operator",
        words: "operator repaired TEXT",
        clause: super::clause::TECHNICAL,
        what: "machine restored",
    },
    HelpLine {
        who: "operator",
        words: "operator reset-done",
        clause: super::clause::POWER_FAILURE,
        what: "machine reset after a power failure",
    },
    HelpLine {
        who: "operator",
        words: "operator tablebase-draw",
        clause: super::clause::TABLEBASE,
        what: "advise the arbiter: the machine's database shows a draw",
    },
    HelpLine {
        who: "operator",
        words: "operator claim threefold|fifty [MOVE]",
        clause: super::clause::LAWS,
        what: "claim a draw, with the intended move if any (9.2, 9.3)",
    },
    HelpLine {
        who: "operator",
        words: "operator engine-stopped",
        clause: super::clause::ARBITER,
        what: "record that the engine was stopped during the adjournment",
    },
    HelpLine {
        who: "supervisor",
        words: "supervisor info-stop QUESTION",
        clause: super::clause::TECHNICAL,
        what: "stop the machine's clock to ask",
    },
    HelpLine {
        who: "supervisor",
        words: "supervisor info-resume",
        clause: super::clause::TECHNICAL,
        what: "restart the machine's clock",
    },
    HelpLine {
        who: "supervisor",
        words: "supervisor note TEXT",
        clause: super::clause::TECHNICAL,
        what: "note of work done",
    },
    HelpLine {
        who: "committee",
        words: "committee advise REQUEST TEXT",
        clause: super::clause::PARAMETER_CORRECTION,
        what: "advice on a parameter request",
    },
    HelpLine {
        who: "committee",
        words: "committee ruling DISPUTE TEXT",
        clause: super::clause::COMMITTEE,
        what: "ruling on a dispute",
    },
    HelpLine {
        who: "human",
        words: "human offer-draw",
        clause: super::clause::CONSULTATION,
        what: "the human offers a draw with the move just made",
    },
    HelpLine {
        who: "human",
        words: "human accept-draw",
        clause: super::clause::LAWS,
        what: "accept the machine's offer",
    },
    HelpLine {
        who: "human",
        words: "human decline-draw",
        clause: super::clause::LAWS,
        what: "decline the machine's offer",
    },
    HelpLine {
        who: "human",
        words: "human resign",
        clause: super::clause::LAWS,
        what: "the human resigns",
    },
    HelpLine {
        who: "human",
        words: "human claim threefold|fifty [MOVE]",
        clause: super::clause::LAWS,
        what: "claim a draw, with the intended move if any (9.2, 9.3)",
    },
];

/// Why a command line was not understood: nothing is decided, nothing recorded. The text says
/// what is wrong with the words and how to write them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("empty command")]
    Empty,
    /// The words do not fit the command's form: the text gives the form.
    #[error("{0}")]
    Usage(&'static str),
    #[error("'{0}' needs a verb; see the command list (? in the Board UI)")]
    NeedsVerb(String),
    #[error("'{who} {verb}' is not a command; see the command list (? in the Board UI)")]
    NotACommand { who: String, verb: String },
    #[error(
        "'{0}' is not a command: start with arbiter, operator, supervisor, committee, human or move"
    )]
    NoSuchActor(String),
    #[error("'{who} {verb}' takes nothing more")]
    TakesNothing { who: String, verb: String },
    #[error("give the {0}")]
    MissingText(String),
    #[error(
        "the {what} is {chars} characters long; free text is at most {MAX_TEXT_CHARS} characters: nothing recorded"
    )]
    TextTooLong { what: String, chars: usize },
    #[error(
        "the {what} holds a control character ({code}): names and free text are printable text only (a terminal would act on it): nothing recorded"
    )]
    ControlCharacter { what: String, code: String },
    #[error("'{0}' is not a side (white, black, human, machine; in shogi sente, gote, 先手, 後手)")]
    NotASide(String),
    /// A chess side named in a shogi game: shogi names its sides sente and gote.
    #[error(
        "'{word}' names a chess side: a shogi game's sides are sente (先手) and gote (後手); say '{instead}': nothing recorded"
    )]
    ChessSideInShogi { word: String, instead: String },
    #[error("'{0}' is not human or machine")]
    NotAKind(String),
    #[error("give the {0} number")]
    MissingNumber(String),
    #[error("'{word}' is not a {what} number")]
    NotANumber { word: String, what: String },
    #[error("'{0}' is not a move number: say arbiter wrong-move [MOVE#] PLAYED CORRECT")]
    NotAMoveNumber(String),
    #[error("'{0}' is not a number of moves")]
    NotAPlyCount(String),
    #[error("'{0}' is not an evaluation")]
    NotAnEvaluation(String),
    #[error(
        "'{0}' is not an evaluation (centipawns like 12, or pawns like 0.12; mate scores are not near-draw)"
    )]
    NotCentipawns(String),
    #[error("give the reason of the ruling; {0}")]
    RulingReason(&'static str),
    #[error("'{0}' is not a SHA-256 (64 hex digits)")]
    NotASha256(String),
    #[error("'{0}' is not a camp name (1-32 lowercase letters, digits or '-')")]
    NotACampName(String),
    #[error("'{key}' is not an OpenSSH public key of a supported type ({supported})")]
    NotACampKey { key: String, supported: String },
    /// A time or duration among the words.
    #[error(transparent)]
    Time(#[from] TimeError),
}

fn rest(words: &[&str]) -> String {
    words.join(" ")
}

/// The longest free text (a note, a reason, a description) a command may carry, in characters.
pub const MAX_TEXT_CHARS: usize = 2000;

/// Refuse text holding a control character (an escape sequence a terminal would act on).
fn printable_only(text: &str, what: &str) -> Result<(), CommandError> {
    match text.chars().find(|c| c.is_control()) {
        Some(c) => Err(CommandError::ControlCharacter {
            what: what.to_string(),
            code: format!("U+{:04X}", c as u32),
        }),
        None => Ok(()),
    }
}

fn need_text(words: &[&str], what: &str) -> Result<String, CommandError> {
    if words.is_empty() {
        return Err(CommandError::MissingText(what.to_string()));
    }
    let text = rest(words);
    printable_only(&text, what)?;
    let n = text.chars().count();
    if n > MAX_TEXT_CHARS {
        return Err(CommandError::TextTooLong {
            what: what.to_string(),
            chars: n,
        });
    }
    Ok(text)
}

/// Shogi's sente (the first player, 先手) is the kit's white, gote (後手) black.
const WHITE_WORDS: [&str; 3] = ["white", "sente", "先手"];
const BLACK_WORDS: [&str; 3] = ["black", "gote", "後手"];

/// Whether `w` names a side by colour or by shogi's words.
fn is_side_word(w: &str) -> bool {
    WHITE_WORDS.contains(&w) || BLACK_WORDS.contains(&w)
}

/// The side a word names (white, black, sente, gote, 先手, 後手).
fn side_of(w: &str) -> Option<Side> {
    if WHITE_WORDS.contains(&w) {
        Some(Side::White)
    } else if BLACK_WORDS.contains(&w) {
        Some(Side::Black)
    } else {
        None
    }
}

/// The words of a command line that name a side by colour or shogi word, where a command takes
/// a side: `SIDE resign`, `arbiter declare SIDE …`, `arbiter no-show SIDE`,
/// `arbiter archive --side SIDE …`, `arbiter correct 6d|7e clock SIDE …`.
fn side_words<'a>(words: &[&'a str]) -> Option<&'a str> {
    let w = match words {
        [who, ..] if is_side_word(who) => *who,
        ["arbiter", "declare" | "no-show", s, ..]
        | ["arbiter", "archive", "--side", s, ..]
        | ["arbiter", "correct", _, "clock", s, ..] => *s,
        _ => return None,
    };
    is_side_word(w).then_some(w)
}

/// Parse a command line of a game whose sides are named as `shogi` says: in a shogi game
/// `white` and `black` are refused, naming sente and gote (先手/後手 accepted everywhere).
pub fn parse_for(line: &str, shogi: bool) -> Result<Command, CommandError> {
    side_words_fit(line, shogi)?;
    parse(line)
}

/// Refuse a command line naming a chess side (`white`, `black`) in a shogi game.
pub fn side_words_fit(line: &str, shogi: bool) -> Result<(), CommandError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match side_words(&words) {
        Some(w @ ("white" | "black")) if shogi => Err(CommandError::ChessSideInShogi {
            word: w.to_string(),
            instead: if w == "white" { "sente" } else { "gote" }.to_string(),
        }),
        _ => Ok(()),
    }
}

fn side_ref(w: Option<&&str>) -> Result<SideRef, CommandError> {
    match w.copied() {
        Some(s) if let Some(side) = side_of(s) => Ok(SideRef::Side(side)),
        Some("human") => Ok(SideRef::Human),
        Some("machine") => Ok(SideRef::Machine),
        Some(o) => Err(CommandError::NotASide(o.to_string())),
        None => Err(CommandError::Usage(
            "give a side (white, black, human, machine; in shogi sente, gote, 先手, 後手)",
        )),
    }
}

fn number(w: Option<&&str>, what: &str) -> Result<u32, CommandError> {
    let w = w.ok_or_else(|| CommandError::MissingNumber(what.to_string()))?;
    w.trim_start_matches('#')
        .parse()
        .map_err(|_| CommandError::NotANumber {
            word: w.to_string(),
            what: what.to_string(),
        })
}

fn names(words: &[&str]) -> Vec<String> {
    rest(words)
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Parse centipawns: `12`, `-35`, `12cp`, or pawns with a point: `0.12`, `-0.35`.
pub fn parse_eval(s: &str) -> Result<i32, CommandError> {
    let t = s.trim_end_matches("cp");
    if t.contains('.') {
        let v: f64 = t
            .parse()
            .map_err(|_| CommandError::NotAnEvaluation(s.to_string()))?;
        if !v.is_finite() || v.abs() > 1000.0 {
            return Err(CommandError::NotAnEvaluation(s.to_string()));
        }
        Ok((v * 100.0).round() as i32)
    } else {
        t.parse()
            .map_err(|_| CommandError::NotCentipawns(s.to_string()))
    }
}

/// `arbiter archive [--side SIDE] COPY COPY… [program FILE]` (13a, 13d).
fn parse_archive(args: &[&str]) -> Result<Command, CommandError> {
    let (side, args) = match args {
        ["--side", w, rest @ ..] => match side_ref(Some(w))? {
            SideRef::Side(s) => (Some(s), rest),
            _ => return Err(CommandError::NotASide(w.to_string())),
        },
        ["--side"] => {
            return Err(CommandError::Usage(
                "say: arbiter archive --side sente|gote COPY COPY … (the side whose program's log the copies are)",
            ));
        }
        _ => (None, args),
    };
    let (copies, program) = match args.iter().position(|w| *w == "program") {
        Some(i) => match &args[i + 1..] {
            [p] => (&args[..i], Some(p.to_string())),
            _ => {
                return Err(CommandError::Usage(
                    "say: arbiter archive COPY COPY … [program FILE] (one program file, last)",
                ));
            }
        },
        None => (args, None),
    };
    if copies.is_empty() {
        return Err(CommandError::Usage(
            "give the copies of the machine's log handed over (13a): arbiter archive COPY COPY …",
        ));
    }
    Ok(Command::HandOverFiles {
        copies: copies.iter().map(|c| c.to_string()).collect(),
        program,
        side,
    })
}

/// Parse one command line. Errors say what is wrong with the words.
pub fn parse(line: &str) -> Result<Command, CommandError> {
    // Japanese move notation writes a full-width space after 同 (同　歩): one word here.
    let line = line.replace("同\u{3000}", "同");
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&who, rest_words)) = words.split_first() else {
        return Err(CommandError::Empty);
    };
    if who == "press" {
        return if rest_words.is_empty() {
            Ok(Command::Press)
        } else {
            Err(CommandError::Usage(
                "'press' takes nothing: it presses the clock of the side whose clock runs; the move follows with 'move SAN'",
            ))
        };
    }
    let (verb, args) = match rest_words.split_first() {
        Some((v, a)) => (*v, a),
        None if who == "move" => {
            return Err(CommandError::Usage(
                "give the move (SAN like Nf3 or UCI like g1f3)",
            ));
        }
        None => {
            return Err(CommandError::NeedsVerb(who.to_string()));
        }
    };
    let c = match (who, verb) {
        ("move", mv) => {
            // A number before the move, as PGN exports write it (`move 20. Kf2`, `move 20... Kf2`):
            // one move, read with its number (the board checks the number).
            let numbered = mv.ends_with(['.', '…'])
                && mv.trim_end_matches(['.', '…']).chars().all(|c| c.is_ascii_digit())
                && !mv.trim_end_matches(['.', '…']).is_empty();
            let text = match args {
                [] => mv.to_string(),
                [m] if numbered => format!("{mv}{m}"),
                _ => {
                    return Err(CommandError::Usage("one move at a time: 'move SAN' (draw offers are separate commands)"));
                }
            };
            Command::Move { text }
        }
        ("arbiter", "declare") => parse_declare(args)?,
        ("arbiter", "archive") => parse_archive(args)?,
        ("arbiter", "replace-operator") => {
            let text = need_text(args, "new operator and the reason")?;
            match text.split_once(',') {
                Some((name, reason)) if !name.trim().is_empty() && !reason.trim().is_empty() => {
                    Command::ReplaceOperator {
                        name: name.trim().to_string(),
                        reason: reason.trim().to_string(),
                    }
                }
                _ => return Err(CommandError::Usage("say: arbiter replace-operator NAME, REASON")),
            }
        }
        ("arbiter", "open") => Command::Open,
        ("arbiter", "start") => Command::Start,
        ("arbiter", "stop") => Command::Stop {
            reason: need_text(args, "reason")?,
        },
        ("arbiter", "resume") => Command::Resume,
        ("arbiter", "correct") => parse_correct(args)?,
        ("arbiter", "wrong-move") => match args {
            [played, correct] => Command::WrongMove {
                played: played.to_string(),
                correct: correct.to_string(),
                number: None,
            },
            [n, played, correct] => Command::WrongMove {
                played: played.to_string(),
                correct: correct.to_string(),
                number: Some(
                    n.trim_end_matches(['.', '…'])
                        .parse()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| CommandError::NotAMoveNumber(n.to_string()))?,
                ),
            },
            _ => return Err(CommandError::Usage("say: arbiter wrong-move [MOVE#] PLAYED CORRECT")),
        },
        ("arbiter", "power-failure") => Command::PowerFailure {
            text: need_text(args, "description")?,
        },
        ("arbiter", "power-restored") => Command::PowerRestored,
        ("arbiter", "illegal-move") => match args {
            [text] => Command::IllegalMove {
                text: text.to_string(),
            },
            _ => {
                return Err(CommandError::Usage(
                    "say: arbiter illegal-move MOVE (the illegal move the entrant to move played, as typed)",
                ));
            }
        },
        ("arbiter", "param-decision") => {
            let id = number(args.first(), "request")?;
            let permit = match args.get(1).copied() {
                Some("permit") => true,
                Some("refuse") => false,
                _ => return Err(CommandError::Usage("say permit or refuse")),
            };
            Command::ParamDecision {
                id,
                permit,
                reason: need_text(args.get(2..).unwrap_or(&[]), "reason")?,
            }
        }
        ("arbiter", "dispute") => Command::Dispute {
            text: need_text(args, "dispute")?,
        },
        ("arbiter", "decide") => {
            let ruling = number(args.first(), "ruling")?;
            let score = args
                .get(1)
                .and_then(|s| Score::parse(s))
                .ok_or(CommandError::Usage("give the result: 1-0, 0-1 or 1/2-1/2"))?;
            Command::Decide {
                ruling,
                score,
                reason: need_text(args.get(2..).unwrap_or(&[]), "reason")?,
            }
        }
        ("arbiter", "no-show") if args.first() == Some(&"both") => Command::NoShowBoth,
        ("arbiter", "no-show") => Command::NoShow {
            side: side_ref(args.first())?,
        },
        (s, "consulted") if is_side_word(s) => Command::Consulted {
            side: side_ref(Some(&s))?,
            text: need_text(args, "what was consulted")?,
        },
        (s, "resign" | "declare") if is_side_word(s) => {
            if !args.is_empty() {
                return Err(CommandError::TakesNothing {
                    who: s.to_string(),
                    verb: verb.to_string(),
                });
            }
            let side = side_ref(Some(&s))?;
            if verb == "resign" {
                Command::SideResign { side }
            } else {
                Command::DeclareWin { side }
            }
        }
        ("arbiter", "release-move") => Command::ReleaseOwedMove {
            reason: need_text(args, "reason")?,
        },
        ("arbiter", "note") => Command::Note {
            text: need_text(args, "note")?,
        },
        ("arbiter", "void") => Command::Void {
            seq: args
                .first()
                .map(|a| a.trim_start_matches('#'))
                .and_then(|a| a.parse().ok())
                .ok_or(CommandError::Usage("give the entry number: arbiter void SEQ REASON (e.g. arbiter void 17 F7 pressed by mistake)"))?,
            reason: need_text(args.get(1..).unwrap_or(&[]), "reason for the void")?,
        },
        ("arbiter", "restart-gap") => {
            const SAY: &str = "say: arbiter restart-gap waive REASON, charge REASON, or charge H:MM:SS REASON (the part of the measured gap charged)";
            let (ruling, rest) = match args {
                ["waive", rest @ ..] => (GapRuling::Waive, rest),
                ["charge", d, rest @ ..] if d.contains(':') || d.parse::<u64>().is_ok() => {
                    (GapRuling::ChargePart(parse_duration(d)?), rest)
                }
                ["charge", rest @ ..] => (GapRuling::Charge, rest),
                _ => return Err(CommandError::Usage(SAY)),
            };
            if rest.is_empty() {
                return Err(CommandError::RulingReason(SAY));
            }
            Command::RestartGap {
                ruling,
                reason: rest.join(" "),
                measured: None,
            }
        }
        ("operator", "internal-clock") => Command::InternalClock {
            reading_ms: parse_duration(args.first().ok_or(CommandError::Usage("give the internal clock reading"))?)?,
        },
        ("operator", "sync-internal-clock") => Command::SyncInternalClock,
        ("operator", "param") => match args {
            [name, value @ ..] if !value.is_empty() => Command::Param {
                name: name.to_string(),
                value: rest(value),
            },
            _ => return Err(CommandError::Usage("say: operator param NAME VALUE")),
        },
        ("operator", "param-request") => match args {
            [name, reason @ ..] if !reason.is_empty() => Command::ParamRequest {
                name: name.to_string(),
                reason: rest(reason),
            },
            _ => return Err(CommandError::Usage("say: operator param-request NAME REASON")),
        },
        ("operator", "consult") => {
            let with = names(args);
            if with.is_empty() {
                return Err(CommandError::Usage("name the team members consulted"));
            }
            Command::Consult { with }
        }
        ("operator", "consult-end") => Command::ConsultEnd,
        ("operator", "accept-draw") => Command::AcceptDraw,
        ("operator", "decline-draw") => Command::DeclineDraw,
        ("operator", "offer-draw") => match args {
            ["eval", v] => Command::OfferDraw {
                justification: Justification::Eval { cp: parse_eval(v)? },
            },
            ["repetition", line @ ..] if !line.is_empty() => Command::OfferDraw {
                justification: Justification::Repetition { line: rest(line) },
            },
            _ => return Err(CommandError::Usage("a machine draw offer needs its justification (9d): 'eval CP' or 'repetition LINE'")),
        },
        ("operator", "resign") => Command::Resign,
        ("operator", "technical-problem") => Command::TechnicalProblem {
            text: need_text(args, "problem")?,
        },
        ("operator", "repaired") => Command::Repaired {
            text: need_text(args, "work done")?,
        },
        ("operator", "reset-done") => Command::ResetDone,
        ("operator", "tablebase-draw") => Command::TablebaseDraw,
        ("arbiter", "tablebase-draw") => Command::ArbiterTablebaseDraw { probe: None },
        ("operator", "claim") | ("human", "claim") => {
            let kind = match args.first().copied() {
                Some("threefold") => ClaimKind::Threefold,
                Some("fifty") => ClaimKind::FiftyMoves,
                _ => return Err(CommandError::Usage("claim threefold or fifty, with the intended move if any (claim threefold Nf3)")),
            };
            let with_move = match args.get(1..).unwrap_or(&[]) {
                [] => None,
                [m] => Some(m.to_string()),
                _ => return Err(CommandError::Usage("claim threefold|fifty [MOVE]: one intended move")),
            };
            Command::Claim {
                kind,
                by_human: who == "human",
                with_move,
            }
        }
        ("supervisor", "info-stop") => Command::InfoStop {
            question: need_text(args, "question")?,
        },
        ("supervisor", "info-resume") => Command::InfoResume,
        ("arbiter", "adjourn") => match args {
            [] => Command::Adjourn {
                sealed_sha256: None,
            },
            ["sealed", h] => Command::Adjourn {
                sealed_sha256: Some(h.to_ascii_lowercase()),
            },
            _ => {
                return Err(CommandError::Usage("adjourn, or adjourn sealed SHA256 (the hex SHA-256 of 'MOVE NONCE')"));
            }
        },
        ("operator", "engine-stopped") => Command::EngineStopped,
        ("arbiter", "resume-adjourned") => match args {
            [] => Command::ResumeAdjourned { reveal: None },
            [m, n] => Command::ResumeAdjourned {
                reveal: Some((m.to_string(), n.to_string())),
            },
            _ => return Err(CommandError::Usage("resume-adjourned, or resume-adjourned MOVE NONCE for a sealed move")),
        },
        ("supervisor", "note") => Command::WorkNote {
            text: need_text(args, "note")?,
        },
        ("committee", "advise") => Command::Advise {
            request: number(args.first(), "request")?,
            text: need_text(args.get(1..).unwrap_or(&[]), "advice")?,
        },
        ("committee", "ruling") => Command::Ruling {
            dispute: number(args.first(), "dispute")?,
            text: need_text(args.get(1..).unwrap_or(&[]), "ruling")?,
        },
        ("human", "offer-draw") => Command::HumanOfferDraw,
        ("human", "accept-draw") => Command::HumanAcceptDraw,
        ("human", "decline-draw") => Command::HumanDeclineDraw,
        ("human", "resign") => Command::HumanResign,
        ("arbiter" | "operator" | "supervisor" | "committee" | "human", v) => {
            return Err(CommandError::NotACommand {
                who: who.to_string(),
                verb: v.to_string(),
            });
        }
        (w, _) => {
            return Err(CommandError::NoSuchActor(w.to_string()));
        }
    };
    Ok(c)
}

/// Denryu-sen 5.2: `program NAME`, `team NAME: A, B`, `consulting NAME with PROGRAM: METHOD`.
fn parse_entrant(side: Side, kind: &str, rest: &[&str]) -> Result<Command, CommandError> {
    let text = need_text(rest, "entrant's name")?;
    let (name, entrant) = match kind {
        "program" => (text, Entrant::Program),
        "team" => {
            let (name, list) = text.split_once(':').ok_or(CommandError::Usage(
                "say: declare SIDE team NAME: MEMBER, MEMBER, …",
            ))?;
            let members = names(&list.split_whitespace().collect::<Vec<_>>());
            if members.len() < 2 {
                return Err(CommandError::Usage(
                    "a human team (5.2 (3)) has at least two members",
                ));
            }
            (name.trim().to_string(), Entrant::HumanTeam { members })
        }
        _ => {
            const SAY: &str =
                "say: declare SIDE consulting NAME with PROGRAM: HOW THEY CONSULT (5.2 (4))";
            let (who, rest) = text.split_once(" with ").ok_or(CommandError::Usage(SAY))?;
            let (program, method) = rest.split_once(':').ok_or(CommandError::Usage(SAY))?;
            let (program, method) = (program.trim(), method.trim());
            if program.is_empty() || method.is_empty() {
                return Err(CommandError::Usage(SAY));
            }
            (
                who.trim().to_string(),
                Entrant::HumanWithAi {
                    program: program.to_string(),
                    method: method.to_string(),
                },
            )
        }
    };
    if name.is_empty() {
        return Err(CommandError::Usage("give the entrant's name"));
    }
    Ok(Command::DeclareEntrant {
        side,
        entrant,
        name,
    })
}

fn parse_declare(args: &[&str]) -> Result<Command, CommandError> {
    match args {
        [side, kind @ ("program" | "team" | "consulting"), rest @ ..] if is_side_word(side) => {
            let side = side_of(side).unwrap_or(Side::White);
            parse_entrant(side, kind, rest)
        }
        [side, kind, name @ ..] if is_side_word(side) => {
            let side = side_of(side).unwrap_or(Side::White);
            let kind = match *kind {
                "human" => PlayerKind::Human,
                "machine" => PlayerKind::Machine,
                k => return Err(CommandError::NotAKind(k.to_string())),
            };
            Ok(Command::DeclarePlayer {
                side,
                kind,
                name: need_text(name, "player's name")?,
            })
        }
        ["operator", name @ ..] => Ok(Command::DeclareOperator {
            name: need_text(name, "operator's name")?,
        }),
        ["team", list @ ..] => {
            printable_only(&rest(list), "team's names")?;
            let names = names(list);
            if names.is_empty() {
                Err(CommandError::Usage(
                    "name the team members, separated by commas",
                ))
            } else {
                Ok(Command::DeclareTeam { names })
            }
        }
        ["algorithm", "threshold", secs, text @ ..] => {
            let threshold_ms = parse_duration(secs)?;
            Ok(Command::DeclareAlgorithm {
                threshold_ms: Some(threshold_ms),
                text: need_text(text, "algorithm's text")?,
            })
        }
        ["algorithm", text @ ..] => Ok(Command::DeclareAlgorithm {
            threshold_ms: None,
            text: need_text(text, "algorithm's text")?,
        }),
        ["config-file", path @ ..] => Ok(Command::DeclareConfigFile {
            path: need_text(path, "configuration document's path")?,
        }),
        ["config", sha] => {
            if sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit()) {
                Ok(Command::DeclareConfig {
                    sha256: sha.to_ascii_lowercase(),
                })
            } else {
                Err(CommandError::NotASha256(sha.to_string()))
            }
        }
        ["camp", name, rest @ ..] => {
            let ok_name = !name.is_empty()
                && name.len() <= 32
                && name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
            if !ok_name {
                return Err(CommandError::NotACampName(name.to_string()));
            }
            let (key_words, proof) = match rest.iter().position(|w| *w == "proof") {
                Some(at) => (
                    &rest[..at],
                    Some(need_text(&rest[at + 1..], "proof file's path")?),
                ),
                None => (rest, None),
            };
            let key = match key_words {
                [] if proof.is_some() => None,
                [kind, blob, ..] => {
                    let key = format!("{kind} {blob}");
                    let supported = [
                        "ssh-ed25519",
                        "ecdsa-sha2-nistp256",
                        "sk-ssh-ed25519@openssh.com",
                        "sk-ecdsa-sha2-nistp256@openssh.com",
                    ];
                    if !supported.contains(kind) || ssh_key::PublicKey::from_openssh(&key).is_err()
                    {
                        return Err(CommandError::NotACampKey {
                            key,
                            supported: supported.join(", "),
                        });
                    }
                    Some(key)
                }
                _ => {
                    return Err(CommandError::Usage(
                        "declare camp NAME [PUBLIC-KEY] proof FILE: the camp's key and its proof of possession (arbiter countersign --declaration)",
                    ));
                }
            };
            match (key, proof) {
                (key, Some(path)) => Ok(Command::DeclareCampProofFile {
                    name: (*name).to_owned(),
                    key,
                    path,
                }),
                (Some(key), None) => Ok(Command::DeclareCamp {
                    name: (*name).to_owned(),
                    key,
                    proof: None,
                }),
                (None, None) => Err(CommandError::Usage(
                    "declare camp NAME [PUBLIC-KEY] proof FILE",
                )),
            }
        }
        _ => Err(CommandError::Usage(
            "declare white|black|sente|gote human|machine|program NAME (team NAME: A, B; consulting NAME with PROGRAM: METHOD), operator NAME, team NAMES, algorithm TEXT, config SHA256, config-file PATH or camp NAME [PUBLIC-KEY] proof FILE",
        )),
    }
}

fn parse_correct(args: &[&str]) -> Result<Command, CommandError> {
    let clause = match args.first().copied() {
        Some("6d") => super::clause::OPERATOR_CORRECTION,
        Some("7e") => super::clause::WRONG_ENTRY,
        _ => {
            return Err(CommandError::Usage(
                "say which rule authorises the correction: 6d (operator error or technical problem) or 7e (move entered wrongly)",
            ));
        }
    };
    match args.get(1..).unwrap_or(&[]) {
        ["clock", side, t, reason @ ..] => {
            let side = side_ref(Some(side))?;
            let delta = t.starts_with('+') || t.starts_with('-');
            let ms = if delta {
                parse_signed(t)?
            } else {
                parse_duration(t)? as i64
            };
            Ok(Command::CorrectClock {
                clause,
                side,
                delta,
                ms,
                reason: need_text(reason, "reason")?,
            })
        }
        ["takeback", n, reason @ ..] => {
            let plies: usize = n
                .parse()
                .map_err(|_| CommandError::NotAPlyCount(n.to_string()))?;
            if plies == 0 {
                return Err(CommandError::Usage("take back at least one move"));
            }
            Ok(Command::TakeBack {
                clause,
                plies,
                reason: need_text(reason, "reason")?,
            })
        }
        _ => Err(CommandError::Usage(
            "say: correct 6d|7e clock SIDE TIME REASON, or correct 6d|7e takeback N REASON",
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_help_line_names_a_parsable_command() {
        // Each help entry's words, with placeholders filled, parse.
        let fill = |w: &str| {
            w.replace(
                "white|black human|machine NAME",
                "white human Garry Kasparov",
            )
            .replace(
                "white|black|human|machine H:MM:SS|+S|-S REASON",
                "human +600 compensation",
            )
            .replace("white|black|human|machine", "human")
            .replace("6d|7e", "6d")
            .replace("NAME [ssh-ed25519 AAAA…] proof FILE", "kasparov proof kasparov.proof")
            .replace("NAME ssh-ed25519 AAAA…", "kasparov ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAXNj+PWPURD0s0I24EHWlS4tkT/JBteHhiONb+1+AQ4")
            .replace("NAME, NAME, ...", "A, B")
            .replace("NAME, NAME", "A")
            .replace("[threshold SECONDS] TEXT", "adjust at 2 min")
            .replace("[sealed SHA256]", "sealed SHA256")
            .replace("SHA256", &"a".repeat(64))
            .replace("N REASON", "1 wrong entry")
            .replace("SEQ REASON", "3 pressed by mistake")
            .replace("MOVE# PLAYED CORRECT", "1 e5 c5")
            .replace("PLAYED CORRECT", "Ne4 Nf6")
            .replace("ID permit|refuse REASON", "1 permit ok")
            .replace("RULING 1-0|0-1|1/2-1/2 REASON", "1 1/2-1/2 ruling")
            .replace("REQUEST TEXT", "1 permit it")
            .replace("DISPUTE TEXT", "1 the game stands")
            .replace("waive|charge [H:MM:SS] REASON", "charge 0:01:00 a reason")
            .replace("COPY COPY … [program FILE]", "a.log b.log program junior.exe")
            .replace("H:MM:SS", "1:59:00")
            .replace("SAN|UCI", "e4")
            .replace("NAME VALUE", "hash 512")
            .replace("NAME REASON", "hash set at 16 by accident")
            .replace("eval CP|PAWNS", "eval 0.12")
            .replace("repetition LINE", "repetition Nf3 Nf6 Ng1 Ng8")
            .replace("threefold|fifty [MOVE]", "threefold Nf3")
            .replace("threefold|fifty", "threefold")
            .replace("QUESTION", "what are you doing")
            .replace("REASON", "a reason")
            .replace("TEXT", "some text")
        };
        for h in HELP {
            let line = fill(h.words);
            assert!(
                parse(&line).is_ok(),
                "{} -> {line}: {:?}",
                h.words,
                parse(&line)
            );
        }
    }

    #[test]
    fn bad_words_are_named() {
        assert!(parse("").unwrap_err().to_string().contains("empty"));
        assert!(
            parse("arbiter fly")
                .unwrap_err()
                .to_string()
                .contains("not a command")
        );
        assert!(
            parse("player move")
                .unwrap_err()
                .to_string()
                .contains("start with")
        );
        assert!(
            parse("operator offer-draw")
                .unwrap_err()
                .to_string()
                .contains("9d")
        );
        assert!(
            parse("arbiter correct clock human +600 x")
                .unwrap_err()
                .to_string()
                .contains("6d")
        );
        assert!(
            parse("arbiter declare config abc")
                .unwrap_err()
                .to_string()
                .contains("SHA-256")
        );
        assert_eq!(parse_eval("0.12"), Ok(12));
        assert_eq!(parse_eval("-35cp"), Ok(-35));
        assert!(parse_eval("M3").is_err());
    }
}
