//! The engine-log parsers never panic, whatever the lines.

use arbiter::enginelog::{coverage, detect_line, machine_moves_from_san, parse, parse_str};
use proptest::prelude::*;

/// Words that steer the parsers into their branches.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            ">>",
            "<<",
            "info",
            "depth",
            "seldepth",
            "score",
            "cp",
            "mate",
            "lowerbound",
            "upperbound",
            "time",
            "nodes",
            "pv",
            "multipv",
            "currmove",
            "string",
            "wdl",
            "bestmove",
            "ponder",
            "position",
            "startpos",
            "fen",
            "moves",
            "go",
            "ponderhit",
            "stop",
            "e2e4",
            "e7e5",
            "e1g1",
            "a7a8q",
            "Nf3",
            "O-O",
            "move",
            "usermove",
            "new",
            "setboard",
            "undo",
            "remove",
            "-5",
            "0",
            "99999999999999999999",
            "12:00:00.5",
            "[01:02:03]",
            ">first",
            ":",
            "(0):",
            "refutation",
            "8/8/8/8/8/8/k7/7K",
            "w",
            "-",
        ])
        .prop_map(str::to_owned),
        "[ -~]{0,12}",
        any::<String>(),
    ]
}

fn line() -> impl Strategy<Value = String> {
    prop::collection::vec(word(), 0..16).prop_map(|w| w.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn engine_parsers_never_panic(lines in prop::collection::vec(line(), 0..40)) {
        let text = lines.join("\n");
        for l in &lines {
            let _ = detect_line(l);
        }
        let log = parse_str(&text);
        let streamed = parse(text.as_bytes());
        prop_assert!(streamed.is_ok());
        let moves = machine_moves_from_san(&["e4", "e5", "Nf3", "Nc6"], false, None);
        prop_assert!(moves.is_ok());
        if let Ok(moves) = moves {
            let _ = coverage(&log, &moves);
        }
    }

    #[test]
    fn engine_parser_survives_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2000)) {
        prop_assert!(parse(bytes.as_slice()).is_ok());
    }
}
