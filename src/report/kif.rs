//! A shogi game record in KIF (the format of Kifu for Windows and most shogi software): header
//! lines, one numbered line per move with its time and the side's running total, the ending
//! word, and `まで…` (pure).
use crate::core::Side;
use crate::core::event::{Score, Termination};
use crate::report::csa::{RecordEnd, RecordError, ShogiGameRecord};

/// `m:ss` of a move's time, `hh:mm:ss` of a total (whole seconds).
fn kif_time(move_s: i64, total_s: i64) -> String {
    format!(
        "({:>2}:{:02}/{:02}:{:02}:{:02})",
        move_s / 60,
        move_s % 60,
        total_s / 3600,
        total_s / 60 % 60,
        total_s % 60
    )
}

fn minutes(secs: u64) -> String {
    if secs.is_multiple_of(60) {
        format!("{}分", secs / 60)
    } else {
        format!("{secs}秒")
    }
}

/// The ending word: what the side to move did (投了, 切れ負け, 入玉勝ち ...).
fn kif_end(e: &RecordEnd) -> &'static str {
    let to_move_lost = match e.score {
        Score::WhiteWins => e.to_move == Side::Black,
        Score::BlackWins => e.to_move == Side::White,
        _ => false,
    };
    match e.termination {
        Termination::Resignation if to_move_lost => "投了",
        Termination::Checkmate => "詰み",
        Termination::FlagFall => "切れ負け",
        Termination::Sennichite => "千日手",
        Termination::Declaration => "入玉勝ち",
        Termination::MoveCap => "持将棋",
        Termination::IllegalMove | Termination::FailedDeclaration | Termination::PerpetualCheck
            if to_move_lost =>
        {
            "反則負け"
        }
        Termination::IllegalMove | Termination::FailedDeclaration | Termination::PerpetualCheck => {
            "反則勝ち"
        }
        _ => "中断",
    }
}

/// The record in KIF.
pub fn write_kif(r: &ShogiGameRecord) -> Result<String, RecordError> {
    if !r.hirate {
        return Err(RecordError::SetUpPosition(r.start_sfen.clone()));
    }
    let mut out = String::new();
    out.push_str("# KIF形式棋譜ファイル (arbiter)\n");
    out.push_str(&format!("開始日時：{}\n", r.start_time));
    out.push_str(&format!("棋戦：{} game {}\n", r.event, r.game));
    out.push_str(&format!(
        "持ち時間：先手 {}+{}秒 後手 {}+{}秒\n",
        minutes(r.time[0].0),
        r.time[0].1,
        minutes(r.time[1].0),
        r.time[1].1
    ));
    out.push_str("手合割：平手\n");
    out.push_str(&format!("先手：{}\n後手：{}\n", r.names[0], r.names[1]));
    out.push_str("手数----指手---------消費時間--\n");
    let mut totals = [0i64; 2];
    for (i, m) in r.moves.iter().enumerate() {
        let s = m.time_ms.max(0) / 1000;
        totals[m.side.index()] += s;
        // Align the time column: a kanji takes two columns, an ASCII character one.
        let width: usize = m
            .kif
            .chars()
            .map(|c| if c.is_ascii() { 1 } else { 2 })
            .sum();
        let pad = 14usize.saturating_sub(width);
        out.push_str(&format!(
            "{:>4} {}{} {}\n",
            i + 1,
            m.kif,
            " ".repeat(pad),
            kif_time(s, totals[m.side.index()])
        ));
    }
    let n = r.moves.len();
    if let Some(e) = &r.end {
        out.push_str(&format!("{:>4} {}\n", n + 1, kif_end(e)));
        let summary = match e.score {
            Score::WhiteWins => "先手の勝ち".to_string(),
            Score::BlackWins => "後手の勝ち".to_string(),
            Score::Draw if e.termination == Termination::Sennichite => "千日手".to_string(),
            Score::Draw if e.termination == Termination::MoveCap => "持将棋".to_string(),
            _ => "中断".to_string(),
        };
        out.push_str(&format!("まで{n}手で{summary}\n"));
        out.push_str(&format!("*{} ({})\n", e.detail, e.score.text()));
    }
    Ok(out)
}
