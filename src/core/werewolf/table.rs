//! The state of a werewolf table and how each event changes it (evolve).
use std::collections::BTreeMap;
use std::sync::Arc;

use super::event::{Ballot, Channel, Event, Request, Stage, TalkKind};
use super::profile::{Profile, Role, Species, Winner};
use super::{SeatSpec, Seed};

/// One seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seat {
    pub spec: SeatSpec,
    /// The character's name (the seat's name at the table), once dealt.
    pub name: String,
    pub character: Option<usize>,
    pub role: Role,
    pub alive: bool,
    /// In error: no more requests go to it (official `HasError`).
    pub error: bool,
    /// Connected (false after a restart until it reconnects).
    pub connected: bool,
}

/// One utterance in a day's talk or whisper list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TalkRec {
    pub idx: u32,
    pub day: u32,
    pub turn: u32,
    pub seat: usize,
    pub text: String,
}

/// A seer's or medium's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judge {
    pub day: u32,
    pub agent: usize,
    pub target: usize,
    pub species: Species,
}

/// What one day recorded (official `GameStatus`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DayStatus {
    pub day: u32,
    pub talks: Vec<TalkRec>,
    pub whispers: Vec<TalkRec>,
    pub votes: Vec<(usize, usize)>,
    pub attack_votes: Vec<(usize, usize)>,
    pub executed: Option<usize>,
    pub attacked: Option<usize>,
    pub medium: Option<Judge>,
    pub divine: Option<Judge>,
    pub guard: Option<(usize, usize)>,
}

/// Where the game stands between phases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pc {
    NotBegun,
    /// The next phase to consider of the day's list.
    Day(usize),
    /// The next phase to consider of the night's list.
    Night(usize),
    Ended,
}

/// A talk or whisper phase under way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comm {
    pub channel: Channel,
    pub phase: String,
    /// The seats taking part, in seat order (the order is drawn from these).
    pub members: Vec<usize>,
    pub order: Vec<usize>,
    pub turn: u32,
    /// Next place in `order` to ask.
    pub pos: usize,
    /// Someone said something other than `Over` this turn.
    pub spoke: bool,
    /// Requests left today (official `remainCountMap`).
    pub remain: BTreeMap<usize, i64>,
    /// Skips left (official `remainSkipMap`).
    pub skip: BTreeMap<usize, i64>,
    /// Index of the next utterance of the phase.
    pub idx: u32,
}

/// A vote or attack vote under way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ballots {
    pub ballot: Ballot,
    pub round: u32,
    pub voters: Vec<usize>,
    pub pos: usize,
    pub votes: Vec<(usize, usize)>,
}

/// A divination or guard under way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Single {
    pub request: Request,
    pub seat: Option<usize>,
    pub done: bool,
}

/// The action of the phase under way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActState {
    Comm(Comm),
    Ballots(Ballots),
    Single(Single),
    /// Execution and attack resolve within one step; nothing to keep.
    Instant,
}

/// The request awaiting an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub seat: usize,
    pub request: Request,
    /// The frame as sent (sent again after a restart).
    pub frame: String,
    /// When the request went out.
    pub sent_ms: u64,
    /// When the answer is due (grace on top).
    pub deadline_ms: u64,
    /// The NAME probe went out; its answer is due at this time.
    pub probe_deadline_ms: Option<u64>,
}

/// The table: profile, seats, the day, the phase under way and the request awaited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub(super) profile: Arc<Profile>,
    pub(super) game_id: String,
    pub(super) seed: Seed,
    pub(super) seats: Vec<Seat>,
    pub(super) day: u32,
    pub(super) pc: Pc,
    pub(super) phase: Option<(usize, String)>,
    pub(super) act: Option<ActState>,
    pub(super) today: DayStatus,
    pub(super) yesterday: Option<DayStatus>,
    pub(super) talk_cursor: Vec<usize>,
    pub(super) whisper_cursor: Vec<usize>,
    pub(super) pending: Option<Pending>,
    /// Paused since (ms), and why.
    pub(super) paused: Option<(u64, String)>,
    /// A restart is waiting for every seat to reconnect.
    pub(super) restart_wait: bool,
    pub(super) ended: Option<Winner>,
}

impl Table {
    /// A new table for `seats` (in the order the shell numbers them) under `profile`; the seed
    /// stays inside and is revealed only by the final event.
    pub fn new(profile: &Profile, game_id: &str, seed: &Seed, seats: Vec<SeatSpec>) -> Table {
        let n = seats.len();
        Table {
            profile: Arc::new(profile.clone()),
            game_id: game_id.to_string(),
            seed: seed.clone(),
            seats: seats
                .into_iter()
                .enumerate()
                .map(|(i, spec)| Seat {
                    spec,
                    name: format!("Agent[{:02}]", i + 1),
                    character: None,
                    role: Role::Villager,
                    alive: true,
                    error: false,
                    connected: true,
                })
                .collect(),
            day: 0,
            pc: Pc::NotBegun,
            phase: None,
            act: None,
            today: DayStatus::default(),
            yesterday: None,
            talk_cursor: vec![0; n],
            whisper_cursor: vec![0; n],
            pending: None,
            paused: None,
            restart_wait: false,
            ended: None,
        }
    }

    pub fn profile(&self) -> &Profile {
        &self.profile
    }
    pub fn game_id(&self) -> &str {
        &self.game_id
    }
    pub fn seats(&self) -> &[Seat] {
        &self.seats
    }
    pub fn day(&self) -> u32 {
        self.day
    }
    pub fn today(&self) -> &DayStatus {
        &self.today
    }
    pub fn pending(&self) -> Option<&Pending> {
        self.pending.as_ref()
    }
    pub fn paused(&self) -> bool {
        self.paused.is_some() || self.restart_wait
    }
    /// The phase under way: its name and action state.
    pub fn phase(&self) -> Option<(&str, Option<&ActState>)> {
        self.phase
            .as_ref()
            .map(|(_, name)| (name.as_str(), self.act.as_ref()))
    }
    /// The seat whose character is `name`.
    pub fn seat_named(&self, name: &str) -> Option<usize> {
        self.seats.iter().position(|s| s.name == name)
    }
    /// Character names by seat.
    pub fn names(&self) -> Vec<String> {
        self.seats.iter().map(|s| s.name.clone()).collect()
    }

    pub(super) fn deadline(&self) -> Option<u64> {
        if self.ended.is_some() || self.paused() {
            return None;
        }
        let p = self.pending.as_ref()?;
        Some(match p.probe_deadline_ms {
            Some(d) => d,
            None => p
                .deadline_ms
                .saturating_add(self.profile.timeouts.acceptable_ms),
        })
    }

    pub(super) fn winner(&self) -> Option<Winner> {
        self.ended
    }

    /// Living humans and werewolves (the possessed counts as human).
    pub fn alive_counts(&self) -> (u32, u32) {
        let mut h = 0;
        let mut w = 0;
        for s in self.seats.iter().filter(|s| s.alive) {
            match s.role.species() {
                Species::Human => h += 1,
                Species::Werewolf => w += 1,
            }
        }
        (h, w)
    }

    /// Seats in error.
    pub fn errors(&self) -> u32 {
        self.seats.iter().filter(|s| s.error).count() as u32
    }

    fn done_with(&mut self, seat: usize) {
        match &mut self.act {
            Some(ActState::Ballots(b)) => {
                if let Some(k) = b.voters.iter().position(|&v| v == seat) {
                    b.pos = b.pos.max(k + 1);
                }
            }
            Some(ActState::Single(s)) => s.done = true,
            _ => {}
        }
    }

    /// Apply one event.
    pub(super) fn apply(&mut self, e: &Event) {
        match e {
            Event::GameBegun { .. }
            | Event::BinaryFrame { .. }
            | Event::OversizeFrame { .. }
            | Event::TimedOut { .. }
            | Event::Noted { .. }
            | Event::FrameReceived { .. }
            | Event::TalkCut { .. }
            | Event::TalkReplaced { .. }
            | Event::TieBroken { .. }
            | Event::Ruled { .. }
            | Event::Approved { .. }
            | Event::AuthorizationFailed { .. } => {}
            Event::ConnectionClosed { seat, .. } => {
                if let Some(s) = self.seats.get_mut(*seat) {
                    s.connected = false;
                }
            }
            Event::Reconnected { seat, .. } => {
                if let Some(s) = self.seats.get_mut(*seat) {
                    s.connected = true;
                }
            }
            Event::Paused { at_ms, reason } => self.paused = Some((*at_ms, reason.clone())),
            Event::Resumed { paused_ms, .. } => {
                self.paused = None;
                self.restart_wait = false;
                if let Some(p) = &mut self.pending {
                    p.deadline_ms = p.deadline_ms.saturating_add(*paused_ms);
                    if let Some(d) = &mut p.probe_deadline_ms {
                        *d = d.saturating_add(*paused_ms);
                    }
                }
            }
            Event::Ejected { seat, .. } => {
                if let Some(s) = self.seats.get_mut(*seat) {
                    s.error = true;
                }
            }
            Event::Readmitted { seat, .. } => {
                if let Some(s) = self.seats.get_mut(*seat) {
                    s.error = false;
                    s.connected = true;
                }
            }
            Event::Restarted { at_ms, .. } => {
                for s in &mut self.seats {
                    s.connected = false;
                }
                self.restart_wait = true;
                self.paused.get_or_insert((*at_ms, "restart".into()));
            }
            Event::Dealt { seats } => {
                for d in seats {
                    if let Some(s) = self.seats.get_mut(d.seat) {
                        s.name = d.name.clone();
                        s.role = d.role;
                        s.character = d.character;
                    }
                }
                self.pc = Pc::Day(0);
            }
            Event::Sent {
                seat,
                request,
                frame,
                deadline_ms,
            } => self.sent(*seat, *request, frame, *deadline_ms),
            Event::SeatInError { seat, .. } => {
                if let Some(s) = self.seats.get_mut(*seat) {
                    s.error = true;
                }
                if self.pending.as_ref().is_some_and(|p| p.seat == *seat) {
                    self.pending = None;
                }
            }
            Event::RequestFailed { seat, .. } => {
                if self.pending.as_ref().is_some_and(|p| p.seat == *seat) {
                    self.pending = None;
                }
                self.done_with(*seat);
            }
            Event::DayBegun { day } => {
                if *day != self.today.day {
                    let old = std::mem::take(&mut self.today);
                    self.yesterday = Some(old);
                }
                self.today.day = *day;
                self.day = *day;
                self.pc = Pc::Day(0);
            }
            Event::NightBegun { .. } => self.pc = Pc::Night(0),
            Event::PhaseBegun {
                part,
                index,
                name,
                action,
                order,
                ..
            } => {
                self.pc = match part {
                    super::event::Part::Day => Pc::Day(*index),
                    super::event::Part::Night => Pc::Night(*index),
                };
                self.phase = Some((*index, name.clone()));
                self.act = Some(self.act_for(*action, name, order));
            }
            Event::TurnBegun { turn, order, .. } => {
                if let Some(ActState::Comm(c)) = &mut self.act {
                    c.turn = *turn;
                    c.order = order.clone();
                    c.pos = 0;
                    c.spoke = false;
                }
            }
            Event::PhaseEnded { .. } => {
                self.act = None;
                if let Some((i, _)) = self.phase.take() {
                    self.pc = match self.pc {
                        Pc::Day(_) => Pc::Day(i + 1),
                        Pc::Night(_) => Pc::Night(i + 1),
                        other => other,
                    };
                }
            }
            Event::Talked {
                seat,
                channel,
                day,
                turn,
                idx,
                text,
                counts_as: kind,
            } => {
                if self.pending.as_ref().is_some_and(|p| p.seat == *seat) {
                    self.pending = None;
                }
                let max_skip = i64::from(match channel {
                    Channel::Talk => self.profile.talk.max_skip,
                    Channel::Whisper => self.profile.whisper.max_skip,
                });
                if let Some(ActState::Comm(c)) = &mut self.act {
                    if let Some(r) = c.remain.get_mut(seat) {
                        *r -= 1;
                    }
                    match kind {
                        TalkKind::Skip => {
                            if let Some(k) = c.skip.get_mut(seat) {
                                *k -= 1;
                            }
                        }
                        TalkKind::Said => {
                            c.skip.insert(*seat, max_skip);
                        }
                        TalkKind::ForcedSkip | TalkKind::Over => {}
                    }
                    if text == "Over" {
                        c.remain.insert(*seat, 0);
                    } else {
                        c.spoke = true;
                    }
                    if let Some(k) = c.order.iter().position(|s| s == seat) {
                        c.pos = k + 1;
                    }
                    c.idx = idx + 1;
                }
                let rec = TalkRec {
                    idx: *idx,
                    day: *day,
                    turn: *turn,
                    seat: *seat,
                    text: text.clone(),
                };
                match channel {
                    Channel::Talk => self.today.talks.push(rec),
                    Channel::Whisper => self.today.whispers.push(rec),
                }
            }
            Event::TargetInvalid { seat, .. } => {
                if self.pending.as_ref().is_some_and(|p| p.seat == *seat) {
                    self.pending = None;
                }
                self.done_with(*seat);
            }
            Event::Voted { seat, target, .. } => {
                if self.pending.as_ref().is_some_and(|p| p.seat == *seat) {
                    self.pending = None;
                }
                if let Some(ActState::Ballots(b)) = &mut self.act {
                    b.votes.push((*seat, *target));
                }
                self.done_with(*seat);
            }
            Event::Tallied { ballot, again, .. } => {
                if let Some(ActState::Ballots(b)) = &mut self.act {
                    let votes = b.votes.clone();
                    match ballot {
                        Ballot::Vote => self.today.votes = votes,
                        Ballot::Attack => self.today.attack_votes = votes,
                    }
                    if *again {
                        b.round += 1;
                        b.pos = 0;
                        b.votes.clear();
                    }
                }
            }
            Event::Executed {
                day, seat, species, ..
            } => {
                if let Some(s) = self.seats.get_mut(*seat) {
                    s.alive = false;
                }
                self.today.executed = Some(*seat);
                self.today.medium = Some(Judge {
                    day: *day,
                    agent: *seat,
                    target: *seat,
                    species: *species,
                });
            }
            Event::NoExecution { .. } | Event::NoAttack { .. } => {}
            Event::Divined {
                day,
                seer,
                target,
                species,
            } => {
                if self.pending.as_ref().is_some_and(|p| p.seat == *seer) {
                    self.pending = None;
                }
                self.today.divine = Some(Judge {
                    day: *day,
                    agent: *seer,
                    target: *target,
                    species: *species,
                });
                self.done_with(*seer);
            }
            Event::Guarded { guard, target, .. } => {
                if self.pending.as_ref().is_some_and(|p| p.seat == *guard) {
                    self.pending = None;
                }
                self.today.guard = Some((*guard, *target));
                self.done_with(*guard);
            }
            Event::Attacked {
                target, guarded, ..
            } => {
                if !guarded {
                    if let Some(s) = self.seats.get_mut(*target) {
                        s.alive = false;
                    }
                    self.today.attacked = Some(*target);
                }
            }
            Event::GameEnded { winner, .. } => {
                self.ended = Some(*winner);
                self.pending = None;
                self.act = None;
                self.phase = None;
                self.pc = Pc::Ended;
            }
        }
    }

    fn act_for(&self, action: super::profile::Action, name: &str, order: &[usize]) -> ActState {
        use super::profile::Action as A;
        match action {
            A::Talk | A::Whisper => {
                let (channel, rules) = if action == A::Talk {
                    (Channel::Talk, &self.profile.talk)
                } else {
                    (Channel::Whisper, &self.profile.whisper)
                };
                let mut members = order.to_vec();
                members.sort_unstable();
                ActState::Comm(Comm {
                    channel,
                    phase: name.to_string(),
                    remain: members
                        .iter()
                        .map(|&s| (s, i64::from(rules.per_agent)))
                        .collect(),
                    skip: members
                        .iter()
                        .map(|&s| (s, i64::from(rules.max_skip)))
                        .collect(),
                    members,
                    order: order.to_vec(),
                    turn: 0,
                    pos: 0,
                    spoke: false,
                    idx: 0,
                })
            }
            A::Execution | A::Attack => ActState::Ballots(Ballots {
                ballot: if action == A::Execution {
                    Ballot::Vote
                } else {
                    Ballot::Attack
                },
                round: 0,
                voters: order.to_vec(),
                pos: 0,
                votes: Vec::new(),
            }),
            A::Divine | A::Guard => ActState::Single(Single {
                request: if action == A::Divine {
                    Request::Divine
                } else {
                    Request::Guard
                },
                seat: order.first().copied(),
                done: order.is_empty(),
            }),
        }
    }

    fn sent(&mut self, seat: usize, request: Request, frame: &str, deadline_ms: Option<u64>) {
        let wolf = self
            .seats
            .get(seat)
            .is_some_and(|s| s.role == Role::Werewolf);
        match request {
            Request::Initialize | Request::DailyInitialize => {
                // The official server forgets every seat's history place on these requests.
                self.talk_cursor.iter_mut().for_each(|c| *c = 0);
                self.whisper_cursor.iter_mut().for_each(|c| *c = 0);
            }
            Request::Talk | Request::Whisper | Request::DailyFinish | Request::Attack => {
                if let Some(c) = self.talk_cursor.get_mut(seat) {
                    *c = self.today.talks.len();
                }
                if let Some(c) = self.whisper_cursor.get_mut(seat) {
                    *c = if wolf { self.today.whispers.len() } else { 0 };
                }
            }
            _ => {}
        }
        let Some(deadline) = deadline_ms else {
            return;
        };
        if request == Request::Name {
            if let Some(p) = &mut self.pending
                && p.seat == seat
            {
                p.probe_deadline_ms = Some(deadline);
            }
            return;
        }
        let action = self.profile.timeouts.action_ms;
        match &mut self.pending {
            // The same request sent again after a restart: a fresh wait.
            Some(p) if p.seat == seat && p.request == request => {
                p.sent_ms = deadline.saturating_sub(action);
                p.deadline_ms = deadline;
                p.probe_deadline_ms = None;
            }
            _ => {
                self.pending = Some(Pending {
                    seat,
                    request,
                    frame: frame.to_string(),
                    sent_ms: deadline.saturating_sub(action),
                    deadline_ms: deadline,
                    probe_deadline_ms: None,
                })
            }
        }
    }
}

/// What a stage of waiting is called in verdicts.
pub(super) fn stage_of(p: &Pending) -> Stage {
    if p.probe_deadline_ms.is_some() {
        Stage::Probe
    } else {
        Stage::Action
    }
}
