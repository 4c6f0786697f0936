//! The live relay: the PGN file is whole and clean after every entry of a scripted game
//! (python-chess and pgn-extract), its `%clk` is the core's clock after each move across move 40,
//! its tags carry the clocks, the delay hides the last minutes on the log's own times, several
//! games come in order, stops and suspensions are comments, and the file never lands in the
//! match folder.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use arbiter::board::follow::MatchTail;
use arbiter::board::relay::{game_pgn, match_pgn};
use arbiter::core::event::EventKind;
use arbiter::core::game::Game;

use crate::realgame::{ok, tool};

fn arbiter(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .output()
        .unwrap()
}

/// A match folder with the scripts played in it, one game each.
fn played(tmp: &Path, scripts: &[&str]) -> PathBuf {
    let m = tmp.join("m");
    crate::log_util::arbiter_key_in(&m);
    for s in scripts {
        ok(&arbiter(&["script", s, "--match", m.to_str().unwrap()]));
    }
    m
}

fn tail(m: &Path) -> MatchTail {
    let mut t = MatchTail::new(m, None);
    assert!(t.poll());
    t
}

/// `h:mm:ss` to seconds.
fn secs(hms: &str) -> i64 {
    hms.split(':')
        .fold(0, |acc, p| acc * 60 + p.parse::<i64>().unwrap())
}

/// The `%clk` values of a PGN, in move order.
fn clks(pgn: &str) -> Vec<i64> {
    pgn.split("[%clk ")
        .skip(1)
        .map(|s| secs(&s[..s.find(']').unwrap()]))
        .collect()
}

fn tag<'a>(pgn: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("[{name} \"");
    let at = pgn.find(&open)? + open.len();
    Some(&pgn[at..at + pgn[at..].find('"')?])
}

#[test]
fn relay_pgn_parses_after_every_entry_and_clk_matches_the_log_across_move_40() {
    let tmp = tempfile::tempdir().unwrap();
    let m = played(tmp.path(), &["examples/scripts/full-game.arb"]);
    let t = tail(&m);
    let g = &t.games[0];
    let n = g.events.len();
    assert!(n > 100, "{n} entries");

    // The file after each entry, and the core's clock after each move as the log folds it.
    let steps = tmp.path().join("steps");
    std::fs::create_dir(&steps).unwrap();
    let mut want_moves = Vec::new();
    let mut game: Option<Game> = None;
    let mut true_clk: Vec<i64> = Vec::new();
    let mut held = 0;
    for k in 1..=n {
        let ev = &g.events[k - 1];
        match &mut game {
            None => {
                let EventKind::GameOpened(o) = &ev.kind else {
                    panic!("line 0")
                };
                let mut gm = Game::from_opening(o).unwrap();
                gm.evolve(ev).unwrap();
                game = Some(gm);
            }
            Some(gm) => gm.evolve(ev).unwrap(),
        }
        let gm = game.as_ref().unwrap();
        if let EventKind::MoveMade { side, .. } = &ev.kind {
            true_clk.push(gm.remaining(*side, ev.at) / 1000);
        }
        let text = game_pgn(&g.events[..k], &g.stamps[..k]).unwrap();
        // Every step is a whole game: tags, movetext, the result (`*` while it runs).
        let result = gm.outcome().map_or("*", |o| o.score.text());
        assert_eq!(
            text.trim_end().rsplit(char::is_whitespace).next(),
            Some(result),
            "step {k}:\n{text}"
        );
        assert!(tag(&text, "WhiteClock").is_some() && tag(&text, "BlackClock").is_some());
        assert_eq!(tag(&text, "TimeControl"), Some("40/7200:20/3600:1800"));
        assert!(tag(&text, "UTCDate").is_some() && tag(&text, "UTCTime").is_some());
        std::fs::write(steps.join(format!("{k:04}.pgn")), &text).unwrap();
        // After the mating move the result is due: that step keeps the one before it.
        if arbiter::board::relay::result_due(gm, ev.at) {
            held += 1;
            want_moves.push(*want_moves.last().unwrap());
        } else {
            want_moves.push(gm.board().moves().len());
        }
    }

    assert_eq!(held, 1, "one step held: the mate before its result");
    // The final file: %clk is the core's clock after each move, the period's hour included.
    let last = game_pgn(&g.events, &g.stamps).unwrap();
    let got = clks(&last);
    assert_eq!(got, true_clk, "%clk against the clock folded from the log");
    // Move 40 (White's 40th is ply 79, index 78): the clock jumps by the second period's hour.
    let emt40 = {
        let s = last.split("40. ").nth(1).unwrap();
        let e = s.split("[%emt ").nth(1).unwrap();
        secs(&e[..e.find(']').unwrap()])
    };
    let jump = got[78] - got[76] + emt40;
    assert!(
        (3599..=3601).contains(&jump),
        "White's clock across move 40: {} -> {} with {emt40} s used: +{jump} s",
        got[76],
        got[78]
    );
    assert_eq!(tag(&last, "Result"), Some("0-1"));

    // Every step read by python-chess: no errors, the moves standing at that entry.
    if tool("python3").is_some() {
        let code = "import chess.pgn,sys,glob\n\
                    for f in sorted(glob.glob(sys.argv[1]+'/*.pgn')):\n\
                    \x20   g=chess.pgn.read_game(open(f))\n\
                    \x20   assert g is not None and not g.errors, (f, g and g.errors)\n\
                    \x20   assert chess.pgn.read_game(open(f)) is not None\n\
                    \x20   print(len(list(g.mainline())), g.headers.get('Clock','-'))\n";
        let out = Command::new("python3")
            .args(["-c", code, steps.to_str().unwrap()])
            .output()
            .unwrap();
        let stdout = ok(&out);
        let counts: Vec<usize> = stdout
            .lines()
            .map(|l| l.split(' ').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(counts, want_moves, "moves python-chess read at each step");
        // While the game runs a clock is running: the Clock tag names it.
        assert!(
            stdout
                .lines()
                .any(|l| l.contains(" W/") || l.contains(" B/")),
            "{stdout}"
        );
    }
    // ... and by pgn-extract: each step one clean game, no complaint.
    if let Some(pe) = tool("pgn-extract") {
        for k in 1..=n {
            let f = steps.join(format!("{k:04}.pgn"));
            let out = Command::new(&pe)
                .args(["-s", "-r"])
                .arg(&f)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() && !err.contains("rror") && !err.contains("arning"),
                "pgn-extract on step {k}: {err}"
            );
        }
    }
}

#[test]
fn relay_delay_hides_the_last_minutes_on_the_logs_own_times() {
    let tmp = tempfile::tempdir().unwrap();
    let m = played(tmp.path(), &["examples/scripts/full-game.arb"]);
    let t = tail(&m);
    let g = &t.games[0];
    let end = g.stamps.last().unwrap().utc;
    let all = match_pgn(&t, end, Duration::ZERO).unwrap();
    // Ten minutes' delay at the moment of the last entry: what the log held ten minutes before.
    let delay = Duration::from_secs(600);
    let held = match_pgn(&t, end, delay).unwrap();
    let cutoff = end - chrono::Duration::seconds(600);
    let k = g.stamps.iter().filter(|s| s.utc <= cutoff).count();
    assert!(k < g.events.len() && k > 1, "{k} of {}", g.events.len());
    assert_eq!(held, game_pgn(&g.events[..k], &g.stamps[..k]).unwrap());
    let hidden = g.events[k..]
        .iter()
        .filter(|e| matches!(e.kind, EventKind::MoveMade { .. }))
        .count();
    assert!(hidden > 0, "the last ten minutes hold moves");
    assert_eq!(clks(&held).len() + hidden, clks(&all).len());
    assert_eq!(
        tag(&held, "Result"),
        Some("*"),
        "the result is held back too"
    );
    assert_ne!(tag(&held, "WhiteClock"), tag(&all, "WhiteClock"));
    // The moment the next entry's time plus the delay comes, it shows.
    let next = g.stamps[k].utc + chrono::Duration::seconds(600);
    let reveal = arbiter::board::relay::next_reveal(&t, end, delay).unwrap();
    assert_eq!(
        reveal.as_millis() as i64,
        (next - end).num_milliseconds(),
        "next reveal"
    );
    assert_ne!(match_pgn(&t, next, delay).unwrap(), held);
    // Before line 0 + delay nothing is shown: there is no game yet.
    let before = g.stamps[0].utc + chrono::Duration::seconds(599);
    assert_eq!(match_pgn(&t, before, delay), None);
}

#[test]
fn relay_cli_writes_every_game_in_order_with_stops_as_comments() {
    let tmp = tempfile::tempdir().unwrap();
    let m = played(
        tmp.path(),
        &[
            "examples/scripts/every-clause.arb",
            "examples/scripts/quick.arb",
        ],
    );
    let out = tmp.path().join("live.pgn");
    let o = arbiter(&[
        "relay",
        "--match",
        m.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--once",
    ]);
    ok(&o);
    let text = std::fs::read_to_string(&out).unwrap();
    let rounds: Vec<&str> = text.lines().filter(|l| l.starts_with("[Round ")).collect();
    assert_eq!(rounds, ["[Round \"1\"]", "[Round \"2\"]"], "{text}");
    // Comments wrap at 80 columns: words are compared with the wrapping undone.
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("clocks STOPPED by the arbiter"), "{text}");
    assert!(flat.contains("game SUSPENDED: power failure"), "{text}");
    assert!(text.contains("[Result \"1/2-1/2\"]"), "{text}");
    // Game 2 runs, White to move after 3... Nf6: White's clock runs.
    assert!(text.contains("[Clock \"W/"), "{text}");
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    // --game 2: that game alone.
    let two = tmp.path().join("two.pgn");
    ok(&arbiter(&[
        "relay",
        "--match",
        m.to_str().unwrap(),
        "--game",
        "2",
        "--out",
        two.to_str().unwrap(),
        "--once",
    ]));
    let only = std::fs::read_to_string(&two).unwrap();
    assert_eq!(only.matches("[Round ").count(), 1);
    assert!(
        only.contains("[Round \"2\"]") && only.trim_end().ends_with("*"),
        "{only}"
    );
    if tool("python3").is_some() {
        let code = "import chess.pgn,sys\nf=open(sys.argv[1])\nn=0\nwhile True:\n    g=chess.pgn.read_game(f)\n    if g is None: break\n    assert not g.errors, g.errors\n    n+=1\nprint(n)\n";
        let o = Command::new("python3")
            .args(["-c", code, out.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(ok(&o).trim(), "2");
    }
}

#[test]
fn relay_out_inside_the_match_folder_is_refused_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let m = played(tmp.path(), &["examples/scripts/quick.arb"]);
    for inside in [m.join("live.pgn"), m.join("game-1").join("live.pgn")] {
        let o = arbiter(&[
            "relay",
            "--match",
            m.to_str().unwrap(),
            "--out",
            inside.to_str().unwrap(),
            "--once",
        ]);
        assert_eq!(o.status.code(), Some(65), "{o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("arbiter: ") && err.contains("inside the match folder"));
        assert!(!inside.exists());
    }
    // An existing file that is not a PGN the kit wrote is not replaced (the kit's output rule).
    let notes = tmp.path().join("notes.txt");
    std::fs::write(&notes, "the arbiter's own notes\n").unwrap();
    let o = arbiter(&[
        "relay",
        "--match",
        m.to_str().unwrap(),
        "--out",
        notes.to_str().unwrap(),
        "--once",
    ]);
    assert_eq!(o.status.code(), Some(65), "{o:?}");
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "the arbiter's own notes\n"
    );
    // A match folder that is not there: 66, nothing created.
    let missing = tmp.path().join("nowhere");
    let o = arbiter(&[
        "relay",
        "--match",
        missing.to_str().unwrap(),
        "--out",
        tmp.path().join("x.pgn").to_str().unwrap(),
        "--once",
    ]);
    assert_eq!(o.status.code(), Some(66), "{o:?}");
    assert!(!missing.exists() && !tmp.path().join("x.pgn").exists());
}

/// README's section on the second screen and the relay, run as written after the Examples block's
/// set-up (a rehearsal key, the full game): the relay line by bash, the display line in tmux.
#[test]
fn relay_readme_section_runs_as_written() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let at = readme
        .find("## The second screen and the live relay")
        .unwrap();
    let open = readme[at..].find("```sh\n").unwrap() + at + "```sh\n".len();
    let close = readme[open..].find("```").unwrap() + open;
    let lines: Vec<&str> = readme[open..close]
        .lines()
        .map(|l| l.split(" # ").next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .collect();
    assert!(lines.iter().any(|l| l.starts_with("arbiter display")));
    assert!(lines.iter().any(|l| l.starts_with("arbiter relay")));

    let tmp = tempfile::tempdir().unwrap();
    let root = std::env::current_dir().unwrap();
    for d in ["examples", "rules"] {
        std::os::unix::fs::symlink(root.join(d), tmp.path().join(d)).unwrap();
    }
    let bin = env!("CARGO_BIN_EXE_arbiter");
    let bin_dir = Path::new(bin).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let bash = |line: &str| {
        let o = Command::new("bash")
            .args(["-c", &format!("set -euo pipefail; {line}")])
            .current_dir(tmp.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        ok(&o)
    };
    bash("arbiter keygen --match logs/rehearsal --no-passphrase");
    bash("arbiter script examples/scripts/full-game.arb --match logs/rehearsal");
    for line in lines {
        if line.starts_with("arbiter relay") {
            bash(line);
            let out = line
                .split("--out ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap();
            let text = std::fs::read_to_string(tmp.path().join(out)).unwrap();
            assert!(text.contains("[Result \"0-1\"]"), "{text}");
        } else if line.starts_with("arbiter display") {
            if !crate::pty::tmux_available() {
                continue;
            }
            let args: Vec<&str> = line.split_whitespace().skip(1).collect();
            let t = crate::pty::Tmux::start("readme-display", &args, tmp.path(), 100, 40);
            t.wait_for("GAME OVER 0-1", crate::pty::DEADLINE);
            t.keys(&["q"]);
            assert!(t.wait_exit(crate::pty::DEADLINE), "q quits");
        } else {
            panic!("a README line this test does not run: {line}");
        }
    }
}

/// The live relay (no --once) follows a game another process plays: every read of the file while
/// it is being rewritten is a whole PGN, and the game's end arrives.
#[test]
fn relay_live_follows_another_process_and_the_file_is_always_whole() {
    use std::time::Instant;
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let out = tmp.path().join("live.pgn");
    let mut relay = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["relay", "--match", m.to_str().unwrap(), "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut script = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["script", "examples/scripts/full-game.arb", "--match"])
        .arg(&m)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    let mut seen = std::collections::BTreeSet::new();
    let mut done = false;
    while Instant::now() < until {
        if let Ok(text) = std::fs::read_to_string(&out) {
            assert!(text.starts_with("[Event \""), "{text}");
            let last = text.trim_end().rsplit(char::is_whitespace).next().unwrap();
            assert!(["*", "1-0", "0-1", "1/2-1/2"].contains(&last), "{text}");
            seen.insert(text.len());
            if text.contains("[Result \"0-1\"]") && text.trim_end().ends_with("0-1") {
                done = true;
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(script.wait().unwrap().success());
    relay.kill().unwrap();
    relay.wait().unwrap();
    assert!(done, "the result reached the live file");
    println!("{} different versions of the file read", seen.len());
}

/// Rule 1 (the arbiter stops the clocks) with rule 7e (a wrong entry taken back): the relay's
/// comments read in the log's order, before the move that followed them in the standing record.
/// In every-clause.arb the operator enters 5. d3 for the human's O-O; the arbiter stops the
/// clocks, takes d3 back, corrects the machine's clock and restarts them; then 5. O-O. The stop
/// came after a move that no longer stands: it goes before 5. O-O, ahead of the take-back.
#[test]
fn relay_rule_1_stop_before_a_take_back_reads_in_the_logs_order() {
    let tmp = tempfile::tempdir().unwrap();
    let m = played(tmp.path(), &["examples/scripts/every-clause.arb"]);
    let t = tail(&m);
    let g = &t.games[0];
    let text = game_pgn(&g.events, &g.stamps).unwrap();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let at = |needle: &str| {
        flat.find(needle)
            .unwrap_or_else(|| panic!("'{needle}' missing:\n{text}"))
    };
    let order = [
        "{1: clocks STOPPED by the arbiter: wrong entry",
        "{7e: 5. d3 taken back",
        "{7e: black's clock corrected",
        "{1: clocks restarted, white's clock running",
        "5. O-O {[%clk",
    ];
    for w in order.windows(2) {
        assert!(at(w[0]) < at(w[1]), "'{}' before '{}':\n{text}", w[0], w[1]);
    }
}

/// A legal game of `plies` plies that never repeats a position and does not end (no mate, no
/// stalemate, no dead material, captures or pawn moves often enough): the moves in SAN.
fn unending_game(plies: usize) -> Vec<String> {
    use shakmaty::{Chess, EnPassantMode, Position, fen::Fen, san::San};
    let mut pos = Chess::default();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for ply in 0..plies {
        let legal = pos.legal_moves();
        let next = (0..legal.len())
            .map(|i| legal[(i + ply * 7) % legal.len()])
            .find(|m| {
                let mut p = pos.clone();
                p.play_unchecked(*m);
                let key = Fen::from_position(&p, EnPassantMode::Legal).to_string();
                let key = key.rsplitn(3, ' ').nth(2).unwrap_or_default().to_string();
                !p.legal_moves().is_empty()
                    && !p.is_insufficient_material()
                    && p.halfmoves() < 60
                    && !seen.contains(&key)
            })
            .unwrap();
        out.push(San::from_move(&pos, next).to_string());
        pos.play_unchecked(next);
        let key = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
        seen.insert(key.rsplitn(3, ' ').nth(2).unwrap_or_default().to_string());
    }
    out
}

/// Rule 3's periods in the relay: 40 moves in 2 hours, 20 more in 1 hour, then 30 minutes. A
/// scripted game of 65 moves a side, a minute a move: `%clk` after each move is the core's clock
/// folded from the log, White's clock gains the second period's hour with its 40th move and the
/// third period's half hour with its 60th (Black's the same), and python-chess reads the file.
#[test]
fn relay_rule_3_clk_includes_the_additions_at_move_40_and_move_60() {
    let tmp = tempfile::tempdir().unwrap();
    let moves = unending_game(130);
    let mut script = String::from(
        "0 arbiter declare white human Garry Kasparov\n\
         0 arbiter declare black machine Deep Junior\n\
         0 arbiter declare operator Amir Ban\n\
         0 arbiter start\n",
    );
    for (i, san) in moves.iter().enumerate() {
        let t = 60 * (i + 1);
        script += &format!("{}:{:02}:{:02} move {san}\n", t / 3600, t / 60 % 60, t % 60);
    }
    let file = tmp.path().join("long.arb");
    std::fs::write(&file, script).unwrap();
    let m = played(tmp.path(), &[file.to_str().unwrap()]);
    let t = tail(&m);
    let g = &t.games[0];
    let game = Game::replay(g.events.iter()).unwrap();
    assert_eq!(game.board().moves().len(), 130, "every move stands");
    // The core's clock after each move, folded from the log.
    let mut fold: Option<Game> = None;
    let mut true_clk = Vec::new();
    for ev in &g.events {
        match &mut fold {
            None => {
                let EventKind::GameOpened(o) = &ev.kind else {
                    panic!("line 0")
                };
                let mut gm = Game::from_opening(o).unwrap();
                gm.evolve(ev).unwrap();
                fold = Some(gm);
            }
            Some(gm) => gm.evolve(ev).unwrap(),
        }
        if let EventKind::MoveMade { side, .. } = &ev.kind {
            true_clk.push(fold.as_ref().unwrap().remaining(*side, ev.at) / 1000);
        }
    }
    let text = game_pgn(&g.events, &g.stamps).unwrap();
    let got = clks(&text);
    assert_eq!(got, true_clk, "%clk against the clock folded from the log");
    // White's moves 39, 40, 41 are plies 77, 79, 81 (indices 76, 78, 80); move 60 is index 118.
    for (side, first) in [("White", 0usize), ("Black", 1)] {
        let at = |mv: usize| got[2 * (mv - 1) + first];
        assert_eq!(
            at(40) - at(39),
            3600 - 60,
            "{side}'s 40th move: +1 h less its minute"
        );
        assert_eq!(at(41) - at(40), -60, "{side}'s 41st move");
        assert_eq!(
            at(60) - at(59),
            1800 - 60,
            "{side}'s 60th move: +30 min less its minute"
        );
        assert_eq!(at(61) - at(60), -60, "{side}'s 61st move");
    }
    if tool("python3").is_some() {
        let pgn = tmp.path().join("long.pgn");
        std::fs::write(&pgn, &text).unwrap();
        let code = "import chess.pgn,sys\n\
                    g=chess.pgn.read_game(open(sys.argv[1]))\n\
                    assert not g.errors, g.errors\n\
                    print(len(list(g.mainline())), [int(n.clock()) for n in g.mainline()][118])\n";
        let out = Command::new("python3")
            .args(["-c", code, pgn.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(ok(&out).trim(), format!("130 {}", got[118]));
    }
}

/// `relay --connect URL` follows the live record over its socket instead of the folder, from
/// another machine: the file it writes is the one `relay --match` writes, and nothing is written
/// in the match folder.
#[test]
fn relay_connect_follows_the_live_record_as_the_folder_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let m = played(
        tmp.path(),
        &[
            "examples/scripts/every-clause.arb",
            "examples/scripts/full-game.arb",
        ],
    );
    let files = |d: &Path| -> Vec<(String, u64)> {
        let mut out = Vec::new();
        for e in walk(d) {
            out.push((
                e.display().to_string(),
                std::fs::metadata(&e).unwrap().len(),
            ));
        }
        out.sort();
        out
    };
    let before = files(&m);
    let (_live, url) = crate::witness_live::live(&m);
    let by_socket = tmp.path().join("socket.pgn");
    let o = arbiter(&[
        "relay",
        "--connect",
        &url,
        "--out",
        by_socket.to_str().unwrap(),
        "--once",
    ]);
    ok(&o);
    let by_folder = tmp.path().join("folder.pgn");
    ok(&arbiter(&[
        "relay",
        "--match",
        m.to_str().unwrap(),
        "--out",
        by_folder.to_str().unwrap(),
        "--once",
    ]));
    let text = std::fs::read_to_string(&by_socket).unwrap();
    assert_eq!(text.matches("[Round ").count(), 2, "{text}");
    assert_eq!(text, std::fs::read_to_string(&by_folder).unwrap());
    assert_eq!(files(&m), before, "nothing written in the match folder");
    // No live record there: said, exit not 0, nothing written.
    let nowhere = tmp.path().join("nowhere.pgn");
    let o = arbiter(&[
        "relay",
        "--connect",
        "ws://127.0.0.1:9/live",
        "--out",
        nowhere.to_str().unwrap(),
        "--once",
    ]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("cannot connect"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!nowhere.exists());
}

/// Every file below `d`.
fn walk(d: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
