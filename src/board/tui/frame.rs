//! What reaches the terminal each frame (idle cost): the whole screen is drawn only
//! when something but the time changed; a tick of the clock draws again only the widgets that
//! show the time (the two clocks, the move list's "this move"), compares them with what the
//! terminal shows, and writes the cells that differ.
//!
//! The screen is the same either way: [`Painter`] keeps what the terminal shows, and a frame
//! drawn in part is cell for cell the frame [`super::render`] would draw whole (a test compares
//! both over a game, second by second).
use ratatui::backend::Backend;
use ratatui::buffer::{Buffer, Cell, CellDiffOption};
use ratatui::layout::Rect;

use crate::core::Ms;
use crate::core::game::Game;
use crate::core::view::{ClockView, View, ViewStamp};

use super::keys::UiState;
use super::logpane::LogTail;
use super::screen::{Status, Timed, only_time_differs, render_frame, render_timed};

/// What the log page holds, in short: the screen shows entries only through it, and it changes
/// only when an entry is recorded or an older page is read.
#[derive(Debug, Clone, PartialEq, Eq)]
struct LogMark {
    first: usize,
    events: usize,
    older: Option<(usize, usize)>,
    move_times: usize,
    alarm_sources: usize,
    clock_started: Option<crate::core::Ms>,
}

impl LogMark {
    fn of(t: &LogTail) -> LogMark {
        LogMark {
            first: t.first,
            events: t.events.len(),
            older: t.older.as_ref().map(|(n, v)| (*n, v.len())),
            move_times: t.move_times.len(),
            alarm_sources: t.alarm_sources.len(),
            clock_started: t.clock_started,
        }
    }
}

/// The view the last whole frame was drawn from, and where its time-dependent widgets are.
struct Memo {
    area: Rect,
    view: View,
    timed: Timed,
}

/// The Board UI's state beside the view at the last whole frame.
struct BoardMemo {
    /// The screen state without its log ([`LogMark`] stands for it).
    ui: UiState,
    log: LogMark,
    status: Status,
}

/// A time-dependent widget's area: what the terminal shows there, and the next tick's drawing.
struct Part {
    prev: Buffer,
    next: Buffer,
    /// For a clock, the face it shows: a clock whose face is unchanged (the one not running)
    /// is not drawn at all.
    clock: Option<ClockView>,
}

/// Keeps what the terminal shows and writes only what changes.
pub struct Painter {
    shown: Buffer,
    memo: Option<Memo>,
    board: Option<BoardMemo>,
    /// The clocks' and the move list's areas as shown, and the buffer a tick draws them into.
    parts: Vec<Part>,
    /// Whole frames and frames drawn in part since the start (for tests and the bench's notes).
    pub whole: u64,
    pub partial: u64,
}

/// Whether `now` differs from `then` only in what the time changes: the clocks' faces, the
/// running move's time, the next deadline. Everything else (names, states, panels, moves)
/// must be equal. Every field is named, so a field added to the view is decided here.
fn same_but_time(then: &View, now: &View) -> bool {
    let View {
        phase,
        match_id,
        game,
        rules,
        clocks,
        to_move,
        plies,
        last_moves,
        first,
        numbering,
        fen,
        shogi,
        last_move,
        in_check,
        turn_elapsed_ms: _,
        declarations,
        panels,
        next_deadline: _,
        articles,
    } = now;
    *phase == then.phase
        && *game == then.game
        && *to_move == then.to_move
        && *plies == then.plies
        && *first == then.first
        && *numbering == then.numbering
        && *in_check == then.in_check
        && clocks
            .iter()
            .zip(then.clocks.iter())
            .all(|(a, b)| only_time_differs(a, b))
        && *panels == then.panels
        && *last_move == then.last_move
        && *fen == then.fen
        && *shogi == then.shogi
        && *declarations == then.declarations
        && *match_id == then.match_id
        && *rules == then.rules
        && *articles == then.articles
        && *last_moves == then.last_moves
}

/// The view kept from tick to tick: rebuilt (move list, position, declarations)
/// only when an event was applied since, otherwise only retimed ([`Game::retime`]). What it
/// gives is always [`Game::view`] of the same state at the same time.
#[derive(Default)]
pub struct Views {
    kept: Option<(Option<ViewStamp>, View)>,
    /// Views built whole and views retimed since the start (for tests).
    pub rebuilt: u64,
    pub retimed: u64,
}

impl Views {
    /// The view of `game` at `now`, its last `last_n` moves listed.
    pub fn at(&mut self, game: &Game, now: Ms, last_n: usize) -> &View {
        let stamp = game.view_stamp(last_n);
        let view = match self.kept.take() {
            Some((Some(then), mut v)) if Some(then) == stamp => {
                game.retime(&mut v, now);
                self.retimed += 1;
                v
            }
            _ => {
                self.rebuilt += 1;
                game.view(now, last_n)
            }
        };
        &self.kept.insert((stamp, view)).1
    }
}

/// What the terminal shows in `r` (a copy of that part of `shown`).
fn part_of(shown: &Buffer, r: Rect) -> Buffer {
    let mut b = Buffer::empty(r);
    for y in r.top()..r.bottom() {
        for x in r.left()..r.right() {
            b[(x, y)] = shown[(x, y)].clone();
        }
    }
    b
}

/// The cells to write to bring the terminal from `prev` to `next`, two buffers of one area that
/// differ only in `drawn`: those of `drawn` that differ, when each of them is one column wide
/// on both sides (a clock's face); otherwise ratatui's diff of the whole area, which handles
/// wide characters.
fn diff_in<'n>(prev: &Buffer, next: &'n Buffer, drawn: Rect) -> Vec<(u16, u16, &'n Cell)> {
    use unicode_width::UnicodeWidthStr;
    if drawn == next.area {
        return prev.diff(next);
    }
    let one = |c: &Cell| c.symbol().width() == 1 && matches!(c.diff_option, CellDiffOption::None);
    let mut out = Vec::new();
    for y in drawn.top()..drawn.bottom() {
        for x in drawn.left()..drawn.right() {
            let (p, n) = (&prev[(x, y)], &next[(x, y)]);
            if p != n {
                if !(one(p) && one(n)) {
                    return prev.diff(next);
                }
                out.push((x, y, n));
            }
        }
    }
    out
}

/// The screen state `ui` without its log (moved out and back: the log is not copied).
fn ui_without_log(ui: &mut UiState) -> UiState {
    let log = std::mem::take(&mut ui.log);
    let copy = ui.clone();
    ui.log = log;
    copy
}

fn same_ui(then: &UiState, now: &mut UiState) -> bool {
    let log = std::mem::take(&mut now.log);
    let same = *then == *now;
    now.log = log;
    same
}

impl Painter {
    /// A terminal of `area` that shows nothing (just cleared).
    pub fn new(area: Rect) -> Painter {
        Painter {
            shown: Buffer::empty(area),
            memo: None,
            board: None,
            parts: Vec::new(),
            whole: 0,
            partial: 0,
        }
    }

    /// The terminal was cleared (at the start, after a resize): it shows nothing, all is drawn.
    pub fn cleared(&mut self, area: Rect) {
        self.shown = Buffer::empty(area);
        self.memo = None;
        self.parts.clear();
    }

    /// What the terminal shows now.
    pub fn shown(&self) -> &Buffer {
        &self.shown
    }

    /// Bring the terminal to the screen of (`view`, `ui`, `status`), writing only changed cells
    /// and drawing again only what changed.
    pub fn paint<B: Backend>(
        &mut self,
        backend: &mut B,
        view: &View,
        ui: &mut UiState,
        status: &Status,
    ) -> Result<(), B::Error> {
        let same = match &self.board {
            Some(m) => m.status == *status && m.log == LogMark::of(&ui.log) && same_ui(&m.ui, ui),
            None => false,
        };
        let whole = self.whole;
        let screen: &UiState = ui;
        self.paint_screen(
            backend,
            Some(view),
            same,
            |area, buf| render_frame(view, screen, status, area, buf),
            |which, shown, r, buf| render_timed(view, screen, which, shown, r, buf),
        )?;
        if self.whole != whole {
            self.board = Some(BoardMemo {
                ui: ui_without_log(ui),
                log: LogMark::of(&ui.log),
                status: status.clone(),
            });
        }
        Ok(())
    }

    /// Bring the terminal to a screen drawn from `view` (the Board UI's, or the display's: issue
    /// 24; `None`: no game to show), writing only changed cells. `same` says that all the screen
    /// shows besides `view` is as at the last whole frame; then, when `view` differs from that
    /// frame's only in the time,
    /// `timed` draws again only the time-dependent widgets (`Some(i)`: clock `i`; `None`: the
    /// move list's "this move" row) in their areas. Otherwise `whole` draws the whole frame and
    /// says where those widgets are (`None`: something covers them, the next frame is whole).
    /// `timed` draws over a buffer that holds what the terminal shows in its area, and is told
    /// which clock the terminal shows there (so that a tick may draw only a clock's face); it
    /// returns the part of the area it drew.
    pub fn paint_screen<B: Backend>(
        &mut self,
        backend: &mut B,
        view: Option<&View>,
        same: bool,
        whole: impl FnOnce(Rect, &mut Buffer) -> Option<Timed>,
        mut timed: impl FnMut(Option<usize>, Option<&ClockView>, Rect, &mut Buffer) -> Rect,
    ) -> Result<(), B::Error> {
        let area = self.shown.area;
        let kept = match (&self.memo, view) {
            (Some(m), Some(view)) if same && m.area == area && same_but_time(&m.view, view) => {
                Some((m.timed, view))
            }
            _ => None,
        };
        match kept {
            Some((t, view)) => {
                self.partial += 1;
                let parts = [(Some(0), t.clocks[0]), (Some(1), t.clocks[1])]
                    .into_iter()
                    // Of the move list, only its "this move" row changes with the time.
                    .chain(
                        t.moves
                            .and_then(|r| super::movelist::this_move_row(view, r))
                            .map(|r| (None, r)),
                    );
                for (k, (which, r)) in parts.enumerate() {
                    let r = r.intersection(area);
                    if r.is_empty() {
                        continue;
                    }
                    // What the terminal shows there (copied once after a whole frame, then kept
                    // up to date) and the widget drawn again, in buffers kept from tick to tick.
                    // A clock as the last whole frame drew it.
                    let drawn = || {
                        let m = self.memo.as_ref();
                        which.and_then(|i| m.and_then(|m| m.view.clocks.get(i)).cloned())
                    };
                    if self.parts.len() <= k {
                        self.parts.push(Part {
                            prev: part_of(&self.shown, r),
                            next: part_of(&self.shown, r),
                            clock: drawn(),
                        });
                    }
                    if self.parts[k].prev.area != r {
                        self.parts[k] = Part {
                            prev: part_of(&self.shown, r),
                            next: part_of(&self.shown, r),
                            clock: drawn(),
                        };
                    }
                    let part = &mut self.parts[k];
                    let mut shown = None;
                    if let Some(i) = which {
                        let now = view.clocks.get(i);
                        if now.is_some() && part.clock.as_ref() == now {
                            continue;
                        }
                        shown = std::mem::replace(&mut part.clock, now.cloned());
                    }
                    // Drawn over what the terminal shows there (`next` equals `prev` between
                    // ticks): a clock whose time alone changed draws only its face.
                    let drawn = timed(which, shown.as_ref(), r, &mut part.next).intersection(r);
                    let mut rows = Vec::new();
                    let changed = diff_in(&part.prev, &part.next, drawn);
                    for (_, y, _) in &changed {
                        if rows.last() != Some(y) {
                            rows.push(*y);
                        }
                    }
                    backend.draw(changed.into_iter())?;
                    // The whole frame after this one is diffed against `shown`: the rows that
                    // changed are copied whole (a wide character's trailing cells with them).
                    for y in rows {
                        for x in r.left()..r.right() {
                            self.shown[(x, y)] = part.next[(x, y)].clone();
                        }
                    }
                    // `prev` is what the terminal shows again, and `next` equals it.
                    for y in drawn.top()..drawn.bottom() {
                        for x in drawn.left()..drawn.right() {
                            part.prev[(x, y)].clone_from(&part.next[(x, y)]);
                        }
                    }
                }
            }
            None => {
                self.whole += 1;
                let mut next = Buffer::empty(area);
                let timed = whole(area, &mut next);
                backend.draw(self.shown.diff(&next).into_iter())?;
                self.shown = next;
                self.parts.clear();
                self.memo = timed.zip(view).map(|(timed, view)| Memo {
                    area,
                    view: view.clone(),
                    timed,
                });
            }
        }
        backend.flush()
    }
}
