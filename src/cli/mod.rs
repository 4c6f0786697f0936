//! The command line: the only layer that knows clap. One file per subcommand holds its arguments
//! and its `run`, which converts the arguments into the library's plain types once, calls the
//! library, prints the result and says how the run ends ([`Exit`]) or why it failed ([`Error`]).
//! `main.rs` turns that outcome into the exit code and prints `arbiter: <message>`.
/// Print to standard output through [`emit`]: `out!` like `print!`, `outln!` like `println!`;
/// each returns the `Result` of the write (use `?`).
macro_rules! out {
    ($($t:tt)*) => {
        $crate::cli::emit(&format!($($t)*))
    };
}
/// A line to standard error that can never panic (a closed or full stderr is ignored).
macro_rules! errln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}
macro_rules! outln {
    ($($t:tt)*) => {
        $crate::cli::emit(&format!("{}\n", format_args!($($t)*)))
    };
}

pub mod archive;
pub mod authorize;
pub mod checkpoint;
pub mod countersign;
pub mod display;
pub mod docs;
pub mod foreign;
pub mod keygen;
pub mod live;
pub mod pgn;
pub mod play;
pub mod prove;
pub mod record;
pub mod relay;
pub mod report;
pub mod rules;
pub mod script;
pub mod seat;
pub mod serve;
pub mod status;
pub mod verify;
pub mod werewolf;
pub mod witness;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::error::{Error, Exit, FileError};
use crate::record::sign::KeySource;

/// Default match folder used by every subcommand that touches a match.
pub const DEFAULT_MATCH_DIR: &str = "logs/demo";
/// Default rules profile.
pub const DEFAULT_RULES: &str = crate::record::layout::DEFAULT_RULES;

#[derive(Debug, Parser)]
#[command(
    name = "arbiter",
    version,
    about = "Arbiter kit for a human-vs-engine chess match (Kasparov vs Deep Junior 2003 rules)"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The board-side terminal UI: official clock, moves and every arbiter decision.
    Play(play::PlayArgs),
    /// Run a text file of timestamped commands against a virtual clock; print the final state.
    Script(script::ScriptArgs),
    /// Print the current state of a game rebuilt from its log.
    Status(status::StatusArgs),
    /// Create an Ed25519 arbiter key in OpenSSH format and register it in allowed_signers.
    Keygen(keygen::KeygenArgs),
    /// Sign a checkpoint of a game log now.
    Checkpoint(checkpoint::CheckpointArgs),
    /// A camp countersigns a checkpoint (its own key here, or a stock `ssh-keygen -Y sign`).
    Countersign(countersign::CountersignArgs),
    /// Show the entries of a game the kit did not write in a session of the match's key; cut them to a side file or accept them with a reason.
    Foreign(foreign::ForeignArgs),
    /// The arbiter's ruling on an arbiter-only entry that stands UNAUTHORIZED (in flight at a crash): authorized with the key, with the reason, recorded and signed.
    Authorize(authorize::AuthorizeArgs),
    /// Verify a game log: chain, checkpoints, signatures (or an inclusion proof with --proof).
    Verify(verify::VerifyArgs),
    /// Print an RFC 6962 inclusion proof of one entry against the latest signed checkpoint.
    Prove(prove::ProveArgs),
    /// Archive the machine's log files (13a, 13c) and the program copy (13d).
    Archive(archive::ArchiveArgs),
    /// Write the committee report (HTML, or Markdown with --markdown).
    Report(report::ReportArgs),
    /// Write the game in PGN with clock comments.
    Pgn(pgn::PgnArgs),
    /// The rules profiles compiled into the binary: `list`, or `show NAME`.
    Rules(rules::RulesArgs),
    /// Print shell completions (bash, zsh, fish, elvish, powershell).
    Completions(docs::CompletionsArgs),
    /// Print the manual page (roff: `arbiter man > arbiter.1`, or `arbiter man | man -l -`).
    Man(docs::ManArgs),
    /// Write the game record: CSA or KIF for shogi (with times and result), PGN for chess.
    Record(record::RecordArgs),
    /// The read-only screen for the player and the audience, following the board's log.
    Display(display::DisplayArgs),
    /// Keep a PGN file of the match so far for a broadcaster (live relay).
    Relay(relay::RelayArgs),
    /// The AI Werewolf game server: seats connect over WebSocket, every game is a signed log.
    Serve(serve::ServeArgs),
    /// A human's seat at an AI Werewolf table: a terminal client of the contest's protocol.
    Seat(seat::SeatArgs),
    /// The live record for the camps' witnesses: follows the match folder read-only and streams
    /// every entry and signed checkpoint over WebSocket; stores the camps' cosignatures.
    Live(live::LiveArgs),
    /// A camp's witness, on the camp's own machine: keeps its own copy of every game's log and
    /// cosigns each checkpoint that extends it consistently.
    Witness(witness::WitnessArgs),
}

#[derive(Debug, Clone, Args)]
pub struct MatchArg {
    /// The match folder.
    #[arg(long = "match", value_name = "DIR", default_value = DEFAULT_MATCH_DIR)]
    pub dir: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct KeyArgs {
    /// Arbiter private key (OpenSSH ed25519). Default: DIR/keys/arbiter, or a labelled demo key
    /// created for the demo match.
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
    /// Read the key's passphrase from this environment variable (rehearsals only: whoever set
    /// the variable, and anything started from that shell, has the passphrase).
    #[arg(long, value_name = "VAR")]
    pub passphrase_env: Option<String>,
    /// Sign through the ssh-agent at SSH_AUTH_SOCK (the key in an agent under another account
    /// or on a hardware key; `--key` may then name its `.pub` file). Nothing is decrypted here.
    #[arg(long, conflicts_with = "passphrase_env")]
    pub agent: bool,
}

/// `--game N`: a game number from 1 to [`crate::record::layout::MAX_GAME`] (clap's usage error, exit 2,
/// otherwise: `game-0` or a number that wraps is never created).
pub fn game_number(s: &str) -> Result<u32, GameNumberError> {
    let max = crate::record::layout::MAX_GAME;
    match s.parse::<u64>() {
        Ok(n) if (1..=u64::from(max)).contains(&n) => Ok(n as u32),
        _ => Err(GameNumberError { max }),
    }
}

/// `--game` given something other than a game number (clap reports it: exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a game number is a whole number from 1 to {max} (game numbers start at 1)")]
pub struct GameNumberError {
    pub max: u32,
}

/// A game a command names that the match folder does not hold, or a folder that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum NoGame {
    #[error("no game {n} in {} ({}){}", .dir.display(), listed(.games), never(*.n, .leftover))]
    Missing {
        n: u32,
        dir: std::path::PathBuf,
        games: Vec<u32>,
        /// The creation leftover its folder holds only, if so.
        leftover: Option<String>,
    },
    #[error(transparent)]
    Folder(#[from] FileError),
}

/// ": game N was never created: …" when the folder holds only a creation leftover.
fn never(n: u32, leftover: &Option<String>) -> String {
    leftover
        .as_deref()
        .map(|l| format!(": {}", crate::record::layout::never_created(n, l)))
        .unwrap_or_default()
}

/// "its games: 1, 2" or "it has no games".
fn listed(games: &[u32]) -> String {
    if games.is_empty() {
        "it has no games".to_string()
    } else {
        let names: Vec<String> = games.iter().map(u32::to_string).collect();
        format!("its games: {}", names.join(", "))
    }
}

impl MatchArg {
    /// Game `game` if given (it must exist: "no game N"), else the match's last game (an error
    /// if it has none). A match folder that cannot be read says why (permission denied is
    /// permission denied, not "no games").
    pub fn game_or_last(&self, game: Option<u32>) -> Result<u32, Error> {
        let games = self.games().map_err(Error::cannot_read)?;
        match game {
            Some(n) => {
                self.require_game(n).map_err(Error::cannot_read)?;
                Ok(n)
            }
            None => games.last().copied().ok_or_else(|| {
                let never: Vec<String> = crate::record::layout::creation_leftovers(&self.dir)
                    .iter()
                    .map(|(n, l)| format!(" ({})", crate::record::layout::never_created(*n, l)))
                    .collect();
                Error::cannot_read(format!(
                    "{}: no games{}",
                    self.dir.display(),
                    never.concat()
                ))
            }),
        }
    }

    /// The match's games, or why its folder cannot be listed.
    pub fn games(&self) -> Result<Vec<u32>, FileError> {
        std::fs::read_dir(&self.dir).map_err(FileError::of("read match folder", &self.dir))?;
        Ok(crate::record::layout::games(&self.dir))
    }

    /// Game `n` exists (its folder holds a log), or a message: "no game N in DIR (its games:
    /// …)", or why the folder cannot be read. A log that is there but unreadable is left to the
    /// command that opens it (its message names the file and the problem).
    pub fn require_game(&self, n: u32) -> Result<(), NoGame> {
        let log = crate::record::layout::log_path(&self.dir, n);
        match std::fs::symlink_metadata(&log) {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(NoGame::Missing {
                n,
                dir: self.dir.clone(),
                games: self.games()?,
                leftover: crate::record::layout::creation_leftover(&self.dir, n),
            }),
            Err(_) => Ok(()),
        }
    }
}

impl KeyArgs {
    /// The key the library loads.
    pub fn source(&self) -> KeySource {
        KeySource {
            file: self.key.clone(),
            passphrase_env: self.passphrase_env.clone(),
            agent: self.agent,
        }
    }
}

/// Run one parsed command line: how it ends, or why it failed.
pub fn run(cli: Cli) -> Result<Exit, Error> {
    match cli.command {
        Command::Play(a) => play::run(&a),
        Command::Script(a) => script::run(&a),
        Command::Status(a) => status::run(&a),
        Command::Keygen(a) => keygen::run(&a),
        Command::Checkpoint(a) => checkpoint::run(&a),
        Command::Foreign(a) => foreign::run(&a),
        Command::Authorize(a) => authorize::run(&a),
        Command::Countersign(a) => countersign::run(&a),
        Command::Verify(a) => verify::run(&a),
        Command::Prove(a) => prove::run(&a),
        Command::Archive(a) => archive::run(&a),
        Command::Report(a) => report::run(&a),
        Command::Pgn(a) => pgn::run(&a),
        Command::Rules(a) => rules::run(&a),
        Command::Completions(a) => docs::completions(&a),
        Command::Man(a) => docs::man(&a),
        Command::Record(a) => record::run(&a),
        Command::Display(a) => display::run(&a),
        Command::Relay(a) => relay::run(&a),
        Command::Serve(a) => serve::run(&a),
        Command::Seat(a) => seat::run(&a),
        Command::Live(a) => live::run(&a),
        Command::Witness(a) => witness::run(&a),
    }
}

/// A problem that does not stop the command, on standard error.
pub fn warn(msg: impl std::fmt::Display) {
    errln!("arbiter: warning: {msg}");
}

/// Write `text` to standard output. Any failure — a closed pipe (`arbiter prove … | head -c 1`:
/// a proof that never arrived must not look delivered), a full disk (ENOSPC) — is
/// [`Error::write_failed`], exit 74, with one line on standard error. Never a panic.
pub fn emit(text: &str) -> Result<(), Error> {
    use std::io::Write;
    let text = printable(text);
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes())
        .and_then(|()| o.flush())
        .map_err(stdout_failed)
}

/// Text as it may reach a terminal: control characters other than line breaks (`\n`, `\r\n`)
/// and tabs (an
/// escape sequence in a declared name or a note, written into the log by anything) are shown
/// escaped (`\u{1b}`), never sent raw. Borrowed when there is nothing to escape.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let raw = |c: char, next: Option<char>| {
        c.is_control() && c != '\n' && c != '\t' && !(c == '\r' && next == Some('\n'))
    };
    let mut chars = text.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        any |= raw(c, chars.peek().copied());
    }
    if !any {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if raw(c, chars.peek().copied()) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The error of a failed write to standard output (exit 74), in words.
pub fn stdout_failed(e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Error::write_failed(
            "standard output was closed before everything was written (broken pipe): the output is incomplete",
        )
    } else {
        Error::write_failed(format!("standard output: {e}: the output is incomplete"))
    }
}

/// An output path refused before anything was written (a match's own file, or an existing file
/// the kit did not write for that purpose): bad input, exit 65; one whose folder cannot be read
/// (it does not exist, permission denied): 74, the output cannot be written.
pub fn output_refused(e: crate::record::fsio::OutputRefused) -> Error {
    match e {
        e @ crate::record::fsio::OutputRefused::Io { .. } => Error::write_failed(e),
        e => Error::bad_input(e),
    }
}

/// A command's text output: atomically to `--out` (already checked by `fsio::check_output`), the
/// path then printed, or to standard output.
pub fn write_text_out(out: Option<&std::path::Path>, text: &str) -> Result<(), Error> {
    match out {
        Some(p) => {
            crate::record::journal::write_atomic(p, text.as_bytes())
                .map_err(|e| Error::write_failed(format!("{}: {e}", p.display())))?;
            outln!("{}", p.display())?;
        }
        None => out!("{text}")?,
    }
    Ok(())
}

/// The kind of failure a game's refusal or a session's failure is, for every command that runs
/// the core (`script`, `archive`, the board's opening): a refusal by the rules — from either game,
/// chess or shogi — is 1, a log that could not be written (or an event that could not be applied:
/// nothing was shown as done) is 74. The one mapping; `cause` words the message (with the
/// script's `file:line:`, say) from the error it is given.
pub fn session_failure(
    e: crate::board::session::SessionError,
    cause: impl FnOnce(crate::board::session::SessionError) -> crate::error::Cause,
) -> Error {
    use crate::board::session::SessionError as S;
    match e {
        e @ S::Refused(_) => Error::Refused(cause(e)),
        e @ (S::Storage(_) | S::Apply(_)) => Error::WriteFailed(cause(e)),
    }
}

/// The kind of failure reading an input file is: one that is not text the kit takes (not
/// UTF-8, larger than the kit reads) is bad input (65), as a malformed one; any other failure
/// is a file that cannot be read (66).
pub fn input_failure(source: &std::io::Error, e: impl Into<crate::error::Cause>) -> Error {
    if source.kind() == std::io::ErrorKind::InvalidData {
        Error::bad_input(e)
    } else {
        Error::cannot_read(e)
    }
}

/// The kind of failure a journal error is: another process holds the game (70), a file that
/// cannot be read (66), one that cannot be written (74), or a log that is not a valid log (65).
pub fn journal_failure(e: crate::record::journal::JournalError) -> Error {
    use crate::record::journal::JournalError as J;
    match &e {
        J::Locked(_) | J::Exists(_) => Error::Unavailable(e.into()),
        // Opened to append, refused, yet readable: the log cannot be written (a read-only
        // folder or file), not a file that cannot be read.
        // A folder that refuses a new file (its lock, a new game's log) is the same failure.
        J::Io {
            op: "open" | "lock",
            path,
            source,
        } if source.kind() == std::io::ErrorKind::PermissionDenied
            && (std::fs::File::open(path).is_ok() || std::fs::symlink_metadata(path).is_err()) =>
        {
            Error::write_failed(e)
        }
        J::Io { op, .. } if matches!(*op, "open" | "read" | "stat" | "lock" | "list") => {
            Error::cannot_read(e)
        }
        J::Io { .. } | J::Poisoned { .. } | J::ReadOnly { .. } => Error::write_failed(e),
        J::NoFirstEntry { .. }
        | J::Damaged { .. }
        | J::BadLine { .. }
        | J::Invalid(_)
        | J::TooLong { .. } => Error::bad_input(e),
    }
}

/// The kind of failure opening or reading a game is ([`journal_failure`] for the log itself; a
/// key or rules file that cannot be read 66, one that is malformed 65).
/// A game log `status` or `pgn` cannot replay (a corrupt log: exit 65 as README's table says) is
/// also judged as `verify` judges it, and a failing verdict is printed first (DOES NOT VERIFY).
pub fn replay_failure(
    dir: &std::path::Path,
    game: u32,
    e: crate::board::matchdir::MatchError,
) -> Error {
    replay_failure_checked(dir, game, e, None)
}

/// [`replay_failure`] with the log's check already made (`check`: not made again).
pub fn replay_failure_checked(
    dir: &std::path::Path,
    game: u32,
    e: crate::board::matchdir::MatchError,
    check: Option<&crate::record::witness::LogCheck>,
) -> Error {
    // A torn tail is what a crash leaves, not tampering: say so, and how it is repaired.
    if let Some((offset, len)) = torn_tail(&crate::record::layout::log_path(dir, game)) {
        return Error::bad_input(format!(
            "a crash left an incomplete last line in game {game}'s log ({len} bytes at byte offset {offset}): it is no entry, and nothing acknowledged is lost; opening the game for play (arbiter play --match {} --game {game}) cuts it to a side file and records it",
            dir.display()
        ));
    }
    let made;
    let check = match check {
        Some(c) => c,
        None => {
            made = crate::record::witness::check_before_showing(dir, game);
            &made
        }
    };
    if check.failing.is_some() {
        for l in &check.lines {
            errln!("arbiter: {l}");
        }
    }
    match_failure(e)
}

/// Where a log's last line starts and its length, when it lacks its newline (a torn write).
fn torn_tail(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = crate::record::fsio::open_match_file(path).ok()?;
    let len = f.metadata().ok()?.len();
    if len == 0 {
        return None;
    }
    // The last line is at most a log line long: read back that far at most.
    let back = len.min(crate::record::journal::MAX_LINE_BYTES as u64 + 1);
    f.seek(SeekFrom::Start(len - back)).ok()?;
    let mut tail = Vec::new();
    f.take(back).read_to_end(&mut tail).ok()?;
    if tail.last() == Some(&b'\n') {
        return None;
    }
    let start = match tail.iter().rposition(|&b| b == b'\n') {
        Some(p) => p + 1,
        None if back == len => 0,
        // No newline in the last line's bound: longer than any line the kit writes, so no torn
        // write (a foreign or sparse tail), and the log is judged as `verify` judges it.
        None => return None,
    };
    let offset = len - back + start as u64;
    Some((offset, len - offset))
}

pub fn match_failure(e: crate::board::matchdir::MatchError) -> Error {
    use crate::board::matchdir::MatchError as M;
    match e {
        M::Journal(j) => journal_failure(j),
        M::Key(k) => Error::cannot_read(k),
        e @ (M::Foreign { .. } | M::OtherProfile { .. } | M::LiveWitnessKey { .. }) => {
            Error::refused(e)
        }
        e @ (M::Full { .. } | M::Changed { .. }) => Error::unavailable(e),
        M::Profile(p) => {
            let bad_data = matches!(&p, crate::board::session::LoadProfileError::Read { source, .. }
                if source.kind() == std::io::ErrorKind::InvalidData);
            match p {
                crate::board::session::LoadProfileError::Read { .. } if !bad_data => {
                    Error::cannot_read(p)
                }
                _ => Error::bad_input(p),
            }
        }
        e @ (M::Decode(_) | M::Replay { .. } | M::EmptyLog | M::WrongGame { .. }) => {
            Error::bad_input(e)
        }
    }
}
