//! The pure match core.
