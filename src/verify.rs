//! Committee verification.
pub fn cmd_verify(_a: &crate::cli::VerifyArgs) -> std::process::ExitCode {
    crate::cli::fail(70, "verify: not built yet")
}
pub fn cmd_prove(_a: &crate::cli::ProveArgs) -> std::process::ExitCode {
    crate::cli::fail(70, "prove: not built yet")
}
