//! Checkpoint text: five lines, each ending in `\n`:
//! ```text
//! arbiter-kit/<match-id>/game-<n>
//! <N>
//! <base64 Merkle tree hash over entries 0..N-1>
//! chain <hex of E_{N-1}>
//! time <RFC 3339 UTC>
//! ```
//! then, in checkpoints of the current version, `index <version> <base64 SHA-256>`: the match index version in force
//! when the checkpoint was signed, and the digest of its text (a tlog extension line; older
//! checkpoints have none),
//! and, when the game is signed with the demo key of `logs/demo`, a last line `demo-key`
//! (a tlog extension line: such a checkpoint proves nothing, and says so)
//! and its short code ([`ShortCode`]) for a scoresheet.
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, SecondsFormat, Utc};

/// SSHSIG namespace of checkpoint signatures.
pub const NAMESPACE: &str = "arbiter-kit-checkpoint";

/// A parsed checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub origin: String,
    pub size: u64,
    pub root: [u8; 32],
    pub chain: [u8; 32],
    /// As written (RFC 3339 UTC, seconds precision, `Z`).
    pub time: String,
    /// Signed with the public demo key (`demo-key` line): proves nothing.
    pub demo: bool,
    /// The match index version in force when it was signed, and its text's SHA-256 (`index`
    /// line; `None` in checkpoints written by kits of the first log format).
    pub index: Option<(u64, [u8; 32])>,
}

/// The extension line's first word that names the match index version.
pub const INDEX_WORD: &str = "index";

/// The extension line that marks a checkpoint signed with the demo key.
pub const DEMO_LINE: &str = "demo-key";

/// Why a checkpoint text is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    #[error(
        "checkpoint must be 5 lines each ending in '\\n', then optionally 'index …' and 'demo-key' (found {0})"
    )]
    Lines(usize),
    #[error("checkpoint line {line}: {problem}")]
    Line { line: usize, problem: String },
    #[error("checkpoint text is not in canonical form")]
    NotCanonical,
}

/// The origin line of a game: `arbiter-kit/<match-id>/game-<n>`.
pub fn origin(match_id: &str, game: u32) -> String {
    format!("arbiter-kit/{match_id}/game-{game}")
}

impl Checkpoint {
    /// Checkpoint for the given tree; `time` is rounded to seconds.
    pub fn new(
        origin: String,
        size: u64,
        root: [u8; 32],
        chain: [u8; 32],
        now: DateTime<Utc>,
    ) -> Self {
        Checkpoint {
            origin,
            size,
            root,
            chain,
            time: now.to_rfc3339_opts(SecondsFormat::Secs, true),
            demo: false,
            index: None,
        }
    }

    /// The same checkpoint, naming the match index version it is signed with.
    pub fn with_index(mut self, index: Option<(u64, [u8; 32])>) -> Self {
        self.index = index;
        self
    }

    /// The `index` extension line's text (without newline), if any.
    pub fn index_line(&self) -> Option<String> {
        self.index
            .map(|(v, d)| format!("{INDEX_WORD} {v} {}", STANDARD.encode(d)))
    }

    /// The same checkpoint, marked as signed with the demo key (or not).
    pub fn with_demo(mut self, demo: bool) -> Self {
        self.demo = demo;
        self
    }

    /// The exact text that is signed.
    pub fn to_text(&self) -> String {
        format!(
            "{}\n{}\n{}\nchain {}\ntime {}\n{}{}",
            self.origin,
            self.size,
            STANDARD.encode(self.root),
            hex::encode(self.chain),
            self.time,
            self.index_line().map(|l| l + "\n").unwrap_or_default(),
            if self.demo {
                format!("{DEMO_LINE}\n")
            } else {
                String::new()
            }
        )
    }

    /// Parse a checkpoint text strictly (the text must be byte-identical to `to_text()`).
    pub fn parse(text: &str) -> Result<Checkpoint, CheckpointError> {
        let Some(body) = text.strip_suffix('\n') else {
            return Err(CheckpointError::Lines(text.lines().count()));
        };
        let lines: Vec<&str> = body.split('\n').collect();
        let (origin, size, root, chain, time, idx, demo) = match lines.as_slice() {
            [o, s, r, c, t] => (o, s, r, c, t, None, false),
            [o, s, r, c, t, d] if *d == DEMO_LINE => (o, s, r, c, t, None, true),
            [o, s, r, c, t, i] => (o, s, r, c, t, Some(*i), false),
            [o, s, r, c, t, i, d] if *d == DEMO_LINE => (o, s, r, c, t, Some(*i), true),
            _ => return Err(CheckpointError::Lines(lines.len())),
        };
        let bad = |line: usize, problem: &str| CheckpointError::Line {
            line,
            problem: problem.to_owned(),
        };
        if !origin.starts_with("arbiter-kit/") || origin.contains(char::is_whitespace) {
            return Err(bad(1, "origin must be arbiter-kit/<match-id>/game-<n>"));
        }
        let size: u64 = size
            .parse()
            .map_err(|_| bad(2, "entry count must be a decimal number"))?;
        let root: [u8; 32] = STANDARD
            .decode(root)
            .ok()
            .and_then(|v| v.try_into().ok())
            .ok_or_else(|| bad(3, "Merkle tree hash must be 32 bytes in standard base64"))?;
        let chain = chain
            .strip_prefix("chain ")
            .and_then(super::decode_hash)
            .ok_or_else(|| bad(4, "must be 'chain ' and 64 lowercase hex digits"))?;
        let time = time
            .strip_prefix("time ")
            .ok_or_else(|| bad(5, "must start with 'time '"))?;
        if DateTime::parse_from_rfc3339(time).is_err() || !time.ends_with('Z') {
            return Err(bad(5, "time must be RFC 3339 UTC ending in Z"));
        }
        let index = match idx {
            None => None,
            Some(line) => {
                let bad6 = || {
                    bad(
                        6,
                        "must be 'index <version> <base64 SHA-256>' or 'demo-key'",
                    )
                };
                let mut w = line.split(' ');
                if w.next() != Some(INDEX_WORD) {
                    return Err(bad6());
                }
                let v: u64 = w.next().and_then(|v| v.parse().ok()).ok_or_else(bad6)?;
                let d: [u8; 32] = w
                    .next()
                    .and_then(|d| STANDARD.decode(d).ok())
                    .and_then(|d| d.try_into().ok())
                    .ok_or_else(bad6)?;
                if w.next().is_some() {
                    return Err(bad6());
                }
                Some((v, d))
            }
        };
        let cp = Checkpoint {
            index,
            origin: (*origin).to_owned(),
            size,
            root,
            chain,
            time: time.to_owned(),
            demo,
        };
        if cp.to_text() != text {
            return Err(CheckpointError::NotCanonical);
        }
        Ok(cp)
    }
}

/// Number of 4-hex-digit groups of the root in a short code (64 bits).
pub const SHORT_CODE_GROUPS: usize = 4;

/// The short code of a signed checkpoint, version 1, that a camp copies onto its scoresheet:
/// the entry count, then the first 8 bytes of the Merkle tree hash as four groups of four
/// uppercase hex digits, e.g. `57-3F2A-9C1B-77D0-12AB`. Any later log whose first 57 entries
/// hash to another tree hash fails the check (forging a match takes about 2^64 tries).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShortCode {
    pub size: u64,
    /// The first bytes of the tree hash.
    pub prefix: [u8; 2 * SHORT_CODE_GROUPS],
}

/// Why a noted short code is refused or does not match.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShortCodeError {
    #[error(
        "short code {0:?} is not <entries>-XXXX-XXXX-XXXX-XXXX (a number and four groups of four hex digits)"
    )]
    Syntax(String),
    #[error(
        "short code {noted} does not match the log: its tree hash over {size} entries gives {actual}"
    )]
    Mismatch {
        noted: ShortCode,
        size: u64,
        actual: ShortCode,
    },
}

impl ShortCode {
    /// The code of the tree of `size` entries with hash `root`.
    pub fn of(size: u64, root: &[u8; 32]) -> ShortCode {
        let mut prefix = [0u8; 2 * SHORT_CODE_GROUPS];
        prefix.copy_from_slice(&root[..2 * SHORT_CODE_GROUPS]);
        ShortCode { size, prefix }
    }

    /// Parse a noted code; letters may be in either case, surrounding white space is ignored.
    pub fn parse(text: &str) -> Result<ShortCode, ShortCodeError> {
        let bad = || ShortCodeError::Syntax(text.to_owned());
        let t = text.trim();
        let mut parts = t.split('-');
        let size_text = parts.next().ok_or_else(bad)?;
        if size_text.is_empty() || !size_text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let size: u64 = size_text.parse().map_err(|_| bad())?;
        let groups: Vec<&str> = parts.collect();
        if groups.len() != SHORT_CODE_GROUPS
            || groups
                .iter()
                .any(|g| g.len() != 4 || !g.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            return Err(bad());
        }
        let mut prefix = [0u8; 2 * SHORT_CODE_GROUPS];
        hex::decode_to_slice(groups.concat(), &mut prefix).map_err(|_| bad())?;
        Ok(ShortCode { size, prefix })
    }

    /// Whether this code names the tree of `size` entries with hash `root`.
    pub fn matches(&self, size: u64, root: &[u8; 32]) -> bool {
        *self == ShortCode::of(size, root)
    }

    /// Check a noted code against the tree hash the log gives for the code's entry count.
    pub fn check(&self, root_at_size: &[u8; 32]) -> Result<(), ShortCodeError> {
        let actual = ShortCode::of(self.size, root_at_size);
        if actual == *self {
            Ok(())
        } else {
            Err(ShortCodeError::Mismatch {
                noted: *self,
                size: self.size,
                actual,
            })
        }
    }
}

impl std::fmt::Display for ShortCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.size)?;
        for g in self.prefix.chunks(2) {
            write!(f, "-{}", hex::encode_upper(g))?;
        }
        Ok(())
    }
}

impl Checkpoint {
    /// This checkpoint's short code.
    pub fn short_code(&self) -> ShortCode {
        ShortCode::of(self.size, &self.root)
    }
}
