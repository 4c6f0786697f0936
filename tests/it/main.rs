//! The one integration-test binary: each module drives one part of the kit.
mod archive_copies;
mod clauses; // one test per clause of the 2003 rules, given / when / then
mod clauses13;
mod crash;
mod engine_coverage;
mod engine_props;
mod faults; // injected write and fsync failures, wall-clock jumps
mod fixture;
mod fullgame;
mod fuzz; // seeded structure-aware mutation loops: no panics, no hangs
mod log_format;
mod log_interop;
mod log_journal;
mod log_tamper;
mod log_util;
mod log_verify;
mod offline;
mod pgn_support;
mod pgn_write;
mod props; // properties over random sessions: time conserved, one clock, replay, refusals // a seven-hour game to the millisecond; the example scripts
mod pty;
mod readme;
mod realgame;
mod report_model;
mod report_render;
mod report_support;
mod screens;
mod tui_keys;
mod tui_support;
