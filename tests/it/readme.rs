//! README.md's examples are what the kit accepts: the per-clause script block runs without a
//! refusal, and the two set-up commands are the ones .ci/run relies on.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use arbiter::board::session::{memory_session, run_script};
use arbiter::core::game::Phase;
use arbiter::core::script::parse_script;

#[test]
fn readme_clause_examples_run_without_refusal() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let at = readme.find("One example line per clause").unwrap();
    let start = readme[at..].find("```text\n").unwrap() + at + 8;
    let end = readme[start..].find("```").unwrap() + start;
    let lines = parse_script(&readme[start..end]).unwrap();
    assert!(lines.len() > 40, "the block has a line per clause");
    let mut s = memory_session(
        Path::new("rules/kasparov-deep-junior-2003.toml"),
        "readme",
        1,
    )
    .unwrap();
    run_script(&mut s, &lines)
        .unwrap_or_else(|(line, e)| panic!("README example line {line}: {e}"));
    assert_eq!(s.game.phase(), Phase::Ended);
    let readme_clauses: std::collections::BTreeSet<&str> = readme[start..end]
        .lines()
        .filter_map(|l| l.split("# ").nth(1))
        .filter_map(|c| c.split([':', ' ', ',']).next())
        .collect();
    for c in [
        "1", "3", "4c", "5b", "6a", "6b", "6c", "6d", "6g", "6l", "7b", "7c", "7e", "8a", "8b",
        "9a", "9c", "9d", "9e", "12",
    ] {
        assert!(
            readme_clauses.contains(c),
            "README example block lacks clause {c}"
        );
    }
}

#[test]
fn readme_opens_with_the_two_setup_commands() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let first: Vec<&str> = readme.lines().take(4).collect();
    assert_eq!(
        first,
        ["```sh", "cargo run --release -- play", "cargo test", "```"]
    );
    let ci = std::fs::read_to_string(".ci/run").unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == "cargo test"),
        ".ci/run runs README's test command"
    );
}

/// README's "Examples" block, run as written by bash (`set -euo pipefail`) from a fresh folder
/// holding the project's `examples/` and `rules/`, with this build's `arbiter` on PATH.
#[test]
fn readme_examples_run_as_written() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let start = readme
        .find("Examples (run as written")
        .expect("README has the Examples block");
    let block = &readme[start..];
    let open = block.find("```sh\n").unwrap() + "```sh\n".len();
    let close = block[open..].find("```").unwrap();
    let script = &block[open..open + close];
    assert!(script.lines().count() >= 10, "{script}");
    let tmp = tempfile::tempdir().unwrap();
    let root = std::env::current_dir().unwrap();
    for d in ["examples", "rules"] {
        std::os::unix::fs::symlink(root.join(d), tmp.path().join(d)).unwrap();
    }
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_arbiter"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .args(["-euo", "pipefail", "-x", "-c", script])
        .current_dir(tmp.path())
        .env("PATH", path)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "README example failed ({:?}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(tmp.path().join("game1.pgn").is_file());
    assert!(tmp.path().join("proof.json").is_file());
}

/// README's block of each match's profile (issue 23), run as written by bash from a fresh folder
/// holding `examples/` and `rules/`: every profile loads with `arbiter script --rules`.
#[test]
fn readme_profile_examples_run_as_written() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let start = readme
        .find("Each match's profile (run as written")
        .expect("README has the profiles block");
    let block = &readme[start..];
    let open = block.find("```sh\n").unwrap() + "```sh\n".len();
    let close = block[open..].find("```").unwrap();
    let script = &block[open..open + close];
    let tmp = tempfile::tempdir().unwrap();
    let root = std::env::current_dir().unwrap();
    for d in ["examples", "rules"] {
        std::os::unix::fs::symlink(root.join(d), tmp.path().join(d)).unwrap();
    }
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_arbiter"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .current_dir(tmp.path())
        .env("PATH", path)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (f, name) in [
        ("deep-blue-1997", "Deep Blue, New York 1997"),
        ("kramnik-deep-fritz-2002", "Manama 2002"),
        ("x3d-fritz-2003", "X3D Fritz, New York 2003"),
        ("kramnik-deep-fritz-2006", "Bonn 2006"),
        ("nakamura-komodo-2016", "Chess.com 2016"),
    ] {
        assert!(script.contains(&format!("rules/{f}.toml")), "{f}");
        assert!(stdout.contains(name), "{name}: {stdout}");
    }
    assert!(stdout.contains("result: 1-0 (Checkmate"), "{stdout}");
}

#[test]
fn readme_declarations_example_opens_and_starts_a_game() {
    // The `decl.arb` block under "Another match", used as README says:
    // `arbiter play --match DIR --declarations decl.arb`, then Space.
    let readme = std::fs::read_to_string("README.md").unwrap();
    let at = readme.find("`decl.arb`").unwrap();
    let start = readme[at..].find("```text\n").unwrap() + at + 8;
    let end = readme[start..].find("```").unwrap() + start;
    let dir = tempfile::tempdir().unwrap();
    let decl = dir.path().join("decl.arb");
    std::fs::write(&decl, &readme[start..end]).unwrap();
    let m = dir.path().join("nyc-2003");
    crate::log_util::arbiter_key_in(&m); // a real match needs a real key (issue 11)
    let key = arbiter::record::sign::KeySource::default();
    let (mut s, _, _, _) = arbiter::board::tui::open_session(&arbiter::board::tui::PlaySetup {
        match_dir: &m,
        game: None,
        rules: Some(Path::new("rules/kasparov-deep-junior-2003.toml")),
        key: &key,
        declarations: Some(&decl),
        demo: false,
    })
    .unwrap();
    assert!(
        s.game.draft().config_sha256.is_some(),
        "the example declares the 8a digest"
    );
    s.execute(&arbiter::core::command::Command::Start, 0)
        .unwrap();
    assert_eq!(s.game.phase(), Phase::Playing);
    assert_eq!(
        s.game.player(arbiter::core::Side::Black).unwrap().name,
        "Deep Junior"
    );
}

/// README's press-then-notation lines run as written after a start, and the clocks follow the
/// presses.
#[test]
fn readme_press_example_runs_and_the_clocks_follow_the_presses() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let at = readme.find("**The press is the time").unwrap();
    let start = readme[at..].find("```text\n").unwrap() + at + 8;
    let end = readme[start..].find("```").unwrap() + start;
    let text = format!(
        "0 arbiter declare white human Garry Kasparov
0 arbiter declare black machine Deep Junior
0 arbiter declare operator Amir Ban
0 arbiter start
{}",
        &readme[start..end]
    );
    let lines = parse_script(&text).unwrap();
    let mut s = memory_session(
        Path::new("rules/kasparov-deep-junior-2003.toml"),
        "readme",
        1,
    )
    .unwrap();
    run_script(&mut s, &lines).unwrap_or_else(|(line, e)| panic!("line {line}: {e}"));
    let v = s.game.view(44_000, usize::MAX);
    assert_eq!(v.plies, 2);
    // White pressed at 10 s and Black's clock ran 10 s to 40 s; White's runs from 40 s.
    assert_eq!(v.clocks[0].remaining_ms, 7_200_000 - 10_000 - 4_000);
    assert_eq!(v.clocks[1].remaining_ms, 7_200_000 - 30_000);
}

/// README's set-up block, run as written by bash from a fresh folder with no `rules/`, `HOME`
/// in a temp folder and this build's `arbiter` on PATH. Its first line, `cargo install --path .`,
/// is the release build of this same package and is checked to be there, not rebuilt here
/// (tests/it/anywhere.rs runs the built binary from a folder without `rules/`).
#[test]
fn readme_setup_installs_and_runs_anywhere() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let start = readme
        .find("## Set-up")
        .expect("README has a set-up section");
    let block = &readme[start..];
    let open = block.find("```sh\n").unwrap() + "```sh\n".len();
    let close = block[open..].find("```").unwrap();
    let script = &block[open..open + close];
    assert_eq!(script.lines().next(), Some("cargo install --path ."));
    let rest: String = script.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let tmp = tempfile::tempdir().unwrap();
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_arbiter"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .args(["-euo", "pipefail", "-c", &rest])
        .current_dir(tmp.path())
        .env("HOME", tmp.path())
        .env("PATH", path)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "README set-up failed ({:?}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("kasparov-deep-junior-2003"));
    let completion = tmp
        .path()
        .join(".local/share/bash-completion/completions/arbiter");
    assert!(
        std::fs::read_to_string(completion)
            .unwrap()
            .contains("_arbiter")
    );
    let man = tmp.path().join(".local/share/man/man1/arbiter.1");
    assert!(
        std::fs::read_to_string(man)
            .unwrap()
            .contains(".TH arbiter 1")
    );
}
