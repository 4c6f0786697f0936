//! The player's screen: `arbiter display` follows a game that another process appends
//! (tmux), goes on to the next game, never writes a byte in the match folder (hashed before and
//! after), and shows the clocks' states in words with nothing of the machine's internal clock.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use arbiter::board::display::{Shown, render};
use arbiter::board::follow::MatchTail;
use arbiter::core::event::EventKind;
use arbiter::core::game::Game;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::pty::{DEADLINE, Tmux, tmux_available};
use crate::realgame::ok;

fn arbiter(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .output()
        .unwrap()
}

/// Every file and folder under `dir`: its path, mode and bytes (a lock file, a touched time, a
/// new file or a changed byte all show).
fn snapshot(dir: &Path) -> BTreeMap<String, (u32, Vec<u8>)> {
    use std::os::unix::fs::PermissionsExt;
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, (u32, Vec<u8>)>) {
        for item in std::fs::read_dir(dir).unwrap() {
            let p = item.unwrap().path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            let mode = meta.permissions().mode();
            if meta.is_dir() {
                out.insert(rel, (mode, Vec::new()));
                walk(root, &p, out);
            } else {
                out.insert(rel, (mode, std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn digest(s: &BTreeMap<String, (u32, Vec<u8>)>) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    for (path, (mode, bytes)) in s {
        h.update(path.as_bytes());
        h.update(mode.to_le_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    hex::encode(h.finalize())
}

#[test]
fn display_follows_a_game_played_by_script_in_another_process_and_the_next_game() {
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let ms = m.to_str().unwrap();
    let live = tmp.path().join("live.pgn");
    let t = Tmux::start(
        "display-follow",
        &["display", "--match", ms, "--relay", live.to_str().unwrap()],
        &crate::pty::repo_dir(),
        110,
        44,
    );
    t.wait_for("waiting for the board", DEADLINE);

    // Another process plays game 1: the display shows its last move.
    ok(&arbiter(&[
        "script",
        "examples/scripts/quick.arb",
        "--match",
        ms,
    ]));
    let written = Instant::now();
    let s = t.wait_for("Nf6", DEADLINE);
    println!(
        "game 1's last move on screen {} ms after the script's exit",
        written.elapsed().as_millis()
    );
    assert!(s.contains("game 1"), "{s}");
    assert!(
        s.contains("Garry Kasparov") && s.contains("Deep Junior"),
        "{s}"
    );
    assert!(s.contains("advisory"), "{s}");
    assert!(s.contains("running") && s.contains("waiting"), "{s}");

    // The next game, by another process again: the display moves on to it.
    ok(&arbiter(&[
        "script",
        "examples/scripts/full-game.arb",
        "--match",
        ms,
    ]));
    let written = Instant::now();
    let s = t.wait_for("GAME OVER 0-1", DEADLINE);
    println!(
        "game 2's result on screen {} ms after the script's exit",
        written.elapsed().as_millis()
    );
    assert!(s.contains("game 2"), "{s}");
    assert!(s.contains("Stockfish 1"), "the match score: {s}");
    t.keys(&["q"]);
    assert!(t.wait_exit(DEADLINE), "q quits");
    // With --relay the file holds both games, as `arbiter relay` writes it.
    let text = std::fs::read_to_string(&live).unwrap();
    assert_eq!(text.matches("[Round ").count(), 2, "{text}");
    assert!(text.contains("[Result \"0-1\"]"), "{text}");
}

#[test]
fn display_never_writes_in_the_match_folder() {
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let ms = m.to_str().unwrap();
    ok(&arbiter(&[
        "script",
        "examples/scripts/quick.arb",
        "--match",
        ms,
    ]));
    let before = snapshot(&m);
    let t = Tmux::start(
        "display-ro",
        &["display", "--match", ms, "--game", "1"],
        &crate::pty::repo_dir(),
        100,
        40,
    );
    t.wait_for("last move: 3... Nf6", DEADLINE);
    // Let it run through a few of its own wake-ups (clock seconds, safety polls).
    let until = Instant::now() + Duration::from_millis(2500);
    while Instant::now() < until {
        t.screen();
        std::thread::sleep(Duration::from_millis(100));
    }
    // One key: the board's keys (the command line, stop, the press, help, y, Enter, Esc) do
    // nothing here; the screen still shows the game and no line to type in.
    t.keys(&[":", "s", "Space", "?", "y", "Enter", "Escape", "F8"]);
    t.type_text("arbiter stop");
    t.keys(&["Enter"]);
    let s = t.wait_for("last move: 3... Nf6", DEADLINE);
    for word in ["▸", "help", "stop", "STOPPED", "passphrase"] {
        assert!(!s.contains(word), "'{word}' after the board's keys:\n{s}");
    }
    t.keys(&["q"]);
    assert!(t.wait_exit(DEADLINE), "q quits");
    let after = snapshot(&m);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "no file created or removed"
    );
    assert_eq!(digest(&before), digest(&after), "no byte or mode changed");
}

/// The screen drawn for the game as it stood after its first `k` entries, as text.
fn screen_after(g: &arbiter::board::follow::GameTail, k: usize) -> String {
    let game = Game::replay(g.events[..k].iter()).unwrap();
    let view = game.view(g.events[k - 1].at, usize::MAX);
    let times = arbiter::board::tui::movelist::move_times(&g.events[..k]);
    let s = Shown {
        view: Some(view),
        times,
        ..Shown::default()
    };
    let area = Rect::new(0, 0, 120, 44);
    let mut buf = Buffer::empty(area);
    render(&s, area, &mut buf);
    (0..area.height)
        .map(|y| {
            (0..area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn display_states_in_words_and_nothing_of_the_machines_internal_clock() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    ok(&arbiter(&[
        "script",
        "examples/scripts/every-clause.arb",
        "--match",
        m.to_str().unwrap(),
    ]));
    let mut t = MatchTail::new(&m, None);
    t.poll();
    let g = &t.games[0];
    let at = |pred: &dyn Fn(&EventKind) -> bool| {
        g.events.iter().position(|e| pred(&e.kind)).unwrap() + 1
    };

    // 6c: the engine's reading (2:02:00) and the owed correction are the arbiter's alone.
    let k = at(&|e| matches!(e, EventKind::InternalClockReported { .. }));
    let s = screen_after(g, k);
    assert!(
        !s.contains("2:02:00") && !s.contains("internal") && !s.contains("6c"),
        "{s}"
    );
    assert!(s.contains("WHITE (Garry Kasparov, human): running"), "{s}");
    assert!(s.contains("BLACK (Deep Junior, machine): waiting"), "{s}");
    assert!(s.contains("advisory"), "{s}");
    assert!(s.contains("to the control"), "{s}");

    let k = at(&|e| matches!(e, EventKind::ClockStopped { .. }));
    let s = screen_after(g, k);
    assert!(s.contains("STOPPED by the arbiter"), "{s}");

    let k = at(&|e| matches!(e, EventKind::PowerFailed { .. }));
    let s = screen_after(g, k);
    assert!(s.contains("SUSPENDED"), "{s}");

    let s = screen_after(g, g.events.len());
    assert!(
        s.contains("GAME OVER 1/2-1/2") && s.contains("RESULT 1/2-1/2"),
        "{s}"
    );
    // The move list with each move's time and the clock after it (as the relay's %emt/%clk),
    // and the position with its files.
    assert!(
        s.contains("1. e4       0:10 1:59:50   e5       0:15 1:59:45"),
        "{s}"
    );
    assert!(s.contains("a  b  c  d  e  f  g  h"), "{s}");
    // No dialog, no command line, no key help of the board.
    for word in ["passphrase", "F8", ":arbiter", "ARBITER "] {
        assert!(!s.contains(word), "'{word}' on the display:\n{s}");
    }
}

/// The follower under the display and the relay: a log written line by line by another writer
/// (here the test, copying a real game's log, and once a line in two halves as a torn write
/// would leave it) is taken in entry by entry, each after its change notification. The latency
/// from the write to the entry read is printed (no timed assertion: the deadline is generous).
#[test]
fn display_follower_takes_in_each_append_and_waits_for_a_whole_line() {
    use arbiter::board::follow::{Wake, Watch, wait};
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    crate::log_util::arbiter_key_in(&src);
    ok(&arbiter(&[
        "script",
        "examples/scripts/quick.arb",
        "--match",
        src.to_str().unwrap(),
    ]));
    let bytes = std::fs::read(src.join("game-1/log.jsonl")).unwrap();
    let lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').collect();

    let m = tmp.path().join("m");
    std::fs::create_dir_all(m.join("game-1")).unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Wake<()>>();
    let mut watch = Watch::start(&m, tx);
    assert!(
        matches!(watch, Watch::Notify(_)),
        "inotify is available here"
    );
    let mut t = MatchTail::new(&m, None);
    t.poll();
    watch.follow(&t);
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(m.join("game-1/log.jsonl"))
        .unwrap();
    let mut lat = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let torn = i == 3;
        let (first, rest) = if torn {
            line.split_at(line.len() / 2)
        } else {
            (*line, &b""[..])
        };
        if torn {
            f.write_all(first).unwrap();
            f.sync_data().unwrap();
            for _ in wait(&rx, Duration::from_millis(300)) {}
            t.poll();
            assert_eq!(t.games[0].events.len(), i, "half a line is not an entry");
        }
        let written = Instant::now();
        f.write_all(if torn { rest } else { first }).unwrap();
        f.sync_data().unwrap();
        let until = written + Duration::from_secs(10);
        while t.games.first().map_or(0, |g| g.events.len()) < i + 1 {
            assert!(Instant::now() < until, "entry {i} not taken in");
            let _ = wait(&rx, t.poll_every(&watch));
            t.poll();
            watch.follow(&t);
        }
        lat.push(written.elapsed().as_micros());
        assert!(t.games[0].problem.is_none(), "{:?}", t.games[0].problem);
    }
    lat.sort_unstable();
    println!(
        "follow latency over {} appends: median {} µs, max {} µs",
        lat.len(),
        lat[lat.len() / 2],
        lat[lat.len() - 1]
    );
    let g = &t.games[0];
    assert_eq!(g.events.len(), lines.len());
    assert!(g.game.as_ref().unwrap().board().moves().len() == 6);

    // Read in blocks far smaller than a line (a line cut by a block is read again, the block
    // doubling until a line fits): the same entries.
    let mut small = arbiter::board::follow::GameTail::new(&m, 1);
    small.read_block = 64;
    assert!(small.poll());
    assert!(small.problem.is_none(), "{:?}", small.problem);
    assert_eq!(small.events, g.events);
    assert_eq!(small.stamps, g.stamps);
}

#[test]
fn display_flag_fell_in_words() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let script = tmp.path().join("flag.arb");
    std::fs::write(
        &script,
        "0 arbiter declare white human Garry Kasparov\n\
         0 arbiter declare black machine Deep Junior\n\
         0 arbiter declare operator Amir Ban\n\
         0 arbiter start\n\
         0:00:05 move d4\n\
         2:10:00 arbiter note the machine's flag has fallen\n",
    )
    .unwrap();
    ok(&arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        m.to_str().unwrap(),
    ]));
    let mut t = MatchTail::new(&m, None);
    t.poll();
    let g = &t.games[0];
    let s = screen_after(g, g.events.len());
    assert!(s.contains("BLACK (Deep Junior, machine): FLAG FELL"), "{s}");
    assert!(s.contains("GAME OVER 1-0"), "{s}");
}

/// The clocks on the display run from the latest entry by the wall time since it was written, with
/// the core's own clock: 5.5 s after the entry, the running clock is 5.5 s lower, to the ms.
#[test]
fn display_clock_runs_from_the_latest_entry_with_the_cores_clock() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    ok(&arbiter(&[
        "script",
        "examples/scripts/quick.arb",
        "--match",
        m.to_str().unwrap(),
    ]));
    let mut t = MatchTail::new(&m, None);
    t.poll();
    let g = &t.games[0];
    let last = *g.stamps.last().unwrap();
    let later = last.utc + chrono::Duration::milliseconds(5_500);
    let a = arbiter::board::display::shown(&t, last.utc).view.unwrap();
    let b = arbiter::board::display::shown(&t, later).view.unwrap();
    let core = g.game.as_ref().unwrap().view(last.mono + 5_500, usize::MAX);
    let white = arbiter::core::Side::White.index();
    assert!(b.clocks[white].running);
    assert_eq!(a.clocks[white].shown_ms - b.clocks[white].shown_ms, 5_500);
    assert_eq!(b.clocks, core.clocks, "the same clock code as the board");
    // Before the latest entry's time (a wall clock behind the log's) nothing runs backwards.
    let earlier = last.utc - chrono::Duration::seconds(3);
    let c = arbiter::board::display::shown(&t, earlier).view.unwrap();
    assert_eq!(c.clocks, a.clocks);
}

/// Type a move on the board's clock screen (its first letter opens the move line) and Enter.
fn board_move(t: &Tmux, san: &str) {
    let (first, rest) = san.split_at(1);
    t.type_text(first);
    t.wait_for("▸", DEADLINE);
    t.type_text(rest);
    t.keys(&["Enter"]);
}

/// The display beside a real board (`arbiter play` in another terminal): each move typed on the
/// board appears on the display; the board is killed (-9) and restarted, and the display, which
/// only reads, goes on: the restart's entries and the next move appear on it without a restart
/// of its own.
#[test]
fn display_beside_the_board_across_a_kill_and_restart() {
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let (dir, args) = crate::pty::demo_match();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let m = dir.path().join("logs/demo");
    let repo = crate::pty::repo_dir();
    let board = Tmux::start("disp-board", &args, &repo, 100, 30);
    board.wait_for("PRE-GAME", DEADLINE);
    board.keys(&["Space"]);
    board.wait_for("RUNNING", DEADLINE);
    let ms = m.to_str().unwrap();
    let display = Tmux::start("disp-screen", &["display", "--match", ms], &repo, 110, 44);
    display.wait_for("WHITE (Garry Kasparov, human): running", DEADLINE);

    board_move(&board, "e4");
    board.wait_for("1. e4", DEADLINE);
    display.wait_for_all(
        &["last move: 1. e4", "BLACK (Deep Junior, machine): running"],
        DEADLINE,
    );
    board_move(&board, "e5");
    display.wait_for("last move: 1... e5", DEADLINE);

    // kill -9 the board; the display stays up, reading.
    let pid = board.pid();
    assert!(
        Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .unwrap()
            .success()
    );
    assert!(board.wait_exit(DEADLINE));
    drop(board);
    display.wait_for_all(&["last move: 1... e5", "game 1"], DEADLINE);

    let board = Tmux::start("disp-board2", &args, &repo, 120, 30);
    board.wait_for("RESTART", DEADLINE);
    board.keys(&[":"]);
    board.type_text("arbiter restart-gap waive the kit was killed by the test");
    board.keys(&["Enter"]);
    // The question says what the ruling does to the clock, in words, then y.
    board.wait_for("is charged nothing", DEADLINE);
    board.keys(&["y"]);
    board.wait_for("log: 7 entries", DEADLINE);
    board_move(&board, "Nf3");
    board.wait_for("2. Nf3", DEADLINE);
    let s = display.wait_for("last move: 2. Nf3", DEADLINE);
    assert!(s.contains("BLACK (Deep Junior, machine): running"), "{s}");
    display.keys(&["q"]);
    assert!(display.wait_exit(DEADLINE), "q quits the display");
    board.keys(&["q"]);
    board.wait_for("quit the board UI?", DEADLINE);
    board.keys(&["y"]);
    assert!(board.wait_exit(DEADLINE));
    // The relay of this demo game says what `arbiter pgn` says: the demo key proves nothing.
    let live = dir.path().join("live.pgn");
    ok(&arbiter(&[
        "relay",
        "--match",
        ms,
        "--out",
        live.to_str().unwrap(),
        "--once",
    ]));
    let text = std::fs::read_to_string(&live).unwrap();
    assert!(text.contains("{DEMO KEY:"), "{text}");
    assert!(text.contains("1. e4 {[%clk"), "{text}");
}

/// Idle cost: the display keeps its view and paints with the Board UI's painter, so a
/// tick of the clock draws only the clocks and the "this move" row. What the terminal shows must
/// be, cell for cell and style for style, the whole frame of a fresh [`arbiter::board::display::shown`]
/// at the same wall time: two real games' logs (every clause of the 2003 rules, then a full game)
/// are appended entry by entry into a followed folder, and after each entry the display is
/// painted at three wall times a second apart, at two sizes, with and without colour, and once
/// across a resize.
#[test]
fn display_ticks_draw_only_the_clocks_and_match_a_whole_frame() {
    use arbiter::board::display::{Display, Look};
    use ratatui::backend::TestBackend;
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    crate::log_util::arbiter_key_in(&src);
    for script in ["every-clause.arb", "full-game.arb"] {
        ok(&arbiter(&[
            "script",
            &format!("examples/scripts/{script}"),
            "--match",
            src.to_str().unwrap(),
        ]));
    }
    for (run, (w, h, no_color)) in [(110, 44, false), (80, 24, true)].into_iter().enumerate() {
        let m = tmp.path().join(format!("m{run}"));
        let mut t = MatchTail::new(&m, None);
        let mut d = Display::new(Rect::new(0, 0, w, h));
        let mut b = TestBackend::new(w, h);
        let look = Look {
            no_color,
            ..Look::default()
        };
        let mut paints = 0;
        let mut check = |t: &MatchTail, d: &mut Display, b: &mut TestBackend, now| {
            d.paint(b, t, now, &look).unwrap();
            let mut s = arbiter::board::display::shown(t, now);
            s.no_color = no_color;
            let area = d.shown().area;
            let mut whole = Buffer::empty(area);
            render(&s, area, &mut whole);
            assert_eq!(b.buffer(), &whole, "{w}x{h} at {now}: the terminal differs");
            assert_eq!(
                d.shown(),
                &whole,
                "{w}x{h} at {now}: the painter's copy differs"
            );
            paints += 1;
        };
        // Before any game: the waiting note.
        std::fs::create_dir_all(&m).unwrap();
        t.poll();
        check(&t, &mut d, &mut b, chrono::Utc::now());
        for game in [1u32, 2] {
            let bytes = std::fs::read(src.join(format!("game-{game}/log.jsonl"))).unwrap();
            std::fs::create_dir_all(m.join(format!("game-{game}"))).unwrap();
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(m.join(format!("game-{game}/log.jsonl")))
                .unwrap();
            for (i, line) in bytes.split_inclusive(|b| *b == b'\n').enumerate() {
                f.write_all(line).unwrap();
                assert!(t.poll());
                let at = t.current().unwrap().stamps.last().unwrap().utc;
                for ms in [300, 1_300, 2_300] {
                    check(&t, &mut d, &mut b, at + chrono::Duration::milliseconds(ms));
                }
                if game == 1 && i == 12 {
                    // A resize: the shell clears the terminal and says so.
                    b = TestBackend::new(w + 20, h + 6);
                    d.cleared(Rect::new(0, 0, w + 20, h + 6));
                    check(
                        &t,
                        &mut d,
                        &mut b,
                        at + chrono::Duration::milliseconds(2_600),
                    );
                    b = TestBackend::new(w, h);
                    d.cleared(Rect::new(0, 0, w, h));
                    check(
                        &t,
                        &mut d,
                        &mut b,
                        at + chrono::Duration::milliseconds(2_700),
                    );
                }
            }
        }
        let (whole, partial) = d.frames();
        println!("{w}x{h}: {paints} paints, {whole} whole, {partial} in part");
        assert_eq!(whole + partial, paints);
        assert!(
            partial * 3 >= paints,
            "{w}x{h}: the ticks were drawn whole ({whole} whole, {partial} in part)"
        );
    }
}

/// The follower keeps each log open (a look that finds nothing new is a stat, so its own reads
/// wake no watcher); a log replaced under it (another file at the same path, longer than what
/// was read) is read again from its start, and the match folder's new game is still found.
#[test]
fn display_follower_reads_a_replaced_log_again_and_finds_the_next_game() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    crate::log_util::arbiter_key_in(&src);
    for script in ["quick.arb", "full-game.arb"] {
        ok(&arbiter(&[
            "script",
            &format!("examples/scripts/{script}"),
            "--match",
            src.to_str().unwrap(),
        ]));
    }
    let quick = std::fs::read(src.join("game-1/log.jsonl")).unwrap();
    let full = std::fs::read(src.join("game-2/log.jsonl")).unwrap();
    assert!(full.len() > quick.len());
    let m = tmp.path().join("m");
    std::fs::create_dir_all(m.join("game-1")).unwrap();
    std::fs::write(m.join("game-1/log.jsonl"), &quick).unwrap();
    let mut t = MatchTail::new(&m, None);
    assert!(t.poll());
    let n = t.games[0].events.len();
    assert!(!t.poll(), "nothing new");
    // Another file put in its place (written beside it, renamed over it).
    std::fs::write(m.join("game-1/new.jsonl"), &full).unwrap();
    std::fs::rename(m.join("game-1/new.jsonl"), m.join("game-1/log.jsonl")).unwrap();
    assert!(t.poll());
    let g = &t.games[0];
    assert!(g.problem.is_none(), "{:?}", g.problem);
    assert!(g.events.len() > n);
    assert!(g.ended(), "the whole new log was read");
    // A second game folder, found by the next look.
    std::fs::create_dir_all(m.join("game-2")).unwrap();
    std::fs::write(m.join("game-2/log.jsonl"), &quick).unwrap();
    assert!(t.poll());
    assert_eq!(t.games.len(), 2);
    assert_eq!(t.games[1].events.len(), n);
}

/// Denryu-sen 5.2 on the display: a shogi game's clocks are named as shogi names them (先手
/// sente, 後手 gote, the entrant's kind), the position is the shogi board with both hands, and
/// no chess counter's advisory is cited where no move control exists.
#[test]
fn display_denryusen_5_2_names_sente_and_gote_and_shows_the_shogi_position() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let repo = crate::pty::repo_dir();
    ok(&arbiter(&[
        "script",
        repo.join("tests/fixtures/shogi/human-vs-engine/game.arb")
            .to_str()
            .unwrap(),
        "--match",
        m.to_str().unwrap(),
        "--rules",
        repo.join("rules/denryusen-2024.toml").to_str().unwrap(),
    ]));
    let mut t = MatchTail::new(&m, None);
    t.poll();
    let g = &t.games[0];
    // After 16 plies (20 entries), sente to move. A wide character's second cell reads as a
    // space in the screen's text: `先 手`.
    let s = screen_after(g, 20);
    assert!(
        s.contains("先 手  SENTE (Taro Yamada, human): running"),
        "{s}"
    );
    assert!(
        s.contains("後 手  GOTE (Fairy-Stockfish, program): waiting"),
        "{s}"
    );
    // The shogi board: files, gote's pieces marked `v`, both hands (none taken yet).
    assert!(s.contains("９  ８  ７  ６  ５  ４  ３  ２  １"), "{s}");
    assert!(
        s.contains("v玉") && s.contains("▲持 駒") && s.contains("△持 駒"),
        "{s}"
    );
    assert!(!s.contains("WHITE") && !s.contains("FIDE"), "{s}");
}

/// The audience never sees a clock the official clock is not: with a clock running, the board
/// beats every second (`game-<n>/heartbeat`); once neither a beat nor an entry has come for
/// 2.5 s (marked within 3 s), the display says the board is offline and its clocks stand as they
/// were when the board was last seen, however long it stays away; a beat again and they run.
#[test]
fn display_laws_6_a_board_offline_is_marked_within_3_s_and_no_clock_runs_unseen() {
    use arbiter::board::display::{Display, Look, board_offline, heartbeat_written};
    use ratatui::backend::TestBackend;
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    ok(&arbiter(&[
        "script",
        "examples/scripts/quick.arb",
        "--match",
        m.to_str().unwrap(),
    ]));
    let mut t = MatchTail::new(&m, None);
    t.poll();
    let last = t.current().unwrap().stamps.last().unwrap().utc;
    // The board's last beat, a second after the last entry.
    let beat = last + chrono::Duration::seconds(1);
    let path = arbiter::record::layout::heartbeat_path(&m, 1);
    std::fs::write(&path, b"beat").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(beat.into())
        .unwrap();
    let written = heartbeat_written(&t).unwrap();
    assert_eq!(written.timestamp_millis(), beat.timestamp_millis());
    let ms = chrono::Duration::milliseconds;
    assert_eq!(board_offline(&t, Some(written), beat + ms(2_000)), None);
    assert_eq!(
        board_offline(&t, Some(written), beat + ms(3_000)),
        Some(written)
    );
    // No beat at all: the last entry is when the board was last seen.
    assert_eq!(board_offline(&t, None, last + ms(3_000)), Some(last));
    // Painted offline: the note, and the clocks as at the last beat, ten seconds or a minute on.
    let (w, h) = (110, 44);
    let mut d = Display::new(ratatui::layout::Rect::new(0, 0, w, h));
    let mut b = TestBackend::new(w, h);
    let screen = |b: &TestBackend| crate::tui_support::text(b.buffer());
    let mut look = Look::default();
    d.paint(&mut b, &t, beat, &look).unwrap();
    let online = screen(&b);
    look.offline_since = board_offline(&t, Some(written), beat + ms(3_000));
    let wait = d.paint(&mut b, &t, beat + ms(3_000), &look).unwrap();
    assert_eq!(wait, None, "nothing runs on an offline board's screen");
    let at_3s = screen(&b);
    assert!(at_3s.contains("BOARD OFFLINE"), "{at_3s}");
    d.paint(&mut b, &t, beat + ms(60_000), &look).unwrap();
    assert_eq!(screen(&b), at_3s, "the clocks stand");
    let clocks = |s: &str| s.lines().take(8).collect::<Vec<_>>().join("\n");
    assert_eq!(clocks(&at_3s), clocks(&online), "as at the last beat");
    // The board beats again: the clocks run.
    look.offline_since = None;
    d.paint(&mut b, &t, beat + ms(61_000), &look).unwrap();
    let back = screen(&b);
    assert!(!back.contains("BOARD OFFLINE"), "{back}");
    assert_ne!(clocks(&back), clocks(&online), "running again");
}

/// `display --connect URL` follows the live record over its socket (from another machine)
/// instead of the folder: a game another process writes shows as it comes.
#[test]
fn display_connect_follows_the_live_record_over_its_socket() {
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let ms = m.to_str().unwrap();
    let (_live, url) = crate::witness_live::live(&m);
    let t = Tmux::start(
        "display-connect",
        &["display", "--connect", &url],
        &crate::pty::repo_dir(),
        110,
        44,
    );
    t.wait_for("waiting for the board", DEADLINE);
    ok(&arbiter(&[
        "script",
        "examples/scripts/quick.arb",
        "--match",
        ms,
    ]));
    let s = t.wait_for("Nf6", DEADLINE);
    assert!(s.contains("game 1"), "{s}");
    assert!(
        s.contains("Garry Kasparov") && s.contains("Deep Junior"),
        "{s}"
    );
    t.keys(&["q"]);
    assert!(t.wait_exit(DEADLINE), "q quits");
}
