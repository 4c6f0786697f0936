//! Script files: one command per line, `OFFSET COMMAND`, where OFFSET is the time since the
//! game's start (`1:23:45.500` or seconds) and COMMAND is in the Board UI's words. `#` starts a
//! comment. Used for rehearsals, replays of past games, and tests.
use super::Ms;
use super::command::{Command, parse};
use super::timefmt::parse_duration;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptLine {
    pub line: usize,
    pub at: Ms,
    pub text: String,
    pub command: Command,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ScriptError {
    pub line: usize,
    pub message: String,
}

/// The largest offset a script may give: 30 days (a game lasts hours; a larger number is a typo,
/// and would overflow the wall-clock arithmetic).
pub const MAX_OFFSET_MS: Ms = 30 * 24 * 3600 * 1000;

/// Parse a whole script. Offsets must not go backwards. A UTF-8 byte-order mark is skipped, and
/// CR LF or bare CR line ends are read as line ends.
pub fn parse_script(text: &str) -> Result<Vec<ScriptLine>, ScriptError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let normalized;
    let text = if text.contains('\r') {
        normalized = text.replace("\r\n", "\n").replace('\r', "\n");
        normalized.as_str()
    } else {
        text
    };
    let mut out = Vec::new();
    let mut last: Ms = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let body = match raw.find('#') {
            Some(p) => &raw[..p],
            None => raw,
        }
        .trim();
        if body.is_empty() {
            continue;
        }
        let (offset, cmd) = body
            .split_once(char::is_whitespace)
            .ok_or_else(|| ScriptError {
                line,
                message: format!("'{body}': a line is OFFSET COMMAND"),
            })?;
        let at = parse_duration(offset).map_err(|message| ScriptError { line, message })?;
        if at > MAX_OFFSET_MS {
            return Err(ScriptError {
                line,
                message: format!(
                    "offset {offset} is beyond 30 days after the start: a game does not last that long"
                ),
            });
        }
        if at < last {
            return Err(ScriptError {
                line,
                message: format!("offset {offset} goes back in time"),
            });
        }
        last = at;
        let command = parse(cmd.trim()).map_err(|message| ScriptError { line, message })?;
        out.push(ScriptLine {
            line,
            at,
            text: cmd.trim().to_string(),
            command,
        });
    }
    Ok(out)
}
