//! What the record's checks need from a game log (SHELL), gathered in one streaming pass: line 0,
//! the result, the changes past the camps' word, the tree heads at chosen sizes.
use std::fs;
use std::path::{Path, PathBuf};

use crate::log::checkpoint::Checkpoint;
use crate::log::index::IndexResult;
use crate::log::{Entry, merkle};
use crate::record::bindings::*;
use crate::record::layout;

/// The latest checkpoint file of a game, parsed (the largest `<N>.txt` that parses). The folder
/// is listed, and files are read from the largest name down: one read, not one per checkpoint.
pub fn latest_checkpoint(match_dir: &Path, game: u32) -> Option<Checkpoint> {
    let dir = layout::checkpoints_dir(match_dir, game);
    let mut named: Vec<(u64, PathBuf)> = fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let n = name.to_str()?.strip_suffix(".txt")?.parse::<u64>().ok()?;
            Some((n, e.path()))
        })
        .collect();
    named.sort_unstable_by_key(|b| std::cmp::Reverse(b.0));
    let mut best: Option<Checkpoint> = None;
    for (n, path) in named {
        // Read from the largest name down, until the best found covers the next name.
        if best.as_ref().is_some_and(|b| b.size >= n) {
            break;
        }
        let Ok(text) = crate::record::fsio::read_to_string(&path) else {
            continue;
        };
        if let Ok(cp) = Checkpoint::parse(&text)
            && best.as_ref().is_none_or(|b| cp.size > b.size)
        {
            best = Some(cp);
        }
    }
    best
}

/// The result an entry list records (`game_ended`'s score), or `*`.
pub(crate) fn result_of(entries: &[Entry]) -> IndexResult {
    entries
        .iter()
        .rev()
        .find(|e| e.kind == "game_ended")
        .map_or(IndexResult::Unfinished, |e| {
            IndexResult::of_game_ended(&e.body)
        })
}

/// The result among the first `size` entries of a log, read line by line.
pub(crate) fn result_upto(path: &Path, size: u64) -> IndexResult {
    let mut result = IndexResult::Unfinished;
    let mut seen = 0u64;
    let _ = crate::record::journal::for_each_entry(path, |e| {
        seen += 1;
        if e.kind == "game_ended" {
            result = result_of(std::slice::from_ref(&e));
        }
        seen < size
    });
    result
}

/// What the checks need from a game log, gathered in one streaming pass (memory: line 0, the
/// archive entries and O(log n) hashes, whatever the log's size).
pub struct LogFacts {
    pub first: Entry,
    pub entries: u64,
    /// Position of the last `game_ended` entry, if the game has a result.
    pub end: Option<u64>,
    /// The rule-13 archive entries (engine log, program copy).
    pub archived: Vec<Entry>,
    /// Tree hashes of the first `size` entries, for each size asked for that the log reaches.
    pub roots: Vec<(u64, [u8; 32])>,
    /// Chain heads `E_{size-1}` at the sizes asked for.
    pub chains: Vec<(u64, [u8; 32])>,
    /// Line 0 binds the log's acts (`"binding":"seal/1"` or `"signed-acts/1"`): its
    /// arbiter-only entries must be covered by signed authorizations.
    pub sealed: bool,
    /// Arbiter-only entries no valid signed authorization covers (sealed logs only).
    pub unauthorized: Vec<(u64, String)>,
    /// `authorized` entries whose key or signature does not verify (sealed logs only).
    pub bad_authorizations: Vec<(u64, String)>,
    /// Entries that change a result, a clock or a ruling, with their positions and kinds (the
    /// latest [`CHANGES_KEPT`] of them).
    pub changes: std::collections::VecDeque<(u64, String)>,
    /// Entries recorded by an actor line 0's profile (`[actors]`) does not allow for their kind
    /// (the first 20), with the refusal in words; and how many there are in all.
    pub bad_actors: Vec<(u64, String)>,
    pub bad_actor_count: u64,
    /// Line 0's profile has an `[actors]` table (logs of profiles without one are not checked).
    pub actors_checked: bool,
}

/// Each camp's latest countersigned checkpoint of game `game` (its size), by the files beside
/// the log (`<size>.<camp>…`): what the Board UI stops asking for. Whether each signature holds is
/// `verify`'s to say; an unreadable folder gives none.
pub fn countersigned_upto(match_dir: &Path, game: u32) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = Vec::new();
    let dir = crate::record::layout::checkpoints_dir(match_dir, game);
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let Some(name) = e.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        let Ok((n, camp)) = crate::log::cosign::parse_file_name(&name) else {
            continue;
        };
        match out.iter_mut().find(|(c, _)| *c == camp) {
            Some((_, upto)) => *upto = (*upto).max(n),
            None => out.push((camp, n)),
        }
    }
    out
}

/// How many result-, clock- or ruling-changing entries [`LogFacts`] keeps (the latest).
pub const CHANGES_KEPT: usize = 4096;

/// Entry kinds that change nothing a camp witnesses (result, clocks, rulings) when they come
/// after the camps' countersignatures: notes, authorization records, recoveries, the rule-13
/// archive. The core's list, which the board's request at a time control uses too.
pub const WITNESS_NEUTRAL: [&str; 7] = crate::core::game::witness::NEUTRAL;

impl LogFacts {
    pub fn root_at(&self, size: u64) -> Option<[u8; 32]> {
        self.roots.iter().find(|(s, _)| *s == size).map(|(_, r)| *r)
    }
    pub fn chain_at(&self, size: u64) -> Option<[u8; 32]> {
        self.chains
            .iter()
            .find(|(s, _)| *s == size)
            .map(|(_, r)| *r)
    }
}

/// Read a game log once for [`LogFacts`], with the tree hashes at `sizes`.
pub fn log_facts(
    path: &Path,
    sizes: &[u64],
) -> Result<LogFacts, crate::record::journal::JournalError> {
    log_facts_checked(path, sizes, None)
}

/// The `[actors]` table of the profile line 0 embeds (`profile.toml`), if it has one.
pub fn profile_actors(first: &Entry) -> Option<crate::core::rules::Actors> {
    let text = first.body.pointer("/profile/toml")?.as_str()?;
    crate::core::rules::Actors::of_profile_text(text)
        .ok()
        .flatten()
}

/// [`log_facts`], and, with the arbiter's key and the game's origin, the signed authorizations
/// of a sealed log checked in the same pass.
pub fn log_facts_checked(
    path: &Path,
    sizes: &[u64],
    key: Option<(&ssh_key::PublicKey, &str)>,
) -> Result<LogFacts, crate::record::journal::JournalError> {
    let mut facts = FactsBuilder::new(key);
    let mut roots = Vec::new();
    let mut chains = Vec::new();
    let mut tree = merkle::RootBuilder::new();
    let n = crate::record::journal::for_each_entry(path, |e| {
        tree.push(e.hash);
        if sizes.contains(&tree.len()) {
            roots.push((tree.len(), tree.root()));
            chains.push((tree.len(), e.hash));
        }
        facts.take(&crate::record::journal::LineView {
            seq: e.seq,
            kind: &e.kind,
            actor: crate::log::ACTORS
                .iter()
                .find(|a| **a == e.actor)
                .copied()
                .unwrap_or(""),
            entry: Some(&e),
            line: None,
            event: None,
            utc: None,
        });
        true
    })?;
    facts.finish(n, roots, chains).ok_or_else(|| {
        crate::record::journal::JournalError::NoFirstEntry {
            path: path.to_owned(),
            detail: "no line 0".into(),
        }
    })
}

/// [`LogFacts`] gathered entry by entry, from the journal's reader ([`log_facts_checked`]) or
/// from the one pass `verify` makes over the log ([`crate::record::verify::verify_game_each`]). Only the
/// kinds [`FactsBuilder::wants`] names (and line 0) need their whole entry.
pub struct FactsBuilder<'k> {
    key: Option<(&'k ssh_key::PublicKey, &'k str)>,
    first: Option<Entry>,
    /// An entry that had to be line 0's stand-in came without its body.
    missing: bool,
    end: Option<u64>,
    archived: Vec<Entry>,
    sealed: bool,
    pending: Vec<(u64, String)>,
    bad_authorizations: Vec<(u64, String)>,
    changes: std::collections::VecDeque<(u64, String)>,
    /// Line 0's `[actors]` table, once line 0 is read.
    actors: Option<crate::core::rules::Actors>,
    bad_actors: Vec<(u64, String)>,
    bad_actor_count: u64,
}

impl<'k> FactsBuilder<'k> {
    pub fn new(key: Option<(&'k ssh_key::PublicKey, &'k str)>) -> FactsBuilder<'k> {
        FactsBuilder {
            key,
            first: None,
            missing: false,
            end: None,
            archived: Vec::new(),
            sealed: false,
            pending: Vec::new(),
            bad_authorizations: Vec::new(),
            changes: std::collections::VecDeque::new(),
            actors: None,
            bad_actors: Vec::new(),
            bad_actor_count: 0,
        }
    }

    /// The kinds whose whole entry [`FactsBuilder::take`] needs (besides line 0).
    pub fn wants(kind: &str) -> bool {
        matches!(
            kind,
            "authorized" | "engine_log_archived" | "program_archived"
        )
    }

    /// Take the next entry into account.
    pub fn take(&mut self, e: &crate::record::journal::LineView<'_>) {
        if e.seq == 0 {
            self.sealed = e.entry.is_some_and(signs_acts);
            self.actors = e.entry.and_then(profile_actors);
        }
        if let Some(actors) = &self.actors
            && let Err(refused) = actors.check(e.kind, e.actor)
        {
            self.bad_actor_count += 1;
            if self.bad_actors.len() < 20 {
                self.bad_actors.push((e.seq, refused.to_string()));
            }
        }
        if e.kind == "game_ended" {
            self.end = Some(e.seq);
        }
        if !WITNESS_NEUTRAL.contains(&e.kind) && e.seq > 0 {
            // The oldest kept entry's text is reused for the newest.
            let mut text = if self.changes.len() == CHANGES_KEPT {
                self.changes.pop_front().map(|c| c.1).unwrap_or_default()
            } else {
                String::new()
            };
            text.clear();
            text.push_str(e.kind);
            self.changes.push_back((e.seq, text));
        }
        if self.sealed {
            if e.kind == "authorized" {
                let holds = match (self.key, e.entry) {
                    (Some((k, origin)), Some(entry)) => authorization_holds(entry, k, origin),
                    (Some(_), None) => Err("its entry was not read".into()),
                    (None, _) => Err("the arbiter key is not known".into()),
                };
                match holds {
                    Ok((a, b)) => self.pending.retain(|(s, _)| !(a..=b).contains(s)),
                    Err(why) => self.bad_authorizations.push((e.seq, why)),
                }
            } else if e.actor == "arbiter" {
                self.pending.push((e.seq, e.kind.to_owned()));
            }
        }
        if e.kind == "engine_log_archived" || e.kind == "program_archived" {
            match e.entry {
                Some(entry) => self.archived.push(entry.clone()),
                None => self.missing = true,
            }
        } else if self.first.is_none() {
            match e.entry {
                Some(entry) => self.first = Some(entry.clone()),
                None => self.missing = true,
            }
        }
    }

    /// The facts of `entries` entries, with the tree hashes and chain heads at the sizes asked
    /// for; `None` without line 0 (or when an entry needed whole came without its body).
    pub fn finish(
        self,
        entries: u64,
        roots: Vec<(u64, [u8; 32])>,
        chains: Vec<(u64, [u8; 32])>,
    ) -> Option<LogFacts> {
        if self.missing {
            return None;
        }
        Some(LogFacts {
            first: self.first?,
            entries,
            end: self.end,
            archived: self.archived,
            roots,
            chains,
            sealed: self.sealed,
            unauthorized: self.pending,
            bad_authorizations: self.bad_authorizations,
            changes: self.changes,
            actors_checked: self.actors.is_some(),
            bad_actors: self.bad_actors,
            bad_actor_count: self.bad_actor_count,
        })
    }
}
