//! Board-side terminal UI (`arbiter play`).
//!
//! Shape: keys -> [`Action`] is the pure [`on_key`]; the screen is the pure [`render`] of
//! (`&View`, `&UiState`, `&Status`); this file's [`run`] is the thin loop that owns the terminal,
//! reads the monotonic clock, sleeps until something on screen changes, and passes commands to
//! [`Session::execute`] (which returns only after the log append).
pub mod backoff; // the wait after failed passphrases (issue 19)
pub mod board;
pub mod consequence;
pub mod countersign; // issue 19: what each camp is asked to countersign
pub mod describe;
pub mod frame; // what reaches the terminal: whole frames, or only the clocks (issue 25)
pub mod keys;
pub mod logpane;
pub mod movelist;
pub mod screen;
pub mod shogiboard; // the shogi board (kanji or letters, both hands)
pub mod terminal;
pub mod timing;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crossterm::event::{self, Event as TermEvent};

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
    let hooks = Hooks {
        status,
        hand_over,
        authority,
    };
    let result = run_loop(&mut terminal, session, origin, offset_ms, hooks, ui);
    let restored = ratatui::try_restore();
    result.and(restored)
}

/// The latest entry this screen recorded, for a shell whose status does not say.
fn remember(last: &mut Option<String>, events: &[Event], session: &Session) {
    if let Some(e) = events.last() {
        *last = Some(format!(
            "#{} {}",
            session.storage.len().saturating_sub(1),
            describe::describe_event_as(e, session.game.board().shogi().is_some())
        ));
    }
}

fn catch_up(session: &mut Session, ui: &mut UiState, last: &mut Option<String>, now: Ms) {
    if session.frozen.is_some() {
        return;
    }
    match session.catch_up(now) {
        Ok(events) => {
            on_recorded(ui, &events);
            remember(last, &events, session);
        }
        Err(e) => after_execute(ui, &Err(e), session.storage.len()),
    }
}

/// What the shell lends the loop: the log's state, rule 13's hand-over, the arbiter's authority.
struct Hooks<'s, 'h, 'a> {
    status: &'s mut dyn FnMut(&Session) -> Status,
    hand_over: &'h mut HandOver<'h>,
    authority: &'a Authority<'a>,
}

/// What the status depended on when it was asked for: entries, the storage's count of changes
/// seen outside this process, events handled, the live witnesses' changes.
type StatusAsked = (usize, Option<u64>, u64, u64);

fn run_loop(
    terminal: &mut ratatui::DefaultTerminal,
    session: &mut Session,
    origin: Instant,
    offset_ms: u64,
    hooks: Hooks<'_, '_, '_>,
    mut ui: UiState,
) -> std::io::Result<()> {
    let Hooks {
        status,
        hand_over,
        authority,
    } = hooks;
    let mut last: Option<String> = None;
    let mut offset_ms = offset_ms;
    let mut readings = (Instant::now(), std::time::SystemTime::now());
    let mut beat: Option<Instant> = None;
    // When the passphrase was asked for entries recorded at the key (timed commands).
    let mut asked_at: Option<Instant> = None;
    // Failed passphrases in a row: the prompt takes the next one only after a doubling wait.
    let mut backoff = backoff::Backoff::default();
    // Keys read, with the instant each came, while the loop was busy checking a passphrase.
    let mut queued: std::collections::VecDeque<(Instant, TermEvent)> =
        std::collections::VecDeque::new();
    let mono_ms = || u64::try_from(origin.elapsed().as_millis()).unwrap_or(u64::MAX);
    // The screen starts clean: cells an earlier run left (killed, same terminal) are never shown.
    terminal.clear()?;
    terminal.hide_cursor()?;
    let size = terminal.size()?;
    // Only what changed reaches the terminal; a tick of the clock draws only the clocks.
    let mut painter =
        frame::Painter::new(ratatui::layout::Rect::new(0, 0, size.width, size.height));
    // The view is rebuilt only after an entry; a tick only retimes it.
    let mut views = frame::Views::default();
    // Events taken so far, and the status last asked for with what it depended on.
    let mut handled: u64 = 0;
    let mut asked: Option<(StatusAsked, Option<String>, Status)> = None;
    loop {
        // A suspend of the machine: the monotonic clock stood still while the wall clock went on.
        // Real time passed for the players; the clock catches up and the arbiter rules on it as
        // on a restart (8b).
        let (mono, wall) = (Instant::now(), std::time::SystemTime::now());
        let missed = timing::suspended_ms(
            mono.duration_since(readings.0),
            wall.duration_since(readings.1).unwrap_or_default(),
        );
        readings = (mono, wall);
        let running = session.game.clock().running();
        if let (Some(ms), Some(side)) = (missed, running)
            && session.game.phase() == crate::core::game::Phase::Playing
            && session.restart_gap.is_none()
        {
            offset_ms = offset_ms.saturating_add(ms);
            session.restart_gap = Some(ms);
            session.restart_side = Some(side);
            ui.message = Some(Message::new(
                MsgKind::Refused,
                format!(
                    "SUSPEND: the machine slept {} with {side}'s clock running: arbiter restart-gap waive|charge [H:MM:SS] REASON",
                    crate::core::timefmt::clock(ms as i64)
                ),
            ));
        }
        let now = now_ms(origin, offset_ms);
        if running.is_some()
            // At the screen's tick, once a second (a tick may come a little early).
            && beat.is_none_or(|b| b.elapsed() >= std::time::Duration::from_millis(900))
        {
            // The beat's file removed or replaced while the board runs: written again, and the
            // arbiter told on the message line. Not logged: no clock changed and nothing the
            // kit measures was lost (the beat is back within the second); the log records what
            // the rules rule on, and a message is what the arbiter needs to look at the folder.
            if let Some(say) = session.storage.heartbeat(now, chrono::Utc::now()) {
                ui.message = Some(Message::new(MsgKind::Refused, say));
            }
            beat = Some(Instant::now());
        }
        catch_up(session, &mut ui, &mut last, now);
        // Entries recorded at the key whose passphrase did not follow in time stand unauthorized.
        if let (
            Some(t),
            Mode::Authorize {
                words, recorded, ..
            },
        ) = (asked_at, &ui.mode)
            && recorded.is_some()
            && t.elapsed() >= keys::AUTHORIZE_WITHIN
        {
            let (words, recorded) = (words.clone(), *recorded);
            ui.mode = Mode::Clock;
            asked_at = None;
            let why = format!(
                "no passphrase within {} s",
                keys::AUTHORIZE_WITHIN.as_secs()
            );
            if let Some(r) = recorded {
                left_pending(session, &mut ui, &mut last, &words, &why, r, now);
            }
        }
        if !matches!(ui.mode, Mode::Authorize { .. }) {
            asked_at = None;
        }
        ui.restart_measured = session.restart_gap.map(|g| (g, session.restart_side));
        ui.restart_uncertainty = session.restart_uncertainty;
        refresh_score(&mut ui, &session.game);
        if ui.frozen.is_none() {
            ui.frozen = session.frozen.clone();
        }
        let view = views.at(&session.game, now, LAST_MOVES);
        // The status is asked for again only when something it reports may have changed: an
        // entry, a key, the session frozen, or a change the storage's watch saw outside this
        // process (a countersignature), a camp's live witness come or gone; a storage with no
        // watch is asked at every frame.
        let asks = (
            session.storage.len(),
            session.storage.outside_changes(),
            handled,
            crate::record::live::server::changes(),
        );
        let st = match &asked {
            Some((k, frozen, st))
                if k.1.is_some()
                    && *k == asks
                    && frozen.as_deref() == session.frozen.as_deref() =>
            {
                st
            }
            _ => {
                let mut st = status(session);
                if st.last_entry.is_none() {
                    st.last_entry = last.clone();
                }
                &asked.insert((asks, session.frozen.clone(), st)).2
            }
        };
        let frozen = ui.frozen.is_some() || st.alarm.is_some();
        let latched = ui.latch(sticky_alarms(&ui.log.alarm_sources, session.restart_gap));
        if bell(&mut ui, view, frozen) || latched {
            let mut out = std::io::stdout();
            out.write_all(b"\x07")?;
            out.flush()?;
        }
        let mut wait = wait_for(view, now);
        painter.paint(terminal.backend_mut(), view, &mut ui, st)?;
        if let Some(t) = asked_at {
            wait = wait.min(
                keys::AUTHORIZE_WITHIN
                    .saturating_sub(t.elapsed())
                    .max(std::time::Duration::from_millis(1)),
            );
        }
        // Keys that came while a passphrase was being checked go first, each with its own time.
        let (at, ev) = match queued.pop_front() {
            Some(held) => held,
            None => {
                if !event::poll(wait)? {
                    continue;
                }
                let ev = event::read()?;
                (Instant::now(), ev)
            }
        };
        handled = handled.wrapping_add(1);
        let key = match ev {
            TermEvent::Key(key) => key,
            // After a resize the terminal is cleared and the screen redrawn from state alone.
            TermEvent::Resize(w, h) => {
                terminal.clear()?;
                painter.cleared(ratatui::layout::Rect::new(0, 0, w, h));
                continue;
            }
            // A focus change or paste needs only the next frame.
            _ => continue,
        };
        // Time first: a flag that fell before the key is recorded before the key acts.
        let now = ms_at(origin, offset_ms, at);
        catch_up(session, &mut ui, &mut last, now);
        if st.alarm.is_some() && ui.frozen.is_none() {
            ui.frozen = st.alarm.clone();
        }
        let action = on_key(&mut ui, key, &session.game);
        let (cmd, by) = match action {
            Action::None => continue,
            Action::Quit => {
                // The kit stops now: a last beat, so that a restart measures its gap from this
                // moment rather than from up to a beat interval earlier.
                if session.game.clock().running().is_some() {
                    let _ = session.storage.heartbeat(now, chrono::Utc::now());
                }
                return Ok(());
            }
            Action::ReadLog { first, count } => {
                read_older(&mut ui, first, count);
                continue;
            }
            Action::Execute(cmd) if needs_authority(&cmd, &session.game) => match authority {
                Authority::Open => (cmd, None),
                Authority::UnencryptedKey => (cmd, Some(UNENCRYPTED)),
                Authority::Passphrase(_) if keys::timed_at_key(&cmd) => {
                    // Its effect on a clock depends on when it happens: recorded now, at the
                    // key's time; the passphrase authorizes it afterwards (README: "A stop is
                    // timed at the key").
                    let words = words_of(&ui, &cmd);
                    let before = session.storage.len();
                    record(session, &mut ui, &mut last, hand_over, &cmd, now);
                    let after = session.storage.len();
                    if after > before {
                        keys::ask_authorization_after(
                            &mut ui,
                            cmd,
                            words,
                            (before as u64, after as u64 - 1),
                        );
                        asked_at = Some(Instant::now());
                    }
                    continue;
                }
                Authority::Passphrase(_) => {
                    let words = words_of(&ui, &cmd);
                    keys::ask_authorization(&mut ui, cmd, words);
                    continue;
                }
            },
            Action::Execute(cmd) => (cmd, None),
            Action::Authorized {
                cmd,
                words,
                passphrase,
                recorded,
            } => {
                if passphrase.is_some() && backoff.wait_left(mono_ms()).is_some() {
                    // Too soon after a failure: not checked, the prompt stays open.
                    match recorded {
                        Some(r) => keys::ask_authorization_after(&mut ui, cmd, words, r),
                        None => keys::ask_authorization(&mut ui, cmd, words),
                    }
                    ui.message = Some(Message::new(
                        MsgKind::Refused,
                        format!("passphrase not checked: {}", backoff.say(mono_ms())),
                    ));
                    continue;
                }
                asked_at = None;
                let ok = match (authority, &passphrase) {
                    (_, None) => false,
                    (Authority::Passphrase(check), Some(p)) => {
                        // The KDF takes a noticeable part of a second: the keys pressed
                        // meanwhile (a clock press above all) keep the instant they came.
                        let (ok, held) = check_reading_keys(|| check(p));
                        queued.extend(held);
                        ok
                    }
                    (Authority::Open | Authority::UnencryptedKey, Some(_)) => true,
                };
                if ok {
                    backoff.succeed();
                }
                match (ok, recorded) {
                    (true, Some((first, last_seq))) => {
                        let later = matches!(cmd, Command::Authorize { .. });
                        authorize(
                            session,
                            &mut ui,
                            &mut last,
                            (Some("passphrase"), words.clone()),
                            (first as usize, last_seq as usize + 1),
                            now,
                        );
                        if later {
                            // Given on the board after it was left pending.
                            let more = match ui.pending_authorizations.len() {
                                0 => String::new(),
                                n => format!(" · {n} more pending: :arbiter authorize"),
                            };
                            ui.message = Some(Message::new(
                                MsgKind::Done,
                                format!(
                                    "authorized (rule 5b): entries #{first}–#{last_seq} ('{words}'){more}"
                                ),
                            ));
                        }
                        continue;
                    }
                    (true, None) => (cmd, Some("passphrase")),
                    (false, _) => {
                        match (passphrase.as_deref(), recorded) {
                            // Esc on entries recorded at the key: they stand, their
                            // authorization left pending; `:arbiter authorize` gives it later.
                            (None, Some(r)) => {
                                left_pending(
                                    session,
                                    &mut ui,
                                    &mut last,
                                    &words,
                                    "withdrawn (Esc)",
                                    r,
                                    now,
                                );
                            }
                            (None, None) => {}
                            // Enter on an empty prompt: nothing checked, the prompt stays.
                            (Some(""), _) => {
                                keys::reopen_authorization(&mut ui, cmd, words, recorded);
                                ui.message = Some(Message::new(
                                    MsgKind::Info,
                                    "type the arbiter's passphrase, then Enter (Esc leaves the prompt)",
                                ));
                            }
                            // A wrong passphrase is logged; the prompt stays open (its wait
                            // doubling), so that a passphrase typed again never reaches the
                            // board as keys.
                            (Some(_), _) => {
                                unauthorized(
                                    session,
                                    &mut ui,
                                    &mut last,
                                    &words,
                                    "wrong passphrase",
                                    recorded,
                                    now,
                                );
                                let t = mono_ms();
                                backoff.fail(t);
                                keys::reopen_authorization(&mut ui, cmd, words, recorded);
                                if let Some(m) = ui.message.as_mut() {
                                    m.text = format!(
                                        "{} · {} · the prompt stays open (Esc leaves it)",
                                        m.text,
                                        backoff.say(t)
                                    );
                                }
                            }
                        }
                        continue;
                    }
                }
            }
        };
        let words = words_of(&ui, &cmd);
        let before = session.storage.len();
        record(session, &mut ui, &mut last, hand_over, &cmd, now);
        // 5b: how the arbiter's entries were authorized, right after them.
        let after = session.storage.len();
        authorize(
            session,
            &mut ui,
            &mut last,
            (by, words),
            (before, after),
            now,
        );
    }
}

/// Game time at the instant `at` (a key's arrival), as [`now_ms`] gives it for now.
fn ms_at(origin: Instant, offset_ms: u64, at: Instant) -> Ms {
    offset_ms.saturating_add(
        u64::try_from(at.saturating_duration_since(origin).as_millis()).unwrap_or(u64::MAX),
    )
}

/// Run `check` (a passphrase against the key's KDF) while another thread goes on reading the
/// terminal, so that no key waits for the check: each is returned with the instant it came, to
/// be handled in order at that time (a press acts at the instant of the key).
fn check_reading_keys(check: impl FnOnce() -> bool) -> (bool, Vec<(Instant, TermEvent)>) {
    use std::sync::atomic::{AtomicBool, Ordering};
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let reader = s.spawn(|| {
            let mut held = Vec::new();
            while !done.load(Ordering::Acquire) {
                match event::poll(std::time::Duration::from_millis(2)) {
                    Ok(true) => match event::read() {
                        Ok(ev) => held.push((Instant::now(), ev)),
                        Err(_) => break,
                    },
                    Ok(false) => {}
                    Err(_) => break,
                }
            }
            held
        });
        let ok = check();
        done.store(true, Ordering::Release);
        (ok, reader.join().unwrap_or_default())
    })
}

/// Run `cmd` through the session at `now` (rule 13's hand-over through the shell's hook) and
/// tell the screen what was recorded.
fn record(
    session: &mut Session,
    ui: &mut UiState,
    last: &mut Option<String>,
    hand_over: &mut HandOver<'_>,
    cmd: &Command,
    now: Ms,
) {
    if let Command::HandOverFiles {
        copies,
        program,
        side,
    } = cmd
    {
        match hand_over(session, copies, program.as_deref(), *side) {
            Ok((events, summary)) => {
                remember(last, &events, session);
                after_execute(ui, &Ok(events), session.storage.len());
                ui.message = Some(Message::new(MsgKind::Done, summary.replace('\n', " · ")));
            }
            Err(e) => {
                ui.submitted = None;
                ui.message = Some(Message::new(MsgKind::Refused, e));
            }
        }
    } else {
        let r = session.execute(cmd, now);
        if let Ok(events) = &r {
            remember(last, events, session);
        }
        after_execute(ui, &r, session.storage.len());
    }
}

/// 5b: record how the entries `before..after` of an arbiter-only command were authorized (`by`
/// none: no gate, nothing recorded).
fn authorize(
    session: &mut Session,
    ui: &mut UiState,
    last: &mut Option<String>,
    (by, words): (Option<&str>, String),
    (before, after): (usize, usize),
    now: Ms,
) {
    let Some(by) = by else {
        return;
    };
    if after <= before {
        return;
    }
    let auth = Command::Authorize {
        by: by.into(),
        words,
        first: before as u64,
        last: after as u64 - 1,
    };
    if let Ok(events) = session.execute(&auth, now) {
        on_recorded(ui, &events);
        remember(last, &events, session);
    }
}

/// 5b: an authorization that failed (wrong or empty passphrase, withdrawn, or not given in time)
/// is logged; entries already `recorded` at the key stand unauthorized, and the arbiter rules on
/// their time.
fn unauthorized(
    session: &mut Session,
    ui: &mut UiState,
    last: &mut Option<String>,
    words: &str,
    why: &str,
    recorded: Option<(u64, u64)>,
    now: Ms,
) {
    let why = match recorded {
        Some((first, last_seq)) => format!(
            "{why}: entries #{first}–#{last_seq}, recorded at the key, await the arbiter's passphrase"
        ),
        None => why.to_string(),
    };
    let logged = session.execute(
        &Command::AuthorizationFailed {
            words: words.to_string(),
            why: why.clone(),
        },
        now,
    );
    let seq = match &logged {
        Ok(events) if !events.is_empty() => {
            on_recorded(ui, events);
            remember(last, events, session);
            Some(session.storage.len() - 1)
        }
        _ => None,
    };
    ui.submitted = None;
    let logged = seq.map_or_else(String::new, |n| {
        format!(" · the failed authorization is logged as #{n}")
    });
    ui.message = Some(Message::new(
        MsgKind::Refused,
        match recorded {
            Some(_) => format!("not authorized (rule 5b): {why} ('{words}'){logged}"),
            None => format!(
                "refused (rule 5b): {why}: only the arbiter may '{words}'; nothing recorded{logged}"
            ),
        },
    ));
}

/// 5b: the passphrase for entries recorded at the key was not given (Esc, or not in time): the
/// entries stand as recorded, their authorization pending; it is logged, and the board keeps it
/// for `:arbiter authorize`, which asks the passphrase again and records the authorization.
fn left_pending(
    session: &mut Session,
    ui: &mut UiState,
    last: &mut Option<String>,
    words: &str,
    why: &str,
    (first, last_seq): (u64, u64),
    now: Ms,
) {
    let why = format!(
        "{why}: entries #{first}–#{last_seq}, recorded at the key, stand; their authorization is pending (:arbiter authorize gives it)"
    );
    let logged = session.execute(
        &Command::AuthorizationFailed {
            words: words.to_string(),
            why: why.clone(),
        },
        now,
    );
    let seq = match &logged {
        Ok(events) if !events.is_empty() => {
            on_recorded(ui, events);
            remember(last, events, session);
            Some(session.storage.len() - 1)
        }
        _ => None,
    };
    ui.submitted = None;
    ui.pending_authorizations.push(keys::PendingAuthorization {
        words: words.to_string(),
        first,
        last: last_seq,
    });
    let logged = seq.map_or_else(String::new, |n| format!(" · logged as #{n}"));
    ui.message = Some(Message::new(
        MsgKind::Refused,
        format!("authorization pending (rule 5b): {why} ('{words}'){logged}"),
    ));
}

/// How the arbiter's authorization is given at this keyboard.
pub enum Authority<'a> {
    /// No gate (rehearsals in memory, tests): nothing asked, nothing recorded.
    Open,
    /// The signing key is not encrypted: there is nothing to ask; each arbiter-only command is
    /// recorded as authorized by an unencrypted key (anyone at the keyboard could give it).
    UnencryptedKey,
    /// The signing key's passphrase, asked for each arbiter-only command and checked here.
    Passphrase(Box<dyn Fn(&str) -> bool + 'a>),
}

const UNENCRYPTED: &str = "unencrypted-key (anyone at this keyboard)";

/// Whether `cmd` needs the arbiter's authorization: arbiter-only commands once the game is
/// recorded (declarations before the start are a draft; the start itself is authorized).
pub fn needs_authority(cmd: &Command, game: &crate::core::game::Game) -> bool {
    cmd.role() == crate::core::command::Role::Arbiter
        && !(crate::core::game::Game::is_declaration(cmd)
            && game.phase() == crate::core::game::Phase::Draft)
}

/// The command's words as typed, or its name for a one-key command.
fn words_of(ui: &UiState, cmd: &Command) -> String {
    match &ui.submitted {
        Some((_, text)) => text.clone(),
        None => {
            let debug = format!("{cmd:?}");
            let name = debug.split([' ', '{', '(']).next().unwrap_or_default();
            format!("key: {name}")
        }
    }
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
