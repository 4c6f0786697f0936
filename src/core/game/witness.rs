//! Rule 3's time controls, witnessed (issue 19): the camps countersign at each control where
//! the profile says (`[witness] countersign_at_controls`). What they are asked to sign is folded
//! from the log like all state: the control just passed, both clocks at the control move, and
//! every entry of the arbiter or the committee (corrections, rulings, voids) since the previous
//! control.
use super::Game;
use crate::core::event::Event;
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
    /// Every entry of the arbiter or the committee since the previous control (or the start),
    /// as `#SEQ kind (clause C)`.
    pub rulings: Vec<String>,
}

/// The fold's state: the latest control due, the entries pending since.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ControlWitness {
    due: Option<ControlDue>,
    pending: Vec<String>,
}

impl Game {
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

    /// Fold `e` (just applied, as entry `seq`) into what the camps sign at the next control.
    pub(in crate::core) fn note_for_camps(&mut self, e: &Event, seq: u64, passed_before: usize) {
        if !self.profile.countersign_at_controls() {
            return;
        }
        // Line 0 is the declarations, which the camps saw before the start (as `countersign`
        // lists from entry 1).
        if seq > 0 && matches!(e.actor, Actor::Arbiter | Actor::Committee) {
            let kind = e.kind_name();
            if !NEUTRAL.contains(&kind.as_str()) {
                self.witness
                    .pending
                    .push(format!("#{seq} {kind} (clause {})", e.clause));
            }
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
                rulings: std::mem::take(&mut self.witness.pending),
            });
        }
    }
}
