//! Talk and whisper (regulation 注意事項: turns in random order, Skip and Over; １発話あたりの
//! 発話上限について: the cut; official server logic/communication.go): who is asked next, what
//! an answer counts as, and the text the table sees.
use super::event::{Channel, Event, Request, TalkKind};
use super::flow::{Run, end_phase};
use super::length;
use super::random::{Stream, order_label};
use super::table::{ActState, Comm};
use super::verdicts::fail;

/// One step of a talk or whisper phase: ask the next seat with talks left, or begin the next
/// turn, or end the phase (a whole turn without talk, or the last turn).
pub(super) fn step_comm(r: &mut Run, c: Comm) {
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
        None if c.turn + 1 >= rules.per_day => end_phase(r, "the last turn (max_count.per_day)"),
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

pub(super) fn talked(r: &mut Run, seat: usize, kind: TalkKind, text: String) {
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

pub(super) fn talk_answer(r: &mut Run, seat: usize, raw: &str) {
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
    let c = length::cut_with(&text, &names, &own, &limits, rules.mention);
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
