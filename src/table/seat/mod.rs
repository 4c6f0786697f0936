//! `arbiter seat`: a human's seat at an AI Werewolf table (SHELL). A terminal client of the
//! contest's protocol: it connects to the table's WebSocket (the kit's `arbiter serve` or the
//! official server), answers NAME with the seat's name, and shows the human what the seat
//! knows ([`model`], [`view`]). The only outbound connection the kit makes, and only this
//! command makes it.
//!
//! It marks itself a human's in the handshake with the query parameter
//! [`crate::table::net::HUMAN_QUERY`] (the official server ignores it; `arbiter serve` records
//! the seat as `human: true` in line 0).
pub mod model;
pub mod view;

use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crossterm::event::{Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};
use tungstenite::client::IntoClientRequest;
use tungstenite::{Message, WebSocket};

use model::{Key, Out, SeatModel};

/// Why the seat stopped.
#[derive(Debug, thiserror::Error)]
pub enum SeatError {
    #[error("the table's address {url}: {problem}")]
    Address { url: String, problem: String },
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        addr: String,
        source: std::io::Error,
    },
    #[error("the WebSocket handshake with {url} failed: {problem}")]
    Handshake { url: String, problem: String },
    #[error("the connection to the table broke: {0}")]
    Lost(String),
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
    #[error(
        "arbiter seat needs a terminal (stdin and stdout); the seat is played on a terminal's keys"
    )]
    NoTerminal,
}

/// The URL with the kit's human mark in its query (the token goes in the `Authorization`
/// header, which both servers read, so it never shows in an address).
pub fn seat_url(url: &str) -> String {
    let (k, v) = crate::table::net::HUMAN_QUERY;
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{k}={v}")
}

/// Connect and shake hands (ws:// only; no TLS in the kit). Reads time out every `poll`, so
/// one thread serves both the socket and the keys.
pub fn connect(
    url: &str,
    token: Option<&str>,
    poll: Duration,
) -> Result<WebSocket<TcpStream>, SeatError> {
    let (req, addr) = request(url, token)?;
    connect_to(url, req, &addr, poll)
}

/// The handshake's request for `url` (the human mark added, the token as a header) and the
/// address to connect to; a URL the seat cannot use is refused before anything connects.
pub fn request(
    url: &str,
    token: Option<&str>,
) -> Result<(tungstenite::handshake::client::Request, String), SeatError> {
    let full = seat_url(url);
    let mut req = full
        .as_str()
        .into_client_request()
        .map_err(|e| SeatError::Address {
            url: url.to_string(),
            problem: e.to_string(),
        })?;
    let uri = req.uri().clone();
    if uri.scheme_str() != Some("ws") {
        return Err(SeatError::Address {
            url: url.to_string(),
            problem: "the kit speaks ws:// only (no TLS)".into(),
        });
    }
    if let Some(t) = token
        && let Ok(v) = format!("Bearer {t}").parse()
    {
        req.headers_mut().insert("authorization", v);
    }
    let Some(host) = uri.host().map(|h| h.trim_matches(['[', ']'])) else {
        return Err(SeatError::Address {
            url: url.to_string(),
            problem: "no host in it (ws://HOST:PORT/ws)".into(),
        });
    };
    let addr = format!("{host}:{}", uri.port_u16().unwrap_or(80));
    Ok((req, addr))
}

fn connect_to(
    url: &str,
    req: tungstenite::handshake::client::Request,
    addr: &str,
    poll: Duration,
) -> Result<WebSocket<TcpStream>, SeatError> {
    let connect_err = |source| SeatError::Connect {
        addr: addr.to_string(),
        source,
    };
    let target = addr
        .to_socket_addrs()
        .map_err(connect_err)?
        .next()
        .ok_or_else(|| connect_err(std::io::Error::other("the name resolves to no address")))?;
    let stream = TcpStream::connect_timeout(&target, HANDSHAKE_TIMEOUT).map_err(connect_err)?;
    let _ = stream.set_nodelay(true);
    // A table that does not answer the handshake is given up after a while, not waited for.
    stream.set_read_timeout(Some(HANDSHAKE_TIMEOUT))?;
    stream.set_write_timeout(Some(HANDSHAKE_TIMEOUT))?;
    let (ws, _) = tungstenite::client::client(req, stream).map_err(|e| SeatError::Handshake {
        url: url.to_string(),
        problem: match e {
            tungstenite::HandshakeError::Interrupted(_) => {
                format!("no answer within {} s", HANDSHAKE_TIMEOUT.as_secs())
            }
            tungstenite::HandshakeError::Failure(e) => e.to_string(),
        },
    })?;
    ws.get_ref().set_read_timeout(Some(poll))?;
    Ok(ws)
}

/// How long the seat waits to connect and for the table's handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A terminal key as the model reads it.
fn key_of(ev: &TermEvent) -> Option<Key> {
    let TermEvent::Key(k) = ev else {
        return None;
    };
    if k.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    let alt = k.modifiers.contains(KeyModifiers::ALT);
    Some(match k.code {
        KeyCode::Char('c') | KeyCode::Char('q') if ctrl => Key::Quit,
        KeyCode::Char('s') if alt => Key::Skip,
        KeyCode::Char('o') if alt => Key::Over,
        KeyCode::Char(c) if !ctrl && !alt => Key::Char(c),
        KeyCode::F(5) => Key::Skip,
        KeyCode::F(6) => Key::Over,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Delete => Key::Delete,
        KeyCode::Left => Key::Left,
        KeyCode::Right => Key::Right,
        KeyCode::Home => Key::Home,
        KeyCode::End => Key::End,
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::Enter => Key::Enter,
        _ => return None,
    })
}

fn read_err(e: tungstenite::Error) -> Option<SeatError> {
    match e {
        tungstenite::Error::Io(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            None
        }
        e => Some(SeatError::Lost(e.to_string())),
    }
}

/// Play the seat named `name` at the table at `url` until the game is over and the human
/// quits (Ctrl-C), or the connection ends.
pub fn run(url: &str, name: &str, token: Option<&str>) -> Result<(), SeatError> {
    use std::io::IsTerminal;
    let (req, addr) = request(url, token)?;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(SeatError::NoTerminal);
    }
    let mut ws = connect_to(url, req, &addr, Duration::from_millis(20))?;
    let start = Instant::now();
    let mut m = SeatModel::new(name);
    m.note = format!("connected to {url}");
    let mut terminal = ratatui::try_init()?;
    let result = (|| -> Result<(), SeatError> {
        let mut open = true;
        let mut last_asked = None;
        let mut retry_at: Option<Instant> = None;
        loop {
            let now = || u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
            // Every frame waiting on the socket.
            while open {
                let out = match ws.read() {
                    Ok(Message::Text(t)) => m.packet(t.as_str(), now()),
                    Ok(Message::Close(_)) => {
                        open = false;
                        if !m.finished {
                            m.note = "the table closed the connection".into();
                        }
                        Vec::new()
                    }
                    Ok(_) => Vec::new(),
                    Err(e) => match read_err(e) {
                        None => break,
                        Some(e) => {
                            open = false;
                            if !m.finished {
                                m.note = e.to_string();
                            }
                            Vec::new()
                        }
                    },
                };
                for o in out {
                    if let Out::Send(t) = o
                        && let Err(e) = ws.send(Message::text(t))
                    {
                        open = false;
                        m.note = format!("the connection to the table broke: {e}");
                    }
                }
            }
            // Lost before the game's end (the table restarted, say): connect again by the
            // same name, once a second; the table gives the game so far and what it awaits.
            if !open && !m.finished && retry_at.is_none_or(|t| Instant::now() >= t) {
                if m.pending.take().is_some() {
                    m.note = format!("{} (the request is lost with it)", m.note);
                }
                match request(url, token)
                    .and_then(|(req, addr)| connect_to(url, req, &addr, Duration::from_millis(20)))
                {
                    Ok(again) => {
                        ws = again;
                        open = true;
                        retry_at = None;
                        m.note = "connected again: the table goes on with the game".into();
                    }
                    Err(e) => {
                        retry_at = Some(Instant::now() + Duration::from_secs(1));
                        m.note = format!("connection lost; trying again every second: {e}");
                    }
                }
            }
            m.tick(now());
            let at = now();
            // A new request (or its end) redraws the whole screen: a terminal may leave a
            // full-width character of a longer meter behind.
            let asked = m.pending.as_ref().map(|p| (p.ask, p.at_ms));
            if asked != last_asked {
                terminal.clear()?;
                last_asked = asked;
            }
            terminal.draw(|f| {
                let area = f.area();
                view::render(&m, at, area, f.buffer_mut());
                if let Some(p) = view::cursor(&m, area) {
                    f.set_cursor_position(p);
                }
            })?;
            // Keys: whatever came, else a short wait (the socket's own timeout paces the loop
            // while it is open).
            let wait = if open {
                Duration::from_millis(10)
            } else {
                Duration::from_millis(100)
            };
            if crossterm::event::poll(wait)? {
                while {
                    let ev = crossterm::event::read()?;
                    if let TermEvent::Resize(..) = ev {
                        terminal.autoresize()?;
                    }
                    if let Some(k) = key_of(&ev) {
                        for o in m.key(k) {
                            match o {
                                Out::Quit => return Ok(()),
                                Out::Send(t) if open => {
                                    if let Err(e) = ws.send(Message::text(t)) {
                                        open = false;
                                        m.note = format!(
                                            "not sent: the connection to the table broke: {e}"
                                        );
                                    }
                                }
                                Out::Send(_) => {
                                    m.note = "not sent: the connection is closed".into();
                                }
                            }
                        }
                    }
                    crossterm::event::poll(Duration::ZERO)?
                } {}
            }
        }
    })();
    let _ = ws.close(None);
    let restored = ratatui::try_restore();
    result.and(restored.map_err(SeatError::from))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn seat_url_carries_the_human_mark() {
        assert_eq!(
            seat_url("ws://127.0.0.1:8080/ws"),
            "ws://127.0.0.1:8080/ws?client=arbiter-seat"
        );
        assert_eq!(
            seat_url("ws://h:1/ws?x=1"),
            "ws://h:1/ws?x=1&client=arbiter-seat"
        );
    }

    #[test]
    fn seat_request_token_in_the_header_and_address() {
        let (req, addr) = request("ws://127.0.0.1:9/ws", Some("abc")).unwrap();
        assert_eq!(addr, "127.0.0.1:9");
        assert_eq!(req.headers()["authorization"], "Bearer abc");
        assert_eq!(req.uri().query(), Some("client=arbiter-seat"));
    }

    #[test]
    fn seat_request_refuses_what_it_cannot_speak() {
        for bad in ["wss://example.org/ws", "http://127.0.0.1/ws", "not a url"] {
            assert!(
                matches!(request(bad, None), Err(SeatError::Address { .. })),
                "{bad}"
            );
        }
    }
}
