//! A camp's witness holds the record's outage to its own clock. The board records a restart's
//! gap (the time a crash charges to a running clock) by the laptop's wall clock when the machine
//! restarted; a witness notes when it received each entry by its own clock (`received`), and
//! a ruling that claims more time passed than the witness saw pass between the last entry before
//! the outage and the first after it is an alarm at once, and `verify --witness-copy` says so
//! afterwards. The laptop's wall clock is moved as a reboot moves it: the game's first session is
//! recorded in this process with its wall clock behind (the session's UTC origin), and the
//! reopening reads the true time.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arbiter::board::matchdir::open_game_with;
use arbiter::core::command::{Command, parse};
use arbiter::core::script::parse_script;
use arbiter::record::sign::KeySource;

use crate::witness_live::{Proc, cosig, live, match_with_camps, until, verify_copy, witness};

const RULES: &str = "rules/kasparov-deep-junior-2003.toml";
/// How far the laptop's wall clock moved forward across the reboot: 1 h 08 min.
pub(crate) const JUMP_MS: i64 = 68 * 60 * 1000;
/// What the witnesses say when they caught up with the live record.
pub(crate) const CAUGHT_UP: &str = "caught up with the live record";

fn open(m: &Path) -> arbiter::board::matchdir::Opened {
    open_game_with(
        m,
        Some(1),
        Some(Path::new(RULES)),
        &KeySource::default(),
        false,
    )
    .unwrap()
}

/// Every entry from `first` authorized with the arbiter's (unencrypted) key, as a script does.
fn authorize(o: &mut arbiter::board::matchdir::Opened, first: u64, at: u64) {
    let last = o.session.storage.len() as u64 - 1;
    let cmd = Command::Authorize {
        by: "the test, with the arbiter's signing key".into(),
        words: "the session's acts".into(),
        first,
        last,
    };
    o.session.execute(&cmd, at).unwrap();
}

/// Game 1's first session, recorded as the board records it with the laptop's wall clock
/// `behind_ms` behind the true time: the declarations (both camps with their proofs), the start
/// and White's first move, authorized; White's clock runs. Then the board's process dies: the
/// session is dropped, nothing more is written. The entries recorded.
pub(crate) fn first_session(m: &Path, declared: &str, behind_ms: i64) -> u64 {
    let mut o = open(m);
    assert!(o.session.storage.is_empty());
    o.session.utc_origin -= chrono::Duration::milliseconds(behind_ms);
    let started = Instant::now();
    let base = o.now_ms;
    let script = format!(
        "{declared}0 arbiter declare white human Garry Kasparov\n0 arbiter declare black machine Deep Junior\n0 arbiter declare operator Amir Ban\n0 arbiter start\n0 move e4\n"
    );
    for l in parse_script(&script).unwrap() {
        let now = base + started.elapsed().as_millis() as u64;
        o.session.execute(&l.command, now).unwrap();
    }
    authorize(&mut o, 0, base + started.elapsed().as_millis() as u64);
    o.session.storage.len() as u64
}

/// The reopening after the reboot: the gap the kit measured (White's clock ran), the arbiter's
/// ruling on it (waived, authorized) and a checkpoint signed over the whole log. With
/// `stop_for`, the arbiter first stops the clocks and rules that long after. The gap, the number
/// of the first entry after the outage (the clocks stopped, or the ruling), the ruling's number
/// and the checkpoint's size.
pub(crate) fn reopen_and_rule(m: &Path, stop_for: Option<Duration>) -> (u64, u64, u64, u64) {
    let mut o = open(m);
    let gap = o
        .session
        .restart_gap
        .expect("a restart with White's clock running");
    let first = o.session.storage.len() as u64;
    let reopened = Instant::now();
    let at = |since: Instant| o.now_ms + since.elapsed().as_millis() as u64;
    if let Some(d) = stop_for {
        let now = at(reopened);
        o.session
            .execute(&parse("arbiter stop the laptop restarted").unwrap(), now)
            .unwrap();
        until("the ruling's time", || reopened.elapsed() >= d);
    }
    let ruling = o.session.storage.len() as u64;
    let now = at(reopened);
    o.session
        .execute(
            &parse("arbiter restart-gap waive the laptop restarted").unwrap(),
            now,
        )
        .unwrap();
    authorize(&mut o, first, now);
    o.session
        .storage
        .checkpoint_now(chrono::Utc::now())
        .unwrap();
    (gap, first, ruling, o.session.storage.len() as u64)
}

pub(crate) struct Camp {
    pub(crate) name: String,
    pub(crate) key: PathBuf,
    pub(crate) copy: PathBuf,
}

impl Camp {
    pub(crate) fn witness(&self, url: &str, m: &Path) -> Proc {
        witness(url, m, &self.name, &self.key, &self.copy)
    }
}

pub(crate) fn camps(tmp: &Path, camps: Vec<(String, PathBuf)>) -> Vec<Camp> {
    camps
        .into_iter()
        .map(|(name, key)| Camp {
            copy: tmp.join(format!("copy-{name}")),
            name,
            key,
        })
        .collect()
}

pub(crate) fn evidence(c: &Camp, ruling: u64) -> PathBuf {
    c.copy
        .join(format!("game-1/evidence/outage-entry-{ruling}.txt"))
}

/// The laptop's wall clock was 1 h 08 min behind before the reboot and right after it (a wall
/// clock moved forward across the reboot): the kit measures the gap by it and the ruling records
/// 1 h 08 min for an outage of seconds. The camp's witness connected throughout raises the alarm
/// the moment the ruling arrives, naming the entry, the gap claimed and its own bound, keeps the
/// evidence and cosigns no checkpoint over it; the other camp's witness, down with the laptop
/// and connected again after the reopening, holds the ruling to its reception of the last entry
/// before the outage and raises the same alarm; a witness started again on a copy holding the
/// ruling without its evidence keeps it then. `verify --witness-copy` holds each copy's
/// receptions against the log afterwards: COPY_CONFLICT (34).
#[test]
fn witness_clock_catches_a_wall_clock_moved_forward_across_a_reboot() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, keys, declared) = match_with_camps(tmp.path());
    let camps = camps(tmp.path(), keys);
    let (_live, url) = live(&m);
    let w: Vec<Proc> = camps.iter().map(|c| c.witness(&url, &m)).collect();
    for p in &w {
        p.wait_for("the witness to catch up", CAUGHT_UP);
    }
    let n = first_session(&m, &declared, JUMP_MS);
    for p in &w {
        p.wait_for(
            "the last entry before the crash",
            &format!("game 1 #{} ", n - 1),
        );
    }
    let mut w = w;
    drop(w.pop()); // the second camp's witness loses the connection with the laptop
    let (gap, _, ruling, size) = reopen_and_rule(&m, None);
    assert!(
        gap >= JUMP_MS as u64 && gap < JUMP_MS as u64 + 60_000,
        "the ruling records the wall clock's 1 h 08 min: {gap}"
    );
    let alarm = format!("ALARM: game 1 entry #{ruling} restart_gap claims an outage of 1:08:");
    w[0].wait_for("the alarm as the ruling arrives", &alarm);
    let said = w[0].text();
    assert!(
        said.contains(&format!("({gap} ms), but only "))
            && said.contains("passed on the camp's witness's own clock between receiving #")
            && said.contains(&format!("and #{ruling}, the first after it")),
        "{said}"
    );
    let kept = std::fs::read_to_string(evidence(&camps[0], ruling)).unwrap();
    assert!(
        kept.contains("claims an outage") && kept.contains("\"kind\":\"restart_gap\""),
        "{kept}"
    );
    w[0].wait_for(
        "the checkpoint over the ruling refused",
        &format!("game 1 checkpoint {size} NOT cosigned"),
    );
    assert!(!cosig(&m, size, &camps[0].name).exists());
    // Connected again after the reopening: the ruling comes with what it missed, and its
    // reception before the outage still bounds it.
    let again = camps[1].witness(&url, &m);
    again.wait_for("the alarm of the witness connected again", &alarm);
    assert!(evidence(&camps[1], ruling).exists());
    drop(w);
    drop(again);
    // A witness killed after it took the ruling and before it kept the evidence: started again,
    // it holds the entries of its copy to its receptions and keeps it then.
    std::fs::remove_file(evidence(&camps[0], ruling)).unwrap();
    let restarted = camps[0].witness(&url, &m);
    restarted.wait_for("the alarm from the copy", &alarm);
    assert!(evidence(&camps[0], ruling).exists());
    drop(restarted);
    for c in &camps {
        let received = std::fs::read_to_string(c.copy.join("game-1/received")).unwrap();
        assert!(
            received.starts_with("arbiter-kit witness received v1\n")
                && received.lines().count() as u64 == size + 1
                && received.contains(" live\n"),
            "{received}"
        );
        let (code, out) = verify_copy(&m, &c.copy);
        assert_eq!(code, 34, "{out}");
        assert!(
            out.contains(&format!(
                "COPY_CONFLICT: witness copy {}: game 1: entry #{ruling} restart_gap claims an outage of 1:08:",
                c.copy.display()
            )) && out.contains("passed on the camp's witness's own clock"),
            "{out}"
        );
    }
}

/// The same reboot with the laptop's wall clock right: the outage the ruling records (a few
/// seconds, the clocks stopped at the reopening and the ruling given later) is no more than each
/// witness saw pass between the last entry before it and the clocks stopped, the one connected
/// throughout and the one connected again after the reopening alike; no alarm, the checkpoint
/// over the ruling is cosigned, and `verify --witness-copy` passes with the bound said.
#[test]
fn witness_clock_passes_an_honest_outage() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, keys, declared) = match_with_camps(tmp.path());
    let camps = camps(tmp.path(), keys);
    let (_live, url) = live(&m);
    let w: Vec<Proc> = camps.iter().map(|c| c.witness(&url, &m)).collect();
    for p in &w {
        p.wait_for("the witness to catch up", CAUGHT_UP);
    }
    let n = first_session(&m, &declared, 0);
    let down = Instant::now();
    for p in &w {
        p.wait_for(
            "the last entry before the crash",
            &format!("game 1 #{} ", n - 1),
        );
    }
    let mut w = w;
    drop(w.pop());
    // The laptop stays down longer than the witnesses' tolerance.
    until("an outage of 3 s", || {
        down.elapsed() >= Duration::from_secs(3)
    });
    // The arbiter stops the clocks at once and rules 4 s later: the outage lies before the
    // clocks stopped, not between them and the ruling.
    let (gap, first, ruling, size) = reopen_and_rule(&m, Some(Duration::from_secs(4)));
    assert!((3_000..60_000).contains(&gap), "{gap}");
    assert_eq!(ruling, first + 1, "the clocks stopped, then the ruling");
    let held = format!("game 1 entry #{ruling} records an outage of 0:00:0");
    w[0].wait_for("the outage held to the witness's clock", &held);
    let again = camps[1].witness(&url, &m);
    again.wait_for("the outage held after the reconnection", &held);
    for (p, c) in [(&w[0], &camps[0]), (&again, &camps[1])] {
        assert!(
            p.text()
                .contains("; it holds against this witness's clock: ")
                && p.text()
                    .contains(&format!("and #{first}, the first after it")),
            "{}",
            p.text()
        );
        until("the camp's cosignature over the ruling", || {
            cosig(&m, size, &c.name).exists()
        });
        assert!(!p.text().contains("ALARM"), "{}", p.text());
    }
    drop(w);
    drop(again);
    for c in &camps {
        assert!(!evidence(c, ruling).exists());
        let (code, out) = verify_copy(&m, &c.copy);
        assert_ne!(code, 34, "{out}");
        assert!(
            out.contains(&format!("game 1: entry #{ruling} records an outage of"))
                && out.contains("it holds against this witness's clock"),
            "{out}"
        );
    }
}

/// A witness that connects only after the outage received every entry while catching up with
/// the record: it has no reading from before the outage, says it cannot bound the 1 h 08 min the
/// ruling records, raises no alarm and keeps no evidence; `verify --witness-copy` says the same
/// and fails nothing for it.
#[test]
fn witness_clock_connected_only_after_the_outage_cannot_bound_it_and_raises_no_alarm() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, keys, declared) = match_with_camps(tmp.path());
    let camps = camps(tmp.path(), keys);
    first_session(&m, &declared, JUMP_MS);
    let (gap, _, ruling, size) = reopen_and_rule(&m, None);
    assert!(gap >= JUMP_MS as u64, "{gap}");
    let (_live, url) = live(&m);
    let p = camps[0].witness(&url, &m);
    p.wait_for(
        "the outage it cannot bound",
        &format!("game 1 entry #{ruling} records an outage of 1:08:"),
    );
    assert!(
        p.text().contains(
            "this witness cannot bound: entry #",
        ) && p.text().contains(", the last before the outage, reached this witness while it caught up with the record"),
        "{}",
        p.text()
    );
    until("the camp's cosignature", || {
        cosig(&m, size, &camps[0].name).exists()
    });
    p.wait_for("the witness to catch up", CAUGHT_UP);
    assert!(!p.text().contains("ALARM"), "{}", p.text());
    drop(p);
    assert!(!evidence(&camps[0], ruling).exists());
    let received = std::fs::read_to_string(camps[0].copy.join("game-1/received")).unwrap();
    assert!(
        !received.contains(" live\n") && received.contains(" backlog\n"),
        "{received}"
    );
    let (code, out) = verify_copy(&m, &camps[0].copy);
    assert_ne!(code, 34, "{out}");
    assert!(out.contains("this witness cannot bound"), "{out}");
}
