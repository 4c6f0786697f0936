//! `arbiter seat`: a human's seat at an AI Werewolf table, on this terminal.
use clap::Args;

use crate::error::{Error, Exit};
use crate::table::seat::SeatError;

#[derive(Debug, Clone, Args)]
pub struct SeatArgs {
    /// The table's WebSocket address (`arbiter serve` prints it: ws://HOST:PORT/ws).
    #[arg(long, value_name = "URL")]
    pub connect: String,
    /// The seat's name, answered to NAME: the team and a number (`human1`); the team is the
    /// name without its trailing digits.
    #[arg(long, value_name = "NAME", default_value = "human1")]
    pub team: String,
    /// The table's token for this team, when the table asks for one.
    #[arg(long, value_name = "T")]
    pub token: Option<String>,
}

/// The seat's name: the given name, with `1` after it when it ends in no digit.
pub fn seat_name(team: &str) -> String {
    if team.ends_with(|c: char| c.is_ascii_digit()) {
        team.to_string()
    } else {
        format!("{team}1")
    }
}

pub fn run(a: &SeatArgs) -> Result<Exit, Error> {
    if a.team.trim().is_empty() || a.team.chars().any(char::is_whitespace) {
        return Err(Error::bad_input(format!(
            "--team {:?}: a seat's name is a team and a number without spaces (human1)",
            a.team
        )));
    }
    match crate::table::seat::run(&a.connect, &seat_name(&a.team), a.token.as_deref()) {
        Ok(()) => Ok(Exit::Ok),
        Err(e @ (SeatError::Address { .. } | SeatError::NoTerminal)) => {
            Err(Error::bad_input(e.to_string()))
        }
        Err(e @ (SeatError::Connect { .. } | SeatError::Handshake { .. } | SeatError::Lost(_))) => {
            Err(Error::unavailable(e.to_string()))
        }
        Err(e @ SeatError::Terminal(_)) => Err(Error::write_failed(e.to_string())),
    }
}
