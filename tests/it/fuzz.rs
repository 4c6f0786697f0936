//! Fuzzing without a nightly toolchain: seeded, structure-aware mutation loops over real inputs.
//! Each target must never panic and never hang; errors are fine.
//!
//! | target | real inputs | mutations |
//! | --- | --- | --- |
//! | rules profiles (`Profile::parse`, then a game run under the profile) | `rules/*.toml` | bytes, lines, TOML values (extreme numbers, types), splices |
//! | log reader (`log::parse_line`, `scan`, `first_local_fault`, `first_fault`, `verify_lines`, events + replay) | a log written by `arbiter script examples/scripts/quick.arb` | bytes; JSON values inside canonical, chained lines; line order |
//! | journal open path (`Journal::open`, then one append and a strict re-read) | the same log | as above, written to a file |
//! | script parser (`parse_script`, then the script run in memory) | `examples/scripts/*.arb`, `tests/fixtures/*.arb` | lines, offsets, words |
//! | move parser (`Board::check`, chess and free) | positions of the real Stockfish game | SAN/UCI alphabets, real moves changed |
//! | engine logs (`enginelog::parse`, `parse_str`, `detect_line`, `coverage`) | `../shared/data/stockfish-game/machine-debug.log` | lines, numbers, keywords, bytes |
//! | the command line (the binary, every subcommand) | a finished rehearsal match, its checkpoint, index, proof, rules, script | every file of the match folder replaced by garbage, a truncated copy, an empty file, a huge line, non-UTF-8, a FIFO, a device node, a folder, a symlink, a dangling link; random argument vectors |
//!
//! `ARBITER_FUZZ_CASES` sets the cases per target (default: a few seconds each in CI);
//! `ARBITER_FUZZ_SEED` the seed (default fixed, so CI is deterministic). A panic is reported with
//! the input, which is also written to `target/fuzz-findings/`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use arbiter::board::session::{Memory, Session, load_profile};
use arbiter::core::board::Board;
use arbiter::core::command::parse;
use arbiter::core::game::{Game, GameContext};
use arbiter::core::rules::Profile;
use arbiter::core::script::parse_script;
use arbiter::log::codec::events_of;
use arbiter::log::scan;
use arbiter::log::{self, NewEntry};
use arbiter::record::journal::{Journal, read_entries};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

// ----- the harness ---------------------------------------------------------------------------

/// xorshift64*: small, seeded, deterministic.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

fn cases(default: u64) -> u64 {
    std::env::var("ARBITER_FUZZ_CASES")
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

fn seed() -> u64 {
    std::env::var("ARBITER_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5EED_2003_0126_0000)
}

/// Run `n` cases of a target on a worker thread. Each case gets its own generator state; a case
/// that panics is saved and reported; the whole run must finish within `limit` (a hang fails the
/// test instead of blocking CI). Returns the number of executions.
fn run_target(
    name: &'static str,
    n: u64,
    limit: Duration,
    case: impl Fn(&mut Rng) -> Vec<u8> + Send + Sync + 'static,
    exec: impl Fn(&[u8]) + Send + Sync + 'static,
) -> u64 {
    // One target at a time: the fuzz loops are CPU-bound, and other tests of this binary (the
    // crash loop) time themselves against the machine's load.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (tx, rx) = mpsc::channel();
    let seed = seed();
    std::thread::Builder::new()
        .name(format!("fuzz-{name}"))
        .stack_size(64 << 20)
        .spawn(move || {
            let mut findings: Vec<(u64, String, PathBuf)> = Vec::new();
            let mut slowest = (Duration::ZERO, 0u64);
            for i in 0..n {
                let mut rng = case_rng(name, seed, i);
                let input = case(&mut rng);
                let t = Instant::now();
                let r = catch_unwind(AssertUnwindSafe(|| exec(&input)));
                let d = t.elapsed();
                if d > slowest.0 {
                    slowest = (d, i);
                }
                if let Err(p) = r {
                    let msg = p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    let path = save_finding(name, i, &input);
                    findings.push((i, msg, path));
                    if findings.len() >= 5 {
                        break;
                    }
                }
            }
            let _ = tx.send((findings, slowest));
        })
        .unwrap();
    let (findings, slowest) = match rx.recv_timeout(limit) {
        Ok(r) => r,
        Err(_) => panic!("fuzz {name}: no result within {limit:?}: a case hangs"),
    };
    eprintln!(
        "fuzz {name}: {n} executions, {} findings, slowest case #{} {:?}",
        findings.len(),
        slowest.1,
        slowest.0
    );
    assert!(
        findings.is_empty(),
        "fuzz {name}: {} panics, first: case {} ({}) saved in {}",
        findings.len(),
        findings[0].0,
        findings[0].1,
        findings[0].2.display()
    );
    n
}

/// The generator of case `i` of a target under a seed (so any case can be made again).
fn case_rng(name: &str, seed: u64, i: u64) -> Rng {
    let base = seed ^ fxhash(name.as_bytes());
    Rng::new(base.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
}

fn fxhash(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3)
    })
}

fn save_finding(name: &str, i: u64, input: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-findings");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("{name}-{:x}-{i}.bin", seed()));
    let _ = std::fs::write(&path, input);
    path
}

/// How deep the cases got (parsed, replayed, ...), to show the mutations reach past the parsers.
static DEEP: [std::sync::atomic::AtomicU64; 6] =
    [const { std::sync::atomic::AtomicU64::new(0) }; 6];
const D_PROFILE_OK: usize = 0;
const D_LOG_REPLAYED: usize = 1;
const D_JOURNAL_OPENED: usize = 2;
const D_SCRIPT_OK: usize = 3;
const D_MOVE_OK: usize = 4;
const D_ENGINE_SEARCHES: usize = 5;

fn deep(i: usize) {
    DEEP[i].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

fn deep_count(i: usize) -> u64 {
    DEEP[i].load(std::sync::atomic::Ordering::Relaxed)
}

// ----- generic mutations ---------------------------------------------------------------------

const INTERESTING: &[&str] = &[
    "0",
    "-1",
    "1",
    "255",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "1e308",
    "1e309",
    "-0.0",
    "0.5",
    "nan",
    "inf",
    "-inf",
    "\"\"",
    "\"é\\u0000\"",
    "[]",
    "{}",
    "true",
    "null",
    "\u{feff}",
    "\r",
    "\0",
    "\n",
    "\\",
    "\"",
    "'",
    "#",
    " ",
    "\t",
    "é",
    "☃",
    "𝄞",
    "\u{202e}",
];

/// Byte-level mutations, with tokens from `dict` and splices from `corpus`.
fn mutate_bytes(rng: &mut Rng, input: &[u8], dict: &[&str], corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut v = input.to_vec();
    let rounds = if rng.chance(2) { 1 } else { 1 + rng.below(5) };
    for _ in 0..rounds {
        let len = v.len();
        let at = rng.below(len + 1);
        match rng.below(11) {
            0 if len > 0 => {
                let i = rng.below(len);
                v[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                v[i] = rng.next() as u8;
            }
            2 => v.insert(at, rng.next() as u8),
            3 if len > 0 => {
                let end = (at + 1 + rng.below(16)).min(len);
                v.drain(at.min(end)..end);
            }
            4 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(64)).min(len);
                let chunk = v[a..b].to_vec();
                let at = rng.below(v.len() + 1);
                v.splice(at..at, chunk);
            }
            5 | 6 => {
                let t = if rng.chance(2) {
                    *rng.pick(dict)
                } else {
                    *rng.pick(INTERESTING)
                };
                v.splice(at..at, t.bytes());
            }
            7 if len > 0 => {
                let end = (at + 1 + rng.below(8)).min(len);
                let t = if rng.chance(2) {
                    *rng.pick(dict)
                } else {
                    *rng.pick(INTERESTING)
                };
                v.splice(at.min(end)..end, t.bytes());
            }
            8 if !corpus.is_empty() => {
                let other = rng.pick(corpus);
                let cut = rng.below(other.len() + 1);
                v.truncate(at);
                v.extend_from_slice(&other[cut..]);
            }
            9 => v.truncate(at),
            _ => {
                // A run of one byte (long tokens, deep nesting).
                let b = *rng.pick(b"[{9a \n\"\\");
                let k = 1 + rng.below(3000);
                v.splice(at..at, std::iter::repeat_n(b, k));
            }
        }
    }
    v
}

/// Line-level mutations: delete, duplicate, swap, move lines, or replace a word in one.
fn mutate_lines(rng: &mut Rng, text: &str, words: &[&str]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let rounds = if rng.chance(2) { 1 } else { 1 + rng.below(4) };
    for _ in 0..rounds {
        let n = lines.len();
        if n == 0 {
            lines.push(rng.pick(words).to_string());
            continue;
        }
        let i = rng.below(n);
        match rng.below(6) {
            0 => {
                lines.remove(i);
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(rng.below(n + 1), l);
            }
            2 => lines.swap(i, rng.below(n)),
            3 => {
                let l = lines.remove(i);
                let j = rng.below(lines.len() + 1);
                lines.insert(j, l);
            }
            _ => {
                let mut ws: Vec<String> = lines[i].split(' ').map(str::to_owned).collect();
                let k = rng.below(ws.len());
                let w = if rng.chance(3) {
                    *rng.pick(INTERESTING)
                } else {
                    *rng.pick(words)
                };
                match rng.below(3) {
                    0 => ws[k] = w.to_string(),
                    1 => ws.insert(k, w.to_string()),
                    _ => {
                        ws.remove(k);
                    }
                }
                lines[i] = ws.join(" ");
            }
        }
    }
    let mut out = lines.join("\n");
    if rng.chance(2) {
        out.push('\n');
    }
    out
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

// ----- rules profiles ------------------------------------------------------------------------

fn profile_corpus() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = std::fs::read_dir(root().join("rules"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "toml"))
        .map(|e| std::fs::read(e.path()).unwrap())
        // The board games' profiles (a werewolf table's profile is another family).
        .filter(|b| !arbiter::core::werewolf::is_werewolf(&String::from_utf8_lossy(b)))
        .collect();
    v.sort();
    assert!(v.len() >= 2);
    v
}

const TOML_WORDS: &[&str] = &[
    "seconds = 0",
    "seconds = -1",
    "seconds = 18446744073709551615",
    "seconds = 9223372036854775807",
    "moves = 0",
    "moves = 4294967295",
    "increment_seconds = 9223372036854775807",
    "periods = []",
    "periods = [{ seconds = 1 }]",
    "periods = [{ moves = 1, seconds = 1 }]",
    "[time_control.first]",
    "[time_control.second]",
    "[limits]",
    "max_plies = 0",
    "max_plies_result = \"draw\"",
    "no_show_seconds = 0",
    "no_show_seconds = 18446744073709551615",
    "forfeit_at_infraction = 0",
    "wrong_move_penalty_seconds = 18446744073709551615",
    "consultation_limit_seconds = 0",
    "reset_window_seconds = 0",
    "sync_threshold_seconds = 0",
    "near_draw_threshold_cp = -1",
    "win = nan",
    "win = inf",
    "draw_first = -0.0",
    "game = \"free\"",
    "game = \"shogi\"",
    "period_addition = \"at_start\"",
    "truncate_move_time_to_seconds = true",
    "max_men = 0",
    "min_copies = 0",
    "deadline_seconds = 0",
    "=",
    "[",
    "]]",
    "\"\"\"",
    "clause = \"\"",
];

/// A game under the profile: declarations, start, a few moves, time passing far beyond every
/// deadline (big numbers in a profile must not overflow the clock arithmetic).
fn play_under(profile: Profile, text: &str) {
    let pref = arbiter::core::event::ProfileRef {
        name: profile.profile.name.clone(),
        file: "fuzz.toml".into(),
        sha256: "00".repeat(32),
        toml: text.to_string(),
    };
    let ctx = GameContext::unsigned("fuzz", 1, pref);
    let mut s = Session::new(
        Game::new(ctx, profile),
        Box::new(Memory::default()),
        DateTime::<Utc>::UNIX_EPOCH,
    );
    let script = [
        (0, "arbiter declare white human A"),
        (0, "arbiter declare black machine B"),
        (0, "arbiter declare operator C"),
        (0, "arbiter start"),
        (1_000, "move e4"),
        (2_000, "move e5"),
        (3_000, "operator internal-clock 1:00:00"),
        (4_000, "arbiter correct 6d clock white +0:10:00 test"),
        (5_000, "human offer-draw"),
        (6_000, "operator consult B"),
        (4_000_000, "operator consult-end"),
        (4_000_001, "operator decline-draw"),
        (4_000_002, "move Nf3"),
        (u64::MAX / 4, "move Nc6"),
    ];
    for (at, line) in script {
        let _ = s.execute(&parse(line).unwrap(), at);
        let _ = s.game.view(at, 10);
        let _ = s.game.next_deadline();
    }
    for t in [u64::MAX / 2, u64::MAX - 1, u64::MAX] {
        let _ = s.catch_up(t);
        let _ = s.game.view(t, 10);
    }
}

fn profile_case(rng: &mut Rng) -> Vec<u8> {
    static CORPUS: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    let corpus = CORPUS.get_or_init(profile_corpus);
    let base = rng.pick(corpus);
    if rng.chance(2) {
        let text = String::from_utf8(base.clone()).unwrap();
        let mut out = mutate_lines(rng, &text, TOML_WORDS);
        // A value changed in place: keep the key, change what follows '='.
        if rng.chance(2) {
            let lines: Vec<&str> = out.lines().collect();
            let i = rng.below(lines.len());
            if let Some((k, _)) = lines.get(i).and_then(|l| l.split_once('=')) {
                let v = rng.pick(INTERESTING);
                let mut ls: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
                ls[i] = format!("{k}= {v}");
                out = ls.join("\n");
            }
        }
        out.into_bytes()
    } else {
        mutate_bytes(rng, base, TOML_WORDS, corpus)
    }
}

fn profile_exec(input: &[u8]) {
    let Ok(text) = std::str::from_utf8(input) else {
        return;
    };
    if let Ok(p) = Profile::parse("fuzz.toml", text) {
        deep(D_PROFILE_OK);
        play_under(p, text);
    }
}

#[test]
fn fuzz_rules_profile_parser() {
    let corpus = profile_corpus();
    run_target(
        "rules-profile",
        cases(1500),
        Duration::from_secs(600),
        profile_case,
        profile_exec,
    );
    eprintln!(
        "fuzz rules-profile: {} cases parsed and played a game",
        deep_count(D_PROFILE_OK)
    );
    // The real profiles themselves run a game without trouble.
    for p in &corpus {
        let text = std::str::from_utf8(p).unwrap();
        play_under(Profile::parse("real.toml", text).unwrap(), text);
    }
}

// ----- the log reader and the journal open path ------------------------------------------------

/// A real log: `arbiter script examples/scripts/quick.arb --match <tmp>`, made once per run.
fn real_log() -> &'static (Vec<u8>, PathBuf) {
    static LOG: std::sync::OnceLock<(Vec<u8>, PathBuf)> = std::sync::OnceLock::new();
    LOG.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("arbiter-fuzz-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        crate::log_util::arbiter_key_in(&dir);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["script", "examples/scripts/quick.arb", "--match"])
            .arg(&dir)
            .current_dir(root())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bytes = std::fs::read(dir.join("game-1").join("log.jsonl")).unwrap();
        assert!(bytes.len() > 1000);
        (bytes, dir)
    })
}

const LOG_WORDS: &[&str] = &[
    "{\"v\":1,\"seq\":",
    "\"prev\":\"",
    "\"body\":",
    "\"kind\":\"move_made\"",
    "\"kind\":\"recovery\"",
    "\"actor\":\"kit\"",
    "\"utc\":\"2003-01-26T15:00:00.000Z\"",
    "\"utc\":\"2003-01-26T15:00:00Z\"",
    "\"utc\":\"+275760-09-13T00:00:00.000Z\"",
    "\"mono_ms\":18446744073709551615",
    "\"seq\":18446744073709551615",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "\"v\":2",
    "\\u0000",
    "\\ud800",
    "\\\"",
    "1.0",
    "1e2",
    "-0",
];

/// A JSON value to put somewhere inside a body.
fn odd_value(rng: &mut Rng) -> Value {
    match rng.below(16) {
        0 => Value::Null,
        1 => json!(u64::MAX),
        2 => json!(i64::MIN),
        3 => json!(-1),
        4 => json!(1.5e300),
        5 => json!(""),
        6 => json!("e4"),
        7 => json!("a1a1"),
        8 => json!([]),
        9 => json!({}),
        10 => json!(true),
        11 => json!("8/8/8/8/8/8/8/8 w - - 0 1"),
        12 => json!("not a fen"),
        13 => json!(0),
        14 => json!(4_000_000_000u64),
        _ => json!("x".repeat(rng.below(5000))),
    }
}

/// Change one value somewhere in `v` (or remove/add a key, or change an array's length).
fn mutate_value(rng: &mut Rng, v: &mut Value, depth: usize) {
    match v {
        Value::Object(m) if !m.is_empty() && (depth == 0 || rng.below(3) > 0) => {
            let keys: Vec<String> = m.keys().cloned().collect();
            let k = rng.pick(&keys).clone();
            match rng.below(8) {
                0 => {
                    m.remove(&k);
                }
                1 => {
                    m.insert(format!("{k}_x"), odd_value(rng));
                }
                _ => mutate_value(rng, m.get_mut(&k).unwrap(), depth + 1),
            }
        }
        Value::Array(a) if !a.is_empty() && rng.below(3) > 0 => {
            let i = rng.below(a.len());
            match rng.below(6) {
                0 => {
                    a.remove(i);
                }
                1 => {
                    let x = a[i].clone();
                    a.push(x);
                }
                _ => mutate_value(rng, &mut a[i], depth + 1),
            }
        }
        _ => *v = odd_value(rng),
    }
}

/// A structure-aware log mutation: entries rebuilt with changed fields and bodies, re-chained
/// (so they pass the line and chain checks and reach the event decoder and the replay), then
/// optionally byte-damaged or reordered.
fn mutate_log(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let entries: Vec<log::Entry> = scan::scan(bytes)
        .into_iter()
        .filter_map(|l| l.entry.ok())
        .collect();
    let mut news: Vec<NewEntry> = entries
        .iter()
        .map(|e| NewEntry {
            mono_ms: e.mono_ms,
            utc: DateTime::parse_from_rfc3339(&e.utc)
                .unwrap()
                .with_timezone(&Utc),
            actor: e.actor.clone(),
            clause: e.clause.clone(),
            kind: e.kind.clone(),
            body: e.body.clone(),
        })
        .collect();
    let rounds = if rng.chance(2) { 1 } else { 1 + rng.below(3) };
    for _ in 0..rounds {
        let i = rng.below(news.len());
        let kinds: Vec<String> = entries.iter().map(|e| e.kind.clone()).collect();
        match rng.below(10) {
            0 => news[i].mono_ms = *rng.pick(&[0, 1, u64::MAX, u64::MAX / 2, 7_200_000]),
            1 => news[i].kind = rng.pick(&kinds).clone(),
            2 => {
                news[i].actor = rng
                    .pick(&["arbiter", "operator", "kit", "committee"])
                    .to_string()
            }
            3 => {
                let e = news[i].clone();
                news.insert(rng.below(news.len() + 1), e);
            }
            4 if news.len() > 1 => {
                news.remove(i);
            }
            5 => {
                let j = rng.below(news.len());
                news.swap(i, j);
            }
            _ => mutate_value(rng, &mut news[i].body, 0),
        }
    }
    let mut out = Vec::new();
    let mut prev = log::ZERO_HASH;
    for (seq, e) in news.iter().enumerate() {
        let line = log::encode_line(seq as u64, &prev, e);
        prev = log::entry_hash(&line);
        out.extend_from_slice(&line);
        out.push(b'\n');
    }
    out
}

fn log_case(rng: &mut Rng) -> Vec<u8> {
    let (bytes, _) = real_log();
    let corpus: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    match rng.below(6) {
        0 => mutate_bytes(rng, bytes, LOG_WORDS, &corpus),
        4 | 5 => mutate_log(rng, bytes),
        1 => {
            // One line, damaged.
            let line = rng.pick(&corpus[..corpus.len() - 1]);
            mutate_bytes(rng, line, LOG_WORDS, &corpus)
        }
        2 => mutate_log(rng, bytes),
        _ => {
            let m = mutate_log(rng, bytes);
            mutate_bytes(rng, &m, LOG_WORDS, &corpus)
        }
    }
}

/// Everything that reads a log's bytes in memory.
fn log_exec(input: &[u8]) {
    for (o, l, _) in scan::split(input) {
        let _ = log::parse_line(l, o);
    }
    let lines = scan::scan(input);
    let _ = scan::first_local_fault(&lines);
    let anchors: Vec<(u64, [u8; 32])> = lines
        .iter()
        .enumerate()
        .step_by(3)
        .map(|(i, l)| (i as u64 + 1, l.hash))
        .collect();
    let _ = scan::first_fault(&lines, &anchors);
    let _ = arbiter::record::verify::verify_lines(1, "fuzz", &lines, &[]);
    let entries: Vec<log::Entry> = lines.iter().filter_map(|l| l.entry.clone().ok()).collect();
    if let Ok(events) = events_of(&entries)
        && let Ok(g) = Game::replay(events.iter())
    {
        deep(D_LOG_REPLAYED);
        let at = g.last_at();
        let _ = g.view(at, 100);
        let _ = g.view(at.saturating_add(3_600_000), 100);
        let _ = g.next_deadline();
        let _ = g.due(at.saturating_add(1));
    }
    if let Ok(text) = std::str::from_utf8(input) {
        for l in text.lines() {
            let _ = arbiter::log::codec::event_from_line(l);
        }
    }
}

#[test]
fn fuzz_log_reader() {
    let _ = real_log();
    let n = run_target(
        "log-reader",
        cases(1500),
        Duration::from_secs(600),
        log_case,
        log_exec,
    );
    eprintln!(
        "fuzz log-reader: {} cases decoded and replayed",
        deep_count(D_LOG_REPLAYED)
    );
    assert!(n > 0);
}

/// The journal open path on a file: open (repair a torn tail or open read-only), append one
/// entry when writable, and read the file back strictly.
fn journal_exec(input: &[u8]) {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("log.jsonl");
    std::fs::write(&path, input).unwrap();
    let before = input.to_vec();
    match Journal::open(&path) {
        Ok(mut j) => {
            deep(D_JOURNAL_OPENED);
            let n = j.entries().len();
            let damaged = j.damage().is_some();
            let e = NewEntry {
                mono_ms: j.entries().last().map_or(0, |e| e.mono_ms),
                utc: DateTime::<Utc>::UNIX_EPOCH,
                actor: "arbiter".into(),
                clause: "1".into(),
                kind: "note".into(),
                body: json!({"text": "fuzz"}),
            };
            let appended = j.append(e).is_ok();
            assert!(!(damaged && appended), "appended to a damaged log");
            drop(j);
            if damaged {
                assert_eq!(
                    std::fs::read(&path).unwrap(),
                    before,
                    "a damaged log was changed"
                );
            } else {
                let all = read_entries(&path).unwrap();
                assert_eq!(all.len(), n + usize::from(appended));
            }
        }
        Err(_) => {
            // Refused to open: the file must be untouched.
            assert_eq!(
                std::fs::read(&path).unwrap(),
                before,
                "a refused log was changed"
            );
        }
    }
}

#[test]
fn fuzz_journal_open_path() {
    let _ = real_log();
    run_target(
        "journal-open",
        cases(300),
        Duration::from_secs(600),
        log_case,
        journal_exec,
    );
    eprintln!(
        "fuzz journal-open: {} cases opened (repaired, read-only or clean)",
        deep_count(D_JOURNAL_OPENED)
    );
}

// ----- scripts and commands --------------------------------------------------------------------

fn script_corpus() -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    for dir in ["examples/scripts", "tests/fixtures"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "arb") {
                v.push(std::fs::read(e.path()).unwrap());
            }
        }
    }
    v.sort();
    assert!(v.len() >= 3);
    v
}

const SCRIPT_WORDS: &[&str] = &[
    "0",
    "0:00:00",
    "99999999999999999999",
    "1:60:60",
    "-0:00:01",
    "0:00:00.0001",
    "4294967296:00:00",
    "213503982334:00:00",
    "1e9",
    "arbiter",
    "operator",
    "human",
    "supervisor",
    "committee",
    "move",
    "declare",
    "start",
    "stop",
    "resume",
    "correct",
    "6d",
    "7e",
    "clock",
    "takeback",
    "white",
    "black",
    "+99999:00:00",
    "-99999:00:00",
    "internal-clock",
    "offer-draw",
    "eval",
    "repetition",
    "consult",
    "consult-end",
    "decline-draw",
    "accept-draw",
    "resign",
    "power-failure",
    "power-restored",
    "restart-gap",
    "charge",
    "waive",
    "claim",
    "threefold",
    "fifty",
    "wrong-move",
    "no-show",
    "decide",
    "1-0",
    "1/2-1/2",
    "note",
    "e4",
    "O-O-O",
    "e8=Q",
    "e7e8q",
    "Kxe8",
    "#",
];

fn script_exec(input: &[u8]) {
    let Ok(text) = std::str::from_utf8(input) else {
        return;
    };
    let Ok(lines) = parse_script(text) else {
        return;
    };
    deep(D_SCRIPT_OK);
    for l in text.lines() {
        let _ = parse(l);
    }
    let (profile, pref) =
        load_profile(&root().join("rules/kasparov-deep-junior-2003.toml")).unwrap();
    let ctx = GameContext::unsigned("fuzz", 1, pref);
    let mut s = Session::new(
        Game::new(ctx, profile),
        Box::new(Memory::default()),
        DateTime::<Utc>::UNIX_EPOCH,
    );
    for l in &lines {
        let _ = s.execute(&l.command, l.at);
        let _ = s.game.view(l.at, 40);
    }
    let _ = s.catch_up(lines.last().map_or(0, |l| l.at).saturating_add(10_000_000));
}

#[test]
fn fuzz_script_parser() {
    let corpus = script_corpus();
    let c2 = corpus.clone();
    run_target(
        "script",
        cases(800),
        Duration::from_secs(600),
        move |rng| {
            let base = rng.pick(&c2);
            if rng.chance(3) {
                mutate_bytes(rng, base, SCRIPT_WORDS, &c2)
            } else {
                let text = String::from_utf8(base.clone()).unwrap();
                mutate_lines(rng, &text, SCRIPT_WORDS).into_bytes()
            }
        },
        script_exec,
    );
    eprintln!(
        "fuzz script: {} cases parsed and run",
        deep_count(D_SCRIPT_OK)
    );
}

// ----- the move parser -------------------------------------------------------------------------

const PLIES: [&str; 40] = [
    "d4", "d5", "c4", "c6", "Nc3", "Nf6", "Nf3", "g6", "cxd5", "cxd5", "Bf4", "Nc6", "h3", "Qb6",
    "a3", "Ne4", "Nxd5", "Qa5+", "Nc3", "Bg7", "Rc1", "Bf5", "e3", "O-O", "Bc4", "e5", "Bxe5",
    "Nxe5", "Nxe5", "Bxe5", "dxe5", "Rad8", "Qa4", "Qxa4", "Nxa4", "Rc8", "f3", "Ng3", "Rg1",
    "Bd3",
];

fn move_case(rng: &mut Rng) -> Vec<u8> {
    let ply = rng.below(PLIES.len());
    let alphabet = b"KQRBNPkqrbnpabcdefgh0123456789xX+#=-O@!?:/ ";
    let text: Vec<u8> = match rng.below(5) {
        0 => {
            let n = rng.below(12);
            (0..n).map(|_| *rng.pick(alphabet)).collect()
        }
        1 => {
            let base = PLIES[rng.below(PLIES.len())];
            mutate_bytes(rng, base.as_bytes(), &PLIES, &[])
        }
        2 => {
            let f = |r: &mut Rng| (b'a' + r.below(10) as u8, b'0' + r.below(10) as u8);
            let (a, b) = f(rng);
            let (c, d) = f(rng);
            let mut v = vec![a, b, c, d];
            if rng.chance(2) {
                v.push(*rng.pick(b"qrbnkpx"));
            }
            v
        }
        3 => PLIES[ply].as_bytes().to_vec(),
        _ => mutate_bytes(rng, b"e7e8q", INTERESTING, &[]),
    };
    let mut out = vec![ply as u8, rng.below(2) as u8];
    out.extend(text);
    out
}

fn move_exec(input: &[u8]) {
    let (ply, free, text) = (input[0] as usize, input[1] == 1, &input[2..]);
    let text = String::from_utf8_lossy(text);
    let mut board = if free {
        Board::new_free()
    } else {
        Board::new_chess()
    };
    for san in &PLIES[..ply] {
        let m = board.check(san).unwrap();
        board.play(&m).unwrap();
    }
    if let Ok(m) = board.check(&text) {
        deep(D_MOVE_OK);
        // What check accepts, play accepts; and it reads back.
        let mut b = board.clone();
        b.play(&m).unwrap();
        if !free {
            assert!(board.check(&m.uci).is_ok(), "{m:?}");
            assert!(board.check(&m.san).is_ok(), "{m:?}");
        }
        let _ = b.automatic_end();
        let _ = b.fen();
    }
    let _ = arbiter::core::board::complete_san(&board, &text);
}

#[test]
fn fuzz_move_parser() {
    run_target(
        "move",
        cases(3000),
        Duration::from_secs(600),
        move_case,
        move_exec,
    );
    eprintln!(
        "fuzz move: {} cases accepted as moves",
        deep_count(D_MOVE_OK)
    );
}

// ----- engine logs -----------------------------------------------------------------------------

fn engine_corpus() -> Vec<u8> {
    match crate::pgn_support::read_real("machine-debug.log") {
        Ok(t) => t.into_bytes(),
        // Without ../shared, a small log of both dialects keeps the target alive.
        Err(_) => b">> position startpos moves e2e4\n>> go movetime 100\n<< info depth 1 score cp 10 time 1 pv e7e5\n<< bestmove e7e5\nusermove e2e4\n 1 10 1 20 e7e5\nmove e7e5\n".to_vec(),
    }
}

const ENGINE_WORDS: &[&str] = &[
    ">> ",
    "<< ",
    "info",
    "depth",
    "seldepth",
    "score",
    "cp",
    "mate",
    "-mate",
    "lowerbound",
    "upperbound",
    "nodes",
    "nps",
    "time",
    "pv",
    "bestmove",
    "ponder",
    "(none)",
    "0000",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "movetime",
    "wtime",
    "btime",
    "infinite",
    "stop",
    "ucinewgame",
    "usermove",
    "move",
    "new",
    "force",
    "xboard",
    "protover 2",
    "setboard",
    "undo",
    "remove",
    "e2e4",
    "e7e8q",
    "a1a1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "[12:00:00.000]",
    "2003-01-26 15:00:00.123",
    "18446744073709551615",
    "-2147483648",
];

fn engine_exec(input: &[u8]) {
    let log = arbiter::enginelog::parse(Cursor::new(input)).unwrap();
    let text = String::from_utf8_lossy(input);
    let log2 = arbiter::enginelog::parse_str(&text);
    for l in text.lines().take(50) {
        let _ = arbiter::enginelog::detect_line(l);
    }
    let sans: Vec<&str> = PLIES.to_vec();
    for machine_white in [false, true] {
        if let Ok(moves) = arbiter::enginelog::machine_moves_from_san(&sans, machine_white, None) {
            let _ = arbiter::enginelog::coverage(&log, &moves);
            let _ = arbiter::enginelog::coverage(&log2, &moves);
        }
    }
    if !log.searches.is_empty() {
        deep(D_ENGINE_SEARCHES);
    }
    for s in &log.searches {
        let _ = s.time_ms();
        let _ = s.max_depth();
        let _ = s.discarded();
        let _ = s.iterations_without_score();
    }
}

#[test]
fn fuzz_engine_log_parsers() {
    let real = engine_corpus();
    // The whole log is large: most cases take a window of it, so the loop stays fast.
    let real2 = real.clone();
    run_target(
        "engine-log",
        cases(400),
        Duration::from_secs(600),
        move |rng| {
            let text = String::from_utf8_lossy(&real2).into_owned();
            let lines: Vec<&str> = text.lines().collect();
            let (a, b) = if rng.chance(10) {
                (0, lines.len())
            } else {
                let a = rng.below(lines.len());
                (a, (a + 1 + rng.below(200)).min(lines.len()))
            };
            let window = lines[a..b].join("\n");
            let corpus = vec![real2.clone()];
            match rng.below(3) {
                0 => mutate_bytes(rng, window.as_bytes(), ENGINE_WORDS, &corpus),
                1 => mutate_lines(rng, &window, ENGINE_WORDS).into_bytes(),
                _ => {
                    let m = mutate_lines(rng, &window, ENGINE_WORDS);
                    mutate_bytes(rng, m.as_bytes(), ENGINE_WORDS, &corpus)
                }
            }
        },
        engine_exec,
    );
    eprintln!(
        "fuzz engine-log: {} cases parsed with searches",
        deep_count(D_ENGINE_SEARCHES)
    );
    // And the real log itself, through both entry points.
    engine_exec(&real);
}

/// Cases the long run of 2026-11-21 (`ARBITER_FUZZ_CASES=60000 ARBITER_FUZZ_SEED=20261121`)
/// found, made again from their seed and run: they panicked before the fixes (u64 overflow of
/// profile seconds * 1000 in `rules.rs` / `game.rs`; a consultation started near `u64::MAX` ms in
/// a crafted log, `Game::consultation_limit_at`).
#[test]
fn fuzz_regressions_found_by_the_long_run() {
    const SEED: u64 = 20_261_121;
    for i in [967, 5271, 9811, 10593, 10910] {
        let input = profile_case(&mut case_rng("rules-profile", SEED, i));
        profile_exec(&input);
    }
    let _ = real_log();
    let input = log_case(&mut case_rng("log-reader", SEED, 13191));
    log_exec(&input);
    // And the bound itself: a period of u64::MAX seconds is refused with the key named.
    let text = std::fs::read_to_string(root().join("rules/kasparov-deep-junior-2003.toml"))
        .unwrap()
        .replace("seconds = 7200", "seconds = 18446744073709551615");
    let e = Profile::parse("big.toml", &text).unwrap_err();
    assert!(e.to_string().contains("periods[0].seconds"), "{e}");
}

/// The harness finds what it should: a target that panics on some inputs is reported.
#[test]
fn fuzz_harness_reports_a_panic() {
    let r = catch_unwind(|| {
        run_target(
            "self-check",
            200,
            Duration::from_secs(60),
            |rng| vec![rng.below(50) as u8],
            |b| assert!(b[0] != 7, "seven"),
        )
    });
    assert!(r.is_err());
}

// ----- the command line over a hostile match folder -------------------------------------------

/// The files of a match folder (and the files a user names) that a command reads.
const SLOTS: &[&str] = &[
    "game-1/log.jsonl",
    "game-1/checkpoints/CP.txt",
    "game-1/checkpoints/CP.txt.sig",
    "allowed_signers",
    "rules.toml",
    "keys/arbiter",
    "keys/arbiter.pub",
    "index.txt",
    "index.txt.sig",
    "proof.json",
    "script.arb",
];

/// What is put in a slot's place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    Garbage,
    Truncated,
    Empty,
    HugeLine,
    NotUtf8,
    Fifo,
    /// A character device made with mknod in the case folder (1,5: endless zeros).
    Device,
    Folder,
    /// A symbolic link to a copy of the original outside the match folder.
    Symlink,
    Dangling,
}

const KINDS: [FileKind; 10] = [
    FileKind::Garbage,
    FileKind::Truncated,
    FileKind::Empty,
    FileKind::HugeLine,
    FileKind::NotUtf8,
    FileKind::Fifo,
    FileKind::Device,
    FileKind::Folder,
    FileKind::Symlink,
    FileKind::Dangling,
];

/// The base match: a finished rehearsal game with a real key, its checkpoint and index, a
/// proof, the rules and a script; made once per run. Returns (folder, checkpoint size).
fn cli_base() -> &'static (PathBuf, u64) {
    static BASE: std::sync::OnceLock<(PathBuf, u64)> = std::sync::OnceLock::new();
    BASE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("arbiter-fuzz-cli-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        crate::log_util::arbiter_key_in(&dir);
        let mut script =
            std::fs::read_to_string(root().join("examples/scripts/quick.arb")).unwrap();
        script.push_str("0:17:00  human resign\n");
        std::fs::write(dir.join("script.arb"), &script).unwrap();
        std::fs::copy(
            root().join("rules/kasparov-deep-junior-2003.toml"),
            dir.join("rules.toml"),
        )
        .unwrap();
        let run = |args: &[&str]| {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
                .args(args)
                .current_dir(&dir)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            out.stdout
        };
        run(&[
            "script",
            "script.arb",
            "--match",
            ".",
            "--rules",
            "rules.toml",
        ]);
        let proof = run(&["prove", "--match", ".", "--game", "1", "--seq", "3"]);
        std::fs::write(dir.join("proof.json"), proof).unwrap();
        let size = std::fs::read_dir(dir.join("game-1/checkpoints"))
            .unwrap()
            .filter_map(|e| {
                e.ok()?
                    .file_name()
                    .to_str()?
                    .strip_suffix(".txt")?
                    .parse::<u64>()
                    .ok()
            })
            .max()
            .unwrap();
        (dir, size)
    })
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Put a file of `kind` in place of `slot` in the case folder `case` (the original is read from
/// the base match). Returns false when the kind cannot be made here (mknod without root).
fn plant(case: &std::path::Path, slot: &str, kind: FileKind, rng: &mut Rng) -> bool {
    let path = case.join(slot);
    let original = std::fs::read(&path).unwrap_or_default();
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_dir_all(&path);
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).unwrap();
    }
    let write = |b: &[u8]| std::fs::write(&path, b).unwrap();
    match kind {
        FileKind::Garbage => {
            let n = rng.below(4096);
            write(&(0..n).map(|_| rng.next() as u8).collect::<Vec<_>>())
        }
        FileKind::Truncated => write(&original[..rng.below(original.len().max(1))]),
        FileKind::Empty => write(b""),
        FileKind::HugeLine => {
            // Past the 16 MiB line bound for the log, 2 MiB elsewhere; no newline at all.
            let n = if slot.ends_with("log.jsonl") {
                17 << 20
            } else {
                2 << 20
            };
            let mut b = original.clone();
            b.extend(std::iter::repeat_n(b'a', n));
            write(&b)
        }
        FileKind::NotUtf8 => {
            let mut b = original.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(b.len() + 1);
                b.insert(at, *rng.pick(&[0xff, 0xfe, 0xc3, 0x80, 0xed]));
            }
            write(&b)
        }
        FileKind::Fifo => {
            let ok = std::process::Command::new("mkfifo")
                .arg(&path)
                .status()
                .unwrap();
            assert!(ok.success());
        }
        FileKind::Device => {
            let ok = std::process::Command::new("mknod")
                .arg(&path)
                .args(["c", "1", "5"])
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                return false;
            }
        }
        FileKind::Folder => std::fs::create_dir_all(&path).unwrap(),
        FileKind::Symlink => {
            let target = case.with_extension(format!("{}.orig", slot.replace('/', "_")));
            std::fs::write(&target, &original).unwrap();
            std::os::unix::fs::symlink(&target, &path).unwrap();
        }
        FileKind::Dangling => {
            std::os::unix::fs::symlink(case.join("nowhere/at/all"), &path).unwrap();
        }
    }
    true
}

/// A random argument vector for `cmd` over the case folder (its slots, odd values, unknown
/// flags, missing values, repeated flags).
fn cli_args(rng: &mut Rng, cmd: &str, cp: u64) -> Vec<String> {
    let odd = [
        "",
        "0",
        "-1",
        "1",
        "2",
        "999999999999",
        "18446744073709551616",
        "abc",
        "--",
        "-",
        "é\u{202e}",
        "a\nb",
        "1e3",
        " 1",
        "SHA256:x",
        "57-3F2A-9C1B-77D0-12AB",
        "missing",
        "game-1",
        ".",
        "..",
        "nowhere/x",
    ];
    let numeric = |f: &str| matches!(f, "--game" | "--seq" | "--from" | "--checkpoint");
    let value = |rng: &mut Rng, flag: &str| -> String {
        let spoil = if numeric(flag) { 12 } else { 6 };
        match rng.below(spoil) {
            0 => rng.pick(&odd).to_string(),
            1 => rng.pick(SLOTS).replace("CP", &cp.to_string()),
            _ => match flag {
                "--match" => ".".into(),
                "--game" | "--seq" | "--from" | "--checkpoint" => {
                    rng.pick(&["1", "2", "3", "0", &cp.to_string()]).to_string()
                }
                "--rules" => "rules.toml".into(),
                "--key" => "keys/arbiter".into(),
                "--proof" => "proof.json".into(),
                "--trust" => "keys/arbiter.pub".into(),
                "--out" => rng
                    .pick(&["out.txt", "game-1", "game-1/log.jsonl", "new/out"])
                    .to_string(),
                "--delivered" => "2003-01-26T16:00:00Z".into(),
                "--camp" => rng.pick(&["white", "black", "x"]).to_string(),
                "--principal" => rng.pick(&["arbiter", "a b", "x\ny"]).to_string(),
                _ => rng.pick(&odd).to_string(),
            },
        }
    };
    let (flags, switches, positional): (&[&str], &[&str], usize) = match cmd {
        "verify" => (
            &[
                "--match",
                "--game",
                "--proof",
                "--trust",
                "--fingerprint",
                "--code",
                "--consistency",
            ],
            &["--json"],
            0,
        ),
        "prove" => (&["--match", "--game", "--seq", "--from"], &[], 0),
        "status" => (&["--match", "--game"], &["--json"], 0),
        "pgn" => (&["--match", "--game", "--out"], &[], 0),
        "report" => (
            &["--match", "--game", "--out"],
            &["--markdown", "--public"],
            0,
        ),
        "checkpoint" => (&["--match", "--game", "--key", "--passphrase-env"], &[], 0),
        "script" => (
            &["--match", "--game", "--rules", "--key", "--passphrase-env"],
            &["--dry-run", "--json", "--echo"],
            1,
        ),
        "archive" => (
            &[
                "--match",
                "--game",
                "--program",
                "--delivered",
                "--key",
                "--passphrase-env",
            ],
            &[],
            2,
        ),
        "countersign" => (
            &[
                "--match",
                "--game",
                "--camp",
                "--checkpoint",
                "--key",
                "--passphrase-env",
                "--signature",
            ],
            &[],
            0,
        ),
        "keygen" => (
            &[
                "--match",
                "--out",
                "--principal",
                "--passphrase-env",
                "--existing",
            ],
            &["--no-passphrase"],
            0,
        ),
        _ => (
            &["--match", "--game", "--rules", "--key", "--declarations"],
            &[],
            0,
        ),
    };
    let mut args = vec![cmd.to_string()];
    // Mostly the usual `--match .` and what the command requires, so that most runs get past
    // the argument parser to the files.
    if rng.below(4) != 0 {
        args.extend(["--match".to_string(), ".".to_string()]);
    }
    let required: &[&str] = match cmd {
        "prove" => &["--game", "--seq"],
        "pgn" | "report" => &["--game"],
        "archive" => &["--game"],
        "countersign" => &["--camp", "--key"],
        _ => &[],
    };
    if rng.below(4) != 0 {
        for f in required {
            args.push(f.to_string());
            args.push(value(rng, f));
        }
    }
    for _ in 0..rng.below(3) {
        let f = *rng.pick(flags);
        if args.iter().any(|a| a == f) && !rng.chance(8) {
            continue;
        }
        args.push(f.to_string());
        if !rng.chance(12) {
            args.push(value(rng, f));
        }
    }
    for _ in 0..rng.below(2) {
        if !switches.is_empty() {
            args.push(rng.pick(switches).to_string());
        }
    }
    for _ in 0..positional + usize::from(rng.chance(8)) {
        args.push(if rng.chance(2) {
            rng.pick(SLOTS).replace("CP", &cp.to_string())
        } else {
            "script.arb".to_string()
        });
    }
    if rng.chance(10) {
        args.push(
            rng.pick(&["--frobnicate", "-x", "--help", "--version"])
                .to_string(),
        );
    }
    if rng.chance(8) && args.len() > 2 {
        let i = 1 + rng.below(args.len() - 1);
        args.remove(i);
    }
    args
}

/// How long a run of the (debug) binary may take before it counts as hung. A hang is a run that
/// never ends (a read blocked on a FIFO, a loop), not a slow one: the bound is wall-clock time
/// generous enough for the debug binary on a loaded 2-core machine (each run takes well under a
/// second alone), so the verdict never depends on the machine's speed. Checked with two
/// `nice -n 19` busy loops per core running beside the test.
pub(crate) const HANG_BOUND: Duration = Duration::from_secs(300);

/// What one run of the binary showed.
struct CliRun {
    code: Option<i32>,
    stderr: String,
    hung: bool,
}

fn run_cli(case: &std::path::Path, args: &[String]) -> CliRun {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .current_dir(case)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Standard error is drained meanwhile (a long message must not block the child).
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let deadline = Instant::now() + HANG_BOUND;
    let mut hung = false;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            hung = true;
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stderr = reader.join().unwrap();
    CliRun {
        code: status.code(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        hung,
    }
}

/// Whether a run is fine: no panic (101, 134, a signal), no hang, and a failure says
/// `arbiter: …` — except clap's own usage errors (2) and the verdicts `verify` / `prove` print
/// on standard output (3, 10..=26).
fn cli_problem(args: &[String], r: &CliRun) -> Option<String> {
    let verdicts = matches!(args[0].as_str(), "verify" | "prove");
    let problem = if r.hung {
        format!("hung for {} s", HANG_BOUND.as_secs())
    } else {
        match r.code {
            None => "killed by a signal".to_string(),
            Some(101 | 134) => "panicked".to_string(),
            _ if r.stderr.contains("panicked") => "panicked".to_string(),
            Some(0 | 2) => return None,
            Some(3 | 10..=26) if verdicts => return None,
            Some(_) if r.stderr.lines().any(|l| l.starts_with("arbiter: ")) => return None,
            Some(c) => format!("exit {c} without an `arbiter:` message"),
        }
    };
    Some(format!(
        "{problem}: arbiter {} (exit {:?}): {}",
        args.join(" "),
        r.code,
        r.stderr.trim()
    ))
}

/// The commands that read each slot (for the sweep of every slot × every kind of file).
fn readers(slot: &str) -> &'static [&'static [&'static str]] {
    match slot {
        "game-1/log.jsonl" => &[
            &["status", "--match", "."],
            &["verify", "--match", "."],
            &["pgn", "--match", ".", "--game", "1"],
            &["report", "--match", ".", "--game", "1", "--out", "r.html"],
            &["checkpoint", "--match", ".", "--game", "1"],
            &["prove", "--match", ".", "--game", "1", "--seq", "2"],
            &[
                "script",
                "script.arb",
                "--match",
                ".",
                "--game",
                "2",
                "--rules",
                "rules.toml",
            ],
            &[
                "archive",
                "--match",
                ".",
                "--game",
                "1",
                "script.arb",
                "script.arb",
            ],
            &[
                "countersign",
                "--yes",
                "--match",
                ".",
                "--camp",
                "white",
                "--key",
                "keys/arbiter",
            ],
        ],
        "game-1/checkpoints/CP.txt" | "game-1/checkpoints/CP.txt.sig" => &[
            &["verify", "--match", "."],
            &["prove", "--match", ".", "--game", "1", "--seq", "2"],
            &["status", "--match", "."],
            &[
                "countersign",
                "--yes",
                "--match",
                ".",
                "--camp",
                "white",
                "--key",
                "keys/arbiter",
            ],
        ],
        "allowed_signers" => &[
            &["verify", "--match", "."],
            &["checkpoint", "--match", ".", "--game", "1"],
            &["keygen", "--match", ".", "--out", "k2", "--no-passphrase"],
        ],
        "rules.toml" => &[
            &["script", "script.arb", "--dry-run", "--rules", "rules.toml"],
            &[
                "script",
                "script.arb",
                "--match",
                ".",
                "--game",
                "2",
                "--rules",
                "rules.toml",
            ],
        ],
        "keys/arbiter" => &[
            &["checkpoint", "--match", ".", "--game", "1"],
            &[
                "script",
                "script.arb",
                "--match",
                ".",
                "--game",
                "2",
                "--rules",
                "rules.toml",
            ],
            &[
                "countersign",
                "--yes",
                "--match",
                ".",
                "--camp",
                "white",
                "--key",
                "keys/arbiter",
            ],
        ],
        "keys/arbiter.pub" => &[
            &["verify", "--match", ".", "--trust", "keys/arbiter.pub"],
            &["keygen", "--match", ".", "--existing", "keys/arbiter.pub"],
        ],
        "index.txt" | "index.txt.sig" => &[
            &["verify", "--match", "."],
            &["checkpoint", "--match", ".", "--game", "1"],
        ],
        "proof.json" => &[
            &["verify", "--match", ".", "--proof", "proof.json"],
            &["verify", "--match", ".", "--consistency", "proof.json"],
        ],
        _ => &[
            &["script", "script.arb", "--dry-run", "--rules", "rules.toml"],
            &[
                "script",
                "script.arb",
                "--match",
                ".",
                "--game",
                "2",
                "--rules",
                "rules.toml",
            ],
            &[
                "archive",
                "--match",
                ".",
                "--game",
                "1",
                "script.arb",
                "script.arb",
            ],
        ],
    }
}

/// The command line with files of every kind in every slot of a match folder: every slot ×
/// every kind swept with the commands that read it, then random argument vectors for every
/// subcommand over a folder with a random slot spoiled. No panic, no hang, and a failure says
/// `arbiter: …`. `ARBITER_FUZZ_CASES` sets the random cases (default 300).
#[test]
fn fuzz_command_line_and_match_files() {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // The checker itself: a panic, a hang and a silent failure are each reported.
    let args = vec!["status".to_string()];
    let ran = |code, stderr: &str, hung| CliRun {
        code,
        stderr: stderr.into(),
        hung,
    };
    assert!(cli_problem(&args, &ran(Some(101), "", false)).is_some());
    assert!(cli_problem(&args, &ran(Some(0), "", true)).is_some());
    assert!(cli_problem(&args, &ran(None, "", false)).is_some());
    assert!(cli_problem(&args, &ran(Some(65), "bad", false)).is_some());
    assert!(cli_problem(&args, &ran(Some(65), "arbiter: bad", false)).is_none());
    let (base, cp) = cli_base();
    let tmp = tempfile::tempdir().unwrap();
    let slot_path = |s: &str| s.replace("CP", &cp.to_string());
    let mut problems = Vec::new();
    let (mut runs, mut skipped) = (0u64, 0u64);
    let mut rng = case_rng("cli-sweep", seed(), 0);
    let t0 = Instant::now();
    let mut n = 0u64;
    let fresh = |n: &mut u64| {
        *n += 1;
        let case = tmp.path().join(format!("case-{n}"));
        copy_tree(base, &case);
        case
    };
    for slot in SLOTS {
        for kind in KINDS {
            let case = fresh(&mut n);
            if !plant(&case, &slot_path(slot), kind, &mut rng) {
                skipped += 1;
                continue;
            }
            for cmd in readers(slot) {
                let args: Vec<String> = cmd.iter().map(|a| a.to_string()).collect();
                let r = run_cli(&case, &args);
                runs += 1;
                if let Some(p) = cli_problem(&args, &r) {
                    problems.push(format!("[{slot} as {kind:?}] {p}"));
                }
            }
            let _ = std::fs::remove_dir_all(&case);
        }
    }
    let sweep = runs;
    let commands = [
        "verify",
        "prove",
        "status",
        "pgn",
        "report",
        "checkpoint",
        "script",
        "archive",
        "countersign",
        "keygen",
        "play",
    ];
    let random = cases(300);
    // Exit codes of the random runs: how many got past the argument parser (2).
    let mut codes: std::collections::BTreeMap<i32, u64> = std::collections::BTreeMap::new();
    for i in 0..random {
        let mut rng = case_rng("cli-random", seed(), i);
        let case = fresh(&mut n);
        let slot = *rng.pick(SLOTS);
        let kind = *rng.pick(&KINDS);
        let planted = !rng.chance(4) && plant(&case, &slot_path(slot), kind, &mut rng);
        let cmd = *rng.pick(&commands);
        let args = cli_args(&mut rng, cmd, *cp);
        let r = run_cli(&case, &args);
        runs += 1;
        *codes.entry(r.code.unwrap_or(-1)).or_default() += 1;
        if let Some(p) = cli_problem(&args, &r) {
            let spoiled = if planted {
                format!("{slot} as {kind:?}")
            } else {
                "nothing spoiled".into()
            };
            problems.push(format!("[case {i}, {spoiled}] {p}"));
        }
        let _ = std::fs::remove_dir_all(&case);
    }
    eprintln!(
        "fuzz cli: {runs} runs ({sweep} in the slot sweep: {} slots x {} kinds, {skipped} kinds not makeable here; {random} random argument vectors), {} problems, {:.1} s",
        SLOTS.len(),
        KINDS.len(),
        problems.len(),
        t0.elapsed().as_secs_f64()
    );
    eprintln!("fuzz cli: exit codes of the random runs: {codes:?}");
    // The base match is this test's alone: leave nothing in the temporary folder.
    let _ = std::fs::remove_dir_all(base);
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
