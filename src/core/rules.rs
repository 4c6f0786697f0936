//! Rules profiles: every number of a match's rules, with the clause it comes from, as TOML.
//!
//! A profile is parsed strictly: unknown keys are refused, and every error names the file,
//! line and column and the key.
use serde::{Deserialize, Serialize};

use super::{Ms, Side};

/// What kind of moves the game records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameKind {
    /// Legal chess, validated with shakmaty.
    Chess,
    /// Legal shogi, validated with rsshogi; the log cites the profile's shogi articles.
    Shogi,
    /// Free-text moves (any other game), not validated.
    Free,
}

/// When the next period's time is added to a clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PeriodAddition {
    /// When the move that completes the period's move count is made (the clock shows the sum).
    OnMove,
    /// When the period's time runs out, after checking that its moves were made (DGT 3000 / FIDE).
    OnFlag,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// Human-readable name of the event.
    pub name: String,
    /// Where the numbers come from.
    pub source: String,
    /// `chess`, `shogi` or `free`.
    pub game: GameKind,
    /// The edition of the FIDE Laws of Chess in force (rule 2): `"2001"` for the 2003 match (no
    /// automatic end by fivefold repetition or 75 moves: those came in 2014), `"2023"` otherwise.
    #[serde(default)]
    pub laws: LawsEdition,
}

/// An edition of the FIDE Laws of Chess.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
pub enum LawsEdition {
    #[serde(rename = "2001")]
    Fide2001,
    #[default]
    #[serde(rename = "2023")]
    Fide2023,
}

impl LawsEdition {
    /// Whether fivefold repetition and the 75-move rule end the game without a claim
    /// (FIDE Laws 9.6, from the 2014 edition on).
    pub fn automatic_draws(self) -> bool {
        self == LawsEdition::Fide2023
    }

    /// Time added to the opponent's clock when a draw claim is found incorrect (FIDE Laws 9.5:
    /// three minutes in the 2001 edition, two minutes from 2014 on).
    pub fn incorrect_claim_ms(self) -> u64 {
        match self {
            LawsEdition::Fide2001 => 180_000,
            LawsEdition::Fide2023 => 120_000,
        }
    }

    /// The edition's name, as the profile writes it.
    pub fn name(self) -> &'static str {
        match self {
            LawsEdition::Fide2001 => "2001",
            LawsEdition::Fide2023 => "2023",
        }
    }
}

/// How a move's time is rounded before it is charged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rounding {
    /// To the millisecond (an electronic chess clock).
    #[default]
    Ms,
    /// Floored to whole seconds (shogi-server, CSA rule of November 2014; Denryu-sen 22.1).
    FloorSeconds,
    /// Floored to whole minutes (the stopwatch of professional shogi: "1分未満切り捨て").
    FloorMinutes,
}

impl Rounding {
    /// The rounding unit in ms.
    pub fn unit_ms(self) -> Ms {
        match self {
            Rounding::Ms => 1,
            Rounding::FloorSeconds => 1000,
            Rounding::FloorMinutes => 60_000,
        }
    }

    /// `ms` rounded down to the unit (each unit a constant: no division by a unit read at run
    /// time, and none at all for milliseconds; the replay charges several times an
    /// entry).
    pub fn apply(self, ms: Ms) -> Ms {
        match self {
            Rounding::Ms => ms,
            Rounding::FloorSeconds => ms / 1000 * 1000,
            Rounding::FloorMinutes => ms / 60_000 * 60_000,
        }
    }
}

/// When a side's flag falls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FlagRule {
    /// When the time charged reaches the time available (to the ms), or passes it (a clock in whole
    /// seconds or minutes shows 0 until it would show -1): FIDE Laws 6.9; the move's increment
    /// comes only after the move.
    #[default]
    AtZero,
    /// shogi-server's `ChessClock#timeout?`: the side loses when its clock minus the move's
    /// rounded time plus the byo-yomi and the increment is <= 0 (the increment counts for the move
    /// in progress, and a move leaving exactly 0 loses).
    ShogiServer,
}

/// A delay: time at the start of each move that is not charged (simple, "US delay"), or charged
/// and given back up to the delay after the move (Bronstein).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DelayKind {
    #[default]
    Simple,
    Bronstein,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Period {
    /// Moves to make in this period; absent for the rest of the game.
    pub moves: Option<u32>,
    /// Time for the period.
    pub seconds: u64,
    /// Fischer increment added after each move made in this period.
    #[serde(default)]
    pub increment_seconds: u64,
    /// Delay of each move made in this period (see `delay`).
    #[serde(default)]
    pub delay_seconds: u64,
    /// `simple` (the default) or `bronstein`.
    #[serde(default)]
    pub delay: DelayKind,
    /// The increment and the delay apply from this move number of the side on (default: every
    /// move of the period).
    pub from_move: Option<u32>,
    /// The last period repeats for the rest of the game ("16 moves per hour for the rest").
    #[serde(default)]
    pub repeat: bool,
}

/// Japanese byo-yomi: once the main time is spent, `periods` periods of `seconds` each; a move made
/// within a period keeps it, a period that runs out is lost, the flag falls with the last.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Byoyomi {
    pub periods: u32,
    pub seconds: u64,
}

/// A period as it falls in a side's game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slot<'a> {
    /// Its place in the game (0 for the first period; repeats count).
    pub index: usize,
    pub period: &'a Period,
    /// Moves the side has completed when the period begins.
    pub start: u32,
    /// The move number at which its control falls (None for the rest of the game).
    pub control: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SidePeriods {
    pub periods: Vec<Period>,
    /// This side's byo-yomi (sides may differ).
    pub byoyomi: Option<Byoyomi>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeControl {
    pub clause: String,
    pub period_addition: PeriodAddition,
    /// Charge each move's time truncated to whole seconds (the same as `rounding = "floor_seconds"`).
    #[serde(default)]
    pub truncate_move_time_to_seconds: bool,
    /// How a move's time is rounded: `ms` (default), `floor_seconds`, `floor_minutes`.
    pub rounding: Option<Rounding>,
    /// When the flag falls: `at_zero` (default) or `shogi_server`.
    #[serde(default)]
    pub flag: FlagRule,
    /// The first period's increment is also given before the first move (FIDE and DGT clocks do;
    /// lichess did not).
    #[serde(default)]
    pub increment_before_first_move: bool,
    /// Byo-yomi for both sides.
    pub byoyomi: Option<Byoyomi>,
    /// Periods for both sides...
    pub periods: Option<Vec<Period>>,
    /// ...or per side: the first player (white)...
    pub first: Option<SidePeriods>,
    /// ...and the second player (black).
    pub second: Option<SidePeriods>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperatorErrors {
    pub clause: String,
    pub wrong_move_penalty_seconds: u64,
    pub forfeit_at_infraction: u32,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawOffers {
    pub clause: String,
    /// Total consultation time per draw offer (9e).
    pub consultation_limit_seconds: u64,
    /// The machine may offer a draw only with an evaluation within this many centipawns of 0 (9d).
    pub near_draw_threshold_cp: i32,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerFailure {
    pub clause: String,
    pub reset_window_seconds: u64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InternalClock {
    pub clause: String,
    pub sync_threshold_seconds: u64,
    /// The rules make the operator keep the engine's own clock within the threshold of the game
    /// clock (2003 rule 6c). When false the rules set no duty on the engine's clock (Denryu-sen
    /// 22.3: the server's measurement is the time): no correction is ever owed, and the audit
    /// shows every difference of the threshold or more as information.
    #[serde(default = "sync_rule_default")]
    pub sync_rule: bool,
}

fn sync_rule_default() -> bool {
    true
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Delivery {
    pub clause: String,
    pub deadline_seconds: u64,
    #[serde(default = "one")]
    pub min_copies: u32,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tablebase {
    pub clause: String,
    pub max_men: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CapResult {
    Draw,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    pub clause: String,
    /// Maximum number of moves, counting each player's move (a ply).
    pub max_plies: Option<u32>,
    pub max_plies_result: Option<CapResult>,
    /// A player who has not made the first move this long after the start loses (default time).
    pub no_show_seconds: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scoring {
    pub win: f64,
    pub loss: f64,
    /// Points for a draw to the first player (white) and second player (black).
    pub draw_first: f64,
    pub draw_second: f64,
}

/// What a shogi game's rules choose where rulebooks differ (Denryu-sen 2024: `[shogi]`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShogiRules {
    /// What an illegal move does: `refuse` (nothing recorded: a mis-keyed entry at the board), or
    /// `loss` (recorded as the mover's loss, as shogi-server judges it, 13.1).
    pub illegal_move: IllegalMove,
    /// Sennichite by perpetual check: `loss` for the checking side (shogi-server), or `draw`.
    pub perpetual_check: PerpetualCheck,
    /// Article 23: the entering-king declaration, when the rules have one.
    pub declaration: Option<DeclarationRule>,
    /// The start position as SFEN; absent: the even game (hirate, Denryu-sen 19.1). For studies,
    /// handicap games and tests.
    pub start_sfen: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IllegalMove {
    Refuse,
    Loss,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PerpetualCheck {
    Loss,
    Draw,
}

/// Article 23's numbers.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeclarationRule {
    /// Points sente (the first player) needs (28 in 2024).
    pub points_first: u32,
    /// Points gote needs (27 in 2024).
    pub points_second: u32,
    /// Pieces besides the king in the enemy camp (10).
    pub pieces_in_camp: u32,
}

impl DeclarationRule {
    pub fn points_for(&self, side: Side) -> u32 {
        match side {
            Side::White => self.points_first,
            Side::Black => self.points_second,
        }
    }
}

/// Starts other than the initial position, per game.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Starts {
    pub clause: String,
    pub games: Vec<GameStart>,
}

/// The start of one game: exactly one of a FEN, named odds or a Chess960 number.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameStart {
    pub game: u32,
    pub fen: Option<String>,
    pub odds: Option<super::game::start::Odds>,
    pub chess960: Option<u32>,
}

impl GameStart {
    /// The FEN, and whether castling is Chess960's.
    pub fn position(&self) -> Result<(String, bool), StartError> {
        match (&self.fen, self.odds, self.chess960) {
            (Some(f), None, None) => Ok((f.clone(), false)),
            (None, Some(o), None) => Ok((o.fen().to_string(), false)),
            (None, None, Some(n)) => super::game::start::chess960_fen(n)
                .map(|f| (f, true))
                .ok_or(StartError::NoSuchChess960(n)),
            _ => Err(StartError::NotExactlyOne),
        }
    }
}

/// A game start of a profile that names no position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    #[error("Chess960 positions are numbered 0 to 959, not {0}")]
    NoSuchChess960(u32),
    #[error("give exactly one of `fen`, `odds` or `chess960`")]
    NotExactlyOne,
}

/// Match rules: who may offer draws, the match's length and winning score.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchRules {
    pub clause: String,
    /// Who may offer a draw: `both` (default) or `human` (Manama 2002: only the human).
    #[serde(default)]
    pub draw_offers_by: DrawOffersBy,
    /// Games in the match.
    pub games: Option<u32>,
    /// Points that decide the match (more than half, unless the rules say otherwise).
    pub winning_score: Option<f64>,
    /// Games after the match is decided are still played.
    #[serde(default)]
    pub play_after_decided: bool,
    /// Colours alternate by game number, whatever postponements or forfeits happen.
    #[serde(default)]
    pub colours_alternate_by_game_number: bool,
    /// The machine's operator may be replaced during a game only when it is not the human's turn.
    #[serde(default)]
    pub operator_replaceable_off_human_turn: bool,
}

/// Adjournments and breaks: open or sealed move, whether the engine may think meanwhile.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adjournment {
    pub clause: String,
    /// The move is sealed (committed by its hash, revealed at resumption); else it stays open.
    pub sealed: bool,
    /// The engine may think during the adjournment; if not, the operator records that it was
    /// stopped before play resumes.
    pub engine_may_think: bool,
    /// No adjournment before this move number (Manama 2002, Bonn 2006: after move 56)...
    pub after_move: Option<u32>,
    /// ...unless this many hours of play have passed since play began (the clock's start, or the
    /// latest resumption of an adjournment): Bonn 2006, a game not finished within six hours
    /// may be adjourned whatever its move number.
    pub after_hours: Option<u32>,
    /// A break, not an adjournment: the engine, to move, keeps thinking, and a move it completes
    /// during the break is entered then and counts at resumption (its time charged up to the
    /// break; the opponent's clock starts at resumption).
    #[serde(default)]
    pub engine_move_in_break_counts: bool,
}

impl MatchRules {
    /// The player who has reached the winning score, if one has (the first such in `scores`).
    pub fn decided<'a>(&self, scores: &'a [(String, f64)]) -> Option<&'a (String, f64)> {
        let w = self.winning_score?;
        scores.iter().find(|(_, p)| *p >= w)
    }

    /// What the rules say of a decided match: a line for the arbiter.
    pub fn decided_text(&self, scores: &[(String, f64)]) -> Option<String> {
        let (name, points) = self.decided(scores)?;
        let w = self.winning_score?;
        Some(format!(
            "match decided: {name} has {points} points, the winning score is {w} (clause {}); {}",
            self.clause,
            if self.play_after_decided {
                "the remaining games are still played"
            } else {
                "the remaining games are not played"
            }
        ))
    }
}

/// Who may offer a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DrawOffersBy {
    #[default]
    Both,
    Human,
}

/// A whole rules profile.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub profile: Meta,
    pub time_control: TimeControl,
    pub operator_errors: Option<OperatorErrors>,
    pub draw_offers: Option<DrawOffers>,
    pub power_failure: Option<PowerFailure>,
    pub internal_clock: Option<InternalClock>,
    pub engine_log: Option<Delivery>,
    pub program_copy: Option<Delivery>,
    pub tablebase: Option<Tablebase>,
    pub limits: Option<Limits>,
    pub scoring: Scoring,
    /// Shogi games only (`game = "shogi"`).
    pub shogi: Option<ShogiRules>,
    /// Start positions other than the initial one.
    pub start: Option<Starts>,
    /// Match rules.
    #[serde(rename = "match")]
    pub match_rules: Option<MatchRules>,
    /// Adjournments and breaks.
    pub adjournment: Option<Adjournment>,
    /// When the camps are asked to countersign.
    pub witness: Option<Witness>,
    /// Which actor may record each kind of entry, and the clause that says so. Absent (profiles
    /// embedded in older logs): any actor may record any kind.
    pub actors: Option<Actors>,
    /// The article map (`core::articles`): what this rulebook numbers each clause the kit names;
    /// required for shogi, absent: the 2003 numbers.
    pub articles: Option<super::articles::Articles>,
}

/// Who may record what: for each kind of entry, the actors allowed to record it (`[actors]`,
/// with the clause of the match rules that gives each party its acts). A kind the table does not
/// name may be recorded by no one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Actors {
    /// The clause that divides the acts between the parties (5b in the 2003 rules).
    pub clause: String,
    /// Kind of entry -> the actors who may record it.
    pub kinds: std::collections::BTreeMap<String, Vec<String>>,
}

/// An entry recorded by an actor the profile does not allow for its kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "a {kind} entry recorded by the {actor}: under clause {clause} of the rules profile only {allowed} may record it"
)]
pub struct ActorRefused {
    pub kind: String,
    pub actor: String,
    pub clause: String,
    pub allowed: String,
}

impl Actors {
    /// Whether `actor` may record an entry of `kind`; the refusal names both and the clause.
    pub fn check(&self, kind: &str, actor: &str) -> Result<(), ActorRefused> {
        let allowed = self.kinds.get(kind);
        if allowed.is_some_and(|a| a.iter().any(|x| x == actor)) {
            return Ok(());
        }
        Err(ActorRefused {
            kind: kind.to_owned(),
            actor: actor.to_owned(),
            clause: self.clause.clone(),
            allowed: match allowed {
                Some(a) if !a.is_empty() => format!("the {}", a.join(" or the ")),
                _ => "no one".to_owned(),
            },
        })
    }

    /// The `[actors]` table of a profile's text, read alone (the rest of the profile is not
    /// checked here): `Ok(None)` when the profile has none.
    pub fn of_profile_text(text: &str) -> Result<Option<Actors>, toml::de::Error> {
        #[derive(Deserialize)]
        struct Only {
            actors: Option<Actors>,
        }
        toml::from_str::<Only>(text).map(|o| o.actors)
    }
}

/// When the camps countersign the record. Always when the game ends; with
/// `countersign_at_controls` also at each time control, after the control move; with `every`,
/// live: the camps' witnesses (`arbiter witness`) cosign a checkpoint the kit signs at least
/// every `every` entries, and the match policy says so.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Witness {
    /// Ask the camps to countersign at each time control (a checkpoint is signed at the move
    /// that completes the control for both sides), not only when the game ends.
    #[serde(default)]
    pub countersign_at_controls: bool,
    /// The camps witness live: the kit signs a checkpoint whenever this many entries were
    /// recorded since the last one it signed, and each live camp's cosignatures must leave no
    /// stretch of more entries uncovered (`1`: every entry, every move). At least 1.
    pub every: Option<u64>,
    /// The camps that witness live, by the labels line 0 declares them under. Absent: every
    /// camp line 0 declares. Only with `every`.
    pub camps: Option<Vec<String>>,
}

/// How often the camps witness live, in words: `every entry`, `every 4 entries`.
pub fn every_entries(n: u64) -> String {
    if n == 1 {
        "every entry".to_owned()
    } else {
        format!("every {n} entries")
    }
}

/// The largest `[witness] every` a profile may give (a million entries: no game is longer).
pub const MAX_WITNESS_EVERY: u64 = 1_000_000;

impl Witness {
    /// The `[witness]` table of a profile's text, read alone (the rest of the profile is not
    /// checked here): `Ok(None)` when the profile has none.
    pub fn of_profile_text(text: &str) -> Result<Option<Witness>, toml::de::Error> {
        #[derive(Deserialize)]
        struct Only {
            witness: Option<Witness>,
        }
        toml::from_str::<Only>(text).map(|o| o.witness)
    }

    /// What is wrong with the live-witness keys, if anything: the key and the problem.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        match self.every {
            Some(0) => {
                return Err((
                    "witness.every",
                    "must be at least 1 (entries between two checkpoints the camps cosign; 1 is every entry)".into(),
                ));
            }
            Some(n) if n > MAX_WITNESS_EVERY => {
                return Err((
                    "witness.every",
                    format!(
                        "{n} entries is more than {MAX_WITNESS_EVERY}: no game is that long, the camps would witness nothing live"
                    ),
                ));
            }
            _ => {}
        }
        let Some(camps) = &self.camps else {
            return Ok(());
        };
        if self.every.is_none() {
            return Err((
                "witness.camps",
                "names the camps that witness live, which needs `every` (how many entries between two checkpoints they cosign)".into(),
            ));
        }
        if camps.is_empty() {
            return Err((
                "witness.camps",
                "is empty: name at least one camp, or leave it out for every camp line 0 declares"
                    .into(),
            ));
        }
        for (i, c) in camps.iter().enumerate() {
            if !is_camp_label(c) {
                return Err((
                    "witness.camps",
                    format!(
                        "{c:?} is not a camp label (1 to 32 characters from a-z, 0-9, - and _, starting with a letter or digit)"
                    ),
                ));
            }
            if camps[..i].contains(c) {
                return Err(("witness.camps", format!("camp {c:?} is named twice")));
            }
        }
        Ok(())
    }
}

/// A camp's label as line 0 declares it: 1 to 32 characters from `a-z`, `0-9`, `-`, `_`,
/// starting with a letter or digit.
fn is_camp_label(s: &str) -> bool {
    (1..=32).contains(&s.len())
        && s.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

impl Profile {
    /// The article this profile's rules cite where the kit's rules code names the 2003 clause
    /// `clause` (the `[articles.clauses]` map; without one, the clause itself).
    pub fn cite<'a>(&'a self, clause: &'a str) -> &'a str {
        self.articles.as_ref().map_or(clause, |a| a.clause(clause))
    }

    /// The article an entry of kind `kind` cites whatever the command (`[articles.entries]`).
    pub fn cite_entry(&self, kind: &str) -> Option<&str> {
        self.articles
            .as_ref()
            .and_then(|a| a.entries.get(kind))
            .map(String::as_str)
    }

    /// The article of a shogi rule (`[articles.shogi]`, present in every shogi profile: the
    /// key itself otherwise).
    pub fn article(&self, a: super::articles::Article) -> &str {
        self.articles
            .as_ref()
            .and_then(|m| m.shogi.get(a.key()))
            .map_or(a.key(), String::as_str)
    }

    /// Whether the camps are asked to countersign at each time control.
    pub fn countersign_at_controls(&self) -> bool {
        self.witness
            .as_ref()
            .is_some_and(|w| w.countersign_at_controls)
    }
}

/// A profile that could not be loaded: where and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{col}: {key}: {message}")]
pub struct ProfileError {
    pub file: String,
    pub line: usize,
    pub col: usize,
    /// The key (dotted path) at fault, or `-` when the file is not TOML at all.
    pub key: String,
    pub message: String,
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before
        .rfind('\n')
        .map_or(before.chars().count(), |i| before[i + 1..].chars().count())
        + 1;
    (line, col)
}

/// The largest duration, in seconds, any field of a profile may give (100 days).
pub const MAX_SECONDS: u64 = 100 * 24 * 3600;

/// The line of a section header or key in the text, for semantic errors (1 when not found).
fn locate(text: &str, needle: &str) -> (usize, usize) {
    text.find(needle).map_or((1, 1), |o| line_col(text, o))
}

impl Profile {
    /// Parse and validate a profile. `file` is used in error messages only.
    pub fn parse(file: &str, text: &str) -> Result<Profile, ProfileError> {
        let profile: Profile = toml::from_str(text).map_err(|e| {
            let (line, col) = e.span().map_or((1, 1), |s| line_col(text, s.start));
            let msg = e.message().to_string();
            let key = key_from_message(&msg)
                .unwrap_or_else(|| key_at(text, e.span().map_or(0, |s| s.start)));
            ProfileError {
                file: file.to_string(),
                line,
                col,
                key,
                message: msg,
            }
        })?;
        profile.validate().map_err(|(key, needle, message)| {
            let (line, col) = locate(text, needle);
            ProfileError {
                file: file.to_string(),
                line,
                col,
                key,
                message,
            }
        })?;
        Ok(profile)
    }

    fn validate(&self) -> Result<(), (String, &'static str, String)> {
        if let Some(w) = &self.witness
            && let Err((key, message)) = w.check()
        {
            let needle = if key == "witness.camps" {
                "camps"
            } else {
                "every"
            };
            return Err((key.into(), needle, message));
        }
        match (self.profile.game, &self.shogi) {
            (GameKind::Shogi, None) => {
                return Err((
                    "shogi".into(),
                    "game",
                    "a shogi profile needs a [shogi] section (illegal_move, perpetual_check)"
                        .into(),
                ));
            }
            (
                GameKind::Shogi,
                Some(ShogiRules {
                    start_sfen: Some(sfen),
                    ..
                }),
            ) => {
                if let Err(e) = super::shogi::ShogiRecord::from_sfen(sfen) {
                    return Err(("shogi.start_sfen".into(), "start_sfen", e.to_string()));
                }
            }
            (GameKind::Chess | GameKind::Free, Some(_)) => {
                return Err((
                    "shogi".into(),
                    "[shogi]",
                    "a [shogi] section goes with game = \"shogi\" only".into(),
                ));
            }
            _ => {}
        }
        let tc = &self.time_control;
        if tc.truncate_move_time_to_seconds
            && tc.rounding.is_some_and(|r| r != Rounding::FloorSeconds)
        {
            return Err((
                "time_control.rounding".into(),
                "rounding",
                "truncate_move_time_to_seconds = true says floor_seconds: give one of the two"
                    .into(),
            ));
        }
        let by = |s: Side| self.byoyomi(s).is_some();
        for (k, b) in [
            ("time_control.byoyomi", tc.byoyomi.as_ref()),
            (
                "time_control.first.byoyomi",
                tc.first.as_ref().and_then(|s| s.byoyomi.as_ref()),
            ),
            (
                "time_control.second.byoyomi",
                tc.second.as_ref().and_then(|s| s.byoyomi.as_ref()),
            ),
        ] {
            if let Some(b) = b
                && (b.periods == 0 || b.seconds == 0)
            {
                return Err((
                    k.into(),
                    "byoyomi",
                    "byo-yomi needs at least one period of at least one second".into(),
                ));
            }
        }
        if tc.byoyomi.is_some()
            && (tc.first.as_ref().is_some_and(|s| s.byoyomi.is_some())
                || tc.second.as_ref().is_some_and(|s| s.byoyomi.is_some()))
        {
            return Err((
                "time_control.byoyomi".into(),
                "byoyomi",
                "give byo-yomi for both sides or per side, not both".into(),
            ));
        }
        match (&tc.periods, &tc.first, &tc.second) {
            (Some(p), None, None) => check_periods(
                "time_control.periods",
                p,
                by(Side::White) && by(Side::Black),
            )?,
            (None, Some(a), Some(b)) => {
                check_periods("time_control.first.periods", &a.periods, by(Side::White))?;
                check_periods("time_control.second.periods", &b.periods, by(Side::Black))?;
            }
            _ => {
                return Err((
                    "time_control".into(),
                    "[time_control",
                    "give either `periods` for both sides, or both `first` and `second`".into(),
                ));
            }
        }
        if let Some(o) = &self.operator_errors
            && o.forfeit_at_infraction == 0
        {
            return Err((
                "operator_errors.forfeit_at_infraction".into(),
                "forfeit_at_infraction",
                "must be at least 1".into(),
            ));
        }
        if let Some(d) = &self.draw_offers
            && d.near_draw_threshold_cp < 0
        {
            return Err((
                "draw_offers.near_draw_threshold_cp".into(),
                "near_draw_threshold_cp",
                "must not be negative".into(),
            ));
        }
        if let Some(l) = &self.limits
            && l.max_plies.is_some() != l.max_plies_result.is_some()
        {
            return Err((
                "limits.max_plies_result".into(),
                "[limits",
                "max_plies and max_plies_result go together".into(),
            ));
        }
        // Durations become milliseconds and are summed with game times: bound them so that
        // arithmetic cannot overflow (found by fuzzing: `seconds = 18446744073709551615`).
        let mut lists: Vec<(&str, &[Period])> = Vec::new();
        if let Some(p) = &tc.periods {
            lists.push(("time_control.periods", p));
        }
        if let Some(f) = &tc.first {
            lists.push(("time_control.first.periods", &f.periods));
        }
        if let Some(f) = &tc.second {
            lists.push(("time_control.second.periods", &f.periods));
        }
        let mut durations: Vec<(String, &'static str, u64)> = Vec::new();
        for (key, ps) in lists {
            for (i, p) in ps.iter().enumerate() {
                durations.push((format!("{key}[{i}].seconds"), "seconds", p.seconds));
                durations.push((
                    format!("{key}[{i}].increment_seconds"),
                    "increment_seconds",
                    p.increment_seconds,
                ));
                durations.push((
                    format!("{key}[{i}].delay_seconds"),
                    "delay_seconds",
                    p.delay_seconds,
                ));
            }
        }
        for s in Side::BOTH {
            if let Some(b) = self.byoyomi(s) {
                durations.push(("time_control.byoyomi.seconds".into(), "byoyomi", b.seconds));
                if b.periods > 1000 {
                    return Err((
                        "time_control.byoyomi.periods".into(),
                        "byoyomi",
                        "at most 1000 byo-yomi periods".into(),
                    ));
                }
            }
        }
        let opt = |k: &str, n: &'static str, v: Option<u64>| v.map(|v| (k.to_string(), n, v));
        durations.extend(
            [
                opt(
                    "operator_errors.wrong_move_penalty_seconds",
                    "wrong_move_penalty_seconds",
                    self.operator_errors
                        .as_ref()
                        .map(|o| o.wrong_move_penalty_seconds),
                ),
                opt(
                    "draw_offers.consultation_limit_seconds",
                    "consultation_limit_seconds",
                    self.draw_offers
                        .as_ref()
                        .map(|d| d.consultation_limit_seconds),
                ),
                opt(
                    "power_failure.reset_window_seconds",
                    "reset_window_seconds",
                    self.power_failure.as_ref().map(|p| p.reset_window_seconds),
                ),
                opt(
                    "internal_clock.sync_threshold_seconds",
                    "sync_threshold_seconds",
                    self.internal_clock
                        .as_ref()
                        .map(|c| c.sync_threshold_seconds),
                ),
                opt(
                    "engine_log.deadline_seconds",
                    "deadline_seconds",
                    self.engine_log.as_ref().map(|d| d.deadline_seconds),
                ),
                opt(
                    "program_copy.deadline_seconds",
                    "deadline_seconds",
                    self.program_copy.as_ref().map(|d| d.deadline_seconds),
                ),
                opt(
                    "limits.no_show_seconds",
                    "no_show_seconds",
                    self.limits.as_ref().and_then(|l| l.no_show_seconds),
                ),
            ]
            .into_iter()
            .flatten(),
        );
        if let Some((k, needle, v)) = durations.into_iter().find(|(_, _, v)| *v > MAX_SECONDS) {
            return Err((
                k,
                needle,
                format!(
                    "{v} s is more than the largest duration a profile may give ({MAX_SECONDS} s, 100 days)"
                ),
            ));
        }
        if let Some(st) = &self.start {
            if self.profile.game != GameKind::Chess {
                return Err((
                    "start".into(),
                    "[start",
                    "start positions are for chess profiles".into(),
                ));
            }
            for (i, g) in st.games.iter().enumerate() {
                let key = format!("start.games[{i}]");
                let (fen, chess960) = g
                    .position()
                    .map_err(|e| (key.clone(), "games", e.to_string()))?;
                super::board::Board::new_chess_from(&fen, chess960)
                    .map_err(|e| (key.clone(), "games", e.to_string()))?;
                if st.games[..i].iter().any(|o| o.game == g.game) {
                    return Err((key, "games", format!("game {} is given twice", g.game)));
                }
            }
        }
        if let Some(m) = &self.match_rules
            && let Some(w) = m.winning_score
            && (!w.is_finite() || w <= 0.0)
        {
            return Err((
                "match.winning_score".into(),
                "winning_score",
                "must be a number > 0".into(),
            ));
        }
        match &self.articles {
            Some(a) => a
                .validate(self.profile.game)
                .map_err(|(key, message)| (key, "[articles", message))?,
            None if self.profile.game == GameKind::Shogi => {
                return Err((
                    "articles".into(),
                    "game",
                    "missing: a shogi profile needs an [articles] table (the article each entry cites: [articles.clauses], [articles.shogi])".into(),
                ));
            }
            None => {}
        }
        for (k, v) in [
            ("scoring.win", self.scoring.win),
            ("scoring.loss", self.scoring.loss),
            ("scoring.draw_first", self.scoring.draw_first),
            ("scoring.draw_second", self.scoring.draw_second),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Err((k.into(), "[scoring", "must be a finite number >= 0".into()));
            }
        }
        Ok(())
    }

    /// The periods of one side.
    pub fn periods(&self, side: Side) -> &[Period] {
        let tc = &self.time_control;
        match (&tc.periods, side) {
            (Some(p), _) => p,
            (None, Side::White) => tc.first.as_ref().map_or(&[][..], |s| &s.periods[..]),
            (None, Side::Black) => tc.second.as_ref().map_or(&[][..], |s| &s.periods[..]),
        }
    }

    /// The periods of one side as they fall in its game, in order; a repeating last period comes
    /// again and again (the iterator ends only when move numbers would overflow).
    pub fn schedule(&self, side: Side) -> impl Iterator<Item = Slot<'_>> {
        let periods = self.periods(side);
        let mut i = 0usize;
        let mut occurrence = 0usize;
        let mut start: Option<u32> = Some(0);
        std::iter::from_fn(move || {
            let s = start?;
            let p = periods.get(i)?;
            let control = p.moves.and_then(|m| s.checked_add(m));
            let slot = Slot {
                index: occurrence,
                period: p,
                start: s,
                control,
            };
            occurrence += 1;
            start = control;
            let last = i + 1 == periods.len();
            if !(last && p.repeat) {
                i += 1;
            }
            Some(slot)
        })
    }

    /// The rounding of a move's time in force.
    pub fn rounding(&self) -> Rounding {
        match self.time_control.rounding {
            Some(r) => r,
            None if self.time_control.truncate_move_time_to_seconds => Rounding::FloorSeconds,
            None => Rounding::Ms,
        }
    }

    /// The byo-yomi of a side, if it has one.
    pub fn byoyomi(&self, side: Side) -> Option<&Byoyomi> {
        let tc = &self.time_control;
        tc.byoyomi.as_ref().or(match side {
            Side::White => tc.first.as_ref().and_then(|s| s.byoyomi.as_ref()),
            Side::Black => tc.second.as_ref().and_then(|s| s.byoyomi.as_ref()),
        })
    }

    /// Time budget unlocked for a side that has completed `moves` moves (periods whose preceding
    /// move counts are reached, and the increment given before the first move), in ms.
    pub fn unlocked_budget(&self, side: Side, moves: u32) -> Ms {
        self.schedule(side)
            .take_while(|s| s.start <= moves)
            .map(|s| s.period.seconds.saturating_mul(1000))
            .fold(self.initial_increment(side), Ms::saturating_add)
    }

    /// Time given before the first move: the first move's increment when the profile says so.
    pub fn initial_increment(&self, side: Side) -> Ms {
        if self.time_control.increment_before_first_move {
            self.increment_for_move(side, 1)
        } else {
            0
        }
    }

    /// Period (0-based occurrence, counting repeats) a side is in after `moves` completed moves,
    /// and the move number at which that period's control falls (None for the last period).
    pub fn period_of(&self, side: Side, moves: u32) -> (usize, Option<u32>) {
        self.slot_of(side, moves)
            .map_or((0, None), |s| (s.index, s.control))
    }

    /// The period a side is in after `moves` completed moves.
    pub fn slot_of(&self, side: Side, moves: u32) -> Option<Slot<'_>> {
        let mut last = None;
        for s in self.schedule(side) {
            if s.control.is_none_or(|c| moves < c) {
                return Some(s);
            }
            last = Some(s);
        }
        last
    }

    /// Cumulative time of period occurrences 0..=i.
    pub fn cumulative_budget(&self, side: Side, i: usize) -> Ms {
        self.schedule(side)
            .take(i.saturating_add(1))
            .map(|s| s.period.seconds.saturating_mul(1000))
            .fold(self.initial_increment(side), Ms::saturating_add)
    }

    /// The period of the move numbered `move_number` (1-based) of a side, if the period's increment
    /// and delay apply to it (`from_move`).
    fn period_applying(&self, side: Side, move_number: u32) -> Option<&Period> {
        let slot = self.slot_of(side, move_number.saturating_sub(1))?;
        slot.period
            .from_move
            .is_none_or(|f| move_number >= f)
            .then_some(slot.period)
    }

    /// Increment for a move that completes move number `move_number` (1-based) of a side.
    pub fn increment_for_move(&self, side: Side, move_number: u32) -> Ms {
        self.period_applying(side, move_number)
            .map_or(0, |p| p.increment_seconds.saturating_mul(1000))
    }

    /// Delay of move number `move_number` (1-based) of a side, and its kind.
    pub fn delay_for_move(&self, side: Side, move_number: u32) -> (Ms, DelayKind) {
        self.period_applying(side, move_number)
            .map_or((0, DelayKind::Simple), |p| {
                (p.delay_seconds.saturating_mul(1000), p.delay)
            })
    }

    /// The start of game `game` other than the initial position: (FEN, Chess960 castling).
    pub fn start_for(&self, game: u32) -> Option<(String, bool)> {
        self.start
            .as_ref()?
            .games
            .iter()
            .find(|g| g.game == game)?
            .position()
            .ok()
    }

    /// Who may offer draws (both sides unless the match rules say otherwise).
    pub fn draw_offers_by(&self) -> DrawOffersBy {
        self.match_rules
            .as_ref()
            .map_or(DrawOffersBy::Both, |m| m.draw_offers_by)
    }

    /// Whether the rules make the operator correct the engine's clock (rule 6c; true when the
    /// profile has no `[internal_clock]`).
    pub fn sync_rule(&self) -> bool {
        self.internal_clock.as_ref().is_none_or(|c| c.sync_rule)
    }

    /// What the rules say of the engine's own clock when they set no duty on it, for the
    /// declarations, the reports and the audit (`None` under a sync rule).
    pub fn no_sync_rule_text(&self) -> Option<String> {
        let c = self.internal_clock.as_ref().filter(|c| !c.sync_rule)?;
        Some(format!(
            "no rule on the engine's own clock ({}: the server's measurement is the time); differences of {} or more are shown, no correction is owed",
            self.cite(super::clause::INTERNAL_CLOCK),
            super::timefmt::clock(
                i64::try_from(c.sync_threshold_seconds.saturating_mul(1000)).unwrap_or(i64::MAX)
            )
        ))
    }

    /// Sync threshold of rule 6c in ms (120 s by default when the profile has none).
    pub fn sync_threshold_ms(&self) -> Ms {
        self.internal_clock
            .as_ref()
            .map_or(120_000, |c| c.sync_threshold_seconds * 1000)
    }

    /// PGN TimeControl tag, e.g. `40/7200:20/3600:1800` (per side: the first player's).
    pub fn pgn_time_control(&self, side: Side) -> String {
        self.periods(side)
            .iter()
            .map(|p| {
                let base = match p.moves {
                    Some(m) => format!("{m}/{}", p.seconds),
                    None => p.seconds.to_string(),
                };
                if p.increment_seconds > 0 {
                    format!("{base}+{}", p.increment_seconds)
                } else {
                    base
                }
            })
            .collect::<Vec<_>>()
            .join(":")
    }
}

fn check_periods(
    key: &str,
    periods: &[Period],
    byoyomi: bool,
) -> Result<(), (String, &'static str, String)> {
    if periods.is_empty() {
        return Err((
            key.into(),
            "periods",
            "at least one period is needed".into(),
        ));
    }
    for (i, p) in periods.iter().enumerate() {
        let last = i + 1 == periods.len();
        if p.repeat && !last {
            return Err((
                format!("{key}[{i}].repeat"),
                "repeat",
                "only the last period may repeat".into(),
            ));
        }
        if p.from_move == Some(0) {
            return Err((
                format!("{key}[{i}].from_move"),
                "from_move",
                "moves are numbered from 1".into(),
            ));
        }
        if p.seconds == 0 && p.increment_seconds == 0 && p.delay_seconds == 0 && !byoyomi {
            return Err((
                format!("{key}[{i}].seconds"),
                "seconds",
                "a period needs time".into(),
            ));
        }
        match (p.moves, last) {
            (Some(0), _) => {
                return Err((
                    format!("{key}[{i}].moves"),
                    "moves",
                    "must be at least 1".into(),
                ));
            }
            (None, false) => {
                return Err((
                    format!("{key}[{i}].moves"),
                    "periods",
                    "only the last period may be the rest of the game (no `moves`)".into(),
                ));
            }
            (None, true) if p.repeat => {
                return Err((
                    format!("{key}[{i}].repeat"),
                    "repeat",
                    "a repeating period needs its `moves`".into(),
                ));
            }
            (Some(_), true) if !p.repeat => {
                return Err((
                    format!("{key}[{i}].moves"),
                    "periods",
                    "the last period must be the rest of the game (leave out `moves`) or repeat (`repeat = true`)".into(),
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Extract a key name from serde messages such as "unknown field `foo`, expected ...".
fn key_from_message(msg: &str) -> Option<String> {
    let start = msg.find('`')? + 1;
    let len = msg[start..].find('`')?;
    if msg.starts_with("unknown field")
        || msg.starts_with("missing field")
        || msg.starts_with("duplicate key")
    {
        Some(msg[start..start + len].to_string())
    } else {
        None
    }
}

/// The key the text at `offset` belongs to: the last `key =` before it on its line (inline
/// tables hold several), else the key written at the start of the line, or `-`.
fn key_at(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    if let Some(eq) = text[start..offset].rfind('=') {
        let key = text[start..start + eq]
            .rsplit(['{', ','])
            .next()
            .unwrap_or("")
            .trim();
        if !key.is_empty() {
            return key.to_string();
        }
    }
    let line = text[start..].lines().next().unwrap_or("").trim();
    match line.split_once('=') {
        Some((k, _)) => k.trim().to_string(),
        None if line.starts_with('[') => line.trim_matches(|c| c == '[' || c == ']').to_string(),
        None => "-".to_string(),
    }
}
