//! `--agent`: the arbiter's Ed25519 key signs through the ssh-agent at `SSH_AUTH_SOCK` (a local
//! Unix socket, not a network connection), so the key can live in an agent under another account
//! or on a hardware key and the kit never holds it. Two messages of the agent protocol
//! (draft-miller-ssh-agent): the identities list (is the key there?) and a sign request. Ed25519
//! signatures are deterministic: the agent's are byte for byte those of the key file.
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The environment variable naming the agent's socket.
pub const SOCK_VAR: &str = "SSH_AUTH_SOCK";

const FAILURE: u8 = 5;
const REQUEST_IDENTITIES: u8 = 11;
const IDENTITIES_ANSWER: u8 = 12;
const SIGN_REQUEST: u8 = 13;
const SIGN_RESPONSE: u8 = 14;
/// An answer longer than this is not an agent's.
const MAX_ANSWER: usize = 256 * 1024;
/// How long the agent may take to answer (a hardware key waits for a touch).
const ANSWER_WITHIN: Duration = Duration::from_secs(60);

/// Why the agent did not sign.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("--agent: {SOCK_VAR} is not set: start ssh-agent and ssh-add the arbiter's key")]
    NoSocket,
    #[error("--agent: cannot reach the ssh-agent at {SOCK_VAR}={path}: {source}")]
    Unreachable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "--agent: the ssh-agent at {SOCK_VAR}={path} does not hold {whose} {fingerprint} (ssh-add it)"
    )]
    KeyNotHeld {
        path: PathBuf,
        whose: String,
        fingerprint: String,
    },
    #[error("--agent: the ssh-agent at {SOCK_VAR}={path} refused to sign")]
    Refused { path: PathBuf },
    #[error("--agent: the ssh-agent at {SOCK_VAR}={path} answered something unexpected: {what}")]
    Garbled { path: PathBuf, what: &'static str },
}

/// The agent's socket from the environment.
pub fn socket_from_env() -> Result<PathBuf, AgentError> {
    match std::env::var_os(SOCK_VAR) {
        Some(p) if !p.is_empty() => Ok(PathBuf::from(p)),
        _ => Err(AgentError::NoSocket),
    }
}

/// The SSH wire form of an Ed25519 public key (`string "ssh-ed25519", string key`).
fn key_blob(public: &[u8; 32]) -> Vec<u8> {
    let mut b = Vec::with_capacity(51);
    put_string(&mut b, b"ssh-ed25519");
    put_string(&mut b, public);
    b
}

fn put_string(b: &mut Vec<u8>, s: &[u8]) {
    b.extend_from_slice(&(s.len() as u32).to_be_bytes());
    b.extend_from_slice(s);
}

/// A length-prefixed string at the front of `b`, and what follows it.
fn take_string(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let n = u32::from_be_bytes(b.get(..4)?.try_into().ok()?) as usize;
    let s = b.get(4..4usize.checked_add(n)?)?;
    Some((s, &b[4 + n..]))
}

/// One request and the agent's answer (its type byte and payload).
fn exchange(sock: &Path, kind: u8, payload: &[u8]) -> Result<(u8, Vec<u8>), AgentError> {
    let io = |source| AgentError::Unreachable {
        path: sock.to_owned(),
        source,
    };
    let mut s = UnixStream::connect(sock).map_err(io)?;
    s.set_read_timeout(Some(ANSWER_WITHIN)).map_err(io)?;
    s.set_write_timeout(Some(ANSWER_WITHIN)).map_err(io)?;
    let mut msg = Vec::with_capacity(payload.len() + 5);
    msg.extend_from_slice(&((payload.len() + 1) as u32).to_be_bytes());
    msg.push(kind);
    msg.extend_from_slice(payload);
    s.write_all(&msg).map_err(io)?;
    let mut len = [0u8; 4];
    s.read_exact(&mut len).map_err(io)?;
    let len = u32::from_be_bytes(len) as usize;
    if len == 0 || len > MAX_ANSWER {
        return Err(AgentError::Garbled {
            path: sock.to_owned(),
            what: "an answer of no or too many bytes",
        });
    }
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).map_err(io)?;
    Ok((body[0], body.split_off(1)))
}

/// Whether an agent answers at `sock` (its identities list), whatever keys it holds.
pub fn answers(sock: &Path) -> Result<(), AgentError> {
    match exchange(sock, REQUEST_IDENTITIES, &[])? {
        (IDENTITIES_ANSWER, _) => Ok(()),
        _ => Err(AgentError::Garbled {
            path: sock.to_owned(),
            what: "no list of identities",
        }),
    }
}

/// Whether the agent at `sock` holds the Ed25519 key `public` (`whose` key it is, and its
/// fingerprint, for the error that says it does not).
pub fn holds(
    sock: &Path,
    public: &[u8; 32],
    whose: &str,
    fingerprint: &str,
) -> Result<(), AgentError> {
    let garbled = |what| AgentError::Garbled {
        path: sock.to_owned(),
        what,
    };
    let (kind, body) = exchange(sock, REQUEST_IDENTITIES, &[])?;
    if kind != IDENTITIES_ANSWER {
        return Err(garbled("no list of identities"));
    }
    let want = key_blob(public);
    let n = body
        .get(..4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(u32::from_be_bytes)
        .ok_or_else(|| garbled("a list of identities without its count"))?;
    let mut rest = &body[4..];
    for _ in 0..n {
        let (blob, r) = take_string(rest).ok_or_else(|| garbled("a truncated identity"))?;
        let (_comment, r) = take_string(r).ok_or_else(|| garbled("a truncated identity"))?;
        if blob == want.as_slice() {
            return Ok(());
        }
        rest = r;
    }
    Err(AgentError::KeyNotHeld {
        path: sock.to_owned(),
        whose: whose.to_owned(),
        fingerprint: fingerprint.to_owned(),
    })
}

/// The agent's Ed25519 signature of `data` by the key `public`.
pub fn sign(sock: &Path, public: &[u8; 32], data: &[u8]) -> Result<[u8; 64], AgentError> {
    let garbled = |what| AgentError::Garbled {
        path: sock.to_owned(),
        what,
    };
    let mut req = Vec::with_capacity(data.len() + 64);
    put_string(&mut req, &key_blob(public));
    put_string(&mut req, data);
    req.extend_from_slice(&0u32.to_be_bytes());
    let (kind, body) = exchange(sock, SIGN_REQUEST, &req)?;
    match kind {
        SIGN_RESPONSE => {}
        FAILURE => {
            return Err(AgentError::Refused {
                path: sock.to_owned(),
            });
        }
        _ => return Err(garbled("no signature")),
    }
    let (sig, _) = take_string(&body).ok_or_else(|| garbled("a truncated signature"))?;
    let (alg, r) = take_string(sig).ok_or_else(|| garbled("a truncated signature"))?;
    let (raw, _) = take_string(r).ok_or_else(|| garbled("a truncated signature"))?;
    if alg != b"ssh-ed25519" {
        return Err(garbled("a signature that is not Ed25519"));
    }
    <[u8; 64]>::try_from(raw).map_err(|_| garbled("an Ed25519 signature not 64 bytes long"))
}
