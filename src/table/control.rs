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
//! Blank lines and lines starting with `#` are ignored. A SEAT written `#N` is the seat numbered
//! N from 1, whatever the seats' names. A board game's side (white, black, sente, gote) is
//! refused where a seat or a winner is named: a werewolf table has neither.
//!
//! While `serve` runs, the same commands also come from the game master's screen (`arbiter play
//! --match DIR`, or `serve`'s own screen) through the match folder's owner-only Unix socket
//! `DIR/control.sock` ([`bind`], [`send`]): one JSON request a connection
//! (`{"game": N, "line": "pause power cut"}`, with `approval` — how the screen approved it,
//! as the `approved` entry records it; one signed with a key is checked against the match's
//! arbiter key first, and one that does not hold is refused and recorded as an
//! `authorization_failed` entry naming why — or `failed` — a wrong passphrase typed for it,
//! recorded as an `authorization_failed` entry), one JSON answer, given once the act's entries are
//! written and fdatasynced, or once it is refused (`{"recorded": false, "text": "…"}`). The
//! socket is a file of the match folder (0600 in the 0700 folder), not a network connection:
//! whoever may write the match folder may already hand the table its acts through `--control`.
use std::io::{BufRead, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::time::Duration;

use super::net::Msg;
use crate::record::layout;

pub use crate::core::werewolf::control_line::{Command, ControlError, parse};

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

/// An act handed to the table through the control socket: the game the screen shows (the act is
/// refused if the table plays another), and the control line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ActRequest {
    pub game: Option<u32>,
    pub line: String,
    /// How the act was approved at the screen (none: the socket's owner, no passphrase).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<crate::core::werewolf::Approval>,
    /// Not an act: a wrong passphrase typed for `line` at the screen (why), to be recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
}

/// The table's answer to an act: recorded (its entries are durable) or not, and in words.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ActReply {
    pub recorded: bool,
    pub text: String,
}

impl ActReply {
    pub fn refused(text: impl Into<String>) -> ActReply {
        ActReply {
            recorded: false,
            text: text.into(),
        }
    }
}

/// The control socket could not be opened, or the act not handed over.
#[derive(Debug, thiserror::Error)]
pub enum SocketError {
    #[error("another arbiter serve runs this match folder ({0} answers): one table a match folder")]
    Busy(PathBuf),
    #[error("cannot {op} {path}: {source}")]
    Io {
        op: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "no table is served from this match folder ({path}: {source}): start arbiter serve --match on it"
    )]
    NoTable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the table's answer could not be read: {0}")]
    Answer(String),
}

/// The largest request a connection may send (bytes): a control line is short.
const MAX_REQUEST: u64 = 16 * 1024;
/// How long a connection may take to send its request.
const REQUEST_WITHIN: Duration = Duration::from_secs(5);
/// How long the socket waits for the game loop's answer (an append and an fdatasync).
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

/// The control socket of a running `serve`: removed when dropped, once every act the game loop
/// answered has had its answer written back (the last game's `end` included, which lets
/// `serve` finish).
#[derive(Debug)]
pub struct SocketGuard {
    path: PathBuf,
    pending: Pending,
}

/// Connections whose act went to the game loop and whose answer is not written back yet.
type Pending = std::sync::Arc<(std::sync::Mutex<usize>, std::sync::Condvar)>;

/// How long a closing `serve` waits for the answers still being written.
const ANSWERS_WRITTEN_WITHIN: Duration = Duration::from_secs(5);

impl SocketGuard {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SocketGuard {
    fn drop(&mut self) {
        let (count, written) = &*self.pending;
        if let Ok(n) = count.lock() {
            let _ = written.wait_timeout_while(n, ANSWERS_WRITTEN_WITHIN, |n| *n > 0);
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The match folder's control socket, bound, not yet answering.
#[derive(Debug)]
pub struct ControlSocket {
    listener: UnixListener,
    guard: SocketGuard,
}

impl ControlSocket {
    /// Hand every act that comes through the socket to the game loop on `tx`, on a thread of
    /// its own.
    pub fn answer(self, tx: Sender<Msg>) -> Result<SocketGuard, SocketError> {
        let ControlSocket { listener, guard } = self;
        let pending = guard.pending.clone();
        std::thread::Builder::new()
            .name("control-socket".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    let Ok(stream) = conn else {
                        continue;
                    };
                    if !answer(stream, &tx, &pending) {
                        return;
                    }
                }
            })
            .map_err(|source| SocketError::Io {
                op: "start the thread of",
                path: guard.path.clone(),
                source,
            })?;
        Ok(guard)
    }
}

/// Bind the match folder's control socket (owner-only). A socket left by a server that was
/// killed is replaced; one that answers belongs to another `serve` of the same folder: refused.
pub fn bind(match_dir: &Path) -> Result<ControlSocket, SocketError> {
    use std::os::unix::fs::PermissionsExt;
    let path = layout::control_socket(match_dir);
    let io = |op: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| SocketError::Io { op, path, source }
    };
    if std::fs::symlink_metadata(&path).is_ok() {
        if UnixStream::connect(&path).is_ok() {
            return Err(SocketError::Busy(path));
        }
        std::fs::remove_file(&path).map_err(io("remove the stale socket", &path))?;
    }
    let listener = UnixListener::bind(&path).map_err(io("create the control socket", &path))?;
    let guard = SocketGuard {
        path: path.clone(),
        pending: Pending::default(),
    };
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
        .map_err(io("make owner-only", &path))?;
    Ok(ControlSocket { listener, guard })
}

/// One connection: its request to the game loop, the loop's answer back (counted in `pending`
/// from the request's hand-over until its answer is written). `false` once the game loop is gone.
fn answer(stream: UnixStream, tx: &Sender<Msg>, pending: &Pending) -> bool {
    let (count, written) = &**pending;
    let add = |d: isize| {
        if let Ok(mut n) = count.lock() {
            *n = n.saturating_add_signed(d);
        }
        written.notify_all();
    };
    let _ = stream.set_read_timeout(Some(REQUEST_WITHIN));
    let _ = stream.set_write_timeout(Some(REQUEST_WITHIN));
    let mut line = String::new();
    let read = std::io::BufReader::new((&stream).take(MAX_REQUEST)).read_line(&mut line);
    if read.is_err() || line.trim().is_empty() {
        // A look at whether the socket answers (another serve starting), or a silent client.
        return true;
    }
    let mut is_act = false;
    let reply = match serde_json::from_str::<ActRequest>(line.trim()) {
        Err(e) => ActReply::refused(format!("not an act request: {e}; nothing recorded")),
        Ok(request) => {
            let (rtx, rrx) = std::sync::mpsc::channel();
            add(1);
            if tx
                .send(Msg::Act {
                    request,
                    reply: rtx,
                })
                .is_err()
            {
                add(-1);
                return false;
            }
            is_act = true;
            match rrx.recv_timeout(ANSWER_WITHIN) {
                Ok(r) => r,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => ActReply::refused(format!(
                    "the table has not answered within {} s: read the log before acting again",
                    ANSWER_WITHIN.as_secs()
                )),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    ActReply::refused("the table stopped before it answered: read the log")
                }
            }
        }
    };
    let mut out = serde_json::to_string(&reply).unwrap_or_default();
    out.push('\n');
    let _ = (&stream).write_all(out.as_bytes());
    if is_act {
        add(-1);
    }
    true
}

/// Hand the act `line` to the table served from `match_dir` (meant for game `game`, the one the
/// screen shows) and wait for its answer: given once the act's entries are durable.
pub fn send(match_dir: &Path, game: Option<u32>, line: &str) -> Result<ActReply, SocketError> {
    send_request(
        match_dir,
        &ActRequest {
            game,
            line: line.to_string(),
            approval: None,
            failed: None,
        },
    )
}

/// Hand `request` to the table served from `match_dir` and wait for its answer (given once
/// what it records is durable).
pub fn send_request(match_dir: &Path, request: &ActRequest) -> Result<ActReply, SocketError> {
    let path = layout::control_socket(match_dir);
    let stream = UnixStream::connect(&path).map_err(|source| SocketError::NoTable {
        path: path.clone(),
        source,
    })?;
    let _ = stream.set_write_timeout(Some(REQUEST_WITHIN));
    let _ = stream.set_read_timeout(Some(ANSWER_WITHIN + REQUEST_WITHIN));
    let mut out = serde_json::to_string(request).map_err(|e| SocketError::Answer(e.to_string()))?;
    out.push('\n');
    (&stream)
        .write_all(out.as_bytes())
        .map_err(|e| SocketError::Answer(e.to_string()))?;
    let mut back = String::new();
    std::io::BufReader::new((&stream).take(MAX_REQUEST))
        .read_line(&mut back)
        .map_err(|e| SocketError::Answer(e.to_string()))?;
    serde_json::from_str(back.trim()).map_err(|e| {
        SocketError::Answer(if back.is_empty() {
            "the table closed the connection without an answer".into()
        } else {
            e.to_string()
        })
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
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
    fn a_seat_is_named_by_its_name_its_number_or_hash_number() {
        use crate::core::werewolf::{Act, SeatSpec};
        let seats: Vec<crate::table::game::Seat> = ["kanolab3", "2", "bob"]
            .iter()
            .map(|n| crate::table::game::Seat {
                spec: SeatSpec {
                    name: n.to_string(),
                    team: n.to_string(),
                    human: false,
                },
                conn: None,
                writer: None,
            })
            .collect();
        let seat_of =
            |line: &str| match crate::table::act_of(&parse(line).unwrap().unwrap(), &seats) {
                Ok(Act::Readmit { seat }) => Ok(seat),
                Ok(other) => panic!("{other:?}"),
                Err(e) => Err(e),
            };
        assert_eq!(seat_of("readmit kanolab3"), Ok(0));
        // A name first: the seat NAMEd "2" is the second seat here by name, not by number.
        assert_eq!(seat_of("readmit 2"), Ok(1));
        assert_eq!(seat_of("readmit 3"), Ok(2));
        // `#N` is always the number, whatever the names.
        assert_eq!(seat_of("readmit #1"), Ok(0));
        assert_eq!(seat_of("readmit #3"), Ok(2));
        assert!(seat_of("readmit #4").is_err());
        assert!(seat_of("readmit #0").is_err());
        assert!(seat_of("readmit #kanolab3").is_err());
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
