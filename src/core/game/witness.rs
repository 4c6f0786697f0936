//! Rule 3's time controls, witnessed (issue 19): the camps countersign at each control where
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
    acts: std::sync::Arc<VecDeque<(u64, String)>>,
    not_kept: u64,
    /// The latest entry (after line 0) that changes a result, a clock or a ruling: a camp has
    /// witnessed the game once it countersigned a checkpoint past it (as `verify` judges).
    last_change: u64,
    /// Each camp's key as the match's earlier games bound it (given by the shell).
    match_camps: Vec<MatchCamp>,
}

/// A camp's key as the first earlier game of the match declaring it bound it (line 0): a camp's
/// key is the match's from its first declaration (issue 19).
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
                .filter(|(seq, _)| *seq < before)
                .cloned()
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
            let acts = std::sync::Arc::make_mut(&mut w.acts);
            if acts.len() == ACTS_KEPT {
                acts.pop_front();
                w.not_kept += 1;
            }
            acts.push_back((
                seq,
                format!("#{seq} {} (clause {})", e.kind_name(), e.clause),
            ));
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
