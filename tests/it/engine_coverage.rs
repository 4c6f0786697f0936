//! Engine-log parsing and rule-13c coverage: the real Stockfish game, hand-made UCI logs that
//! each lack one thing, a CECP sample, and an unknown format.

use crate::pgn_support::{TestResult, parse_pgn, read_real, real_data};
use arbiter::enginelog::{
    Coverage, CoverageStatus, LogFormat, MachineMove, MatchedBy, coverage, machine_moves_from_san,
    parse, parse_str,
};
use std::io::BufReader;

/// The machine's (Black's) moves of the real game.
fn real_machine_moves() -> Result<Vec<MachineMove>, Box<dyn std::error::Error>> {
    let pgn = parse_pgn(&read_real("game.pgn")?)?;
    let sans: Vec<&str> = pgn.moves.iter().map(|m| m.san.as_str()).collect();
    Ok(machine_moves_from_san(&sans, false, None)?)
}

fn real_log_text() -> Result<String, String> {
    read_real("machine-debug.log")
}

#[test]
fn engine_real_debug_log_covers_every_machine_move() -> TestResult {
    let file = std::fs::File::open(real_data("machine-debug.log")?)?;
    let log = parse(BufReader::new(file))?;
    assert_eq!(log.format, LogFormat::UciDebug);
    assert_eq!(log.searches.len(), 53);
    assert!(!log.timestamped);
    let first = &log.searches[0];
    assert_eq!(first.iterations.len(), 13);
    assert_eq!(first.bestmove.as_deref(), Some("d7d5"));
    assert_eq!(first.time_ms(), Some(102));
    // The last search (mate in one) reports 245 depths.
    assert_eq!(log.searches[52].max_depth(), Some(245));

    let moves = real_machine_moves()?;
    assert_eq!(moves.len(), 53);
    let cov = coverage(&log, &moves);
    assert_eq!(cov.status, CoverageStatus::Complete, "{}", cov.summary);
    assert_eq!(cov.covered, 53);
    assert_eq!(cov.summary, "53/53 machine moves covered");
    assert_eq!(cov.searches_unmatched, 0);
    assert!(
        cov.moves
            .iter()
            .all(|m| m.matched_by == Some(MatchedBy::Position))
    );
    // Serialises for the game log.
    let json = serde_json::to_string(&cov)?;
    assert!(json.contains("\"status\":\"complete\""));
    Ok(())
}

/// The real log with the scores of the search for Black's 23rd move removed.
#[test]
fn engine_real_log_without_one_evaluation_names_the_move() -> TestResult {
    let text = real_log_text()?;
    let moves = real_machine_moves()?;
    let target = moves
        .iter()
        .find(|m| m.move_number == 23)
        .ok_or("no move 23")?;
    let mut out = String::new();
    let mut inside = false;
    for line in text.lines() {
        if let Some(args) = line.strip_prefix(">> position startpos moves ") {
            inside = args.split_whitespace().count() == target.ply;
        }
        if inside && line.starts_with("<< info depth") {
            let words: Vec<&str> = line.split(' ').collect();
            let mut kept = Vec::new();
            let mut i = 0;
            while i < words.len() {
                if words[i] == "score" {
                    i += 3;
                    continue;
                }
                kept.push(words[i]);
                i += 1;
            }
            out.push_str(&kept.join(" "));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    let cov = coverage(&parse_str(&out), &moves);
    assert_eq!(cov.covered, 52);
    assert_eq!(
        cov.summary,
        "52/53 machine moves covered; move 23: no evaluation"
    );
    Ok(())
}

/// 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6: the machine has Black.
fn short_game() -> Result<Vec<MachineMove>, Box<dyn std::error::Error>> {
    Ok(machine_moves_from_san(
        &["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"],
        false,
        None,
    )?)
}

const GOOD_1: &str = ">> position startpos moves e2e4
>> go wtime 7200000 btime 7200000 movestogo 40
<< info depth 1 seldepth 1 score cp -20 nodes 20 time 1 pv e7e5
<< info depth 2 seldepth 2 score cp -25 nodes 80 time 3 pv e7e5 g1f3
<< bestmove e7e5 ponder g1f3
";
const GOOD_2: &str = ">> position startpos moves e2e4 e7e5 g1f3
>> go wtime 7200000 btime 7190000 movestogo 39
<< info depth 1 seldepth 1 score cp -30 nodes 20 time 2 pv b8c6
<< info depth 2 seldepth 3 score cp -28 nodes 90 time 5 pv b8c6 f1b5
<< bestmove b8c6
";
const GOOD_3: &str = ">> position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5
>> go wtime 7200000 btime 7180000 movestogo 38
<< info depth 1 seldepth 1 score cp -35 nodes 20 time 2 pv a7a6
<< info depth 2 seldepth 2 score cp -33 nodes 70 time 4 pv a7a6 b5a4
<< bestmove a7a6
";

fn check(log: &str) -> Result<Coverage, Box<dyn std::error::Error>> {
    Ok(coverage(&parse_str(log), &short_game()?))
}

#[test]
fn engine_handmade_complete_log() -> TestResult {
    let cov = check(&format!("{GOOD_1}{GOOD_2}{GOOD_3}"))?;
    assert_eq!(cov.summary, "3/3 machine moves covered");
    assert_eq!(cov.moves[1].max_depth, Some(2));
    assert_eq!(cov.moves[1].time_ms, Some(5));
    Ok(())
}

#[test]
fn engine_handmade_missing_evaluations() -> TestResult {
    let two = GOOD_2
        .replace("score cp -30 ", "")
        .replace("score cp -28 ", "");
    let cov = check(&format!("{GOOD_1}{two}{GOOD_3}"))?;
    assert_eq!(
        cov.summary,
        "2/3 machine moves covered; move 2: no evaluation"
    );
    let m = &cov.moves[1];
    assert!(m.has_iterations && !m.has_evaluations && m.has_time && m.bestmove_matches);
    // One iteration of two without a score.
    let three = GOOD_3.replace("score cp -33 ", "");
    let cov = check(&format!("{GOOD_1}{GOOD_2}{three}"))?;
    assert_eq!(
        cov.summary,
        "2/3 machine moves covered; move 3: no evaluation for 1 of 2 iterations (depth 2)"
    );
    Ok(())
}

#[test]
fn engine_handmade_missing_time() -> TestResult {
    let two = GOOD_2.replace(" time 2", "").replace(" time 5", "");
    let cov = check(&format!("{GOOD_1}{two}{GOOD_3}"))?;
    assert_eq!(
        cov.summary,
        "2/3 machine moves covered; move 2: no time taken"
    );
    assert_eq!(cov.with_time, 2);
    Ok(())
}

#[test]
fn engine_handmade_missing_iterations() -> TestResult {
    // A book move: the engine answered at once, without a search.
    let one = ">> position startpos moves e2e4\n>> go wtime 7200000 btime 7200000\n\
               << info string book move\n<< bestmove e7e5\n";
    let cov = check(&format!("{one}{GOOD_2}{GOOD_3}"))?;
    assert_eq!(
        cov.summary,
        "2/3 machine moves covered; move 1: no search iterations, no time taken"
    );
    Ok(())
}

#[test]
fn engine_handmade_bestmove_differs() -> TestResult {
    let three = GOOD_3.replace("bestmove a7a6", "bestmove g8f6");
    let cov = check(&format!("{GOOD_1}{GOOD_2}{three}"))?;
    assert_eq!(
        cov.summary,
        "2/3 machine moves covered; move 3: the engine chose g8f6, the board has a6"
    );
    assert_eq!(cov.bestmove_agrees, 2);
    Ok(())
}

#[test]
fn engine_handmade_missing_search() -> TestResult {
    let cov = check(&format!("{GOOD_1}{GOOD_3}"))?;
    assert_eq!(
        cov.summary,
        "2/3 machine moves covered; move 2: no search for this position in the log"
    );
    Ok(())
}

#[test]
fn engine_matches_by_position_not_by_order() -> TestResult {
    // A ponder search on a wrong guess, then an analysis of an unrelated position, come
    // before the real searches; the searches are out of step with the moves by order.
    let ponder = ">> position startpos moves e2e4 e7e5 d2d4\n>> go ponder wtime 1 btime 1\n\
                  << info depth 1 score cp 0 time 1 pv e5d4\n>> stop\n<< bestmove e5d4\n";
    let other = ">> position fen 8/8/8/8/8/8/k7/7K w - - 0 1\n>> go depth 3\n\
                 << info depth 1 score cp 0 time 1 pv h1g2\n<< bestmove h1g2\n";
    let log = format!("{GOOD_1}{ponder}{other}{GOOD_2}{GOOD_3}");
    let cov = check(&log)?;
    assert_eq!(cov.summary, "3/3 machine moves covered");
    assert_eq!(cov.searches_in_log, 5);
    assert_eq!(cov.searches_unmatched, 2);
    assert_eq!(cov.moves[1].search, Some(3));
    Ok(())
}

#[test]
fn engine_pondering_with_ponderhit_counts() -> TestResult {
    let two = ">> position startpos moves e2e4 e7e5 g1f3\n>> go ponder wtime 1 btime 1\n\
               << info depth 1 score cp -30 time 2 pv b8c6\n>> ponderhit\n\
               << info depth 2 score cp -28 time 9 pv b8c6 f1b5\n<< bestmove b8c6\n";
    let cov = check(&format!("{GOOD_1}{two}{GOOD_3}"))?;
    assert_eq!(cov.summary, "3/3 machine moves covered");
    Ok(())
}

#[test]
fn engine_time_from_stamps_in_a_cutechess_log() -> TestResult {
    let log = "100 >sf(1): position startpos moves e2e4\n\
               105 >sf(1): go wtime 7200000 btime 7200000\n\
               200 <sf(1): info depth 1 seldepth 1 score cp -20 nodes 20 pv e7e5\n\
               1350 <sf(1): bestmove e7e5\n";
    let parsed = parse_str(log);
    assert_eq!(parsed.format, LogFormat::UciDebug);
    assert!(parsed.timestamped);
    assert_eq!(parsed.searches[0].time_ms(), Some(1245));
    let cov = coverage(&parsed, &short_game()?[..1]);
    assert_eq!(cov.summary, "1/1 machine moves covered");
    Ok(())
}

const CECP_TRAFFIC: &str = ">first : xboard
>first : protover 2
<first : feature usermove=1 setboard=1 done=1
>first : new
>first : level 40 120 0
>first : post
>first : usermove e2e4
<first : 1 -15 0 21 e7e5
<first : 2 -22 1 89 e7e5 Nf3
<first : 3 -18 4 420 e7e5 Nf3 Nc6
<first : move e7e5
>first : usermove g1f3
<first : 1 -25 0 30 Nc6
<first : 2 -31 2 160 Nc6 Bb5
<first : move b8c6
>first : usermove f1b5
<first : 1 -30 1 22 a6
<first : 2 -35 3 99 a6 Ba4
<first : move a7a6
";

#[test]
fn engine_cecp_traffic_matches_by_position() -> TestResult {
    let log = parse_str(CECP_TRAFFIC);
    assert_eq!(log.format, LogFormat::Cecp);
    assert_eq!(log.searches.len(), 3);
    let s = &log.searches[0];
    assert_eq!(s.iterations.len(), 3);
    // Centiseconds to milliseconds.
    assert_eq!(s.time_ms(), Some(40));
    let cov = coverage(&log, &short_game()?);
    assert_eq!(cov.summary, "3/3 machine moves covered");
    assert!(
        cov.moves
            .iter()
            .all(|m| m.matched_by == Some(MatchedBy::Position))
    );
    Ok(())
}

#[test]
fn engine_cecp_thinking_output_alone_matches_by_order() -> TestResult {
    // Only what the engine wrote, without frames: no positions, so order decides.
    let text: String = CECP_TRAFFIC
        .lines()
        .filter_map(|l| l.strip_prefix("<first : "))
        .map(|l| format!("{l}\n"))
        .collect();
    let log = parse_str(&text);
    assert_eq!(log.format, LogFormat::Cecp);
    let cov = coverage(&log, &short_game()?);
    assert_eq!(cov.summary, "3/3 machine moves covered");
    assert!(
        cov.moves
            .iter()
            .all(|m| m.matched_by == Some(MatchedBy::Order))
    );
    // A thinking line without time and a wrong move are noticed.
    let wrong = text.replace("move a7a6", "move g8f6");
    let cov = coverage(&parse_str(&wrong), &short_game()?);
    assert_eq!(
        cov.summary,
        "2/3 machine moves covered; move 3: the engine chose g8f6, the board has a6"
    );
    Ok(())
}

#[test]
fn engine_unknown_format_is_reported_as_unknown() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("log.txt");
    std::fs::write(
        &path,
        "Dear arbiter,\nthe machine played well today.\ngo\nquit\n\u{0}\u{1}binary junk\n",
    )?;
    let log = parse(BufReader::new(std::fs::File::open(&path)?))?;
    assert_eq!(log.format, LogFormat::Unknown);
    assert!(log.searches.is_empty());
    let cov = coverage(&log, &short_game()?);
    assert_eq!(cov.status, CoverageStatus::UnknownFormat);
    assert_eq!(cov.covered, 0);
    assert_eq!(
        cov.summary,
        "engine log format not recognised (5 lines): rule 13c coverage of 3 machine moves not checked"
    );
    Ok(())
}

#[test]
fn engine_repeated_position_takes_the_searches_in_turn() -> TestResult {
    // 1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nc6: Black faces the same position at moves 1 and 3.
    let moves = machine_moves_from_san(&["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nc6"], false, None)?;
    assert_eq!(
        moves[0].fen_before.split(' ').take(4).collect::<Vec<_>>(),
        moves[2].fen_before.split(' ').take(4).collect::<Vec<_>>()
    );
    let search = |before: &str, best: &str| {
        format!(
            ">> position startpos moves {before}\n>> go movetime 100\n\
             << info depth 1 score cp 0 time 5 pv {best}\n<< bestmove {best}\n"
        )
    };
    let log = [
        search("g1f3", "g8f6"),
        search("g1f3 g8f6 f3g1", "f6g8"),
        search("g1f3 g8f6 f3g1 f6g8 g1f3", "b8c6"),
    ]
    .concat();
    let cov = coverage(&parse_str(&log), &moves);
    assert_eq!(cov.summary, "3/3 machine moves covered");
    let picked: Vec<Option<usize>> = cov.moves.iter().map(|m| m.search).collect();
    assert_eq!(picked, [Some(0), Some(1), Some(2)]);
    Ok(())
}
