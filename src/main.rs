//! Thin shell: parse the command line, run it, map the outcome to an exit code.
use std::io::Write;
use std::process::ExitCode;

use arbiter::cli::{self, Cli};
use clap::Parser;

fn main() -> ExitCode {
    match cli::run(Cli::parse()) {
        Ok(done) => ExitCode::from(done.code()),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "arbiter: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
