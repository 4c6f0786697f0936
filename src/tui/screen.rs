//! The Board UI screen: a pure function of (&View, &UiState, &Status) drawn into a buffer, so it
//! renders the same on a terminal and on ratatui's TestBackend.
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Widget, Wrap};
use tui_big_text::{BigText, PixelSize};

use crate::core::command::HELP;
use crate::core::event::{Justification, PlayerKind};
use crate::core::game::Phase;
use crate::core::timefmt;
use crate::core::view::{ClockView, Panel, Urgency, View};

use super::describe::termination_text;
use super::keys::{LineKind, Mode, MsgKind, Pending, UiState};

/// What the shell knows about the log: entries, the latest one, the signed checkpoint, alarms.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Status {
    pub entries: usize,
    pub last_entry: Option<String>,
    /// The latest signed checkpoint covers entries `0..signed_upto`.
    pub signed_upto: Option<usize>,
    /// Its short code, for the camps' scoresheets.
    pub code: Option<String>,
    /// A failure the shell reports (e.g. the journal cannot write): shown as the red banner.
    pub alarm: Option<String>,
}

/// Amber: under two minutes (the same threshold as the core's 9e urgency).
const AMBER: Color = Color::Rgb(255, 176, 0);
const AMBER_MS: i64 = 120_000;

/// The whole screen as a widget.
pub struct Screen<'a> {
    pub view: &'a View,
    pub ui: &'a UiState,
    pub status: &'a Status,
}

impl Widget for &Screen<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        render(self.view, self.ui, self.status, area, buf);
    }
}

/// Below this the layout is compact: panels lose their frame, clocks use half-size digits.
fn is_compact(area: Rect) -> bool {
    area.height < 32 || area.width < 112
}

/// Draw the screen. Pure.
pub fn render(view: &View, ui: &UiState, status: &Status, area: Rect, buf: &mut Buffer) {
    let compact = is_compact(area);
    let alarm = ui.frozen.as_ref().or(status.alarm.as_ref());
    let panels = panel_lines(view);
    let completion = ui.completion.is_some();
    let panels_h = match (panels.is_empty(), compact) {
        (true, _) => 0,
        (false, true) => panels.len() as u16,
        (false, false) => panels.len() as u16 + 2,
    };
    let alarm_h = if alarm.is_some() { 3 } else { 0 };
    let fixed = 1 + 2 + 1 + 2 + 1 + u16::from(completion) + alarm_h;
    let rest = area.height.saturating_sub(fixed + panels_h);
    // Clocks: border, digits (8 or 4 rows, centred), info line; on a large screen a little air
    // around the digits, and the moves box takes the rest.
    let clock_h = if !compact && rest >= 11 + 6 {
        (rest - 6).min(15)
    } else if rest >= 11 {
        11
    } else if rest >= 7 {
        7
    } else {
        rest.min(4)
    };
    let moves_h = area
        .height
        .saturating_sub(fixed + panels_h + clock_h)
        .saturating_add(2);
    let rows = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(alarm_h),
        Constraint::Length(clock_h),
        Constraint::Length(moves_h),
        Constraint::Length(panels_h),
        Constraint::Length(1),
        Constraint::Length(u16::from(completion)),
        Constraint::Length(2),
        Constraint::Length(1),
    ])
    .split(area);

    header(view, rows[0], buf);
    if let Some(a) = alarm {
        alarm_banner(a, rows[1], buf);
    }
    let halves =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).split(rows[2]);
    for (i, c) in view.clocks.iter().enumerate() {
        clock(c, halves[i], buf);
    }
    moves(view, compact, rows[3], buf);
    if !panels.is_empty() {
        let p = Paragraph::new(panels);
        if compact {
            p.render(rows[4], buf);
        } else {
            p.block(
                Block::bordered()
                    .border_style(Style::new().fg(Color::DarkGray))
                    .title(" clauses in force "),
            )
            .render(rows[4], buf);
        }
    }
    message(ui, rows[5], buf);
    if completion {
        completion_line(ui, rows[6], buf);
    }
    status_lines(status, rows[7], buf);
    input_line(view, ui, rows[8], buf);

    match &ui.mode {
        Mode::Help { scroll } => help(*scroll, area, buf),
        Mode::Confirm { pending, text } => confirm(pending, text, area, buf),
        _ => {}
    }
}

fn phase_text(view: &View) -> (String, Style) {
    match view.phase {
        Phase::Draft => (
            "PRE-GAME · declarations not yet recorded".into(),
            Style::new().fg(Color::Cyan),
        ),
        Phase::Opened => (
            "PRE-GAME · opened, clock not started".into(),
            Style::new().fg(Color::Cyan),
        ),
        Phase::Playing => (
            "PLAYING".into(),
            Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
        ),
        Phase::Ended => {
            let score = view.panels.iter().find_map(|p| match p {
                Panel::Result { score, .. } => Some(score.clone()),
                _ => None,
            });
            (
                format!("GAME OVER {}", score.unwrap_or_default()),
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            )
        }
    }
}

fn header(view: &View, area: Rect, buf: &mut Buffer) {
    let (phase, style) = phase_text(view);
    let line = Line::from(vec![
        Span::styled(" ARBITER ", Style::new().fg(Color::Black).bg(Color::White)),
        Span::raw(" "),
        Span::styled(phase, style),
        Span::raw(format!(
            " · {} · game {} · {}",
            view.match_id, view.game, view.rules
        )),
    ]);
    Paragraph::new(line).render(area, buf);
}

fn alarm_banner(text: &str, area: Rect, buf: &mut Buffer) {
    let style = Style::new()
        .fg(Color::White)
        .bg(Color::Red)
        .add_modifier(Modifier::BOLD);
    let lines = vec![
        Line::from("!! LOG WRITE FAILED · INPUT FROZEN !!"),
        Line::from(text.to_string()),
        Line::from(
            "Nothing more can be recorded. Stop the game clock by hand; call the supervisor. q quits.",
        ),
    ];
    Paragraph::new(lines)
        .style(style)
        .alignment(Alignment::Center)
        .wrap(Wrap { trim: true })
        .render(area, buf);
}

/// The biggest digits that fit: (pixel size, rows used).
fn digits_for(w: u16, h: u16) -> Option<(PixelSize, u16)> {
    // "h:mm:ss" is 7 glyphs of 8x8 pixels.
    let full_w = 7 * 8;
    if w >= full_w && h >= 8 {
        Some((PixelSize::Full, 8))
    } else if w >= full_w / 2 && h >= 8 {
        Some((PixelSize::HalfWidth, 8))
    } else if w >= full_w && h >= 4 {
        Some((PixelSize::HalfHeight, 4))
    } else if w >= full_w / 2 && h >= 4 {
        Some((PixelSize::Quadrant, 4))
    } else {
        None
    }
}

fn kind_text(k: Option<PlayerKind>) -> &'static str {
    match k {
        Some(PlayerKind::Human) => "HUMAN",
        Some(PlayerKind::Machine) => "MACHINE",
        None => "?",
    }
}

fn clock(c: &ClockView, area: Rect, buf: &mut Buffer) {
    let (border, digits) = if c.running {
        let d = if c.shown_ms < AMBER_MS {
            AMBER
        } else {
            Color::LightGreen
        };
        (
            Style::new()
                .fg(Color::LightGreen)
                .add_modifier(Modifier::BOLD),
            Style::new().fg(d).add_modifier(Modifier::BOLD),
        )
    } else {
        (
            Style::new().fg(Color::DarkGray),
            Style::new().fg(Color::Gray),
        )
    };
    let title = format!(
        " {} · {} · {} ",
        c.side.name().to_uppercase(),
        kind_text(c.kind),
        c.name
    );
    let mut block = Block::bordered()
        .border_style(border)
        .title(Line::from(title).style(border));
    if c.running {
        block = block
            .border_type(BorderType::Thick)
            .title_bottom(Line::from(" ▶ RUNNING ◀ ").centered());
    }
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.height == 0 {
        return;
    }
    let face = timefmt::clock(c.shown_ms);
    let made = match c.moves_made {
        1 => "1 move".to_string(),
        n => format!("{n} moves"),
    };
    let control = match c.moves_to_control {
        Some(n) => format!("{n} to the control"),
        None => "no further control".to_string(),
    };
    let info = [
        format!("period {} · {made} · {control}", c.period),
        format!("P{} · {control}", c.period),
        control,
    ]
    .into_iter()
    .find(|s| s.chars().count() <= usize::from(inner.width))
    .unwrap_or_default();
    let big_h = inner.height.saturating_sub(1);
    match digits_for(inner.width, big_h) {
        Some((px, h)) => {
            let top = inner.y + (big_h - h) / 2;
            let big_area = Rect::new(inner.x, top, inner.width, h);
            BigText::builder()
                .pixel_size(px)
                .style(digits)
                .lines(vec![Line::from(face)])
                .centered()
                .build()
                .render(big_area, buf);
        }
        None => {
            let r = Rect::new(inner.x, inner.y, inner.width, 1);
            Line::from(face).style(digits).centered().render(r, buf);
        }
    }
    let info_area = Rect::new(inner.x, inner.y + inner.height - 1, inner.width, 1);
    Line::from(info)
        .style(Style::new().fg(Color::Gray))
        .centered()
        .render(info_area, buf);
}

/// `1. e4 e5 2. Nf3` from the view's numbered moves.
fn move_list(view: &View) -> String {
    let mut out = String::new();
    let mut prev_white: Option<String> = None;
    for m in &view.last_moves {
        let (num, san) = m.split_once(' ').unwrap_or(("", m.as_str()));
        let piece = match (num.strip_suffix("..."), &prev_white) {
            (Some(n), Some(w)) if *w == n => san.to_string(),
            _ => m.clone(),
        };
        prev_white = num.strip_suffix('.').map(str::to_string);
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&piece);
    }
    out
}

fn moves(view: &View, compact: bool, area: Rect, buf: &mut Buffer) {
    let area = if compact || area.height < 4 {
        area
    } else {
        let block = Block::bordered()
            .border_style(Style::new().fg(Color::DarkGray))
            .title(" moves ");
        let inner = block.inner(area);
        block.render(area, buf);
        inner
    };
    let mover = &view.clocks[view.to_move.index()];
    let to_move = match view.phase {
        Phase::Ended => Line::from(Span::styled(" game over", Style::new().fg(Color::Gray))),
        _ => Line::from(vec![
            Span::raw(" to move: "),
            Span::styled(
                format!(
                    "{} · {} ({})",
                    view.to_move.name().to_uppercase(),
                    mover.name,
                    kind_text(mover.kind).to_lowercase()
                ),
                Style::new().add_modifier(Modifier::BOLD),
            ),
            Span::raw(format!("   ply {}", view.plies)),
        ]),
    };
    let list = move_list(view);
    // Keep the end of the list: the latest moves matter.
    let room = usize::from(area.width.saturating_sub(9)) * usize::from(area.height.max(2) - 1);
    let shown = if list.chars().count() > room {
        let skip = list.chars().count() - room + 1;
        let s: String = list.chars().skip(skip).collect();
        let s = s.split_once(' ').map_or(s.clone(), |(_, r)| r.to_string());
        format!("…{s}")
    } else if list.is_empty() {
        "—".to_string()
    } else {
        list
    };
    let lines = vec![
        to_move,
        Line::from(vec![
            Span::styled(" moves: ", Style::new().fg(Color::Gray)),
            Span::raw(shown),
        ]),
    ];
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .render(area, buf);
}

fn tag(text: &str, color: Color) -> Span<'static> {
    Span::styled(
        format!(" {text} "),
        Style::new()
            .fg(Color::Black)
            .bg(color)
            .add_modifier(Modifier::BOLD),
    )
}

/// One or two lines per live panel, in the order the core gives them.
pub fn panel_lines(view: &View) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    // The result first: it is what everyone looks for.
    let (result, others): (Vec<&Panel>, Vec<&Panel>) = view
        .panels
        .iter()
        .partition(|p| matches!(p, Panel::Result { .. }));
    for p in result.into_iter().chain(others) {
        match p {
            Panel::DrawOffer {
                answered,
                consulting_with,
                used_ms,
                left_ms,
                urgency,
                limit_reached,
            } => {
                let color = match urgency {
                    Urgency::Normal => Color::Cyan,
                    Urgency::Amber => AMBER,
                    Urgency::Red => Color::Red,
                };
                let state = match (answered, consulting_with.is_empty()) {
                    (Some(false), _) => "declined; the consultation may finish",
                    (Some(true), _) => "accepted",
                    (None, true) => "unanswered",
                    (None, false) => "operator consulting",
                };
                // The countdown rounds up, the time used rounds down: they add up to the limit.
                let used = i64::try_from(*used_ms).unwrap_or(i64::MAX);
                out.push(Line::from(vec![
                    tag("9e DRAW OFFER", color),
                    Span::raw(format!(" by the human · {state} · ")),
                    Span::styled(
                        format!("{} left", timefmt::short(*left_ms)),
                        Style::new().fg(color).add_modifier(Modifier::BOLD),
                    ),
                    Span::raw(format!(
                        " of {} · used {}",
                        timefmt::short(used.saturating_add(*left_ms)),
                        timefmt::short(used / 1000 * 1000)
                    )),
                ]));
                if !consulting_with.is_empty() {
                    out.push(Line::from(format!(
                        "   consulting: {}",
                        consulting_with.join(", ")
                    )));
                }
                if *limit_reached || *urgency == Urgency::Red {
                    out.push(Line::from(Span::styled(
                        "   time used up: consultation must cease; asking again is refused (9e)",
                        Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
                    )));
                }
            }
            Panel::MachineOffer { justification } => {
                let why = match justification {
                    Justification::Eval { cp } => {
                        format!("evaluation {:+.2}", f64::from(*cp) / 100.0)
                    }
                    Justification::Repetition { line } => format!("repetition line {line}"),
                };
                out.push(Line::from(vec![
                    tag("9d MACHINE OFFERS A DRAW", Color::Cyan),
                    Span::raw(format!(" ({why}) · human accept-draw / human decline-draw")),
                ]));
            }
            Panel::Technical {
                text,
                since_ms,
                machine_clock_running,
                info_question,
            } => {
                let clock = if *machine_clock_running {
                    Span::styled(
                        "machine's clock RUNNING (repairs on its time)",
                        Style::new().fg(AMBER).add_modifier(Modifier::BOLD),
                    )
                } else {
                    Span::styled(
                        "machine's clock STOPPED",
                        Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                    )
                };
                out.push(Line::from(vec![
                    tag("8a TECHNICAL PROBLEM", AMBER),
                    Span::raw(format!(
                        " since {}: {text} · ",
                        timefmt::clock(*since_ms as i64)
                    )),
                    clock,
                ]));
                if let Some(q) = info_question {
                    out.push(Line::from(vec![
                        Span::raw("   supervisor info-stop: "),
                        Span::styled(format!("\"{q}\""), Style::new().fg(Color::Cyan)),
                        Span::raw(" · supervisor info-resume restarts the clock"),
                    ]));
                }
            }
            Panel::Power {
                text,
                window_left_ms,
                reset_done,
            } => {
                let state = match (window_left_ms, reset_done) {
                    (None, _) => {
                        Span::raw("game suspended · arbiter power-restored when power is back")
                    }
                    (Some(_), true) => Span::raw("machine reset · arbiter resume"),
                    (Some(w), false) if *w > 0 => Span::styled(
                        format!(
                            "reset window {} left · operator reset-done",
                            timefmt::short(*w)
                        ),
                        Style::new()
                            .fg(if *w < AMBER_MS { AMBER } else { Color::Cyan })
                            .add_modifier(Modifier::BOLD),
                    ),
                    (Some(_), false) => Span::styled(
                        "reset window over: the arbiter may restart the machine's clock (arbiter resume)",
                        Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
                    ),
                };
                out.push(Line::from(vec![
                    tag("8b POWER FAILURE", Color::Red),
                    Span::raw(format!(" {text} · ")),
                    state,
                ]));
            }
            Panel::Stopped { reason } => out.push(Line::from(vec![
                tag("1 CLOCKS STOPPED", AMBER),
                Span::raw(format!(" by the arbiter: {reason} · r / F6 resumes")),
            ])),
            Panel::OperatorErrors { count, forfeit_at } => {
                let color = match count {
                    0 => Color::DarkGray,
                    c if c + 1 >= *forfeit_at && *c < *forfeit_at => AMBER,
                    _ => Color::Red,
                };
                let note = match count {
                    0 => String::new(),
                    c if c < forfeit_at => {
                        format!(
                            " · time compensated to the human; infraction {forfeit_at} forfeits"
                        )
                    }
                    _ => " · the machine forfeits".into(),
                };
                out.push(Line::from(vec![
                    Span::styled(
                        format!(" 7c operator errors {count}/{forfeit_at}"),
                        Style::new().fg(color).add_modifier(Modifier::BOLD),
                    ),
                    Span::styled(note, Style::new().fg(color)),
                ]));
            }
            Panel::SyncWarning {
                reading_ms,
                game_clock_ms,
                diff_ms,
            } => out.push(Line::from(vec![
                tag("6c SYNC INTERNAL CLOCK", AMBER),
                Span::raw(format!(
                    " engine reads {}, game clock {}, off by {}{} · operator sync-internal-clock",
                    timefmt::clock(*reading_ms as i64),
                    timefmt::clock(*game_clock_ms),
                    if *diff_ms < 0 { "-" } else { "+" },
                    timefmt::short(diff_ms.abs()),
                )),
            ])),
            Panel::ParamRequests { open } => {
                let ids: Vec<String> = open.iter().map(|i| format!("#{i}")).collect();
                out.push(Line::from(vec![
                    tag("6l PARAMETER REQUEST", AMBER),
                    Span::raw(format!(
                        " awaiting decision: {} · arbiter param-decision ID permit|refuse REASON",
                        ids.join(", ")
                    )),
                ]));
            }
            Panel::Result {
                score,
                termination,
                detail,
            } => out.push(Line::from(vec![
                tag(&format!("RESULT {score}"), Color::Red),
                Span::styled(
                    format!(" {} · {detail}", termination_text(*termination)),
                    Style::new().add_modifier(Modifier::BOLD),
                ),
            ])),
        }
    }
    out
}

fn message(ui: &UiState, area: Rect, buf: &mut Buffer) {
    let Some(m) = &ui.message else { return };
    let (mark, style) = match m.kind {
        MsgKind::Info => ("·", Style::new().fg(Color::Cyan)),
        MsgKind::Done => ("✓", Style::new().fg(Color::Green)),
        MsgKind::Refused => (
            "✗",
            Style::new()
                .fg(Color::LightRed)
                .add_modifier(Modifier::BOLD),
        ),
        MsgKind::Error => (
            "!",
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        ),
    };
    Line::from(format!(" {mark} {}", m.text))
        .style(style)
        .render(area, buf);
}

fn completion_line(ui: &UiState, area: Rect, buf: &mut Buffer) {
    let Some(c) = &ui.completion else { return };
    let mut spans = vec![Span::styled(" Tab ", Style::new().fg(Color::DarkGray))];
    for (i, s) in c.candidates.iter().enumerate() {
        let style = if i == c.index {
            Style::new().fg(Color::Black).bg(Color::White)
        } else {
            Style::new().fg(Color::Gray)
        };
        spans.push(Span::styled(s.clone(), style));
        spans.push(Span::raw(" "));
    }
    Line::from(spans).render(area, buf);
}

fn status_lines(s: &Status, area: Rect, buf: &mut Buffer) {
    let gray = Style::new().fg(Color::Gray);
    let signed = match s.signed_upto {
        Some(n) if n >= s.entries => Span::styled(
            format!("checkpoint: all {} entries signed", s.entries),
            Style::new().fg(Color::Green),
        ),
        Some(n) => Span::styled(
            format!(
                "checkpoint: {n} of {} entries signed ({} unsigned)",
                s.entries,
                s.entries - n
            ),
            Style::new().fg(AMBER),
        ),
        None => Span::styled("checkpoint: none signed", Style::new().fg(Color::DarkGray)),
    };
    let last = s.last_entry.clone().unwrap_or_else(|| "—".to_string());
    Paragraph::new(vec![
        Line::from(vec![
            Span::styled(format!(" log: {} entries · ", s.entries), gray),
            signed,
            Span::styled(
                s.code
                    .as_ref()
                    .map_or_else(String::new, |c| format!(" · code {c}")),
                Style::new().fg(Color::Cyan),
            ),
        ]),
        Line::from(Span::styled(format!(" last entry: {last}"), gray)),
    ])
    .render(area, buf);
}

fn input_line(view: &View, ui: &UiState, area: Rect, buf: &mut Buffer) {
    let cursor = Span::styled(" ", Style::new().bg(Color::White));
    let line = match (&ui.mode, ui.frozen.is_some()) {
        (_, true) => Line::from(Span::styled(
            " input frozen: the log cannot be written · q quits",
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        )),
        (Mode::Line(LineKind::Move), _) => Line::from(vec![
            Span::styled(
                format!(" move {} ▸ ", view.to_move.name()),
                Style::new().fg(Color::Black).bg(Color::LightGreen),
            ),
            Span::raw(" "),
            Span::raw(ui.line.clone()),
            cursor,
            Span::styled(
                "   Tab completes · Enter presses the clock · Esc cancels",
                Style::new().fg(Color::DarkGray),
            ),
        ]),
        (Mode::Line(LineKind::Command), _) => Line::from(vec![
            Span::styled(" : ", Style::new().fg(Color::Black).bg(Color::Cyan)),
            Span::raw(" "),
            Span::raw(ui.line.clone()),
            cursor,
        ]),
        (_, false) if view.phase == Phase::Ended => Line::from(Span::styled(
            " : command (notes, disputes, rulings)  ? help  q quit",
            Style::new().fg(Color::Gray),
        )),
        _ => {
            let press = match view.phase {
                Phase::Draft | Phase::Opened => "start clock",
                Phase::Playing => "move",
                Phase::Ended => "",
            };
            let keys = [
                ("Space", press),
                ("s", "stop"),
                ("r", "resume"),
                ("F7", "draw offer"),
                ("F8", "consult"),
                (":", "command"),
                ("?", "help"),
                ("q", "quit"),
            ];
            let mut spans = Vec::new();
            for (k, what) in keys.into_iter().filter(|(_, w)| !w.is_empty()) {
                spans.push(Span::styled(
                    format!(" {k}"),
                    Style::new().fg(Color::White).add_modifier(Modifier::BOLD),
                ));
                spans.push(Span::styled(
                    format!(" {what} "),
                    Style::new().fg(Color::Gray),
                ));
            }
            Line::from(spans)
        }
    };
    line.render(area, buf);
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// The help text: keys, then every command grouped by who may use it.
pub fn help_lines() -> Vec<Line<'static>> {
    let head = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
    let mut out = vec![
        Line::from(Span::styled("KEYS", head)),
        Line::from(
            "  Space / Enter   press the clock: start the game, or enter the move (SAN or UCI)",
        ),
        Line::from(
            "  a-h N B R Q K O start the move line with that letter; Tab / Shift-Tab cycle legal moves",
        ),
        Line::from("  s / F5          arbiter stop (both clocks)      r / F6   arbiter resume"),
        Line::from("  F7              human offer-draw (with the move just made)"),
        Line::from("  F8              operator consult (the registered team, prefilled)"),
        Line::from(
            "  :               command line: the words of script mode below; Tab completes, Up/Down recall",
        ),
        Line::from("  ?  / F1         this help (Up/Down/PgUp/PgDn scroll, Esc closes)"),
        Line::from("  q / Ctrl-C      quit (asks y/n); Esc clears the message"),
        Line::from("  Commands that can end the game or change what was played ask y/n first."),
    ];
    let mut who = "";
    for h in HELP {
        if h.who != who {
            who = h.who;
            out.push(Line::from(""));
            out.push(Line::from(Span::styled(who.to_uppercase(), head)));
        }
        out.push(Line::from(vec![
            Span::raw(format!("  {:<52}", h.words)),
            Span::styled(format!("{:>4}  ", h.clause), Style::new().fg(Color::Cyan)),
            Span::styled(h.what.to_string(), Style::new().fg(Color::Gray)),
        ]));
    }
    out
}

fn help(scroll: u16, area: Rect, buf: &mut Buffer) {
    let r = centered(
        area,
        area.width.saturating_sub(2),
        area.height.saturating_sub(2),
    );
    Clear.render(r, buf);
    Paragraph::new(help_lines())
        .scroll((scroll, 0))
        .block(
            Block::bordered()
                .border_type(BorderType::Double)
                .title(" commands by who may use them · rule clause · Esc closes ")
                .title(Line::from(" ↑↓ PgUp PgDn ").right_aligned()),
        )
        .render(r, buf);
}

fn confirm(pending: &Pending, text: &str, area: Rect, buf: &mut Buffer) {
    let r = centered(area, 72, 7);
    Clear.render(r, buf);
    let (title, yes, what) = match pending {
        Pending::Quit => (
            " quit the board UI? ",
            " = yes, quit            ",
            "The log keeps everything recorded; the game clock keeps its time in the log."
                .to_string(),
        ),
        Pending::Command(_) => (
            " irreversible: confirm ",
            " = yes, record it      ",
            "It can end the game or change what was played: it cannot be undone.".to_string(),
        ),
    };
    let lines = vec![
        Line::from(Span::styled(
            format!("  {text}"),
            Style::new().add_modifier(Modifier::BOLD),
        )),
        Line::from(format!("  {what}")),
        Line::from(""),
        Line::from(vec![
            Span::styled(
                "  y",
                Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
            ),
            Span::raw(yes),
            Span::styled(
                "n / Esc",
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            ),
            Span::raw(" = no"),
        ]),
    ];
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(
            Block::bordered()
                .border_type(BorderType::Thick)
                .border_style(Style::new().fg(AMBER))
                .title(title),
        )
        .render(r, buf);
}
