//! The game master's acts on the werewolf table's screen (PURE: keys in, what to do out; the
//! dialog drawn from state). Pause, resume, note, eject and readmit a seat (chosen in a picker of
//! the seats), end the game with a ruling: each act is asked step by step (the seat or the
//! winner, then the reason), then shown with what it will record and asked y/n, then, when the
//! arbiter's key is encrypted, behind the key's passphrase, typed masked. Esc at any step leaves
//! it: nothing recorded. While the passphrase prompt is open every key goes into it (a
//! passphrase typed again after a wrong one never acts on the screen); the shell checks it, holds
//! the doubling wait after a failure ([`crate::board::tui::backoff`]) and hands the act to the
//! table, whose answer it shows.
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Widget, Wrap};
use zeroize::Zeroizing;

use super::werewolf::Master;
use crate::core::werewolf::{Event, Winner};

/// The arbiter's acts at the werewolf table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActKind {
    Pause,
    Resume,
    Note,
    Eject,
    Readmit,
    End,
}

/// The winners a ruling may name, in the picker's order.
pub const WINNERS: [&str; 3] = ["VILLAGER", "WEREWOLF", "NONE"];

/// An act as far as it is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    pub kind: ActKind,
    /// The seat (0-based) an eject or readmit names.
    pub seat: Option<usize>,
    /// The winner a ruling names (one of [`WINNERS`]).
    pub winner: Option<&'static str>,
    /// The reason, or the note's text.
    pub text: String,
}

impl Draft {
    fn new(kind: ActKind) -> Draft {
        Draft {
            kind,
            seat: None,
            winner: None,
            text: String::new(),
        }
    }

    /// The control line the table takes (`serve --control`'s words; a seat as `#N`).
    pub fn line(&self) -> String {
        let seat = self.seat.map_or(0, |s| s + 1);
        match self.kind {
            ActKind::Pause => format!("pause {}", self.text),
            ActKind::Resume => "resume".into(),
            ActKind::Note => format!("note {}", self.text),
            ActKind::Eject => format!("eject #{seat} {}", self.text),
            ActKind::Readmit => format!("readmit #{seat}"),
            ActKind::End => format!("end {} {}", self.winner.unwrap_or("NONE"), self.text),
        }
    }

    /// The entry the act opens with: its kind and the clause it cites.
    fn entry(&self) -> Event {
        let at_ms = 0;
        let seat = self.seat.unwrap_or(0);
        let text = self.text.clone();
        match self.kind {
            ActKind::Pause => Event::Paused {
                at_ms,
                reason: text,
            },
            ActKind::Resume => Event::Resumed {
                at_ms,
                paused_ms: 0,
                by_arbiter: true,
            },
            ActKind::Note => Event::Noted { at_ms, text },
            ActKind::Eject => Event::Ejected {
                at_ms,
                seat,
                reason: text,
            },
            ActKind::Readmit => Event::Readmitted { at_ms, seat },
            ActKind::End => Event::Ruled {
                at_ms,
                winner: match self.winner {
                    Some("VILLAGER") => Winner::Villager,
                    Some("WEREWOLF") => Winner::Werewolf,
                    _ => Winner::None,
                },
                reason: text,
            },
        }
    }
}

/// Where the arbiter is in giving an act.
#[derive(Clone, Default)]
pub enum Step {
    /// Single keys choose an act.
    #[default]
    Idle,
    /// The seat an eject or readmit names: `choices` (0-based seats), the one at `at` marked.
    Seat {
        draft: Draft,
        choices: Vec<usize>,
        at: usize,
    },
    /// The winner of a ruling.
    Winner { draft: Draft, at: usize },
    /// The reason (or the note) being typed.
    Text { draft: Draft, typed: String },
    /// What the act will record, asked y/n.
    Confirm { draft: Draft },
    /// The arbiter's passphrase, typed masked.
    Passphrase {
        draft: Draft,
        typed: Zeroizing<String>,
    },
}

/// The acts' part of the game master's screen.
#[derive(Clone, Default)]
pub struct GmUi {
    pub step: Step,
    /// The last word to the arbiter (the table's answer, a refusal, a hint).
    pub message: Option<String>,
    /// The arbiter's key is encrypted: each act asks its passphrase after y.
    pub asks_passphrase: bool,
    /// The game the screen shows (the act is meant for it).
    pub game: Option<u32>,
    /// The address the table is served on (`serve`'s own screen), shown in the title.
    pub address: Option<String>,
    /// No table is served from the match folder (no `serve` runs on it): an act has nowhere to go.
    pub no_table: bool,
}

/// What the shell does after a key.
pub enum Do {
    Nothing,
    Quit,
    /// Hand the act to the table (no passphrase to ask: the key is not encrypted).
    Send(Draft),
    /// Check the passphrase; if it opens the key, hand the act to the table.
    Check {
        draft: Draft,
        passphrase: Zeroizing<String>,
    },
}

fn ctrl(k: &KeyEvent, c: char) -> bool {
    k.code == KeyCode::Char(c) && k.modifiers.contains(KeyModifiers::CONTROL)
}

/// The seat's name as the screen shows it, with its number.
fn seat_words(m: &Master, seat: usize) -> String {
    match m.table.seats.get(seat) {
        Some(s) => format!("{} (seat {}, {})", s.name, seat + 1, s.player),
        None => format!("seat {}", seat + 1),
    }
}

/// The step after the act's seat or winner is known: its text, or (resume, readmit) the
/// question.
fn after_choice(draft: Draft) -> Step {
    match draft.kind {
        ActKind::Resume | ActKind::Readmit => Step::Confirm { draft },
        _ => Step::Text {
            draft,
            typed: String::new(),
        },
    }
}

/// Start the act `kind` at the screen as it stands, or say why it cannot be given now.
fn start(ui: &mut GmUi, kind: ActKind, m: &Master) {
    if ui.no_table {
        ui.message = Some(
            "no table is served from this match folder: the acts go to a running arbiter serve"
                .into(),
        );
        return;
    }
    if m.table.seats.is_empty() {
        ui.message = Some("no game is under way yet: nothing to act on".into());
        return;
    }
    if let Some(e) = &m.table.ended {
        ui.message = Some(format!("the game is over ({e}): nothing to act on"));
        return;
    }
    let draft = Draft::new(kind);
    ui.message = None;
    ui.step = match kind {
        ActKind::Pause if m.paused => {
            ui.message = Some("the table is already paused: r resumes it".into());
            return;
        }
        ActKind::Resume if !m.paused => {
            ui.message = Some("the table is not paused: p pauses it".into());
            return;
        }
        ActKind::Eject | ActKind::Readmit => {
            let in_error = |i: usize| m.conn.get(i).is_some_and(|c| *c == "in error");
            let choices: Vec<usize> = (0..m.table.seats.len())
                .filter(|&i| in_error(i) == (kind == ActKind::Readmit))
                .collect();
            if choices.is_empty() {
                ui.message = Some(match kind {
                    ActKind::Readmit => "no seat is in error: nothing to readmit".into(),
                    _ => "every seat is in error already: nothing to eject".into(),
                });
                return;
            }
            Step::Seat {
                draft,
                choices,
                at: 0,
            }
        }
        ActKind::End => Step::Winner { draft, at: 0 },
        _ => after_choice(draft),
    };
}

/// Handle one key. Pure: reads the screen's state, changes only `ui`.
pub fn on_key(ui: &mut GmUi, key: KeyEvent, m: &Master) -> Do {
    if key.kind == KeyEventKind::Release {
        return Do::Nothing;
    }
    if ctrl(&key, 'c') {
        return Do::Quit;
    }
    let cancel = |ui: &mut GmUi| {
        ui.step = Step::Idle;
        ui.message = Some("left: nothing recorded".into());
        Do::Nothing
    };
    match std::mem::take(&mut ui.step) {
        Step::Idle => {
            let kind = match key.code {
                KeyCode::Char('q') | KeyCode::Char('Q') => return Do::Quit,
                KeyCode::Char('p') => ActKind::Pause,
                KeyCode::Char('r') => ActKind::Resume,
                KeyCode::Char('n') => ActKind::Note,
                KeyCode::Char('e') => ActKind::Eject,
                KeyCode::Char('a') => ActKind::Readmit,
                KeyCode::Char('x') => ActKind::End,
                _ => return Do::Nothing,
            };
            start(ui, kind, m);
            Do::Nothing
        }
        Step::Seat {
            draft,
            choices,
            mut at,
        } => match key.code {
            KeyCode::Esc => cancel(ui),
            KeyCode::Up => {
                at = at.saturating_sub(1);
                ui.step = Step::Seat { draft, choices, at };
                Do::Nothing
            }
            KeyCode::Down => {
                at = (at + 1).min(choices.len().saturating_sub(1));
                ui.step = Step::Seat { draft, choices, at };
                Do::Nothing
            }
            KeyCode::Enter => {
                let mut draft = draft;
                draft.seat = choices.get(at).copied();
                ui.step = after_choice(draft);
                Do::Nothing
            }
            _ => {
                ui.step = Step::Seat { draft, choices, at };
                Do::Nothing
            }
        },
        Step::Winner { mut draft, mut at } => match key.code {
            KeyCode::Esc => cancel(ui),
            KeyCode::Up => {
                at = at.saturating_sub(1);
                ui.step = Step::Winner { draft, at };
                Do::Nothing
            }
            KeyCode::Down => {
                at = (at + 1).min(WINNERS.len() - 1);
                ui.step = Step::Winner { draft, at };
                Do::Nothing
            }
            KeyCode::Enter => {
                draft.winner = WINNERS.get(at).copied();
                ui.step = after_choice(draft);
                Do::Nothing
            }
            _ => {
                ui.step = Step::Winner { draft, at };
                Do::Nothing
            }
        },
        Step::Text {
            mut draft,
            mut typed,
        } => match key.code {
            KeyCode::Esc => cancel(ui),
            KeyCode::Enter if typed.trim().is_empty() => {
                ui.message = Some(match draft.kind {
                    ActKind::Note => "type the note, then Enter (Esc leaves)".into(),
                    _ => "the act needs a reason: type it, then Enter (Esc leaves)".into(),
                });
                ui.step = Step::Text { draft, typed };
                Do::Nothing
            }
            KeyCode::Enter => {
                draft.text = typed.trim().to_string();
                ui.message = None;
                ui.step = Step::Confirm { draft };
                Do::Nothing
            }
            KeyCode::Backspace => {
                typed.pop();
                ui.step = Step::Text { draft, typed };
                Do::Nothing
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                // One line: the control channel's words end at the line's end.
                if !c.is_control() {
                    typed.push(c);
                }
                ui.step = Step::Text { draft, typed };
                Do::Nothing
            }
            _ => {
                ui.step = Step::Text { draft, typed };
                Do::Nothing
            }
        },
        Step::Confirm { draft } => match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') if ui.asks_passphrase => {
                ui.step = Step::Passphrase {
                    draft,
                    typed: Zeroizing::new(String::new()),
                };
                Do::Nothing
            }
            KeyCode::Char('y') | KeyCode::Char('Y') => Do::Send(draft),
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => cancel(ui),
            _ => {
                ui.step = Step::Confirm { draft };
                Do::Nothing
            }
        },
        Step::Passphrase { draft, mut typed } => match key.code {
            KeyCode::Esc => cancel(ui),
            KeyCode::Enter => Do::Check {
                draft,
                passphrase: typed,
            },
            KeyCode::Backspace => {
                typed.pop();
                ui.step = Step::Passphrase { draft, typed };
                Do::Nothing
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                typed.push(c);
                ui.step = Step::Passphrase { draft, typed };
                Do::Nothing
            }
            _ => {
                ui.step = Step::Passphrase { draft, typed };
                Do::Nothing
            }
        },
    }
}

/// The passphrase prompt again, nothing typed (after a wrong or empty passphrase, or one given
/// before the wait after a failure ended).
pub fn reopen(ui: &mut GmUi, draft: Draft) {
    ui.step = Step::Passphrase {
        draft,
        typed: Zeroizing::new(String::new()),
    };
}

/// What the act will do and record, in words.
pub fn consequence(d: &Draft, m: &Master, game: Option<u32>) -> Vec<String> {
    let mut out = Vec::new();
    let awaited = m
        .pending
        .as_ref()
        .map(|(who, what, _)| (who.clone(), what.clone()));
    match d.kind {
        ActKind::Pause => {
            out.push("the table PAUSES: no deadline runs until you resume it".into());
            if let Some((who, what)) = &awaited {
                out.push(format!("{who}'s awaited {what} keeps the time it has left"));
            }
        }
        ActKind::Resume => out.push(
            "the table RUNS again: the awaited answer's deadline moves on by the pause".into(),
        ),
        ActKind::Note => out.push("a note in the log: nothing else changes".into()),
        ActKind::Eject => {
            let seat = d.seat.unwrap_or(0);
            out.push(format!(
                "{} is OUT: in error for the rest of the game unless readmitted",
                seat_words(m, seat)
            ));
            let name = m.table.seats.get(seat).map(|s| s.name.clone());
            if let Some((who, what)) = &awaited
                && Some(who) == name.as_ref()
            {
                out.push(format!("its awaited {what} fails now"));
            }
        }
        ActKind::Readmit => out.push(format!(
            "{} PLAYS again from the next request it is sent",
            seat_words(m, d.seat.unwrap_or(0))
        )),
        ActKind::End => {
            let w = d.winner.unwrap_or("NONE");
            out.push(match w {
                "NONE" => "the game ENDS now with NO winner".to_string(),
                w => format!("the game ENDS now: {w} wins"),
            });
            out.push("every seat is sent FINISH; the seed is revealed in the log".into());
        }
    }
    let e = d.entry();
    let game = game.map_or_else(|| "the game's".to_string(), |n| format!("game {n}'s"));
    let text = match d.kind {
        ActKind::Resume | ActKind::Readmit => String::new(),
        ActKind::Note => format!(": «{}»", d.text),
        _ => format!(", reason «{}»", d.text),
    };
    out.push(format!(
        "recorded in {game} log: the arbiter's entry «{}»{text}, citing «{}»",
        e.kind(),
        e.section()
    ));
    out
}

const AMBER: Color = Color::Rgb(255, 176, 0);

/// The rectangle of `w`×`h` in the middle of `area`.
fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// The act's dialog over the screen (nothing at [`Step::Idle`]).
pub fn render(ui: &GmUi, m: &Master, area: Rect, buf: &mut Buffer) {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let rev = Style::new().add_modifier(Modifier::REVERSED);
    let title = |d: &Draft| match d.kind {
        ActKind::Pause => " pause the table ",
        ActKind::Resume => " resume the table ",
        ActKind::Note => " a note in the log ",
        ActKind::Eject => " eject a seat ",
        ActKind::Readmit => " readmit a seat ",
        ActKind::End => " end the game with a ruling ",
    };
    let (t, lines): (&str, Vec<Line>) = match &ui.step {
        Step::Idle => return,
        Step::Seat { draft, choices, at } => {
            let mut l = vec![Line::raw(
                "  choose the seat (↑ ↓, Enter · Esc: nothing recorded)",
            )];
            for (i, &s) in choices.iter().enumerate() {
                let row = match m.table.seats.get(s) {
                    Some(r) => format!(
                        "  {} {} {} ({}) {}",
                        s + 1,
                        r.name,
                        r.role.as_deref().unwrap_or("?"),
                        r.player,
                        m.conn.get(s).copied().unwrap_or("")
                    ),
                    None => format!("  {}", s + 1),
                };
                l.push(if i == *at {
                    Line::styled(format!("▶{}", &row[1..]), rev)
                } else {
                    Line::raw(row)
                });
            }
            (title(draft), l)
        }
        Step::Winner { draft, at } => {
            let mut l = vec![Line::raw(
                "  the ruling's winner (↑ ↓, Enter · Esc: nothing recorded)",
            )];
            for (i, w) in WINNERS.iter().enumerate() {
                l.push(if i == *at {
                    Line::styled(format!("▶ {w}"), rev)
                } else {
                    Line::raw(format!("  {w}"))
                });
            }
            (title(draft), l)
        }
        Step::Text { draft, typed } => {
            let what = match draft.kind {
                ActKind::Note => "the note".to_string(),
                ActKind::Eject => {
                    format!("why {} is ejected", seat_words(m, draft.seat.unwrap_or(0)))
                }
                ActKind::End => format!(
                    "the ruling's reason ({} wins)",
                    draft.winner.unwrap_or("NONE")
                ),
                _ => "the reason".to_string(),
            };
            (
                title(draft),
                vec![
                    Line::styled(format!("  {what}:"), bold),
                    Line::raw(format!("  {typed}▏")),
                    Line::raw(""),
                    Line::raw("  Enter: see what it records · Esc: nothing recorded"),
                ],
            )
        }
        Step::Confirm { draft } => {
            let mut l: Vec<Line> = consequence(draft, m, ui.game)
                .into_iter()
                .map(|c| Line::styled(format!("  {c}"), bold))
                .collect();
            l.push(Line::raw(""));
            l.push(Line::raw(if ui.asks_passphrase {
                "  y: the arbiter's passphrase next · n or Esc: nothing recorded"
            } else {
                "  y records it · n or Esc: nothing recorded"
            }));
            (title(draft), l)
        }
        Step::Passphrase { draft, typed } => {
            let mut l = vec![
                Line::styled(format!("  {}", draft.line()), bold),
                Line::raw(format!(
                    "  arbiter's passphrase (signing key): {}",
                    "*".repeat(typed.chars().count())
                )),
                Line::raw(""),
                Line::raw(
                    "  Enter checks it · Esc: nothing recorded · nothing reaches the table before the passphrase opens the key",
                ),
            ];
            // A failed check, or one asked too soon, is said where the arbiter types.
            if let Some(said) = &ui.message {
                l.push(Line::styled(format!("  {said}"), bold));
            }
            (" only the arbiter: authorize ", l)
        }
    };
    let w = area.width.saturating_sub(4).clamp(20, 100);
    let inner = usize::from(w.saturating_sub(2));
    let rows: usize = lines
        .iter()
        .map(|l| l.width().max(1).div_ceil(inner.max(1)))
        .sum();
    let r = centered(area, w, u16::try_from(rows + 2).unwrap_or(u16::MAX));
    Clear.render(r, buf);
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(
            Block::bordered()
                .border_type(BorderType::Thick)
                .border_style(Style::new().fg(AMBER))
                .title(Span::raw(t)),
        )
        .render(r, buf);
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::board::display::werewolf::SeatRow;

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    fn table() -> Master {
        let mut m = Master::default();
        for (i, n) in ["Alice", "Bob", "Carol"].iter().enumerate() {
            m.table.seats.push(SeatRow {
                name: n.to_string(),
                player: format!("bot{}", i + 1),
                human: false,
                alive: true,
                role: Some("VILLAGER".into()),
            });
            m.conn.push(if i == 2 { "in error" } else { "connected" });
        }
        m.pending = Some(("Bob".into(), "TALK".into(), Some(5000)));
        m
    }

    fn typed(ui: &mut GmUi, m: &Master, text: &str) {
        for c in text.chars() {
            let _ = on_key(ui, key(KeyCode::Char(c)), m);
        }
    }

    #[test]
    fn an_eject_picks_a_seat_asks_a_reason_and_says_what_it_records() {
        let m = table();
        let mut ui = GmUi {
            asks_passphrase: true,
            game: Some(1),
            ..GmUi::default()
        };
        let _ = on_key(&mut ui, key(KeyCode::Char('e')), &m);
        // Only seats not in error are offered.
        let Step::Seat { choices, .. } = &ui.step else {
            panic!("no picker");
        };
        assert_eq!(choices, &[0, 1]);
        let _ = on_key(&mut ui, key(KeyCode::Down), &m);
        let _ = on_key(&mut ui, key(KeyCode::Enter), &m);
        // Enter on an empty reason is refused, the field stays.
        let _ = on_key(&mut ui, key(KeyCode::Enter), &m);
        assert!(matches!(ui.step, Step::Text { .. }));
        typed(&mut ui, &m, "abusive talk");
        let _ = on_key(&mut ui, key(KeyCode::Enter), &m);
        let Step::Confirm { draft } = ui.step.clone() else {
            panic!("no question");
        };
        assert_eq!(draft.line(), "eject #2 abusive talk");
        let c = consequence(&draft, &m, Some(1)).join("\n");
        assert!(c.contains("Bob (seat 2, bot2) is OUT"), "{c}");
        assert!(c.contains("its awaited TALK fails now"), "{c}");
        assert!(
            c.contains("game 1's log: the arbiter's entry «ejected»"),
            "{c}"
        );
        // y asks the passphrase; what is typed there never acts: `q` is a character of it.
        let _ = on_key(&mut ui, key(KeyCode::Char('y')), &m);
        typed(&mut ui, &m, "quit pe");
        match on_key(&mut ui, key(KeyCode::Enter), &m) {
            Do::Check { draft, passphrase } => {
                assert_eq!(passphrase.as_str(), "quit pe");
                assert_eq!(draft.line(), "eject #2 abusive talk");
            }
            _ => panic!("the passphrase was not handed to the check"),
        }
    }

    #[test]
    fn esc_at_any_step_records_nothing_and_readmit_offers_seats_in_error() {
        let m = table();
        let mut ui = GmUi::default();
        let _ = on_key(&mut ui, key(KeyCode::Char('a')), &m);
        let Step::Seat { choices, .. } = &ui.step else {
            panic!("no picker");
        };
        assert_eq!(choices, &[2]);
        let _ = on_key(&mut ui, key(KeyCode::Enter), &m);
        assert!(matches!(ui.step, Step::Confirm { .. }));
        let _ = on_key(&mut ui, key(KeyCode::Esc), &m);
        assert!(matches!(ui.step, Step::Idle));
        assert_eq!(ui.message.as_deref(), Some("left: nothing recorded"));
        // Without a passphrase to ask, y hands the act over.
        let _ = on_key(&mut ui, key(KeyCode::Char('x')), &m);
        let _ = on_key(&mut ui, key(KeyCode::Down), &m);
        let _ = on_key(&mut ui, key(KeyCode::Enter), &m);
        typed(&mut ui, &m, "server fault");
        let _ = on_key(&mut ui, key(KeyCode::Enter), &m);
        match on_key(&mut ui, key(KeyCode::Char('y')), &m) {
            Do::Send(d) => assert_eq!(d.line(), "end WEREWOLF server fault"),
            _ => panic!("not sent"),
        }
        // Resume on a table that is not paused: said, nothing asked.
        let mut ui = GmUi::default();
        let _ = on_key(&mut ui, key(KeyCode::Char('r')), &m);
        assert!(matches!(ui.step, Step::Idle));
        assert!(ui.message.unwrap().contains("not paused"));
        // No serve runs on the folder: no act is begun.
        let mut ui = GmUi {
            no_table: true,
            ..GmUi::default()
        };
        let _ = on_key(&mut ui, key(KeyCode::Char('n')), &m);
        assert!(matches!(ui.step, Step::Idle));
        assert!(ui.message.unwrap().contains("no table is served"));
    }
}
