//! Consistency proof between two signed checkpoints of one game (the `arbiter prove --from`
//! file, PURE): a camp that kept an older checkpoint sees that the final log extends it, so a
//! rewrite or a cut-back after that point is caught without the log itself.
use super::checkpoint::{Checkpoint, CheckpointError};
use super::merkle::{self, ConsistencyError};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

/// Value of the `format` field.
pub const CONSISTENCY_FORMAT: &str = "arbiter-kit-consistency-proof/1";

/// The proof file (JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsistencyProof {
    pub format: String,
    /// Both checkpoints' origin line, repeated for the reader.
    pub origin: String,
    /// Entry count of the older checkpoint.
    pub old_size: u64,
    /// Entry count of the newer checkpoint.
    pub new_size: u64,
    /// RFC 6962 consistency proof nodes, in the RFC's order, each in standard base64.
    pub proof: Vec<String>,
    /// The older checkpoint text exactly as signed, and its armored SSHSIG.
    pub old_checkpoint: String,
    pub old_signature: String,
    /// The newer checkpoint text exactly as signed, and its armored SSHSIG.
    pub new_checkpoint: String,
    pub new_signature: String,
    /// The principal to verify both signatures as (from line 0 of the log).
    pub principal: String,
}

/// Why a consistency proof does not hold (signatures aside).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConsistencyProofError {
    #[error("unknown proof format {0:?} (expected {CONSISTENCY_FORMAT})")]
    Format(String),
    #[error("proof is not valid JSON of the consistency-proof format: {0}")]
    Json(String),
    #[error("{which} checkpoint in the proof: {error}")]
    Checkpoint {
        which: &'static str,
        error: CheckpointError,
    },
    #[error("the {which} checkpoint's origin {found:?} is not the proof's origin {expected:?}")]
    Origin {
        which: &'static str,
        expected: String,
        found: String,
    },
    #[error("{which}_size {found} does not match the checkpoint's entry count {expected}")]
    Size {
        which: &'static str,
        expected: u64,
        found: u64,
    },
    #[error("proof node {0} is not a base64 SHA-256 hash")]
    Node(usize),
    #[error("the newer log does not extend the older checkpoint: {0}")]
    Inconsistent(ConsistencyError),
    #[error("both checkpoints cover {0} entries but their chain heads differ")]
    Chain(u64),
}

impl ConsistencyProof {
    /// Parse a proof file (duplicate keys refused).
    pub fn from_json(bytes: &[u8]) -> Result<ConsistencyProof, ConsistencyProofError> {
        let v = super::strict::from_slice(bytes)
            .map_err(|e| ConsistencyProofError::Json(e.to_string()))?;
        serde_json::from_value(v).map_err(|e| ConsistencyProofError::Json(e.to_string()))
    }

    /// Build the proof between two checkpoints of a game, given the subtree hashes of (at least)
    /// the newer checkpoint's entries. `None` if the sizes do not fit `tree`.
    pub fn build(
        old: (&Checkpoint, &str, &str),
        new: (&Checkpoint, &str, &str),
        principal: &str,
        tree: &merkle::Subtrees,
    ) -> Option<ConsistencyProof> {
        let (old_cp, old_text, old_sig) = old;
        let (new_cp, new_text, new_sig) = new;
        let proof = tree.consistency_proof(
            usize::try_from(old_cp.size).ok()?,
            usize::try_from(new_cp.size).ok()?,
        )?;
        Some(ConsistencyProof {
            format: CONSISTENCY_FORMAT.to_owned(),
            origin: new_cp.origin.clone(),
            old_size: old_cp.size,
            new_size: new_cp.size,
            proof: proof.iter().map(|h| STANDARD.encode(h)).collect(),
            old_checkpoint: old_text.to_owned(),
            old_signature: old_sig.to_owned(),
            new_checkpoint: new_text.to_owned(),
            new_signature: new_sig.to_owned(),
            principal: principal.to_owned(),
        })
    }

    /// [`ConsistencyProof::build`] from the proof's nodes already computed (in the RFC's order,
    /// see [`merkle::consistency_ranges`]). `None` if the older checkpoint is larger.
    pub fn from_nodes(
        old: (&Checkpoint, &str, &str),
        new: (&Checkpoint, &str, &str),
        principal: &str,
        nodes: &[[u8; 32]],
    ) -> Option<ConsistencyProof> {
        let (old_cp, old_text, old_sig) = old;
        let (new_cp, new_text, new_sig) = new;
        if old_cp.size == 0 || old_cp.size > new_cp.size {
            return None;
        }
        Some(ConsistencyProof {
            format: CONSISTENCY_FORMAT.to_owned(),
            origin: new_cp.origin.clone(),
            old_size: old_cp.size,
            new_size: new_cp.size,
            proof: nodes.iter().map(|h| STANDARD.encode(h)).collect(),
            old_checkpoint: old_text.to_owned(),
            old_signature: old_sig.to_owned(),
            new_checkpoint: new_text.to_owned(),
            new_signature: new_sig.to_owned(),
            principal: principal.to_owned(),
        })
    }

    /// Check everything but the two signatures; returns the parsed (older, newer) checkpoints.
    pub fn check(&self) -> Result<(Checkpoint, Checkpoint), ConsistencyProofError> {
        if self.format != CONSISTENCY_FORMAT {
            return Err(ConsistencyProofError::Format(self.format.clone()));
        }
        let old = self.checkpoint("old", &self.old_checkpoint, self.old_size)?;
        let new = self.checkpoint("new", &self.new_checkpoint, self.new_size)?;
        let mut nodes = Vec::with_capacity(self.proof.len());
        for (i, node) in self.proof.iter().enumerate() {
            let h: [u8; 32] = STANDARD
                .decode(node)
                .ok()
                .and_then(|v| v.try_into().ok())
                .ok_or(ConsistencyProofError::Node(i))?;
            nodes.push(h);
        }
        merkle::check_consistency(old.size, new.size, &old.root, &new.root, &nodes)
            .map_err(ConsistencyProofError::Inconsistent)?;
        if old.size == new.size && old.chain != new.chain {
            return Err(ConsistencyProofError::Chain(old.size));
        }
        Ok((old, new))
    }

    fn checkpoint(
        &self,
        which: &'static str,
        text: &str,
        size: u64,
    ) -> Result<Checkpoint, ConsistencyProofError> {
        let cp = Checkpoint::parse(text)
            .map_err(|error| ConsistencyProofError::Checkpoint { which, error })?;
        if cp.origin != self.origin {
            return Err(ConsistencyProofError::Origin {
                which,
                expected: self.origin.clone(),
                found: cp.origin,
            });
        }
        if cp.size != size {
            return Err(ConsistencyProofError::Size {
                which,
                expected: cp.size,
                found: size,
            });
        }
        Ok(cp)
    }
}
