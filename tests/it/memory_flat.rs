//! Memory flat in the log's length. A void (rule 1) reaches only the latest entries
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! (`VOID_WINDOW`), so what the readers keep for it (the moves of each take-back, to give them
//! back) is bounded: a long log of take-backs keeps only those a void can still reach.
use arbiter::core::game::VOID_WINDOW;
use arbiter::report::model::{Stream, Verification};
use arbiter::report::times::TimesStream;

use crate::clauses::{secs, started};

/// 400 cycles of two moves taken back (2,000 entries, far past a void's reach), then a void of
/// the latest take-back.
fn long_log_of_take_backs() -> crate::clauses::Match {
    let mut m = started();
    for k in 0..400 {
        m.moves("e4 e5", 1000);
        let t = m.now + 100;
        m.at(&format!("{} arbiter stop cycle {k}", secs(t)));
        m.at(&format!(
            "{} arbiter correct 6d takeback 2 rehearsal cycle {k}",
            secs(t)
        ));
        m.at(&format!("{} arbiter resume", secs(t)));
    }
    m
}

#[test]
fn rule_1_take_backs_beyond_a_voids_reach_are_not_kept() {
    let mut m = long_log_of_take_backs();
    let reach = 2 * VOID_WINDOW;
    // Each cycle is 5 entries: at most reach / 5 + 1 take-backs are within a void's reach.
    let bound = reach / 5 + 1;
    let mut times = TimesStream::default();
    let mut report = Stream::new(&Verification::not_checked(m.log.len()), false);
    let mut most = (0, 0);
    for e in &m.log {
        times.push(e);
        report.push(e, "");
        most.0 = most.0.max(times.take_backs_kept());
        most.1 = most.1.max(report.take_backs_kept());
    }
    assert!(m.log.len() > 3 * reach, "{}", m.log.len());
    assert!(
        most.0 >= bound - 1 && most.0 <= bound,
        "times kept {most:?}"
    );
    assert!(most.1 <= 2 * bound, "report kept {most:?}");
    // The latest take-back is within reach: a void of it still gives its moves back, in the
    // times function and in the report's move table.
    let tb = m
        .log
        .iter()
        .rposition(|e| e.kind_name() == "moves_taken_back")
        .unwrap();
    let t = m.now + 100;
    m.at(&format!(
        "{} arbiter void {tb} typed on the wrong board",
        secs(t)
    ));
    let times = arbiter::report::times::times(&m.log);
    let sans: Vec<&str> = times.moves.iter().map(|x| x.san.as_str()).collect();
    assert_eq!(sans, ["e4", "e5"]);
    assert!(
        times.totals.iter().all(|x| x.adds_up()),
        "{:?}",
        times.totals
    );
    let r =
        arbiter::report::model::build(&m.log, &[], &Verification::not_checked(m.log.len()), false);
    let rows: Vec<&str> = r.moves.iter().map(|x| x.san.as_str()).collect();
    assert_eq!(rows, ["e4", "e5"]);
    // An older take-back is out of a void's reach: the core refuses it by name (12).
    let old = m
        .log
        .iter()
        .position(|e| e.kind_name() == "moves_taken_back")
        .unwrap();
    let e = m
        .try_line(&format!("{} arbiter void {old} too late", secs(t + 1)))
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("older than the entries a void reaches"),
        "{e}"
    );
}

/// What a hostile log holds after (or instead of) the valid lines of a finished game.
#[derive(Debug, Clone, Copy)]
enum Hostile {
    /// The valid log, then a hole to 20 GiB (`truncate -s 20G`: sparse, no disk used).
    SparseTail,
    /// 20 GiB of zeros and nothing else (sparse).
    Zeros,
    /// The valid log, then lines of 15 MiB each (under the line bound; 90 MiB in all).
    Lines15MiB,
}

/// The data segment a reader may use (`prlimit --data`): heap and thread stacks. Far below the
/// files' sizes, so a reader that held a file, or a line past the bound, would fail under it.
const DATA_CAP: u64 = 64 << 20;

fn plant(log: &std::path::Path, kind: Hostile) {
    use std::io::Write;
    match kind {
        Hostile::SparseTail => {
            let f = std::fs::OpenOptions::new().write(true).open(log).unwrap();
            f.set_len(20 << 30).unwrap();
        }
        Hostile::Zeros => {
            let f = std::fs::File::create(log).unwrap();
            f.set_len(20 << 30).unwrap();
        }
        Hostile::Lines15MiB => {
            let mut f = std::fs::OpenOptions::new().append(true).open(log).unwrap();
            let line = vec![b'a'; 15 << 20];
            for _ in 0..6 {
                f.write_all(&line).unwrap();
                f.write_all(b"\n").unwrap();
            }
        }
    }
}

/// (and "a hostile folder": every reader bounds a line): each command that
/// reads a game log, on a sparse 20 GiB tail, a file of zeros and lines of 15 MiB, run under a
/// cap on its data segment: it ends with an exit code and one `arbiter:` line naming the
/// problem, never killed by the cap, never a panic.
#[test]
fn hostile_logs_are_read_in_bounded_memory_with_a_clear_error() {
    if std::process::Command::new("prlimit")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "prlimit (util-linux) is needed in CI"
        );
        println!("SKIPPED: no prlimit here");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let base = crate::hostile::rehearsal(tmp.path());
    for kind in [Hostile::SparseTail, Hostile::Zeros, Hostile::Lines15MiB] {
        let m = tmp.path().join(format!("{kind:?}"));
        let cp = std::process::Command::new("cp")
            .arg("-a")
            .arg(&base)
            .arg(&m)
            .status();
        assert!(cp.unwrap().success());
        plant(&arbiter::record::layout::log_path(&m, 1), kind);
        let d = m.display().to_string();
        let out = tmp.path().join("out");
        let o = out.display().to_string();
        let commands: Vec<Vec<&str>> = vec![
            vec!["verify", "--match", &d],
            vec!["status", "--match", &d],
            vec!["pgn", "--match", &d, "--game", "1"],
            vec![
                "report", "--match", &d, "--game", "1", "--out", &o, "--force",
            ],
            vec![
                "report",
                "--match",
                &d,
                "--game",
                "1",
                "--markdown",
                "--out",
                &o,
                "--force",
            ],
            vec!["prove", "--match", &d, "--game", "1", "--seq", "3"],
            // Opening: a script's new game reads game 1 for the match score.
            vec!["script", "examples/scripts/quick.arb", "--match", &d],
        ];
        for args in commands {
            let r = std::process::Command::new("prlimit")
                .arg(format!("--data={DATA_CAP}"))
                .arg("--")
                .arg(env!("CARGO_BIN_EXE_arbiter"))
                .args(&args)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&r.stderr);
            let text = format!("{}{err}", String::from_utf8_lossy(&r.stdout));
            let what = format!("{kind:?}: arbiter {args:?}: {:?}\n{text}", r.status);
            assert!(!err.contains("panicked"), "{what}");
            assert!(!err.contains("memory allocation"), "{what}");
            if args[0] == "script" {
                // A new game: game 1 is read for the match score only; the script runs.
                assert_eq!(r.status.code(), Some(0), "{what}");
                continue;
            }
            // 20: verify's BAD LINE; 65: a log that cannot be read as a game.
            assert!(matches!(r.status.code(), Some(20 | 65)), "{what}");
            let named = match kind {
                Hostile::SparseTail | Hostile::Zeros => {
                    text.contains("longer than the 16777216")
                        || text.contains("line longer than 16777216 bytes")
                }
                Hostile::Lines15MiB => {
                    text.contains("not a JSON object") || text.contains("expected value")
                }
            };
            // `prove` names the verdict it refuses to prove from.
            assert!(
                named || (args[0] == "prove" && text.contains("does not verify (BAD LINE)")),
                "{what}"
            );
            assert!(!text.contains("a crash left"), "{what}");
        }
    }
}

/// (CPU): an entry's event is read from its body in place (`log::codec::event_of`: the
/// kind handed to serde before the body, so the body is neither copied nor buffered). Every
/// event of two real scripts (the full test game and `every-clause.arb`, all kinds of entry)
/// comes back equal to the event written, and a body that does not fit its kind is refused.
#[test]
fn event_of_reads_every_kind_back_from_its_line() {
    use arbiter::log::codec::{event_of, new_entry};
    let (mut events, _) = crate::report_support::game_events("Garry Kasparov").unwrap();
    let every = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/scripts/every-clause.arb"
    ))
    .unwrap();
    events.extend(crate::report_support::run(&every).unwrap().0);
    let kinds: std::collections::BTreeSet<String> = events.iter().map(|e| e.kind_name()).collect();
    assert!(kinds.len() >= 30, "{kinds:?}");
    let mut prev = arbiter::log::ZERO_HASH;
    for (seq, e) in events.iter().enumerate() {
        let line = arbiter::log::encode_line(
            seq as u64,
            &prev,
            &new_entry(e, crate::report_support::origin()),
        );
        prev = arbiter::log::entry_hash(&line);
        let entry = arbiter::log::parse_line(&line, 0).unwrap();
        assert_eq!(
            event_of(&entry).unwrap(),
            *e,
            "{}",
            String::from_utf8_lossy(&line)
        );
    }
    // A body that does not fit its kind: refused, naming the entry.
    let mut entry = arbiter::log::parse_line(
        &arbiter::log::encode_line(
            0,
            &arbiter::log::ZERO_HASH,
            &new_entry(&events[1], crate::report_support::origin()),
        ),
        0,
    )
    .unwrap();
    entry.body = serde_json::json!({"unexpected": true});
    let err = event_of(&entry).unwrap_err().to_string();
    assert!(err.contains("entry 0") && err.contains("body"), "{err}");
}

#[test]
fn report_take_back_text_written_in_place_is_the_described_text() {
    // The committee version writes a take-back's timeline text in place (its moves not joined
    // into a text of their own first); the public version's is the described text with the
    // paths taken out. For take-backs whose reasons name no file, the two are the same bytes.
    let m = long_log_of_take_backs();
    let rows = |public: bool| -> Vec<String> {
        let mut second = arbiter::report::model::Timeline::new(public, Default::default());
        m.log
            .iter()
            .filter_map(|e| second.push(e, ""))
            .filter(|r| r.kind == "moves_taken_back")
            .map(|r| r.text)
            .collect()
    };
    let (committee, public) = (rows(false), rows(true));
    assert_eq!(committee.len(), 400);
    assert_eq!(committee, public);
    assert_eq!(
        committee[7],
        "2 move(s) taken back (e4 e5): rehearsal cycle 7"
    );
}
