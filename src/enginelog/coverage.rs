//! Rule 13c: does the log show, for every machine move, each iteration of the search, the
//! evaluation of each iteration, and the time taken; and is the engine's move the one played?
//!
//! Searches are matched to moves by position (the EPD the UCI `position` command or the CECP
//! traffic leads to), so a ponder search, a restarted search or an extra analysis does not shift
//! every later move. Only when the log names no position at all (CECP thinking output alone) are
//! searches matched by order: the k-th completed search to the k-th machine move.

use super::position::{PositionError, epd, from_fen, parse_move, play_all, same_move};
use super::{EngineLog, EngineLogError, LogFormat, Search};
use serde::{Deserialize, Serialize};
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Position};
use std::collections::HashMap;

/// Most moves named one by one in the summary line.
const SUMMARY_MOVES: usize = 10;

/// One move the machine played, as the game record has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineMove {
    /// 0-based index into the game's move list.
    pub ply: usize,
    pub move_number: u32,
    pub san: String,
    pub uci: String,
    /// FEN of the position before the move.
    pub fen_before: String,
    /// Time the machine's clock ran for this move, if known.
    pub spent_ms: Option<u64>,
}

/// How a search was tied to a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchedBy {
    /// The search was asked about the position before the move.
    Position,
    /// The log names no positions; the k-th completed search was taken for the k-th move.
    Order,
}

/// Overall verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CoverageStatus {
    /// Every machine move is covered.
    Complete,
    /// Some machine move lacks something rule 13c asks for.
    Incomplete,
    /// The log is in no format this kit reads: nothing could be checked (not an engine failure).
    UnknownFormat,
}

/// What the log shows for one machine move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveCoverage {
    pub ply: usize,
    pub move_number: u32,
    pub san: String,
    pub uci: String,
    /// Index into [`EngineLog::searches`] of the search taken for this move.
    pub search: Option<usize>,
    /// Line of the log where that search starts.
    pub search_line: Option<u64>,
    pub matched_by: Option<MatchedBy>,
    /// Iterations (depths) shown.
    pub iterations: usize,
    pub max_depth: Option<u32>,
    /// Iterations shown without an evaluation.
    pub iterations_without_eval: usize,
    /// Time taken, from the log.
    pub time_ms: Option<u64>,
    /// Time the machine's clock ran for the move (from the game, for comparison; the engine's own
    /// figure leaves out the operator's handling).
    pub spent_ms: Option<u64>,
    /// The engine's move, as it wrote it.
    pub bestmove: Option<String>,
    pub has_iterations: bool,
    pub has_evaluations: bool,
    pub has_time: bool,
    pub bestmove_matches: bool,
    /// All four of the above.
    pub covered: bool,
    /// What is missing, in words; empty when covered.
    pub problems: Vec<String>,
}

/// Rule-13c coverage of a game by an engine log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Coverage {
    pub format: LogFormat,
    pub status: CoverageStatus,
    pub machine_moves: usize,
    pub covered: usize,
    pub with_search: usize,
    pub with_iterations: usize,
    pub with_evaluations: usize,
    pub with_time: usize,
    pub bestmove_agrees: usize,
    pub searches_in_log: usize,
    /// Searches in the log not tied to any machine move (ponder searches, restarts, analysis).
    pub searches_unmatched: usize,
    pub moves: Vec<MoveCoverage>,
    /// One line, e.g. "54/54 machine moves covered" or
    /// "53/54 machine moves covered; move 23: no evaluation".
    pub summary: String,
}

/// Check rule 13c for `moves` (the machine's moves, in game order) against `log`.
pub fn coverage(log: &EngineLog, moves: &[MachineMove]) -> Coverage {
    if log.format == LogFormat::Unknown {
        return unknown_format(log, moves);
    }
    if log.format == LogFormat::Usi {
        return super::usi::coverage(log, moves);
    }
    let positions: Vec<Result<Chess, PositionError>> =
        moves.iter().map(|m| from_fen(&m.fen_before)).collect();
    let by_position = log.searches.iter().any(|s| s.position.is_some());
    let chosen: Vec<Option<(usize, MatchedBy)>> = if by_position {
        match_by_position(log, moves, &positions)
    } else {
        match_by_order(log, moves.len())
    };

    let mut out = Vec::with_capacity(moves.len());
    for ((m, pos), choice) in moves.iter().zip(&positions).zip(&chosen) {
        out.push(judge(log, m, pos, *choice));
    }
    let used = chosen.iter().flatten().count();
    let count = |f: fn(&MoveCoverage) -> bool| out.iter().filter(|c| f(c)).count();
    let covered = count(|c| c.covered);
    let summary = summary_line(covered, &out);
    Coverage {
        format: log.format,
        status: if covered == out.len() {
            CoverageStatus::Complete
        } else {
            CoverageStatus::Incomplete
        },
        machine_moves: out.len(),
        covered,
        with_search: count(|c| c.search.is_some()),
        with_iterations: count(|c| c.has_iterations),
        with_evaluations: count(|c| c.has_evaluations),
        with_time: count(|c| c.has_time),
        bestmove_agrees: count(|c| c.bestmove_matches),
        searches_in_log: log.searches.len(),
        searches_unmatched: log.searches.len().saturating_sub(used),
        moves: out,
        summary,
    }
}

fn unknown_format(log: &EngineLog, moves: &[MachineMove]) -> Coverage {
    let out: Vec<MoveCoverage> = moves
        .iter()
        .map(|m| {
            let mut c = empty(m);
            c.problems
                .push("engine log format not recognised".to_owned());
            c
        })
        .collect();
    Coverage {
        format: log.format,
        status: CoverageStatus::UnknownFormat,
        machine_moves: moves.len(),
        covered: 0,
        with_search: 0,
        with_iterations: 0,
        with_evaluations: 0,
        with_time: 0,
        bestmove_agrees: 0,
        searches_in_log: 0,
        searches_unmatched: 0,
        summary: format!(
            "engine log format not recognised ({} lines): rule 13c coverage of {} machine moves \
             not checked",
            log.lines,
            moves.len()
        ),
        moves: out,
    }
}

pub(super) fn empty(m: &MachineMove) -> MoveCoverage {
    MoveCoverage {
        ply: m.ply,
        move_number: m.move_number,
        san: m.san.clone(),
        uci: m.uci.clone(),
        search: None,
        search_line: None,
        matched_by: None,
        iterations: 0,
        max_depth: None,
        iterations_without_eval: 0,
        time_ms: None,
        spent_ms: m.spent_ms,
        bestmove: None,
        has_iterations: false,
        has_evaluations: false,
        has_time: false,
        bestmove_matches: false,
        covered: false,
        problems: Vec::new(),
    }
}

fn played_by(pos: &Result<Chess, PositionError>, m: &MachineMove, best: &str) -> bool {
    match pos {
        Ok(p) => {
            let recorded = if parse_move(p, &m.uci).is_some() {
                &m.uci
            } else {
                &m.san
            };
            same_move(p, best, recorded)
        }
        Err(_) => best == m.uci,
    }
}

fn match_by_position(
    log: &EngineLog,
    moves: &[MachineMove],
    positions: &[Result<Chess, PositionError>],
) -> Vec<Option<(usize, MatchedBy)>> {
    let mut index: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, s) in log.searches.iter().enumerate() {
        if let Some(p) = &s.position {
            index.entry(p.epd.as_str()).or_default().push(i);
        }
    }
    let mut used = vec![false; log.searches.len()];
    let mut last: Option<usize> = None;
    let mut out = Vec::with_capacity(moves.len());
    for (m, pos) in moves.iter().zip(positions) {
        let Ok(p) = pos else {
            out.push(None);
            continue;
        };
        let key = epd(p);
        let candidates: Vec<usize> = index
            .get(key.as_str())
            .map(|v| v.iter().copied().filter(|&i| !used[i]).collect())
            .unwrap_or_default();
        let later: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&i| last.is_none_or(|l| i > l))
            .collect();
        let pool = if later.is_empty() { candidates } else { later };
        let rank = |i: usize| {
            let s: &Search = &log.searches[i];
            let agrees = s.bestmove.as_deref().is_some_and(|b| played_by(pos, m, b));
            (agrees, !s.discarded(), s.bestmove.is_some())
        };
        let mut best: Option<usize> = None;
        for i in pool {
            if best.is_none_or(|b| rank(i) > rank(b)) {
                best = Some(i);
            }
        }
        if let Some(i) = best {
            used[i] = true;
            last = Some(i);
        }
        out.push(best.map(|i| (i, MatchedBy::Position)));
    }
    out
}

fn match_by_order(log: &EngineLog, n: usize) -> Vec<Option<(usize, MatchedBy)>> {
    let mut eligible = log
        .searches
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.discarded() && s.bestmove.is_some())
        .map(|(i, _)| i);
    (0..n)
        .map(|_| eligible.next().map(|i| (i, MatchedBy::Order)))
        .collect()
}

fn judge(
    log: &EngineLog,
    m: &MachineMove,
    pos: &Result<Chess, PositionError>,
    choice: Option<(usize, MatchedBy)>,
) -> MoveCoverage {
    let mut c = empty(m);
    if let Err(e) = pos {
        c.problems.push(format!("position before the move: {e}"));
    }
    let Some((i, how)) = choice else {
        c.problems
            .push("no search for this position in the log".to_owned());
        return c;
    };
    let Some(s) = log.searches.get(i) else {
        c.problems
            .push("no search for this position in the log".to_owned());
        return c;
    };
    c.search = Some(i);
    c.search_line = Some(s.line);
    c.matched_by = Some(how);
    c.iterations = s.iterations.len();
    c.max_depth = s.max_depth();
    c.iterations_without_eval = s.iterations_without_score();
    c.time_ms = s.time_ms();
    c.bestmove = s.bestmove.clone();
    c.has_iterations = !s.iterations.is_empty();
    c.has_evaluations = c.has_iterations && c.iterations_without_eval == 0;
    c.has_time = c.time_ms.is_some();
    c.bestmove_matches = s.bestmove.as_deref().is_some_and(|b| played_by(pos, m, b));
    if !c.has_iterations {
        c.problems.push("no search iterations".to_owned());
    } else if c.iterations_without_eval == c.iterations {
        c.problems.push("no evaluation".to_owned());
    } else if c.iterations_without_eval > 0 {
        let depths: Vec<String> = s
            .iterations
            .iter()
            .filter(|it| it.score.is_none())
            .map(|it| it.depth.to_string())
            .collect();
        c.problems.push(format!(
            "no evaluation for {} of {} iterations (depth {})",
            c.iterations_without_eval,
            c.iterations,
            depths.join(", ")
        ));
    }
    if !c.has_time {
        c.problems.push("no time taken".to_owned());
    }
    match s.bestmove.as_deref() {
        None => c.problems.push("the engine gave no move".to_owned()),
        Some(b) if !c.bestmove_matches => c
            .problems
            .push(format!("the engine chose {b}, the board has {}", m.san)),
        Some(_) => {}
    }
    c.covered = c.has_iterations && c.has_evaluations && c.has_time && c.bestmove_matches;
    c
}

pub(super) fn summary_line(covered: usize, moves: &[MoveCoverage]) -> String {
    let mut s = format!("{covered}/{} machine moves covered", moves.len());
    let bad: Vec<&MoveCoverage> = moves.iter().filter(|c| !c.covered).collect();
    for c in bad.iter().take(SUMMARY_MOVES) {
        s.push_str(&format!(
            "; move {}: {}",
            c.move_number,
            c.problems.join(", ")
        ));
    }
    if bad.len() > SUMMARY_MOVES {
        s.push_str(&format!("; and {} more", bad.len() - SUMMARY_MOVES));
    }
    s
}

/// The machine's moves of a game given in SAN, from the start position or `start_fen`.
pub fn machine_moves_from_san<S: AsRef<str>>(
    sans: &[S],
    machine_plays_white: bool,
    start_fen: Option<&str>,
) -> Result<Vec<MachineMove>, EngineLogError> {
    let mut pos = match start_fen {
        None => Chess::default(),
        Some(f) => from_fen(f).map_err(|e| EngineLogError::BadMove {
            index: 0,
            problem: e.to_string(),
        })?,
    };
    let machine = if machine_plays_white {
        Color::White
    } else {
        Color::Black
    };
    let mut out = Vec::new();
    for (ply, text) in sans.iter().enumerate() {
        let text = text.as_ref();
        let bad = |problem: String| EngineLogError::BadMove {
            index: ply,
            problem,
        };
        let san = San::from_ascii(text.trim_end_matches(['+', '#', '!', '?']).as_bytes())
            .map_err(|e| bad(format!("{text:?} is not SAN: {e}")))?;
        let mv = san
            .to_move(&pos)
            .map_err(|e| bad(format!("{text:?} is not legal: {e}")))?;
        if pos.turn() == machine {
            out.push(MachineMove {
                ply,
                move_number: pos.fullmoves().get(),
                san: text.to_owned(),
                uci: UciMove::from_move(mv, CastlingMode::Standard).to_string(),
                fen_before: shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                    .to_string(),
                spent_ms: None,
            });
        }
        let (next, _) = play_all(pos, [text]).map_err(|e| bad(e.to_string()))?;
        pos = next;
    }
    Ok(out)
}
