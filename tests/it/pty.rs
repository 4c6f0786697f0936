//! Whole-binary smoke tests of `arbiter play` in a real pseudo-terminal: tmux on a private socket,
//! keys sent with send-keys, the screen read with capture-pane and polled against a deadline.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

static NEXT: AtomicU32 = AtomicU32::new(0);

/// Default deadline for something to appear on screen.
pub const DEADLINE: Duration = Duration::from_secs(15);

/// One tmux server on a private socket with one session running one command.
/// The server is killed when this is dropped.
pub struct Tmux {
    pub socket: String,
    pub target: String,
}

pub fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Skip (with the reason printed) when tmux is absent.
macro_rules! need_tmux {
    () => {
        if !tmux_available() {
            eprintln!("skipped: tmux is not installed");
            return;
        }
    };
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_arbiter")
}

pub fn repo_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

impl Tmux {
    fn tmux(&self) -> Command {
        let mut c = Command::new("tmux");
        c.env_remove("TMUX").arg("-L").arg(&self.socket);
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.tmux().args(args).output().expect("tmux runs")
    }

    /// Start `arbiter ARGS...` in `cwd` in a w×h terminal; the session ends when it exits.
    pub fn start(name: &str, args: &[&str], cwd: &Path, w: u16, h: u16) -> Tmux {
        Tmux::start_with(name, args, cwd, w, h, false)
    }

    /// Run a shell command line in the pane (`sh -c LINE`); `{arbiter}` stands for the binary.
    pub fn start_shell(name: &str, line: &str, cwd: &Path, w: u16, h: u16) -> Tmux {
        let line = line.replace("{arbiter}", &shell_quote(bin()));
        Tmux::spawn(name, &line, cwd, w, h)
    }

    /// Like [`Tmux::start`], but when arbiter exits the pane stays, printing
    /// `arbiter exited CODE` and the terminal's line-discipline mode (to check it was restored).
    pub fn start_watched(name: &str, args: &[&str], cwd: &Path, w: u16, h: u16) -> Tmux {
        Tmux::start_with(name, args, cwd, w, h, true)
    }

    fn start_with(name: &str, args: &[&str], cwd: &Path, w: u16, h: u16, watch: bool) -> Tmux {
        let mut cmd = shell_quote(bin());
        for a in args {
            cmd.push(' ');
            cmd.push_str(&shell_quote(a));
        }
        let cmd = if watch {
            format!(
                "{cmd}; echo \"arbiter exited $?\"; stty -a | grep -o -- '-\\?icanon'; exec sleep 600"
            )
        } else {
            format!("exec {cmd}")
        };
        Tmux::spawn(name, &cmd, cwd, w, h)
    }

    /// A new server on a private socket whose one pane runs the shell line `cmd`.
    fn spawn(name: &str, cmd: &str, cwd: &Path, w: u16, h: u16) -> Tmux {
        let socket = format!(
            "arbiter-{name}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let t = Tmux {
            socket,
            target: "board".into(),
        };
        let (w, h) = (w.to_string(), h.to_string());
        let cwd = cwd.display().to_string();
        let out = t.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            &t.target,
            "-x",
            &w,
            "-y",
            &h,
            "-c",
            &cwd,
            cmd,
        ]);
        assert!(
            out.status.success(),
            "tmux new-session: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        t
    }

    /// Send tmux key names (`Space`, `Enter`, `F8`, `q`).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.target];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    /// Type text literally.
    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", &self.target, "-l", text]);
    }

    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", &self.target]).stdout)
            .into_owned()
    }

    /// Poll the screen until `needle` is on it, or fail with the last screen at the deadline.
    pub fn wait_for(&self, needle: &str, deadline: Duration) -> String {
        let until = Instant::now() + deadline;
        loop {
            let s = self.screen();
            if s.contains(needle) {
                return s;
            }
            if Instant::now() > until {
                panic!("'{needle}' did not appear within {deadline:?}; screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Poll the screen until every needle is on it at once (a frame is written in pieces: the
    /// title may be there before the rest), or fail with the last screen at the deadline.
    pub fn wait_for_all(&self, needles: &[&str], deadline: Duration) -> String {
        self.wait_until(
            |s| needles.iter().all(|n| s.contains(n)),
            &format!("{needles:?}"),
            deadline,
        )
    }

    /// Poll the screen until `ok` holds for it, or fail naming `what` with the last screen.
    pub fn wait_until(&self, ok: impl Fn(&str) -> bool, what: &str, deadline: Duration) -> String {
        let until = Instant::now() + deadline;
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            if Instant::now() > until {
                panic!("{what} not on the screen within {deadline:?}; screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Poll the screen until `needle` is gone, or fail with the last screen at the deadline.
    pub fn wait_gone(&self, needle: &str, deadline: Duration) -> String {
        let until = Instant::now() + deadline;
        loop {
            let s = self.screen();
            if !s.contains(needle) {
                return s;
            }
            if Instant::now() > until {
                panic!("'{needle}' still on the screen after {deadline:?}; screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Esc, then wait until `needle` (what Esc closes) is gone: a key sent right after Esc in
    /// the same read would reach the program as Alt+key, as on any terminal.
    pub fn escape_closing(&self, needle: &str) {
        self.keys(&["Escape"]);
        self.wait_gone(needle, DEADLINE);
    }

    /// The process id of the program in the pane.
    pub fn pid(&self) -> u32 {
        let out = self.run(&["display-message", "-p", "-t", &self.target, "#{pane_pid}"]);
        String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
    }

    /// Whether the session (and so the program) is gone, polled until the deadline.
    pub fn wait_exit(&self, deadline: Duration) -> bool {
        let until = Instant::now() + deadline;
        while Instant::now() < until {
            if !self
                .run(&["has-session", "-t", &self.target])
                .status
                .success()
            {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// A fresh match folder with the demo declarations, and the `arbiter play` arguments for it.
pub fn demo_match() -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let decl = dir.path().join("declarations.arb");
    std::fs::write(&decl, arbiter::board::tui::DEMO_DECLARATIONS).unwrap();
    // The demo match: the demo key serves a folder logs/demo only.
    let m = dir.path().join("logs").join("demo");
    let rules = repo_dir().join("rules/kasparov-deep-junior-2003.toml");
    let args = vec![
        "play".to_string(),
        "--match".to_string(),
        m.display().to_string(),
        "--rules".to_string(),
        rules.display().to_string(),
        "--declarations".to_string(),
        decl.display().to_string(),
    ];
    (dir, args)
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Start the demo game and press the clock: White's clock runs.
fn started(name: &str, args: &[String]) -> Tmux {
    started_with(Tmux::start(name, &strs(args), &repo_dir(), 100, 30))
}

fn started_with(t: Tmux) -> Tmux {
    t.wait_for("PRE-GAME", DEADLINE);
    t.keys(&["Space"]);
    t.wait_for("RUNNING", DEADLINE);
    t
}

/// Press the clock with a move: Space opens the move line, Enter records it.
/// Type a move on the clock screen (its first letter opens the move line) and Enter: the move and
/// its press at once.
fn play(t: &Tmux, san: &str) {
    let (first, rest) = san.split_at(1);
    t.type_text(first);
    t.wait_for("▸", DEADLINE);
    t.type_text(rest);
    t.keys(&["Enter"]);
}

/// The move-list row of move `n` on a screen (`  1. e4   0:02 1:59:58   e5   0:01 1:59:59`).
fn row(screen: &str, n: u32) -> String {
    let tag = format!(" {n}. ");
    screen
        .lines()
        .find(|l| l.contains(&tag))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn pty_start_and_play_two_moves() {
    need_tmux!();
    let (_dir, args) = demo_match();
    let t = started_with(Tmux::start_watched(
        "moves",
        &strs(&args),
        &repo_dir(),
        100,
        30,
    ));
    play(&t, "e4");
    t.wait_for("1. e4", DEADLINE);
    play(&t, "e5");
    // line 0, clock started, authorized (5b: the start is the arbiter's), two moves
    t.wait_until(
        |s| {
            let r = row(s, 1);
            s.contains("move_made black e5")
                && r.contains("e4")
                && r.contains("e5")
                && s.contains("log: 5 entries")
        },
        "row 1 with e4 and e5, and 5 entries",
        DEADLINE,
    );
    t.keys(&["q"]);
    t.wait_for("quit the board UI?", DEADLINE);
    t.keys(&["y"]);
    // The terminal is restored: main screen back, canonical mode on.
    let s = t.wait_for("arbiter exited 0", DEADLINE);
    assert!(!s.contains("ARBITER"), "alternate screen not left:\n{s}");
    let s = t.wait_for("icanon", DEADLINE);
    assert!(!s.contains("-icanon"), "raw mode left on:\n{s}");
}

/// 4a / 6b: the operator presses for the machine on F4 the instant it moves; the PRESSED panel
/// asks for the move, typed after while the human's clock runs; the log holds the press and then
/// the move naming it.
#[test]
fn pty_laws_6_2_f4_presses_for_the_machine_and_the_move_is_typed_after() {
    need_tmux!();
    let (dir, args) = demo_match();
    let t = started_with(Tmux::start_watched(
        "press",
        &strs(&args),
        &repo_dir(),
        100,
        30,
    ));
    play(&t, "e4");
    t.wait_for("1. e4", DEADLINE);
    t.keys(&["F4"]);
    t.wait_for("PRESSED", DEADLINE);
    t.wait_for("clock_pressed", DEADLINE);
    play(&t, "e5");
    let s = t.wait_for("move_made black e5", DEADLINE);
    assert!(!s.contains("PRESSED"), "the press has its move:\n{s}");
    t.keys(&["q"]);
    t.wait_for("quit the board UI?", DEADLINE);
    t.keys(&["y"]);
    t.wait_for("arbiter exited 0", DEADLINE);
    let log =
        std::fs::read_to_string(dir.path().join("logs/demo/game-1/log.jsonl")).unwrap_or_default();
    let kinds: Vec<String> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| v["kind"].as_str().unwrap_or("").to_string())
        .collect();
    let press = kinds
        .iter()
        .position(|k| k == "clock_pressed")
        .expect("a press");
    assert_eq!(kinds[press + 1], "move_made", "{kinds:?}");
    assert!(log.contains("\"pressed_at\""), "{log}");
}

#[test]
fn pty_draw_offer_consultation_countdown() {
    need_tmux!();
    let (_dir, args) = demo_match();
    let t = started("draw", &args);
    play(&t, "e4");
    t.wait_for("1. e4", DEADLINE);
    t.keys(&[":"]);
    t.type_text("human offer-draw");
    t.keys(&["Enter"]);
    t.wait_for("y = yes", DEADLINE);
    t.keys(&["y"]);
    t.wait_for("9e DRAW OFFER", DEADLINE);
    // F8 prefills the consultation with the registered team.
    t.keys(&["F8"]);
    t.wait_for("operator consult Shay Bushinsky, Boris Alterman", DEADLINE);
    t.keys(&["Enter"]);
    t.wait_for("operator consulting", DEADLINE);
    // The countdown ticks without any key: 9:58 appears on its own.
    t.wait_for_all(
        &[
            "9:58 left of 10:00",
            "consulting: Shay Bushinsky, Boris Alterman",
        ],
        DEADLINE,
    );
    t.keys(&["q"]);
    t.wait_for("quit the board UI?", DEADLINE);
    t.keys(&["y"]);
    assert!(
        t.wait_exit(DEADLINE),
        "arbiter play did not exit:\n{}",
        t.screen()
    );
}

#[test]
fn pty_clause_13a_hand_over_on_the_board_after_the_result() {
    need_tmux!();
    let (dir, args) = demo_match();
    let copy = |n: &str| {
        let p = dir.path().join(n);
        std::fs::write(&p, "info depth 1 score cp 10 pv e7e5\nbestmove e7e5\n").unwrap();
        p.display().to_string()
    };
    let (a, b) = (copy("a.log"), copy("b.log"));
    let t = started("handover", &args);
    play(&t, "e4");
    t.wait_for("1. e4", DEADLINE);
    t.keys(&[":"]);
    t.type_text("human resign");
    t.keys(&["Enter"]);
    t.wait_for("irreversible", DEADLINE);
    t.keys(&["y"]);
    t.wait_for("13 HAND-OVER", DEADLINE);
    t.keys(&[":"]);
    t.type_text(&format!("arbiter archive {a}"));
    t.keys(&["Enter"]);
    t.wait_for("1 copy of the machine's log", DEADLINE);
    t.keys(&["y"]);
    t.wait_for("at least 2 are required", DEADLINE);
    t.keys(&[":"]);
    t.type_text(&format!("arbiter archive {a} {b}"));
    t.keys(&["Enter"]);
    t.wait_for("2 copies of the machine's log", DEADLINE);
    t.keys(&["y"]);
    t.wait_for("13a machine's log (2 copies) ✓ archived", DEADLINE);
    t.keys(&["q"]);
    t.wait_for("quit the board UI?", DEADLINE);
    t.keys(&["y"]);
    assert!(
        t.wait_exit(DEADLINE),
        "arbiter play did not exit:\n{}",
        t.screen()
    );
    let log = std::fs::read_to_string(dir.path().join("logs/demo/game-1/log.jsonl")).unwrap();
    let archived: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("\"kind\":\"engine_log_archived\""))
        .collect();
    assert_eq!(archived.len(), 1, "{log}");
    assert!(
        archived[0].contains("\"clause\":\"13c\""),
        "{}",
        archived[0]
    );
}

fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = stat.rsplit_once(')').unwrap().1;
    let f: Vec<&str> = after.split_whitespace().collect();
    // fields 14 and 15 of stat (utime, stime) are 12 and 13 after the command name
    f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

/// Idle cost with a running clock over 60 s (run with `--ignored`; prints the figures).
#[test]
#[ignore = "takes 60 s; run explicitly to measure"]
fn pty_idle_cpu_and_rss_with_running_clock() {
    need_tmux!();
    if !Path::new("/proc/self/stat").exists() {
        eprintln!("skipped: no /proc");
        return;
    }
    let (_dir, args) = demo_match();
    let t = started("idle", &args);
    let pid = t.pid();
    let tck: u64 = Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100);
    let (c0, t0) = (cpu_ticks(pid), Instant::now());
    std::thread::sleep(Duration::from_secs(60));
    let (c1, secs) = (cpu_ticks(pid), t0.elapsed().as_secs_f64());
    let cpu_s = (c1 - c0) as f64 / tck as f64;
    let rss = rss_kib(pid);
    eprintln!(
        "arbiter play, clock running, {secs:.1} s: CPU {cpu_s:.3} s ({:.3} %), VmRSS {rss} KiB",
        100.0 * cpu_s / secs
    );
    // A measurement, not a timed assertion: the figure goes to docs/reliability.md.
}

#[test]
fn pty_kill_9_and_resume_from_the_log() {
    need_tmux!();
    let (dir, args) = demo_match();
    let t = started("kill", &args);
    play(&t, "e4");
    t.wait_for("1. e4", DEADLINE);
    play(&t, "e5");
    t.wait_for("log: 5 entries", DEADLINE);
    let pid = t.pid();
    let st = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    assert!(t.wait_exit(DEADLINE), "arbiter survived kill -9");
    drop(t);
    // Same match folder: the game is rebuilt from its log, and the gap must be decided first.
    let t = Tmux::start("kill2", &strs(&args), &repo_dir(), 120, 30);
    // The moves are restored; the pending ruling stays red until acknowledged.
    t.wait_until(
        |s| {
            let r = row(s, 1);
            s.contains("RESTART")
                && r.contains("e4")
                && r.contains("e5")
                && s.contains("restart ruling pending")
                && s.contains("log: 5 entries")
        },
        "RESTART, row 1 with e4 and e5, the pending ruling, 5 entries",
        DEADLINE,
    );
    play(&t, "Nf3");
    t.wait_for("decide first", DEADLINE);
    // The refused move comes back on its line for correction: drop it.
    t.escape_closing("▸");
    t.keys(&[":"]);
    t.type_text("arbiter restart-gap waive the kit was killed by the test");
    t.keys(&["Enter"]);
    // The question says what the ruling does to the clock, in words.
    t.wait_for("is charged nothing", DEADLINE);
    t.keys(&["y"]);
    t.wait_for("log: 7 entries", DEADLINE);
    play(&t, "Nf3");
    t.wait_for("2. Nf3", DEADLINE);
    t.keys(&["q"]);
    t.wait_for("quit the board UI?", DEADLINE);
    t.keys(&["y"]);
    assert!(
        t.wait_exit(DEADLINE),
        "arbiter play did not exit:\n{}",
        t.screen()
    );
    let log = dir.path().join("logs/demo/game-1/log.jsonl");
    let entries = arbiter::record::journal::read_entries(&log).unwrap();
    let kinds: Vec<&str> = entries.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "game_opened",
            "clock_started",
            "authorized",
            "move_made",
            "move_made",
            "restart_gap",
            "authorized",
            "move_made"
        ]
    );
    // The demo key is not encrypted: the arbiter's entries say so (5b).
    assert!(
        entries[2].body["by"]
            .as_str()
            .unwrap()
            .starts_with("unencrypted-key"),
        "{:?}",
        entries[2].body
    );
    assert_eq!(entries[6].body["first"], serde_json::json!(5));
    let gap = &entries[5];
    assert_eq!(gap.clause, "8b");
    assert_eq!(gap.body["charged"], serde_json::json!(false));
    assert!(
        gap.body["gap_ms"].as_u64().unwrap() > 0,
        "the measured gap is recorded, not the typed 0"
    );
    // Closing the board signed everything: the log verifies.
    let out = Command::new(bin())
        .args(["verify", "--match"])
        .arg(dir.path().join("logs/demo"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// An encrypted arbiter key's passphrase is asked on the terminal before the board
/// opens (no environment variable, nothing in shell history); a wrong one gets a clear message.
/// A match (not the demo) whose arbiter key is encrypted with the passphrase `kasparov-2003`.
fn encrypted_match() -> (tempfile::TempDir, Vec<String>, PathBuf) {
    encrypted_match_with(arbiter::record::sign::TEST_KDF_ROUNDS)
}

/// [`encrypted_match`] with a key encrypted at `rounds` bcrypt-pbkdf rounds.
fn encrypted_match_with(rounds: u32) -> (tempfile::TempDir, Vec<String>, PathBuf) {
    let (dir, mut args) = demo_match();
    let m = dir.path().join("nyc-2003");
    let key = m.join("keys").join("arbiter");
    let public =
        arbiter::record::sign::keygen_with_rounds(&key, Some("kasparov-2003"), "arbiter", rounds)
            .unwrap();
    arbiter::record::sign::ensure_allowed_signer(&m, "arbiter", &public).unwrap();
    args[2] = m.display().to_string();
    (dir, args, m)
}

#[test]
fn pty_play_asks_the_key_passphrase_on_the_terminal() {
    need_tmux!();
    let (_dir, args, _m) = encrypted_match();
    let t = Tmux::start("passphrase", &strs(&args), &repo_dir(), 100, 30);
    t.wait_for("passphrase of", DEADLINE);
    t.type_text("kasparov-2003");
    t.keys(&["Enter"]);
    t.wait_for("PRE-GAME", DEADLINE);
    t.keys(&["q"]);
    t.wait_for("quit the board UI?", DEADLINE);
    t.keys(&["y"]);
    assert!(t.wait_exit(DEADLINE), "{}", t.screen());

    let t = Tmux::start_watched("passphrase-wrong", &strs(&args), &repo_dir(), 100, 30);
    t.wait_for("passphrase of", DEADLINE);
    t.type_text("not-it");
    t.keys(&["Enter"]);
    t.wait_for("wrong passphrase for key", DEADLINE);
}

#[test]
fn pty_clause_5b_only_the_arbiter_s_passphrase_records_an_arbiter_only_command() {
    need_tmux!();
    let (_dir, args, m) = encrypted_match();
    let t = Tmux::start("gate", &strs(&args), &repo_dir(), 100, 30);
    t.wait_for("passphrase of", DEADLINE);
    t.type_text("kasparov-2003");
    t.keys(&["Enter"]);
    t.wait_for("PRE-GAME", DEADLINE);
    // Starting the clock is the arbiter's: it asks his passphrase.
    t.keys(&["Space"]);
    t.wait_for("only the arbiter: authorize", DEADLINE);
    t.type_text("kasparov-2003");
    t.keys(&["Enter"]);
    t.wait_for("RUNNING", DEADLINE);
    play(&t, "e4");
    t.wait_for("1. e4", DEADLINE);
    // The operator at the same keyboard tries to give the machine ten minutes.
    t.keys(&[":"]);
    t.type_text("arbiter correct 6d clock machine +600 the operator asks");
    t.keys(&["Enter"]);
    t.wait_for("y = yes", DEADLINE);
    t.keys(&["y"]);
    let s = t.wait_for("only the arbiter: authorize", DEADLINE);
    assert!(!s.contains("not-it"), "the passphrase is masked");
    t.type_text("not-it");
    let s = t.wait_for("******", DEADLINE);
    assert!(!s.contains("not-it"), "the passphrase is masked:\n{s}");
    t.keys(&["Enter"]);
    t.wait_for("refused (rule 5b): wrong passphrase", DEADLINE);
    // After a failure the next passphrase waits, and the screen says how long.
    t.wait_for("passphrase in a row: the next is taken in 1 s", DEADLINE);
    // The prompt stays open after the failure: Esc leaves it (nothing recorded), then q quits.
    t.keys(&["Escape"]);
    t.wait_for("not authorized, nothing recorded", DEADLINE);
    t.keys(&["q"]);
    t.wait_for("quit the board UI?", DEADLINE);
    t.keys(&["y"]);
    // The closing checkpoint asks the passphrase (the board kept none): Enter alone leaves it.
    t.wait_for("checkpoint at close", DEADLINE);
    t.keys(&["Enter"]);
    assert!(t.wait_exit(DEADLINE), "{}", t.screen());
    let log = m.join("game-1/log.jsonl");
    let entries = arbiter::record::journal::read_entries(&log).unwrap();
    let kinds: Vec<&str> = entries.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "game_opened",
            "clock_started",
            "authorized",
            "move_made",
            "authorization_failed"
        ],
        "no clock correction was recorded"
    );
    assert_eq!(entries[2].body["by"], serde_json::json!("passphrase"));
    assert_eq!(entries[4].clause, "5b");
    assert_eq!(entries[4].actor, "kit");
    assert!(
        entries[4].body["command"]
            .as_str()
            .unwrap()
            .starts_with("arbiter correct 6d clock machine +600"),
        "{:?}",
        entries[4].body
    );
}

#[test]
fn pty_moves_with_times_and_the_log_page_at_80x24_and_120x40() {
    need_tmux!();
    for (w, h) in [(80u16, 24u16), (120, 40)] {
        let (_dir, args) = demo_match();
        let t = started_with(Tmux::start(
            &format!("log{w}"),
            &strs(&args),
            &repo_dir(),
            w,
            h,
        ));
        play(&t, "e4");
        t.wait_for("move_made white e4", DEADLINE);
        play(&t, "e5");
        t.wait_for("move_made black e5", DEADLINE);
        play(&t, "Nf3");
        // Two columns, each move with its time and the clock after it; the diagram beside.
        let s = t.wait_until(
            |s| {
                let r1 = row(s, 1);
                s.contains("move_made white Nf3")
                    && r1.contains("e4")
                    && r1.contains("e5")
                    && r1.contains("1:59:")
                    && row(s, 2).contains("Nf3")
                    && s.contains("a  b  c  d  e  f  g  h")
            },
            "row 1 with e4, e5 and a clock, row 2 with Nf3, the diagram",
            DEADLINE,
        );
        eprintln!("{w}x{h}:\n{s}");
        // The log page: every entry with number, actor and clause, the text in full.
        t.keys(&["l"]);
        t.wait_for_all(
            &[
                "the log: 6 entries",
                "#5",
                "clause 6a",
                "move_made · side: white · san: Nf3",
            ],
            DEADLINE,
        );
        // Scrolled back to the top, line 0 is there with its declarations.
        t.keys(&["Home"]);
        t.wait_for_all(&["#0", "game_opened"], DEADLINE);
        t.keys(&["Escape"]);
        t.wait_for("RUNNING", DEADLINE);
        eprintln!("{w}x{h} after 2. Nf3:\n{}", t.screen());
    }
}

#[test]
fn pty_play_without_a_terminal_is_refused_with_no_escape_sequence() {
    let (dir, args) = demo_match();
    let out = Command::new(bin())
        .args(&args)
        .stdin(std::process::Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(65), "{stderr}");
    assert!(stderr.contains("needs a terminal"), "{stderr}");
    assert!(out.stdout.is_empty(), "stdout: {:?}", out.stdout);
    assert!(!out.stderr.contains(&0x1b), "escape in stderr: {stderr:?}");
    // Nothing was opened: no game folder.
    assert!(!dir.path().join("match/game-1").exists());
}

#[test]
fn pty_a_terminal_left_raw_is_restored_by_the_next_start() {
    need_tmux!();
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("match").display().to_string();
    // What kill -9 leaves: raw mode, no echo, the alternate screen. The next start (here failing
    // on a missing rules file) puts the terminal back before anything else.
    let line = format!(
        "stty raw -echo; printf '\\033[?1049h'; {{arbiter}} play --match '{m}' --rules /nonexistent.toml; echo \"exit $?\"; stty -a | grep -o -- '-\\?icanon'; exec sleep 600"
    );
    let t = Tmux::start_shell("raw", &line, &repo_dir(), 100, 30);
    let s = t.wait_for("icanon", DEADLINE);
    assert!(!s.contains("-icanon"), "still raw:\n{s}");
    assert!(s.contains("exit 66"), "{s}");
}

/// The kinds of a game's log entries, in order.
fn log_entries(m: &Path) -> Vec<arbiter::log::Entry> {
    arbiter::record::journal::read_entries(&m.join("game-1/log.jsonl")).unwrap_or_default()
}

/// Poll the log until it holds `n` entries of `kind`.
fn wait_log(m: &Path, kind: &str, n: usize) -> Vec<arbiter::log::Entry> {
    let until = Instant::now() + DEADLINE;
    loop {
        let e = log_entries(m);
        if e.iter().filter(|x| x.kind == kind).count() >= n {
            return e;
        }
        assert!(
            Instant::now() < until,
            "{n} '{kind}' entries not in the log within {DEADLINE:?}: {:?}",
            e.iter().map(|x| x.kind.as_str()).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Start an encrypted match's game: the passphrase at open, Space, the passphrase for the start.
fn started_encrypted(name: &str, args: &[String]) -> Tmux {
    let t = Tmux::start(name, &strs(args), &repo_dir(), 110, 50);
    t.wait_for("passphrase of", DEADLINE);
    t.type_text("kasparov-2003");
    t.keys(&["Enter"]);
    t.wait_for("PRE-GAME", DEADLINE);
    t.keys(&["Space"]);
    t.wait_for("only the arbiter: authorize", DEADLINE);
    t.type_text("kasparov-2003");
    t.keys(&["Enter"]);
    t.wait_for("RUNNING", DEADLINE);
    t
}

/// 4a / 6b: a press is never lost. F12 (the human's) and F4 (the operator's for the
/// machine) press in every state of the screen — the `:` line, the log page, help, a y/n
/// question, the passphrase prompt — the dialog stays open, and nothing is typed into it.
#[test]
fn pty_laws_6_2_a_press_during_every_dialog_is_recorded_and_the_dialog_stays() {
    need_tmux!();
    let (_dir, args, m) = encrypted_match();
    let t = started_encrypted("press-dialogs", &args);
    // The `:` line, half typed: F12 presses White's (the human's) clock; the text stays.
    t.keys(&[":"]);
    t.type_text("arbiter note typing");
    t.keys(&["F12"]);
    wait_log(&m, "clock_pressed", 1);
    let s = t.wait_for("clock_pressed", DEADLINE);
    assert!(
        s.contains(" :  arbiter note typing"),
        "the line stays:\n{s}"
    );
    t.escape_closing("arbiter note typing");
    play(&t, "e4");
    t.wait_for("1. e4", DEADLINE);
    // The log page: F4 presses Black's (the machine's) clock; the page stays.
    t.keys(&["l"]);
    t.wait_for("the log:", DEADLINE);
    t.keys(&["F4"]);
    wait_log(&m, "clock_pressed", 2);
    t.wait_for("clock_pressed · side: black", DEADLINE);
    t.escape_closing("the log:");
    play(&t, "e5");
    t.wait_for("1. e4", DEADLINE);
    wait_log(&m, "move_made", 2);
    // Help.
    t.keys(&["?"]);
    t.wait_for("KEYS", DEADLINE);
    t.keys(&["F12"]);
    wait_log(&m, "clock_pressed", 3);
    assert!(t.screen().contains("KEYS"), "help stays open");
    t.escape_closing("KEYS");
    play(&t, "Nf3");
    wait_log(&m, "move_made", 3);
    // A y/n question.
    t.keys(&[":"]);
    t.type_text("human resign");
    t.keys(&["Enter"]);
    t.wait_for("irreversible", DEADLINE);
    t.keys(&["F4"]);
    wait_log(&m, "clock_pressed", 4);
    assert!(t.screen().contains("irreversible"), "the question stays");
    t.keys(&["n"]);
    t.wait_for("cancelled, nothing recorded", DEADLINE);
    play(&t, "Nc6");
    wait_log(&m, "move_made", 4);
    // The passphrase prompt: the press is recorded and not typed as a character.
    t.keys(&[":"]);
    t.type_text("arbiter note the press keys work");
    t.keys(&["Enter"]);
    t.wait_for("y = yes", DEADLINE);
    t.keys(&["y"]);
    t.wait_for("only the arbiter: authorize", DEADLINE);
    t.type_text("kas");
    t.keys(&["F12"]);
    wait_log(&m, "clock_pressed", 5);
    let s = t.wait_for("only the arbiter: authorize", DEADLINE);
    assert!(
        s.contains("(signing key): ***\n") || s.contains("(signing key): *** "),
        "{s}"
    );
    t.type_text("parov-2003");
    t.keys(&["Enter"]);
    // The start's authorization and the note's.
    let e = wait_log(&m, "authorized", 2);
    let kinds: Vec<&str> = e.iter().map(|x| x.kind.as_str()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "clock_pressed").count(), 5);
    assert_eq!(kinds.last(), Some(&"authorized"), "{kinds:?}");
    assert!(!kinds.contains(&"authorization_failed"), "{kinds:?}");
}

fn utc_ms(e: &arbiter::log::Entry) -> i64 {
    chrono::DateTime::parse_from_rfc3339(&e.utc)
        .unwrap()
        .timestamp_millis()
}

/// 4a / 6b: a press while the passphrase is being checked (the KDF takes a part of a
/// second at the kit's cost, here seconds with a slower key) is recorded at its key's instant,
/// not when the check ends: the board reads keys while it checks.
#[test]
fn pty_laws_6_2_a_press_while_the_passphrase_is_checked_keeps_its_instant() {
    need_tmux!();
    let (_dir, args, m) = encrypted_match_with(400);
    let t = started_encrypted("press-during-kdf", &args);
    t.keys(&[":"]);
    t.type_text("arbiter note a press during the check");
    t.keys(&["Enter"]);
    t.wait_for("y = yes", DEADLINE);
    t.keys(&["y"]);
    t.wait_for("only the arbiter: authorize", DEADLINE);
    t.type_text("kasparov-2003");
    let before = chrono::Utc::now().timestamp_millis();
    t.keys(&["Enter", "F12"]);
    let e = wait_log(&m, "clock_pressed", 1);
    let seen = chrono::Utc::now().timestamp_millis();
    let press = e.iter().find(|x| x.kind == "clock_pressed").unwrap();
    let at = utc_ms(press);
    // The check itself took long (else this test would show nothing).
    assert!(
        seen - before >= 1000,
        "the check took only {} ms",
        seen - before
    );
    // Relative, not a fixed bound (a loaded machine may deliver the key late): a press timed when
    // the check ended would lie near `seen`; one timed at its key lies in the first half.
    assert!(
        at >= before - 100 && at - before < (seen - before) / 2,
        "the press is recorded at its key: key sent at {before}, press at {at}, seen at {seen}"
    );
    let kinds: Vec<&str> = e.iter().map(|x| x.kind.as_str()).collect();
    let n = kinds.len();
    assert_eq!(
        &kinds[n - 3..],
        ["note", "authorized", "clock_pressed"],
        "{kinds:?}"
    );
}

/// Rule 1 and 5b: the stop is timed at the key. `s`, then 3 s before the passphrase:
/// the stop's time is the key's (to the 100 ms), not the passphrase's; the authorization follows
/// with its own time. Esc instead of the passphrase leaves the act recorded, its authorization
/// pending.
#[test]
fn pty_clause_1_the_stop_is_timed_at_the_key_not_at_the_passphrase() {
    need_tmux!();
    let (_dir, args, m) = encrypted_match();
    let t = started_encrypted("stop-at-key", &args);
    play(&t, "e4");
    wait_log(&m, "move_made", 1);
    let before = chrono::Utc::now().timestamp_millis();
    t.keys(&["s"]);
    let after = chrono::Utc::now().timestamp_millis();
    t.wait_for("recorded at the key as #", DEADLINE);
    // The arbiter takes three seconds to type his passphrase.
    std::thread::sleep(Duration::from_secs(3));
    let typed = chrono::Utc::now().timestamp_millis();
    t.type_text("kasparov-2003");
    t.keys(&["Enter"]);
    let e = wait_log(&m, "authorized", 2);
    let stop = e.iter().find(|x| x.kind == "clock_stopped").unwrap();
    let auth = e.last().unwrap();
    assert_eq!(auth.kind, "authorized");
    assert_eq!(auth.body["first"], serde_json::json!(stop.seq));
    let at = utc_ms(stop);
    // Ordered, not timed (a loaded machine may deliver the key late): the stop's instant lies
    // after the key was sent and before the passphrase was typed.
    assert!(
        at >= before - 100 && at < typed,
        "the stop is timed at the key: key sent {before}..{after}, passphrase typed at {typed}, stop at {at}"
    );
    assert!(
        utc_ms(auth) - at >= 2900,
        "the authorization came 3 s later: {} ms",
        utc_ms(auth) - at
    );
    // Resume, and Esc instead of the passphrase: the resume stands, its authorization pending.
    t.keys(&["r"]);
    t.wait_for("recorded at the key as #", DEADLINE);
    t.keys(&["Escape"]);
    let e = wait_log(&m, "authorization_failed", 1);
    let failed = e.last().unwrap();
    assert!(
        failed.body["why"]
            .as_str()
            .unwrap()
            .contains("authorization is pending"),
        "{:?}",
        failed.body
    );
    assert_eq!(e[e.len() - 2].kind, "clock_resumed");
    t.wait_for("authorization pending", DEADLINE);
}

/// The screen shows only what is in the log. The board is killed (kill -9) with help
/// over the screen and reopened in the same terminal: its screen equals a fresh board's on the
/// same log, cell for cell (digits masked: the clocks run), no stale cell left.
#[test]
fn pty_a_board_reopened_after_kill_9_in_the_same_terminal_shows_no_stale_cell() {
    need_tmux!();
    let (_dir, args) = demo_match();
    let quoted: Vec<String> = args.iter().map(|a| shell_quote(a)).collect();
    let line = format!(
        "{{arbiter}} {a}; {{arbiter}} {a}; exec sleep 600",
        a = quoted.join(" ")
    );
    let t = Tmux::start_shell("reopen", &line, &repo_dir(), 100, 30);
    let t = started_with(t);
    for san in ["e4", "e5", "Nf3", "Nc6", "Bb5"] {
        play(&t, san);
    }
    t.wait_for("3. Bb5", DEADLINE);
    // Stopped clocks: the reopened board has no restart gap to rule on.
    t.keys(&["s"]);
    t.wait_for("STOPPED", DEADLINE);
    t.keys(&["?"]);
    t.wait_for("KEYS", DEADLINE);
    let shell = t.pid();
    let out = Command::new("pgrep")
        .args(["-P", &shell.to_string()])
        .output()
        .unwrap();
    let pid = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(!pid.is_empty(), "the board's pid");
    assert!(
        Command::new("kill")
            .args(["-9", &pid])
            .status()
            .unwrap()
            .success()
    );
    // The shell opens the board again in the same terminal.
    let until = Instant::now() + DEADLINE;
    while Instant::now() < until {
        let out = Command::new("pgrep")
            .args(["-P", &shell.to_string()])
            .output()
            .unwrap();
        let now = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !now.is_empty() && now != pid {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    t.wait_for("3. Bb5", DEADLINE);
    // The message line (the terminal-restored notice, the unencrypted key's) cleared.
    t.escape_closing("encrypted");
    let reopened = t.wait_for("3. Bb5", DEADLINE);
    t.keys(&["q"]);
    t.wait_for("quit the board UI?", DEADLINE);
    t.keys(&["y"]);
    t.wait_for("", DEADLINE);
    drop(t);
    let fresh_t = Tmux::start("fresh", &strs(&args), &repo_dir(), 100, 30);
    fresh_t.wait_for("3. Bb5", DEADLINE);
    fresh_t.escape_closing("encrypted");
    let fresh = fresh_t.wait_for("3. Bb5", DEADLINE);
    let mask = |s: &str| -> Vec<String> {
        s.lines()
            .map(|l| {
                // Quitting the reopened board signs its tail: the checkpoint's count and code on
                // the status line are the one fact that may differ between the two boards.
                let l = match l.find(" · checkpoint: ") {
                    Some(at) => &l[..at],
                    None => l,
                };
                l.chars()
                    .map(|c| if c.is_ascii_digit() { '#' } else { c })
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect()
    };
    let (a, b) = (mask(&reopened), mask(&fresh));
    for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
        // The big digits of a clock are blocks, not digits: rows 2-5 hold them; both clocks are
        // stopped, so they are equal too.
        assert_eq!(
            x, y,
            "row {i} differs\nreopened:\n{reopened}\nfresh:\n{fresh}"
        );
    }
    assert!(
        !reopened.contains("KEYS"),
        "the help of the killed board is gone:\n{reopened}"
    );
}

/// One number per entry. After a failed authorization (wrong passphrase) the log
/// page shows every entry under the number it has in the file (`seq`), the failed authorization
/// included, and the title counts what the file holds.
#[test]
fn pty_the_log_page_numbers_entries_as_the_file_after_a_failed_authorization() {
    need_tmux!();
    let (_dir, args, m) = encrypted_match();
    let t = started_encrypted("numbers", &args);
    play(&t, "e4");
    wait_log(&m, "move_made", 1);
    t.keys(&[":"]);
    t.type_text("arbiter note a wrong passphrase follows");
    t.keys(&["Enter"]);
    t.wait_for("y = yes", DEADLINE);
    t.keys(&["y"]);
    t.wait_for("only the arbiter: authorize", DEADLINE);
    t.type_text("not-it");
    t.keys(&["Enter"]);
    t.wait_for("refused (rule 5b): wrong passphrase", DEADLINE);
    // The board took the failure before it showed it: its wait before the next passphrase ends
    // at the latest one first wait from now.
    let next_taken =
        Instant::now() + Duration::from_millis(arbiter::board::tui::backoff::FIRST_WAIT_MS);
    // The prompt stays open after the failure: Esc leaves it.
    t.keys(&["Escape"]);
    t.wait_for("not authorized, nothing recorded", DEADLINE);
    play(&t, "e5");
    let e = wait_log(&m, "move_made", 2);
    let failed = e.iter().find(|x| x.kind == "authorization_failed").unwrap();
    let last = e.last().unwrap();
    // The message line names the move by its number in the file.
    t.wait_for(&format!("#{} ", last.seq), DEADLINE);
    t.keys(&["l"]);
    let body = |l: &str| l.trim_start_matches(['║', ' ']).to_string();
    let row_of = |s: &str, seq: u64| {
        s.lines()
            .map(body)
            .find(|l| l.starts_with(&format!("#{seq} ")))
            .unwrap_or_default()
    };
    let after = |s: &str, seq: u64| {
        s.lines()
            .map(body)
            .skip_while(|l| !l.starts_with(&format!("#{seq} ")))
            .nth(1)
            .unwrap_or_default()
    };
    // The page is written in pieces (its title may be there before its rows): polled until
    // the whole page is on the screen, then checked.
    let title = format!("the log: {} entries", e.len());
    let s = t.wait_until(
        |s| {
            s.contains(&title)
                && row_of(s, failed.seq).contains("clause 5b")
                && after(s, last.seq).contains("move_made")
        },
        &format!(
            "the log page ({title}) with #{} and #{}",
            failed.seq, last.seq
        ),
        DEADLINE,
    );
    assert!(row_of(&s, failed.seq).contains("clause 5b"), "{s}");
    assert!(
        s.contains("authorization_failed"),
        "the failed authorization is on the page:\n{s}"
    );
    assert!(
        after(&s, last.seq).contains("move_made"),
        "#{} is e5:\n{s}",
        last.seq
    );

    // The same numbers after the board: a stop (recorded at the key, then authorized) follows
    // the failure; the report's timeline and `arbiter prove --seq` name every entry by its seq.
    t.escape_closing(&title);
    t.wait_for("RUNNING", DEADLINE);
    t.keys(&["s"]);
    t.wait_for("only the arbiter: authorize", DEADLINE);
    // The stop's authorization is the entry after it. The passphrase is taken only after the
    // wait that follows a failure: typed once that wait is over (a passphrase typed while the
    // board checks another would reach the board as keys once the prompt closes).
    while Instant::now() < next_taken {
        std::thread::sleep(Duration::from_millis(20));
    }
    t.type_text("kasparov-2003");
    t.keys(&["Enter"]);
    let until = Instant::now() + DEADLINE;
    let authorized = || {
        log_entries(&m)
            .windows(2)
            .any(|w| w[0].kind == "clock_stopped" && w[1].kind == "authorized")
    };
    while !authorized() {
        let s = t.screen();
        assert!(
            Instant::now() < until && !s.contains("passphrase not checked"),
            "the stop was not authorized:\n{s}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    t.keys(&["q"]);
    t.wait_for("quit the board UI?", DEADLINE);
    t.keys(&["y"]);
    // The board kept no key: the closing checkpoint asks the passphrase once more.
    t.wait_for("checkpoint at close", DEADLINE);
    t.type_text("kasparov-2003");
    t.keys(&["Enter"]);
    assert!(t.wait_exit(DEADLINE), "{}", t.screen());
    let e = log_entries(&m);
    let stopped = e.iter().find(|x| x.kind == "clock_stopped").unwrap();
    assert!(stopped.seq > failed.seq);
    let out_dir = tempfile::tempdir().unwrap();
    let md = out_dir.path().join("report.md");
    let run = |args: &[&str]| {
        let out = Command::new(bin()).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let ms = m.display().to_string();
    run(&[
        "report",
        "--match",
        &ms,
        "--game",
        "1",
        "--markdown",
        "--out",
        &md.display().to_string(),
    ]);
    let report = std::fs::read_to_string(&md).unwrap();
    // Timeline rows: | # | game time | UTC | actor | clause | action |
    let rows: Vec<Vec<String>> = report
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains(" | "))
        .map(|l| {
            l.split(" | ")
                .map(|c| c.trim_matches(['|', ' ']).to_string())
                .collect()
        })
        .filter(|c: &Vec<String>| c.len() >= 6 && c[0].parse::<u64>().is_ok())
        .collect();
    let row_of = |seq: u64| rows.iter().find(|c| c[0] == seq.to_string());
    for x in e
        .iter()
        .filter(|x| x.kind != "move_made" && x.kind != "clock_pressed")
    {
        let r = row_of(x.seq)
            .unwrap_or_else(|| panic!("no timeline row #{} ({}):\n{report}", x.seq, x.kind));
        assert_eq!(r[3], x.actor, "row #{} is not {}: {r:?}", x.seq, x.kind);
        assert_eq!(r[4], x.clause, "row #{} is not {}: {r:?}", x.seq, x.kind);
    }
    let failed_row = row_of(failed.seq).unwrap();
    assert!(failed_row[5].contains("wrong passphrase"), "{failed_row:?}");
    // The inclusion proof of each is of that very line.
    for x in [failed, stopped] {
        let proof = run(&[
            "prove",
            "--match",
            &ms,
            "--game",
            "1",
            "--seq",
            &x.seq.to_string(),
        ]);
        let p: serde_json::Value = serde_json::from_str(&proof).unwrap();
        assert_eq!(p["leaf_index"], x.seq, "{proof}");
        let line: serde_json::Value =
            serde_json::from_str(p["entry"].as_str().unwrap_or_default()).unwrap();
        assert_eq!(line["seq"], x.seq, "{proof}");
        assert_eq!(line["kind"], x.kind.as_str(), "{proof}");
    }
}

/// Rule 5b at the board: a wrong passphrase keeps the prompt open (its wait doubling), so the
/// arbiter's reflex retype never reaches the board as keys (`s` would stop the clocks, `q` quit,
/// `r` resume, `o` turn the board); Esc on a stop recorded at the key leaves its authorization
/// pending, and `:arbiter authorize` gives it on the board: nothing stays UNAUTHORIZED.
#[test]
fn pty_clause_5b_a_passphrase_retyped_after_a_failure_never_drives_the_board() {
    need_tmux!();
    let (_dir, args, m) = encrypted_match();
    let t = started_encrypted("retype", &args);
    play(&t, "e4");
    wait_log(&m, "move_made", 1);
    t.keys(&[":"]);
    t.type_text("arbiter note a wrong passphrase follows");
    t.keys(&["Enter"]);
    t.wait_for("y = yes", DEADLINE);
    t.keys(&["y"]);
    t.wait_for("only the arbiter: authorize", DEADLINE);
    t.type_text("wrong");
    t.keys(&["Enter"]);
    t.wait_for("the prompt stays open", DEADLINE);
    // The retype, starting with the board's own keys: it goes into the open prompt, masked.
    t.type_text("sqro");
    let s = t.wait_for("****", DEADLINE);
    assert!(s.contains("only the arbiter: authorize"), "{s}");
    assert!(!s.contains("quit the board UI?"), "{s}");
    let kinds: Vec<String> = log_entries(&m).into_iter().map(|e| e.kind).collect();
    assert!(
        !kinds.iter().any(|k| k == "clock_stopped" || k == "note"),
        "nothing typed into the prompt acted on the board: {kinds:?}"
    );
    t.keys(&["Escape"]);
    t.wait_for("not authorized, nothing recorded", DEADLINE);
    // A stop recorded at the key, Esc at its passphrase: it stands, its authorization pending.
    t.keys(&["s"]);
    t.wait_for("recorded at the key as #", DEADLINE);
    t.keys(&["Escape"]);
    t.wait_for("authorization pending", DEADLINE);
    let e = wait_log(&m, "clock_stopped", 1);
    let stop = e.iter().find(|x| x.kind == "clock_stopped").unwrap().seq;
    // Given on the board later: the passphrase again, and the authorization covers the stop.
    let until = Instant::now() + DEADLINE;
    loop {
        t.keys(&[":"]);
        t.type_text("arbiter authorize");
        t.keys(&["Enter"]);
        t.wait_for("only the arbiter: authorize", DEADLINE);
        t.type_text("kasparov-2003");
        t.keys(&["Enter"]);
        // Too soon after the failure the passphrase is not checked and the prompt stays: Esc
        // leaves it pending again, and the next round gives it.
        let authorized = || {
            log_entries(&m)
                .iter()
                .filter(|x| x.kind == "authorized")
                .count()
                >= 2
        };
        let round = Instant::now() + DEADLINE;
        let waited = loop {
            if authorized() {
                break false;
            }
            if t.screen().contains("not checked") {
                break true;
            }
            assert!(Instant::now() < round, "no authorization:\n{}", t.screen());
            std::thread::sleep(Duration::from_millis(50));
        };
        if !waited {
            break;
        }
        t.keys(&["Escape"]);
        t.wait_for("authorization pending", DEADLINE);
        assert!(
            Instant::now() < until,
            "the wait never ended:\n{}",
            t.screen()
        );
    }
    let e = wait_log(&m, "authorized", 2);
    let auth = e.iter().rev().find(|x| x.kind == "authorized").unwrap();
    assert_eq!(
        auth.body["first"],
        serde_json::json!(stop),
        "{:?}",
        auth.body
    );
    assert_eq!(
        auth.body["last"],
        serde_json::json!(stop),
        "{:?}",
        auth.body
    );
    assert_eq!(auth.body["by"], serde_json::json!("passphrase"));
}

/// `keygen`: a passphrase too short is refused as soon as it is typed, before it is asked a
/// second time, in words that speak to the arbiter.
#[test]
fn pty_keygen_a_short_passphrase_is_refused_before_it_is_typed_again() {
    need_tmux!();
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    let t = Tmux::start_watched(
        "keygen-short",
        &["keygen", "--match", m.to_str().unwrap()],
        &repo_dir(),
        120,
        30,
    );
    t.wait_for("passphrase for the new key", DEADLINE);
    t.type_text("short");
    t.keys(&["Enter"]);
    let s = t.wait_for("needs at least 12", DEADLINE);
    assert!(!s.contains("the same passphrase again"), "{s}");
    assert!(!s.contains("issue"), "{s}");
    assert!(!m.join("keys").join("arbiter").exists(), "no key written");
}
