//! The one integration-test binary: each module drives one part of the kit.
mod archive_copies;
mod crash;
mod engine_coverage;
mod engine_props;
mod pgn_support;
mod pgn_write;
