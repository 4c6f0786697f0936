//! The Board UI's key loop, by concern as the game's rule families are: what happens between
//! frames ([`timers`]: the machine's suspend, the heartbeat, the wait for a passphrase), what
//! reaches the terminal ([`redraw`]), what a key does in each mode and dialog ([`act`]), and the
//! record of the arbiter's authority ([`authority`], 5b). This file is the loop itself: one
//! frame, one sleep until the next deadline or key, one key.
mod act;
mod authority;
mod redraw;
mod timers;

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crossterm::event::{self, Event as TermEvent};

use super::backoff::Backoff;
use super::{Authority, HandOver, UiState, after_execute, describe, on_recorded};
use crate::board::session::Session;
use crate::core::Ms;
use crate::core::command::Command;
use crate::core::event::Event;

/// What the shell lends the loop: the log's state, rule 13's hand-over, the arbiter's authority.
pub(super) struct Hooks<'s, 'h, 'a> {
    pub(super) status: &'s mut dyn FnMut(&Session) -> super::Status,
    pub(super) hand_over: &'h mut HandOver<'h>,
    pub(super) authority: &'a Authority<'a>,
}

/// The board's state between keys: the session, the screen's state, and what the loop keeps.
struct Board<'s, 'h, 'a> {
    session: &'s mut Session,
    ui: UiState,
    /// The latest entry this screen recorded, for a shell whose status does not say.
    last: Option<String>,
    /// Game time is `offset_ms + origin.elapsed()` (a suspend of the machine adds to the offset).
    origin: Instant,
    offset_ms: u64,
    hand_over: &'h mut HandOver<'h>,
    authority: &'a Authority<'a>,
    /// Failed passphrases in a row: the prompt takes the next one only after a doubling wait.
    backoff: Backoff,
    /// Keys read, with the instant each came, while the loop was busy checking a passphrase.
    queued: VecDeque<(Instant, TermEvent)>,
    timers: timers::Timers,
}

/// Whether the loop goes on after a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Next,
    Quit,
}

pub(super) fn run_loop(
    terminal: &mut ratatui::DefaultTerminal,
    session: &mut Session,
    origin: Instant,
    offset_ms: u64,
    hooks: Hooks<'_, '_, '_>,
    ui: UiState,
) -> std::io::Result<()> {
    let Hooks {
        status,
        hand_over,
        authority,
    } = hooks;
    let mut redraw = redraw::Redraw::new(terminal, status)?;
    let mut b = Board {
        session,
        ui,
        last: None,
        origin,
        offset_ms,
        hand_over,
        authority,
        backoff: Backoff::default(),
        queued: VecDeque::new(),
        timers: timers::Timers::new(),
    };
    loop {
        let now = b.tick();
        let (wait, alarm) = redraw.frame(terminal, &mut b, now)?;
        let wait = b.timers.sleep(wait);
        // Keys that came while a passphrase was being checked go first, each with its own time.
        let Some((at, ev)) = b.next_event(wait)? else {
            continue;
        };
        redraw.seen();
        let key = match ev {
            TermEvent::Key(key) => key,
            // After a resize the terminal is cleared and the screen redrawn from state alone.
            TermEvent::Resize(w, h) => {
                redraw.resized(terminal, w, h)?;
                continue;
            }
            // A focus change or paste needs only the next frame.
            _ => continue,
        };
        if b.on_key(key, at, alarm) == Flow::Quit {
            return Ok(());
        }
    }
}

impl Board<'_, '_, '_> {
    /// The next terminal event: one held while a passphrase was checked, or one read within
    /// `wait` (`None`: the wait ended first).
    fn next_event(&mut self, wait: Duration) -> std::io::Result<Option<(Instant, TermEvent)>> {
        if let Some(held) = self.queued.pop_front() {
            return Ok(Some(held));
        }
        if !event::poll(wait)? {
            return Ok(None);
        }
        let ev = event::read()?;
        Ok(Some((Instant::now(), ev)))
    }

    /// Note the latest of `events`, recorded by this screen.
    fn remember(&mut self, events: &[Event]) {
        if let Some(e) = events.last() {
            self.last = Some(format!(
                "#{} {}",
                self.session.storage.len().saturating_sub(1),
                describe::describe_event_as(e, self.session.game.board().shogi().is_some())
            ));
        }
    }

    /// Record what fell due by `now` (a flag, a 9e limit, an 8b window) unless the log is frozen.
    fn catch_up(&mut self, now: Ms) {
        if self.session.frozen.is_some() {
            return;
        }
        match self.session.catch_up(now) {
            Ok(events) => {
                on_recorded(&mut self.ui, &events);
                self.remember(&events);
            }
            Err(e) => after_execute(&mut self.ui, &Err(e), self.session.storage.len()),
        }
    }

    /// Run `cmd` through the session at `now` (rule 13's hand-over through the shell's hook) and
    /// tell the screen what was recorded.
    fn record(&mut self, cmd: &Command, now: Ms) {
        if let Command::HandOverFiles {
            copies,
            program,
            side,
        } = cmd
        {
            match (self.hand_over)(self.session, copies, program.as_deref(), *side) {
                Ok((events, summary)) => {
                    self.remember(&events);
                    after_execute(&mut self.ui, &Ok(events), self.session.storage.len());
                    self.ui.message = Some(super::Message::new(
                        super::MsgKind::Done,
                        summary.replace('\n', " · "),
                    ));
                }
                Err(e) => {
                    self.ui.submitted = None;
                    self.ui.message = Some(super::Message::new(super::MsgKind::Refused, e));
                }
            }
        } else {
            let r = self.session.execute(cmd, now);
            if let Ok(events) = &r {
                self.remember(events);
            }
            after_execute(&mut self.ui, &r, self.session.storage.len());
        }
    }
}

/// Game time at the instant `at` (a key's arrival), as [`super::now_ms`] gives it for now.
fn ms_at(origin: Instant, offset_ms: u64, at: Instant) -> Ms {
    offset_ms.saturating_add(
        u64::try_from(at.saturating_duration_since(origin).as_millis()).unwrap_or(u64::MAX),
    )
}
