//! Verification throughput on a generated, signed game log of `ARBITER_BENCH_VERIFY_ENTRIES`
//! entries (default 1,000,000; a valid game, see `support::game_events_of`, with one signed
//! checkpoint over all of it) against SHA-256 of the same bytes, in the same run: in-process (the
//! `sha2` crate), `openssl dgst -sha256` and `sha256sum`. Every contender reads the file (warm in
//! the page cache) itself.
//!
//! What is measured first is the command the committee runs: the release binary's
//! `arbiter verify --match DIR --game 1` (one pass over the log feeding every check: canonical
//! lines, chain, Merkle root, checkpoint signature, seal, authorizations, index), its exit code
//! checked, against `openssl dgst -sha256` of the same file: the target is a ratio >= 1.0 (issue
//! 21). The inner `arbiter::record::verify::verify_game` ([`verify`]) and the bare chain check from the
//! log module ([`chain_check`]) are shown alongside. The match is made with `arbiter keygen` and
//! closed by `arbiter checkpoint` (which signs the match index), as a real one.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::{Path, PathBuf};
use std::time::Instant;

use arbiter::log::scan;
use sha2::{Digest, Sha256};
use support::*;

/// What the report calls the measured verifier.
const MEASURED: &str = "arbiter::record::verify::verify_game (what `arbiter verify` runs per game)";

/// Verify game 1 of `match_dir`; the number of entries checked.
fn verify(match_dir: &Path) -> usize {
    // The one line to switch: `return chain_check(match_dir);` measures the bare chain check.
    let v = arbiter::record::verify::verify_game(match_dir, 1);
    assert_eq!(v.status, arbiter::record::verify::Status::Ok, "{v:?}");
    v.lines as usize
}

/// The chain check the log module gives: read, `scan` (strict parse + entry hash of every line),
/// then `first_local_fault` (seq and prev links). No signatures.
fn chain_check(match_dir: &Path) -> usize {
    let bytes = std::fs::read(log_path(match_dir)).unwrap();
    let lines = scan::scan(&bytes);
    if let Some(f) = scan::first_local_fault(&lines) {
        panic!("generated log does not verify: {f}");
    }
    lines.len()
}

/// Where the time of [`verify`] goes, each step timed alone over the same bytes (already read):
/// the floor of any verifier that hashes every line and checks the links, and the steps of the
/// measured one.
fn breakdown(bytes: &[u8], openssl_s: f64) {
    let size = bytes.len() as f64;
    let step = |name: &str, f: &dyn Fn() -> usize| {
        let t = Instant::now();
        let n = f();
        let s = t.elapsed().as_secs_f64();
        println!(
            "   step {name:<44} {s:7.3} s {:7.0} MB/s  {:5.3}x openssl  ({n})",
            size / s / 1e6,
            openssl_s / s
        );
    };
    step("split into lines", &|| scan::split(bytes).len());
    step("split + one SHA-256 per line (leaf hash)", &|| {
        scan::split(bytes)
            .iter()
            .map(|(_, l, _)| arbiter::log::entry_hash(l)[0] as usize)
            .sum()
    });
    step("floor: leaf hash + prev link + seq, no parse", &|| {
        chain_floor(bytes)
    });
    step("split + JSON syntax check only (IgnoredAny)", &|| {
        scan::split(bytes)
            .iter()
            .filter(|(_, l, _)| serde_json::from_slice::<serde::de::IgnoredAny>(l).is_ok())
            .count()
    });
    step("split + log::parse_line per line", &|| {
        scan::split(bytes)
            .iter()
            .filter(|(o, l, _)| arbiter::log::parse_line(l, *o).is_ok())
            .count()
    });
    step("log::scan::scan (parse_line + leaf hash)", &|| {
        scan::scan(bytes).len()
    });
}

/// The least a chain check must do: hash every line and compare the next line's `prev` and
/// `seq` fields, found by position in the canonical prefix. Entries checked.
fn chain_floor(bytes: &[u8]) -> usize {
    let mut prev = arbiter::log::ZERO_HASH;
    let mut hex = [0u8; 64];
    let mut n = 0usize;
    for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let seq_prefix = format!("{{\"v\":1,\"seq\":{n},\"prev\":\"");
        assert!(line.starts_with(seq_prefix.as_bytes()), "line {n}: prefix");
        let at = seq_prefix.len();
        hex::encode_to_slice(prev, &mut hex).unwrap();
        assert_eq!(&line[at..at + 64], &hex[..], "line {n}: prev");
        prev = arbiter::log::entry_hash(line);
        n += 1;
    }
    n
}

/// CPU seconds (user + system) of this process's children that have been waited for, from
/// `/proc/self/stat` (clock ticks of 10 ms); `None` where there is no such file.
fn children_cpu() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (which may hold spaces, in parentheses).
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    // cutime and cstime are fields 16 and 17 of the whole line, 14 and 15 after the name.
    let ticks: f64 = f.get(13)?.parse::<f64>().ok()? + f.get(14)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// The machine's load average over the last minute.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split(' ').next().map(str::to_owned))
        .unwrap_or_else(|| "?".into())
}

/// [`time_cmd`] with the CPU time the command used (user + system, all its threads).
fn time_cmd_cpu(program: &str, args: &[&str]) -> (f64, f64, String) {
    let before = children_cpu();
    let (t, out) = time_cmd(program, args);
    let cpu = match (before, children_cpu()) {
        (Some(a), Some(b)) => b - a,
        _ => f64::NAN,
    };
    (t.as_secs_f64(), cpu, out)
}

fn log_path(match_dir: &Path) -> PathBuf {
    match_dir.join("game-1").join("log.jsonl")
}

fn bin() -> String {
    env!("CARGO_BIN_EXE_arbiter").to_string()
}

/// The generated match folder, kept between runs (`target/bench-tmp/verify-<n>`).
fn generated(n: usize) -> PathBuf {
    let base = std::env::var_os("ARBITER_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("target")
                .join("bench-tmp")
        });
    let dir = base.join(format!("verify-{n}"));
    let path = log_path(&dir);
    let ready = dir.join(".generated");
    if !ready.exists() {
        let t = Instant::now();
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let d = dir.display().to_string();
        time_cmd(&bin(), &["keygen", "--match", &d, "--no-passphrase"]);
        let key =
            arbiter::record::sign::load_key(&arbiter::record::layout::arbiter_key(&dir), None)
                .unwrap();
        let fp = arbiter::record::sign::fingerprint(key.public_key());
        let match_id = arbiter::record::layout::match_id(&dir);
        let events = game_events_of(&match_id, &fp, n, 10);
        let bytes = log_bytes(&events);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        time_cmd(&bin(), &["checkpoint", "--match", &d, "--game", "1"]);
        std::fs::write(&ready, b"").unwrap();
        println!(
            "   generated {n} entries ({} bytes), a signed checkpoint and index in {:.1} s",
            bytes.len(),
            t.elapsed().as_secs_f64()
        );
    }
    dir
}

fn main() {
    let n = env_u64("ARBITER_BENCH_VERIFY_ENTRIES", 1_000_000) as usize;
    let rounds = env_u64("ARBITER_BENCH_ROUNDS", 3) as usize;
    header("verify", &format!("{n}-entry game log x {rounds} rounds"));
    let dir = generated(n);
    let path = log_path(&dir);
    let p = path.to_str().unwrap();
    let size = std::fs::metadata(&path).unwrap().len() as f64;
    let _ = std::fs::read(&path).unwrap(); // warm the page cache
    let openssl = have("openssl");
    let sha256sum = have("sha256sum");
    let d = dir.display().to_string();
    let command = ["verify", "--match", d.as_str(), "--game", "1"];
    let (mut ours, mut inproc, mut ossl, mut sum, mut chain, mut cmd) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut cmd_cpu, mut ossl_cpu) = (vec![], vec![]);
    let load_before = load();
    for r in 0..rounds {
        for k in 0..6 {
            match (k + r) % 6 {
                5 => {
                    let (t, c, out) = time_cmd_cpu(&bin(), &command);
                    assert!(out.contains("game 1: OK"), "{out}");
                    cmd.push(t);
                    cmd_cpu.push(c);
                }
                4 => {
                    let t = Instant::now();
                    let m = chain_check(&dir);
                    chain.push(t.elapsed().as_secs_f64());
                    assert_eq!(m, n);
                }
                0 => {
                    let t = Instant::now();
                    let m = verify(&dir);
                    ours.push(t.elapsed().as_secs_f64());
                    assert_eq!(m, n);
                }
                1 => {
                    let t = Instant::now();
                    let bytes = std::fs::read(&path).unwrap();
                    let h = Sha256::digest(&bytes);
                    inproc.push(t.elapsed().as_secs_f64());
                    std::hint::black_box(h);
                }
                2 if openssl => {
                    let (t, c, _) = time_cmd_cpu("openssl", &["dgst", "-sha256", p]);
                    ossl.push(t);
                    ossl_cpu.push(c);
                }
                3 if sha256sum => sum.push(time_cmd("sha256sum", &[p]).0.as_secs_f64()),
                _ => {}
            }
        }
    }
    let mbs = |s: f64| size / s / 1e6;
    let show = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.3}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    println!(
        "   load average (1 min) {load_before} before, {} after",
        load()
    );
    println!(
        "   each round, `arbiter verify`: wall {} s, CPU {} s (user + system, all threads)",
        show(&cmd),
        show(&cmd_cpu)
    );
    if openssl {
        println!(
            "   each round, openssl dgst:       wall {} s, CPU {} s",
            show(&ossl),
            show(&ossl_cpu)
        );
    }
    let cmd = median(&mut cmd);
    let ours = median(&mut ours);
    println!("   log: {n} entries, {:.0} MB", size / 1e6);
    println!("   measured: {MEASURED}");
    let inproc = median(&mut inproc);
    println!(
        "   anchor sha2 in-process (read + digest): {:7.3} s  {:7.0} MB/s",
        inproc,
        mbs(inproc)
    );
    let ossl_s = median(&mut ossl);
    if openssl {
        println!(
            "   anchor openssl dgst -sha256:            {:7.3} s  {:7.0} MB/s",
            ossl_s,
            mbs(ossl_s)
        );
    }
    let sum_s = median(&mut sum);
    if sha256sum {
        println!(
            "   anchor sha256sum:                       {:7.3} s  {:7.0} MB/s",
            sum_s,
            mbs(sum_s)
        );
    }
    println!(
        "   ours   verify:                          {:7.3} s  {:7.0} MB/s  {:.0} entries/s",
        ours,
        mbs(ours),
        n as f64 / ours
    );
    let chain = median(&mut chain);
    println!(
        "   also   chain check only (log::scan):    {:7.3} s  {:7.0} MB/s  {:.3}x openssl",
        chain,
        mbs(chain),
        ossl_s / chain
    );
    println!("   ratio ours/sha2-in-process = {:.3}x", inproc / ours);
    if env_u64("ARBITER_BENCH_BREAKDOWN", 1) == 1 {
        breakdown(&std::fs::read(&path).unwrap(), ossl_s);
    }
    if sha256sum {
        println!("   ratio ours/sha256sum       = {:.3}x", sum_s / ours);
    }
    if openssl {
        let r = ossl_s / ours;
        println!("   ratio verify_game/openssl  = {r:.3}x (the inner function)");
        let r = ossl_s / cmd;
        println!(
            "   command `arbiter verify`:               {cmd:7.3} s  {:7.0} MB/s\n   ratio `arbiter verify`/openssl = {r:.3}x (the command; target >= 1.0x: {})",
            mbs(cmd),
            verdict(r >= 1.0)
        );
    }
}
