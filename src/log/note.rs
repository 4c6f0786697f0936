//! C2SP signed notes (<https://c2sp.org/signed-note>) and tlog checkpoints
//! (<https://c2sp.org/tlog-checkpoint>), the transparency-log ecosystem's format (PURE: text
//! in, text out; the Ed25519 signing and checking are in `crate::record::sign`).
//!
//! A signed note is a text ending in `\n`, a blank line, then signature lines
//! `— <key name> <base64(4-byte key ID || signature)>`. An Ed25519 key's ID is the first four
//! bytes of `SHA-256(name || 0x0A || 0x01 || public key)`; its verifier key, the string a
//! camp pins, is `<name>+<hex key ID>+<base64(0x01 || public key)>`. The kit's checkpoint text
//! (`checkpoint::Checkpoint::to_text`) is a tlog checkpoint body as it stands: origin, size,
//! base64 root, then the `chain …` and `time …` lines as extension lines.
use super::checkpoint::Checkpoint;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};
use std::fmt;

/// Signature type byte of Ed25519 in signed notes.
pub const ALG_ED25519: u8 = 0x01;
/// Most signature lines a note may carry (as Go's `note.Open`; the spec asks for at least 16).
pub const MAX_SIGNATURES: usize = 100;
/// The em dash and space that open a signature line.
pub const SIG_PREFIX: &str = "\u{2014} ";

/// Why a note, a verifier key or a tlog checkpoint is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoteError {
    #[error(
        "key name {0:?} is not valid (it must be non-empty, without spaces or '+' (signed-note))"
    )]
    KeyName(String),
    #[error("note text must end in a newline (signed-note)")]
    NoFinalNewline,
    #[error("note contains an ASCII control character other than newline at byte {0}")]
    ControlChar(usize),
    #[error("note is not valid UTF-8")]
    NotUtf8,
    #[error("note has no blank line before its signatures")]
    NoSignatureBlock,
    #[error("note has no signature lines")]
    NoSignatures,
    #[error("signature line {0} does not read '— <name> <base64>' with a 4-byte key ID")]
    SignatureLine(usize),
    #[error("note has more than {MAX_SIGNATURES} signatures")]
    TooManySignatures,
    #[error("verifier key is not <name>+<8 hex digits>+<base64 of 0x01 and 32 bytes>: {0}")]
    VerifierKey(&'static str),
    #[error(
        "verifier key ID {found:08x} does not match its name and key (expected {expected:08x})"
    )]
    VerifierKeyId { expected: u32, found: u32 },
    #[error("tlog checkpoint line {line}: {problem}")]
    Checkpoint { line: usize, problem: &'static str },
}

/// Whether `name` may name a key: non-empty, no Unicode white space, no `+`.
pub fn is_valid_key_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(char::is_whitespace) && !name.contains('+')
}

fn check_name(name: &str) -> Result<(), NoteError> {
    if is_valid_key_name(name) {
        Ok(())
    } else {
        Err(NoteError::KeyName(name.to_owned()))
    }
}

/// Key ID: the first four bytes (big-endian) of `SHA-256(name || 0x0A || type || key)`.
pub fn key_id(name: &str, typed_key: &[u8]) -> u32 {
    let mut h = Sha256::new();
    h.update(name.as_bytes());
    h.update(b"\n");
    h.update(typed_key);
    let d = h.finalize();
    u32::from_be_bytes([d[0], d[1], d[2], d[3]])
}

/// Key ID of an Ed25519 public key under `name`.
pub fn ed25519_key_id(name: &str, public: &[u8; 32]) -> u32 {
    let mut typed = [0u8; 33];
    typed[0] = ALG_ED25519;
    typed[1..].copy_from_slice(public);
    key_id(name, &typed)
}

/// An Ed25519 verifier key: what a camp pins to check the arbiter's signed notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifierKey {
    pub name: String,
    pub key_id: u32,
    pub public: [u8; 32],
}

impl VerifierKey {
    /// The verifier key of an Ed25519 public key under `name`.
    pub fn ed25519(name: &str, public: [u8; 32]) -> Result<VerifierKey, NoteError> {
        check_name(name)?;
        Ok(VerifierKey {
            name: name.to_owned(),
            key_id: ed25519_key_id(name, &public),
            public,
        })
    }

    /// Parse `<name>+<hex key ID>+<base64(0x01 || key)>`; the ID must match name and key.
    pub fn parse(s: &str) -> Result<VerifierKey, NoteError> {
        let mut parts = s.splitn(3, '+');
        let (Some(name), Some(id), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(NoteError::VerifierKey("three parts separated by '+'"));
        };
        check_name(name)?;
        if id.len() != 8 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(NoteError::VerifierKey("the key ID must be 8 hex digits"));
        }
        let found = u32::from_str_radix(id, 16)
            .map_err(|_| NoteError::VerifierKey("the key ID must be 8 hex digits"))?;
        let typed = STANDARD
            .decode(key)
            .map_err(|_| NoteError::VerifierKey("the key is not standard base64"))?;
        let [alg, rest @ ..] = typed.as_slice() else {
            return Err(NoteError::VerifierKey("the key is empty"));
        };
        if *alg != ALG_ED25519 {
            return Err(NoteError::VerifierKey(
                "the signature type is not 0x01 (Ed25519)",
            ));
        }
        let public: [u8; 32] = rest
            .try_into()
            .map_err(|_| NoteError::VerifierKey("an Ed25519 key is 32 bytes"))?;
        let expected = key_id(name, &typed);
        if found != expected {
            return Err(NoteError::VerifierKeyId { expected, found });
        }
        Ok(VerifierKey {
            name: name.to_owned(),
            key_id: found,
            public,
        })
    }
}

impl fmt::Display for VerifierKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut typed = vec![ALG_ED25519];
        typed.extend_from_slice(&self.public);
        write!(
            f,
            "{}+{:08x}+{}",
            self.name,
            self.key_id,
            STANDARD.encode(typed)
        )
    }
}

/// One signature line of a note (not yet checked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteSignature {
    pub name: String,
    pub key_id: u32,
    /// The signature bytes after the key ID.
    pub signature: Vec<u8>,
}

impl NoteSignature {
    /// `— <name> <base64(key ID || signature)>\n`.
    pub fn to_line(&self) -> String {
        let mut raw = self.key_id.to_be_bytes().to_vec();
        raw.extend_from_slice(&self.signature);
        format!("{SIG_PREFIX}{} {}\n", self.name, STANDARD.encode(raw))
    }
}

/// Check a note text: ends in a newline, no control characters but newline.
pub fn check_text(text: &str) -> Result<(), NoteError> {
    if let Some(at) = text.bytes().position(|b| b < 0x20 && b != b'\n') {
        return Err(NoteError::ControlChar(at));
    }
    if !text.ends_with('\n') {
        return Err(NoteError::NoFinalNewline);
    }
    Ok(())
}

/// A note: its text and signature lines (parsed, not verified).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedNote {
    /// The signed text, final newline included.
    pub text: String,
    pub signatures: Vec<NoteSignature>,
}

impl SignedNote {
    /// Parse a signed note as Go's `note.Open` does: valid UTF-8, no control characters but
    /// newline, text up to the last blank line, then one or more well-formed signature lines.
    pub fn parse(msg: &[u8]) -> Result<SignedNote, NoteError> {
        let msg = std::str::from_utf8(msg).map_err(|_| NoteError::NotUtf8)?;
        if let Some(at) = msg.bytes().position(|b| b < 0x20 && b != b'\n') {
            return Err(NoteError::ControlChar(at));
        }
        let split = msg.rfind("\n\n").ok_or(NoteError::NoSignatureBlock)?;
        let (text, sigs) = (&msg[..split + 1], &msg[split + 2..]);
        if sigs.is_empty() {
            return Err(NoteError::NoSignatures);
        }
        let Some(sigs) = sigs.strip_suffix('\n') else {
            return Err(NoteError::SignatureLine(sigs.split('\n').count()));
        };
        let mut signatures = Vec::new();
        for (i, line) in sigs.split('\n').enumerate() {
            if i >= MAX_SIGNATURES {
                return Err(NoteError::TooManySignatures);
            }
            signatures.push(parse_sig_line(line).ok_or(NoteError::SignatureLine(i + 1))?);
        }
        Ok(SignedNote {
            text: text.to_owned(),
            signatures,
        })
    }

    /// The note as written: text, blank line, signature lines.
    pub fn to_text(&self) -> String {
        let mut out = self.text.clone();
        out.push('\n');
        for s in &self.signatures {
            out.push_str(&s.to_line());
        }
        out
    }

    /// The signatures that name this key (name and ID both equal).
    pub fn signatures_by<'a>(
        &'a self,
        key: &'a VerifierKey,
    ) -> impl Iterator<Item = &'a NoteSignature> + 'a {
        self.signatures
            .iter()
            .filter(move |s| s.name == key.name && s.key_id == key.key_id)
    }
}

fn parse_sig_line(line: &str) -> Option<NoteSignature> {
    let rest = line.strip_prefix(SIG_PREFIX)?;
    let (name, b64) = rest.split_once(' ')?;
    if !is_valid_key_name(name) || b64.is_empty() {
        return None;
    }
    let raw = STANDARD.decode(b64).ok()?;
    if raw.len() < 5 {
        return None;
    }
    let (id, signature) = raw.split_at(4);
    Some(NoteSignature {
        name: name.to_owned(),
        key_id: u32::from_be_bytes(id.try_into().ok()?),
        signature: signature.to_vec(),
    })
}

/// A tlog checkpoint body: origin, tree size, root hash, extension lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlogCheckpoint {
    pub origin: String,
    pub size: u64,
    pub root: [u8; 32],
    /// Extension lines, each non-empty, in order.
    pub extensions: Vec<String>,
}

impl TlogCheckpoint {
    /// The note text: each line followed by a newline.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "{}\n{}\n{}\n",
            self.origin,
            self.size,
            STANDARD.encode(self.root)
        );
        for e in &self.extensions {
            out.push_str(e);
            out.push('\n');
        }
        out
    }

    /// Parse a checkpoint body strictly (c2sp.org/tlog-checkpoint): at least three non-empty
    /// lines, a decimal size without leading zeros, a canonical base64 32-byte root.
    pub fn parse(text: &str) -> Result<TlogCheckpoint, NoteError> {
        check_text(text)?;
        let body = &text[..text.len() - 1];
        let lines: Vec<&str> = body.split('\n').collect();
        let bad = |line: usize, problem: &'static str| NoteError::Checkpoint { line, problem };
        let [origin, size, root, extensions @ ..] = lines.as_slice() else {
            return Err(bad(
                lines.len() + 1,
                "a checkpoint has at least three lines",
            ));
        };
        if origin.is_empty() {
            return Err(bad(1, "the origin must not be empty"));
        }
        let n: u64 = size
            .parse()
            .map_err(|_| bad(2, "the tree size must be a decimal number"))?;
        if n.to_string() != *size {
            return Err(bad(2, "the tree size must have no sign or leading zeros"));
        }
        let root: [u8; 32] = STANDARD
            .decode(root)
            .ok()
            .filter(|r| STANDARD.encode(r) == *root)
            .and_then(|r| r.try_into().ok())
            .ok_or(bad(
                3,
                "the root hash must be 32 bytes in canonical standard base64",
            ))?;
        if let Some(i) = extensions.iter().position(|e| e.is_empty()) {
            return Err(bad(4 + i, "extension lines must not be empty"));
        }
        Ok(TlogCheckpoint {
            origin: (*origin).to_owned(),
            size: n,
            root,
            extensions: extensions.iter().map(|e| (*e).to_owned()).collect(),
        })
    }
}

impl From<&Checkpoint> for TlogCheckpoint {
    /// The kit's checkpoint as a tlog checkpoint: same text, `chain` and `time` as extensions.
    fn from(cp: &Checkpoint) -> TlogCheckpoint {
        TlogCheckpoint {
            origin: cp.origin.clone(),
            size: cp.size,
            root: cp.root,
            extensions: [
                format!("chain {}", hex::encode(cp.chain)),
                format!("time {}", cp.time),
            ]
            .into_iter()
            .chain(cp.index_line())
            .chain(cp.demo.then(|| super::checkpoint::DEMO_LINE.to_owned()))
            .collect(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn kit_checkpoint_text_is_a_tlog_checkpoint() {
        let cp = Checkpoint {
            origin: "arbiter-kit/m/game-1".into(),
            size: 57,
            root: [7; 32],
            chain: [9; 32],
            time: "2003-01-26T15:00:00Z".into(),
            demo: false,
            index: Some((3, [5; 32])),
        };
        let t = TlogCheckpoint::from(&cp);
        assert_eq!(t.to_text(), cp.to_text());
        assert_eq!(TlogCheckpoint::parse(&cp.to_text()).unwrap(), t);
    }
}
