//! The record every game family shares (SHELL): the journal, keys and signatures, checkpoints,
//! the match index, policy and countersignatures, and the committee's checks. It knows no game's
//! shell (neither the board, the table nor what comes after the game); each family brings its
//! replay through the pure layers.
pub mod fsio; // FIFOs, devices, folders and symlinks refused at once; bounded reads
pub mod journal; // append + fdatasync, lock, torn-tail repair, the one log reader
pub mod layout; // where things live in a match folder
pub mod live; // `arbiter live` (the live record, listening) and `arbiter witness` (a camp's own copy and cosignatures)
pub mod sign; // arbiter keys, OpenSSH SSHSIG checkpoints
pub mod verify; // the committee's checks behind `arbiter verify` / `arbiter prove`
pub mod witness; // signed match index, pinned trust, bindings, countersignatures
