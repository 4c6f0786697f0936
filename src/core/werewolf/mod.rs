//! The AI Werewolf table, pure: the official server's game (natural-language division) as
//! decide/evolve over inputs stamped by the shell. No clock, no file, no socket, no OS randomness:
//! time comes in every [`Input`] and every random choice is drawn from the game's [`Seed`].
//!
//! Like the official server the table is sequential: at most one request awaits an answer.
//! [`decide`] turns an input into events (the first records the input itself and the referee's
//! verdict); [`evolve`] applies one event; [`replay`] re-runs a recorded game and checks every event.
mod arbiter;
mod ballots;
pub mod control_line;
pub mod event;
mod flow;
pub mod length;
mod packet;
pub mod profile;
pub mod random;
pub mod sections;
mod table;
mod talk;
mod verdicts;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use crate::core::Refusal;
pub use event::{
    Ballot, Channel, DealtSeat, DecodeError, Event, Invalid, Part, Request, Stage, TalkKind,
    Verdict,
};
pub use length::{Cut, Limits, MentionRule, count_length, count_length_with, cut, cut_with};
pub use profile::{
    Action, Character, OnRestart, Profile, ProfileError, Role, Species, TalkOrder, Winner,
    is_werewolf,
};
pub use table::{ActState, Ballots, Comm, DayStatus, Judge, Pending, Seat, Single, Table, TalkRec};

/// The game's secret: every random draw derives from it (docs/log-format.md). Line 0 holds its
/// SHA-256; the last entry reveals it.
#[derive(Clone, PartialEq, Eq)]
pub struct Seed(pub [u8; 32]);

impl Seed {
    /// SHA-256 of the 32 seed bytes, lowercase hex: the commitment in line 0.
    pub fn commitment(&self) -> String {
        hex::encode(Sha256::digest(self.0))
    }
    /// The seed as lowercase hex (revealed by `game_ended`).
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
    /// A seed from 64 hex digits.
    pub fn from_hex(s: &str) -> Option<Seed> {
        let v = hex::decode(s.trim()).ok()?;
        Some(Seed(v.try_into().ok()?))
    }
}

impl std::fmt::Debug for Seed {
    /// The commitment only: a seed is not printed by accident.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Seed(sha256 {})", self.commitment())
    }
}

/// A seat as it connected: the NAME answer (e.g. `kanolab3`), its team (the name without
/// trailing digits) and whether a human plays it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatSpec {
    pub name: String,
    pub team: String,
    pub human: bool,
}

/// An arbiter's act at the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Act {
    /// A technical break: no deadline runs until `Resume`.
    Pause {
        reason: String,
    },
    Resume,
    Note {
        text: String,
    },
    /// The seat is in error for the rest of the game (unless readmitted).
    Eject {
        seat: usize,
        reason: String,
    },
    Readmit {
        seat: usize,
    },
    /// End the game with a ruling.
    End {
        winner: Winner,
        reason: String,
    },
}

/// How an arbiter's act was approved (the `approved` entry before the act's own).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Approval {
    /// Through a channel of the match folder with no passphrase (`--control`, or the control
    /// socket without one): whoever owns the channel, i.e. may write the match folder.
    Owner { channel: String },
    /// At the game master's screen, the arbiter's passphrase typed: it opened the key `key`
    /// (fingerprint), which signed [`act_authorization_text`] (`sig`: base64 ed25519).
    Passphrase {
        key: String,
        signed_at: String,
        sig: String,
    },
    /// At the game master's screen with an unencrypted key: anyone at that keyboard.
    UnencryptedKey,
    /// At the game master's screen under `--agent`: the ssh-agent holding the arbiter's key
    /// `key` (fingerprint) signed [`act_authorization_text`] (`sig`: base64 ed25519); the
    /// agent's confirmation or a hardware key's touch is the gate.
    Agent {
        key: String,
        signed_at: String,
        sig: String,
    },
}

/// The first line of the text an arbiter's act at a werewolf table is signed over.
pub const ACT_AUTH_HEADER: &str = "arbiter-kit werewolf act v1";

/// The text the arbiter's key signs to approve the act `command` (its control line) in the game
/// `origin` (`arbiter-kit/<match-id>/game-<n>`), signed at `signed_at` (RFC 3339, UTC).
pub fn act_authorization_text(origin: &str, command: &str, signed_at: &str) -> String {
    format!("{ACT_AUTH_HEADER}\n{origin}\nact {command}\nsigned-at {signed_at}\n")
}

/// What happens at the table. Every input carries `at_ms`: milliseconds since the game's start,
/// of a monotonic clock, stamped where the input arose (a frame by its seat's reader).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Input {
    /// The first input: deal, INITIALIZE to everyone, and the game's first steps.
    Begin {
        at_ms: u64,
    },
    /// A text frame as received (line breaks are stripped inside the core; the log keeps it raw).
    Frame {
        seat: usize,
        text: String,
        at_ms: u64,
    },
    Binary {
        seat: usize,
        len: u64,
        at_ms: u64,
    },
    Oversize {
        seat: usize,
        len: u64,
        at_ms: u64,
    },
    Closed {
        seat: usize,
        at_ms: u64,
    },
    Reconnected {
        seat: usize,
        at_ms: u64,
    },
    /// The loop reached [`deadline`].
    Tick {
        at_ms: u64,
    },
    Arbiter {
        act: Act,
        at_ms: u64,
    },
    /// An arbiter's act with how it was approved: an `approved` entry, then the act's.
    Approved {
        act: Act,
        command: String,
        approval: Approval,
        at_ms: u64,
    },
    /// A wrong passphrase at the game master's screen: recorded, nothing else happens.
    AuthorizationFailed {
        command: String,
        why: String,
        at_ms: u64,
    },
    /// The serving process restarted (and read the log back).
    Restarted {
        at_ms: u64,
        on_restart: OnRestart,
    },
}

impl Input {
    pub fn at_ms(&self) -> u64 {
        match self {
            Input::Begin { at_ms }
            | Input::Frame { at_ms, .. }
            | Input::Binary { at_ms, .. }
            | Input::Oversize { at_ms, .. }
            | Input::Closed { at_ms, .. }
            | Input::Reconnected { at_ms, .. }
            | Input::Tick { at_ms }
            | Input::Arbiter { at_ms, .. }
            | Input::Approved { at_ms, .. }
            | Input::AuthorizationFailed { at_ms, .. }
            | Input::Restarted { at_ms, .. } => *at_ms,
        }
    }
}

/// The events an input gives, or why it is refused (state unchanged, nothing to record).
pub fn decide(t: &Table, input: &Input) -> Result<Vec<Event>, Refusal> {
    flow::decide(t, input)
}

/// Apply one event to the table.
pub fn evolve(t: &mut Table, e: &Event) {
    t.apply(e)
}

/// When the loop must send [`Input::Tick`]: the awaited answer's deadline + grace, or the probe's;
/// `None` while paused, when nothing awaits an answer, or once the game is over.
pub fn deadline(t: &Table) -> Option<u64> {
    t.deadline()
}

/// The winner, once the game is over.
pub fn finished(t: &Table) -> Option<Winner> {
    t.winner()
}

/// A recorded game that does not re-run: the first event that differs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("werewolf replay: entry {index} ({kind}): {message}")]
pub struct Mismatch {
    /// Index of the event in the list given to [`replay`].
    pub index: usize,
    /// The recorded event's kind (or `(none)` past the end).
    pub kind: String,
    pub message: String,
    /// The event recorded there, if any.
    pub recorded: Option<Box<Event>>,
    /// The event the rules give there, if any.
    pub produced: Option<Box<Event>>,
}

/// Re-run a game: feed [`decide`] the inputs the events record and require every produced event
/// to equal the recorded one. Returns the table at the end.
pub fn replay(
    profile: &Profile,
    game_id: &str,
    seats: Vec<SeatSpec>,
    seed: &Seed,
    events: &[Event],
) -> Result<Table, Mismatch> {
    let mut t = Table::new(profile, game_id, seed, seats);
    let mut i = 0;
    while i < events.len() {
        let recorded = &events[i];
        let mismatch = |index: usize, message: String, produced: Option<&Event>| Mismatch {
            index,
            kind: events
                .get(index)
                .map(|e| e.kind().to_string())
                .unwrap_or_else(|| "(none)".into()),
            message,
            recorded: events.get(index).map(|e| Box::new(e.clone())),
            produced: produced.map(|e| Box::new(e.clone())),
        };
        let Some(input) = recorded.input() else {
            return Err(mismatch(
                i,
                "no input gives this event here (the rules give nothing more for the last input)"
                    .into(),
                None,
            ));
        };
        let produced = decide(&t, &input)
            .map_err(|r| mismatch(i, format!("the recorded input is refused: {r}"), None))?;
        if produced.is_empty() {
            return Err(mismatch(
                i,
                "the recorded input gives no event".into(),
                None,
            ));
        }
        for (k, p) in produced.iter().enumerate() {
            match events.get(i + k) {
                Some(r) if r == p => evolve(&mut t, p),
                Some(r) => {
                    return Err(mismatch(
                        i + k,
                        format!(
                            "recorded {} {}, the rules give {} {}",
                            r.kind(),
                            r.body(),
                            p.kind(),
                            p.body()
                        ),
                        Some(p),
                    ));
                }
                None => {
                    return Err(mismatch(
                        i + k,
                        format!("the log ends; the rules give {} {}", p.kind(), p.body()),
                        Some(p),
                    ));
                }
            }
        }
        i += produced.len();
    }
    Ok(t)
}

/// The `table` part of line 0: the game, its seats as connected, and the seed's commitment.
pub fn line0_body(
    profile: &Profile,
    game_id: &str,
    seats: &[SeatSpec],
    commitment: &str,
) -> serde_json::Value {
    serde_json::json!({
        "game_id": game_id,
        "profile": profile.profile.name,
        "seats": seats
            .iter()
            .enumerate()
            .map(|(i, s)| serde_json::json!({"seat": i, "name": s.name, "team": s.team, "human": s.human}))
            .collect::<Vec<_>>(),
        "seed_sha256": commitment,
    })
}
