//! A shogi game record in CSA standard format V3.0 (`'CSA encoding=UTF-8`, `V3.0`, `N+`/`N-`
//! names, `$` information, `PI` or `P1`..`P9` the start, each move with its `T` seconds, the
//! ending `%` line), and the record model the KIF writer shares (pure).
use crate::core::Side;
use crate::core::event::{Score, Termination};
use crate::core::game::Game;
use crate::core::shogi::{ShogiRecord, side_name};
use crate::report::times::Times;

/// Why a record cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("game {0} is not a shogi game: CSA and KIF record shogi (use --format pgn for chess)")]
    NotShogi(u32),
    #[error("game {0} is a shogi game: PGN records chess (use --format csa or kif)")]
    NotChess(u32),
    /// `arbiter pgn` / `arbiter relay` asked for a shogi game: no PGN reader takes its moves.
    #[error(
        "game {0} is a shogi game: PGN records chess moves only, no PGN reader takes it; write its record with `arbiter record --game {0} --format kif|csa`"
    )]
    PgnOfShogi(u32),
    #[error("the start position {0:?} is not an SFEN the KIF board diagram can show")]
    SetUpPosition(String),
}

/// One move of the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordMove {
    pub side: Side,
    /// `+7776FU`.
    pub csa: String,
    /// `７六歩(77)`.
    pub kif: String,
    /// The time charged for the move (the clock's, floored where the profile floors it).
    pub time_ms: i64,
}

/// How the record ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordEnd {
    pub score: Score,
    pub termination: Termination,
    pub detail: String,
    /// The side to move when the game ended.
    pub to_move: Side,
}

/// What CSA and KIF records are written from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShogiGameRecord {
    pub event: String,
    pub game: u32,
    /// `YYYY/MM/DD HH:MM:SS` (UTC) of the game's first entry.
    pub start_time: String,
    pub names: [String; 2],
    /// Base time and increment in seconds, per side.
    pub time: [(u64, u64); 2],
    /// The start (SFEN).
    pub start_sfen: String,
    pub hirate: bool,
    /// The start's CSA position lines (`P1`..`P9`, hands, side to move) when not hirate.
    pub start_lines: Vec<String>,
    pub moves: Vec<RecordMove>,
    pub end: Option<RecordEnd>,
}

/// The record of a shogi game from its replayed state and the per-move times.
pub fn shogi_record(
    game: &Game,
    times: &Times,
    start_utc: &str,
) -> Result<ShogiGameRecord, RecordError> {
    let n = game.ctx().game;
    let r = game.board().shogi().ok_or(RecordError::NotShogi(n))?;
    let moves = r
        .record_forms()
        .into_iter()
        .enumerate()
        .map(|(i, (side, csa, kif))| RecordMove {
            side,
            csa,
            kif,
            // The move's time from the log entry of this ply, made by this side.
            time_ms: times
                .moves
                .iter()
                .find(|m| m.ply == i && m.side == side)
                .map_or(0, |m| m.time_ms),
        })
        .collect();
    let name = |s| {
        game.player(s)
            .map_or_else(|| side_name(s).to_string(), |p| p.name.clone())
    };
    let time = [Side::White, Side::Black].map(|s| {
        game.profile()
            .periods(s)
            .first()
            .map_or((0, 0), |p| (p.seconds, p.increment_seconds))
    });
    let start_time = chrono::DateTime::parse_from_rfc3339(start_utc).map_or_else(
        |_| start_utc.to_string(),
        |t| {
            t.with_timezone(&chrono::Utc)
                .format("%Y/%m/%d %H:%M:%S")
                .to_string()
        },
    );
    let start_sfen = r.start_sfen().to_string();
    let hirate = start_sfen == rsshogi::board::STARTPOS_SFEN;
    Ok(ShogiGameRecord {
        event: game.profile().profile.name.clone(),
        game: n,
        start_time,
        names: [name(Side::White), name(Side::Black)],
        time,
        start_lines: if hirate {
            Vec::new()
        } else {
            csa_position(&start_sfen)
        },
        start_sfen,
        hirate,
        moves,
        end: game.outcome().map(|o| RecordEnd {
            score: o.score,
            termination: o.termination,
            detail: o.detail.clone(),
            to_move: game.board().side_to_move(),
        }),
    })
}

/// CSA position lines for an SFEN start: `P1`..`P9`, `P+`/`P-` hands, then `+` or `-`.
fn csa_position(sfen: &str) -> Vec<String> {
    let Ok(r) = ShogiRecord::from_sfen(sfen) else {
        return Vec::new();
    };
    let v = r.view();
    let mut out = Vec::new();
    for (i, row) in v.squares.iter().enumerate() {
        let mut line = format!("P{}", i + 1);
        for cell in row {
            match cell {
                None => line.push_str(" * "),
                Some(p) => {
                    line.push(if p.side == Side::White { '+' } else { '-' });
                    line.push_str(csa_piece(&p.letters));
                }
            }
        }
        out.push(line);
    }
    for (sign, side) in [('+', Side::White), ('-', Side::Black)] {
        let hand = &v.hands[side.index()];
        if hand.is_empty() {
            continue;
        }
        let mut line = format!("P{sign}");
        for (_, letter, n) in hand {
            for _ in 0..*n {
                line.push_str("00");
                line.push_str(csa_piece(&letter.to_string()));
            }
        }
        out.push(line);
    }
    out.push(
        if r.side_to_move() == Side::White {
            "+"
        } else {
            "-"
        }
        .to_string(),
    );
    out
}

/// The CSA name of a piece from its USI letters.
fn csa_piece(letters: &str) -> &'static str {
    match letters.to_ascii_uppercase().as_str() {
        "P" => "FU",
        "L" => "KY",
        "N" => "KE",
        "S" => "GI",
        "G" => "KI",
        "B" => "KA",
        "R" => "HI",
        "K" => "OU",
        "+P" => "TO",
        "+L" => "NY",
        "+N" => "NK",
        "+S" => "NG",
        "+B" => "UM",
        "+R" => "RY",
        _ => "??",
    }
}

/// The losing side of a decisive score.
fn loser(score: Score) -> Option<Side> {
    match score {
        Score::WhiteWins => Some(Side::Black),
        Score::BlackWins => Some(Side::White),
        _ => None,
    }
}

/// The CSA ending line for a result (`%TORYO`, `%SENNICHITE`, ...), with a comment when CSA has
/// no word for it.
fn csa_end(e: &RecordEnd) -> (Option<String>, &'static str) {
    let sign = |s: Side| if s == Side::White { '+' } else { '-' };
    let comment = Some(format!("'{} ({})", e.detail, e.score.text()));
    match e.termination {
        Termination::Resignation if loser(e.score) == Some(e.to_move) => (None, "%TORYO"),
        Termination::Checkmate => (None, "%TSUMI"),
        Termination::FlagFall => (None, "%TIME_UP"),
        Termination::Sennichite => (None, "%SENNICHITE"),
        Termination::PerpetualCheck => (None, "%OUTE_SENNICHITE"),
        Termination::Declaration => (None, "%KACHI"),
        Termination::MoveCap => (None, "%MAX_MOVES"),
        Termination::IllegalMove | Termination::FailedDeclaration => match loser(e.score) {
            Some(s) if sign(s) == '+' => (comment, "%+ILLEGAL_ACTION"),
            Some(_) => (comment, "%-ILLEGAL_ACTION"),
            None => (comment, "%CHUDAN"),
        },
        _ => (comment, "%CHUDAN"),
    }
}

/// The record in CSA V3.0.
pub fn write_csa(r: &ShogiGameRecord) -> String {
    let mut out = String::new();
    out.push_str("'CSA encoding=UTF-8\nV3.0\n");
    out.push_str(&format!("N+{}\nN-{}\n", r.names[0], r.names[1]));
    out.push_str(&format!("$EVENT:{} game {}\n", r.event, r.game));
    out.push_str(&format!("$START_TIME:{}\n", r.start_time));
    out.push_str(&format!(
        "$TIME+:{}+0+{}\n$TIME-:{}+0+{}\n",
        r.time[0].0, r.time[0].1, r.time[1].0, r.time[1].1
    ));
    if r.hirate {
        out.push_str("PI\n+\n");
    } else {
        for l in &r.start_lines {
            out.push_str(l);
            out.push('\n');
        }
    }
    for m in &r.moves {
        out.push_str(&m.csa);
        out.push('\n');
        out.push_str(&format!("T{}\n", m.time_ms.max(0) / 1000));
    }
    if let Some(e) = &r.end {
        let (comment, line) = csa_end(e);
        if let Some(c) = comment {
            out.push_str(&c);
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn csa_names_every_piece_and_writes_set_up_positions() {
        let lines = csa_position("4k4/9/9/9/9/9/9/9/4K4 b 2P 1");
        assert_eq!(lines[0], "P1 *  *  *  * -OU *  *  *  * ");
        assert_eq!(lines[9], "P+00FU00FU");
        assert_eq!(lines.last().unwrap(), "+");
    }
}
