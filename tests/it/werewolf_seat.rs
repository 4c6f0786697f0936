//! A human's seat and the audience at the AI Werewolf table, end to end: `arbiter seat` in a real
//! terminal (tmux on a private socket) plays a game of `arbiter serve` among four Python seats on
//! aiwolf-nlp-common 0.7.0 (tests/fixtures/aiwolf/seat.py), with a short-timeout test profile
//! (tests/fixtures/aiwolf/test-5-human.toml). Two `arbiter display` screens follow the log, one
//! live and one behind by a delay. Every wait polls with a deadline.
//!
//! Then the screens themselves, drawn from the pure view functions on ratatui's TestBackend at
//! 120×40 and 80×24 (insta snapshots).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::Value;

use crate::pty::{Tmux, tmux_available};

const SEAT: &str = "tests/fixtures/aiwolf/seat.py";
const PROFILE: &str = "tests/fixtures/aiwolf/test-5-human.toml";
const ROLES: [&str; 4] = ["WEREWOLF", "POSSESSED", "SEER", "VILLAGER"];
const NAMES: [&str; 5] = ["Alice", "Bob", "Carol", "Dave", "Erin"];
const DELAY_S: i64 = 3;

fn ready() -> bool {
    let py = Command::new("python3")
        .args(["-c", "import aiwolf_nlp_common, websocket"])
        .status()
        .is_ok_and(|s| s.success());
    if !py || !tmux_available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 with aiwolf-nlp-common and tmux are required in CI"
        );
        println!("SKIPPED: python3 with aiwolf-nlp-common 0.7.0, or tmux, is not installed");
        return false;
    }
    true
}

/// Processes killed when the test ends, passed or not.
struct Reap(Vec<Child>);

impl Drop for Reap {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn entries(m: &Path) -> Vec<Value> {
    std::fs::read_to_string(m.join("game-1/log.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.ends_with('}'))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn utc(e: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(e["utc"].as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc)
}

/// The request number and name on the seat's status line (`request N: the table asks you: X`).
fn asked(screen: &str) -> Option<(u32, String)> {
    let i = screen.find("request ")?;
    let rest = &screen[i + 8..];
    let (n, rest) = rest.split_once(": the table asks you: ")?;
    let ask: String = rest
        .chars()
        .take_while(|c| c.is_ascii_uppercase())
        .collect();
    Some((n.parse().ok()?, ask))
}

/// The seat's character: the table row marked `(you)`.
fn me(screen: &str) -> Option<String> {
    screen.lines().find_map(|l| {
        let i = l.find(" (you)")?;
        Some(
            l[..i]
                .trim_start_matches([' ', '▶', '✝'])
                .trim()
                .to_string(),
        )
    })
}

/// The text after `label` on the screen's line that has it.
fn after(screen: &str, label: &str) -> Option<String> {
    screen.lines().find_map(|l| {
        let i = l.find(label)?;
        Some(l[i + label.len()..].trim_end().to_string())
    })
}

/// What one look at the delayed display saw, and when the look ended.
struct Look {
    done: DateTime<Utc>,
    screen: String,
}

#[test]
fn werewolf_seat_a_human_plays_among_four_agents_and_the_audience_follows() {
    if !ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let mut reap = Reap(Vec::new());
    let mut serve = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["serve", "--match"])
        .arg(&m)
        .args([
            "--rules",
            PROFILE,
            "--listen",
            "127.0.0.1:0",
            "--games",
            "1",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let first = BufReader::new(serve.stdout.take().unwrap())
        .lines()
        .next()
        .unwrap()
        .unwrap();
    reap.0.push(serve);
    let url = first.strip_prefix("listening on ").unwrap().to_string();

    // The human's seat, then the four agents.
    let seat = Tmux::start_shell(
        "ww-seat",
        &format!("LANG=C.UTF-8 exec {{arbiter}} seat --connect {url} --team human"),
        tmp.path(),
        80,
        24,
    );
    seat.wait_for("answered NAME as human1", Duration::from_secs(20));
    for i in 1..=4 {
        reap.0.push(
            Command::new("python3")
                .arg(SEAT)
                .args(["--url", &url, "--name", &format!("bot{i}")])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
    }
    let until = Instant::now() + Duration::from_secs(20);
    while entries(&m).is_empty() {
        assert!(Instant::now() < until, "no game opened within 20 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    let md = m.display().to_string();
    let live = Tmux::start_shell(
        "ww-live",
        &format!("LANG=C.UTF-8 exec {{arbiter}} display --match '{md}'"),
        tmp.path(),
        120,
        40,
    );
    let late = Tmux::start_shell(
        "ww-late",
        &format!("LANG=C.UTF-8 exec {{arbiter}} display --match '{md}' --delay {DELAY_S}"),
        tmp.path(),
        80,
        24,
    );
    live.wait_for("AI Werewolf", Duration::from_secs(15));
    // The delayed screen, looked at all game long.
    let looks: Arc<Mutex<Vec<Look>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (looks, stop) = (Arc::clone(&looks), Arc::clone(&stop));
        let (socket, target) = (late.socket.clone(), late.target.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let out = Command::new("tmux")
                    .env_remove("TMUX")
                    .args(["-L", &socket, "capture-pane", "-p", "-t", &target])
                    .output()
                    .unwrap();
                looks.lock().unwrap().push(Look {
                    done: Utc::now(),
                    screen: String::from_utf8_lossy(&out.stdout).into_owned(),
                });
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };

    // The human plays: the first talk in Japanese over the limit with a mention, the second
    // left to time out, Over after that; the first vote by the picker; Enter on every other
    // pick, Over on every other talk.
    let mut done = 0;
    let mut talks = 0;
    let mut shown_cut: Option<String> = None;
    let mut typed = String::new();
    let mut voted: Option<String> = None;
    let mut timed_out = false;
    let mut checked_hidden = false;
    let until = Instant::now() + Duration::from_secs(150);
    loop {
        assert!(Instant::now() < until, "the game did not end within 150 s");
        let s = seat.screen();
        if s.contains("The game is over.") {
            break;
        }
        let Some((n, ask)) = asked(&s).filter(|(n, _)| *n > done) else {
            std::thread::sleep(Duration::from_millis(30));
            continue;
        };
        done = n;
        match ask.as_str() {
            "TALK" | "WHISPER" => {
                talks += 1;
                if talks == 1 {
                    let me = me(&s).expect("the seat's own row");
                    let other = NAMES.iter().find(|n| **n != me).unwrap();
                    typed = format!(
                        "皆さんこんにちは今日もよろしくお願いします@{other} あなたが一番怪しいと思っています"
                    );
                    seat.type_text(&typed);
                    let s = seat.wait_for("table sees: ", Duration::from_secs(3));
                    assert!(s.contains("OVER: the table cuts it"), "{s}");
                    assert!(s.contains(&format!("@{other} · mention 16/8")), "{s}");
                    assert!(s.contains("base 21/12"), "{s}");
                    shown_cut = after(&s, "table sees: ");
                    seat.keys(&["Enter"]);
                    // The answer went (the next request may already be on the screen).
                    seat.wait_gone(&format!("request {n}: "), Duration::from_secs(3));
                    // The live display shows the talk as it happens, and no seat's role.
                    let cut = shown_cut.clone().unwrap();
                    let d = live.wait_for(&cut, Duration::from_secs(5));
                    for r in ROLES {
                        assert!(
                            !d.contains(r),
                            "the display shows {r} during the game:\n{d}"
                        );
                    }
                    checked_hidden = true;
                } else if talks == 2 {
                    // Nothing is typed: the countdown ends and nothing is sent.
                    seat.wait_for("time is up: nothing was sent", Duration::from_secs(8));
                    timed_out = true;
                } else {
                    seat.keys(&["F6"]);
                }
            }
            _ if voted.is_none() && ask == "VOTE" => {
                let before = after(&s, "choose: ").unwrap();
                seat.keys(&["Down"]);
                let s = seat.wait_until(
                    |s| after(s, "choose: ").is_some_and(|c| c != before),
                    "the picker moved",
                    Duration::from_secs(3),
                );
                voted = after(&s, "choose: ");
                seat.keys(&["Enter"]);
            }
            _ => seat.keys(&["Enter"]),
        }
    }
    assert!(checked_hidden && timed_out, "talks asked: {talks}");
    let until = Instant::now() + Duration::from_secs(30);
    while reap.0[0].try_wait().unwrap().is_none() {
        assert!(Instant::now() < until, "serve did not exit after the game");
        std::thread::sleep(Duration::from_millis(20));
    }
    let es = entries(&m);
    let seats = es[0]["body"]["table"]["seats"].as_array().unwrap();
    let h = seats.iter().position(|s| s["name"] == "human1").unwrap() as u64;
    assert_eq!(
        seats.iter().filter(|s| s["human"] == true).count(),
        1,
        "line 0 marks the human's seat, and only it: {seats:?}"
    );
    assert_eq!(seats[h as usize]["human"], true);
    let of = |kind: &str| -> Vec<&Value> {
        es.iter()
            .filter(|e| e["kind"] == kind && e["body"]["seat"] == h)
            .collect()
    };
    // The talk reached the log raw, and the table saw the cut the meter showed.
    let cut = &of("talk_cut")[0]["body"];
    assert_eq!(cut["raw"], typed.as_str());
    assert_eq!(cut["text"].as_str(), shown_cut.as_deref());
    let said = of("talked");
    assert_eq!(said[0]["body"]["text"].as_str(), shown_cut.as_deref());
    // The timeout: recorded as one, and no text came from the seat for that request.
    let to = of("timed_out");
    assert!(
        to.iter().any(|e| e["body"]["request"] == "TALK"),
        "no timeout recorded"
    );
    let frames: Vec<&str> = of("frame_received")
        .iter()
        .map(|e| e["body"]["text"].as_str().unwrap())
        .collect();
    assert!(!frames.iter().any(|t| t.contains("TIMEOUT")), "{frames:?}");
    assert_eq!(said[1]["body"]["counts_as"], "forced_skip", "{said:?}");
    // The vote by the picker.
    let voted = voted.expect("the human was asked to vote");
    let vote = es
        .iter()
        .find(|e| {
            e["kind"] == "frame_received"
                && e["body"]["seat"] == h
                && e["body"]["request"] == "VOTE"
        })
        .unwrap();
    assert_eq!(vote["body"]["text"], voted.as_str());

    // After the game, the live display shows every role.
    let dealt = es.iter().find(|e| e["kind"] == "dealt").unwrap();
    let rows: Vec<String> = dealt["body"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{} {}",
                s["name"].as_str().unwrap(),
                s["role"].as_str().unwrap()
            )
        })
        .collect();
    let rows_ref: Vec<&str> = rows.iter().map(String::as_str).collect();
    live.wait_for_all(&rows_ref, Duration::from_secs(5));

    // The delayed display: nothing before its time plus the delay.
    let ended = es.iter().find(|e| e["kind"] == "game_ended").unwrap();
    late.wait_for("the game is over", Duration::from_secs(DELAY_S as u64 + 10));
    // The watcher samples on its own: let it take a look at the end before it stops.
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline
        && !looks
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.screen.contains("the game is over"))
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    watcher.join().unwrap();
    let looks = looks.lock().unwrap();
    let delay = chrono::Duration::seconds(DELAY_S);
    let talk_at = utc(said[0]);
    let cut_text = shown_cut.unwrap();
    // The display cuts a long line; its first words are enough to find it.
    let talk_mark: String = cut_text.chars().take(8).collect();
    for (what, at, mark) in [
        ("the human's talk", talk_at, talk_mark.as_str()),
        ("the end", utc(ended), "the game is over"),
        ("a role", utc(ended), "WEREWOLF"),
    ] {
        for l in looks.iter().filter(|l| l.screen.contains(mark)) {
            assert!(
                l.done >= at + delay,
                "{what} on the delayed screen at {} (logged {at}, delay {DELAY_S} s):\n{}",
                l.done,
                l.screen
            );
        }
        assert!(
            looks
                .iter()
                .any(|l| l.done >= at + chrono::Duration::seconds(1)
                    && l.done < at + delay - chrono::Duration::milliseconds(200)
                    && !l.screen.contains(mark)),
            "no look at the delayed screen between {what}'s time and its delay"
        );
        assert!(
            looks.iter().any(|l| l.screen.contains(mark)),
            "{what} never appeared on the delayed screen"
        );
    }

    // The report shows the human's response times apart from the agents'.
    let out = tmp.path().join("r.html");
    let st = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["report", "--match", &md, "--game", "1", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let html = std::fs::read_to_string(&out).unwrap();
    let me_name = dealt["body"]["seats"][h as usize]["name"].as_str().unwrap();
    let humans = html
        .find("Response times: Humans")
        .expect("a Humans section");
    let agents = html
        .find("Response times: Agents")
        .expect("an Agents section");
    let next = html[humans..]
        .find("Incidents")
        .map_or(html.len(), |i| humans + i);
    assert!(
        html[humans..next].contains(me_name),
        "the human's seat is not under Humans"
    );
    assert!(
        !html[agents..humans].contains(me_name),
        "the human's seat is among the agents"
    );
}

// ----- the screens, from the pure view functions -----

fn draw(
    w: u16,
    h: u16,
    f: impl FnOnce(ratatui::layout::Rect, &mut ratatui::buffer::Buffer),
) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|fr| {
        let a = fr.area();
        f(a, fr.buffer_mut())
    })
    .unwrap();
    format!("{}", t.backend())
}

const INIT: &str = r#"{"request":"INITIALIZE","info":{"game_id":"m-1","day":0,"agent":"ミナト","profile":"年齢: 20\n性別: 男性\n性格: 落ち着いていて、よく考えてから話す。","status_map":{"ケンジ":"ALIVE","タクミ":"ALIVE","ミナト":"ALIVE","リン":"ALIVE","ユイ":"ALIVE"},"role_map":{"ミナト":"SEER"}},"setting":{"agent_count":5,"talk":{"max_count":{"per_agent":4,"per_day":20},"max_length":{"count_in_word":false,"count_spaces":false,"mention_length":20,"base_length":20},"max_skip":0},"whisper":{"max_count":{"per_agent":4,"per_day":20},"max_length":{"count_in_word":false,"count_spaces":false,"mention_length":20,"base_length":20},"max_skip":0},"timeout":{"action":60000,"response":120000}}}"#;

fn seat_model() -> arbiter::table::seat::model::SeatModel {
    use arbiter::table::seat::model::SeatModel;
    let mut m = SeatModel::new("human1");
    m.packet(r#"{"request":"NAME"}"#, 0);
    m.packet(INIT, 10);
    m.packet(r#"{"request":"DAILY_INITIALIZE","info":{"game_id":"m-1","day":1,"agent":"ミナト","divine_result":{"day":0,"agent":"ミナト","target":"リン","result":"HUMAN"},"status_map":{"ケンジ":"ALIVE","タクミ":"ALIVE","ミナト":"ALIVE","リン":"ALIVE","ユイ":"ALIVE"},"role_map":{"ミナト":"SEER"}},"setting":{"talk":{"max_length":{"count_in_word":false,"count_spaces":false,"mention_length":20,"base_length":20}},"whisper":{"max_length":{"count_in_word":false,"count_spaces":false,"mention_length":20,"base_length":20}},"timeout":{"action":60000,"response":120000}}}"#, 20);
    m.packet(r#"{"request":"TALK","info":{"game_id":"m-1","day":1,"agent":"ミナト","remain_count":3,"remain_skip":0,"status_map":{"ケンジ":"ALIVE","タクミ":"ALIVE","ミナト":"ALIVE","リン":"ALIVE","ユイ":"ALIVE"},"role_map":{"ミナト":"SEER"}},"talk_history":[{"idx":0,"day":1,"turn":0,"agent":"ケンジ","text":"おはよう。昨日の夜は何もなかったね。","skip":false,"over":false},{"idx":1,"day":1,"turn":0,"agent":"リン","text":"@タクミ 占い師は名乗り出てほしいな。","skip":false,"over":false}]}"#, 1000);
    m
}

#[test]
fn werewolf_seat_screens_talk_with_the_meter_cutting() {
    use arbiter::table::seat::model::Key;
    let mut m = seat_model();
    for c in "占い師です。リンさんは人間でした。信じてください、本当です。@タクミ あなたはどう思いますか、説明してほしいです".chars() {
        m.key(Key::Char(c));
    }
    for (w, h) in [(120, 40), (80, 24)] {
        let s = draw(w, h, |a, b| {
            arbiter::table::seat::view::render(&m, 13_400, a, b)
        });
        insta::assert_snapshot!(format!("werewolf_seat_talk_{w}x{h}"), s);
    }
}

#[test]
fn werewolf_seat_screens_vote_picker() {
    use arbiter::table::seat::model::Key;
    let mut m = seat_model();
    m.key(Key::Over);
    m.packet(r#"{"request":"VOTE","info":{"game_id":"m-1","day":1,"agent":"ミナト","status_map":{"ケンジ":"ALIVE","タクミ":"ALIVE","ミナト":"ALIVE","リン":"DEAD","ユイ":"ALIVE"},"role_map":{"ミナト":"SEER"}}}"#, 5000);
    m.key(Key::Down);
    for (w, h) in [(120, 40), (80, 24)] {
        let s = draw(w, h, |a, b| {
            arbiter::table::seat::view::render(&m, 20_000, a, b)
        });
        insta::assert_snapshot!(format!("werewolf_seat_vote_{w}x{h}"), s);
    }
}

#[test]
fn werewolf_seat_screens_game_over() {
    let mut m = seat_model();
    m.packet(r#"{"request":"FINISH","info":{"game_id":"m-1","day":2,"agent":"ミナト","status_map":{"ケンジ":"DEAD","タクミ":"ALIVE","ミナト":"ALIVE","リン":"DEAD","ユイ":"ALIVE"},"role_map":{"ケンジ":"WEREWOLF","タクミ":"POSSESSED","ミナト":"SEER","リン":"VILLAGER","ユイ":"VILLAGER"}}}"#, 90_000);
    for (w, h) in [(120, 40), (80, 24)] {
        let s = draw(w, h, |a, b| {
            arbiter::table::seat::view::render(&m, 90_000, a, b)
        });
        insta::assert_snapshot!(format!("werewolf_seat_over_{w}x{h}"), s);
    }
}

/// A game the kit's `serve` recorded with a human seat (human1) among four agents.
fn recorded() -> Vec<arbiter::board::display::werewolf::Entry> {
    arbiter::board::display::werewolf::read_log(Path::new("tests/fixtures/aiwolf/human-game.jsonl"))
        .unwrap()
}

#[test]
fn werewolf_display_screens_during_the_game_hide_roles() {
    use arbiter::board::display::werewolf::{audience, render};
    let es = recorded();
    // Just after the first execution.
    let at = es.iter().find(|e| e.kind == "executed").unwrap().utc;
    let a = audience(&es, at, Duration::ZERO);
    assert!(a.ended.is_none());
    assert!(a.seats.iter().all(|s| s.role.is_none()));
    for (w, h) in [(120, 40), (80, 24)] {
        let s = draw(w, h, |area, b| render(&a, area, b));
        for r in ROLES {
            assert!(!s.contains(r), "{r} shown during the game:\n{s}");
        }
        insta::assert_snapshot!(format!("werewolf_display_during_{w}x{h}"), s);
    }
}

#[test]
fn werewolf_display_screens_after_the_game_show_all() {
    use arbiter::board::display::werewolf::{audience, render};
    let es = recorded();
    let at = es.last().unwrap().utc;
    let a = audience(&es, at, Duration::ZERO);
    assert!(a.ended.is_some());
    assert!(a.seats.iter().all(|s| s.role.is_some()));
    for (w, h) in [(120, 40), (80, 24)] {
        let s = draw(w, h, |area, b| render(&a, area, b));
        insta::assert_snapshot!(format!("werewolf_display_after_{w}x{h}"), s);
    }
}

#[test]
fn werewolf_display_delay_holds_every_entry() {
    use arbiter::board::display::werewolf::{audience, next_reveal};
    let es = recorded();
    let end = es.last().unwrap().utc;
    let delay = Duration::from_secs(30);
    // At the end's time plus 29.999 s the end is still held; at plus 30 s it shows.
    let before = audience(&es, end + chrono::Duration::milliseconds(29_999), delay);
    assert!(before.ended.is_none() && before.held >= 1);
    assert!(before.seats.iter().all(|s| s.role.is_none()));
    assert_eq!(
        next_reveal(&es, end + chrono::Duration::milliseconds(29_999), delay),
        Some(Duration::from_millis(1))
    );
    let after = audience(&es, end + chrono::Duration::seconds(30), delay);
    assert!(after.ended.is_some() && after.held == 0);
    // Before line 0's time plus the delay, nothing at all.
    let first = es[0].utc;
    let none = audience(&es, first + chrono::Duration::seconds(29), delay);
    assert!(none.seats.is_empty() && none.lines.is_empty());
}

#[test]
fn werewolf_display_whispers_and_divinations_only_after_the_game() {
    use arbiter::board::display::werewolf::audience;
    let es = recorded();
    let ended = es.iter().position(|e| e.kind == "game_ended").unwrap();
    let during = audience(&es[..ended], es[ended - 1].utc, Duration::ZERO);
    assert!(
        !during
            .lines
            .iter()
            .any(|l| l.contains("divines") || l.contains("attack vote")),
        "{:?}",
        during.lines
    );
    let after = audience(&es, es[ended].utc, Duration::ZERO);
    assert!(after.lines.iter().any(|l| l.contains("divines")));
}

/// Every file of a folder with its bytes (to see that a reader wrote nothing).
fn snapshot_of(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn werewolf_seat_connects_only_to_the_table_and_the_display_nowhere() {
    if !tmux_available() || Command::new("strace").arg("-V").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "tmux and strace are required in CI"
        );
        println!("SKIPPED: tmux or strace is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // The display on a recorded game: no socket call, and not a byte written in the folder.
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    std::fs::create_dir_all(m.join("game-1")).unwrap();
    std::fs::copy(
        "tests/fixtures/aiwolf/human-game.jsonl",
        m.join("game-1/log.jsonl"),
    )
    .unwrap();
    let before = snapshot_of(&m);
    let trace = tmp.path().join("display.trace");
    let d = Tmux::start_shell(
        "ww-strace-display",
        &format!(
            "LANG=C.UTF-8 strace -f -qq -e trace=socket,connect,bind,sendto,sendmsg -o '{}' {{arbiter}} display --match '{}'; exec sleep 60",
            trace.display(),
            m.display()
        ),
        tmp.path(),
        80,
        24,
    );
    d.wait_for("the game is over", Duration::from_secs(15));
    d.keys(&["q"]);
    let until = Instant::now() + Duration::from_secs(10);
    while d.screen().contains("AI Werewolf") {
        assert!(Instant::now() < until, "display did not quit");
        std::thread::sleep(Duration::from_millis(50));
    }
    let calls = std::fs::read_to_string(&trace).unwrap();
    assert!(
        calls.trim().is_empty(),
        "display made network calls:\n{calls}"
    );
    assert!(
        before == snapshot_of(&m),
        "display changed the match folder"
    );

    // The seat: its connections go to the table's address only.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let trace = tmp.path().join("seat.trace");
    let s = Tmux::start_shell(
        "ww-strace-seat",
        &format!(
            "LANG=C.UTF-8 strace -f -qq -e trace=connect -o '{}' {{arbiter}} seat --connect ws://127.0.0.1:{port}/ws; exec sleep 60",
            trace.display()
        ),
        tmp.path(),
        80,
        24,
    );
    // Accept its connection (the handshake is not answered: the seat waits), then quit it.
    let (_conn, _) = listener.accept().unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    let calls = loop {
        let calls = std::fs::read_to_string(&trace).unwrap_or_default();
        if calls.contains("connect(") {
            break calls;
        }
        assert!(Instant::now() < until, "no connect traced:\n{calls}");
        std::thread::sleep(Duration::from_millis(50));
    };
    s.keys(&["C-c"]);
    for c in calls.lines().filter(|l| l.contains("connect(")) {
        assert!(
            c.contains(&format!("sin_port=htons({port})")) && c.contains("127.0.0.1"),
            "the seat connected elsewhere: {c}"
        );
    }
}

#[test]
fn werewolf_master_screens_show_every_role_and_the_awaited_request() {
    use arbiter::board::display::werewolf::{master, render_master};
    let es = recorded();
    // While the human's first talk is awaited (a second after the request went out).
    let sent = es
        .iter()
        .find(|e| e.kind == "sent" && e.body["seat"] == 0 && e.body["request"] == "TALK")
        .unwrap();
    let now = sent.utc + chrono::Duration::seconds(1);
    let m = master(&es, now);
    assert!(m.table.ended.is_none());
    assert!(
        m.table.seats.iter().all(|s| s.role.is_some()),
        "the game master sees every role"
    );
    let (who, what, due) = m.pending.clone().unwrap();
    assert_eq!((who.as_str(), what.as_str()), ("Dave", "TALK"));
    assert_eq!(due, sent.body["deadline_ms"].as_u64());
    assert_eq!(m.game_ms, sent.mono_ms + 1000);
    for (w, h) in [(120, 40), (80, 24)] {
        let s = draw(w, h, |area, b| render_master(&m, area, b));
        insta::assert_snapshot!(format!("werewolf_master_during_{w}x{h}"), s);
    }
    // At the end: the incidents of the human's timeouts, nothing awaited, the clock stopped.
    let end = es.last().unwrap();
    let m = master(&es, end.utc + chrono::Duration::seconds(60));
    assert!(m.pending.is_none());
    assert_eq!(m.game_ms, end.mono_ms);
    assert!(
        m.incidents
            .iter()
            .any(|i| i.contains("Dave timed out on TALK"))
    );
}

/// Start `arbiter serve --games 1` on `listen`; its URL.
fn start_serve(m: &Path, listen: &str) -> (Child, String) {
    let mut serve = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["serve", "--match"])
        .arg(m)
        .args(["--rules", PROFILE, "--listen", listen, "--games", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let first = BufReader::new(serve.stdout.take().unwrap())
        .lines()
        .next()
        .unwrap()
        .unwrap();
    let url = first.strip_prefix("listening on ").unwrap().to_string();
    (serve, url)
}

#[test]
fn werewolf_seat_connects_again_when_the_table_restarts() {
    if !ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let mut reap = Reap(Vec::new());
    let (serve, url) = start_serve(&m, "127.0.0.1:0");
    reap.0.push(serve);
    let seat = Tmux::start_shell(
        "ww-seat-again",
        &format!("LANG=C.UTF-8 exec {{arbiter}} seat --connect {url} --team human"),
        tmp.path(),
        80,
        24,
    );
    seat.wait_for("answered NAME as human1", Duration::from_secs(20));
    for i in 1..=4 {
        reap.0.push(
            Command::new("python3")
                .arg(SEAT)
                .args([
                    "--url",
                    &url,
                    "--name",
                    &format!("bot{i}"),
                    "--fault",
                    "reconnect",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
    }
    // The table awaits the human's first answer: the server is killed and started again.
    seat.wait_for("request 1: the table asks you", Duration::from_secs(20));
    reap.0[0].kill().unwrap();
    reap.0[0].wait().unwrap();
    seat.wait_for("connection lost", Duration::from_secs(10));
    let listen = url
        .trim_start_matches("ws://")
        .trim_end_matches("/ws")
        .to_string();
    let (again, _) = start_serve(&m, &listen);
    reap.0.push(again);
    let mut done = 1;
    let until = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < until, "the game did not end within 120 s");
        let s = seat.screen();
        if s.contains("The game is over.") {
            break;
        }
        if let Some((n, ask)) = asked(&s).filter(|(n, _)| *n > done) {
            done = n;
            seat.keys(&[if ask == "TALK" || ask == "WHISPER" {
                "F6"
            } else {
                "Enter"
            }]);
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    let es = entries(&m);
    let h = es[0]["body"]["table"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s["name"] == "human1")
        .unwrap() as u64;
    assert!(
        es.iter()
            .any(|e| e["kind"] == "reconnected" && e["body"]["seat"] == h),
        "the human's seat is not recorded as reconnected"
    );
    assert_eq!(es.last().unwrap()["kind"], "game_ended");
}

// ----- the game master's acts, end to end -----

const PASS: &str = "the arbiter's own passphrase";

/// A match folder whose arbiter key is encrypted with [`PASS`] (the tests' cheap KDF cost).
fn encrypted_match(m: &Path) {
    use arbiter::record::sign;
    let public = sign::keygen_with_rounds(
        &m.join("keys").join("arbiter"),
        Some(PASS),
        "test arbiter",
        sign::TEST_KDF_ROUNDS,
    )
    .unwrap();
    sign::ensure_allowed_signer(m, "arbiter", &public).unwrap();
}

/// The arbiter's entries of game 1, as (kind, body).
fn arbiter_entries(m: &Path) -> Vec<(String, Value)> {
    entries(m)
        .into_iter()
        .filter(|e| e["actor"] == "arbiter")
        .map(|e| (e["kind"].as_str().unwrap().to_string(), e["body"].clone()))
        .collect()
}

/// Type the passphrase at the open prompt; the screen once `done` is on it.
fn passphrase(t: &Tmux, done: &str) -> String {
    t.type_text(PASS);
    t.keys(&["Enter"]);
    t.wait_for(done, Duration::from_secs(15))
}

#[test]
fn werewolf_master_acts_typed_on_the_screens_reach_the_log_and_the_seats() {
    if !ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    encrypted_match(&m);
    let md = m.display().to_string();
    let profile = crate::pty::repo_dir().join(PROFILE).display().to_string();
    let mut reap = Reap(Vec::new());
    // The audience's screen, started before any game: it waits for the game.
    let audience = Tmux::start_shell(
        "ww-gm-audience",
        &format!("LANG=C.UTF-8 exec {{arbiter}} display --match '{md}'"),
        tmp.path(),
        80,
        24,
    );
    audience.wait_for("waiting for the game", Duration::from_secs(15));
    // `serve` on a terminal: the game master's screen itself.
    let serve = Tmux::start_shell(
        "ww-gm-serve",
        &format!(
            "LANG=C.UTF-8 ARBITER_GM_PASS=\"{PASS}\" exec {{arbiter}} serve --match '{md}' --rules '{profile}' --listen 127.0.0.1:0 --games 1 --passphrase-env ARBITER_GM_PASS"
        ),
        tmp.path(),
        120,
        40,
    );
    let s = serve.wait_for("serving ws://", Duration::from_secs(20));
    let url = {
        let i = s.find("ws://").unwrap();
        let rest = &s[i..];
        rest[..rest.find("/ws").unwrap() + 3].to_string()
    };
    let seat = Tmux::start_shell(
        "ww-gm-seat",
        &format!("LANG=C.UTF-8 exec {{arbiter}} seat --connect {url} --team human"),
        tmp.path(),
        80,
        24,
    );
    seat.wait_for("answered NAME as human1", Duration::from_secs(20));
    let mut bots: Vec<Child> = (1..=4)
        .map(|i| {
            Command::new("python3")
                .arg(SEAT)
                .args(["--url", &url, "--name", &format!("bot{i}")])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let until = Instant::now() + Duration::from_secs(20);
    while !entries(&m).iter().any(|e| e["kind"] == "dealt") {
        assert!(Instant::now() < until, "no deal within 20 s");
        std::thread::sleep(Duration::from_millis(20));
    }

    // On serve's own screen: pause the table, with the passphrase.
    serve.wait_for("human1, human", Duration::from_secs(10));
    serve.keys(&["p"]);
    serve.wait_for("the reason:", Duration::from_secs(5));
    serve.type_text("power cut in hall B");
    serve.keys(&["Enter"]);
    serve.wait_for_all(
        &["the table PAUSES", "«paused»", "«power cut in hall B»"],
        Duration::from_secs(5),
    );
    serve.keys(&["y"]);
    serve.wait_for("arbiter's passphrase (signing key)", Duration::from_secs(5));
    passphrase(&serve, "recorded in game 1's log as #");
    let acts = arbiter_entries(&m);
    assert_eq!(acts.len(), 2, "{acts:?}");
    // The act's approval: the passphrase opened the key, which signed the act.
    assert_eq!(acts[0].0, "approved");
    assert_eq!(acts[0].1["command"], "pause power cut in hall B");
    assert_eq!(acts[0].1["approval"]["by"], "passphrase");
    assert_eq!(
        acts[0].1["approval"]["key"],
        entries(&m)[0]["body"]["arbiter_key"]["fingerprint"]
    );
    assert!(acts[0].1["approval"]["sig"].is_string());
    assert_eq!(acts[1].0, "paused");
    assert_eq!(acts[1].1["reason"], "power cut in hall B");
    serve.wait_for("PAUSED", Duration::from_secs(5));

    // On `play --match`'s screen, another process: end the game with a ruling. A wrong
    // passphrase first: nothing reaches the table, the prompt stays open.
    let gm = Tmux::start_shell(
        "ww-gm-play",
        &format!("LANG=C.UTF-8 exec {{arbiter}} play --match '{md}'"),
        tmp.path(),
        80,
        24,
    );
    gm.wait_for_all(&["Game master", "PAUSED"], Duration::from_secs(15));
    gm.keys(&["x"]);
    gm.wait_for("the ruling's winner", Duration::from_secs(5));
    gm.keys(&["Down", "Down", "Enter"]);
    gm.wait_for("the ruling's reason (NONE wins)", Duration::from_secs(5));
    gm.type_text("the hall lost power for good");
    gm.keys(&["Enter"]);
    gm.wait_for_all(
        &["the game ENDS now with NO winner", "«ruled»"],
        Duration::from_secs(5),
    );
    gm.keys(&["y"]);
    gm.wait_for("arbiter's passphrase (signing key)", Duration::from_secs(5));
    gm.type_text("not the passphrase");
    gm.keys(&["Enter"]);
    let s = gm.wait_for("wrong passphrase", Duration::from_secs(10));
    let failed = Instant::now();
    assert!(s.contains("the next is taken in 1 s"), "{s}");
    assert!(
        s.contains("arbiter's passphrase (signing key)"),
        "the prompt stays open:\n{s}"
    );
    assert_eq!(
        arbiter_entries(&m).len(),
        2,
        "a wrong passphrase records no act"
    );
    // Rule 5b, as the board keeps it: the failed passphrase itself is recorded, and listed.
    let failures: Vec<Value> = entries(&m)
        .into_iter()
        .filter(|e| e["kind"] == "authorization_failed")
        .collect();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0]["actor"], "kit");
    assert_eq!(
        failures[0]["body"]["command"],
        "end NONE the hall lost power for good"
    );
    assert_eq!(failures[0]["body"]["why"], "wrong passphrase");
    assert!(s.contains("the failure is logged"), "{s}");
    // As long as the screen says the next passphrase waits.
    while failed.elapsed() < Duration::from_secs(1) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let s = passphrase(&gm, "recorded in game 1's log as #");
    assert!(s.contains("ruled"), "{s}");

    // The log: each act one entry of the arbiter's, with its clause and reason.
    let es = entries(&m);
    let acts: Vec<&Value> = es
        .iter()
        .filter(|e| e["actor"] == "arbiter" && e["kind"] != "approved")
        .collect();
    assert_eq!(
        acts.iter()
            .map(|e| e["kind"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["paused", "ruled"]
    );
    for e in &acts {
        assert!(
            e["clause"].as_str().unwrap().contains("the arbiter's acts"),
            "{e}"
        );
    }
    assert_eq!(acts[1]["body"]["winner"], "NONE");
    assert_eq!(acts[1]["body"]["reason"], "the hall lost power for good");
    let end = es.iter().find(|e| e["kind"] == "game_ended").unwrap();
    assert_eq!(end["body"]["winner"], "NONE");

    // The seats see it: FINISH reaches every one (the agents end cleanly, the human's screen
    // shows the game over), and the audience sees the roles now.
    seat.wait_for("the game is over", Duration::from_secs(15));
    for b in &mut bots {
        let until = Instant::now() + Duration::from_secs(20);
        let st = loop {
            if let Some(st) = b.try_wait().unwrap() {
                break st;
            }
            assert!(Instant::now() < until, "an agent did not end after FINISH");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(st.success(), "an agent failed: {st}");
    }
    reap.0.append(&mut bots);
    audience.wait_for_all(
        &["the game is over: NONE", "WEREWOLF"],
        Duration::from_secs(15),
    );
    serve.wait_for_all(
        &[
            "ended by the arbiter: the hall lost power for good",
            "the server stopped",
        ],
        Duration::from_secs(15),
    );
    assert!(!m.join("control.sock").exists(), "serve removed its socket");
    // The audience never saw the failed passphrase; both signed acts verify.
    let shown = audience.screen();
    assert!(!shown.contains("passphrase"), "{shown}");
    let v = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["verify", "--match", &md])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&v.stdout).to_string();
    assert!(v.status.success(), "{said}");
    assert!(
        said.contains("2 act(s) of the arbiter signed at the game master's screen"),
        "{said}"
    );
    serve.keys(&["q"]);
    gm.keys(&["q"]);
}

#[test]
fn werewolf_display_started_before_any_game_waits_then_follows_whichever_game_opens() {
    if !tmux_available() {
        println!("SKIPPED: tmux is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let md = m.display().to_string();
    let d = Tmux::start_shell(
        "ww-wait-chess",
        &format!("LANG=C.UTF-8 exec {{arbiter}} display --match '{md}'"),
        tmp.path(),
        100,
        30,
    );
    d.wait_for("waiting for the game", Duration::from_secs(15));
    // A chess game opens: the board's display takes over.
    let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["script", "examples/scripts/quick.arb", "--match"])
        .arg(&m)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    d.wait_for_all(&["Garry Kasparov", "Nf6"], Duration::from_secs(15));
    // A werewolf game written into an empty folder is shown as one.
    let w = tmp.path().join("w");
    std::fs::create_dir_all(&w).unwrap();
    let wd = w.display().to_string();
    let d = Tmux::start_shell(
        "ww-wait-ww",
        &format!("LANG=C.UTF-8 exec {{arbiter}} display --match '{wd}'"),
        tmp.path(),
        80,
        24,
    );
    d.wait_for("waiting for the game", Duration::from_secs(15));
    std::fs::create_dir_all(w.join("game-1")).unwrap();
    std::fs::copy(
        "tests/fixtures/aiwolf/human-game.jsonl",
        w.join("game-1/log.jsonl"),
    )
    .unwrap();
    d.wait_for_all(
        &["AI Werewolf", "the game is over"],
        Duration::from_secs(15),
    );
}

// ----- the game master's acts, drawn -----

fn gm_keys(
    ui: &mut arbiter::board::display::gm::GmUi,
    m: &arbiter::board::display::werewolf::Master,
    keys: &[crossterm::event::KeyCode],
) {
    for k in keys {
        let _ = arbiter::board::display::gm::on_key(
            ui,
            crossterm::event::KeyEvent::new(*k, crossterm::event::KeyModifiers::NONE),
            m,
        );
    }
}

fn gm_text(
    ui: &mut arbiter::board::display::gm::GmUi,
    m: &arbiter::board::display::werewolf::Master,
    text: &str,
) {
    let keys: Vec<crossterm::event::KeyCode> =
        text.chars().map(crossterm::event::KeyCode::Char).collect();
    gm_keys(ui, m, &keys);
}

/// The game master's screen while the human's first talk is awaited.
fn master_at_first_talk() -> arbiter::board::display::werewolf::Master {
    let es = recorded();
    let sent = es
        .iter()
        .find(|e| e.kind == "sent" && e.body["seat"] == 0 && e.body["request"] == "TALK")
        .unwrap();
    arbiter::board::display::werewolf::master(&es, sent.utc + chrono::Duration::seconds(1))
}

#[test]
fn werewolf_master_screens_eject_picker_question_and_passphrase() {
    use arbiter::board::display::gm::GmUi;
    use arbiter::board::display::werewolf::render_master_with;
    use crossterm::event::KeyCode as K;
    let m = master_at_first_talk();
    let mut ui = GmUi {
        asks_passphrase: true,
        game: Some(1),
        ..GmUi::default()
    };
    // The picker of the seats, the second marked.
    gm_keys(&mut ui, &m, &[K::Char('e'), K::Down]);
    for (w, h) in [(120, 40), (80, 24)] {
        let s = draw(w, h, |a, b| render_master_with(&m, &ui, a, b));
        assert!(s.contains("▶ 2 Bob POSSESSED (bot1)"), "{s}");
        insta::assert_snapshot!(format!("werewolf_master_eject_picker_{w}x{h}"), s);
    }
    // What it records, asked y/n.
    gm_keys(&mut ui, &m, &[K::Enter]);
    gm_text(&mut ui, &m, "abusive talk");
    gm_keys(&mut ui, &m, &[K::Enter]);
    for (w, h) in [(120, 40), (80, 24)] {
        let s = draw(w, h, |a, b| render_master_with(&m, &ui, a, b));
        assert!(s.contains("is OUT") && s.contains("«ejected»"), "{s}");
        insta::assert_snapshot!(format!("werewolf_master_eject_question_{w}x{h}"), s);
    }
    // The passphrase, masked, after a wrong one.
    gm_keys(&mut ui, &m, &[K::Char('y')]);
    gm_text(&mut ui, &m, "secret");
    ui.message = Some(
        "wrong passphrase: the act did not reach the table (the failure is logged) · 1 failed passphrase in a row: the next is taken in 1 s · the prompt stays open (Esc leaves it)".into(),
    );
    for (w, h) in [(120, 40), (80, 24)] {
        let s = draw(w, h, |a, b| render_master_with(&m, &ui, a, b));
        assert!(s.contains("key): ******") && !s.contains("secret"), "{s}");
        insta::assert_snapshot!(format!("werewolf_master_passphrase_{w}x{h}"), s);
    }
}

/// The arbiter's acts, rule 5b as the board keeps it: a wrong passphrase typed at the game
/// master's screen is on its incident list; the audience's display never shows it (nor the
/// approvals of the acts), and no frame to a seat comes of it.
#[test]
fn werewolf_master_screens_rule_5b_a_failed_passphrase_is_an_incident_never_shown_to_the_audience()
{
    use arbiter::board::display::werewolf::{Entry, audience, master, render, render_master};
    let mut es = recorded();
    let at = es
        .iter()
        .position(|e| e.kind == "sent" && e.body["seat"] == 0 && e.body["request"] == "TALK")
        .unwrap();
    let (utc, mono_ms) = (es[at].utc, es[at].mono_ms);
    let entry = |kind: &str, body: serde_json::Value| Entry {
        utc,
        mono_ms,
        kind: kind.into(),
        body,
    };
    let added = [
        entry(
            "authorization_failed",
            serde_json::json!({"at_ms": mono_ms, "command": "eject #2 abusive talk", "why": "wrong passphrase"}),
        ),
        entry(
            "approved",
            serde_json::json!({"at_ms": mono_ms, "command": "note the hall is noisy",
                "act": {"Note": {"text": "the hall is noisy"}},
                "approval": {"by": "passphrase", "key": "SHA256:k", "signed_at": "2026-11-28T12:00:00.000Z", "sig": "c2ln"}}),
        ),
        entry(
            "noted",
            serde_json::json!({"at_ms": mono_ms, "text": "the hall is noisy"}),
        ),
    ];
    es.splice(at + 1..at + 1, added);
    let now = utc + chrono::Duration::seconds(1);
    let m = master(&es, now);
    assert!(
        m.incidents.iter().any(|i| i.contains(
            "wrong passphrase at the game master's screen for \"eject #2 abusive talk\""
        )),
        "{:?}",
        m.incidents
    );
    for (w, h) in [(120, 40), (80, 24)] {
        let s = draw(w, h, |area, b| render_master(&m, area, b));
        assert!(s.contains("wrong passphrase"), "{s}");
        insta::assert_snapshot!(format!("werewolf_master_failed_passphrase_{w}x{h}"), s);
        let a = audience(&es, now, Duration::ZERO);
        let s = draw(w, h, |area, b| render(&a, area, b));
        assert!(
            !s.contains("passphrase") && !s.contains("SHA256") && !s.contains("eject"),
            "{s}"
        );
    }
}

#[test]
fn werewolf_master_screens_ruling_and_the_wait_for_a_game() {
    use arbiter::board::display::gm::GmUi;
    use arbiter::board::display::werewolf::{Master, render, render_master_with};
    use crossterm::event::KeyCode as K;
    let m = master_at_first_talk();
    let mut ui = GmUi {
        game: Some(1),
        ..GmUi::default()
    };
    gm_keys(&mut ui, &m, &[K::Char('x'), K::Down, K::Down, K::Enter]);
    gm_text(&mut ui, &m, "server fault");
    gm_keys(&mut ui, &m, &[K::Enter]);
    for (w, h) in [(120, 40), (80, 24)] {
        let s = draw(w, h, |a, b| render_master_with(&m, &ui, a, b));
        assert!(s.contains("NO winner") && s.contains("y records it"), "{s}");
        insta::assert_snapshot!(format!("werewolf_master_ruling_question_{w}x{h}"), s);
    }
    // `serve`'s own screen before any game, and the audience's.
    let idle = Master::default();
    let ui = GmUi {
        address: Some("ws://127.0.0.1:8080/ws".into()),
        message: Some("seat human1 waits (1 of 5)".into()),
        ..GmUi::default()
    };
    let empty =
        arbiter::board::display::werewolf::audience(&[], chrono::Utc::now(), Duration::ZERO);
    for (w, h) in [(120, 40), (80, 24)] {
        let s = draw(w, h, |a, b| render_master_with(&idle, &ui, a, b));
        assert!(s.contains("serving ws://127.0.0.1:8080/ws"), "{s}");
        insta::assert_snapshot!(format!("werewolf_master_waiting_{w}x{h}"), s);
        let s = draw(w, h, |a, b| render(&empty, a, b));
        assert!(
            s.contains("waiting for the game") && !s.contains("AI Werewolf"),
            "{s}"
        );
        insta::assert_snapshot!(format!("werewolf_display_waiting_{w}x{h}"), s);
    }
}
