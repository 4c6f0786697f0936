//! Script files: one command per line, `OFFSET COMMAND`, where OFFSET is the time since the
//! game's start (`1:23:45.500` or seconds) and COMMAND is in the Board UI's words. `#` starts a
//! comment. Used for rehearsals, replays of past games, and tests.
use super::Ms;
use super::command::{Command, CommandError, parse};
use super::timefmt::{TimeError, parse_duration};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptLine {
    pub line: usize,
    pub at: Ms,
    pub text: String,
    pub command: Command,
}

/// A script that cannot be run: the line and what is wrong with it. Nothing of it is run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct ScriptError {
    pub line: usize,
    pub problem: ScriptProblem,
}

/// What is wrong with one line of a script.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScriptProblem {
    #[error(transparent)]
    Comment(#[from] CommentError),
    #[error("'{0}': a line is OFFSET COMMAND")]
    NotOffsetCommand(String),
    #[error(transparent)]
    Offset(#[from] TimeError),
    #[error("offset {0} is beyond 30 days after the start: a game does not last that long")]
    TooFar(String),
    #[error("offset {0} goes back in time")]
    BackInTime(String),
    #[error(transparent)]
    Command(#[from] CommandError),
}

/// A `#` inside a word: it would cut the text where a comment cannot start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{0}': a # inside the text would cut it; a comment is '# ' after a space, and \\# keeps a # in the text"
)]
pub struct CommentError(pub String);

/// The largest offset a script may give: 30 days (a game lasts hours; a larger number is a typo,
/// and would overflow the wall-clock arithmetic).
pub const MAX_OFFSET_MS: Ms = 30 * 24 * 3600 * 1000;

/// A line without its comment. A comment is `#` at the start of the line or after a space,
/// followed by a space or the end of the line (`# 8a`); a word ending in `#` keeps it (a mate in
/// SAN); any other `#` is refused rather than silently cutting the text (`game #3` would
/// otherwise be recorded as `game`), and `\#` keeps a literal `#` in the text.
pub fn strip_comment(raw: &str) -> Result<String, CommentError> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if chars.peek().map(|(_, n)| *n) == Some('#') => {
                out.push('#');
                chars.next();
            }
            '#' => {
                let after = raw[i + 1..].chars().next().is_none_or(char::is_whitespace);
                let before = raw[..i].chars().next_back().is_none_or(char::is_whitespace);
                match (before, after) {
                    // `# …` after a space or at the start: a comment.
                    (true, true) => return Ok(out),
                    // A word ending in `#` (a mate in SAN, `Qxf7#`): kept.
                    (false, true) => out.push('#'),
                    _ => {
                        let start = raw[..i].rfind(char::is_whitespace).map_or(0, |p| p + 1);
                        let word = raw[start..].split_whitespace().next().unwrap_or("#");
                        return Err(CommentError(word.to_string()));
                    }
                }
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

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
        let fail = |problem: ScriptProblem| ScriptError { line, problem };
        let kept = strip_comment(raw).map_err(|e| fail(e.into()))?;
        let body = kept.trim();
        if body.is_empty() {
            continue;
        }
        let (offset, cmd) = body
            .split_once(char::is_whitespace)
            .ok_or_else(|| fail(ScriptProblem::NotOffsetCommand(body.to_string())))?;
        let at = parse_duration(offset).map_err(|e| fail(e.into()))?;
        if at > MAX_OFFSET_MS {
            return Err(fail(ScriptProblem::TooFar(offset.to_string())));
        }
        if at < last {
            return Err(fail(ScriptProblem::BackInTime(offset.to_string())));
        }
        last = at;
        let command = parse(cmd.trim()).map_err(|e| fail(e.into()))?;
        out.push(ScriptLine {
            line,
            at,
            text: cmd.trim().to_string(),
            command,
        });
    }
    Ok(out)
}
