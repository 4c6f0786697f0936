//! A werewolf game after the game (PURE): the game read back from its log entries, re-run from
//! its recorded inputs and revealed seed, and written as the contest's own files (the official
//! server's `.log` and `.json`), as the committee's HTML page and as the `status` text.
//!
//! Everything here is made from the entries the shell hands in; nothing reads a clock or a file.
use std::collections::BTreeMap;
use std::fmt::Write as _;

use chrono::DateTime;
use serde::Serialize;

use crate::core::werewolf::{
    self as ww, Ballot, Channel, Event, Mismatch, Profile, Request, Role, SeatSpec, Seed, Verdict,
    Winner,
};
use crate::log::Entry;

use super::html::escape;

/// One event of the game with what its entry says around it.
#[derive(Debug, Clone)]
pub struct Stamped {
    pub seq: u64,
    pub utc: String,
    pub mono_ms: u64,
    pub actor: String,
    pub clause: String,
    pub event: Event,
}

/// A werewolf game as its log records it.
#[derive(Debug, Clone)]
pub struct Record {
    pub match_id: String,
    pub game: u32,
    pub game_id: String,
    pub profile: Profile,
    /// The profile's name as line 0 gives it.
    pub profile_name: String,
    pub seats: Vec<SeatSpec>,
    /// SHA-256 of the seed, committed in line 0.
    pub commitment: String,
    /// When line 0 was written.
    pub opened_utc: String,
    pub events: Vec<Stamped>,
    /// Entries the journal wrote itself (a torn tail cut at a reopen): seq and body.
    pub recoveries: Vec<(u64, serde_json::Value)>,
}

/// Why entries cannot be read as a werewolf game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("the log is empty")]
    Empty,
    #[error("line 0 is not a werewolf table's: {0}")]
    Line0(String),
    #[error("line 0's profile does not parse: {0}")]
    Profile(String),
    #[error("entry #{seq}: {message}")]
    Entry { seq: u64, message: String },
}

/// Whether line 0 opens a werewolf game (its profile text is a werewolf profile).
pub fn is_werewolf_game(line0: &Entry) -> bool {
    line0.kind == "game_opened"
        && line0
            .body
            .get("profile")
            .and_then(|p| p.get("toml"))
            .and_then(|t| t.as_str())
            .is_some_and(ww::is_werewolf)
}

fn text<'a>(v: &'a serde_json::Value, path: &[&str]) -> Option<&'a str> {
    let mut v = v;
    for p in path {
        v = v.get(*p)?;
    }
    v.as_str()
}

/// Read a werewolf game from its entries (line 0 first, in log order).
pub fn read(entries: &[Entry]) -> Result<Record, RecordError> {
    let first = entries.first().ok_or(RecordError::Empty)?;
    if !is_werewolf_game(first) {
        return Err(RecordError::Line0(
            "no werewolf profile in `profile.toml`".into(),
        ));
    }
    let b = &first.body;
    let toml = text(b, &["profile", "toml"]).unwrap_or_default();
    let profile = Profile::parse(toml).map_err(|e| RecordError::Profile(e.to_string()))?;
    let table = b
        .get("table")
        .ok_or_else(|| RecordError::Line0("no `table` object".into()))?;
    let seats = table
        .get("seats")
        .and_then(|s| s.as_array())
        .ok_or_else(|| RecordError::Line0("no `table.seats` list".into()))?
        .iter()
        .map(|s| {
            Some(SeatSpec {
                name: s.get("name")?.as_str()?.to_owned(),
                team: s.get("team")?.as_str()?.to_owned(),
                human: s.get("human")?.as_bool()?,
            })
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| RecordError::Line0("a seat lacks name, team or human".into()))?;
    let mut events = Vec::with_capacity(entries.len());
    let mut recoveries = Vec::new();
    for e in &entries[1..] {
        if e.kind == crate::log::RECOVERY_KIND {
            recoveries.push((e.seq, e.body.clone()));
            continue;
        }
        let event = Event::from_entry(&e.kind, &e.body).map_err(|d| RecordError::Entry {
            seq: e.seq,
            message: d.to_string(),
        })?;
        events.push(Stamped {
            seq: e.seq,
            utc: e.utc.clone(),
            mono_ms: e.mono_ms,
            actor: e.actor.clone(),
            clause: e.clause.clone(),
            event,
        });
    }
    Ok(Record {
        match_id: text(b, &["match_id"]).unwrap_or("?").to_owned(),
        game: b.get("game").and_then(|g| g.as_u64()).unwrap_or(0) as u32,
        game_id: text(table, &["game_id"]).unwrap_or("?").to_owned(),
        profile_name: text(b, &["profile", "name"]).unwrap_or("?").to_owned(),
        profile,
        seats,
        commitment: text(table, &["seed_sha256"]).unwrap_or_default().to_owned(),
        opened_utc: first.utc.clone(),
        events,
        recoveries,
    })
}

/// What re-running a recorded game gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rerun {
    /// Every event the rules give from the recorded inputs and the revealed seed is the one
    /// recorded, with the actor and the section the rules name.
    Agrees { events: usize },
    /// The game has not ended: its seed is not revealed yet, so it cannot be re-run.
    Unfinished,
    /// The revealed seed does not hash to line 0's commitment.
    SeedMismatch { revealed: String, committed: String },
    /// An entry names another actor or section than its event's.
    Label {
        seq: u64,
        field: &'static str,
        recorded: String,
        rules: String,
    },
    /// The first event that differs.
    Differs { seq: u64, mismatch: Box<Mismatch> },
}

impl Rerun {
    /// Whether the log disagrees with the rules (a committee's failure).
    pub fn fails(&self) -> bool {
        !matches!(self, Rerun::Agrees { .. } | Rerun::Unfinished)
    }
    pub fn describe(&self) -> String {
        match self {
            Rerun::Agrees { events } => format!(
                "re-run from the recorded inputs and the revealed seed: all {events} events agree"
            ),
            Rerun::Unfinished => {
                "not re-run: the game has not ended, its seed is revealed only by its last entry"
                    .into()
            }
            Rerun::SeedMismatch {
                revealed,
                committed,
            } => format!(
                "the revealed seed hashes to {revealed}, line 0 committed to {committed}: the game was not dealt from the seed it reveals"
            ),
            Rerun::Label {
                seq,
                field,
                recorded,
                rules,
            } => format!(
                "entry #{seq} names {field} {recorded:?}; the rules give this event to {rules:?}"
            ),
            Rerun::Differs { seq, mismatch } => format!("entry #{seq}: {}", mismatch.message),
        }
    }
}

/// Re-run the game: the seed revealed by the last entry against line 0's commitment, each
/// entry's actor and section against its event's, then [`ww::replay`] over every event.
pub fn rerun(r: &Record) -> Rerun {
    let revealed = r.events.iter().rev().find_map(|s| match &s.event {
        Event::GameEnded { seed, .. } => Some(seed.clone()),
        _ => None,
    });
    let Some(hex) = revealed else {
        return Rerun::Unfinished;
    };
    let Some(seed) = Seed::from_hex(&hex) else {
        return Rerun::SeedMismatch {
            revealed: format!("(not 64 hex digits: {hex:?})"),
            committed: r.commitment.clone(),
        };
    };
    if seed.commitment() != r.commitment {
        return Rerun::SeedMismatch {
            revealed: seed.commitment(),
            committed: r.commitment.clone(),
        };
    }
    for s in &r.events {
        if s.actor != s.event.actor() {
            return Rerun::Label {
                seq: s.seq,
                field: "actor",
                recorded: s.actor.clone(),
                rules: s.event.actor().into(),
            };
        }
        if s.clause != s.event.section() {
            return Rerun::Label {
                seq: s.seq,
                field: "clause",
                recorded: s.clause.clone(),
                rules: s.event.section().into(),
            };
        }
    }
    let events: Vec<Event> = r.events.iter().map(|s| s.event.clone()).collect();
    match ww::replay(&r.profile, &r.game_id, r.seats.clone(), &seed, &events) {
        Ok(_) => Rerun::Agrees {
            events: events.len(),
        },
        Err(m) => Rerun::Differs {
            seq: r.events.get(m.index).map_or(0, |s| s.seq),
            mismatch: Box::new(m),
        },
    }
}

/// A seat as dealt: its character's name and role (from the `dealt` entry).
#[derive(Debug, Clone, Default)]
struct Deal {
    names: Vec<String>,
    roles: Vec<Option<Role>>,
}

fn deal(r: &Record) -> Deal {
    let mut d = Deal {
        names: r.seats.iter().map(|s| s.name.clone()).collect(),
        roles: vec![None; r.seats.len()],
    };
    for s in &r.events {
        if let Event::Dealt { seats } = &s.event {
            for x in seats {
                if x.seat < d.names.len() {
                    d.names[x.seat] = x.name.clone();
                    d.roles[x.seat] = Some(x.role);
                }
            }
        }
    }
    d
}

fn role_name(r: Option<Role>) -> &'static str {
    r.map_or("NONE", Role::name)
}

/// A warning about the official `.log`: a text whose comma the official CSV reader splits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommaWarning {
    pub day: u32,
    pub channel: Channel,
    pub idx: u32,
    pub seat: usize,
    pub text: String,
}

impl std::fmt::Display for CommaWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "day {} {} #{} by seat {}: the text holds a comma, which the official .log does not quote; its readers split it there: {:?}",
            self.day,
            self.channel.name(),
            self.idx,
            self.seat + 1,
            self.text
        )
    }
}

/// The official server's game log (`log/game/*.log`, CSV without quoting), line for line as
/// the official server writes it, with the texts whose commas its readers would split.
pub fn aiwolf_log(r: &Record) -> (String, Vec<CommaWarning>) {
    let d = deal(r);
    let n = r.seats.len();
    let mut alive = vec![true; n];
    let mut out = String::new();
    let mut warnings = Vec::new();
    let mut day = 0u32;
    let status = |out: &mut String, day: u32, alive: &[bool]| {
        for (i, a) in alive.iter().enumerate() {
            let _ = writeln!(
                out,
                "{day},status,{},{},{},{},{}",
                i + 1,
                role_name(d.roles[i]),
                if *a { "ALIVE" } else { "DEAD" },
                r.seats[i].name,
                d.names[i]
            );
        }
    };
    for s in &r.events {
        match &s.event {
            Event::DayBegun { day: x } => {
                day = *x;
                status(&mut out, day, &alive);
            }
            Event::NightBegun { day: x } => day = *x,
            Event::Talked {
                seat,
                channel,
                day: dd,
                turn,
                idx,
                text,
                ..
            } => {
                if text.contains(',') {
                    warnings.push(CommaWarning {
                        day: *dd,
                        channel: *channel,
                        idx: *idx,
                        seat: *seat,
                        text: text.clone(),
                    });
                }
                let _ = writeln!(
                    out,
                    "{dd},{},{idx},{turn},{},{text}",
                    channel.name(),
                    seat + 1
                );
            }
            Event::Voted {
                seat,
                ballot,
                day: dd,
                target,
            } => {
                let word = match ballot {
                    Ballot::Vote => "vote",
                    Ballot::Attack => "attackVote",
                };
                let _ = writeln!(out, "{dd},{word},{},{}", seat + 1, target + 1);
            }
            Event::Executed {
                day: dd,
                seat,
                role,
                ..
            } => {
                if *seat < n {
                    alive[*seat] = false;
                }
                let _ = writeln!(out, "{dd},execute,{},{}", seat + 1, role.name());
            }
            Event::Divined {
                day: dd,
                seer,
                target,
                species,
            } => {
                let _ = writeln!(
                    out,
                    "{dd},divine,{},{},{}",
                    seer + 1,
                    target + 1,
                    species.name()
                );
            }
            Event::Guarded {
                day: dd,
                guard,
                target,
            } => {
                let _ = writeln!(
                    out,
                    "{dd},guard,{},{},{}",
                    guard + 1,
                    target + 1,
                    role_name(d.roles.get(*target).copied().flatten())
                );
            }
            Event::Attacked {
                day: dd,
                target,
                guarded,
            } => {
                if !guarded && *target < n {
                    alive[*target] = false;
                }
                let _ = writeln!(out, "{dd},attack,{},{}", target + 1, !guarded);
            }
            Event::NoAttack { day: dd, .. } => {
                let _ = writeln!(out, "{dd},attack,-1,true");
            }
            Event::GameEnded {
                day: dd,
                winner,
                humans,
                werewolves,
                ..
            } => {
                status(&mut out, *dd, &alive);
                let _ = writeln!(out, "{dd},result,{humans},{werewolves},{}", winner.name());
            }
            _ => {}
        }
    }
    let _ = day;
    (out, warnings)
}

/// Milliseconds since the Unix epoch of an entry's `utc`.
fn epoch_ms(utc: &str) -> i64 {
    DateTime::parse_from_rfc3339(utc).map_or(0, |t| t.timestamp_millis())
}

#[derive(Serialize)]
struct JsonAgent<'a> {
    idx: usize,
    team: &'a str,
    name: &'a str,
    role: &'static str,
}

/// The official server's JSON log (`log/json/*.json`): the seats and one entry per request
/// with its answer, as calculate-score and llm-judge read it.
pub fn aiwolf_json(r: &Record) -> String {
    let d = deal(r);
    let agents: Vec<JsonAgent<'_>> = r
        .seats
        .iter()
        .enumerate()
        .map(|(i, s)| JsonAgent {
            idx: i + 1,
            team: &s.team,
            name: &s.name,
            role: role_name(d.roles[i]),
        })
        .collect();
    let mut entries: Vec<serde_json::Value> = Vec::new();
    // The request each seat is asked (its index in `entries`), until its answer or failure.
    let mut open: BTreeMap<usize, usize> = BTreeMap::new();
    let mut winner = Winner::None;
    for s in &r.events {
        let at = epoch_ms(&s.utc);
        match &s.event {
            Event::Sent {
                seat,
                request,
                frame,
                ..
            } if *request != Request::Name || !open.contains_key(seat) => {
                let mut e = serde_json::json!({
                    "agent": d.names.get(*seat).cloned().unwrap_or_default(),
                    "request": frame,
                    "request_timestamp": at,
                });
                if request.needs_answer() {
                    open.insert(*seat, entries.len());
                } else if let Some(o) = e.as_object_mut() {
                    o.insert("response_timestamp".into(), at.into());
                }
                entries.push(e);
            }
            Event::FrameReceived {
                seat,
                text,
                verdict,
                ..
            } if *verdict != Verdict::Unsolicited => {
                if let Some(i) = open.remove(seat)
                    && let Some(o) = entries[i].as_object_mut()
                {
                    o.insert("response_timestamp".into(), at.into());
                    let answer = text.replace(['\n', '\r'], "");
                    match verdict {
                        Verdict::OnTime => {
                            if !answer.is_empty() {
                                o.insert("response".into(), answer.into());
                            }
                        }
                        Verdict::ProbeAnswered => {
                            o.insert(
                                "error".into(),
                                "no answer within the time limit; the seat answered the NAME probe"
                                    .into(),
                            );
                        }
                        _ => {
                            o.insert(
                                "error".into(),
                                format!("{} answer: the seat is in error", verdict_name(*verdict))
                                    .into(),
                            );
                        }
                    }
                }
            }
            Event::ConnectionClosed { seat, .. } | Event::RequestFailed { seat, .. } => {
                if let Some(i) = open.remove(seat)
                    && let Some(o) = entries[i].as_object_mut()
                {
                    o.insert("response_timestamp".into(), at.into());
                    o.insert("error".into(), s.event.kind().into());
                }
            }
            Event::GameEnded { winner: w, .. } => winner = *w,
            _ => {}
        }
    }
    let v = serde_json::json!({
        "game_id": r.game_id,
        "win_side": winner.name(),
        "agents": agents,
        "entries": entries,
    });
    serde_json::to_string(&v).unwrap_or_default()
}

fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::OnTime => "on time",
        Verdict::Late => "late",
        Verdict::ProbeAnswered => "probe answered",
        Verdict::ProbeFailed => "probe failed",
        Verdict::Unsolicited => "unsolicited",
    }
}

/// One seat's answers: how long each took, from the request's start (its deadline minus the
/// action timeout) to the frame's receipt by the seat's reader.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SeatTimes {
    pub seat: usize,
    pub human: bool,
    pub answers: usize,
    pub median_ms: Option<u64>,
    pub p90_ms: Option<u64>,
    pub max_ms: Option<u64>,
    pub late: usize,
    pub timeouts: usize,
}

/// Every seat's response times (humans are marked, so the report shows them apart).
pub fn response_times(r: &Record) -> Vec<SeatTimes> {
    let action = r.profile.timeouts.action_ms;
    let mut started: BTreeMap<usize, u64> = BTreeMap::new();
    let mut took: Vec<Vec<u64>> = vec![Vec::new(); r.seats.len()];
    let mut out: Vec<SeatTimes> = r
        .seats
        .iter()
        .enumerate()
        .map(|(i, s)| SeatTimes {
            seat: i,
            human: s.human,
            ..SeatTimes::default()
        })
        .collect();
    for s in &r.events {
        match &s.event {
            Event::Sent {
                seat,
                request,
                deadline_ms: Some(d),
                ..
            } if *request != Request::Name => {
                started.insert(*seat, d.saturating_sub(action));
            }
            Event::FrameReceived {
                seat,
                at_ms,
                verdict,
                ..
            } if *seat < out.len() => match verdict {
                Verdict::OnTime => {
                    if let Some(t0) = started.remove(seat) {
                        took[*seat].push(at_ms.saturating_sub(t0));
                    }
                }
                Verdict::Late | Verdict::ProbeFailed => {
                    started.remove(seat);
                    out[*seat].late += 1;
                }
                Verdict::ProbeAnswered | Verdict::Unsolicited => {}
            },
            Event::TimedOut {
                seat,
                stage: ww::Stage::Action,
                ..
            } if *seat < out.len() => {
                out[*seat].timeouts += 1;
            }
            _ => {}
        }
    }
    for (o, mut t) in out.iter_mut().zip(took) {
        t.sort_unstable();
        o.answers = t.len();
        let at = |q: usize| t.get((t.len().saturating_sub(1) * q) / 100).copied();
        if !t.is_empty() {
            o.median_ms = at(50);
            o.p90_ms = at(90);
            o.max_ms = t.last().copied();
        }
    }
    out
}

/// An incident: anything the referee names that is not an answer on time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Incident {
    pub seq: u64,
    pub mono_ms: u64,
    pub kind: &'static str,
    pub section: String,
    pub seat: Option<usize>,
    pub what: String,
}

/// Every incident of the game, in log order.
pub fn incidents(r: &Record) -> Vec<Incident> {
    let d = deal(r);
    let who = |seat: usize| {
        format!(
            "seat {} ({}, {})",
            seat + 1,
            d.names.get(seat).map_or("?", String::as_str),
            r.seats.get(seat).map_or("?", |s| s.name.as_str())
        )
    };
    let mut out = Vec::new();
    for s in &r.events {
        let (seat, what) = match &s.event {
            Event::FrameReceived {
                seat,
                text,
                request,
                verdict,
                ..
            } if *verdict != Verdict::OnTime => (
                Some(*seat),
                format!(
                    "{} frame from {} ({}): {:?}",
                    verdict_name(*verdict),
                    who(*seat),
                    request.map_or("no request awaited".into(), |q| format!(
                        "awaiting {}",
                        q.name()
                    )),
                    text
                ),
            ),
            Event::BinaryFrame { seat, len, .. } => (
                Some(*seat),
                format!("binary frame of {len} bytes from {}: refused", who(*seat)),
            ),
            Event::OversizeFrame {
                seat, len, limit, ..
            } => (
                Some(*seat),
                format!(
                    "frame of {len} bytes from {} over the limit of {limit}: refused, the seat stays",
                    who(*seat)
                ),
            ),
            Event::ConnectionClosed { seat, .. } => {
                (Some(*seat), format!("{} closed its connection", who(*seat)))
            }
            Event::Reconnected { seat, .. } => {
                (Some(*seat), format!("{} connected again", who(*seat)))
            }
            Event::TimedOut {
                seat,
                request,
                stage,
                ..
            } => (
                Some(*seat),
                format!(
                    "{} gave no answer to {} in time ({})",
                    who(*seat),
                    request.name(),
                    match stage {
                        ww::Stage::Action => "action timeout and grace: the NAME probe went out",
                        ww::Stage::Probe => "the probe's response timeout",
                    }
                ),
            ),
            Event::SeatInError { seat, reason } => {
                (Some(*seat), format!("{} in error: {reason}", who(*seat)))
            }
            Event::RequestFailed {
                seat,
                request,
                consequence,
            } => (
                Some(*seat),
                format!("{} {} failed: {consequence}", who(*seat), request.name()),
            ),
            Event::TalkCut {
                seat,
                raw,
                base,
                mention,
                base_limit,
                mention_limit,
                text,
                ..
            } => (
                Some(*seat),
                format!(
                    "{} cut: {base} + {mention} counted against {base_limit} + {mention_limit}; sent {raw:?}, the table saw {text:?}",
                    who(*seat)
                ),
            ),
            Event::TalkReplaced {
                seat,
                raw,
                text,
                reason,
                ..
            } => (
                Some(*seat),
                format!("{}: {raw:?} taken as {text:?} ({reason})", who(*seat)),
            ),
            Event::TargetInvalid {
                seat,
                request,
                answer,
                reason,
            } => (
                Some(*seat),
                format!(
                    "{} named {answer:?} for {}: not counted ({})",
                    who(*seat),
                    request.name(),
                    reason.name()
                ),
            ),
            Event::Paused { reason, .. } => {
                (None, format!("the arbiter paused the table: {reason}"))
            }
            Event::Resumed {
                paused_ms,
                by_arbiter,
                ..
            } => (
                None,
                format!(
                    "the table runs again after {paused_ms} ms ({})",
                    if *by_arbiter {
                        "the arbiter resumed"
                    } else {
                        "every seat was back"
                    }
                ),
            ),
            Event::Noted { text, .. } => (None, format!("the arbiter's note: {text}")),
            Event::Ejected { seat, reason, .. } => (
                Some(*seat),
                format!("the arbiter ejected {}: {reason}", who(*seat)),
            ),
            Event::Readmitted { seat, .. } => (
                Some(*seat),
                format!("the arbiter readmitted {}", who(*seat)),
            ),
            Event::Ruled { winner, reason, .. } => (
                None,
                format!("the arbiter ended the game: {} ({reason})", winner.name()),
            ),
            Event::Restarted { on_restart, .. } => (
                None,
                format!("the server restarted; the profile says {on_restart:?}"),
            ),
            _ => continue,
        };
        out.push(Incident {
            seq: s.seq,
            mono_ms: s.mono_ms,
            kind: s.event.kind(),
            section: s.clause.clone(),
            seat,
            what,
        });
    }
    out
}

fn ended(r: &Record) -> Option<(Winner, String, u32)> {
    r.events.iter().rev().find_map(|s| match &s.event {
        Event::GameEnded {
            winner,
            reason,
            day,
            ..
        } => Some((*winner, reason.clone(), *day)),
        _ => None,
    })
}

/// Who is alive and who is in error, from the events.
fn standing(r: &Record) -> (Vec<bool>, Vec<bool>) {
    let n = r.seats.len();
    let (mut alive, mut error) = (vec![true; n], vec![false; n]);
    for s in &r.events {
        match &s.event {
            Event::Executed { seat, .. } if *seat < n => alive[*seat] = false,
            Event::Attacked {
                target,
                guarded: false,
                ..
            } if *target < n => alive[*target] = false,
            Event::SeatInError { seat, .. } if *seat < n => error[*seat] = true,
            Event::Readmitted { seat, .. } if *seat < n => error[*seat] = false,
            _ => {}
        }
    }
    (alive, error)
}

/// The `status` of a werewolf game, for the arbiter and the committee (roles shown).
pub fn status_text(r: &Record, rerun: &Rerun) -> String {
    let d = deal(r);
    let (alive, error) = standing(r);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "match {} · game {} · {} ({})",
        r.match_id, r.game, r.game_id, r.profile_name
    );
    let day = r
        .events
        .iter()
        .rev()
        .find_map(|s| match &s.event {
            Event::DayBegun { day } | Event::NightBegun { day } => Some(*day),
            _ => None,
        })
        .unwrap_or(0);
    match ended(r) {
        Some((w, reason, dd)) => {
            let _ = writeln!(out, "ended on day {dd}: {} wins ({reason})", w.name());
        }
        None => {
            let _ = writeln!(out, "in progress: day {day}");
            if let Some(s) = r.events.iter().rev().find_map(|s| match &s.event {
                Event::Sent {
                    seat,
                    request,
                    deadline_ms: Some(dl),
                    ..
                } => Some((seat, request, dl)),
                _ => None,
            }) {
                let _ = writeln!(
                    out,
                    "last request awaiting an answer: {} to seat {} (due at game time {} ms)",
                    s.1.name(),
                    s.0 + 1,
                    s.2
                );
            }
        }
    }
    let _ = writeln!(out, "{}", rerun.describe());
    let _ = writeln!(out, "seats:");
    for (i, s) in r.seats.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {:>2} {:<12} {:<14} {:<10} {:<5} {}{}",
            i + 1,
            d.names[i],
            s.name,
            role_name(d.roles[i]),
            if alive[i] { "alive" } else { "dead" },
            if error[i] { "IN ERROR" } else { "" },
            if s.human { " (human)" } else { "" }
        );
    }
    let inc = incidents(r);
    let _ = writeln!(out, "incidents: {}", inc.len());
    for i in inc.iter().rev().take(5).rev() {
        let _ = writeln!(out, "  #{} [{}] {}", i.seq, i.section, i.what);
    }
    out
}

/// The `status --json` object of a werewolf game.
pub fn status_json(r: &Record, rerun: &Rerun) -> serde_json::Value {
    let d = deal(r);
    let (alive, error) = standing(r);
    let seats: Vec<serde_json::Value> = r
        .seats
        .iter()
        .enumerate()
        .map(|(i, s)| {
            serde_json::json!({
                "seat": i + 1, "name": s.name, "team": s.team, "human": s.human,
                "character": d.names[i], "role": role_name(d.roles[i]),
                "alive": alive[i], "in_error": error[i],
            })
        })
        .collect();
    let end = ended(r);
    serde_json::json!({
        "family": "werewolf",
        "match_id": r.match_id,
        "game": r.game,
        "game_id": r.game_id,
        "profile": r.profile_name,
        "finished": end.is_some(),
        "winner": end.as_ref().map(|e| e.0.name()),
        "reason": end.as_ref().map(|e| e.1.clone()),
        "rerun": rerun.describe(),
        "rerun_fails": rerun.fails(),
        "seats": seats,
        "incidents": incidents(r),
        "response_times": response_times(r),
    })
}

fn ms(v: Option<u64>) -> String {
    v.map_or_else(|| "–".into(), |m| format!("{:.3} s", m as f64 / 1000.0))
}

/// The committee's HTML page of a werewolf game: the result, the re-run, the seats with their
/// response times (humans apart), every incident and cut, and the talk as the table saw it.
pub fn html(r: &Record, rerun: &Rerun, verdict: &str) -> String {
    let d = deal(r);
    let (alive, _) = standing(r);
    let mut o = String::new();
    let title = format!("{} · game {} · {}", r.match_id, r.game, r.game_id);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"ja\"><head><meta charset=\"utf-8\"><title>{}</title>\n<style>body{{font-family:sans-serif;max-width:70em;margin:auto}}table{{border-collapse:collapse}}td,th{{border:1px solid #999;padding:2px 6px;text-align:left;vertical-align:top}}.cut{{color:#a00}}</style></head><body>\n",
        escape(&title)
    );
    let _ = writeln!(o, "<h1>{}</h1>", escape(&title));
    let _ = writeln!(
        o,
        "<p>Profile <b>{}</b>; opened {}; seed commitment <code>{}</code>.</p>",
        escape(&r.profile_name),
        escape(&r.opened_utc),
        escape(&r.commitment)
    );
    match ended(r) {
        Some((w, reason, day)) => {
            let _ = writeln!(
                o,
                "<p id=\"result\">Ended on day {day}: <b>{}</b> ({}).</p>",
                w.name(),
                escape(&reason)
            );
        }
        None => {
            let _ = writeln!(o, "<p id=\"result\">Not finished.</p>");
        }
    }
    let _ = writeln!(
        o,
        "<p id=\"verify\">Record: {}. {}</p>",
        escape(verdict),
        escape(&rerun.describe())
    );
    let _ = writeln!(
        o,
        "<h2>Seats</h2>\n<table id=\"seats\"><tr><th>seat</th><th>character</th><th>connection</th><th>team</th><th>player</th><th>role</th><th>end</th></tr>"
    );
    for (i, s) in r.seats.iter().enumerate() {
        let _ = writeln!(
            o,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            i + 1,
            escape(&d.names[i]),
            escape(&s.name),
            escape(&s.team),
            if s.human { "human" } else { "agent" },
            role_name(d.roles[i]),
            if alive[i] { "alive" } else { "dead" }
        );
    }
    let _ = writeln!(o, "</table>");
    let times = response_times(r);
    for (label, human) in [("Agents", false), ("Humans", true)] {
        let rows: Vec<&SeatTimes> = times.iter().filter(|t| t.human == human).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(
            o,
            "<h2>Response times: {label}</h2>\n<table class=\"times\"><tr><th>seat</th><th>answers</th><th>median</th><th>p90</th><th>max</th><th>late</th><th>timeouts</th></tr>"
        );
        for t in rows {
            let _ = writeln!(
                o,
                "<tr><td>{} {}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                t.seat + 1,
                escape(&d.names[t.seat]),
                t.answers,
                ms(t.median_ms),
                ms(t.p90_ms),
                ms(t.max_ms),
                t.late,
                t.timeouts
            );
        }
        let _ = writeln!(o, "</table>");
    }
    let inc = incidents(r);
    let _ = writeln!(
        o,
        "<h2>Incidents ({})</h2>\n<table id=\"incidents\"><tr><th>entry</th><th>game time</th><th>section</th><th>kind</th><th>what</th></tr>",
        inc.len()
    );
    for i in &inc {
        let _ = writeln!(
            o,
            "<tr><td>#{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            i.seq,
            ms(Some(i.mono_ms)),
            escape(&i.section),
            i.kind,
            escape(&i.what)
        );
    }
    let _ = writeln!(o, "</table>");
    let _ = writeln!(
        o,
        "<h2>Timeline</h2>\n<table id=\"timeline\"><tr><th>entry</th><th>game time</th><th>day</th><th>what</th></tr>"
    );
    let mut day = 0;
    let mut cut_raw: Option<String> = None;
    for s in &r.events {
        let line = match &s.event {
            Event::DayBegun { day: x } => {
                day = *x;
                format!("day {x} begins")
            }
            Event::NightBegun { day: x } => format!("night of day {x}"),
            Event::TalkCut { raw, .. } => {
                cut_raw = Some(raw.clone());
                continue;
            }
            Event::Talked {
                seat,
                channel,
                turn,
                text,
                ..
            } => {
                let raw = cut_raw.take();
                format!(
                    "{} (turn {turn}) {}: {}{}",
                    channel.name(),
                    d.names.get(*seat).map_or("?", String::as_str),
                    text,
                    raw.map_or(String::new(), |r| format!(" [cut from: {r}]"))
                )
            }
            Event::Voted {
                seat,
                ballot,
                target,
                ..
            } => format!(
                "{} {} → {}",
                ballot.name(),
                d.names.get(*seat).map_or("?", String::as_str),
                d.names.get(*target).map_or("?", String::as_str)
            ),
            Event::Executed { seat, role, .. } => format!(
                "executed: {} ({})",
                d.names.get(*seat).map_or("?", String::as_str),
                role.name()
            ),
            Event::NoExecution { .. } => "nobody executed".into(),
            Event::Divined {
                seer,
                target,
                species,
                ..
            } => format!(
                "{} divined {}: {}",
                d.names.get(*seer).map_or("?", String::as_str),
                d.names.get(*target).map_or("?", String::as_str),
                species.name()
            ),
            Event::Guarded { guard, target, .. } => format!(
                "{} guarded {}",
                d.names.get(*guard).map_or("?", String::as_str),
                d.names.get(*target).map_or("?", String::as_str)
            ),
            Event::Attacked {
                target, guarded, ..
            } => format!(
                "attack on {}{}",
                d.names.get(*target).map_or("?", String::as_str),
                if *guarded {
                    ": guarded, survives"
                } else {
                    ": dies"
                }
            ),
            Event::NoAttack { reason, .. } => format!("no attack ({reason})"),
            Event::TieBroken {
                candidates, chosen, ..
            } => format!(
                "tie among {} broken by the seed: {}",
                candidates
                    .iter()
                    .map(|c| d.names.get(*c).map_or("?", String::as_str))
                    .collect::<Vec<_>>()
                    .join(", "),
                d.names.get(*chosen).map_or("?", String::as_str)
            ),
            Event::GameEnded { winner, reason, .. } => {
                format!("game over: {} ({reason})", winner.name())
            }
            _ => continue,
        };
        let _ = writeln!(
            o,
            "<tr><td>#{}</td><td>{}</td><td>{day}</td><td>{}</td></tr>",
            s.seq,
            ms(Some(s.mono_ms)),
            escape(&line)
        );
    }
    let _ = writeln!(o, "</table>\n</body></html>");
    o
}
