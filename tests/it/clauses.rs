//! One test (or more) per clause of the 2003 match rules, in given / when / then form:
//! `given(lines)` builds a session from script lines, `.when(line)` runs one command at an
//! explicit time, and `.then_*` checks the events recorded, the refusal (with its clause, and that
//! neither the state nor the storage changed) or the resulting state. Expected clock values are
//! worked out by hand in each test from the times in its script.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use arbiter::board::session::{Memory, Session, SessionError, load_profile};
use arbiter::core::Ms;
use arbiter::core::command::{Command, TablebaseProbe};
use arbiter::core::event::{
    Algorithm, ClockSet, DeclineHow, Event, EventKind, Justification, ProfileRef, Score,
    Termination,
};
use arbiter::core::game::{Game, GameContext, Phase};
use arbiter::core::rules::Profile;
use arbiter::core::script::parse_script;
use arbiter::core::view::{Panel, View};
use arbiter::core::{Actor, Side};

// ----- harness ------------------------------------------------------------------------------

pub const KASPAROV_2003: &str = "kasparov-deep-junior-2003.toml";
pub const DENRYUSEN_2024: &str = "denryusen-2024.toml";

pub fn rules_path(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("rules")
        .join(file)
}

pub fn rules_text(file: &str) -> String {
    std::fs::read_to_string(rules_path(file)).unwrap()
}

fn context(profile: ProfileRef, game: u32, previous: Option<(u32, Algorithm)>) -> GameContext {
    GameContext {
        match_id: "test-match".into(),
        game,
        profile,
        arbiter_key: arbiter::core::event::KeyRef {
            principal: "arbiter".into(),
            fingerprint: "none (test)".into(),
            demo: false,
        },
        previous_algorithm: previous,
    }
}

/// A draft game under a profile file of `rules/`.
pub fn new_game(file: &str) -> Game {
    let (profile, r) = load_profile(&rules_path(file)).unwrap();
    Game::new(context(r, 1, None), profile)
}

/// A draft game under a profile given as text (e.g. a variant edited in a test).
pub fn game_from_text(file: &str, text: &str, n: u32, previous: Option<(u32, Algorithm)>) -> Game {
    let profile = Profile::parse(file, text).unwrap();
    let r = ProfileRef {
        name: profile.profile.name.clone(),
        file: file.into(),
        sha256: "0".repeat(64),
        toml: text.into(),
    };
    Game::new(context(r, n, previous), profile)
}

/// One script line (`OFFSET COMMAND`) parsed.
fn line(text: &str) -> (Ms, Command) {
    let mut l = parse_script(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(l.len(), 1, "{text}");
    let l = l.remove(0);
    (l.at, l.command)
}

/// Seconds with milliseconds, as script offsets are written (`7239.000`).
pub fn secs(ms: Ms) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// A live session with in-memory storage, and every event it recorded.
pub struct Match {
    pub s: Session,
    pub log: Vec<Event>,
    /// Time of the latest command.
    pub now: Ms,
}

/// The state a refusal must leave alone.
#[derive(Debug, PartialEq)]
struct Snapshot {
    view: View,
    state: String,
    stored: usize,
    applied: usize,
}

impl Match {
    pub fn new(game: Game) -> Match {
        let s = Session::new(game, Box::new(Memory::default()), chrono::Utc::now());
        Match {
            s,
            log: Vec::new(),
            now: 0,
        }
    }

    pub fn game(&self) -> &Game {
        &self.s.game
    }

    pub fn view(&self, at: Ms) -> View {
        self.s.game.view(at, usize::MAX)
    }

    pub fn remaining(&self, side: Side, at: Ms) -> i64 {
        self.view(at).clocks[side.index()].remaining_ms
    }

    fn keep(&mut self, events: &[Event]) {
        self.log.extend_from_slice(events);
        assert_eq!(
            self.s.storage.len(),
            self.log.len(),
            "storage and log agree"
        );
    }

    /// Run one script line; returns what it recorded or the session's error.
    pub fn try_line(&mut self, text: &str) -> Result<Vec<Event>, SessionError> {
        let (at, cmd) = line(text);
        let r = self.s.execute(&cmd, at);
        self.now = at;
        if let Ok(ev) = &r {
            self.keep(ev);
        }
        r
    }

    /// Run one script line that must be accepted.
    pub fn at(&mut self, text: &str) -> Vec<Event> {
        self.try_line(text)
            .unwrap_or_else(|e| panic!("'{text}' refused: {e}"))
    }

    pub fn and(mut self, text: &str) -> Match {
        self.at(text);
        self
    }

    /// Record what time makes due at `t` (flag fall, 9e limit, ...).
    pub fn tick(&mut self, t: Ms) -> Vec<Event> {
        let ev = self.s.catch_up(t).unwrap();
        self.keep(&ev);
        ev
    }

    /// Play moves (SAN or UCI, space separated), each taking `step` ms from the previous
    /// command. Returns the time of the last move.
    pub fn moves(&mut self, sans: &str, step: Ms) -> Ms {
        for m in sans.split_whitespace() {
            let t = self.now + step;
            self.at(&format!("{} move {m}", secs(t)));
        }
        self.now
    }

    fn snapshot(&self, at: Ms) -> Snapshot {
        Snapshot {
            view: self.view(at),
            state: format!("{:?}", self.s.game),
            stored: self.s.storage.len(),
            applied: self.s.game.applied(),
        }
    }

    pub fn when(mut self, text: &str) -> Then {
        let (at, _) = line(text);
        // Whatever time makes due is recorded first; the command is judged on what follows.
        self.tick(at);
        let before = self.snapshot(at);
        let result = self.try_line(text);
        Then {
            m: self,
            text: text.to_string(),
            at,
            before,
            result,
        }
    }
}

pub fn given(lines: &[&str]) -> Match {
    given_game(new_game(KASPAROV_2003), lines)
}

pub fn given_game(game: Game, lines: &[&str]) -> Match {
    let mut m = Match::new(game);
    for l in lines {
        m.at(l);
    }
    m
}

/// Kasparov (White, human) against Deep Junior (Black, machine).
pub const HUMAN_WHITE: &[&str] = &[
    "0 arbiter declare white human Garry Kasparov",
    "0 arbiter declare black machine Deep Junior",
    "0 arbiter declare operator Amir Ban",
    "0 arbiter declare team Shay Bushinsky, Boris Alterman",
];

/// Deep Junior (White, machine) against Kasparov (Black, human).
pub const MACHINE_WHITE: &[&str] = &[
    "0 arbiter declare white machine Deep Junior",
    "0 arbiter declare black human Garry Kasparov",
    "0 arbiter declare operator Amir Ban",
    "0 arbiter declare team Shay Bushinsky, Boris Alterman",
];

/// The 2003 game with the human as White, started at 0.
pub fn started() -> Match {
    given(HUMAN_WHITE).and("0 arbiter start")
}

pub struct Then {
    pub m: Match,
    text: String,
    at: Ms,
    before: Snapshot,
    pub result: Result<Vec<Event>, SessionError>,
}

impl Then {
    /// Refused citing `clause` (or no clause for `""`), with nothing recorded or changed.
    pub fn then_refused(self, clause: &str) -> Then {
        self.then_refused_saying(clause, "")
    }

    pub fn then_refused_saying(self, clause: &str, words: &str) -> Then {
        let r = match &self.result {
            Err(SessionError::Refused(r)) => r.clone(),
            other => panic!("'{}' should be refused, got {other:?}", self.text),
        };
        assert_eq!(
            r.clause.as_deref().unwrap_or(""),
            clause,
            "'{}' refused citing the wrong clause: {r}",
            self.text
        );
        assert!(
            r.message.contains(words),
            "'{}': refusal '{}' does not say '{words}'",
            self.text,
            r.message
        );
        assert_eq!(
            self.m.snapshot(self.at),
            self.before,
            "'{}' was refused but changed the state or the storage",
            self.text
        );
        self
    }

    /// Accepted, recording exactly these (kind, clause) pairs, at the command's time.
    pub fn then_events(self, expected: &[(&str, &str)]) -> Then {
        let got: Vec<(String, String)> = self
            .events()
            .iter()
            .map(|e| (e.kind_name(), e.clause.to_string()))
            .collect();
        let want: Vec<(String, String)> = expected
            .iter()
            .map(|(k, c)| (k.to_string(), c.to_string()))
            .collect();
        assert_eq!(got, want, "'{}'", self.text);
        for e in self.events() {
            assert_eq!(e.at, self.at, "'{}' recorded at its own time", self.text);
        }
        self
    }

    /// Accepted; `f` checks the events and the state.
    pub fn then(self, f: impl FnOnce(&Match, &[Event])) -> Then {
        f(&self.m, self.events());
        self
    }

    /// Check the view at `at` (after a refusal or events alike).
    pub fn then_view(self, at: Ms, f: impl FnOnce(&View)) -> Then {
        f(&self.m.view(at));
        self
    }

    pub fn events(&self) -> &[Event] {
        match &self.result {
            Ok(ev) => ev,
            Err(e) => panic!("'{}' refused: {e}", self.text),
        }
    }

    pub fn when(self, text: &str) -> Then {
        self.m.when(text)
    }

    pub fn and(self, text: &str) -> Match {
        self.m.and(text)
    }
}

impl std::ops::Deref for Then {
    type Target = Match;
    fn deref(&self) -> &Match {
        &self.m
    }
}

impl std::ops::DerefMut for Then {
    fn deref_mut(&mut self) -> &mut Match {
        &mut self.m
    }
}

/// The single event of a kind in a slice.
pub fn only<'a>(events: &'a [Event], kind: &str) -> &'a Event {
    let v: Vec<&Event> = events.iter().filter(|e| e.kind_name() == kind).collect();
    assert_eq!(v.len(), 1, "one {kind} in {events:?}");
    v[0]
}

/// The result recorded by a `game_ended` event: (score, termination, detail, fen).
pub fn ended(e: &Event) -> (Score, Termination, String, Option<String>) {
    match &e.kind {
        EventKind::GameEnded {
            score,
            termination,
            detail,
            fen,
            ..
        } => (*score, *termination, detail.clone(), fen.clone()),
        k => panic!("not game_ended: {k:?}"),
    }
}

/// (spent, increment, remaining, declines_draw) of a `move_made` event.
pub fn move_made(e: &Event) -> (Side, String, Ms, Ms, i64, bool) {
    match &e.kind {
        EventKind::MoveMade {
            side,
            san,
            spent_ms,
            increment_ms,
            remaining_ms,
            declines_draw,
            ..
        } => (
            *side,
            san.to_string(),
            *spent_ms,
            *increment_ms,
            *remaining_ms,
            *declines_draw,
        ),
        k => panic!("not move_made: {k:?}"),
    }
}

/// Men on the board, counted from a FEN's placement field.
pub fn men_in_fen(fen: &str) -> usize {
    fen.split(' ')
        .next()
        .unwrap()
        .chars()
        .filter(char::is_ascii_alphabetic)
        .count()
}

const H: Ms = 7_200_000; // 2 h: the first period (3)

// ----- clause 2: the Laws of Chess ----------------------------------------------------------

#[test]
fn clause_2_checkmate_ends_the_game_automatically() {
    let mut m = started();
    m.moves("f3 e5 g4", 10_000);
    m.when("40 move Qh4#")
        .then_events(&[("move_made", "6b"), ("game_ended", "2")])
        .then(|m, _| {
            let e = m.log.last().unwrap();
            assert_eq!(e.actor, Actor::Kit);
            let (score, term, _, fen) = ended(e);
            assert_eq!((score, term), (Score::BlackWins, Termination::Checkmate));
            assert_eq!(fen, m.game().board().fen());
            assert_eq!(m.game().phase(), Phase::Ended);
        })
        .when("50 move a3")
        .then_refused_saying("", "over");
}

#[test]
fn clause_2_automatic_end_is_judged_after_each_entry_while_idle_ticks_still_let_the_flag_fall() {
    // The automatic end is judged once per entry. Idle ticks read it back; the next
    // entry judges afresh (the mate below), and the flag (clause 3) still falls at its instant.
    let idle = || {
        let mut m = started();
        let t = m.moves("f3 e5 g4", 10_000);
        for k in 1..=50 {
            assert!(
                m.tick(t + k * 1000).is_empty(),
                "an idle tick records nothing"
            );
            assert_eq!(m.game().due(t + k * 1000), None);
        }
        (m, t)
    };
    // Black's flag: 2 h less the 10 s of its one move, its clock running since 30 s.
    let (mut m, t) = idle();
    let black_flag = t + H - 10_000;
    assert_eq!(m.view(t).next_deadline, Some(black_flag));
    assert!(m.tick(black_flag - 1).is_empty());
    let ev = m.tick(black_flag);
    assert_eq!(ev.len(), 1, "{ev:?}");
    let (score, term, detail, _) = ended(&ev[0]);
    assert_eq!(
        (score, term),
        (Score::WhiteWins, Termination::FlagFall),
        "{detail}"
    );
    assert_eq!(ev[0].at, black_flag);
    // After the same idle ticks, the mating entry is judged at once.
    let (mut m, t) = idle();
    let ev = m.at(&format!("{} move Qh4#", secs(t + 60_000)));
    assert_eq!(ev.len(), 2, "{ev:?}");
    let (score, term, _, fen) = ended(&ev[1]);
    assert_eq!((score, term), (Score::BlackWins, Termination::Checkmate));
    assert_eq!(fen, m.game().board().fen());
    assert!(m.tick(t + 70_000).is_empty(), "nothing after the end");
}

#[test]
fn clause_2_stalemate_is_a_draw() {
    // Sam Loyd's ten-move stalemate.
    let mut m = started();
    m.moves(
        "e3 a5 Qh5 Ra6 Qxa5 h5 h4 Rah6 Qxc7 f6 Qxd7+ Kf7 Qxb7 Qd3 Qxb8 Qh7 Qxc8 Kg6",
        1000,
    );
    m.when("19 move Qe6")
        .then_events(&[("move_made", "6a"), ("game_ended", "2")])
        .then(|m, _| {
            let (score, term, _, _) = ended(m.log.last().unwrap());
            assert_eq!((score, term), (Score::Draw, Termination::Stalemate));
        });
}

#[test]
fn clause_2_insufficient_material_is_a_draw() {
    let mut m = started();
    let moves: Vec<&str> = TO_BARE_KINGS.split_whitespace().collect();
    let (last, before) = moves.split_last().unwrap();
    m.moves(&before.join(" "), 1000);
    assert_eq!(m.game().phase(), Phase::Playing);
    let t = m.now + 1000;
    m.when(&format!("{} move {last}", secs(t))).then(|m, ev| {
        assert_eq!(ev.len(), 2);
        let (score, term, _, fen) = ended(&ev[1]);
        assert_eq!(
            (score, term),
            (Score::Draw, Termination::InsufficientMaterial)
        );
        assert!(men_in_fen(&fen.unwrap()) <= 4);
        assert_eq!(m.game().phase(), Phase::Ended);
    });
}

#[test]
fn clause_2_threefold_claim_valid_and_invalid() {
    let mut m = started();
    m.moves("Nf3 Nf6 Ng1 Ng8", 1000);
    // the start position has occurred twice: not yet
    // FIDE 9.5 (2001 Laws, the 2003 match): an incorrect claim gives the opponent three minutes.
    let before = m.remaining(Side::Black, 5_000);
    let mut m = m
        .when("5 human claim threefold")
        .then_events(&[("claim_dismissed", "2")]);
    assert_eq!(m.remaining(Side::Black, 5_000), before + 180_000);
    assert_eq!(m.game().phase(), Phase::Playing);
    m.moves("Nf3 Nf6 Ng1 Ng8", 1000);
    // the operator may claim only when the machine has the move
    m.when("10 operator claim threefold")
        .then_refused_saying("2", "having the move")
        .when("10 human claim threefold")
        .then_events(&[("game_ended", "2")])
        .then(|m, ev| {
            let (score, term, detail, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::Draw, Termination::ThreefoldClaim));
            assert!(detail.contains("3 times"), "{detail}");
            assert_eq!(ev[0].actor, Actor::Arbiter);
            assert_eq!(m.game().points(), Some([0.5, 0.5]));
        });
}

#[test]
fn clause_2_fifty_move_claim_valid_and_invalid() {
    let all: Vec<&str> = FIFTY_MOVES.split_whitespace().collect();
    assert_eq!(all.len(), 108);
    // independently of the core: the last 100 plies are piece moves without a capture
    assert!(
        all[8..]
            .iter()
            .all(|s| !s.contains('x') && s.starts_with(|c: char| c.is_ascii_uppercase()))
    );
    let mut m = started();
    m.moves(&all[..106].join(" "), 1000);
    let mut m = m
        .when("106.5 human claim fifty")
        .then_events(&[("claim_dismissed", "2")])
        .then(|_, ev| {
            let body = serde_json::to_string(&ev[0].kind).unwrap();
            assert!(body.contains("49 moves"), "{body}");
        });
    m.moves(&all[106..].join(" "), 1000);
    m.when("109 human claim fifty")
        .then_events(&[("game_ended", "2")])
        .then(|_, ev| {
            let (score, term, _, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::Draw, Termination::FiftyMoveClaim));
        });
}

/// FIDE 9.2.1.1 (2001: 9.2a): the player having the move claims with the move he intends to play,
/// which would repeat the position a third time. The claim is correct: the game is drawn and the
/// intended move is not played.
#[test]
fn laws_9_2_claim_with_the_intended_move_draws_without_playing_it() {
    let mut m = started(); // Kasparov White, Deep Junior Black
    m.moves("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1", 1000);
    m.when("8 operator claim threefold Ng8")
        .then_events(&[("game_ended", "2")])
        .then(|m, ev| {
            let (score, term, detail, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::Draw, Termination::ThreefoldClaim));
            assert!(detail.contains("intended move Ng8"), "{detail}");
            assert_eq!(m.view(9_000).plies, 7, "the intended move is not played");
            assert_eq!(ev[0].actor, Actor::Operator);
        });
}

/// FIDE 9.5: the human's claim with an intended move found incorrect: the machine is given the
/// edition's time (2001: three minutes) and the intended move is played, pressed at the claim. The
/// operator's own incorrect claim records nothing (time for the human is the arbiter's to give).
#[test]
fn laws_9_5_an_incorrect_claim_with_its_move_plays_the_move_and_adds_time() {
    let mut m = started();
    m.moves("Nf3 Nf6 Ng1", 1000);
    m = m
        .when("4 operator claim threefold Ng8")
        .then_refused_saying("2", "not correct")
        .and("5 move Ng8");
    let black = m.remaining(Side::Black, 6_000);
    m.when("6 human claim threefold Nf3")
        .then_events(&[("claim_dismissed", "2"), ("move_made", "6a")])
        .then(|m, ev| {
            match &ev[0].kind {
                EventKind::ClaimDismissed {
                    claimant,
                    with_move,
                    added_ms,
                    to,
                    laws,
                    ..
                } => {
                    assert_eq!(*claimant, Side::White);
                    assert_eq!(with_move.as_deref(), Some("Nf3"));
                    assert_eq!(
                        (*added_ms, *to, laws.as_str()),
                        (180_000, Side::Black, "2001")
                    );
                }
                k => panic!("{k:?}"),
            }
            assert_eq!(m.view(6_000).plies, 5);
            assert_eq!(m.remaining(Side::Black, 6_000), black + 180_000);
        });
    // Under the 2023 Laws the time is two minutes.
    let text = rules_text(KASPAROV_2003).replace("laws = \"2001\"", "laws = \"2023\"");
    let mut m = given_game(game_from_text(KASPAROV_2003, &text, 1, None), HUMAN_WHITE)
        .and("0 arbiter start");
    m.moves("Nf3 Nf6", 1000);
    let black = m.remaining(Side::Black, 4_000);
    m.at("4 human claim threefold Ng1");
    assert_eq!(m.remaining(Side::Black, 4_000), black + 120_000);
    // The intended move must be a move.
    started()
        .when("1 human claim threefold Ke2")
        .then_refused_saying("2", "the intended move");
}

const FIVEFOLD: &str = "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1";

#[test]
fn laws_9_6_fivefold_repetition_ends_the_game_automatically_under_the_2023_laws() {
    let text = rules_text(KASPAROV_2003).replace("laws = \"2001\"", "laws = \"2023\"");
    assert!(text.contains("laws = \"2023\""));
    let mut m = given_game(game_from_text(KASPAROV_2003, &text, 1, None), HUMAN_WHITE)
        .and("0 arbiter start");
    m.moves(FIVEFOLD, 1000);
    assert_eq!(m.game().phase(), Phase::Playing);
    m.when("16 move Ng8")
        .then_events(&[("move_made", "6b"), ("game_ended", "2")])
        .then(|_, ev| {
            let (score, term, _, _) = ended(&ev[1]);
            assert_eq!(
                (score, term),
                (Score::Draw, Termination::FivefoldRepetition)
            );
        });
}

#[test]
fn clause_2_under_the_2001_laws_of_the_2003_match_fivefold_repetition_is_only_a_claim() {
    let mut m = started();
    m.moves(FIVEFOLD, 1000);
    m.when("16 move Ng8")
        .then_events(&[("move_made", "6b")])
        .when("17 human claim threefold")
        .then_events(&[("game_ended", "2")])
        .then(|_, ev| {
            assert_eq!(ended(&ev[0]).1, Termination::ThreefoldClaim);
        });
}

#[test]
fn clause_2_illegal_and_ambiguous_moves_are_refused_naming_the_reason() {
    let mut m = started()
        .when("5 move Ke2")
        .then_refused_saying("2", "not a legal move")
        .when("5 move e5")
        .then_refused_saying("2", "not a legal move")
        .when("5 move zz")
        .then_refused_saying("2", "neither SAN")
        .when("5 move e2e5")
        .then_refused_saying("2", "not a legal move");
    m.moves("Nf3 a6 Nc3 a5 Nd4 a4 e3 h6", 1000);
    m.when("20 move Nb5")
        .then_refused_saying("2", "ambiguous")
        .when("20 move Ncb5")
        .then_events(&[("move_made", "6a")]);
}

#[test]
fn clause_2_san_and_uci_are_recorded_both_ways() {
    started()
        .when("5 move g1f3")
        .then(|_, ev| match &ev[0].kind {
            EventKind::MoveMade { san, uci, fen, .. } => {
                assert_eq!((san.as_str(), uci.as_str()), ("Nf3", "g1f3"));
                assert_eq!(
                    fen.as_deref(),
                    Some("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1")
                );
            }
            k => panic!("{k:?}"),
        });
}

#[test]
fn clause_2_no_show_after_the_default_time_loses() {
    // FIDE Laws (2001) 6.6 as the 2003 profile gives it: one hour after the start.
    started()
        .when("3599.999 arbiter no-show human")
        .then_refused_saying("2", "default time")
        .when("3600 arbiter no-show human")
        .then_events(&[("game_ended", "2")])
        .then(|m, ev| {
            let (score, term, _, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::BlackWins, Termination::NoShow));
            assert_eq!(m.game().points(), Some([0.0, 1.0]));
        });
    // a side that has moved did show
    let mut m = started();
    m.moves("e4", 5000);
    m.when("3700 arbiter no-show white")
        .then_refused_saying("2", "already moved");
}

// ----- clauses 1 and 5b: the arbiter and the log ------------------------------------------------

#[test]
fn clause_1_arbiter_stops_and_resumes_both_clocks() {
    let mut m = started();
    m.moves("e4", 5000);
    m.when("10 arbiter resume")
        .then_refused_saying("", "running")
        .when("10 arbiter stop spectator disturbance")
        .then_events(&[("clock_stopped", "1")])
        .then(|m, _| {
            let v = m.view(100_000);
            assert!(v.clocks.iter().all(|c| !c.running));
            assert_eq!(v.clocks[1].remaining_ms, H as i64 - 5000);
            assert!(v.panels.contains(&Panel::Stopped {
                reason: "spectator disturbance".into()
            }));
        })
        .when("20 arbiter stop again")
        .then_refused_saying("", "already stopped")
        .when("30 move e5")
        .then_refused_saying("1", "arbiter resume")
        .when("100 arbiter resume")
        .then_events(&[("clock_resumed", "1")])
        .when("110 move e5")
        .then(|_, ev| assert_eq!(move_made(&ev[0]).2, 15_000));
}

#[test]
fn clause_1_players_are_fixed_once_the_game_is_opened() {
    given(HUMAN_WHITE)
        .and("0 arbiter open")
        .when("1 arbiter declare white machine Deep Fritz")
        .then_refused("1");
    // both players must be declared
    let m = given(&HUMAN_WHITE[1..])
        .when("0 arbiter start")
        .then_refused_saying("1", "declare white");
    assert_eq!(m.game().phase(), Phase::Draft);
}

#[test]
fn clause_5b_the_log_opens_with_the_declarations_and_the_rules() {
    let mut m = given(HUMAN_WHITE)
        .when("0 arbiter open")
        .then_events(&[("game_opened", "5b")])
        .then(|_, ev| match &ev[0].kind {
            EventKind::GameOpened(o) => {
                assert_eq!(o.profile.toml, rules_text(KASPAROV_2003));
                assert_eq!(o.declarations.white.name, "Garry Kasparov");
                assert_eq!(
                    o.declarations.black.kind,
                    arbiter::core::event::PlayerKind::Machine
                );
            }
            k => panic!("{k:?}"),
        })
        .when("0 arbiter open")
        .then_refused_saying("", "already opened")
        .when("1 arbiter note clock corrected by the operator before the start")
        .then_events(&[("note", "5b")]);
    m.at("2 arbiter start");
    assert_eq!(m.game().started_at(), Some(2000));
    // notes are refused before anything is opened
    given(HUMAN_WHITE)
        .when("0 arbiter note too early")
        .then_refused("5b");
}

// ----- clause 3: time control ----------------------------------------------------------------

/// The budget of a side of the 2003 profile after `moves` moves, from the rule's text.
fn budget_2003(moves: u32) -> i64 {
    let mut b = 7_200_000;
    if moves >= 40 {
        b += 3_600_000;
    }
    if moves >= 60 {
        b += 1_800_000;
    }
    b
}

#[test]
fn clause_3_time_is_added_at_the_40th_and_60th_moves() {
    let plies: Vec<&str> = LONG_GAME.split_whitespace().take(120).collect();
    let mut m = started();
    let (white_step, black_step) = (100_000, 50_000);
    let mut t = 0;
    for (i, san) in plies.iter().enumerate() {
        let white = i % 2 == 0;
        t += if white { white_step } else { black_step };
        let ev = m.at(&format!("{} move {san}", secs(t)));
        let (side, _, spent, inc, remaining, _) = move_made(&ev[0]);
        let n = (i / 2 + 1) as u32; // the mover's move number
        let expected = budget_2003(n) - i64::from(n) * if white { 100_000 } else { 50_000 };
        assert_eq!(side, if white { Side::White } else { Side::Black });
        assert_eq!(spent, if white { white_step } else { black_step });
        assert_eq!(inc, 0);
        assert_eq!(remaining, expected, "ply {i}");
        assert_eq!(m.remaining(side, t), expected, "ply {i}");
        let v = m.view(t);
        let c = &v.clocks[side.index()];
        assert_eq!(c.moves_made, n);
        assert_eq!(
            (c.period, c.moves_to_control),
            match n {
                0..40 => (1, Some(40 - n)),
                40..60 => (2, Some(60 - n)),
                _ => (3, None),
            }
        );
        // the two controls, spelled out
        if white && n == 39 {
            assert_eq!(remaining, 7_200_000 - 3_900_000);
        }
        if white && n == 40 {
            assert_eq!(remaining, 7_200_000 - 4_000_000 + 3_600_000);
        }
        if white && n == 60 {
            assert_eq!(remaining, 7_200_000 + 3_600_000 + 1_800_000 - 6_000_000);
        }
    }
    assert_eq!(t, 60 * 150_000);
    assert_eq!(m.game().phase(), Phase::Playing);
}

/// White (human) makes 39 moves of 180 s, Black answers each in 1 s: White's 40th turn starts
/// at 39 * 181 s with 180 s left.
fn thirty_nine_slow_moves() -> (Match, Ms) {
    let plies: Vec<&str> = LONG_GAME.split_whitespace().take(78).collect();
    let mut m = started();
    let mut t = 0;
    for (i, san) in plies.iter().enumerate() {
        t += if i % 2 == 0 { 180_000 } else { 1000 };
        m.at(&format!("{} move {san}", secs(t)));
    }
    assert_eq!(t, 39 * 181_000);
    assert_eq!(m.remaining(Side::White, t), 180_000);
    (m, t)
}

#[test]
fn clause_3_flag_fall_before_the_40th_move_loses() {
    let (mut m, turn) = thirty_nine_slow_moves();
    let flag = turn + 180_000;
    assert_eq!(m.view(turn).next_deadline, Some(flag));
    assert!(m.tick(flag - 1).is_empty());
    assert_eq!(m.remaining(Side::White, flag - 1), 1);
    let ev = m.tick(flag);
    assert_eq!(ev.len(), 1);
    assert_eq!(
        (ev[0].at, ev[0].clause.as_str(), ev[0].actor),
        (flag, "3", Actor::Kit)
    );
    let (score, term, detail, _) = ended(&ev[0]);
    assert_eq!((score, term), (Score::BlackWins, Termination::FlagFall));
    assert_eq!(detail, "white's flag fell before its move 40 was made");
    assert_eq!(
        m.remaining(Side::White, flag + 60_000),
        0,
        "the clock stops at the flag"
    );
    let move40 = LONG_GAME.split_whitespace().nth(78).unwrap();
    m.when(&format!("{} move {move40}", secs(flag + 1)))
        .then_refused_saying("", "over");
}

#[test]
fn clause_3_the_40th_move_a_millisecond_before_the_flag_adds_the_hour() {
    let (mut m, turn) = thirty_nine_slow_moves();
    let move40 = LONG_GAME.split_whitespace().nth(78).unwrap();
    let t = turn + 180_000 - 1;
    let ev = m.at(&format!("{} move {move40}", secs(t)));
    assert_eq!(move_made(&ev[0]).4, 1 + 3_600_000);
    assert_eq!(m.remaining(Side::White, t), 3_600_001);
}

#[test]
fn clause_3_flag_fall_is_a_draw_when_the_opponent_cannot_mate() {
    // FIDE Laws 6.9: Black has a lone king and cannot mate by any series of legal moves.
    let mut m = started();
    m.moves(LONE_KING, 1000);
    assert_eq!(m.game().board().side_to_move(), Side::White);
    assert_eq!(m.game().phase(), Phase::Playing);
    // White used 23 s in 23 moves; its turn began at 46 s.
    let flag = 46_000 + 7_200_000 - 23_000;
    assert_eq!(m.view(m.now).next_deadline, Some(flag));
    let ev = m.tick(flag);
    let (score, term, detail, _) = ended(&ev[0]);
    assert_eq!((score, term), (Score::Draw, Termination::FlagFallDraw));
    assert!(detail.contains("6.9"), "{detail}");
    assert_eq!(ev[0].at, flag);
}

#[test]
fn clause_3_flag_fall_loses_when_a_knight_could_mate_with_help() {
    // Black keeps king and knight against White's army: a self-mate (smothered) position exists,
    // so FIDE 6.9 does not save White, whose flag falls.
    let mut m = started();
    m.moves(KING_AND_KNIGHT, 1000);
    assert_eq!(m.game().board().side_to_move(), Side::White);
    let flag = 64_000 + 7_200_000 - 32_000;
    let ev = m.tick(flag);
    let (score, term, _, _) = ended(&ev[0]);
    assert_eq!((score, term), (Score::BlackWins, Termination::FlagFall));
}

fn on_flag_variant() -> String {
    let text = rules_text(KASPAROV_2003);
    let edited = text.replace(
        "period_addition = \"on_move\"",
        "period_addition = \"on_flag\"",
    );
    assert_ne!(edited, text);
    edited
}

#[test]
fn clause_3_on_flag_mode_same_flag_time_different_display() {
    let plies: Vec<&str> = LONG_GAME.split_whitespace().take(80).collect();
    let mut games = Vec::new();
    for text in [rules_text(KASPAROV_2003), on_flag_variant()] {
        let mut m = given_game(game_from_text("2003.toml", &text, 1, None), HUMAN_WHITE)
            .and("0 arbiter start");
        let mut t = 0;
        for (i, san) in plies.iter().enumerate() {
            t += if i % 2 == 0 { 100_000 } else { 1000 };
            m.at(&format!("{} move {san}", secs(t)));
        }
        games.push((m, t));
    }
    let (on_move, t) = &games[0];
    let (on_flag, _) = &games[1];
    // White made 40 moves in 4000 s; Black has just made its 40th move: White's turn since t.
    assert_eq!(*t, 40 * 101_000);
    let used = 4_000_000;
    let w = Side::White.index();
    let (a, b) = (on_move.view(*t), on_flag.view(*t));
    assert_eq!(a.clocks[w].remaining_ms, 10_800_000 - used);
    assert_eq!(b.clocks[w].remaining_ms, 10_800_000 - used);
    assert_eq!(a.clocks[w].shown_ms, 10_800_000 - used);
    assert_eq!(
        b.clocks[w].shown_ms,
        7_200_000 - used,
        "the hour shows at the flag"
    );
    // the first period runs out 3200 s later: the on-flag clock now shows the added hour
    let out = *t + 3_200_000;
    assert_eq!(on_flag.view(out - 1).clocks[w].shown_ms, 1);
    assert_eq!(on_flag.view(out).clocks[w].shown_ms, 3_600_000);
    assert_eq!(on_move.view(out).clocks[w].shown_ms, 3_600_000);
    // same flag time
    let flag = *t + 10_800_000 - used as Ms;
    assert_eq!(a.next_deadline, Some(flag));
    assert_eq!(b.next_deadline, Some(flag));
    for (mut m, _) in games {
        let ev = m.tick(flag);
        assert_eq!(ev[0].at, flag);
        assert_eq!(ended(&ev[0]).1, Termination::FlagFall);
    }
}

#[test]
fn clause_3_game_not_started_refuses_moves() {
    given(HUMAN_WHITE)
        .and("0 arbiter open")
        .when("5 move e4")
        .then_refused_saying("3", "not started");
}

// ----- clause 4: the operator ----------------------------------------------------------------

#[test]
fn clause_4c_operator_is_declared_for_each_game_and_may_change_between_games() {
    // no operator declared: the game cannot be opened
    let m = given(&HUMAN_WHITE[..2])
        .when("0 arbiter open")
        .then_refused_saying("4c", "operator");
    assert_eq!(m.game().phase(), Phase::Draft);
    for (n, operator) in [(1, "Amir Ban"), (2, "Shay Bushinsky")] {
        let g = game_from_text("2003.toml", &rules_text(KASPAROV_2003), n, None);
        let decl = format!("0 arbiter declare operator {operator}");
        given_game(g, &[HUMAN_WHITE[0], HUMAN_WHITE[1], &decl])
            .when("0 arbiter open")
            .then_events(&[("game_opened", "5b")])
            .then(|_, ev| match &ev[0].kind {
                EventKind::GameOpened(o) => {
                    assert_eq!(o.game, n);
                    assert_eq!(o.declarations.operator, operator);
                }
                k => panic!("{k:?}"),
            });
    }
}

#[test]
fn clause_4d_operator_cannot_be_changed_once_opened_or_started() {
    let m = given(HUMAN_WHITE)
        .and("0 arbiter open")
        .when("1 arbiter declare operator Somebody Else")
        .then_refused("4d")
        .and("2 arbiter start")
        .when("3 arbiter declare operator Somebody Else")
        .then_refused("4d");
    assert_eq!(m.game().decl().unwrap().operator, "Amir Ban");
}

// ----- clause 6: operator's actions -----------------------------------------------------------

#[test]
fn clause_6a_operator_enters_the_human_move() {
    started()
        .when("5 move e4")
        .then_events(&[("move_made", "6a")])
        .then(|m, ev| {
            assert_eq!(ev[0].actor, Actor::Operator);
            let (side, san, spent, _, remaining, _) = move_made(&ev[0]);
            assert_eq!((side, san.as_str(), spent), (Side::White, "e4", 5000));
            assert_eq!(remaining, H as i64 - 5000);
            let v = m.view(5000);
            assert!(!v.clocks[0].running && v.clocks[1].running);
        });
}

#[test]
fn clause_6b_operator_executes_the_machine_move_and_presses_the_clock() {
    let mut m = started();
    m.moves("e4", 5000);
    m.when("65 move e5")
        .then_events(&[("move_made", "6b")])
        .then(|m, ev| {
            let (side, _, spent, _, remaining, _) = move_made(&ev[0]);
            assert_eq!((side, spent), (Side::Black, 60_000));
            assert_eq!(remaining, H as i64 - 60_000);
            let v = m.view(70_000);
            assert!(v.clocks[0].running && !v.clocks[1].running);
            assert_eq!(v.clocks[0].remaining_ms, H as i64 - 5000 - 5000);
        });
}

fn internal(ev: &[Event]) -> (i64, i64, Ms, bool) {
    match &only(ev, "internal_clock_reported").kind {
        EventKind::InternalClockReported {
            game_clock_ms,
            diff_ms,
            threshold_ms,
            correction_owed,
            ..
        } => (*game_clock_ms, *diff_ms, *threshold_ms, *correction_owed),
        k => panic!("{k:?}"),
    }
}

#[test]
fn clause_6c_correction_owed_at_two_minutes_not_at_119_seconds() {
    let mut m = started();
    m.moves("e4", 5000);
    // at 65 s the machine's game clock shows 2 h - 60 s = 7140 s
    let m = m
        .when("65 operator sync-internal-clock")
        .then_refused_saying("6c", "report")
        .when("65 operator internal-clock 7259")
        .then(|_, ev| {
            assert_eq!(internal(ev), (7_140_000, 119_000, 120_000, false));
            assert_eq!(ev[0].clause, "6c");
        })
        .when("65 operator sync-internal-clock")
        .then_refused("6h")
        .when("66 operator internal-clock 2:01:00")
        .then(|m, ev| {
            assert_eq!(internal(ev), (7_139_000, 121_000, 120_000, true));
            assert!(
                m.view(66_000)
                    .panels
                    .iter()
                    .any(|p| matches!(p, Panel::SyncWarning { .. }))
            );
        })
        .when("67 operator internal-clock 7258")
        .then(|_, ev| assert_eq!(internal(ev), (7_138_000, 120_000, 120_000, true)))
        .when("68 operator sync-internal-clock")
        .then_events(&[("internal_clock_corrected", "6c")])
        .then(|m, ev| {
            match &ev[0].kind {
                EventKind::InternalClockCorrected { from_ms, to_ms } => {
                    assert_eq!((*from_ms, *to_ms), (7_258_000, 7_137_000));
                }
                k => panic!("{k:?}"),
            }
            assert!(
                !m.view(68_000)
                    .panels
                    .iter()
                    .any(|p| matches!(p, Panel::SyncWarning { .. }))
            );
        })
        // the correction is done: a second one is not owed
        .when("69 operator sync-internal-clock")
        .then_refused("6h");
    // behind by two minutes is owed too
    m.when("70 operator internal-clock 7015")
        .then(|_, ev| assert_eq!(internal(ev), (7_135_000, -120_000, 120_000, true)));
}

#[test]
fn clause_6c_declared_algorithm_threshold_overrides_the_default() {
    let lines: Vec<&str> = HUMAN_WHITE
        .iter()
        .copied()
        .chain(["0 arbiter declare algorithm threshold 30 adjust when 30 s apart"])
        .collect();
    let mut m = given(&lines).and("0 arbiter start");
    match &m.log[0].kind {
        EventKind::GameOpened(o) => {
            let a = &o.declarations.algorithm;
            assert_eq!((a.threshold_ms, a.source.as_str()), (30_000, "declared"));
            assert_eq!(a.text, "adjust when 30 s apart");
        }
        k => panic!("{k:?}"),
    }
    m.moves("e4", 5000);
    // machine clock at 15 s: 7190 s
    m.when("15 operator internal-clock 7219")
        .then(|_, ev| assert_eq!(internal(ev), (7_190_000, 29_000, 30_000, false)))
        .when("15 operator internal-clock 7220")
        .then(|_, ev| assert_eq!(internal(ev), (7_190_000, 30_000, 30_000, true)));
}

#[test]
fn clause_6c_algorithm_of_the_previous_game_is_carried_over() {
    let previous = Algorithm {
        text: "adjust at 45 s".into(),
        threshold_ms: 45_000,
        source: "declared".into(),
    };
    let text = rules_text(KASPAROV_2003);
    // game 2, nothing declared: game 1's algorithm applies
    let g = game_from_text("2003.toml", &text, 2, Some((1, previous.clone())));
    let mut m = given_game(g, HUMAN_WHITE).and("0 arbiter start");
    match &m.log[0].kind {
        EventKind::GameOpened(o) => {
            let a = &o.declarations.algorithm;
            assert_eq!(a.threshold_ms, 45_000);
            assert_eq!(a.source, "carried over from game 1");
            assert_eq!(a.text, "adjust at 45 s");
        }
        k => panic!("{k:?}"),
    }
    m.moves("e4", 5000);
    m.when("5 operator internal-clock 7245")
        .then(|_, ev| assert_eq!(internal(ev), (7_200_000, 45_000, 45_000, true)));
    // a new declaration replaces it
    let g = game_from_text("2003.toml", &text, 2, Some((1, previous)));
    let lines: Vec<&str> = HUMAN_WHITE
        .iter()
        .copied()
        .chain(["0 arbiter declare algorithm adjust at the default"])
        .collect();
    let m = given_game(g, &lines).and("0 arbiter start");
    match &m.log[0].kind {
        EventKind::GameOpened(o) => {
            let a = &o.declarations.algorithm;
            assert_eq!((a.threshold_ms, a.source.as_str()), (120_000, "declared"));
        }
        k => panic!("{k:?}"),
    }
    // first game, nothing declared: the default of 6c
    let m = started();
    match &m.log[0].kind {
        EventKind::GameOpened(o) => {
            let a = &o.declarations.algorithm;
            assert_eq!((a.threshold_ms, a.source.as_str()), (120_000, "default"));
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn clause_6c_algorithm_cannot_be_declared_after_the_start() {
    started()
        .when("1 arbiter declare algorithm threshold 10 anything")
        .then_refused("6c");
}

fn corrected(e: &Event) -> (Side, ClockSet, i64, i64, i64) {
    match &e.kind {
        EventKind::ClockCorrected {
            side,
            how,
            from_ms,
            to_ms,
            delta_ms,
            ..
        } => (*side, *how, *from_ms, *to_ms, *delta_ms),
        k => panic!("{k:?}"),
    }
}

#[test]
fn clause_6d_takeback_needs_the_clocks_stopped() {
    let mut m = started();
    m.moves("e4 e5", 10_000);
    m.when("25 arbiter correct 6d takeback 1 position restored after a crash")
        .then_refused_saying("6d", "stop the clocks")
        .and("25 arbiter stop technical problem")
        .when("26 arbiter correct 6d takeback 3 too many")
        .then_refused_saying("6d", "only 2 moves")
        .when("26 arbiter correct 6d takeback 1 position restored after a crash")
        .then_events(&[("moves_taken_back", "6d")])
        .then(|m, ev| {
            match &ev[0].kind {
                EventKind::MovesTakenBack {
                    plies,
                    removed,
                    fen,
                    ..
                } => {
                    assert_eq!(*plies, 1);
                    assert_eq!(removed, &["e5".to_string()]);
                    assert_eq!(fen.as_deref(), m.game().board().fen().as_deref());
                }
                k => panic!("{k:?}"),
            }
            assert_eq!(m.game().board().side_to_move(), Side::Black);
            // Black's thinking time of its taken-back move stays charged: 10 s
            assert_eq!(m.remaining(Side::Black, 26_000), H as i64 - 10_000);
            assert_eq!(m.remaining(Side::White, 26_000), H as i64 - 10_000 - 5_000);
        })
        .when("27 arbiter correct 6d clock black +10 time of the lost move")
        .then_events(&[("clock_corrected", "6d")])
        .then(|m, ev| {
            assert_eq!(
                corrected(&ev[0]),
                (
                    Side::Black,
                    ClockSet::Delta,
                    H as i64 - 10_000,
                    H as i64,
                    10_000
                )
            );
            assert_eq!(m.remaining(Side::Black, 27_000), H as i64);
        })
        .and("30 arbiter resume")
        .when("40 move e5")
        .then(|_, ev| assert_eq!(move_made(&ev[0]).2, 10_000));
}

#[test]
fn clause_7e_wrong_entry_corrected_position_and_clocks_time_conserved() {
    // The human played d4; the operator entered e4 (at 10 s).
    let mut m = started();
    m.at("10 move e4");
    m.when("20 arbiter correct 7e takeback 1 operator entered e4 for d4")
        .then_refused_saying("7e", "stop the clocks")
        .and("20 arbiter stop wrong entry")
        .and("25 arbiter correct 7e takeback 1 operator entered e4 for d4")
        .when("30 arbiter correct 7e clock black +10 machine clock ran on the wrong move")
        .then(|_, ev| {
            assert_eq!(ev[0].clause, "7e");
            assert_eq!(
                corrected(&ev[0]),
                (
                    Side::Black,
                    ClockSet::Delta,
                    H as i64 - 10_000,
                    H as i64,
                    10_000
                )
            );
        })
        .when("30 arbiter correct 7e clock human 1:59:55 the human thought 5 s on d4")
        .then(|_, ev| {
            assert_eq!(
                corrected(&ev[0]),
                (
                    Side::White,
                    ClockSet::Remaining,
                    H as i64 - 10_000,
                    H as i64 - 5000,
                    5000
                )
            );
        })
        .and("31 arbiter resume")
        .when("31 move d4")
        .then(|m, ev| {
            assert_eq!(move_made(&ev[0]).2, 0);
            // time conserved, per side: budget + corrections = spent + remaining
            let spent_w = 10_000; // e4 (10 s), then d4 (0 s)
            let spent_b = 10_000; // charged when the wrong move was taken back
            assert_eq!(m.remaining(Side::White, 31_000), H as i64 + 5000 - spent_w);
            assert_eq!(
                m.remaining(Side::Black, 31_000),
                H as i64 + 10_000 - spent_b
            );
            assert_eq!(m.remaining(Side::Black, 41_000), H as i64 - 10_000);
        });
}

#[test]
fn clause_7e_the_resume_restarts_the_clock_of_the_side_to_move_not_of_the_side_that_pressed() {
    // The human (white) played d4 and pressed at 10 s; the operator entered e4. The arbiter stops,
    // takes e4 back and the operator types d4 again, the clocks stopped: nobody is charged for the
    // retyping, and the resume restarts the machine's clock (black is to move), not the human's.
    let mut m = started();
    m.at("10 move e4");
    m.when("20 arbiter stop wrong entry")
        .then(|_, _| {})
        .and("25 arbiter correct 7e takeback 1 operator entered e4 for d4")
        .when("36 move d4")
        .then(|_, ev| {
            let (side, san, spent, increment, _, _) = move_made(&ev[0]);
            assert_eq!(
                (side, san.as_str(), spent, increment),
                (Side::White, "d4", 0, 0)
            );
        })
        .when("40 arbiter resume")
        .then(|m, ev| {
            match &ev[0].kind {
                EventKind::ClockResumed { side } => assert_eq!(*side, Side::Black),
                k => panic!("{k:?}"),
            }
            // White: 10 s for d4, nothing for the retyping (36 s - 25 s), nothing since.
            assert_eq!(m.remaining(Side::White, 50_000), H as i64 - 10_000);
            // Black: 10 s on the wrong move before the stop, 10 s since the resume.
            assert_eq!(m.remaining(Side::Black, 50_000), H as i64 - 20_000);
        })
        .when("50 move e5")
        .then(|_, ev| assert_eq!(move_made(&ev[0]).2, 10_000));
}

#[test]
fn clause_6d_clock_corrected_below_zero_flag_falls_at_once() {
    // White's clock runs from 0; at 100 s the arbiter takes 2 h off it: -100 s left.
    let m = started();
    m.when("100 arbiter correct 6d clock white -2:00:00 wrong time set")
        .then(|m, ev| {
            assert_eq!(ev.len(), 2, "{ev:?}");
            assert_eq!(
                corrected(&ev[0]),
                (
                    Side::White,
                    ClockSet::Delta,
                    H as i64 - 100_000,
                    -100_000,
                    -(H as i64)
                )
            );
            let (score, term, _, _) = ended(&ev[1]);
            assert_eq!((score, term), (Score::BlackWins, Termination::FlagFall));
            assert_eq!(
                ev[1].at, 100_000,
                "the flag falls when the correction is made"
            );
            assert_eq!(m.game().phase(), Phase::Ended);
        });
    // the same for the side not to move: its flag falls as soon as its clock starts
    let mut m = started();
    m.at("100 arbiter correct 6d clock black -2:00:01 wrong time set");
    assert_eq!(m.game().phase(), Phase::Playing);
    m.when("110 move e4").then(|_, ev| {
        assert_eq!(ev.len(), 2, "{ev:?}");
        assert_eq!(ev[1].at, 110_000);
        assert_eq!(ended(&ev[1]).0, Score::WhiteWins);
    });
}

#[test]
fn clause_6g_parameters_may_be_set_before_the_machine_first_move() {
    given(HUMAN_WHITE)
        .and("0 arbiter open")
        .when("0 operator param hash 512")
        .then_events(&[("parameter_set", "6g")])
        .and("1 arbiter start")
        .and("5 move e4")
        .when("6 operator param contempt 0")
        .then_events(&[("parameter_set", "6g")])
        .then(|_, ev| match &ev[0].kind {
            EventKind::ParameterSet { name, value } => {
                assert_eq!((name.as_str(), value.as_str()), ("contempt", "0"));
            }
            k => panic!("{k:?}"),
        });
}

#[test]
fn clause_6h_parameters_may_not_change_after_the_machine_first_move() {
    let mut m = started();
    m.moves("e4 e5", 5000);
    m.when("11 operator param hash 1024")
        .then_refused_saying("6h", "first move");
}

#[test]
fn clause_6l_parameter_correction_decided_after_committee_advice() {
    let mut m = started();
    m.moves("e4 e5", 5000);
    m.when("11 operator param-request time_mode set to blitz by accident")
        .then_events(&[("parameter_requested", "6l")])
        .then(|_, ev| match &ev[0].kind {
            EventKind::ParameterRequested { id, name, .. } => {
                assert_eq!((*id, name.as_str()), (1, "time_mode"));
            }
            k => panic!("{k:?}"),
        })
        .when("12 arbiter param-decision 1 permit exceptional")
        .then_refused_saying("6l", "committee")
        .when("12 arbiter param-decision 2 permit no such request")
        .then_refused("6l")
        .when("13 committee advise 1 permit: blitz speed is exceptional")
        .then_events(&[("committee_advised", "6l")])
        .when("14 arbiter param-decision 1 permit exceptional circumstances")
        .then_events(&[("parameter_decided", "6l")])
        .then(|m, ev| {
            match &ev[0].kind {
                EventKind::ParameterDecided { id, permitted, .. } => {
                    assert_eq!((*id, *permitted), (1, true));
                }
                k => panic!("{k:?}"),
            }
            assert_eq!(m.game().params()[0].decided, Some(true));
        })
        .when("15 arbiter param-decision 1 refuse changed my mind")
        .then_refused_saying("6l", "already decided");
}

// ----- clause 7: operator errors ---------------------------------------------------------------

fn wrong(e: &Event) -> (bool, u32, Ms, bool, String) {
    match &e.kind {
        EventKind::WrongMove {
            pressed,
            infraction,
            penalty_ms,
            forfeit,
            correct,
            ..
        } => (
            *pressed,
            *infraction,
            *penalty_ms,
            *forfeit,
            correct.clone(),
        ),
        k => panic!("{k:?}"),
    }
}

#[test]
fn clause_7b_wrong_move_not_pressed_is_a_note_only() {
    let mut m = started();
    m.moves("e4", 5000);
    m.when("20 arbiter wrong-move d5 e5")
        .then_events(&[("wrong_move", "7b")])
        .then(|m, ev| {
            assert_eq!(wrong(&ev[0]), (false, 0, 0, false, "e5".into()));
            assert_eq!(m.game().infractions(), 0);
            assert_eq!(m.game().board().plies(), 1);
            assert_eq!(m.remaining(Side::White, 20_000), H as i64 - 5000);
            assert_eq!(m.remaining(Side::Black, 20_000), H as i64 - 15_000);
        })
        .when("20 arbiter wrong-move e5 e5")
        .then_refused("7b")
        .when("21 move e5")
        .then_events(&[("move_made", "6b")]);
}

#[test]
fn clause_7b_after_the_notice_only_the_recorded_machine_move_is_accepted() {
    let mut m = started();
    m.moves("e4", 5000);
    m.when("20 arbiter wrong-move banana e5")
        .then_refused_saying("7b", "the move played")
        .when("20 arbiter wrong-move c5 e5")
        .then_events(&[("wrong_move", "7b")])
        .when("25 move d5")
        .then_refused_saying("7b", "only it is accepted now, not d5")
        .when("26 move e5")
        .then_events(&[("move_made", "6b")])
        .when("30 move Nf3")
        .then_events(&[("move_made", "6a")]);
}

/// 7b: the arbiter may override the owed move, with a reason (e.g. the machine's display shows it
/// in fact played another move); the release is recorded and another move is then accepted.
#[test]
fn clause_7b_the_arbiter_may_release_the_owed_move_with_a_reason() {
    let mut m = started();
    m.moves("e4", 5000);
    m.when("18 arbiter release-move nothing owed")
        .then_refused_saying("7b", "no machine move is owed")
        .when("20 arbiter wrong-move c5 e5")
        .then_events(&[("wrong_move", "7b")])
        .when("22 arbiter release-move the display shows d5 was played")
        .then_events(&[("owed_move_released", "7b")])
        .when("25 move d5")
        .then_events(&[("move_made", "6b")]);
    assert!(arbiter::core::command::parse("arbiter release-move").is_err());
    assert_eq!(
        arbiter::core::command::parse("arbiter release-move x")
            .unwrap()
            .role(),
        arbiter::core::command::Role::Arbiter
    );
}

#[test]
fn clause_7c_first_pressed_wrong_move_corrected_with_ten_minutes_to_the_human() {
    let mut m = started();
    m.at("5 move e4");
    m.at("65 move d5"); // the machine's move was e5
    m.when("70 arbiter wrong-move d5 e5")
        .then_events(&[("wrong_move", "7c")])
        .then(|m, ev| {
            assert_eq!(wrong(&ev[0]), (true, 1, 600_000, false, "e5".into()));
            let g = m.game();
            assert_eq!(g.infractions(), 1);
            assert_eq!(g.board().moves().last().unwrap().san, "e5");
            assert_eq!(
                g.board().fen().as_deref(),
                Some("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
            );
            // the human: 2 h - 5 s (e4) - 5 s (running since 65 s) + 10 min
            assert_eq!(
                m.remaining(Side::White, 70_000),
                H as i64 - 10_000 + 600_000
            );
            assert_eq!(m.remaining(Side::Black, 70_000), H as i64 - 60_000);
            assert!(m.view(70_000).panels.contains(&Panel::OperatorErrors {
                count: 1,
                forfeit_at: 2
            }));
        })
        .when("71 arbiter wrong-move e4 e5")
        .then_refused("7c");
}

#[test]
fn clause_7c_second_wrong_move_forfeits() {
    // the machine plays Black: the human wins 1-0
    let mut m = started();
    m.at("5 move e4");
    m.at("10 move d5");
    m.at("11 arbiter wrong-move d5 e5");
    m.at("20 move Nf3");
    m.at("25 move Nf6");
    m.when("26 arbiter wrong-move Nf6 Nc6")
        .then_events(&[("wrong_move", "7c"), ("game_ended", "7c")])
        .then(|m, ev| {
            assert_eq!(wrong(&ev[0]), (true, 2, 0, true, "Nc6".into()));
            let (score, term, _, _) = ended(&ev[1]);
            assert_eq!((score, term), (Score::WhiteWins, Termination::Forfeit));
            assert_eq!(m.game().phase(), Phase::Ended);
            // the first infraction's ten minutes stay on the human's clock: 5 s (e4), 10 s
            // (Nf3), 1 s running since Black's 25 s move, + 600 s
            assert_eq!(
                m.remaining(Side::White, 26_000),
                H as i64 - 16_000 + 600_000
            );
        });
    // the machine plays White: the human wins 0-1
    let mut m = given(MACHINE_WHITE).and("0 arbiter start");
    m.at("5 move d4");
    m.at("6 arbiter wrong-move d4 e4");
    m.at("20 move e5");
    m.at("25 move Nc3");
    m.when("26 arbiter wrong-move Nc3 Nf3")
        .then_events(&[("wrong_move", "7c"), ("game_ended", "7c")])
        .then(|_, ev| {
            let (score, term, _, _) = ended(&ev[1]);
            assert_eq!((score, term), (Score::BlackWins, Termination::Forfeit));
        });
}

// ----- clause 8: technical problems ------------------------------------------------------------

#[test]
fn clause_8a_machine_clock_runs_during_repairs_and_stops_only_for_the_supervisor() {
    let mut m = started();
    m.moves("e4", 5000);
    let m = m
        .when("10 operator technical-problem engine crashed")
        .then_events(&[("technical_problem", "8a")])
        .then(|m, _| {
            let v = m.view(100_000);
            assert!(v.clocks[1].running);
            assert_eq!(v.clocks[1].remaining_ms, H as i64 - 95_000);
        })
        .when("100 supervisor info-stop what are you changing?")
        .then_events(&[("info_stopped", "8a")])
        .then(|m, ev| {
            assert_eq!(ev[0].actor, Actor::Supervisor);
            let v = m.view(400_000);
            assert!(!v.clocks[0].running && !v.clocks[1].running);
            assert_eq!(v.clocks[1].remaining_ms, H as i64 - 95_000);
            // no flag is due while it is stopped; only the machine's no-show time (1 h)
            assert_eq!(v.next_deadline, Some(3_600_000));
        })
        .when("200 operator repaired restarted the engine")
        .then_refused_saying("8a", "info-resume")
        .when("200 move e5")
        .then_refused("8a")
        .when("300 supervisor note restarted the engine with the configuration submitted")
        .then_events(&[("work_note", "8a")])
        .when("400 supervisor info-resume")
        .then_events(&[("info_resumed", "8a")])
        .then(|m, _| {
            let v = m.view(500_000);
            assert!(v.clocks[1].running);
            assert_eq!(v.clocks[1].remaining_ms, H as i64 - 95_000 - 100_000);
        })
        .when("500 operator repaired restarted the engine")
        .then_events(&[("technical_resolved", "8a")])
        .and("510 move e5");
    // the machine's clock is not running: nothing to stop
    m.when("520 supervisor info-stop question")
        .then_refused_saying("8a", "not running");
}

#[test]
fn clause_8b_power_failure_suspends_and_the_reset_window_runs_twenty_minutes() {
    let mut m = started();
    m.moves("e4", 5000);
    let restored = 1_000_000;
    let window_end = restored + 1_200_000;
    let m = m
        .when("65 arbiter power-failure hall blackout")
        .then_events(&[("power_failed", "8b")])
        .then(|m, _| {
            let v = m.view(900_000);
            assert!(!v.clocks[0].running && !v.clocks[1].running);
            assert_eq!(v.clocks[1].remaining_ms, H as i64 - 60_000);
        })
        .when("70 move e5")
        .then_refused("8b")
        .when("80 arbiter resume")
        .then_refused_saying("8b", "not restored")
        .when(&format!("{} arbiter power-restored", secs(restored)))
        .then(|m, ev| {
            assert!(matches!(
                ev[0].kind,
                EventKind::PowerRestored {
                    window_ms: 1_200_000
                }
            ));
            assert_eq!(m.view(restored).next_deadline, Some(window_end));
        })
        .when(&format!("{} arbiter resume", secs(restored + 600_000)))
        .then_refused_saying("8b", "reset-done")
        .then_view(restored + 600_000, |v| {
            assert!(v.panels.contains(&Panel::Power {
                text: "hall blackout".into(),
                window_left_ms: Some(600_000),
                reset_done: false
            }));
        })
        .when(&format!("{} arbiter resume", secs(window_end - 1)))
        .then_refused("8b")
        .when(&format!("{} arbiter resume", secs(window_end)))
        .then_events(&[("clock_resumed", "8b")])
        .then(|m, _| {
            // Black's clock ran 60 s before the failure and 10 s after the resumption
            assert_eq!(
                m.remaining(Side::Black, window_end + 10_000),
                H as i64 - 70_000
            );
        });
    let t = secs(window_end + 10_000);
    m.when(&format!("{t} move e5"))
        .then(|_, ev| assert_eq!(move_made(&ev[0]).2, 70_000));
}

#[test]
fn clause_8b_reset_done_allows_an_earlier_resumption() {
    let mut m = started();
    m.moves("e4", 5000);
    m.at("65 arbiter power-failure blackout");
    m.at("100 arbiter power-restored");
    m.when("200 arbiter resume")
        .then_refused("8b")
        .when("300 operator reset-done")
        .then_events(&[("machine_reset", "8b")])
        .when("301 arbiter resume")
        .then_events(&[("clock_resumed", "8b")])
        .then(|m, _| assert_eq!(m.remaining(Side::Black, 311_000), H as i64 - 70_000));
}

#[test]
fn clause_8b_no_reset_window_countdown_once_the_game_is_over() {
    let mut m = started();
    m.moves("e4", 5000);
    m.at("65 arbiter power-failure blackout");
    m.at("100 arbiter power-restored");
    assert!(
        m.view(110_000)
            .panels
            .iter()
            .any(|p| matches!(p, Panel::Power { .. }))
    );
    m.when("120 human resign")
        .then_events(&[("game_ended", "2")])
        .then(|m, _| {
            let v = m.view(130_000);
            assert!(
                !v.panels.iter().any(|p| matches!(p, Panel::Power { .. })),
                "{:?}",
                v.panels
            );
            assert_eq!(m.game().reset_window_end(), None);
            assert_eq!(m.game().next_deadline(), None);
        });
}

// ----- clause 9: draw offers and resignations -------------------------------------------------

#[test]
fn clause_9a_operator_accepts_the_human_offer() {
    let mut m = started();
    m.moves("e4 e5 Nf3", 5000);
    m.when("16 operator accept-draw")
        .then_refused_saying("9a", "no unanswered draw offer")
        .and("16 human offer-draw")
        .when("60 operator accept-draw")
        .then_events(&[("game_ended", "9a")])
        .then(|m, ev| {
            let (score, term, _, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::Draw, Termination::DrawAgreed));
            assert_eq!(ev[0].actor, Actor::Operator);
            assert_eq!(m.game().points(), Some([0.5, 0.5]));
        });
}

#[test]
fn clause_9a_operator_declines_the_human_offer() {
    let mut m = started();
    m.moves("e4 e5 Nf3", 5000);
    m.at("16 human offer-draw");
    m.when("60 operator decline-draw")
        .then_events(&[("draw_declined", "9a")])
        .then(|_, ev| {
            assert!(matches!(
                ev[0].kind,
                EventKind::DrawDeclined {
                    by: Side::Black,
                    how: DeclineHow::Declined
                }
            ));
        })
        .when("61 operator accept-draw")
        .then_refused("9a")
        .when("70 move Nc6")
        .then(|_, ev| assert!(!move_made(&ev[0]).5));
}

#[test]
fn clause_9b_resignations() {
    let mut m = started();
    m.moves("e4", 5000);
    m.when("10 operator resign")
        .then_events(&[("game_ended", "9b")])
        .then(|m, ev| {
            let (score, term, _, _) = ended(&ev[0]);
            assert_eq!((score, term), (Score::WhiteWins, Termination::Resignation));
            assert_eq!(m.game().points(), Some([1.0, 0.0]));
        });
}

/// 9b is the machine operator's discretion to resign for the machine; the rules text gives the
/// human no clause of his own, so his resignation stands under the FIDE Laws (rule 2).
#[test]
fn clause_2_human_resignation_cites_the_fide_laws_not_9b() {
    let mut m = started();
    m.moves("e4", 5000);
    m.when("10 human resign")
        .then_events(&[("game_ended", "2")])
        .then(|_, ev| {
            assert_eq!(ended(&ev[0]).0, Score::BlackWins);
            assert_eq!(ev[0].actor, Actor::Arbiter);
            assert_ne!(ev[0].clause, "9b", "9b is the machine's clause");
        });
}

#[test]
fn clause_9c_consulting_an_unregistered_person_is_refused() {
    let mut m = started();
    m.moves("e4 e5 Nf3", 5000);
    m.at("16 human offer-draw");
    m.when("20 operator consult Shay Bushinsky, Garry's Second")
        .then_refused_saying("9c", "Garry's Second")
        .when("20 operator consult shay bushinsky, Boris Alterman")
        .then_events(&[("consultation_started", "9e")])
        .then(|m, ev| {
            match &ev[0].kind {
                EventKind::ConsultationStarted { with } => assert_eq!(with.len(), 2),
                k => panic!("{k:?}"),
            }
            assert!(m.view(20_000).panels.iter().any(|p| matches!(
                p,
                Panel::DrawOffer { consulting_with, .. } if consulting_with.len() == 2
            )));
        });
}

#[test]
fn clause_9c_team_is_registered_before_the_game() {
    let m = started();
    match &m.log[0].kind {
        EventKind::GameOpened(o) => assert_eq!(
            o.declarations.team,
            vec!["Shay Bushinsky".to_string(), "Boris Alterman".to_string()]
        ),
        k => panic!("{k:?}"),
    }
    m.when("1 arbiter declare team Someone Else")
        .then_refused_saying("9c", "before the start");
}

fn offered(e: &Event) -> (Side, Option<Justification>) {
    match &e.kind {
        EventKind::DrawOffered { by, justification } => (*by, justification.clone()),
        k => panic!("{k:?}"),
    }
}

#[test]
fn clause_9d_machine_offer_needs_a_near_draw_evaluation() {
    let mut m = started();
    m.moves("e4 e5", 5000);
    // the machine has just made its move: it may offer with it, if the evaluation allows
    m.when("11 operator offer-draw eval 31")
        .then_refused_saying("9d", "±30")
        .when("11 operator offer-draw eval -0.31")
        .then_refused("9d")
        .when("11 operator offer-draw eval -0.30")
        .then_events(&[("draw_offered", "9d")])
        .then(|m, ev| {
            assert_eq!(
                offered(&ev[0]),
                (Side::Black, Some(Justification::Eval { cp: -30 }))
            );
            assert!(
                m.view(11_000)
                    .panels
                    .iter()
                    .any(|p| matches!(p, Panel::MachineOffer { .. }))
            );
        })
        .when("12 operator offer-draw eval 0")
        .then_refused_saying("9d", "already")
        .when("20 human accept-draw")
        .then_events(&[("game_ended", "9d")])
        .then(|_, ev| assert_eq!(ended(&ev[0]).1, Termination::DrawAgreed));
}

#[test]
fn clause_9d_repetition_line_must_be_legal_and_repeat() {
    let mut m = started();
    m.moves("Nf3 Nf6 Ng1 Ng8", 1000);
    m.moves("Nf3", 1000);
    m.when("6 operator offer-draw repetition nonsense words")
        .then_refused_saying("9d", "move 1 'nonsense'")
        .when("6 operator offer-draw repetition e5 d4")
        .then_refused_saying("9d", "not a repetition")
        .when("6 operator offer-draw repetition 3... Nf6 4. Ng1 Ng8")
        .then_events(&[("draw_offered", "9d")]);
}

#[test]
fn clause_9d_repetition_offer_declined_by_the_human_or_by_his_move() {
    let mut m = started();
    m.moves("Nf3 Nf6 Ng1 Ng8", 1000);
    m.moves("Nf3", 1000);
    let m = m
        .when("6 operator offer-draw repetition Nf6 Ng1 Ng8 Nf3")
        .then(|_, ev| {
            assert_eq!(
                offered(&ev[0]),
                (
                    Side::Black,
                    Some(Justification::Repetition {
                        line: "Nf6 Ng1 Ng8 Nf3".into()
                    })
                )
            );
        })
        .and("7 move Nf6")
        .when("8 human decline-draw")
        .then_events(&[("draw_declined", "9d")])
        .when("9 human accept-draw")
        .then_refused_saying("9d", "no unanswered");
    // declined by the human's move
    let mut m = m.and("10 move Ng1").and("11 move Ng8");
    m.at("11 operator offer-draw eval 0");
    m.when("20 move Nf3")
        .then(|m, ev| {
            assert!(move_made(&ev[0]).5, "the human's move declines the offer");
            assert!(
                !m.view(20_000)
                    .panels
                    .iter()
                    .any(|p| matches!(p, Panel::MachineOffer { .. }))
            );
        })
        .when("21 human accept-draw")
        .then_refused("9d");
}

#[test]
fn clause_9e_human_offers_with_his_move() {
    let mut m = started();
    m.moves("e4 e5 Nf3", 5000);
    m.when("20 human offer-draw")
        .then_events(&[("draw_offered", "9e")])
        .then(|_, ev| assert_eq!(offered(&ev[0]), (Side::White, None)))
        .when("21 human offer-draw")
        .then_refused_saying("9e", "already");
}

#[test]
fn laws_9_1_2_human_offer_on_his_own_turn_is_still_valid_and_answered_by_the_machine() {
    let mut m = started();
    m.moves("e4 e5", 5000);
    // White to move: the offer comes before his move. FIDE 9.1.2 keeps it valid.
    m.when("11 human offer-draw")
        .then_events(&[("draw_offered", "9e")])
        .and("20 move Nf3")
        .when("25 operator accept-draw")
        .then_events(&[("game_ended", "9a")])
        .then(|_, ev| assert_eq!(ended(&ev[0]).1, Termination::DrawAgreed));
}

#[test]
fn laws_c_13_castling_written_with_zeros_is_accepted() {
    let mut m = started();
    m.moves("e4 e5 Nf3 Nc6 Bc4 Bc5", 1000);
    m.when("10 move 0-0")
        .then_events(&[("move_made", "6a")])
        .then(|_, ev| assert_eq!(move_made(&ev[0]).1, "O-O"));
}

#[test]
fn clause_9e_machine_move_before_an_answer_is_a_rejection() {
    let mut m = started();
    m.moves("e4 e5 Nf3", 5000);
    m.at("15 human offer-draw");
    m.when("30 move Nc6")
        .then_events(&[("move_made", "6b")])
        .then(|m, ev| {
            assert!(move_made(&ev[0]).5, "declines_draw");
            assert_eq!(m.game().offer().unwrap().answered, Some(false));
        })
        .when("31 operator accept-draw")
        .then_refused("9a")
        .when("31 operator decline-draw")
        .then_refused("9a");
}

#[test]
fn clause_9e_ten_minutes_of_consultation_per_offer_across_the_rejection() {
    let mut m = started();
    m.moves("e4 e5 Nf3", 5000);
    let t0 = 15_000;
    m.at(&format!("{} human offer-draw", secs(t0)));
    let consult = t0 + 10_000;
    let m = m
        .when(&format!(
            "{} operator consult Shay Bushinsky",
            secs(consult)
        ))
        .then_events(&[("consultation_started", "9e")])
        // the machine moves meanwhile: rejection; the consultation goes on
        .when(&format!("{} move Nc6", secs(consult + 100_000)))
        .then(|m, ev| {
            assert!(move_made(&ev[0]).5);
            assert_eq!(m.game().consultation_used(consult + 100_000), Some(100_000));
        })
        .when(&format!("{} operator consult-end", secs(consult + 300_000)))
        .then(|_, ev| {
            assert!(matches!(
                ev[0].kind,
                EventKind::ConsultationEnded {
                    used_ms: 300_000,
                    total_ms: 300_000,
                    limit_reached: false
                }
            ));
        });
    let again = consult + 400_000;
    let limit_at = again + 300_000; // 300 s used, 300 s left
    let mut m = m
        .when(&format!("{} operator consult Boris Alterman", secs(again)))
        .then(|m, _| {
            assert_eq!(m.view(again).next_deadline, Some(limit_at));
            assert!(
                m.view(limit_at - 1)
                    .panels
                    .iter()
                    .any(|p| matches!(p, Panel::DrawOffer { left_ms: 1, .. }))
            );
        });
    assert!(m.tick(limit_at - 1).is_empty());
    let ev = m.tick(limit_at + 5000);
    assert_eq!(ev.len(), 1);
    assert_eq!(
        (ev[0].at, ev[0].actor, ev[0].clause.as_str()),
        (limit_at, Actor::Kit, "9e")
    );
    assert!(matches!(
        ev[0].kind,
        EventKind::ConsultationEnded {
            used_ms: 300_000,
            total_ms: 600_000,
            limit_reached: true
        }
    ));
    m.when(&format!(
        "{} operator consult Shay Bushinsky",
        secs(limit_at + 6000)
    ))
    .then_refused_saying("9e", "used up");
}

#[test]
fn clause_9e_limit_reached_while_the_offer_is_open() {
    let mut m = started();
    m.moves("e4 e5 Nf3", 5000);
    m.at("15 human offer-draw");
    m.at("20 operator consult Shay Bushinsky");
    // nothing else happens: the limit ends the consultation at exactly 20 s + 600 s
    let ev = m.tick(3_600_000);
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].at, 620_000);
    // the offer itself may still be answered
    m.when("3600 operator decline-draw")
        .then_events(&[("draw_declined", "9a")]);
}

// ----- clause 10: tablebase ---------------------------------------------------------------------

#[test]
fn clause_10a_tablebase_draw_needs_a_position_of_the_databases() {
    let mut m = started()
        .when("0 arbiter tablebase-draw")
        .then_refused_saying("10a", "32 men");
    m.moves(SEVEN_MEN_EVEN, 1000);
    let fen = m.game().board().fen().unwrap();
    assert_eq!(men_in_fen(&fen), 7);
    let t = secs(m.now + 1000);
    // The operator advises; only the arbiter, having seen the machine's display, ends the game.
    let m = m
        .when(&format!("{t} operator tablebase-draw"))
        .then_refused_saying("10a", "arbiter tablebase-draw")
        .m;
    let t = secs(m.now + 1000);
    m.when(&format!("{t} arbiter tablebase-draw"))
        .then_events(&[("game_ended", "10a")])
        .then(|_, ev| {
            assert_eq!(ev[0].actor, Actor::Arbiter);
            let (score, term, detail, f) = ended(&ev[0]);
            assert_eq!((score, term), (Score::Draw, Termination::TablebaseDraw));
            assert_eq!(f.as_deref(), Some(fen.as_str()));
            assert!(detail.contains("7 men"), "{detail}");
            assert!(
                detail.contains("no Syzygy tables given to the kit; nothing could be checked"),
                "{detail}"
            );
        });
}

fn seven_men() -> Match {
    let mut m = started();
    m.moves(SEVEN_MEN_EVEN, 1000);
    m
}

fn tablebase_draw(probe: TablebaseProbe) -> Command {
    Command::ArbiterTablebaseDraw { probe: Some(probe) }
}

#[test]
fn clause_10a_a_position_the_tables_show_won_or_lost_is_refused() {
    for wdl in [2, -2] {
        let mut m = seven_men();
        let before = m.s.storage.len();
        let probe = TablebaseProbe::Wdl {
            wdl,
            tables: "/tb".into(),
        };
        let e =
            m.s.execute(&tablebase_draw(probe), m.now + 1000)
                .unwrap_err()
                .to_string();
        assert!(
            e.contains("rule 10a") && e.contains("show a win for"),
            "{e}"
        );
        assert_eq!(m.s.storage.len(), before, "nothing recorded");
        assert_eq!(m.game().phase(), Phase::Playing);
    }
}

#[test]
fn clause_10a_a_drawn_or_fifty_move_drawn_position_ends_the_game_with_what_the_tables_say() {
    for (wdl, says) in [
        (0, "Syzygy tables (/tb): draw"),
        (1, "fifty-move rule"),
        (-1, "fifty-move rule"),
    ] {
        let mut m = seven_men();
        let probe = TablebaseProbe::Wdl {
            wdl,
            tables: "/tb".into(),
        };
        let ev = m.s.execute(&tablebase_draw(probe), m.now + 1000).unwrap();
        let (score, _, detail, _) = ended(&ev[0]);
        assert_eq!(score, Score::Draw);
        assert!(detail.contains(says), "{detail}");
    }
}

#[test]
fn clause_10a_tables_given_but_silent_leave_the_arbiter_s_word_and_say_so() {
    let mut m = seven_men();
    let dir = tempfile::tempdir().unwrap();
    m.s.syzygy = Some(dir.path().to_path_buf());
    let t = secs(m.now + 1000);
    m.when(&format!("{t} arbiter tablebase-draw"))
        .then_events(&[("game_ended", "10a")])
        .then(|_, ev| {
            let (_, _, detail, _) = ended(&ev[0]);
            // An empty folder is said as such, not as "too many pieces".
            assert!(
                detail.contains("the Syzygy tables could not answer (")
                    && detail.contains("holds no Syzygy table files")
                    && detail.contains("nothing could be checked"),
                "{detail}"
            );
            assert!(!detail.contains("too many pieces"), "{detail}");
            assert!(
                detail.contains(&dir.path().display().to_string()),
                "{detail}"
            );
        });
}

// ----- clause 12: committee -------------------------------------------------------------------

#[test]
fn clause_12_decision_bound_by_a_committee_ruling() {
    for score in ["1-0", "0-1", "1/2-1/2"] {
        let mut m = started();
        m.moves("e4 e5", 5000);
        m.when("20 arbiter decide 1 1-0 no ruling yet")
            .then_refused_saying("12", "no ruling 1")
            .when("21 committee ruling 1 no dispute yet")
            .then_refused("12")
            .when("22 arbiter dispute the operator delayed the machine's move")
            .then_events(&[("dispute_raised", "12")])
            .when("23 committee ruling 2 wrong dispute")
            .then_refused("12")
            .when("24 committee ruling 1 the game is decided as the arbiter says")
            .then_events(&[("ruling_given", "12")])
            .then(|_, ev| {
                assert!(matches!(
                    ev[0].kind,
                    EventKind::RulingGiven {
                        id: 1,
                        dispute: 1,
                        ..
                    }
                ));
                assert_eq!(ev[0].actor, Actor::Committee);
            })
            .when(&format!("25 arbiter decide 1 {score} per ruling 1"))
            .then_events(&[("game_ended", "12")])
            .then(|_, ev| {
                let (s, term, _, _) = ended(&ev[0]);
                assert_eq!(s.text(), score);
                assert_eq!(term, Termination::ArbiterDecision);
                assert!(matches!(
                    ev[0].kind,
                    EventKind::GameEnded {
                        ruling: Some(1),
                        ..
                    }
                ));
            });
    }
}

// The Denryusen profile's tests are in `denryusen.rs`, one per article of its rules.

// ----- rules profiles ----------------------------------------------------------------------------

fn profile_error(text: &str) -> arbiter::core::rules::ProfileError {
    Profile::parse("bad.toml", text).expect_err("the profile should be refused")
}

/// 1-based line and column of `needle` in `text`.
fn position_of(text: &str, needle: &str) -> (usize, usize) {
    let off = text.find(needle).unwrap();
    let before = &text[..off];
    let line = before.matches('\n').count() + 1;
    let col = off - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

#[test]
fn profile_malformed_value_is_refused_with_file_line_col_and_key() {
    let text = rules_text(KASPAROV_2003).replace(
        "near_draw_threshold_cp = 30",
        "near_draw_threshold_cp = \"thirty\"",
    );
    let e = profile_error(&text);
    assert_eq!(e.file, "bad.toml");
    assert_eq!((e.line, e.col), position_of(&text, "\"thirty\""));
    assert_eq!(e.key, "near_draw_threshold_cp");
    assert!(
        e.to_string()
            .starts_with(&format!("bad.toml:{}:{}: ", e.line, e.col))
    );
    // inside an inline table, the key is the one the bad value belongs to
    let text = rules_text(KASPAROV_2003).replace(
        "{ moves = 20, seconds = 3600 }",
        "{ moves = 20, seconds = \"1h\" }",
    );
    let e = profile_error(&text);
    assert_eq!((e.line, e.col), position_of(&text, "\"1h\""));
    assert_eq!(e.key, "seconds");
    assert!(e.message.contains("expected u64"), "{}", e.message);
}

#[test]
fn profile_unknown_keys_are_refused() {
    let text = rules_text(KASPAROV_2003).replace(
        "consultation_limit_seconds = 600",
        "consultation_limit_seconds = 600\nconsultation_limit_minutes = 10",
    );
    let e = profile_error(&text);
    assert_eq!(e.key, "consultation_limit_minutes");
    assert_eq!(e.line, position_of(&text, "consultation_limit_minutes").0);
    assert!(e.message.contains("unknown field"), "{}", e.message);
    let text = format!("{}\n[bogus]\nx = 1\n", rules_text(KASPAROV_2003));
    let e = profile_error(&text);
    assert_eq!(e.key, "bogus");
    let text = rules_text(KASPAROV_2003).replace(
        "{ moves = 20, seconds = 3600 }",
        "{ moves = 20, secs = 3600 }",
    );
    let e = profile_error(&text);
    assert_eq!(e.key, "secs");
    assert_eq!(e.line, position_of(&text, "secs = 3600").0);
}

#[test]
fn profile_semantic_errors_name_the_key_and_its_line() {
    let text =
        rules_text(KASPAROV_2003).replace("forfeit_at_infraction = 2", "forfeit_at_infraction = 0");
    let e = profile_error(&text);
    assert_eq!(e.key, "operator_errors.forfeit_at_infraction");
    assert_eq!(
        (e.line, e.col),
        position_of(&text, "forfeit_at_infraction = 0")
    );
    let text =
        rules_text(KASPAROV_2003).replace("{ seconds = 1800 },", "{ moves = 10, seconds = 1800 },");
    let e = profile_error(&text);
    assert_eq!(e.key, "time_control.periods[2].moves");
    let text = "this is not toml";
    let e = profile_error(text);
    assert_eq!((e.file.as_str(), e.key.as_str()), ("bad.toml", "-"));
    assert_eq!((e.line, e.col), position_of(text, "is not"));
}

// ----- chess lines reaching particular material (legal, from the initial position) -------------

/// 64 plies: Black keeps king and knight, White (to move) an army.
pub const KING_AND_KNIGHT: &str = "\
    b3 f6 a3 Nc6 Nf3 Nb4 axb4 c6 Rxa7 d5 Rxb7 Ra5 bxa5 Bg4 Rxe7 Qxe7 Rg1 Qd6 g3 Qf4 gxf4 Bc5 \
    Rxg4 Bd6 Rxg7 h5 Rc7 Bb4 Rxc6 d4 Nxd4 h4 Rxf6 Bd6 Rxd6 Ke7 Nc3 Rh5 Bh3 Rc5 Bg2 Rh5 Ne6 Rf5 \
    f3 Kf6 Kf2 Ne7 h3 Rh5 Ra6 Nc6 Nd5 Kf5 Nf8 Rg5 fxg5 Nb8 Rb6 Nd7 Rb4 Nb6 Rxh4 Nc8";

/// 170 plies of legal chess, no capture-free stretch of 30 moves, both sides keep mating material: passes both time controls.
pub const LONG_GAME: &str = "\
    f3 f6 Nc3 g6 d3 h5 a4 a6 Bd2 h4 Rb1 Nh6 a5 Nc6 Nd5 d6 Nb4 Qd7 Qc1 Kd8 Nh3 g5 Nf2 e6 f4 f5 Ng4 \
    Qg7 Ne5 Ne7 c3 Rb8 Nec6 Ke8 h3 e5 d4 b6 b3 Rh7 Rb2 Ra8 Nd5 Ng4 e3 Rh8 e4 Rh6 hxg4 Qg8 Be3 Qe6 \
    Qd2 Bg7 Bg1 Rh7 Bf2 Rh8 Qc2 Ng8 Rb1 Bb7 Rxh4 b5 Na7 Bf6 Rb2 Qe7 Bg1 Bg7 Kf2 Rc8 Ke2 Nf6 Ra2 Bc6 \
    Rh2 Rd8 Rb2 Rh7 c4 Nh5 Kf3 Qe6 Nxc6 Qf7 Ncb4 gxf4 Qe2 Bh8 Nd3 Qg7 Nb6 Qg6 g5 Rh6 Qf2 Rb8 Qh4 b4 \
    g3 Kf8 Nf2 Bf6 Bd3 Bh8 Ra2 Qf7 Qg4 Qh7 Rc2 d5 Rc1 cxb6 Kg2 f3 Kh1 Rf6 Bb1 Bg7 Rh4 Kg8 Rc2 Rc8 \
    Rh3 Nf4 Rh5 Kh8 Rh4 Rd6 Rc3 Rb8 Bd3 Rc6 Bc2 Rcc8 Bd1 Rc6 Bc2 Rb7 dxe5 Re7 e6 Ra7 Nd3 Qh6 Nxb4 \
    b5 Kh2 Rac7 Bd3 Ng2 Be3 Rf7 e5 f2 Kh1 Rfc7 Bf4 Kg8 Rh5 f1=Q Kh2 Rf7 Be2 Qxf4 Qh4 Qd4 e7 Qe3";

/// 46 plies: Black is reduced to a lone king, White (to move) keeps an army.
pub const LONE_KING: &str = "\
    b3 f6 a3 Nc6 Nf3 Nb4 axb4 c6 Rxa7 d5 Rxb7 Ra5 bxa5 Bg4 Rxe7 Qxe7 Rg1 Qd6 g3 Qf4 gxf4 Bc5 Rxg4 \
    Bd6 Rxg7 h5 Rxg8 Bf8 Rxf8 Kd7 Rxf6 d4 Nxd4 Ke7 Nxc6 Ke8 Ne7 Rf8 Rxf8 Kd7 f3 Kd6 Rf5 Kc7 Rxh5 \
    Kd7";

/// 157 plies of captures down to 7 men with mating material on the board.
pub const SEVEN_MEN: &str = "\
    b3 f6 a3 Nc6 Nf3 Nb4 axb4 c6 Rxa7 Rxa7 Ne5 fxe5 e3 Ra8 c3 g5 Qc2 b5 Qxh7 Rxh7 Bxb5 Rxh2 Bxc6 \
    Rxh1 Ke2 dxc6 Na3 Rxc1 e4 Rxc3 dxc3 Rxa3 c4 Rxb3 Ke1 Rxb4 Ke2 Rxc4 g4 Rxe4 Kf3 Rxg4 Ke3 Kd7 Kf3 \
    Rg1 Ke2 c5 Kd3 Rh1 Kc2 Rh8 Kb3 Ke6 Ka2 Qb6 f4 exf4 Ka3 Qd8 Ka2 Rh7 Ka3 Ba6 Ka2 Kd5 Ka1 Bb7 Kb2 \
    Bh6 Ka1 f3 Kb1 Ke6 Kb2 Qb8 Ka3 Bc8 Ka2 Kf5 Ka3 Ba6 Ka2 Ke6 Ka3 Qb2 Kxb2 Rf7 Kb1 Bc8 Ka1 Bb7 Ka2 \
    Ba6 Ka1 Rf5 Kb1 c4 Kc1 f2 Kd1 Ra5 Kc2 Ra1 Kc3 Ra2 Kb4 f1=N Kc5 Ke5 Kc6 Re2 Kc7 Rh2 Kc6 Rh5 Kc7 \
    Ke4 Kd8 Rh2 Kd7 Ra2 Ke6 Nd2 Kd7 Ra3 Ke6 Kd3 Kf5 Nf6 Ke5 Bb7 Kf5 Ba6 Ke6 Ra5 Kxe7 Ng8 Kd6 Ne4 \
    Kc7 Rf5 Kb8 Rf3 Ka8 Rf2 Ka7 Nd6 Kxa6 Kc2 Ka5 Kd3 Kb4 g4 Kc5 Ke3 Kxd6";

/// 36 plies down to 7 men, K+R+2P v K+R+P (no elementary win): White (the human) to move.
pub const SEVEN_MEN_EVEN: &str = "\
    h4 Nc6 a3 h6 d4 Nxd4 Qxd4 e5 Qxa7 Bxa3 Qxb7 Qxh4 bxa3 Rxa3 Rxh4 Rxa1 Qxc7 Rxb1 Qxe5+ Ne7 \
    Qxg7 Rxc1+ Kd2 Rxf1 Qxh8+ Ng8 Qxg8+ Ke7 Rxh6 Rxg1 Qxc8 Rxg2 Qxd7+ Kxd7 Rf6 Rxf2";

/// 108 plies; the last 100 are piece moves without a capture: White to move may claim.
pub const FIFTY_MOVES: &str = "\
    b3 b6 f4 f6 e4 h5 c3 h4 Nh3 Kf7 Bd3 Nc6 Kf2 Ne5 Na3 Rh7 Qg4 Rh5 Rd1 Nf3 Bb1 Rg5 Rf1 Rf5 Qh5 Ke6 \
    Bb2 Ne5 Qg6 Nh6 Ke1 Nc6 Qg4 Nb8 Qg5 Qe8 Bc1 Qh5 Rf3 Ba6 Rf2 Bc4 Bc2 Ng8 Qh6 Qg5 Ng1 Ra5 Rb1 Rc5 \
    Nf3 Qf5 Qh5 Qe5 Qg4 Kf7 Bb2 Qd5 Qh3 Be2 Bd1 Nc6 Ba1 Qe5 Nb5 Nd4 Nd6 Kg6 Ne8 Kf7 Ng1 Rd8 Rf1 Rd5 \
    Bc2 Rd6 Qe6 Kg6 Qf7 Kh7 Qe6 Ba6 Ne2 Nf5 Rh1 Bc8 Qc4 Nfh6 Rc1 Nf7 Bb2 Kh8 Kf1 Ng5 Ba3 Qc5 Qd3 \
    Nh3 Qb5 Qg5 Ng3 Rc6 Rg1 Qg6 Ra1 Qh7 Bb2 Nf2";

/// 289 plies ending with a capture that leaves insufficient material.
pub const TO_BARE_KINGS: &str = "\
    b3 f6 a3 Nc6 Nf3 Nb4 axb4 c6 Rxa7 Rxa7 Ne5 fxe5 e3 Ra8 c3 g5 Qc2 b5 Qxh7 Rxh7 Bxb5 Rxh2 Bxc6 \
    Rxh1 Ke2 dxc6 Na3 Rxc1 e4 Rxc3 dxc3 Rxa3 c4 Rxb3 Ke1 Rxb4 Ke2 Rxc4 g4 Rxe4 Kf3 Rxg4 Ke3 Kd7 Kf3 \
    Rg1 Ke2 c5 Kd3 Rh1 Kc2 Rh8 Kb3 Ke6 Ka2 Qb6 f4 exf4 Ka3 Qd8 Ka2 Rh7 Ka3 Ba6 Ka2 Kd5 Ka1 Bb7 Kb2 \
    Bh6 Ka1 f3 Kb1 Ke6 Kb2 Qb8 Ka3 Bc8 Ka2 Kf5 Ka3 Ba6 Ka2 Ke6 Ka3 Qb2 Kxb2 Rf7 Kb1 Bc8 Ka1 Bb7 Ka2 \
    Ba6 Ka1 Rf5 Kb1 c4 Kc1 f2 Kd1 Ra5 Kc2 Ra1 Kc3 Ra2 Kb4 f1=N Kc5 Ke5 Kc6 Re2 Kc7 Rh2 Kc6 Rh5 Kc7 \
    Ke4 Kd8 Rh2 Kd7 Ra2 Ke6 Nd2 Kd7 Ra3 Ke6 Kd3 Kf5 Nf6 Ke5 Bb7 Kf5 Ba6 Ke6 Ra5 Kxe7 Ng8 Kd6 Ne4 \
    Kc7 Rf5 Kb8 Rf3 Ka8 Rf2 Ka7 Nd6 Kxa6 Kc2 Ka5 Kd3 Kb4 g4 Kc5 Ke3 Kxd6 Kd2 Kc6 Kc2 Kd7 Bf8 Ke8 \
    Rf3 Kd8 Rc3 Kc8 g3 Kd7 Be7 Kc7 Kc1 Kb7 Bb4 Kc7 Kc2 Kc6 Ra3 Kd5 Bf8 Kxc4 Bb4 Kxb4 Ne7 Kxa3 Ng8 \
    Kb4 Kd2 Kc4 Kd1 Kd5 g2 Ke6 g1=Q Ke5 Qg3 Kd4 Qg7 Kc4 Qg1 Kb3 Qg3 Kb4 Qg7 Kb5 Ke2 Ka5 Qf6 Kb4 Qf3 \
    Ka5 Qd5 Kb4 Kd3 Ka4 Qc5 Kb3 Qf2 Ka4 Qa7 Kb4 Qd7 Ka5 Kc3 Ka6 Qh3 Kb6 Qe3 Ka6 Qe2 Ka5 Qe1 Kb5 Kd3 \
    Kc5 Qe6 Kb4 Kd4 Kb5 Qe2 Kc6 Qc2 Kd7 Kc5 Kd8 Kb4 Kd7 Qh7 Kd8 Qh4 Kc7 Qh1 Kb6 Qf1 Kb7 Qd1 Kc6 Qf3 \
    Kc7 Qd1 Kb8 Qe2 Kc7 Qe1 Kc6 Ka5 Kc5 Qc3 Kd6 Qc4 Kd7 Qd4 Kc6 Qd2 Kb7 Qa2 Kb8 Qd5 Kc8 Qd2 Kb7 Qf2 \
    Kc6 Qa7 Kd6 Nh6 Kd5 Qd4 Kxd4";

#[test]
fn clause_9d_machine_offer_only_with_its_move() {
    let mut m = started();
    m.moves("e4 e5", 5000);
    // Something else happened since the machine's move: an offer now would not go with it.
    m.at("11 arbiter note spectators moved to the back rows");
    m.when("12 operator offer-draw eval 0")
        .then_refused_saying("9d", "when making its move")
        .and("20 move Nf3")
        // the machine is on move: the offer goes with the move it is about to make
        .when("21 operator offer-draw eval 0.1")
        .then_events(&[("draw_offered", "9d")]);
}

#[test]
fn clause_9e_consultation_time_is_logged_when_the_game_ends_during_it() {
    let mut m = started();
    m.moves("e4 e5 Nf3", 5000);
    m.at("15 human offer-draw");
    m.at("20 operator consult Shay Bushinsky");
    m.when("80 human resign").then(|m, ev| {
        let kinds: Vec<String> = ev.iter().map(|e| e.kind_name()).collect();
        assert_eq!(kinds, ["game_ended", "consultation_ended"]);
        assert_eq!(ev[1].clause, "9e");
        match &ev[1].kind {
            EventKind::ConsultationEnded {
                used_ms,
                total_ms,
                limit_reached,
            } => {
                assert_eq!(
                    (*used_ms, *total_ms, *limit_reached),
                    (60_000, 60_000, false)
                );
            }
            k => panic!("{k:?}"),
        }
        assert!(m.game().offer().unwrap().consulting.is_none());
    });
}

#[test]
fn clause_9e_takeback_closes_the_consultation_with_its_time() {
    let mut m = started();
    m.moves("e4 e5 Nf3", 5000);
    m.at("15 human offer-draw");
    m.at("20 operator consult Shay Bushinsky");
    m.at("50 arbiter stop position disputed");
    m.when("60 arbiter correct 6d takeback 1 Nf3 was entered for Ng1-f3 by mistake")
        .then_events(&[("consultation_ended", "9e"), ("moves_taken_back", "6d")]);
}

/// 8b: the end of the reset window with no reset reported is recorded by the kit (once), alarms the
/// arbiter, and leaves him the restart of the machine's clock.
#[test]
fn clause_8b_the_end_of_the_reset_window_is_recorded_and_alarms_the_arbiter() {
    let mut m = started();
    m.moves("e4", 5000);
    m.at("65 arbiter power-failure blackout");
    m.at("100 arbiter power-restored");
    let end: Ms = 100_000 + 1_200_000;
    assert!(m.tick(end - 1).is_empty());
    let ev = m.tick(end + 5_000);
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(ev[0].kind_name(), "reset_window_ended");
    assert_eq!((ev[0].clause.as_str(), ev[0].actor), ("8b", Actor::Kit));
    assert_eq!(ev[0].at, end, "stamped at the window's end");
    assert!(m.tick(end + 60_000).is_empty(), "recorded once");
    let alarms = arbiter::board::tui::sticky_alarms(
        &m.log.iter().cloned().enumerate().collect::<Vec<_>>(),
        None,
    );
    assert!(
        alarms
            .iter()
            .any(|a| a.text.contains("8b reset window over")),
        "{alarms:?}"
    );
    m.when(&format!("{} arbiter resume", secs(end + 60_000)))
        .then_events(&[("clock_resumed", "8b")]);
}

/// 6c: the machine's move entered while a correction of its internal clock is owed: the move is
/// recorded, and so is the correction not made (by the kit, 6c), with a red alarm; the arbiter
/// decides.
#[test]
fn clause_6c_an_owed_correction_not_made_at_move_entry_is_recorded_and_alarms() {
    let mut m = started();
    m.moves("e4", 5000);
    m.at("66 operator internal-clock 2:01:00");
    m.when("70 move e5")
        .then_events(&[("move_made", "6b"), ("sync_not_made", "6c")])
        .then(|m, ev| {
            match &ev[1].kind {
                EventKind::SyncNotMade {
                    diff_ms,
                    reported_at,
                    threshold_ms,
                } => assert_eq!(
                    (*diff_ms, *reported_at, *threshold_ms),
                    (121_000, 66_000, 120_000)
                ),
                k => panic!("{k:?}"),
            }
            assert_eq!(ev[1].actor, Actor::Kit);
            assert!(
                !m.view(71_000)
                    .panels
                    .iter()
                    .any(|p| matches!(p, Panel::SyncWarning { .. }))
            );
            let alarms = arbiter::board::tui::sticky_alarms(
                &m.log.iter().cloned().enumerate().collect::<Vec<_>>(),
                None,
            );
            assert!(
                alarms.iter().any(|a| a.text.contains("not made")),
                "{alarms:?}"
            );
        });
}
