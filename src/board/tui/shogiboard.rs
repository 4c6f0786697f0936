//! The shogi board: the 9×9 squares from the view's [`ShogiView`], pieces in kanji (gote's marked
//! `v`, as shogi diagrams in text do) or in USI letters where the terminal cannot show kanji,
//! both hands, the last move's square in reverse video, so no mark depends on colour alone (pure).
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::core::Side;
use crate::core::shogi::ShogiView;

/// Width: nine squares of three cells and the rank label.
pub const WIDTH: u16 = 9 * 3 + 3;
/// Height: gote's hand, the file numbers, nine ranks, sente's hand.
pub const HEIGHT: u16 = 12;

const WIDE: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];
const KANJI: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// A hand as text: `▲持駒 飛 歩2` (or letters: `sente in hand: R P2`).
fn hand_line(v: &ShogiView, side: Side, ascii: bool) -> Line<'static> {
    let pieces = &v.hands[side.index()];
    let text = if ascii {
        let name = if side == Side::White { "sente" } else { "gote" };
        let list: Vec<String> = pieces
            .iter()
            .map(|(_, l, n)| {
                if *n > 1 {
                    format!("{l}{n}")
                } else {
                    l.to_string()
                }
            })
            .collect();
        format!(
            "{name} in hand: {}",
            if list.is_empty() {
                "-".to_string()
            } else {
                list.join(" ")
            }
        )
    } else {
        let mark = if side == Side::White { '▲' } else { '△' };
        let list: Vec<String> = pieces
            .iter()
            .map(|(k, _, n)| {
                if *n > 1 {
                    format!("{k}{n}")
                } else {
                    k.to_string()
                }
            })
            .collect();
        format!(
            "{mark}持駒 {}",
            if list.is_empty() {
                "なし".to_string()
            } else {
                list.join(" ")
            }
        )
    };
    Line::from(text)
}

/// Draw the board in `area` (at most [`WIDTH`]×[`HEIGHT`] used). `gote_at_bottom` turns it.
pub fn render(v: &ShogiView, gote_at_bottom: bool, ascii: bool, area: Rect, buf: &mut Buffer) {
    let label = Style::new().fg(Color::Gray);
    let (top, bottom) = if gote_at_bottom {
        (Side::White, Side::Black)
    } else {
        (Side::Black, Side::White)
    };
    let order: Vec<usize> = if gote_at_bottom {
        (0..9).rev().collect()
    } else {
        (0..9).collect()
    };
    let mut lines = vec![hand_line(v, top, ascii)];
    // File numbers: col 0 is file 9.
    let files: String = order
        .iter()
        .map(|c| {
            let f = 8 - c;
            if ascii {
                format!("  {}", f + 1)
            } else {
                format!(" {}", WIDE[f])
            }
        })
        .collect();
    lines.push(Line::from(Span::styled(files, label)));
    for &r in &order {
        let mut spans = Vec::new();
        for &c in &order {
            let cell = v
                .squares
                .get(r)
                .and_then(|row| row.get(c))
                .cloned()
                .flatten();
            let text = match (&cell, ascii) {
                (Some(p), true) => format!("{:>3}", p.letters),
                (Some(p), false) => {
                    let mark = if p.side == Side::Black { 'v' } else { ' ' };
                    format!("{mark}{}", p.kanji)
                }
                (None, true) => "  .".to_string(),
                (None, false) => " ・".to_string(),
            };
            let mut style = Style::new();
            if v.last_to == Some((r, c)) {
                style = style.add_modifier(Modifier::REVERSED);
            }
            if cell.is_some_and(|p| p.kanji == '玉') && v.in_check && v.last_to.is_some() {
                style = style.add_modifier(Modifier::UNDERLINED);
            }
            spans.push(Span::styled(text, style));
        }
        let rank = if ascii {
            format!(" {}", (b'a' + r as u8) as char)
        } else {
            format!(" {}", KANJI[r])
        };
        spans.push(Span::styled(rank, label));
        lines.push(Line::from(spans));
    }
    lines.push(hand_line(v, bottom, ascii));
    let used = Rect {
        width: area.width.min(WIDTH),
        height: area.height.min(HEIGHT),
        ..area
    };
    Paragraph::new(lines).render(used, buf);
}
