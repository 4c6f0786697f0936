//! Rule 8b after a restart of the kit or a suspend of the machine: the arbiter rules once
//! on the gap the kit measured (from its last heartbeat), may charge part of it with a reason, may
//! stop the clocks while the ruling is pending; a ruling without a restart, a second one, or one
//! charging more than was measured is refused naming the clause.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use arbiter::board::matchdir::measured_gap;
use arbiter::board::tui::timing::suspended_ms;
use arbiter::core::Side;
use arbiter::core::event::EventKind;

use crate::clauses::{Match, started};

const H2: i64 = 2 * 3600 * 1000;

/// A game in which the kit "restarted" at 70 s with White's clock running, 60 s after it last ran.
fn restarted() -> Match {
    let mut m = started();
    m.at("0:10 move e4");
    m.at("0:20 move e5");
    m.s.restart_gap = Some(60_000);
    m.s.restart_side = Some(Side::White);
    m
}

#[test]
fn clause_8b_restart_gap_without_a_restart_is_refused() {
    let mut m = started();
    m.at("0:10 move e4");
    m.when("0:20 arbiter restart-gap waive no restart happened")
        .then_refused_saying("8b", "no restart");
    m = started();
    m.when("0:20 arbiter restart-gap charge 1:00:00 extra time")
        .then_refused_saying("8b", "no restart");
}

#[test]
fn clause_8b_restart_gap_charges_part_of_the_measured_gap_with_its_reason_once() {
    let mut m = restarted();
    // Nothing else is taken while the ruling is pending.
    assert!(m.try_line("1:10 move Nf3").is_err());
    let ev =
        m.at("1:10 arbiter restart-gap charge 0:00:20 the human thought at the board meanwhile");
    match &ev[0].kind {
        EventKind::RestartGap {
            gap_ms,
            charged,
            side,
            charged_ms,
            reason,
            ..
        } => {
            assert_eq!(
                (*gap_ms, *charged, *side, *charged_ms),
                (60_000, true, Some(Side::White), Some(20_000))
            );
            assert_eq!(
                reason.as_deref(),
                Some("the human thought at the board meanwhile")
            );
        }
        other => panic!("{other:?}"),
    }
    // The ruling cites 8b, as README and the help list it, whether waived or charged.
    assert_eq!(ev[0].clause, "8b");
    // White ran from 20 s to 70 s (50 s); 40 s of the 60 s gap are given back.
    assert_eq!(
        m.remaining(Side::White, 70_000),
        H2 - 10_000 - 50_000 + 40_000
    );
    // Once per restart.
    m.when("1:20 arbiter restart-gap waive again")
        .then_refused_saying("8b", "no restart");
}

#[test]
fn clause_8b_restart_gap_longer_than_measured_is_refused() {
    let m = restarted();
    m.when("1:10 arbiter restart-gap charge 0:01:01 more than happened")
        .then_refused_saying("8b", "more than the measured gap");
}

#[test]
fn clause_8b_waived_gap_is_given_back_and_needs_a_reason() {
    let mut m = restarted();
    let e = arbiter::core::command::parse("arbiter restart-gap waive")
        .unwrap_err()
        .to_string();
    assert!(e.contains("give the reason"), "{e}");
    let ev = m.at("1:10 arbiter restart-gap waive the kit crashed");
    assert_eq!(ev[0].clause, "8b");
    assert_eq!(
        m.remaining(Side::White, 70_000),
        H2 - 10_000 - 50_000 + 60_000
    );
}

#[test]
fn clause_8b_the_arbiter_may_stop_the_clocks_while_a_ruling_is_pending() {
    let mut m = restarted();
    let ev = m.at("1:10 arbiter stop the arbiter thinks about the gap");
    assert!(
        matches!(ev[0].kind, EventKind::ClockStopped { .. }),
        "{ev:?}"
    );
    // Stopped at 70 s: the thinking time of the arbiter is nobody's.
    assert_eq!(m.remaining(Side::White, 300_000), H2 - 10_000 - 50_000);
    m.at("5:00 arbiter restart-gap waive the kit crashed");
    assert_eq!(
        m.remaining(Side::White, 300_000),
        H2 - 10_000 - 50_000 + 60_000
    );
}

#[test]
fn clause_8b_restart_gap_is_measured_from_the_last_heartbeat() {
    let t = |s: i64| chrono::DateTime::from_timestamp(1_044_000_000 + s, 0).unwrap();
    // Last entry at 0 s (game time 20 s), beat at 50 s (game time 70 s), restart at 80 s.
    assert_eq!(
        measured_gap(t(80), 20_000, t(0), Some((70_000, t(50)))),
        30_000
    );
    // No beat, a beat older than the last entry, or one in the future: from the last entry.
    assert_eq!(measured_gap(t(80), 20_000, t(0), None), 80_000);
    assert_eq!(
        measured_gap(t(80), 20_000, t(0), Some((10_000, t(50)))),
        80_000
    );
    assert_eq!(
        measured_gap(t(80), 20_000, t(0), Some((70_000, t(90)))),
        80_000
    );
}

#[test]
fn clause_8b_a_simulated_suspend_is_caught() {
    // The monotonic clock stood still for a minute while the wall clock went on.
    assert_eq!(
        suspended_ms(Duration::from_millis(1_000), Duration::from_millis(61_000)),
        Some(60_000)
    );
    // Ordinary drift, and a wall clock set back, are not a suspend.
    assert_eq!(
        suspended_ms(Duration::from_millis(1_000), Duration::from_millis(1_300)),
        None
    );
    assert_eq!(
        suspended_ms(Duration::from_millis(1_000), Duration::from_millis(0)),
        None
    );
}

/// Time runs forward: a script stamps its entries from the time it ran, so a script of a long game
/// run quickly leaves entries stamped hours ahead of the wall clock; a reopening of that game (and
/// any later entry) is never stamped before the log's last entry.
#[test]
fn clause_5b_utc_never_runs_backwards_across_a_reopening() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let script = tmp.path().join("s.arb");
    std::fs::write(
        &script,
        "0 arbiter declare white human Garry Kasparov
0 arbiter declare black machine Deep Junior
0 arbiter declare operator Amir Ban
0 arbiter start
1:00:00 move e4
2:50:00 move e5
",
    )
    .unwrap();
    crate::realgame::ok(&crate::realgame::arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
    ]));
    let key = arbiter::record::sign::KeySource::default();
    let rules = std::path::Path::new("rules/kasparov-deep-junior-2003.toml");
    let mut o =
        arbiter::board::matchdir::open_game_with(&dir, Some(1), Some(rules), &key, false).unwrap();
    let cmd = arbiter::core::command::parse("arbiter stop the kit was reopened").unwrap();
    o.session.execute(&cmd, o.now_ms).unwrap();
    drop(o);
    let log = std::fs::read_to_string(dir.join("game-1").join("log.jsonl")).unwrap();
    let utcs: Vec<chrono::DateTime<chrono::Utc>> = log
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            chrono::DateTime::parse_from_rfc3339(v["utc"].as_str().unwrap())
                .unwrap()
                .with_timezone(&chrono::Utc)
        })
        .collect();
    assert!(utcs.len() >= 6, "{log}");
    assert!(
        utcs.windows(2).all(|w| w[0] <= w[1]),
        "UTC runs backwards: {utcs:?}"
    );
    // The script's last move is stamped almost three hours after its start, ahead of the wall
    // clock.
    assert!(
        utcs.iter()
            .any(|u| *u > chrono::Utc::now() + chrono::Duration::hours(2))
    );
}

/// The rules text puts a disruption that stops play under 8b; the ruling that charges the whole
/// gap is that same 8b ruling, not an operator's 6d input.
#[test]
fn clause_8b_restart_gap_charged_in_full_cites_8b_not_6d() {
    let mut m = restarted();
    let ev = m.at("1:10 arbiter restart-gap charge the machine kept thinking on its own");
    assert!(
        matches!(
            ev[0].kind,
            EventKind::RestartGap {
                charged: true,
                charged_ms: Some(60_000),
                ..
            }
        ),
        "{ev:?}"
    );
    assert_eq!(ev[0].clause, "8b");
    assert_eq!(m.remaining(Side::White, 70_000), H2 - 10_000 - 50_000);
}

/// The gap runs from the kit's last heartbeat, and the kit may have run on for up to
/// one beat interval after it: the real downtime lies between `gap - uncertainty` and `gap`.
/// Measured from the last entry (no beat that fits), no uncertainty is given.
#[test]
fn clause_8b_restart_gap_from_a_heartbeat_carries_its_uncertainty() {
    use arbiter::board::matchdir::{
        HEARTBEAT_MAX_INTERVAL_MS, measured_gap_bounds, restart_notice,
    };
    let t = |s: i64| chrono::DateTime::from_timestamp(1_044_000_000 + s, 0).unwrap();
    assert_eq!(
        measured_gap_bounds(t(80), 20_000, t(0), Some((70_000, t(50)))),
        (30_000, HEARTBEAT_MAX_INTERVAL_MS)
    );
    assert_eq!(measured_gap_bounds(t(80), 20_000, t(0), None), (80_000, 0));
    assert_eq!(
        measured_gap_bounds(t(80), 20_000, t(0), Some((70_000, t(90)))),
        (80_000, 0)
    );
    // A gap shorter than a beat interval: the downtime lies between 0 and the gap.
    assert_eq!(
        measured_gap_bounds(t(51), 20_000, t(0), Some((70_000, t(50)))),
        (1_000, 1_000)
    );
    let text = restart_notice(30_000, 2_000, Side::White);
    assert!(
        text.contains("between 0:00:28 (28000 ms) and 0:00:30")
            && text.contains("in white's favour"),
        "{text}"
    );
    assert!(!restart_notice(80_000, 0, Side::White).contains("between"));
}

/// The uncertainty goes to the side whose clock ran: `charge` charges the short end of
/// the range (the gap less the uncertainty), `waive` gives back the whole measured gap, and an
/// explicit `charge H:MM:SS` stands as given.
#[test]
fn clause_8b_restart_gap_charge_counts_the_short_end_of_the_uncertainty() {
    let mut m = restarted();
    m.s.restart_uncertainty = 2_000;
    let ev = m.at("1:10 arbiter restart-gap charge the machine kept thinking on its own");
    assert!(
        matches!(
            ev[0].kind,
            EventKind::RestartGap {
                gap_ms: 60_000,
                charged: true,
                charged_ms: Some(58_000),
                ..
            }
        ),
        "{ev:?}"
    );
    assert_eq!(ev[0].clause, "8b");
    // White ran 50 s from 20 s to 70 s; 2 s of the 60 s gap are given back.
    assert_eq!(
        m.remaining(Side::White, 70_000),
        H2 - 10_000 - 50_000 + 2_000
    );
    assert_eq!(m.s.restart_uncertainty, 0);
    let mut m = restarted();
    m.s.restart_uncertainty = 2_000;
    m.at("1:10 arbiter restart-gap waive the kit crashed");
    assert_eq!(
        m.remaining(Side::White, 70_000),
        H2 - 10_000 - 50_000 + 60_000
    );
    let mut m = restarted();
    m.s.restart_uncertainty = 2_000;
    let ev = m.at("1:10 arbiter restart-gap charge 0:00:20 the human thought at the board");
    assert!(
        matches!(
            ev[0].kind,
            EventKind::RestartGap {
                charged_ms: Some(20_000),
                ..
            }
        ),
        "{ev:?}"
    );
}

/// Through the match folder: a game reopened after a heartbeat (a signed one, on the
/// boot clock) has its gap from that beat and the beat interval as its uncertainty (never more
/// than the gap); without the heartbeat file, the gap runs from the last entry with none.
#[test]
fn clause_8b_reopened_game_gap_from_its_heartbeat_with_the_uncertainty() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let script = tmp.path().join("s.arb");
    std::fs::write(
        &script,
        "0 arbiter declare white human Garry Kasparov
0 arbiter declare black machine Deep Junior
0 arbiter declare operator Amir Ban
0 arbiter start
0 move e4
",
    )
    .unwrap();
    crate::realgame::ok(&crate::realgame::arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
    ]));
    let key = arbiter::record::sign::KeySource::default();
    let rules = std::path::Path::new("rules/kasparov-deep-junior-2003.toml");
    let open = || {
        arbiter::board::matchdir::open_game_with(&dir, Some(1), Some(rules), &key, false).unwrap()
    };
    // No heartbeat yet (a script writes none): from the last entry, no uncertainty.
    let o = open();
    assert!(o.session.restart_gap.is_some());
    assert_eq!(o.session.restart_side, Some(Side::Black));
    assert_eq!(o.session.restart_uncertainty, 0);
    let mut o = o;
    o.session.storage.heartbeat(o.now_ms, chrono::Utc::now());
    drop(o);
    let o = open();
    let gap = o.session.restart_gap.unwrap();
    // A v2 beat proves the start of its slot: the kit may have run a beat interval and a slot
    // after it.
    assert_eq!(
        o.session.restart_uncertainty,
        gap.min(
            arbiter::board::matchdir::HEARTBEAT_MAX_INTERVAL_MS
                + arbiter::board::matchdir::beat::SLOT_MS
        )
    );
    let notice = o.notice.clone().unwrap_or_default();
    assert!(notice.contains("RESTART: the kit was down"), "{notice}");
    if gap > 0 {
        assert!(
            notice.contains("measured from its last heartbeat"),
            "{notice}"
        );
    }
}

/// How many of this process's open files are `path` (from /proc/self/fd).
fn open_count(path: &std::path::Path) -> usize {
    let want = std::fs::canonicalize(path).unwrap();
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|p| *p == want)
        .count()
}

/// The heartbeat file is opened once and kept open (a beat is one write, no open or
/// stat each second), each beat replaces the last whole; a link or a FIFO planted in its place
/// is never written through and never blocks the beat; a reopen reads the last beat.
#[test]
fn clause_8b_heartbeat_file_kept_open_regular_only() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let script = tmp.path().join("s.arb");
    std::fs::write(
        &script,
        "0 arbiter declare white human Garry Kasparov
0 arbiter declare black machine Deep Junior
0 arbiter declare operator Amir Ban
0 arbiter start
",
    )
    .unwrap();
    crate::realgame::ok(&crate::realgame::arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
    ]));
    let key = arbiter::record::sign::KeySource::default();
    let rules = std::path::Path::new("rules/kasparov-deep-junior-2003.toml");
    let open = || {
        arbiter::board::matchdir::open_game_with(&dir, Some(1), Some(rules), &key, false).unwrap()
    };
    let beat = dir.join("game-1").join("heartbeat");
    assert_eq!(beat, arbiter::record::layout::heartbeat_path(&dir, 1));
    // Heartbeat v2: the signed anchor's line, then the beat's.
    let read_line = |n: usize| -> serde_json::Value {
        let text = std::fs::read_to_string(&beat).unwrap();
        serde_json::from_str(text.lines().nth(n).unwrap().trim_end()).unwrap()
    };

    // Three beats: the file is opened once, stays open, holds the last beat at its fixed length.
    let mut o = open();
    let t = o.now_ms;
    o.session.storage.heartbeat(t, chrono::Utc::now());
    assert_eq!(open_count(&beat), 1, "kept open after the first beat");
    let len = std::fs::metadata(&beat).unwrap().len();
    o.session.storage.heartbeat(t + 1000, chrono::Utc::now());
    o.session.storage.heartbeat(t + 2000, chrono::Utc::now());
    assert_eq!(open_count(&beat), 1, "one open file, not one a beat");
    assert_eq!(read_line(1)["mono_ms"].as_u64(), Some(t + 2000));
    assert!(read_line(0)["sig"].as_str().is_some_and(|s| !s.is_empty()));
    assert_eq!(std::fs::metadata(&beat).unwrap().len(), len);
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&beat).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "owner-only");
    }
    drop(o);
    assert_eq!(open_count(&beat), 0, "closed with the session");
    // A link planted in its place: never followed, its target untouched.
    let target = tmp.path().join("elsewhere");
    std::fs::write(&target, "untouched").unwrap();
    std::fs::remove_file(&beat).unwrap();
    std::os::unix::fs::symlink(&target, &beat).unwrap();
    let mut o = open();
    o.session.storage.heartbeat(o.now_ms, chrono::Utc::now());
    o.session
        .storage
        .heartbeat(o.now_ms + 1000, chrono::Utc::now());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "untouched");
    assert!(std::fs::symlink_metadata(&beat).unwrap().is_symlink());
    drop(o);

    // A FIFO with no reader: the beat neither blocks nor writes into it.
    std::fs::remove_file(&beat).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&beat)
        .status()
        .unwrap();
    assert!(made.success());
    let mut o = open();
    o.session.storage.heartbeat(o.now_ms, chrono::Utc::now());
    assert_eq!(open_count(&beat), 0, "a FIFO is not kept open");
    {
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::symlink_metadata(&beat)
                .unwrap()
                .file_type()
                .is_fifo()
        );
    }
}

/// Clause 8b: the kit restarted while play was suspended for a power failure. No clock ran, so
/// nothing is charged, but the restart is recorded: the board takes nothing before the arbiter's
/// `restart-gap waive REASON`, which is an entry (charging is refused naming 8b).
#[test]
fn clause_8b_a_restart_during_the_suspension_leaves_an_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let script = tmp.path().join("s.arb");
    std::fs::write(
        &script,
        "0 arbiter declare white human Garry Kasparov
0 arbiter declare black machine Deep Junior
0 arbiter declare operator Amir Ban
0 arbiter start
0:00:10 move e4
0:00:20 arbiter power-failure the hall lost power
",
    )
    .unwrap();
    crate::realgame::ok(&crate::realgame::arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
    ]));
    let key = arbiter::record::sign::KeySource::default();
    let rules = std::path::Path::new("rules/kasparov-deep-junior-2003.toml");
    let mut o =
        arbiter::board::matchdir::open_game_with(&dir, Some(1), Some(rules), &key, false).unwrap();
    let notice = o.notice.clone().unwrap_or_default();
    assert!(
        notice.contains("RESTART during the 8b suspension"),
        "{notice}"
    );
    assert_eq!(o.session.restart_side, None);
    assert!(o.session.restart_gap.is_some());
    let parse = |l: &str| arbiter::core::command::parse(l).unwrap();
    let before = o.session.storage.len();
    // Nothing else first; and nothing can be charged: no clock ran.
    let e = o
        .session
        .execute(&parse("arbiter power-restored"), o.now_ms)
        .unwrap_err()
        .to_string();
    assert!(e.contains("during the 8b suspension"), "{e}");
    let e = o
        .session
        .execute(
            &parse("arbiter restart-gap charge the board was down"),
            o.now_ms,
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("8b") && e.contains("nothing is charged"), "{e}");
    assert_eq!(o.session.storage.len(), before);
    let ev = o
        .session
        .execute(
            &parse("arbiter restart-gap waive the board was restarted during the power cut"),
            o.now_ms,
        )
        .unwrap();
    assert_eq!(ev[0].clause, "8b");
    match &ev[0].kind {
        EventKind::RestartGap {
            side,
            charged,
            charged_ms,
            ..
        } => assert_eq!((*side, *charged, *charged_ms), (None, false, Some(0))),
        other => panic!("{other:?}"),
    }
    assert_eq!(o.session.storage.len(), before + 1);
    // Then play goes on under 8b as before.
    o.session
        .execute(&parse("arbiter power-restored"), o.now_ms)
        .unwrap();
}
