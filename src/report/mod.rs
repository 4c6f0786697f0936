//! Committee report and PGN.
pub mod pgn;

pub fn cmd_report(_a: &crate::cli::ReportArgs) -> std::process::ExitCode {
    crate::cli::fail(70, "report: not built yet")
}
pub fn cmd_pgn(_a: &crate::cli::PgnArgs) -> std::process::ExitCode {
    crate::cli::fail(70, "pgn: not built yet")
}
