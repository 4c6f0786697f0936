//! Consistency proofs between two checkpoints of a game (SHELL): `arbiter prove --from` and
//! `arbiter verify --consistency`.
use std::path::{Path, PathBuf};

use crate::log::checkpoint::Checkpoint;
use crate::log::merkle;
use crate::record::facts::*;
use crate::record::index::*;
use crate::record::layout;
use crate::record::sign::{self};

/// Why no consistency proof can be given.
#[derive(Debug, thiserror::Error)]
pub enum ConsistencyError {
    #[error("cannot read {path}: {problem}")]
    Read { path: PathBuf, problem: String },
    #[error("game {game} has no checkpoint over {size} entries (checkpoints/{size}.txt)")]
    NoCheckpoint { game: u32, size: u64 },
    #[error("the log holds {have} entries, fewer than the latest checkpoint's {want}")]
    Short { have: usize, want: u64 },
    #[error("checkpoint {0} does not come before the latest checkpoint")]
    NotOlder(u64),
}

pub(crate) fn read_pair(
    match_dir: &Path,
    game: u32,
    size: u64,
) -> Result<(Checkpoint, String, String), ConsistencyError> {
    let p = layout::checkpoint_path(match_dir, game, size);
    let text = crate::record::fsio::read_to_string(&p)
        .map_err(|_| ConsistencyError::NoCheckpoint { game, size })?;
    let sig =
        crate::record::fsio::read_to_string(&sig_path(&p)).map_err(|e| ConsistencyError::Read {
            path: sig_path(&p),
            problem: e.to_string(),
        })?;
    let cp = Checkpoint::parse(&text).map_err(|e| ConsistencyError::Read {
        path: p.clone(),
        problem: e.to_string(),
    })?;
    Ok((cp, text, sig))
}

/// `arbiter prove --from M`: the RFC 6962 consistency proof from the checkpoint over `from`
/// entries to the latest checkpoint of game `game`, with both checkpoints and signatures.
pub fn prove_consistency(
    match_dir: &Path,
    game: u32,
    from: u64,
) -> Result<crate::log::consistency::ConsistencyProof, ConsistencyError> {
    let log = layout::log_path(match_dir, game);
    let latest = latest_checkpoint(match_dir, game)
        .ok_or(ConsistencyError::NoCheckpoint { game, size: from })?;
    if latest.size < from {
        return Err(ConsistencyError::NotOlder(from));
    }
    let (old, old_text, old_sig) = read_pair(match_dir, game, from)?;
    let (new, new_text, new_sig) = read_pair(match_dir, game, latest.size)?;
    // The proof's nodes are the tree hashes of disjoint ranges of leaves: one pass over the log
    // fills one frontier per range (O(log n) hashes each), never a list of every leaf.
    let ranges =
        merkle::consistency_ranges(old.size, new.size).ok_or(ConsistencyError::NotOlder(from))?;
    let mut roots: Vec<merkle::RootBuilder> = ranges.iter().map(|_| Default::default()).collect();
    let mut first = None;
    let mut read = 0u64;
    crate::record::journal::for_each_entry(&log, |e| {
        if let Some(k) = ranges
            .iter()
            .position(|&(lo, hi)| (lo..hi).contains(&e.seq))
        {
            roots[k].push(e.hash);
        }
        if first.is_none() {
            first = Some(e);
        }
        read += 1;
        true
    })
    .map_err(|e| ConsistencyError::Read {
        path: log.clone(),
        problem: e.to_string(),
    })?;
    if read < new.size {
        return Err(ConsistencyError::Short {
            have: read as usize,
            want: new.size,
        });
    }
    let principal = first
        .as_ref()
        .and_then(|e| e.body.pointer("/arbiter_key/principal"))
        .and_then(|p| p.as_str())
        .unwrap_or(sign::DEFAULT_PRINCIPAL)
        .to_owned();
    let nodes: Vec<[u8; 32]> = roots.iter().map(merkle::RootBuilder::root).collect();
    crate::log::consistency::ConsistencyProof::from_nodes(
        (&old, &old_text, &old_sig),
        (&new, &new_text, &new_sig),
        &principal,
        &nodes,
    )
    .ok_or(ConsistencyError::NotOlder(from))
}

/// `arbiter verify --consistency FILE`: the proof holds and both checkpoints are signed by a key
/// `signers` lists for the proof's principal. `Ok` names what it proves.
pub fn verify_consistency(bytes: &[u8], signers_text: &str) -> Result<String, String> {
    let p =
        crate::log::consistency::ConsistencyProof::from_json(bytes).map_err(|e| e.to_string())?;
    let (old, new) = p.check().map_err(|e| e.to_string())?;
    let (signers, _) = sign::parse_allowed_signers(signers_text);
    for (which, text, sig) in [
        ("older", &p.old_checkpoint, &p.old_signature),
        ("newer", &p.new_checkpoint, &p.new_signature),
    ] {
        let s = sign::verify_signature(&signers, text.as_bytes(), sig)
            .map_err(|e| format!("the {which} checkpoint's signature: {e}"))?;
        if !s.principals.contains(&p.principal) {
            return Err(format!(
                "the {which} checkpoint is signed by {}, not listed for principal {:?}",
                s.fingerprint, p.principal
            ));
        }
    }
    Ok(format!(
        "consistency OK: the checkpoint over {} entries (code {}) is a prefix of the checkpoint over {} entries (code {}) of {}",
        old.size,
        old.short_code(),
        new.size,
        new.short_code(),
        new.origin
    ))
}
