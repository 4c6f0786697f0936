//! RFC 6962 / RFC 9162 Merkle tree hash, inclusion proofs and their verification.
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
}
