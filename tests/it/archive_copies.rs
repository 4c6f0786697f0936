//! Archive of the machine's log copies and the program (rules 13a, 13d).

use crate::pgn_support::{TestResult, real_data};
use arbiter::after::archive::{ArchiveError, archive_copies, compare_copies, hash_file};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, std::io::Error> {
    let p = dir.join(name);
    std::fs::write(&p, bytes)?;
    Ok(p)
}

/// Two copies of the real log on "two sticks", a program file, and an empty game folder.
struct Setup {
    _tmp: tempfile::TempDir,
    game: PathBuf,
    copies: Vec<PathBuf>,
    program: PathBuf,
}

fn setup() -> Result<Setup, Box<dyn std::error::Error>> {
    let tmp = tempfile::tempdir()?;
    let log = std::fs::read(real_data("machine-debug.log")?)?;
    let mut copies = Vec::new();
    for stick in ["stick-a", "stick-b"] {
        let d = tmp.path().join(stick);
        std::fs::create_dir(&d)?;
        copies.push(write(&d, "machine-debug.log", &log)?);
    }
    let program = write(tmp.path(), "stockfish-17", b"\x7fELF pretend engine binary")?;
    let game = tmp.path().join("match").join("game-1");
    std::fs::create_dir_all(&game)?;
    Ok(Setup {
        _tmp: tmp,
        game,
        copies,
        program,
    })
}

fn mode(p: &Path) -> Result<u32, std::io::Error> {
    Ok(std::fs::metadata(p)?.permissions().mode() & 0o777)
}

#[test]
fn archive_hash_file_agrees_with_sha256sum() -> TestResult {
    let path = real_data("machine-debug.log")?;
    let (digest, size) = hash_file(&path, false)?;
    let out = Command::new("sha256sum").arg(&path).output()?;
    let text = String::from_utf8(out.stdout)?;
    assert_eq!(text.split_whitespace().next(), Some(digest.as_str()));
    assert_eq!(size, std::fs::metadata(&path)?.len());
    // The empty file.
    let tmp = tempfile::tempdir()?;
    let empty = write(tmp.path(), "empty", b"")?;
    assert_eq!(
        hash_file(&empty, true)?,
        (
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".to_owned(),
            0
        )
    );
    Ok(())
}

#[test]
fn archive_refuses_fewer_copies_than_13a_asks() -> TestResult {
    let s = setup()?;
    let err = archive_copies(&s.game, &s.copies[..1], 2, None)
        .err()
        .ok_or("one copy was accepted")?;
    assert!(matches!(
        err,
        ArchiveError::TooFewCopies { got: 1, need: 2 }
    ));
    let msg = err.to_string();
    assert!(msg.contains("rule 13a"), "{msg}");
    assert!(msg.contains("at least 2"), "{msg}");
    assert!(!s.game.join("engine").exists());
    Ok(())
}

#[test]
fn archive_refuses_the_same_file_given_twice() -> TestResult {
    let s = setup()?;
    let twice = vec![s.copies[0].clone(), s.copies[0].clone()];
    let err = archive_copies(&s.game, &twice, 2, None)
        .err()
        .ok_or("the same file was accepted as two copies")?;
    assert!(matches!(err, ArchiveError::SameFile { .. }), "{err}");
    assert!(err.to_string().contains("rule 13a"));
    Ok(())
}

#[test]
fn archive_refuses_copies_that_differ_and_names_the_offset() -> TestResult {
    let tmp = tempfile::tempdir()?;
    // Past the first 1 MiB chunk, to check offsets across chunks.
    let a: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    let mut b = a.clone();
    b[1_500_007] ^= 0x20;
    let pa = write(tmp.path(), "a.log", &a)?;
    let pb = write(tmp.path(), "b.log", &b)?;
    let pc = write(tmp.path(), "c.log", &a)?;
    let err = compare_copies(&[pa.clone(), pc.clone(), pb.clone()])
        .err()
        .ok_or("different copies were accepted")?;
    match &err {
        ArchiveError::CopiesDiffer { a, b, offset } => {
            assert_eq!((a, b, *offset), (&pa, &pb, 1_500_007));
        }
        other => return Err(format!("wrong error: {other}").into()),
    }
    assert!(
        err.to_string()
            .contains("first differ at byte offset 1500007")
    );
    compare_copies(&[pa.clone(), pc.clone()])?;

    // A truncated copy is a prefix of the whole one.
    let pt = write(tmp.path(), "t.log", &a[..2_100_000])?;
    let err = compare_copies(&[pa.clone(), pt.clone()])
        .err()
        .ok_or("a truncated copy was accepted")?;
    match &err {
        ArchiveError::CopyIsPrefix {
            shorter,
            longer,
            len,
        } => assert_eq!((shorter, longer, *len), (&pt, &pa, 2_100_000)),
        other => return Err(format!("wrong error: {other}").into()),
    }
    assert!(err.to_string().contains("is a prefix of"));
    // And the other way round.
    let err = compare_copies(&[pt.clone(), pa.clone()])
        .err()
        .ok_or("a truncated copy was accepted")?;
    assert!(
        matches!(&err, ArchiveError::CopyIsPrefix { shorter, .. } if *shorter == pt),
        "{err}"
    );
    Ok(())
}

#[test]
fn archive_stores_one_copy_and_the_program_with_sha256sums() -> TestResult {
    let s = setup()?;
    let outcome = archive_copies(&s.game, &s.copies, 2, Some(&s.program))?;
    let engine = s.game.join("engine");
    assert_eq!(outcome.log.name, "engine/machine-debug.log");
    assert_eq!(outcome.log.sha256, hash_file(&s.copies[0], false)?.0);
    assert!(!outcome.log.already_archived);
    let program = outcome.program.as_ref().ok_or("no program record")?;
    assert_eq!(program.name, "engine/stockfish-17");
    assert_eq!(outcome.copies.len(), 2);
    assert_eq!(outcome.sums_file, "engine/SHA256SUMS");

    // One copy only, the program, the sums: nothing else (no temporary files left).
    let mut names: Vec<String> = std::fs::read_dir(&engine)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    names.sort();
    assert_eq!(names, ["SHA256SUMS", "machine-debug.log", "stockfish-17"]);

    // Permissions.
    assert_eq!(mode(&engine)?, 0o700);
    for n in &names {
        assert_eq!(mode(&engine.join(n))?, 0o600, "{n}");
    }

    // The real `sha256sum -c`, run in the folder.
    let out = Command::new("sha256sum")
        .args(["-c", "SHA256SUMS"])
        .current_dir(&engine)
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("machine-debug.log: OK"), "{stdout}");
    assert!(stdout.contains("stockfish-17: OK"), "{stdout}");
    assert_eq!(
        outcome.sums_sha256,
        hash_file(&engine.join("SHA256SUMS"), false)?.0
    );
    // The outcome serialises for the game log.
    let json = serde_json::to_value(&outcome)?;
    assert_eq!(json["log"]["size"], outcome.log.size);
    Ok(())
}

#[test]
fn archive_again_is_idempotent_and_never_overwrites() -> TestResult {
    let s = setup()?;
    let first = archive_copies(&s.game, &s.copies, 2, Some(&s.program))?;
    let sums = s.game.join("engine/SHA256SUMS");
    let sums_before = std::fs::read(&sums)?;
    let again = archive_copies(&s.game, &s.copies, 2, Some(&s.program))?;
    assert!(again.log.already_archived);
    assert!(again.program.as_ref().is_some_and(|p| p.already_archived));
    assert_eq!(again.log.sha256, first.log.sha256);
    assert_eq!(again.sums_sha256, first.sums_sha256);
    assert_eq!(std::fs::read(&sums)?, sums_before);

    // Different content under the same name: refused, the archive untouched.
    let tmp = tempfile::tempdir()?;
    let other: Vec<PathBuf> = ["x", "y"]
        .iter()
        .map(|d| {
            let dir = tmp.path().join(d);
            std::fs::create_dir(&dir)?;
            write(&dir, "machine-debug.log", b"<< bestmove e2e4\n")
        })
        .collect::<Result<_, _>>()?;
    let err = archive_copies(&s.game, &other, 2, None)
        .err()
        .ok_or("an archived log was replaced")?;
    assert!(matches!(err, ArchiveError::WouldOverwrite { .. }), "{err}");
    assert!(err.to_string().contains("refusing to overwrite"));
    assert_eq!(
        hash_file(&s.game.join("engine/machine-debug.log"), false)?.0,
        first.log.sha256
    );
    assert_eq!(std::fs::read(&sums)?, sums_before);

    // A second, different log under another name is added next to the first.
    let renamed: Vec<PathBuf> = other
        .iter()
        .map(|p| {
            let q = p.with_file_name("game-1-replay.log");
            std::fs::rename(p, &q).map(|()| q)
        })
        .collect::<Result<_, _>>()?;
    archive_copies(&s.game, &renamed, 2, None)?;
    let text = std::fs::read_to_string(&sums)?;
    assert_eq!(text.lines().count(), 3, "{text}");
    let out = Command::new("sha256sum")
        .args(["-c", "SHA256SUMS"])
        .current_dir(s.game.join("engine"))
        .output()?;
    assert!(out.status.success());
    Ok(())
}

/// Files past the progress-bar threshold stream through in constant memory (sparse files, so
/// the test writes little).
#[test]
fn archive_large_sparse_copies_stream() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let len: u64 = 160 << 20;
    let mut paths = Vec::new();
    for (name, last) in [("a.log", b'x'), ("b.log", b'x'), ("c.log", b'y')] {
        let p = tmp.path().join(name);
        let f = std::fs::File::create(&p)?;
        f.set_len(len - 1)?;
        drop(f);
        let mut f = std::fs::OpenOptions::new().append(true).open(&p)?;
        std::io::Write::write_all(&mut f, &[last])?;
        paths.push(p);
    }
    compare_copies(&paths[..2])?;
    let err = compare_copies(&paths[1..])
        .err()
        .ok_or("different copies were accepted")?;
    assert!(
        matches!(err, ArchiveError::CopiesDiffer { offset, .. } if offset == len - 1),
        "{err}"
    );
    let (digest, size) = hash_file(&paths[0], true)?;
    assert_eq!(size, len);
    let out = Command::new("sha256sum").arg(&paths[0]).output()?;
    assert_eq!(
        String::from_utf8(out.stdout)?.split_whitespace().next(),
        Some(digest.as_str())
    );
    Ok(())
}
