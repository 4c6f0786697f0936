//! The game clock, as arithmetic: remaining = budget + additions - time used. Nothing counts ticks.
//! At most one side's clock runs (the side whose turn it is); the arbiter can stop it.
use serde::Serialize;

use super::rules::{PeriodAddition, Profile};
use super::{Ms, Side};

/// The turn in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Turn {
    pub side: Side,
    /// Time of this turn already elapsed before the latest stop.
    pub banked: Ms,
    /// When the clock last started running for this turn; `None` while stopped.
    pub since: Option<Ms>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Clock {
    /// Time charged for completed turns, per side (white, black).
    pub used: [Ms; 2],
    /// Time added (increments, penalties) or corrected (either sign), per side.
    pub added: [i64; 2],
    pub turn: Option<Turn>,
    /// Charge each turn's time truncated to whole seconds.
    pub truncate: bool,
}

impl Clock {
    pub fn new(truncate: bool) -> Clock {
        Clock {
            truncate,
            ..Clock::default()
        }
    }

    /// The side whose clock is running, if one is.
    pub fn running(&self) -> Option<Side> {
        self.turn
            .as_ref()
            .filter(|t| t.since.is_some())
            .map(|t| t.side)
    }

    /// Untruncated time of the turn in progress for `side` at `now`.
    pub fn turn_elapsed(&self, side: Side, now: Ms) -> Ms {
        match &self.turn {
            Some(t) if t.side == side => t
                .banked
                .saturating_add(t.since.map_or(0, |s| now.saturating_sub(s))),
            _ => 0,
        }
    }

    /// The time charged for `elapsed` (whole seconds when the profile truncates).
    pub fn charged(&self, elapsed: Ms) -> Ms {
        self.charge(elapsed)
    }

    fn charge(&self, elapsed: Ms) -> Ms {
        if self.truncate {
            elapsed / 1000 * 1000
        } else {
            elapsed
        }
    }

    /// Time consumed by `side` at `now`: completed turns plus the current one (as charged).
    pub fn consumed(&self, side: Side, now: Ms) -> Ms {
        self.used[side.index()].saturating_add(self.charge(self.turn_elapsed(side, now)))
    }

    /// All time available to `side` after `moves` completed moves: unlocked periods + additions.
    pub fn available(&self, profile: &Profile, side: Side, moves: u32) -> i64 {
        i64::try_from(profile.unlocked_budget(side, moves))
            .unwrap_or(i64::MAX)
            .saturating_add(self.added[side.index()])
    }

    /// Remaining time (negative once the flag has fallen).
    pub fn remaining(&self, profile: &Profile, side: Side, moves: u32, now: Ms) -> i64 {
        self.available(profile, side, moves)
            .saturating_sub(i64::try_from(self.consumed(side, now)).unwrap_or(i64::MAX))
    }

    /// What the clock face shows. With `OnMove` this is `remaining`; with `OnFlag` the next
    /// period's time is shown only once the current period's time has run out.
    pub fn displayed(&self, profile: &Profile, side: Side, moves: u32, now: Ms) -> i64 {
        let remaining = self.remaining(profile, side, moves, now);
        if profile.time_control.period_addition == PeriodAddition::OnMove {
            return remaining;
        }
        let consumed = self.consumed(side, now) as i64;
        let adds = self.added[side.index()];
        let unlocked = profile.unlocked_budget(side, moves) as i64;
        let n = profile.periods(side).len();
        for i in 0..n {
            let cum = profile.cumulative_budget(side, i) as i64;
            if cum > unlocked {
                break;
            }
            if cum + adds > consumed {
                return cum + adds - consumed;
            }
        }
        remaining
    }

    /// When the running side's flag falls, if its clock runs. Moves cannot change while it runs,
    /// so this is exact. With truncation a turn is charged in whole seconds, so the flag falls
    /// when the charged time exceeds what is available.
    pub fn flag_at(&self, profile: &Profile, moves_of: impl Fn(Side) -> u32) -> Option<Ms> {
        let t = self.turn.as_ref()?;
        let since = t.since?;
        let avail = self.available(profile, t.side, moves_of(t.side))
            - self.used[t.side.index()] as i64
            - t.banked as i64;
        let more: i64 = if self.truncate {
            // smallest extra elapsed e with floor((banked + e) / 1000) * 1000 > available
            let total_avail = avail + t.banked as i64;
            let need_total = if total_avail < 0 {
                0
            } else {
                (total_avail / 1000 + 1) * 1000
            };
            need_total - t.banked as i64
        } else {
            avail
        };
        Some(since + more.max(0) as Ms)
    }

    /// Start the turn of `side` (at game start, or after a press).
    pub fn start_turn(&mut self, side: Side, now: Ms) {
        self.turn = Some(Turn {
            side,
            banked: 0,
            since: Some(now),
        });
    }

    /// End the current turn, charging its time; returns the time charged. Leaves no turn.
    pub fn end_turn(&mut self, now: Ms) -> Ms {
        let Some(t) = self.turn.take() else { return 0 };
        let elapsed = t.banked + t.since.map_or(0, |s| now.saturating_sub(s));
        let charged = self.charge(elapsed);
        self.used[t.side.index()] += charged;
        charged
    }

    pub fn stop(&mut self, now: Ms) {
        if let Some(t) = self.turn.as_mut()
            && let Some(s) = t.since.take()
        {
            t.banked += now.saturating_sub(s);
        }
    }

    pub fn resume(&mut self, now: Ms) {
        if let Some(t) = self.turn.as_mut()
            && t.since.is_none()
        {
            t.since = Some(now);
        }
    }

    pub fn add(&mut self, side: Side, ms: i64) {
        self.added[side.index()] += ms;
    }
}
