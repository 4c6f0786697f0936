//! UCI: `position`, `go`, `info`, `ponderhit`, `stop`, `bestmove`.

use super::line::Framed;
use super::position::{PositionError, epd, from_fen, play_all};
use super::{Bound, ClockGiven, Iteration, MAX_PV_MOVES, Score, Search, SearchPosition};
use shakmaty::Chess;

/// Words that may follow `go` in UCI.
pub(crate) const GO_WORDS: &[&str] = &[
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
];

/// Keys of a UCI `info` line.
pub(crate) const INFO_KEYS: &[&str] = &[
    "depth",
    "seldepth",
    "time",
    "nodes",
    "pv",
    "multipv",
    "score",
    "currmove",
    "currmovenumber",
    "hashfull",
    "nps",
    "tbhits",
    "sbhits",
    "cpuload",
    "string",
    "refutation",
    "currline",
    "wdl",
];

/// Longest `go` argument text kept.
const MAX_GO_CHARS: usize = 200;

/// Milliseconds in a day: clock-style stamps wrap at midnight.
const DAY_MS: u64 = 86_400_000;

/// `wtime` / `btime` of a `go` command, when it gives either.
pub(crate) fn clock_given(args: &str) -> Option<ClockGiven> {
    let words: Vec<&str> = args.split_whitespace().collect();
    let value = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|k| words.get(k + 1))
            .and_then(|v| v.parse::<i64>().ok())
    };
    let (wtime_ms, btime_ms) = (value("wtime"), value("btime"));
    (wtime_ms.is_some() || btime_ms.is_some()).then_some(ClockGiven::Uci { wtime_ms, btime_ms })
}

#[derive(Debug, Default)]
pub(crate) struct UciParser {
    done: Vec<Search>,
    current: Option<Search>,
    /// Arguments of the last `position` command.
    pending_position: Option<String>,
    /// Time stamp of `go` (or `ponderhit`) for the open search.
    start_stamp: Option<u64>,
}

impl UciParser {
    pub(crate) fn feed(&mut self, n: u64, f: &Framed<'_>) {
        let (word, rest) = match f.text.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (f.text, ""),
        };
        match word {
            "position" => self.pending_position = Some(rest.to_owned()),
            "go" => self.go(n, rest, f.stamp_ms),
            "ponderhit" => {
                if let Some(s) = self.current.as_mut() {
                    s.ponderhit = true;
                    if f.stamp_ms.is_some() {
                        self.start_stamp = f.stamp_ms;
                    }
                }
            }
            "stop" => {
                if let Some(s) = self.current.as_mut() {
                    s.stopped = true;
                }
            }
            "info" => self.info(n, rest),
            "bestmove" => self.bestmove(n, rest, f.stamp_ms),
            _ => {}
        }
    }

    fn go(&mut self, n: u64, args: &str, stamp: Option<u64>) {
        self.close();
        let mut s = Search::new(n);
        s.go = Some(args.chars().take(MAX_GO_CHARS).collect());
        s.ponder = args.split_whitespace().any(|w| w == "ponder");
        s.clock = clock_given(args);
        if let Some(p) = self.pending_position.as_deref() {
            match resolve_position(p) {
                Ok(pos) => s.position = Some(pos),
                Err(e) => s.position_error = Some(e.to_string()),
            }
        }
        self.start_stamp = stamp;
        self.current = Some(s);
    }

    fn open(&mut self, n: u64) -> &mut Search {
        self.current.get_or_insert_with(|| Search::new(n))
    }

    fn info(&mut self, n: u64, rest: &str) {
        let info = parse_info(rest);
        if self.current.is_none()
            && info.depth.is_none()
            && info.score.is_none()
            && info.pv.is_empty()
        {
            // `info string ...` outside a search (start-up banners): not a search.
            return;
        }
        let s = self.open(n);
        s.info_lines += 1;
        if let Some(t) = info.time_ms {
            s.note_time(t);
        }
        if let Some(k) = info.multipv {
            s.max_multipv = s.max_multipv.max(k);
        }
        if let Some(depth) = info.depth
            && !info.currmove
            && info.multipv.is_none_or(|k| k <= 1)
        {
            s.record(Iteration {
                depth,
                seldepth: info.seldepth,
                score: info.score,
                time_ms: info.time_ms,
                nodes: info.nodes,
                pv: info.pv,
            });
        }
    }

    fn bestmove(&mut self, n: u64, rest: &str, stamp: Option<u64>) {
        let start = self.start_stamp;
        let s = self.open(n);
        let mut words = rest.split_whitespace();
        s.bestmove = words.next().map(str::to_owned);
        if words.next() == Some("ponder") {
            s.ponder_move = words.next().map(str::to_owned);
        }
        if let (Some(a), Some(b)) = (start, stamp) {
            s.stamped_ms = if b >= a {
                Some(b - a)
            } else if a < DAY_MS {
                Some(b + DAY_MS - a)
            } else {
                None
            };
        }
        self.close();
    }

    fn close(&mut self) {
        if let Some(s) = self.current.take() {
            self.done.push(s);
        }
        self.start_stamp = None;
    }

    pub(crate) fn finish(mut self) -> Vec<Search> {
        self.close();
        self.done
    }
}

/// `startpos [moves ...]` or `fen <fen> [moves ...]`.
fn resolve_position(args: &str) -> Result<SearchPosition, PositionError> {
    let mut words = args.split_whitespace();
    let base = match words.next() {
        Some("startpos") => Chess::default(),
        Some("fen") => {
            let fen: Vec<&str> = words.by_ref().take_while(|w| *w != "moves").collect();
            let pos = from_fen(&fen.join(" "))?;
            return play_all(pos, words).map(|(p, k)| SearchPosition {
                epd: epd(&p),
                moves_from_base: k,
            });
        }
        other => {
            return Err(PositionError::NotUnderstood(
                other.unwrap_or("").to_string(),
            ));
        }
    };
    match words.next() {
        None => {}
        Some("moves") => {}
        Some(w) => return Err(PositionError::ExpectedMoves(w.to_string())),
    }
    play_all(base, words).map(|(p, k)| SearchPosition {
        epd: epd(&p),
        moves_from_base: k,
    })
}

#[derive(Debug, Default)]
pub(super) struct Info {
    pub(super) depth: Option<u32>,
    pub(super) seldepth: Option<u32>,
    pub(super) multipv: Option<u32>,
    pub(super) score: Option<Score>,
    pub(super) time_ms: Option<u64>,
    pub(super) nodes: Option<u64>,
    pub(super) pv: Vec<String>,
    pub(super) currmove: bool,
}

/// An `info` line's fields (USI writes the same ones).
pub(super) fn parse_info(rest: &str) -> Info {
    let mut info = Info::default();
    let words: Vec<&str> = rest.split_whitespace().collect();
    let mut i = 0usize;
    let num = |i: usize| words.get(i).and_then(|w| w.parse::<u64>().ok());
    let small = |i: usize| words.get(i).and_then(|w| w.parse::<u32>().ok());
    while let Some(&w) = words.get(i) {
        i += 1;
        match w {
            "depth" => {
                info.depth = small(i);
                i += 1;
            }
            "seldepth" => {
                info.seldepth = small(i);
                i += 1;
            }
            "multipv" => {
                info.multipv = small(i);
                i += 1;
            }
            "time" => {
                info.time_ms = num(i);
                i += 1;
            }
            "nodes" => {
                info.nodes = num(i);
                i += 1;
            }
            "currmove" => {
                info.currmove = true;
                i += 1;
            }
            "currmovenumber" | "hashfull" | "nps" | "tbhits" | "sbhits" | "cpuload" => i += 1,
            "wdl" => i += 3,
            "score" => {
                let kind = words.get(i).copied();
                let value = words.get(i + 1).and_then(|v| v.parse::<i64>().ok());
                i += 2;
                let mut bound = Bound::Exact;
                while let Some(&b) = words.get(i) {
                    match b {
                        "lowerbound" => bound = Bound::Lower,
                        "upperbound" => bound = Bound::Upper,
                        _ => break,
                    }
                    i += 1;
                }
                info.score = match (kind, value) {
                    (Some("cp"), Some(value)) => Some(Score::Cp { value, bound }),
                    (Some("mate"), Some(moves)) => Some(Score::Mate { moves, bound }),
                    _ => None,
                };
            }
            "pv" => {
                info.pv.clear();
                while let Some(&m) = words.get(i) {
                    if INFO_KEYS.contains(&m) {
                        break;
                    }
                    if info.pv.len() < MAX_PV_MOVES {
                        info.pv.push(m.to_owned());
                    }
                    i += 1;
                }
            }
            "string" => break,
            "refutation" | "currline" => {
                while words.get(i).is_some_and(|m| !INFO_KEYS.contains(m)) {
                    i += 1;
                }
            }
            _ => {}
        }
    }
    info
}
