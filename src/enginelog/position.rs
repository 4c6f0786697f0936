//! Setting up positions with shakmaty: the key searches and moves are matched by.

use shakmaty::fen::{Epd, Fen};
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

/// Why the position a log names could not be set up: the log's own words are at fault (a bad or
/// illegal FEN, a move not legal where it is played, a `position` command not understood). The
/// search is kept, without a position; the coverage report names the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("bad FEN {fen:?}: {problem}")]
    BadFen { fen: String, problem: String },
    #[error("illegal FEN {fen:?}: {problem}")]
    IllegalFen { fen: String, problem: String },
    /// The `n`th move (1-based) from the base position.
    #[error("move {n} ({text}) is not legal in {epd}")]
    IllegalMove { n: usize, text: String, epd: String },
    /// UCI: `position` followed by neither `startpos` nor `fen`.
    #[error("position command not understood: {0:?}")]
    NotUnderstood(String),
    /// UCI: `position startpos` followed by a word other than `moves`.
    #[error("position command: expected `moves`, found {0:?}")]
    ExpectedMoves(String),
}

/// The EPD of a position: placement, side to move, castling rights, legal en passant square.
pub(crate) fn epd(pos: &Chess) -> String {
    Epd::from_position(pos, EnPassantMode::Legal).to_string()
}

/// A position from a FEN (or EPD) text.
pub(crate) fn from_fen(fen: &str) -> Result<Chess, PositionError> {
    let parsed = Fen::from_ascii(fen.trim().as_bytes()).map_err(|e| PositionError::BadFen {
        fen: fen.to_string(),
        problem: e.to_string(),
    })?;
    match parsed.clone().into_position(CastlingMode::Standard) {
        Ok(pos) => Ok(pos),
        Err(_) => {
            parsed
                .into_position(CastlingMode::Chess960)
                .map_err(|e| PositionError::IllegalFen {
                    fen: fen.to_string(),
                    problem: e.to_string(),
                })
        }
    }
}

/// A move written in UCI (`e7e5`, `e8g8`, `e8h8`) or SAN (`Nf6`, `O-O`) in `pos`.
pub(crate) fn parse_move(pos: &Chess, text: &str) -> Option<Move> {
    let text = text.trim();
    if let Some(m) = text
        .parse::<UciMove>()
        .ok()
        .and_then(|uci| uci.to_move(pos).ok())
    {
        return Some(m);
    }
    let san_text = text.trim_end_matches(['+', '#', '!', '?']);
    let san_text = match san_text {
        "0-0" => "O-O",
        "0-0-0" => "O-O-O",
        other => other,
    };
    San::from_ascii(san_text.as_bytes()).ok()?.to_move(pos).ok()
}

/// Play `moves` from `base`; returns the position, or which move failed.
pub(crate) fn play_all<'a>(
    mut pos: Chess,
    moves: impl IntoIterator<Item = &'a str>,
) -> Result<(Chess, usize), PositionError> {
    let mut n = 0usize;
    for text in moves {
        let Some(m) = parse_move(&pos, text) else {
            return Err(PositionError::IllegalMove {
                n: n + 1,
                text: text.to_string(),
                epd: epd(&pos),
            });
        };
        pos.play_unchecked(m);
        n += 1;
    }
    Ok((pos, n))
}

/// Whether `a` and `b` name the same move in `pos` (UCI or SAN, either castling notation).
pub(crate) fn same_move(pos: &Chess, a: &str, b: &str) -> bool {
    match (parse_move(pos, a), parse_move(pos, b)) {
        (Some(x), Some(y)) => x == y,
        _ => a.trim() == b.trim(),
    }
}
