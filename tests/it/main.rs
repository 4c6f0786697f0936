//! The one integration-test binary: each module drives one part of the kit.
mod pty;
mod screens;
mod tui_keys;
mod tui_support;
