//! Heartbeat v2. The arbiter key signs ONE anchor per hash chain; a beat
//! reveals the chain value of its slot of the boot clock. A beat moved later (a later index, an
//! edited time) or taken from another session is NOT AUTHENTIC at the reopen; v1 beats (each one
//! signed) are still read; a chain that runs out is renewed; a heartbeat removed or replaced while
//! the board runs is written again and the arbiter is told.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use arbiter::board::matchdir::beat::{self, BeatTimes, Beater, SLOT_MS};
use arbiter::board::matchdir::{HEARTBEAT_MAX_INTERVAL_MS, Opened};
use chrono::Utc;
use serde_json::Value;

/// A match whose game 1 has White's clock running (a script writes no heartbeat).
struct Running {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

fn running() -> Running {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let script = tmp.path().join("s.arb");
    std::fs::write(
        &script,
        "0 arbiter declare white human Garry Kasparov\n0 arbiter declare black machine Deep Junior\n0 arbiter declare operator Amir Ban\n0 arbiter start\n0:10 move e4\n",
    )
    .unwrap();
    crate::realgame::ok(&crate::realgame::arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        dir.to_str().unwrap(),
    ]));
    Running { _tmp: tmp, dir }
}

fn open(dir: &Path) -> Opened {
    let key = arbiter::record::sign::KeySource::default();
    let rules = Path::new("rules/kasparov-deep-junior-2003.toml");
    arbiter::board::matchdir::open_game_with(dir, Some(1), Some(rules), &key, false).unwrap()
}

fn notice(dir: &Path) -> String {
    open(dir).notice.unwrap_or_default()
}

fn beat_path(dir: &Path) -> PathBuf {
    arbiter::record::layout::heartbeat_path(dir, 1)
}

/// The heartbeat file's anchor line (as written) and beat line (parsed).
fn lines(dir: &Path) -> (String, Value) {
    let text = std::fs::read_to_string(beat_path(dir)).unwrap();
    let mut l = text.lines();
    let anchor = l.next().unwrap().to_string();
    let beat = serde_json::from_str(l.next().unwrap().trim_end()).unwrap();
    (anchor, beat)
}

fn write(dir: &Path, anchor: &str, beat: &Value) {
    std::fs::write(beat_path(dir), format!("{anchor}\n{beat}\n")).unwrap();
}

fn key(dir: &Path) -> ssh_key::PrivateKey {
    arbiter::record::sign::load_key(&dir.join("keys").join("arbiter"), None).unwrap()
}

/// One beat of a fresh session of the game, then the session closed.
fn one_beat(dir: &Path) {
    let mut o = open(dir);
    let said = o.session.storage.heartbeat(o.now_ms, Utc::now());
    assert_eq!(said, None, "a beat written as usual says nothing");
}

fn u(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap()
}

#[test]
fn witness_heartbeat_v2_beat_at_a_later_index_is_not_authentic() {
    let g = running();
    one_beat(&g.dir);
    let (anchor, b) = lines(&g.dir);
    let a: Value = serde_json::from_str(&anchor).unwrap();
    assert_eq!(a["v"], beat::V2);
    assert!(a["sig"].as_str().is_some_and(|s| s.len() == 88), "{a}");
    let n = notice(&g.dir);
    assert!(
        !n.contains("NOT AUTHENTIC") && !n.contains("MISSING"),
        "{n}"
    );

    // The next slot, with the value the kit revealed.
    let mut f = b.clone();
    f["i"] = (u(&b, "i") + 1).into();
    write(&g.dir, &anchor, &f);
    let n = notice(&g.dir);
    assert!(n.contains("heartbeat NOT AUTHENTIC"), "{n}");
    assert!(n.contains("does not hash to the signed anchor"), "{n}");

    // Fifty slots (10 s) later with every time moved along consistently: still the old value.
    let mut f = b.clone();
    f["i"] = (u(&b, "i") + 50).into();
    f["boottime_ms"] = (u(&b, "boottime_ms") + 50 * SLOT_MS).into();
    f["mono_ms"] = (u(&b, "mono_ms") + 50 * SLOT_MS).into();
    let utc = chrono::DateTime::parse_from_rfc3339(b["utc"].as_str().unwrap()).unwrap()
        + chrono::Duration::milliseconds(50 * SLOT_MS as i64);
    f["utc"] = arbiter::log::format_utc(&utc.with_timezone(&Utc)).into();
    write(&g.dir, &anchor, &f);
    let o = open(&g.dir);
    let n = o.notice.clone().unwrap_or_default();
    assert!(n.contains("does not hash to the signed anchor"), "{n}");
    assert_eq!(
        o.session.restart_uncertainty, 0,
        "the gap runs from the last entry, not from the forged beat"
    );
    drop(o);

    // The kit's own file put back: authentic again.
    write(&g.dir, &anchor, &b);
    let n = notice(&g.dir);
    assert!(!n.contains("NOT AUTHENTIC"), "{n}");
}

#[test]
fn witness_heartbeat_v2_edited_time_is_not_authentic() {
    let g = running();
    one_beat(&g.dir);
    let (anchor, b) = lines(&g.dir);
    let edits: [(&str, Value, &str); 3] = [
        (
            "boottime_ms",
            (u(&b, "boottime_ms") + 60_000).into(),
            "is not in slot",
        ),
        (
            "mono_ms",
            (u(&b, "mono_ms") + 60_000).into(),
            "game time or UTC",
        ),
        (
            "utc",
            arbiter::log::format_utc(&(Utc::now() + chrono::Duration::seconds(60))).into(),
            "game time or UTC",
        ),
    ];
    for (field, value, why) in edits {
        let mut f = b.clone();
        f[field] = value;
        write(&g.dir, &anchor, &f);
        let o = open(&g.dir);
        let n = o.notice.clone().unwrap_or_default();
        assert!(n.contains("heartbeat NOT AUTHENTIC"), "{field}: {n}");
        assert!(n.contains(why), "{field}: {n}");
        assert_eq!(o.session.restart_uncertainty, 0, "{field}");
    }
    // The anchor's own times moved later (the whole chain with them): its signature fails.
    let mut a: Value = serde_json::from_str(&anchor).unwrap();
    a["boottime_ms"] = (u(&a, "boottime_ms") + 60_000).into();
    let mut f = b.clone();
    f["boottime_ms"] = (u(&b, "boottime_ms") + 60_000).into();
    write(&g.dir, &a.to_string(), &f);
    let n = notice(&g.dir);
    assert!(n.contains("anchor's signature"), "{n}");
    // A plain beat written by hand, a second old: not the kit's, and it does not shorten the
    // gap (before v2 the gap ran from any beat's UTC).
    let plain = format!(
        "{{\"mono_ms\":{},\"utc\":\"{}\"}}\n",
        u(&b, "mono_ms") + 3_600_000,
        arbiter::log::format_utc(&(Utc::now() - chrono::Duration::seconds(1)))
    );
    std::fs::write(beat_path(&g.dir), plain).unwrap();
    let o = open(&g.dir);
    let n = o.notice.clone().unwrap_or_default();
    assert!(n.contains("heartbeat NOT AUTHENTIC"), "{n}");
    assert_eq!(o.session.restart_uncertainty, 0);
}

#[test]
fn witness_heartbeat_v2_value_from_another_session_is_not_authentic() {
    let g = running();
    one_beat(&g.dir);
    let (anchor_a, beat_a) = lines(&g.dir);
    one_beat(&g.dir);
    let (anchor_b, beat_b) = lines(&g.dir);
    assert_ne!(anchor_a, anchor_b, "each session draws its own chain");
    // Session B's anchor with session A's beat.
    write(&g.dir, &anchor_b, &beat_a);
    let n = notice(&g.dir);
    assert!(n.contains("heartbeat NOT AUTHENTIC"), "{n}");
    assert!(n.contains("does not hash to the signed anchor"), "{n}");
    // Each session's own pair is authentic.
    for (a, b) in [(&anchor_a, &beat_a), (&anchor_b, &beat_b)] {
        write(&g.dir, a, b);
        let n = notice(&g.dir);
        assert!(!n.contains("NOT AUTHENTIC"), "{n}");
    }
    // Another game's heartbeat (or another match's): its anchor names another origin.
    let bytes = std::fs::read(beat_path(&g.dir)).unwrap();
    let public = key(&g.dir).public_key().clone();
    let why = beat::verify(&bytes, &public, "arbiter-kit/another-match/game-1").unwrap_err();
    assert!(why.contains("not this game"), "{why}");
    // Another key (a forger's) cannot sign an anchor the arbiter key accepts.
    let forger =
        ssh_key::PrivateKey::random(&mut rand_core::OsRng, ssh_key::Algorithm::Ed25519).unwrap();
    let a: Value = serde_json::from_str(&anchor_b).unwrap();
    let origin = a["origin"].as_str().unwrap().to_string();
    let mut forged = Beater::default();
    let utc = Utc::now();
    let (boot_id, boottime_ms) = arbiter::board::matchdir::boot_clock();
    let rec = forged
        .record(
            &origin,
            BeatTimes {
                boot_id,
                boottime_ms,
                mono_ms: u(&beat_b, "mono_ms") + 60_000,
                utc: &utc,
            },
            &|t| arbiter::record::sign::sign_authorization(&forger, t).ok(),
        )
        .unwrap();
    assert!(beat::verify(rec.as_bytes(), forger.public_key(), &origin).is_ok());
    std::fs::write(beat_path(&g.dir), rec).unwrap();
    let n = notice(&g.dir);
    assert!(n.contains("anchor's signature"), "{n}");
}

#[test]
fn witness_heartbeat_v1_still_readable() {
    let g = running();
    one_beat(&g.dir);
    let (anchor, _) = lines(&g.dir);
    let a: Value = serde_json::from_str(&anchor).unwrap();
    let origin = a["origin"].as_str().unwrap().to_string();
    // A beat as the kit wrote it before v2: one line, signed itself.
    let o = open(&g.dir);
    let mono = o.now_ms;
    drop(o);
    let utc = arbiter::log::format_utc(&Utc::now());
    let (boot_id, boottime) = arbiter::board::matchdir::boot_clock();
    let text = arbiter::board::matchdir::heartbeat_text(&origin, mono, &utc, boot_id, boottime);
    let sig = arbiter::record::sign::sign_authorization(&key(&g.dir), &text).unwrap();
    let v1 = format!(
        "{{\"boot_id\":\"{boot_id}\",\"boottime_ms\":{boottime},\"mono_ms\":{mono},\"sig\":\"{sig}\",\"utc\":\"{utc}\"}}"
    );
    std::fs::write(beat_path(&g.dir), format!("{v1:<255}\n")).unwrap();
    let o = open(&g.dir);
    let n = o.notice.clone().unwrap_or_default();
    assert!(
        !n.contains("NOT AUTHENTIC") && !n.contains("MISSING"),
        "{n}"
    );
    let gap = o.session.restart_gap.unwrap();
    // A v1 beat was signed at its own time: no slot is added to the uncertainty.
    assert_eq!(
        o.session.restart_uncertainty,
        gap.min(HEARTBEAT_MAX_INTERVAL_MS)
    );
    drop(o);
    // Edited, it no longer verifies.
    let edited = v1.replace(
        &format!("\"mono_ms\":{mono}"),
        &format!("\"mono_ms\":{}", mono + 9),
    );
    std::fs::write(beat_path(&g.dir), format!("{edited:<255}\n")).unwrap();
    let n = notice(&g.dir);
    assert!(n.contains("heartbeat NOT AUTHENTIC"), "{n}");
}

/// The beat proves the start of its slot: the reopen's gap runs from there, and the kit may
/// have run a beat interval and a slot after it.
#[test]
fn clause_8b_heartbeat_v2_beat_proves_the_start_of_its_slot() {
    let g = running();
    let k = key(&g.dir);
    let origin = "arbiter-kit/m/game-1";
    let mut b = Beater::default();
    // The log's UTC has milliseconds.
    let utc0 = chrono::DateTime::from_timestamp_millis(Utc::now().timestamp_millis()).unwrap();
    let sign = |t: &str| arbiter::record::sign::sign_authorization(&k, t).ok();
    for (at, slot) in [(0, 0), (199, 0), (200, 1), (1_150, 5), (1_000_000, 5_000)] {
        let utc = utc0 + chrono::Duration::milliseconds(at as i64);
        let t = BeatTimes {
            boot_id: "boot",
            boottime_ms: 50_000 + at,
            mono_ms: 7_000 + at,
            utc: &utc,
        };
        let rec = b.record(origin, t, &sign).unwrap();
        let v = beat::verify(rec.as_bytes(), k.public_key(), origin).unwrap();
        assert_eq!(v.boottime_ms, 50_000 + slot * SLOT_MS, "at {at}");
        assert_eq!(v.mono_ms, 7_000 + slot * SLOT_MS, "at {at}");
        assert_eq!(
            v.utc,
            utc0 + chrono::Duration::milliseconds((slot * SLOT_MS) as i64)
        );
        assert_eq!(v.slack_ms, SLOT_MS);
    }
    assert_eq!(b.anchors, 1, "one signature for all of them");
}

#[test]
fn clause_8b_heartbeat_v2_chain_renewed_when_it_runs_out_memory_flat() {
    let g = running();
    let k = key(&g.dir);
    let origin = "arbiter-kit/m/game-1";
    // A short chain (128 slots, 25.6 s) beaten once a second for 5 minutes.
    let mut b = Beater::with_length(128);
    let utc0 = Utc::now();
    let sign = |t: &str| arbiter::record::sign::sign_authorization(&k, t).ok();
    let mut anchors = Vec::new();
    for s in 0..300u64 {
        let utc = utc0 + chrono::Duration::seconds(s as i64);
        let t = BeatTimes {
            boot_id: "boot",
            boottime_ms: 10_000 + s * 1000,
            mono_ms: s * 1000,
            utc: &utc,
        };
        let rec = b.record(origin, t, &sign).unwrap();
        let v = beat::verify(rec.as_bytes(), k.public_key(), origin)
            .unwrap_or_else(|e| panic!("beat {s}: {e}"));
        assert!(v.mono_ms <= s * 1000 && s * 1000 < v.mono_ms + SLOT_MS);
        let anchor = rec.lines().next().unwrap().to_string();
        if anchors.last() != Some(&anchor) {
            anchors.push(anchor);
        }
    }
    // 129 slots a chain (0…128): a new anchor every 25.8 s.
    assert_eq!(b.anchors as usize, anchors.len());
    assert!((11..=12).contains(&anchors.len()), "{}", anchors.len());
    // A machine restart (another boot id) starts a new chain too.
    let utc = Utc::now();
    let t = BeatTimes {
        boot_id: "another boot",
        boottime_ms: 5,
        mono_ms: 400_000,
        utc: &utc,
    };
    b.record(origin, t, &sign).unwrap();
    assert_eq!(b.anchors as usize, anchors.len() + 1);
    // Flat memory: the default chain keeps every 128th value and one segment.
    let mut big = Beater::default();
    for s in 0..3_000u64 {
        let t = BeatTimes {
            boot_id: "boot",
            boottime_ms: s * 500,
            mono_ms: s * 500,
            utc: &utc,
        };
        big.record(origin, t, &sign).unwrap();
        let stored = big.chain().unwrap().stored();
        let most = arbiter::board::matchdir::beat::CHAIN_LENGTH / 128 + 1 + 127;
        assert!(stored as u64 <= most, "{stored} values held");
    }
    assert_eq!(big.anchors, 1);
}

#[test]
fn clause_8b_heartbeat_removed_or_replaced_while_running_is_written_again_and_said() {
    let g = running();
    let path = beat_path(&g.dir);
    let public = key(&g.dir).public_key().clone();
    let mut o = open(&g.dir);
    // The game time runs with the boot clock, as on the board.
    let (t0, since) = (o.now_ms, std::time::Instant::now());
    let now = || t0 + since.elapsed().as_millis() as u64;
    assert_eq!(o.session.storage.heartbeat(now(), Utc::now()), None);
    let (anchor, _) = lines(&g.dir);
    let origin = serde_json::from_str::<Value>(&anchor).unwrap()["origin"]
        .as_str()
        .unwrap()
        .to_string();
    let authentic = || beat::verify(&std::fs::read(&path).unwrap(), &public, &origin);
    // The game folder's watch tells the beat, from its own thread, that the name changed: the
    // next beats are polled for what they say (generous deadline, no fixed sleep).
    let said_next = |o: &mut Opened| -> String {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            if let Some(s) = o.session.storage.heartbeat(now(), Utc::now()) {
                return s;
            }
            assert!(std::time::Instant::now() < until, "nothing said");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    };

    // Removed: the next beat writes it again and says so, once.
    std::fs::remove_file(&path).unwrap();
    let said = said_next(&mut o);
    assert!(
        said.contains("game-1/heartbeat") && said.contains("REMOVED"),
        "{said}"
    );
    authentic().unwrap();
    assert_eq!(o.session.storage.heartbeat(now(), Utc::now()), None);

    // Replaced by another file (renamed over it): written again over the replacement.
    let other = g.dir.join("game-1").join("forged");
    std::fs::write(
        &other,
        "{\"mono_ms\":1,\"utc\":\"2099-01-01T00:00:00.000Z\"}\n",
    )
    .unwrap();
    std::fs::rename(&other, &path).unwrap();
    let said = said_next(&mut o);
    assert!(said.contains("REPLACED"), "{said}");
    authentic().unwrap();
    assert_eq!(o.session.storage.heartbeat(now(), Utc::now()), None);

    // Replaced by a hard link to the log: never written through; said once; the log intact.
    let log = arbiter::record::layout::log_path(&g.dir, 1);
    let before = std::fs::read(&log).unwrap();
    std::fs::remove_file(&path).unwrap();
    std::fs::hard_link(&log, &path).unwrap();
    let said = said_next(&mut o);
    assert!(said.contains("hard link"), "{said}");
    assert_eq!(o.session.storage.heartbeat(now(), Utc::now()), None);
    assert_eq!(std::fs::read(&log).unwrap(), before, "the log is untouched");
    // The link removed: the beat is back, and the arbiter told so.
    std::fs::remove_file(&path).unwrap();
    let said = said_next(&mut o);
    assert!(said.contains("written again"), "{said}");
    authentic().unwrap();
}

/// Through the Board UI in a real terminal: the heartbeat removed while White's clock runs is
/// back within a beat, and the message line says so.
#[test]
fn pty_clause_8b_heartbeat_removed_while_the_board_runs_is_shown() {
    use crate::pty::{DEADLINE, Tmux, demo_match, repo_dir, tmux_available};
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let (dir, args) = demo_match();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let t = Tmux::start("beat", &args, &repo_dir(), 100, 30);
    t.wait_for("PRE-GAME", DEADLINE);
    t.keys(&["Space"]);
    t.wait_for("RUNNING", DEADLINE);
    let path = arbiter::record::layout::heartbeat_path(&dir.path().join("logs").join("demo"), 1);
    let until = std::time::Instant::now() + DEADLINE;
    while !path.exists() {
        assert!(std::time::Instant::now() < until, "no heartbeat written");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::fs::remove_file(&path).unwrap();
    t.wait_for_all(&["HEARTBEAT", "REMOVED"], DEADLINE);
    assert!(path.exists(), "written again");
}

/// The idle board asks nothing of the folder each second. The game folder's watch
/// (inotify, its own sleeping thread) tells the status when the checkpoints folder changed (a
/// camp's countersignature), and the beat when its name changed.
#[test]
fn clause_8b_heartbeat_watch_sees_the_checkpoints_folder_change() {
    let g = running();
    let mut o = open(&g.dir);
    assert_eq!(
        o.session.storage.outside_changes(),
        None,
        "nothing watched yet"
    );
    assert_eq!(o.session.storage.heartbeat(o.now_ms, Utc::now()), None);
    let first = o.session.storage.outside_changes().expect("watched");
    let cp = g.dir.join("game-1").join("checkpoints");
    std::fs::create_dir_all(&cp).unwrap();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let wait_past = |n: u64| loop {
        let now = o.session.storage.outside_changes().unwrap();
        if now > n {
            return now;
        }
        assert!(std::time::Instant::now() < until, "no change seen");
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    // Made (if the script signed no checkpoint) or not, a file added to it is seen.
    std::fs::write(cp.join("99.camp-x.sig"), "x").unwrap();
    let written = wait_past(first);
    std::fs::remove_file(cp.join("99.camp-x.sig")).unwrap();
    wait_past(written);
}

/// After a restart of the machine the boot clock cannot measure the outage, but it bounds it:
/// the kit was down at least as long as the machine has been up since. A wall clock set back
/// across the restart (an 8:37 outage read as 5:37) is shown with both readings at the reopen,
/// and the ruling's entry records both readings, which `status` and the report then show.
#[test]
fn crash_gap_with_the_wall_clock_set_back_is_shown() {
    let g = running();
    one_beat(&g.dir);
    let (anchor, _) = lines(&g.dir);
    let a: Value = serde_json::from_str(&anchor).unwrap();
    let origin = a["origin"].as_str().unwrap().to_string();
    let o = open(&g.dir);
    let mono = o.now_ms;
    drop(o);
    // This machine has been up `up` since it started; the wall clock reads less than that
    // since the last beat, which another boot of the machine wrote.
    let (_, up) = arbiter::board::matchdir::boot_clock();
    let wall = (5 * 60 + 37) * 1000_u64;
    let wall = if up > 2 * wall { wall } else { up / 2 };
    assert!(up > wall + 2_000, "the machine is up {up} ms");
    let utc = arbiter::log::format_utc(&(Utc::now() - chrono::Duration::milliseconds(wall as i64)));
    let boot_id = "00000000-0000-0000-0000-000000000000";
    let text = arbiter::board::matchdir::heartbeat_text(&origin, mono, &utc, boot_id, 5_000);
    let sig = arbiter::record::sign::sign_authorization(&key(&g.dir), &text).unwrap();
    let v1 = format!(
        "{{\"boot_id\":\"{boot_id}\",\"boottime_ms\":5000,\"mono_ms\":{mono},\"sig\":\"{sig}\",\"utc\":\"{utc}\"}}"
    );
    std::fs::write(beat_path(&g.dir), format!("{v1:<255}\n")).unwrap();
    let mut o = open(&g.dir);
    let n = o.notice.clone().unwrap_or_default();
    let shown = arbiter::core::timefmt::clock(wall as i64);
    assert!(
        n.contains("WALL CLOCK was set BACK across the restart")
            && n.contains(&format!("reads {shown} since the last heartbeat"))
            && n.contains("since it restarted (boot clock)"),
        "{n}"
    );
    // The gap stays the wall clock's (the running clock was advanced by it); the arbiter rules
    // with both readings in sight, and the ruling records them.
    assert!(o.session.restart_gap.is_some());
    let cmd = arbiter::core::command::parse("arbiter restart-gap waive the power went").unwrap();
    let at = o.now_ms;
    o.session.execute(&cmd, at).unwrap();
    drop(o);
    let log = std::fs::read_to_string(g.dir.join("game-1/log.jsonl")).unwrap();
    let entry: Value = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["kind"] == "restart_gap")
        .unwrap();
    let recorded = entry["body"]["wall_clock"].as_str().unwrap_or_default();
    assert!(
        recorded.contains("set BACK") && recorded.contains(&shown),
        "{entry}"
    );
    let dir = g.dir.to_str().unwrap();
    let status = crate::realgame::arbiter(&["status", "--match", dir, "--game", "1"]);
    let said = String::from_utf8_lossy(&status.stdout).into_owned();
    assert!(said.contains("WALL CLOCK was set BACK"), "{said}");
    let md = g.dir.parent().unwrap().join("report.md");
    crate::realgame::ok(&crate::realgame::arbiter(&[
        "report",
        "--match",
        dir,
        "--game",
        "1",
        "--markdown",
        "--out",
        md.to_str().unwrap(),
    ]));
    let report = std::fs::read_to_string(&md).unwrap();
    let flat = report.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("WALL CLOCK was set BACK"), "{report}");
}
