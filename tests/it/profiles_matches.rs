//! Every real man–machine match as a profile. Each profile under `rules/` is driven
//! through its distinctive rule, with the clocks checked against hand arithmetic to the ms.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::core::event::{EventKind, Score, Termination};
use arbiter::core::game::start::{Odds, chess960_fen, chess960_rank};
use arbiter::core::game::{Game, MatchHistory, Phase};
use arbiter::core::rules::Profile;
use arbiter::core::{Ms, Side};

use crate::clauses::{
    HUMAN_WHITE, MACHINE_WHITE, Match, ended, game_from_text, given_game, move_made, new_game,
    only, rules_path, rules_text,
};
use crate::realgame::{arbiter, ok};

const PROFILES: [&str; 5] = [
    "deep-blue-1997.toml",
    "kramnik-deep-fritz-2002.toml",
    "x3d-fritz-2003.toml",
    "kramnik-deep-fritz-2006.toml",
    "nakamura-komodo-2016.toml",
];

fn started(file: &str) -> Match {
    given_game(new_game(file), HUMAN_WHITE).and("0 arbiter start")
}

/// Play `n` moves a side of knight shuffles, one ply a second; returns every move_made's
/// (side, move number, increment, remaining).
fn shuffle(m: &mut Match, n: u32) -> Vec<(Side, u32, Ms, i64)> {
    let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
    let mut out = Vec::new();
    for ply in 0..(2 * n) {
        let t = m.now + 1000;
        let ev = m.at(&format!(
            "{}.000 move {}",
            t / 1000,
            cycle[ply as usize % 4]
        ));
        let (side, _, spent, inc, remaining, _) = move_made(only(&ev, "move_made"));
        assert_eq!(spent, 1000);
        out.push((side, ply / 2 + 1, inc, remaining));
    }
    out
}

fn white(moves: &[(Side, u32, Ms, i64)], n: u32) -> (Ms, i64) {
    let (_, _, inc, rem) = moves
        .iter()
        .find(|(s, k, _, _)| *s == Side::White && *k == n)
        .unwrap();
    (*inc, *rem)
}

#[test]
fn profiles_every_match_loads_and_its_sources_are_cited() {
    for f in PROFILES {
        let text = rules_text(f);
        let p = Profile::parse(f, &text).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(text.starts_with("# "), "{f} opens with its sources");
        assert!(p.profile.source.len() > 20, "{f}: source given");
        // The sources read are listed, and what rests on the summary alone says so.
        assert!(
            text.contains("# Sources, as read for this profile:"),
            "{f}: sources listed"
        );
        assert!(
            text.contains("secondary summary"),
            "{f}: the issue's part said"
        );
        assert!(text.contains("../shared"), "{f}: ../shared checked");
        // Every number of the match rules carries its source in a comment.
        let section = text.split("[match]").nth(1).unwrap();
        let section = section.split("\n[").next().unwrap();
        for line in section.lines().filter(|l| l.contains('=')) {
            let key = line.split('=').next().unwrap().trim();
            if key == "clause" {
                continue;
            }
            assert!(
                line.contains('#'),
                "{f}: [match] {key} cites nothing: {line}"
            );
        }
        // Each loads through the binary as `arbiter script --rules FILE`.
        let tmp = tempfile::tempdir().unwrap();
        let script = tmp.path().join("s.arb");
        std::fs::write(
            &script,
            "0 arbiter declare white human A\n0 arbiter declare black machine B\n\
             0 arbiter declare operator O\n0 arbiter start\n10 move e4\n",
        )
        .unwrap();
        let out = ok(&arbiter(&[
            "script",
            script.to_str().unwrap(),
            "--dry-run",
            "--rules",
            rules_path(f).to_str().unwrap(),
        ]));
        assert!(out.contains(&p.profile.name), "{f}: {out}");
    }
}

#[test]
fn x3d_fritz_2003_three_second_increments_from_move_61() {
    let mut m = started("x3d-fritz-2003.toml");
    let moves = shuffle(&mut m, 62);
    // Every white move took 1 s. Move 40: 2 h - 40 s + the next hour = 10 760 s.
    assert_eq!(white(&moves, 40), (0, 7_200_000 - 40_000 + 3_600_000));
    // Move 60: 2 h + 1 h - 60 s + 15 min = 11 640 s, no increment yet.
    assert_eq!(white(&moves, 60), (0, 11_700_000 - 60_000));
    // Move 61: the first 3 s increment. 11 700 s - 61 s + 3 s.
    assert_eq!(white(&moves, 61), (3_000, 11_700_000 - 61_000 + 3_000));
    // Move 62: 11 700 s - 62 s + 6 s.
    assert_eq!(white(&moves, 62), (3_000, 11_700_000 - 62_000 + 6_000));
    assert_eq!(m.remaining(Side::White, m.now), 11_644_000);
    let p = m.game().profile().match_rules.clone().unwrap();
    assert_eq!(
        (p.games, p.winning_score, p.play_after_decided),
        (Some(4), Some(2.5), true)
    );
}

#[test]
fn kramnik_deep_fritz_2006_sixteen_moves_an_hour_repeating_at_56_72_88() {
    let mut m = started("kramnik-deep-fritz-2006.toml");
    let moves = shuffle(&mut m, 89);
    let hour: i64 = 3_600_000;
    // 2 h for 40 moves, then an hour at each of moves 40, 56, 72, 88.
    assert_eq!(white(&moves, 39).1, 2 * hour - 39_000);
    assert_eq!(white(&moves, 40).1, 3 * hour - 40_000);
    assert_eq!(white(&moves, 55).1, 3 * hour - 55_000);
    assert_eq!(white(&moves, 56).1, 4 * hour - 56_000);
    assert_eq!(white(&moves, 71).1, 4 * hour - 71_000);
    assert_eq!(white(&moves, 72).1, 5 * hour - 72_000);
    assert_eq!(white(&moves, 88).1, 6 * hour - 88_000);
    assert_eq!(white(&moves, 89).1, 6 * hour - 89_000);
    // The board shows the period and the moves to its control: after 89 moves, the fifth
    // period (1-40, 41-56, 57-72, 73-88, 89-104), 15 moves to go.
    let v = m.view(m.now);
    let c = &v.clocks[Side::White.index()];
    assert_eq!((c.period, c.moves_to_control), (5, Some(15)));
    assert_eq!(m.game().profile().period_of(Side::White, 56), (2, Some(72)));
}

#[test]
fn kramnik_deep_fritz_2002_the_machine_may_not_offer_a_draw_in_manama() {
    let mut m = started("kramnik-deep-fritz-2002.toml");
    m.moves("e4 e5", 5000);
    // The same offer the 2003 rules accept (clause_9d_machine_offer_needs_a_near_draw_evaluation)
    // is refused: under the Manama rules only the human may offer a draw.
    m.when("11 operator offer-draw eval 0")
        .then_refused_saying("9d", "only the human may offer a draw")
        // The human still may, and the machine answers.
        .when("12 human offer-draw")
        .then(|_, ev| assert_eq!(ev[0].kind_name(), "draw_offered"));
}

#[test]
fn nakamura_komodo_2016_pawn_and_move_odds_played_to_mate_with_45_plus_15() {
    let mut m = started("nakamura-komodo-2016.toml");
    // Game 1: Black without its f7 pawn.
    assert_eq!(
        m.game().board().start_fen().as_deref(),
        Some(Odds::PawnAndMove.fen())
    );
    let e4 = m.at("10 move e4");
    let g5 = m.at("25 move g5");
    let qh5 = m.at("30 move Qh5");
    // 45 min + 15 s a move from move 1, no increment before it.
    assert_eq!(move_made(&e4[0]).4, 2_700_000 - 10_000 + 15_000);
    assert_eq!(move_made(&g5[0]).4, 2_700_000 - 15_000 + 15_000);
    assert_eq!(move_made(&qh5[0]).4, 2_705_000 - 5_000 + 15_000);
    // With f7 gone, 2.Qh5 mates.
    let end = only(&qh5, "game_ended");
    let (score, termination, _, _) = ended(end);
    assert_eq!(
        (score, termination),
        (Score::WhiteWins, Termination::Checkmate)
    );
    assert_eq!(m.game().phase(), Phase::Ended);
}

#[test]
fn nakamura_komodo_2016_each_game_its_own_odds_start_bound_into_line_0() {
    let starts = [
        Odds::PawnAndMove.fen(),
        Odds::PawnF2.fen(),
        Odds::Exchange.fen(),
        "rnbqkbnr/pppppppp/8/8/3PP3/5N2/PPP2PPP/RNBQKB1R w KQkq - 0 1",
    ];
    for (n, fen) in starts.iter().enumerate() {
        let text = rules_text("nakamura-komodo-2016.toml");
        let game =
            crate::clauses::game_from_text("nakamura-komodo-2016.toml", &text, n as u32 + 1, None);
        let m = given_game(game, HUMAN_WHITE).and("0 arbiter start");
        assert_eq!(m.game().board().start_fen().as_deref(), Some(*fen));
        // Line 0 embeds the profile, so a replay of the log starts from the same position.
        let EventKind::GameOpened(o) = &m.log[0].kind else {
            panic!("line 0")
        };
        assert!(o.profile.toml.contains("[start]"));
        let replayed = Game::replay(&m.log).unwrap();
        assert_eq!(replayed.board().start_fen().as_deref(), Some(*fen));
    }
    // Four-move odds: White still to move, and its clock runs first.
    let text = rules_text("nakamura-komodo-2016.toml");
    let game = crate::clauses::game_from_text("n.toml", &text, 4, None);
    let mut m = given_game(game, HUMAN_WHITE).and("0 arbiter start");
    assert_eq!(m.game().clock().running(), Some(Side::White));
    let ev = m.at("3 move Bc4");
    assert_eq!(move_made(&ev[0]).0, Side::White);
}

#[test]
fn nakamura_komodo_2016_the_pgn_carries_setup_and_fen() {
    let tmp = tempfile::tempdir().unwrap();
    let script = tmp.path().join("g.arb");
    std::fs::write(
        &script,
        "0 arbiter declare white human Hikaru Nakamura\n0 arbiter declare black machine Komodo\n\
         0 arbiter declare operator Mark Lefler\n0 arbiter start\n10 move e4\n25 move g5\n30 move Qh5\n",
    )
    .unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    ok(&arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
        "--rules",
        rules_path("nakamura-komodo-2016.toml").to_str().unwrap(),
    ]));
    let pgn = ok(&arbiter(&[
        "pgn",
        "--match",
        dir.to_str().unwrap(),
        "--game",
        "1",
    ]));
    assert!(pgn.contains("[SetUp \"1\"]\n"), "{pgn}");
    assert!(
        pgn.contains(&format!("[FEN \"{}\"]\n", Odds::PawnAndMove.fen())),
        "{pgn}"
    );
    assert!(pgn.contains("[Result \"1-0\"]"), "{pgn}");
    assert!(pgn.contains("2. Qh5#"), "{pgn}");
}

#[test]
fn start_chess960_by_number_and_fen_per_game() {
    // Scharnagl's numbering: 518 is the initial position, 0 and 959 the ends of the table.
    assert_eq!(
        chess960_rank(518).unwrap().iter().collect::<String>(),
        "RNBQKBNR"
    );
    assert_eq!(
        chess960_rank(0).unwrap().iter().collect::<String>(),
        "BBQNNRKR"
    );
    assert_eq!(
        chess960_rank(959).unwrap().iter().collect::<String>(),
        "RKRNNQBB"
    );
    assert!(chess960_rank(960).is_none());
    // Every number gives a legal start: bishops on both colours, the king between the rooks.
    for n in 0..960 {
        let r = chess960_rank(n).unwrap();
        let at = |c: char| {
            r.iter()
                .enumerate()
                .filter(|(_, x)| **x == c)
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
        };
        let (b, rk, k) = (at('B'), at('R'), at('K'));
        assert_eq!(b.len(), 2);
        assert_ne!(b[0] % 2, b[1] % 2, "{n}");
        assert!(rk[0] < k[0] && k[0] < rk[1], "{n}");
    }
    let base = rules_text("kasparov-deep-junior-2003.toml");
    let text = format!(
        "{base}\n[start]\nclause = \"test\"\ngames = [ {{ game = 1, chess960 = 0 }}, {{ game = 2, fen = \"8/8/8/8/8/4k3/8/R3K3 w Q - 0 1\" }} ]\n"
    );
    let g = crate::clauses::game_from_text("960.toml", &text, 1, None);
    // Shredder castling files in, X-FEN out (shakmaty writes KQkq for the outermost rooks).
    assert_eq!(
        chess960_fen(0).as_deref(),
        Some("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w FHfh - 0 1")
    );
    assert_eq!(
        g.board().start_fen().as_deref(),
        Some("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1")
    );
    let mut m = given_game(g, HUMAN_WHITE).and("0 arbiter start");
    // BBQNNRKR: the d1 knight is the only one that reaches c3.
    let ev = m.at("5 move Nc3");
    assert_eq!(move_made(&ev[0]).1, "Nc3");
    m.at("6 move Nc6");
    let g2 = crate::clauses::game_from_text("960.toml", &text, 2, None);
    assert_eq!(
        g2.board().start_fen().as_deref(),
        Some("8/8/8/8/8/4k3/8/R3K3 w Q - 0 1")
    );
    // A start that is not a legal position is refused when the profile is read, naming it.
    let bad = format!(
        "{base}\n[start]\nclause = \"t\"\ngames = [ {{ game = 1, fen = \"8/8/8/8/8/8/8/8 w - - 0 1\" }} ]\n"
    );
    let e = Profile::parse("bad.toml", &bad).unwrap_err();
    assert_eq!(e.key, "start.games[0]");
    let both = format!(
        "{base}\n[start]\nclause = \"t\"\ngames = [ {{ game = 1, chess960 = 3, odds = \"queen\" }} ]\n"
    );
    assert!(
        Profile::parse("b.toml", &both)
            .unwrap_err()
            .message
            .contains("exactly one")
    );
}

/// (White's, Black's) remaining time at `at`.
fn both(m: &Match, at: Ms) -> (i64, i64) {
    (m.remaining(Side::White, at), m.remaining(Side::Black, at))
}

#[test]
fn kramnik_deep_fritz_2002_open_adjournment_engine_stopped_clocks_restored() {
    let mut m = started("kramnik-deep-fritz-2002.toml");
    shuffle(&mut m, 59);
    // Before move 60 the game may not be adjourned.
    let t = m.now;
    m = m
        .when(&format!("{} arbiter adjourn", t / 1000))
        .then_refused_saying("1", "only after move 60")
        .m;
    // Move 60 of each (the knights go home: the cycle continues).
    m.moves("Ng1 Ng8", 1000);
    // 60 moves each, one ply a second: 120 s in; White to move, 3 s into its turn. Each has had
    // 2 h + 1 h (at move 40) + 30 min (at move 60) = 12 600 s.
    let t = m.now + 3000;
    let before = both(&m, t);
    assert_eq!(before, (12_600_000 - 60_000 - 3_000, 12_600_000 - 60_000));
    // A sealed move is refused: the move stays open under these rules.
    m = m
        .when(&format!(
            "{} arbiter adjourn sealed {}",
            t / 1000,
            "0".repeat(64)
        ))
        .then_refused_saying("1", "stays open")
        .m;
    m = m
        .when(&format!("{} arbiter adjourn", t / 1000))
        .then_events(&[("adjourned", "adjournment")])
        .m;
    // Overnight: nothing moves.
    let next_day = t + 16 * 3_600_000;
    assert_eq!(both(&m, next_day), before);
    assert_eq!(m.game().clock().running(), None);
    // The engine may not have thought: resumption waits for the operator's record.
    m = m
        .when(&format!("{} arbiter resume-adjourned", next_day / 1000))
        .then_refused_saying("1", "operator engine-stopped")
        .m;
    m = m
        .when(&format!("{} arbiter resume", next_day / 1000))
        .then_refused_saying("1", "resume-adjourned")
        .when(&format!("{} move Nf3", next_day / 1000))
        .then_refused_saying("1", "adjourned")
        .m;
    m.at(&format!("{} operator engine-stopped", next_day / 1000));
    m = m
        .when(&format!("{} arbiter resume-adjourned", next_day / 1000))
        .then_events(&[("adjournment_resumed", "adjournment")])
        .m;
    // Both clocks exactly as they were; White's runs on from its 3 s.
    assert_eq!(both(&m, next_day), before);
    let ev = m.at(&format!("{} move Nf3", next_day / 1000 + 2));
    assert_eq!(move_made(&ev[0]).2, 5_000);
    // A replay of the log gives the same state.
    let replayed = Game::replay(&m.log).unwrap();
    assert_eq!(
        replayed.remaining(Side::White, next_day + 2000),
        m.remaining(Side::White, next_day + 2000)
    );
}

#[test]
fn kramnik_deep_fritz_2006_sealed_move_committed_then_revealed_and_checked() {
    let mut m = started("kramnik-deep-fritz-2006.toml");
    shuffle(&mut m, 56);
    // White to move (its 57th); it writes Nf3 and seals it 4 s into its turn.
    let t = m.now + 4000;
    let h = arbiter::core::game::seal("Nf3", "envelope-7");
    m = m
        .when(&format!("{} arbiter adjourn", t / 1000))
        .then_refused_saying("1", "sealed")
        .m;
    m = m
        .when(&format!("{} arbiter adjourn sealed {h}", t / 1000))
        .then_events(&[("adjourned", "adjournment")])
        .then(|_, ev| {
            let EventKind::Adjourned {
                sealed_sha256,
                side,
            } = &ev[0].kind
            else {
                panic!()
            };
            assert_eq!(
                (sealed_sha256.as_deref(), *side),
                (Some(h.as_str()), Side::White)
            );
        })
        .m;
    let before = both(&m, t);
    let resume = t + 2 * 86_400_000;
    // A reveal that is not what was sealed is refused, nothing recorded.
    m = m
        .when(&format!(
            "{} arbiter resume-adjourned Ng5 envelope-7",
            resume / 1000
        ))
        .then_refused_saying("1", "does not match")
        .m;
    m = m
        .when(&format!("{} arbiter resume-adjourned", resume / 1000))
        .then_refused_saying("1", "MOVE NONCE")
        .m;
    m = m
        .when(&format!(
            "{} arbiter resume-adjourned Nf3 envelope-7",
            resume / 1000
        ))
        .then_events(&[("adjournment_resumed", "adjournment"), ("move_made", "6a")])
        .then(|_, ev| {
            // The sealed move is charged the 4 s up to the seal, not the two days.
            let (side, san, spent, _, remaining, _) = move_made(&ev[1]);
            assert_eq!((side, san.as_str(), spent), (Side::White, "Nf3", 4_000));
            assert_eq!(remaining, before.0);
        })
        .m;
    // Black's clock runs from the resumption, its time as before.
    assert_eq!(m.game().clock().running(), Some(Side::Black));
    assert_eq!(m.remaining(Side::Black, resume), before.1);
    assert_eq!(m.remaining(Side::Black, resume + 7000), before.1 - 7000);
}

#[test]
fn break_the_engines_move_made_during_the_break_counts_at_resumption() {
    // Denou-sen style: at a break the engine, to move, keeps thinking; the move it completes
    // during the break is entered then and counts at resumption.
    let base = rules_text("kasparov-deep-junior-2003.toml");
    let text = format!(
        "{base}\n[adjournment]\nclause = \"break\"\nsealed = false\nengine_may_think = true\nengine_move_in_break_counts = true\n"
    );
    let game = crate::clauses::game_from_text("break.toml", &text, 1, None);
    let mut m = given_game(game, HUMAN_WHITE).and("0 arbiter start");
    m.at("10 move e4");
    // The break begins 60 s into Black's (the engine's) turn.
    m.at("70 arbiter adjourn");
    let before = both(&m, 70_000);
    assert_eq!(before, (7_200_000 - 10_000, 7_200_000 - 60_000));
    // Half an hour into the break the engine's move is entered: charged the 60 s to the break.
    let ev = m.at("1870 move e5");
    let (side, _, spent, _, remaining, _) = move_made(only(&ev, "move_made"));
    assert_eq!((side, spent, remaining), (Side::Black, 60_000, 7_140_000));
    // Nothing runs until play resumes; the human's move waits too.
    assert_eq!(m.game().clock().running(), None);
    assert_eq!(both(&m, 3_000_000), before);
    m = m
        .when("3000 move Nf3")
        .then_refused_saying("1", "resume-adjourned")
        .m;
    m.at("3670 arbiter resume-adjourned");
    // At resumption White's clock starts: 5 s later it has used 10 s + 5 s.
    assert_eq!(m.game().clock().running(), Some(Side::White));
    assert_eq!(m.remaining(Side::White, 3_675_000), 7_200_000 - 15_000);
    let replayed = Game::replay(&m.log).unwrap();
    assert_eq!(
        replayed.remaining(Side::White, 3_675_000),
        7_200_000 - 15_000
    );
    assert_eq!(replayed.clock(), m.game().clock());
    let ev = m.at("3675 move Nf3");
    assert_eq!(move_made(&ev[0]).2, 5_000);
    // Without the rule, a move during the adjournment is refused.
    let plain = format!(
        "{base}\n[adjournment]\nclause = \"adjournment\"\nsealed = false\nengine_may_think = true\n"
    );
    let game = crate::clauses::game_from_text("adj.toml", &plain, 1, None);
    given_game(game, HUMAN_WHITE)
        .and("0 arbiter start")
        .and("10 move e4")
        .and("70 arbiter adjourn")
        .when("1870 move e5")
        .then_refused_saying("1", "resume-adjourned");
}

#[test]
fn x3d_fritz_2003_first_to_two_and_a_half_but_game_four_is_played() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let script = tmp.path().join("g.arb");
    // Each game: the machine resigns after 1.e4 (the human wins).
    std::fs::write(
        &script,
        "0 arbiter declare white human Garry Kasparov\n0 arbiter declare black machine X3D Fritz\n\
         0 arbiter declare operator Mathias Feist\n0 arbiter start\n10 move e4\n20 operator resign\n",
    )
    .unwrap();
    let play = || {
        ok(&arbiter(&[
            "script",
            script.to_str().unwrap(),
            "--match",
            dir.to_str().unwrap(),
            "--rules",
            rules_path("x3d-fritz-2003.toml").to_str().unwrap(),
        ]))
    };
    let g1 = play();
    let g2 = play();
    assert!(
        !g1.contains("match decided") && !g2.contains("match decided"),
        "{g2}"
    );
    // 3 points: past 2.5, the match is decided; the rules still play game 4.
    let g3 = play();
    assert!(g3.contains("match score: Garry Kasparov 3"), "{g3}");
    assert!(
        g3.contains(
            "match decided: Garry Kasparov has 3 points, the winning score is 2.5 (clause match); the remaining games are still played"
        ),
        "{g3}"
    );
    let g4 = play();
    assert!(g4.contains("match score: Garry Kasparov 4"), "{g4}");
}

#[test]
fn deep_blue_1997_the_operator_may_be_replaced_only_when_it_is_not_the_humans_turn() {
    let mut m = started("deep-blue-1997.toml");
    // White, the human, is to move: the operator stays.
    m = m
        .when("5 arbiter replace-operator Murray Campbell, Joe Hoane is unwell")
        .then_refused_saying("4d", "only when it is not the human's turn")
        .m;
    m.at("10 move e4");
    // The machine's turn: the replacement is recorded, citing the match rules.
    m = m
        .when("12 arbiter replace-operator Murray Campbell, Joe Hoane is unwell")
        .then_events(&[("operator_replaced", "match")])
        .then(|_, ev| {
            let EventKind::OperatorReplaced { from, to, reason } = &ev[0].kind else {
                panic!("{ev:?}")
            };
            assert_eq!(
                (from.as_str(), to.as_str(), reason.as_str()),
                ("Amir Ban", "Murray Campbell", "Joe Hoane is unwell")
            );
        })
        .m;
    assert_eq!(m.game().decl().unwrap().operator, "Murray Campbell");
    // The machine's clock still runs: the replacement stops nothing.
    assert_eq!(m.game().clock().running(), Some(Side::Black));
    m.at("20 move e5");
    m = m
        .when("25 arbiter replace-operator Joe Hoane, recovered")
        .then_refused_saying("4d", "it is white's turn, the human's")
        .m;
    // A replay of the log gives the same operator.
    let replayed = Game::replay(&m.log).unwrap();
    assert_eq!(replayed.decl().unwrap().operator, "Murray Campbell");
    // Without the rule (the 2003 match), the operator may not be changed during a game at all.
    let mut m = started("kasparov-deep-junior-2003.toml");
    m.at("10 move e4");
    m.when("12 arbiter replace-operator Murray Campbell, unwell")
        .then_refused_saying("4d", "may not be changed during a game");
}

fn deep_blue_game(n: u32, colours: Option<(u32, Side)>) -> Game {
    let text = rules_text("deep-blue-1997.toml");
    game_from_text("deep-blue-1997.toml", &text, n, None).with_history(MatchHistory {
        colours,
        scores: Vec::new(),
    })
}

#[test]
fn deep_blue_1997_colours_alternate_by_game_number_whatever_postponements_or_forfeits() {
    // Game 1: the human had White. Game 2: the human has Black; the contrary is refused.
    let m = Match::new(deep_blue_game(2, Some((1, Side::White))));
    let m = m
        .when("0 arbiter declare white human Garry Kasparov")
        .then_refused_saying("1", "colours alternate by game number")
        .m;
    let m = m
        .when("0 arbiter declare black machine Deep Blue")
        .then_refused_saying("1", "in game 2 the human has black and the machine white")
        .m;
    assert!(m.game().draft().white.is_none() && m.game().draft().black.is_none());
    given_game(deep_blue_game(2, Some((1, Side::White))), MACHINE_WHITE).and("0 arbiter start");
    // Game 2 postponed (no log): game 3 follows game 1's colours by its number, not by the count
    // of games played.
    let m = Match::new(deep_blue_game(3, Some((1, Side::White))));
    m.when("0 arbiter declare white machine Deep Blue")
        .then_refused_saying("1", "in game 3 the human has white");
    given_game(deep_blue_game(3, Some((1, Side::White))), HUMAN_WHITE).and("0 arbiter start");
    // Game 4 after game 3 was forfeited (its log holds the forfeit): Black for the human again.
    given_game(deep_blue_game(4, Some((3, Side::White))), MACHINE_WHITE).and("0 arbiter start");
    Match::new(deep_blue_game(4, Some((3, Side::White))))
        .when("0 arbiter declare white human Garry Kasparov")
        .then_refused_saying("1", "the human had white in game 3");
    // Without the rule (the 2003 match), any colours may be declared.
    let text = rules_text("kasparov-deep-junior-2003.toml");
    let g = game_from_text("k.toml", &text, 2, None).with_history(MatchHistory {
        colours: Some((1, Side::White)),
        scores: Vec::new(),
    });
    given_game(g, HUMAN_WHITE).and("0 arbiter start");
}

fn manama_game(n: u32, scores: &[(&str, f64)]) -> Game {
    let text = rules_text("kramnik-deep-fritz-2002.toml");
    game_from_text("kramnik-deep-fritz-2002.toml", &text, n, None).with_history(MatchHistory {
        colours: None,
        scores: scores.iter().map(|(n, p)| (n.to_string(), *p)).collect(),
    })
}

#[test]
fn kramnik_deep_fritz_2002_no_game_after_the_match_is_decided() {
    // Eight games, 4.5 points decide, and (play_after_decided = false) no further game is played.
    let decided = [("Garry Kasparov", 0.5), ("Deep Junior", 4.5)];
    let m = given_game(manama_game(6, &decided), HUMAN_WHITE);
    let m = m
        .when("0 arbiter start")
        .then_refused_saying("1", "the match is decided: Deep Junior has 4.5 points")
        .m;
    m.when("0 arbiter open")
        .then_refused_saying("1", "these rules play no further game");
    assert!(
        manama_game(6, &decided)
            .match_decided_text()
            .unwrap()
            .contains("the remaining games are not played")
    );
    // Half a point short: game 6 is played.
    let open = [("Garry Kasparov", 1.0), ("Deep Junior", 4.0)];
    given_game(manama_game(6, &open), HUMAN_WHITE).and("0 arbiter start");
    // Deep Blue 1997: decided at 3.5 of 6, the remaining games are still played.
    let g = deep_blue_game(5, None).with_history(MatchHistory {
        colours: None,
        scores: vec![("Garry Kasparov".into(), 0.5), ("Deep Blue".into(), 3.5)],
    });
    let m = given_game(g, HUMAN_WHITE).and("0 arbiter start");
    assert!(
        m.game()
            .match_decided_text()
            .unwrap()
            .contains("the remaining games are still played")
    );
    // X3D 2003: decided at 3 of 2.5, game 4 is still played and the board says so.
    let text = rules_text("x3d-fritz-2003.toml");
    let g = game_from_text("x3d-fritz-2003.toml", &text, 4, None).with_history(MatchHistory {
        colours: None,
        scores: vec![("Garry Kasparov".into(), 3.0), ("X3D Fritz".into(), 0.0)],
    });
    let m = given_game(g, HUMAN_WHITE).and("0 arbiter start");
    assert!(
        m.game()
            .match_decided_text()
            .unwrap()
            .contains("the remaining games are still played")
    );
}

#[test]
fn deep_blue_1997_match_through_the_binary_colours_by_game_number_and_decided_at_three_and_a_half()
{
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let script = |name: &str, human_white: bool| {
        let (w, b) = if human_white {
            ("human Garry Kasparov", "machine Deep Blue")
        } else {
            ("machine Deep Blue", "human Garry Kasparov")
        };
        let path = tmp.path().join(name);
        // Each game: one move each, then the human resigns.
        std::fs::write(
            &path,
            format!(
                "0 arbiter declare white {w}\n0 arbiter declare black {b}\n\
                 0 arbiter declare operator Joe Hoane\n0 arbiter start\n10 move e4\n20 move e5\n30 human resign\n"
            ),
        )
        .unwrap();
        path
    };
    let (white, black) = (script("w.arb", true), script("b.arb", false));
    let run = |s: &std::path::Path| {
        arbiter(&[
            "script",
            s.to_str().unwrap(),
            "--match",
            dir.to_str().unwrap(),
            "--rules",
            rules_path("deep-blue-1997.toml").to_str().unwrap(),
        ])
    };
    ok(&run(&white));
    // Game 2 with the human White again: refused at the declaration, nothing written.
    let o = run(&white);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("w.arb:1: refused (rule 1): colours alternate by game number")
            && err.contains("in game 2 the human has black"),
        "{err}"
    );
    assert!(!arbiter::record::layout::log_path(&dir, 2).exists());
    ok(&run(&black));
    ok(&run(&white));
    let g4 = ok(&run(&black));
    assert!(g4.contains("match score: Deep Blue 4"), "{g4}");
    assert!(
        g4.contains("match decided: Deep Blue has 4 points, the winning score is 3.5 (clause match); the remaining games are still played"),
        "{g4}"
    );
    let status = ok(&arbiter(&["status", "--match", dir.to_str().unwrap()]));
    assert!(
        status.contains("match decided: Deep Blue has 4 points"),
        "{status}"
    );
    // Game 5 is played (all six games are), and said so again.
    let g5 = ok(&run(&white));
    assert!(g5.contains("the remaining games are still played"), "{g5}");
}

#[test]
fn kramnik_deep_fritz_2002_through_the_binary_a_decided_match_refuses_a_further_game() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let script = tmp.path().join("g.arb");
    // Each game: the human resigns after a move each.
    std::fs::write(
        &script,
        "0 arbiter declare white machine Deep Fritz\n0 arbiter declare black human Vladimir Kramnik\n\
         0 arbiter declare operator Mathias Feist\n0 arbiter start\n10 move e4\n20 move e5\n30 human resign\n",
    )
    .unwrap();
    let run = || {
        arbiter(&[
            "script",
            script.to_str().unwrap(),
            "--match",
            dir.to_str().unwrap(),
            "--rules",
            rules_path("kramnik-deep-fritz-2002.toml").to_str().unwrap(),
        ])
    };
    for _ in 0..4 {
        let out = ok(&run());
        assert!(!out.contains("match decided"), "{out}");
    }
    let g5 = ok(&run());
    assert!(
        g5.contains("match decided: Deep Fritz has 5 points, the winning score is 4.5 (clause match); the remaining games are not played"),
        "{g5}"
    );
    let status = ok(&arbiter(&["status", "--match", dir.to_str().unwrap()]));
    assert!(
        status.contains("match decided: Deep Fritz has 5 points"),
        "{status}"
    );
    let json = ok(&arbiter(&[
        "status",
        "--match",
        dir.to_str().unwrap(),
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(
        v["match_decided"]
            .as_str()
            .unwrap()
            .starts_with("match decided: Deep Fritz has 5 points"),
        "{json}"
    );
    // Game 6 is refused at its start, naming the rule; nothing is written.
    let o = run();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("refused (rule 1): the match is decided: Deep Fritz has 5 points")
            && err.contains("these rules play no further game"),
        "{err}"
    );
    assert!(!arbiter::record::layout::log_path(&dir, 6).exists());
    // The board opened on game 6: its header and its first note say the match is decided, and
    // Space (arbiter start) is refused naming the rule.
    let key = arbiter::record::sign::KeySource::default();
    let rules = rules_path("kramnik-deep-fritz-2002.toml");
    let (mut session, _, _, ui) =
        arbiter::board::tui::open_session(&arbiter::board::tui::PlaySetup {
            match_dir: &dir,
            game: None,
            rules: Some(&rules),
            key: &key,
            declarations: None,
            demo: false,
        })
        .unwrap();
    assert_eq!(session.game.ctx().game, 6);
    let header = ui.score.clone().unwrap();
    assert_eq!(
        header,
        "Deep Fritz 5 – Vladimir Kramnik 0 · MATCH DECIDED for Deep Fritz (no further game)"
    );
    let note = ui.message.unwrap().text;
    assert!(
        note.contains("match decided: Deep Fritz has 5 points"),
        "{note}"
    );
    let e = session
        .execute(&arbiter::core::command::Command::Start, 0)
        .unwrap_err();
    assert!(e.to_string().contains("the match is decided"), "{e}");
    assert!(!arbiter::record::layout::log_path(&dir, 6).exists());
}

#[test]
fn x3d_fritz_2003_the_boards_header_says_match_decided() {
    let text = rules_text("x3d-fritz-2003.toml");
    let g = game_from_text("x3d-fritz-2003.toml", &text, 4, None);
    let table = vec![
        ("Garry Kasparov".to_string(), 2.0),
        ("X3D Fritz".into(), 1.0),
    ];
    let header = |t: &[(String, f64)]| arbiter::board::tui::score_with_decision(t, &g).unwrap();
    assert_eq!(header(&table), "Garry Kasparov 2 – X3D Fritz 1");
    let table = vec![
        ("Garry Kasparov".to_string(), 2.5),
        ("X3D Fritz".into(), 1.5),
    ];
    assert_eq!(
        header(&table),
        "Garry Kasparov 2½ – X3D Fritz 1½ · MATCH DECIDED for Garry Kasparov (the remaining games are still played)"
    );
}

#[test]
fn kramnik_deep_fritz_2006_adjournment_after_six_hours_of_play_at_any_move() {
    let mut m = started("kramnik-deep-fritz-2006.toml");
    shuffle(&mut m, 30);
    let six_hours = 6 * 3_600_000;
    // The clocks stand still for most of the afternoon; the six hours are hours of play, not
    // of the clocks.
    m.at(&format!(
        "{} arbiter stop power failure",
        (m.now + 1000) / 1000
    ));
    m.at(&format!("{} arbiter resume", (six_hours - 120_000) / 1000));
    let h = arbiter::core::game::seal("Nf6", "envelope-1");
    // At 5:59:59, move 31: neither move 56 nor six hours; refused, naming both.
    m = m
        .when(&format!(
            "{} arbiter adjourn sealed {h}",
            (six_hours - 1000) / 1000
        ))
        .then_refused_saying("1", "only after move 56 or after 6 hours of play (5:59:59")
        .m;
    // At 21:00 the human may play on...
    m.at(&format!("{}.000 move Nf3", six_hours / 1000));
    // ...and, still before move 56, adjourn whenever he chooses (the machine's move sealed).
    m = m
        .when(&format!(
            "{} arbiter adjourn sealed {h}",
            (six_hours + 5000) / 1000
        ))
        .then_events(&[("adjourned", "adjournment")])
        .m;
    // The next day play resumes: the six hours count again from the resumption.
    let resume = six_hours + 86_400_000;
    m.at(&format!(
        "{} arbiter resume-adjourned Nf6 envelope-1",
        resume / 1000
    ));
    m = m
        .when(&format!(
            "{} arbiter adjourn sealed {h}",
            (resume + 2000) / 1000
        ))
        .then_refused_saying("1", "(0:00:02 played since play began)")
        .m;
    // The replay of the log agrees.
    let replayed = Game::replay(&m.log).unwrap();
    assert_eq!(replayed.clock().running(), m.game().clock().running());
}

#[test]
fn match_games_a_four_game_match_has_no_fifth_game() {
    for (file, name) in [
        (
            "x3d-fritz-2003.toml",
            "Kasparov vs X3D Fritz, New York 2003",
        ),
        (
            "nakamura-komodo-2016.toml",
            "Nakamura vs Komodo, Chess.com 2016",
        ),
    ] {
        let text = rules_text(file);
        // Game 4 opens and starts.
        given_game(game_from_text(file, &text, 4, None), HUMAN_WHITE).and("0 arbiter start");
        // Game 5 is refused at `arbiter open` and at `arbiter start`, naming the clause, with
        // nothing recorded.
        let m = given_game(game_from_text(file, &text, 5, None), HUMAN_WHITE);
        let m = m
            .when("0 arbiter open")
            .then_refused_saying(
                "1",
                &format!("the match has 4 games ({name}, clause match): game 5 may not be opened"),
            )
            .m;
        let m = m
            .when("0 arbiter start")
            .then_refused_saying("1", "game 5 may not be opened")
            .m;
        assert!(m.log.is_empty(), "{file}: nothing recorded");
        assert_eq!(m.game().phase(), Phase::Draft);
    }
    // A six-game match: game 6 opens, game 7 does not.
    given_game(deep_blue_game(6, None), MACHINE_WHITE).and("0 arbiter start");
    Match::new(deep_blue_game(7, None))
        .when("0 arbiter open")
        .then_refused_saying("1", "the match has 6 games");
}
