//! Setting up positions with shakmaty: the key searches and moves are matched by.

use shakmaty::fen::{Epd, Fen};
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

/// The EPD of a position: placement, side to move, castling rights, legal en passant square.
pub(crate) fn epd(pos: &Chess) -> String {
    Epd::from_position(pos, EnPassantMode::Legal).to_string()
}

/// A position from a FEN (or EPD) text.
pub(crate) fn from_fen(fen: &str) -> Result<Chess, String> {
    let parsed =
        Fen::from_ascii(fen.trim().as_bytes()).map_err(|e| format!("bad FEN {fen:?}: {e}"))?;
    match parsed.clone().into_position(CastlingMode::Standard) {
        Ok(pos) => Ok(pos),
        Err(_) => parsed
            .into_position(CastlingMode::Chess960)
            .map_err(|e| format!("illegal FEN {fen:?}: {e}")),
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
) -> Result<(Chess, usize), String> {
    let mut n = 0usize;
    for text in moves {
        let Some(m) = parse_move(&pos, text) else {
            return Err(format!(
                "move {} ({text}) is not legal in {}",
                n + 1,
                epd(&pos)
            ));
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
