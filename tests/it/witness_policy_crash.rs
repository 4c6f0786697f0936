//! A match policy whose camps witness live every N entries, across what the kit does not choose:
//! the recording process killed with SIGKILL mid-interval (with and without a torn last line)
//! and reopened, the camps' witnesses reconnecting; a checkpoint the full disk keeps from being
//! written at the interval. The camps' cosigned stretches stay within N entries of each other
//! where the kit signed them, and `verify` names the kit, never the camps, for a gap of its own.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter::core::command::{Command as Act, Role};

use crate::witness_live::{Proc, cosig, live, match_with_camps, text, until, witness};
use crate::witness_policy::{LIVE, checkpoints, rules_with, verify};

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");
/// The policy's interval ([`LIVE`]).
const EVERY: u64 = 4;

/// The complete lines of game 1's log.
fn lines_in(m: &Path) -> u64 {
    std::fs::read(m.join("game-1/log.jsonl"))
        .map(|b| b.iter().filter(|c| **c == b'\n').count() as u64)
        .unwrap_or(0)
}

fn latest(m: &Path) -> u64 {
    if !m.join("game-1/checkpoints").exists() {
        return 0;
    }
    checkpoints(m).last().copied().unwrap_or(0)
}

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success(), "kill {sig} {pid}");
}

/// `arbiter script` writing game 1 under the live policy (quick.arb, then a long run of
/// moves, none an arbiter act), stopped with SIGSTOP at a moment when
/// exactly `unsigned` complete entries stand past its latest checkpoint (beyond entry 30), then,
/// with `torn` bytes of a next line left at the log's end, killed with SIGKILL. The folder is
/// left as the kill left it; the entries the script acknowledged.
fn killed_mid_interval(
    tmp: &Path,
    m: &Path,
    declared: &str,
    rules: &Path,
    unsigned: u64,
    torn: &[u8],
) -> usize {
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    // Knights out and back (no automatic end by repetition under the 2003 Laws), no move
    // signing a checkpoint of its own: only the interval's.
    let shuffle = ["Ng1", "Ng8", "Nf3", "Nf6"];
    let moves: String = (0..3000)
        .map(|i| {
            let at = 20 * 60 + i;
            format!(
                "{}:{:02}:{:02}  move {}\n",
                at / 3600,
                at / 60 % 60,
                at % 60,
                shuffle[i % 4]
            )
        })
        .collect();
    let s = tmp.join("long.arb");
    std::fs::write(&s, format!("{declared}{quick}{moves}")).unwrap();
    let mut child = Command::new(BIN)
        .args(["script", s.to_str().unwrap(), "--echo", "--match"])
        .arg(m)
        .arg("--rules")
        .arg(rules)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(tmp.join("script.err")).unwrap())
        .spawn()
        .unwrap();
    let acked = Arc::new(Mutex::new(0usize));
    let sink = Arc::clone(&acked);
    let out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for l in BufReader::new(out).lines() {
            let Ok(l) = l else { break };
            if l.starts_with("appended ") {
                *sink.lock().unwrap() += 1;
            }
        }
    });
    let pid = child.id();
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the script ended before it was stopped mid-interval ({} lines, checkpoint {}): {}",
            lines_in(m),
            latest(m),
            std::fs::read_to_string(tmp.join("script.err")).unwrap_or_default()
        );
        assert!(Instant::now() < end, "never stopped mid-interval");
        let (l, c) = (lines_in(m), latest(m));
        if l > 30 && l.saturating_sub(c) == unsigned {
            signal(pid, "-STOP");
            // Held as it was read? (It may have moved on between the reading and the stop.)
            if lines_in(m) - latest(m) == unsigned {
                break;
            }
            signal(pid, "-CONT");
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    if !torn.is_empty() {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(m.join("game-1/log.jsonl"))
            .unwrap();
        f.write_all(torn).unwrap();
    }
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9),
        "killed mid-game"
    );
    reader.join().unwrap();
    *acked.lock().unwrap()
}

/// Record `cmd` at `at` as the Board UI does: an arbiter act followed by its signed
/// authorization.
fn act(s: &mut arbiter::board::session::Session, line: &str) {
    for l in arbiter::core::script::parse_script(line).unwrap() {
        let before = s.storage.len();
        s.execute(&l.command, l.at).unwrap();
        let after = s.storage.len();
        if l.command.role() == Role::Arbiter && after > before {
            s.execute(
                &Act::Authorize {
                    by: "passphrase".into(),
                    words: "act".into(),
                    first: before as u64,
                    last: after as u64 - 1,
                },
                l.at,
            )
            .unwrap();
        }
    }
}

fn clock(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The whole story: two camps witness live every 4 entries; the script is killed with
/// `unsigned` entries past its latest checkpoint (and `torn` bytes of one more); the witnesses
/// reconnect; the game is reopened, played on to the result and closed; the camps countersign
/// the match index. Checks the interval across the reopen and that every checkpoint is cosigned
/// by both camps; the folder and verify's exit code and words.
fn crash_and_reopen(unsigned: u64, torn: &[u8]) -> (i32, String) {
    crash_and_reopen_then(unsigned, torn, |_| {})
}

/// [`crash_and_reopen`], with `after_kill` run on the folder once the script is killed.
fn crash_and_reopen_then(
    unsigned: u64,
    torn: &[u8],
    after_kill: impl FnOnce(&Path),
) -> (i32, String) {
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(tmp.path());
    let rules = rules_with(tmp.path(), LIVE);
    let (_live, url) = live(&m);
    let copies: Vec<PathBuf> = camps
        .iter()
        .map(|(c, _)| tmp.path().join(format!("copy-{c}")))
        .collect();
    let witnesses: Vec<Proc> = camps
        .iter()
        .zip(&copies)
        .map(|((c, k), copy)| witness(&url, &m, c, k, copy))
        .collect();
    let acked = killed_mid_interval(tmp.path(), &m, &declared, &rules, unsigned, torn);
    after_kill(&m);
    let before = latest(&m);
    let written = lines_in(&m);
    assert!(written - before <= EVERY, "stopped mid-interval");
    assert!(
        acked as u64 <= written,
        "{acked} acknowledged, {written} written"
    );
    // The camps' witnesses go away with the kit and come back, each with its own copy.
    drop(witnesses);
    let witnesses: Vec<Proc> = camps
        .iter()
        .zip(&copies)
        .map(|((c, k), copy)| witness(&url, &m, c, k, copy))
        .collect();
    // The reopen: before anything new is recorded, the kit signs what the crash left unsigned
    // (the recovery entry of a torn tail with it).
    let key = arbiter::record::sign::KeySource {
        file: Some(m.join("keys/arbiter")),
        passphrase_env: None,
        agent: false,
    };
    let mut o = arbiter::board::matchdir::open_game_with(&m, Some(1), Some(&rules), &key, false)
        .unwrap_or_else(|e| panic!("the reopen: {e}"));
    let reopened = lines_in(&m);
    let recovered = reopened - written;
    assert_eq!(recovered, u64::from(!torn.is_empty()), "one recovery entry");
    let first = latest(&m);
    assert_eq!(first, reopened, "the reopen signed what the crash left");
    assert!(
        first - before <= EVERY,
        "the first checkpoint after the reopen ({first}) is within {EVERY} entries of the last ({before})"
    );
    // Played on: the arbiter rules on the restart gap, the game goes on and ends.
    let mut at = o.now_ms;
    let s = &mut o.session;
    act(
        s,
        &format!(
            "{}  arbiter restart-gap waive the kit was killed\n",
            clock(at)
        ),
    );
    for _ in 0..7 {
        at += 1000;
        act(
            s,
            &format!(
                "{t}  operator consult Shay Bushinsky\n{t}  operator consult-end\n",
                t = clock(at)
            ),
        );
    }
    at += 1000;
    act(s, &format!("{}  operator resign\n", clock(at)));
    s.storage.checkpoint_now(chrono::Utc::now()).unwrap();
    drop(o);
    // Every stretch between the kit's checkpoints within the interval, and each one cosigned
    // by both camps' witnesses (those before the crash by the first, the rest after the
    // reconnect).
    let sizes = checkpoints(&m);
    let mut last = 0;
    for s in &sizes {
        assert!(s - last <= EVERY, "checkpoints {sizes:?}");
        last = *s;
    }
    assert_eq!(last, lines_in(&m), "the closing checkpoint covers the log");
    until("both camps' cosignatures of every checkpoint", || {
        sizes
            .iter()
            .all(|s| camps.iter().all(|(c, _)| cosig(&m, *s, c).exists()))
    });
    for w in &witnesses {
        assert!(!w.text().contains("ALARM"), "{}", w.text());
    }
    drop(witnesses);
    for (c, k) in &camps {
        let o = Command::new(BIN)
            .args(["countersign", "--index", "--camp", c, "--key"])
            .arg(k)
            .arg("--match")
            .arg(&m)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
    }
    verify(&m)
}

#[test]
fn witness_policy_a_crash_and_reopen_keeps_every_interval_witnessed() {
    // Killed with the most entries the kit leaves unsigned between two of its checkpoints.
    let (code, out) = crash_and_reopen(EVERY - 1, b"");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("camp kasparov witnessed live") && out.contains("camp junior witnessed live"),
        "{out}"
    );
    assert!(!out.contains("UNWITNESSED_INTERVAL"), "{out}");
}

#[test]
fn witness_policy_a_crash_at_the_interval_is_signed_at_the_reopen_not_left_past_it() {
    // Killed after the interval's last entry was written, before its checkpoint was: the
    // kit's next entry (the operator's, as the script had it next) written as the kill left
    // it. The reopen signs the four before the arbiter's restart ruling is recorded (else the
    // ruling would be a fifth entry past the latest checkpoint).
    let (code, out) = crash_and_reopen(EVERY, b"");
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("UNWITNESSED_INTERVAL"), "{out}");
}

#[test]
fn witness_policy_torn_tail_under_a_live_policy_is_recovered_not_unwitnessed() {
    // Killed writing the interval's last entry: its torn line is cut, the recovery entry takes
    // its place, and the reopen signs both before anything new.
    let (code, out) = crash_and_reopen(EVERY - 1, br#"{"seq":"#);
    assert_eq!(code, 11, "{out}");
    assert!(out.contains("OK WITH RECOVERY ENTRIES"), "{out}");
    assert!(
        out.contains("camp kasparov witnessed live") && out.contains("camp junior witnessed live"),
        "{out}"
    );
    assert!(!out.contains("UNWITNESSED_INTERVAL"), "{out}");
}

/// The disk fills up under a live policy with room left in the log's last page for a few
/// entries, none for a checkpoint's files: the entries are written and acknowledged (the camps'
/// witnesses hold them as they come), the interval's checkpoint is not silently skipped — it is
/// owed, tried again at each entry, and the status line says so in red — and once space is back
/// the next entry signs it. `verify` names the stretch as the kit's gap (35), never blames the
/// camps, who cosigned every checkpoint the kit signed.
#[test]
fn witness_policy_full_disk_at_the_interval_is_the_kits_gap_not_the_camps() {
    let disk = match crate::record_trust::SmallDisk::mount("2m") {
        Ok(d) => d,
        Err(why) => {
            eprintln!(
                "witness_policy_full_disk_at_the_interval_is_the_kits_gap_not_the_camps skipped: no tmpfs ({why})"
            );
            return;
        }
    };
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(disk.path());
    let rules = rules_with(tmp.path(), LIVE);
    let (_live, url) = live(&m);
    let _witnesses: Vec<Proc> = camps
        .iter()
        .map(|(c, k)| witness(&url, &m, c, k, &tmp.path().join(format!("copy-{c}"))))
        .collect();
    let key = arbiter::record::sign::KeySource {
        file: Some(m.join("keys/arbiter")),
        passphrase_env: None,
        agent: false,
    };
    let log = m.join("game-1/log.jsonl");
    let mut o =
        arbiter::board::matchdir::open_game_with(&m, Some(1), Some(&rules), &key, false).unwrap();
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    crate::record_trust::run_acts(&mut o.session, &format!("{declared}{quick}"));
    // Knights out and back until a checkpoint was just signed and the log's last page has room
    // for several more lines.
    let shuffle = ["Ng1", "Ng8", "Nf3", "Nf6"];
    let mut at = 17 * 60;
    let mut k = 0;
    let mut play = |s: &mut arbiter::board::session::Session| {
        at += 1;
        let l = arbiter::core::script::parse_script(&format!(
            "{}  move {}\n",
            clock(at * 1000),
            shuffle[k % 4]
        ))
        .unwrap();
        k += 1;
        s.execute(&l[0].command, l[0].at).map(|_| ())
    };
    while !(std::fs::metadata(&log).unwrap().len() % 4096 < 1024 && latest(&m) == lines_in(&m)) {
        play(&mut o.session).unwrap();
    }
    let before = latest(&m);
    let filler = disk.fill();
    // One interval and one more entry: each written and acknowledged, the checkpoint owed.
    for _ in 0..=EVERY {
        play(&mut o.session).unwrap();
    }
    assert_eq!(lines_in(&m), before + EVERY + 1);
    assert_eq!(latest(&m), before, "no checkpoint could be written");
    let warning = o.session.storage.status().warning.unwrap_or_default();
    assert!(
        warning.contains("CHECKPOINT NOT SIGNED")
            && warning.contains("the camps witness live every 4 entries")
            && warning.contains(&format!("entries #{before}..#{}", before + EVERY))
            && warning.contains("tries again at each entry")
            && warning.contains("free space"),
        "{warning}"
    );
    assert!(o.session.frozen.is_none(), "the entries stand acknowledged");
    // Space back: the next entry signs the owed checkpoint.
    std::fs::remove_file(filler).unwrap();
    play(&mut o.session).unwrap();
    let paid = latest(&m);
    assert_eq!(paid, before + EVERY + 2, "signed at the next entry");
    let warning = o.session.storage.status().warning.unwrap_or_default();
    assert!(
        warning.contains(&format!(
            "checkpoint signed again over entries #{before}..#{}",
            paid - 1
        )) && warning.contains("the kit's gap"),
        "{warning}"
    );
    // The game goes on to its result, every interval signed again.
    for _ in 0..6 {
        play(&mut o.session).unwrap();
    }
    crate::record_trust::run_acts(
        &mut o.session,
        &format!("{}  operator resign\n", clock((at + 1) * 1000)),
    );
    o.session
        .storage
        .checkpoint_now(chrono::Utc::now())
        .unwrap();
    drop(o);
    let sizes = checkpoints(&m);
    until("both camps' cosignatures of every checkpoint", || {
        sizes
            .iter()
            .all(|s| camps.iter().all(|(c, _)| cosig(&m, *s, c).exists()))
    });
    for (c, k) in &camps {
        let o = Command::new(BIN)
            .args(["countersign", "--index", "--camp", c, "--key"])
            .arg(k)
            .arg("--match")
            .arg(&m)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
    }
    let (code, out) = verify(&m);
    assert_eq!(code, 35, "{out}");
    assert!(
        out.contains(&format!(
            "UNWITNESSED_INTERVAL: the kit signed no checkpoint over entries {before}..{} ({} entries, up to the next checkpoint it signed): the kit's gap, not the camps'",
            paid - 1,
            paid - before
        )),
        "{out}"
    );
    assert!(
        !out.contains("cosigned no checkpoint"),
        "no camp blamed: {out}"
    );
    for (c, _) in &camps {
        assert!(
            out.contains(&format!("camp {c} witnessed live")) && out.contains("but the kit's own"),
            "{out}"
        );
    }
}

/// A game reopened after a crash on a full disk: the checkpoint the reopen owes over the entries
/// the crash left cannot be written; the game opens all the same, says so in red, and signs it
/// at the first entry once space is back — not N entries later.
#[test]
fn witness_policy_a_checkpoint_the_reopen_cannot_write_is_owed_and_signed_once_space_is_back() {
    let disk = match crate::record_trust::SmallDisk::mount("2m") {
        Ok(d) => d,
        Err(why) => {
            eprintln!(
                "witness_policy_a_checkpoint_the_reopen_cannot_write_is_owed_and_signed_once_space_is_back skipped: no tmpfs ({why})"
            );
            return;
        }
    };
    let tmp = tempfile::tempdir().unwrap();
    let (m, _camps, declared) = match_with_camps(disk.path());
    let rules = rules_with(tmp.path(), LIVE);
    let key = arbiter::record::sign::KeySource {
        file: Some(m.join("keys/arbiter")),
        passphrase_env: None,
        agent: false,
    };
    let log = m.join("game-1/log.jsonl");
    let open = || {
        arbiter::board::matchdir::open_game_with(&m, Some(1), Some(&rules), &key, false).unwrap()
    };
    let mut o = open();
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    crate::record_trust::run_acts(&mut o.session, &format!("{declared}{quick}"));
    let shuffle = ["Ng1", "Ng8", "Nf3", "Nf6"];
    let mut at = 17 * 60;
    let mut k = 0;
    let mut play = |s: &mut arbiter::board::session::Session| {
        at += 1;
        let l = arbiter::core::script::parse_script(&format!(
            "{}  move {}\n",
            clock(at * 1000),
            shuffle[k % 4]
        ))
        .unwrap();
        k += 1;
        s.execute(&l[0].command, l[0].at).unwrap();
    };
    // One entry past a checkpoint, room in the log's last page: then the crash (the session
    // dropped with nothing closed).
    while !(std::fs::metadata(&log).unwrap().len() % 4096 < 1024 && lines_in(&m) == latest(&m) + 1)
    {
        play(&mut o.session);
    }
    drop(o);
    let before = latest(&m);
    let filler = disk.fill();
    let mut o = open();
    assert_eq!(latest(&m), before, "nothing could be signed");
    let notice = o.notice.clone().unwrap_or_default();
    let warning = o.session.storage.status().warning.unwrap_or_default();
    for said in [&notice, &warning] {
        assert!(
            said.contains("CHECKPOINT NOT SIGNED")
                && said.contains(&format!("entries #{before}..#{before}"))
                && said.contains("free space"),
            "{said}"
        );
    }
    // Still full: the arbiter's ruling on the restart is written, the checkpoint still owed.
    let now = o.now_ms;
    let l = arbiter::core::script::parse_script(&format!(
        "{}  arbiter restart-gap waive the kit was killed\n",
        clock(now)
    ))
    .unwrap();
    o.session.execute(&l[0].command, now).unwrap();
    assert_eq!(lines_in(&m), before + 2);
    assert_eq!(latest(&m), before);
    std::fs::remove_file(filler).unwrap();
    // Space back: signed at the next entry (the ruling's authorization), three past the last
    // checkpoint, not four.
    o.session
        .execute(
            &Act::Authorize {
                by: "passphrase".into(),
                words: "act".into(),
                first: before + 1,
                last: before + 1,
            },
            now,
        )
        .unwrap();
    assert_eq!(lines_in(&m), before + 3);
    assert_eq!(
        latest(&m),
        before + 3,
        "signed at the first entry with space"
    );
    assert!(o.session.storage.status().warning.is_none());
}
