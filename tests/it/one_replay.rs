//! `pgn` replays the game once. Its times are gathered from the replay that rebuilds
//! the game (`matchdir::Replayer::push_times`, `TimesStream::push_replayed`), not from a second
//! game of their own (`TimesStream::push`); both give the same times on every log.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::board::matchdir::Replayer;
use arbiter::core::event::Event;
use arbiter::core::game::Game;
use arbiter::report::times::{Times, TimesStream, times};
use proptest::prelude::*;

use crate::times::{time_session, time_step};

/// The times of `log` gathered from one replay, as `pgn` gathers them.
fn one_replay(log: &[Event]) -> (Times, Option<Game>) {
    let mut r = Replayer::new();
    let mut t = TimesStream::default();
    for e in log {
        r.push_times(&std::sync::Arc::new(e.clone()), &mut t);
    }
    let game = r.game().cloned();
    (t.finish(), game)
}

/// A game of moves with 6c reports and notes between them (entries that move no clock, whose
/// clocks the one replay reads only when it must: `times::Replayed::Quiet`), `tail` of them
/// after the last entry. Each step `(pick, dt)` comes `dt` ms after a second: `pick % 8` of 0–3
/// a legal move, 4 a 6d correction of the human's clock (a stop, the correction, the resume: a
/// clock that moved between such entries), 5–7 a note or a 6c report (near the game clock, or
/// far off it: a correction owed).
fn quiet_session(steps: &[(u8, u16)], tail: usize) -> Vec<Event> {
    use arbiter::core::board::complete_san;
    let mut m = crate::clauses::started();
    let mut t: u64 = 0;
    let clock = |ms: i64| {
        let s = ms.max(0) / 1000;
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    };
    let quiet = |m: &mut crate::clauses::Match, t: u64, pick: u8| {
        let at = crate::clauses::secs(t);
        let text = match pick % 3 {
            0 => format!("{at} arbiter note checked at {t}"),
            1 => {
                let reading = clock(m.game().remaining(arbiter::core::Side::Black, t) + 1_500);
                format!("{at} operator internal-clock {reading}")
            }
            // A reading far off the game clock (a correction is owed: 6c).
            _ => {
                let reading = clock(m.game().remaining(arbiter::core::Side::Black, t) + 300_000);
                format!("{at} operator internal-clock {reading}")
            }
        };
        let _ = m.try_line(&text);
    };
    for &(pick, dt) in steps {
        t += 1_000 + u64::from(dt);
        match pick % 8 {
            0..=3 => {
                let legal = complete_san(m.game().board(), "");
                if let Some(san) = legal.get(usize::from(dt) % legal.len().max(1)) {
                    let _ = m.try_line(&format!("{} move {san}", crate::clauses::secs(t)));
                }
            }
            4 => {
                let at = crate::clauses::secs(t);
                let _ = m.try_line(&format!("{at} arbiter stop check"));
                let _ = m.try_line(&format!(
                    "{at} arbiter correct 6d clock human +3 the operator was slow"
                ));
                let _ = m.try_line(&format!("{at} arbiter resume"));
            }
            _ => quiet(&mut m, t, pick),
        }
    }
    for k in 0..tail {
        t += 2_345;
        quiet(&mut m, t, k as u8);
    }
    m.log
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Take-backs, 6d/7e corrections, 7c wrong moves, stops and restart gaps.
    #[test]
    fn pgn_times_from_the_one_replay_equal_a_replay_of_their_own(
        machine_white in any::<bool>(),
        steps in prop::collection::vec(time_step(), 1..200),
    ) {
        let (log, _, transcript) = time_session(machine_white, &steps);
        let (t, game) = one_replay(&log);
        prop_assert_eq!(&t, &times(&log), "{}", transcript.join("\n"));
        prop_assert!(t.not_replayed.is_none());
        let alone = Game::replay(&log).unwrap();
        prop_assert_eq!(game.map(|g| g.board().fen()), Some(alone.board().fen()));
    }

    /// 6c reports and notes, between moves and at the end of the log, and an entry that
    /// does not apply right after them: the one replay's times (which read the clocks at such
    /// entries only when they must) are those of a replay of their own, which reads them at each.
    #[test]
    fn times_around_entries_that_move_no_clock_equal_a_replay_of_their_own(
        steps in prop::collection::vec((any::<u8>(), any::<u16>()), 1..120),
        tail in 0usize..4,
        broken in any::<prop::sample::Index>(),
    ) {
        let log = quiet_session(&steps, tail);
        let (t, _) = one_replay(&log);
        prop_assert_eq!(&t, &times(&log));
        prop_assert!(t.not_replayed.is_none(), "{:?}", t.not_replayed);
        // An entry that does not apply, right after a report or a note where there is one.
        let quiet: Vec<usize> = (2..log.len())
            .filter(|&k| matches!(
                log[k - 1].kind,
                arbiter::core::event::EventKind::Note { .. }
                    | arbiter::core::event::EventKind::InternalClockReported { .. }
            ))
            .collect();
        if !quiet.is_empty() {
            let mut log = log.clone();
            let k = quiet[broken.index(quiet.len())];
            log[k].at = 0;
            let (t, _) = one_replay(&log);
            prop_assert!(t.not_replayed.is_some());
            prop_assert_eq!(&t, &times(&log));
        }
    }
}

/// The six games of 2003, entered both ways (move and press; press, then the notation).
#[test]
fn pgn_times_from_the_one_replay_on_the_six_2003_games() {
    use crate::pgn_clocks::play_both;
    use crate::pgn_real2003::{ending, real_game};
    let mut moves = 0;
    for n in 1..=6u32 {
        let g = real_game(n);
        let thinks: Vec<u64> = (0..g.sans.len() as u64).map(|i| 5_000 + i * 97).collect();
        let delays: Vec<u64> = (0..g.sans.len() as u64)
            .map(|i| (i * 7_919) % 200_000)
            .collect();
        let mut b = play_both(g.machine_white, &g.sans, &thinks, &delays);
        let t = b.direct.now.max(b.pressed.now);
        for line in ending(n, t) {
            b.direct.at(&line);
            b.pressed.at(&line);
        }
        for m in [&b.direct, &b.pressed] {
            let (one, _) = one_replay(&m.log);
            assert_eq!(one, times(&m.log), "game {n}");
            moves += one.moves.len();
        }
    }
    assert!(moves > 700, "{moves} moves");
}

/// An entry the game cannot take: from it on both give the log's own times, with the same
/// reason.
#[test]
fn pgn_times_from_the_one_replay_when_an_entry_does_not_apply() {
    let (mut log, _, _) = time_session(false, &[(0, 1, 4_000); 30]);
    assert!(log.len() > 30, "{} entries", log.len());
    let k = log.len() / 2;
    log[k].at = 0;
    let (one, game) = one_replay(&log);
    let own = times(&log);
    assert!(game.is_none(), "the replay failed at entry {k}");
    assert!(
        own.not_replayed
            .as_deref()
            .is_some_and(|m| m.contains("time goes backwards")),
        "{:?}",
        own.not_replayed
    );
    assert_eq!(one, own);
}

/// `arbiter pgn` writes what a replay of the log and a times fold of their own would write.
#[test]
fn pgn_command_output_is_that_of_two_replays() {
    let tmp = tempfile::tempdir().unwrap();
    let m = crate::decode::scripted_match(tmp.path(), 60);
    let want = pgn_is_that_of_two_replays(&m);
    assert!(want.contains("%emt"), "{want}");
}

/// `arbiter pgn` of game 1 of `m` is what a replay of the log and a times fold of their own
/// write: that PGN.
fn pgn_is_that_of_two_replays(m: &std::path::Path) -> String {
    let (entries, events) =
        arbiter::board::matchdir::read_game(&arbiter::record::layout::log_path(m, 1)).unwrap();
    let game = Game::replay(&events).unwrap();
    let want = arbiter::after::postgame::pgn_of_game(&game, &times(&events), &entries[0].utc);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["pgn", "--game", "1", "--match"])
        .arg(m)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), want);
    want
}

/// `play` opens a game with one replay. The move list's times and the alarms the Board
/// UI folds come from the open's replay (`OpenObserver`), equal to a fold with a replay of its
/// own, and the entries recorded after the open are timed from the game the open rebuilt.
#[test]
fn play_open_folds_the_move_times_from_the_one_replay() {
    use arbiter::board::tui::logpane::LogTail;
    use arbiter::board::tui::{self, PlaySetup};
    use arbiter::core::command::parse;
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let mut script = String::from(
        "0 arbiter declare white human Garry Kasparov\n\
         0 arbiter declare black machine Deep Junior\n\
         0 arbiter declare operator Amir Ban\n\
         0 arbiter start\n\
         5 move e4\n10 move e5\n19.3 move Nf3\n\
         19.8 arbiter stop the operator entered a move the machine did not make\n\
         20 arbiter correct 6d takeback 1 the operator entered a move the machine did not make\n\
         21 arbiter resume\n21.4 move Nf3\n\
         0:00:30 operator internal-clock 1:50:00\n",
    );
    for k in 0..50 {
        script.push_str(&format!("0:00:40 arbiter note note {k}\n"));
    }
    script.push_str("0:01:00 move Nc6\n");
    crate::log_util::script_into(&m, &tmp.path().join("g.arb"), &script);
    let (mut session, _, offset, mut ui) = tui::open_session(&PlaySetup {
        match_dir: &m,
        game: Some(1),
        rules: Some(std::path::Path::new(crate::tui_support::RULES)),
        key: &arbiter::record::sign::KeySource::default(),
        declarations: None,
        demo: false,
    })
    .unwrap();
    let (mut all, _) =
        arbiter::after::report_io::read_log(&arbiter::record::layout::log_path(&m, 1)).unwrap();
    // The fold with a replay of its own, as the Board UI made it before.
    let mut own = LogTail::default();
    for (n, e) in all.iter().enumerate() {
        own.fold(n, e);
    }
    assert_eq!(ui.log.move_fold, own.move_fold);
    assert_eq!(ui.log.move_times, own.move_times);
    assert_eq!(ui.log.alarm_sources, own.alarm_sources);
    assert_eq!(ui.log.clock_started, own.clock_started);
    assert_eq!(ui.log.len(), all.len());
    assert_eq!(ui.log.move_times.len(), 4);
    assert!(ui.log.move_times.iter().all(Option::is_some));
    // Entries recorded now: a take-back and moves, timed from the game the open rebuilt.
    let mut now = offset + 5_000;
    for cmd in [
        "arbiter restart-gap waive the board was opened again",
        "arbiter stop a wrong move",
        "arbiter correct 6d takeback 1 a wrong move",
        "arbiter resume",
        "move Nf6",
        "move d4",
    ] {
        now += 3_000;
        let evs = session.execute(&parse(cmd).unwrap(), now).unwrap();
        for e in evs {
            all.push(e.clone());
            ui.log.push(e);
        }
    }
    assert_eq!(
        ui.log.move_times,
        arbiter::board::tui::movelist::move_times(&all),
        "after the open"
    );
    assert_eq!(ui.log.move_times.len(), 5);
    assert!(ui.log.move_times.iter().all(Option::is_some));
}

/// `pgn` and the `play` open take each checked block's events whole, on the replay's
/// thread, and give a block back to the checking threads only once the events kept from it (the
/// void window's, the open's latest 2,000) are let go. On a log of many blocks (over 1 MB: two
/// checking threads), the PGN is that of two replays of their own, and the open's game and its
/// latest events are those of the log, in order, numbered from the right entry.
#[test]
fn pgn_and_the_open_from_events_handed_over_a_block_at_a_time() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let mut script = String::from(
        "0 arbiter declare white human Garry Kasparov\n\
         0 arbiter declare black machine Deep Junior\n\
         0 arbiter declare operator Amir Ban\n\
         0 arbiter start\n",
    );
    let sans = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"];
    let long = "a long note to fill the log's blocks ".repeat(12);
    let mut t = 0u64;
    for k in 0..4_800 {
        t += 1_000;
        script.push_str(&format!(
            "{} arbiter note {k} {long}\n",
            crate::clauses::secs(t)
        ));
        if k % 600 == 599 {
            let i = k / 600;
            script.push_str(&format!("{} move {}\n", crate::clauses::secs(t), sans[i]));
        }
    }
    crate::log_util::script_into(&m, &tmp.path().join("g.arb"), &script);
    let path = arbiter::record::layout::log_path(&m, 1);
    assert!(std::fs::metadata(&path).unwrap().len() > 1 << 20);
    let (_, events) = arbiter::board::matchdir::read_game(&path).unwrap();
    let game = Game::replay(&events).unwrap();
    assert_eq!(game.board().moves().len(), 8);
    // The PGN: as two replays of their own make it.
    pgn_is_that_of_two_replays(&m);
    // The open: the game and the latest events of the log.
    let opened = arbiter::board::matchdir::open_game(
        &m,
        Some(1),
        Some(&crate::clauses::rules_path(crate::clauses::KASPAROV_2003)),
        &arbiter::record::sign::KeySource::default(),
    )
    .unwrap();
    let kept = arbiter::board::matchdir::EVENTS_KEPT;
    assert!(events.len() > 2 * kept, "{}", events.len());
    assert_eq!(opened.events_from, events.len() - kept);
    assert!(opened.events == events[events.len() - kept..]);
    assert_eq!(opened.session.game.board().fen(), game.board().fen());
    assert_eq!(opened.session.game.applied(), game.applied());
}
