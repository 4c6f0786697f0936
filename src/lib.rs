//! `arbiter`: the match-arbiter kit for a human-vs-engine chess match run under the
//! Kasparov vs Deep Junior 2003 rules. Module map (pure modules never read a clock or a file):
pub mod archive; // SHELL: engine-log and program copies in, SHA256SUMS out (rule 13)
pub mod cli; // CLI: clap arguments, one file per subcommand; main.rs maps the outcome to an exit code
pub mod core; // PURE: rules profiles, clock, chess, decide/evolve, script parser, view
pub mod enginelog; // PURE: UCI / CECP engine-log parsing and rule-13c coverage
pub mod error; // the one exit-code table and the error the CLI layer reports
pub mod journal; // SHELL: append + fdatasync, lock, torn-tail repair, read
pub mod layout; // SHELL: where things live in a match folder
pub mod log; // PURE: byte format of the game log, chain hash, Merkle tree, checkpoint text
pub mod matchdir; // SHELL: match folders: open or create games with journal and key, restart, checkpoints
pub mod postgame; // SHELL: rule 13 archive into the game log, PGN export
pub mod report; // PURE+SHELL: committee report (HTML/SVG/Markdown) and PGN
pub mod session; // glue: now -> decide -> append -> evolve; script runner; match folders
pub mod sign; // SHELL: arbiter keys, OpenSSH SSHSIG checkpoints
pub mod tui; // SHELL: the board-side terminal UI
pub mod verify; // SHELL: `arbiter verify` / `arbiter prove` for the committee
