//! `arbiter serve` end to end: the binary listens, seat programs of our own written on
//! aiwolf-nlp-common 0.7.0 (tests/fixtures/aiwolf/seat.py, the client library and strict parser
//! contest agents use) play whole 5- and 13-seat games, with fault seats; each fault's official
//! outcome and the incident the log names. A kill -9 of the server mid-game and its restart; the
//! token check; the arbiter's control channel. Test profiles with short timeouts
//! (tests/fixtures/aiwolf/test-*.toml). Every wait polls with a deadline.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

const SEAT: &str = "tests/fixtures/aiwolf/seat.py";
pub(crate) const P5: &str = "tests/fixtures/aiwolf/test-5.toml";
const P13: &str = "tests/fixtures/aiwolf/test-13.toml";
const KEY_VAR: &str = "ARBITER_TEST_TABLE_KEY";

/// Whether the seat program can run here (CI installs aiwolf-nlp-common; say so elsewhere).
pub(crate) fn python_ready() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import aiwolf_nlp_common, websocket"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "aiwolf-nlp-common is required in CI (.ci/run installs it)"
        );
        println!("SKIPPED: python3 with aiwolf-nlp-common 0.7.0 is not installed");
    }
    ok
}

/// A running `arbiter serve`.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) url: String,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A match folder with an arbiter key.
fn verify(m: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["verify", "--match"])
        .arg(m)
        .output()
        .unwrap()
}

/// A table of five seats served from a fresh match folder, the game dealt and held open (one
/// seat waits for the probe on its first talk).
fn dealt_table(tmp: &Path) -> (PathBuf, Server, Vec<Child>) {
    let m = match_dir(tmp);
    let s = serve(&m, P5, "127.0.0.1:0", &["--games", "1"], Stdio::null());
    let seats: Vec<Child> = (1..=5)
        .map(|i| {
            seat(
                &s.url,
                &format!("kit{i}"),
                if i == 1 { "probe" } else { "none" },
                &[],
            )
        })
        .collect();
    wait_for_entry(&m, "the deal", |e| e["kind"] == "dealt");
    (m, s, seats)
}

/// The act `line` for game 1 signed with the match's (unencrypted test) arbiter key, as the
/// game master's screen signs it once the passphrase opened the key.
fn signed_act(m: &Path, line: &str) -> arbiter::table::control::ActRequest {
    let signed_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    signed_act_at(m, line, &signed_at)
}

/// [`signed_act`] signed at `signed_at`.
fn signed_act_at(m: &Path, line: &str, signed_at: &str) -> arbiter::table::control::ActRequest {
    use arbiter::core::werewolf::{Approval, act_authorization_text};
    let key = ssh_key::PrivateKey::read_openssh_file(&m.join("keys/arbiter")).unwrap();
    let origin = arbiter::log::checkpoint::origin(&arbiter::table::serve::match_id(m), 1);
    let signed_at = signed_at.to_string();
    let text = act_authorization_text(&origin, line, &signed_at);
    arbiter::table::control::ActRequest {
        game: Some(1),
        line: line.into(),
        approval: Some(Approval::Passphrase {
            key: arbiter::record::sign::fingerprint(key.public_key()),
            signed_at,
            sig: arbiter::record::sign::sign_authorization(&key, &text).unwrap(),
        }),
        failed: None,
    }
}

/// End the held game with a ruling through the socket and let everyone finish.
fn end_held(m: &Path, mut s: Server, mut seats: Vec<Child>) -> Vec<Value> {
    let ended = arbiter::table::control::send(m, Some(1), "end NONE ruled in the test").unwrap();
    assert!(ended.recorded, "{ended:?}");
    assert!(wait(&mut s.child, "arbiter serve", 60).success());
    for c in &mut seats {
        wait(c, "seat", 20);
    }
    entries(m, 1)
}

/// The arbiter's acts (the regulation's section on them), rule 5b as the board keeps it: a wrong
/// passphrase at the game master's screen is recorded (actor kit, the acts' section) and
/// nothing else; an act the screen signed with the key the passphrase opened is recorded with
/// its approval (the key's fingerprint and the signature), and `verify` checks the signature.
#[test]
fn table_serve_arbiter_acts_rule_5b_a_wrong_passphrase_is_recorded_and_a_signed_act_verifies() {
    use arbiter::table::control::{ActRequest, send_request};
    if !python_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (m, s, seats) = dealt_table(tmp.path());
    let before = entries(&m, 1).len();
    let failed = send_request(
        &m,
        &ActRequest {
            game: Some(1),
            line: "pause power cut".into(),
            approval: None,
            failed: Some("wrong passphrase".into()),
        },
    )
    .unwrap();
    assert!(failed.recorded, "{failed:?}");
    let es = entries(&m, 1);
    let new: Vec<&Value> = es[before..]
        .iter()
        .filter(|e| e["actor"] == "arbiter" || e["kind"] == "authorization_failed")
        .collect();
    assert_eq!(new.len(), 1, "the failure alone, no act: {new:?}");
    let f = new[0];
    assert_eq!(f["kind"], "authorization_failed");
    assert_eq!(f["actor"], "kit");
    assert!(f["clause"].as_str().unwrap().contains("the arbiter's acts"));
    assert_eq!(f["body"]["command"], "pause power cut");
    assert_eq!(f["body"]["why"], "wrong passphrase");
    assert!(kinds(&es, "paused").is_empty(), "the act is not recorded");
    // The same act, signed.
    let r = send_request(&m, &signed_act(&m, "note the power is back")).unwrap();
    assert!(r.recorded, "{r:?}");
    let es = end_held(&m, s, seats);
    let a = kinds(&es, "approved");
    let a = a
        .iter()
        .find(|e| e["body"]["command"] == "note the power is back")
        .unwrap();
    assert_eq!(a["body"]["approval"]["by"], "passphrase");
    assert_eq!(
        a["body"]["approval"]["key"],
        es[0]["body"]["arbiter_key"]["fingerprint"]
    );
    assert_game_recorded(&m, &es);
    let v = verify(&m);
    let said = String::from_utf8_lossy(&v.stdout).to_string();
    assert!(v.status.success(), "{said}");
    assert!(said.contains("1 act(s) of the arbiter signed"), "{said}");
}

/// The arbiter's acts: an approval whose signature is not the arbiter key's over the act's text
/// (signed for another act, or by another key) is refused as it reaches the table, the reason
/// named to the screen and recorded as the failed authorization it is (actor kit), the act not;
/// the match verifies 0. `verify` still checks every `approved` entry's signature: the same
/// forgery written into a log is UNAUTHORIZED.
#[test]
fn table_serve_arbiter_acts_a_forged_signature_is_refused_at_receipt_and_recorded_as_failed() {
    use arbiter::core::werewolf::Approval;
    use arbiter::table::control::send_request;
    if !python_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (m, s, seats) = dealt_table(tmp.path());
    let said_path = m.with_extension(format!("stderr-{}", s.child.id()));
    let before = entries(&m, 1).len();
    // Signed for another act, handed over with this one.
    let mut forged = signed_act(&m, "note the power is back");
    let Some(Approval::Passphrase { sig, .. }) = signed_act(&m, "note something else").approval
    else {
        unreachable!()
    };
    if let Some(Approval::Passphrase { sig: s, .. }) = forged.approval.as_mut() {
        *s = sig;
    }
    let r = send_request(&m, &forged).unwrap();
    assert!(!r.recorded, "{r:?}");
    assert!(
        r.text.contains("signed approval refused")
            && r.text.contains("does not verify")
            && r.text.contains("the act is not recorded"),
        "{r:?}"
    );
    // Signed by a key that is not the match's.
    let other = tmp.path().join("other");
    let other_pub = arbiter::record::sign::keygen(&other, None, "not the arbiter").unwrap();
    let other_fp = arbiter::record::sign::fingerprint(&other_pub);
    let mut by_other = signed_act(&m, "pause power cut");
    let other_key = ssh_key::PrivateKey::read_openssh_file(&other).unwrap();
    if let Some(Approval::Passphrase {
        key,
        signed_at,
        sig,
    }) = by_other.approval.as_mut()
    {
        let origin = arbiter::log::checkpoint::origin(&arbiter::table::serve::match_id(&m), 1);
        let text =
            arbiter::core::werewolf::act_authorization_text(&origin, "pause power cut", signed_at);
        *sig = arbiter::record::sign::sign_authorization(&other_key, &text).unwrap();
        *key = other_fp.clone();
    }
    let r = send_request(&m, &by_other).unwrap();
    assert!(!r.recorded, "{r:?}");
    assert!(
        r.text
            .contains(&format!("names key {other_fp}, not the arbiter key")),
        "{r:?}"
    );
    let es = entries(&m, 1);
    let new: Vec<&Value> = es[before..]
        .iter()
        .filter(|e| {
            e["actor"] == "arbiter"
                || e["kind"] == "authorization_failed"
                || e["kind"] == "approved"
        })
        .collect();
    assert_eq!(new.len(), 2, "the two refusals alone, no act: {new:?}");
    for (f, (command, why)) in new.iter().zip([
        ("note the power is back", "does not verify"),
        ("pause power cut", "not the arbiter key"),
    ]) {
        assert_eq!(f["kind"], "authorization_failed", "{f}");
        assert_eq!(f["actor"], "kit");
        assert_eq!(f["body"]["command"], command);
        let w = f["body"]["why"].as_str().unwrap();
        assert!(
            w.contains("signed approval refused") && w.contains(why),
            "{w}"
        );
    }
    let es = end_held(&m, s, seats);
    assert!(kinds(&es, "paused").is_empty(), "the act is not recorded");
    assert!(
        kinds(&es, "noted").is_empty(),
        "the act is not recorded: {:?}",
        kinds(&es, "noted")
    );
    let screen = std::fs::read_to_string(&said_path).unwrap_or_default();
    assert!(screen.contains("signed approval refused"), "{screen}");
    assert_game_recorded(&m, &es);
    let v = verify(&m);
    let said = String::from_utf8_lossy(&v.stdout).to_string();
    assert_eq!(v.status.code(), Some(0), "{said}");

    // The forgery written into the log all the same (the end's approval claimed as signed):
    // `verify`'s own check names it UNAUTHORIZED.
    let copy = tmp.path().join("copy");
    let log = copy.join("game-1/log.jsonl");
    std::fs::create_dir_all(log.parent().unwrap()).unwrap();
    let to_new = |e: &Value| arbiter::log::NewEntry {
        mono_ms: e["mono_ms"].as_u64().unwrap(),
        utc: e["utc"].as_str().unwrap().parse().unwrap(),
        actor: e["actor"].as_str().unwrap().into(),
        clause: e["clause"].as_str().unwrap().into(),
        kind: e["kind"].as_str().unwrap().into(),
        body: e["body"].clone(),
    };
    let Some(Approval::Passphrase { key, signed_at, .. }) = forged.approval.clone() else {
        unreachable!()
    };
    let Some(Approval::Passphrase { sig, .. }) = signed_act(&m, "note something else").approval
    else {
        unreachable!()
    };
    let mut j = arbiter::record::journal::Journal::create(&log, to_new(&es[0])).unwrap();
    for e in &es[1..] {
        let mut n = to_new(e);
        if e["kind"] == "approved" {
            n.body["approval"] = serde_json::json!({"by": "passphrase", "key": key,
                "signed_at": signed_at, "sig": sig});
        }
        j.append(n).unwrap();
    }
    drop(j);
    let first = arbiter::record::journal::first_entry(&log).unwrap();
    let public = ssh_key::PrivateKey::read_openssh_file(&m.join("keys/arbiter"))
        .unwrap()
        .public_key()
        .clone();
    let origin = arbiter::log::checkpoint::origin(&arbiter::table::serve::match_id(&m), 1);
    let mut v = arbiter::record::verify::GameVerification::unreadable(1, &log, String::new());
    v.status = arbiter::record::verify::Status::Ok;
    v.problems.clear();
    arbiter::record::verify::check_approvals(&copy, 1, &first, Some(&public), &origin, &mut v);
    assert_eq!(
        v.status,
        arbiter::record::verify::Status::Unauthorized,
        "{v:?}"
    );
    assert!(
        v.problems
            .iter()
            .any(|p| p.contains("UNAUTHORIZED") && p.contains("does not verify")),
        "{:?}",
        v.problems
    );
}

/// The arbiter's acts: a signed approval is used once and only soon after it was signed. The same
/// request handed over again (replayed by whoever can reach the socket) is refused, naming the
/// entry that already carries its signature; one signed an hour ago is refused, naming its age;
/// each refusal is recorded as a failed authorization, the act not; the match verifies 0.
#[test]
fn table_serve_arbiter_acts_a_replayed_or_stale_approval_is_refused() {
    use arbiter::table::control::send_request;
    if !python_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (m, s, seats) = dealt_table(tmp.path());
    let act = signed_act(&m, "note the power is back");
    let r = send_request(&m, &act).unwrap();
    assert!(r.recorded, "{r:?}");
    let first = entries(&m, 1)
        .iter()
        .rposition(|e| e["kind"] == "approved")
        .unwrap();
    let r = send_request(&m, &act).unwrap();
    assert!(!r.recorded, "{r:?}");
    assert!(
        r.text
            .contains(&format!("the one entry #{first} already carries")),
        "{r:?}"
    );
    let hour_ago = (chrono::Utc::now() - chrono::Duration::hours(1))
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let r = send_request(&m, &signed_act_at(&m, "pause power cut", &hour_ago)).unwrap();
    assert!(!r.recorded, "{r:?}");
    assert!(
        r.text
            .contains(&format!("it was signed at {hour_ago}, 3600 s before")),
        "{r:?}"
    );
    let es = end_held(&m, s, seats);
    let failed = kinds(&es, "authorization_failed");
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert_eq!(
        kinds(&es, "noted").len(),
        1,
        "the note is recorded once: {:?}",
        kinds(&es, "noted")
    );
    assert!(kinds(&es, "paused").is_empty());
    let v = verify(&m);
    let said = String::from_utf8_lossy(&v.stdout).to_string();
    assert_eq!(v.status.code(), Some(0), "{said}");

    // The replay written into a log all the same: `verify` names it.
    let copy = tmp.path().join("copy");
    let log = copy.join("game-1/log.jsonl");
    std::fs::create_dir_all(log.parent().unwrap()).unwrap();
    let to_new = |e: &Value| arbiter::log::NewEntry {
        mono_ms: e["mono_ms"].as_u64().unwrap(),
        utc: e["utc"].as_str().unwrap().parse().unwrap(),
        actor: e["actor"].as_str().unwrap().into(),
        clause: e["clause"].as_str().unwrap().into(),
        kind: e["kind"].as_str().unwrap().into(),
        body: e["body"].clone(),
    };
    let mut j = arbiter::record::journal::Journal::create(&log, to_new(&es[0])).unwrap();
    for (i, e) in es.iter().enumerate().skip(1) {
        j.append(to_new(e)).unwrap();
        if i == first + 1 {
            j.append(to_new(&es[first])).unwrap();
            j.append(to_new(&es[first + 1])).unwrap();
        }
    }
    drop(j);
    let first_entry = arbiter::record::journal::first_entry(&log).unwrap();
    let public = ssh_key::PrivateKey::read_openssh_file(&m.join("keys/arbiter"))
        .unwrap()
        .public_key()
        .clone();
    let origin = arbiter::log::checkpoint::origin(&arbiter::table::serve::match_id(&m), 1);
    let mut v = arbiter::record::verify::GameVerification::unreadable(1, &log, String::new());
    v.status = arbiter::record::verify::Status::Ok;
    v.problems.clear();
    arbiter::record::verify::check_approvals(
        &copy,
        1,
        &first_entry,
        Some(&public),
        &origin,
        &mut v,
    );
    assert_eq!(
        v.status,
        arbiter::record::verify::Status::Unauthorized,
        "{v:?}"
    );
    assert!(
        v.problems
            .iter()
            .any(|p| p.contains(&format!("the one entry #{first} already carries"))),
        "{:?}",
        v.problems
    );
}

fn match_dir(tmp: &Path) -> PathBuf {
    let m = tmp.join("m");
    crate::log_util::arbiter_key_in(&m);
    m
}

/// Start `arbiter serve` and read its one listening line (deadline 20 s).
fn serve(m: &Path, rules: &str, listen: &str, extra: &[&str], stdin: Stdio) -> Server {
    serve_env(m, rules, listen, extra, stdin, &[])
}

pub(crate) fn serve_env(
    m: &Path,
    rules: &str,
    listen: &str,
    extra: &[&str],
    stdin: Stdio,
    env: &[(&str, &str)],
) -> Server {
    serve_under(&[], m, rules, listen, extra, stdin, env)
}

/// `arbiter serve` run by `wrap` (e.g. strace) when given.
fn serve_under(
    wrap: &[&str],
    m: &Path,
    rules: &str,
    listen: &str,
    extra: &[&str],
    stdin: Stdio,
    env: &[(&str, &str)],
) -> Server {
    let mut cmd = match wrap.split_first() {
        Some((program, args)) => {
            let mut c = Command::new(program);
            c.args(args).arg(env!("CARGO_BIN_EXE_arbiter"));
            c
        }
        None => Command::new(env!("CARGO_BIN_EXE_arbiter")),
    };
    cmd.args(["serve", "--match"])
        .arg(m)
        .args(["--rules", rules, "--listen", listen])
        .args(extra)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    // The server's standard error, kept for the failure message.
    let log = m.with_extension(format!("stderr-{}", child.id()));
    std::thread::spawn(move || {
        let mut f = std::fs::File::create(log).unwrap();
        for l in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = writeln!(f, "{l}");
        }
    });
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        if let Some(Ok(l)) = lines.next() {
            let _ = tx.send(l);
        }
        // Nothing else is printed on standard output.
        for l in lines.map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let line = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("no listening line within 20 s");
    let url = line
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("first line {line:?}"))
        .to_string();
    assert!(
        url.starts_with("ws://127.0.0.1:") && url.ends_with("/ws"),
        "{url}"
    );
    let addr = url
        .trim_start_matches("ws://")
        .trim_end_matches("/ws")
        .to_string();
    Server { child, url, addr }
}

/// Start one seat program.
pub(crate) fn seat(url: &str, name: &str, fault: &str, extra: &[&str]) -> Child {
    Command::new("python3")
        .arg(SEAT)
        .args(["--url", url, "--name", name, "--fault", fault])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait for a child with a deadline; kill it and fail past it.
pub(crate) fn wait(child: &mut Child, what: &str, secs: u64) -> ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not end within {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stderr_of(child: &mut Child) -> String {
    let mut s = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut s);
    }
    s
}

/// The entries of game `n`'s log.
/// The complete entries of game `n`'s log: a line the server is still writing (no newline yet)
/// is left for the next read.
pub(crate) fn entries(m: &Path, n: u32) -> Vec<Value> {
    let text = std::fs::read_to_string(m.join(format!("game-{n}/log.jsonl"))).unwrap_or_default();
    text.split_inclusive('\n')
        .filter(|l| l.ends_with('\n') && l.len() > 1)
        .map(|l| serde_json::from_str(l.trim_end()).unwrap())
        .collect()
}

fn kinds<'a>(es: &'a [Value], kind: &str) -> Vec<&'a Value> {
    es.iter().filter(|e| e["kind"] == kind).collect()
}

/// The server's standard error so far.
pub(crate) fn server_said(m: &Path, s: &Server) -> String {
    std::fs::read_to_string(m.with_extension(format!("stderr-{}", s.child.id())))
        .unwrap_or_default()
}

/// Play one game of `faults.len()` seats (one fault mode each) to its end; every seat not
/// expected to fail must exit 0; the server exits 0. Returns the log's entries.
fn play(rules: &str, faults: &[&str]) -> (tempfile::TempDir, Vec<Value>) {
    let tmp = tempfile::tempdir().unwrap();
    let m = match_dir(tmp.path());
    let mut s = serve(&m, rules, "127.0.0.1:0", &["--games", "1"], Stdio::null());
    let mut seats: Vec<(String, Child)> = faults
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let name = format!("kit{}", i + 1);
            let c = seat(&s.url, &name, f, &[]);
            (name, c)
        })
        .collect();
    let status = wait(&mut s.child, "arbiter serve", 90);
    assert!(status.success(), "serve: {status}\n{}", server_said(&m, &s));
    for ((name, c), f) in seats.iter_mut().zip(faults) {
        let st = wait(c, name, 20);
        // A seat put in error stops getting requests; FINISH and the close still come.
        if !matches!(*f, "close" | "late-probe") {
            assert!(st.success(), "seat {name} ({f}): {st}: {}", stderr_of(c));
        }
    }
    let es = entries(&m, 1);
    assert_game_recorded(&m, &es);
    (tmp, es)
}

/// What every finished game's record holds: line 0 with its seats and the seed's commitment,
/// the seed revealed by `game_ended` (and its file gone), a signed checkpoint, the index.
pub(crate) fn assert_game_recorded(m: &Path, es: &[Value]) {
    use sha2::Digest;
    let first = &es[0];
    assert_eq!(first["kind"], "game_opened");
    assert!(first["body"]["match_id"].is_string());
    assert!(first["body"]["profile"]["sha256"].is_string());
    assert!(first["body"]["arbiter_key"]["fingerprint"].is_string());
    let last = es.last().unwrap();
    assert_eq!(last["kind"], "game_ended", "the last entry ends the game");
    let seed = hex::decode(last["body"]["seed"].as_str().unwrap()).unwrap();
    assert_eq!(
        hex::encode(sha2::Sha256::digest(&seed)),
        first["body"]["table"]["seed_sha256"].as_str().unwrap(),
        "the seed revealed is the one line 0 committed to"
    );
    assert!(
        !m.join("game-1/seed").exists(),
        "the seed file is gone once revealed"
    );
    let cps: Vec<_> = std::fs::read_dir(m.join("game-1/checkpoints"))
        .unwrap()
        .flatten()
        .collect();
    assert!(!cps.is_empty(), "a checkpoint is signed after the game");
    let index = std::fs::read_to_string(m.join("index.txt")).unwrap();
    let winner = last["body"]["winner"].as_str().unwrap();
    assert!(
        index
            .lines()
            .any(|l| l.starts_with("game 1 ") && l.ends_with(winner)),
        "{index}"
    );
    // Every request went out after its entry: the frames of `sent` entries are what the seats got.
    for e in kinds(es, "sent") {
        assert!(e["body"]["frame"].is_string());
    }
}

fn winner(es: &[Value]) -> String {
    es.last().unwrap()["body"]["winner"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The seat (from 0) the seat program `kit1` sat at (seats are taken in the order of
/// connection, and the seat programs race).
fn kit1(es: &[Value]) -> u64 {
    es[0]["body"]["table"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s["name"] == "kit1")
        .unwrap() as u64
}

/// The `frame_received` entries of a seat (0-based).
fn frames_of(es: &[Value], seat: u64) -> Vec<&Value> {
    kinds(es, "frame_received")
        .into_iter()
        .filter(|e| e["body"]["seat"] == seat)
        .collect()
}

#[test]
fn table_serve_five_python_seats_play_a_whole_game() {
    if !python_ready() {
        return;
    }
    let (_t, es) = play(P5, &["none"; 5]);
    assert!(matches!(winner(&es).as_str(), "VILLAGER" | "WEREWOLF"));
    assert_eq!(kinds(&es, "dealt").len(), 1);
    assert!(!kinds(&es, "talked").is_empty());
    assert!(kinds(&es, "seat_in_error").is_empty());
    assert!(
        kinds(&es, "frame_received")
            .iter()
            .all(|e| e["body"]["verdict"] == "on_time"),
        "instant seats answer on time"
    );
}

#[test]
fn table_serve_thirteen_python_seats_play_a_whole_game() {
    if !python_ready() {
        return;
    }
    let (_t, es) = play(P13, &["none"; 13]);
    assert!(matches!(winner(&es).as_str(), "VILLAGER" | "WEREWOLF"));
    assert!(!kinds(&es, "talked").is_empty());
    assert!(kinds(&es, "seat_in_error").is_empty());
}

#[test]
fn table_serve_fault_late_within_the_grace_is_taken() {
    if !python_ready() {
        return;
    }
    let (_t, es) = play(P5, &["late", "none", "none", "none", "none"]);
    let k = kit1(&es);
    // The answer came after the action time, before the probe: taken (model/agent.go waits
    // action + acceptable), its time recorded past the deadline.
    let late = frames_of(&es, k)
        .into_iter()
        .find(|e| e["body"]["text"].as_str().unwrap_or("").contains("late"))
        .expect("the late answer is recorded");
    assert_eq!(late["body"]["verdict"], "on_time");
    let sent = kinds(&es, "sent")
        .into_iter()
        .filter(|e| e["body"]["seat"] == k && e["body"]["deadline_ms"].is_u64())
        .rfind(|e| e["seq"].as_u64() < late["seq"].as_u64())
        .unwrap();
    assert!(late["body"]["at_ms"].as_u64() > sent["body"]["deadline_ms"].as_u64());
    assert!(kinds(&es, "seat_in_error").is_empty());
}

#[test]
fn table_serve_fault_late_crossing_the_probe_puts_the_seat_in_error() {
    if !python_ready() {
        return;
    }
    let (_t, es) = play(P5, &["late-probe", "none", "none", "none", "none"]);
    let k = kit1(&es);
    assert!(
        kinds(&es, "timed_out")
            .iter()
            .any(|e| e["body"]["seat"] == k && e["body"]["stage"] == "action"),
        "the NAME probe went out"
    );
    let crossed = frames_of(&es, k)
        .into_iter()
        .find(|e| {
            e["body"]["text"]
                .as_str()
                .unwrap_or("")
                .contains("late words")
        })
        .expect("the late answer is recorded");
    assert!(matches!(
        crossed["body"]["verdict"].as_str(),
        Some("probe_failed" | "late")
    ));
    assert!(
        kinds(&es, "seat_in_error")
            .iter()
            .any(|e| e["body"]["seat"] == k)
    );
    // One seat in error of five: 5 x 0.2 = 1, the game ends with no winner.
    assert_eq!(winner(&es), "NONE");
}

#[test]
fn table_serve_fault_probe_answered_keeps_the_seat() {
    if !python_ready() {
        return;
    }
    let (_t, es) = play(P5, &["probe", "none", "none", "none", "none"]);
    let k = kit1(&es);
    assert!(
        frames_of(&es, k)
            .iter()
            .any(|e| e["body"]["verdict"] == "probe_answered")
    );
    assert!(
        kinds(&es, "request_failed")
            .iter()
            .any(|e| e["body"]["seat"] == k)
    );
    assert!(kinds(&es, "seat_in_error").is_empty());
}

#[test]
fn table_serve_fault_unknown_target_is_named() {
    if !python_ready() {
        return;
    }
    let (_t, es) = play(P5, &["unknown"; 5]);
    let bad = kinds(&es, "target_invalid");
    assert!(
        bad.iter()
            .any(|e| e["body"]["reason"] == "unknown" && e["body"]["answer"] == "Nobody-At-All")
    );
    // No valid vote on day 1: nobody executed (logic/execution.go).
    assert!(
        kinds(&es, "no_execution")
            .iter()
            .any(|e| e["body"]["day"] == 1)
    );
}

#[test]
fn table_serve_fault_dead_target_is_named() {
    if !python_ready() {
        return;
    }
    let (_t, es) = play(P13, &["dead"; 13]);
    assert!(
        kinds(&es, "target_invalid")
            .iter()
            .any(|e| e["body"]["reason"] == "dead")
    );
}

#[test]
fn table_serve_fault_self_target_is_named() {
    if !python_ready() {
        return;
    }
    let (_t, es) = play(P5, &["self"; 5]);
    // The seer divines itself on night 0: nothing is learnt (logic/divine.go).
    assert!(
        kinds(&es, "target_invalid")
            .iter()
            .any(|e| e["body"]["reason"] == "self" && e["body"]["request"] == "DIVINE")
    );
}

#[test]
fn table_serve_fault_unsolicited_frame_is_never_an_answer() {
    if !python_ready() {
        return;
    }
    let (_t, es) = play(P5, &["unsolicited", "none", "none", "none", "none"]);
    let k = kit1(&es);
    let u = frames_of(&es, k)
        .into_iter()
        .find(|e| e["body"]["text"] == "nobody asked me\n")
        .expect("recorded raw");
    assert_eq!(u["body"]["verdict"], "unsolicited");
    assert!(
        !kinds(&es, "talked").iter().any(|e| e["body"]["text"]
            .as_str()
            .unwrap_or("")
            .contains("nobody asked")),
        "never taken as talk"
    );
}

#[test]
fn table_serve_fault_binary_frame_is_refused_and_the_seat_stays() {
    if !python_ready() {
        return;
    }
    let (_t, es) = play(P5, &["binary", "none", "none", "none", "none"]);
    let k = kit1(&es);
    let b = kinds(&es, "binary_frame");
    assert!(
        b.iter()
            .any(|e| e["body"]["seat"] == k && e["body"]["len"] == 8)
    );
    assert!(kinds(&es, "seat_in_error").is_empty());
}

#[test]
fn table_serve_fault_oversize_frame_is_refused_and_the_seat_stays() {
    if !python_ready() {
        return;
    }
    let (_t, es) = play(P5, &["oversize", "none", "none", "none", "none"]);
    let k = kit1(&es);
    let o = kinds(&es, "oversize_frame");
    assert!(
        o.iter().any(|e| e["body"]["seat"] == k
            && e["body"]["len"] == 4097
            && e["body"]["limit"] == 4096)
    );
    assert!(kinds(&es, "seat_in_error").is_empty());
}

#[test]
fn table_serve_fault_close_mid_day_puts_the_seat_in_error() {
    if !python_ready() {
        return;
    }
    let (_t, es) = play(P5, &["close", "none", "none", "none", "none"]);
    let k = kit1(&es);
    assert!(
        kinds(&es, "connection_closed")
            .iter()
            .any(|e| e["body"]["seat"] == k)
    );
    assert!(
        kinds(&es, "seat_in_error")
            .iter()
            .any(|e| e["body"]["seat"] == k)
    );
    assert_eq!(winner(&es), "NONE");
}

#[test]
fn table_serve_fault_crlf_is_recorded_raw_and_stripped() {
    if !python_ready() {
        return;
    }
    let (_t, es) = play(P5, &["crlf", "none", "none", "none", "none"]);
    let k = kit1(&es);
    let raw = frames_of(&es, k)
        .into_iter()
        .find(|e| e["body"]["text"].as_str().unwrap_or("").ends_with("\r\n"))
        .expect("the raw frame keeps its \\r\\n");
    assert_eq!(raw["body"]["verdict"], "on_time");
    let said: Vec<_> = kinds(&es, "talked")
        .into_iter()
        .filter(|e| e["body"]["seat"] == k && e["body"]["counts_as"] == "said")
        .collect();
    assert!(!said.is_empty());
    assert!(said.iter().all(|e| {
        let t = e["body"]["text"].as_str().unwrap();
        !t.contains('\r') && !t.contains('\n')
    }));
}

#[test]
fn table_serve_fault_empty_answer_is_named() {
    if !python_ready() {
        return;
    }
    let (_t, es) = play(P5, &["empty", "none", "none", "none", "none"]);
    let k = kit1(&es);
    assert!(
        frames_of(&es, k).iter().any(|e| e["body"]["text"] == ""),
        "the empty frame is recorded"
    );
    assert!(
        kinds(&es, "talk_replaced")
            .iter()
            .any(|e| e["body"]["seat"] == k && e["body"]["raw"] == ""),
        "the empty text is taken as something else, and said"
    );
}

#[test]
fn table_serve_fault_skip_and_over_in_other_cases_are_ordinary_talk() {
    if !python_ready() {
        return;
    }
    let (_t, es) = play(P5, &["skip-over", "none", "none", "none", "none"]);
    let k = kit1(&es);
    for word in ["SKIP", "over"] {
        assert!(
            kinds(&es, "talked").iter().any(|e| e["body"]["seat"] == k
                && e["body"]["text"] == word
                && e["body"]["counts_as"] == "said"),
            "{word} is talk"
        );
    }
}

#[test]
fn table_serve_tokens_right_wrong_team_missing() {
    if !python_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = match_dir(tmp.path());
    let rules = "tests/fixtures/aiwolf/test-5-auth.toml";
    let secret = "table-key";
    let mut s = serve_env(
        &m,
        rules,
        "127.0.0.1:0",
        &["--games", "1"],
        Stdio::null(),
        &[(KEY_VAR, secret)],
    );
    let right = arbiter::table::auth::player_token(secret.as_bytes(), "kit");
    let other = arbiter::table::auth::player_token(secret.as_bytes(), "intruder");
    // Two refused first: another team's token, and none.
    let mut wrong = seat(&s.url, "kit9", "none", &["--token", &other]);
    let mut missing = seat(&s.url, "kit8", "none", &[]);
    assert!(!wait(&mut wrong, "wrong-team seat", 20).success());
    assert!(!wait(&mut missing, "seat without token", 20).success());
    let mut seats: Vec<Child> = (1..=5)
        .map(|i| seat(&s.url, &format!("kit{i}"), "none", &["--token", &right]))
        .collect();
    assert!(
        wait(&mut s.child, "arbiter serve", 90).success(),
        "{}",
        server_said(&m, &s)
    );
    for (i, c) in seats.iter_mut().enumerate() {
        assert!(wait(c, "seat", 20).success(), "seat {i}");
    }
    let es = entries(&m, 1);
    let refused = es[0]["body"]["door"]["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert!(
        refused
            .iter()
            .any(|r| r["name"] == "kit9" && r["reason"].as_str().unwrap().contains("intruder"))
    );
    assert!(
        refused
            .iter()
            .any(|r| r["name"] == "kit8" && r["reason"].as_str().unwrap().contains("no token"))
    );
    let seated: Vec<&str> = es[0]["body"]["table"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(!seated.contains(&"kit9") && !seated.contains(&"kit8"));
}

#[test]
fn table_serve_tokens_required_without_the_key_variable_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let m = match_dir(tmp.path());
    let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["serve", "--match"])
        .arg(&m)
        .args([
            "--rules",
            "tests/fixtures/aiwolf/test-5-auth.toml",
            "--listen",
            "127.0.0.1:0",
        ])
        .env_remove(KEY_VAR)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(65));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(KEY_VAR), "{err}");
    assert!(o.stdout.is_empty(), "nothing listened");
}

/// Wait until game 1's log holds an entry matching `f`.
fn wait_for_entry(m: &Path, what: &str, f: impl Fn(&Value) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !entries(m, 1).iter().any(&f) {
        assert!(Instant::now() < deadline, "no {what} within 60 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn table_serve_kill_9_mid_game_then_restart_resumes_from_the_log() {
    if !python_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = match_dir(tmp.path());
    let mut s = serve(&m, P5, "127.0.0.1:0", &["--games", "1"], Stdio::null());
    let addr = s.addr.clone();
    let mut seats: Vec<Child> = (1..=5)
        .map(|i| seat(&s.url, &format!("kit{i}"), "reconnect", &[]))
        .collect();
    wait_for_entry(&m, "talk on day 1", |e| {
        e["kind"] == "talked" && e["body"]["day"] == 1
    });
    s.child.kill().unwrap();
    s.child.wait().unwrap();
    let before = std::fs::read(m.join("game-1/log.jsonl")).unwrap();
    let complete = before.len() - before.iter().rev().take_while(|&&b| b != b'\n').count();
    assert!(
        m.join("game-1/seed").exists(),
        "the seed is kept while the game is under way"
    );
    let mut again = serve(&m, P5, &addr, &["--games", "1"], Stdio::null());
    assert!(
        wait(&mut again.child, "arbiter serve (restarted)", 90).success(),
        "{}",
        server_said(&m, &again)
    );
    for (i, c) in seats.iter_mut().enumerate() {
        let st = wait(c, "seat", 30);
        assert!(st.success(), "seat {i}: {st}: {}", stderr_of(c));
    }
    let after = std::fs::read(m.join("game-1/log.jsonl")).unwrap();
    assert_eq!(
        &after[..complete],
        &before[..complete],
        "nothing acknowledged is lost"
    );
    let es = entries(&m, 1);
    assert_eq!(kinds(&es, "restarted").len(), 1);
    assert_eq!(
        kinds(&es, "reconnected").len(),
        5,
        "every seat came back by name"
    );
    assert!(matches!(winner(&es).as_str(), "VILLAGER" | "WEREWOLF"));
    assert_game_recorded(&m, &es);
}

#[test]
fn table_serve_kill_9_then_restart_ends_the_game_when_the_profile_says_so() {
    if !python_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = match_dir(tmp.path());
    let rules = "tests/fixtures/aiwolf/test-5-end.toml";
    let mut s = serve(&m, rules, "127.0.0.1:0", &["--games", "1"], Stdio::null());
    let mut seats: Vec<Child> = (1..=5)
        .map(|i| seat(&s.url, &format!("kit{i}"), "none", &[]))
        .collect();
    wait_for_entry(&m, "a talk", |e| e["kind"] == "talked");
    s.child.kill().unwrap();
    s.child.wait().unwrap();
    for c in &mut seats {
        wait(c, "seat", 20);
    }
    let mut again = serve(&m, rules, "127.0.0.1:0", &["--games", "1"], Stdio::null());
    assert!(wait(&mut again.child, "arbiter serve (restarted)", 30).success());
    let es = entries(&m, 1);
    assert_eq!(kinds(&es, "restarted").len(), 1);
    assert_eq!(winner(&es), "NONE");
    assert_game_recorded(&m, &es);
}

#[test]
fn table_serve_arbiter_acts_from_the_control_channel() {
    if !python_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = match_dir(tmp.path());
    let mut s = serve(
        &m,
        P5,
        "127.0.0.1:0",
        &["--games", "1", "--control", "-"],
        Stdio::piped(),
    );
    // One seat holds its first talk until the probe, so the game is still on when the arbiter's
    // lines arrive, however fast the other seats are.
    let mut seats: Vec<Child> = (1..=5)
        .map(|i| {
            seat(
                &s.url,
                &format!("kit{i}"),
                if i == 1 { "probe" } else { "none" },
                &[],
            )
        })
        .collect();
    wait_for_entry(&m, "the deal", |e| e["kind"] == "dealt");
    let mut ctl = s.child.stdin.take().unwrap();
    writeln!(ctl, "pause a seat's machine rebooting").unwrap();
    writeln!(ctl, "note the table waits").unwrap();
    writeln!(ctl, "bogus line").unwrap();
    writeln!(ctl, "eject white abusive talk").unwrap();
    writeln!(ctl, "end black ruled").unwrap();
    writeln!(ctl, "resume").unwrap();
    writeln!(ctl, "end NONE ruled by the arbiter in the test").unwrap();
    ctl.flush().unwrap();
    assert!(wait(&mut s.child, "arbiter serve", 60).success());
    drop(ctl);
    for c in &mut seats {
        wait(c, "seat", 20);
    }
    let es = entries(&m, 1);
    for k in ["paused", "noted", "resumed", "ruled"] {
        let e = kinds(&es, k);
        assert_eq!(e.len(), 1, "{k}");
        assert_eq!(e[0]["actor"], "arbiter", "{k} is the arbiter's act");
    }
    assert_eq!(winner(&es), "NONE");
    // Each act says how it was approved: through `--control`, its owner's, no passphrase.
    let approved = kinds(&es, "approved");
    assert_eq!(approved.len(), 4, "one approval an act");
    for a in approved {
        assert_eq!(a["body"]["approval"]["by"], "owner", "{a}");
        assert_eq!(a["body"]["approval"]["channel"], "--control", "{a}");
    }
    let v = verify(&m);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stdout));
    let said = server_said(&m, &s);
    assert!(said.contains("bogus"), "a bad line is said");
    // A board game's side is refused by name, and records nothing.
    assert!(
        said.contains("control refused: \"eject white abusive talk\": \"white\" is a board game's side: a werewolf table has no white or black"),
        "{said}"
    );
    assert!(
        said.contains("\"end black ruled\": \"black\" is a board game's side"),
        "{said}"
    );
    assert!(kinds(&es, "ejected").is_empty());
}

#[test]
fn table_serve_arbiter_acts_from_the_control_socket_each_one_entry() {
    use arbiter::table::control::send;
    if !python_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = match_dir(tmp.path());
    // Before any serve: no table answers.
    let none = send(&m, None, "note nobody hears").unwrap_err().to_string();
    assert!(none.contains("no table is served"), "{none}");
    let mut s = serve(&m, P5, "127.0.0.1:0", &["--games", "1"], Stdio::null());
    let sock = m.join("control.sock");
    {
        use std::os::unix::fs::{FileTypeExt, PermissionsExt};
        let md = std::fs::symlink_metadata(&sock).unwrap();
        assert!(md.file_type().is_socket());
        assert_eq!(md.permissions().mode() & 0o777, 0o600, "owner-only");
    }
    // Between games (seats still connecting): refused, nothing recorded.
    let early = send(&m, Some(1), "note too early").unwrap();
    assert!(
        !early.recorded && early.text.contains("no game is under way"),
        "{early:?}"
    );
    // A second serve of the same folder is refused while this one runs.
    let second = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["serve", "--match"])
        .arg(&m)
        .args(["--rules", P5, "--listen", "127.0.0.1:0", "--games", "1"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!second.status.success());
    assert!(
        String::from_utf8_lossy(&second.stderr)
            .contains("another arbiter serve runs this match folder"),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert!(
        sock.exists(),
        "the refused serve leaves the running one's socket"
    );
    let mut seats: Vec<Child> = (1..=5)
        .map(|i| {
            seat(
                &s.url,
                &format!("kit{i}"),
                if i == 1 { "probe" } else { "none" },
                &[],
            )
        })
        .collect();
    wait_for_entry(&m, "the deal", |e| e["kind"] == "dealt");
    let before = entries(&m, 1).len();
    // Refused: another game, no such seat, out of place for the rules. Nothing recorded.
    for (line, game, why) in [
        (
            "note for game 2",
            Some(2),
            "game 2 is not the game under way",
        ),
        ("eject #9 no such seat", Some(1), "no seat \"#9\""),
        ("resume", Some(1), "not paused"),
        ("halt now", Some(1), "unknown control command"),
    ] {
        let r = send(&m, game, line).unwrap();
        assert!(!r.recorded, "{line}: {r:?}");
        assert!(
            r.text.contains(why) && r.text.contains("nothing recorded"),
            "{line}: {r:?}"
        );
    }
    let asked = Instant::now();
    let paused = send(&m, Some(1), "pause a seat's machine rebooting").unwrap();
    println!(
        "an act through the control socket answered (entry written and synced) in {} µs",
        asked.elapsed().as_micros()
    );
    assert!(paused.recorded, "{paused:?}");
    let es = entries(&m, 1);
    let arbiter: Vec<&Value> = es[before..]
        .iter()
        .filter(|e| e["actor"] == "arbiter")
        .collect();
    assert_eq!(
        arbiter.len(),
        2,
        "one act, its approval and its one entry of the arbiter's"
    );
    assert_eq!(arbiter[0]["kind"], "approved");
    assert_eq!(arbiter[0]["body"]["approval"]["channel"], "control.sock");
    let e = arbiter[1];
    assert_eq!(e["kind"], "paused");
    assert_eq!(e["body"]["reason"], "a seat's machine rebooting");
    assert!(e["clause"].as_str().unwrap().contains("the arbiter's acts"));
    // The answer names the entry it recorded: written and synced before it came.
    let seq = e["seq"].as_u64().unwrap();
    assert!(
        paused.text.contains(&format!("–#{seq}: approved, paused")),
        "{paused:?}"
    );
    let ended = send(&m, Some(1), "end NONE ruled from the game master's screen").unwrap();
    assert!(ended.recorded && ended.text.contains("ruled"), "{ended:?}");
    assert!(wait(&mut s.child, "arbiter serve", 60).success());
    for c in &mut seats {
        wait(c, "seat", 20);
    }
    let es = entries(&m, 1);
    let acts: Vec<&str> = es
        .iter()
        .filter(|e| e["actor"] == "arbiter" && e["kind"] != "approved")
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        acts,
        ["paused", "ruled"],
        "each act is one entry; refusals none"
    );
    assert_eq!(winner(&es), "NONE");
    assert_game_recorded(&m, &es);
    assert!(!sock.exists(), "serve removes its socket when it ends");
}

#[test]
fn table_serve_a_game_killed_before_its_checkpoint_is_signed_at_the_next_start() {
    if !python_ready() {
        return;
    }
    let (tmp, es) = play(P5, &["none"; 5]);
    let m = tmp.path().join("m");
    // As if killed between `game_ended` and the checkpoint: the seed still there, nothing signed.
    std::fs::remove_dir_all(m.join("game-1/checkpoints")).unwrap();
    std::fs::remove_file(m.join("index.txt")).unwrap();
    std::fs::write(
        m.join("game-1/seed"),
        es.last().unwrap()["body"]["seed"].as_str().unwrap(),
    )
    .unwrap();
    let s = serve(&m, P5, "127.0.0.1:0", &["--games", "1"], Stdio::null());
    let deadline = Instant::now() + Duration::from_secs(30);
    // The index is signed first, then the checkpoint naming it.
    let signed = |m: &Path| {
        std::fs::read_dir(m.join("game-1/checkpoints"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(".txt.sig"))
    };
    while !m.join("index.txt").exists() || m.join("game-1/seed").exists() || !signed(&m) {
        assert!(Instant::now() < deadline, "{}", server_said(&m, &s));
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(s);
    assert_game_recorded(&m, &entries(&m, 1));
    assert!(!m.join("game-2").exists(), "no seat came: no second game");
}

/// A match folder whose arbiter key is encrypted with `pass`.
fn match_dir_encrypted(tmp: &Path, pass: &str) -> PathBuf {
    use arbiter::record::sign;
    let m = tmp.join("m");
    let public = sign::keygen_with_rounds(
        &m.join("keys/arbiter"),
        Some(pass),
        "test",
        sign::TEST_KDF_ROUNDS,
    )
    .unwrap();
    sign::ensure_allowed_signer(&m, "arbiter", &public).unwrap();
    m
}

/// One game of five plain seats served from `m` with `env`; the server's exit and what it said.
fn play_in(m: &Path, env: &[(&str, &str)], extra: &[&str]) -> String {
    let mut args = vec!["--games", "1"];
    args.extend_from_slice(extra);
    let mut s = serve_env(m, P5, "127.0.0.1:0", &args, Stdio::null(), env);
    let mut seats: Vec<Child> = (1..=5)
        .map(|i| seat(&s.url, &format!("kit{i}"), "none", &[]))
        .collect();
    let status = wait(&mut s.child, "arbiter serve", 90);
    for c in &mut seats {
        wait(c, "seat", 20);
    }
    let said = server_said(m, &s);
    assert!(status.success(), "serve: {status}\n{said}");
    said
}

/// Each game's checkpoint is signed with the key decrypted for it: with the passphrase in the
/// environment (a rehearsal) the game ends signed, as with an unencrypted key.
#[test]
fn table_serve_encrypted_key_signs_each_game_end_with_the_rehearsal_passphrase() {
    if !python_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = match_dir_encrypted(tmp.path(), "table passphrase 1");
    play_in(
        &m,
        &[("ARBITER_T_PASS", "table passphrase 1")],
        &["--passphrase-env", "ARBITER_T_PASS"],
    );
    assert_game_recorded(&m, &entries(&m, 1));
}

/// With an encrypted key whose passphrase is not at hand (no terminal, no environment), the
/// table holds no key to sign with: the game is recorded whole, the server says its checkpoint
/// is not signed and which command signs it, and `arbiter checkpoint` then does.
#[test]
fn table_serve_encrypted_key_without_its_passphrase_records_and_leaves_the_checkpoint() {
    if !python_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = match_dir_encrypted(tmp.path(), "table passphrase 2");
    let said = play_in(&m, &[], &[]);
    let es = entries(&m, 1);
    assert_eq!(es.last().unwrap()["kind"], "game_ended");
    assert!(!m.join("game-1/seed").exists(), "{said}");
    assert!(
        said.contains("game 1: recorded, its checkpoint not signed")
            && said.contains("arbiter checkpoint --match DIR --game 1"),
        "{said}"
    );
    assert!(
        !m.join("game-1/checkpoints").exists() || {
            std::fs::read_dir(m.join("game-1/checkpoints"))
                .unwrap()
                .next()
                .is_none()
        }
    );
    let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["checkpoint", "--match"])
        .arg(&m)
        .args(["--game", "1", "--passphrase-env", "ARBITER_T_PASS"])
        .env("ARBITER_T_PASS", "table passphrase 2")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_game_recorded(&m, &es);
}

#[test]
fn table_serve_frames_sent_while_waiting_for_the_game_are_in_line_0() {
    if !python_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = match_dir(tmp.path());
    let mut s = serve(&m, P5, "127.0.0.1:0", &["--games", "1"], Stdio::null());
    let mut early = Command::new("python3")
        .arg(SEAT)
        .args(["--url", &s.url, "--name", "kit1", "--fault", "early"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = String::new();
    BufReader::new(early.stdout.take().unwrap())
        .read_line(&mut said)
        .unwrap();
    assert_eq!(said, "early sent\n");
    let mut seats: Vec<Child> = (2..=5)
        .map(|i| seat(&s.url, &format!("kit{i}"), "none", &[]))
        .collect();
    assert!(wait(&mut s.child, "arbiter serve", 60).success());
    assert!(wait(&mut early, "kit1", 20).success());
    for c in &mut seats {
        assert!(wait(c, "seat", 20).success());
    }
    let es = entries(&m, 1);
    let k = kit1(&es);
    let kept = es[0]["body"]["door"]["early_frames"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0]["seat"], k);
    assert_eq!(kept[0]["text"], "hello early\n");
    assert_game_recorded(&m, &es);
}

#[test]
fn table_serve_listens_and_opens_no_outbound_connection() {
    if !python_ready() {
        return;
    }
    if Command::new("strace").arg("-V").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "strace is required in CI");
        println!("SKIPPED: strace is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = match_dir(tmp.path());
    let trace = tmp.path().join("trace");
    let t = trace.display().to_string();
    let wrap = [
        "strace",
        "-f",
        "-qq",
        "-e",
        "trace=socket,connect,bind,listen",
        "-o",
        t.as_str(),
    ];
    let mut s = serve_under(
        &wrap,
        &m,
        P5,
        "127.0.0.1:0",
        &["--games", "1"],
        Stdio::null(),
        &[],
    );
    let mut seats: Vec<Child> = (1..=5)
        .map(|i| seat(&s.url, &format!("kit{i}"), "none", &[]))
        .collect();
    assert!(wait(&mut s.child, "arbiter serve under strace", 90).success());
    for c in &mut seats {
        assert!(wait(c, "seat", 20).success());
    }
    let calls = std::fs::read_to_string(&trace).unwrap();
    assert!(calls.contains("listen("), "{calls}");
    let outbound: Vec<&str> = calls.lines().filter(|l| l.contains("connect(")).collect();
    assert!(
        outbound.is_empty(),
        "serve connected out:\n{}",
        outbound.join("\n")
    );
    // One network socket, the listener; besides it only the match folder's control socket (a
    // file of the folder, for the game master's screen).
    let network = calls
        .lines()
        .filter(|l| l.contains("socket(") && !l.contains("socket(AF_UNIX"))
        .count();
    assert_eq!(network, 1, "one network socket, the listener: {calls}");
    let sock = m.join("control.sock").display().to_string();
    let unix: Vec<&str> = calls.lines().filter(|l| l.contains("AF_UNIX")).collect();
    assert!(
        unix.iter()
            .all(|l| l.contains("socket(AF_UNIX") || l.contains(&format!("sun_path=\"{sock}\""))),
        "a Unix socket elsewhere than the match folder's control socket: {calls}"
    );
}

#[test]
fn table_serve_only_slash_ws_is_the_table() {
    if !python_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = match_dir(tmp.path());
    let mut s = serve(&m, P5, "127.0.0.1:0", &["--games", "1"], Stdio::null());
    let stream = std::net::TcpStream::connect(&s.addr).unwrap();
    let wrong = format!("ws://{}/other", s.addr);
    match tungstenite::client(wrong.as_str(), stream) {
        Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(r))) => {
            assert_eq!(r.status(), 404)
        }
        other => panic!("expected 404, got {:?}", other.map(|_| ())),
    }
    let mut seats: Vec<Child> = (1..=5)
        .map(|i| seat(&s.url, &format!("kit{i}"), "none", &[]))
        .collect();
    assert!(wait(&mut s.child, "arbiter serve", 60).success());
    for c in &mut seats {
        assert!(wait(c, "seat", 20).success());
    }
    let es = entries(&m, 1);
    let refused = es[0]["body"]["door"]["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0]["reason"].as_str().unwrap().contains("handshake"),
        "{refused:?}"
    );
}
