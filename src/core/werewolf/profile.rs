//! A werewolf table's rules as data (`rules/aiwolf-*.toml`, top key `game = "werewolf"`): seats,
//! roles, talk and whisper limits, votes, timeouts, the error ratio, phases and characters.
//!
//! Parsed strictly: unknown keys are refused and every error names the key. Every number in the
//! bundled profiles carries the regulation section (or the official server's file) in a comment.
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A role of the 2025 regulation, spelled as the protocol spells it (upper case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Role {
    Werewolf,
    Possessed,
    Seer,
    Bodyguard,
    Villager,
    Medium,
}

impl Role {
    pub const ALL: [Role; 6] = [
        Role::Werewolf,
        Role::Possessed,
        Role::Seer,
        Role::Bodyguard,
        Role::Villager,
        Role::Medium,
    ];
    /// The protocol's name (`WEREWOLF`, …).
    pub fn name(self) -> &'static str {
        match self {
            Role::Werewolf => "WEREWOLF",
            Role::Possessed => "POSSESSED",
            Role::Seer => "SEER",
            Role::Bodyguard => "BODYGUARD",
            Role::Villager => "VILLAGER",
            Role::Medium => "MEDIUM",
        }
    }
    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == s)
    }
    /// What a seer or medium learns: only a werewolf is `WEREWOLF` (the possessed is human).
    pub fn species(self) -> Species {
        match self {
            Role::Werewolf => Species::Werewolf,
            _ => Species::Human,
        }
    }
    /// The side that wins with this role.
    pub fn team(self) -> Winner {
        match self {
            Role::Werewolf | Role::Possessed => Winner::Werewolf,
            _ => Winner::Villager,
        }
    }
}

/// A divination's or medium's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Species {
    Human,
    Werewolf,
}

impl Species {
    pub fn name(self) -> &'static str {
        match self {
            Species::Human => "HUMAN",
            Species::Werewolf => "WEREWOLF",
        }
    }
}

/// The outcome of a game: a side, or `NONE` (too many seats in error, a ruling, a restart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Winner {
    Villager,
    Werewolf,
    None,
}

impl Winner {
    pub fn name(self) -> &'static str {
        match self {
            Winner::Villager => "VILLAGER",
            Winner::Werewolf => "WEREWOLF",
            Winner::None => "NONE",
        }
    }
}

/// When the talk order is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TalkOrder {
    /// Once per talk (or whisper) phase, kept for every turn: what the official server does
    /// (logic/communication.go).
    PerPhase,
    /// Anew for every turn: what the regulation's 注意事項 says ("その順序はランダムです").
    PerTurn,
}

/// What a restart of the serving process does to a game under way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnRestart {
    /// Seats reconnect by name; the game goes on where the log stands.
    Resume,
    /// The game ends with no winner (`NONE`).
    End,
}

/// What a phase does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Talk,
    Whisper,
    Execution,
    Divine,
    Guard,
    Attack,
}

impl Action {
    pub fn name(self) -> &'static str {
        match self {
            Action::Talk => "talk",
            Action::Whisper => "whisper",
            Action::Execution => "execution",
            Action::Divine => "divine",
            Action::Guard => "guard",
            Action::Attack => "attack",
        }
    }
}

/// One phase of the day or the night (`logic.day_phases` / `night_phases` of the official
/// configuration; one action a phase).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Phase {
    pub name: String,
    pub action: Action,
    /// Only on this day.
    #[serde(default)]
    pub only_day: Option<u32>,
    /// Never on this day.
    #[serde(default)]
    pub except_day: Option<u32>,
}

impl Phase {
    /// Whether the phase runs on `day`.
    pub fn runs_on(&self, day: u32) -> bool {
        self.only_day.is_none_or(|d| d == day) && self.except_day.is_none_or(|d| d != day)
    }
}

/// Limits of talk or whisper (`game.talk` / `game.whisper` of the official configuration).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommRules {
    /// Requests a seat gets a day at most (`max_count.per_agent`).
    pub per_agent: u32,
    /// Turns a phase has at most (`max_count.per_day`; the official server counts turns).
    pub per_day: u32,
    /// Skips in a row before a `Skip` counts as `Over` (`max_skip`).
    pub max_skip: u32,
    /// Characters before the first mention (`max_length.base_length`).
    pub base_length: u32,
    /// Characters after the first mention (`max_length.mention_length`).
    pub mention_length: u32,
    /// Characters of a whole utterance (`max_length.per_talk`); absent: no such limit.
    #[serde(default)]
    pub per_talk: Option<u32>,
    /// Count words, not characters (`max_length.count_in_word`).
    #[serde(default)]
    pub count_in_word: bool,
    /// Count whitespace too (`max_length.count_spaces`).
    #[serde(default)]
    pub count_spaces: bool,
    /// When the order of seats is drawn.
    pub order: TalkOrder,
    /// Which mention splits an utterance that mentions several seats (default: the official
    /// server's, the first seat in seat order).
    #[serde(default)]
    pub mention: super::length::MentionRule,
}

impl CommRules {
    /// The length limits as the length counter takes them.
    pub fn limits(&self) -> super::length::Limits {
        super::length::Limits {
            base_length: self.base_length,
            mention_length: self.mention_length,
            per_talk: self.per_talk,
            count_in_word: self.count_in_word,
            count_spaces: self.count_spaces,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoteRules {
    /// Vote rounds when the first is tied (`vote.max_count`).
    pub max_count: u32,
    pub allow_self_vote: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttackRules {
    pub max_count: u32,
    pub allow_self_vote: bool,
    /// A tie after the last round means no attack (true) or a draw among the tied (false).
    pub allow_no_target: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timeouts {
    /// Time a seat has to answer a request (`server.timeout.action`).
    pub action_ms: u64,
    /// Grace after it before the probe (`server.timeout.acceptable`).
    pub acceptable_ms: u64,
    /// Time a seat has to answer the NAME probe (`server.timeout.response`).
    pub response_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Auth {
    /// Seats must show a token (JWT, HS256, claims `team` and `role`).
    pub required: bool,
    /// The environment variable holding the HMAC key.
    pub secret_env: String,
}

/// A character a seat plays (name, age, gender, personality; the regulation's キャラクター設定).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Character {
    pub name: String,
    pub age: String,
    pub gender: String,
    pub personality: String,
}

/// The labels of the character description sent with INITIALIZE (`custom_profile.profile_encoding`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Encoding {
    pub age: String,
    pub gender: String,
    pub personality: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// Human-readable name of the rules.
    pub name: String,
    /// Where the numbers come from.
    pub source: String,
    /// The language of talk (`ja`, `en`).
    pub language: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    /// Seats at the table (`game.agent_count`).
    pub seats: u32,
    /// Last day played (`game.max_day`); absent: no limit.
    #[serde(default)]
    pub max_day: Option<u32>,
    /// Votes of the previous day are shown (`game.vote_visibility`).
    pub vote_visibility: bool,
    /// The game ends with no winner when this many seats, times the seat count and rounded
    /// down, are in error (`server.max_continue_error_ratio`), in thousandths.
    pub max_error_permille: u32,
    /// Largest text frame taken, in bytes; a larger one is refused and recorded.
    pub max_frame_bytes: u64,
    pub on_restart: OnRestart,
}

/// A werewolf rules profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Always `werewolf`: what tells a werewolf profile from a board game's.
    pub game: String,
    pub profile: Meta,
    pub table: Table,
    /// Seats of each role.
    pub roles: BTreeMap<String, u32>,
    pub talk: CommRules,
    pub whisper: CommRules,
    pub vote: VoteRules,
    pub attack_vote: AttackRules,
    pub timeouts: Timeouts,
    pub auth: Auth,
    pub day_phases: Vec<Phase>,
    pub night_phases: Vec<Phase>,
    pub encoding: Encoding,
    pub characters: Vec<Character>,
}

/// A profile that cannot be used, naming the key and the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    #[error("werewolf profile: {0}")]
    Toml(String),
    #[error("werewolf profile: `game` is {0:?}, not \"werewolf\"")]
    NotWerewolf(String),
    #[error("werewolf profile: {key}: {problem}")]
    Invalid { key: String, problem: String },
}

fn invalid(key: &str, problem: impl Into<String>) -> ProfileError {
    ProfileError::Invalid {
        key: key.to_string(),
        problem: problem.into(),
    }
}

/// Whether a TOML text is a werewolf profile (its top key `game` is `"werewolf"`), without
/// parsing the rest: what `arbiter rules list` uses to tell the families apart.
pub fn is_werewolf(text: &str) -> bool {
    #[derive(Deserialize)]
    struct Top {
        game: Option<toml::Value>,
    }
    toml::from_str::<Top>(text)
        .ok()
        .and_then(|t| t.game)
        .is_some_and(|g| g.as_str() == Some("werewolf"))
}

impl Profile {
    /// Parse and check a werewolf profile.
    pub fn parse(text: &str) -> Result<Profile, ProfileError> {
        if !is_werewolf(text) {
            return Err(ProfileError::NotWerewolf(
                toml::from_str::<toml::Table>(text)
                    .ok()
                    .and_then(|t| t.get("game").map(|g| g.to_string()))
                    .unwrap_or_else(|| "(missing)".into()),
            ));
        }
        let p: Profile = toml::from_str(text).map_err(|e| ProfileError::Toml(e.to_string()))?;
        p.check()?;
        Ok(p)
    }

    fn check(&self) -> Result<(), ProfileError> {
        let n = self.table.seats;
        if !(3..=99).contains(&n) {
            return Err(invalid("table.seats", "must be 3 to 99"));
        }
        let mut total = 0u32;
        for (name, count) in &self.roles {
            if Role::parse(name).is_none() {
                return Err(invalid(
                    &format!("roles.{name}"),
                    "not a role (WEREWOLF, POSSESSED, SEER, BODYGUARD, VILLAGER, MEDIUM)",
                ));
            }
            total = total.saturating_add(*count);
        }
        if total != n {
            return Err(invalid(
                "roles",
                format!("the roles add up to {total}, the table has {n} seats"),
            ));
        }
        if self.roles.get("WEREWOLF").copied().unwrap_or(0) == 0 {
            return Err(invalid("roles.WEREWOLF", "a game needs a werewolf"));
        }
        for (key, c) in [("talk", &self.talk), ("whisper", &self.whisper)] {
            if c.count_in_word && c.count_spaces {
                return Err(invalid(
                    &format!("{key}.count_in_word"),
                    "count_in_word and count_spaces cannot both be true (official server: model/setting.go)",
                ));
            }
        }
        if self.vote.max_count == 0 {
            return Err(invalid("vote.max_count", "at least one vote round"));
        }
        if self.attack_vote.max_count == 0 {
            return Err(invalid("attack_vote.max_count", "at least one vote round"));
        }
        if self.table.max_error_permille > 1000 {
            return Err(invalid("table.max_error_permille", "at most 1000"));
        }
        if self.table.max_frame_bytes == 0 {
            return Err(invalid("table.max_frame_bytes", "must be positive"));
        }
        if self.timeouts.action_ms == 0 || self.timeouts.response_ms == 0 {
            return Err(invalid(
                "timeouts",
                "action_ms and response_ms must be positive",
            ));
        }
        if !self.characters.is_empty() && (self.characters.len() as u64) < u64::from(n) {
            return Err(invalid(
                "characters",
                format!(
                    "{} characters for {n} seats (give none, or at least one a seat)",
                    self.characters.len()
                ),
            ));
        }
        let mut names = std::collections::BTreeSet::new();
        for c in &self.characters {
            if c.name.is_empty() || c.name.chars().any(char::is_whitespace) {
                return Err(invalid(
                    "characters.name",
                    format!("{:?}: a name is one word", c.name),
                ));
            }
            if !names.insert(c.name.as_str()) {
                return Err(invalid("characters.name", format!("{:?} twice", c.name)));
            }
        }
        for (key, phases) in [
            ("day_phases", &self.day_phases),
            ("night_phases", &self.night_phases),
        ] {
            if phases.iter().any(|p| p.name.is_empty()) {
                return Err(invalid(key, "every phase has a name"));
            }
        }
        Ok(())
    }

    /// Seats of `role`.
    pub fn count(&self, role: Role) -> u32 {
        self.roles.get(role.name()).copied().unwrap_or(0)
    }

    /// The roles to deal, in the order of [`Role::ALL`], each as many times as it has seats.
    pub fn role_deck(&self) -> Vec<Role> {
        Role::ALL
            .into_iter()
            .flat_map(|r| std::iter::repeat_n(r, self.count(r) as usize))
            .collect()
    }

    /// Seats in error that end the game with no winner: seats × ratio, rounded down
    /// (official server: logic/game.go `shouldFinish`).
    pub fn error_limit(&self) -> u32 {
        // Exact integer arithmetic: 5 × 0.2 = 1, 13 × 0.2 = 2, 9 × 0.2 = 1.
        (u64::from(self.table.seats) * u64::from(self.table.max_error_permille) / 1000) as u32
    }

    /// The `setting` object exactly as the official server sends it (model/setting.go): keys in
    /// its order, `role_num_map` last and sorted, optional limits left out when unset.
    pub fn setting_json(&self) -> String {
        serde_json::to_string(&super::packet::Setting::of(self)).unwrap_or_default()
    }
}
