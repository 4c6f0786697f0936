//! What a werewolf table's log records: one [`Event`] per entry, its `kind`, the section it
//! cites, who acts, and its body as JSON (read back by [`Event::from_entry`]).
use serde::{Deserialize, Serialize};

use super::profile::{Action, OnRestart, Role, Species, Winner};
use super::sections as s;

/// A request of the protocol (model/request.go), spelled as on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Request {
    Name,
    Initialize,
    DailyInitialize,
    Talk,
    Whisper,
    DailyFinish,
    Vote,
    Divine,
    Guard,
    Attack,
    Finish,
}

impl Request {
    pub fn name(self) -> &'static str {
        match self {
            Request::Name => "NAME",
            Request::Initialize => "INITIALIZE",
            Request::DailyInitialize => "DAILY_INITIALIZE",
            Request::Talk => "TALK",
            Request::Whisper => "WHISPER",
            Request::DailyFinish => "DAILY_FINISH",
            Request::Vote => "VOTE",
            Request::Divine => "DIVINE",
            Request::Guard => "GUARD",
            Request::Attack => "ATTACK",
            Request::Finish => "FINISH",
        }
    }
    /// Whether the seat must answer (INITIALIZE, DAILY_INITIALIZE, DAILY_FINISH and FINISH are
    /// sent and the game goes on at once).
    pub fn needs_answer(self) -> bool {
        !matches!(
            self,
            Request::Initialize | Request::DailyInitialize | Request::DailyFinish | Request::Finish
        )
    }
}

/// Talk or whisper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    Talk,
    Whisper,
}

impl Channel {
    pub fn name(self) -> &'static str {
        match self {
            Channel::Talk => "talk",
            Channel::Whisper => "whisper",
        }
    }
}

/// The day's vote or the werewolves' attack vote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ballot {
    Vote,
    Attack,
}

impl Ballot {
    pub fn name(self) -> &'static str {
        match self {
            Ballot::Vote => "vote",
            Ballot::Attack => "attack",
        }
    }
}

/// Day or night.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    Day,
    Night,
}

/// What the referee made of a text frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The answer to the request awaited from this seat, within action timeout + grace.
    OnTime,
    /// The answer came after action timeout + grace, before any answer to the probe: the
    /// request failed and the seat is in error for the rest of the game (model/agent.go).
    Late,
    /// The seat's own name, answering the NAME probe: the seat stays, the request failed.
    ProbeAnswered,
    /// Anything but the seat's name (the late answer first, say), or the name too late, after
    /// the probe: the seat is in error for the rest of the game.
    ProbeFailed,
    /// No request awaits an answer from this seat: recorded, never taken as an answer.
    Unsolicited,
}

/// How an utterance counts (logic/communication.go).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TalkKind {
    /// Text (possibly cut, possibly turned into `Over` when nothing is left).
    Said,
    /// `Skip` within `max_skip`.
    Skip,
    /// The request failed (timeout, probe, closed, seat in error): recorded as `Skip`, not
    /// charged to `max_skip`.
    ForcedSkip,
    /// `Over`, or a `Skip` past `max_skip`: no more talk from this seat today.
    Over,
}

/// Why a named target does not count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Invalid {
    /// No seat plays a character of that name (exact match).
    Unknown,
    /// The seat named is dead.
    Dead,
    /// The seat named itself where the rules do not allow it.
    #[serde(rename = "self")]
    SelfTarget,
    /// A werewolf's attack vote for a werewolf: in the list, not counted.
    Werewolf,
}

impl Invalid {
    pub fn name(self) -> &'static str {
        match self {
            Invalid::Unknown => "unknown",
            Invalid::Dead => "dead",
            Invalid::SelfTarget => "self",
            Invalid::Werewolf => "werewolf",
        }
    }
}

/// Which wait ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Action timeout + grace: the NAME probe goes out.
    Action,
    /// The probe's response timeout: the seat is in error.
    Probe,
}

/// One seat's deal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealtSeat {
    pub seat: usize,
    /// The character's name: the seat's name at the table.
    pub name: String,
    pub role: Role,
    /// The character's index in the profile's list, when the profile has characters.
    pub character: Option<usize>,
}

/// One entry of a werewolf game's log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[strum(serialize_all = "snake_case")]
pub enum Event {
    // ----- inputs, each recorded as it came -----
    /// The game begins (the shell's first input).
    GameBegun { at_ms: u64 },
    /// A text frame, raw as received, with the referee's verdict.
    FrameReceived {
        seat: usize,
        at_ms: u64,
        text: String,
        /// The request awaited from this seat, if any.
        request: Option<Request>,
        verdict: Verdict,
    },
    /// A binary frame: refused (the protocol answers in text), recorded, the request still waits.
    BinaryFrame { seat: usize, at_ms: u64, len: u64 },
    /// A frame over the profile's limit: refused, recorded, the seat stays, the request still waits.
    OversizeFrame {
        seat: usize,
        at_ms: u64,
        len: u64,
        limit: u64,
    },
    /// The seat's connection closed.
    ConnectionClosed { seat: usize, at_ms: u64 },
    /// The seat connected again (after a restart of the serving process).
    Reconnected { seat: usize, at_ms: u64 },
    /// A wait ran out (the shell's tick at the deadline).
    TimedOut {
        seat: usize,
        at_ms: u64,
        request: Request,
        stage: Stage,
    },
    /// The arbiter pauses the table: no deadline runs.
    Paused { at_ms: u64, reason: String },
    /// The table runs again; the awaited answer's deadline moves by the pause.
    Resumed {
        at_ms: u64,
        paused_ms: u64,
        /// The arbiter resumed (true) or every seat was back after a restart (false).
        by_arbiter: bool,
    },
    /// The arbiter's note.
    Noted { at_ms: u64, text: String },
    /// The arbiter takes a seat out: in error for the rest of the game unless readmitted.
    Ejected {
        at_ms: u64,
        seat: usize,
        reason: String,
    },
    /// The arbiter lets a seat in error play again.
    Readmitted { at_ms: u64, seat: usize },
    /// The arbiter ends the game with a ruling.
    Ruled {
        at_ms: u64,
        winner: Winner,
        reason: String,
    },
    /// How the arbiter's act that follows (in the same decision) was approved.
    Approved {
        at_ms: u64,
        /// The act as its control line (what a signature covers).
        command: String,
        act: super::Act,
        approval: super::Approval,
    },
    /// A wrong passphrase at the game master's screen: nothing reached the table.
    AuthorizationFailed {
        at_ms: u64,
        command: String,
        why: String,
    },
    /// The serving process restarted; the profile says whether the game resumes or ends.
    Restarted { at_ms: u64, on_restart: OnRestart },

    // ----- the game -----
    /// Roles and characters dealt from the seed.
    Dealt { seats: Vec<DealtSeat> },
    /// A frame the shell must send to a seat once this entry is on disk.
    Sent {
        seat: usize,
        request: Request,
        frame: String,
        /// When the answer is due (ms since the game's start), for requests that need one;
        /// the grace (`acceptable_ms`) comes on top before the probe.
        deadline_ms: Option<u64>,
    },
    /// A seat is in error for the rest of the game: no more requests go to it.
    SeatInError { seat: usize, reason: String },
    /// A request got no usable answer.
    RequestFailed {
        seat: usize,
        request: Request,
        consequence: String,
    },
    /// A day begins (DAILY_INITIALIZE follows).
    DayBegun { day: u32 },
    /// The night begins (DAILY_FINISH follows).
    NightBegun { day: u32 },
    /// A phase begins; `order` is who is asked, in order (drawn from the seed for talk).
    PhaseBegun {
        day: u32,
        part: Part,
        index: usize,
        name: String,
        action: Action,
        order: Vec<usize>,
    },
    /// A new turn of talk or whisper.
    TurnBegun {
        day: u32,
        turn: u32,
        order: Vec<usize>,
    },
    /// A phase is over.
    PhaseEnded {
        day: u32,
        name: String,
        action: Action,
        reason: String,
    },
    /// An utterance cut to the length limits: raw, counted lengths and the text the table saw.
    TalkCut {
        seat: usize,
        channel: Channel,
        raw: String,
        base: u32,
        mention: u32,
        mention_name: Option<String>,
        base_limit: u32,
        mention_limit: u32,
        per_talk: Option<u32>,
        text: String,
    },
    /// An answer the table took as something else (`Skip` past `max_skip` as `Over`, an empty
    /// text as `Over`, `ForceSkip` as `Skip`).
    TalkReplaced {
        seat: usize,
        channel: Channel,
        raw: String,
        text: String,
        reason: String,
    },
    /// An utterance as the table saw it (also in the seats' histories).
    Talked {
        seat: usize,
        channel: Channel,
        day: u32,
        turn: u32,
        idx: u32,
        text: String,
        counts_as: TalkKind,
    },
    /// A target that does not count, and why.
    TargetInvalid {
        seat: usize,
        request: Request,
        answer: String,
        reason: Invalid,
    },
    /// A vote (or attack vote) taken.
    Voted {
        seat: usize,
        ballot: Ballot,
        day: u32,
        target: usize,
    },
    /// A round's count: `counts` as (seat, votes), the most voted.
    Tallied {
        ballot: Ballot,
        day: u32,
        round: u32,
        counts: Vec<(usize, u32)>,
        candidates: Vec<usize>,
        /// Tied with rounds left: the vote is held again.
        again: bool,
    },
    /// A tie drawn from the seed.
    TieBroken {
        ballot: Ballot,
        day: u32,
        candidates: Vec<usize>,
        chosen: usize,
        label: String,
    },
    /// The seat executed; the medium will learn its species.
    Executed {
        day: u32,
        seat: usize,
        role: Role,
        species: Species,
    },
    /// Nobody executed (no valid vote).
    NoExecution { day: u32 },
    /// The seer's result.
    Divined {
        day: u32,
        seer: usize,
        target: usize,
        species: Species,
    },
    /// The bodyguard's choice.
    Guarded {
        day: u32,
        guard: usize,
        target: usize,
    },
    /// The werewolves' attack: the target dies unless guarded.
    Attacked {
        day: u32,
        target: usize,
        guarded: bool,
    },
    /// No attack (no valid vote, or a tie where the rules allow no target).
    NoAttack { day: u32, reason: String },
    /// The game is over: the winner, why, who is alive, and the seed revealed (hex).
    GameEnded {
        day: u32,
        winner: Winner,
        reason: String,
        humans: u32,
        werewolves: u32,
        seed: String,
    },
}

/// A log entry that is not a werewolf event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("werewolf entry {kind:?}: {message}")]
pub struct DecodeError {
    pub kind: String,
    pub message: String,
}

impl Event {
    /// The entry's `kind` (snake case).
    pub fn kind(&self) -> &'static str {
        self.into()
    }

    /// Who acts: `"arbiter"` for the arbiter's acts, `"kit"` for everything else.
    pub fn actor(&self) -> &'static str {
        match self {
            Event::Paused { .. }
            | Event::Noted { .. }
            | Event::Ejected { .. }
            | Event::Readmitted { .. }
            | Event::Ruled { .. }
            | Event::Approved { .. }
            | Event::Resumed {
                by_arbiter: true, ..
            } => "arbiter",
            _ => "kit",
        }
    }

    /// The regulation section or server behaviour the entry cites (the entry's `clause`).
    pub fn section(&self) -> &'static str {
        match self {
            Event::GameBegun { .. } | Event::DayBegun { .. } | Event::NightBegun { .. } => s::DAY,
            Event::FrameReceived { verdict, .. } => match verdict {
                Verdict::OnTime => s::PROTOCOL,
                Verdict::Late | Verdict::ProbeAnswered | Verdict::ProbeFailed => s::TIMEOUT,
                Verdict::Unsolicited => s::UNSOLICITED,
            },
            Event::BinaryFrame { .. } => s::BINARY,
            Event::OversizeFrame { .. } => s::OVERSIZE,
            Event::ConnectionClosed { .. } | Event::Reconnected { .. } => s::CLOSED,
            Event::TimedOut { .. } => s::TIMEOUT,
            Event::Resumed {
                by_arbiter: false, ..
            } => s::RESTART,
            Event::Paused { .. }
            | Event::Resumed { .. }
            | Event::Noted { .. }
            | Event::Ejected { .. }
            | Event::Readmitted { .. }
            | Event::Ruled { .. }
            | Event::Approved { .. }
            | Event::AuthorizationFailed { .. } => s::ARBITER,
            Event::Restarted { .. } => s::RESTART,
            Event::Dealt { .. } => s::ROLES,
            Event::Sent { .. } => s::PROTOCOL,
            Event::SeatInError { .. } => s::TIMEOUT,
            Event::RequestFailed { .. } => s::TIMEOUT,
            Event::PhaseBegun { action, .. } | Event::PhaseEnded { action, .. } => match action {
                Action::Talk | Action::Whisper => s::TALK,
                Action::Execution => s::VOTE,
                Action::Divine => s::DIVINE,
                Action::Guard => s::GUARD,
                Action::Attack => s::ATTACK,
            },
            Event::TurnBegun { .. } => s::TALK,
            Event::TalkCut { .. } => s::LENGTH,
            Event::TalkReplaced { .. } => s::SKIP,
            Event::Talked { .. } => s::TALK,
            Event::TargetInvalid { reason, .. } => match reason {
                Invalid::Werewolf => s::ATTACK,
                _ => s::TARGETS,
            },
            Event::Voted {
                ballot: Ballot::Vote,
                ..
            }
            | Event::Tallied {
                ballot: Ballot::Vote,
                ..
            }
            | Event::Executed { .. }
            | Event::NoExecution { .. } => s::VOTE,
            Event::Voted { .. } | Event::Tallied { .. } => s::ATTACK,
            Event::TieBroken { .. } => s::TIE,
            Event::Divined { .. } => s::DIVINE,
            Event::Guarded { .. } => s::GUARD,
            Event::Attacked { .. } | Event::NoAttack { .. } => s::ATTACK,
            Event::GameEnded { winner, .. } => match winner {
                Winner::None => s::ERRORS,
                _ => s::WIN,
            },
        }
    }

    /// The entry's body: the event's fields as a JSON object (without `kind`).
    pub fn body(&self) -> serde_json::Value {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(mut m)) => {
                m.remove("kind");
                serde_json::Value::Object(m)
            }
            _ => serde_json::Value::Null,
        }
    }

    /// The event an entry of `kind` with `body` records.
    pub fn from_entry(kind: &str, body: &serde_json::Value) -> Result<Event, DecodeError> {
        let err = |message: String| DecodeError {
            kind: kind.to_string(),
            message,
        };
        let mut m = match body {
            serde_json::Value::Object(m) => m.clone(),
            _ => return Err(err("the body is not an object".into())),
        };
        m.insert("kind".into(), serde_json::Value::String(kind.to_string()));
        serde_json::from_value(serde_json::Value::Object(m)).map_err(|e| err(e.to_string()))
    }

    /// The input this event records, when it is the first event of an input.
    pub fn input(&self) -> Option<super::Input> {
        use super::{Act, Input};
        Some(match self {
            Event::GameBegun { at_ms } => Input::Begin { at_ms: *at_ms },
            Event::FrameReceived {
                seat, at_ms, text, ..
            } => Input::Frame {
                seat: *seat,
                text: text.clone(),
                at_ms: *at_ms,
            },
            Event::BinaryFrame { seat, at_ms, len } => Input::Binary {
                seat: *seat,
                len: *len,
                at_ms: *at_ms,
            },
            Event::OversizeFrame {
                seat, at_ms, len, ..
            } => Input::Oversize {
                seat: *seat,
                len: *len,
                at_ms: *at_ms,
            },
            Event::ConnectionClosed { seat, at_ms } => Input::Closed {
                seat: *seat,
                at_ms: *at_ms,
            },
            Event::Reconnected { seat, at_ms } => Input::Reconnected {
                seat: *seat,
                at_ms: *at_ms,
            },
            Event::TimedOut { at_ms, .. } => Input::Tick { at_ms: *at_ms },
            Event::Paused { at_ms, reason } => Input::Arbiter {
                at_ms: *at_ms,
                act: Act::Pause {
                    reason: reason.clone(),
                },
            },
            Event::Resumed {
                at_ms,
                by_arbiter: true,
                ..
            } => Input::Arbiter {
                at_ms: *at_ms,
                act: Act::Resume,
            },
            Event::Noted { at_ms, text } => Input::Arbiter {
                at_ms: *at_ms,
                act: Act::Note { text: text.clone() },
            },
            Event::Ejected {
                at_ms,
                seat,
                reason,
            } => Input::Arbiter {
                at_ms: *at_ms,
                act: Act::Eject {
                    seat: *seat,
                    reason: reason.clone(),
                },
            },
            Event::Readmitted { at_ms, seat } => Input::Arbiter {
                at_ms: *at_ms,
                act: Act::Readmit { seat: *seat },
            },
            Event::Ruled {
                at_ms,
                winner,
                reason,
            } => Input::Arbiter {
                at_ms: *at_ms,
                act: Act::End {
                    winner: *winner,
                    reason: reason.clone(),
                },
            },
            Event::Approved {
                at_ms,
                command,
                act,
                approval,
            } => Input::Approved {
                at_ms: *at_ms,
                command: command.clone(),
                act: act.clone(),
                approval: approval.clone(),
            },
            Event::AuthorizationFailed {
                at_ms,
                command,
                why,
            } => Input::AuthorizationFailed {
                at_ms: *at_ms,
                command: command.clone(),
                why: why.clone(),
            },
            Event::Restarted { at_ms, on_restart } => Input::Restarted {
                at_ms: *at_ms,
                on_restart: *on_restart,
            },
            _ => return None,
        })
    }
}
