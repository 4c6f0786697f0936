//! The one integration-test binary: each module drives one part of the kit.
mod log_format;
mod log_interop;
mod log_journal;
mod log_tamper;
mod log_util;
mod log_verify;
