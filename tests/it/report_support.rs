//! Test helpers for the committee report: a realistic game (the real Stockfish game of
//! `../shared/data/stockfish-game/`, its moves copied here so the test is sealed) run as a script
//! through a session on in-memory storage, with every kind of machine-related action of the 2003
//! rules mixed in.
use arbiter::board::session::{Memory, Session, Storage, StorageError, load_profile, run_script};
use arbiter::core::event::{Event, EventKind, KeyRef};
use arbiter::core::game::{Game, GameContext};
use arbiter::core::script::parse_script;
use arbiter::core::{Actor, Ms};
use chrono::{DateTime, Duration, Utc};
use std::cell::RefCell;
use std::rc::Rc;

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The moves of `../shared/data/stockfish-game/game.pgn` (0-1, 53... Qa7#).
pub const MOVES: &str = "d4 d5 c4 c6 Nc3 Nf6 Nf3 g6 cxd5 cxd5 Bf4 Nc6 h3 Qb6 a3 Ne4 Nxd5 Qa5+ \
    Nc3 Bg7 Rc1 Bf5 e3 O-O Bc4 e5 Bxe5 Nxe5 Nxe5 Bxe5 dxe5 Rad8 Qa4 Qxa4 Nxa4 Rc8 f3 Ng3 Rg1 \
    Bd3 Kf2 Ne2 Bxd3 Nxc1 Be4 Rfd8 Re1 Rd2+ Kf1 Nb3 Bxb7 Rc4 Nc3 Rxb2 Ne4 Rcc2 Ba8 Rxg2 f4 Kg7 \
    Rb1 Nd2+ Kxg2 Nxb1+ Kg3 Nxa3 Bd5 Nc2 f5 Nxe3 f6+ Kf8 Bxf7 Nf5+ Kf4 Kxf7 Ng5+ Ke8 Nxh7 Nd4 \
    Ke4 Ne6 Kd5 Kf7 Nf8 Nxf8 Kc6 a5 Kd5 Re2 h4 Ne6 Kd6 a4 Kd5 a3 Kc4 a2 Kb4 a1=Q Kc4 Qd4+ Kb5 \
    Rb2+ Ka5 Qa7#";

pub const CONFIG_SHA: &str = "3f1c2a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a";

/// UTC of the game's start.
pub fn origin() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2003-01-26T20:00:00Z")
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_default()
}

/// The script text of the full game. `white` is the human's name as declared.
pub fn script(white: &str) -> String {
    let mut s = String::new();
    let mut t: u64 = 0;
    let at = |s: &mut String, t: u64, cmd: &str| {
        s.push_str(&format!("{t} {cmd}\n"));
    };
    for l in [
        format!("arbiter declare white human {white}"),
        "arbiter declare black machine Deep Junior".into(),
        "arbiter declare operator Amir Ban".into(),
        "arbiter declare team Shay Bushinsky, Boris Alterman".into(),
        "arbiter declare algorithm threshold 120 adjust when 2 min apart".into(),
        format!("arbiter declare config {CONFIG_SHA}"),
        "arbiter start".into(),
        "operator param hash 1024".into(),
    ] {
        at(&mut s, 0, &l);
    }
    for (ply, san) in MOVES.split_whitespace().enumerate() {
        let k = (ply / 2) as u64;
        let think = if ply % 2 == 0 {
            60 + (k * 37) % 180
        } else {
            20 + (k * 53) % 120
        };
        t += think;
        // Actions before the move of this ply.
        match ply {
            13 => {
                // 7c: the operator executes Qa5 instead of the machine's Qb6 and presses.
                at(&mut s, t, "move Qa5");
                t += 40;
                at(&mut s, t, "arbiter wrong-move Qa5 Qb6");
                continue;
            }
            15 => {
                // 7b: Nd7 on the board, clock not pressed; the machine's Ne4 is entered.
                at(&mut s, t, "arbiter wrong-move Nd7 Ne4");
                t += 15;
            }
            25 => {
                t -= think;
                at(
                    &mut s,
                    t + 5,
                    "operator technical-problem engine process crashed",
                );
                at(
                    &mut s,
                    t + 65,
                    "supervisor info-stop what are you restarting?",
                );
                at(&mut s, t + 185, "supervisor info-resume");
                at(
                    &mut s,
                    t + 200,
                    "supervisor note restarted from the same configuration",
                );
                at(
                    &mut s,
                    t + 260,
                    "operator repaired engine restarted, hash 1024",
                );
                t += 260 + think;
            }
            31 => {
                t -= think;
                at(&mut s, t + 10, "arbiter power-failure hall blackout");
                at(&mut s, t + 910, "arbiter power-restored");
                at(&mut s, t + 1210, "operator reset-done");
                at(&mut s, t + 1220, "arbiter resume");
                t += 1220 + think;
            }
            _ => {}
        }
        at(&mut s, t, &format!("move {san}"));
        // Actions after the move of this ply.
        match ply {
            3 => {
                at(&mut s, t + 5, "operator internal-clock 1:55:00");
                at(&mut s, t + 6, "operator sync-internal-clock");
            }
            8 => {
                at(&mut s, t, "human offer-draw");
                at(&mut s, t + 30, "operator consult Shay Bushinsky");
                at(&mut s, t + 270, "operator consult-end");
                at(&mut s, t + 280, "operator decline-draw");
                t += 280;
            }
            20 => {
                // The machine moves before the operator answers: rejection (9e).
                at(&mut s, t, "human offer-draw");
                at(&mut s, t + 20, "operator consult Boris Alterman");
                at(&mut s, t + 140, "operator consult-end");
                t += 140;
            }
            34 => {
                at(
                    &mut s,
                    t + 10,
                    "arbiter correct 6d clock machine +30 operator input delay",
                );
            }
            41 => {
                at(
                    &mut s,
                    t + 20,
                    "arbiter dispute the human objects to the operator's conduct",
                );
                at(&mut s, t + 400, "committee ruling 1 no infraction; play on");
                t += 400;
            }
            45 => {
                at(
                    &mut s,
                    t + 10,
                    "operator param-request hash set to 16 MB by accident",
                );
                at(&mut s, t + 100, "committee advise 1 permit, exceptional");
                at(
                    &mut s,
                    t + 130,
                    "arbiter param-decision 1 permit committee advice",
                );
                t += 130;
            }
            51 => {
                at(&mut s, t + 2, "operator offer-draw eval 0.12");
                at(&mut s, t + 30, "human decline-draw");
                t += 30;
            }
            60 => at(
                &mut s,
                t + 5,
                "arbiter note spectator's phone rang in the hall",
            ),
            _ => {}
        }
    }
    s
}

/// The `engine_log_archived` body of the test game (the shape the archive module writes).
pub fn engine_log_body() -> serde_json::Value {
    serde_json::json!({
        "copies": [
            {"path": "/media/usb1/junior-game1.log", "size": 81234},
            {"path": "/media/usb2/junior-game1.log", "size": 81234}
        ],
        "log": {
            "name": "engine/junior-game1.log",
            "sha256": "aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44",
            "size": 81234
        },
        "sums_sha256": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "within_deadline": true,
        "coverage": {
            "status": "incomplete",
            "summary": "52/53 machine moves covered; move 23: no evaluation",
            "machine_moves": 53,
            "covered": 52,
            "moves": [
                {"move_number": 22, "san": "Ne2", "problems": [], "max_depth": 24},
                {"move_number": 23, "san": "Nxc1", "problems": ["no evaluation"], "max_depth": 19}
            ]
        }
    })
}

/// Storage for tests: a [`Memory`] behind a shared handle (the session owns its storage as a
/// `Box<dyn Storage>`), keeping the UTC time of each append as the journal would write it.
#[derive(Clone, Default)]
pub struct Shared(pub Rc<RefCell<(Memory, Vec<String>)>>);

impl Storage for Shared {
    fn append(&mut self, event: &Event, utc: DateTime<Utc>) -> Result<(), StorageError> {
        let mut inner = self.0.borrow_mut();
        inner.0.append(event, utc)?;
        inner
            .1
            .push(utc.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string());
        Ok(())
    }
    fn len(&self) -> usize {
        self.0.borrow().0.len()
    }
}

/// Run a script on the 2003 rules; the events recorded and the UTC text of each.
pub fn run(text: &str) -> Result<(Vec<Event>, Vec<String>), String> {
    let lines = parse_script(text).map_err(|e| format!("script: {e}"))?;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("rules/kasparov-deep-junior-2003.toml");
    let (profile, pref) = load_profile(&path).map_err(|e| e.to_string())?;
    let ctx = GameContext {
        match_id: "ny-2003".into(),
        game: 1,
        profile: pref,
        arbiter_key: KeyRef {
            principal: "arbiter".into(),
            fingerprint: "SHA256:q0oMwlPXSkb5S6lWR3Yd9hYcV1R7rZ6f3cL2x1lqYyA".into(),
            demo: false,
        },
        previous_algorithm: None,
    };
    let store = Shared::default();
    let mut session = Session::new(Game::new(ctx, profile), Box::new(store.clone()), origin());
    run_script(&mut session, &lines).map_err(|(line, e)| format!("script line {line}: {e}"))?;
    let inner = store.0.borrow();
    Ok((inner.0.events.clone(), inner.1.clone()))
}

/// The full test game, with the machine's log archived after it (13a), and the UTC texts.
pub fn game_events(white: &str) -> Result<(Vec<Event>, Vec<String>), String> {
    let (mut events, mut utc) = run(&script(white))?;
    let end = events.last().map_or(0, |e| e.at);
    let at = end + 20 * 60_000;
    events.push(archived(at));
    utc.push(utc_of(at));
    Ok((events, utc))
}

pub fn utc_of(at: Ms) -> String {
    (origin() + Duration::milliseconds(at as i64))
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

pub fn archived(at: Ms) -> Event {
    Event::new(
        at,
        Actor::Arbiter,
        "13a",
        EventKind::EngineLogArchived(engine_log_body()),
    )
}
