//! The game log on disk: append + fdatasync, lock, torn-tail repair.
