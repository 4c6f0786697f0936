//! `arbiter serve`: the AI Werewolf game server, headless. Binds the address (loopback by
//! default), prints `listening on ws://HOST:PORT/ws` once bound, plays games of the profile as
//! seats connect, each `game-N` of the match folder, and exits 0 after the last (`--games N`).
use std::net::TcpListener;
use std::path::PathBuf;

use clap::Args;

use super::{KeyArgs, MatchArg, warn};
use crate::error::{Error, Exit};
use crate::table::serve::{ServeOptions, parse_profile, serve_with};
use crate::table::{Notice, TableError};

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub m: MatchArg,
    /// The werewolf rules profile: a file, or a bundled profile's name (`aiwolf-2025-5`).
    #[arg(long, value_name = "PROFILE")]
    pub rules: PathBuf,
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Games to play, then exit 0 (default: until interrupted).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub games: Option<u32>,
    /// The arbiter's control channel, one command a line (pause REASON | resume | note TEXT |
    /// eject SEAT REASON | readmit SEAT | end WINNER REASON): a FIFO or file, `-` for standard
    /// input.
    #[arg(long, value_name = "FIFO")]
    pub control: Option<PathBuf>,
    /// Plain lines on standard error even on a terminal (no game master's screen).
    #[arg(long)]
    pub plain: bool,
    #[command(flatten)]
    pub key: KeyArgs,
    /// Also publish the live record of the match, read-only, for the camps' witnesses at
    /// ws://ADDR/live (HOST:PORT; port 0 picks a free one), from this process: as `arbiter live`.
    #[arg(long, value_name = "ADDR")]
    pub record_listen: Option<String>,
}

/// The profile's text and the file name it came from (a file, else a bundled profile).
fn profile_text(path: &std::path::Path) -> Result<(String, String), Error> {
    match crate::record::fsio::read_to_string(path) {
        Ok(t) => Ok((
            t,
            path.file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("rules.toml")
                .to_string(),
        )),
        Err(e) => match crate::bundled::for_missing_path(path) {
            Some((file, text)) if e.kind() == std::io::ErrorKind::NotFound => {
                Ok((text.to_string(), file))
            }
            _ => Err(super::input_failure(&e, format!("{}: {e}", path.display()))),
        },
    }
}

fn say(n: &Notice) {
    errln!("{}", words(n));
}

/// A notice in words.
fn words(n: &Notice) -> String {
    match n {
        Notice::Waiting {
            name,
            waiting,
            need,
        } => format!("seat {name} waits ({waiting} of {need})"),
        Notice::Refused(r) => format!(
            "refused {} from {}: {}",
            r.name.as_deref().unwrap_or("a connection"),
            r.peer,
            r.reason
        ),
        Notice::GameOpened { game, seats } => {
            format!("game {game} opened: {}", seats.join(" "))
        }
        Notice::Restarted { game, resumed } => format!(
            "game {game} taken up from its log: {}",
            if *resumed {
                "resumed (seats reconnect by name)"
            } else {
                "ended (the profile's on_restart)"
            }
        ),
        Notice::Reconnected { name, seat } => {
            format!("seat {} ({name}) reconnected", seat + 1)
        }
        Notice::GameEnded { game, winner } => format!("game {game} ended: {winner}"),
        Notice::Signed { game, checkpoint } => {
            format!("game {game}: signed {}", checkpoint.display())
        }
        Notice::NotSigned { game, reason } => format!(
            "game {game}: recorded, its checkpoint not signed ({reason}); `arbiter checkpoint --match DIR --game {game}` signs it"
        ),
        Notice::ControlRefused(m) => format!("control refused: {m}"),
        Notice::CoreRefused(m) => format!("refused: {m}"),
        Notice::NoControlSocket(m) => {
            format!("the game master's screen cannot act on this table: {m}")
        }
    }
}

fn failure(e: TableError) -> Error {
    match e {
        TableError::Journal(j) => super::journal_failure(j),
        e @ (TableError::Profile(_) | TableError::Restart { .. }) => Error::bad_input(e),
        e @ TableError::Busy(_) => Error::unavailable(e),
        e @ TableError::Sign(_) => Error::write_failed(e),
        e @ (TableError::Io { .. } | TableError::Closed | TableError::Stuck(_)) => {
            Error::write_failed(e)
        }
    }
}

pub fn run(a: &ServeArgs) -> Result<Exit, Error> {
    let dir = &a.m.dir;
    let (text, file) = profile_text(&a.rules)?;
    let profile = parse_profile(&text).map_err(failure)?;
    let secret = if profile.auth.required {
        let var = &profile.auth.secret_env;
        match std::env::var(var) {
            Ok(v) if !v.is_empty() => Some(v.into_bytes()),
            _ => {
                return Err(Error::bad_input(format!(
                    "the profile requires seat tokens ([auth] required = true): set the token key in the environment variable {var}"
                )));
            }
        }
    } else {
        None
    };
    // The key's file and public half: decrypted only for each game's checkpoint.
    let (key, keyref) = crate::board::matchdir::signer_for(&a.key.source(), dir, None)
        .map_err(Error::cannot_read)?;
    // A match whose policy has the camps witness live is written only with a key that signs
    // without asking: refused before anything is written.
    let next = crate::record::layout::games(dir)
        .last()
        .map_or(1, |g| g.saturating_add(1));
    if let Some(every) = crate::record::witness::witness_interval(dir, next, None)
        && !key.at_hand()
    {
        return Err(Error::refused(
            crate::board::matchdir::MatchError::LiveWitnessKey {
                game: next,
                every,
                path: key.path().to_owned(),
                why: "the match policy",
            },
        ));
    }
    // The control socket before the address is said: once `listening on` is printed, the game
    // master's screen can act.
    let mut early = Vec::new();
    let _ = crate::record::journal::ensure_dir(dir);
    let socket = match crate::table::control::bind(dir) {
        Ok(s) => Some(s),
        Err(e @ crate::table::control::SocketError::Busy(_)) => {
            return Err(Error::unavailable(e));
        }
        Err(e) => {
            early.push(Notice::NoControlSocket(e.to_string()));
            None
        }
    };
    let listener = TcpListener::bind(&a.listen)
        .map_err(|e| Error::unavailable(format!("cannot listen on {}: {e}", a.listen)))?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::unavailable(format!("cannot listen on {}: {e}", a.listen)))?;
    outln!("listening on ws://{addr}/ws")?;
    use std::io::IsTerminal;
    let screen = !a.plain
        && std::io::stdout().is_terminal()
        && std::io::stdin().is_terminal()
        && a.control.as_deref() != Some(std::path::Path::new("-"));
    let mut witnesses = None;
    if let Some(at) = &a.record_listen {
        // Its witnesses come and go in plain lines; never over the game master's screen.
        // A witness's alarm goes to standard output; under the screen, to its message line.
        let say: crate::record::live::server::Say = std::sync::Arc::new(move |s: &str| {
            if screen {
                return;
            }
            if s.starts_with("ALARM") {
                let _ = outln!("live record: {s}");
            } else {
                errln!("live record: {s}");
            }
        });
        let (at, watch) = crate::record::live::server::start(at, dir.clone(), say)
            .map_err(|e| Error::unavailable(format!("cannot listen on {at}: {e}")))?;
        witnesses = Some(watch);
        outln!(
            "the live record on ws://{at}{} (read-only; camps connect with arbiter witness --connect)",
            crate::record::live::PATH
        )?;
    }
    let opts = ServeOptions {
        match_dir: dir.clone(),
        profile_text: text,
        profile_file: file,
        key,
        keyref,
        // Plain lines on a terminal: the passphrase is asked at each game's end; under the game
        // master's screen the terminal is the screen's, and `arbiter checkpoint` signs.
        ask: !screen
            && std::io::stdin().is_terminal()
            && a.control.as_deref() != Some(std::path::Path::new("-")),
        games: a.games,
        control: a.control.clone(),
        secret,
        measure: false,
    };
    if !screen {
        early.iter().for_each(say);
        serve_with(&opts, listener, socket, &mut |n| say(&n)).map_err(failure)?;
        return Ok(Exit::Ok);
    }
    // On a terminal: the game master's screen, the table served on a thread of its own; its
    // notices go to the screen's message line, and to standard error once the screen is left.
    let (ntx, nrx) = std::sync::mpsc::channel::<Notice>();
    // `--agent`: the agent that signs the checkpoints signs the screen's acts too.
    let agent = opts.key.agent().then(|| opts.key.clone());
    let table = std::thread::Builder::new()
        .name("table".into())
        .spawn(move || {
            for n in early {
                let _ = ntx.send(n);
            }
            serve_with(&opts, listener, socket, &mut |n| {
                let _ = ntx.send(n);
            })
        })
        .map_err(|e| Error::write_failed(format!("cannot start the table's thread: {e}")))?;
    let (authority, note) = super::play::authority(&a.key.source(), dir);
    let mut send =
        |game: Option<u32>, line: &str, approve: crate::board::display::werewolf::Approve| {
            super::play::act_on_table(dir, game, line, approve, agent.as_ref())
        };
    let mut stopped = false;
    // Each camp's latest alarm shown so far on the screen's message line.
    let mut alarms_shown = std::collections::BTreeMap::new();
    let mut notices = || {
        let mut out = Vec::new();
        if let Some(w) = &witnesses {
            for (camp, seen) in w.snapshot() {
                if let Some(alarm) = seen.alarm
                    && alarms_shown.get(&camp) != Some(&alarm)
                {
                    out.push(format!(
                        "{camp} {} (camp {camp}'s witness; the game goes on)",
                        alarm.shown(None)
                    ));
                    alarms_shown.insert(camp, alarm);
                }
            }
        }
        loop {
            match nrx.try_recv() {
                Ok(n) => out.push(words(&n)),
                Err(std::sync::mpsc::TryRecvError::Empty) => break,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    if !stopped {
                        stopped = true;
                        out.push("the server stopped: q leaves the screen".into());
                    }
                    break;
                }
            }
        }
        out
    };
    let acts = crate::board::display::werewolf::Acts {
        authority: &authority,
        send: &mut send,
        notices: Some(&mut notices),
        note: note.map(str::to_string),
        address: Some(format!("ws://{addr}/ws")),
    };
    let shown = crate::board::display::werewolf::run_master(dir, None, acts);
    if let Err(e) = &shown {
        warn(format!("the game master's screen: {e}"));
    }
    // The screen left: the table goes on with plain lines until its last game.
    for n in nrx.iter() {
        say(&n);
    }
    match table.join() {
        Ok(r) => r.map_err(failure)?,
        Err(_) => return Err(Error::write_failed("the table's thread stopped abnormally")),
    };
    Ok(Exit::Ok)
}
