//! `arbiter play`: the board-side terminal UI.
use std::path::{Path, PathBuf};

use chrono::Utc;
use clap::Args;

use super::{DEFAULT_MATCH_DIR, KeyArgs, MatchArg, warn};
use crate::board::session::SessionError;
use crate::board::tui::{self, PlaySetup};
use crate::error::{Error, Exit};

#[derive(Debug, Clone, Args)]
pub struct PlayArgs {
    #[command(flatten)]
    pub m: MatchArg,
    /// Game number (default: the unfinished game, else a new one).
    #[arg(long, value_parser = super::game_number)]
    pub game: Option<u32>,
    /// Rules profile of the match's first game (default: the 2003 rules); later games keep the
    /// match's, and naming another is refused.
    #[arg(long)]
    pub rules: Option<PathBuf>,
    #[command(flatten)]
    pub key: KeyArgs,
    /// Pre-game declarations for a new game (a script file whose lines are `arbiter declare ...`).
    #[arg(long, value_name = "FILE")]
    pub declarations: Option<PathBuf>,
    /// Syzygy endgame tables: `arbiter tablebase-draw` (10a) is checked against them, and a won or
    /// lost position refused.
    #[arg(long, value_name = "DIR")]
    pub syzygy: Option<PathBuf>,
    /// The key that presses the human's clock (his own button or pedal mapped to a key): F2..F4,
    /// F10..F24, Insert, Delete, Pause, ScrollLock or Menu (never a key typed into a field).
    #[arg(long, value_name = "KEY", default_value = "F12")]
    pub human_key: String,
    /// The key the operator presses the machine's clock with (the same choice of keys).
    #[arg(long, value_name = "KEY", default_value = "F4")]
    pub machine_key: String,
    /// Publish the live record of the match from the board itself at ws://ADDR/live (HOST:PORT,
    /// port 0 picks a free one), read-only, for the camps' witnesses (`arbiter witness
    /// --connect`, `display --connect`, `relay --connect`); the header shows each camp's witness.
    /// Give the address of the network the camps' machines are on (loopback only reaches this
    /// machine).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
}

pub fn run(a: &PlayArgs) -> Result<Exit, Error> {
    // A terminal an earlier run left raw on the alternate screen (kill -9) is put back first.
    let recovered = tui::terminal::recover();
    // No terminal: say so before anything is opened or written (and print no escape sequence).
    tui::terminal::require().map_err(Error::bad_input)?;
    // A werewolf match (a werewolf game in the folder, or a table served from it): the game
    // master's screen, whose acts go to the table `serve` runs.
    let latest = a
        .game
        .or_else(|| crate::record::layout::games(&a.m.dir).last().copied());
    let served = std::fs::symlink_metadata(crate::record::layout::control_socket(&a.m.dir))
        .is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_socket(&m.file_type()));
    if served || latest.is_some_and(|n| crate::after::report_io::is_werewolf_game(&a.m.dir, n)) {
        let (authority, note) = authority(&a.key.source(), &a.m.dir);
        let dir = a.m.dir.clone();
        let agent = agent_for_acts(&a.key.source(), &dir)?;
        let mut send =
            |game: Option<u32>, line: &str, approve: crate::board::display::werewolf::Approve| {
                act_on_table(&dir, game, line, approve, agent.as_ref())
            };
        let acts = crate::board::display::werewolf::Acts {
            authority: &authority,
            send: &mut send,
            notices: None,
            note: note.map(str::to_string),
            address: None,
        };
        return match crate::board::display::werewolf::run_master(&a.m.dir, a.game, acts) {
            Ok(()) => Ok(Exit::Ok),
            Err(e) => Err(Error::write_failed(format!("terminal: {e}"))),
        };
    }
    let press_keys = tui::keys::PressKeys {
        human: tui::keys::parse_press_key(&a.human_key)
            .map_err(|e| Error::bad_input(format!("--human-key: {e}")))?,
        machine: tui::keys::parse_press_key(&a.machine_key)
            .map_err(|e| Error::bad_input(format!("--machine-key: {e}")))?,
    };
    if press_keys.human == press_keys.machine {
        return Err(Error::bad_input(
            "--human-key and --machine-key name the same key: each side presses its own",
        ));
    }
    let key = a.key.source();
    let (mut session, origin, offset, mut ui) = tui::open_session(&PlaySetup {
        match_dir: &a.m.dir,
        game: a.game,
        rules: a.rules.as_deref(),
        key: &key,
        declarations: a.declarations.as_deref(),
        demo: a.m.dir == Path::new(DEFAULT_MATCH_DIR),
    })
    .map_err(open_failure)?;
    session.syzygy = a.syzygy.clone();
    ui.press_keys = press_keys;
    if recovered {
        ui.prepend_note("the terminal was left raw by an earlier run (killed?): restored");
    }
    let match_dir = a.m.dir.clone();
    let game = session.game.ctx().game;
    let mut hand_over = |s: &mut crate::board::session::Session,
                         copies: &[String],
                         program: Option<&str>,
                         side: Option<crate::core::Side>| {
        let copies: Vec<PathBuf> = copies.iter().map(PathBuf::from).collect();
        crate::after::postgame::hand_over(
            s,
            &crate::after::postgame::HandedFiles {
                match_dir: &match_dir,
                game,
                copies: &copies,
                program: program.map(Path::new),
                delivered: None,
                side,
            },
            tui::now_ms(origin, offset),
        )
        .map_err(|e| e.to_string())
    };
    let (authority, note) = authority(&key, &a.m.dir);
    if let Some(n) = note {
        ui.prepend_note(n);
    }
    // The live record, served from a thread of this process; each camp's witness on the
    // screen. A witness lost is an alarm on the screen, never a stop.
    let mut live = match &a.listen {
        Some(addr) => {
            let (at, watch) = crate::record::live::server::start(
                addr,
                a.m.dir.clone(),
                std::sync::Arc::new(|_: &str| {}),
            )
            .map_err(crate::error::FileError::of("listen on", Path::new(addr)))
            .map_err(Error::unavailable)?;
            ui.prepend_note(&format!(
                "the live record is served at ws://{at}{} (read-only; camps connect with arbiter witness --connect)",
                crate::record::live::PATH
            ));
            Some((watch, Vec::new()))
        }
        None => None,
    };
    let log = crate::record::layout::log_path(&a.m.dir, game);
    let mut status = |s: &crate::board::session::Session| {
        let mut st = tui::journal_status(s);
        if let Some((watch, declared)) = &mut live {
            // The camps line 0 declares (written when the game starts).
            if declared.is_empty()
                && let Ok(first) = crate::record::journal::first_entry(&log)
            {
                *declared = crate::record::witness::declared_camps(&first)
                    .into_iter()
                    .map(|(c, _)| c)
                    .collect();
            }
            st.witnesses = witnesses_shown(watch, declared, &st, game);
        }
        st
    };
    let result = tui::run(
        &mut session,
        origin,
        offset,
        &mut status,
        &mut hand_over,
        &authority,
        ui,
    );
    if session.frozen.is_none() && !session.storage.is_empty() {
        // Closing the board: sign everything recorded, the key's passphrase asked once more on
        // the terminal (the board kept none); an empty one leaves it to `arbiter checkpoint`.
        let armed = if key.passphrase_env.is_none()
            && crate::record::sign::encrypted_key(&key, &a.m.dir).is_some()
        {
            crate::record::sign::ask_passphrase(
                "passphrase of the arbiter's key to sign the checkpoint at close (Enter alone: arbiter checkpoint signs it later): ",
            )
            .ok()
            .flatten()
            .filter(|p| !p.is_empty())
        } else {
            None
        };
        let at = session.game.last_at();
        session.storage.arm(armed, at, session.utc_at(at));
        if let Err(w) = session.storage.checkpoint_now(Utc::now()) {
            warn(format!("checkpoint not signed: {w}"));
        }
        session.storage.arm(None, at, session.utc_at(at));
    }
    match result {
        Ok(()) => match &session.frozen {
            // Nothing of ours was written and the log exists now: another board or script
            // created it first (not available, 70, as for a script).
            Some(m)
                if session.storage.is_empty()
                    && crate::record::layout::log_path(&match_dir, game).exists() =>
            {
                Err(Error::unavailable(format!(
                    "game {game} of {}: another board or script opened this game first; nothing was written ({m}); open the game again",
                    match_dir.display()
                )))
            }
            Some(m) => Err(super::session_failure(
                SessionError::Storage(m.clone()),
                |s| s.into(),
            )),
            None => Ok(Exit::Ok),
        },
        Err(e) => Err(Error::write_failed(format!("terminal: {e}"))),
    }
}

/// Each camp's live witness for the screen: the camps line 0 declares and any other that
/// connected, with how far each cosigned this game (its cosignature files count too).
pub fn witnesses_shown(
    watch: &crate::record::live::server::Witnesses,
    declared: &[String],
    st: &tui::Status,
    game: u32,
) -> Vec<tui::WitnessShown> {
    let seen = watch.snapshot();
    let mut camps: Vec<String> = declared.to_vec();
    camps.extend(seen.keys().filter(|c| !declared.contains(c)).cloned());
    camps
        .into_iter()
        .map(|camp| {
            let live = seen.get(&camp);
            let on_file = st
                .countersigned
                .iter()
                .find(|(c, _)| *c == camp)
                .map(|(_, n)| *n);
            let by_socket = live.and_then(|w| w.cosigned.get(&game).copied());
            tui::WitnessShown {
                alarm: live
                    .and_then(|w| w.alarm.as_ref())
                    // Short enough to leave the other camps on the line.
                    .map(|a| crate::record::live::alarm_field(&a.shown(Some(game)), 80)),
                connected: live.is_some_and(|w| w.connected > 0),
                seen: live.is_some(),
                cosigned: on_file.max(by_socket),
                camp,
            }
        })
        .collect()
}

/// The kind of failure opening the board is: see [`super::match_failure`].
fn open_failure(e: tui::OpenError) -> Error {
    use tui::OpenError as O;
    match e {
        O::Match(m) => super::match_failure(m),
        e @ O::Declarations { .. } => Error::cannot_read(e),
        e @ O::Parse(_) => Error::bad_input(e),
        // A declaration the rules refuse: as `script` and `archive` report a refusal.
        O::Refused(r) => super::session_failure(r.into(), |s| s.into()),
    }
}

/// Only the arbiter decides (5b): his signing key's passphrase authorizes each arbiter-only
/// command or act at this keyboard; an unencrypted key can only be recorded as such (said by the
/// note). The one place the board and the game master's screen open the arbiter's key.
pub(super) fn authority(
    key: &crate::record::sign::KeySource,
    dir: &Path,
) -> (tui::Authority<'static>, Option<&'static str>) {
    // `--agent`: the agent (its confirmation, a hardware key's touch) is the gate; no key file
    // is decrypted here to check a passphrase.
    match (!key.agent)
        .then(|| crate::record::sign::encrypted_key(key, dir))
        .flatten()
        .and_then(|_| crate::board::matchdir::signer_for(key, dir, None).ok())
    {
        // The passphrase opens the key for the act it authorizes (one key derivation).
        Some((k, _)) => (
            tui::Authority::Passphrase(Box::new(move |p: &str| {
                (!p.is_empty()).then(|| k.open_for_act(p).ok()).flatten()
            })),
            None,
        ),
        None if key.agent => (
            tui::Authority::Agent,
            Some(
                "the arbiter's key is in ssh-agent: arbiter-only commands are not asked for a passphrase here; the agent's confirmation is the gate",
            ),
        ),
        None => (
            tui::Authority::UnencryptedKey,
            Some(
                "the arbiter's key is not encrypted: arbiter-only commands are not asked for a passphrase and are logged as authorized by an unencrypted key",
            ),
        ),
    }
}

/// `--agent` at the game master's screen: the ssh-agent that signs its acts (checked now: an
/// agent that is gone or does not hold the match's key is said before the screen opens).
pub(super) fn agent_for_acts(
    key: &crate::record::sign::KeySource,
    dir: &Path,
) -> Result<Option<crate::record::sign::SessionKey>, Error> {
    if !key.agent {
        return Ok(None);
    }
    crate::board::matchdir::signer_for(key, dir, None)
        .map(|(k, _)| Some(k))
        .map_err(Error::refused)
}

/// Hand an act from the game master's screen to the table served from `dir` with how it was
/// approved (the key the passphrase opened signs it, or the ssh-agent `agent` does), or a
/// failed passphrase to record: the table's answer.
pub(super) fn act_on_table(
    dir: &Path,
    game: Option<u32>,
    line: &str,
    approve: crate::board::display::werewolf::Approve,
    agent: Option<&crate::record::sign::SessionKey>,
) -> crate::board::display::werewolf::ActOutcome {
    use crate::board::display::werewolf::{ActOutcome, Approve};
    use crate::core::werewolf::{Approval, act_authorization_text};
    let refused = |text: String| ActOutcome {
        recorded: false,
        text,
    };
    let mut request = crate::table::control::ActRequest {
        game,
        line: line.to_string(),
        approval: None,
        failed: None,
    };
    match approve {
        Approve::Open => {}
        Approve::UnencryptedKey => request.approval = Some(Approval::UnencryptedKey),
        Approve::Failed(why) => request.failed = Some(why),
        Approve::Agent => {
            let Some(agent) = agent else {
                return refused("no ssh-agent to sign the act (--agent): nothing sent".into());
            };
            let Some(n) = game.or_else(|| crate::record::layout::games(dir).last().copied()) else {
                return refused("no game to sign the act for: nothing sent".into());
            };
            let origin = crate::log::checkpoint::origin(&crate::table::serve::match_id(dir), n);
            let signed_at = Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            let text = act_authorization_text(&origin, line.trim(), &signed_at);
            let signed = agent
                .sign_with(None, false, |k| {
                    crate::record::sign::sign_authorization(k, &text).map_err(|e| e.to_string())
                })
                .map_err(|e| e.to_string())
                .and_then(|r| r);
            match signed {
                Ok(sig) => {
                    request.approval = Some(Approval::Agent {
                        key: crate::record::sign::fingerprint(agent.public()),
                        signed_at,
                        sig,
                    })
                }
                Err(e) => {
                    return refused(format!(
                        "the act could not be signed through the ssh-agent ({e}): nothing sent"
                    ));
                }
            }
        }
        Approve::Key(key) => {
            let Some(n) = game.or_else(|| crate::record::layout::games(dir).last().copied()) else {
                return refused("no game to sign the act for: nothing sent".into());
            };
            let origin = crate::log::checkpoint::origin(&crate::table::serve::match_id(dir), n);
            let signed_at = Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            let text = act_authorization_text(&origin, line.trim(), &signed_at);
            match key.sign_text(&text) {
                Ok(sig) => {
                    request.approval = Some(Approval::Passphrase {
                        key: key.fingerprint(),
                        signed_at,
                        sig,
                    })
                }
                Err(e) => {
                    return refused(format!("the act could not be signed ({e}): nothing sent"));
                }
            }
        }
    }
    match crate::table::control::send_request(dir, &request) {
        Ok(r) => ActOutcome {
            recorded: r.recorded,
            text: r.text,
        },
        Err(e) => refused(e.to_string()),
    }
}
