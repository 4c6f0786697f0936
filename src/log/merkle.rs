//! RFC 6962 / RFC 9162 Merkle tree hash, inclusion and consistency proofs and their
//! verification.
use sha2::{Digest, Sha256};

/// Leaf hash: SHA-256(0x00 || data).
pub fn leaf_hash(data: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([0u8]);
    h.update(data);
    h.finalize().into()
}

/// Interior node hash: SHA-256(0x01 || left || right).
pub fn node_hash(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([1u8]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// Most messages hashed side by side ([`leaf_hashes`], [`pair_hashes`]).
const LANES_MAX: usize = 16;

/// Messages the CPU hashes side by side (4 streams on a SHA unit, 8 or 16 with AVX2/AVX-512).
fn lanes() -> usize {
    tape_sha256::lane_width().clamp(1, LANES_MAX)
}

/// [`leaf_hash`] of every line: `out[i] = leaf_hash(lines[i])`. Independent messages are
/// hashed side by side on the CPU's SHA unit (`tape_sha256`, multi-buffer): a single SHA-256
/// stream waits on each round's result, several streams fill those waits, so this is about twice
/// the speed of hashing one line after another.
pub fn leaf_hashes(lines: &[&[u8]], out: &mut [[u8; 32]]) {
    side_by_side(&[0u8], lines, out);
}

/// [`leaf_hashes`] of lines given framed, each with the leaf prefix byte before it
/// (`framed[i] = 0x00 || line`): `out[i] = leaf_hash(line)`. A caller whose lines lie in one
/// buffer can put the 0x00 where the line before ends (its newline) and hash each line where it
/// lies: no block of it is then copied to be shifted by the prefix byte.
pub fn framed_leaf_hashes(framed: &[&[u8]], out: &mut [[u8; 32]]) {
    side_by_side(no_prefix(), framed, out);
}

/// The empty prefix, as a slice of real memory. A literal `&[]` points at a dangling address, and
/// `tape_sha256` compares the prefixes of a group (`memcmp` of 0 bytes): on a CPU with AVX-512,
/// glibc's `memcmp` then makes a masked load there, which a dangling address turns into a
/// microcode assist of some hundred cycles, for every group of lines (7 % of `report`'s CPU in
/// `perf`, 2026-11-27).
fn no_prefix() -> &'static [u8] {
    static ONE: [u8; 1] = [0];
    ONE.get(..0).unwrap_or_default()
}

/// `out[i] = SHA-256(prefix || msgs[i])`, several messages side by side. The streams of one
/// pass must have the same number of SHA-256 blocks, so messages are grouped by their block
/// count on the way (a few groups wait at a time; the last ones may go part full).
fn side_by_side(prefix: &[u8], msgs: &[&[u8]], out: &mut [[u8; 32]]) {
    let w = lanes();
    if w == 1 || msgs.len() != out.len() {
        for (o, m) in out.iter_mut().zip(msgs) {
            let mut h = Sha256::new();
            h.update(prefix);
            h.update(m);
            *o = h.finalize().into();
        }
        return;
    }
    /// Messages waiting for a full group: their block count, their indices, how many.
    struct Slot {
        blocks: usize,
        idx: [usize; LANES_MAX],
        n: usize,
    }
    let flush = |slot: &mut Slot, out: &mut [[u8; 32]]| {
        let n = slot.n;
        let mut group: [&[u8]; LANES_MAX] = [&[]; LANES_MAX];
        for (m, &i) in group.iter_mut().zip(&slot.idx[..n]) {
            *m = msgs.get(i).copied().unwrap_or(&[]);
        }
        let mut got = [[0u8; 32]; LANES_MAX];
        tape_sha256::hash_many_prefixed(prefix, &group[..n], &mut got[..n]);
        for (&i, h) in slot.idx[..n].iter().zip(got) {
            if let Some(o) = out.get_mut(i) {
                *o = h;
            }
        }
        slot.n = 0;
    };
    let mut slots: [Slot; 8] = std::array::from_fn(|_| Slot {
        blocks: 0,
        idx: [0; LANES_MAX],
        n: 0,
    });
    for (i, m) in msgs.iter().enumerate() {
        // The prefix, the message, at least 9 bytes of padding.
        let blocks = (prefix.len() + m.len() + 9).div_ceil(64);
        let k = match slots.iter().position(|s| s.n > 0 && s.blocks == blocks) {
            Some(k) => k,
            None => {
                // A free slot, else the fullest one is hashed as it is (a partial group).
                let k = match slots.iter().position(|s| s.n == 0) {
                    Some(k) => k,
                    None => {
                        let k = (0..slots.len()).max_by_key(|&k| slots[k].n).unwrap_or(0);
                        flush(&mut slots[k], out);
                        k
                    }
                };
                slots[k].blocks = blocks;
                k
            }
        };
        let slot = &mut slots[k];
        slot.idx[slot.n] = i;
        slot.n += 1;
        if slot.n == w {
            flush(slot, out);
        }
    }
    for slot in slots.iter_mut().filter(|s| s.n > 0) {
        flush(slot, out);
    }
}

/// [`node_hash`] of each pair of neighbours: `out[i] = node_hash(below[2i], below[2i+1])`
/// (`below` of even length, `out` half as long), hashed side by side like [`leaf_hashes`].
pub fn pair_hashes(below: &[[u8; 32]], out: &mut [[u8; 32]]) {
    let w = lanes();
    for (pairs, outs) in below.chunks(2 * w).zip(out.chunks_mut(w)) {
        let n = (pairs.len() / 2).min(outs.len());
        let mut left: [&[u8]; LANES_MAX] = [&[]; LANES_MAX];
        let mut right: [&[u8]; LANES_MAX] = [&[]; LANES_MAX];
        for (k, pair) in pairs.chunks_exact(2).take(n).enumerate() {
            left[k] = &pair[0];
            right[k] = &pair[1];
        }
        tape_sha256::hash_pairs(&[1u8], &left[..n], &right[..n], &mut outs[..n]);
    }
}

/// The tree hash of `2^h` leaves (a perfect subtree), level by level with [`pair_hashes`].
fn perfect_root(leaves: &[[u8; 32]], a: &mut Vec<[u8; 32]>, b: &mut Vec<[u8; 32]>) -> [u8; 32] {
    match leaves {
        [] => return root(&[]),
        [one] => return *one,
        _ => {}
    }
    a.clear();
    a.resize(leaves.len() / 2, [0u8; 32]);
    pair_hashes(leaves, a);
    while a.len() > 1 {
        b.clear();
        b.resize(a.len() / 2, [0u8; 32]);
        pair_hashes(a, b);
        std::mem::swap(a, b);
    }
    a.first().copied().unwrap_or_else(|| root(&[]))
}

/// Largest power of two strictly smaller than `n` (n >= 2).
fn split(n: usize) -> usize {
    let mut k = 1;
    while k << 1 < n {
        k <<= 1;
    }
    k
}

/// Merkle tree hash over the given leaf hashes (the empty tree hashes to SHA-256 of nothing).
pub fn root(leaves: &[[u8; 32]]) -> [u8; 32] {
    match leaves {
        [] => Sha256::digest([]).into(),
        [one] => *one,
        _ => {
            let k = split(leaves.len());
            node_hash(&root(&leaves[..k]), &root(&leaves[k..]))
        }
    }
}

/// Audit path of leaf `index` in the tree over `leaves` (RFC 6962 PATH(m, D[n])), leaf first.
/// `None` if `index` is out of range.
pub fn inclusion_proof(leaves: &[[u8; 32]], index: usize) -> Option<Vec<[u8; 32]>> {
    if index >= leaves.len() {
        return None;
    }
    let mut path = Vec::new();
    push_path(leaves, index, &mut path);
    Some(path)
}

fn push_path(leaves: &[[u8; 32]], m: usize, out: &mut Vec<[u8; 32]>) {
    if leaves.len() <= 1 {
        return;
    }
    let k = split(leaves.len());
    if m < k {
        push_path(&leaves[..k], m, out);
        out.push(root(&leaves[k..]));
    } else {
        push_path(&leaves[k..], m - k, out);
        out.push(root(&leaves[..k]));
    }
}

/// Root implied by an audit path (RFC 9162 section 2.1.3.2); `None` if the path does not fit a
/// tree of `size` leaves.
pub fn root_from_inclusion(
    leaf: &[u8; 32],
    index: u64,
    size: u64,
    path: &[[u8; 32]],
) -> Option<[u8; 32]> {
    if index >= size {
        return None;
    }
    let (mut fnode, mut snode) = (index, size - 1);
    let mut r = *leaf;
    for p in path {
        if snode == 0 {
            return None;
        }
        if fnode & 1 == 1 || fnode == snode {
            r = node_hash(p, &r);
            while fnode & 1 == 0 && fnode != 0 {
                fnode >>= 1;
                snode >>= 1;
            }
        } else {
            r = node_hash(&r, p);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    (snode == 0).then_some(r)
}

/// Whether `path` proves `leaf` at `index` in the tree of `size` leaves with hash `root`.
pub fn verify_inclusion(
    leaf: &[u8; 32],
    index: u64,
    size: u64,
    path: &[[u8; 32]],
    root: &[u8; 32],
) -> bool {
    root_from_inclusion(leaf, index, size, path).is_some_and(|r| &r == root)
}

/// Consistency proof from the tree over the first `m` leaves to the tree over all of `leaves`
/// (RFC 6962 §2.1.2 PROOF(m, D[n]); RFC 9162 §2.1.4.1), nodes in the order the RFC gives them.
/// `None` unless `1 <= m <= leaves.len()`; empty when `m == leaves.len()`.
pub fn consistency_proof(leaves: &[[u8; 32]], m: usize) -> Option<Vec<[u8; 32]>> {
    let n = leaves.len();
    if m == 0 || m > n {
        return None;
    }
    let mut out = Vec::new();
    subproof(m, 0, n, true, &|lo, hi| root(&leaves[lo..hi]), &mut out);
    Some(out)
}

/// The ranges of leaves `lo..hi` whose tree hashes make the consistency proof from the first `m`
/// leaves to the first `n` ([`consistency_proof`]'s nodes, in its order): a reader that cannot
/// hold the leaves fills one [`RootBuilder`] per range in a single pass (the ranges are
/// disjoint). `None` unless `1 <= m <= n`.
pub fn consistency_ranges(m: u64, n: u64) -> Option<Vec<(u64, u64)>> {
    if m == 0 || m > n {
        return None;
    }
    let (m, n) = (usize::try_from(m).ok()?, usize::try_from(n).ok()?);
    let ranges = std::cell::RefCell::new(Vec::new());
    let mut sink = Vec::new();
    subproof(
        m,
        0,
        n,
        true,
        &|lo, hi| {
            ranges.borrow_mut().push((lo as u64, hi as u64));
            [0; 32]
        },
        &mut sink,
    );
    Some(ranges.into_inner())
}

/// RFC 6962 SUBPROOF(m, D[lo..hi], b), with `hash(lo, hi)` the tree hash of leaves `lo..hi`.
fn subproof(
    m: usize,
    lo: usize,
    hi: usize,
    complete: bool,
    hash: &dyn Fn(usize, usize) -> [u8; 32],
    out: &mut Vec<[u8; 32]>,
) {
    let n = hi - lo;
    if m == n {
        if !complete {
            out.push(hash(lo, hi));
        }
        return;
    }
    let k = split(n);
    if m <= k {
        subproof(m, lo, lo + k, complete, hash, out);
        out.push(hash(lo + k, hi));
    } else {
        subproof(m - k, lo + k, hi, false, hash, out);
        out.push(hash(lo, lo + k));
    }
}

/// Why a consistency proof does not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ConsistencyError {
    #[error("the older tree size {old} is larger than the newer {new}")]
    Order { old: u64, new: u64 },
    #[error("a consistency proof from the empty tree proves nothing")]
    EmptyOld,
    #[error("equal tree sizes need an empty proof (found {0} nodes)")]
    NotEmpty(usize),
    #[error("the proof is empty but the tree sizes differ")]
    Empty,
    #[error("the proof has the wrong number of nodes for sizes {old} and {new}")]
    Length { old: u64, new: u64 },
    #[error("the proof does not lead to the older tree hash")]
    OldRoot,
    #[error("the proof does not lead to the newer tree hash")]
    NewRoot,
}

/// Check a consistency proof (RFC 9162 §2.1.4.2): that the tree of `old_size` leaves with hash
/// `old_root` is a prefix of the tree of `new_size` leaves with hash `new_root`.
pub fn check_consistency(
    old_size: u64,
    new_size: u64,
    old_root: &[u8; 32],
    new_root: &[u8; 32],
    proof: &[[u8; 32]],
) -> Result<(), ConsistencyError> {
    let (old, new) = (old_size, new_size);
    if old > new {
        return Err(ConsistencyError::Order { old, new });
    }
    if old == 0 {
        return Err(ConsistencyError::EmptyOld);
    }
    if old == new {
        if !proof.is_empty() {
            return Err(ConsistencyError::NotEmpty(proof.len()));
        }
        return if old_root == new_root {
            Ok(())
        } else {
            Err(ConsistencyError::NewRoot)
        };
    }
    let Some((first, rest)) = proof.split_first() else {
        return Err(ConsistencyError::Empty);
    };
    // Step 2: when the old size is a power of two its root is the first node, implied.
    let (seed, path) = if old.is_power_of_two() {
        (old_root, proof)
    } else {
        (first, rest)
    };
    let (mut fnode, mut snode) = (old - 1, new - 1);
    while fnode & 1 == 1 {
        fnode >>= 1;
        snode >>= 1;
    }
    let (mut fr, mut sr) = (*seed, *seed);
    for c in path {
        if snode == 0 {
            return Err(ConsistencyError::Length { old, new });
        }
        if fnode & 1 == 1 || fnode == snode {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            while fnode & 1 == 0 && fnode != 0 {
                fnode >>= 1;
                snode >>= 1;
            }
        } else {
            sr = node_hash(&sr, c);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    if snode != 0 {
        return Err(ConsistencyError::Length { old, new });
    }
    if &fr != old_root {
        return Err(ConsistencyError::OldRoot);
    }
    if &sr != new_root {
        return Err(ConsistencyError::NewRoot);
    }
    Ok(())
}

/// Whether `proof` shows the tree (`old_size`, `old_root`) is a prefix of (`new_size`,
/// `new_root`); see [`check_consistency`] for the reason when it is not.
pub fn verify_consistency(
    old_size: u64,
    new_size: u64,
    old_root: &[u8; 32],
    new_root: &[u8; 32],
    proof: &[[u8; 32]],
) -> bool {
    check_consistency(old_size, new_size, old_root, new_root, proof).is_ok()
}

/// The hashes of every aligned perfect subtree over a list of leaves, so that the tree hash of
/// any prefix ([`Subtrees::root`]) costs O(log n) lookups. Gives exactly [`root`]'s values.
#[derive(Debug, Clone)]
pub struct Subtrees {
    /// `levels[k][j]` is the tree hash of leaves `j·2^k .. (j+1)·2^k`.
    levels: Vec<Vec<[u8; 32]>>,
}

/// Level sizes above which a level is hashed on two threads.
const PARALLEL_LEVEL: usize = 1 << 14;

fn next_level(below: &[[u8; 32]]) -> Vec<[u8; 32]> {
    let pair = |p: &[[u8; 32]]| node_hash(&p[0], &p[1]);
    let half = below.len() / 2;
    if half < PARALLEL_LEVEL {
        return below.chunks_exact(2).map(pair).collect();
    }
    let cut = (half / 2) * 2;
    let (a, b) = below[..half * 2].split_at(cut);
    let (mut left, right) = std::thread::scope(|s| {
        let r = s.spawn(|| b.chunks_exact(2).map(pair).collect::<Vec<_>>());
        let l: Vec<[u8; 32]> = a.chunks_exact(2).map(pair).collect();
        (l, r.join())
    });
    match right {
        Ok(r) => left.extend(r),
        Err(_) => left.extend(b.chunks_exact(2).map(pair)),
    }
    left
}

impl Subtrees {
    pub fn new(leaves: Vec<[u8; 32]>) -> Subtrees {
        let mut levels = vec![leaves];
        while let Some(top) = levels.last().filter(|l| l.len() >= 2) {
            let next = next_level(top);
            levels.push(next);
        }
        Subtrees { levels }
    }

    /// Number of leaves.
    pub fn len(&self) -> usize {
        self.levels[0].len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The leaf hashes.
    pub fn leaves(&self) -> &[[u8; 32]] {
        &self.levels[0]
    }

    /// Tree hash of the first `m` leaves (= `root(&leaves[..m])`); `None` if `m` is too large.
    pub fn root(&self, m: usize) -> Option<[u8; 32]> {
        if m > self.len() {
            return None;
        }
        if m == 0 {
            return Some(root(&[]));
        }
        Some(self.range(0, m))
    }

    /// Audit path of leaf `index` in the tree over the first `size` leaves (as
    /// [`inclusion_proof`] over `leaves()[..size]`, in O(log² n) hashing).
    pub fn inclusion_proof(&self, index: usize, size: usize) -> Option<Vec<[u8; 32]>> {
        if index >= size || size > self.len() {
            return None;
        }
        let mut path = Vec::new();
        let (mut lo, mut hi, mut m) = (0, size, index);
        let mut upward = Vec::new();
        while hi - lo > 1 {
            let k = split(hi - lo);
            if m < k {
                upward.push(self.range(lo + k, hi - lo - k));
                hi = lo + k;
            } else {
                upward.push(self.range(lo, k));
                lo += k;
                m -= k;
            }
        }
        path.extend(upward.into_iter().rev());
        Some(path)
    }

    /// Consistency proof from the first `old` leaves to the first `new` (as
    /// [`consistency_proof`] over `leaves()[..new]`, in O(log² n) hashing). `None` unless
    /// `1 <= old <= new <= len()`.
    pub fn consistency_proof(&self, old: usize, new: usize) -> Option<Vec<[u8; 32]>> {
        if old == 0 || old > new || new > self.len() {
            return None;
        }
        let mut out = Vec::new();
        subproof(
            old,
            0,
            new,
            true,
            &|lo, hi| self.range(lo, hi - lo),
            &mut out,
        );
        Some(out)
    }

    /// Tree hash of leaves `start .. start + len` (len >= 1), where `start` is a multiple of the
    /// largest power of two not above `len` (always so on the way down from a prefix).
    fn range(&self, start: usize, len: usize) -> [u8; 32] {
        if len.is_power_of_two() {
            let k = len.trailing_zeros() as usize;
            return self.levels[k][start >> k];
        }
        let k = split(len);
        node_hash(&self.range(start, k), &self.range(start + k, len - k))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Lines of every length from 0 to 700 bytes (1 to 12 SHA-256 blocks), in an order that mixes
    /// the block counts, so that groups fill, overflow the slots and end partial.
    fn mixed_lines() -> Vec<Vec<u8>> {
        let mut lens: Vec<usize> = (0..=700).collect();
        // A fixed shuffle (no RNG needed): stride through the lengths.
        lens = (0..lens.len())
            .map(|i| lens[(i * 263) % lens.len()])
            .collect();
        lens.extend([
            54, 54, 54, 55, 118, 119, 119, 119, 119, 119, 1000, 4096, 4097,
        ]);
        lens.iter()
            .enumerate()
            .map(|(i, &n)| (0..n).map(|k| (k * 31 + i * 7) as u8).collect())
            .collect()
    }

    #[test]
    fn leaf_hashes_side_by_side_equal_one_at_a_time() {
        let lines = mixed_lines();
        for take in [0, 1, 2, 3, 4, 5, 7, 16, 17, 100, lines.len()] {
            let refs: Vec<&[u8]> = lines[..take].iter().map(|l| &l[..]).collect();
            let mut out = vec![[0u8; 32]; take];
            leaf_hashes(&refs, &mut out);
            for (l, o) in refs.iter().zip(&out) {
                assert_eq!(*o, leaf_hash(l), "a line of {} bytes", l.len());
            }
        }
        // Framed: the prefix byte in front of each line gives the same hashes.
        let framed: Vec<Vec<u8>> = lines.iter().map(|l| [&[0u8][..], l].concat()).collect();
        let refs: Vec<&[u8]> = framed.iter().map(|l| &l[..]).collect();
        let mut out = vec![[0u8; 32]; refs.len()];
        framed_leaf_hashes(&refs, &mut out);
        for (l, o) in lines.iter().zip(&out) {
            assert_eq!(*o, leaf_hash(l), "a framed line of {} bytes", l.len());
        }
        // The known answer: RFC 6962's leaf hash of the empty string.
        let mut out = [[0u8; 32]];
        leaf_hashes(&[b""], &mut out);
        assert_eq!(
            hex::encode(out[0]),
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
        );
    }

    #[test]
    fn pair_hashes_side_by_side_equal_one_at_a_time() {
        let below: Vec<[u8; 32]> = (0..200u32).map(|i| leaf_hash(&i.to_le_bytes())).collect();
        for n in [0usize, 2, 4, 6, 8, 30, 32, 34, 200] {
            let mut out = vec![[0u8; 32]; n / 2];
            pair_hashes(&below[..n], &mut out);
            for (k, o) in out.iter().enumerate() {
                assert_eq!(
                    *o,
                    node_hash(&below[2 * k], &below[2 * k + 1]),
                    "pair {k} of {n}"
                );
            }
        }
    }

    #[test]
    fn aligned_run_from_leaves_equals_pushing_them_one_by_one() {
        let leaves: Vec<[u8; 32]> = (0..140u32).map(|i| leaf_hash(&i.to_be_bytes())).collect();
        let cut_sets: [&[u64]; 4] = [&[], &[1, 5, 64, 100, 129], &[3, 4, 7, 8, 9, 16, 33], &[70]];
        for cuts in cut_sets {
            for start in 0..70u64 {
                for len in 0..70usize {
                    let slice = &leaves[start as usize..start as usize + len];
                    let mut one = AlignedRun::new(start);
                    for l in slice {
                        one.push(*l, cuts);
                    }
                    let all = AlignedRun::from_leaves(start, slice, cuts);
                    assert_eq!(
                        all.stack, one.stack,
                        "start {start} len {len} cuts {cuts:?}"
                    );
                    assert_eq!(all.next(), one.next());
                }
            }
        }
    }

    #[test]
    fn subtrees_give_every_prefix_root() {
        let leaves: Vec<[u8; 32]> = (0..300u32).map(|i| leaf_hash(&i.to_be_bytes())).collect();
        let t = Subtrees::new(leaves.clone());
        for m in 0..=leaves.len() {
            assert_eq!(t.root(m), Some(root(&leaves[..m])), "m = {m}");
        }
        assert_eq!(t.root(301), None);
        let big: Vec<[u8; 32]> = (0..70_001u32)
            .map(|i| leaf_hash(&i.to_be_bytes()))
            .collect();
        let t = Subtrees::new(big.clone());
        for m in [1, 2, 65_536, 65_537, 70_000, 70_001] {
            assert_eq!(t.root(m), Some(root(&big[..m])), "m = {m}");
        }
        assert_eq!(Subtrees::new(Vec::new()).root(0), Some(root(&[])));
    }

    #[test]
    fn aligned_runs_joined_give_every_root_at_the_cuts() {
        let leaves: Vec<[u8; 32]> = (0..300u32).map(|i| leaf_hash(&i.to_be_bytes())).collect();
        let cuts = [1u64, 5, 64, 100, 129, 255, 256, 300];
        for block in [1usize, 2, 3, 7, 64, 100, 300] {
            let mut tree = RootBuilder::new();
            let mut single = RootBuilder::new();
            let mut seen = Vec::new();
            for (k, chunk) in leaves.chunks(block).enumerate() {
                let mut run = AlignedRun::new((k * block) as u64);
                for l in chunk {
                    run.push(*l, &cuts);
                    single.push(*l);
                }
                for (h, x) in run.subtrees() {
                    assert!(tree.push_subtree(h, x), "block {block}: misaligned");
                    if cuts.contains(&tree.len()) {
                        seen.push((tree.len(), tree.root()));
                    }
                }
                assert_eq!(tree.root(), single.root(), "block {block}");
            }
            let want: Vec<(u64, [u8; 32])> = cuts
                .iter()
                .map(|&c| (c, root(&leaves[..c as usize])))
                .collect();
            assert_eq!(seen, want, "block {block}");
        }
        let mut t = RootBuilder::new();
        t.push(leaves[0]);
        assert!(!t.push_subtree(1, leaves[1]));
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn subtrees_give_the_same_proofs_as_slices() {
        let leaves: Vec<[u8; 32]> = (0..70u32).map(|i| leaf_hash(&i.to_be_bytes())).collect();
        let t = Subtrees::new(leaves.clone());
        for n in 0..=leaves.len() {
            for m in 0..=n {
                let sliced = consistency_proof(&leaves[..n], m);
                assert_eq!(t.consistency_proof(m, n), sliced, "consistency {m} -> {n}");
                if let Some(p) = sliced {
                    let (a, b) = (root(&leaves[..m]), root(&leaves[..n]));
                    assert_eq!(check_consistency(m as u64, n as u64, &a, &b, &p), Ok(()));
                }
                if m < n {
                    assert_eq!(
                        t.inclusion_proof(m, n),
                        inclusion_proof(&leaves[..n], m),
                        "inclusion {m} in {n}"
                    );
                }
            }
        }
        for n in 1..=leaves.len() {
            for m in 1..=n {
                let by_ranges: Vec<[u8; 32]> = consistency_ranges(m as u64, n as u64)
                    .unwrap()
                    .iter()
                    .map(|&(lo, hi)| root(&leaves[lo as usize..hi as usize]))
                    .collect();
                assert_eq!(
                    Some(by_ranges),
                    consistency_proof(&leaves[..n], m),
                    "{m} -> {n}"
                );
            }
        }
        assert_eq!(consistency_ranges(0, 5), None);
        assert_eq!(consistency_ranges(6, 5), None);
        assert_eq!(t.consistency_proof(3, 71), None);
        assert_eq!(t.inclusion_proof(70, 70), None);
    }
}

/// The RFC 6962 tree hash of a growing list of leaves, kept as its perfect subtrees (at most
/// log2 n hashes): push leaves one by one, ask the root of what was pushed so far at any time.
/// Memory is O(log n) whatever the number of leaves.
#[derive(Debug, Clone, Default)]
pub struct RootBuilder {
    /// (height, hash) of the perfect subtrees, left to right, heights strictly decreasing.
    stack: Vec<(u32, [u8; 32])>,
    len: u64,
}

impl RootBuilder {
    pub fn new() -> RootBuilder {
        RootBuilder::default()
    }

    /// Leaves pushed so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Add the next leaf hash.
    pub fn push(&mut self, leaf: [u8; 32]) {
        let mut cur = (0u32, leaf);
        while let Some(&(h, left)) = self.stack.last() {
            if h != cur.0 {
                break;
            }
            self.stack.pop();
            cur = (h + 1, node_hash(&left, &cur.1));
        }
        self.stack.push(cur);
        self.len += 1;
    }

    /// Add the `2^height` leaves whose tree hash is `hash` at once (as pushing them one by one
    /// would). Only a subtree aligned at a multiple of its size can be added: `false` (nothing
    /// done) when the leaves pushed so far are not a multiple of `2^height`.
    pub fn push_subtree(&mut self, height: u32, hash: [u8; 32]) -> bool {
        if height >= 63 || !self.len.is_multiple_of(1u64 << height) {
            return false;
        }
        let mut cur = (height, hash);
        while let Some(&(h, left)) = self.stack.last() {
            if h != cur.0 {
                break;
            }
            self.stack.pop();
            cur = (h + 1, node_hash(&left, &cur.1));
        }
        self.stack.push(cur);
        self.len += 1u64 << height;
        true
    }

    /// The tree hash of the leaves pushed so far (the hash of the empty string for none).
    pub fn root(&self) -> [u8; 32] {
        let mut it = self.stack.iter().rev();
        let Some(&(_, mut acc)) = it.next() else {
            return root(&[]);
        };
        for (_, left) in it {
            acc = node_hash(left, &acc);
        }
        acc
    }
}

/// A run of consecutive leaves, starting at absolute position `start` of the log, folded into
/// perfect subtrees that are each aligned at a multiple of their size and never span one of
/// `cuts` (a subtree over `a..b` holds no cut `c` with `a < c < b`). Pushing them in order into a
/// [`RootBuilder`] that holds the `start` leaves before gives what pushing every leaf would, and
/// it holds exactly the first `c` leaves at each cut `c` on the way (so its root there is the
/// tree hash of that prefix). Memory is O(log n) hashes; a checking thread builds its block's
/// part of the tree this way, and the thread joining the blocks only combines a few subtrees.
#[derive(Debug, Clone)]
pub struct AlignedRun {
    /// (height, start, hash), left to right.
    stack: Vec<(u32, u64, [u8; 32])>,
    next: u64,
}

impl AlignedRun {
    /// A run starting at leaf position `start`.
    pub fn new(start: u64) -> AlignedRun {
        AlignedRun {
            stack: Vec::new(),
            next: start,
        }
    }

    /// Position of the next leaf.
    pub fn next(&self) -> u64 {
        self.next
    }

    /// Add the next leaf; `cuts` sorted ascending.
    pub fn push(&mut self, leaf: [u8; 32], cuts: &[u64]) {
        let mut cur = (0u32, self.next, leaf);
        while let Some(&(h, start, left)) = self.stack.last() {
            // Merge two equal neighbours only into an aligned subtree that spans no cut.
            if h != cur.0
                || h >= 62
                || !start.is_multiple_of(1u64 << (h + 1))
                || cuts.binary_search(&cur.1).is_ok()
            {
                break;
            }
            self.stack.pop();
            cur = (h + 1, start, node_hash(&left, &cur.2));
        }
        self.stack.push(cur);
        self.next += 1;
    }

    /// The run of `leaves` starting at position `start`, all at once: what pushing them one by
    /// one ([`AlignedRun::push`]) gives, with the node hashes computed side by side
    /// ([`pair_hashes`]). Each subtree is the largest one aligned at its start that fits and
    /// holds no cut inside (the shape `push` builds).
    pub fn from_leaves(start: u64, leaves: &[[u8; 32]], cuts: &[u64]) -> AlignedRun {
        Self::from_leaves_in(start, leaves, cuts, &mut Vec::new(), &mut Vec::new())
    }

    /// [`AlignedRun::from_leaves`] with the buffers of the subtrees' levels given (reused from
    /// block to block by the caller).
    pub fn from_leaves_in(
        start: u64,
        leaves: &[[u8; 32]],
        cuts: &[u64],
        a: &mut Vec<[u8; 32]>,
        b: &mut Vec<[u8; 32]>,
    ) -> AlignedRun {
        let end = start + leaves.len() as u64;
        let mut stack = Vec::new();
        let mut pos = start;
        while pos < end {
            let mut h = 0u32;
            while h < 62 {
                let size = 1u64 << (h + 1);
                let next = cuts.partition_point(|&c| c <= pos);
                let cut_inside = cuts.get(next).is_some_and(|&c| c < pos + size);
                if !pos.is_multiple_of(size) || pos + size > end || cut_inside {
                    break;
                }
                h += 1;
            }
            let from = (pos - start) as usize;
            let size = 1usize << h;
            let hash = perfect_root(&leaves[from..from + size], a, b);
            stack.push((h, pos, hash));
            pos += size as u64;
        }
        AlignedRun { stack, next: end }
    }

    /// The subtrees, left to right: (height, hash).
    pub fn subtrees(&self) -> impl Iterator<Item = (u32, [u8; 32])> + '_ {
        self.stack.iter().map(|&(h, _, x)| (h, x))
    }
}
