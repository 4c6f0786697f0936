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
use crate::core::view::{ClockState, ClockView, Panel, Urgency, View};

use super::describe::termination_text;
use super::keys::{LineKind, Mode, MsgKind, Pending, PressKeys, UiState};
use super::{board, logpane, movelist, shogiboard};

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
    /// Each camp's latest countersigned checkpoint (its size), as found beside the log.
    pub countersigned: Vec<(String, u64)>,
    /// The camps that countersigned the match index in force (one that lists this game).
    pub index_countersigned: Vec<String>,
    /// Each camp's live witness, when the board serves the live record (`play --listen`).
    pub witnesses: Vec<WitnessShown>,
}

/// A camp's live witness as the board shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WitnessShown {
    pub camp: String,
    /// Connected now.
    pub connected: bool,
    /// It was connected during this session (not connected now: lost).
    pub seen: bool,
    /// Entries of this game its cosignatures cover (the largest checkpoint it cosigned).
    pub cosigned: Option<u64>,
    /// The latest alarm its witness raised, as shown (`ALARM #45: …`): red, the game goes on.
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

/// Lines `p` takes when wrapped to `width`.
fn wrapped_height(p: &Paragraph<'_>, width: u16) -> u16 {
    u16::try_from(p.line_count(width.max(1))).unwrap_or(u16::MAX)
}

/// Draw the screen. Pure.
pub fn render(view: &View, ui: &UiState, status: &Status, area: Rect, buf: &mut Buffer) {
    render_frame(view, ui, status, area, buf);
}

/// Where the widgets whose cells change with the time alone were drawn: the two clocks and the
/// move list (its "this move" line). Nothing else on the screen is drawn over them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Timed {
    pub clocks: [Rect; 2],
    pub moves: Option<Rect>,
}

/// [`render`], saying where the time-dependent widgets are ([`Timed`]); `None` when something
/// is drawn over them (help, a question, the passphrase prompt, the log page): then only a
/// whole frame is right.
pub fn render_frame(
    view: &View,
    ui: &UiState,
    status: &Status,
    area: Rect,
    buf: &mut Buffer,
) -> Option<Timed> {
    let timed = draw(view, ui, status, area, buf);
    if ui.no_color {
        strip_colour(area, buf);
    }
    timed
}

/// Draw again only what changes with the time, where [`render_frame`] said, into `buf` (whose
/// area may be just that widget's, and which holds what the terminal shows there): clock `which`
/// (0, 1), the terminal showing clock `shown` there (then only its face may need drawing), or
/// (`None`) the move list's "this move" row, `area` being [`movelist::this_move_row`] of the
/// list's area. Cells are the same as a whole [`render`] of the same state would give. Returns
/// the part of `area` drawn.
pub fn render_timed(
    view: &View,
    ui: &UiState,
    which: Option<usize>,
    shown: Option<&ClockView>,
    area: Rect,
    buf: &mut Buffer,
) -> Rect {
    let drawn = match which.and_then(|i| view.clocks.get(i)) {
        Some(c) => clock_over(shown, c, area, buf),
        // The move list's "this move" row ([`movelist::this_move_row`]).
        None => {
            buf.reset();
            movelist::render_this_move(view, area, buf);
            area
        }
    };
    if ui.no_color {
        strip_colour(drawn, buf);
    }
    drawn
}

/// `NO_COLOR`: every colour removed; what had a background (tags, the cursor, banners) is shown
/// reversed, so it still stands out. Words already carry every state.
fn strip_colour(area: Rect, buf: &mut Buffer) {
    for y in area.y..area.y + area.height {
        for x in area.x..area.x + area.width {
            let c = &mut buf[(x, y)];
            let tagged = !matches!(c.bg, Color::Reset) && !board::is_square_colour(c.bg);
            c.fg = Color::Reset;
            c.bg = Color::Reset;
            if tagged {
                c.modifier.insert(Modifier::REVERSED);
            }
        }
    }
}

fn draw(view: &View, ui: &UiState, status: &Status, area: Rect, buf: &mut Buffer) -> Option<Timed> {
    let filtered = super::countersign::with_camps_known(view, status);
    let view = filtered.as_ref().unwrap_or(view);
    if let Mode::Log { back } = &ui.mode {
        // The log page takes the whole screen but the header, so the state stays in sight.
        let rows = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).split(area);
        header(view, ui, rows[0], buf);
        logpane::render(&ui.log, ui.utc_origin, *back, rows[1], buf);
        return None;
    }
    let compact = is_compact(area);
    let alarm = ui.frozen.as_ref().or(status.alarm.as_ref());
    let panels = Paragraph::new(panel_lines(view)).wrap(Wrap { trim: false });
    let completion = ui.completion.is_some();
    let panels_h = match (view.panels.is_empty(), compact) {
        (true, _) => 0,
        (false, true) => wrapped_height(&panels, area.width),
        (false, false) => wrapped_height(&panels, area.width.saturating_sub(2)) + 2,
    };
    let sticky = sticky_paragraph(ui);
    let sticky_h = sticky.as_ref().map_or(0, |p| wrapped_height(p, area.width));
    let msg = message_paragraph(ui);
    let msg_h = msg
        .as_ref()
        .map_or(1, |p| wrapped_height(p, area.width).clamp(1, 4));
    let alarm_h = if alarm.is_some() { 3 } else { 0 };
    let status_h = 2 + u16::from(!status.witnesses.is_empty());
    let fixed = 1 + alarm_h + sticky_h + panels_h + msg_h + u16::from(completion) + status_h + 1;
    let rest = area.height.saturating_sub(fixed);
    let chess = view.fen.is_some() && view.phase != Phase::Draft;
    let min_mid = match view.phase {
        // The declarations panel, wrapped (and framed on a large screen).
        Phase::Draft | Phase::Opened => {
            let p = Paragraph::new(declaration_lines(view)).wrap(Wrap { trim: false });
            wrapped_height(&p, area.width.saturating_sub(2)) + if compact { 0 } else { 2 }
        }
        _ if chess => board::HEIGHT,
        _ if view.shogi.is_some() => shogiboard::HEIGHT,
        _ => 4,
    };
    // The middle wants the whole move list (rows, heading, frame) when there is room: the big
    // clocks give up their air (down to 11 rows) before the list scrolls.
    let want_mid = (view.plies.div_ceil(2) as u16 + 5).max(16);
    let clock_h = if !compact && rest >= 11 + 16 {
        rest.saturating_sub(want_mid).clamp(11, 15)
    } else if rest >= 11 + min_mid && !compact {
        11
    } else if rest >= 7 + min_mid {
        7
    } else {
        rest.min(3)
    };
    let mid_h = rest.saturating_sub(clock_h);
    let rows = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(alarm_h),
        Constraint::Length(sticky_h),
        Constraint::Length(clock_h),
        Constraint::Length(mid_h),
        Constraint::Length(panels_h),
        Constraint::Length(msg_h),
        Constraint::Length(u16::from(completion)),
        Constraint::Length(status_h),
        Constraint::Length(1),
    ])
    .split(area);

    header(view, ui, rows[0], buf);
    if let Some(a) = alarm {
        alarm_banner(a, rows[1], buf);
    }
    if let Some(p) = sticky {
        p.render(rows[2], buf);
    }
    let halves =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).split(rows[3]);
    for (i, c) in view.clocks.iter().enumerate() {
        clock(c, halves[i], buf);
    }
    let moves = middle(view, ui, compact, rows[4], buf);
    if !view.panels.is_empty() {
        if compact {
            panels.render(rows[5], buf);
        } else {
            panels
                .block(
                    Block::bordered()
                        .border_style(Style::new().fg(Color::DarkGray))
                        .title(" clauses in force "),
                )
                .render(rows[5], buf);
        }
    }
    if let Some(p) = msg {
        p.render(rows[6], buf);
    }
    if completion {
        completion_line(ui, rows[7], buf);
    }
    status_lines(status, rows[8], buf);
    input_line(view, ui, status, rows[9], buf);

    match &ui.mode {
        Mode::Help { scroll } => help(*scroll, &ui.press_keys, view, area, buf),
        Mode::Confirm { pending, text } => confirm(view, pending, text, area, buf),
        Mode::Authorize {
            words,
            typed,
            recorded,
            ..
        } => authorize(view, words, typed.chars().count(), *recorded, area, buf),
        _ => {
            return Some(Timed {
                clocks: [halves[0], halves[1]],
                moves,
            });
        }
    }
    None
}

/// The arbiter's authorization prompt: the command, the masked passphrase.
fn authorize(
    view: &View,
    words: &str,
    typed: usize,
    recorded: Option<(u64, u64)>,
    area: Rect,
    buf: &mut Buffer,
) {
    let head = match recorded {
        Some((first, _)) => format!("  recorded at the key as #{first}: {words}"),
        None => format!("  {words}"),
    };
    let foot = match recorded {
        Some(_) => format!(
            "  Enter authorizes it · Esc or {} s without the passphrase: it stands UNAUTHORIZED, logged, and the arbiter rules on its time (5b)",
            super::keys::AUTHORIZE_WITHIN.as_secs()
        ),
        None => "  Enter checks it · Esc cancels · a failed check is logged (5b)".to_string(),
    };
    // A game under another rulebook (shogi) is told its articles.
    let (head, foot) = (view.reword(&head), view.reword(&foot));
    let w = area.width.saturating_sub(2).clamp(20, 100);
    let inner = usize::from(w.saturating_sub(4));
    let rows = super::logpane::wrap(&head, inner).len() + super::logpane::wrap(&foot, inner).len();
    let r = centered(area, w, u16::try_from(rows + 4).unwrap_or(u16::MAX));
    Clear.render(r, buf);
    let lines = vec![
        Line::from(Span::styled(
            head,
            Style::new().add_modifier(Modifier::BOLD),
        )),
        Line::from(format!(
            "  arbiter's passphrase (signing key): {}",
            "*".repeat(typed)
        )),
        Line::from(""),
        Line::from(foot),
    ];
    dialog(
        &view.reword(" only the arbiter: authorize (5b) "),
        lines,
        r,
        buf,
    );
}

/// An amber-framed question box over the screen.
fn dialog(title: &str, lines: Vec<Line<'static>>, r: Rect, buf: &mut Buffer) {
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(
            Block::bordered()
                .border_type(BorderType::Thick)
                .border_style(Style::new().fg(AMBER))
                .title(title.to_string()),
        )
        .render(r, buf);
}

/// The red alarms kept until acknowledged, one per line, and how to acknowledge them.
fn sticky_paragraph(ui: &UiState) -> Option<Paragraph<'static>> {
    if ui.alarms.is_empty() {
        return None;
    }
    let red = Style::new()
        .fg(Color::White)
        .bg(Color::Red)
        .add_modifier(Modifier::BOLD);
    let mut lines: Vec<Line<'static>> = ui
        .alarms
        .iter()
        .map(|a| Line::from(Span::styled(format!("!! {} ", a.text), red)))
        .collect();
    lines.push(Line::from(Span::styled(
        format!(
            "!! {} red alarm{} until acknowledged: press ! to acknowledge ",
            ui.alarms.len(),
            if ui.alarms.len() == 1 { "" } else { "s" }
        ),
        Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
    )));
    Some(Paragraph::new(lines).wrap(Wrap { trim: false }))
}

/// Between the clocks and the panels: the declarations before the game, then the diagram and the
/// move list (the move list alone for free-text games).
/// The middle of the screen; returns where the move list was drawn.
fn middle(view: &View, ui: &UiState, compact: bool, area: Rect, buf: &mut Buffer) -> Option<Rect> {
    if area.height == 0 {
        return None;
    }
    let inner = if compact {
        area
    } else {
        let title = match view.phase {
            Phase::Draft => " declarations (not yet recorded) ",
            Phase::Opened => " declarations (recorded in line 0) ",
            _ => " position and moves ",
        };
        let block = Block::bordered()
            .border_style(Style::new().fg(Color::DarkGray))
            .title(title);
        let inner = block.inner(area);
        block.render(area, buf);
        inner
    };
    if matches!(view.phase, Phase::Draft | Phase::Opened) {
        declarations(view, inner, buf);
        return None;
    }
    let latest = view.last_moves.last().map(String::as_str);
    if let Some(v) = &view.shogi
        && inner.width >= shogiboard::WIDTH + 30
        && inner.height >= shogiboard::HEIGHT
    {
        let cols = Layout::horizontal([Constraint::Length(shogiboard::WIDTH), Constraint::Min(0)])
            .spacing(1)
            .split(inner);
        shogiboard::render(v, ui.black_at_bottom, ui.ascii, cols[0], buf);
        movelist::render(view, &ui.log.move_times, ui.moves_back, cols[1], buf);
        return Some(cols[1]);
    }
    if view.fen.is_some() && inner.width >= board::WIDTH + 40 && inner.height >= board::HEIGHT {
        let cols = Layout::horizontal([Constraint::Length(board::WIDTH), Constraint::Min(0)])
            .spacing(1)
            .split(inner);
        board::render(view, ui.black_at_bottom, ui.ascii, latest, cols[0], buf);
        movelist::render(view, &ui.log.move_times, ui.moves_back, cols[1], buf);
        Some(cols[1])
    } else {
        movelist::render(view, &ui.log.move_times, ui.moves_back, inner, buf);
        Some(inner)
    }
}

/// What is declared for the game, and what is missing.
pub fn declaration_lines(view: &View) -> Vec<Line<'static>> {
    let d = &view.declarations;
    let gray = Style::new().fg(Color::Gray);
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let warn = Style::new().fg(AMBER).add_modifier(Modifier::BOLD);
    let missing = |what: &str| Span::styled(format!("MISSING · {what}"), warn);
    let player = |p: &Option<crate::core::event::Player>, side: &str| match p {
        Some(p) => Span::styled(
            format!("{} ({})", p.name, kind_text(Some(p.kind)).to_lowercase()),
            bold,
        ),
        None => missing(&format!("arbiter declare {side} human|machine NAME")),
    };
    let row = |label: &str, value: Span<'static>| {
        Line::from(vec![Span::styled(format!(" {label:<10}"), gray), value])
    };
    let mut out = vec![
        row("white", player(&d.white, "white")),
        row("black", player(&d.black, "black")),
        row(
            "operator",
            match &d.operator {
                Some(o) => Span::styled(o.clone(), bold),
                None => missing(&format!(
                    "arbiter declare operator NAME ({})",
                    d.cites.operator
                )),
            },
        ),
        row(
            "team",
            if d.team.is_empty() {
                Span::styled(
                    format!(
                        "none registered ({}: no one may be consulted)",
                        d.cites.team
                    ),
                    gray,
                )
            } else {
                Span::styled(d.team.join(", "), bold)
            },
        ),
        row(
            "algorithm",
            Span::raw(format!("{} {}", d.cites.algorithm, d.algorithm)),
        ),
        row(
            "config",
            match &d.config_sha256 {
                Some(h) => Span::styled(format!("{} SHA-256 {h}", d.cites.config), bold),
                None => missing(&format!(
                    "{}: no configuration digest · arbiter declare config-file PATH (or config SHA256)",
                    d.cites.config
                )),
            },
        ),
    ];
    if d.camps.is_empty() {
        out.push(row(
            "camps",
            Span::styled("none: the result will not be witnessed", warn),
        ));
    }
    for c in &d.camps {
        let fp = ssh_key::PublicKey::from_openssh(&c.key).map_or_else(
            |_| "key unreadable".to_string(),
            |k| crate::record::sign::fingerprint(&k),
        );
        out.push(row("camp", Span::styled(format!("{} {fp}", c.name), bold)));
    }
    out.push(Line::from(""));
    out.push(Line::from(Span::styled(
        if d.recorded {
            " recorded in line 0 · Space starts White's clock"
        } else {
            " Space records them (line 0) and starts White's clock · :arbiter declare … changes one"
        },
        gray,
    )));
    out
}

fn declarations(view: &View, area: Rect, buf: &mut Buffer) {
    Paragraph::new(declaration_lines(view))
        .wrap(Wrap { trim: false })
        .render(area, buf);
}

fn phase_text(view: &View) -> (String, Style) {
    let stopped = view.panels.iter().find_map(|p| match p {
        Panel::Power { .. } => Some(("SUSPENDED · power failure (8b)", Color::Red)),
        Panel::Stopped { .. } => Some(("CLOCKS STOPPED by the arbiter (1)", AMBER)),
        _ => None,
    });
    match view.phase {
        Phase::Draft => (
            "PRE-GAME · declarations not yet recorded".into(),
            Style::new().fg(Color::Cyan),
        ),
        Phase::Opened => (
            "PRE-GAME · opened, clock not started".into(),
            Style::new().fg(Color::Cyan),
        ),
        Phase::Playing => match stopped {
            Some((t, c)) => (
                view.reword(t),
                Style::new().fg(c).add_modifier(Modifier::BOLD),
            ),
            None => (
                "PLAYING".into(),
                Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
            ),
        },
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

fn header(view: &View, ui: &UiState, area: Rect, buf: &mut Buffer) {
    let (phase, style) = phase_text(view);
    let mut spans: Vec<Span<'static>> = vec![
        Span::styled(" ARBITER ", Style::new().fg(Color::Black).bg(Color::White)),
        Span::raw(" "),
        Span::styled(phase, style),
        Span::styled(
            format!(" · game {}", view.game),
            Style::new().add_modifier(Modifier::BOLD),
        ),
    ];
    if let Some(score) = &ui.score {
        spans.push(Span::styled(
            format!(" · match {score}"),
            Style::new().add_modifier(Modifier::BOLD),
        ));
    }
    // The match and rules names last, and only what fits: the state and score come first.
    for extra in [
        format!(" · {}", view.match_id),
        format!(" · {}", view.rules),
    ] {
        let used: usize = spans.iter().map(|s| s.width()).sum();
        if used + extra.chars().count() <= usize::from(area.width) {
            spans.push(Span::raw(extra));
        }
    }
    Paragraph::new(Line::from(spans)).render(area, buf);
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

/// The clock's state as a mark and a colour; the mark is words, so colour is never alone.
fn clock_state(c: &ClockView) -> (&'static str, Color) {
    match c.state {
        ClockState::Running if c.shown_ms < AMBER_MS => ("▶ RUNNING ◀", AMBER),
        ClockState::Running => ("▶ RUNNING ◀", Color::LightGreen),
        ClockState::Waiting => ("waiting", Color::Gray),
        ClockState::NotStarted => ("not started", Color::Gray),
        ClockState::Stopped => ("■ STOPPED ■", AMBER),
        ClockState::Suspended => ("‖ SUSPENDED ‖", Color::Red),
        ClockState::Flag => ("⚑ FLAG FELL ⚑", Color::Red),
        ClockState::Held => ("⚑ FLAG HELD ⚑", AMBER),
        ClockState::Over => ("game over", Color::Gray),
    }
}

/// One big clock with its state in words (the Board UI's, shared with `arbiter display`).
pub fn clock(c: &ClockView, area: Rect, buf: &mut Buffer) {
    let (mark, colour) = clock_state(c);
    let live = is_live(c);
    let digits = digits_style(c);
    let border = if live {
        Style::new().fg(colour).add_modifier(Modifier::BOLD)
    } else {
        Style::new().fg(Color::DarkGray)
    };
    let title = match &c.shogi {
        // A shogi clock names its side as shogi does, with the entrant's kind (Denryu-sen 5.2).
        Some(s) => format!(
            " {} · {} · {} ",
            s.side_text(),
            s.entrant_text(c.kind),
            c.name
        ),
        None => format!(
            " {} · {} · {} ",
            c.side.name().to_uppercase(),
            kind_text(c.kind),
            c.name
        ),
    };
    let mut block = Block::bordered()
        .border_style(border)
        .title(Line::from(title).style(border))
        .title_bottom(Line::from(format!(" {mark} ")).style(border).centered());
    if live {
        block = block.border_type(BorderType::Thick);
    }
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.height == 0 {
        return;
    }
    let face = face_of(c);
    if inner.height == 1 {
        // The smallest layout: the time and the state on one line.
        Line::from(vec![
            Span::styled(face, digits),
            Span::styled(format!("  {mark}"), digits),
        ])
        .centered()
        .render(inner, buf);
        return;
    }
    let made = match c.moves_made {
        1 => "1 move".to_string(),
        n => format!("{n} moves"),
    };
    let control = match c.moves_to_control {
        Some(n) => format!("{n} to the control"),
        None => "no further control".to_string(),
    };
    let mut lines = Vec::new();
    if let Some(b) = c.byoyomi {
        let (n, s) = (b.periods_left, b.period_ms / 1000);
        let periods = if n == 1 { "period" } else { "periods" };
        if b.in_byoyomi {
            lines.push(format!("BYO-YOMI · {n} {periods} of {s} s left · {made}"));
            lines.push(format!("BYO-YOMI · {n} × {s} s left"));
        } else {
            lines.push(format!(
                "period {} · {made} · {control} · byo-yomi {n} × {s} s",
                c.period
            ));
            lines.push(format!("P{} · {control} · byo-yomi {n} × {s} s", c.period));
        }
        lines.push(format!("byo-yomi {n}×{s}s"));
    }
    let info = lines
        .into_iter()
        .chain([
            format!("period {} · {made} · {control}", c.period),
            format!("P{} · {control}", c.period),
            control,
        ])
        .find(|s| s.chars().count() <= usize::from(inner.width))
        .unwrap_or_default();
    let (face_area, px) = face_area(inner);
    draw_face(face, px, digits, face_area, buf);
    let info_area = Rect::new(inner.x, inner.y + inner.height - 1, inner.width, 1);
    Line::from(info)
        .style(Style::new().fg(Color::Gray))
        .centered()
        .render(info_area, buf);
}

/// What a clock's face shows: its time, or in byo-yomi the current period's.
fn face_of(c: &ClockView) -> String {
    match c.byoyomi {
        Some(b) if b.in_byoyomi => timefmt::clock(i64::try_from(b.period_left_ms).unwrap_or(0)),
        _ => timefmt::clock(c.shown_ms),
    }
}

/// Where a clock's face is inside its frame (`inner`, of two lines or more: the last one is the
/// period line), and in which size: big digits, or (`None`) one line of text.
fn face_area(inner: Rect) -> (Rect, Option<PixelSize>) {
    let big_h = inner.height.saturating_sub(1);
    match digits_for(inner.width, big_h) {
        Some((px, h)) => {
            let top = inner.y + (big_h - h) / 2;
            (Rect::new(inner.x, top, inner.width, h), Some(px))
        }
        None => (Rect::new(inner.x, inner.y, inner.width, 1), None),
    }
}

fn draw_face(face: String, px: Option<PixelSize>, style: Style, area: Rect, buf: &mut Buffer) {
    match px {
        Some(px) => BigText::builder()
            .pixel_size(px)
            .style(style)
            .lines(vec![Line::from(face)])
            .centered()
            .build()
            .render(area, buf),
        None => Line::from(face).style(style).centered().render(area, buf),
    }
}

/// The style of a clock's digits: its state's colour while it is live, grey otherwise.
fn digits_style(c: &ClockView) -> Style {
    let (_, colour) = clock_state(c);
    if is_live(c) {
        Style::new().fg(colour).add_modifier(Modifier::BOLD)
    } else {
        Style::new().fg(Color::Gray)
    }
}

fn is_live(c: &ClockView) -> bool {
    !matches!(
        c.state,
        ClockState::Waiting | ClockState::NotStarted | ClockState::Over
    )
}

/// Whether clock `c` is drawn as `shown` is but for the time on its face: same frame, title,
/// state, colour and period line. Every field is named, so a field added to the clock is decided
/// here.
pub(super) fn only_time_differs(shown: &ClockView, c: &ClockView) -> bool {
    let ClockView {
        side,
        name,
        kind,
        shown_ms: _,
        remaining_ms: _,
        running,
        period,
        moves_made,
        moves_to_control,
        state,
        // In byo-yomi the period line counts periods: drawn whole when anything in it differs.
        byoyomi,
        shogi,
    } = c;
    *side == shown.side
        && *name == shown.name
        && *kind == shown.kind
        && *running == shown.running
        && *period == shown.period
        && *moves_made == shown.moves_made
        && *moves_to_control == shown.moves_to_control
        && *state == shown.state
        && *byoyomi == shown.byoyomi
        && *shogi == shown.shogi
        // The colour turns amber near the end of the time.
        && clock_state(c) == clock_state(shown)
}

/// Draw clock `c` into `buf`, which holds what the terminal shows in `area`: clock `shown` as
/// [`clock`] drew it, or anything else (`None`). When only the time differs, only the face is
/// drawn again; otherwise the whole clock. Either way `buf` ends as [`clock`] draws `c` on an
/// empty buffer. Returns the part of `area` drawn.
pub fn clock_over(shown: Option<&ClockView>, c: &ClockView, area: Rect, buf: &mut Buffer) -> Rect {
    let inner = Rect::new(
        area.x.saturating_add(1),
        area.y.saturating_add(1),
        area.width.saturating_sub(2),
        area.height.saturating_sub(2),
    );
    if let Some(s) = shown
        && inner.height >= 2
        && only_time_differs(s, c)
    {
        let (r, px) = face_area(inner);
        let (face, was) = (face_of(c), face_of(s));
        if let Some(drawn) = glyphs_over(&was, &face, px, digits_style(c), r, buf) {
            return drawn;
        }
        reset(r, buf);
        draw_face(face, px, digits_style(c), r, buf);
        return r;
    }
    buf.reset();
    clock(c, area, buf);
    area
}

fn reset(r: Rect, buf: &mut Buffer) {
    for y in r.top()..r.bottom() {
        for x in r.left()..r.right() {
            buf[(x, y)].reset();
        }
    }
}

/// A big face of as many glyphs as `was` (drawn in `area` as [`draw_face`] draws it): only the
/// glyphs that differ in `face` are drawn again, in the cells BigText lays a centred line out
/// in. Returns the cells drawn (empty when no glyph changed); `None` when the faces differ in
/// length or are not drawn big (then the face is drawn whole).
fn glyphs_over(
    was: &str,
    face: &str,
    px: Option<PixelSize>,
    style: Style,
    area: Rect,
    buf: &mut Buffer,
) -> Option<Rect> {
    // A glyph is 8×8 pixels; each pixel size puts one, two or four of them in a cell.
    let (w, h): (u16, u16) = match px? {
        PixelSize::Full => (8, 8),
        PixelSize::HalfHeight => (8, 4),
        PixelSize::HalfWidth => (4, 8),
        PixelSize::Quadrant => (4, 4),
        _ => return None,
    };
    let n = face.chars().count();
    if n != was.chars().count() {
        return None;
    }
    let line_w = u16::try_from(n.saturating_mul(usize::from(w))).unwrap_or(u16::MAX);
    let left = area.left() + (area.width / 2).saturating_sub(line_w / 2);
    let mut drawn = Rect::new(area.x, area.y, 0, 0);
    let mut x = left;
    for (now, then) in face.chars().zip(was.chars()) {
        if x >= area.right() {
            break;
        }
        if now != then {
            let g = Rect::new(x, area.top(), w.min(area.right() - x), h.min(area.height));
            reset(g, buf);
            BigText::builder()
                .pixel_size(px?)
                .style(style)
                .lines(vec![Line::from(now.to_string())])
                .build()
                .render(g, buf);
            drawn = if drawn.is_empty() { g } else { drawn.union(g) };
        }
        x = x.saturating_add(w);
    }
    Some(drawn)
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
                    (None, true) if *used_ms == 0 => {
                        "unanswered · no consultation recorded, none counted (F8 when the team consults)"
                    }
                    (None, true) => "unanswered · not consulting now",
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
            Panel::Pressed {
                side,
                at_ms,
                spent_ms,
            } => out.push(Line::from(vec![
                tag("PRESSED", Color::Cyan),
                Span::raw(format!(
                    " {side} pressed at {} after {} · type its move (Enter records it)",
                    timefmt::clock(i64::try_from(*at_ms).unwrap_or(i64::MAX)),
                    timefmt::exact(*spent_ms)
                )),
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
            Panel::Handover {
                log_left_ms,
                min_copies,
                log_handed,
                program_left_ms,
                program_handed,
            } => {
                let item = |what: &str, left: &Option<i64>, done: bool| -> Span<'static> {
                    match (done, left) {
                        (true, _) => Span::styled(
                            format!("{what} ✓ archived"),
                            Style::new().fg(Color::Green),
                        ),
                        (false, Some(l)) if *l > 0 => Span::styled(
                            format!("{what} due, {} left", timefmt::short(*l)),
                            Style::new()
                                .fg(if *l < AMBER_MS { AMBER } else { Color::Cyan })
                                .add_modifier(Modifier::BOLD),
                        ),
                        (false, Some(l)) => Span::styled(
                            format!(
                                "{what} LATE by {} (accepted and flagged)",
                                timefmt::short(-*l)
                            ),
                            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
                        ),
                        (false, None) => Span::raw(format!("{what} due (no deadline)")),
                    }
                };
                let mut spans = vec![
                    tag("13 HAND-OVER", Color::Cyan),
                    Span::raw(" "),
                    item(
                        &format!("13a machine's log ({min_copies} copies)"),
                        log_left_ms,
                        *log_handed,
                    ),
                ];
                if program_left_ms.is_some() || *program_handed {
                    spans.push(Span::raw(" · "));
                    spans.push(item("13d program copy", program_left_ms, *program_handed));
                }
                if !*log_handed {
                    spans.push(Span::raw(" · :arbiter archive COPY COPY … [program FILE]"));
                }
                out.push(Line::from(spans));
            }
            // The camps countersign, each seeing what it signs.
            Panel::Countersign { .. } | Panel::CountersignEnd { .. } => {
                out.extend(super::countersign::lines(p));
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
    // In a game under another rulebook (shogi) the panels speak its articles.
    if !view.articles.is_empty() {
        for line in &mut out {
            for span in &mut line.spans {
                span.content = view.reword(&span.content).into();
            }
        }
    }
    out
}

/// The message line, wrapped (never cut).
fn message_paragraph(ui: &UiState) -> Option<Paragraph<'static>> {
    let m = ui.message.as_ref()?;
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
    Some(
        Paragraph::new(Line::from(format!(" {mark} {}", m.text)).style(style))
            .wrap(Wrap { trim: false }),
    )
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
    // One line: a long entry ends in "…" and points at the log page, where it is in full.
    let last = s.last_entry.clone().unwrap_or_else(|| "—".to_string());
    let room = usize::from(area.width).saturating_sub(" last entry: ".len());
    let last = if last.chars().count() > room {
        let cut: String = last.chars().take(room.saturating_sub(10)).collect();
        format!("{cut}… (l: log)")
    } else {
        last
    };
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
        witness_line(s),
    ])
    .render(area, buf);
}

/// Each camp's live witness: connected, how far it cosigned and how many entries it lags; a
/// lost witness is a red alarm (the game goes on).
fn witness_line(s: &Status) -> Line<'static> {
    let mut spans = vec![Span::styled(" witnesses:", Style::new().fg(Color::Gray))];
    for w in &s.witnesses {
        let through = match w.cosigned {
            Some(n) if n > 0 => format!(
                "cosigned through #{}, lag {}",
                n - 1,
                (s.entries as u64).saturating_sub(n)
            ),
            _ => format!("nothing cosigned yet, lag {}", s.entries),
        };
        let red = Style::new().fg(Color::Red).add_modifier(Modifier::BOLD);
        let (text, style) = if let Some(alarm) = &w.alarm {
            let state = if w.connected {
                format!("connected, {through}")
            } else {
                format!("witness LOST, {through}")
            };
            (format!(" {} {alarm} ({state})", w.camp), red)
        } else if w.connected {
            (
                format!(" {} ✓ connected, {through}", w.camp),
                Style::new().fg(Color::Green),
            )
        } else if w.seen {
            (
                format!(" ALARM: {} witness LOST ({through})", w.camp),
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            )
        } else {
            (
                format!(" {} not connected ({through})", w.camp),
                Style::new().fg(AMBER),
            )
        };
        if spans.len() > 1 {
            spans.push(Span::styled(" ·", Style::new().fg(Color::Gray)));
        }
        spans.push(Span::styled(text, style));
    }
    Line::from(spans)
}

fn input_line(view: &View, ui: &UiState, status: &Status, area: Rect, buf: &mut Buffer) {
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
                if view
                    .panels
                    .iter()
                    .any(|p| matches!(p, crate::core::view::Panel::Pressed { .. }))
                {
                    "   Tab completes · Enter names the move the press completed · Esc cancels"
                } else {
                    "   Tab completes · Enter records the move and presses the clock · Esc cancels"
                },
                Style::new().fg(Color::DarkGray),
            ),
        ]),
        (Mode::Line(LineKind::Command), _) => Line::from(vec![
            Span::styled(" : ", Style::new().fg(Color::Black).bg(Color::Cyan)),
            Span::raw(" "),
            Span::raw(ui.line.clone()),
            cursor,
        ]),
        // The game is over; the declared camps are asked to countersign it now
        // (`arbiter countersign` shows each the result, both clocks and every ruling it signs).
        (_, false) if view.phase == Phase::Ended && !view.declarations.camps.is_empty() => {
            let index_left: Vec<&str> = view
                .declarations
                .camps
                .iter()
                .map(|c| c.name.as_str())
                .filter(|n| !status.index_countersigned.iter().any(|d| d == n))
                .collect();
            let ask = match super::countersign::end_camps(view) {
                Some(names) => format!(
                    " CAMPS {}: countersign the result now: arbiter countersign --camp NAME (it shows what is signed), then --index ",
                    names.join(", ")
                ),
                None if index_left.is_empty() => {
                    " CAMPS: the result and the match index are countersigned by every camp ".into()
                }
                None => format!(
                    " CAMPS {}: the result is countersigned; now the match index: arbiter countersign --camp NAME --index ",
                    index_left.join(", ")
                ),
            };
            Line::from(vec![
                Span::styled(ask, Style::new().fg(Color::Black).bg(Color::Cyan)),
                Span::styled("  : command  ? help  q quit", Style::new().fg(Color::Gray)),
            ])
        }
        (_, false) if view.phase == Phase::Ended => Line::from(Span::styled(
            " : command (notes, disputes, rulings)  ? help  q quit",
            Style::new().fg(Color::Gray),
        )),
        _ => {
            let start = match view.phase {
                Phase::Draft | Phase::Opened => "start clock",
                Phase::Playing => "move",
                Phase::Ended => "",
            };
            let playing = view.phase == Phase::Playing;
            let (human, machine) = (
                super::keys::key_name(ui.press_keys.human),
                super::keys::key_name(ui.press_keys.machine),
            );
            let ack = if ui.alarms.is_empty() {
                ""
            } else {
                "acknowledge"
            };
            let keys = [
                ("!", ack),
                (human.as_str(), if playing { "human press" } else { "" }),
                (machine.as_str(), if playing { "machine press" } else { "" }),
                ("Space", start),
                ("s", "stop"),
                ("r", "resume"),
                // Shogi has no draw offers, so no consultation on one (Denryu-sen 13).
                (
                    "F7",
                    if view.shogi.is_some() {
                        ""
                    } else {
                        "draw offer"
                    },
                ),
                ("F8", if view.shogi.is_some() { "" } else { "consult" }),
                ("l", "log"),
                (":", "command"),
                ("?", "help"),
                ("q", "quit"),
            ];
            // The keys that fit, in order of need; `? help` lists them all and is always shown.
            let mut spans = Vec::new();
            let mut used = " ? help  q quit ".len();
            for (k, what) in keys.into_iter().filter(|(_, w)| !w.is_empty()) {
                let w = k.chars().count() + what.chars().count() + 3;
                if (k != "?" && k != "q") && used + w > usize::from(area.width) {
                    continue;
                }
                if k != "?" && k != "q" {
                    used += w;
                }
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

/// The help text for a screen `width` columns wide: keys, then every command grouped by who may
/// use it. Narrower than 100 columns, a command's clause and description go on the line below its
/// words; every line wraps at the width instead of being cut.
pub fn help_lines(width: u16, press: &PressKeys) -> Vec<Line<'static>> {
    help_lines_for(width, press, None)
}

/// Whether a command of [`HELP`] is chess's only: shogi has no draw offers, claims or endgame
/// databases (Denryu-sen 13: the kit judges sennichite and the move cap).
fn chess_only(words: &str) -> bool {
    [
        "draw",
        "claim",
        "consult",
        "tablebase",
        "wrong-move",
        "release-move",
    ]
    .iter()
    .any(|w| words.contains(w))
        || words.starts_with("human ")
}

/// Shogi's own commands, which [`HELP`] names for any game: by side, as shogi names them.
const SHOGI_HELP: &[(&str, &str, &str)] = &[
    ("sente|gote resign", "13.1", "the side resigns"),
    (
        "sente|gote declare",
        "23",
        "the side declares an entering-king win, judged at once",
    ),
    (
        "arbiter no-show sente|gote|both",
        "13.6",
        "the default time passed: the absent side loses (both: 13.7)",
    ),
    (
        "sente|gote consulted TEXT",
        "5.2",
        "what a human consulting an AI consulted",
    ),
    (
        "(the flag)",
        "22.3",
        "out of time when the move's whole seconds pass the time left plus the increment, as shogi-server judges: the flag falls up to the increment (2 s) after the clock shows 0:00:00",
    ),
];

/// [`help_lines`] for the game of `view`: a shogi game is told its own commands (no draw offer,
/// claim or consultation; sente and gote) and its rulebook's articles, not the 2003 clauses.
pub fn help_lines_for(width: u16, press: &PressKeys, view: Option<&View>) -> Vec<Line<'static>> {
    let shogi = view.is_some_and(|v| v.shogi.is_some());
    let cite = |c: &str| view.map_or_else(|| c.to_string(), |v| v.reword(c));
    let head = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
    // The press keys as configured (--human-key / --machine-key), never the defaults' names.
    let (human, machine) = (
        super::keys::key_name(press.human),
        super::keys::key_name(press.machine),
    );
    let keys = [
        (
            "Space / Enter",
            "start the game; during it, open the move line",
        ),
        (
            human.as_str(),
            "the human's press, in any screen state (--human-key maps a pedal)",
        ),
        (
            machine.as_str(),
            "the operator's press for the machine, in any screen state",
        ),
        (
            "a-h N B R Q K O",
            if shogi {
                ""
            } else {
                "start the move line with that letter; Tab / Shift-Tab cycle legal moves"
            },
        ),
        ("s / F5", "arbiter stop (both clocks)"),
        ("r / F6", "arbiter resume"),
        (
            "F7",
            if shogi {
                ""
            } else {
                "human offer-draw (with the move just made)"
            },
        ),
        (
            "F8",
            if shogi {
                ""
            } else {
                "operator consult (the registered team, prefilled)"
            },
        ),
        (
            ":",
            "command line: the words of script mode below; Tab completes, Up/Down recall",
        ),
        (
            "l / F9",
            "the log page: every entry in full (Up/Down/PgUp/PgDn/Home/End, Esc closes)",
        ),
        (
            ":arbiter authorize",
            " the passphrase for entries whose authorization was left pending (Esc at the prompt, 5b)",
        ),
        (
            "Up/Down PgUp/PgDn",
            "scroll the move list back; End follows the game again",
        ),
        (
            "!",
            "acknowledge the red alarms (9e limit, 6c correction owed, 8b window over, restart ruling)",
        ),
        (
            "o",
            if shogi {
                "turn the board round (sente or gote at the bottom)"
            } else {
                "turn the diagram round (White or Black at the bottom)"
            },
        ),
        ("? / F1", "this help (Up/Down/PgUp/PgDn scroll, Esc closes)"),
        ("q / Ctrl-C", "quit (asks y/n); Esc clears the message"),
    ];
    let wide = width >= 100;
    let mut out = vec![Line::from(Span::styled("KEYS", head))];
    for (k, what) in keys.into_iter().filter(|(_, w)| !w.is_empty()) {
        if wide {
            out.push(Line::from(format!("  {k:<18}{what}")));
        } else {
            out.push(Line::from(Span::styled(
                format!("  {k}"),
                Style::new().add_modifier(Modifier::BOLD),
            )));
            out.push(Line::from(format!("      {what}")));
        }
    }
    out.push(Line::from(
        "  Commands that can end the game or change what was played ask y/n first.",
    ));
    let mut who = "";
    let line = |out: &mut Vec<Line<'static>>, words: &str, clause: &str, what: &str| {
        if wide {
            out.push(Line::from(vec![
                Span::raw(format!("  {words:<52}")),
                Span::styled(format!("{clause:>4}  "), Style::new().fg(Color::Cyan)),
                Span::styled(what.to_string(), Style::new().fg(Color::Gray)),
            ]));
        } else {
            out.push(Line::from(format!("  {words}")));
            out.push(Line::from(vec![
                Span::styled(format!("      {clause:<5}"), Style::new().fg(Color::Cyan)),
                Span::styled(what.to_string(), Style::new().fg(Color::Gray)),
            ]));
        }
    };
    for h in HELP {
        if shogi && chess_only(h.words) {
            continue;
        }
        if h.who != who {
            who = h.who;
            out.push(Line::from(""));
            out.push(Line::from(Span::styled(who.to_uppercase(), head)));
        }
        let words = if shogi {
            h.words.replace("white|black", "sente|gote")
        } else {
            h.words.to_string()
        };
        let what = if shogi {
            h.what.replace("White's", "sente's")
        } else {
            h.what.to_string()
        };
        line(&mut out, &words, &cite(h.clause), &what);
    }
    if shogi {
        out.push(Line::from(""));
        out.push(Line::from(Span::styled("SENTE AND GOTE", head)));
        for (words, clause, what) in SHOGI_HELP {
            line(&mut out, words, clause, what);
        }
    }
    out
}

fn help(scroll: u16, press: &PressKeys, view: &View, area: Rect, buf: &mut Buffer) {
    let r = centered(
        area,
        area.width.saturating_sub(2),
        area.height.saturating_sub(2),
    );
    Clear.render(r, buf);
    Paragraph::new(help_lines_for(r.width.saturating_sub(2), press, Some(view)))
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0))
        .block(
            Block::bordered()
                .border_type(BorderType::Double)
                .title(" commands by who may use them · rule clause · Esc closes ")
                .title(Line::from(" ↑↓ PgUp PgDn ").right_aligned()),
        )
        .render(r, buf);
}

fn confirm(view: &View, pending: &Pending, text: &str, area: Rect, buf: &mut Buffer) {
    let (title, yes, what) = match pending {
        Pending::Quit => (
            " quit the board UI? ",
            " = yes, quit            ",
            match view.clocks.iter().find(|c| c.running) {
                // Quitting is no pause: the rules' clock goes on; the arbiter rules on the time
                // the board was away when it is opened again.
                Some(c) => format!(
                    "{}'s clock KEEPS RUNNING: quitting does not pause the game. When the board is opened again it measures the time it was closed, and the arbiter rules on it (arbiter restart-gap waive|charge, 8b). To pause first: n, then s (arbiter stop). The log keeps everything recorded.",
                    c.name
                ),
                None => "No clock is running: the clocks stand as the log holds them. The log keeps everything recorded.".to_string(),
            },
        ),
        Pending::StartWithoutDigest => (
            " 8a: no configuration digest ",
            " = yes, start without it ",
            "Rule 8a wants the machine's configuration document before each game: :arbiter declare config-file PATH."
                .to_string(),
        ),
        Pending::Command(c) if c.needs_confirmation() => (
            " irreversible: confirm ",
            " = yes, record it      ",
            "It can end the game or change what was played: it cannot be undone.".to_string(),
        ),
        Pending::Command(_) => (
            " confirm: the consequence ",
            " = yes, record it      ",
            "Recorded in the log once confirmed (the arbiter's passphrase follows where needed)."
                .to_string(),
        ),
    };
    // A game under another rulebook (shogi) is told its articles, not the 2003 clauses.
    let (title, text, what) = (view.reword(title), view.reword(text), view.reword(&what));
    let (title, text) = (title.as_str(), text.as_str());
    // As wide as the screen allows (up to 100 columns) and as tall as the words: never cut.
    let w = area.width.saturating_sub(2).clamp(20, 100);
    let inner = usize::from(w.saturating_sub(4));
    let rows = super::logpane::wrap(text, inner).len() + super::logpane::wrap(&what, inner).len();
    let h = u16::try_from(rows + 4).unwrap_or(u16::MAX);
    let r = centered(area, w, h);
    Clear.render(r, buf);
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
    dialog(title, lines, r, buf);
}
