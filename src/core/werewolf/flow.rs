//! decide, and the day (regulation 注意事項: a day of talk, vote and night; official server
//! logic/game.go): the deal, the phases as the profile lists them, the win check after every
//! phase, FINISH. One request at a time; talk, votes, verdicts and the arbiter's acts are in
//! their own files (talk.rs, ballots.rs, verdicts.rs, arbiter.rs).
//!
//! `decide` works on a copy of the table: each event is applied (`evolve`) as it is produced, so
//! what the caller gets by applying the events in order is exactly the state decide reasoned on.
use super::event::{DealtSeat, Event, Part, Request};
use super::packet;
use super::profile::{Action, Role, Winner};
use super::random::{Stream, order_label};
use super::sections as s;
use super::table::{ActState, DayStatus, Pc, Table};
use super::{Input, Refusal};
use super::{arbiter, ballots, talk, verdicts};

pub(super) struct Run {
    pub(super) t: Table,
    pub(super) out: Vec<Event>,
    pub(super) at: u64,
}

impl Run {
    pub(super) fn emit(&mut self, e: Event) {
        self.t.apply(&e);
        self.out.push(e);
    }

    pub(super) fn send(&mut self, seat: usize, request: Request) {
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
    pub(super) fn broadcast(&mut self, request: Request) {
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

pub(super) fn strip(text: &str) -> String {
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
            verdicts::on_frame(&mut r, *seat, text, *at_ms);
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
            verdicts::on_closed(&mut r, *seat, *at_ms);
        }
        Input::Reconnected { seat, at_ms } => {
            seat_ok(*seat)?;
            arbiter::on_reconnected(&mut r, *seat, *at_ms);
        }
        Input::Tick { at_ms } => verdicts::on_tick(&mut r, t, *at_ms),
        Input::Arbiter { act, at_ms } => arbiter::arbiter(&mut r, t, act, *at_ms)?,
        Input::Approved {
            act,
            command,
            approval,
            at_ms,
        } => {
            r.emit(Event::Approved {
                at_ms: *at_ms,
                command: command.clone(),
                act: act.clone(),
                approval: approval.clone(),
            });
            arbiter::arbiter(&mut r, t, act, *at_ms)?
        }
        Input::AuthorizationFailed {
            command,
            why,
            at_ms,
        } => r.emit(Event::AuthorizationFailed {
            at_ms: *at_ms,
            command: command.clone(),
            why: why.clone(),
        }),
        Input::Restarted { at_ms, on_restart } => {
            arbiter::on_restarted(&mut r, *at_ms, *on_restart)
        }
    }
    Ok(r.out)
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

/// Play on until a request awaits an answer, the table is paused, or the game is over.
pub(super) fn advance(r: &mut Run) {
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

pub(super) fn end_phase(r: &mut Run, reason: &str) {
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

pub(super) fn end_game(r: &mut Run, winner: Winner, reason: String) {
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
        ActState::Comm(c) => talk::step_comm(r, c),
        ActState::Ballots(b) => ballots::step_ballots(r, b),
        ActState::Single(sg) => ballots::step_single(r, sg),
        ActState::Instant => end_phase(r, "done"),
    }
}
