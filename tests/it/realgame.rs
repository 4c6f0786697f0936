//! End to end on the real game in ../shared/data/stockfish-game (Stockfish played Black, the
//! machine): its moves replayed through script mode with their %emt times, its machine-debug.log
//! archived twice (13a) and checked for rule 13c, and the kit's PGN read back by python-chess and
//! pgn-extract, with moves and clocks matching the log.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

use arbiter::core::event::EventKind;

use crate::pgn_support::{parse_pgn, read_real, real_data};

pub(crate) fn arbiter(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .output()
        .unwrap()
}

pub(crate) fn ok(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A tool from the machine, or a skip (a failure in CI, where .ci/run installs it).
pub(crate) fn tool(name: &str) -> Option<PathBuf> {
    for dir in std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .chain(["/usr/games"])
    {
        let p = Path::new(dir).join(name);
        if p.is_file() {
            return Some(p);
        }
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{name} is required in CI (.ci/run installs it)"
    );
    println!("SKIPPED part of the test: {name} is not installed");
    None
}

pub(crate) struct Played {
    _tmp: tempfile::TempDir,
    pub(crate) dir: String,
    log: Vec<(String, String, u64, i64)>, // san, uci, spent_ms, remaining_ms
    original: crate::pgn_support::ParsedPgn,
}

pub(crate) fn play_the_real_game() -> Played {
    let original = parse_pgn(&read_real("game.pgn").unwrap()).unwrap();
    let mut script = String::from(
        "0 arbiter declare white human Human\n0 arbiter declare black machine Stockfish\n0 arbiter declare operator Op\n0 arbiter start\n",
    );
    let mut at: u64 = 0;
    for m in &original.moves {
        at += m.emt_ms.unwrap();
        script.push_str(&format!("{}.{:03} move {}\n", at / 1000, at % 1000, m.san));
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("real.arb");
    std::fs::write(&file, script).unwrap();
    crate::log_util::arbiter_key_in(&tmp.path().join("m"));
    let dir = tmp.path().join("m").display().to_string();
    let out = ok(&arbiter(&[
        "script",
        file.to_str().unwrap(),
        "--match",
        &dir,
    ]));
    assert!(out.contains("result: 0-1 (Checkmate"), "{out}");
    let entries =
        arbiter::record::journal::read_entries(&Path::new(&dir).join("game-1/log.jsonl")).unwrap();
    let log = arbiter::log::codec::events_of(&entries)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::MoveMade {
                san,
                uci,
                spent_ms,
                remaining_ms,
                ..
            } => Some((san.to_string(), uci.to_string(), spent_ms, remaining_ms)),
            _ => None,
        })
        .collect();
    Played {
        _tmp: tmp,
        dir,
        log,
        original,
    }
}

#[test]
fn realgame_archive_twice_and_13c_coverage() {
    let p = play_the_real_game();
    let src = real_data("machine-debug.log").unwrap();
    let copies = tempfile::tempdir().unwrap();
    let (c1, c2) = (
        copies.path().join("copy1.log"),
        copies.path().join("copy2.log"),
    );
    std::fs::copy(&src, &c1).unwrap();
    std::fs::copy(&src, &c2).unwrap();
    // One copy is not enough (13a asks for two).
    let one = arbiter(&[
        "archive",
        "--match",
        &p.dir,
        "--game",
        "1",
        c1.to_str().unwrap(),
    ]);
    assert_eq!(one.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&one.stderr).contains("13a"));
    let out = ok(&arbiter(&[
        "archive",
        "--match",
        &p.dir,
        "--game",
        "1",
        c1.to_str().unwrap(),
        c2.to_str().unwrap(),
    ]));
    assert!(out.contains("13c: 53/53 machine moves covered"), "{out}");
    // The archive entry is in the log, with the coverage, and the log still verifies.
    let entries =
        arbiter::record::journal::read_entries(&Path::new(&p.dir).join("game-1/log.jsonl"))
            .unwrap();
    // (followed by the archive's own signed authorization)
    assert_eq!(entries.last().unwrap().kind, "authorized");
    let last = entries
        .iter()
        .rev()
        .find(|e| e.kind == "engine_log_archived")
        .unwrap();
    assert_eq!(last.body["coverage"]["covered"], 53);
    assert_eq!(last.body["coverage"]["machine_moves"], 53);
    assert_eq!(last.body["late"], false);
    ok(&arbiter(&["verify", "--match", &p.dir, "--game", "1"]));
    let sums = Command::new("sha256sum")
        .arg("-c")
        .arg("SHA256SUMS")
        .current_dir(Path::new(&p.dir).join("game-1/engine"))
        .output()
        .unwrap();
    assert!(
        sums.status.success(),
        "{}",
        String::from_utf8_lossy(&sums.stdout)
    );
    // The report carries the coverage.
    let report = ok(&arbiter(&[
        "report",
        "--match",
        &p.dir,
        "--game",
        "1",
        "--markdown",
    ]));
    let md = std::fs::read_to_string(report.trim()).unwrap();
    assert!(md.contains("53/53 machine moves covered"));
}

#[test]
fn realgame_pgn_round_trip_with_python_chess_and_pgn_extract() {
    let p = play_the_real_game();
    let out_dir = tempfile::tempdir().unwrap();
    let pgn_path = out_dir.path().join("game.pgn");
    ok(&arbiter(&[
        "pgn",
        "--match",
        &p.dir,
        "--game",
        "1",
        "--out",
        pgn_path.to_str().unwrap(),
    ]));
    let text = std::fs::read_to_string(&pgn_path).unwrap();
    let ours = parse_pgn(&text).unwrap();
    assert_eq!(ours.tag("TimeControl"), Some("40/7200:20/3600:1800"));
    assert_eq!(ours.tag("Result"), Some("0-1"));
    assert_eq!(ours.moves.len(), p.log.len());
    // (The real PGN's own %clk cannot be compared: its %emt values do not add up to it — by
    // ply 19 they sum to 1.0 s of White's time while its clock shows 2 s used.)
    for (i, (m, (san, _, spent, remaining))) in ours.moves.iter().zip(&p.log).enumerate() {
        assert_eq!(&m.san, san, "ply {i}");
        assert_eq!(
            m.san, p.original.moves[i].san,
            "ply {i}: the moves of the real game"
        );
        assert_eq!(
            m.clk_ms,
            Some(*remaining as u64 / 1000 * 1000),
            "ply {i}: %clk is the log's remaining time, rounded down"
        );
        assert_eq!(
            m.emt_ms,
            Some((spent + 500) / 1000 * 1000),
            "ply {i}: %emt is the log's time for the move"
        );
    }
    if tool("python3").is_some() {
        let code = "import chess.pgn,sys\ng=chess.pgn.read_game(open(sys.argv[1]))\nassert not g.errors, g.errors\nfor n in g.mainline():\n    print(n.move.uci(), round(n.clock()*1000), round(n.emt()*1000))\nprint(g.headers['Result'], g.end().board().is_checkmate())";
        let out = Command::new("python3")
            .arg("-c")
            .arg(code)
            .arg(&pgn_path)
            .output()
            .unwrap();
        let has_chess = out.status.success()
            || !String::from_utf8_lossy(&out.stderr).contains("No module named 'chess'");
        if !has_chess {
            assert!(
                std::env::var_os("CI").is_none(),
                "python-chess is required in CI"
            );
            println!("SKIPPED part of the test: python-chess is not installed");
        } else {
            let s = ok(&out);
            let lines: Vec<&str> = s.lines().collect();
            assert_eq!(lines.len(), p.log.len() + 1);
            for (l, (_, uci, spent, remaining)) in lines.iter().zip(&p.log) {
                assert_eq!(
                    *l,
                    format!(
                        "{uci} {} {}",
                        *remaining as u64 / 1000 * 1000,
                        (spent + 500) / 1000 * 1000
                    )
                );
            }
            assert_eq!(lines.last().copied(), Some("0-1 True"));
        }
    }
    if let Some(pe) = tool("pgn-extract") {
        let out = Command::new(pe)
            .args(["-Wuci", "--noresults", "-s"])
            .arg(&pgn_path)
            .output()
            .unwrap();
        let s = ok(&out);
        // pgn-extract writes promotions in upper case (a2a1Q)
        let ucis: Vec<String> = s
            .split_whitespace()
            .filter(|w| {
                !w.starts_with('[') && !w.starts_with('"') && !w.ends_with(']') && !w.ends_with('"')
            })
            .map(str::to_lowercase)
            .collect();
        let want: Vec<String> = p.log.iter().map(|(_, u, _, _)| u.clone()).collect();
        assert!(ucis.ends_with(&want), "pgn-extract read other moves:\n{s}");
        assert!(
            !String::from_utf8_lossy(&out.stderr)
                .to_lowercase()
                .contains("error"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The press is the time, on the real game: each move pressed at its real instant and its notation
/// typed 1.5 s later (or, when the reply came faster, after the reply's press: presses run ahead of
/// the notation). Every move's time and clock equal the move-and-press replay to the millisecond,
/// and the game ends in the same checkmate.
#[test]
fn realgame_press_then_notation_gives_the_same_clocks_to_the_millisecond() {
    let p = play_the_real_game();
    let mut script = String::from(
        "0 arbiter declare white human Human\n0 arbiter declare black machine Stockfish\n0 arbiter declare operator Op\n0 arbiter start\n",
    );
    let stamp = |t: u64| format!("{}.{:03}", t / 1000, t % 1000);
    let presses: Vec<u64> = p
        .original
        .moves
        .iter()
        .scan(0u64, |at, m| {
            *at += m.emt_ms.unwrap();
            Some(*at)
        })
        .collect();
    let mut ahead = 0;
    let mut waiting: std::collections::VecDeque<(u64, &str)> = Default::default();
    for (i, m) in p.original.moves.iter().enumerate() {
        let at = presses[i];
        // Notation typed before this press is entered first; the operator keeps up to within
        // three presses (the board takes four at most).
        while let Some((t, san)) = waiting.front().copied() {
            if t > at && waiting.len() < 3 {
                break;
            }
            script.push_str(&format!("{} move {san}\n", stamp(t.min(at))));
            waiting.pop_front();
        }
        script.push_str(&format!("{} press\n", stamp(at)));
        if !waiting.is_empty() {
            ahead += 1;
        }
        waiting.push_back((at + 1_500, &m.san));
    }
    let last = presses.last().copied().unwrap_or(0);
    for (t, san) in waiting {
        script.push_str(&format!("{} move {san}\n", stamp(t.max(last))));
    }
    assert!(
        ahead > 0,
        "some replies came faster than 1.5 s: presses ran ahead"
    );
    let lines = arbiter::core::script::parse_script(&script).unwrap();
    let mut s = arbiter::board::session::memory_session(
        Path::new("rules/kasparov-deep-junior-2003.toml"),
        "press",
        1,
    )
    .unwrap();
    let mut events = Vec::new();
    for l in &lines {
        events.extend(
            s.execute(&l.command, l.at)
                .unwrap_or_else(|e| panic!("{}: {e}", l.at)),
        );
    }
    let moves: Vec<(String, String, u64, i64)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::MoveMade {
                san,
                uci,
                spent_ms,
                remaining_ms,
                pressed_at: Some(_),
                ..
            } => Some((san.to_string(), uci.to_string(), *spent_ms, *remaining_ms)),
            _ => None,
        })
        .collect();
    assert_eq!(
        moves, p.log,
        "every move, time and clock as in the move-and-press replay"
    );
    assert_eq!(
        s.game.outcome().map(|o| o.score.text().to_string()),
        Some("0-1".to_string())
    );
}
