//! A camp's witness holds every entry to the rules as it arrives (SHELL, no file and no socket):
//! the same pure replay `verify` makes — the chess or shogi game rebuilt from line 0's profile
//! (its `[actors]` table included), a werewolf game re-run from its inputs and revealed seed —
//! the arbiter's signed authorizations of his own entries, and line 0 held to the signed match
//! policy and to the camp's own declared key. Each entry gets a verdict the camp sees at once;
//! a checkpoint is cosigned only over entries that passed.
use crate::core::game::Game;
use crate::log::Entry;
use crate::log::policy::Policy;

/// A rule an entry breaks: which entry, under which clause, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub seq: u64,
    pub actor: String,
    pub kind: String,
    /// The clause the entry cites.
    pub clause: String,
    /// What it breaks: the clause of the rules (the actors' clause, `5b` for authorizations,
    /// the entry's own for the game's rules) or `the match policy`.
    pub breaks: String,
    pub problem: String,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "entry #{} {} {} (clause {}) refused under {}: {}",
            self.seq, self.actor, self.kind, self.clause, self.breaks, self.problem
        )
    }
}

/// The verdict on one entry as it arrives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The rules accept it.
    Holds,
    /// The rules accept it; an arbiter-only entry not yet covered by his signed authorization
    /// (a checkpoint over it waits for one).
    AwaitsAuthorization,
    /// A valid signed authorization of the arbiter's entries `first..=last`.
    Authorizes { first: u64, last: u64 },
    /// The rules refuse it.
    Refused(Fault),
}

/// Whether a checkpoint over the first `size` entries may be cosigned as far as the rules go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Over {
    Holds,
    /// Arbiter-only entries the arbiter has not authorized yet (seq, kind): wait for his
    /// signed authorization.
    Awaits(Vec<(u64, String)>),
    /// An entry the rules refused lies within it.
    Refused(Fault),
}

/// The match policy as the live record sent it: checked against the arbiter's key, with the
/// SHA-256 of its text (what line 0 names), or why it does not hold. `None`: the match has none.
pub type SentPolicy = Option<Result<(Policy, [u8; 32]), String>>;

/// Read the policy text and its signature as the live record sent them, checked with the
/// arbiter's key.
pub fn read_sent_policy(text: &str, signature: &str, arbiter: &ssh_key::PublicKey) -> SentPolicy {
    let signers = format!("arbiter {}", arbiter.to_openssh().unwrap_or_default());
    let (signers, _) = crate::record::sign::parse_allowed_signers(&signers);
    let read = || -> Result<(Policy, [u8; 32]), String> {
        crate::record::sign::verify_signature(&signers, text.as_bytes(), signature)
            .map_err(|e| format!("its signature: {e}"))?;
        let p = Policy::parse(text).map_err(|e| e.to_string())?;
        Ok((p, crate::log::sha256(text.as_bytes())))
    };
    Some(read())
}

/// The game's family as its line 0 opens it.
enum Family {
    /// Chess or shogi: the game rebuilt entry by entry (`None` once the replay stopped).
    Board(Option<Box<Game>>),
    /// A werewolf table: its entries, re-run at each checkpoint once the seed is revealed.
    Werewolf(Vec<Entry>),
}

/// One game's rules as a witness holds them.
pub struct Judge {
    game: u32,
    camp: String,
    camp_key: ssh_key::PublicKey,
    arbiter: ssh_key::PublicKey,
    policy: SentPolicy,
    family: Option<Family>,
    actors: Option<crate::core::rules::Actors>,
    /// Line 0 binds the arbiter's entries by signed authorizations.
    sealed: bool,
    origin: String,
    /// Arbiter-only entries no valid authorization covers yet.
    pending: Vec<(u64, String)>,
    /// The first entry the rules refused.
    refused: Option<Fault>,
    /// Where the replay stopped, when it did (later entries are not replayed).
    stopped: Option<u64>,
    entries: u64,
}

impl Judge {
    pub fn new(
        game: u32,
        camp: &str,
        camp_key: ssh_key::PublicKey,
        arbiter: ssh_key::PublicKey,
        policy: SentPolicy,
    ) -> Judge {
        Judge {
            game,
            camp: camp.to_owned(),
            camp_key,
            arbiter,
            policy,
            family: None,
            actors: None,
            sealed: false,
            origin: String::new(),
            pending: Vec::new(),
            refused: None,
            stopped: None,
            entries: 0,
        }
    }

    /// The first entry the rules refused, if any.
    pub fn refused(&self) -> Option<&Fault> {
        self.refused.as_ref()
    }

    /// Take the next entry (its place in the chain already checked) and judge it.
    pub fn take(&mut self, line: &[u8]) -> Verdict {
        self.entries += 1;
        let e = match crate::log::parse_line(line, 0) {
            Ok(e) => e,
            Err(err) => {
                return self.refuse(Fault {
                    seq: self.entries - 1,
                    actor: "?".into(),
                    kind: "?".into(),
                    clause: "-".into(),
                    breaks: "the log format".into(),
                    problem: format!("the entry does not read: {err}"),
                });
            }
        };
        let fault = |breaks: &str, problem: String| Fault {
            seq: e.seq,
            actor: e.actor.clone(),
            kind: e.kind.clone(),
            clause: e.clause.clone(),
            breaks: format!("clause {breaks}"),
            problem,
        };
        // Line 0's own faults are said after it is replayed (the game is still rebuilt, so that
        // every later entry is judged all the same).
        let line0 = if e.seq == 0 { self.line0(&e) } else { None };
        if e.seq > 0
            && let Some(actors) = &self.actors
            && let Err(r) = actors.check(&e.kind, &e.actor)
        {
            return self.refuse(fault(&r.clause, format!("BAD_ACTOR: {r}")));
        }
        if let Some(problem) = self.replay(&e) {
            self.stopped = Some(e.seq);
            return self.refuse(fault(&e.clause, format!("BAD_REPLAY: {problem}")));
        }
        if let Some(f) = line0 {
            return self.refuse(f);
        }
        if !self.sealed {
            return Verdict::Holds;
        }
        if e.kind == "authorized" {
            return match crate::record::witness::authorization_holds(
                &e,
                &self.arbiter,
                &self.origin,
            ) {
                Ok((first, last)) => {
                    self.pending.retain(|(s, _)| !(first..=last).contains(s));
                    Verdict::Authorizes { first, last }
                }
                Err(why) => self.refuse(fault(
                    "5b",
                    format!(
                        "UNAUTHORIZED: this authorization {why}: it authorizes nothing, and what it claims to cover stands unauthorized"
                    ),
                )),
            };
        }
        if e.actor == "arbiter" {
            self.pending.push((e.seq, e.kind.clone()));
            return Verdict::AwaitsAuthorization;
        }
        Verdict::Holds
    }

    fn refuse(&mut self, f: Fault) -> Verdict {
        if self.refused.is_none() {
            self.refused = Some(f.clone());
        }
        Verdict::Refused(f)
    }

    /// Line 0: the family, the actors table, the binding, the policy and the camp's own key.
    fn line0(&mut self, e: &Entry) -> Option<Fault> {
        self.actors = crate::record::witness::profile_actors(e);
        // A binding that signs the arbiter's acts (`signed-acts/1`, `seal/1`): each
        // arbiter-only entry awaits a signed authorization; a log without one carries none.
        self.sealed = crate::record::witness::signs_acts(e);
        let match_id = e.body.get("match_id").and_then(|m| m.as_str());
        self.origin = match_id
            .map(|m| crate::log::checkpoint::origin(m, self.game))
            .unwrap_or_default();
        let fault = |problem: String| {
            Some(Fault {
                seq: 0,
                actor: e.actor.clone(),
                kind: e.kind.clone(),
                clause: e.clause.clone(),
                breaks: "the match policy".into(),
                problem,
            })
        };
        let mut v = crate::record::verify::GameVerification::unreadable(
            self.game,
            std::path::Path::new("-"),
            String::new(),
        );
        v.status = crate::record::verify::Status::Ok;
        v.problems.clear();
        crate::record::policy::check_policy(self.game, e, &self.policy, &mut v);
        if v.status != crate::record::verify::Status::Ok {
            return fault(v.problems.join("; "));
        }
        let ours = crate::record::witness::declared_camps(e)
            .into_iter()
            .find(|(name, _)| *name == self.camp);
        match ours {
            None => {
                return fault(format!(
                    "CAMPS_DROPPED: line 0 does not declare camp {}: its cosignatures are not asked for",
                    self.camp
                ));
            }
            Some((_, key)) => {
                let same = ssh_key::PublicKey::from_openssh(&key)
                    .is_ok_and(|k| k.key_data() == self.camp_key.key_data());
                if !same {
                    return fault(format!(
                        "CAMP KEY CHANGED: line 0 declares camp {} with another key than this witness's ({}): someone else would countersign in the camp's name",
                        self.camp,
                        crate::record::sign::fingerprint(&self.camp_key)
                    ));
                }
            }
        }
        None
    }

    /// Replay the entry; the problem when the rules refuse it.
    fn replay(&mut self, e: &Entry) -> Option<String> {
        if self.stopped.is_some() {
            return None;
        }
        if e.seq == 0 {
            self.family = Some(if crate::report::werewolf::is_werewolf_game(e) {
                Family::Werewolf(Vec::new())
            } else {
                Family::Board(None)
            });
        }
        match self.family.as_mut()? {
            Family::Werewolf(entries) => {
                if e.seq > 0 && e.kind != crate::log::RECOVERY_KIND {
                    match crate::core::werewolf::Event::from_entry(&e.kind, &e.body) {
                        Ok(ev) if ev.actor() != e.actor => {
                            return Some(format!(
                                "the rules give this event to {:?}, not {:?}",
                                ev.actor(),
                                e.actor
                            ));
                        }
                        Ok(ev) if ev.section() != e.clause => {
                            return Some(format!(
                                "the rules give this event section {:?}, not {:?}",
                                ev.section(),
                                e.clause
                            ));
                        }
                        Ok(_) => {}
                        Err(d) => return Some(d.to_string()),
                    }
                }
                entries.push(e.clone());
                None
            }
            Family::Board(game) => {
                let ev = match crate::log::codec::event_of(e) {
                    Ok(ev) => ev,
                    Err(d) => return Some(d.to_string()),
                };
                match game {
                    Some(g) => g.evolve(&ev).err().map(|m| m.0),
                    None => {
                        let crate::core::event::EventKind::GameOpened(o) = &ev.kind else {
                            return Some("the first entry must be game_opened".into());
                        };
                        match Game::from_opening(o) {
                            Ok(mut g) => match g.evolve(&ev) {
                                Ok(()) => {
                                    *game = Some(Box::new(g));
                                    None
                                }
                                Err(m) => Some(m.0),
                            },
                            Err(err) => Some(err.to_string()),
                        }
                    }
                }
            }
        }
    }

    /// Whether the rules let the camp cosign a checkpoint over the first `size` entries.
    pub fn over(&self, size: u64) -> Over {
        if let Some(f) = self.refused.as_ref().filter(|f| f.seq < size) {
            return Over::Refused(f.clone());
        }
        if let Some(Family::Werewolf(entries)) = &self.family {
            let n = (size as usize).min(entries.len());
            let rerun = crate::report::werewolf::read(&entries[..n])
                .map(|r| crate::report::werewolf::rerun(&r));
            let problem = match rerun {
                Ok(r) if r.fails() => Some(r.describe()),
                Ok(_) => None,
                Err(e) => Some(e.to_string()),
            };
            if let Some(problem) = problem {
                let last = entries.get(n.saturating_sub(1));
                return Over::Refused(Fault {
                    seq: n.saturating_sub(1) as u64,
                    actor: last.map(|e| e.actor.clone()).unwrap_or_default(),
                    kind: last.map(|e| e.kind.clone()).unwrap_or_default(),
                    clause: last.map(|e| e.clause.clone()).unwrap_or_default(),
                    breaks: "the table's rules (re-run from the revealed seed)".into(),
                    problem: format!("BAD_REPLAY: {problem}"),
                });
            }
        }
        let waiting: Vec<(u64, String)> = self
            .pending
            .iter()
            .filter(|(s, _)| *s < size)
            .cloned()
            .collect();
        if waiting.is_empty() {
            Over::Holds
        } else {
            Over::Awaits(waiting)
        }
    }
}
