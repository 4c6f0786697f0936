//! Rule 11 in spirit: the arbiter's laptop is offline, and the kit never opens a network
//! connection. Every subcommand a match uses runs under strace without a single socket call.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

#[test]
fn clause_11_the_kit_opens_no_network_connection() {
    if Command::new("strace").arg("-V").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "strace is required in CI (.ci/run installs it)"
        );
        println!("SKIPPED: strace is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    crate::log_util::arbiter_key_in(&tmp.path().join("m"));
    let m = tmp.path().join("m").display().to_string();
    let trace = tmp.path().join("trace");
    let live = tmp.path().join("live.pgn").display().to_string();
    let runs: [&[&str]; 7] = [
        &["script", "examples/scripts/quick.arb", "--match", &m],
        &["checkpoint", "--match", &m, "--game", "1"],
        &["verify", "--match", &m],
        &["status", "--match", &m],
        &["report", "--match", &m, "--game", "1"],
        &["pgn", "--match", &m, "--game", "1"],
        // The live relay only writes a file; the broadcaster's uploader sends it.
        &["relay", "--match", &m, "--out", &live, "--once"],
    ];
    for args in runs {
        let out = Command::new("strace")
            .args([
                "-f",
                "-qq",
                "-e",
                "trace=socket,connect,bind,sendto,sendmsg",
                "-o",
            ])
            .arg(&trace)
            .arg(env!("CARGO_BIN_EXE_arbiter"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let calls = std::fs::read_to_string(&trace).unwrap();
        assert!(
            calls.trim().is_empty(),
            "arbiter {args:?} made network calls:\n{calls}"
        );
    }
}
