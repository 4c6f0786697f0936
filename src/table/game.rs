//! The ONE game loop of a werewolf table (SHELL): input → the core's `decide` → every event
//! appended to the game log (one write, one fdatasync) → `evolve` → only then the `Sent` frames
//! go out. A `Tick` is fed when the core's `deadline()` passes: the loop waits on its channel
//! exactly until then, never a fixed sleep.
use std::collections::{HashMap, VecDeque};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use chrono::Utc;

use super::net::{FrameKind, Joined, Msg, SeatWriter};
use super::{Lobby, Notice, TableError};
use crate::core::werewolf::{self as ww, Approval, Event, Input, SeatSpec, Table};
use crate::log::NewEntry;
use crate::record::journal::Journal;

/// A seat of the game under way and its connection, if it has one.
#[derive(Debug)]
pub struct Seat {
    pub spec: SeatSpec,
    pub conn: Option<u64>,
    pub writer: Option<SeatWriter>,
}

/// When a frame went out, for the bench's answer-to-request figure.
#[derive(Debug, Clone, Copy)]
pub struct Turnaround {
    /// When the reader got the answer the decision was about.
    pub received: Instant,
    /// When the first frame of the decision was written to its socket.
    pub sent: Instant,
    /// How long the decision's one write + fdatasync took (in the turnaround).
    pub sync: Duration,
}

/// What an approval signed at the game master's screen is checked against as it arrives: the
/// match's arbiter key, the game's origin (`arbiter-kit/<match-id>/game-<n>`), and the
/// signatures of the approvals the game already recorded (each is used once).
#[derive(Debug, Clone)]
pub struct Approver {
    pub key: ssh_key::PublicKey,
    pub origin: String,
    /// Signature → the `approved` entry that carries it.
    pub seen: HashMap<String, u64>,
}

/// How long a signed approval is good for after it was signed (the screen signs the act as it
/// sends it, on this machine's clock).
pub const APPROVAL_GOOD_FOR: Duration = Duration::from_secs(300);
/// How far ahead of the table's clock an approval's signing time may be.
const APPROVAL_AHEAD: Duration = Duration::from_secs(60);

/// A game under way: the core's table, its log, its seats, its clock.
pub struct GameRun<'a> {
    /// The game's number in the match folder (set by whoever opens the game).
    pub game: u32,
    pub table: Table,
    pub journal: Journal,
    pub seats: Vec<Seat>,
    /// The game's clock: `at_ms` = `base_ms` + the time since `t0`.
    t0: Instant,
    base_ms: u64,
    rx: &'a Receiver<Msg>,
    pub lobby: &'a mut Lobby,
    pub(super) notice: &'a mut dyn FnMut(Notice),
    /// Inputs the loop itself found (a send that failed is the seat's connection closing).
    pending: VecDeque<Input>,
    /// Answer-to-request times, when asked for (the bench).
    pub turnarounds: Option<Vec<Turnaround>>,
    /// The highest `mono_ms` written (entries never go back in time).
    last_ms: u64,
    /// The key a signed approval must hold under (none: every signed approval is refused).
    pub approver: Option<Approver>,
}

impl<'a> GameRun<'a> {
    /// A game whose clock reads `base_ms` now.
    pub fn new(
        table: Table,
        journal: Journal,
        seats: Vec<Seat>,
        base_ms: u64,
        rx: &'a Receiver<Msg>,
        lobby: &'a mut Lobby,
        notice: &'a mut dyn FnMut(Notice),
    ) -> GameRun<'a> {
        GameRun {
            game: 0,
            table,
            journal,
            seats,
            t0: Instant::now(),
            base_ms,
            rx,
            lobby,
            notice,
            pending: VecDeque::new(),
            turnarounds: None,
            last_ms: base_ms,
            approver: None,
        }
    }

    /// The game's clock at `at`.
    pub fn ms_at(&self, at: Instant) -> u64 {
        self.base_ms + at.saturating_duration_since(self.t0).as_millis() as u64
    }

    fn now_ms(&self) -> u64 {
        self.ms_at(Instant::now())
    }

    fn instant_of(&self, ms: u64) -> Instant {
        self.t0 + Duration::from_millis(ms.saturating_sub(self.base_ms))
    }

    /// Play until the core says the game is finished; returns its winner.
    pub fn play(&mut self) -> Result<ww::Winner, TableError> {
        loop {
            if let Some(w) = ww::finished(&self.table) {
                self.close_all();
                return Ok(w);
            }
            if let Some(input) = self.pending.pop_front() {
                self.feed(input, None)?;
                continue;
            }
            let msg = match ww::deadline(&self.table) {
                Some(d) => {
                    let due = self.instant_of(d);
                    let now = Instant::now();
                    if now >= due {
                        let at_ms = self.ms_at(now).max(d);
                        self.tick(at_ms)?;
                        continue;
                    }
                    match self.rx.recv_timeout(due - now) {
                        Ok(m) => m,
                        Err(RecvTimeoutError::Timeout) => {
                            let at_ms = self.now_ms().max(d);
                            self.tick(at_ms)?;
                            continue;
                        }
                        Err(RecvTimeoutError::Disconnected) => return Err(TableError::Closed),
                    }
                }
                None => self.rx.recv().map_err(|_| TableError::Closed)?,
            };
            self.on_msg(msg)?;
        }
    }

    /// The tick at the core's own deadline; the rules refusing it would leave the loop ticking
    /// for ever, so that stops the table.
    fn tick(&mut self, at_ms: u64) -> Result<(), TableError> {
        match ww::decide(&self.table, &Input::Tick { at_ms }) {
            Err(r) => Err(TableError::Stuck(r.to_string())),
            Ok(_) => self.feed(Input::Tick { at_ms }, None).map(|_| ()),
        }
    }

    fn seat_of(&self, conn: u64) -> Option<usize> {
        self.seats.iter().position(|s| s.conn == Some(conn))
    }

    fn input_of(&mut self, seat: usize, kind: FrameKind, at_ms: u64) -> Input {
        match kind {
            FrameKind::Text(text) => Input::Frame { seat, text, at_ms },
            FrameKind::Binary(len) => Input::Binary {
                seat,
                len: len as u64,
                at_ms,
            },
            FrameKind::Oversize(len) => Input::Oversize {
                seat,
                len: len as u64,
                at_ms,
            },
            FrameKind::Closed => {
                if let Some(s) = self.seats.get_mut(seat) {
                    s.conn = None;
                    s.writer = None;
                }
                Input::Closed { seat, at_ms }
            }
        }
    }

    /// One message from the channel.
    pub fn on_msg(&mut self, msg: Msg) -> Result<(), TableError> {
        match msg {
            Msg::Frame(f) => match self.seat_of(f.conn) {
                Some(seat) => {
                    let at_ms = self.ms_at(f.at);
                    let received = f.at;
                    let input = self.input_of(seat, f.kind, at_ms);
                    self.feed(input, Some(received))?;
                }
                // A connection waiting for the next game, or one this game no longer uses.
                None => self.lobby.frame(f),
            },
            Msg::Joined(j) => self.joined(*j)?,
            Msg::Refused(r) => {
                (self.notice)(Notice::Refused(r.clone()));
                self.lobby.refused.push(r);
            }
            Msg::Control(line) => self.control(&line)?,
            Msg::Act { request, reply } => {
                let answer = match request.game {
                    Some(g) if g != self.game => super::control::ActReply::refused(format!(
                        "game {g} is not the game under way (game {}): nothing recorded",
                        self.game
                    )),
                    _ => match (&request.failed, self.approval_refused(&request)) {
                        (Some(why), _) => self.failed(&request.line, why)?,
                        (None, Some(why)) => self.forged(&request.line, &why)?,
                        (None, None) => self.act(
                            &request.line,
                            request.approval.clone().unwrap_or(Approval::Owner {
                                channel: "control.sock".into(),
                            }),
                        )?,
                    },
                };
                if !answer.recorded {
                    (self.notice)(Notice::ControlRefused(format!(
                        "{:?} (game master's screen): {}",
                        request.line, answer.text
                    )));
                }
                // The screen may have gone meanwhile: the log holds the act all the same.
                let _ = reply.send(answer);
            }
        }
        Ok(())
    }

    /// A connection that answered NAME during the game: a seat of this game without a
    /// connection takes it back (reconnected by name); anyone else waits for the next game.
    fn joined(&mut self, j: Joined) -> Result<(), TableError> {
        let free = self
            .seats
            .iter()
            .position(|s| s.conn.is_none() && s.spec.name == j.name);
        match free {
            Some(seat) => {
                let at_ms = self.ms_at(j.at);
                (self.notice)(Notice::Reconnected {
                    name: j.name.clone(),
                    seat,
                });
                if let Some(s) = self.seats.get_mut(seat) {
                    s.conn = Some(j.conn);
                    s.writer = Some(j.writer);
                }
                if !self.feed(Input::Reconnected { seat, at_ms }, None)?
                    && let Some(s) = self.seats.get_mut(seat)
                {
                    // The rules take no reconnection here (said by the refusal's notice).
                    s.conn = None;
                    if let Some(mut w) = s.writer.take() {
                        w.close();
                    }
                }
                Ok(())
            }
            None => {
                self.lobby.join(j);
                Ok(())
            }
        }
    }

    /// An arbiter's control line (`--control`): a refusal is said.
    fn control(&mut self, line: &str) -> Result<(), TableError> {
        let answer = self.act(
            line,
            Approval::Owner {
                channel: "--control".into(),
            },
        )?;
        if !answer.recorded && !answer.text.is_empty() {
            (self.notice)(Notice::ControlRefused(format!("{line:?}: {}", answer.text)));
        }
        Ok(())
    }

    /// An arbiter's act as a control line: recorded (its entries durable) or refused, in words.
    /// A blank line or a comment is neither (an empty answer).
    fn act(
        &mut self,
        line: &str,
        approval: Approval,
    ) -> Result<super::control::ActReply, TableError> {
        use super::control::ActReply;
        let cmd = match super::control::parse(line) {
            Ok(Some(c)) => c,
            Ok(None) => return Ok(ActReply::refused("")),
            Err(e) => return Ok(ActReply::refused(format!("{e}: nothing recorded"))),
        };
        let act = match super::act_of(&cmd, &self.seats) {
            Ok(a) => a,
            Err(e) => return Ok(ActReply::refused(format!("{e}: nothing recorded"))),
        };
        let at_ms = self.now_ms();
        let first = self.journal.len();
        let sig = match &approval {
            Approval::Passphrase { sig, .. } | Approval::Agent { sig, .. } => Some(sig.clone()),
            _ => None,
        };
        let input = Input::Approved {
            act,
            command: line.trim().to_string(),
            approval,
            at_ms,
        };
        match self.record(input, None)? {
            Ok(kinds) => Ok({
                if let (Some(sig), Some(a)) = (sig, self.approver.as_mut()) {
                    a.seen.insert(sig, first);
                }
                ActReply {
                    recorded: true,
                    text: format!(
                        "recorded in game {}'s log as #{}{}: {}",
                        self.game,
                        first,
                        match self.journal.len().saturating_sub(1) {
                            last if last > first => format!("–#{last}"),
                            _ => String::new(),
                        },
                        in_words(&kinds)
                    ),
                }
            }),
            Err(refusal) => Ok(ActReply::refused(format!(
                "the rules refuse it ({refusal}): nothing recorded"
            ))),
        }
    }

    /// Why an act's signed approval does not hold under the match's arbiter key (none: it
    /// holds, or the act is not signed).
    fn approval_refused(&self, request: &super::control::ActRequest) -> Option<String> {
        let (Some(Approval::Passphrase {
            key,
            signed_at,
            sig,
        })
        | Some(Approval::Agent {
            key,
            signed_at,
            sig,
        })) = &request.approval
        else {
            return None;
        };
        let Some(a) = &self.approver else {
            return Some(format!(
                "signed approval by {key} refused: the table has no arbiter key to check it against"
            ));
        };
        let command = request.line.trim();
        if let Err(why) =
            crate::record::verify::approval_holds(&a.key, &a.origin, command, key, signed_at, sig)
        {
            return Some(format!("signed approval refused: it {why}"));
        }
        if let Some(n) = a.seen.get(sig) {
            return Some(format!(
                "signed approval refused: its signature is the one entry #{n} already carries (an approval is used once)"
            ));
        }
        let Ok(at) = chrono::DateTime::parse_from_rfc3339(signed_at) else {
            return Some(format!(
                "signed approval refused: its signing time {signed_at:?} is not an RFC 3339 time"
            ));
        };
        let age = Utc::now().signed_duration_since(at.with_timezone(&Utc));
        let good = chrono::Duration::from_std(APPROVAL_GOOD_FOR).unwrap_or_default();
        let ahead = chrono::Duration::from_std(APPROVAL_AHEAD).unwrap_or_default();
        if age > good || -age > ahead {
            return Some(format!(
                "signed approval refused: it was signed at {signed_at}, {} s {} the table received it (an approval is good for {} s after it is signed)",
                age.num_seconds().abs(),
                if age > good { "before" } else { "after" },
                APPROVAL_GOOD_FOR.as_secs()
            ));
        }
        None
    }

    /// An act whose signed approval does not hold: recorded as a failed authorization (the
    /// reason named), the act not; the answer is a refusal that says so.
    fn forged(&mut self, line: &str, why: &str) -> Result<super::control::ActReply, TableError> {
        let r = self.failed(line, why)?;
        Ok(super::control::ActReply::refused(if r.recorded {
            format!(
                "{why}: the act is not recorded; the refusal is, in game {}'s log as #{}",
                self.game,
                self.journal.len().saturating_sub(1)
            )
        } else {
            format!("{why}: nothing recorded ({})", r.text)
        }))
    }

    /// A wrong passphrase typed at the game master's screen for the act `line`: recorded.
    fn failed(&mut self, line: &str, why: &str) -> Result<super::control::ActReply, TableError> {
        use super::control::ActReply;
        let at_ms = self.now_ms();
        let first = self.journal.len();
        let input = Input::AuthorizationFailed {
            command: line.trim().to_string(),
            why: why.to_string(),
            at_ms,
        };
        Ok(match self.record(input, None)? {
            Ok(_) => ActReply {
                recorded: true,
                text: format!(
                    "the failed passphrase is recorded in game {}'s log as #{first}; the act is not",
                    self.game
                ),
            },
            Err(refusal) => {
                ActReply::refused(format!("the failed passphrase is not recorded ({refusal})"))
            }
        })
    }

    /// The core decides on `input`; every event is made durable, then applied, then its
    /// frames sent. A refusal changes nothing and is said. Whether the input was taken.
    pub fn feed(&mut self, input: Input, received: Option<Instant>) -> Result<bool, TableError> {
        match self.record(input, received)? {
            Ok(_) => Ok(true),
            Err(refusal) => {
                (self.notice)(Notice::CoreRefused(refusal.to_string()));
                Ok(false)
            }
        }
    }

    /// [`GameRun::feed`] without saying a refusal: the kinds of the entries recorded, or the
    /// core's refusal (nothing changed).
    fn record(
        &mut self,
        input: Input,
        received: Option<Instant>,
    ) -> Result<Result<Vec<&'static str>, crate::core::Refusal>, TableError> {
        let events = match ww::decide(&self.table, &input) {
            Ok(e) => e,
            Err(refusal) => return Ok(Err(refusal)),
        };
        let at = input.at_ms();
        // Entries never go back in time: two readers' stamps may cross on their way here.
        self.last_ms = self.last_ms.max(at);
        let mono_ms = self.last_ms;
        let utc = Utc::now();
        let entries: Vec<NewEntry> = events
            .iter()
            .map(|e| NewEntry {
                mono_ms,
                utc,
                actor: e.actor().to_string(),
                clause: e.section().to_string(),
                kind: e.kind().to_string(),
                body: e.body(),
            })
            .collect();
        let synced = Instant::now();
        self.journal.append_all(entries)?;
        let sync = synced.elapsed();
        for e in &events {
            ww::evolve(&mut self.table, e);
        }
        let mut first_sent = None;
        for e in &events {
            if let Event::Sent { seat, frame, .. } = e {
                let seat = *seat;
                let sent = match self.seats.get_mut(seat).and_then(|s| s.writer.as_mut()) {
                    Some(w) => w.send(frame).is_ok(),
                    // No connection: the core knows (it was told of the close).
                    None => continue,
                };
                first_sent.get_or_insert_with(Instant::now);
                if !sent && let Some(s) = self.seats.get_mut(seat) {
                    s.conn = None;
                    s.writer = None;
                    let at_ms = self.now_ms();
                    self.pending.push_back(Input::Closed { seat, at_ms });
                }
            }
        }
        if let (Some(t), Some(received), Some(sent)) =
            (self.turnarounds.as_mut(), received, first_sent)
        {
            t.push(Turnaround {
                received,
                sent,
                sync,
            });
        }
        Ok(Ok(events.iter().map(|e| e.kind()).collect()))
    }

    /// Close every seat's connection (after FINISH, as the official server does).
    pub fn close_all(&mut self) {
        for s in &mut self.seats {
            if let Some(mut w) = s.writer.take() {
                w.close();
            }
            s.conn = None;
        }
    }

    /// Connections currently attached to seats, by connection id.
    pub fn conns(&self) -> HashMap<u64, usize> {
        self.seats
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.conn.map(|c| (c, i)))
            .collect()
    }
}

/// Entry kinds in order, runs of one kind counted: `ruled, sent ×5, game_ended`.
fn in_words(kinds: &[&str]) -> String {
    let mut runs: Vec<(&str, usize)> = Vec::new();
    for k in kinds {
        match runs.last_mut() {
            Some((last, n)) if last == k => *n += 1,
            _ => runs.push((k, 1)),
        }
    }
    runs.iter()
        .map(|(k, n)| match n {
            1 => k.to_string(),
            n => format!("{k} ×{n}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}
