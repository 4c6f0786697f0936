//! Votes and targets (regulation 注意事項: one vote each, the most voted executed; 投票、襲撃、
//! 占い先などの指定方法: a character's name only; 開催するゲームの役職について: seer, bodyguard,
//! werewolves; official server logic/vote.go, execution.go, divine.go, guard.go, attack.go).
use super::event::{Ballot, Event, Invalid, Request};
use super::flow::{Run, end_phase};
use super::profile::Role;
use super::random::{Stream, tie_label};
use super::table::{Ballots, Single};
use super::verdicts::fail;

/// One step of a vote: ask the next voter, or count.
pub(super) fn step_ballots(r: &mut Run, b: Ballots) {
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

/// One step of a divination or guard: ask the seat, or end the phase.
pub(super) fn step_single(r: &mut Run, sg: Single) {
    match sg.seat {
        _ if sg.done => {
            let why = if sg.seat.is_none() {
                "nobody alive to ask"
            } else {
                "done"
            };
            end_phase(r, why)
        }
        Some(seat) if r.t.seats[seat].error => fail(r, seat, sg.request, "the seat is in error"),
        Some(seat) => r.send(seat, sg.request),
        None => end_phase(r, "nobody alive to ask"),
    }
}

/// The seat a target names, or why it does not count (unknown, dead, self).
pub(super) fn target(r: &Run, seat: usize, text: &str, allow_self: bool) -> Result<usize, Invalid> {
    let tg = r.t.seat_named(text).ok_or(Invalid::Unknown)?;
    if !r.t.seats[tg].alive {
        return Err(Invalid::Dead);
    }
    if tg == seat && !allow_self {
        return Err(Invalid::SelfTarget);
    }
    Ok(tg)
}

pub(super) fn ballot_answer(r: &mut Run, seat: usize, ballot: Ballot, text: &str) {
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

pub(super) fn single_answer(r: &mut Run, seat: usize, request: Request, text: &str) {
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

pub(super) fn tally(r: &mut Run, b: &Ballots) {
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
