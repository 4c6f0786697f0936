//! `arbiter countersign`: a camp countersigns a checkpoint (by default the latest), as both
//! players sign the scoresheet — with its own key here, or with a signature it made with stock
//! OpenSSH on its own laptop or hardware key.
use std::path::PathBuf;

use clap::Args;

use super::MatchArg;
use crate::error::{Error, Exit};
use crate::witness::{
    CosignSource, DeclarationAct, camp_declaration, countersign_checkpoint, countersign_index,
};

#[derive(Debug, Clone, Args)]
pub struct CountersignArgs {
    #[command(flatten)]
    pub m: MatchArg,
    /// Game number (default: the last game).
    #[arg(long, value_parser = super::game_number)]
    pub game: Option<u32>,
    /// The camp, as declared in line 0 (`arbiter declare camp NAME KEY`).
    #[arg(long)]
    pub camp: String,
    /// The checkpoint to countersign, by its entry count (default: the latest).
    #[arg(long, value_name = "N")]
    pub checkpoint: Option<u64>,
    /// Sign here with the camp's Ed25519 private key file.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["signature", "public"],
        required_unless_present_any = ["signature", "public"]
    )]
    pub key: Option<PathBuf>,
    /// The key's passphrase from this environment variable (default: asked on the terminal).
    #[arg(long, value_name = "VAR")]
    pub passphrase_env: Option<String>,
    /// A signature made with `ssh-keygen -Y sign -n arbiter-kit-countersign@v1` (stock OpenSSH).
    #[arg(long, value_name = "FILE", conflicts_with = "public")]
    pub signature: Option<PathBuf>,
    /// The camp's own declaration instead of a checkpoint (proof of possession of its key,
    /// before the game): with --key, print the proof; with --public KEY.pub, print the text to
    /// sign with `ssh-keygen -Y sign -n arbiter-kit-camp-key@v1`; with --signature, check a proof.
    #[arg(long, conflicts_with_all = ["checkpoint", "game", "index"])]
    pub declaration: bool,
    /// The match index instead of a checkpoint (after each game): it is kept as
    /// `DIR/index/<version>.txt` with the countersignature beside it; note the match code printed.
    #[arg(long, conflicts_with_all = ["checkpoint", "game", "public"])]
    pub index: bool,
    /// With --declaration: the camp's public key whose declaration text to print.
    #[arg(long, value_name = "KEY.pub", requires = "declaration")]
    pub public: Option<PathBuf>,
}

pub fn run(a: &CountersignArgs) -> Result<Exit, Error> {
    if a.declaration {
        let act = match (&a.key, &a.signature, &a.public) {
            (_, _, Some(public)) => DeclarationAct::Statement(public.clone()),
            (_, Some(sig), None) => DeclarationAct::Check(sig.clone()),
            (Some(file), None, None) => DeclarationAct::Sign(CosignSource::Key {
                file: file.clone(),
                passphrase_env: a.passphrase_env.clone(),
            }),
            (None, None, None) => {
                return Err(Error::bad_input(
                    "give --key FILE, --public KEY.pub or --signature FILE",
                ));
            }
        };
        let text = camp_declaration(&a.m.dir, &a.camp, &act).map_err(Error::refused)?;
        out!("{text}")?;
        return Ok(Exit::Ok);
    }
    let source = |a: &CountersignArgs| match (&a.key, &a.signature) {
        (_, Some(sig)) => Ok(CosignSource::Signature(sig.clone())),
        (Some(file), None) => Ok(CosignSource::Key {
            file: file.clone(),
            passphrase_env: a.passphrase_env.clone(),
        }),
        (None, None) => Err(Error::bad_input("give --key FILE or --signature FILE")),
    };
    if a.index {
        let (path, code) =
            countersign_index(&a.m.dir, &a.camp, &source(a)?).map_err(Error::refused)?;
        outln!(
            "match index countersigned by camp {}: {}; note the match code {code} (arbiter verify --code {code})",
            a.camp,
            path.display()
        )?;
        return Ok(Exit::Ok);
    }
    let game = a.m.game_or_last(a.game)?;
    let source = match (&a.key, &a.signature) {
        (_, Some(sig)) => CosignSource::Signature(sig.clone()),
        (Some(file), None) => CosignSource::Key {
            file: file.clone(),
            passphrase_env: a.passphrase_env.clone(),
        },
        (None, None) => return Err(Error::bad_input("give --key FILE or --signature FILE")),
    };
    let (path, fp) = countersign_checkpoint(&a.m.dir, game, a.checkpoint, &a.camp, &source)
        .map_err(Error::refused)?;
    outln!(
        "countersigned by camp {} ({fp}): {}",
        a.camp,
        path.display()
    )?;
    Ok(Exit::Ok)
}
