//! The pure match core. Nothing here reads a clock, a file or the network: time is an argument
//! (`Ms`, milliseconds of a monotonic source since the game's start) and every change of state is
//! an [`event::Event`] produced by [`game::Game::decide`] and applied by [`game::Game::evolve`].
pub mod articles; // the article map: what a profile's rulebook numbers each clause the kit names (profile data)
pub mod board; // the game seam: chess via shakmaty, shogi via rsshogi, or free-text moves
pub mod camp; // a camp's proof of possession of its witness key: the statement it signs
pub mod clock; // multi-period clock arithmetic: remaining = budget - elapsed
pub mod command; // the command words shared by script mode and the Board UI
pub mod event; // what the log records
pub mod game; // state, queries, due/next_deadline; decide/evolve dispatch to one file per rule family under game/
pub mod rules; // rules profiles (TOML) with the clause of every number
pub mod script; // timestamped script files
pub mod shogi; // shogi on rsshogi: legality, notations, repetition, declaration; Denryu-sen articles
pub mod timefmt; // h:mm:ss.fff parsing and formatting
pub mod view; // what a screen or report shows, a pure function of state and now
pub mod werewolf; // the AI Werewolf table: profile, deal, talk, votes, verdicts, replay (pure)

use serde::{Deserialize, Serialize};

/// Milliseconds of the monotonic game clock since the game's start.
pub type Ms = u64;

/// A colour, which is also "first player" (white) and "second player" (black) in profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    White,
    Black,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::White, Side::Black];
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
    pub fn index(self) -> usize {
        match self {
            Side::White => 0,
            Side::Black => 1,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Who acts. The human player's actions are recorded by the arbiter or entered by the operator
/// (rule 6a), so "human" is not an actor of the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Actor {
    Arbiter,
    Operator,
    Supervisor,
    Committee,
    Kit,
}

impl Actor {
    pub fn name(self) -> &'static str {
        match self {
            Actor::Arbiter => "arbiter",
            Actor::Operator => "operator",
            Actor::Supervisor => "supervisor",
            Actor::Committee => "committee",
            Actor::Kit => "kit",
        }
    }
    pub fn parse(s: &str) -> Option<Actor> {
        Some(match s {
            "arbiter" => Actor::Arbiter,
            "operator" => Actor::Operator,
            "supervisor" => Actor::Supervisor,
            "committee" => Actor::Committee,
            "kit" => Actor::Kit,
            _ => return None,
        })
    }
}

/// Clause numbers of the 2003 match rules, as cited in the log. Code names clauses, never numbers.
pub mod clause {
    pub const ARBITER: &str = "1";
    pub const LAWS: &str = "2";
    pub const TIME_CONTROL: &str = "3";
    pub const OPERATOR_CHANGE_BETWEEN: &str = "4c";
    pub const OPERATOR_FIXED: &str = "4d";
    pub const MACHINE_LOG: &str = "5b";
    pub const ENTER_HUMAN_MOVE: &str = "6a";
    pub const EXECUTE_MACHINE_MOVE: &str = "6b";
    pub const INTERNAL_CLOCK: &str = "6c";
    pub const OPERATOR_CORRECTION: &str = "6d";
    pub const BEFORE_FIRST_MOVE: &str = "6g";
    pub const NO_PARAMETER_CHANGE: &str = "6h";
    pub const PARAMETER_CORRECTION: &str = "6l";
    pub const WRONG_MOVE_NOTIFY: &str = "7b";
    pub const WRONG_MOVE_PRESSED: &str = "7c";
    pub const WRONG_ENTRY: &str = "7e";
    pub const TECHNICAL: &str = "8a";
    pub const POWER_FAILURE: &str = "8b";
    pub const DRAW_ANSWER: &str = "9a";
    pub const RESIGN: &str = "9b";
    pub const TEAM: &str = "9c";
    pub const MACHINE_DRAW_OFFER: &str = "9d";
    pub const CONSULTATION: &str = "9e";
    pub const TABLEBASE: &str = "10a";
    pub const COMMITTEE: &str = "12";
    pub const COMMITTEE_BINDS: &str = "12c";
    pub const ENGINE_LOG: &str = "13a";
    pub const ENGINE_LOG_CONTENT: &str = "13c";
    pub const PROGRAM_COPY: &str = "13d";
    pub const FAIRNESS: &str = "14b";
    /// Section headings of the committee report: draw offers and consultation (9), the machine's
    /// log file and program copy (13), what the public version leaves out (13e).
    pub const DRAWS: &str = "9";
    pub const MACHINE_FILES: &str = "13";
    pub const CONFIDENTIAL: &str = "13e";
}

/// A command refused by the core: nothing is recorded and the state is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[error("{}", self.render())]
pub struct Refusal {
    /// The clause of the match rules that forbids it, when one does.
    /// A profile's own article (shogi) is owned; the 2003 clauses are the code's constants.
    pub clause: Option<std::borrow::Cow<'static, str>>,
    pub message: String,
}

impl Refusal {
    pub fn new(
        clause: impl Into<std::borrow::Cow<'static, str>>,
        message: impl Into<String>,
    ) -> Refusal {
        Refusal {
            clause: Some(clause.into()),
            message: message.into(),
        }
    }
    pub fn state(message: impl Into<String>) -> Refusal {
        Refusal {
            clause: None,
            message: message.into(),
        }
    }
    /// The board cannot play or take back what it accepted before (a corrupt record): no rule
    /// forbids the command, the state cannot take it.
    pub fn board(e: board::BoardError) -> Refusal {
        Refusal::state(e.to_string())
    }
    fn render(&self) -> String {
        match &self.clause {
            Some(c) => format!("refused (rule {c}): {}", self.message),
            None => format!("refused: {}", self.message),
        }
    }
}
