//! Thin shell: parse the command line, dispatch, map to an exit code.
use clap::Parser;

fn main() -> std::process::ExitCode {
    arbiter::cli::dispatch(arbiter::cli::Cli::parse())
}
