//! Byte format and RFC 6962 test vectors.
#![allow(clippy::unwrap_used)]
use arbiter::log::checkpoint::Checkpoint;
use arbiter::log::merkle::{
    inclusion_proof, leaf_hash, root, root_from_inclusion, verify_inclusion,
};
use arbiter::log::{NewEntry, ZERO_HASH, encode_line, entry_hash, parse_line};

/// The certificate-transparency test leaves (RFC 6962 test data).
fn leaves() -> Vec<Vec<u8>> {
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
    .map(|h| hex::decode(h).unwrap())
    .collect()
}

const ROOTS: [&str; 8] = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];

fn h(s: &str) -> [u8; 32] {
    hex::decode(s).unwrap().try_into().unwrap()
}

#[test]
fn log_rfc6962_roots() {
    let hashes: Vec<[u8; 32]> = leaves().iter().map(|l| leaf_hash(l)).collect();
    assert_eq!(hex::encode(root(&hashes)), ROOTS[7]);
    for n in 1..=8 {
        assert_eq!(
            hex::encode(root(&hashes[..n])),
            ROOTS[n - 1],
            "tree of size {n}"
        );
    }
    // E_n is exactly the RFC 6962 leaf hash of the line bytes.
    assert_eq!(entry_hash(b""), h(ROOTS[0]));
    assert_eq!(
        hex::encode(root(&[])),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

#[test]
fn log_rfc6962_known_inclusion_paths() {
    let hashes: Vec<[u8; 32]> = leaves().iter().map(|l| leaf_hash(l)).collect();
    let cases: [(usize, usize, &[&str]); 4] = [
        (
            0,
            8,
            &[
                "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
            ],
        ),
        (
            5,
            8,
            &[
                "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
            ],
        ),
        (
            2,
            3,
            &["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"],
        ),
        (
            1,
            5,
            &[
                "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
                "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            ],
        ),
    ];
    for (index, size, path) in cases {
        let want: Vec<[u8; 32]> = path.iter().map(|p| h(p)).collect();
        assert_eq!(
            inclusion_proof(&hashes[..size], index).unwrap(),
            want,
            "leaf {index} of {size}"
        );
        assert!(verify_inclusion(
            &hashes[index],
            index as u64,
            size as u64,
            &want,
            &h(ROOTS[size - 1])
        ));
    }
}

#[test]
fn log_rfc6962_every_inclusion_proof_and_wrong_ones() {
    let hashes: Vec<[u8; 32]> = leaves().iter().map(|l| leaf_hash(l)).collect();
    for size in 1..=8usize {
        let r = h(ROOTS[size - 1]);
        for index in 0..size {
            let path = inclusion_proof(&hashes[..size], index).unwrap();
            let (i, n) = (index as u64, size as u64);
            assert!(
                verify_inclusion(&hashes[index], i, n, &path, &r),
                "leaf {index} of {size}"
            );
            // Wrong leaf, index, size, root, and every flipped path node: all refused.
            let other = hashes[(index + 1) % 8];
            assert!(!verify_inclusion(&other, i, n, &path, &r));
            if size > 1 {
                assert!(!verify_inclusion(&hashes[index], (i + 1) % n, n, &path, &r));
            }
            // (The tree size is bound by the signed checkpoint, not by the audit path: a path
            // for size n can also fit size n+1, so that is not asserted here.)
            assert!(!verify_inclusion(&hashes[index], n, n, &path, &r));
            let mut bad_root = r;
            bad_root[0] ^= 1;
            assert!(!verify_inclusion(&hashes[index], i, n, &path, &bad_root));
            for k in 0..path.len() {
                let mut p = path.clone();
                p[k][31] ^= 0x80;
                assert!(!verify_inclusion(&hashes[index], i, n, &p, &r));
            }
            let mut longer = path.clone();
            longer.push(r);
            assert!(root_from_inclusion(&hashes[index], i, n, &longer).is_none());
            if !path.is_empty() {
                assert!(!verify_inclusion(
                    &hashes[index],
                    i,
                    n,
                    &path[..path.len() - 1],
                    &r
                ));
            }
        }
    }
}

#[test]
fn log_line_format_is_stable() {
    let e = NewEntry {
        mono_ms: 61_000,
        utc: chrono::DateTime::parse_from_rfc3339("2003-01-26T15:01:01.250Z")
            .unwrap()
            .into(),
        actor: "operator".into(),
        clause: "9a".into(),
        kind: "draw_offer_declined".into(),
        body: serde_json::json!({"z": 1, "a": "x"}),
    };
    let line = encode_line(0, &ZERO_HASH, &e);
    assert_eq!(
        String::from_utf8(line.clone()).unwrap(),
        format!(
            "{{\"v\":1,\"seq\":0,\"prev\":\"{}\",\"utc\":\"2003-01-26T15:01:01.250Z\",\"mono_ms\":61000,\"actor\":\"operator\",\"clause\":\"9a\",\"kind\":\"draw_offer_declined\",\"body\":{{\"a\":\"x\",\"z\":1}}}}",
            "0".repeat(64)
        )
    );
    let parsed = parse_line(&line, 0).unwrap();
    assert_eq!(parsed.hash, leaf_hash(&line));
}

#[test]
fn log_checkpoint_text_round_trip_and_strictness() {
    let cp = Checkpoint::new(
        "arbiter-kit/m/game-1".into(),
        3,
        [7; 32],
        [9; 32],
        chrono::Utc::now(),
    );
    let text = cp.to_text();
    assert_eq!(text.lines().count(), 5);
    assert!(text.ends_with('\n'));
    assert_eq!(Checkpoint::parse(&text).unwrap(), cp);
    assert!(Checkpoint::parse(&text.replace('\n', "\r\n")).is_err());
    assert!(Checkpoint::parse(text.trim_end()).is_err());
    assert!(Checkpoint::parse(&format!("{text}extra\n")).is_err());
    assert!(Checkpoint::parse(&text.replace("chain ", "chain  ")).is_err());
}
