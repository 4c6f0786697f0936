//! The two-sided board games at the board (SHELL): the Board UI, the match folder's games
//! (open, create, restart), the session that turns a command into entries, and the audience's
//! read-only display with the follower it reads the log with.
pub mod display; // `arbiter display`, the read-only screen for the player and the audience
pub mod follow; // following a match folder's logs read-only as the board appends
pub mod matchdir; // match folders: open or create games with journal and key, restart
pub mod relay;
pub mod session; // now -> decide -> append -> evolve; script runner
pub mod tui; // the board-side terminal UI // the live relay: a PGN file of the match so far for broadcasters
