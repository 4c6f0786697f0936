//! Durations as people write them: `1:23:45.500`, `23:45`, `5025.5` (seconds), `+60`, `-1:00`.
use super::Ms;

/// A duration that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeError {
    /// Not in any of the written forms (or out of range for them).
    #[error("'{0}' is not a time (use h:mm:ss[.fff], m:ss or seconds)")]
    NotATime(String),
    /// A signed duration beyond what milliseconds in an `i64` hold.
    #[error("'{0}' is too large")]
    TooLarge(String),
}

/// Parse an unsigned duration into milliseconds.
pub fn parse_duration(s: &str) -> Result<Ms, TimeError> {
    let bad = || TimeError::NotATime(s.to_string());
    if s.is_empty() || s.starts_with('+') || s.starts_with('-') {
        return Err(bad());
    }
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() > 3 {
        return Err(bad());
    }
    let (last, whole) = parts.split_last().ok_or_else(bad)?;
    let mut total: u64 = 0;
    for (i, p) in whole.iter().enumerate() {
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let v: u64 = p.parse().map_err(|_| bad())?;
        if i > 0 && v >= 60 {
            return Err(bad());
        }
        total = total
            .checked_mul(60)
            .and_then(|t| t.checked_add(v))
            .ok_or_else(bad)?;
    }
    let (sec, frac) = match last.split_once('.') {
        Some((a, b)) => (a, b),
        None => (*last, ""),
    };
    if sec.is_empty()
        || !sec.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 3
    {
        return Err(bad());
    }
    let secs: u64 = sec.parse().map_err(|_| bad())?;
    if !whole.is_empty() && secs >= 60 {
        return Err(bad());
    }
    let mut ms: u64 = 0;
    for (i, b) in frac.bytes().enumerate() {
        ms += u64::from(b - b'0') * [100, 10, 1][i];
    }
    total
        .checked_mul(60)
        .map(|t| if whole.is_empty() { 0 } else { t })
        .and_then(|t| t.checked_add(secs))
        .and_then(|t| t.checked_mul(1000))
        .and_then(|t| t.checked_add(ms))
        .ok_or_else(bad)
}

/// Parse a signed duration (`+60`, `-1:00`, `90`).
pub fn parse_signed(s: &str) -> Result<i64, TimeError> {
    let (sign, rest) = match s.as_bytes().first() {
        Some(b'-') => (-1i64, &s[1..]),
        Some(b'+') => (1, &s[1..]),
        _ => (1, s),
    };
    let v = parse_duration(rest)?;
    i64::try_from(v)
        .map(|v| v * sign)
        .map_err(|_| TimeError::TooLarge(s.to_string()))
}

/// `h:mm:ss` for a clock face, rounding down (a clock shows a second as long as any of it is left).
pub fn clock(ms: i64) -> String {
    if ms < 0 {
        return format!("-{}", clock_abs(ms.unsigned_abs().div_ceil(1000) * 1000));
    }
    clock_abs(ms as u64)
}

fn clock_abs(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
}

/// `h:mm:ss.fff` exactly.
pub fn exact(ms: Ms) -> String {
    let s = ms / 1000;
    format!(
        "{}:{:02}:{:02}.{:03}",
        s / 3600,
        (s / 60) % 60,
        s % 60,
        ms % 1000
    )
}

/// `m:ss` for short countdowns.
pub fn short(ms: i64) -> String {
    let neg = ms < 0;
    let s = ms.unsigned_abs().div_ceil(1000);
    format!("{}{}:{:02}", if neg { "-" } else { "" }, s / 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn parses_all_forms() {
        assert_eq!(parse_duration("1:23:45.500"), Ok(5_025_500));
        assert_eq!(parse_duration("5025.5"), Ok(5_025_500));
        assert_eq!(parse_duration("2:00"), Ok(120_000));
        assert_eq!(parse_duration("0"), Ok(0));
        assert!(parse_duration("1:60:00").is_err());
        assert!(parse_duration("1:2:3:4").is_err());
        assert!(parse_duration("abc").is_err());
        assert!(parse_duration("1.2345").is_err());
        assert_eq!(parse_signed("-1:00"), Ok(-60_000));
        assert_eq!(parse_signed("+600"), Ok(600_000));
    }
    #[test]
    fn formats_clock_faces() {
        assert_eq!(clock(7_200_000), "2:00:00");
        assert_eq!(clock(7_199_999), "1:59:59");
        assert_eq!(clock(-1), "-0:00:01");
        assert_eq!(exact(5_025_500), "1:23:45.500");
        assert_eq!(short(119_001), "2:00");
    }
}
