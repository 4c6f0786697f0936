//! Where things live in a match folder (SHELL): the one place that names its folders and files.
//!
//! ```text
//! DIR/allowed_signers                   the arbiter keys, for ssh-keygen -Y verify
//! DIR/keys/arbiter, keys/demo-arbiter   private keys (and .pub)
//! DIR/game-<n>/log.jsonl                the game log
//! DIR/game-<n>/checkpoints/<N>.txt      signed checkpoints (and .sig)
//! DIR/game-<n>/engine/                  rule 13 archive
//! DIR/game-<n>/report.html, report.md   the committee report
//! ```
use std::path::{Path, PathBuf};

/// The highest game number (README: game numbers start at 1, at most 9999 games per match).
pub const MAX_GAME: u32 = 9999;

/// Prefix of a game folder's name.
const GAME_PREFIX: &str = "game-";

/// Folder of game `n` of a match.
pub fn game_dir(match_dir: &Path, n: u32) -> PathBuf {
    match_dir.join(format!("{GAME_PREFIX}{n}"))
}

/// Log file of game `n`.
pub fn log_path(match_dir: &Path, n: u32) -> PathBuf {
    game_dir(match_dir, n).join("log.jsonl")
}

/// Folder of the signed checkpoints of game `n`.
/// `game-<n>/heartbeat`: when the kit last ran with a clock running (outside the log).
pub fn heartbeat_path(match_dir: &Path, n: u32) -> PathBuf {
    game_dir(match_dir, n).join("heartbeat")
}

pub fn checkpoints_dir(match_dir: &Path, n: u32) -> PathBuf {
    game_dir(match_dir, n).join("checkpoints")
}

/// Checkpoint text over the first `entries` entries of game `n` (its signature adds `.sig`).
pub fn checkpoint_path(match_dir: &Path, n: u32, entries: u64) -> PathBuf {
    checkpoints_dir(match_dir, n).join(format!("{entries}.txt"))
}

/// The OpenSSH allowed-signers file of the match.
pub fn allowed_signers(match_dir: &Path) -> PathBuf {
    match_dir.join("allowed_signers")
}

/// The arbiter's key unless `--key` names another.
pub fn arbiter_key(match_dir: &Path) -> PathBuf {
    match_dir.join("keys").join("arbiter")
}

/// The labelled demo key.
pub fn demo_key(match_dir: &Path) -> PathBuf {
    match_dir.join("keys").join("demo-arbiter")
}

/// Game numbers that have a folder in the match, ascending (none if the folder cannot be read).
pub fn games(match_dir: &Path) -> Vec<u32> {
    let mut v: Vec<u32> = std::fs::read_dir(match_dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_prefix(GAME_PREFIX)?
                .parse()
                .ok()
        })
        // A folder outside 1..=MAX_GAME (`game-0`, `game-4294967295`) is not one of its games.
        .filter(|n| (1..=MAX_GAME).contains(n))
        .collect();
    v.sort_unstable();
    v
}

/// The match id: the match folder's name.
pub fn match_id(match_dir: &Path) -> String {
    let canon = std::fs::canonicalize(match_dir).unwrap_or_else(|_| match_dir.to_path_buf());
    canon
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("match")
        .to_string()
}
