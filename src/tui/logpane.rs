//! The log page: every entry of the game's log with its number, game time, wall-clock time,
//! actor and clause, and its whole text wrapped to the screen's width; it follows the log and
//! scrolls back (pure).
use chrono::{DateTime, Duration, Utc};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Widget};

use crate::core::event::Event;
use crate::core::timefmt;

use super::describe::full_text;

/// Break `text` into lines of at most `w` characters, at spaces where possible.
pub fn wrap(text: &str, w: usize) -> Vec<String> {
    let w = w.max(8);
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word = word.to_string();
        loop {
            let len = line.chars().count();
            let wl = word.chars().count();
            let sep = usize::from(len > 0);
            if len + sep + wl <= w {
                if sep == 1 {
                    line.push(' ');
                }
                line.push_str(&word);
                break;
            }
            if len > 0 {
                out.push(std::mem::take(&mut line));
                continue;
            }
            // A word longer than the line: cut it.
            let head: String = word.chars().take(w).collect();
            word = word.chars().skip(w).collect();
            out.push(head);
            if word.is_empty() {
                break;
            }
        }
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out
}

/// The page's lines for entries `log`, `w` columns wide: a head line per entry, its text
/// wrapped and indented below.
pub fn lines(log: &[Event], utc_origin: Option<DateTime<Utc>>, w: usize) -> Vec<Line<'static>> {
    let head = Style::new().add_modifier(Modifier::BOLD);
    let gray = Style::new().fg(Color::Gray);
    let clause = Style::new().fg(Color::Cyan);
    let mut out = Vec::new();
    for (i, e) in log.iter().enumerate() {
        let utc = utc_origin
            .map(|o| {
                (o + Duration::milliseconds(e.at as i64))
                    .format(" %H:%M:%SZ")
                    .to_string()
            })
            .unwrap_or_default();
        out.push(Line::from(vec![
            Span::styled(format!("#{i:<4}"), head),
            Span::styled(format!(" {}{utc}", timefmt::clock(e.at as i64)), gray),
            Span::styled(format!(" {:<10}", e.actor.name()), head),
            Span::styled(format!(" clause {}", e.clause), clause),
        ]));
        for l in wrap(&full_text(e), w.saturating_sub(6)) {
            out.push(Line::from(format!("      {l}")));
        }
    }
    out
}

/// Draw the page over the whole screen, ending `back` lines before the newest.
pub fn render(
    log: &[Event],
    utc_origin: Option<DateTime<Utc>>,
    back: usize,
    area: Rect,
    buf: &mut Buffer,
) {
    Clear.render(area, buf);
    let block = Block::bordered()
        .border_type(BorderType::Double)
        .title(format!(
            " the log: {} entries · number, game time, UTC, actor, clause, full text ",
            log.len()
        ))
        .title_bottom(Line::from(" ↑↓ PgUp PgDn Home End scroll · Esc or l closes ").centered());
    let inner = block.inner(area);
    block.render(area, buf);
    let all = lines(log, utc_origin, usize::from(inner.width));
    let room = usize::from(inner.height);
    let back = back.min(all.len().saturating_sub(room));
    let end = all.len() - back;
    let start = end.saturating_sub(room);
    let mut shown: Vec<Line<'static>> = all[start..end].to_vec();
    if all.is_empty() {
        shown.push(Line::from("  nothing recorded yet"));
    }
    Paragraph::new(shown).render(inner, buf);
}
