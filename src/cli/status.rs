//! `arbiter status`: the state of a game rebuilt from its log.
use clap::Args;

use super::MatchArg;
use crate::core::game::Game;
use crate::error::{Error, Exit};
use crate::layout;
use crate::matchdir::{match_score, read_game};
use crate::session::summary_text;

#[derive(Debug, Clone, Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long)]
    pub game: Option<u32>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: &StatusArgs) -> Result<Exit, Error> {
    let dir = &a.m.dir;
    let n = a.m.game_or_last(a.game)?;
    let (_, events) = read_game(&layout::log_path(dir, n)).map_err(Error::cannot_read)?;
    let g = Game::replay(events.iter()).map_err(Error::bad_input)?;
    let check = crate::witness::check_before_showing(dir, n);
    for l in &check.lines {
        errln!("{l}");
    }
    if a.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&g.view(g.last_at, usize::MAX)).unwrap_or_default()
        )?;
    } else {
        out!("{}", summary_text(&g, g.last_at, events.len()))?;
        if let Some(cp) = crate::witness::latest_checkpoint(dir, n) {
            outln!(
                "latest checkpoint: {} entries, code {} (a camp notes it; arbiter verify --code checks it)",
                cp.size,
                cp.short_code()
            )?;
        }
        for (name, pts) in match_score(dir) {
            outln!("match score: {name} {pts}")?;
        }
    }
    Ok(check.failing.map_or(Exit::Ok, |s| s.exit()))
}
