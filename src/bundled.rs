//! The rules profiles bundled with the kit (SHELL): every `rules/*.toml` of the source tree is
//! compiled into the binary (`build.rs`), so an installed `arbiter` runs a match from any folder.
//! A path given with `--rules` that exists is read as a file and overrides; a path that does not
//! exist and names a bundled profile (`rules/NAME.toml`, `NAME.toml` or `NAME`) is that profile.
use std::path::Path;

include!(concat!(env!("OUT_DIR"), "/bundled_rules.rs"));

/// The bundled profile `name` (its file name without `.toml`), as `(file name, text)`.
pub fn get(name: &str) -> Option<(String, &'static str)> {
    BUNDLED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, t)| (format!("{n}.toml"), *t))
}

/// The bundled profile a path that does not exist stands for: `rules/NAME.toml`, `NAME.toml` or
/// `NAME` (no other folder: `/etc/x/NAME.toml` is a file the user meant, and its absence an error).
pub fn for_missing_path(path: &Path) -> Option<(String, &'static str)> {
    let parent = path.parent().and_then(|p| p.to_str()).unwrap_or_default();
    if !matches!(parent, "" | "rules" | "./rules") {
        return None;
    }
    let name = path.file_name()?.to_str()?;
    get(name.strip_suffix(".toml").unwrap_or(name))
}

/// The bundled profiles' names, sorted.
pub fn names() -> impl Iterator<Item = &'static str> {
    BUNDLED.iter().map(|(n, _)| *n)
}
