//! Issue 19, the remaining items: camps prove they hold the keys they declare (with the kit or
//! stock `ssh-keygen -Y sign`), and `verify` checks those proofs in line 0.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use arbiter::journal::Journal;

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

fn verify(m: &Path, extra: &[&str]) -> (i32, String) {
    let mut args = vec!["verify", "--match", m.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = arbiter(&args);
    (o.status.code().unwrap_or(-1), text(&o))
}

/// Run examples/scripts/quick.arb with `declared` lines before the start and a resignation.
fn play(tmp: &Path, m: &Path, declared: &str) -> Output {
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    let script = quick.replacen(
        "0        arbiter start\n",
        &format!("{declared}0        arbiter start\n"),
        1,
    ) + "0:17:00  human resign\n";
    let p = tmp.join("camps.arb");
    std::fs::write(&p, script).unwrap();
    arbiter(&[
        "script",
        p.to_str().unwrap(),
        "--match",
        m.to_str().unwrap(),
    ])
}

/// The attack: the arbiter types a key for a camp that never held it (a key the forger holds).
#[test]
fn witness_camp_key_without_proof_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let public = arbiter::sign::keygen(&tmp.path().join("forger"), None, "forger").unwrap();
    let fp = arbiter::sign::fingerprint(&public);
    let o = play(
        tmp.path(),
        &m,
        &format!(
            "0        arbiter declare camp kasparov {}\n",
            public.to_openssh().unwrap()
        ),
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("camp kasparov") && out.contains(&fp), "{out}");
    assert!(out.contains("proof of possession"), "{out}");
    assert!(!m.join("game-1/log.jsonl").exists(), "nothing is written");
}

/// The attack: a proof, but by another key (the forger's) or for another camp or match.
#[test]
fn witness_camp_proof_by_another_key_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let (_, line) = crate::witness::proven_camp(tmp.path(), &m, "kasparov");
    let camp = arbiter::sign::load_public_key(&tmp.path().join("kasparov-key")).unwrap();
    let fp = arbiter::sign::fingerprint(&camp);
    let forger = arbiter::sign::keygen(&tmp.path().join("forger"), None, "forger").unwrap();
    // The camp's real proof, declared with the forger's key typed on the line.
    let proof = line.split("proof ").nth(1).unwrap().trim().to_owned();
    let o = play(
        tmp.path(),
        &m,
        &format!(
            "0        arbiter declare camp kasparov {} proof {proof}\n",
            forger.to_openssh().unwrap()
        ),
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = text(&o);
    assert!(
        out.contains(&arbiter::sign::fingerprint(&forger)) && out.contains(&fp),
        "{out}"
    );
    // The same proof declared for another camp: the statement names the camp.
    let o = play(
        tmp.path(),
        &m,
        &format!("0        arbiter declare camp junior proof {proof}\n"),
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("camp junior"), "{}", text(&o));
    // A proof for another match (its folder named otherwise) does not serve here.
    let other = tmp.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let o = arbiter(&[
        "countersign",
        "--match",
        other.to_str().unwrap(),
        "--camp",
        "kasparov",
        "--declaration",
        "--signature",
        &proof,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains(&fp), "{}", text(&o));
    assert!(!m.join("game-1/log.jsonl").exists(), "nothing is written");
}

/// The README's recipe with stock OpenSSH: the statement printed by the kit, signed with
/// `ssh-keygen -Y sign -n arbiter-kit-camp-key@v1`, checked, declared; `verify` checks the proof
/// in line 0, and `ssh-keygen -Y verify` checks it without the kit.
#[test]
fn witness_camp_proof_made_with_ssh_keygen_is_accepted() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    let ms = m.to_str().unwrap();
    crate::log_util::arbiter_key_in(&m);
    let key = tmp.path().join("kasparov-key");
    let public = arbiter::sign::keygen(&key, None, "kasparov").unwrap();
    let o = arbiter(&[
        "countersign",
        "--match",
        ms,
        "--camp",
        "kasparov",
        "--declaration",
        "--public",
        tmp.path().join("kasparov-key.pub").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let statement = String::from_utf8(o.stdout).unwrap();
    assert_eq!(
        statement,
        format!(
            "arbiter-kit camp key v1\nmatch m\ncamp kasparov\nkey {}\n",
            ssh_key::PublicKey::new(public.key_data().clone(), "")
                .to_openssh()
                .unwrap()
        )
    );
    let decl = tmp.path().join("kasparov-declaration.txt");
    std::fs::write(&decl, &statement).unwrap();
    let proof = tmp.path().join("kasparov.proof");
    let sh = format!(
        "ssh-keygen -Y sign -n arbiter-kit-camp-key@v1 -f {} < {} > {}",
        key.display(),
        decl.display(),
        proof.display()
    );
    let ok = Command::new("sh").args(["-c", &sh]).status().unwrap();
    assert!(ok.success(), "{sh}");
    let o = arbiter(&[
        "countersign",
        "--match",
        ms,
        "--camp",
        "kasparov",
        "--declaration",
        "--signature",
        proof.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("proof of possession OK"), "{}", text(&o));
    let o = play(
        tmp.path(),
        &m,
        &format!(
            "0        arbiter declare camp kasparov proof {}\n",
            proof.display()
        ),
    );
    assert!(o.status.success(), "{}", text(&o));
    let line0 = std::fs::read_to_string(m.join("game-1/log.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(line0.lines().next().unwrap()).unwrap();
    let bound = first["body"]["declarations"]["camps"][0]["proof"]
        .as_str()
        .unwrap()
        .to_owned();
    // Anyone can check the bound proof with OpenSSH alone.
    let signers = tmp.path().join("camps_allowed_signers");
    std::fs::write(
        &signers,
        format!(
            "kasparov namespaces=\"arbiter-kit-camp-key@v1\" {}\n",
            public.to_openssh().unwrap()
        ),
    )
    .unwrap();
    let bound_file = tmp.path().join("bound.proof");
    std::fs::write(&bound_file, bound).unwrap();
    let sh = format!(
        "ssh-keygen -Y verify -f {} -I kasparov -n arbiter-kit-camp-key@v1 -s {} < {}",
        signers.display(),
        bound_file.display(),
        decl.display()
    );
    let ok = Command::new("sh").args(["-c", &sh]).output().unwrap();
    assert!(ok.status.success(), "{sh}: {}", text(&ok));
    let (code, out) = verify(&m, &[]);
    assert_eq!(code, 12, "not countersigned yet: {out}");
    assert!(!out.contains("NOT PROVEN"), "{out}");
    assert!(!out.contains("BAD CAMP PROOF"), "{out}");
}

/// A synthetic match (signed with its arbiter key) whose line 0 declares `camps`.
fn synthetic(camps: serde_json::Value) -> crate::log_util::TestMatch {
    let tm = crate::log_util::TestMatch::new();
    let mut first = crate::log_util::first_entry(&tm.fingerprint(), 1);
    first.body["declarations"]["camps"] = camps;
    let mut j = Journal::create(&tm.log_path(1), first).unwrap();
    j.append(crate::log_util::entry(1)).unwrap();
    tm.sign(&j, 1);
    tm
}

fn camp_key(dir: &Path, name: &str) -> (PathBuf, ssh_key::PublicKey) {
    let p = dir.join(format!("{name}-camp"));
    let k = arbiter::sign::keygen(&p, None, name).unwrap();
    (p, k)
}

/// Old logs stay verifiable, but never silently: a line 0 without proofs says the camp keys are
/// not proven; a proof in line 0 that does not hold is a bad binding (25).
#[test]
fn witness_camp_proofs_in_line_0_are_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, public) = camp_key(tmp.path(), "kasparov");
    let key_text = public.to_openssh().unwrap();
    let fp = arbiter::sign::fingerprint(&public);
    let tm = synthetic(serde_json::json!([{"name": "kasparov", "key": key_text}]));
    let (code, out) = verify(&tm.dir, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("camp keys NOT PROVEN") && out.contains(&format!("kasparov {fp}")),
        "{out}"
    );
    // A proof by the forger's key, bound by a rogue arbiter next to the camp's key.
    let (forger, _) = camp_key(tmp.path(), "forger");
    let statement =
        arbiter::core::camp::statement(crate::log_util::MATCH_ID, "kasparov", &key_text);
    let forged = arbiter::sign::load_key(&forger, None)
        .unwrap()
        .sign(
            arbiter::core::camp::NAMESPACE,
            ssh_key::HashAlg::Sha512,
            statement.as_bytes(),
        )
        .unwrap()
        .to_pem(ssh_key::LineEnding::LF)
        .unwrap();
    let tm = synthetic(serde_json::json!([
        {"name": "kasparov", "key": key_text, "proof": forged}
    ]));
    let (code, out) = verify(&tm.dir, &[]);
    assert_eq!(code, 25, "{out}");
    assert!(out.contains("BAD CAMP PROOF") && out.contains(&fp), "{out}");
    // The camp's own proof verifies.
    let own = arbiter::sign::load_key(&tmp.path().join("kasparov-camp"), None)
        .unwrap()
        .sign(
            arbiter::core::camp::NAMESPACE,
            ssh_key::HashAlg::Sha512,
            statement.as_bytes(),
        )
        .unwrap()
        .to_pem(ssh_key::LineEnding::LF)
        .unwrap();
    let tm = synthetic(serde_json::json!([
        {"name": "kasparov", "key": key_text, "proof": own}
    ]));
    let (code, out) = verify(&tm.dir, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        !out.contains("NOT PROVEN") && !out.contains("BAD CAMP PROOF"),
        "{out}"
    );
}
