//! Inclusion proof of one entry against a signed checkpoint (the `arbiter prove` file), so a
//! single disputed entry can be shown without the rest of the log (rule 13e).
use super::checkpoint::{Checkpoint, CheckpointError};
use super::{LineError, entry_hash, merkle, parse_line};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

/// Value of the `format` field.
pub const PROOF_FORMAT: &str = "arbiter-kit-inclusion-proof/1";

/// The proof file (JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InclusionProof {
    pub format: String,
    /// The checkpoint's origin line, repeated for the reader.
    pub origin: String,
    /// The entry line itself, exactly, without its newline.
    pub entry: String,
    /// Leaf index = the entry's seq.
    pub leaf_index: u64,
    /// Number of entries covered by the checkpoint.
    pub tree_size: u64,
    /// RFC 6962 audit path, bottom-up, each node hash in standard base64.
    pub audit_path: Vec<String>,
    /// The checkpoint text exactly as signed.
    pub checkpoint: String,
    /// The armored SSHSIG of the checkpoint text.
    pub signature: String,
    /// The principal to verify the signature as (from line 0 of the log).
    pub principal: String,
}

/// Why a proof does not hold (signature aside).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    #[error("unknown proof format {0:?} (expected {PROOF_FORMAT})")]
    Format(String),
    #[error("proof is not valid JSON of the proof format: {0}")]
    Json(String),
    #[error("checkpoint in the proof: {0}")]
    Checkpoint(#[from] CheckpointError),
    #[error("origin {found:?} does not match the checkpoint's origin {expected:?}")]
    Origin { expected: String, found: String },
    #[error("tree_size {found} does not match the checkpoint's entry count {expected}")]
    TreeSize { expected: u64, found: u64 },
    #[error("the entry is not a valid log line: {0}")]
    Entry(LineError),
    #[error("the entry carries seq {seq} but leaf_index is {leaf_index}")]
    Index { seq: u64, leaf_index: u64 },
    #[error("audit path node {0} is not a base64 SHA-256 hash")]
    PathNode(usize),
    #[error("the audit path does not lead from the entry to the checkpoint's Merkle tree hash")]
    Root,
    #[error(
        "the entry is the last one covered but its hash differs from the checkpoint's chain head"
    )]
    Chain,
}

impl InclusionProof {
    /// Parse a proof file (duplicate keys refused).
    pub fn from_json(bytes: &[u8]) -> Result<InclusionProof, ProofError> {
        let v = super::strict::from_slice(bytes).map_err(|e| ProofError::Json(e.to_string()))?;
        serde_json::from_value(v).map_err(|e| ProofError::Json(e.to_string()))
    }

    /// Build a proof of leaf `index` given all leaf hashes covered by `checkpoint`.
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        cp: &Checkpoint,
        checkpoint_text: &str,
        signature: &str,
        principal: &str,
        entry_line: &str,
        index: u64,
        leaves: &[[u8; 32]],
    ) -> Option<InclusionProof> {
        let path = merkle::inclusion_proof(leaves, usize::try_from(index).ok()?)?;
        Some(InclusionProof {
            format: PROOF_FORMAT.to_owned(),
            origin: cp.origin.clone(),
            entry: entry_line.to_owned(),
            leaf_index: index,
            tree_size: leaves.len() as u64,
            audit_path: path.iter().map(|h| STANDARD.encode(h)).collect(),
            checkpoint: checkpoint_text.to_owned(),
            signature: signature.to_owned(),
            principal: principal.to_owned(),
        })
    }

    /// Check everything but the signature; returns the parsed checkpoint.
    pub fn check(&self) -> Result<Checkpoint, ProofError> {
        if self.format != PROOF_FORMAT {
            return Err(ProofError::Format(self.format.clone()));
        }
        let cp = Checkpoint::parse(&self.checkpoint)?;
        if cp.origin != self.origin {
            return Err(ProofError::Origin {
                expected: cp.origin,
                found: self.origin.clone(),
            });
        }
        if cp.size != self.tree_size {
            return Err(ProofError::TreeSize {
                expected: cp.size,
                found: self.tree_size,
            });
        }
        let entry = parse_line(self.entry.as_bytes(), 0).map_err(ProofError::Entry)?;
        if entry.seq != self.leaf_index {
            return Err(ProofError::Index {
                seq: entry.seq,
                leaf_index: self.leaf_index,
            });
        }
        let mut path = Vec::with_capacity(self.audit_path.len());
        for (i, node) in self.audit_path.iter().enumerate() {
            let h: [u8; 32] = STANDARD
                .decode(node)
                .ok()
                .and_then(|v| v.try_into().ok())
                .ok_or(ProofError::PathNode(i))?;
            path.push(h);
        }
        let leaf = entry_hash(self.entry.as_bytes());
        if !merkle::verify_inclusion(&leaf, self.leaf_index, self.tree_size, &path, &cp.root) {
            return Err(ProofError::Root);
        }
        if self.leaf_index + 1 == self.tree_size && leaf != cp.chain {
            return Err(ProofError::Chain);
        }
        Ok(cp)
    }
}
