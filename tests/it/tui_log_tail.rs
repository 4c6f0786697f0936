//! Memory flat: the Board UI keeps only the latest entries of a long log (with the
//! number of the first), folds the move list's times and the sticky alarms from every entry, and
//! the log page reads older entries from the log file a page at a time when asked (`[`, `]`,
//! End), numbering them as in the log.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

use arbiter::board::tui::logpane::{LogTail, PAGE, TAIL};
use arbiter::board::tui::{self, Action, Mode, PlaySetup, UiState};
use arbiter::core::event::EventKind;
use arbiter::record::sign::KeySource;
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::tui_support::{RULES, ch, key, text};

/// Notes between the first moves and the last: the log is longer than what the screen keeps.
const NOTES: usize = TAIL + 2 * PAGE + 123;

/// A match folder whose game 1 has a 6c alarm and two moves early, many notes, then a move.
fn long_game() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let mut script = String::from(
        "0 arbiter declare white human Garry Kasparov\n\
         0 arbiter declare black machine Deep Junior\n\
         0 arbiter declare operator Amir Ban\n\
         0 arbiter start\n\
         0:00:10 move e4\n\
         0:00:20 move e5\n\
         0:00:30 operator internal-clock 1:50:00\n",
    );
    for k in 0..NOTES {
        script.push_str(&format!("0:00:40 arbiter note long log {k}\n"));
    }
    script.push_str("0:01:00 move Nf3\n");
    let path = dir.path().join("long.arb");
    std::fs::write(&path, script).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .arg("script")
        .arg(&path)
        .arg("--match")
        .arg(&m)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

fn page(ui: &UiState, w: u16, h: u16) -> String {
    let Mode::Log { back } = ui.mode else {
        panic!("not on the log page: {:?}", ui.mode);
    };
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| {
        arbiter::board::tui::logpane::render(&ui.log, ui.utc_origin, back, f.area(), f.buffer_mut())
    })
    .unwrap();
    text(term.backend().buffer())
}

#[test]
fn board_keeps_the_latest_entries_and_folds_the_rest() {
    let dir = long_game();
    let m = dir.path().join("m");
    let (session, _, _, mut ui) = tui::open_session(&PlaySetup {
        match_dir: &m,
        game: Some(1),
        rules: Some(Path::new(RULES)),
        key: &KeySource::default(),
        declarations: None,
        demo: false,
    })
    .unwrap();
    let (all, _) =
        arbiter::after::report_io::read_log(&arbiter::record::layout::log_path(&m, 1)).unwrap();
    let n = all.len();
    assert!(n > TAIL + 2 * PAGE, "{n} entries");
    // Only the latest are kept, numbered as in the log.
    assert_eq!(ui.log.len(), n);
    assert_eq!(ui.log.events.len(), TAIL);
    assert_eq!(ui.log.first, n - TAIL);
    assert_eq!(ui.log.events[..], all[n - TAIL..]);
    // Folded from every entry: the move list's times and the 6c alarm, from before the tail.
    assert_eq!(
        ui.log.move_times,
        arbiter::board::tui::movelist::move_times(&all)
    );
    assert_eq!(ui.log.move_times.len(), 3);
    let owed = all
        .iter()
        .position(|e| {
            matches!(
                e.kind,
                EventKind::InternalClockReported {
                    correction_owed: true,
                    ..
                }
            )
        })
        .unwrap();
    assert!(owed < ui.log.first);
    let alarms = tui::sticky_alarms(&ui.log.alarm_sources, None);
    assert!(
        alarms.iter().any(|a| a.key == format!("6c#{owed}")),
        "{alarms:?}"
    );

    // The log page: the latest entry at the bottom, a line naming the older ones at the top.
    assert_eq!(tui::on_key(&mut ui, ch('l'), &session.game), Action::None);
    let s = page(&ui, 100, 30);
    assert!(s.contains(&format!("#{} ", n - 1)), "{s}");
    ui.mode = Mode::Log {
        back: usize::MAX / 2,
    };
    let s = page(&ui, 100, 30);
    assert!(
        s.contains(&format!(
            "entries #0–#{} are older: [ reads the {PAGE} before from the log file",
            n - TAIL - 1
        )),
        "{s}"
    );
    assert!(s.contains(&format!("#{} ", n - TAIL)), "{s}");

    // `[` asks for the page before; the loop reads it from the file.
    let mut first = n - TAIL;
    let mut pages = 0;
    loop {
        match tui::on_key(&mut ui, ch('['), &session.game) {
            Action::ReadLog { first: f, count } => {
                assert_eq!(f, first.saturating_sub(PAGE));
                assert_eq!(count, first - f);
                tui::read_older(&mut ui, f, count);
                let (got, events) = ui.log.window();
                assert_eq!(got, f);
                assert_eq!(events, &all[f..first]);
                // The bottom of the page: its last entry and the newer ones named.
                let s = page(&ui, 100, 30);
                assert!(s.contains(&format!("#{} ", first - 1)), "{s}");
                assert!(
                    s.contains(&format!("entries #{first}–#{} are newer", n - 1)),
                    "{s}"
                );
                first = f;
                pages += 1;
            }
            Action::None => break,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(first, 0);
    assert!(pages >= 3, "{pages} pages");
    tui::on_key(&mut ui, key(KeyCode::Home), &session.game);
    let s = page(&ui, 100, 30);
    assert!(s.contains("#0    "), "{s}");
    assert!(!s.contains("are older"), "{s}");

    // `]` goes back toward the latest, End straight to them.
    match tui::on_key(&mut ui, ch(']'), &session.game) {
        Action::ReadLog { first: f, count } => {
            tui::read_older(&mut ui, f, count);
            let (got, events) = ui.log.window();
            assert_eq!(got, f);
            assert_eq!(events, &all[f..f + count]);
            assert!(f > 0);
        }
        other => panic!("{other:?}"),
    }
    tui::on_key(&mut ui, key(KeyCode::End), &session.game);
    assert_eq!(ui.log.older, None);
    assert_eq!(ui.log.window().0, n - TAIL);
}

#[test]
fn board_memory_is_bounded_as_entries_are_recorded() {
    let mut t = LogTail::default();
    let e = arbiter::core::event::Event {
        at: 5,
        actor: arbiter::core::Actor::Arbiter,
        clause: "5b".into(),
        kind: EventKind::Note {
            text: "a note".into(),
        },
    };
    for _ in 0..(10 * TAIL + 7) {
        t.push(e.clone());
        assert!(t.events.len() < 2 * TAIL);
    }
    assert_eq!(t.len(), 10 * TAIL + 7);
    assert_eq!(t.first + t.events.len(), t.len());
    assert!(t.events.len() >= TAIL);
    // Without a file to read from, the page says where the older entries are.
    let mut ui = UiState::new(None);
    ui.log = t;
    ui.mode = Mode::Log {
        back: usize::MAX / 2,
    };
    let s = page(&ui, 100, 20);
    assert!(
        s.contains(&format!(
            "entries #0–#{}: see `arbiter report` / the log file",
            ui.log.first - 1
        )),
        "{s}"
    );
}

/// Rule 5b: one game time. The log page gives each entry its game time from the game's first
/// entry, the time the log, the message line, the report and the relay give it, not a time
/// counted from the clock's start (25 s later here).
#[test]
fn clause_5b_the_log_page_gives_each_entry_the_one_game_time() {
    let mut r = crate::tui_support::Rig::new();
    r.at("25", "arbiter start").at("40", "move e4");
    let e = r.s.game.last_at();
    assert_eq!(e, 40_000);
    r.ui.mode = arbiter::board::tui::Mode::Log { back: 0 };
    let s = r.shot("41", 120, 40);
    assert!(s.contains("0:00:40"), "the move at game time 0:00:40:\n{s}");
    assert!(
        !s.contains("0:00:15"),
        "no time counted from the clock's start:\n{s}"
    );
}
