//! Through the binary: hostile output and input files. Device nodes and FIFOs are made
//! in a temporary folder (never a real device path).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn arbiter() -> Command {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
}

/// A finished rehearsal match with a real (test) key.
pub(crate) fn rehearsal(tmp: &Path) -> PathBuf {
    let m = tmp.join("m");
    crate::log_util::arbiter_key_in(&m);
    let o = arbiter()
        .args(["script", "examples/scripts/quick.arb", "--match"])
        .arg(&m)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    m
}

/// A character device like /dev/full (1,7), made in `dir`: every write fails with ENOSPC.
pub(crate) fn full_device(dir: &Path) -> Option<PathBuf> {
    let p = dir.join("full");
    let ok = Command::new("mknod")
        .arg(&p)
        .args(["c", "1", "7"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "mknod (root) is needed in CI"
        );
        println!("SKIPPED: cannot make a device node here (not root?)");
        return None;
    }
    Some(p)
}

fn commands(m: &str) -> Vec<Vec<String>> {
    [
        vec!["status", "--match", m],
        vec!["status", "--match", m, "--json"],
        vec!["verify", "--match", m],
        vec!["verify", "--match", m, "--json"],
        vec!["prove", "--match", m, "--game", "1", "--seq", "3"],
        vec!["pgn", "--match", m, "--game", "1"],
        vec![
            "script",
            "examples/scripts/quick.arb",
            "--dry-run",
            "--json",
            "--match",
            m,
        ],
        vec!["checkpoint", "--match", m, "--game", "1"],
    ]
    .into_iter()
    .map(|v| v.into_iter().map(String::from).collect())
    .collect()
}

#[test]
fn hostile_stdout_on_a_full_device_exits_74_without_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    let Some(full) = full_device(tmp.path()) else {
        return;
    };
    for args in commands(m.to_str().unwrap()) {
        let o = arbiter()
            .args(&args)
            .stdout(std::fs::OpenOptions::new().write(true).open(&full).unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(74), "{args:?}: {err}");
        assert!(err.contains("standard output"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // The device is still a device: nothing replaced it.
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::metadata(&full)
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

/// No silent exit: standard output is a pipe whose reader has gone (closed before the
/// command starts, so the outcome does not depend on timing): every command that prints exits 74
/// with one line on standard error, never 0 — a proof that never arrived must not look delivered.
#[test]
fn hostile_stdout_into_a_closed_pipe_exits_74_with_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    let ms = m.to_str().unwrap();
    let proof = tmp.path().join("proof.json");
    let o = arbiter()
        .args(["prove", "--match", ms, "--game", "1", "--seq", "3"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    std::fs::write(&proof, &o.stdout).unwrap();
    let mut all = commands(ms);
    let more: [&[&str]; 5] = [
        &["verify", "--match", ms, "--proof", proof.to_str().unwrap()],
        &[
            "script",
            "examples/scripts/quick.arb",
            "--dry-run",
            "--match",
            ms,
        ],
        &["--help"],
        &["verify", "--help"],
        &["--version"],
    ];
    all.extend(
        more.iter()
            .map(|v| v.iter().map(|s| s.to_string()).collect()),
    );
    // A script with --echo on a new game: the entries are logged, the echo fails.
    let fresh = tmp.path().join("fresh");
    crate::log_util::arbiter_key_in(&fresh);
    all.push(
        [
            "script",
            "examples/scripts/quick.arb",
            "--echo",
            "--match",
            fresh.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    );
    for args in all {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader); // the reader has gone before the command writes anything
        let o = arbiter()
            .args(&args)
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(74), "{args:?}: {err}");
        assert!(
            err.contains("standard output was closed"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        let last = err.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("arbiter: standard output"),
            "{args:?}: {err}"
        );
    }
    // The script's entries were logged all the same: the log is the record.
    let o = arbiter()
        .args(["verify", "--match", fresh.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
}

/// `arbiter --help` into a full device (a device node like /dev/full, made in a temp
/// folder) exits 74 with one line on standard error, never a silent 0.
#[test]
fn hostile_help_on_a_full_device_exits_74() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(full) = full_device(tmp.path()) else {
        return;
    };
    for args in [&["--help"][..], &["script", "--help"], &["--version"]] {
        let o = arbiter()
            .args(args)
            .stdout(std::fs::OpenOptions::new().write(true).open(&full).unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(74), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("arbiter: standard output: "), "{err}");
    }
}

/// Run and wait at most [`crate::fuzz::HANG_BOUND`] (a hang, not a slow run): a hang is a
/// failure (the child is killed).
fn run_bounded(cmd: &mut Command) -> std::process::Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + crate::fuzz::HANG_BOUND;
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let o = child.wait_with_output().unwrap();
            panic!(
                "hung for {} s: {cmd:?}\n{}",
                crate::fuzz::HANG_BOUND.as_secs(),
                String::from_utf8_lossy(&o.stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn mkfifo(p: &Path) {
    let _ = std::fs::remove_file(p);
    let ok = Command::new("mkfifo").arg(p).status().unwrap().success();
    assert!(ok, "mkfifo {}", p.display());
}

/// A FIFO in place of each file a command reads: refused at once, named, never a hang.
#[test]
fn hostile_fifo_in_any_slot_is_refused_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    let ms = m.to_str().unwrap().to_owned();
    let fifo = tmp.path().join("fifo");
    mkfifo(&fifo);
    let f = fifo.to_str().unwrap().to_owned();
    let cases: Vec<(Vec<&str>, Option<PathBuf>)> = vec![
        (vec!["script", &f, "--match", &ms, "--dry-run"], None),
        (
            vec![
                "script",
                "examples/scripts/quick.arb",
                "--dry-run",
                "--rules",
                &f,
                "--match",
                &ms,
            ],
            None,
        ),
        // `verify --proof` reads a pipe or FIFO on purpose (`--proof <(arbiter prove …)`, issue
        // 21): tests/it/exit_codes.rs checks that one with no writer ends at once.
        (vec!["verify", "--match", &ms, "--consistency", &f], None),
        (vec!["verify", "--match", &ms, "--trust", &f], None),
        (vec!["keygen", "--match", &ms, "--existing", &f], None),
        (
            vec!["verify", "--match", &ms],
            Some(m.join("allowed_signers")),
        ),
        (
            vec!["verify", "--match", &ms],
            Some(m.join("game-1/checkpoints/13.txt")),
        ),
        (
            vec!["status", "--match", &ms],
            Some(m.join("game-1/log.jsonl")),
        ),
        (
            vec!["verify", "--match", &ms],
            Some(m.join("game-1/log.jsonl")),
        ),
        (
            vec!["checkpoint", "--match", &ms, "--game", "1"],
            Some(m.join("game-1/log.jsonl")),
        ),
    ];
    for (args, slot) in cases {
        let saved = slot.as_ref().map(|p| {
            let bytes = std::fs::read(p).unwrap();
            mkfifo(p);
            bytes
        });
        let o = run_bounded(arbiter().args(&args));
        let err =
            String::from_utf8_lossy(&o.stderr).into_owned() + &String::from_utf8_lossy(&o.stdout);
        assert_ne!(o.status.code(), Some(0), "{args:?} {slot:?}: {err}");
        assert!(err.contains("FIFO"), "{args:?} {slot:?}: {err}");
        if let (Some(p), Some(bytes)) = (slot, saved) {
            std::fs::remove_file(&p).unwrap();
            std::fs::write(&p, bytes).unwrap();
        }
    }
}

/// `game-2/log.jsonl -> ../game-1/log.jsonl`: nothing is read through the link or appended to
/// game 1, and a log whose line 0 names another game is not appended to.
#[test]
fn hostile_symlinked_or_copied_log_is_not_appended() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    let ms = m.to_str().unwrap();
    let g1 = m.join("game-1/log.jsonl");
    let before = std::fs::read(&g1).unwrap();
    std::fs::create_dir_all(m.join("game-2")).unwrap();
    std::os::unix::fs::symlink("../game-1/log.jsonl", m.join("game-2/log.jsonl")).unwrap();
    let open = |n| {
        arbiter::board::matchdir::open_game(
            &m,
            Some(n),
            Some(Path::new("rules/kasparov-deep-junior-2003.toml")),
            &arbiter::record::sign::KeySource::default(),
        )
    };
    // The Board UI's open path (play --game 2): refused, naming the link.
    let err = open(2).err().expect("refused").to_string();
    assert!(err.contains("symbolic link"), "{err}");
    for args in [["status", "--game", "2"], ["checkpoint", "--game", "2"]] {
        let o = run_bounded(arbiter().args(args).args(["--match", ms]));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_ne!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.contains("symbolic link"), "{args:?}: {err}");
    }
    assert_eq!(
        std::fs::read(&g1).unwrap(),
        before,
        "game 1's log is untouched"
    );
    assert!(!m.join("game-2/checkpoints").exists());

    // A copy (not a link) of game 1's log in game 2's folder: line 0 says game 1.
    std::fs::remove_file(m.join("game-2/log.jsonl")).unwrap();
    std::fs::copy(&g1, m.join("game-2/log.jsonl")).unwrap();
    let err = open(2).err().expect("refused").to_string();
    assert!(err.contains("line 0 binds game 1"), "{err}");
    assert_eq!(std::fs::read(m.join("game-2/log.jsonl")).unwrap(), before);
}

/// Script input: a huge offset is refused at parse time with its line (it used to panic in the
/// calendar arithmetic); a BOM and CR-only line ends are accepted, not a silent nothing.
#[test]
fn hostile_script_offsets_bom_and_cr_line_ends() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let huge = tmp.path().join("huge.arb");
    std::fs::write(
        &huge,
        "0 arbiter declare white human A\n9200000000000 arbiter start\n",
    )
    .unwrap();
    let o = run_bounded(
        arbiter()
            .args(["script", huge.to_str().unwrap(), "--match"])
            .arg(&m),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(65), "{err}");
    assert!(err.contains("line 2") && err.contains("30 days"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    for (name, text) in [
        ("bom.arb", format!("\u{feff}{quick}")),
        ("cr.arb", quick.replace('\n', "\r")),
        ("crlf.arb", quick.replace('\n', "\r\n")),
    ] {
        let p = tmp.path().join(name);
        std::fs::write(&p, text).unwrap();
        let o = run_bounded(
            arbiter()
                .args(["script", p.to_str().unwrap(), "--dry-run", "--match"])
                .arg(&m),
        );
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(out.contains("log entries: 12"), "{name}: {out}");
    }
}

/// A principal with a newline (or a space, a quote, a comma) never reaches allowed_signers.
#[test]
fn hostile_principal_with_a_newline_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    for bad in [
        "arbiter\nevil ssh-ed25519 AAAA",
        "two words",
        "a,b",
        "\"q\"",
        "",
    ] {
        let o = run_bounded(
            arbiter()
                .args(["keygen", "--no-passphrase", "--principal", bad, "--match"])
                .arg(&m),
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{bad:?}: {err}");
        assert!(err.contains("is not a valid name"), "{bad:?}: {err}");
        assert!(!m.join("allowed_signers").exists(), "{bad:?}");
    }
}

/// `pgn --out` / `report --out` onto a device, through a symlink or onto a folder: refused, the
/// target untouched (the device stays a device; the symlink's target keeps its bytes and mode).
#[test]
fn hostile_outputs_never_clobber_devices_or_follow_symlinks() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    let ms = m.to_str().unwrap();
    let victim = tmp.path().join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let link = tmp.path().join("link.pgn");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let folder = tmp.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    let mut targets = vec![link.clone(), folder.clone()];
    if let Some(full) = full_device(tmp.path()) {
        targets.push(full);
    }
    for t in &targets {
        for sub in [
            vec![
                "pgn",
                "--match",
                ms,
                "--game",
                "1",
                "--out",
                t.to_str().unwrap(),
            ],
            vec![
                "report",
                "--match",
                ms,
                "--game",
                "1",
                "--out",
                t.to_str().unwrap(),
            ],
        ] {
            let o = run_bounded(arbiter().args(&sub));
            let err = String::from_utf8_lossy(&o.stderr);
            assert_ne!(o.status.code(), Some(0), "{sub:?}: {err}");
            assert!(
                err.contains("the kit writes only over a regular file"),
                "{sub:?}: {err}"
            );
        }
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    assert_ne!(
        std::fs::metadata(&victim).unwrap().permissions().mode() & 0o777,
        0o600
    );
    if let Some(full) = targets.get(2) {
        assert!(
            std::fs::metadata(full)
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }
}

/// A kill while a game's log was being created leaves only `log.jsonl.new-<pid>` (the log takes
/// its name complete, line 0 synced): the next run creates the game and removes the leftover.
#[test]
fn hostile_killed_log_creation_leaves_nothing_that_blocks_the_game() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let g = m.join("game-1");
    std::fs::create_dir_all(&g).unwrap();
    std::fs::write(g.join("log.jsonl.new-999999"), b"{\"v\":1,\"seq\":0,\"pr").unwrap();
    let o = run_bounded(
        arbiter()
            .args([
                "script",
                "examples/scripts/quick.arb",
                "--game",
                "1",
                "--match",
            ])
            .arg(&m),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(g.join("log.jsonl").is_file());
    assert!(
        !g.join("log.jsonl.new-999999").exists(),
        "the leftover was removed"
    );
    let v = run_bounded(arbiter().args(["verify", "--match"]).arg(&m));
    assert_eq!(
        v.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&v.stdout)
    );
}

/// Killed `checkpoint` and `archive` runs leave temporary files; the next run removes its own
/// kind (a stray `.tmp`, a lone `.sig` or `.note`, a hidden partial engine-log copy) and nothing
/// else.
#[test]
fn hostile_killed_checkpoint_and_archive_leftovers_are_removed_next_time() {
    let tmp = tempfile::tempdir().unwrap();
    let m = rehearsal(tmp.path());
    let cps = m.join("game-1/checkpoints");
    std::fs::write(cps.join("99.txt.tmp"), "partial").unwrap();
    std::fs::write(cps.join("99.txt.sig"), "lone").unwrap();
    std::fs::write(cps.join("99.note"), "lone").unwrap();
    let o = run_bounded(
        arbiter()
            .args(["checkpoint", "--game", "1", "--match"])
            .arg(&m),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["99.txt.tmp", "99.txt.sig", "99.note"] {
        assert!(!cps.join(f).exists(), "{f} left behind");
    }
    assert!(cps.join("13.txt.sig").exists() && cps.join("13.note").exists());

    let engine = m.join("game-1/engine");
    std::fs::create_dir_all(&engine).unwrap();
    let dead = engine.join(".machine.log.partial-999999");
    let mine = engine.join(format!(".machine.log.partial-{}", std::process::id()));
    std::fs::write(&dead, "confidential partial copy").unwrap();
    std::fs::write(&mine, "a copy in progress").unwrap();
    assert_eq!(arbiter::after::archive::remove_partial_copies(&engine), 1);
    assert!(!dead.exists());
    assert!(mine.exists(), "a running process's copy is left alone");
}

/// Two boards on the same new game: the second one to record line 0 is told another board holds
/// the game (not a disk failure), and the first board's log is intact.
#[test]
fn hostile_second_board_on_a_new_game_is_told_another_board_holds_it() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let rules = Path::new("rules/kasparov-deep-junior-2003.toml");
    let open = || {
        arbiter::board::matchdir::open_game(
            &m,
            None,
            Some(rules),
            &arbiter::record::sign::KeySource::default(),
        )
        .expect("opened")
        .session
    };
    let (mut a, mut b) = (open(), open());
    let words = [
        "arbiter declare white human Garry Kasparov",
        "arbiter declare black machine Deep Junior",
        "arbiter declare operator Amir Ban",
        "arbiter declare team Shay Bushinsky",
        "arbiter start",
    ];
    for w in words {
        let cmd = arbiter::core::command::parse(w).unwrap();
        a.execute(&cmd, 0).unwrap();
    }
    let before = std::fs::read(m.join("game-1/log.jsonl")).unwrap();
    let mut last = None;
    for w in words {
        let cmd = arbiter::core::command::parse(w).unwrap();
        last = b.execute(&cmd, 0).err();
    }
    let err = last.expect("the second board is refused").to_string();
    assert!(err.contains("another board"), "{err}");
    assert_eq!(std::fs::read(m.join("game-1/log.jsonl")).unwrap(), before);
}

/// The streamed `verify` (blocks of whole lines checked on several threads, joined in order with
/// the Merkle frontier) agrees with the exact path field for field: on a clean log over 1 MB with
/// checkpoints on both sides of the block cuts, and with damage in the lines on either side of
/// every cut (a `prev` changed, a line deleted, a line's bytes changed).
#[test]
fn hostile_streamed_verify_agrees_with_the_exact_path_at_every_block_cut() {
    use arbiter::record::verify::{Status, verify_game};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("match");
    crate::log_verify::bench_match(&dir, 4_000);
    let path = dir.join("game-1/log.jsonl");
    let good = std::fs::read(&path).unwrap();
    assert!(good.len() > 1 << 20);
    // Where the reader cuts: after the last newline within each 256 KiB read so far.
    let block = 256 * 1024;
    let cuts: Vec<usize> = (1..)
        .map(|k| k * block)
        .take_while(|&c| c < good.len())
        .map(|c| good[..c].iter().rposition(|&b| b == b'\n').unwrap() + 1)
        .collect();
    assert!(cuts.len() >= 4, "{} cuts", cuts.len());
    // Checkpoints at the entry counts just before, at and after the first two cuts.
    let entries = arbiter::record::journal::read_entries(&path).unwrap();
    let key = arbiter::record::sign::load_key(&dir.join("keys/arbiter"), None).unwrap();
    let seq_at = |offset: usize| {
        entries
            .iter()
            .position(|e| e.offset as usize == offset)
            .unwrap()
    };
    for &c in &cuts[..2] {
        let k = seq_at(c);
        for size in [k - 1, k, k + 1] {
            arbiter::record::sign::sign_checkpoint(
                &dir,
                1,
                &entries[..size],
                &key,
                crate::log_util::t0(),
            )
            .unwrap();
        }
    }
    let v = verify_game(&dir, 1);
    assert_eq!(v.status, Status::Ok, "{v:?}");
    assert_eq!(v, crate::log_verify::exact_game(&dir, 1));
    let line = |seq: usize| {
        let e = &entries[seq];
        e.offset as usize..(e.offset + e.len) as usize
    };
    let mut cases = 0;
    for &c in &cuts {
        let k = seq_at(c);
        for seq in [k - 1, k] {
            let mut changed_prev = good.clone();
            changed_prev[line(seq).start + 30] ^= 0x01;
            let mut deleted = good.clone();
            deleted.drain(line(seq).start..line(seq).end + 1);
            let mut changed_bytes = good.clone();
            let at = line(seq).end - 3;
            changed_bytes[at] = if changed_bytes[at] == b'1' {
                b'2'
            } else {
                b'1'
            };
            for (what, bytes) in [
                ("prev", changed_prev),
                ("deleted", deleted),
                ("bytes", changed_bytes),
            ] {
                std::fs::write(&path, &bytes).unwrap();
                let v = verify_game(&dir, 1);
                assert_ne!(v.status, Status::Ok, "{what} of line {seq} at cut {c}");
                assert_eq!(
                    v,
                    crate::log_verify::exact_game(&dir, 1),
                    "{what} of line {seq} at cut {c}"
                );
                cases += 1;
            }
        }
    }
    assert!(cases >= 24, "{cases}");
}
