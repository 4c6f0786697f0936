//! Crash loop (issue "The log"): `arbiter script` killed with SIGKILL at random moments, many
//! times. Every entry reported as appended must be present, the chain must verify, and the replay
//! must equal the expected state (the same script run in memory, cut at the same entry).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter::board::session::memory_session;
use arbiter::core::event::{Event, EventKind};
use arbiter::core::game::Game;
use arbiter::core::script::parse_script;
use arbiter::log::codec::events_of;
use arbiter::record::journal::Journal;

const SCRIPT: &str = "tests/fixtures/crash.arb";
const RULES: &str = "rules/kasparov-deep-junior-2003.toml";

/// The events the script produces, run in memory.
fn expected_events() -> Vec<Event> {
    let mut s = memory_session(Path::new(RULES), "crash", 1).unwrap();
    let lines = parse_script(&std::fs::read_to_string(SCRIPT).unwrap()).unwrap();
    let mut out = Vec::new();
    for l in &lines {
        out.extend(s.execute(&l.command, l.at).unwrap());
    }
    out
}

/// xorshift64*: a small deterministic generator for kill times.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

struct Run {
    reported: Vec<(u64, String)>,
    finished: bool,
}

/// Run the script; with `kill`, SIGKILL it once `k` entries were acknowledged and a further
/// `extra` microseconds passed (so kills land before, during and after appends).
fn run_and_kill(dir: &Path, kill: Option<(usize, u64)>) -> Run {
    crate::log_util::arbiter_key_in(dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["script", SCRIPT, "--rules", RULES, "--echo", "--match"])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let mut w = line.split_whitespace();
            if w.next() == Some("appended") {
                let seq: u64 = w.next().unwrap().parse().unwrap();
                sink.lock()
                    .unwrap()
                    .push((seq, w.next().unwrap().to_string()));
            }
        }
    });
    let mut finished = false;
    match kill {
        Some((k, extra)) => {
            let limit = Instant::now() + Duration::from_secs(60);
            while seen.lock().unwrap().len() < k && Instant::now() < limit {
                if child.try_wait().unwrap().is_some() {
                    finished = true;
                    break;
                }
                std::thread::sleep(Duration::from_micros(100));
            }
            if !finished {
                std::thread::sleep(Duration::from_micros(extra));
                finished = child.try_wait().unwrap().is_some();
                if !finished {
                    child.kill().unwrap(); // SIGKILL
                }
            }
            child.wait().unwrap();
        }
        None => {
            assert!(child.wait().unwrap().success());
            finished = true;
        }
    }
    reader.join().unwrap();
    let reported = seen.lock().unwrap().clone();
    Run { reported, finished }
}

#[test]
fn crash_loop_sigkill_never_loses_an_acknowledged_entry() {
    let expected = expected_events();
    let runs: u64 = std::env::var("ARBITER_CRASH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let base = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    let full = run_and_kill(&base.path().join("full"), None);
    let span = t0.elapsed();
    // A full run also ends with the script's `authorized` entry (5b).
    assert_eq!(
        full.reported.len(),
        expected.len() + 1,
        "a full run appends every expected event"
    );
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut killed_mid, mut torn) = (0, 0);
    for i in 0..runs {
        let dir = base.path().join(format!("m{i}"));
        let k = (rng.next() % expected.len() as u64) as usize;
        let extra = rng.next() % 3000;
        let run = run_and_kill(&dir, Some((k, extra)));
        let log = dir.join("game-1").join("log.jsonl");
        if !log.exists() {
            assert!(
                run.reported.is_empty(),
                "run {i}: entries reported but no log"
            );
            continue;
        }
        let j = match Journal::open(&log) {
            Ok(j) => j,
            // killed between creating the file and finishing line 0: nothing was reported
            Err(arbiter::record::journal::JournalError::NoFirstEntry { .. }) => {
                assert!(
                    run.reported.is_empty(),
                    "run {i}: line 0 reported but not readable"
                );
                continue;
            }
            Err(e) => panic!("run {i}: {e}"),
        };
        assert!(j.damage().is_none(), "run {i}: damage {:?}", j.damage());
        if j.recovery().is_some() {
            torn += 1;
        }
        let entries: Vec<_> = j
            .entries()
            .iter()
            .filter(|e| e.kind != "recovery")
            .cloned()
            .collect();
        for (seq, hash) in &run.reported {
            let e = entries
                .get(*seq as usize)
                .unwrap_or_else(|| panic!("run {i}: acknowledged entry {seq} missing"));
            assert_eq!(
                &arbiter::log::hex32(&e.hash),
                hash,
                "run {i}: entry {seq} differs"
            );
        }
        // the chain links every entry to the previous one
        for w in j.entries().windows(2) {
            assert_eq!(
                w[1].prev,
                arbiter::log::hex32(&w[0].hash),
                "run {i}: chain broken at {}",
                w[1].seq
            );
        }
        let mut events = events_of(&entries).unwrap();
        // A script that ran to its end names itself in a last `authorized` entry (5b).
        if events.len() > expected.len() {
            assert_eq!(events.len(), expected.len() + 1, "run {i}");
            assert!(
                matches!(
                    events.last().map(|e| &e.kind),
                    Some(EventKind::Authorized { .. })
                ),
                "run {i}: {:?}",
                events.last()
            );
            events.pop();
        }
        assert!(matches!(events[0].kind, EventKind::GameOpened(_)));
        assert_eq!(
            events[1..],
            expected[1..events.len()],
            "run {i}: the log is not a prefix of the expected events"
        );
        let live = Game::replay(events.iter()).unwrap();
        let want =
            Game::replay(std::iter::once(&events[0]).chain(expected[1..events.len()].iter()))
                .unwrap();
        assert_eq!(
            live.view(live.last_at(), usize::MAX),
            want.view(want.last_at(), usize::MAX),
            "run {i}: replay differs"
        );
        if !run.finished && entries.len() < expected.len() {
            killed_mid += 1;
        }
    }
    println!(
        "crash loop: {runs} runs, {killed_mid} killed mid-game, {torn} torn tails repaired, full run {span:?}"
    );
    assert!(
        killed_mid * 2 >= runs,
        "most runs should be killed mid-game ({killed_mid}/{runs})"
    );
}

/// Two scripts started at once on a new match race for game 1. Exactly one creates it;
/// the other ends with 70 and "another board or script opened this game first", having written
/// nothing — never a missing file (74) or a refusal of its declarations (1). Ten pairs, with
/// `--game 1` and without.
#[test]
fn crash_concurrent_scripts_on_a_new_match_give_70() {
    let tmp = tempfile::tempdir().unwrap();
    for pair in 0..10 {
        let m = tmp.path().join(format!("m{pair}"));
        crate::log_util::arbiter_key_in(&m);
        let spawn = || {
            Command::new(env!("CARGO_BIN_EXE_arbiter"))
                .args([
                    "script",
                    "examples/scripts/quick.arb",
                    "--game",
                    "1",
                    "--match",
                ])
                .arg(&m)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn(), spawn());
        let runs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
        let mut codes: Vec<Option<i32>> = runs.iter().map(|o| o.status.code()).collect();
        codes.sort();
        let errs: Vec<String> = runs
            .iter()
            .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
            .collect();
        assert_eq!(codes, [Some(0), Some(70)], "pair {pair}: {errs:?}");
        let loser = runs
            .iter()
            .position(|o| o.status.code() == Some(70))
            .unwrap();
        assert!(
            errs[loser].contains("another board or script opened this game first"),
            "pair {pair}: {}",
            errs[loser]
        );
        // The winner's game is whole: it verifies, and no leftover creation file remains.
        let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["verify", "--match"])
            .arg(&m)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "pair {pair}: {o:?}");
        let leftovers: Vec<_> = std::fs::read_dir(m.join("game-1"))
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains(".new-"))
            .collect();
        assert!(leftovers.is_empty(), "pair {pair}: {leftovers:?}");
    }
}

/// Every crash corner has a way back: a last entry no checkpoint signs, complete and
/// chained, that decodes but names an impossible move (`d6t5`: a flipped byte) or a move the
/// position refuses, used to wedge the game (every open failed with 65). Opening the game now
/// cuts it into a side file like a torn tail, records a `recovery` entry with its digest and
/// why, and opens the game without it; the side file holds the line's bytes.
#[test]
fn crash_unappliable_last_unsigned_line_is_cut_to_a_side_file() {
    for (case, uci) in [("impossible move", "d6t5"), ("illegal move", "a1a8")] {
        let tmp = tempfile::tempdir().unwrap();
        let m = crate::hostile::rehearsal(tmp.path());
        let log = m.join("game-1/log.jsonl");
        let mut j = Journal::open(&log).unwrap();
        let entries = j.entries();
        let template = entries
            .iter()
            .rev()
            .find(|e| e.kind == "move_made" && e.body["side"] == "white")
            .unwrap()
            .clone();
        let mut body = template.body.clone();
        body["uci"] = serde_json::json!(uci);
        let last = entries.last().unwrap();
        let bad = j
            .append(arbiter::log::NewEntry {
                mono_ms: last.mono_ms + 5000,
                utc: chrono::Utc::now(),
                actor: template.actor.clone(),
                clause: template.clause.clone(),
                kind: "move_made".into(),
                body,
            })
            .unwrap()
            .clone();
        drop(j);
        let bad_line = std::fs::read(&log).unwrap()[bad.offset as usize..].to_vec();
        // A read-only command still refuses it (nothing is repaired by reading).
        let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["status", "--match"])
            .arg(&m)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(65), "{case}: {o:?}");
        // Opening the game for play cuts it.
        let key = arbiter::record::sign::KeySource {
            file: Some(m.join("keys/arbiter")),
            passphrase_env: None,
            agent: false,
        };
        let opened = arbiter::board::matchdir::open_game_with(
            &m,
            Some(1),
            Some(Path::new(RULES)),
            &key,
            false,
        )
        .unwrap_or_else(|e| panic!("{case}: {e}"));
        assert!(
            opened
                .notice
                .as_deref()
                .unwrap_or_default()
                .contains("recovered"),
            "{case}: {:?}",
            opened.notice
        );
        assert_eq!(opened.session.storage.len() as u64, bad.seq + 1, "{case}");
        drop(opened);
        let side = m.join(format!("game-1/log.jsonl.torn-{}", bad.offset));
        assert_eq!(std::fs::read(&side).unwrap(), bad_line, "{case}");
        let after = Journal::open(&log).unwrap().entries();
        let rec = after.last().unwrap();
        assert_eq!(rec.kind, "recovery", "{case}");
        assert_eq!(
            rec.seq, bad.seq,
            "{case}: the recovery takes the cut entry's place"
        );
        assert!(
            rec.body["reason"].as_str().unwrap().contains("move"),
            "{case}: {rec:?}"
        );
        // The game opens, shows and verifies as recovered once signed.
        let st = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["checkpoint", "--match"])
            .arg(&m)
            .output()
            .unwrap();
        assert_eq!(st.status.code(), Some(0), "{case}: {st:?}");
        let v = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["verify", "--match"])
            .arg(&m)
            .output()
            .unwrap();
        assert_eq!(v.status.code(), Some(11), "{case}: {v:?}");
        let st = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["status", "--match"])
            .arg(&m)
            .output()
            .unwrap();
        assert_eq!(st.status.code(), Some(0), "{case}: {st:?}");
    }
}

/// A `script` killed with SIGKILL after its last line and before its closing authorization
/// (5b) leaves this on disk: every entry appended, no `authorized` entry. Made here
/// deterministically with the kit's own session. With `per_act`, each arbiter act is followed by
/// its signed authorization, as the Board UI records them.
fn crashed_session_match(m: &Path, per_act: bool) -> arbiter::record::sign::KeySource {
    crate::log_util::arbiter_key_in(m);
    let key = arbiter::record::sign::KeySource {
        file: Some(m.join("keys/arbiter")),
        passphrase_env: None,
        agent: false,
    };
    let lines =
        parse_script(&std::fs::read_to_string("examples/scripts/quick.arb").unwrap()).unwrap();
    let mut o =
        arbiter::board::matchdir::open_game_with(m, Some(1), Some(Path::new(RULES)), &key, false)
            .unwrap();
    for l in &lines {
        let before = o.session.storage.len();
        o.session.execute(&l.command, l.at).unwrap();
        let after = o.session.storage.len();
        if per_act && l.command.role() == arbiter::core::command::Role::Arbiter && after > before {
            let auth = arbiter::core::command::Command::Authorize {
                by: "passphrase".into(),
                words: "act".into(),
                first: before as u64,
                last: after as u64 - 1,
            };
            o.session.execute(&auth, l.at).unwrap();
        }
    }
    drop(o);
    let j = Journal::open(&m.join("game-1/log.jsonl")).unwrap();
    assert!(
        j.entries().iter().any(|e| e.actor == "arbiter"),
        "the session recorded arbiter-only entries"
    );
    assert_eq!(
        j.entries().iter().any(|e| e.kind == "authorized"),
        per_act,
        "a script authorizes at its end, the board after each act"
    );
    assert!(
        !m.join("game-1/seal").exists(),
        "signed-acts/1 writes no seal"
    );
    key
}

fn crashed_script_match(m: &Path) -> arbiter::record::sign::KeySource {
    crashed_session_match(m, false)
}

/// What a kill leaves at the board: its acts authorized as recorded, then one arbiter note
/// appended and fdatasynced, its authorization never written (the passphrase was not typed):
/// the entry in flight. The key and that entry's number.
fn arbiter_entry_in_flight(m: &Path) -> (arbiter::record::sign::KeySource, u64) {
    let key = crashed_session_match(m, true);
    let log = m.join("game-1/log.jsonl");
    let mut j = Journal::open(&log).unwrap();
    let at = j.last().unwrap().mono_ms;
    j.append(arbiter::log::NewEntry {
        mono_ms: at,
        utc: chrono::Utc::now(),
        actor: "arbiter".into(),
        clause: "1".into(),
        kind: "note".into(),
        body: serde_json::json!({"text": "typed just before the power cut"}),
    })
    .unwrap();
    (key, j.len() - 1)
}

fn cli(args: &[&str], m: &Path) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .arg("--match")
        .arg(m)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

/// A script killed before its closing authorization: the kit never authorizes what a crashed
/// session recorded (nothing tells it from entries appended by anything else). `checkpoint`
/// refuses, naming the entries, and writes nothing, however often; the reopen for play refuses,
/// saying they stand UNAUTHORIZED; the arbiter accepts them with a reason (`foreign --accept`,
/// recorded and signed) and the game verifies 0.
#[test]
fn witness_crashed_script_entries_are_never_authorized_by_the_kit_the_arbiter_accepts_them() {
    let base = tempfile::tempdir().unwrap();
    let m = base.path().join("a");
    let key = crashed_script_match(&m);
    let log = m.join("game-1/log.jsonl");
    let bytes = std::fs::read(&log).unwrap();
    for _ in 0..2 {
        let (code, out) = cli(&["checkpoint", "--game", "1"], &m);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("#1 arbiter clock_started"), "{out}");
        assert_eq!(std::fs::read(&log).unwrap(), bytes, "nothing recorded");
    }
    let refused =
        arbiter::board::matchdir::open_game_with(&m, Some(1), Some(Path::new(RULES)), &key, false)
            .err()
            .expect("the reopen for play refuses");
    let said = refused.to_string();
    assert!(
        said.contains("UNAUTHORIZED") && said.contains("#1 arbiter clock_started"),
        "{said}"
    );
    assert_eq!(
        std::fs::read(&log).unwrap(),
        bytes,
        "the reopen authorizes nothing"
    );
    let (code, out) = cli(&["verify"], &m);
    assert_ne!(code, 0, "{out}");
    let (code, out) = cli(
        &[
            "foreign",
            "--game",
            "1",
            "--accept",
            "the script ran as the arbiter wrote it",
        ],
        &m,
    );
    assert_eq!(code, 0, "{out}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("the script ran as the arbiter wrote it"));
    let (code, out) = cli(&["checkpoint", "--game", "1"], &m);
    assert_eq!(code, 0, "{out}");
    let (code, out) = cli(&["verify"], &m);
    assert_eq!(code, 0, "{out}");
}

/// The arbiter-only entry in flight at a crash — written by the board, killed before its
/// passphrase — cannot be told from an entry appended by anything else: no routine command
/// authorizes it. `checkpoint` and the reopen for play refuse, naming it as UNAUTHORIZED, and
/// write nothing; `verify` does not pass it.
#[test]
fn witness_arbiter_entry_in_flight_at_a_crash_is_named_and_nothing_signs_past_it() {
    let base = tempfile::tempdir().unwrap();
    let named = |seq: u64| format!("#{seq} arbiter note");
    let m = base.path().join("a");
    let (key, seq) = arbiter_entry_in_flight(&m);
    let log = m.join("game-1/log.jsonl");
    let before = std::fs::read(&log).unwrap();
    for _ in 0..2 {
        let (code, out) = cli(&["checkpoint", "--game", "1"], &m);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains(&named(seq)), "{out}");
        assert_eq!(std::fs::read(&log).unwrap(), before, "nothing recorded");
    }
    let refused =
        arbiter::board::matchdir::open_game_with(&m, Some(1), Some(Path::new(RULES)), &key, false)
            .err()
            .expect("the reopen for play refuses");
    let said = refused.to_string();
    assert!(
        said.contains("UNAUTHORIZED") && said.contains(&named(seq)),
        "{said}"
    );
    assert_eq!(std::fs::read(&log).unwrap(), before, "nothing recorded");
    let (code, out) = cli(&["verify"], &m);
    assert_ne!(code, 0, "{out}");
}

/// The arbiter rules on the entry in flight at a crash. `arbiter authorize` covers that entry
/// with one signed authorization, the reason recorded, and signs a checkpoint: verify 0. Every
/// other request is refused with nothing written: an entry already authorized, line 0, one
/// that does not exist, no reason.
#[test]
fn the_arbiter_rules_on_the_entry_in_flight_at_a_crash_with_arbiter_authorize() {
    let base = tempfile::tempdir().unwrap();
    let m = base.path().join("a");
    let (_, seq) = arbiter_entry_in_flight(&m);
    let log = m.join("game-1/log.jsonl");
    let s = seq.to_string();
    let reason = "checked against the arbiter's sheet: typed by the arbiter at 15:02";
    let unchanged = |args: &[&str], want: i32, says: &str| {
        let before = std::fs::read(&log).unwrap();
        let (code, out) = cli(args, &m);
        assert_eq!(code, want, "{args:?}: {out}");
        assert!(out.contains(says), "{args:?}: {out}");
        assert_eq!(
            std::fs::read(&log).unwrap(),
            before,
            "{args:?} wrote to the log"
        );
    };
    unchanged(
        &["checkpoint", "--game", "1"],
        1,
        &format!("#{seq} arbiter note"),
    );
    for (entry, says) in [
        ("1", "does not stand UNAUTHORIZED"),
        ("0", "does not stand UNAUTHORIZED"),
        ("99999", "there is no entry #99999"),
    ] {
        unchanged(
            &[
                "authorize",
                "--game",
                "1",
                "--entry",
                entry,
                "--reason",
                reason,
            ],
            1,
            says,
        );
    }
    unchanged(
        &["authorize", "--game", "1", "--entry", &s, "--reason", "  "],
        65,
        "reason",
    );
    let (code, out) = cli(
        &[
            "authorize",
            "--game",
            "1",
            "--entry",
            &s,
            "--reason",
            reason,
        ],
        &m,
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(&format!("entry #{seq} (note)")), "{out}");
    assert!(out.contains("checkpoint signed"), "{out}");
    let text = std::fs::read_to_string(&log).unwrap();
    let auth: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(auth["kind"], "authorized", "{auth}");
    assert_eq!(auth["body"]["first"], seq, "that entry alone: {auth}");
    assert_eq!(auth["body"]["last"], seq, "{auth}");
    assert!(
        auth["body"]["command"].as_str().unwrap().contains(reason),
        "{auth}"
    );
    let (code, out) = cli(&["verify"], &m);
    assert_eq!(code, 0, "{out}");
    // Ruled once: a second ruling finds nothing to rule on.
    unchanged(
        &[
            "authorize",
            "--game",
            "1",
            "--entry",
            &s,
            "--reason",
            reason,
        ],
        1,
        "does not stand UNAUTHORIZED",
    );
}

/// A PID no process has: a child spawned and reaped (its PID is free until reused; the tests
/// check the kit's verdict right away).
fn dead_pid() -> u32 {
    let mut c = Command::new("true").spawn().unwrap();
    let pid = c.id();
    c.wait().unwrap();
    pid
}

/// What a kill -9 during the creation of game 1 leaves: `game-1/log.jsonl.new-PID` (line 0 half
/// written), no `log.jsonl`.
fn creation_leftover(m: &Path) -> String {
    let name = format!("log.jsonl.new-{}", dead_pid());
    std::fs::create_dir_all(m.join("game-1")).unwrap();
    std::fs::write(m.join("game-1").join(&name), b"{\"seq\":0,\"ki").unwrap();
    name
}

#[test]
fn crash_during_creation_is_not_a_damaged_game() {
    let base = tempfile::tempdir().unwrap();
    let m = base.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let name = creation_leftover(&m);
    let never = format!(
        "game 1 was never created: a crash during its creation left game-1/{name} (nothing was recorded)"
    );
    // verify: not UNREADABLE, it says what happened.
    let (code, out) = cli(&["verify"], &m);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(&never), "{out}");
    // checkpoint / status / pgn / report name game 1 and say it was never created (before:
    // "no game 1 in … (its games: 1)").
    for args in [
        &["checkpoint", "--game", "1"][..],
        &["status", "--game", "1"][..],
        &["pgn", "--game", "1"][..],
    ] {
        let (code, out) = cli(args, &m);
        assert_ne!(code, 0, "{args:?}: {out}");
        assert!(out.contains(&never), "{args:?}: {out}");
        assert!(out.contains("it has no games"), "{args:?}: {out}");
    }
    let (code, out) = cli(&["status"], &m);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains(&never), "{out}");
    // The writer creates game 1 as today, removing the leftover.
    let st = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["script", "examples/scripts/quick.arb", "--rules", RULES])
        .arg("--match")
        .arg(&m)
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(0), "{st:?}");
    assert!(m.join("game-1/log.jsonl").exists());
    assert!(!m.join("game-1").join(&name).exists());
    let (code, out) = cli(&["verify"], &m);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("never created"), "{out}");
}

#[test]
fn crash_during_creation_of_an_indexed_game_fails_verify() {
    let base = tempfile::tempdir().unwrap();
    let m = base.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let st = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["script", "examples/scripts/quick.arb", "--rules", RULES])
        .arg("--match")
        .arg(&m)
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(0), "{st:?}");
    let (code, out) = cli(&["checkpoint", "--game", "1"], &m);
    assert_eq!(code, 0, "{out}");
    assert!(
        m.join("index.txt").exists(),
        "the checkpoint signs the index"
    );
    // The game's folder is replaced by what a crashed creation leaves: the signed index still
    // names game 1, so this is a lost game, not a game never created.
    std::fs::remove_dir_all(m.join("game-1")).unwrap();
    let name = creation_leftover(&m);
    let (code, out) = cli(&["verify"], &m);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("ROLLBACK"), "{out}");
    assert!(out.contains(&name), "{out}");
    // `verify --game 1` says what whole-match verify says, with its exit code.
    let (game_code, game_out) = cli(&["verify", "--game", "1"], &m);
    assert_eq!(game_code, code, "{game_out}");
    assert_eq!(code, 26, "{out}");
    assert!(
        game_out.contains("ROLLBACK") && game_out.contains(&name),
        "{game_out}"
    );
}

/// `verify --json` carries the "never created" note the text gives, and
/// `verify --game N` on a game never created says what whole-match verify says, with its exit
/// code (0: nothing was recorded), alone and beside a real game.
#[test]
fn crash_during_creation_verify_json_and_game_n_say_it_as_whole_match_verify() {
    let json = |args: &[&str], m: &Path| {
        let mut a = args.to_vec();
        a.push("--json");
        let (code, out) = cli(&a, m);
        let v: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
        assert_eq!(v["exit_code"], code, "{out}");
        (code, v)
    };
    let base = tempfile::tempdir().unwrap();
    let m = base.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let name = creation_leftover(&m);
    let never = format!(
        "game 1 was never created: a crash during its creation left game-1/{name} (nothing was recorded)"
    );
    for args in [&["verify"][..], &["verify", "--game", "1"]] {
        let (code, out) = cli(args, &m);
        assert_eq!((code, out.trim()), (0, never.as_str()), "{args:?}");
        let (code, v) = json(args, &m);
        assert_eq!(code, 0, "{args:?}: {v}");
        assert_eq!(v["games"], serde_json::json!([]), "{args:?}");
        assert_eq!(
            v["never_created"],
            serde_json::json!([{"game": 1, "leftover": name, "message": never}]),
            "{args:?}"
        );
    }
    // Beside a real game 1: game 2 never created, its note in both outputs, its own verify 0.
    let st = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["script", "examples/scripts/quick.arb", "--rules", RULES])
        .arg("--match")
        .arg(&m)
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(0), "{st:?}");
    assert!(m.join("game-1/log.jsonl").exists());
    let second = format!("log.jsonl.new-{}", dead_pid());
    std::fs::create_dir_all(m.join("game-2")).unwrap();
    std::fs::write(m.join("game-2").join(&second), b"{\"seq\":0,\"ki").unwrap();
    let never2 = format!(
        "game 2 was never created: a crash during its creation left game-2/{second} (nothing was recorded)"
    );
    let (code, out) = cli(&["verify"], &m);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("game 1: OK") && out.contains(&never2), "{out}");
    let (code, v) = json(&["verify"], &m);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["games"][0]["game"], 1, "{v}");
    assert_eq!(v["never_created"][0]["message"], never2.as_str(), "{v}");
    let (code, out) = cli(&["verify", "--game", "2"], &m);
    assert_eq!((code, out.trim()), (0, never2.as_str()));
    let (code, v) = json(&["verify", "--game", "2"], &m);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["never_created"][0]["game"], 2, "{v}");
    // `--game 1` names no other game's leftover.
    let (code, out) = cli(&["verify", "--game", "1"], &m);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("never created"), "{out}");
}
