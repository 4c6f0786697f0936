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
    let entries = arbiter::journal::read_entries(&dir.join("game-1/log.jsonl")).unwrap();
    let events = arbiter::log::codec::events_of(&entries).unwrap();
    let moves: Vec<(String, u64, i64)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::MoveMade {
                uci,
                spent_ms,
                remaining_ms,
                ..
            } => Some((uci.clone(), *spent_ms, *remaining_ms)),
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
            "13c: 0/10 machine moves covered; move 2: no search for this position in the log"
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
