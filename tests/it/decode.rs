//! Issue 21: the typed decoder of a log line (`log::codec::decode_line`, one serde pass, no
//! `serde_json::Value`) reads every line of the six games of Kasparov – Deep Junior 2003, entered
//! both ways (move-and-press, press-then-notation), as the `Value` path reads it
//! (`log::parse_line` then `codec::event_of`), and each line through the typed pass itself.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::core::Ms;
use arbiter::log::codec::{decode_line, event_of, new_entry, typed_line};
use arbiter::log::{ZERO_HASH, encode_line, entry_hash, parse_line};

use crate::pgn_clocks::play_both;
use crate::pgn_real2003::{ending, real_game};

/// The log lines of `events`, chained, one second of UTC apart.
fn lines_of(events: &[arbiter::core::event::Event]) -> Vec<Vec<u8>> {
    let mut prev = ZERO_HASH;
    let t0 = chrono::DateTime::from_timestamp_millis(1_043_593_200_000).unwrap();
    events
        .iter()
        .enumerate()
        .map(|(seq, ev)| {
            let utc = t0 + chrono::Duration::milliseconds(ev.at as i64);
            let line = encode_line(seq as u64, &prev, &new_entry(ev, utc));
            prev = entry_hash(&line);
            line
        })
        .collect()
}

#[test]
fn issue_21_the_six_2003_games_logs_decode_typed_as_the_value_path_reads_them() {
    let mut lines_seen = 0usize;
    for n in 1..=6u32 {
        let g = real_game(n);
        let thinks: Vec<Ms> = (0..g.sans.len() as u64).map(|i| 5_000 + i * 97).collect();
        let delays: Vec<Ms> = (0..g.sans.len() as u64)
            .map(|i| (i * 7_919) % 200_000)
            .collect();
        let mut b = play_both(g.machine_white, &g.sans, &thinks, &delays);
        let t = b.direct.now.max(b.pressed.now);
        for line in ending(n, t) {
            b.direct.at(&line);
            b.pressed.at(&line);
        }
        for m in [&b.direct, &b.pressed] {
            assert!(m.game().outcome().is_some(), "game {n} ended");
            for (seq, line) in lines_of(&m.log).iter().enumerate() {
                let entry = parse_line(line, 0).unwrap();
                let by_value = event_of(&entry).unwrap();
                let typed = typed_line(line).unwrap_or_else(|e| panic!("game {n} #{seq}: {e}"));
                assert_eq!(typed.event, by_value, "game {n} #{seq}");
                assert_eq!(typed.event, m.log[seq], "game {n} #{seq}");
                assert_eq!((typed.seq, &*typed.prev), (entry.seq, entry.prev.as_str()));
                assert_eq!(&*typed.utc, entry.utc.as_str());
                assert_eq!(decode_line(line).unwrap(), typed);
                lines_seen += 1;
            }
        }
    }
    // 399 plies in all, each a press and a move in one of the two entries.
    assert!(lines_seen > 1_000, "{lines_seen} lines");
}
