//! `arbiter verify` reads each log once. The facts the match-level checks need
//! (seal, authorizations, archive, index, codes) are gathered in the verifier's one streamed pass;
//! they must equal what the journal's line reader gives, and a log with anything to report must
//! still be read the exact way.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

use arbiter::record::witness::{FactsRead, LogFacts, log_facts_checked, verify_game_and_facts};

/// Every field of two [`LogFacts`], side by side.
fn same(a: &LogFacts, b: &LogFacts) {
    assert_eq!(a.first, b.first);
    assert_eq!(a.entries, b.entries);
    assert_eq!(a.end, b.end);
    assert_eq!(a.archived, b.archived);
    assert_eq!(a.roots, b.roots);
    assert_eq!(a.chains, b.chains);
    assert_eq!(a.sealed, b.sealed);
    assert_eq!(a.unauthorized, b.unauthorized);
    assert_eq!(a.bad_authorizations, b.bad_authorizations);
    assert_eq!(a.changes, b.changes);
}

/// The key and origin a sealed log's authorizations are checked with.
fn key_of(m: &Path) -> ssh_key::PublicKey {
    ssh_key::PublicKey::from_openssh(
        std::fs::read_to_string(m.join("keys/arbiter.pub"))
            .unwrap()
            .trim(),
    )
    .unwrap()
}

fn origin_of(m: &Path, game: u32) -> String {
    let first =
        arbiter::record::journal::first_entry(&arbiter::record::layout::log_path(m, game)).unwrap();
    let id = first.body["match_id"].as_str().unwrap().to_owned();
    arbiter::log::checkpoint::origin(&id, game)
}

/// Both ways of reading game `game`, at `sizes`: the facts must agree field for field.
fn both(
    m: &Path,
    game: u32,
    sizes: &[u64],
) -> (arbiter::record::verify::GameVerification, FactsRead) {
    let key = key_of(m);
    let origin = origin_of(m, game);
    let (v, streamed) = verify_game_and_facts(m, game, None, sizes, Some((&key, &origin)));
    let (facts, how) = streamed.unwrap();
    let again = log_facts_checked(
        &arbiter::record::layout::log_path(m, game),
        sizes,
        Some((&key, &origin)),
    )
    .unwrap();
    same(&facts, &again);
    assert_eq!(v, arbiter::record::verify::verify_game(m, game));
    (v, how)
}

#[test]
fn verify_one_pass_gives_the_line_readers_facts_on_a_sealed_game() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let script = std::fs::read_to_string("examples/scripts/quick.arb").unwrap()
        + "0:17:00  arbiter note checked\n0:17:30  human resign\n";
    let p = tmp.path().join("s.arb");
    std::fs::write(&p, script).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "script",
            p.to_str().unwrap(),
            "--match",
            m.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let log = arbiter::record::layout::log_path(&m, 1);
    let text = std::fs::read_to_string(&log).unwrap();
    let n = text.lines().count() as u64;
    assert!(
        text.contains(r#""binding":"signed-acts/1""#),
        "a log that binds its acts"
    );
    assert!(
        text.contains(r#""kind":"authorized""#),
        "with authorizations"
    );
    let (v, how) = both(&m, 1, &[1, 2, n / 2, n, n + 5]);
    assert_eq!(how, FactsRead::Streamed);
    assert_eq!(v.lines, n);
    // A flipped byte in the middle: the verdict and the facts come from the exact readers.
    let key = key_of(&m);
    let origin = origin_of(&m, 1);
    let mut bytes = text.into_bytes();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x20;
    std::fs::write(&log, &bytes).unwrap();
    let (v, facts) = verify_game_and_facts(&m, 1, None, &[n], Some((&key, &origin)));
    assert_eq!(v.status, arbiter::record::verify::Status::BadLine, "{v:?}");
    assert!(facts.is_err(), "the line reader stops at the bad line");
}

#[test]
fn verify_one_pass_gives_the_line_readers_facts_across_block_cuts() {
    // Over 1 MiB: read in 256 KiB blocks checked on every core; sizes on both sides of each cut.
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("match");
    crate::log_verify::bench_match(&m, 4_000);
    let bytes = std::fs::read(arbiter::record::layout::log_path(&m, 1)).unwrap();
    assert!(bytes.len() > 1 << 20);
    let mut sizes = vec![1u64, 3_999, 4_000, 4_001];
    let mut seq = 0u64;
    let block = 256 * 1024;
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\n' {
            seq += 1;
            if (i + 1) % block < 500 {
                sizes.extend([seq - 1, seq, seq + 1]);
            }
        }
    }
    let (v, how) = both(&m, 1, &sizes);
    assert_eq!(how, FactsRead::Streamed);
    assert_eq!(v.status, arbiter::record::verify::Status::Ok, "{v:?}");
}
