//! Rule 1 (the arbiter's authority): the arbiter voids an entry that records something
//! that did not happen — a mis-keyed F7 offer, a claim or a resignation typed for the wrong side.
//! The entry stays in the trail, an `entry_voided` entry names it with the reason, and the game is
//! rebuilt as if its effect had never been: every later entry is applied again without it.
//!
//! What may be voided: an entry a person recorded, other than line 0 (`game_opened`), a move (moves
//! are taken back under 6d/7e, which keeps the clocks right), an authorization record, a restart
//! ruling (once per restart), the rule-13 hand-over, or another void; and only when nothing after
//! it rests on it (a later result is voided first; every later entry must still apply).
//!
//! Reach: the game keeps the state of `WINDOW` to `2 × WINDOW` entries ago and the events since
//! ([`Recent`]), so memory stays flat in the log's size; an older entry is refused by name (the
//! committee rules on it, 12).
use super::*;
use std::sync::Arc;

/// The fewest recent entries a void can always reach.
pub const WINDOW: usize = 256;

/// The game as it stood at entry `base_seq` and the events applied since: what a void rebuilds
/// from. Shared, not copied, when the game is cloned (the session clones the game for every
/// entry it checks before writing): cloning the window is a few reference counts, so a long game
/// or script stays linear in its length.
///
/// The window costs next to nothing per entry. The events are kept as the caller hands
/// them over ([`Game::evolve_shared`] takes an `Arc` without copying the event), and the base
/// moves on by a snapshot of the game taken when the window held `WINDOW` events (`mid`), not by
/// applying those events a second time. A void rebuilds the game from the base and takes the
/// snapshot afresh on its way, so the next base has the void's effect as it would by re-applying.
#[derive(Debug, Clone)]
pub(in crate::core) struct Recent {
    base: Arc<Game>,
    base_seq: usize,
    events: Vec<Arc<Event>>,
    /// The game after `events[..WINDOW]` (entry `base_seq + WINDOW`), once the window holds
    /// that many: the next base.
    mid: Option<Arc<Game>>,
}

/// The game as a base of the window: without a window of its own.
fn snapshot(game: &Game) -> Arc<Game> {
    let mut base = game.clone();
    base.recent = None;
    base.due_result_memo = DueMemo::default();
    Arc::new(base)
}

impl Recent {
    /// The window opening on `game` before its next entry.
    pub(in crate::core) fn new(game: &Game) -> Recent {
        Recent {
            base: snapshot(game),
            base_seq: game.applied,
            events: Vec::new(),
            mid: None,
        }
    }

    /// Keep `e`, just applied to `game` (whose own window is taken out while it is applied);
    /// past `2 × WINDOW` events the oldest `WINDOW` leave and the snapshot after them becomes
    /// the base.
    pub(in crate::core) fn push(&mut self, e: Arc<Event>, game: &Game) {
        self.events.push(e);
        if self.events.len() >= 2 * WINDOW
            && let Some(mid) = self.mid.take()
        {
            self.base = mid;
            self.events.drain(..WINDOW);
            self.base_seq += WINDOW;
        }
        if self.events.len() == WINDOW && self.mid.is_none() {
            self.mid = Some(snapshot(game));
        }
    }
}

/// Apply `ev` to a game being rebuilt: a voided entry and a void only take their place in the
/// sequence and the time.
fn apply_skipping(g: &mut Game, ev: &Event) -> Result<(), Inconsistent> {
    let seq = g.applied as u64;
    if g.voided.contains(&seq) || matches!(ev.kind, EventKind::EntryVoided { .. }) {
        g.last_at = g.last_at.max(ev.at);
        g.applied += 1;
        g.last_was_machine_move = false;
        Ok(())
    } else {
        g.evolve_one(ev)
    }
}

impl Game {
    /// Decide `arbiter void SEQ REASON` (dispatched by [`Game::decide`]).
    pub(super) fn decide_void(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        let Command::Void { seq, reason } = cmd else {
            return refuse_state("not a void");
        };
        if reason.trim().is_empty() {
            return refuse(c::ARBITER, "give the reason for the void");
        }
        let Some(recent) = &self.recent else {
            return refuse(c::ARBITER, "nothing is recorded yet");
        };
        let idx = usize::try_from(*seq).unwrap_or(usize::MAX);
        if idx >= self.applied {
            return refuse(
                c::ARBITER,
                format!(
                    "there is no entry #{seq}: the log holds #0 to #{}",
                    self.applied.saturating_sub(1)
                ),
            );
        }
        if idx < recent.base_seq {
            return refuse(
                c::ARBITER,
                format!(
                    "entry #{seq} is older than the entries a void reaches (#{} on); the committee rules on it (12)",
                    recent.base_seq
                ),
            );
        }
        let target = &recent.events[idx - recent.base_seq];
        let kind = target.kind_name();
        if self.voided.contains(seq) {
            return refuse(c::ARBITER, format!("entry #{seq} ({kind}) is already void"));
        }
        let why_not = match &target.kind {
            EventKind::GameOpened(..) => Some("line 0 binds the game and cannot be voided"),
            EventKind::EntryVoided { .. } => Some("a void cannot be voided"),
            EventKind::MoveMade { .. } => {
                Some("a move is taken back, not voided: arbiter correct 6d|7e takeback N REASON")
            }
            EventKind::Authorized { .. } | EventKind::AuthorizationFailed { .. } => {
                Some("the record of an authorization stays in force")
            }
            EventKind::RestartGap { .. } => Some("a restart ruling is given once and stands"),
            EventKind::EngineLogArchived(_) | EventKind::ProgramArchived(_) => {
                Some("the rule-13 hand-over cannot be voided")
            }
            _ if target.actor == Actor::Kit => {
                Some("it is the kit's own entry (a measurement or a consequence), not a mis-key")
            }
            _ => None,
        };
        if let Some(w) = why_not {
            return refuse(c::ARBITER, format!("entry #{seq} ({kind}): {w}"));
        }
        // A result recorded after it may rest on it (a draw agreed on a mis-keyed offer): the
        // result is voided first.
        if let Some((i, _)) = recent
            .events
            .iter()
            .enumerate()
            .skip(idx - recent.base_seq + 1)
            .find(|(i, e)| {
                matches!(e.kind, EventKind::GameEnded { .. })
                    && !self.voided.contains(&((recent.base_seq + i) as u64))
            })
        {
            return refuse(
                c::ARBITER,
                format!(
                    "entry #{} (game_ended) comes after entry #{seq} ({kind}): void the result first; nothing voided",
                    recent.base_seq + i
                ),
            );
        }
        let ev = self.ev(
            now,
            Actor::Arbiter,
            c::ARBITER,
            EventKind::EntryVoided {
                seq: *seq,
                kind: kind.clone(),
                reason: reason.clone(),
            },
        );
        // Every later entry must still apply without it.
        let mut trial = self.clone();
        if let Err(m) = trial.evolve(&ev) {
            return refuse(
                c::ARBITER,
                format!("a later entry rests on entry #{seq} ({kind}): {m}; nothing voided"),
            );
        }
        Ok(vec![ev])
    }

    /// Apply an `entry_voided` event: the game rebuilt from the window without the voided
    /// entries' effects.
    pub(super) fn evolve_void(
        &mut self,
        recent: &mut Recent,
        e: &Event,
    ) -> Result<(), Inconsistent> {
        let EventKind::EntryVoided { seq, .. } = &e.kind else {
            return Ok(());
        };
        let idx = usize::try_from(*seq).unwrap_or(usize::MAX);
        if idx < recent.base_seq || idx >= self.applied {
            return Err(format!(
                "entry_voided names entry #{seq}, outside the entries it can reach (#{} to #{})",
                recent.base_seq,
                self.applied.saturating_sub(1)
            )
            .into());
        }
        if matches!(
            recent.events[idx - recent.base_seq].kind,
            EventKind::GameOpened(..) | EventKind::EntryVoided { .. } | EventKind::MoveMade { .. }
        ) {
            return Err(format!("entry #{seq} cannot be voided").into());
        }
        let mut g = (*recent.base).clone();
        g.voided = self.voided.clone();
        if !g.voided.contains(seq) {
            g.voided.push(*seq);
        }
        let mut mid = None;
        for (k, ev) in recent.events.iter().enumerate() {
            apply_skipping(&mut g, ev).map_err(|m| {
                Inconsistent(format!(
                    "without entry #{seq}, entry #{}: {m}",
                    recent.base_seq + k
                ))
            })?;
            if k + 1 == WINDOW {
                mid = Some(snapshot(&g));
            }
        }
        // The next base is the game without the voided entries, as re-applying them would give.
        if mid.is_some() {
            recent.mid = mid;
        }
        g.last_at = g.last_at.max(e.at);
        g.applied += 1;
        g.last_was_machine_move = false;
        *self = g;
        Ok(())
    }
}
