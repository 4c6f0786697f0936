//! `arbiter`: the match-arbiter kit for contests between humans and machines: the
//! Kasparov vs Deep Junior 2003 chess match and its kin, the Denryu-sen shogi match, and the AI
//! Werewolf contest's table.
//!
//! # Layers
//!
//! From the bottom up; a layer may use the layers below it, never one above. Each rule is checked
//! by `tests/it/layers.rs`.
//!
//! 1. **core** (PURE) — rules profiles, clock, chess, shogi and the werewolf table, decide/evolve,
//!    script parser, view. Reads no clock and no file; uses no other layer.
//! 2. **log**, **enginelog** (PURE) — the byte format of the game log, chain, Merkle tree,
//!    checkpoint text, the Entry ↔ Event codec; engine-log parsing and 13c coverage. Read no clock
//!    and no file (they are handed bytes and readers); use only the core.
//! 3. **report** (PURE) — the committee report's model and its renderings, the werewolf game's
//!    re-run and the contest's own files. Reads no clock and no file; uses only the layers below.
//! 4. **shell**, grouped by who uses it — files, clocks, keys, sockets and the terminal. Returns
//!    typed errors; knows nothing of clap, prints no `arbiter: …` message and picks no exit code.
//!    - **record** — the record every game family shares: journal, keys and signatures,
//!      checkpoints, index, policy and countersignatures, the committee's checks, and the live
//!      record a camp's witness follows (`live` listens; `witness`, run on a camp's own machine,
//!      connects to it). Knows no game's shell: uses neither the board, the table nor what comes
//!      after the game.
//!    - **board** — the two-sided board games at the board: the Board UI, the match folder's games,
//!      the session, the audience's display, the live relay and the follower they read with.
//!    - **table** — the werewolf table: the game server (the one command that listens for seats)
//!      and a human's seat (run on the player's machine; it connects to the table). Uses neither the board
//!      nor the CLI; the board does not use it.
//!    - **after** — after the game: the committee report's files, the rule-13 archive. Uses the
//!      record and the board's replay; the board and the table never use it.
//!    - **bundled** — the rules profiles compiled in.
//! 5. **cli** (and `main.rs`) — the only layer that knows clap. Turns arguments into the shell's
//!    plain types once, prints results and `arbiter: …` messages, and maps every outcome to an
//!    exit code through the one table in [`error`].
//!
//! [`error`] stands between the last two: its `Error` carries the shell's typed errors to the CLI
//! layer, and its `Exit::code` is the only place an outcome becomes a number.
pub mod after; // SHELL: after the game: report files, rule-13 archive
pub mod board; // SHELL: the board games: Board UI, match folder's games, session, display, relay
pub mod bundled; // SHELL: every rules/*.toml compiled in; --rules FILE overrides
pub mod cli; // CLI: clap arguments, one file per subcommand; main.rs maps the outcome to an exit code
pub mod core; // PURE: rules profiles, clock, chess, shogi, the werewolf table, decide/evolve, view
pub mod enginelog; // PURE: UCI / CECP engine-log parsing and rule-13c coverage
pub mod error; // the one exit-code table and the error the CLI layer reports
pub mod log; // PURE: byte format of the game log, chain hash, Merkle tree, checkpoint text, codec
pub mod record; // SHELL: the record every game shares: journal, keys, checkpoints, index, verify, live
pub mod report; // PURE: committee report (HTML/SVG/Markdown), PGN, the werewolf game's files
pub mod table; // SHELL: the werewolf table: `arbiter serve`'s server and game loop, a human's seat
