//! `arbiter verify`: every game of a match (or `--game N`), or an inclusion proof with
//! `--proof FILE`. The exit code is that of the most severe verdict (docs/log-format.md).
use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use super::MatchArg;
use crate::error::{Error, Exit, FileError};
use crate::log::checkpoint::ShortCode;
use crate::record::verify::{GameVerification, read_allowed_signers, render, verify_proof};
use crate::record::witness::{Trust, verify_match};

#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub m: MatchArg,
    /// Only this game (default: every game of the match).
    #[arg(long, value_parser = super::game_number)]
    pub game: Option<u32>,
    /// Check an inclusion proof file written by `arbiter prove` instead of a whole log.
    #[arg(long, value_name = "FILE")]
    pub proof: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    /// Trust only the keys in this file (an allowed_signers file, or the arbiter's `.pub` key)
    /// obtained out of band, not the folder's own `allowed_signers`.
    #[arg(long, value_name = "FILE")]
    pub trust: Option<PathBuf>,
    /// The arbiter key's expected fingerprint (`SHA256:…`, as `ssh-keygen -l` prints it).
    #[arg(long = "fingerprint", value_name = "FP")]
    pub fingerprints: Vec<String>,
    /// The camps' keys received out of band (an allowed-signers file: `<camp> <key>` per line):
    /// line 0's declared camp keys must be these.
    #[arg(long, value_name = "FILE")]
    pub camps: Option<PathBuf>,
    /// A short code a camp noted from the Board UI or a checkpoint (`57-3F2A-9C1B-77D0-12AB`),
    /// or a match code noted after countersigning the match index (`M7-3F2A-9C1B-77D0-12AB`):
    /// the log must still hold exactly what it covered.
    #[arg(long = "code", value_name = "CODE")]
    pub codes: Vec<String>,
    /// A camp's own copy of the match, kept by `arbiter witness --copy DIR`: every entry it
    /// holds must be in the log as it holds it, and no restart's ruling may claim a longer outage
    /// than the witness's own clock saw pass (else COPY_CONFLICT, 34).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["proof", "consistency"])]
    pub witness_copy: Option<PathBuf>,
    /// Check a consistency proof written by `arbiter prove --from N` instead of a whole log.
    #[arg(long, value_name = "FILE", conflicts_with = "proof")]
    pub consistency: Option<PathBuf>,
}

/// `--json` output.
#[derive(Debug, Serialize)]
struct Summary<'a> {
    exit_code: u8,
    games: &'a [GameVerification],
    /// Game folders holding only what a crash during the game's creation left.
    never_created: &'a [NeverCreated],
    match_problems: &'a [String],
    pinned: bool,
    /// `--witness-copy DIR`: what holding the log against the camp's copy found.
    witness_copy: &'a [String],
}

/// A game whose creation a crash interrupted before its log took its name: nothing was recorded.
#[derive(Debug, Serialize)]
struct NeverCreated {
    game: u32,
    /// The file left in the game's folder (`log.jsonl.new-<pid>`).
    leftover: String,
    /// What the text output says.
    message: String,
}

pub fn run(a: &VerifyArgs) -> Result<Exit, Error> {
    if let Some(proof) = &a.proof {
        let trusted = match &a.trust {
            Some(p) => crate::record::fsio::read_to_string(p)
                .map(|t| Trust::from_file_text(&t).signers)
                .map_err(FileError::of("read", p))
                .map_err(Error::unreadable)?,
            None => None,
        };
        return run_proof(&a.m.dir, proof, a.json, trusted);
    }
    if let Some(file) = &a.consistency {
        let bytes = crate::record::fsio::read(file, crate::record::fsio::SMALL_FILE_LIMIT)
            .map_err(FileError::of("read", file))
            .map_err(Error::unreadable)?;
        let signers = match &a.trust {
            Some(p) => crate::record::fsio::read_to_string(p)
                .map(|t| Trust::from_file_text(&t).signers.unwrap_or_default())
                .map_err(FileError::of("read", p))
                .map_err(Error::unreadable)?,
            None => read_allowed_signers(&a.m.dir).map_err(Error::unreadable)?,
        };
        return Ok(
            match crate::record::witness::verify_consistency(&bytes, &signers) {
                Ok(msg) => {
                    outln!("{msg}")?;
                    Exit::Ok
                }
                Err(problem) => {
                    outln!("consistency BAD: {problem}")?;
                    Exit::BadProof
                }
            },
        );
    }
    // A game folder holding only a creation leftover is a game never created, not a
    // damaged one: whole-match and `--game N` say so alike (the index, if it names the game,
    // makes verify_match fail for it).
    let never: Vec<(u32, String)> = crate::record::layout::creation_leftovers(&a.m.dir)
        .into_iter()
        .filter(|(n, _)| a.game.is_none_or(|g| g == *n))
        .collect();
    let games = match a.game {
        Some(_) if !never.is_empty() => Vec::new(),
        Some(g) => {
            a.m.require_game(g).map_err(Error::unreadable)?;
            vec![g]
        }
        None => a.m.games().map_err(Error::unreadable)?,
    };
    // A match whose index (or a countersigned copy of it) survives has had games;
    // with none left, the index's games are judged missing (ROLLED_BACK), not "no games".
    let indexed = [
        crate::record::witness::index_path(&a.m.dir),
        crate::record::witness::kept_index_dir(&a.m.dir),
    ]
    .iter()
    .any(|p| std::fs::symlink_metadata(p).is_ok());
    if games.is_empty() && !indexed && never.is_empty() {
        return Err(Error::unreadable(format!(
            "no game-<n> folders in {}",
            a.m.dir.display()
        )));
    }
    let mut trust = match &a.trust {
        Some(p) => Trust::from_file_text(
            &crate::record::fsio::read_to_string(p)
                .map_err(FileError::of("read", p))
                .map_err(Error::unreadable)?,
        ),
        None => Trust::default(),
    };
    trust.fingerprints = a.fingerprints.clone();
    if let Some(p) = &a.camps {
        trust.camps = Some(
            crate::record::fsio::read_to_string(p)
                .map_err(FileError::of("read", p))
                .map_err(Error::unreadable)?,
        );
    }
    // A match code (`M7-…`, the match index's) is accepted as a game's code is.
    let (match_codes, game_codes): (Vec<&String>, Vec<&String>) = a
        .codes
        .iter()
        .partition(|c| crate::log::index::MatchCode::parse(c).is_some());
    trust.match_codes = match_codes
        .iter()
        .filter_map(|c| crate::log::index::MatchCode::parse(c))
        .collect();
    let codes = game_codes
        .iter()
        .map(|c| ShortCode::parse(c))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Error::bad_input)?;
    let m = verify_match(&a.m.dir, &games, &trust, &codes);
    // Games never created are no verdict: with no game verified, the match's findings decide.
    let worst = if m.games.is_empty() && !never.is_empty() {
        m.match_status
    } else {
        m.worst()
    };
    let (copy_lines, copy_conflict) = match &a.witness_copy {
        Some(dir) => witness_copy(&a.m.dir, dir, a.game)?,
        None => (Vec::new(), false),
    };
    let exit = if copy_conflict {
        Exit::CopyConflict
    } else {
        worst.exit()
    };
    let never_created: Vec<NeverCreated> = never
        .iter()
        .map(|(game, leftover)| NeverCreated {
            game: *game,
            leftover: leftover.clone(),
            message: crate::record::layout::never_created(*game, leftover),
        })
        .collect();
    if a.json {
        let s = serde_json::to_string_pretty(&Summary {
            exit_code: exit.code(),
            games: &m.games,
            never_created: &never_created,
            match_problems: &m.match_problems,
            pinned: m.pinned,
            witness_copy: &copy_lines,
        })
        .map_err(Error::unreadable)?;
        outln!("{s}")?;
    } else {
        for r in &m.games {
            outln!("{}", render(r))?;
        }
        for p in &m.match_problems {
            outln!("match: {p}")?;
        }
        for n in &never_created {
            outln!("{}", n.message)?;
        }
        for l in &copy_lines {
            outln!("{l}")?;
        }
    }
    Ok(exit)
}

/// Hold the match's games (or game `only`) against a camp's copy: one line per game, and
/// whether any entry the camp holds is lacking or otherwise in the log (or evidence was kept).
fn witness_copy(
    match_dir: &Path,
    copy: &Path,
    only: Option<u32>,
) -> Result<(Vec<String>, bool), Error> {
    let found =
        crate::record::live::copy::check_against(match_dir, copy).map_err(Error::unreadable)?;
    let mut lines = Vec::new();
    let mut conflict = false;
    for f in found.iter().filter(|f| only.is_none_or(|g| g == f.game)) {
        for n in &f.notes {
            lines.push(format!("witness copy {}: {n}", copy.display()));
        }
        if f.problems.is_empty() {
            lines.push(format!(
                "witness copy {}: game {}: the log holds all {} entries the camp's copy holds, as it holds them",
                copy.display(),
                f.game,
                f.held
            ));
        } else {
            conflict = true;
            for p in &f.problems {
                lines.push(format!(
                    "COPY_CONFLICT: witness copy {}: {p}",
                    copy.display()
                ));
            }
        }
    }
    if found.is_empty() {
        lines.push(format!(
            "witness copy {}: it holds no game (no game-<n> folder)",
            copy.display()
        ));
    }
    Ok((lines, conflict))
}

fn run_proof(
    match_dir: &Path,
    proof: &Path,
    json: bool,
    trusted: Option<String>,
) -> Result<Exit, Error> {
    // A proof may come through a pipe: `verify --proof <(arbiter prove …)`.
    let bytes = crate::record::fsio::read_input(proof, crate::record::fsio::SMALL_FILE_LIMIT)
        .map_err(FileError::of("read", proof))
        .map_err(Error::unreadable)?;
    let signers = match trusted {
        Some(t) => t,
        None => read_allowed_signers(match_dir).map_err(Error::unreadable)?,
    };
    let v = verify_proof(&bytes, &signers);
    if json {
        let s = serde_json::to_string_pretty(&v).map_err(Error::unreadable)?;
        outln!("{s}")?;
    } else if v.ok {
        outln!(
            "proof OK: entry seq {} is entry {} of the {} entries of {} signed by {}",
            v.seq.unwrap_or(0),
            v.seq.unwrap_or(0),
            v.tree_size.unwrap_or(0),
            v.origin.as_deref().unwrap_or("?"),
            v.signer.as_deref().unwrap_or("?")
        )?;
    } else {
        outln!("proof BAD: {}", v.problem.as_deref().unwrap_or("?"))?;
    }
    Ok(if v.ok { Exit::Ok } else { Exit::BadProof })
}
