//! The session binding, version 1 (PURE): what ties every entry of a log to the kit
//! that wrote it in a session of the match's own arbiter key.
//!
//! - **The seal** (`game-<n>/seal`): after every append the kit rewrites one C2SP signed note
//!   whose text is [`seal_text`], signed with the arbiter key under the key name
//!   `<origin>/seal`. Entries past the seal's size, in a log whose line 0 says
//!   `"binding":"seal/1"`, were not written by the kit in a session of that key: the kit signs no
//!   checkpoint over them and `verify` names them.
//! - **Authorizations** (`authorized` entries, 5b): the body carries `key` (the fingerprint of the
//!   key that authorized) and `sig`, the base64 Ed25519 signature of [`authorization_text`] — the
//!   authorized entry's own `seq` and `prev` (the chain head over every entry it covers) and the
//!   covered range.
use super::hex32;

/// What line 0's `arbiter_key.binding` says in a log whose entries are sealed (session binding
/// v1, still read: the kit no longer writes seals).
pub const BINDING: &str = "seal/1";
/// What line 0's `arbiter_key.binding` says in a log of the session binding v2: no seal; every
/// arbiter-only entry is covered by an `authorized` entry signed at the act (the key decrypted
/// for that signature only), routine entries need none, and what lies past the last signed
/// checkpoint is bound by the camps' live witnesses and the next checkpoint.
pub const SIGNED_ACTS: &str = "signed-acts/1";
/// First line of a seal's text.
pub const SEAL_HEADER: &str = "arbiter-kit seal v1";
/// First line of an authorization's signed text.
pub const AUTH_HEADER: &str = "arbiter-kit authorization v1";

/// The key name a game's seal is signed under (never a checkpoint's origin).
pub fn seal_key_name(origin: &str) -> String {
    format!("{origin}/seal")
}

/// A seal: the kit wrote the first `size` entries, whose chain head is `chain`. `closed` when the
/// session ended normally (after a crash the seal stays `open`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seal {
    pub origin: String,
    pub size: u64,
    pub chain: [u8; 32],
    pub closed: bool,
}

/// The text of a seal, five lines each ending in `\n`:
/// `arbiter-kit seal v1`, the origin, the size, `chain <hex>`, `open` or `closed`.
pub fn seal_text(s: &Seal) -> String {
    format!(
        "{SEAL_HEADER}\n{}\n{}\nchain {}\n{}\n",
        s.origin,
        s.size,
        hex32(&s.chain),
        if s.closed { "closed" } else { "open" }
    )
}

/// Parse a seal's text (exactly as [`seal_text`] writes it).
pub fn parse_seal(text: &str) -> Result<Seal, String> {
    let lines: Vec<&str> = text.split_terminator('\n').collect();
    let [header, origin, size, chain, state] = lines.as_slice() else {
        return Err("a seal is five lines".into());
    };
    if *header != SEAL_HEADER {
        return Err(format!("the first line is not {SEAL_HEADER:?}"));
    }
    let size: u64 = size
        .parse()
        .map_err(|_| "the size is not a number".to_owned())?;
    let chain = chain
        .strip_prefix("chain ")
        .and_then(|h| hex::decode(h).ok())
        .and_then(|b| <[u8; 32]>::try_from(b.as_slice()).ok())
        .ok_or("the chain line is not `chain <64 hex digits>`")?;
    let closed = match *state {
        "open" => false,
        "closed" => true,
        _ => return Err("the last line is neither `open` nor `closed`".into()),
    };
    let s = Seal {
        origin: (*origin).to_owned(),
        size,
        chain,
        closed,
    };
    if seal_text(&s) != text {
        return Err("not in the canonical form".into());
    }
    Ok(s)
}

/// The bytes an `authorized` entry's `sig` signs: five lines each ending in `\n`:
/// `arbiter-kit authorization v1`, the origin, `entry <seq of the authorized entry>`,
/// `covers <first> <last>`, `prev <hex of E_{seq-1}>`.
pub fn authorization_text(origin: &str, seq: u64, first: u64, last: u64, prev: &str) -> String {
    format!("{AUTH_HEADER}\n{origin}\nentry {seq}\ncovers {first} {last}\nprev {prev}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seal_round_trip() {
        let s = Seal {
            origin: "arbiter-kit/m/game-1".into(),
            size: 12,
            chain: [7; 32],
            closed: true,
        };
        assert_eq!(parse_seal(&seal_text(&s)), Ok(s));
        assert!(parse_seal("arbiter-kit seal v1\nx\n1\nchain 00\nopen\n").is_err());
    }
}
