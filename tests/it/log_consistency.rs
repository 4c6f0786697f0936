//! RFC 6962 consistency proofs (clause 5b: the log a camp saw earlier is a prefix of the final
//! one): the published vectors, transparency-dev's probes, and random trees.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use crate::log_util::{TestMatch, entry};
use arbiter::log::checkpoint::Checkpoint;
use arbiter::log::consistency::{ConsistencyProof, ConsistencyProofError};
use arbiter::log::merkle::{
    ConsistencyError, Subtrees, check_consistency, consistency_proof, leaf_hash, root,
    verify_consistency, verify_inclusion,
};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use proptest::prelude::*;
use serde_json::Value;
use std::path::Path;

/// The RFC 6962 test leaves (as in log_format.rs).
fn ct_leaves() -> Vec<[u8; 32]> {
    [
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    ]
    .iter()
    .map(|h| leaf_hash(&hex::decode(h).unwrap()))
    .collect()
}

fn h(s: &str) -> [u8; 32] {
    hex::decode(s).unwrap().try_into().unwrap()
}

/// The consistency vectors of the RFC 6962 reference tests (certificate-transparency, carried
/// on in transparency-dev/merkle): (old size, new size, proof).
fn ct_vectors() -> Vec<(usize, usize, Vec<[u8; 32]>)> {
    vec![
        (1, 1, vec![]),
        (
            1,
            8,
            vec![
                h("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7"),
                h("5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e"),
                h("6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
            ],
        ),
        (
            6,
            8,
            vec![
                h("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a"),
                h("ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0"),
                h("d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
            ],
        ),
        (
            2,
            5,
            vec![
                h("5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e"),
                h("bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
            ],
        ),
        (
            6,
            7,
            vec![
                h("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a"),
                h("b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f"),
                h("d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
            ],
        ),
    ]
}

#[test]
fn clause_5b_consistency_proofs_match_rfc6962_vectors() {
    let leaves = ct_leaves();
    let tree = Subtrees::new(leaves.clone());
    for (m, n, want) in ct_vectors() {
        assert_eq!(
            consistency_proof(&leaves[..n], m).unwrap(),
            want,
            "{m} -> {n}"
        );
        assert_eq!(tree.consistency_proof(m, n).unwrap(), want, "{m} -> {n}");
        let (a, b) = (root(&leaves[..m]), root(&leaves[..n]));
        assert_eq!(check_consistency(m as u64, n as u64, &a, &b, &want), Ok(()));
        // The roots swapped fail. (Sizes are bound by the signed checkpoints, not the proof.)
        if m != n {
            assert!(!verify_consistency(m as u64, n as u64, &b, &a, &want));
        }
    }
    let r = root(&leaves[..3]);
    assert_eq!(
        check_consistency(0, 3, &r, &r, &[]),
        Err(ConsistencyError::EmptyOld)
    );
    assert_eq!(
        check_consistency(4, 3, &r, &r, &[]),
        Err(ConsistencyError::Order { old: 4, new: 3 })
    );
    assert_eq!(
        check_consistency(3, 3, &r, &r, &[r]),
        Err(ConsistencyError::NotEmpty(1))
    );
    assert_eq!(
        check_consistency(2, 3, &r, &r, &[]),
        Err(ConsistencyError::Empty)
    );
    assert_eq!(consistency_proof(&leaves, 0), None);
    assert_eq!(consistency_proof(&leaves, 9), None);
}

fn probes(name: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/merkle-probes")
        .join(name);
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A probe's hash as the typed API sees it: a root that is not 32 bytes (some invalid probes
/// use short placeholders) is mapped to SHA-256 of its bytes, which keeps equal roots equal.
fn probe_root(v: &Value) -> [u8; 32] {
    let bytes = STANDARD.decode(v.as_str().unwrap()).unwrap();
    bytes
        .clone()
        .try_into()
        .unwrap_or_else(|_| arbiter::log::sha256(&bytes))
}

/// Proof nodes; `None` if one is not a 32-byte hash (refused before any hashing).
fn probe_nodes(v: &Value) -> Option<Vec<[u8; 32]>> {
    let Some(list) = v.as_array() else {
        return Some(Vec::new()); // JSON null: no nodes
    };
    list.iter()
        .map(|n| {
            STANDARD
                .decode(n.as_str().unwrap())
                .ok()
                .and_then(|b| b.try_into().ok())
        })
        .collect()
}

#[test]
fn clause_5b_consistency_probes_of_transparency_dev() {
    let all = probes("consistency.jsonl");
    assert_eq!(all.len(), 98);
    let mut valid = 0;
    for p in &all {
        let ok = probe_nodes(&p["proof"]).is_some_and(|proof| {
            verify_consistency(
                p["size1"].as_u64().unwrap(),
                p["size2"].as_u64().unwrap(),
                &probe_root(&p["root1"]),
                &probe_root(&p["root2"]),
                &proof,
            )
        });
        let want_err = p["wantErr"].as_bool().unwrap();
        assert_eq!(ok, !want_err, "{} ({})", p["path"], p["desc"]);
        valid += usize::from(ok);
    }
    assert_eq!(
        valid, 6,
        "the happy paths of the five vectors and one extra"
    );
}

#[test]
fn clause_5b_inclusion_probes_of_transparency_dev() {
    let all = probes("inclusion.jsonl");
    assert_eq!(all.len(), 98);
    let mut valid = 0;
    for p in &all {
        let leaf: Option<[u8; 32]> = STANDARD
            .decode(p["leafHash"].as_str().unwrap())
            .ok()
            .and_then(|b| b.try_into().ok());
        let ok = match (leaf, probe_nodes(&p["proof"])) {
            (Some(leaf), Some(proof)) => verify_inclusion(
                &leaf,
                p["leafIdx"].as_u64().unwrap(),
                p["treeSize"].as_u64().unwrap(),
                &proof,
                &probe_root(&p["root"]),
            ),
            _ => false,
        };
        let want_err = p["wantErr"].as_bool().unwrap();
        assert_eq!(ok, !want_err, "{} ({})", p["path"], p["desc"]);
        valid += usize::from(ok);
    }
    assert_eq!(valid, 6, "the six happy paths");
}

fn random_leaves(n: usize, seed: u64) -> Vec<[u8; 32]> {
    (0..n as u64)
        .map(|i| leaf_hash(&(seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).to_le_bytes()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    /// Every proof the kit makes for 1 <= m <= n verifies; a proof with one bit flipped, a node
    /// dropped or added, or checked against another root, does not. (The sizes are bound by the
    /// signed checkpoints that carry the roots; RFC 9162 proofs do not bind them on their own.)
    #[test]
    fn clause_5b_every_consistency_proof_verifies_and_tampering_fails(
        n in 1usize..600,
        m_frac in 0.0f64..1.0,
        seed in any::<u64>(),
        pick in any::<usize>(),
        bit in 0u8..8,
    ) {
        let leaves = random_leaves(n, seed);
        let m = 1 + ((n - 1) as f64 * m_frac) as usize;
        let tree = Subtrees::new(leaves.clone());
        let proof = tree.consistency_proof(m, n).unwrap();
        prop_assert_eq!(&proof, &consistency_proof(&leaves, m).unwrap());
        let (a, b) = (tree.root(m).unwrap(), tree.root(n).unwrap());
        let (m64, n64) = (m as u64, n as u64);
        prop_assert_eq!(check_consistency(m64, n64, &a, &b, &proof), Ok(()));
        prop_assert!(proof.len() <= 2 * (usize::BITS - n.leading_zeros()) as usize);

        if !proof.is_empty() {
            let mut flipped = proof.clone();
            let i = pick % flipped.len();
            flipped[i][pick % 32] ^= 1 << bit;
            prop_assert!(!verify_consistency(m64, n64, &a, &b, &flipped));
            prop_assert!(!verify_consistency(m64, n64, &a, &b, &proof[..proof.len() - 1]));
        }
        let mut longer = proof.clone();
        longer.push(a);
        prop_assert!(!verify_consistency(m64, n64, &a, &b, &longer));
        let mut other = b;
        other[pick % 32] ^= 1 << bit;
        prop_assert!(!verify_consistency(m64, n64, &a, &other, &proof));
        let mut other = a;
        other[pick % 32] ^= 1 << bit;
        prop_assert!(!verify_consistency(m64, n64, &other, &b, &proof));
        // A log rewritten anywhere in its first m entries is not an extension of the old tree.
        let mut rewritten = leaves.clone();
        rewritten[pick % m] = leaf_hash(b"rewritten");
        let forged = consistency_proof(&rewritten, m).unwrap();
        prop_assert!(!verify_consistency(m64, n64, &a, &root(&rewritten), &forged));
    }
}

// ---- The proof file between two signed checkpoints ------------------------------------------

fn read_cp(m: &TestMatch, n: u64) -> (Checkpoint, String, String) {
    let path = m.dir.join(format!("game-1/checkpoints/{n}.txt"));
    let text = std::fs::read_to_string(&path).unwrap();
    let sig = std::fs::read_to_string(format!("{}.sig", path.display())).unwrap();
    (Checkpoint::parse(&text).unwrap(), text, sig)
}

#[test]
fn clause_5b_consistency_proof_file_between_signed_checkpoints() {
    let m = TestMatch::new();
    let j = m.game(1, 37, &[13, 37]);
    let tree = Subtrees::new(j.entries().iter().map(|e| e.hash).collect());
    let (old, old_text, old_sig) = read_cp(&m, 13);
    let (new, new_text, new_sig) = read_cp(&m, 37);
    let proof = ConsistencyProof::build(
        (&old, &old_text, &old_sig),
        (&new, &new_text, &new_sig),
        "arbiter",
        &tree,
    )
    .unwrap();
    let json = serde_json::to_vec_pretty(&proof).unwrap();
    let read = ConsistencyProof::from_json(&json).unwrap();
    assert_eq!(read, proof);
    assert_eq!(read.check().unwrap(), (old.clone(), new.clone()));
    let (signers, _) = arbiter::record::sign::parse_allowed_signers(
        &std::fs::read_to_string(m.dir.join("allowed_signers")).unwrap(),
    );
    for (text, sig) in [
        (&read.old_checkpoint, &read.old_signature),
        (&read.new_checkpoint, &read.new_signature),
    ] {
        assert!(arbiter::record::sign::verify_signature(&signers, text.as_bytes(), sig).is_ok());
    }

    // The same log rewritten at entry 5 and re-signed: the camp's old checkpoint is not a prefix.
    let mut rewritten: Vec<[u8; 32]> = tree.leaves().to_vec();
    rewritten[5] = arbiter::log::entry_hash(&arbiter::log::encode_line(5, &[0; 32], &entry(99)));
    let forged_tree = Subtrees::new(rewritten.clone());
    let forged_new = Checkpoint {
        root: root(&rewritten),
        ..new.clone()
    };
    let forged = ConsistencyProof::build(
        (&old, &old_text, &old_sig),
        (&forged_new, &forged_new.to_text(), &new_sig),
        "arbiter",
        &forged_tree,
    )
    .unwrap();
    assert!(matches!(
        forged.check(),
        Err(ConsistencyProofError::Inconsistent(
            ConsistencyError::OldRoot
        ))
    ));

    // Cut back: the "newer" checkpoint is the older one.
    let mut cut = proof.clone();
    (cut.old_checkpoint, cut.new_checkpoint) = (new_text.clone(), old_text.clone());
    (cut.old_size, cut.new_size) = (37, 13);
    assert!(matches!(
        cut.check(),
        Err(ConsistencyProofError::Inconsistent(
            ConsistencyError::Order { old: 37, new: 13 }
        ))
    ));

    // Sizes, origin, format and nodes are each checked.
    let mut bad = proof.clone();
    bad.old_size = 12;
    assert!(matches!(
        bad.check(),
        Err(ConsistencyProofError::Size { which: "old", .. })
    ));
    let mut bad = proof.clone();
    bad.origin = "arbiter-kit/other/game-1".into();
    assert!(matches!(
        bad.check(),
        Err(ConsistencyProofError::Origin { which: "old", .. })
    ));
    let mut bad = proof.clone();
    bad.format = "arbiter-kit-consistency-proof/2".into();
    assert!(matches!(bad.check(), Err(ConsistencyProofError::Format(_))));
    let mut bad = proof.clone();
    bad.proof[0] = "AAAA".into();
    assert!(matches!(bad.check(), Err(ConsistencyProofError::Node(0))));
    let mut bad = proof.clone();
    bad.proof.pop();
    assert!(matches!(
        bad.check(),
        Err(ConsistencyProofError::Inconsistent(_))
    ));
    // Same size, other chain head: a rewritten last entry under an equal tree is impossible, but
    // a checkpoint text with another chain line is refused.
    let mut same = proof.clone();
    same.old_checkpoint = new_text.replace(&hex::encode(new.chain), &"ab".repeat(32));
    same.old_size = 37;
    same.proof.clear();
    assert!(matches!(
        same.check(),
        Err(ConsistencyProofError::Chain(37))
    ));
    assert!(ConsistencyProof::from_json(b"{\"format\":1}").is_err());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// The streaming tree hash (O(log n) memory, used by `verify` on long logs) equals the
    /// recursive RFC 6962 tree hash at every prefix.
    #[test]
    fn merkle_root_builder_equals_the_tree_hash_at_every_prefix(n in 0usize..300, seed in 0u8..255) {
        let leaves: Vec<[u8; 32]> = (0..n)
            .map(|i| arbiter::log::merkle::leaf_hash(&[seed, (i % 251) as u8, (i / 251) as u8]))
            .collect();
        let mut b = arbiter::log::merkle::RootBuilder::new();
        proptest::prop_assert_eq!(b.root(), arbiter::log::merkle::root(&[]));
        for (i, l) in leaves.iter().enumerate() {
            b.push(*l);
            proptest::prop_assert_eq!(b.root(), arbiter::log::merkle::root(&leaves[..=i]));
        }
    }
}
