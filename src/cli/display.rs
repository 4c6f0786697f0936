//! `arbiter display`: the read-only screen for the player and the audience (issue 24).
use std::path::PathBuf;

use clap::Args;

use super::MatchArg;
use super::relay::relay_for;
use crate::error::{Error, Exit};

#[derive(Debug, Clone, Args)]
pub struct DisplayArgs {
    #[command(flatten)]
    pub m: MatchArg,
    /// Only this game (default: the latest, then the next ones as the board opens them).
    #[arg(long)]
    pub game: Option<u32>,
    /// Also keep this PGN file up to date, as `arbiter relay --out FILE` does.
    #[arg(long, value_name = "FILE")]
    pub relay: Option<PathBuf>,
    /// The relay's delay in seconds (with --relay).
    #[arg(long, value_name = "SECONDS", default_value_t = 0, requires = "relay")]
    pub delay: u64,
}

pub fn run(a: &DisplayArgs) -> Result<Exit, Error> {
    super::relay::match_folder(&a.m.dir)?;
    let relay = match &a.relay {
        Some(out) => Some(relay_for(&a.m, out, a.delay)?),
        None => None,
    };
    match crate::display::run(&a.m.dir, a.game, relay) {
        Ok(()) => Ok(Exit::Ok),
        Err(e) if e.kind() == std::io::ErrorKind::Other => Err(Error::bad_input(e.to_string())),
        Err(e) => Err(Error::write_failed(format!("terminal: {e}"))),
    }
}
