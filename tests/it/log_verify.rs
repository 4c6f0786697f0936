//! `verify` verdicts on disk, `prove` / `verify --proof`, and the CLI exit codes.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use crate::log_util::{TestMatch, entry};
use arbiter::log::proof::InclusionProof;
use arbiter::record::journal::Journal;
use arbiter::record::verify::{ProveError, Status, prove, verify_game, verify_proof};
use std::io::Write;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
}

fn code(cmd: &mut Command) -> (i32, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn log_verify_statuses_on_disk() {
    let m = TestMatch::new();
    let mut j = m.game(1, 30, &[10, 30]);
    let v = verify_game(&m.dir, 1);
    assert_eq!(
        (v.status, v.exit_code, v.signed_entries),
        (Status::Ok, 0, 30),
        "{v:?}"
    );
    assert_eq!(
        v.chain_head.as_deref(),
        Some(arbiter::log::hex32(&j.entries()[29].hash).as_str())
    );

    // Unsigned tail: never a pass.
    j.append(entry(30)).unwrap();
    j.append(entry(31)).unwrap();
    let v = verify_game(&m.dir, 1);
    assert_eq!(v.status, Status::UnsignedTail);
    assert_eq!(v.exit_code, 10);
    let t = v.unsigned_tail.clone().unwrap();
    assert_eq!((t.first_seq, t.entries), (30, 2));
    drop(j);

    // A torn tail repaired on reopen, then signed: verified, recovery entry reported.
    std::fs::OpenOptions::new()
        .append(true)
        .open(m.log_path(1))
        .unwrap()
        .write_all(b"{\"v\":1,\"se")
        .unwrap();
    let v = verify_game(&m.dir, 1);
    assert_eq!(v.status, Status::BadLine, "unrepaired torn tail: {v:?}");
    assert_eq!(v.bad_line.unwrap().seq, 32);
    let j = Journal::open(&m.log_path(1)).unwrap();
    assert_eq!(j.recovery().unwrap().seq, 32);
    m.sign(&j, 1);
    let v = verify_game(&m.dir, 1);
    assert_eq!((v.status, v.exit_code), (Status::Recovered, 11), "{v:?}");
    assert_eq!(v.recoveries.len(), 1);
    assert_eq!(v.recoveries[0].body["length"], 10);
    drop(j);

    // Truncated on disk.
    let bytes = std::fs::read(m.log_path(1)).unwrap();
    let cut = arbiter::log::scan::scan(&bytes)[20].offset as usize;
    std::fs::write(m.log_path(1), &bytes[..cut]).unwrap();
    let v = verify_game(&m.dir, 1);
    assert_eq!((v.status, v.exit_code), (Status::Truncated, 21));
    assert_eq!(v.truncated.unwrap().file_entries, 20);

    // Missing log.
    assert_eq!(verify_game(&m.dir, 9).status, Status::Unreadable);
}

#[test]
fn log_verify_proofs_for_every_entry() {
    let m = TestMatch::new();
    let mut j = m.game(1, 37, &[30, 37]);
    j.append(entry(37)).unwrap();
    drop(j);
    let signers = std::fs::read_to_string(m.dir.join("allowed_signers")).unwrap();
    for seq in 0..37 {
        let p = prove(&m.dir, 1, seq).unwrap();
        assert_eq!((p.leaf_index, p.tree_size), (seq, 37));
        let json = serde_json::to_vec(&p).unwrap();
        let v = verify_proof(&json, &signers);
        assert!(v.ok, "seq {seq}: {v:?}");
    }
    assert!(matches!(
        prove(&m.dir, 1, 37),
        Err(ProveError::NotCovered { .. })
    ));
    let p = prove(&m.dir, 1, 5).unwrap();
    let check =
        |p: &InclusionProof, signers: &str| verify_proof(&serde_json::to_vec(p).unwrap(), signers);
    let mut bad = p.clone();
    bad.entry = bad.entry.replace("\"mono_ms\":5017", "\"mono_ms\":5018");
    assert!(!check(&bad, &signers).ok);
    let mut bad = p.clone();
    bad.audit_path[0] = bad.audit_path[1].clone();
    assert!(!check(&bad, &signers).ok);
    let mut bad = p.clone();
    bad.leaf_index = 6;
    assert!(!check(&bad, &signers).ok);
    let mut bad = p.clone();
    bad.principal = "mallory".into();
    assert!(!check(&bad, &signers).ok);
    let mut bad = p.clone();
    bad.checkpoint = bad.checkpoint.replace("\n37\n", "\n36\n");
    bad.tree_size = 36;
    assert!(!check(&bad, &signers).ok);
    assert!(!check(&p, "").ok, "no allowed signer");
    let dup = String::from_utf8(serde_json::to_vec(&p).unwrap())
        .unwrap()
        .replacen("{", "{\"format\":\"x\",", 1);
    assert!(
        !verify_proof(dup.as_bytes(), &signers).ok,
        "duplicate keys refused"
    );
}

#[test]
fn log_verify_cli_exit_codes() {
    let m = TestMatch::new();
    let mut j = m.game(1, 12, &[12]);
    let j2 = m.game(2, 5, &[5]);
    drop(j2);
    let dir = m.dir.to_str().unwrap();
    let (c, out) = code(bin().args(["verify", "--match", dir, "--json"]));
    assert_eq!(c, 0, "{out}");
    let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(parsed["games"].as_array().unwrap().len(), 2);
    assert_eq!(parsed["games"][0]["status"], "OK");

    j.append(entry(12)).unwrap();
    let (c, out) = code(bin().args(["verify", "--match", dir]));
    assert_eq!(c, 10, "{out}");
    assert!(out.contains("UNSIGNED TAIL"), "{out}");
    let (c, _) = code(bin().args(["verify", "--match", dir, "--game", "2"]));
    assert_eq!(c, 0);

    let (c, proof) = code(bin().args(["prove", "--match", dir, "--game", "1", "--seq", "4"]));
    assert_eq!(c, 0);
    let pf = m.tmp.path().join("proof.json");
    std::fs::write(&pf, &proof).unwrap();
    let (c, out) = code(bin().args(["verify", "--match", dir, "--proof", pf.to_str().unwrap()]));
    assert_eq!(c, 0, "{out}");
    std::fs::write(&pf, proof.replace("\"leaf_index\": 4", "\"leaf_index\": 3")).unwrap();
    let (c, _) = code(bin().args(["verify", "--match", dir, "--proof", pf.to_str().unwrap()]));
    assert_eq!(c, 23);
    let (c, _) = code(bin().args(["prove", "--match", dir, "--game", "1", "--seq", "12"]));
    assert_eq!(c, 24);

    // Change one byte of line 3: exit 20 and the line is named.
    drop(j);
    let mut bytes = std::fs::read(m.log_path(1)).unwrap();
    let off = arbiter::log::scan::scan(&bytes)[3].offset as usize;
    bytes[off + 60] ^= 1;
    std::fs::write(m.log_path(1), &bytes).unwrap();
    let (c, out) = code(bin().args(["verify", "--match", dir, "--game", "1"]));
    assert_eq!(c, 20, "{out}");
    assert!(
        out.contains(&format!("line seq 3 (byte offset {off}")),
        "{out}"
    );
    let (c, _) = code(bin().args([
        "verify",
        "--match",
        m.tmp.path().join("nothing").to_str().unwrap(),
    ]));
    assert_eq!(c, 3);
}

#[test]
fn log_verify_cli_keygen() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    let d = dir.to_str().unwrap();
    // A one-character passphrase is refused (the minimum is 12 characters).
    let short = bin()
        .args(["keygen", "--match", d])
        .env("ARB_PP", "p")
        .args(["--passphrase-env", "ARB_PP"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&short.stderr);
    assert_eq!(short.status.code(), Some(1), "{err}");
    assert!(err.contains("at least 12"), "{err}");
    assert!(!dir.join("keys/arbiter").exists());
    let (c, out) = code(
        bin()
            .args(["keygen", "--match", d])
            .env("ARB_PP", "pw-of-twelve")
            .args(["--passphrase-env", "ARB_PP"]),
    );
    assert_eq!(c, 0, "{out}");
    assert!(out.contains("encrypted"));
    assert!(
        arbiter::record::sign::load_key(&dir.join("keys/arbiter"), Some("pw-of-twelve")).is_ok()
    );
    // The key is encrypted at the kit's KDF cost, not OpenSSH's 16 rounds.
    let pem = std::fs::read_to_string(dir.join("keys/arbiter")).unwrap();
    let kdf = ssh_key::PrivateKey::from_openssh(&pem)
        .unwrap()
        .kdf()
        .clone();
    assert!(
        matches!(kdf, ssh_key::Kdf::Bcrypt { rounds, .. } if rounds == arbiter::record::sign::KDF_ROUNDS),
        "{kdf:?}"
    );
    let (c, _) = code(bin().args(["keygen", "--match", d]));
    assert_eq!(c, 1, "refuses to overwrite");
    let (c, out) = code(
        bin()
            .args([
                "keygen",
                "--match",
                d,
                "--principal",
                "deputy",
                "--existing",
            ])
            .arg(dir.join("keys/arbiter.pub")),
    );
    assert_eq!(c, 0, "{out}");
    let listed = std::fs::read_to_string(dir.join("allowed_signers")).unwrap();
    assert_eq!(listed.lines().count(), 2);
    assert!(listed.lines().nth(1).unwrap().starts_with("deputy "));
}

/// Build a valid signed log of `n` realistic `move_made` entries (about 420 bytes a line) in
/// `DIR/game-1/log.jsonl`, checkpoint signed at `n`.
pub(crate) fn bench_match(dir: &std::path::Path, n: u64) {
    use arbiter::log::{Entry, ZERO_HASH, encode_line, entry_hash};
    use arbiter::record::sign;
    let key_path = dir.join("keys").join("arbiter");
    let public = sign::keygen(&key_path, None, "bench arbiter").unwrap();
    sign::ensure_allowed_signer(dir, "arbiter", &public).unwrap();
    let key = sign::load_key(&key_path, None).unwrap();
    let fp = sign::fingerprint(key.public_key());
    let path = dir.join("game-1").join("log.jsonl");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut entries: Vec<Entry> = Vec::with_capacity(n as usize);
    let mut prev = ZERO_HASH;
    let sans = [
        ("e4", "e2e4"),
        ("Nf3", "g1f3"),
        ("Bxc6+", "b5c6"),
        ("O-O", "e1g1"),
    ];
    for i in 0..n {
        let e = if i == 0 {
            crate::log_util::first_entry(&fp, 1)
        } else {
            let (san, uci) = sans[(i % 4) as usize];
            let mut e = entry(i);
            e.actor = "operator".into();
            e.clause = "6a".into();
            e.kind = "move_made".into();
            e.body = serde_json::json!({
                "declines_draw": i % 7 == 0,
                "fen": format!("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - {} {}", i % 50, i / 2 + 1),
                "increment_ms": 0,
                "remaining_ms": 7_200_000 - (i % 7_000_000),
                "san": san,
                "side": if i % 2 == 0 { "white" } else { "black" },
                "spent_ms": i % 60_000,
                "uci": uci,
            });
            e
        };
        let line = encode_line(i, &prev, &e);
        let prev_hex = arbiter::log::hex32(&prev);
        prev = entry_hash(&line);
        out.write_all(&line).unwrap();
        out.write_all(b"\n").unwrap();
        entries.push(Entry {
            v: 1,
            seq: i,
            prev: prev_hex,
            utc: String::new(),
            mono_ms: 0,
            actor: String::new(),
            clause: String::new(),
            kind: String::new(),
            body: if i == 0 {
                serde_json::json!({ "match_id": crate::log_util::MATCH_ID })
            } else {
                serde_json::Value::Null
            },
            hash: prev,
            offset: 0,
            len: 0,
        });
    }
    out.flush().unwrap();
    sign::sign_checkpoint(dir, 1, &entries, &key, crate::log_util::t0()).unwrap();
}

/// Timing of `verify_game` on a large valid log against `openssl dgst -sha256` on the same file.
/// Run: `cargo test --release --test it log_verify_bench -- --ignored --nocapture`
/// (`ARBITER_BENCH_ENTRIES`, default 1 000 000). Prints times and the ratio; asserts only the
/// verdict.
#[test]
#[ignore = "benchmark; run explicitly with --release --ignored --nocapture"]
fn log_verify_bench_large_log() {
    use std::time::Instant;
    let n: u64 = std::env::var("ARBITER_BENCH_ENTRIES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("match");
    bench_match(&dir, n);
    let path = dir.join("game-1").join("log.jsonl");
    let size = std::fs::metadata(&path).unwrap().len();
    let mut best_verify = f64::MAX;
    let mut best_openssl = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let v = verify_game(&dir, 1);
        best_verify = best_verify.min(t.elapsed().as_secs_f64());
        assert_eq!(
            (v.status, v.lines, v.signed_entries),
            (Status::Ok, n, n),
            "{v:?}"
        );
        let t = Instant::now();
        let out = Command::new("openssl")
            .args(["dgst", "-sha256"])
            .arg(&path)
            .output()
            .unwrap();
        best_openssl = best_openssl.min(t.elapsed().as_secs_f64());
        assert!(out.status.success());
    }
    let t = Instant::now();
    let bytes = std::fs::read(&path).unwrap();
    let read = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let clean = arbiter::log::fast::scan_clean(&bytes).unwrap();
    let scan = t.elapsed().as_secs_f64();
    drop((bytes, clean));
    let t = Instant::now();
    let clean = arbiter::record::journal::scan_clean_file(&path).unwrap();
    let stream = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let tree = arbiter::log::merkle::Subtrees::new(clean.leaves);
    assert!(tree.root(n as usize).is_some());
    let merkle = t.elapsed().as_secs_f64();
    println!(
        "bench phases: fs::read {read:.3} s, fast scan in memory {scan:.3} s, streamed from the file {stream:.3} s, Merkle levels {merkle:.3} s"
    );
    println!(
        "bench: {n} entries, {:.1} MB: verify_game {best_verify:.3} s ({:.0} MB/s), openssl dgst -sha256 {best_openssl:.3} s; ratio {:.3}x openssl",
        size as f64 / 1e6,
        size as f64 / 1e6 / best_verify,
        best_openssl / best_verify
    );
}

/// `verify_game` as the exact path alone would judge the files on disk.
pub(crate) fn exact_game(
    dir: &std::path::Path,
    game: u32,
) -> arbiter::record::verify::GameVerification {
    use arbiter::record::layout::log_path;
    use arbiter::record::verify::{prepare_checkpoints, read_checkpoint_files, verify_lines};
    let path = log_path(dir, game);
    let bytes = std::fs::read(&path).unwrap();
    let (signers, problems) = arbiter::record::sign::parse_allowed_signers(
        &std::fs::read_to_string(dir.join("allowed_signers")).unwrap(),
    );
    let files =
        read_checkpoint_files(&dir.join(format!("game-{game}")).join("checkpoints")).unwrap();
    let cps = prepare_checkpoints(files, &signers);
    let lines = arbiter::log::scan::scan(&bytes);
    let mut v = verify_lines(game, &path.display().to_string(), &lines, &cps);
    v.problems.extend(problems);
    v
}

/// The streamed, two-thread fast path of `verify_game` (a log over 1 MB) agrees with the exact
/// path on the clean file and on damage in either half and right at the cut between them; so
/// does the small-file path with a recovery entry.
#[test]
fn log_verify_streamed_fast_path_agrees_with_exact_path() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("match");
    bench_match(&dir, 4_000);
    let path = dir.join("game-1").join("log.jsonl");
    let good = std::fs::read(&path).unwrap();
    assert!(good.len() > 1 << 20);
    let v = verify_game(&dir, 1);
    assert_eq!(v.status, Status::Ok);
    assert_eq!(v, exact_game(&dir, 1));
    // Line starts: the threads split at the first line start after each k/threads of the file.
    let starts: Vec<usize> = std::iter::once(0)
        .chain(
            good.iter()
                .enumerate()
                .filter(|x| *x.1 == b'\n')
                .map(|x| x.0 + 1),
        )
        .filter(|&s| s < good.len())
        .collect();
    let half = starts.iter().position(|&s| s >= good.len() / 2).unwrap();
    let line = |k: usize| starts[k]..starts.get(k + 1).copied().unwrap_or(good.len()) - 1;
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for k in [1, half - 1, half, half + 1, starts.len() - 1] {
        let mut b = good.clone();
        let at = line(k).start + 30; // inside "prev"
        b[at] ^= 0x01;
        cases.push((format!("prev of line {k}"), b));
        let mut b = good.clone();
        b.drain(line(k).start..line(k).end + 1);
        cases.push((format!("delete line {k}"), b));
        let mut b = good.clone();
        let mono = line(k).start
            + good[line(k)]
                .windows(10)
                .position(|w| w == b"\"mono_ms\":")
                .unwrap()
            + 10;
        b[mono] = if b[mono] == b'9' { b'8' } else { b[mono] + 1 };
        cases.push((format!("mono_ms of line {k}"), b));
    }
    let mut torn = good.clone();
    torn.extend_from_slice(b"{\"v\":1,\"se");
    cases.push(("torn tail".into(), torn));
    cases.push(("last newline cut".into(), good[..good.len() - 1].to_vec()));
    for (what, bytes) in cases {
        std::fs::write(&path, &bytes).unwrap();
        let v = verify_game(&dir, 1);
        assert_ne!(v.status, Status::Ok, "{what}");
        assert_eq!(v, exact_game(&dir, 1), "{what}");
    }

    // Small log with a recovery entry, signed: RECOVERED on both paths.
    let m = TestMatch::new();
    let j = m.game(1, 12, &[]);
    drop(j);
    std::fs::OpenOptions::new()
        .append(true)
        .open(m.log_path(1))
        .unwrap()
        .write_all(b"{\"v\":1,\"se")
        .unwrap();
    let j = Journal::open(&m.log_path(1)).unwrap();
    m.sign(&j, 1);
    let v = verify_game(&m.dir, 1);
    assert_eq!(v.status, Status::Recovered);
    assert_eq!(v, exact_game(&m.dir, 1));
}
