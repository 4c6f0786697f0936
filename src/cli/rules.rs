//! `arbiter rules list|show NAME`: the rules profiles compiled into the binary.
use clap::{Args, Subcommand};

use crate::error::{Error, Exit};

#[derive(Debug, Clone, Args)]
pub struct RulesArgs {
    #[command(subcommand)]
    pub what: RulesCommand,
}

#[derive(Debug, Clone, Subcommand)]
pub enum RulesCommand {
    /// List the bundled profiles: name, the profile's own name, SHA-256 of its text.
    List,
    /// Print a bundled profile's TOML (save it, edit it, give it back with --rules FILE).
    Show {
        /// The profile's name, as `arbiter rules list` prints it.
        name: String,
    },
}

pub fn run(a: &RulesArgs) -> Result<Exit, Error> {
    match &a.what {
        RulesCommand::List => {
            for name in crate::bundled::names() {
                let Some((file, text)) = crate::bundled::get(name) else {
                    continue;
                };
                // A werewolf table's profile (`game = "werewolf"`) or a board game's.
                let title = if crate::core::werewolf::is_werewolf(text) {
                    crate::core::werewolf::Profile::parse(text)
                        .map(|p| p.profile.name)
                        .unwrap_or_else(|e| format!("(does not parse: {e})"))
                } else {
                    crate::core::rules::Profile::parse(&file, text)
                        .map(|p| p.profile.name)
                        .unwrap_or_else(|e| format!("(does not parse: {e})"))
                };
                let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(text.as_bytes()));
                outln!("{name}\t{title}\tsha256 {sha}")?;
            }
        }
        RulesCommand::Show { name } => {
            let Some((_, text)) = crate::bundled::get(name.strip_suffix(".toml").unwrap_or(name))
            else {
                let names: Vec<&str> = crate::bundled::names().collect();
                return Err(Error::bad_input(format!(
                    "no bundled rules profile {name:?} (bundled: {})",
                    names.join(", ")
                )));
            };
            out!("{text}")?;
        }
    }
    Ok(Exit::Ok)
}
