//! The last whole-file readers read line by line. `verify`'s detailed path (a log with
//! something to report) finds the same first bad line as `scan::first_fault` over the whole log
//! while holding one line of lookahead; run under a cap on its data segment, it verifies a
//! damaged log many times the cap's size.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use crate::log_util::TestMatch;
use arbiter::log::scan::{ScannedLine, first_fault, scan, scan_reader};
use arbiter::log::stream::{FaultFinder, ScanLines};
use arbiter::record::sign::parse_allowed_signers;
use arbiter::record::verify::{prepare_checkpoints, read_checkpoint_files};
use std::io::Write;
use std::path::Path;
use std::process::Command;

/// Every line of `bytes`, each with its newline, the last one as found.
fn lines_of(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

/// The chain heads `(N, E_{N-1})` of signed checkpoints.
type Anchors = Vec<(u64, [u8; 32])>;

/// A signed log of 200 entries changed in every way the tamper matrix knows (bytes changed,
/// lines deleted, duplicated, swapped, joined, cut, a CRLF, a BOM, a long line), with the log
/// untouched first.
fn tampered() -> (Vec<(String, Vec<u8>)>, Anchors) {
    let m = TestMatch::new();
    drop(m.game(1, 200, &[50, 128, 200]));
    let bytes = std::fs::read(m.log_path(1)).unwrap();
    let files = read_checkpoint_files(&m.dir.join("game-1").join("checkpoints")).unwrap();
    let signers = std::fs::read_to_string(m.dir.join("allowed_signers")).unwrap();
    let cps = prepare_checkpoints(files, &parse_allowed_signers(&signers).0);
    let anchors: Vec<(u64, [u8; 32])> = cps
        .iter()
        .filter_map(|c| c.parsed.as_ref().ok())
        .map(|p| (p.size, p.chain))
        .collect();
    assert_eq!(anchors.len(), 3);
    let lines = lines_of(&bytes);
    let join = |l: &[Vec<u8>]| l.concat();
    let mut cases = vec![("untouched".to_string(), bytes.clone())];
    for p in (0..bytes.len()).step_by(bytes.len() / 150) {
        for x in [0x01, 0x20] {
            let mut b = bytes.clone();
            b[p] ^= x;
            cases.push((format!("byte {p} ^ {x:#x}"), b));
        }
    }
    for k in (0..lines.len()).step_by(13).chain([1, lines.len() - 1]) {
        let mut l = lines.clone();
        l.remove(k);
        cases.push((format!("delete {k}"), join(&l)));
        let mut l = lines.clone();
        l.insert(k, lines[k].clone());
        cases.push((format!("duplicate {k}"), join(&l)));
        if k + 1 < lines.len() {
            let mut l = lines.clone();
            l.swap(k, k + 1);
            cases.push((format!("swap {k}"), join(&l)));
            let mut l = lines.clone();
            l[k].pop();
            cases.push((format!("join {k} and {}", k + 1), join(&l)));
        }
        let mut cut = join(&lines[..=k]);
        cut.truncate(cut.len() - 5);
        cases.push((format!("cut inside line {k}"), cut));
        let mut l = lines.clone();
        let end = l[k].len() - 1;
        l[k].insert(end, b'\r');
        cases.push((format!("CRLF at {k}"), join(&l)));
        let mut l = lines.clone();
        l.insert(k, [vec![b'a'; 900], vec![b'\n']].concat());
        cases.push((format!("a long line before {k}"), join(&l)));
    }
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(&bytes);
    cases.push(("BOM".into(), bom));
    cases.push(("empty".into(), Vec::new()));
    (cases, anchors)
}

fn streamed(
    lines: &[ScannedLine],
    anchors: &[(u64, [u8; 32])],
) -> Option<arbiter::log::scan::Fault> {
    let mut f = FaultFinder::new(anchors.to_vec());
    for l in lines {
        f.push(l);
    }
    f.finish()
}

/// The streamed search ([`FaultFinder`], one line of lookahead) names the same first bad line as
/// `scan::first_fault` over the whole log, for every tampering, with the signed chain heads,
/// with none, and with a wrong one (so a checkpoint's witness is weighed too); and the lines
/// [`ScanLines`] yields one at a time are the lines `scan` and `scan_reader` collect, long lines
/// included.
#[test]
fn streamed_fault_search_names_the_first_bad_line_as_the_whole_log_scan() {
    let (cases, anchors) = tampered();
    let mut wrong = anchors.clone();
    wrong.push((77, [9; 32]));
    let mut faults = 0;
    for (what, bytes) in &cases {
        let lines = scan(bytes);
        for a in [&anchors[..], &[], &wrong[..]] {
            let want = first_fault(&lines, a);
            faults += usize::from(want.is_some());
            assert_eq!(streamed(&lines, a), want, "{what}, anchors {a:?}");
        }
        let one_by_one: Vec<ScannedLine> = ScanLines::new(&bytes[..], 1 << 20)
            .collect::<std::io::Result<_>>()
            .unwrap();
        assert_eq!(one_by_one, lines, "{what}");
        // A line bound below the long line: it ends the read, as scan_reader's does.
        let bounded: Vec<ScannedLine> = ScanLines::new(&bytes[..], 600)
            .collect::<std::io::Result<_>>()
            .unwrap();
        assert_eq!(bounded, scan_reader(&bytes[..], 600).unwrap(), "{what}");
    }
    // Nearly every case has a fault to find (three searches each); the untouched log has none.
    assert!(
        faults > 3 * cases.len() * 9 / 10,
        "{faults} of 3 × {}",
        cases.len()
    );
    assert_eq!(first_fault(&scan(&cases[0].1), &anchors), None);
}

/// The data segment `verify` may use (`prlimit --data`): the 64 MB.
const DATA_CAP: u64 = 64 << 20;

/// A finished rehearsal (its log sealed) with notes of about 1.5 kB appended, not by the kit,
/// until the log passes 90 MB (well past [`DATA_CAP`]): the folder and the entries the seal binds.
fn long_log(tmp: &Path) -> (std::path::PathBuf, u64) {
    let base = tmp.join("base");
    let m = crate::hostile::rehearsal(tmp);
    let log = arbiter::record::layout::log_path(&m, 1);
    let first = arbiter::record::journal::first_entry(&log).unwrap();
    let tally = arbiter::record::journal::tally(&log).unwrap();
    let mut prev = tally.last().unwrap().hash;
    let mut seq = tally.len();
    let mut f =
        std::io::BufWriter::new(std::fs::OpenOptions::new().append(true).open(&log).unwrap());
    let text = "a long note ".repeat(125);
    let mut written = std::fs::metadata(&log).unwrap().len();
    while written < 90 << 20 {
        let line = arbiter::log::encode_line(
            seq,
            &prev,
            &arbiter::log::NewEntry {
                mono_ms: tally.last().unwrap().mono_ms,
                utc: chrono::DateTime::parse_from_rfc3339(&first.utc)
                    .unwrap()
                    .into(),
                actor: "arbiter".into(),
                clause: "1".into(),
                kind: "note".into(),
                body: serde_json::json!({ "text": format!("{seq}: {text}") }),
            },
        );
        prev = arbiter::log::entry_hash(&line);
        f.write_all(&line).unwrap();
        f.write_all(b"\n").unwrap();
        written += line.len() as u64 + 1;
        seq += 1;
    }
    f.flush().unwrap();
    drop(f);
    std::fs::rename(&m, &base).unwrap();
    (base, tally.len())
}

/// A copy of [`long_log`]'s folder named `name`.
fn copy_of(base: &Path, name: &str) -> std::path::PathBuf {
    let m = base.with_file_name(name);
    assert!(
        Command::new("cp")
            .arg("-a")
            .arg(base)
            .arg(&m)
            .status()
            .unwrap()
            .success()
    );
    m
}

/// A copy of [`long_log`]'s folder with one byte changed in line `damaged` (a negative number
/// counts from the end): the fast path finds it, and the detailed path reads the whole log.
fn long_damaged_log(base: &Path, name: &str, damaged: i64) -> std::path::PathBuf {
    let m = copy_of(base, name);
    let log = arbiter::record::layout::log_path(&m, 1);
    let mut bytes = std::fs::read(&log).unwrap();
    let starts: Vec<usize> = std::iter::once(0)
        .chain(
            bytes
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect();
    let line = if damaged < 0 {
        starts.len() as i64 - 1 + damaged
    } else {
        damaged
    } as usize;
    // A digit of the line's utc: still a valid entry, another hash.
    let at = starts[line]
        + bytes[starts[line]..]
            .windows(7)
            .position(|w| w == b"\"utc\":\"")
            .unwrap()
        + 10;
    bytes[at] = if bytes[at] == b'7' { b'8' } else { b'7' };
    std::fs::write(&log, &bytes).unwrap();
    m
}

fn capped(args: &[&str]) -> (Option<i32>, String) {
    let r = Command::new("prlimit")
        .arg(format!("--data={DATA_CAP}"))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
    (r.status.code(), text)
}

/// `verify` and `prove` on a damaged log larger than the cap on their data segment
/// (90 MB of entries against 64 MB; the detailed path used to hold every parsed entry, 1.5 GB
/// for a log of 1,000,000), one byte changed near the start and near the end: each names the
/// bad line (20) without running out of memory.
#[test]
fn verify_of_a_damaged_log_larger_than_its_memory_cap_names_the_bad_line() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "prlimit (util-linux) is needed in CI"
        );
        println!("SKIPPED: no prlimit here");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (base, _) = long_log(tmp.path());
    for (name, damaged) in [("start", 2), ("end", -3)] {
        let m = long_damaged_log(&base, name, damaged);
        let d = m.display().to_string();
        let log = arbiter::record::layout::log_path(&m, 1);
        assert!(std::fs::metadata(&log).unwrap().len() > DATA_CAP + (20 << 20));
        let (code, text) = capped(&["verify", "--match", &d, "--game", "1"]);
        assert!(!text.contains("memory allocation"), "{name}: {text}");
        assert_eq!(code, Some(20), "{name}: {text}");
        assert!(
            text.contains("BAD LINE at line seq")
                && text.contains("its bytes were changed: the next line records another hash"),
            "{name}: {text}"
        );
        if name == "start" {
            assert!(text.contains("BAD LINE at line seq 2 "), "{text}");
            let (code, text) = capped(&["prove", "--match", &d, "--game", "1", "--seq", "1"]);
            assert!(!text.contains("memory allocation"), "{text}");
            assert_eq!(code, Some(20), "{text}");
            assert!(text.contains("does not verify (BAD LINE)"), "{text}");
        }
    }
}

/// `foreign` lists and `foreign --cut-from` cuts 90 MB of entries the kit did not
/// write (a log larger than the 64 MB cap on their data segment): the side file holds exactly
/// the bytes cut, copied in blocks; the cut is recorded and signed, and `verify` reads it as a
/// recovery to review (11).
#[test]
fn foreign_cut_from_moves_a_tail_larger_than_its_memory_cap() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "prlimit (util-linux) is needed in CI"
        );
        println!("SKIPPED: no prlimit here");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (m, bound) = long_log(tmp.path());
    let d = m.display().to_string();
    let log = arbiter::record::layout::log_path(&m, 1);
    let before = std::fs::read(&log).unwrap();
    let at = arbiter::record::journal::for_each_entry(&log, |e| e.seq + 1 < bound).unwrap();
    assert_eq!(at, bound);
    let kept = before
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(bound as usize - 1)
        .unwrap()
        .0
        + 1;
    let (code, text) = capped(&["foreign", "--match", &d, "--game", "1"]);
    assert!(!text.contains("memory allocation"), "{text}");
    assert_eq!(code, Some(1), "{text}");
    let total = before.iter().filter(|b| **b == b'\n').count() as u64;
    assert!(
        text.contains(&format!(
            "{bound} entries bound by the kit's seal or a signed checkpoint; {} past them",
            total - bound
        )) && text.contains(&format!("#{} arbiter note (1)", total - 1)),
        "{text}"
    );
    let s = bound.to_string();
    let (code, text) = capped(&["foreign", "--match", &d, "--game", "1", "--cut-from", &s]);
    assert!(!text.contains("memory allocation"), "{text}");
    assert_eq!(code, Some(0), "{text}");
    let cut_lines = before[kept..].iter().filter(|b| **b == b'\n').count();
    assert!(
        text.contains(&format!("cut {cut_lines} entries to")),
        "{text}"
    );
    let side = m.join(format!("game-1/log.jsonl.foreign-{bound}"));
    assert!(std::fs::read(&side).unwrap() == before[kept..], "side file");
    let after = std::fs::read(&log).unwrap();
    assert_eq!(after[..kept], before[..kept]);
    let last = arbiter::record::journal::tally(&log).unwrap();
    let recovery = last.last().unwrap();
    assert_eq!(recovery.kind, "recovery");
    assert_eq!(recovery.body["offset"], kept as u64);
    assert_eq!(recovery.body["length"], (before.len() - kept) as u64);
    assert_eq!(
        recovery.body["sha256"],
        arbiter::log::hex32(&arbiter::log::sha256(&before[kept..]))
    );
    let (code, text) = capped(&["verify", "--match", &d, "--game", "1"]);
    assert_eq!(code, Some(11), "{text}");
}

/// `journal::read_entries` reads line by line (as `Journal::open` does) and still
/// gives what the whole-file scan gave: the entries of an intact log, `scan::first_local_fault`'s
/// fault as `Damaged`, an empty file as `NoFirstEntry`, for every tampering.
#[test]
fn read_entries_line_by_line_gives_the_whole_file_scans_answer() {
    use arbiter::log::scan::first_local_fault;
    use arbiter::record::journal::{JournalError, read_entries};
    let (cases, _) = tampered();
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("log.jsonl");
    let (mut intact, mut damaged) = (0, 0);
    for (what, bytes) in &cases {
        std::fs::write(&path, bytes).unwrap();
        let lines = scan(bytes);
        match (read_entries(&path), first_local_fault(&lines)) {
            (Ok(entries), None) => {
                intact += 1;
                let want: Vec<_> = lines.into_iter().map(|l| l.entry.unwrap()).collect();
                assert_eq!(entries, want, "{what}");
            }
            (Err(JournalError::Damaged { fault, .. }), Some(want)) => {
                damaged += 1;
                assert_eq!(*fault, want, "{what}");
            }
            (Err(JournalError::NoFirstEntry { .. }), None) => assert!(lines.is_empty(), "{what}"),
            (got, want) => panic!("{what}: {got:?}, the whole-file scan: {want:?}"),
        }
    }
    assert!(
        intact >= 1 && damaged > cases.len() / 2,
        "{intact} {damaged}"
    );
}
