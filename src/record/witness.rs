//! What makes a match's record hard to rewrite (SHELL): the signed match index written
//! beside every checkpoint, and the checks `verify` adds on top of each game's chain verdict —
//! the pinned trust anchor, the demo key, the bindings of line 0 and of the rule-13 archive, the
//! index (rollback, deleted games) and the camps' countersignatures.
use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

pub use crate::record::bindings::*;
pub use crate::record::countersign::*;
pub use crate::record::facts::*;
pub use crate::record::foreign::*;
pub use crate::record::index::*;
use crate::record::layout;
pub use crate::record::policy::*;
pub use crate::record::proof::*;
pub use crate::record::seal_v1::*;
use crate::record::sign::{self, AllowedSigner};

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

/// Verify games `games` of a match under `trust`, then everything the signed record adds: the demo key,
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
        IndexState::Absent | IndexState::Unreadable(_) => {}
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
            let v1 = is_sealed_log(&facts.first);
            check_sealed(&facts, seal.filter(|_| v1), v1, public.is_some(), &mut v);
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
        let cosigned = check_countersignatures(match_dir, g, &facts, &mut v);
        check_live_witnesses(g, &facts, &policy, &cosigned, &mut v);
        check_index_countersigned(match_dir, g, &facts, &kept, &mut v);
        crate::record::verify::check_rerun(match_dir, g, &facts.first, &mut v);
        crate::record::verify::check_approvals(
            match_dir,
            g,
            &facts.first,
            public.as_ref(),
            &origin,
            &mut v,
        );
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
    if let IndexState::Unreadable(p) = &index {
        match_problems.push(format!(
            "ROLLBACK: THE MATCH INDEX CANNOT BE READ ({p}): something else stands in its place; a deleted game or a log cut back to an older checkpoint cannot be ruled out"
        ));
        match_status = match_status.max(if any_signed {
            Status::RolledBack
        } else {
            Status::BadCheckpoint
        });
    }
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
