//! The match index, version 1 (PURE): the signed list of a match's games and the checkpoint
//! each game's log ends with, so a deleted game or a log cut back to an older checkpoint is
//! seen. Text, each line ending in `\n`:
//! ```text
//! arbiter-kit match index v1
//! match <match-id>
//! game <n> <entries> <base64 Merkle tree hash> <result>
//! …
//! ```
//! One `game` line per game, in increasing game order; `<entries>` and the tree hash are those
//! of the game's last signed checkpoint; `<result>` is `1-0`, `0-1`, `1/2-1/2` or `*` (not
//! finished). The arbiter signs the text like a checkpoint (`crate::sign::sign_index`).
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// First line of a version-1 index.
pub const HEADER: &str = "arbiter-kit match index v1";

/// A game's result as the index records it (PGN's four result tokens).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexResult {
    WhiteWins,
    BlackWins,
    Draw,
    /// Not finished: the checkpoint is the latest, not the final one.
    Unfinished,
}

impl IndexResult {
    /// The PGN token: `1-0`, `0-1`, `1/2-1/2`, `*`.
    pub fn as_str(self) -> &'static str {
        match self {
            IndexResult::WhiteWins => "1-0",
            IndexResult::BlackWins => "0-1",
            IndexResult::Draw => "1/2-1/2",
            IndexResult::Unfinished => "*",
        }
    }

    /// Parse a PGN result token.
    pub fn parse(s: &str) -> Option<IndexResult> {
        [
            IndexResult::WhiteWins,
            IndexResult::BlackWins,
            IndexResult::Draw,
            IndexResult::Unfinished,
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
            let line = i + 3;
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
        let mut out = format!("{HEADER}\nmatch {}\n", self.match_id);
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
        match lines.next() {
            Some(HEADER) => {}
            Some(h) if h.starts_with("arbiter-kit match index ") => {
                return Err(bad(
                    1,
                    format!("{h:?}: this kit reads index version 1 only"),
                ));
            }
            _ => return Err(bad(1, format!("must be {HEADER:?}"))),
        }
        let match_id = lines
            .next()
            .and_then(|l| l.strip_prefix("match "))
            .ok_or_else(|| bad(2, "must be 'match <match-id>'"))?
            .to_owned();
        let mut games = Vec::new();
        for (i, line) in lines.enumerate() {
            games.push(parse_game(line).map_err(|p| bad(i + 3, p))?);
        }
        let index = MatchIndex { match_id, games };
        index.validate()?;
        if index.to_text() != text {
            return Err(IndexError::NotCanonical);
        }
        Ok(index)
    }

    /// The entry for game `n`.
    pub fn game(&self, n: u32) -> Option<&IndexedGame> {
        self.games.iter().find(|g| g.game == n)
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
    let result =
        IndexResult::parse(result).ok_or("the result must be one of 1-0, 0-1, 1/2-1/2, *")?;
    Ok(IndexedGame {
        game,
        size,
        root,
        result,
    })
}
