//! The article map, profile data (`[articles]` in `rules/*.toml`): which article of a profile's
//! rulebook the log and the report cite where the kit's rules code names a clause. The code names
//! concerns (the 2003 clause constants, the shogi rules' [`Article`]s, the entry kinds); the
//! numbers are in the profile. A profile without the table cites the 2003 match rules' own numbers
//! (the kit's `clause` constants), through the same lookup.
use std::collections::BTreeMap;

use serde::Deserialize;

use super::clause as c;
use super::rules::GameKind;

/// Every clause the kit's rules code names, as `[articles.clauses]` keys: (key, the 2003 number,
/// what it covers).
pub const CLAUSES: &[(&str, &str, &str)] = &[
    ("arbiter", c::ARBITER, "the arbiter"),
    ("laws", c::LAWS, "the laws of the game"),
    ("time_control", c::TIME_CONTROL, "the time control"),
    (
        "operator_change_between",
        c::OPERATOR_CHANGE_BETWEEN,
        "changing the operator",
    ),
    ("operator_fixed", c::OPERATOR_FIXED, "the declared operator"),
    (
        "machine_log",
        c::MACHINE_LOG,
        "the log of machine-related actions",
    ),
    ("enter_human_move", c::ENTER_HUMAN_MOVE, "a human's move"),
    (
        "execute_machine_move",
        c::EXECUTE_MACHINE_MOVE,
        "a machine's move",
    ),
    ("internal_clock", c::INTERNAL_CLOCK, "the machine's clock"),
    (
        "operator_correction",
        c::OPERATOR_CORRECTION,
        "clock corrections",
    ),
    (
        "before_first_move",
        c::BEFORE_FIRST_MOVE,
        "settings before the first move",
    ),
    (
        "no_parameter_change",
        c::NO_PARAMETER_CHANGE,
        "no parameter changes",
    ),
    (
        "parameter_correction",
        c::PARAMETER_CORRECTION,
        "parameter corrections",
    ),
    (
        "wrong_move_notify",
        c::WRONG_MOVE_NOTIFY,
        "a wrong move noticed",
    ),
    (
        "wrong_move_pressed",
        c::WRONG_MOVE_PRESSED,
        "a wrong move on the clock",
    ),
    ("wrong_entry", c::WRONG_ENTRY, "a wrong entry"),
    ("technical", c::TECHNICAL, "technical problems"),
    ("power_failure", c::POWER_FAILURE, "power failures"),
    ("draw_answer", c::DRAW_ANSWER, "answering a draw offer"),
    ("resign", c::RESIGN, "resignation"),
    ("team", c::TEAM, "the machine's team"),
    (
        "machine_draw_offer",
        c::MACHINE_DRAW_OFFER,
        "the machine's draw offer",
    ),
    ("consultation", c::CONSULTATION, "consultation"),
    ("tablebase", c::TABLEBASE, "tablebases"),
    ("committee", c::COMMITTEE, "the committee"),
    (
        "committee_binds",
        c::COMMITTEE_BINDS,
        "the committee's ruling",
    ),
    ("engine_log", c::ENGINE_LOG, "handing over the engine log"),
    (
        "engine_log_content",
        c::ENGINE_LOG_CONTENT,
        "the engine log's content",
    ),
    ("program_copy", c::PROGRAM_COPY, "the program copy"),
    ("fairness", c::FAIRNESS, "fair play"),
    ("draws", c::DRAWS, "draw offers and consultation"),
    (
        "machine_files",
        c::MACHINE_FILES,
        "the machine's log file and program copy",
    ),
    (
        "confidential",
        c::CONFIDENTIAL,
        "what the public version leaves out",
    ),
];

/// Entry kinds that cite one article whatever clause the common rules code names
/// (`[articles.entries]`).
pub const ENTRY_KINDS: &[&str] = &["move_made", "clock_pressed", "clock_started", "game_opened"];

/// The articles a shogi profile's own rules cite (`[articles.shogi]`, required in a shogi
/// profile). Code names articles, never numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Article {
    /// The kinds of entrant (Denryu-sen 5.2).
    Entrants,
    /// Results as the server judges them: mate, resignation, illegal moves (13.1).
    ServerJudgement,
    /// The move cap: a draw (13.2).
    MaxMoves,
    /// Mate on the move that reaches the cap: a draw (13.3).
    MateAtMaxMoves,
    /// A declaration at the cap wins (13.4).
    DeclarationAtMaxMoves,
    /// Sennichite: a draw (13.5).
    Sennichite,
    /// One side absent: forfeit (13.6).
    NoShow,
    /// Both sides absent: both lose (13.7).
    BothAbsent,
    /// The entering-king declaration (23).
    Declaration,
}

impl Article {
    pub const ALL: [Article; 9] = [
        Article::Entrants,
        Article::ServerJudgement,
        Article::MaxMoves,
        Article::MateAtMaxMoves,
        Article::DeclarationAtMaxMoves,
        Article::Sennichite,
        Article::NoShow,
        Article::BothAbsent,
        Article::Declaration,
    ];

    /// Its key in `[articles.shogi]`.
    pub fn key(self) -> &'static str {
        match self {
            Article::Entrants => "entrants",
            Article::ServerJudgement => "server_judgement",
            Article::MaxMoves => "max_moves",
            Article::MateAtMaxMoves => "mate_at_max_moves",
            Article::DeclarationAtMaxMoves => "declaration_at_max_moves",
            Article::Sennichite => "sennichite",
            Article::NoShow => "no_show",
            Article::BothAbsent => "both_absent",
            Article::Declaration => "declaration",
        }
    }
}

/// `[articles]`: the profile's article for each concern the code names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Articles {
    /// The article cited where the kit's rules code names a 2003 clause, by the clause's key.
    pub clauses: BTreeMap<String, String>,
    /// Entry kinds citing one article whatever the command.
    #[serde(default)]
    pub entries: BTreeMap<String, String>,
    /// The articles the shogi rules cite.
    #[serde(default)]
    pub shogi: BTreeMap<String, String>,
}

/// `text` with each 2003 clause the kit names in its wording (`(6h)`, `13a/13c`: a number with a
/// letter, or a bare number in parentheses) replaced by `cite`'s article, so a refusal or a panel
/// of a game under another rulebook speaks its numbers. Other words are left as they are.
pub fn reword<'a>(text: &'a str, cite: impl Fn(&'a str) -> &'a str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.'));
        if !starts {
            let ch = text[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&text[i..i + ch]);
            i += ch;
            continue;
        }
        let mut j = i;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        let digits = j;
        while j < b.len() && b[j].is_ascii_lowercase() {
            j += 1;
        }
        let bounded = j == b.len() || !(b[j].is_ascii_alphanumeric() || b[j] == b'.');
        let token = &text[i..j];
        let lettered = j > digits && j - digits == 1;
        let in_parens = i > 0 && b[i - 1] == b'(' && j < b.len() && b[j] == b')';
        if bounded && (lettered || in_parens) && is_kit_clause(token) {
            out.push_str(cite(token));
        } else {
            out.push_str(token);
        }
        i = j;
    }
    out
}

/// Whether `clause` is one of the 2003 numbers the kit's rules code names (and so is mapped).
pub fn is_kit_clause(clause: &str) -> bool {
    CLAUSES.iter().any(|(_, n, _)| *n == clause)
}

impl Articles {
    /// Every key present, none unknown, no empty value; a shogi article that reads like a kit
    /// clause is refused (the log could not tell them apart). Errors: (dotted key, message).
    pub fn validate(&self, game: GameKind) -> Result<(), (String, String)> {
        for (key, number, what) in CLAUSES {
            if !self.clauses.contains_key(*key) {
                return Err((
                    format!("articles.clauses.{key}"),
                    format!(
                        "missing: the article cited for {what} (clause {number} of the 2003 rules)"
                    ),
                ));
            }
        }
        for k in self.clauses.keys() {
            if !CLAUSES.iter().any(|(key, _, _)| key == k) {
                return Err((
                    format!("articles.clauses.{k}"),
                    "unknown clause name (see src/core/articles.rs CLAUSES)".into(),
                ));
            }
        }
        for k in self.entries.keys() {
            if !ENTRY_KINDS.contains(&k.as_str()) {
                return Err((
                    format!("articles.entries.{k}"),
                    format!("unknown entry kind (one of {})", ENTRY_KINDS.join(", ")),
                ));
            }
        }
        if game == GameKind::Shogi {
            for a in Article::ALL {
                if !self.shogi.contains_key(a.key()) {
                    return Err((
                        format!("articles.shogi.{}", a.key()),
                        "missing: a shogi profile names the article of each shogi rule".into(),
                    ));
                }
            }
        } else if let Some(k) = self.shogi.keys().next() {
            return Err((
                format!("articles.shogi.{k}"),
                "[articles.shogi] goes with game = \"shogi\" only".into(),
            ));
        }
        for k in self.shogi.keys() {
            if !Article::ALL.iter().any(|a| a.key() == k) {
                return Err((
                    format!("articles.shogi.{k}"),
                    "unknown shogi article name (see src/core/articles.rs Article)".into(),
                ));
            }
        }
        for (table, map) in [
            ("clauses", &self.clauses),
            ("entries", &self.entries),
            ("shogi", &self.shogi),
        ] {
            for (k, v) in map {
                if v.trim().is_empty() {
                    return Err((format!("articles.{table}.{k}"), "empty article".into()));
                }
                if table == "shogi" && is_kit_clause(v) {
                    return Err((
                        format!("articles.shogi.{k}"),
                        format!(
                            "{v:?} is also a clause number the kit names: the log could not tell them apart"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The article for the kit's 2003 clause `clause` (itself when the clause is not one the
    /// kit names).
    pub fn clause<'a>(&'a self, clause: &'a str) -> &'a str {
        CLAUSES
            .iter()
            .find(|(_, n, _)| *n == clause)
            .and_then(|(key, _, _)| self.clauses.get(*key))
            .map_or(clause, String::as_str)
    }
}
