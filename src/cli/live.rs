//! `arbiter live`: the live record, read-only, for the camps' witnesses (`arbiter witness`):
//! it listens on the address given (loopback by default) and never connects anywhere.
use std::sync::Arc;

use clap::Args;

use super::MatchArg;
use crate::error::{Error, Exit, FileError};

#[derive(Debug, Clone, Args)]
pub struct LiveArgs {
    #[command(flatten)]
    pub m: MatchArg,
    /// Where to listen (HOST:PORT; port 0 picks a free one). Loopback by default: give the
    /// address of the network the camps' machines are on to let them connect.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8090")]
    pub listen: String,
}

pub fn run(a: &LiveArgs) -> Result<Exit, Error> {
    if !a.m.dir.is_dir() {
        return Err(Error::cannot_read(format!(
            "{}: no match folder there",
            a.m.dir.display()
        )));
    }
    let listener = crate::record::live::server::bind(&a.listen)
        .map_err(FileError::of("listen on", std::path::Path::new(&a.listen)))
        .map_err(Error::unavailable)?;
    let addr = listener
        .local_addr()
        .map_err(FileError::of("listen on", std::path::Path::new(&a.listen)))
        .map_err(Error::unavailable)?;
    outln!(
        "listening on ws://{addr}{} (the live record of {}, read-only; camps connect with arbiter witness --connect)",
        crate::record::live::PATH,
        a.m.dir.display()
    )?;
    let say: crate::record::live::server::Say = Arc::new(|s: &str| {
        let _ = outln!("{s}");
    });
    crate::record::live::server::serve(listener, a.m.dir.clone(), say);
    Ok(Exit::Ok)
}
