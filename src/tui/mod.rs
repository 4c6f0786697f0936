//! Board-side terminal UI.
pub fn cmd_play(_a: &crate::cli::PlayArgs) -> std::process::ExitCode {
    crate::cli::fail(70, "play: not built yet")
}
