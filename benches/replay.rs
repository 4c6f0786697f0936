//! Replay of a game log of `ARBITER_BENCH_REPLAY_EVENTS` events (default 10,000; a valid game,
//! see `support::game_events`): `Game::replay` over events already parsed, and the whole path from
//! log bytes (strict line parse as the journal does on open, events from entries, replay), and
//! the path of `arbiter status` from the file (`matchdir::read_game`, then replay).
//!
//! Anchors in the same run: `serde_json::from_slice::<Value>` of every line (what any JSON-lines
//! reader pays) and shakmaty playing the same moves with no clocks (the chess floor).
//! Target: >= 200,000 events/s.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::time::Instant;

use arbiter::core::event::EventKind;
use arbiter::core::game::Game;
use arbiter::log::codec::events_of;
use arbiter::log::scan;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};
use support::*;

fn timed<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let t = Instant::now();
    let v = f();
    (t.elapsed().as_secs_f64(), v)
}

fn main() {
    let n = env_u64("ARBITER_BENCH_REPLAY_EVENTS", 10_000) as usize;
    let rounds = env_u64("ARBITER_BENCH_ROUNDS", 21) as usize;
    header("replay", &format!("{n}-event game log x {rounds} rounds"));
    let events = game_events(n, 1000);
    let bytes = log_bytes(&events);
    let moves = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::MoveMade { .. }))
        .count();
    println!(
        "   log: {n} events ({moves} move_made, {:.1} MB)",
        bytes.len() as f64 / 1e6
    );
    let dir = scratch("replay");
    let path = dir.join("log.jsonl");
    std::fs::write(&path, &bytes).unwrap();
    let expected = Game::replay(events.iter()).unwrap();

    let (mut replay, mut owned, mut strict, mut status, mut json, mut chess) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        let (t, g) = timed(|| Game::replay(events.iter()).unwrap());
        assert_eq!(g.board().fen(), expected.board().fen());
        replay.push(t);

        // The events handed over, as a replay of a log does (no copy kept).
        let given = events.clone();
        let (t, g) = timed(|| {
            let mut it = given.into_iter();
            let first = it.next().unwrap();
            let EventKind::GameOpened(o) = &first.kind else {
                panic!("line 0")
            };
            let mut g = Game::from_opening(o).unwrap();
            g.evolve_owned(first).unwrap();
            for e in it {
                g.evolve_owned(e).unwrap();
            }
            g
        });
        assert_eq!(g.board().fen(), expected.board().fen());
        owned.push(t);

        let (t, g) = timed(|| {
            let lines = scan::scan(&bytes);
            assert!(scan::first_local_fault(&lines).is_none());
            let entries: Vec<_> = lines.into_iter().map(|l| l.entry.unwrap()).collect();
            Game::replay(events_of(&entries).unwrap().iter()).unwrap()
        });
        assert_eq!(g.board().fen(), expected.board().fen());
        strict.push(t);

        let (t, g) = timed(|| {
            let (_, evs) = arbiter::board::matchdir::read_game(&path).unwrap();
            Game::replay(evs.iter()).unwrap()
        });
        assert_eq!(g.board().fen(), expected.board().fen());
        status.push(t);

        let (t, k) = timed(|| {
            bytes
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(|l| serde_json::from_slice::<serde_json::Value>(l).unwrap())
                .fold(0, |k, v| k + usize::from(!v.is_null()))
        });
        assert_eq!(k, n);
        json.push(t);

        let (t, _) = timed(|| {
            let mut pos = Chess::default();
            for e in &events {
                match &e.kind {
                    EventKind::MoveMade { uci, .. } => {
                        let m = UciMove::from_ascii(uci.as_bytes())
                            .unwrap()
                            .to_move(&pos)
                            .unwrap();
                        pos.play_unchecked(m);
                    }
                    EventKind::MovesTakenBack { .. } => pos = Chess::default(),
                    _ => {}
                }
            }
            pos
        });
        chess.push(t);
    }
    let rate = |v: &mut Vec<f64>| n as f64 / median(v);
    let (r_replay, r_strict, r_status) = (rate(&mut replay), rate(&mut strict), rate(&mut status));
    println!(
        "   anchor serde_json Value per line:        {:10.0} events/s",
        rate(&mut json)
    );
    println!(
        "   anchor shakmaty plays the moves only:     {:10.0} events/s",
        rate(&mut chess)
    );
    println!(
        "   ours Game::replay (events in memory):     {:10.0} events/s  target >= 200000: {}",
        r_replay,
        verdict(r_replay >= 200_000.0)
    );
    let r_owned = rate(&mut owned);
    println!(
        "   ours Game::evolve_owned (handed over):    {:10.0} events/s  target >= 200000: {}",
        r_owned,
        verdict(r_owned >= 200_000.0)
    );
    println!(
        "   ours strict parse + events + replay:      {:10.0} events/s  target >= 200000: {}",
        r_strict,
        verdict(r_strict >= 200_000.0)
    );
    println!(
        "   ours read_game (status) + replay:         {:10.0} events/s  target >= 200000: {}",
        r_status,
        verdict(r_status >= 200_000.0)
    );
    // Where the strict path's time goes.
    let (mut t_scan, mut t_events) = (vec![], vec![]);
    for _ in 0..rounds {
        let (t, lines) = timed(|| scan::scan(&bytes));
        t_scan.push(t);
        let entries: Vec<_> = lines.into_iter().map(|l| l.entry.unwrap()).collect();
        let (t, _) = timed(|| events_of(&entries).unwrap());
        t_events.push(t);
    }
    println!(
        "   step log::scan::scan (strict parse+hash): {:10.0} events/s",
        rate(&mut t_scan)
    );
    println!(
        "   step log::codec::events_of:               {:10.0} events/s",
        rate(&mut t_events)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
