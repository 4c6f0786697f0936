//! `arbiter completions SHELL` and `arbiter man`: shell completions and the manual page, both
//! generated from the clap definitions of this binary (clap_complete, clap_mangen), so they never
//! drift from the command line they describe.
use clap::{Args, CommandFactory};

use super::Cli;
use crate::error::{Error, Exit};

#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Clone, Args)]
pub struct ManArgs {}

pub fn completions(a: &CompletionsArgs) -> Result<Exit, Error> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "arbiter", &mut buf);
    emit_bytes(&buf)
}

/// The manual page (roff) of `arbiter` and its subcommands, in one page.
pub fn man(_: &ManArgs) -> Result<Exit, Error> {
    let cmd = Cli::command();
    let mut buf = Vec::new();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(&mut buf).map_err(Error::write_failed)?;
    man.render_name_section(&mut buf)
        .map_err(Error::write_failed)?;
    man.render_synopsis_section(&mut buf)
        .map_err(Error::write_failed)?;
    man.render_description_section(&mut buf)
        .map_err(Error::write_failed)?;
    man.render_subcommands_section(&mut buf)
        .map_err(Error::write_failed)?;
    for sub in cmd.get_subcommands() {
        let name = sub.get_name();
        let page = clap_mangen::Man::new(sub.clone().bin_name(format!("arbiter {name}")));
        buf.extend_from_slice(format!(".SH \"ARBITER {}\"\n", name.to_uppercase()).as_bytes());
        page.render_synopsis_section(&mut buf)
            .map_err(Error::write_failed)?;
        page.render_description_section(&mut buf)
            .map_err(Error::write_failed)?;
        page.render_options_section(&mut buf)
            .map_err(Error::write_failed)?;
    }
    buf.extend_from_slice(EXIT_STATUS.as_bytes());
    man.render_version_section(&mut buf)
        .map_err(Error::write_failed)?;
    emit_bytes(&buf)
}

/// The exit codes, as README's table gives them.
const EXIT_STATUS: &str = ".SH \"EXIT STATUS\"
0 success; 1 a command refused by the rules; 2 a malformed command line; 65 bad input;
66 a file that cannot be read; 70 not available (the game is held by, or was opened first by,
another board or script); 74 the log or an output could not be written (standard output
included). arbiter verify: 10 unsigned tail, 11 recovered, 12 unwitnessed, 20 bad line,
21 truncated, 22 bad checkpoint, 23 bad proof, 24 not covered, 25 bad binding, 26 rolled back,
3 unreadable.
";

fn emit_bytes(buf: &[u8]) -> Result<Exit, Error> {
    super::emit(&String::from_utf8_lossy(buf))?;
    Ok(Exit::Ok)
}
