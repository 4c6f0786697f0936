//! Checkpoint text: five lines, each ending in `\n`:
//! ```text
//! arbiter-kit/<match-id>/game-<n>
//! <N>
//! <base64 Merkle tree hash over entries 0..N-1>
//! chain <hex of E_{N-1}>
//! time <RFC 3339 UTC>
//! ```
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
}

/// Why a checkpoint text is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    #[error("checkpoint must be exactly 5 lines each ending in '\\n' (found {0})")]
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
        }
    }

    /// The exact text that is signed.
    pub fn to_text(&self) -> String {
        format!(
            "{}\n{}\n{}\nchain {}\ntime {}\n",
            self.origin,
            self.size,
            STANDARD.encode(self.root),
            hex::encode(self.chain),
            self.time
        )
    }

    /// Parse a checkpoint text strictly (the text must be byte-identical to `to_text()`).
    pub fn parse(text: &str) -> Result<Checkpoint, CheckpointError> {
        let Some(body) = text.strip_suffix('\n') else {
            return Err(CheckpointError::Lines(text.lines().count()));
        };
        let lines: Vec<&str> = body.split('\n').collect();
        let [origin, size, root, chain, time] = lines.as_slice() else {
            return Err(CheckpointError::Lines(lines.len()));
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
        let cp = Checkpoint {
            origin: (*origin).to_owned(),
            size,
            root,
            chain,
            time: time.to_owned(),
        };
        if cp.to_text() != text {
            return Err(CheckpointError::NotCanonical);
        }
        Ok(cp)
    }
}
