//! The table's door and wires (SHELL): a WebSocket server at `GET /ws` over a std
//! `TcpListener` (tungstenite, synchronous), the NAME handshake and the optional token check,
//! one reader thread per seat that stamps every frame with the `Instant` it arrived, and the
//! writer the game loop sends its frames with.
//!
//! Every thread hands what it saw to the ONE game loop on a channel ([`Msg`]); nothing here
//! decides anything about the game.
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tungstenite::protocol::{Role, WebSocketConfig};
use tungstenite::{Message, WebSocket};

/// What a reader saw on a seat's connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameKind {
    /// A text frame within the size limit, as received (nothing stripped).
    Text(String),
    /// A binary frame of this many bytes (refused by the protocol; the seat stays).
    Binary(usize),
    /// A frame over the profile's size limit, of this many bytes (refused; the seat stays when
    /// the frame could be read whole).
    Oversize(usize),
    /// The connection closed (a close frame, end of stream or a broken socket).
    Closed,
}

/// A frame as a reader stamped it.
#[derive(Debug)]
pub struct Inbound {
    /// The connection it came on ([`Joined::conn`]).
    pub conn: u64,
    pub kind: FrameKind,
    /// When the reader got it.
    pub at: Instant,
}

/// A connection that answered NAME (and showed a valid token when the table asks for one).
#[derive(Debug)]
pub struct Joined {
    pub conn: u64,
    /// The NAME answer as the official server keeps it (trailing `\n` removed).
    pub name: String,
    /// The name without its trailing digits.
    pub team: String,
    pub peer: String,
    /// The connection said a human plays it (`arbiter seat` asks with [`HUMAN_QUERY`]; the
    /// official server ignores the parameter).
    pub human: bool,
    pub at: Instant,
    pub writer: SeatWriter,
}

/// The query parameter the kit's own terminal client (`arbiter seat`) adds to the table's URL:
/// the seat is a human's, and line 0 records it (`human: true`).
pub const HUMAN_QUERY: (&str, &str) = ("client", "arbiter-seat");

/// A connection refused at the door, with why.
#[derive(Debug, Clone)]
pub struct DoorRefusal {
    /// The NAME answer, when one came.
    pub name: Option<String>,
    pub peer: String,
    pub reason: String,
    pub at: Instant,
}

/// Everything the game loop hears, on one channel.
#[derive(Debug)]
pub enum Msg {
    Frame(Inbound),
    Joined(Box<Joined>),
    Refused(DoorRefusal),
    /// One line of the arbiter's control channel.
    Control(String),
    /// An act from the game master's screen (the control socket), answered once its entries
    /// are durable or it is refused.
    Act {
        request: super::control::ActRequest,
        reply: std::sync::mpsc::Sender<super::control::ActReply>,
    },
}

/// How the door treats connections.
#[derive(Debug, Clone)]
pub struct DoorConfig {
    /// The profile's frame size limit (bytes); a larger text frame is reported as oversize.
    pub max_frame_bytes: usize,
    /// The token key, when the profile's `[auth]` requires tokens.
    pub secret: Option<Vec<u8>>,
    /// How long a new connection has to answer NAME.
    pub name_timeout: Duration,
}

impl DoorConfig {
    /// The largest frame a reader reads whole (larger ones break the connection, as they
    /// cannot be skipped): sixteen times the profile's limit, at least 1 MiB.
    pub fn hard_cap(&self) -> usize {
        self.max_frame_bytes.saturating_mul(16).max(1 << 20)
    }

    fn ws_config(&self) -> WebSocketConfig {
        WebSocketConfig::default()
            .max_message_size(Some(self.hard_cap()))
            .max_frame_size(Some(self.hard_cap()))
            .write_buffer_size(0)
            .read_buffer_size(16 * 1024)
    }
}

/// One socket seen as a stream whose writes are whole and serialised: the reader's WebSocket
/// (which answers pings) and the game loop's writer share the socket, and each write call of
/// either goes out whole under one lock, so their frames never interleave.
#[derive(Debug)]
pub struct Duplex {
    read: TcpStream,
    write: Arc<Mutex<TcpStream>>,
}

impl Duplex {
    fn new(stream: TcpStream) -> io::Result<Duplex> {
        let write = stream.try_clone()?;
        Ok(Duplex {
            read: stream,
            write: Arc::new(Mutex::new(write)),
        })
    }

    fn twin(&self) -> io::Result<Duplex> {
        Ok(Duplex {
            read: self.read.try_clone()?,
            write: Arc::clone(&self.write),
        })
    }
}

impl Read for Duplex {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.read.read(buf)
    }
}

impl Write for Duplex {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut w = self
            .write
            .lock()
            .map_err(|_| io::Error::other("socket writer lock poisoned"))?;
        w.write_all(buf)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        let mut w = self
            .write
            .lock()
            .map_err(|_| io::Error::other("socket writer lock poisoned"))?;
        w.flush()
    }
}

/// The game loop's end of a seat's connection: sends text frames, closes.
#[derive(Debug)]
pub struct SeatWriter {
    ws: WebSocket<Duplex>,
}

impl SeatWriter {
    /// Send one text frame (written whole before this returns).
    pub fn send(&mut self, text: &str) -> Result<(), tungstenite::Error> {
        self.ws.send(Message::text(text))
    }

    /// Close the connection as the official server does after FINISH: the socket closed for
    /// writing, no close frame (contest agents read nothing after FINISH, and a client library
    /// that reads on takes a close frame for a packet). The seat's reader ends when the seat
    /// closes its side, or after [`LINGER`].
    pub fn close(&mut self) {
        let s = &self.ws.get_ref().read;
        let _ = s.set_read_timeout(Some(LINGER));
        let _ = s.shutdown(Shutdown::Write);
    }
}

/// How long the game loop waits to write one frame to a seat that does not read.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a closed seat's reader waits for the seat to close its side.
pub const LINGER: Duration = Duration::from_secs(5);

/// The path and token a client asked with.
#[derive(Debug, Default)]
struct Asked {
    token: Option<String>,
    human: bool,
}

/// Whether the request's query carries [`HUMAN_QUERY`].
fn human_of(req: &Request) -> bool {
    req.uri().query().is_some_and(|q| {
        q.split('&')
            .filter_map(|kv| kv.split_once('='))
            .any(|(k, v)| (k, v) == HUMAN_QUERY)
    })
}

/// The token of `?token=` (percent-decoded), else of `Authorization: Bearer`.
fn token_of(req: &Request) -> Option<String> {
    let from_query = req.uri().query().and_then(|q| {
        q.split('&').find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            (k == "token").then(|| percent_decode(v))
        })
    });
    from_query.or_else(|| {
        let h = req.headers().get("authorization")?.to_str().ok()?;
        Some(h.replace("Bearer ", ""))
    })
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |i: usize| b.get(i).and_then(|&c| (c as char).to_digit(16));
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (b[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Accept connections for ever, each handshake on a thread of its own (a slow client holds up
/// no one); what each ends in is sent on `tx`. Returns when the listener fails or `tx` closes.
pub fn run_door(listener: TcpListener, cfg: DoorConfig, tx: Sender<Msg>) {
    let mut next = 1u64;
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            // Out of descriptors, say: back off a little rather than spin on the error.
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        let conn = next;
        next += 1;
        let (cfg, tx) = (cfg.clone(), tx.clone());
        let spawned = std::thread::Builder::new()
            .name(format!("seat-{conn}"))
            .spawn(move || welcome(conn, stream, &cfg, &tx));
        if spawned.is_err() {
            continue;
        }
    }
}

/// The handshake of one connection, then (when it is admitted) its reader loop.
fn welcome(conn: u64, stream: TcpStream, cfg: &DoorConfig, tx: &Sender<Msg>) {
    let peer = stream
        .peer_addr()
        .map(|a| a.to_string())
        .unwrap_or_else(|_| "?".to_string());
    let refuse = |name: Option<String>, reason: String| {
        let _ = tx.send(Msg::Refused(DoorRefusal {
            name,
            peer: peer.clone(),
            reason,
            at: Instant::now(),
        }));
    };
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(cfg.name_timeout));
    // A seat that stops reading must not hold up the table: a frame that cannot be written
    // within this time fails, and the seat's connection counts as closed.
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let duplex = match Duplex::new(stream) {
        Ok(d) => d,
        Err(e) => return refuse(None, format!("socket: {e}")),
    };
    let mut asked = Asked::default();
    // The signature is tungstenite's handshake callback's.
    #[allow(clippy::result_large_err)]
    let callback = |req: &Request, resp: Response| -> Result<Response, ErrorResponse> {
        if req.uri().path() != "/ws" {
            let mut r = ErrorResponse::new(Some(format!(
                "no table at {}: the table is at /ws\n",
                req.uri().path()
            )));
            *r.status_mut() = tungstenite::http::StatusCode::NOT_FOUND;
            return Err(r);
        }
        asked.token = token_of(req);
        asked.human = human_of(req);
        Ok(resp)
    };
    let mut ws = match tungstenite::accept_hdr_with_config(duplex, callback, Some(cfg.ws_config()))
    {
        Ok(ws) => ws,
        Err(e) => return refuse(None, format!("WebSocket handshake failed: {e}")),
    };
    if let Err(e) = ws.send(Message::text(r#"{"request":"NAME"}"#)) {
        return refuse(None, format!("sending NAME failed: {e}"));
    }
    let name = loop {
        match ws.read() {
            Ok(Message::Text(t)) => break t.as_str().trim_end_matches('\n').to_string(),
            Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_)) => continue,
            Ok(Message::Binary(b)) => {
                return refuse(
                    None,
                    format!("answered NAME with a binary frame of {} bytes", b.len()),
                );
            }
            Ok(Message::Close(_)) => {
                return refuse(None, "closed before answering NAME".to_string());
            }
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                let _ = ws.close(None);
                return refuse(
                    None,
                    format!(
                        "no answer to NAME within {} ms",
                        cfg.name_timeout.as_millis()
                    ),
                );
            }
            Err(e) => return refuse(None, format!("reading the NAME answer failed: {e}")),
        }
    };
    let team = super::auth::team_of(&name).to_string();
    if name.is_empty() {
        let _ = ws.close(None);
        return refuse(Some(name), "the NAME answer is empty".to_string());
    }
    if let Some(secret) = &cfg.secret {
        let now = chrono::Utc::now().timestamp();
        if let Err(e) = super::auth::check_player_token(secret, asked.token.as_deref(), &team, now)
        {
            let _ = ws.close(None);
            let _ = ws.flush();
            let _ = ws.get_ref().read.shutdown(Shutdown::Both);
            return refuse(Some(name), format!("token refused: {e}"));
        }
    }
    let _ = ws.get_ref().read.set_read_timeout(None);
    let writer = match ws.get_ref().twin() {
        Ok(d) => SeatWriter {
            ws: WebSocket::from_raw_socket(d, Role::Server, Some(cfg.ws_config())),
        },
        Err(e) => return refuse(Some(name), format!("socket: {e}")),
    };
    let joined = Joined {
        conn,
        name,
        team,
        peer: peer.clone(),
        human: asked.human,
        at: Instant::now(),
        writer,
    };
    if tx.send(Msg::Joined(Box::new(joined))).is_err() {
        return;
    }
    read_frames(conn, ws, cfg.max_frame_bytes, tx);
}

/// The reader of one seat: every frame stamped the moment it is read, sent to the game loop;
/// ends at the connection's end (reported as [`FrameKind::Closed`]).
fn read_frames(conn: u64, mut ws: WebSocket<Duplex>, limit: usize, tx: &Sender<Msg>) {
    loop {
        let (kind, last) = match ws.read() {
            Ok(Message::Text(t)) if t.len() > limit => (FrameKind::Oversize(t.len()), false),
            Ok(Message::Text(t)) => (FrameKind::Text(t.as_str().to_string()), false),
            Ok(Message::Binary(b)) => (FrameKind::Binary(b.len()), false),
            Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_)) => continue,
            Ok(Message::Close(_)) => (FrameKind::Closed, true),
            Err(tungstenite::Error::Capacity(
                tungstenite::error::CapacityError::MessageTooLong { size, .. },
            )) => {
                // Too large to read whole: the stream cannot be resynchronised.
                let at = Instant::now();
                let _ = tx.send(Msg::Frame(Inbound {
                    conn,
                    kind: FrameKind::Oversize(size),
                    at,
                }));
                let _ = ws.get_ref().read.shutdown(Shutdown::Both);
                (FrameKind::Closed, true)
            }
            Err(_) => (FrameKind::Closed, true),
        };
        let at = Instant::now();
        if tx.send(Msg::Frame(Inbound { conn, kind, at })).is_err() || last {
            return;
        }
    }
}
