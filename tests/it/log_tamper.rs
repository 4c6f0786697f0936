//! Tamper matrix on a signed log of 320 entries: every single-byte change, every deleted,
//! duplicated or swapped line, truncation at every line boundary, CRLF, BOM, wrong key, wrong
//! namespace. Fast because checkpoint signatures are checked once (they do not depend on the log)
//! and each mutation re-scans only the lines it touches; the verdict itself is always the real
//! `verify_lines` over the whole log.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use crate::log_util::{MATCH_ID, TestMatch, t0};
use arbiter::log::checkpoint::NAMESPACE;
use arbiter::log::scan::{ScannedLine, scan, scan_line};
use arbiter::record::sign::{self, parse_allowed_signers};
use arbiter::record::verify::{
    CheckpointFile, GameVerification, PreparedCheckpoint, Status, prepare_checkpoints,
    read_checkpoint_files, verify_bytes, verify_lines, verify_log,
};
use ssh_key::{HashAlg, LineEnding};
use std::time::Instant;

const N: u64 = 320;
const CHECKPOINTS: [u64; 4] = [50, 128, 200, N];

struct Fixture {
    _m: TestMatch,
    bytes: Vec<u8>,
    files: Vec<CheckpointFile>,
    signers: String,
    cps: Vec<PreparedCheckpoint>,
}

fn fixture() -> Fixture {
    let m = TestMatch::new();
    let j = m.game(1, N, &CHECKPOINTS);
    drop(j);
    let bytes = std::fs::read(m.log_path(1)).unwrap();
    let files = read_checkpoint_files(&m.dir.join("game-1").join("checkpoints")).unwrap();
    assert_eq!(files.len(), CHECKPOINTS.len());
    let signers = std::fs::read_to_string(m.dir.join("allowed_signers")).unwrap();
    let cps = prepare_checkpoints(files.clone(), &parse_allowed_signers(&signers).0);
    Fixture {
        _m: m,
        bytes,
        files,
        signers,
        cps,
    }
}

fn run(f: &Fixture, lines: &[ScannedLine]) -> GameVerification {
    verify_lines(1, "mem", lines, &f.cps)
}

fn expect_bad_line(v: &GameVerification, seq: u64, offset: u64, what: &str) {
    let b = v
        .bad_line
        .as_ref()
        .unwrap_or_else(|| panic!("{what}: not detected: {v:?}"));
    assert_eq!(
        (b.seq, b.offset),
        (seq, offset),
        "{what}: wrong first bad line: {b:?}"
    );
    assert!(
        matches!(v.status, Status::BadLine | Status::Truncated),
        "{what}: {:?}",
        v.status
    );
}

/// Recompute offsets after lines were removed or moved (as a real file would have them).
fn reflow(mut lines: Vec<ScannedLine>) -> Vec<ScannedLine> {
    let mut off = 0;
    for l in &mut lines {
        l.offset = off;
        off += l.len + 1;
    }
    lines
}

#[test]

fn log_tamper_matrix_single_bytes() {
    let started = Instant::now();
    let f = fixture();
    let mut lines = scan(&f.bytes);
    assert_eq!(lines.len() as u64, N);
    let base = run(&f, &lines);
    assert_eq!(base.status, Status::Ok, "{base:?}");
    let last = lines.len() - 1;
    let mut mutations = 0u64;
    for n in 0..lines.len() {
        let (start, len) = (lines[n].offset as usize, lines[n].len as usize);
        let original = lines[n].clone();
        for p in 0..len {
            let mut line = f.bytes[start..start + len].to_vec();
            line[p] ^= 0x01;
            lines[n] = scan_line(&line, original.offset, true);
            let v = run(&f, &lines);
            expect_bad_line(
                &v,
                n as u64,
                original.offset,
                &format!("byte {p} of line {n}"),
            );
            mutations += 1;
        }
        lines[n] = original.clone();
        // The newline itself (0x0a -> 0x0b): line n swallows line n+1.
        let mut merged = f.bytes[start..start + len].to_vec();
        merged.push(0x0b);
        let v = if n == last {
            let mut l = lines.clone();
            l[n] = scan_line(&merged, original.offset, false);
            run(&f, &l)
        } else {
            let next = &lines[n + 1];
            merged.extend_from_slice(
                &f.bytes[next.offset as usize..(next.offset + next.len) as usize],
            );
            let mut l = lines.clone();
            l.splice(n..n + 2, [scan_line(&merged, original.offset, true)]);
            run(&f, &l)
        };
        expect_bad_line(
            &v,
            n as u64,
            original.offset,
            &format!("newline of line {n}"),
        );
        if n == last {
            assert_eq!(v.status, Status::Truncated);
        }
        mutations += 1;
    }
    assert_eq!(mutations, f.bytes.len() as u64);
    eprintln!(
        "{mutations} single-byte mutations in {:?}",
        started.elapsed()
    );
}

#[test]

fn log_tamper_matrix_lines_and_truncation() {
    let f = fixture();
    let lines = scan(&f.bytes);
    let n = lines.len();
    for k in 0..n {
        // Deleted.
        let mut l = lines.clone();
        l.remove(k);
        let v = run(&f, &reflow(l));
        if k == n - 1 {
            assert_eq!(v.status, Status::Truncated, "delete last");
            assert_eq!(v.truncated.as_ref().unwrap().file_entries, k as u64);
        } else {
            expect_bad_line(&v, k as u64, lines[k].offset, &format!("delete line {k}"));
        }
        // Duplicated.
        let mut l = lines.clone();
        l.insert(k + 1, lines[k].clone());
        let v = run(&f, &reflow(l));
        expect_bad_line(
            &v,
            k as u64 + 1,
            lines[k + 1 - 1].offset + lines[k].len + 1,
            &format!("duplicate line {k}"),
        );
        // Swapped with the next.
        if k + 1 < n {
            let mut l = lines.clone();
            l.swap(k, k + 1);
            let v = run(&f, &reflow(l));
            expect_bad_line(
                &v,
                k as u64,
                lines[k].offset,
                &format!("swap lines {k} and {}", k + 1),
            );
        }
    }
    // Truncation at every line boundary.
    for k in 0..n {
        let v = run(&f, &lines[..k]);
        assert_eq!(v.status, Status::Truncated, "truncated to {k} lines: {v:?}");
        let t = v.truncated.as_ref().unwrap();
        assert_eq!((t.checkpoint, t.file_entries), (N, k as u64));
        assert_eq!(v.exit_code, 21);
    }
    // The same through the byte-level entry point for a few cuts, including mid-line.
    for cut in [
        0,
        lines[7].offset as usize,
        lines[7].offset as usize + 9,
        f.bytes.len() - 1,
    ] {
        let v = verify_bytes(1, &f.bytes[..cut], f.files.clone(), &f.signers);
        assert_eq!(v.status, Status::Truncated, "cut at byte {cut}");
    }
}

#[test]

fn log_tamper_crlf_bom_and_whole_file() {
    let f = fixture();
    let lines = scan(&f.bytes);
    let crlf: Vec<u8> = f
        .bytes
        .iter()
        .flat_map(|&b| {
            if b == b'\n' {
                vec![b'\r', b'\n']
            } else {
                vec![b]
            }
        })
        .collect();
    let v = verify_bytes(1, &crlf, f.files.clone(), &f.signers);
    expect_bad_line(&v, 0, 0, "CRLF endings");
    assert!(v.bad_line.unwrap().problem.contains("carriage return"));
    // CRLF on one line in the middle only.
    let k = lines[100].offset as usize + lines[100].len as usize;
    let mut one = f.bytes.clone();
    one.insert(k, b'\r');
    expect_bad_line(
        &verify_bytes(1, &one, f.files.clone(), &f.signers),
        100,
        lines[100].offset,
        "CRLF on line 100",
    );
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend_from_slice(&f.bytes);
    let v = verify_bytes(1, &bom, f.files.clone(), &f.signers);
    expect_bad_line(&v, 0, 0, "BOM");
    assert!(v.bad_line.unwrap().problem.contains("byte-order mark"));
    // Untouched bytes through the byte-level path verify.
    assert_eq!(
        verify_bytes(1, &f.bytes, f.files.clone(), &f.signers).status,
        Status::Ok
    );
}

#[test]
fn log_tamper_rewritten_chain_is_caught_by_checkpoints() {
    // Someone edits entry 150 and recomputes every later prev: the chain is self-consistent,
    // only the signed checkpoints betray it.
    let f = fixture();
    let mut entries: Vec<arbiter::log::Entry> = scan(&f.bytes)
        .into_iter()
        .map(|l| l.entry.unwrap())
        .collect();
    entries[150].body = serde_json::json!({"forged": true});
    let mut out = Vec::new();
    let mut prev = [0u8; 32];
    for (i, e) in entries.iter().enumerate() {
        let ne = arbiter::log::NewEntry {
            mono_ms: e.mono_ms,
            utc: chrono::DateTime::parse_from_rfc3339(&e.utc).unwrap().into(),
            actor: e.actor.clone(),
            clause: e.clause.clone(),
            kind: e.kind.clone(),
            body: e.body.clone(),
        };
        let line = arbiter::log::encode_line(i as u64, &prev, &ne);
        prev = arbiter::log::entry_hash(&line);
        out.extend_from_slice(&line);
        out.push(b'\n');
    }
    let v = verify_bytes(1, &out, f.files.clone(), &f.signers);
    assert_eq!(v.status, Status::BadLine);
    let b = v.bad_line.unwrap();
    assert_eq!(
        b.seq, 199,
        "first disagreeing checkpoint covers 200 entries"
    );
    assert!(b.note.unwrap().contains("128..=199"));
}

fn resign(f: &Fixture, key: &ssh_key::PrivateKey, namespace: &str) -> Vec<CheckpointFile> {
    f.files
        .iter()
        .map(|c| CheckpointFile {
            sig: Some(
                key.sign(namespace, HashAlg::Sha512, c.text.as_bytes())
                    .unwrap()
                    .to_pem(LineEnding::LF)
                    .unwrap(),
            ),
            ..c.clone()
        })
        .collect()
}

#[test]
fn log_tamper_wrong_key_wrong_namespace_and_checkpoint_bytes() {
    let f = fixture();
    let tmp = tempfile::tempdir().unwrap();
    let other_path = tmp.path().join("other");
    sign::keygen(&other_path, None, "intruder").unwrap();
    let other = sign::load_key(&other_path, None).unwrap();

    let v = verify_bytes(1, &f.bytes, resign(&f, &other, NAMESPACE), &f.signers);
    assert_eq!(v.status, Status::BadCheckpoint);
    assert_eq!(v.exit_code, 22);
    assert!(v.checkpoints.iter().all(|c| {
        !c.ok
            && c.problem
                .as_ref()
                .unwrap()
                .contains("not in allowed_signers")
    }));

    // A key listed in allowed_signers, but not the one line 0 names.
    let signers = format!(
        "{}arbiter {}\n",
        f.signers,
        ssh_key::PublicKey::new(other.public_key().key_data().clone(), "")
            .to_openssh()
            .unwrap()
    );
    let v = verify_bytes(1, &f.bytes, resign(&f, &other, NAMESPACE), &signers);
    assert_eq!(v.status, Status::BadCheckpoint);
    assert!(
        v.checkpoints
            .iter()
            .all(|c| c.problem.as_ref().unwrap().contains("line 0 names")),
        "{v:?}"
    );

    let key = sign::load_key(&f._m.key_path, None).unwrap();
    let v = verify_bytes(1, &f.bytes, resign(&f, &key, "file"), &f.signers);
    assert_eq!(v.status, Status::BadCheckpoint);
    assert!(
        v.checkpoints
            .iter()
            .all(|c| c.problem.as_ref().unwrap().contains("namespace"))
    );

    // Every single-byte change of a checkpoint text breaks its signature.
    let mut files = f.files.clone();
    let text = files[1].text.clone();
    for p in 0..text.len() {
        let mut b = text.clone().into_bytes();
        b[p] ^= 0x01;
        files[1].text = String::from_utf8_lossy(&b).into_owned();
        let cps = prepare_checkpoints(files.clone(), &parse_allowed_signers(&f.signers).0);
        let v = verify_lines(1, "mem", &scan(&f.bytes), &cps);
        assert!(
            matches!(v.status, Status::BadCheckpoint),
            "checkpoint byte {p}: {:?}",
            v.status
        );
        assert!(!v.checkpoints[1].ok);
    }
    // A missing signature file.
    let mut files = f.files.clone();
    files[0].sig = None;
    let v = verify_bytes(1, &f.bytes, files, &f.signers);
    assert_eq!(v.status, Status::BadCheckpoint);
    let _ = (MATCH_ID, t0());
}

/// The exact path over the whole of `bytes`.
fn exact(f: &Fixture, bytes: &[u8]) -> GameVerification {
    verify_lines(1, "mem", &scan(bytes), &f.cps)
}

fn join_lines(lines: &[&[u8]]) -> Vec<u8> {
    lines
        .iter()
        .flat_map(|l| l.iter().chain(b"\n"))
        .copied()
        .collect()
}

/// `verify_log` (the fast path, falling back to the exact one on any finding) gives verdicts
/// identical, field for field, to `verify_lines` over `scan`: clean logs, changed bytes, deleted,
/// duplicated and swapped lines, truncations, a rewritten chain, a wrong game number.
#[test]
fn log_tamper_fast_path_agrees_with_exact_path() {
    let f = fixture();
    let lines: Vec<&[u8]> = f
        .bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut cases: Vec<(String, Vec<u8>)> = vec![("untouched".into(), f.bytes.clone())];
    // About 200 positions spread over the file, each changed three ways.
    for p in (0..f.bytes.len()).step_by(f.bytes.len() / 200) {
        for x in [0x01, 0x02, 0x20] {
            let mut b = f.bytes.clone();
            b[p] ^= x;
            cases.push((format!("byte {p} ^ {x:#x}"), b));
        }
    }
    for k in (0..lines.len()).step_by(23).chain([lines.len() - 1]) {
        let mut l = lines.clone();
        l.remove(k);
        cases.push((format!("delete {k}"), join_lines(&l)));
        let mut l = lines.clone();
        l.insert(k, lines[k]);
        cases.push((format!("duplicate {k}"), join_lines(&l)));
        if k + 1 < lines.len() {
            let mut l = lines.clone();
            l.swap(k, k + 1);
            cases.push((format!("swap {k}"), join_lines(&l)));
        }
        cases.push((format!("first {k} lines"), join_lines(&lines[..k])));
        let mut cut = join_lines(&lines[..=k]);
        cut.truncate(cut.len() - 5);
        cases.push((format!("cut inside line {k}"), cut));
    }
    // A chain rewritten after an edit of line 150: consistent, but not what was signed.
    let mut entries: Vec<arbiter::log::Entry> = scan(&f.bytes)
        .into_iter()
        .map(|l| l.entry.unwrap())
        .collect();
    entries[150].body = serde_json::json!({"forged": true});
    let mut forged = Vec::new();
    let mut prev = [0u8; 32];
    for (i, e) in entries.iter().enumerate() {
        let ne = arbiter::log::NewEntry {
            mono_ms: e.mono_ms,
            utc: chrono::DateTime::parse_from_rfc3339(&e.utc).unwrap().into(),
            actor: e.actor.clone(),
            clause: e.clause.clone(),
            kind: e.kind.clone(),
            body: e.body.clone(),
        };
        let line = arbiter::log::encode_line(i as u64, &prev, &ne);
        prev = arbiter::log::entry_hash(&line);
        forged.extend_from_slice(&line);
        forged.push(b'\n');
    }
    cases.push(("rewritten chain".into(), forged));
    let mut clean = 0;
    for (what, bytes) in &cases {
        clean += usize::from(arbiter::log::fast::scan_clean(bytes).is_some());
        assert_eq!(
            verify_log(1, "mem", bytes, &f.cps),
            exact(&f, bytes),
            "{what}"
        );
    }
    // A wrong game number (line 0 binds game 1) and fewer checkpoints, on the clean log.
    assert_eq!(
        verify_log(2, "mem", &f.bytes, &f.cps),
        verify_lines(2, "mem", &scan(&f.bytes), &f.cps)
    );
    for keep in 0..f.cps.len() {
        let cps = &f.cps[..keep];
        assert_eq!(
            verify_log(1, "mem", &f.bytes, cps),
            verify_lines(1, "mem", &scan(&f.bytes), cps)
        );
    }
    assert!(
        clean > 10 && clean < cases.len(),
        "{clean} of {}",
        cases.len()
    );
}
