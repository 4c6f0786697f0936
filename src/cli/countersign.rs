//! `arbiter countersign`: a camp countersigns a checkpoint (by default the latest), as both
//! players sign the scoresheet — with its own key here, or with a signature it made with stock
//! OpenSSH on its own laptop or hardware key, or through the ssh-agent that holds its key.
use std::path::PathBuf;

use clap::Args;

use super::MatchArg;
use crate::error::{Error, Exit};
use crate::record::witness::{
    CosignSource, DeclarationAct, camp_declaration, countersign_checkpoint, countersign_index,
};

#[derive(Debug, Clone, Args)]
pub struct CountersignArgs {
    #[command(flatten)]
    pub m: MatchArg,
    /// Game number (default: the last game).
    #[arg(long, value_parser = super::game_number)]
    pub game: Option<u32>,
    /// The camp, as declared in line 0 (`arbiter declare camp NAME KEY`).
    #[arg(long)]
    pub camp: String,
    /// The checkpoint to countersign, by its entry count (default: the latest).
    #[arg(long, value_name = "N")]
    pub checkpoint: Option<u64>,
    /// Sign here with the camp's Ed25519 private key file.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["signature", "public", "agent"],
        required_unless_present_any = ["signature", "public", "agent"]
    )]
    pub key: Option<PathBuf>,
    /// Sign through the ssh-agent at `SSH_AUTH_SOCK`, which holds the camp's declared key
    /// (the key can stay in an agent under another account or on a hardware key).
    #[arg(long, conflicts_with_all = ["key", "signature", "public", "declaration", "passphrase_env"])]
    pub agent: bool,
    /// The key's passphrase from this environment variable (default: asked on the terminal).
    #[arg(long, value_name = "VAR")]
    pub passphrase_env: Option<String>,
    /// A signature made with `ssh-keygen -Y sign -n arbiter-kit-countersign@v1` (stock OpenSSH).
    #[arg(long, value_name = "FILE", conflicts_with = "public")]
    pub signature: Option<PathBuf>,
    /// The camp's own declaration instead of a checkpoint (proof of possession of its key,
    /// before the game): with --key, print the proof; with --public KEY.pub, print the text to
    /// sign with `ssh-keygen -Y sign -n arbiter-kit-camp-key@v1`; with --signature, check a proof.
    #[arg(long, conflicts_with_all = ["checkpoint", "game", "index"])]
    pub declaration: bool,
    /// The match index instead of a checkpoint (after each game): it is kept as
    /// `DIR/index/<version>.txt` with the countersignature beside it; note the match code printed.
    #[arg(long, conflicts_with_all = ["checkpoint", "game", "public"])]
    pub index: bool,
    /// With --key or --agent: sign without asking y/n after the list of what is signed (a script).
    #[arg(long)]
    pub yes: bool,
    /// With --declaration: the camp's public key whose declaration text to print.
    #[arg(long, value_name = "KEY.pub", requires = "declaration")]
    pub public: Option<PathBuf>,
}

pub fn run(a: &CountersignArgs) -> Result<Exit, Error> {
    if a.declaration {
        let act = match (&a.key, &a.signature, &a.public) {
            (_, _, Some(public)) => DeclarationAct::Statement(public.clone()),
            (_, Some(sig), None) => DeclarationAct::Check(sig.clone()),
            (Some(file), None, None) => DeclarationAct::Sign(CosignSource::Key {
                file: file.clone(),
                passphrase_env: a.passphrase_env.clone(),
            }),
            (None, None, None) => {
                return Err(Error::bad_input(
                    "give --key FILE, --public KEY.pub or --signature FILE",
                ));
            }
        };
        let text = camp_declaration(&a.m.dir, &a.camp, &act).map_err(Error::refused)?;
        out!("{text}")?;
        return Ok(Exit::Ok);
    }
    let source = |a: &CountersignArgs| match (&a.key, &a.signature) {
        _ if a.agent => Ok(CosignSource::Agent),
        (_, Some(sig)) => Ok(CosignSource::Signature(sig.clone())),
        (Some(file), None) => Ok(CosignSource::Key {
            file: file.clone(),
            passphrase_env: a.passphrase_env.clone(),
        }),
        (None, None) => Err(Error::bad_input(
            "give --key FILE, --agent or --signature FILE",
        )),
    };
    if a.index {
        let (path, code) =
            countersign_index(&a.m.dir, &a.camp, &source(a)?).map_err(Error::refused)?;
        outln!(
            "match index countersigned by camp {}: {}; note the match code {code} (arbiter verify --code {code})",
            a.camp,
            path.display()
        )?;
        return Ok(Exit::Ok);
    }
    let game = a.m.game_or_last(a.game)?;
    let source = match (&a.key, &a.signature) {
        _ if a.agent => CosignSource::Agent,
        (_, Some(sig)) => CosignSource::Signature(sig.clone()),
        (Some(file), None) => CosignSource::Key {
            file: file.clone(),
            passphrase_env: a.passphrase_env.clone(),
        },
        (None, None) => {
            return Err(Error::bad_input(
                "give --key FILE, --agent or --signature FILE",
            ));
        }
    };
    // What the camp signs, shown before it signs (the result, both clocks, every
    // correction and ruling since its last countersignature).
    let size = a
        .checkpoint
        .or_else(|| crate::record::witness::latest_checkpoint(&a.m.dir, game).map(|c| c.size));
    if let Some(size) = size {
        for line in what_is_signed(&a.m.dir, game, size, &a.camp) {
            outln!("{line}")?;
        }
    }
    // Signing here with the camp's key: the camp confirms what it was shown first.
    if matches!(source, CosignSource::Key { .. } | CosignSource::Agent) && !a.yes {
        confirm(&a.camp, &mut std::io::stdin().lock())?;
    }
    let (path, fp) = countersign_checkpoint(&a.m.dir, game, a.checkpoint, &a.camp, &source)
        .map_err(Error::refused)?;
    outln!(
        "countersigned by camp {} ({fp}): {}",
        a.camp,
        path.display()
    )?;
    Ok(Exit::Ok)
}

/// Ask camp `camp` y/n on standard output, reading its answer from `input`: anything but `y`
/// or `yes` (an empty line, the input closed) signs nothing.
fn confirm(camp: &str, input: &mut impl std::io::BufRead) -> Result<(), Error> {
    use std::io::Write;
    out!("sign this for camp {camp}? [y/n] ")?;
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    let read = input.read_line(&mut answer);
    match (read, answer.trim().to_lowercase().as_str()) {
        (Ok(_), "y" | "yes") => Ok(()),
        (Ok(0), _) | (Err(_), _) => Err(Error::refused(format!(
            "not countersigned: no answer to the question (the input closed); answer y to sign, or give --yes to sign what is listed without asking (camp {camp})"
        ))),
        (Ok(_), other) => Err(Error::refused(format!(
            "not countersigned: camp {camp} answered '{other}', not y: nothing written"
        ))),
    }
}

/// Entries that start, stop or change a clock whoever records them (the supervisor's 8a stop of
/// the machine's clock, a power failure, a restart gap): a camp sees each before it signs.
const MOVES_A_CLOCK: [&str; 12] = [
    "clock_stopped",
    "clock_resumed",
    "info_stopped",
    "info_resumed",
    "power_failed",
    "power_restored",
    "clock_corrected",
    "internal_clock_corrected",
    "restart_gap",
    "adjourned",
    "adjournment_resumed",
    "moves_taken_back",
];

/// What camp `camp` signs when it countersigns checkpoint `size` of game `game`: the result,
/// both clocks at the checkpoint's last entry, and every entry by the arbiter or the committee
/// (corrections, rulings, voids, results) and every entry that stopped, resumed or changed a
/// clock, whoever recorded it, since the camp's last countersignature. Empty when
/// the log cannot be read (the countersignature's own checks then say why).
pub fn what_is_signed(dir: &std::path::Path, game: u32, size: u64, camp: &str) -> Vec<String> {
    use crate::core::Side;
    let log = crate::record::layout::log_path(dir, game);
    let cps = crate::record::layout::checkpoints_dir(dir, game);
    let since = std::fs::read_dir(&cps)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_owned();
            let (n, c) = crate::log::cosign::parse_file_name(&name).ok()?;
            (c == camp && n < size).then_some(n)
        })
        .max();
    let mut events = Vec::new();
    let mut acts = Vec::new();
    let mut last_at = 0;
    let read = crate::record::journal::for_each_entry(&log, |e| {
        if e.seq >= size {
            return false;
        }
        if e.seq >= since.unwrap_or(1)
            && e.seq > 0
            && (e.actor == "arbiter"
                || e.actor == "committee"
                || MOVES_A_CLOCK.contains(&e.kind.as_str()))
            && !crate::record::witness::WITNESS_NEUTRAL.contains(&e.kind.as_str())
        {
            acts.push(format!(
                "  #{} {} (clause {}) {}",
                e.seq, e.kind, e.clause, e.body
            ));
        }
        last_at = e.mono_ms;
        match crate::log::codec::event_of(&e) {
            Ok(ev) => {
                events.push(ev);
                true
            }
            Err(_) => false,
        }
    });
    let Ok(read_n) = read else {
        return Vec::new();
    };
    let Ok(g) = crate::core::game::Game::replay(&events) else {
        return Vec::new();
    };
    let result = match g.outcome() {
        Some(o) => format!("{} ({:?}) {}", o.score.text(), o.termination, o.detail),
        None => "none yet (the game is not finished)".into(),
    };
    let clock = |s: Side| crate::core::timefmt::clock(g.remaining(s, last_at));
    let mut out = vec![
        format!(
            "camp {camp} countersigns game {game}, checkpoint {size} ({} entries read):",
            read_n.min(size)
        ),
        format!("  result: {result}"),
        format!(
            "  clocks: White {}, Black {}",
            clock(Side::White),
            clock(Side::Black)
        ),
        format!(
            "  stops, clock changes, arbiter and committee entries since {}: {}",
            since.map_or_else(
                || "the start (no earlier countersignature)".to_owned(),
                |n| format!("its countersignature of checkpoint {n}")
            ),
            if acts.is_empty() { "none" } else { "" }
        ),
    ];
    out.extend(acts);
    out
}
