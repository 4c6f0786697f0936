//! Shared pieces of the benchmarks: configuration from the environment, a scratch folder on the
//! same disk as the build, a realistic game generator, external commands, and the report lines.
//!
//! Every benchmark measures its anchor (what a user would otherwise pick) in the same run,
//! interleaved with ours, and prints the ratio: absolute times on a shared 2-core machine move,
//! ratios much less.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use arbiter::board::session::{Memory, Session, load_profile};
use arbiter::core::command::parse;
use arbiter::core::event::{Event, KeyRef};
use arbiter::core::game::{Game, GameContext};
use arbiter::core::{Ms, Side};
use arbiter::log::codec::kind_and_body;
use arbiter::log::{self, NewEntry, ZERO_HASH};
use chrono::{DateTime, Duration as ChronoDuration, Utc};

pub const RULES: &str = "rules/kasparov-deep-junior-2003.toml";

/// The first 60 plies of the real Stockfish game in `shared/data/stockfish-game/game.pgn`.
pub const PLIES: [&str; 60] = [
    "d4", "d5", "c4", "c6", "Nc3", "Nf6", "Nf3", "g6", "cxd5", "cxd5", "Bf4", "Nc6", "h3", "Qb6",
    "a3", "Ne4", "Nxd5", "Qa5+", "Nc3", "Bg7", "Rc1", "Bf5", "e3", "O-O", "Bc4", "e5", "Bxe5",
    "Nxe5", "Nxe5", "Bxe5", "dxe5", "Rad8", "Qa4", "Qxa4", "Nxa4", "Rc8", "f3", "Ng3", "Rg1",
    "Bd3", "Kf2", "Ne2", "Bxd3", "Nxc1", "Be4", "Rfd8", "Re1", "Rd2+", "Kf1", "Nb3", "Bxb7", "Rc4",
    "Nc3", "Rxb2", "Ne4", "Rcc2", "Ba8", "Rxg2", "f4", "Kg7",
];

/// A number from the environment, or the default.
pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// A scratch folder for one benchmark, on the disk of the build (`target/bench-tmp/<name>`), or
/// under `$ARBITER_BENCH_DIR` when set. Emptied first.
pub fn scratch(name: &str) -> PathBuf {
    let base = std::env::var_os("ARBITER_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("target")
                .join("bench-tmp")
        });
    let dir = base.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Whether `program` can be run (`program --version` or `program version` exits).
pub fn have(program: &str) -> bool {
    Command::new(program)
        .arg("version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
        || Command::new(program)
            .arg("--version")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
}

/// Run a command to completion; its wall time. Panics if it fails (a benchmark must not report
/// a number for a command that did not do the work).
pub fn time_cmd(program: &str, args: &[&str]) -> (Duration, String) {
    let t = Instant::now();
    let out = Command::new(program).args(args).output().unwrap();
    let d = t.elapsed();
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (d, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The median of some samples.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Whether a goal holds, as the report says it.
pub fn verdict(ok: bool) -> &'static str {
    if ok { "MET" } else { "MISSED" }
}

/// The date and machine line every benchmark prints first.
pub fn header(name: &str, what: &str) {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!(
        "== {name}: {what}\n   {} UTC, {cores} cores, {cpu}",
        Utc::now().format("%Y-%m-%d %H:%M")
    );
}

// ----- a realistic game ----------------------------------------------------------------------

/// The demo key's fingerprint the generated games name when no real key signs them.
pub const FINGERPRINT: &str = "SHA256:dkyPPQDU6pCQiCUIYaQtZjbpuCcwhReQzHb2rnEoMA0";

/// UTC of monotonic offset 0 in generated games.
pub fn origin() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2003-01-26T15:00:00.000Z")
        .unwrap()
        .with_timezone(&Utc)
}

fn context(match_id: &str, fingerprint: &str) -> Game {
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join(RULES);
    let (profile, pref) = load_profile(&rules).unwrap();
    let ctx = GameContext {
        match_id: match_id.into(),
        game: 1,
        profile: pref,
        arbiter_key: KeyRef {
            principal: "arbiter".into(),
            fingerprint: fingerprint.into(),
            demo: false,
        },
        previous_algorithm: None,
    };
    Game::new(ctx, profile)
}

/// The events of a valid game of at least `n` events (then cut to exactly `n`), run through a
/// real [`Session`] (decide, then evolve) with in-memory storage.
///
/// Real games are a few hundred entries long; to reach 10,000 or 1,000,000 the game cycles
/// through what a long session records: the first 60 plies of the real Stockfish game, an
/// `operator internal-clock` report after each machine move, an `arbiter note` every 10 plies,
/// then `arbiter stop`, `arbiter correct 6d takeback 60` and `arbiter resume`, and again. Moves
/// take `step_ms` of game time each, so the clocks never fall.
pub fn game_events(n: usize, step_ms: Ms) -> Vec<Event> {
    game_events_of("bench", FINGERPRINT, n, step_ms)
}

/// [`game_events`] for a given match id and arbiter key fingerprint (bound into line 0).
pub fn game_events_of(match_id: &str, fingerprint: &str, n: usize, step_ms: Ms) -> Vec<Event> {
    let game = context(match_id, fingerprint);
    let mut s = Session::new(game, Box::new(Memory::default()), origin());
    let mut now: Ms = 0;
    let mut out: Vec<Event> = Vec::with_capacity(n + 128);
    let run = |s: &mut Session, line: &str, now: Ms, out: &mut Vec<Event>| {
        let cmd = parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        let evs = s
            .execute(&cmd, now)
            .unwrap_or_else(|e| panic!("{line} at {now}: {e}"));
        out.extend(evs);
    };
    for line in [
        "arbiter declare white human Garry Kasparov",
        "arbiter declare black machine Deep Junior",
        "arbiter declare operator Amir Ban",
        "arbiter declare team Shay Bushinsky, Boris Alterman",
        "arbiter start",
    ] {
        run(&mut s, line, now, &mut out);
    }
    let mut cycle = 0u64;
    while out.len() < n {
        cycle += 1;
        for (i, san) in PLIES.iter().enumerate() {
            now += step_ms;
            run(&mut s, &format!("move {san}"), now, &mut out);
            if i % 2 == 1 {
                let reading = s.game.remaining(Side::Black, now).max(0) as u64;
                let text = arbiter::core::timefmt::clock(reading as i64);
                run(
                    &mut s,
                    &format!("operator internal-clock {text}"),
                    now,
                    &mut out,
                );
            }
            if i % 10 == 9 {
                run(
                    &mut s,
                    &format!("arbiter note cycle {cycle} ply {i}: board and clocks checked"),
                    now,
                    &mut out,
                );
            }
        }
        now += step_ms;
        run(&mut s, "arbiter stop rehearsal cycle ends", now, &mut out);
        run(
            &mut s,
            "arbiter correct 6d takeback 60 rehearsal: back to the start position",
            now,
            &mut out,
        );
        run(&mut s, "arbiter resume", now, &mut out);
    }
    out.truncate(n);
    out
}

/// What the session would hand the journal for an event.
pub fn new_entry(e: &Event, origin: DateTime<Utc>) -> NewEntry {
    let (kind, body) = kind_and_body(e);
    NewEntry {
        mono_ms: e.at,
        utc: origin + ChronoDuration::milliseconds(e.at as i64),
        actor: e.actor.name().to_string(),
        clause: e.clause.to_string(),
        kind,
        body,
    }
}

/// The bytes of a game log holding `events`, chained as the journal writes them.
pub fn log_bytes(events: &[Event]) -> Vec<u8> {
    let origin = origin();
    let mut out = Vec::with_capacity(events.len() * 400);
    let mut prev = ZERO_HASH;
    for (seq, e) in events.iter().enumerate() {
        let line = log::encode_line(seq as u64, &prev, &new_entry(e, origin));
        prev = log::entry_hash(&line);
        out.extend_from_slice(&line);
        out.push(b'\n');
    }
    out
}

/// `move_made` entries of a real game, as the journal gets them (the append benchmark's input).
pub fn move_entries(n: usize) -> Vec<NewEntry> {
    let origin = origin();
    game_events(n * 2 + 200, 1000)
        .iter()
        .filter(|e| e.kind_name() == "move_made")
        .take(n)
        .map(|e| new_entry(e, origin))
        .collect()
}
