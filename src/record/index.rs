//! The signed match index (SHELL): written beside every checkpoint, read and checked by
//! `verify`, and its countersigned copies.
use std::fs;
use std::path::{Path, PathBuf};

use crate::log::checkpoint::Checkpoint;
use crate::log::index::{IndexResult, IndexedGame, MatchIndex};
use crate::log::{Entry, merkle};
use crate::record::countersign::*;
use crate::record::facts::*;
use crate::record::journal::write_atomic;
use crate::record::layout;
use crate::record::sign::{self, AllowedSigner, SignError};

/// Path of the match index text (its signature adds `.sig`).
pub fn index_path(match_dir: &Path) -> PathBuf {
    match_dir.join("index.txt")
}

pub(crate) fn sig_path(p: &Path) -> PathBuf {
    let mut name = p.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".sig");
    p.with_file_name(name)
}

/// Where a new index text waits for its signature (`index.txt.next`).
pub(crate) fn next_path(p: &Path) -> PathBuf {
    p.with_extension("txt.next")
}

/// Rewrite and sign `DIR/index.txt` after a checkpoint of game `game` over `entries`: every
/// game with a checkpoint, its latest checkpoint and its result. Other games' lines come from
/// the previous index when it has them (they do not change), else from their logs.
pub fn write_index(
    match_dir: &Path,
    game: u32,
    entries: &[Entry],
    key: &dyn crate::record::sign::Signs,
) -> Result<PathBuf, SignError> {
    let match_id = entries
        .first()
        .and_then(|e| e.body.get("match_id"))
        .and_then(|m| m.as_str())
        .ok_or(SignError::NoLineZero)?
        .to_owned();
    write_index_for(match_dir, game, match_id, result_of(entries), key, None)
}

/// [`write_index`] with game `game`'s match id and result already known (a streamed log).
pub fn write_index_for(
    match_dir: &Path,
    game: u32,
    match_id: String,
    this_result: IndexResult,
    key: &dyn crate::record::sign::Signs,
    this_head: Option<(u64, [u8; 32])>,
) -> Result<PathBuf, SignError> {
    let previous = index_in_force(match_dir);
    let mut games = Vec::new();
    for n in layout::games(match_dir) {
        // Game `game` at the tree head about to be signed, when given; every game at its latest
        // checkpoint.
        let (size, root) = match this_head.filter(|_| n == game) {
            Some(h) => h,
            None => match latest_checkpoint(match_dir, n) {
                Some(cp) => (cp.size, cp.root),
                None => continue,
            },
        };
        let result = if n == game {
            this_result
        } else {
            match previous.as_ref().and_then(|p| p.game(n)) {
                Some(g) if g.size == size && g.root == root => g.result,
                _ => result_upto(&layout::log_path(match_dir, n), size),
            }
        };
        games.push(IndexedGame {
            game: n,
            size,
            root,
            result,
        });
    }
    // Forward only: a game the previous index records whose folder is gone keeps its
    // line, so the kit never signs a deletion away (verify then names the missing folder).
    if let Some(p) = &previous {
        for g in &p.games {
            if !games.iter().any(|x| x.game == g.game)
                && !layout::game_dir(match_dir, g.game).exists()
            {
                games.push(g.clone());
            }
        }
        games.sort_by_key(|g| g.game);
    }
    let version = previous.as_ref().map_or(0, |p| p.version) + 1;
    let index = MatchIndex {
        match_id,
        version,
        games,
    };
    let path = index_path(match_dir);
    if index.validate().is_err() {
        // A match id the index cannot hold (e.g. with spaces): nothing to sign.
        return Ok(path);
    }
    let sig = sign::sign_index(key, &index).map_err(|e| SignError::Index(e.to_string()))?;
    // The new text first beside the old (`index.txt.next`), then the signature, then the rename:
    // a crash between any two steps leaves a pair `verify` recognises (read_index), never a
    // signature over another text.
    let next = next_path(&path);
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| SignError::Io {
            op: "write",
            path,
            source,
        }
    };
    write_atomic(&next, index.to_text().as_bytes()).map_err(io(&next))?;
    let sp = sig_path(&path);
    write_atomic(&sp, sig.as_bytes()).map_err(io(&sp))?;
    fs::rename(&next, &path).map_err(io(&path))?;
    crate::record::journal::sync_dir(match_dir).map_err(io(match_dir))?;
    Ok(path)
}

/// The match index in force: the one `verify` reads ([`read_index`], its signature checked
/// against the folder's `allowed_signers`; a write interrupted before its rename counts when its
/// signature is written). Its version and digest are what the next checkpoint names, and the
/// next index is one version later.
pub fn index_in_force(match_dir: &Path) -> Option<MatchIndex> {
    let signers = crate::record::verify::read_allowed_signers(match_dir)
        .map(|t| sign::parse_allowed_signers(&t).0)
        .unwrap_or_default();
    match read_index(match_dir, &signers) {
        IndexState::Signed(i) => Some(i),
        _ => None,
    }
}

/// What a new checkpoint names of the index in force: its version and its text's SHA-256.
pub(crate) fn index_named(match_dir: &Path) -> Option<(u64, [u8; 32])> {
    index_in_force(match_dir).map(|i| (i.version, i.digest()))
}

/// Sign a checkpoint of game `game` over `entries` ([`sign::sign_checkpoint`]) and then the
/// match index that records it ([`write_index`]).
pub fn sign_and_index(
    match_dir: &Path,
    game: u32,
    entries: &[Entry],
    key: &dyn crate::record::sign::Signs,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<PathBuf, SignError> {
    // The index first, recording the tree head about to be signed, then the checkpoint naming
    // that index: a crash between the two leaves an index that is ahead of the
    // checkpoints (what it records, the log holds), never one that is behind them, which is what
    // an older index put back looks like.
    let match_id = entries
        .first()
        .and_then(|e| e.body.get("match_id"))
        .and_then(|m| m.as_str())
        .ok_or(SignError::NoLineZero)?
        .to_owned();
    let hashes: Vec<[u8; 32]> = entries.iter().map(|e| e.hash).collect();
    let head = (entries.len() as u64, merkle::root(&hashes));
    write_index_for(
        match_dir,
        game,
        match_id,
        result_of(entries),
        key,
        Some(head),
    )?;
    sign::sign_checkpoint_indexed(match_dir, game, entries, key, now, index_named(match_dir))
}

/// [`sign_and_index`] from a log's [`crate::record::journal::Tally`] (no entry list held): signs a
/// checkpoint over every entry it took in, then the match index.
pub fn sign_and_index_tally(
    match_dir: &Path,
    game: u32,
    tally: &crate::record::journal::Tally,
    key: &dyn crate::record::sign::Signs,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<PathBuf, SignError> {
    sign_and_index_tally_swept(match_dir, game, tally, key, now, true)
}

/// [`sign_and_index_tally`], the checkpoints folder swept of an interrupted signing's leftovers
/// first only when `sweep` ([`sign::sign_tree_head_swept`]).
pub fn sign_and_index_tally_swept(
    match_dir: &Path,
    game: u32,
    tally: &crate::record::journal::Tally,
    key: &dyn crate::record::sign::Signs,
    now: chrono::DateTime<chrono::Utc>,
    sweep: bool,
) -> Result<PathBuf, SignError> {
    let head = match tally.head() {
        Some(h) => h,
        None if tally.is_empty() => return Err(SignError::EmptyLog),
        None => return Err(SignError::NoLineZero),
    };
    // The index first, then the checkpoint naming it ([`sign_and_index`]).
    write_index_for(
        match_dir,
        game,
        head.match_id.clone(),
        tally.result(),
        key,
        Some((head.size, head.root)),
    )?;
    let index = index_named(match_dir);
    sign::sign_tree_head_swept(match_dir, game, &head, key, now, index, sweep)
}

/// The match index, if there is one, with its signature checked against `signers`.
pub enum IndexState {
    Absent,
    /// Something stands where the index should be but cannot be read as a file (a FIFO, a
    /// device, a folder, a symlink): read as an index removed.
    Unreadable(String),
    Bad(String),
    Signed(MatchIndex),
}

/// Read and check `DIR/index.txt`.
pub fn read_index(match_dir: &Path, signers: &[AllowedSigner]) -> IndexState {
    let path = index_path(match_dir);
    let text = match crate::record::fsio::read_match_small(&path) {
        Ok(b) => match String::from_utf8(b) {
            Ok(t) => t,
            Err(_) => return IndexState::Bad(format!("{} is not UTF-8 text", path.display())),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return IndexState::Absent,
        Err(e) => return IndexState::Unreadable(format!("{}: {e}", path.display())),
    };
    // An index write interrupted between its signature and its text (a crash) left the new
    // text beside the old one: it is the index, and the next write completes the rename.
    let next = next_path(&path);
    if let (Ok(sig), Ok(pending)) = (
        crate::record::fsio::read_to_string(&sig_path(&path)),
        crate::record::fsio::read_match_small(&next),
    ) && sign::verify_signature(signers, text.as_bytes(), &sig).is_err()
        && sign::verify_signature(signers, &pending, &sig).is_ok()
        && let Ok(t) = String::from_utf8(pending)
        && let Ok(i) = MatchIndex::parse(&t)
    {
        return IndexState::Signed(i);
    }
    let index = match MatchIndex::parse(&text) {
        Ok(i) => i,
        Err(e) => return IndexState::Bad(format!("{}: {e}", path.display())),
    };
    let Ok(sig) = crate::record::fsio::read_to_string(&sig_path(&path)) else {
        return IndexState::Bad(format!("{} has no signature file", path.display()));
    };
    match sign::verify_signature(signers, text.as_bytes(), &sig) {
        Ok(_) => IndexState::Signed(index),
        Err(e) => IndexState::Bad(format!("{}: {e}", path.display())),
    }
}

/// What the index says of one game present on disk, against its log: `Err` when the log was cut
/// back or rewritten below the indexed checkpoint.
pub fn check_against_index(g: &IndexedGame, facts: &LogFacts) -> Result<(), String> {
    if facts.entries < g.size {
        return Err(format!(
            "ROLLBACK: the signed match index records game {} with a checkpoint over {} entries ({}), but the log holds only {}",
            g.game,
            g.size,
            g.result.as_str(),
            facts.entries
        ));
    }
    if facts.root_at(g.size) != Some(g.root) {
        return Err(format!(
            "ROLLBACK: the first {} entries of game {} do not have the tree hash the signed match index records: the log was rewritten",
            g.size, g.game
        ));
    }
    Ok(())
}

/// Folder of the countersigned copies of the match index: `DIR/index/<version>.txt` (+ `.sig`,
/// `.cosig-<camp>`).
pub fn kept_index_dir(match_dir: &Path) -> PathBuf {
    match_dir.join("index")
}

/// A countersigned copy of an earlier (or the current) match index version.
pub struct KeptIndex {
    pub index: MatchIndex,
    /// The camps whose countersignatures beside it verify with a key the camp declared in a
    /// line 0 of the match.
    pub camps: Vec<String>,
    /// Countersignature files beside it that do not verify so: the camp, why, and whether it
    /// was checked at all (`false`: no readable line 0 declares the camp).
    pub bad_camps: Vec<(String, String, bool)>,
}

/// The kept index copies whose arbiter signature verifies (others are reported by
/// [`check_index_history`] as bad), in version order.
pub fn kept_indexes(match_dir: &Path, signers: &[AllowedSigner]) -> Vec<KeptIndex> {
    let dir = kept_index_dir(match_dir);
    // Every key each camp declared in a line 0 of the match.
    let declared: Vec<(String, String)> = layout::games(match_dir)
        .into_iter()
        .filter_map(|g| crate::record::journal::first_entry(&layout::log_path(match_dir, g)).ok())
        .flat_map(|first| declared_camps(&first))
        .collect();
    let mut out = Vec::new();
    let mut names: Vec<String> = fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect();
    names.sort();
    for name in &names {
        let Some(stem) = name.strip_suffix(".txt") else {
            continue;
        };
        if stem.parse::<u64>().is_err() {
            continue;
        }
        let path = dir.join(name);
        let Some(text) = crate::record::fsio::read_match_small(&path)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
        else {
            continue;
        };
        let Ok(index) = MatchIndex::parse(&text) else {
            continue;
        };
        let Ok(sig) = crate::record::fsio::read_to_string(&dir.join(format!("{name}.sig"))) else {
            continue;
        };
        if sign::verify_signature(signers, text.as_bytes(), &sig).is_err() {
            continue;
        }
        let prefix = format!("{name}.cosig-");
        let mut camps = Vec::new();
        let mut bad_camps = Vec::new();
        for (n, camp) in names
            .iter()
            .filter_map(|n| n.strip_prefix(&prefix).map(|c| (n, c.to_owned())))
        {
            let armored =
                crate::record::fsio::read_to_string(&dir.join(n)).map_err(|e| e.to_string());
            let keys: Vec<&String> = declared
                .iter()
                .filter(|(c, _)| *c == camp)
                .map(|(_, k)| k)
                .collect();
            if keys.is_empty() {
                bad_camps.push((
                    camp,
                    "no readable line 0 of the match declares the camp: it cannot be checked"
                        .to_owned(),
                    false,
                ));
                continue;
            }
            let checked = armored.and_then(|sig| {
                let mut last = String::new();
                for k in &keys {
                    match ssh_key::PublicKey::from_openssh(k)
                        .map_err(|e| e.to_string())
                        .and_then(|k| {
                            sign::verify_countersignature(&k, text.as_bytes(), &sig)
                                .map_err(|e| e.to_string())
                        }) {
                        Ok(_) => return Ok(()),
                        Err(e) => last = e,
                    }
                }
                Err(last)
            });
            match checked {
                Ok(()) => camps.push(camp),
                Err(why) => bad_camps.push((camp, why, true)),
            }
        }
        out.push(KeptIndex {
            index,
            camps,
            bad_camps,
        });
    }
    out.sort_by_key(|k| k.index.version);
    out
}

/// The index versions game `game`'s validly signed checkpoints name: (entries, version, digest).
/// `known`: checkpoint files whose signature `verify` already found good against the same
/// `signers` (its reports): those are parsed, not checked again.
pub fn named_index_versions(
    match_dir: &Path,
    game: u32,
    signers: &[AllowedSigner],
    known: &[crate::record::verify::CheckpointReport],
) -> Vec<(u64, u64, [u8; 32])> {
    let mut good: Vec<&str> = known
        .iter()
        .filter(|r| r.signer.is_some())
        .map(|r| r.file.as_str())
        .collect();
    good.sort_unstable();
    let dir = layout::checkpoints_dir(match_dir, game);
    let names: Vec<String> = fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|name| name.ends_with(".txt"))
        .collect();
    let named = crate::record::verify::map_on_cores(names, |name| {
        let text = crate::record::fsio::read_to_string(&dir.join(&name)).ok()?;
        let cp = Checkpoint::parse(&text).ok()?;
        let (v, d) = cp.index?;
        if good.binary_search(&name.as_str()).is_ok() {
            return Some((cp.size, v, d));
        }
        let sig = crate::record::fsio::read_to_string(&dir.join(format!("{name}.sig"))).ok()?;
        sign::verify_signature(signers, text.as_bytes(), &sig)
            .is_ok()
            .then_some((cp.size, v, d))
    });
    let mut out: Vec<(u64, u64, [u8; 32])> = named.into_iter().flatten().collect();
    out.sort();
    out
}

/// The match-level checks of the index's history: each countersigned copy is no newer than the
/// current index (a copy of the same version is the same text), and each match code the camps
/// noted names the current index or a kept copy of that version.
pub fn check_index_history(
    match_dir: &Path,
    kept: &[KeptIndex],
    current: Option<(u64, [u8; 32])>,
    codes: &[crate::log::index::MatchCode],
    problems: &mut Vec<String>,
    status: &mut crate::record::verify::Status,
) {
    use crate::record::verify::Status;
    for k in kept {
        let v = k.index.version;
        let camps = if k.camps.is_empty() {
            "no camp yet".to_owned()
        } else {
            k.camps.join(", ")
        };
        problems.push(format!(
            "match index version {v} (code {}) countersigned by {camps}",
            k.index.code()
        ));
        for (camp, why, checked) in &k.bad_camps {
            if *checked {
                problems.push(format!(
                    "BAD COUNTERSIGNATURE of match index version {v} by camp {camp} (index/{v}.txt.cosig-{camp}): {why}; not counted"
                ));
                *status = (*status).max(Status::BadCheckpoint);
            } else {
                problems.push(format!(
                    "countersignature of match index version {v} by camp {camp} not counted: {why}"
                ));
            }
        }
        for g in &k.index.games {
            if !layout::game_dir(match_dir, g.game).exists() {
                problems.push(format!(
                    "ROLLBACK: the match index version {v} the camps countersigned records game {} ({} entries, result {}) but its folder is missing",
                    g.game,
                    g.size,
                    g.result.as_str()
                ));
                *status = (*status).max(Status::RolledBack);
            }
        }
        match current {
            Some((cv, cd)) if v > cv || (v == cv && k.index.digest() != cd) => {
                problems.push(format!(
                    "ROLLBACK: the match index is version {cv}, older than (or other than) the version {v} the camps countersigned: an older index was put back"
                ));
                *status = (*status).max(Status::RolledBack);
            }
            _ => {}
        }
    }
    for c in codes {
        let found = kept
            .iter()
            .map(|k| (k.index.version, k.index.digest()))
            .chain(current)
            .find(|(v, _)| *v == c.version);
        match found {
            Some((v, d)) if crate::log::index::MatchCode::of(v, &d) == *c => {
                problems.push(format!(
                    "noted match code {c}: matches match index version {v}"
                ));
            }
            Some((v, _)) => {
                problems.push(format!(
                    "ROLLBACK: noted match code {c} does not match the match index version {v} in the folder: the index was rewritten"
                ));
                *status = (*status).max(Status::RolledBack);
            }
            None => {
                problems.push(format!(
                    "ROLLBACK: noted match code {c}: the match index version {} the camps noted is not in the folder (the index is version {}): an older index was put back, or the countersigned copy removed",
                    c.version,
                    current.map_or_else(|| "missing".to_owned(), |c| c.0.to_string())
                ));
                *status = (*status).max(Status::RolledBack);
            }
        }
    }
}
