//! README's exit-code table, each code driven through the binary: 0 success, 1 refused by the
//! rules, 2 usage, 65 bad input, 66 cannot read, 70 not available (the game is held by another
//! process), 74 cannot write — once each, then on every command that can end that way (`play`
//! through tmux); and `verify` / `prove`, whose own codes docs/log-format.md lists (3, 10, 11,
//! 20, 21, 22, 23, 24, 25, 26; 12 in tests/it/witness.rs). Every failure says `arbiter: …` on
//! standard error and never panics.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::realgame::arbiter;

use arbiter::error::Exit;

use crate::hostile::{full_device, rehearsal};

fn code(o: &Output) -> Option<i32> {
    o.status.code()
}

fn script(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn exit_codes_of_readme_are_each_given_by_a_command() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    let ms = m.display().to_string();
    let dry = tmp.path().join("logs").join("demo");
    let drys = dry.display().to_string();

    // 0: success.
    let o = arbiter(&["status", "--match", &ms]);
    assert_eq!(code(&o), Some(Exit::Ok.code().into()), "{o:?}");

    // 1: a command refused by the rules, naming the clause.
    let refused = script(tmp.path(), "refused.arb", "0 arbiter resume\n");
    let o = arbiter(&["script", &refused, "--dry-run", "--match", &drys]);
    assert_eq!(code(&o), Some(Exit::Refused.code().into()), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("rule"), "{o:?}");

    // 2: usage.
    let o = arbiter(&["no-such-command"]);
    assert_eq!(code(&o), Some(Exit::Usage.code().into()), "{o:?}");

    // 65: bad input (a malformed script, with its line).
    let bad = script(tmp.path(), "bad.arb", "0 arbiter start\nsoon move e4\n");
    let o = arbiter(&["script", &bad, "--dry-run", "--match", &drys]);
    assert_eq!(code(&o), Some(Exit::BadInput.code().into()), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("line 2"),
        "{o:?}"
    );

    // 66: a file that cannot be read.
    let o = arbiter(&[
        "script",
        "no/such/script.arb",
        "--dry-run",
        "--match",
        &drys,
    ]);
    assert_eq!(code(&o), Some(Exit::CannotRead.code().into()), "{o:?}");

    // 70: not available: the game is held by another arbiter process.
    let held = arbiter::record::journal::Journal::open(&m.join("game-1/log.jsonl")).unwrap();
    let copy = script(tmp.path(), "copy.log", "bestmove e2e4\n");
    let o = arbiter(&["archive", "--match", &ms, "--game", "1", &copy, &copy]);
    assert_eq!(code(&o), Some(Exit::Unavailable.code().into()), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("another arbiter process"),
        "{o:?}"
    );
    drop(held);

    // 74: the output cannot be written (standard output on a full device).
    if let Some(full) = full_device(tmp.path()) {
        let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["status", "--match", &ms])
            .stdout(std::fs::OpenOptions::new().write(true).open(&full).unwrap())
            .output()
            .unwrap();
        assert_eq!(code(&o), Some(Exit::WriteFailed.code().into()), "{o:?}");
    }
}

const RULES: &str = "rules/kasparov-deep-junior-2003.toml";
const QUICK: &str = "examples/scripts/quick.arb";

/// One run of the binary: its exit code and standard error.
#[derive(Debug)]
struct Ran {
    code: Option<i32>,
    stderr: String,
}

/// Run `arbiter ARGS` with no input, killed (and the test failed) after
/// [`crate::fuzz::HANG_BOUND`] (a hang, not a slow run).
fn run(args: &[&str]) -> Ran {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + crate::fuzz::HANG_BOUND;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!(
                "hung for {} s: arbiter {}",
                crate::fuzz::HANG_BOUND.as_secs(),
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let o = child.wait_with_output().unwrap();
    Ran {
        code: o.status.code(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// A match with a real test key whose game 1 is the rehearsal of `quick.arb` (ended with a
/// resignation when `ended`), closed with a signed checkpoint.
fn rehearsal_named(tmp: &Path, name: &str, ended: bool) -> PathBuf {
    let m = tmp.join(name);
    crate::log_util::arbiter_key_in(&m);
    let mut script = std::fs::read_to_string(QUICK).unwrap();
    if ended {
        script.push_str("0:17:00  human resign\n");
    }
    let file = tmp.join(format!("{name}.arb"));
    std::fs::write(&file, script).unwrap();
    let r = run(&["script", s(&file), "--match", s(&m)]);
    assert_eq!(r.code, Some(0), "{r:?}");
    m
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Run every row, check its code and its message, and return the codes seen per command.
fn drive(rows: &[(Vec<String>, i32)]) -> BTreeMap<String, Vec<i32>> {
    let mut seen: BTreeMap<String, Vec<i32>> = BTreeMap::new();
    for (args, want) in rows {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = run(&args);
        assert_eq!(r.code, Some(*want), "arbiter {}: {r:?}", args.join(" "));
        assert!(!r.stderr.contains("panicked"), "{r:?}");
        // Verdicts (10..=26) are reports on standard output; every other failure is a message.
        if *want != 0 && !(10..=26).contains(want) || *want == 24 {
            assert!(
                r.stderr.starts_with("arbiter: ") || r.stderr.contains("\narbiter: "),
                "arbiter {}: no `arbiter:` message: {r:?}",
                args.join(" ")
            );
        }
        seen.entry(args[0].to_string()).or_default().push(*want);
    }
    for codes in seen.values_mut() {
        codes.sort_unstable();
        codes.dedup();
    }
    seen
}

fn v(a: &[&str]) -> Vec<String> {
    a.iter().map(|x| x.to_string()).collect()
}

/// README's codes (0, 1, 65, 66, 70, 74) on every command but `play` (see the next test) and
/// `verify` / `prove` (their own table, below).
#[test]
fn exit_codes_readme_table_driven_on_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let m = rehearsal_named(t, "m", false);
    let me = rehearsal_named(t, "ended", true);
    let (d, de) = (s(&m).to_string(), s(&me).to_string());
    let tp = |n: &str| t.join(n).display().to_string();
    // Inputs.
    std::fs::write(tp("refused.arb"), "0 move e4\n").unwrap();
    std::fs::write(tp("bad.arb"), "0 arbiter frobnicate\n").unwrap();
    std::fs::write(tp("bad.toml"), "[profile]\nname = 1\n").unwrap();
    for (c, text) in [("c1", "engine log 1\n"), ("c2", "engine log 2\n")] {
        std::fs::write(tp(c), text).unwrap();
    }
    for c in ["same1", "same2"] {
        std::fs::write(tp(c), "info depth 1 score cp 10 pv e2e4\nbestmove e2e4\n").unwrap();
    }
    let missing = tp("missing");
    // A match whose log is corrupt in its middle (for 65 on the readers).
    let mc = rehearsal_named(t, "corrupt", true);
    let log = mc.join("game-1/log.jsonl");
    let mut b = std::fs::read(&log).unwrap();
    let line2 = b.iter().position(|&c| c == b'\n').unwrap() + 1;
    b[line2] = b'#';
    std::fs::write(&log, b).unwrap();
    let dc = s(&mc).to_string();
    // An existing folder where an output file goes (74 on the writers).
    let out_dir = tp("out-dir");
    std::fs::create_dir(&out_dir).unwrap();
    // A match whose checkpoints folder and game 2's folder cannot be made (74).
    let mw = rehearsal_named(t, "nowrite", false);
    std::fs::remove_dir_all(mw.join("game-1/checkpoints")).unwrap();
    std::fs::write(mw.join("game-1/checkpoints"), "not a folder").unwrap();
    std::fs::write(mw.join("game-2"), "a file where game 2's folder goes").unwrap();
    let dw = s(&mw).to_string();

    let rows: Vec<(Vec<String>, i32)> = vec![
        // script
        (v(&["script", QUICK, "--dry-run"]), 0),
        (v(&["script", &tp("refused.arb"), "--dry-run"]), 1),
        (v(&["script", &tp("bad.arb"), "--dry-run"]), 65),
        (
            v(&["script", QUICK, "--dry-run", "--rules", &tp("bad.toml")]),
            65,
        ),
        (v(&["script", &missing, "--dry-run"]), 66),
        (v(&["script", QUICK, "--match", &dw, "--game", "2"]), 74),
        // status
        (v(&["status", "--match", &d]), 0),
        (v(&["status", "--match", &dc]), 65),
        (v(&["status", "--match", &missing]), 66),
        // checkpoint
        (v(&["checkpoint", "--match", &d]), 0),
        (v(&["checkpoint", "--match", &dc]), 65),
        (v(&["checkpoint", "--match", &missing]), 66),
        (v(&["checkpoint", "--match", &dw, "--game", "1"]), 74),
        // pgn
        (v(&["pgn", "--match", &d, "--game", "1"]), 0),
        (v(&["pgn", "--match", &dc, "--game", "1"]), 65),
        (v(&["pgn", "--match", &missing, "--game", "1"]), 66),
        (
            v(&["pgn", "--match", &d, "--game", "1", "--out", &out_dir]),
            74,
        ),
        // relay: --once writes the file as the log stands
        (
            v(&["relay", "--match", &d, "--out", &tp("live.pgn"), "--once"]),
            0,
        ),
        (
            v(&["relay", "--match", &dc, "--out", &tp("live2.pgn"), "--once"]),
            65,
        ),
        (
            v(&[
                "relay",
                "--match",
                &missing,
                "--out",
                &tp("live3.pgn"),
                "--once",
            ]),
            66,
        ),
        (
            v(&["relay", "--match", &d, "--out", &out_dir, "--once"]),
            74,
        ),
        // display: no terminal here (65), no match folder (66)
        (v(&["display", "--match", &d]), 65),
        (v(&["display", "--match", &missing]), 66),
        // report
        (
            v(&[
                "report",
                "--match",
                &d,
                "--game",
                "1",
                "--out",
                &tp("r.html"),
            ]),
            0,
        ),
        (
            v(&[
                "report",
                "--match",
                &dc,
                "--game",
                "1",
                "--out",
                &tp("c.html"),
            ]),
            65,
        ),
        (v(&["report", "--match", &missing, "--game", "1"]), 66),
        (
            v(&["report", "--match", &d, "--game", "1", "--out", &out_dir]),
            74,
        ),
        // archive
        (
            v(&[
                "archive",
                "--match",
                &d,
                "--game",
                "1",
                &tp("same1"),
                &tp("same2"),
            ]),
            1,
        ),
        (
            v(&[
                "archive",
                "--match",
                &de,
                "--game",
                "1",
                &tp("c1"),
                &tp("c2"),
            ]),
            1,
        ),
        (
            v(&[
                "archive",
                "--match",
                &dc,
                "--game",
                "1",
                &tp("same1"),
                &tp("same2"),
            ]),
            65,
        ),
        (
            v(&[
                "archive",
                "--match",
                &de,
                "--game",
                "1",
                &tp("c1"),
                &missing,
            ]),
            66,
        ),
        (
            v(&[
                "archive",
                "--match",
                &de,
                "--game",
                "1",
                &tp("same1"),
                &tp("same2"),
            ]),
            0,
        ),
        // keygen: 0, and 1 for every failure (docs/log-format.md)
        (v(&["keygen", "--match", &tp("k"), "--no-passphrase"]), 0),
        (
            v(&["keygen", "--match", &tp("k1"), "--existing", &missing]),
            1,
        ),
        // countersign: a camp's signature is refused (1) unless it holds
        (
            v(&[
                "countersign",
                "--yes",
                "--match",
                &d,
                "--camp",
                "white",
                "--key",
                &missing,
            ]),
            1,
        ),
    ];
    let seen = drive(&rows);
    let want: BTreeMap<String, Vec<i32>> = [
        ("archive", vec![0, 1, 65, 66]),
        ("checkpoint", vec![0, 65, 66, 74]),
        ("countersign", vec![1]),
        ("keygen", vec![0, 1]),
        ("display", vec![65, 66]),
        ("pgn", vec![0, 65, 66, 74]),
        ("relay", vec![0, 65, 66, 74]),
        ("report", vec![0, 65, 66, 74]),
        ("script", vec![0, 1, 65, 66, 74]),
        ("status", vec![0, 65, 66]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(seen, want);

    // 70: another process holds the game (this test holds its lock).
    let held = arbiter::record::journal::Journal::open(&de_log(&me)).unwrap();
    let r = run(&[
        "archive",
        "--match",
        &de,
        "--game",
        "1",
        &tp("c1"),
        &tp("c1"),
    ]);
    assert_eq!(r.code, Some(70), "{r:?}");
    assert!(r.stderr.starts_with("arbiter: "), "{r:?}");
    assert!(r.stderr.contains("another arbiter process"), "{r:?}");
    drop(held);
}

fn de_log(m: &Path) -> PathBuf {
    m.join("game-1/log.jsonl")
}

/// `arbiter play` in a real terminal (tmux): 0 on quitting, 1 for declarations the rules refuse,
/// 65 with no terminal, 66 for a rules file that cannot be read, 70 when another process holds
/// the game, 74 when the log cannot be written (a damaged log opens read-only: input frozen).
#[test]
fn exit_codes_play_through_a_terminal() {
    use crate::pty::{DEADLINE, Tmux, repo_dir, tmux_available};
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let m = rehearsal_named(t, "m", false);
    let d = s(&m).to_string();
    let rules = repo_dir().join(RULES).display().to_string();
    // 65: no terminal (this test's standard input is not one).
    let r = run(&["play", "--match", &d, "--rules", &rules]);
    assert_eq!(r.code, Some(65), "{r:?}");
    assert!(r.stderr.starts_with("arbiter: "), "{r:?}");
    if !tmux_available() {
        eprintln!("skipped the terminal cases: tmux is not installed");
        return;
    }
    let refused = t.join("refused.arb");
    std::fs::write(&refused, "0 move e4\n").unwrap();
    let missing = t.join("missing.toml").display().to_string();
    // A match whose log is damaged in its middle: it opens read-only.
    let md = rehearsal_named(t, "damaged", false);
    let log = md.join("game-1/log.jsonl");
    let mut b = std::fs::read(&log).unwrap();
    let line2 = b.iter().position(|&c| c == b'\n').unwrap() + 1;
    b[line2] = b'#';
    std::fs::write(&log, b).unwrap();
    let dd = s(&md).to_string();
    let exited = |name: &str, args: &[&str], quit: bool, code: i32| {
        let tm = Tmux::start_watched(name, args, &repo_dir(), 100, 30);
        if quit {
            // Ctrl-C: a board that writes its log asks first (y answers once the question is on
            // the screen); a read-only one quits at once.
            tm.wait_for("log: ", DEADLINE);
            tm.keys(&["C-c"]);
            let s = tm.wait_until(
                |s| s.contains("quit the board UI?") || s.contains("arbiter exited"),
                "the quit question or the exit",
                DEADLINE,
            );
            if !s.contains("arbiter exited") {
                tm.keys(&["y"]);
            }
        }
        let screen = tm.wait_for("arbiter exited", DEADLINE);
        assert!(
            screen.contains(&format!("arbiter exited {code}")),
            "arbiter {}: want {code}; screen:\n{screen}",
            args.join(" ")
        );
        assert!(!screen.contains("panicked"), "{screen}");
        screen
    };
    exited(
        "x0",
        &["play", "--match", &d, "--game", "1", "--rules", &rules],
        true,
        0,
    );
    let decl = refused.display().to_string();
    let s1 = exited(
        "x1",
        &[
            "play",
            "--match",
            &d,
            "--game",
            "2",
            "--rules",
            &rules,
            "--declarations",
            &decl,
        ],
        false,
        1,
    );
    assert!(s1.contains("arbiter: "), "{s1}");
    let s66 = exited(
        "x66",
        &["play", "--match", &d, "--game", "2", "--rules", &missing],
        false,
        66,
    );
    assert!(s66.contains("missing.toml"), "{s66}");
    let s74 = exited(
        "x74",
        &["play", "--match", &dd, "--game", "1", "--rules", &rules],
        true,
        74,
    );
    assert!(s74.contains("arbiter: "), "{s74}");
    let held = arbiter::record::journal::Journal::open(&m.join("game-1/log.jsonl")).unwrap();
    let s70 = exited(
        "x70",
        &["play", "--match", &d, "--game", "1", "--rules", &rules],
        false,
        70,
    );
    assert!(s70.contains("another arbiter process"), "{s70}");
    drop(held);
    // 70, not 74: a second board on a new game, whose log another script created while the
    // board was open, writes nothing and says the game was opened first.
    let tm = Tmux::start_watched(
        "x70new",
        &["play", "--match", &d, "--game", "2", "--rules", &rules],
        &repo_dir(),
        100,
        30,
    );
    tm.wait_for("log: ", DEADLINE);
    let quick = repo_dir().join(QUICK).display().to_string();
    let r = run(&["script", &quick, "--match", &d, "--game", "2"]);
    assert_eq!(r.code, Some(0), "{r:?}");
    tm.keys(&["Space"]);
    // 8a: no configuration digest declared; start without it.
    tm.wait_for("y = yes", DEADLINE);
    tm.keys(&["y"]);
    tm.wait_for("NOT recorded", DEADLINE);
    tm.keys(&["q"]);
    let screen = tm.wait_for("arbiter exited", DEADLINE);
    assert!(screen.contains("arbiter exited 70"), "{screen}");
    assert!(
        screen.contains("another board or script opened this game first"),
        "{screen}"
    );
}

/// `verify` and `prove`: every code of docs/log-format.md's table that one game can show, each
/// driven on a match made for it (12, a missing countersignature, is driven in
/// tests/it/witness.rs).
#[test]
fn exit_codes_verify_and_prove_table_driven() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let log = |m: &Path| m.join("game-1/log.jsonl");
    let append = |m: &Path, bytes: &[u8]| {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(log(m))
            .unwrap();
        f.write_all(bytes).unwrap();
    };
    let ok = rehearsal_named(t, "ok", false);
    // 10: an entry after the last signed checkpoint.
    let tail = rehearsal_named(t, "tail", false);
    let mut j = arbiter::record::journal::Journal::open(&log(&tail)).unwrap();
    let last = j.last().unwrap().mono_ms;
    j.append(arbiter::log::NewEntry {
        mono_ms: last,
        utc: crate::log_util::t0(),
        actor: "arbiter".into(),
        clause: "5b".into(),
        kind: "note".into(),
        body: serde_json::json!({"text": "after the checkpoint"}),
    })
    .unwrap();
    let tail_seq = j.len() - 1;
    drop(j);
    // 11: a torn tail cut on reopen, then signed.
    let rec = rehearsal_named(t, "recovered", false);
    append(&rec, b"{\"v\":1,\"seq\":");
    drop(arbiter::record::journal::Journal::open(&log(&rec)).unwrap());
    let r = run(&["checkpoint", "--match", s(&rec), "--game", "1"]);
    assert_eq!(r.code, Some(0), "{r:?}");
    // 20: a changed byte in line 1.
    let bad = rehearsal_named(t, "badline", false);
    let mut b = std::fs::read(log(&bad)).unwrap();
    let line1 = b.iter().position(|&c| c == b'\n').unwrap() + 1;
    b[line1 + 1] = b'#';
    std::fs::write(log(&bad), b).unwrap();
    // 21: the last line cut off a signed log.
    let cut = rehearsal_named(t, "truncated", false);
    let b = std::fs::read(log(&cut)).unwrap();
    let keep = b[..b.len() - 1].iter().rposition(|&c| c == b'\n').unwrap() + 1;
    std::fs::write(log(&cut), &b[..keep]).unwrap();
    // 22: a checkpoint whose signature is garbage.
    let badcp = rehearsal_named(t, "badcp", false);
    for e in std::fs::read_dir(badcp.join("game-1/checkpoints")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "sig") {
            std::fs::write(
                &p,
                "-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n",
            )
            .unwrap();
        }
    }
    // 26: game 2 recorded in the signed match index, then deleted.
    let rolled = rehearsal_named(t, "rolled", false);
    let r = run(&["script", QUICK, "--match", s(&rolled), "--game", "2"]);
    assert_eq!(r.code, Some(0), "{r:?}");
    std::fs::remove_dir_all(rolled.join("game-2")).unwrap();
    // 26 too: a FIFO, then a folder, where the signed index should be (read as an index removed).
    let fifo_index = rehearsal_named(t, "fifo-index", false);
    std::fs::remove_file(fifo_index.join("index.txt")).unwrap();
    assert!(
        Command::new("mkfifo")
            .arg(fifo_index.join("index.txt"))
            .status()
            .unwrap()
            .success()
    );
    let folder_index = rehearsal_named(t, "folder-index", false);
    std::fs::remove_file(folder_index.join("index.txt")).unwrap();
    std::fs::create_dir(folder_index.join("index.txt")).unwrap();
    // 25: an archived engine log changed after the archive.
    let bound = rehearsal_named(t, "binding", true);
    let copies: Vec<String> = ["c1", "c2"]
        .iter()
        .map(|c| {
            let p = t.join(c);
            std::fs::write(&p, "info depth 1 score cp 10 pv e2e4\nbestmove e2e4\n").unwrap();
            p.display().to_string()
        })
        .collect();
    let r = run(&[
        "archive",
        "--match",
        s(&bound),
        "--game",
        "1",
        &copies[0],
        &copies[1],
    ]);
    assert_eq!(r.code, Some(0), "{r:?}");
    let engine = bound.join("game-1/engine");
    for e in std::fs::read_dir(&engine).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().is_some_and(|n| n != "SHA256SUMS") {
            let mut text = std::fs::read(&p).unwrap();
            text.extend_from_slice(b"info depth 2\n");
            std::fs::write(&p, text).unwrap();
        }
    }
    // 23: a proof whose entry was changed.
    let proof_ok = t.join("proof.json");
    let proof_bad = t.join("bad-proof.json");
    let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["prove", "--match", s(&ok), "--game", "1", "--seq", "3"])
        .output()
        .unwrap();
    assert!(out.status.success());
    std::fs::write(&proof_ok, &out.stdout).unwrap();
    let mut p: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let entry = p["entry"]
        .as_str()
        .unwrap()
        .replacen("\"mono_ms\":", "\"mono_ms\":1", 1);
    p["entry"] = entry.into();
    std::fs::write(&proof_bad, serde_json::to_vec(&p).unwrap()).unwrap();
    let missing = t.join("missing").display().to_string();
    let tail_seq = tail_seq.to_string();

    let rows: Vec<(Vec<String>, i32)> = vec![
        (v(&["verify", "--match", s(&ok)]), 0),
        (v(&["verify", "--match", &missing]), 3),
        (v(&["verify", "--match", s(&tail)]), 10),
        (v(&["verify", "--match", s(&rec)]), 11),
        (v(&["verify", "--match", s(&bad)]), 20),
        (v(&["verify", "--match", s(&cut)]), 21),
        (v(&["verify", "--match", s(&badcp)]), 22),
        (
            v(&["verify", "--match", s(&ok), "--proof", s(&proof_ok)]),
            0,
        ),
        (
            v(&["verify", "--match", s(&ok), "--proof", s(&proof_bad)]),
            23,
        ),
        (v(&["verify", "--match", s(&bound)]), 25),
        (v(&["verify", "--match", s(&rolled)]), 26),
        (v(&["verify", "--match", s(&fifo_index)]), 26),
        (v(&["verify", "--match", s(&folder_index)]), 26),
        (
            v(&["prove", "--match", s(&ok), "--game", "1", "--seq", "3"]),
            0,
        ),
        (
            v(&["prove", "--match", &missing, "--game", "1", "--seq", "3"]),
            3,
        ),
        (
            v(&["prove", "--match", s(&bad), "--game", "1", "--seq", "3"]),
            20,
        ),
        (
            v(&[
                "prove",
                "--match",
                s(&tail),
                "--game",
                "1",
                "--seq",
                &tail_seq,
            ]),
            24,
        ),
    ];
    let seen = drive(&rows);
    assert_eq!(seen["verify"], [0, 3, 10, 11, 20, 21, 22, 23, 25, 26]);
    assert_eq!(seen["prove"], [0, 3, 20, 24]);
}

/// A game that does not exist is "no game N" on every command that takes `--game`
/// (66; 3 for `verify` and `prove`, whose own table says unreadable), never "DOES NOT VERIFY …
/// may have been tampered with"; game numbers run from 1 to 9999 (0 and numbers past the
/// maximum are usage errors: no `game-0` is ever created); a match folder the user may not read
/// says "Permission denied", not "no games".
#[test]
fn exit_codes_no_game_n_and_game_numbers_from_1() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    let ms = m.display().to_string();
    let copy = script(tmp.path(), "copy.log", "bestmove e2e4\n");
    let no_game: [(&[&str], i32); 8] = [
        (&["status", "--game", "7"], 66),
        (&["pgn", "--game", "7"], 66),
        (&["report", "--game", "7"], 66),
        (&["checkpoint", "--game", "7"], 66),
        (
            &[
                "countersign",
                "--game",
                "7",
                "--camp",
                "k",
                "--signature",
                &copy,
            ],
            66,
        ),
        (&["archive", "--game", "7", &copy, &copy], 66),
        (&["verify", "--game", "7"], 3),
        (&["prove", "--game", "7", "--seq", "1"], 3),
    ];
    for (args, want) in no_game {
        let mut all = args.to_vec();
        all.extend(["--match", &ms]);
        let r = run(&all);
        assert_eq!(r.code, Some(want), "{all:?}: {r:?}");
        assert!(
            r.stderr.contains("no game 7 in") && r.stderr.contains("its games: 1"),
            "{all:?}: {r:?}"
        );
        assert!(!r.stderr.contains("tampered"), "{all:?}: {r:?}");
    }
    let quick = QUICK;
    for bad in ["0", "10000", "4294967295", "x"] {
        for cmd in [
            vec!["script", quick, "--game", bad, "--match", &ms],
            vec!["status", "--game", bad, "--match", &ms],
            vec!["pgn", "--game", bad, "--match", &ms],
        ] {
            let r = run(&cmd);
            assert_eq!(r.code, Some(Exit::Usage.code().into()), "{cmd:?}: {r:?}");
            assert!(r.stderr.contains("from 1 to 9999"), "{cmd:?}: {r:?}");
        }
    }
    assert!(!m.join("game-0").exists());
    // A folder outside 1..=9999 left by an older kit is not one of the match's games: a plain
    // script takes game 2.
    std::fs::create_dir(m.join("game-0")).unwrap();
    std::fs::create_dir(m.join("game-4294967295")).unwrap();
    let r = run(&["script", quick, "--match", &ms]);
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(m.join("game-2/log.jsonl").is_file());
    // Permission denied is permission denied (as another user: root reads anything, so the
    // folder is made unreadable to a user run through `setpriv`, when it can be).
    let locked = tmp.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    let ls = locked.display().to_string();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let as_nobody = |args: &[&str]| {
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_arbiter"))
            .args(args)
            .output()
    };
    let can_drop = as_nobody(&["--version"]).is_ok_and(|o| o.status.success());
    let is_root = std::fs::read_dir(&locked).is_ok();
    for (args, want) in [
        (vec!["status", "--match", &ls], 66),
        (vec!["verify", "--match", &ls], 3),
    ] {
        let o = if is_root {
            if !can_drop {
                println!("SKIPPED: root, and setpriv cannot drop to nobody here");
                break;
            }
            as_nobody(&args).unwrap()
        } else {
            Command::new(env!("CARGO_BIN_EXE_arbiter"))
                .args(&args)
                .output()
                .unwrap()
        };
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(want), "{args:?}: {err}");
        assert!(err.contains("Permission denied"), "{args:?}: {err}");
        assert!(!err.contains("no game"), "{args:?}: {err}");
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o700)).unwrap();
}

/// A rules profile or a script that cannot be read — missing, a folder, a FIFO, not
/// UTF-8 — is 66 on `script` (dry run or not) as on `play`, README's "a file that cannot be
/// read"; a malformed profile is 65.
#[test]
fn exit_codes_unreadable_rules_and_scripts_are_66() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    let ms = m.display().to_string();
    let fifo = tmp.path().join("fifo.toml");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let not_utf8 = tmp.path().join("latin1.toml");
    std::fs::write(&not_utf8, b"name = \"caf\xe9\"\n").unwrap();
    let folder = tmp.path().join("folder.toml");
    std::fs::create_dir(&folder).unwrap();
    let malformed = script(tmp.path(), "bad.toml", "this is not toml\n");
    let missing = tmp.path().join("missing.toml").display().to_string();
    let (fifo, not_utf8, folder) = (s(&fifo), s(&not_utf8), s(&folder));
    // Not UTF-8 is read but is not text: bad input (65), like a malformed file.
    for (rules, want) in [
        (missing.as_str(), 66),
        (folder, 66),
        (fifo, 66),
        (not_utf8, 65),
        (malformed.as_str(), 65),
    ] {
        for dry in [true, false] {
            let mut args = vec!["script", QUICK, "--match", &ms, "--rules", rules];
            if dry {
                args.push("--dry-run");
            }
            let r = run(&args);
            assert_eq!(r.code, Some(want), "{args:?}: {r:?}");
        }
    }
    for (file, want) in [(fifo, 66), (not_utf8, 65), (folder, 66)] {
        let r = run(&["script", file, "--dry-run", "--match", &ms]);
        assert_eq!(r.code, Some(want), "{file}: {r:?}");
        assert!(r.stderr.starts_with("arbiter: "), "{r:?}");
    }
    // The same for the table's profile.
    let r = run(&[
        "serve",
        "--rules",
        not_utf8,
        "--match",
        &ms,
        "--listen",
        "127.0.0.1:0",
    ]);
    assert_eq!(r.code, Some(65), "{r:?}");
    assert!(r.stderr.contains("not UTF-8"), "{r:?}");
}

/// `keygen`: every failure is 1 (refused), as README's table and docs/log-format.md say — an
/// `--out` that names an existing file or a folder among them.
#[test]
fn exit_codes_keygen_fails_with_1() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let m = t.join("m");
    let ms = s(&m).to_string();
    let r = run(&["keygen", "--match", &ms, "--no-passphrase"]);
    assert_eq!(r.code, Some(0), "{r:?}");
    let folder = t.join("folder");
    std::fs::create_dir(&folder).unwrap();
    let existing = t.join("existing");
    std::fs::write(&existing, "x").unwrap();
    let garbage = t.join("garbage.pub");
    std::fs::write(&garbage, "not a key\n").unwrap();
    let other = t.join("other").display().to_string();
    for args in [
        vec!["keygen", "--match", &ms, "--no-passphrase"],
        vec![
            "keygen",
            "--match",
            &other,
            "--no-passphrase",
            "--out",
            s(&folder),
        ],
        vec![
            "keygen",
            "--match",
            &other,
            "--no-passphrase",
            "--out",
            s(&existing),
        ],
        vec!["keygen", "--match", &other, "--existing", s(&garbage)],
        vec!["keygen", "--match", &other, "--existing", "missing.pub"],
        vec![
            "keygen",
            "--match",
            &other,
            "--principal",
            "a b",
            "--no-passphrase",
        ],
    ] {
        let r = run(&args);
        assert_eq!(r.code, Some(1), "{args:?}: {r:?}");
        assert!(r.stderr.starts_with("arbiter: "), "{args:?}: {r:?}");
    }
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "x");
}

/// Messages that say what is wrong: a torn tail after a crash is "a crash left an
/// incomplete last line" with the way back, not "may have been tampered with"; an empty
/// `log.jsonl` says why and what to do; a NUL byte or an escape sequence from a script is shown
/// escaped, never sent raw; `verify --proof` reads a proof from a pipe (`<(arbiter prove …)`),
/// and a FIFO with no writer ends at once (23, an empty proof), never a hang.
#[test]
fn exit_codes_messages_say_what_is_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    let ms = m.display().to_string();
    // The proof through a pipe, then a FIFO nobody writes.
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "'{bin}' verify --match '{ms}' --proof <('{bin}' prove --match '{ms}' --game 1 --seq 3)",
            bin = env!("CARGO_BIN_EXE_arbiter")
        ))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("proof OK"),
        "{o:?}"
    );
    let fifo = tmp.path().join("proof.fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let r = run(&["verify", "--match", &ms, "--proof", s(&fifo)]);
    assert_eq!(r.code, Some(Exit::BadProof.code().into()), "{r:?}");
    // NUL and ESC from a script line, escaped.
    let nul = tmp.path().join("nul.arb");
    std::fs::write(&nul, b"0 fr\0ob\x1b[31m\n").unwrap();
    let r = run(&["script", s(&nul), "--dry-run", "--match", &ms]);
    assert_eq!(r.code, Some(Exit::BadInput.code().into()), "{r:?}");
    assert!(
        !r.stderr.contains('\0') && !r.stderr.contains('\x1b'),
        "{r:?}"
    );
    assert!(r.stderr.contains("fr\\0ob\\u{1b}[31m"), "{r:?}");
    // A torn tail, as a crash leaves it.
    let log = m.join("game-1/log.jsonl");
    let mut bytes = std::fs::read(&log).unwrap();
    let whole = bytes.len();
    bytes.extend_from_slice(b"{\"v\":1,\"seq\":13,\"pr");
    std::fs::write(&log, &bytes).unwrap();
    for cmd in ["status", "pgn"] {
        let r = run(&[cmd, "--match", &ms, "--game", "1"]);
        assert_eq!(r.code, Some(Exit::BadInput.code().into()), "{cmd}: {r:?}");
        assert!(
            r.stderr
                .contains("a crash left an incomplete last line in game 1's log (19 bytes"),
            "{cmd}: {r:?}"
        );
        assert!(
            r.stderr.contains(&format!("offset {whole}")),
            "{cmd}: {r:?}"
        );
        assert!(!r.stderr.contains("tampered"), "{cmd}: {r:?}");
    }
    // An empty log.
    std::fs::write(&log, b"").unwrap();
    let r = run(&["status", "--match", &ms, "--game", "1"]);
    assert_eq!(r.code, Some(Exit::BadInput.code().into()), "{r:?}");
    assert!(r.stderr.contains("the file is empty"), "{r:?}");
    assert!(r.stderr.contains("move it aside"), "{r:?}");
}

/// `archive` on a game whose folder and log are read-only for the user is 74 (the log cannot be
/// written), as README says, not 66; and so is a new game in a match folder the user may not
/// write. Run as another user through `setpriv` when the
/// tests run as root (root writes anything), else as this user.
#[test]
fn exit_codes_read_only_log_is_74() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    let copy = script(tmp.path(), "copy.log", "bestmove e2e4\n");
    let open = |p: &Path, mode| std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode));
    for p in [tmp.path(), m.as_path(), &m.join("game-1"), &m.join("keys")] {
        open(p, 0o755).unwrap();
    }
    for p in [
        &m.join("game-1/log.jsonl"),
        &m.join("keys/arbiter"),
        Path::new(&copy),
    ] {
        open(p, 0o644).unwrap();
    }
    open(&m.join("game-1"), 0o555).unwrap();
    open(&m.join("game-1/log.jsonl"), 0o444).unwrap();
    let root = std::fs::OpenOptions::new()
        .append(true)
        .open(m.join("game-1/log.jsonl"))
        .is_ok();
    let as_user = |args: &[&str]| -> Option<std::process::Output> {
        if root {
            Command::new("setpriv")
                .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(env!("CARGO_BIN_EXE_arbiter"))
                .args(args)
                .output()
                .ok()
        } else {
            Command::new(env!("CARGO_BIN_EXE_arbiter"))
                .args(args)
                .output()
                .ok()
        }
    };
    let Some(o) = as_user(&["archive", "--match", s(&m), "--game", "1", &copy, &copy]) else {
        println!("SKIPPED: root, and no setpriv to run as another user");
        return;
    };
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(Exit::WriteFailed.code().into()),
        "{err}"
    );
    assert!(err.contains("Permission denied"), "{err}");
    // A new game in a match folder the user may not write: 74 too, nothing created.
    let o = as_user(&["script", QUICK, "--match", s(&m)]).unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(Exit::WriteFailed.code().into()),
        "{err}"
    );
    assert!(err.contains("Permission denied"), "{err}");
    assert!(!m.join("game-2").exists());
    open(&m.join("game-1"), 0o700).unwrap();
}
