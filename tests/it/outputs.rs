//! No output path can land on a match's own files. `pgn --out`, `report --out`,
//! `report --markdown --out` and `keygen --out` refuse every file of a match folder — a game log,
//! a checkpoint and its signature, the engine archive, the keys, the allowed signers, the signed
//! index — named directly, through `..` or through a symlink, with or without the game held open
//! the way `play` holds it; and an existing file is replaced only when it is what the kit wrote
//! for that purpose (or with `--force`). Nothing in the match folder changes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use arbiter::error::Exit;

use crate::hostile::rehearsal;
use crate::realgame::arbiter;

/// Every file under `dir` with its bytes (symlinks by their target).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                todo.push(e.path());
            } else if ft.is_symlink() {
                let t = std::fs::read_link(e.path()).unwrap();
                out.insert(e.path(), t.as_os_str().as_encoded_bytes().to_vec());
            } else {
                out.insert(e.path(), std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

/// The match's own files an output could be aimed at, as written on a command line.
fn targets(tmp: &Path, m: &Path) -> Vec<String> {
    let cp = std::fs::read_dir(m.join("game-1/checkpoints"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.ends_with(".txt.sig"))
        .unwrap();
    std::os::unix::fs::symlink(m.join("game-1"), tmp.join("to-game")).unwrap();
    std::os::unix::fs::symlink(m.join("game-1/log.jsonl"), tmp.join("to-log")).unwrap();
    std::os::unix::fs::symlink(m.join("keys"), tmp.join("to-keys")).unwrap();
    let ms = m.display().to_string();
    let ts = tmp.display().to_string();
    vec![
        format!("{ms}/game-1/log.jsonl"),
        format!("{ms}/keys/arbiter"),
        format!("{ms}/keys/arbiter.pub"),
        format!("{ms}/game-1/checkpoints/{cp}"),
        format!("{ms}/game-1/checkpoints/new.pgn"),
        format!("{ms}/game-1/engine/copy.pgn"),
        format!("{ms}/game-1/heartbeat"),
        format!("{ms}/index.txt"),
        format!("{ms}/index.txt.sig"),
        format!("{ms}/index/1.txt"),
        format!("{ms}/index/new.pgn"),
        format!("{ms}/allowed_signers"),
        format!("{ms}/game-1/../game-1/log.jsonl"),
        format!("{ms}/keys/../game-1/checkpoints/{cp}"),
        format!("{ts}/to-game/log.jsonl"),
        format!("{ts}/to-log"),
        format!("{ts}/to-keys/arbiter"),
    ]
}

/// Every output slot of every command, aimed at `target`.
fn slots(m: &str, target: &str) -> Vec<Vec<String>> {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        v(&["pgn", "--match", m, "--game", "1", "--out", target]),
        v(&[
            "pgn", "--match", m, "--game", "1", "--out", target, "--force",
        ]),
        v(&["report", "--match", m, "--game", "1", "--out", target]),
        v(&[
            "report", "--match", m, "--game", "1", "--out", target, "--force",
        ]),
        v(&[
            "report",
            "--match",
            m,
            "--game",
            "1",
            "--markdown",
            "--out",
            target,
        ]),
        v(&["keygen", "--match", m, "--out", target, "--no-passphrase"]),
        v(&[
            "record", "--match", m, "--game", "1", "--format", "pgn", "--out", target,
        ]),
        v(&[
            "record", "--match", m, "--game", "1", "--format", "pgn", "--out", target, "--force",
        ]),
    ]
}

fn refuse_every_slot(tmp: &Path, m: &Path) {
    std::fs::create_dir_all(m.join("game-1/engine")).unwrap();
    // The camps' countersigned copies of the index are kept in DIR/index/.
    std::fs::create_dir_all(m.join("index")).unwrap();
    let ms = m.display().to_string();
    let before = snapshot(m);
    for target in targets(tmp, m) {
        for args in slots(&ms, &target) {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = arbiter(&a);
            let err = String::from_utf8_lossy(&o.stderr);
            let keygen_of_key = a[0] == "keygen" && target.contains("keys/arbiter");
            if keygen_of_key {
                // A key is never replaced (its own place, but the file exists).
                assert_ne!(o.status.code(), Some(0), "{a:?}: {err}");
            } else {
                // Every keygen failure is a refusal (1); the other commands' is bad input (65).
                let want = if a[0] == "keygen" {
                    Exit::Refused
                } else {
                    Exit::BadInput
                };
                assert_eq!(o.status.code(), Some(want.code().into()), "{a:?}: {err}");
                assert!(err.contains("match's own files"), "{a:?}: {err}");
            }
            assert!(!err.contains("panicked"), "{a:?}: {err}");
            assert_eq!(snapshot(m), before, "{a:?} changed the match folder");
        }
    }
}

#[test]
fn output_paths_never_land_on_a_match_files() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    refuse_every_slot(tmp.path(), &m);
}

#[test]
fn output_paths_never_land_on_a_match_files_while_play_holds_the_game() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    // The game held open the way `play` holds it: its journal open, the file lock taken.
    let held = arbiter::record::journal::Journal::open(&m.join("game-1/log.jsonl")).unwrap();
    let entries = held.len();
    refuse_every_slot(tmp.path(), &m);
    drop(held);
    let again = arbiter::record::journal::Journal::open(&m.join("game-1/log.jsonl")).unwrap();
    assert_eq!(again.len(), entries);
}

#[test]
fn output_paths_replace_only_what_the_kit_wrote_for_that_purpose() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    let ms = m.display().to_string();
    for (ext, extra, kind) in [
        ("pgn", None, "pgn"),
        ("html", None, "report"),
        ("md", Some("--markdown"), "report"),
    ] {
        let out = tmp.path().join(format!("out.{ext}"));
        let os = out.display().to_string();
        let mut args = vec![kind, "--match", &ms, "--game", "1", "--out", &os];
        args.extend(extra);
        // Someone else's file: refused, untouched.
        std::fs::write(&out, "the committee's own notes\n").unwrap();
        let o = arbiter(&args);
        assert_eq!(
            o.status.code(),
            Some(Exit::BadInput.code().into()),
            "{args:?}: {o:?}"
        );
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("--force"),
            "{o:?}"
        );
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "the committee's own notes\n"
        );
        // With --force it is replaced.
        let mut forced = args.clone();
        forced.push("--force");
        let o = arbiter(&forced);
        assert_eq!(o.status.code(), Some(0), "{forced:?}: {o:?}");
        let written = std::fs::read(&out).unwrap();
        assert_ne!(written, b"the committee's own notes\n");
        // What the kit wrote there is replaced without --force (a run again).
        let o = arbiter(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {o:?}");
        assert_eq!(std::fs::read(&out).unwrap(), written);
    }
    // The report's own default place in the game folder is its purpose: written, and again.
    for _ in 0..2 {
        let o = arbiter(&["report", "--match", &ms, "--game", "1"]);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
    }
    assert!(m.join("game-1/report.html").is_file());
    // A report over the other format's file, in the game folder: refused by name.
    let md = m.join("game-1/report.md").display().to_string();
    let o = arbiter(&["report", "--match", &ms, "--game", "1", "--out", &md]);
    assert_eq!(o.status.code(), Some(Exit::BadInput.code().into()), "{o:?}");
}
