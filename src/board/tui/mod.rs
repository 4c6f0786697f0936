//! Board-side terminal UI (`arbiter play`).
//!
//! Shape: keys -> [`Action`] is the pure [`on_key`]; the screen is the pure [`render`] of
//! (`&View`, `&UiState`, `&Status`); this file's [`run`] owns the terminal, and its key loop
//! (`keyloop`, split by concern) reads the monotonic clock, sleeps until something on screen
//! changes or a key comes, and passes commands to [`Session::execute`] (which returns only after
//! the log append).
pub mod backoff; // the wait after failed passphrases
pub mod board;
pub mod consequence;
pub mod countersign; // What each camp is asked to countersign
pub mod describe;
pub mod frame; // what reaches the terminal: whole frames, or only the clocks
mod keyloop; // the key loop of `run`, by concern
pub mod keys;
pub mod logpane;
pub mod movelist;
pub mod screen;
pub mod shogiboard; // the shogi board (kanji or letters, both hands)
pub mod terminal;
pub mod timing;

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::board::matchdir::MatchError;
use crate::board::session::Session;
use crate::core::command::{Command, parse};
use crate::core::event::Event;
use crate::core::{Ms, Refusal};
use crate::record::sign::KeySource;
use logpane::LogTail;

pub use describe::describe_event;
pub use keys::{
    Action, Alarm, LineKind, Message, Mode, MsgKind, Pending, UiState, after_execute, on_key,
    on_recorded,
};
pub use screen::{Screen, Status, WitnessShown, render};
pub use timing::{bell, sticky_alarms, wait_for};

/// How many of the latest moves (plies) the view carries: a wide screen shows the whole game up
/// to 60 moves and more.
pub const LAST_MOVES: usize = 160;

/// Milliseconds since the game's time origin, from the monotonic clock.
pub fn now_ms(origin: Instant, offset_ms: u64) -> Ms {
    offset_ms.saturating_add(u64::try_from(origin.elapsed().as_millis()).unwrap_or(u64::MAX))
}

/// Run the Board UI until the user quits. `now = offset_ms + origin.elapsed()`; `status` is asked
/// for the log's state before each frame; `notice` is shown in the message line at start.
/// The terminal is restored on return and on panic (ratatui's hook).
/// The shell's hand-over of rule 13 on the Board UI (`:arbiter archive [--side SIDE] COPY COPY …
/// [program FILE]`): examine and store the files (with a side, that side's program's own log),
/// record the entries through the session; returns what was recorded and the summary, or the
/// refusal.
pub type HandOver<'a> = dyn FnMut(
        &mut Session,
        &[String],
        Option<&str>,
        Option<crate::core::Side>,
    ) -> Result<(Vec<Event>, String), String>
    + 'a;

pub fn run(
    session: &mut Session,
    origin: Instant,
    offset_ms: u64,
    status: &mut dyn FnMut(&Session) -> Status,
    hand_over: &mut HandOver<'_>,
    authority: &Authority<'_>,
    ui: UiState,
) -> std::io::Result<()> {
    terminal::require()?;
    let mut terminal = match ratatui::try_init() {
        Ok(t) => t,
        Err(e) => {
            // Raw mode may be on even though the alternate screen failed.
            let _ = ratatui::try_restore();
            return Err(e);
        }
    };
    let hooks = keyloop::Hooks {
        status,
        hand_over,
        authority,
    };
    let result = keyloop::run_loop(&mut terminal, session, origin, offset_ms, hooks, ui);
    let restored = ratatui::try_restore();
    result.and(restored)
}

/// Opens the arbiter's key for one act with the passphrase typed (`None`: it does not open).
pub type OpensKey<'a> = Box<dyn Fn(&str) -> Option<crate::record::sign::ActKey> + Send + Sync + 'a>;

/// How the arbiter's authorization is given at this keyboard.
pub enum Authority<'a> {
    /// No gate (rehearsals in memory, tests): nothing asked, nothing recorded.
    Open,
    /// The signing key is not encrypted: there is nothing to ask; each arbiter-only command is
    /// recorded as authorized by an unencrypted key (anyone at the keyboard could give it).
    UnencryptedKey,
    /// The key is in ssh-agent (`--agent`): the agent is the gate (its own confirmation,
    /// `ssh-add -c`, or a hardware key's touch); nothing is asked here and each arbiter-only
    /// command is recorded as authorized through the agent.
    Agent,
    /// The signing key's passphrase, asked for each arbiter-only command and checked here: the
    /// check opens the key for the act (`None`: the passphrase does not open it), which signs
    /// what the act records and is dropped once it is recorded.
    Passphrase(OpensKey<'a>),
}

/// Whether `cmd` needs the arbiter's authorization: arbiter-only commands once the game is
/// recorded (declarations before the start are a draft; the start itself is authorized).
pub fn needs_authority(cmd: &Command, game: &crate::core::game::Game) -> bool {
    cmd.role() == crate::core::command::Role::Arbiter
        && !(crate::core::game::Game::is_declaration(cmd)
            && game.phase() == crate::core::game::Phase::Draft)
}

/// Declarations of the demo game: Kasparov (white, human) v Deep Junior (black, machine).
pub const DEMO_DECLARATIONS: &str = "\
arbiter declare white human Garry Kasparov
arbiter declare black machine Deep Junior
arbiter declare operator Amir Ban
arbiter declare team Shay Bushinsky, Boris Alterman
# 8a, DEMO: the SHA-256 of the text \"DEMO machine configuration: no real document\\n\"
arbiter declare config 3151b90fbc02afcb28e4f6e600a0cd2cb71e4292b48c398bffcc35b5e0150d25
";

/// The next game's declarations from the previous game's: the players with colours swapped, each
/// as the same kind of entrant (Denryu-sen 5.2: a program, a human, a team with its members, a
/// human consulting an AI with the program and method declared), the same operator and team, and
/// the same camps (names, keys and proofs of possession). The
/// 8a configuration digest is not carried over (the document is submitted before each game), and
/// the 6c algorithm carries over by itself (the context's previous algorithm).
pub fn carry_over(d: &crate::core::event::Declarations) -> Vec<Command> {
    let player = |side: crate::core::Side, p: &crate::core::event::Player| match &p.entrant {
        Some(entrant) => Command::DeclareEntrant {
            side,
            entrant: entrant.clone(),
            name: p.name.clone(),
        },
        None => Command::DeclarePlayer {
            side,
            kind: p.kind,
            name: p.name.clone(),
        },
    };
    let mut out = vec![
        player(crate::core::Side::White, &d.black),
        player(crate::core::Side::Black, &d.white),
    ];
    if !d.operator.is_empty() {
        out.push(Command::DeclareOperator {
            name: d.operator.clone(),
        });
    }
    if !d.team.is_empty() {
        out.push(Command::DeclareTeam {
            names: d.team.clone(),
        });
    }
    // The camps witness the whole match; each one's proof of possession is over
    // (match, camp, key), so it holds for every game and carries over with its key.
    out.extend(d.camps.iter().map(|c| Command::DeclareCamp {
        name: c.name.clone(),
        key: c.key.clone(),
        proof: c.proof.clone(),
    }));
    out
}

/// A declaration line that is not a command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct DeclarationError {
    pub line: usize,
    pub message: String,
}

/// Parse declaration lines (`arbiter declare ...`, or a script's `0 arbiter declare ...` with
/// its time; `#` comments, blank lines ignored).
pub fn parse_declarations(text: &str) -> Result<Vec<Command>, DeclarationError> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let kept = match crate::core::script::strip_comment(l) {
                Ok(k) => k,
                Err(e) => {
                    return Some(Err(DeclarationError {
                        line: i + 1,
                        message: e.to_string(),
                    }));
                }
            };
            let l = kept.trim();
            // A script line's time (`0`, `0:00:00`) is accepted and ignored: declarations have none.
            let l = match l.split_once(char::is_whitespace) {
                Some((t, rest)) if crate::core::timefmt::parse_duration(t).is_ok() => rest.trim(),
                _ => l,
            };
            (!l.is_empty()).then(|| {
                parse(l).map_err(|e| DeclarationError {
                    line: i + 1,
                    message: e.to_string(),
                })
            })
        })
        .collect()
}

/// What `arbiter play` opens.
#[derive(Debug, Clone)]
pub struct PlaySetup<'a> {
    pub match_dir: &'a Path,
    /// Game number (default: the unfinished game, else a new one).
    pub game: Option<u32>,
    /// Rules profile named for a new game (`--rules`): the match's first game's; later games keep
    /// the match's, another named is refused.
    pub rules: Option<&'a Path>,
    pub key: &'a KeySource,
    /// Pre-game declarations for a new game (a script file of `arbiter declare ...` lines).
    pub declarations: Option<&'a Path>,
    /// The demo match: a new game gets the demo declarations.
    pub demo: bool,
}

/// Why the Board UI could not open its game.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(transparent)]
    Match(#[from] MatchError),
    #[error("{}: {source}", .path.display())]
    Declarations {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Parse(#[from] DeclarationError),
    #[error(transparent)]
    Refused(#[from] Refusal),
}

/// The log page asked for older entries: read `count` entries from number `first` (not past the
/// latest kept) from the log file, streaming it (memory is the page). A failure is said on the
/// message line.
pub fn read_older(ui: &mut UiState, first: usize, count: usize) {
    let Some(path) = ui.log.path.clone() else {
        return;
    };
    let end = ui.log.first.min(first.saturating_add(count));
    let mut page = Vec::new();
    let mut n = 0usize;
    let read = crate::record::journal::for_each_entry(&path, |e| {
        if let Ok(ev) = crate::log::codec::event_of(&e) {
            if n >= first {
                page.push(ev);
            }
            n += 1;
        }
        n < end
    });
    match read {
        Ok(_) => ui.log.show_older(first, page),
        Err(e) => {
            ui.message = Some(Message::new(
                MsgKind::Error,
                format!("the log page could not read older entries: {e}"),
            ));
        }
    }
}

/// The session `arbiter play` drives, its time origin and offset, and the screen's first state
/// (the notice, the log so far, the match score).
/// What the Board UI folds from every entry of the log as the game is opened.
#[derive(Default)]
struct Folded {
    tail: LogTail,
    n: usize,
}

impl crate::board::matchdir::OpenObserver for Folded {
    fn event(&mut self, e: &crate::core::event::Event, r: crate::report::times::Replayed<'_>) {
        self.tail.fold_replayed(self.n, e, r);
        self.n += 1;
    }

    fn restart(&mut self) {
        *self = Folded::default();
    }
}

pub fn open_session(a: &PlaySetup<'_>) -> Result<(Session, Instant, u64, UiState), OpenError> {
    // The latest entries are kept; every entry is folded (moves' times, sticky alarms) from the
    // open's one replay (the game is not replayed a second time for the times).
    let mut folded = Folded::default();
    let opened = crate::board::matchdir::open_game_observed(
        a.match_dir,
        a.game,
        a.rules,
        a.key,
        true,
        &mut folded,
    )?;
    let game_n = opened.session.game.ctx().game;
    folded.tail.resume(&opened.session.game);
    let mut log = LogTail::new(opened.events_from, opened.events, folded.tail);
    log.path = Some(crate::record::layout::log_path(a.match_dir, game_n));
    let mut session = opened.session;
    // The key is decrypted once now (its passphrase asked on the terminal before the board
    // draws) for the heartbeat's anchor, then wiped: the board holds no decrypted key.
    let at_open = opened.now_ms;
    let asked = Instant::now();
    let signed = session.storage.open_key(at_open, session.utc_at(at_open));
    // The game time stood still while the passphrase was typed: UTC moves on with it.
    if let Ok(d) = chrono::Duration::from_std(asked.elapsed()) {
        session.utc_origin += d;
    }
    if let Err(e) = signed {
        return Err(match e {
            crate::board::session::StorageError::Sign(k) => MatchError::Key(k).into(),
            other => {
                MatchError::Key(crate::record::sign::SignError::Index(other.to_string())).into()
            }
        });
    }
    let mut notes: Vec<String> = opened.notice.into_iter().collect();
    if session.game.phase() == crate::core::game::Phase::Draft {
        let game = session.game.ctx().game;
        let previous = crate::board::matchdir::previous_declarations(a.match_dir, game);
        let decl_text = match (a.declarations, &previous) {
            (Some(p), _) => Some(crate::record::fsio::read_to_string(p).map_err(|source| {
                OpenError::Declarations {
                    path: p.to_owned(),
                    source,
                }
            })?),
            (None, Some(_)) => None,
            (None, None) if a.demo => Some(DEMO_DECLARATIONS.to_string()),
            (None, None) => None,
        };
        match (decl_text, previous) {
            (Some(t), _) => {
                for cmd in parse_declarations(&t)? {
                    session
                        .game
                        .declare(&crate::board::session::read_declared_files(&cmd)?)?;
                }
                let what = if a.declarations.is_some() {
                    "declarations loaded: check them below"
                } else {
                    "DEMO match with demo declarations and a demo key"
                };
                notes.push(format!("game {game}: {what} · Space starts White's clock"));
            }
            (None, Some((prev, d))) => {
                for cmd in carry_over(&d) {
                    session.game.declare(&cmd)?;
                }
                notes.push(format!(
                    "game {game}: declarations carried over from game {prev} with colours swapped (White {}, Black {}): check them below; :arbiter declare … changes one; Space records them and starts White's clock",
                    d.black.name, d.white.name
                ));
            }
            (None, None) => notes.push(format!(
                "game {game}: declare the game first (:arbiter declare white human NAME, black machine NAME, operator, team), then Space starts White's clock"
            )),
        }
        // The match rules say whether the earlier games decided the match.
        if let Some(line) = session.game.match_decided_text() {
            notes.push(line);
        }
        if session.game.draft().config_sha256.is_none() {
            notes.push(format!(
                "{}: no configuration digest declared for this game: :arbiter declare config-file PATH",
                session.game.cites(crate::core::clause::TECHNICAL)
            ));
        }
    }
    let notice = (!notes.is_empty()).then(|| notes.join(" · "));
    let mut ui = UiState::new(notice);
    ui.log = log;
    ui.utc_origin = Some(session.utc_origin);
    // This game as opened: its log is not read once more for the score.
    ui.score_table = crate::board::matchdir::match_score_with(
        a.match_dir,
        Some((session.game.ctx().game, &session.game)),
    );
    ui.score_of_this_game = session
        .game
        .points()
        .filter(|_| session.game.phase() == crate::core::game::Phase::Ended);
    ui.score = score_with_decision(&ui.score_table, &session.game);
    ui.shogi = session.game.board().shogi().is_some();
    ui.ascii = !terminal::utf8_locale();
    ui.no_color = terminal::no_color();
    Ok((session, Instant::now(), opened.now_ms, ui))
}

/// When this game's result is recorded on this board, add it to the match score in the header;
/// when a ruling changes it (12c), its new points replace the old; when it is voided (1), they
/// leave the score.
pub fn refresh_score(ui: &mut UiState, game: &crate::core::game::Game) {
    let now = game.points();
    if ui.score_of_this_game == now {
        return;
    }
    let points = now.unwrap_or([0.0, 0.0]);
    let counted = ui.score_of_this_game.unwrap_or([0.0, 0.0]);
    for side in crate::core::Side::BOTH {
        let name = game
            .player(side)
            .map_or_else(|| side.to_string(), |p| p.name.clone());
        let add = points[side.index()] - counted[side.index()];
        match ui.score_table.iter_mut().find(|(n, _)| *n == name) {
            Some(row) => row.1 += add,
            None => ui.score_table.push((name, add)),
        }
    }
    ui.score_of_this_game = now;
    ui.score = score_with_decision(&ui.score_table, game);
}

/// The header's match score, with "MATCH DECIDED" once the profile's winning score is reached
///, and whether the remaining games are still played.
pub fn score_with_decision(
    table: &[(String, f64)],
    game: &crate::core::game::Game,
) -> Option<String> {
    let score = score_text(table)?;
    let rules = game.profile().match_rules.as_ref();
    Some(match rules.and_then(|r| r.decided(table)).zip(rules) {
        Some(((name, _), r)) => format!(
            "{score} · MATCH DECIDED for {name} ({})",
            if r.play_after_decided {
                "the remaining games are still played"
            } else {
                "no further game"
            }
        ),
        None => score,
    })
}

/// `Kasparov 1½ – Deep Junior ½` from the match table; `None` before any game has a result.
pub fn score_text(table: &[(String, f64)]) -> Option<String> {
    if table.is_empty() {
        return None;
    }
    // Halves as a scoresheet writes them; any other fraction (Denryu-sen 14: a draw is 0.4 to
    // sente and 0.6 to gote) as the decimal `status` prints, never rounded to a half.
    let points = |p: f64| {
        let whole = p.trunc();
        let frac = p - whole;
        if frac.abs() < 1e-9 {
            return (whole as u64).to_string();
        }
        if (frac - 0.5).abs() < 1e-9 {
            return match whole as u64 {
                0 => "½".to_string(),
                w => format!("{w}½"),
            };
        }
        let tenths = (p * 10.0).round() / 10.0;
        format!("{tenths}")
    };
    Some(
        table
            .iter()
            .map(|(n, p)| format!("{n} {}", points(*p)))
            .collect::<Vec<_>>()
            .join(" – "),
    )
}

/// The status line: what the journal says about the log.
pub fn journal_status(s: &Session) -> Status {
    let st = s.storage.status();
    let last = match (st.last_entry, st.warning) {
        (Some(l), Some(w)) => Some(format!("{l} · ⚠ {w}")),
        (l, None) => l,
        (None, Some(w)) => Some(format!("⚠ {w}")),
    };
    Status {
        entries: st.entries,
        last_entry: last,
        signed_upto: st.signed_upto,
        code: st.signed_code,
        alarm: s.frozen.clone(),
        countersigned: st.countersigned,
        index_countersigned: st.index_countersigned,
        witnesses: Vec::new(),
    }
}
