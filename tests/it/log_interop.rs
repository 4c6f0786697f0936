//! Interop with OpenSSH (`ssh-keygen -Y verify`, keys made by ssh-keygen) and the jq + sha256sum
//! recipe in docs/chain-head.sh.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use crate::log_util::{TestMatch, first_entry, mode, t0};
use arbiter::log::hex32;
use arbiter::record::journal::Journal;
use arbiter::record::sign::{self, SignError};
use std::path::Path;
use std::process::{Command, Stdio};

const SSH_KEYGEN: &str = "/usr/bin/ssh-keygen";

fn have(tool: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        println!("SKIPPED: {tool} is not installed");
    }
    found
}

fn ssh_verify(dir: &Path, cp: &Path, principal: &str, namespace: &str) -> bool {
    let sig = format!("{}.sig", cp.display());
    Command::new(SSH_KEYGEN)
        .args(["-Y", "verify", "-f"])
        .arg(dir.join("allowed_signers"))
        .args(["-I", principal, "-n", namespace, "-s", &sig])
        .stdin(std::fs::File::open(cp).unwrap())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success()
}

#[test]
fn log_interop_ssh_keygen_verifies_kit_checkpoints() {
    if !have(SSH_KEYGEN) {
        return;
    }
    let m = TestMatch::new();
    let j = m.game(1, 25, &[10, 25]);
    drop(j);
    for n in [10, 25] {
        let cp = m
            .dir
            .join("game-1")
            .join("checkpoints")
            .join(format!("{n}.txt"));
        assert_eq!(mode(&cp), 0o600);
        assert!(
            ssh_verify(&m.dir, &cp, "arbiter", "arbiter-kit-checkpoint"),
            "checkpoint {n}"
        );
        assert!(
            !ssh_verify(&m.dir, &cp, "arbiter", "file"),
            "wrong namespace must fail"
        );
        assert!(
            !ssh_verify(&m.dir, &cp, "someone-else", "arbiter-kit-checkpoint"),
            "wrong principal must fail"
        );
    }
    assert_eq!(mode(&m.dir.join("game-1").join("checkpoints")), 0o700);
    assert_eq!(mode(&m.dir.join("allowed_signers")), 0o600);
    assert_eq!(mode(&m.key_path), 0o600);
}

#[test]
fn log_interop_chain_head_script_matches_kit() {
    if !have("jq") || !have("sha256sum") {
        return;
    }
    let m = TestMatch::new();
    let j = m.game(1, 40, &[40]);
    let head = hex32(&j.entries().last().unwrap().hash);
    drop(j);
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs")
        .join("chain-head.sh");
    let out = Command::new("sh")
        .arg(&script)
        .arg(m.log_path(1))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), head);
    let cp = std::fs::read_to_string(m.dir.join("game-1/checkpoints/40.txt")).unwrap();
    assert!(cp.contains(&format!("chain {head}\n")));
    // A changed byte breaks the recomputed chain.
    let mut bytes = std::fs::read(m.log_path(1)).unwrap();
    let at = bytes.len() / 2;
    bytes[at] = if bytes[at] == b'0' { b'1' } else { b'0' };
    std::fs::write(m.log_path(1), &bytes).unwrap();
    let out = Command::new("sh")
        .arg(&script)
        .arg(m.log_path(1))
        .output()
        .unwrap();
    let changed = String::from_utf8(out.stdout).unwrap();
    assert!(!out.status.success() || changed.trim() != head);
}

#[test]
fn log_interop_passphrase_round_trip() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("keys").join("arbiter");
    let public = sign::keygen(&path, Some("correct horse"), "pp test").unwrap();
    assert!(matches!(
        sign::keygen(&path, None, "again"),
        Err(SignError::KeyExists(_))
    ));
    assert!(matches!(
        sign::load_key(&path, None),
        Err(SignError::Encrypted(_))
    ));
    assert!(matches!(
        sign::load_key(&path, Some("wrong")),
        Err(SignError::WrongPassphrase(_))
    ));
    let key = sign::load_key(&path, Some("correct horse")).unwrap();
    assert_eq!(key.public_key().key_data(), public.key_data());
    assert_eq!(
        sign::load_public_key(&path).unwrap().key_data(),
        public.key_data()
    );
    assert!(sign::fingerprint(&public).starts_with("SHA256:"));
    if have(SSH_KEYGEN) {
        // OpenSSH reads the kit's encrypted key with the passphrase.
        let out = Command::new(SSH_KEYGEN)
            .args(["-y", "-P", "correct horse", "-f"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let printed = String::from_utf8(out.stdout).unwrap();
        assert!(
            printed.starts_with(
                &public
                    .to_openssh()
                    .unwrap()
                    .rsplit_once(' ')
                    .unwrap()
                    .0
                    .to_owned()
            )
        );
    }
}

#[test]
fn log_interop_existing_openssh_key_signs() {
    if !have(SSH_KEYGEN) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("match");
    let key_path = tmp.path().join("id_ed25519");
    let ok = Command::new(SSH_KEYGEN)
        .args([
            "-q",
            "-t",
            "ed25519",
            "-N",
            "s3cret",
            "-C",
            "arbiter@example",
            "-f",
        ])
        .arg(&key_path)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let key = sign::load_key(&key_path, Some("s3cret")).unwrap();
    sign::ensure_allowed_signer(&dir, "arbiter", key.public_key()).unwrap();
    sign::ensure_allowed_signer(&dir, "arbiter", key.public_key()).unwrap();
    let listed = std::fs::read_to_string(dir.join("allowed_signers")).unwrap();
    assert_eq!(listed.lines().count(), 1, "registered once: {listed}");
    let fp = sign::fingerprint(key.public_key());
    let j = Journal::create(&dir.join("game-2/log.jsonl"), first_entry(&fp, 2)).unwrap();
    let cp = sign::sign_checkpoint(&dir, 2, &j.entries(), &key, t0()).unwrap();
    assert!(ssh_verify(&dir, &cp, "arbiter", "arbiter-kit-checkpoint"));
    let v = arbiter::record::verify::verify_game(&dir, 2);
    assert_eq!(v.status, arbiter::record::verify::Status::Ok, "{v:?}");
}

#[test]
fn log_interop_demo_key_is_labelled_and_registered() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    let p = sign::ensure_demo_key(&dir).unwrap();
    let p2 = sign::ensure_demo_key(&dir).unwrap();
    assert_eq!(p, p2);
    let text = std::fs::read_to_string(format!("{}.pub", p.display())).unwrap();
    assert!(text.contains("DEMO KEY") && text.contains("NOT for a real match"));
    let listed = std::fs::read_to_string(dir.join("allowed_signers")).unwrap();
    assert_eq!(listed.lines().count(), 1);
    assert!(listed.starts_with("arbiter namespaces=\"arbiter-kit-checkpoint\" ssh-ed25519 "));
}
