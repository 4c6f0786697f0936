//! Rules of the start (a profile's `[start]`): starts other than the initial position —
//! a FEN per game, named odds positions and Chess960 by its number. The start is part of the rules
//! profile, which line 0 embeds, so the log binds it; the board begins there and the PGN writes
//! `[SetUp "1"]` and `[FEN …]`.
use serde::Deserialize;

/// The initial position.
pub const INITIAL: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Classical odds positions: the initial position with the odds-giver's man removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Odds {
    /// Pawn and move: Black (the odds-giver) without its f7 pawn, White to move.
    PawnAndMove,
    /// Pawn odds: White without its f2 pawn.
    PawnF2,
    /// Knight odds: White without its b1 knight.
    KnightB1,
    /// Rook odds: White without its a1 rook.
    RookA1,
    /// Queen odds: White without its queen.
    Queen,
    /// Exchange odds as Komodo gave them to Nakamura (2016, game 3, as a summary of the match describes it):
    /// White without its a1 rook, Black without its b8 knight, Black's rook on b8.
    Exchange,
}

impl Odds {
    pub fn fen(self) -> &'static str {
        match self {
            Odds::PawnAndMove => "rnbqkbnr/ppppp1pp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            Odds::PawnF2 => "rnbqkbnr/pppppppp/8/8/8/8/PPPPP1PP/RNBQKBNR w KQkq - 0 1",
            Odds::KnightB1 => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1",
            Odds::RookA1 => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w Kkq - 0 1",
            Odds::Queen => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1",
            Odds::Exchange => "1rbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w Kk - 0 1",
        }
    }
}

/// The back rank of Chess960 position `n` (0..960), by Scharnagl's numbering: the light-squared
/// bishop from n mod 4, the dark-squared bishop from the next base-4 digit, the queen on the
/// (n / 16 mod 6)-th free square, the knights from the table of ten, then rook, king, rook.
/// Position 518 is the initial position.
pub fn chess960_rank(n: u32) -> Option<[char; 8]> {
    if n >= 960 {
        return None;
    }
    let mut rank = [' '; 8];
    rank[(n % 4 * 2 + 1) as usize] = 'B';
    let n = n / 4;
    rank[(n % 4 * 2) as usize] = 'B';
    let n = n / 4;
    let place = |rank: &mut [char; 8], k: u32, piece: char| {
        if let Some(i) = (0..8).filter(|i| rank[*i] == ' ').nth(k as usize) {
            rank[i] = piece;
        }
    };
    place(&mut rank, n % 6, 'Q');
    const KNIGHTS: [(u32, u32); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = KNIGHTS[(n / 6) as usize];
    // The second knight first: placing the first would shift the free squares after it.
    place(&mut rank, b, 'N');
    place(&mut rank, a, 'N');
    for piece in ['R', 'K', 'R'] {
        place(&mut rank, 0, piece);
    }
    Some(rank)
}

/// The FEN of Chess960 position `n`, with Shredder-style castling files.
pub fn chess960_fen(n: u32) -> Option<String> {
    let rank = chess960_rank(n)?;
    let white: String = rank.iter().collect();
    let black = white.to_lowercase();
    let files: Vec<char> = rank
        .iter()
        .enumerate()
        .filter(|(_, c)| **c == 'R')
        .map(|(i, _)| (b'a' + i as u8) as char)
        .collect();
    let castling: String = files
        .iter()
        .map(|c| c.to_ascii_uppercase())
        .chain(files.iter().copied())
        .collect();
    Some(format!(
        "{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w {castling} - 0 1"
    ))
}
