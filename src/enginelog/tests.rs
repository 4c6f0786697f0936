//! Unit tests of the engine-log reader: frames, format detection, info lines, long lines.
#![allow(clippy::unwrap_used)]

use super::line::{Dir, frame};
use super::*;

#[test]
fn frames_are_taken_off() {
    let f = frame(">> go movetime 100");
    assert_eq!(
        (f.dir, f.text, f.stamp_ms),
        (Some(Dir::ToEngine), "go movetime 100", None)
    );
    let f = frame("1234 <Stockfish 16(0): bestmove e2e4");
    assert_eq!(
        (f.dir, f.text, f.stamp_ms),
        (Some(Dir::FromEngine), "bestmove e2e4", Some(1234))
    );
    let f = frame("[12:00:01.250] <first : move e7e5");
    assert_eq!(
        (f.dir, f.text, f.stamp_ms),
        (Some(Dir::FromEngine), "move e7e5", Some(43_201_250))
    );
    // A CECP thinking line starts with integers; they are not a stamp.
    let f = frame("9 156 1084 48000 Nf3 Nc6");
    assert_eq!(
        (f.dir, f.text, f.stamp_ms),
        (None, "9 156 1084 48000 Nf3 Nc6", None)
    );
}

#[test]
fn detects_each_format_from_one_line() {
    assert_eq!(
        detect_line("<< info depth 1 score cp 3"),
        Some(LogFormat::UciDebug)
    );
    assert_eq!(
        detect_line("info depth 1 score cp 3"),
        Some(LogFormat::UciTraffic)
    );
    assert_eq!(
        detect_line("9 156 1084 48000 Nf3 Nc6"),
        Some(LogFormat::Cecp)
    );
    assert_eq!(detect_line("move e7e5"), Some(LogFormat::Cecp));
    assert_eq!(detect_line("go"), None);
    assert_eq!(detect_line("hello world"), None);
}

#[test]
fn info_lines_merge_per_depth_and_skip_progress_lines() {
    let log = parse_str(
        "position startpos moves e2e4\n\
         go wtime 1000 btime 1000\n\
         info depth 1 seldepth 1 score cp 20 upperbound nodes 10 time 1 pv e7e5\n\
         info depth 1 seldepth 2 score cp 15 nodes 20 time 2 pv e7e5 g1f3\n\
         info depth 2 currmove e7e5 currmovenumber 1\n\
         info depth 2 multipv 2 score cp 5 time 3 pv c7c5\n\
         info depth 2 multipv 1 score mate -3 lowerbound time 4 pv c7c5\n\
         info string done\n\
         bestmove c7c5 ponder g1f3\n",
    );
    assert_eq!(log.format, LogFormat::UciTraffic);
    let s = &log.searches[0];
    assert_eq!(s.iterations.len(), 2);
    assert_eq!(
        s.iterations[0].score,
        Some(Score::Cp {
            value: 15,
            bound: Bound::Exact
        })
    );
    assert_eq!(s.iterations[0].pv, vec!["e7e5", "g1f3"]);
    assert_eq!(
        s.iterations[1].score,
        Some(Score::Mate {
            moves: -3,
            bound: Bound::Lower
        })
    );
    assert_eq!(s.max_multipv, 2);
    assert_eq!(s.info_lines, 6);
    assert_eq!(s.time_ms(), Some(4));
    assert_eq!(s.bestmove.as_deref(), Some("c7c5"));
    assert_eq!(s.ponder_move.as_deref(), Some("g1f3"));
    assert!(
        s.position
            .as_ref()
            .unwrap()
            .epd
            .starts_with("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq")
    );
}

#[test]
fn long_lines_are_cut_not_kept() {
    let mut text = String::from("<< info depth 1 score cp 1 time 5 pv ");
    text.push_str(&"e2e4 ".repeat(40_000));
    text.push_str("\n<< bestmove e2e4\n");
    let log = parse(text.as_bytes()).unwrap();
    assert_eq!(log.truncated_lines, 1);
    assert_eq!(log.searches[0].iterations[0].pv.len(), MAX_PV_MOVES);
}
