//! The camps' countersignatures (SHELL): of checkpoints, of the match index, and their
//! declarations (proofs of possession).
use std::fs;
use std::path::{Path, PathBuf};

use crate::log::Entry;
use crate::record::facts::*;
use crate::record::index::*;
use crate::record::journal::{ensure_dir, write_atomic, write_new_file};
use crate::record::layout;
use crate::record::sign::{self, SignError};
use crate::record::verify::raise;

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
    /// Sign through the ssh-agent at `SSH_AUTH_SOCK` (`--agent`), which must hold the key the
    /// camp declared: the kit never sees the private half.
    Agent,
}

/// The camp's declared key in the ssh-agent at `SSH_AUTH_SOCK`, checked there now: an agent
/// that does not hold it is named with the fingerprint wanted.
fn camp_agent(camp: &str, declared: &ssh_key::PublicKey) -> Result<sign::AgentKey, SignError> {
    let socket = crate::record::agent::socket_from_env()?;
    sign::AgentKey::of(declared, socket, &format!("camp {camp}'s declared key"))
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
pub(crate) fn camps_in(line0: &serde_json::Value) -> Vec<(String, String)> {
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
        CosignSource::Agent => sign::countersign(&camp_agent(camp, &declared)?, &text)?,
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
/// finding for each declared camp that has not countersigned its final checkpoint. Returns the
/// countersignatures that hold: (checkpoint size, camp).
pub fn check_countersignatures(
    match_dir: &Path,
    game: u32,
    facts: &LogFacts,
    v: &mut crate::record::verify::GameVerification,
) -> Vec<(u64, String)> {
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
        return valid;
    };
    if camps.is_empty() {
        v.problems.push(
            "no camp declared a witness key in line 0: the final checkpoint has no countersignature to check".into(),
        );
        return valid;
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
        return valid;
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
    valid
}

/// The committee's rule: a finished game with declared camps counts as witnessed
/// only when every camp declared in its line 0 also countersigned a match-index version that
/// records the game at or past its final result. The game's own countersignatures say what the
/// result was; only the index's say the game is still in the match (deleting the whole game and
/// putting back the index of before it leaves nothing else to see). A game still in play, or one
/// without camps, asks for none.
pub(crate) fn check_index_countersigned(
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
        DeclarationAct::Sign(CosignSource::Agent) => Err(CountersignError::Proof(
            "a camp's declaration is signed with --key FILE, or with ssh-keygen -Y sign -n arbiter-kit-camp-key@v1 (which signs through the ssh-agent too) and checked with --signature".into(),
        )),
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
        IndexState::Bad(p) | IndexState::Unreadable(p) => {
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
        CosignSource::Agent => sign::countersign_text(&camp_agent(camp, &declared)?, &text)?,
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
