//! README.md's examples are what the kit accepts: the per-clause script block runs without a
//! refusal, and the two set-up commands are the ones .ci/run relies on.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use arbiter::board::session::{memory_session, run_script};
use arbiter::core::game::Phase;
use arbiter::core::script::parse_script;

#[test]
fn readme_clause_examples_run_without_refusal() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let at = readme.find("One example line per clause").unwrap();
    let start = readme[at..].find("```text\n").unwrap() + at + 8;
    let end = readme[start..].find("```").unwrap() + start;
    let lines = parse_script(&readme[start..end]).unwrap();
    assert!(lines.len() > 40, "the block has a line per clause");
    let mut s = memory_session(
        Path::new("rules/kasparov-deep-junior-2003.toml"),
        "readme",
        1,
    )
    .unwrap();
    run_script(&mut s, &lines)
        .unwrap_or_else(|(line, e)| panic!("README example line {line}: {e}"));
    assert_eq!(s.game.phase(), Phase::Ended);
    let readme_clauses: std::collections::BTreeSet<&str> = readme[start..end]
        .lines()
        .filter_map(|l| l.split("# ").nth(1))
        .filter_map(|c| c.split([':', ' ', ',']).next())
        .collect();
    for c in [
        "1", "3", "4c", "5b", "6a", "6b", "6c", "6d", "6g", "6l", "7b", "7c", "7e", "8a", "8b",
        "9a", "9c", "9d", "9e", "12",
    ] {
        assert!(
            readme_clauses.contains(c),
            "README example block lacks clause {c}"
        );
    }
}

#[test]
fn readme_opens_with_the_two_setup_commands() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let first: Vec<&str> = readme.lines().take(4).collect();
    assert_eq!(
        first,
        ["```sh", "cargo run --release -- play", "cargo test", "```"]
    );
    let ci = std::fs::read_to_string(".ci/run").unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == "cargo test"),
        ".ci/run runs README's test command"
    );
}

/// README's "Examples" block, run as written by bash (`set -euo pipefail`) from a fresh folder
/// holding the project's `examples/` and `rules/`, with this build's `arbiter` on PATH.
#[test]
fn readme_examples_run_as_written() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let start = readme
        .find("Examples (run as written")
        .expect("README has the Examples block");
    let block = &readme[start..];
    let open = block.find("```sh\n").unwrap() + "```sh\n".len();
    let close = block[open..].find("```").unwrap();
    let script = &block[open..open + close];
    assert!(script.lines().count() >= 10, "{script}");
    let tmp = tempfile::tempdir().unwrap();
    let root = std::env::current_dir().unwrap();
    for d in ["examples", "rules"] {
        std::os::unix::fs::symlink(root.join(d), tmp.path().join(d)).unwrap();
    }
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_arbiter"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .args(["-euo", "pipefail", "-x", "-c", script])
        .current_dir(tmp.path())
        .env("PATH", path)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "README example failed ({:?}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(tmp.path().join("game1.pgn").is_file());
    assert!(tmp.path().join("proof.json").is_file());
}

/// README's block of each match's profile, run as written by bash from a fresh folder
/// holding `examples/` and `rules/`: every profile loads with `arbiter script --rules`.
#[test]
fn readme_profile_examples_run_as_written() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let start = readme
        .find("Each match's profile (run as written")
        .expect("README has the profiles block");
    let block = &readme[start..];
    let open = block.find("```sh\n").unwrap() + "```sh\n".len();
    let close = block[open..].find("```").unwrap();
    let script = &block[open..open + close];
    let tmp = tempfile::tempdir().unwrap();
    let root = std::env::current_dir().unwrap();
    for d in ["examples", "rules"] {
        std::os::unix::fs::symlink(root.join(d), tmp.path().join(d)).unwrap();
    }
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_arbiter"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .current_dir(tmp.path())
        .env("PATH", path)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (f, name) in [
        ("deep-blue-1997", "Deep Blue, New York 1997"),
        ("kramnik-deep-fritz-2002", "Manama 2002"),
        ("x3d-fritz-2003", "X3D Fritz, New York 2003"),
        ("kramnik-deep-fritz-2006", "Bonn 2006"),
        ("nakamura-komodo-2016", "Chess.com 2016"),
    ] {
        assert!(script.contains(&format!("rules/{f}.toml")), "{f}");
        assert!(stdout.contains(name), "{name}: {stdout}");
    }
    assert!(stdout.contains("result: 1-0 (Checkmate"), "{stdout}");
}

#[test]
fn readme_declarations_example_opens_and_starts_a_game() {
    // The `decl.arb` block under "Another match", used as README says:
    // `arbiter play --match DIR --declarations decl.arb`, then Space.
    let readme = std::fs::read_to_string("README.md").unwrap();
    let at = readme.find("`decl.arb`").unwrap();
    let start = readme[at..].find("```text\n").unwrap() + at + 8;
    let end = readme[start..].find("```").unwrap() + start;
    let dir = tempfile::tempdir().unwrap();
    let decl = dir.path().join("decl.arb");
    std::fs::write(&decl, &readme[start..end]).unwrap();
    let m = dir.path().join("nyc-2003");
    crate::log_util::arbiter_key_in(&m); // a real match needs a real key
    let key = arbiter::record::sign::KeySource::default();
    let (mut s, _, _, _) = arbiter::board::tui::open_session(&arbiter::board::tui::PlaySetup {
        match_dir: &m,
        game: None,
        rules: Some(Path::new("rules/kasparov-deep-junior-2003.toml")),
        key: &key,
        declarations: Some(&decl),
        demo: false,
    })
    .unwrap();
    assert!(
        s.game.draft().config_sha256.is_some(),
        "the example declares the 8a digest"
    );
    s.execute(&arbiter::core::command::Command::Start, 0)
        .unwrap();
    assert_eq!(s.game.phase(), Phase::Playing);
    assert_eq!(
        s.game.player(arbiter::core::Side::Black).unwrap().name,
        "Deep Junior"
    );
}

/// README's press-then-notation lines run as written after a start, and the clocks follow the
/// presses.
#[test]
fn readme_press_example_runs_and_the_clocks_follow_the_presses() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let at = readme.find("**The press is the time").unwrap();
    let start = readme[at..].find("```text\n").unwrap() + at + 8;
    let end = readme[start..].find("```").unwrap() + start;
    let text = format!(
        "0 arbiter declare white human Garry Kasparov
0 arbiter declare black machine Deep Junior
0 arbiter declare operator Amir Ban
0 arbiter start
{}",
        &readme[start..end]
    );
    let lines = parse_script(&text).unwrap();
    let mut s = memory_session(
        Path::new("rules/kasparov-deep-junior-2003.toml"),
        "readme",
        1,
    )
    .unwrap();
    run_script(&mut s, &lines).unwrap_or_else(|(line, e)| panic!("line {line}: {e}"));
    let v = s.game.view(44_000, usize::MAX);
    assert_eq!(v.plies, 2);
    // White pressed at 10 s and Black's clock ran 10 s to 40 s; White's runs from 40 s.
    assert_eq!(v.clocks[0].remaining_ms, 7_200_000 - 10_000 - 4_000);
    assert_eq!(v.clocks[1].remaining_ms, 7_200_000 - 30_000);
}

/// README's set-up block, run as written by bash from a fresh folder with no `rules/`, `HOME`
/// in a temp folder and this build's `arbiter` on PATH. Its first line, `cargo install --path .`,
/// is the release build of this same package and is checked to be there, not rebuilt here
/// (tests/it/anywhere.rs runs the built binary from a folder without `rules/`).
#[test]
fn readme_setup_installs_and_runs_anywhere() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let start = readme
        .find("## Set-up")
        .expect("README has a set-up section");
    let block = &readme[start..];
    let open = block.find("```sh\n").unwrap() + "```sh\n".len();
    let close = block[open..].find("```").unwrap();
    let script = &block[open..open + close];
    assert_eq!(script.lines().next(), Some("cargo install --path ."));
    let rest: String = script.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let tmp = tempfile::tempdir().unwrap();
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_arbiter"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .args(["-euo", "pipefail", "-c", &rest])
        .current_dir(tmp.path())
        .env("HOME", tmp.path())
        .env("PATH", path)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "README set-up failed ({:?}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("kasparov-deep-junior-2003"));
    let completion = tmp
        .path()
        .join(".local/share/bash-completion/completions/arbiter");
    assert!(
        std::fs::read_to_string(completion)
            .unwrap()
            .contains("_arbiter")
    );
    let man = tmp.path().join(".local/share/man/man1/arbiter.1");
    assert!(
        std::fs::read_to_string(man)
            .unwrap()
            .contains(".TH arbiter 1")
    );
}

/// README's "Match day" walk-through: its shell commands, logical lines (a heredoc is one), in
/// order.
fn match_day_commands(readme: &str) -> Vec<String> {
    let start = readme
        .find("\n## Match day\n")
        .expect("README has the walk-through");
    let end = readme[start + 1..]
        .find("\n## ")
        .map_or(readme.len(), |e| e + start + 1);
    let section = &readme[start..end];
    let mut out = Vec::new();
    let mut rest = section;
    while let Some(open) = rest.find("```sh\n") {
        let body = &rest[open + "```sh\n".len()..];
        let close = body.find("```").unwrap();
        let mut lines = body[..close].lines();
        while let Some(line) = lines.next() {
            if line.trim().is_empty() {
                continue;
            }
            let mut cmd = line.to_string();
            if let Some(at) = line.find("<<'") {
                let tag = line[at + 3..].trim_end_matches('\'').to_string();
                for l in lines.by_ref() {
                    cmd.push('\n');
                    cmd.push_str(l);
                    if l == tag {
                        break;
                    }
                }
            }
            out.push(cmd);
        }
        rest = &body[close + 3..];
    }
    out
}

/// The board's `:` commands of the walk-through's table, each as the board's command line takes
/// it.
fn match_day_board_commands(readme: &str) -> Vec<String> {
    let start = readme.find("| when | type |").unwrap();
    let end = readme[start..].find("\n\n").unwrap() + start;
    readme[start..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|c| c.strip_prefix(':'))
        .map(str::to_string)
        .collect()
}

/// README's "Match day" walk-through, run as written from an empty folder (`examples/` and
/// `rules/` beside it, this build's `arbiter` on PATH): the evening before, the game on the real
/// board in a terminal (tmux) with the display, the relay, the live record and a camp's witness
/// beside it, then the countersignatures, `verify` (0), the reports and the records. What others
/// hand the arbiter is put there first (the machine's configuration document, the engine log's
/// copies, the program); the live record's port is the one thing changed (a free one, so that
/// tests do not collide). Every `:` command of its table is one the board's command line takes.
#[test]
fn readme_match_day_runs_as_written() {
    use crate::pty::{DEADLINE, Tmux, tmux_available};
    use std::process::{Child, Command, Stdio};
    let readme = std::fs::read_to_string("README.md").unwrap();
    for c in match_day_board_commands(&readme) {
        parse_script(&format!("0 {c}")).unwrap_or_else(|e| panic!("README's `:{c}`: {e}"));
    }
    if !tmux_available() {
        eprintln!("skipped the walk-through: tmux is not installed");
        return;
    }
    let commands = match_day_commands(&readme);
    assert!(commands.len() >= 25, "{commands:#?}");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let root = std::env::current_dir().unwrap();
    for d in ["examples", "rules"] {
        std::os::unix::fs::symlink(root.join(d), dir.join(d)).unwrap();
    }
    std::fs::write(
        dir.join("deep-junior.cfg"),
        "hash 512 MB, 4 threads, book dj8\n",
    )
    .unwrap();
    for c in ["copy1.log", "copy2.log"] {
        std::fs::write(
            dir.join(c),
            "info depth 12 score cp 20 time 900 nodes 1000 pv e7e5\nbestmove e7e5\n",
        )
        .unwrap();
    }
    std::fs::write(dir.join("deep-junior.tar"), "the program as submitted\n").unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_arbiter")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    const PASSPHRASE: &str = "correct horse battery staple";
    let shell = |name: &str, cmd: &str| {
        Tmux::start_shell(
            name,
            &format!("export PATH='{path}'; {cmd}; echo \"arbiter exited $?\"; exec sleep 600"),
            dir,
            110,
            40,
        )
    };
    let passphrase = |t: &Tmux| {
        t.type_text(PASSPHRASE);
        t.keys(&["Enter"]);
    };
    let mut background: Vec<Child> = Vec::new();
    let mut board: Option<Tmux> = None;
    let mut display: Option<Tmux> = None;
    for cmd in &commands {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.get(..2) {
            Some(["arbiter", "keygen"]) if !cmd.contains("--no-passphrase") => {
                let t = shell("keygen", cmd);
                t.wait_for("passphrase for the new key", DEADLINE);
                passphrase(&t);
                t.wait_for("the same passphrase again", DEADLINE);
                passphrase(&t);
                t.wait_for("arbiter exited 0", DEADLINE);
            }
            Some(["arbiter", "play"]) => {
                let t = shell("board", cmd);
                t.wait_for("passphrase of", DEADLINE);
                passphrase(&t);
                t.wait_for_all(&["PRE-GAME", "camp      deep-junior"], DEADLINE);
                board = Some(t);
            }
            Some(["arbiter", "display"]) => {
                let t = shell("display", cmd);
                t.wait_for("arbiter display", DEADLINE);
                display = Some(t);
            }
            Some(["arbiter", "relay" | "live" | "witness"]) => {
                let cmd = match words[1] {
                    "live" => format!("{cmd} --listen 127.0.0.1:{port}"),
                    _ => cmd.replace(":8090/", &format!(":{port}/")),
                };
                let log = std::fs::File::create(dir.join(format!("{}.out", words[1]))).unwrap();
                background.push(
                    Command::new("bash")
                        .args(["-c", &format!("exec {cmd}")])
                        .current_dir(dir)
                        .env("PATH", &path)
                        .stdin(Stdio::null())
                        .stdout(log.try_clone().unwrap())
                        .stderr(log)
                        .spawn()
                        .unwrap(),
                );
                if words[1] == "witness" {
                    play_the_game(board.as_ref().unwrap(), &passphrase, dir);
                    let d = display.take().unwrap();
                    d.wait_for_all(&["0-1", "e5"], DEADLINE);
                    d.keys(&["q"]);
                    d.wait_for("arbiter exited 0", DEADLINE);
                    let b = board.take().unwrap();
                    b.keys(&["q"]);
                    b.wait_for("y = yes, quit", DEADLINE);
                    b.keys(&["y"]);
                    b.wait_for("to sign the checkpoint at close", DEADLINE);
                    passphrase(&b);
                    b.wait_for("arbiter exited 0", DEADLINE);
                    // The relay and the camp's copy followed the game.
                    let copy = dir.join("kasparov-copy/game-1/log.jsonl");
                    let deadline = std::time::Instant::now() + DEADLINE;
                    while !(std::fs::read_to_string(dir.join("nyc-2003-live.pgn"))
                        .is_ok_and(|p| p.contains("1... e5 {") && p.trim_end().ends_with("0-1"))
                        && std::fs::read_to_string(&copy).is_ok_and(|l| l.contains("archived")))
                    {
                        assert!(
                            std::time::Instant::now() < deadline,
                            "relay and witness: {:?} {:?}",
                            std::fs::read_to_string(dir.join("relay.out")),
                            std::fs::read_to_string(dir.join("witness.out"))
                        );
                        std::thread::sleep(std::time::Duration::from_millis(50));
                    }
                }
            }
            _ => {
                let out = Command::new("bash")
                    .args(["-euo", "pipefail", "-c", cmd])
                    .current_dir(dir)
                    .env("PATH", &path)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .and_then(|mut c| {
                        // `countersign --key` asks y/n after its list: the camp says y (a
                        // command that reads nothing may have closed its input already).
                        use std::io::Write;
                        let _ = c.stdin.take().unwrap().write_all(b"y\n");
                        c.wait_with_output()
                    })
                    .unwrap();
                assert!(
                    out.status.success(),
                    "README match day: `{cmd}` failed ({:?}):\n{}\n{}",
                    out.status,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
    }
    for mut c in background {
        let _ = c.kill();
        let _ = c.wait();
    }
    for f in [
        "game1.pgn",
        "game1-public.md",
        "shogi-game1.kif",
        "shogi-game1.csa",
        "nyc-2003.tar.gz",
        "logs/nyc-2003/game-1/report.html",
    ] {
        assert!(dir.join(f).is_file(), "{f}");
    }
}

/// The game of the walk-through on the board: Space starts it, a move each with its press, a stop
/// and a resume, the human resigns, the operator hands over the engine's log and the program.
fn play_the_game(t: &crate::pty::Tmux, passphrase: &dyn Fn(&crate::pty::Tmux), dir: &Path) {
    use crate::pty::DEADLINE;
    let authorize = |t: &crate::pty::Tmux| {
        t.wait_for("arbiter's passphrase", DEADLINE);
        passphrase(t);
    };
    let command = |t: &crate::pty::Tmux, line: &str| {
        t.keys(&[":"]);
        t.type_text(line);
        t.keys(&["Enter"]);
        t.wait_for("y = yes", DEADLINE);
        t.keys(&["y"]);
        authorize(t);
    };
    t.keys(&["Space"]);
    authorize(t);
    t.wait_for("RUNNING", DEADLINE);
    t.keys(&["F12"]);
    t.type_text("e4");
    t.keys(&["Enter"]);
    t.wait_for("move_made white e4", DEADLINE);
    t.keys(&["F4"]);
    t.type_text("e5");
    t.keys(&["Enter"]);
    t.wait_for("move_made black e5", DEADLINE);
    t.keys(&["s"]);
    authorize(t);
    t.wait_for("CLOCKS STOPPED", DEADLINE);
    t.keys(&["r"]);
    authorize(t);
    t.wait_for("clock_resumed", DEADLINE);
    command(t, "human resign");
    t.wait_for("RESULT 0-1", DEADLINE);
    command(
        t,
        "arbiter archive copy1.log copy2.log program deep-junior.tar",
    );
    t.wait_for("archived", DEADLINE);
    assert!(dir.join("logs/nyc-2003/game-1/engine").is_dir());
}
