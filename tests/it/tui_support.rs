//! Helpers for the Board UI tests: a real session on Memory storage driven at explicit times,
//! keys through the pure `on_key`, frames drawn on ratatui's TestBackend.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::board::session::{Memory, Session, load_profile};
use arbiter::board::tui::{self, Action, Status, UiState};
use arbiter::core::Ms;
use arbiter::core::command::parse;
use arbiter::core::event::KeyRef;
use arbiter::core::game::{Game, GameContext};
use arbiter::core::timefmt::parse_duration;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;

pub const RULES: &str = "rules/kasparov-deep-junior-2003.toml";

/// `h:mm:ss[.fff]`, `m:ss` or seconds -> ms.
pub fn t(s: &str) -> Ms {
    parse_duration(s).unwrap()
}

pub fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

pub fn ch(c: char) -> KeyEvent {
    key(KeyCode::Char(c))
}

pub fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

/// A demo game (Kasparov white human v Deep Junior black machine) in the draft phase.
pub fn demo_game() -> Game {
    demo_game_with(|_| true)
}

/// The demo game without its 8a configuration digest.
pub fn demo_game_without_config() -> Game {
    demo_game_with(|c| !matches!(c, arbiter::core::command::Command::DeclareConfig { .. }))
}

fn demo_game_with(keep: impl Fn(&arbiter::core::command::Command) -> bool) -> Game {
    let (profile, pref) = load_profile(std::path::Path::new(RULES)).unwrap();
    let ctx = GameContext {
        match_id: "nyc-2003".into(),
        game: 1,
        profile: pref,
        arbiter_key: KeyRef {
            principal: "arbiter".into(),
            fingerprint: "SHA256:test".into(),
            demo: false,
        },
        previous_algorithm: None,
    };
    let mut g = Game::new(ctx, profile);
    for c in tui::parse_declarations(tui::DEMO_DECLARATIONS).unwrap() {
        if keep(&c) {
            g.declare(&c).unwrap();
        }
    }
    g
}

/// A session, the screen's state and the latest entry, like the loop keeps them.
pub struct Rig {
    pub s: Session,
    pub ui: UiState,
    pub last: Option<String>,
    pub signed_upto: Option<usize>,
    /// What the shell would find beside the log: the camps' countersignatures.
    pub countersigned: Vec<(String, u64)>,
    /// The camps that countersigned the match index in force.
    pub index_countersigned: Vec<String>,
}

impl Rig {
    pub fn new() -> Rig {
        Rig::with_storage(Memory::default())
    }

    pub fn with_storage(m: Memory) -> Rig {
        let utc = chrono::DateTime::from_timestamp(1_044_000_000, 0).unwrap();
        Rig {
            s: Session::new(demo_game(), Box::new(m), utc),
            ui: UiState {
                utc_origin: Some(utc),
                ..UiState::new(None)
            },
            last: None,
            signed_upto: None,
            countersigned: Vec::new(),
            index_countersigned: Vec::new(),
        }
    }

    fn note(
        &mut self,
        r: &Result<Vec<arbiter::core::event::Event>, arbiter::board::session::SessionError>,
    ) {
        if let Ok(ev) = r
            && let Some(e) = ev.last()
        {
            self.last = Some(format!(
                "#{} {}",
                self.s.storage.len() - 1,
                tui::describe::describe_event_as(e, self.ui.shogi)
            ));
        }
    }

    /// Run a command in script words at `at`; it must succeed.
    pub fn at(&mut self, at: &str, line: &str) -> &mut Rig {
        let cmd = parse(line).unwrap();
        let r = self.s.execute(&cmd, t(at));
        assert!(r.is_ok(), "{at} {line}: {r:?}");
        self.note(&r);
        tui::after_execute(&mut self.ui, &r, self.s.storage.len());
        self
    }

    /// Press a key at `at` the way the loop does: catch up, on_key, execute.
    pub fn key(&mut self, at: &str, k: KeyEvent) -> Action {
        let now = t(at);
        self.catch_up(now);
        let a = tui::on_key(&mut self.ui, k, &self.s.game);
        if let Action::Execute(cmd) = &a {
            let r = self.s.execute(cmd, now);
            self.note(&r);
            tui::after_execute(&mut self.ui, &r, self.s.storage.len());
        }
        a
    }

    /// Type characters at `at`.
    pub fn typed(&mut self, at: &str, text: &str) {
        for c in text.chars() {
            self.key(at, ch(c));
        }
    }

    pub fn catch_up(&mut self, now: Ms) {
        if self.s.frozen.is_none() {
            let r = self.s.catch_up(now);
            self.note(&r);
            if let Ok(ev) = &r {
                tui::on_recorded(&mut self.ui, ev);
            }
            if r.is_err() {
                tui::after_execute(&mut self.ui, &r, self.s.storage.len());
            }
        }
    }

    pub fn status(&self) -> Status {
        Status {
            entries: self.s.storage.len(),
            last_entry: self.last.clone(),
            signed_upto: self.signed_upto,
            code: None,
            alarm: None,
            countersigned: self.countersigned.clone(),
            index_countersigned: self.index_countersigned.clone(),
            ..Status::default()
        }
    }

    /// Draw the screen at `now` (after catching up, like the loop) on a w×h TestBackend.
    pub fn draw(&mut self, now: &str, w: u16, h: u16) -> Buffer {
        let now = t(now);
        self.catch_up(now);
        let view = self.s.game.view(now, tui::LAST_MOVES);
        let alarms = tui::sticky_alarms(&self.ui.log.alarm_sources, self.s.restart_gap);
        self.ui.latch(alarms);
        let st = self.status();
        let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
        term.draw(|f| tui::render(&view, &self.ui, &st, f.area(), f.buffer_mut()))
            .unwrap();
        term.backend().buffer().clone()
    }

    /// The screen as text.
    pub fn shot(&mut self, now: &str, w: u16, h: u16) -> String {
        text(&self.draw(now, w, h))
    }
}

/// A session on another rules profile, declared with two machines (no 7c panel, no 8a warning).
pub fn rig_with_profile(rules: &str) -> Rig {
    let (profile, pref) = load_profile(std::path::Path::new(rules)).unwrap();
    let ctx = GameContext::unsigned("denryusen", 1, pref);
    let mut g = Game::new(ctx, profile);
    for line in [
        "arbiter declare white machine Suisho",
        "arbiter declare black machine Dlshogi",
        "arbiter declare operator Op One",
        &format!("arbiter declare config {}", "b".repeat(64)),
    ] {
        g.declare(&parse(line).unwrap()).unwrap();
    }
    let utc = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
    let shogi = g.board().shogi().is_some();
    Rig {
        s: Session::new(g, Box::new(Memory::default()), utc),
        ui: UiState {
            utc_origin: Some(utc),
            shogi,
            ..UiState::new(None)
        },
        last: None,
        signed_upto: None,
        countersigned: Vec::new(),
        index_countersigned: Vec::new(),
    }
}

/// A buffer as lines of text (trailing spaces trimmed).
pub fn text(buf: &Buffer) -> String {
    let a = buf.area;
    let mut out = String::new();
    for y in a.y..a.y + a.height {
        let mut line = String::new();
        for x in a.x..a.x + a.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Foreground colour of the first cell where `needle` starts.
pub fn fg_at(buf: &Buffer, needle: &str) -> Option<Color> {
    let a = buf.area;
    for y in a.y..a.y + a.height {
        let cells: Vec<(u16, String)> = (a.x..a.x + a.width)
            .map(|x| (x, buf[(x, y)].symbol().to_string()))
            .collect();
        let row: String = cells.iter().map(|c| c.1.as_str()).collect();
        if let Some(p) = row.find(needle) {
            // map byte offset to cell
            let mut acc = 0;
            for (x, s) in &cells {
                if acc == p {
                    return Some(buf[(*x, y)].fg);
                }
                acc += s.len();
            }
        }
    }
    None
}
