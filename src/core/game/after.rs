//! Rule 13, after the game: the machine's log handed over in copies within the deadline (13a), its
//! content checked against the game (13c), the program copy (13d). The shell examines, compares and
//! stores the files and measures the delivery time; the core decides from the profile whether the
//! hand-over is accepted, whether it is late, and which clause the entry cites.
use super::*;

/// What the shell found when the operator handed the files over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HandoverFacts {
    /// Byte-identical copies of the machine's log handed over (13a).
    pub copies: usize,
    /// Delivery time minus the game's end, in milliseconds (UTC, measured by the shell).
    pub after_end_ms: i64,
    /// The delivery time as it is recorded (RFC 3339).
    pub delivered: String,
    /// The record of the stored log: the copies, the stored file, the checksum file, 13c coverage.
    pub log: serde_json::Map<String, serde_json::Value>,
    /// The record of the stored program copy (13d), if one was handed over.
    pub program: Option<serde_json::Map<String, serde_json::Value>>,
}

/// The profile's terms for a hand-over, once the core has accepted it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandoverTerms {
    /// Copies the profile asks for (13a; 1 when the profile has no 13a section).
    pub min_copies: usize,
    /// The 13a deadline after the game's end, if the profile sets one.
    pub log_deadline_ms: Option<i64>,
    /// The 13d deadline after the game's end, if the profile sets one.
    pub program_deadline_ms: Option<i64>,
}

impl HandoverTerms {
    /// Whether a delivery `after_end_ms` after the end misses a deadline.
    pub fn late(deadline_ms: Option<i64>, after_end_ms: i64) -> bool {
        deadline_ms.is_some_and(|d| after_end_ms > d)
    }
}

/// What has been handed over after the game (set by the archive entries).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Handed {
    pub log: bool,
    pub program: bool,
}

/// The after-game deadlines of rule 13 and what is still owed, for the Board UI's countdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HandoverDue {
    /// When the machine's log copies are due (13a), if the profile sets a deadline.
    pub log_at: Option<Ms>,
    /// Copies the profile asks for (13a).
    pub min_copies: u32,
    /// When the program copy is due (13d), if the profile sets a deadline.
    pub program_at: Option<Ms>,
    pub log_handed: bool,
    pub program_handed: bool,
}

impl Game {
    /// Rule 13's deadlines counted from the end of the game, and what has been handed over;
    /// `None` before the result or when the profile has no rule 13.
    pub fn handover_due(&self) -> Option<HandoverDue> {
        let end = self.outcome.as_ref()?.at;
        let log = self.profile.engine_log.as_ref();
        let program = self.profile.program_copy.as_ref();
        if log.is_none() && program.is_none() {
            return None;
        }
        Some(HandoverDue {
            log_at: log.map(|r| end.saturating_add(r.deadline_seconds.saturating_mul(1000))),
            min_copies: log.map_or(1, |r| r.min_copies),
            program_at: program
                .map(|r| end.saturating_add(r.deadline_seconds.saturating_mul(1000))),
            log_handed: self.handed.log,
            program_handed: self.handed.program,
        })
    }

    /// Apply an event of this family (dispatched by [`Game::evolve`]).
    pub(super) fn evolve_after(&mut self, e: &Event) -> Result<(), Inconsistent> {
        match &e.kind {
            EventKind::EngineLogArchived(_) => self.handed.log = true,
            EventKind::ProgramArchived(_) => self.handed.program = true,
            _ => {}
        }
        Ok(())
    }

    /// The terms of rule 13 for this game, or why a hand-over of `copies` copies delivered
    /// `after_end_ms` after the end is refused: the game must have a result (13a), the delivery
    /// cannot precede the end, and the profile's number of copies is required (13a). A refusal
    /// cites the profile's article (`game/cite.rs`).
    pub fn handover_terms(
        &self,
        copies: usize,
        after_end_ms: i64,
    ) -> Result<HandoverTerms, Refusal> {
        self.handover_terms_2003(copies, after_end_ms)
            .map_err(|r| self.cited_refusal(r, None))
    }

    fn handover_terms_2003(
        &self,
        copies: usize,
        after_end_ms: i64,
    ) -> Result<HandoverTerms, Refusal> {
        if self.phase != Phase::Ended {
            return refuse(
                c::ENGINE_LOG,
                "the machine's log is handed over after the conclusion of the game; this game has no result yet",
            );
        }
        if after_end_ms < 0 {
            return refuse(
                c::ENGINE_LOG,
                format!(
                    "the delivery time is {} before the end of the game; the machine's log is handed over after the conclusion of the game",
                    crate::core::timefmt::clock(-after_end_ms)
                ),
            );
        }
        let log = self.profile.engine_log.as_ref();
        let min_copies = log.map_or(1, |r| r.min_copies as usize).max(1);
        if copies < min_copies {
            return refuse(
                c::ENGINE_LOG,
                format!(
                    "{copies} copy/copies of the machine's log handed over; at least {min_copies} are required"
                ),
            );
        }
        let ms = |s: u64| i64::try_from(s.saturating_mul(1000)).unwrap_or(i64::MAX);
        Ok(HandoverTerms {
            min_copies,
            log_deadline_ms: log.map(|r| ms(r.deadline_seconds)),
            program_deadline_ms: self
                .profile
                .program_copy
                .as_ref()
                .map(|r| ms(r.deadline_seconds)),
        })
    }

    /// Decide a command of this family (dispatched by [`Game::decide`]).
    pub(super) fn decide_after(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        let f = match cmd {
            Command::Handover(f) => f,
            Command::HandOverFiles { .. } => {
                self.handover_terms(usize::MAX, 0)?;
                return refuse_state(
                    "the files handed over are examined by the Board UI of a match folder or by `arbiter archive`, not in this session",
                );
            }
            _ => return refuse_state("not a command of this rule family"),
        };
        let terms = self.handover_terms(f.copies, f.after_end_ms)?;
        let late = HandoverTerms::late(terms.log_deadline_ms, f.after_end_ms);
        let score = self.outcome.as_ref().map_or(Score::Draw, |o| o.score);
        let mut body = f.log.clone();
        body.insert("delivered".into(), f.delivered.clone().into());
        body.insert("after_game_end_ms".into(), f.after_end_ms.into());
        body.insert(
            "deadline_ms".into(),
            terms
                .log_deadline_ms
                .map_or(serde_json::Value::Null, Into::into),
        );
        body.insert("late".into(), late.into());
        body.insert("min_copies".into(), terms.min_copies.into());
        body.insert("result".into(), score.text().into());
        let clause = if late {
            c::ENGINE_LOG
        } else {
            c::ENGINE_LOG_CONTENT
        };
        let mut out = vec![self.ev(
            now,
            Actor::Arbiter,
            clause,
            EventKind::EngineLogArchived(serde_json::Value::Object(body)),
        )];
        if let Some(p) = &f.program {
            let plate = HandoverTerms::late(terms.program_deadline_ms, f.after_end_ms);
            let mut pbody = serde_json::Map::new();
            pbody.insert(
                "stored".into(),
                p.get("stored").cloned().unwrap_or_default(),
            );
            pbody.insert("delivered".into(), f.delivered.clone().into());
            pbody.insert("after_game_end_ms".into(), f.after_end_ms.into());
            pbody.insert(
                "deadline_ms".into(),
                terms
                    .program_deadline_ms
                    .map_or(serde_json::Value::Null, Into::into),
            );
            pbody.insert("late".into(), plate.into());
            pbody.insert(
                "confidential".into(),
                "13d: kept by the arbiter, not distributed".into(),
            );
            out.push(self.ev(
                now,
                Actor::Arbiter,
                c::PROGRAM_COPY,
                EventKind::ProgramArchived(serde_json::Value::Object(pbody)),
            ));
        }
        Ok(out)
    }
}
