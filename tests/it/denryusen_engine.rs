//! A real USI engine's own log checked against Denryu-sen games: rule 13c's coverage
//! (every program move has a search with iterations, evaluations, time, and its `bestmove` is the
//! move played) and the audit of the clocks the engine was told (`go btime/wtime/binc/winc`)
//! against the official clock of 21/22.1. The fixtures `tests/fixtures/shogi/` are made by
//! `make.py` with Debian's `fairy-stockfish` speaking USI; one test regenerates them and compares.
//!
//! - `human-vs-engine/`: a human (sente, moves by hand) against the engine (gote), replayed from
//!   its script with clocks to the millisecond; the driver told the engine a drifted clock at three
//!   moves (two shown, one set right by a sync; the Denryu-sen rules owe no correction).
//! - `self-play/`: the engine against itself in one process (both sides in one log, 5.2 (1) two
//!   programs), replayed like a real game to its mate.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use arbiter::core::Side;
use arbiter::core::event::EventKind;
use arbiter::enginelog::{self, ClockGiven, CoverageStatus, LogFormat};

use crate::realgame::{arbiter, ok, tool};

const HUMAN_VS_ENGINE: &str = "human-vs-engine";
const SELF_PLAY: &str = "self-play";

fn fixture(set: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/shogi")
        .join(set)
        .join(name)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

/// The moves of a fixture's script: (ms since the start, USI move).
fn script_moves(set: &str) -> Vec<(u64, String)> {
    read(&fixture(set, "game.arb"))
        .lines()
        .filter_map(|l| {
            let (at, rest) = l.split_once(' ')?;
            let mv = rest.strip_prefix("move ")?;
            let (hms, ms) = at.split_once('.')?;
            let p: Vec<u64> = hms.split(':').map(|x| x.parse().unwrap()).collect();
            let t = ((p[0] * 60 + p[1]) * 60 + p[2]) * 1000 + ms.parse::<u64>().unwrap();
            Some((t, mv.to_string()))
        })
        .collect()
}

/// The Denryu-sen clocks (21, 22.1) done here: sente 180 s, gote 600 s; each move's time is the
/// time since the previous move floored to whole seconds, 2 s added after the move. Returns, per
/// move, `(clocks [sente, gote] when the move's turn began, the mover's clock after it)`.
fn denryusen_clocks(moves: &[(u64, String)]) -> Vec<([i64; 2], i64)> {
    let mut clock = [180_000i64, 600_000];
    let mut prev = 0u64;
    let mut out = Vec::new();
    for (i, (t, _)) in moves.iter().enumerate() {
        let before = clock;
        let floored = ((t - prev) / 1000 * 1000) as i64;
        clock[i % 2] += 2_000 - floored;
        out.push((before, clock[i % 2]));
        prev = *t;
    }
    out
}

/// The `go` lines of a fixture log with their `btime` and `wtime`, in order.
fn go_clocks(set: &str) -> Vec<(i64, i64)> {
    read(&fixture(set, "engine-debug.log"))
        .lines()
        .filter(|l| l.starts_with(">> go "))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let v = |k: &str| {
                let at = w.iter().position(|x| *x == k).unwrap();
                w[at + 1].parse::<i64>().unwrap()
            };
            (v("btime"), v("wtime"))
        })
        .collect()
}

struct Archived {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    script_out: String,
    out: String,
}

/// A fixture game played through `arbiter script` under the 2024 profile, then the engine's log
/// archived in two copies (13a).
fn archived(set: &str) -> Archived {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/denryusen-2024.toml");
    let script_out = ok(&arbiter(&[
        "script",
        fixture(set, "game.arb").to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
        "--rules",
        rules.to_str().unwrap(),
    ]));
    let text = read(&fixture(set, "engine-debug.log"));
    let (a, b) = (tmp.path().join("a.log"), tmp.path().join("b.log"));
    std::fs::write(&a, &text).unwrap();
    std::fs::write(&b, &text).unwrap();
    let out = ok(&arbiter(&[
        "archive",
        "--match",
        dir.to_str().unwrap(),
        "--game",
        "1",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]));
    Archived {
        _tmp: tmp,
        dir,
        script_out,
        out,
    }
}

fn events(dir: &Path) -> Vec<arbiter::core::event::Event> {
    let entries = arbiter::record::journal::read_entries(&dir.join("game-1/log.jsonl")).unwrap();
    arbiter::log::codec::events_of(&entries).unwrap()
}

fn archive_body(dir: &Path) -> serde_json::Value {
    let entries = arbiter::record::journal::read_entries(&dir.join("game-1/log.jsonl")).unwrap();
    entries
        .into_iter()
        .rev()
        .find(|e| e.kind == "engine_log_archived")
        .unwrap()
        .body
}

/// Every move of the game as recorded: (USI, spent ms, the mover's clock after it).
fn recorded_moves(dir: &Path) -> Vec<(String, u64, i64)> {
    events(dir)
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
        .collect()
}

/// The game's clocks to the millisecond against 22.1's arithmetic done here.
fn clocks_match_the_arithmetic(set: &str, dir: &Path) {
    let moves = script_moves(set);
    let recorded = recorded_moves(dir);
    assert_eq!(recorded.len(), moves.len());
    let mut prev = 0;
    for (i, ((t, usi), ((_, after), (r_usi, spent, remaining)))) in moves
        .iter()
        .zip(denryusen_clocks(&moves).iter().zip(&recorded))
        .enumerate()
    {
        assert_eq!(r_usi, usi, "move {}", i + 1);
        assert_eq!(*spent, (t - prev) / 1000 * 1000, "move {}: floored", i + 1);
        assert_eq!(remaining, after, "move {}: the mover's clock", i + 1);
        prev = *t;
    }
}

#[test]
fn denryusen_13c_a_real_usi_engines_log_covers_every_program_move_and_its_go_times_are_audited() {
    let a = archived(HUMAN_VS_ENGINE);
    assert!(a.script_out.contains("result: 0-1"), "{}", a.script_out);
    let moves = script_moves(HUMAN_VS_ENGINE);
    let program_moves = moves.len() / 2;
    assert_eq!(program_moves, 30);
    assert!(
        a.out.contains("28.1: 30/30 machine moves covered"),
        "{}",
        a.out
    );
    // The engine (gote) was told 2:30 less at its 4th move (the game's 8th) and 1:00 more at its
    // 6th (12th): both shown (22.3 sets no threshold: every whole second counts, nothing is
    // owed); 2:10 less at its 8th (16th), which the operator set right in the turn.
    assert!(
        a.out.contains(
            "22.3: 30/30 machine moves show the clock given; no rule on the engine's own clock, no \
             correction owed; 2 differed from the official clock by 0:00:01 or more with no sync \
             recorded: move 8 △６二銀, move 12 △１四歩; 1 more differed that much but a sync was \
             recorded in the turn"
        ),
        "{}",
        a.out
    );
    let body = archive_body(&a.dir);
    assert_eq!(body["coverage"]["format"], "usi");
    assert_eq!(body["coverage"]["status"], "complete");
    // Every program move: the search's bestmove is the move on the board, in USI.
    for (c, (_, usi)) in body["coverage"]["moves"]
        .as_array()
        .unwrap()
        .iter()
        .zip(moves.iter().skip(1).step_by(2))
    {
        assert_eq!(c["bestmove"], usi.as_str(), "{c}");
        assert_eq!(c["uci"], usi.as_str(), "{c}");
        assert!(c["san"].as_str().unwrap().starts_with('△'), "{c}");
    }
    // The audit: the engine's own clock (`wtime`: gote's) from its log against the official clock
    // when its turn began, by 22.1's arithmetic done here.
    let clocks = denryusen_clocks(&moves);
    let gos = go_clocks(HUMAN_VS_ENGINE);
    let checks = body["clock_audit"]["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 30);
    for (k, c) in checks.iter().enumerate() {
        let ply = 2 * k + 1;
        let official = clocks[ply].0[1];
        let (btime, wtime) = gos[k];
        assert_eq!(c["ply"], ply, "{c}");
        assert_eq!(c["source"], "go btime/wtime");
        assert_eq!(c["official_ms"], official, "{c}");
        assert_eq!(c["given_ms"], wtime, "{c}");
        // The human's clock the engine was told is the official one at every move.
        assert_eq!(btime, clocks[ply].0[0], "move {}", ply + 1);
        let drift: i64 = match k + 1 {
            4 => -150_000,
            6 => 60_000,
            8 => -130_000,
            _ => 0,
        };
        assert_eq!(c["diff_ms"], drift, "{c}");
        assert_eq!(c["beyond_threshold"], drift.abs() >= 1000, "{c}");
        assert_eq!(c["synced"], k + 1 == 8, "{c}");
    }
    assert_eq!(body["clock_audit"]["unsynced"], serde_json::json!([7, 11]));
    assert_eq!(body["clock_audit"]["sync_rule"], false);

    // The committee report shows both, the reported move in Japanese notation.
    let md = a.dir.join("report.md");
    ok(&arbiter(&[
        "report",
        "--match",
        a.dir.to_str().unwrap(),
        "--game",
        "1",
        "--markdown",
        "--out",
        md.to_str().unwrap(),
    ]));
    let md = read(&md);
    assert!(
        md.contains("- Coverage (28.1): **30/30 machine moves covered**"),
        "{md}"
    );
    assert!(
        md.contains(
            "- Move 8 △６二銀: the engine was given 0:07:20 (go btime/wtime, search at line 31) \
             when the official clock showed 0:09:50 (-0:02:30); no sync recorded"
        ),
        "{md}"
    );
}

#[test]
fn denryusen_22_1_a_human_vs_engine_game_from_its_script_to_the_ms() {
    let a = archived(HUMAN_VS_ENGINE);
    clocks_match_the_arithmetic(HUMAN_VS_ENGINE, &a.dir);
    // The human resigned after the program's 30th move, named as shogi names the side.
    assert!(
        a.script_out
            .contains("result: 0-1 (Resignation: the human (sente) resigned)"),
        "{}",
        a.script_out
    );
    let end = events(&a.dir)
        .into_iter()
        .find(|e| e.kind_name() == "game_ended")
        .unwrap();
    assert_eq!(end.clause, "13.1");
}

#[test]
fn denryusen_13c_an_engine_against_itself_replayed_with_its_own_log() {
    let a = archived(SELF_PLAY);
    let moves = script_moves(SELF_PLAY);
    // Replayed like a real game: the kit finds the mate the engine's last move gave.
    assert!(
        a.script_out
            .contains("result: 0-1 (Checkmate: sente is checkmated)"),
        "{}",
        a.script_out
    );
    clocks_match_the_arithmetic(SELF_PLAY, &a.dir);
    // Two programs (5.2 (1)) in one process and one log: every move of both sides is covered.
    let n = moves.len();
    assert!(
        a.out
            .contains(&format!("28.1: {n}/{n} machine moves covered")),
        "{}",
        a.out
    );
    assert!(
        a.out.contains(&format!(
            "22.3: {n}/{n} machine moves show the clock given; no rule on the engine's own \
             clock, no correction owed; none differed from the official clock by 0:00:01 or more \
             without a sync"
        )),
        "{}",
        a.out
    );
    // The engine's clock is the side to move's: `btime` for sente's searches, `wtime` for gote's,
    // each the official clock by the arithmetic done here.
    let clocks = denryusen_clocks(&moves);
    let gos = go_clocks(SELF_PLAY);
    assert_eq!(gos.len(), n);
    let body = archive_body(&a.dir);
    for (ply, (c, (btime, wtime))) in body["clock_audit"]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&gos)
        .enumerate()
    {
        assert_eq!(c["ply"], ply);
        assert_eq!((*btime, *wtime), (clocks[ply].0[0], clocks[ply].0[1]));
        let own = if ply % 2 == 0 { *btime } else { *wtime };
        assert_eq!(
            (c["given_ms"].clone(), c["diff_ms"].clone()),
            (own.into(), 0.into())
        );
    }
    // The kit's CSA record has the engine's moves, in order, each its bestmove.
    let csa = ok(&arbiter(&[
        "record",
        "--match",
        a.dir.to_str().unwrap(),
        "--game",
        "1",
        "--format",
        "csa",
    ]));
    let csa_moves = csa
        .lines()
        .filter(|l| l.len() == 7 && (l.starts_with('+') || l.starts_with('-')))
        .count();
    assert_eq!(csa_moves, n);
    let best: Vec<String> = read(&fixture(SELF_PLAY, "engine-debug.log"))
        .lines()
        .filter_map(|l| l.strip_prefix("<< bestmove "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    let usi: Vec<String> = moves.iter().map(|(_, m)| m.clone()).collect();
    assert_eq!(best, usi);
}

#[test]
fn denryusen_13c_a_usi_log_is_told_from_uci_and_what_it_lacks_is_named() {
    let text = read(&fixture(HUMAN_VS_ENGINE, "engine-debug.log"));
    let log = enginelog::parse_str(&text);
    assert_eq!(log.format, LogFormat::Usi);
    assert_eq!(log.searches.len(), 30);
    assert!(log.searches.iter().all(|s| s.position.is_some()));
    assert!(matches!(
        log.searches[0].clock,
        Some(ClockGiven::Usi {
            btime_ms: Some(_),
            wtime_ms: Some(600_000),
            binc_ms: Some(2_000),
            winc_ms: Some(2_000),
            byoyomi_ms: None,
            sente_to_move: Some(false),
        })
    ));
    // A chess engine's UCI log is still UCI (the shared words do not make it USI).
    let chess = read(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stockfish-6c/engine-debug.log"),
    );
    assert_eq!(enginelog::parse_str(&chess).format, LogFormat::UciDebug);

    let usi: Vec<String> = script_moves(HUMAN_VS_ENGINE)
        .into_iter()
        .map(|(_, m)| m)
        .collect();
    let start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    let mm = enginelog::machine_moves_from_usi(start, &usi, &[Side::Black]).unwrap();
    assert_eq!(mm.len(), 30);
    assert_eq!(mm[0].move_number, 2);
    assert!(mm[0].fen_before.ends_with(" w - 2"), "{}", mm[0].fen_before);
    assert_eq!(
        enginelog::coverage(&log, &mm).status,
        CoverageStatus::Complete
    );

    // A `go` the engine's log wrote twice (as Fairy-Stockfish's may on a loaded machine) opens an
    // empty search that is left unmatched: the moves stay covered.
    let first_go = text.lines().find(|l| l.starts_with(">> go ")).unwrap();
    let doubled = text.replacen(first_go, &format!("{first_go}\n{first_go}"), 1);
    let c = enginelog::coverage(&enginelog::parse_str(&doubled), &mm);
    assert_eq!(
        (c.status, c.searches_in_log, c.searches_unmatched),
        (CoverageStatus::Complete, 31, 1)
    );

    // The engine's 3rd move altered in a copy of the log: that move is named, the rest covered.
    let third = &usi[5];
    let altered = text.replacen(&format!("<< bestmove {third}"), "<< bestmove 9c9d", 1);
    let c = enginelog::coverage(&enginelog::parse_str(&altered), &mm);
    assert_eq!((c.covered, c.status), (29, CoverageStatus::Incomplete));
    assert!(
        c.summary
            .contains("move 6: the engine chose 9c9d, the board has"),
        "{}",
        c.summary
    );
    // A search's iterations cut out: "no search iterations" for that move.
    let mut cut = String::new();
    let mut searches = 0;
    for l in text.lines() {
        if l.starts_with(">> go ") {
            searches += 1;
        }
        if searches == 2 && l.starts_with("<< info ") {
            continue;
        }
        cut.push_str(l);
        cut.push('\n');
    }
    let c = enginelog::coverage(&enginelog::parse_str(&cut), &mm);
    assert!(
        c.summary
            .contains("move 4: no search iterations, no time taken"),
        "{}",
        c.summary
    );
    // A game move the log never searched (a different game): no search for that position.
    let other =
        enginelog::machine_moves_from_usi(start, &["2g2f", "8c8d"], &[Side::Black]).unwrap();
    let c = enginelog::coverage(&log, &other);
    assert!(
        c.summary
            .contains("move 2: no search for this position in the log"),
        "{}",
        c.summary
    );
    // An illegal move in the game record is refused, naming it.
    let err =
        enginelog::machine_moves_from_usi(start, &["7g7f", "7g7f"], &[Side::Black]).unwrap_err();
    assert!(err.to_string().contains("machine move 1"), "{err}");
}

#[test]
fn denryusen_13c_the_fixtures_are_what_fairy_stockfish_writes() {
    // make.py run again with Debian's fairy-stockfish gives the same games and the same commands
    // to the engine (its `time`/`nps` figures vary from run to run).
    let Some(_) = tool("fairy-stockfish") else {
        return;
    };
    let Some(python) = tool("python3") else {
        return;
    };
    let has_shogi = std::process::Command::new(&python)
        .args(["-c", "import shogi"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_shogi {
        assert!(
            std::env::var_os("CI").is_none(),
            "python-shogi is required in CI (.ci/run installs it)"
        );
        println!("SKIPPED: python-shogi is not installed");
        return;
    }
    // The lines the engine read and its moves. On a loaded machine Fairy-Stockfish's debug log
    // (its tie of standard input) now and then writes an input line twice in a row (seen once in
    // six parallel runs: `>> go ...` doubled): a repeat is collapsed.
    let to_engine = |t: String| -> Vec<String> {
        let mut out: Vec<String> = t
            .lines()
            .filter(|l| l.starts_with(">> ") || l.starts_with("<< bestmove"))
            .map(str::to_string)
            .collect();
        out.dedup();
        out
    };
    // One regeneration: what differs from the committed fixtures, if anything.
    let regenerate = || -> Option<String> {
        let tmp = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(&python)
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shogi/make.py"))
            .arg(tmp.path())
            .output()
            .unwrap();
        if !out.status.success() {
            return Some(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        for set in [HUMAN_VS_ENGINE, SELF_PLAY] {
            let (game_new, game_old) = (
                read(&tmp.path().join(set).join("game.arb")),
                read(&fixture(set, "game.arb")),
            );
            if game_new != game_old {
                return Some(format!("{set}: game.arb differs"));
            }
            let (new, old) = (
                to_engine(read(&tmp.path().join(set).join("engine-debug.log"))),
                to_engine(read(&fixture(set, "engine-debug.log"))),
            );
            let first = new.iter().zip(&old).position(|(a, b)| a != b);
            if first.is_some() || new.len() != old.len() {
                return Some(format!(
                    "{set}: line {first:?} differs: {:?} / {:?} ({} and {} lines)",
                    first.and_then(|k| new.get(k)),
                    first.and_then(|k| old.get(k)),
                    new.len(),
                    old.len()
                ));
            }
        }
        None
    };
    // The engine is a separate program whose debug log, under heavy load, was once seen to differ
    // from run to run in a line of its own making (the game itself did not): a regeneration that
    // differs is tried again, up to three runs, and the test fails only when none reproduces the
    // fixtures.
    let mut last = None;
    for _ in 0..3 {
        match regenerate() {
            None => return,
            Some(why) => last = Some(why),
        }
    }
    panic!("make.py did not reproduce the fixtures in 3 runs: {last:?}");
}

/// The self-play log cut in two as two programs would have written it, one process each: the
/// lines before the first search go to both; each search (`position` to `bestmove`) to the side
/// to move (sente when the position has an even number of moves).
fn split_by_side(text: &str) -> [String; 2] {
    let mut out = [String::new(), String::new()];
    let mut to: Option<usize> = None;
    for l in text.lines() {
        if let Some(p) = l.strip_prefix(">> position ") {
            let moves = p
                .split_once(" moves ")
                .map_or(0, |(_, m)| m.split_whitespace().count());
            to = Some(moves % 2);
        }
        let line = format!("{l}\n");
        match to {
            Some(i) => out[i].push_str(&line),
            None => out.iter_mut().for_each(|o| o.push_str(&line)),
        }
    }
    out
}

/// Archive `text` in two copies (13a) for game 1, with `extra` options.
fn archive_log(dir: &Path, name: &str, text: &str, extra: &[&str]) -> std::process::Output {
    let (a, b) = (
        dir.join(format!("{name}-a.log")),
        dir.join(format!("{name}-b.log")),
    );
    std::fs::write(&a, text).unwrap();
    std::fs::write(&b, text).unwrap();
    let mut args = vec!["archive", "--match", dir.to_str().unwrap(), "--game", "1"];
    args.extend_from_slice(extra);
    args.extend([a.to_str().unwrap(), b.to_str().unwrap()]);
    arbiter(&args)
}

/// Two different programs (5.2 (1)) hand over a log each (28.1): `archive --side` checks each
/// program's moves against its own log, coverage per side, and the entry names the side; without
/// `--side` one program's log misses the other's moves; a human's side has no log (refused).
#[test]
fn denryusen_28_1_two_programs_each_checked_against_its_own_log() {
    let a = archived(SELF_PLAY);
    let n = script_moves(SELF_PLAY).len();
    let (ns, ng) = (n.div_ceil(2), n / 2);
    let [sente, gote] = split_by_side(&read(&fixture(SELF_PLAY, "engine-debug.log")));
    // One program's log as if it were the only one: the other side's moves are missing.
    let whole = ok(&archive_log(&a.dir, "sente-whole", &sente, &[]));
    assert!(
        whole.contains(&format!("28.1: {ns}/{n} machine moves covered")),
        "{whole}"
    );
    for (side, text, k) in [("sente", &sente, ns), ("gote", &gote, ng)] {
        let out = ok(&archive_log(&a.dir, side, text, &["--side", side]));
        assert!(
            out.contains(&format!(
                "28.1 ({side}'s program): {k}/{k} machine moves covered"
            )),
            "{out}"
        );
        assert!(
            out.contains(&format!(
                "22.3 ({side}'s program): {k}/{k} machine moves show the clock given"
            )),
            "{out}"
        );
        let body = archive_body(&a.dir);
        assert_eq!(body["side"], side);
        let checks = body["clock_audit"]["checks"].as_array().unwrap();
        assert_eq!(checks.len(), k);
        let parity = usize::from(side == "gote");
        assert!(
            checks
                .iter()
                .all(|c| c["ply"].as_u64().unwrap() as usize % 2 == parity)
        );
    }
    // Every archive entry of the shogi game cites article 28.1, not the 2003 clauses.
    let entries = arbiter::record::journal::read_entries(&a.dir.join("game-1/log.jsonl")).unwrap();
    let logs: Vec<_> = entries
        .iter()
        .filter(|e| e.kind == "engine_log_archived")
        .map(|e| e.clause.as_str())
        .collect();
    assert_eq!(logs, ["28.1"; 4]);
    // The report cites the same articles and names each program's log.
    let report = ok(&arbiter(&[
        "report",
        "--match",
        a.dir.to_str().unwrap(),
        "--game",
        "1",
        "--markdown",
    ]));
    let md = read(Path::new(report.trim()));
    for side in ["sente", "gote"] {
        assert!(
            md.contains(&format!("Log file of {side}'s program")),
            "{md}"
        );
    }
    assert!(
        md.contains(&format!(
            "- Coverage (28.1): **{ns}/{ns} machine moves covered"
        )),
        "{md}"
    );
    assert!(
        md.contains("- Internal clock (22.3), from the engine's log"),
        "{md}"
    );
    assert!(
        !md.contains("Coverage (13c)") && !md.contains("Internal clock (6c)"),
        "{md}"
    );
    let html = ok(&arbiter(&[
        "report",
        "--match",
        a.dir.to_str().unwrap(),
        "--game",
        "1",
    ]));
    let html = read(Path::new(html.trim()));
    assert!(html.contains("Coverage (28.1)") && html.contains("Internal clock (22.3)"));
    assert!(!html.contains("Coverage (13c)") && !html.contains("Internal clock (6c)"));

    // A human's side has no engine log: refused, naming the side and 5.2.
    let h = archived(HUMAN_VS_ENGINE);
    let out = archive_log(&h.dir, "human", &sente, &["--side", "sente"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("sente is not a program") && err.contains("5.2"),
        "{err}"
    );
}
