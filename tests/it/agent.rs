//! `--agent`: the arbiter's key signs through a real `ssh-agent` (started here on a socket of a
//! temporary folder, the key `ssh-add`ed, the agent killed at the end); the match folder holds
//! only the key's public half. Signatures are byte for byte those of the key file; a script, a
//! checkpoint and an authorization signed through the agent verify 0; with the agent gone the
//! command says `SSH_AUTH_SOCK` and records nothing. Every wait polls with a deadline.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use arbiter::record::sign::{self, Signs};

/// A running `ssh-agent -D -a SOCK`, killed when dropped.
pub(crate) struct Agent {
    child: Child,
    pub(crate) sock: PathBuf,
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start an agent on `dir/agent.sock` and add `key` to it; `None` when ssh-agent is missing.
pub(crate) fn agent_with(dir: &Path, key: &Path) -> Option<Agent> {
    let sock = dir.join("agent.sock");
    let child = match Command::new("ssh-agent")
        .args(["-D", "-a"])
        .arg(&sock)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "ssh-agent (openssh-client) is required in CI"
            );
            println!("SKIPPED: ssh-agent is not installed");
            return None;
        }
    };
    let agent = Agent { child, sock };
    let deadline = Instant::now() + Duration::from_secs(10);
    while !agent.sock.exists() {
        assert!(Instant::now() < deadline, "ssh-agent made no socket");
        std::thread::sleep(Duration::from_millis(10));
    }
    let o = Command::new("ssh-add")
        .arg(key)
        .env("SSH_AUTH_SOCK", &agent.sock)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", said(&o));
    Some(agent)
}

fn said(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `arbiter ARGS` with `SSH_AUTH_SOCK` set to `sock`.
fn arbiter(sock: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .env("SSH_AUTH_SOCK", sock)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// A key made outside the match (it goes into the agent) and a match folder that holds only its
/// public half (`keys/arbiter.pub`, allowed_signers). Returns (match folder, private key file).
pub(crate) fn match_without_the_key(tmp: &Path) -> (PathBuf, PathBuf) {
    let private = tmp.join("elsewhere/arbiter");
    let public = sign::keygen(&private, None, "arbiter in the agent").unwrap();
    let m = tmp.join("m");
    std::fs::create_dir_all(m.join("keys")).unwrap();
    std::fs::copy(sign::pub_path(&private), m.join("keys").join("arbiter.pub")).unwrap();
    sign::ensure_allowed_signer(&m, "arbiter", &public).unwrap();
    (m, private)
}

#[test]
fn agent_signatures_are_byte_identical_to_the_key_files() {
    let tmp = tempfile::tempdir().unwrap();
    let private = tmp.path().join("k");
    sign::keygen(&private, None, "k").unwrap();
    let Some(agent) = agent_with(tmp.path(), &private) else {
        return;
    };
    let key = sign::load_key(&private, None).unwrap();
    let via = sign::AgentKey::new(key.public_key(), agent.sock.clone()).unwrap();
    let text = "arbiter-kit authorization\nentries 3..4\n";
    assert_eq!(
        sign::sign_authorization(&via, text).unwrap(),
        sign::sign_authorization(&key, text).unwrap()
    );
    assert_eq!(
        sign::sign_policy(&via, text.as_bytes()).unwrap(),
        sign::sign_policy(&key, text.as_bytes()).unwrap()
    );
    assert_eq!(
        sign::sign_note(&via, "example.org/x", text).unwrap(),
        sign::sign_note(&key, "example.org/x", text).unwrap()
    );
    assert!(!Signs::is_encrypted(&via));
    // An agent without the key says so, naming SSH_AUTH_SOCK.
    let other = tmp.path().join("other");
    let public = sign::keygen(&other, None, "other").unwrap();
    let e = sign::AgentKey::new(&public, agent.sock.clone()).unwrap_err();
    assert!(
        e.to_string().contains("SSH_AUTH_SOCK") && e.to_string().contains("does not hold"),
        "{e}"
    );
}

#[test]
fn agent_script_checkpoint_and_authorize_verify_0_without_the_key_file() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, private) = match_without_the_key(tmp.path());
    let Some(agent) = agent_with(tmp.path(), &private) else {
        return;
    };
    let ms = m.to_str().unwrap();
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    let script = format!("{quick}0:16:40  arbiter correct 7e clock machine +20 its clock ran on\n");
    let p = tmp.path().join("game.arb");
    std::fs::write(&p, script).unwrap();
    let o = arbiter(
        &agent.sock,
        &["script", p.to_str().unwrap(), "--match", ms, "--agent"],
    );
    assert!(o.status.success(), "{}", said(&o));
    let o = arbiter(&agent.sock, &["verify", "--match", ms]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    let o = arbiter(&agent.sock, &["checkpoint", "--match", ms, "--agent"]);
    assert!(o.status.success(), "{}", said(&o));
    let o = arbiter(&agent.sock, &["verify", "--match", ms]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert!(
        !m.join("keys/arbiter").exists(),
        "the private key never came here"
    );
    // An arbiter-only entry written past the record (as a killed board would leave it) is
    // accepted with a reason through the agent, signed, and verifies 0.
    let log = m.join("game-1/log.jsonl");
    let model = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["kind"] == "clock_corrected")
        .unwrap();
    let seq = {
        let mut j = arbiter::record::journal::Journal::open(&log).unwrap();
        let at = j.last().unwrap().mono_ms;
        j.append(arbiter::log::NewEntry {
            mono_ms: at,
            utc: chrono::Utc::now(),
            actor: "arbiter".into(),
            clause: model["clause"].as_str().unwrap().into(),
            kind: "clock_corrected".into(),
            body: model["body"].clone(),
        })
        .unwrap();
        j.len() - 1
    };
    let o = arbiter(
        &agent.sock,
        &[
            "authorize",
            "--match",
            ms,
            "--entry",
            &seq.to_string(),
            "--reason",
            "the arbiter's own correction, written as the board stopped",
            "--agent",
        ],
    );
    assert!(o.status.success(), "{}", said(&o));
    let o = arbiter(&agent.sock, &["verify", "--match", ms]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
}

#[test]
fn agent_gone_is_said_with_ssh_auth_sock_and_nothing_is_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, private) = match_without_the_key(tmp.path());
    let Some(agent) = agent_with(tmp.path(), &private) else {
        return;
    };
    let sock = agent.sock.clone();
    let ms = m.to_str().unwrap();
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    let p = tmp.path().join("game.arb");
    std::fs::write(&p, quick).unwrap();
    let o = arbiter(
        &sock,
        &["script", p.to_str().unwrap(), "--match", ms, "--agent"],
    );
    assert!(o.status.success(), "{}", said(&o));
    let files = |m: &Path| {
        walk(m)
            .into_iter()
            .map(|f| (std::fs::read(&f).unwrap_or_default(), f))
            .collect::<Vec<_>>()
    };
    let before = files(&m);
    // The agent stops: nothing signs, nothing is recorded, and each command says why.
    drop(agent);
    let o = arbiter(
        &sock,
        &["script", p.to_str().unwrap(), "--match", ms, "--agent"],
    );
    let out = said(&o);
    assert!(
        !o.status.success() && out.contains("SSH_AUTH_SOCK"),
        "{out}"
    );
    let o = arbiter(&sock, &["checkpoint", "--match", ms, "--agent"]);
    let out = said(&o);
    assert!(
        !o.status.success() && out.contains("SSH_AUTH_SOCK"),
        "{out}"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["checkpoint", "--match", ms, "--agent"])
        .env_remove("SSH_AUTH_SOCK")
        .output()
        .unwrap();
    let out = said(&o);
    assert!(
        !o.status.success() && out.contains("SSH_AUTH_SOCK"),
        "{out}"
    );
    assert!(before == files(&m), "the match folder is as it was");
}

/// Every file under `dir`, sorted.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Script mode with a key that signs with nothing typed (`--agent`): each act of the arbiter is
/// followed at once by its `authorized` entry, so a script killed midway leaves none
/// unauthorized.
#[test]
fn agent_script_authorizes_each_act_as_it_is_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, private) = match_without_the_key(tmp.path());
    let Some(agent) = agent_with(tmp.path(), &private) else {
        return;
    };
    let ms = m.to_str().unwrap();
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    let script = format!(
        "{quick}0:16:40  arbiter correct 7e clock machine +20 its clock ran on\n0:17:00  move e3\n"
    );
    let p = tmp.path().join("game.arb");
    std::fs::write(&p, script).unwrap();
    let o = arbiter(
        &agent.sock,
        &["script", p.to_str().unwrap(), "--match", ms, "--agent"],
    );
    assert!(o.status.success(), "{}", said(&o));
    let es: Vec<serde_json::Value> = std::fs::read_to_string(m.join("game-1/log.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let at = es
        .iter()
        .position(|e| e["kind"] == "clock_corrected")
        .unwrap();
    let next = &es[at + 1];
    assert_eq!(next["kind"], "authorized", "{next}");
    let text = next.to_string();
    assert!(
        text.contains("line") && text.contains("ssh-agent"),
        "{text}"
    );
    let o = arbiter(&agent.sock, &["verify", "--match", ms]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
}
