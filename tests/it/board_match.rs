//! Match-level pieces around the Board UI: `declare config-file` (the shell hashes
//! the document), the next game's declarations carried over with colours swapped, README's
//! `--declarations` lines, and `arbiter status` computing a running clock for now.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

use arbiter::board::session::{SessionError, memory_session};
use arbiter::board::tui::{self, PlaySetup};
use arbiter::core::Side;
use arbiter::core::command::parse;
use arbiter::core::event::PlayerKind;
use arbiter::core::game::Phase;
use arbiter::record::sign::KeySource;
use sha2::{Digest, Sha256};

const RULES: &str = "rules/kasparov-deep-junior-2003.toml";

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_arbiter")
}

#[test]
fn clause_8a_declare_config_file_declares_the_documents_sha256() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("junior-config.txt");
    let text = b"Deep Junior 8, 8 threads, book junior2003.ctg, hash 512 MB\n";
    std::fs::write(&doc, text).unwrap();
    let mut s = memory_session(Path::new(RULES), "m", 1).unwrap();
    let cmd = parse(&format!("arbiter declare config-file {}", doc.display())).unwrap();
    s.execute(&cmd, 0).unwrap();
    assert_eq!(
        s.game.draft().config_sha256.as_deref(),
        Some(hex::encode(Sha256::digest(text)).as_str())
    );
}

#[test]
fn clause_8a_declare_config_file_that_cannot_be_read_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-document.txt");
    let mut s = memory_session(Path::new(RULES), "m", 1).unwrap();
    let before = s.game.draft().clone();
    let cmd = parse(&format!(
        "arbiter declare config-file {}",
        missing.display()
    ))
    .unwrap();
    match s.execute(&cmd, 0) {
        Err(SessionError::Refused(r)) => {
            let m = r.to_string();
            assert!(m.contains("8a"), "{m}");
            assert!(m.contains("no-such-document.txt"), "{m}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.game.draft(), &before);
    assert!(s.storage.is_empty());
}

#[test]
fn clause_8a_readme_declarations_lines_with_a_script_time_are_accepted() {
    let cmds = tui::parse_declarations(
        "0 arbiter declare white human Garry Kasparov\n\
         0:00:00 arbiter declare black machine Deep Junior   # with a comment\n\
         arbiter declare operator Amir Ban\n",
    )
    .unwrap();
    assert_eq!(cmds.len(), 3);
    // A line that is not a declaration still names its line.
    let e = tui::parse_declarations("0 arbiter declare\n").unwrap_err();
    assert_eq!(e.line, 1);
}

/// A match folder whose game 1 (Kasparov white) ended by resignation, run by the binary.
fn match_with_game_one() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::log_util::arbiter_key_in(&dir.path().join("m"));
    let script = dir.path().join("g1.arb");
    std::fs::write(
        &script,
        "0 arbiter declare white human Garry Kasparov\n\
         0 arbiter declare black machine Deep Junior\n\
         0 arbiter declare operator Amir Ban\n\
         0 arbiter declare team Shay Bushinsky, Boris Alterman\n\
         0 arbiter declare config aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n\
         0 arbiter start\n\
         0:00:10 move e4\n\
         0:00:20 move e5\n\
         0:00:30 human resign\n",
    )
    .unwrap();
    let out = Command::new(bin())
        .arg("script")
        .arg(&script)
        .arg("--match")
        .arg(dir.path().join("m"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

#[test]
fn clause_4c_next_game_starts_from_the_previous_declarations_with_colours_swapped() {
    let dir = match_with_game_one();
    let m = dir.path().join("m");
    let key = KeySource::default();
    let (session, _, _, ui) = tui::open_session(&PlaySetup {
        match_dir: &m,
        game: None,
        rules: Some(Path::new(RULES)),
        key: &key,
        declarations: None,
        demo: false,
    })
    .unwrap();
    let g = &session.game;
    assert_eq!(g.ctx().game, 2);
    assert_eq!(
        g.phase(),
        Phase::Draft,
        "shown for confirmation, not yet recorded"
    );
    let white = g.draft().white.clone().unwrap();
    let black = g.draft().black.clone().unwrap();
    assert_eq!(
        (white.name.as_str(), white.kind),
        ("Deep Junior", PlayerKind::Machine)
    );
    assert_eq!(
        (black.name.as_str(), black.kind),
        ("Garry Kasparov", PlayerKind::Human)
    );
    assert_eq!(g.draft().operator.as_deref(), Some("Amir Ban"));
    assert_eq!(g.draft().team, ["Shay Bushinsky", "Boris Alterman"]);
    // 8a: the digest is for each game: not carried over, and its absence is said.
    assert_eq!(g.draft().config_sha256, None);
    let note = ui.message.unwrap().text;
    assert!(
        note.contains("carried over from game 1 with colours swapped"),
        "{note}"
    );
    assert!(note.contains("8a: no configuration digest"), "{note}");
    // The match score, for the header.
    let score = ui.score.unwrap();
    assert!(
        score.contains("Garry Kasparov 0") && score.contains("Deep Junior 1"),
        "{score}"
    );
    // Nothing is written for game 2 until the arbiter presses the clock.
    assert!(!m.join("game-2/log.jsonl").exists());
    let view = g.view(0, 10);
    assert_eq!(view.declarations.white.unwrap().name, "Deep Junior");
    assert_eq!(view.clocks[Side::White.index()].name, "Deep Junior");
}

#[test]
fn clause_3_status_says_a_running_clock_is_computed_for_now_and_gives_the_score() {
    let dir = tempfile::tempdir().unwrap();
    crate::log_util::arbiter_key_in(&dir.path().join("m"));
    let m = dir.path().join("m").display().to_string();
    let out = Command::new(bin())
        .args(["script", "examples/scripts/quick.arb", "--match", &m])
        .output()
        .unwrap();
    assert!(out.status.success());
    let out = Command::new(bin())
        .args(["status", "--match", &m])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("clocks as of now"), "{text}");
    assert!(text.contains("computed"), "{text}");
    let out = Command::new(bin())
        .args(["status", "--match", &m, "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["now"]["computed"], serde_json::json!(true), "{v}");
    assert!(
        v["now"]["game_time_ms"].as_u64().unwrap() >= v["now"]["last_entry_ms"].as_u64().unwrap()
    );
    assert!(v["match_score"].is_array(), "{v}");
    // The view's fields are still at the top.
    assert!(v["clocks"].is_array(), "{v}");
}
