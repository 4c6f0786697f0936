//! Committee report and PGN (PURE: reads no clock and no file).
//!
//! The report is built in two pure steps: [`model::build`] turns the game's events into a
//! [`model::Report`], and the renderers ([`html::render`], [`markdown::render`], with the clock
//! chart of [`svg::chart`]) turn the model into text; [`render`] does both. What the report is
//! made from arrives as plain data ([`Input`]), gathered by the shell (`report_io::load`).
//!
//! `arbiter report` streams instead, so that its memory does not grow with the log
//! (`report_io::write_report_checked`): one pass over the log feeds [`model::Stream`], which
//! keeps the report's sections and gives each timeline row as its entry is read
//! ([`model::Stream::push_rows`]: as what its text is made of, a batch at a time, [`rows`]); the
//! shell renders each batch ([`timeline_rows`]) once no later entry can void its rows, into a
//! file of its own, then writes what comes before the rows ([`parts`]), the rows, and what
//! follows them. A log whose voids reach further back gets its rows from a second pass
//! ([`model::Timeline`]). The bytes are those of [`render`].
//!
//! Per-move times in the report and the PGN come from [`times::times`]: the drop of each side's
//! clock between its presses, with take-backs, penalties, corrections, restart gaps and period
//! additions as lines of their own, so that they add up to the clocks.
pub mod csa; // shogi records in CSA V3.0, and the record model KIF shares
pub mod html;
pub mod kif; // shogi records in KIF
pub mod markdown;
pub mod model;
pub mod pgn;
pub mod rows;
pub mod svg;
pub mod times;
pub mod werewolf; // a werewolf game after the game: re-run, the contest's .log and .json, status, HTML

use crate::core::event::Event;

pub use model::{Report, TimelineEntry, Verification};

/// Which rendering of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Html,
    Markdown,
}

/// What the report of one game is made from, gathered by the shell.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    /// The game's events, in log order.
    pub events: Vec<Event>,
    /// `utc[i]`: the UTC text of entry `i` as written in the log (missing ones show empty).
    pub utc: Vec<String>,
    /// The verifier's verdict on the log.
    pub verification: Verification,
}

impl Input {
    /// The input of a report; without a verdict, the report says the log was not checked.
    pub fn new(events: Vec<Event>, utc: Vec<String>, verification: Option<Verification>) -> Input {
        let verification = verification.unwrap_or_else(|| Verification::not_checked(events.len()));
        Input {
            events,
            utc,
            verification,
        }
    }
}

/// Build the report of `input` and render it. With `public`, what rule 13e keeps confidential is
/// left out.
pub fn render(input: &Input, format: Format, public: bool) -> String {
    let r = model::build(&input.events, &input.utc, &input.verification, public);
    match format {
        Format::Html => html::render(&r),
        Format::Markdown => markdown::render(&r),
    }
}

/// The rendering of a report around its timeline rows, for a timeline of `rows` rows taking
/// `rows_bytes` bytes (see [`model::Streamed`]): what comes before the first row (see
/// [`align_head`]), and what comes after the last.
pub fn parts(r: &Report, rows: usize, rows_bytes: u64, format: Format) -> (String, String) {
    match format {
        Format::Html => html::parts(r, rows, rows_bytes),
        Format::Markdown => markdown::parts(r, rows, rows_bytes),
    }
}

/// What comes before the first row ([`parts`]).
pub fn head_part(r: &Report, rows: usize, rows_bytes: u64, format: Format) -> String {
    match format {
        Format::Html => html::head_part(r, rows, rows_bytes),
        Format::Markdown => markdown::head_part(r, rows, rows_bytes),
    }
}

/// What comes after the last row ([`parts`]), appended to `s`, `flush` handed `s` whenever it
/// holds `piece` bytes or more (it may write and empty it): the clock lines of a long log's
/// take-backs are megabytes of text, never held whole.
pub fn tail_part(
    s: &mut String,
    r: &Report,
    rows: usize,
    format: Format,
    piece: usize,
    flush: &mut dyn FnMut(&mut String),
) {
    match format {
        Format::Html => html::tail_part(s, r, rows, piece, flush),
        Format::Markdown => markdown::tail_part(s, r, rows, piece, flush),
    }
}

/// [`tail_part`] written to `out` a piece of about `piece` bytes at a time (any piece gives
/// the same bytes).
pub fn write_tail_in_pieces(
    r: &Report,
    rows: usize,
    format: Format,
    out: &mut dyn std::io::Write,
    piece: usize,
) -> std::io::Result<()> {
    let mut failed = None;
    let mut s = String::new();
    let mut flush = |s: &mut String| {
        if failed.is_none()
            && let Err(e) = out.write_all(s.as_bytes())
        {
            failed = Some(e);
        }
        s.clear();
    };
    tail_part(&mut s, r, rows, format, piece, &mut flush);
    flush(&mut s);
    failed.map_or(Ok(()), Err)
}

/// Rows of [`ALIGN_FROM`] bytes or more start at a multiple of this many bytes ([`align_head`]):
/// the room `arbiter report` leaves before the rows it writes during its pass, so that a head of
/// up to this size is written into it, with nothing moved or inserted (inserting the
/// head in front of 126 MB of rows took ~9 ms on one core after the pass, the page cache of the
/// whole file dropped).
pub const ROWS_ALIGN: usize = 64 * 1024;

/// From how many bytes of rows [`align_head`] pads what comes before them.
pub const ALIGN_FROM: u64 = 4 << 20;

/// `head` (what comes before the timeline's rows) padded, when the rows take [`ALIGN_FROM`]
/// bytes or more, to a multiple of [`ROWS_ALIGN`] bytes: a line of spaces inserted at `at`,
/// between two sections, which HTML and Markdown both read as nothing (a blank line). The
/// rows of a long log then start on a block of the file system, where `arbiter report` puts
/// the head in front of rows already written without copying them (see
/// `report_io::write_out`). Whether and how much is padded depends on the text alone, never
/// on the file system: the bytes are the same wherever they are written.
pub(crate) fn align_head(head: &mut String, at: usize, rows_bytes: u64) {
    let short = (ROWS_ALIGN - head.len() % ROWS_ALIGN) % ROWS_ALIGN;
    if rows_bytes < ALIGN_FROM || short == 0 || !head.is_char_boundary(at) {
        return;
    }
    let mut pad = " ".repeat(short - 1);
    pad.push('\n');
    head.insert_str(at, &pad);
}

/// One timeline row, rendered.
pub fn timeline_row(out: &mut String, t: &TimelineEntry, format: Format) {
    match format {
        Format::Html => html::timeline_row(out, t),
        Format::Markdown => markdown::timeline_row(out, t),
    }
}

/// Each row of `rows`, rendered: the bytes of [`timeline_row`] of [`rows::Rows::entries`].
pub fn timeline_rows(out: &mut String, rows: &rows::Rows, format: Format) {
    match format {
        Format::Html => html::rows(out, rows),
        Format::Markdown => markdown::rows(out, rows),
    }
}

/// Where the first byte of `s` that `special` picks is. Each row's texts are looked at 32 bytes
/// at a time, with no early exit inside the 32 (the compiler then compares them all at once),
/// and byte by byte only in the 32 that hold one (the rows' escaping was most of the
/// row writer's time).
pub(crate) fn find_special(s: &[u8], special: impl Fn(u8) -> bool) -> Option<usize> {
    let mut at = 0;
    // Whole chunks of 32 first (their length known to the compiler), then what is left.
    let mut whole = s.chunks_exact(32);
    for chunk in &mut whole {
        if chunk.iter().fold(false, |any, &b| any | special(b)) {
            return chunk.iter().position(|&b| special(b)).map(|k| at + k);
        }
        at += chunk.len();
    }
    whole
        .remainder()
        .iter()
        .position(|&b| special(b))
        .map(|k| at + k)
}
