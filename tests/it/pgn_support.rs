//! Test helpers: read the real game of `../shared/data/stockfish-game/` and take a PGN apart
//! (tags, SAN moves, `%clk` / `%emt` comments). Just enough PGN for these tests.

use std::path::PathBuf;

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

/// `../shared/data/stockfish-game/<name>`, relative to the crate root; a clear error if absent.
pub fn real_data(name: &str) -> Result<PathBuf, String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/stockfish-game");
    let path = dir.join(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "real test data missing: {} (the repository must be cloned next to shared/, \
             with shared/data/stockfish-game/{name})",
            path.display()
        ))
    }
}

pub fn read_real(name: &str) -> Result<String, String> {
    let path = real_data(name)?;
    std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
}

/// One move of a PGN with its clock comment.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedMove {
    pub san: String,
    /// `%clk`, in milliseconds.
    pub clk_ms: Option<u64>,
    /// `%emt`, in milliseconds.
    pub emt_ms: Option<u64>,
    /// The other comments after the move (clock lines of their own: take-backs, penalties…).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedPgn {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<ParsedMove>,
    pub result: Option<String>,
    /// Comments before the first move.
    pub leading: Vec<String>,
}

impl ParsedPgn {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `h:mm:ss[.f]` or a plain number of seconds, to milliseconds.
pub fn clock_ms(text: &str) -> Option<u64> {
    let mut total = 0f64;
    for part in text.split(':') {
        total = total * 60.0 + part.parse::<f64>().ok()?;
    }
    Some((total * 1000.0).round() as u64)
}

fn command(comment: &str, name: &str) -> Option<u64> {
    let at = comment.find(&format!("[%{name} "))?;
    let rest = &comment[at + name.len() + 3..];
    let end = rest.find(']')?;
    clock_ms(rest[..end].trim())
}

pub fn parse_pgn(text: &str) -> Result<ParsedPgn, String> {
    let mut out = ParsedPgn::default();
    let mut movetext = String::new();
    for line in text.lines() {
        let l = line.trim();
        if let Some(body) = l.strip_prefix('[').and_then(|b| b.strip_suffix(']')) {
            let (name, value) = body.split_once(' ').ok_or(format!("bad tag {l}"))?;
            let value = value
                .trim()
                .trim_matches('"')
                .replace("\\\"", "\"")
                .replace("\\\\", "\\");
            out.tags.push((name.to_owned(), value));
        } else {
            movetext.push_str(l);
            movetext.push('\n');
        }
    }
    let mut rest = movetext.as_str();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        if let Some(body) = rest.strip_prefix('{') {
            let end = body.find('}').ok_or("unclosed comment")?;
            let comment = &body[..end];
            rest = &body[end + 1..];
            let Some(last) = out.moves.last_mut() else {
                out.leading.push(comment.to_owned());
                continue;
            };
            let (clk, emt) = (command(comment, "clk"), command(comment, "emt"));
            if clk.is_none() && emt.is_none() {
                last.notes
                    .push(comment.split_whitespace().collect::<Vec<_>>().join(" "));
            } else {
                last.clk_ms = last.clk_ms.or(clk);
                last.emt_ms = last.emt_ms.or(emt);
            }
            continue;
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '{')
            .unwrap_or(rest.len());
        let token = &rest[..end];
        rest = &rest[end..];
        if matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*") {
            out.result = Some(token.to_owned());
            continue;
        }
        let san = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if san.is_empty() {
            continue;
        }
        out.moves.push(ParsedMove {
            san: san.to_owned(),
            clk_ms: None,
            emt_ms: None,
            notes: Vec::new(),
        });
    }
    Ok(out)
}
