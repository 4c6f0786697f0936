//! The scoresheet short code of a checkpoint and the signed match index (clause 5b: a log cut
//! back, rewritten or deleted after a camp noted its state is caught).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use crate::log_util::TestMatch;
use arbiter::log::checkpoint::{Checkpoint, ShortCode, ShortCodeError};
use arbiter::log::index::{HEADER, IndexError, IndexResult, IndexedGame, MatchIndex};
use arbiter::log::merkle::{Subtrees, leaf_hash};
use arbiter::record::sign;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use std::process::{Command, Stdio};

fn root_with(first: u8) -> [u8; 32] {
    let mut r = [0u8; 32];
    r[0] = first;
    r[1] = 0x2a;
    r[7] = 0xd0;
    r[8] = 0xff; // beyond the code
    r
}

#[test]
fn clause_5b_short_code_round_trip_and_check() {
    let root = hex::decode("3f2a9c1b77d012ab00112233445566778899aabbccddeeff0011223344556677")
        .unwrap()
        .try_into()
        .unwrap();
    let code = ShortCode::of(57, &root);
    assert_eq!(code.to_string(), "57-3F2A-9C1B-77D0-12AB");
    assert_eq!(ShortCode::parse("57-3F2A-9C1B-77D0-12AB").unwrap(), code);
    assert_eq!(
        ShortCode::parse("  57-3f2a-9c1b-77d0-12ab\n").unwrap(),
        code
    );
    assert!(code.matches(57, &root));
    assert_eq!(code.check(&root), Ok(()));

    // A different root (first byte or last coded byte) or another size does not match.
    let mut other = root;
    other[7] ^= 1;
    assert!(!code.matches(57, &other));
    match code.check(&other) {
        Err(e @ ShortCodeError::Mismatch { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("57-3F2A-9C1B-77D0-12AB") && msg.contains("57-3F2A-9C1B-77D0-12AA"),
                "{msg}"
            );
        }
        r => panic!("expected a mismatch, got {r:?}"),
    }
    assert!(!code.matches(58, &root));
    // Bytes past the code are not part of it.
    let mut tail = root;
    tail[31] ^= 1;
    assert!(code.matches(57, &tail));

    for bad in [
        "",
        "57",
        "57-3F2A-9C1B-77D0",
        "57-3F2A-9C1B-77D0-12AB-0000",
        "57-3F2A-9C1B-77D0-12AG",
        "57-3F2A-9C1B-77D-012AB",
        "-3F2A-9C1B-77D0-12AB",
        "+57-3F2A-9C1B-77D0-12AB",
        "57 3F2A 9C1B 77D0 12AB",
        "99999999999999999999999-3F2A-9C1B-77D0-12AB",
    ] {
        assert_eq!(
            ShortCode::parse(bad),
            Err(ShortCodeError::Syntax(bad.to_owned())),
            "{bad:?}"
        );
    }
}

#[test]
fn clause_5b_short_code_catches_a_rewritten_log() {
    let m = TestMatch::new();
    let j = m.game(1, 40, &[]);
    let text = std::fs::read_to_string(m.sign(&j, 1)).unwrap();
    let cp = Checkpoint::parse(&text).unwrap();
    let noted = ShortCode::parse(&cp.short_code().to_string()).unwrap();
    let mut leaves: Vec<[u8; 32]> = j.entries().iter().map(|e| e.hash).collect();
    // The log grows: the noted code still matches its prefix.
    leaves.push(leaf_hash(b"later entry"));
    let tree = Subtrees::new(leaves.clone());
    assert_eq!(noted.check(&tree.root(40).unwrap()), Ok(()));
    // Any entry among the first 40 rewritten: the code no longer matches.
    for k in [0, 17, 39] {
        let mut rewritten = leaves.clone();
        rewritten[k] = leaf_hash(b"rewritten");
        let tree = Subtrees::new(rewritten);
        assert!(noted.check(&tree.root(40).unwrap()).is_err(), "entry {k}");
    }
}

fn sample_index() -> MatchIndex {
    MatchIndex {
        match_id: "kasparov-deep-junior-2003".into(),
        version: 7,
        games: vec![
            IndexedGame {
                game: 1,
                size: 312,
                root: root_with(1),
                result: IndexResult::WhiteWins,
            },
            IndexedGame {
                game: 2,
                size: 140,
                root: root_with(2),
                result: IndexResult::Draw,
            },
            IndexedGame {
                game: 3,
                size: 57,
                root: root_with(3),
                result: IndexResult::Unfinished,
            },
        ],
    }
}

#[test]
fn clause_5b_match_index_text() {
    let index = sample_index();
    let text = index.to_text();
    insta::assert_snapshot!(text, @r"
    arbiter-kit match index v2
    match kasparov-deep-junior-2003
    version 7
    game 1 312 ASoAAAAAAND/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= 1-0
    game 2 140 AioAAAAAAND/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= 1/2-1/2
    game 3 57 AyoAAAAAAND/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= *
    ");
    assert_eq!(MatchIndex::parse(&text).unwrap(), index);
    assert_eq!(index.game(2).unwrap().size, 140);
    assert!(index.game(4).is_none());
    let empty = MatchIndex {
        match_id: "m".into(),
        version: 1,
        games: vec![],
    };
    assert_eq!(MatchIndex::parse(&empty.to_text()).unwrap(), empty);
    // An index of format v1 (no version line) is still read, as version 0.
    let v1 = MatchIndex {
        version: 0,
        ..sample_index()
    };
    assert!(
        v1.to_text()
            .starts_with("arbiter-kit match index v1\nmatch ")
    );
    assert_eq!(MatchIndex::parse(&v1.to_text()).unwrap(), v1);
    // The match code names the version and the text's digest.
    let code = index.code().to_string();
    assert!(code.starts_with("M7-"), "{code}");
    assert_eq!(
        arbiter::log::index::MatchCode::parse(&code.to_lowercase()),
        Some(index.code())
    );
    assert_eq!(
        arbiter::log::index::MatchCode::parse("57-3F2A-9C1B-77D0-12AB"),
        None
    );
    assert_eq!(IndexResult::parse("0-1"), Some(IndexResult::BlackWins));
}

#[test]
fn clause_5b_match_index_refusals() {
    let text = sample_index().to_text();
    // The line each bad text is refused at, or the error when it is not about one line.
    let cases: Vec<(String, Result<usize, IndexError>)> = vec![
        (text.trim_end().to_owned(), Err(IndexError::NoFinalNewline)),
        (text.replace(HEADER, "arbiter-kit match index v3"), Ok(1)),
        (text.replace(HEADER, "match index"), Ok(1)),
        (text.replace("match kasparov", "match  kasparov"), Ok(2)),
        (text.replace("version 7", "version 0"), Ok(3)),
        (text.replace("version 7", "version x"), Ok(3)),
        (text.replace("game 2 140", "game 1 140"), Ok(5)),
        (text.replace("game 2 140", "game 0 140"), Ok(5)),
        (text.replace("game 3 57", "game 3 0"), Ok(6)),
        (text.replace(" 1/2-1/2", " ½-½"), Ok(5)),
        (text.replace(" *\n", "\n"), Ok(6)),
        (text.replace("game 3 57 ", "game 3 57  "), Ok(6)),
        (
            text.replace("game 2 140", "game 02 140"),
            Err(IndexError::NotCanonical),
        ),
        (format!("{text}\n"), Ok(7)),
    ];
    for (bad, want) in cases {
        let err = MatchIndex::parse(&bad).unwrap_err();
        let ok = match &want {
            Ok(n) => matches!(&err, IndexError::Line { line, .. } if line == n),
            Err(e) => &err == e,
        };
        assert!(ok, "{bad:?}: {err} (wanted {want:?})");
    }
    let mut spaced = sample_index();
    spaced.match_id = "two words".into();
    assert!(spaced.validate().is_err());
}

#[test]
fn clause_5b_match_index_signed_by_the_arbiter() {
    let m = TestMatch::new();
    let index = sample_index();
    let sig = sign::sign_index(&m.key, &index).unwrap();
    let (signers, problems) = sign::parse_allowed_signers(
        &std::fs::read_to_string(m.dir.join("allowed_signers")).unwrap(),
    );
    assert!(problems.is_empty());
    let text = index.to_text();
    let who = sign::verify_signature(&signers, text.as_bytes(), &sig).unwrap();
    assert_eq!(who.fingerprint, m.fingerprint());
    // A game dropped from the signed index breaks the signature.
    let mut cut = index.clone();
    cut.games.pop();
    assert!(sign::verify_signature(&signers, cut.to_text().as_bytes(), &sig).is_err());
    // Stock OpenSSH checks it like a checkpoint.
    if std::path::Path::new("/usr/bin/ssh-keygen").exists() {
        let file = m.dir.join("index.txt");
        std::fs::write(&file, &text).unwrap();
        std::fs::write(m.dir.join("index.txt.sig"), &sig).unwrap();
        let ok = Command::new("/usr/bin/ssh-keygen")
            .args(["-Y", "verify", "-f"])
            .arg(m.dir.join("allowed_signers"))
            .args(["-I", "arbiter", "-n", "arbiter-kit-checkpoint", "-s"])
            .arg(m.dir.join("index.txt.sig"))
            .stdin(std::fs::File::open(&file).unwrap())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(ok);
    } else {
        println!("SKIPPED (ssh-keygen part): /usr/bin/ssh-keygen is not installed");
    }
    // An index is never mistaken for a checkpoint, nor the reverse.
    assert!(Checkpoint::parse(&text).is_err());
    let cp_text = format!(
        "arbiter-kit/m/game-1\n1\n{}\nchain {}\ntime 2003-01-26T15:00:00Z\n",
        STANDARD.encode([0u8; 32]),
        "00".repeat(32)
    );
    assert!(Checkpoint::parse(&cp_text).is_ok());
    assert!(MatchIndex::parse(&cp_text).is_err());
}
