//! Arbiter keys and SSHSIG checkpoints (SHELL).
//!
//! Keys are Ed25519 in OpenSSH format; `DIR/allowed_signers` is the OpenSSH allowed-signers file
//! that `ssh-keygen -Y verify` reads; checkpoints are signed with namespace
//! [`NAMESPACE`](crate::log::checkpoint::NAMESPACE).
use crate::log::checkpoint::{self, Checkpoint, NAMESPACE};
use crate::log::{Entry, merkle};
use crate::record::journal::{TreeHead, ensure_dir, write_atomic, write_new_file};
use ssh_key::{Algorithm, HashAlg, LineEnding, PrivateKey, PublicKey, SshSig};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

use crate::record::layout;

/// Comment of the key `ensure_demo_key` creates.
pub const DEMO_KEY_COMMENT: &str = "DEMO KEY - arbiter-kit demo match only, NOT for a real match";
/// The shortest passphrase `keygen` accepts for a new key (characters).
pub const MIN_PASSPHRASE_CHARS: usize = 12;
/// bcrypt-pbkdf rounds of every key `keygen` encrypts (OpenSSH's default is 16): one guess
/// costs about 0.5 s of CPU on the test machine (README, "Passphrases"), 4.5 times OpenSSH's.
pub const KDF_ROUNDS: u32 = 72;
/// The cost the tests' own encrypted keys use through [`keygen_with_rounds`] (the test-only
/// knob: no command of the kit takes a round count; `keygen` always uses [`KDF_ROUNDS`]).
pub const TEST_KDF_ROUNDS: u32 = 16;
/// Principal of the arbiter key in allowed_signers unless told otherwise.
pub const DEFAULT_PRINCIPAL: &str = "arbiter";

/// Errors of key handling and signing; each names the file and the problem.
#[derive(Debug, thiserror::Error)]
pub enum SignError {
    #[error("cannot {op} {path}: {source}")]
    Io {
        op: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error("key file {0} already exists; refusing to overwrite it")]
    KeyExists(PathBuf),
    #[error("{path} is not an OpenSSH key: {source}")]
    BadKey {
        path: PathBuf,
        source: ssh_key::Error,
    },
    #[error(
        "key {0} is encrypted: give its passphrase on the terminal, or name an environment variable holding it with --passphrase-env VAR"
    )]
    Encrypted(PathBuf),
    #[error("empty passphrase for key {0}: the key's passphrase is not empty")]
    EmptyPassphrase(PathBuf),
    #[error(
        "no arbiter key for match {0}: create one with `arbiter keygen --match {0}` (or register yours with `--existing KEY.pub`); the demo key serves the demo match logs/demo only"
    )]
    NoArbiterKey(String),
    #[error("the passphrase cannot be read from the terminal: {0}")]
    Prompt(io::Error),
    #[error("the two passphrases differ")]
    PassphraseMismatch,
    #[error(
        "the passphrase has {0} characters; a key's passphrase needs at least 12: it is all that stands between a copied key file and a forged record"
    )]
    ShortPassphrase(usize),
    #[error(
        "keygen encrypts the key: give a passphrase on the terminal or with --passphrase-env VAR, or say --no-passphrase to write it unencrypted"
    )]
    NoPassphrase,
    #[error(
        "the arbiter's key {0} is encrypted and no passphrase was given for this signature: it is asked only for an act of the arbiter; `arbiter checkpoint` signs (asking it)"
    )]
    NeedsPassphrase(PathBuf),
    #[error("the key file {0} changed while the session ran (another key): nothing signed")]
    KeyChanged(PathBuf),
    #[error(
        "--passphrase-env is for rehearsals: the policy of match {0} is not a rehearsal's (the environment of a process is readable by every process of the account); type the passphrase on the terminal"
    )]
    PassphraseEnvInMatch(String),
    #[error("wrong passphrase for key {0}")]
    WrongPassphrase(PathBuf),
    #[error("key {path} is {algorithm}, but the arbiter key must be ssh-ed25519")]
    NotEd25519 { path: PathBuf, algorithm: String },
    #[error("environment variable {0} (named by --passphrase-env) is not set or not UTF-8")]
    PassphraseEnv(String),
    #[error(
        "principal \"{0}\" is not a valid name: 1-64 letters, digits, '-', '_', '.' or '@' (it becomes a line of allowed_signers)"
    )]
    BadPrincipal(String),
    #[error("cannot sign a checkpoint of an empty log")]
    EmptyLog,
    #[error(
        "the log's chain is broken at entry seq {0}: no checkpoint is signed over it (run arbiter verify)"
    )]
    BrokenChain(u64),
    #[error("the match index could not be signed: {0}")]
    Index(String),
    #[error("line 0 of the log does not bind a match id: cannot name the checkpoint's origin")]
    NoLineZero,
    #[error(
        "{0} exists and is over a different log: refusing to overwrite a checkpoint (the log was rewritten, or the folder holds another match's files)"
    )]
    CheckpointExists(PathBuf),
    /// A key that is not the match's own: the message names the file, its
    /// fingerprint and the match's key ([`not_match_key`]).
    #[error("{0}")]
    NotMatchKey(Box<str>),
    #[error("key operation failed: {0}")]
    Ssh(#[from] ssh_key::Error),
    #[error(transparent)]
    Agent(#[from] crate::record::agent::AgentError),
    #[error("cannot sign: {0}")]
    Signing(String),
    /// The process could not be made non-dumpable: the key is not decrypted in it.
    #[error(
        "this process could not be made non-dumpable ({0}): the key is not decrypted where its own account could read it from /proc/PID/mem or a core file"
    )]
    Dumpable(io::Error),
}

/// Make this process non-dumpable (`PR_SET_DUMPABLE` 0): no core file, and `/proc/PID/mem`,
/// `/proc/PID/environ` and ptrace are closed to every process of the same account (only root
/// may still read them). `main` calls it first; [`load_key`] again before it decrypts a key.
pub fn guard_process() -> io::Result<()> {
    rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
        .map_err(io::Error::from)
}

/// The refusal of a key that is not the match's own arbiter key.
pub fn not_match_key(
    path: &Path,
    found: &str,
    want: &str,
    principal: &str,
    match_dir: &Path,
    bound_by: &str,
) -> SignError {
    SignError::NotMatchKey(
        format!(
            "key {} ({found}) is not the arbiter key of match {} ({principal} {want}, {bound_by}): only the match's own key signs or authorizes its entries; nothing was signed or recorded",
            path.display(),
            match_dir.display()
        )
        .into(),
    )
}

fn io_err(op: &'static str, path: &Path) -> impl FnOnce(io::Error) -> SignError + use<> {
    let path = path.to_owned();
    move |source| SignError::Io { op, path, source }
}

/// `SHA256:<base64>` as printed by `ssh-keygen -l`.
pub fn fingerprint(key: &PublicKey) -> String {
    key.fingerprint(HashAlg::Sha256).to_string()
}

fn require_ed25519(path: &Path, key: &PublicKey) -> Result<(), SignError> {
    if key.algorithm() == Algorithm::Ed25519 {
        Ok(())
    } else {
        Err(SignError::NotEd25519 {
            path: path.to_owned(),
            algorithm: key.algorithm().to_string(),
        })
    }
}

/// Create an Ed25519 key at `out` (0600, refused if it exists; encrypted when a passphrase is
/// given) and its public half at `out.pub`.
pub fn keygen(out: &Path, passphrase: Option<&str>, comment: &str) -> Result<PublicKey, SignError> {
    keygen_with_rounds(out, passphrase, comment, KDF_ROUNDS)
}

/// [`keygen`] with another bcrypt-pbkdf cost: the test-only knob ([`TEST_KDF_ROUNDS`]), so that
/// tests which decrypt a key many times stay fast. The kit's commands never call it.
pub fn keygen_with_rounds(
    out: &Path,
    passphrase: Option<&str>,
    comment: &str,
    rounds: u32,
) -> Result<PublicKey, SignError> {
    if out.exists() {
        return Err(SignError::KeyExists(out.to_owned()));
    }
    if let Some(dir) = out.parent() {
        ensure_dir(dir).map_err(io_err("create folder", dir))?;
    }
    let mut key = PrivateKey::random(&mut rand_core::OsRng, Algorithm::Ed25519)?;
    key.set_comment(comment);
    let public = key.public_key().clone();
    if let Some(p) = passphrase {
        use rand_core::RngCore as _;
        let mut salt = vec![0u8; 16];
        rand_core::OsRng.fill_bytes(&mut salt);
        key = key.encrypt_with(
            ssh_key::Cipher::Aes256Ctr,
            ssh_key::Kdf::Bcrypt { salt, rounds },
            rand_core::OsRng.next_u32(),
            p,
        )?;
    }
    let pem = key.to_openssh(LineEnding::LF)?;
    write_new_file(out, pem.as_bytes()).map_err(|e| match e.kind() {
        io::ErrorKind::AlreadyExists => SignError::KeyExists(out.to_owned()),
        _ => SignError::Io {
            op: "write key",
            path: out.to_owned(),
            source: e,
        },
    })?;
    let pub_path = pub_path(out);
    let line = format!("{}\n", public.to_openssh()?);
    write_new_file(&pub_path, line.as_bytes()).map_err(io_err("write public key", &pub_path))?;
    Ok(public)
}

/// Where the public half of the key at `out` goes: `out.pub`.
pub fn pub_path(out: &Path) -> PathBuf {
    let mut name = out
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".pub");
    out.with_file_name(name)
}

/// Load an Ed25519 private key (decrypting it with `passphrase` if it is encrypted).
pub fn load_key(path: &Path, passphrase: Option<&str>) -> Result<PrivateKey, SignError> {
    let text = crate::record::fsio::read_to_string(path).map_err(io_err("read key", path))?;
    let key = PrivateKey::from_openssh(text.as_bytes()).map_err(|source| SignError::BadKey {
        path: path.to_owned(),
        source,
    })?;
    require_ed25519(path, key.public_key())?;
    guard_process().map_err(SignError::Dumpable)?;
    if !key.is_encrypted() {
        return Ok(key);
    }
    let asked;
    let p = match passphrase {
        Some(p) => p,
        None => {
            asked = ask_passphrase(&format!("passphrase of {}: ", path.display()))?
                .ok_or_else(|| SignError::Encrypted(path.to_owned()))?;
            asked.as_str()
        }
    };
    if p.is_empty() {
        return Err(SignError::EmptyPassphrase(path.to_owned()));
    }
    key.decrypt(p)
        .map_err(|_| SignError::WrongPassphrase(path.to_owned()))
}

/// Ask for a passphrase on the controlling terminal (echo off). `None` when there is no
/// terminal (a script, a test, CI): the caller then says how to give it.
pub fn ask_passphrase(prompt: &str) -> Result<Option<Zeroizing<String>>, SignError> {
    use std::io::IsTerminal;
    if !io::stdin().is_terminal() {
        return Ok(None);
    }
    rpassword::prompt_password(prompt)
        .map(|p| Some(Zeroizing::new(p)))
        .map_err(SignError::Prompt)
}

/// A new key's passphrase: from the environment variable if named, else asked twice on the
/// terminal; `None` only with `unencrypted` (the caller said `--no-passphrase`).
pub fn new_passphrase(
    env: Option<&str>,
    unencrypted: bool,
) -> Result<Option<Zeroizing<String>>, SignError> {
    if unencrypted {
        return Ok(None);
    }
    let p = match passphrase_from_env(env)? {
        Some(p) => p,
        None => {
            let first =
                ask_passphrase("passphrase for the new key: ")?.ok_or(SignError::NoPassphrase)?;
            // Its length is checked before it is asked again: a passphrase too short is not
            // typed twice for nothing.
            check_new_passphrase(&first)?;
            let again =
                ask_passphrase("the same passphrase again: ")?.ok_or(SignError::NoPassphrase)?;
            if first != again {
                return Err(SignError::PassphraseMismatch);
            }
            first
        }
    };
    check_new_passphrase(&p)?;
    Ok(Some(p))
}

/// A new key's passphrase is given and long enough ([`MIN_PASSPHRASE_CHARS`]).
fn check_new_passphrase(p: &str) -> Result<(), SignError> {
    if p.is_empty() {
        return Err(SignError::NoPassphrase);
    }
    if p.chars().count() < MIN_PASSPHRASE_CHARS {
        return Err(SignError::ShortPassphrase(p.chars().count()));
    }
    Ok(())
}

/// Whether `match_dir` is the demo match: the folder `logs/demo` (named `demo` inside a folder
/// named `logs`). Only it may be signed with the demo key.
pub fn is_demo_match(match_dir: &Path) -> bool {
    let canon = fs::canonicalize(match_dir).unwrap_or_else(|_| match_dir.to_path_buf());
    canon.file_name().is_some_and(|n| n == "demo")
        && canon
            .parent()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n == "logs")
}

/// Whether a key is the demo key (by the comment `ensure_demo_key` gives it).
pub fn is_demo_key(key: &PrivateKey) -> bool {
    key.comment() == DEMO_KEY_COMMENT
}

/// Read a public key from a `.pub` file or from a private key file (whose public half is stored
/// in clear even when the key is encrypted).
pub fn load_public_key(path: &Path) -> Result<PublicKey, SignError> {
    let text = crate::record::fsio::read_to_string(path).map_err(io_err("read key", path))?;
    let key = match PublicKey::from_openssh(text.trim()) {
        Ok(k) => k,
        Err(_) => PrivateKey::from_openssh(text.as_bytes())
            .map(|k| k.public_key().clone())
            .map_err(|source| SignError::BadKey {
                path: path.to_owned(),
                source,
            })?,
    };
    require_ed25519(path, &key)?;
    Ok(key)
}

/// Read a public key of any type the camps may use (a `.pub` file, or a private key file's
/// public half): a camp's key need not be Ed25519.
pub fn load_any_public_key(path: &Path) -> Result<PublicKey, SignError> {
    let text = crate::record::fsio::read_to_string(path).map_err(io_err("read key", path))?;
    match PublicKey::from_openssh(text.trim()) {
        Ok(k) => Ok(PublicKey::new(k.key_data().clone(), "")),
        Err(_) => PrivateKey::from_openssh(text.as_bytes())
            .map(|k| PublicKey::new(k.public_key().key_data().clone(), ""))
            .map_err(|source| SignError::BadKey {
                path: path.to_owned(),
                source,
            }),
    }
}

/// One line of an allowed_signers file.
#[derive(Debug, Clone)]
pub struct AllowedSigner {
    pub principals: Vec<String>,
    /// `namespaces="..."` option, if present.
    pub namespaces: Option<Vec<String>>,
    pub key: PublicKey,
}

fn split_outside_quotes(s: &str, sep: impl Fn(char) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in s.chars() {
        if c == '"' {
            quoted = !quoted;
            cur.push(c);
        } else if !quoted && sep(c) {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn is_key_type(t: &str) -> bool {
    t.starts_with("ssh-") || t.starts_with("ecdsa-") || t.starts_with("sk-")
}

/// Parse an allowed_signers file. Lines this kit cannot use (`cert-authority`, unknown key
/// types, malformed) are returned as problems, with their line numbers.
pub fn parse_allowed_signers(text: &str) -> (Vec<AllowedSigner>, Vec<String>) {
    let mut signers = Vec::new();
    let mut problems = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let toks = split_outside_quotes(line, char::is_whitespace);
        let (opts, rest) = match toks.get(1) {
            Some(t) if is_key_type(t) => (None, &toks[1..]),
            Some(t) => (Some(t.as_str()), toks.get(2..).unwrap_or_default()),
            None => (None, &toks[..0]),
        };
        let [kt, b64, ..] = rest else {
            problems.push(format!("allowed_signers line {}: no key", n + 1));
            continue;
        };
        let mut namespaces = None;
        let mut usable = true;
        for opt in opts
            .map(|o| split_outside_quotes(o, |c| c == ','))
            .unwrap_or_default()
        {
            let lower = opt.to_ascii_lowercase();
            if lower == "cert-authority" {
                usable = false;
            } else if let Some(v) = lower.strip_prefix("namespaces=") {
                let v = v.trim_matches('"');
                namespaces = Some(v.split(',').map(str::to_owned).collect());
            }
        }
        if !usable {
            problems.push(format!(
                "allowed_signers line {}: cert-authority keys are not supported",
                n + 1
            ));
            continue;
        }
        match PublicKey::from_openssh(&format!("{kt} {b64}")) {
            Ok(key) => signers.push(AllowedSigner {
                principals: toks[0].split(',').map(str::to_owned).collect(),
                namespaces,
                key,
            }),
            Err(e) => problems.push(format!("allowed_signers line {}: bad key: {e}", n + 1)),
        }
    }
    (signers, problems)
}

/// Add `principal key` to `DIR/allowed_signers` unless that pair is listed already (file 0600).
pub fn ensure_allowed_signer(
    match_dir: &Path,
    principal: &str,
    key: &PublicKey,
) -> Result<(), SignError> {
    check_principal(principal)?;
    ensure_dir(match_dir).map_err(io_err("create folder", match_dir))?;
    let path = layout::allowed_signers(match_dir);
    let existing = match crate::record::fsio::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io_err("read", &path)(e)),
    };
    let (signers, _) = parse_allowed_signers(&existing);
    if signers
        .iter()
        .any(|s| s.principals.iter().any(|p| p == principal) && s.key.key_data() == key.key_data())
    {
        return Ok(());
    }
    let bare = PublicKey::new(key.key_data().clone(), "");
    let mut text = existing;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!(
        "{principal} namespaces=\"{NAMESPACE}\" {}\n",
        bare.to_openssh()?
    ));
    write_atomic(&path, text.as_bytes()).map_err(io_err("write", &path))
}

/// Remove what killed `checkpoint` runs left in a checkpoints folder: `*.tmp` files, and a `.sig`
/// or `.note` whose checkpoint text was never written (the text is always written last).
pub fn remove_checkpoint_leftovers(dir: &Path) -> usize {
    let mut removed = 0;
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        let Some(name) = e.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        let text_of = |stem: &str| dir.join(format!("{stem}.txt"));
        let stale = name.ends_with(".tmp")
            || name
                .strip_suffix(".txt.sig")
                .is_some_and(|stem| !text_of(stem).exists())
            || name
                .strip_suffix(".note")
                .is_some_and(|stem| !text_of(stem).exists());
        if stale && fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// A principal is written as a line of allowed_signers: 1-64 letters, digits, `-_.@`.
pub fn check_principal(principal: &str) -> Result<(), SignError> {
    let valid = !principal.is_empty()
        && principal.len() <= 64
        && principal
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.@".contains(c));
    if valid {
        Ok(())
    } else {
        Err(SignError::BadPrincipal(
            principal.escape_debug().to_string(),
        ))
    }
}

/// The demo key `DIR/keys/demo-arbiter` (created unencrypted and clearly labelled if missing),
/// registered as principal `arbiter`.
pub fn ensure_demo_key(match_dir: &Path) -> Result<PathBuf, SignError> {
    let path = layout::demo_key(match_dir);
    let public = if path.exists() {
        load_key(&path, None)?.public_key().clone()
    } else {
        keygen(&path, None, DEMO_KEY_COMMENT)?
    };
    ensure_allowed_signer(match_dir, DEFAULT_PRINCIPAL, &public)?;
    Ok(path)
}

/// Which key signs, and where its passphrase comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeySource {
    /// The private key file; `None`: `DIR/keys/arbiter` if it exists, else the demo key.
    pub file: Option<PathBuf>,
    /// The environment variable holding the key's passphrase, if it is encrypted.
    pub passphrase_env: Option<String>,
    /// Sign through the ssh-agent at `SSH_AUTH_SOCK` (`--agent`): `file` then names the key's
    /// public half (a `.pub` file or the private key file, whose public half is in clear).
    pub agent: bool,
}

/// The signing key a [`KeySource`] names: the given file, else `DIR/keys/arbiter` if it exists,
/// else the demo key (created if needed).
pub fn load_key_from(k: &KeySource, match_dir: &Path) -> Result<PrivateKey, SignError> {
    let path = key_path(k, match_dir)?;
    load_key_at(&path, k, match_dir)
}

/// The key file a [`KeySource`] names: the given file, else `DIR/keys/arbiter` if it exists,
/// else the demo key of the demo match (created if needed).
pub fn key_path(k: &KeySource, match_dir: &Path) -> Result<PathBuf, SignError> {
    Ok(match &k.file {
        Some(p) => p.clone(),
        None => {
            let default = layout::arbiter_key(match_dir);
            if default.exists() {
                default
            } else if k.agent && pub_path(&default).exists() {
                // `--agent`: the private half is in the agent; its public half names it.
                pub_path(&default)
            } else if is_demo_match(match_dir) {
                ensure_demo_key(match_dir)?
            } else {
                return Err(SignError::NoArbiterKey(match_dir.display().to_string()));
            }
        }
    })
}

/// Load (and decrypt) the key at `path`, the file [`key_path`] chose for `k`.
pub fn load_key_at(path: &Path, k: &KeySource, match_dir: &Path) -> Result<PrivateKey, SignError> {
    let passphrase = passphrase_from_env(k.passphrase_env.as_deref())?;
    let key = load_key(path, passphrase.as_ref().map(|p| p.as_str()))?;
    if is_demo_key(&key) && !is_demo_match(match_dir) {
        return Err(SignError::NoArbiterKey(match_dir.display().to_string()));
    }
    Ok(key)
}

/// The arbiter's signing key as stored, when it is encrypted (its passphrase then authorizes the
/// arbiter at the keyboard); `None` for an unencrypted or unreadable key.
pub fn encrypted_key(k: &KeySource, match_dir: &Path) -> Option<PrivateKey> {
    let path = match &k.file {
        Some(p) => p.clone(),
        None => layout::arbiter_key(match_dir),
    };
    let text = crate::record::fsio::read_to_string(&path).ok()?;
    let key = PrivateKey::from_openssh(text.as_bytes()).ok()?;
    key.is_encrypted().then_some(key)
}

/// What signs as the arbiter: the key decrypted for this signature ([`PrivateKey`]) or the
/// ssh-agent holding it ([`AgentKey`], `--agent`). Ed25519 signatures are deterministic, so both
/// make the same bytes and every format is the same.
pub trait Signs {
    /// The key's public half.
    fn public_key(&self) -> &PublicKey;
    /// Whether the key is still encrypted (nothing can sign with it).
    fn is_encrypted(&self) -> bool;
    /// Whether this is the demo key.
    fn is_demo(&self) -> bool;
    /// The raw Ed25519 signature of `msg`.
    fn sign_ed25519(&self, msg: &[u8]) -> Result<[u8; 64], WitnessError>;
}

impl Signs for PrivateKey {
    fn public_key(&self) -> &PublicKey {
        PrivateKey::public_key(self)
    }
    fn is_encrypted(&self) -> bool {
        PrivateKey::is_encrypted(self)
    }
    fn is_demo(&self) -> bool {
        is_demo_key(self)
    }
    fn sign_ed25519(&self, msg: &[u8]) -> Result<[u8; 64], WitnessError> {
        if PrivateKey::is_encrypted(self) {
            return Err(WitnessError::Encrypted);
        }
        let pair = self
            .key_data()
            .ed25519()
            .ok_or_else(|| WitnessError::NotEd25519(self.algorithm().to_string()))?;
        let seed = zeroize::Zeroizing::new(pair.private.to_bytes());
        let signing = ed25519_dalek::SigningKey::from_bytes(&seed);
        Ok(ed25519_dalek::Signer::sign(&signing, msg).to_bytes())
    }
}

/// The arbiter's key in the ssh-agent at `SSH_AUTH_SOCK` (`--agent`): its public half and the
/// agent's socket; the kit never sees the private half.
#[derive(Debug, Clone)]
pub struct AgentKey {
    public: PublicKey,
    raw: [u8; 32],
    socket: PathBuf,
}

impl AgentKey {
    /// The key `public` in the agent at `socket`, checked there now (an agent that is gone or
    /// does not hold the key is said before anything is recorded).
    pub fn new(public: &PublicKey, socket: PathBuf) -> Result<AgentKey, SignError> {
        AgentKey::of(public, socket, "the arbiter's key")
    }

    /// The key `public` (`whose`: "the arbiter's key", "camp X's key") in the agent at
    /// `socket`, checked there now.
    pub fn of(public: &PublicKey, socket: PathBuf, whose: &str) -> Result<AgentKey, SignError> {
        let raw = ed25519_public(public).map_err(|_| {
            SignError::Agent(crate::record::agent::AgentError::KeyNotHeld {
                path: socket.clone(),
                whose: whose.to_owned(),
                fingerprint: fingerprint(public),
            })
        })?;
        crate::record::agent::holds(&socket, &raw, whose, &fingerprint(public))?;
        Ok(AgentKey {
            public: public.clone(),
            raw,
            socket,
        })
    }
}

impl Signs for AgentKey {
    fn public_key(&self) -> &PublicKey {
        &self.public
    }
    fn is_encrypted(&self) -> bool {
        false
    }
    fn is_demo(&self) -> bool {
        false
    }
    fn sign_ed25519(&self, msg: &[u8]) -> Result<[u8; 64], WitnessError> {
        Ok(crate::record::agent::sign(&self.socket, &self.raw, msg)?)
    }
}

/// The armored SSHSIG (namespace `arbiter-kit-checkpoint`, SHA-512) of `text` by `key`: what
/// `PrivateKey::sign` makes, byte for byte, from any [`Signs`].
fn sshsig(key: &dyn Signs, text: &[u8]) -> Result<String, WitnessError> {
    sshsig_in(key, NAMESPACE, text)
}

/// The armored SSHSIG (SHA-512) of `text` by `key` in `namespace`.
fn sshsig_in(key: &dyn Signs, namespace: &str, text: &[u8]) -> Result<String, WitnessError> {
    if key.is_encrypted() {
        return Err(WitnessError::Encrypted);
    }
    let data = SshSig::signed_data(namespace, HashAlg::Sha512, text)?;
    let raw = key.sign_ed25519(&data)?;
    let sig = ssh_key::Signature::new(ssh_key::Algorithm::Ed25519, raw.to_vec())?;
    Ok(SshSig::new(
        key.public_key().key_data().clone(),
        namespace,
        HashAlg::Sha512,
        sig,
    )?
    .to_pem(LineEnding::LF)?)
}

/// The arbiter's key as a session keeps it: where the file is and its public half, never the
/// decrypted key. [`SessionKey::sign_with`] decrypts it for one signature, hands it to the caller
/// and drops it (ssh-key wipes the seed when a key is dropped), so no session struct can hold a
/// decrypted key between two signatures.
#[derive(Debug, Clone)]
pub struct SessionKey {
    path: PathBuf,
    public: PublicKey,
    encrypted: bool,
    demo: bool,
    passphrase_env: Option<String>,
    /// `--agent`: the ssh-agent holding the key signs; no key file is decrypted.
    agent: Option<AgentKey>,
}

impl SessionKey {
    /// The key at `path` (the file [`key_path`] chose for `k`), read but not decrypted. The demo
    /// key outside the demo match is refused, and so is `--passphrase-env` in a match whose
    /// policy is not a rehearsal's ([`check_passphrase_env`]).
    pub fn new(path: &Path, k: &KeySource, match_dir: &Path) -> Result<SessionKey, SignError> {
        if k.agent {
            let public = load_public_key(path)?;
            let socket = crate::record::agent::socket_from_env()?;
            let agent = AgentKey::new(&public, socket)?;
            return Ok(SessionKey {
                path: path.to_owned(),
                public,
                encrypted: false,
                demo: false,
                passphrase_env: None,
                agent: Some(agent),
            });
        }
        let text = crate::record::fsio::read_to_string(path).map_err(io_err("read key", path))?;
        let key =
            PrivateKey::from_openssh(text.as_bytes()).map_err(|source| SignError::BadKey {
                path: path.to_owned(),
                source,
            })?;
        require_ed25519(path, key.public_key())?;
        let demo = !key.is_encrypted() && is_demo_key(&key);
        if demo && !is_demo_match(match_dir) {
            return Err(SignError::NoArbiterKey(match_dir.display().to_string()));
        }
        check_passphrase_env(k, match_dir)?;
        Ok(SessionKey {
            path: path.to_owned(),
            public: key.public_key().clone(),
            encrypted: key.is_encrypted(),
            demo,
            passphrase_env: k.passphrase_env.clone(),
            agent: None,
        })
    }

    /// Whether the ssh-agent signs (`--agent`).
    pub fn agent(&self) -> bool {
        self.agent.is_some()
    }

    /// The signer a one-shot command uses: the agent (`--agent`), else the key decrypted now
    /// (with the environment's passphrase or, with `ask`, one asked on the terminal), dropped
    /// (wiped) with the box.
    pub fn open_once(&self, ask: bool) -> Result<Box<dyn Signs>, SignError> {
        if let Some(a) = &self.agent {
            return Ok(Box::new(a.clone()));
        }
        let env = passphrase_from_env(self.passphrase_env.as_deref())?;
        if self.encrypted && env.is_none() && !ask {
            return Err(SignError::NeedsPassphrase(self.path.clone()));
        }
        let given = env.as_ref().map(|p| p.as_str());
        let key = load_key(&self.path, given)?;
        if key.public_key().key_data() != self.public.key_data() {
            return Err(SignError::KeyChanged(self.path.clone()));
        }
        Ok(Box::new(key))
    }

    /// The key's public half.
    pub fn public(&self) -> &PublicKey {
        &self.public
    }

    /// The key file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the key is encrypted (its passphrase is needed for each signature).
    pub fn encrypted(&self) -> bool {
        self.encrypted
    }

    /// Whether the key is the demo key.
    pub fn demo(&self) -> bool {
        self.demo
    }

    /// Whether the passphrase comes from the environment (`--passphrase-env`: rehearsals).
    pub fn from_env(&self) -> bool {
        self.encrypted && self.passphrase_env.is_some()
    }

    /// Whether a signature needs nothing typed now: the ssh-agent signs, the key is not
    /// encrypted, or its passphrase is in the environment (a rehearsal).
    pub fn at_hand(&self) -> bool {
        self.agent.is_some() || !self.encrypted || self.passphrase_env.is_some()
    }

    /// The key opened for one act of the arbiter with the passphrase he just typed: what the
    /// act signs (its authorization, a checkpoint, the heartbeat's anchor) uses it, and it is
    /// dropped (wiped) when the act is recorded.
    pub fn open_for_act(&self, typed: &str) -> Result<ActKey, SignError> {
        if self.agent.is_some() {
            // The agent (its confirmation, a hardware key's touch) is the gate: a typed
            // passphrase would check nothing.
            return Err(SignError::Signing(
                "with --agent the ssh-agent authorizes each signature: no passphrase is checked here".into(),
            ));
        }
        let key = load_key(&self.path, Some(typed))?;
        if key.public_key().key_data() != self.public.key_data() {
            return Err(SignError::KeyChanged(self.path.clone()));
        }
        Ok(ActKey(Held::Key(key)))
    }

    /// Use the key once: `act`'s (opened for the act being recorded), else decrypted now with
    /// `typed`, the environment's passphrase (a rehearsal) or, with `ask`, one asked on the
    /// terminal; `f` gets the key, and a key decrypted here is dropped (wiped) before this
    /// returns. A key file changed since the session began (another public half) is refused.
    pub fn sign_with_act<T>(
        &self,
        act: Option<&ActKey>,
        ask: bool,
        f: impl FnOnce(&dyn Signs) -> T,
    ) -> Result<T, SignError> {
        match act {
            Some(k) => Ok(f(k.signs())),
            None => self.sign_with(None, ask, f),
        }
    }

    /// Decrypt the key for one use: with `typed` (the passphrase the arbiter just typed for
    /// this act), else the environment's (a rehearsal), else, with `ask`, asked on the
    /// terminal; `f` gets the key, which is dropped (wiped) before this returns. A key file
    /// changed since the session began (another public half) is refused.
    pub fn sign_with<T>(
        &self,
        typed: Option<&str>,
        ask: bool,
        f: impl FnOnce(&dyn Signs) -> T,
    ) -> Result<T, SignError> {
        if let Some(a) = &self.agent {
            return Ok(f(a));
        }
        let env = if typed.is_none() {
            passphrase_from_env(self.passphrase_env.as_deref())?
        } else {
            None
        };
        let given = typed.or(env.as_ref().map(|p| p.as_str()));
        if self.encrypted && given.is_none() && !ask {
            return Err(SignError::NeedsPassphrase(self.path.clone()));
        }
        let key = load_key(&self.path, given)?;
        if key.public_key().key_data() != self.public.key_data() {
            return Err(SignError::KeyChanged(self.path.clone()));
        }
        Ok(f(&key))
    }
}

/// The arbiter's key opened for one act ([`SessionKey::open_for_act`]); wiped when dropped.
pub struct ActKey(Held);

enum Held {
    Key(PrivateKey),
}

impl ActKey {
    fn signs(&self) -> &dyn Signs {
        match &self.0 {
            Held::Key(k) => k,
        }
    }
}

impl ActKey {
    /// The key's fingerprint (SHA256:…).
    pub fn fingerprint(&self) -> String {
        fingerprint(self.signs().public_key())
    }

    /// The base64 Ed25519 signature of an authorization text (see [`sign_authorization`]).
    pub fn sign_text(&self, text: &str) -> Result<String, WitnessError> {
        sign_authorization(self.signs(), text)
    }
}

impl std::fmt::Debug for ActKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ActKey(..)")
    }
}

/// The armored SSHSIG (namespace `arbiter-kit-checkpoint`) of `text` by `key`: a match
/// policy's signature.
pub fn sign_policy(key: &dyn Signs, text: &[u8]) -> Result<String, String> {
    sshsig(key, text).map_err(|e| e.to_string())
}

/// `--passphrase-env` puts the passphrase where every process of the account may read it
/// (`/proc/PID/environ` of whoever started the kit): it is for rehearsals. Refused in a match
/// whose policy exists and does not say `rehearsal` (a match made with the passphrase in the
/// environment, or with the demo key, says so in its signed policy).
pub fn check_passphrase_env(k: &KeySource, match_dir: &Path) -> Result<(), SignError> {
    if k.passphrase_env.is_none() {
        return Ok(());
    }
    let path = match_dir.join("policy.txt");
    let Ok(text) = crate::record::fsio::read_to_string(&path) else {
        return Ok(());
    };
    match crate::log::policy::Policy::parse(&text) {
        Ok(p) if p.rehearsal => Ok(()),
        _ => Err(SignError::PassphraseEnvInMatch(
            match_dir.display().to_string(),
        )),
    }
}

/// Whether `passphrase` opens the encrypted `key`.
pub fn opens(key: &PrivateKey, passphrase: &str) -> bool {
    !passphrase.is_empty() && key.decrypt(passphrase).is_ok()
}

/// The passphrase in environment variable `var`, if one is named.
pub fn passphrase_from_env(var: Option<&str>) -> Result<Option<Zeroizing<String>>, SignError> {
    match var {
        None => Ok(None),
        Some(v) => std::env::var(v)
            .map(|p| Some(Zeroizing::new(p)))
            .map_err(|_| SignError::PassphraseEnv(v.to_owned())),
    }
}

/// Sign a checkpoint over all of `entries` (N = entries.len()): writes `checkpoints/<N>.txt.sig`,
/// `checkpoints/<N>.note` (the same text as a C2SP signed note) and then
/// `checkpoints/<N>.txt` (0600, atomically, fsynced) and returns the path of the text.
///
/// The origin comes from line 0 (`match_id`), never from the folder's name, so a renamed or
/// copied match folder signs checkpoints that still verify. A checkpoint file that already
/// exists for N entries is never overwritten: if it is over the same tree it is kept as it is,
/// otherwise the signing is refused.
pub fn sign_checkpoint(
    match_dir: &Path,
    game: u32,
    entries: &[Entry],
    key: &dyn Signs,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<PathBuf, SignError> {
    sign_checkpoint_indexed(match_dir, game, entries, key, now, None)
}

/// [`sign_checkpoint`], naming the match index version in force ([`sign_tree_head_indexed`]).
pub fn sign_checkpoint_indexed(
    match_dir: &Path,
    game: u32,
    entries: &[Entry],
    key: &dyn Signs,
    now: chrono::DateTime<chrono::Utc>,
    index: Option<(u64, [u8; 32])>,
) -> Result<PathBuf, SignError> {
    let last = entries.last().ok_or(SignError::EmptyLog)?;
    // A checkpoint that would not verify is never written: the chain must hold.
    let mut prev = [0u8; 32];
    for e in entries {
        if e.prev != crate::log::hex32(&prev) {
            return Err(SignError::BrokenChain(e.seq));
        }
        prev = e.hash;
    }
    let match_id = entries
        .first()
        .and_then(|e| e.body.get("match_id"))
        .and_then(|m| m.as_str())
        .ok_or(SignError::NoLineZero)?;
    let leaves: Vec<[u8; 32]> = entries.iter().map(|e| e.hash).collect();
    let head = TreeHead {
        match_id: match_id.to_owned(),
        size: entries.len() as u64,
        root: merkle::root(&leaves),
        last_hash: last.hash,
    };
    sign_tree_head_indexed(match_dir, game, &head, key, now, index)
}

/// [`sign_checkpoint`] from a tree head computed elsewhere (a log streamed line by line, whose
/// chain the reader has checked).
pub fn sign_tree_head(
    match_dir: &Path,
    game: u32,
    head: &TreeHead,
    key: &dyn Signs,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<PathBuf, SignError> {
    sign_tree_head_indexed(match_dir, game, head, key, now, None)
}

/// [`sign_tree_head`], the checkpoint naming the match index version in force and its text's
/// SHA-256 (an older index put back is then seen against the checkpoint).
pub fn sign_tree_head_indexed(
    match_dir: &Path,
    game: u32,
    head: &TreeHead,
    key: &dyn Signs,
    now: chrono::DateTime<chrono::Utc>,
    index: Option<(u64, [u8; 32])>,
) -> Result<PathBuf, SignError> {
    sign_tree_head_swept(match_dir, game, head, key, now, index, true)
}

/// [`sign_tree_head_indexed`], the checkpoints folder swept of an interrupted signing's leftovers
/// ([`remove_checkpoint_leftovers`], a listing of the whole folder) first only when `sweep`: a
/// session that swept it at its first checkpoint, and has signed every one since, skips it.
pub fn sign_tree_head_swept(
    match_dir: &Path,
    game: u32,
    head: &TreeHead,
    key: &dyn Signs,
    now: chrono::DateTime<chrono::Utc>,
    index: Option<(u64, [u8; 32])>,
    sweep: bool,
) -> Result<PathBuf, SignError> {
    if head.size == 0 {
        return Err(SignError::EmptyLog);
    }
    let cp = Checkpoint::new(
        checkpoint::origin(&head.match_id, game),
        head.size,
        head.root,
        head.last_hash,
        now,
    )
    .with_demo(key.is_demo())
    .with_index(index);
    let path = layout::checkpoint_path(match_dir, game, cp.size);
    if sweep {
        remove_checkpoint_leftovers(&layout::checkpoints_dir(match_dir, game));
    }
    if let Ok(existing) = crate::record::fsio::read_to_string(&path) {
        return match Checkpoint::parse(&existing) {
            Ok(old) if old.root == cp.root && old.origin == cp.origin => Ok(path),
            _ => Err(SignError::CheckpointExists(path)),
        };
    }
    let text = cp.to_text();
    let sig = sshsig(key, text.as_bytes()).map_err(|e| match e {
        WitnessError::Agent(a) => SignError::Agent(a),
        WitnessError::Ssh(e) => SignError::Ssh(e),
        e => SignError::Signing(e.to_string()),
    })?;
    if let Some(dir) = path.parent() {
        ensure_dir(dir).map_err(io_err("create folder", dir))?;
    }
    let beside = |ext: &str| {
        let mut name = path
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        name.push(ext);
        path.with_file_name(name)
    };
    let sig_path = beside(".sig");
    write_atomic(&sig_path, sig.as_bytes()).map_err(io_err("write", &sig_path))?;
    // The signed note needs a note key name: origins are, unless a match id holds a '+'.
    if let Ok(note) = checkpoint_note(key, &text) {
        let note_path = path.with_extension("note");
        write_atomic(&note_path, note.as_bytes()).map_err(io_err("write", &note_path))?;
    }
    write_atomic(&path, text.as_bytes()).map_err(io_err("write", &path))?;
    Ok(path)
}

/// A signature that verified, and who made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signer {
    pub principals: Vec<String>,
    pub fingerprint: String,
}

/// Why a signature is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SigProblem {
    #[error("signature file is not an armored SSH signature: {0}")]
    Malformed(String),
    #[error("signature namespace is {0:?}, expected {NAMESPACE:?}")]
    Namespace(String),
    #[error("signed by key {0}, which is not in allowed_signers for namespace {NAMESPACE:?}")]
    UnknownKey(String),
    #[error("signature by {0} does not verify over this text")]
    Invalid(String),
}

/// Verify an armored SSHSIG over `msg` against the allowed signers (namespace
/// `arbiter-kit-checkpoint`), as `ssh-keygen -Y verify` would.
pub fn verify_signature(
    signers: &[AllowedSigner],
    msg: &[u8],
    armored: &str,
) -> Result<Signer, SigProblem> {
    let sig =
        SshSig::from_pem(armored.as_bytes()).map_err(|e| SigProblem::Malformed(e.to_string()))?;
    if sig.namespace() != NAMESPACE {
        return Err(SigProblem::Namespace(sig.namespace().to_owned()));
    }
    let fp = fingerprint(&PublicKey::from(sig.public_key().clone()));
    let allowed: Vec<&AllowedSigner> = signers
        .iter()
        .filter(|s| s.key.key_data() == sig.public_key())
        .filter(|s| {
            s.namespaces
                .as_ref()
                .is_none_or(|ns| ns.iter().any(|n| n == NAMESPACE))
        })
        .collect();
    let Some(first) = allowed.first() else {
        return Err(SigProblem::UnknownKey(fp));
    };
    first
        .key
        .verify(NAMESPACE, msg, &sig)
        .map_err(|_| SigProblem::Invalid(fp.clone()))?;
    Ok(Signer {
        principals: allowed
            .iter()
            .flat_map(|s| s.principals.iter().cloned())
            .collect(),
        fingerprint: fp,
    })
}

// ---- signed notes, countersignatures, the match index ----------------------------
//
// Pure formats live in `log::note`, `log::cosign` and `log::index`; the functions below add the
// keys. None of them touches a file.

use crate::log::checkpoint::CheckpointError;
use crate::log::index::MatchIndex;
use crate::log::note::{NoteError, SignedNote, VerifierKey};

/// Errors of the signed-note, countersignature and index signing functions.
#[derive(Debug, thiserror::Error)]
pub enum WitnessError {
    #[error("signed note: {0}")]
    Note(#[from] NoteError),
    #[error("checkpoint: {0}")]
    Checkpoint(#[from] CheckpointError),
    #[error("a signed note needs an ssh-ed25519 key; this key is {0}")]
    NotEd25519(String),
    #[error("the key is still encrypted: decrypt it (load_key with its passphrase) first")]
    Encrypted,
    #[error("key operation failed: {0}")]
    Ssh(#[from] ssh_key::Error),
    #[error(transparent)]
    Agent(#[from] crate::record::agent::AgentError),
}

/// The raw Ed25519 public key of an SSH key (`ssh-ed25519` only).
pub fn ed25519_public(key: &ssh_key::PublicKey) -> Result<[u8; 32], WitnessError> {
    key.key_data()
        .ed25519()
        .map(|k| k.0)
        .ok_or_else(|| WitnessError::NotEd25519(key.algorithm().to_string()))
}

/// The C2SP verifier key (`<name>+<hex key ID>+<base64(0x01 || key)>`) of the arbiter's SSH key
/// for notes signed under `name` (the checkpoint's origin): the string a camp pins.
pub fn note_verifier_key(
    name: &str,
    key: &ssh_key::PublicKey,
) -> Result<VerifierKey, WitnessError> {
    Ok(VerifierKey::ed25519(name, ed25519_public(key)?)?)
}

/// Sign `text` as a C2SP signed note under key name `name` with an (unencrypted) Ed25519 key:
/// returns `text`, a blank line and `— <name> <base64(key ID || Ed25519 signature)>`.
pub fn sign_note(key: &dyn Signs, name: &str, text: &str) -> Result<String, WitnessError> {
    crate::log::note::check_text(text)?;
    if key.is_encrypted() {
        return Err(WitnessError::Encrypted);
    }
    let vkey = VerifierKey::ed25519(name, ed25519_public(key.public_key())?)?;
    let sig = key.sign_ed25519(text.as_bytes())?;
    let note = SignedNote {
        text: text.to_owned(),
        signatures: vec![crate::log::note::NoteSignature {
            name: vkey.name,
            key_id: vkey.key_id,
            signature: sig.to_vec(),
        }],
    };
    Ok(note.to_text())
}

/// The arbiter's checkpoint as a C2SP tlog-checkpoint signed note: the checkpoint text exactly
/// (it is a tlog checkpoint body with `chain` and `time` extension lines), signed under the
/// checkpoint's origin as key name. The text must be a valid kit checkpoint.
pub fn checkpoint_note(key: &dyn Signs, checkpoint_text: &str) -> Result<String, WitnessError> {
    let cp = Checkpoint::parse(checkpoint_text)?;
    sign_note(key, &cp.origin, checkpoint_text)
}

/// Why a signed note is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoteProblem {
    #[error("not a signed note: {0}")]
    Malformed(#[from] NoteError),
    #[error("the note carries no signature by key {0}")]
    Unsigned(String),
    #[error("the signature by key {0} does not verify over the note text")]
    Invalid(String),
    #[error("the note text is not a kit checkpoint: {0}")]
    Checkpoint(#[from] CheckpointError),
}

/// Open a signed note with one pinned verifier key, as Go's `note.Open` does: signatures by
/// other keys are ignored (they stay in the result, e.g. witnesses'), the first signature by
/// this key (name and key ID) must verify, and there must be one.
pub fn verify_note(msg: &[u8], key: &VerifierKey) -> Result<SignedNote, NoteProblem> {
    let note = SignedNote::parse(msg)?;
    let Some(sig) = note.signatures_by(key).next() else {
        return Err(NoteProblem::Unsigned(key.to_string()));
    };
    let invalid = || NoteProblem::Invalid(key.to_string());
    let bytes: [u8; 64] = sig.signature.as_slice().try_into().map_err(|_| invalid())?;
    let vk = ed25519_dalek::VerifyingKey::from_bytes(&key.public).map_err(|_| invalid())?;
    vk.verify_strict(
        note.text.as_bytes(),
        &ed25519_dalek::Signature::from_bytes(&bytes),
    )
    .map_err(|_| invalid())?;
    Ok(note)
}

/// Check a checkpoint note against the arbiter's SSH public key: the note text must be a kit
/// checkpoint, signed under its own origin by that key.
pub fn verify_checkpoint_note(
    msg: &[u8],
    key: &ssh_key::PublicKey,
) -> Result<(Checkpoint, SignedNote), NoteProblem> {
    let note = SignedNote::parse(msg)?;
    let cp = Checkpoint::parse(&note.text)?;
    let public = ed25519_public(key).map_err(|_| NoteProblem::Unsigned(fingerprint(key)))?;
    let vkey = VerifierKey::ed25519(&cp.origin, public)?;
    let note = verify_note(msg, &vkey)?;
    Ok((cp, note))
}

/// A camp's countersignature of a checkpoint text: an armored SSHSIG (namespace
/// `arbiter-kit-countersign@v1`, SHA-512), the same bytes `ssh-keygen -Y sign -n
/// arbiter-kit-countersign@v1` writes. The text must be a valid kit checkpoint.
pub fn countersign(key: &dyn Signs, checkpoint_text: &str) -> Result<String, WitnessError> {
    Checkpoint::parse(checkpoint_text)?;
    sshsig_in(
        key,
        crate::log::cosign::NAMESPACE,
        checkpoint_text.as_bytes(),
    )
}

/// A camp's countersignature (namespace `arbiter-kit-countersign@v1`, SHA-512) of `text` by
/// `key`, whatever the text (the match index): byte for byte what the key file signs.
pub fn countersign_text(key: &dyn Signs, text: &str) -> Result<String, WitnessError> {
    sshsig_in(key, crate::log::cosign::NAMESPACE, text.as_bytes())
}

/// Why a countersignature is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CosignProblem {
    #[error("countersignature is not an armored SSH signature: {0}")]
    Malformed(String),
    #[error(
        "countersignature namespace is {0:?}, expected \"arbiter-kit-countersign@v1\" (ssh-keygen -Y sign -n arbiter-kit-countersign@v1)"
    )]
    Namespace(String),
    #[error("countersigned by key {found}, not by the declared key {declared}")]
    WrongKey { declared: String, found: String },
    #[error("countersignature by {0} does not verify over this checkpoint text")]
    Invalid(String),
}

/// Check a countersignature over `checkpoint_text` against the key the camp declared: the
/// namespace is `arbiter-kit-countersign@v1` and the signing key is exactly the declared one
/// (Ed25519, ECDSA P-256, or their `sk-` hardware forms). Returns the key's fingerprint.
pub fn verify_countersignature(
    declared: &ssh_key::PublicKey,
    checkpoint_text: &[u8],
    armored: &str,
) -> Result<String, CosignProblem> {
    let sig = SshSig::from_pem(armored.as_bytes())
        .map_err(|e| CosignProblem::Malformed(e.to_string()))?;
    if sig.namespace() != crate::log::cosign::NAMESPACE {
        return Err(CosignProblem::Namespace(sig.namespace().to_owned()));
    }
    let found = fingerprint(&PublicKey::from(sig.public_key().clone()));
    if sig.public_key() != declared.key_data() {
        return Err(CosignProblem::WrongKey {
            declared: fingerprint(declared),
            found,
        });
    }
    declared
        .verify(crate::log::cosign::NAMESPACE, checkpoint_text, &sig)
        .map_err(|_| CosignProblem::Invalid(found.clone()))?;
    Ok(found)
}

/// The arbiter's signature of the match index text: an armored SSHSIG in the checkpoint
/// namespace, checked like a checkpoint's with [`verify_signature`] (an index's first line,
/// `arbiter-kit match index v1`, can never be a checkpoint's origin line `arbiter-kit/…`).
pub fn sign_index(key: &dyn Signs, index: &MatchIndex) -> Result<String, WitnessError> {
    sshsig(key, index.to_text().as_bytes())
}

// ---- the session binding (seal) and signed authorizations ------------------------

use crate::log::seal::{self, Seal};

/// Sign a seal ([`crate::log::seal`]) as a C2SP signed note under `<origin>/seal`.
pub fn sign_seal(key: &dyn Signs, s: &Seal) -> Result<String, WitnessError> {
    sign_note(key, &seal::seal_key_name(&s.origin), &seal::seal_text(s))
}

/// Check a seal note against the arbiter's public key; its origin must be `origin`.
pub fn verify_seal(msg: &[u8], key: &ssh_key::PublicKey, origin: &str) -> Result<Seal, String> {
    let public = ed25519_public(key).map_err(|e| e.to_string())?;
    let vkey =
        VerifierKey::ed25519(&seal::seal_key_name(origin), public).map_err(|e| e.to_string())?;
    let note = verify_note(msg, &vkey).map_err(|e| e.to_string())?;
    let s = seal::parse_seal(&note.text)?;
    if s.origin != origin {
        return Err(format!("the seal is for {:?}, not {origin:?}", s.origin));
    }
    Ok(s)
}

/// The base64 Ed25519 signature of an authorization text by an (unencrypted) key.
pub fn sign_authorization(key: &dyn Signs, text: &str) -> Result<String, WitnessError> {
    use base64::Engine as _;
    let sig = key.sign_ed25519(text.as_bytes())?;
    Ok(base64::engine::general_purpose::STANDARD.encode(sig))
}

/// Whether `sig` (base64) is the Ed25519 signature of `text` by `key`.
pub fn verify_authorization(key: &ssh_key::PublicKey, text: &str, sig: &str) -> bool {
    use base64::Engine as _;
    let Ok(public) = ed25519_public(key) else {
        return false;
    };
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(sig) else {
        return false;
    };
    let Ok(bytes) = <[u8; 64]>::try_from(bytes.as_slice()) else {
        return false;
    };
    let Ok(vk) = ed25519_dalek::VerifyingKey::from_bytes(&public) else {
        return false;
    };
    vk.verify_strict(
        text.as_bytes(),
        &ed25519_dalek::Signature::from_bytes(&bytes),
    )
    .is_ok()
}
