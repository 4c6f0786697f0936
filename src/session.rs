//! Session glue.
pub fn cmd_script(_a: &crate::cli::ScriptArgs) -> std::process::ExitCode {
    crate::cli::fail(70, "script: not built yet")
}
pub fn cmd_status(_a: &crate::cli::StatusArgs) -> std::process::ExitCode {
    crate::cli::fail(70, "status: not built yet")
}
pub fn cmd_checkpoint(_a: &crate::cli::CheckpointArgs) -> std::process::ExitCode {
    crate::cli::fail(70, "checkpoint: not built yet")
}
