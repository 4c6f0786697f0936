//! Engine-log and program archive (rules 13a, 13c, 13d).
pub fn cmd_archive(_a: &crate::cli::ArchiveArgs) -> std::process::ExitCode {
    crate::cli::fail(70, "archive: not built yet")
}
