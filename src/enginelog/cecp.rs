//! CECP / xboard: thinking output `ply score time nodes pv` (time in centiseconds), the engine's
//! `move`, and, when the log holds the GUI's side, `new`, `setboard`, `usermove`, `undo`,
//! `remove` and bare coordinate moves, which tell the position searched.

use super::line::{Dir, Framed};
use super::position::{PositionError, epd, from_fen, play_all};
use super::{Bound, ClockGiven, Iteration, MAX_PV_MOVES, Score, Search, SearchPosition};
use shakmaty::Chess;

/// Milliseconds in a day: clock-style stamps wrap at midnight.
const DAY_MS: u64 = 86_400_000;

/// Most moves remembered for the current game (a log far longer is not one game).
const MAX_GAME_MOVES: usize = 10_000;

/// One thinking-output line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Thinking {
    pub ply: u32,
    pub score: i64,
    pub time_cs: u64,
    pub nodes: u64,
    pub pv: Vec<String>,
}

/// `ply score time nodes [more numbers] pv...`; `ply` may end in `.` or `&`.
pub(crate) fn parse_thinking(text: &str) -> Option<Thinking> {
    let mut words = text.split_whitespace().peekable();
    let ply = words.next()?.trim_end_matches(['.', '&']);
    if ply.is_empty() || ply.len() > 4 || !ply.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let ply: u32 = ply.parse().ok()?;
    let score_text = words.next()?;
    let digits = score_text.strip_prefix(['-', '+']).unwrap_or(score_text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let score: i64 = score_text.parse().ok()?;
    let time_cs: u64 = plain_number(words.next()?)?;
    let nodes: u64 = plain_number(words.next()?)?;
    // Extended output puts seldepth, nps, tbhits before the PV.
    while words.peek().is_some_and(|w| plain_number(w).is_some()) {
        words.next();
    }
    let pv = words
        .filter(|w| !is_move_number(w))
        .take(MAX_PV_MOVES)
        .map(str::to_owned)
        .collect();
    Some(Thinking {
        ply,
        score,
        time_cs,
        nodes,
        pv,
    })
}

fn plain_number(w: &str) -> Option<u64> {
    if w.is_empty() || !w.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    w.parse().ok()
}

fn is_move_number(w: &str) -> bool {
    let digits = w.trim_end_matches('.');
    digits.len() < w.len() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `e2e4`, `e7e8q`: coordinate notation as xboard sends moves without `usermove`.
fn is_coordinate_move(w: &str) -> bool {
    let b = w.as_bytes();
    (b.len() == 4 || b.len() == 5)
        && (b'a'..=b'h').contains(&b[0])
        && (b'1'..=b'8').contains(&b[1])
        && (b'a'..=b'h').contains(&b[2])
        && (b'1'..=b'8').contains(&b[3])
        && (b.len() == 4 || b"qrbnk".contains(&b[4]))
}

#[derive(Debug, Default)]
pub(crate) struct CecpParser {
    done: Vec<Search>,
    current: Option<Search>,
    /// `None`: start position; else the FEN of the last `setboard`.
    base_fen: Option<String>,
    moves: Vec<String>,
    /// The GUI's side of the traffic was seen, so the position is known.
    input_seen: bool,
    /// Time stamp of what made the engine start thinking (`go`, the opponent's move).
    start_stamp: Option<u64>,
    /// The latest `time` and `otim` the GUI sent (milliseconds), for the next search.
    time_ms: Option<i64>,
    otim_ms: Option<i64>,
}

/// A CECP clock figure: centiseconds to milliseconds.
fn centiseconds(rest: &str) -> Option<i64> {
    rest.parse::<i64>().ok().and_then(|cs| cs.checked_mul(10))
}

impl CecpParser {
    pub(crate) fn feed(&mut self, n: u64, f: &Framed<'_>) {
        let (word, rest) = match f.text.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (f.text, ""),
        };
        let from_engine = f.dir != Some(Dir::ToEngine);
        let to_engine = f.dir != Some(Dir::FromEngine);
        if to_engine {
            match word {
                "new" if rest.is_empty() => {
                    self.close();
                    self.base_fen = None;
                    self.moves.clear();
                    self.input_seen = true;
                    return;
                }
                "setboard" => {
                    self.close();
                    self.base_fen = Some(rest.to_owned());
                    self.moves.clear();
                    self.input_seen = true;
                    return;
                }
                "usermove" => {
                    self.abandon();
                    self.push_move(rest);
                    self.input_seen = true;
                    self.start_stamp = f.stamp_ms;
                    return;
                }
                "time" if centiseconds(rest).is_some() => {
                    self.time_ms = centiseconds(rest);
                    return;
                }
                "otim" if centiseconds(rest).is_some() => {
                    self.otim_ms = centiseconds(rest);
                    return;
                }
                "undo" if rest.is_empty() => {
                    self.moves.pop();
                    return;
                }
                "remove" if rest.is_empty() => {
                    self.moves.pop();
                    self.moves.pop();
                    return;
                }
                "go" if rest.is_empty() => {
                    self.start_stamp = f.stamp_ms;
                    return;
                }
                w if rest.is_empty() && is_coordinate_move(w) => {
                    self.abandon();
                    self.push_move(w);
                    self.input_seen = true;
                    self.start_stamp = f.stamp_ms;
                    return;
                }
                _ => {}
            }
        }
        if from_engine {
            if word == "move" && !rest.is_empty() && !rest.contains(char::is_whitespace) {
                let start = self.start_stamp;
                let s = self.open(n);
                s.bestmove = Some(rest.to_owned());
                if let (Some(a), Some(b)) = (start, f.stamp_ms) {
                    s.stamped_ms = if b >= a {
                        Some(b - a)
                    } else if a < DAY_MS {
                        Some(b + DAY_MS - a)
                    } else {
                        None
                    };
                }
                self.close();
                self.push_move(rest);
            } else if let Some(t) = parse_thinking(f.text) {
                let s = self.open(n);
                s.info_lines += 1;
                let time_ms = t.time_cs.saturating_mul(10);
                s.record(Iteration {
                    depth: t.ply,
                    seldepth: None,
                    score: Some(Score::Cp {
                        value: t.score,
                        bound: Bound::Exact,
                    }),
                    time_ms: Some(time_ms),
                    nodes: Some(t.nodes),
                    pv: t.pv,
                });
            }
        }
    }

    fn push_move(&mut self, m: &str) {
        if self.moves.len() < MAX_GAME_MOVES {
            self.moves.push(m.to_owned());
        }
    }

    fn open(&mut self, n: u64) -> &mut Search {
        if self.current.is_none() {
            let mut s = Search::new(n);
            if self.input_seen {
                match self.position() {
                    Ok(p) => s.position = Some(p),
                    Err(e) => s.position_error = Some(e.to_string()),
                }
            }
            if self.time_ms.is_some() || self.otim_ms.is_some() {
                s.clock = Some(ClockGiven::Cecp {
                    time_ms: self.time_ms.take(),
                    otim_ms: self.otim_ms.take(),
                });
            }
            self.current = Some(s);
        }
        self.current.get_or_insert_with(|| Search::new(n))
    }

    fn position(&self) -> Result<SearchPosition, PositionError> {
        let base = match self.base_fen.as_deref() {
            None => Chess::default(),
            Some(fen) => from_fen(fen)?,
        };
        play_all(base, self.moves.iter().map(String::as_str)).map(|(p, k)| SearchPosition {
            epd: epd(&p),
            moves_from_base: k,
        })
    }

    /// The opponent moved while the engine was thinking (pondering): that search is void.
    fn abandon(&mut self) {
        if let Some(s) = self.current.as_mut() {
            s.ponder = true;
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
