//! A werewolf game after the game: `verify` re-runs it (BAD_REPLAY, 33, when the log disagrees
//! with its rules even though its chain and signatures hold), `status`, `record --format
//! aiwolf-log|aiwolf-json` (the official server's files) and the committee's HTML report.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use arbiter::core::werewolf::{self as ww, Event, Request, Role};
use arbiter::log::NewEntry;
use arbiter::record::journal::Journal;
use chrono::{TimeZone, Utc};

use crate::werewolf_support::{G, quiet};

fn arbiter(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .output()
        .unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

/// A 5-seat game of the 2025 profile played to its end through the core: the first talk of
/// the first seat asked says something long with a comma and an @mention (cut), the first vote
/// names nobody (an invalid target), everyone else answers quietly.
fn played() -> G {
    let mut g = G::new("aiwolf-2025-5", 7);
    g.begin();
    let mut said = false;
    let mut voted = false;
    g.play(|t, seat, req| match req {
        Request::Talk if !said => {
            said = true;
            let other = t.seats()[(seat + 1) % t.seats().len()].name.clone();
            format!(
                "みなさん, よろしく{}@{other} {}",
                "あ".repeat(60),
                "い".repeat(60)
            )
        }
        Request::Vote if !voted => {
            voted = true;
            "だれでもない".into()
        }
        _ => quiet(t, seat, req),
    });
    g
}

/// Write `g` as game 1 of a match folder, as `arbiter serve` does, and sign a checkpoint.
fn match_of(g: &G, dir: &Path) -> PathBuf {
    let m = dir.join("m");
    std::fs::create_dir_all(&m).unwrap();
    crate::log_util::arbiter_key_in(&m);
    let public = ssh_key::PublicKey::read_openssh_file(&m.join("keys/arbiter.pub")).unwrap();
    let text = std::fs::read_to_string(format!(
        "{}/rules/aiwolf-2025-5.toml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let body = serde_json::json!({
        "match_id": "ww-test",
        "game": 1,
        "profile": {"name": "aiwolf-2025-5", "file": "aiwolf-2025-5.toml",
            "sha256": hex::encode(<sha2::Sha256 as sha2::Digest>::digest(text.as_bytes())),
            "toml": text},
        "declarations": {},
        "arbiter_key": {"principal": "arbiter", "fingerprint": arbiter::record::sign::fingerprint(&public)},
        "table": ww::line0_body(&g.profile, "GAME1", &g.seats, &g.seed.commitment()),
    });
    let t0 = Utc.with_ymd_and_hms(2025, 8, 1, 10, 0, 0).unwrap();
    let entry = |mono_ms: u64, e: &Event| NewEntry {
        mono_ms,
        utc: t0 + chrono::Duration::milliseconds(mono_ms as i64),
        actor: e.actor().into(),
        clause: e.section().into(),
        kind: e.kind().into(),
        body: e.body(),
    };
    std::fs::create_dir_all(m.join("game-1")).unwrap();
    let mut j = Journal::create(
        &m.join("game-1/log.jsonl"),
        NewEntry {
            mono_ms: 0,
            utc: t0,
            actor: "kit".into(),
            clause: "table".into(),
            kind: "game_opened".into(),
            body,
        },
    )
    .unwrap();
    let mut at = 0;
    for e in &g.events {
        if let Some(i) = e.input() {
            at = i.at_ms();
        }
        j.append(entry(at, e)).unwrap();
    }
    drop(j);
    checkpoint(&m);
    m
}

fn checkpoint(m: &Path) {
    let o = arbiter(&["checkpoint", "--match", m.to_str().unwrap(), "--game", "1"]);
    assert_eq!(code(&o), 0, "{}", text(&o));
}

/// The log with line `seq` changed by `f` and every later line re-chained (what whoever holds
/// the folder and the arbiter's key could write), its checkpoints signed again.
fn forged(m: &Path, seq: usize, f: impl Fn(&mut serde_json::Value)) {
    let path = m.join("game-1/log.jsonl");
    let lines: Vec<String> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let mut out = String::new();
    let mut prev = String::new();
    for (i, l) in lines.iter().enumerate() {
        let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
        if i == seq {
            f(&mut v);
        }
        if i > 0 {
            v["prev"] = prev.clone().into();
        }
        // The kit's byte format: keys in the order of a v1 line, bodies with sorted keys.
        let o = v.as_object().unwrap();
        let mut line = String::from("{");
        for (k, key) in arbiter::log::KEYS.iter().enumerate() {
            if k > 0 {
                line.push(',');
            }
            line.push_str(&serde_json::to_string(key).unwrap());
            line.push(':');
            line.push_str(&serde_json::to_string(&o[*key]).unwrap());
        }
        line.push('}');
        prev = arbiter::log::hex32(&arbiter::log::entry_hash(line.as_bytes()));
        out.push_str(&line);
        out.push('\n');
    }
    std::fs::write(&path, out).unwrap();
    std::fs::remove_dir_all(m.join("game-1/checkpoints")).unwrap();
    for f in ["index.txt", "index.txt.sig"] {
        let _ = std::fs::remove_file(m.join(f));
    }
    let _ = std::fs::remove_dir_all(m.join("index"));
    checkpoint(m);
}

fn seq_of(m: &Path, pred: impl Fn(&serde_json::Value) -> bool) -> usize {
    std::fs::read_to_string(m.join("game-1/log.jsonl"))
        .unwrap()
        .lines()
        .position(|l| pred(&serde_json::from_str(l).unwrap()))
        .unwrap()
}

fn record(m: &Path, format: &str) -> Output {
    arbiter(&[
        "record",
        "--match",
        m.to_str().unwrap(),
        "--game",
        "1",
        "--format",
        format,
    ])
}

fn verify(m: &Path) -> Output {
    arbiter(&["verify", "--match", m.to_str().unwrap()])
}

#[test]
fn werewolf_verify_reruns_a_signed_game_from_its_inputs_and_seed() {
    let tmp = tempfile::tempdir().unwrap();
    let g = played();
    let m = match_of(&g, tmp.path());
    let o = verify(&m);
    assert_eq!(code(&o), 0, "{}", text(&o));
    assert!(
        text(&o).contains(&format!(
            "re-run from the recorded inputs and the revealed seed: all {} events agree",
            g.events.len()
        )),
        "{}",
        text(&o)
    );
}

#[test]
fn werewolf_verify_names_a_forged_vote_though_chain_and_signature_hold() {
    let tmp = tempfile::tempdir().unwrap();
    let m = match_of(&played(), tmp.path());
    let seq = seq_of(&m, |v| v["kind"] == "voted");
    forged(&m, seq, |v| {
        let t = v["body"]["target"].as_u64().unwrap();
        v["body"]["target"] = ((t + 1) % 5).into();
    });
    let o = verify(&m);
    assert_eq!(code(&o), 33, "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("BAD REPLAY"), "{t}");
    assert!(t.contains("signature ok"), "the forger re-signed: {t}");
    assert!(t.contains(&format!("entry #{seq}")), "names the entry: {t}");
}

#[test]
fn werewolf_verify_names_an_entry_written_as_another_actor() {
    let tmp = tempfile::tempdir().unwrap();
    let m = match_of(&played(), tmp.path());
    let seq = seq_of(&m, |v| {
        v["kind"] == "executed" || v["kind"] == "no_execution"
    });
    forged(&m, seq, |v| v["actor"] = "operator".into());
    let o = verify(&m);
    assert_eq!(code(&o), 33, "{}", text(&o));
    assert!(
        text(&o).contains(&format!("entry #{seq} names actor \"operator\"")),
        "{}",
        text(&o)
    );
}

#[test]
fn werewolf_verify_refuses_a_seed_other_than_the_one_committed() {
    let tmp = tempfile::tempdir().unwrap();
    let m = match_of(&played(), tmp.path());
    let seq = seq_of(&m, |v| v["kind"] == "game_ended");
    forged(&m, seq, |v| v["body"]["seed"] = "00".repeat(32).into());
    let o = verify(&m);
    assert_eq!(code(&o), 33, "{}", text(&o));
    assert!(text(&o).contains("line 0 committed to"), "{}", text(&o));
}

#[test]
fn werewolf_record_aiwolf_log_is_the_official_servers_csv() {
    let tmp = tempfile::tempdir().unwrap();
    let g = played();
    let m = match_of(&g, tmp.path());
    let o = record(&m, "aiwolf-log");
    assert_eq!(code(&o), 0, "{}", text(&o));
    let log = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    // Day 0 opens with one status line a seat, 1-based, every seat alive.
    for (i, l) in lines[..5].iter().enumerate() {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f[0..2], ["0", "status"], "{l}");
        assert_eq!(f[2], (i + 1).to_string());
        assert_eq!(f[4], "ALIVE");
        assert_eq!(f[5], g.seats[i].name);
        assert_eq!(f[6], g.name(i));
        assert_eq!(f[3], g.role(i).name());
    }
    // The talk as the table saw it (cut), with the official fields.
    let cut = g
        .events
        .iter()
        .find_map(|e| match e {
            Event::TalkCut { text, .. } => Some(text.clone()),
            _ => None,
        })
        .expect("the long talk was cut");
    assert!(log.contains(",talk,0,0,"), "{log}");
    assert!(log.contains(&cut), "{log}");
    // The result line ends the file, with the winner.
    let last = lines.last().unwrap();
    let Some(Event::GameEnded {
        day,
        winner,
        humans,
        werewolves,
        ..
    }) = g.events.last()
    else {
        panic!("the game ended")
    };
    assert_eq!(
        *last,
        format!("{day},result,{humans},{werewolves},{}", winner.name())
    );
    // A vote line for every vote counted, an execute line for the executed.
    let votes = g.of("voted").len();
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.split(',').nth(1) == Some("vote")
                || l.split(',').nth(1) == Some("attackVote"))
            .count(),
        votes
    );
    // The comma in the talk is named on standard error.
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("holds a comma"), "{err}");
}

#[test]
fn werewolf_record_aiwolf_json_pairs_every_request_with_its_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let g = played();
    let m = match_of(&g, tmp.path());
    let o = record(&m, "aiwolf-json");
    assert_eq!(code(&o), 0, "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["game_id"], "GAME1");
    assert_eq!(v["win_side"], ww::finished(&g.t).unwrap().name());
    let agents = v["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 5);
    for (i, a) in agents.iter().enumerate() {
        assert_eq!(a["idx"], i + 1);
        assert_eq!(a["name"], g.seats[i].name);
        assert_eq!(a["team"], g.seats[i].team);
        assert_eq!(a["role"], g.role(i).name());
    }
    let entries = v["entries"].as_array().unwrap();
    let sent = g
        .events
        .iter()
        .filter(|e| matches!(e, Event::Sent { request, .. } if *request != Request::Name))
        .count();
    assert_eq!(entries.len(), sent);
    for e in entries {
        let req: serde_json::Value = serde_json::from_str(e["request"].as_str().unwrap()).unwrap();
        assert!(e["request_timestamp"].as_i64().unwrap() > 0);
        assert!(
            e["response_timestamp"].as_i64().unwrap() >= e["request_timestamp"].as_i64().unwrap()
        );
        if req["request"] == "VOTE" {
            assert!(e.get("response").is_some(), "{e}");
        }
    }
    // Chess and shogi formats are refused for a werewolf game, and the other way round.
    let o = record(&m, "pgn");
    assert_eq!(code(&o), 65, "{}", text(&o));
}

#[test]
fn werewolf_status_and_report_name_every_incident() {
    let tmp = tempfile::tempdir().unwrap();
    let g = played();
    let m = match_of(&g, tmp.path());
    let o = arbiter(&["status", "--match", m.to_str().unwrap(), "--game", "1"]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let s = text(&o);
    assert!(s.contains("wins"), "{s}");
    for i in 0..5 {
        assert!(s.contains(&g.name(i)), "{s}");
    }
    let o = arbiter(&[
        "status",
        "--match",
        m.to_str().unwrap(),
        "--game",
        "1",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["family"], "werewolf");
    let kinds: Vec<&str> = v["incidents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"talk_cut"), "{kinds:?}");
    assert!(kinds.contains(&"target_invalid"), "{kinds:?}");
    let out = tmp.path().join("r.html");
    let o = arbiter(&[
        "report",
        "--match",
        m.to_str().unwrap(),
        "--game",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("id=\"incidents\""), "{html}");
    assert!(html.contains("target_invalid") && html.contains("talk_cut"));
    assert!(html.contains("Response times: Agents"));
    assert!(!html.contains("Response times: Humans"), "no human played");
    let wolves: Vec<usize> = (0..5).filter(|&i| g.role(i) == Role::Werewolf).collect();
    assert!(html.contains(&g.name(wolves[0])));
}
