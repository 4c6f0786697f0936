//! Rule 13 decided in the core: the hand-over of the machine's log is accepted only after the
//! result (13a), never with a delivery time before the end, with the profile's number of copies
//! (13a), flagged late past the profile's deadline (13a) and otherwise recorded under 13c; the
//! program copy under 13d. The shell only measures and stores; these tests drive the core.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::core::command::Command;
use arbiter::core::event::EventKind;
use arbiter::core::game::HandoverFacts;

use crate::clauses::{Match, started};

fn finished() -> Match {
    let mut m = started();
    m.at("10 human resign");
    m
}

fn facts(copies: usize, after_end_ms: i64, program: bool) -> Command {
    let mut log = serde_json::Map::new();
    log.insert("stored".into(), "engine/machine.log".into());
    Command::Handover(Box::new(HandoverFacts {
        copies,
        after_end_ms,
        delivered: "2003-02-07T22:00:00.000Z".into(),
        log,
        program: program.then(|| {
            let mut p = serde_json::Map::new();
            p.insert("stored".into(), "engine/junior.exe".into());
            p
        }),
    }))
}

fn refused(m: &mut Match, cmd: &Command, words: &str) {
    let before = m.s.storage.len();
    let e =
        m.s.execute(cmd, 20_000)
            .expect_err("the hand-over must be refused");
    let text = e.to_string();
    assert!(text.contains("rule 13a"), "{text}");
    assert!(text.contains(words), "{text}");
    assert_eq!(m.s.storage.len(), before, "nothing recorded");
}

#[test]
fn clause_13a_handover_before_the_result_is_refused_by_the_core() {
    let mut m = started();
    refused(&mut m, &facts(2, 0, false), "no result yet");
}

#[test]
fn clause_13a_delivery_before_the_end_of_the_game_is_refused() {
    let mut m = finished();
    refused(
        &mut m,
        &facts(2, -60_000, false),
        "before the end of the game",
    );
}

#[test]
fn clause_13a_fewer_copies_than_the_profile_asks_are_refused() {
    let mut m = finished();
    refused(&mut m, &facts(1, 60_000, false), "at least 2 are required");
}

#[test]
fn clause_13a_late_delivery_is_recorded_under_13a_and_flagged() {
    let mut m = finished();
    let ev = m.s.execute(&facts(2, 31 * 60_000, false), 20_000).unwrap();
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].clause, "13a");
    let EventKind::EngineLogArchived(body) = &ev[0].kind else {
        panic!("{:?}", ev[0].kind)
    };
    assert_eq!(body["late"], true);
    assert_eq!(body["deadline_ms"], 1_800_000);
    assert_eq!(body["min_copies"], 2);
    assert_eq!(body["result"], "0-1");
    assert_eq!(body["stored"], "engine/machine.log");
}

#[test]
fn clause_13c_timely_delivery_is_recorded_under_13c_and_13d_program_beside_it() {
    let mut m = finished();
    let ev = m.s.execute(&facts(2, 30 * 60_000, true), 20_000).unwrap();
    assert_eq!(ev.len(), 2);
    assert_eq!(ev[0].clause, "13c");
    assert_eq!(ev[1].clause, "13d");
    let EventKind::ProgramArchived(p) = &ev[1].kind else {
        panic!("{:?}", ev[1].kind)
    };
    assert_eq!(p["late"], false);
    assert_eq!(p["stored"], "engine/junior.exe");
    // The game itself is unchanged: the result stands, replay gives the same state.
    assert_eq!(m.s.game.outcome().map(|o| o.score.text()), Some("0-1"));
}

#[test]
fn clause_13a_handover_deadlines_count_down_after_the_result_and_tick_off() {
    use arbiter::core::view::Panel;
    let mut m = finished();
    let end = 10_000i64;
    let panel = |m: &Match, at: u64| {
        m.view(at)
            .panels
            .into_iter()
            .find(|p| matches!(p, Panel::Handover { .. }))
    };
    assert!(
        panel(&started(), 5_000).is_none(),
        "nothing is due before the result"
    );
    match panel(&m, 70_000) {
        Some(Panel::Handover {
            log_left_ms,
            min_copies,
            log_handed,
            program_left_ms,
            program_handed,
        }) => {
            assert_eq!(log_left_ms, Some(end + 1_800_000 - 70_000));
            assert_eq!(program_left_ms, Some(end + 1_800_000 - 70_000));
            assert_eq!(min_copies, 2);
            assert!(!log_handed && !program_handed);
        }
        other => panic!("{other:?}"),
    }
    m.s.execute(&facts(2, 60_000, false), 70_000).unwrap();
    match panel(&m, 80_000) {
        Some(Panel::Handover {
            log_handed,
            program_handed,
            ..
        }) => assert!(log_handed && !program_handed),
        other => panic!("{other:?}"),
    }
}

#[test]
fn clause_13a_archive_words_parse_and_an_in_memory_session_refuses_them() {
    use arbiter::core::command::parse;
    assert_eq!(
        parse("arbiter archive a.log b.log program junior.exe").unwrap(),
        Command::HandOverFiles {
            copies: vec!["a.log".into(), "b.log".into()],
            program: Some("junior.exe".into()),
            side: None,
        }
    );
    assert!(parse("arbiter archive").is_err());
    assert!(parse("arbiter archive a.log program").is_err());
    let cmd = parse("arbiter archive a.log b.log").unwrap();
    // Before the result the core names 13a; afterwards it says where files are examined.
    let e = started().s.execute(&cmd, 5_000).unwrap_err().to_string();
    assert!(e.contains("rule 13a") && e.contains("no result yet"), "{e}");
    let e = finished().s.execute(&cmd, 20_000).unwrap_err().to_string();
    assert!(e.contains("Board UI"), "{e}");
}
