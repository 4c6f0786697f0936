//! `arbiter witness`: a camp's witness, run on the camp's own machine. It connects to the live
//! record (`arbiter live`), keeps the camp's own copy of every game's log, and cosigns each new
//! arbiter-signed checkpoint only as a consistent extension of that copy.
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::error::{Error, Exit};
use crate::record::live::witness::{CampKey, WitnessConfig, WitnessError, run as witness};

/// How long a witness waits before connecting again after the live record went away.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

#[derive(Debug, Clone, Args)]
#[command(group = clap::ArgGroup::new("signer").required(true).args(["key", "agent"]))]
pub struct WitnessArgs {
    /// The live record: ws://HOST:PORT/live (as `arbiter live` prints it).
    #[arg(long, value_name = "URL")]
    pub connect: String,
    /// The camp, as declared in line 0 (its key and proof).
    #[arg(long)]
    pub camp: String,
    /// The camp's Ed25519 private key file (the key declared for the camp, with its proof).
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
    /// Cosign through the ssh-agent at SSH_AUTH_SOCK instead (the camp's key in an agent or on a
    /// hardware key): it must hold the key the match declares for the camp.
    #[arg(long)]
    pub agent: bool,
    /// The key's passphrase from this environment variable (default: asked on the terminal).
    #[arg(long, value_name = "VAR", conflicts_with = "agent")]
    pub passphrase_env: Option<String>,
    /// The arbiter's public key (`.pub`), received out of band: every checkpoint must be
    /// signed by it.
    #[arg(long, value_name = "KEY.pub")]
    pub arbiter: PathBuf,
    /// The camp's own copy of the match (created if missing): every game's log as received,
    /// when each entry was received by this machine's clock, what was cosigned, and any evidence
    /// of a conflicting history.
    #[arg(long, value_name = "DIR")]
    pub copy: PathBuf,
    /// End when the connection ends (default: connect again).
    #[arg(long)]
    pub once: bool,
}

pub fn run(a: &WitnessArgs) -> Result<Exit, Error> {
    let _ = crate::record::sign::guard_process();
    crate::log::cosign::check_camp(&a.camp).map_err(Error::bad_input)?;
    let key = match &a.key {
        Some(file) => {
            let pass = crate::record::sign::passphrase_from_env(a.passphrase_env.as_deref())
                .map_err(Error::refused)?;
            let key = crate::record::sign::load_key(file, pass.as_ref().map(|p| p.as_str()))
                .map_err(Error::refused)?;
            CampKey::File(Box::new(key))
        }
        None => {
            // The agent is asked for the camp's key once the match declares it; it must answer
            // now.
            let socket = crate::record::agent::socket_from_env().map_err(Error::refused)?;
            crate::record::agent::answers(&socket).map_err(Error::refused)?;
            CampKey::Agent(socket)
        }
    };
    let arbiter = crate::record::sign::load_public_key(&a.arbiter).map_err(Error::bad_input)?;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&a.copy)
        .map_err(crate::error::FileError::of("create folder", &a.copy))
        .map_err(Error::write_failed)?;
    let cfg = WitnessConfig {
        url: a.connect.clone(),
        camp: a.camp.clone(),
        key,
        arbiter,
        copy: a.copy.clone(),
    };
    let mut tell = |loud: bool, s: &str| {
        if loud {
            let _ = outln!("ALARM: {s}");
            errln!("arbiter witness: ALARM: {}", crate::cli::printable(s));
        } else {
            let _ = outln!("{s}");
        }
    };
    loop {
        match witness(&cfg, &mut tell) {
            Ok(()) => return Ok(Exit::Ok),
            Err(e @ (WitnessError::Lost(_) | WitnessError::Connect { .. })) => {
                if a.once {
                    return Err(Error::unavailable(e));
                }
                tell(true, &format!("{e}; connecting again"));
                std::thread::sleep(RECONNECT_AFTER);
            }
            Err(e @ WitnessError::Copy(_)) => return Err(Error::write_failed(e)),
            Err(e @ (WitnessError::Agent(_) | WitnessError::Undeclared(..))) => {
                return Err(Error::refused(e));
            }
            Err(e) => return Err(Error::bad_input(e)),
        }
    }
}

use std::os::unix::fs::DirBuilderExt as _;
