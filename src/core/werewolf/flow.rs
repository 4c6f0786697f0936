//! decide: the game as the official server plays it (logic/game.go and the files it calls),
//! one request at a time, with the referee's verdicts on every input.
//!
//! `decide` works on a copy of the table: each event is applied (`evolve`) as it is produced, so
//! what the caller gets by applying the events in order is exactly the state decide reasoned on.
use super::event::{
    Ballot, Channel, DealtSeat, Event, Invalid, Part, Request, Stage, TalkKind, Verdict,
};
use super::length;
use super::packet;
use super::profile::{Action, Role, Winner};
use super::random::{Stream, order_label, tie_label};
use super::sections as s;
use super::table::{ActState, DayStatus, Pc, Table};
use super::{Act, Input, Refusal};

struct Run {
    t: Table,
    out: Vec<Event>,
    at: u64,
}

impl Run {
    fn emit(&mut self, e: Event) {
        self.t.apply(&e);
        self.out.push(e);
    }

    fn send(&mut self, seat: usize, request: Request) {
        let frame = if request == Request::Finish {
            finish_frame(&self.t, seat)
        } else {
            packet::frame(&self.t, seat, request)
        };
        let wait = if request == Request::Name {
            self.t.profile.timeouts.response_ms
        } else {
            self.t.profile.timeouts.action_ms
        };
        let deadline_ms = request.needs_answer().then(|| self.at.saturating_add(wait));
        self.emit(Event::Sent {
            seat,
            request,
            frame,
            deadline_ms,
        });
    }

    /// A request without answer to every seat not in error (and connected).
    fn broadcast(&mut self, request: Request) {
        for seat in 0..self.t.seats.len() {
            let s = &self.t.seats[seat];
            if !s.error && s.connected {
                self.send(seat, request);
            }
        }
    }
}

/// FINISH as the official server sends it: after the loop has moved to the next day, so `day`
/// is one more and the last day's results are "yesterday's"; every role shown.
fn finish_frame(t: &Table, seat: usize) -> String {
    let mut v = t.clone();
    let next = DayStatus {
        day: t.day + 1,
        ..DayStatus::default()
    };
    v.yesterday = Some(std::mem::replace(&mut v.today, next));
    v.day = t.day + 1;
    v.act = None;
    packet::frame(&v, seat, Request::Finish)
}

fn strip(text: &str) -> String {
    text.replace(['\n', '\r'], "")
}

pub(super) fn decide(t: &Table, input: &Input) -> Result<Vec<Event>, Refusal> {
    if t.ended.is_some() {
        return Err(Refusal::new(
            s::DAY,
            "the game is over: nothing more is recorded",
        ));
    }
    let seat_ok = |seat: usize| {
        if seat < t.seats.len() {
            Ok(())
        } else {
            Err(Refusal::new(
                s::PROTOCOL,
                format!("no seat {seat} (the table has {} seats)", t.seats.len()),
            ))
        }
    };
    let begun = t.pc != Pc::NotBegun;
    if !begun && !matches!(input, Input::Begin { .. }) {
        return Err(Refusal::new(s::DAY, "the game has not begun"));
    }
    let mut r = Run {
        t: t.clone(),
        out: Vec::new(),
        at: input.at_ms(),
    };
    match input {
        Input::Begin { at_ms } => {
            if begun {
                return Err(Refusal::new(s::DAY, "the game has already begun"));
            }
            let want = t.profile.table.seats as usize;
            if t.seats.len() != want {
                return Err(Refusal::new(
                    s::ROLES,
                    format!("the profile seats {want}, the table has {}", t.seats.len()),
                ));
            }
            r.emit(Event::GameBegun { at_ms: *at_ms });
            deal(&mut r);
            r.broadcast(Request::Initialize);
            r.emit(Event::DayBegun { day: 0 });
            r.broadcast(Request::DailyInitialize);
            advance(&mut r);
        }
        Input::Frame { seat, text, at_ms } => {
            seat_ok(*seat)?;
            on_frame(&mut r, *seat, text, *at_ms);
        }
        Input::Binary { seat, len, at_ms } => {
            seat_ok(*seat)?;
            r.emit(Event::BinaryFrame {
                seat: *seat,
                at_ms: *at_ms,
                len: *len,
            });
        }
        Input::Oversize { seat, len, at_ms } => {
            seat_ok(*seat)?;
            r.emit(Event::OversizeFrame {
                seat: *seat,
                at_ms: *at_ms,
                len: *len,
                limit: t.profile.table.max_frame_bytes,
            });
        }
        Input::Closed { seat, at_ms } => {
            seat_ok(*seat)?;
            r.emit(Event::ConnectionClosed {
                seat: *seat,
                at_ms: *at_ms,
            });
            if !r.t.seats[*seat].error {
                r.emit(Event::SeatInError {
                    seat: *seat,
                    reason: "the connection closed".into(),
                });
            }
            fail_if_pending(&mut r, *seat, "the connection closed");
            advance(&mut r);
        }
        Input::Reconnected { seat, at_ms } => {
            seat_ok(*seat)?;
            r.emit(Event::Reconnected {
                seat: *seat,
                at_ms: *at_ms,
            });
            if r.t.restart_wait && r.t.seats.iter().all(|s| s.error || s.connected) {
                resume(&mut r, false);
            }
            advance(&mut r);
        }
        Input::Tick { at_ms } => {
            let Some(d) = t.deadline() else {
                return Ok(Vec::new());
            };
            if *at_ms < d {
                return Ok(Vec::new());
            }
            let Some(p) = t.pending.clone() else {
                return Ok(Vec::new());
            };
            let stage = super::table::stage_of(&p);
            r.emit(Event::TimedOut {
                seat: p.seat,
                at_ms: *at_ms,
                request: p.request,
                stage,
            });
            match stage {
                Stage::Action => r.send(p.seat, Request::Name),
                Stage::Probe => {
                    r.emit(Event::SeatInError {
                        seat: p.seat,
                        reason: "no answer to the NAME probe within the response timeout".into(),
                    });
                    fail(&mut r, p.seat, p.request, "no answer in time");
                    advance(&mut r);
                }
            }
        }
        Input::Arbiter { act, at_ms } => arbiter(&mut r, t, act, *at_ms)?,
        Input::Restarted { at_ms, on_restart } => {
            r.emit(Event::Restarted {
                at_ms: *at_ms,
                on_restart: *on_restart,
            });
            if *on_restart == super::OnRestart::End {
                end_game(
                    &mut r,
                    Winner::None,
                    "the serving process restarted and the profile ends the game".into(),
                );
            }
        }
    }
    Ok(r.out)
}

fn arbiter(r: &mut Run, t: &Table, act: &Act, at_ms: u64) -> Result<(), Refusal> {
    let seat_ok = |seat: usize| {
        if seat < t.seats.len() {
            Ok(())
        } else {
            Err(Refusal::new(s::ARBITER, format!("no seat {seat}")))
        }
    };
    match act {
        Act::Pause { reason } => {
            if t.paused.is_some() {
                return Err(Refusal::new(s::ARBITER, "the table is already paused"));
            }
            r.emit(Event::Paused {
                at_ms,
                reason: reason.clone(),
            });
        }
        Act::Resume => {
            if t.paused.is_none() {
                return Err(Refusal::new(s::ARBITER, "the table is not paused"));
            }
            resume(r, true);
            advance(r);
        }
        Act::Note { text } => r.emit(Event::Noted {
            at_ms,
            text: text.clone(),
        }),
        Act::Eject { seat, reason } => {
            seat_ok(*seat)?;
            if t.seats[*seat].error {
                return Err(Refusal::new(
                    s::ARBITER,
                    format!("seat {seat} is already in error"),
                ));
            }
            r.emit(Event::Ejected {
                at_ms,
                seat: *seat,
                reason: reason.clone(),
            });
            fail_if_pending(r, *seat, "the arbiter ejected the seat");
            advance(r);
        }
        Act::Readmit { seat } => {
            seat_ok(*seat)?;
            if !t.seats[*seat].error {
                return Err(Refusal::new(
                    s::ARBITER,
                    format!("seat {seat} is not in error"),
                ));
            }
            r.emit(Event::Readmitted { at_ms, seat: *seat });
            advance(r);
        }
        Act::End { winner, reason } => {
            r.emit(Event::Ruled {
                at_ms,
                winner: *winner,
                reason: reason.clone(),
            });
            end_game(r, *winner, format!("the arbiter's ruling: {reason}"));
        }
    }
    Ok(())
}

/// Resume: the awaited answer's deadline moves by the pause; after a restart the awaited request
/// is sent again with a fresh deadline.
fn resume(r: &mut Run, by_arbiter: bool) {
    let since = r.t.paused.as_ref().map(|(at, _)| *at).unwrap_or(r.at);
    let restarted = r.t.restart_wait;
    r.emit(Event::Resumed {
        at_ms: r.at,
        paused_ms: r.at.saturating_sub(since),
        by_arbiter,
    });
    if restarted && let Some(p) = r.t.pending.clone() {
        let frame = p.frame.clone();
        let deadline_ms = Some(r.at.saturating_add(r.t.profile.timeouts.action_ms));
        r.emit(Event::Sent {
            seat: p.seat,
            request: p.request,
            frame,
            deadline_ms,
        });
    }
}

fn deal(r: &mut Run) {
    let p = r.t.profile.clone();
    let mut roles = p.role_deck();
    Stream::new(&r.t.seed, "roles").shuffle(&mut roles);
    let mut chars: Vec<usize> = (0..p.characters.len()).collect();
    Stream::new(&r.t.seed, "characters").shuffle(&mut chars);
    let seats = (0..r.t.seats.len())
        .map(|i| {
            let character = chars.get(i).copied();
            DealtSeat {
                seat: i,
                name: character
                    .and_then(|c| p.characters.get(c))
                    .map(|c| c.name.clone())
                    .unwrap_or_else(|| format!("Agent[{:02}]", i + 1)),
                role: roles.get(i).copied().unwrap_or(Role::Villager),
                character,
            }
        })
        .collect();
    r.emit(Event::Dealt { seats });
}

fn on_frame(r: &mut Run, seat: usize, raw: &str, at_ms: u64) {
    let text = strip(raw);
    let pending =
        r.t.pending
            .clone()
            .filter(|p| p.seat == seat && at_ms >= p.sent_ms);
    let Some(p) = pending else {
        r.emit(Event::FrameReceived {
            seat,
            at_ms,
            text: raw.to_string(),
            request: None,
            verdict: Verdict::Unsolicited,
        });
        return;
    };
    let paused = r.t.paused();
    let grace = r.t.profile.timeouts.acceptable_ms;
    let received = |verdict| Event::FrameReceived {
        seat,
        at_ms,
        text: raw.to_string(),
        request: Some(p.request),
        verdict,
    };
    match p.probe_deadline_ms {
        Some(pd) => {
            if text == r.t.seats[seat].spec.name && (paused || at_ms <= pd) {
                r.emit(received(Verdict::ProbeAnswered));
                fail(
                    r,
                    seat,
                    p.request,
                    "the seat answered the probe: the request failed",
                );
            } else {
                r.emit(received(Verdict::ProbeFailed));
                let reason = if text == r.t.seats[seat].spec.name {
                    "the name came after the probe's response timeout".to_string()
                } else {
                    format!(
                        "the probe asked for the name {:?}; the seat sent something else first",
                        r.t.seats[seat].spec.name
                    )
                };
                r.emit(Event::SeatInError { seat, reason });
                fail(r, seat, p.request, "no answer in time");
            }
        }
        None if paused || at_ms <= p.deadline_ms.saturating_add(grace) => {
            r.emit(received(Verdict::OnTime));
            answer(r, seat, p.request, &text);
        }
        None => {
            r.emit(received(Verdict::Late));
            r.emit(Event::SeatInError {
                seat,
                reason: "the answer came after the action timeout and grace, before any answer to a probe".into(),
            });
            fail(r, seat, p.request, "the answer came late");
        }
    }
    advance(r);
}

fn fail_if_pending(r: &mut Run, seat: usize, why: &str) {
    if let Some(p) = r.t.pending.clone()
        && p.seat == seat
    {
        fail(r, seat, p.request, why);
    }
}

/// A request that got no usable answer: talk recorded as Skip, vote or target none.
fn fail(r: &mut Run, seat: usize, request: Request, why: &str) {
    let consequence = match request {
        Request::Talk | Request::Whisper => "recorded as Skip",
        Request::Vote | Request::Attack => "no vote",
        Request::Divine => "no divination",
        Request::Guard => "no guard",
        _ => "none",
    };
    r.emit(Event::RequestFailed {
        seat,
        request,
        consequence: format!("{why}: {consequence}"),
    });
    if matches!(request, Request::Talk | Request::Whisper) {
        talked(r, seat, TalkKind::ForcedSkip, "Skip".into());
    }
}

fn talked(r: &mut Run, seat: usize, kind: TalkKind, text: String) {
    let Some(ActState::Comm(c)) = &r.t.act else {
        return;
    };
    let e = Event::Talked {
        seat,
        channel: c.channel,
        day: r.t.day,
        turn: c.turn,
        idx: c.idx,
        text,
        counts_as: kind,
    };
    r.emit(e);
}

fn answer(r: &mut Run, seat: usize, request: Request, text: &str) {
    match request {
        Request::Talk | Request::Whisper => talk_answer(r, seat, text),
        Request::Vote => ballot_answer(r, seat, Ballot::Vote, text),
        Request::Attack => ballot_answer(r, seat, Ballot::Attack, text),
        Request::Divine | Request::Guard => single_answer(r, seat, request, text),
        _ => {}
    }
}

fn talk_answer(r: &mut Run, seat: usize, raw: &str) {
    let Some(ActState::Comm(c)) = &r.t.act else {
        return;
    };
    let channel = c.channel;
    let skips_left = c.skip.get(&seat).copied().unwrap_or(0);
    let rules = match channel {
        Channel::Talk => r.t.profile.talk.clone(),
        Channel::Whisper => r.t.profile.whisper.clone(),
    };
    let mut text = raw.to_string();
    if text == "ForceSkip" {
        r.emit(Event::TalkReplaced {
            seat,
            channel,
            raw: raw.into(),
            text: "Skip".into(),
            reason: "the official server takes ForceSkip as Skip".into(),
        });
        text = "Skip".into();
    }
    if text == "Skip" {
        if skips_left <= 0 {
            r.emit(Event::TalkReplaced {
                seat,
                channel,
                raw: raw.into(),
                text: "Over".into(),
                reason: format!(
                    "Skip past max_skip ({}) counts as Over: no more talk today",
                    rules.max_skip
                ),
            });
            talked(r, seat, TalkKind::Over, "Over".into());
        } else {
            talked(r, seat, TalkKind::Skip, "Skip".into());
        }
        return;
    }
    if text == "Over" {
        talked(r, seat, TalkKind::Over, "Over".into());
        return;
    }
    let names = r.t.names();
    let own = r.t.seats[seat].name.clone();
    let limits = rules.limits();
    let c = length::cut(&text, &names, &own, &limits);
    if c.cut {
        r.emit(Event::TalkCut {
            seat,
            channel,
            raw: text.clone(),
            base: c.base,
            mention: c.mention,
            mention_name: c.mention_name.clone(),
            base_limit: limits.base_length,
            mention_limit: limits.mention_length,
            per_talk: limits.per_talk,
            text: c.text.clone(),
        });
    }
    if c.text.is_empty() {
        r.emit(Event::TalkReplaced {
            seat,
            channel,
            raw: raw.into(),
            text: "Over".into(),
            reason: "an empty utterance counts as Over (official server)".into(),
        });
        talked(r, seat, TalkKind::Said, "Over".into());
    } else {
        talked(r, seat, TalkKind::Said, c.text);
    }
}

/// The seat a target names, or why it does not count (unknown, dead, self).
fn target(r: &Run, seat: usize, text: &str, allow_self: bool) -> Result<usize, Invalid> {
    let tg = r.t.seat_named(text).ok_or(Invalid::Unknown)?;
    if !r.t.seats[tg].alive {
        return Err(Invalid::Dead);
    }
    if tg == seat && !allow_self {
        return Err(Invalid::SelfTarget);
    }
    Ok(tg)
}

fn ballot_answer(r: &mut Run, seat: usize, ballot: Ballot, text: &str) {
    let (request, allow_self) = match ballot {
        Ballot::Vote => (Request::Vote, r.t.profile.vote.allow_self_vote),
        Ballot::Attack => (Request::Attack, r.t.profile.attack_vote.allow_self_vote),
    };
    match target(r, seat, text, allow_self) {
        Err(reason) => r.emit(Event::TargetInvalid {
            seat,
            request,
            answer: text.into(),
            reason,
        }),
        Ok(tg) => {
            r.emit(Event::Voted {
                seat,
                ballot,
                day: r.t.day,
                target: tg,
            });
            if ballot == Ballot::Attack && r.t.seats[tg].role == Role::Werewolf {
                r.emit(Event::TargetInvalid {
                    seat,
                    request,
                    answer: text.into(),
                    reason: Invalid::Werewolf,
                });
            }
        }
    }
}

fn single_answer(r: &mut Run, seat: usize, request: Request, text: &str) {
    match target(r, seat, text, false) {
        Err(reason) => r.emit(Event::TargetInvalid {
            seat,
            request,
            answer: text.into(),
            reason,
        }),
        Ok(tg) => {
            let day = r.t.day;
            if request == Request::Divine {
                let species = r.t.seats[tg].role.species();
                r.emit(Event::Divined {
                    day,
                    seer: seat,
                    target: tg,
                    species,
                });
            } else {
                r.emit(Event::Guarded {
                    day,
                    guard: seat,
                    target: tg,
                });
            }
        }
    }
}

/// Play on until a request awaits an answer, the table is paused, or the game is over.
fn advance(r: &mut Run) {
    // Every step emits at least one event; a game has far fewer than this many.
    for _ in 0..1_000_000 {
        if r.t.ended.is_some() || r.t.paused() || r.t.pending.is_some() {
            return;
        }
        let (part, i) = match r.t.pc {
            Pc::Day(i) => (Part::Day, i),
            Pc::Night(i) => (Part::Night, i),
            Pc::NotBegun | Pc::Ended => return,
        };
        if r.t.act.is_some() {
            step(r);
            continue;
        }
        let day = r.t.day;
        let profile = r.t.profile.clone();
        let phases = match part {
            Part::Day => &profile.day_phases,
            Part::Night => &profile.night_phases,
        };
        match (i..phases.len()).find(|&j| phases[j].runs_on(day)) {
            Some(j) => begin_phase(r, part, j),
            None if part == Part::Day => {
                r.emit(Event::NightBegun { day });
                r.broadcast(Request::DailyFinish);
            }
            None => day_over(r),
        }
    }
}

fn living(t: &Table, role: Option<Role>) -> Vec<usize> {
    (0..t.seats.len())
        .filter(|&i| t.seats[i].alive && role.is_none_or(|r| t.seats[i].role == r))
        .collect()
}

fn begin_phase(r: &mut Run, part: Part, index: usize) {
    let profile = r.t.profile.clone();
    let phase = match part {
        Part::Day => &profile.day_phases[index],
        Part::Night => &profile.night_phases[index],
    };
    let day = r.t.day;
    let order = match phase.action {
        Action::Talk | Action::Whisper => {
            let mut m = if phase.action == Action::Talk {
                living(&r.t, None)
            } else {
                living(&r.t, Some(Role::Werewolf))
            };
            if m.len() >= 2 {
                let label = order_label(phase.action.name(), day, &phase.name, 0);
                Stream::new(&r.t.seed, label).shuffle(&mut m);
            }
            m
        }
        Action::Execution => living(&r.t, None),
        Action::Attack => living(&r.t, Some(Role::Werewolf)),
        Action::Divine => living(&r.t, Some(Role::Seer)).into_iter().take(1).collect(),
        Action::Guard => living(&r.t, Some(Role::Bodyguard))
            .into_iter()
            .take(1)
            .collect(),
    };
    r.emit(Event::PhaseBegun {
        day,
        part,
        index,
        name: phase.name.clone(),
        action: phase.action,
        order,
    });
}

fn end_phase(r: &mut Run, reason: &str) {
    let Some((index, name)) = r.t.phase.clone() else {
        return;
    };
    let profile = r.t.profile.clone();
    let action = match r.t.pc {
        Pc::Night(_) => profile.night_phases.get(index),
        _ => profile.day_phases.get(index),
    }
    .map(|p| p.action)
    .unwrap_or(Action::Talk);
    r.emit(Event::PhaseEnded {
        day: r.t.day,
        name,
        action,
        reason: reason.into(),
    });
    if let Some((w, why)) = should_finish(&r.t) {
        end_game(r, w, why);
    }
}

/// The official check after every phase: errors first, then the sides.
fn should_finish(t: &Table) -> Option<(Winner, String)> {
    let errors = t.errors();
    let limit = t.profile.error_limit();
    if errors >= limit {
        return Some((
            Winner::None,
            format!("{errors} seats in error, the limit is {limit}: no winner"),
        ));
    }
    let (h, w) = t.alive_counts();
    if h <= w {
        return Some((
            Winner::Werewolf,
            format!("{w} werewolves alive, {h} humans: the werewolves win"),
        ));
    }
    if w == 0 {
        return Some((
            Winner::Villager,
            "no werewolf alive: the village wins".into(),
        ));
    }
    None
}

fn day_over(r: &mut Run) {
    let next = r.t.day + 1;
    if let Some(max) = r.t.profile.table.max_day
        && next > max
    {
        end_game(r, Winner::None, format!("day {max} was the last (max_day)"));
        return;
    }
    if let Some((w, why)) = should_finish(&r.t) {
        end_game(r, w, why);
        return;
    }
    r.emit(Event::DayBegun { day: next });
    r.broadcast(Request::DailyInitialize);
}

fn end_game(r: &mut Run, winner: Winner, reason: String) {
    r.broadcast(Request::Finish);
    let (humans, werewolves) = r.t.alive_counts();
    let seed = r.t.seed.to_hex();
    r.emit(Event::GameEnded {
        day: r.t.day,
        winner,
        reason,
        humans,
        werewolves,
        seed,
    });
}

/// One step of the phase under way.
fn step(r: &mut Run) {
    let Some(act) = r.t.act.clone() else {
        return;
    };
    match act {
        ActState::Comm(c) => {
            let rules = match c.channel {
                Channel::Talk => r.t.profile.talk.clone(),
                Channel::Whisper => r.t.profile.whisper.clone(),
            };
            if c.order.len() < 2 {
                return end_phase(r, "fewer than two seats to talk");
            }
            if c.turn >= rules.per_day {
                return end_phase(r, "no turns (max_count.per_day)");
            }
            let next = c.order[c.pos.min(c.order.len())..]
                .iter()
                .copied()
                .find(|s| c.remain.get(s).copied().unwrap_or(0) > 0);
            match next {
                Some(seat) if r.t.seats[seat].error => {
                    let req = match c.channel {
                        Channel::Talk => Request::Talk,
                        Channel::Whisper => Request::Whisper,
                    };
                    fail(r, seat, req, "the seat is in error");
                }
                Some(seat) => r.send(
                    seat,
                    match c.channel {
                        Channel::Talk => Request::Talk,
                        Channel::Whisper => Request::Whisper,
                    },
                ),
                None if !c.spoke => end_phase(r, "a whole turn without talk"),
                None if c.turn + 1 >= rules.per_day => {
                    end_phase(r, "the last turn (max_count.per_day)")
                }
                None => {
                    let turn = c.turn + 1;
                    let mut order = c.order.clone();
                    if rules.order == super::TalkOrder::PerTurn {
                        order = c.members.clone();
                        let label = order_label(c.channel.name(), r.t.day, &c.phase, turn);
                        Stream::new(&r.t.seed, label).shuffle(&mut order);
                    }
                    r.emit(Event::TurnBegun {
                        day: r.t.day,
                        turn,
                        order,
                    });
                }
            }
        }
        ActState::Ballots(b) => {
            if b.voters.is_empty() {
                return end_phase(r, "nobody to vote");
            }
            let request = match b.ballot {
                Ballot::Vote => Request::Vote,
                Ballot::Attack => Request::Attack,
            };
            match b.voters.get(b.pos) {
                Some(&v) if r.t.seats[v].error => fail(r, v, request, "the seat is in error"),
                Some(&v) => r.send(v, request),
                None => tally(r, &b),
            }
        }
        ActState::Single(sg) => match sg.seat {
            _ if sg.done => {
                let why = if sg.seat.is_none() {
                    "nobody alive to ask"
                } else {
                    "done"
                };
                end_phase(r, why)
            }
            Some(seat) if r.t.seats[seat].error => {
                fail(r, seat, sg.request, "the seat is in error")
            }
            Some(seat) => r.send(seat, sg.request),
            None => end_phase(r, "nobody alive to ask"),
        },
        ActState::Instant => end_phase(r, "done"),
    }
}

fn tally(r: &mut Run, b: &super::table::Ballots) {
    let day = r.t.day;
    let mut counts: std::collections::BTreeMap<usize, u32> = Default::default();
    for &(_, tg) in &b.votes {
        if b.ballot == Ballot::Attack && r.t.seats[tg].role == Role::Werewolf {
            continue;
        }
        *counts.entry(tg).or_default() += 1;
    }
    let max = counts.values().copied().max().unwrap_or(0);
    let candidates: Vec<usize> = counts
        .iter()
        .filter(|(_, c)| **c == max && max > 0)
        .map(|(s, _)| *s)
        .collect();
    let rounds = match b.ballot {
        Ballot::Vote => r.t.profile.vote.max_count,
        Ballot::Attack => r.t.profile.attack_vote.max_count,
    };
    let again = candidates.len() != 1 && b.round + 1 < rounds;
    r.emit(Event::Tallied {
        ballot: b.ballot,
        day,
        round: b.round,
        counts: counts.into_iter().collect(),
        candidates: candidates.clone(),
        again,
    });
    if again {
        return;
    }
    let chosen = match candidates.len() {
        0 => None,
        1 => Some(candidates[0]),
        _ if b.ballot == Ballot::Attack && r.t.profile.attack_vote.allow_no_target => None,
        n => {
            let label = tie_label(b.ballot.name(), day, b.round);
            let k = Stream::new(&r.t.seed, label.clone()).below(n as u64) as usize;
            let chosen = candidates[k];
            r.emit(Event::TieBroken {
                ballot: b.ballot,
                day,
                candidates: candidates.clone(),
                chosen,
                label,
            });
            Some(chosen)
        }
    };
    match (b.ballot, chosen) {
        (Ballot::Vote, Some(seat)) => {
            let role = r.t.seats[seat].role;
            r.emit(Event::Executed {
                day,
                seat,
                role,
                species: role.species(),
            });
        }
        (Ballot::Vote, None) => r.emit(Event::NoExecution { day }),
        (Ballot::Attack, Some(target)) => {
            let guarded =
                r.t.today
                    .guard
                    .is_some_and(|(g, tg)| tg == target && r.t.seats[g].alive);
            r.emit(Event::Attacked {
                day,
                target,
                guarded,
            });
        }
        (Ballot::Attack, None) => r.emit(Event::NoAttack {
            day,
            reason: if candidates.is_empty() {
                "no valid attack vote".into()
            } else {
                "a tie, and the rules allow no target".into()
            },
        }),
    }
    end_phase(r, "done");
}
