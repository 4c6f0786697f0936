//! The game record: legal chess through shakmaty, or free-text moves for other games.
//! The move list is the only move counter: periods, move numbers and side to move derive from it.
use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};

use super::Side;
use super::shogi::{ShogiMoveError, ShogiRecord};

/// Why the board did not take a move, a start position or a correction: the one error of every
/// game behind the seam (chess, shogi, free text), so a refusal reaches the shell the same way
/// whichever game it is. The core wraps a refused move in a [`super::Refusal`] citing the rule
/// (the FIDE Laws by 2003 rule 2; Denryu-sen 13.1 for shogi).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("no move given")]
    Empty,
    /// Free-text games: a move is one word.
    #[error("'{0}': a move is one word")]
    NotOneWord(String),
    #[error("the game is over on the board")]
    Over,
    #[error("'{0}' is ambiguous here: say which piece (e.g. Nbd2)")]
    Ambiguous(String),
    #[error("'{0}' is not a legal move here")]
    Illegal(String),
    #[error("'{0}' is neither SAN (e.g. Nf3, O-O, exd8=Q) nor UCI (e.g. g1f3)")]
    Unreadable(String),
    /// The move as people write it (`e8Q`, `o-o`) was read in the standard form and still refused.
    #[error("{error} (written '{written}')")]
    Rewritten {
        error: Box<BoardError>,
        written: String,
    },
    /// A recorded move that does not parse or does not fit the position: a corrupt record.
    #[error("'{uci}'{}: {problem}", .fen.as_ref().map(|f| format!(" in {f}")).unwrap_or_default())]
    Corrupt {
        uci: String,
        fen: Option<String>,
        problem: String,
    },
    /// A move written with a number that is not the number of the move to make (FIDE Laws 8.1).
    #[error("'{written}' is numbered for another move: the move to make is {expected}")]
    WrongNumber { written: String, expected: String },
    #[error("only {0} moves are recorded")]
    TakeBackTooMany(usize),
    /// A start position (FEN) that cannot be read.
    #[error("'{fen}': {problem}")]
    BadFen { fen: String, problem: String },
    #[error("'{fen}' is not a legal position: {problem}")]
    IllegalPosition { fen: String, problem: String },
    #[error("'{0}': the game is over in this position")]
    StartIsOver(String),
    /// A shogi move or position (its own kinds: drops, uchifuzume, the side named).
    #[error(transparent)]
    Shogi(#[from] ShogiMoveError),
}

impl BoardError {
    /// Whether the text was read as a move, but the position does not allow it (what the
    /// referee judges an illegal move), as opposed to text that is no move at all.
    pub fn is_illegal_move(&self) -> bool {
        match self {
            BoardError::Illegal(_) | BoardError::Ambiguous(_) => true,
            BoardError::Rewritten { error, .. } => error.is_illegal_move(),
            BoardError::Shogi(e) => e.is_illegal_move(),
            _ => false,
        }
    }
}

/// A move as recorded: SAN (with check suffix) and UCI for chess; the text itself otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedMove {
    pub san: super::event::Text,
    pub uci: super::event::Text,
}

/// How a chess game ends by the position alone (FIDE Laws, which apply by rule 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PositionEnd {
    Checkmate,
    Stalemate,
    InsufficientMaterial,
    FivefoldRepetition,
    SeventyFiveMoves,
}

impl PositionEnd {
    pub fn describe(self) -> &'static str {
        match self {
            PositionEnd::Checkmate => "checkmate",
            PositionEnd::Stalemate => "stalemate (FIDE Laws 5.2.1)",
            PositionEnd::InsufficientMaterial => {
                "dead position: insufficient material (FIDE Laws 5.2.2)"
            }
            PositionEnd::FivefoldRepetition => "fivefold repetition (FIDE Laws 9.6.1)",
            PositionEnd::SeventyFiveMoves => "75-move rule (FIDE Laws 9.6.2)",
        }
    }
}

/// How a game's moves are numbered wherever a number is shown (the board's move list, `display`,
/// the report's tables and timeline, the PGN, the relay, `wrong-move N`): the one numbering of the
/// kit. A game numbers its moves as its scoresheet does (FIDE Laws 8.1): from the start position's
/// move number (the FEN's fullmove field, 1 for the initial position), the side to move there
/// playing that number's move, so a start with Black to move at fullmove 23 opens `23... e5` and
/// White replies `24.`. The PGN standard numbers a game given with a `[FEN]` tag the same way
/// (its move numbers continue the FEN's fullmove field). What a time control counts (rule 3:
/// "40 moves") is the moves played in this game, not these numbers ([`Board::moves_by`]).
/// Shogi's CSA and KIF number plies their own way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Numbering {
    /// The side to move in the start position.
    pub first: Side,
    /// The number of the first move (the start's fullmove number, at least 1).
    pub first_number: u32,
}

impl Default for Numbering {
    fn default() -> Self {
        Numbering {
            first: Side::White,
            first_number: 1,
        }
    }
}

impl Numbering {
    /// Plies before ply 0 within its numbered pair: 1 when Black moves first.
    fn offset(&self) -> usize {
        usize::from(self.first == Side::Black)
    }

    /// The side that made ply `ply` (0-based).
    pub fn side(&self, ply: usize) -> Side {
        if ply.is_multiple_of(2) {
            self.first
        } else {
            self.first.other()
        }
    }

    /// The number of ply `ply` (0-based).
    pub fn number(&self, ply: usize) -> u32 {
        let pair = (ply + self.offset()) / 2;
        u32::try_from(pair)
            .unwrap_or(u32::MAX)
            .saturating_add(self.first_number)
    }

    /// Whether ply `ply` is White's half of its number (`23.`, not `23...`).
    pub fn is_white(&self, ply: usize) -> bool {
        self.side(ply) == Side::White
    }

    /// `23.` for White's ply, `23...` for Black's.
    pub fn label(&self, ply: usize) -> String {
        let n = self.number(ply);
        if self.is_white(ply) {
            format!("{n}.")
        } else {
            format!("{n}...")
        }
    }

    /// Ply `ply` with its number: `23. Nf3`, `23... Nf6`.
    pub fn numbered(&self, ply: usize, san: &str) -> String {
        format!("{} {san}", self.label(ply))
    }

    /// The ply of `side`'s move number `n`; `None` when that number has no move of `side` (White's
    /// first number when Black moved first, a number before the start).
    pub fn ply_of(&self, side: Side, n: u32) -> Option<usize> {
        let pair = usize::try_from(n.checked_sub(self.first_number)?).ok()?;
        (pair * 2 + usize::from(side == Side::Black)).checked_sub(self.offset())
    }
}

#[derive(Debug, Clone)]
pub struct ChessRecord {
    start: Chess,
    /// Castling notation: Chess960 for a Chess960 start.
    mode: CastlingMode,
    pos: Chess,
    moves: Vec<RecordedMove>,
    /// Zobrist keys of every position so far, the start included.
    keys: Vec<u64>,
}

/// The game seam: what the rest of the kit knows of a game's moves. Chess on shakmaty, shogi on
/// rsshogi (`core::shogi`), or free text for other games.
#[derive(Debug, Clone)]
pub enum Board {
    Chess(Box<ChessRecord>),
    Shogi(Box<ShogiRecord>),
    Free(Vec<RecordedMove>),
}

fn key(pos: &Chess) -> u64 {
    let z: Zobrist64 = pos.zobrist_hash(EnPassantMode::Legal);
    z.0
}

/// A recorded move (UCI) as a legal move of `pos`; a corrupt record otherwise.
fn chess_move(pos: &Chess, uci: &str) -> Result<shakmaty::Move, BoardError> {
    let u = UciMove::from_ascii(uci.as_bytes()).map_err(|e| BoardError::Corrupt {
        uci: uci.to_string(),
        fen: None,
        problem: e.to_string(),
    })?;
    u.to_move(pos).map_err(|e| BoardError::Corrupt {
        uci: uci.to_string(),
        fen: Some(Fen::from_position(pos, EnPassantMode::Legal).to_string()),
        problem: e.to_string(),
    })
}

fn color_side(c: Color) -> Side {
    match c {
        Color::White => Side::White,
        Color::Black => Side::Black,
    }
}

fn side_color(s: Side) -> Color {
    match s {
        Side::White => Color::White,
        Side::Black => Color::Black,
    }
}

impl Board {
    pub fn new_chess() -> Board {
        let pos = Chess::default();
        Board::Chess(Box::new(ChessRecord {
            keys: vec![key(&pos)],
            start: pos.clone(),
            mode: CastlingMode::Standard,
            pos,
            moves: Vec::new(),
        }))
    }

    /// A chess game from a start other than the initial position (odds, Chess960), as FEN.
    pub fn new_chess_from(fen: &str, chess960: bool) -> Result<Board, BoardError> {
        let mode = CastlingMode::from_chess960(chess960);
        let pos: Chess = fen
            .parse::<Fen>()
            .map_err(|e| BoardError::BadFen {
                fen: fen.to_string(),
                problem: e.to_string(),
            })?
            .into_position(mode)
            .map_err(|e| BoardError::IllegalPosition {
                fen: fen.to_string(),
                problem: e.to_string(),
            })?;
        if pos.is_game_over() {
            return Err(BoardError::StartIsOver(fen.to_string()));
        }
        Ok(Board::Chess(Box::new(ChessRecord {
            keys: vec![key(&pos)],
            start: pos.clone(),
            mode,
            pos,
            moves: Vec::new(),
        })))
    }

    /// FEN of the start position (chess only).
    pub fn start_fen(&self) -> Option<String> {
        match self {
            Board::Chess(c) => Some(Fen::from_position(&c.start, EnPassantMode::Legal).to_string()),
            Board::Shogi(_) | Board::Free(_) => None,
        }
    }

    /// How this game's moves are numbered ([`Numbering`]): from the start's fullmove number.
    pub fn numbering(&self) -> Numbering {
        let first_number = match self {
            Board::Chess(c) => c.start.fullmoves().get(),
            Board::Shogi(_) | Board::Free(_) => 1,
        };
        Numbering {
            first: self.first_side(),
            first_number,
        }
    }

    /// The side to move in the start position.
    pub fn first_side(&self) -> Side {
        match self {
            Board::Chess(c) => color_side(c.start.turn()),
            Board::Shogi(s) => s.first_side(),
            Board::Free(_) => Side::White,
        }
    }

    pub fn new_free() -> Board {
        Board::Free(Vec::new())
    }

    /// A shogi board at the even-game start, or at `start` (SFEN; a profile checks it when loaded).
    pub fn new_shogi(start: Option<&str>) -> Board {
        let r = start
            .and_then(|s| ShogiRecord::from_sfen(s).ok())
            .unwrap_or_default();
        Board::Shogi(Box::new(r))
    }

    /// The shogi record, when the game is shogi.
    pub fn shogi(&self) -> Option<&ShogiRecord> {
        match self {
            Board::Shogi(s) => Some(s),
            _ => None,
        }
    }

    pub fn moves(&self) -> &[RecordedMove] {
        match self {
            Board::Chess(c) => &c.moves,
            Board::Shogi(s) => s.moves(),
            Board::Free(m) => m,
        }
    }

    pub fn plies(&self) -> usize {
        self.moves().len()
    }

    pub fn side_to_move(&self) -> Side {
        match self {
            Board::Chess(c) => color_side(c.pos.turn()),
            Board::Shogi(s) => s.side_to_move(),
            Board::Free(m) => {
                if m.len() % 2 == 0 {
                    Side::White
                } else {
                    Side::Black
                }
            }
        }
    }

    /// Moves completed by a side, counted from the recorded moves.
    pub fn moves_by(&self, side: Side) -> u32 {
        let n = self.plies() as u32;
        if side == self.first_side() {
            n.div_ceil(2)
        } else {
            n / 2
        }
    }

    /// FEN of the current position (chess only).
    pub fn fen(&self) -> Option<String> {
        match self {
            Board::Chess(c) => Some(Fen::from_position(&c.pos, EnPassantMode::Legal).to_string()),
            Board::Shogi(_) | Board::Free(_) => None,
        }
    }

    /// Number of men on the board (chess only).
    pub fn men(&self) -> Option<u32> {
        match self {
            Board::Chess(c) => Some(c.pos.board().occupied().count() as u32),
            Board::Shogi(_) | Board::Free(_) => None,
        }
    }

    /// Check a move written in SAN or UCI (or free text) against the position, without playing it.
    pub fn check(&self, text: &str) -> Result<RecordedMove, BoardError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(BoardError::Empty);
        }
        match self {
            Board::Shogi(s) => Ok(s.check(text)?),
            Board::Free(_) => {
                if text.chars().any(char::is_whitespace) {
                    Err(BoardError::NotOneWord(text.to_string()))
                } else {
                    Ok(RecordedMove {
                        san: text.into(),
                        uci: text.into(),
                    })
                }
            }
            Board::Chess(c) => {
                if c.pos.is_game_over() {
                    return Err(BoardError::Over);
                }
                self.check_written_number(text)?;
                let m = parse_chess_move(&c.pos, text)?;
                let uci = UciMove::from_move(m, c.mode).to_string();
                let san = SanPlus::from_move(c.pos.clone(), m).to_string();
                Ok(RecordedMove {
                    san: san.into(),
                    uci: uci.into(),
                })
            }
        }
    }

    /// A move written with its number (`20.Kf2`, `20...Kf2`) must be the move to make now: the
    /// number the game's [`Numbering`] gives it, and Black's when written with `...` (a number
    /// that disagrees is the wrong line of the scoresheet, not a move to guess at).
    fn check_written_number(&self, text: &str) -> Result<(), BoardError> {
        let Some((n, black)) = written_number(text) else {
            return Ok(());
        };
        let numbering = self.numbering();
        let ply = self.plies();
        let side_ok = !black || numbering.side(ply) == Side::Black;
        if n == numbering.number(ply) && side_ok {
            return Ok(());
        }
        Err(BoardError::WrongNumber {
            written: text.to_string(),
            expected: numbering.label(ply),
        })
    }

    /// Play a move recorded earlier (its UCI form for chess). Fails only on a corrupt record.
    pub fn play(&mut self, mv: &RecordedMove) -> Result<(), BoardError> {
        match self {
            Board::Shogi(s) => Ok(s.play(mv)?),
            _ => self.play_owned(mv.clone()),
        }
    }

    /// [`Board::play`] with the move handed over (the replay does not copy it twice).
    pub fn play_owned(&mut self, mv: RecordedMove) -> Result<(), BoardError> {
        match self {
            Board::Shogi(s) => Ok(s.play(&mv)?),
            Board::Free(m) => {
                m.push(mv);
                Ok(())
            }
            Board::Chess(c) => {
                let m = chess_move(&c.pos, &mv.uci)?;
                // The position's key from the one before where shakmaty can (most moves; issue
                // 21: a replay of a million entries hashed every position whole).
                let next = c.keys.last().and_then(|&k| {
                    c.pos
                        .update_zobrist_hash(Zobrist64(k), m, EnPassantMode::Legal)
                        .map(|z| z.0)
                });
                c.pos.play_unchecked(m);
                c.keys.push(next.unwrap_or_else(|| key(&c.pos)));
                c.moves.push(mv);
                Ok(())
            }
        }
    }

    /// Take back the last `n` plies (arbiter-authorised correction, rules 6d / 7e).
    pub fn take_back(&mut self, n: usize) -> Result<(), BoardError> {
        if n > self.plies() {
            return Err(BoardError::TakeBackTooMany(self.plies()));
        }
        let keep = self.plies() - n;
        match self {
            Board::Shogi(s) => Ok(s.take_back(n)?),
            Board::Free(m) => {
                m.truncate(keep);
                Ok(())
            }
            Board::Chess(c) => {
                // The position is played again from the start (shakmaty keeps no history); the
                // moves and the positions' keys up to `keep` stand as they are. Nothing changes
                // unless every kept move plays.
                let mut pos = c.start.clone();
                for mv in &c.moves[..keep] {
                    let m = chess_move(&pos, &mv.uci)?;
                    pos.play_unchecked(m);
                }
                c.pos = pos;
                c.moves.truncate(keep);
                c.keys.truncate(keep + 1);
                Ok(())
            }
        }
    }

    /// How the position itself ends the game, if it does (automatic under the FIDE Laws).
    pub fn automatic_end(&self) -> Option<PositionEnd> {
        let Board::Chess(c) = self else { return None };
        if c.pos.is_checkmate() {
            return Some(PositionEnd::Checkmate);
        }
        if c.pos.is_stalemate() {
            return Some(PositionEnd::Stalemate);
        }
        if c.pos.is_insufficient_material() {
            return Some(PositionEnd::InsufficientMaterial);
        }
        if self.repetitions() >= 5 {
            return Some(PositionEnd::FivefoldRepetition);
        }
        if c.pos.halfmoves() >= 150 {
            return Some(PositionEnd::SeventyFiveMoves);
        }
        None
    }

    /// How many times the current position has occurred.
    pub fn repetitions(&self) -> usize {
        match self {
            Board::Chess(c) => {
                let last = c.keys.last().copied().unwrap_or_default();
                c.keys.iter().filter(|k| **k == last).count()
            }
            Board::Shogi(_) | Board::Free(_) => 0,
        }
    }

    /// Half-moves since the last capture or pawn move.
    pub fn halfmove_clock(&self) -> u32 {
        match self {
            Board::Chess(c) => c.pos.halfmoves(),
            Board::Shogi(_) | Board::Free(_) => 0,
        }
    }

    /// Whether `side` can still checkmate by any legal sequence (FIDE Laws 6.9). Free games: yes.
    pub fn can_checkmate(&self, side: Side) -> bool {
        match self {
            Board::Chess(c) => !c.pos.has_insufficient_material(side_color(side)),
            Board::Shogi(_) | Board::Free(_) => true,
        }
    }

    /// Whose move ended the game by checkmate (the side not to move).
    pub fn winner_by_mate(&self) -> Side {
        self.side_to_move().other()
    }

    /// 10a without tables: the elementary wins the kit judges alone — a lone king against K+Q,
    /// K+R, K+B+B (bishops on both colours) or K+B+N, with or without more — as (the winner,
    /// the material, e.g. `K+Q v K`). None when the material is none of these, or when the lone
    /// king is to move and can capture (the win may be gone). See [`ELEMENTARY_WINS`].
    pub fn elementary_win(&self) -> Option<(Side, String)> {
        let Board::Chess(c) = self else {
            return None;
        };
        let b = c.pos.board();
        for color in [Color::White, Color::Black] {
            if b.by_color(!color).count() != 1 {
                continue;
            }
            let mine = b.by_color(color);
            let n = |bb: shakmaty::Bitboard| (bb & mine).count();
            let bishops = b.bishops() & mine;
            let both_colours = (bishops & shakmaty::Bitboard::LIGHT_SQUARES).any()
                && (bishops & shakmaty::Bitboard::DARK_SQUARES).any();
            let wins = n(b.queens()) > 0
                || n(b.rooks()) > 0
                || both_colours
                || (bishops.any() && n(b.knights()) > 0);
            if !wins {
                continue;
            }
            if c.pos.turn() == !color && c.pos.legal_moves().iter().any(|m| m.is_capture()) {
                return None;
            }
            let mut material = String::from("K");
            for (letter, count) in [
                ('Q', n(b.queens())),
                ('R', n(b.rooks())),
                ('B', n(b.bishops())),
                ('N', n(b.knights())),
                ('P', n(b.pawns())),
            ] {
                for _ in 0..count {
                    material.push('+');
                    material.push(letter);
                }
            }
            return Some((color_side(color), format!("{material} v K")));
        }
        None
    }
}

/// The material [`Board::elementary_win`] judges a win without tables (10a).
pub const ELEMENTARY_WINS: &str =
    "K+Q, K+R, K+B+B (bishops on both colours) or K+B+N, with or without more, against a lone king";

/// A move as people write it, in the form shakmaty's SAN parser reads: a move number
/// in front (`20.Kf2`, `20...Kf2`, `20…Kf2`) dropped; castling with letter O in either case or
/// with zeros (`o-o`, `0-0`, FIDE Laws Appendix C.13) as `O-O`; a promotion written `e8Q`,
/// `e8q`, `e8(Q)`, `e8/Q` or `e8=q` as `e8=Q` (FIDE's own form, Appendix C.9, writes the piece
/// after the square); annotation marks (`!`, `?`) dropped.
pub fn normalise_notation(text: &str) -> String {
    let t = text.trim();
    let numbered = t.trim_start_matches(|c: char| c.is_ascii_digit());
    let t = if numbered.len() < t.len() && numbered.starts_with(['.', '…']) {
        numbered.trim_start_matches(['.', '…', ' '])
    } else {
        t
    };
    let t = t.trim_end_matches(['!', '?']);
    let body = t.trim_end_matches(['+', '#']);
    let suffix = &t[body.len()..];
    let body = if body.eq_ignore_ascii_case("o-o") || body == "0-0" {
        "O-O".to_string()
    } else if body.eq_ignore_ascii_case("o-o-o") || body == "0-0-0" {
        "O-O-O".to_string()
    } else {
        promotion(body).unwrap_or_else(|| body.to_string())
    };
    format!("{body}{suffix}")
}

/// The number written in front of a move (`20.Kf2` → 20, White's or either; `20...Kf2`,
/// `20…Kf2` → 20, Black's), if any.
fn written_number(text: &str) -> Option<(u32, bool)> {
    let t = text.trim();
    let rest = t.trim_start_matches(|c: char| c.is_ascii_digit());
    let digits = &t[..t.len() - rest.len()];
    if digits.is_empty() || !rest.starts_with(['.', '…']) {
        return None;
    }
    let n = digits.parse().ok()?;
    let marks = rest.trim_start_matches(['.', '…']);
    let marks = &rest[..rest.len() - marks.len()];
    Some((n, marks.len() > 1))
}

/// `e8Q`, `e8q`, `e8(Q)`, `e8/Q`, `e8=q` → `e8=Q`; anything else: `None`.
fn promotion(body: &str) -> Option<String> {
    if !body.starts_with(|c: char| matches!(c, 'a'..='h')) {
        return None;
    }
    let (base, piece) = if let Some(inner) = body.strip_suffix(')') {
        let (base, piece) = inner.rsplit_once('(')?;
        (base, piece)
    } else if let Some((base, piece)) = body.rsplit_once(['=', '/']) {
        (base, piece)
    } else {
        let last = body.chars().last()?;
        (
            &body[..body.len() - last.len_utf8()],
            &body[body.len() - last.len_utf8()..],
        )
    };
    let mut p = piece.chars();
    let (Some(piece), None) = (p.next(), p.next()) else {
        return None;
    };
    let piece = piece.to_ascii_uppercase();
    (matches!(piece, 'Q' | 'R' | 'B' | 'N') && base.ends_with(['1', '8']))
        .then(|| format!("{base}={piece}"))
}

fn parse_chess_move(pos: &Chess, text: &str) -> Result<shakmaty::Move, BoardError> {
    match parse_exact(pos, text) {
        Ok(m) => Ok(m),
        Err(e) => {
            let n = normalise_notation(text);
            if n == text {
                return Err(e);
            }
            parse_exact(pos, &n).map_err(|e2| BoardError::Rewritten {
                error: Box::new(e2),
                written: text.trim().to_string(),
            })
        }
    }
}

fn parse_exact(pos: &Chess, text: &str) -> Result<shakmaty::Move, BoardError> {
    // FIDE's own notation writes castling with zeros (Laws, Appendix C.13): 0-0, 0-0-0.
    let castling = match text.trim_end_matches(['+', '#']) {
        "0-0" => Some("O-O"),
        "0-0-0" => Some("O-O-O"),
        _ => None,
    };
    let suffix = &text[text.trim_end_matches(['+', '#']).len()..];
    let owned;
    let text = match castling {
        Some(c) => {
            owned = format!("{c}{suffix}");
            owned.as_str()
        }
        None => text,
    };
    let san_err = match SanPlus::from_ascii(text.as_bytes()) {
        Ok(sp) => match sp.san.to_move(pos) {
            Ok(m) => return Ok(m),
            Err(SanError::AmbiguousSan) => {
                return Err(BoardError::Ambiguous(text.to_string()));
            }
            Err(SanError::IllegalSan) => Some(BoardError::Illegal(text.to_string())),
        },
        Err(_) => None,
    };
    match UciMove::from_ascii(text.as_bytes()) {
        Ok(u) => u
            .to_move(pos)
            .map_err(|_| BoardError::Illegal(text.to_string())),
        Err(_) => Err(san_err.unwrap_or_else(|| BoardError::Unreadable(text.to_string()))),
    }
}

/// SAN candidates completing a prefix, for the Board UI's move line.
pub fn complete_san(board: &Board, prefix: &str) -> Vec<String> {
    let Board::Chess(c) = board else {
        return Vec::new();
    };
    let mut out: Vec<String> = c
        .pos
        .legal_moves()
        .iter()
        .map(|m| San::from_move(&c.pos, *m).to_string())
        .filter(|s| s.starts_with(prefix))
        .collect();
    out.sort();
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn each_positions_key_from_the_one_before_is_the_whole_positions_key() {
        // Many pseudo-random games (castling, en passant, promotions and captures on the rook
        // squares among them): after each move the key kept is the key of the position hashed
        // whole, and takebacks keep them so.
        let (mut seen_ep, mut seen_castle, mut seen_promotion) = (false, false, false);
        for game in 0..200u64 {
            let mut b = Board::new_chess();
            let mut r = game
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            for _ in 0..300 {
                let Board::Chess(c) = &b else { unreachable!() };
                let legal = c.pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                r = r
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let m = legal[(r >> 33) as usize % legal.len()];
                seen_ep |= m.is_en_passant();
                seen_castle |= m.is_castle();
                seen_promotion |= m.is_promotion();
                let uci = UciMove::from_move(m, CastlingMode::Standard).to_string();
                b.play_owned(RecordedMove {
                    san: "-".into(),
                    uci: uci.into(),
                })
                .unwrap();
                let Board::Chess(c) = &b else { unreachable!() };
                assert_eq!(c.keys.last().copied(), Some(key(&c.pos)), "game {game}");
                if r % 17 == 0 && c.moves.len() > 2 {
                    b.take_back(2).unwrap();
                    let Board::Chess(c) = &b else { unreachable!() };
                    assert_eq!(c.keys.last().copied(), Some(key(&c.pos)), "game {game}");
                }
            }
        }
        assert!(seen_ep && seen_castle && seen_promotion);
    }

    #[test]
    fn san_and_uci_both_accepted_and_refusals_say_why() {
        let mut b = Board::new_chess();
        let m = b.check("e4").unwrap();
        assert_eq!(m.uci, "e2e4");
        b.play(&m).unwrap();
        let m = b.check("e7e5").unwrap();
        assert_eq!(m.san, "e5");
        b.play(&m).unwrap();
        assert!(
            b.check("Ke3")
                .unwrap_err()
                .to_string()
                .contains("not a legal move")
        );
        assert!(
            b.check("zz")
                .unwrap_err()
                .to_string()
                .contains("neither SAN")
        );
        assert_eq!(b.moves_by(Side::White), 1);
        assert_eq!(b.side_to_move(), Side::White);
    }

    #[test]
    fn ambiguous_san_is_refused() {
        let mut b = Board::new_chess();
        for m in ["Nf3", "a6", "Nc3", "a5", "Nd4", "a4", "e3", "h6"] {
            let r = b.check(m).unwrap();
            b.play(&r).unwrap();
        }
        // knights on c3 and d4 can both reach b5
        assert!(
            b.check("Nb5")
                .unwrap_err()
                .to_string()
                .contains("ambiguous")
        );
        assert!(b.check("Ncb5").is_ok());
    }

    #[test]
    fn takeback_of_any_length_equals_playing_the_kept_moves_afresh() {
        // A takeback keeps the moves and the positions' keys up to the kept ply
        // instead of playing them all again; the board must be the one played afresh.
        let line = [
            "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3",
            "d6", "c3", "O-O", "h3", "Nb8", "d4", "Nbd7",
        ];
        let mut full = Board::new_chess();
        let mut played = Vec::new();
        for m in line {
            let r = full.check(m).unwrap();
            full.play(&r).unwrap();
            played.push(r);
        }
        for n in 0..=line.len() {
            let mut back = full.clone();
            back.take_back(n).unwrap();
            let mut fresh = Board::new_chess();
            for r in &played[..line.len() - n] {
                fresh.play_owned(r.clone()).unwrap();
            }
            assert_eq!(format!("{back:?}"), format!("{fresh:?}"), "take back {n}");
        }
        assert!(full.take_back(line.len() + 1).is_err());
        assert_eq!(
            full.plies(),
            line.len(),
            "a refused takeback changes nothing"
        );
    }

    #[test]
    fn takeback_rebuilds_repetition_history() {
        let mut b = Board::new_chess();
        for m in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"] {
            let r = b.check(m).unwrap();
            b.play(&r).unwrap();
        }
        assert_eq!(b.repetitions(), 3);
        b.take_back(4).unwrap();
        assert_eq!(b.repetitions(), 2);
        assert_eq!(b.plies(), 4);
    }
}
