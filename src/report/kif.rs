//! A shogi game record in KIF (the format of Kifu for Windows and most shogi software): header
//! lines, one numbered line per move with its time and the side's running total, the ending
//! word, and `まで…` (pure). A game from a set-up position says where it started: a standard
//! handicap by its name (`手合割：香落ち`, the players as 下手 / 上手, 上手 moving first), any other
//! position as a board diagram (BOD: both hands, the 9×9 board, `後手番` when gote moves first).
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

/// The standard handicaps (手合割) KIF names, by the start SFEN's board, side and hands: the
/// handicap giver (上手, gote) moves first.
const HANDICAPS: &[(&str, &str)] = &[
    (
        "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
        "香落ち",
    ),
    (
        "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
        "右香落ち",
    ),
    (
        "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
        "角落ち",
    ),
    (
        "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
        "飛車落ち",
    ),
    (
        "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
        "飛香落ち",
    ),
    (
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
        "二枚落ち",
    ),
    (
        "lnsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
        "三枚落ち",
    ),
    (
        "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
        "四枚落ち",
    ),
    (
        "2sgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
        "五枚落ち",
    ),
    (
        "1nsgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
        "左五枚落ち",
    ),
    (
        "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
        "六枚落ち",
    ),
    (
        "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
        "八枚落ち",
    ),
    (
        "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
        "十枚落ち",
    ),
];

/// The handicap's name when the start is a standard handicap.
fn handicap(sfen: &str) -> Option<&'static str> {
    let key: Vec<&str> = sfen.split_whitespace().take(3).collect();
    let key = key.join(" ");
    HANDICAPS.iter().find(|(s, _)| *s == key).map(|(_, n)| *n)
}

/// The kanji of an SFEN piece letter (upper or lower case), promoted or not.
fn kif_piece(letter: char, promoted: bool) -> Option<char> {
    let (plain, up) = match letter.to_ascii_uppercase() {
        'P' => ('歩', 'と'),
        'L' => ('香', '杏'),
        'N' => ('桂', '圭'),
        'S' => ('銀', '全'),
        'G' => ('金', '金'),
        'B' => ('角', '馬'),
        'R' => ('飛', '龍'),
        'K' => ('玉', '玉'),
        _ => return None,
    };
    Some(if promoted { up } else { plain })
}

/// A count in kanji (一 .. 十八), as KIF writes pieces in hand.
fn kanji_count(n: u32) -> String {
    const DIGITS: [&str; 10] = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
    let ones = DIGITS.get((n % 10) as usize).copied().unwrap_or("");
    if n >= 10 {
        format!("十{ones}")
    } else {
        ones.to_string()
    }
}

/// `先手の持駒：…` / `後手の持駒：…` text of one side's hand, from the SFEN hands field.
fn kif_hand(hands: &str, sente: bool) -> Option<String> {
    let mut counts: Vec<(char, u32)> = Vec::new();
    let mut n = 0u32;
    for c in hands.chars().filter(|_| hands != "-") {
        if let Some(d) = c.to_digit(10) {
            n = n * 10 + d;
            continue;
        }
        let k = kif_piece(c, false)?;
        if c.is_ascii_uppercase() == sente {
            counts.push((k, n.max(1)));
        }
        n = 0;
    }
    if counts.is_empty() {
        return Some("なし".to_string());
    }
    const ORDER: [char; 7] = ['飛', '角', '金', '銀', '桂', '香', '歩'];
    counts.sort_by_key(|(k, _)| ORDER.iter().position(|o| o == k));
    let items: Vec<String> = counts
        .iter()
        .map(|(k, c)| {
            if *c == 1 {
                k.to_string()
            } else {
                format!("{k}{}", kanji_count(*c))
            }
        })
        .collect();
    Some(items.join("　"))
}

/// The board diagram (BOD) of an SFEN: gote's hand, the board, sente's hand, `後手番` if gote
/// moves first.
fn kif_diagram(sfen: &str) -> Option<Vec<String>> {
    let mut f = sfen.split_whitespace();
    let (board, side, hands) = (f.next()?, f.next()?, f.next().unwrap_or("-"));
    const RANKS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
    let mut out = vec![format!("後手の持駒：{}", kif_hand(hands, false)?)];
    out.push("  ９ ８ ７ ６ ５ ４ ３ ２ １".to_string());
    out.push("+---------------------------+".to_string());
    let rows: Vec<&str> = board.split('/').collect();
    if rows.len() != 9 {
        return None;
    }
    for (row, rank) in rows.iter().zip(RANKS) {
        let mut line = String::from("|");
        let mut cells = 0;
        let mut promoted = false;
        for c in row.chars() {
            if c == '+' {
                promoted = true;
            } else if let Some(d) = c.to_digit(10) {
                for _ in 0..d {
                    line.push_str(" ・");
                }
                cells += d;
            } else {
                line.push(if c.is_ascii_uppercase() { ' ' } else { 'v' });
                line.push(kif_piece(c, promoted)?);
                promoted = false;
                cells += 1;
            }
        }
        if cells != 9 {
            return None;
        }
        line.push('|');
        line.push(rank);
        out.push(line);
    }
    out.push("+---------------------------+".to_string());
    out.push(format!("先手の持駒：{}", kif_hand(hands, true)?));
    if side == "w" {
        out.push("後手番".to_string());
    }
    Some(out)
}

/// The record in KIF.
pub fn write_kif(r: &ShogiGameRecord) -> Result<String, RecordError> {
    let handicap = (!r.hirate).then(|| handicap(&r.start_sfen)).flatten();
    let diagram = if r.hirate || handicap.is_some() {
        Vec::new()
    } else {
        kif_diagram(&r.start_sfen)
            .ok_or_else(|| RecordError::SetUpPosition(r.start_sfen.clone()))?
    };
    // A handicap game names its players 下手 (sente, who receives the handicap) and 上手.
    let (first, second) = if handicap.is_some() {
        ("下手", "上手")
    } else {
        ("先手", "後手")
    };
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
    match handicap {
        Some(name) => out.push_str(&format!("手合割：{name}\n")),
        None if r.hirate => out.push_str("手合割：平手\n"),
        None => {
            for l in &diagram {
                out.push_str(l);
                out.push('\n');
            }
        }
    }
    out.push_str(&format!(
        "{first}：{}\n{second}：{}\n",
        r.names[0], r.names[1]
    ));
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
            Score::WhiteWins => format!("{first}の勝ち"),
            Score::BlackWins => format!("{second}の勝ち"),
            Score::Draw if e.termination == Termination::Sennichite => "千日手".to_string(),
            Score::Draw if e.termination == Termination::MoveCap => "持将棋".to_string(),
            _ => "中断".to_string(),
        };
        out.push_str(&format!("まで{n}手で{summary}\n"));
        out.push_str(&format!("*{} ({})\n", e.detail, e.score.text()));
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn hands_in_kif_order_with_kanji_counts() {
        assert_eq!(kif_hand("-", true).unwrap(), "なし");
        assert_eq!(kif_hand("R2B10Pg", true).unwrap(), "飛　角二　歩十");
        assert_eq!(kif_hand("R2B10Pg18p", false).unwrap(), "金　歩十八");
        assert_eq!(kif_hand("2X", true), None);
    }

    #[test]
    fn a_diagram_needs_nine_ranks_of_nine_squares() {
        let d = kif_diagram("4k4/9/9/9/9/9/9/9/4K4 b - 1").unwrap();
        assert_eq!(d[3], "| ・ ・ ・ ・v玉 ・ ・ ・ ・|一");
        assert_eq!(d.last().unwrap(), "先手の持駒：なし");
        assert_eq!(kif_diagram("4k4/9/9 b - 1"), None);
        assert_eq!(kif_diagram("4k5/9/9/9/9/9/9/9/4K4 b - 1"), None);
        assert_eq!(
            handicap("lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"),
            Some("香落ち")
        );
    }
}
