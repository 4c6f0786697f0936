//! `arbiter witness`: a camp's witness on the camp's own machine (SHELL). It connects to the
//! live record, keeps its own copy of every game's log ([`super::copy`]), checks the chain as
//! entries arrive and holds each to the rules and the match policy ([`super::rules`]: the
//! replay `verify` makes), showing the camp every entry with its verdict as it comes. It
//! cosigns an arbiter-signed checkpoint only when it is a consistent extension of its copy and
//! of what it cosigned before, over entries the rules accept and the arbiter authorized. A
//! conflicting entry or checkpoint, or an entry the rules refuse, is kept as evidence and said
//! loudly; it never cosigns entries it has not seen. Every alarm (a refused entry, a conflict,
//! an outage beyond its clock, an interval of the match policy left unsigned) is also kept in
//! the copy's `alarms` and sent to the live record for the arbiter, as it is raised and again
//! after each reconnection.
use std::collections::{BTreeMap, BTreeSet};
use std::net::TcpStream;
use std::path::PathBuf;
use std::rc::Rc;

use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Message, WebSocket};

use super::clock::Outage;
use super::copy::{CopyError, Decision, GameCopy, Taken};
use super::rules::{Judge, Over, SentPolicy, Verdict};
use super::{
    AlarmKind, FromWitness, MAX_ALARM_SUMMARY, MAX_ALARM_TEXT, MAX_FRAME, PROTOCOL, ToWitness,
    alarm_field,
};
use crate::record::sign::Signs;

/// What a witness needs.
pub struct WitnessConfig {
    /// `ws://HOST:PORT/live`.
    pub url: String,
    pub camp: String,
    /// What signs the camp's cosignatures.
    pub key: CampKey,
    /// The arbiter's public key, received out of band: every note must be signed by it.
    pub arbiter: ssh_key::PublicKey,
    /// The camp's copy folder.
    pub copy: PathBuf,
}

/// What signs a camp's cosignatures.
pub enum CampKey {
    /// The camp's key file (unencrypted in memory while the witness runs).
    File(Box<ssh_key::PrivateKey>),
    /// `--agent`: the ssh-agent at this socket, which must hold the key the match declares for
    /// the camp (its signed policy's, else line 0's); the witness never holds the key.
    Agent(PathBuf),
}

/// How a witness's run ended.
#[derive(Debug, thiserror::Error)]
pub enum WitnessError {
    #[error("{0} is not a ws://HOST:PORT/PATH address")]
    Url(String),
    #[error("cannot connect to {url}: {source}")]
    Connect { url: String, source: std::io::Error },
    #[error("the live record at {url} did not accept the WebSocket: {problem}")]
    Handshake { url: String, problem: String },
    #[error("the connection to the live record ended: {0}")]
    Lost(String),
    #[error(transparent)]
    Copy(#[from] CopyError),
    #[error(transparent)]
    Agent(#[from] crate::record::sign::SignError),
    #[error(
        "game {0}: the match declares no key for camp {1}, so the ssh-agent (--agent) cannot be asked for it"
    )]
    Undeclared(u32, String),
}

/// What a witness tells its camp: `loud` for a conflict.
pub type Tell<'a> = &'a mut dyn FnMut(bool, &str);

fn host_port(url: &str) -> Result<String, WitnessError> {
    let rest = url
        .strip_prefix("ws://")
        .ok_or_else(|| WitnessError::Url(url.to_owned()))?;
    let hp = rest.split('/').next().unwrap_or_default();
    if hp.is_empty() || !hp.contains(':') {
        return Err(WitnessError::Url(url.to_owned()));
    }
    Ok(hp.to_owned())
}

struct State<'c> {
    cfg: &'c WitnessConfig,
    games: BTreeMap<u32, (GameCopy, Judge)>,
    /// Notes over entries not held yet, per game, by size.
    pending: BTreeMap<u32, BTreeMap<u64, String>>,
    /// Notes over arbiter-only entries not authorized yet, per game, by size.
    held: BTreeMap<u32, BTreeMap<u64, String>>,
    /// The match policy as the live record sent it (none before it does).
    policy: SentPolicy,
    /// The connection has caught up with the record (it was quiet for [`QUIET`] once): each new
    /// entry is received as it is written, and noted `live`.
    live: bool,
    /// What signs the camp's cosignatures (with `--agent`: once the match declares its key).
    signer: Option<Rc<dyn Signs>>,
    /// Alarms raised and not sent yet (sent after the frame that raised them).
    alarms_out: Vec<FromWitness>,
    /// Each game's alarms kept in the copy (`alarms`), by kind and entry: each is raised once.
    alarms_kept: BTreeMap<u32, BTreeSet<(AlarmKind, Option<u64>)>>,
    /// Each game's largest checkpoint the live record sent (signed by the arbiter's key).
    notes_seen: BTreeMap<u32, u64>,
    /// Each game whose entries run past its last checkpoint beyond the policy's interval: that
    /// checkpoint's size, and since when.
    overdue: BTreeMap<u32, (u64, std::time::Instant)>,
}

/// How long the live record stays silent before the witness holds itself caught up with it: it
/// sends what it holds at once, in looks 50 ms apart.
const QUIET: std::time::Duration = std::time::Duration::from_secs(1);

/// How long more entries than the policy's interval may stand past the last checkpoint the
/// live record sent before the witness raises the alarm: the record lists a game's notes at
/// least once a second, and sends a note signed right after an entry within that.
const OVERDUE_AFTER: std::time::Duration = std::time::Duration::from_secs(3);

impl State<'_> {
    /// Game `g`'s copy and its judge: opened (the copy's entries judged again, quietly) the
    /// first time.
    fn game(&mut self, g: u32, tell: Tell<'_>) -> Result<&mut (GameCopy, Judge), WitnessError> {
        if !self.games.contains_key(&g) {
            let mut c = GameCopy::open(&self.cfg.copy, g)?;
            let held = super::copy::read_lines(
                &super::copy::game_dir(&self.cfg.copy, g).join("log.jsonl"),
            )?;
            if let Some(line0) = held.first() {
                self.agent_signer(declared_in(line0, &self.cfg.camp), tell)?;
            }
            let camp_key = match &self.signer {
                Some(s) => s.public_key().clone(),
                None => return Err(WitnessError::Undeclared(g, self.cfg.camp.clone())),
            };
            let mut judge = Judge::new(
                g,
                &self.cfg.camp,
                camp_key,
                self.cfg.arbiter.clone(),
                self.policy.clone(),
            );
            for line in &held {
                judge.take(line);
            }
            let mut raised = Vec::new();
            // An outage the witness's clock does not allow, taken before a crash of the witness
            // left no evidence of it: kept now (nothing over it is cosigned).
            for (seq, line) in held.iter().enumerate() {
                if let Some(o @ Outage::Exceeds { .. }) = c.outage(seq as u64, line)
                    && !c.has_outage_evidence(seq as u64)
                {
                    let evidence = c.keep_outage(&o, line)?;
                    let text = format!(
                        "game {g} {o}; no checkpoint over it is cosigned; kept as evidence: {}",
                        evidence.display()
                    );
                    tell(true, &text);
                    raised.push((
                        Some(seq as u64),
                        AlarmKind::Outage,
                        outage_summary(&o),
                        text,
                    ));
                }
            }
            if let Some(f) = judge.refused().cloned() {
                let evidence = c.keep_refused(&f)?;
                let text = format!(
                    "game {g}: the copy holds an entry the rules refuse: {f}; nothing over it is cosigned (evidence: {})",
                    evidence.display()
                );
                tell(true, &text);
                raised.push((
                    Some(f.seq),
                    AlarmKind::RefusedEntry,
                    fault_summary(&f),
                    text,
                ));
            }
            self.games.insert(g, (c, judge));
            for (seq, kind, summary, text) in raised {
                self.alarm(g, seq, kind, &summary, &text)?;
            }
        }
        self.games.get_mut(&g).ok_or_else(|| {
            WitnessError::Copy(CopyError::Damaged {
                path: self.cfg.copy.clone(),
                problem: format!("game {g} could not be opened"),
            })
        })
    }

    /// With `--agent`, the camp's key is the one the match declares for it (`declared`: its
    /// OpenSSH text), which the agent must hold; found once, then kept (a game that declares
    /// another is refused by its judge as with a key file).
    fn agent_signer(
        &mut self,
        declared: Option<String>,
        tell: Tell<'_>,
    ) -> Result<(), WitnessError> {
        let CampKey::Agent(socket) = &self.cfg.key else {
            return Ok(());
        };
        let public = declared.and_then(|d| ssh_key::PublicKey::from_openssh(&d).ok());
        let (None, Some(public)) = (&self.signer, public) else {
            return Ok(());
        };
        let whose = format!("camp {}'s declared key", self.cfg.camp);
        let agent = crate::record::sign::AgentKey::of(&public, socket.clone(), &whose)?;
        tell(
            false,
            &format!(
                "{whose} {} is in the ssh-agent: it signs the cosignatures",
                crate::record::sign::fingerprint(&public)
            ),
        );
        self.signer = Some(Rc::new(agent));
        Ok(())
    }

    /// The match policy as the live record sent it, checked with the arbiter's key.
    fn policy(&mut self, text: &str, signature: &str, tell: Tell<'_>) -> Result<(), WitnessError> {
        let p = super::rules::read_sent_policy(text, signature, &self.cfg.arbiter);
        match &p {
            Some(Ok((policy, _))) => {
                let camps: Vec<&str> = policy.camps.iter().map(|(c, _)| c.as_str()).collect();
                tell(
                    false,
                    &format!(
                        "the match policy of match {}, signed by the arbiter's key: entries bound by {}, camps {}",
                        policy.match_id,
                        policy.binding,
                        if camps.is_empty() {
                            "none".to_owned()
                        } else {
                            camps.join(", ")
                        }
                    ),
                );
                if !policy.camps.is_empty() && !camps.contains(&self.cfg.camp.as_str()) {
                    tell(
                        true,
                        &format!(
                            "the match policy does not name camp {}: its witness is not asked for",
                            self.cfg.camp
                        ),
                    );
                }
            }
            Some(Err(why)) => tell(
                true,
                &format!(
                    "the match policy sent does not hold: {why}; every game's line 0 is held to it all the same (and refused)"
                ),
            ),
            None => {}
        }
        if self.policy.is_some() && self.policy != p {
            tell(
                true,
                "the match policy changed while the match runs: games already opened stay held to the one sent first",
            );
            return Ok(());
        }
        let declared = match &p {
            Some(Ok((policy, _))) => policy
                .camps
                .iter()
                .find(|(c, _)| *c == self.cfg.camp)
                .map(|(_, k)| k.clone()),
            _ => None,
        };
        self.policy = p;
        self.agent_signer(declared, tell)
    }

    /// A checkpoint note: its signature by the arbiter key, then the copy's decision; returns
    /// the cosignature frame to send, if any.
    fn checkpoint(
        &mut self,
        game: u32,
        size: u64,
        note: &str,
        tell: Tell<'_>,
    ) -> Result<Option<FromWitness>, WitnessError> {
        let (cp, signed) = match crate::record::sign::verify_checkpoint_note(
            note.as_bytes(),
            &self.cfg.arbiter,
        ) {
            Ok(x) => x,
            Err(e) => {
                tell(
                    true,
                    &format!(
                        "game {game} checkpoint {size}: not signed by the arbiter's key, not cosigned: {e}"
                    ),
                );
                return Ok(None);
            }
        };
        if cp.size != size {
            tell(
                true,
                &format!(
                    "game {game}: a note sent as checkpoint {size} is checkpoint {}",
                    cp.size
                ),
            );
            return Ok(None);
        }
        let seen = self.notes_seen.entry(game).or_default();
        *seen = (*seen).max(size);
        let fp = crate::record::sign::fingerprint(&self.cfg.arbiter);
        let camp = self.cfg.camp.clone();
        if self.signer.is_none() && !self.games.contains_key(&game) {
            // `--agent` before the game's line 0 declared the camp's key: held until it does.
            self.pending
                .entry(game)
                .or_default()
                .insert(size, note.to_owned());
            return Ok(None);
        }
        self.game(game, tell)?;
        let signer = self.signer.clone();
        let (c, judge) = self.game(game, tell)?;
        if let Over::Refused(f) = judge.over(size) {
            let evidence =
                c.keep_evidence(&format!("refused-checkpoint-{size}.note"), note.as_bytes())?;
            tell(
                true,
                &format!(
                    "game {game} checkpoint {size} NOT cosigned: the arbiter's key signed it over an {f}; the note is kept as evidence: {}",
                    evidence.display()
                ),
            );
            return Ok(None);
        }
        if let Some(bound) = &c.arbiter_fingerprint
            && *bound != fp
        {
            tell(
                true,
                &format!(
                    "game {game}: line 0 binds arbiter key {bound}, not the one given ({fp}): nothing is cosigned"
                ),
            );
            return Ok(None);
        }
        match c.consider(&cp, note)? {
            Decision::Cosign => {
                if let Over::Awaits(waiting) = judge.over(size) {
                    let named: Vec<String> = waiting
                        .iter()
                        .take(8)
                        .map(|(s, k)| format!("#{s} {k}"))
                        .collect();
                    tell(
                        false,
                        &format!(
                            "game {game}: checkpoint {size} held, not cosigned yet: arbiter-only entr{} {}{} await{} the arbiter's signed authorization (5b)",
                            if waiting.len() == 1 { "y" } else { "ies" },
                            named.join(", "),
                            if waiting.len() > 8 { ", …" } else { "" },
                            if waiting.len() == 1 { "s" } else { "" },
                        ),
                    );
                    self.held
                        .entry(game)
                        .or_default()
                        .insert(size, note.to_owned());
                    return Ok(None);
                }
                let sig = match c.cosignature_of(size) {
                    Some(sig) => sig,
                    None => match signer
                        .as_deref()
                        .map(|k| crate::record::sign::countersign(k, &signed.text))
                        .unwrap_or(Err(crate::record::sign::WitnessError::Encrypted))
                    {
                        Ok(s) => s,
                        Err(e) => {
                            tell(true, &format!("cannot cosign: {e}"));
                            return Ok(None);
                        }
                    },
                };
                c.remember(&cp, note, &sig)?;
                tell(
                    false,
                    &format!(
                        "game {game}: cosigned checkpoint {size} ({}), a consistent extension of the copy",
                        cp.short_code()
                    ),
                );
                Ok(Some(FromWitness::Cosignature {
                    game,
                    size,
                    camp,
                    signature: sig,
                }))
            }
            Decision::NotYet => {
                self.pending
                    .entry(game)
                    .or_default()
                    .insert(size, note.to_owned());
                Ok(None)
            }
            // Sent again after a reconnection: already covered by a later cosignature.
            Decision::Older { .. } => Ok(None),
            Decision::Refused(why) => {
                tell(
                    true,
                    &format!("game {game} checkpoint {size} NOT cosigned: {why}"),
                );
                Ok(None)
            }
            Decision::Conflict { problem, evidence } => {
                let text = format!(
                    "CONFLICT: {problem}; NOT cosigned; the note is kept as evidence: {}",
                    evidence.display()
                );
                tell(true, &text);
                self.alarm(
                    game,
                    Some(size),
                    AlarmKind::Conflict,
                    &brief(&problem),
                    &text,
                )?;
                Ok(None)
            }
        }
    }

    fn entry(
        &mut self,
        game: u32,
        seq: u64,
        line: &str,
        tell: Tell<'_>,
    ) -> Result<(), WitnessError> {
        let live = self.live;
        if seq == 0 {
            self.agent_signer(declared_in(line.as_bytes(), &self.cfg.camp), tell)?;
        }
        let (c, judge) = self.game(game, tell)?;
        let taken = c.take_as(seq, line, live)?;
        let appended = taken == Taken::Appended;
        let mut raised = None;
        match taken {
            Taken::Appended => match judge.take(line.as_bytes()) {
                Verdict::Holds => tell(false, &format!("{} [holds]", shown(game, line))),
                Verdict::AwaitsAuthorization => tell(
                    false,
                    &format!(
                        "{} [arbiter-only: awaits his signed authorization, 5b]",
                        shown(game, line)
                    ),
                ),
                Verdict::Authorizes { first, last } => {
                    tell(
                        false,
                        &format!(
                            "{} [authorizes #{first}..#{last}: the arbiter's signature holds]",
                            shown(game, line)
                        ),
                    );
                    // Checkpoints held for this authorization.
                    if let Some(held) = self.held.remove(&game) {
                        self.pending.entry(game).or_default().extend(held);
                    }
                }
                Verdict::Refused(f) => {
                    let evidence = c.keep_refused(&f)?;
                    let text = format!(
                        "game {game} {f}; no checkpoint over it is cosigned; kept as evidence: {}",
                        evidence.display()
                    );
                    tell(true, &text);
                    raised = Some((
                        Some(f.seq),
                        AlarmKind::RefusedEntry,
                        fault_summary(&f),
                        text,
                    ));
                }
            },
            Taken::Same => {}
            Taken::Gap { have } => tell(
                true,
                &format!("game {game}: entry {seq} sent while the copy holds {have}: not taken"),
            ),
            Taken::Conflict { problem, evidence } => {
                let text = format!(
                    "CONFLICT: {problem}; kept as evidence: {}",
                    evidence.display()
                );
                tell(true, &text);
                raised = Some((Some(seq), AlarmKind::Conflict, brief(&problem), text));
            }
        }
        if let Some((seq, kind, summary, text)) = raised {
            self.alarm(game, seq, kind, &summary, &text)?;
        }
        if appended {
            self.outage(game, seq, line, tell)?;
        }
        Ok(())
    }

    /// An entry that records an outage (a restart's ruling), held to the witness's own clock:
    /// more than the witness saw pass is an alarm, kept as evidence, and nothing over it is
    /// cosigned; one the witness cannot bound is said, not alarmed.
    fn outage(
        &mut self,
        game: u32,
        seq: u64,
        line: &str,
        tell: Tell<'_>,
    ) -> Result<(), WitnessError> {
        let Some((c, _)) = self.games.get_mut(&game) else {
            return Ok(());
        };
        let Some(o) = c.outage(seq, line.as_bytes()) else {
            return Ok(());
        };
        match &o {
            Outage::Exceeds { .. } => {
                let evidence = c.keep_outage(&o, line.as_bytes())?;
                let text = format!(
                    "game {game} {o}; no checkpoint over it is cosigned; kept as evidence: {}",
                    evidence.display()
                );
                tell(true, &text);
                self.alarm(
                    game,
                    Some(seq),
                    AlarmKind::Outage,
                    &outage_summary(&o),
                    &text,
                )?;
            }
            _ => tell(false, &format!("game {game} {o}")),
        }
        Ok(())
    }
}

impl State<'_> {
    /// Raise an alarm about game `game` for the arbiter: kept in the copy's `alarms` (once per
    /// kind and entry) and sent to the live record, now and again after each reconnection.
    fn alarm(
        &mut self,
        game: u32,
        seq: Option<u64>,
        kind: AlarmKind,
        summary: &str,
        text: &str,
    ) -> Result<(), WitnessError> {
        let copy = self.cfg.copy.clone();
        let kept = match self.alarms_kept.entry(game) {
            std::collections::btree_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::btree_map::Entry::Vacant(v) => v.insert(
                kept_alarms(&copy, game)?
                    .iter()
                    .filter_map(alarm_key)
                    .collect(),
            ),
        };
        if !kept.insert((kind, seq)) {
            return Ok(());
        }
        let frame = FromWitness::Alarm {
            game,
            seq,
            camp: self.cfg.camp.clone(),
            kind,
            summary: alarm_field(summary, MAX_ALARM_SUMMARY),
            text: alarm_field(text, MAX_ALARM_TEXT),
        };
        super::copy::keep_alarm(
            &copy,
            game,
            &serde_json::to_string(&frame).unwrap_or_default(),
        )?;
        self.alarms_out.push(frame);
        Ok(())
    }

    /// After the hello: every alarm the copy keeps, sent again (the live record may have missed
    /// it: the connection was down, or the board started again), and one for any evidence the
    /// copy keeps without its alarm (a copy kept before alarms were).
    fn alarms_again(&mut self, tell: Tell<'_>) -> Result<(), WitnessError> {
        for game in super::copy::games(&self.cfg.copy)? {
            let kept = kept_alarms(&self.cfg.copy, game)?;
            let mut keys = BTreeSet::new();
            for mut f in kept {
                if let Some(k) = alarm_key(&f) {
                    keys.insert(k);
                }
                if let FromWitness::Alarm { camp, .. } = &mut f {
                    camp.clone_from(&self.cfg.camp);
                }
                self.alarms_out.push(f);
            }
            self.alarms_kept.insert(game, keys);
            for (seq, kind, summary, text) in super::copy::evidence_alarms(&self.cfg.copy, game)? {
                self.alarm(game, Some(seq), kind, &summary, &text)?;
            }
        }
        if !self.alarms_out.is_empty() {
            tell(
                false,
                &format!(
                    "{} alarm{} kept in the copy sent again to the live record",
                    self.alarms_out.len(),
                    if self.alarms_out.len() == 1 { "" } else { "s" }
                ),
            );
        }
        Ok(())
    }

    /// The match policy's interval for this camp in game `game` (`witness <camp> every <N>`).
    fn every(&self, game: u32) -> Option<u64> {
        let Some(Ok((p, _))) = &self.policy else {
            return None;
        };
        if game < p.first_game {
            return None;
        }
        p.witness
            .iter()
            .find(|(c, _)| *c == self.cfg.camp)
            .map(|(_, n)| *n)
    }

    /// Hold each game to the match policy's interval, once caught up with the record: more than
    /// N entries past the last checkpoint the live record sent, with no checkpoint within
    /// [`OVERDUE_AFTER`], is an alarm, once per stretch (the kit signs right after the N-th entry,
    /// and the record sends a note at most a second after it is written).
    fn intervals(&mut self, tell: Tell<'_>) -> Result<(), WitnessError> {
        let games: Vec<(u32, u64)> = self.games.iter().map(|(g, (c, _))| (*g, c.len())).collect();
        for (game, held) in games {
            let Some(every) = self.every(game) else {
                continue;
            };
            let last = self.notes_seen.get(&game).copied().unwrap_or(0);
            if held <= last + every {
                self.overdue.remove(&game);
                continue;
            }
            let since = match self.overdue.get(&game) {
                Some((at, t)) if *at == last => *t,
                _ => {
                    let now = std::time::Instant::now();
                    self.overdue.insert(game, (last, now));
                    now
                }
            };
            if since.elapsed() < OVERDUE_AFTER {
                continue;
            }
            if self
                .alarms_kept
                .get(&game)
                .is_some_and(|k| k.contains(&(AlarmKind::Interval, Some(last + every))))
            {
                continue;
            }
            let past = held - last;
            let (after, past_what) = if last == 0 {
                (
                    "arrived and no checkpoint over them since the game began".to_owned(),
                    "since the game began".to_owned(),
                )
            } else {
                (
                    format!(
                        "arrived past checkpoint {last}, the last the live record sent, and no checkpoint over them"
                    ),
                    format!("past checkpoint {last}"),
                )
            };
            let text = format!(
                "game {game}: {past} entries (#{last}..#{}) {after}: the match policy has the kit sign one every {every} entries for camp {} to cosign live; the interval goes unwitnessed",
                held - 1,
                self.cfg.camp
            );
            tell(true, &text);
            let summary = format!(
                "{past} entries #{last}..#{} {past_what}, none signed (every {every})",
                held - 1
            );
            self.alarm(
                game,
                Some(last + every),
                AlarmKind::Interval,
                &summary,
                &text,
            )?;
        }
        Ok(())
    }
}

/// The alarms kept in game `game`'s copy, as frames.
fn kept_alarms(copy: &std::path::Path, game: u32) -> Result<Vec<FromWitness>, WitnessError> {
    Ok(super::copy::kept_alarms(copy, game)?
        .iter()
        .filter_map(|l| serde_json::from_str::<FromWitness>(l).ok())
        .filter(|f| matches!(f, FromWitness::Alarm { .. }))
        .collect())
}

fn alarm_key(f: &FromWitness) -> Option<(AlarmKind, Option<u64>)> {
    match f {
        FromWitness::Alarm { kind, seq, .. } => Some((*kind, *seq)),
        _ => None,
    }
}

/// A refused entry in short: its actor and kind, the clause it breaks and the problem.
fn fault_summary(f: &super::rules::Fault) -> String {
    format!(
        "{} {} refused under {}: {}",
        f.actor, f.kind, f.breaks, f.problem
    )
}

/// An outage beyond the witness's clock in short: what the record claims, what the clock saw.
fn outage_summary(o: &Outage) -> String {
    let t = |ms: u64| crate::core::timefmt::clock(i64::try_from(ms).unwrap_or(i64::MAX));
    match o {
        Outage::Exceeds { claimed, bound, .. } => format!(
            "restart_gap claims {}, its clock saw {}",
            t(*claimed),
            t(*bound)
        ),
        other => brief(&other.to_string()),
    }
}

/// A problem without its leading `game N` (the status line names the game).
fn brief(problem: &str) -> String {
    let rest = problem
        .strip_prefix("game ")
        .map(|r| r.trim_start_matches(|c: char| c.is_ascii_digit()))
        .map(|r| r.trim_start_matches(':').trim_start())
        .unwrap_or(problem);
    rest.to_owned()
}

/// The key line 0 (`line`) declares for `camp`, as OpenSSH text.
fn declared_in(line: &[u8], camp: &str) -> Option<String> {
    let e = crate::log::parse_line(line, 0).ok()?;
    crate::record::countersign::declared_camps(&e)
        .into_iter()
        .find(|(c, _)| c == camp)
        .map(|(_, k)| k)
}

/// An entry as the camp sees it the moment it arrives: number, actor, kind, clause and body
/// (long bodies cut); a clock correction or ruling is seen as it is written.
fn shown(game: u32, line: &str) -> String {
    const MAX_BODY: usize = 160;
    match crate::log::parse_line(line.as_bytes(), 0) {
        Ok(e) => {
            let body = e.body.to_string();
            let body = match body.char_indices().nth(MAX_BODY) {
                Some((at, _)) => format!("{}…", &body[..at]),
                None => body,
            };
            format!(
                "game {game} #{} {} {} (clause {}) {body}",
                e.seq, e.actor, e.kind, e.clause
            )
        }
        Err(e) => format!("game {game}: an entry that does not parse: {e}"),
    }
}

fn send(ws: &mut WebSocket<TcpStream>, f: &FromWitness) -> Result<(), WitnessError> {
    let text = serde_json::to_string(f).map_err(|e| WitnessError::Lost(e.to_string()))?;
    ws.send(Message::text(text))
        .map_err(|e| WitnessError::Lost(e.to_string()))
}

/// The WebSocket to the live record at `url`.
fn open(url: &str) -> Result<WebSocket<TcpStream>, WitnessError> {
    let hp = host_port(url)?;
    let stream = TcpStream::connect(&hp).map_err(|source| WitnessError::Connect {
        url: url.to_owned(),
        source,
    })?;
    let _ = stream.set_nodelay(true);
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_FRAME))
        .max_frame_size(Some(MAX_FRAME));
    let (ws, _) =
        tungstenite::client::client_with_config(url, stream, Some(config)).map_err(|e| {
            WitnessError::Handshake {
                url: url.to_owned(),
                problem: e.to_string(),
            }
        })?;
    Ok(ws)
}

/// Follow the live record at `url` read-only (`display --connect`, `relay --connect`): every
/// frame it sends goes to `each` until `each` says stop (`false`) or the connection ends. It
/// says it follows, never cosigns and writes nothing.
pub fn follow(url: &str, each: &mut dyn FnMut(ToWitness) -> bool) -> Result<(), WitnessError> {
    let mut ws = open(url)?;
    send(
        &mut ws,
        &FromWitness::Follow {
            protocol: PROTOCOL.into(),
        },
    )?;
    loop {
        let text = match ws.read().map_err(|e| WitnessError::Lost(e.to_string()))? {
            Message::Text(t) => t.as_str().to_owned(),
            Message::Close(_) => {
                return Err(WitnessError::Lost("closed by the live record".into()));
            }
            _ => continue,
        };
        let frame: ToWitness = serde_json::from_str(&text)
            .map_err(|e| WitnessError::Lost(format!("a frame that is not {PROTOCOL}: {e}")))?;
        if let ToWitness::Hello { protocol } = &frame
            && protocol != PROTOCOL
        {
            return Err(WitnessError::Handshake {
                url: url.to_owned(),
                problem: format!("it speaks {protocol}, not {PROTOCOL}"),
            });
        }
        if !each(frame) {
            return Ok(());
        }
    }
}

/// Connect to the live record and witness until the connection ends.
pub fn run(cfg: &WitnessConfig, tell: Tell<'_>) -> Result<(), WitnessError> {
    let mut ws = open(&cfg.url)?;
    send(
        &mut ws,
        &FromWitness::Hello {
            protocol: PROTOCOL.into(),
            camp: cfg.camp.clone(),
        },
    )?;
    let mut st = State {
        cfg,
        games: BTreeMap::new(),
        pending: BTreeMap::new(),
        held: BTreeMap::new(),
        policy: None,
        live: false,
        signer: match &cfg.key {
            CampKey::File(k) => Some(Rc::new(k.as_ref().clone())),
            CampKey::Agent(_) => None,
        },
        alarms_out: Vec::new(),
        alarms_kept: BTreeMap::new(),
        notes_seen: BTreeMap::new(),
        overdue: BTreeMap::new(),
    };
    // A read that waits QUIET for nothing says the witness caught up with the record.
    ws.get_ref()
        .set_read_timeout(Some(QUIET))
        .map_err(|e| WitnessError::Lost(e.to_string()))?;
    loop {
        let msg = match ws.read() {
            Ok(m) => m,
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                if !st.live {
                    st.live = true;
                    // What was found overdue while catching up is timed from now.
                    st.overdue.clear();
                    for (c, _) in st.games.values_mut() {
                        c.sync_received()?;
                    }
                    tell(
                        false,
                        "caught up with the live record: each new entry's reception is noted by this machine's clock as it is written",
                    );
                }
                st.intervals(tell)?;
                send_alarms(&mut ws, &mut st)?;
                continue;
            }
            Err(e) => return Err(WitnessError::Lost(e.to_string())),
        };
        let text = match msg {
            Message::Text(t) => t.as_str().to_owned(),
            Message::Close(_) => {
                return Err(WitnessError::Lost("closed by the live record".into()));
            }
            _ => continue,
        };
        let frame: ToWitness = match serde_json::from_str(&text) {
            Ok(f) => f,
            Err(e) => {
                tell(
                    true,
                    &format!("the live record sent a frame that is not {PROTOCOL}: {e}"),
                );
                continue;
            }
        };
        match frame {
            ToWitness::Hello { protocol } => {
                if protocol != PROTOCOL {
                    return Err(WitnessError::Handshake {
                        url: cfg.url.clone(),
                        problem: format!("it speaks {protocol}, not {PROTOCOL}"),
                    });
                }
                tell(
                    false,
                    &format!("connected to {} as camp {}", cfg.url, cfg.camp),
                );
                st.alarms_again(tell)?;
            }
            ToWitness::Policy { text, signature } => st.policy(&text, &signature, tell)?,
            ToWitness::Entry { game, seq, line } => {
                st.entry(game, seq, &line, tell)?;
                // Notes that waited for this entry.
                let ready: Vec<(u64, String)> = st
                    .pending
                    .get_mut(&game)
                    .map(|p| {
                        let later = p.split_off(&(seq + 2));
                        std::mem::replace(p, later).into_iter().collect()
                    })
                    .unwrap_or_default();
                for (size, note) in ready {
                    if let Some(f) = st.checkpoint(game, size, &note, tell)? {
                        send(&mut ws, &f)?;
                    }
                }
                if st.live {
                    st.intervals(tell)?;
                }
            }
            ToWitness::Checkpoint { game, size, note } => {
                if let Some(f) = st.checkpoint(game, size, &note, tell)? {
                    send(&mut ws, &f)?;
                }
            }
            ToWitness::Cosigned {
                game, size, file, ..
            } => tell(
                false,
                &format!(
                    "game {game}: the live record stored the cosignature of checkpoint {size} as {file}"
                ),
            ),
            ToWitness::Refused { reason } => {
                tell(true, &format!("the live record refused: {reason}"));
            }
        }
        send_alarms(&mut ws, &mut st)?;
    }
}

/// Send the alarms raised since the last frame.
fn send_alarms(ws: &mut WebSocket<TcpStream>, st: &mut State<'_>) -> Result<(), WitnessError> {
    for f in std::mem::take(&mut st.alarms_out) {
        send(ws, &f)?;
    }
    Ok(())
}
