//! Shogi behind the game seam ([`crate::core::board::Board::Shogi`]), on `rsshogi`: legal moves
//! (non-promotions and drops included, uchifuzume and nifu refused), the notations players write
//! (USI `7g7f` `P*5e` `8h2b+`, CSA `+7776FU`, Japanese `７六歩` `同　歩` `７六歩(77)`), repetition
//! (sennichite, perpetual check) and the entering-king declaration's conditions (Denryu-sen 23).
//!
//! The first player (sente, ▲) is the kit's [`Side::White`]; the second (gote, △) [`Side::Black`].
use rsshogi::board::{self, Move32List, Position};
use rsshogi::types::{Color, HandPiece, Move, Move32, Piece, PieceType, RepetitionState, Square};
use serde::{Deserialize, Serialize};

use super::Side;
use super::board::RecordedMove;

pub mod notation; // Japanese, CSA and KIF text of moves, pieces and squares

/// Why a shogi move was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShogiMoveError {
    #[error("no move given")]
    Empty,
    #[error(
        "'{0}' is not a shogi move: write it in USI (7g7f, P*5e, 8h2b+), CSA (+7776FU) or Japanese (７六歩, 同　歩, ７六歩(77))"
    )]
    Unreadable(String),
    #[error("'{0}' is not a legal move here")]
    Illegal(String),
    #[error("'{0}' drops a pawn that gives checkmate (uchifuzume): an illegal move")]
    PawnDropMate(String),
    #[error("'{0}' names {1}'s move, but it is {2}'s turn")]
    WrongSide(String, &'static str, &'static str),
    #[error("'{text}' is ambiguous here: say which piece ({candidates})")]
    Ambiguous { text: String, candidates: String },
    #[error("the game is over on the board: {0} has no legal move")]
    NoLegalMove(&'static str),
    #[error("recorded move '{0}' cannot be played here (a corrupt record)")]
    Corrupt(String),
    #[error("'{sfen}' is not a shogi position (SFEN): {problem}")]
    BadStart { sfen: String, problem: String },
}

impl ShogiMoveError {
    /// Whether the text was a move, but not a legal one (what shogi-server judges an illegal move).
    pub fn is_illegal_move(&self) -> bool {
        matches!(
            self,
            ShogiMoveError::Illegal(_)
                | ShogiMoveError::PawnDropMate(_)
                | ShogiMoveError::WrongSide(..)
        )
    }
}

/// How the position ends a shogi game by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShogiEnd {
    /// The side to move has no legal move (checkmate; in shogi a side without moves loses).
    Mate { winner: Side },
    /// The same position (board, hands, side to move) for the fourth time: sennichite.
    Sennichite,
    /// Sennichite in which one side gave check with every move of the cycle.
    PerpetualCheck { checker: Side },
}

/// The facts article 23 asks about, measured on the position for the side to move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeclarationFacts {
    /// 23.2: the king is in the enemy camp (its three farthest ranks).
    pub king_in_camp: bool,
    /// 23.3: points (rook and bishop, promoted or not, 5; other pieces 1) of the pieces in hand
    /// and of the pieces in the enemy camp, the king not counted.
    pub points: u32,
    /// 23.4: the side's pieces in the enemy camp, the king not counted.
    pub pieces_in_camp: u32,
    /// 23.5: the king is in check.
    pub in_check: bool,
}

/// A piece as the board shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PieceView {
    pub side: Side,
    /// One kanji (杏, 圭, 全 for the promoted lance, knight and silver).
    pub kanji: char,
    /// USI letters, `+` before a promoted piece (upper case for sente, lower for gote).
    pub letters: String,
}

/// What a shogi board shows: the 9×9 squares, both hands, the last move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShogiView {
    /// `squares[rank][col]`: rank 0 is 一 (gote's back rank), col 0 is file 9 (left as sente sees).
    pub squares: Vec<Vec<Option<PieceView>>>,
    /// Pieces in hand per side (`[sente, gote]`): kanji, letter, count; rook first, pawn last.
    pub hands: [Vec<(char, char, u32)>; 2],
    /// The last move's destination as (rank, col) in `squares`.
    pub last_to: Option<(usize, usize)>,
    pub in_check: bool,
}

/// Side <-> rsshogi colour: sente (black in shogi terms) is the first player, the kit's white.
pub fn color_of(side: Side) -> Color {
    match side {
        Side::White => Color::BLACK,
        Side::Black => Color::WHITE,
    }
}

pub fn side_of(c: Color) -> Side {
    if c == Color::BLACK {
        Side::White
    } else {
        Side::Black
    }
}

/// The Japanese name of a side: 先手 (sente) or 後手 (gote).
pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::White => "sente",
        Side::Black => "gote",
    }
}

/// A shogi game record: the position and the moves.
#[derive(Clone)]
pub struct ShogiRecord {
    /// The start position (SFEN), from which take-backs replay.
    start: String,
    pos: Position,
    moves: Vec<RecordedMove>,
}

impl std::fmt::Debug for ShogiRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShogiRecord")
            .field("sfen", &self.sfen())
            .field("moves", &self.moves)
            .finish()
    }
}

impl Default for ShogiRecord {
    fn default() -> Self {
        ShogiRecord::new()
    }
}

impl ShogiRecord {
    /// The even-game (hirate) start, as every Denryu-sen game (19.1).
    pub fn new() -> ShogiRecord {
        let mut pos = board::hirate_position();
        pos.init_stack();
        ShogiRecord {
            start: board::STARTPOS_SFEN.to_string(),
            pos,
            moves: Vec::new(),
        }
    }

    /// A record starting from an SFEN position (tests, studies).
    pub fn from_sfen(sfen: &str) -> Result<ShogiRecord, ShogiMoveError> {
        let mut pos = board::position_from_sfen(sfen).map_err(|e| ShogiMoveError::BadStart {
            sfen: sfen.to_string(),
            problem: e.to_string(),
        })?;
        pos.init_stack();
        Ok(ShogiRecord {
            start: sfen.to_string(),
            pos,
            moves: Vec::new(),
        })
    }

    pub fn moves(&self) -> &[RecordedMove] {
        &self.moves
    }

    pub fn position(&self) -> &Position {
        &self.pos
    }

    pub fn side_to_move(&self) -> Side {
        side_of(self.pos.turn())
    }

    /// SFEN of the current position.
    pub fn sfen(&self) -> String {
        board::generate_sfen(&self.pos)
    }

    fn legal(&self) -> Move32List {
        let mut list = Move32List::new();
        board::generate_legal_all_move32(&self.pos, &mut list);
        list
    }

    /// Check a move written in USI, CSA or Japanese against the position, without playing it.
    /// The recorded move's `san` is its Japanese notation with ▲/△, its `uci` the USI.
    pub fn check(&self, text: &str) -> Result<RecordedMove, ShogiMoveError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(ShogiMoveError::Empty);
        }
        let legal = self.legal();
        if legal.is_empty() {
            return Err(ShogiMoveError::NoLegalMove(side_name(self.side_to_move())));
        }
        let us = self.pos.turn();
        let form = notation::Form::of(text);
        if let Some(mark) = form.side_mark()
            && mark != us
        {
            return Err(ShogiMoveError::WrongSide(
                text.to_string(),
                side_name(side_of(mark)),
                side_name(side_of(us)),
            ));
        }
        let found: Vec<Move32> = legal
            .iter()
            .copied()
            .filter(|m| form.matches(&self.pos, *m))
            .collect();
        match found.as_slice() {
            [m] => Ok(self.recorded(*m)),
            [] => Err(self.why_not(text, &form)),
            many => Err(ShogiMoveError::Ambiguous {
                text: text.to_string(),
                candidates: many
                    .iter()
                    .map(|m| notation::ki2(&self.pos, *m))
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }

    fn recorded(&self, m: Move32) -> RecordedMove {
        RecordedMove {
            // One word (同銀, not 同　銀): the notation goes where words are split on spaces.
            san: notation::ki2(&self.pos, m).replace('　', "").into(),
            uci: m.to_usi().into(),
        }
    }

    /// Why no legal move matches: an illegal move (uchifuzume named), or no move at all.
    fn why_not(&self, text: &str, form: &notation::Form) -> ShogiMoveError {
        if !form.is_move_syntax() {
            return ShogiMoveError::Unreadable(text.to_string());
        }
        if let Some(to) = form.pawn_drop_target()
            && self.pawn_drop_mates(to)
        {
            return ShogiMoveError::PawnDropMate(text.to_string());
        }
        ShogiMoveError::Illegal(text.to_string())
    }

    /// Whether dropping a pawn on `to` is refused only because it would give checkmate: the drop
    /// is otherwise possible (an empty square, a pawn in hand, no other unpromoted pawn of ours
    /// on the file, not the last rank), it checks the enemy king (the square in front of it),
    /// our king is not in check, and yet it is not a legal move.
    fn pawn_drop_mates(&self, to: Square) -> bool {
        let us = self.pos.turn();
        let arr = self.pos.board_array();
        if !arr.get(to).is_empty()
            || self.pos.hands_array()[us.to_index()].count(HandPiece::PAWN) == 0
            || !self.pos.checkers().is_empty()
        {
            return false;
        }
        let (file, rank) = (to.file().raw(), to.rank().raw());
        let last_rank = if us == Color::BLACK { 0 } else { 8 };
        let nifu = Square::iter().any(|sq| {
            let p = arr.get(sq);
            sq.file().raw() == file
                && !p.is_empty()
                && p.color() == us
                && p.piece_type() == PieceType::PAWN
        });
        let ahead = if us == Color::BLACK {
            rank - 1
        } else {
            rank + 1
        };
        let checks = Square::iter().any(|sq| {
            let p = arr.get(sq);
            !p.is_empty()
                && p.color() != us
                && p.piece_type() == PieceType::KING
                && sq.file().raw() == file
                && sq.rank().raw() == ahead
        });
        let m = Move32::drop(PieceType::PAWN, to, us);
        rank != last_rank && !nifu && checks && !self.legal().iter().any(|x| *x == m)
    }

    /// Play a move recorded earlier (its USI form). Fails only on a corrupt record.
    pub fn play(&mut self, mv: &RecordedMove) -> Result<(), ShogiMoveError> {
        let corrupt = || ShogiMoveError::Corrupt(mv.uci.to_string());
        let m = board::move_from_usi(&self.pos, &mv.uci).ok_or_else(corrupt)?;
        if !self.pos.is_legal_move32(m) || !self.legal().iter().any(|x| *x == m) {
            return Err(corrupt());
        }
        self.pos.try_apply_move32(m).map_err(|_| corrupt())?;
        self.moves.push(mv.clone());
        Ok(())
    }

    /// Play a move given in USI (`7g7f`, `P*5e`, `8h2b+`) if it is legal here: the engine-log
    /// reader sets up the positions a USI log names with it.
    pub fn play_usi(&mut self, usi: &str) -> Result<RecordedMove, ShogiMoveError> {
        let m = board::move_from_usi(&self.pos, usi.trim())
            .filter(|m| self.legal().iter().any(|x| x == m))
            .ok_or_else(|| ShogiMoveError::Illegal(usi.trim().to_string()))?;
        let mv = self.recorded(m);
        self.pos
            .try_apply_move32(m)
            .map_err(|_| ShogiMoveError::Illegal(usi.trim().to_string()))?;
        self.moves.push(mv.clone());
        Ok(mv)
    }

    /// The position without its move number (board, side to move, hands): what repeats, and the
    /// key a USI engine log's searches are matched to the game's moves by.
    pub fn position_key(&self) -> String {
        let sfen = self.sfen();
        let fields: Vec<&str> = sfen.split_whitespace().take(3).collect();
        fields.join(" ")
    }

    /// Take back the last `n` plies.
    pub fn take_back(&mut self, n: usize) -> Result<(), ShogiMoveError> {
        let keep = self.moves.len().saturating_sub(n);
        let mut fresh = ShogiRecord::from_sfen(&self.start)
            .map_err(|_| ShogiMoveError::Corrupt(self.start.clone()))?;
        for m in &self.moves[..keep] {
            fresh.play(m)?;
        }
        *self = fresh;
        Ok(())
    }

    /// The side to move at the start (sente, unless the SFEN says `w`).
    pub fn first_side(&self) -> Side {
        if self.start.split_whitespace().nth(1) == Some("w") {
            Side::Black
        } else {
            Side::White
        }
    }

    /// The start position (SFEN).
    pub fn start_sfen(&self) -> &str {
        &self.start
    }

    /// The legal moves in USI.
    pub fn legal_usi(&self) -> Vec<String> {
        self.legal().iter().map(|m| m.to_usi()).collect()
    }

    /// The legal moves in Japanese notation (the Board UI's completion).
    pub fn legal_japanese(&self) -> Vec<String> {
        self.legal()
            .iter()
            .map(|m| notation::ki2(&self.pos, *m))
            .collect()
    }

    /// How the position ends the game, if it does: mate, sennichite, perpetual check.
    pub fn end(&self) -> Option<ShogiEnd> {
        let us = self.side_to_move();
        match self.pos.repetition_state() {
            RepetitionState::Draw => return Some(ShogiEnd::Sennichite),
            // The side to move gave check with every move of the cycle.
            RepetitionState::Lose => return Some(ShogiEnd::PerpetualCheck { checker: us }),
            RepetitionState::Win => {
                return Some(ShogiEnd::PerpetualCheck {
                    checker: us.other(),
                });
            }
            _ => {}
        }
        self.pos
            .is_mated()
            .then(|| ShogiEnd::Mate { winner: us.other() })
    }

    /// Whether the side to move is mated (no legal move).
    pub fn is_mated(&self) -> bool {
        self.pos.is_mated()
    }

    /// The facts of article 23 for `side`'s king and pieces (measured as if `side` were to move).
    pub fn declaration_facts(&self, side: Side) -> DeclarationFacts {
        let color = color_of(side);
        let pos = &self.pos;
        let camp = |sq: Square| {
            let r = sq.rank().raw();
            if color == Color::BLACK {
                r <= 2
            } else {
                r >= 6
            }
        };
        let arr = pos.board_array();
        let mut king_in_camp = false;
        let mut pieces = 0u32;
        let mut points = 0u32;
        for sq in Square::iter() {
            let p: Piece = arr.get(sq);
            if p.is_empty() || p.color() != color || !camp(sq) {
                continue;
            }
            let t = p.piece_type();
            if t == PieceType::KING {
                king_in_camp = true;
                continue;
            }
            pieces += 1;
            points += piece_points(t);
        }
        let hand = pos.hands_array()[color.to_index()];
        for (hp, value) in [
            (HandPiece::ROOK, 5),
            (HandPiece::BISHOP, 5),
            (HandPiece::GOLD, 1),
            (HandPiece::SILVER, 1),
            (HandPiece::KNIGHT, 1),
            (HandPiece::LANCE, 1),
            (HandPiece::PAWN, 1),
        ] {
            points += hand.count(hp) * value;
        }
        // The side not to move has just moved: its king cannot be in check.
        let in_check = pos.turn() == color && !pos.checkers().is_empty();
        DeclarationFacts {
            king_in_camp,
            points,
            pieces_in_camp: pieces,
            in_check,
        }
    }

    /// What the board shows (pure; the Board UI draws it).
    pub fn view(&self) -> ShogiView {
        let arr = self.pos.board_array();
        let mut squares = vec![vec![None; 9]; 9];
        for sq in Square::iter() {
            let p: Piece = arr.get(sq);
            if p.is_empty() {
                continue;
            }
            let (file, rank) = (sq.file().raw() as usize, sq.rank().raw() as usize);
            let side = side_of(p.color());
            let t = p.piece_type();
            let letters = notation::piece_letters(t);
            let letters = if side == Side::White {
                letters.to_string()
            } else {
                letters.to_ascii_lowercase()
            };
            if let Some(cell) = squares
                .get_mut(rank)
                .and_then(|r| r.get_mut(8 - file.min(8)))
            {
                *cell = Some(PieceView {
                    side,
                    kanji: notation::piece_char(t),
                    letters,
                });
            }
        }
        let hands = [Side::White, Side::Black].map(|side| {
            let h = self.pos.hands_array()[color_of(side).to_index()];
            [
                (HandPiece::ROOK, '飛', 'R'),
                (HandPiece::BISHOP, '角', 'B'),
                (HandPiece::GOLD, '金', 'G'),
                (HandPiece::SILVER, '銀', 'S'),
                (HandPiece::KNIGHT, '桂', 'N'),
                (HandPiece::LANCE, '香', 'L'),
                (HandPiece::PAWN, '歩', 'P'),
            ]
            .into_iter()
            .filter(|(hp, ..)| h.count(*hp) > 0)
            .map(|(hp, k, l)| (k, l, h.count(hp)))
            .collect()
        });
        let last = self.pos.last_move();
        let last_to = (!self.moves.is_empty() && last.is_normal()).then(|| {
            let to = last.to_sq();
            (
                to.rank().raw() as usize,
                8 - (to.file().raw() as usize).min(8),
            )
        });
        ShogiView {
            squares,
            hands,
            last_to,
            in_check: !self.pos.checkers().is_empty(),
        }
    }

    /// The move in CSA form (`+7776FU`), for records.
    pub fn csa_of(&self, index: usize) -> Option<String> {
        let mut r = ShogiRecord::from_sfen(&self.start).ok()?;
        for m in self.moves.get(..index)? {
            r.play(m).ok()?;
        }
        let mv = self.moves.get(index)?;
        let m = board::move_from_usi(&r.pos, &mv.uci)?;
        m.to_csa()
    }

    /// Every move with its mover and its CSA and KIF forms, replayed from the start (records).
    pub fn record_forms(&self) -> Vec<(Side, String, String)> {
        let Ok(mut r) = ShogiRecord::from_sfen(&self.start) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for mv in &self.moves {
            let Some(m) = board::move_from_usi(&r.pos, &mv.uci) else {
                break;
            };
            let csa = m.to_csa().unwrap_or_default();
            let kif = notation::kif(&r.pos, m);
            // The mover is the position's side to move (a handicap or a set-up position may
            // start with gote), not the ply's parity.
            out.push((r.side_to_move(), csa, kif));
            if r.play(mv).is_err() {
                break;
            }
        }
        out
    }

    /// The USI move as rsshogi's 16-bit move (for callers that need the squares).
    pub fn usi_move(text: &str) -> Option<Move> {
        Move::from_usi(text)
    }
}

/// Article 23's points: rook and bishop (promoted or not) 5, other pieces 1, the king none.
fn piece_points(t: PieceType) -> u32 {
    match t {
        PieceType::ROOK | PieceType::BISHOP | PieceType::DRAGON | PieceType::HORSE => 5,
        PieceType::KING => 0,
        _ => 1,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn play_all(r: &mut ShogiRecord, moves: &[&str]) {
        for m in moves {
            let mv = r.check(m).unwrap();
            r.play(&mv).unwrap();
        }
    }

    #[test]
    fn three_notations_name_the_same_move() {
        let r = ShogiRecord::new();
        for t in ["7g7f", "+7776FU", "７六歩", "▲７六歩", "７六歩(77)", "76歩"] {
            let m = r.check(t).unwrap();
            assert_eq!(m.uci, "7g7f", "{t}");
            assert_eq!(m.san, "▲７六歩", "{t}");
        }
    }

    #[test]
    fn same_square_recapture_and_drops() {
        let mut r = ShogiRecord::new();
        play_all(&mut r, &["7g7f", "3c3d", "8h2b+"]);
        let m = r.check("同　銀").unwrap();
        assert_eq!(m.uci, "3a2b");
        assert_eq!(m.san, "△同銀");
        r.play(&m).unwrap();
        let m = r.check("B*5e").unwrap();
        assert_eq!(m.san, "▲５五角");
        assert!(matches!(r.check("P*5e"), Err(ShogiMoveError::Illegal(_))));
    }
}
