//! C2SP signed notes and tlog checkpoints (clause 5b: the log's checkpoints in the
//! transparency-log ecosystem's format), checked against published vectors and against Go's
//! golang.org/x/mod/sumdb/note and sumdb/tlog.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use crate::log_util::TestMatch;
use arbiter::log::checkpoint::Checkpoint;
use arbiter::log::merkle::{self, Subtrees};
use arbiter::log::note::{
    NoteError, NoteSignature, SignedNote, TlogCheckpoint, VerifierKey, ed25519_key_id,
};
use arbiter::record::sign::{self, NoteProblem, WitnessError};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use ssh_key::private::{Ed25519Keypair, KeypairData};
use std::path::Path;
use std::process::Command;

/// The key of Go's sumdb/note documentation (`PRIVATE+KEY+PeterNeumann+c74f20a3+…`).
const PETER_SKEY: &str =
    "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const PETER_VKEY: &str = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const PETER_TEXT: &str = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const PETER_SIG: &str = "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";

/// An SSH private key from a 32-byte Ed25519 seed.
fn key_from_seed(seed: [u8; 32]) -> ssh_key::PrivateKey {
    ssh_key::PrivateKey::new(
        KeypairData::Ed25519(Ed25519Keypair::from_seed(&seed)),
        "test",
    )
    .unwrap()
}

/// The seed of a Go signer key `PRIVATE+KEY+<name>+<id>+<base64(0x01 || seed)>`.
fn seed_of(skey: &str) -> [u8; 32] {
    let b64 = skey.splitn(5, '+').nth(4).unwrap();
    let raw = STANDARD.decode(b64).unwrap();
    assert_eq!(raw[0], 1);
    raw[1..].try_into().unwrap()
}

#[test]
fn clause_5b_signed_note_reproduces_go_vector() {
    let key = key_from_seed(seed_of(PETER_SKEY));
    let vkey = sign::note_verifier_key("PeterNeumann", key.public_key()).unwrap();
    assert_eq!(vkey.to_string(), PETER_VKEY);
    assert_eq!(VerifierKey::parse(PETER_VKEY).unwrap(), vkey);
    assert_eq!(vkey.key_id, 0xc74f20a3);
    let signed = sign::sign_note(&key, "PeterNeumann", PETER_TEXT).unwrap();
    assert_eq!(signed, format!("{PETER_TEXT}\n{PETER_SIG}"));
    let note = sign::verify_note(signed.as_bytes(), &vkey).unwrap();
    assert_eq!(note.text, PETER_TEXT);
    // The same text under another name is another key ID.
    assert_ne!(ed25519_key_id("PeterNeumann2", &vkey.public), vkey.key_id);
}

#[test]
fn clause_5b_signed_note_c2sp_example_verifies() {
    let vkey =
        VerifierKey::parse("example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k")
            .unwrap();
    let msg = "This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n";
    let note = sign::verify_note(msg.as_bytes(), &vkey).unwrap();
    assert_eq!(note.text, "This is an example message.\n");
    let changed = msg.replace("an example", "a changed");
    assert_eq!(
        sign::verify_note(changed.as_bytes(), &vkey),
        Err(NoteProblem::Invalid(vkey.to_string()))
    );
}

#[test]
fn clause_5b_verifier_key_refusals() {
    type Case = (&'static str, fn(&NoteError) -> bool);
    let cases: [Case; 6] = [
        ("PeterNeumann+c74f20a3", |e| {
            matches!(e, NoteError::VerifierKey(_))
        }),
        (
            "Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
            |e| matches!(e, NoteError::KeyName(_)),
        ),
        (
            "PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
            |e| {
                matches!(
                    e,
                    NoteError::VerifierKeyId {
                        expected: 0xc74f20a3,
                        found: 0xc74f20a4
                    }
                )
            },
        ),
        (
            "PeterNeumann+c74f20a+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
            |e| matches!(e, NoteError::VerifierKey(_)),
        ),
        // Go's own bad keys: unknown algorithm, wrong length (with adjusted key IDs).
        (
            "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
            |e| matches!(e, NoteError::VerifierKey(_)),
        ),
        (
            "PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==",
            |e| matches!(e, NoteError::VerifierKey(_)),
        ),
    ];
    for (text, want) in cases {
        let err = VerifierKey::parse(text).unwrap_err();
        assert!(want(&err), "{text}: {err}");
    }
    assert!(matches!(
        VerifierKey::ed25519("a+b", [0; 32]),
        Err(NoteError::KeyName(_))
    ));
}

#[test]
fn clause_5b_signed_note_parser_refusals() {
    let good = format!("{PETER_TEXT}\n{PETER_SIG}");
    assert!(SignedNote::parse(good.as_bytes()).is_ok());
    let cases: Vec<(String, NoteError)> = vec![
        (PETER_TEXT.to_owned(), NoteError::NoSignatureBlock),
        (format!("{PETER_TEXT}\n"), NoteError::NoSignatures),
        (good.trim_end().to_owned(), NoteError::SignatureLine(1)),
        (good.replace("— ", "-- "), NoteError::SignatureLine(1)),
        (
            good.replace("x08go/", "x08go?"),
            NoteError::SignatureLine(1),
        ),
        (
            format!("{good}— PeterNeumann AAAA\n"),
            NoteError::SignatureLine(2),
        ),
        (
            good.replace("problem,", "problem,\t"),
            NoteError::ControlChar(56),
        ),
        (
            format!("{PETER_TEXT}\n{}", PETER_SIG.repeat(101)),
            NoteError::TooManySignatures,
        ),
    ];
    for (msg, want) in cases {
        assert_eq!(SignedNote::parse(msg.as_bytes()), Err(want), "{msg:?}");
    }
    assert_eq!(
        SignedNote::parse(b"a\xff\n\n- x\n"),
        Err(NoteError::NotUtf8)
    );
    // The text may hold blank lines: the signatures start after the last one.
    let key = key_from_seed([7; 32]);
    let text = "one\n\ntwo\n";
    let signed = sign::sign_note(&key, "example.org/x", text).unwrap();
    let vkey = sign::note_verifier_key("example.org/x", key.public_key()).unwrap();
    assert_eq!(
        sign::verify_note(signed.as_bytes(), &vkey).unwrap().text,
        text
    );
    assert!(matches!(
        sign::sign_note(&key, "example.org/x", "no newline"),
        Err(WitnessError::Note(NoteError::NoFinalNewline))
    ));
    assert!(matches!(
        sign::sign_note(&key, "bad name", "x\n"),
        Err(WitnessError::Note(NoteError::KeyName(_)))
    ));
}

#[test]
fn clause_5b_tlog_checkpoint_body_refusals() {
    let root = STANDARD.encode([3u8; 32]);
    let ok = format!("example.com/log\n12\n{root}\nchain x\n");
    let t = TlogCheckpoint::parse(&ok).unwrap();
    assert_eq!(
        (t.size, t.extensions.as_slice()),
        (12, &["chain x".to_owned()][..])
    );
    assert_eq!(t.to_text(), ok);
    let bad = [
        format!("example.com/log\n12\n{root}"),
        "example.com/log\n12\n".to_owned(),
        format!("\n12\n{root}\n"),
        format!("example.com/log\n012\n{root}\n"),
        format!("example.com/log\n+12\n{root}\n"),
        format!("example.com/log\n12\n{}\n", &root[..40]),
        format!("example.com/log\n12\n{root}\n\nx\n"),
    ];
    for text in bad {
        assert!(TlogCheckpoint::parse(&text).is_err(), "{text:?}");
    }
    // A non-canonical base64 root (trailing bits set) is refused.
    let mut noncanon = root.clone().into_bytes();
    noncanon[42] = b'N';
    let text = format!("o\n1\n{}\n", String::from_utf8(noncanon).unwrap());
    assert!(TlogCheckpoint::parse(&text).is_err());
}

#[test]
fn clause_5b_checkpoint_note_with_the_arbiter_key() {
    let m = TestMatch::new();
    let cp_path = {
        let j = m.game(1, 30, &[]);
        m.sign(&j, 1)
    };
    let text = std::fs::read_to_string(&cp_path).unwrap();
    let cp = Checkpoint::parse(&text).unwrap();
    let signed = sign::checkpoint_note(&m.key, &text).unwrap();
    assert!(signed.starts_with(&text));
    let public = m.key.public_key();
    let (parsed, note) = sign::verify_checkpoint_note(signed.as_bytes(), public).unwrap();
    assert_eq!(parsed, cp);
    assert_eq!(note.signatures[0].name, cp.origin);
    assert_eq!(TlogCheckpoint::parse(&note.text).unwrap().root, cp.root);

    // A witness's signature by an unknown key is kept and ignored.
    let witness = key_from_seed([9; 32]);
    let cosigned = sign::sign_note(&witness, "witness.example/w1", &text).unwrap();
    let extra = cosigned.rsplit('\n').nth(1).unwrap();
    let both = format!("{signed}{extra}\n");
    let (_, note) = sign::verify_checkpoint_note(both.as_bytes(), public).unwrap();
    assert_eq!(note.signatures.len(), 2);

    // Another key, another text, a text that is no checkpoint: refused, each with its reason.
    let other = key_from_seed([1; 32]);
    assert!(matches!(
        sign::verify_checkpoint_note(signed.as_bytes(), other.public_key()),
        Err(NoteProblem::Unsigned(_))
    ));
    let resized = signed.replacen("\n30\n", "\n29\n", 1);
    assert!(matches!(
        sign::verify_checkpoint_note(resized.as_bytes(), public),
        Err(NoteProblem::Invalid(_))
    ));
    let renamed = signed.replace("game-1", "game-2");
    assert!(matches!(
        sign::verify_checkpoint_note(renamed.as_bytes(), public),
        Err(NoteProblem::Unsigned(_))
    ));
    assert!(matches!(
        sign::checkpoint_note(&m.key, "not a checkpoint\n"),
        Err(WitnessError::Checkpoint(_))
    ));
    let forged = sign::sign_note(&m.key, &cp.origin, "arbiter-kit/x\n1\n").unwrap();
    assert!(matches!(
        sign::verify_checkpoint_note(forged.as_bytes(), public),
        Err(NoteProblem::Checkpoint(_))
    ));
}

// ---- Go interop --------------------------------------------------------------------------------

const GO: &str = "go";

/// Build tests/fixtures/go-note offline against Debian's golang.org/x/mod, or `None` (with the
/// reason printed) when Go is not installed.
fn build_go_note(dir: &Path) -> Option<std::path::PathBuf> {
    let found = Command::new(GO)
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        println!(
            "SKIPPED: `go` is not installed (.ci/run installs golang-go and golang-golang-x-mod-dev)"
        );
        return None;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/go-note/main.go");
    let out = dir.join("go-note");
    let build = Command::new(GO)
        .args(["build", "-o"])
        .arg(&out)
        .arg(&src)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("GO111MODULE", "off")
        .env("GOPATH", "/usr/share/gocode")
        .env("GOFLAGS", "")
        .env("GOPROXY", "off")
        .env("GOTOOLCHAIN", "local")
        .env("GOENV", "off")
        .env("GOCACHE", dir.join("gocache"))
        .env("CGO_ENABLED", "0")
        .output()
        .unwrap();
    assert!(
        build.status.success(),
        "go build failed (is golang-golang-x-mod-dev installed?):\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    Some(out)
}

fn run_go(bin: &Path, dir: &Path, cases: &Value) -> Vec<Value> {
    let input = dir.join("cases.json");
    std::fs::write(&input, serde_json::to_vec(cases).unwrap()).unwrap();
    let out = Command::new(bin).arg(&input).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn b64_list(list: &[[u8; 32]]) -> Vec<String> {
    list.iter().map(|h| STANDARD.encode(h)).collect()
}

#[test]
fn clause_5b_go_sumdb_note_and_tlog_accept_kit_checkpoints_and_proofs() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(go_note) = build_go_note(tmp.path()) else {
        return;
    };
    let m = TestMatch::new();
    let j = m.game(1, 37, &[]);
    let text = std::fs::read_to_string(m.sign(&j, 1)).unwrap();
    let cp = Checkpoint::parse(&text).unwrap();
    let leaves: Vec<[u8; 32]> = j.entries().iter().map(|e| e.hash).collect();
    let tree = Subtrees::new(leaves.clone());
    let signed = sign::checkpoint_note(&m.key, &text).unwrap();
    let vkey = sign::note_verifier_key(&cp.origin, m.key.public_key()).unwrap();
    let lines: Vec<String> = std::fs::read_to_string(m.log_path(1))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let (k, old) = (11usize, 13usize);
    let inclusion = tree.inclusion_proof(k, 37).unwrap();
    let consistency = tree.consistency_proof(old, 37).unwrap();
    let old_root = tree.root(old).unwrap();
    let mut bad_inclusion = inclusion.clone();
    bad_inclusion[2][5] ^= 1;
    let mut bad_consistency = consistency.clone();
    bad_consistency[0][0] ^= 0x80;
    let other_vkey = sign::note_verifier_key(&cp.origin, key_from_seed([5; 32]).public_key())
        .unwrap()
        .to_string();
    let go_seed = [42u8; 32];
    let go_key = key_from_seed(go_seed);
    let go_vkey = sign::note_verifier_key("go.example/signer", go_key.public_key()).unwrap();
    let mut typed = vec![1u8];
    typed.extend_from_slice(&go_seed);
    let go_skey = format!(
        "PRIVATE+KEY+go.example/signer+{:08x}+{}",
        go_vkey.key_id,
        STANDARD.encode(&typed)
    );
    let case = |note: &str, vkey: &str, proof: &[[u8; 32]], tproof: &[[u8; 32]]| {
        json!({
            "vkey": vkey,
            "note": note,
            "leaves": b64_list(&leaves),
            "record": {"index": k, "data": lines[k], "proof": b64_list(proof)},
            "tree": {"old_size": old, "old_root": STANDARD.encode(old_root), "proof": b64_list(tproof)},
        })
    };
    let cases = json!([
        case(&signed, &vkey.to_string(), &inclusion, &consistency),
        case(&signed.replacen("\n37\n", "\n36\n", 1), &vkey.to_string(), &inclusion, &consistency),
        case(&signed, &other_vkey, &inclusion, &consistency),
        case(&signed, &vkey.to_string(), &bad_inclusion, &bad_consistency),
        {"vkey": "", "note": "", "leaves": [], "sign": {"skey": go_skey, "text": text}},
    ]);
    let results = run_go(&go_note, tmp.path(), &cases);
    let ok = &results[0];
    assert_eq!(ok["note_ok"], json!(true), "{ok}");
    assert_eq!(ok["origin"], json!(cp.origin));
    assert_eq!(ok["size"], json!(37));
    assert_eq!(ok["root"], json!(STANDARD.encode(cp.root)));
    assert_eq!(ok["go_root"], json!(STANDARD.encode(merkle::root(&leaves))));
    assert_eq!(ok["record_ok"], json!(true), "{ok}");
    assert_eq!(ok["tree_ok"], json!(true), "{ok}");
    assert_eq!(ok["go_record_proof"], json!(b64_list(&inclusion)));
    assert_eq!(ok["go_tree_proof"], json!(b64_list(&consistency)));
    assert_eq!(ok["unverified"], json!(0));
    // An edited size, an unpinned key, tampered proofs: Go refuses each.
    assert_eq!(results[1]["note_ok"], json!(false));
    assert!(
        results[1]["note_err"]
            .as_str()
            .unwrap()
            .contains("invalid signature")
    );
    assert_eq!(results[2]["note_ok"], json!(false));
    assert!(
        results[2]["note_err"]
            .as_str()
            .unwrap()
            .contains("no verifiable")
    );
    assert_eq!(results[3]["note_ok"], json!(true));
    assert_eq!(results[3]["record_ok"], json!(false));
    assert_eq!(results[3]["tree_ok"], json!(false));
    // A note Go signed verifies in the kit, byte for byte what the kit would sign.
    let go_signed = results[4]["signed"].as_str().unwrap();
    assert_eq!(
        sign::verify_note(go_signed.as_bytes(), &go_vkey)
            .unwrap()
            .text,
        text
    );
    assert_eq!(
        go_signed,
        sign::sign_note(&go_key, "go.example/signer", &text).unwrap()
    );
    let parsed = SignedNote::parse(go_signed.as_bytes()).unwrap();
    assert_eq!(
        parsed.signatures,
        vec![NoteSignature {
            name: "go.example/signer".into(),
            key_id: go_vkey.key_id,
            signature: parsed.signatures[0].signature.clone(),
        }]
    );
}
