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
