//! `arbiter relay`: keep a PGN file of the match so far for a broadcaster.
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::MatchArg;
use crate::board::relay::{Relay, RelayError, follow_from};
use crate::error::{Error, Exit};

#[derive(Debug, Clone, Args)]
pub struct RelayArgs {
    #[command(flatten)]
    pub m: MatchArg,
    /// Only this game (default: every game of the match, in order, new ones as they come).
    #[arg(long)]
    pub game: Option<u32>,
    /// The PGN file to keep up to date (outside the match folder).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Hold back moves and clocks by this many seconds (decided on the log's own times).
    #[arg(long, value_name = "SECONDS", default_value_t = 0)]
    pub delay: u64,
    /// Write the file once, as the log stands now, and stop.
    #[arg(long)]
    pub once: bool,
    /// Follow the live record at this URL (ws://HOST:PORT/live, as `play --listen` or `arbiter
    /// live` serve it) instead of the match folder: read-only, from another machine.
    #[arg(long, value_name = "URL")]
    pub connect: Option<String>,
}

/// The relay's failure as the exit-code table sees it.
pub fn relay_failure(e: RelayError) -> Error {
    match e {
        e @ RelayError::InsideMatch { .. } => Error::bad_input(e),
        RelayError::Refused(r) => super::output_refused(r),
        e @ RelayError::Log(_) => Error::bad_input(e),
        e @ RelayError::Shogi(_) => Error::bad_input(e),
        e @ RelayError::Write { .. } => Error::write_failed(e),
    }
}

/// A match folder that exists and is a folder (66 otherwise): nothing is created in it.
pub fn match_folder(dir: &std::path::Path) -> Result<(), Error> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(Error::cannot_read(format!(
            "{}: not a match folder",
            dir.display()
        ))),
        Err(e) => Err(Error::cannot_read(format!("{}: {e}", dir.display()))),
    }
}

/// The relay for `out`, refused when the match folder cannot be read.
pub fn relay_for(m: &MatchArg, out: &std::path::Path, delay: u64) -> Result<Relay, Error> {
    match_folder(&m.dir)?;
    Relay::new(out, &m.dir, Duration::from_secs(delay)).map_err(relay_failure)
}

pub fn run(a: &RelayArgs) -> Result<Exit, Error> {
    let mut relay = match &a.connect {
        Some(_) => Relay::new(
            &a.out,
            std::path::Path::new(""),
            Duration::from_secs(a.delay),
        )
        .map_err(relay_failure)?,
        None => relay_for(&a.m, &a.out, a.delay)?,
    };
    if !a.once {
        errln!(
            "arbiter: relay: {} follows {} (delay {} s); Ctrl-C stops it",
            a.out.display(),
            a.connect
                .clone()
                .unwrap_or_else(|| a.m.dir.display().to_string()),
            a.delay
        );
    }
    let mut warn = |p: &str| super::warn(format!("relay: {p}"));
    follow_from(
        &a.m.dir,
        a.connect.as_deref(),
        a.game,
        &mut relay,
        a.once,
        &|| true,
        &mut warn,
    )
    .map_err(relay_failure)?;
    if a.once {
        outln!("{} ({} written)", a.out.display(), relay.writes)?;
    }
    Ok(Exit::Ok)
}
