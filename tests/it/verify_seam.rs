//! `verify`'s one pass checks the log in blocks of whole lines on both cores (each
//! block's lines checked, hashed side by side and linked on their own; the blocks joined in
//! order). Damage exactly at the seam between two blocks (the last line of one, the first line of
//! the next) must get the verdict and the line number the exact path gives.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::record::verify::{Status, verify_game};

/// Where the reader cuts a file into blocks: it reads 256 KiB at a time after what it carried
/// over, so each block ends after the last newline before the next multiple of 256 KiB.
fn seams(bytes: &[u8]) -> Vec<usize> {
    let block = 256 * 1024;
    (1..)
        .map(|k| k * block)
        .take_while(|&end| end < bytes.len())
        .filter_map(|end| {
            bytes[..end]
                .iter()
                .rposition(|&b| b == b'\n')
                .map(|p| p + 1)
        })
        .collect()
}

/// The start of each line.
fn line_starts(bytes: &[u8]) -> Vec<usize> {
    std::iter::once(0)
        .chain(
            bytes
                .iter()
                .enumerate()
                .filter(|&(_, &b)| b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .filter(|&s| s < bytes.len())
        .collect()
}

/// The damaged copies of `good` around the seam before line `k` (which starts at `starts[k]`):
/// what was done, the line the damage is in, and the bytes.
fn damaged_at_seam(good: &[u8], starts: &[usize], k: usize) -> Vec<(String, usize, Vec<u8>)> {
    let line = |i: usize| starts[i]..starts[i + 1] - 1;
    let mut out = Vec::new();
    for (side, i) in [
        ("last line before the seam", k - 1),
        ("first line after it", k),
    ] {
        // `prev` changed to another hex digit: still canonical, no longer linked.
        let mut prev = good.to_vec();
        let at = line(i).start + r#"{"v":1,"seq":"#.len() + i.to_string().len() + 20;
        prev[at] = if prev[at] == b'0' { b'1' } else { b'0' };
        out.push((format!("a changed prev in the {side}"), i, prev));
        // Valid JSON, but not the canonical text: a space after the first comma.
        let mut spaced = good.to_vec();
        spaced.insert(line(i).start + r#"{"v":1,"#.len(), b' ');
        out.push((format!("a non-canonical {side}"), i, spaced));
        // A torn write as a power cut leaves it: the line's second half zeros.
        let mut zeros = good.to_vec();
        let mid = line(i).start + (line(i).end - line(i).start) / 2;
        zeros[mid..line(i).end].fill(0);
        out.push((format!("a torn {side} (zeros)"), i, zeros));
    }
    // A torn write followed by the next line: the first line after the seam cut short in its
    // middle (the seam stays where it is: the bytes before it are unchanged).
    let mut torn = good.to_vec();
    let mid = line(k).start + (line(k).end - line(k).start) / 2;
    torn.drain(mid..line(k).end);
    out.push(("a torn first line after the seam".to_string(), k, torn));
    // The link across the seam alone broken: the first line after it names a wrong `prev`, and
    // every later line is linked again to the line before it (a re-chained tail), so only the
    // seam itself can tell. The exact path names the line before the seam: the next line
    // records another hash for it.
    out.push((
        "a re-chained tail from the seam on".to_string(),
        k - 1,
        rechained(good, starts, k, |_| [7u8; 32], |seq| seq),
    ));
    // The same with the numbering: the tail numbered one further from the seam on.
    out.push((
        "a renumbered, re-chained tail from the seam on".to_string(),
        k,
        rechained(good, starts, k, |h| h, |seq| seq + 1),
    ));
    // The newline at the seam lost: the two lines run together.
    let mut glued = good.to_vec();
    glued.remove(line(k - 1).end);
    out.push(("the seam's newline lost".to_string(), k - 1, glued));
    out
}

/// `good` with the lines from `k` on rewritten: each line's `seq` mapped by `renumber`, its
/// `prev` the hash of the line now before it (for line `k`, that hash mapped by `first_prev`).
fn rechained(
    good: &[u8],
    starts: &[usize],
    k: usize,
    first_prev: impl Fn([u8; 32]) -> [u8; 32],
    renumber: impl Fn(u64) -> u64,
) -> Vec<u8> {
    let mut out = good[..starts[k]].to_vec();
    let line = |i: usize| &good[starts[i]..starts.get(i + 1).map_or(good.len(), |&e| e) - 1];
    let mut prev = arbiter::log::entry_hash(line(k - 1));
    for (i, _) in starts.iter().enumerate().skip(k) {
        let old = std::str::from_utf8(line(i)).unwrap();
        let at = old.find(r#","prev":""#).unwrap() + r#","prev":""#.len();
        let seq: u64 = old[r#"{"v":1,"seq":"#.len()..old.find(r#","prev""#).unwrap()]
            .parse()
            .unwrap();
        let named = if i == k { first_prev(prev) } else { prev };
        let new = format!(
            r#"{{"v":1,"seq":{},"prev":"{}{}"#,
            renumber(seq),
            arbiter::log::hex32(&named),
            &old[at + 64..]
        );
        prev = arbiter::log::entry_hash(new.as_bytes());
        out.extend_from_slice(new.as_bytes());
        out.push(b'\n');
    }
    out
}

#[test]
fn damage_at_the_thread_seam_gets_the_exact_paths_verdict_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("match");
    crate::log_verify::bench_match(&dir, 4_000);
    let path = dir.join("game-1/log.jsonl");
    let good = std::fs::read(&path).unwrap();
    // Over 1 MiB: checked on several threads, in several blocks.
    assert!(good.len() > 1 << 20, "{} bytes", good.len());
    let v = verify_game(&dir, 1);
    assert_eq!(v.status, Status::Ok, "{v:?}");
    assert_eq!(v, crate::log_verify::exact_game(&dir, 1));
    let starts = line_starts(&good);
    let cuts = seams(&good);
    assert!(cuts.len() >= 4, "{} seams", cuts.len());
    let checkpoints = dir.join("game-1/checkpoints");
    let aside = tmp.path().join("checkpoints-aside");
    let mut cases = 0;
    // With the signed checkpoint over the whole log, and without it (then only the chain itself
    // can tell a broken link: no tree head to disagree with).
    for signed in [true, false] {
        if !signed {
            std::fs::rename(&checkpoints, &aside).unwrap();
        }
        cases += damage_every_seam(&dir, &good, &starts, &cuts);
    }
    assert!(cases >= 60, "{cases}");
    std::fs::rename(&aside, &checkpoints).unwrap();
    std::fs::write(&path, &good).unwrap();
    assert_eq!(verify_game(&dir, 1).status, Status::Ok);
}

/// Each damage of [`damaged_at_seam`] at each seam: the verdict of `verify_game` equals the
/// exact path's and names the damaged line. The number of cases.
fn damage_every_seam(
    dir: &std::path::Path,
    good: &[u8],
    starts: &[usize],
    cuts: &[usize],
) -> usize {
    let path = dir.join("game-1/log.jsonl");
    let mut cases = 0;
    // The first three seams (the first is also the cut between the two threads' first blocks).
    for &c in cuts.iter().take(3) {
        let k = starts.binary_search(&c).unwrap();
        for (what, seq, bytes) in damaged_at_seam(good, starts, k) {
            // The damage really sits at a seam of the damaged file: its line ends one block or
            // starts the next.
            let seams_now = seams(&bytes);
            let starts_now = line_starts(&bytes);
            let (a, b) = (starts_now[seq], starts_now.get(seq + 1).copied());
            assert!(
                seams_now.contains(&a) || b.is_some_and(|b| seams_now.contains(&b)),
                "{what} at seam {c}: line {seq} ({a}..{b:?}) is not at a seam of {seams_now:?}"
            );
            std::fs::write(&path, &bytes).unwrap();
            let v = verify_game(dir, 1);
            assert_ne!(v.status, Status::Ok, "{what} at seam {c}");
            assert_eq!(
                v,
                crate::log_verify::exact_game(dir, 1),
                "{what} at seam {c}"
            );
            let bad = v
                .bad_line
                .as_ref()
                .unwrap_or_else(|| panic!("{what}: {v:?}"));
            assert_eq!(bad.seq, seq as u64, "{what} at seam {c}: {bad:?}");
            cases += 1;
        }
    }
    cases
}
