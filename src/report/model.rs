//! The committee report as data: a pure function of the game's events (with each entry's UTC
//! text), the log's verification status and the version asked for (committee or public). The
//! renderers (`html`, `markdown`, `svg`) are pure functions of this model.
//!
//! [`build`] replays the events; each entry gets a line in the timeline (`describe`) and joins its
//! section (`collect`). Both are short dispatchers to one file per rule family under `model/`:
//! `clocks` (3, 6c, 6d, 7e, restart gaps), `moves` (6a, 6b, 6d, 9e), `parameters` (6g, 6l),
//! `operator` (7b, 7c), `incidents` (8a, 8b), `draws` (9), `disputes` (12), `result` and
//! `archive` (13a–13e).
use std::collections::BTreeMap;

use serde::Serialize;

use crate::core::event::{Declarations, Event, EventKind, KeyRef, Termination};
use crate::core::game::Game;
use crate::core::rules::Profile;
use crate::core::{Ms, Side, timefmt};
use crate::report::rows::{RowText, Rows};
use crate::report::times::{Before, ItemKind, Replayed, SideTotal, Times, TimesStream};

mod archive;
mod clocks;
mod disputes;
mod draws;
mod incidents;
mod moves;
mod operator;
mod parameters;
mod result;
mod void;

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
    /// The version's title, citing the game's own numbers (`cites`).
    pub fn title(self, cites: &Cites) -> String {
        use crate::core::clause as c;
        match self {
            Version::Committee => format!(
                "Committee version (confidential: rule {})",
                cites.c(c::CONFIDENTIAL)
            ),
            Version::Public => format!("Public version (rule {} release)", cites.c(c::MACHINE_LOG)),
        }
    }
    /// What the version holds and who may see it, citing the game's own numbers.
    pub fn note(self, cites: &Cites) -> String {
        use crate::core::clause as c;
        match self {
            Version::Committee => format!(
                "This version includes the engine-log contents (per-move engine details, file \
                 names and digests), which rule {} keeps confidential to the arbiter and the Arbitration \
                 and Rules Committee. Do not release it.",
                cites.c(c::CONFIDENTIAL)
            ),
            Version::Public => format!(
                "This is the public release of the log of machine-related actions (rule {}). The \
                 engine-log contents (per-move engine details) and the names and folders of the \
                 files handed over are left out: rule {} keeps them confidential to the arbiter \
                 and the committee ({}: the program copy too). Each copy is shown by its SHA-256 \
                 digest and size, which anyone given the file can check.",
                cites.c(c::MACHINE_LOG),
                cites.c(c::CONFIDENTIAL),
                cites.c(c::PROGRAM_COPY)
            ),
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
    /// The side's moves played in this game, this one included (1-based): what rule 3's time
    /// control counts. The number shown is [`Report::numbering`]'s (from the FEN's fullmove).
    pub number: u32,
    pub side: Side,
    pub san: String,
    /// The drop of the side's clock between its previous press and this one (`report::times`):
    /// a move taken back and played again shows all its side's clock lost, a waived restart gap is
    /// not in it.
    pub spent_ms: i64,
    pub remaining_ms: i64,
    /// 1-based period the move was made in.
    pub period: usize,
    /// The move rejected the opponent's draw offer (9e).
    pub declines_draw: bool,
    /// The move as first executed, when 7c replaced it with the machine's move.
    pub corrected_from: Option<String>,
}

/// A clock line of its own (`report::times`): a take-back, penalty, correction, restart gap,
/// period addition or increment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimeRow {
    pub stamp: Stamp,
    pub side: Option<Side>,
    /// Whose clock, `Name (side)`; `-` when no clock ran.
    pub who: String,
    pub kind: ItemKind,
    pub clause: String,
    /// Signed effect on the clock (positive: time given).
    pub clock_ms: i64,
    /// The time it is about (taken-back moves' time, a gap's length).
    pub time_ms: i64,
    pub text: String,
}

/// A side's time used, by its clock: `budget + added − remaining = moves + open`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TotalRow {
    pub who: String,
    pub total: SideTotal,
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
    /// The log entry that made it (a void takes its mark off the chart, rule 1).
    #[serde(skip)]
    pub entry: usize,
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
    /// A shogi game: the series are named sente and gote.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shogi: bool,
    pub series: [Series; 2],
    /// Move numbers after which a time control falls (e.g. 40 and 60).
    pub period_lines: Vec<u32>,
    pub marks: Vec<Mark>,
    /// Largest time to show (ms), at least the first period's budget.
    pub max_ms: i64,
    /// Largest move number to show.
    pub max_move: u32,
    /// The clause the legend's penalty cites (7c, or the game's own number).
    #[serde(skip)]
    pub penalty_clause: String,
    /// The clause whose moves the x axis counts (3, or the game's own number).
    #[serde(skip)]
    pub moves_clause: String,
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
    /// 6c audited from the engine's own log: the summary line (beside the 13c coverage).
    pub clock_audit: Option<String>,
    /// Machine moves whose engine clock differed from the official one by the 6c threshold or
    /// more with no sync recorded (committee version only).
    pub clock_problems: Vec<MoveProblem>,
    /// The rest of the body as key/values (digests and per-move data left out when public).
    pub fields: Vec<(String, String)>,
    /// Items left out of this version under rule 13e.
    pub withheld: usize,
    /// The clauses the coverage and the clock audit are cited by when not 13c and 6c: a shogi
    /// game's entry cites Denryu-sen 28.1, its coverage 28.1 and its clock audit 22.3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cites: Option<ArchiveCites>,
}

/// What an archive section's coverage and clock audit cite (see [`ArchiveSection::cites`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchiveCites {
    pub coverage: String,
    pub clock_audit: String,
}

impl ArchiveSection {
    /// The clause of the coverage line: 13c, or the game's article.
    pub fn coverage_clause(&self) -> &str {
        self.cites.as_ref().map_or("13c", |c| c.coverage.as_str())
    }

    /// The clause of the clock-audit line: 6c, or the game's article.
    pub fn clock_clause(&self) -> &str {
        self.cites.as_ref().map_or("6c", |c| c.clock_audit.as_str())
    }
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
    /// A shogi game: its sides are sente and gote, never white and black.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shogi: bool,
    pub version: Version,
    pub match_id: String,
    pub game: u32,
    pub kit_version: String,
    pub declared: Option<Declared>,
    pub verification: Verification,
    pub timeline: Vec<TimelineEntry>,
    /// How the moves are numbered: the game's one numbering (from the FEN's fullmove number).
    pub numbering: crate::core::board::Numbering,
    pub moves: Vec<MoveRow>,
    /// Clock lines of their own, in log order (6d, 7c, 7e, restart gaps, periods).
    pub time_items: Vec<TimeRow>,
    /// Each side's time used, by its clock.
    pub totals: Vec<TotalRow>,
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
    /// The game's own numbers for the clauses the headings cite (the profile's article map).
    #[serde(skip_serializing_if = "Cites::is_empty")]
    pub cites: Cites,
}

/// What a game's rules number each clause the kit names, from its profile's article map
/// (`[articles]`): only where they differ from the 2003 numbers (empty for a chess profile).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Cites(BTreeMap<String, String>);

impl Cites {
    /// The map of a profile.
    pub fn of(p: &Profile) -> Cites {
        Cites(
            crate::core::articles::CLAUSES
                .iter()
                .filter(|(_, n, _)| p.cite(n) != *n)
                .map(|(_, n, _)| (n.to_string(), p.cite(n).to_string()))
                .collect(),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The game's number for the 2003 clause `clause`.
    pub fn c<'a>(&'a self, clause: &'a str) -> &'a str {
        self.0.get(clause).map_or(clause, String::as_str)
    }

    /// A heading citing the game's numbers for `clauses`: `Machine operator (4c, 4d)`.
    pub fn heading(&self, text: &str, clauses: &[&str]) -> String {
        format!("{text} ({})", self.list(clauses))
    }

    /// The declarations table's cited row headings, the same for every renderer:
    /// operator, team, internal-clock algorithm, configuration digest.
    pub fn declaration_headings(&self) -> [String; 4] {
        use crate::core::clause as c;
        [
            self.heading(
                "Machine operator",
                &[c::OPERATOR_CHANGE_BETWEEN, c::OPERATOR_FIXED],
            ),
            self.heading("Machine team", &[c::TEAM]),
            self.heading("Internal-clock algorithm", &[c::INTERNAL_CLOCK]),
            self.heading("Configuration SHA-256", &[c::TECHNICAL]),
        ]
    }

    /// The game's numbers for several clauses, each once, joined by `, ` (`4c, 4d`; `4.3`).
    pub fn list(&self, clauses: &[&str]) -> String {
        let mut out: Vec<&str> = Vec::new();
        for c in clauses {
            let a = self.c(c);
            if !out.contains(&a) {
                out.push(a);
            }
        }
        out.join(", ")
    }
}

impl Report {
    /// A side as the game names it: `white` / `black`, or `sente` / `gote` in shogi.
    pub fn side_label(&self, side: Side) -> &'static str {
        if self.shogi {
            crate::core::shogi::side_name(side)
        } else {
            side.name()
        }
    }

    pub fn name(&self, side: Side) -> String {
        self.declared
            .as_ref()
            .map(|d| match side {
                Side::White => d.declarations.white.name.clone(),
                Side::Black => d.declarations.black.name.clone(),
            })
            .unwrap_or_else(|| side.to_string())
    }

    /// The rows of the moves table, numbered as everywhere else ([`Report::numbering`]): each
    /// number with White's move and Black's (a start with Black to move opens with a row that
    /// has Black's move only).
    pub fn move_rows(&self) -> Vec<(u32, Option<&MoveRow>, Option<&MoveRow>)> {
        let mut out: Vec<(u32, Option<&MoveRow>, Option<&MoveRow>)> = Vec::new();
        for m in &self.moves {
            let n = self.numbering.number(m.ply);
            match out.last_mut() {
                Some(row) if row.0 == n => match m.side {
                    Side::White => row.1 = Some(m),
                    Side::Black => row.2 = Some(m),
                },
                _ => out.push(match m.side {
                    Side::White => (n, Some(m), None),
                    Side::Black => (n, None, Some(m)),
                }),
            }
        }
        out
    }
}

/// A duration as `h:mm:ss`.
pub fn hms(ms: Ms) -> String {
    let mut out = String::with_capacity(8);
    push_hms(&mut out, ms);
    out
}

/// [`hms`], appended to `out`.
pub fn push_hms(out: &mut String, ms: Ms) {
    push_clock(out, i64::try_from(ms).unwrap_or(i64::MAX));
}

/// [`timefmt::clock`], appended to `out` without the formatting machinery (the report writes a
/// few for each entry of a log of any length): the same text.
pub fn push_clock(out: &mut String, ms: i64) {
    let s = if ms < 0 {
        out.push('-');
        ms.unsigned_abs().div_ceil(1000)
    } else {
        ms.unsigned_abs() / 1000
    };
    // The hours, then the minutes and seconds as two digits each (each part is below 60).
    push_number(out, s / 3600);
    for part in [(s / 60) % 60, s % 60] {
        out.push(':');
        let at = 2 * part as usize;
        out.push_str(TWO_DIGITS.get(at..at + 2).unwrap_or("00"));
    }
}

/// `00` to `59`, two bytes each: the minutes and seconds of [`push_clock`].
const TWO_DIGITS: &str = concat!(
    "000102030405060708091011121314151617181920212223242526272829",
    "303132333435363738394041424344454647484950515253545556575859"
);

/// The timeline text of an internal clock reported (6c), appended to `out`: the bytes of
/// `internal clock reported at {} against game clock {} (difference {}, threshold {}){}`, written
/// in place (the most frequent entry of a long log).
pub fn push_internal_clock(
    out: &mut String,
    reading_ms: Ms,
    game_clock_ms: i64,
    diff_ms: i64,
    threshold_ms: Ms,
    correction_owed: bool,
) {
    out.push_str("internal clock reported at ");
    push_hms(out, reading_ms);
    out.push_str(" against game clock ");
    push_clock(out, game_clock_ms);
    out.push_str(" (difference ");
    push_signed_hms(out, diff_ms);
    out.push_str(", threshold ");
    push_hms(out, threshold_ms);
    out.push(')');
    if correction_owed {
        out.push_str("; correction owed");
    }
}

/// `n` in decimal, appended to `out`.
pub fn push_number(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// An exact duration that may be negative: `0:01:15.000`, `-0:00:00.300`.
pub fn exact_signed(ms: i64) -> String {
    if ms < 0 {
        format!("-{}", timefmt::exact(ms.unsigned_abs()))
    } else {
        timefmt::exact(ms.unsigned_abs())
    }
}

impl TotalRow {
    /// `Name (side): 0:07:08.000 used = budget 2:00:00.000 + added +0:00:00.000 - left
    /// 1:52:52.000`, exact to the millisecond so the figures add up as written.
    pub fn sentence(&self) -> String {
        let t = &self.total;
        let plus = if t.added_ms < 0 { "-" } else { "+" };
        let mut s = format!(
            "{}: {} used = budget {} + added {plus}{} - left {}",
            self.who,
            exact_signed(t.used_ms()),
            exact_signed(t.budget_ms),
            timefmt::exact(t.added_ms.unsigned_abs()),
            exact_signed(t.remaining_ms)
        );
        if t.open_ms != 0 {
            s.push_str(&format!(
                " ({} in its standing moves, {} in no standing move: the turn in progress at the \
                 end or moves taken back and not replayed)",
                exact_signed(t.moves_ms),
                exact_signed(t.open_ms)
            ));
        }
        if !t.adds_up() {
            s.push_str(" (THE CLOCK DOES NOT AGREE: see the problems reading the log)");
        }
        s
    }
}

impl TimeRow {
    /// What the line changed on the clock: the signed effect, or the time it is about.
    pub fn effect(&self) -> String {
        match self.kind {
            ItemKind::TakenBack => format!(
                "none (its {} counts in the next move)",
                exact_signed(self.time_ms)
            ),
            ItemKind::GapWaived => format!("none ({} given back)", exact_signed(self.time_ms)),
            ItemKind::GapCharged | ItemKind::VoidedStop => {
                format!("none ({} in the move's time)", exact_signed(self.time_ms))
            }
            _ => signed_hms(self.clock_ms),
        }
    }

    /// The kind in words.
    pub fn label(&self) -> &'static str {
        match self.kind {
            ItemKind::TakenBack => "take-back",
            ItemKind::Penalty => "penalty",
            ItemKind::Correction => "correction",
            ItemKind::GapWaived => "restart gap waived",
            ItemKind::GapCharged => "restart gap charged",
            ItemKind::Increment => "increment",
            ItemKind::Period => "time control",
            ItemKind::VoidedStop => "voided stop",
            ItemKind::Other => "other",
        }
    }
}

/// A signed duration: `+0:10:00`, `-0:00:30`.
pub fn signed_hms(ms: i64) -> String {
    let mut out = String::with_capacity(9);
    push_signed_hms(&mut out, ms);
    out
}

/// [`signed_hms`], appended to `out`.
pub fn push_signed_hms(out: &mut String, ms: i64) {
    out.push(if ms < 0 { '-' } else { '+' });
    push_hms(out, ms.unsigned_abs());
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

// ----- building ---------------------------------------------------------------------------

/// Where [`Builder::apply`] puts an entry's timeline row.
enum RowTo<'a> {
    /// A [`TimelineEntry`], written over one of these (rows handed back) when there is one.
    Entry(Option<&'a mut Vec<TimelineEntry>>),
    /// Appended to a batch of rows ([`Rows`]).
    Rows(&'a mut Rows),
    /// Counted only.
    Count,
}

struct Builder {
    public: bool,
    /// Keep the timeline rows in [`Report::timeline`] ([`build`]); otherwise they are only
    /// counted, and the voids that mark them recorded ([`Stream`], [`Timeline`]).
    keep_timeline: bool,
    /// Rows of the timeline so far, and the game time of the latest.
    rows: usize,
    last_row_at: Option<Ms>,
    /// Rule 1: `voids[seq]` are the entries that voided entry `seq`, in log order (streamed).
    voids: BTreeMap<u64, Vec<usize>>,
    /// Every how many clock-chart marks one is kept (doubles when they pass [`CHART_MAX`]).
    mark_stride: usize,
    marks_seen: usize,
    names: [String; 2],
    /// The replayed game, while every entry applied.
    game: Option<Game>,
    /// Why the entry just applied did not apply to the game (it is gone since).
    not_applied: Option<String>,
    report: Report,
    /// Moves of the game as it stands (take-backs remove, 7c replaces).
    line: Vec<MoveRow>,
    /// Index into `draw_offers` of the latest offer by each side.
    offer_of: [Option<usize>; 2],
    /// Offers whose move (its ply) is still to be entered (FIDE Laws 9.1.2): the row, the ply.
    offer_awaits: Vec<(usize, usize)>,
    open_technical: Option<usize>,
    open_power: Option<usize>,
    /// 8b: when the power went off last (a second failure restarts the count).
    power_off_since: Option<Ms>,
    open_info: Option<Stamp>,
    /// The side that moves first in the start position (numbering: `1...` when Black).
    first: Side,
    /// How the moves are numbered ([`crate::core::board::Numbering`]).
    numbering: crate::core::board::Numbering,
    /// The rows each take-back removed, by its entry (a void of it puts them back, rule 1).
    taken: BTreeMap<u64, Vec<MoveRow>>,
    /// Rows of moves no void can give back any more, to be written over by the next moves.
    spare_rows: Vec<MoveRow>,
}

/// Whether a word of text is a file path: it has a letter and a `/` or `\\`, and starts at the
/// root, the home or the current folder, or has a file name with a dot, or two separators
/// (`and/or` and `1/2-1/2` are not paths).
fn is_path(word: &str) -> bool {
    let w = word.trim_matches(|c: char| matches!(c, '(' | ')' | ',' | ';' | ':' | '\'' | '"'));
    if !w.contains(['/', '\\']) || !w.chars().any(|c| c.is_ascii_alphabetic()) {
        return false;
    }
    let last = w.rsplit(['/', '\\']).next().unwrap_or("");
    w.starts_with(['/', '~', '.', '\\'])
        || last.contains('.')
        || w.matches(['/', '\\']).count() >= 2
}

/// The public version's text (13e, 5b): every file path reduced to its last part (no folder of
/// the laptop, no script path), and `match_dir` itself named as such.
pub fn strip_paths(text: &str, match_dir: &str) -> String {
    let text = if match_dir.is_empty() {
        text.to_string()
    } else {
        text.replace(&format!("{match_dir}/"), "")
    };
    let mut out = String::with_capacity(text.len());
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if !match_dir.is_empty() && word.trim_end_matches([',', ';', ':', ')']) == match_dir {
            out.push_str(&word.replacen(match_dir, "the match folder", 1));
        } else if is_path(word) {
            let lead: String = word
                .chars()
                .take_while(|c| matches!(c, '(' | '\'' | '"'))
                .collect();
            let trail: String = {
                let t: Vec<char> = word
                    .chars()
                    .rev()
                    .take_while(|c| matches!(c, ')' | ',' | ';' | ':' | '\'' | '"'))
                    .collect();
                t.into_iter().rev().collect()
            };
            let core = &word[lead.len()..word.len() - trail.len()];
            let last = core
                .rsplit(['/', '\\'])
                .find(|p| !p.is_empty())
                .unwrap_or("");
            out.push_str(&format!("{lead}{last}{trail}"));
        } else {
            out.push_str(word);
        }
    }
    out
}

impl Verification {
    /// The verdict for the public version: no path of the match folder or of this laptop.
    pub fn public(mut self, match_dir: &str) -> Verification {
        self.detail = strip_paths(&self.detail, match_dir);
        self
    }
}

/// Whether [`Builder::collect`] keeps the stamp of an entry of this kind (the others read only
/// its entry number, or nothing).
fn keeps_stamp(kind: &EventKind) -> bool {
    use EventKind as K;
    !matches!(
        kind,
        K::ClockCorrected { .. }
            | K::RestartGap { .. }
            | K::EntryVoided { .. }
            | K::GameOpened(_)
            | K::ClockStarted { .. }
            | K::ClockStopped { .. }
            | K::InternalClockReported { .. }
            | K::InternalClockCorrected { .. }
            | K::Note { .. }
            | K::OwedMoveReleased { .. }
            | K::ResetWindowEnded { .. }
            | K::SyncNotMade { .. }
            | K::ClaimDismissed { .. }
            | K::ClockPressed { .. }
            | K::Authorized { .. }
            | K::AuthorizationFailed { .. }
            | K::Adjourned { .. }
            | K::EngineStopped
            | K::OperatorReplaced { .. }
            | K::AdjournmentResumed { .. }
            | K::Recovery(_)
    )
}

/// The stamp of entry `i` without its texts (for a section that reads only the number).
fn bare_stamp(i: usize, e: &Event) -> Stamp {
    Stamp {
        entry: i,
        at_ms: e.at,
        game_time: String::new(),
        utc: String::new(),
    }
}

fn stamp(i: usize, e: &Event, utc: &str) -> Stamp {
    Stamp {
        entry: i,
        at_ms: e.at,
        game_time: hms(e.at),
        utc: utc.to_string(),
    }
}

/// Most points a clock-chart series or the marks keep: past it they are thinned evenly (a log of
/// any length draws a chart of bounded size).
pub const CHART_MAX: usize = 4_000;

/// At most [`CHART_MAX`] of `points`, evenly spaced, the first and the last kept.
fn thin<T: Clone>(points: Vec<T>) -> Vec<T> {
    let n = points.len();
    if n <= CHART_MAX {
        return points;
    }
    let step = n.div_ceil(CHART_MAX - 1);
    let mut out: Vec<T> = points.iter().step_by(step).cloned().collect();
    if !(n - 1).is_multiple_of(step)
        && let Some(last) = points.last()
    {
        out.push(last.clone());
    }
    out
}

fn empty_chart() -> Chart {
    Chart {
        shogi: false,
        series: Side::BOTH.map(|side| Series {
            side,
            name: side.to_string(),
            points: Vec::new(),
        }),
        period_lines: Vec::new(),
        marks: Vec::new(),
        max_ms: 0,
        max_move: 0,
        penalty_clause: crate::core::clause::WRONG_MOVE_PRESSED.to_string(),
        moves_clause: crate::core::clause::TIME_CONTROL.to_string(),
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
    let mut s = Stream::with(verification, public, true);
    for (i, e) in events.iter().enumerate() {
        s.push(e, utc.get(i).map_or("", String::as_str));
    }
    s.finish().report
}

/// [`build`] fed one entry at a time, for a log streamed line by line: memory is the game's
/// standing moves, clock lines, incidents and offers, not the log. The timeline is not kept: it
/// is counted, and a second pass over the log writes its rows ([`Timeline`]).
pub struct Stream {
    b: Builder,
    times: TimesStream,
    profile: Option<Profile>,
    next: usize,
    /// The stamps of the entries that gave clock lines (`report::times`), by entry.
    item_stamps: BTreeMap<usize, Stamp>,
}

/// What a [`Stream`] gathered: the report without its timeline rows, and what the second pass
/// needs to write them.
pub struct Streamed {
    /// The report; `timeline` is empty when streamed (the rows are written by [`Timeline`]).
    pub report: Report,
    /// Rows the timeline has.
    pub timeline_rows: usize,
    /// For [`Timeline::new`]: which entries were voided, by which.
    pub voids: BTreeMap<u64, Vec<usize>>,
}

impl Stream {
    /// A report streamed from the log (its timeline counted, not kept).
    pub fn new(verification: &Verification, public: bool) -> Stream {
        Stream::with(verification, public, false)
    }

    fn with(verification: &Verification, public: bool, keep_timeline: bool) -> Stream {
        Stream {
            b: Builder::new(verification, public, keep_timeline),
            times: TimesStream::default(),
            profile: None,
            next: 0,
            item_stamps: BTreeMap::new(),
        }
    }

    /// The next entry of the log (the first is `game_opened`) with its UTC text.
    pub fn push(&mut self, e: &Event, utc: &str) {
        let _ = self.push_row(e, utc);
    }

    /// [`Stream::push`], giving the entry's timeline row (if it has one) as the second pass
    /// ([`Timeline`]) would, but without the marks of the voids: those are known only when no
    /// later entry can void it any more ([`Stream::mark_voided`]).
    pub fn push_row(&mut self, e: &Event, utc: &str) -> Option<TimelineEntry> {
        self.push_row_with(e, None, utc, RowTo::Entry(None))
    }

    /// [`Stream::push_row`] of an event the caller hands over: the replay keeps it without a copy.
    pub fn push_row_shared(
        &mut self,
        e: &std::sync::Arc<Event>,
        utc: &str,
    ) -> Option<TimelineEntry> {
        self.push_row_with(e, Some(e), utc, RowTo::Entry(None))
    }

    /// [`Stream::push_row_shared`], the row (if any) appended to `rows` as what its text is made
    /// of (the row writer's thread renders it, [`Rows`]); without its voids' marks
    /// ([`Stream::mark_voided_rows`]).
    pub fn push_rows(&mut self, e: &std::sync::Arc<Event>, utc: &str, rows: &mut Rows) {
        let _ = self.push_row_with(e, Some(e), utc, RowTo::Rows(rows));
    }

    /// [`Stream::push_row_shared`] with the row only counted.
    pub fn push_counted(&mut self, e: &std::sync::Arc<Event>, utc: &str) {
        let _ = self.push_row_with(e, Some(e), utc, RowTo::Count);
    }

    fn push_row_with(
        &mut self,
        e: &Event,
        shared: Option<&std::sync::Arc<Event>>,
        utc: &str,
        to: RowTo<'_>,
    ) -> Option<TimelineEntry> {
        let i = self.next;
        if i == 0 {
            self.profile = self.b.start(Some(e));
        }
        // The game is replayed once (by the builder), for the sections and for the times.
        let clocks = self.b.game.as_ref().map(|g| Before::of(g, e));
        let row = self.b.apply(i, e, shared, utc, to);
        let replayed = match (clocks, &self.b.game) {
            (Some(before), Some(game)) => before.replayed(e, game),
            (Some(_), None) => Replayed::Failed(self.b.not_applied.take().unwrap_or_default()),
            (None, _) => Replayed::NotReplayed,
        };
        let before = self.times.items().len();
        self.times.push_replayed(e, replayed);
        if self.times.items().len() > before {
            self.item_stamps.insert(i, stamp(i, e, utc));
        }
        self.next += 1;
        row
    }

    /// Entries read so far (the next entry's number).
    pub fn entries(&self) -> usize {
        self.next
    }

    /// Rule 1: mark `row` with the voids of its entry found so far, as [`Timeline::push`] marks
    /// it with those of the whole log (the same bytes once no later entry names it).
    pub fn mark_voided(&self, row: &mut TimelineEntry) {
        mark_voided(&self.b.voids, row);
    }

    /// [`Stream::mark_voided`] of each row of `rows`.
    pub fn mark_voided_rows(&self, rows: &mut Rows) {
        rows.mark_voided(&self.b.voids);
    }

    /// How many take-backs the report and its times keep for a void to give back (rule 1):
    /// only those a void can still reach, bounded however long the log.
    pub fn take_backs_kept(&self) -> usize {
        self.b.taken.len() + self.times.take_backs_kept()
    }

    pub fn finish(mut self) -> Streamed {
        if self.next == 0 {
            self.profile = self.b.start(None);
        }
        self.b.finish(self.profile.as_ref());
        self.b.times(self.item_stamps, self.times.finish());
        Streamed {
            report: self.b.report,
            timeline_rows: self.b.rows,
            voids: self.b.voids,
        }
    }
}

/// The second pass of a streamed report: the log replayed again, yielding each timeline row as
/// its entry is read (with the marks of the voids the first pass found).
pub struct Timeline {
    b: Builder,
    next: usize,
}

impl Timeline {
    /// `voids` from the first pass ([`Streamed::voids`]).
    pub fn new(public: bool, voids: BTreeMap<u64, Vec<usize>>) -> Timeline {
        let mut b = Builder::new(&Verification::not_checked(0), public, false);
        b.voids = voids;
        Timeline { b, next: 0 }
    }

    /// The next entry of the log with its UTC text: its timeline row, if it has one.
    pub fn push(&mut self, e: &Event, utc: &str) -> Option<TimelineEntry> {
        let i = self.next;
        if i == 0 {
            self.b.start(Some(e));
        }
        self.next += 1;
        let mut row = self.b.apply(i, e, None, utc, RowTo::Entry(None))?;
        mark_voided(&self.b.voids, &mut row);
        // The marks of the chart are not drawn in this pass: keep none.
        self.b.report.chart.marks.clear();
        Some(row)
    }
}

/// Rule 1: `row` marked with the entries of `voids` that voided its entry (those after it, or
/// itself).
fn mark_voided(voids: &BTreeMap<u64, Vec<usize>>, row: &mut TimelineEntry) {
    use std::fmt::Write as _;
    let i = row.stamp.entry;
    if let Some(by) = voids.get(&(i as u64)) {
        for by in by.iter().filter(|by| **by >= i) {
            let _ = write!(row.text, " [VOIDED by entry #{by}]");
        }
    }
}

impl Builder {
    fn new(verification: &Verification, public: bool, keep_timeline: bool) -> Builder {
        let report = Report {
            shogi: false,
            version: if public {
                Version::Public
            } else {
                Version::Committee
            },
            match_id: String::new(),
            game: 0,
            kit_version: String::new(),
            declared: None,
            verification: if public {
                verification.clone().public("")
            } else {
                verification.clone()
            },
            timeline: Vec::new(),
            numbering: crate::core::board::Numbering::default(),
            moves: Vec::new(),
            time_items: Vec::new(),
            totals: Vec::new(),
            chart: empty_chart(),
            draw_offers: Vec::new(),
            infractions: Vec::new(),
            incidents: Vec::new(),
            disputes: Vec::new(),
            parameters: Vec::new(),
            archives: Vec::new(),
            result: None,
            warnings: Vec::new(),
            cites: Cites::default(),
        };
        Builder {
            public,
            keep_timeline,
            rows: 0,
            last_row_at: None,
            voids: BTreeMap::new(),
            mark_stride: 1,
            marks_seen: 0,
            names: [Side::White.to_string(), Side::Black.to_string()],
            game: None,
            not_applied: None,
            report,
            line: Vec::new(),
            offer_of: [None, None],
            offer_awaits: Vec::new(),
            open_technical: None,
            open_power: None,
            power_off_since: None,
            open_info: None,
            taken: BTreeMap::new(),
            spare_rows: Vec::new(),
            first: Side::White,
            numbering: crate::core::board::Numbering::default(),
        }
    }

    /// The log's first entry (none: the log is empty): the game's declarations; its profile.
    fn start(&mut self, first: Option<&Event>) -> Option<Profile> {
        let mut profile = None;
        match first.map(|e| &e.kind) {
            Some(EventKind::GameOpened(o)) => {
                self.report.match_id = o.match_id.clone();
                self.report.game = o.game;
                self.report.kit_version = o.kit_version.clone();
                self.names = [
                    o.declarations.white.name.clone(),
                    o.declarations.black.name.clone(),
                ];
                self.report.declared = Some(Declared {
                    declarations: o.declarations.clone(),
                    rules_name: o.profile.name.clone(),
                    rules_file: if self.public {
                        strip_paths(&o.profile.file, "")
                    } else {
                        o.profile.file.clone()
                    },
                    rules_sha256: o.profile.sha256.clone(),
                    arbiter_key: o.arbiter_key.clone(),
                });
                match Game::from_opening(o) {
                    Ok(g) => {
                        self.report.cites = Cites::of(g.profile());
                        self.report.chart.penalty_clause = self
                            .report
                            .cites
                            .c(crate::core::clause::WRONG_MOVE_PRESSED)
                            .to_string();
                        self.report.chart.moves_clause = self
                            .report
                            .cites
                            .c(crate::core::clause::TIME_CONTROL)
                            .to_string();
                        profile = Some(g.profile().clone());
                        self.first = g.board().first_side();
                        self.numbering = g.board().numbering();
                        self.report.numbering = self.numbering;
                        self.report.shogi = g.board().shogi().is_some();
                        self.report.chart.shogi = self.report.shogi;
                        self.game = Some(g);
                    }
                    Err(m) => self.report.warnings.push(format!("entry 0: {m}")),
                }
            }
            Some(_) => self
                .report
                .warnings
                .push("the first entry is not game_opened".into()),
            None => self.report.warnings.push("the log is empty".into()),
        }
        profile
    }

    /// A mark on the clock chart; past [`CHART_MAX`] marks, every other one is dropped and
    /// only one in twice as many kept from then on.
    pub(super) fn mark(&mut self, m: Mark) {
        self.marks_seen += 1;
        if !(self.marks_seen - 1).is_multiple_of(self.mark_stride) {
            return;
        }
        let marks = &mut self.report.chart.marks;
        marks.push(m);
        if marks.len() > CHART_MAX {
            let mut k = 0;
            marks.retain(|_| {
                k += 1;
                k % 2 == 1
            });
            self.mark_stride *= 2;
        }
    }
}

impl Builder {
    fn name(&self, side: Side) -> String {
        self.names[side.index()].clone()
    }

    fn who(&self, side: Side) -> String {
        let label = self
            .game
            .as_ref()
            .map_or_else(|| side.to_string(), |g| g.side_label(side).to_string());
        format!("{} ({label})", self.name(side))
    }

    /// Ply `ply` numbered as the PGN numbers it (from the side that moves first).
    fn numbered(&self, ply: usize, san: &str) -> String {
        self.numbering.numbered(ply, san)
    }

    fn moves_of(&self, side: Side) -> u32 {
        // Each row's number counts its side's moves up to it, so the side's latest row says how
        // many it has (the line is not counted again for every move).
        self.line
            .iter()
            .rev()
            .find(|m| m.side == side)
            .map_or(0, |m| m.number)
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

    /// Replay entry `i`: its timeline row (kept in the report when [`Builder::keep_timeline`]),
    /// and its section.
    /// `shared`: the same event, handed over to the game's void window without a copy.
    fn apply(
        &mut self,
        i: usize,
        e: &Event,
        shared: Option<&std::sync::Arc<Event>>,
        utc: &str,
        to: RowTo<'_>,
    ) -> Option<TimelineEntry> {
        if let Some(g) = &mut self.game
            && let Err(m) = match shared {
                Some(a) => g.evolve_shared(std::sync::Arc::clone(a)),
                None => g.evolve(e),
            }
        {
            self.not_applied = Some(m.to_string());
            self.report.warnings.push(format!(
                "entry {i} ({}) does not apply to the game: {m}; later figures are taken from \
                 the log as written",
                e.kind_name()
            ));
            self.game = None;
        }
        let in_timeline = match &e.kind {
            EventKind::MoveMade { declines_draw, .. } => *declines_draw,
            _ => true,
        };
        // The section gets the whole stamp only when it keeps one (else its entry number); a
        // move writes its own over a spare row's.
        let s = if keeps_stamp(&e.kind) && !matches!(e.kind, EventKind::MoveMade { .. }) {
            stamp(i, e, utc)
        } else {
            bare_stamp(i, e)
        };
        let mut row = None;
        if in_timeline {
            self.rows += 1;
            self.last_row_at = Some(e.at);
            match to {
                RowTo::Entry(spare) => row = Some(self.entry_row(i, e, utc, spare)),
                RowTo::Rows(rows) => self.row_into(i, e, utc, rows),
                RowTo::Count => {}
            }
        }
        match &e.kind {
            EventKind::MoveMade { .. } => self.collect_move_made(i, e, utc),
            _ => self.collect(s, e),
        }
        row
    }

    /// Entry `i`'s timeline row (kept in the report when [`Builder::keep_timeline`]), written
    /// over one of `spare` (rows handed back, their text buffers kept) when there is one.
    fn entry_row(
        &mut self,
        i: usize,
        e: &Event,
        utc: &str,
        spare: Option<&mut Vec<TimelineEntry>>,
    ) -> TimelineEntry {
        let mut entry = spare.and_then(Vec::pop).unwrap_or_else(|| TimelineEntry {
            stamp: bare_stamp(i, e),
            actor: String::new(),
            clause: String::new(),
            kind: String::new(),
            text: String::new(),
        });
        entry.stamp.entry = i;
        entry.stamp.at_ms = e.at;
        entry.stamp.game_time.clear();
        push_hms(&mut entry.stamp.game_time, e.at);
        entry.stamp.utc.clear();
        entry.stamp.utc.push_str(utc);
        entry.actor.clear();
        entry.actor.push_str(e.actor.name());
        entry.clause.clear();
        entry.clause.push_str(&e.clause);
        entry.kind.clear();
        entry.kind.push_str(e.kind_str());
        entry.text.clear();
        self.describe_into(e, &mut entry.text);
        if self.keep_timeline {
            self.report.timeline.push(entry.clone());
        }
        entry
    }

    /// Entry `i`'s timeline row appended to `rows`: an internal clock reported by its figures
    /// (its text, public or not, is [`push_internal_clock`]'s: it names no file), any other
    /// with its text as [`Builder::describe_into`] writes it.
    fn row_into(&self, i: usize, e: &Event, utc: &str, rows: &mut Rows) {
        let text = match &e.kind {
            EventKind::InternalClockReported {
                reading_ms,
                game_clock_ms,
                diff_ms,
                threshold_ms,
                correction_owed,
            } => RowText::InternalClock(crate::report::rows::ClockFigures {
                reading_ms: *reading_ms,
                game_clock_ms: *game_clock_ms,
                diff_ms: *diff_ms,
                threshold_ms: *threshold_ms,
                correction_owed: *correction_owed,
            }),
            _ => RowText::Written,
        };
        rows.push(i, e, utc, text, |out| self.describe_into(e, out));
    }

    /// [`Builder::describe`] (without the paths in the public version), appended to `out`; the
    /// most frequent entries of a long log written in place.
    fn describe_into(&self, e: &Event, out: &mut String) {
        if self.public {
            out.push_str(&strip_paths(&self.describe(e), ""));
            return;
        }
        match &e.kind {
            EventKind::InternalClockReported { .. } => self.describe_clock_into(e, out),
            EventKind::Note { text } => {
                out.push_str("note: ");
                out.push_str(text);
            }
            EventKind::MovesTakenBack {
                plies,
                removed,
                reason,
                ..
            } => {
                // The bytes of [`Builder::describe_move`]'s, without the moves joined into a text
                // of their own first (a long log's take-backs of 60 plies).
                push_number(out, *plies as u64);
                out.push_str(" move(s) taken back (");
                for (k, m) in removed.iter().enumerate() {
                    if k > 0 {
                        out.push(' ');
                    }
                    out.push_str(m);
                }
                out.push_str("): ");
                out.push_str(reason);
            }
            _ => out.push_str(&self.describe(e)),
        }
    }

    /// One line for the timeline, by rule family.
    fn describe(&self, e: &Event) -> String {
        use EventKind as K;
        match &e.kind {
            K::GameOpened(o) => format!(
                "game {} of match {} opened; declarations bound (rules: {})",
                o.game, o.match_id, o.profile.name
            ),
            K::ClockStarted { .. }
            | K::ClockStopped { .. }
            | K::ClockResumed { .. }
            | K::InternalClockReported { .. }
            | K::InternalClockCorrected { .. }
            | K::ClockCorrected { .. }
            | K::RestartGap { .. } => self.describe_clock(e),
            K::MoveMade { .. } | K::MovesTakenBack { .. } => self.describe_move(e),
            K::ParameterSet { .. }
            | K::ParameterRequested { .. }
            | K::CommitteeAdvised { .. }
            | K::ParameterDecided { .. } => self.describe_parameter(e),
            K::WrongMove { .. } => self.describe_wrong_move(e),
            K::TechnicalProblem { .. }
            | K::WorkNote { .. }
            | K::InfoStopped { .. }
            | K::InfoResumed
            | K::TechnicalResolved { .. }
            | K::PowerFailed { .. }
            | K::PowerRestored { .. }
            | K::MachineReset => self.describe_incident(e),
            K::DrawOffered { .. }
            | K::ConsultationStarted { .. }
            | K::ConsultationEnded { .. }
            | K::DrawDeclined { .. } => self.describe_draw(e),
            K::DisputeRaised { .. } | K::RulingGiven { .. } => self.describe_dispute(e),
            K::Note { text } => format!("note: {text}"),
            K::OwedMoveReleased { san, reason } => format!(
                "{}: the arbiter released the owed machine move {san} (another move may be entered): {reason}",
                self.report.cites.c(crate::core::clause::WRONG_MOVE_NOTIFY)
            ),
            K::ResetWindowEnded { window_ms } => format!(
                "the {} reset window ended with no reset reported: the arbiter may restart the machine's clock",
                crate::core::timefmt::short(i64::try_from(*window_ms).unwrap_or(i64::MAX))
            ),
            K::SyncNotMade {
                diff_ms,
                reported_at,
                threshold_ms,
            } => format!(
                "the machine's move was entered with the {} correction owed since {} (internal clock off by {} ms, threshold {} ms) not made: for the arbiter to decide",
                self.report.cites.c(crate::core::clause::INTERNAL_CLOCK),
                crate::core::timefmt::clock(i64::try_from(*reported_at).unwrap_or(i64::MAX)),
                diff_ms,
                threshold_ms
            ),
            K::ClaimDismissed {
                detail,
                with_move,
                added_ms,
                to,
                laws,
                ..
            } => format!(
                "{detail}; {} added to {to}'s clock (FIDE {laws} Laws 9.5){}",
                crate::core::timefmt::exact(*added_ms),
                with_move
                    .as_ref()
                    .map(|m| format!("; the intended move {m} is played"))
                    .unwrap_or_default()
            ),
            K::ClockPressed { side, spent_ms, .. } => format!(
                "{side} pressed the clock after {}; the move's notation follows",
                crate::core::timefmt::exact(*spent_ms)
            ),
            K::EntryVoided { seq, kind, reason } => format!(
                "entry #{seq} ({kind}) VOIDED by the arbiter: {reason}; the entry stays, its effect is gone"
            ),
            K::Authorized {
                by,
                command,
                first,
                last,
            } => format!("entries #{first}–#{last} ({command}) authorized by the arbiter: {by}"),
            K::AuthorizationFailed { command, why } => {
                format!("authorization FAILED for '{command}': {why}; nothing recorded")
            }
            K::GameEnded { .. } => self.describe_result(e),
            K::Recovery(_) => "the journal cut off a torn last line when the log was opened".into(),
            K::Adjourned {
                side,
                sealed_sha256,
            } => match sealed_sha256 {
                Some(h) => format!(
                    "game adjourned; {side}'s move sealed (SHA-256 of 'MOVE NONCE': {h}); both clocks stopped"
                ),
                None => format!("game adjourned; {side}'s move open; both clocks stopped"),
            },
            K::EngineStopped => {
                "the operator records that the engine was stopped during the adjournment".into()
            }
            K::OperatorReplaced { from, to, reason } => format!(
                "the machine's operator {from} replaced by {to}, not on the human's turn: {reason}"
            ),
            K::AdjournmentResumed { revealed } => match revealed {
                Some(m) => format!(
                    "play resumes; the sealed move {m} is revealed and matches its commitment"
                ),
                None => "play resumes after the adjournment; the clocks run again".into(),
            },
            K::EngineLogArchived(_) | K::ProgramArchived(_) => self.describe_archive(e),
        }
    }

    /// Add the entry to its section of the report, by rule family. `s` is whole for the kinds
    /// of [`keeps_stamp`]; of the others, only its entry number is read.
    fn collect(&mut self, s: Stamp, e: &Event) {
        use EventKind as K;
        match &e.kind {
            K::MoveMade { .. } | K::MovesTakenBack { .. } => self.collect_move(s, e),
            K::ClockCorrected { .. } | K::RestartGap { .. } => self.collect_clock(s.entry, e),
            K::ParameterSet { .. }
            | K::ParameterRequested { .. }
            | K::CommitteeAdvised { .. }
            | K::ParameterDecided { .. } => self.collect_parameter(s, e),
            K::WrongMove { .. } => self.collect_wrong_move(s, e),
            K::TechnicalProblem { .. }
            | K::WorkNote { .. }
            | K::InfoStopped { .. }
            | K::InfoResumed
            | K::TechnicalResolved { .. } => self.collect_technical(s, e),
            K::PowerFailed { .. }
            | K::PowerRestored { .. }
            | K::MachineReset
            | K::ClockResumed { .. } => self.collect_power(s, e),
            K::DrawOffered { .. }
            | K::ConsultationStarted { .. }
            | K::ConsultationEnded { .. }
            | K::DrawDeclined { .. } => self.collect_draw(s, e),
            K::DisputeRaised { .. } | K::RulingGiven { .. } => self.collect_dispute(s, e),
            K::GameEnded { .. } => self.collect_result(s, e),
            K::EngineLogArchived(_) | K::ProgramArchived(_) => self.collect_archive(s, e),
            K::EntryVoided { seq, .. } => {
                // The voided entry leaves every section; it stays in the timeline, marked.
                self.void_sections(*seq);
                let by = s.entry;
                if !self.keep_timeline {
                    self.voids.entry(*seq).or_default().push(by);
                } else if let Some(row) = self
                    .report
                    .timeline
                    .iter_mut()
                    .find(|r| r.stamp.entry as u64 == *seq)
                {
                    row.text.push_str(&format!(" [VOIDED by entry #{by}]"));
                }
            }
            // In the timeline only.
            K::GameOpened(_)
            | K::ClockStarted { .. }
            | K::ClockStopped { .. }
            | K::InternalClockReported { .. }
            | K::InternalClockCorrected { .. }
            | K::Note { .. }
            | K::OwedMoveReleased { .. }
            | K::ResetWindowEnded { .. }
            | K::SyncNotMade { .. }
            | K::ClaimDismissed { .. }
            | K::ClockPressed { .. }
            | K::Authorized { .. }
            | K::AuthorizationFailed { .. }
            | K::Adjourned { .. }
            | K::EngineStopped
            | K::OperatorReplaced { .. }
            | K::AdjournmentResumed { .. }
            | K::Recovery(_) => {}
        }
    }

    /// Per-move times from the clocks, the clock lines of their own and the totals.
    fn times(&mut self, mut stamps: BTreeMap<usize, Stamp>, t: Times) {
        if let Some(m) = &t.not_replayed
            && self.report.warnings.is_empty()
        {
            self.report.warnings.push(m.clone());
        }
        let mut mismatch = false;
        for m in &mut self.report.moves {
            match t.moves.get(m.ply) {
                Some(x) if x.side == m.side => {
                    m.spent_ms = x.time_ms;
                    m.remaining_ms = x.clock_ms;
                }
                _ => mismatch = true,
            }
        }
        if mismatch || t.moves.len() != self.report.moves.len() {
            self.report.warnings.push(
                "the moves replayed by the clocks differ from the moves in the log; the times \
                 shown are the log's"
                    .into(),
            );
        }
        // The items' texts and stamps are moved, not copied (a long log's take-backs
        // give a clock line each).
        let who = Side::BOTH.map(|s| self.who(s));
        self.report.time_items.reserve(t.items.len());
        // An entry's stamp goes to its last line (a take-back gives one for each side).
        let mut lines: BTreeMap<usize, usize> = BTreeMap::new();
        for it in &t.items {
            *lines.entry(it.entry).or_default() += 1;
        }
        for it in t.items {
            let left = lines.get_mut(&it.entry).map_or(0, |n| {
                *n = n.saturating_sub(1);
                *n
            });
            let stamp = if left > 0 {
                stamps.get(&it.entry).cloned()
            } else {
                stamps.remove(&it.entry)
            };
            let Some(stamp) = stamp else {
                continue;
            };
            self.report.time_items.push(TimeRow {
                stamp,
                side: it.side,
                who: it
                    .side
                    .map_or_else(|| "-".to_string(), |s| who[s.index()].clone()),
                kind: it.kind,
                clause: it.clause,
                clock_ms: it.clock_ms,
                time_ms: it.time_ms,
                text: it.text,
            });
        }
        self.report.totals = t
            .totals
            .iter()
            .map(|x| TotalRow {
                who: self.who(x.side),
                total: *x,
            })
            .collect();
    }

    fn finish(&mut self, profile: Option<&Profile>) {
        // FIDE Laws 9.1.2: an offer made before a move that never came (accepted first, or the
        // game ended) names the move it was made before.
        for (k, ply) in std::mem::take(&mut self.offer_awaits) {
            let named = self.numbered(ply, "(not made)");
            if let Some(o) = self.report.draw_offers.get_mut(k) {
                o.with_move = Some(named);
            }
        }
        // 13d: a program copy the profile asks for and the log does not show handed over.
        if let Some(result) = &self.report.result
            && profile.is_some_and(|p| p.program_copy.is_some())
            && !self.report.archives.iter().any(|a| a.clause == "13d")
        {
            self.report.archives.push(ArchiveSection {
                stamp: result.stamp.clone(),
                clause: "13d".into(),
                what: "Program copy".into(),
                summary: None,
                status: None,
                move_problems: Vec::new(),
                clock_audit: None,
                clock_problems: Vec::new(),
                fields: vec![(
                    "handed over".into(),
                    "NO: no copy of the program used for the game is recorded (13d: due within \
                     the deadline after the end of the game)"
                        .into(),
                )],
                withheld: 0,
                cites: None,
            });
        }
        let last_at = self.last_row_at.unwrap_or(0);
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
                points: thin(
                    moves
                        .iter()
                        .filter(|m| m.side == side)
                        .map(|m| (m.number, m.remaining_ms))
                        .collect(),
                ),
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
