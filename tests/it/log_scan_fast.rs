//! `log::scan` reads canonical lines through the fast check and a plain parse; the result must be
//! exactly what the strict per-line parser gives, for valid logs and for every damaged byte.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::log::scan::{ScannedLine, scan, scan_line, split};

fn exact(bytes: &[u8]) -> Vec<ScannedLine> {
    split(bytes)
        .into_iter()
        .map(|(o, l, t)| scan_line(l, o, t))
        .collect()
}

fn logs() -> Vec<Vec<u8>> {
    let mut v = vec![std::fs::read("tests/fixtures/demo-match/game-1/log.jsonl").unwrap()];
    // A longer real log: the crash-loop script run through the binary.
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["script", "tests/fixtures/crash.arb", "--match"])
        .arg(&m)
        .output()
        .unwrap();
    assert!(out.status.success());
    v.push(std::fs::read(m.join("game-1/log.jsonl")).unwrap());
    v
}

#[test]
fn log_scan_fast_path_equals_the_strict_parser_on_valid_logs() {
    for bytes in logs() {
        let fast = scan(&bytes);
        assert!(fast.iter().all(|l| l.entry.is_ok()));
        assert_eq!(fast, exact(&bytes));
    }
}

#[test]
fn log_scan_fast_path_equals_the_strict_parser_for_every_damaged_byte() {
    // `scan` looks at each line on its own, so each line (with its newline) is damaged and scanned
    // in a buffer of its own: every byte of every line of the fixture, 17 replacements and a
    // deletion each.
    let bytes = &logs()[0];
    let replacements = [
        b'"', b'\\', b'{', b'}', b',', b':', b'0', b'9', b'a', b'Z', b' ', b'\n', b'\r', 0x00,
        0x7f, 0xc3, 0xff,
    ];
    let mut cases = 0;
    for (o, l, t) in split(bytes) {
        let start = o as usize;
        let region = &bytes[start..start + l.len() + usize::from(t)];
        for i in 0..region.len() {
            for r in replacements {
                if region[i] == r {
                    continue;
                }
                let mut m = region.to_vec();
                m[i] = r;
                assert_eq!(scan(&m), exact(&m), "line at {o}, byte {i} set to {r:#04x}");
                cases += 1;
            }
            let mut d = region.to_vec();
            d.remove(i);
            assert_eq!(scan(&d), exact(&d), "line at {o}, byte {i} deleted");
            cases += 1;
        }
    }
    println!("{cases} damaged lines: fast scan == strict scan");
}
