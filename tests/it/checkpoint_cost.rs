//! A checkpoint's tree head as the kit keeps it while appending (the journal's frontier, O(log n)
//! hashes, never the log read again) against the tree head computed from scratch, and `verify`'s
//! tree heads at every checkpoint's size in its one pass, for random sizes and checkpoint sets.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use arbiter::log::merkle::{self, RootBuilder};
use arbiter::record::journal::Journal;
use arbiter::record::sign;
use arbiter::record::verify::{Status, verify_game};
use proptest::prelude::*;

use crate::log_util::{entry, first_entry, t0};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The frontier's root at each size equals the RFC 6962 tree hash of that prefix.
    #[test]
    fn checkpoint_frontier_root_equals_the_from_scratch_root(
        n in 1usize..300,
        seed in any::<u64>(),
        picks in proptest::collection::vec(any::<u16>(), 0..40),
    ) {
        let leaves: Vec<[u8; 32]> = (0..n as u64)
            .map(|i| arbiter::log::sha256(format!("{seed}/{i}").as_bytes()))
            .collect();
        let mut sizes: Vec<usize> = picks.iter().map(|p| 1 + *p as usize % n).collect();
        sizes.sort_unstable();
        let mut tree = RootBuilder::new();
        for (i, leaf) in leaves.iter().enumerate() {
            tree.push(*leaf);
            if sizes.binary_search(&(i + 1)).is_ok() {
                prop_assert_eq!(tree.root(), merkle::root(&leaves[..=i]), "size {}", i + 1);
            }
        }
        prop_assert_eq!(tree.root(), merkle::root(&leaves));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// The kit's own path: a journal appended to, a checkpoint signed from its tally at each
    /// size of a random set (as `arbiter script` signs at stops, take-backs and resumes); each
    /// signed root is the from-scratch root of that prefix, and `verify` finds every checkpoint
    /// good in its one pass. A checkpoint over a wrong root among them is named.
    #[test]
    fn checkpoint_incremental_heads_verify_at_random_sizes(
        n in 2u64..48,
        picks in proptest::collection::vec(any::<u16>(), 1..20),
        bad in any::<u16>(),
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let m = tmp.path().join("m");
        crate::log_util::arbiter_key_in(&m);
        let key = sign::load_key(&m.join("keys").join("arbiter"), None).unwrap();
        let fp = sign::fingerprint(key.public_key());
        let path = arbiter::record::layout::log_path(&m, 1);
        let mut sizes: Vec<u64> = picks.iter().map(|p| 1 + u64::from(*p) % n).collect();
        sizes.sort_unstable();
        sizes.dedup();
        let mut j = Journal::create(&path, first_entry(&fp, 1)).unwrap();
        let mut hashes = vec![j.last().unwrap().hash];
        let mut signed = Vec::new();
        for i in 0..n {
            if i > 0 {
                hashes.push(j.append(entry(i)).unwrap().hash);
            }
            let size = i + 1;
            if sizes.binary_search(&size).is_ok() {
                let head = j.tally().head().unwrap();
                prop_assert_eq!(head.size, size);
                prop_assert_eq!(head.root, merkle::root(&hashes));
                arbiter::record::witness::sign_and_index_tally(&m, 1, j.tally(), &key, t0())
                    .unwrap();
                signed.push(size);
            }
        }
        drop(j);
        let v = verify_game(&m, 1);
        prop_assert!(
            matches!(v.status, Status::Ok | Status::UnsignedTail),
            "{:?}",
            v
        );
        prop_assert_eq!(v.checkpoints.len(), signed.len());
        prop_assert!(v.checkpoints.iter().all(|c| c.ok), "{:?}", v.checkpoints);
        prop_assert_eq!(v.signed_entries, *signed.last().unwrap());
        // One checkpoint re-signed over another prefix's root: named, the others still good.
        let wrong = signed[bad as usize % signed.len()];
        let other = if wrong > 1 { wrong - 1 } else { wrong + 1 };
        if other <= n {
            let dir = arbiter::record::layout::checkpoints_dir(&m, 1);
            for ext in ["txt", "txt.sig", "note"] {
                let _ = std::fs::remove_file(dir.join(format!("{wrong}.{ext}")));
            }
            let head = arbiter::record::journal::TreeHead {
                match_id: crate::log_util::MATCH_ID.into(),
                size: wrong,
                root: merkle::root(&hashes[..other as usize]),
                last_hash: hashes[wrong as usize - 1],
            };
            sign::sign_tree_head(&m, 1, &head, &key, t0()).unwrap();
            let v = verify_game(&m, 1);
            let named: Vec<&str> = v
                .checkpoints
                .iter()
                .filter(|c| !c.ok)
                .map(|c| c.file.as_str())
                .collect();
            let file = format!("{wrong}.txt");
            prop_assert_eq!(named, vec![file.as_str()], "{:?}", v);
            prop_assert_eq!(v.status, Status::BadCheckpoint);
        }
    }
}
