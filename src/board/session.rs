//! Glue between the shell and the pure core: `now -> decide -> append -> evolve`.
//!
//! Every event is first appended to the game's storage (the journal: write + fdatasync), and only
//! then applied to the state and shown. Events the passing of time causes (flag fall, the 9e
//! limit, automatic results) are recorded by [`Session::catch_up`] before any command.
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::core::command::{Command, TablebaseProbe};
use crate::core::event::{Event, ProfileRef};
use crate::core::game::{Game, GameContext, Phase};
use crate::core::rules::Profile;
use crate::core::script::ScriptLine;
use crate::core::{Ms, Refusal, timefmt};

/// A callback run after every durable append.
pub type OnAppend = Box<dyn FnMut(&crate::log::Entry)>;

/// Why storage could not record an event or sign what it holds.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error(transparent)]
    Journal(#[from] crate::record::journal::JournalError),
    #[error(transparent)]
    Sign(#[from] crate::record::sign::SignError),
    #[error("the journal lost line 0")]
    LostLineZero,
    /// What binds an entry (the match policy it names, the authorization's signature) could not
    /// be written or made: the entry is not recorded and not acknowledged.
    #[error(
        "the entry could not be bound and is not recorded: {0}; the game stops until it can be (room on a full disk, a folder the kit may write, the key at hand) and opens again as it was"
    )]
    Unbound(String),
    #[error("nothing recorded yet")]
    NothingRecorded,
    #[error("no signing key")]
    NoKey,
    #[error("this session keeps no log to sign (dry run)")]
    NoLog,
    /// Fault injection in tests.
    #[error("injected storage failure")]
    Injected,
}

/// Where a session's events go. `append` returns only once the event is durable.
pub trait Storage {
    fn append(&mut self, event: &Event, utc: DateTime<Utc>) -> Result<(), StorageError>;
    /// Entries recorded so far (for the status line).
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// What the Board UI's status line shows about the log.
    fn status(&self) -> StorageStatus {
        StorageStatus {
            entries: self.len(),
            ..StorageStatus::default()
        }
    }
    /// Call `f` after every durable append.
    /// Note that the kit is alive at `now` (game time) with a clock running, outside the log:
    /// after a crash the restart measures its gap from the last beat, not from the last entry.
    /// Returns what the arbiter should be told (the beat's file was removed or replaced while
    /// the kit ran and was written again, or cannot be written).
    fn heartbeat(&mut self, _now: Ms, _utc: DateTime<Utc>) -> Option<String> {
        None
    }
    /// A count that moves whenever something outside this process may have changed what
    /// [`Storage::status`] reports (a camp's countersignature added); `None` when nothing
    /// watches (then the status is asked for at every frame).
    fn outside_changes(&self) -> Option<u64> {
        None
    }

    fn set_on_append(&mut self, _f: OnAppend) {}
    /// The passphrase the arbiter just typed for an act (`Some`), kept only until the act is
    /// recorded (`None` drops it): what the act signs (its authorization, a checkpoint, the
    /// heartbeat's anchor at game time `now`) is signed with it. Storage without a key ignores it.
    /// Whether the next entry needs the key at once (line 0 of a match's first game under a
    /// policy: the policy is signed with it) and nothing is at hand to sign: the arbiter's
    /// passphrase is then asked before the command, even one timed at the key.
    fn needs_key_first(&self) -> bool {
        false
    }
    /// Let a signature with no passphrase armed ask it on the terminal (a script's; never the
    /// Board UI's).
    fn allow_prompt(&mut self) {}
    /// Sign what a session signs when it opens (the heartbeat's anchor at game time `now`),
    /// asking the passphrase on the terminal if the key needs one; the key is wiped after.
    fn open_key(&mut self, _now: Ms, _utc: DateTime<Utc>) -> Result<(), StorageError> {
        Ok(())
    }
    /// [`Storage::arm`] with the key already opened for the act (the Board UI's check of the
    /// passphrase opened it: one key derivation per act).
    fn arm_key(
        &mut self,
        _key: Option<crate::record::sign::ActKey>,
        _now: Ms,
        _utc: DateTime<Utc>,
    ) {
    }
    fn arm(
        &mut self,
        _passphrase: Option<zeroize::Zeroizing<String>>,
        _now: Ms,
        _utc: DateTime<Utc>,
    ) {
    }
    /// Sign a checkpoint now (when the arbiter asks). Returns its path.
    fn checkpoint_now(&mut self, _now: DateTime<Utc>) -> Result<PathBuf, StorageError> {
        Err(StorageError::NoLog)
    }
}

/// The log's state for the status line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StorageStatus {
    pub entries: usize,
    pub last_entry: Option<String>,
    /// Entries covered by the latest signed checkpoint.
    pub signed_upto: Option<usize>,
    /// Its short code, which a camp copies onto its scoresheet (`arbiter verify --code`).
    pub signed_code: Option<String>,
    /// A problem that does not stop play (e.g. a checkpoint that could not be signed).
    pub warning: Option<String>,
    /// Each camp's latest countersigned checkpoint (its size).
    pub countersigned: Vec<(String, u64)>,
    /// The camps that countersigned the match index in force (one that lists this game).
    pub index_countersigned: Vec<String>,
}

/// In-memory storage, for dry runs and tests.
#[derive(Debug, Default)]
pub struct Memory {
    pub events: Vec<Event>,
    /// Fail every append from this index on (fault injection in tests).
    pub fail_from: Option<usize>,
}

impl Storage for Memory {
    fn append(&mut self, event: &Event, _utc: DateTime<Utc>) -> Result<(), StorageError> {
        if self.fail_from.is_some_and(|n| self.events.len() >= n) {
            return Err(StorageError::Injected);
        }
        self.events.push(event.clone());
        Ok(())
    }
    fn len(&self) -> usize {
        self.events.len()
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SessionError {
    #[error("{0}")]
    Refused(#[from] Refusal),
    /// The log could not be written: nothing more is accepted (the alarm of the Board UI).
    #[error("LOG WRITE FAILED, input frozen: {0}")]
    Storage(String),
    /// An event produced by the core could not be applied (a bug; nothing was shown as done).
    #[error("internal error applying an event: {0}")]
    Apply(String),
}

/// The ruling recorded for the arbiter's `restart-gap` ruling on a `gap` measured with
/// `uncertainty` (the real downtime lies between `gap - uncertainty` and `gap`): the uncertainty
/// is given to the side whose clock ran, so `charge` charges the shorter figure (`waive` gives
/// back the whole measured gap; an explicit `charge H:MM:SS` stands as given).
pub fn restart_ruling(
    ruling: crate::core::command::GapRuling,
    gap: Ms,
    uncertainty: Ms,
) -> crate::core::command::GapRuling {
    use crate::core::command::GapRuling as R;
    match ruling {
        R::Charge if uncertainty > 0 => R::ChargePart(gap.saturating_sub(uncertainty)),
        r => r,
    }
}

/// A live game: its state and its storage. The state is never stored anywhere else.
pub struct Session {
    pub game: Game,
    pub storage: Box<dyn Storage>,
    /// UTC time of monotonic offset 0, for the wall-clock column of the log.
    pub utc_origin: DateTime<Utc>,
    /// Set when an append failed: every later command is refused.
    pub frozen: Option<String>,
    /// After a restart with a clock running: the measured gap, until the arbiter decides whether
    /// the running clock is charged for it (8b waive / 6d charge). Nothing else is accepted
    /// before that decision, and no time-caused event is recorded.
    pub restart_gap: Option<Ms>,
    /// The side whose clock was running at that restart.
    pub restart_side: Option<crate::core::Side>,
    /// How much shorter than [`Session::restart_gap`] the real downtime may have been: the gap
    /// runs from the kit's last heartbeat, and the kit may have run up to one beat period after
    /// it (0 when the gap is not measured from a beat). A `charge` counts the shorter figure:
    /// the uncertainty goes to the side whose clock ran ([`restart_ruling`]).
    pub restart_uncertainty: Ms,
    /// What the kit saw of the wall clock across that restart when it disagrees with the boot
    /// clock (both readings, in words): recorded in the ruling's entry.
    pub restart_wall_clock: Option<String>,
    /// Syzygy endgame tables the arbiter gave the kit (`--syzygy DIR`), to check 10a claims.
    pub syzygy: Option<PathBuf>,
}

impl Session {
    pub fn new(game: Game, storage: Box<dyn Storage>, utc_origin: DateTime<Utc>) -> Session {
        Session {
            game,
            storage,
            utc_origin,
            frozen: None,
            restart_gap: None,
            restart_side: None,
            restart_uncertainty: 0,
            restart_wall_clock: None,
            syzygy: None,
        }
    }

    /// `arbiter tablebase-draw` (10a): with Syzygy tables given, the shell probes the position
    /// and hands the core what they say; the core refuses a won or lost position.
    fn probe_tablebase(&self, cmd: Command) -> Command {
        let (Command::ArbiterTablebaseDraw { probe: None }, Some(dir)) = (&cmd, &self.syzygy)
        else {
            return cmd;
        };
        let probe = match self.game.board().fen() {
            Some(fen) => probe_syzygy(dir, &fen),
            None => TablebaseProbe::Unavailable {
                reason: "not a chess position".into(),
            },
        };
        Command::ArbiterTablebaseDraw { probe: Some(probe) }
    }

    pub fn utc_at(&self, at: Ms) -> DateTime<Utc> {
        // Saturating: a crafted offset cannot overflow the calendar (offsets are bounded at
        // parse time; this is the last line of defence).
        i64::try_from(at)
            .ok()
            .and_then(Duration::try_milliseconds)
            .and_then(|d| self.utc_origin.checked_add_signed(d))
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }

    fn record(&mut self, e: &Event) -> Result<(), SessionError> {
        if let Some(f) = &self.frozen {
            return Err(SessionError::Storage(f.clone()));
        }
        // Check the event applies before writing it, so the log never holds an entry the
        // state refuses; then write durably; only then change the state.
        let mut next = self.game.clone();
        next.evolve(e)
            .map_err(|m| SessionError::Apply(m.to_string()))?;
        if let Err(err) = self.storage.append(e, self.utc_at(e.at)) {
            let msg = err.to_string();
            self.frozen = Some(msg.clone());
            return Err(SessionError::Storage(msg));
        }
        // At a time control (where the profile says) a checkpoint is signed over the
        // control move, for the camps to countersign. The entry is durable; a checkpoint that
        // cannot be signed is the storage's warning, and storage without a log has none to sign.
        let control = next.profile().countersign_at_controls()
            && next.controls_passed() > self.game.controls_passed();
        self.game = next;
        if control {
            let _ = self.storage.checkpoint_now(self.utc_at(e.at));
        }
        Ok(())
    }

    /// Record every event that time or state makes due at or before `now`.
    pub fn catch_up(&mut self, now: Ms) -> Result<Vec<Event>, SessionError> {
        let mut out = Vec::new();
        if self.restart_gap.is_some() {
            return Ok(out);
        }
        while let Some(e) = self.game.due(now) {
            self.record(&e)?;
            out.push(e);
        }
        Ok(out)
    }

    /// Run one command at `now`: due events first, then the command's events, then any events
    /// they make due (e.g. a checkmate). Returns everything recorded.
    pub fn execute(&mut self, cmd: &Command, now: Ms) -> Result<Vec<Event>, SessionError> {
        if let Some(f) = &self.frozen {
            return Err(SessionError::Storage(f.clone()));
        }
        let resolved = read_declared_files(cmd)?;
        let resolved = self.probe_tablebase(resolved);
        let cmd = &resolved;
        if let Some(gap) = self.restart_gap {
            // While the ruling is pending the arbiter may stop the clocks; nothing else is taken
            // but the record of how an arbiter's command was (or failed to be) authorized (5b):
            // every failed passphrase is logged, in every state of the game.
            let ruling = match cmd {
                Command::RestartGap { ruling, reason, .. } => Some((*ruling, reason.clone())),
                Command::Stop { .. }
                | Command::Authorize { .. }
                | Command::AuthorizationFailed { .. } => None,
                _ => {
                    return Err(SessionError::Refused(Refusal::new(
                        crate::core::clause::POWER_FAILURE,
                        match self.restart_side {
                            Some(_) => format!(
                                "the kit restarted {} after it last ran with a clock running: decide first, arbiter restart-gap waive|charge [H:MM:SS] REASON (or arbiter stop)",
                                timefmt::clock(gap as i64)
                            ),
                            None => format!(
                                "the kit restarted {} after it last ran, during the 8b suspension: record it first, arbiter restart-gap waive REASON (no clock ran, nothing is charged)",
                                timefmt::clock(gap as i64)
                            ),
                        },
                    )));
                }
            };
            let now = now.max(self.game.last_at());
            let rules = ruling.is_some();
            let decided = match ruling {
                Some((ruling, reason)) => Command::RestartGap {
                    ruling: restart_ruling(ruling, gap, self.restart_uncertainty),
                    reason,
                    measured: Some((gap, self.restart_side)),
                },
                None => cmd.clone(),
            };
            let mut events = self.game.decide(&decided, now)?;
            for e in &mut events {
                if let crate::core::event::EventKind::RestartGap { wall_clock, .. } = &mut e.kind {
                    wall_clock.clone_from(&self.restart_wall_clock);
                }
            }
            let mut out = Vec::new();
            for e in &events {
                self.record(e)?;
                out.push(e.clone());
            }
            if rules {
                // Once per restart: a second ruling finds nothing measured and is refused.
                self.restart_gap = None;
                self.restart_side = None;
                self.restart_uncertainty = 0;
                self.restart_wall_clock = None;
                out.extend(self.catch_up(now)?);
            }
            return Ok(out);
        }
        let mut out = self.catch_up(now)?;
        if Game::is_declaration(cmd) && self.game.phase() == Phase::Draft {
            self.game.declare(cmd)?;
            return Ok(out);
        }
        let now = now.max(self.game.last_at());
        let events = self.game.decide(cmd, now)?;
        for e in &events {
            self.record(e)?;
            out.push(e.clone());
        }
        out.extend(self.catch_up(now)?);
        Ok(out)
    }
}

/// What the Syzygy tables in `dir` say of the position `fen` (win-draw-loss for the side to move,
/// after the last capture or pawn move, so the fifty-move rule counts from there).
pub fn probe_syzygy(dir: &Path, fen: &str) -> TablebaseProbe {
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;
    use shakmaty_syzygy::{Tablebase, Wdl};
    let tables = dir.display().to_string();
    let unavailable = |reason: String| TablebaseProbe::Unavailable { reason };
    let pos: shakmaty::Chess = match fen.parse::<Fen>().map_err(|e| e.to_string()).and_then(|f| {
        f.into_position(CastlingMode::Standard)
            .map_err(|e| e.to_string())
    }) {
        Ok(p) => p,
        Err(e) => return unavailable(format!("the position does not parse: {e}")),
    };
    let mut tb = Tablebase::new();
    match tb.add_directory(dir) {
        Err(e) => return unavailable(format!("{tables}: {e}")),
        Ok(0) => return unavailable(format!("{tables} holds no Syzygy table files")),
        Ok(_) => {}
    }
    match tb.probe_wdl_after_zeroing(&pos) {
        Ok(w) => TablebaseProbe::Wdl {
            wdl: match w {
                Wdl::Loss => -2,
                Wdl::BlessedLoss => -1,
                Wdl::Draw => 0,
                Wdl::CursedWin => 1,
                Wdl::Win => 2,
            },
            tables,
        },
        Err(e) => unavailable(format!("{tables} could not answer for this material: {e}")),
    }
}

/// `arbiter declare config-file PATH` (8a): the shell reads the document and declares its
/// SHA-256, so the core gets the digest and never the file. Other commands pass unchanged.
pub fn read_declared_files(cmd: &Command) -> Result<Command, Refusal> {
    use sha2::{Digest, Sha256};
    match cmd {
        Command::DeclareConfigFile { path } => {
            // A configuration document is a text of modest size: 64 MiB is far above any.
            let bytes = crate::record::fsio::read(Path::new(path), 64 << 20).map_err(|e| {
                Refusal::new(
                    crate::core::clause::TECHNICAL,
                    format!("cannot read the configuration document {path}: {e}; nothing declared"),
                )
            })?;
            Ok(Command::DeclareConfig {
                sha256: hex::encode(Sha256::digest(&bytes)),
            })
        }
        // A camp's proof of possession, read here; the core checks it.
        Command::DeclareCampProofFile { name, key, path } => {
            let bytes = crate::record::fsio::read(Path::new(path), 64 << 10).map_err(|e| {
                Refusal::new(
                    crate::core::clause::ARBITER,
                    format!("cannot read camp {name}'s proof {path}: {e}; nothing declared"),
                )
            })?;
            let proof = String::from_utf8(bytes).map_err(|_| {
                Refusal::new(
                    crate::core::clause::ARBITER,
                    format!("camp {name}'s proof {path} is not text (an armored SSH signature); nothing declared"),
                )
            })?;
            let key = match key {
                Some(k) => k.clone(),
                None => crate::core::camp::signer_of(&proof).map_err(|e| {
                    Refusal::new(
                        crate::core::clause::ARBITER,
                        format!("camp {name}'s proof {path}: {e}; nothing declared"),
                    )
                })?,
            };
            Ok(Command::DeclareCamp {
                name: name.clone(),
                key,
                proof: Some(proof),
            })
        }
        other => Ok(other.clone()),
    }
}

/// Why a rules profile could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadProfileError {
    #[error("{}: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Parse(#[from] crate::core::rules::ProfileError),
    /// Line 0 embeds the profile: one that could not fit a log line is refused when it is
    /// loaded, before any game binds it.
    #[error("{}: {problem}", .path.display())]
    TooLarge { path: PathBuf, problem: String },
}

/// Largest rules profile the kit takes (bytes): line 0 embeds its text, and must stay well within
/// a log line ([`crate::record::journal::MAX_LINE_BYTES`]) with the declarations beside it. The bundled
/// ones are about 10 KB.
pub const PROFILE_LIMIT: usize = 1024 * 1024;
/// Longest profile `name` (characters): it is shown on every screen and in every report.
pub const PROFILE_NAME_LIMIT: usize = 200;

/// A session kept in memory only (dry runs, rehearsals, tests), on the rules profile at `rules`.
pub fn memory_session(
    rules: &Path,
    match_id: &str,
    game: u32,
) -> Result<Session, LoadProfileError> {
    let (profile, pref) = load_profile(rules)?;
    Ok(memory_session_with(profile, pref, match_id, game))
}

/// [`memory_session`] on a profile already loaded (a match's own, from its earlier games).
pub fn memory_session_with(
    profile: crate::core::rules::Profile,
    pref: crate::core::event::ProfileRef,
    match_id: &str,
    game: u32,
) -> Session {
    let ctx = GameContext::unsigned(match_id, game, pref);
    Session::new(
        Game::new(ctx, profile),
        Box::new(Memory::default()),
        Utc::now(),
    )
}

/// Load a rules profile file, with the reference line 0 binds.
/// A path that exists is read (it overrides); one that does not and names a bundled profile
/// (`rules/NAME.toml`, `NAME.toml`, `NAME`) is the profile compiled into the binary
/// ([`crate::bundled`]), so the kit runs from any folder.
pub fn load_profile(path: &Path) -> Result<(Profile, ProfileRef), LoadProfileError> {
    let (text, file) = match crate::record::fsio::read_to_string(path) {
        Ok(text) => (
            text,
            path.file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("rules.toml")
                .to_string(),
        ),
        Err(source) => match crate::bundled::for_missing_path(path) {
            Some((file, text)) if source.kind() == std::io::ErrorKind::NotFound => {
                (text.to_string(), file)
            }
            _ => {
                return Err(LoadProfileError::Read {
                    path: path.to_owned(),
                    source,
                });
            }
        },
    };
    let too_large = |problem: String| LoadProfileError::TooLarge {
        path: path.to_owned(),
        problem,
    };
    if text.len() > PROFILE_LIMIT {
        return Err(too_large(format!(
            "the profile is {} bytes, more than the {PROFILE_LIMIT} a profile may hold (line 0 embeds it)",
            text.len()
        )));
    }
    let profile = Profile::parse(&path.display().to_string(), &text)?;
    let name_chars = profile.profile.name.chars().count();
    if name_chars > PROFILE_NAME_LIMIT {
        return Err(too_large(format!(
            "profile.name is {name_chars} characters, more than the {PROFILE_NAME_LIMIT} it may hold"
        )));
    }
    let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(text.as_bytes()));
    let r = ProfileRef {
        name: profile.profile.name.clone(),
        file,
        sha256: sha,
        toml: text,
    };
    Ok((profile, r))
}

// ----- printing the state ---------------------------------------------------------------

/// The final-state text of `arbiter script` and `arbiter status`.
pub fn summary_text(game: &Game, now: Ms, entries: usize) -> String {
    let v = game.view(now, usize::MAX);
    let mut s = String::new();
    s.push_str(&format!(
        "match {} game {} ({})\n",
        v.match_id, v.game, v.rules
    ));
    let mut notes = Vec::new();
    for c in &v.clocks {
        let mark = if c.running { " (running)" } else { "" };
        s.push_str(&format!(
            "  {:<5} {:<24} {}{}  moves {}  period {}\n",
            game.side_label(c.side),
            c.name,
            timefmt::clock(game.counted_remaining(c.side, c.remaining_ms)),
            mark,
            c.moves_made,
            c.period
        ));
        notes.extend(game.flag_rule_note(c.side, c.remaining_ms));
    }
    for n in notes {
        s.push_str(&format!("  {n}\n"));
    }
    let moves: Vec<String> = v.last_moves.clone();
    s.push_str(&format!(
        "moves ({}): {}\n",
        v.plies,
        if moves.is_empty() {
            "-".to_string()
        } else {
            moves.join(" ")
        }
    ));
    if let Some(fen) = &v.fen {
        s.push_str(&format!("fen: {fen}\n"));
    }
    match &game.outcome() {
        Some(o) => s.push_str(&format!(
            "result: {} ({:?}: {})\n",
            o.score.text(),
            o.termination,
            o.detail
        )),
        None => s.push_str(&format!("result: none yet ({:?})\n", game.phase())),
    }
    s.push_str(&format!("log entries: {entries}\n"));
    s
}

// ----- script mode ----------------------------------------------------------------------

/// Run parsed script lines through a session. Stops at the first refusal, which is returned
/// with its script line number.
pub fn run_script(
    session: &mut Session,
    lines: &[ScriptLine],
) -> Result<Ms, (usize, SessionError)> {
    run_script_with(session, lines, |_, _, _, _| Ok(()))
}

/// [`run_script`], calling `after(session, line, entries before it, now)` once each line is
/// recorded (a script that authorizes each act of the arbiter as it is recorded).
pub fn run_script_with(
    session: &mut Session,
    lines: &[ScriptLine],
    mut after: impl FnMut(&mut Session, &ScriptLine, usize, Ms) -> Result<(), SessionError>,
) -> Result<Ms, (usize, SessionError)> {
    let mut now = 0;
    for l in lines {
        now = l.at.max(now);
        let shogi = session.game.board().shogi().is_some();
        crate::core::command::side_words_fit(&l.text, shogi)
            .map_err(|e| (l.line, SessionError::Refused(Refusal::state(e.to_string()))))?;
        let before = session.storage.len();
        session.execute(&l.command, now).map_err(|e| (l.line, e))?;
        after(session, l, before, now).map_err(|e| (l.line, e))?;
    }
    // Let due events at the last time be recorded (e.g. a flag at exactly that moment).
    session.catch_up(now).map_err(|e| (0, e))?;
    Ok(now)
}
