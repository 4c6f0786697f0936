//! Entry ↔ Event: the one codec between a log line's fields and the core's events (PURE).
//!
//! An event is written as `actor`, `clause`, `kind`, `body` and `mono_ms` ([`new_entry`]); a
//! log entry is read back into an event by [`event_of`]. [`event_from_value`] reads the same
//! fields from a line's JSON object parsed by someone else (a lenient reader). [`decode_line`]
//! reads a line's bytes straight into its event in one serde pass (no `Value`), falling back to
//! the lenient reading for a line in any other shape.
use std::borrow::Cow;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

mod body;

use super::{Entry, NewEntry};
use crate::core::Actor;
use crate::core::event::{Event, EventKind};

/// Why an entry (or a line's JSON object) is not an event of this kit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("entry {seq} ({kind}): unknown actor '{actor}'")]
    UnknownActor {
        seq: u64,
        kind: String,
        actor: String,
    },
    #[error("entry {seq} ({kind}): body: {problem}")]
    EntryBody {
        seq: u64,
        kind: String,
        problem: String,
    },
    /// A line that is not JSON at all.
    #[error("{0}")]
    Json(String),
    /// A field missing from a line's JSON object.
    #[error("missing {0}")]
    Missing(&'static str),
    #[error("bad actor")]
    BadActor,
    #[error("body: {0}")]
    Body(String),
}

/// The `kind` and `body` of an event as written in the log.
pub fn kind_and_body(e: &Event) -> (String, Value) {
    let v = serde_json::to_value(&e.kind).unwrap_or(Value::Null);
    let kind = v
        .get("kind")
        .and_then(|k| k.as_str())
        .unwrap_or("")
        .to_string();
    let body = v.get("body").cloned().unwrap_or(Value::Null);
    (kind, body)
}

/// The entry to append for an event recorded at wall-clock time `utc`.
pub fn new_entry(e: &Event, utc: DateTime<Utc>) -> NewEntry {
    let (kind, body) = kind_and_body(e);
    NewEntry {
        mono_ms: e.at,
        utc,
        actor: e.actor.name().to_string(),
        clause: e.clause.to_string(),
        kind,
        body,
    }
}

/// The event kind of a `kind` value and its `body` (absent or null: none).
fn event_kind(kind: Value, body: Option<&Value>) -> Result<EventKind, serde_json::Error> {
    let body = body.filter(|b| !b.is_null());
    if let Value::String(k) = &kind {
        return kind_of(k, body);
    }
    let mut kb = Map::with_capacity(2);
    kb.insert("kind".into(), kind);
    if let Some(b) = body {
        kb.insert("body".into(), b.clone());
    }
    serde_json::from_value(Value::Object(kb))
}

/// The event kind named `kind` with its `body`, read from the body in place: the tag is handed
/// over before the content, so serde reads the body straight into its variant (no copy of the
/// body, no buffering of it; a `Map` would put `body` first, in key order).
fn kind_of(kind: &str, body: Option<&Value>) -> Result<EventKind, serde_json::Error> {
    use serde::Deserialize;
    use serde::de::value::MapDeserializer;
    let parts = [("kind", Part::Kind(kind))]
        .into_iter()
        .chain(body.map(|b| ("body", Part::Body(b))));
    EventKind::deserialize(MapDeserializer::new(parts))
}

/// One value of the `{kind, body}` map [`kind_of`] hands to serde.
enum Part<'a> {
    Kind(&'a str),
    Body(&'a Value),
}

impl<'de> serde::de::IntoDeserializer<'de, serde_json::Error> for Part<'de> {
    type Deserializer = Part<'de>;
    fn into_deserializer(self) -> Part<'de> {
        self
    }
}

macro_rules! forward_part {
    ($($method:ident($($arg:ident: $ty:ty),*))*) => {$(
        fn $method<V: serde::de::Visitor<'de>>(
            self,
            $($arg: $ty,)*
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            match self {
                Part::Kind(s) => {
                    serde::de::IntoDeserializer::<serde_json::Error>::into_deserializer(s)
                        .$method($($arg,)* visitor)
                }
                Part::Body(b) => b.$method($($arg,)* visitor),
            }
        }
    )*};
}

impl<'de> serde::Deserializer<'de> for Part<'de> {
    type Error = serde_json::Error;
    forward_part! {
        deserialize_any() deserialize_bool() deserialize_i8() deserialize_i16() deserialize_i32()
        deserialize_i64() deserialize_u8() deserialize_u16() deserialize_u32() deserialize_u64()
        deserialize_f32() deserialize_f64() deserialize_char() deserialize_str()
        deserialize_string() deserialize_bytes() deserialize_byte_buf() deserialize_option()
        deserialize_unit() deserialize_seq() deserialize_map() deserialize_identifier()
        deserialize_ignored_any()
        deserialize_unit_struct(name: &'static str)
        deserialize_newtype_struct(name: &'static str)
        deserialize_tuple(len: usize)
        deserialize_tuple_struct(name: &'static str, len: usize)
        deserialize_struct(name: &'static str, fields: &'static [&'static str])
        deserialize_enum(name: &'static str, variants: &'static [&'static str])
    }
}

/// The event of one log entry (one copy of its body, no intermediate line object).
pub fn event_of(e: &Entry) -> Result<Event, DecodeError> {
    event_of_parts(e.seq, &e.kind, &e.actor, &e.clause, e.mono_ms, &e.body)
}

/// [`event_of`] over an entry's fields.
fn event_of_parts(
    seq: u64,
    kind: &str,
    actor: &str,
    clause: &str,
    mono_ms: u64,
    body: &Value,
) -> Result<Event, DecodeError> {
    let actor = Actor::parse(actor).ok_or_else(|| DecodeError::UnknownActor {
        seq,
        kind: kind.to_owned(),
        actor: actor.to_owned(),
    })?;
    let kind =
        kind_of(kind, Some(body).filter(|b| !b.is_null())).map_err(|m| DecodeError::EntryBody {
            seq,
            kind: kind.to_owned(),
            problem: m.to_string(),
        })?;
    Ok(Event {
        at: mono_ms,
        actor,
        clause: clause.into(),
        kind,
    })
}

/// One log line read into its event, with the chain fields a reader of the line needs; `prev`
/// and `utc` are borrowed from the line (owned only when written with an escape).
#[derive(Debug, Clone, PartialEq)]
pub struct LineEvent<'a> {
    pub seq: u64,
    /// Lowercase hex of the previous entry's hash, as written.
    pub prev: Cow<'a, str>,
    /// The line's UTC, as written (`2003-01-26T15:00:00.000Z`).
    pub utc: Cow<'a, str>,
    pub event: Event,
}

/// A log line's bytes (without the newline) read into its event: one serde pass straight into the
/// event's variant ([`typed_line`]) for a line in the order the kit writes, the lenient reading
/// of its JSON object otherwise. Errors are those of [`event_of`] for a line with every field
/// (an unknown actor, a body that is not the kind's), [`event_from_value`]'s for a line without.
/// The line's canonical form, hash and chain are not checked here (the journal and `verify` do).
pub fn decode_line(line: &[u8]) -> Result<LineEvent<'_>, DecodeError> {
    typed_line(line).or_else(|_| lenient_line(line))
}

/// The one-pass reading of [`decode_line`]: the seven chain and header fields first (`v`, `seq`,
/// `prev`, `utc`, `mono_ms`, `actor`, `clause`, each once, in any order), then `kind` and `body`
/// read by the [`EventKind`] deserializer itself, which takes a `kind` that comes before the body
/// as the variant to read the body into. Any other shape is an error (the caller falls back).
pub fn typed_line(line: &[u8]) -> Result<LineEvent<'_>, serde_json::Error> {
    use serde::Deserializer as _;
    let mut de = serde_json::Deserializer::from_slice(line);
    let out = (&mut de).deserialize_map(LineVisitor)?;
    de.end()?;
    Ok(out)
}

/// [`decode_line`] for a line in the kit's canonical form (every line `verify`'s pass and the
/// journal's reader prove canonical, [`super::fast::check_line`]): the header is read where that
/// form puts it, byte by byte, the body of a hot kind (moves, presses, clock reports, notes…) as
/// well ([`fixed_line`]), and serde reads any other `kind` and `body`, straight into the event's
/// variant. The same result as [`decode_line`] for any line; a line in another form, or with an
/// escape in a header string, is handed to [`decode_line`].
pub fn decode_canonical(line: &[u8]) -> Result<LineEvent<'_>, DecodeError> {
    match canonical_line(line) {
        Some(Ok(e)) => Ok(e),
        _ => decode_line(line),
    }
}

/// [`decode_canonical`]'s event alone, shared: the same event for any line. A hot kind's line is
/// read straight into the shared event, without the [`LineEvent`] around it (a move's
/// event was copied three times on its way to the heap, 6 % of `status`).
pub fn decode_shared(line: &[u8]) -> Result<std::sync::Arc<Event>, DecodeError> {
    if let Some((head, kind, body)) = canonical_header(line)
        && let Some(kind) = body::read(kind, body)
    {
        return Ok(std::sync::Arc::new(Event {
            at: head.at,
            actor: head.actor,
            clause: crate::core::event::Text::new(head.clause),
            kind,
        }));
    }
    decode_canonical(line).map(|d| std::sync::Arc::new(d.event))
}

/// [`decode_shared`] of a line that [`crate::log::fast::check_line`] proved canonical, with what
/// it read of the header (`meta`) and the line's `kind`: the header is not read again.
/// The same event as [`decode_shared`] (and so [`decode_line`]) for the line.
///
/// `reuse`, an event nothing else holds, is written over (its memory and its strings' reused)
/// Where the line reads at fixed shape.
pub fn decode_checked(
    line: &[u8],
    meta: &crate::log::fast::LineMeta,
    kind: &str,
    reuse: Option<std::sync::Arc<Event>>,
) -> Result<std::sync::Arc<Event>, DecodeError> {
    let clause = meta
        .clause
        .and_then(|(a, b)| std::str::from_utf8(line.get(a as usize..b as usize)?).ok());
    let body = line.get(meta.body as usize..line.len().saturating_sub(1));
    if let Some(clause) = clause
        && let Some(actor) = crate::log::ACTORS
            .get(usize::from(meta.actor))
            .and_then(|a| Actor::parse(a))
        && line.ends_with(b"}")
        && let Some(body) = body
    {
        // The body is read into the shared event's own memory (no copy of the event on its way
        // there); where it does not read, the event is dropped and the line read another way.
        if let Some((event, ())) = written_over(reuse, meta.at, actor, clause, |k| {
            body::read_into(kind, body, k)
        }) {
            return Ok(event);
        }
    }
    decode_shared(line)
}

/// A line's event read while [`crate::log::fast::check_line_reading`] checks the line (issue
/// 21: the body is read once, into the event, and that reading proves it canonical): the header
/// as the check read it (`at`), the body of a hot kind at fixed shape from `line[at.body..]`.
/// The event, and where its body ends (the index after its closing brace), or `None` where the
/// body is of another kind or shape (the check then reads it itself, and the line is decoded
/// after it, [`decode_checked`]). Where it reads, the event is [`decode_checked`]'s for the
/// line, and the body is a JSON object the check accepts: the fixed-shape readers take keys in
/// strictly increasing order without escapes, integers in canonical form, `true`, `false`,
/// `null`, strings without escapes or control characters, each checked to be UTF-8, and arrays
/// of such strings (the test `a_body_read_in_the_check_is_a_body_the_check_accepts`).
///
/// `reuse`, an event nothing else holds, is written over (its memory reused).
pub fn decode_fused(
    line: &[u8],
    at: &crate::log::fast::BodyAt<'_>,
    reuse: Option<std::sync::Arc<Event>>,
) -> Option<(std::sync::Arc<Event>, usize)> {
    let clause = std::str::from_utf8(line.get(at.clause?.0..at.clause?.1)?).ok()?;
    let actor = Actor::parse(crate::log::ACTORS.get(usize::from(at.actor))?)?;
    let (event, len) = written_over(reuse, at.at, actor, clause, |k| {
        body::read_prefix(at.kind, line.get(at.body..)?, k)
    })?;
    Some((event, at.body + len))
}

/// `reuse` (an event nothing else holds; a new one if none) written over: its kind by `read`,
/// then the header's fields. `None` (the event dropped) where `read` does not read or another
/// holds the event.
fn written_over<R>(
    reuse: Option<std::sync::Arc<Event>>,
    at: u64,
    actor: Actor,
    clause: &str,
    read: impl FnOnce(&mut EventKind) -> Option<R>,
) -> Option<(std::sync::Arc<Event>, R)> {
    let mut event = reuse.unwrap_or_else(|| {
        std::sync::Arc::new(Event {
            at,
            actor,
            clause: crate::core::event::Text::const_new(""),
            kind: EventKind::ClockStarted {
                side: crate::core::Side::White,
            },
        })
    });
    let e = std::sync::Arc::get_mut(&mut event)?;
    let read = read(&mut e.kind)?;
    e.at = at;
    e.actor = actor;
    e.clause.clear();
    e.clause.push_str(clause);
    Some((event, read))
}

/// The canonical reading of [`decode_canonical`]; `None` where the line is not in that form.
fn canonical_line(line: &[u8]) -> Option<Result<LineEvent<'_>, serde_json::Error>> {
    use serde::Deserialize;
    let (head, kind, body) = canonical_header(line)?;
    // The hot kinds' bodies at fixed shape first ([`body::read`]); serde reads any other.
    if let Some(k) = body::read(kind, body) {
        return Some(Ok(head.event(k)));
    }
    let mut de = serde_json::Deserializer::from_str(std::str::from_utf8(body).ok()?);
    let read = EventKind::deserialize(serde::de::value::MapAccessDeserializer::new(KindBody {
        kind: Some(kind),
        body: Some(&mut de),
    }))
    .and_then(|k| de.end().map(|()| k));
    match read {
        // As in [`typed_line`]: the `Value` path reads a null body as none.
        Ok(
            EventKind::Recovery(Value::Null)
            | EventKind::EngineLogArchived(Value::Null)
            | EventKind::ProgramArchived(Value::Null),
        ) => None,
        Ok(k) => Some(Ok(head.event(k))),
        Err(e) => Some(Err(e)),
    }
}

/// The `kind` of a line in the kit's canonical form, read from its header alone (`None` for a
/// line in another form, which the caller parses).
pub fn line_kind(line: &[u8]) -> Option<&str> {
    canonical_header(line).map(|(_, kind, _)| kind)
}

/// A line read by [`decode_canonical`]'s header reading and the fixed-shape reading of its body
/// alone (the hot kinds' bodies as the kit writes them, without serde); `None` for any other line.
/// Where it reads a line, the event is [`decode_line`]'s (the tests check it line by line).
pub fn fixed_line(line: &[u8]) -> Option<LineEvent<'_>> {
    let (head, kind, body) = canonical_header(line)?;
    body::read(kind, body).map(|k| head.event(k))
}

/// A canonical line's header fields, read in place.
struct Head<'a> {
    seq: u64,
    prev: &'a str,
    utc: &'a str,
    at: u64,
    actor: Actor,
    clause: &'a str,
}

impl<'a> Head<'a> {
    fn event(self, kind: EventKind) -> LineEvent<'a> {
        LineEvent {
            seq: self.seq,
            prev: Cow::Borrowed(self.prev),
            utc: Cow::Borrowed(self.utc),
            event: Event {
                at: self.at,
                actor: self.actor,
                clause: crate::core::event::Text::new(self.clause),
                kind,
            },
        }
    }
}

/// A canonical line's header, its `kind` and its body's text (up to the line's closing brace);
/// `None` where the header is in another form.
fn canonical_header(line: &[u8]) -> Option<(Head<'_>, &str, &[u8])> {
    // Each string is checked to be UTF-8 as it is read ([`Canon::plain`]); the body is handed
    // over as bytes (its readers check its strings).
    let mut c = Canon { b: line, i: 0 };
    c.lit(b"{\"v\":1,\"seq\":")?;
    let seq = c.uint()?;
    c.lit(b",\"prev\":\"")?;
    let prev = c.plain()?;
    c.lit(b",\"utc\":\"")?;
    let utc = c.plain()?;
    c.lit(b",\"mono_ms\":")?;
    let at = c.uint()?;
    c.lit(b",\"actor\":\"")?;
    let actor = Actor::parse(c.plain()?)?;
    c.lit(b",\"clause\":\"")?;
    let clause = c.plain()?;
    c.lit(b",\"kind\":\"")?;
    let kind = c.plain()?;
    c.lit(b",\"body\":")?;
    let body = line.get(c.i..line.len().checked_sub(1)?)?;
    if !line.ends_with(b"}") {
        return None;
    }
    let head = Head {
        seq,
        prev,
        utc,
        at,
        actor,
        clause,
    };
    Some((head, kind, body))
}

/// A cursor over a line in canonical form.
struct Canon<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Canon<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.b
    }

    /// The literal bytes `s` next.
    fn lit(&mut self, s: &[u8]) -> Option<()> {
        let next = self.bytes().get(self.i..self.i + s.len())?;
        (next == s).then(|| self.i += s.len())
    }

    /// A JSON number that is a u64 in canonical form (no sign, fraction, exponent or leading
    /// zero), up to the next non-digit.
    fn uint(&mut self) -> Option<u64> {
        let start = self.i;
        let mut n = 0u64;
        while let Some(d) = self.bytes().get(self.i).filter(|b| b.is_ascii_digit()) {
            n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
            self.i += 1;
        }
        let len = self.i - start;
        (len == 1 || (len > 1 && self.bytes().get(start) != Some(&b'0'))).then_some(n)
    }

    /// The rest of a JSON string whose opening quote was read, up to its closing quote: `None` if
    /// it holds an escape or a control character (serde's reading then decides).
    fn plain(&mut self) -> Option<&'a str> {
        let start = self.i;
        let b = self.bytes();
        // Eight bytes at a time up to the first that may end the string (a line's
        // `prev` alone is 64 bytes); then byte by byte from there.
        while let Some(w) = b.get(self.i..self.i + 8) {
            let w = u64::from_le_bytes(w.try_into().ok()?);
            let special = crate::log::fast::special_bytes(w);
            if special != 0 {
                self.i += (special.trailing_zeros() / 8) as usize;
                break;
            }
            self.i += 8;
        }
        loop {
            match *b.get(self.i)? {
                b'"' => break,
                b'\\' | 0..=0x1f => return None,
                _ => self.i += 1,
            }
        }
        // Each string is checked to be UTF-8 on its own (a body read while its line is
        // checked, `decode_fused`, is not checked whole; its other bytes are the ASCII of its
        // keys, numbers and literals, which the readers compare).
        let s = std::str::from_utf8(b.get(start..self.i)?).ok()?;
        self.i += 1;
        Some(s)
    }
}

/// The `{kind, body}` map of a canonical line for the [`EventKind`] deserializer: the kind first
/// (so the body is read straight into its variant), then the body from the line's own bytes.
struct KindBody<'a, 'de> {
    kind: Option<&'a str>,
    body: Option<&'a mut serde_json::Deserializer<serde_json::de::StrRead<'de>>>,
}

impl<'de> serde::de::MapAccess<'de> for KindBody<'_, 'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, serde_json::Error> {
        use serde::de::value::BorrowedStrDeserializer;
        let key = if self.kind.is_some() {
            "kind"
        } else if self.body.is_some() {
            "body"
        } else {
            return Ok(None);
        };
        seed.deserialize(BorrowedStrDeserializer::new(key))
            .map(Some)
    }

    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, serde_json::Error> {
        use serde::de::IntoDeserializer;
        if let Some(k) = self.kind.take() {
            return seed.deserialize(IntoDeserializer::<serde_json::Error>::into_deserializer(k));
        }
        match self.body.take() {
            Some(d) => seed.deserialize(d),
            None => Err(serde::de::Error::custom("no value")),
        }
    }
}

/// The lenient reading of a line: its JSON object, then [`event_of`]'s decoding of its fields.
fn lenient_line(line: &[u8]) -> Result<LineEvent<'_>, DecodeError> {
    let v: Value = serde_json::from_slice(line).map_err(|e| DecodeError::Json(e.to_string()))?;
    let text = |k: &'static str| -> Result<String, DecodeError> {
        v.get(k)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or(DecodeError::Missing(k))
    };
    let (Some(seq), Ok(kind), Ok(actor), Some(body)) = (
        v.get("seq").and_then(Value::as_u64),
        text("kind"),
        text("actor"),
        v.get("body"),
    ) else {
        // A line without the entry's fields: the lenient reader's own errors.
        let event = event_from_value(&v)?;
        return Ok(LineEvent {
            seq: v
                .get("seq")
                .and_then(Value::as_u64)
                .ok_or(DecodeError::Missing("seq"))?,
            prev: Cow::Owned(text("prev")?),
            utc: Cow::Owned(text("utc")?),
            event,
        });
    };
    let mono_ms = v
        .get("mono_ms")
        .and_then(Value::as_u64)
        .ok_or(DecodeError::Missing("mono_ms"))?;
    let event = event_of_parts(seq, &kind, &actor, &text("clause")?, mono_ms, body)?;
    Ok(LineEvent {
        seq,
        prev: Cow::Owned(text("prev")?),
        utc: Cow::Owned(text("utc")?),
        event,
    })
}

/// The keys of a v1 line ([`super::KEYS`]), as serde names them.
#[derive(serde::Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Key {
    V,
    Seq,
    Prev,
    Utc,
    MonoMs,
    Actor,
    Clause,
}

/// A string read from the line in place when it holds no escape.
struct Text<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Text<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Text<'de>, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E>(self, s: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(s)))
            }
        }
        d.deserialize_str(V)
    }
}

/// Reads a line's JSON object for [`typed_line`].
struct LineVisitor;

impl<'de> serde::de::Visitor<'de> for LineVisitor {
    type Value = LineEvent<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a log line's JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> Result<LineEvent<'de>, A::Error> {
        use serde::de::Error;
        fn once<T, E: Error>(slot: &mut Option<T>, v: T, key: &'static str) -> Result<(), E> {
            match slot.replace(v) {
                None => Ok(()),
                Some(_) => Err(E::duplicate_field(key)),
            }
        }
        let (mut v, mut seq, mut prev, mut utc) = (None, None, None, None);
        let (mut mono_ms, mut actor, mut clause) = (None, None, None);
        for _ in 0..7 {
            let key: Key = map
                .next_key()?
                .ok_or_else(|| A::Error::custom("the line ends before its kind"))?;
            match key {
                Key::V => once(&mut v, map.next_value::<u32>()?, "v")?,
                Key::Seq => once(&mut seq, map.next_value::<u64>()?, "seq")?,
                Key::Prev => once(&mut prev, map.next_value::<Text<'de>>()?.0, "prev")?,
                Key::Utc => once(&mut utc, map.next_value::<Text<'de>>()?.0, "utc")?,
                Key::MonoMs => once(&mut mono_ms, map.next_value::<u64>()?, "mono_ms")?,
                Key::Actor => once(&mut actor, map.next_value::<Text<'de>>()?.0, "actor")?,
                Key::Clause => once(&mut clause, map.next_value::<Text<'de>>()?.0, "clause")?,
            }
        }
        let (Some(_), Some(seq), Some(prev), Some(utc), Some(at), Some(actor), Some(clause)) =
            (v, seq, prev, utc, mono_ms, actor, clause)
        else {
            return Err(A::Error::custom("a header field is missing"));
        };
        let actor = Actor::parse(&actor).ok_or_else(|| A::Error::custom("unknown actor"))?;
        use serde::Deserialize;
        let kind = EventKind::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        // The `Value` path takes a null body as none, which these kinds cannot be: step aside.
        if let EventKind::Recovery(Value::Null)
        | EventKind::EngineLogArchived(Value::Null)
        | EventKind::ProgramArchived(Value::Null) = kind
        {
            return Err(A::Error::custom("a null body"));
        }
        Ok(LineEvent {
            seq,
            prev,
            utc,
            event: Event {
                at,
                actor,
                clause: clause.into(),
                kind,
            },
        })
    }
}

/// The events of log entries, in order.
pub fn events_of(entries: &[Entry]) -> Result<Vec<Event>, DecodeError> {
    entries.iter().map(event_of).collect()
}

/// An event from one log line's JSON text, read leniently (any valid JSON object with the
/// fields `mono_ms`, `actor`, `clause`, `kind`, `body`).
pub fn event_from_line(line: &str) -> Result<Event, DecodeError> {
    let v: Value = serde_json::from_str(line).map_err(|e| DecodeError::Json(e.to_string()))?;
    event_from_value(&v)
}

/// An event from a log line's JSON object.
pub fn event_from_value(v: &Value) -> Result<Event, DecodeError> {
    let at = v
        .get("mono_ms")
        .and_then(|x| x.as_u64())
        .ok_or(DecodeError::Missing("mono_ms"))?;
    let actor = v
        .get("actor")
        .and_then(|x| x.as_str())
        .and_then(Actor::parse)
        .ok_or(DecodeError::BadActor)?;
    let clause = v
        .get("clause")
        .and_then(|x| x.as_str())
        .ok_or(DecodeError::Missing("clause"))?
        .to_string();
    let kind = v.get("kind").cloned().ok_or(DecodeError::Missing("kind"))?;
    let kind = event_kind(kind, v.get("body")).map_err(|e| DecodeError::Body(e.to_string()))?;
    Ok(Event {
        at,
        actor,
        clause: clause.into(),
        kind,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::log::encode_line;

    /// One body of every event kind (line 0 is the demo match's own).
    fn samples() -> Vec<(&'static str, String)> {
        let line0 = include_str!("../../tests/fixtures/demo-match/game-1/log.jsonl")
            .lines()
            .next()
            .unwrap();
        let v: Value = serde_json::from_str(line0).unwrap();
        let opened = v["body"].to_string();
        let s = |k: &'static str, b: &str| (k, b.to_owned());
        vec![
            ("game_opened", opened),
            s("clock_started", r#"{"side":"white"}"#),
            s(
                "move_made",
                r#"{"declines_draw":false,"fen":"rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1","increment_ms":0,"remaining_ms":7199990,"san":"d4","side":"white","spent_ms":10,"uci":"d2d4"}"#,
            ),
            s(
                "move_made",
                r#"{"byoyomi_periods_left":2,"byoyomi_periods_lost":1,"declines_draw":true,"fen":null,"increment_ms":5,"pressed_at":77,"remaining_ms":-3,"san":"P-7f","side":"black","spent_ms":10,"uci":"7g7f"}"#,
            ),
            s(
                "clock_pressed",
                r#"{"byoyomi_periods_left":1,"increment_ms":0,"remaining_ms":5,"side":"black","spent_ms":9}"#,
            ),
            s(
                "clock_stopped",
                r#"{"reason":"a \"quoted\" reason\n\u00e9"}"#,
            ),
            s("clock_resumed", r#"{"side":"black"}"#),
            s(
                "internal_clock_reported",
                r#"{"correction_owed":true,"diff_ms":-130000,"game_clock_ms":5000,"reading_ms":4000,"threshold_ms":120000}"#,
            ),
            s("owed_move_released", r#"{"reason":"r","san":"Nf3"}"#),
            s("reset_window_ended", r#"{"window_ms":1800000}"#),
            s(
                "sync_not_made",
                r#"{"diff_ms":130000,"reported_at":5,"threshold_ms":120000}"#,
            ),
            s("internal_clock_corrected", r#"{"from_ms":1,"to_ms":-2}"#),
            s(
                "clock_corrected",
                r#"{"delta_ms":-5,"from_ms":10,"how":"delta","reason":"7e","side":"white","to_ms":5}"#,
            ),
            s(
                "moves_taken_back",
                r#"{"fen":null,"plies":2,"reason":"r","removed":["e4","e5"]}"#,
            ),
            s("parameter_set", r#"{"name":"hash","value":"256"}"#),
            s(
                "parameter_requested",
                r#"{"id":1,"name":"contempt","reason":"r"}"#,
            ),
            s("committee_advised", r#"{"request":1,"text":"t"}"#),
            s(
                "parameter_decided",
                r#"{"id":1,"permitted":false,"reason":"r"}"#,
            ),
            s(
                "wrong_move",
                r#"{"correct":"Nf3","correct_uci":"g1f3","forfeit":false,"infraction":1,"penalty_ms":600000,"played":"Nc3","pressed":true}"#,
            ),
            s("technical_problem", r#"{"text":"t"}"#),
            s("work_note", r#"{"text":"t"}"#),
            s("info_stopped", r#"{"question":"q"}"#),
            s("info_resumed", "null"),
            s("technical_resolved", r#"{"text":"t"}"#),
            s("power_failed", r#"{"text":"t"}"#),
            s("power_restored", r#"{"window_ms":1800000}"#),
            s("machine_reset", "null"),
            s(
                "draw_offered",
                r#"{"by":"black","justification":{"eval":{"cp":-12}}}"#,
            ),
            s("draw_offered", r#"{"by":"white","justification":null}"#),
            s("consultation_started", r#"{"with":["a","b"]}"#),
            s(
                "consultation_ended",
                r#"{"limit_reached":true,"total_ms":1800000,"used_ms":60000}"#,
            ),
            s("draw_declined", r#"{"by":"white","how":"by_move"}"#),
            s("dispute_raised", r#"{"id":1,"text":"t"}"#),
            s("ruling_given", r#"{"dispute":1,"id":2,"text":"t"}"#),
            s("note", r#"{"text":"a note"}"#),
            s(
                "claim_dismissed",
                r#"{"added_ms":120000,"claim":"threefold","claimant":"white","detail":"d","laws":"2001","to":"black","with_move":"Nf3"}"#,
            ),
            s(
                "entry_voided",
                r#"{"kind":"move_made","reason":"r","seq":12}"#,
            ),
            s(
                "authorized",
                r#"{"by":"arbiter","command":"play","first":1,"last":9}"#,
            ),
            s("authorization_failed", r#"{"command":"c","why":"w"}"#),
            s("adjourned", r#"{"sealed_sha256":"ab","side":"white"}"#),
            s("engine_stopped", "null"),
            s("operator_replaced", r#"{"from":"a","reason":"r","to":"b"}"#),
            s("adjournment_resumed", r#"{"revealed":"Nf3"}"#),
            s(
                "restart_gap",
                r#"{"charged":true,"charged_ms":100,"gap_ms":2200,"reason":"r","side":"white"}"#,
            ),
            s(
                "game_ended",
                r#"{"detail":"d","fen":null,"ruling":null,"score":"1/2-1/2","termination":"draw_agreed"}"#,
            ),
            s("recovery", r#"{"side_file":"log.jsonl.torn-1","offset":5}"#),
            s("engine_log_archived", r#"{"sha256":"00","file":"e.log"}"#),
            s("program_archived", r#"{"sha256":"00"}"#),
        ]
    }

    /// The variant's place in [`EventKind`] (no wildcard: a new kind fails to compile here until
    /// it has a sample).
    fn variant(k: &EventKind) -> usize {
        use EventKind::*;
        match k {
            GameOpened(_) => 0,
            ClockStarted { .. } => 1,
            MoveMade { .. } => 2,
            ClockPressed { .. } => 3,
            ClockStopped { .. } => 4,
            ClockResumed { .. } => 5,
            InternalClockReported { .. } => 6,
            OwedMoveReleased { .. } => 7,
            ResetWindowEnded { .. } => 8,
            SyncNotMade { .. } => 9,
            InternalClockCorrected { .. } => 10,
            ClockCorrected { .. } => 11,
            MovesTakenBack { .. } => 12,
            ParameterSet { .. } => 13,
            ParameterRequested { .. } => 14,
            CommitteeAdvised { .. } => 15,
            ParameterDecided { .. } => 16,
            WrongMove { .. } => 17,
            TechnicalProblem { .. } => 18,
            WorkNote { .. } => 19,
            InfoStopped { .. } => 20,
            InfoResumed => 21,
            TechnicalResolved { .. } => 22,
            PowerFailed { .. } => 23,
            PowerRestored { .. } => 24,
            MachineReset => 25,
            DrawOffered { .. } => 26,
            ConsultationStarted { .. } => 27,
            ConsultationEnded { .. } => 28,
            DrawDeclined { .. } => 29,
            DisputeRaised { .. } => 30,
            RulingGiven { .. } => 31,
            Note { .. } => 32,
            ClaimDismissed { .. } => 33,
            EntryVoided { .. } => 34,
            Authorized { .. } => 35,
            AuthorizationFailed { .. } => 36,
            Adjourned { .. } => 37,
            EngineStopped => 38,
            OperatorReplaced { .. } => 39,
            AdjournmentResumed { .. } => 40,
            RestartGap { .. } => 41,
            GameEnded { .. } => 42,
            Recovery(_) => 43,
            EngineLogArchived(_) => 44,
            ProgramArchived(_) => 45,
        }
    }
    const VARIANTS: usize = 46;

    fn utc(ms: i64) -> DateTime<Utc> {
        DateTime::from_timestamp_millis(1_043_593_200_000 + ms).unwrap()
    }

    /// The entry's line and the event the `Value` path reads from it.
    fn line_of(seq: u64, kind: &str, body: &str) -> (Vec<u8>, Event) {
        let actors = ["arbiter", "operator", "supervisor", "committee", "kit"];
        let obj = serde_json::json!({
            "mono_ms": seq * 1000 + 7,
            "actor": actors[seq as usize % actors.len()],
            "clause": format!("6{}", seq % 3),
            "kind": kind,
            "body": serde_json::from_str::<Value>(body).unwrap(),
        });
        let ev = event_from_value(&obj).unwrap_or_else(|e| panic!("{kind} {body}: {e}"));
        let line = encode_line(
            seq,
            &[seq as u8; 32],
            &new_entry(&ev, utc(seq as i64 * 1000)),
        );
        (line, ev)
    }

    #[test]
    fn every_event_kind_round_trips_through_the_typed_decoder_as_the_value_path_reads_it() {
        let mut seen = [false; VARIANTS];
        for (seq, (kind, body)) in samples().into_iter().enumerate() {
            let seq = seq as u64;
            let (line, ev) = line_of(seq, kind, &body);
            seen[variant(&ev.kind)] = true;
            assert_eq!(ev.kind_str(), kind, "the static name is the log's");
            // The typed pass itself reads it (not the fallback), equal to the `Value` path.
            let typed = typed_line(&line).unwrap_or_else(|e| panic!("{kind}: {e}"));
            let entry = crate::log::parse_line(&line, 0).unwrap();
            assert_eq!(typed.event, event_of(&entry).unwrap(), "{kind}");
            assert_eq!(typed.event, ev, "{kind}");
            assert_eq!(typed.seq, seq);
            assert_eq!(typed.prev, crate::log::hex32(&[seq as u8; 32]));
            assert_eq!(typed.utc, entry.utc);
            assert!(matches!(typed.utc, Cow::Borrowed(_)), "{kind}: utc copied");
            assert_eq!(decode_line(&line).unwrap(), typed);
            // The canonical reading itself reads it, equal.
            let canon = canonical_line(&line)
                .unwrap_or_else(|| panic!("{kind}: not read as canonical"))
                .unwrap();
            assert_eq!(canon, typed, "{kind}");
            assert_eq!(decode_canonical(&line).unwrap(), typed);
        }
        let missing: Vec<usize> = (0..VARIANTS).filter(|&k| !seen[k]).collect();
        assert!(missing.is_empty(), "kinds without a sample: {missing:?}");
    }

    /// Lines in any other shape are read as the lenient path reads them: the typed pass either
    /// gives the same event or steps aside; errors are [`event_of`]'s.
    #[test]
    fn lines_in_other_shapes_fall_back_to_the_value_path_with_the_same_result() {
        let (line, ev) = line_of(3, "clock_stopped", r#"{"reason":"r"}"#);
        let text = String::from_utf8(line).unwrap();
        fn lenient(t: &str) -> Result<LineEvent<'_>, DecodeError> {
            lenient_line(t.as_bytes())
        }
        // Reordered: body before kind, kind before the header, spaces.
        let shapes = [
            text.replace(
                r#""kind":"clock_stopped","body":{"reason":"r"}"#,
                r#""body":{"reason":"r"},"kind":"clock_stopped""#,
            ),
            text.replace(r#""v":1,"#, r#""kind":"clock_stopped","v":1,"#)
                .replace(r#","kind":"clock_stopped","body""#, r#","body""#),
            text.replace(',', " , ").replace(':', " : "),
            text.replace(r#""utc":"#, r#""zz":[1,{"a":2}],"utc":"#),
        ];
        for s in &shapes {
            assert!(canonical_line(s.as_bytes()).is_none(), "{s}");
            assert_eq!(decode_canonical(s.as_bytes()), decode_line(s.as_bytes()));
            let d = decode_line(s.as_bytes()).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!(d.event, ev, "{s}");
            assert_eq!(d, lenient(s).unwrap(), "{s}");
        }
        // Escaped header strings are owned, and equal.
        let esc = text.replace("\"utc\":\"2003", "\"utc\":\"\\u0032003");
        let d = typed_line(esc.as_bytes()).unwrap();
        assert!(matches!(d.utc, Cow::Owned(_)));
        assert_eq!(d, lenient(&esc).unwrap());
        assert!(canonical_line(esc.as_bytes()).is_none());
        assert_eq!(decode_canonical(esc.as_bytes()).unwrap(), d);
        // Numbers and strings JSON reads otherwise than digits and plain bytes: not canonical.
        for odd in [
            text.replace("\"seq\":3,", "\"seq\":03,"),
            text.replace("\"seq\":3,", "\"seq\":3.0,"),
            text.replace("\"seq\":3,", "\"seq\":99999999999999999999,"),
            text.replace("\"clause\":\"", "\"clause\":\"\t"),
            text.replace("\"clause\":\"", "\"clause\":\"\\n"),
            format!("{text} "),
        ] {
            assert!(
                !matches!(canonical_line(odd.as_bytes()), Some(Ok(_))),
                "{odd}"
            );
            assert_eq!(
                decode_canonical(odd.as_bytes()),
                decode_line(odd.as_bytes()),
                "{odd}"
            );
        }
        // Trailing bytes after the body: serde's error, as the typed pass gives it.
        let trailing = text.replace(r#"{"reason":"r"}}"#, r#"{"reason":"r"} x}"#);
        assert!(matches!(canonical_line(trailing.as_bytes()), Some(Err(_))));
        assert_eq!(
            decode_canonical(trailing.as_bytes()),
            decode_line(trailing.as_bytes())
        );
        // Duplicates: the typed pass steps aside; the lenient reading decides.
        let dup = text.replace(r#""seq":3,"#, r#""seq":3,"seq":4,"#);
        assert!(typed_line(dup.as_bytes()).is_err());
        assert_eq!(decode_line(dup.as_bytes()), lenient(&dup));
        let dup_kind = text.replace(r#""kind":"#, r#""kind":"note","kind":"#);
        assert!(typed_line(dup_kind.as_bytes()).is_err());
        assert_eq!(decode_line(dup_kind.as_bytes()), lenient(&dup_kind));
        // Errors, as event_of names them.
        let actor = text.replace("\"actor\":\"committee\"", "\"actor\":\"nobody\"");
        assert!(matches!(
            decode_line(actor.as_bytes()),
            Err(DecodeError::UnknownActor { seq: 3, .. })
        ));
        let body = text.replace(r#"{"reason":"r"}"#, r#"{"reason":5}"#);
        assert!(matches!(
            decode_line(body.as_bytes()),
            Err(DecodeError::EntryBody { seq: 3, .. })
        ));
        let unknown = text.replace("clock_stopped", "no_such_kind");
        assert!(matches!(
            decode_line(unknown.as_bytes()),
            Err(DecodeError::EntryBody { seq: 3, .. })
        ));
        assert!(matches!(decode_line(b"{\"v\":"), Err(DecodeError::Json(_))));
        assert_eq!(decode_line(b"{}"), Err(DecodeError::Missing("mono_ms")));
        // A null or absent body: both paths agree for every kind.
        for (kind, _) in samples() {
            let (line, _) = line_of(5, "note", r#"{"text":"x"}"#);
            let t = String::from_utf8(line).unwrap();
            let t = t.replace("\"kind\":\"note\"", &format!("\"kind\":\"{kind}\""));
            let null = t.replace(r#"{"text":"x"}"#, "null");
            let absent = t.replace(r#","body":{"text":"x"}"#, "");
            for s in [null, absent] {
                assert_eq!(
                    decode_canonical(s.as_bytes()),
                    decode_line(s.as_bytes()),
                    "{s}"
                );
                match typed_line(s.as_bytes()) {
                    Ok(d) => assert_eq!(Ok(d), lenient(&s), "{s}"),
                    Err(_) => assert_eq!(decode_line(s.as_bytes()), lenient(&s), "{s}"),
                }
            }
        }
    }
}
