//! The live record (`arbiter live`) and a camp's witness (`arbiter witness`): the match folder
//! streamed read-only over a WebSocket to the camps' own machines, each keeping its own copy of
//! every game's log and cosigning only checkpoints that extend it; cosignatures flow back into
//! the match folder. Protocol `arbiter-kit-live/1` (docs/log-format.md, "The live record").
pub mod clock;
pub mod copy;
pub mod rules;
pub mod server;
pub mod witness;

use serde::{Deserialize, Serialize};

/// The protocol's name and version, sent first by both sides.
pub const PROTOCOL: &str = "arbiter-kit-live/1";
/// The path the live record is served at.
pub const PATH: &str = "/live";
/// Largest frame either side accepts (a log line, a note or a signature is far smaller).
pub const MAX_FRAME: usize = 4 << 20;

/// A frame from the live record to a witness (JSON text frame, `type` names it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToWitness {
    /// First frame of a connection.
    Hello { protocol: String },
    /// The match policy (`policy.txt`) and its signature by the arbiter's key
    /// (`policy.txt.sig`), sent before any entry once the match has one (again if it changes):
    /// the witness holds every game's line 0 to it.
    Policy { text: String, signature: String },
    /// Entry `seq` of game `game`, the line exactly as the log holds it (without its newline),
    /// sent once the file holds it durably, every entry of a game in order from entry 0.
    Entry { game: u32, seq: u64, line: String },
    /// A signed checkpoint note (`checkpoints/<size>.note`), sent after the entries it covers.
    Checkpoint { game: u32, size: u64, note: String },
    /// A cosignature accepted and stored as `file`.
    Cosigned {
        game: u32,
        size: u64,
        camp: String,
        file: String,
    },
    /// A frame refused, and why (the connection stays).
    Refused { reason: String },
}

/// A frame from a witness to the live record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum FromWitness {
    /// First frame of a connection: the protocol and the camp's label.
    Hello { protocol: String, camp: String },
    /// First frame of a read-only follower (`display --connect`, `relay --connect`): the
    /// record is streamed as to a witness; it cosigns nothing.
    Follow { protocol: String },
    /// The camp's countersignature of `checkpoints/<size>.txt` of game `game`: an armored
    /// SSHSIG, namespace `arbiter-kit-countersign@v1`, by the camp's declared key.
    Cosignature {
        game: u32,
        size: u64,
        camp: String,
        signature: String,
    },
    /// An alarm the camp's witness raised about game `game` (`seq`: the entry, or the checkpoint
    /// size, it is about), sent as it is raised and again after each reconnection: `text` is the
    /// alarm line as the camp sees it, `summary` its short form for a status line. Shown to the
    /// arbiter; it stops nothing and nothing of it is recorded in the match folder.
    Alarm {
        game: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
        camp: String,
        kind: AlarmKind,
        summary: String,
        text: String,
    },
}

/// What a witness's alarm is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AlarmKind {
    /// An entry the rules or the match policy refuse.
    RefusedEntry,
    /// An entry or a checkpoint that conflicts with the camp's copy.
    Conflict,
    /// An outage the record claims that the witness's clock does not allow.
    Outage,
    /// More entries past the last checkpoint than the match policy's interval.
    Interval,
}

impl AlarmKind {
    /// Its name in the protocol.
    pub fn name(self) -> &'static str {
        match self {
            AlarmKind::RefusedEntry => "refused-entry",
            AlarmKind::Conflict => "conflict",
            AlarmKind::Outage => "outage",
            AlarmKind::Interval => "interval",
        }
    }
}

/// Most characters of an alarm's `text`.
pub const MAX_ALARM_TEXT: usize = 600;
/// Most characters of an alarm's `summary`.
pub const MAX_ALARM_SUMMARY: usize = 120;

/// `s` cut to at most `max` characters (the last one `…` when cut), control characters
/// replaced by `?`: what a witness puts in an alarm frame.
pub fn alarm_field(s: &str, max: usize) -> String {
    let clean: String = s
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    match clean.char_indices().nth(max.saturating_sub(1)) {
        Some((at, _)) if clean.chars().count() > max => format!("{}…", &clean[..at]),
        _ => clean,
    }
}

/// Why the live record refuses an alarm's `summary` or `text` (`what`), if it does: too long,
/// empty, or holding a control character.
pub fn alarm_field_problem(what: &str, s: &str, max: usize) -> Option<String> {
    let n = s.chars().count();
    if n == 0 {
        Some(format!("the alarm's {what} is empty"))
    } else if n > max {
        Some(format!(
            "the alarm's {what} is {n} characters long, more than {max}"
        ))
    } else {
        s.chars().find(|c| c.is_control()).map(|c| {
            format!(
                "the alarm's {what} holds the control character U+{:04X}",
                c as u32
            )
        })
    }
}
