//! The match index, version 2 (PURE): the signed list of a match's games and the checkpoint
//! each game's log ends with, so a deleted game or a log cut back to an older checkpoint is
//! seen. Text, each line ending in `\n`:
//! ```text
//! arbiter-kit match index v2
//! match <match-id>
//! version <n>
//! game <n> <entries> <base64 Merkle tree hash> <result>
//! …
//! ```
//! `version` counts the index's rewrites from 1 (each checkpoint names the index
//! version it was signed with, and the camps note a version's [`MatchCode`]). Version 1 of the
//! format (header `… v1`, no `version` line) is still read, as version 0.
//! One `game` line per game, in increasing game order; `<entries>` and the tree hash are those
//! of the game's last signed checkpoint; `<result>` is `1-0`, `0-1`, `1/2-1/2` or `*` (not
//! finished); a werewolf game's is its winning side, `VILLAGER`, `WEREWOLF` or `NONE` (ended with
//! no winner). The arbiter signs the text like a checkpoint (`crate::record::sign::sign_index`).
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// First line of a version-2 index (the one written).
pub const HEADER: &str = "arbiter-kit match index v2";
/// First line of a version-1 index (still read, as index version 0).
pub const HEADER_V1: &str = "arbiter-kit match index v1";

/// A game's result as the index records it (PGN's four result tokens; a werewolf table's
/// winning side).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexResult {
    WhiteWins,
    BlackWins,
    Draw,
    /// Not finished: the checkpoint is the latest, not the final one.
    Unfinished,
    /// A werewolf game won by the village.
    Villager,
    /// A werewolf game won by the werewolves.
    Werewolf,
    /// A werewolf game ended with no winner (too many seats in error, an arbiter's ruling).
    NoWinner,
}

impl IndexResult {
    /// The PGN token: `1-0`, `0-1`, `1/2-1/2`, `*`.
    pub fn as_str(self) -> &'static str {
        match self {
            IndexResult::WhiteWins => "1-0",
            IndexResult::BlackWins => "0-1",
            IndexResult::Draw => "1/2-1/2",
            IndexResult::Unfinished => "*",
            IndexResult::Villager => "VILLAGER",
            IndexResult::Werewolf => "WEREWOLF",
            IndexResult::NoWinner => "NONE",
        }
    }

    /// The result a `game_ended` entry's body records: a board game's `score` (a PGN token), a
    /// werewolf table's `winner`; `Unfinished` when it records neither.
    pub fn of_game_ended(body: &serde_json::Value) -> IndexResult {
        ["score", "winner"]
            .iter()
            .find_map(|k| body.get(*k).and_then(|s| s.as_str()))
            .and_then(IndexResult::parse)
            .unwrap_or(IndexResult::Unfinished)
    }

    /// Parse a PGN result token.
    pub fn parse(s: &str) -> Option<IndexResult> {
        [
            IndexResult::WhiteWins,
            IndexResult::BlackWins,
            IndexResult::Draw,
            IndexResult::Unfinished,
            IndexResult::Villager,
            IndexResult::Werewolf,
            IndexResult::NoWinner,
        ]
        .into_iter()
        .find(|r| r.as_str() == s)
    }
}

/// One game of the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedGame {
    pub game: u32,
    /// Entries covered by the game's last signed checkpoint.
    pub size: u64,
    /// Its Merkle tree hash.
    pub root: [u8; 32],
    pub result: IndexResult,
}

/// The match index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchIndex {
    pub match_id: String,
    /// The index's version: 1 for the first written, one more at each rewrite; 0 for an index
    /// in format v1, which has none.
    pub version: u64,
    /// In increasing game order.
    pub games: Vec<IndexedGame>,
}

/// Why an index text (or an index to write) is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    #[error("match index line {line}: {problem}")]
    Line { line: usize, problem: String },
    #[error("match index must end in a newline")]
    NoFinalNewline,
    #[error("match index is not in canonical form (spacing or encoding differs)")]
    NotCanonical,
}

fn bad(line: usize, problem: impl Into<String>) -> IndexError {
    IndexError::Line {
        line,
        problem: problem.into(),
    }
}

impl MatchIndex {
    /// Check what `parse` checks: a match id without white space or control characters, game
    /// numbers from 1 and strictly increasing, each checkpoint covering at least one entry.
    pub fn validate(&self) -> Result<(), IndexError> {
        if self.match_id.is_empty()
            || self
                .match_id
                .chars()
                .any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(bad(
                2,
                "the match id must be non-empty, without spaces or control characters",
            ));
        }
        let mut last = 0u32;
        for (i, g) in self.games.iter().enumerate() {
            let line = i + if self.version == 0 { 3 } else { 4 };
            if g.game <= last {
                return Err(bad(
                    line,
                    format!(
                        "game {} must come after game {last} (games in increasing order, from 1)",
                        g.game
                    ),
                ));
            }
            if g.size == 0 {
                return Err(bad(line, "a checkpoint covers at least one entry"));
            }
            last = g.game;
        }
        Ok(())
    }

    /// The exact text that is signed.
    pub fn to_text(&self) -> String {
        let mut out = if self.version == 0 {
            format!("{HEADER_V1}\nmatch {}\n", self.match_id)
        } else {
            format!(
                "{HEADER}\nmatch {}\nversion {}\n",
                self.match_id, self.version
            )
        };
        for g in &self.games {
            out.push_str(&format!(
                "game {} {} {} {}\n",
                g.game,
                g.size,
                STANDARD.encode(g.root),
                g.result.as_str()
            ));
        }
        out
    }

    /// Parse an index text strictly (it must be byte-identical to `to_text()` of the result).
    pub fn parse(text: &str) -> Result<MatchIndex, IndexError> {
        let body = text.strip_suffix('\n').ok_or(IndexError::NoFinalNewline)?;
        let mut lines = body.split('\n');
        let v2 = match lines.next() {
            Some(HEADER) => true,
            Some(HEADER_V1) => false,
            Some(h) if h.starts_with("arbiter-kit match index ") => {
                return Err(bad(
                    1,
                    format!("{h:?}: this kit reads index versions 1 and 2 only"),
                ));
            }
            _ => return Err(bad(1, format!("must be {HEADER:?}"))),
        };
        let match_id = lines
            .next()
            .and_then(|l| l.strip_prefix("match "))
            .ok_or_else(|| bad(2, "must be 'match <match-id>'"))?
            .to_owned();
        let version = if v2 {
            lines
                .next()
                .and_then(|l| l.strip_prefix("version "))
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|v| *v > 0)
                .ok_or_else(|| bad(3, "must be 'version <n>' (a decimal number from 1)"))?
        } else {
            0
        };
        let first_game_line = if v2 { 4 } else { 3 };
        let mut games = Vec::new();
        for (i, line) in lines.enumerate() {
            games.push(parse_game(line).map_err(|p| bad(i + first_game_line, p))?);
        }
        let index = MatchIndex {
            match_id,
            version,
            games,
        };
        index.validate()?;
        if index.to_text() != text {
            return Err(IndexError::NotCanonical);
        }
        Ok(index)
    }

    /// SHA-256 of the signed text.
    pub fn digest(&self) -> [u8; 32] {
        use sha2::{Digest, Sha256};
        Sha256::digest(self.to_text().as_bytes()).into()
    }

    /// The match code of this index version, which the camps note after each game.
    pub fn code(&self) -> MatchCode {
        MatchCode::of(self.version, &self.digest())
    }

    /// The entry for game `n`.
    pub fn game(&self, n: u32) -> Option<&IndexedGame> {
        self.games.iter().find(|g| g.game == n)
    }
}

/// The match code, version 1: the index version, then the first 8 bytes of the SHA-256 of its
/// signed text as four groups of four uppercase hex digits, after an `M`:
/// `M7-3F2A-9C1B-77D0-12AB`. A camp notes it when it countersigns the index after a game;
/// `verify --code` then finds that version (the current index or a kept countersigned copy) or
/// reports the index rolled back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchCode {
    pub version: u64,
    pub prefix: [u8; 8],
}

impl MatchCode {
    /// The code of index version `version` whose text has SHA-256 `digest`.
    pub fn of(version: u64, digest: &[u8; 32]) -> MatchCode {
        let mut prefix = [0u8; 8];
        prefix.copy_from_slice(&digest[..8]);
        MatchCode { version, prefix }
    }

    /// Parse a noted match code (letters in either case, white space around ignored); `None`
    /// for anything else (e.g. a checkpoint's code, which has no `M`).
    pub fn parse(text: &str) -> Option<MatchCode> {
        let t = text.trim();
        let rest = t.strip_prefix('M').or_else(|| t.strip_prefix('m'))?;
        let mut parts = rest.split('-');
        let v = parts.next()?;
        if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let version: u64 = v.parse().ok()?;
        let groups: Vec<&str> = parts.collect();
        if groups.len() != 4
            || groups
                .iter()
                .any(|g| g.len() != 4 || !g.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            return None;
        }
        let mut prefix = [0u8; 8];
        hex::decode_to_slice(groups.concat(), &mut prefix).ok()?;
        Some(MatchCode { version, prefix })
    }
}

impl std::fmt::Display for MatchCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "M{}", self.version)?;
        for g in self.prefix.chunks(2) {
            write!(f, "-{}", hex::encode_upper(g))?;
        }
        Ok(())
    }
}

fn parse_game(line: &str) -> Result<IndexedGame, &'static str> {
    const SHAPE: &str = "must be 'game <n> <entries> <base64 tree hash> <result>'";
    let fields: Vec<&str> = line.split(' ').collect();
    let ["game", game, size, root, result] = fields.as_slice() else {
        return Err(SHAPE);
    };
    let game: u32 = game
        .parse()
        .map_err(|_| "the game number must be a decimal number")?;
    let size: u64 = size
        .parse()
        .map_err(|_| "the entry count must be a decimal number")?;
    let root: [u8; 32] = STANDARD
        .decode(root)
        .ok()
        .and_then(|r| r.try_into().ok())
        .ok_or("the tree hash must be 32 bytes in standard base64")?;
    let result = IndexResult::parse(result)
        .ok_or("the result must be one of 1-0, 0-1, 1/2-1/2, *, VILLAGER, WEREWOLF, NONE")?;
    Ok(IndexedGame {
        game,
        size,
        root,
        result,
    })
}
