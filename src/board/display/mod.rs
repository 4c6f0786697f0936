//! `arbiter display`: the read-only second screen for the player and the audience.
//!
//! It opens nothing for writing (no key, no passphrase, no lock, no file in the match folder),
//! follows the logs as the board appends ([`crate::board::follow`]: change notification, polling as a
//! fallback), and draws the game from the log with the core's own clock: the time shown is the
//! latest entry's game time plus the wall time since it was written, which is what the board's
//! clock reads. It follows the board across a restart (the log is only read) and on to the next
//! game. One key: `q`.
//!
//! At idle it costs no more than the board: [`Display`] keeps the view and retimes it,
//! and paints with the Board UI's own [`Painter`], so a tick of the clock draws only the clocks and
//! the "this move" row and writes only the cells that changed; the folder is looked at when it
//! changes (or at the safety poll), not at every tick.
//!
//! The werewolf table's screens live here too ([`werewolf`]): the audience's (read-only, as
//! above) and the game master's (`play` and `serve` on a werewolf match), whose acts ([`gm`])
//! the shell hands to the table; the screen itself writes nothing in the match folder.
pub mod gm;
pub mod screen;
pub mod werewolf;

use std::path::Path;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use crossterm::event::{Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::backend::Backend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::board::follow::{MatchTail, Wake, Watch, wait};
use crate::board::relay::Relay;
use crate::board::tui::frame::{Painter, Views};
pub use screen::{Shown, render};

/// What the display shows of the match at wall time `now`. Pure given the tail.
pub fn shown(m: &MatchTail, now: DateTime<Utc>) -> Shown {
    let mut s = around(m);
    let Some((g, game)) = m
        .current()
        .and_then(|g| g.game.as_ref().map(|game| (g, game)))
    else {
        return s;
    };
    let at = g.game_time_at(now).unwrap_or(game.last_at());
    s.view = Some(game.view(at, usize::MAX));
    s
}

/// What the display shows of the match besides the game's view (`view` is `None`): the match
/// score, the note and the moves' times, as [`shown`] gives them. Pure given the tail.
fn around(m: &MatchTail) -> Shown {
    let mut s = Shown {
        score: crate::board::tui::score_text(&m.score()),
        ..Shown::default()
    };
    let Some(g) = m.current() else {
        s.note = Some(format!(
            "waiting for the board: no game in {} yet",
            m.dir.display()
        ));
        return s;
    };
    if let Some(p) = m.games.iter().rev().find_map(|g| g.problem.as_ref()) {
        s.note = Some(format!("the log cannot be followed further: {p}"));
    }
    if g.game.is_some() {
        s.times = crate::board::tui::movelist::move_times(&g.events);
    }
    s
}

/// What the tail holds, in short: the display's words, score and move times change only with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TailMark {
    games: usize,
    entries: usize,
    problems: usize,
}

impl TailMark {
    fn of(m: &MatchTail) -> TailMark {
        TailMark {
            games: m.games.len(),
            entries: m.games.iter().map(|g| g.events.len()).sum(),
            problems: m.games.iter().filter(|g| g.problem.is_some()).count(),
        }
    }
}

/// How the display is drawn, and its shell's notes: `note` (the relay's) replaces the display's
/// own, `fallback` (polling instead of change notification) shows when there is none.
#[derive(Debug, Clone, Default)]
pub struct Look {
    pub ascii: bool,
    pub no_color: bool,
    pub note: Option<String>,
    pub fallback: Option<String>,
    /// The board was last seen alive at this wall time and its heartbeat has stopped while a
    /// clock runs ([`board_offline`]): the clocks shown stand at that moment, marked offline.
    pub offline_since: Option<DateTime<Utc>>,
}

/// How long the board's heartbeat may be silent, a clock running, before the display marks the
/// board offline (the board beats every second).
pub const OFFLINE_AFTER: Duration = Duration::from_millis(2_500);

/// When the board of `m`'s current game was last seen alive, if a clock runs there and neither
/// its heartbeat (`game-<n>/heartbeat`, rewritten every second while a clock runs) nor an entry
/// has come for [`OFFLINE_AFTER`] before `now`: the official clock is out of sight, and the
/// display must not run one of its own. `beat` is the heartbeat file's last write, if any.
pub fn board_offline(
    m: &MatchTail,
    beat: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let g = m.current()?;
    let game = g.game.as_ref()?;
    if game.phase() != crate::core::game::Phase::Playing || game.clock().running().is_none() {
        return None;
    }
    let entry = g.stamps.last().map(|s| s.utc);
    let seen = match (beat, entry) {
        (Some(b), Some(e)) => b.max(e),
        (b, e) => b.or(e)?,
    };
    let silent = (now - seen).to_std().unwrap_or_default();
    (silent > OFFLINE_AFTER).then_some(seen)
}

/// The last write of the heartbeat file of `m`'s current game.
pub fn heartbeat_written(m: &MatchTail) -> Option<DateTime<Utc>> {
    if m.is_live() {
        return None;
    }
    let g = m.current()?;
    let path = crate::record::layout::heartbeat_path(&m.dir, g.number);
    let t = std::fs::metadata(path).ok()?.modified().ok()?;
    Some(DateTime::<Utc>::from(t))
}

/// The note of a board offline since `seen`.
pub fn offline_note(seen: DateTime<Utc>) -> String {
    format!(
        "BOARD OFFLINE: no heartbeat from the board since {} UTC; the clocks shown stand as they were then (the official clock is out of sight)",
        seen.format("%H:%M:%S")
    )
}

/// What the display keeps from frame to frame (idle cost): the view, retimed at a tick
/// and built again only after an entry ([`Views`]); the score, the note and the moves' times,
/// folded again only when the tail took in entries; and the Board UI's [`Painter`], so a tick
/// draws only the clocks and the "this move" row and writes only the cells that changed.
/// What reaches the terminal is, cell for cell, [`render`] of [`shown`] at the same time.
pub struct Display {
    painter: Painter,
    views: Views,
    around: Shown,
    base_note: Option<String>,
    mark: Option<TailMark>,
}

impl Display {
    /// A terminal of `area` that shows nothing (just cleared).
    pub fn new(area: Rect) -> Display {
        Display {
            painter: Painter::new(area),
            views: Views::default(),
            around: Shown::default(),
            base_note: None,
            mark: None,
        }
    }

    /// The terminal was cleared (at a resize): all is drawn again.
    pub fn cleared(&mut self, area: Rect) {
        self.painter.cleared(area);
    }

    /// What the terminal shows now.
    pub fn shown(&self) -> &Buffer {
        self.painter.shown()
    }

    /// Whole frames and frames drawn in part since the start.
    pub fn frames(&self) -> (u64, u64) {
        (self.painter.whole, self.painter.partial)
    }

    /// Bring the terminal to the display of `m` at wall time `now`; returns how long it may wait
    /// before the screen changes with the time alone (the next second of a running clock, the
    /// core's next deadline), `None` when nothing on it runs.
    pub fn paint<B: Backend>(
        &mut self,
        backend: &mut B,
        m: &MatchTail,
        now: DateTime<Utc>,
        look: &Look,
    ) -> Result<Option<Duration>, B::Error> {
        let mut same = true;
        let mark = TailMark::of(m);
        if self.mark != Some(mark) {
            let fresh = around(m);
            self.base_note = fresh.note;
            self.around.score = fresh.score;
            self.around.times = fresh.times;
            // A log read again from its start may reach the same stamp with other entries.
            self.views = Views::default();
            self.mark = Some(mark);
            same = false;
        }
        let offline = look.offline_since.map(offline_note);
        let note = offline
            .as_ref()
            .or(look.note.as_ref())
            .or(self.base_note.as_ref())
            .or(look.fallback.as_ref());
        if self.around.note.as_ref() != note
            || self.around.ascii != look.ascii
            || self.around.no_color != look.no_color
        {
            self.around.note = note.cloned();
            self.around.ascii = look.ascii;
            self.around.no_color = look.no_color;
            same = false;
        }
        let game = m
            .current()
            .and_then(|g| g.game.as_ref().map(|game| (g, game)));
        // A board offline: its clock is not seen, so none runs here (it stands as last seen).
        let seen = look.offline_since.map_or(now, |t| t.min(now));
        let (view, wait) = match game {
            Some((g, game)) => {
                let at = g.game_time_at(seen).unwrap_or(game.last_at());
                let v = self.views.at(game, at, usize::MAX);
                let wait = if look.offline_since.is_some() {
                    None
                } else {
                    Some(crate::board::tui::wait_for(v, at))
                };
                (Some(v), wait)
            }
            None => (None, None),
        };
        let s = &self.around;
        self.painter.paint_screen(
            backend,
            view,
            same,
            |area, buf| screen::render_frame(s, view, area, buf),
            |which, shown, r, buf| match view {
                Some(v) => screen::render_timed(s, v, which, shown, r, buf),
                None => Rect::default(),
            },
        )?;
        Ok(wait)
    }
}

/// The note when the folder is polled instead of watched.
fn polling(watch: &Watch) -> Option<String> {
    match watch {
        Watch::Poll(why) => Some(format!("{why}: polling")),
        Watch::Notify(_) | Watch::Live => None,
    }
}

/// Whether a key asks to quit: `q`, or Ctrl-C (the terminal is raw, so it arrives as a key).
fn quits(ev: &TermEvent) -> bool {
    let TermEvent::Key(k) = ev else {
        return false;
    };
    k.kind != KeyEventKind::Release
        && (matches!(k.code, KeyCode::Char('q') | KeyCode::Char('Q'))
            || (k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL)))
}

/// Run the display on match folder `dir` (game `only`, or the latest and the ones after it)
/// until `q`; with `relay`, keep its file up to date as well.
pub fn run(dir: &Path, only: Option<u32>, relay: Option<Relay>) -> std::io::Result<()> {
    run_from(dir, None, only, relay)
}

/// [`run`], following the live record at `connect` (`ws://HOST:PORT/live`) instead of the
/// folder when given: read-only, nothing written anywhere but the relay's own file.
pub fn run_from(
    dir: &Path,
    connect: Option<&str>,
    only: Option<u32>,
    mut relay: Option<Relay>,
) -> std::io::Result<()> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(std::io::Error::other(
            "arbiter display needs a terminal (stdin and stdout); for a file, use arbiter relay",
        ));
    }
    let (tx, rx) = std::sync::mpsc::channel::<Wake<TermEvent>>();
    let (mut m, mut watch) = match connect {
        Some(url) => (MatchTail::connect(url, only, tx.clone()), Watch::Live),
        None => {
            let m = MatchTail::new(dir, only);
            let w = Watch::start(dir, tx.clone());
            (m, w)
        }
    };
    m.poll();
    watch.follow(&m);
    let mut terminal = match ratatui::try_init() {
        Ok(t) => t,
        Err(e) => {
            let _ = ratatui::try_restore();
            return Err(e);
        }
    };
    // Keys come on their own thread, so one wait covers keys, appends and the next second.
    std::thread::spawn(move || {
        loop {
            match crossterm::event::read() {
                Ok(ev) => {
                    if tx.send(Wake::Input(ev)).is_err() {
                        break;
                    }
                }
                Err(e) => {
                    let _ = tx.send(Wake::InputGone(e.to_string()));
                    break;
                }
            }
        }
    });
    let look = Look {
        ascii: !crate::board::tui::terminal::utf8_locale(),
        no_color: crate::board::tui::terminal::no_color(),
        note: None,
        fallback: polling(&watch),
        offline_since: None,
    };
    let result = (|| -> std::io::Result<()> {
        let mut look = look;
        // The backend's own clear: the terminal's would ask for the cursor's position, an answer
        // the key thread would take from stdin.
        terminal.backend_mut().clear()?;
        terminal.hide_cursor()?;
        let size = terminal.size()?;
        let mut display = Display::new(Rect::new(0, 0, size.width, size.height));
        let mut polled = Instant::now();
        loop {
            let now = Utc::now();
            look.offline_since = board_offline(&m, heartbeat_written(&m), now);
            if let Some(r) = relay.as_mut() {
                look.note = r
                    .update(&m, now)
                    .err()
                    .map(|e| format!("relay NOT written: {e}"));
            }
            let shown = display.paint(terminal.backend_mut(), &m, now, &look)?;
            // The folder is looked at when it changed, or at the poll period (brisk after an
            // append, else the safety poll): a tick of the clock alone reads nothing.
            let every = m.poll_every(&watch);
            let mut timeout = every.saturating_sub(polled.elapsed());
            if let Some(d) = shown {
                timeout = timeout.min(d);
            }
            // A clock runs (or stands offline): the heartbeat is looked at every half second, so
            // that a board gone is marked within 3 s and one back is seen at once.
            if board_offline(&m, None, now).is_some() || look.offline_since.is_some() {
                timeout = timeout.min(Duration::from_millis(500));
            }
            if let Some(r) = &relay
                && let Some(d) = crate::board::relay::next_reveal(&m, now, r.delay)
            {
                timeout = timeout.min(d + Duration::from_millis(1));
            }
            let mut look_again = false;
            for w in wait(&rx, timeout.max(Duration::from_millis(1))) {
                match w {
                    Wake::Input(ev) if quits(&ev) => return Ok(()),
                    Wake::InputGone(why) => return Err(std::io::Error::other(why)),
                    // After a resize the terminal is cleared and the screen drawn whole.
                    Wake::Input(TermEvent::Resize(w, h)) => {
                        terminal.backend_mut().clear()?;
                        display.cleared(Rect::new(0, 0, w, h));
                    }
                    Wake::Folder => look_again = true,
                    Wake::Input(_) => {}
                }
            }
            // A wake in the period's second half looks too: the safety poll rides on a tick.
            if look_again || polled.elapsed() >= every / 2 {
                if m.poll() {
                    watch.follow(&m);
                    look.fallback = polling(&watch).or_else(|| m.live_problem.clone());
                }
                polled = Instant::now();
            }
        }
    })();
    let restored = ratatui::try_restore();
    result.and(restored)
}
