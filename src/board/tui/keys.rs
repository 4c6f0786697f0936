//! Keys -> actions: a pure state machine over [`UiState`]. Nothing here touches the terminal,
//! the clock or the log; the loop executes the [`Action`] and reports back with
//! [`after_execute`].
use chrono::{DateTime, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::board::session::SessionError;
use crate::core::Refusal;
use crate::core::board::complete_san;
use crate::core::command::{Command, HELP, parse, parse_for};
use crate::core::event::Event;
use crate::core::game::{Game, Phase};

use super::logpane::LogTail;

/// What the message line says, and how it is coloured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MsgKind {
    /// A notice from the shell (e.g. the restart-gap prompt) or a hint.
    Info,
    /// Something was recorded (shown only after the log append returned).
    Done,
    /// The core refused a command: nothing changed; the text names the clause.
    Refused,
    /// The words were not understood, or an internal error.
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub kind: MsgKind,
    pub text: String,
}

impl Message {
    pub fn new(kind: MsgKind, text: impl Into<String>) -> Message {
        Message {
            kind,
            text: text.into(),
        }
    }
}

/// What waits for a y/n answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Pending {
    Command(Command),
    Quit,
    /// Start the game although no 8a configuration digest is declared.
    StartWithoutDigest,
}

/// Which line is being edited, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// `move ▸` — pressing the clock: a SAN/UCI move with Tab completion.
    Move,
    /// `:` — the words of script mode.
    Command,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    /// Nothing being typed: single keys act (Space presses the clock, s/r stop/resume, ...).
    Clock,
    /// Editing a line.
    Line(LineKind),
    /// The command list, scrolled by this many lines.
    Help { scroll: u16 },
    /// An irreversible action awaits y/n; `text` is what was typed.
    Confirm { pending: Pending, text: String },
    /// The log page: every entry in full, `back` lines up from the newest (0 follows the log).
    Log { back: usize },
    /// An arbiter-only command awaits the arbiter's authorization: the signing key's passphrase,
    /// typed masked (5b).
    Authorize {
        pending: Command,
        words: String,
        typed: String,
        /// The entries already recorded at key-down (first, last) by a command whose effect
        /// depends on when it happens ([`timed_at_key`]): the passphrase authorizes them
        /// afterwards, and without it they stand as recorded, unauthorized.
        recorded: Option<(u64, u64)>,
    },
}

/// Entries recorded at the key whose passphrase was not given (Esc, or not in time): they stand
/// as recorded; `:arbiter authorize` asks the passphrase for them and records the authorization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingAuthorization {
    /// The command's words as given.
    pub words: String,
    pub first: u64,
    pub last: u64,
}

/// The board's own words for giving a pending authorization (5b).
pub const AUTHORIZE_WORDS: &str = "arbiter authorize";

/// A red alarm that stays on screen until the arbiter acknowledges it (`!`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alarm {
    /// Which occurrence this is (`9e#12`: the limit recorded at entry 12), so one acknowledged
    /// occurrence never comes back and a new one always shows.
    pub key: String,
    pub text: String,
}

/// Tab completion in progress: the candidates for `base` and the one shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    pub base: String,
    pub candidates: Vec<String>,
    pub index: usize,
}

/// Everything the screen knows beyond the game: the mode, the line being typed, the message.
#[derive(Debug, Clone, PartialEq)]
pub struct UiState {
    pub mode: Mode,
    pub line: String,
    pub completion: Option<Completion>,
    pub message: Option<Message>,
    /// The log could not be written: input is frozen and the alarm is shown.
    pub frozen: Option<String>,
    /// Lines entered on the `:` line, oldest first (Up/Down recall them).
    pub history: Vec<String>,
    pub history_pos: Option<usize>,
    /// The line that produced the command being executed, restored if the core refuses it.
    pub submitted: Option<(LineKind, String)>,
    /// Red alarms the bell has already rung for (rung again only when one appears anew).
    pub rung: Vec<&'static str>,
    /// The latest entries of this game's log, and what is folded from all of them (the move
    /// list's times, the sticky alarms): the log page shows them, older ones on demand.
    pub log: LogTail,
    /// UTC time of game time 0, for the log page's wall-clock column (unknown in some tests).
    pub utc_origin: Option<DateTime<Utc>>,
    /// Move-list rows scrolled back from the latest (0 follows the game).
    pub moves_back: usize,
    /// The diagram is drawn from Black's side (chosen by the arbiter with `o`).
    pub black_at_bottom: bool,
    /// Letters instead of chess figurines (a terminal without UTF-8).
    pub ascii: bool,
    /// No colour at all (`NO_COLOR`): words and marks carry every state.
    pub no_color: bool,
    /// Red alarms waiting for acknowledgement, oldest first.
    pub alarms: Vec<Alarm>,
    /// Keys of the alarms acknowledged (screen state: the facts are in the log already).
    pub acked: Vec<String>,
    /// The match score line (`Kasparov 1 – Deep Junior 1`) and the game number, from the shell.
    pub score: Option<String>,
    /// The match table behind `score` (player, points), and the points of this game's result
    /// that are in it (a result changed on a ruling, 12c, replaces them).
    pub score_table: Vec<(String, f64)>,
    pub score_of_this_game: Option<[f64; 2]>,
    /// The keys that press the clocks (4a, 6b): the human's own (a button or pedal the arbiter
    /// maps) and the operator's for the machine.
    pub press_keys: PressKeys,
    /// The restart gap the shell measured and the side whose clock ran (8b), while the ruling
    /// is pending: the `restart-gap` question is decided against it.
    pub restart_measured: Option<(crate::core::Ms, Option<crate::core::Side>)>,
    /// How much shorter than the measured gap the downtime may have been (a `charge` counts the
    /// shorter figure: [`crate::board::session::restart_ruling`]).
    pub restart_uncertainty: crate::core::Ms,
    /// Authorizations left pending at the passphrase prompt, oldest first (5b).
    pub pending_authorizations: Vec<PendingAuthorization>,
    /// A shogi game: its sides are named sente and gote in the messages.
    pub shogi: bool,
}

impl Default for UiState {
    fn default() -> Self {
        UiState::new(None)
    }
}

impl UiState {
    pub fn new(notice: Option<String>) -> UiState {
        UiState {
            mode: Mode::Clock,
            line: String::new(),
            completion: None,
            message: notice.map(|n| Message::new(MsgKind::Info, n)),
            frozen: None,
            history: Vec::new(),
            history_pos: None,
            submitted: None,
            rung: Vec::new(),
            log: LogTail::default(),
            utc_origin: None,
            moves_back: 0,
            black_at_bottom: false,
            ascii: false,
            no_color: false,
            alarms: Vec::new(),
            acked: Vec::new(),
            score: None,
            score_table: Vec::new(),
            score_of_this_game: None,
            press_keys: PressKeys::default(),
            restart_measured: None,
            restart_uncertainty: 0,
            pending_authorizations: Vec::new(),
            shogi: false,
        }
    }

    /// Put `note` before the message on screen.
    pub fn prepend_note(&mut self, note: &str) {
        self.message = Some(match self.message.take() {
            Some(m) => Message::new(m.kind, format!("{note} · {}", m.text)),
            None => Message::new(MsgKind::Info, note),
        });
    }

    /// Acknowledge every red alarm on screen: they leave the screen and do not come back.
    pub fn acknowledge(&mut self) -> usize {
        let n = self.alarms.len();
        for a in self.alarms.drain(..) {
            self.acked.push(a.key);
        }
        n
    }

    /// Show these alarms (kept until acknowledged, or until what they ask for is recorded: an
    /// alarm no longer current leaves the screen); returns whether one is new.
    pub fn latch(&mut self, current: Vec<Alarm>) -> bool {
        self.alarms
            .retain(|a| current.iter().any(|c| c.key == a.key));
        let mut new = false;
        for a in current {
            if !self.acked.contains(&a.key) && !self.alarms.iter().any(|b| b.key == a.key) {
                self.alarms.push(a);
                new = true;
            }
        }
        new
    }
}

/// Remember events the session recorded (after a command, or by catch-up).
pub fn on_recorded(ui: &mut UiState, events: &[Event]) {
    for e in events {
        ui.log.push(e.clone());
    }
}

/// What the loop must do after a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    None,
    /// Run this command through the session (catch-up, decide, append, evolve).
    Execute(Command),
    /// Run this arbiter-only command if `passphrase` opens the arbiter's signing key.
    /// `passphrase` is `None` when the arbiter withdrew (Esc) from authorizing entries already
    /// `recorded` at key-down.
    Authorized {
        cmd: Command,
        words: String,
        passphrase: Option<String>,
        recorded: Option<(u64, u64)>,
    },
    /// The log page: read `count` entries of the log from number `first` from the log file into
    /// [`LogTail::older`] (the latest are kept, older ones are read when asked).
    ReadLog {
        first: usize,
        count: usize,
    },
    Quit,
}

/// Ask the arbiter's passphrase before `cmd` (the shell decided it is arbiter-only).
pub fn ask_authorization(ui: &mut UiState, cmd: Command, words: String) {
    ui.mode = Mode::Authorize {
        pending: cmd,
        words,
        typed: String::new(),
        recorded: None,
    };
}

/// Ask the arbiter's passphrase for entries `recorded` (first, last) at key-down by `cmd`.
pub fn ask_authorization_after(
    ui: &mut UiState,
    cmd: Command,
    words: String,
    recorded: (u64, u64),
) {
    ui.mode = Mode::Authorize {
        pending: cmd,
        words,
        typed: String::new(),
        recorded: Some(recorded),
    };
}

/// The passphrase prompt again, after a passphrase that did not open the key: the same command
/// and entries, nothing typed.
pub fn reopen_authorization(
    ui: &mut UiState,
    cmd: Command,
    words: String,
    recorded: Option<(u64, u64)>,
) {
    ui.mode = Mode::Authorize {
        pending: cmd,
        words,
        typed: String::new(),
        recorded,
    };
}

/// `:arbiter authorize`: the passphrase prompt for the oldest authorization left pending (5b);
/// said when none is.
fn authorize_pending(ui: &mut UiState) -> Action {
    ui.mode = Mode::Clock;
    ui.line.clear();
    if ui.pending_authorizations.is_empty() {
        ui.message = Some(Message::new(
            MsgKind::Info,
            "no authorization is pending on this board: nothing to authorize",
        ));
        return Action::None;
    }
    let p = ui.pending_authorizations.remove(0);
    let cmd = Command::Authorize {
        by: "passphrase".into(),
        words: p.words.clone(),
        first: p.first,
        last: p.last,
    };
    ask_authorization_after(ui, cmd, p.words, (p.first, p.last));
    Action::None
}

/// How long the passphrase may take after a command recorded at the key ([`timed_at_key`]):
/// past it, the entries stand unauthorized (logged) and the arbiter rules on their time.
pub const AUTHORIZE_WITHIN: std::time::Duration = std::time::Duration::from_secs(30);

/// Commands whose effect on a clock depends on the instant they happen: recorded at key-down
/// (the key's time), their authorization asked afterwards. The start, the arbiter's stop and
/// resume, the supervisor's info-stop and info-resume (8a), the power failure and its end (8b).
pub fn timed_at_key(cmd: &Command) -> bool {
    matches!(
        cmd,
        Command::Start
            | Command::Stop { .. }
            | Command::Resume
            | Command::InfoStop { .. }
            | Command::InfoResume
            | Command::PowerFailure { .. }
            | Command::PowerRestored
    )
}

/// Whether the board asks y/n (with the consequence in words) before `cmd`: every command that
/// ends a game or changes what was played, and every arbiter-only command, except those timed at
/// the key ([`timed_at_key`]), which act at once.
pub fn asks_first(cmd: &Command, game: &Game) -> bool {
    !timed_at_key(cmd) && (cmd.needs_confirmation() || super::needs_authority(cmd, game))
}

/// Ask y/n for `cmd`, stating what it will record (decided against the state now, before the
/// question); a command the rules refuse is refused at once and nothing is asked.
fn ask(ui: &mut UiState, cmd: Command, words: &str, game: &Game) {
    // What a ruling records is decided against the measured gap with its uncertainty, as the
    // session will (a `charge` counts the shorter figure).
    let asked = match (&cmd, ui.restart_measured) {
        (
            Command::RestartGap {
                ruling,
                reason,
                measured,
            },
            Some((gap, _)),
        ) => Command::RestartGap {
            ruling: crate::board::session::restart_ruling(*ruling, gap, ui.restart_uncertainty),
            reason: reason.clone(),
            measured: *measured,
        },
        _ => cmd.clone(),
    };
    match super::consequence::consequence(&asked, game, ui.restart_measured) {
        Ok(what) => {
            ui.mode = Mode::Confirm {
                pending: Pending::Command(cmd),
                text: format!("{words} → {what}"),
            }
        }
        Err(refusal) => {
            ui.mode = Mode::Clock;
            ui.message = Some(Message::new(
                MsgKind::Refused,
                format!("{refusal} · nothing recorded: {words}"),
            ));
        }
    }
}

/// What `cmd` would record, in words that state the consequence ("the game ENDS 1-0
/// (resignation)", "Garry Kasparov 1:55:35 → 2:05:35", "2. Nh3 will be taken back"), from a dry
/// decide at the latest entry's time; or the refusal it would get ([`super::consequence`]).
pub fn consequence(cmd: &Command, game: &Game) -> Result<String, Refusal> {
    super::consequence::consequence(cmd, game, None)
}

/// Commands that can end the game or change what was played; they ask y/n first (the need is
/// stated beside the command: [`Command::needs_confirmation`]).
pub fn needs_confirmation(cmd: &Command) -> bool {
    cmd.needs_confirmation()
}

fn ctrl(key: &KeyEvent, c: char) -> bool {
    key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char(c)
}

/// The keys that press the clocks. A press is recorded the instant its key goes down; the move's
/// notation is typed after it, while the opponent's clock runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PressKeys {
    /// The human's key: presses his clock only while it runs (default F12).
    pub human: KeyCode,
    /// The operator's key for the machine: presses the machine's clock only while it runs
    /// (default F4).
    pub machine: KeyCode,
}

impl Default for PressKeys {
    fn default() -> Self {
        PressKeys {
            human: KeyCode::F(12),
            machine: KeyCode::F(4),
        }
    }
}

impl PressKeys {
    /// Which side's press key `code` is: `Some(true)` the human's, `Some(false)` the machine's.
    pub fn which(&self, code: KeyCode) -> Option<bool> {
        if code == self.human {
            Some(true)
        } else if code == self.machine {
            Some(false)
        } else {
            None
        }
    }
}

/// Keys that can be typed into a field (the `:` line, the move line, the passphrase): a press
/// key is never one of them, so that a press is never taken as text and never lost while a field
/// is open.
fn typeable(code: KeyCode) -> bool {
    matches!(
        code,
        KeyCode::Char(_) | KeyCode::Enter | KeyCode::Tab | KeyCode::BackTab | KeyCode::Backspace
    )
}

/// Keys the Board UI already uses in its clock mode: a press key cannot be one of them.
fn reserved(code: KeyCode) -> bool {
    match code {
        KeyCode::F(n) => matches!(n, 1 | 5..=9),
        KeyCode::Char(c) => {
            starts_move(c) || matches!(c, 's' | 'r' | 'q' | ':' | '?' | 'l' | '!' | 'o')
        }
        KeyCode::Esc
        | KeyCode::Home
        | KeyCode::End
        | KeyCode::PageUp
        | KeyCode::PageDown
        | KeyCode::Up
        | KeyCode::Down => true,
        _ => false,
    }
}

/// Why a key named for a clock press (`--human-key`, `--machine-key`) cannot be one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PressKeyError {
    #[error("'{0}' is not a key: F1 to F24")]
    NoSuchFKey(String),
    #[error(
        "'{0}' is not a key: F1..F24, Space, Enter, Tab, Insert, Delete, Pause, ScrollLock, Menu, or one character"
    )]
    NotAKey(String),
    /// A press made while a field is open would become text (FIDE Laws 6.2: a press is never lost).
    #[error(
        "'{0}' can be typed into a field (the : line, the move line, the passphrase): a press key must not be, or a press made while a field is open is lost; choose F2..F4, F10..F24, Insert, Delete, Pause, ScrollLock or Menu"
    )]
    Typeable(String),
    #[error(
        "'{0}' is already a key of the Board UI (moves, commands, scrolling): choose another for a clock press"
    )]
    Reserved(String),
}

/// A press key named on the command line: `F1`..`F24`, `Insert`, `Delete`, `Pause`,
/// `ScrollLock`, `Menu`. Keys the board uses for other things are refused by name, and so are keys
/// that can be typed into a field (characters, Space, Enter, Tab): a press must act in every state
/// of the screen, a field open or not.
pub fn parse_press_key(name: &str) -> Result<KeyCode, PressKeyError> {
    let lower = name.to_ascii_lowercase();
    let code = match lower.as_str() {
        "space" => KeyCode::Char(' '),
        "enter" => KeyCode::Enter,
        "tab" => KeyCode::Tab,
        "insert" => KeyCode::Insert,
        "delete" => KeyCode::Delete,
        "pause" => KeyCode::Pause,
        "scrolllock" => KeyCode::ScrollLock,
        "menu" => KeyCode::Menu,
        f if f.starts_with('f') && f.len() > 1 => match f[1..].parse::<u8>() {
            Ok(n @ 1..=24) => KeyCode::F(n),
            _ => return Err(PressKeyError::NoSuchFKey(name.to_string())),
        },
        _ => {
            let mut chars = name.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => KeyCode::Char(c),
                _ => {
                    return Err(PressKeyError::NotAKey(name.to_string()));
                }
            }
        }
    };
    if typeable(code) {
        return Err(PressKeyError::Typeable(name.to_string()));
    }
    if reserved(code) {
        return Err(PressKeyError::Reserved(name.to_string()));
    }
    Ok(code)
}

/// The name of a press key, as the screen and help say it.
pub fn key_name(code: KeyCode) -> String {
    match code {
        KeyCode::Char(' ') => "Space".into(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::F(n) => format!("F{n}"),
        other => format!("{other:?}"),
    }
}

/// A press key went down: the press of its own side, if that side's clock runs.
fn press_key(ui: &mut UiState, human_key: bool, game: &Game) -> Action {
    let side = if human_key {
        game.human_side()
    } else {
        game.machine_side()
    };
    let who = if human_key {
        "the human's"
    } else {
        "the machine's"
    };
    let runs = game.phase() == Phase::Playing
        && game.stop().is_none()
        && side.is_some()
        && game.clock().running() == side;
    if runs {
        return Action::Execute(Command::Press);
    }
    ui.message = Some(Message::new(
        MsgKind::Refused,
        format!("{who} press key: {who} clock is not running; nothing recorded"),
    ));
    Action::None
}

/// Handle one key. Pure: reads the game (for SAN completion and the phase), changes only `ui`.
pub fn on_key(ui: &mut UiState, key: KeyEvent, game: &Game) -> Action {
    if key.kind == KeyEventKind::Release {
        return Action::None;
    }
    if ui.frozen.is_some() {
        // The log is not being written: nothing may be entered. Only leaving is possible.
        return match key.code {
            KeyCode::Char('q') => Action::Quit,
            _ if ctrl(&key, 'c') => Action::Quit,
            _ => Action::None,
        };
    }
    // A press comes first, in every state of the screen: recorded at key-down, the open dialog or
    // field left as it is (a press key can never be typed into a field).
    if let Some(human) = ui.press_keys.which(key.code) {
        return press_key(ui, human, game);
    }
    match ui.mode.clone() {
        Mode::Authorize {
            pending,
            words,
            mut typed,
            recorded,
        } => match key.code {
            KeyCode::Enter => {
                ui.mode = Mode::Clock;
                Action::Authorized {
                    cmd: pending,
                    words,
                    passphrase: Some(typed),
                    recorded,
                }
            }
            KeyCode::Esc if recorded.is_some() => {
                ui.mode = Mode::Clock;
                Action::Authorized {
                    cmd: pending,
                    words,
                    passphrase: None,
                    recorded,
                }
            }
            KeyCode::Esc => {
                ui.mode = Mode::Clock;
                ui.message = Some(Message::new(
                    MsgKind::Info,
                    format!("not authorized, nothing recorded: {words}"),
                ));
                Action::None
            }
            KeyCode::Backspace => {
                typed.pop();
                ui.mode = Mode::Authorize {
                    pending,
                    words,
                    typed,
                    recorded,
                };
                Action::None
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                typed.push(c);
                ui.mode = Mode::Authorize {
                    pending,
                    words,
                    typed,
                    recorded,
                };
                Action::None
            }
            _ => Action::None,
        },
        Mode::Clock => clock_key(ui, key, game),
        Mode::Line(kind) => line_key(ui, kind, key, game),
        Mode::Help { scroll } => {
            let scroll = match key.code {
                KeyCode::Esc | KeyCode::Char('q' | '?') | KeyCode::F(1) => {
                    ui.mode = Mode::Clock;
                    return Action::None;
                }
                KeyCode::Down | KeyCode::Char('j') => scroll.saturating_add(1),
                KeyCode::Up | KeyCode::Char('k') => scroll.saturating_sub(1),
                KeyCode::PageDown | KeyCode::Char(' ') => scroll.saturating_add(10),
                KeyCode::PageUp => scroll.saturating_sub(10),
                KeyCode::Home => 0,
                _ => scroll,
            };
            ui.mode = Mode::Help {
                scroll: scroll.min(help_len()),
            };
            Action::None
        }
        Mode::Log { back } => {
            let back = match key.code {
                KeyCode::Esc | KeyCode::Char('q' | 'l') | KeyCode::F(9) => {
                    ui.mode = Mode::Clock;
                    return Action::None;
                }
                KeyCode::Up | KeyCode::Char('k') => back.saturating_add(1),
                KeyCode::Down | KeyCode::Char('j') => back.saturating_sub(1),
                KeyCode::PageUp => back.saturating_add(10),
                KeyCode::PageDown | KeyCode::Char(' ') => back.saturating_sub(10),
                KeyCode::Home => usize::MAX / 2,
                KeyCode::End => {
                    ui.log.older = None;
                    0
                }
                // Older and newer pages of the log, read from the file (the latest are kept).
                KeyCode::Char('[') => {
                    let Some((first, count)) = ui.log.page_before() else {
                        return Action::None;
                    };
                    ui.mode = Mode::Log { back: 0 };
                    return Action::ReadLog { first, count };
                }
                KeyCode::Char(']') => {
                    let next = ui.log.page_after();
                    ui.mode = Mode::Log {
                        back: usize::MAX / 2,
                    };
                    return next.map_or(Action::None, |(first, count)| Action::ReadLog {
                        first,
                        count,
                    });
                }
                _ => back,
            };
            ui.mode = Mode::Log { back };
            Action::None
        }
        Mode::Confirm { pending, text } => match key.code {
            KeyCode::Char('y' | 'Y') => {
                ui.mode = Mode::Clock;
                match pending {
                    Pending::Quit => Action::Quit,
                    Pending::StartWithoutDigest => Action::Execute(Command::Start),
                    Pending::Command(c) => {
                        // The words as typed, without the consequence the question added.
                        let words = text.split(" → ").next().unwrap_or_default().to_string();
                        ui.submitted = Some((LineKind::Command, words));
                        Action::Execute(c)
                    }
                }
            }
            KeyCode::Char('n' | 'N') | KeyCode::Esc => {
                ui.mode = Mode::Clock;
                ui.message = Some(Message::new(
                    MsgKind::Info,
                    match pending {
                        Pending::Quit => "not quitting".to_string(),
                        Pending::StartWithoutDigest => "not started: :arbiter declare config-file PATH declares the digest (8a)".to_string(),
                        Pending::Command(_) => format!("cancelled, nothing recorded: {text}"),
                    },
                ));
                Action::None
            }
            _ if ctrl(&key, 'c') => {
                ui.mode = Mode::Clock;
                Action::None
            }
            _ => Action::None,
        },
    }
}

fn open_line(ui: &mut UiState, kind: LineKind, text: &str) {
    ui.mode = Mode::Line(kind);
    ui.line = text.to_string();
    ui.completion = None;
    ui.history_pos = None;
}

/// Characters that begin a move in SAN or UCI: files, pieces, castling.
fn starts_move(c: char) -> bool {
    matches!(c, 'a'..='h' | 'N' | 'B' | 'R' | 'Q' | 'K' | 'O')
}

fn clock_key(ui: &mut UiState, key: KeyEvent, game: &Game) -> Action {
    if ctrl(&key, 'c') {
        ui.mode = Mode::Confirm {
            pending: Pending::Quit,
            text: "quit".into(),
        };
        return Action::None;
    }
    match key.code {
        KeyCode::Char(' ') | KeyCode::Enter => match game.phase() {
            // Pressing the clock before the game starts White's clock; without the 8a
            // configuration digest it asks first.
            Phase::Draft if game.draft().config_sha256.is_none() => {
                ui.mode = Mode::Confirm {
                    pending: Pending::StartWithoutDigest,
                    text: "start the game without an 8a configuration digest".into(),
                };
                Action::None
            }
            Phase::Draft | Phase::Opened => Action::Execute(Command::Start),
            Phase::Playing => {
                open_line(ui, LineKind::Move, "");
                Action::None
            }
            Phase::Ended => {
                ui.message = Some(Message::new(
                    MsgKind::Info,
                    "the game is over; : opens the command line (notes, rulings)",
                ));
                Action::None
            }
        },
        KeyCode::Char('s') | KeyCode::F(5) => Action::Execute(Command::Stop {
            reason: "stopped at the board (stop key)".into(),
        }),
        KeyCode::Char('r') | KeyCode::F(6) => Action::Execute(Command::Resume),
        // A decisive fact on one key: asked first, with what it records.
        KeyCode::F(7) => {
            ask(ui, Command::HumanOfferDraw, "human offer-draw", game);
            Action::None
        }
        KeyCode::F(8) => {
            let team = game.decl().map(|d| d.team.join(", "));
            let team = team.unwrap_or_else(|| game.draft().team.join(", "));
            open_line(ui, LineKind::Command, &format!("operator consult {team}"));
            Action::None
        }
        KeyCode::Char(':') => {
            open_line(ui, LineKind::Command, "");
            Action::None
        }
        KeyCode::Char('?') | KeyCode::F(1) => {
            ui.mode = Mode::Help { scroll: 0 };
            Action::None
        }
        KeyCode::Char('q') => {
            ui.mode = Mode::Confirm {
                pending: Pending::Quit,
                text: "quit".into(),
            };
            Action::None
        }
        KeyCode::Esc => {
            ui.message = None;
            Action::None
        }
        KeyCode::Char('l') | KeyCode::F(9) => {
            ui.mode = Mode::Log { back: 0 };
            Action::None
        }
        KeyCode::Char('!') => {
            let n = ui.acknowledge();
            ui.message = Some(Message::new(
                MsgKind::Info,
                match n {
                    0 => "no red alarm to acknowledge".to_string(),
                    1 => "1 red alarm acknowledged (the log holds what happened: l shows it)"
                        .to_string(),
                    n => format!(
                        "{n} red alarms acknowledged (the log holds what happened: l shows it)"
                    ),
                },
            ));
            Action::None
        }
        KeyCode::Char('o') => {
            ui.black_at_bottom = !ui.black_at_bottom;
            Action::None
        }
        KeyCode::PageUp | KeyCode::Up => {
            ui.moves_back =
                ui.moves_back
                    .saturating_add(if key.code == KeyCode::Up { 1 } else { 10 });
            Action::None
        }
        KeyCode::PageDown | KeyCode::Down => {
            ui.moves_back =
                ui.moves_back
                    .saturating_sub(if key.code == KeyCode::Down { 1 } else { 10 });
            Action::None
        }
        KeyCode::End => {
            ui.moves_back = 0;
            Action::None
        }
        KeyCode::Home => {
            ui.moves_back = usize::MAX / 2;
            Action::None
        }
        KeyCode::Char(c) if starts_move(c) && game.phase() == Phase::Playing => {
            open_line(ui, LineKind::Move, &c.to_string());
            Action::None
        }
        _ => Action::None,
    }
}

fn line_key(ui: &mut UiState, kind: LineKind, key: KeyEvent, game: &Game) -> Action {
    if ctrl(&key, 'c') || key.code == KeyCode::Esc {
        ui.mode = Mode::Clock;
        ui.line.clear();
        ui.completion = None;
        return Action::None;
    }
    if ctrl(&key, 'u') {
        ui.line.clear();
        ui.completion = None;
        return Action::None;
    }
    match key.code {
        KeyCode::Char(c) => {
            ui.line.push(c);
            ui.completion = None;
            ui.history_pos = None;
            Action::None
        }
        KeyCode::Backspace => {
            if ui.line.pop().is_none() {
                ui.mode = Mode::Clock;
            }
            ui.completion = None;
            Action::None
        }
        KeyCode::Tab => {
            complete(ui, kind, game, true);
            Action::None
        }
        KeyCode::BackTab => {
            complete(ui, kind, game, false);
            Action::None
        }
        KeyCode::Up | KeyCode::Down if kind == LineKind::Command => {
            recall(ui, key.code == KeyCode::Up);
            Action::None
        }
        KeyCode::Enter => submit(ui, kind, game),
        _ => Action::None,
    }
}

fn recall(ui: &mut UiState, older: bool) {
    if ui.history.is_empty() {
        return;
    }
    let last = ui.history.len() - 1;
    let pos = match (ui.history_pos, older) {
        (None, true) => Some(last),
        (None, false) => None,
        (Some(p), true) => Some(p.saturating_sub(1)),
        (Some(p), false) if p < last => Some(p + 1),
        (Some(_), false) => None,
    };
    ui.history_pos = pos;
    ui.line = pos
        .and_then(|p| ui.history.get(p).cloned())
        .unwrap_or_default();
    ui.completion = None;
}

fn submit(ui: &mut UiState, kind: LineKind, game: &Game) -> Action {
    let text = ui.line.trim().to_string();
    if text.is_empty() {
        ui.mode = Mode::Clock;
        return Action::None;
    }
    if kind == LineKind::Command && text == AUTHORIZE_WORDS {
        if ui.history.last() != Some(&text) {
            ui.history.push(text.clone());
        }
        return authorize_pending(ui);
    }
    let parsed = match kind {
        LineKind::Move => parse(&format!("move {text}")),
        LineKind::Command => {
            if ui.history.last() != Some(&text) {
                ui.history.push(text.clone());
            }
            parse_for(&text, game.board().shogi().is_some())
        }
    };
    ui.completion = None;
    ui.history_pos = None;
    match parsed {
        Err(e) => {
            ui.message = Some(Message::new(MsgKind::Error, format!("not understood: {e}")));
            Action::None
        }
        Ok(cmd) if asks_first(&cmd, game) => {
            ask(ui, cmd, &text, game);
            ui.line.clear();
            Action::None
        }
        Ok(cmd) => {
            ui.mode = Mode::Clock;
            ui.line.clear();
            ui.submitted = Some((kind, text));
            Action::Execute(cmd)
        }
    }
}

/// Candidates for Tab on a line: SAN moves on the move line (and after `move ` on the command
/// line), otherwise the command words of [`HELP`].
pub fn candidates(kind: LineKind, line: &str, game: &Game) -> Vec<String> {
    match kind {
        LineKind::Move => complete_san(game.board(), line),
        LineKind::Command => match line.strip_prefix("move ") {
            Some(rest) => complete_san(game.board(), rest.trim_start())
                .into_iter()
                .map(|m| format!("move {m}"))
                .collect(),
            None => command_words()
                .into_iter()
                .filter(|w| w.starts_with(line))
                .collect(),
        },
    }
}

/// The literal beginnings of every command in [`HELP`], with one level of `a|b` alternatives
/// expanded: `arbiter stop `, `arbiter correct 6d `, `operator claim threefold`, ...
pub fn command_words() -> Vec<String> {
    let mut out: Vec<String> = vec!["move ".into()];
    for h in HELP {
        let mut lit: Vec<&str> = Vec::new();
        let mut alts: Vec<&str> = Vec::new();
        let mut complete = true;
        for tok in h.words.split_whitespace() {
            let lower = tok
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '|');
            if lower && !tok.contains('|') {
                lit.push(tok);
            } else {
                if lower {
                    alts = tok.split('|').collect();
                }
                complete = false;
                break;
            }
        }
        let base = lit.join(" ");
        let tail = if complete { "" } else { " " };
        let mut add = |s: String| {
            if !out.contains(&s) {
                out.push(s);
            }
        };
        if alts.is_empty() {
            add(format!("{base}{tail}"));
        } else {
            for a in alts {
                add(format!("{base} {a} "));
            }
        }
    }
    out
}

fn complete(ui: &mut UiState, kind: LineKind, game: &Game, forward: bool) {
    let c = match ui.completion.take() {
        Some(mut c) if !c.candidates.is_empty() => {
            let n = c.candidates.len();
            c.index = if forward {
                (c.index + 1) % n
            } else {
                (c.index + n - 1) % n
            };
            c
        }
        _ => {
            let base = ui.line.clone();
            let candidates = candidates(kind, &base, game);
            if candidates.is_empty() {
                ui.message = Some(Message::new(
                    MsgKind::Info,
                    match kind {
                        LineKind::Move => format!("no legal move starts with '{base}'"),
                        LineKind::Command => format!("no command starts with '{base}'"),
                    },
                ));
                return;
            }
            let index = if forward { 0 } else { candidates.len() - 1 };
            Completion {
                base,
                candidates,
                index,
            }
        }
    };
    if let Some(s) = c.candidates.get(c.index) {
        ui.line = s.clone();
    }
    ui.completion = Some(c);
}

/// Tell the screen how a command ended. `entries` is the log length after it.
/// Only an `Ok` (the append returned) shows a command as done; a refusal restores the line that
/// produced it so it can be corrected; a storage failure freezes input.
pub fn after_execute(ui: &mut UiState, result: &Result<Vec<Event>, SessionError>, entries: usize) {
    let submitted = ui.submitted.take();
    if let Ok(events) = result {
        on_recorded(ui, events);
    }
    match result {
        Ok(events) if events.is_empty() => {
            ui.message = Some(Message::new(
                MsgKind::Done,
                "noted in the draft declarations (recorded when the game is opened)",
            ));
        }
        Ok(events) => {
            let first = entries.saturating_sub(events.len());
            let text: Vec<String> = events
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    format!(
                        "#{} {}",
                        first + i,
                        super::describe::describe_event_as(e, ui.shogi)
                    )
                })
                .collect();
            ui.message = Some(Message::new(
                MsgKind::Done,
                format!("recorded {}", text.join(" · ")),
            ));
        }
        Err(SessionError::Refused(r)) => {
            ui.message = Some(Message::new(MsgKind::Refused, r.to_string()));
            if let Some((kind, text)) = submitted
                && kind == LineKind::Move
            {
                open_line(ui, kind, &text);
            }
        }
        Err(SessionError::Storage(m)) => {
            ui.frozen = Some(m.clone());
            ui.mode = Mode::Clock;
            ui.message = Some(Message::new(
                MsgKind::Error,
                "the log append failed: the last action was NOT recorded",
            ));
        }
        Err(e @ SessionError::Apply(_)) => {
            ui.message = Some(Message::new(MsgKind::Error, e.to_string()));
        }
    }
}

/// Lines of the help overlay's text (for scrolling limits): at most two per command when the
/// help wraps on a narrow screen, and the keys.
pub fn help_len() -> u16 {
    u16::try_from(2 * HELP.len() + 40).unwrap_or(u16::MAX)
}
