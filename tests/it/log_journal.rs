//! Journal: create, lock, append durability, torn-tail repair of every kind, damage, faults.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use crate::log_util::{entry, first_entry, mode};
use arbiter::log::{LineError, hex32, sha256};
use arbiter::record::journal::{FaultPlan, Journal, JournalError, read_entries};
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

fn new_log(n: u64) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("m").join("game-1").join("log.jsonl");
    let mut j = Journal::create(&path, first_entry("SHA256:test", 1)).unwrap();
    for i in 1..n {
        j.append(entry(i)).unwrap();
    }
    (tmp, path)
}

fn push_bytes(path: &Path, bytes: &[u8]) {
    OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

#[test]
fn log_journal_create_modes_lock_and_reopen() {
    let (tmp, path) = new_log(5);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    assert_eq!(mode(&tmp.path().join("m")), 0o700);
    assert!(matches!(
        Journal::create(&path, first_entry("x", 1)),
        Err(JournalError::Exists(_))
    ));
    let j = Journal::open(&path).unwrap();
    assert_eq!(j.entries().len(), 5);
    assert!(j.damage().is_none() && j.recovery().is_none());
    let second = Journal::open(&path);
    match second {
        Err(e @ JournalError::Locked(_)) => assert!(
            e.to_string()
                .contains("already open in another arbiter process")
        ),
        other => panic!("expected Locked, got {other:?}"),
    }
    drop(j);
    let mut j = Journal::open(&path).unwrap();
    let e = j.append(entry(5)).unwrap().clone();
    assert_eq!(e.seq, 5);
    assert_eq!(read_entries(&path).unwrap().last().unwrap(), &e);
}

#[test]
fn log_journal_refuses_invalid_entry_without_writing() {
    let (_tmp, path) = new_log(2);
    let mut j = Journal::open(&path).unwrap();
    let mut bad = entry(1);
    bad.actor = "spectator".into();
    assert!(matches!(
        j.append(bad),
        Err(JournalError::Invalid(LineError::Field {
            field: "actor",
            ..
        }))
    ));
    assert!(j.poisoned().is_none());
    j.append(entry(2)).unwrap();
    assert_eq!(read_entries(&path).unwrap().len(), 3);
}

/// Every kind of torn tail is cut into a side file and recorded by a recovery entry.
#[test]
fn log_journal_torn_tails_are_repaired() {
    let mut wrong_prev = arbiter::log::encode_line(3, &[0x11; 32], &entry(3));
    wrong_prev.push(b'\n');
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("no newline", b"{\"v\":1,\"seq\":3,\"prev\":\"ab".to_vec()),
        ("bad json with newline", b"{\"v\":1,\"seq\":3,\n".to_vec()),
        ("bad hash", wrong_prev), // a valid line whose prev is not the last hash
        ("zero bytes", vec![0u8; 4096]),
        ("zero bytes with newline", b"\0\0\0\0\n".to_vec()),
    ];
    for (what, tail) in cases {
        let (_tmp, path) = new_log(3);
        let clean_len = fs::metadata(&path).unwrap().len();
        push_bytes(&path, &tail);
        let j = Journal::open(&path).unwrap();
        assert!(j.damage().is_none(), "{what}");
        let r = j.recovery().expect(what);
        assert_eq!(r.seq, 3, "{what}");
        assert_eq!(
            (r.kind.as_str(), r.actor.as_str(), r.clause.as_str()),
            ("recovery", "kit", "5b")
        );
        assert_eq!(r.mono_ms, j.entries()[2].mono_ms);
        assert_eq!(r.body["offset"], clean_len, "{what}");
        assert_eq!(r.body["length"], tail.len(), "{what}");
        assert_eq!(r.body["sha256"], hex32(&sha256(&tail)), "{what}");
        let side = path.with_file_name(format!("log.jsonl.torn-{clean_len}"));
        assert_eq!(
            r.body["side_file"],
            side.file_name().unwrap().to_str().unwrap()
        );
        assert_eq!(fs::read(&side).unwrap(), tail, "{what}");
        assert_eq!(mode(&side), 0o600);
        drop(j);
        assert_eq!(read_entries(&path).unwrap().len(), 4, "{what}");
        // Reopening does not record the same side file twice.
        let j = Journal::open(&path).unwrap();
        assert!(j.recovery().is_none(), "{what}");
    }
}

#[test]
fn log_journal_crash_after_cut_is_still_recorded() {
    let (_tmp, path) = new_log(3);
    let len = fs::metadata(&path).unwrap().len();
    // As if the kit died after writing the side file and truncating, before the recovery entry.
    fs::write(
        path.with_file_name(format!("log.jsonl.torn-{len}")),
        b"partial",
    )
    .unwrap();
    let j = Journal::open(&path).unwrap();
    let r = j.recovery().unwrap();
    assert_eq!(r.body["length"], 7);
    assert_eq!(r.body["offset"], len);
}

#[test]
fn log_journal_damage_before_tail_opens_read_only() {
    let (_tmp, path) = new_log(6);
    let entries = read_entries(&path).unwrap();
    let mut bytes = fs::read(&path).unwrap();
    let at = entries[2].offset as usize + 30;
    bytes[at] ^= 0x01;
    fs::write(&path, &bytes).unwrap();
    let before = bytes.clone();
    let mut j = Journal::open(&path).unwrap();
    let d = j.damage().expect("damage").clone();
    assert!(d.fault.index == 2 || d.fault.index == 3, "{d}");
    assert_eq!(j.entries().len() as u64, d.fault.index);
    let msg = d.to_string();
    assert!(msg.contains("byte offset"), "{msg}");
    assert!(matches!(
        j.append(entry(9)),
        Err(JournalError::ReadOnly { .. })
    ));
    drop(j);
    assert_eq!(fs::read(&path).unwrap(), before, "nothing repaired");
    assert!(matches!(
        read_entries(&path),
        Err(JournalError::Damaged { .. })
    ));
}

#[test]
fn log_journal_first_line_torn_is_refused_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("log.jsonl");
    fs::write(&path, b"{\"v\":1,\"se").unwrap();
    assert!(matches!(
        Journal::open(&path),
        Err(JournalError::NoFirstEntry { .. })
    ));
    fs::write(&path, b"").unwrap();
    assert!(matches!(
        Journal::open(&path),
        Err(JournalError::NoFirstEntry { .. })
    ));
    assert_eq!(fs::read(&path).unwrap(), b"");
}

#[test]
fn log_journal_failed_sync_poisons() {
    let (_tmp, path) = new_log(3);
    let mut j = Journal::open_with(&path, Box::new(FaultPlan::new().fail_sync(1))).unwrap();
    j.append(entry(3)).unwrap();
    let err = j.append(entry(4)).unwrap_err();
    assert!(err.to_string().contains("fdatasync"), "{err}");
    assert_eq!(j.entries().len(), 4, "the unsynced entry is not reported");
    assert!(j.poisoned().is_some());
    // Never retried: every later append is refused.
    assert!(matches!(
        j.append(entry(5)),
        Err(JournalError::Poisoned { .. })
    ));
    assert!(matches!(
        j.append(entry(5)),
        Err(JournalError::Poisoned { .. })
    ));
}

/// Append the first `k` bytes of the next line, as a process killed mid-write leaves them.
fn tear(path: &std::path::Path, j: &Journal, n: u64, k: usize) {
    use std::io::Write;
    let prev = j.entries().last().unwrap().hash;
    let line = arbiter::log::encode_line(n, &prev, &entry(n));
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(&line[..k.min(line.len())]).unwrap();
}

#[test]
fn log_journal_failed_write_cuts_back_and_a_torn_tail_is_repaired_on_reopen() {
    let (_tmp, path) = new_log(3);
    let before = std::fs::read(&path).unwrap();
    let mut j =
        Journal::open_with(&path, Box::new(FaultPlan::new().fail_write(0, Some(25)))).unwrap();
    assert!(matches!(j.append(entry(3)), Err(JournalError::Io { .. })));
    assert!(matches!(
        j.append(entry(3)),
        Err(JournalError::Poisoned { .. })
    ));
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the partial line was cut back"
    );
    drop(j);
    // A process killed mid-write leaves a torn tail: the next open repairs it.
    let j = Journal::open(&path).unwrap();
    assert!(j.recovery().is_none());
    tear(&path, &j, 3, 25);
    drop(j);
    let j = Journal::open(&path).unwrap();
    let r = j.recovery().unwrap();
    assert_eq!(r.body["length"], 25);
    assert_eq!(j.entries().len(), 4);
    assert!(j.damage().is_none());
}

/// Crash loop: a write torn at every possible length, reopened, and appended to again; the log
/// always reads back strictly, with one recovery entry per crash.
#[test]
fn log_journal_crash_loop_every_torn_length() {
    let (_tmp, path) = new_log(2);
    let mut crashes = 0;
    for it in 0..60usize {
        let j = Journal::open_with(
            &path,
            Box::new(FaultPlan::new().fail_write(0, Some(usize::MAX))),
        )
        .unwrap();
        let n = j.entries().len() as u64;
        let prev = j.entries().last().unwrap().hash;
        let len = arbiter::log::encode_line(n, &prev, &entry(n)).len();
        drop(j);
        // Torn anywhere from 1 byte to the whole line without its newline.
        let k = 1 + (it * 7) % len;
        let j = Journal::open(&path).unwrap();
        tear(&path, &j, n, k);
        drop(j);
        crashes += 1;
        let mut j = Journal::open(&path).unwrap();
        let r = j.recovery().unwrap();
        assert_eq!(r.body["length"], k);
        j.append(entry(n + 1)).unwrap();
    }
    let all = read_entries(&path).unwrap();
    assert_eq!(all.iter().filter(|e| e.kind == "recovery").count(), crashes);
}

/// The table's one decision: several entries in one write and one fdatasync, read back chained
/// exactly as one append each would have written them.
#[test]
fn log_journal_append_all_writes_the_lines_one_append_each_would() {
    let (_tmp, path) = new_log(2);
    let (_tmp2, one_by_one) = new_log(2);
    let mut j = Journal::open(&path).unwrap();
    assert_eq!(j.append_all(vec![entry(2), entry(3), entry(4)]).unwrap(), 2);
    assert_eq!(j.len(), 5);
    assert_eq!(j.append_all(Vec::new()).unwrap(), 5, "nothing to write");
    drop(j);
    let mut k = Journal::open(&one_by_one).unwrap();
    for i in 2..5 {
        k.append(entry(i)).unwrap();
    }
    drop(k);
    assert_eq!(fs::read(&path).unwrap(), fs::read(&one_by_one).unwrap());
    assert_eq!(read_entries(&path).unwrap().len(), 5);
}

/// A failed sync of a batch takes every line of it back out and poisons the journal: none of
/// them is reported, none stays in the file.
#[test]
fn log_journal_append_all_failed_sync_takes_the_whole_batch_back() {
    let (_tmp, path) = new_log(2);
    let before = fs::read(&path).unwrap();
    let mut j = Journal::open_with(&path, Box::new(FaultPlan::new().fail_sync(0))).unwrap();
    let err = j.append_all(vec![entry(2), entry(3)]).unwrap_err();
    assert!(err.to_string().contains("fdatasync"), "{err}");
    assert_eq!(j.len(), 2);
    assert!(j.poisoned().is_some());
    assert!(matches!(
        j.append_all(vec![entry(2)]),
        Err(JournalError::Poisoned { .. })
    ));
    drop(j);
    assert_eq!(
        fs::read(&path).unwrap(),
        before,
        "the batch's lines were removed"
    );
}
