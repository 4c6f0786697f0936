//! The small signed demo game kept under tests/fixtures/demo-match: it verifies with the kit, with
//! ssh-keygen and with the jq + sha256sum recipe, and it replays to its recorded result.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

const MATCH: &str = "tests/fixtures/demo-match";

fn tool(name: &str) -> bool {
    let found = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {name}"))
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{name} is required in CI (.ci/run installs it)"
        );
        println!("SKIPPED: {name} is not installed");
    }
    found
}

#[test]
fn fixture_verifies_with_the_kit_and_replays_to_its_result() {
    let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["verify", "--json", "--match", MATCH])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let entries =
        arbiter::record::journal::read_entries(&Path::new(MATCH).join("game-1/log.jsonl")).unwrap();
    let events = arbiter::log::codec::events_of(&entries).unwrap();
    let g = arbiter::core::game::Game::replay(events.iter()).unwrap();
    let o = g.outcome().unwrap();
    assert_eq!(o.score.text(), "1-0");
    assert_eq!(o.termination, arbiter::core::event::Termination::Checkmate);
    // The machine (white) was credited 20 s by the 6d correction, and its clock shows it.
    let spent: u64 = events
        .iter()
        .filter_map(|e| match &e.kind {
            arbiter::core::event::EventKind::MoveMade {
                side: arbiter::core::Side::White,
                spent_ms,
                ..
            } => Some(*spent_ms),
            _ => None,
        })
        .sum();
    assert_eq!(
        g.remaining(arbiter::core::Side::White, g.last_at()),
        7_200_000 + 20_000 - spent as i64
    );
}

#[test]
fn fixture_checkpoint_passes_ssh_keygen_and_the_chain_head_recipe() {
    let last = arbiter::board::matchdir::latest_checkpoint(Path::new(MATCH), 1).unwrap();
    let cp = format!("{MATCH}/game-1/checkpoints/{last}.txt");
    let text = std::fs::read_to_string(&cp).unwrap();
    let chain = text
        .lines()
        .nth(3)
        .unwrap()
        .strip_prefix("chain ")
        .unwrap()
        .to_string();
    if tool("ssh-keygen") {
        let st = Command::new("sh")
            .arg("-c")
            .arg(format!("ssh-keygen -Y verify -f {MATCH}/allowed_signers -I arbiter -n arbiter-kit-checkpoint -s {cp}.sig < {cp}"))
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
    }
    if tool("jq") {
        let out = Command::new("sh")
            .arg("docs/chain-head.sh")
            .arg(format!("{MATCH}/game-1/log.jsonl"))
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), chain);
    }
}

#[test]
fn fixture_tampered_copy_fails_verification() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    std::fs::create_dir_all(m.join("game-1/checkpoints")).unwrap();
    std::fs::copy(
        format!("{MATCH}/allowed_signers"),
        m.join("allowed_signers"),
    )
    .unwrap();
    for e in std::fs::read_dir(format!("{MATCH}/game-1/checkpoints")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), m.join("game-1/checkpoints").join(e.file_name())).unwrap();
    }
    let log = std::fs::read_to_string(format!("{MATCH}/game-1/log.jsonl")).unwrap();
    // The human's flag: shift a move's time by one millisecond.
    let tampered = log.replacen("\"spent_ms\":50000", "\"spent_ms\":50001", 1);
    assert_ne!(tampered, log, "the fixture has the move this test edits");
    std::fs::write(m.join("game-1/log.jsonl"), tampered).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .arg("verify")
        .arg("--match")
        .arg(&m)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(20),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
