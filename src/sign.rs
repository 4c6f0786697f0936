//! Arbiter keys and SSHSIG checkpoints.
pub fn cmd_keygen(_a: &crate::cli::KeygenArgs) -> std::process::ExitCode {
    crate::cli::fail(70, "keygen: not built yet")
}
