//! Where things live in a match folder (SHELL): the one place that names its folders and files.
//!
//! ```text
//! DIR/allowed_signers                   the arbiter keys, for ssh-keygen -Y verify
//! DIR/keys/arbiter, keys/demo-arbiter   private keys (and .pub)
//! DIR/game-<n>/log.jsonl                the game log
//! DIR/game-<n>/checkpoints/<N>.txt      signed checkpoints (and .sig)
//! DIR/game-<n>/engine/                  rule 13 archive
//! DIR/game-<n>/report.html, report.md   the committee report
//! DIR/control.sock                      while `serve` runs: the arbiter's acts reach its table
//! ```
use std::path::{Path, PathBuf};

/// The highest game number (README: game numbers start at 1, at most 9999 games per match).
pub const MAX_GAME: u32 = 9999;

/// The rules profile of a match's first game when none is named (`--rules`); later games keep
/// the match's.
pub const DEFAULT_RULES: &str = "rules/kasparov-deep-junior-2003.toml";

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

/// The Unix socket (owner-only) through which the game master's screen hands the arbiter's acts
/// to the table `arbiter serve` runs in this folder; it exists only while `serve` runs.
pub fn control_socket(match_dir: &Path) -> PathBuf {
    match_dir.join("control.sock")
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

/// Name a game log takes while it is created (`log.jsonl.new-<pid>`), before it takes its name.
const NEW_LOG_PREFIX: &str = "log.jsonl.new-";

/// Game `n`'s folder holds only what a creation killed before its log took its name
/// leaves (`log.jsonl.new-<pid>` of processes no longer running, no `log.jsonl`, nothing else):
/// the game was never created and nothing was recorded. Returns the leftover's name. A creation
/// still under way (its process alive, this one included) is not a leftover.
pub fn creation_leftover(match_dir: &Path, n: u32) -> Option<String> {
    let dir = game_dir(match_dir, n);
    let mut found = None;
    for e in std::fs::read_dir(&dir).ok()? {
        let name = e.ok()?.file_name().into_string().ok()?;
        let pid = name.strip_prefix(NEW_LOG_PREFIX)?;
        if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if pid == std::process::id().to_string() || Path::new("/proc").join(pid).exists() {
            return None;
        }
        found = Some(name);
    }
    found
}

/// What a reader says of a game folder holding only a creation leftover (see [`creation_leftover`]).
pub fn never_created(n: u32, leftover: &str) -> String {
    format!(
        "game {n} was never created: a crash during its creation left {GAME_PREFIX}{n}/{leftover} (nothing was recorded)"
    )
}

/// Games whose folder holds only a creation leftover, ascending, with the leftover's name.
pub fn creation_leftovers(match_dir: &Path) -> Vec<(u32, String)> {
    folders(match_dir)
        .into_iter()
        .filter_map(|n| creation_leftover(match_dir, n).map(|l| (n, l)))
        .collect()
}

/// Game numbers that have a folder in the match, ascending (none if the folder cannot be read).
/// A folder holding only a creation leftover ([`creation_leftover`]) is not one of its games.
pub fn games(match_dir: &Path) -> Vec<u32> {
    folders(match_dir)
        .into_iter()
        .filter(|&n| creation_leftover(match_dir, n).is_none())
        .collect()
}

/// Numbers of the `game-<n>` folders of the match, ascending.
fn folders(match_dir: &Path) -> Vec<u32> {
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
