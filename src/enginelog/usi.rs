//! USI, the shogi engines' protocol: `position startpos|sfen … moves …`, `go btime B wtime W
//! byoyomi Y binc I winc J`, `info …`, `bestmove M`; the 13c coverage of a shogi game's machine
//! moves by such a log (searches matched to moves by position: board, side to move and hands) and
//! the machine's moves of a shogi record. PURE.
//!
//! In USI `b` (black) is sente, the first player, which the kit calls White: `go btime` is sente's
//! clock, `wtime` gote's.

use super::coverage::{empty, summary_line};
use super::line::Framed;
use super::uci::parse_info;
use super::{
    ClockGiven, Coverage, CoverageStatus, EngineLog, EngineLogError, Iteration, MachineMove,
    MatchedBy, MoveCoverage, Search, SearchPosition,
};
use crate::core::shogi::{ShogiMoveError, ShogiRecord};
use std::collections::HashMap;

/// Longest `go` argument text kept.
const MAX_GO_CHARS: usize = 200;

/// Milliseconds in a day: clock-style stamps wrap at midnight.
const DAY_MS: u64 = 86_400_000;

/// Whether `w` is written like a USI move: `7g7f`, `8h2b+`, `P*5e`.
pub(crate) fn is_usi_move(w: &str) -> bool {
    let b = w.as_bytes();
    let file = |c: u8| (b'1'..=b'9').contains(&c);
    let rank = |c: u8| (b'a'..=b'i').contains(&c);
    match b {
        [p, b'*', f, r] => b"PLNSGBR".contains(p) && file(*f) && rank(*r),
        [f1, r1, f2, r2] | [f1, r1, f2, r2, b'+'] => {
            file(*f1) && rank(*r1) && file(*f2) && rank(*r2)
        }
        _ => false,
    }
}

/// Whether `w` is written like a chess move in UCI: `e2e4`, `e7e8q`.
fn is_chess_move(w: &str) -> bool {
    let b = w.as_bytes();
    let file = |c: u8| (b'a'..=b'h').contains(&c);
    let rank = |c: u8| (b'1'..=b'8').contains(&c);
    match b {
        [f1, r1, f2, r2] => file(*f1) && rank(*r1) && file(*f2) && rank(*r2),
        [f1, r1, f2, r2, p] => {
            file(*f1) && rank(*r1) && file(*f2) && rank(*r2) && b"qrbnk".contains(p)
        }
        _ => false,
    }
}

/// What a line says of a log UCI and USI share words with (`setoption`, `isready`, `go`, `info`,
/// `position startpos`): `Some(true)` only USI writes it (`usi`, `usinewgame`, `position sfen`,
/// `go … byoyomi`, a shogi move), `Some(false)` only chess UCI (`uci`, `position fen`, a chess
/// move), `None` either.
pub(crate) fn betrays(f: &Framed<'_>) -> Option<bool> {
    let mut words = f.text.split_whitespace();
    let first = words.next()?;
    let second = words.next();
    let by_move = |m: Option<&str>| match m {
        Some(m) if is_usi_move(m) => Some(true),
        Some(m) if is_chess_move(m) => Some(false),
        _ => None,
    };
    match first {
        "usi" | "usiok" | "usinewgame" => second.is_none().then_some(true),
        "uci" | "uciok" | "ucinewgame" => second.is_none().then_some(false),
        "gameover" => matches!(second, Some("win" | "lose" | "draw")).then_some(true),
        "setoption" | "option" => (second == Some("name")
            && words.next().is_some_and(|n| n.starts_with("USI_")))
        .then_some(true),
        "position" => match second {
            Some("sfen") => Some(true),
            Some("fen") => Some(false),
            Some("startpos") => {
                let mut rest = words.skip_while(|w| *w != "moves");
                rest.next();
                by_move(rest.next())
            }
            _ => None,
        },
        "go" => f
            .text
            .split_whitespace()
            .any(|w| w == "byoyomi")
            .then_some(true),
        "bestmove" => match second {
            Some("resign" | "win") => Some(true),
            m => by_move(m),
        },
        _ => None,
    }
}

/// `btime` / `wtime` / `byoyomi` / `binc` / `winc` of a `go` command, when it gives a clock.
fn clock_given(args: &str) -> Option<ClockGiven> {
    let words: Vec<&str> = args.split_whitespace().collect();
    let value = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|k| words.get(k + 1))
            .and_then(|v| v.parse::<i64>().ok())
    };
    let (btime_ms, wtime_ms) = (value("btime"), value("wtime"));
    (btime_ms.is_some() || wtime_ms.is_some()).then_some(ClockGiven::Usi {
        btime_ms,
        wtime_ms,
        byoyomi_ms: value("byoyomi"),
        binc_ms: value("binc"),
        winc_ms: value("winc"),
        sente_to_move: None,
    })
}

#[derive(Debug, Default)]
pub(crate) struct UsiParser {
    done: Vec<Search>,
    current: Option<Search>,
    /// Arguments of the last `position` command.
    pending_position: Option<String>,
    /// Time stamp of `go` (or `ponderhit`) for the open search.
    start_stamp: Option<u64>,
}

impl UsiParser {
    pub(crate) fn feed(&mut self, n: u64, f: &Framed<'_>) {
        let (word, rest) = match f.text.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (f.text, ""),
        };
        match word {
            "position" => self.pending_position = Some(rest.to_owned()),
            "go" => self.go(n, rest, f.stamp_ms),
            "ponderhit" => {
                if let Some(s) = self.current.as_mut() {
                    s.ponderhit = true;
                    if f.stamp_ms.is_some() {
                        self.start_stamp = f.stamp_ms;
                    }
                }
            }
            "stop" => {
                if let Some(s) = self.current.as_mut() {
                    s.stopped = true;
                }
            }
            "info" => self.info(n, rest),
            "bestmove" => self.bestmove(n, rest, f.stamp_ms),
            _ => {}
        }
    }

    fn go(&mut self, n: u64, args: &str, stamp: Option<u64>) {
        self.close();
        let mut s = Search::new(n);
        s.go = Some(args.chars().take(MAX_GO_CHARS).collect());
        s.ponder = args.split_whitespace().any(|w| w == "ponder");
        s.clock = clock_given(args);
        if let Some(p) = self.pending_position.as_deref() {
            match resolve_position(p) {
                Ok(pos) => {
                    if let Some(ClockGiven::Usi { sente_to_move, .. }) = s.clock.as_mut() {
                        *sente_to_move = Some(pos.epd.split_whitespace().nth(1) == Some("b"));
                    }
                    s.position = Some(pos);
                }
                Err(e) => s.position_error = Some(e.to_string()),
            }
        }
        self.start_stamp = stamp;
        self.current = Some(s);
    }

    fn info(&mut self, n: u64, rest: &str) {
        // USI writes a mate without its distance as `mate +` / `mate -`: a score all the same.
        let rest = rest
            .replace("mate + ", "mate 1 ")
            .replace("mate - ", "mate -1 ");
        let info = parse_info(&rest);
        if self.current.is_none()
            && info.depth.is_none()
            && info.score.is_none()
            && info.pv.is_empty()
        {
            return;
        }
        let s = self.current.get_or_insert_with(|| Search::new(n));
        s.info_lines += 1;
        if let Some(t) = info.time_ms {
            s.note_time(t);
        }
        if let Some(k) = info.multipv {
            s.max_multipv = s.max_multipv.max(k);
        }
        if let Some(depth) = info.depth
            && !info.currmove
            && info.multipv.is_none_or(|k| k <= 1)
        {
            s.record(Iteration {
                depth,
                seldepth: info.seldepth,
                score: info.score,
                time_ms: info.time_ms,
                nodes: info.nodes,
                pv: info.pv,
            });
        }
    }

    fn bestmove(&mut self, n: u64, rest: &str, stamp: Option<u64>) {
        let start = self.start_stamp;
        let s = self.current.get_or_insert_with(|| Search::new(n));
        let mut words = rest.split_whitespace();
        s.bestmove = words.next().map(str::to_owned);
        if words.next() == Some("ponder") {
            s.ponder_move = words.next().map(str::to_owned);
        }
        if let (Some(a), Some(b)) = (start, stamp) {
            s.stamped_ms = if b >= a {
                Some(b - a)
            } else if a < DAY_MS {
                Some(b + DAY_MS - a)
            } else {
                None
            };
        }
        self.close();
    }

    fn close(&mut self) {
        if let Some(s) = self.current.take() {
            self.done.push(s);
        }
        self.start_stamp = None;
    }

    pub(crate) fn finish(mut self) -> Vec<Search> {
        self.close();
        self.done
    }
}

/// Why the position a USI `position` command names could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UsiPositionError {
    #[error("position command not understood: {0:?}")]
    Unreadable(String),
    #[error("position command: expected `moves`, found {0:?}")]
    NoMoves(String),
    #[error("bad start position: {0}")]
    Start(ShogiMoveError),
    #[error("move {index} ({usi}) is not legal in {sfen}")]
    Illegal {
        index: usize,
        usi: String,
        sfen: String,
    },
}

/// `startpos [moves …]` or `sfen <board> <side> <hands> <n> [moves …]`.
fn resolve_position(args: &str) -> Result<SearchPosition, UsiPositionError> {
    let mut words = args.split_whitespace().peekable();
    let mut record = match words.next() {
        Some("startpos") => ShogiRecord::new(),
        Some("sfen") => {
            let mut sfen = Vec::new();
            while let Some(w) = words.next_if(|w| *w != "moves") {
                sfen.push(w);
            }
            ShogiRecord::from_sfen(&sfen.join(" ")).map_err(UsiPositionError::Start)?
        }
        other => return Err(UsiPositionError::Unreadable(other.unwrap_or("").into())),
    };
    match words.next() {
        None | Some("moves") => {}
        Some(w) => return Err(UsiPositionError::NoMoves(w.into())),
    }
    let mut k = 0usize;
    for w in words {
        record.play_usi(w).map_err(|_| UsiPositionError::Illegal {
            index: k + 1,
            usi: w.into(),
            sfen: record.sfen(),
        })?;
        k += 1;
    }
    Ok(SearchPosition {
        epd: record.position_key(),
        moves_from_base: k,
    })
}

/// The moves of the program(s) on `sides` (one side, or both when a program plays itself) of a
/// shogi game given in USI from `start_sfen`, with the SFEN before each in `fen_before` and the
/// Japanese notation (▲/△) in `san`. Every ply is a move in shogi's count (手数), so
/// `move_number` is the ply, from 1. Sente is the kit's White.
pub fn machine_moves_from_usi<S: AsRef<str>>(
    start_sfen: &str,
    moves: &[S],
    sides: &[crate::core::Side],
) -> Result<Vec<MachineMove>, EngineLogError> {
    let mut record = ShogiRecord::from_sfen(start_sfen).map_err(|e| EngineLogError::BadMove {
        index: 0,
        problem: e.to_string(),
    })?;
    let mut out = Vec::new();
    for (ply, text) in moves.iter().enumerate() {
        let before = record.sfen();
        let turn = record.side_to_move();
        let mv = record
            .play_usi(text.as_ref())
            .map_err(|e| EngineLogError::BadMove {
                index: ply,
                problem: e.to_string(),
            })?;
        if sides.contains(&turn) {
            out.push(MachineMove {
                ply,
                move_number: u32::try_from(ply + 1).unwrap_or(u32::MAX),
                san: mv.san.into(),
                uci: mv.uci.into(),
                fen_before: before,
                spent_ms: None,
            });
        }
    }
    Ok(out)
}

/// The position key (board, side to move, hands) of an SFEN.
fn key_of(sfen: &str) -> Result<String, ShogiMoveError> {
    ShogiRecord::from_sfen(sfen).map(|r| r.position_key())
}

/// Rule 13c for a shogi game: `moves` (the machine's, in game order, SFEN before each) against a
/// USI log. A search is taken for a move when it was asked about the position before it; among
/// several, the one after the previous move's search whose `bestmove` is the move played.
pub(crate) fn coverage(log: &EngineLog, moves: &[MachineMove]) -> Coverage {
    let keys: Vec<Result<String, ShogiMoveError>> =
        moves.iter().map(|m| key_of(&m.fen_before)).collect();
    let mut index: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, s) in log.searches.iter().enumerate() {
        if let Some(p) = &s.position {
            index.entry(p.epd.as_str()).or_default().push(i);
        }
    }
    let mut used = vec![false; log.searches.len()];
    let mut last: Option<usize> = None;
    let mut out = Vec::with_capacity(moves.len());
    for (m, key) in moves.iter().zip(&keys) {
        let chosen = match key {
            Ok(k) => {
                let candidates: Vec<usize> = index
                    .get(k.as_str())
                    .map(|v| v.iter().copied().filter(|&i| !used[i]).collect())
                    .unwrap_or_default();
                let later: Vec<usize> = candidates
                    .iter()
                    .copied()
                    .filter(|&i| last.is_none_or(|l| i > l))
                    .collect();
                let pool = if later.is_empty() { candidates } else { later };
                let rank = |i: usize| {
                    let s = &log.searches[i];
                    (
                        s.bestmove.as_deref() == Some(m.uci.as_str()),
                        !s.discarded(),
                        s.bestmove.is_some(),
                    )
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
                best
            }
            Err(_) => None,
        };
        out.push(judge(log, m, key.as_ref().err(), chosen));
    }
    let used = out.iter().filter(|c| c.search.is_some()).count();
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
        with_search: used,
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

fn judge(
    log: &EngineLog,
    m: &MachineMove,
    bad_position: Option<&ShogiMoveError>,
    chosen: Option<usize>,
) -> MoveCoverage {
    let mut c = empty(m);
    if let Some(e) = bad_position {
        c.problems.push(format!("position before the move: {e}"));
    }
    let Some((i, s)) = chosen.and_then(|i| log.searches.get(i).map(|s| (i, s))) else {
        c.problems
            .push("no search for this position in the log".to_owned());
        return c;
    };
    c.search = Some(i);
    c.search_line = Some(s.line);
    c.matched_by = Some(MatchedBy::Position);
    c.iterations = s.iterations.len();
    c.max_depth = s.max_depth();
    c.iterations_without_eval = s.iterations_without_score();
    c.time_ms = s.time_ms();
    c.bestmove = s.bestmove.clone();
    c.has_iterations = !s.iterations.is_empty();
    c.has_evaluations = c.has_iterations && c.iterations_without_eval == 0;
    c.has_time = c.time_ms.is_some();
    c.bestmove_matches = s.bestmove.as_deref() == Some(m.uci.as_str());
    if !c.has_iterations {
        c.problems.push("no search iterations".to_owned());
    } else if c.iterations_without_eval > 0 {
        c.problems.push(format!(
            "no evaluation for {} of {} iterations",
            c.iterations_without_eval, c.iterations
        ));
    }
    if !c.has_time {
        c.problems.push("no time taken".to_owned());
    }
    match s.bestmove.as_deref() {
        None => c.problems.push("the engine gave no move".to_owned()),
        Some(b) if !c.bestmove_matches => c.problems.push(format!(
            "the engine chose {b}, the board has {} ({})",
            m.uci, m.san
        )),
        Some(_) => {}
    }
    c.covered = c.has_iterations && c.has_evaluations && c.has_time && c.bestmove_matches;
    c
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn usi_and_chess_moves_are_told_apart() {
        for m in ["7g7f", "8h2b+", "P*5e", "1a1b"] {
            assert!(is_usi_move(m) && !is_chess_move(m), "{m}");
        }
        for m in ["e2e4", "e7e8q", "a1h8"] {
            assert!(is_chess_move(m) && !is_usi_move(m), "{m}");
        }
        assert!(!is_usi_move("K*5e") && !is_usi_move("7j7f") && !is_usi_move("0g7f"));
    }

    #[test]
    fn sente_is_btime() {
        let c = clock_given("btime 170000 wtime 590000 binc 2000 winc 2000").unwrap();
        assert_eq!(c.engine_ms(true), Some(170_000));
        assert_eq!(c.engine_ms(false), Some(590_000));
        // With the position known, the side to move says whose clock is the engine's.
        let mut p = UsiParser::default();
        for l in ["position startpos moves 7g7f", "go btime 1000 wtime 2000"] {
            p.feed(1, &super::super::line::frame(l));
        }
        let s = p.finish();
        assert_eq!(s[0].clock.unwrap().engine_ms(true), Some(2000));
    }

    #[test]
    fn plain_usi_traffic_is_usi_and_a_mate_without_distance_is_a_score() {
        let log = crate::enginelog::parse_str(
            "usi\nusiok\nisready\nreadyok\nusinewgame\nposition startpos\n\
             go btime 180000 wtime 600000 byoyomi 0\n\
             info depth 1 score mate + time 3 pv 7g7f\nbestmove 7g7f\n",
        );
        assert_eq!(log.format, crate::enginelog::LogFormat::Usi);
        let s = &log.searches[0];
        assert_eq!(s.bestmove.as_deref(), Some("7g7f"));
        assert!(s.iterations[0].score.is_some());
        assert!(matches!(
            s.clock,
            Some(ClockGiven::Usi {
                byoyomi_ms: Some(0),
                sente_to_move: Some(true),
                ..
            })
        ));
        // Lines both protocols write decide nothing until one only USI writes.
        let log = crate::enginelog::parse_str(
            "setoption name Threads value 1\nisready\nposition startpos\ngo depth 3\n\
             info depth 1 score cp 10 time 1 pv 2g2f\nbestmove 2g2f\n",
        );
        assert_eq!(log.format, crate::enginelog::LogFormat::Usi);
        assert_eq!(log.searches.len(), 1);
        // And a chess log stays UCI.
        let log = crate::enginelog::parse_str(
            "setoption name Threads value 1\nposition startpos\ngo depth 3\n\
             info depth 1 score cp 10 time 1 pv e2e4\nbestmove e2e4\n",
        );
        assert_eq!(log.format, crate::enginelog::LogFormat::UciTraffic);
        assert!(log.searches[0].position.is_some());
    }

    #[test]
    fn positions_from_startpos_and_sfen_have_one_key() {
        let a = resolve_position("startpos moves 7g7f 3c3d").unwrap();
        let b = resolve_position(
            "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2 moves 3c3d",
        )
        .unwrap();
        assert_eq!(a.epd, b.epd);
        assert_eq!((a.moves_from_base, b.moves_from_base), (2, 1));
        assert!(matches!(
            resolve_position("startpos moves 7g7f 7g7f"),
            Err(UsiPositionError::Illegal { index: 2, .. })
        ));
    }
}
