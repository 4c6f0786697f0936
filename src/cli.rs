//! Command-line surface. Each subcommand's behaviour lives in the module named beside it;
//! this file only declares arguments and dispatches. Exit codes are documented in README.md.
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

/// Default match folder used by every subcommand that touches a match.
pub const DEFAULT_MATCH_DIR: &str = "logs/demo";
/// Default rules profile.
pub const DEFAULT_RULES: &str = "rules/kasparov-deep-junior-2003.toml";

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
    Play(PlayArgs),
    /// Run a text file of timestamped commands against a virtual clock; print the final state.
    Script(ScriptArgs),
    /// Print the current state of a game rebuilt from its log.
    Status(StatusArgs),
    /// Create an Ed25519 arbiter key in OpenSSH format and register it in allowed_signers.
    Keygen(KeygenArgs),
    /// Sign a checkpoint of a game log now.
    Checkpoint(CheckpointArgs),
    /// Verify a game log: chain, checkpoints, signatures (or an inclusion proof with --proof).
    Verify(VerifyArgs),
    /// Print an RFC 6962 inclusion proof of one entry against the latest signed checkpoint.
    Prove(ProveArgs),
    /// Archive the machine's log files (13a, 13c) and the program copy (13d).
    Archive(ArchiveArgs),
    /// Write the committee report (HTML, or Markdown with --markdown).
    Report(ReportArgs),
    /// Write the game in PGN with clock comments.
    Pgn(PgnArgs),
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
    /// Read the key's passphrase from this environment variable.
    #[arg(long, value_name = "VAR")]
    pub passphrase_env: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct PlayArgs {
    #[command(flatten)]
    pub m: MatchArg,
    /// Game number (default: the unfinished game, else a new one).
    #[arg(long)]
    pub game: Option<u32>,
    /// Rules profile for a new game.
    #[arg(long, default_value = DEFAULT_RULES)]
    pub rules: PathBuf,
    #[command(flatten)]
    pub key: KeyArgs,
    /// Pre-game declarations for a new game (a script file whose lines are `arbiter declare ...`).
    #[arg(long, value_name = "FILE")]
    pub declarations: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct ScriptArgs {
    /// The script file.
    pub file: PathBuf,
    #[command(flatten)]
    pub m: MatchArg,
    /// Game number (default: the next free one).
    #[arg(long)]
    pub game: Option<u32>,
    /// Rules profile.
    #[arg(long, default_value = DEFAULT_RULES)]
    pub rules: PathBuf,
    #[command(flatten)]
    pub key: KeyArgs,
    /// Run in memory only: write no log.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the final state as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print each entry as soon as it is durably appended (`appended <seq> <hash> <kind>`).
    #[arg(long)]
    pub echo: bool,
}

#[derive(Debug, Clone, Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long)]
    pub game: Option<u32>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Args)]
pub struct KeygenArgs {
    #[command(flatten)]
    pub m: MatchArg,
    /// Where to write the private key (the public key goes beside it with `.pub`).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Principal name written to allowed_signers (used with `ssh-keygen -Y verify -I`).
    #[arg(long, default_value = "arbiter")]
    pub principal: String,
    /// Encrypt the key with the passphrase read from this environment variable.
    #[arg(long, value_name = "VAR")]
    pub passphrase_env: Option<String>,
    /// Register an existing ed25519 public key instead of creating one.
    #[arg(long, value_name = "FILE")]
    pub existing: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct CheckpointArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long)]
    pub game: Option<u32>,
    #[command(flatten)]
    pub key: KeyArgs,
}

#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub m: MatchArg,
    /// Only this game (default: every game of the match).
    #[arg(long)]
    pub game: Option<u32>,
    /// Check an inclusion proof file written by `arbiter prove` instead of a whole log.
    #[arg(long, value_name = "FILE")]
    pub proof: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Args)]
pub struct ProveArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long)]
    pub game: u32,
    /// Sequence number of the entry to prove.
    #[arg(long)]
    pub seq: u64,
}

#[derive(Debug, Clone, Args)]
pub struct ArchiveArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long)]
    pub game: u32,
    /// The copies of the machine's log file handed over by the operator (13a).
    #[arg(required = true)]
    pub copies: Vec<PathBuf>,
    /// The copy of the program used for the game (13d).
    #[arg(long, value_name = "FILE")]
    pub program: Option<PathBuf>,
    /// Delivery time (RFC 3339); default now.
    #[arg(long)]
    pub delivered: Option<String>,
    #[command(flatten)]
    pub key: KeyArgs,
}

#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long)]
    pub game: u32,
    /// Output path (default DIR/game-<n>/report.html, or report.md with --markdown).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Markdown for the terminal instead of HTML.
    #[arg(long)]
    pub markdown: bool,
    /// Leave out what rule 13e keeps confidential (engine-log contents), for the 5b release.
    #[arg(long)]
    pub public: bool,
}

#[derive(Debug, Clone, Args)]
pub struct PgnArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long)]
    pub game: u32,
    /// Output path (default: standard output).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Run one parsed command line.
pub fn dispatch(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Play(a) => crate::tui::cmd_play(&a),
        Command::Script(a) => crate::session::cmd_script(&a),
        Command::Status(a) => crate::session::cmd_status(&a),
        Command::Keygen(a) => crate::sign::cmd_keygen(&a),
        Command::Checkpoint(a) => crate::session::cmd_checkpoint(&a),
        Command::Verify(a) => crate::verify::cmd_verify(&a),
        Command::Prove(a) => crate::verify::cmd_prove(&a),
        Command::Archive(a) => crate::postgame::cmd_archive(&a),
        Command::Report(a) => crate::report::cmd_report(&a),
        Command::Pgn(a) => crate::postgame::cmd_pgn(&a),
    }
}

/// Print an error the same way for every subcommand and return the exit code.
pub fn fail(code: u8, msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("arbiter: {msg}");
    ExitCode::from(code)
}
