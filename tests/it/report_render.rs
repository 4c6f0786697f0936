//! End to end: `arbiter report` on a match folder writes the HTML (0600) and the Markdown, and
//! the HTML renders in headless Chromium without errors about the page.
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::report_support::{TestResult, game_events};
use arbiter::log::codec::kind_and_body;

/// Write a game log as the journal does (one JSON object a line; `prev` is not checked here).
fn write_log(match_dir: &Path, n: u32, white: &str) -> TestResult {
    // A real hash-chained log, written through the journal, with no checkpoint signed.
    let (events, utc) = game_events(white)?;
    let mut journal: Option<arbiter::record::journal::Journal> = None;
    for (e, u) in events.iter().zip(&utc) {
        let (kind, body) = kind_and_body(e);
        let utc = chrono::DateTime::parse_from_rfc3339(u)?.with_timezone(&chrono::Utc);
        let ne = arbiter::log::NewEntry {
            mono_ms: e.at,
            utc,
            actor: e.actor.name().to_string(),
            clause: e.clause.to_string(),
            kind,
            body,
        };
        match journal.as_mut() {
            Some(j) => {
                j.append(ne)?;
            }
            None => {
                journal = Some(arbiter::record::journal::Journal::create(
                    &arbiter::record::layout::log_path(match_dir, n),
                    ne,
                )?)
            }
        }
    }
    Ok(())
}

fn arbiter(args: &[&str]) -> Result<std::process::Output, std::io::Error> {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .stdin(Stdio::null())
        .output()
}

fn mode(p: &Path) -> Result<u32, std::io::Error> {
    Ok(std::fs::metadata(p)?.permissions().mode() & 0o777)
}

#[test]
fn report_read_log_gives_the_events_and_their_utc() -> TestResult {
    let tmp = tempfile::tempdir()?;
    write_log(tmp.path(), 1, "Garry Kasparov")?;
    let (events, utc) =
        arbiter::after::report_io::read_log(&arbiter::record::layout::log_path(tmp.path(), 1))?;
    let (want, want_utc) = game_events("Garry Kasparov")?;
    assert_eq!(events, want);
    assert_eq!(utc, want_utc);
    assert!(arbiter::after::report_io::read_log(&tmp.path().join("missing.jsonl")).is_err());
    Ok(())
}

#[test]
fn report_cli_writes_html_and_markdown_readable_by_the_owner_only() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("ny-2003");
    write_log(&dir, 1, "Garry Kasparov")?;
    let d = dir.to_string_lossy().to_string();

    let out = arbiter(&["report", "--match", &d, "--game", "1"])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html_path = dir.join("game-1/report.html");
    assert_eq!(
        String::from_utf8(out.stdout)?.trim(),
        html_path.to_string_lossy()
    );
    assert_eq!(mode(&html_path)?, 0o600);
    let html = std::fs::read_to_string(&html_path)?;
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("Committee version"));
    // No arbiter key was registered for this match: the report carries the verifier's verdict.
    assert!(
        html.contains("Unreadable (arbiter verify exit code 3)")
            && html.contains("allowed_signers"),
        "the verifier's verdict is shown: {}",
        html.split("Verification")
            .nth(1)
            .unwrap_or("")
            .chars()
            .take(600)
            .collect::<String>()
    );

    let out = arbiter(&["report", "--match", &d, "--game", "1", "--markdown"])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md_path = dir.join("game-1/report.md");
    assert_eq!(mode(&md_path)?, 0o600);
    assert!(
        std::fs::read_to_string(&md_path)?.starts_with("# Arbiter report: match ny-2003, game 1")
    );

    // --public to a chosen path; an existing file is replaced (--force: it is not a report the kit
    // wrote) and tightened to 0600.
    let public = tmp.path().join("public.html");
    std::fs::write(&public, "old")?;
    std::fs::set_permissions(&public, std::fs::Permissions::from_mode(0o644))?;
    let p = public.to_string_lossy().to_string();
    let out = arbiter(&[
        "report", "--match", &d, "--game", "1", "--public", "--out", &p, "--force",
    ])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(mode(&public)?, 0o600);
    let text = std::fs::read_to_string(&public)?;
    assert!(text.contains("Public version (rule 5b release)"));
    // Copies by digest and size, never by their folder (13e).
    assert!(text.contains("aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44"));
    assert!(!text.contains("/media/usb1"));

    // A game without a log: exit 66, nothing written.
    let out = arbiter(&["report", "--match", &d, "--game", "7"])?;
    assert_eq!(out.status.code(), Some(66));
    assert!(!dir.join("game-7/report.html").exists());
    Ok(())
}

/// The report reads the log leniently: a changed line does not stop it (the chain is the
/// verifier's business, and its verdict is shown), but a line that is not an event of this kit
/// does, naming the file and the line, and nothing is written.
#[test]
fn report_of_a_changed_log_is_made_and_a_bad_line_stops_it() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("ny-2003");
    write_log(&dir, 1, "Garry Kasparov")?;
    let d = dir.to_string_lossy().to_string();
    let log = arbiter::record::layout::log_path(&dir, 1);
    let text = std::fs::read_to_string(&log)?;
    let entries = text.lines().count();

    // A changed line: the chain breaks, the report is still made from the log as written.
    let changed = text.replacen("Garry Kasparov", "Garry Kasparow", 1);
    assert_ne!(changed, text);
    std::fs::write(&log, &changed)?;
    let out = arbiter(&["report", "--match", &d, "--game", "1", "--markdown"])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = std::fs::read_to_string(dir.join("game-1/report.md"))?;
    assert!(md.contains("| White | Garry Kasparow (human) |"), "{md}");
    assert!(md.contains("- Status: **Unreadable (arbiter verify exit code 3)**"));

    // A line that is not JSON: exit 65 (README: a corrupt log), the path and line named, no
    // report written.
    std::fs::write(&log, format!("{text}not json\n"))?;
    let out = arbiter(&["report", "--match", &d, "--game", "1"])?;
    assert_eq!(out.status.code(), Some(65));
    assert_eq!(
        String::from_utf8(out.stderr)?,
        format!(
            "arbiter: report: {}: line {} is not JSON (expected ident at column 2); each line \
             of a game log is one JSON entry (rule 5b: the log of machine-related actions)\n",
            log.display(),
            entries + 1
        )
    );
    assert!(!dir.join("game-1/report.html").exists());
    Ok(())
}

/// A line that is not JSON at all is named as such, by its number, not with serde's
/// "expected value at line 1 column 1" (every line is serde's line 1); the log is unchanged and
/// no report is written, Markdown or HTML.
#[test]
fn report_says_which_line_is_not_json() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("ny-2003");
    write_log(&dir, 1, "Garry Kasparov")?;
    let d = dir.to_string_lossy().to_string();
    let log = arbiter::record::layout::log_path(&dir, 1);
    let text = std::fs::read_to_string(&log)?;
    let mut lines: Vec<&str> = text.lines().collect();
    lines[3] = "%% a line of something else";
    let broken = format!("{}\n", lines.join("\n"));
    std::fs::write(&log, &broken)?;
    for markdown in [false, true] {
        let mut args = vec!["report", "--match", &d, "--game", "1"];
        if markdown {
            args.push("--markdown");
        }
        let out = arbiter(&args)?;
        assert_eq!(out.status.code(), Some(65));
        let err = String::from_utf8(out.stderr)?;
        assert_eq!(
            err,
            format!(
                "arbiter: report: {}: line 4 is not JSON (expected value at column 1); each line \
                 of a game log is one JSON entry (rule 5b: the log of machine-related actions)\n",
                log.display()
            )
        );
        assert!(!err.contains("line 1 column 1"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&log)?, broken);
    assert!(!dir.join("game-1/report.html").exists());
    assert!(!dir.join("game-1/report.md").exists());
    Ok(())
}

#[test]
fn report_html_is_self_contained() -> TestResult {
    let (events, utc) = game_events("Garry Kasparov")?;
    let v = arbiter::report::Verification::not_checked(events.len());
    let html =
        arbiter::report::html::render(&arbiter::report::model::build(&events, &utc, &v, false));
    for banned in [
        "<script", "<link", "<img", "<iframe", "src=", "url(", "@import",
    ] {
        assert!(!html.contains(banned), "{banned}");
    }
    // The only URL is the SVG namespace, which is never fetched.
    let urls = html.matches("http").count();
    assert_eq!(urls, html.matches("http://www.w3.org/2000/svg").count());
    Ok(())
}

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n)))
        .find(|p| p.is_file())
}

/// Whether fontconfig knows any font (without one, Chromium lays the page out with no text).
fn fonts_installed() -> bool {
    Command::new("fc-list")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success() && !o.stdout.trim_ascii().is_empty())
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let w = u32::from_be_bytes(bytes[16..20].try_into().ok()?);
    let h = u32::from_be_bytes(bytes[20..24].try_into().ok()?);
    Some((w, h))
}

/// Lines of Chromium's stderr that are about the page (not the sandbox's missing D-Bus etc.).
fn page_errors(stderr: &str, page: &str) -> Vec<String> {
    const ABOUT_THE_PAGE: &[&str] = &[
        "CONSOLE",
        "Uncaught",
        "net::ERR_",
        "Failed to load",
        "Refused to",
        "Content Security Policy",
        "Not allowed to load",
        "ERR_FILE_NOT_FOUND",
        "ERR_ACCESS_DENIED",
    ];
    stderr
        .lines()
        .filter(|l| l.contains(page) || ABOUT_THE_PAGE.iter().any(|w| l.contains(w)))
        .filter(|l| !l.contains("bytes written to file"))
        .map(str::to_string)
        .collect()
}

#[test]
fn report_html_renders_in_headless_chromium() -> TestResult {
    let Some(browser) = chromium() else {
        if std::env::var_os("CI").is_some() {
            return Err(
                "chromium is not installed: CI must install it (.ci/run) to render the \
                        committee report headless"
                    .into(),
            );
        }
        eprintln!("skipped: chromium is not installed (apt-get install chromium)");
        return Ok(());
    };
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("ny-2003");
    write_log(&dir, 1, "Garry Kasparov")?;
    let d = dir.to_string_lossy().to_string();
    let out = arbiter(&["report", "--match", &d, "--game", "1"])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = dir.join("game-1/report.html");
    let png = tmp.path().join("report.png");
    let profile = tmp.path().join("chromium-profile");

    let mut child = Command::new(&browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--enable-logging=stderr",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1200,2000")
        .arg(format!("file://{}", html.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // Poll with a deadline: a browser that hangs fails the test instead of the CI run.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if child.try_wait()?.is_some() {
            break;
        }
        if Instant::now() > deadline {
            child.kill()?;
            child.wait()?;
            return Err("chromium did not finish within 120 s".into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "chromium failed: {stderr}");
    let bytes = std::fs::read(&png)?;
    assert_eq!(png_size(&bytes), Some((1200, 2000)), "not a 1200x2000 PNG");
    // A blank page of that size is about 11 kB; laid out without any font (boxes and the chart,
    // no text) about 33 kB; with text about 400 kB.
    assert!(
        bytes.len() > 25_000,
        "screenshot is only {} bytes: blank page?",
        bytes.len()
    );
    if fonts_installed() {
        assert!(
            bytes.len() > 100_000,
            "screenshot is only {} bytes although fonts are installed: no text rendered?",
            bytes.len()
        );
    }
    let name = html
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let errors = page_errors(&stderr, &name);
    assert!(
        errors.is_empty(),
        "chromium reported errors about the page:\n{}",
        errors.join("\n")
    );
    // To look at it: ARBITER_KEEP_SCREENSHOT=/tmp/report.png keeps the PNG and the HTML.
    if let Some(keep) = std::env::var_os("ARBITER_KEEP_SCREENSHOT") {
        let keep = PathBuf::from(keep);
        std::fs::copy(&png, &keep)?;
        std::fs::copy(&html, keep.with_extension("html"))?;
    }
    Ok(())
}
