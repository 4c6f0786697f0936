//! The timeline's rows of a streamed report, a batch at a time, as what their text is made of
//! rather than the text: `arbiter report` makes a row for most entries of a long log,
//! and building each row's five texts on the model's thread, then moving them from thread to
//! thread, cost more than the replay itself. A batch holds each row's numbers and the event's
//! kind and actor, and the row's UTC, clause and written text one after another in one buffer;
//! the most frequent row of a long log (the internal clock reported, 6c) keeps only its figures.
//! The row writer's thread renders them ([`crate::report::html::rows`],
//! [`crate::report::markdown::rows`]) into the bytes [`crate::report::timeline_row`] gives for
//! the same rows ([`Rows::entries`]).
use std::collections::BTreeMap;

use crate::core::event::Event;
use crate::core::{Actor, Ms};
use crate::report::model::{Stamp, TimelineEntry, push_hms, push_internal_clock};

/// What a row's text is made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowText {
    /// 6c: `internal clock reported at …`, from its figures.
    InternalClock(ClockFigures),
    /// The text as written, in the batch's buffer.
    Written,
}

/// The figures of a 6c internal clock report, whose row text [`push_internal_clock`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockFigures {
    pub reading_ms: Ms,
    pub game_clock_ms: i64,
    pub diff_ms: i64,
    pub threshold_ms: Ms,
    pub correction_owed: bool,
}

/// One row of a batch: its numbers, and where its texts are in the batch's buffer.
#[derive(Debug, Clone, Copy)]
struct Head {
    entry: usize,
    at_ms: Ms,
    actor: Actor,
    kind: &'static str,
    text: RowText,
    /// The UTC text from `start` to `utc`, the clause from `utc` to `clause`.
    start: usize,
    utc: usize,
    clause: usize,
    /// The written text (a [`RowText::Written`] row's).
    written: (usize, usize),
}

/// A batch of timeline rows, in log order (emptied with [`Rows::clear`] to be filled again: its
/// buffers are kept).
#[derive(Debug, Default)]
pub struct Rows {
    heads: Vec<Head>,
    texts: String,
}

/// One row of a batch, as the renderers read it.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    pub entry: usize,
    pub at_ms: Ms,
    pub actor: Actor,
    pub kind: &'static str,
    pub utc: &'a str,
    pub clause: &'a str,
    pub text: Text<'a>,
}

/// A row's text, as the renderers read it.
#[derive(Debug, Clone, Copy)]
pub enum Text<'a> {
    /// [`RowText::InternalClock`]'s figures.
    InternalClock(ClockFigures),
    Written(&'a str),
}

impl Text<'_> {
    /// The text, appended to `out`.
    pub fn push_to(&self, out: &mut String) {
        match *self {
            Text::InternalClock(c) => push_internal_clock(
                out,
                c.reading_ms,
                c.game_clock_ms,
                c.diff_ms,
                c.threshold_ms,
                c.correction_owed,
            ),
            Text::Written(t) => out.push_str(t),
        }
    }
}

impl Rows {
    /// An empty batch with room for `rows` rows.
    pub fn with_capacity(rows: usize) -> Rows {
        Rows {
            heads: Vec::with_capacity(rows),
            texts: String::with_capacity(rows * 32),
        }
    }

    /// The batch emptied (its buffers kept).
    pub fn clear(&mut self) {
        self.heads.clear();
        self.texts.clear();
    }

    pub fn len(&self) -> usize {
        self.heads.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }

    /// The entry of the batch's last row.
    pub fn last_entry(&self) -> Option<usize> {
        self.heads.last().map(|h| h.entry)
    }

    /// The row of entry `entry`, event `e` with its UTC text `utc`; a [`RowText::Written`]
    /// row's text is what `write` appends to the buffer it is given.
    pub(crate) fn push(
        &mut self,
        entry: usize,
        e: &Event,
        utc: &str,
        text: RowText,
        write: impl FnOnce(&mut String),
    ) {
        let start = self.texts.len();
        self.texts.push_str(utc);
        let utc = self.texts.len();
        self.texts.push_str(&e.clause);
        let clause = self.texts.len();
        if text == RowText::Written {
            write(&mut self.texts);
        }
        self.heads.push(Head {
            entry,
            at_ms: e.at,
            actor: e.actor,
            kind: e.kind_str(),
            text,
            start,
            utc,
            clause,
            written: (clause, self.texts.len()),
        });
    }

    /// The rows, in order.
    pub fn iter(&self) -> impl Iterator<Item = Row<'_>> {
        self.heads.iter().map(|h| {
            let text = |(from, to): (usize, usize)| self.texts.get(from..to).unwrap_or_default();
            Row {
                entry: h.entry,
                at_ms: h.at_ms,
                actor: h.actor,
                kind: h.kind,
                utc: text((h.start, h.utc)),
                clause: text((h.utc, h.clause)),
                text: match h.text {
                    RowText::InternalClock(c) => Text::InternalClock(c),
                    RowText::Written => Text::Written(text(h.written)),
                },
            }
        })
    }

    /// Rule 1: each row marked with the entries of `voids` that voided its entry (those after
    /// it, or itself), as [`crate::report::model::Timeline`] marks its rows: its text, written
    /// out, then ` [VOIDED by entry #N]` for each.
    pub fn mark_voided(&mut self, voids: &BTreeMap<u64, Vec<usize>>) {
        let (Some(first), Some(last)) = (self.heads.first(), self.heads.last()) else {
            return;
        };
        let reach = first.entry as u64..=last.entry as u64;
        for (&seq, by) in voids.range(reach) {
            let Ok(k) = self.heads.binary_search_by(|h| (h.entry as u64).cmp(&seq)) else {
                continue;
            };
            let Some(h) = self.heads.get(k).copied() else {
                continue;
            };
            let mut by = by.iter().filter(|by| **by >= h.entry).peekable();
            if by.peek().is_none() {
                continue;
            }
            // The text written again at the buffer's end, with the marks.
            let mut text = String::new();
            if let Some(row) = self.iter().nth(k) {
                row.text.push_to(&mut text);
            }
            for by in by {
                text.push_str(" [VOIDED by entry #");
                crate::report::model::push_number(&mut text, *by as u64);
                text.push(']');
            }
            let from = self.texts.len();
            self.texts.push_str(&text);
            if let Some(h) = self.heads.get_mut(k) {
                h.text = RowText::Written;
                h.written = (from, self.texts.len());
            }
        }
    }

    /// The rows as [`TimelineEntry`]s (for the tests: the renderers of the rows write the bytes
    /// of [`crate::report::timeline_row`] of these).
    pub fn entries(&self) -> Vec<TimelineEntry> {
        self.iter()
            .map(|r| {
                let mut game_time = String::new();
                push_hms(&mut game_time, r.at_ms);
                let mut text = String::new();
                r.text.push_to(&mut text);
                TimelineEntry {
                    stamp: Stamp {
                        entry: r.entry,
                        at_ms: r.at_ms,
                        game_time,
                        utc: r.utc.to_string(),
                    },
                    actor: r.actor.name().to_string(),
                    clause: r.clause.to_string(),
                    kind: r.kind.to_string(),
                    text,
                }
            })
            .collect()
    }
}
