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
    arbiter::sign::keygen_with_rounds(&k, Some("a passphrase long enough"), "t", 4).unwrap();
    arbiter::sign::load_key(&k, Some("a passphrase long enough")).unwrap();
    assert_eq!(
        rustix::process::dumpable_behavior().unwrap(),
        rustix::process::DumpableBehavior::NotDumpable
    );
}
