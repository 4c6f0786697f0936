//! What makes a match's record hard to rewrite (SHELL): the signed match index written
//! beside every checkpoint, and the checks `verify` adds on top of each game's chain verdict —
//! the pinned trust anchor, the demo key, the bindings of line 0 and of the rule-13 archive, the
//! index (rollback, deleted games) and the camps' countersignatures.
use std::fs;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use ssh_key::PrivateKey;

use crate::log::checkpoint::Checkpoint;
use crate::log::index::{IndexResult, IndexedGame, MatchIndex};
use crate::log::{Entry, merkle};
use crate::record::journal::{ensure_dir, write_atomic, write_new_file};
use crate::record::layout;
use crate::record::sign::{self, AllowedSigner, SignError};

/// Path of the match index text (its signature adds `.sig`).
pub fn index_path(match_dir: &Path) -> PathBuf {
    match_dir.join("index.txt")
}

fn sig_path(p: &Path) -> PathBuf {
    let mut name = p.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".sig");
    p.with_file_name(name)
}

/// Where a new index text waits for its signature (`index.txt.next`).
fn next_path(p: &Path) -> PathBuf {
    p.with_extension("txt.next")
}

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
fn result_of(entries: &[Entry]) -> IndexResult {
    entries
        .iter()
        .rev()
        .find(|e| e.kind == "game_ended")
        .map_or(IndexResult::Unfinished, |e| {
            IndexResult::of_game_ended(&e.body)
        })
}

/// The result among the first `size` entries of a log, read line by line.
fn result_upto(path: &Path, size: u64) -> IndexResult {
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
    /// Line 0 says `"binding":"seal/1"`: the log is sealed and its authorizations signed.
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

/// Whether line 0 (an entry) binds a sealed log (`arbiter_key.binding` = `seal/1`).
pub fn is_sealed_log(first: &Entry) -> bool {
    first
        .body
        .pointer("/arbiter_key/binding")
        .and_then(|b| b.as_str())
        == Some(crate::log::seal::BINDING)
}

/// Whether an `authorized` entry carries a valid signature by `key` over what it covers.
pub fn authorization_holds(
    e: &Entry,
    key: &ssh_key::PublicKey,
    origin: &str,
) -> Result<(u64, u64), String> {
    let b = &e.body;
    let first = b
        .get("first")
        .and_then(|v| v.as_u64())
        .ok_or("no `first`")?;
    let last = b.get("last").and_then(|v| v.as_u64()).ok_or("no `last`")?;
    let named = b
        .get("key")
        .and_then(|v| v.as_str())
        .ok_or("names no key")?;
    let fp = sign::fingerprint(key);
    if named != fp {
        return Err(format!("names key {named}, not the arbiter key {fp}"));
    }
    if last >= e.seq || first > last {
        return Err(format!("covers {first}..={last}, not entries before it"));
    }
    let sig = b
        .get("sig")
        .and_then(|v| v.as_str())
        .ok_or("carries no signature")?;
    let text = crate::log::seal::authorization_text(origin, e.seq, first, last, &e.prev);
    if sign::verify_authorization(key, &text, sig) {
        Ok((first, last))
    } else {
        Err(format!("its signature by {fp} does not verify"))
    }
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
            self.sealed = e.entry.is_some_and(is_sealed_log);
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

/// Where a game's seal lives (`game-<n>/seal`, a C2SP signed note).
pub fn seal_path(match_dir: &Path, game: u32) -> PathBuf {
    layout::game_dir(match_dir, game).join("seal")
}

/// A game's seal, checked against the arbiter key.
pub fn read_seal(
    match_dir: &Path,
    game: u32,
    key: &ssh_key::PublicKey,
    origin: &str,
) -> Result<crate::log::seal::Seal, String> {
    let p = seal_path(match_dir, game);
    let bytes = crate::record::fsio::read_match_small(&p).map_err(|e| e.to_string())?;
    sign::verify_seal(&bytes, key, origin).map_err(|e| format!("{}: {e}", p.display()))
}

/// Write a game's seal (atomically) with the session's key.
pub fn write_seal(
    match_dir: &Path,
    game: u32,
    key: &PrivateKey,
    seal: &crate::log::seal::Seal,
) -> Result<(), String> {
    let note = sign::sign_seal(key, seal).map_err(|e| e.to_string())?;
    let p = seal_path(match_dir, game);
    write_atomic(&p, note.as_bytes()).map_err(|e| format!("{}: {e}", p.display()))
}

/// The latest checkpoint of a game whose signature by `key` verifies (the sizes it covers are
/// the arbiter's word).
pub fn latest_signed_checkpoint(
    match_dir: &Path,
    game: u32,
    key: &ssh_key::PublicKey,
) -> Option<Checkpoint> {
    let signers = [AllowedSigner {
        principals: vec![sign::DEFAULT_PRINCIPAL.to_owned()],
        namespaces: None,
        key: key.clone(),
    }];
    let dir = layout::checkpoints_dir(match_dir, game);
    let mut best: Option<Checkpoint> = None;
    for e in fs::read_dir(dir).ok()?.flatten() {
        let name = e.file_name();
        let Some(n) = name.to_str().and_then(|f| f.strip_suffix(".txt")) else {
            continue;
        };
        let Ok(size) = n.parse::<u64>() else { continue };
        if best.as_ref().is_some_and(|b| b.size >= size) {
            continue;
        }
        let Ok(text) = crate::record::fsio::read_match_small(&e.path()) else {
            continue;
        };
        let Ok(sig) = crate::record::fsio::read_match_small(&sig_path(&e.path())) else {
            continue;
        };
        let (Ok(text), Ok(sig)) = (String::from_utf8(text), String::from_utf8(sig)) else {
            continue;
        };
        if sign::verify_signature(&signers, text.as_bytes(), &sig).is_err() {
            continue;
        }
        if let Ok(cp) = Checkpoint::parse(&text)
            && cp.size == size
        {
            best = Some(cp);
        }
    }
    best
}

/// Entries of a game the kit may sign or append after: how far the arbiter's own word (the
/// seal, a signed checkpoint) binds the log, and what lies beyond.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// Entries bound by the seal or a signed checkpoint.
    pub bound: u64,
    /// Entries in the log.
    pub entries: u64,
    /// The one entry past the seal is the one in flight when the kit stopped (an open seal,
    /// exactly one entry more).
    pub in_flight: bool,
    /// The seal's state, in words, when it is missing or does not hold.
    pub seal_problem: Option<String>,
    /// Recovery entries (the journal's own torn-tail repairs, which change nothing) past the
    /// binding: not counted as foreign.
    pub neutral: u64,
}

impl Binding {
    /// Entries past the binding, the one in flight at a crash included: nothing tells an entry
    /// in flight from one appended by anything else, so no routine command signs or appends past
    /// it; the arbiter cuts or accepts it (`arbiter foreign`, `arbiter authorize`).
    pub fn foreign(&self) -> u64 {
        self.entries
            .saturating_sub(self.bound)
            .saturating_sub(self.neutral)
    }

    /// The words that name the first entry past the binding when it is the one in flight.
    pub fn in_flight_words(&self) -> String {
        if self.in_flight {
            format!(
                "; entry #{} was in flight at a crash (written, never bound): the arbiter accepts it with a reason or cuts it",
                self.bound
            )
        } else {
            String::new()
        }
    }
}

/// [`binding_of`] for a log on disk, read once (for `arbiter checkpoint`, which holds no
/// session): `Ok(None)` for a v1 log (not sealed), else its binding and the entries past it in
/// words (at most 20).
pub fn binding_on_disk(
    match_dir: &Path,
    game: u32,
    key: &ssh_key::PublicKey,
) -> Result<Option<(Binding, Vec<String>)>, crate::record::journal::JournalError> {
    let log = layout::log_path(match_dir, game);
    let first = crate::record::journal::first_entry(&log)?;
    if !is_sealed_log(&first) {
        return Ok(None);
    }
    let Some(mid) = first.body.get("match_id").and_then(|m| m.as_str()) else {
        return Ok(None);
    };
    let origin = crate::log::checkpoint::origin(mid, game);
    let mut sizes = Vec::new();
    if let Ok(s) = read_seal(match_dir, game, key, &origin) {
        sizes.push(s.size);
    }
    if let Some(cp) = latest_signed_checkpoint(match_dir, game, key) {
        sizes.push(cp.size);
    }
    let from = sizes.iter().copied().min().unwrap_or(0);
    let mut heads = Vec::new();
    let mut beyond: Vec<(u64, String)> = Vec::new();
    let mut recoveries: Vec<u64> = Vec::new();
    let n = crate::record::journal::for_each_entry(&log, |e| {
        if e.kind == crate::log::RECOVERY_KIND && e.actor == "kit" {
            recoveries.push(e.seq);
        }
        if sizes.contains(&(e.seq + 1)) {
            heads.push((e.seq + 1, e.hash));
        }
        if e.seq >= from {
            if beyond.len() == 20 {
                beyond.remove(0);
            }
            beyond.push((
                e.seq,
                format!("#{} {} {} ({})", e.seq, e.actor, e.kind, e.clause),
            ));
        }
        true
    })?;
    let mut b = binding_of(match_dir, game, key, &origin, n, &|size| {
        heads
            .iter()
            .find(|h: &&(u64, [u8; 32])| h.0 == size)
            .map(|h| h.1)
    });
    b.neutral = recoveries.iter().filter(|s| **s >= b.bound).count() as u64;
    let listed = beyond
        .into_iter()
        .filter(|(s, _)| *s >= b.bound)
        .map(|(_, d)| d)
        .collect();
    Ok(Some((b, listed)))
}

/// How far game `game`'s log is bound, given the chain heads `chain_at(size)` of the log, its
/// length `entries` and the arbiter's key.
pub fn binding_of(
    match_dir: &Path,
    game: u32,
    key: &ssh_key::PublicKey,
    origin: &str,
    entries: u64,
    chain_at: &dyn Fn(u64) -> Option<[u8; 32]>,
) -> Binding {
    let mut bound = 0;
    let mut in_flight = false;
    let mut seal_problem = None;
    match read_seal(match_dir, game, key, origin) {
        Ok(s) if s.size <= entries && chain_at(s.size) == Some(s.chain) => {
            bound = s.size;
            in_flight = !s.closed && entries == s.size + 1;
        }
        Ok(s) => {
            seal_problem = Some(format!(
                "the seal binds {} entries with chain head {}, which this log ({entries} entries) does not have: the log was cut back or rewritten",
                s.size,
                crate::log::hex32(&s.chain)
            ))
        }
        Err(e) => seal_problem = Some(format!("no valid seal ({e})")),
    }
    if let Some(cp) = latest_signed_checkpoint(match_dir, game, key)
        && cp.size > bound
        && cp.size <= entries
        && chain_at(cp.size) == Some(cp.chain)
    {
        bound = cp.size;
        in_flight = false;
    }
    Binding {
        bound,
        entries,
        in_flight,
        seal_problem,
        neutral: 0,
    }
}

/// Rewrite and sign `DIR/index.txt` after a checkpoint of game `game` over `entries`: every
/// game with a checkpoint, its latest checkpoint and its result. Other games' lines come from
/// the previous index when it has them (they do not change), else from their logs.
pub fn write_index(
    match_dir: &Path,
    game: u32,
    entries: &[Entry],
    key: &PrivateKey,
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
    key: &PrivateKey,
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
fn index_named(match_dir: &Path) -> Option<(u64, [u8; 32])> {
    index_in_force(match_dir).map(|i| (i.version, i.digest()))
}

/// Sign a checkpoint of game `game` over `entries` ([`sign::sign_checkpoint`]) and then the
/// match index that records it ([`write_index`]).
pub fn sign_and_index(
    match_dir: &Path,
    game: u32,
    entries: &[Entry],
    key: &PrivateKey,
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
    key: &PrivateKey,
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
    key: &PrivateKey,
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
        Err(e) => return IndexState::Bad(format!("{}: {e}", path.display())),
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

/// SHA-256 of a file, lower-case hex.
fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut f = crate::record::fsio::open_regular(path)?;
    let mut h = Sha256::new();
    std::io::copy(&mut f, &mut h)?;
    Ok(hex::encode(h.finalize()))
}

/// Every binding the log makes, checked: line 0's profile digest against the profile text it
/// embeds, and each archived file (13a engine log, 13d program copy) against the digest its
/// entry records. Returns one line per broken binding.
pub fn check_bindings(match_dir: &Path, game: u32, facts: &LogFacts) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(p) = facts.first.body.get("profile") {
        let want = p.get("sha256").and_then(|s| s.as_str());
        if let (Some(want), Some(toml)) = (want, p.get("toml").and_then(|t| t.as_str())) {
            let got = hex::encode(Sha256::digest(toml.as_bytes()));
            if got != want {
                out.push(format!(
                    "BINDING: line 0's profile sha256 {want} is not the SHA-256 of the profile text it embeds ({got})"
                ));
            }
        }
    }
    let dir = layout::game_dir(match_dir, game);
    for e in &facts.archived {
        let Some(stored) = e.body.get("stored") else {
            continue;
        };
        let (Some(name), Some(want)) = (
            stored.get("name").and_then(|n| n.as_str()),
            stored.get("sha256").and_then(|s| s.as_str()),
        ) else {
            continue;
        };
        let path = dir.join(name);
        match sha256_file(&path) {
            Ok(got) if got == want => {}
            Ok(got) => out.push(format!(
                "BINDING: {} has SHA-256 {got}, but entry seq {} recorded {want}: the archived file was changed",
                path.display(),
                e.seq
            )),
            Err(err) => out.push(format!(
                "BINDING: {} (archived in entry seq {}) cannot be read: {err}",
                path.display(),
                e.seq
            )),
        }
    }
    out
}

/// Principals listed with more than one key: each is a warning line.
pub fn duplicate_principals(signers: &[AllowedSigner]) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for s in signers {
        for p in &s.principals {
            if seen.contains(&p.as_str()) {
                continue;
            }
            seen.push(p);
            let keys: Vec<String> = signers
                .iter()
                .filter(|o| o.principals.contains(p))
                .map(|o| sign::fingerprint(&o.key))
                .collect();
            if keys.len() > 1 {
                out.push(format!(
                    "WARNING: the allowed signers list {} keys for principal {p:?} ({}): only one arbiter key should sign a match",
                    keys.len(),
                    keys.join(", ")
                ));
            }
        }
    }
    out
}

/// What `verify` trusts: an allowed-signers text obtained out of band (instead of the folder's
/// own `allowed_signers`, which anyone holding the folder can edit) and/or expected key
/// fingerprints. Neither: the signer is not pinned, and `verify` says so.
#[derive(Debug, Clone, Default)]
pub struct Trust {
    pub signers: Option<String>,
    pub fingerprints: Vec<String>,
    /// The camps' keys obtained out of band (`verify --camps FILE`, an allowed-signers text:
    /// `<camp> [options] <key>` per line): line 0's declared camp keys must be these.
    pub camps: Option<String>,
    /// Match codes the camps noted after countersigning the match index (`verify --code M…`).
    pub match_codes: Vec<crate::log::index::MatchCode>,
}

impl Trust {
    /// The trust text of a file given with `--trust`: an allowed-signers file as it is, or a bare
    /// public key (`ssh-ed25519 AAAA… [comment]`, a `.pub` file) trusted for principal `arbiter`.
    pub fn from_file_text(text: &str) -> Trust {
        let (signers, _) = sign::parse_allowed_signers(text);
        let signers = if signers.is_empty() && ssh_key::PublicKey::from_openssh(text.trim()).is_ok()
        {
            format!(
                "{} namespaces=\"{}\" {}\n",
                sign::DEFAULT_PRINCIPAL,
                crate::log::checkpoint::NAMESPACE,
                text.trim()
            )
        } else {
            text.to_owned()
        };
        Trust {
            signers: Some(signers),
            fingerprints: Vec::new(),
            camps: None,
            match_codes: Vec::new(),
        }
    }

    fn pinned(&self) -> bool {
        self.signers.is_some() || !self.fingerprints.is_empty()
    }
}

/// The verdicts of a whole `verify` run: per game, and the match-level findings (the index,
/// noted short codes) with their own worst status.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MatchVerification {
    pub games: Vec<crate::record::verify::GameVerification>,
    pub match_status: crate::record::verify::Status,
    pub match_problems: Vec<String>,
    /// Whether the signer was pinned (`--trust` / `--fingerprint`).
    pub pinned: bool,
}

impl MatchVerification {
    /// The most severe verdict of the run.
    pub fn worst(&self) -> crate::record::verify::Status {
        crate::record::verify::worst(&self.games).max(self.match_status)
    }
}

use crate::record::verify::raise;

/// Verify games `games` of a match under `trust`, then everything issue 11 adds: the demo key,
/// the pinned key, the bindings, the signed match index, and the noted short codes `codes`.
pub fn verify_match(
    match_dir: &Path,
    games: &[u32],
    trust: &Trust,
    codes: &[crate::log::checkpoint::ShortCode],
) -> MatchVerification {
    verify_match_watching(match_dir, games, trust, codes, None).0
}

/// A reader fed by verify's one pass over a game's log: the game, and what sees its lines.
pub type Watch<'w> = (
    u32,
    &'w mut dyn FnMut(&crate::record::journal::LineView<'_>),
);

/// [`verify_match`], handing `watch`'s game's lines to its reader as verify's one pass over that
/// log checks them (`status` and `pgn` replay the game from the lines verify checked,
/// not from a second read). `true` when that pass gave the verdict and handed every line; `false`
/// when the log went down the exact path (or was not read): what the reader gathered is then to
/// be thrown away.
pub fn verify_match_watching(
    match_dir: &Path,
    games: &[u32],
    trust: &Trust,
    codes: &[crate::log::checkpoint::ShortCode],
    mut watch: Option<Watch<'_>>,
) -> (MatchVerification, bool) {
    use crate::record::verify::Status;
    let mut watched = false;
    let signers_text = match &trust.signers {
        Some(t) => Some(t.clone()),
        None => crate::record::verify::read_allowed_signers(match_dir).ok(),
    };
    let signers = signers_text
        .as_deref()
        .map(|t| sign::parse_allowed_signers(t).0)
        .unwrap_or_default();
    let mut match_problems = duplicate_principals(&signers);
    let mut match_status = Status::Ok;
    let index = read_index(match_dir, &signers);
    let policy = read_policy(match_dir, &signers);
    match &index {
        IndexState::Bad(p) => {
            match_problems.push(format!("BAD MATCH INDEX: {p}"));
            match_status = match_status.max(Status::BadCheckpoint);
        }
        IndexState::Signed(idx) => {
            for g in &idx.games {
                if !layout::game_dir(match_dir, g.game).exists() {
                    match_problems.push(format!(
                        "ROLLBACK: the signed match index records game {} ({} entries, result {}) but its folder is missing",
                        g.game,
                        g.size,
                        g.result.as_str()
                    ));
                    match_status = match_status.max(Status::RolledBack);
                } else if let Some(l) = layout::creation_leftover(match_dir, g.game) {
                    // A leftover of a creation cannot stand for a game the index signed.
                    match_problems.push(format!(
                        "ROLLBACK: the signed match index records game {} ({} entries, result {}) but its folder holds only {l}, a leftover of a creation: its log is missing",
                        g.game,
                        g.size,
                        g.result.as_str()
                    ));
                    match_status = match_status.max(Status::RolledBack);
                }
            }
        }
        IndexState::Absent => {}
    }
    // The countersigned copies of earlier index versions, and the index versions the
    // games' checkpoints were signed with.
    let kept = kept_indexes(match_dir, &signers);
    let current_version = match &index {
        IndexState::Signed(i) => Some((i.version, i.digest())),
        _ => None,
    };
    check_index_history(
        match_dir,
        &kept,
        current_version,
        &trust.match_codes,
        &mut match_problems,
        &mut match_status,
    );
    // No link is followed. A link in a game's folder fails that game (its folder,
    // log or checkpoints folder a link: the game is not read at all); any other fails the match.
    let (links, cut) = links_in(match_dir);
    if cut {
        match_problems.push(format!(
            "the match folder holds more than {LINK_SCAN_ENTRIES} entries: looked for symbolic links in the first ones only"
        ));
    }
    let game_of = |p: &Path| -> Option<u32> {
        let rel = p.strip_prefix(match_dir).ok()?;
        let first = rel.components().next()?.as_os_str().to_str()?;
        let n: u32 = first.strip_prefix("game-")?.parse().ok()?;
        (layout::game_dir(match_dir, n) == match_dir.join(first)).then_some(n)
    };
    for l in links.iter().filter(|l| game_of(l).is_none()) {
        match_problems.push(link_refused(l));
        match_status = match_status.max(Status::Unreadable);
    }
    let mut results = Vec::new();
    let mut code_hits = vec![false; codes.len()];
    let mut any_finished = false;
    // Each camp's key as the match's first game declaring it bound it.
    let mut camp_keys: Vec<(String, u32, ssh_key::public::KeyData)> = Vec::new();
    let mut games: Vec<u32> = games.to_vec();
    games.sort_unstable();
    for &g in &games {
        let game_links: Vec<&PathBuf> = links.iter().filter(|l| game_of(l) == Some(g)).collect();
        let gdir = layout::game_dir(match_dir, g);
        let unread = [
            gdir.clone(),
            layout::log_path(match_dir, g),
            layout::checkpoints_dir(match_dir, g),
        ];
        if let Some(l) = game_links.iter().find(|l| unread.contains(l)) {
            let mut v = crate::record::verify::GameVerification::unreadable(
                g,
                &layout::log_path(match_dir, g),
                link_refused(l),
            );
            v.problems.extend(
                game_links
                    .iter()
                    .filter(|x| *x != l)
                    .map(|x| link_refused(x)),
            );
            results.push(v);
            continue;
        }
        let mut sizes: Vec<u64> = codes.iter().map(|c| c.size).collect();
        if let IndexState::Signed(idx) = &index
            && let Some(ig) = idx.game(g)
        {
            sizes.push(ig.size);
        }
        for k in &kept {
            if let Some(ig) = k.index.game(g) {
                sizes.push(ig.size);
            }
        }
        // The arbiter key line 0 binds (as the trusted signers list it), the seal.
        let line0 = crate::record::journal::first_entry(&layout::log_path(match_dir, g)).ok();
        let bound_fp = line0
            .as_ref()
            .and_then(|e| e.body.pointer("/arbiter_key/fingerprint"))
            .and_then(|f| f.as_str())
            .map(str::to_owned);
        let origin = line0
            .as_ref()
            .and_then(|e| e.body.get("match_id"))
            .and_then(|m| m.as_str())
            .map(|m| crate::log::checkpoint::origin(m, g))
            .unwrap_or_default();
        let public = bound_fp.as_ref().and_then(|fp| {
            signers
                .iter()
                .find(|s| &sign::fingerprint(&s.key) == fp)
                .map(|s| s.key.clone())
        });
        let seal = public.as_ref().map(|k| read_seal(match_dir, g, k, &origin));
        if let Some(Ok(s)) = &seal {
            sizes.push(s.size);
        }
        let checked = public.as_ref().map(|k| (k, origin.as_str()));
        let mut observe = |l: &crate::record::journal::LineView<'_>| {
            if let Some((w, f)) = watch.as_mut()
                && *w == g
            {
                f(l);
            }
        };
        let (mut v, facts) = verify_game_and_facts_each(
            match_dir,
            g,
            trust.signers.as_deref(),
            &sizes,
            checked,
            &mut observe,
        );
        if watch.as_ref().is_some_and(|(w, _)| *w == g) {
            watched = matches!(facts, Ok((_, FactsRead::Streamed)));
        }
        let Ok((facts, _)) = facts else {
            results.push(v);
            continue;
        };
        if facts.sealed {
            check_sealed(&facts, seal, public.is_some(), &mut v);
        }
        check_actors(&facts, &mut v);
        if let Some(k) = &public {
            check_notes(match_dir, g, k, &mut v);
        }
        any_finished |= facts.end.is_some();
        let key = facts.first.body.get("arbiter_key");
        if key.and_then(|k| k.get("demo")).and_then(|d| d.as_bool()) == Some(true) {
            v.problems.push("DEMO KEY: this game is signed with the demo key of logs/demo, which anyone holding the folder can use: its signatures prove nothing".into());
        }
        let fp = key
            .and_then(|k| k.get("fingerprint"))
            .and_then(|f| f.as_str())
            .unwrap_or("?")
            .to_owned();
        if !trust.fingerprints.is_empty() && !trust.fingerprints.contains(&fp) {
            v.problems.push(format!(
                "NOT THE PINNED KEY: line 0 names the arbiter key {fp}, not the pinned {}",
                trust.fingerprints.join(", ")
            ));
            raise(&mut v, Status::BadCheckpoint);
        } else if !trust.pinned() {
            v.problems.push(format!(
                "signer NOT PINNED: checked against {}, which anyone holding the folder can edit; compare the arbiter key {fp} with the fingerprint you received, or give --trust FILE / --fingerprint FP",
                layout::allowed_signers(match_dir).display()
            ));
        }
        for l in &game_links {
            v.problems.push(link_refused(l));
            raise(&mut v, Status::Unreadable);
        }
        check_policy(g, &facts.first, &policy, &mut v);
        check_camp_keys(&facts.first, trust.camps.as_deref(), &mut v);
        if trust.camps.is_none() {
            check_camp_keys_kept(g, &facts.first, &mut camp_keys, &mut v);
        }
        check_countersignatures(match_dir, g, &facts, &mut v);
        check_index_countersigned(match_dir, g, &facts, &kept, &mut v);
        crate::record::verify::check_rerun(match_dir, g, &facts.first, &mut v);
        let broken = check_bindings(match_dir, g, &facts);
        if !broken.is_empty() {
            v.problems.extend(broken);
            raise(&mut v, Status::BadBinding);
        }
        let named = named_index_versions(match_dir, g, &signers, &v.checkpoints);
        if let IndexState::Signed(idx) = &index {
            match idx.game(g) {
                Some(ig) => {
                    if let Err(p) = check_against_index(ig, &facts) {
                        v.problems.push(p);
                        raise(&mut v, Status::RolledBack);
                    } else if v.signed_entries > ig.size {
                        v.problems.push(format!(
                            "ROLLBACK: the signed match index records game {g} at {} entries, but the game has a signed checkpoint over {}: the index is older than the game's own checkpoints (an older index put back)",
                            ig.size, v.signed_entries
                        ));
                        raise(&mut v, Status::RolledBack);
                    }
                }
                None if v.signed_entries > 0 => {
                    v.problems.push(format!(
                        "ROLLBACK: game {g} has signed checkpoints but is not in the signed match index: the index is older than the game (an older index put back)"
                    ));
                    raise(&mut v, Status::RolledBack);
                }
                None => {}
            }
        }
        for k in &kept {
            if let Some(ig) = k.index.game(g)
                && let Err(p) = check_against_index(ig, &facts)
            {
                v.problems.push(format!(
                    "{p} (the match index version {} the camps countersigned)",
                    k.index.version
                ));
                raise(&mut v, Status::RolledBack);
            }
        }
        if let Some((size, named, _)) = named.into_iter().find(|(_, n, d)| match current_version {
            Some((cv, cd)) => *n > cv || (*n == cv && *d != cd),
            None => false,
        }) {
            let cv = current_version.map_or(0, |c| c.0);
            v.problems.push(format!(
                "ROLLBACK: checkpoint {size} of game {g} was signed with match index version {named}, but the match index is version {cv}{}: an older index was put back",
                if named == cv { " with another text" } else { "" }
            ));
            raise(&mut v, Status::RolledBack);
        }
        for (i, c) in codes.iter().enumerate() {
            let n = c.size;
            if facts.root_at(n).is_some_and(|r| c.matches(n, &r)) {
                code_hits[i] = true;
                v.problems.push(format!(
                    "noted code {c}: matches the first {n} entries of this log"
                ));
            }
        }
        results.push(v);
    }
    for (c, hit) in codes.iter().zip(&code_hits) {
        if !hit {
            match_problems.push(format!(
                "ROLLBACK: noted code {c} matches no log checked here: the log a camp noted was cut back or rewritten"
            ));
            match_status = match_status.max(Status::RolledBack);
        }
    }
    let any_signed = results.iter().any(|v| v.signed_entries > 0);
    if matches!(index, IndexState::Absent) && (any_finished || any_signed) {
        match_problems.push(format!(
            "ROLLBACK: NO SIGNED MATCH INDEX ({}), but the match has signed checkpoints: the index was removed; a deleted game or a log cut back to an older checkpoint cannot be ruled out",
            index_path(match_dir).display()
        ));
        if any_signed {
            match_status = match_status.max(Status::RolledBack);
        }
    }
    let m = MatchVerification {
        games: results,
        match_status,
        match_problems,
        pinned: trust.pinned(),
    };
    (m, watched)
}

/// How deep [`links_in`] looks below the match folder, and how many entries it reads at most.
const LINK_SCAN_DEPTH: usize = 4;
const LINK_SCAN_ENTRIES: usize = 100_000;

/// Symbolic links in a match folder (a hostile folder cannot steer the verifier): every
/// link below `match_dir` (the index, its countersigned copies, each game's folder, log, seal,
/// heartbeat, checkpoints and archive) but `keys/` (the arbiter's key is his to keep where he
/// likes; `verify` reads none). The kit writes no link, so any is someone else's. Never goes
/// through a link; reads at most [`LINK_SCAN_ENTRIES`] entries, [`LINK_SCAN_DEPTH`] deep (the
/// second value says the scan stopped there).
pub fn links_in(match_dir: &Path) -> (Vec<PathBuf>, bool) {
    let mut links = Vec::new();
    let mut seen = 0usize;
    let mut stack = vec![(match_dir.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > LINK_SCAN_ENTRIES {
                return (links, true);
            }
            let Ok(ft) = e.file_type() else { continue };
            let path = e.path();
            if ft.is_symlink() {
                links.push(path);
            } else if ft.is_dir()
                && depth < LINK_SCAN_DEPTH
                && !(depth == 0 && e.file_name() == "keys")
            {
                stack.push((path, depth + 1));
            }
        }
    }
    links.sort();
    (links, false)
}

/// The line `verify` prints for a link found by [`links_in`].
fn link_refused(p: &Path) -> String {
    let to = fs::read_link(p)
        .map(|t| format!(" (to {})", t.display()))
        .unwrap_or_default();
    format!(
        "SYMLINK REFUSED: {} is a symbolic link{to}: a match folder holds none (the kit writes no link), so it is not followed; what it stands for counts as missing",
        p.display()
    )
}

/// Which way [`verify_game_and_facts`] gathered the facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactsRead {
    /// In the verifier's one pass over the log.
    Streamed,
    /// Read again line by line ([`log_facts_checked`]): the log had something to report.
    Again,
}

/// The verdict on game `game` ([`crate::record::verify::verify_game_trusting`]) and the [`LogFacts`]
/// every further check needs, with the tree hashes at `sizes`, in one pass over the log when it
/// is clean; a log with anything to report is read again, line by line, for the facts.
pub fn verify_game_and_facts(
    match_dir: &Path,
    game: u32,
    trusted: Option<&str>,
    sizes: &[u64],
    key: Option<(&ssh_key::PublicKey, &str)>,
) -> (
    crate::record::verify::GameVerification,
    Result<(LogFacts, FactsRead), crate::record::journal::JournalError>,
) {
    verify_game_and_facts_each(match_dir, game, trusted, sizes, key, &mut |_| {})
}

/// [`verify_game_and_facts`], handing `observe` every line of the one pass as well.
pub fn verify_game_and_facts_each(
    match_dir: &Path,
    game: u32,
    trusted: Option<&str>,
    sizes: &[u64],
    key: Option<(&ssh_key::PublicKey, &str)>,
    observe: &mut dyn FnMut(&crate::record::journal::LineView<'_>),
) -> (
    crate::record::verify::GameVerification,
    Result<(LogFacts, FactsRead), crate::record::journal::JournalError>,
) {
    let mut builder = FactsBuilder::new(key);
    let (v, heads) = crate::record::verify::verify_game_each(
        match_dir,
        game,
        trusted,
        sizes,
        &FactsBuilder::wants,
        |line| {
            builder.take(line);
            observe(line);
        },
    );
    let streamed = heads.and_then(|h| {
        let at: Vec<_> = h.heads.iter().filter(|x| sizes.contains(&x.0)).collect();
        let roots = at.iter().map(|x| (x.0, x.1)).collect();
        let chains = at.iter().map(|x| (x.0, x.2)).collect();
        builder.finish(h.entries, roots, chains)
    });
    let facts = match streamed {
        Some(f) => Ok((f, FactsRead::Streamed)),
        None => log_facts_checked(&layout::log_path(match_dir, game), sizes, key)
            .map(|f| (f, FactsRead::Again)),
    };
    (v, facts)
}

/// Line 0's declared camp keys against the camps' keys pinned out of band (`--camps`): a camp
/// declared with another key, or not listed, fails the game; without a pinned list, `verify`
/// says the camps are not pinned.
fn check_camp_keys(
    first: &Entry,
    pinned: Option<&str>,
    v: &mut crate::record::verify::GameVerification,
) {
    use crate::record::verify::Status;
    let camps = declared_camps(first);
    if camps.is_empty() {
        return;
    }
    check_camp_proofs(first, v);
    let Some(text) = pinned else {
        let listed: Vec<String> = camps
            .iter()
            .map(|(n, k)| {
                let fp = ssh_key::PublicKey::from_openssh(k)
                    .map(|k| sign::fingerprint(&k))
                    .unwrap_or_else(|_| "?".into());
                format!("{n} {fp}")
            })
            .collect();
        v.problems.push(format!(
            "camps NOT PINNED: line 0 declares {} (its proofs show a camp held each key, not that it is the key the camp gave the committee); each camp compares its own key's fingerprint, or give --camps FILE",
            listed.join(", ")
        ));
        return;
    };
    let (signers, _) = sign::parse_allowed_signers(text);
    for (name, key_text) in &camps {
        let declared = ssh_key::PublicKey::from_openssh(key_text).ok();
        let pinned: Vec<&AllowedSigner> = signers
            .iter()
            .filter(|s| s.principals.iter().any(|p| p == name))
            .collect();
        let ok = declared
            .as_ref()
            .is_some_and(|d| pinned.iter().any(|s| s.key.key_data() == d.key_data()));
        if !ok {
            let found = declared
                .as_ref()
                .map(sign::fingerprint)
                .unwrap_or_else(|| "an unreadable key".into());
            let want: Vec<String> = pinned.iter().map(|s| sign::fingerprint(&s.key)).collect();
            v.problems.push(format!(
                "CAMP KEY NOT THE PINNED ONE: line 0 declares camp {name} with {found}, but the pinned camps file lists {}",
                if want.is_empty() { "no key for it".to_owned() } else { want.join(", ") }
            ));
            raise(v, Status::BadCheckpoint);
        }
    }
}

// ---- The match policy: what every game of the match is held to --------------------------

/// Where a match's policy lives (`DIR/policy.txt`; its SSHSIG beside it, `policy.txt.sig`).
pub fn policy_path(match_dir: &Path) -> PathBuf {
    match_dir.join("policy.txt")
}

/// The SHA-256 (hex) of the policy a new game's line 0 names: the match's, written and signed
/// with `key` now when the match has none yet (it then holds games from `game` on, with the
/// camps `line0` declares). A policy that is there is kept as it is (`verify` checks it).
pub fn ensure_policy(
    match_dir: &Path,
    game: u32,
    key: &PrivateKey,
    line0: &serde_json::Value,
) -> Result<String, String> {
    use sha2::Digest;
    let path = policy_path(match_dir);
    if let Ok(text) = crate::record::fsio::read_to_string(&path) {
        return Ok(hex::encode(sha2::Sha256::digest(text.as_bytes())));
    }
    // Two kits creating the match's first games at once: one writes the policy, under this
    // lock, and the other takes it.
    let lock_path = match_dir.join("policy.lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&lock_path)
        .map_err(|e| format!("{}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("{}: {e}", lock_path.display()))?;
    if let Ok(text) = crate::record::fsio::read_to_string(&path) {
        return Ok(hex::encode(sha2::Sha256::digest(text.as_bytes())));
    }
    let match_id = line0
        .get("match_id")
        .and_then(|m| m.as_str())
        .ok_or("line 0 binds no match id")?;
    let camps = camps_in(line0);
    let mut instance = [0u8; 16];
    rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut instance);
    let policy = crate::log::policy::Policy {
        match_id: match_id.to_owned(),
        instance: hex::encode(instance),
        binding: crate::log::seal::BINDING.to_owned(),
        arbiter: sign::fingerprint(key.public_key()),
        first_game: game,
        camps,
    };
    let text = policy.to_text().map_err(|e| e.to_string())?;
    let sig = key
        .sign(
            crate::log::checkpoint::NAMESPACE,
            ssh_key::HashAlg::Sha512,
            text.as_bytes(),
        )
        .and_then(|s| s.to_pem(ssh_key::LineEnding::LF))
        .map_err(|e| e.to_string())?;
    let sig_path = sig_path(&path);
    crate::record::journal::write_atomic(&sig_path, sig.as_bytes())
        .map_err(|e| format!("{}: {e}", sig_path.display()))?;
    crate::record::journal::write_atomic(&path, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(hex::encode(sha2::Sha256::digest(text.as_bytes())))
}

/// The match's policy as `verify` reads it: `None` when the match has none, else the policy and
/// the SHA-256 of its text, or why it does not hold (unreadable, unsigned, not by a key of
/// `allowed_signers`, not in its one form).
pub fn read_policy(
    match_dir: &Path,
    signers: &[AllowedSigner],
) -> Option<Result<(crate::log::policy::Policy, [u8; 32]), String>> {
    use sha2::Digest;
    let path = policy_path(match_dir);
    if std::fs::symlink_metadata(&path).is_err() {
        return None;
    }
    let read = || -> Result<(crate::log::policy::Policy, [u8; 32]), String> {
        let text = crate::record::fsio::read_to_string(&path).map_err(|e| e.to_string())?;
        let sig = crate::record::fsio::read_to_string(&sig_path(&path))
            .map_err(|e| format!("its signature: {e}"))?;
        sign::verify_signature(signers, text.as_bytes(), &sig)
            .map_err(|e| format!("its signature: {e}"))?;
        let p = crate::log::policy::Policy::parse(&text).map_err(|e| e.to_string())?;
        Ok((p, sha2::Sha256::digest(text.as_bytes()).into()))
    };
    Some(read())
}

/// What the match policy says against game `game` before the kit signs it (`checkpoint`): the
/// problems [`check_policy`] finds that fail a game (downgraded, of another match, camps left
/// out or unproven), in words; none when the match has no policy or the game holds to it.
pub fn policy_refusals(match_dir: &Path, game: u32) -> Vec<String> {
    use crate::record::verify::{GameVerification, Status};
    let log = layout::log_path(match_dir, game);
    let Ok(first) = crate::record::journal::first_entry(&log) else {
        return Vec::new();
    };
    let signers = crate::record::fsio::read_to_string(&layout::allowed_signers(match_dir))
        .map(|t| sign::parse_allowed_signers(&t).0)
        .unwrap_or_default();
    let policy = read_policy(match_dir, &signers);
    let mut v = GameVerification::unreadable(game, &log, String::new());
    v.status = Status::Ok;
    v.problems.clear();
    check_policy(game, &first, &policy, &mut v);
    if v.status == Status::Ok {
        return Vec::new();
    }
    v.problems
}

/// Hold game `game` (its line 0, `first`) to the match policy: a game of another match is
/// `FOREIGN_GAME`; a game the policy holds whose line 0 does not name it, or binds its entries
/// otherwise, is `DOWNGRADED` (as is every game when the policy a line 0 names is missing; a
/// policy whose signature does not hold is a `BAD_CHECKPOINT`, as an index's); one that leaves
/// out a camp the policy names is `CAMPS_DROPPED`; a camp key
/// without its proof of possession in such a game is `CAMPS_NOT_PROVEN`.
fn check_policy(
    game: u32,
    first: &Entry,
    policy: &Option<Result<(crate::log::policy::Policy, [u8; 32]), String>>,
    v: &mut crate::record::verify::GameVerification,
) {
    use crate::record::verify::Status;
    let named = first
        .body
        .pointer("/arbiter_key/policy")
        .and_then(|p| p.as_str());
    let (p, digest) = match policy {
        None => {
            if let Some(n) = named {
                v.problems.push(format!(
                    "DOWNGRADED: line 0 names the match policy {n}, but the match folder holds no policy.txt: whatever it held games to cannot be checked"
                ));
                raise(v, Status::Downgraded);
            }
            return;
        }
        Some(Err(why)) => {
            // As a badly signed index: a signature by a key the verifier does not trust.
            v.problems
                .push(format!("BAD MATCH POLICY: policy.txt does not hold: {why}"));
            raise(v, Status::BadCheckpoint);
            return;
        }
        Some(Ok((p, d))) => (p, hex::encode(d)),
    };
    let match_id = first
        .body
        .get("match_id")
        .and_then(|m| m.as_str())
        .unwrap_or_default();
    if match_id != p.match_id {
        v.problems.push(format!(
            "FOREIGN_GAME: line 0 is of match {match_id:?}, but this match's policy is of match {:?}: the game was brought in from another match",
            p.match_id
        ));
        raise(v, Status::ForeignGame);
        return;
    }
    if game < p.first_game {
        return;
    }
    match named {
        Some(n) if n == digest => {}
        Some(n) => {
            v.problems.push(format!(
                "FOREIGN_GAME: line 0 names the match policy {n}, but this match's policy.txt is {digest}: the game was brought in from another match (or the policy replaced)"
            ));
            raise(v, Status::ForeignGame);
        }
        None => {
            v.problems.push(format!(
                "DOWNGRADED: the match policy holds every game from game {} on, but line 0 names no policy",
                p.first_game
            ));
            raise(v, Status::Downgraded);
        }
    }
    let binding = first
        .body
        .pointer("/arbiter_key/binding")
        .and_then(|b| b.as_str())
        .unwrap_or("none");
    if binding != p.binding {
        v.problems.push(format!(
            "DOWNGRADED: the match policy binds every game's entries by {}, but line 0 says {binding}: the checks that binding makes would be off",
            p.binding
        ));
        raise(v, Status::Downgraded);
    }
    // A camp declared with another key is the camp-key checks' (a changed key, 25; or the
    // committee's pinned list); here, a camp left out.
    let declared = declared_camps(first);
    for (label, key) in &p.camps {
        if !declared.iter().any(|(n, _)| n == label) {
            v.problems.push(format!(
                "CAMPS_DROPPED: the match policy names camp {label} ({}), which line 0 does not declare: its countersignatures would not be asked for",
                crate::core::camp::fingerprint(key)
            ));
            raise(v, Status::CampsDropped);
        }
    }
    let camps = first
        .body
        .pointer("/declarations/camps")
        .and_then(|c| c.as_array())
        .cloned()
        .unwrap_or_default();
    for c in &camps {
        if c.get("proof").and_then(|p| p.as_str()).is_none() {
            let name = c.get("name").and_then(|n| n.as_str()).unwrap_or("?");
            v.problems.push(format!(
                "CAMPS_NOT_PROVEN: line 0 binds camp {name} without its proof of possession, in a game the match policy holds (written after proofs existed)"
            ));
            raise(v, Status::CampsNotProven);
        }
    }
}

/// A camp's key is the match's from the first game that declares it: a later game's
/// line 0 declaring another key for the camp (the arbiter binding a key of his own, with his own
/// proof, to countersign in the camp's name) is a bad binding (25), named with both fingerprints
/// and games. With the camps pinned (`--camps`) the pinned list rules instead.
fn check_camp_keys_kept(
    game: u32,
    first: &Entry,
    kept: &mut Vec<(String, u32, ssh_key::public::KeyData)>,
    v: &mut crate::record::verify::GameVerification,
) {
    for (name, key_text) in declared_camps(first) {
        let Ok(key) = ssh_key::PublicKey::from_openssh(&key_text) else {
            continue;
        };
        match kept.iter().find(|(n, _, _)| *n == name) {
            Some((_, g0, k0)) if k0 != key.key_data() => {
                let was = sign::fingerprint(&ssh_key::PublicKey::from(k0.clone()));
                v.problems.push(format!(
                    "CAMP KEY CHANGED: line 0 of game {game} declares camp {name} with {}, but game {g0} declared it with {was}: a camp's key is the match's from its first declaration (another key could be one the arbiter holds, countersigning in the camp's name); pin the camps' keys with --camps FILE if the committee agreed to the change",
                    sign::fingerprint(&key)
                ));
                raise(v, crate::record::verify::Status::BadBinding);
            }
            Some(_) => {}
            None => kept.push((name, game, key.key_data().clone())),
        }
    }
}

/// Each camp's key as the games of the match before `game` bound it (the first line 0 that
/// declares the camp), for [`crate::core::game::Game::with_match_camps`]. A log that cannot be
/// read gives nothing (its game's own verdict says why).
pub fn match_camps(match_dir: &Path, game: u32) -> Vec<crate::core::game::witness::MatchCamp> {
    let mut out: Vec<crate::core::game::witness::MatchCamp> = Vec::new();
    let mut earlier: Vec<u32> = layout::games(match_dir)
        .into_iter()
        .filter(|g| *g < game)
        .collect();
    earlier.sort_unstable();
    for g in earlier {
        let Ok(first) = crate::record::journal::first_entry(&layout::log_path(match_dir, g)) else {
            continue;
        };
        for (name, key) in declared_camps(&first) {
            if !out.iter().any(|c| c.name == name) {
                out.push(crate::core::game::witness::MatchCamp {
                    name,
                    game: g,
                    key: key.split_whitespace().take(2).collect::<Vec<_>>().join(" "),
                });
            }
        }
    }
    out
}

/// Each camp's proof of possession in line 0 ([`crate::core::camp`]), checked against the
/// declared key and line 0's match id: a proof that does not hold is a bad binding (25); a line 0
/// written before proofs existed binds keys on the arbiter's word, and `verify` says so.
fn check_camp_proofs(first: &Entry, v: &mut crate::record::verify::GameVerification) {
    use crate::record::verify::Status;
    let match_id = first
        .body
        .get("match_id")
        .and_then(|m| m.as_str())
        .unwrap_or_default();
    let camps = first
        .body
        .pointer("/declarations/camps")
        .and_then(|c| c.as_array())
        .cloned()
        .unwrap_or_default();
    let mut unproven = Vec::new();
    for c in &camps {
        let name = c.get("name").and_then(|n| n.as_str()).unwrap_or("?");
        let key = c.get("key").and_then(|k| k.as_str()).unwrap_or_default();
        let fp = crate::core::camp::fingerprint(key);
        match c.get("proof").and_then(|p| p.as_str()) {
            None => unproven.push(format!("{name} {fp}")),
            Some(proof) => {
                if let Err(why) = crate::core::camp::check_proof(match_id, name, key, proof) {
                    v.problems.push(format!(
                        "BAD CAMP PROOF: line 0 binds camp {name} with {fp}, but {why}"
                    ));
                    raise(v, Status::BadBinding);
                }
            }
        }
    }
    if !unproven.is_empty() {
        v.problems.push(format!(
            "camp keys NOT PROVEN: line 0 (written before proofs of possession) binds {} on the arbiter's word alone; no camp signed its declaration",
            unproven.join(", ")
        ));
    }
}

/// Every signed note of a game (`checkpoints/<N>.note`), checked against its `<N>.txt` and the
/// arbiter key line 0 binds: an edited, forged or swapped note is a bad checkpoint.
fn check_notes(
    match_dir: &Path,
    game: u32,
    key: &ssh_key::PublicKey,
    v: &mut crate::record::verify::GameVerification,
) {
    use crate::record::verify::Status;
    let dir = layout::checkpoints_dir(match_dir, game);
    let mut names: Vec<String> = fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|n| n.ends_with(".note"))
        .collect();
    names.sort();
    // A signed checkpoint whose note is gone: the kit writes the note with every checkpoint, so
    // in a game whose checkpoints have notes a missing one was deleted.
    if !names.is_empty() {
        let mut texts: Vec<String> = fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .filter(|n| n.ends_with(".txt") && n.trim_end_matches(".txt").parse::<u64>().is_ok())
            .collect();
        texts.sort();
        for t in texts {
            let note = format!("{}.note", t.trim_end_matches(".txt"));
            if names.binary_search(&note).is_err() {
                v.problems.push(format!(
                    "NOTE MISSING: checkpoints/{note}, the signed note the kit writes with checkpoints/{t}, is gone (deleted)"
                ));
                raise(v, Status::BadCheckpoint);
            }
        }
    }
    // Each note read and its signature checked on the cores (thousands in a game with a
    // checkpoint at every stop); what they say is reported in order.
    let judged = crate::record::verify::map_on_cores(names, |name| {
        let stem = name.trim_end_matches(".note");
        let note = crate::record::fsio::read_match_small(&dir.join(&name));
        let text = crate::record::fsio::read_match_small(&dir.join(format!("{stem}.txt")));
        let missing = !dir.join(format!("{stem}.txt")).exists()
            && fs::symlink_metadata(dir.join(format!("{stem}.txt"))).is_err();
        let problem = match (note, text) {
            (Err(e), _) => Err(format!("cannot be read: {e}")),
            // The kit writes a checkpoint's text last, so a note signed by the key with no text
            // beside it is what a crash mid-checkpoint leaves (the next open removes it): said,
            // not held against the log (an honest crash is not tampering).
            (Ok(note), Err(_)) if missing && sign::verify_checkpoint_note(&note, key).is_ok() => {
                Ok(Some(format!(
                    "checkpoints/{name}: a leftover of a checkpoint interrupted before its text was written (a crash; the next open removes it); it covers nothing"
                )))
            }
            (_, Err(_)) => Err(format!("has no checkpoint {stem}.txt beside it")),
            (Ok(note), Ok(text)) => match sign::verify_checkpoint_note(&note, key) {
                Err(e) => Err(e.to_string()),
                Ok((_, n)) if n.text.as_bytes() != text.as_slice() => {
                    Err(format!("its text is not {stem}.txt"))
                }
                Ok(_) => Ok(None),
            },
        };
        (name, problem)
    });
    for (name, problem) in judged {
        match problem {
            Ok(said) => v.problems.extend(said),
            Err(p) => {
                v.problems.push(format!("BAD NOTE checkpoints/{name}: {p}"));
                raise(v, Status::BadCheckpoint);
            }
        }
    }
}

/// The checks of a sealed log: every arbiter-only entry covered by a signed
/// authorization, and the entries past the seal and every signed checkpoint named.
fn check_sealed(
    facts: &LogFacts,
    seal: Option<Result<crate::log::seal::Seal, String>>,
    key_known: bool,
    v: &mut crate::record::verify::GameVerification,
) {
    use crate::record::verify::Status;
    if !key_known {
        v.problems.push("UNAUTHORIZED: line 0's arbiter key is not among the trusted signers: no authorization can be checked".into());
        raise(v, Status::Unauthorized);
        return;
    }
    for (seq, why) in facts.bad_authorizations.iter().take(20) {
        v.problems
            .push(format!("UNAUTHORIZED: authorized entry #{seq} {why}"));
    }
    // Entries of the unsigned tail are not judged here (the tail is never a pass, and an
    // authorization may still follow them); signed ones must be authorized.
    let unauthorized: Vec<&(u64, String)> = facts
        .unauthorized
        .iter()
        .filter(|(s, _)| *s < v.signed_entries)
        .collect();
    if !unauthorized.is_empty() {
        let named: Vec<String> = unauthorized
            .iter()
            .take(20)
            .map(|(s, k)| format!("#{s} {k}"))
            .collect();
        v.problems.push(format!(
            "UNAUTHORIZED: {} arbiter-only entr{} no valid authorization by the arbiter key covers: {}{}",
            unauthorized.len(),
            if unauthorized.len() == 1 { "y" } else { "ies" },
            named.join(", "),
            if unauthorized.len() > 20 { ", …" } else { "" }
        ));
    }
    if !unauthorized.is_empty() || !facts.bad_authorizations.is_empty() {
        raise(v, Status::Unauthorized);
    }
    let sealed_upto = match seal {
        Some(Ok(s)) if facts.chain_at(s.size) == Some(s.chain) => s.size,
        Some(Ok(s)) => {
            v.problems.push(format!(
                "SEAL: the kit's seal binds {} entries with chain head {}, which this log does not have: the log was cut back or rewritten after the kit last wrote it",
                s.size,
                crate::log::hex32(&s.chain)
            ));
            raise(v, Status::RolledBack);
            0
        }
        Some(Err(e)) => {
            v.problems.push(format!("no valid seal: {e}"));
            0
        }
        None => 0,
    };
    let bound = sealed_upto.max(v.signed_entries);
    if facts.entries > bound {
        v.problems.push(format!(
            "FOREIGN: entries #{}..#{} are bound neither by the kit's seal nor by a signed checkpoint: they were not written by the kit in a session of the arbiter key (or the last one was in flight at a crash)",
            bound,
            facts.entries - 1
        ));
        raise(v, Status::UnsignedTail);
    }
}

/// Entries recorded by an actor the game's profile does not allow for their kind: `BAD_ACTOR`,
/// each named (the first 20).
fn check_actors(facts: &LogFacts, v: &mut crate::record::verify::GameVerification) {
    if facts.bad_actor_count == 0 {
        return;
    }
    for (seq, why) in &facts.bad_actors {
        v.problems.push(format!("BAD_ACTOR: entry #{seq}: {why}"));
    }
    if facts.bad_actor_count > facts.bad_actors.len() as u64 {
        v.problems.push(format!(
            "BAD_ACTOR: {} entries in all by an actor the profile does not allow",
            facts.bad_actor_count
        ));
    }
    raise(v, crate::record::verify::Status::BadActor);
}

/// Where a camp's countersignature comes from.
#[derive(Debug, Clone)]
pub enum CosignSource {
    /// Sign with the camp's own Ed25519 key file here (its passphrase from the variable, or the
    /// terminal).
    Key {
        file: PathBuf,
        passphrase_env: Option<String>,
    },
    /// An armored signature the camp made with stock OpenSSH (`ssh-keygen -Y sign -n
    /// arbiter-kit-countersign@v1`).
    Signature(PathBuf),
}

/// Why a countersignature was not stored.
#[derive(Debug, thiserror::Error)]
pub enum CountersignError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("game {0} has no signed checkpoint to countersign")]
    NoCheckpoint(u32),
    #[error(
        "camp {camp:?} is not declared in line 0 of game {game} (declared: {declared}); declare it before the game: arbiter declare camp NAME proof FILE"
    )]
    NotDeclared {
        camp: String,
        game: u32,
        declared: String,
    },
    #[error("camp {camp:?}: the declared key does not parse: {problem}")]
    DeclaredKey { camp: String, problem: String },
    #[error(transparent)]
    Key(#[from] SignError),
    #[error("cannot countersign: {0}")]
    Sign(#[from] sign::WitnessError),
    #[error("countersignature refused: {0}")]
    Refused(#[from] sign::CosignProblem),
    #[error("{0} exists with another countersignature; it is kept")]
    Exists(PathBuf),
    /// A camp's proof of possession that does not hold.
    #[error("{0}")]
    Proof(String),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The camps line 0 declares: (name, OpenSSH public key text).
pub fn declared_camps(first: &Entry) -> Vec<(String, String)> {
    camps_in(&first.body)
}

/// The camps a line 0 body declares: (name, OpenSSH public key text).
fn camps_in(line0: &serde_json::Value) -> Vec<(String, String)> {
    line0
        .pointer("/declarations/camps")
        .and_then(|c| c.as_array())
        .map(|cs| {
            cs.iter()
                .filter_map(|c| {
                    Some((
                        c.get("name")?.as_str()?.to_owned(),
                        c.get("key")?.as_str()?.to_owned(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Countersign checkpoint `size` (default: the latest) of game `game` for `camp`: the signature
/// is checked against the key line 0 declares for the camp, then stored as
/// `checkpoints/<N>.txt.cosig-<camp>`. Returns the file and the signing key's fingerprint.
pub fn countersign_checkpoint(
    match_dir: &Path,
    game: u32,
    size: Option<u64>,
    camp: &str,
    source: &CosignSource,
) -> Result<(PathBuf, String), CountersignError> {
    let log = layout::log_path(match_dir, game);
    let first = crate::record::journal::first_entry(&log).map_err(|e| CountersignError::Read {
        path: log.clone(),
        source: std::io::Error::other(e.to_string()),
    })?;
    let camps = declared_camps(&first);
    let Some((_, key_text)) = camps.iter().find(|(n, _)| n == camp) else {
        return Err(CountersignError::NotDeclared {
            camp: camp.to_owned(),
            game,
            declared: if camps.is_empty() {
                "none".into()
            } else {
                camps
                    .iter()
                    .map(|c| c.0.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        });
    };
    let declared =
        ssh_key::PublicKey::from_openssh(key_text).map_err(|e| CountersignError::DeclaredKey {
            camp: camp.to_owned(),
            problem: e.to_string(),
        })?;
    let size = match size {
        Some(s) => s,
        None => latest_checkpoint(match_dir, game)
            .map(|c| c.size)
            .ok_or(CountersignError::NoCheckpoint(game))?,
    };
    let cp_path = layout::checkpoint_path(match_dir, game, size);
    let text =
        crate::record::fsio::read_to_string(&cp_path).map_err(|source| CountersignError::Read {
            path: cp_path.clone(),
            source,
        })?;
    let armored = match source {
        CosignSource::Key {
            file,
            passphrase_env,
        } => {
            let pass = sign::passphrase_from_env(passphrase_env.as_deref())?;
            let key = sign::load_key(file, pass.as_ref().map(|p| p.as_str()))?;
            sign::countersign(&key, &text)?
        }
        CosignSource::Signature(p) => {
            crate::record::fsio::read_to_string(p).map_err(|source| CountersignError::Read {
                path: p.clone(),
                source,
            })?
        }
    };
    let fp = sign::verify_countersignature(&declared, text.as_bytes(), &armored)?;
    let name = crate::log::cosign::file_name(size, camp)
        .map_err(|e| sign::CosignProblem::Malformed(e.to_string()))?;
    let out = layout::checkpoints_dir(match_dir, game).join(name);
    if let Ok(old) = crate::record::fsio::read_to_string(&out) {
        if old == armored {
            return Ok((out, fp));
        }
        if sign::verify_countersignature(&declared, text.as_bytes(), &old).is_ok() {
            return Err(CountersignError::Exists(out));
        }
    }
    write_atomic(&out, armored.as_bytes()).map_err(|source| CountersignError::Write {
        path: out.clone(),
        source,
    })?;
    Ok((out, fp))
}

/// The countersignatures of a game, checked: one report line each, and for a finished game a
/// finding for each declared camp that has not countersigned its final checkpoint.
pub fn check_countersignatures(
    match_dir: &Path,
    game: u32,
    facts: &LogFacts,
    v: &mut crate::record::verify::GameVerification,
) {
    use crate::record::verify::Status;
    let camps = declared_camps(&facts.first);
    let dir = layout::checkpoints_dir(match_dir, game);
    let mut valid: Vec<(u64, String)> = Vec::new();
    let mut names: Vec<String> = fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|n| n.contains(".cosig-"))
        .collect();
    names.sort();
    for name in names {
        let Ok((size, camp)) = crate::log::cosign::parse_file_name(&name) else {
            continue;
        };
        let Some((_, key_text)) = camps.iter().find(|(n, _)| *n == camp) else {
            v.problems.push(format!(
                "{name}: camp {camp:?} is not declared in line 0: ignored"
            ));
            continue;
        };
        let checked = ssh_key::PublicKey::from_openssh(key_text)
            .map_err(|e| e.to_string())
            .and_then(|k| {
                let text = crate::record::fsio::read(
                    &layout::checkpoint_path(match_dir, game, size),
                    crate::record::fsio::SMALL_FILE_LIMIT,
                )
                .map_err(|e| e.to_string())?;
                let sig = crate::record::fsio::read_to_string(&dir.join(&name))
                    .map_err(|e| e.to_string())?;
                sign::verify_countersignature(&k, &text, &sig).map_err(|e| e.to_string())
            });
        match checked {
            Ok(fp) => {
                v.problems.push(format!(
                    "checkpoint {size}.txt countersigned by camp {camp} ({fp})"
                ));
                valid.push((size, camp));
            }
            Err(p) => {
                v.problems.push(format!(
                    "checkpoint {size}.txt: BAD countersignature by camp {camp}: {p}"
                ));
                raise(v, Status::BadCheckpoint);
            }
        }
    }
    // A witnessed result stays witnessed: the final state is judged. Every declared
    // camp must have countersigned a checkpoint covering the last result, and nothing after the
    // latest checkpoint all camps countersigned may change a result, a clock or a ruling.
    let Some(end) = facts.end else {
        return;
    };
    if camps.is_empty() {
        v.problems.push(
            "no camp declared a witness key in line 0: the final checkpoint has no countersignature to check".into(),
        );
        return;
    }
    let covers = end + 1;
    // The latest checkpoint every camp countersigned (0: some camp signed none).
    let mut witnessed = u64::MAX;
    for (camp, _) in &camps {
        let latest = valid
            .iter()
            .filter(|(_, c)| c == camp)
            .map(|(s, _)| *s)
            .max()
            .unwrap_or(0);
        witnessed = witnessed.min(latest);
        if latest < covers {
            v.problems.push(format!(
                "NOT COUNTERSIGNED: camp {camp} has not countersigned a checkpoint covering the final result (entry {end}; arbiter countersign --game {game} --camp {camp} …)"
            ));
            raise(v, Status::Unwitnessed);
        }
    }
    let w = witnessed;
    if w == 0 || w == u64::MAX {
        return;
    }
    let after: Vec<String> = facts
        .changes
        .iter()
        .filter(|(s, _)| *s >= w)
        .take(20)
        .map(|(s, k)| format!("#{s} {k}"))
        .collect();
    if !after.is_empty() {
        v.problems.push(format!(
            "UNWITNESSED: after checkpoint {w}.txt, the last one every camp countersigned, entries change a result, a clock or a ruling: {}",
            after.join(", ")
        ));
        raise(v, Status::Unwitnessed);
    }
}

/// The committee's rule: a finished game with declared camps counts as witnessed
/// only when every camp declared in its line 0 also countersigned a match-index version that
/// records the game at or past its final result. The game's own countersignatures say what the
/// result was; only the index's say the game is still in the match (deleting the whole game and
/// putting back the index of before it leaves nothing else to see). A game still in play, or one
/// without camps, asks for none.
fn check_index_countersigned(
    match_dir: &Path,
    game: u32,
    facts: &LogFacts,
    kept: &[KeptIndex],
    v: &mut crate::record::verify::GameVerification,
) {
    let Some(end) = facts.end else { return };
    let camps = declared_camps(&facts.first);
    let covers = end + 1;
    let dir = kept_index_dir(match_dir);
    for (camp, key_text) in &camps {
        let Ok(key) = ssh_key::PublicKey::from_openssh(key_text) else {
            continue; // check_camp_keys names an unreadable key
        };
        let signed = kept.iter().rev().find(|k| {
            k.index.game(game).is_some_and(|ig| ig.size >= covers)
                && k.camps.iter().any(|c| c == camp)
                && {
                    let v = k.index.version;
                    let text = k.index.to_text();
                    crate::record::fsio::read_to_string(&dir.join(format!("{v}.txt.cosig-{camp}")))
                        .is_ok_and(|sig| {
                            sign::verify_countersignature(&key, text.as_bytes(), &sig).is_ok()
                        })
                }
        });
        match signed {
            Some(k) => v.problems.push(format!(
                "match index version {} (code {}), recording game {game} with its result, countersigned by camp {camp}",
                k.index.version,
                k.index.code()
            )),
            None => {
                v.problems.push(format!(
                    "NOT COUNTERSIGNED: camp {camp} has not countersigned a match index recording game {game} with its final result (entry {end}): the game could be deleted with the index of before it put back (arbiter countersign --match DIR --camp {camp} --index …)"
                ));
                raise(v, crate::record::verify::Status::Unwitnessed);
            }
        }
    }
}

/// What `status`, `pgn` and `report` say before they show a game: the verify verdict of its log
/// (folder trust, as `verify` without `--trust`), as lines to print, and the verdict if it is
/// one the command must fail with (the log was tampered with or cannot be checked).
pub struct LogCheck {
    pub lines: Vec<String>,
    pub failing: Option<crate::record::verify::Status>,
    pub demo: bool,
    /// The entries verify read and the hash of the last (as `verify` shows it), to compare with
    /// what a second read of the log found.
    pub entries: Option<u64>,
    pub chain_head: Option<String>,
}

/// Check game `game`'s log before showing it.
pub fn check_before_showing(match_dir: &Path, game: u32) -> LogCheck {
    check_before_showing_watching(match_dir, game, &mut |_| {}).0
}

/// [`check_before_showing`], handing `watch` the log's lines as verify's one pass checks them;
/// `true` when that pass gave the verdict and handed every line (else what `watch` gathered is
/// to be thrown away: see [`verify_match_watching`]).
pub fn check_before_showing_watching(
    match_dir: &Path,
    game: u32,
    watch: &mut dyn FnMut(&crate::record::journal::LineView<'_>),
) -> (LogCheck, bool) {
    use crate::record::verify::Status;
    let (m, streamed) = verify_match_watching(
        match_dir,
        &[game],
        &Trust::default(),
        &[],
        Some((game, watch)),
    );
    let verified = m.games.iter().find(|g| g.game == game);
    let (entries, chain_head) = (
        verified.map(|g| g.lines),
        verified.and_then(|g| g.chain_head.clone()),
    );
    let worst = m.worst();
    let demo = m
        .games
        .iter()
        .any(|g| g.problems.iter().any(|p| p.starts_with("DEMO KEY")));
    let mut lines = Vec::new();
    if demo {
        lines.push("DEMO KEY: this game is signed with the demo key of logs/demo; its signatures prove nothing".to_owned());
    }
    let failing = (worst >= Status::Unreadable).then_some(worst);
    if worst > Status::Recovered {
        let label = worst.label();
        let detail: Vec<&str> = m
            .games
            .iter()
            .flat_map(|g| g.problems.iter())
            .chain(m.match_problems.iter())
            .map(String::as_str)
            .filter(|p| {
                p.starts_with("ROLLBACK")
                    || p.starts_with("BINDING")
                    || p.starts_with("NOT COUNTERSIGNED")
                    || p.starts_with("BAD")
                    || p.starts_with("UNWITNESSED")
                    || p.starts_with("UNAUTHORIZED")
                    || p.starts_with("FOREIGN")
                    || p.starts_with("SEAL")
                    || p.starts_with("CAMP KEY")
            })
            .collect();
        let head = if failing.is_some() {
            format!(
                "WARNING: THE LOG OF GAME {game} DOES NOT VERIFY ({label}): what follows may have been tampered with; run arbiter verify"
            )
        } else {
            format!("note: game {game}: {label} (arbiter verify says more)")
        };
        lines.push(head);
        lines.extend(detail.into_iter().map(|d| format!("  {d}")));
    }
    (
        LogCheck {
            lines,
            failing,
            demo,
            entries,
            chain_head,
        },
        streamed,
    )
}

/// Why no consistency proof can be given.
#[derive(Debug, thiserror::Error)]
pub enum ConsistencyError {
    #[error("cannot read {path}: {problem}")]
    Read { path: PathBuf, problem: String },
    #[error("game {game} has no checkpoint over {size} entries (checkpoints/{size}.txt)")]
    NoCheckpoint { game: u32, size: u64 },
    #[error("the log holds {have} entries, fewer than the latest checkpoint's {want}")]
    Short { have: usize, want: u64 },
    #[error("checkpoint {0} does not come before the latest checkpoint")]
    NotOlder(u64),
}

fn read_pair(
    match_dir: &Path,
    game: u32,
    size: u64,
) -> Result<(Checkpoint, String, String), ConsistencyError> {
    let p = layout::checkpoint_path(match_dir, game, size);
    let text = crate::record::fsio::read_to_string(&p)
        .map_err(|_| ConsistencyError::NoCheckpoint { game, size })?;
    let sig =
        crate::record::fsio::read_to_string(&sig_path(&p)).map_err(|e| ConsistencyError::Read {
            path: sig_path(&p),
            problem: e.to_string(),
        })?;
    let cp = Checkpoint::parse(&text).map_err(|e| ConsistencyError::Read {
        path: p.clone(),
        problem: e.to_string(),
    })?;
    Ok((cp, text, sig))
}

/// `arbiter prove --from M`: the RFC 6962 consistency proof from the checkpoint over `from`
/// entries to the latest checkpoint of game `game`, with both checkpoints and signatures.
pub fn prove_consistency(
    match_dir: &Path,
    game: u32,
    from: u64,
) -> Result<crate::log::consistency::ConsistencyProof, ConsistencyError> {
    let log = layout::log_path(match_dir, game);
    let latest = latest_checkpoint(match_dir, game)
        .ok_or(ConsistencyError::NoCheckpoint { game, size: from })?;
    if latest.size < from {
        return Err(ConsistencyError::NotOlder(from));
    }
    let (old, old_text, old_sig) = read_pair(match_dir, game, from)?;
    let (new, new_text, new_sig) = read_pair(match_dir, game, latest.size)?;
    // The proof's nodes are the tree hashes of disjoint ranges of leaves: one pass over the log
    // fills one frontier per range (O(log n) hashes each), never a list of every leaf.
    let ranges =
        merkle::consistency_ranges(old.size, new.size).ok_or(ConsistencyError::NotOlder(from))?;
    let mut roots: Vec<merkle::RootBuilder> = ranges.iter().map(|_| Default::default()).collect();
    let mut first = None;
    let mut read = 0u64;
    crate::record::journal::for_each_entry(&log, |e| {
        if let Some(k) = ranges
            .iter()
            .position(|&(lo, hi)| (lo..hi).contains(&e.seq))
        {
            roots[k].push(e.hash);
        }
        if first.is_none() {
            first = Some(e);
        }
        read += 1;
        true
    })
    .map_err(|e| ConsistencyError::Read {
        path: log.clone(),
        problem: e.to_string(),
    })?;
    if read < new.size {
        return Err(ConsistencyError::Short {
            have: read as usize,
            want: new.size,
        });
    }
    let principal = first
        .as_ref()
        .and_then(|e| e.body.pointer("/arbiter_key/principal"))
        .and_then(|p| p.as_str())
        .unwrap_or(sign::DEFAULT_PRINCIPAL)
        .to_owned();
    let nodes: Vec<[u8; 32]> = roots.iter().map(merkle::RootBuilder::root).collect();
    crate::log::consistency::ConsistencyProof::from_nodes(
        (&old, &old_text, &old_sig),
        (&new, &new_text, &new_sig),
        &principal,
        &nodes,
    )
    .ok_or(ConsistencyError::NotOlder(from))
}

/// `arbiter verify --consistency FILE`: the proof holds and both checkpoints are signed by a key
/// `signers` lists for the proof's principal. `Ok` names what it proves.
pub fn verify_consistency(bytes: &[u8], signers_text: &str) -> Result<String, String> {
    let p =
        crate::log::consistency::ConsistencyProof::from_json(bytes).map_err(|e| e.to_string())?;
    let (old, new) = p.check().map_err(|e| e.to_string())?;
    let (signers, _) = sign::parse_allowed_signers(signers_text);
    for (which, text, sig) in [
        ("older", &p.old_checkpoint, &p.old_signature),
        ("newer", &p.new_checkpoint, &p.new_signature),
    ] {
        let s = sign::verify_signature(&signers, text.as_bytes(), sig)
            .map_err(|e| format!("the {which} checkpoint's signature: {e}"))?;
        if !s.principals.contains(&p.principal) {
            return Err(format!(
                "the {which} checkpoint is signed by {}, not listed for principal {:?}",
                s.fingerprint, p.principal
            ));
        }
    }
    Ok(format!(
        "consistency OK: the checkpoint over {} entries (code {}) is a prefix of the checkpoint over {} entries (code {}) of {}",
        old.size,
        old.short_code(),
        new.size,
        new.short_code(),
        new.origin
    ))
}

/// What `arbiter foreign` found and did.
#[derive(Debug, Clone, Default)]
pub struct ForeignOutcome {
    /// Entries bound by the seal or a signed checkpoint, and in the log, before anything was done.
    pub bound: u64,
    pub entries: u64,
    /// The entries past the binding, in words (at most 20).
    pub listed: Vec<String>,
    /// The side file the cut entries went to, and how many.
    pub cut: Option<(PathBuf, u64)>,
    /// Entries accepted with the reason (one `note` each, then one signed `authorized`).
    pub accepted: u64,
    /// Entries still foreign afterwards.
    pub remaining: u64,
}

/// The byte offset of entry `seq` in the log at `log`, read line by line up to it.
fn entry_offset(log: &Path, seq: u64) -> Result<u64, String> {
    let mut at = None;
    crate::record::journal::for_each_entry(log, |e| {
        if e.seq == seq {
            at = Some(e.offset);
        }
        at.is_none()
    })
    .map_err(|e| e.to_string())?;
    at.ok_or_else(|| format!("{}: no entry #{seq}", log.display()))
}

/// `arbiter foreign`: show the entries of game `game` that the kit did not write in a session of
/// the match's key; with `cut_from`, move entries `cut_from..` to `log.jsonl.foreign-<seq>` and
/// record the cut (a `recovery` entry naming the side file, its length and SHA-256); with
/// `accept`, record each remaining one as accepted by the arbiter with the reason (a `note`
/// each) and sign the acceptance (`authorized`, covering them). The seal then binds the log.
pub fn resolve_foreign(
    match_dir: &Path,
    game: u32,
    key: &PrivateKey,
    cut_from: Option<u64>,
    accept: Option<&str>,
    utc: chrono::DateTime<chrono::Utc>,
) -> Result<ForeignOutcome, String> {
    use crate::log::NewEntry;
    use crate::record::journal::Journal;
    let log = layout::log_path(match_dir, game);
    let Some((b, listed)) =
        binding_on_disk(match_dir, game, key.public_key()).map_err(|e| e.to_string())?
    else {
        return Err(format!(
            "{}: not a sealed log (format v1 without `\"binding\":\"seal/1\"`): there is no seal to hold entries against",
            log.display()
        ));
    };
    let mut out = ForeignOutcome {
        bound: b.bound,
        entries: b.entries,
        listed,
        ..ForeignOutcome::default()
    };
    let first = crate::record::journal::first_entry(&log).map_err(|e| e.to_string())?;
    let mid = first
        .body
        .get("match_id")
        .and_then(|m| m.as_str())
        .ok_or("line 0 binds no match id")?
        .to_owned();
    let origin = crate::log::checkpoint::origin(&mid, game);
    // The crashed session's own sealed entries, never authorized (its seal left open): bound
    // with the ruling, since the seal is closed after it.
    let crash =
        crashed_plan(match_dir, game, key.public_key(), &origin, true)?.filter(|p| p.count > 0);
    let mut j = Journal::open(&log).map_err(|e| e.to_string())?;
    if let Some(from) = cut_from {
        if from < b.bound || from >= j.len() {
            return Err(format!(
                "--cut-from {from}: only entries past the binding (#{} to #{}) can be cut",
                b.bound,
                j.len().saturating_sub(1)
            ));
        }
        let at = entry_offset(&log, from)?;
        let side = log.with_file_name(format!("log.jsonl.foreign-{from}"));
        let cut = crate::record::journal::copy_tail_to_new_file(&log, at, &side)
            .map_err(|e| format!("{}: {e}", side.display()))?;
        drop(j);
        let f = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&log)
            .map_err(|e| format!("{}: {e}", log.display()))?;
        f.set_len(at)
            .and_then(|()| f.sync_all())
            .map_err(|e| format!("{}: {e}", log.display()))?;
        drop(f);
        j = Journal::open(&log).map_err(|e| e.to_string())?;
        let mono = j.last().map_or(0, |e| e.mono_ms);
        j.append(NewEntry {
            mono_ms: mono,
            utc,
            actor: "kit".into(),
            clause: "5b".into(),
            kind: crate::log::RECOVERY_KIND.into(),
            body: serde_json::json!({
                "offset": at,
                "length": cut.len,
                "sha256": hex::encode(cut.sha256),
                "side_file": side.file_name().map(|n| n.to_string_lossy().into_owned()),
                "why": format!("{} entries not written by the kit in a session of the arbiter key, cut by the arbiter", cut.lines),
            }),
        })
        .map_err(|e| e.to_string())?;
        out.cut = Some((side, cut.lines));
    }
    // The foreign entries are read from the file one at a time (twice when accepted: counted,
    // then each recorded), never held together.
    let end = j.len();
    let is_foreign =
        |e: &Entry| e.seq >= b.bound && !(e.kind == crate::log::RECOVERY_KIND && e.actor == "kit");
    let mut foreign = 0u64;
    crate::record::journal::for_each_entry(&log, |e| {
        foreign += u64::from(e.seq < end && is_foreign(&e));
        e.seq + 1 < end
    })
    .map_err(|e| e.to_string())?;
    if let Some(reason) = accept.filter(|_| foreign > 0) {
        // A line whose body does not decode as an event would wedge every reader of the game:
        // it is cut, never accepted.
        let mut undecodable = None;
        crate::record::journal::for_each_entry(&log, |e| {
            if e.seq < end
                && is_foreign(&e)
                && let Err(why) = crate::log::codec::event_of(&e)
            {
                undecodable = Some((e.seq, why.to_string()));
                return false;
            }
            e.seq + 1 < end
        })
        .map_err(|e| e.to_string())?;
        if let Some((seq, why)) = undecodable {
            return Err(format!(
                "entry #{seq} does not decode as an entry of its kind ({why}): it cannot be accepted, only cut to a side file: arbiter foreign --match {} --game {game} --cut-from {seq}; nothing recorded",
                match_dir.display()
            ));
        }
        let mono = j.last().map_or(0, |e| e.mono_ms);
        let from = j.len();
        let mut failed = None;
        // The notes are appended past `end` while the entries before it are read.
        crate::record::journal::for_each_entry(&log, |e| {
            if e.seq >= end {
                return false;
            }
            if is_foreign(&e)
                && let Err(err) = j.append(NewEntry {
                    mono_ms: mono,
                    utc,
                    actor: "arbiter".into(),
                    clause: "1".into(),
                    kind: "note".into(),
                    body: serde_json::json!({"text": format!(
                        "entry #{} ({} {} {}, E={}) was not written by the kit in a session of the arbiter key; accepted by the arbiter: {reason}",
                        e.seq, e.actor, e.kind, e.clause, crate::log::hex32(&e.hash)
                    )}),
                })
            {
                failed = Some(err.to_string());
                return false;
            }
            e.seq + 1 < end
        })
        .map_err(|e| e.to_string())?;
        if let Some(err) = failed {
            return Err(err);
        }
        let last = j.len() - 1;
        let first = crash.as_ref().map_or(b.bound, |c| c.from.min(b.bound));
        let crashed = crash
            .as_ref()
            .map(|c| format!("; entries #{}..#{} ({}) were written by the kit in a session of this key that stopped before authorizing them", c.from, c.to, c.named))
            .unwrap_or_default();
        append_authorization(
            &mut j,
            key,
            &origin,
            (first, last),
            "the arbiter's signing key (arbiter foreign --accept)",
            format!(
                "accept foreign entries #{}..#{}: {reason}{crashed}",
                b.bound,
                from - 1
            ),
            utc,
        )?;
        out.accepted = foreign;
    } else {
        out.remaining = foreign;
        if foreign == 0
            && let Some(c) = &crash
        {
            append_authorization(
                &mut j,
                key,
                &origin,
                (c.from, c.to),
                "the arbiter's signing key, at the reopen after a crash",
                format!(
                    "entries #{}..#{} ({}) were written by the kit in a session of this key (its seal, left open) that stopped before authorizing them: authorized once what followed them was cut",
                    c.from, c.to, c.named
                ),
                utc,
            )?;
        }
    }
    if out.remaining == 0 {
        close_seal_over(match_dir, game, key, origin, &j)?;
    }
    Ok(out)
}

// ---- Issue 19: a camp proves it holds the key it declares --------------------------------

/// What `arbiter countersign --declaration` does for a camp.
#[derive(Debug, Clone)]
pub enum DeclarationAct {
    /// Print the statement the camp signs for this public key (for `ssh-keygen -Y sign`).
    Statement(PathBuf),
    /// Sign the statement here with the camp's key: the proof, armored.
    Sign(CosignSource),
    /// Check a proof made elsewhere (stock `ssh-keygen -Y sign -n arbiter-kit-camp-key@v1`).
    Check(PathBuf),
}

/// The match id a new game of `match_dir` binds: line 0's of its first game, else the folder's
/// name (as `matchdir::bound_match_id` gives it).
pub fn match_id_for_declarations(match_dir: &Path) -> String {
    layout::games(match_dir)
        .into_iter()
        .find_map(|n| {
            let first =
                crate::record::journal::first_entry(&layout::log_path(match_dir, n)).ok()?;
            first.body.get("match_id")?.as_str().map(str::to_owned)
        })
        .unwrap_or_else(|| layout::match_id(match_dir))
}

/// `arbiter countersign --declaration`: the statement to sign, a proof made with the camp's key
/// here, or the check of a proof made with stock OpenSSH. Returns what to print.
pub fn camp_declaration(
    match_dir: &Path,
    camp: &str,
    act: &DeclarationAct,
) -> Result<String, CountersignError> {
    crate::log::cosign::check_camp(camp)
        .map_err(|e| sign::CosignProblem::Malformed(e.to_string()))?;
    let match_id = match_id_for_declarations(match_dir);
    let read = |p: &PathBuf| {
        crate::record::fsio::read_to_string(p).map_err(|source| CountersignError::Read {
            path: p.clone(),
            source,
        })
    };
    match act {
        DeclarationAct::Statement(public) => {
            let key = sign::load_any_public_key(public)?;
            Ok(crate::core::camp::statement(
                &match_id,
                camp,
                &key.to_openssh().map_err(SignError::from)?,
            ))
        }
        DeclarationAct::Sign(CosignSource::Key {
            file,
            passphrase_env,
        }) => {
            let pass = sign::passphrase_from_env(passphrase_env.as_deref())?;
            let key = sign::load_key(file, pass.as_ref().map(|p| p.as_str()))?;
            let public = key.public_key().to_openssh().map_err(SignError::from)?;
            let text = crate::core::camp::statement(&match_id, camp, &public);
            Ok(key
                .sign(
                    crate::core::camp::NAMESPACE,
                    ssh_key::HashAlg::Sha512,
                    text.as_bytes(),
                )
                .and_then(|s| s.to_pem(ssh_key::LineEnding::LF))
                .map_err(SignError::from)?)
        }
        DeclarationAct::Sign(CosignSource::Signature(p)) | DeclarationAct::Check(p) => {
            let proof = read(p)?;
            let key = crate::core::camp::signer_of(&proof)
                .map_err(|e| CountersignError::Proof(format!("{}: {e}", p.display())))?;
            let fp = crate::core::camp::fingerprint(&key);
            crate::core::camp::check_proof(&match_id, camp, &key, &proof).map_err(|e| {
                CountersignError::Proof(format!(
                    "camp {camp}'s proof {} for key {fp}: {e}",
                    p.display()
                ))
            })?;
            Ok(format!(
                "proof of possession OK: camp {camp} holds {fp} for match {match_id}; before the game: arbiter declare camp {camp} proof {}\n",
                p.display()
            ))
        }
    }
}

// ---- Issue 19: index versions, the camps' countersignatures of the match index ------------

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

/// A camp countersigns the current match index (after a game): the index is kept as
/// `DIR/index/<version>.txt` (+ `.sig`), the countersignature beside it as
/// `<version>.txt.cosig-<camp>`, checked against the key the camp declared in the latest game's
/// line 0. Returns the file and the match code to note.
pub fn countersign_index(
    match_dir: &Path,
    camp: &str,
    source: &CosignSource,
) -> Result<(PathBuf, crate::log::index::MatchCode), CountersignError> {
    let signers = crate::record::verify::read_allowed_signers(match_dir)
        .map(|t| sign::parse_allowed_signers(&t).0)
        .unwrap_or_default();
    let index = match read_index(match_dir, &signers) {
        IndexState::Signed(i) => i,
        IndexState::Absent => {
            return Err(CountersignError::Proof(format!(
                "no signed match index in {}: nothing to countersign",
                match_dir.display()
            )));
        }
        IndexState::Bad(p) => {
            return Err(CountersignError::Proof(format!(
                "the match index does not verify: {p}; nothing countersigned"
            )));
        }
    };
    let text = index.to_text();
    let declared = index
        .games
        .iter()
        .rev()
        .find_map(|g| {
            let first =
                crate::record::journal::first_entry(&layout::log_path(match_dir, g.game)).ok()?;
            declared_camps(&first)
                .into_iter()
                .find(|(n, _)| n == camp)
                .map(|(_, k)| k)
        })
        .ok_or_else(|| CountersignError::NotDeclared {
            camp: camp.to_owned(),
            game: index.games.last().map_or(0, |g| g.game),
            declared: "none for this camp in the games the index lists".into(),
        })?;
    let declared =
        ssh_key::PublicKey::from_openssh(&declared).map_err(|e| CountersignError::DeclaredKey {
            camp: camp.to_owned(),
            problem: e.to_string(),
        })?;
    let armored = match source {
        CosignSource::Key {
            file,
            passphrase_env,
        } => {
            let pass = sign::passphrase_from_env(passphrase_env.as_deref())?;
            let key = sign::load_key(file, pass.as_ref().map(|p| p.as_str()))?;
            if key.is_encrypted() {
                return Err(CountersignError::Sign(sign::WitnessError::Encrypted));
            }
            key.sign(
                crate::log::cosign::NAMESPACE,
                ssh_key::HashAlg::Sha512,
                text.as_bytes(),
            )
            .and_then(|s| s.to_pem(ssh_key::LineEnding::LF))
            .map_err(SignError::from)?
        }
        CosignSource::Signature(p) => {
            crate::record::fsio::read_to_string(p).map_err(|source| CountersignError::Read {
                path: p.clone(),
                source,
            })?
        }
    };
    sign::verify_countersignature(&declared, text.as_bytes(), &armored)?;
    let dir = kept_index_dir(match_dir);
    ensure_dir(&dir).map_err(|source| CountersignError::Write {
        path: dir.clone(),
        source,
    })?;
    let keep = |name: String, bytes: &[u8]| -> Result<PathBuf, CountersignError> {
        let p = dir.join(name);
        match crate::record::fsio::read_to_string(&p) {
            Ok(old) if old.as_bytes() == bytes => return Ok(p),
            Ok(_) => return Err(CountersignError::Exists(p)),
            Err(_) => {}
        }
        write_new_file(&p, bytes).map_err(|source| CountersignError::Write {
            path: p.clone(),
            source,
        })?;
        Ok(p)
    };
    let v = index.version;
    let sig = crate::record::fsio::read_to_string(&sig_path(&index_path(match_dir))).map_err(
        |source| CountersignError::Read {
            path: sig_path(&index_path(match_dir)),
            source,
        },
    )?;
    keep(format!("{v}.txt.sig"), sig.as_bytes())?;
    keep(format!("{v}.txt"), text.as_bytes())?;
    let out = keep(format!("{v}.txt.cosig-{camp}"), armored.as_bytes())?;
    crate::record::journal::sync_dir(&dir).map_err(|source| CountersignError::Write {
        path: dir.clone(),
        source,
    })?;
    Ok((out, index.code()))
}

// ---- Issue 19: an honest crash is never read as tampering --------------------------------

/// After a crash of a kit session of the match's key (its seal left `open`), the arbiter-only
/// entries that session wrote (inside the seal, or the one entry in flight) and never got to
/// authorize — a `script` authorizes at its end, the board after each command — are authorized
/// now by `key`, with the reason recorded, and the seal is closed over them. Entries the kit did
/// not write in a session of the key (past the seal: foreign) are never touched here, nor those
/// a session already ruled on (before its last `authorization_failed` or `authorized`).
/// `Ok(Some(words))` says what was recorded; `Ok(None)`: nothing to do.
pub fn authorize_crashed_session(
    match_dir: &Path,
    game: u32,
    key: &PrivateKey,
    utc: chrono::DateTime<chrono::Utc>,
) -> Result<Option<String>, String> {
    use crate::record::journal::Journal;
    let log = layout::log_path(match_dir, game);
    let first = crate::record::journal::first_entry(&log).map_err(|e| e.to_string())?;
    if !is_sealed_log(&first) {
        return Ok(None);
    }
    let Some(mid) = first.body.get("match_id").and_then(|m| m.as_str()) else {
        return Ok(None);
    };
    let origin = crate::log::checkpoint::origin(mid, game);
    // Read first (nothing is opened for writing when there is nothing to do), then again under
    // the game's lock: a session still running (its seal open too) holds it, and nothing read
    // changes while this one holds it.
    match crashed_plan(match_dir, game, key.public_key(), &origin, false) {
        Ok(Some(p)) if p.count > 0 => {}
        Ok(p) => return Ok(p.map(|p| format!("after a crash{}", p.in_flight))),
        // A torn last line (a power cut mid-write): the open below cuts it to its side file
        // (a recovery entry), then the log is read again.
        Err(_) => {}
    }
    let mut j = match Journal::open(&log) {
        Ok(j) => j,
        Err(crate::record::journal::JournalError::Locked(_)) => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if j.damage().is_some() {
        return Ok(None);
    }
    let Some(CrashPlan {
        from,
        to,
        named,
        count,
        in_flight,
    }) = crashed_plan(match_dir, game, key.public_key(), &origin, false)?.filter(|p| p.count > 0)
    else {
        return Ok(None);
    };
    let Some(last) = j.last().cloned() else {
        return Ok(None);
    };
    let seq = j.len();
    // The signature covers the sealed entries only: the one in flight (the last, past the seal)
    // stands unauthorized, as the words below say (it used to be covered all the same).
    let covered = if in_flight.is_empty() {
        last.seq
    } else {
        last.seq.saturating_sub(1).max(to)
    };
    append_authorization(
        &mut j,
        key,
        &origin,
        (from, covered),
        "the arbiter's signing key, at the reopen after a crash",
        format!(
            "entries #{from}..#{to} ({named}) were written by the kit in a session of this key (its seal, left open) that stopped before authorizing them: authorized at the reopen"
        ),
        utc,
    )?;
    close_seal_over(match_dir, game, key, origin, &j)?;
    Ok(Some(format!(
        "after a crash: {} arbiter-only entr{} written by the kit in a session of the arbiter key but never authorized ({named}) {} authorized now with the arbiter key (recorded as entry #{seq}){in_flight}",
        count,
        if count == 1 { "y" } else { "ies" },
        if count == 1 { "is" } else { "are" },
    )))
}

/// Close game `game`'s seal over every entry of `j` (signed with `key`): what the kit writes
/// after an append it made in a session of the key.
fn close_seal_over(
    match_dir: &Path,
    game: u32,
    key: &PrivateKey,
    origin: String,
    j: &crate::record::journal::Journal,
) -> Result<(), String> {
    let Some(head) = j.last() else {
        return Ok(());
    };
    let seal = crate::log::seal::Seal {
        origin,
        size: j.len(),
        chain: head.hash,
        closed: true,
    };
    write_seal(match_dir, game, key, &seal)
}

/// Append a signed `authorized` entry (5b) covering entries `first..=last` of `j`: the
/// authorization text (origin, the entry's own number, the range, the chain head before it)
/// signed with `key`, with who authorized (`by`) and what (`command`) in words.
fn append_authorization(
    j: &mut crate::record::journal::Journal,
    key: &PrivateKey,
    origin: &str,
    (first, last): (u64, u64),
    by: &str,
    command: String,
    utc: chrono::DateTime<chrono::Utc>,
) -> Result<(), String> {
    let (mono_ms, prev) = j
        .last()
        .map(|e| (e.mono_ms, crate::log::hex32(&e.hash)))
        .ok_or("the log is empty")?;
    let text = crate::log::seal::authorization_text(origin, j.len(), first, last, &prev);
    let sig = sign::sign_authorization(key, &text).map_err(|e| e.to_string())?;
    j.append(crate::log::NewEntry {
        mono_ms,
        utc,
        actor: "arbiter".into(),
        clause: "5b".into(),
        kind: "authorized".into(),
        body: serde_json::json!({
            "by": by,
            "command": command,
            "first": first,
            "last": last,
            "key": sign::fingerprint(key.public_key()),
            "sig": sig,
        }),
    })
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// The arbiter's ruling on one arbiter-only entry that stands UNAUTHORIZED: the entry
/// in flight at a crash, which nothing tells from an entry appended by anything else, so no
/// reopen authorizes it. Having checked it (and voided it at the board if it records something
/// that did not happen), the arbiter authorizes it here with the key: an `authorized` entry
/// covering exactly that entry, with the reason, signed, and the seal closed over it. Refused,
/// with nothing written, for an entry that does not exist or does not stand unauthorized, for a
/// log that is not sealed, damaged, held by a board or script, left by a crash not yet reopened,
/// or with foreign entries past the seal. Returns what was recorded, in words.
pub fn authorize_entry(
    match_dir: &Path,
    game: u32,
    key: &PrivateKey,
    seq: u64,
    reason: &str,
    utc: chrono::DateTime<chrono::Utc>,
) -> Result<String, String> {
    use crate::record::journal::Journal;
    if reason.trim().is_empty() {
        return Err(
            "give the reason for the ruling (5b: every act is recorded with its reason)".into(),
        );
    }
    let log = layout::log_path(match_dir, game);
    let first = crate::record::journal::first_entry(&log).map_err(|e| e.to_string())?;
    if !is_sealed_log(&first) {
        return Err(format!(
            "{}: not a sealed log (format v1 without `\"binding\":\"seal/1\"`): its arbiter entries carry no authorization to rule on",
            log.display()
        ));
    }
    let mid = first
        .body
        .get("match_id")
        .and_then(|m| m.as_str())
        .ok_or("line 0 binds no match id")?
        .to_owned();
    let origin = crate::log::checkpoint::origin(&mid, game);
    let binding = binding_on_disk(match_dir, game, key.public_key()).map_err(|e| e.to_string())?;
    // The one entry in flight at a crash is the arbiter's to rule on, here or with `foreign`;
    // the crashed session's own sealed entries are bound with that ruling.
    let in_flight = binding
        .as_ref()
        .is_some_and(|(b, _)| b.in_flight && b.foreign() == 1 && b.bound == seq);
    let crash = if in_flight {
        crashed_plan(match_dir, game, key.public_key(), &origin, true)?.filter(|p| p.count > 0)
    } else {
        if crashed_plan(match_dir, game, key.public_key(), &origin, false)?
            .is_some_and(|p| p.count > 0)
        {
            return Err(format!(
                "game {game} was left by a crash and not reopened: its sealed entries are authorized at the reopen first (arbiter checkpoint --game {game}); nothing recorded"
            ));
        }
        None
    };
    if let Some((b, listed)) = binding
        && b.foreign() > 0
        && !in_flight
    {
        return Err(format!(
            "game {game}: entries past #{} were not written by the kit in a session of the arbiter key ({}): arbiter foreign cuts or accepts them first; nothing recorded",
            b.bound.saturating_sub(1),
            listed.join(", ")
        ));
    }
    let mut j = match Journal::open(&log) {
        Ok(j) => j,
        Err(crate::record::journal::JournalError::Locked(_)) => {
            return Err(format!(
                "game {game} is open in a board or a script: rule once it is closed; nothing recorded"
            ));
        }
        Err(e) => return Err(e.to_string()),
    };
    if let Some(d) = j.damage() {
        return Err(format!("{}: {d}; nothing recorded", log.display()));
    }
    if seq >= j.len() {
        return Err(format!(
            "there is no entry #{seq}: the log of game {game} holds #0 to #{}",
            j.len().saturating_sub(1)
        ));
    }
    let facts = log_facts_checked(&log, &[], Some((key.public_key(), &origin)))
        .map_err(|e| e.to_string())?;
    let Some((_, kind)) = facts.unauthorized.iter().find(|(s, _)| *s == seq) else {
        return Err(format!(
            "entry #{seq} of game {game} does not stand UNAUTHORIZED (it is authorized already, or not an arbiter-only entry): nothing to rule on; nothing recorded"
        ));
    };
    let mut hash = None;
    crate::record::journal::for_each_entry(&log, |e| {
        if e.seq == seq {
            hash = Some(e.hash);
        }
        e.seq < seq
    })
    .map_err(|e| e.to_string())?;
    let hash = hash.ok_or_else(|| format!("entry #{seq} was not read"))?;
    let at = j.len();
    let first = crash.as_ref().map_or(seq, |c| c.from.min(seq));
    let crashed = crash
        .as_ref()
        .map(|c| format!("; entries #{}..#{} ({}) were written by the kit in a session of this key that stopped before authorizing them", c.from, c.to, c.named))
        .unwrap_or_default();
    append_authorization(
        &mut j,
        key,
        &origin,
        (first, seq),
        "the arbiter's signing key (arbiter authorize)",
        format!(
            "entry #{seq} ({kind}, E={}) stood UNAUTHORIZED; checked and authorized by the arbiter: {reason}{crashed}",
            crate::log::hex32(&hash)
        ),
        utc,
    )?;
    close_seal_over(match_dir, game, key, origin, &j)?;
    Ok(format!(
        "entry #{seq} ({kind}) of game {game} authorized by the arbiter (recorded as entry #{at}, signed): {reason}"
    ))
}

/// What [`authorize_crashed_session`] would authorize: `None` when the seal is closed (no
/// crash), or entries lie past the seal (foreign: refused elsewhere).
struct CrashPlan {
    from: u64,
    to: u64,
    named: String,
    count: usize,
    in_flight: String,
}

fn crashed_plan(
    match_dir: &Path,
    game: u32,
    key: &ssh_key::PublicKey,
    origin: &str,
    allow_past: bool,
) -> Result<Option<CrashPlan>, String> {
    let log = layout::log_path(match_dir, game);
    let sealed = match read_seal(match_dir, game, key, origin) {
        Ok(s) if !s.closed => s.size,
        _ => return Ok(None),
    };
    let Some((b, _)) = binding_on_disk(match_dir, game, key).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    if b.foreign() > 0 && !allow_past {
        return Ok(None);
    }
    // Only entries inside the seal: the one in flight (written, never sealed) cannot be told
    // from one appended by anything else, so it is never authorized here, nor anything a
    // checkpoint signed past the seal.
    let written = sealed.min(b.bound);
    let mut ruled = 0;
    crate::record::journal::for_each_entry(&log, |e| {
        if e.kind == "authorization_failed" || e.kind == "authorized" {
            ruled = e.seq + 1;
        }
        true
    })
    .map_err(|e| e.to_string())?;
    let facts = log_facts_checked(&log, &[], Some((key, origin))).map_err(|e| e.to_string())?;
    let open: Vec<&(u64, String)> = facts
        .unauthorized
        .iter()
        .filter(|(s, _)| *s >= ruled && *s < written)
        .collect();
    let in_flight = facts
        .unauthorized
        .iter()
        .find(|(s, _)| b.in_flight && *s == b.bound)
        .map(|(s, k)| {
            format!(
                "; entry #{s} {k}, in flight at the crash (written, never sealed), stands UNAUTHORIZED: nothing tells it from an entry appended by anything else; check it, the arbiter rules on it (arbiter authorize --game {game} --entry {s} --reason REASON)"
            )
        })
        .unwrap_or_default();
    let (Some(from), Some(to)) = (open.first().map(|o| o.0), open.last().map(|o| o.0)) else {
        return Ok((!in_flight.is_empty()).then_some(CrashPlan {
            from: 0,
            to: 0,
            named: String::new(),
            count: 0,
            in_flight,
        }));
    };
    let named: Vec<String> = open
        .iter()
        .take(20)
        .map(|(s, k)| format!("#{s} {k}"))
        .collect();
    Ok(Some(CrashPlan {
        from,
        to,
        named: format!(
            "{}{}",
            named.join(", "),
            if open.len() > 20 { ", …" } else { "" }
        ),
        count: open.len(),
        in_flight,
    }))
}
