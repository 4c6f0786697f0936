//! Byte format of the game log (PURE: no clock, no files). The contract is written down in
//! `docs/log-format.md`; this module is its reference implementation.
//!
//! One entry is one line of JSON; its hash is `E_n = SHA-256(0x00 || line bytes)` (the RFC 6962
//! leaf hash); line `n` records `prev = hex(E_{n-1})` (64 zeros for line 0).
pub mod checkpoint;
pub mod codec;
pub mod consistency;
pub mod cosign;
pub mod fast;
pub mod index;
pub mod merkle;
pub mod note;
pub mod policy;
pub mod proof;
pub mod scan;
pub mod seal;
pub mod stream;
pub mod strict;

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Version of the byte format written in every line's `v` field.
pub const FORMAT_VERSION: u32 = 1;
/// `prev` of line 0.
pub const ZERO_HASH: [u8; 32] = [0u8; 32];
/// The keys of a v1 line, in the order they are written.
pub const KEYS: [&str; 9] = [
    "v", "seq", "prev", "utc", "mono_ms", "actor", "clause", "kind", "body",
];
/// Actors a v1 line may name.
pub const ACTORS: [&str; 5] = ["arbiter", "operator", "supervisor", "committee", "kit"];
/// Kind of the entry the journal appends after cutting a torn tail.
pub const RECOVERY_KIND: &str = "recovery";

/// An entry to append: everything but the chain fields, which the journal fills in.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEntry {
    pub mono_ms: u64,
    pub utc: DateTime<Utc>,
    pub actor: String,
    pub clause: String,
    pub kind: String,
    pub body: Value,
}

/// One entry as read back from a log line.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub v: u32,
    pub seq: u64,
    /// Lowercase hex of the previous entry's hash.
    pub prev: String,
    /// RFC 3339 UTC with milliseconds, as written (`2003-01-26T15:00:00.000Z`).
    pub utc: String,
    pub mono_ms: u64,
    pub actor: String,
    pub clause: String,
    pub kind: String,
    pub body: Value,
    /// `E_seq`: SHA-256(0x00 || line bytes without the newline).
    pub hash: [u8; 32],
    /// Byte offset of the line in the file.
    pub offset: u64,
    /// Length of the line in bytes, without its newline.
    pub len: u64,
}

impl Entry {
    /// `prev` decoded (it was checked to be 64 lowercase hex digits when parsed).
    pub fn prev_bytes(&self) -> [u8; 32] {
        decode_hash(&self.prev).unwrap_or(ZERO_HASH)
    }
    /// Offset of the byte after this line's newline.
    pub fn end(&self) -> u64 {
        self.offset + self.len + 1
    }
}

/// Why a line is not a valid v1 entry (the line in isolation; chain links are checked by
/// [`scan`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("empty line")]
    Empty,
    #[error("line starts with a byte-order mark (UTF-8 BOM)")]
    Bom,
    #[error("line ends in a carriage return (CRLF line ending)")]
    CarriageReturn,
    #[error("line contains a NUL byte (zero-filled block)")]
    ZeroBytes,
    #[error("line is not a JSON object starting with '{{' and ending with '}}'")]
    NotAnObject,
    #[error("invalid JSON: {0}")]
    Json(String),
    #[error("field {field:?}: {problem}")]
    Field {
        field: &'static str,
        problem: String,
    },
    #[error(
        "unknown field {0:?} (format v1 has exactly: v, seq, prev, utc, mono_ms, actor, clause, kind, body)"
    )]
    UnknownField(String),
    #[error("format version {0} is not supported (this kit reads version {FORMAT_VERSION})")]
    Version(u64),
    #[error(
        "line is valid JSON but not in the canonical v1 form (key order, spacing or escapes differ)"
    )]
    NotCanonical,
    #[error(
        "line is longer than the {limit} bytes a log line may hold (no entry the kit writes is): nothing after it is read"
    )]
    TooLong { limit: usize },
}

/// Lowercase hex of a hash.
pub fn hex32(h: &[u8; 32]) -> String {
    hex::encode(h)
}

/// Decode 64 lowercase hex digits.
pub fn decode_hash(s: &str) -> Option<[u8; 32]> {
    if s.len() != 64
        || !s
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return None;
    }
    let mut out = [0u8; 32];
    hex::decode_to_slice(s, &mut out).ok()?;
    Some(out)
}

/// The canonical UTC text of a line: RFC 3339, milliseconds, `Z`.
pub fn format_utc(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn json_str(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

/// The bytes of line `seq` (without the newline).
pub fn encode_line(seq: u64, prev: &[u8; 32], e: &NewEntry) -> Vec<u8> {
    encode_parts(
        seq,
        &hex32(prev),
        &format_utc(&e.utc),
        e.mono_ms,
        &e.actor,
        &e.clause,
        &e.kind,
        &e.body,
    )
}

#[allow(clippy::too_many_arguments)]
fn encode_parts(
    seq: u64,
    prev: &str,
    utc: &str,
    mono_ms: u64,
    actor: &str,
    clause: &str,
    kind: &str,
    body: &Value,
) -> Vec<u8> {
    format!(
        "{{\"v\":{FORMAT_VERSION},\"seq\":{seq},\"prev\":{},\"utc\":{},\"mono_ms\":{mono_ms},\"actor\":{},\"clause\":{},\"kind\":{},\"body\":{}}}",
        json_str(prev),
        json_str(utc),
        json_str(actor),
        json_str(clause),
        json_str(kind),
        body
    )
    .into_bytes()
}

/// `E = SHA-256(0x00 || line)`, the RFC 6962 leaf hash of the line bytes.
pub fn entry_hash(line: &[u8]) -> [u8; 32] {
    merkle::leaf_hash(line)
}

/// SHA-256 of arbitrary bytes (used for side files and profiles).
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

fn take_str(
    obj: &mut serde_json::Map<String, Value>,
    field: &'static str,
) -> Result<String, LineError> {
    match obj.remove(field) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(LineError::Field {
            field,
            problem: "must be a string".into(),
        }),
        None => Err(LineError::Field {
            field,
            problem: "missing".into(),
        }),
    }
}

fn take_u64(
    obj: &mut serde_json::Map<String, Value>,
    field: &'static str,
) -> Result<u64, LineError> {
    match obj.remove(field) {
        Some(Value::Number(n)) => n.as_u64().ok_or(LineError::Field {
            field,
            problem: "must be a non-negative integer".into(),
        }),
        Some(_) => Err(LineError::Field {
            field,
            problem: "must be a number".into(),
        }),
        None => Err(LineError::Field {
            field,
            problem: "missing".into(),
        }),
    }
}

/// Parse one line (without its newline) found at `offset`. Strict: duplicate keys, missing or
/// unknown fields, wrong types, a non-canonical encoding, a BOM, CR or NUL are refused.
pub fn parse_line(line: &[u8], offset: u64) -> Result<Entry, LineError> {
    if line.is_empty() {
        return Err(LineError::Empty);
    }
    if line.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(LineError::Bom);
    }
    if line.ends_with(b"\r") {
        return Err(LineError::CarriageReturn);
    }
    if line.contains(&0) {
        return Err(LineError::ZeroBytes);
    }
    if line.first() != Some(&b'{') || line.last() != Some(&b'}') {
        return Err(LineError::NotAnObject);
    }
    let value = strict::from_slice(line).map_err(|e| LineError::Json(e.to_string()))?;
    let Value::Object(mut obj) = value else {
        return Err(LineError::NotAnObject);
    };
    if let Some(k) = obj.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(LineError::UnknownField(k.clone()));
    }
    let v = take_u64(&mut obj, "v")?;
    if v != u64::from(FORMAT_VERSION) {
        return Err(LineError::Version(v));
    }
    let seq = take_u64(&mut obj, "seq")?;
    let prev = take_str(&mut obj, "prev")?;
    if decode_hash(&prev).is_none() {
        return Err(LineError::Field {
            field: "prev",
            problem: "must be 64 lowercase hex digits".into(),
        });
    }
    let utc = take_str(&mut obj, "utc")?;
    match DateTime::parse_from_rfc3339(&utc) {
        Ok(t) if format_utc(&t.with_timezone(&Utc)) == utc => {}
        _ => {
            return Err(LineError::Field {
                field: "utc",
                problem: "must be RFC 3339 UTC with milliseconds, e.g. 2003-01-26T15:00:00.000Z"
                    .into(),
            });
        }
    }
    let mono_ms = take_u64(&mut obj, "mono_ms")?;
    let actor = take_str(&mut obj, "actor")?;
    if !ACTORS.contains(&actor.as_str()) {
        return Err(LineError::Field {
            field: "actor",
            problem: format!("{actor:?} is not one of {ACTORS:?}"),
        });
    }
    let clause = take_str(&mut obj, "clause")?;
    let kind = take_str(&mut obj, "kind")?;
    if kind.is_empty() {
        return Err(LineError::Field {
            field: "kind",
            problem: "must not be empty".into(),
        });
    }
    let body = obj.remove("body").ok_or(LineError::Field {
        field: "body",
        problem: "missing".into(),
    })?;
    if encode_parts(seq, &prev, &utc, mono_ms, &actor, &clause, &kind, &body) != line {
        return Err(LineError::NotCanonical);
    }
    Ok(Entry {
        v: FORMAT_VERSION,
        seq,
        prev,
        utc,
        mono_ms,
        actor,
        clause,
        kind,
        body,
        hash: entry_hash(line),
        offset,
        len: line.len() as u64,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> NewEntry {
        NewEntry {
            mono_ms: 1234,
            utc: DateTime::parse_from_rfc3339("2003-01-26T15:00:00.5Z")
                .unwrap()
                .with_timezone(&Utc),
            actor: "arbiter".into(),
            clause: "6c".into(),
            kind: "clock_corrected".into(),
            body: json!({"b": [1, 2.5, "é\n"], "a": null}),
        }
    }

    #[test]
    fn round_trip_and_key_order() {
        let line = encode_line(3, &[0xab; 32], &sample());
        let text = String::from_utf8(line.clone()).unwrap();
        assert!(
            text.starts_with("{\"v\":1,\"seq\":3,\"prev\":\"abab"),
            "{text}"
        );
        assert!(text.contains(
            "\"utc\":\"2003-01-26T15:00:00.500Z\",\"mono_ms\":1234,\"actor\":\"arbiter\""
        ));
        let e = parse_line(&line, 7).unwrap();
        assert_eq!(e.seq, 3);
        assert_eq!(e.body, sample().body);
        assert_eq!(e.hash, entry_hash(&line));
        assert_eq!((e.offset, e.len), (7, line.len() as u64));
    }

    #[test]
    fn refusals() {
        let line = encode_line(0, &ZERO_HASH, &sample());
        let s = String::from_utf8(line.clone()).unwrap();
        let dup = s.replacen("\"kind\":", "\"kind\":\"x\",\"kind\":", 1);
        assert!(
            matches!(parse_line(dup.as_bytes(), 0), Err(LineError::Json(m)) if m.contains("duplicate"))
        );
        let nested = s.replacen("\"a\":null", "\"a\":null,\"a\":1", 1);
        assert!(
            matches!(parse_line(nested.as_bytes(), 0), Err(LineError::Json(m)) if m.contains("duplicate"))
        );
        let spaced = s.replacen("\"seq\":0", "\"seq\": 0", 1);
        assert_eq!(
            parse_line(spaced.as_bytes(), 0),
            Err(LineError::NotCanonical)
        );
        let missing = s.replacen("\"clause\":\"6c\",", "", 1);
        assert!(matches!(
            parse_line(missing.as_bytes(), 0),
            Err(LineError::Field {
                field: "clause",
                ..
            })
        ));
        let wrong = s.replacen("\"mono_ms\":1234", "\"mono_ms\":\"1234\"", 1);
        assert!(matches!(
            parse_line(wrong.as_bytes(), 0),
            Err(LineError::Field {
                field: "mono_ms",
                ..
            })
        ));
        let mut crlf = line.clone();
        crlf.push(b'\r');
        assert_eq!(parse_line(&crlf, 0), Err(LineError::CarriageReturn));
        let mut bom = vec![0xEF, 0xBB, 0xBF];
        bom.extend_from_slice(&line);
        assert_eq!(parse_line(&bom, 0), Err(LineError::Bom));
        assert_eq!(parse_line(b"", 0), Err(LineError::Empty));
        assert_eq!(parse_line(b"\0\0\0", 0), Err(LineError::ZeroBytes));
        let v2 = s.replacen("\"v\":1", "\"v\":2", 1);
        assert_eq!(parse_line(v2.as_bytes(), 0), Err(LineError::Version(2)));
        let extra = s.replacen("\"body\":", "\"zz\":1,\"body\":", 1);
        assert!(matches!(
            parse_line(extra.as_bytes(), 0),
            Err(LineError::UnknownField(_))
        ));
    }
}
