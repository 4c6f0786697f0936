//! Rule 13 through the kit: the machine's log handed over in at least two copies within 30
//! minutes (13a), its content checked (13c), the program copy (13d), and the public release that
//! leaves out what 13e keeps confidential.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use crate::pgn_support::{read_real, real_data};
use crate::realgame::{arbiter, ok, play_the_real_game};

fn last_entry(dir: &str, kind: &str) -> arbiter::log::Entry {
    let entries =
        arbiter::record::journal::read_entries(&Path::new(dir).join("game-1/log.jsonl")).unwrap();
    entries.into_iter().rev().find(|e| e.kind == kind).unwrap()
}

fn copies(text: &str) -> (tempfile::TempDir, String, String) {
    let t = tempfile::tempdir().unwrap();
    let (a, b) = (t.path().join("a.log"), t.path().join("b.log"));
    std::fs::write(&a, text).unwrap();
    std::fs::write(&b, text).unwrap();
    (t, a.display().to_string(), b.display().to_string())
}

#[test]
fn clause_13a_two_copies_needed_and_late_delivery_accepted_but_flagged() {
    let p = play_the_real_game();
    let (_t, a, b) = copies(&read_real("machine-debug.log").unwrap());
    let refused = arbiter(&["archive", "--match", &p.dir, "--game", "1", &a]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("rule 13a"));
    // Delivered 31 minutes after the end of the game: accepted, flagged, citing 13a.
    let end = last_entry(&p.dir, "game_ended");
    let end_utc = chrono::DateTime::parse_from_rfc3339(&end.utc).unwrap();
    let delivered = (end_utc + chrono::Duration::minutes(31)).to_rfc3339();
    let out = ok(&arbiter(&[
        "archive",
        "--match",
        &p.dir,
        "--game",
        "1",
        &a,
        &b,
        "--delivered",
        &delivered,
    ]));
    assert!(
        out.contains("13a: delivered 0:31:00 after the end of the game, later than 0:30:00"),
        "{out}"
    );
    let e = last_entry(&p.dir, "engine_log_archived");
    assert_eq!(e.clause, "13a");
    assert_eq!(e.body["late"], true);
    assert_eq!(e.body["after_game_end_ms"], 31 * 60_000);
}

#[test]
fn clause_13a_delivery_time_before_the_end_of_the_game_is_refused_and_nothing_stored() {
    let p = play_the_real_game();
    let (_t, a, b) = copies(&read_real("machine-debug.log").unwrap());
    let log = Path::new(&p.dir).join("game-1/log.jsonl");
    let before = std::fs::read(&log).unwrap();
    let end = last_entry(&p.dir, "game_ended");
    let end_utc = chrono::DateTime::parse_from_rfc3339(&end.utc).unwrap();
    let delivered = (end_utc - chrono::Duration::minutes(1)).to_rfc3339();
    let out = arbiter(&[
        "archive",
        "--match",
        &p.dir,
        "--game",
        "1",
        &a,
        &b,
        "--delivered",
        &delivered,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("refused (rule 13a)"), "{err}");
    assert!(err.contains("0:01:00 before the end of the game"), "{err}");
    assert_eq!(std::fs::read(&log).unwrap(), before, "the log is unchanged");
    assert!(
        !Path::new(&p.dir).join("game-1/engine").exists(),
        "nothing stored"
    );
}

#[test]
fn clause_13c_coverage_names_the_move_whose_search_shows_no_evaluation() {
    let p = play_the_real_game();
    // Black's 23rd move (…Rfd8) is the 46th ply: strip the scores of the search that chose it.
    let text = read_real("machine-debug.log").unwrap();
    let mut out = String::new();
    let mut in_search = false;
    for line in text.lines() {
        if line.starts_with(">> position") {
            in_search = line.split_whitespace().count() == 4 + 45; // ">> position startpos moves" + 45 plies
        }
        if in_search && line.starts_with("<< info depth") {
            let cut: Vec<&str> = line.split_whitespace().collect();
            let mut kept = Vec::new();
            let mut skip = 0;
            for w in cut {
                if skip > 0 {
                    skip -= 1;
                    continue;
                }
                if w == "score" {
                    skip = 2;
                    continue;
                }
                kept.push(w);
            }
            out.push_str(&kept.join(" "));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    let (_t, a, b) = copies(&out);
    let stdout = ok(&arbiter(&[
        "archive", "--match", &p.dir, "--game", "1", &a, &b,
    ]));
    assert!(
        stdout.contains("13c: 52/53 machine moves covered; move 23: no evaluation"),
        "{stdout}"
    );
    let e = last_entry(&p.dir, "engine_log_archived");
    assert_eq!(e.clause, "13c");
    assert_eq!(e.body["coverage"]["covered"], 52);
}

#[test]
fn clause_13d_program_copy_archived_with_its_digest() {
    let p = play_the_real_game();
    let (t, a, b) = copies(&read_real("machine-debug.log").unwrap());
    let program = t.path().join("junior-8.bin");
    std::fs::write(&program, b"the engine as used in game 1").unwrap();
    let out = ok(&arbiter(&[
        "archive",
        "--match",
        &p.dir,
        "--game",
        "1",
        &a,
        &b,
        "--program",
        program.to_str().unwrap(),
    ]));
    assert!(out.contains("13d: program"), "{out}");
    let e = last_entry(&p.dir, "program_archived");
    assert_eq!(e.clause, "13d");
    let want = arbiter::after::archive::hash_file(&program, false)
        .unwrap()
        .0;
    assert_eq!(e.body["stored"]["sha256"], serde_json::json!(want));
    ok(&arbiter(&["verify", "--match", &p.dir, "--game", "1"]));
}

#[test]
fn clause_13e_public_report_withholds_the_engine_log_contents() {
    let p = play_the_real_game();
    let src = real_data("machine-debug.log").unwrap();
    let (_t, a, b) = copies(&std::fs::read_to_string(src).unwrap());
    ok(&arbiter(&[
        "archive", "--match", &p.dir, "--game", "1", &a, &b,
    ]));
    let digest = last_entry(&p.dir, "engine_log_archived").body["stored"]["sha256"]
        .as_str()
        .unwrap()
        .to_string();
    let committee = std::fs::read_to_string(
        ok(&arbiter(&[
            "report",
            "--match",
            &p.dir,
            "--game",
            "1",
            "--markdown",
        ]))
        .trim(),
    )
    .unwrap();
    assert!(
        committee.contains(&digest),
        "the committee version shows the digest"
    );
    let public_out = tempfile::tempdir().unwrap();
    let public = public_out.path().join("public.md");
    ok(&arbiter(&[
        "report",
        "--match",
        &p.dir,
        "--game",
        "1",
        "--markdown",
        "--public",
        "--out",
        public.to_str().unwrap(),
    ]));
    let text = std::fs::read_to_string(&public).unwrap();
    // Each copy is its digest and size; its name and folder are left out.
    assert!(
        text.contains(&digest),
        "the public version shows the copy by its digest"
    );
    assert!(!text.contains(&a) && !text.contains(&b), "no copy's path");
    assert!(
        !text.contains("coverage.moves"),
        "no per-move engine detail"
    );
    assert!(text.contains("13e"));
}

/// The archived engine log edited together with SHA256SUMS is caught by `verify`,
/// because the signed log holds the original digest (BAD_BINDING, 25); so is the program copy.
#[test]
fn clause_13a_edited_archive_is_caught_against_the_signed_digest() {
    let p = play_the_real_game();
    let (t, a, b) = copies(&read_real("machine-debug.log").unwrap());
    let program = t.path().join("junior-8.bin");
    std::fs::write(&program, b"the engine as used in game 1").unwrap();
    ok(&arbiter(&[
        "archive",
        "--match",
        &p.dir,
        "--game",
        "1",
        &a,
        &b,
        "--program",
        program.to_str().unwrap(),
    ]));
    ok(&arbiter(&["verify", "--match", &p.dir, "--game", "1"]));
    let e = last_entry(&p.dir, "engine_log_archived");
    let name = e.body["stored"]["name"].as_str().unwrap().to_owned();
    let game_dir = std::path::Path::new(&p.dir).join("game-1");
    let stored = game_dir.join(&name);
    let mut text = std::fs::read_to_string(&stored).unwrap();
    text.push_str("info depth 40 score cp 900 pv e2e4\n");
    std::fs::write(&stored, &text).unwrap();
    // The attacker also fixes SHA256SUMS: the signed log still holds the original digest.
    let new = arbiter::after::archive::hash_file(&stored, false)
        .unwrap()
        .0;
    let sums = game_dir.join("engine/SHA256SUMS");
    let old = e.body["stored"]["sha256"].as_str().unwrap().to_owned();
    let s = std::fs::read_to_string(&sums).unwrap().replace(&old, &new);
    std::fs::write(&sums, s).unwrap();
    let out = arbiter(&["verify", "--match", &p.dir, "--game", "1"]);
    assert_eq!(
        out.status.code(),
        Some(25),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("the archived file was changed"));
}

/// Times the kit can check, it checks. A delivery time in the future is refused (13a);
/// without --delivered, a game recorded faster than real time is delivered at its end, and the
/// entry's `delivered` and `after_game_end_ms` agree; a missing program copy (13d) is said on the
/// command line, and so is a late one.
#[test]
fn clause_13a_13d_delivery_times_checked_and_the_program_copy_said() {
    let p = play_the_real_game();
    let (t, a, b) = copies(&read_real("machine-debug.log").unwrap());
    let future = arbiter(&[
        "archive",
        "--match",
        &p.dir,
        "--game",
        "1",
        &a,
        &b,
        "--delivered",
        "2099-01-01T00:00:00Z",
    ]);
    assert_eq!(future.status.code(), Some(1));
    let err = String::from_utf8_lossy(&future.stderr);
    assert!(
        err.contains("rule 13a") && err.contains("in the future"),
        "{err}"
    );
    // Now, with no program copy: said, and the times agree.
    let out = ok(&arbiter(&[
        "archive", "--match", &p.dir, "--game", "1", &a, &b,
    ]));
    assert!(out.contains("13d: NO program copy handed over"), "{out}");
    let e = last_entry(&p.dir, "engine_log_archived");
    let end = last_entry(&p.dir, "game_ended");
    let delivered =
        chrono::DateTime::parse_from_rfc3339(e.body["delivered"].as_str().unwrap()).unwrap();
    let end_utc = chrono::DateTime::parse_from_rfc3339(&end.utc).unwrap();
    assert_eq!(
        (delivered - end_utc).num_milliseconds(),
        e.body["after_game_end_ms"].as_i64().unwrap(),
        "delivered and after_game_end_ms agree"
    );
    // A late program copy, 40 minutes after the end: accepted, flagged, said.
    let program = t.path().join("junior.bin");
    std::fs::write(&program, b"the engine").unwrap();
    let late = (end_utc + chrono::Duration::minutes(40)).to_rfc3339();
    let out = arbiter(&[
        "archive",
        "--match",
        &p.dir,
        "--game",
        "1",
        &a,
        &b,
        "--program",
        program.to_str().unwrap(),
        "--delivered",
        &late,
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("13d: program copy LATE"), "{text}");
    assert_eq!(
        last_entry(&p.dir, "program_archived").body["late"],
        serde_json::json!(true)
    );
}

/// 13c: an empty or unrecognisable engine log is archived and recorded as a 13c finding,
/// and the command exits non-zero naming 13c.
#[test]
fn clause_13c_an_empty_or_binary_engine_log_is_a_finding() {
    for content in [&b""[..], &[0u8, 159, 146, 150, 255, 0, 1, 2][..]] {
        let p = play_the_real_game();
        let t = tempfile::tempdir().unwrap();
        let (a, b) = (t.path().join("a.log"), t.path().join("b.log"));
        std::fs::write(&a, content).unwrap();
        std::fs::write(&b, content).unwrap();
        let out = arbiter(&[
            "archive",
            "--match",
            &p.dir,
            "--game",
            "1",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{err}");
        assert!(err.contains("13c"), "{err}");
        let text = String::from_utf8_lossy(&out.stdout);
        if !text.is_empty() {
            assert!(text.contains("13c FINDING"), "{text}");
            let e = last_entry(&p.dir, "engine_log_archived");
            assert_eq!(e.body["coverage"]["status"], "unknown-format");
        }
    }
}
