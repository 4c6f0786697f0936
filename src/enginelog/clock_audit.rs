//! Rule 6c audited from the engine's own log: the clock the machine was given at each search
//! (UCI `go wtime/btime` in milliseconds, CECP `time/otim` in centiseconds) against the official
//! game clock at that move.
//!
//! For every machine move the 13c coverage tied to a search, the engine's own clock in that
//! search's start is compared with the machine's official remaining time when its turn began (the
//! opponent's press). A move is reported when they differ by the 6c threshold or more and no
//! synchronisation (`operator sync-internal-clock`) was recorded during that turn. PURE.
use serde::Serialize;

use super::{ClockGiven, Coverage, EngineLog};
use crate::core::timefmt;

/// The official clock of one machine move, from the game log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OfficialClock {
    /// 0-based ply of the machine's move.
    pub ply: usize,
    /// The machine's remaining time when its turn for this move began.
    pub official_ms: i64,
    /// A 6c synchronisation was recorded during the turn.
    pub synced: bool,
}

/// One machine move whose search shows the clock it was given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClockCheck {
    pub ply: usize,
    pub move_number: u32,
    pub san: String,
    /// Line of the engine log where the search starts.
    pub search_line: Option<u64>,
    /// `go wtime/btime` or `time/otim`.
    pub source: String,
    /// The engine's own clock as the log shows it.
    pub given_ms: i64,
    /// The official clock at the start of the machine's turn.
    pub official_ms: i64,
    /// `given − official`.
    pub diff_ms: i64,
    /// `|diff|` is the threshold or more.
    pub beyond_threshold: bool,
    /// A 6c synchronisation was recorded during the turn.
    pub synced: bool,
}

/// The 6c audit of a game against an engine log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClockAudit {
    /// The 6c threshold (declared algorithm, else the profile's).
    pub threshold_ms: u64,
    /// The rules make the operator correct the engine's clock at the threshold (6c); when false
    /// the differences are information only (then written in the archive entry).
    #[serde(skip_serializing_if = "is_true")]
    pub sync_rule: bool,
    pub machine_moves: usize,
    /// Machine moves whose search shows the clock given.
    pub with_clock: usize,
    /// Every move with a clock given, in game order.
    pub checks: Vec<ClockCheck>,
    /// Plies of the moves that differed by the threshold or more with no sync recorded.
    pub unsynced: Vec<usize>,
    /// One line for the report and the archive output.
    pub summary: String,
}

fn is_true(b: &bool) -> bool {
    *b
}

/// Most moves named one by one in the summary (which names moves only: the engine's figures are
/// in `checks`, which the public report leaves out under 13e).
const SUMMARY_MOVES: usize = 6;

/// Audit rule 6c: `coverage` ties machine moves to searches of `log`; `official` gives the game
/// clock of each machine move (by ply).
pub fn clock_audit(
    log: &EngineLog,
    coverage: &Coverage,
    engine_white: bool,
    official: &[OfficialClock],
    threshold_ms: u64,
    sync_rule: bool,
) -> ClockAudit {
    let threshold = i64::try_from(threshold_ms).unwrap_or(i64::MAX);
    let mut checks = Vec::new();
    for m in &coverage.moves {
        let Some(search) = m.search.and_then(|k| log.searches.get(k)) else {
            continue;
        };
        let Some(given) = search.clock.as_ref() else {
            continue;
        };
        let Some(given_ms) = given.engine_ms(engine_white) else {
            continue;
        };
        let Some(o) = official.iter().find(|o| o.ply == m.ply) else {
            continue;
        };
        let diff_ms = given_ms.saturating_sub(o.official_ms);
        checks.push(ClockCheck {
            ply: m.ply,
            move_number: m.move_number,
            san: m.san.clone(),
            search_line: m.search_line,
            source: ClockGiven::source(given).to_string(),
            given_ms,
            official_ms: o.official_ms,
            diff_ms,
            beyond_threshold: diff_ms.unsigned_abs() >= threshold_ms,
            synced: o.synced,
        });
    }
    let unsynced: Vec<usize> = checks
        .iter()
        .filter(|c| c.beyond_threshold && !c.synced)
        .map(|c| c.ply)
        .collect();
    let summary = summary_line(
        coverage.moves.len(),
        &checks,
        &unsynced,
        threshold.max(0).unsigned_abs(),
        sync_rule,
    );
    ClockAudit {
        threshold_ms,
        sync_rule,
        machine_moves: coverage.moves.len(),
        with_clock: checks.len(),
        checks,
        unsynced,
        summary,
    }
}

fn summary_line(
    moves: usize,
    checks: &[ClockCheck],
    unsynced: &[usize],
    threshold: u64,
    sync_rule: bool,
) -> String {
    let limit = timefmt::clock(i64::try_from(threshold).unwrap_or(i64::MAX));
    if checks.is_empty() {
        return format!(
            "the log shows no clock given to the engine for any of the {moves} machine moves \
             (no go wtime/btime, no time/otim): not audited"
        );
    }
    let mut s = format!(
        "{}/{moves} machine moves show the clock given; ",
        checks.len()
    );
    let synced = checks
        .iter()
        .filter(|c| c.beyond_threshold && c.synced)
        .count();
    if !sync_rule {
        s.push_str("no rule on the engine's own clock, no correction owed; ");
    }
    if unsynced.is_empty() {
        s.push_str(&format!(
            "none differed from the official clock by {limit} or more without a sync"
        ));
    } else {
        s.push_str(&format!(
            "{} differed from the official clock by {limit} or more with no sync recorded: ",
            unsynced.len()
        ));
        let named: Vec<String> = checks
            .iter()
            .filter(|c| unsynced.contains(&c.ply))
            .take(SUMMARY_MOVES)
            .map(|c| format!("move {} {}", c.move_number, c.san))
            .collect();
        s.push_str(&named.join(", "));
        if unsynced.len() > SUMMARY_MOVES {
            s.push_str(&format!(", and {} more", unsynced.len() - SUMMARY_MOVES));
        }
    }
    if synced > 0 {
        s.push_str(&format!(
            "; {synced} more differed that much but a sync was recorded in the turn"
        ));
    }
    s
}
