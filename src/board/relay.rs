//! The live relay (`arbiter relay`, `arbiter display --relay`): a PGN file of the match so far
//! that a broadcaster picks up, rewritten atomically after every log entry that changes it.
//!
//! Each game is the PGN `arbiter pgn` writes (the same builder: `%clk` is the true clock after the
//! move, the period's time included at move 40 and 60; `%emt` the move's time; clock jumps as
//! comments), with the relay's tags after the others: `UTCDate`/`UTCTime` of the start of the
//! clock, `WhiteClock`/`BlackClock` as of the latest entry shown, `Clock` (`W/…` or `B/…`) for the
//! clock running then, and the clock stops and suspensions as comments. With a delay the audience
//! sees the game as the log stood `delay` earlier, decided on the entries' own times, so a relay
//! started late holds back exactly as much. The kit opens no network connection: the file is all.
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::board::follow::{GameTail, MatchTail, Stamp};
use crate::core::event::{Event, EventKind};
use crate::core::game::Game;
use crate::core::view::ClockState;
use crate::core::{Side, timefmt};
use crate::report::pgn::{format_clock, write_pgn};
use crate::report::times::times;

/// The PGN of one game as its log stood after `events` (stamped `stamps`, the same length). Pure:
/// the clocks are those at the latest entry's time. `None` before line 0.
///
/// A step the core would complete at once is not published: after a move that ends the game by
/// itself (checkmate, stalemate) the result is due, and the file keeps the step before until the
/// result's entry comes (a mated position under `*` is not a clean PGN).
pub fn game_pgn(events: &[Event], stamps: &[Stamp]) -> Option<String> {
    let (first, last) = (stamps.first()?, stamps.last()?);
    let game = Game::replay(events.iter()).ok()?;
    if result_due(&game, last.mono) {
        let k = events.len() - 1;
        return game_pgn(&events[..k], &stamps[..k]);
    }
    let t = times(events);
    let first_utc = first.utc.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string();
    let mut pg = crate::report::pgn::pgn_game(&game, &t, &first_utc);

    // Clock stops and suspensions, as comments before the move that followed them in the
    // standing record (one made after a move since taken back goes before the move played in
    // its place), in the log's order among that move's other comments (the times' items).
    let mut stops: Vec<(usize, usize, String)> = Vec::new();
    let mut plies = 0usize;
    for (k, (e, s)) in events.iter().zip(stamps).enumerate() {
        match &e.kind {
            EventKind::MoveMade { .. } => plies += 1,
            EventKind::MovesTakenBack { plies: n, .. } => {
                plies = plies.saturating_sub(*n);
                for st in &mut stops {
                    st.0 = st.0.min(plies);
                }
            }
            _ => {}
        }
        if let Some(text) = stop_comment(e, &game, s) {
            stops.push((plies, k, text));
        }
    }
    let n = pg.moves.len();
    for (i, (ply, entry, text)) in stops.iter().enumerate() {
        let here = |p: usize| p.min(n) == (*ply).min(n);
        let earlier = t
            .items
            .iter()
            .filter(|it| here(it.before_ply) && it.entry < *entry)
            .count()
            + stops[..i].iter().filter(|(p, ..)| here(*p)).count();
        let list = match pg.moves.get_mut(*ply) {
            Some(m) => &mut m.before,
            None => &mut pg.trailing,
        };
        list.insert(earlier.min(list.len()), text.clone());
    }

    // As `arbiter pgn` warns: a game signed with the demo key proves nothing.
    if let Some(EventKind::GameOpened(o)) = events.first().map(|e| &e.kind)
        && o.arbiter_key.demo
    {
        let warning = "DEMO KEY: this game is signed with the demo key of logs/demo; its signatures prove nothing".to_string();
        match pg.moves.first_mut() {
            Some(m) => m.before.insert(0, warning),
            None => pg.trailing.insert(0, warning),
        }
    }

    let started = events
        .iter()
        .zip(stamps)
        .find(|(e, _)| matches!(e.kind, EventKind::ClockStarted { .. }))
        .map_or(first, |(_, s)| s);
    let view = game.view(last.mono, 0);
    let clock = |side: Side| format_clock(view.clocks[side.index()].remaining_ms.max(0) as u64);
    pg.extra = vec![
        ("UTCDate".into(), started.utc.format("%Y.%m.%d").to_string()),
        ("UTCTime".into(), started.utc.format("%H:%M:%S").to_string()),
        ("WhiteClock".into(), clock(Side::White)),
        ("BlackClock".into(), clock(Side::Black)),
    ];
    if let Some(c) = view.clocks.iter().find(|c| c.state == ClockState::Running) {
        let letter = if c.side == Side::White { "W" } else { "B" };
        pg.extra
            .push(("Clock".into(), format!("{letter}/{}", clock(c.side))));
    }
    Some(write_pgn(&pg))
}

/// Whether the core would record the game's end at `at` (the position ended it; its entry is
/// next in the log).
pub fn result_due(game: &Game, at: crate::core::Ms) -> bool {
    game.outcome().is_none()
        && game
            .due(at)
            .is_some_and(|e| matches!(e.kind, EventKind::GameEnded { .. }))
}

/// The comment a clock stop, a suspension or their end makes in the relay, with its clause and
/// the time (UTC and game time).
fn stop_comment(e: &Event, game: &Game, s: &Stamp) -> Option<String> {
    let machine = game
        .machine_side()
        .map_or_else(|| "the machine".to_string(), |m| format!("{m}"));
    let what = match &e.kind {
        EventKind::ClockStopped { reason } => {
            format!("clocks STOPPED by the arbiter: {reason}")
        }
        EventKind::ClockResumed { side } => format!("clocks restarted, {side}'s clock running"),
        EventKind::InfoStopped { .. } => {
            format!("{machine}'s clock stopped while the supervisor asks the operator")
        }
        EventKind::InfoResumed => format!("{machine}'s clock running again"),
        EventKind::PowerFailed { .. } => "game SUSPENDED: power failure".to_string(),
        EventKind::PowerRestored { .. } => "power restored".to_string(),
        _ => return None,
    };
    Some(format!(
        "{}: {what} at {} UTC (game time {})",
        e.clause,
        s.utc.format("%H:%M:%S"),
        timefmt::clock(e.at as i64)
    ))
}

/// The entries of `g` an audience delayed by `delay` sees at `now`.
fn visible(g: &GameTail, now: DateTime<Utc>, delay: Duration) -> usize {
    if delay.is_zero() {
        return g.events.len();
    }
    let cutoff = chrono::Duration::from_std(delay)
        .ok()
        .and_then(|d| now.checked_sub_signed(d))
        .unwrap_or(DateTime::<Utc>::MIN_UTC);
    g.entries_until(cutoff)
}

/// The relay file's text at `now`: every game with a visible entry, in order. `None` while no
/// game has one (nothing to write yet).
pub fn match_pgn(m: &MatchTail, now: DateTime<Utc>, delay: Duration) -> Option<String> {
    let games: Vec<String> = m
        .followed()
        .filter_map(|g| {
            let k = visible(g, now, delay);
            game_pgn(&g.events[..k], &g.stamps[..k])
        })
        .collect();
    (!games.is_empty()).then(|| games.join("\n"))
}

/// When the next held-back entry becomes visible (`None`: nothing is held back).
pub fn next_reveal(m: &MatchTail, now: DateTime<Utc>, delay: Duration) -> Option<Duration> {
    if delay.is_zero() {
        return None;
    }
    let d = chrono::Duration::from_std(delay).ok()?;
    m.followed()
        .filter_map(|g| g.stamps.get(visible(g, now, delay)))
        .map(|s| (s.utc + d - now).to_std().unwrap_or(Duration::ZERO))
        .min()
}

/// Why the relay cannot write.
#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    #[error(
        "{}: the relay file may not be written inside the match folder {} (its files are the log's; write it elsewhere)",
        .out.display(), .dir.display()
    )]
    InsideMatch { out: PathBuf, dir: PathBuf },
    /// The kit's rule for every output (`fsio::check_output`): not over the match's own files,
    /// not over a file that is not a PGN the kit wrote.
    #[error(transparent)]
    Refused(#[from] crate::record::fsio::OutputRefused),
    /// A followed game's log cannot be read further (a bad line, a broken chain).
    #[error("{0}")]
    Log(String),
    /// A followed game is shogi: the relay writes PGN, which holds chess only.
    #[error("relay: {0}")]
    Shogi(crate::report::csa::RecordError),
    #[error("{}: {source}", .out.display())]
    Write {
        out: PathBuf,
        source: std::io::Error,
    },
}

/// The relay file and what was last written to it.
#[derive(Debug)]
pub struct Relay {
    out: PathBuf,
    pub delay: Duration,
    written: Option<String>,
    /// Entries shown per game at the last write: nothing is rebuilt while they stay the same.
    shown: Vec<(u32, usize)>,
    /// Times the file was rewritten.
    pub writes: u64,
}

impl Relay {
    /// A relay writing `out` for the match in `match_dir` (refused inside that folder).
    pub fn new(out: &Path, match_dir: &Path, delay: Duration) -> Result<Relay, RelayError> {
        if inside(out, match_dir) {
            return Err(RelayError::InsideMatch {
                out: out.to_owned(),
                dir: match_dir.to_owned(),
            });
        }
        crate::record::fsio::check_output(out, crate::record::fsio::Purpose::Pgn, false)?;
        Ok(Relay {
            out: out.to_owned(),
            delay,
            written: None,
            shown: Vec::new(),
            writes: 0,
        })
    }

    /// Rewrite the file (atomically: a new file, then a rename) if what the audience sees at
    /// `now` changed. Returns whether it was written.
    pub fn update(&mut self, m: &MatchTail, now: DateTime<Utc>) -> Result<bool, RelayError> {
        let shown: Vec<(u32, usize)> = m
            .followed()
            .map(|g| (g.number, visible(g, now, self.delay)))
            .collect();
        if shown == self.shown {
            return Ok(false);
        }
        if let Some(g) = m.followed().find(|g| {
            g.events
                .first()
                .and_then(|e| Game::replay(std::iter::once(e)).ok())
                .is_some_and(|game| game.board().shogi().is_some())
        }) {
            return Err(RelayError::Shogi(
                crate::report::csa::RecordError::PgnOfShogi(g.number),
            ));
        }
        let Some(text) = match_pgn(m, now, self.delay) else {
            return Ok(false);
        };
        if self.written.as_deref() == Some(text.as_str()) {
            self.shown = shown;
            return Ok(false);
        }
        crate::record::journal::write_atomic(&self.out, text.as_bytes()).map_err(|source| {
            RelayError::Write {
                out: self.out.clone(),
                source,
            }
        })?;
        self.written = Some(text);
        self.shown = shown;
        self.writes += 1;
        Ok(true)
    }

    pub fn out(&self) -> &Path {
        &self.out
    }
}

/// Whether `out` would land inside `dir` (both resolved as far as they exist).
fn inside(out: &Path, dir: &Path) -> bool {
    let Ok(dir) = dir.canonicalize() else {
        return false;
    };
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    parent.canonicalize().is_ok_and(|p| p.starts_with(&dir))
}

/// Follow the match in `dir` (game `only`, or all) and keep `relay`'s file up to date until
/// `keep_going` says stop; `once` writes what there is now and returns. A log that cannot be
/// read further fails `once` (what was read before it is still written); a live relay goes on
/// with the games it can read and hands each problem to `warn` once.
pub fn follow(
    dir: &Path,
    only: Option<u32>,
    relay: &mut Relay,
    once: bool,
    keep_going: &dyn Fn() -> bool,
    warn: &mut dyn FnMut(&str),
) -> Result<(), RelayError> {
    follow_from(dir, None, only, relay, once, keep_going, warn)
}

/// [`follow`], following the live record at `connect` (`ws://HOST:PORT/live`) instead of the
/// folder when given (read-only; `once` waits until the record sent what it holds now).
pub fn follow_from(
    dir: &Path,
    connect: Option<&str>,
    only: Option<u32>,
    relay: &mut Relay,
    once: bool,
    keep_going: &dyn Fn() -> bool,
    warn: &mut dyn FnMut(&str),
) -> Result<(), RelayError> {
    use crate::board::follow::{Wake, Watch, wait};
    let (tx, rx) = std::sync::mpsc::channel::<Wake<()>>();
    let (mut m, mut watch) = match connect {
        Some(url) => (MatchTail::connect(url, only, tx), Watch::Live),
        None => {
            let w = Watch::start(dir, tx);
            (MatchTail::new(dir, only), w)
        }
    };
    m.poll();
    if m.is_live() && once {
        // The record as it stands: what comes before a quiet moment after the connection.
        let mut quiet_since = std::time::Instant::now();
        while quiet_since.elapsed() < LIVE_SETTLE || !m.live_connected {
            if !wait(&rx, LIVE_SETTLE).is_empty() && m.poll() {
                quiet_since = std::time::Instant::now();
            }
            if let Some(p) = &m.live_problem {
                return Err(RelayError::Log(p.clone()));
            }
        }
    }
    relay.update(&m, Utc::now())?;
    if once {
        return match m.followed().find_map(|g| g.problem.clone()) {
            Some(p) => Err(RelayError::Log(p)),
            None => Ok(()),
        };
    }
    let mut told: Vec<String> = Vec::new();
    let mut tell = |m: &MatchTail| {
        let problems = m.followed().filter_map(|g| g.problem.as_ref());
        for p in problems.chain(m.live_problem.as_ref()) {
            if !told.contains(p) {
                warn(p);
                told.push(p.clone());
            }
        }
    };
    tell(&m);
    watch.follow(&m);
    while keep_going() {
        let mut timeout = m.poll_every(&watch);
        if let Some(r) = next_reveal(&m, Utc::now(), relay.delay) {
            timeout = timeout.min(r + Duration::from_millis(1));
        }
        let _ = wait(&rx, timeout);
        if m.poll() {
            tell(&m);
            watch.follow(&m);
        }
        relay.update(&m, Utc::now())?;
    }
    Ok(())
}

/// How long the live record must stay quiet before `relay --connect --once` writes.
const LIVE_SETTLE: Duration = Duration::from_millis(500);
