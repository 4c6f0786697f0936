//! A werewolf game re-run from its events (what `verify` checks), and the length counter against
//! the official rule on real Japanese talk.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use arbiter::core::werewolf::{
    self, Act, Approval, Event, Input, Limits, OnRestart, Request, Seed, count_length, cut, replay,
};
use proptest::prelude::*;

use crate::werewolf_support::{G, quiet};

fn replayed(g: &G) -> Result<werewolf::Table, werewolf::Mismatch> {
    replay(&g.profile, "GAME1", g.seats.clone(), &g.seed, &g.events)
}

/// The arbiter's acts, rule 5b as the board keeps it: a wrong passphrase at the game master's
/// screen is an entry of its own (the kit's, the acts' section) that changes nothing; an act with
/// its approval is an `approved` entry (the arbiter's) before the act's own; both re-run.
#[test]
fn arbiter_acts_a_failed_passphrase_and_an_approval_are_recorded_and_re_run() {
    let mut g = G::new("aiwolf-2025-5", 3);
    g.begin();
    let before = g.t.clone();
    g.now += 1;
    let failed = g.input(Input::AuthorizationFailed {
        command: "pause power cut".into(),
        why: "wrong passphrase".into(),
        at_ms: g.now,
    });
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].kind(), "authorization_failed");
    assert_eq!(failed[0].actor(), "kit");
    assert!(failed[0].section().contains("the arbiter's acts"));
    assert_eq!(
        g.t, before,
        "a failed passphrase changes nothing at the table"
    );
    g.now += 1;
    let act = g.input(Input::Approved {
        act: Act::Pause {
            reason: "power cut".into(),
        },
        command: "pause power cut".into(),
        approval: Approval::Owner {
            channel: "--control".into(),
        },
        at_ms: g.now,
    });
    let kinds: Vec<&str> = act.iter().map(|e| e.kind()).collect();
    assert_eq!(kinds, ["approved", "paused"]);
    assert_eq!(act[0].actor(), "arbiter");
    assert_eq!(act[0].body()["approval"]["by"], "owner");
    assert!(g.t.paused());
    // A refused act records no approval either.
    assert!(
        werewolf::decide(
            &g.t,
            &Input::Approved {
                act: Act::Pause {
                    reason: "again".into()
                },
                command: "pause again".into(),
                approval: Approval::UnencryptedKey,
                at_ms: g.now,
            }
        )
        .is_err()
    );
    assert_eq!(replayed(&g).unwrap(), g.t);
    for e in &g.events {
        assert_eq!(&Event::from_entry(e.kind(), &e.body()).unwrap(), e);
    }
}

#[test]
fn replay_of_a_recorded_game_gives_the_same_table() {
    // Given a 13-seat game played to the end with talk and votes.
    let mut g = G::new("aiwolf-2025-13", 11);
    g.begin();
    g.play(|t, s, r| match r {
        Request::Talk | Request::Whisper => {
            format!("@{} {}", t.seats()[(s + 3) % 13].name, "考".repeat(55))
        }
        _ => quiet(t, s, r),
    });
    // When it is replayed from its events; then the table is the same.
    assert_eq!(replayed(&g).unwrap(), g.t);
    // And each event reads back from its entry (kind, body).
    for e in &g.events {
        assert_eq!(&Event::from_entry(e.kind(), &e.body()).unwrap(), e);
    }
}

#[test]
fn replay_names_the_first_event_the_rules_do_not_give() {
    // Given a recorded 5-seat game; when one talk's text is altered in the log.
    let mut g = G::new("aiwolf-2025-5", 4);
    g.begin();
    g.play(|t, s, r| match r {
        Request::Talk => "おはよう".into(),
        _ => quiet(t, s, r),
    });
    let i = g.events.iter().position(|e| e.kind() == "talked").unwrap();
    let mut bad = g.events.clone();
    if let Event::Talked { text, .. } = &mut bad[i] {
        *text = "こんばんは".into();
    }
    let m = replay(&g.profile, "GAME1", g.seats.clone(), &g.seed, &bad).unwrap_err();
    // Then the mismatch names that entry, its kind, and both versions.
    assert_eq!((m.index, m.kind.as_str()), (i, "talked"));
    assert!(
        m.message.contains("こんばんは") && m.message.contains("おはよう"),
        "{}",
        m.message
    );
    // And a wrong seed is caught at the deal; a truncated log where the rules go on.
    let m = replay(
        &g.profile,
        "GAME1",
        g.seats.clone(),
        &Seed([5; 32]),
        &g.events,
    )
    .unwrap_err();
    assert_eq!((m.index, m.kind.as_str()), (1, "dealt"));
    let cut_at = g
        .events
        .iter()
        .position(|e| e.kind() == "night_begun")
        .unwrap();
    let m = replay(
        &g.profile,
        "GAME1",
        g.seats.clone(),
        &g.seed,
        &g.events[..cut_at],
    )
    .unwrap_err();
    assert_eq!(m.index, cut_at);
    // And an event no input gives (a vote slipped in) is named.
    let mut extra = g.events.clone();
    extra.insert(cut_at, Event::NoExecution { day: 0 });
    let m = replay(&g.profile, "GAME1", g.seats.clone(), &g.seed, &extra).unwrap_err();
    assert_eq!((m.index, m.kind.as_str()), (cut_at, "no_execution"));
}

/// One step of a generated game: a code and a number.
fn step(g: &mut G, code: u8, n: u32) {
    if werewolf::finished(&g.t).is_some() {
        return;
    }
    let seats = g.seats.len();
    let any = n as usize % seats;
    let texts = [
        "Over",
        "Skip",
        "SKIP",
        "over",
        "",
        "ForceSkip",
        "おはようございます\r\n",
    ];
    let paused = g.t.paused();
    match code % 18 {
        0..=5 => {
            let Some((seat, req)) = g.pending() else {
                return;
            };
            let probed = g.t.pending().is_some_and(|p| p.probe_deadline_ms.is_some());
            let text = match req {
                // The probe awaits: the seat's own name, half the time.
                _ if probed && n.is_multiple_of(2) => g.seats[seat].name.clone(),
                Request::Talk | Request::Whisper => match n % 9 {
                    k @ 0..=6 => texts[k as usize].to_string(),
                    7 => format!(
                        "{}@{}{}",
                        "前".repeat(n as usize % 70),
                        g.name(any),
                        "後".repeat(n as usize % 90)
                    ),
                    _ => "話".repeat(n as usize % 120),
                },
                _ if n.is_multiple_of(7) => "だれ".into(),
                _ => g.name(any),
            };
            g.frame(seat, &text, u64::from(n % 3000));
        }
        6 if !paused && werewolf::deadline(&g.t).is_some() => {
            g.tick();
        }
        7 if !paused => {
            if let (Some(d), Some((seat, _))) = (werewolf::deadline(&g.t), g.pending()) {
                g.now = g.now.max(d + 1);
                g.frame(seat, "遅刻", 0);
            }
        }
        8 => {
            g.frame(any, "勝手に", 1);
        }
        9 => {
            g.now += 1;
            g.input(Input::Binary {
                seat: any,
                len: u64::from(n),
                at_ms: g.now,
            });
        }
        10 => {
            g.now += 1;
            g.input(Input::Oversize {
                seat: any,
                len: u64::from(n) + 70_000,
                at_ms: g.now,
            });
        }
        11 if n.is_multiple_of(5) => {
            g.now += 1;
            g.input(Input::Closed {
                seat: any,
                at_ms: g.now,
            });
        }
        12 => {
            g.now += 100;
            let act = if g.t.paused() {
                Act::Resume
            } else {
                Act::Pause {
                    reason: "break".into(),
                }
            };
            if !g.t.paused()
                || werewolf::decide(
                    &g.t,
                    &Input::Arbiter {
                        act: act.clone(),
                        at_ms: g.now,
                    },
                )
                .is_ok()
            {
                g.input(Input::Arbiter { act, at_ms: g.now });
            }
        }
        13 => {
            g.input(Input::Arbiter {
                act: Act::Note {
                    text: format!("note {n}"),
                },
                at_ms: g.now,
            });
        }
        14 => {
            let act = if g.t.seats()[any].error {
                Act::Readmit { seat: any }
            } else {
                Act::Eject {
                    seat: any,
                    reason: "test".into(),
                }
            };
            g.input(Input::Arbiter { act, at_ms: g.now });
        }
        16 => {
            g.now += 1;
            g.input(Input::AuthorizationFailed {
                command: format!("note {n}"),
                why: "wrong passphrase".into(),
                at_ms: g.now,
            });
        }
        17 => {
            g.now += 1;
            g.input(Input::Approved {
                act: Act::Note {
                    text: format!("approved {n}"),
                },
                command: format!("note approved {n}"),
                approval: if n.is_multiple_of(2) {
                    Approval::Owner {
                        channel: "--control".into(),
                    }
                } else {
                    Approval::Passphrase {
                        key: "SHA256:x".into(),
                        signed_at: "2026-11-28T12:00:00.000Z".into(),
                        sig: "c2ln".into(),
                    }
                },
                at_ms: g.now,
            });
        }
        15 if !paused => {
            g.now += 1000;
            g.input(Input::Restarted {
                at_ms: g.now,
                on_restart: OnRestart::Resume,
            });
            for s in 0..seats {
                g.now += 1;
                g.input(Input::Reconnected {
                    seat: s,
                    at_ms: g.now,
                });
            }
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any game, faults included, replays from its events to the same table, and every event
    /// reads back from its log entry.
    #[test]
    fn replay_of_any_generated_game_gives_the_same_table_and_events(
        thirteen in any::<bool>(),
        seed in any::<[u8; 32]>(),
        steps in proptest::collection::vec((any::<u8>(), any::<u32>()), 0..400),
    ) {
        let name = if thirteen { "aiwolf-2025-13" } else { "aiwolf-2025-5" };
        let mut g = G::with(crate::werewolf_support::profile(name), Seed(seed));
        g.begin();
        for (code, n) in steps {
            step(&mut g, code, n);
        }
        if g.t.paused() {
            g.now += 1;
            let ok = werewolf::decide(&g.t, &Input::Arbiter { act: Act::Resume, at_ms: g.now }).is_ok();
            if ok {
                g.input(Input::Arbiter { act: Act::Resume, at_ms: g.now });
            }
        }
        if !g.t.paused() && werewolf::finished(&g.t).is_none() {
            g.play(quiet);
        }
        let t = replayed(&g);
        prop_assert!(t.is_ok(), "{:?}", t.err());
        prop_assert_eq!(t.unwrap(), g.t.clone());
        for e in &g.events {
            prop_assert_eq!(&Event::from_entry(e.kind(), &e.body()).unwrap(), e);
        }
    }
}

// ----- the length counter on real talk -----

const JA: Limits = Limits {
    base_length: 50,
    mention_length: 50,
    per_talk: None,
    count_in_word: false,
    count_spaces: false,
};

fn talk_lines() -> Option<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for up in ["../shared", "../../shared"] {
        let p = root.join(up).join("data/aiwolf-talk/talk-lines-2019.txt");
        if let Ok(t) = std::fs::read_to_string(&p) {
            return Some(t);
        }
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "shared/data/aiwolf-talk is required in CI"
    );
    println!("SKIPPED: shared/data/aiwolf-talk/talk-lines-2019.txt is not next to the repository");
    None
}

fn names() -> Vec<String> {
    (1..=15).map(|i| format!("Agent[{i:02}]")).collect()
}

#[test]
fn regulation_length_golden_lines_counted_by_the_official_rule() {
    // Lines of the 2019 talk, counted by hand: code points, whitespace (U+3000 too) not counted.
    let golden: [(&str, u32); 4] = [
        ("こんにちは！　お会いできて嬉しいです！", 18),
        ("やっほー。私も負けないぞー。", 14),
        (
            "はじめまして。Agent[04]だ。ここは怪奇現象で有名な村なんだよ。",
            35,
        ),
        ("おはようございます。緊張して眠れませんでした。", 23),
    ];
    let lines = talk_lines();
    for (line, want) in golden {
        if let Some(all) = &lines {
            assert!(all.lines().any(|l| l == line), "{line} is a real line");
        }
        assert_eq!(
            count_length(line, &names(), "Agent[01]", &JA),
            (want, 0),
            "{line}"
        );
        assert_eq!(cut(line, &names(), "Agent[01]", &JA).text, line);
    }
    // A mention of another seat splits the line; the mention itself is not counted.
    let m = "ねえ　@Agent[04]こんにちは！　お会いできて嬉しいです！";
    assert_eq!(count_length(m, &names(), "Agent[01]", &JA), (2, 18));
    assert_eq!(
        cut(m, &names(), "Agent[01]", &JA).text,
        "ねえ　 @Agent[04] こんにちは！　お会いできて嬉しいです！"
    );
    // Two mentions: the earliest in the text splits, whatever the seat order.
    let two = "@Agent[05]おはよう@Agent[02]";
    let c = cut(two, &names(), "Agent[01]", &JA);
    assert_eq!(c.mention_name.as_deref(), Some("Agent[05]"));
    assert_eq!((c.base, c.mention), (0, 14));
    // Its own name is no mention.
    assert_eq!(count_length(m, &names(), "Agent[04]", &JA), (30, 0));
}

#[test]
fn regulation_length_every_real_line_is_cut_at_fifty_counted_characters() {
    let Some(all) = talk_lines() else { return };
    let mut cut_lines = 0;
    for line in all.lines() {
        let n = line.chars().filter(|c| !c.is_whitespace()).count() as u32;
        let c = cut(line, &[], "Agent[01]", &JA);
        assert_eq!(c.base, n, "{line}");
        // The table sees a prefix of the line with min(n, 50) counted characters, ending on one.
        assert!(line.starts_with(&c.text), "{line}");
        assert_eq!(count_length(&c.text, &[], "", &JA).0, n.min(50), "{line}");
        assert_eq!(c.cut, n > 50, "{line}");
        if n > 50 {
            cut_lines += 1;
            assert!(!c.text.ends_with(char::is_whitespace));
        }
    }
    assert!(
        cut_lines > 10,
        "the file has lines over 50 characters ({cut_lines})"
    );
}

#[test]
fn regulation_length_inlg_counts_125_characters_spaces_not_counted() {
    let en = Limits {
        base_length: 125,
        mention_length: 125,
        ..JA
    };
    let text = "word ".repeat(40);
    // 40 words of 4 letters: 160 counted characters; the cut keeps 125 (31 words and a letter).
    let c = cut(&text, &[], "Minato", &en);
    assert_eq!((c.base, c.cut), (160, true));
    assert_eq!(count_length(&c.text, &[], "", &en).0, 125);
    assert!(c.text.ends_with(" w"));
}

/// The generator of the property test reaches every kind of entry and every verdict: run it on
/// fixed seeds and count.
#[test]
fn replay_generated_games_reach_every_entry_kind_and_verdict() {
    let mut kinds = std::collections::BTreeSet::new();
    let mut verdicts = std::collections::BTreeSet::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for game in 0..80u32 {
        let name = if game % 2 == 0 {
            "aiwolf-2025-13"
        } else {
            "aiwolf-2025-5"
        };
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&next().to_be_bytes());
        let mut g = G::with(crate::werewolf_support::profile(name), Seed(seed));
        g.begin();
        for _ in 0..300 {
            let r = next();
            // Mostly answers, now and then a fault or an act.
            let code = if r % 12 == 0 {
                (r >> 8) as u8
            } else {
                (r >> 8) as u8 % 6
            };
            step(&mut g, code, (r >> 32) as u32);
        }
        if g.t.paused() {
            g.now += 1;
            if werewolf::decide(
                &g.t,
                &Input::Arbiter {
                    act: Act::Resume,
                    at_ms: g.now,
                },
            )
            .is_ok()
            {
                g.input(Input::Arbiter {
                    act: Act::Resume,
                    at_ms: g.now,
                });
            }
        }
        if !g.t.paused() && werewolf::finished(&g.t).is_none() {
            g.play(quiet);
        }
        assert_eq!(replayed(&g).unwrap(), g.t);
        for e in &g.events {
            kinds.insert(e.kind());
            if let Event::FrameReceived { verdict, .. } = e {
                verdicts.insert(format!("{verdict:?}"));
            }
        }
    }
    let missing: Vec<&str> = [
        "game_begun",
        "frame_received",
        "binary_frame",
        "oversize_frame",
        "connection_closed",
        "reconnected",
        "timed_out",
        "paused",
        "resumed",
        "noted",
        "ejected",
        "readmitted",
        "restarted",
        "dealt",
        "sent",
        "seat_in_error",
        "request_failed",
        "day_begun",
        "night_begun",
        "phase_begun",
        "turn_begun",
        "phase_ended",
        "talk_cut",
        "talk_replaced",
        "talked",
        "target_invalid",
        "voted",
        "tallied",
        "tie_broken",
        "executed",
        "divined",
        "guarded",
        "attacked",
        "game_ended",
    ]
    .into_iter()
    .filter(|k| !kinds.contains(k))
    .collect();
    assert!(missing.is_empty(), "never reached: {missing:?}");
    assert_eq!(verdicts.len(), 5, "{verdicts:?}");
}

/// docs/log-format.md's recipe, run by Python on a played game's revealed seed, gives the deal
/// and the day-0 talk order the log records: a committee re-runs the draws without this program.
#[test]
fn docs_draws_rerun_without_this_program() {
    let doc = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/log-format.md"),
    )
    .unwrap();
    let at = doc.find("A committee can re-run the draws").unwrap();
    let open = doc[at..].find("```python\n").unwrap() + at + "```python\n".len();
    let close = doc[open..].find("```").unwrap() + open;
    let mut g = G::new("aiwolf-2025-5", 21);
    g.begin();
    g.play(quiet);
    let Some(Event::GameEnded { seed, .. }) = g.events.last() else {
        panic!()
    };
    let recipe = doc[open..close]
        .replace("GAME_ENDED_SEED", &format!("{seed:?}"))
        .replace("SEED_SHA256", &format!("{:?}", g.seed.commitment()));
    let script = format!("{recipe}\nprint(','.join(roles))\nprint(','.join(map(str, order)))\n");
    let out = std::process::Command::new("python3")
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = String::from_utf8(out.stdout).unwrap();
    let mut lines = out.lines();
    let roles: Vec<String> = (0..5).map(|s| g.role(s).name().to_string()).collect();
    assert_eq!(lines.next().unwrap(), roles.join(","));
    let order = g
        .events
        .iter()
        .find_map(|e| match e {
            Event::PhaseBegun {
                day: 0,
                name,
                order,
                ..
            } if name == "daily_talk" => Some(order.clone()),
            _ => None,
        })
        .unwrap();
    let order: Vec<String> = order.iter().map(|s| s.to_string()).collect();
    assert_eq!(lines.next().unwrap(), order.join(","));
}
