//! The match policy (SHELL): what every game of a match is held to — written and signed
//! when the match is made, read and checked by `verify`.
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::log::Entry;
use crate::record::countersign::*;
use crate::record::index::*;
use crate::record::layout;
use crate::record::sign::{self, AllowedSigner};
use crate::record::verify::raise;

/// Line 0's declared camp keys against the camps' keys pinned out of band (`--camps`): a camp
/// declared with another key, or not listed, fails the game; without a pinned list, `verify`
/// says the camps are not pinned.
pub(crate) fn check_camp_keys(
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

/// Where a match's policy lives (`DIR/policy.txt`; its SSHSIG beside it, `policy.txt.sig`).
pub fn policy_path(match_dir: &Path) -> PathBuf {
    match_dir.join("policy.txt")
}

/// The SHA-256 (hex) of the policy a new game's line 0 names: the match's, written now when the
/// match has none yet (it then holds games from `game` on, with the camps `line0` declares, and
/// binds them `signed-acts/1`), signed by `sign` (the armored SSHSIG of the text, by the key
/// whose public half is `public`: the key is decrypted for that signature only). `rehearsal`
/// writes the `rehearsal` line. A policy that is there is kept as it is (`verify` checks it).
pub fn ensure_policy(
    match_dir: &Path,
    game: u32,
    public: &ssh_key::PublicKey,
    rehearsal: bool,
    sign: &dyn Fn(&[u8]) -> Result<String, String>,
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
    let witness = live_witnesses(line0, &camps)?;
    let mut instance = [0u8; 16];
    rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut instance);
    let policy = crate::log::policy::Policy {
        match_id: match_id.to_owned(),
        instance: hex::encode(instance),
        binding: crate::log::seal::SIGNED_ACTS.to_owned(),
        arbiter: sign::fingerprint(public),
        first_game: game,
        camps,
        rehearsal,
        witness,
    };
    let text = policy.to_text().map_err(|e| e.to_string())?;
    let sig = sign(text.as_bytes())?;
    let sig_path = sig_path(&path);
    crate::record::journal::write_atomic(&sig_path, sig.as_bytes())
        .map_err(|e| format!("{}: {e}", sig_path.display()))?;
    crate::record::journal::write_atomic(&path, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(hex::encode(sha2::Sha256::digest(text.as_bytes())))
}

/// The camps that witness live under the profile line 0 embeds (`[witness] every`, `camps`),
/// each with the interval, for a new policy's `witness` lines: the camps the profile names, or
/// every camp line 0 declares (`camps`). A profile that asks for live witnesses with no camp
/// declared, or names one line 0 does not declare, is refused: the policy would ask for
/// cosignatures no one can give.
pub(crate) fn live_witnesses(
    line0: &serde_json::Value,
    camps: &[(String, String)],
) -> Result<Vec<(String, u64)>, String> {
    let Some(text) = line0.pointer("/profile/toml").and_then(|t| t.as_str()) else {
        return Ok(Vec::new());
    };
    let file = line0
        .pointer("/profile/file")
        .and_then(|f| f.as_str())
        .unwrap_or("the profile");
    let Some(w) = crate::core::rules::Witness::of_profile_text(text)
        .map_err(|e| format!("{file}: [witness]: {}", e.message()))?
    else {
        return Ok(Vec::new());
    };
    if let Err((key, problem)) = w.check() {
        return Err(format!("{file}: {key}: {problem}"));
    }
    let Some(every) = w.every else {
        return Ok(Vec::new());
    };
    let named: Vec<String> = match &w.camps {
        Some(c) => c.clone(),
        None => camps.iter().map(|(n, _)| n.clone()).collect(),
    };
    if named.is_empty() {
        return Err(format!(
            "{file}: witness.every = {every} asks the camps to witness live, but line 0 declares no camp: declare each camp with its proof (arbiter declare camp NAME proof FILE) before the game starts"
        ));
    }
    let mut out = Vec::new();
    for c in named {
        if !camps.iter().any(|(n, _)| *n == c) {
            return Err(format!(
                "{file}: witness.camps names camp {c}, which line 0 does not declare: declare it with its proof (arbiter declare camp {c} proof FILE) before the game starts"
            ));
        }
        out.push((c, every));
    }
    Ok(out)
}

/// How often the kit signs a checkpoint of game `game` so that the camps can witness it live:
/// the smallest interval of the match policy's `witness` lines (when the policy holds the game),
/// else, for a match with no policy yet, the `[witness] every` of `profile` (the profile the
/// game is created under: its policy will say so). `None`: no live witness is required. The
/// policy is read as the kit wrote it (`verify` checks its signature).
pub fn witness_interval(
    match_dir: &Path,
    game: u32,
    profile: Option<&crate::core::rules::Profile>,
) -> Option<u64> {
    match crate::record::fsio::read_to_string(&policy_path(match_dir)) {
        Ok(text) => {
            let p = crate::log::policy::Policy::parse(&text).ok()?;
            if game < p.first_game {
                return None;
            }
            p.witness.iter().map(|(_, n)| *n).min()
        }
        Err(_) => profile?.witness.as_ref()?.every,
    }
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
pub(crate) fn check_policy(
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

/// Hold game `game` to the match policy's live witnesses (`witness <camp> every <N>`), from
/// the countersignatures that hold (`cosigned`: checkpoint size, camp) on the game's valid
/// signed checkpoints. For each such camp, with `0 = c_0 < c_1 < … < c_k` the sizes of the
/// checkpoints it cosigned, `S` the largest signed checkpoint and `L` the entries in the log:
/// every `c_{i+1} − c_i ≤ N`; `S − c_k ≤ N` (one interval may still await its cosignature while
/// the game runs); `L − S ≤ N` (the kit signs at least every N entries); and once the game has
/// a result (entry `e`), `c_k > e`. The first stretch that breaks one of these fails the game
/// (`UNWITNESSED_INTERVAL`), named with the camp and its entries; a live camp line 0 does not
/// declare is `CAMPS_DROPPED`.
pub(crate) fn check_live_witnesses(
    game: u32,
    facts: &crate::record::facts::LogFacts,
    policy: &Option<Result<(crate::log::policy::Policy, [u8; 32]), String>>,
    cosigned: &[(u64, String)],
    v: &mut crate::record::verify::GameVerification,
) {
    use crate::record::verify::Status;
    let Some(Ok((p, _))) = policy else {
        return;
    };
    if p.witness.is_empty() || game < p.first_game {
        return;
    }
    let valid: std::collections::HashSet<u64> = v
        .checkpoints
        .iter()
        .filter(|c| c.ok)
        .filter_map(|c| c.entries)
        .collect();
    let signed = valid.iter().copied().max().unwrap_or(0);
    let entries = facts.entries;
    let declared = declared_camps(&facts.first);
    // The kit's own gaps: two of its signed checkpoints (entry 0 the first) further apart than
    // the tightest interval the policy asks (a checkpoint it could not write at the interval,
    // on a full disk). Each is named once, as the kit's; no camp is blamed for a stretch it
    // could not cosign because no checkpoint was offered.
    let mut kit_signed: Vec<u64> = valid.iter().copied().filter(|s| *s <= entries).collect();
    kit_signed.push(0);
    kit_signed.sort_unstable();
    kit_signed.dedup();
    let tightest = p.witness.iter().map(|(_, n)| *n).min().unwrap_or(u64::MAX);
    let mut kit_gaps = 0;
    for w in kit_signed.windows(2) {
        let (a, b) = (w[0], w[1]);
        if b - a > tightest {
            kit_gaps += 1;
            v.problems.push(format!(
                "UNWITNESSED_INTERVAL: the kit signed no checkpoint over entries {a}..{} ({} entries, up to the next checkpoint it signed): the kit's gap, not the camps' (its checkpoint was not written at the interval: a full disk, a key that could not sign); the match policy has the camps witness live {}",
                b - 1,
                b - a,
                crate::core::rules::every_entries(tightest)
            ));
            raise(v, Status::UnwitnessedInterval);
        }
    }
    // Whether a signed checkpoint lies strictly between `a` and `b`.
    let offered_between = |a: u64, b: u64| kit_signed.iter().any(|s| *s > a && *s < b);
    for (camp, every) in &p.witness {
        let every = *every;
        if !declared.iter().any(|(n, _)| n == camp) {
            if !p.camps.iter().any(|(n, _)| n == camp) {
                v.problems.push(format!(
                    "CAMPS_DROPPED: the match policy names camp {camp} as a live witness, which line 0 does not declare: its cosignatures would not be asked for"
                ));
                raise(v, Status::CampsDropped);
            }
            continue;
        }
        let mut sizes: Vec<u64> = cosigned
            .iter()
            .filter(|(s, c)| c == camp && valid.contains(s) && *s <= entries)
            .map(|(s, _)| *s)
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        let mut last = 0u64;
        let mut gap: Option<(u64, u64, &str)> = None;
        for s in &sizes {
            // A stretch with no checkpoint offered inside it is the kit's gap (named above).
            if s - last > every && offered_between(last, *s) {
                gap = Some((last, *s, "the next checkpoint it cosigned"));
                break;
            }
            last = *s;
        }
        if gap.is_none() && signed > last && signed - last > every {
            gap = Some((
                last,
                signed,
                "the last signed checkpoint, which it did not cosign",
            ));
        }
        if gap.is_none()
            && let Some(e) = facts.end
            && last <= e
        {
            gap = Some((
                last,
                signed.max(e + 1),
                "the result, which no checkpoint it cosigned covers",
            ));
        }
        if gap.is_none() && entries > signed.max(last) && entries - signed.max(last) > every {
            let from = signed.max(last);
            gap = Some((
                from,
                entries,
                "the end of the log: the kit signed no checkpoint over them",
            ));
        }
        if let Some((a, b, to)) = gap {
            v.problems.push(format!(
                "UNWITNESSED_INTERVAL: camp {camp} cosigned no checkpoint over entries {a}..{} ({} entr{}, up to {to}); the match policy has it witness live {}",
                b - 1,
                b - a,
                if b - a == 1 { "y" } else { "ies" },
                crate::core::rules::every_entries(every)
            ));
            raise(v, Status::UnwitnessedInterval);
        } else if kit_gaps > 0 {
            v.problems.push(format!(
                "camp {camp} witnessed live: its cosigned checkpoints leave no stretch of more than {} but the kit's own (above: no checkpoint was offered over {})",
                if every == 1 { "1 entry".to_owned() } else { format!("{every} entries") },
                if kit_gaps == 1 { "it" } else { "them" },
            ));
        } else {
            v.problems.push(format!(
                "camp {camp} witnessed live: its cosigned checkpoints leave no stretch of more than {}",
                if every == 1 { "1 entry".to_owned() } else { format!("{every} entries") }
            ));
        }
    }
}

/// A camp's key is the match's from the first game that declares it: a later game's
/// line 0 declaring another key for the camp (the arbiter binding a key of his own, with his own
/// proof, to countersign in the camp's name) is a bad binding (25), named with both fingerprints
/// and games. With the camps pinned (`--camps`) the pinned list rules instead.
pub(crate) fn check_camp_keys_kept(
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
pub(crate) fn check_camp_proofs(first: &Entry, v: &mut crate::record::verify::GameVerification) {
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
