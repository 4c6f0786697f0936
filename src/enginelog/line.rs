//! Reading lines with a length cap, and taking a line's frame apart: an optional time stamp, an
//! optional direction (to or from the engine), and the protocol text.

use super::LogFormat;
use std::io::{self, BufRead};

/// Read one line into `buf` (line end removed), keeping at most `cap` bytes of it.
/// Returns `None` at end of input, else whether the line was cut.
pub(crate) fn read_line_capped<R: BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    cap: usize,
) -> io::Result<Option<bool>> {
    buf.clear();
    let mut truncated = false;
    let mut any = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (part, used, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        let room = cap.saturating_sub(buf.len());
        if part.len() > room {
            truncated = true;
        }
        buf.extend_from_slice(&part[..part.len().min(room)]);
        reader.consume(used);
        if done {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(truncated))
}

/// Who wrote a framed line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    /// Read by the engine (written by the GUI / operator).
    ToEngine,
    /// Written by the engine.
    FromEngine,
}

/// A line with its frame taken off.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Framed<'a> {
    /// Milliseconds of the time stamp (since midnight for clock-style stamps).
    pub stamp_ms: Option<u64>,
    pub dir: Option<Dir>,
    pub text: &'a str,
}

/// Take the frame off a raw line.
pub(crate) fn frame(raw: &str) -> Framed<'_> {
    let trimmed = raw.trim_start_matches('\u{feff}');
    let (stamp_ms, rest) = match strip_stamp(trimmed) {
        Some((ms, rest)) => (Some(ms), rest),
        None => (None, trimmed),
    };
    match strip_dir(rest) {
        Some((dir, text)) => Framed {
            stamp_ms,
            dir: Some(dir),
            text: text.trim(),
        },
        None => match stamp_ms {
            // An integer "stamp" without a direction is not a stamp (CECP thinking lines start
            // with integers); clock-style stamps stand on their own.
            Some(_) if !is_clock_stamp(trimmed) => Framed {
                stamp_ms: None,
                dir: None,
                text: trimmed.trim(),
            },
            _ => Framed {
                stamp_ms,
                dir: None,
                text: rest.trim(),
            },
        },
    }
}

fn is_clock_stamp(s: &str) -> bool {
    let s = s.strip_prefix('[').unwrap_or(s);
    s.as_bytes().get(2) == Some(&b':')
}

/// `hh:mm:ss[.fff]`, `[hh:mm:ss[.fff]]` or a plain integer of milliseconds, then white space.
fn strip_stamp(s: &str) -> Option<(u64, &str)> {
    let (inner, rest) = if let Some(body) = s.strip_prefix('[') {
        let end = body.find(']')?;
        (&body[..end], &body[end + 1..])
    } else {
        let end = s.find(char::is_whitespace)?;
        (&s[..end], &s[end..])
    };
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let ms = parse_clock(inner).or_else(|| {
        if !inner.is_empty() && inner.len() <= 15 && inner.bytes().all(|b| b.is_ascii_digit()) {
            inner.parse().ok()
        } else {
            None
        }
    })?;
    Some((ms, rest.trim_start()))
}

/// `hh:mm:ss` with an optional fraction, to milliseconds.
fn parse_clock(s: &str) -> Option<u64> {
    let mut parts = s.split(':');
    let h = parts.next()?;
    let m = parts.next()?;
    let sec = parts.next()?;
    if parts.next().is_some() || h.len() != 2 || m.len() != 2 {
        return None;
    }
    let (whole, frac) = match sec.split_once(['.', ',']) {
        Some((w, f)) => (w, f),
        None => (sec, ""),
    };
    if whole.len() != 2 || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let h: u64 = digits(h)?;
    let m: u64 = digits(m)?;
    let s: u64 = digits(whole)?;
    if h > 23 || m > 59 || s > 60 {
        return None;
    }
    let mut frac_ms = 0u64;
    for (i, b) in frac.bytes().take(3).enumerate() {
        frac_ms += u64::from(b - b'0') * [100, 10, 1][i];
    }
    Some(((h * 60 + m) * 60 + s) * 1000 + frac_ms)
}

fn digits(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `>> text`, `<< text`, `>Name(0): text`, `<first : text`.
fn strip_dir(s: &str) -> Option<(Dir, &str)> {
    if let Some(rest) = s.strip_prefix(">>") {
        return (rest.is_empty() || rest.starts_with(' ')).then_some((Dir::ToEngine, rest));
    }
    if let Some(rest) = s.strip_prefix("<<") {
        return (rest.is_empty() || rest.starts_with(' ')).then_some((Dir::FromEngine, rest));
    }
    let dir = match s.as_bytes().first() {
        Some(b'>') => Dir::ToEngine,
        Some(b'<') => Dir::FromEngine,
        _ => return None,
    };
    let body = &s[1..];
    let colon = body.find(':')?;
    let name = &body[..colon];
    if name.trim().is_empty()
        || name.len() > 80
        || name.starts_with(' ')
        || name.contains(['<', '>'])
    {
        return None;
    }
    let rest = &body[colon + 1..];
    (rest.is_empty() || rest.starts_with(' ')).then_some((dir, rest))
}

/// The format a line can only come from, if any.
pub(crate) fn decisive(f: &Framed<'_>) -> Option<LogFormat> {
    let mut words = f.text.split_whitespace();
    let first = words.next()?;
    let second = words.next();
    let uci = match first {
        "uci" | "uciok" | "readyok" | "isready" | "ucinewgame" | "ponderhit" => second.is_none(),
        "setoption" => second == Some("name"),
        "id" => matches!(second, Some("name" | "author")),
        "option" => second == Some("name"),
        "bestmove" => second.is_some(),
        "position" => matches!(second, Some("startpos" | "fen")),
        "go" => second.is_some_and(|w| super::uci::GO_WORDS.contains(&w)),
        "info" => second.is_some_and(|w| super::uci::INFO_KEYS.contains(&w)),
        _ => false,
    };
    if uci {
        return Some(if f.dir.is_some() {
            LogFormat::UciDebug
        } else {
            LogFormat::UciTraffic
        });
    }
    let cecp = match first {
        "xboard" | "force" | "post" | "nopost" | "hard" | "easy" => second.is_none(),
        "protover" | "otim" | "sd" | "st" | "level" => second.is_some(),
        "time" => second.is_some_and(|w| w.parse::<u64>().is_ok()),
        "usermove" | "setboard" | "feature" | "tellics" | "telluser" | "Hint:" => second.is_some(),
        "move" => second.is_some() && words.next().is_none(),
        _ => super::cecp::parse_thinking(f.text).is_some(),
    };
    cecp.then_some(LogFormat::Cecp)
}
