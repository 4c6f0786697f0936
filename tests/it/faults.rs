//! Injected storage faults and wall-clock jumps (issue "Figures").
//!
//! - Journal: a write or fdatasync fails at every position of a game, torn at several lengths
//!   (`FaultPlan`). Nothing is acknowledged that was not written; every later append is refused;
//!   the partial line is cut back out at once, so after reopening the log holds
//!   exactly the acknowledged entries and nothing is left to recover.
//! - Session: in-memory storage failing from every index (`Memory { fail_from }`) and the journal
//!   storage failing mid-game: input frozen (`Session::frozen`), every later command refused with
//!   `SessionError::Storage`, and the state is the replay of what was stored.
//! - Wall clock: a jump of +/- 1 h in the UTC the storage sees changes no game clock.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use arbiter::board::matchdir::JournalStorage;
use arbiter::board::session::{Memory, Session, SessionError, Storage, StorageError, load_profile};
use arbiter::core::Ms;
use arbiter::core::command::{Command, parse};
use arbiter::core::event::Event;
use arbiter::core::game::{Game, GameContext};
use arbiter::core::script::parse_script;
use arbiter::log::codec::{events_of, kind_and_body};
use arbiter::log::{Entry, NewEntry};
use arbiter::record::journal::{FaultPlan, Journal, JournalError, read_entries};
use arbiter::record::layout::log_path;
use chrono::{DateTime, Duration, Utc};

const RULES: &str = "rules/kasparov-deep-junior-2003.toml";

fn t0() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2003-01-26T15:00:00.000Z")
        .unwrap()
        .with_timezone(&Utc)
}

fn new_game(match_id: &str) -> Game {
    let (profile, pref) = load_profile(Path::new(RULES)).unwrap();
    Game::new(GameContext::unsigned(match_id, 1, pref), profile)
}

/// A game with every kind of moment that writes: declarations, start, moves, a draw offer with
/// consultation, a stop and resume, notes, an internal-clock report.
fn script() -> Vec<(Ms, Command)> {
    let mut text = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    text.push_str(
        "0:16:30  operator internal-clock 1:50:00\n\
         0:17:00  arbiter note the operator checked the cables\n\
         0:17:10  arbiter stop lights flicker\n\
         0:19:00  arbiter resume\n\
         0:20:00  move e3\n\
         0:21:00  move Bf5\n\
         0:22:00  supervisor note fan replaced\n\
         0:23:00  move Nc3\n",
    );
    parse_script(&text)
        .unwrap()
        .into_iter()
        .map(|l| (l.at, l.command))
        .collect()
}

/// The entry the journal storage writes for an event (as `JournalStorage::append` does).
fn entry_of(e: &Event, utc: DateTime<Utc>) -> NewEntry {
    let (kind, body) = kind_and_body(e);
    NewEntry {
        mono_ms: e.at,
        utc,
        actor: e.actor.name().to_string(),
        clause: e.clause.to_string(),
        kind,
        body,
    }
}

/// The events of the whole script, run in memory.
fn all_events() -> Vec<Event> {
    let mut s = Session::new(new_game("faults"), Box::new(Memory::default()), t0());
    let mut out = Vec::new();
    for (at, cmd) in script() {
        out.extend(s.execute(&cmd, at).unwrap());
    }
    out
}

#[derive(Debug, Clone, Copy)]
enum Inject {
    Sync,
    /// Fail the write after this many bytes (clamped to the line, newline included).
    Write(Option<usize>),
}

/// Lines of a file as byte strings (without newlines; a last unterminated piece included).
fn lines_of(path: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).unwrap();
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// One journal run: line 0 and the game's events appended through a `FaultPlan` that fails
/// append number `at` (0 is line 0). Returns what happened for the checks.
fn journal_run(dir: &Path, events: &[Event], at: u64, inject: Inject) {
    let path = dir.join("log.jsonl");
    let plan = match inject {
        Inject::Sync => FaultPlan::new().fail_sync(at),
        Inject::Write(k) => FaultPlan::new().fail_write(at, k),
    };
    let entries: Vec<NewEntry> = events
        .iter()
        .map(|e| entry_of(e, t0() + Duration::milliseconds(e.at as i64)))
        .collect();
    let mut acked: Vec<Entry> = Vec::new();
    let mut failed_at: Option<u64> = None;
    let mut journal = match Journal::create_with(&path, entries[0].clone(), Box::new(plan)) {
        Ok(j) => {
            acked.push(j.entries()[0].clone());
            Some(j)
        }
        Err(e) => {
            assert!(matches!(e, JournalError::Io { .. }), "{e}");
            failed_at = Some(0);
            None
        }
    };
    if let Some(j) = journal.as_mut() {
        for (i, e) in entries.iter().enumerate().skip(1) {
            match j.append(e.clone()) {
                Ok(entry) => {
                    assert!(
                        failed_at.is_none(),
                        "append {i} acknowledged after a failure"
                    );
                    acked.push(entry.clone());
                }
                Err(JournalError::Poisoned { .. }) => {
                    assert!(failed_at.is_some(), "poisoned before any failure");
                }
                Err(err) => {
                    assert!(failed_at.is_none(), "second failure {err} at {i}");
                    assert!(matches!(err, JournalError::Io { .. }), "{err}");
                    assert!(j.poisoned().is_some());
                    failed_at = Some(i as u64);
                }
            }
            // What the journal reports is what was acknowledged, never more.
            assert_eq!(j.entries().len(), acked.len());
        }
    }
    assert_eq!(failed_at, Some(at), "the injected failure happened");
    drop(journal);

    // Reopen: exactly the acknowledged entries.
    // A failed append cuts its partial line back out before freezing, so the file
    // holds exactly the acknowledged entries and a reopen has nothing to recover. (A torn tail
    // still happens when the process dies mid-write: tests/it/crash.rs covers that.)
    if at == 0 {
        // Line 0 never became durable: nothing was acknowledged, and the log never took its
        // name (it is created complete or not at all), so the game can simply be opened again.
        assert!(acked.is_empty());
        assert!(!path.exists(), "{inject:?}: a log without line 0 was left");
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert!(leftovers.is_empty(), "{inject:?}: {leftovers:?}");
        return;
    }
    let j = open_retry(&path, real_ops).unwrap();
    assert!(j.damage().is_none(), "{:?}", j.damage());
    let got = j.entries();
    let hashes = |es: &[Entry]| es.iter().map(|e| e.hash).collect::<Vec<_>>();
    assert_eq!(
        hashes(&got[..acked.len().min(got.len())]),
        hashes(&acked),
        "{inject:?} at {at}: acknowledged entries changed"
    );
    assert_eq!(
        got.len(),
        acked.len(),
        "{inject:?} at {at}: the log holds entries that were never acknowledged"
    );
    assert!(j.recovery().is_none());
    drop(j);
    // And it reads back strictly, line for line.
    let all = read_entries(&path).unwrap();
    assert_eq!(all.len(), lines_of(&path).len());
}

/// `Journal::open`, waiting out a lock held by a moment's copy of our file descriptor in a child
/// process that another test of this binary is spawning (fork, then exec with CLOEXEC): flock
/// locks belong to the open file, so the copy holds it until the child execs.
fn open_retry(
    path: &Path,
    ops: impl Fn() -> Box<dyn arbiter::record::journal::FileOps>,
) -> Result<Journal, JournalError> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match Journal::open_with(path, ops()) {
            Err(JournalError::Locked(_)) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            r => return r,
        }
    }
}

fn real_ops() -> Box<dyn arbiter::record::journal::FileOps> {
    Box::new(arbiter::record::journal::RealOps)
}

#[test]
fn fault_journal_write_and_sync_failures_keep_exactly_the_acknowledged_entries() {
    let events = all_events();
    assert!(events.len() >= 20, "{}", events.len());
    let mut cases = 0;
    for at in 0..events.len() as u64 {
        for inject in [
            Inject::Sync,
            Inject::Write(None),
            Inject::Write(Some(0)),
            Inject::Write(Some(1)),
            Inject::Write(Some(37)),
            Inject::Write(Some(200)),
            // The whole line but its newline: complete JSON, still a torn line.
            Inject::Write(Some(log_line_len_hint(&events, at) - 1)),
        ] {
            let tmp = tempfile::tempdir().unwrap();
            journal_run(tmp.path(), &events, at, inject);
            cases += 1;
        }
    }
    eprintln!("fault cases (journal): {cases}");
}

/// The line length of event `at` in a log of `events` (used to tear just before the newline).
fn log_line_len_hint(events: &[Event], at: u64) -> usize {
    let mut prev = arbiter::log::ZERO_HASH;
    let mut len = 0;
    for (seq, e) in events.iter().enumerate().take(at as usize + 1) {
        let line = arbiter::log::encode_line(
            seq as u64,
            &prev,
            &entry_of(e, t0() + Duration::milliseconds(e.at as i64)),
        );
        prev = arbiter::log::entry_hash(&line);
        len = line.len() + 1;
    }
    len
}

/// Commands of every actor, tried after the freeze: all refused with the storage error.
fn later_commands() -> Vec<Command> {
    [
        "move Nf3",
        "arbiter note still here",
        "arbiter stop check",
        "arbiter resume",
        "operator internal-clock 1:00:00",
        "human offer-draw",
        "operator resign",
        "supervisor note x",
        "arbiter start",
    ]
    .iter()
    .map(|l| parse(l).unwrap())
    .collect()
}

#[test]
fn fault_session_memory_failure_freezes_input_at_every_index() {
    let all = all_events();
    let total = all.len();
    let script = script();
    for fail_from in 0..=total {
        let storage = Memory {
            events: Vec::new(),
            fail_from: Some(fail_from),
        };
        let mut s = Session::new(new_game("faults"), Box::new(storage), t0());
        let mut acknowledged: Vec<Event> = Vec::new();
        let mut failed = false;
        let mut last_at = 0;
        for (at, cmd) in &script {
            last_at = *at;
            match s.execute(cmd, *at) {
                Ok(evs) => {
                    assert!(!failed, "a command was accepted after the freeze");
                    acknowledged.extend(evs);
                }
                Err(SessionError::Storage(m)) => {
                    assert!(m.contains("injected"), "{m}");
                    failed = true;
                }
                Err(e) => panic!("fail_from {fail_from}: {e}"),
            }
            if failed {
                assert!(s.frozen.is_some());
            }
        }
        if fail_from < total {
            assert!(failed, "fail_from {fail_from} of {total}: no failure seen");
            for cmd in later_commands() {
                assert!(
                    matches!(
                        s.execute(&cmd, last_at + 1000),
                        Err(SessionError::Storage(_))
                    ),
                    "{cmd:?} accepted while frozen"
                );
            }
            // Time passing records nothing either: a due event (a flag) is refused; with nothing
            // due there is nothing to write.
            match s.catch_up(last_at + 10_000_000) {
                Err(SessionError::Storage(_)) => {}
                Ok(v) => assert!(v.is_empty(), "recorded while frozen: {v:?}"),
                Err(e) => panic!("{e}"),
            }
        } else {
            assert!(!failed && s.frozen.is_none());
        }
        // Nothing was shown as done that the storage does not hold: the storage holds the
        // first `fail_from` events of the game (a command whose second event failed keeps its
        // first, which was durable and applied), everything acknowledged is among them, and the
        // state is the replay of exactly what is stored.
        let stored = s.storage.len();
        assert_eq!(stored, fail_from.min(total));
        assert!(acknowledged.len() <= stored);
        assert_eq!(acknowledged[..], all[..acknowledged.len()]);
        if stored > 0 {
            let replayed = Game::replay(all[..stored].iter()).unwrap();
            for t in [last_at, last_at + 60_000] {
                assert_eq!(
                    serde_json::to_value(replayed.view(t, 100)).unwrap(),
                    serde_json::to_value(s.game.view(t, 100)).unwrap(),
                    "fail_from {fail_from}"
                );
            }
        }
    }
    eprintln!("fault cases (session, memory): {}", total + 1);
}

fn journal_storage(dir: &Path, journal: Option<Journal>) -> JournalStorage {
    JournalStorage {
        match_dir: dir.to_path_buf(),
        game: 1,
        match_id: "faults".into(),
        path: log_path(dir, 1),
        journal,
        signer: None,
        armed: None,
        may_ask: false,
        signed_upto: None,
        signed_code: None,
        warning: None,
        on_append: None,
        sealed: false,
        beat_file: None,
        countersigned_seen: Default::default(),
        index_seen: Default::default(),
        checkpoints_swept: false,
        witness_every: None,
        checkpoint_owed: None,
    }
}

/// The journal-backed session: the first half of the game written for real, then the game
/// reopened with a fault plan; the append fails, input freezes, and after reopening the log
/// replays to exactly the state the session showed.
#[test]
fn fault_session_journal_failure_freezes_and_the_log_matches_the_screen() {
    let script = script();
    let half = script.len() / 2;
    for inject in [Inject::Sync, Inject::Write(None), Inject::Write(Some(10))] {
        for fail_at in 0..4u64 {
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path();
            {
                let storage = journal_storage(dir, None);
                let mut s = Session::new(new_game("faults"), Box::new(storage), t0());
                for (at, cmd) in &script[..half] {
                    s.execute(cmd, *at).unwrap();
                }
            }
            let path = log_path(dir, 1);
            let plan = match inject {
                Inject::Sync => FaultPlan::new().fail_sync(fail_at),
                Inject::Write(k) => FaultPlan::new().fail_write(fail_at, k),
            };
            let j = open_retry(&path, || Box::new(plan.clone())).unwrap();
            let game = Game::replay(events_of(&j.entries()).unwrap().iter()).unwrap();
            let mut s = Session::new(game, Box::new(journal_storage(dir, Some(j))), t0());
            let mut frozen_at = None;
            let mut last_at = 0;
            for (i, (at, cmd)) in script[half..].iter().enumerate() {
                last_at = *at;
                match s.execute(cmd, *at) {
                    Ok(_) => assert!(frozen_at.is_none()),
                    Err(SessionError::Storage(m)) => {
                        assert!(m.contains("injected") || m.contains("refuses"), "{m}");
                        frozen_at.get_or_insert(i);
                    }
                    Err(e) => panic!("{e}"),
                }
            }
            assert!(frozen_at.is_some(), "{inject:?} {fail_at}: no failure");
            assert!(s.frozen.is_some());
            for cmd in later_commands() {
                assert!(matches!(
                    s.execute(&cmd, last_at + 1000),
                    Err(SessionError::Storage(_))
                ));
            }
            let shown = serde_json::to_value(s.game.view(last_at, 100)).unwrap();
            drop(s);
            let j = open_retry(&path, real_ops).unwrap();
            let events: Vec<Event> = events_of(&j.entries())
                .unwrap()
                .into_iter()
                .filter(|e| e.kind_name() != "recovery")
                .collect();
            let replayed = Game::replay(events.iter()).unwrap();
            assert_eq!(
                serde_json::to_value(replayed.view(last_at, 100)).unwrap(),
                shown,
                "{inject:?} at {fail_at}: the reopened log is not what the screen showed"
            );
        }
    }
}

// ----- wall clock --------------------------------------------------------------------------

type Rows = Vec<(Event, DateTime<Utc>)>;

/// Storage that records the UTC it is handed with every event.
#[derive(Default)]
struct Recording {
    rows: std::sync::Arc<std::sync::Mutex<Rows>>,
}

impl Storage for Recording {
    fn append(&mut self, event: &Event, utc: DateTime<Utc>) -> Result<(), StorageError> {
        self.rows.lock().unwrap().push((event.clone(), utc));
        Ok(())
    }
    fn len(&self) -> usize {
        self.rows.lock().unwrap().len()
    }
}

/// Run the script; after command `jump_after`, the UTC origin moves by `jump` (what a wall-clock
/// change would do to a session that took UTC from the system clock). Returns the rows and the
/// views at several moments.
fn run_with_jump(jump_after: usize, jump: Duration) -> (Rows, Vec<serde_json::Value>) {
    let rec = Recording::default();
    let rows = rec.rows.clone();
    let mut s = Session::new(new_game("wall"), Box::new(rec), t0());
    let script = script();
    let mut views = Vec::new();
    for (i, (at, cmd)) in script.iter().enumerate() {
        if i == jump_after {
            s.utc_origin += jump;
        }
        s.execute(cmd, *at).unwrap();
        for dt in [0, 999, 61_000] {
            views.push(serde_json::to_value(s.game.view(at + dt, 100)).unwrap());
        }
        views.push(serde_json::json!([
            s.game.remaining(arbiter::core::Side::White, *at),
            s.game.remaining(arbiter::core::Side::Black, *at),
            s.game.next_deadline()
        ]));
    }
    let rows = rows.lock().unwrap().clone();
    (rows, views)
}

#[test]
fn wall_clock_jump_of_an_hour_changes_no_game_clock() {
    let (base_rows, base_views) = run_with_jump(usize::MAX, Duration::zero());
    let jump_after = script().len() / 2;
    for hours in [1, -1] {
        let jump = Duration::hours(hours);
        let (rows, views) = run_with_jump(jump_after, jump);
        // The storage did see the jump: the UTC column moved by exactly one hour from there on...
        assert_eq!(rows.len(), base_rows.len());
        let shifted = rows
            .iter()
            .zip(&base_rows)
            .filter(|((_, a), (_, b))| *a - *b == jump)
            .count();
        assert!(shifted > 0 && shifted < rows.len(), "{shifted}");
        for ((_, a), (_, b)) in rows.iter().zip(&base_rows) {
            assert!(*a == *b || *a - *b == jump);
        }
        // ...and not one event, clock, deadline or view changed.
        let evs = |r: &Rows| r.iter().map(|(e, _)| e.clone()).collect::<Vec<_>>();
        assert_eq!(evs(&rows), evs(&base_rows), "{hours} h");
        assert_eq!(views, base_views, "{hours} h");
    }
}

/// The same through the journal: the log's UTC column jumps, the replay from the log does not.
#[test]
fn wall_clock_jump_in_the_log_utc_column_does_not_reach_the_replay() {
    let script = script();
    let jump_after = script.len() / 2;
    let mut replays = Vec::new();
    let mut utcs = Vec::new();
    for hours in [0, 1, -1] {
        let tmp = tempfile::tempdir().unwrap();
        let mut s = Session::new(
            new_game("faults"),
            Box::new(journal_storage(tmp.path(), None)),
            t0(),
        );
        for (i, (at, cmd)) in script.iter().enumerate() {
            if i == jump_after {
                s.utc_origin += Duration::hours(hours);
            }
            s.execute(cmd, *at).unwrap();
        }
        let end = s.game.last_at();
        drop(s);
        let entries = read_entries(&log_path(tmp.path(), 1)).unwrap();
        utcs.push(entries.iter().map(|e| e.utc.clone()).collect::<Vec<_>>());
        let g = Game::replay(events_of(&entries).unwrap().iter()).unwrap();
        replays.push(serde_json::to_value(g.view(end + 5000, 100)).unwrap());
    }
    assert_ne!(utcs[0], utcs[1]);
    assert_ne!(utcs[0], utcs[2]);
    assert_eq!(replays[0], replays[1]);
    assert_eq!(replays[0], replays[2]);
}

/// Line 0 bounded at declaration time: a rules profile whose name or text could make
/// line 0 longer than a log line may hold is refused when it is loaded (65, `profile.name` or
/// the size named), and no game folder is created; and the journal never writes any line the log
/// could not be read back with: it is refused before writing, the log unchanged and reopenable.
#[test]
fn faults_line_0_always_fits_a_log_line() {
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("rules/kasparov-deep-junior-2003.toml").unwrap();
    let named = |n: usize| {
        text.replacen(
            "name = \"Kasparov vs Deep Junior, New York 2003\"",
            &format!("name = \"{}\"", "x".repeat(n)),
            1,
        )
    };
    assert_ne!(named(1), text, "the profile names itself as expected");
    let padded = format!("{text}\n# {}\n", "p".repeat(2 * 1024 * 1024));
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    for (name, profile, says) in [
        ("huge-name.toml", named(9_000_000), "a profile may hold"),
        (
            "long-name.toml",
            named(300),
            "profile.name is 300 characters",
        ),
        ("padded.toml", padded, "a profile may hold"),
    ] {
        let p = tmp.path().join(name);
        std::fs::write(&p, profile).unwrap();
        assert!(load_profile(&p).is_err());
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["script", "examples/scripts/quick.arb", "--match"])
            .arg(&m)
            .arg("--rules")
            .arg(&p)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(65), "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}");
        assert!(!m.join("game-1").exists(), "{name}: a game was created");
    }
    // The journal's own bound: an entry too long for a line is refused before writing.
    let path = tmp.path().join("j/log.jsonl");
    let line0 = NewEntry {
        mono_ms: 0,
        utc: t0(),
        actor: "kit".into(),
        clause: "1".into(),
        kind: "game_opened".into(),
        body: serde_json::json!({"match_id": "m"}),
    };
    let mut j = Journal::create(&path, line0).unwrap();
    let before = std::fs::read(&path).unwrap();
    let huge = NewEntry {
        mono_ms: 1,
        utc: t0(),
        actor: "arbiter".into(),
        clause: "5b".into(),
        kind: "note".into(),
        body: serde_json::json!({"text": "n".repeat(17 * 1024 * 1024)}),
    };
    let e = j.append(huge).unwrap_err();
    assert!(matches!(e, JournalError::TooLong { seq: 1, .. }), "{e}");
    assert!(e.to_string().contains("nothing was written"), "{e}");
    drop(j);
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(Journal::open(&path).unwrap().len(), 1);
}
