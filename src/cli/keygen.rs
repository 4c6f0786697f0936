//! `arbiter keygen`: create the arbiter key (default `DIR/keys/arbiter`) or register an existing
//! one (`--existing`), and list it in `DIR/allowed_signers`. Exit 0 on success, 1 on failure.
use std::path::PathBuf;

use clap::Args;

use super::MatchArg;
use crate::error::{Error, Exit};
use crate::record::layout;
use crate::record::sign::{
    SignError, ensure_allowed_signer, fingerprint, keygen, load_public_key, new_passphrase,
    pub_path,
};

#[derive(Debug, Clone, Args)]
pub struct KeygenArgs {
    #[command(flatten)]
    pub m: MatchArg,
    /// Where to write the private key (the public key goes beside it with `.pub`).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Principal name written to allowed_signers (used with `ssh-keygen -Y verify -I`).
    #[arg(long, default_value = "arbiter")]
    pub principal: String,
    /// Encrypt the key with the passphrase read from this environment variable (default: asked
    /// twice on the terminal).
    #[arg(long, value_name = "VAR")]
    pub passphrase_env: Option<String>,
    /// Write the key unencrypted (anyone who copies the file can then sign as the arbiter).
    #[arg(long, conflicts_with = "passphrase_env")]
    pub no_passphrase: bool,
    /// Register an existing ed25519 public key instead of creating one.
    #[arg(long, value_name = "FILE")]
    pub existing: Option<PathBuf>,
}

pub fn run(a: &KeygenArgs) -> Result<Exit, Error> {
    if let Some(out) = &a.out {
        crate::record::fsio::check_output(out, crate::record::fsio::Purpose::Key, false)
            .map_err(Error::refused)?;
    }
    // Every failure of keygen is a refusal (exit 1), as documented in docs/log-format.md.
    let msg = register(a).map_err(Error::refused)?;
    outln!("{msg}")?;
    Ok(Exit::Ok)
}

fn register(a: &KeygenArgs) -> Result<String, SignError> {
    let dir = &a.m.dir;
    crate::record::sign::check_principal(&a.principal)?;
    let (public, what) = match &a.existing {
        Some(existing) => (
            load_public_key(existing)?,
            format!("registered existing key {}", existing.display()),
        ),
        None => {
            let out = a.out.clone().unwrap_or_else(|| layout::arbiter_key(dir));
            let passphrase = new_passphrase(a.passphrase_env.as_deref(), a.no_passphrase)?;
            let comment = format!("arbiter-kit arbiter key ({})", a.principal);
            let public = keygen(&out, passphrase.as_ref().map(|p| p.as_str()), &comment)?;
            let enc = if passphrase.is_some() {
                "encrypted"
            } else {
                "UNENCRYPTED (anyone who copies it can sign as the arbiter)"
            };
            (
                public,
                format!(
                    "created {enc} key {} and {}",
                    out.display(),
                    pub_path(&out).display()
                ),
            )
        }
    };
    ensure_allowed_signer(dir, &a.principal, &public)?;
    Ok(format!(
        "{what}\nfingerprint {}\nprincipal {:?} listed in {}",
        fingerprint(&public),
        a.principal,
        layout::allowed_signers(dir).display()
    ))
}
