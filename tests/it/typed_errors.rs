//! The core's refusals are typed. A move the chess board and the shogi board refuse is
//! the same type ([`BoardError`]); wrapped in the core's [`Refusal`] with the rule it breaks (2003
//! rule 2, the FIDE Laws; Denryu-sen 13.1, shogi-server's judgement), it reaches the CLI's one
//! exit-code table the same way from either game.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::core::board::{Board, BoardError};
use arbiter::core::shogi::ShogiMoveError;
use arbiter::error::Exit;

use crate::clauses::{DENRYUSEN_2024, KASPAROV_2003, rules_path, rules_text};
use crate::realgame::arbiter;

#[test]
fn typed_errors_2_and_13_1_both_boards_refuse_a_move_with_one_error_type() {
    // Chess: the king cannot go to e2 from the start (FIDE Laws, by 2003 rule 2).
    let chess: BoardError = Board::new_chess().check("Ke2").unwrap_err();
    assert_eq!(chess, BoardError::Illegal("Ke2".into()));
    assert!(chess.is_illegal_move());
    // Shogi: sente's first move cannot be gote's pawn push, written in CSA (Denryu-sen 13.1).
    let shogi: BoardError = Board::new_shogi(None).check("-3334FU").unwrap_err();
    assert!(
        matches!(shogi, BoardError::Shogi(ShogiMoveError::WrongSide(..))),
        "{shogi:?}"
    );
    assert!(shogi.is_illegal_move());
    let shogi: BoardError = Board::new_shogi(None).check("5e5d").unwrap_err();
    assert_eq!(
        shogi,
        BoardError::Shogi(ShogiMoveError::Illegal("5e5d".into()))
    );
    assert!(shogi.is_illegal_move());
    // Text that is no move at all is not an illegal move (shogi-server would not judge it).
    for e in [
        Board::new_chess().check("banana").unwrap_err(),
        Board::new_shogi(None).check("banana").unwrap_err(),
        Board::new_free().check("two words").unwrap_err(),
    ] {
        assert!(!e.is_illegal_move(), "{e:?}");
    }
    // The messages are those the kit always gave.
    assert_eq!(chess.to_string(), "'Ke2' is not a legal move here");
    assert_eq!(shogi.to_string(), "'5e5d' is not a legal move here");
    assert_eq!(
        Board::new_chess().check("e8Q").unwrap_err().to_string(),
        "'e8=Q' is not a legal move here (written 'e8Q')"
    );
}

/// Run `script` over `text` in memory with the rules file `rules`: (exit code, standard error).
fn script(dir: &std::path::Path, name: &str, text: &str, rules: &str) -> (Option<i32>, String) {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    let m = dir.join("match").display().to_string();
    let o = arbiter(&[
        "script",
        &file.display().to_string(),
        "--dry-run",
        "--match",
        &m,
        "--rules",
        rules,
    ]);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn typed_errors_2_and_13_1_an_illegal_chess_and_shogi_move_reach_the_same_exit_code() {
    let tmp = tempfile::tempdir().unwrap();
    let chess = script(
        tmp.path(),
        "chess.arb",
        "0 arbiter declare white human Garry Kasparov\n\
         0 arbiter declare black machine Deep Junior\n\
         0 arbiter declare operator Amir Ban\n\
         0 arbiter start\n\
         5 move Ke2\n",
        &rules_path(KASPAROV_2003).display().to_string(),
    );
    // The Denryu-sen profile judges an illegal move a loss (13.1); a profile may refuse it
    // instead, and a refusal is what this test drives.
    let refusing = tmp.path().join("denryusen-refuse.toml");
    let text = rules_text(DENRYUSEN_2024);
    assert!(text.contains("illegal_move = \"loss\""));
    std::fs::write(
        &refusing,
        text.replace("illegal_move = \"loss\"", "illegal_move = \"refuse\""),
    )
    .unwrap();
    let shogi = script(
        tmp.path(),
        "shogi.arb",
        "0 arbiter declare sente machine Sente Program\n\
         0 arbiter declare gote machine Gote Program\n\
         0 arbiter declare operator Tournament Operator\n\
         0 arbiter start\n\
         5 move 5e5d\n",
        &refusing.display().to_string(),
    );
    let refused = Some(i32::from(Exit::Refused.code()));
    assert_eq!(chess.0, refused, "{}", chess.1);
    assert_eq!(shogi.0, chess.0, "{}", shogi.1);
    assert!(
        chess
            .1
            .contains("chess.arb:5: refused (rule 2): 'Ke2' is not a legal move here"),
        "{}",
        chess.1
    );
    assert!(
        shogi
            .1
            .contains("shogi.arb:5: refused (rule 13.1): '5e5d' is not a legal move here"),
        "{}",
        shogi.1
    );
}
