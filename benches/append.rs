//! Durable append per event: `arbiter::record::journal::Journal::append` (encode, check, write,
//! fdatasync) against what a user would otherwise pick, in the same run:
//!
//! - SQLite (rusqlite, bundled), WAL, `synchronous=FULL`, one row (one autocommit transaction)
//!   per event holding the same line bytes;
//! - the floor: a raw `write` of the same line bytes + `fdatasync`, per event.
//!
//! Input: `move_made` entries of the real game's opening (about 390 bytes a line).
//! `ARBITER_BENCH_APPEND_EVENTS` (default 1000) events per round, `ARBITER_BENCH_ROUNDS`
//! (default 5) rounds, the three contenders interleaved in every round; medians are reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use arbiter::log::{self, NewEntry, ZERO_HASH};
use arbiter::record::journal::Journal;
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

/// The floor: write the same bytes and fdatasync, nothing else.
fn raw(dir: &Path, first: &[u8], lines: &[Vec<u8>]) -> f64 {
    let mut f = OpenOptions::new()
        .create_new(true)
        .append(true)
        .open(dir.join("log.raw"))
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

fn main() {
    let n = env_u64("ARBITER_BENCH_APPEND_EVENTS", 1000) as usize;
    let rounds = env_u64("ARBITER_BENCH_ROUNDS", 5) as usize;
    header(
        "append",
        &format!("durable append, {n} move_made events x {rounds} rounds"),
    );
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
    println!("   line size: {avg:.0} bytes on average");
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
        "   ratio ours/raw    = {r_raw:.2}x (target <= 1.5x: {})",
        verdict(r_raw <= 1.5)
    );
}
