//! A whole Denryu-sen game between a human (sente, moves by hand, 19.6) and a program (gote)
//! replayed from a script through the binary, its clocks checked to the millisecond against
//! 22.1's arithmetic, and its records (`arbiter record --format csa|kif`) read back by an
//! independent reader, python-shogi: every move and every time.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

use arbiter::core::event::EventKind;

use crate::realgame::{arbiter, ok, tool};

/// The game: (time since the start in ms, move). Sente resigns after the last move.
const GAME: &[(u64, &str)] = &[
    (3_456, "７六歩"),
    (5_001, "3c3d"),
    (9_999, "+2726FU"),
    (12_000, "4c4d"),
    (20_500, "2f2e"),
    (21_800, "2b3c"),
    (26_321, "3i4h"),
    (30_000, "8b4b"),
    (41_002, "5i6h"),
    (41_999, "5a6b"),
    (44_444, "6h7h"),
    (47_000, "6b7b"),
    (50_500, "5g5f"),
    (51_700, "7b8b"),
    (60_000, "4i5h"),
    (62_100, "9c9d"),
    (69_990, "9g9f"),
    (70_400, "7a7b"),
    (75_123, "3g3f"),
    (80_000, "3a3b"),
];
const RESIGN_AT: u64 = 95_500;

fn python_shogi() -> bool {
    if tool("python3").is_none() {
        return false;
    }
    let ok = Command::new("python3")
        .args(["-c", "import shogi"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "python-shogi is required in CI (.ci/run installs it)"
        );
        println!("SKIPPED part of the test: python-shogi is not installed");
    }
    ok
}

#[test]
fn denryusen_22_1_a_human_vs_engine_game_to_the_ms_and_its_csa_and_kif_read_back() {
    let tmp = tempfile::tempdir().unwrap();
    let mut script = String::from(
        "0 arbiter declare sente human Taro Yamada\n0 arbiter declare gote program Suisho\n0 arbiter declare operator Op\n0 arbiter start\n",
    );
    for (t, mv) in GAME {
        script.push_str(&format!("{}.{:03} move {mv}\n", t / 1000, t % 1000));
    }
    script.push_str(&format!(
        "{}.{:03} human resign\n",
        RESIGN_AT / 1000,
        RESIGN_AT % 1000
    ));
    let file = tmp.path().join("game.arb");
    std::fs::write(&file, script).unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let d = dir.display().to_string();
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/denryusen-2024.toml");
    let out = ok(&arbiter(&[
        "script",
        file.to_str().unwrap(),
        "--match",
        &d,
        "--rules",
        rules.to_str().unwrap(),
    ]));
    assert!(out.contains("result: 0-1"), "{out}");

    // The clocks, to the millisecond: each move's time is the time since the opponent's move,
    // floored to whole seconds (22.1); 2 s are added after each move (21).
    let entries = arbiter::record::journal::read_entries(&dir.join("game-1/log.jsonl")).unwrap();
    let events = arbiter::log::codec::events_of(&entries).unwrap();
    let moves: Vec<(String, u64, i64)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::MoveMade {
                uci,
                spent_ms,
                remaining_ms,
                ..
            } => Some((uci.to_string(), *spent_ms, *remaining_ms)),
            _ => None,
        })
        .collect();
    assert_eq!(moves.len(), GAME.len());
    let mut clock = [180_000i64, 600_000];
    let mut prev = 0;
    let mut spent_s = Vec::new();
    for (i, ((t, _), (_, spent, remaining))) in GAME.iter().zip(&moves).enumerate() {
        let floored = (t - prev) / 1000 * 1000;
        clock[i % 2] += 2_000 - floored as i64;
        assert_eq!(*spent, floored, "move {}: time floored to seconds", i + 1);
        assert_eq!(
            *remaining,
            clock[i % 2],
            "move {}: the mover's clock",
            i + 1
        );
        spent_s.push(floored / 1000);
        prev = *t;
    }
    let end = events
        .iter()
        .find(|e| e.kind_name() == "game_ended")
        .unwrap();
    assert_eq!((end.at, end.clause.as_str()), (RESIGN_AT, "13.1"));

    // The records.
    let csa_path = tmp.path().join("game.csa");
    let kif_path = tmp.path().join("game.kif");
    for (format, path) in [("csa", &csa_path), ("kif", &kif_path)] {
        ok(&arbiter(&[
            "record",
            "--match",
            &d,
            "--game",
            "1",
            "--format",
            format,
            "--out",
            path.to_str().unwrap(),
        ]));
    }
    let csa = std::fs::read_to_string(&csa_path).unwrap();
    assert!(
        csa.starts_with("'CSA encoding=UTF-8\nV3.0\nN+Taro Yamada\nN-Suisho\n"),
        "{csa}"
    );
    assert!(csa.contains("$TIME+:180+0+2\n$TIME-:600+0+2\n"), "{csa}");
    assert!(csa.contains("PI\n+\n+7776FU\nT3\n-3334FU\nT1\n"), "{csa}");
    assert!(csa.ends_with("%TORYO\n"), "{csa}");
    let kif = std::fs::read_to_string(&kif_path).unwrap();
    assert!(kif.contains("   1 ７六歩(77)"), "{kif}");
    assert!(kif.contains("  21 投了"), "{kif}");
    assert!(kif.contains("まで20手で後手の勝ち"), "{kif}");
    // PGN is for chess.
    let out = arbiter(&["record", "--match", &d, "--game", "1", "--format", "pgn"]);
    assert_eq!(out.status.code(), Some(65));
    assert!(String::from_utf8_lossy(&out.stderr).contains("PGN records chess"));

    // A USI log that names no position covers none of the program's ten moves (13c): archived,
    // and the summary says which move lacks what (denryusen_engine.rs checks a real engine's log).
    let (c1, c2) = (tmp.path().join("usi1.log"), tmp.path().join("usi2.log"));
    for c in [&c1, &c2] {
        std::fs::write(c, "bestmove 3c3d\n").unwrap();
    }
    let (c1, c2) = (c1.to_str().unwrap(), c2.to_str().unwrap());
    let out = ok(&arbiter(&["archive", "--match", &d, "--game", "1", c1, c2]));
    assert!(
        out.contains(
            "28.1: 0/10 machine moves covered; move 2: no search for this position in the log"
        ),
        "{out}"
    );

    if !python_shogi() {
        return;
    }
    // An independent reader: python-shogi parses both records; the times are read from the
    // CSA `T` lines and the KIF time column.
    let code = r#"
import re, sys, shogi, shogi.CSA, shogi.KIF
csa = open(sys.argv[1], encoding="utf-8").read()
kif = open(sys.argv[2], encoding="utf-8").read()
c = shogi.CSA.Parser.parse_str(csa)[0]
k = shogi.KIF.Parser.parse_str(kif)[0]
assert c["moves"] == k["moves"], (c["moves"], k["moves"])
b = shogi.Board()
for m in c["moves"]:
    assert shogi.Move.from_usi(m) in b.legal_moves, m
    b.push_usi(m)
t_csa = [int(l[1:]) for l in csa.splitlines() if re.fullmatch(r"T\d+", l)]
t_kif = [int(a) * 60 + int(b) for a, b in re.findall(r"\(\s*(\d+):(\d\d)/\d\d:\d\d:\d\d\)", kif)]
assert t_csa == t_kif, (t_csa, t_kif)
print(c["win"], k["win"], c["names"][0], c["names"][1])
for m, t in zip(c["moves"], t_csa):
    print(m, t)
"#;
    let out = ok(&Command::new("python3")
        .arg("-c")
        .arg(code)
        .arg(&csa_path)
        .arg(&kif_path)
        .output()
        .unwrap());
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0], "w w Taro Yamada Suisho",
        "gote won in both readers"
    );
    assert_eq!(lines.len(), 1 + moves.len());
    for (i, (l, ((uci, _, _), s))) in lines[1..]
        .iter()
        .zip(moves.iter().zip(&spent_s))
        .enumerate()
    {
        assert_eq!(*l, format!("{uci} {s}"), "move {}", i + 1);
    }
}

/// A game from `start_sfen` (the profile's `[shogi] start_sfen`) played through `arbiter script`,
/// its KIF written by `arbiter record --format kif`.
fn kif_from(start_sfen: &str, moves: &[&str], end: &str) -> String {
    record_from(start_sfen, moves, end, "kif")
}

/// [`kif_from`] in any record format (`csa`, `kif`).
fn record_from(start_sfen: &str, moves: &[&str], end: &str, format: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("rules/denryusen-2024.toml")).unwrap();
    let text = text.replace(
        "[shogi.declaration]",
        &format!("start_sfen = \"{start_sfen}\"\n\n[shogi.declaration]"),
    );
    let rules = tmp.path().join("set-up.toml");
    std::fs::write(&rules, text).unwrap();
    let mut script = String::from(
        "0 arbiter declare sente human Taro Yamada\n0 arbiter declare gote program Suisho\n0 arbiter declare operator Op\n0 arbiter start\n",
    );
    for (i, m) in moves.iter().enumerate() {
        script.push_str(&format!("{}.500 move {m}\n", 3 * (i + 1)));
    }
    script.push_str(&format!("{} {end}\n", 3 * (moves.len() + 1)));
    let file = tmp.path().join("game.arb");
    std::fs::write(&file, script).unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let d = dir.display().to_string();
    ok(&arbiter(&[
        "script",
        file.to_str().unwrap(),
        "--match",
        &d,
        "--rules",
        rules.to_str().unwrap(),
    ]));
    ok(&arbiter(&[
        "record", "--match", &d, "--game", "1", "--format", format,
    ]))
}

#[test]
fn denryusen_record_kif_from_a_handicap_and_a_set_up_position_read_back_by_python_shogi() {
    // A lance handicap (香落ち): named in the header, the players 下手 / 上手, 上手 moving first.
    let kyo = "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1";
    let kyo_moves = ["3c3d", "7g7f", "8b4b", "2g2f"];
    let handicap = kif_from(kyo, &kyo_moves, "human resign");
    assert!(
        handicap.contains("手合割：香落ち\n下手：Taro Yamada\n上手：Suisho\n"),
        "{handicap}"
    );
    assert!(handicap.contains("   1 ３四歩(33)"), "{handicap}");
    assert!(handicap.contains("まで4手で上手の勝ち"), "{handicap}");
    // Any other position: the board diagram, both hands (counts in kanji), a promoted piece, and
    // `後手番` when gote moves first.
    let set_up = "lnsgkg1nl/1r7/p1pppp+spp/6p2/4B4/2P6/PP1PPPP2/2S4R1/LN1GKGSNL w 2Pbp 22";
    let set_up_moves = ["B*4d", "5e4d", "3c4d", "P*2d"];
    let diagram = kif_from(set_up, &set_up_moves, "gote resign");
    assert!(
        diagram.contains(
            "後手の持駒：角　歩\n  ９ ８ ７ ６ ５ ４ ３ ２ １\n+---------------------------+\n\
             |v香v桂v銀v金v玉v金 ・v桂v香|一\n| ・v飛 ・ ・ ・ ・ ・ ・ ・|二\n\
             |v歩 ・v歩v歩v歩v歩v全v歩v歩|三\n"
        ),
        "{diagram}"
    );
    assert!(
        diagram.contains(
            "+---------------------------+\n先手の持駒：歩二\n後手番\n先手：Taro Yamada\n"
        ),
        "{diagram}"
    );
    assert!(diagram.contains("   1 ４四角打"), "{diagram}");
    assert!(diagram.contains("まで4手で先手の勝ち"), "{diagram}");

    if !python_shogi() {
        return;
    }
    // python-shogi reads each start back as the SFEN the game started from, and every move.
    let code = r#"
import sys, shogi, shogi.KIF
k = shogi.KIF.Parser.parse_str(open(sys.argv[1], encoding="utf-8").read())[0]
b = shogi.Board(k["sfen"])
for m in k["moves"]:
    assert shogi.Move.from_usi(m) in b.legal_moves, m
    b.push_usi(m)
print(" ".join(k["sfen"].split()[:3]))
print(" ".join(k["moves"]))
print(k["win"])
"#;
    let tmp = tempfile::tempdir().unwrap();
    for (kif, start, moves, win) in [
        (&handicap, kyo, &kyo_moves, "w"),
        (&diagram, set_up, &set_up_moves, "b"),
    ] {
        let path = tmp.path().join("r.kif");
        std::fs::write(&path, kif).unwrap();
        let out = ok(&Command::new("python3")
            .arg("-c")
            .arg(code)
            .arg(&path)
            .output()
            .unwrap());
        let lines: Vec<&str> = out.lines().collect();
        let key: Vec<&str> = start.split_whitespace().take(3).collect();
        // python-shogi writes a hand's pieces its own way round; compare them as sets.
        let sorted = |s: &str| {
            let mut c: Vec<char> = s.chars().collect();
            c.sort_unstable();
            c
        };
        let got: Vec<&str> = lines[0].split_whitespace().collect();
        assert_eq!(got[..2], key[..2], "{kif}");
        assert_eq!(sorted(&got[2].replace('1', "")), sorted(key[2]), "{kif}");
        assert_eq!(lines[1], moves.join(" "), "{kif}");
        assert_eq!(lines[2], win, "{kif}");
    }
}

#[test]
fn denryusen_record_csa_from_a_handicap_and_a_gote_first_set_up_read_back_by_python_shogi() {
    // A two-piece handicap (二枚落ち): 上手 (gote in the SFEN) moves first; every move's sign
    // and time comes from the position's side to move, not the ply's parity.
    let nimai = "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1";
    let nimai_moves = ["5a4b", "7g7f", "4a5b", "2g2f"];
    let handicap = record_from(nimai, &nimai_moves, "gote resign", "csa");
    assert!(
        handicap.contains("\nP1-KY-KE-GI-KI-OU-KI-GI-KE-KY\nP2 *  *  *  *  *  *  *  *  * \n"),
        "{handicap}"
    );
    assert!(
        handicap.contains("\n-\n-5142OU\nT3\n+7776FU\nT3\n-4152KI\nT3\n+2726FU\nT3\n%TORYO\n"),
        "{handicap}"
    );
    // Gote resigned on its own turn.
    assert!(handicap.ends_with("%TORYO\n"), "{handicap}");
    // A set-up position with pieces in hand, gote to move (one piece of a kind in each hand:
    // python-shogi's CSA reader loses the piece of a count, "2P" read as "2").
    let set_up = "lnsgkg1nl/1r7/p1pppp+spp/6p2/4B4/2P6/PP1PPPP2/2S4R1/LN1GKGSNL w Pbp 22";
    let set_up_moves = ["B*4d", "5e4d", "3c4d", "P*2d", "2c2d"];
    let diagram = record_from(set_up, &set_up_moves, "sente resign", "csa");
    assert!(diagram.ends_with("-2324FU\nT3\n%TORYO\n"), "{diagram}");
    assert!(
        diagram.contains("\nP+00FU\nP-00KA00FU\n-\n-0044KA\nT3\n+5544KA\nT3\n"),
        "{diagram}"
    );

    if !python_shogi() {
        return;
    }
    // python-shogi reads each start back as the SFEN the game started from, every move (legal
    // from that start) and every time.
    let code = r#"
import re, sys, shogi, shogi.CSA
text = open(sys.argv[1], encoding="utf-8").read()
c = shogi.CSA.Parser.parse_str(text)[0]
b = shogi.Board(c["sfen"])
for m in c["moves"]:
    assert shogi.Move.from_usi(m) in b.legal_moves, m
    b.push_usi(m)
print(" ".join(c["sfen"].split()[:3]))
print(" ".join(c["moves"]))
print(c["win"])
print(" ".join(l[1:] for l in text.splitlines() if re.fullmatch(r"T\d+", l)))
"#;
    let tmp = tempfile::tempdir().unwrap();
    for (csa, start, moves, win) in [
        (&handicap, nimai, &nimai_moves[..], "b"),
        (&diagram, set_up, &set_up_moves[..], "w"),
    ] {
        let path = tmp.path().join("r.csa");
        std::fs::write(&path, csa).unwrap();
        let out = ok(&Command::new("python3")
            .arg("-c")
            .arg(code)
            .arg(&path)
            .output()
            .unwrap());
        let lines: Vec<&str> = out.lines().collect();
        let key: Vec<&str> = start.split_whitespace().take(3).collect();
        let sorted = |s: &str| {
            let mut c: Vec<char> = s.chars().collect();
            c.sort_unstable();
            c
        };
        let got: Vec<&str> = lines[0].split_whitespace().collect();
        assert_eq!(got[..2], key[..2], "{csa}");
        assert_eq!(sorted(got[2]), sorted(key[2]), "{csa}");
        assert_eq!(lines[1], moves.join(" "), "{csa}");
        assert_eq!(lines[2], win, "{csa}");
        assert_eq!(lines[3], vec!["3"; moves.len()].join(" "), "{csa}");
    }
}

/// A short shogi game played through the binary: (temp dir, match folder).
fn short_shogi_match() -> (tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().unwrap();
    let script = "0 arbiter declare sente human Taro Yamada\n0 arbiter declare gote program Suisho\n0 arbiter declare operator Op\n0 arbiter start\n3 move ７六歩\n5 move 3c3d\n9 human resign\n";
    let file = tmp.path().join("game.arb");
    std::fs::write(&file, script).unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let d = dir.display().to_string();
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/denryusen-2024.toml");
    let out = ok(&arbiter(&[
        "script",
        file.to_str().unwrap(),
        "--match",
        &d,
        "--rules",
        rules.to_str().unwrap(),
    ]));
    assert!(out.contains("result: 0-1"), "{out}");
    (tmp, d)
}

#[test]
fn denryusen_pgn_of_a_shogi_game_is_refused_naming_record() {
    let (tmp, d) = short_shogi_match();
    let log = std::fs::read(Path::new(&d).join("game-1/log.jsonl")).unwrap();
    let pgn = tmp.path().join("game1.pgn");
    for args in [
        vec!["pgn", "--match", &d, "--game", "1"],
        vec![
            "pgn",
            "--match",
            &d,
            "--game",
            "1",
            "--out",
            pgn.to_str().unwrap(),
        ],
    ] {
        let out = arbiter(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(65), "{args:?}: {err}");
        assert!(
            err.contains("game 1 is a shogi game")
                && err.contains("`arbiter record --game 1 --format kif|csa`"),
            "{err}"
        );
        assert!(out.stdout.is_empty(), "no PGN on standard output");
    }
    assert!(!pgn.exists(), "nothing written");
    assert_eq!(
        std::fs::read(Path::new(&d).join("game-1/log.jsonl")).unwrap(),
        log
    );
    // The command it names writes the record.
    let kif = ok(&arbiter(&[
        "record", "--match", &d, "--game", "1", "--format", "kif",
    ]));
    assert!(kif.contains("   1 ７六歩(77)"), "{kif}");
    // A chess game's PGN is not refused (the check is the game's, not the command's).
    let chess = tmp.path().join("c");
    crate::log_util::arbiter_key_in(&chess);
    let cs = tmp.path().join("chess.arb");
    std::fs::write(
        &cs,
        format!(
            "{}\n0 arbiter start\n3 move e4\n5 move e5\n9 human resign\n",
            crate::clauses::HUMAN_WHITE.join("\n")
        ),
    )
    .unwrap();
    let c = chess.display().to_string();
    ok(&arbiter(&["script", cs.to_str().unwrap(), "--match", &c]));
    let p = ok(&arbiter(&["pgn", "--match", &c, "--game", "1"]));
    assert!(p.contains("1. e4"), "{p}");
}

#[test]
fn denryusen_relay_of_a_shogi_game_is_refused_naming_record() {
    let (tmp, d) = short_shogi_match();
    let out_file = tmp.path().join("live.pgn");
    for game in [None, Some("1")] {
        let mut args = vec![
            "relay",
            "--match",
            &d,
            "--out",
            out_file.to_str().unwrap(),
            "--once",
        ];
        if let Some(g) = game {
            args.extend(["--game", g]);
        }
        let out = arbiter(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(65), "{args:?}: {err}");
        assert!(
            err.contains("relay: game 1 is a shogi game")
                && err.contains("`arbiter record --game 1 --format kif|csa`"),
            "{err}"
        );
        assert!(!out_file.exists(), "no PGN written for the broadcaster");
    }
}
