//! Every random choice of a game, drawn from its seed by a documented pure function, so that a
//! committee can re-run it without this program (docs/log-format.md, "Werewolf draws").
//!
//! A draw stream is named by a label (`roles`, `characters`, `order/talk/D/P/T`, `tie/vote/D/R`,
//! `tie/attack/D/R`). Its `k`-th 64-bit word is the first 8 bytes, big-endian, of
//! SHA-256(seed ‖ label as UTF-8 ‖ 0x00 ‖ k as 8 bytes big-endian), k = 0, 1, 2, …
//! A number below `n` takes words until one is below the largest multiple of `n` that fits in
//! 2^64 and answers that word modulo `n` (no bias). A shuffle is Fisher–Yates from the last
//! place down: for i = len−1 … 1, swap i with a number below i+1.
use sha2::{Digest, Sha256};

use super::Seed;

/// One named stream of draws.
pub struct Stream<'a> {
    seed: &'a Seed,
    label: String,
    next: u64,
}

impl<'a> Stream<'a> {
    pub fn new(seed: &'a Seed, label: impl Into<String>) -> Stream<'a> {
        Stream {
            seed,
            label: label.into(),
            next: 0,
        }
    }

    /// The next 64-bit word.
    pub fn word(&mut self) -> u64 {
        let mut h = Sha256::new();
        h.update(self.seed.0);
        h.update(self.label.as_bytes());
        h.update([0u8]);
        h.update(self.next.to_be_bytes());
        self.next += 1;
        let d = h.finalize();
        let mut b = [0u8; 8];
        b.copy_from_slice(&d[..8]);
        u64::from_be_bytes(b)
    }

    /// A number below `n` (0 when `n` is 0 or 1, drawing nothing).
    pub fn below(&mut self, n: u64) -> u64 {
        if n <= 1 {
            return 0;
        }
        // Words at or above the largest multiple of n not above 2^64 are drawn again:
        // r = 2^64 mod n, and a word w is taken when w < 2^64 - r, i.e. w <= u64::MAX - r.
        let r = (u64::MAX % n + 1) % n;
        let last = u64::MAX - r;
        loop {
            let w = self.word();
            if w <= last {
                return w % n;
            }
        }
    }

    /// Shuffle in place (Fisher–Yates, from the last place down).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
}

/// The label of a talk or whisper order: day, phase name, turn (0 when drawn once a phase).
pub fn order_label(channel: &str, day: u32, phase: &str, turn: u32) -> String {
    format!("order/{channel}/{day}/{phase}/{turn}")
}

/// The label of a tie-break: `vote` or `attack`, day, round.
pub fn tie_label(channel: &str, day: u32, round: u32) -> String {
    format!("tie/{channel}/{day}/{round}")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn below_is_uniform_enough_and_in_range() {
        let seed = Seed([7; 32]);
        let mut s = Stream::new(&seed, "t");
        let mut seen = [0u32; 3];
        for _ in 0..3000 {
            seen[s.below(3) as usize] += 1;
        }
        assert!(seen.iter().all(|&k| (800..1200).contains(&k)), "{seen:?}");
    }

    #[test]
    fn the_stream_is_sha256_of_seed_label_zero_counter() {
        let seed = Seed([0; 32]);
        let mut h = Sha256::new();
        h.update([0u8; 32]);
        h.update(b"roles");
        h.update([0u8]);
        h.update(0u64.to_be_bytes());
        let d = h.finalize();
        let want = u64::from_be_bytes(d[..8].try_into().unwrap());
        assert_eq!(Stream::new(&seed, "roles").word(), want);
    }
}
