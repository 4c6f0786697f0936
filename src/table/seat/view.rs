//! The human's seat on screen (PURE: a function of the model and the time; drawn into a buffer,
//! so tests draw it on ratatui's `TestBackend`). Fits 80×24: a title row, the table (who is
//! alive, the picker) and the character beside the talk, the request with its countdown, the
//! text field and the length meter, and one line of keys.
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line as TextLine, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};
use unicode_width::UnicodeWidthChar;

use super::model::{Line, SeatModel};

/// The parts of the screen.
struct Areas {
    title: Rect,
    table: Rect,
    talk: Rect,
    ask: Rect,
    note: Rect,
    keys: Rect,
}

fn areas(area: Rect) -> Areas {
    let [title, middle, ask, note, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(5),
        Constraint::Length(6),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let side = if area.width >= 100 { 30 } else { 22 };
    let [table, talk] =
        Layout::horizontal([Constraint::Length(side), Constraint::Min(20)]).areas(middle);
    Areas {
        title,
        table,
        talk,
        ask,
        note,
        keys,
    }
}

fn seconds(ms: u64) -> u64 {
    ms.div_ceil(1000)
}

/// Draw the seat at `now_ms` into `buf`.
pub fn render(m: &SeatModel, now_ms: u64, area: Rect, buf: &mut Buffer) {
    let a = areas(area);
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let rev = Style::default().add_modifier(Modifier::REVERSED);
    // Title.
    let me = m.me.as_deref().unwrap_or("(no seat yet)");
    let role = m.role().unwrap_or("?");
    let mut title = vec![
        Span::styled(format!(" {me} "), rev),
        Span::raw(format!(" {role} · day {} · {}", m.day, m.name)),
    ];
    if let Some(g) = &m.game_id {
        title.push(Span::raw(format!(" · {g}")));
    }
    Paragraph::new(TextLine::from(title)).render(a.title, buf);

    // The table: every seat, alive or dead, the roles the seat knows; the picker.
    let picking = m.pending.as_ref().is_some_and(|p| !p.ask.speaks());
    let targets = m.targets();
    let chosen = targets.get(m.pick).copied();
    let mut rows: Vec<TextLine> = Vec::new();
    for (name, status) in &m.status {
        let alive = status == "ALIVE";
        let mark = if picking && chosen == Some(name.as_str()) {
            "▶"
        } else if alive {
            " "
        } else {
            "✝"
        };
        let mut s = format!("{mark} {name}");
        if Some(name.as_str()) == m.me.as_deref() {
            s.push_str(" (you)");
        }
        if let Some(r) = m.roles.get(name) {
            s.push_str(&format!(" {r}"));
        }
        let style = if picking && chosen == Some(name.as_str()) {
            rev
        } else if alive {
            Style::default()
        } else {
            Style::default().add_modifier(Modifier::DIM)
        };
        rows.push(TextLine::styled(s, style));
    }
    if let Some(p) = &m.profile {
        rows.push(TextLine::raw(""));
        for l in p.lines() {
            rows.push(TextLine::raw(l.to_string()));
        }
    }
    Paragraph::new(rows)
        .wrap(Wrap { trim: false })
        .block(Block::default().borders(Borders::RIGHT).title("Table"))
        .render(a.table, buf);

    // The talk, newest at the bottom.
    let mut talk: Vec<TextLine> = Vec::new();
    for l in &m.lines {
        talk.push(match l {
            Line::Said(s) if s.whisper => TextLine::from(vec![
                Span::styled(format!("{} (whisper): ", s.agent), bold),
                Span::styled(
                    s.text.clone(),
                    Style::default().add_modifier(Modifier::ITALIC),
                ),
            ]),
            Line::Said(s) => TextLine::from(vec![
                Span::styled(format!("{}: ", s.agent), bold),
                Span::raw(s.text.clone()),
            ]),
            Line::Told(t) => {
                TextLine::styled(t.clone(), Style::default().add_modifier(Modifier::DIM))
            }
        });
    }
    let inner = Rect {
        x: a.talk.x + 1,
        width: a.talk.width.saturating_sub(1),
        ..a.talk
    };
    let para = Paragraph::new(talk).wrap(Wrap { trim: false });
    let total = u16::try_from(para.line_count(inner.width)).unwrap_or(u16::MAX);
    let body = inner.height.saturating_sub(1);
    TextLine::styled("Talk", bold).render(Rect { height: 1, ..inner }, buf);
    para.scroll((total.saturating_sub(body), 0)).render(
        Rect {
            y: inner.y + 1,
            height: body,
            ..inner
        },
        buf,
    );

    // The request, its countdown, the text field and the meter.
    let block = Block::default().borders(Borders::TOP);
    let ask_inner = block.inner(a.ask);
    let mut ask_rows: Vec<TextLine> = Vec::new();
    match &m.pending {
        Some(p) => {
            let mut head = vec![Span::styled(format!(" {} ", p.ask.name()), rev)];
            if let Some(left) = m.left_ms(now_ms) {
                head.push(Span::styled(format!("  {} s left", seconds(left)), bold));
            }
            if let Some(c) = p.remain_count {
                head.push(Span::raw(format!("  · talks left {c}")));
            }
            if let Some(c) = p.remain_skip {
                head.push(Span::raw(format!(" · skips left {c}")));
            }
            if !p.ask.speaks() {
                head.push(Span::raw(format!(
                    "  · choose: {}",
                    targets.get(m.pick).copied().unwrap_or("-")
                )));
            }
            ask_rows.push(TextLine::from(head));
            if p.ask.speaks() {
                ask_rows.push(TextLine::raw(format!("> {}", field(m, ask_inner.width))));
                if let Some(c) = m.meter() {
                    let l = m.limits();
                    let lim = |x: Option<u32>| match x {
                        Some(u32::MAX) | None => "-".to_string(),
                        Some(n) => n.to_string(),
                    };
                    let mut meter = vec![Span::raw(format!(
                        "base {}/{}",
                        c.base,
                        lim(l.map(|l| l.base_length))
                    ))];
                    if let Some(n) = &c.mention_name {
                        meter.push(Span::raw(format!(
                            " · @{n} · mention {}/{}",
                            c.mention,
                            lim(l.map(|l| l.mention_length))
                        )));
                    }
                    if c.cut {
                        meter.push(Span::styled("  OVER: the table cuts it", bold));
                    }
                    ask_rows.push(TextLine::from(meter));
                    if c.cut {
                        ask_rows.push(TextLine::raw(format!("table sees: {}", c.text)));
                    }
                }
            }
        }
        None if m.finished => ask_rows.push(TextLine::styled("The game is over.", bold)),
        None => ask_rows.push(TextLine::raw("Waiting for the table…")),
    }
    Paragraph::new(ask_rows)
        .wrap(Wrap { trim: false })
        .block(block)
        .render(a.ask, buf);

    // Keys and the last note.
    let keys = match &m.pending {
        Some(p) if p.ask.speaks() => {
            "Enter send · F5 Skip · F6 Over (or Alt-s / Alt-o) · Ctrl-C quit"
        }
        Some(_) => "↑/↓ choose · Enter send · Ctrl-C quit",
        None => "Ctrl-C quit",
    };
    Paragraph::new(TextLine::raw(m.note.clone())).render(a.note, buf);
    Paragraph::new(TextLine::styled(keys, bold)).render(a.keys, buf);
}

/// The text field as shown in `width` columns: the end of the text around the cursor when it
/// does not fit (full-width characters take two columns).
fn field(m: &SeatModel, width: u16) -> String {
    let room = usize::from(width.saturating_sub(3));
    let chars: Vec<char> = m.input.chars().collect();
    let upto = m.cursor.min(chars.len());
    let mut start = 0;
    let w = |cs: &[char]| cs.iter().map(|c| c.width().unwrap_or(0)).sum::<usize>();
    while start < upto && w(&chars[start..upto]) > room {
        start += 1;
    }
    let mut out = String::new();
    let mut used = 0;
    for c in &chars[start..] {
        let cw = c.width().unwrap_or(0);
        if used + cw > room {
            break;
        }
        used += cw;
        out.push(*c);
    }
    out
}

/// Where the terminal's cursor goes (the text field's insertion point: an IME opens its
/// composition there), when a talk or whisper is asked.
pub fn cursor(m: &SeatModel, area: Rect) -> Option<Position> {
    let p = m.pending.as_ref()?;
    if !p.ask.speaks() {
        return None;
    }
    let a = areas(area);
    let room = usize::from(a.ask.width.saturating_sub(3));
    let chars: Vec<char> = m.input.chars().collect();
    let upto = m.cursor.min(chars.len());
    let mut cols: usize = chars[..upto].iter().map(|c| c.width().unwrap_or(0)).sum();
    let mut start = 0;
    while start < upto && cols > room {
        cols -= chars[start].width().unwrap_or(0);
        start += 1;
    }
    Some(Position {
        x: a.ask.x + 2 + u16::try_from(cols).unwrap_or(0),
        y: a.ask.y + 2,
    })
}
