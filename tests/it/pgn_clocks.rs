//! The PGN is the log's arithmetic. A game entered press-then-notation (presses running
//! ahead of the notation, up to four waiting) gives the same PGN movetext, byte for byte, as the
//! same game entered move-and-press at the same instants; and every ply's `%clk` / `%emt` is the
//! log's own clock and time for that press, rounded as the PGN module says.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::VecDeque;

use arbiter::core::Ms;
use arbiter::core::event::{Event, EventKind};
use arbiter::report::pgn::{format_clock, format_elapsed};
use proptest::prelude::*;
use shakmaty::san::San;
use shakmaty::{Chess, Position};

use crate::clauses::{HUMAN_WHITE, MACHINE_WHITE, Match, given, secs};

/// A game played twice: move-and-press, and press-then-notation with each notation typed
/// `delays[i]` after its press (or later, when the operator falls four presses behind).
pub(crate) struct Both {
    pub(crate) direct: Match,
    pub(crate) pressed: Match,
}

pub(crate) fn play_both(
    machine_white: bool,
    sans: &[String],
    thinks: &[Ms],
    delays: &[Ms],
) -> Both {
    let decl = if machine_white {
        MACHINE_WHITE
    } else {
        HUMAN_WHITE
    };
    play_both_on(|| given(decl).and("0 arbiter start"), sans, thinks, delays)
}

/// [`play_both`] on the started games `start` gives.
fn play_both_on(start: impl Fn() -> Match, sans: &[String], thinks: &[Ms], delays: &[Ms]) -> Both {
    let mut direct = start();
    let mut pressed = start();
    let mut t: Ms = 0;
    let mut now: Ms = 0;
    let mut waiting: VecDeque<(Ms, &str)> = VecDeque::new();
    for (i, san) in sans.iter().enumerate() {
        t += thinks[i];
        direct.at(&format!("{} move {san}", secs(t)));
        // Notation typed before this press comes first; past three waiting, the operator
        // catches up before the press (the board takes four at most).
        while let Some((typed, s)) = waiting.front().copied() {
            if typed > t && waiting.len() < 3 {
                break;
            }
            now = now.max(typed.min(t));
            pressed.at(&format!("{} move {s}", secs(now)));
            waiting.pop_front();
        }
        now = now.max(t);
        pressed.at(&format!("{} press", secs(now)));
        waiting.push_back((t + delays[i], san));
    }
    for (typed, s) in waiting {
        now = now.max(typed);
        pressed.at(&format!("{} move {s}", secs(now)));
    }
    Both { direct, pressed }
}

pub(crate) fn pgn(m: &Match) -> String {
    arbiter::after::postgame::pgn_of(&m.log, "2003-01-26T16:00:00Z").unwrap()
}

/// The movetext: everything after the tags.
pub(crate) fn movetext(pgn: &str) -> &str {
    pgn.split_once("\n\n").map_or("", |(_, m)| m)
}

/// `(%clk, %emt)` of every move of the PGN, in order.
fn clock_comments(pgn: &str) -> Vec<(String, String)> {
    movetext(pgn)
        .split("{[%clk ")
        .skip(1)
        .map(|s| {
            let (clk, rest) = s.split_once("] [%emt ").unwrap();
            let (emt, _) = rest.split_once("]}").unwrap();
            (clk.to_string(), emt.to_string())
        })
        .collect()
}

/// The log's own figures per ply: each press (a move-and-press, or a press on its own) in log
/// order gives the side's clock after it and the time it charged.
pub(crate) fn log_figures(log: &[Event]) -> Vec<(i64, u64)> {
    log.iter()
        .filter_map(|e| match &e.kind {
            EventKind::MoveMade {
                pressed_at: None,
                remaining_ms,
                spent_ms,
                ..
            }
            | EventKind::ClockPressed {
                remaining_ms,
                spent_ms,
                ..
            } => Some((*remaining_ms, *spent_ms)),
            _ => None,
        })
        .collect()
}

/// Both ways agree with the log ply by ply, and with each other byte for byte.
pub(crate) fn check(b: &Both, plies: usize) -> Result<(), TestCaseError> {
    let (d, p) = (pgn(&b.direct), pgn(&b.pressed));
    let (cd, cp) = (clock_comments(&d), clock_comments(&p));
    prop_assert_eq!(cd.len(), plies);
    prop_assert_eq!(cp.len(), plies);
    for (name, log, comments) in [
        ("direct", &b.direct.log, &cd),
        ("pressed", &b.pressed.log, &cp),
    ] {
        let figures = log_figures(log);
        prop_assert_eq!(figures.len(), plies, "{} presses", name);
        for (ply, ((clk, emt), (remaining, spent))) in comments.iter().zip(&figures).enumerate() {
            prop_assert_eq!(
                clk,
                &format_clock(remaining.max(&0).unsigned_abs()),
                "{} %clk of ply {}",
                name,
                ply
            );
            prop_assert_eq!(emt, &format_elapsed(*spent), "{} %emt of ply {}", name, ply);
        }
    }
    prop_assert_eq!(movetext(&d), movetext(&p));
    Ok(())
}

/// A random legal game of at most `n` plies from `picks`, ending early at mate, stalemate or dead
/// material (the core would end it there).
fn random_game(picks: &[u16], n: usize) -> Vec<String> {
    random_game_from(Chess::default(), picks, n)
}

/// [`random_game`] from `pos`.
fn random_game_from(mut pos: Chess, picks: &[u16], n: usize) -> Vec<String> {
    let mut out = Vec::new();
    for pick in picks.iter().take(n) {
        let legal = pos.legal_moves();
        if legal.is_empty() || pos.is_insufficient_material() {
            break;
        }
        let m = legal[usize::from(*pick) % legal.len()];
        out.push(San::from_move(&pos, m).to_string());
        pos.play_unchecked(m);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Random games, both ways, with random notation delays (some longer than the reply, so
    /// presses run ahead) and random thinking times that cross the move-40 control: the PGN's
    /// clocks are the log's at every ply, and the movetext is the same both ways.
    #[test]
    fn laws_6_2_pgn_clocks_are_the_logs_for_presses_running_ahead(
        machine_white in any::<bool>(),
        picks in proptest::collection::vec(any::<u16>(), 90..130),
        thinks in proptest::collection::vec(1_000u64..150_000, 130),
        delays in proptest::collection::vec(prop_oneof![0u64..3_000, 3_000u64..400_000], 130),
    ) {
        let sans = random_game(&picks, picks.len());
        let b = play_both(machine_white, &sans, &thinks, &delays);
        check(&b, sans.len())?;
    }
}

/// Game 6 of 2003 and the real Stockfish game, press-then-notation against move-and-press.
#[test]
fn laws_6_2_real_games_press_then_notation_give_the_same_movetext() {
    const GAME_6: &str = "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be2 e5 Nb3 Be7 O-O O-O Kh1 Bd7 \
        Be3 Bc6 Bf3 Nbd7 a4 b6 Qd3 Bb7 h3 Rc8 Rad1 h6 Rfe1 Qc7 g3 Rfd8 Kh2 Re8 Re2 Qc4 Qxc4 Rxc4 \
        Nd2 Rc7 Bg2 Rec8 Nb3 Rxc3 bxc3 Bxe4 Bc1 Bxg2 Kxg2 Rxc3 Ba3 Ne8 f4";
    let sans: Vec<String> = GAME_6.split_whitespace().map(String::from).collect();
    let thinks: Vec<Ms> = (0..sans.len() as Ms)
        .map(|i| 20_000 + (i * 7_919) % 170_000)
        .collect();
    // Every fifth notation comes after the reply's press.
    let delays: Vec<Ms> = (0..sans.len())
        .map(|i| if i % 5 == 3 { 200_000 } else { 1_500 })
        .collect();
    let b = play_both(true, &sans, &thinks, &delays);
    check(&b, sans.len()).unwrap();

    let real = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/data/stockfish-game/game.pgn"),
    );
    let Ok(real) = real else {
        return; // shared/ is beside the worktree on every machine of the project
    };
    let (sans, emts) = sans_and_emts(&real);
    assert!(sans.len() > 40, "{}", sans.len());
    let delays: Vec<Ms> = (0..sans.len()).map(|_| 1_500).collect();
    let b = play_both(false, &sans, &emts, &delays);
    check(&b, sans.len()).unwrap();
}

/// Moves and `%emt`s of a PGN (one game).
fn sans_and_emts(pgn: &str) -> (Vec<String>, Vec<Ms>) {
    let text = movetext(pgn);
    let mut sans = Vec::new();
    let mut emts = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        for tok in rest[..open].split_whitespace() {
            let t = tok.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            if !t.is_empty() {
                sans.push(t.to_string());
            }
        }
        let close = rest[open..].find('}').unwrap() + open;
        let c = &rest[open..close];
        if let Some(e) = c.split("[%emt ").nth(1) {
            let e = e.split(']').next().unwrap();
            let parts: Vec<f64> = e.split(':').map(|x| x.parse().unwrap()).collect();
            let s = parts.iter().fold(0.0, |a, x| a * 60.0 + x);
            emts.push(((s * 1000.0).round() as Ms).max(1));
        }
        rest = &rest[close + 1..];
    }
    sans.truncate(emts.len());
    (sans, emts)
}

/// Rule 3 at the control: the next period's time comes with the press of move 40 and is a rule-3
/// line, the same whether the notation of move 40 came before or after the reply's press.
#[test]
fn rule_3_period_addition_at_a_press_is_a_rule_3_comment() {
    let sans: Vec<String> = crate::clauses::LONG_GAME
        .split_whitespace()
        .take(81)
        .map(String::from)
        .collect();
    let sans = &sans[..];
    let thinks = vec![60_000; 81];
    let mut delays = vec![1_000; 81];
    delays[78] = 200_000; // White's 40th notation comes after Black's press of its 40th
    let b = play_both(false, sans, &thinks, &delays);
    check(&b, 81).unwrap();
    let p = pgn(&b.pressed).replace('\n', " ");
    assert!(
        p.contains("{3: the next period's time added to white's clock at its move 40 (+1:00:00)}"),
        "{p}"
    );
    assert!(!p.contains("changed at a"), "{p}");
    let r = arbiter::report::model::build(
        &b.pressed.log,
        &[],
        &arbiter::report::model::Verification::not_checked(b.pressed.log.len()),
        false,
    );
    let period: Vec<_> = r
        .time_items
        .iter()
        .filter(|t| t.kind == arbiter::report::times::ItemKind::Period)
        .collect();
    assert_eq!(period.len(), 2, "{:?}", r.time_items);
    assert!(
        period
            .iter()
            .all(|t| t.clause == "3" && t.clock_ms == 3_600_000)
    );
    assert!(
        r.time_items
            .iter()
            .all(|t| t.kind != arbiter::report::times::ItemKind::Other),
        "{:?}",
        r.time_items
    );
}

/// Black to move in the start position (after 1. e4, as a FEN): the 2003 rules with a `[start]`.
const BLACK_FIRST: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

fn black_first_game() -> arbiter::core::game::Game {
    let text = format!(
        "{}\n[start]\nclause = \"odds\"\ngames = [ {{ game = 1, fen = \"{BLACK_FIRST}\" }} ]\n",
        crate::clauses::rules_text(crate::clauses::KASPAROV_2003)
    );
    crate::clauses::game_from_text(crate::clauses::KASPAROV_2003, &text, 1, None)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// Rule 3 (and FIDE Laws 6.2) from a start with Black to move: Black's clock runs first, and
    /// the per-move times do not assume White began. Entered both ways (presses running ahead of
    /// the notation), the PGN's `%clk` / `%emt` are the log's clocks ply by ply, the movetext is
    /// the same both ways and numbered from `1...`, the report's times equal the PGN's, and
    /// the period addition at each side's 40th move is named at that move.
    #[test]
    fn rule_3_black_moves_first_from_a_fen_times_follow_the_log(
        machine_white in any::<bool>(),
        picks in proptest::collection::vec(any::<u16>(), 84..100),
        thinks in proptest::collection::vec(1_000u64..150_000, 100),
        delays in proptest::collection::vec(prop_oneof![0u64..3_000, 3_000u64..400_000], 100),
    ) {
        let pos: Chess = BLACK_FIRST
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let sans = random_game_from(pos, &picks, picks.len());
        let decl = if machine_white { MACHINE_WHITE } else { HUMAN_WHITE };
        let b = play_both_on(
            || crate::clauses::given_game(black_first_game(), decl).and("0 arbiter start"),
            &sans,
            &thinks,
            &delays,
        );
        prop_assert_eq!(
            b.direct.log.iter().find_map(|e| match &e.kind {
                EventKind::MoveMade { side, .. } => Some(*side),
                _ => None,
            }),
            Some(arbiter::core::Side::Black)
        );
        check(&b, sans.len())?;
        let p = pgn(&b.pressed);
        prop_assert!(movetext(&p).starts_with("1... "), "{}", p);
        for m in [&b.direct, &b.pressed] {
            let r = arbiter::report::model::build(
                &m.log,
                &[],
                &arbiter::report::model::Verification::not_checked(m.log.len()),
                false,
            );
            prop_assert!(r.warnings.is_empty(), "{:?}", r.warnings);
            let figures = log_figures(&m.log);
            prop_assert_eq!(r.moves.len(), figures.len());
            for (row, (remaining, spent)) in r.moves.iter().zip(&figures) {
                prop_assert_eq!(row.remaining_ms, *remaining, "ply {}", row.ply);
                prop_assert_eq!(row.spent_ms, *spent as i64, "ply {}", row.ply);
            }
            // Each side's 40th move gets the next period (if the game got there), named at
            // that move; no unexplained clock change.
            for it in &r.time_items {
                prop_assert!(it.kind != arbiter::report::times::ItemKind::Other, "{:?}", it);
                if it.kind == arbiter::report::times::ItemKind::Period {
                    // Black moved first: its 40th move is numbered 40, White's 40th is 41.
                    let want = match it.side {
                        Some(arbiter::core::Side::White) => {
                            "at its move 41 (40 moves played in this game)"
                        }
                        _ => "at its move 40",
                    };
                    prop_assert!(it.text.ends_with(want), "{:?}", it);
                }
            }
        }
    }
}
