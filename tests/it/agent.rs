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
    agent_at(&dir.join("agent.sock"), key)
}

/// Start an agent on the socket `sock` and add `key` to it; `None` when ssh-agent is missing.
pub(crate) fn agent_at(sock: &Path, key: &Path) -> Option<Agent> {
    let sock = sock.to_path_buf();
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
    // The socket exists from the agent's bind, before it listens: retry until it answers.
    loop {
        let o = Command::new("ssh-add")
            .arg(key)
            .env("SSH_AUTH_SOCK", &agent.sock)
            .output()
            .unwrap();
        if o.status.success() {
            break;
        }
        assert!(Instant::now() < deadline, "{}", said(&o));
        std::thread::sleep(Duration::from_millis(20));
    }
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

/// What every `--agent` command leaves behind: no private key anywhere in the match folder,
/// `arbiter verify` exits `code`, and game `game`'s latest checkpoint note and every `authorized`
/// entry are signed by the agent's key (`public`).
fn signed_by_the_agent(m: &Path, game: u32, public: &ssh_key::PublicKey, code: i32) -> usize {
    for f in walk(m) {
        let bytes = std::fs::read(&f).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("PRIVATE KEY"),
            "a private key in the match folder: {}",
            f.display()
        );
    }
    let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["verify", "--match"])
        .arg(m)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(code), "{}", said(&o));
    let cps = m.join(format!("game-{game}/checkpoints"));
    let last = std::fs::read_dir(&cps)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".note")?
                .parse::<u64>()
                .ok()
        })
        .max()
        .expect("a signed checkpoint");
    let note = std::fs::read(cps.join(format!("{last}.note"))).unwrap();
    let (cp, _) = sign::verify_checkpoint_note(&note, public).unwrap();
    let log = m.join(format!("game-{game}/log.jsonl"));
    let entries = std::fs::read_to_string(&log).unwrap().lines().count() as u64;
    assert_eq!(cp.size, entries, "the checkpoint covers the whole log");
    let fp = sign::fingerprint(public);
    let mut authorized = 0;
    for e in arbiter::record::journal::read_entries(&log).unwrap() {
        if e.kind == "authorized" {
            assert_eq!(
                e.body.get("key").and_then(|k| k.as_str()),
                Some(fp.as_str()),
                "#{} authorized by the agent's key",
                e.seq
            );
            authorized += 1;
        }
    }
    authorized
}

/// The agent's key, the public half of the key file put in it.
fn agent_public(private: &Path) -> ssh_key::PublicKey {
    sign::load_public_key(&sign::pub_path(private)).unwrap()
}

/// Lines of game 1's log as JSON.
fn log_entries(m: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(m.join("game-1/log.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `archive --agent`: the machine's log copies are archived, the archive's entry authorized and
/// the checkpoint over it signed through the agent.
#[test]
fn agent_archive_authorizes_its_entry_and_signs_the_checkpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, private) = match_without_the_key(tmp.path());
    let Some(agent) = agent_with(tmp.path(), &private) else {
        return;
    };
    let ms = m.to_str().unwrap();
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    let p = tmp.path().join("game.arb");
    std::fs::write(&p, format!("{quick}0:17:00  human resign\n")).unwrap();
    let o = arbiter(
        &agent.sock,
        &["script", p.to_str().unwrap(), "--match", ms, "--agent"],
    );
    assert!(o.status.success(), "{}", said(&o));
    let before = log_entries(&m).len();
    let copy = tmp.path().join("copy1.log");
    std::fs::write(&copy, "info depth 1 score cp 10 pv e2e4\nbestmove e2e4\n").unwrap();
    let copy2 = tmp.path().join("copy2.log");
    std::fs::copy(&copy, &copy2).unwrap();
    let o = arbiter(
        &agent.sock,
        &[
            "archive",
            "--match",
            ms,
            "--game",
            "1",
            copy.to_str().unwrap(),
            copy2.to_str().unwrap(),
            "--agent",
        ],
    );
    assert!(o.status.success(), "{}", said(&o));
    let es = log_entries(&m);
    let new: Vec<&str> = es[before..]
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert!(
        new.contains(&"authorized") && new.len() >= 2,
        "the archive's entry and its authorization: {new:?}"
    );
    assert!(signed_by_the_agent(&m, 1, &agent_public(&private), 0) > 0);
}

/// `foreign --accept --agent` and `foreign --cut-from --agent`: an arbiter-only entry written past
/// the record is accepted with a reason, or cut to a side file; either is recorded and signed
/// through the agent. An accepted entry verifies 0; a cut is a recovery to review (11).
#[test]
fn agent_foreign_accept_and_cut_from_sign_through_the_agent() {
    for accept in [true, false] {
        let tmp = tempfile::tempdir().unwrap();
        let (m, private) = match_without_the_key(tmp.path());
        let Some(agent) = agent_with(tmp.path(), &private) else {
            return;
        };
        let ms = m.to_str().unwrap();
        let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
        let p = tmp.path().join("game.arb");
        std::fs::write(&p, &quick).unwrap();
        let o = arbiter(
            &agent.sock,
            &["script", p.to_str().unwrap(), "--match", ms, "--agent"],
        );
        assert!(o.status.success(), "{}", said(&o));
        // An arbiter's note written past the record (the operator at the folder).
        let seq = {
            let log = m.join("game-1/log.jsonl");
            let mut j = arbiter::record::journal::Journal::open(&log).unwrap();
            let at = j.last().unwrap().mono_ms;
            j.append(arbiter::log::NewEntry {
                mono_ms: at,
                utc: chrono::Utc::now(),
                actor: "arbiter".into(),
                clause: "1".into(),
                kind: "note".into(),
                body: serde_json::json!({"text": "typed past the record"}),
            })
            .unwrap();
            j.len() - 1
        };
        let s = seq.to_string();
        let args: Vec<&str> = if accept {
            vec![
                "foreign",
                "--match",
                ms,
                "--game",
                "1",
                "--accept",
                "typed by the arbiter at the spare laptop",
                "--agent",
            ]
        } else {
            vec![
                "foreign",
                "--match",
                ms,
                "--game",
                "1",
                "--cut-from",
                &s,
                "--agent",
            ]
        };
        let o = arbiter(&agent.sock, &args);
        assert!(o.status.success(), "{}", said(&o));
        let text = std::fs::read_to_string(m.join("game-1/log.jsonl")).unwrap();
        if accept {
            assert!(
                text.contains("typed by the arbiter at the spare laptop"),
                "{text}"
            );
        } else {
            assert!(m.join(format!("game-1/log.jsonl.foreign-{seq}")).exists());
        }
        let o = arbiter(
            &agent.sock,
            &["checkpoint", "--match", ms, "--game", "1", "--agent"],
        );
        assert!(o.status.success(), "{}", said(&o));
        let code = if accept { 0 } else { 11 };
        assert!(signed_by_the_agent(&m, 1, &agent_public(&private), code) > 0);
    }
}

/// `serve --agent`: a werewolf table whose match folder holds only the key's public half plays a
/// whole game; its end-of-game checkpoint and the match index are signed through the agent.
#[test]
fn agent_serve_signs_the_tables_checkpoint_and_index_through_the_agent() {
    use crate::table_serve as ts;
    if !ts::python_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (m, private) = match_without_the_key(tmp.path());
    let Some(agent) = agent_with(tmp.path(), &private) else {
        return;
    };
    let mut s = ts::serve_env(
        &m,
        ts::P5,
        "127.0.0.1:0",
        &["--games", "1", "--agent"],
        Stdio::null(),
        &[("SSH_AUTH_SOCK", agent.sock.to_str().unwrap())],
    );
    let mut seats: Vec<Child> = (1..=5)
        .map(|i| ts::seat(&s.url, &format!("kit{i}"), "none", &[]))
        .collect();
    let status = ts::wait(&mut s.child, "arbiter serve", 90);
    assert!(
        status.success(),
        "serve: {status}\n{}",
        ts::server_said(&m, &s)
    );
    for c in &mut seats {
        ts::wait(c, "seat", 20);
    }
    let es = ts::entries(&m, 1);
    ts::assert_game_recorded(&m, &es);
    let public = agent_public(&private);
    signed_by_the_agent(&m, 1, &public, 0);
    let index = std::fs::read(m.join("index.txt")).unwrap();
    let sig = std::fs::read_to_string(m.join("index.txt.sig")).unwrap();
    let signers = format!("arbiter {}", public.to_openssh().unwrap());
    let (signers, _) = sign::parse_allowed_signers(&signers);
    sign::verify_signature(&signers, &index, &sig).expect("the index is signed by the agent's key");
}

/// `play --agent` on the board, in a real terminal (tmux): the match folder holds only the key's
/// public half; no passphrase is asked; the clock's start and an arbiter's clock correction are
/// recorded, each followed by its `authorized` entry naming the ssh-agent as the gate and
/// signed by the agent's key; the checkpoint at close is signed there too; verify 0.
#[test]
fn agent_play_records_an_arbiter_act_authorized_through_the_agent() {
    use crate::pty::{DEADLINE, Tmux, repo_dir, tmux_available};
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (m, private) = match_without_the_key(tmp.path());
    let Some(agent) = agent_with(tmp.path(), &private) else {
        return;
    };
    let decl = tmp.path().join("declarations.arb");
    std::fs::write(&decl, arbiter::board::tui::DEMO_DECLARATIONS).unwrap();
    let q = |p: &Path| format!("'{}'", p.display().to_string().replace('\'', "'\\''"));
    let line = format!(
        "SSH_AUTH_SOCK={} exec {{arbiter}} play --match {} --rules {} --declarations {} --agent",
        q(&agent.sock),
        q(&m),
        q(&repo_dir().join("rules/kasparov-deep-junior-2003.toml")),
        q(&decl),
    );
    let t = Tmux::start_shell("agent-play", &line, &repo_dir(), 100, 30);
    t.wait_for("the arbiter's key is in ssh-agent", DEADLINE);
    t.wait_for("PRE-GAME", DEADLINE);
    t.keys(&["Space"]);
    t.wait_for("RUNNING", DEADLINE);
    assert!(!t.screen().contains("passphrase of"), "{}", t.screen());
    t.type_text("e");
    t.wait_for("▸", DEADLINE);
    t.type_text("4");
    t.keys(&["Enter"]);
    t.wait_for("1. e4", DEADLINE);
    t.keys(&[":"]);
    t.type_text("arbiter correct 6d clock machine +20 its clock ran on");
    t.keys(&["Enter"]);
    t.wait_for("y = yes", DEADLINE);
    t.keys(&["y"]);
    t.wait_for("clock_corrected", DEADLINE);
    t.keys(&["q"]);
    t.wait_for("quit the board UI?", DEADLINE);
    t.keys(&["y"]);
    assert!(t.wait_exit(DEADLINE), "{}", t.screen());
    let es = log_entries(&m);
    let at = es
        .iter()
        .position(|e| e["kind"] == "clock_corrected")
        .expect("the correction is recorded");
    let auth = &es[at + 1];
    assert_eq!(auth["kind"], "authorized", "{auth}");
    assert!(
        auth["body"]["by"].as_str().unwrap().contains("ssh-agent"),
        "{auth}"
    );
    assert!(
        auth["body"]["command"]
            .as_str()
            .unwrap()
            .starts_with("arbiter correct 6d clock machine +20"),
        "{auth}"
    );
    assert!(signed_by_the_agent(&m, 1, &agent_public(&private), 0) >= 2);
}

/// The game master's screen under `--agent` (`play --match DIR --agent`, in a terminal) beside a
/// table `serve --agent` runs: no passphrase is asked; the ruling typed there is signed by the
/// ssh-agent, checked by the table as it arrives and recorded with its approval (`by`: `agent`,
/// the agent's key); the end-of-game checkpoint is signed there too and `verify` checks the act's
/// signature: 0.
#[test]
fn agent_game_master_acts_are_signed_by_the_agent_and_checked_by_the_table() {
    use crate::pty::{Tmux, tmux_available};
    use crate::table_serve as ts;
    if !tmux_available() || !ts::python_ready() {
        eprintln!("skipped: tmux or the seat program is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (m, private) = match_without_the_key(tmp.path());
    let Some(agent) = agent_with(tmp.path(), &private) else {
        return;
    };
    let sock = agent.sock.to_str().unwrap();
    let mut s = ts::serve_env(
        &m,
        ts::P5,
        "127.0.0.1:0",
        &["--games", "1", "--agent"],
        Stdio::null(),
        &[("SSH_AUTH_SOCK", sock)],
    );
    // One seat waits for the probe on its first talk: the game is held open.
    let mut seats: Vec<Child> = (1..=5)
        .map(|i| {
            let fault = if i == 1 { "probe" } else { "none" };
            ts::seat(&s.url, &format!("kit{i}"), fault, &[])
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !ts::entries(&m, 1).iter().any(|e| e["kind"] == "dealt") {
        assert!(Instant::now() < deadline, "no deal within 20 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    let gm = Tmux::start_shell(
        "agent-gm",
        &format!(
            "LANG=C.UTF-8 SSH_AUTH_SOCK='{sock}' exec {{arbiter}} play --match '{}' --agent",
            m.display()
        ),
        tmp.path(),
        80,
        24,
    );
    let wait = Duration::from_secs(15);
    gm.wait_for("Game master", wait);
    gm.keys(&["x"]);
    gm.wait_for("the ruling's winner", wait);
    gm.keys(&["Down", "Down", "Enter"]);
    gm.wait_for("the ruling's reason (NONE wins)", wait);
    gm.type_text("the hall lost power for good");
    gm.keys(&["Enter"]);
    gm.wait_for("the game ENDS now with NO winner", wait);
    gm.keys(&["y"]);
    let screen = gm.wait_for("recorded in game 1's log as #", wait);
    assert!(!screen.contains("passphrase (signing key)"), "{screen}");
    let status = ts::wait(&mut s.child, "arbiter serve", 60);
    assert!(
        status.success(),
        "serve: {status}\n{}",
        ts::server_said(&m, &s)
    );
    for c in &mut seats {
        ts::wait(c, "seat", 20);
    }
    let es = ts::entries(&m, 1);
    let approved: Vec<&serde_json::Value> = es.iter().filter(|e| e["kind"] == "approved").collect();
    assert_eq!(approved.len(), 1, "{approved:?}");
    let a = &approved[0]["body"];
    assert_eq!(a["command"], "end NONE the hall lost power for good");
    assert_eq!(a["approval"]["by"], "agent", "{a}");
    let public = agent_public(&private);
    assert_eq!(a["approval"]["key"], sign::fingerprint(&public));
    assert!(
        !es.iter().any(|e| e["kind"] == "authorization_failed"),
        "the table took the agent's signature"
    );
    signed_by_the_agent(&m, 1, &public, 0);
    let o = arbiter(&agent.sock, &["verify", "--match", m.to_str().unwrap()]);
    assert!(
        said(&o).contains("1 act(s) of the arbiter signed at the game master's screen"),
        "{}",
        said(&o)
    );
}

/// Every file under `dir` (relative) with its bytes.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<(PathBuf, Vec<u8>)> = walk(dir)
        .into_iter()
        .filter(|p| p.is_file())
        .map(|p| {
            (
                p.strip_prefix(dir).unwrap().to_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn copy_tree(from: &Path, to: &Path) {
    let o = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", said(&o));
}

/// A camp countersigns the latest checkpoint and the match index through the ssh-agent that
/// holds its declared key (`--agent`): each countersignature verifies against the declared key
/// and is byte for byte what the camp's key file makes. An agent without the camp's key is
/// named with the fingerprint wanted, and nothing is written; `--agent` with `--key` is refused.
#[test]
fn agent_countersign_through_the_agent_is_the_key_files_countersignature() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = crate::witness_live::match_with_camps(tmp.path());
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    crate::log_util::script_into(
        &m,
        &tmp.path().join("quick.arb"),
        &format!("{declared}{quick}0:17:00  operator resign\n"),
    );
    let (camp, key) = &camps[0];
    let Some(agent) = agent_with(tmp.path(), key) else {
        return;
    };
    let ms = m.to_str().unwrap();
    let by_file = tmp.path().join("by-file");
    copy_tree(&m, &by_file);
    let before = tree(&m);
    // The same acts, with the key file in a copy of the folder and through the agent here.
    for args in [
        vec!["countersign", "--camp", camp, "--yes"],
        vec!["countersign", "--camp", camp, "--index"],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(&args)
            .arg("--key")
            .arg(key)
            .arg("--match")
            .arg(&by_file)
            .env_remove("SSH_AUTH_SOCK")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?} --key: {}", said(&o));
        let o = arbiter(
            &agent.sock,
            &[&args[..], &["--agent", "--match", ms]].concat(),
        );
        assert!(o.status.success(), "{args:?} --agent: {}", said(&o));
    }
    let after = tree(&m);
    assert_eq!(after, tree(&by_file), "byte for byte the key file's");
    let added: Vec<&PathBuf> = after
        .iter()
        .filter(|f| !before.contains(f))
        .map(|(p, _)| p)
        .collect();
    assert!(
        added
            .iter()
            .any(|p| p.to_string_lossy().contains(&format!(".cosig-{camp}")))
            && added.iter().any(|p| p.starts_with("index")),
        "a checkpoint's and the index's countersignatures: {added:?}"
    );
    // Each verifies against the key the camp declared.
    let o = arbiter(&agent.sock, &["verify", "--match", ms]);
    let out = said(&o);
    assert!(
        out.contains(&format!("countersigned by camp {camp}"))
            || out.contains(&format!("camp {camp} countersigned")),
        "{out}"
    );
    assert!(
        !out.contains("refused") && !out.contains("does not verify"),
        "{out}"
    );
    // The other camp's key is not in this agent: named with the fingerprint wanted.
    let (other, other_key) = &camps[1];
    let wanted = sign::fingerprint(
        &sign::load_key(other_key, None)
            .unwrap()
            .public_key()
            .clone(),
    );
    for extra in [&[][..], &["--index"][..]] {
        let o = arbiter(
            &agent.sock,
            &[
                &[
                    "countersign",
                    "--camp",
                    other,
                    "--agent",
                    "--yes",
                    "--match",
                    ms,
                ][..],
                extra,
            ]
            .concat(),
        );
        let out = said(&o);
        assert!(!o.status.success(), "{out}");
        assert!(
            out.contains("does not hold")
                && out.contains(&wanted)
                && out.contains(&format!("camp {other}'s declared key"))
                && out.contains("SSH_AUTH_SOCK"),
            "{out}"
        );
    }
    // Without an agent at all: SSH_AUTH_SOCK is named.
    let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "countersign",
            "--camp",
            camp,
            "--agent",
            "--yes",
            "--match",
            ms,
        ])
        .env_remove("SSH_AUTH_SOCK")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        !o.status.success() && said(&o).contains("SSH_AUTH_SOCK"),
        "{}",
        said(&o)
    );
    // `--agent` or `--key`, not both.
    let o = arbiter(
        &agent.sock,
        &[
            "countersign",
            "--camp",
            camp,
            "--agent",
            "--key",
            key.to_str().unwrap(),
            "--match",
            ms,
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", said(&o));
    assert!(said(&o).contains("cannot be used with"), "{}", said(&o));
    assert_eq!(tree(&m), after, "nothing written by the refusals");
}
