//! `arbiter display`: the read-only second screen for the player and the audience (issue 24).
//!
//! It opens nothing for writing (no key, no passphrase, no lock, no file in the match folder),
//! follows the logs as the board appends ([`crate::follow`]: change notification, polling as a
//! fallback), and draws the game from the log with the core's own clock: the time shown is the
//! latest entry's game time plus the wall time since it was written, which is what the board's
//! clock reads. It follows the board across a restart (the log is only read) and on to the next
//! game. One key: `q`.
pub mod screen;

use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};
use crossterm::event::{Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};

use crate::follow::{MatchTail, Wake, Watch, wait};
use crate::relay::Relay;
pub use screen::{Shown, render};

/// What the display shows of the match at wall time `now`. Pure given the tail.
pub fn shown(m: &MatchTail, now: DateTime<Utc>) -> Shown {
    let mut s = Shown {
        score: crate::tui::score_text(&m.score()),
        ..Shown::default()
    };
    let Some(g) = m.current() else {
        s.note = Some(format!(
            "waiting for the board: no game in {} yet",
            m.dir.display()
        ));
        return s;
    };
    if let Some(p) = m.games.iter().rev().find_map(|g| g.problem.as_ref()) {
        s.note = Some(format!("the log cannot be followed further: {p}"));
    }
    let Some(game) = &g.game else {
        return s;
    };
    let at = g.game_time_at(now).unwrap_or(game.last_at());
    s.view = Some(game.view(at, usize::MAX));
    s.times = crate::tui::movelist::move_times(&g.events);
    s
}

/// Whether a key asks to quit: `q`, or Ctrl-C (the terminal is raw, so it arrives as a key).
fn quits(ev: &TermEvent) -> bool {
    let TermEvent::Key(k) = ev else {
        return false;
    };
    k.kind != KeyEventKind::Release
        && (matches!(k.code, KeyCode::Char('q') | KeyCode::Char('Q'))
            || (k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL)))
}

/// Run the display on match folder `dir` (game `only`, or the latest and the ones after it)
/// until `q`; with `relay`, keep its file up to date as well.
pub fn run(dir: &Path, only: Option<u32>, mut relay: Option<Relay>) -> std::io::Result<()> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(std::io::Error::other(
            "arbiter display needs a terminal (stdin and stdout); for a file, use arbiter relay",
        ));
    }
    let mut m = MatchTail::new(dir, only);
    m.poll();
    let (tx, rx) = std::sync::mpsc::channel::<Wake<TermEvent>>();
    let watch = Watch::start(dir, tx.clone());
    let mut terminal = match ratatui::try_init() {
        Ok(t) => t,
        Err(e) => {
            let _ = ratatui::try_restore();
            return Err(e);
        }
    };
    // Keys come on their own thread, so one wait covers keys, appends and the next second.
    std::thread::spawn(move || {
        loop {
            match crossterm::event::read() {
                Ok(ev) => {
                    if tx.send(Wake::Input(ev)).is_err() {
                        break;
                    }
                }
                Err(e) => {
                    let _ = tx.send(Wake::InputGone(e.to_string()));
                    break;
                }
            }
        }
    });
    let ascii = !crate::tui::terminal::utf8_locale();
    let no_color = crate::tui::terminal::no_color();
    let result = (|| -> std::io::Result<()> {
        let mut relay_note: Option<String> = None;
        loop {
            let now = Utc::now();
            if let Some(r) = relay.as_mut() {
                relay_note = r
                    .update(&m, now)
                    .err()
                    .map(|e| format!("relay NOT written: {e}"));
            }
            let mut s = shown(&m, now);
            s.ascii = ascii;
            s.no_color = no_color;
            if let Some(n) = &relay_note {
                s.note = Some(n.clone());
            } else if let Watch::Poll(why) = &watch {
                s.note.get_or_insert_with(|| format!("{why}: polling"));
            }
            terminal.draw(|f| render(&s, f.area(), f.buffer_mut()))?;
            let at = m.current().and_then(|g| g.game_time_at(now)).unwrap_or(0);
            let mut timeout = m.poll_every(&watch);
            if let Some(v) = &s.view {
                timeout = timeout.min(crate::tui::wait_for(v, at));
            }
            if let Some(r) = &relay
                && let Some(d) = crate::relay::next_reveal(&m, now, r.delay)
            {
                timeout = timeout.min(d + Duration::from_millis(1));
            }
            for w in wait(&rx, timeout) {
                match w {
                    Wake::Input(ev) if quits(&ev) => return Ok(()),
                    Wake::InputGone(why) => return Err(std::io::Error::other(why)),
                    Wake::Folder | Wake::Input(_) => {}
                }
            }
            m.poll();
        }
    })();
    let restored = ratatui::try_restore();
    result.and(restored)
}
