//! `arbiter verify`: every game of a match (or `--game N`), or an inclusion proof with
//! `--proof FILE`. The exit code is that of the most severe verdict (docs/log-format.md).
use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use super::MatchArg;
use crate::error::{Error, Exit, FileError};
use crate::layout;
use crate::verify::{
    GameVerification, read_allowed_signers, render, verify_game, verify_proof, worst,
};

#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub m: MatchArg,
    /// Only this game (default: every game of the match).
    #[arg(long)]
    pub game: Option<u32>,
    /// Check an inclusion proof file written by `arbiter prove` instead of a whole log.
    #[arg(long, value_name = "FILE")]
    pub proof: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

/// `--json` output.
#[derive(Debug, Serialize)]
struct Summary<'a> {
    exit_code: u8,
    games: &'a [GameVerification],
}

pub fn run(a: &VerifyArgs) -> Result<Exit, Error> {
    if let Some(proof) = &a.proof {
        return run_proof(&a.m.dir, proof, a.json);
    }
    let games = match a.game {
        Some(g) => vec![g],
        None => layout::games(&a.m.dir),
    };
    if games.is_empty() {
        return Err(Error::unreadable(format!(
            "no game-<n> folders in {}",
            a.m.dir.display()
        )));
    }
    let results: Vec<GameVerification> = games.iter().map(|&g| verify_game(&a.m.dir, g)).collect();
    let worst = worst(&results);
    if a.json {
        let s = serde_json::to_string_pretty(&Summary {
            exit_code: worst.exit_code(),
            games: &results,
        })
        .map_err(Error::unreadable)?;
        println!("{s}");
    } else {
        for r in &results {
            println!("{}", render(r));
        }
    }
    Ok(worst.exit())
}

fn run_proof(match_dir: &Path, proof: &Path, json: bool) -> Result<Exit, Error> {
    let bytes = std::fs::read(proof)
        .map_err(FileError::of("read", proof))
        .map_err(Error::unreadable)?;
    let signers = read_allowed_signers(match_dir).map_err(Error::unreadable)?;
    let v = verify_proof(&bytes, &signers);
    if json {
        let s = serde_json::to_string_pretty(&v).map_err(Error::unreadable)?;
        println!("{s}");
    } else if v.ok {
        println!(
            "proof OK: entry seq {} is entry {} of the {} entries of {} signed by {}",
            v.seq.unwrap_or(0),
            v.seq.unwrap_or(0),
            v.tree_size.unwrap_or(0),
            v.origin.as_deref().unwrap_or("?"),
            v.signer.as_deref().unwrap_or("?")
        );
    } else {
        println!("proof BAD: {}", v.problem.as_deref().unwrap_or("?"));
    }
    Ok(if v.ok { Exit::Ok } else { Exit::BadProof })
}
