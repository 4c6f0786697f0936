//! Rules 1, 3, 4, 6c, 8a and 9c before the first move: the declarations of the draft (players,
//! operator, team, the 6c algorithm, the 8a configuration, the camps), opening the game (line 0)
//! and starting the clock.
use super::*;

impl Game {
    /// Decide a command of this family (dispatched by [`Game::decide`]).
    pub(super) fn decide_setup(&self, cmd: &Command, now: Ms) -> Result<Vec<Event>, Refusal> {
        use Command as C;
        match cmd {
            C::Open => {
                if self.phase != Phase::Draft {
                    return refuse_state("the game is already opened");
                }
                self.check_match_length()?;
                self.check_match_not_decided()?;
                self.check_live_camps_declared()?;
                self.one(
                    now,
                    Actor::Arbiter,
                    c::MACHINE_LOG,
                    EventKind::GameOpened(Box::new(self.opening()?)),
                )
            }
            C::Start => {
                let mut out = Vec::new();
                match self.phase {
                    Phase::Draft => out.push({
                        self.check_match_length()?;
                        self.check_match_not_decided()?;
                        self.check_live_camps_declared()?;
                        self.ev(
                            now,
                            Actor::Arbiter,
                            c::MACHINE_LOG,
                            EventKind::GameOpened(Box::new(self.opening()?)),
                        )
                    }),
                    Phase::Opened => {}
                    _ => return refuse_state("the game has already started"),
                }
                out.push(self.ev(
                    now,
                    Actor::Arbiter,
                    c::TIME_CONTROL,
                    EventKind::ClockStarted {
                        side: self.board.side_to_move(),
                    },
                ));
                Ok(out)
            }
            _ => refuse_state("not a command of this rule family"),
        }
    }

    /// Apply an event of this family (dispatched by [`Game::evolve`]).
    pub(super) fn evolve_setup(&mut self, e: &Event) -> Result<(), Inconsistent> {
        let at = e.at;
        match &e.kind {
            EventKind::GameOpened(o) => {
                if self.phase != Phase::Draft {
                    return Err("game_opened after the game was opened".into());
                }
                self.decl = Some(o.declarations.clone());
                self.phase = Phase::Opened;
            }
            EventKind::ClockStarted { side } => {
                if self.phase != Phase::Opened {
                    return Err("clock_started when the game is not waiting to start".into());
                }
                self.started_at = Some(at);
                self.session_since = Some(at);
                self.phase = Phase::Playing;
                self.clock.start_turn(*side, at);
            }
            _ => {}
        }
        Ok(())
    }

    pub(super) fn declared_clause(cmd: &Command) -> Option<(&'static str, &'static str)> {
        Some(match cmd {
            Command::DeclarePlayer { .. } | Command::DeclareEntrant { .. } => (
                c::ARBITER,
                "players and colours are fixed once the game is opened",
            ),
            Command::DeclareOperator { .. } => (
                c::OPERATOR_FIXED,
                "the machine operator may not be changed during a game (4d); change him between games (4c)",
            ),
            Command::DeclareTeam { .. } => (
                c::TEAM,
                "the machine team is registered before the start of the game",
            ),
            Command::DeclareAlgorithm { .. } => (
                c::INTERNAL_CLOCK,
                "the internal-clock algorithm is presented before the start of the game",
            ),
            Command::DeclareConfig { .. } | Command::DeclareConfigFile { .. } => (
                c::TECHNICAL,
                "the configuration document is submitted before the game",
            ),
            Command::DeclareCamp { .. } | Command::DeclareCampProofFile { .. } => (
                c::ARBITER,
                "the camps' witness keys are declared before the game",
            ),
            _ => return None,
        })
    }

    /// Whether a command is a pre-game declaration.
    pub fn is_declaration(cmd: &Command) -> bool {
        Self::declared_clause(cmd).is_some()
    }

    /// Apply a declaration to the draft (before `arbiter open`); a refusal cites the profile's
    /// article (`game/cite.rs`).
    pub fn declare(&mut self, cmd: &Command) -> Result<(), Refusal> {
        let r = self.declare_draft(cmd);
        self.due_result_memo = super::DueMemo::default();
        r.map_err(|e| self.cited_refusal(e, None))
    }

    fn declare_draft(&mut self, cmd: &Command) -> Result<(), Refusal> {
        if self.phase != Phase::Draft
            && let Some((cl, msg)) = Self::declared_clause(cmd)
        {
            return refuse(cl, msg);
        }
        match cmd {
            Command::DeclarePlayer { side, kind, .. } => self.check_colours(*side, *kind)?,
            Command::DeclareEntrant { side, entrant, .. } => {
                self.check_colours(*side, entrant.player_kind())?
            }
            _ => {}
        }
        match cmd {
            Command::DeclarePlayer { side, kind, name } => {
                let p = Some(Player {
                    name: name.clone(),
                    kind: *kind,
                    entrant: None,
                });
                match side {
                    Side::White => self.draft.white = p,
                    Side::Black => self.draft.black = p,
                }
            }
            Command::DeclareEntrant {
                side,
                entrant,
                name,
            } => {
                let p = Some(Player {
                    name: name.clone(),
                    kind: entrant.player_kind(),
                    entrant: Some(entrant.clone()),
                });
                match side {
                    Side::White => self.draft.white = p,
                    Side::Black => self.draft.black = p,
                }
            }
            Command::DeclareOperator { name } => self.draft.operator = Some(name.clone()),
            Command::DeclareTeam { names } => self.draft.team = names.clone(),
            Command::DeclareAlgorithm { threshold_ms, text } => {
                let threshold_ms = threshold_ms.unwrap_or_else(|| self.profile.sync_threshold_ms());
                self.draft.algorithm = Some(Algorithm {
                    text: text.clone(),
                    threshold_ms,
                    source: "declared".into(),
                });
            }
            Command::DeclareConfig { sha256 } => self.draft.config_sha256 = Some(sha256.clone()),
            Command::DeclareCamp { name, key, proof } => {
                // A camp's key is bound only with the camp's own signature over its
                // declaration (proof of possession), never on the arbiter's word alone.
                let fp = crate::core::camp::fingerprint(key);
                let Some(proof) = proof else {
                    return refuse(
                        c::ARBITER,
                        format!(
                            "camp {name}'s key {fp} comes without proof of possession: the camp signs its declaration with that key (arbiter countersign --declaration, or ssh-keygen -Y sign -n {}) and the arbiter declares it with: arbiter declare camp {name} proof FILE; nothing declared",
                            crate::core::camp::NAMESPACE
                        ),
                    );
                };
                if let Err(why) =
                    crate::core::camp::check_proof(&self.ctx.match_id, name, key, proof)
                {
                    return refuse(
                        c::ARBITER,
                        format!("camp {name}'s key {fp} is refused: {why}; nothing declared"),
                    );
                }
                let bare: Vec<&str> = key.split_whitespace().take(2).collect();
                if let Some(was) = self.camp_bound_elsewhere(name, &bare.join(" ")) {
                    return refuse(
                        c::ARBITER,
                        format!(
                            "camp {name} is bound to key {} since game {} of this match: a camp's key is the match's from its first declaration, and {fp} is another (it could be a key the arbiter holds); nothing declared",
                            crate::core::camp::fingerprint(&was.key),
                            was.game
                        ),
                    );
                }
                self.draft.camps.retain(|c| c.name != *name);
                self.draft.camps.push(Camp {
                    name: name.clone(),
                    key: bare.join(" "),
                    proof: Some(proof.trim_end().to_owned() + "\n"),
                });
            }
            Command::DeclareCampProofFile { name, .. } => {
                return refuse(
                    c::ARBITER,
                    format!(
                        "camp {name}'s proof file is read by the shell before the game sees it"
                    ),
                );
            }
            Command::DeclareConfigFile { path } => {
                return refuse(
                    c::TECHNICAL,
                    format!(
                        "the digest of {path} is computed by the shell before the game sees it"
                    ),
                );
            }
            _ => return refuse_state("not a declaration"),
        }
        Ok(())
    }

    pub(super) fn opening(&self) -> Result<Opening, Refusal> {
        let d = &self.draft;
        let white = d.white.clone().ok_or_else(|| {
            Refusal::new(
                c::ARBITER,
                "declare white first: arbiter declare white human|machine NAME",
            )
        })?;
        let black = d.black.clone().ok_or_else(|| {
            Refusal::new(
                c::ARBITER,
                "declare black first: arbiter declare black human|machine NAME",
            )
        })?;
        self.check_colours(Side::White, white.kind)?;
        self.check_colours(Side::Black, black.kind)?;
        let machines = [&white, &black]
            .iter()
            .filter(|p| p.kind == PlayerKind::Machine)
            .count();
        let operator = match (&d.operator, machines) {
            (Some(o), _) => o.clone(),
            (None, 0) => String::new(),
            (None, _) => {
                return refuse(
                    c::OPERATOR_CHANGE_BETWEEN,
                    "declare the machine operator for this game: arbiter declare operator NAME",
                );
            }
        };
        let algorithm = match (&d.algorithm, &self.ctx.previous_algorithm) {
            (Some(a), _) => a.clone(),
            (None, Some((n, a))) => Algorithm {
                source: format!("carried over from game {n}"),
                ..a.clone()
            },
            (None, None) => Algorithm {
                text: self.profile.no_sync_rule_text().unwrap_or_else(|| format!(
                    "default of rule {}: adjust the internal clock to the game clock when a move is entered and they differ by the threshold or more",
                    self.profile.cite(c::INTERNAL_CLOCK)
                )),
                threshold_ms: self.profile.sync_threshold_ms(),
                source: "default".into(),
            },
        };
        Ok(Opening {
            match_id: self.ctx.match_id.clone(),
            game: self.ctx.game,
            profile: self.ctx.profile.clone(),
            declarations: Declarations {
                white,
                black,
                operator,
                team: d.team.clone(),
                algorithm,
                config_sha256: d.config_sha256.clone(),
                camps: d.camps.clone(),
            },
            arbiter_key: self.ctx.arbiter_key.clone(),
            kit_version: env!("CARGO_PKG_VERSION").to_string(),
        })
    }
}
