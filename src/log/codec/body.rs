//! The body of the hot event kinds read at fixed shape, as [`super::Canon`] reads a line's header
//!: in the kit's canonical form a body's keys come in sorted order, without
//! whitespace, its integers in canonical form and its strings as written. `None` on any byte in
//! another shape (an escape, a key out of place, an optional field written otherwise, a number
//! out of range…): serde's reading then decides, so results and errors stay serde's.
use super::Canon;
use crate::core::Side;
use crate::core::event::{EventKind, Text};

/// Bytes kept for a move's FEN when its memory is first taken (a chess FEN runs to 90 at most in
/// any game played; a longer one grows it).
const FEN_ROOM: usize = 96;

/// The body of the event kind `kind`, the whole of `body`, read at fixed shape; `None` for another
/// kind or shape.
pub(super) fn read(kind: &str, body: &[u8]) -> Option<EventKind> {
    let mut k = EventKind::ClockStarted { side: Side::White };
    read_into(kind, body, &mut k)?;
    Some(k)
}

/// [`read`] written into `out` where it reads (the event is made in its place, in the
/// shared event's memory, not copied there whole); `out` holds anything when it does not.
pub(super) fn read_into(kind: &str, body: &[u8], out: &mut EventKind) -> Option<()> {
    (read_prefix(kind.as_bytes(), body, out)? == body.len()).then_some(())
}

/// [`read_into`] of the body at the start of `rest`, whatever follows it: how many bytes the
/// body takes (up to its closing brace, included).
pub(super) fn read_prefix(kind: &[u8], rest: &[u8], out: &mut EventKind) -> Option<usize> {
    let mut f = Fields {
        c: Canon { b: rest, i: 0 },
        sep: b'{',
    };
    match kind {
        b"move_made" => move_made(&mut f, out),
        b"internal_clock_reported" => internal_clock_reported(&mut f, out),
        b"note" => {
            *out = EventKind::Note {
                text: f.field("text", Canon::string)?,
            };
            Some(())
        }
        b"clock_stopped" => {
            *out = EventKind::ClockStopped {
                reason: f.field("reason", Canon::string)?,
            };
            Some(())
        }
        b"clock_resumed" => {
            *out = EventKind::ClockResumed {
                side: f.field("side", Canon::side)?,
            };
            Some(())
        }
        b"clock_started" => {
            *out = EventKind::ClockStarted {
                side: f.field("side", Canon::side)?,
            };
            Some(())
        }
        b"clock_pressed" => clock_pressed(&mut f, out),
        b"moves_taken_back" => moves_taken_back(&mut f, out),
        _ => None,
    }?;
    // Each kind above reads at least one key, so `{}` is not read here.
    f.c.lit(b"}")?;
    Some(f.c.i)
}

fn move_made(f: &mut Fields<'_>, out: &mut EventKind) -> Option<()> {
    // The FEN of a move read before into `out` (the one string of a move too long to be kept
    // inline) takes this one's, in its memory.
    let mut old = match out {
        EventKind::MoveMade { fen, .. } => fen.take(),
        _ => None,
    };
    *out = EventKind::MoveMade {
        byoyomi_periods_left: f.opt("byoyomi_periods_left", Canon::u32)?,
        byoyomi_periods_lost: f.opt("byoyomi_periods_lost", Canon::u32)?,
        declines_draw: f.field("declines_draw", Canon::bool)?,
        fen: f.field("fen", |c| c.opt_string_in(&mut old))?,
        increment_ms: f.field("increment_ms", Canon::uint)?,
        pressed_at: f.opt("pressed_at", Canon::uint)?,
        remaining_ms: f.field("remaining_ms", Canon::int)?,
        san: f.field("san", Canon::string)?,
        side: f.field("side", Canon::side)?,
        spent_ms: f.field("spent_ms", Canon::uint)?,
        uci: f.field("uci", Canon::string)?,
    };
    Some(())
}

fn clock_pressed(f: &mut Fields<'_>, out: &mut EventKind) -> Option<()> {
    *out = EventKind::ClockPressed {
        byoyomi_periods_left: f.opt("byoyomi_periods_left", Canon::u32)?,
        byoyomi_periods_lost: f.opt("byoyomi_periods_lost", Canon::u32)?,
        increment_ms: f.field("increment_ms", Canon::uint)?,
        remaining_ms: f.field("remaining_ms", Canon::int)?,
        side: f.field("side", Canon::side)?,
        spent_ms: f.field("spent_ms", Canon::uint)?,
    };
    Some(())
}

fn internal_clock_reported(f: &mut Fields<'_>, out: &mut EventKind) -> Option<()> {
    *out = EventKind::InternalClockReported {
        correction_owed: f.field("correction_owed", Canon::bool)?,
        diff_ms: f.field("diff_ms", Canon::int)?,
        game_clock_ms: f.field("game_clock_ms", Canon::int)?,
        reading_ms: f.field("reading_ms", Canon::uint)?,
        threshold_ms: f.field("threshold_ms", Canon::uint)?,
    };
    Some(())
}

fn moves_taken_back(f: &mut Fields<'_>, out: &mut EventKind) -> Option<()> {
    *out = EventKind::MovesTakenBack {
        fen: f.field("fen", Canon::opt_string)?,
        plies: f.field("plies", |c| usize::try_from(c.uint()?).ok())?,
        reason: f.field("reason", Canon::string)?,
        removed: f.field("removed", Canon::strings)?,
    };
    Some(())
}

/// The fields of a body object in key order: `sep` is the byte before the next key (`{` for the
/// first, `,` after).
struct Fields<'a> {
    c: Canon<'a>,
    sep: u8,
}

impl<'a> Fields<'a> {
    /// The key `name` next (with its separator and colon): consumed if so, nothing read if not.
    /// (Inlined, as [`Fields::field`] and [`Fields::opt`] are, so that each name is a constant
    /// where it is compared: a few loads, not a call of `memcmp` per key.)
    #[inline(always)]
    fn has(&mut self, name: &str) -> bool {
        let n = name.len();
        let Some(at) = self.c.bytes().get(self.c.i..self.c.i + n + 4) else {
            return false;
        };
        // The name's bytes in one comparison, the four around it one by one.
        let found = at[..2] == [self.sep, b'"']
            && at[n + 2..] == *b"\":"
            && at[2..n + 2] == *name.as_bytes();
        if found {
            self.c.i += n + 4;
            self.sep = b',';
        }
        found
    }

    /// The required field `name`, its value read by `value`.
    #[inline(always)]
    fn field<T>(
        &mut self,
        name: &str,
        value: impl FnOnce(&mut Canon<'a>) -> Option<T>,
    ) -> Option<T> {
        if !self.has(name) {
            return None;
        }
        value(&mut self.c)
    }

    /// The optional field `name` (written only when some, as `skip_serializing_if` does): `None`
    /// if present but not read by `value`.
    #[inline(always)]
    fn opt<T>(
        &mut self,
        name: &str,
        value: impl FnOnce(&mut Canon<'a>) -> Option<T>,
    ) -> Option<Option<T>> {
        if !self.has(name) {
            return Some(None);
        }
        value(&mut self.c).map(Some)
    }
}

impl Canon<'_> {
    fn bool(&mut self) -> Option<bool> {
        if self.lit(b"true").is_some() {
            return Some(true);
        }
        self.lit(b"false").map(|()| false)
    }

    fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.uint()?).ok()
    }

    /// An i64 in canonical form: [`Canon::uint`]'s digits, negative after a `-` (not `-0`).
    fn int(&mut self) -> Option<i64> {
        if self.lit(b"-").is_none() {
            return i64::try_from(self.uint()?).ok();
        }
        match self.uint()? {
            0 => None,
            n => 0i64.checked_sub_unsigned(n),
        }
    }

    /// A string without escapes or control characters, owned.
    fn string(&mut self) -> Option<Text> {
        self.lit(b"\"")?;
        self.plain().map(Text::new)
    }

    /// A string or `null`.
    fn opt_string(&mut self) -> Option<Option<Text>> {
        if self.lit(b"null").is_some() {
            return Some(None);
        }
        self.string().map(Some)
    }

    /// [`Canon::opt_string`], the string written into `old`'s memory when there is one.
    fn opt_string_in(&mut self, old: &mut Option<Text>) -> Option<Option<Text>> {
        if self.lit(b"null").is_some() {
            return Some(None);
        }
        self.lit(b"\"")?;
        let s = self.plain()?;
        Some(Some(match old.take() {
            Some(mut t) => {
                t.clear();
                t.push_str(s);
                t
            }
            None => {
                // Room for the longest FEN a game reaches, so that a later one written here
                // fits without growing it.
                let mut t = Text::with_capacity(s.len().max(FEN_ROOM));
                t.push_str(s);
                t
            }
        }))
    }

    /// An array of strings.
    fn strings(&mut self) -> Option<Vec<Text>> {
        self.lit(b"[")?;
        // Sized once (a take-back's list runs to dozens of moves): the quotes up to the first
        // `"]` are two a string, in any line this reader accepts.
        // (Within the line: a body read in its line's check, `read_prefix`, has the rest of the
        // block after it.)
        let rest = self.bytes().get(self.i..).unwrap_or_default();
        let rest = rest.split(|&b| b == b'\n').next().unwrap_or_default();
        let end = rest.windows(2).position(|w| w == b"\"]").unwrap_or(0);
        let quotes = rest
            .get(..end)
            .unwrap_or_default()
            .iter()
            .filter(|&&b| b == b'"')
            .count();
        let mut out = Vec::with_capacity(quotes.div_ceil(2));
        if self.lit(b"]").is_some() {
            return Some(out);
        }
        loop {
            out.push(self.string()?);
            if self.lit(b"]").is_some() {
                return Some(out);
            }
            self.lit(b",")?;
        }
    }

    fn side(&mut self) -> Option<Side> {
        self.lit(b"\"")?;
        match self.plain()? {
            "white" => Some(Side::White),
            "black" => Some(Side::Black),
            _ => None,
        }
    }
}
