//! The committee report as data: a pure function of the game's events (with each entry's UTC
//! text), the log's verification status and the version asked for (committee or public). The
//! renderers (`html`, `markdown`, `svg`) are pure functions of this model.
use serde::Serialize;

use crate::core::event::{
    ClockSet, Declarations, DeclineHow, Event, EventKind, Justification, KeyRef, Termination,
};
use crate::core::game::Game;
use crate::core::rules::Profile;
use crate::core::view::numbered;
use crate::core::{Ms, Side, clause, timefmt};

/// The verification status of the log, filled by the verifier (an input of the report).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verification {
    pub status: String,
    pub detail: String,
    /// Entries in the log.
    pub entries: usize,
    /// Entries covered by the latest signed checkpoint, if any.
    pub signed_upto: Option<usize>,
}

impl Verification {
    /// What a build without the verifier says.
    pub fn not_checked(entries: usize) -> Verification {
        Verification {
            status: "not checked by this build".into(),
            detail: "the chain and signatures of the log were not verified when this report was \
                     made; run `arbiter verify`"
                .into(),
            entries,
            signed_upto: None,
        }
    }
}

/// Which release a report is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Version {
    /// For the arbiter and the Arbitration and Rules Committee (12, 13b, 13e).
    Committee,
    /// The after-game release of the log of machine-related actions (5b), without what 13e
    /// keeps confidential.
    Public,
}

impl Version {
    pub fn title(self) -> &'static str {
        match self {
            Version::Committee => "Committee version (confidential: rule 13e)",
            Version::Public => "Public version (rule 5b release)",
        }
    }
    pub fn note(self) -> &'static str {
        match self {
            Version::Committee => {
                "This version includes the engine-log contents (per-move engine details and file \
                 digests), which rule 13e keeps confidential to the arbiter and the Arbitration \
                 and Rules Committee. Do not release it."
            }
            Version::Public => {
                "This is the public release of the log of machine-related actions (rule 5b). The \
                 engine-log contents (per-move engine details and file digests) are left out: \
                 rule 13e keeps them confidential to the arbiter and the committee."
            }
        }
    }
}

/// When an entry was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stamp {
    /// 0-based entry number in the log.
    pub entry: usize,
    pub at_ms: Ms,
    /// Game time, `h:mm:ss`.
    pub game_time: String,
    /// UTC as written in the log (empty when unknown).
    pub utc: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Declared {
    pub declarations: Declarations,
    pub rules_name: String,
    pub rules_file: String,
    pub rules_sha256: String,
    pub arbiter_key: KeyRef,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimelineEntry {
    pub stamp: Stamp,
    pub actor: String,
    pub clause: String,
    pub kind: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveRow {
    pub stamp: Stamp,
    /// 0-based ply.
    pub ply: usize,
    /// Move number (1-based, per side).
    pub number: u32,
    pub side: Side,
    pub san: String,
    pub spent_ms: Ms,
    pub remaining_ms: i64,
    /// 1-based period the move was made in.
    pub period: usize,
    /// The move rejected the opponent's draw offer (9e).
    pub declines_draw: bool,
    /// The move as first executed, when 7c replaced it with the machine's move.
    pub corrected_from: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Series {
    pub side: Side,
    pub name: String,
    /// (move number, remaining ms after the move), one per move.
    pub points: Vec<(u32, i64)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum MarkKind {
    /// 7c: time added to the human's clock.
    Penalty,
    /// 6d / 7e: the arbiter corrected a clock; a charged restart gap.
    Correction,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mark {
    pub kind: MarkKind,
    pub side: Side,
    /// Moves the side had made when the mark happened, plus one half.
    pub x: f64,
    /// The side's remaining time after the mark.
    pub y_ms: i64,
    pub label: String,
}

/// The clock chart: both sides' remaining time per move.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chart {
    pub series: [Series; 2],
    /// Move numbers after which a time control falls (e.g. 40 and 60).
    pub period_lines: Vec<u32>,
    pub marks: Vec<Mark>,
    /// Largest time to show (ms), at least the first period's budget.
    pub max_ms: i64,
    /// Largest move number to show.
    pub max_move: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Consultation {
    pub started: Stamp,
    pub with: Vec<String>,
    pub ended: Option<Stamp>,
    pub used_ms: Option<Ms>,
    pub limit_reached: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DrawOfferRow {
    pub stamp: Stamp,
    pub by: Side,
    pub by_name: String,
    pub clause: String,
    /// The move the offer was made with (numbered SAN).
    pub with_move: Option<String>,
    /// 9d: why the machine offered.
    pub justification: Option<String>,
    pub consultations: Vec<Consultation>,
    /// Consultation used on this offer in total (9e).
    pub consultation_ms: Ms,
    pub limit_reached: bool,
    pub answered: Option<Stamp>,
    pub outcome: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InfractionRow {
    pub stamp: Stamp,
    pub clause: String,
    pub played: String,
    pub correct: String,
    pub pressed: bool,
    pub infraction: u32,
    pub penalty_ms: Ms,
    pub forfeit: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum IncidentKind {
    /// 8a.
    Technical,
    /// 8b.
    Power,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IncidentRow {
    pub kind: IncidentKind,
    pub clause: String,
    pub start: Stamp,
    pub text: String,
    pub end: Option<Stamp>,
    /// From start to end.
    pub duration_ms: Option<Ms>,
    /// Named parts of the incident with their lengths.
    pub durations: Vec<(String, Ms)>,
    /// What happened during it, in order.
    pub details: Vec<(Stamp, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DisputeRow {
    pub id: u32,
    pub raised: Stamp,
    pub text: String,
    /// (when, ruling id, text).
    pub rulings: Vec<(Stamp, u32, String)>,
    /// The game ended by the arbiter's decision on one of these rulings.
    pub decision: Option<(Stamp, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParameterRow {
    /// `6g` (set before the machine's first move) or `6l` (correction requested).
    pub clause: String,
    pub id: Option<u32>,
    pub stamp: Stamp,
    pub name: String,
    /// The value set (6g) or the reason given (6l).
    pub text: String,
    pub advice: Vec<(Stamp, String)>,
    /// (when, permitted, reason).
    pub decision: Option<(Stamp, bool, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveProblem {
    pub number: String,
    pub san: String,
    pub problems: Vec<String>,
}

/// An `engine_log_archived` (13a, 13c) or `program_archived` (13d) entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchiveSection {
    pub stamp: Stamp,
    pub clause: String,
    pub what: String,
    pub summary: Option<String>,
    pub status: Option<String>,
    /// Moves with problems (committee version only).
    pub move_problems: Vec<MoveProblem>,
    /// The rest of the body as key/values (digests and per-move data left out when public).
    pub fields: Vec<(String, String)>,
    /// Items left out of this version under rule 13e.
    pub withheld: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResultRow {
    pub stamp: Stamp,
    pub score: String,
    pub termination: String,
    pub clause: String,
    pub detail: String,
    pub ruling: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub version: Version,
    pub match_id: String,
    pub game: u32,
    pub kit_version: String,
    pub declared: Option<Declared>,
    pub verification: Verification,
    pub timeline: Vec<TimelineEntry>,
    pub moves: Vec<MoveRow>,
    pub chart: Chart,
    pub draw_offers: Vec<DrawOfferRow>,
    pub infractions: Vec<InfractionRow>,
    pub incidents: Vec<IncidentRow>,
    pub disputes: Vec<DisputeRow>,
    pub parameters: Vec<ParameterRow>,
    pub archives: Vec<ArchiveSection>,
    pub result: Option<ResultRow>,
    /// Problems met while reading the log (the report is made anyway).
    pub warnings: Vec<String>,
}

impl Report {
    pub fn name(&self, side: Side) -> String {
        self.declared
            .as_ref()
            .map(|d| match side {
                Side::White => d.declarations.white.name.clone(),
                Side::Black => d.declarations.black.name.clone(),
            })
            .unwrap_or_else(|| side.to_string())
    }
}

/// A duration as `h:mm:ss`.
pub fn hms(ms: Ms) -> String {
    timefmt::clock(i64::try_from(ms).unwrap_or(i64::MAX))
}

/// A signed duration: `+0:10:00`, `-0:00:30`.
pub fn signed_hms(ms: i64) -> String {
    if ms < 0 {
        format!("-{}", hms(ms.unsigned_abs()))
    } else {
        format!("+{}", hms(ms.unsigned_abs()))
    }
}

fn words(s: &str) -> String {
    s.replace('_', " ")
}

fn serde_name<T: Serialize>(t: &T) -> String {
    serde_json::to_value(t)
        .ok()
        .and_then(|v| v.as_str().map(words))
        .unwrap_or_default()
}

pub fn termination_text(t: Termination) -> String {
    serde_name(&t)
}

fn justification_text(j: &Justification) -> String {
    match j {
        Justification::Eval { cp } => format!("evaluation {:+.2} (pawns)", f64::from(*cp) / 100.0),
        Justification::Repetition { line } => format!("repetition line {line}"),
    }
}

// ----- building ---------------------------------------------------------------------------

struct Builder<'a> {
    utc: &'a [String],
    public: bool,
    names: [String; 2],
    /// The replayed game, while every entry applied.
    game: Option<Game>,
    report: Report,
    /// Moves of the game as it stands (take-backs remove, 7c replaces).
    line: Vec<MoveRow>,
    /// Index into `draw_offers` of the latest offer by each side.
    offer_of: [Option<usize>; 2],
    open_technical: Option<usize>,
    open_power: Option<usize>,
    open_info: Option<Stamp>,
}

fn stamp(i: usize, e: &Event, utc: &[String]) -> Stamp {
    Stamp {
        entry: i,
        at_ms: e.at,
        game_time: hms(e.at),
        utc: utc.get(i).cloned().unwrap_or_default(),
    }
}

fn empty_chart() -> Chart {
    Chart {
        series: Side::BOTH.map(|side| Series {
            side,
            name: side.to_string(),
            points: Vec::new(),
        }),
        period_lines: Vec::new(),
        marks: Vec::new(),
        max_ms: 0,
        max_move: 0,
    }
}

/// Build the report of one game. `utc[i]` is the UTC text of event `i` (missing entries are
/// shown empty). With `public`, what rule 13e keeps confidential is left out.
pub fn build(
    events: &[Event],
    utc: &[String],
    verification: &Verification,
    public: bool,
) -> Report {
    let report = Report {
        version: if public {
            Version::Public
        } else {
            Version::Committee
        },
        match_id: String::new(),
        game: 0,
        kit_version: String::new(),
        declared: None,
        verification: verification.clone(),
        timeline: Vec::new(),
        moves: Vec::new(),
        chart: empty_chart(),
        draw_offers: Vec::new(),
        infractions: Vec::new(),
        incidents: Vec::new(),
        disputes: Vec::new(),
        parameters: Vec::new(),
        archives: Vec::new(),
        result: None,
        warnings: Vec::new(),
    };
    let mut b = Builder {
        utc,
        public,
        names: [Side::White.to_string(), Side::Black.to_string()],
        game: None,
        report,
        line: Vec::new(),
        offer_of: [None, None],
        open_technical: None,
        open_power: None,
        open_info: None,
    };
    let mut profile: Option<Profile> = None;
    match events.first().map(|e| &e.kind) {
        Some(EventKind::GameOpened(o)) => {
            b.report.match_id = o.match_id.clone();
            b.report.game = o.game;
            b.report.kit_version = o.kit_version.clone();
            b.names = [
                o.declarations.white.name.clone(),
                o.declarations.black.name.clone(),
            ];
            b.report.declared = Some(Declared {
                declarations: o.declarations.clone(),
                rules_name: o.profile.name.clone(),
                rules_file: o.profile.file.clone(),
                rules_sha256: o.profile.sha256.clone(),
                arbiter_key: o.arbiter_key.clone(),
            });
            match Game::from_opening(o) {
                Ok(g) => {
                    profile = Some(g.profile.clone());
                    b.game = Some(g);
                }
                Err(m) => b.report.warnings.push(format!("entry 0: {m}")),
            }
        }
        Some(_) => b
            .report
            .warnings
            .push("the first entry is not game_opened".into()),
        None => b.report.warnings.push("the log is empty".into()),
    }
    for (i, e) in events.iter().enumerate() {
        b.apply(i, e);
    }
    b.finish(profile.as_ref());
    b.report
}

impl Builder<'_> {
    fn name(&self, side: Side) -> String {
        self.names[side.index()].clone()
    }

    fn who(&self, side: Side) -> String {
        format!("{} ({side})", self.name(side))
    }

    fn moves_of(&self, side: Side) -> u32 {
        self.line.iter().filter(|m| m.side == side).count() as u32
    }

    fn human_side(&self) -> Option<Side> {
        self.game.as_ref().and_then(|g| g.human_side()).or_else(|| {
            self.report.declared.as_ref().and_then(|d| {
                use crate::core::event::PlayerKind::Human;
                if d.declarations.white.kind == Human {
                    Some(Side::White)
                } else if d.declarations.black.kind == Human {
                    Some(Side::Black)
                } else {
                    None
                }
            })
        })
    }

    fn apply(&mut self, i: usize, e: &Event) {
        if let Some(g) = &mut self.game
            && let Err(m) = g.evolve(e)
        {
            self.report.warnings.push(format!(
                "entry {i} ({}) does not apply to the game: {m}; later figures are taken from \
                 the log as written",
                e.kind_name()
            ));
            self.game = None;
        }
        let s = stamp(i, e, self.utc);
        let text = self.describe(e);
        let in_timeline = match &e.kind {
            EventKind::MoveMade { declines_draw, .. } => *declines_draw,
            _ => true,
        };
        if in_timeline {
            self.report.timeline.push(TimelineEntry {
                stamp: s.clone(),
                actor: e.actor.name().to_string(),
                clause: e.clause.clone(),
                kind: e.kind_name(),
                text,
            });
        }
        self.collect(s, e);
    }

    /// One line for the timeline.
    fn describe(&self, e: &Event) -> String {
        use EventKind as K;
        match &e.kind {
            K::GameOpened(o) => format!(
                "game {} of match {} opened; declarations bound (rules: {})",
                o.game, o.match_id, o.profile.name
            ),
            K::ClockStarted { side } => format!("clock of {} started", self.who(*side)),
            K::MoveMade {
                side,
                san,
                declines_draw,
                ..
            } => {
                // Described before `collect` adds it: its ply is the current length.
                let mut t = format!("{} by {}", numbered(self.line.len(), san), self.who(*side));
                if *declines_draw {
                    t.push_str(": made without answering the draw offer, which rejects it (9e)");
                }
                t
            }
            K::ClockStopped { reason } => format!("both clocks stopped: {reason}"),
            K::ClockResumed { side } => format!("clock of {} restarted", self.who(*side)),
            K::InternalClockReported {
                reading_ms,
                game_clock_ms,
                diff_ms,
                threshold_ms,
                correction_owed,
            } => format!(
                "internal clock reported at {} against game clock {} (difference {}, threshold {}){}",
                hms(*reading_ms),
                timefmt::clock(*game_clock_ms),
                signed_hms(*diff_ms),
                hms(*threshold_ms),
                if *correction_owed {
                    "; correction owed"
                } else {
                    ""
                }
            ),
            K::InternalClockCorrected { from_ms, to_ms } => format!(
                "internal clock set from {} to the game clock {}",
                hms(*from_ms),
                timefmt::clock(*to_ms)
            ),
            K::ClockCorrected {
                side,
                how,
                from_ms,
                to_ms,
                delta_ms,
                reason,
            } => format!(
                "clock of {} {} from {} to {} ({}): {reason}",
                self.who(*side),
                match how {
                    ClockSet::Remaining => "set",
                    ClockSet::Delta => "adjusted",
                },
                timefmt::clock(*from_ms),
                timefmt::clock(*to_ms),
                signed_hms(*delta_ms)
            ),
            K::MovesTakenBack {
                plies,
                removed,
                reason,
                ..
            } => format!(
                "{plies} move(s) taken back ({}): {reason}",
                removed.join(" ")
            ),
            K::ParameterSet { name, value } => {
                format!("parameter {name} set to {value} before the machine's first move")
            }
            K::ParameterRequested { id, name, reason } => {
                format!("request {id}: correct parameter {name}: {reason}")
            }
            K::CommitteeAdvised { request, text } => {
                format!("committee advice on request {request}: {text}")
            }
            K::ParameterDecided {
                id,
                permitted,
                reason,
            } => format!(
                "request {id} {}: {reason}",
                if *permitted { "permitted" } else { "refused" }
            ),
            K::WrongMove {
                played,
                correct,
                pressed,
                infraction,
                penalty_ms,
                forfeit,
                ..
            } => {
                if *pressed {
                    let mut t = format!(
                        "operator executed {played} and pressed the clock; the machine's move \
                         is {correct}: corrected (infraction {infraction})"
                    );
                    if *penalty_ms > 0 {
                        t.push_str(&format!(
                            "; {} added to the human's clock",
                            hms(*penalty_ms)
                        ));
                    }
                    if *forfeit {
                        t.push_str("; the machine forfeits the game");
                    }
                    t
                } else {
                    format!(
                        "operator executed {played} on the board, the machine's move is \
                         {correct}; clock not pressed: move re-entered"
                    )
                }
            }
            K::TechnicalProblem { text } => {
                format!("technical problem: {text} (machine's clock keeps running)")
            }
            K::WorkNote { text } => format!("work note: {text}"),
            K::InfoStopped { question } => {
                format!("machine's clock stopped to ask: {question}")
            }
            K::InfoResumed => "information received; machine's clock restarted".into(),
            K::TechnicalResolved { text } => format!("machine restored: {text}"),
            K::PowerFailed { text } => format!("power failure: {text}; game suspended"),
            K::PowerRestored { window_ms } => {
                format!("power restored; reset window of {} starts", hms(*window_ms))
            }
            K::MachineReset => "machine reset reported by the operator".into(),
            K::DrawOffered { by, justification } => match justification {
                Some(j) => format!(
                    "draw offered by {} ({})",
                    self.who(*by),
                    justification_text(j)
                ),
                None => format!("draw offered by {}", self.who(*by)),
            },
            K::ConsultationStarted { with } => {
                format!("consultation started with {}", with.join(", "))
            }
            K::ConsultationEnded {
                used_ms,
                total_ms,
                limit_reached,
            } => format!(
                "consultation ended after {} ({} in total on this offer){}",
                hms(*used_ms),
                hms(*total_ms),
                if *limit_reached {
                    "; the ten-minute limit was reached"
                } else {
                    ""
                }
            ),
            K::DrawDeclined { by, how } => match how {
                DeclineHow::Declined => format!("draw offer declined by {}", self.who(*by)),
                DeclineHow::ByMove => {
                    format!("draw offer rejected by {}'s move (9e)", self.who(*by))
                }
            },
            K::DisputeRaised { id, text } => format!("dispute {id}: {text}"),
            K::RulingGiven { id, dispute, text } => {
                format!("ruling {id} on dispute {dispute}: {text}")
            }
            K::Note { text } => format!("note: {text}"),
            K::RestartGap {
                gap_ms,
                charged,
                side,
            } => format!(
                "gap of {} after a restart of the kit {}",
                hms(*gap_ms),
                match (charged, side) {
                    (true, Some(s)) => format!("charged to {}", self.who(*s)),
                    (true, None) => "charged (no clock running)".into(),
                    (false, _) => "waived".into(),
                }
            ),
            K::GameEnded {
                score,
                termination,
                detail,
                ruling,
                ..
            } => {
                let mut t = format!(
                    "game ended {} by {}: {detail}",
                    score.text(),
                    termination_text(*termination)
                );
                if let Some(r) = ruling {
                    t.push_str(&format!(" (ruling {r})"));
                }
                t
            }
            K::Recovery(_) => "the journal cut off a torn last line when the log was opened".into(),
            K::EngineLogArchived(v) => {
                let mut t = "machine's log file archived".to_string();
                if let Some(s) = v.pointer("/coverage/summary").and_then(|s| s.as_str()) {
                    t.push_str(&format!(": {s}"));
                }
                t
            }
            K::ProgramArchived(_) => "copy of the program archived".into(),
        }
    }

    fn collect(&mut self, s: Stamp, e: &Event) {
        use EventKind as K;
        match &e.kind {
            K::MoveMade {
                side,
                san,
                spent_ms,
                remaining_ms,
                declines_draw,
                ..
            } => {
                let number = self.moves_of(*side) + 1;
                let period = self
                    .game
                    .as_ref()
                    .map_or(1, |g| g.profile.period_of(*side, number - 1).0 + 1);
                let ply = self.line.len();
                self.line.push(MoveRow {
                    stamp: s.clone(),
                    ply,
                    number,
                    side: *side,
                    san: san.clone(),
                    spent_ms: *spent_ms,
                    remaining_ms: *remaining_ms,
                    period,
                    declines_draw: *declines_draw,
                    corrected_from: None,
                });
                if *declines_draw
                    && let Some(k) = self.offer_of[side.other().index()]
                    && let Some(o) = self.report.draw_offers.get_mut(k)
                    && o.answered.is_none()
                {
                    o.answered = Some(s);
                    o.outcome = format!(
                        "rejected by {}'s move {} (9e)",
                        self.names[side.index()],
                        numbered(ply, san)
                    );
                }
            }
            K::MovesTakenBack { plies, .. } => {
                let keep = self.line.len().saturating_sub(*plies);
                self.line.truncate(keep);
            }
            K::WrongMove {
                played,
                correct,
                pressed,
                infraction,
                penalty_ms,
                forfeit,
                ..
            } => {
                if *pressed && let Some(last) = self.line.last_mut() {
                    last.corrected_from = Some(last.san.clone());
                    last.san = correct.clone();
                }
                if *pressed
                    && *penalty_ms > 0
                    && let Some(h) = self.human_side()
                {
                    let y = match &self.game {
                        Some(g) => g.remaining(h, e.at),
                        None => {
                            self.line
                                .iter()
                                .rev()
                                .find(|m| m.side == h)
                                .map_or(0, |m| m.remaining_ms)
                                + *penalty_ms as i64
                        }
                    };
                    self.report.chart.marks.push(Mark {
                        kind: MarkKind::Penalty,
                        side: h,
                        x: f64::from(self.moves_of(h)) + 0.5,
                        y_ms: y,
                        label: format!(
                            "7c: {} added to {} (infraction {infraction})",
                            signed_hms(*penalty_ms as i64),
                            self.name(h)
                        ),
                    });
                }
                self.report.infractions.push(InfractionRow {
                    stamp: s,
                    clause: e.clause.clone(),
                    played: played.clone(),
                    correct: correct.clone(),
                    pressed: *pressed,
                    infraction: *infraction,
                    penalty_ms: *penalty_ms,
                    forfeit: *forfeit,
                });
            }
            K::ClockCorrected {
                side,
                to_ms,
                delta_ms,
                reason,
                ..
            } => {
                self.report.chart.marks.push(Mark {
                    kind: MarkKind::Correction,
                    side: *side,
                    x: f64::from(self.moves_of(*side)) + 0.5,
                    y_ms: *to_ms,
                    label: format!(
                        "{}: {} {} ({reason})",
                        e.clause,
                        self.name(*side),
                        signed_hms(*delta_ms)
                    ),
                });
            }
            K::RestartGap {
                gap_ms,
                charged: true,
                side: Some(side),
            } => {
                let y = self.game.as_ref().map_or_else(
                    || {
                        self.line
                            .iter()
                            .rev()
                            .find(|m| m.side == *side)
                            .map_or(0, |m| m.remaining_ms)
                    },
                    |g| g.remaining(*side, e.at),
                );
                self.report.chart.marks.push(Mark {
                    kind: MarkKind::Correction,
                    side: *side,
                    x: f64::from(self.moves_of(*side)) + 0.5,
                    y_ms: y,
                    label: format!(
                        "{}: restart gap of {} charged to {}",
                        e.clause,
                        hms(*gap_ms),
                        self.name(*side)
                    ),
                });
            }
            K::DrawOffered { by, justification } => {
                let with_move = self
                    .line
                    .last()
                    .map(|m| numbered(self.line.len() - 1, &m.san));
                self.report.draw_offers.push(DrawOfferRow {
                    stamp: s,
                    by: *by,
                    by_name: self.name(*by),
                    clause: e.clause.clone(),
                    with_move,
                    justification: justification.as_ref().map(justification_text),
                    consultations: Vec::new(),
                    consultation_ms: 0,
                    limit_reached: false,
                    answered: None,
                    outcome: "not answered".into(),
                });
                self.offer_of[by.index()] = Some(self.report.draw_offers.len() - 1);
            }
            K::ConsultationStarted { with } => {
                if let Some(o) = self.human_offer_mut() {
                    o.consultations.push(Consultation {
                        started: s,
                        with: with.clone(),
                        ended: None,
                        used_ms: None,
                        limit_reached: false,
                    });
                }
            }
            K::ConsultationEnded {
                used_ms,
                total_ms,
                limit_reached,
            } => {
                if let Some(o) = self.human_offer_mut() {
                    if let Some(c) = o.consultations.last_mut()
                        && c.ended.is_none()
                    {
                        c.ended = Some(s);
                        c.used_ms = Some(*used_ms);
                        c.limit_reached = *limit_reached;
                    }
                    o.consultation_ms = *total_ms;
                    o.limit_reached |= *limit_reached;
                }
            }
            K::DrawDeclined { by, how } => {
                let name = self.name(*by);
                if let Some(k) = self.offer_of[by.other().index()]
                    && let Some(o) = self.report.draw_offers.get_mut(k)
                    && o.answered.is_none()
                {
                    o.answered = Some(s);
                    o.outcome = match how {
                        DeclineHow::Declined => format!("declined by {name} ({})", e.clause),
                        DeclineHow::ByMove => format!("rejected by {name}'s move (9e)"),
                    };
                }
            }
            K::TechnicalProblem { text } => {
                self.report.incidents.push(IncidentRow {
                    kind: IncidentKind::Technical,
                    clause: e.clause.clone(),
                    start: s,
                    text: text.clone(),
                    end: None,
                    duration_ms: None,
                    durations: Vec::new(),
                    details: Vec::new(),
                });
                self.open_technical = Some(self.report.incidents.len() - 1);
            }
            K::WorkNote { text } => {
                if let Some(inc) = self.open_technical_mut() {
                    inc.details.push((s, format!("work note: {text}")));
                }
            }
            K::InfoStopped { question } => {
                self.open_info = Some(s.clone());
                if let Some(inc) = self.open_technical_mut() {
                    inc.details
                        .push((s, format!("machine's clock stopped to ask: {question}")));
                }
            }
            K::InfoResumed => {
                let since = self.open_info.take();
                if let Some(inc) = self.open_technical_mut() {
                    let used = since.map(|f| e.at.saturating_sub(f.at_ms));
                    if let Some(u) = used {
                        add_duration(
                            &mut inc.durations,
                            "machine's clock stopped for questions",
                            u,
                        );
                    }
                    inc.details.push((
                        s,
                        match used {
                            Some(u) => format!(
                                "information received after {}; machine's clock restarted",
                                hms(u)
                            ),
                            None => "machine's clock restarted".into(),
                        },
                    ));
                }
            }
            K::TechnicalResolved { text } => {
                if let Some(k) = self.open_technical.take()
                    && let Some(inc) = self.report.incidents.get_mut(k)
                {
                    let total = e.at.saturating_sub(inc.start.at_ms);
                    let stopped: Ms = inc.durations.iter().map(|d| d.1).sum();
                    inc.durations.insert(
                        0,
                        (
                            "machine's clock running (8a)".into(),
                            total.saturating_sub(stopped),
                        ),
                    );
                    inc.details.push((s.clone(), format!("restored: {text}")));
                    inc.end = Some(s);
                    inc.duration_ms = Some(total);
                }
            }
            K::PowerFailed { text } => {
                self.report.incidents.push(IncidentRow {
                    kind: IncidentKind::Power,
                    clause: e.clause.clone(),
                    start: s,
                    text: text.clone(),
                    end: None,
                    duration_ms: None,
                    durations: Vec::new(),
                    details: Vec::new(),
                });
                self.open_power = Some(self.report.incidents.len() - 1);
            }
            K::PowerRestored { window_ms } => {
                if let Some(inc) = self.open_power_mut() {
                    let d = e.at.saturating_sub(inc.start.at_ms);
                    inc.durations.push(("without power".into(), d));
                    inc.details.push((
                        s,
                        format!("power restored; reset window of {}", hms(*window_ms)),
                    ));
                }
            }
            K::MachineReset => {
                if let Some(inc) = self.open_power_mut() {
                    let from = inc
                        .details
                        .last()
                        .map_or(inc.start.at_ms, |(st, _)| st.at_ms);
                    inc.durations
                        .push(("machine reset".into(), e.at.saturating_sub(from)));
                    inc.details
                        .push((s, "machine reset reported by the operator".into()));
                }
            }
            K::ClockResumed { .. } => {
                if e.clause == clause::POWER_FAILURE
                    && let Some(k) = self.open_power.take()
                    && let Some(inc) = self.report.incidents.get_mut(k)
                {
                    let total = e.at.saturating_sub(inc.start.at_ms);
                    inc.durations.push(("suspended in total".into(), total));
                    inc.details.push((s.clone(), "play resumed".into()));
                    inc.end = Some(s);
                    inc.duration_ms = Some(total);
                }
            }
            K::DisputeRaised { id, text } => self.report.disputes.push(DisputeRow {
                id: *id,
                raised: s,
                text: text.clone(),
                rulings: Vec::new(),
                decision: None,
            }),
            K::RulingGiven { id, dispute, text } => {
                if let Some(d) = self.report.disputes.iter_mut().find(|d| d.id == *dispute) {
                    d.rulings.push((s, *id, text.clone()));
                }
            }
            K::ParameterSet { name, value } => self.report.parameters.push(ParameterRow {
                clause: e.clause.clone(),
                id: None,
                stamp: s,
                name: name.clone(),
                text: value.clone(),
                advice: Vec::new(),
                decision: None,
            }),
            K::ParameterRequested { id, name, reason } => {
                self.report.parameters.push(ParameterRow {
                    clause: e.clause.clone(),
                    id: Some(*id),
                    stamp: s,
                    name: name.clone(),
                    text: reason.clone(),
                    advice: Vec::new(),
                    decision: None,
                })
            }
            K::CommitteeAdvised { request, text } => {
                if let Some(p) = self.param_mut(*request) {
                    p.advice.push((s, text.clone()));
                }
            }
            K::ParameterDecided {
                id,
                permitted,
                reason,
            } => {
                if let Some(p) = self.param_mut(*id) {
                    p.decision = Some((s, *permitted, reason.clone()));
                }
            }
            K::GameEnded {
                score,
                termination,
                detail,
                ruling,
                ..
            } => {
                if *termination == Termination::DrawAgreed {
                    for k in self.offer_of.into_iter().flatten() {
                        if let Some(o) = self.report.draw_offers.get_mut(k)
                            && o.answered.is_none()
                        {
                            o.answered = Some(s.clone());
                            o.outcome = "accepted: game drawn".into();
                        }
                    }
                }
                if let Some(r) = ruling {
                    let dispute = self
                        .game
                        .as_ref()
                        .and_then(|g| g.rulings.iter().find(|(id, _)| id == r).map(|(_, d)| *d));
                    let target = self.report.disputes.iter_mut().find(|d| {
                        dispute.map_or_else(
                            || d.rulings.iter().any(|(_, id, _)| id == r),
                            |x| d.id == x,
                        )
                    });
                    if let Some(d) = target {
                        d.decision = Some((
                            s.clone(),
                            format!("game ended {} on ruling {r}: {detail}", score.text()),
                        ));
                    }
                }
                // A consultation still open ends with the game.
                self.report.result = Some(ResultRow {
                    stamp: s,
                    score: score.text().to_string(),
                    termination: termination_text(*termination),
                    clause: e.clause.clone(),
                    detail: detail.clone(),
                    ruling: *ruling,
                });
            }
            K::EngineLogArchived(v) => {
                let sec = archive_section(s, &e.clause, "Machine's log file", v, self.public);
                self.report.archives.push(sec);
            }
            K::ProgramArchived(v) => {
                let sec = archive_section(s, &e.clause, "Program copy", v, self.public);
                self.report.archives.push(sec);
            }
            _ => {}
        }
    }

    fn human_offer_mut(&mut self) -> Option<&mut DrawOfferRow> {
        let h = self.human_side()?;
        let k = self.offer_of[h.index()]?;
        self.report.draw_offers.get_mut(k)
    }

    fn open_technical_mut(&mut self) -> Option<&mut IncidentRow> {
        self.open_technical
            .and_then(|k| self.report.incidents.get_mut(k))
    }

    fn open_power_mut(&mut self) -> Option<&mut IncidentRow> {
        self.open_power
            .and_then(|k| self.report.incidents.get_mut(k))
    }

    fn param_mut(&mut self, id: u32) -> Option<&mut ParameterRow> {
        self.report.parameters.iter_mut().find(|p| p.id == Some(id))
    }

    fn finish(&mut self, profile: Option<&Profile>) {
        let last_at = self.report.timeline.last().map_or(0, |t| t.stamp.at_ms);
        for inc in &mut self.report.incidents {
            if inc.end.is_none() {
                inc.details.push((
                    inc.start.clone(),
                    format!(
                        "still open at the last entry ({} after it started)",
                        hms(last_at.saturating_sub(inc.start.at_ms))
                    ),
                ));
            }
        }
        let moves = std::mem::take(&mut self.line);
        let mut chart = std::mem::replace(&mut self.report.chart, empty_chart());
        for side in Side::BOTH {
            chart.series[side.index()] = Series {
                side,
                name: self.name(side),
                points: moves
                    .iter()
                    .filter(|m| m.side == side)
                    .map(|m| (m.number, m.remaining_ms))
                    .collect(),
            };
        }
        let mut lines: Vec<u32> = Vec::new();
        let mut first_budget: i64 = 0;
        if let Some(p) = profile {
            for side in Side::BOTH {
                let mut need: u32 = 0;
                for period in p.periods(side) {
                    match period.moves {
                        Some(m) => {
                            need = need.saturating_add(m);
                            lines.push(need);
                        }
                        None => break,
                    }
                }
                if let Some(first) = p.periods(side).first() {
                    first_budget =
                        first_budget.max(i64::try_from(first.seconds * 1000).unwrap_or(0));
                }
            }
        }
        lines.sort_unstable();
        lines.dedup();
        let last_move = moves.iter().map(|m| m.number).max().unwrap_or(0);
        let top_move = last_move.max(lines.last().copied().unwrap_or(0));
        chart.max_move = (top_move / 10 + 1) * 10;
        chart.period_lines = lines;
        let top = moves
            .iter()
            .map(|m| m.remaining_ms)
            .chain(chart.marks.iter().map(|m| m.y_ms))
            .max()
            .unwrap_or(0);
        chart.max_ms = top.max(first_budget).max(1);
        self.report.chart = chart;
        self.report.moves = moves;
    }
}

fn add_duration(list: &mut Vec<(String, Ms)>, name: &str, ms: Ms) {
    match list.iter_mut().find(|(n, _)| n == name) {
        Some(d) => d.1 += ms,
        None => list.push((name.to_string(), ms)),
    }
}

/// Keys whose values are file digests (confidential under 13e in the public version).
fn is_digest(key: &str, value: &str) -> bool {
    let last = key
        .rsplit(['.', ']'])
        .next()
        .unwrap_or(key)
        .to_ascii_lowercase();
    let hexlike = value.len() >= 32 && value.bytes().all(|b| b.is_ascii_hexdigit());
    hexlike
        || ["sha", "digest", "hash", "sums"]
            .iter()
            .any(|w| last.contains(w))
}

fn scalar(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "-".into(),
        other => other.to_string(),
    }
}

fn flatten(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, x, out);
            }
        }
        serde_json::Value::Array(a) if !a.is_empty() => {
            for (i, x) in a.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), x, out);
            }
        }
        other => out.push((prefix.to_string(), scalar(other))),
    }
}

/// Most key/values shown from one archive entry.
const MAX_FIELDS: usize = 200;

fn archive_section(
    stamp: Stamp,
    clause: &str,
    what: &str,
    v: &serde_json::Value,
    public: bool,
) -> ArchiveSection {
    let summary = v
        .pointer("/coverage/summary")
        .and_then(|s| s.as_str())
        .map(str::to_string);
    let status = v
        .pointer("/coverage/status")
        .and_then(|s| s.as_str())
        .map(str::to_string);
    let mut move_problems = Vec::new();
    let mut withheld = 0;
    if let Some(moves) = v.pointer("/coverage/moves").and_then(|m| m.as_array()) {
        for m in moves {
            let problems: Vec<String> = m
                .get("problems")
                .and_then(|p| p.as_array())
                .map(|p| p.iter().map(scalar).collect())
                .unwrap_or_default();
            if problems.is_empty() {
                continue;
            }
            let number = m.get("move_number").map(scalar).unwrap_or_default();
            let san = m.get("san").map(scalar).unwrap_or_default();
            move_problems.push(MoveProblem {
                number,
                san,
                problems,
            });
        }
        if public && !moves.is_empty() {
            withheld += 1;
        }
    }
    if public {
        withheld += move_problems.len();
        move_problems.clear();
    }
    let mut all = Vec::new();
    flatten("", v, &mut all);
    let mut fields = Vec::new();
    for (k, val) in all {
        if k == "coverage.summary" || k == "coverage.status" || k.starts_with("coverage.moves") {
            continue;
        }
        if public && is_digest(&k, &val) {
            withheld += 1;
            continue;
        }
        fields.push((k, val));
    }
    if fields.len() > MAX_FIELDS {
        let more = fields.len() - MAX_FIELDS;
        fields.truncate(MAX_FIELDS);
        fields.push(("…".into(), format!("{more} more values in the log entry")));
    }
    ArchiveSection {
        stamp,
        clause: clause.to_string(),
        what: what.to_string(),
        summary,
        status,
        move_problems,
        fields,
        withheld,
    }
}
