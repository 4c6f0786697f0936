//! What happens between frames on the board's own clocks: a suspend of the machine (8b), the
//! heartbeat while a clock runs, and the passphrase that must follow an entry recorded at the
//! key within [`keys::AUTHORIZE_WITHIN`] (5b); and how long the loop may sleep.
use std::time::{Duration, Instant, SystemTime};

use super::Board;
use crate::board::tui::{Message, Mode, MsgKind, keys, now_ms, timing};
use crate::core::{Ms, Side};

/// The loop's clocks.
pub(super) struct Timers {
    /// The monotonic and the wall clock at the last frame (a suspend stops only the first).
    readings: (Instant, SystemTime),
    /// The last heartbeat.
    beat: Option<Instant>,
    /// When the passphrase was asked for entries recorded at the key (timed commands).
    pub(super) asked_at: Option<Instant>,
}

/// The heartbeat goes with the screen's tick, once a second; a tick may come a little early.
const BEAT_EVERY: Duration = Duration::from_millis(900);

impl Timers {
    pub(super) fn new() -> Timers {
        Timers {
            readings: (Instant::now(), SystemTime::now()),
            beat: None,
            asked_at: None,
        }
    }

    /// How long the loop may sleep: `wait` (the screen's next change, the core's next deadline),
    /// at most until the passphrase asked for is overdue.
    pub(super) fn sleep(&self, wait: Duration) -> Duration {
        match self.asked_at {
            Some(t) => wait.min(
                keys::AUTHORIZE_WITHIN
                    .saturating_sub(t.elapsed())
                    .max(Duration::from_millis(1)),
            ),
            None => wait,
        }
    }
}

impl Board<'_, '_, '_> {
    /// Before each frame: the time missed by a suspend, the heartbeat, what fell due, and a
    /// passphrase not given in time. Returns the game time now.
    pub(super) fn tick(&mut self) -> Ms {
        let running = self.session.game.clock().running();
        self.after_suspend(running);
        let now = now_ms(self.origin, self.offset_ms);
        if running.is_some() {
            self.heartbeat(now);
        }
        self.catch_up(now);
        self.passphrase_overdue(now);
        if !matches!(self.ui.mode, Mode::Authorize { .. }) {
            self.timers.asked_at = None;
        }
        now
    }

    /// A suspend of the machine: the monotonic clock stood still while the wall clock went on.
    /// Real time passed for the players; the clock catches up and the arbiter rules on it as on
    /// a restart (8b).
    fn after_suspend(&mut self, running: Option<Side>) {
        let (mono, wall) = (Instant::now(), SystemTime::now());
        let (was_mono, was_wall) = self.timers.readings;
        let missed = timing::suspended_ms(
            mono.duration_since(was_mono),
            wall.duration_since(was_wall).unwrap_or_default(),
        );
        self.timers.readings = (mono, wall);
        let session = &mut *self.session;
        if let (Some(ms), Some(side)) = (missed, running)
            && session.game.phase() == crate::core::game::Phase::Playing
            && session.restart_gap.is_none()
        {
            self.offset_ms = self.offset_ms.saturating_add(ms);
            session.restart_gap = Some(ms);
            session.restart_side = Some(side);
            self.ui.message = Some(Message::new(
                MsgKind::Refused,
                format!(
                    "SUSPEND: the machine slept {} with {side}'s clock running: arbiter restart-gap waive|charge [H:MM:SS] REASON",
                    crate::core::timefmt::clock(ms as i64)
                ),
            ));
        }
    }

    /// The heartbeat, at the screen's tick while a clock runs.
    fn heartbeat(&mut self, now: Ms) {
        if self.timers.beat.is_some_and(|b| b.elapsed() < BEAT_EVERY) {
            return;
        }
        // The beat's file removed or replaced while the board runs: written again, and the
        // arbiter told on the message line. Not logged: no clock changed and nothing the kit
        // measures was lost (the beat is back within the second); the log records what the
        // rules rule on, and a message is what the arbiter needs to look at the folder.
        if let Some(say) = self.session.storage.heartbeat(now, chrono::Utc::now()) {
            self.ui.message = Some(Message::new(MsgKind::Refused, say));
        }
        self.timers.beat = Some(Instant::now());
    }

    /// 5b: entries recorded at the key whose passphrase did not follow in time stand
    /// unauthorized.
    fn passphrase_overdue(&mut self, now: Ms) {
        let Some(t) = self.timers.asked_at else {
            return;
        };
        let Mode::Authorize {
            words, recorded, ..
        } = &self.ui.mode
        else {
            return;
        };
        if recorded.is_none() || t.elapsed() < keys::AUTHORIZE_WITHIN {
            return;
        }
        let (words, recorded) = (words.clone(), *recorded);
        self.ui.mode = Mode::Clock;
        self.timers.asked_at = None;
        let why = format!(
            "no passphrase within {} s",
            keys::AUTHORIZE_WITHIN.as_secs()
        );
        if let Some(r) = recorded {
            self.left_pending(&words, &why, r, now);
        }
    }
}
