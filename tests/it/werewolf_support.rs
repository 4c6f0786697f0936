//! Helpers for the werewolf tests: a table driven through decide/evolve, as the shell drives it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use arbiter::core::werewolf::{
    self, Event, Input, Profile, Request, Role, SeatSpec, Seed, Table, Winner,
};

pub fn profile(name: &str) -> Profile {
    let path = format!("{}/rules/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    Profile::parse(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

pub fn seats(n: usize) -> Vec<SeatSpec> {
    (0..n)
        .map(|i| SeatSpec {
            name: format!("team{}{}", (b'a' + i as u8) as char, i + 1),
            team: format!("team{}", (b'a' + i as u8) as char),
            human: false,
        })
        .collect()
}

pub fn seed(b: u8) -> Seed {
    Seed([b; 32])
}

/// A game: the table, every event recorded, the time now.
pub struct G {
    pub profile: Profile,
    pub seed: Seed,
    pub seats: Vec<SeatSpec>,
    pub t: Table,
    pub events: Vec<Event>,
    pub now: u64,
}

impl G {
    pub fn new(name: &str, seed_byte: u8) -> G {
        G::with(profile(name), seed(seed_byte))
    }

    pub fn with(profile: Profile, seed: Seed) -> G {
        let seats = seats(profile.table.seats as usize);
        let t = Table::new(&profile, "GAME1", &seed, seats.clone());
        G {
            profile,
            seed,
            seats,
            t,
            events: Vec::new(),
            now: 0,
        }
    }

    /// Decide and evolve one input; its events.
    pub fn input(&mut self, i: Input) -> Vec<Event> {
        let ev = werewolf::decide(&self.t, &i).unwrap_or_else(|r| panic!("{i:?} refused: {r}"));
        for e in &ev {
            werewolf::evolve(&mut self.t, e);
        }
        self.events.extend(ev.iter().cloned());
        ev
    }

    pub fn begin(&mut self) -> Vec<Event> {
        self.input(Input::Begin { at_ms: self.now })
    }

    /// The awaited (seat, request).
    pub fn pending(&self) -> Option<(usize, Request)> {
        self.t.pending().map(|p| (p.seat, p.request))
    }

    /// A text frame from `seat`, `after` ms from now.
    pub fn frame(&mut self, seat: usize, text: &str, after: u64) -> Vec<Event> {
        self.now += after;
        self.input(Input::Frame {
            seat,
            text: text.into(),
            at_ms: self.now,
        })
    }

    /// Answer the awaited request 10 ms later.
    pub fn answer(&mut self, text: &str) -> Vec<Event> {
        let (seat, _) = self.pending().expect("a request awaits");
        self.frame(seat, text, 10)
    }

    /// The shell's tick at the current deadline.
    pub fn tick(&mut self) -> Vec<Event> {
        let d = werewolf::deadline(&self.t).expect("a deadline");
        self.now = self.now.max(d);
        self.input(Input::Tick { at_ms: self.now })
    }

    pub fn name(&self, seat: usize) -> String {
        self.t.seats()[seat].name.clone()
    }

    pub fn role(&self, seat: usize) -> Role {
        self.t.seats()[seat].role
    }

    pub fn seats_with(&self, role: Role) -> Vec<usize> {
        (0..self.t.seats().len())
            .filter(|&i| self.t.seats()[i].role == role)
            .collect()
    }

    /// Answer requests with `f(table, seat, request)` until `stop` holds or the game ends.
    pub fn play_until(
        &mut self,
        mut f: impl FnMut(&Table, usize, Request) -> String,
        stop: impl Fn(&G) -> bool,
    ) {
        for _ in 0..10_000 {
            if werewolf::finished(&self.t).is_some() || stop(self) {
                return;
            }
            let (seat, req) = self.pending().expect("a request awaits");
            let text = f(&self.t, seat, req);
            self.frame(seat, &text, 10);
        }
        panic!("the game did not end");
    }

    /// Play to the end with `f`.
    pub fn play(&mut self, f: impl FnMut(&Table, usize, Request) -> String) -> Winner {
        self.play_until(f, |_| false);
        werewolf::finished(&self.t).unwrap()
    }

    /// Events of `kind`.
    pub fn of(&self, kind: &str) -> Vec<&Event> {
        self.events.iter().filter(|e| e.kind() == kind).collect()
    }
}

/// Everyone says Over; votes and targets go to the first other living seat that is not a wolf
/// (for wolves) or simply the first other living seat.
pub fn quiet(t: &Table, seat: usize, req: Request) -> String {
    match req {
        Request::Talk | Request::Whisper => "Over".into(),
        _ => {
            let me = &t.seats()[seat];
            t.seats()
                .iter()
                .enumerate()
                .find(|(i, s)| {
                    *i != seat
                        && s.alive
                        && !(me.role == Role::Werewolf && s.role == Role::Werewolf)
                })
                .map(|(_, s)| s.name.clone())
                .unwrap_or_default()
        }
    }
}

/// The frames sent to `seat`, parsed.
pub fn frames_to(events: &[Event], seat: usize) -> Vec<serde_json::Value> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Sent { seat: s, frame, .. } if *s == seat => {
                Some(serde_json::from_str(frame).unwrap())
            }
            _ => None,
        })
        .collect()
}

/// Run a Python script with aiwolf-nlp-common, `input` on standard input; None (with a note)
/// when the package is not installed outside CI.
pub fn python(script: &str, input: &str) -> Option<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let have = Command::new("python3")
        .args(["-c", "import aiwolf_nlp_common"])
        .status()
        .is_ok_and(|s| s.success());
    if !have {
        assert!(
            std::env::var_os("CI").is_none(),
            "aiwolf-nlp-common is required in CI (.ci/run installs it)"
        );
        println!("SKIPPED: aiwolf-nlp-common is not installed");
        return None;
    }
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}
