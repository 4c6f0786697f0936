//! Live witnesses: `arbiter live` streams the record read-only, each camp's `arbiter witness`
//! keeps its own copy and cosigns only consistent extensions of it; `verify --witness-copy`
//! holds the log against a camp's copy. Each test is named after the attack it closes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter::log::checkpoint::Checkpoint;
use arbiter::record::live::copy::{Decision, GameCopy, Taken};

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");
/// How long anything here may take before the test fails.
const DEADLINE: Duration = Duration::from_secs(20);

pub(crate) fn arbiter(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

pub(crate) fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Poll `done` until it holds or the deadline passes (then fail, saying `what`).
pub(crate) fn until(what: &str, mut done: impl FnMut() -> bool) {
    let end = Instant::now() + DEADLINE;
    while !done() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A running `arbiter` process whose output lines are collected; killed when dropped.
pub(crate) struct Proc {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Proc {
    pub(crate) fn spawn(args: &[&str]) -> Proc {
        Proc::spawn_program(BIN, args)
    }

    fn spawn_program(program: &str, args: &[&str]) -> Proc {
        Proc::spawn_env(program, args, &[])
    }

    fn spawn_env(program: &str, args: &[&str], env: &[(&str, &Path)]) -> Proc {
        let mut child = Command::new(program)
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        for out in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let sink = Arc::clone(&lines);
            std::thread::spawn(move || {
                for l in BufReader::new(out).lines() {
                    let Ok(l) = l else { break };
                    sink.lock().unwrap().push(l);
                }
            });
        }
        Proc { child, lines }
    }

    pub(crate) fn text(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }

    fn child_status(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().unwrap()
    }

    pub(crate) fn wait_for(&self, what: &str, needle: &str) {
        let end = Instant::now() + DEADLINE;
        while !self.text().contains(needle) {
            assert!(
                Instant::now() < end,
                "timed out waiting for {what}: {}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `arbiter live` on a free loopback port, and its URL.
pub(crate) fn live(m: &Path) -> (Proc, String) {
    let p = Proc::spawn(&[
        "live",
        "--match",
        m.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
    ]);
    p.wait_for("the live record to listen", "listening on ws://");
    let url = p
        .text()
        .lines()
        .find_map(|l| {
            l.strip_prefix("listening on ")
                .map(|r| r.split(' ').next().unwrap().to_owned())
        })
        .unwrap();
    assert!(
        url.starts_with("ws://127.0.0.1:") && url.ends_with("/live"),
        "{url}"
    );
    (p, url)
}

/// A camp's witness with its own key and copy.
pub(crate) fn witness(url: &str, m: &Path, camp: &str, key: &Path, copy: &Path) -> Proc {
    let p = Proc::spawn(&[
        "witness",
        "--connect",
        url,
        "--camp",
        camp,
        "--key",
        key.to_str().unwrap(),
        "--arbiter",
        m.join("keys/arbiter.pub").to_str().unwrap(),
        "--copy",
        copy.to_str().unwrap(),
    ]);
    p.wait_for("the witness to connect", "connected to");
    p
}

/// A match folder with the arbiter's key and two camps declared with their proofs: the folder,
/// the camps' key files and the declaration lines for a script.
pub(crate) fn match_with_camps(tmp: &Path) -> (PathBuf, Vec<(String, PathBuf)>, String) {
    let m = tmp.join("m");
    crate::log_util::arbiter_key_in(&m);
    let mut declared = String::new();
    let mut camps = Vec::new();
    for camp in ["kasparov", "junior"] {
        let (k, line) = crate::witness::proven_camp(tmp, &m, camp);
        declared.push_str(&line);
        camps.push((camp.to_owned(), k));
    }
    (m, camps, declared)
}

/// examples/scripts/quick.arb with the camps declared: 13 entries, checkpoints 10, 11 and 13.
fn quick(tmp: &Path, m: &Path, declared: &str) {
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    crate::log_util::script_into(m, &tmp.join("quick.arb"), &format!("{declared}{quick}"));
}

pub(crate) fn cosig(m: &Path, size: u64, camp: &str) -> PathBuf {
    m.join(format!("game-1/checkpoints/{size}.txt.cosig-{camp}"))
}

pub(crate) fn verify_copy(m: &Path, copy: &Path) -> (i32, String) {
    let o = arbiter(&[
        "verify",
        "--match",
        m.to_str().unwrap(),
        "--witness-copy",
        copy.to_str().unwrap(),
    ]);
    (o.status.code().unwrap_or(-1), text(&o))
}

pub(crate) fn lines_of(p: &Path) -> Vec<String> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A checkpoint text over `lines` signed as a note with the match's arbiter key (what an
/// attacker holding the key can make).
fn signed_note(m: &Path, origin: &str, lines: &[String]) -> (Checkpoint, String) {
    let leaves: Vec<[u8; 32]> = lines
        .iter()
        .map(|l| arbiter::log::entry_hash(l.as_bytes()))
        .collect();
    let cp = Checkpoint::new(
        origin.to_owned(),
        leaves.len() as u64,
        arbiter::log::merkle::root(&leaves),
        *leaves.last().unwrap(),
        chrono::Utc::now(),
    );
    let key = arbiter::record::sign::load_key(&m.join("keys/arbiter"), None).unwrap();
    let note = arbiter::record::sign::checkpoint_note(&key, &cp.to_text()).unwrap();
    (cp, note)
}

/// The log's lines with entries `from..` replaced by arbiter notes chained after the rest.
fn forged_tail(lines: &[String], from: usize, to: usize) -> Vec<String> {
    let mut out: Vec<String> = lines[..from].to_vec();
    for seq in from..to {
        let prev = arbiter::log::entry_hash(out.last().unwrap().as_bytes());
        let e = arbiter::log::NewEntry {
            mono_ms: 600_000,
            utc: chrono::Utc::now(),
            actor: "arbiter".into(),
            clause: "6c".into(),
            kind: "note".into(),
            body: serde_json::json!({"text": format!("forged {seq}")}),
        };
        let line = arbiter::log::encode_line(seq as u64, &prev, &e);
        out.push(String::from_utf8(line).unwrap().trim_end().to_owned());
    }
    out
}

#[test]
fn witness_live_cosigns_only_consistent_extensions() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, _, declared) = match_with_camps(tmp.path());
    quick(tmp.path(), &m, &declared);
    let log = lines_of(&m.join("game-1/log.jsonl"));
    assert_eq!(log.len(), 13);
    let arbiter_pub = arbiter::record::sign::load_public_key(&m.join("keys/arbiter.pub")).unwrap();
    let note =
        |n: u64| std::fs::read_to_string(m.join(format!("game-1/checkpoints/{n}.note"))).unwrap();
    let checked = |n: u64| {
        arbiter::record::sign::verify_checkpoint_note(note(n).as_bytes(), &arbiter_pub)
            .unwrap()
            .0
    };
    let copy = tmp.path().join("copy");
    let mut c = GameCopy::open(&copy, 1).unwrap();
    for (seq, l) in log.iter().enumerate().take(5) {
        assert_eq!(c.take(seq as u64, l).unwrap(), Taken::Appended);
    }
    // Never cosign entries not seen: checkpoint 10 waits for entries 5 to 9.
    assert_eq!(
        c.consider(&checked(10), &note(10)).unwrap(),
        Decision::NotYet
    );
    assert!(matches!(
        c.take(7, &log[7]).unwrap(),
        Taken::Gap { have: 5 }
    ));
    for (seq, l) in log.iter().enumerate() {
        let t = c.take(seq as u64, l).unwrap();
        assert!(matches!(t, Taken::Appended | Taken::Same), "{seq}: {t:?}");
    }
    for n in [10, 11] {
        assert_eq!(c.consider(&checked(n), &note(n)).unwrap(), Decision::Cosign);
        c.remember(&checked(n), &note(n), "sig").unwrap();
    }
    // Remembered across a restart of the witness: an older checkpoint is not cosigned again.
    drop(c);
    let mut c = GameCopy::open(&copy, 1).unwrap();
    assert_eq!(c.len(), 13);
    assert_eq!(c.cosigned.map(|s| s.0), Some(11));
    // The same checkpoint again (after a reconnection) gets the same cosignature, not another.
    assert_eq!(c.cosignature_of(11).as_deref(), Some("sig"));
    assert_eq!(c.cosignature_of(10), None);
    assert_eq!(
        c.consider(&checked(10), &note(10)).unwrap(),
        Decision::Older { cosigned: 11 }
    );
    // A checkpoint the arbiter's key signed over another history of the same 13 entries.
    let origin = checked(13).origin;
    let (forged, forged_note) = signed_note(&m, &origin, &forged_tail(&log, 11, 13));
    match c.consider(&forged, &forged_note).unwrap() {
        Decision::Conflict { problem, evidence } => {
            assert!(problem.contains("another history"), "{problem}");
            assert_eq!(std::fs::read_to_string(evidence).unwrap(), forged_note);
        }
        d => panic!("a conflicting checkpoint was not refused: {d:?}"),
    }
    // A game that conflicted is cosigned no more, not even its genuine checkpoint.
    assert!(matches!(
        c.consider(&checked(13), &note(13)).unwrap(),
        Decision::Refused(_)
    ));
    assert_eq!(c.cosigned.map(|s| s.0), Some(11));
    // A clean copy cosigns the genuine 13: a consistent extension of 11.
    let clean = tmp.path().join("clean");
    let mut c = GameCopy::open(&clean, 1).unwrap();
    for (seq, l) in log.iter().enumerate() {
        c.take(seq as u64, l).unwrap();
    }
    c.remember(&checked(11), &note(11), "sig").unwrap();
    assert_eq!(
        c.consider(&checked(13), &note(13)).unwrap(),
        Decision::Cosign
    );
}

#[test]
fn witness_live_refuses_a_rewritten_history() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(tmp.path());
    let (_live, url) = live(&m);
    let (camp, key) = &camps[0];
    let copy = tmp.path().join("copy");
    let w = witness(&url, &m, camp, key, &copy);
    quick(tmp.path(), &m, &declared);
    until("the camp's cosignature of checkpoint 13", || {
        cosig(&m, 13, camp).exists()
    });
    assert_eq!(crate::log_util::mode(&cosig(&m, 13, camp)), 0o600);
    // The log is cut back to 10 entries and rewritten (5 other entries), and the arbiter's key
    // signs a checkpoint over the new history.
    let log_path = m.join("game-1/log.jsonl");
    let old = lines_of(&log_path);
    let new = forged_tail(&old, 10, 15);
    std::fs::write(&log_path, new.join("\n") + "\n").unwrap();
    let origin =
        Checkpoint::parse(&std::fs::read_to_string(m.join("game-1/checkpoints/13.txt")).unwrap())
            .unwrap()
            .origin;
    let (cp, note) = signed_note(&m, &origin, &new);
    std::fs::write(m.join("game-1/checkpoints/15.txt"), cp.to_text()).unwrap();
    std::fs::write(m.join("game-1/checkpoints/15.note"), &note).unwrap();
    w.wait_for("the witness to say so", "CONFLICT");
    w.wait_for(
        "the forged checkpoint refused",
        "checkpoint 15 NOT cosigned",
    );
    assert!(!cosig(&m, 15, camp).exists(), "{}", w.text());
    assert!(
        copy.join("game-1/evidence/entry-10.jsonl").exists(),
        "the rewritten entry is kept as evidence: {}",
        w.text()
    );
    // The camp's copy still holds the history it saw.
    assert_eq!(lines_of(&copy.join("game-1/log.jsonl")), old);
    let (code, out) = verify_copy(&m, &copy);
    assert_eq!(code, 34, "{out}");
    assert!(
        out.contains("entry 10 of the log is not the one the camp's copy holds"),
        "{out}"
    );
}

#[test]
fn witness_live_copy_catches_a_forged_tail_the_arbiter_key_signed() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(tmp.path());
    let (live_p, url) = live(&m);
    let (camp, key) = &camps[1];
    let copy = tmp.path().join("copy");
    let w = witness(&url, &m, camp, key, &copy);
    quick(tmp.path(), &m, &declared);
    until("the camp's cosignature of checkpoint 13", || {
        cosig(&m, 13, camp).exists()
    });
    drop(w);
    drop(live_p);
    let (code, out) = verify_copy(&m, &copy);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("the log holds all 13 entries"), "{out}");
    // With the arbiter's key, the last two entries are replaced and checkpoint 13 signed again
    // over them (same number of entries): the log, its chain and its signed notes hold.
    let log_path = m.join("game-1/log.jsonl");
    let forged = forged_tail(&lines_of(&log_path), 11, 13);
    std::fs::write(&log_path, forged.join("\n") + "\n").unwrap();
    let origin =
        Checkpoint::parse(&std::fs::read_to_string(m.join("game-1/checkpoints/13.txt")).unwrap())
            .unwrap()
            .origin;
    let (cp, note) = signed_note(&m, &origin, &forged);
    std::fs::write(m.join("game-1/checkpoints/13.txt"), cp.to_text()).unwrap();
    std::fs::write(m.join("game-1/checkpoints/13.note"), note).unwrap();
    let (code, out) = verify_copy(&m, &copy);
    assert_eq!(code, 34, "{out}");
    assert!(
        out.contains("COPY_CONFLICT") && out.contains("entry 11 of the log is not the one"),
        "{out}"
    );
}

#[test]
fn witness_live_two_witnesses_follow_a_game_through_a_crash_and_a_reopen() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(tmp.path());
    let ms = m.to_str().unwrap();
    let (_live, url) = live(&m);
    let copies: Vec<PathBuf> = camps
        .iter()
        .map(|(c, _)| tmp.path().join(format!("copy-{c}")))
        .collect();
    let witnesses: Vec<Proc> = camps
        .iter()
        .zip(&copies)
        .map(|((c, k), copy)| witness(&url, &m, c, k, copy))
        .collect();
    // The game, written by `arbiter script`, killed with SIGKILL mid-game.
    let script = tmp.path().join("game.arb");
    std::fs::write(
        &script,
        format!(
            "{declared}{}{}",
            std::fs::read_to_string("tests/fixtures/crash.arb").unwrap(),
            // Notes after the moves, so that the writer is still writing when it is killed
            // however busy the machine is.
            (0..5_000)
                .map(|i| format!("{}.{:03} arbiter note line {i}\n", 600 + i / 1000, i % 1000))
                .collect::<String>()
        ),
    )
    .unwrap();
    let writer = Proc::spawn(&["script", script.to_str().unwrap(), "--echo", "--match", ms]);
    let acknowledged = || {
        writer
            .text()
            .lines()
            .filter(|l| l.starts_with("appended "))
            .count()
    };
    until("30 entries acknowledged", || acknowledged() >= 30);
    let mut writer = writer;
    writer.child.kill().unwrap(); // SIGKILL
    let status = writer.child.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9),
        "the writer was killed mid-game, not finished: {}",
        writer.text()
    );
    let log = m.join("game-1/log.jsonl");
    let held = std::fs::read(&log).unwrap();
    assert!(
        held.split(|b| *b == b'\n').count() > 30,
        "killed mid-game, after entry 30"
    );
    // Both witnesses saw a checkpoint written before the crash and hold it: the script
    // authorizes its arbiter-only entries at its end, which the kill never reached.
    let checkpoints = || -> Vec<u64> {
        let mut n: Vec<u64> = std::fs::read_dir(m.join("game-1/checkpoints"))
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.strip_suffix(".note")?.parse().ok())
            .collect();
        n.sort_unstable();
        n
    };
    let first = *checkpoints()
        .first()
        .expect("a checkpoint before the crash");
    for w in &witnesses {
        w.wait_for(
            "each camp's witness to hold the first checkpoint",
            &format!("checkpoint {first} held, not cosigned yet"),
        );
    }
    for (c, _) in &camps {
        assert!(!cosig(&m, first, c).exists());
    }
    // The reopen: the arbiter's routine checkpoint repairs the tail and signs what stands; an
    // entry in flight at the kill (written, durable, already seen by the witnesses) the
    // arbiter accepts with a reason (cutting it would rewrite what the camps hold).
    let mut o = arbiter(&["checkpoint", "--match", ms, "--game", "1"]);
    if !o.status.success() && text(&o).contains("arbiter foreign") {
        let a = arbiter(&[
            "foreign",
            "--match",
            ms,
            "--game",
            "1",
            "--accept",
            "in flight when the writer was killed; the camps' witnesses hold it",
        ]);
        assert!(a.status.success(), "{}", text(&a));
        o = arbiter(&["checkpoint", "--match", ms, "--game", "1"]);
    }
    assert!(o.status.success(), "{}", text(&o));
    let last = *checkpoints().last().unwrap();
    let entries = std::fs::read_to_string(&log).unwrap().lines().count() as u64;
    assert_eq!(last, entries, "the reopen signed the whole log");
    for (c, _) in &camps {
        until(
            "each camp's cosignature of the checkpoint after the reopen",
            || cosig(&m, last, c).exists(),
        );
        // The one held before the crash, once the reopen authorized what it covers.
        assert!(cosig(&m, first, c).exists(), "checkpoint {first}");
    }
    for w in &witnesses {
        assert!(!w.text().contains("ALARM"), "{}", w.text());
        // Each entry is shown to the camp as it arrives.
        assert!(
            w.text().contains("game 1 #0 arbiter game_opened (clause")
                && w.text().contains(&format!("game 1 #{} ", entries - 1)),
            "{}",
            w.text()
        );
    }
    drop(witnesses);
    let torn = std::fs::read_dir(m.join("game-1"))
        .unwrap()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().contains(".torn-"));
    for copy in &copies {
        assert_eq!(
            lines_of(&copy.join("game-1/log.jsonl")).len() as u64,
            entries,
            "the copy holds every entry"
        );
        let (code, out) = verify_copy(&m, copy);
        assert!(
            code == 0 || (torn && code == 11),
            "verify --witness-copy {}: {code}\n{out}",
            copy.display()
        );
        assert!(
            out.contains(&format!("the log holds all {entries} entries")),
            "{out}"
        );
    }
}

/// The Board UI in tmux (`name`, `width` columns) on `m` under `rules` with `decl`'s camps,
/// publishing the live record at `addr`, its clock started: the board and the deadline.
pub(crate) fn board_listening(
    name: &str,
    m: &Path,
    rules: &Path,
    decl: &Path,
    addr: &str,
    width: u16,
) -> (crate::pty::Tmux, Duration) {
    let board = crate::pty::Tmux::start(
        name,
        &[
            "play",
            "--match",
            m.to_str().unwrap(),
            "--rules",
            rules.to_str().unwrap(),
            "--declarations",
            decl.to_str().unwrap(),
            "--key",
            m.join("keys/arbiter").to_str().unwrap(),
            "--listen",
            addr,
        ],
        &crate::pty::repo_dir(),
        width,
        40,
    );
    let d = crate::pty::DEADLINE;
    board.wait_for(&format!("ws://{addr}/live"), d);
    board.wait_for("PRE-GAME", d);
    board.keys(&["Space"]);
    board.wait_for("RUNNING", d);
    (board, d)
}

/// Append an entry of `kind` by `actor` to game 1's log with `body`, chained as the kit would
/// (what anyone who can write the folder can do while the board is down); its number.
pub(crate) fn append_forged(
    m: &Path,
    actor: &str,
    clause: &str,
    kind: &str,
    body: serde_json::Value,
) -> u64 {
    let mut j = arbiter::record::journal::Journal::open(&m.join("game-1/log.jsonl")).unwrap();
    let at = j.last().unwrap().mono_ms + 1_000;
    j.append(arbiter::log::NewEntry {
        mono_ms: at,
        utc: chrono::Utc::now(),
        actor: actor.into(),
        clause: clause.into(),
        kind: kind.into(),
        body,
    })
    .unwrap();
    j.len() - 1
}

/// Sign a checkpoint over the whole of game 1's log with the arbiter's key and write it where
/// the live record finds it; its size.
fn sign_all(m: &Path) -> u64 {
    let lines = lines_of(&m.join("game-1/log.jsonl"));
    let origin =
        Checkpoint::parse(&std::fs::read_to_string(m.join("game-1/checkpoints/10.txt")).unwrap())
            .unwrap()
            .origin;
    let (cp, note) = signed_note(m, &origin, &lines);
    std::fs::write(
        m.join(format!("game-1/checkpoints/{}.txt", cp.size)),
        cp.to_text(),
    )
    .unwrap();
    std::fs::write(m.join(format!("game-1/checkpoints/{}.note", cp.size)), note).unwrap();
    cp.size
}

/// The witness replays the rules and the match policy as each entry arrives: a +10:00 clock
/// correction appended as the arbiter's without his signed authorization holds back the
/// checkpoint over it; a forged authorization, and the same correction by the operator (5b:
/// the arbiter's alone), are flagged the moment they are written, naming the entry, its clause
/// and the problem; no checkpoint over them is cosigned, even one the arbiter's key signed, and
/// the camp's copy keeps the evidence.
#[test]
fn witness_live_flags_a_forged_clock_correction_as_it_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(tmp.path());
    let (_live, url) = live(&m);
    let (camp, key) = &camps[0];
    let copy = tmp.path().join("copy");
    let w = witness(&url, &m, camp, key, &copy);
    // The policy came first, checked with the arbiter's key.
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    crate::log_util::script_into(
        &m,
        &tmp.path().join("g.arb"),
        &format!(
            "{declared}{quick}0:16:40  arbiter correct 7e clock machine +20 its clock ran on\n"
        ),
    );
    let n = lines_of(&m.join("game-1/log.jsonl")).len() as u64;
    until("the camp's cosignature of the whole game", || {
        cosig(&m, n, camp).exists()
    });
    w.wait_for("the policy", "the match policy of match");
    // The genuine correction was shown as it came, awaiting and then given its authorization.
    w.wait_for(
        "the genuine correction",
        "arbiter clock_corrected (clause 7e) {\"delta_ms\":20000",
    );
    assert!(
        w.text().contains("awaits his signed authorization")
            && w.text().contains("operator move_made (clause 6a)")
            && w.text().contains("[holds]"),
        "{}",
        w.text()
    );
    assert!(
        w.text().contains("the arbiter's signature holds]"),
        "{}",
        w.text()
    );
    assert!(!w.text().contains("ALARM"), "{}", w.text());
    let ten_minutes = |from: i64| {
        serde_json::json!({"delta_ms": 600_000, "from_ms": from, "how": "delta",
            "reason": "its clock ran on", "side": "black", "to_ms": from + 600_000})
    };
    // 1. +10:00 for the machine as the arbiter's entry, no authorization: the checkpoint the
    // arbiter's key signs over it is held, not cosigned.
    let forged = append_forged(
        &m,
        "arbiter",
        "7e",
        "clock_corrected",
        ten_minutes(6_790_000),
    );
    let size = sign_all(&m);
    w.wait_for(
        "the checkpoint held",
        &format!("checkpoint {size} held, not cosigned yet: arbiter-only entry #{forged} clock_corrected awaits"),
    );
    assert!(!w.text().contains("ALARM"), "{}", w.text());
    // 2. An authorization whose signature is not the arbiter's: flagged as it is written.
    let fp = arbiter::record::sign::fingerprint(
        &arbiter::record::sign::load_public_key(&m.join("keys/arbiter.pub")).unwrap(),
    );
    let fake = append_forged(
        &m,
        "arbiter",
        "5b",
        "authorized",
        serde_json::json!({"by": "the arbiter", "command": "correct", "first": forged,
            "last": forged, "key": fp, "sig": "AAAA"}),
    );
    w.wait_for(
        "the forged authorization flagged",
        &format!("ALARM: game 1 entry #{fake} arbiter authorized (clause 5b) refused under clause 5b: UNAUTHORIZED"),
    );
    // 3. The same +10:00 written as the operator's: refused by the actors of the profile (5b).
    let by_operator = append_forged(
        &m,
        "operator",
        "7e",
        "clock_corrected",
        ten_minutes(7_390_000),
    );
    w.wait_for(
        "the operator's correction flagged",
        &format!("ALARM: game 1 entry #{by_operator} operator clock_corrected (clause 7e) refused under clause 5b: BAD_ACTOR"),
    );
    // The arbiter's key signs over all of it: not cosigned.
    let size = sign_all(&m);
    w.wait_for(
        "the checkpoint refused",
        &format!("game 1 checkpoint {size} NOT cosigned: the arbiter's key signed it over an entry #{fake}"),
    );
    for s in n + 1..=size {
        assert!(!cosig(&m, s, camp).exists(), "{}", w.text());
    }
    // The evidence: each refused entry with its verdict, and the note signed over them.
    let kept = copy.join("game-1/evidence");
    let op =
        std::fs::read_to_string(kept.join(format!("refused-entry-{by_operator}.txt"))).unwrap();
    assert!(
        op.contains("BAD_ACTOR") && op.contains("\"actor\":\"operator\""),
        "{op}"
    );
    assert!(kept.join(format!("refused-entry-{fake}.txt")).exists());
    assert!(
        kept.join(format!("refused-checkpoint-{size}.note"))
            .exists()
    );
    let (code, out) = verify_copy(&m, &copy);
    assert_eq!(code, 34, "{out}");
    assert!(out.contains("refused entries under the rules"), "{out}");
}

/// Every file of a folder (relative paths), sorted.
pub(crate) fn files(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.push(p.strip_prefix(base).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn witness_live_refuses_anything_else_and_never_overwrites_a_countersignature() {
    use tungstenite::Message;
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(tmp.path());
    quick(tmp.path(), &m, &declared);
    let before = files(&m);
    let (_live, url) = live(&m);
    let host = url
        .strip_prefix("ws://")
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let stream = std::net::TcpStream::connect(host).unwrap();
    stream.set_read_timeout(Some(DEADLINE)).unwrap();
    let (mut ws, _) = tungstenite::client::client(url.as_str(), stream).unwrap();
    // The next frame that is not an entry or a checkpoint.
    let mut answer = |frame: String| -> serde_json::Value {
        ws.send(Message::text(frame)).unwrap();
        loop {
            let Message::Text(t) = ws.read().unwrap() else {
                continue;
            };
            let v: serde_json::Value = serde_json::from_str(t.as_str()).unwrap();
            if v["type"] != "entry" && v["type"] != "checkpoint" && v["type"] != "policy" {
                return v;
            }
        }
    };
    let (kasparov, k_key) = &camps[0];
    let (_, j_key) = &camps[1];
    let text13 = std::fs::read_to_string(m.join("game-1/checkpoints/13.txt")).unwrap();
    let sign = |key: &Path, text: &str| {
        arbiter::record::sign::countersign(
            &arbiter::record::sign::load_key(key, None).unwrap(),
            text,
        )
        .unwrap()
    };
    let cosignature = |size: u64, camp: &str, sig: &str| {
        serde_json::json!({"type": "cosignature", "game": 1, "size": size, "camp": camp, "signature": sig})
            .to_string()
    };
    let good = sign(k_key, &text13);
    // Before its hello, nothing is taken.
    let r = answer(cosignature(13, kasparov, &good));
    assert_eq!(r["type"], "refused", "{r}");
    assert!(r["reason"].as_str().unwrap().contains("no hello"), "{r}");
    let r = answer("not a frame".into());
    assert_eq!(r["type"], "refused", "{r}");
    let r = answer(
        serde_json::json!({"type": "hello", "protocol": "arbiter-kit-live/1", "camp": kasparov})
            .to_string(),
    );
    assert_eq!(r["type"], "hello", "{r}");
    // Another frame kind, or an extra member: refused.
    let r = answer(serde_json::json!({"type": "append", "line": "{}"}).to_string());
    assert_eq!(r["type"], "refused", "{r}");
    // Another camp's key signing for this camp: refused, nothing written.
    let r = answer(cosignature(13, kasparov, &sign(j_key, &text13)));
    assert_eq!(r["type"], "refused", "{r}");
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .contains("not by the declared key"),
        "{r}"
    );
    assert!(!cosig(&m, 13, kasparov).exists());
    // For another camp than the hello's: refused.
    let r = answer(cosignature(13, "junior", &sign(j_key, &text13)));
    assert_eq!(r["type"], "refused", "{r}");
    assert!(!cosig(&m, 13, "junior").exists());
    // A checkpoint that is not there: refused.
    let r = answer(cosignature(12, kasparov, &good));
    assert_eq!(r["type"], "refused", "{r}");
    // The camp's own: stored, 0600.
    let r = answer(cosignature(13, kasparov, &good));
    assert_eq!(r["type"], "cosigned", "{r}");
    assert_eq!(
        std::fs::read_to_string(cosig(&m, 13, kasparov)).unwrap(),
        good
    );
    assert_eq!(crate::log_util::mode(&cosig(&m, 13, kasparov)), 0o600);
    // Never over an existing countersignature file.
    std::fs::write(cosig(&m, 11, kasparov), "kept as it is\n").unwrap();
    let text11 = std::fs::read_to_string(m.join("game-1/checkpoints/11.txt")).unwrap();
    let r = answer(cosignature(11, kasparov, &sign(k_key, &text11)));
    assert_eq!(r["type"], "refused", "{r}");
    assert!(r["reason"].as_str().unwrap().contains("it is kept"), "{r}");
    assert_eq!(
        std::fs::read_to_string(cosig(&m, 11, kasparov)).unwrap(),
        "kept as it is\n"
    );
    // It wrote nothing else in the match folder.
    let mut expected = before;
    expected.extend([13, 11].map(|n| format!("game-1/checkpoints/{n}.txt.cosig-{kasparov}")));
    expected.sort();
    assert_eq!(files(&m), expected);
}

#[test]
fn witness_live_the_live_record_only_listens_and_only_the_witness_connects() {
    if Command::new("strace").arg("-V").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "strace is required in CI (.ci/run installs it)"
        );
        println!("SKIPPED: strace is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(tmp.path());
    let ms = m.to_str().unwrap();
    let traced = |name: &str| -> (PathBuf, Vec<String>) {
        let t = tmp.path().join(name);
        let args = ["-f", "-qq", "-e", "trace=socket,connect,bind,listen", "-o"]
            .map(str::to_owned)
            .into_iter()
            .chain([t.display().to_string(), BIN.to_owned()])
            .collect();
        (t, args)
    };
    let (live_trace, mut args) = traced("live.trace");
    args.extend(["live", "--match", ms, "--listen", "127.0.0.1:0"].map(str::to_owned));
    let args_ref: Vec<&str> = args.iter().map(String::as_str).collect();
    let live_p = Proc::spawn_program("strace", &args_ref);
    live_p.wait_for("the live record to listen", "listening on ws://");
    let url = live_p
        .text()
        .lines()
        .find_map(|l| {
            l.strip_prefix("listening on ")
                .map(|r| r.split(' ').next().unwrap().to_owned())
        })
        .unwrap();
    let (camp, key) = &camps[0];
    let (witness_trace, mut args) = traced("witness.trace");
    let copy = tmp.path().join("copy");
    args.extend(
        [
            "witness",
            "--once",
            "--connect",
            &url,
            "--camp",
            camp,
            "--key",
            key.to_str().unwrap(),
            "--arbiter",
            m.join("keys/arbiter.pub").to_str().unwrap(),
            "--copy",
            copy.to_str().unwrap(),
        ]
        .map(str::to_owned),
    );
    let args_ref: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut w = Proc::spawn_program("strace", &args_ref);
    w.wait_for("the witness to connect", "connected to");
    quick(tmp.path(), &m, &declared);
    until("the camp's cosignature of checkpoint 13", || {
        cosig(&m, 13, camp).exists()
    });
    // End the live record (the traced process, by its id): the witness (--once) ends with it.
    let calls = std::fs::read_to_string(&live_trace).unwrap();
    let pid = calls
        .lines()
        .find(|l| l.contains("bind("))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .to_owned();
    assert!(
        Command::new("kill")
            .args(["-9", &pid])
            .status()
            .unwrap()
            .success()
    );
    let end = Instant::now() + DEADLINE;
    while w.child.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < end,
            "the witness did not end: {}",
            w.text()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(live_p);
    let live_calls = std::fs::read_to_string(&live_trace).unwrap();
    let port = url
        .trim_start_matches("ws://127.0.0.1:")
        .trim_end_matches("/live");
    assert!(
        live_calls.contains("bind(") && live_calls.contains("listen("),
        "{live_calls}"
    );
    assert!(
        !live_calls.contains("connect("),
        "the live record opened a connection:\n{live_calls}"
    );
    let witness_calls = std::fs::read_to_string(&witness_trace).unwrap();
    let connects: Vec<&str> = witness_calls
        .lines()
        .filter(|l| l.contains("connect("))
        .collect();
    assert!(!connects.is_empty(), "{witness_calls}");
    for c in connects {
        assert!(
            c.contains("127.0.0.1") && c.contains(&format!("htons({port})")),
            "the witness connected elsewhere than the live record: {c}"
        );
    }
    assert!(
        !witness_calls.contains("bind(") && !witness_calls.contains("listen("),
        "the witness listens: {witness_calls}"
    );
}

/// A free loopback address (bound, then let go) for a process that must be told its port.
pub(crate) fn free_addr() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().to_string()
}

/// `arbiter play --listen ADDR` serves the live record from the board process itself: a camp's
/// witness follows the game as the board writes it, the board's status area shows each camp's
/// witness (connected, how far it cosigned, its lag in entries), and a witness that goes away
/// is a red alarm line while the game goes on.
#[test]
fn witness_live_the_board_publishes_the_record_and_shows_each_camps_witness() {
    if !crate::pty::tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(tmp.path());
    let decl = tmp.path().join("declarations.arb");
    let camp_lines: String = declared
        .lines()
        .map(|l| format!("{}\n", l.trim_start_matches('0').trim_start()))
        .collect();
    std::fs::write(
        &decl,
        format!("{}{camp_lines}", arbiter::board::tui::DEMO_DECLARATIONS),
    )
    .unwrap();
    let addr = free_addr();
    let rules = crate::pty::repo_dir().join("rules/kasparov-deep-junior-2003.toml");
    let (board, d) = board_listening("live-board", &m, &rules, &decl, &addr, 180);
    board.wait_for_all(&["kasparov not connected", "junior not connected"], d);
    let url = format!("ws://{addr}/live");
    let (camp, key) = &camps[0];
    let copy = tmp.path().join("copy");
    let w = witness(&url, &m, camp, key, &copy);
    board.wait_for("kasparov ✓ connected, nothing cosigned yet, lag", d);
    w.wait_for("line 0 shown", "game 1 #0 arbiter game_opened");
    // The witness goes away: an alarm on the screen, and the game goes on.
    drop(w);
    board.wait_for("ALARM: kasparov witness LOST", d);
    board.type_text("d");
    board.wait_for("▸", d);
    board.type_text("4");
    board.keys(&["Enter"]);
    board.wait_until(
        |s| s.contains("1. d4") && s.contains("ALARM: kasparov witness LOST"),
        "the move recorded under the alarm",
        d,
    );
}

/// A werewolf table served with its live record (`serve --record-listen`, plain lines) on a
/// fresh match in `tmp`, and a WebSocket that said hello as camp kasparov: the server and the
/// socket (reads time out after the deadline).
pub(crate) fn served_table_with_a_camp(
    tmp: &Path,
) -> (Proc, tungstenite::WebSocket<std::net::TcpStream>) {
    use tungstenite::Message;
    let m = tmp.join("m");
    crate::log_util::arbiter_key_in(&m);
    let p = Proc::spawn(&[
        "serve",
        "--match",
        m.to_str().unwrap(),
        "--rules",
        "tests/fixtures/aiwolf/test-5.toml",
        "--listen",
        "127.0.0.1:0",
        "--record-listen",
        "127.0.0.1:0",
    ]);
    p.wait_for("the live record to listen", "the live record on ws://");
    let url = p
        .text()
        .lines()
        .find_map(|l| {
            l.strip_prefix("the live record on ")
                .map(|r| r.split(' ').next().unwrap().to_owned())
        })
        .unwrap();
    let host = url
        .strip_prefix("ws://")
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    let stream = std::net::TcpStream::connect(host).unwrap();
    stream.set_read_timeout(Some(DEADLINE)).unwrap();
    let (mut ws, _) = tungstenite::client::client(url.as_str(), stream).unwrap();
    ws.send(Message::text(
        serde_json::json!({"type": "hello", "protocol": "arbiter-kit-live/1", "camp": "kasparov"})
            .to_string(),
    ))
    .unwrap();
    (p, ws)
}

/// `arbiter serve --record-listen ADDR` publishes the live record of the table's match from the
/// table server's own process: a witness's hello is answered there, beside the seats' socket.
#[test]
fn witness_live_the_table_server_publishes_the_record_beside_the_seats() {
    use tungstenite::Message;
    let tmp = tempfile::tempdir().unwrap();
    let (p, mut ws) = served_table_with_a_camp(tmp.path());
    let Message::Text(t) = ws.read().unwrap() else {
        panic!("not a text frame")
    };
    let v: serde_json::Value = serde_json::from_str(t.as_str()).unwrap();
    assert_eq!(v["type"], "hello", "{v}");
    p.wait_for(
        "the table server to say so",
        "witness of camp kasparov connected",
    );
}

/// The witness holds line 0 as `verify` does, to the match policy the live record sends (checked
/// with the arbiter's key) and to the camp's own key: a game of another match, a policy whose
/// signature does not hold, or line 0 declaring the camp with another key is refused at entry
/// #0, and nothing over it is cosigned; the genuine game holds throughout.
#[test]
fn witness_live_holds_line_0_to_the_policy_and_the_camps_own_key() {
    use arbiter::record::live::rules::{Judge, Over, Verdict, read_sent_policy};
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(tmp.path());
    quick(tmp.path(), &m, &declared);
    let lines = lines_of(&m.join("game-1/log.jsonl"));
    let arbiter_pub = arbiter::record::sign::load_public_key(&m.join("keys/arbiter.pub")).unwrap();
    let arbiter_key = arbiter::record::sign::load_key(&m.join("keys/arbiter"), None).unwrap();
    let text = std::fs::read_to_string(m.join("policy.txt")).unwrap();
    let sig = std::fs::read_to_string(m.join("policy.txt.sig")).unwrap();
    let public = |k: &Path| {
        arbiter::record::sign::load_key(k, None)
            .unwrap()
            .public_key()
            .clone()
    };
    let judged = |camp: &str, key: ssh_key::PublicKey, text: &str, sig: &str| {
        let policy = read_sent_policy(text, sig, &arbiter_pub);
        let mut j = Judge::new(1, camp, key, arbiter_pub.clone(), policy);
        let verdicts: Vec<Verdict> = lines.iter().map(|l| j.take(l.as_bytes())).collect();
        (verdicts, j.over(lines.len() as u64))
    };
    let (kasparov, k_key) = &camps[0];
    let (_, j_key) = &camps[1];
    // The genuine game: every entry holds, the arbiter's are authorized by the end.
    let (verdicts, over) = judged(kasparov, public(k_key), &text, &sig);
    assert!(
        verdicts.iter().all(|v| !matches!(v, Verdict::Refused(_))),
        "{verdicts:?}"
    );
    assert_eq!(over, Over::Holds);
    let refused_at_0 = |(verdicts, over): (Vec<Verdict>, Over), what: &str| {
        match &verdicts[0] {
            Verdict::Refused(f) => assert!(
                f.seq == 0 && f.breaks == "the match policy" && f.problem.contains(what),
                "{f}"
            ),
            v => panic!("line 0 not refused ({what}): {v:?}"),
        }
        assert!(matches!(over, Over::Refused(_)), "{over:?}");
    };
    // A policy of another match, signed with the arbiter's key: this game was brought in.
    let other = text.replacen("\nmatch ", "\nmatch another-", 1);
    let other_sig = arbiter_key
        .sign(
            arbiter::log::checkpoint::NAMESPACE,
            ssh_key::HashAlg::Sha512,
            other.as_bytes(),
        )
        .unwrap()
        .to_pem(ssh_key::LineEnding::LF)
        .unwrap();
    refused_at_0(
        judged(kasparov, public(k_key), &other, &other_sig),
        "FOREIGN_GAME",
    );
    // The policy's text changed under its signature.
    refused_at_0(
        judged(kasparov, public(k_key), &other, &sig),
        "BAD MATCH POLICY",
    );
    // A witness whose key is not the one line 0 binds for its camp.
    refused_at_0(
        judged(kasparov, public(j_key), &text, &sig),
        "CAMP KEY CHANGED",
    );
    // A camp line 0 does not declare.
    refused_at_0(
        judged("nobody", public(k_key), &text, &sig),
        "CAMPS_DROPPED",
    );
}

/// A werewolf table's entries are held to the table's rules as they come (each event's actor
/// and section as the rules give them): a recorded game holds entry by entry, and an entry
/// relabelled as another actor's is refused the moment it arrives.
#[test]
fn witness_live_holds_a_werewolf_tables_entries_to_its_rules() {
    use arbiter::record::live::rules::{Judge, Verdict};
    let lines = lines_of(Path::new("tests/fixtures/aiwolf/human-game.jsonl"));
    let tmp = tempfile::tempdir().unwrap();
    let key = arbiter::record::sign::keygen(&tmp.path().join("k"), None, "k").unwrap();
    let judge = |lines: &[String]| {
        let mut j = Judge::new(1, "nobody", key.clone(), key.clone(), None);
        lines
            .iter()
            .map(|l| j.take(l.as_bytes()))
            .collect::<Vec<Verdict>>()
    };
    // Line 0 declares no camp: refused for this witness; every later entry holds.
    let v = judge(&lines);
    assert!(matches!(&v[0], Verdict::Refused(f) if f.problem.contains("CAMPS_DROPPED")));
    assert!(v[1..].iter().all(|x| *x == Verdict::Holds), "{v:?}");
    // The fifth entry relabelled as the arbiter's: refused as it arrives.
    let mut forged = lines.clone();
    forged[4] = forged[4].replacen("\"actor\":\"kit\"", "\"actor\":\"arbiter\"", 1);
    let v = judge(&forged);
    match &v[4] {
        Verdict::Refused(f) => assert!(
            f.seq == 4 && f.problem.contains("BAD_REPLAY") && f.problem.contains("\"kit\""),
            "{f}"
        ),
        x => panic!("a relabelled entry holds: {x:?}"),
    }
}

/// `arbiter witness --agent`: the camp's key lives in an ssh-agent (or on a hardware key), never
/// in a file the witness reads. It follows the live record, asks the agent for the key the match
/// declares for its camp, and its cosignatures are the camp key's, byte for byte those of the
/// key file, and verify. With the agent gone it says so (naming `SSH_AUTH_SOCK`) and writes no
/// cosignature; an agent without the camp's declared key is named with the fingerprint wanted.
#[test]
fn witness_live_agent_cosigns_through_the_ssh_agent_without_a_key_file() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(tmp.path());
    let (kasparov, k_file) = &camps[0];
    let (junior, j_file) = &camps[1];
    let Some(agent) = crate::agent::agent_with(tmp.path(), k_file) else {
        return;
    };
    let camp_key = arbiter::record::sign::load_key(k_file, None).unwrap();
    let (_live, live_url) = live(&m);
    // The witness's machine: no key file anywhere it is told of.
    let witness_agent = |copy: &Path, camp: &str, sock: &Path| {
        Proc::spawn_env(
            BIN,
            &[
                "witness",
                "--connect",
                &live_url,
                "--camp",
                camp,
                "--agent",
                "--arbiter",
                m.join("keys/arbiter.pub").to_str().unwrap(),
                "--copy",
                copy.to_str().unwrap(),
            ],
            &[("SSH_AUTH_SOCK", sock)],
        )
    };
    let copy = tmp.path().join("copy-kasparov");
    let w = witness_agent(&copy, kasparov, &agent.sock);
    w.wait_for("the witness to connect", "connected to");
    let other = witness(
        &live_url,
        &m,
        junior,
        j_file,
        &tmp.path().join("copy-junior"),
    );
    quick(tmp.path(), &m, &declared);
    let fp = arbiter::record::sign::fingerprint(camp_key.public_key());
    w.wait_for(
        "the agent to be asked for the camp's declared key",
        &format!("camp kasparov's declared key {fp} is in the ssh-agent"),
    );
    for size in [10, 11, 13] {
        until("kasparov's cosignature through the agent", || {
            cosig(&m, size, kasparov).exists()
        });
        let text =
            std::fs::read_to_string(m.join(format!("game-1/checkpoints/{size}.txt"))).unwrap();
        assert_eq!(
            std::fs::read_to_string(cosig(&m, size, kasparov))
                .unwrap()
                .trim(),
            arbiter::record::sign::countersign(&camp_key, &text)
                .unwrap()
                .trim(),
            "checkpoint {size}: the agent's cosignature is the camp key's"
        );
    }
    until("junior's cosignature", || cosig(&m, 13, junior).exists());
    assert!(!w.text().contains("ALARM"), "{}", w.text());
    drop(other);
    let o = arbiter(&["verify", "--match", m.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let (code, out) = verify_copy(&m, &copy);
    assert_eq!(code, 0, "{out}");

    // The agent stops while the witness runs: the next game's checkpoints are not cosigned,
    // and the witness says why, naming SSH_AUTH_SOCK.
    let sock = agent.sock.clone();
    drop(agent);
    crate::log_util::script_into(
        &m,
        &tmp.path().join("game2.arb"),
        &format!(
            "{declared}{}",
            std::fs::read_to_string("examples/scripts/quick.arb").unwrap()
        ),
    );
    w.wait_for("the witness to say it cannot cosign", "cannot cosign");
    let said = w.text();
    assert!(
        said.contains("ALARM") && said.contains("SSH_AUTH_SOCK"),
        "{said}"
    );
    let game2 = |camp: &str| {
        std::fs::read_dir(m.join("game-2/checkpoints"))
            .unwrap()
            .flatten()
            .any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .ends_with(&format!("cosig-{camp}"))
            })
    };
    assert!(!game2(kasparov), "no cosignature without the agent");
    drop(w);

    // Started with no agent at all: refused at once, before connecting.
    let before = files(&m);
    let o = Command::new(BIN)
        .args([
            "witness",
            "--connect",
            &live_url,
            "--camp",
            kasparov,
            "--agent",
            "--arbiter",
            m.join("keys/arbiter.pub").to_str().unwrap(),
            "--copy",
            tmp.path().join("copy-none").to_str().unwrap(),
            "--once",
        ])
        .env("SSH_AUTH_SOCK", &sock)
        .output()
        .unwrap();
    assert!(
        !o.status.success() && text(&o).contains("SSH_AUTH_SOCK"),
        "{}",
        text(&o)
    );
    // An agent without the camp's declared key: the fingerprint wanted is named.
    let Some(wrong) = crate::agent::agent_at(&tmp.path().join("wrong.sock"), j_file) else {
        return;
    };
    let mut w = witness_agent(&tmp.path().join("copy-wrong"), kasparov, &wrong.sock);
    let end = Instant::now() + DEADLINE;
    let status = loop {
        if let Some(s) = w.child_status() {
            break s;
        }
        assert!(
            Instant::now() < end,
            "the witness did not stop: {}",
            w.text()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(!status.success());
    w.wait_for("the fingerprint wanted", &fp);
    assert!(
        w.text()
            .contains("does not hold camp kasparov's declared key"),
        "{}",
        w.text()
    );
    assert_eq!(before, files(&m), "nothing written into the match folder");
    // `--key` and `--agent` together are refused by the command line.
    let o = arbiter(&[
        "witness",
        "--connect",
        &live_url,
        "--camp",
        kasparov,
        "--agent",
        "--key",
        k_file.to_str().unwrap(),
        "--arbiter",
        "x.pub",
        "--copy",
        "c",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}
