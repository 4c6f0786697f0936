//! What a camp's witness disputes reaches the arbiter at once: each alarm it raises (an entry the
//! rules refuse, a conflicting history, an outage its clock does not allow, an interval of the
//! match policy left unsigned) goes to the live record as an `alarm` frame, as it is raised and
//! again after each reconnection; `arbiter live` says it, the board shows it red on the camp's
//! witness line, and nothing of it is recorded in the match folder. Under a policy with
//! `witness <camp> every <N>`, the witness raises the interval alarm itself when more than N
//! entries arrive past the last checkpoint the record sent.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use tungstenite::Message;

use crate::witness_clock::{CAUGHT_UP, JUMP_MS, camps, first_session, reopen_and_rule};
use crate::witness_live::{
    Proc, append_forged, cosig, files, free_addr, live, match_with_camps, until, witness,
};
use crate::witness_policy::{LIVE, quick, rules_with};

const RULES: &str = "rules/kasparov-deep-junior-2003.toml";

/// A +10:00 clock correction for the machine, as its body.
fn ten_minutes(from: i64) -> serde_json::Value {
    serde_json::json!({"delta_ms": 600_000, "from_ms": from, "how": "delta",
        "reason": "its clock ran on", "side": "black", "to_ms": from + 600_000})
}

/// quick.arb with the camps declared, played into `m` under the 2003 profile (`extra` appended
/// when given); the entries recorded.
fn played(tmp: &Path, m: &Path, declared: &str, extra: Option<&str>) -> u64 {
    let rules = match extra {
        Some(e) => rules_with(tmp, e),
        None => Path::new(RULES).to_path_buf(),
    };
    let o = quick(tmp, m, declared, &rules, "");
    assert!(o.status.success(), "{}", crate::witness_live::text(&o));
    std::fs::read_to_string(m.join("game-1/log.jsonl"))
        .unwrap()
        .lines()
        .count() as u64
}

/// Append an entry to game 1's log as raw bytes chained after its last line (the board holds
/// the log's lock: what anyone who can write the file can still do); its number.
fn append_behind(m: &Path, actor: &str, clause: &str, kind: &str, body: serde_json::Value) -> u64 {
    let path = m.join("game-1/log.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let last = text.lines().last().unwrap();
    let e = arbiter::log::parse_line(last.as_bytes(), 0).unwrap();
    let seq = e.seq + 1;
    let mut line = arbiter::log::encode_line(
        seq,
        &arbiter::log::entry_hash(last.as_bytes()),
        &arbiter::log::NewEntry {
            mono_ms: e.mono_ms + 1_000,
            utc: chrono::Utc::now(),
            actor: actor.into(),
            clause: clause.into(),
            kind: kind.into(),
            body,
        },
    );
    line.push(b'\n');
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(&line).unwrap();
    f.sync_all().unwrap();
    seq
}

/// What `arbiter live` says of an alarm its witness sent.
fn said_at_the_record(camp: &str, kind: &str, seq: u64) -> String {
    format!("ALARM from camp {camp}'s witness ({kind}): game 1 #{seq}: ")
}

/// The alarms kept in a camp's copy, as JSON objects.
fn kept(copy: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(copy.join("game-1/alarms"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Watch `p` for `window`, failing at once if `needle` appears (the witness raises the interval
/// alarm three to four seconds after the entry that went past).
fn never_within(p: &Proc, needle: &str, window: Duration) {
    let end = Instant::now() + window;
    while Instant::now() < end {
        assert!(!p.text().contains(needle), "{}", p.text());
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The operator writes a +10:00 correction for the machine into a game the camp's witness
/// follows (the arbiter's alone under 5b): the witness refuses it as it arrives and the live
/// record says so at once, naming the camp, the entry and the clause it breaks; the match folder
/// holds nothing more than the forged line (the evidence is the camp's, in its copy).
#[test]
fn witness_alarm_a_refused_entry_reaches_the_live_record_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(tmp.path());
    let (record, url) = live(&m);
    let (camp, key) = &camps[0];
    let copy = tmp.path().join("copy");
    let w = witness(&url, &m, camp, key, &copy);
    let n = played(tmp.path(), &m, &declared, None);
    until("the camp's cosignature of the game", || {
        cosig(&m, n, camp).exists()
    });
    assert!(!record.text().contains("ALARM"), "{}", record.text());
    let before = files(&m);
    let forged = append_forged(
        &m,
        "operator",
        "7e",
        "clock_corrected",
        ten_minutes(6_790_000),
    );
    record.wait_for(
        "the alarm at the live record",
        &format!(
            "{}game 1 entry #{forged} operator clock_corrected (clause 7e) refused under clause 5b: BAD_ACTOR",
            said_at_the_record(camp, "refused-entry", forged)
        ),
    );
    w.wait_for("the camp's own alarm", "ALARM: game 1 entry #");
    assert_eq!(files(&m), before, "the live record recorded nothing");
    let k = kept(&copy);
    assert_eq!(k.len(), 1, "{k:?}");
    assert_eq!(k[0]["kind"], "refused-entry");
    assert_eq!(k[0]["seq"], forged);
    assert!(
        k[0]["summary"]
            .as_str()
            .unwrap()
            .starts_with("operator clock_corrected refused under clause 5b: BAD_ACTOR"),
        "{k:?}"
    );
}

/// The board serving the live record (`play --listen`) shows a camp's alarm red on that camp's
/// witness line, with the entry, and the game goes on.
#[test]
fn witness_alarm_shows_on_the_boards_witness_line() {
    if !crate::pty::tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(tmp.path());
    let decl = tmp.path().join("declarations.arb");
    let camp_lines: String = declared
        .lines()
        .map(|l| format!("{}\n", l.trim_start_matches('0').trim_start()))
        .collect();
    std::fs::write(
        &decl,
        format!("{}{camp_lines}", arbiter::board::tui::DEMO_DECLARATIONS),
    )
    .unwrap();
    let addr = free_addr();
    let rules = crate::pty::repo_dir().join(RULES);
    let (board, d) =
        crate::witness_live::board_listening("alarm-board", &m, &rules, &decl, &addr, 200);
    let (camp, key) = &camps[0];
    let w = witness(
        &format!("ws://{addr}/live"),
        &m,
        camp,
        key,
        &tmp.path().join("copy"),
    );
    board.wait_for("kasparov ✓ connected", d);
    w.wait_for("the witness caught up", CAUGHT_UP);
    let forged = append_behind(&m, "operator", "7e", "clock_corrected", ten_minutes(0));
    board.wait_for(
        &format!("kasparov ALARM #{forged}: operator clock_corrected refused under clause 5b"),
        d,
    );
    // The alarm is short enough to leave the other camp on the line.
    assert!(
        board.screen().contains("(connected, ") && board.screen().contains("junior not connected"),
        "{}",
        board.screen()
    );
}

/// The outage of the reboot with the laptop's wall clock moved forward (the witness's clock saw
/// seconds, the ruling claims 1 h 08 min): the alarm reaches the live record as the ruling
/// arrives, and its short form is what the record claims against what the camp's clock saw.
#[test]
fn witness_alarm_an_outage_beyond_the_witnesss_clock_reaches_the_live_record() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, keys, declared) = match_with_camps(tmp.path());
    let camps = camps(tmp.path(), keys);
    let (record, url) = live(&m);
    let w = camps[0].witness(&url, &m);
    w.wait_for("the witness to catch up", CAUGHT_UP);
    let n = first_session(&m, &declared, JUMP_MS);
    w.wait_for(
        "the last entry before the crash",
        &format!("game 1 #{} ", n - 1),
    );
    let (_, _, ruling, _) = reopen_and_rule(&m, None);
    record.wait_for(
        "the outage alarm at the live record",
        &format!(
            "{}game 1 entry #{ruling} restart_gap claims an outage of 1:08:",
            said_at_the_record(&camps[0].name, "outage", ruling)
        ),
    );
    let k = kept(&camps[0].copy);
    let outage = k.iter().find(|a| a["kind"] == "outage").unwrap();
    assert_eq!(outage["seq"], ruling);
    let summary = outage["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("restart_gap claims 1:08:")
            && summary.contains(", its clock saw 0:00:"),
        "{summary}"
    );
}

/// A live record that sends the game, a forged entry in it, and goes away without reading what
/// the witness answers: the alarm the witness raised then was lost with the link. When the live
/// record is back on the same address, the witness sends it again and the arbiter sees it.
#[test]
fn witness_alarm_raised_while_the_link_was_down_arrives_after_the_reconnection() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(tmp.path());
    played(tmp.path(), &m, &declared, None);
    let forged = append_forged(
        &m,
        "operator",
        "7e",
        "clock_corrected",
        ten_minutes(6_790_000),
    );
    // A live record that speaks, sends the whole game, and leaves without reading a frame more.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let folder = m.clone();
    let gone = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut ws = tungstenite::accept(stream).unwrap();
        let _hello = ws.read().unwrap();
        let frames = [
            serde_json::json!({"type": "hello", "protocol": "arbiter-kit-live/1"}),
            serde_json::json!({"type": "policy",
                "text": std::fs::read_to_string(folder.join("policy.txt")).unwrap(),
                "signature": std::fs::read_to_string(folder.join("policy.txt.sig")).unwrap()}),
        ];
        for f in frames {
            ws.send(Message::text(f.to_string())).unwrap();
        }
        let log = std::fs::read_to_string(folder.join("game-1/log.jsonl")).unwrap();
        for (seq, line) in log.lines().enumerate() {
            let f = serde_json::json!({"type": "entry", "game": 1, "seq": seq, "line": line});
            ws.send(Message::text(f.to_string())).unwrap();
        }
        ws.flush().unwrap();
        // Gone: the listener and the connection closed, nothing read.
        drop(listener);
        let _ = ws.get_mut().shutdown(std::net::Shutdown::Both);
    });
    let (camp, key) = &camps[0];
    let copy = tmp.path().join("copy");
    let w = witness(&format!("ws://{addr}/live"), &m, camp, key, &copy);
    gone.join().unwrap();
    w.wait_for(
        "the alarm raised on the lost link",
        &format!("ALARM: game 1 entry #{forged} operator clock_corrected"),
    );
    w.wait_for("the link lost", "connecting again");
    // The live record back on the same address.
    let record = Proc::spawn(&["live", "--match", m.to_str().unwrap(), "--listen", &addr]);
    record.wait_for("the live record to listen", "listening on ws://");
    record.wait_for(
        "the alarm sent again after the reconnection",
        &format!(
            "{}game 1 entry #{forged} operator clock_corrected (clause 7e) refused under clause 5b: BAD_ACTOR",
            said_at_the_record(camp, "refused-entry", forged)
        ),
    );
    assert_eq!(kept(&copy).len(), 1, "raised once: {:?}", kept(&copy));
}

/// An `alarm` frame is a camp's witness's alone: a read-only follower's, one for another camp
/// than the connection's hello, one whose text holds a control character or is too long, or one
/// with a member more, is refused, said, and shown nowhere; the camp's own is taken, said once
/// however often it is sent, and the match folder stays byte for byte as it was.
#[test]
fn witness_alarm_frames_from_a_follower_or_another_camp_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, _, declared) = match_with_camps(tmp.path());
    played(tmp.path(), &m, &declared, None);
    let before = crate::witness_policy::contents(&m);
    let (record, url) = live(&m);
    let host = url
        .strip_prefix("ws://")
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    let connect = |first: serde_json::Value| {
        let stream = std::net::TcpStream::connect(host).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let (mut ws, _) = tungstenite::client::client(url.as_str(), stream).unwrap();
        ws.send(Message::text(first.to_string())).unwrap();
        let Message::Text(t) = ws.read().unwrap() else {
            panic!("not a text frame")
        };
        let v: serde_json::Value = serde_json::from_str(t.as_str()).unwrap();
        assert_eq!(v["type"], "hello", "{v}");
        ws
    };
    // The answer to a frame: the first `refused` frame (entries and notes stream meanwhile), or
    // none within the witness's quiet second.
    let refusal = |ws: &mut tungstenite::WebSocket<std::net::TcpStream>, f: serde_json::Value| {
        ws.send(Message::text(f.to_string())).unwrap();
        ws.get_ref()
            .set_read_timeout(Some(Duration::from_millis(1500)))
            .unwrap();
        loop {
            match ws.read() {
                Ok(Message::Text(t)) => {
                    let v: serde_json::Value = serde_json::from_str(t.as_str()).unwrap();
                    if v["type"] == "refused" {
                        return Some(v["reason"].as_str().unwrap().to_owned());
                    }
                }
                Ok(_) => {}
                Err(_) => return None,
            }
        }
    };
    let alarm = |camp: &str, text: &str| {
        serde_json::json!({"type": "alarm", "game": 1, "seq": 5, "camp": camp,
            "kind": "refused-entry", "summary": "a forged entry", "text": text})
    };
    let mut follower =
        connect(serde_json::json!({"type": "follow", "protocol": "arbiter-kit-live/1"}));
    let why = refusal(&mut follower, alarm("kasparov", "from a follower")).unwrap();
    assert!(
        why.contains("an alarm from a read-only follower: only a camp's witness raises one"),
        "{why}"
    );
    let mut junior = connect(
        serde_json::json!({"type": "hello", "protocol": "arbiter-kit-live/1", "camp": "junior"}),
    );
    let why = refusal(&mut junior, alarm("kasparov", "another camp's")).unwrap();
    assert!(
        why.contains("an alarm for camp \"kasparov\" on a connection that said hello as junior"),
        "{why}"
    );
    let why = refusal(&mut junior, alarm("junior", "an ESC \u{1b}[2J in it")).unwrap();
    assert!(
        why.contains("the alarm's text holds the control character U+001B"),
        "{why}"
    );
    let why = refusal(&mut junior, alarm("junior", &"x".repeat(601))).unwrap();
    assert!(
        why.contains("the alarm's text is 601 characters long, more than 600"),
        "{why}"
    );
    let mut more = alarm("junior", "one member more");
    more["board"] = serde_json::json!("red");
    let why = refusal(&mut junior, more).unwrap();
    assert!(why.contains("unknown field `board`"), "{why}");
    let mut unknown = alarm("junior", "an unknown kind");
    unknown["kind"] = serde_json::json!("panic");
    assert!(refusal(&mut junior, unknown).is_some());
    // The camp's own: taken (no refusal) and said once, however often it comes.
    for _ in 0..2 {
        assert_eq!(
            refusal(&mut junior, alarm("junior", "game 1 entry #5 was forged")),
            None
        );
    }
    record.wait_for(
        "the camp's own alarm",
        "ALARM from camp junior's witness (refused-entry): game 1 #5: game 1 entry #5 was forged",
    );
    let said = record.text();
    assert_eq!(said.matches("ALARM from camp").count(), 1, "{said}");
    for refused in [
        "from a follower",
        "another camp's",
        "ESC",
        "one member more",
        "unknown kind",
    ] {
        assert!(
            !said.contains(&format!("witness (refused-entry): game 1 #5: {refused}")),
            "{said}"
        );
    }
    drop(follower);
    drop(junior);
    drop(record);
    assert_eq!(
        crate::witness_policy::contents(&m),
        before,
        "nothing recorded"
    );
}

/// Under the policy's `witness <camp> every 4`, entries written past the kit's last checkpoint
/// behind its back: four are within the interval (no alarm); the fifth, with no checkpoint over
/// it, is the interval alarm, once, naming the entries, at the witness and at the live record.
#[test]
fn witness_alarm_interval_fires_when_the_checkpoints_stop() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(tmp.path());
    let (record, url) = live(&m);
    let (camp, key) = &camps[0];
    let copy = tmp.path().join("copy");
    let w = witness(&url, &m, camp, key, &copy);
    // Caught up first: each entry of the game is taken as it is written, before the checkpoint
    // signed right after it comes; none of the kit's own intervals is an alarm.
    w.wait_for("the witness to catch up", CAUGHT_UP);
    let n = played(tmp.path(), &m, &declared, Some(LIVE));
    until("the camp's cosignature of the game", || {
        cosig(&m, n, camp).exists()
    });
    let note = |i: u64| serde_json::json!({"text": format!("n{i}")});
    for i in 0..4 {
        append_forged(&m, "supervisor", "5b", "work_note", note(i));
    }
    w.wait_for(
        "the fourth entry past the checkpoint",
        &format!("game 1 #{} ", n + 3),
    );
    never_within(&w, "ALARM", Duration::from_millis(5_000));
    let fifth = append_forged(&m, "supervisor", "5b", "work_note", note(4));
    let alarm = format!(
        "ALARM: game 1: 5 entries (#{n}..#{fifth}) arrived past checkpoint {n}, the last the live record sent, and no checkpoint over them: the match policy has the kit sign one every 4 entries for camp {camp} to cosign live"
    );
    w.wait_for("the interval alarm", &alarm);
    record.wait_for(
        "the interval alarm at the live record",
        &format!(
            "{}game 1: 5 entries (#{n}..#{fifth})",
            said_at_the_record(camp, "interval", n + 4)
        ),
    );
    // Once per stretch: a sixth entry raises no other.
    let sixth = append_forged(&m, "supervisor", "5b", "work_note", note(5));
    w.wait_for("the sixth entry", &format!("game 1 #{sixth} "));
    never_within(&w, "6 entries", Duration::from_millis(5_000));
    assert_eq!(
        w.text().matches("arbiter witness: ALARM").count(),
        1,
        "{}",
        w.text()
    );
    let k = kept(&copy);
    assert_eq!(k.len(), 1, "{k:?}");
    assert_eq!(k[0]["kind"], "interval");
    assert_eq!(
        k[0]["summary"],
        format!("5 entries #{n}..#{fifth} past checkpoint {n}, none signed (every 4)")
    );
}

/// The same entries past the last checkpoint in a match whose policy has no `witness` line: the
/// kit is asked to sign at no interval, and the witness raises no interval alarm (an entry the
/// rules refuse, written after them, is still the one alarm the live record says).
#[test]
fn witness_alarm_no_interval_alarm_without_the_policy_line() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, camps, declared) = match_with_camps(tmp.path());
    let (record, url) = live(&m);
    let (camp, key) = &camps[0];
    let w = witness(&url, &m, camp, key, &tmp.path().join("copy"));
    let n = played(tmp.path(), &m, &declared, None);
    until("the camp's cosignature of the game", || {
        cosig(&m, n, camp).exists()
    });
    let policy = std::fs::read_to_string(m.join("policy.txt")).unwrap();
    assert!(!policy.contains("\nwitness "), "{policy}");
    let mut last = 0;
    for i in 0..10 {
        last = append_forged(
            &m,
            "supervisor",
            "5b",
            "work_note",
            serde_json::json!({"text": format!("n{i}")}),
        );
    }
    w.wait_for(
        "the tenth entry past the checkpoint",
        &format!("game 1 #{last} "),
    );
    never_within(&w, "ALARM", Duration::from_millis(5_000));
    assert!(!record.text().contains("ALARM"), "{}", record.text());
    // The witness still alarms: an entry the rules refuse reaches the record, alone.
    let forged = append_forged(
        &m,
        "operator",
        "7e",
        "clock_corrected",
        ten_minutes(6_790_000),
    );
    record.wait_for(
        "the refused entry's alarm",
        &said_at_the_record(camp, "refused-entry", forged),
    );
    assert_eq!(
        record.text().matches("ALARM").count(),
        1,
        "{}",
        record.text()
    );
}

/// `serve --record-listen` (plain lines, no screen): a camp's alarm is a line of the table
/// server's standard output, and the table goes on.
#[test]
fn witness_alarm_is_said_by_the_table_server() {
    let tmp = tempfile::tempdir().unwrap();
    let (p, mut ws) = crate::witness_live::served_table_with_a_camp(tmp.path());
    ws.send(Message::text(
        serde_json::json!({"type": "alarm", "game": 1, "seq": 7, "camp": "kasparov",
            "kind": "conflict", "summary": "entry 7 conflicted with the copy",
            "text": "CONFLICT: game 1 entry 7 differs from the entry the copy holds"})
        .to_string(),
    ))
    .unwrap();
    p.wait_for(
        "the table server to say the alarm",
        "live record: ALARM from camp kasparov's witness (conflict): game 1 #7: CONFLICT: game 1 entry 7 differs",
    );
    assert!(!p.text().contains("refused"), "{}", p.text());
}

/// `serve --record-listen` on a terminal: a camp's alarm is on the game master's screen.
#[test]
fn witness_alarm_is_on_the_game_masters_screen() {
    if !crate::pty::tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let record = free_addr();
    let serve = crate::pty::Tmux::start_shell(
        "alarm-gm-serve",
        &format!(
            "LANG=C.UTF-8 exec {{arbiter}} serve --match '{}' --rules '{}' --listen 127.0.0.1:0 --record-listen {record}",
            m.display(),
            crate::pty::repo_dir()
                .join("tests/fixtures/aiwolf/test-5.toml")
                .display()
        ),
        tmp.path(),
        160,
        40,
    );
    serve.wait_for("serving ws://", Duration::from_secs(20));
    let url = format!("ws://{record}/live");
    let stream = std::net::TcpStream::connect(&record).unwrap();
    let (mut ws, _) = tungstenite::client::client(url.as_str(), stream).unwrap();
    for f in [
        serde_json::json!({"type": "hello", "protocol": "arbiter-kit-live/1", "camp": "kasparov"}),
        serde_json::json!({"type": "alarm", "game": 1, "seq": 7, "camp": "kasparov",
            "kind": "conflict", "summary": "entry 7 conflicted with the copy",
            "text": "CONFLICT: game 1 entry 7 differs from the entry the copy holds"}),
    ] {
        ws.send(Message::text(f.to_string())).unwrap();
    }
    serve.wait_for(
        "kasparov ALARM game 1 #7: entry 7 conflicted with the copy",
        Duration::from_secs(20),
    );
}
