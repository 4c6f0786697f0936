//! The record's trust at the laptop: the key out of the operator's reach, actors as rules, a
//! crash or a full disk never read as tampering, no downgrade of a game's binding.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

/// Whether this test runs as root with `setpriv` at hand (to act as an ordinary
/// account); `None` with the reason otherwise.
fn can_drop_to_nobody() -> Option<&'static str> {
    if !rustix::process::geteuid().is_root() {
        return Some("not root: cannot start processes as another account");
    }
    for tool in ["setpriv", "dd"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        if !found {
            return Some("setpriv or dd missing");
        }
    }
    None
}

/// As `nobody`: start `arbiter relay` (a long-running command of the kit) and a `sleep` of the
/// same account, both with a secret in their environment, then try to read each one's
/// `/proc/PID/environ` and memory (`/proc/PID/mem` at its first mapping) from a third process of
/// that account. Returns the prober's report, one line per target.
fn probe_as_nobody(tmp: &Path) -> String {
    let bin = tmp.join("arbiter");
    std::fs::copy(env!("CARGO_BIN_EXE_arbiter"), &bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let m = tmp.join("m");
    std::fs::create_dir(&m).unwrap();
    std::fs::set_permissions(tmp, std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::set_permissions(&m, std::fs::Permissions::from_mode(0o777)).unwrap();
    let probe = tmp.join("probe.sh");
    std::fs::write(
        &probe,
        r#"T=$1
ARB_SECRET=the-passphrase-of-the-key "$T/arbiter" relay --match "$T/m" --out "$T/out.pgn" \
  </dev/null 2>"$T/relay.err" & kit=$!
ARB_SECRET=the-passphrase-of-the-key sleep 1000 & ctl=$!
i=0
until grep -q follows "$T/relay.err"; do
  i=$((i+1)); if [ $i -gt 1500 ]; then echo "relay never started: $(cat "$T/relay.err")"; break; fi
  sleep 0.02
done
probe() {
  if out=$(tr '\0' '\n' <"/proc/$2/environ" 2>/dev/null); then
    case "$out" in *ARB_SECRET*) env=readable;; *) env=empty;; esac
  else env=denied; fi
  start=$(head -n1 "/proc/$2/maps" 2>/dev/null | cut -d- -f1)
  if [ -z "$start" ]; then mem="denied (maps)"
  elif [ "$(dd if="/proc/$2/mem" bs=16 count=1 iflag=skip_bytes skip=$((0x$start)) 2>/dev/null | wc -c)" = 16 ]
  then mem=readable; else mem=denied; fi
  echo "$1 environ $env mem $mem"
}
probe sleep $ctl
probe arbiter $kit
kill $kit $ctl; wait
"#,
    )
    .unwrap();
    let o = Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "/bin/sh",
        ])
        .arg(&probe)
        .arg(tmp)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The key out of the operator's reach: every process of the kit is non-dumpable from the first
/// line of `main`, so another process of the same account reads neither its environment (a
/// passphrase given with `--passphrase-env`) nor its memory (a decrypted key), while a plain
/// process of that account next to it stays readable (the probe works).
#[test]
fn key_not_dumpable_by_its_own_account() {
    if let Some(why) = can_drop_to_nobody() {
        eprintln!("key_not_dumpable_by_its_own_account skipped: {why}");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let report = probe_as_nobody(tmp.path());
    assert!(
        report.contains("sleep environ readable mem readable"),
        "the probe reads an ordinary process of its account: {report}"
    );
    assert!(
        report.contains("arbiter environ denied") && report.contains("mem denied"),
        "the kit's process is closed to its own account: {report}"
    );
}

/// Loading (decrypting) a key makes the process non-dumpable even when `main` did not.
#[test]
fn key_loading_makes_the_process_non_dumpable() {
    let tmp = tempfile::tempdir().unwrap();
    let k = tmp.path().join("k");
    arbiter::record::sign::keygen_with_rounds(&k, Some("a passphrase long enough"), "t", 4)
        .unwrap();
    arbiter::record::sign::load_key(&k, Some("a passphrase long enough")).unwrap();
    assert_eq!(
        rustix::process::dumpable_behavior().unwrap(),
        rustix::process::DumpableBehavior::NotDumpable
    );
}

fn arbiter(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .output()
        .unwrap()
}

fn said(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A match with a real key and one game played by script (sealed, signed, authorized), with a
/// clock correction of the arbiter's among its entries. Returns the match folder.
fn played(tmp: &Path, extra: &str) -> std::path::PathBuf {
    let m = tmp.join("m");
    crate::log_util::arbiter_key_in(&m);
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    let script =
        format!("{quick}0:16:40  arbiter correct 7e clock machine +20 its clock ran on\n{extra}");
    let p = tmp.join("game.arb");
    std::fs::write(&p, script).unwrap();
    let o = arbiter(&[
        "script",
        p.to_str().unwrap(),
        "--match",
        m.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", said(&o));
    m
}

/// Append `line` (an entry with `actor` replaced) to game 1's log, chained as the kit would.
fn append_as(m: &Path, kind: &str, actor: &str) -> u64 {
    let log = m.join("game-1/log.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    let model: serde_json::Value = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["kind"] == kind)
        .unwrap();
    let mut j = arbiter::record::journal::Journal::open(&log).unwrap();
    let at = j.last().unwrap().mono_ms;
    j.append(arbiter::log::NewEntry {
        mono_ms: at,
        utc: chrono::Utc::now(),
        actor: actor.into(),
        clause: model["clause"].as_str().unwrap().into(),
        kind: kind.into(),
        body: model["body"].clone(),
    })
    .unwrap();
    j.len() - 1
}

/// Actors are rules (5b): a clock correction is the arbiter's. One written with
/// `"actor":"operator"` is refused by the replay (`status` does not apply it) and `verify` names
/// it with its own code, BAD_ACTOR (28); the same correction by the arbiter replays.
#[test]
fn actor_operator_cannot_correct_the_clock() {
    let tmp = tempfile::tempdir().unwrap();
    let m = played(tmp.path(), "");
    let ms = m.to_str().unwrap();
    let o = arbiter(&["verify", "--match", ms]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    let seq = append_as(&m, "clock_corrected", "operator");
    let o = arbiter(&["status", "--match", ms, "--game", "1"]);
    let out = said(&o);
    assert!(!o.status.success(), "the replay refuses it: {out}");
    assert!(
        out.contains("clock_corrected") && out.contains("operator") && out.contains("5b"),
        "{out}"
    );
    let o = arbiter(&["verify", "--match", ms]);
    let out = said(&o);
    assert_eq!(o.status.code(), Some(28), "{out}");
    assert!(
        out.contains("BAD_ACTOR") && out.contains(&format!("entry #{seq}")),
        "{out}"
    );
    // The rule is the profile's: the table names the arbiter, with the clause.
    let profile = std::fs::read_to_string("rules/kasparov-deep-junior-2003.toml").unwrap();
    let actors = arbiter::core::rules::Actors::of_profile_text(&profile)
        .unwrap()
        .unwrap();
    assert_eq!(actors.clause, "5b");
    assert!(actors.check("clock_corrected", "arbiter").is_ok());
    assert!(actors.check("clock_corrected", "operator").is_err());
    assert!(actors.check("internal_clock_corrected", "operator").is_ok());
}

const RULES: &str = "rules/kasparov-deep-junior-2003.toml";

fn key_of(m: &Path) -> arbiter::record::sign::KeySource {
    crate::log_util::arbiter_key_in(m);
    arbiter::record::sign::KeySource {
        file: Some(m.join("keys/arbiter")),
        passphrase_env: None,
        agent: false,
    }
}

fn run_lines(session: &mut arbiter::board::session::Session, text: &str) {
    for l in arbiter::core::script::parse_script(text).unwrap() {
        session.execute(&l.command, l.at).unwrap();
    }
}

/// [`run_lines`] as the Board UI records them: each arbiter-only command followed by its
/// signed authorization (the key decrypted for that signature: the test key is unencrypted).
pub(crate) fn run_acts(session: &mut arbiter::board::session::Session, text: &str) {
    use arbiter::core::command::{Command, Role};
    for l in arbiter::core::script::parse_script(text).unwrap() {
        let before = session.storage.len();
        session.execute(&l.command, l.at).unwrap();
        let after = session.storage.len();
        if l.command.role() == Role::Arbiter && after > before {
            session
                .execute(
                    &Command::Authorize {
                        by: "passphrase".into(),
                        words: "act".into(),
                        first: before as u64,
                        last: after as u64 - 1,
                    },
                    l.at,
                )
                .unwrap();
        }
    }
}

/// Game 1 played by the kit's own session as the Board UI records it (each arbiter act
/// followed by its signed authorization), then stopped by a power cut: `torn` bytes of a line
/// being written are left at the end.
fn power_cut(m: &Path, torn: &[u8]) {
    let key = key_of(m);
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    let mut o =
        arbiter::board::matchdir::open_game_with(m, Some(1), Some(Path::new(RULES)), &key, false)
            .unwrap();
    run_acts(&mut o.session, &quick);
    drop(o);
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(m.join("game-1/log.jsonl"))
        .unwrap();
    f.write_all(torn).unwrap();
}

fn verify_code(m: &Path) -> (i32, String) {
    let o = arbiter(&["verify", "--match", m.to_str().unwrap()]);
    (o.status.code().unwrap_or(-1), said(&o))
}

/// A power cut mid-write: the torn tail is cut at the reopen (a recovery entry, the bytes in a
/// side file), and the kit's own entries of the crashed session stand authorized (each act
/// signed as it was recorded; nothing is authorized at the reopen): after the next checkpoint
/// verify says RECOVERED (11), never UNAUTHORIZED (27), whatever the torn bytes.
#[test]
fn crash_torn_tail_is_recovered_not_unauthorized() {
    let tmp = tempfile::tempdir().unwrap();
    for (case, torn) in [
        ("a", &b"{\"v\":1,\"seq\":"[..]),
        ("b", &b"\0\0\0\0\0\0\0\0"[..]),
        ("c", &b"{\"v\":1,\"seq\":99,\"prev\":\"00\"}\n"[..]),
    ] {
        let m = tmp.path().join(case);
        power_cut(&m, torn);
        let o = arbiter::board::matchdir::open_game_with(
            &m,
            Some(1),
            Some(Path::new(RULES)),
            &key_of(&m),
            false,
        )
        .unwrap();
        let notice = o.notice.clone().unwrap_or_default();
        assert!(notice.contains("recovered"), "{case}: {notice}");
        assert!(!notice.contains("UNAUTHORIZED"), "{case}: {notice}");
        drop(o);
        let o = arbiter(&["checkpoint", "--match", m.to_str().unwrap(), "--game", "1"]);
        assert_eq!(o.status.code(), Some(0), "{case}: {}", said(&o));
        let (code, out) = verify_code(&m);
        assert_eq!(code, 11, "{case}: {out}");
        assert!(!out.contains("UNAUTHORIZED"), "{case}: {out}");
    }
}

/// The attack: the board is killed after its last authorization and one arbiter-only line
/// (+20 s for the machine) is appended — the entry in flight at a crash looks the same. No
/// routine `checkpoint`, however often, signs or authorizes it (each refuses, naming it, and
/// writes nothing: a checkpoint never launders it); the arbiter then rules on it: cut to a
/// side file (recorded) or accepted with a reason (recorded, signed).
#[test]
fn inflight_entry_is_never_authorized_by_routine_checkpoints() {
    let tmp = tempfile::tempdir().unwrap();
    for ruling in ["cut", "accept", "authorize"] {
        let m = tmp.path().join(ruling);
        let ms = m.to_str().unwrap();
        let _ = played(&tmp.path().join(format!("{ruling}-src")), "");
        std::fs::rename(tmp.path().join(format!("{ruling}-src/m")), &m).unwrap();
        let seq = append_as(&m, "clock_corrected", "arbiter");
        let log = m.join("game-1/log.jsonl");
        let before = std::fs::read(&log).unwrap();
        for _ in 0..2 {
            let o = arbiter(&["checkpoint", "--match", ms, "--game", "1"]);
            let out = said(&o);
            assert_eq!(o.status.code(), Some(1), "{ruling}: {out}");
            assert!(
                out.contains(&format!("#{seq} arbiter clock_corrected"))
                    && out.contains("no checkpoint is signed"),
                "{ruling}: {out}"
            );
            assert_eq!(std::fs::read(&log).unwrap(), before, "nothing recorded");
        }
        let (code, out) = verify_code(&m);
        assert_ne!(code, 0, "{out}");
        let o = match ruling {
            "cut" => arbiter(&[
                "foreign",
                "--match",
                ms,
                "--game",
                "1",
                "--cut-from",
                &seq.to_string(),
            ]),
            "accept" => arbiter(&[
                "foreign",
                "--match",
                ms,
                "--game",
                "1",
                "--accept",
                "typed by the arbiter before the power cut",
            ]),
            _ => arbiter(&[
                "authorize",
                "--match",
                ms,
                "--game",
                "1",
                "--entry",
                &seq.to_string(),
                "--reason",
                "typed by the arbiter before the power cut",
            ]),
        };
        assert!(o.status.success(), "{ruling}: {}", said(&o));
        let text = std::fs::read_to_string(&log).unwrap();
        if ruling == "cut" {
            assert!(m.join(format!("game-1/log.jsonl.foreign-{seq}")).exists());
            assert!(
                text.lines()
                    .last()
                    .unwrap()
                    .contains("\"kind\":\"recovery\"")
            );
        } else {
            assert!(text.contains("typed by the arbiter before the power cut"));
        }
        let o = arbiter(&["checkpoint", "--match", ms, "--game", "1"]);
        assert!(o.status.success(), "{ruling}: {}", said(&o));
        let (code, out) = verify_code(&m);
        assert!(code == 0 || code == 11, "{ruling}: {out}");
    }
}

/// An in-flight line whose body does not decode is never accepted (it would wedge every reader
/// of the game): `foreign --accept` refuses it and names `--cut-from`; cut, the game reads again.
#[test]
fn inflight_line_that_does_not_decode_is_cut_never_authorized() {
    let tmp = tempfile::tempdir().unwrap();
    let _ = played(tmp.path(), "");
    let m = tmp.path().join("m");
    let ms = m.to_str().unwrap();
    let log = m.join("game-1/log.jsonl");
    let mut j = arbiter::record::journal::Journal::open(&log).unwrap();
    let at = j.last().unwrap().mono_ms;
    j.append(arbiter::log::NewEntry {
        mono_ms: at,
        utc: chrono::Utc::now(),
        actor: "arbiter".into(),
        clause: "7e".into(),
        kind: "clock_corrected".into(),
        body: serde_json::json!({"not": "a correction"}),
    })
    .unwrap();
    let seq = j.len() - 1;
    drop(j);
    let before = std::fs::read(&log).unwrap();
    let o = arbiter(&[
        "foreign",
        "--match",
        ms,
        "--game",
        "1",
        "--accept",
        "looks fine",
    ]);
    let out = said(&o);
    assert!(!o.status.success(), "{out}");
    assert!(out.contains(&format!("--cut-from {seq}")), "{out}");
    assert_eq!(std::fs::read(&log).unwrap(), before);
    let o = arbiter(&[
        "foreign",
        "--match",
        ms,
        "--game",
        "1",
        "--cut-from",
        &seq.to_string(),
    ]);
    assert!(o.status.success(), "{}", said(&o));
    let o = arbiter(&["status", "--match", ms, "--game", "1"]);
    assert!(o.status.success(), "{}", said(&o));
}

/// A small tmpfs mounted in a temp folder (unmounted when dropped), or why there is none.
pub(crate) struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    pub(crate) fn mount(size: &str) -> Result<SmallDisk, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let o = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(dir.path())
            .output()
            .map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(String::from_utf8_lossy(&o.stderr).into_owned());
        }
        Ok(SmallDisk { dir })
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fill the file system: a file grows until the write fails.
    pub(crate) fn fill(&self) -> std::path::PathBuf {
        use std::io::Write;
        let p = self.path().join("filler");
        let mut f = std::fs::File::create(&p).unwrap();
        let block = vec![0u8; 4096];
        while f.write_all(&block).is_ok() {}
        let mut byte = [0u8; 1];
        while f.write_all(&byte).is_ok() {
            byte[0] = 1;
        }
        p
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// The disk fills up as an entry is written (the log's last page has no room for the line, no
/// page is left): in `signed-acts/1` the entry's one write is all that binds it, and it is not
/// acknowledged (the command fails, the session freezes, the log holds nothing more than
/// before); once space is back the game opens as it was, goes on, and verifies.
#[test]
fn disk_full_at_binding_is_not_acknowledged() {
    let disk = match SmallDisk::mount("2m") {
        Ok(d) => d,
        Err(why) => {
            eprintln!("disk_full_at_binding_is_not_acknowledged skipped: no tmpfs ({why})");
            return;
        }
    };
    let m = disk.path().join("m");
    let key = key_of(&m);
    let log = m.join("game-1/log.jsonl");
    let mut o =
        arbiter::board::matchdir::open_game_with(&m, Some(1), Some(Path::new(RULES)), &key, false)
            .unwrap();
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    run_acts(&mut o.session, &quick);
    // No room in the log's last page for one more line, none anywhere else.
    let mut at = 17 * 60;
    let shuffle = ["Ng1", "Ng8", "Nf3", "Nf6"];
    let mut k = 0;
    while !(3946..4096).contains(&(std::fs::metadata(&log).unwrap().len() % 4096)) {
        at += 1;
        run_lines(
            &mut o.session,
            &format!("0:{}:{:02}  move {}\n", at / 60, at % 60, shuffle[k % 4]),
        );
        k += 1;
    }
    let before = std::fs::read(&log).unwrap();
    let filler = disk.fill();
    at += 1;
    let l = arbiter::core::script::parse_script(&format!(
        "0:{}:{:02}  arbiter note written as the disk filled\n",
        at / 60,
        at % 60
    ))
    .unwrap();
    let r = o.session.execute(&l[0].command, l[0].at);
    let err = r.expect_err("an entry the kit cannot write is not acknowledged");
    assert!(err.to_string().to_lowercase().contains("space"), "{err}");
    assert!(o.session.frozen.is_some(), "input frozen");
    assert!(o.session.execute(&l[0].command, l[0].at).is_err());
    drop(o);
    assert_eq!(
        std::fs::read(&log).unwrap(),
        before,
        "nothing more in the log"
    );
    // Space back: the game opens as it was (its acts authorized as they were recorded),
    // verifies, and goes on.
    std::fs::remove_file(filler).unwrap();
    let o =
        arbiter::board::matchdir::open_game_with(&m, Some(1), Some(Path::new(RULES)), &key, false)
            .unwrap();
    drop(o);
    let o = arbiter(&["checkpoint", "--match", m.to_str().unwrap(), "--game", "1"]);
    assert!(o.status.success(), "{}", said(&o));
    let (code, out) = verify_code(&m);
    assert_eq!(code, 0, "{out}");
    let mut o =
        arbiter::board::matchdir::open_game_with(&m, Some(1), Some(Path::new(RULES)), &key, false)
            .unwrap();
    run_lines(
        &mut o.session,
        &format!(
            "0:{}:{:02}  arbiter restart-gap waive the disk was full\n",
            at / 60,
            at % 60
        ),
    );
    o.session.execute(&l[0].command, l[0].at).unwrap();
}

/// A script whose entries cannot be written ends with 74 (the write failed), never 0.
#[test]
fn disk_full_script_exits_74() {
    let disk = match SmallDisk::mount("2m") {
        Ok(d) => d,
        Err(why) => {
            eprintln!("disk_full_script_exits_74 skipped: no tmpfs ({why})");
            return;
        }
    };
    let m = disk.path().join("m");
    let _ = key_of(&m);
    let p = disk.path().join("quick.arb");
    std::fs::copy("examples/scripts/quick.arb", &p).unwrap();
    let filler = disk.fill();
    let o = arbiter(&[
        "script",
        p.to_str().unwrap(),
        "--match",
        m.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(74), "{}", said(&o));
    std::fs::remove_file(filler).unwrap();
}

/// Rewrite game `game`'s line 0 with `edit` and chain every later line again, as whoever holds
/// the folder can before the game's first checkpoint; the seal goes too.
fn rewrite_line0(m: &Path, game: u32, edit: impl FnOnce(&mut serde_json::Value)) {
    let log = m.join(format!("game-{game}/log.jsonl"));
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    std::fs::remove_file(&log).unwrap();
    let _ = std::fs::remove_file(m.join(format!("game-{game}/seal")));
    let entry = |v: &serde_json::Value| arbiter::log::NewEntry {
        mono_ms: v["mono_ms"].as_u64().unwrap(),
        utc: chrono::DateTime::parse_from_rfc3339(v["utc"].as_str().unwrap())
            .unwrap()
            .with_timezone(&chrono::Utc),
        actor: v["actor"].as_str().unwrap().into(),
        clause: v["clause"].as_str().unwrap().into(),
        kind: v["kind"].as_str().unwrap().into(),
        body: v["body"].clone(),
    };
    let mut first = entry(&lines[0]);
    edit(&mut first.body);
    let mut j = arbiter::record::journal::Journal::create(&log, first).unwrap();
    for l in &lines[1..] {
        j.append(entry(l)).unwrap();
    }
}

/// Game 2 of match `m` opened by the kit's own session and played a little, never checkpointed
/// (a live game): what an operator finds before its first checkpoint.
fn live_game_2(m: &Path) {
    let mut o = arbiter::board::matchdir::open_game_with(
        m,
        Some(2),
        Some(Path::new(RULES)),
        &key_of(m),
        false,
    )
    .unwrap();
    run_acts(
        &mut o.session,
        "0        arbiter declare white machine Deep Junior\n0        arbiter declare black human Garry Kasparov\n0        arbiter declare operator Amir Ban\n0        arbiter start\n0:00:05  move d4\n",
    );
}

/// Downgrade: `"binding":"signed-acts/1"` (and the policy it names) removed from line 0 of a live game
/// before its first checkpoint, the log chained again. The signed match policy holds every game
/// from the first on to its binding: `checkpoint` refuses to sign it and verify fails with
/// DOWNGRADED (29).
#[test]
fn policy_downgrade_fails_verify() {
    let tmp = tempfile::tempdir().unwrap();
    let m = played(tmp.path(), "");
    assert!(m.join("policy.txt").exists() && m.join("policy.txt.sig").exists());
    live_game_2(&m);
    for strip in ["binding", "both"] {
        let m2 = tmp.path().join(format!("m-{strip}"));
        assert!(
            Command::new("cp")
                .arg("-a")
                .arg(&m)
                .arg(&m2)
                .status()
                .unwrap()
                .success()
        );
        let _ = std::fs::remove_dir_all(m2.join("game-2/checkpoints"));
        rewrite_line0(&m2, 2, |b| {
            let k = b["arbiter_key"].as_object_mut().unwrap();
            k.remove("binding");
            if strip == "both" {
                k.remove("policy");
            }
        });
        // The kit signs no checkpoint over it either (the index would name it).
        let o = arbiter(&["checkpoint", "--match", m2.to_str().unwrap(), "--game", "2"]);
        assert_eq!(o.status.code(), Some(1), "{}", said(&o));
        assert!(
            said(&o).contains("does not hold to the match policy"),
            "{}",
            said(&o)
        );
        let (code, out) = verify_code(&m2);
        assert_eq!(code, 29, "{strip}: {out}");
        assert!(out.contains("DOWNGRADED"), "{out}");
    }
    // The honest game: signed, no downgrade named.
    let ms = m.to_str().unwrap();
    let o = arbiter(&["checkpoint", "--match", ms, "--game", "2"]);
    assert!(o.status.success(), "{}", said(&o));
    let (code, out) = verify_code(&m);
    assert!(
        !out.contains("DOWNGRADED") && code != 29,
        "the honest match: {out}"
    );
    // The policy itself edited (its binding turned off) no longer verifies: its signature fails
    // (BAD_CHECKPOINT, 22, as an index's); deleted while line 0 names it: DOWNGRADED.
    let p = m.join("policy.txt");
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains("binding signed-acts/1\n"), "{text}");
    std::fs::write(&p, text.replace("binding signed-acts/1", "binding none")).unwrap();
    let (code, out) = verify_code(&m);
    assert_eq!(code, 22, "{out}");
    assert!(out.contains("BAD MATCH POLICY"), "{out}");
    std::fs::remove_file(&p).unwrap();
    let (code, out) = verify_code(&m);
    assert_eq!(code, 29, "{out}");
}

/// A game of another match under the same match id and key, copied in as game 2 and
/// checkpointed: its line 0 names the other match's policy, FOREIGN_GAME (31).
#[test]
fn policy_game_from_another_match_fails_verify() {
    let tmp = tempfile::tempdir().unwrap();
    let m = played(&tmp.path().join("a"), "");
    let other = tmp.path().join("b/m");
    std::fs::create_dir_all(&other).unwrap();
    assert!(
        Command::new("cp")
            .arg("-a")
            .arg(m.join("keys"))
            .arg(other.join("keys"))
            .status()
            .unwrap()
            .success()
    );
    std::fs::copy(m.join("allowed_signers"), other.join("allowed_signers")).unwrap();
    let script = tmp.path().join("other.arb");
    std::fs::copy("examples/scripts/quick.arb", &script).unwrap();
    let o = arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        other.to_str().unwrap(),
        "--game",
        "2",
    ]);
    assert!(o.status.success(), "{}", said(&o));
    assert!(
        Command::new("cp")
            .arg("-a")
            .arg(other.join("game-2"))
            .arg(m.join("game-2"))
            .status()
            .unwrap()
            .success()
    );
    // Its own checkpoints go (the match index would not list them); the kit signs none.
    std::fs::remove_dir_all(m.join("game-2/checkpoints")).unwrap();
    let ms = m.to_str().unwrap();
    let o = arbiter(&["checkpoint", "--match", ms, "--game", "2"]);
    assert_eq!(o.status.code(), Some(1), "{}", said(&o));
    assert!(said(&o).contains("does not hold to the match policy"));
    let (code, out) = verify_code(&m);
    assert_eq!(code, 31, "{out}");
    assert!(out.contains("FOREIGN_GAME"), "{out}");
}

/// Camps dropped: game 1 declared both camps (with proofs; the policy names them); game 2's
/// line 0, before its first checkpoint, is rewritten without them and checkpointed. Verify fails
/// with CAMPS_DROPPED (30). A camp key in the pre-proof form (its proof removed) in a game the
/// policy holds fails with CAMPS_NOT_PROVEN (32).
#[test]
fn policy_camps_dropped_fails_verify() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let mut declared = String::new();
    for camp in ["kasparov", "junior"] {
        let (_, line) = crate::witness::proven_camp(tmp.path(), &m, camp);
        declared.push_str(&line);
    }
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    let script = quick.replacen(
        "0        arbiter start\n",
        &format!("{declared}0        arbiter start\n"),
        1,
    );
    let p = tmp.path().join("camps.arb");
    std::fs::write(&p, script).unwrap();
    let ms = m.to_str().unwrap();
    let o = arbiter(&["script", p.to_str().unwrap(), "--match", ms]);
    assert!(o.status.success(), "{}", said(&o));
    let policy = std::fs::read_to_string(m.join("policy.txt")).unwrap();
    assert!(
        policy.contains("camp kasparov ") && policy.contains("camp junior "),
        "{policy}"
    );
    live_game_2(&m);
    for (case, want) in [("dropped", 30), ("unproven", 32)] {
        let m2 = tmp.path().join(case);
        assert!(
            Command::new("cp")
                .arg("-a")
                .arg(&m)
                .arg(&m2)
                .status()
                .unwrap()
                .success()
        );
        let line0 = arbiter::record::journal::first_entry(&m.join("game-1/log.jsonl")).unwrap();
        let mut camps = line0.body["declarations"]["camps"].clone();
        rewrite_line0(&m2, 2, |b| {
            if case == "dropped" {
                b["declarations"].as_object_mut().unwrap().remove("camps");
            } else {
                for c in camps.as_array_mut().unwrap() {
                    c.as_object_mut().unwrap().remove("proof");
                }
                b["declarations"]["camps"] = camps;
            }
        });
        // The kit signs no checkpoint over a sealed log without its seal; verify names the
        // camps either way.
        let _ = arbiter(&["checkpoint", "--match", m2.to_str().unwrap(), "--game", "2"]);
        let (code, out) = verify_code(&m2);
        assert_eq!(code, want, "{case}: {out}");
    }
}

/// Logs written before the match policy and the `[actors]` table still verify as they did; what
/// they lack is said here: their line 0 names no policy (no downgrade, camps-dropped, foreign-game
/// or proof check holds them) and their embedded profile has no `[actors]` table (no actor check).
#[test]
fn older_logs_verify_and_lack_the_policy_and_actor_checks() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("demo");
    assert!(
        Command::new("cp")
            .arg("-a")
            .arg("tests/fixtures/demo-match")
            .arg(&m)
            .status()
            .unwrap()
            .success()
    );
    let (code, out) = verify_code(&m);
    assert!(![28, 29, 30, 31, 32].contains(&code), "{out}");
    let first = arbiter::record::journal::first_entry(&m.join("game-1/log.jsonl")).unwrap();
    assert!(first.body.pointer("/arbiter_key/policy").is_none());
    assert!(!m.join("policy.txt").exists());
    let profile = first
        .body
        .pointer("/profile/toml")
        .unwrap()
        .as_str()
        .unwrap();
    assert_eq!(
        arbiter::core::rules::Actors::of_profile_text(profile).unwrap(),
        None
    );
    // An operator's clock correction in such a log is not named (the guarantee it lacks).
    let seq = append_as(&m, "move_made", "committee");
    let (code, out) = verify_code(&m);
    assert_ne!(code, 28, "{out}");
    assert!(
        !out.contains(&format!("entry #{seq}: a move_made")),
        "{out}"
    );
}

/// Control characters: refused at input in declared names and notes (nothing recorded); an
/// escape sequence written into the log by anything else is shown escaped by `status` and
/// written escaped into the PGN, never raw.
#[test]
fn control_characters_in_names_and_notes_are_refused_or_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    for line in [
        "0        arbiter declare white human Garry \u{1b}[2JKasparov\n",
        "0        arbiter declare operator Amir\u{7}Ban\n",
        "0:00:01  arbiter note clear \u{1b}]0;title\u{7} the screen\n",
    ] {
        let script = format!(
            "0        arbiter declare white human Garry Kasparov\n0        arbiter declare black machine Deep Junior\n0        arbiter declare operator Amir Ban\n0        arbiter start\n{line}"
        );
        let p = tmp.path().join("ctl.arb");
        std::fs::write(&p, script).unwrap();
        let o = arbiter(&[
            "script",
            p.to_str().unwrap(),
            "--match",
            m.to_str().unwrap(),
            "--dry-run",
        ]);
        let out = said(&o);
        assert!(!o.status.success(), "{line:?}: {out}");
        assert!(out.contains("control character"), "{out}");
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out}");
    }
    // Written into the log by anything: escaped on the way out.
    let m = played(&tmp.path().join("p"), "");
    rewrite_line0(&m, 1, |b| {
        b["declarations"]["white"]["name"] = serde_json::json!("Garry \u{1b}[2JKasparov");
    });
    let ms = m.to_str().unwrap();
    for args in [
        vec!["status", "--match", ms, "--game", "1"],
        vec!["pgn", "--match", ms, "--game", "1"],
    ] {
        let o = arbiter(&args);
        let out = said(&o);
        assert!(!out.contains('\u{1b}'), "{args:?}: {out}");
        assert!(out.contains("\\u{1b}[2JKasparov"), "{args:?}: {out}");
    }
}

/// A copy of the `seal/1` match the kit wrote before `signed-acts/1` (kept under
/// tests/fixtures), with the folder's modes as the kit makes them.
fn seal_v1_match(tmp: &Path) -> std::path::PathBuf {
    let m = tmp.join("m");
    assert!(
        Command::new("cp")
            .arg("-r")
            .arg("tests/fixtures/seal-v1-match")
            .arg(&m)
            .status()
            .unwrap()
            .success()
    );
    for e in walk(&m) {
        let mode = if e.is_dir() { 0o700 } else { 0o600 };
        std::fs::set_permissions(&e, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    m
}

fn walk(p: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![p.to_path_buf()];
    if p.is_dir() {
        for e in std::fs::read_dir(p).unwrap() {
            out.extend(walk(&e.unwrap().path()));
        }
    }
    out
}

/// Which guarantees each binding has, on logs the kit wrote:
/// - format v1 without a binding: no authorization is checked (an operator's arbiter-only line
///   is not UNAUTHORIZED), no policy;
/// - `seal/1` (read, no longer written): arbiter-only entries need signed authorizations, and
///   entries past the seal and every signed checkpoint are FOREIGN; the kit opens such a game
///   read-only (it writes no seal any more);
/// - `signed-acts/1`: arbiter-only entries need signed authorizations, no seal file exists, and
///   what lies past the last signed checkpoint is the unsigned tail (bound meanwhile by the
///   camps' live witnesses).
#[test]
fn seal_v1_logs_verify_as_before_and_each_binding_says_what_it_guarantees() {
    let tmp = tempfile::tempdir().unwrap();
    // seal/1, as the earlier kit left it: verifies 0, its seal read.
    let m = seal_v1_match(tmp.path());
    let line0 = arbiter::record::journal::first_entry(&m.join("game-1/log.jsonl")).unwrap();
    assert_eq!(line0.body["arbiter_key"]["binding"], "seal/1");
    assert!(m.join("game-1/seal").exists());
    let (code, out) = verify_code(&m);
    assert_eq!(code, 0, "{out}");
    // An arbiter-only line appended past the seal and the checkpoints: FOREIGN and UNAUTHORIZED.
    let seq = append_as(&m, "clock_corrected", "arbiter");
    let (code, out) = verify_code(&m);
    assert_ne!(code, 0, "{out}");
    assert!(
        out.contains("FOREIGN") && out.contains(&format!("entries #{seq}")),
        "{out}"
    );
    // The kit does not continue it: it opens read-only, and writes no seal.
    let seal_before = std::fs::read(m.join("game-1/seal")).unwrap();
    let key = arbiter::record::sign::KeySource {
        file: Some(m.join("keys/arbiter")),
        passphrase_env: None,
        agent: false,
    };
    match arbiter::board::matchdir::open_game_with(&m, Some(1), None, &key, false) {
        Ok(o) => assert!(o.session.frozen.is_some(), "a seal/1 game opens read-only"),
        Err(e) => assert!(
            e.to_string().contains("foreign") || e.to_string().contains("not written by this kit"),
            "{e}"
        ),
    }
    assert_eq!(std::fs::read(m.join("game-1/seal")).unwrap(), seal_before);

    // signed-acts/1, as the kit writes now: no seal; its acts signed; verifies 0.
    let t2 = tmp.path().join("new");
    let m2 = played(&t2, "");
    let line0 = arbiter::record::journal::first_entry(&m2.join("game-1/log.jsonl")).unwrap();
    assert_eq!(line0.body["arbiter_key"]["binding"], "signed-acts/1");
    assert!(!m2.join("game-1/seal").exists(), "no seal is written");
    let policy = std::fs::read_to_string(m2.join("policy.txt")).unwrap();
    assert!(policy.contains("binding signed-acts/1\n"), "{policy}");
    let (code, out) = verify_code(&m2);
    assert_eq!(code, 0, "{out}");
    let seq = append_as(&m2, "clock_corrected", "arbiter");
    let (code, out) = verify_code(&m2);
    assert_ne!(code, 0, "{out}");
    assert!(!out.contains("FOREIGN"), "no seal, no FOREIGN: {out}");
    // Signed past it (as a laundering kit would), it stands UNAUTHORIZED (27).
    let k = arbiter::record::sign::load_key(&m2.join("keys/arbiter"), None).unwrap();
    let log = m2.join("game-1/log.jsonl");
    let j = arbiter::record::journal::Journal::open(&log).unwrap();
    let entries = j.entries().to_vec();
    drop(j);
    arbiter::record::witness::sign_and_index(&m2, 1, &entries, &k, chrono::Utc::now()).unwrap();
    let (code, out) = verify_code(&m2);
    assert_eq!(code, 27, "{out}");
    assert!(out.contains(&format!("#{seq} clock_corrected")), "{out}");

    // Format v1 without a binding: an arbiter-only line by anyone is not checked.
    let t3 = tmp.path().join("v1");
    let m3 = played(&t3, "");
    rewrite_line0(&m3, 1, |b| {
        let k = b["arbiter_key"].as_object_mut().unwrap();
        k.remove("binding");
        k.remove("policy");
    });
    let _ = std::fs::remove_file(m3.join("policy.txt"));
    let _ = std::fs::remove_file(m3.join("policy.txt.sig"));
    let _ = std::fs::remove_dir_all(m3.join("game-1/checkpoints"));
    let _ = std::fs::remove_file(m3.join("index.txt"));
    let _ = std::fs::remove_file(m3.join("index.txt.sig"));
    append_as(&m3, "clock_corrected", "arbiter");
    let (_, out) = verify_code(&m3);
    assert!(
        !out.contains("UNAUTHORIZED"),
        "v1 checks no authorization: {out}"
    );
}

/// `--passphrase-env` puts the passphrase in `/proc/PID/environ`: it is for rehearsals. A
/// match made with it says `rehearsal` in its signed policy and takes it again; a match whose
/// policy does not (made with the passphrase typed, or an unencrypted key) refuses it, before
/// anything is read or written.
#[test]
fn passphrase_env_is_refused_in_a_match_that_is_not_a_rehearsal() {
    let tmp = tempfile::tempdir().unwrap();
    let m = played(tmp.path(), "");
    let ms = m.to_str().unwrap();
    let policy = std::fs::read_to_string(m.join("policy.txt")).unwrap();
    assert!(!policy.contains("rehearsal"), "{policy}");
    let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "checkpoint",
            "--match",
            ms,
            "--game",
            "1",
            "--passphrase-env",
            "ARB_PASS",
        ])
        .env("ARB_PASS", "not-asked")
        .output()
        .unwrap();
    let out = said(&o);
    assert!(!o.status.success(), "{out}");
    assert!(out.contains("--passphrase-env is for rehearsals"), "{out}");
    // A rehearsal: the match made with the passphrase in the environment.
    let r = tmp.path().join("r");
    let key = r.join("keys/arbiter");
    let public = arbiter::record::sign::keygen_with_rounds(
        &key,
        Some("rehearsal passphrase"),
        "rehearsal",
        arbiter::record::sign::TEST_KDF_ROUNDS,
    )
    .unwrap();
    arbiter::record::sign::ensure_allowed_signer(&r, "arbiter", &public).unwrap();
    let script = tmp.path().join("quick.arb");
    std::fs::copy("examples/scripts/quick.arb", &script).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "script",
            script.to_str().unwrap(),
            "--match",
            r.to_str().unwrap(),
        ])
        .args(["--passphrase-env", "ARB_PASS"])
        .env("ARB_PASS", "rehearsal passphrase")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", said(&o));
    let policy = std::fs::read_to_string(r.join("policy.txt")).unwrap();
    assert!(policy.contains("\nrehearsal\n"), "{policy}");
    let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["checkpoint", "--match", r.to_str().unwrap(), "--game", "1"])
        .args(["--passphrase-env", "ARB_PASS"])
        .env("ARB_PASS", "rehearsal passphrase")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", said(&o));
}

/// The session's storage keeps the arbiter's key as a [`SessionKey`] (its file and public
/// half) and at most the passphrase of the act being recorded: no field can hold a decrypted
/// key between two signatures (the exhaustive pattern below stops compiling if one is added).
#[test]
fn board_session_holds_no_decrypted_key() {
    use arbiter::board::matchdir::JournalStorage;
    use arbiter::record::sign::SessionKey;
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    let key = key_of(&m);
    let o =
        arbiter::board::matchdir::open_game_with(&m, Some(1), Some(Path::new(RULES)), &key, false)
            .unwrap();
    drop(o);
    fn fields(s: JournalStorage) -> Option<SessionKey> {
        let JournalStorage {
            match_dir: _,
            game: _,
            match_id: _,
            path: _,
            journal: _,
            signer,
            armed,
            may_ask: _,
            signed_upto: _,
            signed_code: _,
            warning: _,
            on_append: _,
            sealed: _,
            beat_file: _,
            countersigned_seen: _,
            index_seen: _,
            checkpoints_swept: _,
            witness_every: _,
            checkpoint_owed: _,
        } = s;
        // The key opened for the act being recorded, dropped once it is recorded.
        let _: Option<arbiter::record::sign::ActKey> = armed;
        signer
    }
    let _ = fields;
    // The session key's debug form shows its file and public half, never the seed.
    let k = arbiter::record::sign::load_key(&m.join("keys/arbiter"), None).unwrap();
    let seed = hex::encode(k.key_data().ed25519().unwrap().private.to_bytes());
    let s = SessionKey::new(&m.join("keys/arbiter"), &key, &m).unwrap();
    let shown = format!("{s:?}");
    assert!(!shown.contains(&seed), "{shown}");
    let signed = s
        .sign_with(None, false, |k| k.public_key().clone())
        .unwrap();
    assert_eq!(&signed, s.public());
}

/// `arbiter serve` holds the arbiter's key as a session does: its file and public half
/// ([`SessionKey`]), decrypted only for each game's checkpoint; the run's options hold no
/// decrypted key (a `PrivateKey` field would not compile here).
#[test]
fn serve_holds_no_decrypted_key() {
    use arbiter::record::sign::SessionKey;
    use arbiter::table::serve::ServeOptions;
    fn fields(o: ServeOptions) -> SessionKey {
        let ServeOptions {
            match_dir: _,
            profile_text: _,
            profile_file: _,
            key,
            keyref: _,
            ask: _,
            games: _,
            control: _,
            secret: _,
            measure: _,
        } = o;
        key
    }
    let _ = fields;
    // The key `serve` opens (the CLI's) is a session key: it signs once per call and keeps
    // nothing, and a key file replaced while the table runs signs nothing.
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    let key = key_of(&m);
    let (s, _) = arbiter::board::matchdir::signer_for(&key, &m, None).unwrap();
    let k = arbiter::record::sign::load_key(&m.join("keys/arbiter"), None).unwrap();
    let seed = hex::encode(k.key_data().ed25519().unwrap().private.to_bytes());
    assert!(!format!("{s:?}").contains(&seed));
    std::fs::remove_file(m.join("keys/arbiter")).unwrap();
    std::fs::remove_file(m.join("keys/arbiter.pub")).unwrap();
    arbiter::record::sign::keygen(&m.join("keys/arbiter"), None, "another").unwrap();
    let e = s.sign_with(None, false, |_| ()).unwrap_err();
    assert!(e.to_string().contains("changed"), "{e}");
}
