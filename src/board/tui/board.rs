//! The position diagram: the board from the view's FEN, figurines or letters, seen from the
//! side the arbiter chose, the last move's squares bracketed and a king in check marked, so no
//! mark depends on colour alone (pure).
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::core::view::View;

/// Width of the diagram: rank label, eight squares of three cells, a margin.
pub const WIDTH: u16 = 2 + 8 * 3 + 1;
/// Height: eight ranks, the file letters, the caption.
pub const HEIGHT: u16 = 10;

const DARK: Color = Color::Rgb(120, 90, 60);
const LIGHT: Color = Color::Rgb(190, 160, 120);

/// Whether a background is a square's (the screen without colour drops it, not reverses it).
pub fn is_square_colour(c: Color) -> bool {
    c == DARK || c == LIGHT
}

/// The 64 squares of a FEN's placement field, `[rank 8 .. rank 1][file a .. h]`.
pub fn squares(fen: &str) -> Option<[[Option<char>; 8]; 8]> {
    let placement = fen.split_whitespace().next()?;
    let mut out = [[None; 8]; 8];
    let ranks: Vec<&str> = placement.split('/').collect();
    if ranks.len() != 8 {
        return None;
    }
    for (r, rank) in ranks.iter().enumerate() {
        let mut f = 0usize;
        for c in rank.chars() {
            if let Some(n) = c.to_digit(10) {
                f += n as usize;
            } else {
                *out[r].get_mut(f)? = Some(c);
                f += 1;
            }
        }
        if f != 8 {
            return None;
        }
    }
    Some(out)
}

/// The figurine of a FEN letter (`K` white king ... `p` black pawn).
pub fn figurine(c: char) -> char {
    match c {
        'K' => '♔',
        'Q' => '♕',
        'R' => '♖',
        'B' => '♗',
        'N' => '♘',
        'P' => '♙',
        'k' => '♚',
        'q' => '♛',
        'r' => '♜',
        'b' => '♝',
        'n' => '♞',
        'p' => '♟',
        other => other,
    }
}

/// `(file, rank)` indices (0-based, rank 0 = rank 1) of a square name like `e4`.
fn square(name: &str) -> Option<(usize, usize)> {
    let mut cs = name.chars();
    let f = cs.next()?;
    let r = cs.next()?;
    let file = (f as usize).checked_sub('a' as usize).filter(|f| *f < 8)?;
    let rank = (r as usize).checked_sub('1' as usize).filter(|r| *r < 8)?;
    Some((file, rank))
}

/// The from and to squares of a UCI move (`e2e4`, `e7e8q`).
fn move_squares(uci: &str) -> Vec<(usize, usize)> {
    let from = uci.get(0..2).and_then(square);
    let to = uci.get(2..4).and_then(square);
    from.into_iter().chain(to).collect()
}

/// Draw the diagram of `view` in `area` (at most [`WIDTH`]×[`HEIGHT`] used).
pub fn render(
    view: &View,
    black_at_bottom: bool,
    ascii: bool,
    latest: Option<&str>,
    area: Rect,
    buf: &mut Buffer,
) {
    let Some(board) = view.fen.as_deref().and_then(squares) else {
        return;
    };
    let marked = view
        .last_move
        .as_deref()
        .map(move_squares)
        .unwrap_or_default();
    let to_move_king = match view.to_move {
        crate::core::Side::White => 'K',
        crate::core::Side::Black => 'k',
    };
    let label = Style::new().fg(Color::Gray);
    let mut lines = Vec::new();
    for row in 0..8 {
        // Rank index counted from rank 1.
        let rank = if black_at_bottom { row } else { 7 - row };
        let mut spans = vec![Span::styled(format!("{} ", rank + 1), label)];
        for col in 0..8 {
            let file = if black_at_bottom { 7 - col } else { col };
            let piece = board[7 - rank][file];
            let dark = (file + rank) % 2 == 0;
            let glyph = match (piece, ascii) {
                (Some(p), false) => figurine(p),
                (Some(p), true) => p,
                (None, _) => {
                    if dark {
                        if ascii { ':' } else { '·' }
                    } else {
                        ' '
                    }
                }
            };
            let checked = view.in_check && piece == Some(to_move_king);
            let (l, r) = if checked {
                ('+', '+')
            } else if marked.contains(&(file, rank)) {
                ('[', ']')
            } else {
                (' ', ' ')
            };
            let mut style = Style::new().bg(if dark { DARK } else { LIGHT });
            style = style.fg(match piece {
                Some(p) if p.is_ascii_uppercase() => Color::White,
                Some(_) => Color::Black,
                None => Color::Rgb(90, 70, 50),
            });
            let mark = if checked {
                Style::new()
                    .fg(Color::White)
                    .bg(Color::Red)
                    .add_modifier(Modifier::BOLD)
            } else {
                style.fg(Color::Yellow).add_modifier(Modifier::BOLD)
            };
            spans.push(Span::styled(l.to_string(), mark));
            spans.push(Span::styled(
                glyph.to_string(),
                style.add_modifier(Modifier::BOLD),
            ));
            spans.push(Span::styled(r.to_string(), mark));
        }
        lines.push(Line::from(spans));
    }
    let files: String = (0..8)
        .map(|c| {
            let f = if black_at_bottom { 7 - c } else { c };
            format!(" {} ", (b'a' + f as u8) as char)
        })
        .collect();
    lines.push(Line::from(Span::styled(format!("  {files}"), label)));
    let mut caption = Vec::new();
    if view.in_check {
        caption.push(Span::styled(
            " CHECK +K+",
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        ));
    } else {
        caption.push(Span::styled(
            format!(" {} below", if black_at_bottom { "Black" } else { "White" }),
            label,
        ));
    }
    if latest.is_some() {
        caption.push(Span::styled(" · [ ] last", label));
    }
    lines.push(Line::from(caption));
    Paragraph::new(lines).render(area, buf);
}
