//! Engine-log parsing (UCI, CECP), rule-13c coverage and the rule-6c audit of the clocks the
//! engine was given ([`clock_audit`]).
//!
//! PURE: nothing here opens a file or reads a clock. [`parse`] streams over any
//! [`std::io::BufRead`] in one pass; memory grows with the number of searches, not with the size
//! of the log: each search keeps at most one [`Iteration`] per depth (the last line reported for
//! that depth, fields merged), principal variations are capped at [`MAX_PV_MOVES`] moves, a
//! search keeps at most [`MAX_ITERATIONS`] depths, and a line longer than [`MAX_LINE_BYTES`] is
//! cut there (counted in [`EngineLog::truncated_lines`]).
//!
//! Formats recognised ([`LogFormat`]):
//! - UCI debug log: every line framed with a direction, `>> ` / `<< ` (Stockfish's
//!   `Debug Log File`) or `>Name(0): ` / `<Name(0): ` (cutechess), optionally after a time stamp;
//! - plain UCI traffic: `position ...`, `go ...`, `info depth ...`, `bestmove ...`;
//! - USI, the shogi engines' protocol (`position sfen|startpos … moves 7g7f`, `go btime … byoyomi
//!   …`, `bestmove P*5e`), framed or plain: told from UCI by what only one of them writes
//!   (`usi::betrays`); until a line does, both readers see the lines;
//! - CECP / xboard: thinking output `ply score time nodes pv` (time in centiseconds), `move e7e5`,
//!   and, when the log has the GUI's side too, `new`, `setboard`, `usermove`, `undo`, `remove`;
//! - anything else is [`LogFormat::Unknown`]: reported as such, never as an engine failure.
//!
//! The first line that only one format can produce decides the format.

mod cecp;
mod clock_audit;
mod coverage;
mod line;
mod position;
mod uci;
mod usi;

pub use clock_audit::{ClockAudit, ClockCheck, OfficialClock, clock_audit};
pub use coverage::{
    Coverage, CoverageStatus, MachineMove, MatchedBy, MoveCoverage, coverage,
    machine_moves_from_san,
};
pub use usi::{UsiPositionError, machine_moves_from_usi};

use serde::Serialize;
use std::io::BufRead;

/// Longest line kept; the rest of a longer line is skipped (and counted).
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// Most depths kept for one search; further depths are counted in [`Search::dropped_iterations`].
pub const MAX_ITERATIONS: usize = 1024;
/// Longest principal variation kept, in moves.
pub const MAX_PV_MOVES: usize = 128;

/// What kind of engine log this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogFormat {
    /// UCI with every line framed by a direction (`>> ` read by the engine, `<< ` written by it).
    UciDebug,
    /// UCI commands and engine output without direction marks.
    UciTraffic,
    /// CECP / xboard protocol and thinking output.
    Cecp,
    /// USI (shogi engines), framed with directions or not.
    Usi,
    /// Nothing recognisable: not UCI, not CECP.
    Unknown,
}

impl std::fmt::Display for LogFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LogFormat::UciDebug => "UCI debug log",
            LogFormat::UciTraffic => "UCI traffic",
            LogFormat::Cecp => "CECP/xboard log",
            LogFormat::Usi => "USI log",
            LogFormat::Unknown => "unknown format",
        })
    }
}

/// Upper or lower bound flag of a score (UCI `lowerbound` / `upperbound`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bound {
    Exact,
    Lower,
    Upper,
}

/// An evaluation, from the point of view of the side to move, as the engine reported it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Score {
    /// Centipawns.
    Cp { value: i64, bound: Bound },
    /// Mate in `moves` moves (negative: the engine is mated).
    Mate { moves: i64, bound: Bound },
}

/// The clocks an engine was told at the start of a search, in milliseconds, as the log shows
/// them (6c: its internal clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "protocol", rename_all = "kebab-case")]
pub enum ClockGiven {
    /// UCI `go wtime W btime B` (milliseconds; a GUI may send a negative time).
    Uci {
        wtime_ms: Option<i64>,
        btime_ms: Option<i64>,
    },
    /// USI `go btime B wtime W [byoyomi Y] [binc I winc J]` (milliseconds): `b` is sente, the
    /// kit's White.
    Usi {
        btime_ms: Option<i64>,
        wtime_ms: Option<i64>,
        byoyomi_ms: Option<i64>,
        binc_ms: Option<i64>,
        winc_ms: Option<i64>,
        /// Whether sente was to move in the position searched (the engine's own clock is then
        /// `btime`, whoever the engine plays); `None` when the log names no position.
        sente_to_move: Option<bool>,
    },
    /// CECP `time T` (the engine's clock) and `otim O` (its opponent's), in centiseconds.
    Cecp {
        time_ms: Option<i64>,
        otim_ms: Option<i64>,
    },
}

impl ClockGiven {
    /// The engine's own clock, for an engine playing White (`engine_white`) or Black.
    pub fn engine_ms(&self, engine_white: bool) -> Option<i64> {
        match *self {
            ClockGiven::Uci { wtime_ms, btime_ms } => {
                if engine_white {
                    wtime_ms
                } else {
                    btime_ms
                }
            }
            ClockGiven::Usi {
                btime_ms,
                wtime_ms,
                sente_to_move,
                ..
            } => {
                if sente_to_move.unwrap_or(engine_white) {
                    btime_ms
                } else {
                    wtime_ms
                }
            }
            ClockGiven::Cecp { time_ms, .. } => time_ms,
        }
    }

    /// Where the figure comes from, as the log writes it.
    pub fn source(&self) -> &'static str {
        match self {
            ClockGiven::Uci { .. } => "go wtime/btime",
            ClockGiven::Usi { .. } => "go btime/wtime",
            ClockGiven::Cecp { .. } => "time/otim",
        }
    }
}

/// One iteration of a search: the last line the engine reported for one depth.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Iteration {
    pub depth: u32,
    pub seldepth: Option<u32>,
    pub score: Option<Score>,
    /// Milliseconds since the search started, as the engine reported it.
    pub time_ms: Option<u64>,
    pub nodes: Option<u64>,
    /// Principal variation as written by the engine (UCI or SAN), at most [`MAX_PV_MOVES`].
    pub pv: Vec<String>,
}

/// The position a search was asked about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchPosition {
    /// EPD of the position (placement, side to move, castling, legal en passant square); the key
    /// used to match searches to the moves of the game.
    pub epd: String,
    /// Moves played from the base position (start position or FEN) to reach it.
    pub moves_from_base: usize,
}

/// One search: from `go` (or the first thinking output) to `bestmove` / `move`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Search {
    /// 1-based line number where the search started.
    pub line: u64,
    /// The position searched, when the log says it and it is legal.
    pub position: Option<SearchPosition>,
    /// Why the position the log names could not be set up (illegal move, bad FEN).
    pub position_error: Option<String>,
    /// Arguments of the UCI `go` command (cut at 200 characters).
    pub go: Option<String>,
    /// The clocks the engine was given for this search (UCI `go wtime/btime`, CECP `time/otim`).
    pub clock: Option<ClockGiven>,
    pub iterations: Vec<Iteration>,
    /// Depths beyond [`MAX_ITERATIONS`] that were not kept.
    pub dropped_iterations: u64,
    /// Every `info` / thinking line of the search, including progress lines.
    pub info_lines: u64,
    /// Highest `multipv` index seen; only line 1 is kept as the iteration.
    pub max_multipv: u32,
    /// The move the engine chose, as it wrote it (`bestmove` / `move`).
    pub bestmove: Option<String>,
    pub ponder_move: Option<String>,
    /// Largest `time` the engine reported during the search, in milliseconds.
    pub last_info_time_ms: Option<u64>,
    /// Gap between the start (`go`, or `ponderhit`) and `bestmove`, from the log's time stamps.
    pub stamped_ms: Option<u64>,
    /// Started with `go ponder`.
    pub ponder: bool,
    /// `ponderhit` was received.
    pub ponderhit: bool,
    /// `stop` was received.
    pub stopped: bool,
}

impl Search {
    fn new(line: u64) -> Search {
        Search {
            line,
            position: None,
            position_error: None,
            go: None,
            clock: None,
            iterations: Vec::new(),
            dropped_iterations: 0,
            info_lines: 0,
            max_multipv: 0,
            bestmove: None,
            ponder_move: None,
            last_info_time_ms: None,
            stamped_ms: None,
            ponder: false,
            ponderhit: false,
            stopped: false,
        }
    }

    /// Time the search took: the gap between time stamps when the log has them, else the last
    /// `time` the engine reported.
    pub fn time_ms(&self) -> Option<u64> {
        self.stamped_ms.or(self.last_info_time_ms)
    }

    /// A ponder search stopped without `ponderhit`: its move was never played.
    pub fn discarded(&self) -> bool {
        self.ponder && !self.ponderhit
    }

    /// Deepest depth reached.
    pub fn max_depth(&self) -> Option<u32> {
        self.iterations.iter().map(|i| i.depth).max()
    }

    /// Number of kept iterations without an evaluation.
    pub fn iterations_without_score(&self) -> usize {
        self.iterations.iter().filter(|i| i.score.is_none()).count()
    }

    /// Record one iteration line, merging with an earlier line of the same depth.
    fn record(&mut self, it: Iteration) {
        if let Some(t) = it.time_ms {
            self.last_info_time_ms = Some(self.last_info_time_ms.map_or(t, |old| old.max(t)));
        }
        if let Some(old) = self
            .iterations
            .iter_mut()
            .rev()
            .find(|o| o.depth == it.depth)
        {
            old.seldepth = it.seldepth.or(old.seldepth);
            old.score = it.score.or(old.score);
            old.time_ms = it.time_ms.or(old.time_ms);
            old.nodes = it.nodes.or(old.nodes);
            if !it.pv.is_empty() {
                old.pv = it.pv;
            }
        } else if self.iterations.len() < MAX_ITERATIONS {
            self.iterations.push(it);
        } else {
            self.dropped_iterations += 1;
        }
    }

    fn note_time(&mut self, t: u64) {
        self.last_info_time_ms = Some(self.last_info_time_ms.map_or(t, |old| old.max(t)));
    }
}

/// A parsed engine log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EngineLog {
    pub format: LogFormat,
    pub searches: Vec<Search>,
    /// Lines read.
    pub lines: u64,
    /// Lines longer than [`MAX_LINE_BYTES`], cut.
    pub truncated_lines: u64,
    /// Lines that were not valid UTF-8 (read lossily).
    pub non_utf8_lines: u64,
    /// Whether the log carries time stamps (then search times come from them).
    pub timestamped: bool,
}

/// Reading the engine log failed (the only failure: an unknown format is not an error).
#[derive(Debug, thiserror::Error)]
pub enum EngineLogError {
    #[error("engine log: read error at line {line}: {source}")]
    Read {
        line: u64,
        #[source]
        source: std::io::Error,
    },
    #[error("machine move {index}: {problem}")]
    BadMove { index: usize, problem: String },
}

/// Parse an engine log in one streaming pass.
pub fn parse<R: BufRead>(mut reader: R) -> Result<EngineLog, EngineLogError> {
    let mut parser = Parser::default();
    let mut buf = Vec::new();
    loop {
        let read =
            line::read_line_capped(&mut reader, &mut buf, MAX_LINE_BYTES).map_err(|source| {
                EngineLogError::Read {
                    line: parser.lines + 1,
                    source,
                }
            })?;
        let Some(truncated) = read else { break };
        if truncated {
            parser.truncated_lines += 1;
        }
        match std::str::from_utf8(&buf) {
            Ok(s) => parser.feed(s),
            Err(_) => {
                parser.non_utf8_lines += 1;
                let s = String::from_utf8_lossy(&buf).into_owned();
                parser.feed(&s);
            }
        }
    }
    Ok(parser.finish())
}

/// Parse an engine log held in memory.
pub fn parse_str(text: &str) -> EngineLog {
    let mut parser = Parser::default();
    for l in text.lines() {
        parser.feed(l);
    }
    parser.finish()
}

/// Which format a single line betrays, if any (framing included).
pub fn detect_line(raw: &str) -> Option<LogFormat> {
    let framed = line::frame(raw);
    line::decisive(&framed)
}

/// The streaming parser: feed it lines, then [`Parser::finish`].
#[derive(Debug, Default)]
pub struct Parser {
    format: Option<LogFormat>,
    uci: uci::UciParser,
    usi: usi::UsiParser,
    /// Decided UCI on lines USI writes too: the USI reader sees the lines until one tells.
    uci_or_usi: bool,
    cecp: cecp::CecpParser,
    lines: u64,
    truncated_lines: u64,
    non_utf8_lines: u64,
    timestamped: bool,
}

impl Parser {
    /// Feed one line (without its line end).
    pub fn feed(&mut self, raw: &str) {
        self.lines += 1;
        let framed = line::frame(raw);
        if framed.stamp_ms.is_some() {
            self.timestamped = true;
        }
        if self.format.is_none() || self.uci_or_usi {
            match usi::betrays(&framed) {
                Some(true) => {
                    self.format = Some(LogFormat::Usi);
                    self.uci_or_usi = false;
                }
                Some(false) => {
                    self.format = self.format.or(line::decisive(&framed));
                    self.uci_or_usi = false;
                }
                None if self.format.is_none() => {
                    self.format = line::decisive(&framed);
                    self.uci_or_usi = matches!(
                        self.format,
                        Some(LogFormat::UciDebug | LogFormat::UciTraffic)
                    );
                }
                None => {}
            }
        }
        let n = self.lines;
        match self.format {
            Some(LogFormat::UciDebug | LogFormat::UciTraffic) => {
                self.uci.feed(n, &framed);
                if self.uci_or_usi {
                    self.usi.feed(n, &framed);
                }
            }
            Some(LogFormat::Usi) => self.usi.feed(n, &framed),
            Some(LogFormat::Cecp) => self.cecp.feed(n, &framed),
            // Undecided: lines so far are ambiguous (`go`, `quit`, ...); every dialect sees them.
            Some(LogFormat::Unknown) | None => {
                self.uci.feed(n, &framed);
                self.usi.feed(n, &framed);
                self.cecp.feed(n, &framed);
            }
        }
    }

    /// Close the last search and return the log.
    pub fn finish(self) -> EngineLog {
        let format = self.format.unwrap_or(LogFormat::Unknown);
        let searches = match format {
            LogFormat::UciDebug | LogFormat::UciTraffic => self.uci.finish(),
            LogFormat::Cecp => self.cecp.finish(),
            LogFormat::Usi => self.usi.finish(),
            LogFormat::Unknown => Vec::new(),
        };
        EngineLog {
            format,
            searches,
            lines: self.lines,
            truncated_lines: self.truncated_lines,
            non_utf8_lines: self.non_utf8_lines,
            timestamped: self.timestamped,
        }
    }
}

#[cfg(test)]
mod tests;
