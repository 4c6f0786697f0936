//! A match holds at most 9999 games. Once game 9999 has ended, `play` and `script`
//! without `--game` refuse to open game 10000 (70, "the highest a match may hold"): nothing is
//! created and nothing else in the match changes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

const RULES: &str = "rules/kasparov-deep-junior-2003.toml";
const QUICK: &str = "examples/scripts/quick.arb";

fn arbiter_run(args: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Every file under `dir` with its bytes, sorted by path.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A match whose game 9999 is the rehearsal of `quick.arb`, ended by resignation (or not).
fn match_at_9999(tmp: &Path, ended: bool) -> std::path::PathBuf {
    let m = tmp.join(if ended { "ended" } else { "open" });
    crate::log_util::arbiter_key_in(&m);
    let mut text = std::fs::read_to_string(QUICK).unwrap();
    if ended {
        text.push_str("0:17:00  human resign\n");
    }
    let file = tmp.join("g.arb");
    std::fs::write(&file, text).unwrap();
    let f = file.display().to_string();
    let d = m.display().to_string();
    let (code, err) = arbiter_run(&["script", &f, "--match", &d, "--game", "9999"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(arbiter::record::layout::games(&m), vec![9999]);
    assert_eq!(arbiter::board::matchdir::is_finished(&m, 9999), ended);
    m
}

#[test]
fn game_9999_ended_play_and_script_refuse_game_10000() {
    let tmp = tempfile::tempdir().unwrap();
    let m = match_at_9999(tmp.path(), true);
    let d = m.display().to_string();
    let before = snapshot(&m);
    // `script` without --game: 70, the limit named, nothing written.
    let (code, err) = arbiter_run(&["script", QUICK, "--match", &d]);
    assert_eq!(code, Some(70), "{err}");
    assert!(
        err.contains("game 9999, the highest a match may hold"),
        "{err}"
    );
    assert_eq!(snapshot(&m), before);
    // What `arbiter play` opens before its first frame (the board needs a terminal): the
    // library refuses with the same error, and the CLI maps it to 70.
    let key = arbiter::record::sign::KeySource {
        file: None,
        passphrase_env: None,
        agent: false,
    };
    let rules = Path::new(RULES);
    let e = arbiter::board::tui::open_session(&arbiter::board::tui::PlaySetup {
        match_dir: &m,
        game: None,
        rules: Some(rules),
        key: &key,
        declarations: None,
        demo: false,
    })
    .err()
    .expect("opening a game after 9999 must be refused");
    let text = e.to_string();
    assert!(text.contains("the highest a match may hold"), "{text}");
    assert!(text.contains("no game 10000 is opened"), "{text}");
    let e = arbiter::board::matchdir::open_game_with(&m, None, Some(rules), &key, false)
        .err()
        .expect("open_game_with must refuse game 10000");
    assert!(
        matches!(
            e,
            arbiter::board::matchdir::MatchError::Full { last: 9999, .. }
        ),
        "{e}"
    );
    assert_eq!(
        arbiter::cli::match_failure(e).exit(),
        arbiter::error::Exit::Unavailable
    );
    assert_eq!(snapshot(&m), before);
    assert!(!m.join("game-10000").exists());
    // `--game 9999` still opens the ended game itself (to read it, or as play does).
    assert!(
        arbiter::board::matchdir::open_game_with(&m, Some(9999), Some(rules), &key, false).is_ok()
    );
}

#[test]
fn game_9999_not_ended_is_the_one_play_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let m = match_at_9999(tmp.path(), false);
    let key = arbiter::record::sign::KeySource {
        file: None,
        passphrase_env: None,
        agent: false,
    };
    let o = arbiter::board::matchdir::open_game_with(&m, None, Some(Path::new(RULES)), &key, false)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.session.game.ctx().game, 9999);
    assert!(!m.join("game-10000").exists());
}
