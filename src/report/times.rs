//! Times that add up (3, 6d, 7c, 7e, restart gaps). PURE.
//!
//! The time of a move is the drop of its side's clock between that side's presses, read from the
//! clocks themselves: the events are replayed through [`Game`], and around every entry each side's
//! `remaining` is read just before and just after it. Between two entries a clock only runs, so the
//! fall from one entry's "after" to the next entry's "before" is time used, and it is owed to the
//! side's next press. At an entry a clock only jumps (a penalty, a correction, a period's time, an
//! increment, a waived gap given back), and each jump is its own [`TimeItem`].
//!
//! What this gives:
//! - a move taken back (6d) gives its time back to its side's pending time, so the move that
//!   replaces it shows everything the clock lost since the side's previous standing move (a
//!   take-back line says so);
//! - a waived restart gap is not thinking: the clock ran through it and was given it back, so it
//!   is taken out of the pending time and listed as waived; a charged gap stays in the move's time
//!   and is listed as charged;
//! - penalties (7c), corrections (6d, 7e), period additions and increments are lines with their
//!   signed effect on the clock;
//! - time that no standing move took (the turn in progress when the log ends, moves taken back and
//!   not replayed, presses whose notation never came) is the side's "open" time.
//!
//! So for each side: `budget + Σ item effects − remaining = Σ move times + open` ([`SideTotal`]).
//!
//! A press recorded on its own (an entry that hands the running clock to the other side without
//! being a move) queues the pending time, and the side's next move notation takes the oldest
//! queued press; a move that is its own press takes the pending time.
use std::collections::VecDeque;

use serde::Serialize;

use crate::core::event::{Event, EventKind};
use crate::core::game::{ClockSnapshot, Game};
use crate::core::rules::Profile;
use crate::core::{Ms, Side};

/// A move standing at the end of the log with its time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveTime {
    /// 0-based ply.
    pub ply: usize,
    pub side: Side,
    /// The move as it stands (after a 7c correction, the correct move).
    pub san: String,
    /// The log entry of the move.
    pub entry: usize,
    /// The drop of the side's clock between its previous press and this one, less waived gaps
    /// and before any clock jump (penalty, correction, period, increment).
    pub time_ms: i64,
    /// The side's remaining time just after the move (after its increment or period addition).
    pub clock_ms: i64,
    /// The side's remaining time when the turn of this move began (the opponent's press, the
    /// clock's start, or the resumption after a take-back): what a GUI tells an engine at `go`.
    pub turn_clock_ms: i64,
    /// The machine's internal clock was set to the game clock during this turn (6c).
    pub synced_in_turn: bool,
}

/// What a [`TimeItem`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// 6d: moves taken back; their time stays on the clock and counts in the side's next move.
    TakenBack,
    /// 7c: time added to the human's clock.
    Penalty,
    /// 6d / 7e: the arbiter set or adjusted a clock.
    Correction,
    /// A restart gap the arbiter waived: the clock ran through it and was given it back.
    GapWaived,
    /// A restart gap the arbiter charged: it is part of the move's time.
    GapCharged,
    /// A Fischer increment after a move.
    Increment,
    /// The next period's time added (or removed again by a take-back), 3.
    Period,
    /// Rule 1: a voided stop (or resume) of the clocks: the clock ran through it after all (or
    /// did not), and that time is the move's, as if the voided entry had never been made.
    VoidedStop,
    /// A clock jump at an entry that explains none of the above (named by the entry's kind).
    Other,
}

/// A line of its own in the report and a comment in the PGN.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimeItem {
    /// The log entry.
    pub entry: usize,
    pub at_ms: Ms,
    /// The side whose clock it concerns (none for a gap charged while no clock ran).
    pub side: Option<Side>,
    pub kind: ItemKind,
    pub clause: String,
    /// Signed effect on the side's clock (positive: time given). Zero for take-backs and gaps.
    pub clock_ms: i64,
    /// The time it is about: the taken-back moves' time, the gap's length.
    pub time_ms: i64,
    /// Standing moves when it happened: in the PGN it comes before the move of this ply.
    pub before_ply: usize,
    /// What happened, in words, naming sides as `white` / `black`.
    pub text: String,
}

/// One side's clock, end to end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SideTotal {
    pub side: Side,
    /// The time on the clock before the first move.
    pub budget_ms: i64,
    /// The sum of the items' effects on this side's clock (periods, increments, penalties,
    /// corrections).
    pub added_ms: i64,
    /// The sum of the standing moves' times.
    pub moves_ms: i64,
    /// Time used in no standing move (the turn in progress at the end, moves taken back and not
    /// replayed).
    pub open_ms: i64,
    /// The clock at the end of the log.
    pub remaining_ms: i64,
}

impl SideTotal {
    /// Time used: the standing moves' times plus the open time.
    pub fn used_ms(&self) -> i64 {
        self.moves_ms + self.open_ms
    }

    /// Whether the clock agrees: `budget + added − remaining = used`.
    pub fn adds_up(&self) -> bool {
        self.budget_ms + self.added_ms - self.remaining_ms == self.used_ms()
    }
}

/// The per-move times of a game, its clock items and its totals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Times {
    pub moves: Vec<MoveTime>,
    pub items: Vec<TimeItem>,
    /// Draw offers by the move (its ply) each goes with (FIDE Laws 9.1.2) and the offerer.
    pub offers: Vec<(usize, Side)>,
    pub totals: [SideTotal; 2],
    /// Why the figures from some entry on are the log's own and not the replayed clock's.
    pub not_replayed: Option<String>,
}

/// The clocks of the replayed game just before an entry is applied to it.
#[derive(Debug, Clone, Copy)]
pub struct ClockBefore {
    remaining: [i64; 2],
    running: Option<Side>,
}

impl ClockBefore {
    /// `g`'s clocks at `at`, before the entry made then is applied.
    pub fn of(g: &Game, at: Ms) -> ClockBefore {
        ClockBefore {
            remaining: Side::BOTH.map(|s| g.remaining(s, at)),
            running: g.clock().running(),
        }
    }
}

impl ClockBefore {
    /// The clocks of `snapshot` (of a game played by `profile`) at `at`.
    fn of_snapshot(snapshot: &ClockSnapshot, profile: &Profile, at: Ms) -> ClockBefore {
        ClockBefore {
            remaining: Side::BOTH.map(|s| snapshot.remaining(profile, s, at)),
            running: snapshot.running(),
        }
    }
}

/// What a replay takes of its game just before an entry is applied, for [`Replayed`]: the
/// clocks read at the entry's time, or, for an entry that seldom moves a clock (a 6c report, a
/// note), the clocks as they stand, read only if the entry did move one ([`Before::replayed`]).
#[derive(Debug)]
pub enum Before {
    Clocks(ClockBefore),
    Standing(ClockSnapshot),
}

impl Before {
    /// Of `g`, before `e` is applied to it.
    pub fn of(g: &Game, e: &Event) -> Before {
        match e.kind {
            EventKind::InternalClockReported { .. } | EventKind::Note { .. } => {
                Before::Standing(g.clock_snapshot())
            }
            _ => Before::Clocks(ClockBefore::of(g, e.at)),
        }
    }

    /// What `e` did, applied to the game taken before it, which is now `game`.
    pub fn replayed<'a>(self, e: &Event, game: &'a Game) -> Replayed<'a> {
        match self {
            Before::Clocks(before) => Replayed::Applied { before, game },
            Before::Standing(snapshot) if game.clocks_stand_as(&snapshot) => Replayed::Quiet {
                snapshot,
                at: e.at,
                game,
            },
            Before::Standing(snapshot) => Replayed::Applied {
                before: ClockBefore::of_snapshot(&snapshot, game.profile(), e.at),
                game,
            },
        }
    }
}

/// What an entry did to a game replayed by someone else ([`TimesStream::push_replayed`]: the
/// report replays the game once for its sections and its times).
#[derive(Debug)]
pub enum Replayed<'a> {
    /// The entry applied: the clocks just before it, and the game just after it.
    Applied { before: ClockBefore, game: &'a Game },
    /// The entry applied and moved no clock (a 6c report, a note: [`Before`]): the clocks as
    /// they stood, before it and after it (read at `at` only if the times need them).
    Quiet {
        snapshot: ClockSnapshot,
        at: Ms,
        game: &'a Game,
    },
    /// The entry did not apply to the game (why); from it on nothing is replayed.
    Failed(String),
    /// No game is replayed (an earlier entry did not apply, or the log did not open one).
    NotReplayed,
}

/// A press recorded on its own, waiting for its notation: the figures of its move, taken when the
/// press was made (the side's clock runs again before the notation may come).
#[derive(Debug, Clone, Copy)]
struct Press {
    /// The drop of the side's clock since its previous press.
    time_ms: i64,
    /// The side's clock when the turn began.
    turn_clock_ms: i64,
    synced: bool,
    /// The side's clock just after the press (after its increment or period addition).
    clock_ms: i64,
}

/// What a take-back changed in the ledger, kept so that a void of it (rule 1) can undo it.
#[derive(Debug, Clone)]
struct TakenBack {
    /// Standing moves before it.
    keep: usize,
    removed: Vec<MoveTime>,
    /// Time it gave to each side's pending time.
    given: [i64; 2],
    turn_clock: [i64; 2],
    synced: [bool; 2],
}

#[derive(Debug, Clone)]
struct Ledger {
    /// The lowest index of `moves` changed since [`TimesStream::take_changed`] was last asked.
    changed: Option<usize>,
    game: Option<Game>,
    /// The side that moves first in the start position ([`crate::core::board::Board::first_side`]).
    first: Side,
    /// A shogi game: sides are named sente and gote.
    shogi: bool,
    /// How the moves are numbered ([`crate::core::board::Numbering`]).
    numbering: crate::core::board::Numbering,
    /// Each take-back's effect, by its entry.
    taken: std::collections::BTreeMap<usize, TakenBack>,
    moves: Vec<MoveTime>,
    items: Vec<TimeItem>,
    /// Draw offers by the move (its ply) each goes with (FIDE Laws 9.1.2) and the offerer.
    offers: Vec<(usize, Side)>,
    /// Clock time used since the side's last press or standing move, not yet owed to a move.
    pending: [i64; 2],
    /// Presses recorded without their move yet, oldest first.
    pressed: [VecDeque<Press>; 2],
    /// Each side's remaining time when its current turn began, and whether a 6c sync was
    /// recorded since.
    turn_clock: [i64; 2],
    synced: [bool; 2],
    /// Each side's remaining time just after the previous entry.
    after: [i64; 2],
    budget: [i64; 2],
    /// The time control's clause (3 in 2003), for period additions and increments.
    time_clause: String,
    not_replayed: Option<String>,
    /// The strings of moves forgotten, for the next moves' SAN.
    spare: Spare,
    /// The latest entries took no clock time of their own ([`Replayed::Quiet`]): the clocks as
    /// they stood then, by the game's rules, and the latest one's time. The time used since the
    /// entry before them is owed when the next entry comes as it would have been entry by entry
    /// (the differences add up), so it is read only when it must be: at the end, or before an
    /// entry that was not replayed ([`Ledger::settle`]).
    quiet: Option<(ClockSnapshot, std::sync::Arc<Profile>, Ms)>,
}

/// Strings of moves a take-back removed and the ledger forgot, filled again by the next moves
/// (a string made and dropped for each of 600,000 moves). Not copied with the ledger.
#[derive(Debug, Default)]
struct Spare(Vec<String>);

impl Spare {
    /// At most this many are kept (a take-back's plies, about).
    const KEPT: usize = 128;

    /// `text` in a string of its own.
    fn string(&mut self, text: &str) -> String {
        match self.0.pop() {
            Some(mut s) => {
                s.clear();
                s.push_str(text);
                s
            }
            None => text.to_string(),
        }
    }

    fn give(&mut self, s: String) {
        if self.0.len() < Self::KEPT {
            self.0.push(s);
        }
    }
}

impl Clone for Spare {
    fn clone(&self) -> Self {
        Spare::default()
    }
}

fn increment_of(e: &Event) -> i64 {
    // Read from the event itself (it was serialized to JSON for every press before).
    match &e.kind {
        EventKind::MoveMade { increment_ms, .. } | EventKind::ClockPressed { increment_ms, .. } => {
            i64::try_from(*increment_ms).unwrap_or(0)
        }
        _ => 0,
    }
}

/// The move number of `side`'s latest press: its standing moves plus its presses waiting for
/// their notation. `first` moved first (Black from a FEN with Black to move; shogi's sente).
fn moves_pressed(
    standing: usize,
    pressed: &[VecDeque<Press>; 2],
    side: Side,
    first: Side,
) -> usize {
    let moved_first = usize::from(side == first);
    let mine = (standing + moved_first) / 2;
    mine + pressed[side.index()].len()
}

/// `n` in decimal, appended (as `{n}` formats it, without the formatting machinery).
fn push_number(text: &mut String, n: u32) {
    let mut digits = [0u8; 10];
    let mut k = digits.len();
    let mut n = n;
    loop {
        k -= 1;
        digits[k] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for d in &digits[k..] {
        text.push(char::from(*d));
    }
}

impl Ledger {
    /// A side's name in the clock lines: sente / gote in shogi, white / black otherwise.
    fn side_name(&self, s: Side) -> String {
        if self.shogi {
            crate::core::shogi::side_name(s).to_string()
        } else {
            s.to_string()
        }
    }

    /// `moves[k..]` changed.
    fn touch(&mut self, k: usize) {
        self.changed = Some(self.changed.map_or(k, |c| c.min(k)));
    }

    fn item(
        &mut self,
        i: usize,
        e: &Event,
        side: Option<Side>,
        kind: ItemKind,
        (clock_ms, time_ms): (i64, i64),
        text: String,
    ) {
        let clause = match kind {
            ItemKind::Increment | ItemKind::Period if !self.time_clause.is_empty() => {
                self.time_clause.clone()
            }
            _ => e.clause.to_string(),
        };
        self.items.push(TimeItem {
            entry: i,
            at_ms: e.at,
            side,
            kind,
            clause,
            clock_ms,
            time_ms,
            // Presses waiting for their notation are plies already: an item at or after them
            // comes after them.
            before_ply: self.moves.len() + self.pressed[0].len() + self.pressed[1].len(),
            text,
        });
    }

    /// A move's notation: it takes the oldest press of its side waiting for one (with the time and
    /// the clock of that press), or else is its own press and takes the side's pending time and
    /// its clock now. Whether it took a waiting press.
    fn standing_move(&mut self, i: usize, side: Side, san: &str, clock_now: i64) -> bool {
        let k = side.index();
        let queued = self.pressed[k].pop_front();
        let p = queued.unwrap_or_else(|| Press {
            time_ms: std::mem::take(&mut self.pending[k]),
            turn_clock_ms: self.turn_clock[k],
            synced: self.synced[k],
            clock_ms: clock_now,
        });
        self.touch(self.moves.len());
        self.moves.push(MoveTime {
            ply: self.moves.len(),
            side,
            san: self.spare.string(san),
            entry: i,
            time_ms: p.time_ms,
            clock_ms: p.clock_ms,
            turn_clock_ms: p.turn_clock_ms,
            synced_in_turn: p.synced,
        });
        queued.is_some()
    }

    fn take_back(&mut self, i: usize, e: &Event, plies: usize) {
        let keep = self.moves.len().saturating_sub(plies);
        self.touch(keep);
        // Rule 1: a void reaches only the latest entries (`VOID_WINDOW`), so a take-back older
        // than that can never be given back: forget it (memory flat in the log's length). The
        // moves of the last one forgotten are replaced by these in place (no buffer of a
        // take-back's size made and dropped per take-back).
        let reach = i.saturating_sub(2 * crate::core::game::VOID_WINDOW);
        let mut removed = Vec::new();
        while let Some(old) = self.taken.first_entry() {
            if *old.key() >= reach {
                break;
            }
            removed = old.remove().removed;
        }
        for m in removed.drain(..) {
            self.spare.give(m.san);
        }
        if keep == 0 {
            // Every move taken back: they change hands whole, not one by one.
            std::mem::swap(&mut removed, &mut self.moves);
        } else {
            removed.extend(self.moves.drain(keep..));
        }
        let given: [i64; 2] = Side::BOTH.map(|side| {
            removed
                .iter()
                .filter(|m| m.side == side)
                .map(|m| m.time_ms)
                .sum()
        });
        for side in Side::BOTH {
            let mut mine = removed.iter().filter(|m| m.side == side).peekable();
            if mine.peek().is_none() {
                continue;
            }
            let t = given[side.index()];
            self.pending[side.index()] += t;
            // The bytes of `{numbered, ...} taken back: {its|their} time ({}) stays on {}'s
            // clock and counts in {}'s next move`, written in place into a string sized once
            // (a take-back of 60 plies grew its two lines a dozen times through the
            // formatting machinery, a fifth of a 1,000,000-entry replay's time).
            let (count, sans) = mine
                .clone()
                .fold((0usize, 0usize), |(c, l), m| (c + 1, l + m.san.len()));
            let mut text = String::with_capacity(sans + count * 14 + 120);
            for (k, m) in mine.enumerate() {
                if k > 0 {
                    text.push_str(", ");
                }
                push_number(&mut text, self.numbering.number(m.ply));
                text.push_str(if self.numbering.is_white(m.ply) {
                    ". "
                } else {
                    "... "
                });
                text.push_str(&m.san);
            }
            text.push_str(if count == 1 {
                " taken back: its time ("
            } else {
                " taken back: their time ("
            });
            text.push_str(&crate::core::timefmt::exact(t.max(0).unsigned_abs()));
            let name = self.side_name(side);
            text.push_str(") stays on ");
            text.push_str(&name);
            text.push_str("'s clock and counts in ");
            text.push_str(&name);
            text.push_str("'s next move");
            self.item(i, e, Some(side), ItemKind::TakenBack, (0, t), text);
        }
        self.taken.insert(
            i,
            TakenBack {
                keep,
                removed,
                given,
                turn_clock: self.turn_clock,
                synced: self.synced,
            },
        );
    }

    /// Rule 1: the take-back of entry `seq` is void. Its moves stand again with their own times,
    /// before any made since; the time it had given to a side's next move (or to its pending
    /// time) is taken back out of it; a turn begun at the take-back with nothing played since
    /// is the turn it interrupted.
    fn untake_back(&mut self, seq: usize) {
        let Some(tb) = self.taken.remove(&seq) else {
            return;
        };
        self.touch(tb.keep.min(self.moves.len()));
        let mut later = self.moves.split_off(tb.keep.min(self.moves.len()));
        let quiet = later.is_empty() && self.pressed.iter().all(VecDeque::is_empty);
        for side in Side::BOTH {
            let k = side.index();
            let t = tb.given[k];
            if t == 0 {
                continue;
            }
            if let Some(m) = later.iter_mut().find(|m| m.side == side) {
                m.time_ms -= t;
            } else if let Some(p) = self.pressed[k].front_mut() {
                p.time_ms -= t;
            } else {
                self.pending[k] -= t;
            }
        }
        self.moves.extend(tb.removed);
        self.moves.extend(later);
        for (ply, m) in self.moves.iter_mut().enumerate() {
            m.ply = ply;
        }
        if quiet {
            self.turn_clock = tb.turn_clock;
            self.synced = tb.synced;
        }
    }

    /// The clock jumps at a press of `side` (a move-and-press or a press on its own): its
    /// increment, and the next period's time when the press completes a period's moves (3: the
    /// time control counts presses). Worded alike both ways, so a game entered press-then-notation
    /// gives the same PGN as the same game entered move-and-press.
    fn press_items(&mut self, i: usize, e: &Event, side: Side, delta: &mut [i64; 2]) {
        let n = moves_pressed(self.moves.len(), &self.pressed, side, self.first);
        let inc = increment_of(e);
        if inc != 0 {
            delta[side.index()] -= inc;
            self.item(
                i,
                e,
                Some(side),
                ItemKind::Increment,
                (inc, 0),
                format!("increment after {}'s move {n}", self.side_name(side)),
            );
        }
        let d = std::mem::take(&mut delta[side.index()]);
        if d != 0 {
            self.item(
                i,
                e,
                Some(side),
                ItemKind::Period,
                (d, 0),
                format!(
                    "the next period's time added to {}'s clock at its move {}",
                    self.side_name(side),
                    self.shown_number(side, n)
                ),
            );
        }
    }

    /// `side`'s `n`-th move of this game (rule 3 counts these) as the scoresheet numbers it: `n`
    /// itself when the numbering agrees, else `62 (40 moves played in this game)`.
    fn shown_number(&self, side: Side, n: usize) -> String {
        let ply = (n.max(1) - 1) * 2 + usize::from(side != self.first);
        let shown = self.numbering.number(ply);
        if usize::try_from(shown).is_ok_and(|s| s == n) {
            n.to_string()
        } else {
            format!("{shown} ({n} moves played in this game)")
        }
    }

    /// The turn of `side` begins now: its clock as it stands is what it is given.
    fn turn_begins(&mut self, side: Side) {
        self.turn_clock[side.index()] = self.after[side.index()];
        self.synced[side.index()] = false;
    }

    /// One entry, replayed: time used since the previous entry, then the entry's jumps.
    fn apply(&mut self, i: usize, e: &Event) {
        let Some(g) = self.game.as_mut() else {
            self.apply_unreplayed(i, e);
            return;
        };
        let before = ClockBefore::of(g, e.at);
        if let Err(m) = g.evolve(e) {
            self.game = None;
            self.apply_replayed(i, e, Replayed::Failed(m.to_string()));
            return;
        }
        let g = self.game.take();
        if let Some(game) = &g {
            self.apply_replayed(i, e, Replayed::Applied { before, game });
        }
        self.game = g;
    }

    /// The time used up to the latest quiet entries, owed now as it was at them (what
    /// [`Ledger::apply_replayed`] of each would have done: they moved no clock).
    fn settle(&mut self) {
        if let Some((snapshot, profile, at)) = self.quiet.take() {
            let after = Side::BOTH.map(|s| snapshot.remaining(&profile, s, at));
            for s in Side::BOTH {
                self.pending[s.index()] += self.after[s.index()] - after[s.index()];
            }
            self.after = after;
        }
    }

    /// One entry, as the game replayed elsewhere took it ([`Replayed`]).
    fn apply_replayed(&mut self, i: usize, e: &Event, replayed: Replayed<'_>) {
        if !matches!(replayed, Replayed::Applied { .. } | Replayed::Quiet { .. }) {
            self.settle();
        }
        // FIDE Laws 9.1.2: an offer goes with its offerer's own move.
        if let (
            EventKind::DrawOffered { by, .. },
            Replayed::Applied { game, .. } | Replayed::Quiet { game, .. },
        ) = (&e.kind, &replayed)
        {
            self.offers.push((game.draw_offer_ply(*by), *by));
        }
        let (
            ClockBefore {
                remaining: before,
                running,
            },
            g,
        ) = match replayed {
            Replayed::Quiet { snapshot, at, game } => {
                // Kept, not read: the next entry's clocks before it owe the time since the entry
                // before this one, as this one's and its own would add up to.
                let profile = match self.quiet.take() {
                    Some((_, p, _)) if std::sync::Arc::ptr_eq(&p, game.profile_shared()) => p,
                    _ => std::sync::Arc::clone(game.profile_shared()),
                };
                self.quiet = Some((snapshot, profile, at));
                return;
            }
            Replayed::Applied { before, game } => {
                self.quiet = None;
                (before, game)
            }
            Replayed::Failed(m) => {
                self.not_replayed = Some(format!(
                    "entry {i} ({}) does not apply to the game: {m}; the times from it on are \
                     the log's own",
                    e.kind_name()
                ));
                self.apply_unreplayed(i, e);
                return;
            }
            Replayed::NotReplayed => {
                self.apply_unreplayed(i, e);
                return;
            }
        };
        let after = Side::BOTH.map(|s| g.remaining(s, e.at));
        let running_after = g.clock().running();
        // The move standing last after a 7c correction (read only for one).
        let last_after = match e.kind {
            EventKind::WrongMove { .. } => g.board().moves().last().map(|m| m.san.to_string()),
            _ => None,
        };
        let to_move = g.board().side_to_move();
        let machine = g.machine_side();
        for s in Side::BOTH {
            self.pending[s.index()] += self.after[s.index()] - before[s.index()];
        }
        self.after = after;
        let mut delta = Side::BOTH.map(|s| after[s.index()] - before[s.index()]);
        match &e.kind {
            EventKind::MoveMade { side, san, .. } => {
                // A notation after its press: the other side's turn began at the press.
                if !self.standing_move(i, *side, san, after[side.index()]) {
                    self.turn_begins(side.other());
                    self.press_items(i, e, *side, &mut delta);
                }
            }
            EventKind::MovesTakenBack { plies, .. } => {
                self.take_back(i, e, *plies);
                self.turn_begins(to_move);
                for s in Side::BOTH {
                    let d = std::mem::take(&mut delta[s.index()]);
                    if d != 0 {
                        self.item(
                            i,
                            e,
                            Some(s),
                            ItemKind::Period,
                            (d, 0),
                            format!(
                                "a period's time taken off {}'s clock again with the moves \
                                 taken back",
                                self.side_name(s)
                            ),
                        );
                    }
                }
            }
            EventKind::WrongMove {
                played,
                correct,
                pressed: true,
                ..
            } => {
                self.touch(self.moves.len().saturating_sub(1));
                if let Some(m) = self.moves.last_mut() {
                    m.san = last_after.unwrap_or_else(|| correct.to_string());
                }
                for s in Side::BOTH {
                    let d = std::mem::take(&mut delta[s.index()]);
                    if d != 0 {
                        self.item(
                            i,
                            e,
                            Some(s),
                            ItemKind::Penalty,
                            (d, 0),
                            format!(
                                "penalty for the operator's wrong move {played} (the machine's \
                                 move was {correct}): added to {}'s clock",
                                self.side_name(s)
                            ),
                        );
                    }
                }
            }
            EventKind::ClockCorrected { side, reason, .. } => {
                let d = std::mem::take(&mut delta[side.index()]);
                self.item(
                    i,
                    e,
                    Some(*side),
                    ItemKind::Correction,
                    (d, 0),
                    format!("{}'s clock corrected: {reason}", self.side_name(*side)),
                );
            }
            EventKind::RestartGap {
                gap_ms,
                charged,
                side,
                charged_ms,
                reason,
                ..
            } => {
                let gap = i64::try_from(*gap_ms).unwrap_or(i64::MAX);
                let charged_ms = charged_ms.unwrap_or(if *charged { *gap_ms } else { 0 });
                let charged_part = i64::try_from(charged_ms).unwrap_or(i64::MAX);
                let why = reason
                    .as_deref()
                    .map_or_else(String::new, |r| format!(" ({r})"));
                match side {
                    Some(s) => {
                        // What was given back ran on the clock and is not thinking; what was
                        // charged stays in the move's time.
                        let given = std::mem::take(&mut delta[s.index()]);
                        if given != 0 || charged_part == 0 {
                            self.pending[s.index()] -= given;
                            self.item(
                                i,
                                e,
                                Some(*s),
                                ItemKind::GapWaived,
                                (0, given),
                                format!(
                                    "restart gap waived{why}: {}'s clock ran through it and was \
                                     given it back; not counted as thinking",
                                    self.side_name(*s)
                                ),
                            );
                        }
                        if charged_part > 0 {
                            self.item(
                                i,
                                e,
                                Some(*s),
                                ItemKind::GapCharged,
                                (0, charged_part),
                                format!(
                                    "restart gap charged{why}: it counts in {}'s time for its move",
                                    self.side_name(*s)
                                ),
                            );
                        }
                    }
                    None => self.item(
                        i,
                        e,
                        None,
                        if charged_part > 0 {
                            ItemKind::GapCharged
                        } else {
                            ItemKind::GapWaived
                        },
                        (0, gap),
                        "restart gap while no clock ran: no clock changed".into(),
                    ),
                }
            }
            EventKind::EntryVoided { seq, kind, .. } => {
                // Rule 1: the voided entry's clock lines go, and the clock's return at the void
                // is theirs undone, not a change of its own; a voided take-back's moves stand
                // again.
                let seq = usize::try_from(*seq).unwrap_or(usize::MAX);
                self.untake_back(seq);
                let mut undone = [0i64; 2];
                self.items.retain(|it| {
                    if it.entry != seq {
                        return true;
                    }
                    if let Some(s) = it.side {
                        undone[s.index()] += it.clock_ms;
                    }
                    false
                });
                for s in Side::BOTH {
                    delta[s.index()] += undone[s.index()];
                }
                // What is left is the clock's own run that the voided entry had stopped (or
                // started): the time belongs to the move under way, not a line of its own.
                let what = kind.replace('_', " ");
                for s in Side::BOTH {
                    let d = std::mem::take(&mut delta[s.index()]);
                    if d == 0 {
                        continue;
                    }
                    self.pending[s.index()] -= d;
                    let (ran, verb) = if d < 0 {
                        (-d, "ran through it after all")
                    } else {
                        (d, "did not run after all")
                    };
                    self.item(
                        i,
                        e,
                        Some(s),
                        ItemKind::VoidedStop,
                        (0, if d < 0 { ran } else { -ran }),
                        format!(
                            "entry #{seq} ({what}) voided: {}'s clock {verb}, counted in its move",
                            self.side_name(s)
                        ),
                    );
                }
            }
            EventKind::ClockStarted { side } => self.turn_begins(*side),
            EventKind::InternalClockCorrected { .. } => {
                if let Some(m) = machine {
                    self.synced[m.index()] = true;
                }
            }
            _ => {
                // A press on its own: the clock passes from one side to the other.
                if let (Some(s), Some(t)) = (running, running_after)
                    && t == s.other()
                {
                    let p = std::mem::take(&mut self.pending[s.index()]);
                    self.pressed[s.index()].push_back(Press {
                        time_ms: p,
                        turn_clock_ms: self.turn_clock[s.index()],
                        synced: self.synced[s.index()],
                        clock_ms: after[s.index()],
                    });
                    self.turn_begins(t);
                    self.press_items(i, e, s, &mut delta);
                }
            }
        }
        for s in Side::BOTH {
            let d = delta[s.index()];
            if d != 0 {
                self.item(
                    i,
                    e,
                    Some(s),
                    ItemKind::Other,
                    (d, 0),
                    format!(
                        "{}'s clock changed at a {} entry",
                        self.side_name(s),
                        e.kind_name()
                    ),
                );
            }
        }
    }

    /// Without a replayed game: the log's own figures.
    fn apply_unreplayed(&mut self, i: usize, e: &Event) {
        match &e.kind {
            EventKind::MoveMade {
                side,
                san,
                spent_ms,
                remaining_ms,
                ..
            } => {
                self.pending[side.index()] += i64::try_from(*spent_ms).unwrap_or(i64::MAX);
                self.standing_move(i, *side, san, *remaining_ms);
                self.after[side.index()] = *remaining_ms;
            }
            EventKind::MovesTakenBack { plies, .. } => self.take_back(i, e, *plies),
            EventKind::WrongMove {
                correct,
                pressed: true,
                ..
            } => {
                self.touch(self.moves.len().saturating_sub(1));
                if let Some(m) = self.moves.last_mut() {
                    m.san = correct.clone();
                }
            }
            _ => {}
        }
    }

    fn finish(mut self) -> Times {
        self.settle();
        let totals = Side::BOTH.map(|side| {
            let k = side.index();
            SideTotal {
                side,
                budget_ms: self.budget[k],
                added_ms: self
                    .items
                    .iter()
                    .filter(|t| t.side == Some(side))
                    .map(|t| t.clock_ms)
                    .sum(),
                moves_ms: self
                    .moves
                    .iter()
                    .filter(|m| m.side == side)
                    .map(|m| m.time_ms)
                    .sum(),
                open_ms: self.pending[k] + self.pressed[k].iter().map(|p| p.time_ms).sum::<i64>(),
                remaining_ms: self.after[k],
            }
        });
        Times {
            moves: self.moves,
            items: self.items,
            offers: self.offers,
            totals,
            not_replayed: self.not_replayed,
        }
    }
}

/// The times of a game's events (the first is `game_opened`).
pub fn times(events: &[Event]) -> Times {
    let mut t = TimesStream::default();
    for e in events {
        t.push(e);
    }
    t.finish()
}

/// [`times`] gathered event by event, for a log streamed line by line: memory is the game's
/// standing moves and clock items, not the log.
#[derive(Debug, Clone)]
pub struct TimesStream {
    ledger: Ledger,
    next: usize,
}

impl Default for TimesStream {
    fn default() -> Self {
        TimesStream {
            ledger: Ledger {
                changed: None,
                game: None,
                first: Side::White,
                shogi: false,
                numbering: crate::core::board::Numbering::default(),
                taken: std::collections::BTreeMap::new(),
                moves: Vec::new(),
                items: Vec::new(),
                offers: Vec::new(),
                pending: [0, 0],
                pressed: [VecDeque::new(), VecDeque::new()],
                after: [0, 0],
                turn_clock: [0, 0],
                synced: [false, false],
                budget: [0, 0],
                time_clause: String::new(),
                not_replayed: None,
                spare: Spare::default(),
                quiet: None,
            },
            next: 0,
        }
    }
}

impl TimesStream {
    /// The next event of the log (the first is `game_opened`).
    pub fn push(&mut self, e: &Event) {
        let l = &mut self.ledger;
        if self.next == 0 {
            match &e.kind {
                EventKind::GameOpened(o) => match Game::from_opening(o) {
                    Ok(g) => {
                        l.budget = Side::BOTH.map(|s| g.remaining(s, 0));
                        l.after = l.budget;
                        l.turn_clock = l.budget;
                        l.time_clause = g.profile().time_control.clause.clone();
                        l.first = g.board().first_side();
                        l.shogi = g.board().shogi().is_some();
                        l.numbering = g.board().numbering();
                        l.game = Some(g);
                    }
                    Err(m) => l.not_replayed = Some(format!("entry 0: {m}")),
                },
                _ => l.not_replayed = Some("the first entry is not game_opened".into()),
            }
        }
        l.apply(self.next, e);
        self.next += 1;
    }

    /// [`TimesStream::push`] for an entry applied to a game replayed by the caller: the game
    /// is replayed once for two readers. Entry 0 (`game_opened`) opens the stream's own game
    /// for the budgets, which is then dropped. `replayed` must be what the caller's game, opened
    /// from the same entry 0 and fed the same entries, did with `e`.
    pub fn push_replayed(&mut self, e: &Event, replayed: Replayed<'_>) {
        if self.next == 0 {
            self.push(e);
            self.ledger.game = None;
            return;
        }
        self.ledger.apply_replayed(self.next, e, replayed);
        self.next += 1;
    }

    /// After [`TimesStream::push_replayed`]: the caller's game, which the entries pushed made,
    /// becomes the stream's own for the entries [`TimesStream::push`] takes next (nothing, when
    /// the replay stopped at an entry or no entry came).
    pub fn resume(&mut self, game: &Game) {
        self.ledger.settle();
        if self.next > 0 && self.ledger.not_replayed.is_none() {
            self.ledger.game = Some(game.clone());
        }
    }

    /// The moves standing so far with their times.
    pub fn moves(&self) -> &[MoveTime] {
        &self.ledger.moves
    }

    /// The lowest index of [`TimesStream::moves`] that changed since the last call (a move
    /// added, taken back, corrected, or given back by a void), if any did: a fold that keeps a
    /// copy of the moves' times redoes only what follows it.
    pub fn take_changed(&mut self) -> Option<usize> {
        self.ledger.changed.take()
    }

    /// The clock items gathered so far (each names its entry).
    pub fn items(&self) -> &[TimeItem] {
        &self.ledger.items
    }

    /// How many take-backs are kept for a void to give back (rule 1): only those a void can
    /// still reach, so this stays bounded however long the log (memory guard).
    pub fn take_backs_kept(&self) -> usize {
        self.ledger.taken.len()
    }

    pub fn finish(self) -> Times {
        if self.next == 0 {
            let mut l = self.ledger;
            l.not_replayed = Some("the first entry is not game_opened".into());
            return l.finish();
        }
        self.ledger.finish()
    }
}

impl TimeItem {
    /// The item as one line: clause, what happened, and the time involved.
    pub fn line(&self) -> String {
        // Sized once (a long log's 20,000 take-backs each grew a text of 400 bytes).
        let mut s = String::with_capacity(self.clause.len() + self.text.len() + 24);
        s.push_str(&self.clause);
        s.push_str(": ");
        s.push_str(&self.text);
        if self.clock_ms != 0 {
            s.push_str(" (");
            super::model::push_signed_hms(&mut s, self.clock_ms);
            s.push(')');
        } else if self.time_ms != 0 && self.kind != ItemKind::TakenBack {
            s.push_str(" (");
            s.push_str(&crate::core::timefmt::exact(self.time_ms.unsigned_abs()));
            s.push(')');
        }
        s
    }
}

impl Times {
    /// The standing moves for the PGN, with the items as comments before the move that follows
    /// them; items after the last move come back separately (the PGN's trailing comments).
    pub fn pgn_moves(&self) -> (Vec<super::pgn::PgnMove>, Vec<String>) {
        let mut moves: Vec<super::pgn::PgnMove> = self
            .moves
            .iter()
            .map(|m| super::pgn::PgnMove {
                san: m.san.clone(),
                clock_ms: m.clock_ms.max(0).unsigned_abs(),
                spent_ms: m.time_ms.max(0).unsigned_abs(),
                before: Vec::new(),
                draw_offer: false,
            })
            .collect();
        let mut trailing = Vec::new();
        for it in &self.items {
            match moves.get_mut(it.before_ply) {
                Some(m) => m.before.push(it.line()),
                None => trailing.push(it.line()),
            }
        }
        for (ply, by) in &self.offers {
            match moves.get_mut(*ply) {
                Some(m) => m.draw_offer = true,
                None => trailing.push(format!("(=) draw offered by {by}, with no move after it")),
            }
        }
        (moves, trailing)
    }
}
