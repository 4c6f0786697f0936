//! A match keeps its rules profile: every game after the first opens under the profile the
//! earlier games bound (their line 0), `play` and `script` run without `--rules` alike; a
//! `--rules` naming another profile in a running match is refused, naming both.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use crate::clauses::rules_path;
use crate::realgame::{arbiter, ok};

/// One short Denryu-sen game between two programs: a move each, then sente resigns.
const SHOGI_GAME: &str = "0 arbiter declare sente machine Sente Program\n\
0 arbiter declare gote machine Gote Program\n\
0 arbiter declare operator Tournament Operator\n\
0 arbiter start\n10 move 7g7f\n20 move 3c3d\n30 sente resign\n";

fn shogi_match() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let script = tmp.path().join("g.arb");
    std::fs::write(&script, SHOGI_GAME).unwrap();
    ok(&arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
        "--rules",
        rules_path("denryusen-2024.toml").to_str().unwrap(),
    ]));
    (tmp, dir, script)
}

/// The profile game `n`'s line 0 binds.
fn bound_profile(dir: &Path, n: u32) -> String {
    let first =
        arbiter::record::journal::first_entry(&arbiter::record::layout::log_path(dir, n)).unwrap();
    match arbiter::log::codec::event_of(&first).unwrap().kind {
        arbiter::core::event::EventKind::GameOpened(o) => o.profile.name,
        other => panic!("line 0 is {other:?}"),
    }
}

#[test]
fn denryusen_21_a_later_game_opens_under_the_match_rules_without_rules() {
    let (_tmp, dir, script) = shogi_match();
    let first = bound_profile(&dir, 1);
    assert!(first.contains("Denryu"), "{first}");
    // `script` without --rules: game 2 is a shogi game under the match's profile.
    let out = ok(&arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
    ]));
    assert_eq!(bound_profile(&dir, 2), first, "{out}");
    // A dry run of the next game too.
    let dry = ok(&arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
        "--dry-run",
    ]));
    assert!(dry.contains(&first), "{dry}");
    // A rehearsal writes nothing: it may try another profile.
    ok(&arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
        "--dry-run",
        "--rules",
        rules_path("denryusen-2024.toml").to_str().unwrap(),
    ]));
    // `play` without --rules: game 3 opens under the match's profile, sente's 3 minutes (21).
    let key = arbiter::record::sign::KeySource::default();
    let (session, ..) = arbiter::board::tui::open_session(&arbiter::board::tui::PlaySetup {
        match_dir: &dir,
        game: None,
        rules: None,
        key: &key,
        declarations: None,
        demo: false,
    })
    .unwrap();
    assert_eq!(session.game.ctx().game, 3);
    assert_eq!(session.game.ctx().profile.name, first);
    assert!(session.game.board().shogi().is_some(), "a shogi board");
    assert_eq!(
        session.game.remaining(arbiter::core::Side::White, 0),
        180_000
    );
}

#[test]
fn match_rules_another_profile_named_in_a_running_match_is_refused_with_both_names() {
    let (_tmp, dir, script) = shogi_match();
    let chess = rules_path("kasparov-deep-junior-2003.toml");
    let o = arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
        "--rules",
        chess.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("Kasparov") && err.contains("Denryu") && err.contains("--rules"),
        "both profiles named: {err}"
    );
    assert!(err.contains("nothing is opened"), "{err}");
    assert!(
        !arbiter::record::layout::log_path(&dir, 2).exists(),
        "nothing written"
    );
    // The board, on a new game or on the match's game 1, refuses it the same way.
    let key = arbiter::record::sign::KeySource::default();
    for game in [None, Some(1)] {
        let e = arbiter::board::tui::open_session(&arbiter::board::tui::PlaySetup {
            match_dir: &dir,
            game,
            rules: Some(&chess),
            key: &key,
            declarations: None,
            demo: false,
        })
        .err()
        .unwrap()
        .to_string();
        assert!(e.contains("Kasparov") && e.contains("Denryu"), "{e}");
    }
    assert!(
        !arbiter::record::layout::log_path(&dir, 2).exists(),
        "nothing written"
    );
    // The match's own profile named again is accepted.
    ok(&arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
        "--rules",
        rules_path("denryusen-2024.toml").to_str().unwrap(),
    ]));
    assert!(bound_profile(&dir, 2).contains("Denryu"));
}

/// Denryu-sen 5.2: a shogi game's record speaks shogi. `script`, `status` and the report (HTML
/// and Markdown, the clock chart included) name the sides sente and gote, never white and black.
#[test]
fn denryusen_5_2_status_script_and_report_name_sente_and_gote() {
    let (tmp, dir, _script) = shogi_match();
    let d = dir.to_str().unwrap();
    let status = ok(&arbiter(&["status", "--match", d]));
    assert!(
        status.contains("  sente ") && status.contains("  gote "),
        "{status}"
    );
    for out in ["r.md", "r.html"] {
        let path = tmp.path().join(out);
        let mut args = vec!["report", "--match", d, "--game", "1", "--out"];
        args.push(path.to_str().unwrap());
        if out.ends_with(".md") {
            args.push("--markdown");
        }
        ok(&arbiter(&args));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("(sente)") && text.contains("(gote)"), "{out}");
        for chess in [
            "(white)",
            "(black)",
            "| White |",
            ">White<",
            "white's",
            "black's",
        ] {
            assert!(!text.contains(chess), "{out} says {chess}");
        }
    }
}
