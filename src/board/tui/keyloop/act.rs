//! What a key does, by mode and dialog: the key itself is read by [`on_key`] (pure); here its
//! action is carried out at the key's time — quit, an older log page, a command (through the
//! arbiter's authority when it needs it), a passphrase given at the prompt.
use std::time::Instant;

use crossterm::event::KeyEvent;

use super::authority::{check_reading_keys, words_of};
use super::{Board, Flow, ms_at};
use crate::board::tui::{
    Action, Authority, Message, MsgKind, keys, needs_authority, on_key, read_older,
};
use crate::core::Ms;
use crate::core::command::Command;

/// How an arbiter-only command recorded through an unencrypted key is authorized (5b).
const UNENCRYPTED: &str = "unencrypted-key (anyone at this keyboard)";
const AGENT: &str = "ssh-agent (the agent's own confirmation or the hardware key's touch)";

/// A command to record and how the arbiter authorized it (`None`: it needs no authority).
type Authorized = (Command, Option<&'static str>);

impl Board<'_, '_, '_> {
    /// Carry out `key`, which came at `at`; `alarm` is the log's alarm the status reported.
    pub(super) fn on_key(&mut self, key: KeyEvent, at: Instant, alarm: Option<String>) -> Flow {
        // Time first: a flag that fell before the key is recorded before the key acts.
        let now = ms_at(self.origin, self.offset_ms, at);
        self.catch_up(now);
        if alarm.is_some() && self.ui.frozen.is_none() {
            self.ui.frozen = alarm;
        }
        let (cmd, by) = match on_key(&mut self.ui, key, &self.session.game) {
            Action::None => return Flow::Next,
            Action::Quit => {
                // The kit stops now: a last beat, so that a restart measures its gap from this
                // moment rather than from up to a beat interval earlier.
                if self.session.game.clock().running().is_some() {
                    let _ = self.session.storage.heartbeat(now, chrono::Utc::now());
                }
                return Flow::Quit;
            }
            Action::ReadLog { first, count } => {
                read_older(&mut self.ui, first, count);
                return Flow::Next;
            }
            Action::Execute(cmd) if needs_authority(&cmd, &self.session.game) => {
                match self.gate(cmd, now) {
                    Some(authorized) => authorized,
                    None => return Flow::Next,
                }
            }
            Action::Execute(cmd) => (cmd, None),
            Action::Authorized {
                cmd,
                words,
                passphrase,
                recorded,
            } => match self.passphrase(cmd, words, passphrase, recorded, now) {
                Some(authorized) => authorized,
                None => return Flow::Next,
            },
        };
        let words = words_of(&self.ui, &cmd);
        let before = self.session.storage.len();
        self.record(&cmd, now);
        // 5b: how the arbiter's entries were authorized, right after them.
        let after = self.session.storage.len();
        self.authorize((by, words), (before, after), now);
        // The act is recorded: the key opened for it is dropped (no-op when none was).
        self.arm(None);
        Flow::Next
    }

    /// Hand the key opened for the act being recorded to the storage (`None` drops it), at the
    /// game time now.
    fn arm(&mut self, key: Option<crate::record::sign::ActKey>) {
        let live = crate::board::tui::now_ms(self.origin, self.offset_ms);
        let utc = self.session.utc_at(live);
        self.session.storage.arm_key(key, live, utc);
    }

    /// An arbiter-only command at this keyboard: recorded at once where the key asks nothing;
    /// with a passphrase, recorded now and authorized afterwards when its time is the key's,
    /// else asked for first. Returns the command to record now, if any.
    fn gate(&mut self, cmd: Command, now: Ms) -> Option<Authorized> {
        match self.authority {
            Authority::Open => Some((cmd, None)),
            Authority::UnencryptedKey => Some((cmd, Some(UNENCRYPTED))),
            Authority::Agent => Some((cmd, Some(AGENT))),
            Authority::Passphrase(_)
                if keys::timed_at_key(&cmd) && !self.session.storage.needs_key_first() =>
            {
                // Its effect on a clock depends on when it happens: recorded now, at the key's
                // time; the passphrase authorizes it afterwards (README: "A stop is timed at
                // the key").
                let words = words_of(&self.ui, &cmd);
                let before = self.session.storage.len();
                self.record(&cmd, now);
                let after = self.session.storage.len();
                if after > before {
                    keys::ask_authorization_after(
                        &mut self.ui,
                        cmd,
                        words,
                        (before as u64, after as u64 - 1),
                    );
                    self.timers.asked_at = Some(Instant::now());
                }
                None
            }
            Authority::Passphrase(_) => {
                let words = words_of(&self.ui, &cmd);
                keys::ask_authorization(&mut self.ui, cmd, words);
                None
            }
        }
    }

    /// The passphrase prompt answered (Enter, or Esc: `passphrase` none) for `cmd`, or for the
    /// entries already `recorded` at the key. Returns the command to record now, if any.
    fn passphrase(
        &mut self,
        cmd: Command,
        words: String,
        passphrase: Option<String>,
        recorded: Option<(u64, u64)>,
        now: Ms,
    ) -> Option<Authorized> {
        let mono_ms = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX);
        if passphrase.is_some() && self.backoff.wait_left(mono_ms).is_some() {
            // Too soon after a failure: not checked, the prompt stays open.
            match recorded {
                Some(r) => keys::ask_authorization_after(&mut self.ui, cmd, words, r),
                None => keys::ask_authorization(&mut self.ui, cmd, words),
            }
            self.ui.message = Some(Message::new(
                MsgKind::Refused,
                format!("passphrase not checked: {}", self.backoff.say(mono_ms)),
            ));
            return None;
        }
        self.timers.asked_at = None;
        let mut opened = None;
        let ok = match (self.authority, &passphrase) {
            (_, None) => false,
            (Authority::Passphrase(check), Some(p)) => {
                // The KDF takes a noticeable part of a second: the keys pressed meanwhile (a
                // clock press above all) keep the instant they came. The check opens the key
                // for this act: what the act records is signed with it, then it is dropped.
                let (key, held) = check_reading_keys(|| check(p));
                self.queued.extend(held);
                opened = key;
                opened.is_some()
            }
            (Authority::Open | Authority::UnencryptedKey | Authority::Agent, Some(_)) => true,
        };
        if ok {
            self.backoff.succeed();
        }
        match (ok, recorded) {
            (true, Some((first, last_seq))) => {
                let later = matches!(cmd, Command::Authorize { .. });
                self.arm(opened.take());
                self.authorize(
                    (Some("passphrase"), words.clone()),
                    (first as usize, last_seq as usize + 1),
                    now,
                );
                self.arm(None);
                if later {
                    // Given on the board after it was left pending.
                    let more = match self.ui.pending_authorizations.len() {
                        0 => String::new(),
                        n => format!(" · {n} more pending: :arbiter authorize"),
                    };
                    self.ui.message = Some(Message::new(
                        MsgKind::Done,
                        format!(
                            "authorized (rule 5b): entries #{first}–#{last_seq} ('{words}'){more}"
                        ),
                    ));
                }
                None
            }
            (true, None) => {
                self.arm(opened.take());
                Some((cmd, Some("passphrase")))
            }
            (false, _) => {
                self.not_given(cmd, words, passphrase.as_deref(), recorded, now);
                None
            }
        }
    }

    /// The passphrase was not given: withdrawn (Esc), empty, or wrong.
    fn not_given(
        &mut self,
        cmd: Command,
        words: String,
        passphrase: Option<&str>,
        recorded: Option<(u64, u64)>,
        now: Ms,
    ) {
        match (passphrase, recorded) {
            // Esc on entries recorded at the key: they stand, their authorization left
            // pending; `:arbiter authorize` gives it later.
            (None, Some(r)) => self.left_pending(&words, "withdrawn (Esc)", r, now),
            (None, None) => {}
            // Enter on an empty prompt: nothing checked, the prompt stays.
            (Some(""), _) => {
                keys::reopen_authorization(&mut self.ui, cmd, words, recorded);
                self.ui.message = Some(Message::new(
                    MsgKind::Info,
                    "type the arbiter's passphrase, then Enter (Esc leaves the prompt)",
                ));
            }
            // A wrong passphrase is logged; the prompt stays open (its wait doubling), so that
            // a passphrase typed again never reaches the board as keys.
            (Some(_), _) => {
                self.unauthorized(&words, "wrong passphrase", recorded, now);
                let t = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX);
                self.backoff.fail(t);
                keys::reopen_authorization(&mut self.ui, cmd, words, recorded);
                if let Some(m) = self.ui.message.as_mut() {
                    m.text = format!(
                        "{} · {} · the prompt stays open (Esc leaves it)",
                        m.text,
                        self.backoff.say(t)
                    );
                }
            }
        }
    }
}
