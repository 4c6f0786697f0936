//! `arbiter display`: the read-only screen for the player and the audience.
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
    /// The delay in seconds: the relay's (chess, with --relay), or the audience's screen's on
    /// an AI Werewolf game (nothing appears before its time plus the delay).
    #[arg(long, value_name = "SECONDS", default_value_t = 0)]
    pub delay: u64,
    /// Follow the live record at this URL (ws://HOST:PORT/live, as `play --listen` or `arbiter
    /// live` serve it) instead of the match folder: read-only, from another machine (a chess or
    /// shogi game).
    #[arg(long, value_name = "URL")]
    pub connect: Option<String>,
}

pub fn run(a: &DisplayArgs) -> Result<Exit, Error> {
    if let Some(url) = &a.connect {
        let relay = match &a.relay {
            Some(out) => Some(
                crate::board::relay::Relay::new(
                    out,
                    std::path::Path::new(""),
                    std::time::Duration::from_secs(a.delay),
                )
                .map_err(super::relay::relay_failure)?,
            ),
            None => None,
        };
        return match crate::board::display::run_from(
            std::path::Path::new(""),
            Some(url),
            a.game,
            relay,
        ) {
            Ok(()) => Ok(Exit::Ok),
            Err(e) if e.kind() == std::io::ErrorKind::Other => Err(Error::bad_input(e.to_string())),
            Err(e) => Err(Error::write_failed(format!("terminal: {e}"))),
        };
    }
    super::relay::match_folder(&a.m.dir)?;
    let latest = a
        .game
        .or_else(|| crate::record::layout::games(&a.m.dir).last().copied());
    // A log takes its name once line 0 is in it (written aside, then renamed).
    let opened = latest.is_some_and(|n| {
        std::fs::metadata(crate::record::layout::log_path(&a.m.dir, n)).is_ok_and(|m| m.len() > 0)
    });
    let werewolf = latest.is_some_and(|n| crate::after::report_io::is_werewolf_game(&a.m.dir, n));
    if let Some(n) = latest
        && werewolf
        && a.relay.is_some()
    {
        return Err(Error::bad_input(format!(
            "--relay writes a chess PGN; game {n} is an AI Werewolf game"
        )));
    }
    // A werewolf game, or no game opened yet (a relay is a chess match's): the screen waits for
    // the game and shows a werewolf table's itself; any other game has the board's display.
    if werewolf || (!opened && a.relay.is_none()) {
        let delay = std::time::Duration::from_secs(a.delay);
        return match crate::board::display::werewolf::run(&a.m.dir, a.game, delay) {
            Ok(crate::board::display::werewolf::Followed::Quit) => Ok(Exit::Ok),
            Ok(crate::board::display::werewolf::Followed::NotWerewolf(_)) => {
                board_display(a, a.game)
            }
            Err(e) if e.kind() == std::io::ErrorKind::Other => Err(Error::bad_input(e.to_string())),
            Err(e) => Err(Error::write_failed(format!("terminal: {e}"))),
        };
    }
    board_display(a, a.game)
}

/// The board's display of a chess or shogi match (game `only`, else the latest and the next).
fn board_display(a: &DisplayArgs, only: Option<u32>) -> Result<Exit, Error> {
    if a.delay > 0 && a.relay.is_none() {
        return Err(Error::bad_input(
            "--delay on a chess or shogi match is the relay's (give --relay FILE); the board's display shows the game live",
        ));
    }
    let relay = match &a.relay {
        Some(out) => Some(relay_for(&a.m, out, a.delay)?),
        None => None,
    };
    match crate::board::display::run(&a.m.dir, only, relay) {
        Ok(()) => Ok(Exit::Ok),
        Err(e) if e.kind() == std::io::ErrorKind::Other => Err(Error::bad_input(e.to_string())),
        Err(e) => Err(Error::write_failed(format!("terminal: {e}"))),
    }
}
