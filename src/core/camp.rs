//! A camp's proof of possession of its witness key, version 1 (PURE: the statement's bytes and
//! the check of a signature over them).
//!
//! Before a camp's key is bound into line 0, the camp signs its own declaration with that key:
//! an armored OpenSSH SSHSIG (namespace [`NAMESPACE`], what `ssh-keygen -Y sign -n
//! arbiter-kit-camp-key@v1` writes) over the [`statement`]:
//! ```text
//! arbiter-kit camp key v1
//! match <match-id>
//! camp <camp>
//! key <type> <base64>
//! ```
//! each line ending in `\n`. Line 0 keeps the signature beside the key (`"proof"`), so anyone can
//! check that the camp held the key it countersigns with, without the kit.

/// SSHSIG namespace of a camp's proof of possession (distinct from the checkpoint and
/// countersignature namespaces: none of the three can stand in for another).
pub const NAMESPACE: &str = "arbiter-kit-camp-key@v1";
/// First line of a version-1 statement.
pub const HEADER: &str = "arbiter-kit camp key v1";

/// The exact text a camp signs to prove it holds `key` (OpenSSH `<type> <base64>`, any comment
/// dropped) as camp `camp` of match `match_id`.
pub fn statement(match_id: &str, camp: &str, key: &str) -> String {
    let bare: Vec<&str> = key.split_whitespace().take(2).collect();
    format!(
        "{HEADER}\nmatch {match_id}\ncamp {camp}\nkey {}\n",
        bare.join(" ")
    )
}

/// `SHA256:<base64>` of an OpenSSH public key text, or `an unreadable key`.
pub fn fingerprint(key: &str) -> String {
    ssh_key::PublicKey::from_openssh(key)
        .map(|k| k.fingerprint(ssh_key::HashAlg::Sha256).to_string())
        .unwrap_or_else(|_| "an unreadable key".into())
}

/// Why a camp's proof of possession is not accepted (each says what is wrong).
#[derive(Debug, thiserror::Error)]
pub enum ProofError {
    #[error("not an armored SSH signature: {0}")]
    NotASignature(String),
    #[error("the signer's key cannot be written as OpenSSH: {0}")]
    Signer(String),
    #[error("the declared key does not parse: {0}")]
    DeclaredKey(String),
    #[error("the proof is not an armored SSH signature: {0}")]
    ProofNotASignature(String),
    #[error(
        "the proof's namespace is {found:?}, not {NAMESPACE:?} (ssh-keygen -Y sign -n {NAMESPACE})"
    )]
    Namespace { found: String },
    #[error("the proof is signed by another key ({by}), not by the declared one")]
    OtherKey { by: String },
    #[error("the proof does not verify over camp {camp}'s declaration for match {match_id}")]
    DoesNotVerify { camp: String, match_id: String },
}

/// The public key (OpenSSH `<type> <base64>`) that made an armored SSHSIG.
pub fn signer_of(armored: &str) -> Result<String, ProofError> {
    let sig = ssh_key::SshSig::from_pem(armored.trim().as_bytes())
        .map_err(|e| ProofError::NotASignature(e.to_string()))?;
    ssh_key::PublicKey::from(sig.public_key().clone())
        .to_openssh()
        .map_err(|e| ProofError::Signer(e.to_string()))
}

/// Check camp `camp`'s proof `armored` that it holds `key` for match `match_id`: an SSHSIG in
/// [`NAMESPACE`] by exactly that key over [`statement`]. The error says what is wrong.
pub fn check_proof(match_id: &str, camp: &str, key: &str, armored: &str) -> Result<(), ProofError> {
    let public = ssh_key::PublicKey::from_openssh(key)
        .map_err(|e| ProofError::DeclaredKey(e.to_string()))?;
    let sig = ssh_key::SshSig::from_pem(armored.trim().as_bytes())
        .map_err(|e| ProofError::ProofNotASignature(e.to_string()))?;
    if sig.namespace() != NAMESPACE {
        return Err(ProofError::Namespace {
            found: sig.namespace().to_string(),
        });
    }
    if sig.public_key() != public.key_data() {
        let by = ssh_key::PublicKey::from(sig.public_key().clone())
            .fingerprint(ssh_key::HashAlg::Sha256)
            .to_string();
        return Err(ProofError::OtherKey { by });
    }
    public
        .verify(NAMESPACE, statement(match_id, camp, key).as_bytes(), &sig)
        .map_err(|_| ProofError::DoesNotVerify {
            camp: camp.to_string(),
            match_id: match_id.to_string(),
        })
}
