//! Issue 14 through the binary: hostile output and input files. Device nodes and FIFOs are made
//! in a temporary folder (never a real device path).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn arbiter() -> Command {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
}

/// A finished rehearsal match with a real (test) key.
fn rehearsal(tmp: &Path) -> PathBuf {
    let m = tmp.join("m");
    crate::log_util::arbiter_key_in(&m);
    let o = arbiter()
        .args(["script", "examples/scripts/quick.arb", "--match"])
        .arg(&m)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    m
}

/// A character device like /dev/full (1,7), made in `dir`: every write fails with ENOSPC.
fn full_device(dir: &Path) -> Option<PathBuf> {
    let p = dir.join("full");
    let ok = Command::new("mknod")
        .arg(&p)
        .args(["c", "1", "7"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "mknod (root) is needed in CI"
        );
        println!("SKIPPED: cannot make a device node here (not root?)");
        return None;
    }
    Some(p)
}

fn commands(m: &str) -> Vec<Vec<String>> {
    [
        vec!["status", "--match", m],
        vec!["status", "--match", m, "--json"],
        vec!["verify", "--match", m],
        vec!["verify", "--match", m, "--json"],
        vec!["prove", "--match", m, "--game", "1", "--seq", "3"],
        vec!["pgn", "--match", m, "--game", "1"],
        vec![
            "script",
            "examples/scripts/quick.arb",
            "--dry-run",
            "--json",
            "--match",
            m,
        ],
        vec!["checkpoint", "--match", m, "--game", "1"],
    ]
    .into_iter()
    .map(|v| v.into_iter().map(String::from).collect())
    .collect()
}

#[test]
fn hostile_stdout_on_a_full_device_exits_74_without_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    let Some(full) = full_device(tmp.path()) else {
        return;
    };
    for args in commands(m.to_str().unwrap()) {
        let o = arbiter()
            .args(&args)
            .stdout(std::fs::OpenOptions::new().write(true).open(&full).unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(74), "{args:?}: {err}");
        assert!(err.contains("standard output"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // The device is still a device: nothing replaced it.
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::metadata(&full)
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

#[test]
fn hostile_stdout_into_a_closed_pipe_ends_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    for args in commands(m.to_str().unwrap()) {
        let mut child = arbiter()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader goes away at once, like `| head -c 0`
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_ne!(o.status.code(), Some(134), "{args:?}: {err}");
        assert_ne!(o.status.code(), Some(101), "{args:?}: {err}");
        assert!(o.status.code().is_some(), "{args:?}: killed by a signal");
    }
}
