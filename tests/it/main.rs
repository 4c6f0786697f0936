//! The one integration-test binary: each module drives one part of the kit.
mod archive_copies;
mod crash;
mod engine_coverage;
mod engine_props;
mod fixture;
mod log_format;
mod log_interop;
mod log_journal;
mod log_tamper;
mod log_util;
mod log_verify;
mod pgn_support;
mod pgn_write;
mod report_model;
mod report_render;
mod report_support;
