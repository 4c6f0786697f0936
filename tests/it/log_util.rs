//! Helpers shared by the log tests: synthetic signed matches written with the Journal directly.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]
use arbiter::log::NewEntry;
use arbiter::record::journal::Journal;
use arbiter::record::sign;
use chrono::{DateTime, TimeZone, Utc};
use serde_json::json;
use std::path::{Path, PathBuf};

pub const MATCH_ID: &str = "test-match";

pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2003, 1, 26, 15, 0, 0).unwrap()
}

pub fn first_entry(fingerprint: &str, game: u32) -> NewEntry {
    NewEntry {
        mono_ms: 0,
        utc: t0(),
        actor: "arbiter".into(),
        clause: "1".into(),
        kind: "game_opened".into(),
        body: json!({
            "match_id": MATCH_ID,
            "game": game,
            "profile": {"name": "kasparov-deep-junior-2003", "sha256": "ab".repeat(32)},
            "declarations": {"clock_algorithm": "6c default", "team": ["Ban", "Bushinsky"]},
            "arbiter_key": {"principal": "arbiter", "fingerprint": fingerprint},
        }),
    }
}

/// A varied synthetic entry number `i`.
pub fn entry(i: u64) -> NewEntry {
    let (actor, clause, kind, body) = match i % 6 {
        0 => (
            "operator",
            "6a",
            "move",
            json!({"san": "e4", "ply": i, "clock_ms": [7_200_000 - i * 1000, 7_200_000]}),
        ),
        1 => (
            "arbiter",
            "6c",
            "clock_corrected",
            json!({"side": "machine", "delta_ms": -1500, "why": "drift ≥ 2 min"}),
        ),
        2 => (
            "supervisor",
            "8a",
            "repair_note",
            json!({"text": "cable \"A\" reseated\tok", "minutes": 1.5}),
        ),
        3 => (
            "committee",
            "12b",
            "ruling",
            json!({"ruling": null, "votes": [true, false, true]}),
        ),
        4 => ("kit", "5b", "heartbeat", json!({})),
        _ => (
            "operator",
            "9a",
            "draw_offer_declined",
            json!({"by": "human", "nested": {"a": [1, {"b": "é"}]}}),
        ),
    };
    NewEntry {
        mono_ms: i * 1_000 + 17,
        utc: t0() + chrono::Duration::milliseconds(i as i64 * 1_000 + 17),
        actor: actor.into(),
        clause: clause.into(),
        kind: kind.into(),
        body,
    }
}

/// A match folder with an unencrypted arbiter key registered as "arbiter".
pub struct TestMatch {
    pub tmp: tempfile::TempDir,
    pub dir: PathBuf,
    pub key: ssh_key::PrivateKey,
    pub key_path: PathBuf,
}

impl TestMatch {
    pub fn new() -> TestMatch {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("match");
        let key_path = dir.join("keys").join("arbiter");
        let public = sign::keygen(&key_path, None, "test arbiter").unwrap();
        sign::ensure_allowed_signer(&dir, "arbiter", &public).unwrap();
        let key = sign::load_key(&key_path, None).unwrap();
        TestMatch {
            tmp,
            dir,
            key,
            key_path,
        }
    }

    pub fn fingerprint(&self) -> String {
        sign::fingerprint(self.key.public_key())
    }

    pub fn log_path(&self, game: u32) -> PathBuf {
        self.dir.join(format!("game-{game}")).join("log.jsonl")
    }

    /// Game `game` with `n` entries in total, a checkpoint after every entry count in `at`.
    pub fn game(&self, game: u32, n: u64, at: &[u64]) -> Journal {
        let mut j =
            Journal::create(&self.log_path(game), first_entry(&self.fingerprint(), game)).unwrap();
        for i in 1..n {
            j.append(entry(i)).unwrap();
            if at.contains(&(i + 1)) {
                self.sign(&j, game);
            }
        }
        j
    }

    pub fn sign(&self, j: &Journal, game: u32) -> PathBuf {
        arbiter::record::witness::sign_and_index(&self.dir, game, &j.entries(), &self.key, t0())
            .unwrap()
    }
}

pub fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// A real (unencrypted, test-only) arbiter key in `dir/keys/arbiter`, listed in
/// `dir/allowed_signers`: every match but the demo match needs one.
pub fn arbiter_key_in(dir: &Path) {
    let key_path = dir.join("keys").join("arbiter");
    if key_path.exists() {
        return;
    }
    let public = sign::keygen(&key_path, None, "test arbiter").unwrap();
    sign::ensure_allowed_signer(dir, "arbiter", &public).unwrap();
}

/// Run the script `text` (written to `file`) into the match folder `m` with the kit's binary;
/// it must succeed.
pub fn script_into(m: &Path, file: &Path, text: &str) {
    std::fs::write(file, text).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .arg("script")
        .arg(file)
        .arg("--match")
        .arg(m)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Write game `game`'s seal as a kit of the session binding v1 (`seal/1`) did after every
/// append: the kit reads such seals but no longer writes them, so tests of old logs make them.
pub fn write_seal_v1(
    m: &Path,
    game: u32,
    key: &ssh_key::PrivateKey,
    seal: &arbiter::log::seal::Seal,
) -> Result<(), String> {
    let note = sign::sign_seal(key, seal).map_err(|e| e.to_string())?;
    std::fs::write(m.join(format!("game-{game}/seal")), note).map_err(|e| e.to_string())
}
