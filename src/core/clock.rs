//! The game clock, as arithmetic: remaining = budget + additions - time used. Nothing counts ticks.
//! At most one side's clock runs (the side whose turn it is); the arbiter can stop it.
use serde::Serialize;

use super::rules::{DelayKind, FlagRule, PeriodAddition, Profile, Rounding};

/// What a side may spend on a move, as its flag rule counts it.
struct Limit {
    /// Main time usable for the move (with the shogi-server rule, its increment included).
    usable: i64,
    /// Byo-yomi periods left and their length.
    byoyomi: Option<(u32, Ms)>,
    /// 1 when the rule lets a coarse clock reach zero (the flag falls when it passes), else 0.
    strict: i64,
}
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
    /// Time added (increments, byo-yomi, penalties) or corrected (either sign), per side.
    pub added: [i64; 2],
    pub turn: Option<Turn>,
    /// How each turn's time is rounded before it is charged.
    pub rounding: Rounding,
    /// Byo-yomi periods each side has lost.
    pub byoyomi_lost: [u32; 2],
}

/// Byo-yomi as a clock face shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ByoyomiFace {
    /// Periods left, counting the one running.
    pub periods_left: u32,
    /// The length of a period.
    pub period_ms: Ms,
    /// The main time is spent: the side plays in byo-yomi.
    pub in_byoyomi: bool,
    /// Time left in the current period (a whole period when the side's clock does not run).
    pub period_left_ms: Ms,
}

/// What the clock decides about one move: the time charged, what is added, what is left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MoveFigures {
    /// Time charged: the elapsed time less a simple delay, rounded.
    pub spent: Ms,
    /// Increment added after the move (Fischer, plus a Bronstein delay's give-back).
    pub increment: Ms,
    /// Time given back because the move was made in byo-yomi (the main time stays at zero).
    pub byoyomi_refund: Ms,
    /// Byo-yomi periods that ran out during the move.
    pub periods_lost: u32,
    /// The mover's remaining main time after the move.
    pub remaining: i64,
}

fn to_i64(ms: Ms) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

impl Clock {
    pub fn new(rounding: Rounding) -> Clock {
        Clock {
            rounding,
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

    /// The time charged for `elapsed` with no delay (rounded as the profile says).
    pub fn charged(&self, elapsed: Ms) -> Ms {
        self.rounding.apply(elapsed)
    }

    /// Time consumed by `side` at `now`, after `moves` completed moves: completed turns plus the
    /// current one (less its simple delay, rounded).
    pub fn consumed(&self, profile: &Profile, side: Side, moves: u32, now: Ms) -> Ms {
        let (delay, kind) = profile.delay_for_move(side, moves.saturating_add(1));
        let simple = if kind == DelayKind::Simple { delay } else { 0 };
        let turn = self.turn_elapsed(side, now).saturating_sub(simple);
        self.used[side.index()].saturating_add(self.rounding.apply(turn))
    }

    /// All time available to `side` after `moves` completed moves: unlocked periods + additions.
    pub fn available(&self, profile: &Profile, side: Side, moves: u32) -> i64 {
        to_i64(profile.unlocked_budget(side, moves)).saturating_add(self.added[side.index()])
    }

    /// Remaining main time (negative once the flag has fallen, or in byo-yomi).
    pub fn remaining(&self, profile: &Profile, side: Side, moves: u32, now: Ms) -> i64 {
        self.available(profile, side, moves)
            .saturating_sub(to_i64(self.consumed(profile, side, moves, now)))
    }

    /// Byo-yomi periods `side` still has (None without byo-yomi).
    pub fn byoyomi_left(&self, profile: &Profile, side: Side) -> Option<u32> {
        profile
            .byoyomi(side)
            .map(|b| b.periods.saturating_sub(self.byoyomi_lost[side.index()]))
    }

    /// Byo-yomi as the clock face shows it at `now` (None without byo-yomi): once the main time
    /// is spent, the time into byo-yomi of the turn in progress runs down the current period; each
    /// whole period it passes is lost, as [`Clock::move_figures`] counts them.
    pub fn byoyomi_face(
        &self,
        profile: &Profile,
        side: Side,
        moves: u32,
        now: Ms,
    ) -> Option<ByoyomiFace> {
        let period = profile.byoyomi(side)?.seconds.saturating_mul(1000).max(1);
        let left = self.byoyomi_left(profile, side)?;
        let remaining = self.remaining(profile, side, moves, now);
        if remaining > 0 {
            return Some(ByoyomiFace {
                periods_left: left,
                period_ms: period,
                in_byoyomi: false,
                period_left_ms: period,
            });
        }
        let over = remaining.unsigned_abs();
        let lost = u32::try_from(over / period).unwrap_or(u32::MAX);
        let periods_left = left.saturating_sub(lost);
        Some(ByoyomiFace {
            periods_left,
            period_ms: period,
            in_byoyomi: true,
            period_left_ms: if periods_left == 0 {
                0
            } else {
                period - over % period
            },
        })
    }

    /// What the clock face shows. With `OnMove` this is `remaining`; with `OnFlag` the next
    /// period's time is shown only once the current period's time has run out.
    pub fn displayed(&self, profile: &Profile, side: Side, moves: u32, now: Ms) -> i64 {
        let remaining = self.remaining(profile, side, moves, now);
        if profile.time_control.period_addition == PeriodAddition::OnMove {
            return remaining;
        }
        let consumed = to_i64(self.consumed(profile, side, moves, now));
        let adds = self.added[side.index()];
        let mut cum = to_i64(profile.initial_increment(side));
        for slot in profile.schedule(side).take_while(|s| s.start <= moves) {
            cum = cum.saturating_add(to_i64(slot.period.seconds.saturating_mul(1000)));
            if cum.saturating_add(adds) > consumed {
                return cum + adds - consumed;
            }
        }
        remaining
    }

    /// The clock's figures for a move by `side` after `moves_before` completed moves, made when
    /// its turn has lasted `elapsed` (unrounded). The one place a move's time is decided.
    pub fn move_figures(
        &self,
        profile: &Profile,
        side: Side,
        moves_before: u32,
        elapsed: Ms,
    ) -> MoveFigures {
        let n = moves_before.saturating_add(1);
        let (delay, kind) = profile.delay_for_move(side, n);
        let (spent, bronstein) = match kind {
            DelayKind::Simple => (self.rounding.apply(elapsed.saturating_sub(delay)), 0),
            DelayKind::Bronstein => {
                let spent = self.rounding.apply(elapsed);
                (spent, spent.min(delay))
            }
        };
        let fischer = profile.increment_for_move(side, n);
        let increment = fischer.saturating_add(bronstein);
        let (byoyomi_refund, periods_lost) = match self.limit(profile, side, moves_before) {
            Limit {
                usable,
                byoyomi: Some((_, period)),
                strict,
                ..
            } => {
                let spent = to_i64(spent);
                let refund = u64::try_from(spent.saturating_sub(usable)).unwrap_or(0);
                let over = spent.saturating_sub(usable).saturating_sub(strict);
                let lost = if over < 0 {
                    0
                } else {
                    u32::try_from(over / to_i64(period).max(1)).unwrap_or(u32::MAX)
                };
                (refund, lost)
            }
            _ => (0, 0),
        };
        let remaining = self
            .available(profile, side, n)
            .saturating_add(to_i64(increment))
            .saturating_add(to_i64(byoyomi_refund))
            .saturating_sub(to_i64(self.used[side.index()].saturating_add(spent)));
        MoveFigures {
            spent,
            increment,
            byoyomi_refund,
            periods_lost,
            remaining,
        }
    }

    /// What `side` may spend on its next move (after `moves` completed moves) before its flag
    /// falls, as the profile's flag rule counts it.
    fn limit(&self, profile: &Profile, side: Side, moves: u32) -> Limit {
        let tc = &profile.time_control;
        let main = self
            .available(profile, side, moves)
            .saturating_sub(to_i64(self.used[side.index()]));
        let byoyomi = profile.byoyomi(side).map(|b| {
            (
                b.periods.saturating_sub(self.byoyomi_lost[side.index()]),
                b.seconds.saturating_mul(1000),
            )
        });
        let base = if byoyomi.is_some() { main.max(0) } else { main };
        let (usable, strict) = match tc.flag {
            FlagRule::ShogiServer => (
                base.saturating_add(to_i64(
                    profile.increment_for_move(side, moves.saturating_add(1)),
                )),
                0,
            ),
            FlagRule::AtZero => (base, i64::from(self.rounding.unit_ms() > 1)),
        };
        Limit {
            usable,
            byoyomi,
            strict,
        }
    }

    /// When the running side's flag falls, if its clock runs. Moves cannot change while it runs,
    /// so this is exact: the first instant the time charged for the turn (less a simple delay,
    /// rounded) reaches what the flag rule allows.
    pub fn flag_at(&self, profile: &Profile, moves_of: impl Fn(Side) -> u32) -> Option<Ms> {
        let t = self.turn.as_ref()?;
        let since = t.since?;
        let moves = moves_of(t.side);
        let l = self.limit(profile, t.side, moves);
        let extra = l.byoyomi.map_or(0, |(left, period)| {
            i64::from(left).saturating_mul(to_i64(period))
        });
        // The charged time must reach `need` for the flag to fall.
        let need = l.usable.saturating_add(l.strict).saturating_add(extra);
        // A clock already below zero has fallen; one at exactly zero falls when a simple delay ends.
        let total = if need < 0 {
            0
        } else {
            let unit = self.rounding.unit_ms();
            let need = u64::try_from(need).unwrap_or(u64::MAX);
            let rounded_up = need.div_ceil(unit).saturating_mul(unit);
            let (delay, kind) = profile.delay_for_move(t.side, moves.saturating_add(1));
            let simple = if kind == DelayKind::Simple { delay } else { 0 };
            rounded_up.saturating_add(simple)
        };
        Some(since.saturating_add(total.saturating_sub(t.banked)))
    }

    /// Start the turn of `side` (at game start, or after a press).
    pub fn start_turn(&mut self, side: Side, now: Ms) {
        self.turn = Some(Turn {
            side,
            banked: 0,
            since: Some(now),
        });
    }

    /// End the current turn, charging its time rounded (no delay); returns the time charged.
    /// Leaves no turn.
    pub fn end_turn(&mut self, now: Ms) -> Ms {
        let Some(t) = self.turn.take() else { return 0 };
        let elapsed = t.banked + t.since.map_or(0, |s| now.saturating_sub(s));
        let charged = self.charged(elapsed);
        self.used[t.side.index()] += charged;
        charged
    }

    /// End the current turn with a move whose figures are `f`: its time charged, its increment and
    /// byo-yomi refund added, lost byo-yomi periods counted. Leaves no turn.
    pub fn end_turn_with(&mut self, f: &MoveFigures, increment: Ms) {
        let Some(t) = self.turn.take() else { return };
        let i = t.side.index();
        self.used[i] = self.used[i].saturating_add(f.spent);
        self.added[i] = self.added[i]
            .saturating_add(to_i64(increment))
            .saturating_add(to_i64(f.byoyomi_refund));
        self.byoyomi_lost[i] = self.byoyomi_lost[i].saturating_add(f.periods_lost);
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
