//! Thin shell: parse the command line, run it, map the outcome to an exit code.
use std::io::Write;
use std::process::ExitCode;

use arbiter::cli::{self, Cli};
use arbiter::error::Exit;
use clap::Parser;
use clap::error::ErrorKind;

fn main() -> ExitCode {
    // First: no core file, no /proc/PID/mem or environ for the same account, before any key or
    // passphrase is read. A failure is caught again where a key would be decrypted (refused).
    let _ = arbiter::record::sign::guard_process();
    let parsed = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    match cli::run(parsed) {
        Ok(done) => ExitCode::from(done.code()),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "arbiter: {}", printable(&e.to_string()));
            ExitCode::from(e.exit_code())
        }
    }
}

/// A message as it may reach a terminal: control characters quoted from the input (a NUL byte
/// in a script line, an escape sequence) are shown escaped (`\0`, `\u{1b}`), never sent raw;
/// line breaks and tabs stay.
fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            if c == '\0' {
                out.push_str("\\0");
            } else {
                out.extend(c.escape_default());
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// What clap could not parse: `--help` and `--version` print as clap prints them (exit 0); a
/// usage error (an unknown flag, a missing argument) says `arbiter: error: …` like the kit's
/// other errors, with clap's usage line, and ends with the usage code (2).
fn usage(e: &clap::Error) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            // The help goes to standard output: a failed write (a full device, a closed pipe)
            // is exit 74 with one line on standard error, never a silent success.
            let styled = e.render();
            let text = if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                styled.ansi().to_string()
            } else {
                styled.to_string()
            };
            match cli::emit(&text) {
                Ok(()) => ExitCode::SUCCESS,
                Err(x) => {
                    let _ = writeln!(std::io::stderr(), "arbiter: {x}");
                    ExitCode::from(x.exit_code())
                }
            }
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
