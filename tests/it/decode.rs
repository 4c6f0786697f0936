//! Issue 21: the typed decoder of a log line (`log::codec::decode_line`, one serde pass, no
//! `serde_json::Value`) reads every line of the six games of Kasparov – Deep Junior 2003, entered
//! both ways (move-and-press, press-then-notation), as the `Value` path reads it
//! (`log::parse_line` then `codec::event_of`), and each line through the typed pass itself.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::core::Ms;
use arbiter::log::codec::{decode_canonical, decode_line, event_of, new_entry, typed_line};
use arbiter::log::{ZERO_HASH, encode_line, entry_hash, parse_line};

use crate::pgn_clocks::play_both;
use crate::pgn_real2003::{ending, real_game};

/// The log lines of `events`, chained, one second of UTC apart.
fn lines_of(events: &[arbiter::core::event::Event]) -> Vec<Vec<u8>> {
    let mut prev = ZERO_HASH;
    let t0 = chrono::DateTime::from_timestamp_millis(1_043_593_200_000).unwrap();
    events
        .iter()
        .enumerate()
        .map(|(seq, ev)| {
            let utc = t0 + chrono::Duration::milliseconds(ev.at as i64);
            let line = encode_line(seq as u64, &prev, &new_entry(ev, utc));
            prev = entry_hash(&line);
            line
        })
        .collect()
}

#[test]
fn issue_21_the_six_2003_games_logs_decode_typed_as_the_value_path_reads_them() {
    let mut lines_seen = 0usize;
    for n in 1..=6u32 {
        let g = real_game(n);
        let thinks: Vec<Ms> = (0..g.sans.len() as u64).map(|i| 5_000 + i * 97).collect();
        let delays: Vec<Ms> = (0..g.sans.len() as u64)
            .map(|i| (i * 7_919) % 200_000)
            .collect();
        let mut b = play_both(g.machine_white, &g.sans, &thinks, &delays);
        let t = b.direct.now.max(b.pressed.now);
        for line in ending(n, t) {
            b.direct.at(&line);
            b.pressed.at(&line);
        }
        for m in [&b.direct, &b.pressed] {
            assert!(m.game().outcome().is_some(), "game {n} ended");
            for (seq, line) in lines_of(&m.log).iter().enumerate() {
                let entry = parse_line(line, 0).unwrap();
                let by_value = event_of(&entry).unwrap();
                let typed = typed_line(line).unwrap_or_else(|e| panic!("game {n} #{seq}: {e}"));
                assert_eq!(typed.event, by_value, "game {n} #{seq}");
                assert_eq!(typed.event, m.log[seq], "game {n} #{seq}");
                assert_eq!((typed.seq, &*typed.prev), (entry.seq, entry.prev.as_str()));
                assert_eq!(&*typed.utc, entry.utc.as_str());
                assert_eq!(decode_line(line).unwrap(), typed);
                assert_eq!(decode_canonical(line).unwrap(), typed);
                lines_seen += 1;
            }
        }
    }
    // 399 plies in all, each a press and a move in one of the two entries.
    assert!(lines_seen > 1_000, "{lines_seen} lines");
}

/// A match of one game: the first `plies` moves of 2003's game 1, entered by `arbiter script`.
pub(crate) fn scripted_match(dir: &std::path::Path, plies: usize) -> std::path::PathBuf {
    let m = dir.join("m");
    crate::log_util::arbiter_key_in(&m);
    let g = real_game(1);
    let mut text = String::from(
        "0 arbiter declare white human Garry Kasparov\n0 arbiter declare black machine Deep Junior\n0 arbiter declare operator Amir Ban\n0 arbiter start\n",
    );
    for (i, san) in g.sans.iter().take(plies).enumerate() {
        text.push_str(&format!(
            "{} move {san}\n",
            crate::clauses::secs(10_000 * (i as u64 + 1))
        ));
        if i % 7 == 3 {
            text.push_str(&format!(
                "{} arbiter note \"a note, \\\"quoted\\\" é\"\n",
                crate::clauses::secs(10_000 * (i as u64 + 1) + 5)
            ));
        }
    }
    let file = dir.join("g.arb");
    std::fs::write(&file, text).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .arg("script")
        .arg(&file)
        .arg("--match")
        .arg(&m)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    m
}

/// Issue 21: `status` and `pgn` replay the game from the lines verify's one pass checked
/// (`matchdir::replay_verified`): the same game, events, first and last entries as reading the log
/// on its own (`matchdir::replay_log`), and the same verdict as `check_before_showing`.
#[test]
fn issue_21_a_shown_game_is_replayed_from_the_lines_verify_checked() {
    use arbiter::matchdir::{replay_log, replay_verified};
    let tmp = tempfile::tempdir().unwrap();
    let m = scripted_match(tmp.path(), 40);
    let path = arbiter::layout::log_path(&m, 1);
    let mut alone = Vec::new();
    let r = replay_log(&path, |_, ev| alone.push(ev.clone())).unwrap();
    let (check, shown) = replay_verified(&m, 1, Vec::new, |v, ev| v.push(ev.clone()));
    let (s, events) = shown.unwrap();
    assert!(s.one_pass, "replayed from verify's pass");
    assert!(!r.one_pass);
    assert_eq!(events, alone);
    assert!(events.len() > 45, "{} events", events.len());
    assert_eq!(s.game.board().fen(), r.game.board().fen());
    assert_eq!(
        (s.entries, &s.first, &s.last),
        (r.entries, &r.first, &r.last)
    );
    let again = arbiter::witness::check_before_showing(&m, 1);
    assert_eq!((check.lines, check.failing), (again.lines, again.failing));
    assert_eq!(check.entries, Some(r.entries));
    assert_eq!(
        check.chain_head,
        Some(arbiter::log::hex32(&r.last.hash)),
        "verify's chain head is the replay's last entry"
    );
}

/// Issue 21: a log verify's pass cannot hand over whole (a crash's torn tail) is replayed apart,
/// and fails as before, with the crash named; nothing the pass gathered is shown.
#[test]
fn issue_21_a_log_verify_reads_apart_is_replayed_apart() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let m = scripted_match(tmp.path(), 10);
    let path = arbiter::layout::log_path(&m, 1);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(b"{\"v\":1,\"seq\":").unwrap();
    drop(f);
    let (check, shown) = arbiter::matchdir::replay_verified(&m, 1, || (), |_, _| {});
    assert!(shown.is_err());
    assert!(check.failing.is_some(), "{:?}", check.lines);
    for cmd in ["status", "pgn"] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args([cmd, "--match"])
            .arg(&m)
            .args(["--game", "1"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(65), "{cmd}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("a crash left an incomplete last line"),
            "{cmd}: {err}"
        );
        assert!(o.stdout.is_empty(), "{cmd}");
    }
}

/// Issue 21: the log grows between the check and the replay that a read-only command shows.
/// Verify's pass is made to read it apart (a line appended while it streams), and another line
/// lands before the second read: that read finds entries the check never passed, so nothing is
/// shown — `MatchError::Changed`, which the commands turn into exit 70, "the log changed while it
/// was read".
#[test]
fn issue_21_a_log_that_changes_between_the_check_and_the_replay_is_not_shown() {
    use arbiter::matchdir::{MatchError, replay_verified};
    use std::cell::Cell;
    let tmp = tempfile::tempdir().unwrap();
    let m = scripted_match(tmp.path(), 12);
    let path = arbiter::layout::log_path(&m, 1);
    let key = arbiter::sign::load_key(&m.join("keys/arbiter"), None).unwrap();
    let line0 = arbiter::journal::first_entry(&path).unwrap();
    let origin = arbiter::log::checkpoint::origin(line0.body["match_id"].as_str().unwrap(), 1);
    // One more entry, written as the kit writes one (appended, then the seal moved over it).
    let append = |text: &str| {
        let mut j = arbiter::journal::Journal::open(&path).unwrap();
        let last = j.last().unwrap().clone();
        j.append(arbiter::log::NewEntry {
            mono_ms: last.mono_ms,
            utc: chrono::Utc::now(),
            actor: "operator".into(),
            clause: "1".into(),
            kind: "note".into(),
            body: serde_json::json!({ "text": text }),
        })
        .unwrap();
        let seal = arbiter::log::seal::Seal {
            origin: origin.clone(),
            size: j.len(),
            chain: j.last().unwrap().hash,
            closed: true,
        };
        drop(j);
        arbiter::witness::write_seal(&m, 1, &key, &seal).unwrap();
    };
    let before = std::fs::read(&path).unwrap().len();
    let (grew, inits) = (Cell::new(false), Cell::new(0));
    let (check, shown) = replay_verified(
        &m,
        1,
        || {
            inits.set(inits.get() + 1);
            if inits.get() == 2 {
                append("written between the check and the replay");
            }
        },
        |(), _| {
            if !grew.replace(true) {
                append("written while verify's pass read the log");
            }
        },
    );
    assert!(grew.get() && inits.get() == 2, "the replay was made apart");
    assert!(check.failing.is_none(), "{:?}", check.lines);
    let Err(e @ MatchError::Changed { verified, read, .. }) = shown else {
        panic!("shown: {:?}", shown.map(|(r, ())| r.entries));
    };
    assert_eq!(read, verified + 1, "{e}");
    assert!(e.to_string().contains("changed while it was read"), "{e}");
    assert!(std::fs::read(&path).unwrap().len() > before);
    // The command's words and code for it.
    let err = arbiter::cli::replay_failure(&m, 1, e);
    assert_eq!(err.exit_code(), 70, "{err}");
    assert!(
        err.to_string().contains("changed while it was read"),
        "{err}"
    );
}
