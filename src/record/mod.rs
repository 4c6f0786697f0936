//! The record every game family shares (SHELL): the journal, keys and signatures, checkpoints,
//! the match index, policy and countersignatures, and the committee's checks. It knows no game's
//! shell (neither the board, the table nor what comes after the game); each family brings its
//! replay through the pure layers.
pub mod agent; // `--agent`: signing through the ssh-agent at SSH_AUTH_SOCK (a local Unix socket)
pub mod bindings; // arbiter-only entries bound by signed authorizations; `arbiter authorize`
pub mod countersign; // the camps' countersignatures and declarations
pub mod facts; // what the checks need from a log, in one streaming pass
pub mod foreign; // `arbiter foreign`
pub mod fsio; // FIFOs, devices, folders and symlinks refused at once; bounded reads
pub mod index; // the signed match index and its countersigned copies
pub mod journal; // append + fdatasync, lock, torn-tail repair, the one log reader
pub mod layout; // where things live in a match folder
pub mod live; // `arbiter live` (the live record, listening) and `arbiter witness` (a camp's own copy and cosignatures)
pub mod policy; // the signed match policy
pub mod proof; // consistency proofs between checkpoints
pub mod seal_v1; // the per-entry seal of `seal/1` logs
pub mod sign; // arbiter keys, OpenSSH SSHSIG checkpoints
pub mod verify; // the committee's checks behind `arbiter verify` / `arbiter prove`
pub mod witness; // the checks `verify` adds to each game's chain verdict; re-exports the above
