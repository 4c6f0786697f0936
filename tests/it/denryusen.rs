//! Shogi under the 5th World Shogi AI Denryu-sen rules (2024, `../shared/denryusen-2024.md`), one
//! test per article that binds a referee, in the given / when / then form of `clauses.rs`. The
//! log of a shogi game cites the Denryu-sen articles ("13.5", "23", "22.1"), never 2003 clauses.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::core::Side;
use arbiter::core::event::{EventKind, Score, Termination};
use arbiter::core::game::{Game, Phase};
use arbiter::core::shogi::ShogiRecord;
use arbiter::core::view::ClockState;

use crate::clauses::{
    DENRYUSEN_2024, Match, ended, game_from_text, given_game, move_made, new_game, rules_text, secs,
};

/// Two programs, as most Denryu-sen games are (5.2 (1)).
const PROGRAMS: &[&str] = &[
    "0 arbiter declare sente machine Sente Program",
    "0 arbiter declare gote machine Gote Program",
    "0 arbiter declare operator Tournament Operator",
];

fn denryusen() -> Match {
    given_game(new_game(DENRYUSEN_2024), PROGRAMS).and("0 arbiter start")
}

/// The 2024 profile with `[shogi]` keys replaced or added (a start position, the options).
fn variant(edits: &[(&str, &str)], start_sfen: Option<&str>) -> Game {
    let mut text = rules_text(DENRYUSEN_2024);
    for (from, to) in edits {
        assert!(text.contains(from), "{from}");
        text = text.replace(from, to);
    }
    if let Some(sfen) = start_sfen {
        text = text.replace(
            "[shogi.declaration]",
            &format!("start_sfen = \"{sfen}\"\n\n[shogi.declaration]"),
        );
    }
    game_from_text("denryusen-variant.toml", &text, 1, None)
}

fn from_position(sfen: &str, edits: &[(&str, &str)]) -> Match {
    given_game(variant(edits, Some(sfen)), PROGRAMS).and("0 arbiter start")
}

fn last_end(m: &Match) -> (Score, Termination, String, String) {
    let e = m
        .log
        .iter()
        .rev()
        .find(|e| e.kind_name() == "game_ended")
        .expect("the game ended");
    let (score, term, detail, _) = ended(e);
    (score, term, detail, e.clause.to_string())
}

/// The log, replayed, gives the same result (the log is the single source of truth).
fn replays_alike(m: &Match) {
    let g = Game::replay(m.log.iter()).unwrap();
    assert_eq!(
        g.outcome().map(|o| (o.score, o.termination)),
        m.game().outcome().map(|o| (o.score, o.termination))
    );
    assert_eq!(g.board().plies(), m.game().board().plies());
}

// ----- moves: legal shogi only, in the notations players write (13.1, 19.6) ----------------------

#[test]
fn denryusen_13_1_moves_in_usi_csa_and_japanese_are_judged_and_shown_in_japanese() {
    let mut m = denryusen();
    for (line, san, uci) in [
        ("1 move 7g7f", "▲７六歩", "7g7f"),
        ("2 move -3334FU", "△３四歩", "3c3d"),
        ("3 move 8h2b+", "▲２二角成", "8h2b+"),
        ("4 move 同　銀", "△同銀", "3a2b"),
        ("5 move B*4e", "▲４五角", "B*4e"),
        ("6 move ３三銀", "△３三銀", "2b3c"),
        ("7 move ４六歩(47)", "▲４六歩", "4g4f"),
    ] {
        let ev = m.at(line);
        assert!(
            matches!(&ev[0].kind, EventKind::MoveMade { san: s, uci: u, fen: None, .. } if s == san && u == uci),
            "{line}: {:?}",
            ev[0].kind
        );
        assert_eq!(ev[0].clause, "22.1", "{line}: a move cites 22.1");
    }
    // The same first move in three notations.
    for text in ["７六歩", "+7776FU", "7g7f", "▲7六歩"] {
        let mut g = denryusen();
        let ev = g.at(&format!("1 move {text}"));
        let (side, san, ..) = move_made(&ev[0]);
        assert_eq!((side, san.as_str()), (Side::White, "▲７六歩"), "{text}");
    }
}

#[test]
fn denryusen_13_1_what_is_not_a_move_is_refused_and_nothing_recorded() {
    denryusen()
        .when("1 move banana")
        .then_refused_saying("13.1", "not a shogi move")
        .when("1 move ５i5a")
        .then_refused_saying("13.1", "not a shogi move");
}

#[test]
fn denryusen_13_1_an_illegal_move_typed_at_the_board_is_refused_nothing_recorded() {
    // 7g7f twice: the second is gote's, and gote has no piece on 7g (sente's reply typed early).
    let mut m = denryusen();
    m.at("1 move 7g7f");
    let t = m
        .when("2 move 7g7f")
        .then_refused_saying("13.1", "nothing recorded");
    assert_eq!(t.game().phase(), Phase::Playing);
    assert_eq!(t.game().board().plies(), 1);
    t.when("2 move 7g7f")
        .then_refused_saying("13.1", "arbiter illegal-move 7g7f")
        // The right move, typed again, is recorded.
        .when("3 move 3c3d")
        .then_events(&[("move_made", "22.1")]);
    // A drop on an occupied square: refused the same way.
    let mut m = denryusen();
    m.at("1 move 7g7f");
    m.at("2 move 3c3d");
    m.when("3 move P*5c")
        .then_refused_saying("13.1", "nothing recorded");
}

#[test]
fn denryusen_13_1_an_illegal_move_the_arbiter_confirms_loses_as_shogi_server_judges() {
    let mut m = denryusen();
    m.at("1 move 7g7f");
    m.when("2 arbiter illegal-move 7g7f").then(|m, ev| {
        let (score, term, detail, _) = ended(&ev[0]);
        assert_eq!((score, term), (Score::WhiteWins, Termination::IllegalMove));
        assert!(detail.contains("gote played an illegal move"), "{detail}");
        assert!(detail.contains("confirmed by the arbiter"), "{detail}");
        assert_eq!(ev[0].actor, arbiter::core::Actor::Arbiter);
        assert_eq!(ev[0].clause, "13.1");
        assert_eq!(m.game().phase(), Phase::Ended);
        replays_alike(m);
    });
    // A drop on an occupied square.
    let mut m = denryusen();
    m.at("1 move 7g7f");
    m.at("2 move 3c3d");
    m.when("3 arbiter illegal-move P*5c").then(|_, ev| {
        let (score, term, ..) = ended(&ev[0]);
        assert_eq!((score, term), (Score::BlackWins, Termination::IllegalMove));
    });
    // Nothing to confirm: a legal move, or words that are no move at all.
    let mut m = denryusen();
    m.at("1 move 7g7f");
    m.when("2 arbiter illegal-move 3c3d")
        .then_refused_saying("13.1", "is a legal move")
        .when("2 arbiter illegal-move banana")
        .then_refused_saying("13.1", "not a move");
}

#[test]
fn denryusen_13_1_confirming_an_illegal_move_is_the_arbiters_act_asked_first() {
    let cmd = arbiter::core::command::parse("arbiter illegal-move 7g7f").unwrap();
    assert_eq!(cmd.role(), arbiter::core::command::Role::Arbiter);
    assert!(cmd.needs_confirmation());
    let g = denryusen();
    assert!(arbiter::board::tui::needs_authority(&cmd, g.game()));
    assert!(arbiter::board::tui::keys::asks_first(&cmd, g.game()));
    // In chess an illegal move is only ever refused.
    crate::clauses::started()
        .when("1 arbiter illegal-move e2e5")
        .then_refused_saying("2", "typed again");
}

#[test]
fn denryusen_13_1_the_profile_may_refuse_an_illegal_move_instead() {
    let g = variant(
        &[("illegal_move = \"loss\"", "illegal_move = \"refuse\"")],
        None,
    );
    let mut m = given_game(g, PROGRAMS).and("0 arbiter start");
    m.at("1 move 7g7f");
    m.when("2 move 7g7f")
        .then_refused_saying("13.1", "not a legal move");
}

/// Gote's king in the corner, its knight beside it, sente's gold guarding 1b: a pawn on 1b mates.
const UCHIFUZUME: &str = "7nk/9/7G1/9/9/9/9/9/4K4 b P 1";

#[test]
fn denryusen_13_1_uchifuzume_a_pawn_drop_that_mates_is_illegal() {
    let r = ShogiRecord::from_sfen(UCHIFUZUME).unwrap();
    assert!(!r.legal_usi().contains(&"P*1b".to_string()));
    assert!(r.legal_usi().contains(&"P*5e".to_string()));
    let refuse = [("illegal_move = \"loss\"", "illegal_move = \"refuse\"")];
    for text in ["P*1b", "+0012FU", "１二歩打"] {
        from_position(UCHIFUZUME, &refuse)
            .when(&format!("1 move {text}"))
            .then_refused_saying("13.1", "uchifuzume");
    }
    // Under the 2024 profile the drop is refused at the board, and loses once the arbiter
    // confirms it; a pawn dropped elsewhere is a move.
    from_position(UCHIFUZUME, &[])
        .when("1 move P*1b")
        .then_refused_saying("13.1", "uchifuzume");
    from_position(UCHIFUZUME, &[])
        .when("1 arbiter illegal-move P*1b")
        .then(|_, ev| {
            let (score, term, detail, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::BlackWins, Termination::IllegalMove));
            assert!(detail.contains("uchifuzume"), "{detail}");
        });
    from_position(UCHIFUZUME, &[])
        .when("1 move P*5e")
        .then_events(&[("move_made", "22.1")]);
}

#[test]
fn denryusen_13_1_non_promotion_and_promotion_are_different_moves() {
    // Sente's silver on 4d may enter the camp on 4c promoted or not.
    let sfen = "4k4/9/9/5S3/9/9/9/9/4K4 b - 1";
    let ev = from_position(sfen, &[]).at("1 move 4d4c");
    assert!(matches!(&ev[0].kind, EventKind::MoveMade { san, .. } if san == "▲４三銀不成"));
    let ev = from_position(sfen, &[]).at("1 move 4d4c+");
    assert!(matches!(&ev[0].kind, EventKind::MoveMade { san, .. } if san == "▲４三銀成"));
    let ev = from_position(sfen, &[]).at("1 move ４三銀成");
    assert!(matches!(&ev[0].kind, EventKind::MoveMade { uci, .. } if uci == "4d4c+"));
}

#[test]
fn denryusen_13_1_checkmate_wins() {
    // Sente's gold drop on 1b mates the cornered king (protected by the gold on 2c).
    let sfen = "7nk/9/7G1/9/9/9/9/9/4K4 b G 1";
    from_position(sfen, &[]).when("1 move G*1b").then(|m, ev| {
        assert_eq!(ev[0].kind_name(), "move_made");
        let (score, term, _, clause) = last_end(m);
        assert_eq!(
            (score, term, clause.as_str()),
            (Score::WhiteWins, Termination::Checkmate, "13.1")
        );
        replays_alike(m);
    });
}

// ----- sennichite and perpetual check (13.5, 13.1) ------------------------------------------------

#[test]
fn denryusen_13_5_sennichite_is_a_draw_scored_0_4_and_0_6() {
    let mut m = denryusen();
    let shuffle = ["5i5h", "5a5b", "5h5i", "5b5a"];
    let mut t = 0;
    for _ in 0..2 {
        for mv in shuffle {
            t += 1;
            m.at(&format!("{t} move {mv}"));
        }
    }
    for mv in &shuffle[..3] {
        t += 1;
        m.at(&format!("{t} move {mv}"));
    }
    assert_eq!(
        m.game().phase(),
        Phase::Playing,
        "the start position twice more only"
    );
    m.when(&format!("{} move 5b5a", t + 1)).then(|m, ev| {
        let (score, term, _, _) = ended(&ev[1]);
        assert_eq!((score, term), (Score::Draw, Termination::Sennichite));
        assert_eq!(ev[1].clause, "13.5");
        // 14: a draw scores 0.4 for sente and 0.6 for gote.
        assert_eq!(m.game().points(), Some([0.4, 0.6]));
        replays_alike(m);
    });
}

/// Sente's rook checks gote's king on 1a / 1b from 3a / 3b, over and over.
const PERPETUAL: &str = "8k/9/6R2/9/9/9/9/9/K8 b - 1";

fn perpetual(m: &mut Match) -> Vec<arbiter::core::event::Event> {
    let cycle = ["3b3a", "1a1b", "3a3b", "1b1a"];
    let mut t = 1;
    m.at("1 move 3c3a");
    let mut last = Vec::new();
    for mv in cycle[1..]
        .iter()
        .chain(cycle.iter())
        .chain(cycle.iter())
        .chain(cycle.iter())
    {
        t += 1;
        if m.game().phase() != Phase::Playing {
            break;
        }
        last = m.at(&format!("{t} move {mv}"));
    }
    last
}

#[test]
fn denryusen_13_1_perpetual_check_loses_for_the_checking_side() {
    let mut m = from_position(PERPETUAL, &[]);
    let ev = perpetual(&mut m);
    let (score, term, detail, _) = ended(&ev[1]);
    assert_eq!(
        (score, term),
        (Score::BlackWins, Termination::PerpetualCheck)
    );
    assert!(
        detail.contains("sente gave check with every move"),
        "{detail}"
    );
    assert_eq!(ev[1].clause, "13.1");
    assert_eq!(m.game().board().plies(), 13, "the fourth occurrence");
    replays_alike(&m);
}

#[test]
fn denryusen_13_5_perpetual_check_is_a_draw_when_the_profile_says_so() {
    let mut m = from_position(
        PERPETUAL,
        &[("perpetual_check = \"loss\"", "perpetual_check = \"draw\"")],
    );
    let ev = perpetual(&mut m);
    let (score, term, _, _) = ended(&ev[1]);
    assert_eq!((score, term), (Score::Draw, Termination::Sennichite));
    assert_eq!(ev[1].clause, "13.5");
}

// ----- the 512-move cap (13.2, 13.3, 13.4) --------------------------------------------------------

/// 512 legal moves from the start that neither mate nor repeat a position four times, chosen
/// by a fixed pseudo-random walk (the same every run).
fn long_game(plies: usize) -> Vec<String> {
    let mut r = ShogiRecord::new();
    let mut seed: u64 = 0x2024_0916;
    let mut out = Vec::new();
    while out.len() < plies {
        let legal = r.legal_usi();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let start = (seed >> 33) as usize % legal.len();
        let pick = (0..legal.len())
            .map(|i| &legal[(start + i) % legal.len()])
            .find(|u| {
                let mut after = r.clone();
                let mv = after.check(u).unwrap();
                after.play(&mv).unwrap();
                after.end().is_none()
            })
            .expect("a move that neither mates nor repeats")
            .clone();
        let mv = r.check(&pick).unwrap();
        r.play(&mv).unwrap();
        out.push(pick);
    }
    out
}

#[test]
fn denryusen_13_2_512_moves_without_a_result_are_a_draw() {
    let moves = long_game(512);
    let mut m = denryusen();
    for (i, mv) in moves[..511].iter().enumerate() {
        m.at(&format!("{} move {mv}", secs((i as u64 + 1) * 100)));
    }
    assert_eq!(m.game().phase(), Phase::Playing);
    m.when(&format!("{} move {}", secs(51_200), moves[511]))
        .then(|m, ev| {
            let (score, term, detail, _) = ended(&ev[1]);
            assert_eq!((score, term), (Score::Draw, Termination::MoveCap));
            assert!(detail.contains("512 moves"), "{detail}");
            assert_eq!(ev[1].clause, "13.2");
            assert_eq!(m.game().points(), Some([0.4, 0.6]));
            replays_alike(m);
        });
}

#[test]
fn denryusen_13_3_mate_on_the_last_move_is_a_draw() {
    let cap = [("max_plies = 512", "max_plies = 1")];
    from_position("7nk/9/7G1/9/9/9/9/9/4K4 b G 1", &cap)
        .when("1 move G*1b")
        .then(|_, ev| {
            let (score, term, detail, _) = ended(&ev[1]);
            assert_eq!((score, term), (Score::Draw, Termination::MoveCap));
            assert!(detail.contains("checkmate on move 1"), "{detail}");
            assert_eq!(ev[1].clause, "13.3");
        });
}

/// Sente's king on 5b with nine tokins, a rook and a bishop in the camp and nine pawns in hand:
/// 28 points, 11 pieces besides the king. Sente to move.
const ENTERED: &str = "+P+P+P+P+P+P+P+P+P/R3K3B/9/9/9/9/9/9/4k4 b 9P 1";

#[test]
fn denryusen_13_4_a_valid_declaration_at_the_cap_wins() {
    // Two moves of the kings reach the cap of this variant with sente to move, able to declare.
    let cap = [("max_plies = 512", "max_plies = 2")];
    let mut m = from_position(ENTERED, &cap);
    m.at("1 move 9b8b");
    m.at("2 move 5i5h");
    assert_eq!(
        m.game().phase(),
        Phase::Playing,
        "the declaration is still open"
    );
    m.when("3 move 8b9b")
        .then_refused_saying("13.2", "declare")
        .when("4 sente declare")
        .then(|m, ev| {
            let (score, term, _, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::WhiteWins, Termination::Declaration));
            assert_eq!(ev[0].clause, "13.4");
            replays_alike(m);
        });
    // Without the declaration the cap's draw comes when sente's time runs out.
    let mut m = from_position(ENTERED, &cap);
    m.at("1 move 9b8b");
    m.at("2 move 5i5h");
    let flag = m.view(2_000).next_deadline.unwrap();
    let ev = m.tick(flag);
    let (score, term, _, _) = ended(&ev[0]);
    assert_eq!((score, term), (Score::Draw, Termination::MoveCap));
    assert_eq!(ev[0].clause, "13.2");
}

// ----- the entering-king declaration (23) --------------------------------------------------------

#[test]
fn denryusen_23_declaration_with_every_condition_met_wins() {
    from_position(ENTERED, &[])
        .when("10 sente declare")
        .then(|m, ev| {
            let (score, term, detail, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::WhiteWins, Termination::Declaration));
            assert!(detail.contains("28 points, 11 pieces"), "{detail}");
            assert_eq!(ev[0].clause, "23");
            replays_alike(m);
        });
}

#[test]
fn denryusen_23_3_gote_needs_27_points_sente_28() {
    // Sente with one pawn fewer: 27 points, one short of sente's 28: the declarer loses.
    let short = ENTERED.replace("9P", "8P");
    from_position(&short, &[])
        .when("10 sente declare")
        .then(|_, ev| {
            let (score, term, detail, _) = ended(&ev[0]);
            assert_eq!(
                (score, term),
                (Score::BlackWins, Termination::FailedDeclaration)
            );
            assert!(detail.contains("23.3: 27 points, 28 needed"), "{detail}");
            assert_eq!(ev[0].clause, "23");
        });
    // The mirror position for gote: 27 points are enough for gote.
    let gote = "4K4/9/9/9/9/9/9/b3k3r/+p+p+p+p+p+p+p+p+p w 8p 1";
    from_position(gote, &[])
        .when("10 gote declare")
        .then(|_, ev| {
            let (score, term, _, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::BlackWins, Termination::Declaration));
        });
}

#[test]
fn denryusen_23_each_failed_condition_makes_the_declarer_lose() {
    let cases = [
        // 23.1: not the declarer's turn.
        (
            ENTERED.to_string(),
            "gote declare",
            "23.1",
            Score::WhiteWins,
        ),
        // 23.2: the king outside the camp (on 5d).
        (
            "+P+P+P+P+P+P+P+P+P/R7B/9/4K4/9/9/9/9/4k4 b 9P 1".to_string(),
            "sente declare",
            "23.2",
            Score::BlackWins,
        ),
        // 23.4: nine pieces besides the king in the camp (two tokins fewer, two pawns more).
        (
            "+P+P+P+P+P+P+P2/R3K3B/9/9/9/9/9/9/4k4 b 11P 1".to_string(),
            "sente declare",
            "23.4",
            Score::BlackWins,
        ),
        // 23.5: the king in check from gote's gold on 5c.
        (
            "+P+P+P+P+P+P+P+P+P/R3K3B/4g4/9/9/9/9/9/4k4 b 9P 1".to_string(),
            "sente declare",
            "23.5",
            Score::BlackWins,
        ),
    ];
    for (sfen, cmd, article, winner) in cases {
        from_position(&sfen, &[])
            .when(&format!("10 {cmd}"))
            .then(|_, ev| {
                let (score, term, detail, _) = ended(&ev[0]);
                assert_eq!(
                    (score, term),
                    (winner, Termination::FailedDeclaration),
                    "{sfen}"
                );
                assert!(detail.contains(article), "{sfen}: {detail}");
            });
    }
}

// ----- resignation by any entrant, no-show (13.1, 13.6, 13.7) --------------------------------------

#[test]
fn denryusen_13_1_either_program_resigns_in_a_program_vs_program_game() {
    let mut m = denryusen();
    m.at("1 move 7g7f");
    m.when("2 operator resign")
        .then_refused("4.3")
        .when("2 gote resign")
        .then(|m, ev| {
            let (score, term, detail, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::WhiteWins, Termination::Resignation));
            assert_eq!(detail, "gote resigned");
            assert_eq!(ev[0].clause, "13.1");
            replays_alike(m);
        });
}

#[test]
fn denryusen_13_6_no_show_after_five_minutes_forfeits() {
    let mut m = denryusen();
    m.at("1 move 7g7f");
    m.when("299.999 arbiter no-show gote")
        .then_refused("13.6")
        .when("300 arbiter no-show gote")
        .then(|m, ev| {
            let (score, term, _, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::WhiteWins, Termination::NoShow));
            assert_eq!(ev[0].clause, "13.6");
            assert_eq!(m.game().points(), Some([1.0, 0.0]));
        });
}

#[test]
fn denryusen_13_6_no_show_after_the_window_forfeits() {
    // Sente's 180 s are gone at 181 s, but it has not moved: its flag is held, and the arbiter's
    // no-show ruling may come at any time after the 5-minute window (here 301 s, then 900 s).
    for (ruled_at, command) in [
        (301_000, "301 arbiter no-show sente"),
        (900_000, "900 arbiter no-show sente"),
    ] {
        let mut m = denryusen();
        assert!(m.tick(181_000).is_empty());
        assert!(m.tick(300_001).is_empty());
        assert!(m.tick(ruled_at - 1).is_empty(), "no flag before the ruling");
        assert_eq!(m.game().flag_at(), None, "sente's flag is held");
        let face = &m.view(ruled_at - 1).clocks[Side::White.index()];
        assert_eq!(
            face.state,
            ClockState::Held,
            "the face does not say the flag fell"
        );
        assert!(
            m.remaining(Side::White, 300_001) < 0,
            "sente's time is gone"
        );
        m.when(command).then(|m, ev| {
            assert_eq!(ev.len(), 1);
            let (score, term, _, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::BlackWins, Termination::NoShow));
            assert_eq!(ev[0].clause, "13.6");
            assert_eq!(ev[0].at, ruled_at);
            assert_eq!(m.game().points(), Some([0.0, 1.0]));
            replays_alike(m);
        });
    }
    // Gote never answers sente's first move: its 600 s run out at 601 s, its flag is held too.
    let mut m = denryusen();
    m.at("1 move 7g7f");
    assert!(m.tick(700_000).is_empty());
    m.when("700 arbiter no-show gote").then(|m, ev| {
        let (score, term, _, _) = ended(&ev[0]);
        assert_eq!((score, term), (Score::WhiteWins, Termination::NoShow));
        assert_eq!(ev[0].clause, "13.6");
        assert_eq!(m.game().points(), Some([1.0, 0.0]));
        replays_alike(m);
    });
}

#[test]
fn denryusen_13_6_held_flag_falls_when_the_late_side_moves() {
    // Sente turns up at 200 s, its 180 s gone: the held flag falls at its move (22.3), which is
    // not played; a press is judged the same way.
    for command in ["200 move 7g7f", "200 press"] {
        let m = denryusen();
        m.when(command).then(|m, ev| {
            assert_eq!(ev.len(), 1, "{command}");
            let (score, term, detail, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::BlackWins, Termination::FlagFall));
            assert_eq!(ev[0].clause, "22.3");
            assert_eq!(ev[0].at, 200_000);
            assert!(detail.contains("13.6"), "{detail}");
            assert_eq!(m.game().board().plies(), 0);
            replays_alike(m);
        });
    }
    // In time, the first move is played as usual.
    let m = denryusen();
    m.when("170 move 7g7f").then(|m, _| {
        assert_eq!(m.game().board().plies(), 1);
    });
}

#[test]
fn denryusen_22_3_a_side_that_moved_flags_normally_before_the_window() {
    // Sente moves at 1 s, gote answers at 2 s: sente (179 s + 2 s increment left, floored) now
    // flags on its own, well before the 5-minute window.
    let mut m = denryusen();
    m.at("1 move 7g7f");
    m.at("2 move 3c3d");
    let at = m.game().flag_at().expect("sente's flag runs");
    assert!(at < 300_000, "flag at {at}");
    assert!(m.tick(at - 1).is_empty());
    let ev = m.tick(at);
    let (score, term, _, _) = ended(&ev[0]);
    assert_eq!((score, term), (Score::BlackWins, Termination::FlagFall));
    assert_eq!(ev[0].clause, "22.3");
    replays_alike(&m);
}

/// 22.3: the flag-fall entry names the side as the record does, sente or gote; never a chess
/// colour (it said "white's flag fell"). Sente's flag, gote's flag, and a held flag (13.6) that
/// falls when the late side moves.
#[test]
fn denryusen_22_3_flag_fall_names_sente_or_gote_not_a_chess_colour() {
    let chess_words = |d: &str| {
        ["white", "black", "White", "Black"]
            .iter()
            .any(|w| d.contains(w))
    };
    // Sente moved at 1 s, gote at 2 s: sente's flag falls first.
    let mut m = denryusen();
    m.at("1 move 7g7f");
    m.at("2 move 3c3d");
    let at = m.game().flag_at().expect("sente's flag runs");
    let ev = m.tick(at);
    let (score, term, detail, _) = ended(&ev[0]);
    assert_eq!((score, term), (Score::BlackWins, Termination::FlagFall));
    assert!(detail.starts_with("sente's flag fell"), "{detail}");
    assert!(!chess_words(&detail), "{detail}");
    replays_alike(&m);
    // Sente moves again at once: now gote's flag runs and falls.
    let mut m = denryusen();
    m.at("1 move 7g7f");
    m.at("2 move 3c3d");
    m.at("3 move 2g2f");
    let at = m.game().flag_at().expect("gote's flag runs");
    let ev = m.tick(at);
    let (score, term, detail, _) = ended(&ev[0]);
    assert_eq!((score, term), (Score::WhiteWins, Termination::FlagFall));
    assert!(detail.starts_with("gote's flag fell"), "{detail}");
    assert!(!chess_words(&detail), "{detail}");
    replays_alike(&m);
    // 13.6: sente never moved; its held flag falls when it moves after its time is gone.
    let mut m = denryusen();
    m.at("400 move 7g7f");
    let end = m.log.last().unwrap();
    let (score, _, detail, _) = ended(end);
    assert_eq!(score, Score::BlackWins);
    assert!(detail.starts_with("sente's flag fell"), "{detail}");
    assert!(!chess_words(&detail), "{detail}");
}

#[test]
fn denryusen_13_7_both_absent_both_lose() {
    denryusen()
        .when("299 arbiter no-show both")
        .then_refused("13.7")
        .when("300 arbiter no-show both")
        .then(|m, ev| {
            let (score, term, detail, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::BothLose, Termination::NoShow));
            assert!(detail.contains("both lose"), "{detail}");
            assert_eq!(ev[0].clause, "13.7");
            assert_eq!(m.game().points(), Some([0.0, 0.0]));
            replays_alike(m);
        });
}

#[test]
fn denryusen_13_7_both_absent_both_lose_after_the_window() {
    // Sente's time is gone from 181 s, yet at 301 s (and at 1200 s) both still lose (13.7):
    // no flag fell in the meantime.
    for (t, command) in [
        (301_000, "301 arbiter no-show both"),
        (1_200_000, "1200 arbiter no-show both"),
    ] {
        let mut m = denryusen();
        assert!(m.tick(t).is_empty(), "no flag before the ruling");
        m.when(command).then(|m, ev| {
            assert_eq!(ev.len(), 1);
            let (score, term, detail, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::BothLose, Termination::NoShow));
            assert!(detail.contains("both lose"), "{detail}");
            assert_eq!(ev[0].clause, "13.7");
            assert_eq!(m.game().points(), Some([0.0, 0.0]));
            replays_alike(m);
        });
    }
}

// ----- time (21, 22) and the log's citations ------------------------------------------------------

#[test]
fn denryusen_22_1_time_floored_to_whole_seconds_with_the_increment_per_side() {
    let mut m = denryusen();
    let ev = m.at("1.999 move 7g7f");
    let (side, _, spent, inc, remaining, _) = move_made(&ev[0]);
    assert_eq!(side, Side::White);
    // 1.999 s is charged as 1 s; 2 s are added: 180 - 1 + 2
    assert_eq!((spent, inc, remaining), (1000, 2000, 181_000));
    let ev = m.at("5.499 move 3c3d");
    // 3.5 s is charged as 3 s: 600 - 3 + 2
    let (_, _, spent, inc, remaining, _) = move_made(&ev[0]);
    assert_eq!((spent, inc, remaining), (3000, 2000, 599_000));
    assert_eq!(ev[0].clause, "22.1");
    let flag = m.view(6_000).next_deadline.unwrap();
    let ev = m.tick(flag);
    let (score, term, _, _) = ended(&ev[0]);
    assert_eq!((score, term), (Score::BlackWins, Termination::FlagFall));
    assert_eq!(ev[0].clause, "22.3");
    assert_eq!(m.game().points(), Some([0.0, 1.0]));
}

#[test]
fn denryusen_22_3_the_flag_falls_as_shogi_server_judges_it() {
    let mut m = denryusen();
    m.at("1.999 move 7g7f"); // sente: 180 - 1 + 2 = 181 s
    m.at("5.499 move 3c3d"); // sente's clock runs from 5.499 s
    // shogi-server: out of time when 181 - floor(t) + 2 <= 0, first at t = 183.000 s.
    assert_eq!(m.game().flag_at(), Some(5_499 + 183_000));
    // 182.999 s is charged 182 s: 181 - 182 + 2 = 1 s left, no flag although 181 s were passed.
    let ev = m.at("188.498 move 2g2f");
    let (_, _, spent, inc, remaining, _) = move_made(&ev[0]);
    assert_eq!((spent, inc, remaining), (182_000, 2000, 1_000));
    // Gote's turn, then sente's again: a move of exactly 3.000 s (1 - 3 + 2 = 0) is a flag.
    m.at("190 move 8c8d");
    let flag = m.game().flag_at().unwrap();
    assert_eq!(flag, 190_000 + 3_000);
    let ev = m.tick(flag);
    let (score, term, _, _) = ended(&ev[0]);
    assert_eq!((score, term), (Score::BlackWins, Termination::FlagFall));
    assert_eq!(ev[0].clause, "22.3");
}

#[test]
fn denryusen_the_log_cites_denryusen_articles_not_2003_clauses() {
    let mut m = denryusen();
    m.at("1 move 7g7f");
    m.at("2 arbiter note the server reconnected");
    let cited: Vec<(String, String)> = m
        .log
        .iter()
        .map(|e| (e.kind_name(), e.clause.to_string()))
        .collect();
    let want = [
        ("game_opened", "5.2"),
        ("clock_started", "19.4"),
        ("move_made", "22.1"),
        ("note", "4.3"),
    ];
    assert_eq!(
        cited,
        want.iter()
            .map(|(k, c)| (k.to_string(), c.to_string()))
            .collect::<Vec<_>>()
    );
}

// ----- entrants (5.2) ------------------------------------------------------------------------------

#[test]
fn denryusen_5_2_entrants_and_the_consultation_method_are_bound_into_line_0() {
    use arbiter::core::event::Entrant;
    let lines = [
        "0 arbiter declare sente program Suisho",
        "0 arbiter declare gote consulting Taro Yamada with dlshogi: the program shows three candidates, Taro chooses",
        "0 arbiter declare operator Tournament Operator",
    ];
    let mut m = given_game(new_game(DENRYUSEN_2024), &lines).and("0 arbiter start");
    let EventKind::GameOpened(o) = &m.log[0].kind else {
        panic!("line 0 opens the game")
    };
    assert_eq!(m.log[0].clause, "5.2");
    assert_eq!(o.declarations.white.entrant, Some(Entrant::Program));
    assert_eq!(
        o.declarations.black.entrant,
        Some(Entrant::HumanWithAi {
            program: "dlshogi".into(),
            method: "the program shows three candidates, Taro chooses".into()
        })
    );
    assert_eq!(o.declarations.black.name, "Taro Yamada");
    m.at("1 move 7g7f");
    let mut m = m
        .when("20 gote consulted dlshogi proposed 3c3d and 8c8d")
        .then(|_, ev| {
            assert!(
                matches!(&ev[0].kind, EventKind::Note { text } if text == "gote consulted dlshogi: dlshogi proposed 3c3d and 8c8d")
            );
            assert_eq!(ev[0].clause, "5.2");
        })
        .when("21 sente consulted a book")
        .then_refused_saying("5.2", "not declared as a human consulting an AI")
        .m;
    // The human's own move, sent by hand (19.6), and its own resignation.
    m.at("25 move ３四歩");
    m.when("30 human resign").then(|_, ev| {
        let (score, term, _, _) = ended(&ev[0]);
        assert_eq!((score, term), (Score::WhiteWins, Termination::Resignation));
        assert_eq!(ev[0].clause, "13.1");
    });
    // A human team names at least two members.
    let team = arbiter::core::command::parse("arbiter declare gote team Kanazawa: A. Sato, B. Ito")
        .unwrap();
    assert!(matches!(
        team,
        arbiter::core::command::Command::DeclareEntrant { entrant: Entrant::HumanTeam { ref members }, ref name, .. }
            if members.len() == 2 && name == "Kanazawa"
    ));
    assert!(arbiter::core::command::parse("arbiter declare gote team Solo: A. Sato").is_err());
}

#[test]
fn denryusen_5_2_declarations_carried_to_the_next_game_keep_the_entrant_kind() {
    use arbiter::core::event::Entrant;
    let lines = [
        "0 arbiter declare sente consulting Taro Yamada with dlshogi: the program shows three candidates, Taro chooses",
        "0 arbiter declare gote team Kanazawa: A. Sato, B. Ito",
        "0 arbiter declare operator Tournament Operator",
    ];
    let m = given_game(new_game(DENRYUSEN_2024), &lines).and("0 arbiter start");
    let EventKind::GameOpened(o) = &m.log[0].kind else {
        panic!("line 0 opens the game")
    };
    // Game 2 is declared as the Board UI does: game 1's declarations, sides swapped.
    let mut next = game_from_text(DENRYUSEN_2024, &rules_text(DENRYUSEN_2024), 2, None);
    for cmd in arbiter::board::tui::carry_over(&o.declarations) {
        next.declare(&cmd).unwrap();
    }
    let mut m2 = Match::new(next);
    let opened = m2.at("0 arbiter start");
    let EventKind::GameOpened(o2) = &opened[0].kind else {
        panic!("line 0 opens game 2")
    };
    assert_eq!(opened[0].clause, "5.2");
    let (sente, gote) = (&o2.declarations.white, &o2.declarations.black);
    assert_eq!(sente.name, "Kanazawa");
    assert_eq!(
        sente.entrant,
        Some(Entrant::HumanTeam {
            members: vec!["A. Sato".into(), "B. Ito".into()]
        })
    );
    assert_eq!(gote.name, "Taro Yamada");
    assert_eq!(
        gote.entrant,
        Some(Entrant::HumanWithAi {
            program: "dlshogi".into(),
            method: "the program shows three candidates, Taro chooses".into()
        })
    );
    // What the entrant kind allows carries with it: gote may log its consultation (5.2), sente,
    // a team without an AI, may not.
    m2.at("1 move 7g7f");
    m2.when("20 gote consulted dlshogi proposed 3c3d")
        .then(|_, ev| assert_eq!(ev[0].clause, "5.2"))
        .when("21 sente consulted a book")
        .then_refused_saying("5.2", "not declared as a human consulting an AI");
}

// ----- the profile names its game ------------------------------------------------------------------

#[test]
fn denryusen_profile_names_its_game_and_a_bad_shogi_section_is_refused() {
    use arbiter::core::rules::Profile;
    let text = rules_text(DENRYUSEN_2024);
    let bad_start = text.replace(
        "[shogi.declaration]",
        "start_sfen = \"banana\"\n\n[shogi.declaration]",
    );
    let e = Profile::parse("x.toml", &bad_start).unwrap_err();
    assert_eq!(e.key, "shogi.start_sfen", "{e}");
    assert!(e.message.contains("not a shogi position"), "{e}");
    let chess = text.replace("game = \"shogi\"", "game = \"chess\"");
    assert_eq!(Profile::parse("x.toml", &chess).unwrap_err().key, "shogi");
    let cut = &text[..text.find("\n[shogi]").unwrap()];
    let e = Profile::parse("x.toml", cut).unwrap_err();
    assert_eq!(e.key, "shogi");
    assert!(e.message.contains("needs a [shogi] section"), "{e}");
    let free = rules_text("../tests/fixtures/profiles/free-text.toml");
    assert!(Profile::parse("free.toml", &free).is_ok());
}

#[test]
fn denryusen_22_3_status_after_the_flag_prints_the_time_as_the_rule_counts_it_and_explains_it() {
    let mut m = denryusen();
    m.at("1.999 move 7g7f");
    m.at("5.499 move 3c3d");
    m.at("188.498 move 2g2f"); // sente: 1 s left
    m.at("190 move 8c8d");
    let flag = m.game().flag_at().unwrap();
    m.tick(flag);
    // The clock ran the 2 s increment past zero before the flag fell: -0:00:02 on the clock.
    assert_eq!(m.game().remaining(Side::White, flag), -2_000);
    let s = arbiter::board::session::summary_text(m.game(), flag, m.log.len());
    assert!(!s.contains("-0:"), "{s}");
    let sente = s
        .lines()
        .find(|l| l.trim_start().starts_with("sente "))
        .unwrap();
    assert!(sente.contains(" 0:00:00 "), "{sente}");
    assert!(
        s.contains("sente 0:00:00 as 22.3 counts it (shogi-server)")
            && s.contains("increment of the move in progress (0:00:02)")
            && s.contains("ran 0:00:02 past 0:00:00"),
        "{s}"
    );
    // Gote's clock never went below zero: nothing to explain for it.
    assert!(!s.contains("gote 0:00:00 as"), "{s}");
}

#[test]
fn denryusen_5_2_commands_name_the_sides_sente_and_gote_and_refuse_white_and_black() {
    use arbiter::core::command::{CommandError, parse_for};
    // 先手/後手 and sente/gote wherever a command takes a side.
    for line in [
        "sente resign",
        "先手 resign",
        "後手 declare",
        "gote consulted the book",
        "arbiter declare 先手 machine Sente Program",
        "arbiter declare 後手 program Gote Program",
        "arbiter no-show 後手",
        "arbiter correct 6d clock 先手 +10 the clock was set wrong",
        "arbiter archive --side 後手 a.log b.log",
    ] {
        parse_for(line, true).unwrap_or_else(|e| panic!("{line}: {e}"));
    }
    // A chess side in a shogi game: refused, naming sente and gote.
    for (line, instead) in [
        ("white resign", "sente"),
        ("black declare", "gote"),
        ("arbiter declare white machine Sente Program", "sente"),
        ("arbiter no-show black", "gote"),
        (
            "arbiter correct 6d clock white +10 the clock was set wrong",
            "sente",
        ),
        ("arbiter archive --side black a.log b.log", "gote"),
    ] {
        let e = parse_for(line, true).unwrap_err();
        assert!(
            matches!(e, CommandError::ChessSideInShogi { .. }),
            "{line}: {e}"
        );
        let text = e.to_string();
        assert!(
            text.contains("sente (先手)")
                && text.contains("gote (後手)")
                && text.contains(&format!("say '{instead}'")),
            "{text}"
        );
        // Chess keeps its words; free text naming a colour is not a side.
        parse_for(line, false).unwrap();
    }
    parse_for("arbiter note white to play, the operator said", true).unwrap();
    // A script of a shogi game: refused at its line, nothing recorded.
    let mut s = arbiter::board::session::memory_session(
        &crate::clauses::rules_path(DENRYUSEN_2024),
        "m",
        1,
    )
    .unwrap();
    let lines = arbiter::core::script::parse_script(
        "0 arbiter declare 先手 machine Sente Program\n\
         0 arbiter declare 後手 machine Gote Program\n\
         0 arbiter declare operator Tournament Operator\n\
         0 arbiter start\n\
         1 move 7g7f\n\
         2 white resign\n",
    )
    .unwrap();
    let (line, e) = arbiter::board::session::run_script(&mut s, &lines).unwrap_err();
    assert_eq!(line, 6);
    assert!(e.to_string().contains("say 'sente'"), "{e}");
    assert_eq!(s.game.outcome(), None);
    assert_eq!(s.game.board().plies(), 1);
}

/// 22.3: shogi-server-dr measures each move's time and keeps the total; the rules set no duty on
/// an engine's own clock. Line 0 says so (no 2003 rule-6c default under another number), a report
/// of the engine's clock owes no correction whatever the difference, and the operator may still
/// set it right.
#[test]
fn denryusen_22_3_the_engines_own_clock_is_shown_and_owes_no_correction() {
    let m = given_game(
        new_game(DENRYUSEN_2024),
        &[
            "0 arbiter declare sente machine Sente Program",
            "0 arbiter declare gote human Gote Player",
            "0 arbiter declare operator Tournament Operator",
        ],
    )
    .and("0 arbiter start");
    let EventKind::GameOpened(o) = &m.log[0].kind else {
        panic!("line 0 opens the game")
    };
    let a = &o.declarations.algorithm;
    assert!(!a.text.contains("default of rule"), "{a:?}");
    assert!(
        a.text.starts_with(
            "no rule on the engine's own clock (22.3: the server's measurement is the time)"
        ),
        "{a:?}"
    );
    assert_eq!(a.threshold_ms, 1000);
    // Sente's engine thinks it has 1:00 left when the official clock shows 2:40: 100 s off on a
    // 180 s clock, shown, nothing owed.
    let m = m
        .when("20 operator internal-clock 0:01:00")
        .then(|_, ev| {
            assert_eq!(ev.len(), 1);
            assert_eq!(ev[0].clause, "22.3");
            let EventKind::InternalClockReported {
                diff_ms,
                threshold_ms,
                correction_owed,
                ..
            } = ev[0].kind
            else {
                panic!("{ev:?}")
            };
            assert_eq!(
                (diff_ms, threshold_ms, correction_owed),
                (-100_000, 1000, false)
            );
        })
        .m;
    // The operator may set it right; the move that follows records no "sync not made".
    let m = m
        .when("21 operator sync-internal-clock")
        .then_events(&[("internal_clock_corrected", "22.3")])
        .m;
    m.when("22 move 7g7f").then(|_, ev| {
        assert!(
            ev.iter().all(|e| e.kind_name() != "sync_not_made"),
            "{ev:?}"
        )
    });
}
