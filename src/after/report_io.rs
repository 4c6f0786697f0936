//! The committee report's shell (SHELL): gathers what [`crate::report`] renders — a game log's
//! events with each entry's UTC text, and the verifier's verdict — and writes the rendering
//! readable by its owner only. `report` itself reads no file; `arbiter report` calls
//! [`write_report_checked`], which reads the log once (the verifier reads it beside, on a thread
//! of its own) and never holds it ([`load`] then [`crate::report::render`] give the same bytes,
//! for the tests).
//!
//! The log is read leniently, line by line through the one codec (a line as the kit writes it by
//! [`crate::log::codec::decode_canonical`], any other by [`event_from_value`]): the
//! chain is not checked here (that is the verifier's verdict, shown in the report), so a tampered
//! log still gets its report. A line that is not an event of this kit stops the report.
use std::path::{Path, PathBuf};

use crate::core::event::Event;
use crate::log::codec::{DecodeError, event_from_value};
use crate::record::layout::{game_dir, log_path};
use crate::report::{Format, Input, Verification};

/// Why a game log could not be read for the report.
#[derive(Debug, thiserror::Error)]
pub enum ReadLogError {
    /// The file could not be read (or is not UTF-8).
    #[error("{}: {source}", .path.display())]
    File {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Line `line` (1-based) is not JSON at all.
    #[error(
        "{}: line {line} is not JSON ({detail}); each line of a game log is one JSON entry \
         (rule 5b: the log of machine-related actions)",
        .path.display()
    )]
    NotJson {
        path: PathBuf,
        line: usize,
        detail: String,
    },
    /// Line `line` (1-based) is not an event of this kit (or too long, or not UTF-8).
    #[error("{}:{line}: {problem}", .path.display())]
    Line {
        path: PathBuf,
        line: usize,
        problem: DecodeError,
    },
}

/// Default output path of the report of game `n`.
pub fn default_path(match_dir: &Path, n: u32, format: Format) -> PathBuf {
    game_dir(match_dir, n).join(match format {
        Format::Html => "report.html",
        Format::Markdown => "report.md",
    })
}

/// Read a game log line by line (the file is never held whole): the events and each line's `utc`
/// text (empty when absent). Blank lines are skipped; a line that is not UTF-8 or longer than
/// [`crate::record::journal::MAX_LINE_BYTES`] is named by its number.
pub fn read_log(path: &Path) -> Result<(Vec<Event>, Vec<String>), ReadLogError> {
    let mut events = Vec::new();
    let mut utc = Vec::new();
    for_each_event(path, |e, u| {
        events.push(e);
        utc.push(u.to_string());
    })?;
    Ok((events, utc))
}

/// [`read_log`] without keeping anything: `each` sees every event with its line's `utc` text, in
/// order. Returns how many there were. Memory is one line.
pub fn for_each_event(
    path: &Path,
    mut each: impl FnMut(Event, &str),
) -> Result<usize, ReadLogError> {
    for_each_event_until(path, |e, utc| {
        each(e, utc);
        std::ops::ControlFlow::Continue(())
    })
}

/// How many entries the reader of [`for_each_event_ahead`] hands over at a time.
const BATCH: usize = 1024;

/// Entries read and decoded, handed from the reader's thread to the model's.
struct Batch {
    /// Each event in the box the replay keeps it in (made on the reader's thread, or on the
    /// verifier's checking thread that decoded it: the model's thread neither copies nor moves
    /// it). An entry not decoded there is in `own`.
    events: Vec<crate::record::journal::Decoded>,
    /// The entries decoded by the batch's filler (its index in the batch, its event), in order.
    own: Vec<(usize, std::sync::Arc<Event>)>,
    /// The entries' `utc` texts one after another; entry `i`'s ends at `ends[i]`.
    utc: String,
    ends: Vec<usize>,
}

/// A batch emptied for the next entries: one handed back once seen (its events dropped here,
/// on the thread that fills it: their memory goes back where it came from, off the model's
/// thread), or a new one.
fn fresh_batch(used: &std::sync::mpsc::Receiver<Batch>) -> Batch {
    match used.try_recv() {
        Ok(mut b) => {
            b.events.clear();
            b.own.clear();
            b.utc.clear();
            b.ends.clear();
            b
        }
        Err(_) => Batch {
            events: Vec::with_capacity(BATCH),
            own: Vec::new(),
            utc: String::with_capacity(BATCH * 24),
            ends: Vec::with_capacity(BATCH),
        },
    }
}

/// The reader's side of [`first_pass`]: the log read and decoded ([`for_each_event_until`]),
/// [`BATCH`] entries at a time into `tx` (the batches seen come back by `used`, to be filled
/// again: no large buffer is made and freed for every batch). Returns how many entries there
/// were, or the read's error once every entry before it was sent.
fn read_batches(
    path: &Path,
    tx: std::sync::mpsc::SyncSender<Batch>,
    used: std::sync::mpsc::Receiver<Batch>,
) -> Result<usize, ReadLogError> {
    use std::ops::ControlFlow;
    let mut batch = fresh_batch(&used);
    let read = for_each_event_until(path, |e, utc| {
        batch.events.push(Ok(std::sync::Arc::new(e)));
        batch.utc.push_str(utc);
        batch.ends.push(batch.utc.len());
        if batch.events.len() < BATCH {
            return ControlFlow::Continue(());
        }
        match tx.send(std::mem::replace(&mut batch, fresh_batch(&used))) {
            Ok(()) => ControlFlow::Continue(()),
            // The model's side is gone (it can only have panicked): stop reading.
            Err(_) => ControlFlow::Break(()),
        }
    });
    if !batch.events.is_empty() {
        let _ = tx.send(batch);
    }
    read
}

/// Every entry of the batches of `rx`, in order, to `each`; each batch seen goes back by `back`
/// (emptied by its filler when it fills it again, or dropped here when the filler is done).
fn each_batched(
    rx: std::sync::mpsc::Receiver<Batch>,
    back: std::sync::mpsc::Sender<Batch>,
    mut each: impl FnMut(&std::sync::Arc<Event>, &str),
) {
    for b in rx {
        let mut start = 0;
        let mut own = b.own.iter().peekable();
        for (k, (d, &end)) in b.events.iter().zip(&b.ends).enumerate() {
            let utc = b.utc.get(start..end).unwrap_or_default();
            start = end;
            // The filler decoded every entry its decoder did not (see [`Feed::take`]).
            if let Some((_, e)) = own.next_if(|(at, _)| *at == k) {
                each(e, utc);
            } else if let Ok(e) = d {
                each(e, utc);
            }
        }
        let _ = back.send(b);
    }
}

/// [`for_each_event`], stopping early when `each` says so.
fn for_each_event_until(
    path: &Path,
    mut each: impl FnMut(Event, &str) -> std::ops::ControlFlow<()>,
) -> Result<usize, ReadLogError> {
    use std::io::{BufRead, Read};
    let file_error = |source| ReadLogError::File {
        path: path.to_owned(),
        source,
    };
    let file = crate::record::fsio::open_match_file(path).map_err(file_error)?;
    let mut r = std::io::BufReader::with_capacity(1 << 16, file);
    let mut buf = Vec::new();
    let mut count = 0;
    for i in 0.. {
        buf.clear();
        // At most the bound's bytes are held (the buffer's capacity never passes the
        // bound, however long the line); one byte more, only looked at, tells a line longer
        // than the bound from one that ends right there.
        let limit = crate::record::journal::MAX_LINE_BYTES;
        let got = (&mut r)
            .take(limit as u64)
            .read_until(b'\n', &mut buf)
            .map_err(file_error)?;
        if got == 0 {
            break;
        }
        let longer = got == limit
            && buf.last() != Some(&b'\n')
            && match r.fill_buf().map_err(file_error)?.first() {
                None => false,
                Some(b'\n') => {
                    r.consume(1);
                    false
                }
                Some(_) => true,
            };
        if longer {
            return Err(ReadLogError::Line {
                path: path.to_owned(),
                line: i + 1,
                problem: DecodeError::Json(format!(
                    "line longer than {} bytes",
                    crate::record::journal::MAX_LINE_BYTES
                )),
            });
        }
        let Some((event, utc)) = decode_line(path, i, &buf)? else {
            continue;
        };
        let flow = each(event, &utc);
        count += 1;
        if flow.is_break() {
            break;
        }
    }
    Ok(count)
}

/// Line `i` (0-based) of `path` (its bytes, the newline included or not) read for the report:
/// its event and its `utc` text (empty when absent); `None` for a blank line. A line as the kit
/// writes it is read straight into its event (no `Value`); any other shape goes the lenient way,
/// which also names what is wrong with a bad line.
fn decode_line<'a>(
    path: &Path,
    i: usize,
    buf: &'a [u8],
) -> Result<Option<(Event, std::borrow::Cow<'a, str>)>, ReadLogError> {
    let at = |problem: DecodeError| ReadLogError::Line {
        path: path.to_owned(),
        line: i + 1,
        problem,
    };
    let line =
        std::str::from_utf8(buf).map_err(|e| at(DecodeError::Json(format!("not UTF-8: {e}"))))?;
    let line = line.strip_suffix('\n').unwrap_or(line);
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.trim().is_empty() {
        return Ok(None);
    }
    if let Ok(typed) = crate::log::codec::decode_canonical(line.as_bytes()) {
        return Ok(Some((typed.event, typed.utc)));
    }
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| not_json(path, i, &e))?;
    let event = event_from_value(&v).map_err(at)?;
    let utc = v.get("utc").and_then(|u| u.as_str()).unwrap_or_default();
    Ok(Some((event, std::borrow::Cow::Owned(utc.to_owned()))))
}

/// Line `i` (0-based) of `path` does not parse as JSON: named by its number, with serde's
/// reason and column (the line is always serde's line 1).
fn not_json(path: &Path, i: usize, e: &serde_json::Error) -> ReadLogError {
    let text = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    let detail = match text.strip_suffix(&at) {
        Some(what) => format!("{what} at column {}", e.column()),
        None => text,
    };
    ReadLogError::NotJson {
        path: path.to_owned(),
        line: i + 1,
        detail,
    }
}

/// Why `arbiter report` could not write its report.
#[derive(Debug, thiserror::Error)]
pub enum WriteReportError {
    #[error(transparent)]
    Read(#[from] ReadLogError),
    /// The output could not be written (nothing was replaced).
    #[error("{}: {source}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Write the report of game `n` to `out` without holding the log or the timeline
/// ([`write_report_checked`] with the verdict given).
pub fn write_report(
    match_dir: &Path,
    n: u32,
    format: Format,
    public: bool,
    verification: Option<Verification>,
    out: &Path,
) -> Result<(), WriteReportError> {
    write_report_checked(match_dir, n, format, public, move || verification, out)
}

/// How many entries a timeline row waits before it is written: a void reaches back at most
/// `2 × VOID_WINDOW` entries (rule 1, `core::game::void`), and the row must carry its marks.
const ROW_HOLD: usize = 4 * crate::core::game::VOID_WINDOW;

/// Write the report of game `n` to `out` in one pass over the log, holding neither the log nor
/// the timeline. `verdict` (the verifier's, [`verification`]) runs on a thread of its own beside
/// the pass; `None` says the log was not checked.
///
/// The pass builds the report's sections ([`crate::report::model::Stream`]) and renders each
/// timeline row once no later entry can void it ([`ROW_HOLD`]) into a private, nameless file
/// next to `out` (the rows come after the sections, which need the whole log). Then `out` gets
/// what comes before the rows, the rows, and the rest. A tampered log whose void names an entry
/// already written gets its rows from a second pass ([`crate::report::model::Timeline`]). The
/// bytes are those of [`render_game`]; `out` is replaced as by [`write_private`] (a new file,
/// then a rename), and only when everything was written.
pub fn write_report_checked(
    match_dir: &Path,
    n: u32,
    format: Format,
    public: bool,
    verdict: impl FnOnce() -> Option<Verification> + Send,
    out: &Path,
) -> Result<(), WriteReportError> {
    let path = log_path(match_dir, n);
    let (pass, given) = std::thread::scope(|s| {
        let checking = s.spawn(verdict);
        let pass = first_pass(&path, format, public, out);
        match checking.join() {
            Ok(given) => (pass, given),
            Err(p) => std::panic::resume_unwind(p),
        }
    });
    write_out(&path, format, public, pass, given, out)
}

/// The verifier's check of a log, handing each line it checked to the reader it is given (as
/// [`crate::record::witness::verify_match_watching`] does): its verdict, and whether the reader saw
/// every line of the log, in order, with the verdict given by that pass.
pub type Watched = (Option<Verification>, bool);

/// [`write_report_checked`] in one read of the log: the report is built from the
/// lines `verdict`'s own pass checked, each decoded on the core that checked it
/// ([`crate::record::journal::with_events_decoded`]), on a thread of its own beside that pass (the
/// verifier's thread only hands the entries over, a batch at a time). When that pass did not
/// hand over every line (a log with anything to report goes the verifier's exact way, or it
/// changed meanwhile), what was built is thrown away and the report is made from a read of its
/// own, as [`write_report_checked`] makes it: the same bytes either way.
pub fn write_report_verified(
    match_dir: &Path,
    n: u32,
    format: Format,
    public: bool,
    verdict: impl FnOnce(&mut dyn FnMut(&crate::record::journal::LineView<'_>)) -> Watched,
    out: &Path,
) -> Result<(), WriteReportError> {
    let path = log_path(match_dir, n);
    let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(FEED_QUEUE);
    let (back, used) = std::sync::mpsc::channel::<Batch>();
    let (model, given, fed) = std::thread::scope(|s| {
        let model = s.spawn(move || model_pass(rx, back, format, public, out));
        let (to, events) = std::sync::mpsc::channel();
        let (seen, seen_rx) = std::sync::mpsc::channel();
        let mut feed = Feed {
            seen,
            path: &path,
            batch: fresh_batch(&used),
            tx: Some(tx),
            used,
            events,
            next: 0,
            whole: true,
            failed: None,
        };
        let (given, streamed) = crate::record::journal::with_events_handed(to, seen_rx, || {
            verdict(&mut |v| feed.take(v))
        });
        let fed = feed.finish(streamed);
        match model.join() {
            Ok(model) => (model, given, fed),
            Err(p) => std::panic::resume_unwind(p),
        }
    });
    let pass = match fed {
        Some(entries) => entries.map(|entries| {
            let (streamed, spool) = model;
            Pass {
                streamed,
                entries,
                spool,
            }
        }),
        None => {
            drop(model);
            first_pass(&path, format, public, out)
        }
    };
    write_out(&path, format, public, pass, given, out)
}

/// Blocks of entries handed to the model's thread and not yet taken by it (with one,
/// the thread joining the verifier's blocks waited on the model's whenever it was a block
/// behind, and the checking threads with it).
const FEED_QUEUE: usize = 8;

/// The lines of the verifier's pass, handed to the model's thread a block at a time
/// ([`write_report_verified`]): each block's events as its checking threads decoded them
/// ([`crate::record::journal::with_events_handed`]), with its lines' `utc` texts gathered here.
struct Feed<'p> {
    path: &'p Path,
    /// The lines seen since the last block's events came.
    batch: Batch,
    /// `None` once the model's side is gone (it can only have panicked).
    tx: Option<std::sync::mpsc::SyncSender<Batch>>,
    used: std::sync::mpsc::Receiver<Batch>,
    /// Each block's events, once its lines were seen.
    events: std::sync::mpsc::Receiver<Vec<crate::record::journal::Decoded>>,
    /// Where they go once the model saw them: to the checking threads that made them, to be
    /// dropped there.
    seen: std::sync::mpsc::Sender<Vec<crate::record::journal::Decoded>>,
    /// Lines taken so far (the next line's number).
    next: u64,
    /// Every line so far came in order, with its bytes, and each block's events with them.
    whole: bool,
    /// A line that is not an event of this kit: the report stops there, as when it reads the
    /// log itself ([`for_each_event_until`]).
    failed: Option<ReadLogError>,
}

impl Feed<'_> {
    fn take(&mut self, v: &crate::record::journal::LineView<'_>) {
        self.blocks();
        let Some(line) = v.line.filter(|_| self.whole && v.seq == self.next) else {
            self.whole = false;
            return;
        };
        self.next += 1;
        if self.failed.is_some() || self.tx.is_none() {
            return;
        }
        let k = self.batch.ends.len();
        // The `utc` text as the checking thread gathered it, else read here.
        match (v.event, v.utc.or_else(|| canonical_utc(line))) {
            (Some(Ok(_)), Some(utc)) => self.batch.utc.push_str(utc),
            // Not decoded on the checking thread (or a `utc` written with an escape): decoded
            // here, as a read of the log decodes it.
            _ => match decode_line(self.path, v.seq as usize, line) {
                Ok(Some((e, utc))) => {
                    self.batch.own.push((k, std::sync::Arc::new(e)));
                    self.batch.utc.push_str(&utc);
                }
                // A checked line is never blank.
                Ok(None) => self.whole = false,
                Err(e) => self.failed = Some(e),
            },
        }
        self.batch.ends.push(self.batch.utc.len());
    }

    /// The events of the blocks whose lines were all seen, sent on with those lines.
    fn blocks(&mut self) {
        while let Ok(events) = self.events.try_recv() {
            if events.len() != self.batch.ends.len() {
                self.whole = false;
            }
            if !self.whole || self.failed.is_some() {
                self.batch.own.clear();
                self.batch.utc.clear();
                self.batch.ends.clear();
                continue;
            }
            let mut next = match self.used.try_recv() {
                Ok(mut b) => {
                    let _ = self.seen.send(std::mem::take(&mut b.events));
                    b
                }
                Err(_) => fresh_batch(&self.used),
            };
            next.own.clear();
            next.utc.clear();
            next.ends.clear();
            let mut b = std::mem::replace(&mut self.batch, next);
            b.events = events;
            if let Some(tx) = &self.tx
                && tx.send(b).is_err()
            {
                self.tx = None;
            }
        }
    }

    /// The last block handed over and the model's side told the log is done: how many entries
    /// there were (or the line that stopped the report) when every line came from the
    /// verifier's pass, `None` when the report must read the log itself.
    fn finish(mut self, streamed: bool) -> Option<Result<usize, ReadLogError>> {
        self.blocks();
        drop(self.tx.take());
        // (A log of no line is never streamed: the read of its own says what it is.)
        if !(streamed && self.whole && self.next > 0 && self.batch.ends.is_empty()) {
            return None;
        }
        Some(match self.failed {
            Some(e) => Err(e),
            None => Ok(self.next as usize),
        })
    }
}

/// The `utc` text of a line in the kit's canonical form, where that form puts it
/// (`{"v":1,"seq":N,"prev":"…","utc":"…",`), as [`crate::log::codec::decode_canonical`] reads
/// it: `None` when it is written with an escape or the line is in another form (the caller then
/// decodes the line).
fn canonical_utc(line: &[u8]) -> Option<&str> {
    // The rest of a JSON string whose opening quote was read, and what follows its closing
    // quote; `None` for an escape or a control character.
    // `hint`: where the closing quote usually is (a hash's 64 hex digits, a UTC time's 24
    // characters), looked at first (a byte-by-byte search for it cost more than the
    // rest of the line's handing over).
    fn plain(s: &[u8], hint: usize) -> Option<(&[u8], &[u8])> {
        let end = match s.get(hint) {
            Some(b'"') => hint,
            _ => s.iter().position(|&b| b == b'"')?,
        };
        let (text, rest) = (s.get(..end)?, s.get(end + 1..)?);
        // Folded without an early exit, so that the compiler checks many bytes at once.
        let escaped = text.iter().fold(false, |any, &b| {
            any | (b == b'\\') | (b == b'"') | (b < 0x20)
        });
        (!escaped).then_some((text, rest))
    }
    let rest = line.strip_prefix(b"{\"v\":1,\"seq\":")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = rest.get(digits..)?.strip_prefix(b",\"prev\":\"")?;
    let (_, rest) = plain(rest, 64)?;
    let rest = rest.strip_prefix(b",\"utc\":\"")?;
    let (utc, _) = plain(rest, 24)?;
    std::str::from_utf8(utc).ok()
}

/// What [`write_report_checked`] writes once the pass and the verdict are in.
fn write_out(
    path: &Path,
    format: Format,
    public: bool,
    pass: Result<Pass, ReadLogError>,
    given: Option<Verification>,
    out: &Path,
) -> Result<(), WriteReportError> {
    let Pass {
        streamed,
        entries,
        spool,
    } = pass?;
    let mut report = streamed.report;
    report.verification = match given {
        Some(v) if public => v.public(""),
        Some(v) => v,
        None => Verification::not_checked(entries),
    };
    let rows = streamed.timeline_rows;
    let write_error = |source| WriteReportError::Write {
        path: out.to_owned(),
        source,
    };
    let (spool, rows_bytes) = match spool {
        Spooled::Rows(f, len) => (Some(f), len),
        Spooled::Failed(e) => return Err(write_error(e)),
        // (Written by the second pass: never as long as the rows the first pass aligns for.)
        Spooled::Late => (None, 0),
    };
    let head = crate::report::head_part(&report, rows, rows_bytes, format);
    // The tail is written from the report a piece at a time, rendered on a thread of its own
    // while this one writes (a long log's clock lines are megabytes).
    let write_tail = |f: &mut std::fs::File| {
        write_rendered(f, |s, flush| {
            crate::report::tail_part(s, &report, rows, format, TAIL_PIECE, flush)
        })
    };
    if let Some(rows) = &spool
        && let Some(done) = head_in_front(rows, ROWS_AT, rows_bytes, &head, write_tail, out)
    {
        // (Freeing a long log's report took ~10 ms on one core after the file was in place.)
        drop_aside((report, head));
        return done.map_err(write_error);
    }
    let mut read_error = None;
    write_atomic_file(out, |f| {
        use std::io::Write;
        f.write_all(head.as_bytes())?;
        match spool {
            Some(rows) => move_rows(&rows, ROWS_AT, rows_bytes, f)?,
            None => {
                let mut w = std::io::BufWriter::with_capacity(1 << 16, &*f);
                if let Err(e) = second_pass(path, format, public, streamed.voids, &mut w)? {
                    read_error = Some(e);
                    return Err(std::io::Error::other("the log could not be read again"));
                }
                w.flush()?;
            }
        }
        write_tail(f)
    })
    .map_err(|source| match read_error.take() {
        Some(e) => WriteReportError::Read(e),
        None => write_error(source),
    })
}

/// How much of a report's tail is rendered before it is written out ([`write_rendered`]).
const TAIL_PIECE: usize = 1 << 20;

/// What `render` renders, written to `f` a piece at a time (each piece's writeback started at
/// once), rendered on a thread of its own while this one writes the pieces before (or here,
/// where no thread can be started). `render` appends to the text it is given and hands it to
/// `flush` when it wants a piece written. After a failed write the rest is rendered and not
/// written; the error is the answer.
fn write_rendered(
    f: &mut std::fs::File,
    render: impl FnOnce(&mut String, &mut dyn FnMut(&mut String)) + Send,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut at = std::io::Seek::stream_position(f)?;
    let mut failed: Option<std::io::Error> = None;
    let mut write = |piece: &str, f: &mut std::fs::File| {
        if failed.is_some() || piece.is_empty() {
            return;
        }
        match f.write_all(piece.as_bytes()) {
            Ok(()) => {
                start_writeback(f, at, piece.len() as u64);
                at += piece.len() as u64;
            }
            Err(e) => failed = Some(e),
        }
    };
    // Taken once, by the rendering thread or (when none can be started) by this one.
    let job = std::sync::Mutex::new(Some(render));
    let run = |flush: &mut dyn FnMut(&mut String)| {
        let render = job.lock().ok().and_then(|mut j| j.take());
        if let Some(render) = render {
            let mut s = String::with_capacity(TAIL_PIECE + TAIL_PIECE / 8);
            render(&mut s, flush);
            flush(&mut s);
        }
    };
    let (tx, pieces) = std::sync::mpsc::sync_channel::<String>(2);
    let (back, spare) = std::sync::mpsc::channel::<String>();
    let run = &run;
    std::thread::scope(|scope| {
        let renderer = std::thread::Builder::new()
            .name("tail".into())
            .spawn_scoped(scope, move || {
                run(&mut |s: &mut String| {
                    let next = spare
                        .try_recv()
                        .unwrap_or_else(|_| String::with_capacity(TAIL_PIECE + TAIL_PIECE / 8));
                    // (Gone only once this side's writing stopped by a panic: dropped.)
                    let _ = tx.send(std::mem::replace(s, next));
                });
                drop(tx);
            });
        if let Ok(renderer) = renderer {
            for mut piece in pieces {
                write(&piece, f);
                piece.clear();
                let _ = back.send(piece);
            }
            if let Err(p) = renderer.join() {
                std::panic::resume_unwind(p);
            }
        }
    });
    run(&mut |s: &mut String| {
        write(s, f);
        s.clear();
    });
    failed.map_or(Ok(()), Err)
}

/// `what`, dropped on a thread of its own: the caller goes on (a command exits) without waiting
/// for the memory of a long log's report to be given back piece by piece. Dropped here when no
/// thread can be started.
pub(crate) fn drop_aside<T: Send + 'static>(what: T) {
    // (A thread that cannot be started drops its closure, and `what` with it, here.)
    let _ = std::thread::Builder::new()
        .name("drop".into())
        .spawn(move || drop(what));
}

/// The report written around rows already in `rows` (its `rows_bytes` bytes from `rows_at`),
/// without moving them: `rows` (a nameless `O_TMPFILE` next to `out`) given a name next to `out`
/// through `/proc/self/fd`, `head` written into the room before the rows, made larger first by
/// the file system where the head is longer than the room (`FALLOC_FL_INSERT_RANGE`, which
/// shifts the rows by whole blocks: [`crate::report::align_head`] makes the head a whole number
/// of them), the tail after them, the file synced and renamed over `out`, as
/// [`write_atomic_file`] replaces it (on the 1,000,000-entry log, copying 126 MB of
/// rows behind the head cost ~90 ms after the pass, on one core; inserting the head in front of
/// them, ~9 ms).
///
/// `None` when this cannot be done (the head is shorter than the room, or not a whole number of
/// the file system's blocks, the spool cannot be named, or the range cannot be inserted):
/// nothing was changed, and `out` is written the other way. Once the head is in, an error is
/// the report's (the new name is removed, `out` is left as it was).
pub fn head_in_front(
    rows: &std::fs::File,
    rows_at: u64,
    rows_bytes: u64,
    head: &str,
    write_tail: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
    out: &Path,
) -> Option<std::io::Result<()>> {
    use rustix::fs::{AtFlags, CWD, FallocateFlags, fallocate, linkat};
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::FileExt;
    let block = rustix::fs::fstatvfs(rows).ok()?.f_bsize;
    let more = (head.len() as u64).checked_sub(rows_at)?;
    if rows_bytes == 0
        || head.is_empty()
        || block == 0
        || !(head.len() as u64).is_multiple_of(block)
        || !more.is_multiple_of(block)
        || replaceable(out).is_err()
    {
        return None;
    }
    let tmp = tmp_name(out);
    let _ = std::fs::remove_file(&tmp);
    let named = format!("/proc/self/fd/{}", rows.as_raw_fd());
    linkat(CWD, named.as_str(), CWD, &tmp, AtFlags::SYMLINK_FOLLOW).ok()?;
    if more > 0 && fallocate(rows, FallocateFlags::INSERT_RANGE, 0, more).is_err() {
        let _ = std::fs::remove_file(&tmp);
        return None;
    }
    let written = (|| {
        rows.write_all_at(head.as_bytes(), 0)?;
        let mut f = rows.try_clone()?;
        std::io::Seek::seek(
            &mut f,
            std::io::SeekFrom::Start(head.len() as u64 + rows_bytes),
        )?;
        write_tail(&mut f)?;
        f.sync_all()?;
        std::fs::rename(&tmp, out)?;
        crate::record::journal::sync_dir(&dir_of(out))
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    Some(written)
}

/// What the first pass gathered.
struct Pass {
    streamed: crate::report::model::Streamed,
    entries: usize,
    spool: Spooled,
}

/// Where the timeline's rows are after the first pass.
enum Spooled {
    /// All of them, rendered, in this file from its start, and how many bytes they take.
    Rows(std::fs::File, u64),
    /// A void named an entry whose row was already written: the rows need a second pass.
    Late,
    /// The file next to `out` could not be made or written.
    Failed(std::io::Error),
}

/// The one pass over the log: the report's sections, and the timeline's rows rendered into a
/// spool file next to `out`.
fn first_pass(path: &Path, format: Format, public: bool, out: &Path) -> Result<Pass, ReadLogError> {
    let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(4);
    let (back, used) = std::sync::mpsc::channel::<Batch>();
    // The reading and decoding on a thread of their own, a few batches ahead of the model (the
    // pass's two halves on the machine's two cores; memory stays a few batches of entries).
    let (model, entries) = std::thread::scope(|s| {
        let reader = s.spawn(move || read_batches(path, tx, used));
        let model = model_pass(rx, back, format, public, out);
        match reader.join() {
            Ok(read) => (model, read),
            Err(p) => std::panic::resume_unwind(p),
        }
    });
    let (streamed, spool) = model;
    Ok(Pass {
        streamed,
        entries: entries?,
        spool,
    })
}

/// The model's side of the one pass: every entry of the batches of `rx` into the report's
/// sections ([`crate::report::model::Stream`]), and the timeline's rows rendered into a spool
/// file next to `out` (on a thread of their own, [`write_rows`]) once no later entry can void
/// them ([`ROW_HOLD`]).
fn model_pass(
    rx: std::sync::mpsc::Receiver<Batch>,
    back: std::sync::mpsc::Sender<Batch>,
    format: Format,
    public: bool,
    out: &Path,
) -> (crate::report::model::Streamed, Spooled) {
    use crate::core::event::EventKind;
    use crate::report::model::Stream;
    use crate::report::rows::Rows;
    use std::collections::VecDeque;
    let mut stream = Stream::new(&Verification::not_checked(0), public);
    let spool = spool_next_to(out);
    // The rows are rendered and written on a thread of their own (the model's thread hands them
    // over marked, a batch at a time, as what their texts are made of, and gets the batches
    // back to fill again).
    let (tx, rows_rx) = std::sync::mpsc::sync_channel::<Rows>(4);
    let (rows_back, used) = std::sync::mpsc::channel::<Rows>();
    std::thread::scope(|s| {
        let writer = s.spawn(move || write_rows(spool, rows_rx, rows_back, format));
        let mut late = false;
        let fresh = || match used.try_recv() {
            Ok(mut rows) => {
                rows.clear();
                rows
            }
            Err(_) => Rows::with_capacity(ROW_BATCH),
        };
        // The batch being filled; the full ones not yet handed over (their rows are within a
        // void's reach); the first entry whose row is not handed over yet.
        let mut open = fresh();
        let mut held: VecDeque<Rows> = VecDeque::new();
        let mut written_below = 0usize;
        let send = |stream: &Stream, mut rows: Rows| -> usize {
            stream.mark_voided_rows(&mut rows);
            let below = rows.last_entry().map_or(0, |last| last + 1);
            // The writer stops taking rows only once a write failed: its error is the pass's
            // answer, whatever the rows after it.
            let _ = tx.send(rows);
            below
        };
        each_batched(rx, back, |e, utc| {
            if let EventKind::EntryVoided { seq, .. } = &e.kind
                && *seq < written_below as u64
            {
                late = true;
                held.clear();
                open.clear();
            }
            if late {
                stream.push_counted(e, utc);
                return;
            }
            stream.push_rows(e, utc, &mut open);
            if open.len() >= ROW_BATCH {
                held.push_back(std::mem::replace(&mut open, fresh()));
            }
            let next = stream.entries();
            while next > ROW_HOLD
                && held
                    .front()
                    .and_then(Rows::last_entry)
                    .is_some_and(|last| last < next - ROW_HOLD)
            {
                if let Some(rows) = held.pop_front() {
                    written_below = written_below.max(send(&stream, rows));
                }
            }
        });
        // (When the read failed, these rows are written for nothing: the pass's answer is the
        // read's error.)
        if !late {
            for rows in held.drain(..) {
                send(&stream, rows);
            }
            if !open.is_empty() {
                send(&stream, open);
            }
        }
        drop(tx);
        let written = match writer.join() {
            Ok(written) => written,
            Err(p) => std::panic::resume_unwind(p),
        };
        let spool = match written {
            _ if late => Spooled::Late,
            Ok((f, len)) => Spooled::Rows(f, len),
            Err(e) => Spooled::Failed(e),
        };
        (stream.finish(), spool)
    })
}

/// Where the timeline's rows start in the spool ([`write_rows`]): the room before them is the
/// head's (of a long log: [`crate::report::align_head`]).
const ROWS_AT: u64 = crate::report::ROWS_ALIGN as u64;

/// How many rows the model's thread hands the writer's at a time.
const ROW_BATCH: usize = 1024;

/// The writer's side of [`first_pass`]: each batch of rows rendered
/// ([`crate::report::timeline_rows`]) into `spool`, the batches sent back to be filled again;
/// the spool and how many bytes of rows it holds, or the first error (the rows after it are
/// taken and sent back unwritten, so the model's side never waits). Each [`MOVE_CHUNK`] written
/// has its writeback started at once, so that the rows are on the disk, or nearly, once the pass
/// is over ([`write_out`]).
fn write_rows(
    spool: std::io::Result<std::fs::File>,
    rows: std::sync::mpsc::Receiver<crate::report::rows::Rows>,
    back: std::sync::mpsc::Sender<crate::report::rows::Rows>,
    format: Format,
) -> std::io::Result<(std::fs::File, u64)> {
    use std::io::{Seek, Write};
    // The rows after the head's room (left a hole).
    let mut w = spool.and_then(|mut f| f.seek(std::io::SeekFrom::Start(ROWS_AT)).map(|_| f));
    let mut text = String::new();
    let (mut written, mut started) = (0u64, 0u64);
    for batch in rows {
        if let Ok(out) = &mut w {
            text.clear();
            crate::report::timeline_rows(&mut text, &batch, format);
            match out.write_all(text.as_bytes()) {
                Ok(()) => {
                    written += text.len() as u64;
                    if written - started >= MOVE_CHUNK as u64 {
                        start_writeback(out, ROWS_AT + started, written - started);
                        started = written;
                    }
                }
                Err(e) => w = Err(e),
            }
        }
        let _ = back.send(batch);
    }
    // The last rows' writeback started too, while the sections are finished and the head is
    // rendered (the insert of the head, or the fsync, then waits for less), for rows long
    // enough to be written without a copy.
    if let Ok(out) = &w
        && written >= crate::report::ALIGN_FROM
        && written > started
    {
        start_writeback(out, ROWS_AT + started, written - started);
    }
    Ok((w?, written))
}

/// Starts writing `len` bytes of `f` from `at` to its disk, without waiting (`POSIX_FADV_DONTNEED`
/// starts the writeback of dirty pages, and lets the pages go once written): the fsync before a
/// rename then finds them written (on the 1,000,000-entry log it waited ~55 ms for
/// 126 MB of rows, ~2 ms after). A hint: where it is not taken, nothing changes but the wait.
fn start_writeback(f: &std::fs::File, at: u64, len: u64) {
    let _ = rustix::fs::fadvise(
        f,
        at,
        std::num::NonZeroU64::new(len),
        rustix::fs::Advice::DontNeed,
    );
}

/// A private file next to `out` for the timeline's rows, with no name (`O_TMPFILE`: gone with
/// the process, whatever happens), or, where the file system cannot do that, a new owner-only
/// name removed at once.
fn spool_next_to(out: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = dir_of(out);
    let nameless = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .mode(crate::record::journal::FILE_MODE)
        .custom_flags(libc::O_TMPFILE)
        .open(&dir);
    if let Ok(f) = nameless {
        return Ok(f);
    }
    let mut name = std::ffi::OsString::from(".");
    name.push(out.file_name().unwrap_or_default());
    name.push(format!(".rows-{}", std::process::id()));
    let named = dir.join(name);
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(crate::record::journal::FILE_MODE)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&named)?;
    std::fs::remove_file(&named)?;
    Ok(f)
}

/// How much of the spool [`move_rows`] moves at a time: the most the report needs in free disk
/// space beyond its own size.
pub const MOVE_CHUNK: usize = 8 << 20;

/// The spooled rows (`len` bytes of `rows` from byte `start`), appended to `out` in the kernel
/// (`copy_file_range`, never through this process's memory), a chunk at a time; each chunk moved
/// is punched out of the spool at once, so that the rows take their size on disk once, not twice,
/// and its writeback to `out`'s disk started. Where the file system cannot do either, the rows
/// are copied through a buffer and the spool keeps its blocks until it is closed.
pub fn move_rows(
    rows: &std::fs::File,
    start: u64,
    len: u64,
    out: &mut std::fs::File,
) -> std::io::Result<()> {
    use rustix::fs::{FallocateFlags, copy_file_range, fallocate};
    use rustix::io::Errno;
    let mut at = start;
    let end = start.saturating_add(len);
    let mut punch = true;
    let mut to = std::io::Seek::stream_position(out)?;
    loop {
        let from = at;
        let chunk = MOVE_CHUNK.min(usize::try_from(end - at).unwrap_or(MOVE_CHUNK));
        if chunk == 0 {
            return Ok(());
        }
        match copy_file_range(rows, Some(&mut at), &*out, None, chunk) {
            Ok(0) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the rows written before were not all there to move",
                ));
            }
            Ok(moved) => {
                // The chunk goes to the disk now, while the next ones are moved.
                start_writeback(out, to, moved as u64);
                to += moved as u64;
            }
            Err(Errno::INTR | Errno::AGAIN) => continue,
            // Not on this file system, or not between these two: the rest through a buffer.
            Err(Errno::XDEV | Errno::NOSYS | Errno::INVAL | Errno::OPNOTSUPP | Errno::PERM) => {
                return copy_rows(rows, at, end, out);
            }
            Err(e) => return Err(e.into()),
        }
        if punch {
            let flags = FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE;
            // A file system that cannot punch holes keeps the spool whole until it is closed.
            punch = fallocate(rows, flags, from, at - from).is_ok();
        }
    }
}

/// The spooled rows from byte `at` to byte `end` of `rows`, copied through a buffer after the
/// head.
fn copy_rows(
    rows: &std::fs::File,
    at: u64,
    end: u64,
    out: &mut std::fs::File,
) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom, Write};
    let mut rows = rows.try_clone()?;
    rows.seek(SeekFrom::Start(at))?;
    let mut rows = rows.take(end.saturating_sub(at));
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let got = match rows.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(got) => got,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        out.write_all(&buf[..got])?;
    }
}

/// [`crate::record::journal::write_atomic_with`] with the file itself given to `fill` (so that the rows
/// can be moved into it by the kernel): only a regular file or a new name is replaced (never a
/// device, never through a symlink); `fill` writes a new owner-only file next to `path`, which is
/// fsynced, then renamed over `path`, and the folder fsynced. When `fill` fails, the new file is
/// removed and `path` is left as it was.
fn write_atomic_file(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    replaceable(path)?;
    let tmp = tmp_name(path);
    let _ = std::fs::remove_file(&tmp);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(crate::record::journal::FILE_MODE)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp)?;
    let written = fill(&mut f).and_then(|()| f.sync_all());
    drop(f);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path)?;
    crate::record::journal::sync_dir(&dir_of(path))
}

/// `Ok` when `path` is a regular file or a new name, which the kit may replace (never a device,
/// a folder, or through a symlink).
fn replaceable(path: &Path) -> std::io::Result<()> {
    if let Ok(m) = std::fs::symlink_metadata(path)
        && !m.file_type().is_file()
    {
        let what = if m.file_type().is_symlink() {
            "a symbolic link"
        } else if m.file_type().is_dir() {
            "a folder"
        } else {
            "a device or FIFO"
        };
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{} is {what}: the kit writes only over a regular file or a new name",
                path.display()
            ),
        ));
    }
    Ok(())
}

/// The new file written next to `path` before it is renamed over it.
fn tmp_name(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".tmp");
    path.with_file_name(name)
}

/// The folder `path` is in (`.` for a bare name).
fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// The rows again from the log ([`crate::report::model::Timeline`]), for a log whose voids
/// reach further back than the first pass holds rows: a failed write, or else the log's read.
fn second_pass(
    path: &Path,
    format: Format,
    public: bool,
    voids: std::collections::BTreeMap<u64, Vec<usize>>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<Result<(), ReadLogError>> {
    let mut timeline = crate::report::model::Timeline::new(public, voids);
    let mut row = String::new();
    let mut failed = None;
    let read = for_each_event(path, |e, utc| {
        if failed.is_some() {
            return;
        }
        if let Some(t) = timeline.push(&e, utc) {
            row.clear();
            crate::report::timeline_row(&mut row, &t, format);
            if let Err(x) = w.write_all(row.as_bytes()) {
                failed = Some(x);
            }
        }
    });
    match failed {
        Some(x) => Err(x),
        None => Ok(read.map(|_| ())),
    }
}

/// What the report of game `n` is made from: its log, and `verification` (the verifier's verdict
/// from [`verification`], or, when `None`, a note that the log was not checked).
pub fn load(
    match_dir: &Path,
    n: u32,
    verification: Option<Verification>,
) -> Result<Input, ReadLogError> {
    let (events, utc) = read_log(&log_path(match_dir, n))?;
    Ok(Input::new(events, utc, verification))
}

/// Read the log of game `n`, build the report and render it ([`load`] then
/// [`crate::report::render`]).
pub fn render_game(
    match_dir: &Path,
    n: u32,
    format: Format,
    public: bool,
    verification: Option<Verification>,
) -> Result<String, ReadLogError> {
    Ok(crate::report::render(
        &load(match_dir, n, verification)?,
        format,
        public,
    ))
}

/// Write a file readable by its owner only (0600), replacing any earlier one atomically, and only
/// a regular file or a new name (never a device, never through a symlink).
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::record::journal::write_atomic(path, bytes)
}

/// The verifier's verdict on the log of game `n`, for the report.
pub fn verification(match_dir: &Path, n: u32) -> Verification {
    verification_watching(match_dir, n, None).0
}

/// [`verification`], handing `watch` each line of the log as the verifier's one pass checks it
/// ([`crate::record::witness::verify_match_watching`]); `true` when that pass gave the verdict and
/// handed every line.
pub fn verification_watching(
    match_dir: &Path,
    n: u32,
    watch: Option<&mut dyn FnMut(&crate::record::journal::LineView<'_>)>,
) -> (Verification, bool) {
    // The full check `arbiter verify` makes (demo key, bindings, index, countersignatures).
    let (m, watched) = crate::record::witness::verify_match_watching(
        match_dir,
        &[n],
        &crate::record::witness::Trust::default(),
        &[],
        watch.map(|w| (n, w)),
    );
    let Some(mut v) = m.games.into_iter().next() else {
        let unread = Verification {
            status: "UNREADABLE".into(),
            detail: String::new(),
            entries: 0,
            signed_upto: None,
        };
        return (unread, watched);
    };
    v.problems.extend(m.match_problems);
    if m.match_status > v.status {
        v.status = m.match_status;
        v.exit_code = m.match_status.exit_code();
    }
    let mut detail = Vec::new();
    if let Some(h) = &v.chain_head {
        detail.push(format!("chain head {h}"));
    }
    if let Some(b) = &v.bad_line {
        detail.push(format!(
            "first bad line: {}",
            serde_json::to_string(b).unwrap_or_default()
        ));
    }
    if let Some(t) = &v.truncated {
        detail.push(format!(
            "truncated: {}",
            serde_json::to_string(t).unwrap_or_default()
        ));
    }
    if let Some(u) = &v.unsigned_tail {
        detail.push(format!(
            "unsigned tail: {}",
            serde_json::to_string(u).unwrap_or_default()
        ));
    }
    if !v.recoveries.is_empty() {
        detail.push(format!(
            "{} recovery entries (torn tails cut after a crash)",
            v.recoveries.len()
        ));
    }
    detail.extend(v.problems.iter().cloned());
    let verdict = Verification {
        status: format!("{:?} (arbiter verify exit code {})", v.status, v.exit_code),
        detail: detail.join("; "),
        entries: v.lines as usize,
        signed_upto: (v.signed_entries > 0).then_some(v.signed_entries as usize),
    };
    (verdict, watched)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    /// `n` pieces of different lengths, each handed to `flush` as it is made.
    fn pieces(n: usize) -> impl FnOnce(&mut String, &mut dyn FnMut(&mut String)) + Send {
        move |s: &mut String, flush: &mut dyn FnMut(&mut String)| {
            for k in 0..n {
                s.push_str(&format!("piece {k} {}\n", "x".repeat(k % 97)));
                if k % 3 == 0 {
                    flush(s);
                }
            }
        }
    }

    fn whole(n: usize) -> String {
        let mut s = String::new();
        pieces(n)(&mut s, &mut |_| {});
        s
    }

    /// The tail rendered on a thread of its own is written after what the file
    /// already holds, every piece in order, however many.
    #[test]
    fn write_rendered_writes_every_piece_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        for n in [0, 1, 2, 5, 1_000, 20_000] {
            let path = tmp.path().join(format!("tail-{n}"));
            let mut f = std::fs::File::create(&path).unwrap();
            std::io::Write::write_all(&mut f, b"head|").unwrap();
            write_rendered(&mut f, pieces(n)).unwrap();
            drop(f);
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                format!("head|{}", whole(n)),
                "{n} pieces"
            );
        }
    }

    /// A write that fails is the answer, once the rendering is over (its thread is not
    /// left waiting on a writer that stopped).
    #[test]
    fn write_rendered_answers_a_failed_write() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("read-only");
        std::fs::write(&path, "").unwrap();
        let mut f = std::fs::File::open(&path).unwrap();
        assert!(write_rendered(&mut f, pieces(5_000)).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"");
    }

    /// A panic of the rendering thread is handed on, not swallowed into a short file.
    #[test]
    #[should_panic(expected = "rendering failed")]
    fn write_rendered_hands_on_a_panic_of_the_rendering() {
        let tmp = tempfile::tempdir().unwrap();
        let mut f = std::fs::File::create(tmp.path().join("tail")).unwrap();
        let _ = write_rendered(
            &mut f,
            |s: &mut String, flush: &mut dyn FnMut(&mut String)| {
                s.push_str("a piece");
                flush(s);
                panic!("rendering failed");
            },
        );
    }
}

/// Why a werewolf game's log could not be read back.
#[derive(Debug, thiserror::Error)]
pub enum WerewolfReadError {
    #[error(transparent)]
    Journal(#[from] crate::record::journal::JournalError),
    #[error("{}: {source}", .path.display())]
    Record {
        path: PathBuf,
        source: crate::report::werewolf::RecordError,
    },
}

/// Whether game `game` of the match is a werewolf table's (its line 0 says so); `false` when
/// line 0 cannot be read (the board's commands then report that as ever).
pub fn is_werewolf_game(match_dir: &Path, game: u32) -> bool {
    crate::record::journal::first_entry(&log_path(match_dir, game))
        .is_ok_and(|e| crate::report::werewolf::is_werewolf_game(&e))
}

/// A werewolf game read back from its log (every line checked in the chain as it is read);
/// `Ok(None)` when the game is not a werewolf table's.
pub fn read_werewolf(
    match_dir: &Path,
    game: u32,
) -> Result<Option<crate::report::werewolf::Record>, WerewolfReadError> {
    let path = log_path(match_dir, game);
    if !is_werewolf_game(match_dir, game) {
        return Ok(None);
    }
    let entries = crate::record::journal::read_entries(&path)?;
    crate::report::werewolf::read(&entries)
        .map(Some)
        .map_err(|source| WerewolfReadError::Record { path, source })
}
