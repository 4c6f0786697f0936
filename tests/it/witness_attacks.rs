//! Through the binary: each attack an insider tried on a copy of a real match folder
//! (arbiter key, camps declared and countersigning), and what the kit and `verify` say now.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use arbiter::log::NewEntry;
use arbiter::record::journal::Journal;

fn arbiter(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn verify(m: &Path, extra: &[&str]) -> (i32, String) {
    let mut args = vec!["verify", "--match", m.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = arbiter(&args);
    (o.status.code().unwrap_or(-1), text(&o))
}

/// A match with a real arbiter key, camps `kasparov` and `junior` declared with their own keys,
/// one finished game (the human resigned), both camps' countersignatures over its final
/// checkpoint. Returns the match folder and the arbiter's public key file (the pinned one).
fn countersigned(tmp: &Path) -> (PathBuf, PathBuf) {
    let m = tmp.join("m");
    crate::log_util::arbiter_key_in(&m);
    let mut declared = String::new();
    let mut keys = Vec::new();
    for camp in ["kasparov", "junior"] {
        let (k, line) = crate::witness::proven_camp(tmp, &m, camp);
        declared.push_str(&line);
        keys.push((camp, k));
    }
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    let script = quick.replacen(
        "0        arbiter start\n",
        &format!("{declared}0        arbiter start\n"),
        1,
    ) + "0:17:00  human resign\n";
    let p = tmp.join("camps.arb");
    std::fs::write(&p, script).unwrap();
    let ms = m.to_str().unwrap();
    let o = arbiter(&["script", p.to_str().unwrap(), "--match", ms]);
    assert!(o.status.success(), "{}", text(&o));
    // Each camp countersigns the game's final checkpoint, then the match index (both
    // are needed for the game to count as witnessed).
    for index in [false, true] {
        for (camp, k) in &keys {
            let mut args = vec![
                "countersign",
                "--yes",
                "--match",
                ms,
                "--camp",
                camp,
                "--key",
                k.to_str().unwrap(),
            ];
            if index {
                args.push("--index");
            }
            let o = arbiter(&args);
            assert!(o.status.success(), "{}", text(&o));
        }
    }
    let pinned = tmp.join("arbiter.pub");
    std::fs::copy(m.join("keys/arbiter.pub"), &pinned).unwrap();
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 0, "the honest match verifies: {out}");
    (m, pinned)
}

fn log(m: &Path) -> PathBuf {
    m.join("game-1/log.jsonl")
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// An entry as a forger writes it (the journal fills the chain: same prefix, the chain holds).
fn forged(kind: &str, actor: &str, body: serde_json::Value, mono_ms: u64) -> NewEntry {
    NewEntry {
        mono_ms,
        utc: crate::log_util::t0() + chrono::Duration::days(10_000),
        actor: actor.into(),
        clause: "1".into(),
        kind: kind.into(),
        body,
    }
}

#[test]
fn witness_operator_key_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, _) = countersigned(tmp.path());
    let ms = m.to_str().unwrap();
    let op = tmp.path().join("operator-key");
    let public = arbiter::record::sign::keygen(&op, None, "operator").unwrap();
    let fp = arbiter::record::sign::fingerprint(&public);
    let before = listing(&m.join("game-1/checkpoints"));
    // checkpoint (and archive, play, script: every command that opens a game for writing goes
    // through the same key check) refuses the operator's key by name and fingerprint.
    let o = arbiter(&[
        "checkpoint",
        "--match",
        ms,
        "--game",
        "1",
        "--key",
        op.to_str().unwrap(),
    ]);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("is not the arbiter key of match"),
        "{}",
        text(&o)
    );
    assert!(
        text(&o).contains(&fp),
        "the refused key's fingerprint: {}",
        text(&o)
    );
    assert_eq!(
        listing(&m.join("game-1/checkpoints")),
        before,
        "nothing signed"
    );
    let o = arbiter(&[
        "script",
        "examples/scripts/quick.arb",
        "--match",
        ms,
        "--key",
        op.to_str().unwrap(),
    ]);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains(&fp), "{}", text(&o));
    assert!(
        !m.join("game-2").exists(),
        "no game opened with the operator's key"
    );
    let o = arbiter(&[
        "archive",
        "--match",
        ms,
        "--game",
        "1",
        "--key",
        op.to_str().unwrap(),
        log(&m).to_str().unwrap(),
        log(&m).to_str().unwrap(),
    ]);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
    // The kit's own authorization names the key and signs what it covers.
    let last = std::fs::read_to_string(log(&m)).unwrap();
    let auth = last
        .lines()
        .find(|l| l.contains(r#""kind":"authorized""#))
        .unwrap();
    assert!(auth.contains(r#""key":"SHA256:"#), "{auth}");
    assert!(auth.contains(r#""sig":""#), "{auth}");
}

#[test]
fn witness_authorization_by_another_key_is_unauthorized() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    // The operator records an arbiter-only correction and "authorizes" it with his own key; the
    // arbiter's next routine signature (here through the library, past the kit's refusal)
    // covers it.
    let op = tmp.path().join("operator-key");
    arbiter::record::sign::keygen(&op, None, "operator").unwrap();
    let op_key = arbiter::record::sign::load_key(&op, None).unwrap();
    let key = arbiter::record::sign::load_key(&m.join("keys/arbiter"), None).unwrap();
    let line0 = arbiter::record::journal::first_entry(&log(&m)).unwrap();
    let origin = arbiter::log::checkpoint::origin(line0.body["match_id"].as_str().unwrap(), 1);
    {
        let mut j = Journal::open(&log(&m)).unwrap();
        let at = j.last().unwrap().mono_ms;
        let first = j.len();
        j.append(forged(
            "clock_corrected",
            "arbiter",
            serde_json::json!({"side": "black", "delta_ms": 600000, "reason": "6d"}),
            at,
        ))
        .unwrap();
        let seq = j.len();
        let prev = arbiter::log::hex32(&j.last().unwrap().hash);
        let text = arbiter::log::seal::authorization_text(&origin, seq, first, first, &prev);
        let sig = arbiter::record::sign::sign_authorization(&op_key, &text).unwrap();
        j.append(forged(
            "authorized",
            "arbiter",
            serde_json::json!({"by": "passphrase", "command": "correct", "first": first, "last": first,
                "key": arbiter::record::sign::fingerprint(op_key.public_key()), "sig": sig}),
            at,
        ))
        .unwrap();
        let entries = j.entries();
        arbiter::record::witness::sign_and_index(&m, 1, &entries, &key, crate::log_util::t0())
            .unwrap();
    }
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 27, "{out}");
    assert!(out.contains("UNAUTHORIZED"), "{out}");
    assert!(out.contains("clock_corrected"), "the entry is named: {out}");
}

#[test]
fn witness_foreign_tail_not_signed() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    // Lines forged on a scratch copy (a void of the resignation and the other side's) appended
    // to the real log: same prefix, so the chain holds.
    {
        let mut j = Journal::open(&log(&m)).unwrap();
        let at = j.last().unwrap().mono_ms;
        let n = j.len();
        j.append(forged(
            "entry_voided",
            "arbiter",
            serde_json::json!({"seq": n - 2, "kind": "game_ended", "reason": "mis-key"}),
            at,
        ))
        .unwrap();
    }
    let before = listing(&m.join("game-1/checkpoints"));
    let o = arbiter(&["checkpoint", "--match", m.to_str().unwrap(), "--game", "1"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("not bound by the arbiter's word"),
        "{}",
        text(&o)
    );
    assert!(
        text(&o).contains("entry_voided"),
        "the entry is shown: {}",
        text(&o)
    );
    assert_eq!(
        listing(&m.join("game-1/checkpoints")),
        before,
        "nothing signed"
    );
    // The archive refuses too (it opens the game for writing), and so would play and script.
    let o = arbiter(&[
        "archive",
        "--match",
        m.to_str().unwrap(),
        "--game",
        "1",
        log(&m).to_str().unwrap(),
        log(&m).to_str().unwrap(),
    ]);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(
        listing(&m.join("game-1/checkpoints")),
        before,
        "nothing signed"
    );
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("UNSIGNED TAIL"), "{out}");
}

#[test]
fn witness_result_changed_after_countersign_is_unwitnessed() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    // A rogue arbiter (key and all) voids the countersigned resignation, records the other
    // side's, authorizes it with his key, seals and signs: everything he can do with the key.
    let key = arbiter::record::sign::load_key(&m.join("keys/arbiter"), None).unwrap();
    let line0 = arbiter::record::journal::first_entry(&log(&m)).unwrap();
    let origin = arbiter::log::checkpoint::origin(line0.body["match_id"].as_str().unwrap(), 1);
    {
        let mut j = Journal::open(&log(&m)).unwrap();
        let at = j.last().unwrap().mono_ms;
        let first = j.len();
        let ended = j.len() - 2;
        j.append(forged(
            "entry_voided",
            "arbiter",
            serde_json::json!({"seq": ended, "kind": "game_ended", "reason": "mis-key"}),
            at,
        ))
        .unwrap();
        j.append(forged(
            "game_ended",
            "arbiter",
            serde_json::json!({"detail": "the machine (black) resigned", "fen": "-", "reason": "resignation", "score": "1-0"}),
            at,
        ))
        .unwrap();
        let last = j.len() - 1;
        let seq = j.len();
        let prev = arbiter::log::hex32(&j.last().unwrap().hash);
        let text = arbiter::log::seal::authorization_text(&origin, seq, first, last, &prev);
        let sig = arbiter::record::sign::sign_authorization(&key, &text).unwrap();
        j.append(forged(
            "authorized",
            "arbiter",
            serde_json::json!({"by": "passphrase", "command": "void", "first": first, "last": last,
                "key": arbiter::record::sign::fingerprint(key.public_key()), "sig": sig}),
            at,
        ))
        .unwrap();
        let entries = j.entries();
        arbiter::record::witness::sign_and_index(&m, 1, &entries, &key, crate::log_util::t0())
            .unwrap();
    }
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 12, "{out}");
    assert!(out.contains("UNWITNESSED"), "{out}");
    assert!(
        out.contains("entry_voided") && out.contains("game_ended"),
        "the entries are named: {out}"
    );
}

#[test]
fn witness_index_removed_is_rolled_back() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    let trust = ["--trust", pinned.to_str().unwrap()];
    std::fs::remove_file(m.join("index.txt")).unwrap();
    std::fs::remove_file(m.join("index.txt.sig")).unwrap();
    let (code, out) = verify(&m, &trust);
    assert_eq!(code, 26, "{out}");
    assert!(out.contains("NO SIGNED MATCH INDEX"), "{out}");
    // A FIFO in its place is not "absent".
    let ok = Command::new("mkfifo")
        .arg(m.join("index.txt"))
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo");
    let (code, out) = verify(&m, &trust);
    assert_ne!(code, 0, "{out}");
}

#[test]
fn witness_older_index_put_back_is_rolled_back() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    // The index as it stood after the game's first checkpoint, kept by the forger.
    let key = arbiter::record::sign::load_key(&m.join("keys/arbiter"), None).unwrap();
    let old_idx = std::fs::read(m.join("index.txt")).unwrap();
    let old_sig = std::fs::read(m.join("index.txt.sig")).unwrap();
    // A later checkpoint moves the index on (a note, signed with the arbiter's key).
    {
        let mut j = Journal::open(&log(&m)).unwrap();
        let at = j.last().unwrap().mono_ms;
        j.append(forged(
            "note",
            "kit",
            serde_json::json!({"text": "later"}),
            at,
        ))
        .unwrap();
        let entries = j.entries();
        arbiter::record::witness::sign_and_index(&m, 1, &entries, &key, crate::log_util::t0())
            .unwrap();
    }
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_ne!(code, 26, "{out}");
    std::fs::write(m.join("index.txt"), old_idx).unwrap();
    std::fs::write(m.join("index.txt.sig"), old_sig).unwrap();
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 26, "{out}");
    assert!(out.contains("older"), "{out}");
}

#[test]
fn witness_index_write_interrupted_is_not_tampering() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    // A kill between the index's signature and its rename: the new text waits beside the old.
    let key = arbiter::record::sign::load_key(&m.join("keys/arbiter"), None).unwrap();
    let text = std::fs::read_to_string(m.join("index.txt")).unwrap();
    let idx = arbiter::log::index::MatchIndex::parse(&text).unwrap();
    let sig = arbiter::record::sign::sign_index(&key, &idx).unwrap();
    std::fs::write(m.join("index.txt.next"), &text).unwrap();
    std::fs::write(m.join("index.txt"), "arbiter-kit match index v1\nmatch m\n").unwrap();
    std::fs::write(m.join("index.txt.sig"), sig).unwrap();
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 0, "an honest crash is not tampering: {out}");
}

#[test]
fn witness_foreign_entries_cut_or_accepted_are_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    let ms = m.to_str().unwrap();
    let trust = ["--trust", pinned.to_str().unwrap()];
    let append = |kind: &str, actor: &str| {
        let mut j = Journal::open(&log(&m)).unwrap();
        let at = j.last().unwrap().mono_ms;
        j.append(forged(kind, actor, serde_json::json!({"text": "x"}), at))
            .unwrap();
        j.len() - 1
    };
    // Cut: the entries go to a side file, nothing lost, and the cut is recorded.
    // An arbiter-only entry no signed authorization covers (routine entries need none).
    let seq = append("note", "arbiter");
    let o = arbiter(&["foreign", "--match", ms, "--game", "1"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains(&format!("#{seq} arbiter note")),
        "{}",
        text(&o)
    );
    let forged_line = std::fs::read_to_string(log(&m))
        .unwrap()
        .lines()
        .last()
        .unwrap()
        .to_owned();
    let s = seq.to_string();
    let o = arbiter(&["foreign", "--match", ms, "--game", "1", "--cut-from", &s]);
    assert!(o.status.success(), "{}", text(&o));
    let side = std::fs::read_to_string(m.join(format!("game-1/log.jsonl.foreign-{seq}"))).unwrap();
    assert_eq!(side, format!("{forged_line}\n"));
    let now = std::fs::read_to_string(log(&m)).unwrap();
    let last = now.lines().last().unwrap();
    assert!(
        last.contains(r#""kind":"recovery""#) && last.contains("foreign-"),
        "{last}"
    );
    let o = arbiter(&["checkpoint", "--match", ms, "--game", "1"]);
    assert!(o.status.success(), "{}", text(&o));
    let (code, out) = verify(&m, &trust);
    assert_eq!(code, 11, "a recorded cut is a recovery to review: {out}");

    // Accept: one recorded note per entry with the reason, signed by the arbiter key.
    let seq = append("note", "arbiter");
    let o = arbiter(&[
        "foreign",
        "--match",
        ms,
        "--game",
        "1",
        "--accept",
        "typed by the operator at the spare laptop",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let now = std::fs::read_to_string(log(&m)).unwrap();
    assert!(
        now.contains(&format!("entry #{seq} (arbiter note")),
        "{now}"
    );
    assert!(now.contains("typed by the operator at the spare laptop"));
    let o = arbiter(&["checkpoint", "--match", ms, "--game", "1"]);
    assert!(o.status.success(), "{}", text(&o));
    let (code, out) = verify(&m, &trust);
    assert_eq!(code, 11, "{out}");
    assert!(!out.contains("UNAUTHORIZED"), "{out}");
}

#[test]
fn witness_camp_keys_pinned() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    // What the committee received from each camp out of band.
    let mut camps = String::new();
    for camp in ["kasparov", "junior"] {
        let k = arbiter::record::sign::load_public_key(&tmp.path().join(format!("{camp}-key")))
            .unwrap();
        camps.push_str(&format!("{camp} {}\n", k.to_openssh().unwrap()));
    }
    let camps_file = tmp.path().join("camps_allowed_signers");
    std::fs::write(&camps_file, &camps).unwrap();
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("camps NOT PINNED"), "{out}");
    let args = [
        "--trust",
        pinned.to_str().unwrap(),
        "--camps",
        camps_file.to_str().unwrap(),
    ];
    let (code, out) = verify(&m, &args);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("camps NOT PINNED"), "{out}");
    // A pinned list in which kasparov's key is another: the line 0 that declared it fails.
    let other = tmp.path().join("forger-key");
    let forger = arbiter::record::sign::keygen(&other, None, "forger").unwrap();
    let swapped = camps
        .lines()
        .map(|l| {
            if l.starts_with("kasparov ") {
                format!("kasparov {}", forger.to_openssh().unwrap())
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&camps_file, swapped).unwrap();
    let (code, out) = verify(&m, &args);
    assert_eq!(code, 22, "{out}");
    assert!(out.contains("CAMP KEY NOT THE PINNED ONE"), "{out}");
}

#[test]
fn witness_swapped_note_is_caught() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    let cps = m.join("game-1/checkpoints");
    // A copy of one checkpoint's note over another's.
    std::fs::copy(cps.join("13.note"), cps.join("14.note")).unwrap();
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 22, "{out}");
    assert!(out.contains("BAD NOTE checkpoints/14.note"), "{out}");
}

#[test]
fn witness_symlinked_log_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    let elsewhere = tmp.path().join("elsewhere.jsonl");
    std::fs::rename(log(&m), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, log(&m)).unwrap();
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("symbolic link"), "{out}");
}

#[test]
fn witness_archive_is_authorized_by_the_match_key() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    let copy = tmp.path().join("copy1.log");
    std::fs::write(&copy, "info depth 1 score cp 10 pv e2e4\nbestmove e2e4\n").unwrap();
    let copy2 = tmp.path().join("copy2.log");
    std::fs::copy(&copy, &copy2).unwrap();
    let o = arbiter(&[
        "archive",
        "--match",
        m.to_str().unwrap(),
        "--game",
        "1",
        copy.to_str().unwrap(),
        copy2.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let now = std::fs::read_to_string(log(&m)).unwrap();
    let last = now.lines().last().unwrap();
    assert!(
        last.contains(r#""kind":"authorized""#) && last.contains(r#""sig":""#),
        "{last}"
    );
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(
        code, 0,
        "the archive after the countersignatures changes no result: {out}"
    );
}

#[test]
fn witness_heartbeat_removed_or_forged_is_shown() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let script = tmp.path().join("s.arb");
    std::fs::write(
        &script,
        "0 arbiter declare white human Garry Kasparov\n0 arbiter declare black machine Deep Junior\n0 arbiter declare operator Amir Ban\n0 arbiter start\n0:10 move e4\n",
    )
    .unwrap();
    let o = arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let key = arbiter::record::sign::KeySource::default();
    let rules = Path::new("rules/kasparov-deep-junior-2003.toml");
    let open = || {
        arbiter::board::matchdir::open_game_with(&dir, Some(1), Some(rules), &key, false).unwrap()
    };
    // No heartbeat at all (removed): the reopen says so.
    let mut o = open();
    let notice = o.notice.clone().unwrap_or_default();
    assert!(notice.contains("RESTART"), "{notice}");
    assert!(notice.contains("heartbeat MISSING"), "{notice}");
    // The kit's own beat, signed: taken, nothing said about it.
    o.session.storage.heartbeat(o.now_ms, chrono::Utc::now());
    drop(o);
    let beat = dir.join("game-1/heartbeat");
    let signed = std::fs::read_to_string(&beat).unwrap();
    assert!(signed.contains(r#""sig":""#), "{signed}");
    let notice = open().notice.unwrap_or_default();
    assert!(!notice.contains("heartbeat MISSING"), "{notice}");
    assert!(!notice.contains("NOT AUTHENTIC"), "{notice}");
    // A beat edited to shape the gap (or a plain one written by hand): refused and shown.
    let line = signed.lines().nth(1).unwrap();
    let v: serde_json::Value = serde_json::from_str(line.trim_end()).unwrap();
    let later = v["mono_ms"].as_u64().unwrap() + 5_000;
    let anchor = signed.lines().next().unwrap();
    let edited = line.replace(
        &format!("\"mono_ms\":{},", v["mono_ms"]),
        &format!("\"mono_ms\":{later},"),
    );
    std::fs::write(&beat, format!("{anchor}\n{edited}\n")).unwrap();
    let notice = open().notice.unwrap_or_default();
    assert!(notice.contains("heartbeat NOT AUTHENTIC"), "{notice}");
    std::fs::write(
        &beat,
        "{\"mono_ms\":99999999,\"utc\":\"2099-01-01T00:00:00.000Z\"}\n",
    )
    .unwrap();
    let notice = open().notice.unwrap_or_default();
    assert!(notice.contains("heartbeat NOT AUTHENTIC"), "{notice}");
}

/// A copy of the match folder `m` as `name` beside it (`cp -a`: modes and times kept).
fn copy_of(m: &Path, name: &str) -> PathBuf {
    let to = m.with_file_name(name);
    let ok = Command::new("cp")
        .arg("-a")
        .arg(m)
        .arg(&to)
        .status()
        .unwrap()
        .success();
    assert!(ok, "cp -a");
    to
}

/// Every game folder removed, the index (and the countersigned copies) left: the match had a
/// game the camps signed for, so it is ROLLED_BACK naming it, not "no game folders" (3).
#[test]
fn witness_index_kept_but_every_game_deleted_is_rolled_back() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    std::fs::remove_dir_all(m.join("game-1")).unwrap();
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 26, "{out}");
    assert!(
        out.contains("records game 1") && out.contains("its folder is missing"),
        "{out}"
    );
    // Only the countersigned copies left: the same.
    std::fs::remove_file(m.join("index.txt")).unwrap();
    std::fs::remove_file(m.join("index.txt.sig")).unwrap();
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 26, "{out}");
}

/// A hostile folder cannot steer the verifier: a symbolic link anywhere in a match folder (here
/// in place of files and folders whose content is genuine, so following it would verify) is
/// refused by name, and the verdict is never OK. The log, a game's folder or its checkpoints
/// folder as a link: the game is not read at all.
#[test]
fn witness_symlinks_anywhere_in_the_folder_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    let cases = [
        "index.txt.sig",
        "index/4.txt.cosig-junior",
        "index",
        "allowed_signers",
        "game-1",
        "game-1/checkpoints",
        "game-1/checkpoints/14.txt.cosig-kasparov",
        "game-1/checkpoints/14.note",
    ];
    for (i, rel) in cases.iter().enumerate() {
        let c = copy_of(&m, &format!("case-{i}"));
        let target = c.join(rel);
        assert!(
            std::fs::symlink_metadata(&target).is_ok(),
            "{rel} is in the honest folder"
        );
        let moved = tmp.path().join(format!("moved-{i}"));
        std::fs::rename(&target, &moved).unwrap();
        std::os::unix::fs::symlink(&moved, &target).unwrap();
        let (code, out) = verify(&c, &["--trust", pinned.to_str().unwrap()]);
        assert_ne!(code, 0, "{rel}: {out}");
        assert!(
            out.contains(&format!(
                "SYMLINK REFUSED: {} is a symbolic link (to {})",
                target.display(),
                moved.display()
            )),
            "{rel}: {out}"
        );
    }
    // The arbiter's key is his to keep where he likes: keys/ is not the record.
    let c = copy_of(&m, "keys-linked");
    let moved = tmp.path().join("arbiter.pub.kept");
    std::fs::rename(c.join("keys/arbiter.pub"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, c.join("keys/arbiter.pub")).unwrap();
    let (code, out) = verify(&c, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
}

/// One endless line (a sparse 3 GiB `log.jsonl` after the real entries, no newline) is read no
/// further than the 16 MiB a line may hold: `verify` answers BAD LINE (20) naming it, under an
/// address-space limit of 1 GiB (main read the whole file into memory).
#[test]
fn witness_endless_log_line_is_read_no_further() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(log(&m))
        .unwrap();
    f.set_len(3 << 30).unwrap();
    drop(f);
    let o = Command::new("prlimit")
        .arg(format!("--as={}", 1u64 << 30))
        .arg(env!("CARGO_BIN_EXE_arbiter"))
        .args(["verify", "--match", m.to_str().unwrap(), "--trust"])
        .arg(&pinned)
        .output()
        .unwrap();
    let out = text(&o);
    assert_eq!(o.status.code(), Some(20), "{out}");
    assert!(
        out.contains("longer than the 16777216 bytes a log line may hold")
            && out.contains("nothing after it is read"),
        "{out}"
    );
}

/// Game 2 of the countersigned match, declaring camp kasparov with a key of the arbiter's own
/// (proven with it) as a kit that does not refuse it would (the match's earlier camps not given to
/// the game): played to a result and signed. Returns the rogue key's public file.
fn game2_with_rogue_camp(tmp: &Path, m: &Path) -> PathBuf {
    use arbiter::core::command::parse;
    let rogue_dir = tmp.join("rogue");
    std::fs::create_dir_all(&rogue_dir).unwrap();
    let (rogue, kasparov) = crate::witness::proven_camp(&rogue_dir, m, "kasparov");
    // Junior's camp keeps its own key (its proof from game 1).
    let junior = format!(
        "arbiter declare camp junior proof {}",
        tmp.join("junior.proof").display()
    );
    let key = arbiter::record::sign::KeySource::default();
    let rules = Path::new("rules/kasparov-deep-junior-2003.toml");
    let mut o =
        arbiter::board::matchdir::open_game_with(m, Some(2), Some(rules), &key, false).unwrap();
    o.session.game = o.session.game.clone().with_match_camps(Vec::new());
    let lines = [
        "arbiter declare white machine Deep Junior".to_string(),
        "arbiter declare black human Garry Kasparov".into(),
        "arbiter declare operator Amir Ban".into(),
        kasparov.trim_start_matches('0').trim().into(),
        junior,
        "arbiter start".into(),
        "move e4".into(),
        "human resign".into(),
    ];
    for (i, l) in lines.iter().enumerate() {
        o.session
            .execute(&parse(l).unwrap(), 1_000 * i as u64)
            .unwrap_or_else(|e| panic!("{l}: {e:?}"));
    }
    // With the arbiter's key, as a script authorizes what it recorded.
    let last = o.session.storage.len() as u64 - 1;
    let auth = arbiter::core::command::Command::Authorize {
        by: "the arbiter's signing key".into(),
        words: "game 2".into(),
        first: 0,
        last,
    };
    o.session.execute(&auth, 8_000).unwrap();
    o.session
        .storage
        .checkpoint_now(chrono::Utc::now())
        .unwrap();
    rogue.with_extension("pub")
}

/// A camp's key is the match's from its first declaration: a later game declaring another key
/// for the camp (one the arbiter holds, with its own proof) is refused by the kit, naming both
/// keys, and nothing of that game is written.
#[test]
fn witness_camp_key_changed_in_a_later_game_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, _) = countersigned(tmp.path());
    let rogue_dir = tmp.path().join("rogue");
    std::fs::create_dir_all(&rogue_dir).unwrap();
    let (_, rogue) = crate::witness::proven_camp(&rogue_dir, &m, "kasparov");
    let script = tmp.path().join("g2.arb");
    std::fs::write(
        &script,
        format!(
            "0 arbiter declare white machine Deep Junior\n0 arbiter declare black human Garry Kasparov\n0 arbiter declare operator Amir Ban\n{rogue}0 arbiter start\n"
        ),
    )
    .unwrap();
    let o = arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        m.to_str().unwrap(),
    ]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("camp kasparov is bound to key SHA256:")
            && out.contains("since game 1 of this match"),
        "{out}"
    );
    assert!(!m.join("game-2/log.jsonl").exists());
}

/// The same change in a line 0 the kit did not refuse (an older kit, a rewrite): `verify` fails
/// the game as a bad binding (25) naming the camp, both keys and games; the committee that
/// agreed to a change pins both keys with --camps.
#[test]
fn witness_camp_key_changed_in_a_later_game_fails_verify() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    let rogue = game2_with_rogue_camp(tmp.path(), &m);
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 25, "{out}");
    assert!(
        out.contains("CAMP KEY CHANGED: line 0 of game 2 declares camp kasparov with")
            && out.contains("but game 1 declared it with"),
        "{out}"
    );
    let pub_line = |p: &Path| {
        let t = std::fs::read_to_string(p).unwrap();
        t.split_whitespace().take(2).collect::<Vec<_>>().join(" ")
    };
    let camps = tmp.path().join("camps");
    std::fs::write(
        &camps,
        format!(
            "kasparov {}\nkasparov {}\njunior {}\n",
            pub_line(&tmp.path().join("kasparov-key.pub")),
            pub_line(&rogue),
            pub_line(&tmp.path().join("junior-key.pub")),
        ),
    )
    .unwrap();
    let (code, out) = verify(
        &m,
        &[
            "--trust",
            pinned.to_str().unwrap(),
            "--camps",
            camps.to_str().unwrap(),
        ],
    );
    assert!(!out.contains("CAMP KEY"), "{out}");
    // Left: game 2's result, not countersigned by the camps.
    assert_eq!(code, 12, "{out}");
    assert!(!out.contains("camp junior with"), "{out}");
}

/// The index is written before the checkpoint it records: when the index cannot be written (here
/// a folder in the way of `index.txt.next`, as a crash between the two steps would leave it) the
/// checkpoint is not signed either, so the folder never holds a checkpoint the index lags behind —
/// what an older index put back looks like. On main the checkpoint came first and such a failure
/// (or a `kill -9` between the two: 5 of 24 runs) read as ROLLED_BACK (26).
#[test]
fn witness_interrupted_index_write_is_never_read_as_rollback() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    std::fs::create_dir(m.join("index.txt.next")).unwrap();
    let script = tmp.path().join("g2.arb");
    std::fs::write(
        &script,
        format!(
            "0 arbiter declare white machine Deep Junior\n0 arbiter declare black human Garry Kasparov\n0 arbiter declare operator Amir Ban\n0 arbiter declare camp kasparov proof {}\n0 arbiter declare camp junior proof {}\n0 arbiter start\n0:00:05 move e4\n0:00:10 arbiter correct 6d clock human +600 slow to press\n",
            tmp.path().join("kasparov.proof").display(),
            tmp.path().join("junior.proof").display()
        ),
    )
    .unwrap();
    let o = arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        m.to_str().unwrap(),
    ]);
    assert!(text(&o).contains("checkpoint not signed"), "{}", text(&o));
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_ne!(code, 26, "{out}");
    assert!(!out.contains("ROLLBACK"), "{out}");
    assert!(
        !m.join("game-2/checkpoints").exists()
            || std::fs::read_dir(m.join("game-2/checkpoints"))
                .unwrap()
                .next()
                .is_none(),
        "no checkpoint without its index"
    );
    // The obstacle gone, the kit's next checkpoint brings both forward.
    std::fs::remove_dir(m.join("index.txt.next")).unwrap();
    let o = arbiter(&["checkpoint", "--match", m.to_str().unwrap(), "--game", "2"]);
    assert!(o.status.success(), "{}", text(&o));
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
}

/// A checkpoint's text is written last: a `kill -9` before it leaves its signed note alone (2 of
/// 24 runs), which `verify` names as a crash's leftover covering nothing, never BAD NOTE (22); a
/// lone note that the arbiter's key did not sign is still BAD NOTE.
#[test]
fn witness_note_left_by_an_interrupted_checkpoint_is_not_tampering() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    let cps = m.join("game-1/checkpoints");
    for f in listing(&cps) {
        if f == "14.txt" || f.starts_with("14.txt.cosig-") {
            std::fs::remove_file(cps.join(f)).unwrap();
        }
    }
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_ne!(code, 22, "{out}");
    assert!(!out.contains("BAD NOTE"), "{out}");
    assert!(
        out.contains("checkpoints/14.note: a leftover of a checkpoint interrupted before its text was written"),
        "{out}"
    );
    let forged = std::fs::read_to_string(cps.join("13.note"))
        .unwrap()
        .replace("\n13\n", "\n99\n");
    std::fs::write(cps.join("99.note"), forged).unwrap();
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 22, "{out}");
    assert!(out.contains("BAD NOTE checkpoints/99.note"), "{out}");
}

#[test]
fn witness_foreign_accepted_is_covered_by_the_next_signature() {
    // `foreign --accept` says "recorded, signed": verify afterwards must agree, with no
    // `checkpoint` run in between (before, it reported UNSIGNED TAIL, 10).
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    let ms = m.to_str().unwrap();
    let seq = {
        let mut j = Journal::open(&log(&m)).unwrap();
        let at = j.last().unwrap().mono_ms;
        j.append(forged(
            "note",
            "arbiter",
            serde_json::json!({"text": "x"}),
            at,
        ))
        .unwrap();
        j.len() - 1
    };
    let before = listing(&m.join("game-1/checkpoints"));
    let o = arbiter(&[
        "foreign",
        "--match",
        ms,
        "--game",
        "1",
        "--accept",
        "typed by the operator at the spare laptop",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("recorded, signed"), "{}", text(&o));
    let after = listing(&m.join("game-1/checkpoints"));
    assert_ne!(after, before, "a checkpoint is signed over the acceptance");
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert!(!out.contains("UNSIGNED TAIL"), "{out}");
    assert!(!out.contains("FOREIGN"), "{out}");
    assert!(!out.contains("UNAUTHORIZED"), "{out}");
    assert_eq!(code, 0, "{out}");
    assert!(
        std::fs::read_to_string(log(&m))
            .unwrap()
            .contains(&format!("entry #{seq} (arbiter note")),
        "the acceptance is recorded"
    );
    // Nothing foreign is left: a second run has nothing to accept and signs nothing new.
    let o = arbiter(&["foreign", "--match", ms, "--game", "1"]);
    assert!(o.status.success(), "{}", text(&o));
}

/// A countersignature of the match index that does not verify (a file put beside a kept copy by
/// anything) is not listed as "countersigned by": verify names it as bad and fails (22).
#[test]
fn witness_bad_index_countersignature_is_not_listed_as_countersigned() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    let dir = m.join("index");
    let cosig = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".cosig-junior"))
        .unwrap();
    // Junior's signature put in Kasparov's name: a valid SSHSIG, by another key.
    let forged = cosig
        .to_string_lossy()
        .replace(".cosig-junior", ".cosig-kasparov");
    std::fs::copy(&cosig, &forged).unwrap();
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 22, "{out}");
    assert!(out.contains("BAD COUNTERSIGNATURE of match index"), "{out}");
    let listed = out
        .lines()
        .find(|l| l.contains(") countersigned by "))
        .unwrap_or_default();
    assert!(!listed.contains("kasparov"), "{listed}");
}

/// A checkpoint's signed note deleted is reported by verify (22), not passed over.
#[test]
fn witness_deleted_note_is_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned) = countersigned(tmp.path());
    let note = std::fs::read_dir(m.join("game-1/checkpoints"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "note"))
        .unwrap();
    std::fs::remove_file(&note).unwrap();
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 22, "{out}");
    assert!(out.contains("NOTE MISSING"), "{out}");
}
