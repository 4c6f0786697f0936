//! Entry ↔ Event: the one codec between a log line's fields and the core's events (PURE).
//!
//! An event is written as `actor`, `clause`, `kind`, `body` and `mono_ms` ([`new_entry`]); a
//! log entry is read back into an event by [`event_of`]. [`event_from_value`] reads the same
//! fields from a line's JSON object parsed by someone else (a lenient reader).
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

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
        clause: e.clause.clone(),
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
    let actor = Actor::parse(&e.actor).ok_or_else(|| DecodeError::UnknownActor {
        seq: e.seq,
        kind: e.kind.clone(),
        actor: e.actor.clone(),
    })?;
    let kind = event_kind(Value::String(e.kind.clone()), Some(&e.body)).map_err(|m| {
        DecodeError::EntryBody {
            seq: e.seq,
            kind: e.kind.clone(),
            problem: m.to_string(),
        }
    })?;
    Ok(Event {
        at: e.mono_ms,
        actor,
        clause: e.clause.clone(),
        kind,
    })
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
        clause,
        kind,
    })
}
