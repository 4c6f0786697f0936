//! The werewolf table under load: `arbiter::table::serve::serve` (the same code as `arbiter
//! serve`) in this process, 13 instant seats as Rust threads (tungstenite clients) on loopback,
//! the bundled profile `aiwolf-2025-13`, the match folder on the disk of the build.
//!
//! - Turnaround: from a seat's answer received (its reader's stamp) to the first frame of the
//!   next decision written to its socket, p50 and p99 over every game, against the anchor of
//!   the same run: one write + fdatasync of a 400-byte line on the same disk (p50, p99), ten
//!   of them after each game, so the anchor runs under the same load as the table. Target:
//!   p99 turnaround <= p99 fdatasync + 1 ms (every decision's entries are made durable with one
//!   write and one fdatasync before any frame goes out; the rest must stay under 1 ms). Each
//!   decision's own write + fdatasync is also timed, and the rest of its turnaround (decide,
//!   evolve, encode, send, the hand-offs between threads) reported apart.
//! - A whole 13-seat game of instant seats, end to end (first connection to the last FINISH),
//!   and its entries.
//! - Memory: the process's resident set (VmRSS) after game 10 and after the last of
//!   `ARBITER_BENCH_TABLE_GAMES` games (default 100); flat means the last within 10 % of game 10's.
//!
//! ```text
//! cargo bench --bench table
//! ARBITER_BENCH_TABLE_GAMES=100 ARBITER_BENCH_TABLE_FSYNCS=10 (a game; defaults)
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::fs::OpenOptions;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter::core::event::KeyRef;
use arbiter::table::Notice;
use arbiter::table::serve::{ServeOptions, serve};
use serde_json::Value;
use support::*;
use tungstenite::Message;

const SEATS: usize = 13;

/// p-th percentile (0..=100) of sorted samples.
fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// The anchor: `n` writes of a 400-byte line, each followed by fdatasync; ms per sync.
fn fsyncs(dir: &Path, n: usize, into: &mut Vec<f64>) {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("anchor.raw"))
        .unwrap();
    let line = [b'x'; 400];
    for _ in 0..n {
        let t = Instant::now();
        f.write_all(&line).unwrap();
        f.sync_data().unwrap();
        into.push(t.elapsed().as_secs_f64() * 1e3);
    }
}

/// An instant seat: connects, answers at once (one talk a day, then Over; a living other as
/// target), and after FINISH connects again for the next game, `games` times.
fn seat(addr: String, name: String, games: usize) {
    for _ in 0..games {
        let stream = loop {
            match TcpStream::connect(&addr) {
                Ok(s) => break s,
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        };
        stream.set_nodelay(true).unwrap();
        let (mut ws, _) = tungstenite::client(format!("ws://{addr}/ws"), stream).unwrap();
        let mut talked_day = u64::MAX;
        let mut n = 0u64;
        loop {
            let text = match ws.read() {
                Ok(Message::Text(t)) => t,
                Ok(_) => continue,
                Err(_) => break,
            };
            let v: Value = serde_json::from_str(text.as_str()).unwrap();
            n += 1;
            let info = &v["info"];
            let me = info["agent"].as_str().unwrap_or("");
            let answer = match v["request"].as_str().unwrap_or("") {
                "NAME" => Some(name.clone()),
                "TALK" | "WHISPER" => {
                    let day = info["day"].as_u64().unwrap_or(0);
                    if talked_day == day {
                        Some("Over".to_string())
                    } else {
                        talked_day = day;
                        Some(format!("Good morning from {me}; day {day}, packet {n}."))
                    }
                }
                "VOTE" | "DIVINE" | "GUARD" | "ATTACK" => {
                    let wolves: Vec<&str> = info["role_map"]
                        .as_object()
                        .map(|m| {
                            m.iter()
                                .filter(|(_, r)| *r == "WEREWOLF")
                                .map(|(k, _)| k.as_str())
                                .collect()
                        })
                        .unwrap_or_default();
                    let attack = v["request"] == "ATTACK";
                    let alive: Vec<&str> = info["status_map"]
                        .as_object()
                        .map(|m| {
                            m.iter()
                                .filter(|(k, s)| {
                                    *s == "ALIVE"
                                        && k.as_str() != me
                                        && !(attack && wolves.contains(&k.as_str()))
                                })
                                .map(|(k, _)| k.as_str())
                                .collect()
                        })
                        .unwrap_or_default();
                    Some(
                        alive
                            .get((n as usize) % alive.len().max(1))
                            .unwrap_or(&me)
                            .to_string(),
                    )
                }
                "FINISH" => break,
                _ => None,
            };
            if let Some(a) = answer {
                ws.send(Message::text(a)).unwrap();
            }
        }
    }
}

/// VmRSS of this process, in kB.
fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn main() {
    header(
        "table",
        "answer-to-request turnaround, a whole 13-seat game, memory over many games",
    );
    let games = env_u64("ARBITER_BENCH_TABLE_GAMES", 100) as usize;
    let per_game = env_u64("ARBITER_BENCH_TABLE_FSYNCS", 10) as usize;
    let dir = scratch("table");
    let m = dir.join("m");
    let public =
        arbiter::record::sign::keygen(&m.join("keys").join("arbiter"), None, "bench").unwrap();
    arbiter::record::sign::ensure_allowed_signer(&m, "arbiter", &public).unwrap();
    let key = arbiter::record::sign::SessionKey::new(
        &m.join("keys").join("arbiter"),
        &arbiter::record::sign::KeySource::default(),
        &m,
    )
    .unwrap();
    let keyref = KeyRef {
        principal: "arbiter".into(),
        fingerprint: arbiter::record::sign::fingerprint(key.public()),
        demo: false,
    };
    let (file, text) = arbiter::bundled::get("aiwolf-2025-13").unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();

    // The anchor: ten syncs before the first game and after each game, same disk, same load.
    let mut anchor = Vec::new();
    fsyncs(&dir, per_game, &mut anchor);

    // Game ends: time and RSS after each.
    let ends: Arc<Mutex<Vec<(Instant, u64)>>> = Arc::new(Mutex::new(Vec::new()));
    let seats: Vec<_> = (1..=SEATS)
        .map(|i| {
            let (a, name) = (addr.clone(), format!("bench{i}"));
            std::thread::spawn(move || seat(a, name, games))
        })
        .collect();
    let opts = ServeOptions {
        match_dir: m.clone(),
        profile_text: text.to_string(),
        profile_file: file,
        key,
        keyref,
        ask: false,
        games: Some(games as u32),
        control: None,
        secret: None,
        measure: true,
    };
    let start = Instant::now();
    let ends2 = Arc::clone(&ends);
    let served = serve(&opts, listener, &mut |n| {
        if let Notice::GameEnded { .. } = n {
            ends2.lock().unwrap().push((Instant::now(), rss_kb()));
        }
        if let Notice::Signed { .. } = n {
            fsyncs(&dir, per_game, &mut anchor);
        }
    })
    .unwrap();
    anchor.sort_by(f64::total_cmp);
    for s in seats {
        s.join().unwrap();
    }
    assert_eq!(served.games as usize, games);
    let ends = ends.lock().unwrap().clone();
    let first_game = ends[0].0 - start;
    let mut turn: Vec<f64> = served
        .turnarounds
        .iter()
        .map(|t| t.sent.duration_since(t.received).as_secs_f64() * 1e3)
        .collect();
    turn.sort_by(f64::total_cmp);
    let entries1 = std::fs::read_to_string(m.join("game-1/log.jsonl"))
        .unwrap()
        .lines()
        .count();
    // The kit's own share: each turnaround less its decision's write + fdatasync.
    let mut own: Vec<f64> = served
        .turnarounds
        .iter()
        .map(|t| (t.sent.duration_since(t.received).saturating_sub(t.sync)).as_secs_f64() * 1e3)
        .collect();
    own.sort_by(f64::total_cmp);
    let mut syncs: Vec<f64> = served
        .turnarounds
        .iter()
        .map(|t| t.sync.as_secs_f64() * 1e3)
        .collect();
    syncs.sort_by(f64::total_cmp);
    let (f50, f99) = (pct(&anchor, 50.0), pct(&anchor, 99.0));
    let (t50, t99) = (pct(&turn, 50.0), pct(&turn, 99.0));
    println!(
        "anchor: write + fdatasync of 400 bytes, {} times between the games: p50 {f50:.3} ms, p99 {f99:.3} ms",
        anchor.len()
    );
    println!(
        "turnaround, answer received -> next request sent, {} decisions over {games} games: p50 {t50:.3} ms, p99 {t99:.3} ms, max {:.3} ms",
        turn.len(),
        turn.last().copied().unwrap_or(f64::NAN)
    );
    println!(
        "target p99 <= p99 fdatasync + 1 ms = {:.3} ms: {} (p99 over the anchor's p99: {:+.3} ms)",
        f99 + 1.0,
        verdict(t99 <= f99 + 1.0),
        t99 - f99
    );
    println!(
        "  of which the decision's own write + fdatasync: p50 {:.3} ms, p99 {:.3} ms; the rest (decide, evolve, encode, send, thread hand-offs): p50 {:.3} ms, p99 {:.3} ms: {} (p99 <= 1 ms)",
        pct(&syncs, 50.0),
        pct(&syncs, 99.0),
        pct(&own, 50.0),
        pct(&own, 99.0),
        verdict(pct(&own, 99.0) <= 1.0)
    );
    println!(
        "a whole 13-seat game of instant seats, end to end (first game: connections, {entries1} entries, signed checkpoint): {:.3} s",
        first_game.as_secs_f64()
    );
    if ends.len() >= 2 {
        let per: Vec<f64> = ends
            .windows(2)
            .map(|w| (w[1].0 - w[0].0).as_secs_f64())
            .collect();
        let mut p = per.clone();
        println!(
            "games after the first: median {:.3} s a game (reconnect, {SEATS} seats, play, sign)",
            median(&mut p)
        );
    }
    let at = |k: usize| ends.get(k.min(ends.len()) - 1).map_or(0, |e| e.1);
    let (r10, rlast) = (at(10), at(ends.len()));
    println!(
        "memory (VmRSS of server + seats): after game 1 {} kB, game 10 {r10} kB, game {} {rlast} kB: {} (within 10 % of game 10)",
        at(1),
        ends.len(),
        verdict(rlast as f64 <= r10 as f64 * 1.10)
    );
}
