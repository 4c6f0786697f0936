//! README's exit-code table, each code driven through the binary: 0 success, 1 refused by the
//! rules, 2 usage, 65 bad input, 66 cannot read, 70 not available (the game is held by another
//! board), 74 cannot write. `verify`'s own codes are driven in tests/it/log_verify.rs and
//! tests/it/witness.rs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output};

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
    let held = arbiter::journal::Journal::open(&m.join("game-1/log.jsonl")).unwrap();
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
