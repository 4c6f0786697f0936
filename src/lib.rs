//! `arbiter`: the match-arbiter kit for a human-vs-engine chess match run under the
//! Kasparov vs Deep Junior 2003 rules.
//!
//! # Layers
//!
//! From the bottom up; a layer may use the layers below it, never one above. Each rule is checked
//! by `tests/it/layers.rs`.
//!
//! 1. **core** (PURE) — rules profiles, clock, chess, decide/evolve, script parser, view. Reads no
//!    clock and no file; uses no other layer.
//! 2. **log**, **enginelog** (PURE) — the byte format of the game log, chain, Merkle tree,
//!    checkpoint text, the Entry ↔ Event codec; engine-log parsing and 13c coverage. Read no clock
//!    and no file (they are handed bytes and readers); use only the core.
//! 3. **report** (PURE) — the committee report's model and its renderings. Reads no clock and no
//!    file; uses only the layers below it.
//! 4. **shell** — bundled, layout, fsio, journal, sign, session, matchdir, verify, witness, archive,
//!    postgame, report_io, tui, follow, display, relay, table, live: files, clocks, keys, sockets and the terminal. Returns typed errors; knows
//!    nothing of clap, prints no `arbiter: …` message and picks no exit code. Only `table` and
//!    `live` open sockets (`table` and `live::server` listen; `live::witness`, run on a camp's
//!    own machine, connects to the live record; the core uses neither).
//! 5. **cli** (and `main.rs`) — the only layer that knows clap. Turns arguments into the shell's
//!    plain types once, prints results and `arbiter: …` messages, and maps every outcome to an
//!    exit code through the one table in [`error`].
//!
//! [`error`] stands between the last two: its `Error` carries the shell's typed errors to the CLI
//! layer, and its `Exit::code` is the only place an outcome becomes a number.
pub mod archive; // SHELL: engine-log and program copies in, SHA256SUMS out (rule 13)
pub mod bundled; // SHELL: every rules/*.toml compiled in; --rules FILE overrides
pub mod cli; // CLI: clap arguments, one file per subcommand; main.rs maps the outcome to an exit code
pub mod core; // PURE: rules profiles, clock, chess, decide/evolve, script parser, view
pub mod display; // SHELL: `arbiter display`, the read-only screen for the player and the audience
pub mod enginelog; // PURE: UCI / CECP engine-log parsing and rule-13c coverage
pub mod error; // the one exit-code table and the error the CLI layer reports
pub mod follow; // SHELL: following a match folder's logs read-only as the board appends
pub mod fsio; // SHELL: FIFOs, devices, folders and symlinks refused at once; bounded reads
pub mod journal; // SHELL: append + fdatasync, lock, torn-tail repair, the one log reader
pub mod layout; // SHELL: where things live in a match folder
pub mod live; // SHELL: `arbiter live` (the live record, listening) and `arbiter witness` (a camp's copy and cosignatures)
pub mod log; // PURE: byte format of the game log, chain hash, Merkle tree, checkpoint text, codec
pub mod matchdir; // SHELL: match folders: open or create games with journal and key, restart
pub mod postgame; // SHELL: rule 13 archive into the game log, PGN export
pub mod relay; // SHELL: the live relay: a PGN file of the match so far for broadcasters
pub mod report; // PURE: committee report (HTML/SVG/Markdown), PGN
pub mod report_io; // SHELL: reads the log and the verifier's verdict for the report, writes it 0600
pub mod session; // SHELL: now -> decide -> append -> evolve; script runner
pub mod sign; // SHELL: arbiter keys, OpenSSH SSHSIG checkpoints
pub mod table; // SHELL: `arbiter serve`: the werewolf table's WebSocket server and game loop
pub mod tui; // SHELL: the board-side terminal UI
pub mod verify; // SHELL: the committee's checks behind `arbiter verify` / `arbiter prove`
pub mod witness; // SHELL: signed match index, pinned trust, bindings, countersignatures (issue 11)
