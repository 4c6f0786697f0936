//! The werewolf table's shell (SHELL): the network (a WebSocket server speaking the contest's
//! protocol), the one game loop that feeds the pure core (`crate::core::werewolf`) and records
//! every event in the game log before any frame goes out, the arbiter's control channel, and
//! `serve`'s run of games in a match folder. Uses the core, the log, the journal and the
//! record's shell (keys, checkpoints, index); never the board's TUI, never the CLI.
pub mod auth;
pub mod control;
pub mod game;
pub mod net;
pub mod seat; // `arbiter seat`, a human's seat at a werewolf table (run on the player's machine; it connects to the table)
pub mod serve;

use std::collections::{HashMap, VecDeque};

use crate::core::werewolf::Act;
use net::{DoorRefusal, FrameKind, Inbound, Joined};

/// Why the table stopped; each names the file or the problem.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error(transparent)]
    Journal(#[from] crate::record::journal::JournalError),
    #[error("cannot {op} {path}: {source}")]
    Io {
        op: &'static str,
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Profile(String),
    #[error(transparent)]
    Sign(#[from] crate::record::sign::SignError),
    #[error("game {game}: cannot go on from its log: {problem}")]
    Restart { game: u32, problem: String },
    #[error("the table's channel closed: its listener stopped")]
    Closed,
    #[error("the rules refuse the tick at their own deadline (the table would stall): {0}")]
    Stuck(String),
    #[error("{0}")]
    Busy(String),
}

impl TableError {
    pub(crate) fn io(
        op: &'static str,
        path: &std::path::Path,
    ) -> impl FnOnce(std::io::Error) -> TableError + use<> {
        let path = path.to_owned();
        move |source| TableError::Io { op, path, source }
    }
}

/// What the table tells whoever runs it (the CLI prints these on standard error).
#[derive(Debug, Clone)]
pub enum Notice {
    /// A connection answered NAME and waits for a game.
    Waiting {
        name: String,
        waiting: usize,
        need: usize,
    },
    /// A connection refused at the door.
    Refused(DoorRefusal),
    GameOpened {
        game: u32,
        seats: Vec<String>,
    },
    /// The game under way in the log was taken up again after a restart.
    Restarted {
        game: u32,
        resumed: bool,
    },
    Reconnected {
        name: String,
        seat: usize,
    },
    GameEnded {
        game: u32,
        winner: String,
    },
    Signed {
        game: u32,
        checkpoint: std::path::PathBuf,
    },
    /// Game `game` ended and is recorded, but its checkpoint is not signed (the key's
    /// passphrase is not at hand): `arbiter checkpoint` signs it.
    NotSigned {
        game: u32,
        reason: String,
    },
    /// An arbiter's control line that is not a command, or names no seat.
    ControlRefused(String),
    /// The core refused an input (an arbiter act out of place, say): nothing changed.
    CoreRefused(String),
    /// The control socket could not be opened: the game master's screen cannot act on this
    /// table (`--control` still can).
    NoControlSocket(String),
}

/// What a seat sent while it waited for its game.
#[derive(Debug, Default)]
pub struct Early {
    pub frames: Vec<Inbound>,
    /// Frames past [`EARLY_KEPT`], not kept.
    pub more: u64,
}

/// Frames a waiting connection may leave for its game's line 0.
pub const EARLY_KEPT: usize = 16;

/// Connections that answered NAME and wait for a game, what they sent meanwhile, and the
/// connections refused at the door not yet recorded in a game's log.
#[derive(Debug, Default)]
pub struct Lobby {
    pub waiting: VecDeque<Joined>,
    pub early: HashMap<u64, Vec<Inbound>>,
    /// Frames past [`EARLY_KEPT`], counted.
    pub early_more: HashMap<u64, u64>,
    pub refused: Vec<DoorRefusal>,
}

impl Lobby {
    pub fn join(&mut self, j: Joined) {
        self.waiting.push_back(j);
    }

    /// A frame of a waiting connection is kept for its game's line 0 (the first
    /// [`EARLY_KEPT`]; the later ones are counted); a waiting connection that closes leaves the
    /// lobby. Frames of connections no game uses any more are not anyone's.
    pub fn frame(&mut self, f: Inbound) {
        if !self.waiting.iter().any(|j| j.conn == f.conn) {
            return;
        }
        if f.kind == FrameKind::Closed {
            self.waiting.retain(|j| j.conn != f.conn);
            self.early.remove(&f.conn);
            self.early_more.remove(&f.conn);
            return;
        }
        let kept = self.early.entry(f.conn).or_default();
        if kept.len() < EARLY_KEPT {
            kept.push(f);
        } else {
            *self.early_more.entry(f.conn).or_default() += 1;
        }
    }

    /// The first `n` waiting connections, with what each sent while it waited (the frames
    /// kept, and how many more came).
    pub fn take(&mut self, n: usize) -> Option<Vec<(Joined, Early)>> {
        if self.waiting.len() < n {
            return None;
        }
        Some(
            self.waiting
                .drain(..n)
                .map(|j| {
                    let early = Early {
                        frames: self.early.remove(&j.conn).unwrap_or_default(),
                        more: self.early_more.remove(&j.conn).unwrap_or(0),
                    };
                    (j, early)
                })
                .collect(),
        )
    }
}

pub use crate::core::werewolf::control_line::{NoSeat, seat_in};

/// The core's arbiter act for a control command.
pub fn act_of(cmd: &control::Command, seats: &[game::Seat]) -> Result<Act, NoSeat> {
    let names: Vec<&str> = seats.iter().map(|s| s.spec.name.as_str()).collect();
    crate::core::werewolf::control_line::act_of_names(cmd, &names)
}
