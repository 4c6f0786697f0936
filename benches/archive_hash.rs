//! Archive hashing: `arbiter::after::archive::hash_file` (streaming SHA-256, 1 MiB reads, no progress
//! bar) of a large file against `openssl dgst -sha256` and `sha256sum` of the same file, in the
//! same run.
//!
//! `ARBITER_BENCH_HASH_MIB` sets the size (default 2048 = 2 GiB; 256 for a quick run). The file
//! is filled with pseudo-random bytes once and read warm from the page cache by every contender
//! (the machine has 24 GiB), so the figure compares hashing and reading, not the disk.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use support::*;

/// The input file, kept between runs (`target/bench-tmp/hash-<MiB>.bin`).
fn input(mib: u64) -> PathBuf {
    let base = std::env::var_os("ARBITER_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("target")
                .join("bench-tmp")
        });
    std::fs::create_dir_all(&base).unwrap();
    let path = base.join(format!("hash-{mib}.bin"));
    if std::fs::metadata(&path).map(|m| m.len()).ok() != Some(mib << 20) {
        let tmp = path.with_extension("tmp");
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp).unwrap());
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut block = vec![0u8; 1 << 20];
        for _ in 0..mib {
            for chunk in block.chunks_exact_mut(8) {
                x ^= x >> 12;
                x ^= x << 25;
                x ^= x >> 27;
                chunk.copy_from_slice(&x.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
            }
            f.write_all(&block).unwrap();
        }
        f.flush().unwrap();
        drop(f);
        std::fs::rename(&tmp, &path).unwrap();
    }
    path
}

fn ours(path: &Path) -> (f64, String) {
    let t = Instant::now();
    let (hex, _) = arbiter::after::archive::hash_file(path, false).unwrap();
    (t.elapsed().as_secs_f64(), hex)
}

fn main() {
    let mib = env_u64("ARBITER_BENCH_HASH_MIB", 2048);
    let rounds = env_u64("ARBITER_BENCH_ROUNDS", 3) as usize;
    header(
        "archive_hash",
        &format!("SHA-256 of a {mib} MiB file x {rounds} rounds"),
    );
    let path = input(mib);
    let p = path.to_str().unwrap();
    let size = (mib << 20) as f64;
    let expected = ours(&path).1; // also warms the page cache
    let (mut a, mut o, mut s) = (vec![], vec![], vec![]);
    let openssl = have("openssl");
    let sha256sum = have("sha256sum");
    for r in 0..rounds {
        for k in 0..3 {
            match (k + r) % 3 {
                0 => {
                    let (t, hex) = ours(&path);
                    assert_eq!(hex, expected);
                    a.push(t);
                }
                1 if openssl => {
                    let (d, out) = time_cmd("openssl", &["dgst", "-sha256", "-r", p]);
                    assert!(out.starts_with(&expected), "openssl disagrees: {out}");
                    o.push(d.as_secs_f64());
                }
                2 if sha256sum => {
                    let (d, out) = time_cmd("sha256sum", &[p]);
                    assert!(out.starts_with(&expected), "sha256sum disagrees: {out}");
                    s.push(d.as_secs_f64());
                }
                _ => {}
            }
        }
    }
    let gbs = |secs: f64| size / secs / 1e9;
    let ours = median(&mut a);
    if openssl {
        let t = median(&mut o);
        println!(
            "   anchor openssl dgst -sha256: {t:7.3} s  {:5.2} GB/s",
            gbs(t)
        );
    }
    if sha256sum {
        let t = median(&mut s);
        println!(
            "   anchor sha256sum:            {t:7.3} s  {:5.2} GB/s",
            gbs(t)
        );
    }
    println!(
        "   ours   archive::hash_file:   {ours:7.3} s  {:5.2} GB/s",
        gbs(ours)
    );
    if sha256sum {
        println!("   ratio ours/sha256sum = {:.2}x", median(&mut s) / ours);
    }
    if openssl {
        let r = median(&mut o) / ours;
        println!(
            "   ratio ours/openssl   = {r:.2}x (throughput; target >= 0.9x: {})",
            verdict(r >= 0.9)
        );
    }
}
