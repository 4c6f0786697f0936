//! `arbiter serve`'s run (SHELL): games of a werewolf table, one after another, each `game-N`
//! of the match folder. A game opens when the profile's number of seats have answered NAME
//! (self-match: the first N connections); its seed (32 bytes from the OS) is kept in
//! `game-N/seed` (0600) until `game_ended` reveals it; line 0 commits to it. After each game a
//! checkpoint and the match index are signed with the match's key, decrypted for that signature
//! and dropped (the run holds the key's file and public half, never the decrypted key; the
//! arbiter's acts from `--control` or the game master's screen are recorded, not signed: the
//! screen signs an act with the key its passphrase opened, and the table records it only if that
//! signature holds under the match's key, otherwise a failed authorization naming why). A game the log shows under
//! way (the server was killed) is replayed from its log and resumed or ended, as the profile
//! says, before any new game.
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use chrono::Utc;
use sha2::Digest;

use super::game::{GameRun, Seat, Turnaround};
use super::net::{DoorConfig, Joined, Msg};
use super::{Lobby, Notice, TableError};
use crate::core::event::KeyRef;
use crate::core::werewolf::{self as ww, Event, Input, Profile, SeatSpec, Seed};
use crate::log::{NewEntry, RECOVERY_KIND};
use crate::record::journal::{self, Journal};
use crate::record::layout;

/// How `serve` runs.
pub struct ServeOptions {
    pub match_dir: PathBuf,
    /// The profile's TOML and the file name it came from.
    pub profile_text: String,
    pub profile_file: String,
    /// The arbiter's key: its file and public half, decrypted only for each game's checkpoint.
    pub key: crate::record::sign::SessionKey,
    pub keyref: KeyRef,
    /// Ask the key's passphrase on the terminal at a game's end when it is not at hand (plain
    /// lines on a terminal); otherwise such a game's checkpoint is left to `arbiter checkpoint`.
    pub ask: bool,
    /// Games to play (`None`: until interrupted).
    pub games: Option<u32>,
    /// The arbiter's control channel (`-`: standard input).
    pub control: Option<PathBuf>,
    /// The token key, when the profile requires tokens (read from the variable it names).
    pub secret: Option<Vec<u8>>,
    /// Keep the answer-to-request times of each game (the bench).
    pub measure: bool,
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Served {
    /// Games played to their end (a resumed one included).
    pub games: u32,
    pub turnarounds: Vec<Turnaround>,
}

/// The seed file of game `n`.
pub fn seed_path(match_dir: &Path, n: u32) -> PathBuf {
    layout::game_dir(match_dir, n).join("seed")
}

/// Parse the profile as `serve` uses it.
pub fn parse_profile(text: &str) -> Result<Profile, TableError> {
    Profile::parse(text).map_err(|e| TableError::Profile(e.to_string()))
}

/// Serve games on `listener` until `opts.games` are played; the game master's screen reaches
/// the table through the match folder's control socket, opened here.
pub fn serve(
    opts: &ServeOptions,
    listener: TcpListener,
    notice: &mut dyn FnMut(Notice),
) -> Result<Served, TableError> {
    let socket = match super::control::bind(&opts.match_dir) {
        Ok(s) => Some(s),
        Err(e @ super::control::SocketError::Busy(_)) => {
            return Err(TableError::Busy(e.to_string()));
        }
        Err(e) => {
            notice(Notice::NoControlSocket(e.to_string()));
            None
        }
    };
    serve_with(opts, listener, socket, notice)
}

/// [`serve`] with the control socket already bound (`None`: none could be).
pub fn serve_with(
    opts: &ServeOptions,
    listener: TcpListener,
    socket: Option<super::control::ControlSocket>,
    notice: &mut dyn FnMut(Notice),
) -> Result<Served, TableError> {
    let profile = parse_profile(&opts.profile_text)?;
    let (tx, rx) = mpsc::channel();
    let cfg = DoorConfig {
        max_frame_bytes: usize::try_from(profile.table.max_frame_bytes).unwrap_or(usize::MAX),
        secret: opts.secret.clone(),
        name_timeout: Duration::from_millis(profile.timeouts.response_ms.max(1000)),
    };
    let door_tx = tx.clone();
    std::thread::Builder::new()
        .name("door".into())
        .spawn(move || super::net::run_door(listener, cfg, door_tx))
        .map_err(TableError::io(
            "start the listener thread for",
            &opts.match_dir,
        ))?;
    if let Some(c) = &opts.control {
        super::control::spawn_reader(c.clone(), tx.clone())
            .map_err(TableError::io("read the control channel", c))?;
    }
    // The game master's screen reaches the table through the match folder's control socket.
    let _socket = match socket.map(|s| s.answer(tx.clone())) {
        Some(Ok(g)) => Some(g),
        Some(Err(e)) => {
            notice(Notice::NoControlSocket(e.to_string()));
            None
        }
        None => None,
    };
    drop(tx);
    let mut lobby = Lobby::default();
    let mut served = Served::default();
    let dir = &opts.match_dir;
    complete_finished(opts, notice)?;
    let (next, unfinished) = next_game(dir)?;
    if let Some(n) = unfinished {
        let t = resume(opts, n, &rx, &mut lobby, notice)?;
        served.games += 1;
        served.turnarounds.extend(t);
    }
    let mut n = next;
    while opts.games.is_none_or(|g| served.games < g) {
        if n > layout::MAX_GAME {
            return Err(TableError::Profile(format!(
                "{} already holds game {}, the highest a match may hold",
                dir.display(),
                layout::MAX_GAME
            )));
        }
        let need = profile.table.seats as usize;
        let group = loop {
            if let Some(g) = lobby.take(need) {
                break g;
            }
            match rx.recv().map_err(|_| TableError::Closed)? {
                Msg::Joined(j) => {
                    let name = j.name.clone();
                    lobby.join(*j);
                    notice(Notice::Waiting {
                        name,
                        waiting: lobby.waiting.len(),
                        need,
                    });
                }
                Msg::Frame(f) => lobby.frame(f),
                Msg::Refused(r) => {
                    notice(Notice::Refused(r.clone()));
                    lobby.refused.push(r);
                }
                Msg::Control(line) => {
                    if !line.trim().is_empty() {
                        notice(Notice::ControlRefused(format!("{line:?}: {NO_GAME}")));
                    }
                }
                Msg::Act { request, reply } => {
                    let _ = reply.send(super::control::ActReply::refused(format!(
                        "{NO_GAME}: nothing recorded"
                    )));
                    notice(Notice::ControlRefused(format!(
                        "{:?} (game master's screen): {NO_GAME}",
                        request.line
                    )));
                }
            }
        };
        let t = play_new(opts, &profile, n, group, &rx, &mut lobby, notice)?;
        served.games += 1;
        served.turnarounds.extend(t);
        n += 1;
    }
    Ok(served)
}

/// Why an act between games is refused.
const NO_GAME: &str = "no game is under way (seats are still connecting)";

/// The number of the next new game, and the game the log shows under way, if any.
fn next_game(dir: &Path) -> Result<(u32, Option<u32>), TableError> {
    let Some(&last) = layout::games(dir).last() else {
        return Ok((1, None));
    };
    let log = layout::log_path(dir, last);
    if !log.exists() {
        // Killed between the seed and line 0: the game was never opened; its number is free.
        return Ok((last, None));
    }
    let t = journal::tally(&log)?;
    Ok(if t.finished() {
        (last + 1, None)
    } else {
        (last + 1, Some(last))
    })
}

/// A game whose log ends with `game_ended` but whose seed file is still there or whose entries
/// no signed checkpoint covers (the server was killed between the two): finished now.
fn complete_finished(
    opts: &ServeOptions,
    notice: &mut dyn FnMut(Notice),
) -> Result<(), TableError> {
    let dir = &opts.match_dir;
    let Some(&n) = layout::games(dir).last() else {
        return Ok(());
    };
    let log = layout::log_path(dir, n);
    if !log.exists() {
        return Ok(());
    }
    let t = journal::tally(&log)?;
    let signed = crate::record::witness::latest_signed_checkpoint(dir, n, opts.key.public())
        .is_some_and(|cp| cp.size >= t.len());
    if !t.finished() || (signed && !seed_path(dir, n).exists()) {
        return Ok(());
    }
    let journal = Journal::open(&log)?;
    let winner = match t.result() {
        crate::log::index::IndexResult::Villager => ww::Winner::Villager,
        crate::log::index::IndexResult::Werewolf => ww::Winner::Werewolf,
        _ => ww::Winner::None,
    };
    finish(opts, n, &journal, winner, notice)
}

/// The match id: line 0's of the match's first game, else the folder's name.
pub fn match_id(dir: &Path) -> String {
    layout::games(dir)
        .into_iter()
        .find_map(|n| {
            let e = journal::first_entry(&layout::log_path(dir, n)).ok()?;
            Some(e.body.get("match_id")?.as_str()?.to_string())
        })
        .unwrap_or_else(|| layout::match_id(dir))
}

/// The game id the seats are told (`info.game_id`).
fn game_id(match_id: &str, n: u32) -> String {
    format!("{match_id}-{n}")
}

/// 32 bytes from the operating system's generator.
fn fresh_seed() -> Result<Seed, TableError> {
    use rand_core::RngCore as _;
    let mut b = [0u8; 32];
    rand_core::OsRng
        .try_fill_bytes(&mut b)
        .map_err(|e| TableError::Io {
            op: "draw a seed from",
            path: PathBuf::from("the operating system's random generator"),
            source: std::io::Error::other(e.to_string()),
        })?;
    Ok(Seed(b))
}

/// Line 0 of a werewolf game: the core's table part, and the match, the game, the profile
/// (name, file, digest, text) and the arbiter's key, as for a board game; the connections
/// refused at the door since the last game.
fn line0(
    opts: &ServeOptions,
    profile: &Profile,
    n: u32,
    game_id: &str,
    seats: &[SeatSpec],
    seed: &Seed,
    door: serde_json::Value,
) -> NewEntry {
    let table = ww::line0_body(profile, game_id, seats, &seed.commitment());
    let mut body = serde_json::json!({ "table": table });
    let sha = hex::encode(sha2::Sha256::digest(opts.profile_text.as_bytes()));
    if let Some(o) = body.as_object_mut() {
        o.insert("match_id".into(), match_id(&opts.match_dir).into());
        o.insert("game".into(), n.into());
        o.insert(
            "profile".into(),
            serde_json::json!({
                "name": profile.profile.name,
                "file": opts.profile_file,
                "sha256": sha,
                "toml": opts.profile_text,
            }),
        );
        o.insert(
            "arbiter_key".into(),
            serde_json::to_value(&opts.keyref).unwrap_or_default(),
        );
        o.insert("kit_version".into(), env!("CARGO_PKG_VERSION").into());
        // A table declares no camps (verify reads every line 0's declarations).
        o.insert("declarations".into(), serde_json::json!({}));
        o.insert("door".into(), door);
    }
    NewEntry {
        mono_ms: 0,
        utc: Utc::now(),
        actor: "kit".into(),
        clause: "table".into(),
        kind: "game_opened".into(),
        body,
    }
}

/// What line 0 says of the door: the seats' addresses, the connections refused since the last
/// game (why, and how long before the game opened), and the frames seats sent while they waited
/// for the game (no request awaited them; the game had not begun).
fn door(
    peers: &[String],
    refused: &[super::net::DoorRefusal],
    early: &[super::Early],
) -> serde_json::Value {
    use super::net::FrameKind;
    let now = std::time::Instant::now();
    let before = |at: std::time::Instant| now.saturating_duration_since(at).as_millis() as u64;
    let more = early_more(early);
    let early: Vec<serde_json::Value> = early
        .iter()
        .enumerate()
        .flat_map(|(seat, e)| {
            e.frames.iter().map(move |f| {
                let (kind, text, len) = match &f.kind {
                    FrameKind::Text(t) => ("text", Some(t.clone()), t.len()),
                    FrameKind::Binary(n) => ("binary", None, *n),
                    FrameKind::Oversize(n) => ("oversize", None, *n),
                    FrameKind::Closed => ("closed", None, 0),
                };
                serde_json::json!({
                    "seat": seat,
                    "frame": kind,
                    "text": text,
                    "len": len,
                    "ms_before_open": before(f.at),
                })
            })
        })
        .collect();
    let refused: Vec<serde_json::Value> = refused
        .iter()
        .map(|r| {
            serde_json::json!({
                "name": r.name,
                "peer": r.peer,
                "reason": r.reason,
                "ms_before_open": before(r.at),
            })
        })
        .collect();
    serde_json::json!({
        "peers": peers,
        "refused": refused,
        "early_frames": early,
        "early_frames_not_kept": more,
    })
}

/// `{seat, count}` of the seats that sent more frames while waiting than line 0 keeps.
fn early_more(early: &[super::Early]) -> Vec<serde_json::Value> {
    early
        .iter()
        .enumerate()
        .filter(|(_, e)| e.more > 0)
        .map(|(seat, e)| serde_json::json!({ "seat": seat, "count": e.more }))
        .collect()
}

/// Open game `n` with the seats of `group` and play it to its end.
fn play_new(
    opts: &ServeOptions,
    profile: &Profile,
    n: u32,
    mut group: Vec<(Joined, super::Early)>,
    rx: &Receiver<Msg>,
    lobby: &mut Lobby,
    notice: &mut dyn FnMut(Notice),
) -> Result<Vec<Turnaround>, TableError> {
    let dir = &opts.match_dir;
    let seed = fresh_seed()?;
    let gdir = layout::game_dir(dir, n);
    journal::ensure_dir(&gdir).map_err(TableError::io("create", &gdir))?;
    let sp = seed_path(dir, n);
    // A seed left by a start killed before line 0 committed to anything.
    let _ = std::fs::remove_file(&sp);
    journal::write_new_file(&sp, format!("{}\n", hex::encode(seed.0)).as_bytes())
        .map_err(TableError::io("write", &sp))?;
    let specs: Vec<SeatSpec> = group
        .iter()
        .map(|(j, _)| SeatSpec {
            name: j.name.clone(),
            team: j.team.clone(),
            human: j.human,
        })
        .collect();
    let peers: Vec<String> = group.iter().map(|(j, _)| j.peer.clone()).collect();
    let early: Vec<super::Early> = group.iter_mut().map(|(_, e)| std::mem::take(e)).collect();
    let gid = game_id(&match_id(dir), n);
    let refused = std::mem::take(&mut lobby.refused);
    let first = line0(
        opts,
        profile,
        n,
        &gid,
        &specs,
        &seed,
        door(&peers, &refused, &early),
    );
    let journal = Journal::create(&layout::log_path(dir, n), first)?;
    let table = ww::Table::new(profile, &gid, &seed, specs.clone());
    notice(Notice::GameOpened {
        game: n,
        seats: specs.iter().map(|s| s.name.clone()).collect(),
    });
    let seats: Vec<Seat> = group
        .into_iter()
        .zip(specs)
        .map(|((j, _), spec)| Seat {
            spec,
            conn: Some(j.conn),
            writer: Some(j.writer),
        })
        .collect();
    let mut run = GameRun::new(table, journal, seats, 0, rx, lobby, notice);
    run.game = n;
    run.approver = Some(super::game::Approver {
        key: opts.key.public().clone(),
        origin: crate::log::checkpoint::origin(&match_id(dir), n),
        seen: Default::default(),
    });
    if opts.measure {
        run.turnarounds = Some(Vec::new());
    }
    let at_ms = run.ms_at(std::time::Instant::now());
    run.feed(Input::Begin { at_ms }, None)?;
    let winner = run.play()?;
    let turnarounds = run.turnarounds.take().unwrap_or_default();
    let GameRun {
        journal, notice, ..
    } = run;
    finish(opts, n, &journal, winner, notice)?;
    Ok(turnarounds)
}

/// After the last entry: the seed (now in the log) is removed, a checkpoint and the match
/// index are signed with the key decrypted for this signature (dropped, wiped, once signed).
/// An encrypted key whose passphrase is neither in the environment (a rehearsal) nor asked
/// (`ask`) signs nothing here: the game is recorded, and the notice says to run
/// `arbiter checkpoint`.
fn finish(
    opts: &ServeOptions,
    n: u32,
    journal: &Journal,
    winner: ww::Winner,
    notice: &mut dyn FnMut(Notice),
) -> Result<(), TableError> {
    let dir = &opts.match_dir;
    notice(Notice::GameEnded {
        game: n,
        winner: winner.name().to_string(),
    });
    let sp = seed_path(dir, n);
    match std::fs::remove_file(&sp) {
        Ok(()) => {
            let gdir = layout::game_dir(dir, n);
            journal::sync_dir(&gdir).map_err(TableError::io("fsync", &gdir))?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(TableError::io("remove", &sp)(e)),
    }
    if !opts.ask && !opts.key.at_hand() {
        notice(Notice::NotSigned {
            game: n,
            reason: crate::record::sign::SignError::NeedsPassphrase(opts.key.path().to_owned())
                .to_string(),
        });
        return Ok(());
    }
    let cp = opts.key.sign_with(None, opts.ask, |key| {
        crate::record::witness::sign_and_index_tally(dir, n, journal.tally(), key, Utc::now())
    })??;
    notice(Notice::Signed {
        game: n,
        checkpoint: cp,
    });
    Ok(())
}

/// Game `n`'s log ends without `game_ended`: replay it, record the restart, and resume it
/// (seats reconnect by name) or end it, as the profile embedded in its line 0 says.
fn resume(
    opts: &ServeOptions,
    n: u32,
    rx: &Receiver<Msg>,
    lobby: &mut Lobby,
    notice: &mut dyn FnMut(Notice),
) -> Result<Vec<Turnaround>, TableError> {
    let dir = &opts.match_dir;
    let path = layout::log_path(dir, n);
    let bad = |problem: String| TableError::Restart { game: n, problem };
    // Opening repairs a torn tail (a side file and a `recovery` entry).
    let journal = Journal::open(&path)?;
    if let Some(d) = journal.damage() {
        return Err(bad(format!("the log is damaged: {d}")));
    }
    let mut first = None;
    let mut events = Vec::new();
    let mut decode_error = None;
    // The signed approvals the game recorded: each is used once.
    let mut seen = std::collections::HashMap::new();
    journal::for_each_entry(&path, |e| {
        if let Some(sig) = (e.kind == "approved")
            .then(|| e.body.pointer("/approval/sig")?.as_str())
            .flatten()
        {
            seen.insert(sig.to_string(), e.seq);
        }
        if e.seq == 0 {
            first = Some(e);
        } else if e.kind != RECOVERY_KIND {
            match Event::from_entry(&e.kind, &e.body) {
                Ok(ev) => events.push(ev),
                Err(err) => {
                    decode_error = Some(format!("entry {} ({}): {err}", e.seq, e.kind));
                    return false;
                }
            }
        }
        true
    })?;
    if let Some(e) = decode_error {
        return Err(bad(e));
    }
    let first = first.ok_or_else(|| bad("the log has no line 0".into()))?;
    let body = &first.body;
    let toml = body
        .pointer("/profile/toml")
        .and_then(|t| t.as_str())
        .ok_or_else(|| bad("line 0 holds no profile".into()))?;
    let profile = parse_profile(toml)?;
    let gid = body
        .pointer("/table/game_id")
        .or_else(|| body.get("game_id"))
        .and_then(|g| g.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| game_id(&match_id(dir), n));
    let specs = seats_of(body).ok_or_else(|| bad("line 0 names no seats".into()))?;
    let line0_match_id = body
        .get("match_id")
        .and_then(|m| m.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| match_id(dir));
    let sp = seed_path(dir, n);
    let text = crate::record::fsio::read_to_string(&sp)
        .map_err(|e| bad(format!("its seed {} cannot be read: {e}", sp.display())))?;
    let bytes = hex::decode(text.trim())
        .ok()
        .and_then(|b| <[u8; 32]>::try_from(b).ok())
        .ok_or_else(|| bad(format!("{} is not 64 hex digits", sp.display())))?;
    let seed = Seed(bytes);
    let committed = body
        .pointer("/table/seed_sha256")
        .and_then(|c| c.as_str())
        .unwrap_or_default();
    if seed.commitment() != committed {
        return Err(bad(format!(
            "the seed in {} is not the one line 0 commits to ({committed})",
            sp.display()
        )));
    }
    let table = ww::replay(&profile, &gid, specs.clone(), &seed, &events)
        .map_err(|m| bad(format!("replaying its log: {m}")))?;
    let last_ms = journal.last().map_or(0, |e| e.mono_ms);
    let seats = specs
        .into_iter()
        .map(|spec| Seat {
            spec,
            conn: None,
            writer: None,
        })
        .collect();
    let on_restart = profile.table.on_restart;
    let mut run = GameRun::new(table, journal, seats, last_ms, rx, lobby, notice);
    run.game = n;
    run.approver = Some(super::game::Approver {
        key: opts.key.public().clone(),
        origin: crate::log::checkpoint::origin(&line0_match_id, n),
        seen,
    });
    if opts.measure {
        run.turnarounds = Some(Vec::new());
    }
    run.feed(
        Input::Restarted {
            at_ms: last_ms,
            on_restart,
        },
        None,
    )?;
    let resumed = ww::finished(&run.table).is_none();
    (run.notice)(Notice::Restarted { game: n, resumed });
    let winner = run.play()?;
    let turnarounds = run.turnarounds.take().unwrap_or_default();
    let GameRun {
        journal, notice, ..
    } = run;
    finish(opts, n, &journal, winner, notice)?;
    Ok(turnarounds)
}

/// The seats line 0 records (`table.seats`: name, team, human).
fn seats_of(body: &serde_json::Value) -> Option<Vec<SeatSpec>> {
    body.pointer("/table/seats")?
        .as_array()?
        .iter()
        .map(|s| {
            Some(SeatSpec {
                name: s.get("name")?.as_str()?.to_string(),
                team: s.get("team")?.as_str()?.to_string(),
                human: s.get("human").and_then(|h| h.as_bool()).unwrap_or(false),
            })
        })
        .collect()
}
