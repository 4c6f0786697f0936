//! The arbiter's control lines of a werewolf table (`pause REASON`, `eject SEAT REASON`, …):
//! parsed, and read as the core's acts with the seats named as the table lists them.
use super::{Act, Winner};

/// One control line, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Pause { reason: String },
    Resume,
    Note { text: String },
    Eject { seat: String, reason: String },
    Readmit { seat: String },
    End { winner: String, reason: String },
}

/// A control line that is not a command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    #[error("unknown control command {0:?} (pause, resume, note, eject, readmit, end)")]
    Unknown(String),
    #[error("`{0}` needs {1}")]
    Missing(&'static str, &'static str),
    #[error("`end` names the winner as VILLAGER, WEREWOLF or NONE, not {0:?}")]
    Winner(String),
    /// A board game's side (white, black, sente, gote) where a werewolf table names a seat or
    /// a winning team.
    #[error(
        "{0:?} is a board game's side: a werewolf table has no white or black; `{1}` names {2}"
    )]
    BoardSide(String, &'static str, &'static str),
}

/// A board game's side, in any case: chess's and shogi's words.
fn board_side(word: &str) -> bool {
    matches!(
        word.to_lowercase().as_str(),
        "white" | "black" | "sente" | "gote" | "先手" | "後手"
    )
}

const SEAT: &str = "a seat by its NAME (kanolab3) or its number from 1";

/// Parse one line; `Ok(None)` for a blank line or a comment.
pub fn parse(line: &str) -> Result<Option<Command>, ControlError> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let (verb, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim();
    let (first, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let tail = tail.trim().to_string();
    let need = |v: &'static str, what: &'static str, s: &str| {
        if s.is_empty() {
            Err(ControlError::Missing(v, what))
        } else {
            Ok(())
        }
    };
    Ok(Some(match verb {
        "pause" => {
            need("pause", "a reason", rest)?;
            Command::Pause {
                reason: rest.to_string(),
            }
        }
        "resume" => Command::Resume,
        "note" => {
            need("note", "a text", rest)?;
            Command::Note {
                text: rest.to_string(),
            }
        }
        "eject" | "readmit" if board_side(first) => {
            return Err(ControlError::BoardSide(
                first.to_string(),
                if verb == "eject" { "eject" } else { "readmit" },
                SEAT,
            ));
        }
        "end" if board_side(first) => {
            return Err(ControlError::BoardSide(
                first.to_string(),
                "end",
                "the winning team: VILLAGER, WEREWOLF or NONE",
            ));
        }
        "eject" => {
            need("eject", "a seat and a reason", first)?;
            need("eject", "a reason after the seat", &tail)?;
            Command::Eject {
                seat: first.to_string(),
                reason: tail,
            }
        }
        "readmit" => {
            need("readmit", "a seat", first)?;
            Command::Readmit {
                seat: first.to_string(),
            }
        }
        "end" => {
            need("end", "a winner and a reason", first)?;
            if !matches!(first, "VILLAGER" | "WEREWOLF" | "NONE") {
                return Err(ControlError::Winner(first.to_string()));
            }
            need("end", "a reason after the winner", &tail)?;
            Command::End {
                winner: first.to_string(),
                reason: tail,
            }
        }
        other => return Err(ControlError::Unknown(other.to_string())),
    }))
}

/// A seat named by a control line: its NAME, or its number from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no seat {0:?} at this table (name a seat by its NAME answer, or its number from 1 as N or #N)"
)]
pub struct NoSeat(pub String);

/// The seat a control line names among seats named `names` (in seat order).
pub fn seat_in(name: &str, names: &[&str]) -> Result<usize, NoSeat> {
    let seats = names;
    // `#N`: the seat numbered N, whatever the seats' names.
    if let Some(n) = name.strip_prefix('#') {
        return match n.parse::<usize>() {
            Ok(n) if (1..=seats.len()).contains(&n) => Ok(n - 1),
            _ => Err(NoSeat(name.to_string())),
        };
    }
    if let Some(i) = seats.iter().position(|s| *s == name) {
        return Ok(i);
    }
    match name.parse::<usize>() {
        Ok(n) if (1..=seats.len()).contains(&n) => Ok(n - 1),
        _ => Err(NoSeat(name.to_string())),
    }
}

/// The act a control command names, seats named as the table lists them (in seat order).
pub fn act_of_names(cmd: &Command, names: &[&str]) -> Result<Act, NoSeat> {
    use Command as C;
    Ok(match cmd {
        C::Pause { reason } => Act::Pause {
            reason: reason.clone(),
        },
        C::Resume => Act::Resume,
        C::Note { text } => Act::Note { text: text.clone() },
        C::Eject { seat, reason } => Act::Eject {
            seat: seat_in(seat, names)?,
            reason: reason.clone(),
        },
        C::Readmit { seat } => Act::Readmit {
            seat: seat_in(seat, names)?,
        },
        C::End { winner, reason } => Act::End {
            winner: match winner.as_str() {
                "VILLAGER" => Winner::Villager,
                "WEREWOLF" => Winner::Werewolf,
                _ => Winner::None,
            },
            reason: reason.clone(),
        },
    })
}
