//! PGN export: the real game's moves and clocks survive write_pgn and SAN parsing.

use crate::pgn_support::{TestResult, parse_pgn, read_real};
use arbiter::report::pgn::{MAX_LINE, PgnGame, PgnMove, write_pgn};
use shakmaty::san::San;
use shakmaty::{Chess, Position};

#[test]
fn pgn_round_trip_of_the_real_game() -> TestResult {
    let original = parse_pgn(&read_real("game.pgn")?)?;
    assert_eq!(original.moves.len(), 106);
    let tag = |n: &str| original.tag(n).unwrap_or("?").to_owned();
    let game = PgnGame {
        event: tag("Event"),
        site: tag("Site"),
        date: tag("Date"),
        round: tag("Round"),
        white: tag("White"),
        black: tag("Black"),
        result: tag("Result"),
        time_control: tag("TimeControl"),
        termination: Some("normal".to_owned()),
        fen: None,
        numbering: Default::default(),
        moves: original
            .moves
            .iter()
            .map(|m| PgnMove {
                san: m.san.clone(),
                clock_ms: m.clk_ms.unwrap_or(0),
                spent_ms: m.emt_ms.unwrap_or(0),
                before: Vec::new(),
                draw_offer: false,
            })
            .collect(),
        trailing: Vec::new(),
        extra: Vec::new(),
    };
    let text = write_pgn(&game);

    // Layout: the tag roster in order, short lines, the result at the end.
    let names: Vec<&str> = text
        .lines()
        .take_while(|l| l.starts_with('['))
        .filter_map(|l| l[1..].split(' ').next())
        .collect();
    assert_eq!(
        names,
        [
            "Event",
            "Site",
            "Date",
            "Round",
            "White",
            "Black",
            "Result",
            "TimeControl",
            "Termination"
        ]
    );
    assert!(text.lines().all(|l| l.len() <= MAX_LINE), "{text}");
    assert!(text.ends_with(" 0-1\n"));

    let back = parse_pgn(&text)?;
    for n in [
        "Event",
        "Site",
        "Date",
        "Round",
        "White",
        "Black",
        "Result",
        "TimeControl",
    ] {
        assert_eq!(back.tag(n), original.tag(n), "{n}");
    }
    assert_eq!(back.result.as_deref(), Some("0-1"));
    assert_eq!(back.moves.len(), original.moves.len());
    let mut pos = Chess::default();
    for (a, b) in original.moves.iter().zip(&back.moves) {
        assert_eq!(a.san, b.san);
        // Whole seconds in the source: clocks come back exactly.
        assert_eq!(a.clk_ms, b.clk_ms, "{}", a.san);
        // Elapsed times are rounded to the nearest second.
        let (ea, eb) = (a.emt_ms.unwrap_or(0), b.emt_ms.ok_or("no %emt")?);
        assert_eq!(eb, (ea + 500) / 1000 * 1000, "{}", a.san);
        let m = San::from_ascii(b.san.as_bytes())?.to_move(&pos)?;
        pos.play_unchecked(m);
    }
    assert!(pos.is_checkmate());
    assert_eq!(pos.outcome().to_string(), "0-1");
    Ok(())
}

/// The PGN standard's seven-tag roster: `Site` says where the game is played. `arbiter pgn
/// --site PLACE` sets it; without it the tag is `?` (unknown), as the standard writes it.
#[test]
#[allow(clippy::unwrap_used)]
fn pgn_seven_tag_roster_site_is_set_by_site() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let ms = m.to_str().unwrap();
    crate::realgame::ok(&crate::realgame::arbiter(&[
        "script",
        "examples/scripts/quick.arb",
        "--match",
        ms,
    ]));
    let with = crate::realgame::ok(&crate::realgame::arbiter(&[
        "pgn",
        "--match",
        ms,
        "--game",
        "1",
        "--site",
        "New York, NY USA",
    ]));
    assert!(with.contains("[Site \"New York, NY USA\"]"), "{with}");
    let without = crate::realgame::ok(&crate::realgame::arbiter(&[
        "pgn", "--match", ms, "--game", "1",
    ]));
    assert!(without.contains("[Site \"?\"]"), "{without}");
}
