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

/// The fast check (`log::fast::check_line`, what `verify` runs on every line) proves a line
/// canonical from its bytes alone, each part of it at its fixed place. A non-canonical byte in
/// each part — the head's fields, a body key, a string, a number, a literal — must make it refuse
/// (and the exact parser refuse too): this fails if any one of those checks is taken out.
#[test]
fn fast_check_refuses_a_non_canonical_byte_in_each_part_of_a_line() {
    use arbiter::log::{NewEntry, encode_line, fast::check_line, parse_line};
    use chrono::{DateTime, Utc};
    let e = NewEntry {
        mono_ms: 3080800,
        utc: DateTime::parse_from_rfc3339("2003-01-26T15:51:20.800Z")
            .unwrap()
            .with_timezone(&Utc),
        actor: "operator".into(),
        clause: "6a".into(),
        kind: "move_made".into(),
        body: serde_json::json!({
            "declines_draw": false, "fen": "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1",
            "increment_ms": 0, "remaining_ms": 7199990, "san": "d4", "side": "white",
            "spent_ms": 10, "uci": "d2d4", "list": [1, null, true]
        }),
    };
    let line = String::from_utf8(encode_line(499999, &[0xab; 32], &e)).unwrap();
    let proven = |l: &str| check_line(format!("{l}\n").as_bytes()).map(|(f, len)| (f.seq, len));
    assert_eq!(proven(&line), Some((499999, line.len())), "{line}");
    assert!(parse_line(line.as_bytes(), 0).is_ok());
    // (part, text in the canonical line, the same made non-canonical)
    let cases = [
        ("v", "\"v\":1", "\"v\":2"),
        ("seq leading zero", "\"seq\":499999", "\"seq\":0499999"),
        ("seq as float", "\"seq\":499999", "\"seq\":499999.0"),
        ("prev upper-case hex", "\"prev\":\"abab", "\"prev\":\"ABab"),
        ("prev not hex", "\"prev\":\"abab", "\"prev\":\"agab"),
        ("prev short", "\"prev\":\"abab", "\"prev\":\"aba"),
        ("utc date", "2003-01-26T", "2003-02-30T"),
        ("utc hour", "T15:51", "T25:51"),
        ("utc separator", "T15:51:20.800Z", "T15:51:20,800Z"),
        ("utc offset", ".800Z", ".800+00:00"),
        ("utc two-digit ms", ".800Z", ".80Z"),
        (
            "mono_ms exponent",
            "\"mono_ms\":3080800",
            "\"mono_ms\":3.0808e6",
        ),
        (
            "mono_ms negative",
            "\"mono_ms\":3080800",
            "\"mono_ms\":-3080800",
        ),
        (
            "actor unknown",
            "\"actor\":\"operator\"",
            "\"actor\":\"operatorx\"",
        ),
        (
            "actor case",
            "\"actor\":\"operator\"",
            "\"actor\":\"Operator\"",
        ),
        (
            "clause escaped",
            "\"clause\":\"6a\"",
            "\"clause\":\"6\\u0061\"",
        ),
        (
            "clause raw control",
            "\"clause\":\"6a\"",
            "\"clause\":\"6\ta\"",
        ),
        (
            "kind escaped",
            "\"kind\":\"move_made\"",
            "\"kind\":\"move\\u005fmade\"",
        ),
        (
            "body key order",
            "\"san\":\"d4\",\"side\":\"white\"",
            "\"side\":\"white\",\"san\":\"d4\"",
        ),
        (
            "body key duplicate",
            "\"san\":\"d4\",\"side\"",
            "\"san\":\"d4\",\"san\"",
        ),
        ("body key escaped", "\"uci\"", "\"uc\\u0069\""),
        ("string escape", "d2d4", "d2\\/d4"),
        ("string uppercase unicode escape", "\"d4\"", "\"d4\\u001F\""),
        ("string bad byte", "\"d4\"", "\"d4\u{7f}\\x\""),
        ("number leading zero", "\"spent_ms\":10", "\"spent_ms\":010"),
        (
            "number fraction trailing zero",
            "\"spent_ms\":10",
            "\"spent_ms\":10.50",
        ),
        ("number exponent", "\"spent_ms\":10", "\"spent_ms\":1e1"),
        (
            "number minus zero",
            "\"increment_ms\":0",
            "\"increment_ms\":-0",
        ),
        ("number plus", "\"spent_ms\":10", "\"spent_ms\":+10"),
        (
            "literal",
            "\"declines_draw\":false",
            "\"declines_draw\":fals",
        ),
        (
            "literal case",
            "\"declines_draw\":false",
            "\"declines_draw\":False",
        ),
        ("array space", "[1,null,true]", "[1, null,true]"),
        ("array trailing comma", "[1,null,true]", "[1,null,true,]"),
        ("space after a key", "\"fen\":", "\"fen\" :"),
        ("end", "}}", "} }"),
    ];
    for (part, from, to) in cases {
        assert!(line.contains(from), "{part}: {from} not in {line}");
        let bad = line.replacen(from, to, 1);
        assert_eq!(proven(&bad), None, "{part}: the fast check proved {bad}");
        assert!(
            parse_line(bad.as_bytes(), 0).is_err(),
            "{part}: the exact parser accepts {bad}"
        );
    }
    // Invalid UTF-8 inside a string, ASCII everywhere else.
    let mut bytes = line.clone().into_bytes();
    let at = line.find("white").unwrap();
    bytes[at] = 0xff;
    bytes.push(b'\n');
    assert_eq!(check_line(&bytes), None);
}
