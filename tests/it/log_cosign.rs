//! Countersignatures (clause 5b: each camp signs the record as players sign a scoresheet):
//! made by the kit or by stock `ssh-keygen -Y sign`, checked by the kit and by
//! `ssh-keygen -Y verify`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use crate::log_util::TestMatch;
use arbiter::log::cosign::{self, NAMESPACE};
use arbiter::record::sign::{self, CosignProblem, WitnessError};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const SSH_KEYGEN: &str = "/usr/bin/ssh-keygen";

fn have_ssh_keygen() -> bool {
    let found = Path::new(SSH_KEYGEN).exists();
    if !found {
        println!("SKIPPED: {SSH_KEYGEN} is not installed (.ci/run installs openssh-client)");
    }
    found
}

/// A match with one signed checkpoint; returns it and the checkpoint's path.
fn checkpointed() -> (TestMatch, PathBuf) {
    let m = TestMatch::new();
    let j = m.game(1, 20, &[]);
    let cp = m.sign(&j, 1);
    (m, cp)
}

/// A camp key made by stock ssh-keygen (`-t ed25519` or `-t ecdsa`), no passphrase.
fn camp_key(dir: &Path, name: &str, kind: &str) -> (PathBuf, ssh_key::PublicKey) {
    let path = dir.join(name);
    let status = Command::new(SSH_KEYGEN)
        .args(["-q", "-t", kind, "-N", "", "-C", name, "-f"])
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
    let public = ssh_key::PublicKey::from_openssh(
        &std::fs::read_to_string(path.with_extension("pub")).unwrap(),
    )
    .unwrap();
    (path, public)
}

/// `ssh-keygen -Y sign -f KEY -n NS < FILE > SIG`, as docs/log-format.md tells a camp to run it
/// (stdin to stdout, so the arbiter's `<N>.txt.sig` beside the file is never overwritten).
fn ssh_sign(key: &Path, namespace: &str, file: &Path) -> String {
    let out = Command::new(SSH_KEYGEN)
        .args(["-Y", "sign", "-f"])
        .arg(key)
        .args(["-n", namespace])
        .stdin(std::fs::File::open(file).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `ssh-keygen -Y verify` of `sig` over `file` for principal `camp` listed with `public`.
fn ssh_verify(
    dir: &Path,
    camp: &str,
    public: &ssh_key::PublicKey,
    namespace: &str,
    file: &Path,
    sig: &str,
) -> bool {
    let allowed = dir.join("camps_allowed_signers");
    let bare = ssh_key::PublicKey::new(public.key_data().clone(), "");
    let line = cosign::allowed_signers_line(camp, &bare.to_openssh().unwrap()).unwrap();
    std::fs::write(&allowed, format!("{line}\n")).unwrap();
    let sig_path = dir.join("cosig.tmp");
    std::fs::write(&sig_path, sig).unwrap();
    Command::new(SSH_KEYGEN)
        .args(["-Y", "verify", "-f"])
        .arg(&allowed)
        .args(["-I", camp, "-n", namespace, "-s"])
        .arg(&sig_path)
        .stdin(std::fs::File::open(file).unwrap())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success()
}

#[test]
fn clause_5b_stock_ssh_keygen_countersignature_verifies_in_the_kit() {
    if !have_ssh_keygen() {
        return;
    }
    let (m, cp) = checkpointed();
    let text = std::fs::read(&cp).unwrap();
    for (camp, kind) in [("white", "ed25519"), ("black", "ecdsa")] {
        let (key, public) = camp_key(m.tmp.path(), camp, kind);
        let sig = ssh_sign(&key, NAMESPACE, &cp);
        assert_eq!(
            sign::verify_countersignature(&public, &text, &sig),
            Ok(sign::fingerprint(&public)),
            "{kind}"
        );
        if kind == "ed25519" {
            // Ed25519 is deterministic: the kit's countersignature is ssh-keygen's, byte for byte.
            let kit = sign::countersign(
                &sign::load_key(&key, None).unwrap(),
                std::str::from_utf8(&text).unwrap(),
            )
            .unwrap();
            assert_eq!(kit, sig);
        }
        // The same key under the arbiter's namespace is not a countersignature.
        let wrong_ns = ssh_sign(&key, "arbiter-kit-checkpoint", &cp);
        assert_eq!(
            sign::verify_countersignature(&public, &text, &wrong_ns),
            Err(CosignProblem::Namespace("arbiter-kit-checkpoint".into()))
        );
        // Another text (one byte changed) fails.
        let mut edited = text.clone();
        let at = edited.len() - 3;
        edited[at] ^= 1;
        assert!(matches!(
            sign::verify_countersignature(&public, &edited, &sig),
            Err(CosignProblem::Invalid(_))
        ));
    }
    // A countersignature by a key the camp did not declare is refused with both fingerprints.
    let white_key = m.tmp.path().join("white");
    let (_, other) = camp_key(m.tmp.path(), "other", "ed25519");
    let sig = ssh_sign(&white_key, NAMESPACE, &cp);
    match sign::verify_countersignature(&other, &text, &sig) {
        Err(CosignProblem::WrongKey { declared, found }) => {
            assert_eq!(declared, sign::fingerprint(&other));
            assert_ne!(found, declared);
        }
        r => panic!("expected WrongKey, got {r:?}"),
    }
    // The arbiter's own checkpoint signature is no countersignature.
    let arbiter_sig = std::fs::read_to_string(format!("{}.sig", cp.display())).unwrap();
    assert!(matches!(
        sign::verify_countersignature(m.key.public_key(), &text, &arbiter_sig),
        Err(CosignProblem::Namespace(_))
    ));
    assert!(matches!(
        sign::verify_countersignature(&other, &text, "not a signature"),
        Err(CosignProblem::Malformed(_))
    ));
}

#[test]
fn clause_5b_kit_countersignature_verifies_with_ssh_keygen() {
    if !have_ssh_keygen() {
        return;
    }
    let (m, cp) = checkpointed();
    let text = std::fs::read_to_string(&cp).unwrap();
    // A camp key made by ssh-keygen, loaded by the kit; and one made by the kit.
    let (path, public) = camp_key(m.tmp.path(), "white", "ed25519");
    let white = sign::load_key(&path, None).unwrap();
    let black_path = m.tmp.path().join("black");
    sign::keygen(&black_path, None, "black camp").unwrap();
    let black = sign::load_key(&black_path, None).unwrap();
    for (camp, key, public) in [
        ("white", &white, public),
        ("black", &black, black.public_key().clone()),
    ] {
        let sig = sign::countersign(key, &text).unwrap();
        assert!(sig.starts_with("-----BEGIN SSH SIGNATURE-----\n"));
        assert!(
            ssh_verify(m.tmp.path(), camp, &public, NAMESPACE, &cp, &sig),
            "{camp}"
        );
        assert!(
            !ssh_verify(
                m.tmp.path(),
                camp,
                &public,
                "arbiter-kit-checkpoint",
                &cp,
                &sig
            ),
            "{camp}: another namespace must fail"
        );
        assert!(sign::verify_countersignature(&public, text.as_bytes(), &sig).is_ok());
    }
    // Only a kit checkpoint is countersigned; an encrypted key must be opened first.
    assert!(matches!(
        sign::countersign(&white, "arbiter-kit/x/game-1\n"),
        Err(WitnessError::Checkpoint(_))
    ));
    let locked_path = m.tmp.path().join("locked");
    sign::keygen(&locked_path, Some("pass phrase"), "locked").unwrap();
    let locked =
        ssh_key::PrivateKey::from_openssh(std::fs::read_to_string(&locked_path).unwrap()).unwrap();
    assert!(matches!(
        sign::countersign(&locked, &text),
        Err(WitnessError::Encrypted)
    ));
}

#[test]
fn clause_5b_countersignature_file_names() {
    let cp = Path::new("game-1/checkpoints").join(cosign::file_name(57, "white").unwrap());
    assert_eq!(cp, Path::new("game-1/checkpoints/57.txt.cosig-white"));
    assert_eq!(
        cosign::parse_file_name("57.txt.cosig-white").unwrap(),
        (57, "white".to_owned())
    );
    assert!(cosign::file_name(57, "../white").is_err());
    assert_eq!(
        cosign::allowed_signers_line("white", "ssh-ed25519 AAAAC3Nza").unwrap(),
        "white namespaces=\"arbiter-kit-countersign@v1\" ssh-ed25519 AAAAC3Nza"
    );
    assert!(cosign::allowed_signers_line("White", "ssh-ed25519 AAAA").is_err());
}
