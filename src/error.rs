//! The one exit-code table ([`Exit`]) and the error every subcommand hands back to the CLI layer
//! ([`Error`]). Library modules return their own typed errors; the CLI layer decides which kind
//! of failure each one is for the command at hand, prints `arbiter: …` and exits with
//! [`Exit::code`] — the only function that turns a kind into a number. README.md and
//! docs/log-format.md list these codes; `tests/it/layers.rs` checks them against this table.
use std::path::PathBuf;

/// Any typed error, boxed: the cause an [`Error`] carries to the command line.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// How a run of `arbiter` ends, as its exit code tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Exit {
    /// Success (for `verify`: chain intact, every checkpoint valid, every entry signed).
    Ok,
    /// A command refused by the rules (the message names the clause); for `keygen`, any failure.
    Refused,
    /// Usage error (clap's own code).
    Usage,
    /// Bad input: a malformed script, rules profile or argument, a corrupt log.
    BadInput,
    /// A file that cannot be read.
    CannotRead,
    /// Not available: another process holds the game (its log's lock).
    Unavailable,
    /// The log (or another output file) could not be written; input frozen.
    WriteFailed,
    /// `verify`/`prove`: a file could not be read, or there is nothing to verify.
    Unreadable,
    /// `verify`: entries after the last signed checkpoint (never a pass).
    UnsignedTail,
    /// `verify`: as OK, but the log holds recovery entries (torn tails cut on reopen).
    Recovered,
    /// `verify`: a line is invalid or the chain is broken.
    BadLine,
    /// `verify`: a signed checkpoint covers more entries than the file holds.
    Truncated,
    /// `verify`: a checkpoint is unsigned, badly signed, by an unknown key, or inconsistent.
    BadCheckpoint,
    /// `verify`: a finished game's final checkpoint lacks a declared camp's countersignature.
    Unwitnessed,
    /// `verify`: an archived file or the embedded profile does not match its signed digest.
    BadBinding,
    /// `verify`: the signed match index records more than the folder holds (a log cut back, a
    /// game deleted) or another log.
    RolledBack,
    /// `verify`: an arbiter-only entry of a sealed log lacks a valid signed authorization by the
    /// match's arbiter key.
    Unauthorized,
    /// `verify`: an entry recorded by an actor the game's rules profile does not allow for its
    /// kind (an operator's clock correction).
    BadActor,
    /// `verify`: a game the match policy holds does not name it, or binds its entries otherwise
    /// (line 0 edited to turn checks off), or the policy is missing or does not hold.
    Downgraded,
    /// `verify`: a game leaves out a camp the match policy (or an earlier game) names.
    CampsDropped,
    /// `verify`: a game of another match (its line 0 names another match id).
    ForeignGame,
    /// `verify`: a camp key without its proof of possession in a game the policy holds.
    CampsNotProven,
    /// `verify`: the game does not re-run under its rules from what its log records (a werewolf
    /// game's events against its recorded inputs and revealed seed, each entry's actor and
    /// section against the rules').
    BadReplay,
    /// `verify --witness-copy DIR`: the log lacks or rewrote an entry the camp's own copy holds,
    /// the camp's witness kept evidence of a conflicting history, or a restart's ruling claims a
    /// longer outage than the witness's own clock saw pass.
    CopyConflict,
    /// `verify`: in a game the match policy holds to live witnesses, a camp's cosigned
    /// checkpoints leave a stretch of more entries than the policy's interval uncovered.
    UnwitnessedInterval,
    /// `verify --proof`: the inclusion proof does not hold.
    BadProof,
    /// `prove`: no valid signed checkpoint covers the entry.
    NotCovered,
}

/// Which document lists an exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Documented {
    /// README.md's "Exit codes" paragraph (every subcommand).
    Readme,
    /// docs/log-format.md's table of `arbiter verify` / `arbiter prove` codes.
    VerifyTable,
}

impl Exit {
    /// Every exit kind, in the order of the table.
    pub const ALL: [Exit; 27] = [
        Exit::Ok,
        Exit::Refused,
        Exit::Usage,
        Exit::BadInput,
        Exit::CannotRead,
        Exit::Unavailable,
        Exit::WriteFailed,
        Exit::Unreadable,
        Exit::UnsignedTail,
        Exit::Recovered,
        Exit::Unwitnessed,
        Exit::BadLine,
        Exit::Truncated,
        Exit::BadCheckpoint,
        Exit::BadProof,
        Exit::NotCovered,
        Exit::BadBinding,
        Exit::RolledBack,
        Exit::Unauthorized,
        Exit::BadActor,
        Exit::Downgraded,
        Exit::CampsDropped,
        Exit::ForeignGame,
        Exit::CampsNotProven,
        Exit::BadReplay,
        Exit::CopyConflict,
        Exit::UnwitnessedInterval,
    ];

    /// The exit code: the one table.
    pub const fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Refused => 1,
            Exit::Usage => 2,
            Exit::BadInput => 65,
            Exit::CannotRead => 66,
            Exit::Unavailable => 70,
            Exit::WriteFailed => 74,
            Exit::Unreadable => 3,
            Exit::UnsignedTail => 10,
            Exit::Recovered => 11,
            Exit::Unwitnessed => 12,
            Exit::BadBinding => 25,
            Exit::RolledBack => 26,
            Exit::Unauthorized => 27,
            Exit::BadActor => 28,
            Exit::Downgraded => 29,
            Exit::CampsDropped => 30,
            Exit::ForeignGame => 31,
            Exit::CampsNotProven => 32,
            Exit::BadReplay => 33,
            Exit::CopyConflict => 34,
            Exit::UnwitnessedInterval => 35,
            Exit::BadLine => 20,
            Exit::Truncated => 21,
            Exit::BadCheckpoint => 22,
            Exit::BadProof => 23,
            Exit::NotCovered => 24,
        }
    }

    /// Where the code is documented (`Ok` and `Usage` are in both).
    pub const fn documented(self) -> &'static [Documented] {
        use Documented::{Readme, VerifyTable};
        match self {
            Exit::Ok => &[Readme, VerifyTable],
            Exit::Usage => &[Readme, VerifyTable],
            // `verify`'s output into a closed pipe or onto a full disk ends as every command's.
            Exit::WriteFailed => &[Readme, VerifyTable],
            Exit::Refused | Exit::BadInput | Exit::CannotRead | Exit::Unavailable => &[Readme],
            _ => &[VerifyTable],
        }
    }

    /// The verdict name `verify --json` and docs/log-format.md give the code, if it has one.
    pub const fn verdict(self) -> Option<&'static str> {
        match self {
            Exit::Ok => Some("OK"),
            Exit::Unreadable => Some("UNREADABLE"),
            Exit::UnsignedTail => Some("UNSIGNED_TAIL"),
            Exit::Recovered => Some("RECOVERED"),
            Exit::Unwitnessed => Some("UNWITNESSED"),
            Exit::BadBinding => Some("BAD_BINDING"),
            Exit::RolledBack => Some("ROLLED_BACK"),
            Exit::Unauthorized => Some("UNAUTHORIZED"),
            Exit::BadActor => Some("BAD_ACTOR"),
            Exit::Downgraded => Some("DOWNGRADED"),
            Exit::CampsDropped => Some("CAMPS_DROPPED"),
            Exit::ForeignGame => Some("FOREIGN_GAME"),
            Exit::CampsNotProven => Some("CAMPS_NOT_PROVEN"),
            Exit::BadReplay => Some("BAD_REPLAY"),
            Exit::CopyConflict => Some("COPY_CONFLICT"),
            Exit::UnwitnessedInterval => Some("UNWITNESSED_INTERVAL"),
            Exit::BadLine => Some("BAD_LINE"),
            Exit::Truncated => Some("TRUNCATED"),
            Exit::BadCheckpoint => Some("BAD_CHECKPOINT"),
            Exit::BadProof => Some("BAD_PROOF"),
            _ => None,
        }
    }
}

/// A failed subcommand: the kind of failure (which fixes the exit code) and its cause, whose
/// text is the message after `arbiter: `. Each variant names how the CLI layer reports it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Refused by the rules, the message naming the clause (and every `keygen` failure). Exit 1.
    #[error("{0}")]
    Refused(Cause),
    /// Malformed input (script, rules profile, log, argument). Exit 65.
    #[error("{0}")]
    BadInput(Cause),
    /// A file that cannot be read (or no game to work on). Exit 66.
    #[error("{0}")]
    CannotRead(Cause),
    /// Not available: another process holds the game. Exit 70.
    #[error("{0}")]
    Unavailable(Cause),
    /// The log or an output file could not be written. Exit 74.
    #[error("{0}")]
    WriteFailed(Cause),
    /// `verify`/`prove`: a failure with one of their own codes (3 unreadable or nothing to
    /// verify; for `prove` also 20 and 24), listed in docs/log-format.md.
    #[error("{cause}")]
    Verify { exit: Exit, cause: Cause },
}

impl Error {
    pub fn refused(e: impl Into<Cause>) -> Error {
        Error::Refused(e.into())
    }
    pub fn bad_input(e: impl Into<Cause>) -> Error {
        Error::BadInput(e.into())
    }
    pub fn cannot_read(e: impl Into<Cause>) -> Error {
        Error::CannotRead(e.into())
    }
    pub fn unavailable(e: impl Into<Cause>) -> Error {
        Error::Unavailable(e.into())
    }
    pub fn write_failed(e: impl Into<Cause>) -> Error {
        Error::WriteFailed(e.into())
    }
    /// `verify`/`prove`: a file could not be read, or there is nothing to verify (exit 3).
    pub fn unreadable(e: impl Into<Cause>) -> Error {
        Error::Verify {
            exit: Exit::Unreadable,
            cause: e.into(),
        }
    }

    /// The kind of failure, for [`Exit::code`].
    pub fn exit(&self) -> Exit {
        match self {
            Error::Refused(_) => Exit::Refused,
            Error::BadInput(_) => Exit::BadInput,
            Error::CannotRead(_) => Exit::CannotRead,
            Error::Unavailable(_) => Exit::Unavailable,
            Error::WriteFailed(_) => Exit::WriteFailed,
            Error::Verify { exit, .. } => *exit,
        }
    }

    /// The exit code of this error.
    pub fn exit_code(&self) -> u8 {
        self.exit().code()
    }
}

/// A file operation that failed: `cannot <op> <path>: <io error>`.
#[derive(Debug, thiserror::Error)]
#[error("cannot {op} {}: {source}", .path.display())]
pub struct FileError {
    pub op: &'static str,
    pub path: PathBuf,
    pub source: std::io::Error,
}

impl FileError {
    /// A closure for `map_err`: the io error of `op` on `path`.
    pub fn of(
        op: &'static str,
        path: &std::path::Path,
    ) -> impl FnOnce(std::io::Error) -> FileError + use<> {
        let path = path.to_owned();
        move |source| FileError { op, path, source }
    }
}
