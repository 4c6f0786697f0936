//! The typed decoder of a log line (`log::codec::decode_line`, one serde pass, no
//! `serde_json::Value`) reads every line of the six games of Kasparov – Deep Junior 2003, entered
//! both ways (move-and-press, press-then-notation), as the `Value` path reads it
//! (`log::parse_line` then `codec::event_of`), and each line through the typed pass itself.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::core::Ms;
use arbiter::core::event::{Event, EventKind};
use arbiter::log::codec::{
    decode_canonical, decode_line, event_of, fixed_line, new_entry, typed_line,
};
use arbiter::log::{ZERO_HASH, encode_line, entry_hash, parse_line};

use crate::pgn_clocks::play_both;
use crate::pgn_real2003::{ending, real_game};

/// The log lines of `events`, chained, one second of UTC apart.
fn lines_of(events: &[Event]) -> Vec<Vec<u8>> {
    let mut prev = ZERO_HASH;
    let t0 = chrono::DateTime::from_timestamp_millis(1_043_593_200_000).unwrap();
    events
        .iter()
        .enumerate()
        .map(|(seq, ev)| {
            let utc = t0 + chrono::Duration::milliseconds(ev.at as i64);
            let line = encode_line(seq as u64, &prev, &new_entry(ev, utc));
            prev = entry_hash(&line);
            line
        })
        .collect()
}

#[test]
fn the_six_2003_games_logs_decode_typed_as_the_value_path_reads_them() {
    let mut lines_seen = 0usize;
    for n in 1..=6u32 {
        let g = real_game(n);
        let thinks: Vec<Ms> = (0..g.sans.len() as u64).map(|i| 5_000 + i * 97).collect();
        let delays: Vec<Ms> = (0..g.sans.len() as u64)
            .map(|i| (i * 7_919) % 200_000)
            .collect();
        let mut b = play_both(g.machine_white, &g.sans, &thinks, &delays);
        let t = b.direct.now.max(b.pressed.now);
        for line in ending(n, t) {
            b.direct.at(&line);
            b.pressed.at(&line);
        }
        for m in [&b.direct, &b.pressed] {
            assert!(m.game().outcome().is_some(), "game {n} ended");
            for (seq, line) in lines_of(&m.log).iter().enumerate() {
                let entry = parse_line(line, 0).unwrap();
                let by_value = event_of(&entry).unwrap();
                let typed = typed_line(line).unwrap_or_else(|e| panic!("game {n} #{seq}: {e}"));
                assert_eq!(typed.event, by_value, "game {n} #{seq}");
                assert_eq!(typed.event, m.log[seq], "game {n} #{seq}");
                assert_eq!((typed.seq, &*typed.prev), (entry.seq, entry.prev.as_str()));
                assert_eq!(&*typed.utc, entry.utc.as_str());
                assert_eq!(decode_line(line).unwrap(), typed);
                assert_eq!(decode_canonical(line).unwrap(), typed);
                fixed_as_serde(line, &format!("game {n} #{seq}"));
                lines_seen += 1;
            }
        }
    }
    // 399 plies in all, each a press and a move in one of the two entries.
    assert!(lines_seen > 1_000, "{lines_seen} lines");
}

/// A match of one game: the first `plies` moves of 2003's game 1, entered by `arbiter script`.
pub(crate) fn scripted_match(dir: &std::path::Path, plies: usize) -> std::path::PathBuf {
    let m = dir.join("m");
    crate::log_util::arbiter_key_in(&m);
    let g = real_game(1);
    let mut text = String::from(
        "0 arbiter declare white human Garry Kasparov\n0 arbiter declare black machine Deep Junior\n0 arbiter declare operator Amir Ban\n0 arbiter start\n",
    );
    for (i, san) in g.sans.iter().take(plies).enumerate() {
        text.push_str(&format!(
            "{} move {san}\n",
            crate::clauses::secs(10_000 * (i as u64 + 1))
        ));
        if i % 7 == 3 {
            text.push_str(&format!(
                "{} arbiter note \"a note, \\\"quoted\\\" é\"\n",
                crate::clauses::secs(10_000 * (i as u64 + 1) + 5)
            ));
        }
    }
    crate::log_util::script_into(&m, &dir.join("g.arb"), &text);
    m
}

/// `status` and `pgn` replay the game from the lines verify's one pass checked
/// (`matchdir::replay_verified`): the same game, events, first and last entries as reading the log
/// on its own (`matchdir::replay_log`), and the same verdict as `check_before_showing`.
#[test]
fn a_shown_game_is_replayed_from_the_lines_verify_checked() {
    use arbiter::board::matchdir::{replay_log, replay_verified};
    let tmp = tempfile::tempdir().unwrap();
    let m = scripted_match(tmp.path(), 40);
    let path = arbiter::record::layout::log_path(&m, 1);
    let mut alone = Vec::new();
    let r = replay_log(&path, |_, ev| alone.push(ev.clone())).unwrap();
    let (check, shown) = replay_verified(&m, 1, Vec::new, |v, ev| v.push(ev.clone()));
    let (s, events) = shown.unwrap();
    assert!(s.one_pass, "replayed from verify's pass");
    assert!(!r.one_pass);
    assert_eq!(events, alone);
    assert!(events.len() > 45, "{} events", events.len());
    assert_eq!(s.game.board().fen(), r.game.board().fen());
    assert_eq!(
        (s.entries, &s.first, &s.last),
        (r.entries, &r.first, &r.last)
    );
    let again = arbiter::record::witness::check_before_showing(&m, 1);
    assert_eq!((check.lines, check.failing), (again.lines, again.failing));
    assert_eq!(check.entries, Some(r.entries));
    assert_eq!(
        check.chain_head,
        Some(arbiter::log::hex32(&r.last.hash)),
        "verify's chain head is the replay's last entry"
    );
}

/// A log verify's pass cannot hand over whole (a crash's torn tail) is replayed apart,
/// and fails as before, with the crash named; nothing the pass gathered is shown.
#[test]
fn a_log_verify_reads_apart_is_replayed_apart() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let m = scripted_match(tmp.path(), 10);
    let path = arbiter::record::layout::log_path(&m, 1);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(b"{\"v\":1,\"seq\":").unwrap();
    drop(f);
    let (check, shown) = arbiter::board::matchdir::replay_verified(&m, 1, || (), |_, _| {});
    assert!(shown.is_err());
    assert!(check.failing.is_some(), "{:?}", check.lines);
    for cmd in ["status", "pgn"] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args([cmd, "--match"])
            .arg(&m)
            .args(["--game", "1"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(65), "{cmd}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("a crash left an incomplete last line"),
            "{cmd}: {err}"
        );
        assert!(o.stdout.is_empty(), "{cmd}");
    }
}

/// The log grows between the check and the replay that a read-only command shows.
/// Verify's pass is made to read it apart (a line appended while it streams), and another line
/// lands before the second read: that read finds entries the check never passed, so nothing is
/// shown — `MatchError::Changed`, which the commands turn into exit 70, "the log changed while it
/// was read".
#[test]
fn a_log_that_changes_between_the_check_and_the_replay_is_not_shown() {
    use arbiter::board::matchdir::{MatchError, replay_verified};
    use std::cell::Cell;
    let tmp = tempfile::tempdir().unwrap();
    let m = scripted_match(tmp.path(), 12);
    let path = arbiter::record::layout::log_path(&m, 1);
    let key = arbiter::record::sign::load_key(&m.join("keys/arbiter"), None).unwrap();
    let line0 = arbiter::record::journal::first_entry(&path).unwrap();
    let origin = arbiter::log::checkpoint::origin(line0.body["match_id"].as_str().unwrap(), 1);
    // One more entry, written as the kit writes one (appended, then the seal moved over it).
    let append = |text: &str| {
        let mut j = arbiter::record::journal::Journal::open(&path).unwrap();
        let last = j.last().unwrap().clone();
        j.append(arbiter::log::NewEntry {
            mono_ms: last.mono_ms,
            utc: chrono::Utc::now(),
            actor: "operator".into(),
            clause: "1".into(),
            kind: "note".into(),
            body: serde_json::json!({ "text": text }),
        })
        .unwrap();
        let seal = arbiter::log::seal::Seal {
            origin: origin.clone(),
            size: j.len(),
            chain: j.last().unwrap().hash,
            closed: true,
        };
        drop(j);
        crate::log_util::write_seal_v1(&m, 1, &key, &seal).unwrap();
    };
    let before = std::fs::read(&path).unwrap().len();
    let (grew, inits) = (Cell::new(false), Cell::new(0));
    let (check, shown) = replay_verified(
        &m,
        1,
        || {
            inits.set(inits.get() + 1);
            if inits.get() == 2 {
                append("written between the check and the replay");
            }
        },
        |(), _| {
            if !grew.replace(true) {
                append("written while verify's pass read the log");
            }
        },
    );
    assert!(grew.get() && inits.get() == 2, "the replay was made apart");
    assert!(check.failing.is_none(), "{:?}", check.lines);
    let Err(e @ MatchError::Changed { verified, read, .. }) = shown else {
        panic!("shown: {:?}", shown.map(|(r, ())| r.entries));
    };
    assert_eq!(read, verified + 1, "{e}");
    assert!(e.to_string().contains("changed while it was read"), "{e}");
    assert!(std::fs::read(&path).unwrap().len() > before);
    // The command's words and code for it.
    let err = arbiter::cli::replay_failure(&m, 1, e);
    assert_eq!(err.exit_code(), 70, "{err}");
    assert!(
        err.to_string().contains("changed while it was read"),
        "{err}"
    );
}

#[path = "../../benches/support/mod.rs"]
mod bench_support;

/// The kinds whose bodies `codec::fixed_line` reads at fixed shape.
const HOT: [&str; 8] = [
    "move_made",
    "internal_clock_reported",
    "note",
    "clock_stopped",
    "clock_resumed",
    "moves_taken_back",
    "clock_pressed",
    "clock_started",
];

/// The line's `kind`, as written.
fn kind_of(line: &[u8]) -> String {
    let v: serde_json::Value = serde_json::from_slice(line).unwrap();
    v["kind"].as_str().unwrap_or("").to_owned()
}

/// Where the fixed-shape body reader reads `line` its result is serde's
/// ([`decode_line`]), and [`decode_canonical`] gives serde's result whatever the line. Whether
/// the fixed reader read it.
fn fixed_as_serde(line: &[u8], what: &str) -> bool {
    let serde = decode_line(line);
    assert_eq!(decode_canonical(line), serde, "{what}");
    checked_as_serde(line, &serde, what);
    match fixed_line(line) {
        Some(f) => {
            assert_eq!(Ok(&f), serde.as_ref(), "{what}");
            true
        }
        None => false,
    }
}

/// Where verify's check reads `line` as canonical, the event decoded from what that
/// check read of the header (`decode_checked`, as the streamed pass decodes) is serde's.
fn checked_as_serde(
    line: &[u8],
    serde: &Result<arbiter::log::codec::LineEvent<'_>, arbiter::log::codec::DecodeError>,
    what: &str,
) {
    let mut ended = line.to_vec();
    ended.push(b'\n');
    if let Some(fused) = fused_as_plain(&ended, what) {
        assert_eq!(
            Ok(&*fused),
            serde.as_ref().map(|d| &d.event),
            "{what}: read in the check"
        );
    }
    let Some((facts, len)) = arbiter::log::fast::check_line(&ended) else {
        return;
    };
    assert_eq!(len, line.len(), "{what}");
    let Some(kind) = facts.kind_in(line) else {
        return;
    };
    let meta = arbiter::log::fast::LineMeta {
        kind: 0,
        actor: facts.actor,
        line: (0, len as u32),
        at: facts.at,
        clause: facts.clause.map(|(a, b)| (a as u32, b as u32)),
        body: facts.body as u32,
    };
    let checked = arbiter::log::codec::decode_checked(line, &meta, kind, None);
    assert_eq!(
        checked.as_ref().map(|e| &**e),
        serde.as_ref().map(|d| &d.event),
        "{what}: decoded from the checked header"
    );
    // Written over an event read before (a move with a FEN, a note, a take-back): the same.
    for before in reused_events() {
        let checked = arbiter::log::codec::decode_checked(line, &meta, kind, Some(before.into()));
        assert_eq!(
            checked.as_ref().map(|e| &**e),
            serde.as_ref().map(|d| &d.event),
            "{what}: decoded over an event read before"
        );
    }
}

/// `ended` (a line and its newline, or any bytes) checked with its body read into an
/// event in the check (`check_line_reading` with `decode_fused`, as the pass that decodes checks
/// each line) is accepted exactly when the check alone accepts it, with the same facts; the
/// event read there, if any (also written over each event of [`reused_events`]: the same).
fn fused_as_plain(ended: &[u8], what: &str) -> Option<std::sync::Arc<Event>> {
    use arbiter::log::codec::decode_fused;
    use arbiter::log::fast::{check_line, check_line_reading};
    let plain = check_line(ended);
    let mut read = None;
    let fused = check_line_reading(ended, |line, at| {
        let (e, end) = decode_fused(line, at, None)?;
        read = Some(e);
        Some(end)
    });
    assert_eq!(fused, plain, "{what}: the check with the body read differs");
    plain?;
    let read = read?;
    for before in reused_events() {
        let mut over = None;
        check_line_reading(ended, |line, at| {
            let (e, end) = decode_fused(line, at, Some(before.clone().into()))?;
            over = Some(e);
            Some(end)
        });
        assert_eq!(
            over.as_deref(),
            Some(&*read),
            "{what}: read over an event read before"
        );
    }
    Some(read)
}

/// Events whose memory a decoding may write over: every hot kind, with long strings.
fn reused_events() -> Vec<Event> {
    let long = "r4rk1/pp3p1p/6p1/q3Pb2/2B1n3/P1N1P2P/1P3PP1/2RQK2R b K - 0 16";
    let actor = arbiter::core::Actor::parse("operator").unwrap();
    let side = arbiter::core::Side::White;
    [
        EventKind::MoveMade {
            side,
            san: "Qxa4+".into(),
            uci: "a5a4".into(),
            spent_ms: 1,
            increment_ms: 2,
            remaining_ms: 3,
            fen: Some(long.into()),
            declines_draw: true,
            pressed_at: Some(4),
            byoyomi_periods_lost: Some(5),
            byoyomi_periods_left: Some(6),
        },
        EventKind::Note {
            text: long.repeat(3).into(),
        },
        EventKind::MovesTakenBack {
            plies: 2,
            removed: vec!["e4".into(), "e5".into()],
            reason: long.into(),
            fen: None,
        },
        EventKind::ClockStarted { side },
    ]
    .into_iter()
    .map(|kind| Event {
        at: 99,
        actor,
        clause: "a clause longer than twenty-four bytes".into(),
        kind,
    })
    .collect()
}

/// Every line of `lines` read by the fixed reader as serde reads it; each line of a hot kind in
/// the kit's own form (no escape anywhere) read by it. The lines read, by kind.
fn check_lines(
    lines: &[Vec<u8>],
    what: &str,
    read: &mut std::collections::BTreeMap<String, usize>,
) {
    for (i, line) in lines.iter().enumerate() {
        let kind = kind_of(line);
        let fixed = fixed_as_serde(line, &format!("{what} #{i}"));
        let hot = HOT.contains(&kind.as_str());
        assert!(
            fixed || !hot || line.contains(&b'\\'),
            "{what} #{i}: not read at fixed shape"
        );
        assert!(hot || !fixed, "{what} #{i}: {kind} read at fixed shape");
        if fixed {
            *read.entry(kind).or_default() += 1;
        }
    }
}

/// Every line of every log under `tests/fixtures` and of a generated game (the
/// benchmarks' `game_events`: moves, internal-clock reports, notes, stops, take-backs, resumes)
/// is read by the fixed-shape body reader as serde reads it, and every line of a hot kind as the
/// kit writes it is read by it.
#[test]
fn the_fixed_shape_body_reader_reads_fixtures_and_a_generated_game_as_serde() {
    let mut read = std::collections::BTreeMap::new();
    let mut logs = Vec::new();
    let mut dirs = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.file_name().is_some_and(|n| n == "log.jsonl") {
                logs.push(p);
            }
        }
    }
    assert!(logs.len() >= 7, "{logs:?}");
    for p in &logs {
        let text = std::fs::read(p).unwrap();
        let lines: Vec<Vec<u8>> = text
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(<[u8]>::to_vec)
            .collect();
        check_lines(&lines, &p.display().to_string(), &mut read);
    }
    let events = bench_support::game_events(2_500, 10);
    let lines = lines_of(&events);
    check_lines(&lines, "generated", &mut read);
    for (line, ev) in lines.iter().zip(&events) {
        if let Some(f) = fixed_line(line) {
            assert_eq!(&f.event, ev);
        }
    }
    for kind in [
        "move_made",
        "internal_clock_reported",
        "note",
        "clock_stopped",
        "clock_resumed",
        "moves_taken_back",
        "clock_started",
    ] {
        assert!(
            read.get(kind).is_some_and(|&n| n > 0),
            "{kind} never read: {read:?}"
        );
    }
}

/// A line of `kind` with `body` (as the kit writes it), whose header is canonical.
fn line_with_body(kind: &str, body: &str) -> Vec<u8> {
    let ev = Event::new(
        5_000,
        arbiter::core::Actor::parse("arbiter").unwrap(),
        "6d",
        EventKind::Note { text: "x".into() },
    );
    let line = String::from_utf8(lines_of(&[ev]).remove(0)).unwrap();
    line.replace(
        r#""kind":"note","body":{"text":"x"}}"#,
        &format!(r#""kind":"{kind}","body":{body}}}"#),
    )
    .into_bytes()
}

/// A body of each hot kind in the kit's own form (optional fields present and absent, a
/// negative number, a letter beyond ASCII, an empty list).
fn canonical_bodies() -> Vec<(&'static str, &'static str)> {
    [
    (
        "move_made",
        r#"{"declines_draw":false,"fen":"8/8/8/8/8/8/8/K6k w - - 0 1","increment_ms":0,"remaining_ms":7199990,"san":"d4","side":"white","spent_ms":10,"uci":"d2d4"}"#,
    ),
    (
        "move_made",
        r#"{"byoyomi_periods_left":2,"byoyomi_periods_lost":1,"declines_draw":true,"fen":null,"increment_ms":5,"pressed_at":77,"remaining_ms":-3,"san":"P-7f","side":"black","spent_ms":10,"uci":"7g7f"}"#,
    ),
    (
        "clock_pressed",
        r#"{"byoyomi_periods_left":1,"increment_ms":0,"remaining_ms":5,"side":"black","spent_ms":9}"#,
    ),
    (
        "internal_clock_reported",
        r#"{"correction_owed":true,"diff_ms":-130000,"game_clock_ms":5000,"reading_ms":4000,"threshold_ms":120000}"#,
    ),
    (
        "moves_taken_back",
        r#"{"fen":null,"plies":2,"reason":"r","removed":["e4","e5"]}"#,
    ),
    (
        "moves_taken_back",
        r#"{"fen":"f","plies":0,"reason":"r","removed":[]}"#,
    ),
    ("note", r#"{"text":"a note é"}"#),
    ("clock_stopped", r#"{"reason":"r"}"#),
    ("clock_resumed", r#"{"side":"black"}"#),
    ("clock_started", r#"{"side":"white"}"#),
]
    .to_vec()
}

/// Every single-byte change, deletion and insertion of a line of each hot kind is
/// accepted by the check that reads its body into an event exactly when the check alone accepts
/// it, with the same facts, and the event read there is serde's (`fused_as_plain`).
#[test]
fn a_body_read_in_the_check_is_a_body_the_check_accepts() {
    let alphabet = b"\"\\{}[],:.-+0129aefnrtuzEZT \t\n\r\x00\x01\x7f\xc3\xa9\xff";
    let mut read = 0usize;
    let mut seen = 0usize;
    for (kind, body) in canonical_bodies() {
        let line = line_with_body(kind, body);
        let start = line.len() - body.len() - 1;
        let mut check = |cand: Vec<u8>| {
            let mut ended = cand.clone();
            ended.push(b'\n');
            seen += 1;
            if let Some(e) = fused_as_plain(&ended, &String::from_utf8_lossy(&cand)) {
                read += 1;
                assert_eq!(Ok(&*e), decode_line(&cand).as_ref().map(|d| &d.event));
            }
        };
        // The body's bytes and the line's closing brace (the header is the check's alone).
        for i in start..line.len() {
            let mut del = line.clone();
            del.remove(i);
            check(del);
            for &c in alphabet {
                let mut sub = line.clone();
                sub[i] = c;
                check(sub);
                let mut ins = line.clone();
                ins.insert(i, c);
                check(ins);
            }
        }
    }
    assert!(
        seen > 50_000 && read > 1_000,
        "{seen} checked, {read} read in the check"
    );
}

/// Bodies in any shape but the kit's (keys reordered, an extra key, whitespace, a
/// leading zero, an escaped string, a sign or a null where the reader reads none, numbers out of
/// range, a field missing) are not read at fixed shape, and give exactly serde's result, event
/// or error.
#[test]
fn bodies_in_other_shapes_give_serdes_result() {
    let canonical = canonical_bodies();
    let mut oks = 0;
    let mut errs = 0;
    let mut edge_reads = 0;
    for (kind, body) in canonical {
        let line = line_with_body(kind, body);
        assert!(
            fixed_as_serde(&line, body),
            "{kind} {body}: not read at fixed shape"
        );
        let first = &body[1..body.find(',').unwrap_or(body.len() - 1)];
        let (k0, v0) = first.split_once(':').unwrap();
        // The first field left out or null (the kit's form where the field is optional or a fen;
        // serde's error otherwise): read at fixed shape or not, serde's result.
        let mut edges = vec![
            body.replacen(first, "", 1).replacen("{,", "{", 1),
            body.replacen(first, &format!("{k0}:null"), 1),
        ];
        let mut odd = vec![
            body.replacen('{', "{\"zz\":1,", 1),
            body.replacen('}', ",\"zz\":1}", 1),
            body.replacen('{', "{ ", 1),
            body.replace(':', " : "),
            body.replace(',', ", "),
            format!("{body} "),
            body.replacen(first, &format!("{first},{first}"), 1),
            body.replacen(first, &format!("{k0}:[{v0}]"), 1),
        ];
        if let Some((_, rest)) = body[1..].split_once(',') {
            // The first two keys swapped.
            let second = &rest[..rest.find(",\"").unwrap_or(rest.len() - 1)];
            odd.push(body.replacen(
                &format!("{first},{second}"),
                &format!("{second},{first}"),
                1,
            ));
        }
        for (key, value) in
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(body).unwrap()
        {
            let at = format!("\"{key}\":{value}");
            assert!(body.contains(&at), "{body}");
            let mut with = |v: String| odd.push(body.replacen(&at, &format!("\"{key}\":{v}"), 1));
            match &value {
                serde_json::Value::Number(n) => {
                    let d = n.to_string();
                    let digits = d.trim_start_matches('-');
                    let sign = if d.starts_with('-') { "-" } else { "" };
                    with(format!("{sign}0{digits}"));
                    with(format!("{d}.0"));
                    with(format!("{d}e0"));
                    with("-0".into());
                    with("18446744073709551616".into());
                    with("-9223372036854775809".into());
                    // Values at the edges of the field's range: read at fixed shape or not,
                    // serde's result.
                    for v in [
                        format!("-{digits}"),
                        "4294967295".into(),
                        "4294967296".into(),
                        "9223372036854775807".into(),
                        "9223372036854775808".into(),
                        "18446744073709551615".into(),
                        "-9223372036854775808".into(),
                    ] {
                        edges.push(body.replacen(&at, &format!("\"{key}\":{v}"), 1));
                    }
                    with("true".into());
                    with("null".into());
                }
                serde_json::Value::String(s) => {
                    let mut esc = String::new();
                    for c in s.chars() {
                        esc.push_str(&format!("\\u{:04x}", c as u32 & 0xffff));
                    }
                    with(format!("\"{esc}\""));
                    with(format!("\"{s}\\n\""));
                    with(format!("\"{s}\t\""));
                    if key == "side" {
                        with("\"White\"".into());
                    }
                    if key != "fen" {
                        // (A null fen is the kit's own form.)
                        with("null".into());
                    }
                    with("5".into());
                }
                serde_json::Value::Bool(b) => {
                    with(format!("\"{b}\""));
                    with("1".into());
                    with("null".into());
                }
                serde_json::Value::Array(_) => {
                    with(r#"["a" ,"b"]"#.into());
                    with(r#"["a",]"#.into());
                    with(r#"["\u0061"]"#.into());
                    with("null".into());
                }
                serde_json::Value::Null => {
                    with("\"\\u0066\"".into());
                    with("5".into());
                }
                serde_json::Value::Object(_) => unreachable!(),
            }
        }
        odd.retain(|o| o != body);
        for e in &edges {
            let line = line_with_body(kind, e);
            if fixed_as_serde(&line, e) {
                edge_reads += 1;
            }
        }
        for o in &odd {
            let line = line_with_body(kind, o);
            assert!(
                fixed_line(&line).is_none(),
                "{kind} {o}: read at fixed shape"
            );
            fixed_as_serde(&line, o);
            match decode_line(&line) {
                Ok(_) => oks += 1,
                Err(_) => errs += 1,
            }
        }
    }
    // Both serde's events and its errors are given.
    assert!(oks > 50 && errs > 100, "{oks} read, {errs} refused");
    assert!(edge_reads > 20, "{edge_reads}");
}

mod fixed_props {
    use super::*;
    use arbiter::core::{Actor, Side};
    use proptest::prelude::*;

    /// Strings as the log holds them: plain text, any characters, and the ones JSON escapes.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-zA-Z0-9 +#=/:.-]{0,12}",
            ".{0,8}",
            "[\"\\\\\n\t\u{0}\u{1f}\u{7f}é€😀/]{0,4}",
        ]
    }

    fn side() -> impl Strategy<Value = Side> {
        prop_oneof![Just(Side::White), Just(Side::Black)]
    }

    fn int() -> impl Strategy<Value = i64> {
        prop_oneof![
            any::<i64>(),
            -10_000i64..10_000,
            Just(i64::MIN),
            Just(i64::MAX),
            Just(0)
        ]
    }

    fn uint() -> impl Strategy<Value = u64> {
        prop_oneof![any::<u64>(), 0u64..10_000, Just(u64::MAX), Just(0)]
    }

    fn periods() -> impl Strategy<Value = Option<u32>> {
        proptest::option::of(prop_oneof![any::<u32>(), Just(u32::MAX), 0u32..5])
    }

    /// One event of each hot kind, its fields at random.
    fn hot_kind() -> impl Strategy<Value = EventKind> {
        prop_oneof![
            (
                side(),
                text(),
                text(),
                uint(),
                uint(),
                int(),
                proptest::option::of(text()),
                any::<bool>(),
                proptest::option::of(uint()),
                periods(),
                periods()
            )
                .prop_map(
                    |(
                        side,
                        san,
                        uci,
                        spent_ms,
                        increment_ms,
                        remaining_ms,
                        fen,
                        declines_draw,
                        pressed_at,
                        byoyomi_periods_lost,
                        byoyomi_periods_left,
                    )| EventKind::MoveMade {
                        side,
                        san: san.into(),
                        uci: uci.into(),
                        spent_ms,
                        increment_ms,
                        remaining_ms,
                        fen: fen.map(Into::into),
                        declines_draw,
                        pressed_at,
                        byoyomi_periods_lost,
                        byoyomi_periods_left
                    }
                ),
            (side(), uint(), uint(), int(), periods(), periods()).prop_map(
                |(
                    side,
                    spent_ms,
                    increment_ms,
                    remaining_ms,
                    byoyomi_periods_lost,
                    byoyomi_periods_left,
                )| EventKind::ClockPressed {
                    side,
                    spent_ms,
                    increment_ms,
                    remaining_ms,
                    byoyomi_periods_lost,
                    byoyomi_periods_left
                }
            ),
            (uint(), int(), int(), uint(), any::<bool>()).prop_map(
                |(reading_ms, game_clock_ms, diff_ms, threshold_ms, correction_owed)| {
                    EventKind::InternalClockReported {
                        reading_ms,
                        game_clock_ms,
                        diff_ms,
                        threshold_ms,
                        correction_owed,
                    }
                }
            ),
            (
                any::<usize>(),
                proptest::collection::vec(text(), 0..4),
                text(),
                proptest::option::of(text())
            )
                .prop_map(|(plies, removed, reason, fen)| EventKind::MovesTakenBack {
                    plies,
                    removed: removed.into_iter().map(Into::into).collect(),
                    reason: reason.into(),
                    fen: fen.map(Into::into),
                }),
            text().prop_map(|text| EventKind::Note { text: text.into() }),
            text().prop_map(|reason| EventKind::ClockStopped {
                reason: reason.into()
            }),
            side().prop_map(|side| EventKind::ClockResumed { side }),
            side().prop_map(|side| EventKind::ClockStarted { side }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

        /// Each hot kind with its fields at random (negatives, extremes, unicode,
        /// strings JSON escapes, optional fields present or not), written as the kit writes it,
        /// is read by the fixed-shape reader as serde reads it, and is read by it unless a string
        /// was written with an escape.
        #[test]
        fn the_fixed_shape_reader_reads_each_hot_kind_as_serde(
            kind in hot_kind(),
            at in 0u64..1u64 << 50,
            clause in text(),
        ) {
            let ev = Event::new(at, Actor::parse("operator").unwrap(), &clause, kind);
            let line = lines_of(std::slice::from_ref(&ev)).remove(0);
            let read = fixed_as_serde(&line, &String::from_utf8_lossy(&line));
            prop_assert_eq!(&decode_line(&line).unwrap().event, &ev);
            // Read at fixed shape unless a string is written with an escape.
            prop_assert_eq!(read, !line.contains(&b'\\'));
        }
    }
}

/// The header's and the bodies' strings are scanned eight bytes at a time up to the
/// first byte that may end them. A quote, a backslash, a control character or a multi-byte
/// character at every position of a note's text (and of the header's clause) is read as serde
/// reads it, by [`decode_canonical`], [`fixed_line`] where it reads the line, and
/// [`arbiter::log::codec::decode_shared`].
#[test]
fn strings_scanned_by_the_word_are_read_as_serde_at_every_position() {
    let specials = [
        "\\\"", "\\\\", "\\n", "\\u0000", "\\u001f", "é", "€", "😀", "\u{7f}",
    ];
    let mut fixed = 0;
    for len in 0..40 {
        for at in 0..=len {
            for s in specials {
                let text = format!("{}{s}{}", "a".repeat(at), "b".repeat(len - at));
                let body = format!(r#"{{"text":"{text}"}}"#);
                for clause in ["5b", &text] {
                    let line = line_with_body("note", &body)
                        .into_iter()
                        .collect::<Vec<u8>>();
                    let line = String::from_utf8(line)
                        .unwrap()
                        .replace(r#""clause":"6d""#, &format!(r#""clause":"{clause}""#))
                        .into_bytes();
                    let what = format!("text {text:?}, clause {clause:?}");
                    if fixed_as_serde(&line, &what) {
                        fixed += 1;
                    }
                    let shared = arbiter::log::codec::decode_shared(&line).map(|e| (*e).clone());
                    assert_eq!(shared, decode_line(&line).map(|d| d.event), "{what}");
                }
            }
        }
    }
    // The lines without an escape (é, €, 😀, DEL) are read at fixed shape, whatever the place.
    assert!(fixed >= 4 * 820, "{fixed} lines read at fixed shape");
}
