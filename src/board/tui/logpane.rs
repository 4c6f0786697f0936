//! The log page: the entries of the game's log with their number, game time, wall-clock time,
//! actor and clause, and their whole text wrapped to the screen's width; it follows the log and
//! scrolls back (pure).
//!
//! The Board UI keeps only the latest entries ([`LogTail`], at most [`TAIL`] and twice that
//! while it grows), so that its memory does not grow with the log: `[` asks the loop to read the
//! [`PAGE`] entries before the ones shown from the log file ([`crate::board::tui::keys::Action::ReadLog`]),
//! `]` goes the other way, End comes back to the latest.
use std::path::PathBuf;

use chrono::{DateTime, Duration, Utc};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Widget};

use crate::core::event::Event;
use crate::core::timefmt;

use super::describe::full_text;
use super::movelist::{MoveTime, MoveTimesFold};
use super::timing::{clears_alarm, is_alarm_source};

/// Entries the Board UI keeps (the latest); older ones are read from the log file on demand.
pub const TAIL: usize = crate::board::matchdir::EVENTS_KEPT;
/// Entries read from the log file at a time for the log page.
pub const PAGE: usize = 500;

/// What the Board UI keeps of the game's log: the latest entries with the number of the first,
/// an older page read on demand, and what the screen folds from every entry (the moves' times,
/// the entries that raise sticky alarms). Memory is bounded by [`TAIL`] entries, the moves on the
/// board and the alarms, not by the log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogTail {
    /// Entry number of `events[0]`.
    pub first: usize,
    /// The latest entries, oldest first (between [`TAIL`] and twice that once the log is long).
    pub events: Vec<Event>,
    /// An older page read from the log file: the number of its first entry, its entries.
    pub older: Option<(usize, Vec<Event>)>,
    /// Where older entries are read from (none: only the latest can be shown).
    pub path: Option<PathBuf>,
    /// The time of every move on the board, by ply ([`MoveTimesFold`]).
    pub move_times: Vec<Option<MoveTime>>,
    /// What gives `move_times`: the one times function, fed every entry.
    pub move_fold: MoveTimesFold,
    /// The entries that can raise a sticky alarm, with their numbers ([`is_alarm_source`]).
    pub alarm_sources: Vec<(usize, Event)>,
    /// When the clock was started (3): the page's game time counts from it.
    pub clock_started: Option<crate::core::Ms>,
}

impl LogTail {
    /// The latest `events` of a log (`first` is the number of the first) after `folded` folded
    /// every entry before them.
    pub fn new(first: usize, events: Vec<Event>, folded: LogTail) -> LogTail {
        let mut t = LogTail {
            first,
            events: Vec::new(),
            ..folded
        };
        t.events.reserve(events.len());
        for e in events {
            t.keep(e);
        }
        t
    }

    /// Fold an entry read from the log without keeping it (the entries before the tail).
    pub fn fold(&mut self, n: usize, e: &Event) {
        self.move_fold.fold(&mut self.move_times, e);
        self.fold_rest(n, e);
    }

    /// [`LogTail::fold`] for an entry applied to a game replayed by the caller (the open's one
    /// replay: [`crate::board::matchdir::OpenObserver`]); [`LogTail::resume`] after the last one.
    pub fn fold_replayed(&mut self, n: usize, e: &Event, r: crate::report::times::Replayed<'_>) {
        self.move_fold.fold_replayed(&mut self.move_times, e, r);
        self.fold_rest(n, e);
    }

    /// After [`LogTail::fold_replayed`]: `game` is the game the entries folded made, for the
    /// entries recorded from now on.
    pub fn resume(&mut self, game: &crate::core::game::Game) {
        self.move_fold.resume(game);
    }

    fn fold_rest(&mut self, n: usize, e: &Event) {
        if let crate::core::event::EventKind::ClockStarted { .. } = e.kind {
            self.clock_started.get_or_insert(e.at);
        }
        // The entries that raise an alarm, and those that clear one (few: corrections, answers).
        if is_alarm_source(e) || (clears_alarm(e) && !self.alarm_sources.is_empty()) {
            self.alarm_sources.push((n, e.clone()));
        }
    }

    /// The next entry recorded: folded and kept; the oldest are dropped past [`TAIL`].
    pub fn push(&mut self, e: Event) {
        let n = self.len();
        self.fold(n, &e);
        self.keep(e);
    }

    fn keep(&mut self, e: Event) {
        self.events.push(e);
        if self.events.len() >= 2 * TAIL {
            let drop = self.events.len() - TAIL;
            self.events.drain(..drop);
            self.first += drop;
        }
    }

    /// Entries in the log.
    pub fn len(&self) -> usize {
        self.first + self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries the page shows, with the number of the first: the older page if one was read,
    /// else the latest.
    pub fn window(&self) -> (usize, &[Event]) {
        match &self.older {
            Some((first, events)) => (*first, events),
            None => (self.first, &self.events),
        }
    }

    /// The page before the one shown (`[`): its first entry and how many, if there is one.
    pub fn page_before(&self) -> Option<(usize, usize)> {
        let (first, _) = self.window();
        let from = first.saturating_sub(PAGE);
        (first > 0).then_some((from, first - from))
    }

    /// An older page read from the log file: shown until `]` passes the latest or End.
    pub fn show_older(&mut self, first: usize, events: Vec<Event>) {
        self.older = (first < self.first && !events.is_empty()).then_some((first, events));
    }

    /// `]`: the page after the older one shown (back to the latest when it reaches them);
    /// returns its first entry and how many to read, or none when the latest are shown.
    pub fn page_after(&mut self) -> Option<(usize, usize)> {
        let (first, events) = self.older.as_ref()?;
        let next = first + events.len();
        if next >= self.first {
            self.older = None;
            None
        } else {
            Some((next, PAGE.min(self.first - next)))
        }
    }
}

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

/// The page's lines for entries `log` (the first numbered `first`), `w` columns wide: a head line
/// per entry, its text wrapped and indented below.
/// The game time column is each entry's game time, as everywhere (the message line, the panels,
/// the report, the relay, `status`): from the game's first entry (`game_opened`), not from the
/// clock's start.
pub fn lines(
    log: &[Event],
    first: usize,
    utc_origin: Option<DateTime<Utc>>,
    w: usize,
) -> Vec<Line<'static>> {
    let head = Style::new().add_modifier(Modifier::BOLD);
    let gray = Style::new().fg(Color::Gray);
    let clause = Style::new().fg(Color::Cyan);
    let mut out = Vec::new();
    for (k, e) in log.iter().enumerate() {
        let i = first + k;
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

/// Draw the page over the whole screen, ending `back` lines before the newest entry shown.
pub fn render(
    log: &LogTail,
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
        .title_bottom(
            Line::from(if log.first > 0 {
                " ↑↓ PgUp PgDn Home End scroll · [ ] older, newer pages · Esc or l closes "
            } else {
                " ↑↓ PgUp PgDn Home End scroll · Esc or l closes "
            })
            .centered(),
        );
    let inner = block.inner(area);
    block.render(area, buf);
    let (first, shown) = log.window();
    let gray = Style::new().fg(Color::Gray);
    let mut all = Vec::new();
    if first > 0 {
        all.push(Line::styled(
            if log.path.is_some() {
                format!(
                    "  entries #0–#{} are older: [ reads the {} before from the log file",
                    first - 1,
                    PAGE.min(first)
                )
            } else {
                format!(
                    "  entries #0–#{}: see `arbiter report` / the log file",
                    first - 1
                )
            },
            gray,
        ));
    }
    all.extend(lines(shown, first, utc_origin, usize::from(inner.width)));
    let end_entry = first + shown.len();
    if end_entry < log.len() {
        all.push(Line::styled(
            format!(
                "  entries #{end_entry}–#{} are newer: ] reads the next, End shows the latest",
                log.len() - 1
            ),
            gray,
        ));
    }
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
