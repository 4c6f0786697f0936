//! Rule 3's time controls, witnessed: the camps countersign at each control where
//! the profile says (`[witness] countersign_at_controls`), and at the end. What they are asked to
//! sign is folded from the log like all state: the control just passed, both clocks at the
//! control move, the result, and the entries of the arbiter or the committee (corrections,
//! rulings, voids) with their positions, so that each camp is shown those since its own last
//! countersignature (which the shell knows, from the files beside the log).
use std::collections::VecDeque;

use super::Game;
use crate::core::event::{Event, EventKind};
use crate::core::{Actor, Ms, Side};

/// Entry kinds that change nothing a camp vouches for (notes, the record of how a command was
/// authorized, recoveries, the rule-13 hand-over): never listed as rulings to countersign.
pub const NEUTRAL: [&str; 7] = [
    "work_note",
    "note",
    "authorized",
    "authorization_failed",
    "recovery",
    "engine_log_archived",
    "program_archived",
];

/// [`NEUTRAL`] by the event's kind, without naming it (the fold asks this of every entry).
pub fn is_neutral(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::WorkNote { .. }
            | EventKind::Note { .. }
            | EventKind::Authorized { .. }
            | EventKind::AuthorizationFailed { .. }
            | EventKind::Recovery(_)
            | EventKind::EngineLogArchived(_)
            | EventKind::ProgramArchived(_)
    )
}

/// How many entries of the arbiter or the committee the fold keeps for the camps' requests
/// (the latest; older ones are counted, and `arbiter countersign` lists them all).
pub const ACTS_KEPT: usize = 1024;

/// What the camps are asked to countersign at a time control.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlDue {
    /// Which control (1 = the first) both sides have now passed.
    pub control: usize,
    /// The move number of the control (e.g. 40).
    pub move_number: u32,
    /// The entry (0-based sequence number) whose move completed the control.
    pub entry: u64,
    /// Both clocks' remaining time at the control move, White (sente) first.
    pub clocks: [i64; 2],
}

/// The entries of the arbiter or the committee a camp is shown before it countersigns.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Acts {
    /// `(SEQ, "#SEQ kind (clause C)")`, oldest first.
    pub list: Vec<(u64, String)>,
    /// How many older ones the fold no longer keeps ([`ACTS_KEPT`]).
    pub not_kept: u64,
}

/// The fold's state: the latest control due, the arbiter's and committee's entries, the last
/// entry that changes what the camps witness.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ControlWitness {
    due: Option<ControlDue>,
    /// Shared: the session clones the game before each entry, and these change rarely.
    acts: Kept<Act>,
    not_kept: u64,
    /// The latest entry (after line 0) that changes a result, a clock or a ruling: a camp has
    /// witnessed the game once it countersigned a checkpoint past it (as `verify` judges).
    last_change: u64,
    /// Each camp's key as the match's earlier games bound it (given by the shell).
    match_camps: Vec<MatchCamp>,
}

/// The latest [`ACTS_KEPT`] acts, oldest first, in chunks shared between clones of the game
///: a clone costs a reference count per chunk, and the next act after a clone copies
/// one chunk at most, not the whole list (the void window snapshots the game every
/// `VOID_WINDOW` entries).
#[derive(Clone)]
struct Kept<T> {
    chunks: VecDeque<std::sync::Arc<Vec<T>>>,
    /// Acts at the head of the first chunk no longer kept.
    skip: usize,
    len: usize,
}

/// An act as the fold keeps it: its entry, kind and clause (its text, `#SEQ kind
/// (clause C)`, is written when a camp is shown it, not at each of the arbiter's entries).
type Act = (u64, &'static str, crate::core::event::Text);

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept {
            chunks: VecDeque::new(),
            skip: 0,
            len: 0,
        }
    }
}

impl<T: Clone> Kept<T> {
    const CHUNK: usize = 64;

    /// Keep `act`; `true` when the oldest act kept had to go.
    fn push(&mut self, act: T) -> bool {
        match self.chunks.back_mut() {
            Some(c) if c.len() < Self::CHUNK => std::sync::Arc::make_mut(c).push(act),
            // A chunk's room taken once (grown from one act it was reallocated six
            // times, on the replay's thread).
            _ => {
                let mut chunk = Vec::with_capacity(Self::CHUNK);
                chunk.push(act);
                self.chunks.push_back(std::sync::Arc::new(chunk));
            }
        }
        if self.len < ACTS_KEPT {
            self.len += 1;
            return false;
        }
        self.skip += 1;
        if self.chunks.front().is_some_and(|c| c.len() == self.skip) {
            self.chunks.pop_front();
            self.skip = 0;
        }
        true
    }

    fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flat_map(|c| c.iter()).skip(self.skip)
    }
}

impl<T: Clone + PartialEq> PartialEq for Kept<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl<T: Clone + Eq> Eq for Kept<T> {}

impl<T: Clone + std::fmt::Debug> std::fmt::Debug for Kept<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A camp's key as the first earlier game of the match declaring it bound it (line 0): a camp's
/// key is the match's from its first declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchCamp {
    pub name: String,
    /// The game whose line 0 first declared it.
    pub game: u32,
    /// `<type> <base64>`, as line 0 holds it.
    pub key: String,
}

impl Game {
    /// The game with the camps' keys the match's earlier games bound (the shell reads them): a
    /// declaration of another key for one of those camps is refused.
    pub fn with_match_camps(mut self, camps: Vec<MatchCamp>) -> Game {
        self.witness.match_camps = camps;
        self
    }

    /// The earlier game that bound camp `name` to a key other than `key` (`<type> <base64>`),
    /// with that key.
    pub fn camp_bound_elsewhere(&self, name: &str, key: &str) -> Option<&MatchCamp> {
        self.witness
            .match_camps
            .iter()
            .find(|c| c.name == name && c.key != key)
    }

    /// A profile that has the camps witness live (`[witness] every`) opens no game without them:
    /// every camp `[witness] camps` names, or (without `camps`) at least one camp, declared with
    /// its proof before line 0 is written — the match policy would ask for cosignatures no one
    /// could give.
    pub(super) fn check_live_camps_declared(&self) -> Result<(), crate::core::Refusal> {
        let Some(w) = self.profile.witness.as_ref() else {
            return Ok(());
        };
        let Some(every) = w.every else {
            return Ok(());
        };
        let declared = |c: &str| self.draft.camps.iter().any(|d| d.name == c);
        let missing = match &w.camps {
            Some(named) => named.iter().find(|c| !declared(c)).cloned(),
            None if self.draft.camps.is_empty() => Some("NAME".to_owned()),
            None => None,
        };
        match missing {
            None => Ok(()),
            Some(c) => super::refuse(
                crate::core::clause::ARBITER,
                format!(
                    "the profile has the camps witness live {} ([witness] {}), but {}: declare it with its proof first (arbiter declare camp {c} proof FILE); the game is not opened",
                    crate::core::rules::every_entries(every),
                    if w.camps.is_some() { "camps" } else { "every" },
                    if w.camps.is_some() {
                        format!("camp {c} is not declared")
                    } else {
                        "no camp is declared".to_owned()
                    }
                ),
            ),
        }
    }

    /// Time controls both sides have passed (each side's periods completed, counting repeats).
    pub fn controls_passed(&self) -> usize {
        Side::BOTH
            .iter()
            .map(|&side| {
                let moves = self.moves_of(side);
                match self.profile.slot_of(side, moves) {
                    Some(s) if s.control.is_some_and(|c| moves >= c) => s.index + 1,
                    Some(s) => s.index,
                    None => 0,
                }
            })
            .min()
            .unwrap_or(0)
    }

    /// [`Game::controls_passed`] under a profile with `countersign_at_controls`, else 0 (the
    /// fold skips the count where nothing uses it).
    pub(in crate::core) fn controls_passed_if_witnessed(&self) -> usize {
        if self.profile.countersign_at_controls() {
            self.controls_passed()
        } else {
            0
        }
    }

    /// The latest time control the camps are asked to countersign (only under a profile with
    /// `[witness] countersign_at_controls`, only while the game is played).
    pub fn control_to_countersign(&self) -> Option<&ControlDue> {
        (self.profile.countersign_at_controls() && self.phase == super::Phase::Playing)
            .then_some(self.witness.due.as_ref())
            .flatten()
    }

    /// The arbiter's and committee's entries `0..before` the fold keeps (all since the start
    /// but the oldest beyond [`ACTS_KEPT`]).
    pub fn acts_before(&self, before: u64) -> Acts {
        Acts {
            list: self
                .witness
                .acts
                .iter()
                .filter(|(seq, _, _)| *seq < before)
                .map(|(seq, kind, clause)| (*seq, format!("#{seq} {kind} (clause {clause})")))
                .collect(),
            not_kept: self.witness.not_kept,
        }
    }

    /// The latest entry after line 0 that changes a result, a clock or a ruling (0: none): the
    /// game's end is witnessed by a camp's countersignature of a checkpoint past it.
    pub fn last_witnessed_change(&self) -> u64 {
        self.witness.last_change
    }

    /// Fold `e` (just applied, as entry `seq`) into what the camps sign at the next control
    /// and at the end.
    pub(in crate::core) fn note_for_camps(&mut self, e: &Event, seq: u64, passed_before: usize) {
        // Line 0 is the declarations, which the camps saw before the start (as `countersign`
        // lists from entry 1).
        if seq == 0 || is_neutral(&e.kind) {
            return;
        }
        self.witness.last_change = seq;
        if matches!(e.actor, Actor::Arbiter | Actor::Committee) {
            let w = &mut self.witness;
            if w.acts.push((seq, e.kind_str(), e.clause.clone())) {
                w.not_kept += 1;
            }
        }
        if !self.profile.countersign_at_controls() {
            return;
        }
        let passed = self.controls_passed();
        if passed > passed_before {
            let move_number = Side::BOTH
                .iter()
                .filter_map(|&s| {
                    let moves = self.moves_of(s);
                    // The schedule may repeat without end: stop at the first control ahead.
                    self.profile
                        .schedule(s)
                        .map_while(|slot| slot.control.filter(|&c| c <= moves))
                        .last()
                })
                .min()
                .unwrap_or(0);
            let at: Ms = e.at;
            self.witness.due = Some(ControlDue {
                control: passed,
                move_number,
                entry: seq,
                clocks: [
                    self.remaining(Side::White, at),
                    self.remaining(Side::Black, at),
                ],
            });
        }
    }
}

#[cfg(test)]
mod kept_tests {
    use super::*;

    #[test]
    fn kept_acts_equal_a_plain_list_of_the_latest_through_clones() {
        // The chunked list keeps what the plain list of the latest ACTS_KEPT kept,
        // and a clone changed afterwards leaves the original as it was.
        type Plain = (u64, String);
        let mut kept = Kept::<Plain>::default();
        let mut plain: VecDeque<(u64, String)> = VecDeque::new();
        let mut dropped = (0u64, 0u64);
        let mut earlier: Vec<(Kept<Plain>, Vec<Plain>)> = Vec::new();
        for seq in 0..(3 * ACTS_KEPT as u64 + 77) {
            let act = (seq, format!("#{seq}"));
            if plain.len() == ACTS_KEPT {
                plain.pop_front();
                dropped.0 += 1;
            }
            plain.push_back(act.clone());
            if kept.push(act) {
                dropped.1 += 1;
            }
            if seq % 301 == 0 {
                earlier.push((kept.clone(), plain.iter().cloned().collect()));
            }
            assert_eq!(kept.len, plain.len());
        }
        assert!(kept.iter().eq(plain.iter()));
        assert_eq!(dropped.0, dropped.1);
        for (k, p) in &earlier {
            assert!(k.iter().eq(p.iter()), "a clone kept its own acts");
        }
    }
}
