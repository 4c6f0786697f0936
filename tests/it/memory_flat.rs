//! Issue 21: memory flat in the log's length. A void (rule 1) reaches only the latest entries
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
