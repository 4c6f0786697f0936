//! Commands that rebuild a game read its log once. The match score of `status`, of the
//! board's opening and of `script` takes the game the command already rebuilt
//! (`matchdir::match_score_with`) instead of reading its log again: the same table as reading
//! every game's log.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

fn script(dir: &std::path::Path, m: &std::path::Path, name: &str, end: &str) {
    let file = dir.join(name);
    std::fs::write(
        &file,
        format!(
            "0 arbiter declare white human Garry Kasparov
0 arbiter declare black machine Deep Junior
0 arbiter declare operator Amir Ban
0 arbiter start
0:00:10 move e4
0:00:20 move e5
{end}"
        ),
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .arg("script")
        .arg(&file)
        .arg("--match")
        .arg(m)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn match_score_with_the_rebuilt_game_equals_reading_every_log() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    script(tmp.path(), &m, "g1.arb", "0:00:30 human resign\n");
    script(
        tmp.path(),
        &m,
        "g2.arb",
        "0:00:30 human offer-draw\n0:00:40 operator accept-draw\n",
    );
    script(tmp.path(), &m, "g3.arb", "");
    let full = arbiter::board::matchdir::match_score(&m);
    assert_eq!(
        full,
        vec![
            ("Garry Kasparov".to_string(), 0.5),
            ("Deep Junior".to_string(), 1.5)
        ]
    );
    for n in 1..=3 {
        let r = arbiter::board::matchdir::replay_log(
            &arbiter::record::layout::log_path(&m, n),
            |_, _| {},
        )
        .unwrap();
        assert_eq!(
            arbiter::board::matchdir::match_score_with(&m, Some((n, &r.game))),
            full,
            "game {n}"
        );
    }
    // The game given stands for its log: a state without the result leaves that game out.
    let r3 =
        arbiter::board::matchdir::replay_log(&arbiter::record::layout::log_path(&m, 3), |_, _| {})
            .unwrap();
    assert_eq!(
        arbiter::board::matchdir::match_score_with(&m, Some((1, &r3.game))),
        vec![
            ("Garry Kasparov".to_string(), 0.5),
            ("Deep Junior".to_string(), 0.5)
        ]
    );
    // `status` shows the same score.
    let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["status", "--game", "1", "--match"])
        .arg(&m)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("match score: Garry Kasparov 0.5")
            && out.contains("match score: Deep Junior 1.5"),
        "{out}"
    );
}

/// What a process learnt of an earlier game's log (finished or not, its points) is
/// kept only while the file stays as it was: a log that changed is read again.
#[test]
fn a_game_log_read_once_a_process_is_read_again_when_it_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    script(tmp.path(), &m, "g1.arb", "");
    script(tmp.path(), &m, "g2.arb", "0:00:30 human resign\n");
    let junior = |points: f64| {
        vec![
            ("Garry Kasparov".to_string(), 0.0),
            ("Deep Junior".to_string(), points),
        ]
    };
    for _ in 0..2 {
        assert!(!arbiter::board::matchdir::is_finished(&m, 1));
        assert!(arbiter::board::matchdir::is_finished(&m, 2));
        assert_eq!(arbiter::board::matchdir::match_score(&m), junior(1.0));
    }
    // Game 1's log becomes a finished game's (the resigned one): read again, not the kept answer.
    std::fs::copy(
        arbiter::record::layout::log_path(&m, 2),
        arbiter::record::layout::log_path(&m, 1),
    )
    .unwrap();
    assert!(arbiter::board::matchdir::is_finished(&m, 1));
    assert_eq!(arbiter::board::matchdir::match_score(&m), junior(2.0));
}
