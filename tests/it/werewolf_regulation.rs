//! The AI Werewolf regulation and the official server's behaviour, one test each, driven
//! through the pure core (given / when / then). `regulation_*` tests name the regulation's
//! section; `server_*` tests name a behaviour of the official server (aiwolf-nlp-server) the
//! regulation is silent on.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::core::werewolf::random::{Stream, tie_label};
use arbiter::core::werewolf::{
    self, Ballot, Event, Invalid, Request, Role, Seed, Species, TalkKind, TalkOrder, Winner,
};

use crate::werewolf_support::{G, frames_to, profile, quiet};

/// Answer TALK with a greeting (never Over), everything else like `quiet`.
fn chatty(t: &werewolf::Table, seat: usize, req: Request) -> String {
    match req {
        Request::Talk | Request::Whisper => "こんにちは".into(),
        _ => quiet(t, seat, req),
    }
}

/// The seats asked for `request` between two events' indexes.
fn asked(events: &[Event], request: Request) -> Vec<usize> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Sent {
                seat, request: r, ..
            } if *r == request => Some(*seat),
            _ => None,
        })
        .collect()
}

// ----- 開催するゲームの役職について / キャラクター設定について -----

#[test]
fn regulation_roles_dealt_from_the_seed_for_5_9_and_13_seats() {
    for (name, wolves) in [
        ("aiwolf-2025-5", 1),
        ("aiwolf-2026-9", 2),
        ("aiwolf-2025-13", 3),
    ] {
        // Given a table under the profile; when the game begins twice with one seed.
        let mut a = G::new(name, 7);
        let mut b = G::new(name, 7);
        a.begin();
        b.begin();
        // Then the deal is the profile's roles, the same for the same seed.
        let deal = a.of("dealt")[0].clone();
        assert_eq!(&deal, b.of("dealt")[0]);
        let p = profile(name);
        for role in Role::ALL {
            assert_eq!(
                a.seats_with(role).len() as u32,
                p.count(role),
                "{name} {role:?}"
            );
        }
        assert_eq!(a.seats_with(Role::Werewolf).len(), wolves);
        // And it is the documented draw: roles shuffled from the profile's deck.
        let mut deck = p.role_deck();
        Stream::new(&Seed([7; 32]), "roles").shuffle(&mut deck);
        let dealt: Vec<Role> = (0..deck.len()).map(|i| a.role(i)).collect();
        assert_eq!(dealt, deck);
    }
    // Another seed deals otherwise (for these two seeds).
    let mut c = G::new("aiwolf-2025-13", 8);
    c.begin();
    let mut d = G::new("aiwolf-2025-13", 7);
    d.begin();
    assert_ne!(c.of("dealt")[0], d.of("dealt")[0]);
}

#[test]
fn regulation_characters_sent_with_initialize_name_age_gender_personality() {
    // Given a 13-seat table; when the game begins.
    let mut g = G::new("aiwolf-2025-13", 3);
    g.begin();
    let wolves = g.seats_with(Role::Werewolf);
    for seat in 0..13 {
        let init = &frames_to(&g.events, seat)[0];
        // Then INITIALIZE carries the seat's character and the setting.
        assert_eq!(init["request"], "INITIALIZE");
        assert_eq!(init["info"]["agent"], g.name(seat));
        let prof = init["info"]["profile"].as_str().unwrap();
        assert!(
            prof.starts_with("年齢: ") && prof.contains("\n性別: ") && prof.contains("\n性格: ")
        );
        assert_eq!(init["setting"]["agent_count"], 13);
        // And the role map shows the own role; a werewolf sees the other werewolves too.
        let roles = init["info"]["role_map"].as_object().unwrap();
        if wolves.contains(&seat) {
            assert_eq!(roles.len(), 3);
        } else {
            assert_eq!(roles.len(), 1);
        }
        assert_eq!(roles[&g.name(seat)], g.role(seat).name());
    }
}

// ----- 注意事項: the day -----

#[test]
fn regulation_day_zero_whisper_talk_whisper_divine_then_day_one_adds_execution_guard_attack() {
    // Given a 13-seat game (three werewolves whisper); when it is played quietly through day 1.
    let mut g = G::new("aiwolf-2025-13", 5);
    g.begin();
    g.play_until(quiet, |g| g.t.day() >= 2);
    let phases: Vec<(u32, String)> = g
        .events
        .iter()
        .filter_map(|e| match e {
            Event::PhaseBegun { day, name, .. } => Some((*day, name.clone())),
            _ => None,
        })
        .collect();
    let of_day = |d: u32| -> Vec<&str> {
        phases
            .iter()
            .filter(|(x, _)| *x == d)
            .map(|(_, n)| n.as_str())
            .collect()
    };
    // Then day 0 has no execution and no attack; day 1 has them.
    assert_eq!(
        of_day(0),
        ["morning_whisper", "daily_talk", "evening_whisper", "divine"]
    );
    assert_eq!(
        of_day(1),
        [
            "daily_talk",
            "execution",
            "divine",
            "night_whisper",
            "guard",
            "attack"
        ]
    );
}

#[test]
fn server_divine_every_night_including_night_zero() {
    // Given a 5-seat game; when two nights pass.
    let mut g = G::new("aiwolf-2025-5", 2);
    g.begin();
    g.play_until(quiet, |g| {
        g.t.day() >= 2
            || g.seats_with(Role::Seer)
                .iter()
                .all(|&s| !g.t.seats()[s].alive)
    });
    // Then the seer was asked on night 0, and its result came the next morning.
    let divined: Vec<u32> = g
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Divined { day, .. } => Some(*day),
            _ => None,
        })
        .collect();
    assert_eq!(divined.first(), Some(&0));
    let seer = g.seats_with(Role::Seer)[0];
    let day1 = frames_to(&g.events, seer)
        .into_iter()
        .find(|f| f["request"] == "DAILY_INITIALIZE" && f["info"]["day"] == 1)
        .unwrap();
    assert_eq!(day1["info"]["divine_result"]["day"], 0);
}

// ----- 注意事項: talk -----

#[test]
fn server_per_agent_four_talks_a_day_remain_count_counts_down() {
    // Given a 5-seat game; when every seat talks every time it is asked.
    let mut g = G::new("aiwolf-2025-5", 4);
    g.begin();
    g.play_until(chatty, |g| {
        matches!(g.pending(), Some((_, Request::Divine)))
    });
    // Then each seat was asked exactly four times on day 0, its remain_count 3, 2, 1, 0.
    for seat in 0..5 {
        let counts: Vec<i64> = frames_to(&g.events, seat)
            .iter()
            .filter(|f| f["request"] == "TALK")
            .map(|f| f["info"]["remain_count"].as_i64().unwrap())
            .collect();
        assert_eq!(counts, [3, 2, 1, 0], "seat {seat}");
    }
    // And the fifth turn, where nobody had talks left, ended the phase.
    assert!(g.of("phase_ended").iter().any(|e| matches!(e, Event::PhaseEnded { name, reason, .. } if name == "daily_talk" && reason.contains("whole turn"))));
}

#[test]
fn server_talk_order_shuffled_once_per_phase_and_kept_every_turn() {
    // Given the 2025 profile (order drawn once a phase); when day 0's talk runs four turns.
    let mut g = G::new("aiwolf-2025-5", 9);
    g.begin();
    g.play_until(chatty, |g| {
        matches!(g.pending(), Some((_, Request::Divine)))
    });
    let order = match g
        .of("phase_begun")
        .iter()
        .find(|e| matches!(e, Event::PhaseBegun { name, .. } if name == "daily_talk"))
    {
        Some(Event::PhaseBegun { order, .. }) => order.clone(),
        _ => panic!(),
    };
    // Then every turn asks in that order, drawn from the seed under the documented label.
    let talks = asked(&g.events, Request::Talk);
    assert_eq!(talks.len(), 20);
    for turn in talks.chunks(5) {
        assert_eq!(turn, order.as_slice());
    }
    let mut want: Vec<usize> = (0..5).collect();
    Stream::new(&g.seed, "order/talk/0/daily_talk/0").shuffle(&mut want);
    assert_eq!(order, want);
}

#[test]
fn regulation_talk_order_random_every_turn_when_the_profile_says_per_turn() {
    // Given a profile choosing the regulation's reading (random each turn).
    let mut p = profile("aiwolf-2025-5");
    p.talk.order = TalkOrder::PerTurn;
    let mut g = G::with(p, Seed([9; 32]));
    g.begin();
    g.play_until(chatty, |g| {
        matches!(g.pending(), Some((_, Request::Divine)))
    });
    // Then each turn's order is its own draw.
    let talks = asked(&g.events, Request::Talk);
    for (turn, chunk) in talks.chunks(5).enumerate() {
        let mut want: Vec<usize> = (0..5).collect();
        Stream::new(&g.seed, format!("order/talk/0/daily_talk/{turn}")).shuffle(&mut want);
        assert_eq!(chunk, want.as_slice(), "turn {turn}");
    }
    let distinct: std::collections::BTreeSet<_> = talks.chunks(5).collect();
    assert!(distinct.len() > 1);
}

#[test]
fn server_skip_with_max_skip_zero_counts_as_over() {
    // Given the 2025 profile (max_skip 0); when the first seat asked answers Skip.
    let mut g = G::new("aiwolf-2025-5", 1);
    g.begin();
    let (seat, req) = g.pending().unwrap();
    assert_eq!(req, Request::Talk);
    let ev = g.answer("Skip");
    // Then the table records Over, says why, and never asks that seat again today.
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::TalkReplaced { text, .. } if text == "Over"))
    );
    assert!(ev.iter().any(
        |e| matches!(e, Event::Talked { text, counts_as: TalkKind::Over, .. } if text == "Over")
    ));
    g.play_until(chatty, |g| {
        matches!(g.pending(), Some((_, Request::Divine)))
    });
    assert_eq!(
        asked(&g.events, Request::Talk)
            .iter()
            .filter(|&&s| s == seat)
            .count(),
        1
    );
}

#[test]
fn server_skip_within_max_skip_is_skip_and_keeps_the_phase_going() {
    // Given a profile allowing one skip in a row.
    let mut p = profile("aiwolf-2025-5");
    p.talk.max_skip = 1;
    let mut g = G::with(p, Seed([1; 32]));
    g.begin();
    // When every seat skips, then the turn counts as talk (a Skip is not Over): a second turn.
    g.play_until(
        |t, s, r| match r {
            Request::Talk => "Skip".into(),
            _ => quiet(t, s, r),
        },
        |g| matches!(g.pending(), Some((_, Request::Divine))),
    );
    let kinds: Vec<TalkKind> = g
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Talked { counts_as, .. } => Some(*counts_as),
            _ => None,
        })
        .collect();
    // Turn 0: five Skips (one skip left each); turn 1: five Skips past max_skip, as Over.
    assert_eq!(&kinds[..5], &[TalkKind::Skip; 5]);
    assert_eq!(&kinds[5..10], &[TalkKind::Over; 5]);
    assert_eq!(kinds.len(), 10);
}

#[test]
fn server_a_turn_of_only_over_ends_the_phase() {
    // Given a 5-seat game; when every seat says Over in the first turn.
    let mut g = G::new("aiwolf-2025-5", 1);
    g.begin();
    for _ in 0..5 {
        g.answer("Over");
    }
    // Then the talk phase ends after one turn and the night begins.
    assert!(g.of("phase_ended").iter().any(|e| matches!(e, Event::PhaseEnded { name, reason, .. } if name == "daily_talk" && reason.contains("whole turn"))));
    assert_eq!(g.of("night_begun").len(), 1);
    assert_eq!(asked(&g.events, Request::DailyFinish).len(), 5);
}

#[test]
fn regulation_talk_length_base_and_mention_cut() {
    // Given the 2025 profile (50 + 50 characters); when a seat answers 60 characters, then
    // another seat 20 before a mention of a third and 70 after it.
    let mut g = G::new("aiwolf-2025-5", 1);
    g.begin();
    let long = "あ".repeat(60);
    let ev = g.answer(&long);
    let cut = ev.iter().find(|e| e.kind() == "talk_cut").unwrap();
    // Then the cut names the raw text, the counted lengths and the text the table saw.
    match cut {
        Event::TalkCut {
            raw,
            base,
            mention,
            text,
            base_limit,
            ..
        } => {
            assert_eq!(
                (raw.as_str(), *base, *mention, *base_limit),
                (long.as_str(), 60, 0, 50)
            );
            assert_eq!(text, &"あ".repeat(50));
        }
        _ => panic!(),
    }
    let (seat, _) = g.pending().unwrap();
    let other = (0..5).find(|&s| s != seat).unwrap();
    let said = format!("{}　@{}{}", "い".repeat(20), g.name(other), "う".repeat(70));
    let ev = g.answer(&said);
    match ev.iter().find(|e| e.kind() == "talk_cut").unwrap() {
        Event::TalkCut {
            base,
            mention,
            mention_name,
            text,
            ..
        } => {
            assert_eq!((*base, *mention), (20, 70));
            assert_eq!(mention_name.as_deref(), Some(g.name(other).as_str()));
            assert_eq!(
                text,
                &format!(
                    "{}　 @{} {}",
                    "い".repeat(20),
                    g.name(other),
                    "う".repeat(50)
                )
            );
        }
        _ => panic!(),
    }
    // And the seats' histories carry the cut text.
    assert!(ev.iter().any(|e| matches!(e, Event::Talked { text, .. } if text.ends_with(&"う".repeat(50)) && !text.ends_with(&"う".repeat(51)))));
}

// ----- 注意事項: the vote -----

/// Play to day 1's vote, then let `vote(voter)` name each voter's choice.
fn to_vote(seed: u8, name: &str) -> G {
    let mut g = G::new(name, seed);
    g.begin();
    g.play_until(quiet, |g| matches!(g.pending(), Some((_, Request::Vote))));
    g
}

#[test]
fn regulation_vote_the_most_voted_is_executed_and_the_medium_learns_the_species() {
    // Given a 13-seat game at day 1's vote; when every voter names the same werewolf.
    let mut g = to_vote(5, "aiwolf-2025-13");
    let wolf = *g
        .seats_with(Role::Werewolf)
        .iter()
        .find(|&&s| g.t.seats()[s].alive)
        .unwrap();
    let wolf_name = g.name(wolf);
    g.play_until(|_, _, _| wolf_name.clone(), |g| g.of("executed").len() == 1);
    // Then the werewolf is executed, and next morning the medium learns WEREWOLF.
    assert!(
        matches!(g.of("executed")[0], Event::Executed { seat, species: Species::Werewolf, .. } if *seat == wolf)
    );
    assert!(!g.t.seats()[wolf].alive);
    g.play_until(quiet, |g| g.t.day() >= 2);
    let medium = g.seats_with(Role::Medium)[0];
    if g.t.seats()[medium].alive {
        let f = frames_to(&g.events, medium)
            .into_iter()
            .find(|f| f["request"] == "DAILY_INITIALIZE" && f["info"]["day"] == 2)
            .unwrap();
        assert_eq!(f["info"]["medium_result"]["result"], "WEREWOLF");
        assert_eq!(f["info"]["medium_result"]["target"], wolf_name.as_str());
        assert_eq!(f["info"]["executed_agent"], wolf_name.as_str());
    }
}

#[test]
fn regulation_vote_tie_broken_by_seed() {
    let mut chosen = std::collections::BTreeSet::new();
    for seed in 1..=12u8 {
        // Given a 5-seat game at day 1's vote; when the votes split two against two (and one).
        let mut g = to_vote(seed, "aiwolf-2025-5");
        let alive: Vec<usize> = (0..5).filter(|&s| g.t.seats()[s].alive).collect();
        let (a, b) = (alive[0], alive[1]);
        let (na, nb) = (g.name(a), g.name(b));
        let (c, d) = (alive[2], alive[3]);
        g.play_until(
            |_, s, _| {
                // a and d for b, b and c for a, the fifth names nobody.
                if s == a || s == d {
                    nb.clone()
                } else if s == b || s == c {
                    na.clone()
                } else {
                    "x".into()
                }
            },
            |g| !g.of("tallied").is_empty(),
        );
        // Then the tie is drawn from the seed under the documented label, and that seat executed.
        let tie = g.of("tie_broken");
        let Some(Event::TieBroken {
            candidates,
            chosen: c,
            label,
            ..
        }) = tie.first().map(|e| (*e).clone())
        else {
            continue;
        };
        assert_eq!(label, tie_label("vote", 1, 0));
        let k = Stream::new(&g.seed, label).below(candidates.len() as u64) as usize;
        assert_eq!(c, candidates[k]);
        assert!(matches!(g.of("executed")[0], Event::Executed { seat, .. } if *seat == c));
        chosen.insert(k);
    }
    // Both candidates come up over the seeds.
    assert_eq!(chosen.len(), 2, "{chosen:?}");
}

#[test]
fn regulation_invalid_vote_target_unknown_dead_or_self_when_not_allowed() {
    // Given a profile that forbids self-votes, at day 1's vote.
    let mut p = profile("aiwolf-2025-5");
    p.vote.allow_self_vote = false;
    let mut g = G::with(p, Seed([3; 32]));
    g.begin();
    g.play_until(quiet, |g| matches!(g.pending(), Some((_, Request::Vote))));
    let dead = (0..5).find(|&s| !g.t.seats()[s].alive);
    // When the voters answer an unknown name, themselves, a dead seat.
    let (v1, _) = g.pending().unwrap();
    let ev = g.answer("だれでもない");
    assert!(ev.iter().any(
        |e| matches!(e, Event::TargetInvalid { seat, reason: Invalid::Unknown, .. } if *seat == v1)
    ));
    let (v2, _) = g.pending().unwrap();
    let own = g.name(v2);
    let ev = g.answer(&own);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::TargetInvalid {
            reason: Invalid::SelfTarget,
            ..
        }
    )));
    if let Some(d) = dead {
        let n = g.name(d);
        let ev = g.answer(&n);
        assert!(ev.iter().any(|e| matches!(
            e,
            Event::TargetInvalid {
                reason: Invalid::Dead,
                ..
            }
        )));
    }
    // Then none of them counts.
    g.play_until(quiet, |g| !g.of("tallied").is_empty());
    let Event::Tallied { counts, .. } = g.of("tallied")[0] else {
        panic!()
    };
    let total: u32 = counts.iter().map(|(_, c)| c).sum();
    let voters = (0..5).filter(|&s| g.t.seats()[s].alive).count() as u32 + 1;
    assert!(
        total <= voters - 3 + u32::from(dead.is_none()),
        "{counts:?}"
    );
}

// ----- night: divine, guard, attack -----

#[test]
fn regulation_divine_self_or_dead_gives_nothing() {
    // Given a 5-seat game at night 0's divination; when the seer names itself.
    let mut g = G::new("aiwolf-2025-5", 6);
    g.begin();
    g.play_until(quiet, |g| matches!(g.pending(), Some((_, Request::Divine))));
    let (seer, _) = g.pending().unwrap();
    let own = g.name(seer);
    let ev = g.answer(&own);
    // Then the target is invalid (self) and there is no result the next morning.
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::TargetInvalid {
            reason: Invalid::SelfTarget,
            request: Request::Divine,
            ..
        }
    )));
    assert!(g.of("divined").is_empty());
    g.play_until(quiet, |g| g.t.day() >= 1);
    let f = frames_to(&g.events, seer)
        .into_iter()
        .find(|f| f["request"] == "DAILY_INITIALIZE" && f["info"]["day"] == 1)
        .unwrap();
    assert!(f["info"].get("divine_result").is_none());
}

#[test]
fn server_guarded_target_survives_the_attack() {
    // Given a 13-seat game at night 1's guard.
    for seed in 1..=20u8 {
        let mut g = G::new("aiwolf-2025-13", seed);
        g.begin();
        g.play_until(quiet, |g| {
            matches!(g.pending(), Some((_, Request::Guard))) || g.t.day() >= 2
        });
        if g.t.day() >= 2 || werewolf::finished(&g.t).is_some() {
            continue;
        }
        // When the bodyguard guards a living villager and the werewolves attack that seat.
        let target = (0..13)
            .find(|&s| g.t.seats()[s].alive && g.role(s) == Role::Villager)
            .unwrap();
        let tn = g.name(target);
        g.answer(&tn);
        g.play_until(
            |_, _, _| tn.clone(),
            |g| !g.of("attacked").is_empty() || !g.of("no_attack").is_empty(),
        );
        // Then the attack is recorded as guarded and the target lives on.
        assert!(
            matches!(g.of("attacked")[0], Event::Attacked { target: t, guarded: true, .. } if *t == target)
        );
        assert!(g.t.seats()[target].alive);
        return;
    }
    panic!("no seed reached night 1 with a living bodyguard");
}

#[test]
fn server_attack_vote_for_a_werewolf_is_listed_not_counted() {
    // Given a 13-seat game at night 1's attack.
    let mut g = G::new("aiwolf-2025-13", 5);
    g.begin();
    g.play_until(quiet, |g| matches!(g.pending(), Some((_, Request::Attack))));
    let wolves: Vec<usize> = g
        .seats_with(Role::Werewolf)
        .into_iter()
        .filter(|&s| g.t.seats()[s].alive)
        .collect();
    let villager = (0..13)
        .find(|&s| g.t.seats()[s].alive && g.role(s) == Role::Villager)
        .unwrap();
    let (wn, vn) = (g.name(wolves[0]), g.name(villager));
    // When the first werewolf names a werewolf, the others a villager.
    let mut first = true;
    g.play_until(
        |_, _, _| {
            if std::mem::take(&mut first) {
                wn.clone()
            } else {
                vn.clone()
            }
        },
        |g| {
            !g.of("tallied").iter().all(|e| {
                matches!(
                    e,
                    Event::Tallied {
                        ballot: Ballot::Vote,
                        ..
                    }
                )
            })
        },
    );
    // Then that vote is invalid (werewolf) and the tally counts only the villager.
    assert!(g.events.iter().any(|e| matches!(
        e,
        Event::TargetInvalid {
            reason: Invalid::Werewolf,
            ..
        }
    )));
    let t = g
        .of("tallied")
        .into_iter()
        .find(|e| {
            matches!(
                e,
                Event::Tallied {
                    ballot: Ballot::Attack,
                    ..
                }
            )
        })
        .unwrap();
    let Event::Tallied {
        counts, candidates, ..
    } = t
    else {
        panic!()
    };
    assert_eq!(candidates, &vec![villager]);
    assert!(counts.iter().all(|(s, _)| *s == villager));
}

// ----- the end -----

#[test]
fn server_werewolves_win_when_they_equal_the_humans() {
    // Given a 5-seat game; when the village executes humans and the werewolf attacks humans.
    let mut g = G::new("aiwolf-2025-5", 2);
    g.begin();
    let w = g.play(|t, s, r| {
        match r {
            Request::Talk | Request::Whisper => "Over".into(),
            // Everyone votes for the first living human other than themselves.
            _ => t
                .seats()
                .iter()
                .enumerate()
                .find(|(i, x)| *i != s && x.alive && x.role != Role::Werewolf)
                .map(|(_, x)| x.name.clone())
                .unwrap_or_default(),
        }
    });
    // Then the werewolves win as soon as werewolves >= humans (the possessed counts as human):
    // one werewolf against one human, right after an execution.
    assert_eq!(w, Winner::Werewolf);
    let Some(Event::GameEnded {
        humans, werewolves, ..
    }) = g.events.last()
    else {
        panic!()
    };
    assert_eq!((*humans, *werewolves), (1, 1));
    assert!(
        matches!(g.of("phase_ended").last(), Some(Event::PhaseEnded { name, .. }) if name == "execution")
    );
}

#[test]
fn server_finish_to_every_seat_shows_every_role_and_the_seed_is_revealed() {
    // Given a 5-seat game played to the end.
    let mut g = G::new("aiwolf-2025-5", 1);
    g.begin();
    g.play(quiet);
    // Then FINISH went to every seat with every role, and the last entry reveals the seed.
    assert_eq!(asked(&g.events, Request::Finish).len(), 5);
    for seat in 0..5 {
        let f = frames_to(&g.events, seat).pop().unwrap();
        assert_eq!(f["request"], "FINISH");
        assert_eq!(f["info"]["role_map"].as_object().unwrap().len(), 5);
    }
    let Some(Event::GameEnded { seed, .. }) = g.events.last() else {
        panic!()
    };
    let revealed = Seed::from_hex(seed).unwrap();
    assert_eq!(revealed.commitment(), g.seed.commitment());
    assert_eq!(g.events.last().unwrap().kind(), "game_ended");
}

// ----- the protocol: aiwolf-nlp-common 0.7.0 reads every frame -----

#[test]
fn server_every_frame_parses_with_aiwolf_nlp_common() {
    // Given 5- and 13-seat games played to the end, with talk, cuts and mentions.
    let mut frames = Vec::new();
    for (name, seed) in [
        ("aiwolf-2025-5", 1),
        ("aiwolf-2025-13", 2),
        ("aiwolf-inlg-2025-5", 3),
    ] {
        let mut g = G::new(name, seed);
        g.begin();
        g.play(|t, s, r| match r {
            Request::Talk | Request::Whisper => format!(
                "@{} {}",
                t.seats()[(s + 1) % t.seats().len()].name,
                "話".repeat(60)
            ),
            _ => quiet(t, s, r),
        });
        for e in &g.events {
            if let Event::Sent { frame, .. } = e {
                frames.push(frame.clone());
            }
        }
    }
    // When aiwolf-nlp-common's strict parser reads each frame (as the reference agent does).
    let py = "import json,sys\nfrom aiwolf_nlp_common.packet import Packet, Request\nn=0\nfor line in sys.stdin:\n    p = Packet.from_dict(json.loads(line))\n    if p.info is not None:\n        assert p.info.role_map[p.info.agent] is not None\n    n += 1\nprint(n)\n";
    let Some(out) = crate::werewolf_support::python(py, &frames.join("\n")) else {
        return;
    };
    // Then every frame parses.
    assert_eq!(out.trim(), frames.len().to_string());
}

#[test]
fn regulation_divine_of_a_dead_seat_gives_nothing() {
    // Given a 5-seat game at night 1's divination, after an execution.
    let mut g = G::new("aiwolf-2025-5", 6);
    g.begin();
    g.play_until(quiet, |g| {
        matches!(g.pending(), Some((_, Request::Divine))) && g.t.day() == 1
    });
    let dead = (0..5).find(|&s| !g.t.seats()[s].alive).unwrap();
    // When the seer names the executed seat.
    let n = g.name(dead);
    let ev = g.answer(&n);
    // Then the target is invalid (dead) and no result is recorded.
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::TargetInvalid {
            reason: Invalid::Dead,
            request: Request::Divine,
            ..
        }
    )));
    assert!(!ev.iter().any(|e| e.kind() == "divined"));
}

// ----- the profiles -----

const WEREWOLF_PROFILES: [&str; 5] = [
    "aiwolf-2025-5",
    "aiwolf-2025-13",
    "aiwolf-inlg-2025-5",
    "aiwolf-inlg-2025-13",
    "aiwolf-2026-9",
];

#[test]
fn regulation_every_werewolf_profile_parses_and_every_number_cites_its_section() {
    for name in WEREWOLF_PROFILES {
        let path = format!("{}/rules/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let p = profile(name);
        assert!(werewolf::is_werewolf(&text), "{name}");
        assert!(
            text.contains("# Sources, as read for this profile:"),
            "{name}"
        );
        // Every number and choice outside the characters cites the regulation or the server.
        let rules_part = text.split("[[characters]]").next().unwrap();
        for line in rules_part
            .lines()
            .filter(|l| !l.starts_with('#') && l.contains(" = "))
        {
            let key = line.split(" = ").next().unwrap();
            if matches!(
                key,
                "name" | "source" | "action" | "age" | "gender" | "personality"
            ) {
                continue;
            }
            let comment = line.split_once(" # ").map(|(_, c)| c).unwrap_or("");
            assert!(
                comment.contains("regulation")
                    || comment.contains("official server")
                    || comment.contains("kit"),
                "{name}: {line}"
            );
        }
        // The talk order says which reading it chose.
        assert!(
            text.contains("order = \"per_phase\" # talk order: official server behaviour"),
            "{name}"
        );
        assert!(p.characters.len() >= p.table.seats as usize, "{name}");
    }
    // The 2026 nine-seat village.
    let p = profile("aiwolf-2026-9");
    let counts: Vec<u32> = Role::ALL.iter().map(|&r| p.count(r)).collect();
    assert_eq!(counts, [2, 1, 1, 1, 3, 1]);
    assert_eq!(p.error_limit(), 1);
    assert_eq!(profile("aiwolf-2025-13").error_limit(), 2);
    assert_eq!(profile("aiwolf-inlg-2025-5").talk.base_length, 125);
}

#[test]
fn server_setting_object_as_the_official_server_writes_it() {
    // Given the 2025 5-seat profile; then `setting` is, key for key, the official server's.
    let want = r#"{"agent_count":5,"vote_visibility":true,"talk":{"max_count":{"per_agent":4,"per_day":20},"max_length":{"count_in_word":false,"count_spaces":false,"mention_length":50,"base_length":50},"max_skip":0},"whisper":{"max_count":{"per_agent":0,"per_day":0},"max_length":{"count_in_word":false,"count_spaces":false,"mention_length":50,"base_length":50},"max_skip":0},"vote":{"max_count":1,"allow_self_vote":true},"attack_vote":{"max_count":1,"allow_self_vote":true,"allow_no_target":false},"timeout":{"action":60000,"response":120000},"role_num_map":{"BODYGUARD":0,"MEDIUM":0,"POSSESSED":1,"SEER":1,"VILLAGER":2,"WEREWOLF":1}}"#;
    assert_eq!(profile("aiwolf-2025-5").setting_json(), want);
}

#[test]
fn server_max_day_ends_the_game_with_no_winner() {
    // Given a profile whose last day is day 0; when day 0 is played.
    let mut p = profile("aiwolf-2025-5");
    p.table.max_day = Some(0);
    let mut g = G::with(p, Seed([1; 32]));
    g.begin();
    // Then the game ends after night 0 with no winner.
    assert_eq!(g.play(quiet), Winner::None);
    assert!(
        matches!(g.events.last(), Some(Event::GameEnded { day: 0, reason, .. }) if reason.contains("max_day"))
    );
}

#[test]
fn regulation_profiles_refuse_what_the_rules_cannot_be() {
    let text = std::fs::read_to_string(format!(
        "{}/rules/aiwolf-2025-5.toml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    for (from, to, says) in [
        ("VILLAGER = 2", "VILLAGER = 3", "add up to 6"),
        ("WEREWOLF = 1", "WEREWOLF = 0\nVILLAGER_X = 1", "VILLAGER_X"),
        (
            "max_error_permille = 200",
            "max_error_permille = 2000",
            "at most 1000",
        ),
        (
            "game = \"werewolf\"",
            "game = \"chess\"",
            "not \"werewolf\"",
        ),
        ("[vote]", "[vote]\nunknown_key = 1", "unknown_key"),
    ] {
        let bad = text.replacen(from, to, 1);
        let e = werewolf::Profile::parse(&bad).unwrap_err().to_string();
        assert!(e.contains(says), "{from} -> {to}: {e}");
    }
}

#[test]
fn server_two_mentions_split_at_the_first_seat_in_seat_order_as_the_official_server_does() {
    // Given the 2025 profile (mention = first_in_seat_order); when a seat's talk mentions a later
    // seat first in the text and an earlier seat after it.
    let mut g = G::new("aiwolf-2025-5", 1);
    g.begin();
    let (seat, _) = g.pending().unwrap();
    let others: Vec<usize> = (0..5).filter(|&s| s != seat).collect();
    let (low, high) = (others[0], others[3]);
    let said = format!(
        "@{}{}@{}{}",
        g.name(high),
        "前".repeat(60),
        g.name(low),
        "後".repeat(3)
    );
    let ev = g.answer(&said);
    // Then the earlier seat's mention splits it: the 60 characters before are cut to 50.
    let Some(Event::TalkCut {
        mention_name,
        base,
        mention,
        ..
    }) = ev.iter().find(|e| e.kind() == "talk_cut")
    else {
        panic!("{ev:?}")
    };
    assert_eq!(mention_name.as_deref(), Some(g.name(low).as_str()));
    assert_eq!(
        (*base, *mention),
        (61 + g.name(high).chars().count() as u32, 3)
    );
    // And a profile choosing the regulation's wording splits at the earliest mention instead.
    let mut p = profile("aiwolf-2025-5");
    p.talk.mention = werewolf::MentionRule::FirstInText;
    let mut g2 = G::with(p, Seed([1; 32]));
    g2.begin();
    let ev = g2.answer(&said);
    let Some(Event::TalkCut { mention_name, .. }) = ev.iter().find(|e| e.kind() == "talk_cut")
    else {
        panic!("{ev:?}")
    };
    assert_eq!(mention_name.as_deref(), Some(g.name(high).as_str()));
}

#[test]
fn server_whispers_reach_only_the_werewolves() {
    // Given a 13-seat game (three werewolves); when day 0 is played with whispers and talk.
    let mut g = G::new("aiwolf-2025-13", 4);
    g.begin();
    g.play_until(
        |t, s, r| match r {
            Request::Whisper => format!("囁き{s}"),
            _ => chatty(t, s, r),
        },
        |g| g.t.day() >= 1,
    );
    let wolves = g.seats_with(Role::Werewolf);
    assert!(!g.of("talked").is_empty());
    for seat in 0..13 {
        for f in frames_to(&g.events, seat) {
            let whispers = f.get("whisper_history");
            if wolves.contains(&seat) {
                if f["request"] == "DAILY_FINISH" || f["request"] == "WHISPER" {
                    assert!(whispers.is_some(), "{f}");
                }
            } else {
                // Then no frame to a human ever carries a whisper.
                assert!(whispers.is_none(), "seat {seat}: {f}");
                assert!(!f.to_string().contains("囁き"), "seat {seat}: {f}");
            }
        }
    }
}

#[test]
fn server_talk_history_is_the_talk_since_the_last_request_to_that_seat() {
    // Given a 5-seat game; when day 0's talk runs.
    let mut g = G::new("aiwolf-2025-5", 8);
    g.begin();
    g.play_until(chatty, |g| {
        matches!(g.pending(), Some((_, Request::Divine)))
    });
    // Then each TALK and DAILY_FINISH carries exactly the talk after the seat's previous request,
    // and the histories together hold every utterance once per seat.
    let total = g.of("talked").len();
    for seat in 0..5 {
        let mut seen = 0;
        for f in frames_to(&g.events, seat) {
            if let Some(h) = f.get("talk_history").and_then(|h| h.as_array()) {
                for t in h {
                    assert_eq!(t["idx"].as_u64().unwrap() as usize, seen, "seat {seat}");
                    seen += 1;
                }
            }
        }
        assert_eq!(seen, total, "seat {seat}");
    }
}
