//! `arbiter status`: the state of a game rebuilt from its log; a running clock is shown as it is
//! now (computed from the last entry's time), and the match score.
use chrono::{DateTime, Utc};
use clap::Args;

use super::MatchArg;
use crate::board::matchdir::{Replayed, match_score_with, replay_verified};
use crate::board::session::summary_text;
use crate::core::game::{Game, Phase};
use crate::core::{Ms, timefmt};
use crate::error::{Error, Exit};
use crate::log::Entry;

#[derive(Debug, Clone, Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub m: MatchArg,
    #[arg(long, value_parser = super::game_number)]
    pub game: Option<u32>,
    #[arg(long)]
    pub json: bool,
}

/// Game time now: the last entry's game time plus the wall-clock time since it was written,
/// when a clock is running (otherwise the last entry's time: nothing runs on).
fn game_time_now(g: &Game, last: Option<&Entry>, now: DateTime<Utc>) -> (Ms, bool) {
    let running = g.phase() == Phase::Playing && g.clock().running().is_some();
    let Some(last) = last.filter(|_| running) else {
        return (g.last_at(), false);
    };
    let Ok(at) = DateTime::parse_from_rfc3339(&last.utc) else {
        return (g.last_at(), false);
    };
    // The last entry's own game time, never the session's monotonic reading beside it (a
    // restarted board's session counts from its own start).
    let since = (now - at.with_timezone(&Utc)).num_milliseconds().max(0) as Ms;
    (g.last_at().saturating_add(since), true)
}

pub fn run(a: &StatusArgs) -> Result<Exit, Error> {
    let dir = &a.m.dir;
    let n = a.m.game_or_last(a.game)?;
    if crate::after::report_io::is_werewolf_game(dir, n) {
        return super::werewolf::status(dir, n, a.json);
    }
    // The game is replayed from the lines verify's one pass checked.
    // A restart whose wall clock disagreed with the boot clock: the ruling's entry says so.
    let (check, replayed) = replay_verified(dir, n, Vec::new, |seen: &mut Vec<String>, e| {
        if let crate::core::event::EventKind::RestartGap {
            gap_ms,
            wall_clock: Some(w),
            ..
        } = &e.kind
        {
            seen.push(format!(
                "restart (gap {} ruled on at game time {}): {w}",
                timefmt::clock(*gap_ms as i64),
                timefmt::clock(e.at as i64)
            ));
        }
    });
    let (
        Replayed {
            game: g,
            entries,
            last,
            ..
        },
        wall_clock,
    ) = replayed.map_err(|e| super::replay_failure_checked(dir, n, e, Some(&check)))?;
    for l in &check.lines {
        errln!("arbiter: {l}");
    }
    let wall = Utc::now();
    let (now, computed) = game_time_now(&g, Some(&last), wall);
    let score = match_score_with(dir, Some((n, &g)));
    // The match rules of this game's profile say whether the score decides the match.
    let decided = g
        .profile()
        .match_rules
        .as_ref()
        .and_then(|r| r.decided_text(&score));
    let unfinished = crate::board::matchdir::unfinished_before(dir, n);
    let warning = crate::board::matchdir::unfinished_warning(dir, n);
    if a.json {
        if let Some(w) = &warning {
            errln!("arbiter: warning: {w}");
        }
        let mut v = serde_json::to_value(g.view(now, usize::MAX)).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.insert(
                "now".into(),
                serde_json::json!({
                    "game_time_ms": now,
                    "last_entry_ms": g.last_at(),
                    "computed": computed,
                    "utc": wall.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
                    "note": if computed {
                        "a clock is running: its value is computed for now from the last entry's time, not read from the log"
                    } else {
                        "no clock is running: the values are those of the last entry"
                    },
                }),
            );
            o.insert("unfinished_games".into(), serde_json::json!(unfinished));
            if !wall_clock.is_empty() {
                o.insert("wall_clock".into(), serde_json::json!(wall_clock));
            }
            o.insert(
                "match_score".into(),
                serde_json::Value::Array(
                    score
                        .iter()
                        .map(|(name, points)| serde_json::json!({"name": name, "points": points}))
                        .collect(),
                ),
            );
            if let Some(line) = &decided {
                o.insert("match_decided".into(), serde_json::json!(line));
            }
        }
        outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default())?;
    } else {
        out!("{}", summary_text(&g, now, entries as usize))?;
        if let Some(cp) = crate::record::witness::latest_checkpoint(dir, n) {
            outln!(
                "latest checkpoint: {} entries, code {} (a camp notes it; arbiter verify --code checks it)",
                cp.size,
                cp.short_code()
            )?;
        }
        if computed {
            outln!(
                "clocks as of now ({} UTC, game time {} from the game's first entry), computed: the last entry is at game time {}",
                wall.format("%Y-%m-%d %H:%M:%S"),
                timefmt::clock(now as i64),
                timefmt::clock(g.last_at() as i64)
            )?;
        } else {
            outln!(
                "clocks as of the last entry (game time {}, from the game's first entry): no clock is running",
                timefmt::clock(g.last_at() as i64)
            )?;
        }
        for (name, pts) in &score {
            outln!("match score: {name} {pts}")?;
        }
        if let Some(line) = decided {
            outln!("{line}")?;
        }
        if let Some(w) = &warning {
            outln!("{w}")?;
        }
        for w in &wall_clock {
            outln!("{}", super::printable(w))?;
        }
    }
    Ok(check.failing.map_or(Exit::Ok, |s| s.exit()))
}
