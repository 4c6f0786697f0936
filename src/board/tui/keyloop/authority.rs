//! The record of the arbiter's authority at the board (5b): how entries were authorized, a
//! failed authorization, one left pending; and the passphrase checked while keys go on being
//! read.
use std::time::Instant;

use crossterm::event::{self, Event as TermEvent};

use super::Board;
use crate::board::tui::{Message, MsgKind, UiState, keys, on_recorded};
use crate::core::Ms;
use crate::core::command::Command;

impl Board<'_, '_, '_> {
    /// 5b: record how the entries `before..after` of an arbiter-only command were authorized
    /// (`by` none: no gate, nothing recorded).
    pub(super) fn authorize(
        &mut self,
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
        if let Ok(events) = self.session.execute(&auth, now) {
            on_recorded(&mut self.ui, &events);
            self.remember(&events);
        }
    }

    /// Log that an authorization failed: `why`, about `words`. Returns the failure's number in
    /// the log, if it was recorded.
    fn log_failure(&mut self, words: &str, why: &str, now: Ms) -> Option<usize> {
        let logged = self.session.execute(
            &Command::AuthorizationFailed {
                words: words.to_string(),
                why: why.to_string(),
            },
            now,
        );
        let seq = match &logged {
            Ok(events) if !events.is_empty() => {
                on_recorded(&mut self.ui, events);
                self.remember(events);
                Some(self.session.storage.len() - 1)
            }
            _ => None,
        };
        self.ui.submitted = None;
        seq
    }

    /// 5b: an authorization that failed (wrong or empty passphrase, withdrawn, or not given in
    /// time) is logged; entries already `recorded` at the key stand unauthorized, and the
    /// arbiter rules on their time.
    pub(super) fn unauthorized(
        &mut self,
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
        let seq = self.log_failure(words, &why, now);
        let logged = seq.map_or_else(String::new, |n| {
            format!(" · the failed authorization is logged as #{n}")
        });
        self.ui.message = Some(Message::new(
            MsgKind::Refused,
            match recorded {
                Some(_) => format!("not authorized (rule 5b): {why} ('{words}'){logged}"),
                None => format!(
                    "refused (rule 5b): {why}: only the arbiter may '{words}'; nothing recorded{logged}"
                ),
            },
        ));
    }

    /// 5b: the passphrase for entries recorded at the key was not given (Esc, or not in time):
    /// the entries stand as recorded, their authorization pending; it is logged, and the board
    /// keeps it for `:arbiter authorize`, which asks the passphrase again and records the
    /// authorization.
    pub(super) fn left_pending(
        &mut self,
        words: &str,
        why: &str,
        (first, last_seq): (u64, u64),
        now: Ms,
    ) {
        let why = format!(
            "{why}: entries #{first}–#{last_seq}, recorded at the key, stand; their authorization is pending (:arbiter authorize gives it)"
        );
        let seq = self.log_failure(words, &why, now);
        self.ui
            .pending_authorizations
            .push(keys::PendingAuthorization {
                words: words.to_string(),
                first,
                last: last_seq,
            });
        let logged = seq.map_or_else(String::new, |n| format!(" · logged as #{n}"));
        self.ui.message = Some(Message::new(
            MsgKind::Refused,
            format!("authorization pending (rule 5b): {why} ('{words}'){logged}"),
        ));
    }
}

/// The command's words as typed, or its name for a one-key command.
pub(super) fn words_of(ui: &UiState, cmd: &Command) -> String {
    match &ui.submitted {
        Some((_, text)) => text.clone(),
        None => {
            let debug = format!("{cmd:?}");
            let name = debug.split([' ', '{', '(']).next().unwrap_or_default();
            format!("key: {name}")
        }
    }
}

/// Run `check` (a passphrase against the key's KDF) while another thread goes on reading the
/// terminal, so that no key waits for the check: each is returned with the instant it came, to
/// be handled in order at that time (a press acts at the instant of the key).
pub(super) fn check_reading_keys<T: Send>(
    check: impl FnOnce() -> T,
) -> (T, Vec<(Instant, TermEvent)>) {
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
