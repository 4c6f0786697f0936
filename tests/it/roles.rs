//! Rule 5b and the roles at the keyboard: every command belongs to the operator or needs the
//! arbiter's authorization (the human's acts, the supervisor's and the committee's are recorded by
//! the arbiter). The Board UI asks the arbiter's passphrase for the latter (tests/it/pty.rs).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::board::tui::needs_authority;
use arbiter::core::command::{HELP, Role, parse};

use crate::tui_support::demo_game;

/// A help line's words made parsable (the same fillers as the unit test of the help table).
fn example(words: &str) -> Option<String> {
    let line = words
        .replace(
            "white|black human|machine NAME",
            "white human Garry Kasparov",
        )
        .replace("waive|charge [H:MM:SS] REASON", "charge 0:01:00 a reason")
        .replace("COPY COPY … [program FILE]", "a.log b.log")
        .replace("SAN|UCI", "e4")
        .replace("threefold|fifty [MOVE]", "threefold Nf3")
        .replace("threefold|fifty", "threefold")
        .replace("SEQ", "3")
        .replace("REASON", "a reason")
        .replace("TEXT", "some text");
    parse(&line).ok().map(|_| line)
}

#[test]
fn clause_5b_every_command_belongs_to_the_operator_or_needs_the_arbiter() {
    let mut checked = 0;
    for h in HELP {
        let Some(line) = example(h.words) else {
            continue;
        };
        let cmd = parse(&line).unwrap();
        let want = match h.who {
            "operator" => Role::Operator,
            "move" => Role::Operator,
            _ => Role::Arbiter,
        };
        assert_eq!(cmd.role(), want, "{line}");
        checked += 1;
    }
    assert!(checked > 30, "only {checked} help lines checked");
}

#[test]
fn clause_5b_the_operator_s_rights_need_nothing_more_and_the_rest_is_gated() {
    let mut r = crate::tui_support::Rig::new();
    r.at("0", "arbiter start").at("0:10", "move e4");
    let g = &r.s.game;
    for line in [
        "move e5",
        "operator internal-clock 1:59:00",
        "operator offer-draw eval 0.05",
        "operator resign",
        "operator technical-problem the engine hangs",
        "operator param-request hash set at 16 by accident",
        "operator tablebase-draw",
    ] {
        assert!(!needs_authority(&parse(line).unwrap(), g), "{line}");
    }
    for line in [
        "arbiter correct 6d clock machine +600 asked by nobody",
        "arbiter stop a reason",
        "arbiter resume",
        "arbiter decide 1 0-1 a ruling",
        "arbiter restart-gap waive a reason",
        "arbiter no-show human",
        "arbiter tablebase-draw",
        "human resign",
        "human offer-draw",
        "human accept-draw",
        "human claim threefold",
        "committee ruling 1 the game stands",
        "supervisor info-stop what is happening",
    ] {
        assert!(needs_authority(&parse(line).unwrap(), g), "{line}");
    }
    // Before the start, declarations are a draft: nothing is recorded until the (authorized)
    // start.
    let draft = demo_game();
    assert!(!needs_authority(
        &parse("arbiter declare operator Amir Ban").unwrap(),
        &draft
    ));
    assert!(needs_authority(&parse("arbiter start").unwrap(), &draft));
}

/// 5b: a script acts with the arbiter's authorization: it runs only with his signing key (an
/// encrypted key needs its passphrase), and one `authorized` entry names the script, its SHA-256
/// and the key, covering every entry the script recorded.
#[test]
fn clause_5b_a_script_needs_the_arbiters_key_and_the_log_names_it() {
    use crate::realgame::{arbiter, ok};
    use sha2::Digest;
    let tmp = tempfile::tempdir().unwrap();
    let script = tmp.path().join("game.arb");
    let text = "0 arbiter declare white human Garry Kasparov
0 arbiter declare black machine Deep Junior
0 arbiter declare operator Amir Ban
0 arbiter start
5 move e4
9 move e5
";
    std::fs::write(&script, text).unwrap();
    let dir = tmp.path().join("m");
    let s = script.to_str().unwrap();
    let d = dir.to_str().unwrap();
    // Without the arbiter's key nothing runs and nothing is written.
    let out = arbiter(&["script", s, "--match", d]);
    assert!(!out.status.success());
    assert!(!dir.join("game-1").join("log.jsonl").exists());
    // An encrypted key without its passphrase: refused too.
    let key = dir.join("keys").join("arbiter");
    let public = arbiter::record::sign::keygen_with_rounds(
        &key,
        Some("s3cret pass"),
        "arbiter",
        arbiter::record::sign::TEST_KDF_ROUNDS,
    )
    .unwrap();
    arbiter::record::sign::ensure_allowed_signer(&dir, "arbiter", &public).unwrap();
    let out = arbiter(&["script", s, "--match", d]);
    assert!(!out.status.success(), "ran without the passphrase");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("passphrase"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.join("game-1").join("log.jsonl").exists());
    // With it, the script runs and the log names it.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["script", s, "--match", d, "--passphrase-env", "ARB_PASS"])
        .env("ARB_PASS", "s3cret pass")
        .output()
        .unwrap();
    ok(&out);
    let log = std::fs::read_to_string(dir.join("game-1").join("log.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = lines.last().unwrap();
    assert_eq!(last["kind"], "authorized", "{log}");
    let digest = hex::encode(sha2::Sha256::digest(text.as_bytes()));
    let body = &last["body"];
    assert_eq!(body["first"], 0);
    assert_eq!(body["last"], lines.len() as u64 - 2);
    let command = body["command"].as_str().unwrap();
    assert!(command.starts_with("script "), "{command}");
    assert!(command.contains(&digest), "{command}");
    let by = body["by"].as_str().unwrap();
    assert!(by.contains("SHA256:") && by.contains("passphrase"), "{by}");
    ok(&arbiter(&["verify", "--match", d]));
}
