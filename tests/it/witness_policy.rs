//! The match policy's live witnesses: the profile's `[witness] every = N` becomes one signed
//! `witness <camp> every <N>` line per camp, the kit signs a checkpoint every N entries (with a
//! key that signs without asking, or refuses at open), and `verify` fails a game whose camp left
//! an interval uncosigned (`UNWITNESSED_INTERVAL`, 35).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::witness_live::{Proc, append_forged, cosig, live, match_with_camps, until, witness};

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");
const RULES: &str = "rules/kasparov-deep-junior-2003.toml";
/// The camps witness live, a checkpoint every 4 entries.
pub(crate) const LIVE: &str = "\n[witness]\nevery = 4\n";

fn arbiter(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn said(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The 2003 profile with `extra` appended, written beside the match.
pub(crate) fn rules_with(tmp: &Path, extra: &str) -> PathBuf {
    let p = tmp.join("2003-live.toml");
    std::fs::write(&p, std::fs::read_to_string(RULES).unwrap() + extra).unwrap();
    p
}

/// examples/scripts/quick.arb with the camps declared and `tail` after it, run into `m` under
/// `rules`.
pub(crate) fn quick(tmp: &Path, m: &Path, declared: &str, rules: &Path, tail: &str) -> Output {
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    let s = tmp.join("quick.arb");
    std::fs::write(&s, format!("{declared}{quick}{tail}")).unwrap();
    arbiter(&[
        "script",
        s.to_str().unwrap(),
        "--match",
        m.to_str().unwrap(),
        "--rules",
        rules.to_str().unwrap(),
    ])
}

/// The sizes of game 1's signed checkpoints, smallest first.
pub(crate) fn checkpoints(m: &Path) -> Vec<u64> {
    let mut n: Vec<u64> = std::fs::read_dir(m.join("game-1/checkpoints"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".txt.sig")?
                .parse()
                .ok()
        })
        .collect();
    n.sort_unstable();
    n
}

pub(crate) fn verify(m: &Path) -> (i32, String) {
    let o = arbiter(&["verify", "--match", m.to_str().unwrap()]);
    (o.status.code().unwrap_or(-1), said(&o))
}

/// A match with two camps declared with their proofs, both camps' witnesses following the live
/// record while `quick.arb` is played under `extra` appended to the 2003 profile, until each
/// camp cosigned every checkpoint: the folder, the checkpoint sizes and the witnesses.
pub(crate) fn witnessed_game(tmp: &Path, extra: &str) -> (PathBuf, Vec<u64>, Vec<Proc>) {
    witnessed_game_with(tmp, extra, "")
}

/// [`witnessed_game`] with `tail` played after quick.arb.
pub(crate) fn witnessed_game_with(
    tmp: &Path,
    extra: &str,
    tail: &str,
) -> (PathBuf, Vec<u64>, Vec<Proc>) {
    let (m, camps, declared) = match_with_camps(tmp);
    let (live, url) = live(&m);
    let mut procs = vec![live];
    for (c, k) in &camps {
        procs.push(witness(&url, &m, c, k, &tmp.join(format!("copy-{c}"))));
    }
    let o = quick(tmp, &m, &declared, &rules_with(tmp, extra), tail);
    assert!(o.status.success(), "{}", said(&o));
    let sizes = checkpoints(&m);
    until("both camps' cosignatures of every checkpoint", || {
        sizes
            .iter()
            .all(|s| camps.iter().all(|(c, _)| cosig(&m, *s, c).exists()))
    });
    (m, sizes, procs)
}

/// Every file of a folder with its bytes.
pub(crate) fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                out.push((p, bytes));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn policy_witness_line_is_written_and_signed_from_the_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, sizes, _procs) = witnessed_game(tmp.path(), LIVE);
    let text = std::fs::read_to_string(m.join("policy.txt")).unwrap();
    assert!(
        text.ends_with("witness kasparov every 4\nwitness junior every 4\n"),
        "{text}"
    );
    // Signed with the rest: the policy verifies with the match's allowed signers.
    let signers = arbiter::record::sign::parse_allowed_signers(
        &std::fs::read_to_string(m.join("allowed_signers")).unwrap(),
    )
    .0;
    let (p, _) = arbiter::record::witness::read_policy(&m, &signers)
        .unwrap()
        .unwrap();
    assert_eq!(
        p.witness,
        vec![("kasparov".to_owned(), 4), ("junior".to_owned(), 4)]
    );
    // The kit signed at the interval: no stretch of more than 4 entries between checkpoints.
    let mut last = 0;
    for s in &sizes {
        assert!(s - last <= 4, "checkpoints {sizes:?}");
        last = *s;
    }
    let entries = std::fs::read_to_string(m.join("game-1/log.jsonl"))
        .unwrap()
        .lines()
        .count() as u64;
    assert_eq!(last, entries, "the closing checkpoint covers the log");
}

#[test]
fn policy_witness_interval_cosigned_by_both_camps_verifies_0() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, _, procs) = witnessed_game(tmp.path(), LIVE);
    drop(procs);
    let (code, out) = verify(&m);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("camp kasparov witnessed live") && out.contains("camp junior witnessed live"),
        "{out}"
    );
}

#[test]
fn policy_witness_interval_without_one_camps_cosignatures_fails_naming_the_camp_and_stretch() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, sizes, procs) = witnessed_game(tmp.path(), LIVE);
    drop(procs);
    // A checkpoint whose removal leaves more than 4 entries between its neighbours.
    let i = (0..sizes.len() - 1)
        .find(|&i| {
            let before = if i == 0 { 0 } else { sizes[i - 1] };
            sizes[i + 1] - before > 4
        })
        .unwrap_or_else(|| panic!("checkpoints {sizes:?}"));
    let before = if i == 0 { 0 } else { sizes[i - 1] };
    std::fs::remove_file(cosig(&m, sizes[i], "junior")).unwrap();
    let (code, out) = verify(&m);
    assert_eq!(code, 35, "{out}");
    assert!(out.contains("INTERVAL NOT WITNESSED"), "{out}");
    let stretch = format!(
        "UNWITNESSED_INTERVAL: camp junior cosigned no checkpoint over entries {before}..{}",
        sizes[i + 1] - 1
    );
    assert!(out.contains(&stretch), "{stretch}\n{out}");
    assert!(out.contains("camp kasparov witnessed live"), "{out}");
    let o = arbiter(&["verify", "--match", m.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["games"][0]["status"], "UNWITNESSED_INTERVAL", "{v}");
}

#[test]
fn policy_witness_interval_needs_a_key_that_signs_without_asking() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    let key = m.join("keys/arbiter");
    std::fs::create_dir_all(key.parent().unwrap()).unwrap();
    let public = arbiter::record::sign::keygen_with_rounds(
        &key,
        Some("correct horse"),
        "arbiter",
        arbiter::record::sign::TEST_KDF_ROUNDS,
    )
    .unwrap();
    arbiter::record::sign::ensure_allowed_signer(&m, "arbiter", &public).unwrap();
    let (_, _, declared) = match_with_camps(tmp.path());
    let before = contents(&m);
    let o = Command::new(BIN)
        .env_remove("SSH_AUTH_SOCK")
        .args(["script", "--match", m.to_str().unwrap(), "--rules"])
        .arg(rules_with(tmp.path(), LIVE))
        .arg({
            let s = tmp.path().join("quick.arb");
            let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
            std::fs::write(&s, format!("{declared}{quick}")).unwrap();
            s
        })
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let out = said(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("witness live every 4 entries")
            && out.contains("is encrypted and no ssh-agent signs for it")
            && out.contains("--agent")
            && out.contains("nothing is opened or recorded"),
        "{out}"
    );
    assert_eq!(contents(&m), before, "the folder is unchanged");
    // The same key with its passphrase in the environment (a rehearsal) signs without asking:
    // the game is recorded, checkpoints every 4 entries.
    let o = Command::new(BIN)
        .env_remove("SSH_AUTH_SOCK")
        .env("ARBITER_TEST_PASS", "correct horse")
        .args(["script", "--match", m.to_str().unwrap(), "--rules"])
        .arg(rules_with(tmp.path(), LIVE))
        .arg(tmp.path().join("quick.arb"))
        .args(["--passphrase-env", "ARBITER_TEST_PASS"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", said(&o));
    let policy = std::fs::read_to_string(m.join("policy.txt")).unwrap();
    assert!(
        policy.contains("\nrehearsal\n") && policy.contains("witness junior every 4\n"),
        "{policy}"
    );
    assert_eq!(checkpoints(&m).first(), Some(&4));
    // Now the match policy asks for live witnesses: the next game's script, a table served
    // into the match and the archive of game 1 are refused the same way without the passphrase
    // at hand.
    let copy = tmp.path().join("engine.log");
    std::fs::write(&copy, "engine log\n").unwrap();
    let before = contents(&m);
    for (game, args) in [
        (
            2,
            vec!["script", tmp.path().join("quick.arb").to_str().unwrap()],
        ),
        (
            2,
            vec![
                "serve",
                "--rules",
                "rules/aiwolf-2025-5.toml",
                "--listen",
                "127.0.0.1:0",
                "--plain",
            ],
        ),
        (
            1,
            vec![
                "archive",
                "--game",
                "1",
                copy.to_str().unwrap(),
                copy.to_str().unwrap(),
            ],
        ),
    ] {
        let o = Command::new(BIN)
            .env_remove("SSH_AUTH_SOCK")
            .args(&args)
            .args(["--match", m.to_str().unwrap()])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let out = said(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {out}");
        assert!(
            out.contains(&format!(
                "game {game}: the match policy has the camps witness live every 4 entries"
            )) && out.contains("--agent"),
            "{args:?}: {out}"
        );
        assert_eq!(contents(&m), before, "{args:?}: the folder is unchanged");
    }
}

#[test]
fn policy_without_witness_lines_verifies_as_before() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, sizes, procs) = witnessed_game(tmp.path(), "");
    drop(procs);
    let text = std::fs::read_to_string(m.join("policy.txt")).unwrap();
    assert!(!text.contains("\nwitness "), "{text}");
    assert!(
        arbiter::log::policy::Policy::parse(&text)
            .unwrap()
            .witness
            .is_empty()
    );
    // Checkpoints only where the rules put them (no interval).
    assert_eq!(sizes, vec![10, 11, 13]);
    // One camp's cosignature removed: as before, a game in play asks for none.
    std::fs::remove_file(cosig(&m, 10, "junior")).unwrap();
    let (code, out) = verify(&m);
    assert_eq!(code, 0, "{out}");
    assert!(
        !out.contains("UNWITNESSED_INTERVAL") && !out.contains("witnessed live"),
        "{out}"
    );
}

#[test]
fn policy_witness_profile_bad_values_are_named_with_the_profile_key_and_problem() {
    let tmp = tempfile::tempdir().unwrap();
    for (extra, key, problem) in [
        (
            "\n[witness]\nevery = 0\n",
            "witness.every",
            "must be at least 1",
        ),
        (
            "\n[witness]\ncamps = [\"kasparov\"]\n",
            "witness.camps",
            "which needs `every`",
        ),
        (
            "\n[witness]\nevery = 4\ncamps = []\n",
            "witness.camps",
            "is empty",
        ),
        (
            "\n[witness]\nevery = 4\ncamps = [\"Kasparov\"]\n",
            "witness.camps",
            "is not a camp label",
        ),
        (
            "\n[witness]\nevery = 4\ncamps = [\"junior\", \"junior\"]\n",
            "witness.camps",
            "named twice",
        ),
        (
            "\n[witness]\nevery = 4000000\n",
            "witness.every",
            "is more than 1000000",
        ),
        // A value of another type: the parser's words, at the key's line.
        ("\n[witness]\nevery = -3\n", ": every: ", "invalid value"),
    ] {
        let rules = rules_with(tmp.path(), extra);
        let o = arbiter(&[
            "script",
            "--dry-run",
            "--rules",
            rules.to_str().unwrap(),
            "examples/scripts/quick.arb",
        ]);
        let out = said(&o);
        assert_eq!(o.status.code(), Some(65), "{extra}: {out}");
        assert!(
            out.contains("2003-live.toml") && out.contains(key) && out.contains(problem),
            "{extra}: {out}"
        );
    }
}

#[test]
fn policy_witness_camps_must_be_declared_before_the_game_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, _, declared) = match_with_camps(tmp.path());
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    for (extra, script, says) in [
        (LIVE, quick.clone(), "but no camp is declared"),
        (
            "\n[witness]\nevery = 4\ncamps = [\"kasparov\", \"karpov\"]\n",
            format!("{declared}{quick}"),
            "but camp karpov is not declared",
        ),
    ] {
        let s = tmp.path().join("g.arb");
        std::fs::write(&s, script).unwrap();
        let before = contents(&m);
        let o = arbiter(&[
            "script",
            s.to_str().unwrap(),
            "--match",
            m.to_str().unwrap(),
            "--rules",
            rules_with(tmp.path(), extra).to_str().unwrap(),
        ]);
        let out = said(&o);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(
            out.contains("the profile has the camps witness live every 4 entries")
                && out.contains(says)
                && out.contains("the game is not opened"),
            "{out}"
        );
        assert_eq!(contents(&m), before, "nothing recorded");
    }
}

#[test]
fn policy_witness_result_must_be_cosigned_once_the_game_has_ended() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, sizes, procs) = witnessed_game_with(tmp.path(), LIVE, "0:17:00  operator resign\n");
    drop(procs);
    let log = std::fs::read_to_string(m.join("game-1/log.jsonl")).unwrap();
    let end = log
        .lines()
        .position(|l| l.contains("\"kind\":\"game_ended\""))
        .unwrap() as u64;
    let last = *sizes.last().unwrap();
    assert!(
        last > end,
        "the closing checkpoint {last} covers the result {end}"
    );
    // Before: the result cosigned by both (12 only for the match index the camps did not sign).
    let (code, out) = verify(&m);
    assert_eq!(code, 12, "{out}");
    // One camp's cosignatures of the checkpoints that cover the result removed: those before
    // leave no stretch of more than 4 entries, but the result is no longer covered by a
    // checkpoint that camp cosigned.
    for s in sizes.iter().filter(|s| **s > end) {
        std::fs::remove_file(cosig(&m, *s, "kasparov")).unwrap();
    }
    let before = *sizes.iter().filter(|s| **s <= end).max().unwrap();
    assert!(last - before <= 4, "checkpoints {sizes:?}");
    let (code, out) = verify(&m);
    assert_eq!(code, 35, "{out}");
    assert!(
        out.contains(&format!(
            "camp kasparov cosigned no checkpoint over entries {before}..{} ({} entries, up to the result, which no checkpoint it cosigned covers)",
            last - 1,
            last - before
        )),
        "{out}"
    );
}

#[test]
fn policy_witness_entries_past_the_last_checkpoint_beyond_the_interval_fail() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, sizes, procs) = witnessed_game(tmp.path(), LIVE);
    drop(procs);
    let last = *sizes.last().unwrap();
    // Written past the kit's checkpoints (the kit signs every 4: these were never offered to
    // the camps). Four are within the interval; the fifth is not.
    for i in 0..4 {
        append_forged(
            &m,
            "supervisor",
            "5b",
            "work_note",
            serde_json::json!({"text": format!("n{i}")}),
        );
    }
    let (code, out) = verify(&m);
    assert_eq!(code, 10, "an unsigned tail, within the interval: {out}");
    append_forged(
        &m,
        "supervisor",
        "5b",
        "work_note",
        serde_json::json!({"text": "n4"}),
    );
    let (code, out) = verify(&m);
    assert_eq!(code, 35, "{out}");
    assert!(
        out.contains(&format!(
            "camp kasparov cosigned no checkpoint over entries {last}..{} (5 entries, up to the end of the log: the kit signed no checkpoint over them)",
            last + 4
        )),
        "{out}"
    );
}

#[test]
fn policy_witness_signed_checkpoints_a_camp_left_uncosigned_past_the_interval_fail() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, sizes, procs) = witnessed_game(tmp.path(), LIVE);
    drop(procs);
    let last = *sizes.last().unwrap();
    // The camp's witness went away: its cosignatures of the last checkpoints missing, back to
    // one more than an interval before the last signed checkpoint.
    let kept = *sizes.iter().rev().find(|s| last - **s > 4).unwrap();
    for s in sizes.iter().filter(|s| **s > kept) {
        std::fs::remove_file(cosig(&m, *s, "junior")).unwrap();
    }
    let (code, out) = verify(&m);
    assert_eq!(code, 35, "{out}");
    assert!(
        out.contains(&format!(
            "camp junior cosigned no checkpoint over entries {kept}..{} ({} entries, up to the last signed checkpoint, which it did not cosign)",
            last - 1,
            last - kept
        )),
        "{out}"
    );
}

#[test]
fn policy_witness_interval_signed_through_the_agent_is_cosigned_live_and_verifies_0() {
    let tmp = tempfile::tempdir().unwrap();
    // The key only in the agent: the match folder holds its public half.
    let (m, private) = crate::agent::match_without_the_key(tmp.path());
    let Some(agent) = crate::agent::agent_with(tmp.path(), &private) else {
        return;
    };
    let mut declared = String::new();
    let mut camps = Vec::new();
    for camp in ["kasparov", "junior"] {
        let (k, line) = crate::witness::proven_camp(tmp.path(), &m, camp);
        declared.push_str(&line);
        camps.push((camp, k));
    }
    let (_live, url) = live(&m);
    let _witnesses: Vec<Proc> = camps
        .iter()
        .map(|(c, k)| witness(&url, &m, c, k, &tmp.path().join(format!("copy-{c}"))))
        .collect();
    let s = tmp.path().join("quick.arb");
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    std::fs::write(&s, format!("{declared}{quick}")).unwrap();
    let o = Command::new(BIN)
        .env("SSH_AUTH_SOCK", &agent.sock)
        .args([
            "script",
            s.to_str().unwrap(),
            "--agent",
            "--match",
            m.to_str().unwrap(),
            "--rules",
        ])
        .arg(rules_with(tmp.path(), LIVE))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", said(&o));
    assert!(
        !m.join("keys/arbiter").exists(),
        "no private key in the folder"
    );
    let sizes = checkpoints(&m);
    assert_eq!(sizes.first(), Some(&4), "{sizes:?}");
    until("both camps' cosignatures of every checkpoint", || {
        sizes
            .iter()
            .all(|s| camps.iter().all(|(c, _)| cosig(&m, *s, c).exists()))
    });
    let (code, out) = verify(&m);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("camp junior witnessed live"), "{out}");
}

/// The Board UI (`arbiter play`, in a terminal) refuses the same way at open, before it asks
/// any passphrase or draws the board.
#[test]
fn policy_witness_interval_needs_a_key_that_signs_without_asking_on_the_board_too() {
    if !crate::pty::tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    let key = m.join("keys/arbiter");
    std::fs::create_dir_all(key.parent().unwrap()).unwrap();
    let public = arbiter::record::sign::keygen_with_rounds(
        &key,
        Some("correct horse"),
        "arbiter",
        arbiter::record::sign::TEST_KDF_ROUNDS,
    )
    .unwrap();
    arbiter::record::sign::ensure_allowed_signer(&m, "arbiter", &public).unwrap();
    let rules = rules_with(tmp.path(), LIVE);
    let before = contents(&m);
    let t = crate::pty::Tmux::start_shell(
        "live-witness-key",
        &format!(
            "env -u SSH_AUTH_SOCK {{arbiter}} play --match '{}' --rules '{}'; echo \"arbiter exited $?\"; exec sleep 600",
            m.display(),
            rules.display()
        ),
        tmp.path(),
        220,
        40,
    );
    let screen = t.wait_for("arbiter exited", std::time::Duration::from_secs(20));
    let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("arbiter exited 1")
            && flat.contains("the camps witness live every 4 entries")
            && flat.contains("--agent"),
        "{screen}"
    );
    assert!(
        !flat.contains("passphrase of"),
        "no passphrase asked: {screen}"
    );
    assert_eq!(contents(&m), before, "the folder is unchanged");
}
