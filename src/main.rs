//! Thin shell: parse the command line, run it, map the outcome to an exit code.
use std::io::Write;
use std::process::ExitCode;

use arbiter::cli::{self, Cli};
use arbiter::error::Exit;
use clap::Parser;
use clap::error::ErrorKind;

fn main() -> ExitCode {
    let parsed = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    match cli::run(parsed) {
        Ok(done) => ExitCode::from(done.code()),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "arbiter: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// What clap could not parse: `--help` and `--version` print as clap prints them (exit 0); a
/// usage error (an unknown flag, a missing argument) says `arbiter: error: …` like the kit's
/// other errors, with clap's usage line, and ends with the usage code (2).
fn usage(e: &clap::Error) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let help = e.render().to_string();
            let _ = write!(
                std::io::stderr(),
                "arbiter: error: a command is needed\n\n{help}"
            );
            ExitCode::from(Exit::Usage.code())
        }
        _ => {
            let text = e.render().to_string();
            let _ = write!(std::io::stderr(), "arbiter: {}", text.trim_start());
            ExitCode::from(Exit::Usage.code())
        }
    }
}
