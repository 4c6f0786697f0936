//! Shogi move notations: reading what a player or a script wrote (USI, CSA, Japanese KI2/KIF)
//! and writing the Japanese (KI2 with ▲/△) and KIF forms.
use rsshogi::board::Position;
use rsshogi::types::{Color, Ki2Notation, Move, Move32, PieceType, Square};

const WIDE: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];
const KANJI: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// The text a move was written in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// `7g7f`, `P*5e`, `8h2b+`.
    Usi(String),
    /// `+7776FU` (the sign optional): from, to, the piece after the move.
    Csa {
        mark: Option<Color>,
        body: String,
    },
    /// `７六歩`, `▲同　歩`, `７六歩(77)`, `５五角打`: normalised (no mark, no spaces, the file in
    /// full-width digits, the rank in kanji).
    Japanese {
        mark: Option<Color>,
        body: String,
    },
    Unknown,
}

impl Form {
    pub fn of(text: &str) -> Form {
        let t = text.trim();
        let (sign, rest) = match t.chars().next() {
            Some('+') => (Some(Color::BLACK), &t[1..]),
            Some('-') => (Some(Color::WHITE), &t[1..]),
            _ => (None, t),
        };
        let b = rest.as_bytes();
        if b.len() == 6
            && b[..4].iter().all(u8::is_ascii_digit)
            && b[4..].iter().all(u8::is_ascii_uppercase)
        {
            return Form::Csa {
                mark: sign,
                body: rest.to_string(),
            };
        }
        if sign.is_none() && Move::from_usi(t).is_some() {
            return Form::Usi(t.to_string());
        }
        if !t.is_ascii() {
            let mut chars = t.chars().peekable();
            let mark = match chars.peek() {
                Some('▲' | '☗') => Some(Color::BLACK),
                Some('△' | '☖' | '▽') => Some(Color::WHITE),
                _ => None,
            };
            if mark.is_some() {
                chars.next();
            }
            return Form::Japanese {
                mark,
                body: normalise(chars.collect::<String>().as_str()),
            };
        }
        Form::Unknown
    }

    /// The side a mark (▲/△, CSA's +/-) names.
    pub fn side_mark(&self) -> Option<Color> {
        match self {
            Form::Csa { mark, .. } | Form::Japanese { mark, .. } => *mark,
            _ => None,
        }
    }

    /// Whether `m` (a legal move in `pos`) is the move this text names.
    pub fn matches(&self, pos: &Position, m: Move32) -> bool {
        match self {
            Form::Usi(t) => m.to_usi() == *t,
            Form::Csa { body, .. } => m
                .to_csa()
                .is_some_and(|c| c.get(1..).is_some_and(|c| c == body)),
            Form::Japanese { body, .. } => {
                let ki2 = normalise(strip_mark(&ki2(pos, m)));
                let kif = normalise(&kif(pos, m));
                let bare = match kif.find('(') {
                    Some(i) => &kif[..i],
                    None => kif.as_str(),
                };
                *body == ki2
                    || *body == kif
                    || *body == bare
                    || (m.is_drop() && *body == format!("{ki2}打"))
            }
            Form::Unknown => false,
        }
    }

    /// Whether the text has the shape of a move (so that no match means an illegal move).
    pub fn is_move_syntax(&self) -> bool {
        match self {
            Form::Usi(_) | Form::Csa { .. } => true,
            Form::Japanese { body, .. } => {
                let core = match body.find('(') {
                    Some(i) => &body[..i],
                    None => body.as_str(),
                };
                format!("▲{core}").parse::<Ki2Notation>().is_ok()
            }
            Form::Unknown => false,
        }
    }

    /// The square of a pawn drop this text names, if it names one.
    pub fn pawn_drop_target(&self) -> Option<Square> {
        match self {
            Form::Usi(t) => t.strip_prefix("P*").and_then(Square::from_usi),
            Form::Csa { body, .. } => {
                let b = body.as_bytes();
                (body.starts_with("00") && body.ends_with("FU"))
                    .then(|| square(b[2] - b'0', b[3] - b'0'))
                    .flatten()
            }
            Form::Japanese { body, .. } => {
                let c: Vec<char> = body.chars().collect();
                let is_pawn_drop = matches!(c.as_slice(), [_, _, '歩'] | [_, _, '歩', '打']);
                if !is_pawn_drop {
                    return None;
                }
                let f = WIDE.iter().position(|x| *x == c[0])?;
                let r = KANJI.iter().position(|x| *x == c[1])?;
                square(f as u8 + 1, r as u8 + 1)
            }
            Form::Unknown => None,
        }
    }
}

/// The square at file `f`, rank `r` (both 1..=9).
fn square(f: u8, r: u8) -> Option<Square> {
    if !(1..=9).contains(&f) || !(1..=9).contains(&r) {
        return None;
    }
    Some(Square::new(((f - 1) * 9 + (r - 1)) as i8))
}

fn strip_mark(s: &str) -> &str {
    s.trim_start_matches(['▲', '△', '☗', '☖', '▽'])
}

/// Japanese move text in one spelling: no spaces, the file in full-width digits, the rank in
/// kanji, 王 as 玉, 竜 as 龍, and the one-character names of promoted pieces spelled out.
pub fn normalise(s: &str) -> String {
    let mut out = String::new();
    let mut pos_in_square = 0;
    for ch in s.chars() {
        if ch.is_whitespace() {
            continue;
        }
        let ch = match ch {
            '王' => '玉',
            '竜' => '龍',
            _ => ch,
        };
        match ch {
            '全' => out.push_str("成銀"),
            '圭' => out.push_str("成桂"),
            '杏' => out.push_str("成香"),
            _ => {}
        }
        if matches!(ch, '全' | '圭' | '杏') {
            continue;
        }
        // The square: the first two characters written as digits of any width.
        let digit = ch
            .to_digit(10)
            .or_else(|| WIDE.iter().position(|x| *x == ch).map(|i| i as u32 + 1));
        if pos_in_square < 2 && out.chars().all(|c| WIDE.contains(&c)) {
            if let Some(d) = digit.filter(|d| (1..=9).contains(d)) {
                let i = (d - 1) as usize;
                out.push(if pos_in_square == 0 {
                    WIDE[i]
                } else {
                    KANJI[i]
                });
                pos_in_square += 1;
                continue;
            }
            pos_in_square = 2;
        }
        out.push(ch);
    }
    out
}

/// The Japanese (KI2) notation with ▲/△, as shown on the board and in reports.
pub fn ki2(pos: &Position, m: Move32) -> String {
    m.to_ki2(pos).unwrap_or_else(|| m.to_usi())
}

/// The name of a piece as KIF writes it.
pub fn piece_name(t: PieceType) -> &'static str {
    match t {
        PieceType::PAWN => "歩",
        PieceType::LANCE => "香",
        PieceType::KNIGHT => "桂",
        PieceType::SILVER => "銀",
        PieceType::GOLD => "金",
        PieceType::BISHOP => "角",
        PieceType::ROOK => "飛",
        PieceType::KING => "玉",
        PieceType::PRO_PAWN => "と",
        PieceType::PRO_LANCE => "成香",
        PieceType::PRO_KNIGHT => "成桂",
        PieceType::PRO_SILVER => "成銀",
        PieceType::HORSE => "馬",
        PieceType::DRAGON => "龍",
        _ => "？",
    }
}

/// One character per piece, for the board: promoted lance, knight and silver as 杏, 圭, 全.
pub fn piece_char(t: PieceType) -> char {
    match t {
        PieceType::PRO_LANCE => '杏',
        PieceType::PRO_KNIGHT => '圭',
        PieceType::PRO_SILVER => '全',
        _ => piece_name(t).chars().next().unwrap_or('？'),
    }
}

/// The USI letter of a piece (upper case), `+` before a promoted one, for terminals without kanji.
pub fn piece_letters(t: PieceType) -> &'static str {
    match t {
        PieceType::PAWN => "P",
        PieceType::LANCE => "L",
        PieceType::KNIGHT => "N",
        PieceType::SILVER => "S",
        PieceType::GOLD => "G",
        PieceType::BISHOP => "B",
        PieceType::ROOK => "R",
        PieceType::KING => "K",
        PieceType::PRO_PAWN => "+P",
        PieceType::PRO_LANCE => "+L",
        PieceType::PRO_KNIGHT => "+N",
        PieceType::PRO_SILVER => "+S",
        PieceType::HORSE => "+B",
        PieceType::DRAGON => "+R",
        _ => "?",
    }
}

/// The square in Japanese: full-width file, kanji rank (`７六`).
pub fn square_text(sq: Square) -> String {
    let f = sq.file().raw().clamp(0, 8) as usize;
    let r = sq.rank().raw().clamp(0, 8) as usize;
    format!("{}{}", WIDE[f], KANJI[r])
}

/// The KIF form of a legal move: `７六歩(77)`, `同　歩(23)`, `５五角打`, `２二角成(88)`.
pub fn kif(pos: &Position, m: Move32) -> String {
    let last = pos.last_move();
    let to = if last.is_normal() && last.to_sq() == m.to_sq() {
        "同　".to_string()
    } else {
        square_text(m.to_sq())
    };
    if m.is_drop() {
        let t = m.dropped_piece().unwrap_or(PieceType::PAWN);
        return format!("{to}{}打", piece_name(t));
    }
    let before = pos.moved_piece_before(m).piece_type();
    let promo = if m.is_promotion() { "成" } else { "" };
    let from = m.from_sq();
    format!(
        "{to}{}{promo}({}{})",
        piece_name(before),
        from.file().raw() + 1,
        from.rank().raw() + 1
    )
}
