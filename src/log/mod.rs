//! Byte format of the game log.
