//! After the game (rule 13): the engine-log and program archive appended to the game log with the
//! 13a deadline check and the 13c coverage, and the PGN export.
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::after::archive::{ArchiveError, archive_copies};
use crate::core::command::Command;
use crate::core::event::Event;
use crate::core::game::{Game, HandoverFacts, HandoverTerms, ReplayError};
use crate::enginelog::{self, EngineLogError, MachineMove};
use crate::log::codec::DecodeError;
use crate::record::journal::{Damage, Journal, JournalError};
use crate::record::layout::{game_dir, log_path};
use crate::record::sign::KeySource;
use crate::report::pgn::{PgnMove, write_pgn};

fn parse_utc(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The machine's moves of a finished game with the time each took (from the game's
/// [`Times`](crate::report::times::Times)), for the 13c check.
pub fn machine_moves(
    game: &Game,
    times: &crate::report::times::Times,
) -> Result<Vec<MachineMove>, EngineLogError> {
    machine_moves_of(game, times, &program_sides(game))
}

/// [`machine_moves`] of the given `sides` only (shogi: one program's own log, `archive --side`).
pub fn machine_moves_of(
    game: &Game,
    times: &crate::report::times::Times,
    sides: &[crate::core::Side],
) -> Result<Vec<MachineMove>, EngineLogError> {
    let mut mm = if let Some(shogi) = game.board().shogi() {
        // Shogi: the moves in USI from the record's start, for a USI engine log.
        let usi: Vec<&str> = shogi.moves().iter().map(|x| x.uci.as_str()).collect();
        enginelog::machine_moves_from_usi(shogi.start_sfen(), &usi, sides)?
    } else {
        let Some(m) = game.machine_side() else {
            return Ok(Vec::new());
        };
        let sans: Vec<String> = game
            .board()
            .moves()
            .iter()
            .map(|x| x.san.to_string())
            .collect();
        enginelog::machine_moves_from_san(&sans, m == crate::core::Side::White, None)?
    };
    let spent = times.pgn_moves().0;
    for x in &mut mm {
        x.spent_ms = spent.get(x.ply).map(|p| p.spent_ms);
    }
    Ok(mm)
}

/// The sides whose moves the engine log handed over must show: the machine's; in a shogi game
/// between two programs (Denryu-sen 5.2), both, for a program that played itself and logged both
/// sides in one file (its USI log names the side to move of every search).
pub fn program_sides(game: &Game) -> Vec<crate::core::Side> {
    game.engine_log_sides(None).unwrap_or_default()
}

/// Rule 6c from the engine's own log: the clock it was given at each search against the machine's
/// official clock when its turn began, with the declared threshold (else the profile's).
pub fn audit_6c(
    game: &Game,
    times: &crate::report::times::Times,
    log: &enginelog::EngineLog,
    coverage: &enginelog::Coverage,
    sides: &[crate::core::Side],
) -> enginelog::ClockAudit {
    let machine = game.machine_side();
    let official: Vec<enginelog::OfficialClock> = times
        .moves
        .iter()
        .filter(|m| sides.contains(&m.side))
        .map(|m| enginelog::OfficialClock {
            ply: m.ply,
            official_ms: m.turn_clock_ms,
            synced: m.synced_in_turn,
        })
        .collect();
    let threshold = game.sync_threshold_ms();
    enginelog::clock_audit(
        log,
        coverage,
        machine == Some(crate::core::Side::White),
        &official,
        threshold,
        game.profile().sync_rule(),
    )
}

/// The moves standing at the end with their clock figures, following takebacks and 7c corrections;
/// each move's time is the drop of its side's clock between its presses (`report::times`).
pub fn pgn_moves(events: &[Event]) -> Vec<PgnMove> {
    crate::report::times::times(events).pgn_moves().0
}

/// The game as PGN.
pub fn pgn_of(events: &[Event], first_utc: &str) -> Result<String, ReplayError> {
    let game = Game::replay(events.iter())?;
    Ok(pgn_of_game(
        &game,
        &crate::report::times::times(events),
        first_utc,
    ))
}

/// The PGN of a rebuilt game with its [`Times`](crate::report::times::Times): the moves standing
/// and the clock items as comments.
pub fn pgn_of_game(game: &Game, times: &crate::report::times::Times, first_utc: &str) -> String {
    write_pgn(&crate::report::pgn::pgn_game(game, times, first_utc))
}

/// Why the archive of rule 13 was refused or failed; nothing is appended to the log unless the
/// copies were stored.
#[derive(Debug, thiserror::Error)]
pub enum PostgameError {
    /// The game log could not be opened.
    #[error(transparent)]
    Open(JournalError),
    #[error("the game log is damaged; nothing archived: {0}")]
    Damaged(Box<Damage>),
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The core refused the hand-over (13a: no result yet, delivered before the end, too few
    /// copies); nothing was stored.
    #[error("{0}")]
    Refused(#[from] crate::core::Refusal),
    /// The game could not be opened for appending.
    #[error(transparent)]
    Game(#[from] crate::board::matchdir::MatchError),
    /// The archive entries were refused or could not be recorded.
    #[error(transparent)]
    Session(#[from] crate::board::session::SessionError),
    #[error("no game_ended entry")]
    NoEnd,
    #[error("bad utc in the game_ended entry")]
    BadEndUtc,
    #[error("--delivered '{0}' is not an RFC 3339 time")]
    Delivered(String),
    /// The copies were refused (13a) or could not be stored.
    #[error("refused: {0}")]
    Copies(#[from] ArchiveError),
    #[error("{}: {source}", .path.display())]
    ReadStored {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The stored engine log or the game's moves could not be read for 13c.
    #[error(transparent)]
    EngineLog(EngineLogError),
    #[error(transparent)]
    MachineMoves(EngineLogError),
    #[error("empty log")]
    EmptyLog,
    /// The archive entries could not be appended to the game log.
    #[error(transparent)]
    Append(JournalError),
}

/// What the operator hands over after the game (rule 13), and the key that signs after it.
#[derive(Debug, Clone)]
pub struct Handover<'a> {
    pub files: HandedFiles<'a>,
    /// The key that signs the checkpoint after the archive entries.
    pub key: &'a KeySource,
}

/// Archive the copies (13a, 13d) and record the hand-over with the 13c coverage in the game log.
/// The shell examines the files and measures the delivery time; the core decides whether the
/// hand-over is accepted, whether it is late and which clause the entry cites (rule 13, see
/// `core::game::after`), and the entries go through the session's decide → append → evolve, which
/// signs a checkpoint after them. Returns the summary to print, and the 13c finding when the
/// machine's log is empty or in no format the kit reads (recorded; the command then fails).
pub fn archive(a: &Handover<'_>) -> Result<(String, Option<String>), PostgameError> {
    let f = &a.files;
    let path = log_path(f.match_dir, f.game);
    {
        let journal = Journal::open(&path).map_err(PostgameError::Open)?;
        if let Some(d) = journal.damage() {
            return Err(PostgameError::Damaged(Box::new(d.clone())));
        }
    }
    let opened =
        crate::board::matchdir::open_game_with(f.match_dir, Some(f.game), None, a.key, false)?;
    let mut session = opened.session;
    let before = session.storage.len();
    let (recorded, summary) = hand_over(&mut session, f, opened.now_ms)?;
    // 5b: `arbiter archive` ran with the arbiter's own key; its entries are covered
    // by an authorization naming the key and signed by it, as a script's are.
    let after = session.storage.len();
    if after > before {
        let cmd = crate::core::command::Command::Authorize {
            by: "arbiter archive, with the arbiter's signing key".into(),
            words: format!("arbiter archive --game {}", f.game),
            first: before as u64,
            last: after as u64 - 1,
        };
        let now = session.game.last_at();
        if session.execute(&cmd, now).is_ok() {
            // The authorization is signed too: no unsigned tail after an archive.
            let _ = session.storage.checkpoint_now(Utc::now());
        }
    }
    let c = session
        .game
        .cites(crate::core::clause::ENGINE_LOG_CONTENT)
        .to_string();
    let finding = recorded.iter().find_map(|e| match &e.kind {
        crate::core::event::EventKind::EngineLogArchived(v)
            if v.pointer("/coverage/status").and_then(|s| s.as_str()) == Some("unknown-format") =>
        {
            Some(format!(
                "rule {c}: the machine's log handed over shows none of what {c} asks for (empty \
                 or in no format the kit reads); archived and recorded as a finding for the \
                 committee"
            ))
        }
        _ => None,
    });
    Ok((summary, finding))
}

/// The files handed over after the game (13a, 13d), for [`hand_over`].
#[derive(Debug, Clone, Copy)]
pub struct HandedFiles<'a> {
    pub match_dir: &'a Path,
    pub game: u32,
    /// The copies of the machine's log file (13a).
    pub copies: &'a [PathBuf],
    /// The copy of the program (13d).
    pub program: Option<&'a Path>,
    /// Delivery time (RFC 3339); `None`: now.
    pub delivered: Option<&'a str>,
    /// The side whose program's own log the copies are (a game between two different programs);
    /// `None`: the log of every program side.
    pub side: Option<crate::core::Side>,
}

/// Examine the files handed over, let the core decide (13a refusal, lateness, clause), store them
/// and record the hand-over through `session` (the game's open session: `arbiter archive` or the
/// Board UI). The game's log is read again (streamed) for the moves' times of the 13c coverage.
pub fn hand_over(
    session: &mut crate::board::session::Session,
    a: &HandedFiles<'_>,
    now_ms: crate::core::Ms,
) -> Result<(Vec<Event>, String), PostgameError> {
    let path = log_path(a.match_dir, a.game);
    let mut end_utc = None;
    let mut times = crate::report::times::TimesStream::default();
    crate::record::journal::for_each_entry(&path, |e| {
        if e.kind == "game_ended" && end_utc.is_none() {
            end_utc = Some(e.utc.clone());
        }
        if let Ok(ev) = crate::log::codec::event_of(&e) {
            times.push(&ev);
        }
        true
    })
    .map_err(PostgameError::Open)?;
    let times = times.finish();
    let now = Utc::now();
    let mut delivered = match a.delivered {
        Some(s) => parse_utc(s).ok_or_else(|| PostgameError::Delivered(s.to_string()))?,
        None => now,
    };
    // A delivery time the kit can check, it checks: not in the future (a minute's leeway for
    // clocks read by hand). A log recorded on a virtual clock (a script rehearsal) may end after
    // the wall clock's now: its deliveries are then bounded by a day after its end.
    let end_at = end_utc.as_deref().and_then(parse_utc);
    let horizon = match end_at {
        Some(end) if end > now => end + chrono::Duration::days(1),
        _ => now + chrono::Duration::minutes(1),
    };
    if delivered > horizon {
        return Err(PostgameError::Refused(crate::core::Refusal::new(
            crate::core::clause::ENGINE_LOG,
            format!(
                "the delivery time {} is in the future (it is {} now): give the time the copies \
                 were handed over",
                crate::log::format_utc(&delivered),
                crate::log::format_utc(&now)
            ),
        )));
    }
    // Refusals that need no file read come first: no result yet, delivered before the end.
    let after_ms = match &end_utc {
        Some(u) => {
            let end = parse_utc(u).ok_or(PostgameError::BadEndUtc)?;
            // Without --delivered the delivery is now; a script that recorded the game faster than
            // real time may have stamped the end later than now: the delivery is then at the end,
            // and the entry's `delivered` says so (it and `after_game_end_ms` agree).
            if a.delivered.is_none() && delivered < end {
                delivered = end;
            }
            (delivered - end).num_milliseconds()
        }
        None => 0,
    };
    let terms = session.game.handover_terms(a.copies.len(), after_ms)?;
    // Whose moves the log must show: the one side given (its program's own log), else all programs.
    let sides = session.game.engine_log_sides(a.side)?;
    if end_utc.is_none() {
        return Err(PostgameError::NoEnd);
    }
    let outcome = archive_copies(
        &game_dir(a.match_dir, a.game),
        a.copies,
        terms.min_copies,
        a.program,
    )?;

    // 13c: what the archived log shows for every machine move.
    let stored = game_dir(a.match_dir, a.game).join(&outcome.log.name);
    let file =
        crate::record::fsio::open_regular(&stored).map_err(|source| PostgameError::ReadStored {
            path: stored.clone(),
            source,
        })?;
    let parsed =
        enginelog::parse(std::io::BufReader::new(file)).map_err(PostgameError::EngineLog)?;
    let mm =
        machine_moves_of(&session.game, &times, &sides).map_err(PostgameError::MachineMoves)?;
    let coverage = enginelog::coverage(&parsed, &mm);
    let clock_audit = audit_6c(&session.game, &times, &parsed, &coverage, &sides);

    let mut log = serde_json::Map::new();
    log.insert("copies".into(), json!(outcome.copies));
    log.insert("stored".into(), json!(outcome.log));
    log.insert("sums_file".into(), json!(outcome.sums_file));
    log.insert("sums_sha256".into(), json!(outcome.sums_sha256));
    log.insert("coverage".into(), json!(coverage));
    log.insert("clock_audit".into(), json!(clock_audit));
    if let Some(side) = a.side {
        // The side whose program's log this is (two different programs: a log each).
        log.insert("side".into(), json!(session.game.side_label(side)));
    }
    let program = outcome.program.as_ref().map(|p| {
        let mut m = serde_json::Map::new();
        m.insert("stored".into(), json!(p));
        m
    });
    let facts = HandoverFacts {
        copies: outcome.copies.len(),
        after_end_ms: after_ms,
        delivered: crate::log::format_utc(&delivered),
        log,
        program,
    };
    let recorded = session.execute(&Command::Handover(Box::new(facts)), now_ms)?;
    let signed = session.storage.status();
    // The game's own clause numbers (shogi: the Denryu-sen articles), and whose log it is.
    let g = &session.game;
    let whose = a.side.map_or(String::new(), |x| {
        format!(" ({}'s program)", g.side_label(x))
    });
    let mut s = format!(
        "archived {} ({} bytes, sha256 {}) from {} identical copies; {}\n{}{whose}: {}\n{}{whose}: {}\n",
        outcome.log.name,
        outcome.log.size,
        outcome.log.sha256,
        outcome.copies.len(),
        outcome.sums_file,
        g.cites(crate::core::clause::ENGINE_LOG_CONTENT),
        coverage.summary,
        g.cites(crate::core::clause::INTERNAL_CLOCK),
        clock_audit.summary
    );
    if let Some(deadline) = terms.log_deadline_ms
        && HandoverTerms::late(terms.log_deadline_ms, after_ms)
    {
        s.push_str(&format!(
            "{}: delivered {} after the end of the game, later than {} — accepted and flagged\n",
            g.cites(crate::core::clause::ENGINE_LOG),
            crate::core::timefmt::clock(after_ms),
            crate::core::timefmt::clock(deadline)
        ));
    }
    if let Some(p) = &outcome.program {
        s.push_str(&format!(
            "{}: program {} ({} bytes, sha256 {})\n",
            g.cites(crate::core::clause::PROGRAM_COPY),
            p.name,
            p.size,
            p.sha256
        ));
        if let Some(deadline) = terms.program_deadline_ms
            && HandoverTerms::late(terms.program_deadline_ms, after_ms)
        {
            s.push_str(&format!(
                "{}: program copy LATE: delivered {} after the end of the game, later than {} — \
                 accepted and flagged\n",
                g.cites(crate::core::clause::PROGRAM_COPY),
                crate::core::timefmt::clock(after_ms),
                crate::core::timefmt::clock(deadline)
            ));
        }
    } else if let Some(deadline) = terms.program_deadline_ms
        && !session
            .game
            .handover_due()
            .is_some_and(|d| d.program_handed)
    {
        s.push_str(&format!(
            "{}: NO program copy handed over (due within {} of the end of the game{})\n",
            g.cites(crate::core::clause::PROGRAM_COPY),
            crate::core::timefmt::clock(deadline),
            if after_ms > deadline {
                ", now LATE"
            } else {
                ""
            }
        ));
    }
    if coverage.status == enginelog::CoverageStatus::UnknownFormat {
        s.push_str(&format!(
            "{c} FINDING: the machine's log handed over is {}: it shows nothing rule {c} asks for \
             (each search iteration, its evaluation, the time of each move)\n",
            if parsed.lines == 0 {
                "empty".to_string()
            } else {
                format!("in no format the kit reads ({} lines)", parsed.lines)
            },
            c = g.cites(crate::core::clause::ENGINE_LOG_CONTENT)
        ));
    }
    match (signed.warning, signed.signed_upto) {
        (None, Some(n)) => s.push_str(&format!(
            "checkpoint signed: {}",
            crate::record::layout::checkpoint_path(a.match_dir, a.game, n as u64).display()
        )),
        (Some(w), _) => s.push_str(&format!("WARNING: {w}")),
        (None, None) => s.push_str("WARNING: checkpoint not signed"),
    }
    Ok((recorded, s))
}
