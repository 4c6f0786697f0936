//! The arbiter's control channel of a headless table (SHELL): one command a line, read from
//! standard input (`-`) or a FIFO, each handed to the game loop, which turns it into the core's
//! arbiter act (and so an entry citing its section):
//!
//! ```text
//! pause REASON          a technical break: no deadline runs
//! resume
//! note TEXT
//! eject SEAT REASON     SEAT: the seat's NAME (kanolab3) or its number from 1
//! readmit SEAT
//! end WINNER REASON     WINNER: VILLAGER, WEREWOLF or NONE
//! ```
//! Blank lines and lines starting with `#` are ignored. A board game's side (white, black, sente,
//! gote) is refused where a seat or a winner is named: a werewolf table has neither.
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;

use super::net::Msg;

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

/// Read control lines from `source` (`-`: standard input; otherwise a file or FIFO, reopened
/// at each end so that several writers may come one after another) on a thread of its own.
pub fn spawn_reader(source: PathBuf, tx: Sender<Msg>) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("control".into())
        .spawn(move || {
            if source == Path::new("-") {
                let stdin = std::io::stdin();
                feed(stdin.lock(), &tx);
                return;
            }
            let fifo = std::fs::metadata(&source)
                .map(|m| std::os::unix::fs::FileTypeExt::is_fifo(&m.file_type()))
                .unwrap_or(false);
            loop {
                let Ok(f) = std::fs::File::open(&source) else {
                    return;
                };
                if !feed(std::io::BufReader::new(f), &tx) || !fifo {
                    return;
                }
            }
        })
        .map(|_| ())
}

/// Send every line of `r`; `false` once the game loop is gone.
fn feed(r: impl BufRead, tx: &Sender<Msg>) -> bool {
    for line in r.lines() {
        let Ok(line) = line else {
            return true;
        };
        if tx.send(Msg::Control(line)).is_err() {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn control_lines_parse_to_commands() {
        assert_eq!(
            parse("pause power cut in hall B").unwrap(),
            Some(Command::Pause {
                reason: "power cut in hall B".into()
            })
        );
        assert_eq!(parse("resume").unwrap(), Some(Command::Resume));
        assert_eq!(
            parse("eject kanolab3 abusive talk").unwrap(),
            Some(Command::Eject {
                seat: "kanolab3".into(),
                reason: "abusive talk".into()
            })
        );
        assert_eq!(
            parse("end NONE server fault").unwrap(),
            Some(Command::End {
                winner: "NONE".into(),
                reason: "server fault".into()
            })
        );
        assert_eq!(parse("  # a comment").unwrap(), None);
        assert_eq!(
            parse("eject kanolab3"),
            Err(ControlError::Missing("eject", "a reason after the seat"))
        );
        assert_eq!(
            parse("end villagers because"),
            Err(ControlError::Winner("villagers".into()))
        );
        assert!(matches!(parse("halt"), Err(ControlError::Unknown(_))));
    }

    #[test]
    fn control_lines_refuse_a_board_games_sides() {
        for line in [
            "eject white abusive talk",
            "eject Black abusive talk",
            "readmit white",
            "readmit 後手",
            "end WHITE the arbiter rules",
            "end black the arbiter rules",
            "end sente the arbiter rules",
        ] {
            let e = parse(line).unwrap_err();
            assert!(matches!(e, ControlError::BoardSide(..)), "{line}: {e:?}");
            let said = e.to_string();
            assert!(
                said.contains("a werewolf table has no white or black"),
                "{said}"
            );
        }
        assert_eq!(
            parse("end white because").unwrap_err().to_string(),
            "\"white\" is a board game's side: a werewolf table has no white or black; `end` names the winning team: VILLAGER, WEREWOLF or NONE"
        );
        assert_eq!(
            parse("eject white abusive").unwrap_err().to_string(),
            "\"white\" is a board game's side: a werewolf table has no white or black; `eject` names a seat by its NAME (kanolab3) or its number from 1"
        );
        // A seat's own name is still a seat.
        assert!(parse("eject whitehall abusive").is_ok());
    }
}
