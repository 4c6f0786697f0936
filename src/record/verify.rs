//! Committee verification (SHELL around pure checks): `arbiter verify` and `arbiter prove`.
//!
//! The work is split so that the expensive, log-independent part (reading checkpoint files and
//! verifying their signatures, [`prepare_checkpoints`]) is done once, and the per-log part
//! ([`verify_lines`]) runs over already scanned lines; the tamper tests use exactly these.
use crate::error::{Exit, FileError};
use crate::log::checkpoint::{self, Checkpoint, CheckpointError};
use crate::log::proof::InclusionProof;
use crate::log::scan::{self, Fault, Problem, ScannedLine, Witness};
use crate::log::stream::{FaultFinder, ScanLines};
use crate::log::{Entry, RECOVERY_KIND, fast, hex32, merkle};
use crate::record::layout;
use crate::record::sign::{
    AllowedSigner, SigProblem, Signer, parse_allowed_signers, verify_signature,
};
use serde::Serialize;
use std::fs;
use std::path::Path;

/// Overall verdict of one game, in increasing severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Status {
    Ok,
    Recovered,
    Unwitnessed,
    UnsignedTail,
    Unauthorized,
    BadActor,
    Unreadable,
    BadReplay,
    BadCheckpoint,
    CampsNotProven,
    CampsDropped,
    Downgraded,
    ForeignGame,
    BadBinding,
    RolledBack,
    Truncated,
    BadLine,
}

impl Status {
    /// How `arbiter verify` exits on this verdict.
    pub fn exit(self) -> Exit {
        match self {
            Status::Ok => Exit::Ok,
            Status::Recovered => Exit::Recovered,
            Status::Unwitnessed => Exit::Unwitnessed,
            Status::BadBinding => Exit::BadBinding,
            Status::RolledBack => Exit::RolledBack,
            Status::UnsignedTail => Exit::UnsignedTail,
            Status::Unauthorized => Exit::Unauthorized,
            Status::BadReplay => Exit::BadReplay,
            Status::BadActor => Exit::BadActor,
            Status::CampsNotProven => Exit::CampsNotProven,
            Status::CampsDropped => Exit::CampsDropped,
            Status::Downgraded => Exit::Downgraded,
            Status::ForeignGame => Exit::ForeignGame,
            Status::Unreadable => Exit::Unreadable,
            Status::BadCheckpoint => Exit::BadCheckpoint,
            Status::Truncated => Exit::Truncated,
            Status::BadLine => Exit::BadLine,
        }
    }
    pub fn exit_code(self) -> u8 {
        self.exit().code()
    }
    pub fn label(self) -> &'static str {
        match self {
            Status::Ok => "OK",
            Status::Recovered => "OK WITH RECOVERY ENTRIES",
            Status::Unwitnessed => "NOT COUNTERSIGNED",
            Status::BadBinding => "BAD BINDING",
            Status::RolledBack => "ROLLED BACK",
            Status::UnsignedTail => "UNSIGNED TAIL",
            Status::Unauthorized => "UNAUTHORIZED",
            Status::BadReplay => "BAD REPLAY",
            Status::BadActor => "ACTOR NOT ALLOWED",
            Status::CampsNotProven => "CAMP KEYS NOT PROVEN",
            Status::CampsDropped => "CAMPS DROPPED",
            Status::Downgraded => "DOWNGRADED",
            Status::ForeignGame => "GAME OF ANOTHER MATCH",
            Status::Unreadable => "UNREADABLE",
            Status::BadCheckpoint => "BAD CHECKPOINT",
            Status::Truncated => "TRUNCATED",
            Status::BadLine => "BAD LINE",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BadLine {
    pub seq: u64,
    pub offset: u64,
    pub length: u64,
    pub problem: String,
    pub expected: Option<String>,
    pub found: String,
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Truncation {
    /// Entries covered by the largest signed checkpoint.
    pub checkpoint: u64,
    /// Complete entries in the file.
    pub file_entries: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnsignedTail {
    pub first_seq: u64,
    pub entries: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckpointReport {
    pub file: String,
    pub entries: Option<u64>,
    pub ok: bool,
    pub signer: Option<String>,
    pub problem: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecoveryReport {
    pub seq: u64,
    pub body: serde_json::Value,
}

/// The verdict on one game log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameVerification {
    pub game: u32,
    pub status: Status,
    pub exit_code: u8,
    pub log: String,
    /// Lines in the file (complete or not).
    pub lines: u64,
    /// Entries covered by the largest valid signed checkpoint.
    pub signed_entries: u64,
    /// Hash of the last line when the chain is intact.
    pub chain_head: Option<String>,
    pub bad_line: Option<BadLine>,
    pub truncated: Option<Truncation>,
    pub unsigned_tail: Option<UnsignedTail>,
    pub checkpoints: Vec<CheckpointReport>,
    pub recoveries: Vec<RecoveryReport>,
    pub problems: Vec<String>,
}

impl GameVerification {
    pub fn unreadable(game: u32, log: &Path, problem: String) -> GameVerification {
        GameVerification {
            game,
            status: Status::Unreadable,
            exit_code: Status::Unreadable.exit_code(),
            log: log.display().to_string(),
            lines: 0,
            signed_entries: 0,
            chain_head: None,
            bad_line: None,
            truncated: None,
            unsigned_tail: None,
            checkpoints: Vec::new(),
            recoveries: Vec::new(),
            problems: vec![problem],
        }
    }
}

/// A checkpoint file pair as read from `checkpoints/`.
#[derive(Debug, Clone)]
pub struct CheckpointFile {
    /// File name of the text, e.g. `312.txt`.
    pub name: String,
    pub text: String,
    /// Content of `<name>.sig`, if present.
    pub sig: Option<String>,
}

/// A checkpoint with its signature checked (independent of the log).
#[derive(Debug, Clone)]
pub struct PreparedCheckpoint {
    pub file: CheckpointFile,
    pub parsed: Result<Checkpoint, CheckpointError>,
    pub signer: Result<Signer, CheckpointProblem>,
}

/// Why a checkpoint is not trusted for a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointProblem {
    #[error(transparent)]
    Text(#[from] CheckpointError),
    #[error("no signature file {0}.sig")]
    NoSignature(String),
    #[error(transparent)]
    Signature(#[from] SigProblem),
    #[error("file name {name} does not match its entry count {size}")]
    FileName { name: String, size: u64 },
    #[error("cannot be matched to the game: line 0 does not bind an identity")]
    NoIdentity,
    #[error("origin {found:?} is not this game's {want:?}")]
    Origin { found: String, want: String },
    #[error("signing key {fingerprint} is not listed for principal {principal:?}")]
    Principal {
        fingerprint: String,
        principal: String,
    },
    #[error("signed by {signer}, but line 0 names the arbiter key {named}")]
    OtherKey { signer: String, named: String },
}

/// Parse checkpoint texts and verify their signatures against the allowed signers.
pub fn prepare_checkpoints(
    files: Vec<CheckpointFile>,
    signers: &[AllowedSigner],
) -> Vec<PreparedCheckpoint> {
    map_on_cores(files, |file| {
        let parsed = Checkpoint::parse(&file.text);
        let signer = match &file.sig {
            None => Err(CheckpointProblem::NoSignature(file.name.clone())),
            Some(sig) => verify_signature(signers, file.text.as_bytes(), sig)
                .map_err(CheckpointProblem::from),
        };
        PreparedCheckpoint {
            file,
            parsed,
            signer,
        }
    })
}

/// Below this many items [`map_on_cores`] maps on the calling thread.
const ON_CORES_MIN: usize = 64;

/// `items` mapped by `f`, in order, on the machine's cores (at most 8 threads) when there are
/// many: a game's checkpoints are independent signatures, and thousands of them (a checkpoint at
/// every stop, take-back and resume) are checked side by side.
pub fn map_on_cores<T: Send, U: Send>(items: Vec<T>, f: impl Fn(T) -> U + Sync) -> Vec<U> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    if cores < 2 || items.len() < ON_CORES_MIN {
        return items.into_iter().map(f).collect();
    }
    let per = items.len().div_ceil(cores);
    let mut chunks: Vec<Vec<T>> = Vec::with_capacity(cores);
    let mut items = items.into_iter();
    loop {
        let chunk: Vec<T> = items.by_ref().take(per).collect();
        if chunk.is_empty() {
            break;
        }
        chunks.push(chunk);
    }
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|c| s.spawn(move || c.into_iter().map(f).collect::<Vec<U>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// What line 0 binds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub match_id: String,
    pub principal: String,
    pub fingerprint: String,
}

/// Why line 0 does not bind an identity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdentityError {
    #[error("line 0 is not a valid entry")]
    NoEntry,
    #[error("line 0 has kind {0:?}, expected \"game_opened\"")]
    Kind(String),
    #[error("line 0 body lacks {0}")]
    Lacks(&'static str),
    #[error("line 0 body.game is not {0} (the folder's game number)")]
    Game(u32),
}

/// Read the identity bound by line 0 (`game_opened`).
pub fn identity(lines: &[ScannedLine], game: u32) -> Result<Identity, IdentityError> {
    let e = lines
        .first()
        .filter(|l| l.placed(0).is_some())
        .and_then(|l| l.entry.as_ref().ok())
        .ok_or(IdentityError::NoEntry)?;
    identity_of(e, game)
}

/// The identity bound by `e`, a valid entry placed at line 0.
fn identity_of(e: &Entry, game: u32) -> Result<Identity, IdentityError> {
    if e.kind != "game_opened" {
        return Err(IdentityError::Kind(e.kind.clone()));
    }
    let s = |ptr: &str| {
        e.body
            .pointer(ptr)
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    let match_id = s("/match_id").ok_or(IdentityError::Lacks("match_id"))?;
    if e.body.get("game").and_then(|g| g.as_u64()) != Some(u64::from(game)) {
        return Err(IdentityError::Game(game));
    }
    for p in ["/profile/name", "/profile/sha256"] {
        s(p).ok_or(IdentityError::Lacks(p))?;
    }
    if !e.body.get("declarations").is_some_and(|d| d.is_object()) {
        return Err(IdentityError::Lacks("the declarations object"));
    }
    Ok(Identity {
        match_id,
        principal: s("/arbiter_key/principal")
            .ok_or(IdentityError::Lacks("arbiter_key.principal"))?,
        fingerprint: s("/arbiter_key/fingerprint")
            .ok_or(IdentityError::Lacks("arbiter_key.fingerprint"))?,
    })
}

fn checkpoint_problem(
    cp: &PreparedCheckpoint,
    ident: Option<&Identity>,
    game: u32,
) -> Result<(u64, [u8; 32]), CheckpointProblem> {
    let parsed = cp.parsed.as_ref().map_err(|e| e.clone())?;
    let signer = cp.signer.as_ref().map_err(Clone::clone)?;
    if cp.file.name != format!("{}.txt", parsed.size) {
        return Err(CheckpointProblem::FileName {
            name: cp.file.name.clone(),
            size: parsed.size,
        });
    }
    let ident = ident.ok_or(CheckpointProblem::NoIdentity)?;
    let want = checkpoint::origin(&ident.match_id, game);
    if parsed.origin != want {
        return Err(CheckpointProblem::Origin {
            found: parsed.origin.clone(),
            want,
        });
    }
    if !signer.principals.contains(&ident.principal) {
        return Err(CheckpointProblem::Principal {
            fingerprint: signer.fingerprint.clone(),
            principal: ident.principal.clone(),
        });
    }
    if signer.fingerprint != ident.fingerprint {
        return Err(CheckpointProblem::OtherKey {
            signer: signer.fingerprint.clone(),
            named: ident.fingerprint.clone(),
        });
    }
    Ok((parsed.size, parsed.chain))
}

fn empty_file() -> BadLine {
    BadLine {
        seq: 0,
        offset: 0,
        length: 0,
        problem: "the log file is empty".into(),
        expected: None,
        found: String::new(),
        note: None,
    }
}

/// Every checkpoint's report, the trusted chain heads `(N, E_{N-1})` and, for each checkpoint,
/// the index of its chain head in that list (if trusted).
type CheckpointFindings = (
    Vec<CheckpointReport>,
    Vec<(u64, [u8; 32])>,
    Vec<Option<usize>>,
);

fn checkpoint_findings(
    cps: &[PreparedCheckpoint],
    ident: Option<&Identity>,
    game: u32,
) -> CheckpointFindings {
    let mut reports = Vec::with_capacity(cps.len());
    let mut anchors: Vec<(u64, [u8; 32])> = Vec::new();
    let mut anchor_of: Vec<Option<usize>> = Vec::new();
    for cp in cps {
        let r = checkpoint_problem(cp, ident, game);
        reports.push(CheckpointReport {
            file: cp.file.name.clone(),
            entries: cp.parsed.as_ref().ok().map(|c| c.size),
            ok: r.is_ok(),
            signer: cp.signer.as_ref().ok().map(|s| s.fingerprint.clone()),
            problem: r.as_ref().err().map(ToString::to_string),
        });
        anchor_of.push(r.as_ref().ok().map(|_| anchors.len()));
        if let Ok(a) = r {
            anchors.push(a);
        }
    }
    (reports, anchors, anchor_of)
}

/// What the verdict needs from the lines of a log.
struct LogFacts {
    /// Lines in the file (complete or not).
    n: u64,
    /// Length and hash of line 0.
    first: Option<(u64, [u8; 32])>,
    /// The hash of the last line.
    last: Option<[u8; 32]>,
    /// The Merkle tree hash of the first N lines, for each checkpoint size N the file reaches.
    roots: Vec<(u64, [u8; 32])>,
    recoveries: Vec<RecoveryReport>,
}

/// Every entry count a checkpoint of `cps` names (the sizes whose tree hash the verdict needs),
/// ascending, each once (none of 0: no tree head is taken before the first entry).
fn checkpoint_sizes(cps: &[PreparedCheckpoint]) -> Vec<u64> {
    let mut sizes: Vec<u64> = cps
        .iter()
        .filter_map(|c| c.parsed.as_ref().ok().map(|p| p.size))
        .filter(|&s| s > 0)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// The tree hash of the first N leaves for each of `sizes` (ascending, each once) within reach,
/// in one pass: the frontier's root is taken as the pass reaches each size, so thousands of
/// checkpoints cost O(log n) hashes each, not a pass each.
fn roots_at(leaves: impl Iterator<Item = [u8; 32]>, sizes: &[u64]) -> Vec<(u64, [u8; 32])> {
    let mut tree = merkle::RootBuilder::new();
    let mut out = Vec::new();
    let mut next = sizes.iter().peekable();
    for leaf in leaves {
        if next.peek().is_none() {
            break;
        }
        tree.push(leaf);
        if next.next_if_eq(&&tree.len()).is_some() {
            out.push((tree.len(), tree.root()));
        }
    }
    out
}

/// The tree hash at `size` among `roots` (ascending by size, as [`roots_at`] and the streamed
/// pass give them).
fn root_at(roots: &[(u64, [u8; 32])], size: u64) -> Option<[u8; 32]> {
    roots
        .binary_search_by_key(&size, |r| r.0)
        .ok()
        .and_then(|i| roots.get(i))
        .map(|r| r.1)
}

/// Verify scanned lines against prepared checkpoints. TRUNCATED wins over BAD LINE when the only
/// fault is an unfinished last line that a signed checkpoint covers (both are reported).
pub fn verify_lines(
    game: u32,
    log: &str,
    lines: &[ScannedLine],
    cps: &[PreparedCheckpoint],
) -> GameVerification {
    let mut d = Detailed::new(game, cps);
    for l in lines {
        d.push(l);
    }
    d.finish(log)
}

/// The detailed (exact) path of `verify`, fed one line at a time: the fault as
/// [`scan::first_fault`] finds it ([`FaultFinder`], one line of lookahead), line 0's identity,
/// the tree heads at the checkpoints' sizes and the recovery entries. It keeps no line past the
/// next, so a damaged log of any length is verified in bounded memory.
struct Detailed<'c> {
    game: u32,
    cps: &'c [PreparedCheckpoint],
    sizes: Vec<u64>,
    /// Known once line 0 is pushed: its identity, the checkpoints weighed against it, and the
    /// fault search anchored on the trusted ones.
    judged: Option<(
        Result<Identity, IdentityError>,
        CheckpointFindings,
        FaultFinder,
    )>,
    tree: merkle::RootBuilder,
    facts: LogFacts,
}

impl<'c> Detailed<'c> {
    fn new(game: u32, cps: &'c [PreparedCheckpoint]) -> Detailed<'c> {
        Detailed {
            game,
            cps,
            sizes: checkpoint_sizes(cps),
            judged: None,
            tree: merkle::RootBuilder::new(),
            facts: LogFacts {
                n: 0,
                first: None,
                last: None,
                roots: Vec::new(),
                recoveries: Vec::new(),
            },
        }
    }

    fn push(&mut self, l: &ScannedLine) {
        let (game, cps) = (self.game, self.cps);
        let (_, _, finder) = self.judged.get_or_insert_with(|| {
            let ident = l
                .placed(0)
                .and(l.entry.as_ref().ok())
                .ok_or(IdentityError::NoEntry)
                .and_then(|e| identity_of(e, game));
            let findings = checkpoint_findings(cps, ident.as_ref().ok(), game);
            let finder = FaultFinder::new(findings.1.clone());
            (ident, findings, finder)
        });
        finder.push(l);
        let f = &mut self.facts;
        f.n += 1;
        f.first.get_or_insert((l.len, l.hash));
        f.last = Some(l.hash);
        self.tree.push(l.hash);
        let size = self.tree.len();
        // `sizes` ascending: the next one the pass reaches is at `f.roots.len()`.
        if self.sizes.get(f.roots.len()) == Some(&size) {
            f.roots.push((size, self.tree.root()));
        }
        if let Ok(e) = &l.entry
            && e.kind == RECOVERY_KIND
        {
            f.recoveries.push(RecoveryReport {
                seq: e.seq,
                body: e.body.clone(),
            });
        }
    }

    fn finish(self, log: &str) -> GameVerification {
        let (game, cps) = (self.game, self.cps);
        let (ident, findings, fault) = match self.judged {
            Some((ident, findings, finder)) => (ident, findings, finder.finish()),
            None => (
                Err(IdentityError::NoEntry),
                checkpoint_findings(cps, None, game),
                None,
            ),
        };
        verdict(game, log, cps, ident, findings, fault, self.facts)
    }
}

/// The fast path of [`verify_log`]: a verdict only when every line is valid, terminated, in
/// place and linked, and every trusted chain head agrees with the file — exactly the cases where
/// [`scan::first_fault`] finds nothing, so the verdict equals [`verify_lines`]'s. `None`
/// otherwise.
fn verify_clean(
    game: u32,
    log: &str,
    clean: fast::CleanLog,
    cps: &[PreparedCheckpoint],
) -> Option<GameVerification> {
    let ident = identity_of(&clean.first, game);
    let findings = checkpoint_findings(cps, ident.as_ref().ok(), game);
    let n = clean.leaves.len() as u64;
    let disagrees = findings
        .1
        .iter()
        .any(|&(size, chain)| (1..=n).contains(&size) && clean.leaves[size as usize - 1] != chain);
    if disagrees {
        return None;
    }
    let facts = LogFacts {
        n,
        first: Some((clean.first.len, clean.leaves[0])),
        last: clean.leaves.last().copied(),
        roots: roots_at(clean.leaves.iter().copied(), &checkpoint_sizes(cps)),
        recoveries: clean
            .recoveries
            .into_iter()
            .map(|e| RecoveryReport {
                seq: e.seq,
                body: e.body,
            })
            .collect(),
    };
    Some(verdict(game, log, cps, ident, findings, None, facts))
}

/// [`verify_clean`] over a log streamed from its file ([`crate::record::journal::stream_clean_file`]):
/// the same verdict, from the tree heads at the checkpoints' sizes instead of every leaf.
fn verify_streamed(
    game: u32,
    log: &str,
    clean: crate::record::journal::StreamedClean,
    cps: &[PreparedCheckpoint],
) -> Option<GameVerification> {
    let ident = identity_of(&clean.first, game);
    let findings = checkpoint_findings(cps, ident.as_ref().ok(), game);
    let n = clean.entries;
    // The heads come ascending by size (the pass notes them as it reaches each).
    let chain_at = |size: u64| {
        let i = clean.heads.binary_search_by_key(&size, |h| h.0).ok()?;
        clean.heads.get(i).map(|h| h.2)
    };
    let disagrees = findings
        .1
        .iter()
        .any(|&(size, chain)| (1..=n).contains(&size) && chain_at(size) != Some(chain));
    if disagrees {
        return None;
    }
    let facts = LogFacts {
        n,
        first: Some((clean.first.len, clean.first_hash)),
        last: Some(clean.last_hash),
        roots: clean.heads.iter().map(|h| (h.0, h.1)).collect(),
        recoveries: clean
            .recoveries
            .into_iter()
            .map(|e| RecoveryReport {
                seq: e.seq,
                body: e.body,
            })
            .collect(),
    };
    Some(verdict(game, log, cps, ident, findings, None, facts))
}

/// Verify a whole log file's bytes: the fast path, and the exact path ([`scan::scan`] and
/// [`verify_lines`]) whenever the fast path finds anything at all to report, so that every
/// diagnosis is the exact path's.
pub fn verify_log(
    game: u32,
    log: &str,
    bytes: &[u8],
    cps: &[PreparedCheckpoint],
) -> GameVerification {
    fast::scan_clean(bytes)
        .and_then(|clean| verify_clean(game, log, clean, cps))
        .unwrap_or_else(|| verify_lines(game, log, &scan::scan(bytes), cps))
}

fn verdict(
    game: u32,
    log: &str,
    cps: &[PreparedCheckpoint],
    ident: Result<Identity, IdentityError>,
    (mut reports, anchors, anchor_of): CheckpointFindings,
    fault: Option<Fault>,
    facts: LogFacts,
) -> GameVerification {
    let n = facts.n;
    let max_anchor = anchors.iter().map(|a| a.0).max().unwrap_or(0);
    let mut truncated = None;
    let mut bad_line = None;
    if n == 0 {
        let signed = cps
            .iter()
            .filter(|c| c.signer.is_ok())
            .filter_map(|c| c.parsed.as_ref().ok())
            .map(|c| c.size)
            .max();
        match signed {
            Some(s) => {
                truncated = Some(Truncation {
                    checkpoint: s,
                    file_entries: 0,
                })
            }
            None => bad_line = Some(empty_file()),
        }
    } else if let Some(f) = &fault {
        let note = match f.problem {
            Problem::Hash(Witness::Checkpoint(cn)) => {
                let agreeing = anchors
                    .iter()
                    .map(|a| a.0)
                    .filter(|&s| s < cn)
                    .max()
                    .unwrap_or(0);
                Some(format!(
                    "the chain itself is consistent here, so it was rewritten: the change lies in seq {agreeing}..={}",
                    f.index
                ))
            }
            _ => None,
        };
        if f.problem == Problem::Unterminated && f.index + 1 == n && max_anchor > f.index {
            truncated = Some(Truncation {
                checkpoint: max_anchor,
                file_entries: f.index,
            });
        }
        bad_line = Some(BadLine {
            seq: f.index,
            offset: f.offset,
            length: f.len,
            problem: f.problem.to_string(),
            expected: f.expected.as_ref().map(hex32),
            found: hex32(&f.found),
            note,
        });
    } else if let Err(p) = &ident {
        bad_line = Some(BadLine {
            seq: 0,
            offset: 0,
            length: facts.first.map_or(0, |l| l.0),
            problem: p.to_string(),
            expected: None,
            found: facts.first.map(|l| hex32(&l.1)).unwrap_or_default(),
            note: None,
        });
    } else if max_anchor > n {
        truncated = Some(Truncation {
            checkpoint: max_anchor,
            file_entries: n,
        });
    }
    let intact = bad_line.is_none() && truncated.is_none();
    let chain_head = if intact {
        facts.last.as_ref().map(hex32)
    } else {
        None
    };
    let mut signed = 0;
    if intact && anchors.iter().any(|a| a.0 <= n) {
        for (i, cp) in cps.iter().enumerate() {
            let (Some(a), Ok(parsed)) = (anchor_of[i], &cp.parsed) else {
                continue;
            };
            let size = anchors[a].0;
            if size > n {
                continue;
            }
            let root = root_at(&facts.roots, size);
            if root == Some(parsed.root) {
                signed = signed.max(size);
            } else {
                reports[i].ok = false;
                reports[i].problem =
                    Some("Merkle tree hash differs from the one computed from the file".into());
            }
        }
    }
    let unsigned_tail = (intact && truncated.is_none() && signed < n).then_some(UnsignedTail {
        first_seq: signed,
        entries: n - signed,
    });
    let recoveries = facts.recoveries;
    let status = if truncated.is_some() {
        Status::Truncated
    } else if bad_line.is_some() {
        Status::BadLine
    } else if reports.iter().any(|r| !r.ok) {
        Status::BadCheckpoint
    } else if unsigned_tail.is_some() {
        Status::UnsignedTail
    } else if !recoveries.is_empty() {
        Status::Recovered
    } else {
        Status::Ok
    };
    GameVerification {
        game,
        status,
        exit_code: status.exit_code(),
        log: log.to_owned(),
        lines: n,
        signed_entries: signed,
        chain_head,
        bad_line,
        truncated,
        unsigned_tail,
        checkpoints: reports,
        recoveries,
        problems: Vec::new(),
    }
}

/// Verify a log given entirely in memory.
pub fn verify_bytes(
    game: u32,
    log: &[u8],
    files: Vec<CheckpointFile>,
    allowed_signers: &str,
) -> GameVerification {
    let (signers, problems) = parse_allowed_signers(allowed_signers);
    let cps = prepare_checkpoints(files, &signers);
    let mut v = verify_log(game, "<memory>", log, &cps);
    v.problems.extend(problems);
    v
}

/// Read the checkpoint files of a game's `checkpoints/` folder (none if it does not exist).
pub fn read_checkpoint_files(dir: &Path) -> Result<Vec<CheckpointFile>, FileError> {
    let mut out = Vec::new();
    let items = match fs::read_dir(dir) {
        Ok(i) => i,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(FileError::of("list", dir)(e)),
    };
    for item in items {
        let item = item.map_err(FileError::of("list", dir))?;
        let name = item.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".txt") {
            continue;
        }
        let path = item.path();
        let as_text = |p: &Path| {
            crate::record::fsio::read_match_small(p).and_then(|b| {
                String::from_utf8(b).map_err(|_| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("{}: not UTF-8 text", p.display()),
                    )
                })
            })
        };
        let text = as_text(&path).map_err(FileError::of("read", &path))?;
        let sig_path = dir.join(format!("{name}.sig"));
        let sig = match as_text(&sig_path) {
            Ok(s) => Some(s),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(FileError::of("read", &sig_path)(e)),
        };
        out.push(CheckpointFile { name, text, sig });
    }
    out.sort_by_key(|f| {
        (
            f.name
                .trim_end_matches(".txt")
                .parse::<u64>()
                .unwrap_or(u64::MAX),
            f.name.clone(),
        )
    });
    Ok(out)
}

/// The match's allowed_signers text.
pub fn read_allowed_signers(match_dir: &Path) -> Result<String, FileError> {
    let path = layout::allowed_signers(match_dir);
    crate::record::fsio::read_to_string(&path).map_err(FileError::of("read", &path))
}

fn read_signers(match_dir: &Path) -> Result<(Vec<AllowedSigner>, Vec<String>), FileError> {
    Ok(parse_allowed_signers(&read_allowed_signers(match_dir)?))
}

/// Verify one game of a match folder: the fast path streams the log without keeping it or its
/// leaf hashes ([`crate::record::journal::stream_clean_file`]); whenever it finds anything to report, the
/// whole file is read and verified on the exact path ([`verify_lines`]), as [`verify_log`] does.
pub fn verify_game(match_dir: &Path, game: u32) -> GameVerification {
    verify_game_trusting(match_dir, game, None)
}

/// [`verify_game`], with the signatures checked against `trusted` (the text of an
/// allowed-signers file obtained out of band) instead of the folder's `allowed_signers`.
pub fn verify_game_trusting(
    match_dir: &Path,
    game: u32,
    trusted: Option<&str>,
) -> GameVerification {
    verify_game_each(match_dir, game, trusted, &[], &|_| false, |_| {}).0
}

/// [`verify_game_trusting`], in the same one pass over the log handing every entry in order to
/// `each` (its seq, kind and actor; the parsed entry where `wants(kind)` asks for it: see
/// [`crate::record::journal::stream_clean_file_each`]) and noting the tree heads at `sizes` besides the
/// checkpoints' own: `Some((entries, heads))` when the log streamed clean and the verdict came
/// from that pass. `None` when it went down the exact path: then what `each` gathered is to be
/// thrown away (the caller reads the log its own way for that rare case).
pub fn verify_game_each(
    match_dir: &Path,
    game: u32,
    trusted: Option<&str>,
    sizes: &[u64],
    wants: &(dyn Fn(&str) -> bool + Sync),
    each: impl FnMut(&crate::record::journal::LineView<'_>),
) -> (GameVerification, Option<StreamedHeads>) {
    let path = layout::log_path(match_dir, game);
    // An unreadable log is reported first, as ever; a symlink in its place is refused by name
    // (a hostile folder cannot point the verifier at another file).
    if let Err(e) = crate::record::fsio::open_match_file(&path) {
        return (
            GameVerification::unreadable(game, &path, FileError::of("read", &path)(e).to_string()),
            None,
        );
    }
    let signers = match trusted {
        Some(t) => Ok(parse_allowed_signers(t)),
        None => read_signers(match_dir),
    };
    let (signers, mut problems) = match signers {
        Ok(s) => s,
        Err(e) => {
            return (
                GameVerification::unreadable(game, &path, e.to_string()),
                None,
            );
        }
    };
    let files = match read_checkpoint_files(&layout::checkpoints_dir(match_dir, game)) {
        Ok(f) => f,
        Err(e) => {
            return (
                GameVerification::unreadable(game, &path, e.to_string()),
                None,
            );
        }
    };
    let cps = prepare_checkpoints(files, &signers);
    let log = path.display().to_string();
    let mut all_sizes = checkpoint_sizes(&cps);
    all_sizes.extend_from_slice(sizes);
    let clean = crate::record::journal::stream_clean_file_each(&path, &all_sizes, wants, each);
    let heads = clean.as_ref().map(|c| StreamedHeads {
        entries: c.entries,
        heads: c.heads.clone(),
    });
    let (mut v, heads) = match clean.and_then(|c| verify_streamed(game, &log, c, &cps)) {
        Some(v) => (v, heads),
        None => match verify_file_detailed(game, &log, &path, &cps) {
            Ok(v) => (v, None),
            Err(e) => return (GameVerification::unreadable(game, &path, e), None),
        },
    };
    v.problems.append(&mut problems);
    (v, heads)
}

/// What the one pass of [`verify_game_each`] found of a clean log beyond the verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamedHeads {
    /// Entries in the log.
    pub entries: u64,
    /// `(size, tree hash of the first size entries, E_{size-1})` for each size asked for (and
    /// each checkpoint's) that the log reaches, ascending.
    pub heads: Vec<(u64, [u8; 32], [u8; 32])>,
}

/// The verdict on the log at `path` against checkpoints already read: the fast path, else the
/// whole file on the exact path. `Err` when the log cannot be read.
fn verify_prepared(
    game: u32,
    path: &Path,
    cps: &[PreparedCheckpoint],
) -> Result<GameVerification, String> {
    let log = path.display().to_string();
    if let Some(v) = crate::record::journal::stream_clean_file(path, &checkpoint_sizes(cps))
        .and_then(|c| verify_streamed(game, &log, c, cps))
    {
        return Ok(v);
    }
    verify_file_detailed(game, &log, path, cps)
}

/// The exact path over the log file, read one line at a time ([`ScanLines`]) and verified as
/// the lines go by ([`Detailed`]): neither the file nor its lines are held, and a line past the
/// log's line bound ends the read, so memory stays bounded whatever the file holds (a
/// sparse file of 20 GB, zeros, lines of 15 MiB, a damaged log of 1,000,000 entries).
fn verify_file_detailed(
    game: u32,
    log: &str,
    path: &Path,
    cps: &[PreparedCheckpoint],
) -> Result<GameVerification, String> {
    let failed = |e| FileError::of("read", path)(e).to_string();
    let file = crate::record::fsio::open_regular(path).map_err(failed)?;
    let mut d = Detailed::new(game, cps);
    for line in ScanLines::new(file, crate::record::journal::MAX_LINE_BYTES) {
        d.push(&line.map_err(failed)?);
    }
    Ok(d.finish(log))
}

/// The worst verdict over several games (UNREADABLE if there are none).
pub fn worst(results: &[GameVerification]) -> Status {
    results
        .iter()
        .map(|r| r.status)
        .max()
        .unwrap_or(Status::Unreadable)
}

/// Human-readable report of one game.
pub fn render(v: &GameVerification) -> String {
    let mut out = format!("game {}: {}", v.game, v.status.label());
    match (&v.bad_line, &v.truncated, &v.unsigned_tail) {
        (Some(b), _, _) => {
            out.push_str(&format!(" at line seq {} (byte offset {}, {} bytes): {}", b.seq, b.offset, b.length, b.problem));
            if let Some(e) = &b.expected {
                out.push_str(&format!("\n  expected hash {e}\n  found    hash {}", b.found));
            }
            if let Some(n) = &b.note {
                out.push_str(&format!("\n  {n}"));
            }
        }
        (_, Some(t), _) => out.push_str(&format!(
            ": signed checkpoint covers {} entries but {} holds only {}",
            t.checkpoint, v.log, t.file_entries
        )),
        (_, _, Some(u)) => out.push_str(&format!(
            ": entries {}..{} ({}) come after the last signed checkpoint ({} entries) and are NOT verified",
            u.first_seq,
            u.first_seq + u.entries - 1,
            u.entries,
            v.signed_entries
        )),
        _ if v.status != Status::Unreadable => {
            out.push_str(&format!(" ({} entries, {} covered by signed checkpoints)", v.lines, v.signed_entries))
        }
        _ => {}
    }
    if let Some(h) = &v.chain_head {
        out.push_str(&format!("\n  chain head {h}"));
    }
    for c in &v.checkpoints {
        match &c.problem {
            None => out.push_str(&format!(
                "\n  checkpoint {}: signature ok ({})",
                c.file,
                c.signer.as_deref().unwrap_or("?")
            )),
            Some(p) => out.push_str(&format!("\n  checkpoint {}: BAD: {p}", c.file)),
        }
    }
    for r in &v.recoveries {
        out.push_str(&format!("\n  recovery entry seq {}: {}", r.seq, r.body));
    }
    for p in &v.problems {
        out.push_str(&format!("\n  {p}"));
    }
    out
}

/// The verdict on an inclusion proof.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProofVerification {
    pub ok: bool,
    pub exit_code: u8,
    pub origin: Option<String>,
    pub seq: Option<u64>,
    pub tree_size: Option<u64>,
    pub signer: Option<String>,
    pub problem: Option<String>,
}

/// Check a proof file's content against allowed_signers text.
pub fn verify_proof(proof_json: &[u8], allowed_signers: &str) -> ProofVerification {
    let bad = |problem: String, p: Option<&InclusionProof>| ProofVerification {
        ok: false,
        exit_code: Exit::BadProof.code(),
        origin: p.map(|p| p.origin.clone()),
        seq: p.map(|p| p.leaf_index),
        tree_size: p.map(|p| p.tree_size),
        signer: None,
        problem: Some(problem),
    };
    let p = match InclusionProof::from_json(proof_json) {
        Ok(p) => p,
        Err(e) => return bad(e.to_string(), None),
    };
    if let Err(e) = p.check() {
        return bad(e.to_string(), Some(&p));
    }
    let (signers, _) = parse_allowed_signers(allowed_signers);
    let signer = match verify_signature(&signers, p.checkpoint.as_bytes(), &p.signature) {
        Ok(s) => s,
        Err(e) => return bad(format!("checkpoint signature: {e}"), Some(&p)),
    };
    if !signer.principals.contains(&p.principal) {
        return bad(
            format!(
                "signing key {} is not listed for principal {:?}",
                signer.fingerprint, p.principal
            ),
            Some(&p),
        );
    }
    ProofVerification {
        ok: true,
        exit_code: Exit::Ok.code(),
        origin: Some(p.origin.clone()),
        seq: Some(p.leaf_index),
        tree_size: Some(p.tree_size),
        signer: Some(signer.fingerprint),
        problem: None,
    }
}

/// Errors of `prove`, with their exit codes.
#[derive(Debug, thiserror::Error)]
pub enum ProveError {
    #[error(transparent)]
    Unreadable(#[from] FileError),
    #[error(transparent)]
    Identity(#[from] IdentityError),
    #[error(transparent)]
    NotUtf8(#[from] std::str::Utf8Error),
    #[error("game {game} does not verify ({status}); refusing to prove from it")]
    Unverified { game: u32, status: &'static str },
    #[error(
        "no valid signed checkpoint of game {game} covers seq {seq} (sign one first: arbiter checkpoint)"
    )]
    NotCovered { game: u32, seq: u64 },
}

impl ProveError {
    /// How `arbiter prove` exits on this error.
    pub fn exit(&self) -> Exit {
        match self {
            ProveError::Unreadable(_) | ProveError::Identity(_) | ProveError::NotUtf8(_) => {
                Exit::Unreadable
            }
            ProveError::Unverified { .. } => Exit::BadLine,
            ProveError::NotCovered { .. } => Exit::NotCovered,
        }
    }
}

/// Build the inclusion proof of entry `seq` against the largest valid signed checkpoint. The log
/// is verified as `verify` does (streamed when clean), then read once more line by line for the
/// audit path: memory stays O(log n) hashes, whatever the log's size.
pub fn prove(match_dir: &Path, game: u32, seq: u64) -> Result<InclusionProof, ProveError> {
    let path = layout::log_path(match_dir, game);
    drop(crate::record::fsio::open_regular(&path).map_err(FileError::of("read", &path))?);
    let (signers, _) = read_signers(match_dir)?;
    let files = read_checkpoint_files(&layout::checkpoints_dir(match_dir, game))?;
    let cps = prepare_checkpoints(files, &signers);
    let v = verify_prepared(game, &path, &cps).map_err(|e| {
        FileError::of("read", &path)(std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    })?;
    if matches!(v.status, Status::BadLine | Status::Truncated) {
        return Err(ProveError::Unverified {
            game,
            status: v.status.label(),
        });
    }
    let first = crate::record::journal::first_entry(&path).map_err(|_| IdentityError::NoEntry)?;
    let ident = identity_of(&first, game)?;
    let best = cps
        .iter()
        .zip(&v.checkpoints)
        .filter(|(_, r)| r.ok)
        .filter_map(|(cp, _)| Some((cp, cp.parsed.as_ref().ok()?)))
        .filter(|(_, p)| p.size > seq && p.size <= v.signed_entries)
        .max_by_key(|(_, p)| p.size)
        .ok_or(ProveError::NotCovered { game, seq })?;
    let (cp, parsed) = best;
    // The audit path's nodes are the tree hashes of disjoint ranges of leaves: one pass fills them.
    let mut ranges = Vec::new();
    audit_ranges(seq, 0, parsed.size, &mut ranges);
    let mut roots: Vec<merkle::RootBuilder> = ranges.iter().map(|_| Default::default()).collect();
    let mut entry = None;
    let mut read = 0u64;
    crate::record::journal::for_each_entry(&path, |e| {
        if let Some(k) = ranges
            .iter()
            .position(|&(lo, hi)| (lo..hi).contains(&e.seq))
        {
            roots[k].push(e.hash);
        }
        if e.seq == seq {
            entry = Some((e.offset, e.len));
        }
        read += 1;
        read < parsed.size
    })
    .map_err(|e| FileError::of("read", &path)(std::io::Error::other(e.to_string())))?;
    let (Some((offset, len)), true) = (entry, read == parsed.size) else {
        return Err(ProveError::NotCovered { game, seq });
    };
    let line = read_span(&path, offset, len).map_err(FileError::of("read", &path))?;
    let entry = String::from_utf8(line).map_err(|e| e.utf8_error())?;
    use base64::Engine as _;
    Ok(InclusionProof {
        format: crate::log::proof::PROOF_FORMAT.to_owned(),
        origin: parsed.origin.clone(),
        entry,
        leaf_index: seq,
        tree_size: parsed.size,
        audit_path: roots
            .iter()
            .map(|r| base64::engine::general_purpose::STANDARD.encode(r.root()))
            .collect(),
        checkpoint: cp.file.text.clone(),
        signature: cp.file.sig.clone().unwrap_or_default(),
        principal: ident.principal,
    })
}

/// The ranges `[lo, hi)` of leaves whose tree hashes make the RFC 6962 audit path of leaf `m`
/// in the tree over `[lo, hi)`, bottom-up (PATH(m, D[n]) of RFC 6962, 2.1.1).
fn audit_ranges(m: u64, lo: u64, hi: u64, out: &mut Vec<(u64, u64)>) {
    let n = hi - lo;
    if n <= 1 {
        return;
    }
    let k = 1u64 << (63 - (n - 1).leading_zeros());
    if m < lo + k {
        audit_ranges(m, lo, lo + k, out);
        out.push((lo + k, hi));
    } else {
        audit_ranges(m, lo + k, hi, out);
        out.push((lo, lo + k));
    }
}

/// `len` bytes of a file from `offset`.
fn read_span(path: &Path, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = crate::record::fsio::open_regular(path)?;
    f.seek(SeekFrom::Start(offset))?;
    let mut buf = Vec::new();
    f.take(len).read_to_end(&mut buf)?;
    Ok(buf)
}

/// The game's own re-run, for the families that have one (a werewolf table: every event from
/// the recorded inputs and the revealed seed): a log that disagrees with its rules is
/// `BAD_REPLAY` even when its chain and signatures hold.
pub fn check_rerun(match_dir: &Path, game: u32, first: &Entry, v: &mut GameVerification) {
    use crate::report::werewolf;
    if !werewolf::is_werewolf_game(first) {
        return;
    }
    // A log whose lines do not read is left to the chain's verdict.
    let Ok(entries) = crate::record::journal::read_entries(&layout::log_path(match_dir, game))
    else {
        return;
    };
    let rec = match werewolf::read(&entries) {
        Ok(r) => r,
        Err(e) => {
            v.problems.push(format!("BAD REPLAY: {e}"));
            raise(v, Status::BadReplay);
            return;
        }
    };
    let r = werewolf::rerun(&rec);
    if r.fails() {
        v.problems.push(format!("BAD REPLAY: {}", r.describe()));
        raise(v, Status::BadReplay);
    } else {
        v.problems.push(r.describe());
    }
}

/// The arbiter's acts at a werewolf table approved at the game master's screen: each
/// `approved` entry `by` `passphrase` names the arbiter key of line 0 and carries its signature
/// over the act's text (`act_authorization_text`), and its `command` is the act that follows;
/// otherwise `UNAUTHORIZED`. `public`: the arbiter key the trusted signers give, if any.
pub fn check_approvals(
    match_dir: &Path,
    game: u32,
    first: &Entry,
    public: Option<&ssh_key::PublicKey>,
    origin: &str,
    v: &mut GameVerification,
) {
    use crate::core::werewolf::{Approval, Event};
    if !crate::report::werewolf::is_werewolf_game(first) {
        return;
    }
    let Ok(entries) = crate::record::journal::read_entries(&layout::log_path(match_dir, game))
    else {
        return;
    };
    let names: Vec<String> = first
        .body
        .pointer("/table/seats")
        .and_then(|s| s.as_array())
        .map(|a| {
            a.iter()
                .map(|s| s["name"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let bad = |v: &mut GameVerification, seq: u64, why: String| {
        v.problems
            .push(format!("UNAUTHORIZED: entry #{seq} (approved): {why}"));
        raise(v, Status::Unauthorized);
    };
    let mut signed = 0usize;
    // Signature → the entry that carries it first: an approval is used once.
    let mut seen: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    for e in entries.iter().filter(|e| e.kind == "approved") {
        let Ok(Event::Approved {
            command,
            act,
            approval,
            ..
        }) = Event::from_entry(&e.kind, &e.body)
        else {
            continue; // the re-run says what does not read
        };
        use crate::core::werewolf::control_line as cl;
        let said = cl::parse(&command)
            .ok()
            .flatten()
            .and_then(|c| cl::act_of_names(&c, &names).ok());
        if said.as_ref() != Some(&act) {
            bad(
                v,
                e.seq,
                format!("its command {command:?} is not the act it approves"),
            );
            continue;
        }
        let (Approval::Passphrase {
            key,
            signed_at,
            sig,
        }
        | Approval::Agent {
            key,
            signed_at,
            sig,
        }) = approval
        else {
            continue;
        };
        let Some(k) = public else {
            v.problems.push(format!(
                "entry #{} (approved): signed by {key}, not checked: no trusted arbiter key",
                e.seq
            ));
            continue;
        };
        if let Err(why) = approval_holds(k, origin, &command, &key, &signed_at, &sig) {
            bad(v, e.seq, why);
            continue;
        }
        if let Some(first) = seen.get(&sig) {
            bad(
                v,
                e.seq,
                format!(
                    "its signature is the one entry #{first} already carries: an approval is used once (replayed)"
                ),
            );
            continue;
        }
        seen.insert(sig, e.seq);
        signed += 1;
    }
    if signed > 0 {
        v.problems.push(format!(
            "{signed} act(s) of the arbiter signed at the game master's screen: signatures hold"
        ));
    }
}

/// Whether an act's approval `by` `passphrase` holds: `key` names the arbiter key `k` and `sig`
/// is its signature over the act's text (`command` in the game `origin`, signed at
/// `signed_at`); otherwise why not. `serve` checks it as the act arrives, `verify` again.
pub fn approval_holds(
    k: &ssh_key::PublicKey,
    origin: &str,
    command: &str,
    key: &str,
    signed_at: &str,
    sig: &str,
) -> Result<(), String> {
    let fp = crate::record::sign::fingerprint(k);
    if key != fp {
        return Err(format!("names key {key}, not the arbiter key {fp}"));
    }
    let text = crate::core::werewolf::act_authorization_text(origin, command, signed_at);
    if !crate::record::sign::verify_authorization(k, &text, sig) {
        return Err(format!(
            "its signature by {fp} does not verify over the act's text"
        ));
    }
    Ok(())
}

/// Raise a game's verdict to `s` (never lower it).
pub(crate) fn raise(v: &mut GameVerification, s: Status) {
    if s > v.status {
        v.status = s;
        v.exit_code = s.exit_code();
    }
}
