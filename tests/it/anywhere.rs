//! A kit that runs anywhere: the bundled rules profiles are compiled into the binary,
//! so the built binary runs a match from any folder (no `rules/` beside it); `--rules FILE` still
//! overrides; `arbiter rules list|show NAME` prints them; every `rules/*.toml` is bundled;
//! shell completions and the manual page come from the clap definitions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn run_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn repo(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

#[test]
fn anywhere_the_built_binary_runs_a_match_from_a_folder_without_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    assert!(!cwd.join("rules").exists());
    ok(&run_in(cwd, &["keygen", "--match", "m", "--no-passphrase"]));
    let quick = repo("examples/scripts/quick.arb");
    ok(&run_in(cwd, &["script", &quick, "--match", "m"]));
    ok(&run_in(cwd, &["verify", "--match", "m"]));
    // Line 0 binds the bundled profile's exact text: the digest of the file in the source tree.
    let line0 = std::fs::read_to_string(cwd.join("m/game-1/log.jsonl")).unwrap();
    let text = std::fs::read(repo("rules/kasparov-deep-junior-2003.toml")).unwrap();
    let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&text));
    assert!(line0.lines().next().unwrap().contains(&sha), "{line0}");
    // The other bundled profile by name, and a dry run.
    ok(&run_in(
        cwd,
        &[
            "script",
            &quick,
            "--dry-run",
            "--rules",
            "rules/kasparov-deep-junior-2003.toml",
        ],
    ));
    // --rules FILE overrides: an edited copy is what a new match's first game binds (a running
    // match keeps its profile).
    let edited = String::from_utf8(text).unwrap().replace(
        "Kasparov vs Deep Junior, New York 2003",
        "Rehearsal profile",
    );
    std::fs::create_dir(cwd.join("rules")).unwrap();
    std::fs::write(cwd.join("rules/kasparov-deep-junior-2003.toml"), &edited).unwrap();
    ok(&run_in(
        cwd,
        &["keygen", "--match", "m2", "--no-passphrase"],
    ));
    let out = ok(&run_in(cwd, &["script", &quick, "--match", "m2"]));
    assert!(out.contains("Rehearsal profile"), "{out}");
    // The running match `m` keeps the profile its first game bound.
    let out = ok(&run_in(cwd, &["script", &quick, "--match", "m"]));
    assert!(
        out.contains("Kasparov vs Deep Junior, New York 2003"),
        "{out}"
    );
    // A path that does not exist and names no bundled profile is still a file that cannot be read.
    let o = run_in(
        cwd,
        &["script", &quick, "--dry-run", "--rules", "nope/x.toml"],
    );
    assert_eq!(o.status.code(), Some(66), "{o:?}");
}

#[test]
fn anywhere_rules_list_and_show_print_every_bundled_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let list = ok(&run_in(tmp.path(), &["rules", "list"]));
    let mut on_disk: Vec<String> = std::fs::read_dir(repo("rules"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".toml")
                .map(str::to_string)
        })
        .collect();
    on_disk.sort();
    let listed: Vec<String> = list
        .lines()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    assert_eq!(listed, on_disk, "every rules/*.toml is bundled");
    for name in &on_disk {
        let shown = ok(&run_in(tmp.path(), &["rules", "show", name]));
        let file = std::fs::read_to_string(repo(&format!("rules/{name}.toml"))).unwrap();
        assert_eq!(shown, file);
    }
    let o = run_in(tmp.path(), &["rules", "show", "no-such-profile"]);
    assert_eq!(o.status.code(), Some(65), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("kasparov-deep-junior-2003"));
}

#[test]
fn anywhere_completions_and_the_manual_page_come_from_clap() {
    let tmp = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let text = ok(&run_in(tmp.path(), &["completions", shell]));
        for sub in ["play", "script", "verify", "prove", "pgn", "rules"] {
            assert!(text.contains(sub), "{shell}: {sub}");
        }
    }
    let o = run_in(tmp.path(), &["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let man = ok(&run_in(tmp.path(), &["man"]));
    assert!(man.starts_with(".ie") || man.starts_with(".TH"), "{man}");
    assert!(man.contains(".TH arbiter 1"), "{man}");
    for section in [
        "ARBITER PGN",
        "ARBITER VERIFY",
        "EXIT STATUS",
        "\\-\\-force",
    ] {
        assert!(man.contains(section), "{section}");
    }
    // The page reads with man(1) when it is there.
    if let Ok(o) = Command::new("man")
        .args(["-l", "-"])
        .env("MANPAGER", "cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(man.as_bytes())?;
            c.wait_with_output()
        })
        && o.status.success()
    {
        assert!(String::from_utf8_lossy(&o.stdout).contains("arbiter"));
    }
}
