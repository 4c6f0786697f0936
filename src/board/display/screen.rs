//! The player's and the audience's screen (pure): the Board UI's own widgets (the big clocks, the
//! diagram, the move list) drawn from the core's [`View`], with the clocks' states in words, the
//! period and the moves to the control (advisory), the result and the match score. What is the
//! arbiter's or the machine's stays off it: no internal-clock readings (6c), no parameter
//! requests (6l), no hand-over countdowns (13), no dialogs, no command line.
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use crate::board::tui::movelist::MoveTime;
use crate::board::tui::screen::Timed;
use crate::board::tui::{board, movelist, screen, shogiboard};
use crate::core::event::PlayerKind;
use crate::core::game::Phase;
use crate::core::timefmt;
use crate::core::view::{ClockState, ClockView, Panel, View};

/// What the display draws: the view of the game at the time shown, or why there is none.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shown {
    pub view: Option<View>,
    /// The moves' times, folded from the log as the board folds them.
    pub times: Vec<Option<MoveTime>>,
    /// `Kasparov 1½ – Deep Junior ½`.
    pub score: Option<String>,
    /// A line for the audience: waiting for a game, a log that cannot be followed.
    pub note: Option<String>,
    /// Letters instead of figurines (no UTF-8 locale).
    pub ascii: bool,
    pub no_color: bool,
}

/// The advisory mark under the clocks: the move counter is information only.
pub const ADVISORY: &str =
    "moves to the control are advisory: no claim may rest on the move counter (FIDE Laws, art. 6)";

/// A clock's state in words, as the player reads it.
pub fn state_words(view: &View, c: &ClockView) -> String {
    match c.state {
        ClockState::NotStarted => "not started".into(),
        ClockState::Running => "running".into(),
        ClockState::Waiting => "waiting".into(),
        ClockState::Stopped => {
            if view
                .panels
                .iter()
                .any(|p| matches!(p, Panel::Stopped { .. }))
            {
                "STOPPED by the arbiter".into()
            } else {
                "STOPPED while the supervisor asks the operator (8a)".into()
            }
        }
        ClockState::Suspended => "SUSPENDED (power failure, 8b)".into(),
        ClockState::Flag => "FLAG FELL".into(),
        ClockState::Held => "FLAG HELD: no first move (no-show, 13.6)".into(),
        ClockState::Over => "game over".into(),
    }
}

fn kind(k: Option<PlayerKind>) -> &'static str {
    match k {
        Some(PlayerKind::Human) => "human",
        Some(PlayerKind::Machine) => "machine",
        None => "?",
    }
}

fn phase_words(view: &View) -> String {
    let stop = view.panels.iter().find_map(|p| match p {
        Panel::Power { .. } => Some("SUSPENDED · power failure (8b)".to_string()),
        Panel::Stopped { reason } => Some(format!("CLOCKS STOPPED by the arbiter (1): {reason}")),
        _ => None,
    });
    match view.phase {
        Phase::Draft | Phase::Opened => "before the start".into(),
        Phase::Playing => stop.unwrap_or_else(|| "PLAYING".into()),
        Phase::Ended => {
            let score = view.panels.iter().find_map(|p| match p {
                Panel::Result { score, .. } => Some(score.clone()),
                _ => None,
            });
            format!("GAME OVER {}", score.unwrap_or_default())
        }
    }
}

/// The lines of the clauses in force that the player and the audience may see.
pub fn public_lines(view: &View) -> Vec<Line<'static>> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut out = Vec::new();
    for p in &view.panels {
        let line = match p {
            Panel::Result {
                score,
                termination,
                detail,
            } => format!(
                "RESULT {score} · {}{}",
                crate::board::tui::describe::termination_text(*termination),
                if detail.is_empty() {
                    String::new()
                } else {
                    format!(" · {detail}")
                }
            ),
            Panel::DrawOffer {
                answered, left_ms, ..
            } => {
                let state = match answered {
                    Some(true) => "accepted".to_string(),
                    Some(false) => "declined".to_string(),
                    None => format!(
                        "unanswered · consultation time left {}",
                        timefmt::short(*left_ms)
                    ),
                };
                format!("DRAW OFFER by the human (9e) · {state}")
            }
            Panel::MachineOffer { .. } => "the machine offers a draw (9d)".into(),
            Panel::Power {
                window_left_ms,
                reset_done,
                ..
            } => match (window_left_ms, reset_done) {
                (_, true) => "power restored · the machine is reset (8b)".into(),
                (Some(w), false) => format!(
                    "power restored · reset window {} left (8b)",
                    timefmt::short(*w)
                ),
                (None, false) => "SUSPENDED · power failure (8b)".into(),
            },
            Panel::Stopped { reason } => format!("CLOCKS STOPPED by the arbiter (1): {reason}"),
            Panel::Technical {
                machine_clock_running,
                ..
            } => format!(
                "technical problem (8a) · the machine's clock {}",
                if *machine_clock_running {
                    "keeps running"
                } else {
                    "is stopped"
                }
            ),
            Panel::Pressed { side, .. } => {
                format!("{side} pressed the clock · the move is being entered")
            }
            Panel::OperatorErrors { count: 0, .. } => continue,
            Panel::OperatorErrors { count, forfeit_at } => {
                format!("operator errors (7c): {count} of {forfeit_at}")
            }
            // The machine's internal clock (6c), its parameters (6l) and the hand-over (13)
            // are for the arbiter's screen only.
            // The camps' countersignature at a time control too.
            Panel::SyncWarning { .. }
            | Panel::ParamRequests { .. }
            | Panel::Handover { .. }
            | Panel::Countersign { .. }
            | Panel::CountersignEnd { .. } => {
                continue;
            }
        };
        out.push(Line::from(Span::styled(line, bold)));
    }
    out
}

/// Draw the display. Pure.
pub fn render(s: &Shown, area: Rect, buf: &mut Buffer) {
    render_frame(s, s.view.as_ref(), area, buf);
}

/// Draw the display of `view` (the rest from `s`, whose own view is not read), saying where
/// the time-dependent widgets are (the clocks, the move list), as the Board UI's frame does.
pub fn render_frame(s: &Shown, view: Option<&View>, area: Rect, buf: &mut Buffer) -> Option<Timed> {
    let timed = draw(s, view, area, buf);
    if s.no_color {
        plain(area, buf);
    }
    timed
}

/// Draw one time-dependent widget of [`render_frame`] again in its area (`Some(i)`: clock `i`,
/// the terminal showing clock `shown` there; `None`: the move list's "this move" row) over `buf`,
/// which holds what the terminal shows there: the same cells the whole frame draws there.
/// Returns the part of `area` drawn.
pub fn render_timed(
    s: &Shown,
    view: &View,
    which: Option<usize>,
    shown: Option<&ClockView>,
    area: Rect,
    buf: &mut Buffer,
) -> Rect {
    let drawn = match which.and_then(|i| view.clocks.get(i)) {
        Some(c) => screen::clock_over(shown, c, area, buf),
        None => {
            buf.reset();
            movelist::render_this_move(view, area, buf);
            area
        }
    };
    if s.no_color {
        plain(drawn, buf);
    }
    drawn
}

/// `NO_COLOR`: no colour but the board's squares.
fn plain(area: Rect, buf: &mut Buffer) {
    for y in area.y..area.y + area.height {
        for x in area.x..area.x + area.width {
            let c = &mut buf[(x, y)];
            if !board::is_square_colour(c.bg) {
                c.bg = Color::Reset;
            }
            c.fg = Color::Reset;
        }
    }
}

fn draw(s: &Shown, view: Option<&View>, area: Rect, buf: &mut Buffer) -> Option<Timed> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let rows = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .split(area);
    let Some(view) = view else {
        Line::from(Span::styled(" ARBITER · DISPLAY ", bold)).render(rows[0], buf);
        Paragraph::new(s.note.clone().unwrap_or_default())
            .wrap(Wrap { trim: false })
            .render(rows[1], buf);
        Line::from(" read-only · q quits").render(rows[2], buf);
        return None;
    };
    let mut head = vec![
        Span::styled(" DISPLAY ", Style::new().fg(Color::Black).bg(Color::White)),
        Span::raw(" "),
        Span::styled(phase_words(view), bold),
        Span::styled(format!(" · game {}", view.game), bold),
    ];
    if let Some(score) = &s.score {
        head.push(Span::styled(format!(" · match {score}"), bold));
    }
    Paragraph::new(Line::from(head))
        .wrap(Wrap { trim: false })
        .render(rows[0], buf);

    let words: Vec<Line<'static>> = vec![
        Line::from(
            view.clocks
                .iter()
                .map(|c| {
                    // A shogi clock names its side and entrant as shogi does (Denryu-sen 5.2).
                    let (side, kind) = match &c.shogi {
                        Some(sh) => (
                            if sh.sente {
                                "先手 SENTE"
                            } else {
                                "後手 GOTE"
                            }
                            .to_string(),
                            sh.entrant_text(c.kind).to_lowercase(),
                        ),
                        None => (c.side.name().to_uppercase(), kind(c.kind).to_string()),
                    };
                    format!("{side} ({}, {kind}): {}", c.name, state_words(view, c))
                })
                .collect::<Vec<_>>()
                .join("  ·  "),
        )
        .style(bold),
    ];
    let mut words = words;
    // The move counter is advisory where there is a control to count to.
    if view.clocks.iter().any(|c| c.moves_to_control.is_some()) {
        words.push(Line::from(ADVISORY).style(Style::new().fg(Color::Gray)));
    }
    if let Some(last) = view.last_moves.last() {
        words.insert(1, Line::from(format!("last move: {last}")).style(bold));
    }
    let words = Paragraph::new(words).wrap(Wrap { trim: false });
    let words_h = u16::try_from(words.line_count(area.width.max(1))).unwrap_or(2);
    let panels = Paragraph::new(public_lines(view)).wrap(Wrap { trim: false });
    let panels_h = u16::try_from(panels.line_count(area.width.max(1))).unwrap_or(0);
    let body = rows[1];
    let rest = body.height.saturating_sub(words_h + panels_h);
    let chess = view.fen.is_some();
    let min_mid = match &view.shogi {
        Some(_) => shogiboard::HEIGHT,
        None if chess => board::HEIGHT,
        None => 4,
    };
    let clock_h = if rest >= 11 + min_mid {
        rest.saturating_sub(min_mid.max(12)).clamp(11, 15)
    } else if rest >= 7 + min_mid {
        7
    } else {
        rest.min(3)
    };
    let parts = Layout::vertical([
        Constraint::Length(clock_h),
        Constraint::Length(words_h),
        Constraint::Min(0),
        Constraint::Length(panels_h),
    ])
    .split(body);
    let halves = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
        .split(parts[0]);
    for (i, c) in view.clocks.iter().enumerate() {
        screen::clock(c, halves[i], buf);
    }
    words.render(parts[1], buf);
    let mid = parts[2];
    let latest = view.last_moves.last().map(String::as_str);
    let moves = if let Some(v) = &view.shogi
        && mid.width >= shogiboard::WIDTH + 30
        && mid.height >= shogiboard::HEIGHT
    {
        let cols = Layout::horizontal([Constraint::Length(shogiboard::WIDTH), Constraint::Min(0)])
            .spacing(1)
            .split(mid);
        shogiboard::render(v, false, s.ascii, cols[0], buf);
        cols[1]
    } else if chess && mid.width >= board::WIDTH + 30 && mid.height >= board::HEIGHT {
        let cols = Layout::horizontal([Constraint::Length(board::WIDTH), Constraint::Min(0)])
            .spacing(1)
            .split(mid);
        board::render(view, false, s.ascii, latest, cols[0], buf);
        cols[1]
    } else {
        mid
    };
    movelist::render(view, &s.times, 0, moves, buf);
    panels.render(parts[3], buf);
    let foot = match &s.note {
        Some(n) => format!(" read-only · q quits · {n}"),
        None => " read-only · q quits".to_string(),
    };
    Line::from(foot)
        .style(Style::new().fg(Color::Gray))
        .render(rows[2], buf);
    Some(Timed {
        clocks: [halves[0], halves[1]],
        moves: Some(moves),
    })
}
