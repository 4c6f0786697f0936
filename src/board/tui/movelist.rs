//! The move list in two columns, each move with the time it took and the mover's clock after it,
//! folded from the log through the one times function ([`MoveTimesFold`]); it follows the game
//! and scrolls back (pure). A shogi game lists one move a line as shogi records do: its number
//! (every move counts, 手数), the move in Japanese notation with ▲/△, its time and the mover's
//! clock, in columns measured by display width (a kanji takes two cells).
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::core::event::Event;
use crate::core::game::Phase;
use crate::core::view::View;
use crate::core::{Ms, timefmt};

/// A move's time and the mover's clock after it, as the log records them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveTime {
    pub spent_ms: Ms,
    pub remaining_ms: i64,
}

/// The time of every move on the board, by ply, from the one times function
/// ([`crate::report::times`]): the figures the report and the PGN give (a take-back gives its
/// time to the side's next move, a voided take-back gives the moves back, a corrected wrong move
/// keeps the time of the move it replaces).
pub fn move_times(log: &[Event]) -> Vec<Option<MoveTime>> {
    let mut fold = MoveTimesFold::default();
    let mut out: Vec<Option<MoveTime>> = Vec::new();
    for e in log {
        fold.fold(&mut out, e);
    }
    out
}

/// [`move_times`] one entry at a time: the Board UI folds every entry as it is read or recorded
/// and keeps the result (as long as the moves on the board, not the log) and this fold (the
/// game's standing moves and clock lines).
#[derive(Debug, Clone, Default)]
pub struct MoveTimesFold {
    stream: crate::report::times::TimesStream,
}

impl PartialEq for MoveTimesFold {
    fn eq(&self, other: &Self) -> bool {
        self.stream.moves() == other.stream.moves()
    }
}

impl MoveTimesFold {
    /// Fold entry `e` (the first is `game_opened`); `times` follows the standing moves.
    pub fn fold(&mut self, times: &mut Vec<Option<MoveTime>>, e: &Event) {
        self.stream.push(e);
        self.follow(times);
    }

    /// [`MoveTimesFold::fold`] for an entry applied to a game replayed by the caller
    /// ([`crate::report::times::TimesStream::push_replayed`]); [`MoveTimesFold::resume`] after
    /// the last one.
    pub fn fold_replayed(
        &mut self,
        times: &mut Vec<Option<MoveTime>>,
        e: &Event,
        r: crate::report::times::Replayed<'_>,
    ) {
        self.stream.push_replayed(e, r);
        self.follow(times);
    }

    /// After [`MoveTimesFold::fold_replayed`]: the entries folded made `game`; the next ones are
    /// folded with a copy of it.
    pub fn resume(&mut self, game: &crate::core::game::Game) {
        self.stream.resume(game);
    }

    fn follow(&mut self, times: &mut Vec<Option<MoveTime>>) {
        let Some(from) = self.stream.take_changed() else {
            return;
        };
        let from = from.min(times.len());
        times.truncate(from);
        times.extend(self.stream.moves().iter().skip(from).map(|m| {
            Some(MoveTime {
                spent_ms: m.time_ms.max(0).unsigned_abs(),
                remaining_ms: m.clock_ms,
            })
        }));
    }
}

/// The SAN of each ply (0 = the first side's first move) from the view's numbered list
/// (`12. Nf3`, `12... Nf6`).
fn sans(view: &View) -> Vec<(usize, String)> {
    let first = view.plies.saturating_sub(view.last_moves.len());
    view.last_moves
        .iter()
        .enumerate()
        .map(|(k, m)| {
            let san = m.split_once(' ').map_or(m.as_str(), |(_, s)| s);
            (first + k, san.to_string())
        })
        .collect()
}

/// A move's time as PGN's `%emt` and the report give it (the one function,
/// [`crate::report::pgn::format_elapsed`]), without its leading zero hours: `1:18`, `1:02:03`.
pub fn move_time(spent_ms: Ms) -> String {
    let emt = crate::report::pgn::format_elapsed(spent_ms);
    match emt.strip_prefix("0:") {
        Some(rest) => rest.strip_prefix('0').unwrap_or(rest).to_string(),
        None => emt,
    }
}

/// `Nf3 0:03 1:52:10`: the move, its time, the clock after it; padded to `w`.
fn cell(san: &str, t: Option<&MoveTime>, w: usize) -> String {
    let text = match t {
        Some(t) => format!(
            "{san:<7} {:>5} {:>7}",
            move_time(t.spent_ms),
            timefmt::clock(t.remaining_ms)
        ),
        None => san.to_string(),
    };
    format!("{text:<w$}")
}

/// The rows of the list: `12.  Nf3  0:03 1:52:10   Nf6  0:45 1:50:00`.
pub fn rows(view: &View, times: &[Option<MoveTime>]) -> Vec<String> {
    let moves = sans(view);
    let numbering = view.numbering;
    let mut out = Vec::new();
    let mut i = 0;
    while i < moves.len() {
        let (ply, san) = &moves[i];
        // Numbered as everywhere ([`crate::core::board::Numbering`]): from a start with Black to
        // move, Black's first move is `1. …  e5` and White's reply opens row 2 (as the PGN's
        // `1... e5 2.`); from a FEN's fullmove 23 the first row is 23.
        let n = numbering.number(*ply);
        let t = times.get(*ply).and_then(Option::as_ref);
        if numbering.is_white(*ply) {
            let black = moves.get(i + 1);
            let right = black.map_or(String::new(), |(p, s)| {
                cell(s, times.get(*p).and_then(Option::as_ref), 0)
            });
            out.push(format!("{n:>3}. {}  {right}", cell(san, t, 22)));
            i += 2;
        } else {
            out.push(format!(
                "{n:>3}. {}  {}",
                cell("…", None, 22),
                cell(san, t, 0)
            ));
            i += 1;
        }
    }
    out
}

/// `s` padded with spaces to `w` terminal cells (a kanji or full-width digit takes two).
fn pad(s: &str, w: usize) -> String {
    let used = Span::raw(s).width();
    format!("{s}{}", " ".repeat(w.saturating_sub(used)))
}

/// Cells the widest shogi move takes (`▲４二銀右不成`).
const SHOGI_MOVE_W: usize = 13;

/// The rows of a shogi game's list, one move a line: `  12 △同銀         0:08  0:09:52`.
pub fn shogi_rows(view: &View, times: &[Option<MoveTime>]) -> Vec<String> {
    sans(view)
        .into_iter()
        .map(|(ply, san)| {
            let t = times.get(ply).and_then(Option::as_ref);
            let time = t.map_or(String::new(), |t| {
                format!(
                    " {:>5} {:>8}",
                    move_time(t.spent_ms),
                    timefmt::clock(t.remaining_ms)
                )
            });
            format!("{:>4} {}{time}", ply + 1, pad(&san, SHOGI_MOVE_W))
        })
        .collect()
}

/// Widths of one column of the compact shogi list with the times (24 cells) and without (19).
const SHOGI_COMPACT_W: usize = 24;
const SHOGI_BARE_W: usize = 19;

/// The compact shogi list for a wide screen: `12 △同銀          0:08` (the move's time), or with
/// `timed` false the moves alone, so that several columns fit side by side.
pub fn shogi_compact_rows(view: &View, times: &[Option<MoveTime>], timed: bool) -> Vec<String> {
    sans(view)
        .into_iter()
        .map(|(ply, san)| {
            let t = times
                .get(ply)
                .and_then(Option::as_ref)
                .filter(|_| timed)
                .map_or(String::new(), |t| format!("{:>5}", move_time(t.spent_ms)));
            format!("{:>3} {}{t}", ply + 1, pad(&san, SHOGI_MOVE_W + 1))
        })
        .collect()
}

/// Width of one column pair of the compact list with the moves' times ([`compact_rows`]: 27
/// characters), with a gap of two; and without the times (16 characters).
const COMPACT_W: usize = 29;
const BARE_W: usize = 18;

/// The rows of the compact list, for a wide screen: `12. Nf3   0:03 Nf6   0:45` (the move
/// times, not the clocks), or with `timed` false only the moves (`12. Nf3    Nf6`), so that
/// several column pairs fit side by side.
pub fn compact_rows(view: &View, times: &[Option<MoveTime>], timed: bool) -> Vec<String> {
    let moves = sans(view);
    let t = |p: usize| {
        if !timed {
            return String::new();
        }
        times
            .get(p)
            .and_then(Option::as_ref)
            .map_or(String::new(), |t| format!("{:>5}", move_time(t.spent_ms)))
    };
    let numbering = view.numbering;
    let mut out = Vec::new();
    let mut i = 0;
    while i < moves.len() {
        let (ply, san) = &moves[i];
        let n = numbering.number(*ply);
        if numbering.is_white(*ply) {
            let right = moves
                .get(i + 1)
                .map_or(String::new(), |(p, s)| format!("{s:<6}{}", t(*p)));
            out.push(format!("{n:>2}. {san:<6}{} {right}", t(*ply)));
            i += 2;
        } else {
            let pad = if timed { 5 } else { 0 };
            out.push(format!(
                "{n:>2}. {:<w$} {san:<6}{}",
                "…",
                t(*ply),
                w = 6 + pad
            ));
            i += 1;
        }
    }
    out
}

/// The list's second line: the running move's time so far and the last move, the one line of
/// the list that changes with the time alone (a tick draws only it).
fn this_move_line(view: &View) -> Line<'static> {
    let mut second = Vec::new();
    if let Some(ms) = view.turn_elapsed_ms {
        second.push(format!("this move {}", timefmt::clock(ms as i64)));
    }
    if let Some(m) = view.last_moves.last() {
        second.push(format!("last {m}"));
    }
    Line::from(Span::styled(
        format!(" {}", second.join(" · ")),
        Style::new().fg(Color::Gray),
    ))
}

/// Where [`render`] in `area` draws [`this_move_line`] (its second row), when it does: not
/// once the game is over (nothing in the list then changes with the time).
pub fn this_move_row(view: &View, area: Rect) -> Option<Rect> {
    (view.phase != Phase::Ended && area.height >= 2)
        .then(|| Rect::new(area.x, area.y + 1, area.width, 1))
}

/// Draw [`this_move_line`] alone in `row` (from [`this_move_row`]): the same cells [`render`]
/// draws there.
pub fn render_this_move(view: &View, row: Rect, buf: &mut Buffer) {
    Paragraph::new(vec![this_move_line(view)]).render(row, buf);
}

/// Draw the list in `area`: a heading, the rows ending `back` rows before the latest, and the
/// running move's time so far.
pub fn render(view: &View, times: &[Option<MoveTime>], back: usize, area: Rect, buf: &mut Buffer) {
    if area.height == 0 {
        return;
    }
    let gray = Style::new().fg(Color::Gray);
    let mut lines = Vec::new();
    match view.phase {
        Phase::Ended => lines.push(Line::from(Span::styled(
            " game over",
            Style::new().add_modifier(Modifier::BOLD),
        ))),
        _ => {
            // The side whose clock runs (a press may run ahead of the notation); the board's side
            // to move is named when its notation is still owed.
            let running = view.clocks.iter().position(|c| c.running);
            let side = running.map_or(view.to_move, |i| {
                if i == 0 {
                    crate::core::Side::White
                } else {
                    crate::core::Side::Black
                }
            });
            let mover = &view.clocks[side.index()];
            // A shogi game names its sides sente and gote.
            let side_word = |s: crate::core::Side| {
                if view.shogi.is_some() {
                    crate::core::shogi::side_name(s)
                } else {
                    s.name()
                }
            };
            let owed = if side == view.to_move {
                String::new()
            } else {
                format!(" · {}'s move to enter", side_word(view.to_move))
            };
            lines.push(Line::from(Span::styled(
                format!(
                    " {}: {} · {}{owed}",
                    if running.is_some() {
                        "clock running"
                    } else {
                        "to move"
                    },
                    side_word(side).to_uppercase(),
                    mover.name
                ),
                Style::new().add_modifier(Modifier::BOLD),
            )));
            lines.push(this_move_line(view));
        }
    }
    let shogi = view.shogi.is_some();
    let all = if shogi {
        shogi_rows(view, times)
    } else {
        rows(view, times)
    };
    let (compact_w, bare_w) = if shogi {
        (SHOGI_COMPACT_W, SHOGI_BARE_W)
    } else {
        (COMPACT_W, BARE_W)
    };
    let room = usize::from(area.height).saturating_sub(lines.len() + 1);
    // A wide screen whose one column cannot hold the game: as many compact column pairs as fit,
    // filled from move 1 down, then the next column (the whole game while it fits).
    let width = usize::from(area.width);
    if back == 0 && all.len() > room && width / compact_w >= 2 && room > 0 {
        // With the times if the whole game fits so, else the moves alone.
        let timed = (width / compact_w) * room >= all.len();
        let compact = if shogi {
            shogi_compact_rows(view, times, timed)
        } else {
            compact_rows(view, times, timed)
        };
        let col_w = if timed { compact_w } else { bare_w };
        let pairs = width / col_w;
        let start = compact.len().saturating_sub(pairs * room);
        let shown = &compact[start..];
        lines.push(Line::from(Span::styled(
            match (start, timed) {
                (0, true) => "   the whole game · each move with the time it took".to_string(),
                (0, false) => {
                    "   the whole game · PgUp shows each move's time and clock".to_string()
                }
                (s, _) => format!("   from row {} · PgUp scrolls back", s + 1),
            },
            gray,
        )));
        for r in 0..room.min(shown.len()) {
            let mut text = String::new();
            for c in 0..pairs {
                if let Some(cell) = shown.get(c * room + r) {
                    text.push_str(&pad(cell, col_w));
                }
            }
            lines.push(Line::from(text.trim_end().to_string()));
        }
        Paragraph::new(lines).render(area, buf);
        return;
    }
    let back = back.min(all.len().saturating_sub(room));
    let end = all.len() - back;
    let start = end.saturating_sub(room);
    let heading = if all.is_empty() {
        "  no moves yet".to_string()
    } else if back > 0 {
        format!(
            "  moves {}-{} of {} · End follows the game",
            start + 1,
            end,
            all.len()
        )
    } else if shogi {
        "     # move            took    clock".to_string()
    } else {
        "      white    took   clock    black    took   clock".to_string()
    };
    lines.push(Line::from(Span::styled(heading, gray)));
    for (k, r) in all[start..end].iter().enumerate() {
        let style = if start + k + 1 == all.len() && back == 0 {
            Style::new().add_modifier(Modifier::BOLD)
        } else {
            Style::new()
        };
        lines.push(Line::from(Span::styled(r.clone(), style)));
    }
    Paragraph::new(lines).render(area, buf);
}
