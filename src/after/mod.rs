//! After the game (SHELL): the committee report's files, the rule-13 archive of the machine's
//! logs into the game log.
pub mod archive; // engine-log and program copies in, SHA256SUMS out (rule 13)
pub mod postgame; // rule 13 archive into the game log, PGN export
pub mod report_io; // reads the log and the verifier's verdict for the report, writes it 0600
