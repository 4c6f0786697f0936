//! `arbiter display` on an AI Werewolf game: the audience's screen. It follows the game's log
//! read-only (nothing is opened for writing, nothing created in the match folder) and shows only
//! what the table learns as it learns it: the talk, the votes (when the rules make them
//! public), executions and the night's victims. Whispers, divinations, guards, attack votes and
//! every seat's role stay hidden until the game ends; then all of it is shown. With a delay,
//! nothing appears before its entry's time plus the delay.
//!
//! The game master's screen ([`master`], [`render_master`]) shows everything as it happens and
//! takes the arbiter's acts ([`super::gm`]); it writes nothing itself: the shell hands each act
//! to the table ([`Acts`]), which records it.
//!
//! [`audience`] and [`render`] are pure (the time is given); [`run`] is the shell.
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};
use serde_json::Value;

use crate::core::werewolf::{Ballot, Channel, Event, Request, TalkKind};

/// One log entry as the display reads it.
#[derive(Debug, Clone)]
pub struct Entry {
    pub utc: DateTime<Utc>,
    /// Milliseconds since the game's start.
    pub mono_ms: u64,
    pub kind: String,
    pub body: Value,
}

/// A seat as the audience sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatRow {
    /// The character's name at the table (the connection's name until the deal is shown).
    pub name: String,
    /// The connection's NAME answer.
    pub player: String,
    pub human: bool,
    pub alive: bool,
    /// Shown once the game is over.
    pub role: Option<String>,
}

/// What the audience sees at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Audience {
    pub game_id: String,
    pub day: u32,
    pub seats: Vec<SeatRow>,
    pub lines: Vec<String>,
    /// Who the table waits for to talk (only talk: other requests would tell a seat's role).
    pub talking: Option<String>,
    /// The result, once the game is over.
    pub ended: Option<String>,
    pub delay_s: u64,
    /// Entries not shown yet because of the delay.
    pub held: usize,
}

/// Read a game's log as it stands: every complete line (a line still being written is left for
/// the next read). Opens the file for reading only.
pub fn read_log(path: &Path) -> std::io::Result<Vec<Entry>> {
    let bytes = std::fs::read(path)?;
    let complete = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(i) => &bytes[..=i],
        None => &[][..],
    };
    let mut out = Vec::new();
    for line in complete.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let Some(utc) = v["utc"]
            .as_str()
            .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        else {
            continue;
        };
        out.push(Entry {
            utc: utc.with_timezone(&Utc),
            mono_ms: v["mono_ms"].as_u64().unwrap_or(0),
            kind: v["kind"].as_str().unwrap_or("").to_string(),
            body: v["body"].clone(),
        });
    }
    Ok(out)
}

/// Whether the profile in line 0 makes the votes public.
fn vote_visibility(line0: &Value) -> bool {
    line0["profile"]["toml"]
        .as_str()
        .and_then(|t| crate::core::werewolf::Profile::parse(t).ok())
        .is_none_or(|p| p.table.vote_visibility)
}

/// When the next held entry may be shown (its time plus the delay), if one is held.
pub fn next_reveal(entries: &[Entry], now: DateTime<Utc>, delay: Duration) -> Option<Duration> {
    let d = chrono::Duration::from_std(delay).unwrap_or(chrono::Duration::zero());
    entries
        .iter()
        .map(|e| e.utc + d)
        .find(|t| *t > now)
        .and_then(|t| (t - now).to_std().ok())
}

/// What the audience sees of `entries` at `now`, `delay` behind the table.
pub fn audience(entries: &[Entry], now: DateTime<Utc>, delay: Duration) -> Audience {
    seen(entries, now, delay, false)
}

/// What the table shows: to the audience (`all` false), or everything to the game master.
fn seen(entries: &[Entry], now: DateTime<Utc>, delay: Duration, all: bool) -> Audience {
    let d = chrono::Duration::from_std(delay).unwrap_or(chrono::Duration::zero());
    let shown = entries.iter().take_while(|e| e.utc + d <= now).count();
    let mut a = Audience {
        delay_s: delay.as_secs(),
        held: entries.len() - shown,
        ..Audience::default()
    };
    let Some(first) = entries.first().filter(|_| shown > 0) else {
        return a;
    };
    let table = &first.body["table"];
    a.game_id = table["game_id"].as_str().unwrap_or("").to_string();
    for s in table["seats"].as_array().into_iter().flatten() {
        let player = s["name"].as_str().unwrap_or("?").to_string();
        a.seats.push(SeatRow {
            name: player.clone(),
            player,
            human: s["human"].as_bool().unwrap_or(false),
            alive: true,
            role: None,
        });
    }
    let votes_public = vote_visibility(&first.body);
    let events: Vec<Event> = entries[1..shown]
        .iter()
        .filter_map(|e| Event::from_entry(&e.kind, &e.body).ok())
        .collect();
    // Once the game is over (or for the game master) nothing is hidden.
    let over = all || events.iter().any(|e| matches!(e, Event::GameEnded { .. }));
    let mut roles: Vec<Option<String>> = vec![None; a.seats.len()];
    let name = |a: &Audience, i: usize| {
        a.seats
            .get(i)
            .map(|s| s.name.clone())
            .unwrap_or_else(|| format!("seat {i}"))
    };
    let mut votes: Vec<String> = Vec::new();
    for e in &events {
        match e {
            Event::Dealt { seats } => {
                for s in seats {
                    if let Some(row) = a.seats.get_mut(s.seat) {
                        row.name = s.name.clone();
                    }
                    if let Some(r) = roles.get_mut(s.seat) {
                        *r = Some(s.role.name().to_string());
                    }
                }
            }
            Event::DayBegun { day } => {
                a.day = *day;
                a.lines.push(format!("— day {day} —"));
            }
            Event::NightBegun { day } => a.lines.push(format!("— night {day} —")),
            Event::Sent { seat, request, .. } => {
                a.talking = (*request == Request::Talk).then(|| name(&a, *seat));
            }
            Event::Talked {
                seat,
                channel,
                text,
                counts_as,
                ..
            } => {
                a.talking = None;
                match channel {
                    Channel::Talk if *counts_as == TalkKind::ForcedSkip => {
                        a.lines
                            .push(format!("{}: {text} (no answer)", name(&a, *seat)));
                    }
                    Channel::Talk => a.lines.push(format!("{}: {text}", name(&a, *seat))),
                    Channel::Whisper if over => {
                        a.lines
                            .push(format!("{} (whisper): {text}", name(&a, *seat)));
                    }
                    Channel::Whisper => {}
                }
            }
            Event::Voted {
                seat,
                ballot,
                target,
                ..
            } => match ballot {
                Ballot::Vote if votes_public || over => {
                    votes.push(format!("{}→{}", name(&a, *seat), name(&a, *target)));
                }
                Ballot::Attack if over => a.lines.push(format!(
                    "(attack vote) {} → {}",
                    name(&a, *seat),
                    name(&a, *target)
                )),
                _ => {}
            },
            Event::Executed {
                day, seat, role, ..
            } => {
                if !votes.is_empty() {
                    a.lines.push(format!("votes: {}", votes.join(", ")));
                    votes.clear();
                }
                let who = name(&a, *seat);
                if let Some(s) = a.seats.get_mut(*seat) {
                    s.alive = false;
                }
                if over {
                    a.lines
                        .push(format!("day {day}: {who} is executed ({})", role.name()));
                } else {
                    a.lines.push(format!("day {day}: {who} is executed"));
                }
            }
            Event::NoExecution { day } => {
                votes.clear();
                a.lines.push(format!("day {day}: nobody is executed"));
            }
            Event::Attacked {
                day,
                target,
                guarded,
            } => {
                if *guarded {
                    a.lines.push(format!("night {day}: nobody is killed"));
                    if over {
                        a.lines.push(format!(
                            "(the guard saved {} from the werewolves)",
                            name(&a, *target)
                        ));
                    }
                } else {
                    let who = name(&a, *target);
                    if let Some(s) = a.seats.get_mut(*target) {
                        s.alive = false;
                    }
                    a.lines.push(format!("night {day}: {who} is killed"));
                }
            }
            Event::NoAttack { day, .. } => a.lines.push(format!("night {day}: nobody is killed")),
            Event::Divined {
                seer,
                target,
                species,
                ..
            } if over => a.lines.push(format!(
                "(seer) {} divines {}: {}",
                name(&a, *seer),
                name(&a, *target),
                species.name()
            )),
            Event::Guarded { guard, target, .. } if over => a.lines.push(format!(
                "(bodyguard) {} guards {}",
                name(&a, *guard),
                name(&a, *target)
            )),
            Event::SeatInError { seat, .. } => {
                a.lines
                    .push(format!("{} is out of the game (error)", name(&a, *seat)));
            }
            Event::GameEnded { winner, reason, .. } => {
                a.talking = None;
                let w = winner.name();
                a.ended = Some(format!("{w} ({reason})"));
                a.lines.push(format!("the game is over: {w}"));
            }
            _ => {}
        }
    }
    if over {
        for (s, r) in a.seats.iter_mut().zip(roles) {
            s.role = r;
        }
    }
    a
}

/// Draw the audience's screen.
pub fn render(a: &Audience, area: Rect, buf: &mut Buffer) {
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let rev = Style::default().add_modifier(Modifier::REVERSED);
    let [title, middle, foot] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(area);
    let mut head = if a.seats.is_empty() {
        // Before line 0: the match may be any game's.
        vec![Span::styled(" arbiter display ", rev)]
    } else {
        vec![
            Span::styled(" AI Werewolf ", rev),
            Span::raw(format!(" {} · day {}", a.game_id, a.day)),
        ]
    };
    if a.delay_s > 0 {
        head.push(Span::raw(format!(" · {} s behind the table", a.delay_s)));
    }
    if let Some(e) = &a.ended {
        head.push(Span::styled(format!(" · over: {e}"), bold));
    }
    Paragraph::new(Line::from(head)).render(title, buf);
    let side = if area.width >= 100 { 34 } else { 26 };
    let [left, right] =
        Layout::horizontal([Constraint::Length(side), Constraint::Min(20)]).areas(middle);
    let rows: Vec<Line> = a
        .seats
        .iter()
        .map(|s| {
            let mut t = format!("{} {}", if s.alive { " " } else { "✝" }, s.name);
            if let Some(r) = &s.role {
                t.push_str(&format!(" {r}"));
            }
            t.push_str(&format!(
                " ({}{})",
                s.player,
                if s.human { ", human" } else { "" }
            ));
            let style = if s.alive {
                Style::default()
            } else {
                Style::default().add_modifier(Modifier::DIM)
            };
            Line::styled(t, style)
        })
        .collect();
    Paragraph::new(rows)
        .wrap(Wrap { trim: false })
        .block(Block::default().borders(Borders::RIGHT).title("Seats"))
        .render(left, buf);
    let inner = Rect {
        x: right.x + 1,
        width: right.width.saturating_sub(1),
        ..right
    };
    Line::styled("Table", bold).render(Rect { height: 1, ..inner }, buf);
    let lines: Vec<Line> = a.lines.iter().map(|l| Line::raw(l.clone())).collect();
    let para = Paragraph::new(lines).wrap(Wrap { trim: false });
    let total = u16::try_from(para.line_count(inner.width)).unwrap_or(u16::MAX);
    let body = inner.height.saturating_sub(1);
    para.scroll((total.saturating_sub(body), 0)).render(
        Rect {
            y: inner.y + 1,
            height: body,
            ..inner
        },
        buf,
    );
    let mut f = vec![Span::styled("q quit", bold)];
    if let Some(t) = &a.talking {
        f.push(Span::raw(format!("  · {t} is talking…")));
    }
    if a.seats.is_empty() {
        f.push(Span::raw("  · waiting for the game"));
    }
    Paragraph::new(Line::from(f)).render(foot, buf);
}

/// The game to follow: the one asked for, else the latest in the folder.
fn game_to_follow(dir: &Path, only: Option<u32>) -> Option<u32> {
    only.or_else(|| crate::record::layout::games(dir).last().copied())
}

/// How a follow of the folder ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Followed {
    /// `q`.
    Quit,
    /// The game that appeared (the screen waited for one) is not a werewolf game: its number.
    NotWerewolf(u32),
}

/// Follow the werewolf game `only` (or the latest, then the next ones) of match folder `dir`
/// until `q`, `delay` behind the table. Before any game's line 0 is written it waits; if the
/// game that appears is not a werewolf table's, it returns that game's number for its own screen.
pub fn run(dir: &Path, only: Option<u32>, delay: Duration) -> std::io::Result<Followed> {
    follow(dir, only, delay, None)
}

/// What the game master's screen tells the shell an act became.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActOutcome {
    /// The act's entries are in the log (durable).
    pub recorded: bool,
    /// In words: the entries, or why nothing was recorded.
    pub text: String,
}

/// How the arbiter approved an act at the game master's screen, for the shell to hand over.
#[derive(Debug)]
pub enum Approve {
    /// Nothing asked (no gate: rehearsals, tests).
    Open,
    /// The key is not encrypted: anyone at this keyboard.
    UnencryptedKey,
    /// The passphrase opened the arbiter's key for this act: it signs the act.
    Key(Box<crate::record::sign::ActKey>),
    /// `--agent`: the ssh-agent holding the arbiter's key signs the act.
    Agent,
    /// A wrong passphrase typed for the act (why): recorded, the act not handed over.
    Failed(String),
}

/// How the game master's screen acts on the table: the shell's hooks.
pub struct Acts<'a> {
    /// How the arbiter's authorization is given at this keyboard.
    pub authority: &'a crate::board::tui::Authority<'a>,
    /// Hand an act (a control line, meant for the game shown) to the table with how it was
    /// approved (or a failed passphrase for it, to be recorded); its answer.
    pub send: &'a mut dyn FnMut(Option<u32>, &str, Approve) -> ActOutcome,
    /// What the server said since the last call (`serve`'s own screen), oldest first.
    pub notices: Option<&'a mut dyn FnMut() -> Vec<String>>,
    /// The first word on the message line (a note on the key).
    pub note: Option<String>,
    /// The address the table is served on, when the screen is `serve`'s own.
    pub address: Option<String>,
}

/// The game master's screen of game `only` (or the latest, then the next ones): nothing hidden,
/// no delay, and the arbiter's acts handed to the table through `acts`.
pub fn run_master(dir: &Path, only: Option<u32>, acts: Acts<'_>) -> std::io::Result<()> {
    follow(dir, only, Duration::ZERO, Some(acts)).map(|_| ())
}

/// The first entry of `entries` is a werewolf table's line 0.
fn is_werewolf(entries: &[Entry]) -> Option<bool> {
    let first = entries.first()?;
    Some(
        first.kind == "game_opened"
            && first.body["profile"]["toml"]
                .as_str()
                .is_some_and(crate::core::werewolf::is_werewolf),
    )
}

fn follow(
    dir: &Path,
    only: Option<u32>,
    delay: Duration,
    mut acts: Option<Acts<'_>>,
) -> std::io::Result<Followed> {
    use crossterm::event::{Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(std::io::Error::other(
            "arbiter display needs a terminal (stdin and stdout)",
        ));
    }
    let mut terminal = ratatui::try_init()?;
    let origin = std::time::Instant::now();
    let mono_ms = || u64::try_from(origin.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut ui = super::gm::GmUi {
        asks_passphrase: matches!(
            acts.as_ref().map(|a| a.authority),
            Some(crate::board::tui::Authority::Passphrase(_))
        ),
        message: acts.as_ref().and_then(|a| a.note.clone()),
        address: acts.as_ref().and_then(|a| a.address.clone()),
        ..super::gm::GmUi::default()
    };
    let mut backoff = crate::board::tui::backoff::Backoff::default();
    let result = (|| -> std::io::Result<Followed> {
        let mut game = game_to_follow(dir, only);
        let mut path: Option<PathBuf> = game.map(|n| crate::record::layout::log_path(dir, n));
        let mut entries: Vec<Entry> = Vec::new();
        let mut len = None;
        loop {
            if let Some(p) = &path {
                let now_len = std::fs::metadata(p).ok().map(|m| m.len());
                if now_len != len {
                    if let Ok(e) = read_log(p) {
                        entries = e;
                    }
                    len = now_len;
                }
            }
            // The audience waits for a game; one that is not a werewolf table's has its own
            // screen.
            if acts.is_none()
                && let (Some(n), Some(false)) = (game, is_werewolf(&entries))
            {
                return Ok(Followed::NotWerewolf(n));
            }
            let now = Utc::now();
            let a = audience(&entries, now, delay);
            // A finished game gives way to the next one the folder holds (unless one was asked).
            if only.is_none() && a.ended.is_some() && a.held == 0 {
                let latest = crate::record::layout::games(dir).last().copied();
                if latest > game {
                    game = latest;
                    path = game.map(|n| crate::record::layout::log_path(dir, n));
                    entries.clear();
                    len = None;
                    continue;
                }
            }
            if path.is_none() || (entries.is_empty() && only.is_none()) {
                let latest = game_to_follow(dir, only);
                if latest != game {
                    game = latest;
                    path = game.map(|n| crate::record::layout::log_path(dir, n));
                    entries.clear();
                    len = None;
                }
            }
            if let Some(a) = acts.as_mut()
                && let Some(more) = a.notices.as_mut()
                && let Some(last) = more().pop()
            {
                ui.message = Some(last);
            }
            ui.game = game;
            ui.no_table = acts.is_some()
                && std::fs::symlink_metadata(crate::record::layout::control_socket(dir)).is_err();
            let m = master(&entries, now);
            terminal.draw(|f| {
                let area = f.area();
                if acts.is_some() {
                    render_master_with(&m, &ui, area, f.buffer_mut());
                } else {
                    render(&a, area, f.buffer_mut());
                }
            })?;
            let mut wait = Duration::from_millis(200);
            if let Some(d) = next_reveal(&entries, now, delay) {
                wait = wait.min(d + Duration::from_millis(1));
            }
            if !crossterm::event::poll(wait)? {
                continue;
            }
            let key = match crossterm::event::read()? {
                TermEvent::Key(k) if k.kind != KeyEventKind::Release => k,
                TermEvent::Resize(..) => {
                    terminal.autoresize()?;
                    continue;
                }
                _ => continue,
            };
            let Some(acts) = acts.as_mut() else {
                if matches!(key.code, KeyCode::Char('q') | KeyCode::Char('Q'))
                    || (key.code == KeyCode::Char('c')
                        && key.modifiers.contains(KeyModifiers::CONTROL))
                {
                    return Ok(Followed::Quit);
                }
                continue;
            };
            use super::gm::Do;
            let (draft, approve) = match super::gm::on_key(&mut ui, key, &m) {
                Do::Nothing => continue,
                Do::Quit => return Ok(Followed::Quit),
                Do::Send(d) => (
                    d,
                    match acts.authority {
                        crate::board::tui::Authority::UnencryptedKey => Approve::UnencryptedKey,
                        crate::board::tui::Authority::Agent => Approve::Agent,
                        _ => Approve::Open,
                    },
                ),
                Do::Check { draft, passphrase } => {
                    let t = mono_ms();
                    if backoff.wait_left(t).is_some() {
                        // Too soon after a failure: not checked, the prompt stays open.
                        ui.message = Some(format!("passphrase not checked: {}", backoff.say(t)));
                        super::gm::reopen(&mut ui, draft);
                        continue;
                    }
                    if passphrase.is_empty() {
                        ui.message = Some(
                            "type the arbiter's passphrase, then Enter (Esc leaves the prompt)"
                                .into(),
                        );
                        super::gm::reopen(&mut ui, draft);
                        continue;
                    }
                    let approve = match acts.authority {
                        crate::board::tui::Authority::Passphrase(check) => {
                            check(&passphrase).map(|k| Approve::Key(Box::new(k)))
                        }
                        crate::board::tui::Authority::UnencryptedKey => {
                            Some(Approve::UnencryptedKey)
                        }
                        // The agent is the gate: it signs the act.
                        crate::board::tui::Authority::Agent => Some(Approve::Agent),
                        crate::board::tui::Authority::Open => Some(Approve::Open),
                    };
                    drop(passphrase);
                    let Some(approve) = approve else {
                        let t = mono_ms();
                        backoff.fail(t);
                        // Every failed passphrase is recorded (the act is not).
                        let out = (acts.send)(
                            game,
                            &draft.line(),
                            Approve::Failed("wrong passphrase".into()),
                        );
                        ui.message = Some(format!(
                            "wrong passphrase: the act did not reach the table{} · {} · the prompt stays open (Esc leaves it)",
                            if out.recorded {
                                " (the failure is logged)"
                            } else {
                                " (the failure could not be logged)"
                            },
                            backoff.say(t)
                        ));
                        super::gm::reopen(&mut ui, draft);
                        continue;
                    };
                    backoff.succeed();
                    (draft, approve)
                }
            };
            let out = (acts.send)(game, &draft.line(), approve);
            ui.message = Some(if out.recorded {
                out.text
            } else {
                format!("not recorded: {}", out.text)
            });
        }
    })();
    let restored = ratatui::try_restore();
    result.and_then(|f| restored.map(|()| f))
}

/// The game master's screen: every seat with its role and connection, the request awaited and
/// its deadline, each incident as it happens, and the talk (whispers included).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Master {
    pub table: Audience,
    /// Per seat: `connected`, `closed`, `in error`.
    pub conn: Vec<&'static str>,
    /// The awaited answer: who, what, due at (ms of game time).
    pub pending: Option<(String, String, Option<u64>)>,
    /// Game time now (ms): the last entry's plus the wall time since it was written.
    pub game_ms: u64,
    pub incidents: Vec<String>,
    pub paused: bool,
}

/// What the game master sees of `entries` at `now` (no delay, nothing hidden).
pub fn master(entries: &[Entry], now: DateTime<Utc>) -> Master {
    let entries = &entries[..entries.iter().take_while(|e| e.utc <= now).count()];
    let table = seen(entries, now, Duration::ZERO, true);
    let mut m = Master {
        conn: vec!["connected"; table.seats.len()],
        ..Master::default()
    };
    let name = |i: usize| {
        table
            .seats
            .get(i)
            .map(|s| s.name.clone())
            .unwrap_or_else(|| format!("seat {i}"))
    };
    // Game time runs on from the last entry until the game is over.
    if let Some(last) = entries.last() {
        let since = (now - last.utc).num_milliseconds().max(0);
        let running = if table.ended.is_some() { 0 } else { since };
        m.game_ms = last.mono_ms + u64::try_from(running).unwrap_or(0);
    }
    for (i, e) in entries.iter().enumerate().skip(1) {
        let Ok(ev) = Event::from_entry(&e.kind, &e.body) else {
            continue;
        };
        let at = format!("#{i} {:.1}s", e.mono_ms as f64 / 1000.0);
        let mut incident = |t: String| m.incidents.push(format!("{at} {t}"));
        match &ev {
            Event::Sent {
                seat,
                request,
                deadline_ms: Some(d),
                ..
            } => m.pending = Some((name(*seat), request.name().to_string(), Some(*d))),
            Event::FrameReceived {
                seat,
                verdict,
                text,
                request,
                ..
            } => {
                if request.is_some() {
                    m.pending = None;
                }
                if *verdict != crate::core::werewolf::Verdict::OnTime {
                    incident(format!("{} {verdict:?}: {text:?}", name(*seat)));
                }
            }
            Event::TimedOut {
                seat,
                request,
                stage,
                ..
            } => incident(format!(
                "{} timed out on {} ({stage:?})",
                name(*seat),
                request.name()
            )),
            Event::BinaryFrame { seat, len, .. } => {
                incident(format!("{} sent a binary frame ({len} bytes)", name(*seat)))
            }
            Event::OversizeFrame { seat, len, .. } => incident(format!(
                "{} sent an oversize frame ({len} bytes)",
                name(*seat)
            )),
            Event::ConnectionClosed { seat, .. } => {
                if let Some(c) = m.conn.get_mut(*seat) {
                    *c = "closed";
                }
                incident(format!("{} closed its connection", name(*seat)));
            }
            Event::Reconnected { seat, .. } => {
                if let Some(c) = m.conn.get_mut(*seat) {
                    *c = "connected";
                }
                incident(format!("{} reconnected", name(*seat)));
            }
            Event::SeatInError { seat, reason } => {
                if let Some(c) = m.conn.get_mut(*seat) {
                    *c = "in error";
                }
                incident(format!("{} in error: {reason}", name(*seat)));
            }
            Event::TalkCut {
                seat,
                base,
                mention,
                ..
            } => incident(format!("{} cut ({base} + {mention} counted)", name(*seat))),
            Event::TalkReplaced {
                seat, raw, text, ..
            } => incident(format!("{} {raw:?} taken as {text}", name(*seat))),
            Event::TargetInvalid {
                seat,
                answer,
                reason,
                ..
            } => incident(format!(
                "{} invalid target {answer:?}: {reason:?}",
                name(*seat)
            )),
            Event::Paused { reason, .. } => {
                m.paused = true;
                incident(format!("paused by the arbiter: {reason}"));
            }
            Event::Resumed { .. } => {
                m.paused = false;
                incident("resumed".into());
            }
            Event::Noted { text, .. } => incident(format!("note: {text}")),
            Event::Ejected { seat, reason, .. } => {
                incident(format!("{} ejected: {reason}", name(*seat)))
            }
            Event::Readmitted { seat, .. } => incident(format!("{} readmitted", name(*seat))),
            Event::Ruled { reason, .. } => incident(format!("ended by the arbiter: {reason}")),
            Event::Restarted { .. } => incident("the server restarted".into()),
            Event::AuthorizationFailed { command, why, .. } => {
                incident(format!("{why} at the game master's screen for {command:?}"))
            }
            Event::GameEnded { .. } => m.pending = None,
            _ => {}
        }
    }
    m.table = table;
    m
}

/// Draw the game master's screen, no act under way.
pub fn render_master(m: &Master, area: Rect, buf: &mut Buffer) {
    render_master_with(m, &super::gm::GmUi::default(), area, buf);
}

/// Draw the game master's screen with the acts' state: the message line, and the act's dialog
/// over the screen.
pub fn render_master_with(m: &Master, ui: &super::gm::GmUi, area: Rect, buf: &mut Buffer) {
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let rev = Style::default().add_modifier(Modifier::REVERSED);
    let a = &m.table;
    let [title, middle, wait, said, foot] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(6),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let mut head = vec![
        Span::styled(" Game master ", rev),
        Span::raw(if a.seats.is_empty() {
            " waiting for the game".to_string()
        } else {
            format!(
                " {} · day {} · game time {:.1} s",
                a.game_id,
                a.day,
                m.game_ms as f64 / 1000.0
            )
        }),
    ];
    if m.paused {
        head.push(Span::styled(" · PAUSED", bold));
    }
    if let Some(at) = &ui.address {
        head.push(Span::raw(format!(" · serving {at}")));
    }
    if let Some(e) = &a.ended {
        head.push(Span::styled(format!(" · over: {e}"), bold));
    }
    Paragraph::new(Line::from(head)).render(title, buf);
    let side = if area.width >= 100 { 40 } else { 30 };
    let [left, right] =
        Layout::horizontal([Constraint::Length(side), Constraint::Min(20)]).areas(middle);
    let rows: Vec<Line> = a
        .seats
        .iter()
        .zip(&m.conn)
        .map(|(s, c)| {
            Line::raw(format!(
                "{} {} {} ({}{}) {c}",
                if s.alive { " " } else { "✝" },
                s.name,
                s.role.as_deref().unwrap_or("?"),
                s.player,
                if s.human { ", human" } else { "" }
            ))
        })
        .collect();
    Paragraph::new(rows)
        .wrap(Wrap { trim: false })
        .block(Block::default().borders(Borders::RIGHT).title("Seats"))
        .render(left, buf);
    let inner = Rect {
        x: right.x + 1,
        width: right.width.saturating_sub(1),
        ..right
    };
    let [inc, talk] =
        Layout::vertical([Constraint::Percentage(40), Constraint::Percentage(60)]).areas(inner);
    let tail = |title: &str, lines: &[String], r: Rect, buf: &mut Buffer| {
        Line::styled(title.to_string(), bold).render(Rect { height: 1, ..r }, buf);
        let para = Paragraph::new(
            lines
                .iter()
                .map(|l| Line::raw(l.clone()))
                .collect::<Vec<_>>(),
        )
        .wrap(Wrap { trim: false });
        let total = u16::try_from(para.line_count(r.width)).unwrap_or(u16::MAX);
        let body = r.height.saturating_sub(1);
        para.scroll((total.saturating_sub(body), 0)).render(
            Rect {
                y: r.y + 1,
                height: body,
                ..r
            },
            buf,
        );
    };
    tail("Incidents", &m.incidents, inc, buf);
    tail("Table", &a.lines, talk, buf);
    let w = match &m.pending {
        Some((who, what, _)) if m.paused => {
            format!("awaiting {who}: {what} · PAUSED: no deadline runs")
        }
        Some((who, what, Some(d))) => format!(
            "awaiting {who}: {what}, due at {:.1} s ({:+.1} s)",
            *d as f64 / 1000.0,
            (*d as f64 - m.game_ms as f64) / 1000.0
        ),
        Some((who, what, None)) => format!("awaiting {who}: {what}"),
        None => "no answer awaited".into(),
    };
    Paragraph::new(Line::styled(w, bold)).render(wait, buf);
    if a.seats.is_empty() && ui.message.is_none() {
        Paragraph::new(Line::raw("waiting for the game")).render(said, buf);
    }
    if let Some(t) = &ui.message {
        Paragraph::new(Line::raw(t.clone())).render(said, buf);
    }
    Paragraph::new(Line::from(vec![
        Span::styled("q quit", bold),
        Span::raw(" · p pause · r resume · n note · e eject · a readmit · x end (ruling)"),
    ]))
    .render(foot, buf);
    super::gm::render(ui, m, area, buf);
}
