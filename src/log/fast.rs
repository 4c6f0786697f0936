//! A verify-only fast path over a whole log: one pass over the bytes, one hash a line, no JSON
//! tree, both cores.
//!
//! It only ever *confirms*: [`check_line`] accepts a line only when it can prove, from the bytes
//! alone, that [`parse_line`] would accept it too (the exact canonical v1 form: fixed key order,
//! serde_json's escapes, sorted body keys, canonical numbers and UTC text). Whatever it cannot
//! prove cheaply (escaped body keys, unusual dates, ...) it hands to [`parse_line`] itself, so it
//! never accepts a line the exact path refuses. [`scan_clean`] returns `None` as soon as anything
//! at all is wrong (an invalid, unterminated or misplaced line, a broken link); the caller then
//! runs the exact path ([`super::scan::scan`] and [`super::scan::first_fault`]) for the precise
//! diagnosis.
use super::{ACTORS, Entry, RECOVERY_KIND, ZERO_HASH, entry_hash, parse_line};
use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};

/// Below this many bytes the log is checked on the calling thread only.
const PARALLEL_MIN_BYTES: usize = 1 << 20;
/// Deepest nesting of arrays and objects (the line itself counts as 1) the fast check follows;
/// deeper lines go to [`parse_line`] (serde_json's own limit is 128).
const MAX_DEPTH: u32 = 64;

/// What the chain needs from a line the fast check accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineFacts {
    pub seq: u64,
    pub prev: [u8; 32],
    /// Whether `kind` is [`RECOVERY_KIND`].
    pub recovery: bool,
    /// Where the `kind` text lies in the line (`start..end`), when it holds no escape (then the
    /// bytes are the kind itself); `None` for an escaped kind.
    pub kind: Option<(usize, usize)>,
    /// The actor, an index into [`ACTORS`].
    pub actor: u8,
    /// The line's `mono_ms`.
    pub at: u64,
    /// Where the `clause` text lies in the line, when it holds no escape; `None` for an escaped
    /// one.
    pub clause: Option<(usize, usize)>,
    /// Where the `body` starts in the line (it runs to the line's closing brace).
    pub body: usize,
}

impl LineFacts {
    /// The kind, read from the line these facts were found in (`None` if it holds an escape).
    pub fn kind_in<'a>(&self, line: &'a [u8]) -> Option<&'a str> {
        let (a, b) = self.kind?;
        std::str::from_utf8(line.get(a..b)?).ok()
    }

    /// The actor's name.
    pub fn actor_name(&self) -> &'static str {
        ACTORS.get(usize::from(self.actor)).copied().unwrap_or("")
    }
}

/// If `rest` starts with a canonical v1 line followed by `\n`, the line's facts and its length
/// (without the newline). `None` means "not proven", not "invalid": ask [`parse_line`].
pub fn check_line(rest: &[u8]) -> Option<(LineFacts, usize)> {
    check_line_reading(rest, |_, _| None)
}

/// Where a line's body starts, with the header [`check_line_reading`] read before it, for a
/// reader of the body.
#[derive(Debug, Clone, Copy)]
pub struct BodyAt<'a> {
    /// The `kind` (its bytes; a kind with an escape is never handed over).
    pub kind: &'a [u8],
    /// Where the line's `utc` text lies (its 24 bytes, `YYYY-MM-DDTHH:MM:SS.mmmZ`, checked).
    pub utc: usize,
    /// The line's `mono_ms`.
    pub at: u64,
    /// The actor, an index into [`ACTORS`].
    pub actor: u8,
    /// Where the `clause` text lies in the line, when it holds no escape.
    pub clause: Option<(usize, usize)>,
    /// Where the body starts in the line.
    pub body: usize,
}

/// [`check_line`], the line's body first handed to `read` (the line from its start, and where
/// its body is: [`BodyAt`]), which may read it as it reads it into an event (the body
/// of a line decoded in the pass is then read once, not checked and then read). `read` returns
/// where the body ends (the index after its closing brace) only when what it read there is a
/// JSON object this check accepts: keys without escapes in strictly increasing byte order,
/// values in serde_json's canonical form (integers without a leading zero, sign or fraction,
/// `true`, `false`, `null`, strings without an escape or a control character, each checked to
/// be UTF-8, arrays of these), nothing else. Then the check goes on after it; else (`None`) the
/// check reads the body itself. The line is proven canonical either way, or not at all.
#[inline(always)]
pub fn check_line_reading(
    rest: &[u8],
    mut read: impl FnMut(&[u8], &BodyAt<'_>) -> Option<usize>,
) -> Option<(LineFacts, usize)> {
    let mut p = Cursor {
        b: rest,
        i: 0,
        high: 0,
    };
    p.lit(b"{\"v\":1,\"seq\":")?;
    let seq = p.uint()?;
    p.lit(b",\"prev\":\"")?;
    let prev = p.hex32()?;
    p.lit(b"\",\"utc\":\"")?;
    let utc = p.i;
    p.utc()?;
    p.lit(b"\",\"mono_ms\":")?;
    let at = p.uint()?;
    p.lit(b",\"actor\":\"")?;
    let actor = p.actor()?;
    p.lit(b",\"clause\":")?;
    let clause_start = p.i + 1;
    let (clause, clause_escaped) = p.string()?;
    p.lit(b",\"kind\":")?;
    let kind_start = p.i + 1;
    let (kind, kind_escaped) = p.string()?;
    if kind.is_empty() {
        return None;
    }
    p.lit(b",\"body\":")?;
    let body = p.i;
    let read_at = (!kind_escaped).then(|| {
        read(
            rest,
            &BodyAt {
                kind,
                utc,
                at,
                actor,
                clause: (!clause_escaped).then_some((clause_start, clause_start + clause.len())),
                body,
            },
        )
    });
    match read_at.flatten() {
        Some(end) if end > body && end <= rest.len() => p.i = end,
        _ => p.value(1)?,
    }
    p.lit(b"}\n")?;
    let len = p.i - 1;
    // Outside strings the grammar above admits ASCII only; strings must be valid UTF-8. The
    // strings' bytes were all seen by `string` (`high`): a line of ASCII alone is valid UTF-8
    // without a second pass over it.
    if p.high != 0 {
        std::str::from_utf8(&rest[..len]).ok()?;
    }
    Some((
        LineFacts {
            seq,
            prev,
            recovery: kind == RECOVERY_KIND.as_bytes(),
            kind: (!kind_escaped).then_some((kind_start, kind_start + kind.len())),
            actor,
            at,
            clause: (!clause_escaped).then_some((clause_start, clause_start + clause.len())),
            body,
        },
        len,
    ))
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
    /// Non-zero once a string held a byte of 0x80 or more (not ASCII).
    high: u64,
}

fn hex_val(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

/// The high bit of every byte of a word.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// A high bit set for each of the eight bytes (little-endian) that may be `"`, `\\` or a control
/// (below 0x20): never clear for one that is, and the lowest bit set marks exactly the first
/// such byte (a false mark only ever sits above a true one, where the subtraction borrowed).
pub(crate) fn special_bytes(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH_BITS;
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    below(quote, 1) | below(backslash, 1) | below(w, 0x20)
}

/// Whether any of the eight bytes may be `"`, `\\` or a control (below 0x20); never false when
/// one is.
#[cfg(test)]
fn may_be_special(w: u64) -> bool {
    special_bytes(w) != 0
}

/// Where the escape at `b[i]` (a backslash) ends, if serde_json writes it: `\"`, `\\`, `\b`,
/// `\t`, `\n`, `\f`, `\r`, else `\u00xx` lowercase for the other controls.
#[cold]
fn after_escape(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i + 1)? {
        b'"' | b'\\' | b'b' | b't' | b'n' | b'f' | b'r' => Some(i + 2),
        b'u' => {
            let u = b.get(i + 2..i + 6)?;
            if u[0] != b'0' || u[1] != b'0' {
                return None;
            }
            let v = hex_val(u[2])? << 4 | hex_val(u[3])?;
            if v >= 0x20 || matches!(v, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) {
                return None;
            }
            Some(i + 6)
        }
        _ => None,
    }
}

/// `a < b` byte-wise (object keys are short and mostly differ in their first bytes: a loop
/// inline, no call).
#[inline(always)]
fn increasing(a: &[u8], b: &[u8]) -> bool {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x < y;
        }
    }
    a.len() < b.len()
}

/// `a == b` for short texts (a line's kind) without a call: two overlapping words when the
/// length is 8 to 16.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    match (a.first_chunk::<8>(), a.last_chunk::<8>()) {
        (Some(a0), Some(a1)) if a.len() <= 16 => {
            Some(a0) == b.first_chunk::<8>() && Some(a1) == b.last_chunk::<8>()
        }
        _ => a == b,
    }
}

/// The non-negative integer at `b[start..]` as serde_json writes a `u64` (`0` or no leading
/// zero, no overflow) and where it ends. One pass: up to 19 digits cannot overflow; a longer run
/// is read again with checked arithmetic.
#[inline(always)]
fn uint_at(b: &[u8], start: usize) -> Option<(u64, usize)> {
    let mut i = start;
    let mut v = 0u64;
    while let Some(&c) = b.get(i) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        v = v.wrapping_mul(10).wrapping_add(u64::from(d));
        i += 1;
    }
    let n = i - start;
    if n == 0 || (n > 1 && b.get(start) == Some(&b'0')) {
        return None;
    }
    if n > 19 {
        let mut exact = 0u64;
        for &c in b.get(start..i)? {
            exact = exact.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
        }
        v = exact;
    }
    Some((v, i))
}

/// 64 lowercase hex digits decoded, or `None`. Branch-free over fixed-size arrays (the compiler
/// turns the loops into vector compares).
#[inline(always)]
fn hex32_of(s: &[u8; 64]) -> Option<[u8; 32]> {
    let mut bad = 0u8;
    let mut nibbles = [0u8; 64];
    for (n, &c) in nibbles.iter_mut().zip(s) {
        let d = c.wrapping_sub(b'0');
        let l = c.wrapping_sub(b'a');
        let (is_d, is_l) = (d < 10, l < 6);
        bad |= u8::from(!(is_d | is_l));
        *n = if is_d { d } else { l.wrapping_add(10) };
    }
    let mut out = [0u8; 32];
    for (o, pair) in out.iter_mut().zip(nibbles.chunks_exact(2)) {
        *o = pair[0] << 4 | (pair[1] & 0x0f);
    }
    (bad == 0).then_some(out)
}

/// The separators of a UTC text (`YYYY-MM-DDTHH:MM:SS.mmmZ`); 0 where a digit goes.
const UTC_SHAPE: [u8; 24] = *b"\0\0\0\0-\0\0-\0\0T\0\0:\0\0:\0\0.\0\0\0Z";

/// Whether `s` is `YYYY-MM-DDTHH:MM:SS.mmmZ`, a real date and time (no leap second), year 1000
/// to 9999: the texts that chrono parses as RFC 3339 and writes back unchanged with milliseconds
/// and `Z`. The shape is checked without a branch a byte (each byte against [`UTC_SHAPE`]).
#[inline(always)]
fn utc_ok(s: &[u8; 24]) -> bool {
    let mut bad = 0u8;
    let mut d = [0u8; 24];
    for ((x, &c), &shape) in d.iter_mut().zip(s).zip(&UTC_SHAPE) {
        let v = c.wrapping_sub(b'0');
        // A digit where the shape has 0, else exactly the shape's byte.
        bad |= if shape == 0 {
            u8::from(v > 9)
        } else {
            c ^ shape
        };
        *x = v;
    }
    let n2 = |k: usize| u32::from(d[k]) * 10 + u32::from(d[k + 1]);
    let year = n2(0) * 100 + n2(2);
    let (month, day) = (n2(5), n2(8));
    let (h, m, sec) = (n2(11), n2(14), n2(17));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    bad == 0
        && (1000..=9999).contains(&year)
        && (1..=days).contains(&day)
        && h < 24
        && m < 60
        && sec < 60
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// The literal `s` (compared as a whole array: a few word compares, no call).
    #[inline(always)]
    fn lit<const N: usize>(&mut self, s: &[u8; N]) -> Option<()> {
        let got: &[u8; N] = self.b.get(self.i..self.i + N)?.try_into().ok()?;
        if got == s {
            self.i += N;
            Some(())
        } else {
            None
        }
    }

    /// A non-negative integer as serde_json writes a `u64`: `0` or no leading zero, no overflow.
    #[inline(always)]
    fn uint(&mut self) -> Option<u64> {
        let (v, end) = uint_at(self.b, self.i)?;
        self.i = end;
        Some(v)
    }

    /// 64 lowercase hex digits.
    #[inline(always)]
    fn hex32(&mut self) -> Option<[u8; 32]> {
        let s: &[u8; 64] = self.b.get(self.i..)?.first_chunk()?;
        let out = hex32_of(s)?;
        self.i += 64;
        Some(out)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, a real date and time (no leap second), year 1000 to 9999: the
    /// texts that chrono parses as RFC 3339 and writes back unchanged with milliseconds and `Z`.
    #[inline(always)]
    fn utc(&mut self) -> Option<()> {
        let s: &[u8; 24] = self.b.get(self.i..)?.first_chunk()?;
        utc_ok(s).then_some(())?;
        self.i += 24;
        Some(())
    }

    /// One of [`ACTORS`] and the closing quote; its index. (Their first letters differ: one
    /// candidate, compared whole.)
    #[inline(always)]
    fn actor(&mut self) -> Option<u8> {
        let rest = self.b.get(self.i..)?;
        let k: usize = match rest.first()? {
            b'a' => 0,
            b'o' => 1,
            b's' => 2,
            b'c' => 3,
            b'k' => 4,
            _ => return None,
        };
        let name = ACTORS.get(k)?.as_bytes();
        if rest.get(..name.len())? != name || rest.get(name.len()) != Some(&b'"') {
            return None;
        }
        self.i += name.len() + 1;
        u8::try_from(k).ok()
    }

    /// A string exactly as serde_json writes it: raw bytes except `"`, `\` and controls, which
    /// take serde_json's escapes (`\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, else `\u00xx`
    /// lowercase). Returns the raw content and whether it holds an escape.
    #[inline(always)]
    fn string(&mut self) -> Option<(&'a [u8], bool)> {
        let b: &'a [u8] = self.b;
        if b.get(self.i) != Some(&b'"') {
            return None;
        }
        let start = self.i + 1;
        let mut i = start;
        let mut high = 0u64;
        let mut escaped = false;
        loop {
            // Eight bytes at a time up to the first special one (found exactly: see
            // `special_bytes`).
            while let Some(w) = b.get(i..).and_then(<[u8]>::first_chunk::<8>) {
                let w = u64::from_le_bytes(*w);
                let special = special_bytes(w);
                if special != 0 {
                    let k = special.trailing_zeros() / 8;
                    // The plain bytes before it.
                    high |= w & ((1u64 << (8 * k)) - 1) & HIGH_BITS;
                    i += k as usize;
                    break;
                }
                high |= w & HIGH_BITS;
                i += 8;
            }
            match *b.get(i)? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    i = after_escape(b, i)?;
                }
                0..=0x1f => return None,
                // Only within the last eight bytes of the buffer.
                c => {
                    high |= u64::from(c & 0x80);
                    i += 1;
                }
            }
        }
        self.high |= high;
        self.i = i + 1;
        Some((&b[start..i], escaped))
    }

    /// A number as serde_json writes the value it parses from these bytes. An integer is read
    /// in one pass; anything with a fraction or exponent goes to [`Cursor::float`].
    #[inline(always)]
    fn number(&mut self) -> Option<()> {
        let start = self.i;
        let negative = self.b.get(start) == Some(&b'-');
        match uint_at(self.b, start + usize::from(negative)) {
            Some((v, end))
                if !matches!(self.b.get(end), Some(b'.' | b'e' | b'E' | b'+' | b'-')) =>
            {
                // serde_json reads `-0` and negatives below i64::MIN as floats: not proven here.
                if negative && (v == 0 || v > 1 << 63) {
                    return None;
                }
                self.i = end;
                Some(())
            }
            _ => self.float(start),
        }
    }

    /// A number with a fraction or exponent at `start`: serde_json itself parses it and writes
    /// it back; proven only if that gives the same bytes.
    #[cold]
    fn float(&mut self, start: usize) -> Option<()> {
        let mut end = start + usize::from(self.b.get(start) == Some(&b'-'));
        while self.b.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
        if !matches!(self.b.get(end), Some(b'.' | b'e' | b'E' | b'+' | b'-')) {
            return None;
        }
        while matches!(
            self.b.get(end),
            Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
        ) {
            end += 1;
        }
        let text = self.b.get(start..end)?;
        let v: Value = serde_json::from_slice(text).ok()?;
        (v.is_f64() && serde_json::to_vec(&v).ok()? == text).then_some(())?;
        self.i = end;
        Some(())
    }

    /// Any value; scalars are read inline, objects and arrays by a call.
    #[inline(always)]
    fn value(&mut self, depth: u32) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b't' => self.lit(b"true"),
            b'f' => self.lit(b"false"),
            b'n' => self.lit(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// Keys unescaped and strictly increasing byte-wise (the order of serde_json's map, which
    /// also rules out duplicates).
    #[inline(never)]
    fn object(&mut self, depth: u32) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.lit(b"{")?;
        if self.lit(b"}").is_some() {
            return Some(());
        }
        let mut last: Option<&'a [u8]> = None;
        loop {
            let (key, escaped) = self.string()?;
            if escaped || last.is_some_and(|l| !increasing(l, key)) {
                return None;
            }
            last = Some(key);
            self.lit(b":")?;
            self.value(depth)?;
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    #[inline(never)]
    fn array(&mut self, depth: u32) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.lit(b"[")?;
        if self.lit(b"]").is_some() {
            return Some(());
        }
        loop {
            self.value(depth)?;
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}

/// One line of a block as the thread joining the blocks needs it: its kind (an index into
/// [`BlockFacts::kinds`]), its actor (an index into [`ACTORS`]).
#[derive(Debug, Clone, Copy)]
pub struct LineMeta {
    pub kind: u32,
    pub actor: u8,
    /// Where the line lies in the block: start, length without the newline (its bytes are left
    /// as they were checked and hashed).
    pub line: (u32, u32),
    /// What [`check_line`] read of the header on the way, for the line's decoding on the same
    /// thread (the header is not read twice): `mono_ms`, the clause's place in the
    /// line (`None` when it holds an escape) and where the body starts.
    pub at: u64,
    pub clause: Option<(u32, u32)>,
    pub body: u32,
}

/// Kinds looked up among the first this many of a block (a block of lines of ever new kinds
/// still costs a bounded search a line).
const KINDS_SEARCHED: usize = 32;

/// What one block of whole lines gives ([`check_block`]): its lines checked and hashed on their
/// own, its part of the Merkle tree.
#[derive(Debug)]
pub struct BlockFacts {
    /// The block's bytes (the lines of [`LineMeta`] lie in them), given back for reuse. The
    /// newline before each line but the first was overwritten (see [`check_block`]); the lines'
    /// own bytes are as they were read.
    pub block: Vec<u8>,
    pub first_seq: u64,
    /// The `prev` of its first line (checked against the previous block's last hash on joining).
    pub first_prev: [u8; 32],
    pub count: u64,
    /// The hash of its first line and of its last.
    pub first_leaf: [u8; 32],
    pub last_leaf: [u8; 32],
    /// Its leaves folded into aligned subtrees (none spanning one of the sizes asked for).
    pub run: super::merkle::AlignedRun,
    /// `(size, E_{size-1})` for each size asked for whose last entry lies in this block.
    pub chains: Vec<(u64, [u8; 32])>,
    pub lines: Vec<LineMeta>,
    /// The kinds of the block's lines, each once (a log has a handful): a line's kind is checked
    /// as text and asked about (`wants`) once a block, not once a line.
    pub kinds: Vec<String>,
    /// The parsed entries (line 0, recoveries, those asked for), by index in the block.
    pub entries: Vec<(u32, Entry)>,
    /// Each line's `utc` text, [`UTC_LEN`] bytes a line, when its reader gathered them (a pass
    /// that decodes the lines: the thread that joins the blocks then does not read
    /// each line again for it); else empty.
    pub utc: String,
}

/// The length of a line's `utc` text as the check accepts it.
pub const UTC_LEN: usize = 24;

/// Check the lines of `block` (whole lines, each ending in `\n`; the block starts at byte `base`
/// of the file): each canonical ([`check_line`]), its `seq` one more than the line before and its
/// `prev` that line's hash; hash them all ([`super::merkle::leaf_hashes`], several lines side by
/// side) and fold the hashes into the block's aligned subtrees, none spanning one of `cuts`
/// (sorted). `None` at the first line not proven (a kind with an escape included) or link
/// broken; the caller then takes the exact path.
///
/// `lines` is a buffer to reuse for [`BlockFacts::lines`] (emptied first); the other buffers of
/// the check are this thread's own and kept from block to block ([`Scratch`]): a block's check
/// takes no large allocation (with the events of a replay freed on the same thread, a
/// fresh buffer a block made glibc's malloc consolidate its free lists at every block).
pub fn check_block(
    block: Vec<u8>,
    base: u64,
    cuts: &[u64],
    wants: &(dyn Fn(&str) -> bool + Sync),
    lines: Vec<LineMeta>,
) -> Option<BlockFacts> {
    check_block_reading(block, base, cuts, wants, lines, |_, _| None)
}

/// [`check_block`], each line's body handed to `read` as [`check_line_reading`] hands it (in
/// the order of the lines, once a line, for every line until the first not proven).
pub fn check_block_reading(
    block: Vec<u8>,
    base: u64,
    cuts: &[u64],
    wants: &(dyn Fn(&str) -> bool + Sync),
    lines: Vec<LineMeta>,
    read: impl FnMut(&[u8], &BodyAt<'_>) -> Option<usize>,
) -> Option<BlockFacts> {
    SCRATCH.with(|s| {
        let mut s = s.take();
        let facts = check_block_with(block, base, cuts, wants, lines, &mut s, read);
        SCRATCH.with(|k| k.set(s.emptied()));
        facts
    })
}

/// The buffers a block's check needs only while it runs, kept per thread.
#[derive(Default)]
struct Scratch {
    spans: Vec<(usize, usize)>,
    prevs: Vec<[u8; 32]>,
    leaves: Vec<[u8; 32]>,
    /// The levels of the block's subtrees while they are hashed.
    levels: (Vec<[u8; 32]>, Vec<[u8; 32]>),
    /// Empty between checks: it borrows a block's lines while they are hashed.
    framed: Vec<&'static [u8]>,
}

impl Scratch {
    fn emptied(mut self) -> Scratch {
        self.spans.clear();
        self.prevs.clear();
        self.leaves.clear();
        self
    }
}

thread_local! {
    static SCRATCH: std::cell::Cell<Scratch> = std::cell::Cell::new(Scratch::default());
}

/// The framed slices' buffer, empty, for slices that live as long as `'a` (its allocation
/// reused: the elements are all gone, only the capacity moves).
fn framed_buffer<'a>(v: Vec<&'static [u8]>) -> Vec<&'a [u8]> {
    v
}

/// The framed slices' buffer given back, emptied, to be kept for the next block.
fn framed_kept(mut v: Vec<&[u8]>) -> Vec<&'static [u8]> {
    v.clear();
    v.into_iter().map(|_| -> &'static [u8] { &[] }).collect()
}

fn check_block_with(
    block: Vec<u8>,
    base: u64,
    cuts: &[u64],
    wants: &(dyn Fn(&str) -> bool + Sync),
    mut lines: Vec<LineMeta>,
    scratch: &mut Scratch,
    mut read: impl FnMut(&[u8], &BodyAt<'_>) -> Option<usize>,
) -> Option<BlockFacts> {
    let (mut first_seq, mut first_prev) = (0u64, ZERO_HASH);
    lines.clear();
    let Scratch {
        spans,
        prevs,
        leaves,
        levels,
        framed: framed_kept_buf,
    } = scratch;
    let mut entries = Vec::new();
    let mut kinds: Vec<String> = Vec::new();
    let mut wanted: Vec<bool> = Vec::new();
    let mut last_kind = 0usize;
    let mut pos = 0usize;
    while pos < block.len() {
        let (facts, len) = check_line_reading(block.get(pos..)?, &mut read)?;
        let line = block.get(pos..pos + len)?;
        let count = spans.len() as u64;
        if count == 0 {
            // A seq this large is no log the kit wrote; and positions must not overflow.
            if facts.seq >= 1 << 62 {
                return None;
            }
            (first_seq, first_prev) = (facts.seq, facts.prev);
        } else if facts.seq != first_seq + count {
            return None;
        }
        let (ka, kb) = facts.kind?;
        let text = line.get(ka..kb)?;
        // Runs of one kind are common: the last line's kind is tried first.
        let found = if kinds
            .get(last_kind)
            .is_some_and(|k| same_bytes(k.as_bytes(), text))
        {
            Some(last_kind)
        } else {
            kinds
                .iter()
                .take(KINDS_SEARCHED)
                .position(|k| same_bytes(k.as_bytes(), text))
        };
        let k = match found {
            Some(k) => k,
            None => {
                let kind = std::str::from_utf8(text).ok()?;
                wanted.push(wants(kind));
                kinds.push(kind.to_owned());
                kinds.len() - 1
            }
        };
        last_kind = k;
        if facts.seq == 0 || facts.recovery || wanted.get(k).copied().unwrap_or(true) {
            entries.push((
                u32::try_from(count).ok()?,
                parse_line(line, base + pos as u64).ok()?,
            ));
        }
        lines.push(LineMeta {
            kind: u32::try_from(k).ok()?,
            actor: facts.actor,
            line: (u32::try_from(pos).ok()?, u32::try_from(len).ok()?),
            at: facts.at,
            clause: match facts.clause {
                Some((a, b)) => Some((u32::try_from(a).ok()?, u32::try_from(b).ok()?)),
                None => None,
            },
            body: u32::try_from(facts.body).ok()?,
        });
        spans.push((pos, len));
        prevs.push(facts.prev);
        pos += len + 1;
    }
    // Each line is hashed where it lies: the newline before it becomes the leaf prefix byte
    // (the block's bytes are not read again, only its buffer reused); the first line has none.
    let mut block = block;
    for &(p, _) in spans.iter().skip(1) {
        *block.get_mut(p.checked_sub(1)?)? = 0;
    }
    leaves.clear();
    leaves.resize(spans.len(), ZERO_HASH);
    if let (Some(&(p, l)), Some(first)) = (spans.first(), leaves.first_mut()) {
        *first = entry_hash(block.get(p..p + l)?);
    }
    let mut framed = framed_buffer(std::mem::take(framed_kept_buf));
    framed.extend(
        spans
            .iter()
            .skip(1)
            .map(|&(p, l)| block.get(p - 1..p + l).unwrap_or_default()),
    );
    super::merkle::framed_leaf_hashes(&framed, leaves.get_mut(1..).unwrap_or_default());
    *framed_kept_buf = framed_kept(framed);
    // Each line's prev is the hash of the line before it.
    if prevs.iter().skip(1).zip(leaves.iter()).any(|(p, h)| p != h) {
        return None;
    }
    let count = leaves.len() as u64;
    let end = first_seq + count;
    let chains = cuts[cuts.partition_point(|&c| c <= first_seq)..]
        .iter()
        .take_while(|&&c| c <= end)
        .filter_map(|&c| Some((c, *leaves.get(usize::try_from(c - first_seq - 1).ok()?)?)))
        .collect();
    Some(BlockFacts {
        first_seq,
        first_prev,
        count,
        first_leaf: leaves.first().copied().unwrap_or(ZERO_HASH),
        last_leaf: leaves.last().copied().unwrap_or(ZERO_HASH),
        run: super::merkle::AlignedRun::from_leaves_in(
            first_seq,
            leaves,
            cuts,
            &mut levels.0,
            &mut levels.1,
        ),
        chains,
        lines,
        kinds,
        entries,
        block,
        utc: String::new(),
    })
}

/// A log whose every line is a valid v1 entry, ends in `\n`, carries its position as `seq` and
/// links to its predecessor's hash.
#[derive(Debug, Clone)]
pub struct CleanLog {
    /// `E_0 … E_{N-1}` (N >= 1).
    pub leaves: Vec<[u8; 32]>,
    /// Line 0, parsed by [`parse_line`].
    pub first: Entry,
    /// Every entry of kind [`RECOVERY_KIND`], in order, parsed by [`parse_line`].
    pub recoveries: Vec<Entry>,
}

/// One stretch of consecutive lines of the file, checked on its own (links inside it only).
struct Part {
    leaves: Vec<[u8; 32]>,
    first_seq: u64,
    first_prev: [u8; 32],
    /// Line 0 if this stretch starts the file.
    first: Option<Entry>,
    recoveries: Vec<Entry>,
}

impl Part {
    fn new(capacity: usize) -> Part {
        Part {
            leaves: Vec::with_capacity(capacity),
            first_seq: 0,
            first_prev: ZERO_HASH,
            first: None,
            recoveries: Vec::new(),
        }
    }

    /// Check whole lines (`bytes` ends in `\n`, or is empty) found at file offset `base`,
    /// following the lines fed before. `None` at the first thing wrong.
    fn feed(&mut self, bytes: &[u8], base: usize) -> Option<()> {
        let mut pos = 0;
        while pos < bytes.len() {
            let rest = &bytes[pos..];
            let offset = base + pos;
            let (facts, len, entry) = match check_line(rest) {
                Some((facts, len)) => (facts, len, None),
                None => {
                    let len = rest.iter().position(|&b| b == b'\n')?;
                    let e = parse_line(&rest[..len], offset as u64).ok()?;
                    let facts = LineFacts {
                        seq: e.seq,
                        prev: e.prev_bytes(),
                        recovery: e.kind == RECOVERY_KIND,
                        kind: None,
                        actor: 0,
                        at: e.mono_ms,
                        clause: None,
                        body: 0,
                    };
                    (facts, len, Some(e))
                }
            };
            let line = &rest[..len];
            match self.leaves.last() {
                None => (self.first_seq, self.first_prev) = (facts.seq, facts.prev),
                Some(h) => {
                    if facts.prev != *h || facts.seq != self.first_seq + self.leaves.len() as u64 {
                        return None;
                    }
                }
            }
            if offset == 0 || facts.recovery {
                let e = match entry {
                    Some(e) => e,
                    None => parse_line(line, offset as u64).ok()?,
                };
                if facts.recovery {
                    self.recoveries.push(e.clone());
                }
                if offset == 0 {
                    self.first = Some(e);
                }
            }
            self.leaves.push(entry_hash(line));
            pos += len + 1;
        }
        Some(())
    }
}

/// Join the parts (in file order) into one chain.
fn join(parts: Vec<Option<Part>>) -> Option<CleanLog> {
    let mut leaves: Vec<[u8; 32]> = Vec::new();
    let mut first = None;
    let mut recoveries = Vec::new();
    for part in parts {
        let part = part?;
        let want_prev = leaves.last().copied().unwrap_or(ZERO_HASH);
        if part.first_seq != leaves.len() as u64 || part.first_prev != want_prev {
            return None;
        }
        if leaves.is_empty() {
            leaves = part.leaves;
            first = part.first;
        } else {
            leaves.extend_from_slice(&part.leaves);
        }
        recoveries.extend(part.recoveries);
    }
    Some(CleanLog {
        first: first?,
        leaves,
        recoveries,
    })
}

fn threads_for(len: usize) -> usize {
    if len < PARALLEL_MIN_BYTES {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
    }
}

/// Run `check` over each range on its own thread (the last on this one).
fn in_parallel<F>(ranges: &[(usize, usize)], check: F) -> Vec<Option<Part>>
where
    F: Fn(usize, usize) -> Option<Part> + Sync,
{
    let check = &check;
    std::thread::scope(|s| {
        let (last, others) = match ranges.split_last() {
            Some(x) => x,
            None => return Vec::new(),
        };
        let handles: Vec<_> = others
            .iter()
            .map(|&(a, b)| s.spawn(move || check(a, b)))
            .collect();
        let last = check(last.0, last.1);
        let mut out: Vec<Option<Part>> = handles
            .into_iter()
            .map(|h| h.join().ok().flatten())
            .collect();
        out.push(last);
        out
    })
}

/// Check a whole log held in memory on the fast path; `None` if it is not clean (or empty) —
/// then run the exact path for the diagnosis.
pub fn scan_clean(bytes: &[u8]) -> Option<CleanLog> {
    if bytes.last() != Some(&b'\n') {
        return None;
    }
    let threads = threads_for(bytes.len());
    // Cut after a newline near each k/threads of the file.
    let mut cuts = vec![0usize];
    for k in 1..threads {
        let from = (bytes.len() * k / threads).max(*cuts.last().unwrap_or(&0));
        if let Some(p) = bytes[from..].iter().position(|&b| b == b'\n') {
            cuts.push(from + p + 1);
        }
    }
    cuts.push(bytes.len());
    cuts.dedup();
    let ranges: Vec<(usize, usize)> = cuts.windows(2).map(|w| (w[0], w[1])).collect();
    join(in_parallel(&ranges, |a, b| {
        let mut part = Part::new((b - a) / 256);
        part.feed(&bytes[a..b], a)?;
        Some(part)
    }))
}

/// Bytes read at a time by [`scan_clean_source`] (per thread; grown for a longer line).
const BLOCK: usize = 4 << 20;

/// The first line start at or after `from` (`len` if none), reading `file` from there.
fn line_start_after<R: Read + Seek>(file: &mut R, from: usize, len: usize) -> Option<usize> {
    if from == 0 {
        return Some(0);
    }
    file.seek(SeekFrom::Start(from as u64 - 1)).ok()?;
    let mut buf = vec![0u8; 64 << 10];
    let mut at = from - 1;
    while at < len {
        let got = file.read(&mut buf).ok()?;
        if got == 0 {
            return None;
        }
        if let Some(p) = buf[..got].iter().position(|&b| b == b'\n') {
            // Past `len` only if the file grew meanwhile: not a clean read.
            return Some(at + p + 1).filter(|&cut| cut <= len);
        }
        at += got;
    }
    Some(len)
}

/// Stream bytes `a..b` of a reader (whole lines) through a [`Part`].
fn check_part<R: Read + Seek>(mut file: R, a: usize, b: usize) -> Option<Part> {
    file.seek(SeekFrom::Start(a as u64)).ok()?;
    let mut part = Part::new((b - a) / 256);
    let mut buf = vec![0u8; BLOCK.min(b - a).max(1)];
    let (mut filled, mut base, mut remaining) = (0usize, a, b - a);
    loop {
        if filled == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let want = (buf.len() - filled).min(remaining);
        let got = if want == 0 {
            0
        } else {
            file.read(&mut buf[filled..filled + want]).ok()?
        };
        if got == 0 && remaining > 0 {
            return None;
        }
        filled += got;
        remaining -= got;
        let upto = if remaining == 0 {
            filled
        } else {
            buf[..filled]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |p| p + 1)
        };
        part.feed(&buf[..upto], base)?;
        if remaining == 0 {
            return (upto == filled).then_some(part);
        }
        buf.copy_within(upto..filled, 0);
        filled -= upto;
        base += upto;
    }
}

/// [`scan_clean`] over a log of `len` bytes read through readers that `open` gives (one per
/// thread, each read in blocks: no copy of the whole log). Any read problem gives `None` like any
/// other finding. The caller opens the file (this module reads no file) and checks that its
/// length did not change meanwhile.
pub fn scan_clean_source<R, F>(open: F, len: usize) -> Option<CleanLog>
where
    R: Read + Seek,
    F: Fn() -> Option<R> + Sync,
{
    if len == 0 {
        return None;
    }
    let mut first = open()?;
    let threads = threads_for(len);
    let mut cuts = vec![0usize];
    for k in 1..threads {
        let from = (len * k / threads).max(*cuts.last().unwrap_or(&0));
        cuts.push(line_start_after(&mut first, from, len)?);
    }
    cuts.push(len);
    cuts.dedup();
    let ranges: Vec<(usize, usize)> = cuts.windows(2).map(|w| (w[0], w[1])).collect();
    join(in_parallel(&ranges, |a, b| check_part(open()?, a, b)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::log::{NewEntry, encode_line};
    use chrono::{DateTime, Utc};
    use serde_json::json;

    fn line(body: Value) -> Vec<u8> {
        let e = NewEntry {
            mono_ms: 1234,
            utc: DateTime::parse_from_rfc3339("2003-01-26T15:00:00.5Z")
                .unwrap()
                .with_timezone(&Utc),
            actor: "arbiter".into(),
            clause: "6\"c\u{1}".into(),
            kind: "clock_corrected".into(),
            body,
        };
        encode_line(7, &[0xab; 32], &e)
    }

    fn fast(l: &[u8]) -> Option<LineFacts> {
        let mut b = l.to_vec();
        b.push(b'\n');
        check_line(&b).map(|(f, len)| {
            assert_eq!(len, l.len());
            f
        })
    }

    #[test]
    fn accepts_what_the_kit_writes() {
        for body in [
            json!({}),
            json!([]),
            json!(null),
            json!("x"),
            json!({"b": [1, -2, 2.5, -0.0, 1e300, "é\n\t\u{7f}\u{1f}\\/"], "a": null, "c": {"": true}}),
            json!({"n": u64::MAX, "m": i64::MIN, "f": 0.1, "g": -1.5e-7}),
        ] {
            let l = line(body);
            let f = fast(&l).unwrap_or_else(|| panic!("{}", String::from_utf8_lossy(&l)));
            let e = parse_line(&l, 0).unwrap();
            assert_eq!((f.seq, f.prev, f.recovery), (e.seq, e.prev_bytes(), false));
            assert_eq!(f.kind_in(&l), Some("clock_corrected"));
            assert_eq!(f.actor_name(), "arbiter");
        }
    }

    /// Every single-byte change, deletion and insertion of a line: whatever the fast check
    /// accepts, the exact parser accepts with the same facts.
    #[test]
    fn never_accepts_what_parse_line_refuses() {
        let l = line(json!({"b": [1, -2, 2.5, "é\n\"x"], "a": null, "c": {"d": false, "e": 10}}));
        let alphabet = b"\"\\{}[],:.-+0129aefnrtuzEZT \t\n\r\x00\x01\x7f\xc3\xa9\xff";
        let mut accepted = 0;
        let mut check = |cand: &[u8]| {
            if let Some(f) = fast(cand) {
                accepted += 1;
                let e = parse_line(cand, 0)
                    .unwrap_or_else(|err| panic!("{err}: {}", String::from_utf8_lossy(cand)));
                assert_eq!((f.seq, f.prev), (e.seq, e.prev_bytes()));
                assert_eq!(f.recovery, e.kind == RECOVERY_KIND);
                assert_eq!(f.actor_name(), e.actor);
                if let Some(kind) = f.kind_in(cand) {
                    assert_eq!(kind, e.kind);
                }
            }
        };
        for i in 0..l.len() {
            let mut del = l.clone();
            del.remove(i);
            check(&del);
            for &c in alphabet {
                let mut sub = l.clone();
                sub[i] = c;
                check(&sub);
                let mut ins = l.clone();
                ins.insert(i, c);
                check(&ins);
            }
        }
        assert!(accepted > 10);
    }

    /// The UTF-8 check runs only on a line whose strings hold a byte of 0x80 or more: a stray
    /// byte anywhere in a long string (read eight bytes at a time, or one by one) is still seen.
    #[test]
    fn non_ascii_bytes_anywhere_in_a_long_string_are_checked() {
        let l = line(
            json!({"text": "a plain ascii note that is long enough to skip by words; the end"}),
        );
        assert!(fast(&l).is_some());
        let start = l.windows(4).position(|w| w == b"a pl").unwrap();
        let end = l.windows(7).position(|w| w == b"the end").unwrap();
        for i in start..end {
            for bad in [&[0xffu8][..], &[0xc3], &[0x80], &[0xe2, 0x82]] {
                let mut cand = l.clone();
                cand.splice(i..i, bad.iter().copied());
                assert!(fast(&cand).is_none(), "accepted {bad:?} at {i}");
            }
            let mut ok = l.clone();
            ok.splice(i..i, "€".bytes());
            assert!(
                fast(&ok).is_some(),
                "refused € at {i}: {}",
                String::from_utf8_lossy(&ok)
            );
        }
    }

    #[test]
    fn hex32_takes_lowercase_hex_only() {
        // Every byte value at every position of a valid text: decoded exactly when it is a
        // lowercase hex digit, to the value `hex_val` gives.
        let base = crate::log::hex32(&[0x5a; 32]);
        for at in 0..64 {
            for c in 0..=255u8 {
                let mut t: [u8; 64] = base.as_bytes().try_into().unwrap();
                t[at] = c;
                let want = hex_val(c).map(|v| {
                    let mut out = [0x5a; 32];
                    let nib = if at % 2 == 0 {
                        (v << 4) | 0xa
                    } else {
                        0x50 | v
                    };
                    out[at / 2] = nib;
                    out
                });
                assert_eq!(hex32_of(&t), want, "{c} at {at}");
            }
        }
        let text = format!("{}\"", crate::log::hex32(&[0x5a; 32]));
        let mut c = Cursor {
            b: text.as_bytes(),
            i: 0,
            high: 0,
        };
        assert_eq!(c.hex32(), Some([0x5a; 32]));
        assert_eq!(crate::log::decode_hash("A".repeat(64).as_str()), None);
        let upper = "A".repeat(64);
        assert_eq!(
            Cursor {
                b: upper.as_bytes(),
                i: 0,
                high: 0,
            }
            .hex32(),
            None
        );
    }

    #[test]
    fn word_skip_sees_every_special_byte() {
        for special in (0u8..0x20).chain([b'"', b'\\']) {
            for pos in 0..8 {
                for fill in [b'a', 0x7f, 0x80, 0xff, b'!', b'#', b'[', b']'] {
                    let mut w = [fill; 8];
                    w[pos] = special;
                    assert!(may_be_special(u64::from_le_bytes(w)), "{w:?}");
                }
            }
        }
        assert!(!may_be_special(u64::from_le_bytes(*b"ab/\x7f\xc3\xa9 ~")));
    }

    #[test]
    fn word_skip_marks_the_first_special_byte_exactly() {
        let is_special = |c: u8| c < 0x20 || c == b'"' || c == b'\\';
        // Every byte value at every position, before and after other bytes of every kind: the
        // lowest mark is the first special byte, and there is a mark if and only if one is.
        let others = [
            b'a', 0x00, 0x1f, 0x20, b'"', b'\\', 0x7f, 0x80, 0xff, 0x21, 0x23, 0x5d,
        ];
        for c in 0..=255u8 {
            for pos in 0..8 {
                for &before in &others {
                    for &after in &others {
                        let mut w = [after; 8];
                        w[..pos].fill(before);
                        w[pos] = c;
                        let first = w.iter().position(|&b| is_special(b));
                        let marks = special_bytes(u64::from_le_bytes(w));
                        let got = (marks != 0).then(|| (marks.trailing_zeros() / 8) as usize);
                        assert_eq!(got, first, "{w:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn utc_texts_agree_with_chrono() {
        let mut texts = Vec::new();
        for y in [
            "0000", "0999", "1000", "1900", "2000", "2003", "2024", "2100", "9999",
        ] {
            for m in ["00", "01", "02", "04", "12", "13"] {
                for d in ["00", "01", "28", "29", "30", "31", "32"] {
                    for t in [
                        "00:00:00.000",
                        "23:59:59.999",
                        "24:00:00.000",
                        "23:60:00.000",
                        "23:59:60.000",
                    ] {
                        texts.push(format!("{y}-{m}-{d}T{t}Z"));
                    }
                }
            }
        }
        texts.extend(
            [
                "2003-01-26t15:00:00.000Z",
                "2003-01-26T15:00:00.000z",
                "2003-01-26T15:00:00,000Z",
            ]
            .map(String::from),
        );
        let mut accepted = 0;
        for t in texts {
            let mut c = Cursor {
                b: t.as_bytes(),
                i: 0,
                high: 0,
            };
            if c.utc().is_some() {
                accepted += 1;
                let parsed = chrono::DateTime::parse_from_rfc3339(&t).unwrap();
                assert_eq!(crate::log::format_utc(&parsed.with_timezone(&Utc)), t);
            }
        }
        assert!(accepted > 100, "{accepted}");
    }

    #[test]
    fn clean_log_in_parts_equals_one_part() {
        let mut bytes = Vec::new();
        let mut prev = ZERO_HASH;
        for i in 0..50u64 {
            let mut e = NewEntry {
                mono_ms: i,
                utc: DateTime::parse_from_rfc3339("2003-01-26T15:00:00Z")
                    .unwrap()
                    .with_timezone(&Utc),
                actor: "kit".into(),
                clause: "5b".into(),
                kind: if i % 10 == 3 { RECOVERY_KIND } else { "x" }.into(),
                body: json!({"i": i, "k": {"\"q": 1}}),
            };
            if i == 0 {
                e.kind = "game_opened".into();
            }
            let l = encode_line(i, &prev, &e);
            prev = entry_hash(&l);
            bytes.extend_from_slice(&l);
            bytes.push(b'\n');
        }
        let c = scan_clean(&bytes).unwrap();
        assert_eq!(c.leaves.len(), 50);
        assert_eq!(c.leaves[49], prev);
        assert_eq!(c.first.kind, "game_opened");
        assert_eq!(
            c.recoveries.iter().map(|e| e.seq).collect::<Vec<_>>(),
            [3, 13, 23, 33, 43]
        );
        let cut = bytes.len() / 2
            + bytes[bytes.len() / 2..]
                .iter()
                .position(|&b| b == b'\n')
                .unwrap()
            + 1;
        let mut a = Part::new(0);
        a.feed(&bytes[..cut], 0).unwrap();
        let mut b = Part::new(0);
        b.feed(&bytes[cut..], cut).unwrap();
        assert_eq!(b.first_seq, a.leaves.len() as u64);
        assert_eq!(b.first_prev, *a.leaves.last().unwrap());
        assert!(scan_clean(&bytes[..bytes.len() - 1]).is_none());
        assert!(scan_clean(&bytes[cut..]).is_none());
        assert!(scan_clean(b"").is_none());
    }
}
