//! The cost of recording an entry, each figure against an anchor measured in the same run.
//!
//! 1. **The whole entry path on the command users run**: `arbiter script`'s path in a keyed
//!    match folder (`open_game_with`, then `run_script` feeding the game's moves and notes: encode,
//!    check, append with its fdatasync, bind), against the floor: the same line bytes (read back
//!    from the log the path wrote) written and fdatasynced one by one into a file in the same
//!    folder. Target: <= 1.3x.
//! 2. **`Journal::append`** alone against SQLite (WAL, `synchronous=FULL`, one row per event)
//!    and the same floor.
//! 3. **Script mode at length**: a script with a stop, a take-back and a resume (each signs a
//!    checkpoint) every ten entries, at 5,000, 20,000 and 40,000 entries: the time per entry
//!    at each length (flat when a checkpoint costs the same at the ten-thousandth as at the first).
//!    In a folder on a memory file system (`/dev/shm` when there is one, `ARBITER_BENCH_SHM_DIR`
//!    to choose): the fdatasyncs cost the same per entry at any length and are measured in 1.
//! 4. **`arbiter verify` with thousands of checkpoints**: the release binary on the longest game
//!    of 3 (a checkpoint every few entries) against the same log with only its last checkpoint.
//!    Target: <= 1.5x.
//!
//! `ARBITER_BENCH_APPEND_EVENTS` (default 1000) entries per round of 1 and 2,
//! `ARBITER_BENCH_ROUNDS` (default 5) rounds, contenders interleaved; medians reported.
//! `ARBITER_BENCH_SCRIPT_SIZES` (default `5000,20000,40000`) the lengths of 3.
//! `--quick` (and any run without `--bench`: `cargo test` runs this target) makes every size
//! small: it checks that the benchmark still runs, its figures mean little.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use arbiter::board::matchdir::open_game_with;
use arbiter::board::session::run_script;
use arbiter::core::script::parse_script;
use arbiter::log::{self, NewEntry, ZERO_HASH};
use arbiter::record::journal::Journal;
use arbiter::record::sign::{self, KeySource};
use support::*;

/// Ours: create the log with line 0, then time `entries.len()` appends. Seconds per event.
fn ours(dir: &Path, first: &NewEntry, entries: &[NewEntry]) -> f64 {
    let path = dir.join("log.jsonl");
    let mut j = Journal::create(&path, first.clone()).unwrap();
    let t = Instant::now();
    for e in entries {
        j.append(e.clone()).unwrap();
    }
    let s = t.elapsed().as_secs_f64();
    assert_eq!(j.entries().len(), entries.len() + 1);
    s / entries.len() as f64
}

/// SQLite in WAL mode with `synchronous=FULL`: one INSERT (its own transaction) per event.
fn sqlite(dir: &Path, first: &[u8], lines: &[Vec<u8>]) -> f64 {
    let db = rusqlite::Connection::open(dir.join("log.sqlite")).unwrap();
    let mode: String = db
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    db.execute_batch(
        "PRAGMA synchronous=FULL;
         CREATE TABLE log (seq INTEGER PRIMARY KEY, line BLOB NOT NULL);",
    )
    .unwrap();
    let sync: i64 = db
        .query_row("PRAGMA synchronous", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sync, 2, "synchronous=FULL");
    let mut st = db
        .prepare("INSERT INTO log (seq, line) VALUES (?1, ?2)")
        .unwrap();
    st.execute(rusqlite::params![0i64, first]).unwrap();
    let t = Instant::now();
    for (i, l) in lines.iter().enumerate() {
        st.execute(rusqlite::params![i as i64 + 1, l]).unwrap();
    }
    let s = t.elapsed().as_secs_f64();
    s / lines.len() as f64
}

/// The floor: write the same bytes and fdatasync, nothing else. Seconds per line.
fn raw(dir: &Path, first: &[u8], lines: &[Vec<u8>]) -> f64 {
    let path = dir.join("log.raw");
    let _ = std::fs::remove_file(&path);
    let mut f = OpenOptions::new()
        .create_new(true)
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(first).unwrap();
    f.sync_data().unwrap();
    let t = Instant::now();
    for l in lines {
        f.write_all(l).unwrap();
        f.sync_data().unwrap();
    }
    let s = t.elapsed().as_secs_f64();
    s / lines.len() as f64
}

/// The declarations and the start every script opens with.
const OPENING: &str = "0 arbiter declare white human Garry Kasparov\n\
     0 arbiter declare black machine Deep Junior\n\
     0 arbiter declare operator Amir Ban\n\
     0 arbiter declare team Shay Bushinsky, Boris Alterman\n\
     0 arbiter start\n";

/// Game time of script line `i` (10 ms apart: 40,000 lines stay within White's first period).
fn at(i: usize) -> String {
    format!("{}.{:03}", i / 100, (i % 100) * 10)
}

/// `n` entries as a board records them: the real game's moves (one a press), then notes.
fn presses(n: usize) -> String {
    let mut s = String::from(OPENING);
    for i in 0..n {
        match PLIES.get(i) {
            Some(san) => s.push_str(&format!("{} move {san}\n", at(i))),
            None => s.push_str(&format!("{} arbiter note line {i}\n", at(i))),
        }
    }
    s
}

/// About `n` entries with a stop, a take-back and a resume every ten (each signs a checkpoint).
fn stops(n: usize) -> String {
    let mut s = String::from(OPENING);
    let mut i = 0;
    while i < n {
        for _ in 0..6 {
            s.push_str(&format!("{} arbiter note line {i}\n", at(i)));
            i += 1;
        }
        s.push_str(&format!("{} move Nf3\n", at(i)));
        s.push_str(&format!("{} arbiter stop wrong entry\n", at(i + 1)));
        s.push_str(&format!(
            "{} arbiter correct 7e takeback 1 Nf3 entered for e4\n",
            at(i + 2)
        ));
        s.push_str(&format!("{} arbiter resume\n", at(i + 3)));
        i += 4;
    }
    s
}

/// A match folder with an unencrypted arbiter key, as `arbiter keygen --no-passphrase` makes.
fn keyed_match(dir: &Path) -> PathBuf {
    let m = dir.join("match");
    let public = sign::keygen(&m.join("keys").join("arbiter"), None, "bench arbiter").unwrap();
    sign::ensure_allowed_signer(&m, "arbiter", &public).unwrap();
    m
}

/// `arbiter script`'s path over `text` into a new game of `m` (the session opened as the
/// command opens it, the lines run as it runs them; its printing and the closing checkpoint
/// left out). Seconds per entry recorded, and the entries recorded.
fn script_path(m: &Path, text: &str) -> (f64, u64) {
    let lines = parse_script(text).unwrap();
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join(RULES);
    let next = arbiter::record::layout::games(m)
        .last()
        .map_or(1, |g| g + 1);
    let mut o = open_game_with(m, Some(next), Some(&rules), &KeySource::default(), false).unwrap();
    let before = o.session.storage.len() as u64;
    let t = Instant::now();
    run_script(&mut o.session, &lines).unwrap_or_else(|(l, e)| panic!("line {l}: {e}"));
    let s = t.elapsed().as_secs_f64();
    let n = o.session.storage.len() as u64 - before;
    assert!(n > 0);
    (s / n as f64, n)
}

/// The newest game of `m`.
fn newest(m: &Path) -> u32 {
    arbiter::record::layout::games(m).last().copied().unwrap()
}

/// The lines (with their newlines) of the newest game's log in `m`.
fn log_lines(m: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(arbiter::record::layout::log_path(m, newest(m))).unwrap();
    bytes
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

/// 1: the command path against the floor.
fn command_path(n: usize, rounds: usize) {
    let text = presses(n);
    let (mut path, mut floor) = (vec![], vec![]);
    for r in 0..rounds {
        let dir = scratch(&format!("append-path-{r}"));
        let m = keyed_match(&dir);
        let (p, _) = script_path(&m, &text);
        let lines = log_lines(&m);
        // The same bytes, in the same folder, each written and fdatasynced.
        let f = raw(&m, &lines[0], &lines[1..]);
        path.push(p);
        floor.push(f);
        let _ = std::fs::remove_dir_all(&dir);
    }
    let (path, floor) = (median(&mut path), median(&mut floor));
    let us = |s: f64| s * 1e6;
    println!("   -- the whole entry path of `arbiter script` ({n} entries, moves then notes)");
    println!(
        "   anchor raw write + fdatasync, same bytes:   {:8.1} us/entry",
        us(floor)
    );
    println!(
        "   ours   the script path:                     {:8.1} us/entry",
        us(path)
    );
    let ratio = path / floor;
    println!(
        "   ratio path/raw = {ratio:.2}x (target <= 1.3x: {})",
        verdict(ratio <= 1.3)
    );
}

/// 2: `Journal::append` against SQLite and the floor.
fn journal_append(n: usize, rounds: usize) {
    let entries = move_entries(n + 1);
    let first = entries[0].clone();
    let rest = &entries[1..];
    // The same bytes the journal writes, chained, each with its newline.
    let mut prev = ZERO_HASH;
    let mut lines: Vec<Vec<u8>> = Vec::with_capacity(entries.len());
    for (seq, e) in entries.iter().enumerate() {
        let mut l = log::encode_line(seq as u64, &prev, e);
        prev = log::entry_hash(&l);
        l.push(b'\n');
        lines.push(l);
    }
    let avg = lines.iter().map(Vec::len).sum::<usize>() as f64 / lines.len() as f64;
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..rounds {
        let dir = scratch(&format!("append-{r}"));
        // Rotate the order so no contender always runs first.
        for k in 0..3 {
            match (k + r) % 3 {
                0 => a.push(ours(&dir, &first, rest)),
                1 => b.push(sqlite(&dir, &lines[0], &lines[1..])),
                _ => c.push(raw(&dir, &lines[0], &lines[1..])),
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    let (ours, sqlite, raw) = (median(&mut a), median(&mut b), median(&mut c));
    let us = |s: f64| s * 1e6;
    println!("   -- Journal::append alone ({n} move_made events, {avg:.0} bytes a line)");
    println!(
        "   anchor sqlite (WAL, synchronous=FULL): {:8.1} us/event",
        us(sqlite)
    );
    println!(
        "   anchor raw write + fdatasync:          {:8.1} us/event",
        us(raw)
    );
    println!(
        "   ours   Journal::append:                {:8.1} us/event",
        us(ours)
    );
    let r_sql = ours / sqlite;
    let r_raw = ours / raw;
    println!(
        "   ratio ours/sqlite = {r_sql:.2}x (target <= 1.0x: {})",
        verdict(r_sql <= 1.0)
    );
    println!(
        "   ratio ours/raw    = {r_raw:.2}x (target <= 1.3x: {})",
        verdict(r_raw <= 1.3)
    );
}

/// A folder on a memory file system for 3, else the usual scratch folder.
fn memory_scratch(name: &str) -> PathBuf {
    let base = std::env::var_os("ARBITER_BENCH_SHM_DIR")
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from("/dev/shm")).filter(|p| p.is_dir()));
    match base {
        Some(b) => {
            let dir = b.join(format!("arbiter-bench-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            dir
        }
        None => scratch(name),
    }
}

/// 3 and 4: script mode at each of `sizes`, then `arbiter verify` of a game of the longest
/// with its checkpoints against the same log with its last one only.
fn script_mode(sizes: &[usize], rounds: usize) {
    let dir = memory_scratch("append-script");
    println!(
        "   -- script mode with a stop, a take-back and a resume every 10 entries (in {})",
        dir.display()
    );
    let mut per: Vec<(usize, f64)> = Vec::new();
    for &n in sizes {
        let text = stops(n);
        let mut t = Vec::new();
        for r in 0..rounds.min(3) {
            let m = keyed_match(&dir.join(format!("{n}-{r}")));
            t.push(script_path(&m, &text).0);
            let _ = std::fs::remove_dir_all(dir.join(format!("{n}-{r}")));
        }
        let us = median(&mut t) * 1e6;
        println!("   {n:>7} entries: {us:8.1} us/entry");
        per.push((n, us));
    }
    if let (Some(first), Some(last)) = (per.first(), per.last()) {
        let r = last.1 / first.1;
        println!(
            "   time per entry at {} / at {} = {r:.2} (1.0 = linear; target <= 1.3: {})",
            last.0,
            first.0,
            verdict(r <= 1.3)
        );
    }
    // 4: `arbiter script` itself writes the longest game (authorized and closed with a
    // checkpoint, as a match has it); a copy keeps its last checkpoint only.
    let Some(&longest) = sizes.iter().max() else {
        return;
    };
    let bin = env!("CARGO_BIN_EXE_arbiter");
    let m = keyed_match(&dir.join("verify"));
    let file = dir.join("stops.arb");
    std::fs::write(&file, stops(longest)).unwrap();
    time_cmd(
        bin,
        &[
            "script",
            file.to_str().unwrap(),
            "--match",
            m.to_str().unwrap(),
            "--rules",
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(RULES)
                .to_str()
                .unwrap(),
        ],
    );
    let game = newest(&m);
    let one = dir.join("one");
    copy_dir(&m, &one);
    let numbered = |m: &Path| -> Vec<(u64, std::fs::DirEntry)> {
        std::fs::read_dir(arbiter::record::layout::checkpoints_dir(m, game))
            .unwrap()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let stem = name.split('.').next()?.parse::<u64>().ok()?;
                Some((stem, e))
            })
            .collect()
    };
    let last = numbered(&one).iter().map(|(n, _)| *n).max().unwrap();
    for (n, e) in numbered(&one) {
        if n != last {
            std::fs::remove_file(e.path()).unwrap();
        }
    }
    let count = |m: &Path| {
        numbered(m)
            .iter()
            .filter(|(_, e)| e.file_name().to_string_lossy().ends_with(".txt"))
            .count()
    };
    let (many_n, one_n) = (count(&m), count(&one));
    assert_eq!(one_n, 1);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..rounds.max(3) {
        let verify = |m: &Path| {
            time_cmd(bin, &["verify", "--match", m.to_str().unwrap()])
                .0
                .as_secs_f64()
        };
        a.push(verify(&m));
        b.push(verify(&one));
    }
    // The floor the one-folder layout sets: every file of the checkpoints folder read once, in
    // this process, no signature checked.
    let mut f = Vec::new();
    let mut files = 0usize;
    for _ in 0..rounds.max(3) {
        let t = Instant::now();
        files = 0;
        for e in std::fs::read_dir(arbiter::record::layout::checkpoints_dir(&m, game))
            .unwrap()
            .flatten()
        {
            std::hint::black_box(std::fs::read(e.path()).unwrap());
            files += 1;
        }
        f.push(t.elapsed().as_secs_f64());
    }
    let (many, single, floor) = (median(&mut a), median(&mut b), median(&mut f));
    let r = many / single;
    println!("   -- `arbiter verify` of a game of {last} entries");
    println!("   anchor the log with its last checkpoint only: {single:7.3} s");
    println!("   ours   the log with its {many_n} checkpoints:    {many:7.3} s");
    println!(
        "   floor  reading the {files} files of those checkpoints, nothing checked: {floor:7.3} s ({:.1}x the anchor)",
        floor / single
    );
    println!(
        "   ratio many/one = {r:.2}x (target <= 1.5x: {})",
        verdict(r <= 1.5)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Copy a folder tree (files and folders only), keeping the owner-only modes.
fn copy_dir(from: &Path, to: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(to).unwrap();
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o700)).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let t = e.file_type().unwrap();
        if t.is_dir() {
            copy_dir(&src, &dst);
        } else if t.is_file() {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `cargo bench` passes `--bench`; `cargo test` runs this target without it.
    let quick = args.iter().any(|a| a == "--quick") || !args.iter().any(|a| a == "--bench");
    let n = env_u64("ARBITER_BENCH_APPEND_EVENTS", if quick { 24 } else { 1000 }) as usize;
    let rounds = env_u64("ARBITER_BENCH_ROUNDS", if quick { 1 } else { 5 }) as usize;
    let sizes: Vec<usize> = match std::env::var("ARBITER_BENCH_SCRIPT_SIZES") {
        Ok(v) => v
            .split(',')
            .filter_map(|s| s.trim().replace('_', "").parse().ok())
            .collect(),
        Err(_) if quick => vec![60, 240],
        Err(_) => vec![5_000, 20_000, 40_000],
    };
    header(
        "append",
        &format!(
            "recording an entry, {n} entries x {rounds} rounds{}",
            if quick {
                " (quick: a check that it runs)"
            } else {
                ""
            }
        ),
    );
    command_path(n, rounds);
    journal_append(n, rounds);
    script_mode(&sizes, rounds);
}
