//! `verify` verdicts on disk, `prove` / `verify --proof`, and the CLI exit codes.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use crate::log_util::{TestMatch, entry};
use arbiter::journal::Journal;
use arbiter::log::proof::InclusionProof;
use arbiter::verify::{ProveError, Status, prove, verify_game, verify_proof};
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
    let (c, out) = code(
        bin()
            .args(["keygen", "--match", d])
            .env("ARB_PP", "pw")
            .args(["--passphrase-env", "ARB_PP"]),
    );
    assert_eq!(c, 0, "{out}");
    assert!(out.contains("encrypted"));
    assert!(arbiter::sign::load_key(&dir.join("keys/arbiter"), Some("pw")).is_ok());
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
