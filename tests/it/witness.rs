//! Through the binary: each attack on a copy of a match folder, and what `verify` says.
//! The demo key refused for a real match; a rewrite with an attacker key under `--trust` and
//! `--fingerprint`; a log cut back to an older checkpoint, a deleted game and a camp's noted
//! short code; a renamed folder; an edited archive (bindings).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn arbiter(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A short game that ends (the quick rehearsal, then the human resigns).
fn finished_script(dir: &Path) -> PathBuf {
    let mut s = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    s.push_str("0:17:00  human resign\n");
    let p = dir.join("finished.arb");
    std::fs::write(&p, s).unwrap();
    p
}

/// A match folder with a real (test) arbiter key and `games` finished games.
fn rehearsal(tmp: &Path, games: u32) -> PathBuf {
    let m = tmp.join("m");
    crate::log_util::arbiter_key_in(&m);
    let script = finished_script(tmp);
    for _ in 0..games {
        let o = arbiter(&[
            "script",
            script.to_str().unwrap(),
            "--match",
            m.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", text(&o));
    }
    m
}

fn verify(m: &Path, extra: &[&str]) -> (i32, String) {
    let mut args = vec!["verify", "--match", m.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = arbiter(&args);
    (o.status.code().unwrap_or(-1), text(&o))
}

#[test]
fn witness_demo_key_serves_logs_demo_alone_and_says_demo() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("nyc-2003");
    let o = arbiter(&[
        "script",
        "examples/scripts/quick.arb",
        "--match",
        real.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(66), "{}", text(&o));
    assert!(
        text(&o).contains("no arbiter key for match"),
        "{}",
        text(&o)
    );
    assert!(!real.join("keys").exists(), "no demo key was created");

    let demo = tmp.path().join("logs").join("demo");
    let o = arbiter(&[
        "script",
        "examples/scripts/quick.arb",
        "--match",
        demo.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let line0 = std::fs::read_to_string(demo.join("game-1/log.jsonl")).unwrap();
    let line0 = line0.lines().next().unwrap();
    assert!(line0.contains(r#""demo":true"#), "{line0}");
    let cp = std::fs::read_to_string(demo.join("game-1/checkpoints/13.txt")).unwrap();
    assert!(cp.ends_with("\ndemo-key\n"), "{cp}");
    let (code, out) = verify(&demo, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("DEMO KEY"), "{out}");

    // The demo key copied into a real match with --key is refused too.
    let key = demo.join("keys/demo-arbiter");
    let o = arbiter(&[
        "script",
        "examples/scripts/quick.arb",
        "--match",
        real.to_str().unwrap(),
        "--key",
        key.to_str().unwrap(),
    ]);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn witness_rewrite_with_an_attacker_key_fails_under_trust_and_fingerprint() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path(), 1);
    // What the committee received out of band: the arbiter's public key and its fingerprint.
    let real_pub = tmp.path().join("arbiter.pub");
    std::fs::copy(m.join("keys/arbiter.pub"), &real_pub).unwrap();
    let key = arbiter::record::sign::load_public_key(&real_pub).unwrap();
    let fp = arbiter::record::sign::fingerprint(&key);
    let (code, out) = verify(&m, &["--trust", real_pub.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("NOT PINNED"), "{out}");
    let (code, out) = verify(&m, &["--fingerprint", &fp]);
    assert_eq!(code, 0, "{out}");

    // The attacker rewrites the whole folder with a key of his own: a new log, re-signed.
    std::fs::remove_dir_all(&m).unwrap();
    let m = rehearsal(tmp.path(), 1);
    let (code, out) = verify(&m, &[]);
    assert_eq!(code, 0, "alone, the folder vouches for itself: {out}");
    assert!(out.contains("NOT PINNED"), "but verify says so: {out}");
    let (code, out) = verify(&m, &["--trust", real_pub.to_str().unwrap()]);
    assert_eq!(code, 22, "{out}");
    let (code, out) = verify(&m, &["--fingerprint", &fp]);
    assert_eq!(code, 22, "{out}");
    assert!(out.contains("NOT THE PINNED KEY"), "{out}");

    // A second key for principal arbiter is flagged.
    let extra = tmp.path().join("extra");
    let public = arbiter::record::sign::keygen(&extra, None, "second").unwrap();
    arbiter::record::sign::ensure_allowed_signer(&m, "arbiter", &public).unwrap();
    let (_, out) = verify(&m, &[]);
    assert!(out.contains("2 keys for principal \"arbiter\""), "{out}");
}

/// Keep the first `n` lines of a log and delete every checkpoint over more than `n` entries.
fn cut_back(m: &Path, game: u32, n: usize) {
    let log = m.join(format!("game-{game}/log.jsonl"));
    let body = std::fs::read_to_string(&log).unwrap();
    let kept: String = body.lines().take(n).map(|l| format!("{l}\n")).collect();
    std::fs::write(&log, kept).unwrap();
    for e in std::fs::read_dir(m.join(format!("game-{game}/checkpoints"))).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_owned();
        let size: usize = name.split('.').next().unwrap().parse().unwrap();
        if size > n {
            std::fs::remove_file(p).unwrap();
        }
    }
}

#[test]
fn witness_rollback_to_an_older_checkpoint_and_a_deleted_game_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path(), 2);
    let (code, out) = verify(&m, &[]);
    assert_eq!(code, 0, "{out}");
    // A camp noted the final checkpoint's short code from the Board UI.
    let entries = arbiter::record::journal::read_entries(&m.join("game-1/log.jsonl")).unwrap();
    let leaves: Vec<[u8; 32]> = entries.iter().map(|e| e.hash).collect();
    let code_noted = arbiter::log::checkpoint::ShortCode::of(
        leaves.len() as u64,
        &arbiter::log::merkle::root(&leaves),
    )
    .to_string();
    let (code, out) = verify(&m, &["--code", &code_noted]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("matches the first"), "{out}");

    // Cut game 1 back to its first signed checkpoint: the result disappears.
    cut_back(&m, 1, 10);
    let (code, out) = verify(&m, &["--game", "1"]);
    assert_eq!(code, 26, "{out}");
    assert!(out.contains("ROLLBACK"), "{out}");
    let (code, out) = verify(&m, &["--code", &code_noted]);
    assert_eq!(code, 26, "{out}");

    // Delete game 2 altogether: the signed index still lists it.
    let m2 = rehearsal(&tmp.path().join("again"), 2);
    std::fs::remove_dir_all(m2.join("game-2")).unwrap();
    let (code, out) = verify(&m2, &[]);
    assert_eq!(code, 26, "{out}");
    assert!(
        out.contains("game 2") && out.contains("folder is missing"),
        "{out}"
    );
}

#[test]
fn witness_renamed_match_folder_keeps_its_origin() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path(), 1);
    let renamed = tmp.path().join("renamed");
    std::fs::rename(&m, &renamed).unwrap();
    let o = arbiter(&[
        "checkpoint",
        "--match",
        renamed.to_str().unwrap(),
        "--game",
        "1",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    // A second game played in the renamed folder binds the match id of the first.
    let script = finished_script(tmp.path());
    let o = arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        renamed.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let (code, out) = verify(&renamed, &[]);
    assert_eq!(code, 0, "{out}");
    let cp = std::fs::read_to_string(renamed.join("game-2/checkpoints/13.txt")).unwrap();
    assert!(cp.starts_with("arbiter-kit/m/game-2\n"), "{cp}");
}

#[test]
fn witness_checkpoint_is_never_overwritten_by_another_log() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path(), 1);
    let cp = m.join("game-1/checkpoints/14.txt");
    let before = std::fs::read(&cp).unwrap();
    // Rewrite the log's last line (the chain is now other bytes) and ask for a checkpoint.
    let log = m.join("game-1/log.jsonl");
    let body = std::fs::read_to_string(&log).unwrap();
    std::fs::write(&log, body.replace("resign", "resigN")).unwrap();
    let o = arbiter(&["checkpoint", "--match", m.to_str().unwrap(), "--game", "1"]);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(
        std::fs::read(&cp).unwrap(),
        before,
        "the valid checkpoint is kept"
    );
}

#[test]
fn witness_signed_note_beside_each_checkpoint_verifies_with_the_arbiter_key() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path(), 1);
    let public = arbiter::record::sign::load_public_key(&m.join("keys/arbiter.pub")).unwrap();
    let note = std::fs::read(m.join("game-1/checkpoints/13.note")).unwrap();
    let (cp, _) = arbiter::record::sign::verify_checkpoint_note(&note, &public).unwrap();
    assert_eq!(cp.size, 13);
}

/// Camp `camp`'s key (created in `tmp`) and the script line declaring it in match `m`
/// with its proof of possession, made with `arbiter countersign --declaration --key`.
pub(crate) fn proven_camp(tmp: &Path, m: &Path, camp: &str) -> (PathBuf, String) {
    let k = tmp.join(format!("{camp}-key"));
    arbiter::record::sign::keygen(&k, None, camp).unwrap();
    let o = arbiter(&[
        "countersign",
        "--match",
        m.to_str().unwrap(),
        "--camp",
        camp,
        "--declaration",
        "--key",
        k.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let proof = tmp.join(format!("{camp}.proof"));
    std::fs::write(&proof, &o.stdout).unwrap();
    (
        k,
        format!(
            "0        arbiter declare camp {camp} proof {}\n",
            proof.display()
        ),
    )
}

/// The finished rehearsal with two camps declared before the start; their key files.
fn with_camps(tmp: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let m = tmp.join("m");
    crate::log_util::arbiter_key_in(&m);
    let mut declared = String::new();
    let mut keys = Vec::new();
    for camp in ["kasparov", "junior"] {
        let (k, line) = proven_camp(tmp, &m, camp);
        declared.push_str(&line);
        keys.push(k);
    }
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    let script = quick.replacen(
        "0        arbiter start\n",
        &format!("{declared}0        arbiter start\n"),
        1,
    ) + "0:17:00  human resign\n";
    let p = tmp.join("camps.arb");
    std::fs::write(&p, script).unwrap();
    let o = arbiter(&[
        "script",
        p.to_str().unwrap(),
        "--match",
        m.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    (m, keys[0].clone(), keys[1].clone())
}

#[test]
fn witness_finished_game_without_the_camps_countersignatures_is_not_ok() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, kasparov, junior) = with_camps(tmp.path());
    let line0 = std::fs::read_to_string(m.join("game-1/log.jsonl")).unwrap();
    assert!(
        line0
            .lines()
            .next()
            .unwrap()
            .contains(r#""camps":[{"key":"ssh-ed25519 "#)
    );
    let (code, out) = verify(&m, &[]);
    assert_eq!(code, 12, "{out}");
    assert!(out.contains("NOT COUNTERSIGNED: camp kasparov"), "{out}");

    // The human's camp signs with the kit; a wrong key is refused.
    let ms = m.to_str().unwrap();
    let wrong = arbiter(&[
        "countersign",
        "--yes",
        "--match",
        ms,
        "--camp",
        "kasparov",
        "--key",
        junior.to_str().unwrap(),
    ]);
    assert_eq!(wrong.status.code(), Some(1), "{}", text(&wrong));
    let o = arbiter(&[
        "countersign",
        "--yes",
        "--match",
        ms,
        "--camp",
        "kasparov",
        "--key",
        kasparov.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let (code, out) = verify(&m, &[]);
    assert_eq!(code, 12, "one camp still missing: {out}");

    // The machine's camp signs with stock OpenSSH on its own laptop: the checkpoint on stdin.
    if Command::new("ssh-keygen").arg("-?").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "ssh-keygen is required in CI"
        );
        println!("SKIPPED the stock-OpenSSH half: ssh-keygen is not installed");
        return;
    }
    let cp = m.join("game-1/checkpoints/14.txt");
    let sig = Command::new("ssh-keygen")
        .args(["-Y", "sign", "-n", "arbiter-kit-countersign@v1", "-f"])
        .arg(&junior)
        .stdin(std::fs::File::open(&cp).unwrap())
        .output()
        .unwrap();
    assert!(sig.status.success(), "{}", text(&sig));
    let sig_file = tmp.path().join("junior.sig");
    std::fs::write(&sig_file, &sig.stdout).unwrap();
    let o = arbiter(&[
        "countersign",
        "--match",
        ms,
        "--camp",
        "junior",
        "--signature",
        sig_file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let (code, out) = verify(&m, &[]);
    assert!(
        out.contains("checkpoint 14.txt countersigned by camp junior"),
        "{out}"
    );
    // The committee's rule: the game counts as witnessed once each camp has also countersigned
    // a match index recording it with its result.
    assert_eq!(code, 12, "the match index is not countersigned yet: {out}");
    assert!(
        out.contains(
            "NOT COUNTERSIGNED: camp kasparov has not countersigned a match index recording game 1"
        ),
        "{out}"
    );
    for (camp, k) in [("kasparov", &kasparov), ("junior", &junior)] {
        let o = arbiter(&[
            "countersign",
            "--match",
            ms,
            "--camp",
            camp,
            "--index",
            "--key",
            k.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", text(&o));
    }
    let (code, out) = verify(&m, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("countersigned by camp junior"), "{out}");
    assert!(out.contains("countersigned by camp kasparov"), "{out}");
}

#[test]
fn witness_status_and_pgn_check_the_log_first() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path(), 1);
    let ms = m.to_str().unwrap();
    let o = arbiter(&["status", "--match", ms]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // The result rewritten in the file (the chain is broken): status and pgn say so and fail.
    let log = m.join("game-1/log.jsonl");
    let body = std::fs::read_to_string(&log).unwrap();
    std::fs::write(&log, body.replace(r#""score":"0-1""#, r#""score":"1-0""#)).unwrap();
    // The chain breaks at the next line: a corrupt log (65, README's table), and verify's verdict
    // is said first; no PGN is made of it.
    for cmd in [
        vec!["status", "--match", ms],
        vec!["pgn", "--match", ms, "--game", "1"],
    ] {
        let o = arbiter(&cmd);
        assert_eq!(o.status.code(), Some(65), "{}", text(&o));
        assert!(text(&o).contains("DOES NOT VERIFY"), "{}", text(&o));
    }
    // The last line rewritten (the chain before it intact, the signed checkpoint differs): the
    // PGN is made and carries the warning with it.
    let last = body.lines().last().unwrap();
    std::fs::write(
        &log,
        body.replace(last, &last.replace("script ", "scribbled ")),
    )
    .unwrap();
    let o = arbiter(&["pgn", "--match", ms, "--game", "1"]);
    assert_eq!(o.status.code(), Some(20), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("{WARNING: THE LOG OF GAME 1 DOES NOT VERIFY"),
        "{}",
        text(&o)
    );

    // The demo match's PGN carries the DEMO mark.
    let demo = tmp.path().join("logs").join("demo");
    let o = arbiter(&[
        "script",
        "examples/scripts/quick.arb",
        "--match",
        demo.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let o = arbiter(&["pgn", "--match", demo.to_str().unwrap(), "--game", "1"]);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("{DEMO KEY"),
        "{}",
        text(&o)
    );
    // The file `--out` writes as the PGN is made is the same text, mark included.
    let file = tmp.path().join("demo.pgn");
    let f = arbiter(&[
        "pgn",
        "--match",
        demo.to_str().unwrap(),
        "--game",
        "1",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(f.status.code(), o.status.code(), "{}", text(&f));
    assert_eq!(std::fs::read(&file).unwrap(), o.stdout);
    let o = arbiter(&["status", "--match", demo.to_str().unwrap()]);
    assert!(text(&o).contains("DEMO KEY"), "{}", text(&o));
    let md = tmp.path().join("report.md");
    let o = arbiter(&[
        "report",
        "--match",
        demo.to_str().unwrap(),
        "--game",
        "1",
        "--markdown",
        "--out",
        md.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(std::fs::read_to_string(&md).unwrap().contains("DEMO KEY"));
}

#[test]
fn witness_consistency_proof_from_a_kept_checkpoint_to_the_latest() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path(), 1);
    let ms = m.to_str().unwrap();
    let o = arbiter(&["prove", "--match", ms, "--game", "1", "--from", "10"]);
    assert!(o.status.success(), "{}", text(&o));
    let proof = tmp.path().join("consistency.json");
    std::fs::write(&proof, &o.stdout).unwrap();
    let (code, out) = verify(&m, &["--consistency", proof.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("over 10 entries") && out.contains("over 14 entries"),
        "{out}"
    );
    // The camp kept checkpoint 10: the proof carries exactly that text.
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let kept = std::fs::read_to_string(m.join("game-1/checkpoints/10.txt")).unwrap();
    assert_eq!(v["old_checkpoint"].as_str().unwrap(), kept);
    // A forged node, or another trust anchor, fails.
    let mut forged = v.clone();
    forged["proof"][0] = serde_json::json!("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
    std::fs::write(&proof, serde_json::to_vec(&forged).unwrap()).unwrap();
    let (code, out) = verify(&m, &["--consistency", proof.to_str().unwrap()]);
    assert_eq!(code, 23, "{out}");
    std::fs::write(&proof, &o.stdout).unwrap();
    let other = tmp.path().join("other");
    let public = arbiter::record::sign::keygen(&other, None, "other").unwrap();
    let other_pub = tmp.path().join("other.pub.txt");
    std::fs::write(&other_pub, public.to_openssh().unwrap()).unwrap();
    let (code, out) = verify(
        &m,
        &[
            "--consistency",
            proof.to_str().unwrap(),
            "--trust",
            other_pub.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 23, "{out}");
}

#[test]
fn witness_no_checkpoint_is_signed_over_a_broken_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path(), 1);
    for e in std::fs::read_dir(m.join("game-1/checkpoints")).unwrap() {
        std::fs::remove_file(e.unwrap().path()).unwrap();
    }
    let log = m.join("game-1/log.jsonl");
    let body = std::fs::read_to_string(&log).unwrap();
    std::fs::write(&log, body.replacen("Nf3", "Nc3", 1)).unwrap();
    let o = arbiter(&["checkpoint", "--match", m.to_str().unwrap(), "--game", "1"]);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("prev field does not hold the previous line's hash"),
        "{}",
        text(&o)
    );
    assert_eq!(
        std::fs::read_dir(m.join("game-1/checkpoints"))
            .unwrap()
            .count(),
        0
    );
}
