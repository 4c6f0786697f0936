//! A refusal by the rules reaches the command line through one mapping
//! (`cli::session_failure`) from every command that runs the core — `script`, `archive` and the
//! board's opening (`play`) — and exits with the same code, 1, the message naming the clause.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Stdio};

use arbiter::error::Exit;

use crate::clauses::{KASPAROV_2003, rules_path};
use crate::pty::{DEADLINE, Tmux, repo_dir, tmux_available};

fn arbiter(args: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn typed_errors_a_refusal_exits_the_same_from_script_archive_and_the_board() {
    let refused = i32::from(Exit::Refused.code());
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let ms = m.to_str().unwrap();
    let rules = rules_path(KASPAROV_2003).display().to_string();

    // script: an illegal move (rule 2), after the lines before it were recorded.
    let file = tmp.path().join("game.arb");
    std::fs::write(
        &file,
        "0 arbiter declare white human Garry Kasparov\n\
         0 arbiter declare black machine Deep Junior\n\
         0 arbiter declare operator Amir Ban\n\
         0 arbiter start\n\
         5 move Ke2\n",
    )
    .unwrap();
    let (code, err) = arbiter(&[
        "script",
        file.to_str().unwrap(),
        "--match",
        ms,
        "--rules",
        &rules,
    ]);
    assert_eq!(code, Some(refused), "{err}");
    assert!(
        err.starts_with("arbiter: ")
            && err.contains("game.arb:5: refused (rule 2): 'Ke2' is not a legal move here"),
        "{err}"
    );

    // archive: the machine's log of game 1, which has no result yet (13a).
    let copy = tmp.path().join("engine.log");
    std::fs::write(&copy, "info depth 1\nbestmove e7e5\n").unwrap();
    let c = copy.to_str().unwrap();
    let (code, err) = arbiter(&["archive", "--match", ms, "--game", "1", c, c]);
    assert_eq!(code, Some(refused), "{err}");
    assert!(
        err.starts_with("arbiter: ") && err.contains("refused (rule 13a)"),
        "{err}"
    );
    assert!(err.contains("this game has no result yet"), "{err}");

    // The board: under the Deep Blue 1997 rules colours alternate by game number (the match
    // rules); declarations giving the human White again in game 2 are refused before the board
    // draws anything.
    if !tmux_available() {
        eprintln!("skipped the board: tmux is not installed");
        return;
    }
    let db = tmp.path().join("db");
    crate::log_util::arbiter_key_in(&db);
    let dbs = db.to_str().unwrap();
    let db_rules = rules_path("deep-blue-1997.toml").display().to_string();
    let first = tmp.path().join("db1.arb");
    std::fs::write(
        &first,
        "0 arbiter declare white human Garry Kasparov\n\
         0 arbiter declare black machine Deep Blue\n\
         0 arbiter declare operator Joe Hoane\n\
         0 arbiter start\n",
    )
    .unwrap();
    let (code, err) = arbiter(&[
        "script",
        first.to_str().unwrap(),
        "--match",
        dbs,
        "--rules",
        &db_rules,
    ]);
    assert_eq!(code, Some(0), "{err}");
    let decl = tmp.path().join("decl.arb");
    std::fs::write(&decl, "0 arbiter declare white human Garry Kasparov\n").unwrap();
    let t = Tmux::start_watched(
        "refusal-exit",
        &[
            "play",
            "--match",
            dbs,
            "--game",
            "2",
            "--rules",
            &db_rules,
            "--declarations",
            decl.to_str().unwrap(),
        ],
        &repo_dir(),
        100,
        30,
    );
    let screen = t.wait_for("arbiter exited", DEADLINE);
    assert!(
        screen.contains(&format!("arbiter exited {refused}")),
        "{screen}"
    );
    assert!(screen.contains("arbiter: refused (rule"), "{screen}");
    assert!(
        screen.contains("colours alternate by game number"),
        "{screen}"
    );
}

/// The one mapping: of the CLI's files only `src/cli/mod.rs` turns a refusal or a log that could
/// not be written (a session error) into an exit code; `script`, `archive` and the board go
/// through `session_failure` (`script` names `Storage` only to tell another process's log, 70).
#[test]
fn typed_errors_a_session_error_is_mapped_to_an_exit_code_in_one_place() {
    let dir = repo_dir().join("src/cli");
    let mut naming = Vec::new();
    for item in std::fs::read_dir(&dir).unwrap() {
        let path = item.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        if [
            "SessionError::Refused",
            "S::Refused",
            "write_failed(SessionError",
        ]
        .iter()
        .any(|w| text.contains(w))
        {
            naming.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    assert_eq!(naming, ["mod.rs"]);
    for file in ["script.rs", "archive.rs", "play.rs"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(text.contains("super::session_failure("), "{file}");
    }
}
