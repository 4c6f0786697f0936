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
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SidePeriods {
    pub periods: Vec<Period>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeControl {
    pub clause: String,
    pub period_addition: PeriodAddition,
    /// Charge each move's time truncated to whole seconds.
    #[serde(default)]
    pub truncate_move_time_to_seconds: bool,
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
                    return Err(("shogi.start_sfen".into(), "start_sfen", e));
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
        match (&tc.periods, &tc.first, &tc.second) {
            (Some(p), None, None) => check_periods("time_control.periods", p)?,
            (None, Some(a), Some(b)) => {
                check_periods("time_control.first.periods", &a.periods)?;
                check_periods("time_control.second.periods", &b.periods)?;
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

    /// Time budget unlocked for a side that has completed `moves` moves (periods whose preceding
    /// move counts are reached), in ms.
    pub fn unlocked_budget(&self, side: Side, moves: u32) -> Ms {
        let mut need: u64 = 0;
        let mut total = 0;
        for p in self.periods(side) {
            if u64::from(moves) < need {
                break;
            }
            total += p.seconds * 1000;
            match p.moves {
                Some(m) => need += u64::from(m),
                None => break,
            }
        }
        total
    }

    /// Period (0-based index) a side is in after `moves` completed moves, and the move number at
    /// which that period's control falls (None for the last period).
    pub fn period_of(&self, side: Side, moves: u32) -> (usize, Option<u32>) {
        let mut need: u32 = 0;
        for (i, p) in self.periods(side).iter().enumerate() {
            match p.moves {
                Some(m) => {
                    need = need.saturating_add(m);
                    if moves < need {
                        return (i, Some(need));
                    }
                }
                None => return (i, None),
            }
        }
        (self.periods(side).len().saturating_sub(1), None)
    }

    /// Cumulative time of periods 0..=i.
    pub fn cumulative_budget(&self, side: Side, i: usize) -> Ms {
        self.periods(side)
            .iter()
            .take(i + 1)
            .map(|p| p.seconds * 1000)
            .sum()
    }

    /// Increment for a move that completes move number `move_number` (1-based) of a side.
    pub fn increment_for_move(&self, side: Side, move_number: u32) -> Ms {
        let (i, _) = self.period_of(side, move_number.saturating_sub(1));
        self.periods(side)
            .get(i)
            .map_or(0, |p| p.increment_seconds * 1000)
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

fn check_periods(key: &str, periods: &[Period]) -> Result<(), (String, &'static str, String)> {
    if periods.is_empty() {
        return Err((
            key.into(),
            "periods",
            "at least one period is needed".into(),
        ));
    }
    for (i, p) in periods.iter().enumerate() {
        let last = i + 1 == periods.len();
        if p.seconds == 0 && p.increment_seconds == 0 {
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
            (Some(_), true) => {
                return Err((
                    format!("{key}[{i}].moves"),
                    "periods",
                    "the last period must be the rest of the game (leave out `moves`)".into(),
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
