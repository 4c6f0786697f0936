//! The six games of Kasparov – Deep Junior, New York 2003, their real moves
//! (tests/fixtures/kasparov-deep-junior-2003, sources in its SOURCES.md), each entered twice:
//! move-and-press, and press-then-notation with the notation typed after random delays, the
//! presses running up to three ahead of it. Both entries give the same clocks ply by ply (the
//! log's presses), the PGN's `%clk` / `%emt` are those clocks, the movetext is byte-identical,
//! and the game ends with its real result. The clock times are not the games' own (they are not
//! published move by move): seeded random thinks, 1–250 s to the millisecond.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::core::Ms;
use arbiter::core::event::EventKind;

use crate::clauses::secs;
use crate::pgn_clocks::{check, log_figures, movetext, pgn, play_both};
use crate::pgn_support::parse_pgn;

/// A game of the match: its moves, its result, who had White, and how it ended on the board.
pub(crate) struct RealGame {
    pub(crate) sans: Vec<String>,
    pub(crate) result: String,
    pub(crate) machine_white: bool,
}

pub(crate) fn real_game(n: u32) -> RealGame {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "tests/fixtures/kasparov-deep-junior-2003/game{n}.pgn"
    ));
    let text = std::fs::read_to_string(&path).unwrap();
    let p = parse_pgn(&text).unwrap();
    RealGame {
        sans: p.moves.iter().map(|m| m.san.clone()).collect(),
        result: p.tag("Result").unwrap().to_string(),
        machine_white: p.tag("White") == Some("Deep Junior"),
    }
}

/// `sans` as the standard writes them (shakmaty's SAN of each move, the check signs included).
fn standard_san(sans: &[String]) -> Vec<String> {
    let mut pos = shakmaty::Chess::default();
    sans.iter()
        .map(|s| {
            let m = s
                .parse::<shakmaty::san::San>()
                .unwrap()
                .to_move(&pos)
                .unwrap();
            let out = shakmaty::san::SanPlus::from_move_and_play_unchecked(&mut pos, m);
            out.to_string()
        })
        .collect()
}

/// A small deterministic generator (xorshift64*), seeded per game.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// The lines that end game `n` as it ended, at `t` (after its last move, both entries complete):
/// game 1 Deep Junior's team resigned, game 3 Kasparov resigned, the others were agreed drawn
/// (the offer from the side to move: Kasparov after games 4, 5 and 6; the machine after game 2).
pub(crate) fn ending(n: u32, t: Ms) -> Vec<String> {
    let at = |d: Ms| secs(t + d);
    match n {
        1 => vec![format!("{} operator resign", at(30_000))],
        3 => vec![format!("{} human resign", at(30_000))],
        2 => vec![
            format!("{} operator offer-draw eval 0.00", at(10_000)),
            format!("{} human accept-draw", at(40_000)),
        ],
        _ => vec![
            format!("{} human offer-draw", at(10_000)),
            format!("{} operator accept-draw", at(70_000)),
        ],
    }
}

/// Rule 6b and FIDE Laws 6.2, over the real games: presses first, notation after (random delays,
/// presses running ahead) against move-and-press at the same instants.
#[test]
fn laws_6_2_the_six_games_of_2003_replayed_both_ways_give_the_same_clocks_and_movetext() {
    let expected_plies = [53, 60, 72, 121, 38, 55];
    let expected_results = ["1-0", "1/2-1/2", "0-1", "1/2-1/2", "1/2-1/2", "1/2-1/2"];
    for n in 1..=6u32 {
        let g = real_game(n);
        let k = (n - 1) as usize;
        assert_eq!(g.sans.len(), expected_plies[k], "game {n}");
        assert_eq!(g.result, expected_results[k], "game {n}");
        assert_eq!(g.machine_white, n % 2 == 0, "game {n}: colours alternate");
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ u64::from(n));
        let thinks: Vec<Ms> = g.sans.iter().map(|_| 1_000 + rng.below(249_000)).collect();
        // Half the notations within seconds; the rest later, many after the reply's press.
        let delays: Vec<Ms> = g
            .sans
            .iter()
            .map(|_| {
                if rng.below(2) == 0 {
                    300 + rng.below(5_000)
                } else {
                    rng.below(400_000)
                }
            })
            .collect();
        let mut b = play_both(g.machine_white, &g.sans, &thinks, &delays);
        // Presses ran ahead of the notation: at some point three waited for their notation.
        let mut waiting = 0usize;
        let mut most = 0usize;
        for e in &b.pressed.log {
            match &e.kind {
                EventKind::ClockPressed { .. } => waiting += 1,
                EventKind::MoveMade {
                    pressed_at: Some(_),
                    ..
                } => waiting -= 1,
                _ => {}
            }
            most = most.max(waiting);
        }
        assert_eq!(waiting, 0, "game {n}");
        assert!(most >= 3, "game {n}: at most {most} presses ahead");
        check(&b, g.sans.len()).unwrap_or_else(|e| panic!("game {n}: {e}"));
        // The clocks of both entries, press by press: the same to the millisecond.
        assert_eq!(
            log_figures(&b.direct.log),
            log_figures(&b.pressed.log),
            "game {n}"
        );
        // The game ends as it did, in both entries.
        let t = b.direct.now.max(b.pressed.now);
        for line in ending(n, t) {
            b.direct.at(&line);
            b.pressed.at(&line);
        }
        for m in [&b.direct, &b.pressed] {
            let outcome = m.game().outcome().unwrap_or_else(|| panic!("game {n}"));
            assert_eq!(outcome.score.text(), g.result, "game {n}");
        }
        let (d, p) = (pgn(&b.direct), pgn(&b.pressed));
        assert_eq!(movetext(&d), movetext(&p), "game {n}");
        assert!(d.contains(&format!("[Result \"{}\"]", g.result)), "{d}");
        assert!(movetext(&d).trim_end().ends_with(&g.result), "{d}");
        // The PGN's moves are the source's, in order, in standard SAN (the source's `7. Nge2` of
        // game 5 is `Ne2`: the c3 knight is pinned).
        let back = parse_pgn(&d).unwrap();
        let sans: Vec<&str> = back.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, standard_san(&g.sans), "game {n}");
    }
}
