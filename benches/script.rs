//! Script mode at length: `arbiter script --dry-run` of `ARBITER_BENCH_SCRIPT_LINES`
//! note lines (default 200,000) after the declarations and the start — the parse
//! (`core::script::parse_script`) and the run (`session::run_script` on a memory session), the
//! path of the command without its printing. Linearity: the same at a quarter of the length, the
//! time per line compared (ratio ~1 when linear; the old clone of the void window per entry made
//! it grow with the length).
//!
//! Anchor in the same run: splitting the same text into lines and words and parsing each offset
//! as a number (what any line-oriented reader pays). Target: 200,000 lines in under 5 s.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::Path;
use std::time::Instant;

use arbiter::board::session::{memory_session, run_script};
use arbiter::core::script::parse_script;
use support::*;

fn script_text(lines: usize) -> String {
    let mut s = String::from(
        "0 arbiter declare white human Garry Kasparov\n\
         0 arbiter declare black machine Deep Junior\n\
         0 arbiter declare operator Amir Ban\n\
         0 arbiter declare team Shay Bushinsky, Boris Alterman\n\
         0 arbiter start\n",
    );
    for i in 0..lines {
        // One line per 10 ms of game time: 200,000 lines stay within White's first period.
        s.push_str(&format!(
            "{}.{:03} arbiter note line {i}\n",
            i / 100,
            (i % 100) * 10
        ));
    }
    s
}

/// Seconds to parse and run `text` as `arbiter script --dry-run` does.
fn run(text: &str) -> f64 {
    let t = Instant::now();
    let lines = parse_script(text).unwrap();
    let mut s = memory_session(
        Path::new("rules/kasparov-deep-junior-2003.toml"),
        "bench",
        1,
    )
    .unwrap();
    run_script(&mut s, &lines).unwrap_or_else(|(l, e)| panic!("line {l}: {e}"));
    let secs = t.elapsed().as_secs_f64();
    // The four declarations and the start make the game's first entries; every note one more.
    let notes = lines.len() - 5;
    assert!(
        s.storage.len() > notes,
        "{} entries for {notes} notes",
        s.storage.len()
    );
    secs
}

fn anchor(text: &str) -> f64 {
    let t = Instant::now();
    let mut sum = 0.0f64;
    for l in text.lines() {
        let mut words = l.split_whitespace();
        sum += words
            .next()
            .and_then(|o| o.parse::<f64>().ok())
            .unwrap_or(0.0);
        sum += words.count() as f64;
    }
    let secs = t.elapsed().as_secs_f64();
    assert!(sum > 0.0);
    secs
}

fn main() {
    let n = env_u64("ARBITER_BENCH_SCRIPT_LINES", 200_000) as usize;
    let rounds = env_u64("ARBITER_BENCH_ROUNDS", 3) as usize;
    header(
        "script",
        &format!("{n} note lines, --dry-run path, x {rounds} rounds"),
    );
    let full = script_text(n);
    let quarter = script_text(n / 4);
    let (mut whole, mut part, mut floor) = (vec![], vec![], vec![]);
    for _ in 0..rounds {
        whole.push(run(&full));
        part.push(run(&quarter));
        floor.push(anchor(&full));
    }
    let (whole, part, floor) = (median(&mut whole), median(&mut part), median(&mut floor));
    let per_line = whole / n as f64 * 1e6;
    let per_line_quarter = part / (n / 4) as f64 * 1e6;
    println!(
        "   {n} lines: {whole:.2} s ({per_line:.1} us/line); {} lines: {part:.2} s ({per_line_quarter:.1} us/line)",
        n / 4
    );
    println!(
        "   linearity: time per line at {n} / at {} = {:.2} (1.0 = linear)",
        n / 4,
        per_line / per_line_quarter
    );
    println!(
        "   anchor (lines split, offsets parsed): {floor:.3} s; the script path is {:.0}x the anchor",
        whole / floor
    );
    println!("   target {n} lines < 5 s: {}", verdict(whole < 5.0));
}
