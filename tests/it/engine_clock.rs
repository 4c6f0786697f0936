//! Rule 6c audited from the engine's own log: the clock a real Stockfish was given at
//! each search (`go wtime/btime`) against the official clock, through `arbiter archive` and
//! `arbiter report`, and the clock a real Fairy-Max was given over CECP (`time/otim`). The fixtures
//! `tests/fixtures/stockfish-6c/` and `tests/fixtures/fairymax-6c/` are made by their `make.py`
//! with Debian's `stockfish` and `fairymax`; one test regenerates them and compares.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use arbiter::enginelog::{self, ClockGiven};

use crate::pgn_support::read_real;
use crate::realgame::{arbiter, ok, play_the_real_game, tool};

const STOCKFISH: &str = "stockfish-6c";
const FAIRYMAX: &str = "fairymax-6c";

fn fixture_in(set: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(set)
        .join(name)
}

fn fixture(name: &str) -> PathBuf {
    fixture_in(STOCKFISH, name)
}

struct Archived {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    out: String,
}

/// The Stockfish fixture game played through `arbiter script`, then its engine log archived.
fn archived() -> Archived {
    archived_set(STOCKFISH)
}

/// A fixture game played through `arbiter script`, then its engine log archived in two copies.
fn archived_set(set: &str) -> Archived {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    ok(&arbiter(&[
        "script",
        fixture_in(set, "game.arb").to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
    ]));
    let text = std::fs::read_to_string(fixture_in(set, "engine-debug.log")).unwrap();
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
        out,
    }
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

/// The `btime` of the `go` that follows the k-th (1-based) `position` line of the fixture log.
fn btime_in_log(k: usize) -> i64 {
    let text = std::fs::read_to_string(fixture("engine-debug.log")).unwrap();
    let go = text
        .lines()
        .filter(|l| l.starts_with(">> go "))
        .nth(k - 1)
        .unwrap();
    let w: Vec<&str> = go.split_whitespace().collect();
    let at = w.iter().position(|x| *x == "btime").unwrap();
    w[at + 1].parse().unwrap()
}

#[test]
fn clause_6c_archive_reports_the_machine_move_whose_engine_clock_differed_with_no_sync() {
    let a = archived();
    assert!(
        a.out.contains("13c: 12/12 machine moves covered"),
        "{}",
        a.out
    );
    assert!(
        a.out.contains(
            "6c: 12/12 machine moves show the clock given; 1 differed from the official clock by \
             0:02:00 or more with no sync recorded: move 4 b6; 1 more differed that much but a \
             sync was recorded in the turn"
        ),
        "{}",
        a.out
    );
    let audit = &archive_body(&a.dir)["clock_audit"];
    assert_eq!(audit["threshold_ms"], 120_000);
    assert_eq!(audit["with_clock"], 12);
    // Black's 4th move is ply 7.
    assert_eq!(audit["unsynced"], serde_json::json!([7]));
    let checks = audit["checks"].as_array().unwrap();
    let by_move = |n: u64| {
        checks
            .iter()
            .find(|c| c["move_number"] == n)
            .unwrap()
            .clone()
    };
    // Move 4: the engine's btime from its own log; the official clock by rule 3's arithmetic
    // (2 h less three machine moves of 30 s each).
    let m4 = by_move(4);
    assert_eq!(m4["given_ms"], btime_in_log(4));
    assert_eq!(m4["official_ms"], 7_200_000 - 3 * 30_000);
    assert_eq!(m4["diff_ms"], btime_in_log(4) - (7_200_000 - 3 * 30_000));
    assert_eq!(m4["beyond_threshold"], true);
    assert_eq!(m4["synced"], false);
    assert_eq!(m4["source"], "go wtime/btime");
    // Move 6: a minute off, under the threshold.
    let m6 = by_move(6);
    assert_eq!(m6["beyond_threshold"], false);
    assert_eq!(m6["diff_ms"], 60_000 - 250);
    // Move 8: three minutes off, but the operator synchronised the internal clock in that turn.
    let m8 = by_move(8);
    assert_eq!(m8["beyond_threshold"], true);
    assert_eq!(m8["synced"], true);
    // Every other move: the GUI's 250 ms of operator lag, nothing to report.
    for c in checks {
        if ![4, 6, 8].contains(&c["move_number"].as_u64().unwrap()) {
            assert_eq!(c["diff_ms"], -250, "{c}");
        }
    }
}

#[test]
fn clause_6c_cecp_time_in_centiseconds_from_a_real_fairymax_against_the_official_clock() {
    let a = archived_set(FAIRYMAX);
    assert!(
        a.out.contains("13c: 10/10 machine moves covered"),
        "{}",
        a.out
    );
    assert!(
        a.out.contains(
            "6c: 10/10 machine moves show the clock given; 1 differed from the official clock by \
             0:02:00 or more with no sync recorded: move 3 Nf3; 1 more differed that much but a \
             sync was recorded in the turn"
        ),
        "{}",
        a.out
    );
    let body = archive_body(&a.dir);
    assert_eq!(body["coverage"]["format"], "cecp");
    let checks = body["clock_audit"]["checks"].as_array().unwrap().clone();
    // The `time` Fairy-Max was sent before its 3rd search, centiseconds to milliseconds.
    let text = std::fs::read_to_string(fixture_in(FAIRYMAX, "engine-debug.log")).unwrap();
    let third_time: i64 = text
        .lines()
        .filter_map(|l| l.split_once(">first : time "))
        .nth(2)
        .unwrap()
        .1
        .parse()
        .unwrap();
    let m3 = checks.iter().find(|c| c["move_number"] == 3).unwrap();
    assert_eq!(m3["given_ms"], third_time * 10);
    assert_eq!(m3["source"], "time/otim");
    // White (the machine) has made two moves of 40 s before its 3rd.
    assert_eq!(m3["official_ms"], 7_200_000 - 2 * 40_000);
    assert_eq!(m3["diff_ms"], -180_250);
    let m5 = checks.iter().find(|c| c["move_number"] == 5).unwrap();
    assert_eq!(m5["beyond_threshold"], false);
    let m7 = checks.iter().find(|c| c["move_number"] == 7).unwrap();
    assert_eq!(
        (m7["beyond_threshold"].clone(), m7["synced"].clone()),
        (true.into(), true.into())
    );
    assert_eq!(body["clock_audit"]["unsynced"], serde_json::json!([4]));
}

#[test]
fn clause_6c_report_shows_the_audit_beside_the_13c_coverage_and_13e_keeps_the_figures() {
    let a = archived();
    let md = |public: bool| {
        let out = a.dir.join(if public { "p.md" } else { "c.md" });
        let mut args = vec![
            "report",
            "--match",
            a.dir.to_str().unwrap(),
            "--game",
            "1",
            "--markdown",
            "--out",
            out.to_str().unwrap(),
        ];
        if public {
            args.push("--public");
        }
        ok(&arbiter(&args));
        std::fs::read_to_string(out).unwrap()
    };
    let committee = md(false);
    let coverage = committee
        .find("- Coverage (13c): **12/12 machine moves covered**")
        .unwrap();
    let audit = committee
        .find("- Internal clock (6c), from the engine's log: **12/12 machine moves show the clock given; 1 differed")
        .unwrap();
    assert!(audit > coverage && audit - coverage < 200, "{committee}");
    assert!(
        committee.contains(
            "- Move 4 b6: the engine was given 1:55:59 (go wtime/btime, search at line 41) when \
             the official clock showed 1:58:30 (-0:02:30); no sync recorded (6c)"
        ),
        "{committee}"
    );
    let public = md(true);
    assert!(public.contains("- Internal clock (6c), from the engine's log: **"));
    assert!(!public.contains("the engine was given"), "{public}");
    assert!(!public.contains("clock_audit.checks"), "{public}");

    let html = a.dir.join("r.html");
    ok(&arbiter(&[
        "report",
        "--match",
        a.dir.to_str().unwrap(),
        "--game",
        "1",
        "--out",
        html.to_str().unwrap(),
    ]));
    let html = std::fs::read_to_string(html).unwrap();
    assert!(
        html.contains("Internal clock (6c), from the engine&#39;s log"),
        "{html}"
    );
    assert!(html.contains("the engine was given 1:55:59"), "{html}");
}

#[test]
fn clause_6c_a_log_that_shows_no_clock_is_said_not_audited() {
    // The real Stockfish game was played with `go movetime 100`: no clock was given.
    let p = play_the_real_game();
    let tmp = tempfile::tempdir().unwrap();
    let text = read_real("machine-debug.log").unwrap();
    let (a, b) = (tmp.path().join("a.log"), tmp.path().join("b.log"));
    std::fs::write(&a, &text).unwrap();
    std::fs::write(&b, &text).unwrap();
    let out = ok(&arbiter(&[
        "archive",
        "--match",
        &p.dir,
        "--game",
        "1",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]));
    assert!(
        out.contains(
            "6c: the log shows no clock given to the engine for any of the 53 machine moves (no \
             go wtime/btime, no time/otim): not audited"
        ),
        "{out}"
    );
}

#[test]
fn clause_6c_clocks_given_as_the_protocols_write_them() {
    // UCI: milliseconds, either side, a negative time as some GUIs send it.
    let log = enginelog::parse_str(
        ">> position startpos moves e2e4\n>> go wtime 7190000 btime -1500 winc 0 binc 0\n\
         << info depth 1 score cp 10 time 1 pv e7e5\n<< bestmove e7e5\n",
    );
    assert_eq!(
        log.searches[0].clock,
        Some(ClockGiven::Uci {
            wtime_ms: Some(7_190_000),
            btime_ms: Some(-1500)
        })
    );
    assert_eq!(log.searches[0].clock.unwrap().engine_ms(false), Some(-1500));
    // `go movetime`: no clock.
    let log = enginelog::parse_str(">> position startpos\n>> go movetime 100\n<< bestmove e2e4\n");
    assert_eq!(log.searches[0].clock, None);
    // CECP: centiseconds, the engine's own clock first; used by the next search only.
    let log = enginelog::parse_str(
        "xboard\nnew\ntime 719000\notim 718500\nusermove e2e4\n1 12 0 20 e7e5\nmove e7e5\n\
         usermove g1f3\n1 10 0 30 b8c6\nmove b8c6\n",
    );
    assert_eq!(
        log.searches[0].clock,
        Some(ClockGiven::Cecp {
            time_ms: Some(7_190_000),
            otim_ms: Some(7_185_000)
        })
    );
    assert_eq!(log.searches[1].clock, None);
}

#[test]
fn clause_6c_the_fixtures_are_what_stockfish_and_fairymax_write() {
    // make.py run again with Debian's engines gives the same game and the same commands to the
    // engine (its search figures `time`/`nps` and the stamps vary from run to run).
    let Some(_) = tool("stockfish") else { return };
    let Some(_) = tool("fairymax") else { return };
    let Some(python) = tool("python3") else {
        return;
    };
    let has_chess = std::process::Command::new(&python)
        .args(["-c", "import chess"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_chess {
        assert!(
            std::env::var_os("CI").is_none(),
            "python-chess is required in CI (.ci/run installs it)"
        );
        println!("SKIPPED: python-chess is not installed");
        return;
    }
    for (set, to_engine, moves) in [
        (STOCKFISH, ">> ", "<< bestmove"),
        (FAIRYMAX, ">first : ", "<first : move "),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(&python)
            .arg(fixture_in(set, "make.py"))
            .arg(tmp.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{set}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let read = |p: PathBuf| std::fs::read_to_string(p).unwrap();
        assert_eq!(
            read(tmp.path().join("game.arb")),
            read(fixture_in(set, "game.arb")),
            "{set}"
        );
        let commands = |t: String| -> Vec<String> {
            t.lines()
                .map(|l| {
                    l.split_once(' ')
                        .filter(|_| set == FAIRYMAX)
                        .map_or(l, |(_, r)| r)
                })
                .filter(|l| l.starts_with(to_engine) || l.starts_with(moves))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        // Stockfish's debug logger can write a received line twice when the machine is loaded
        // (seen once in CI: `>> go wtime … depth 8` twice in a row); a command repeated at once
        // carries nothing the audit reads, so consecutive repeats count once.
        let commands = |t: String| -> Vec<String> {
            let mut v = commands(t);
            v.dedup();
            v
        };
        let fresh = commands(read(tmp.path().join("engine-debug.log")));
        assert!(fresh.len() > 20, "{set}: {fresh:?}");
        assert_eq!(
            fresh,
            commands(read(fixture_in(set, "engine-debug.log"))),
            "{set}"
        );
    }
}
