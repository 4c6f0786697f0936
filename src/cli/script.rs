//! `arbiter script`: run a file of timestamped commands against a virtual clock.
use std::cell::RefCell;
use std::io::Write;
use std::path::PathBuf;
use std::rc::Rc;

use chrono::Utc;
use clap::Args;

use super::{KeyArgs, MatchArg, warn};
use crate::board::matchdir::{match_score_with, open_game_with};
use crate::board::session::{Session, SessionError, run_script_with, summary_text};
use crate::core::script::parse_script;
use crate::error::{Error, Exit};
use crate::log::{Entry, hex32};
use crate::record::layout;

#[derive(Debug, Clone, Args)]
pub struct ScriptArgs {
    /// The script file.
    pub file: PathBuf,
    #[command(flatten)]
    pub m: MatchArg,
    /// Game number (default: the next free one).
    #[arg(long, value_parser = super::game_number)]
    pub game: Option<u32>,
    /// Rules profile of the match's first game (default: the 2003 rules); later games keep the
    /// match's, and naming another is refused.
    #[arg(long)]
    pub rules: Option<PathBuf>,
    #[command(flatten)]
    pub key: KeyArgs,
    /// Run in memory only: write no log.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the final state as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print each entry as soon as it is durably appended (`appended <seq> <hash> <kind>`).
    #[arg(long)]
    pub echo: bool,
    /// Syzygy endgame tables: `arbiter tablebase-draw` (10a) is checked against them, and a won or
    /// lost position refused.
    #[arg(long, value_name = "DIR")]
    pub syzygy: Option<PathBuf>,
}

/// Print every entry as soon as it is durable (`--echo`, used by the crash test). The first
/// failed write to standard output is kept in `failed`: the script goes on (the log is the
/// record), and the run ends with exit 74 naming it.
fn echo(session: &mut Session, failed: Rc<RefCell<Option<std::io::Error>>>) {
    session.storage.set_on_append(Box::new(move |e: &Entry| {
        if failed.borrow().is_some() {
            return;
        }
        let mut out = std::io::stdout().lock();
        if let Err(x) = writeln!(out, "appended {} {} {}", e.seq, hex32(&e.hash), e.kind)
            .and_then(|()| out.flush())
        {
            *failed.borrow_mut() = Some(x);
        }
    }));
}

pub fn run(a: &ScriptArgs) -> Result<Exit, Error> {
    let file = a.file.display();
    let text = crate::record::fsio::read_to_string(&a.file)
        .map_err(|e| super::input_failure(&e, format!("{file}: {e}")))?;
    let lines = parse_script(&text).map_err(|e| Error::bad_input(clip(format!("{file}:{e}"))))?;
    let dir = &a.m.dir;
    let n = match a.game {
        Some(n) => n,
        None => match layout::games(dir).last() {
            Some(&last) if last >= layout::MAX_GAME => {
                return Err(Error::unavailable(format!(
                    "{} already has game {last}, the highest a match may hold",
                    dir.display()
                )));
            }
            Some(&last) => last + 1,
            None => 1,
        },
    };
    let echo_failed = Rc::new(RefCell::new(None));
    let mut session = if a.dry_run {
        // As `play --rules` and README: a profile that cannot be read (missing, a folder, a
        // FIFO) is 66; one that is malformed (not UTF-8 among them), 65. A rehearsal writes nothing: it
        // takes the profile named, else the match's own.
        let (profile, pref) = match a.rules.as_deref() {
            Some(p) => crate::board::session::load_profile(p).map_err(|e| {
                super::match_failure(crate::board::matchdir::MatchError::Profile(e))
            })?,
            None => crate::board::matchdir::new_game_profile(dir, n, None)
                .map_err(super::match_failure)?,
        };
        crate::board::session::memory_session_with(profile, pref, &layout::match_id(dir), n)
    } else {
        if layout::log_path(dir, n).exists() {
            // Not available (70): the game was opened first, before this run or while it started.
            let hint = if a.game.is_some() {
                "a script starts a new game: leave out --game (it takes the next one)"
            } else {
                "run the script again (it takes the next game)"
            };
            return Err(Error::unavailable(format!(
                "game {n} of {} already has a log: another board or script opened this game first; {hint}",
                dir.display()
            )));
        }
        let mut o = match open_game_with(dir, Some(n), a.rules.as_deref(), &a.key.source(), false) {
            Ok(o) => o,
            // Created between the check above and the open, and still being written by the board
            // or script that won: its lock, or its seal caught mid-append, refuses this open.
            Err(
                crate::board::matchdir::MatchError::Foreign { .. }
                | crate::board::matchdir::MatchError::Journal(
                    crate::record::journal::JournalError::Locked(_),
                ),
            ) => return Err(taken(dir, n)),
            Err(e) => return Err(super::match_failure(e)),
        };
        if !o.session.storage.is_empty() {
            // Created between the check above and the open: another board or script won.
            return Err(taken(dir, n));
        }
        if let Some(w) = crate::board::matchdir::unfinished_warning(dir, n) {
            warn(w);
        }
        if a.echo {
            echo(&mut o.session, echo_failed.clone());
        }
        o.session
    };
    session.syzygy = a.syzygy.clone();
    // The key is decrypted for each signature only (the match's policy when its first game
    // starts, the script's authorization and checkpoint at its end), its passphrase asked on
    // the terminal then unless a rehearsal gives it in the environment.
    session.storage.allow_prompt();
    // A key that signs with nothing typed (`--agent`, a rehearsal's `--passphrase-env`):
    // each act of the arbiter is authorized as it is recorded, so a script killed midway
    // leaves no act unauthorized; so too in a match whose policy has the camps witness live
    // (the open refused a key that cannot), so that each interval's checkpoint is cosigned as
    // it is signed, not held until the end. Otherwise the passphrase is asked once, at the end.
    let live = !a.dry_run
        && crate::record::witness::witness_interval(dir, n, Some(session.game.profile())).is_some();
    let per_act = !a.dry_run && (a.key.agent || a.key.passphrase_env.is_some() || live);
    let by = per_act.then(|| script_authority(&a.key.source(), dir));
    let result = run_script_with(&mut session, &lines, |s, l, before, now| {
        let Some(by) = &by else { return Ok(()) };
        let after = s.storage.len();
        if after <= before || l.command.role() != crate::core::command::Role::Arbiter {
            return Ok(());
        }
        let cmd = crate::core::command::Command::Authorize {
            by: by.clone(),
            words: format!("script {} line {}", a.file.display(), l.line),
            first: before as u64,
            last: after as u64 - 1,
        };
        s.execute(&cmd, now).map(|_| ())
    });
    if !a.dry_run && !session.storage.is_empty() && session.frozen.is_none() {
        // One passphrase for the end: the script's authorization and the closing checkpoint.
        let source = a.key.source();
        let armed = if source.passphrase_env.is_none()
            && crate::record::sign::encrypted_key(&source, dir).is_some()
        {
            crate::record::sign::ask_passphrase(
                "passphrase of the arbiter's key (the script's authorization and checkpoint): ",
            )
            .ok()
            .flatten()
        } else {
            None
        };
        let at = session.game.last_at();
        session.storage.arm(armed, at, session.utc_at(at));
    }
    if !a.dry_run {
        record_script_authority(&mut session, a, &text, lines.len());
    }
    if !a.dry_run && !session.storage.is_empty() && session.frozen.is_none() {
        // Closing the session: sign what was recorded, so nothing is left as an unsigned tail.
        if let Err(w) = session.storage.checkpoint_now(Utc::now()) {
            warn(format!("checkpoint not signed: {w}"));
        }
    }
    let at = session.game.last_at();
    session.storage.arm(None, at, session.utc_at(at));
    let now = match &result {
        Ok(t) => *t,
        Err(_) => session.game.last_at(),
    };
    if let Some(e) = echo_failed.borrow_mut().take() {
        return Err(super::stdout_failed(e));
    }
    if a.json {
        let v = session.game.view(now, usize::MAX);
        outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default())?;
    } else {
        out!(
            "{}",
            summary_text(&session.game, now, session.storage.len())
        )?;
        if !a.dry_run {
            let scores = match_score_with(dir, Some((n, &session.game)));
            for (name, pts) in &scores {
                outln!("match score: {name} {pts}")?;
            }
            if let Some(line) = session
                .game
                .profile()
                .match_rules
                .as_ref()
                .and_then(|r| r.decided_text(&scores))
            {
                outln!("{line}")?;
            }
        }
    }
    if let Some(w) = session.storage.status().warning {
        warn(w);
    }
    match result {
        Ok(_) => Ok(Exit::Ok),
        Err((line, e)) => {
            Err(match e {
                // Nothing of ours was written and the log exists now: another board or script
                // created it first (line 0 is written under a temporary name, then linked).
                SessionError::Storage(_)
                    if !a.dry_run
                        && session.storage.is_empty()
                        && layout::log_path(dir, n).exists() =>
                {
                    taken(dir, n)
                }
                e => super::session_failure(e, |e| format!("{file}:{line}: {e}").into()),
            })
        }
    }
}

/// 5b: the script acted with the arbiter's signing key (loaded, with its passphrase if encrypted,
/// before its first line ran): one `authorized` entry names the script, its SHA-256 and the key,
/// and covers every entry the script recorded.
fn record_script_authority(session: &mut Session, a: &ScriptArgs, text: &str, lines: usize) {
    let recorded = session.storage.len();
    if recorded == 0 || session.frozen.is_some() {
        return;
    }
    let dir = &a.m.dir;
    let by = script_authority(&a.key.source(), dir);
    let digest = crate::log::hex32(&<sha2::Sha256 as sha2::Digest>::digest(text.as_bytes()).into());
    let cmd = crate::core::command::Command::Authorize {
        by,
        words: format!(
            "script {} sha256 {digest} ({lines} lines)",
            a.file.display()
        ),
        first: 0,
        last: recorded as u64 - 1,
    };
    let now = session.game.last_at();
    if let Err(e) = session.execute(&cmd, now) {
        warn(format!("the script's authorization was not recorded: {e}"));
    }
}

/// Who authorizes a script's acts: the arbiter's key by fingerprint, and how it signs.
fn script_authority(source: &crate::record::sign::KeySource, dir: &std::path::Path) -> String {
    let key = crate::board::matchdir::signer_for(source, dir, None)
        .map(|(_, r)| r.fingerprint)
        .unwrap_or_else(|_| "?".into());
    let how = if source.agent {
        "the ssh-agent at SSH_AUTH_SOCK (--agent)"
    } else if source.passphrase_env.is_some() {
        "its passphrase from the environment (a rehearsal)"
    } else if crate::record::sign::encrypted_key(source, dir).is_some() {
        "its passphrase given at the end"
    } else {
        "an unencrypted key"
    };
    format!("script, with the arbiter's signing key {key} ({how})")
}

/// Exit 70: the game was created by another process while this script started.
fn taken(dir: &std::path::Path, n: u32) -> Error {
    Error::unavailable(format!(
        "game {n} of {}: another board or script opened this game first; this script wrote nothing (run it again: it takes the next game)",
        dir.display()
    ))
}

/// A message cut to a readable length (a script line of megabytes is quoted by its start).
fn clip(msg: String) -> String {
    const MAX: usize = 400;
    match msg.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}… ({} bytes in all)", &msg[..at], msg.len()),
        None => msg,
    }
}
