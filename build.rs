//! Embeds every bundled rules profile (`rules/*.toml`) in the binary: writes
//! `$OUT_DIR/bundled_rules.rs`, one `(name, text)` pair per file, each through `include_str!`,
//! so a new profile dropped into `rules/` is picked up without a list to keep (`src/bundled.rs`).
use std::io::Write;
use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let rules = root.join("rules");
    println!("cargo:rerun-if-changed={}", rules.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&rules)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    let mut f = std::fs::File::create(out.join("bundled_rules.rs"))?;
    writeln!(
        f,
        "/// Every `rules/*.toml` of the source tree, by name, sorted."
    )?;
    writeln!(f, "pub const BUNDLED: &[(&str, &str)] = &[")?;
    for p in &files {
        println!("cargo:rerun-if-changed={}", p.display());
        let name = p
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        writeln!(
            f,
            "    ({name:?}, include_str!({:?})),",
            p.display().to_string()
        )?;
    }
    writeln!(f, "];")?;
    Ok(())
}
