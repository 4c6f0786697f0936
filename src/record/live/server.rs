//! `arbiter live`: the live record, read-only, beside the board (SHELL). A WebSocket server at
//! `GET /live` over a std `TcpListener` (tungstenite, synchronous, one thread per witness). Each
//! connection follows the match folder: every entry of every game in order, sent only once the
//! file holds it durably (the server fdatasyncs what it read before sending it), and every
//! signed checkpoint note after the entries it covers. From a witness it takes only its hello,
//! its camp's cosignatures, each checked against the camp key line 0 declares (with its
//! proof of possession) and the match policy, and stored as `checkpoints/<N>.txt.cosig-<camp>`
//! (0600, never over another), and its camp's alarms, kept in memory (each camp's latest, for
//! the board and the terminal) and said, never written. It writes nothing else in the match
//! folder. The match policy (`policy.txt` and its signature) goes to each witness before any
//! entry.
use std::collections::BTreeMap;
use std::io::{self, Read, Seek, SeekFrom};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Message, WebSocket};

use super::{
    FromWitness, MAX_ALARM_SUMMARY, MAX_ALARM_TEXT, MAX_FRAME, PATH, PROTOCOL, ToWitness,
    alarm_field_problem,
};
use crate::record::layout;

/// Most alarms kept per camp to say each once.
const MAX_ALARMS_KEPT: usize = 4096;
/// How long a connection waits for a witness's frame before it looks at the folder again.
const LOOK_EVERY: Duration = Duration::from_millis(50);
/// Most bytes of one log read and sent per look (a long log goes out over several looks).
const READ_BLOCK: u64 = 4 << 20;

/// What the server reports (to the terminal it runs in).
pub type Say = Arc<dyn Fn(&str) + Send + Sync>;

/// Serve the live record of `match_dir` on `listener` until the process ends.
pub fn serve(listener: TcpListener, match_dir: PathBuf, say: Say) {
    serve_watched(listener, match_dir, say, Arc::new(Witnesses::default()));
}

/// [`serve`], keeping each camp's witnesses in `watch` (what the board shows).
pub fn serve_watched(listener: TcpListener, match_dir: PathBuf, say: Say, watch: Arc<Witnesses>) {
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let (dir, say, watch) = (match_dir.clone(), Arc::clone(&say), Arc::clone(&watch));
        std::thread::spawn(move || connection(stream, &dir, &say, &watch));
    }
}

/// Serve the live record of `match_dir` on `addr` from a thread of this process (the board's,
/// or the table server's): the address it listens on, and each camp's witnesses as they come
/// and go.
pub fn start(
    addr: &str,
    match_dir: PathBuf,
    say: Say,
) -> io::Result<(std::net::SocketAddr, Arc<Witnesses>)> {
    let listener = bind(addr)?;
    let at = listener.local_addr()?;
    let watch = Arc::new(Witnesses::default());
    let w = Arc::clone(&watch);
    std::thread::Builder::new()
        .name("live record".into())
        .spawn(move || serve_watched(listener, match_dir, say, w))?;
    Ok((at, watch))
}

/// One camp's witnesses as the live record sees them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CampWitness {
    /// Connections that said hello as this camp, open now.
    pub connected: usize,
    /// Each game's largest checkpoint this camp cosigned over the socket.
    pub cosigned: BTreeMap<u32, u64>,
    /// The latest alarm this camp's witness raised (shown to the arbiter; recorded nowhere).
    pub alarm: Option<LiveAlarm>,
    /// Alarms received so far: one sent again after a reconnection is not said again.
    pub alarms: std::collections::BTreeSet<LiveAlarm>,
}

/// An alarm a camp's witness sent, as the live record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LiveAlarm {
    pub game: u32,
    /// The entry, or the checkpoint size, it is about.
    pub seq: Option<u64>,
    pub kind: super::AlarmKind,
    /// Its short form, for a status line.
    pub summary: String,
    /// The alarm line as the camp sees it.
    pub text: String,
}

impl LiveAlarm {
    /// `ALARM #45: summary` (`game 2 #45` when about another game than `game`).
    pub fn shown(&self, game: Option<u32>) -> String {
        let at = match (game == Some(self.game), self.seq) {
            (true, Some(s)) => format!(" #{s}"),
            (true, None) => String::new(),
            (false, Some(s)) => format!(" game {} #{s}", self.game),
            (false, None) => format!(" game {}", self.game),
        };
        format!("ALARM{at}: {}", self.summary)
    }
}

/// Each camp's witnesses (by camp label), since the live record started.
#[derive(Debug, Default)]
pub struct Witnesses {
    camps: std::sync::Mutex<BTreeMap<String, CampWitness>>,
}

impl Witnesses {
    /// The camps seen so far.
    pub fn snapshot(&self) -> BTreeMap<String, CampWitness> {
        self.camps.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn change(&self, camp: &str, f: impl FnOnce(&mut CampWitness)) {
        let mut camps = self.camps.lock().unwrap_or_else(|e| e.into_inner());
        f(camps.entry(camp.to_owned()).or_default());
        CHANGES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Changes to any [`Witnesses`] of this process.
static CHANGES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many times a witness came, went or cosigned in this process: a screen that shows them
/// asks for them again when this changed.
pub fn changes() -> u64 {
    CHANGES.load(std::sync::atomic::Ordering::Relaxed)
}

/// Bind the live record's listener on `addr` (`HOST:PORT`).
pub fn bind(addr: &str) -> io::Result<TcpListener> {
    TcpListener::bind(addr)
}

/// How often a connection lists a game's checkpoint notes when its log did not grow (a note
/// signed after the last entry, by `arbiter checkpoint`).
const NOTES_EVERY: Duration = Duration::from_secs(1);

/// One game as a connection has sent it so far.
#[derive(Debug, Default)]
struct Sent {
    /// The log, kept open: a look that finds nothing new is one stat of its path (opening it
    /// again would wake every change watcher of the folder, `display`'s and `relay`'s).
    file: Option<std::fs::File>,
    /// When its notes were last listed.
    notes_at: Option<std::time::Instant>,
    /// The log's device and inode.
    id: (u64, u64),
    /// Bytes of the log sent (complete lines).
    offset: u64,
    /// Entries sent.
    seq: u64,
    /// Notes sent: size → SHA-256 of the note (a changed note is sent again).
    notes: BTreeMap<u64, [u8; 32]>,
}

fn games(match_dir: &Path) -> Vec<u32> {
    let mut out: Vec<u32> = std::fs::read_dir(match_dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n: u32 = name.strip_prefix("game-")?.parse().ok()?;
            (format!("game-{n}") == name).then_some(n)
        })
        .collect();
    out.sort_unstable();
    out
}

/// What game `game` holds beyond what was sent: its new entries (the file made durable first),
/// then its new or changed notes over entries sent. A log replaced or cut back is sent again
/// from entry 0 (a witness holds it against its copy).
fn look(match_dir: &Path, game: u32, sent: &mut Sent) -> Vec<ToWitness> {
    let mut out = Vec::new();
    let path = layout::log_path(match_dir, game);
    let Ok(now) = std::fs::symlink_metadata(&path) else {
        return out;
    };
    let id = (now.dev(), now.ino());
    if id != sent.id || now.len() < sent.offset || sent.file.is_none() {
        let Ok(f) = crate::record::fsio::open_match_file(&path) else {
            return out;
        };
        let Ok(meta) = f.metadata() else { return out };
        if (meta.dev(), meta.ino()) != sent.id || meta.len() < sent.offset {
            *sent = Sent {
                id: (meta.dev(), meta.ino()),
                ..Sent::default()
            };
        }
        sent.file = Some(f);
    }
    let grew = now.len() > sent.offset;
    if let Some(f) = &sent.file
        && grew
        && f.sync_data().is_ok()
    {
        let mut buf = Vec::new();
        let want = (now.len() - sent.offset).min(READ_BLOCK);
        let mut r = f;
        if r.seek(SeekFrom::Start(sent.offset)).is_ok()
            && r.take(want).read_to_end(&mut buf).is_ok()
        {
            let mut start = 0;
            while let Some(nl) = buf[start..].iter().position(|b| *b == b'\n') {
                let line = String::from_utf8_lossy(&buf[start..start + nl]).into_owned();
                out.push(ToWitness::Entry {
                    game,
                    seq: sent.seq,
                    line,
                });
                sent.seq += 1;
                start += nl + 1;
            }
            sent.offset += start as u64;
        }
    }
    if !grew && sent.notes_at.is_some_and(|t| t.elapsed() < NOTES_EVERY) {
        return out;
    }
    sent.notes_at = Some(std::time::Instant::now());
    let cps = layout::checkpoints_dir(match_dir, game);
    let mut notes: Vec<(u64, PathBuf)> = std::fs::read_dir(&cps)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n: u64 = name.strip_suffix(".note")?.parse().ok()?;
            (format!("{n}.note") == name).then_some((n, e.path()))
        })
        .filter(|(n, _)| *n <= sent.seq)
        .collect();
    notes.sort();
    for (size, p) in notes {
        let Ok(bytes) = crate::record::fsio::read(&p, crate::record::fsio::SMALL_FILE_LIMIT) else {
            continue;
        };
        let digest = crate::log::sha256(&bytes);
        if sent.notes.get(&size) == Some(&digest) {
            continue;
        }
        sent.notes.insert(size, digest);
        out.push(ToWitness::Checkpoint {
            game,
            size,
            note: String::from_utf8_lossy(&bytes).into_owned(),
        });
    }
    out
}

/// The policy file's stamp when last read, and the digest of the text last sent.
type PolicySent = (Option<(u64, u64, i64, i64)>, Option<[u8; 32]>);

/// The match policy and its signature, when the match has one that was not sent yet (or
/// changed since): read before any entry, so that a witness holds line 0 to it.
/// The policy file is read again only when its inode, size or time changed (a stat opens
/// nothing: change watchers of the folder are not woken).
fn policy_frame(match_dir: &Path, sent: &mut PolicySent) -> Option<ToWitness> {
    let path = crate::record::witness::policy_path(match_dir);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    let stamp = (meta.ino(), meta.len(), meta.mtime(), meta.mtime_nsec());
    if sent.0 == Some(stamp) {
        return None;
    }
    let text = crate::record::fsio::read(&path, crate::record::fsio::SMALL_FILE_LIMIT).ok()?;
    sent.0 = Some(stamp);
    let digest = crate::log::sha256(&text);
    if sent.1 == Some(digest) {
        return None;
    }
    let mut sig_name = path.file_name()?.to_os_string();
    sig_name.push(".sig");
    let sig = crate::record::fsio::read(
        &path.with_file_name(sig_name),
        crate::record::fsio::SMALL_FILE_LIMIT,
    )
    .unwrap_or_default();
    sent.1 = Some(digest);
    Some(ToWitness::Policy {
        text: String::from_utf8_lossy(&text).into_owned(),
        signature: String::from_utf8_lossy(&sig).into_owned(),
    })
}

/// Why a cosignature was not stored.
#[derive(Debug, thiserror::Error)]
pub enum CosignRefusal {
    #[error("{0}")]
    Camp(String),
    #[error("game {game} has no checkpoint {size} (checkpoints/{size}.txt)")]
    NoCheckpoint { game: u32, size: u64 },
    #[error("cannot read game {0}'s line 0")]
    NoLine0(u32),
    #[error("countersignature refused: {0}")]
    Signature(#[from] crate::record::sign::CosignProblem),
    #[error("{} exists with another countersignature; it is kept", .0.display())]
    Exists(PathBuf),
    #[error("cannot write {}: {source}", .path.display())]
    Write { path: PathBuf, source: io::Error },
}

/// The key line 0 of game `game` declares for `camp`, with its proof of possession checked, and
/// the match policy's key for the camp, if it names one, the same.
fn proven_camp_key(
    match_dir: &Path,
    game: u32,
    camp: &str,
) -> Result<ssh_key::PublicKey, CosignRefusal> {
    let first = crate::record::journal::first_entry(&layout::log_path(match_dir, game))
        .map_err(|_| CosignRefusal::NoLine0(game))?;
    let match_id = first
        .body
        .get("match_id")
        .and_then(|m| m.as_str())
        .unwrap_or_default();
    let declared = first
        .body
        .pointer("/declarations/camps")
        .and_then(|c| c.as_array())
        .and_then(|cs| {
            cs.iter()
                .find(|c| c.get("name").and_then(|n| n.as_str()) == Some(camp))
        })
        .ok_or_else(|| {
            CosignRefusal::Camp(format!(
                "camp {camp:?} is not declared in line 0 of game {game}"
            ))
        })?;
    let key = declared
        .get("key")
        .and_then(|k| k.as_str())
        .unwrap_or_default();
    let proof = declared
        .get("proof")
        .and_then(|p| p.as_str())
        .ok_or_else(|| {
            CosignRefusal::Camp(format!(
                "camp {camp}'s key has no proof of possession in line 0 of game {game}"
            ))
        })?;
    crate::core::camp::check_proof(match_id, camp, key, proof).map_err(|e| {
        CosignRefusal::Camp(format!(
            "camp {camp}'s proof of possession does not hold: {e}"
        ))
    })?;
    let public = ssh_key::PublicKey::from_openssh(key)
        .map_err(|e| CosignRefusal::Camp(format!("camp {camp}'s declared key: {e}")))?;
    let policy = crate::record::witness::policy_path(match_dir);
    if let Ok(text) = crate::record::fsio::read_to_string(&policy)
        && let Ok(p) = crate::log::policy::Policy::parse(&text)
        && !p.camps.is_empty()
    {
        let bare = |k: &str| k.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
        if !p
            .camps
            .iter()
            .any(|(c, k)| c == camp && bare(k) == bare(key))
        {
            return Err(CosignRefusal::Camp(format!(
                "the match policy does not name camp {camp} with the key line 0 of game {game} declares"
            )));
        }
    }
    Ok(public)
}

/// Check camp `camp`'s cosignature of checkpoint `size` of game `game` and store it as
/// `checkpoints/<size>.txt.cosig-<camp>` (a new 0600 file; the same signature again is
/// accepted, another one refused). Returns the file.
pub fn accept_cosignature(
    match_dir: &Path,
    game: u32,
    size: u64,
    camp: &str,
    armored: &str,
) -> Result<PathBuf, CosignRefusal> {
    let name = crate::log::cosign::file_name(size, camp)
        .map_err(|e| CosignRefusal::Camp(e.to_string()))?;
    let key = proven_camp_key(match_dir, game, camp)?;
    let cp = layout::checkpoint_path(match_dir, game, size);
    let text = crate::record::fsio::read(&cp, crate::record::fsio::SMALL_FILE_LIMIT)
        .map_err(|_| CosignRefusal::NoCheckpoint { game, size })?;
    crate::record::sign::verify_countersignature(&key, &text, armored)?;
    let out = layout::checkpoints_dir(match_dir, game).join(name);
    match crate::record::journal::write_new_file(&out, armored.as_bytes()) {
        Ok(()) => Ok(out),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            match crate::record::fsio::read_to_string(&out) {
                Ok(old) if old == armored => Ok(out),
                _ => Err(CosignRefusal::Exists(out)),
            }
        }
        Err(source) => Err(CosignRefusal::Write { path: out, source }),
    }
}

fn send(ws: &mut WebSocket<TcpStream>, frame: &ToWitness) -> Result<(), tungstenite::Error> {
    let text = serde_json::to_string(frame).unwrap_or_default();
    ws.send(Message::text(text))
}

fn refused(reason: String) -> ToWitness {
    ToWitness::Refused { reason }
}

/// What a connection answers to one frame from its witness.
fn answer(
    match_dir: &Path,
    text: &str,
    camp: &mut Option<String>,
    follower: &mut bool,
    say: &Say,
    watch: &Witnesses,
) -> Option<ToWitness> {
    let frame: FromWitness = match serde_json::from_str(text) {
        Ok(f) => f,
        Err(e) => {
            return Some(refused(format!(
                "not a frame of {PROTOCOL} (a hello, a cosignature or an alarm): {e}"
            )));
        }
    };
    if let FromWitness::Alarm {
        game,
        seq,
        camp: c,
        kind,
        summary,
        text,
    } = frame
    {
        if *follower {
            return Some(refused(
                "an alarm from a read-only follower: only a camp's witness raises one".into(),
            ));
        }
        if camp.as_deref() != Some(c.as_str()) {
            return Some(refused(format!(
                "an alarm for camp {c:?} on a connection that said hello as {}",
                camp.as_deref().unwrap_or("nobody (no hello yet)")
            )));
        }
        if let Some(p) = alarm_field_problem("summary", &summary, MAX_ALARM_SUMMARY)
            .or_else(|| alarm_field_problem("text", &text, MAX_ALARM_TEXT))
        {
            return Some(refused(p));
        }
        let alarm = LiveAlarm {
            game,
            seq,
            kind,
            summary,
            text,
        };
        let mut new = false;
        watch.change(&c, |w| {
            // A witness that sends alarms without end holds no more than this much memory here
            // (past it, an alarm sent again may be said again).
            if w.alarms.len() >= MAX_ALARMS_KEPT {
                w.alarms.clear();
            }
            new = w.alarms.insert(alarm.clone());
            w.alarm = Some(alarm.clone());
        });
        if new {
            say(&format!(
                "ALARM from camp {c}'s witness ({}): game {game}{}: {}",
                kind.name(),
                seq.map(|s| format!(" #{s}")).unwrap_or_default(),
                alarm.text
            ));
        }
        return None;
    }
    Some(match frame {
        FromWitness::Hello { protocol, camp: c } => {
            if protocol != PROTOCOL {
                return Some(refused(format!(
                    "protocol {protocol:?} is not spoken here ({PROTOCOL})"
                )));
            }
            if let Err(e) = crate::log::cosign::check_camp(&c) {
                return Some(refused(e.to_string()));
            }
            say(&format!("witness of camp {c} connected"));
            *camp = Some(c.clone());
            ToWitness::Hello {
                protocol: PROTOCOL.into(),
            }
        }
        FromWitness::Follow { protocol } => {
            if protocol != PROTOCOL {
                return Some(refused(format!(
                    "protocol {protocol:?} is not spoken here ({PROTOCOL})"
                )));
            }
            say("a read-only follower connected");
            *follower = true;
            ToWitness::Hello {
                protocol: PROTOCOL.into(),
            }
        }
        FromWitness::Cosignature {
            game,
            size,
            camp: c,
            signature,
        } => {
            if camp.as_deref() != Some(c.as_str()) {
                return Some(refused(format!(
                    "a cosignature for camp {c:?} on a connection that said hello as {}",
                    camp.as_deref().unwrap_or("nobody (no hello yet)")
                )));
            }
            match accept_cosignature(match_dir, game, size, &c, &signature) {
                Ok(file) => {
                    say(&format!(
                        "camp {c} cosigned game {game} checkpoint {size}: {}",
                        file.display()
                    ));
                    ToWitness::Cosigned {
                        game,
                        size,
                        camp: c,
                        file: file.display().to_string(),
                    }
                }
                Err(e) => {
                    say(&format!(
                        "camp {c}'s cosignature of game {game} checkpoint {size} REFUSED: {e}"
                    ));
                    refused(format!("game {game} checkpoint {size}: {e}"))
                }
            }
        }
        FromWitness::Alarm { .. } => refused("an alarm out of place".into()),
    })
}

fn connection(stream: TcpStream, match_dir: &Path, say: &Say, watch: &Witnesses) {
    let peer = stream
        .peer_addr()
        .map(|a| a.to_string())
        .unwrap_or_else(|_| "?".into());
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(LOOK_EVERY));
    #[allow(clippy::result_large_err)]
    let callback = |req: &Request, resp: Response| -> Result<Response, ErrorResponse> {
        if req.uri().path() != PATH {
            let mut r = ErrorResponse::new(Some(format!(
                "no live record at {}: it is at {PATH}\n",
                req.uri().path()
            )));
            *r.status_mut() = tungstenite::http::StatusCode::NOT_FOUND;
            return Err(r);
        }
        Ok(resp)
    };
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_FRAME))
        .max_frame_size(Some(MAX_FRAME));
    let mut ws = match tungstenite::accept_hdr_with_config(stream, callback, Some(config)) {
        Ok(ws) => ws,
        Err(e) => {
            say(&format!("{peer}: WebSocket handshake failed: {e}"));
            return;
        }
    };
    let mut camp: Option<String> = None;
    let mut sent: BTreeMap<u32, Sent> = BTreeMap::new();
    let mut policy_sent: PolicySent = (None, None);
    let mut follower = false;
    loop {
        let was = camp.clone();
        let reply = match ws.read() {
            Ok(Message::Text(t)) => {
                answer(match_dir, t.as_str(), &mut camp, &mut follower, say, watch)
            }
            Ok(Message::Binary(b)) => Some(refused(format!(
                "a binary frame of {} bytes: {PROTOCOL} speaks JSON text frames",
                b.len()
            ))),
            Ok(Message::Close(_)) => break,
            Ok(_) => None,
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                None
            }
            Err(tungstenite::Error::Capacity(e)) => Some(refused(format!("frame too large: {e}"))),
            Err(_) => break,
        };
        if camp != was {
            if let Some(c) = &was {
                watch.change(c, |w| w.connected = w.connected.saturating_sub(1));
            }
            if let Some(c) = &camp {
                watch.change(c, |w| w.connected += 1);
            }
        }
        if let Some(ToWitness::Cosigned {
            game,
            size,
            camp: c,
            ..
        }) = &reply
        {
            watch.change(c, |w| {
                let at = w.cosigned.entry(*game).or_default();
                *at = (*at).max(*size);
            });
        }
        if let Some(r) = reply {
            if let ToWitness::Refused { reason } = &r {
                say(&format!(
                    "{peer} ({}): refused: {reason}",
                    camp.as_deref().unwrap_or("no hello")
                ));
            }
            if send(&mut ws, &r).is_err() {
                break;
            }
        }
        if camp.is_none() && !follower {
            continue;
        }
        if let Some(f) = policy_frame(match_dir, &mut policy_sent)
            && send(&mut ws, &f).is_err()
        {
            break;
        }
        let mut failed = false;
        'games: for g in games(match_dir) {
            let s = sent.entry(g).or_default();
            for f in look(match_dir, g, s) {
                if send(&mut ws, &f).is_err() {
                    failed = true;
                    break 'games;
                }
            }
        }
        if failed {
            break;
        }
    }
    if let Some(c) = &camp {
        watch.change(c, |w| w.connected = w.connected.saturating_sub(1));
    }
    say(&format!(
        "{peer} ({}): disconnected",
        camp.as_deref().unwrap_or("no hello")
    ));
}
