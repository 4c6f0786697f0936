//! PGN export with clock comments. PURE.
//!
//! Every move carries `{[%clk h:mm:ss] [%emt h:mm:ss]}`:
//! - `%clk` is the time left on the mover's clock after the move, rounded DOWN to the second, as
//!   a clock display shows it (59.9 s left reads 0:00:59);
//! - `%emt` is the time the move took, rounded to the NEAREST second, halves up (0.4 s reads
//!   0:00:00, 0.5 s reads 0:00:01).
//!
//! `%emt` is the drop of the mover's clock between its presses (`report::times`): a move taken back
//! and played again shows all the time its side's clock lost, and a waived restart gap is not in
//! it. What changed a clock otherwise (take-backs, 7c penalties, 6d/7e corrections, restart gaps,
//! period additions) is a comment of its own before the next move (or after the last one), so
//! `%clk` stays the true clock and `%emt`s plus those comments add up to it.
//!
//! Hours are not padded (`1:59:59`, `12:00:00`). Lines are wrapped at 79 columns, never inside a
//! clock comment; the movetext ends with the result.

use serde::{Deserialize, Serialize};

/// Widest line written (under 80 columns).
pub const MAX_LINE: usize = 79;

/// A game to export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PgnGame {
    pub event: String,
    pub site: String,
    /// `YYYY.MM.DD`, `?` for unknown parts.
    pub date: String,
    pub round: String,
    pub white: String,
    pub black: String,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// PGN TimeControl, e.g. `40/7200:20/3600:1800` (see [`time_control_tag`]).
    pub time_control: String,
    pub termination: Option<String>,
    /// The start position when it is not the initial one (`[SetUp "1"]` and `[FEN …]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
    /// How the moves are numbered: the game's one numbering
    /// ([`crate::core::board::Numbering`]), from the FEN's fullmove number as the PGN standard
    /// requires with a `[FEN]` tag.
    #[serde(default)]
    pub numbering: crate::core::board::Numbering,
    pub moves: Vec<PgnMove>,
    /// Comments after the last move (before the result).
    #[serde(default)]
    pub trailing: Vec<String>,
    /// Further tags, written after the others in this order (the live relay's `UTCDate`,
    /// `UTCTime`, `WhiteClock`, `BlackClock`, `Clock`).
    #[serde(default)]
    pub extra: Vec<(String, String)>,
}

/// One move with its clock figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PgnMove {
    pub san: String,
    /// Time left on the mover's clock after the move, in milliseconds.
    pub clock_ms: u64,
    /// Time the move took, in milliseconds.
    pub spent_ms: u64,
    /// Comments written before the move (clock events since the previous move).
    #[serde(default)]
    pub before: Vec<String>,
    /// The mover offered a draw with this move (FIDE Laws 9.1.2): `{(=)}` follows it, as a
    /// scoresheet marks it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub draw_offer: bool,
}

/// A free-text comment's words handed to `w` one by one: the text's words, single-spaced, in
/// braces (braces cannot appear inside one: theirs become parentheses, and words are kept
/// whole). Each is written into `tok` (a 1,000,000-entry log's take-backs are 20,000
/// comments, whose four copies each were a tenth of `pgn`).
fn comment_tokens(text: &str, w: &mut Wrap<'_>, tok: &mut String) {
    // Most comments are words of printable ASCII one space apart: in braces, they are wrapped a
    // line at a time (the take-backs of a 1,000,000-entry log are 1.6 million words).
    if single_spaced(text) {
        tok.clear();
        tok.push('{');
        tok.push_str(text);
        tok.push('}');
        w.words(tok);
        return;
    }
    // ASCII text is cut a byte at a time (its white space is ASCII's and the vertical tab).
    if text.is_ascii() && !text.contains('\u{b}') {
        words_tokens(text.split_ascii_whitespace(), w, tok);
    } else {
        words_tokens(text.split_whitespace(), w, tok);
    }
}

/// `text` is words of printable ASCII but braces, one space between two, none before or after:
/// the words [`comment_tokens`] cuts it into are then its own, as they are.
fn single_spaced(text: &str) -> bool {
    let b = text.as_bytes();
    // (Every byte looked at, without stopping early, so that many are looked at at once.)
    let printable = b.iter().fold(true, |ok, &c| {
        ok & (b' '..=b'~').contains(&c) & (c != b'{') & (c != b'}')
    });
    printable
        && b.first().is_some_and(|&c| c != b' ')
        && b.last().is_some_and(|&c| c != b' ')
        && !text.contains("  ")
}

/// [`comment_tokens`] of a comment's words.
fn words_tokens<'t>(words: impl Iterator<Item = &'t str>, w: &mut Wrap<'_>, tok: &mut String) {
    let mut words = words.peekable();
    if words.peek().is_none() {
        w.token("{}");
        return;
    }
    let mut open = "{";
    while let Some(word) = words.next() {
        let close = if words.peek().is_none() { "}" } else { "" };
        // (A brace is one byte, never inside another character's bytes.)
        if word.bytes().any(|b| b == b'{' || b == b'}') {
            tok.clear();
            tok.extend(word.chars().map(|c| match c {
                '{' => '(',
                '}' => ')',
                c => c,
            }));
            w.token_in(open, tok, close);
        } else {
            // The word goes into the text as it is, not through a copy of its own.
            w.token_in(open, word, close);
        }
        open = "";
    }
}

/// `h:mm:ss` of whole seconds.
fn hms(total_s: u64) -> String {
    let mut out = String::new();
    push_hms(&mut out, total_s);
    out
}

/// [`hms`] written onto `out`.
fn push_hms(out: &mut String, total_s: u64) {
    use std::fmt::Write as _;
    let _ = write!(
        out,
        "{}:{:02}:{:02}",
        total_s / 3600,
        total_s / 60 % 60,
        total_s % 60
    );
}

/// A remaining-time figure for `%clk`: rounded down to the second.
pub fn format_clock(ms: u64) -> String {
    hms(ms / 1000)
}

/// A duration for `%emt`: rounded to the nearest second, halves up.
pub fn format_elapsed(ms: u64) -> String {
    hms(ms.saturating_add(500) / 1000)
}

/// A tag value with `\` and `"` escaped and line breaks flattened.
fn tag_value(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' | '\r' | '\t' => out.push(' '),
            // Any other control character (an escape sequence in a declared name) is written
            // escaped, never raw.
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

fn result_token(r: &str) -> &str {
    match r.trim() {
        r @ ("1-0" | "0-1" | "1/2-1/2") => r,
        _ => "*",
    }
}

/// The game as PGN: the Seven Tag Roster in order, TimeControl, Termination (when known), then
/// the movetext with a clock comment on every move, ending with the result.
/// Movetext wrapped at [`MAX_LINE`] columns as its tokens come, written straight onto `out`
/// (not into a line of its own first, copied again at each break).
struct Wrap<'a> {
    out: &'a mut String,
    /// The bytes of the line being written, at the end of `out`.
    line: usize,
    /// Where `out` goes once it holds [`CHUNK`] bytes (and is emptied), when the text is written
    /// as it is made ([`write_pgn_to`]); the first error, after which nothing more is written.
    sink: Option<&'a mut dyn std::io::Write>,
    failed: Option<std::io::Error>,
}

/// Bytes of PGN handed to a [`write_pgn_to`] writer at a time.
const CHUNK: usize = 1 << 16;

impl Wrap<'_> {
    /// `out` handed to the sink, when it holds a chunk (or `all`: what is left).
    fn spill(&mut self, all: bool) {
        if let Some(sink) = self.sink.as_mut()
            && (all || self.out.len() >= CHUNK)
        {
            if self.failed.is_none()
                && let Err(e) = sink.write_all(self.out.as_bytes())
            {
                self.failed = Some(e);
            }
            self.out.clear();
        }
    }

    /// The words of `s` (one space apart, none before or after) as [`Wrap::token`] would write
    /// them one by one, written a line's worth at a time: as many whole words as the line has
    /// room for, then a break.
    fn words(&mut self, s: &str) {
        let mut rest = s;
        while !rest.is_empty() {
            let room = match self.line {
                0 => MAX_LINE,
                n => MAX_LINE.saturating_sub(n + 1),
            };
            let mut take = match rest.as_bytes().get(..=room) {
                // (At `room` itself a space ends a run of words that just fits.)
                Some(window) => window.iter().rposition(|&b| b == b' ').unwrap_or(0),
                None => rest.len(),
            };
            if take == 0 {
                if self.line > 0 {
                    self.out.push('\n');
                    self.line = 0;
                    continue;
                }
                // A word longer than a line stands alone on its own.
                take = rest.find(' ').unwrap_or(rest.len());
            }
            if self.line > 0 {
                self.out.push(' ');
                self.line += 1;
            }
            let (run, after) = rest.split_at(take);
            self.out.push_str(run);
            self.line += take;
            rest = after.strip_prefix(' ').unwrap_or(after);
            self.spill(false);
        }
    }

    fn token(&mut self, t: &str) {
        self.token_in("", t, "");
    }

    /// The token `open`, `t` and `close` written together.
    fn token_in(&mut self, open: &str, t: &str, close: &str) {
        let len = open.len() + t.len() + close.len();
        if self.line > 0 {
            if self.line + 1 + len > MAX_LINE {
                self.out.push('\n');
                self.line = 0;
            } else {
                self.out.push(' ');
                self.line += 1;
            }
        }
        self.out.push_str(open);
        self.out.push_str(t);
        self.out.push_str(close);
        self.line += len;
        self.spill(false);
    }
}

pub fn write_pgn(game: &PgnGame) -> String {
    // About 40 bytes a move and the comments' text, a newline every line: the text is not copied
    // as it grows (a 1,000,000-entry log).
    let comments: usize = game
        .moves
        .iter()
        .flat_map(|m| &m.before)
        .chain(&game.trailing)
        .map(|c| c.len() + 3)
        .sum();
    let text = game.moves.len() * 40 + comments;
    let mut out = String::with_capacity(1024 + text + text / MAX_LINE);
    pgn_into(game, None, &mut out, None);
    out
}

/// [`write_pgn`] written onto `w` as it is made, a chunk at a time (the 8 MB PGN of a
/// 1,000,000-entry log is not held whole), with `lead`, when given, as a comment of its own
/// before the moves (a warning that travels with the file). The first write error is returned.
pub fn write_pgn_to(
    game: &PgnGame,
    lead: Option<&str>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut out = String::with_capacity(CHUNK + 1024);
    match pgn_into(game, lead, &mut out, Some(w)) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The PGN of `game` onto `out` (handed to `sink` a chunk at a time, when given); the sink's
/// first error.
fn pgn_into<'a>(
    game: &PgnGame,
    lead: Option<&str>,
    out: &'a mut String,
    sink: Option<&'a mut dyn std::io::Write>,
) -> Option<std::io::Error> {
    use std::fmt::Write as _;
    let result = result_token(&game.result);
    let mut tags: Vec<(&str, &str)> = vec![
        ("Event", &game.event),
        ("Site", &game.site),
        ("Date", &game.date),
        ("Round", &game.round),
        ("White", &game.white),
        ("Black", &game.black),
        ("Result", result),
        ("TimeControl", &game.time_control),
    ];
    if let Some(t) = &game.termination {
        tags.push(("Termination", t));
    }
    if let Some(f) = &game.fen {
        tags.push(("SetUp", "1"));
        tags.push(("FEN", f));
    }
    for (name, value) in &game.extra {
        tags.push((name, value));
    }
    for (name, value) in tags {
        let value = if value.trim().is_empty() { "?" } else { value };
        out.push_str(&format!("[{name} \"{}\"]\n", tag_value(value)));
    }
    out.push('\n');
    if let Some(lead) = lead {
        out.push_str(&format!("{{{lead}}}\n"));
    }

    // Tokens are wrapped at MAX_LINE as they come (a long log's comments are not all held twice).
    let mut w = Wrap {
        out,
        line: 0,
        sink,
        failed: None,
    };
    let mut tok = String::new();
    for (i, m) in game.moves.iter().enumerate() {
        for c in &m.before {
            comment_tokens(c, &mut w, &mut tok);
        }
        // Every move is followed by a comment, so Black's moves repeat the number. The tokens
        // are written into one reused buffer (no allocation a move).
        tok.clear();
        let dots = if game.numbering.is_white(i) {
            "."
        } else {
            "..."
        };
        let _ = write!(tok, "{}{dots}", game.numbering.number(i));
        w.token(&tok);
        if m.san.contains(char::is_whitespace) {
            tok.clear();
            tok.extend(m.san.split_whitespace());
            w.token(&tok);
        } else {
            w.token(&m.san);
        }
        tok.clear();
        tok.push_str("{[%clk ");
        push_hms(&mut tok, m.clock_ms / 1000);
        tok.push_str("] [%emt ");
        push_hms(&mut tok, m.spent_ms.saturating_add(500) / 1000);
        tok.push_str("]}");
        w.token(&tok);
        if m.draw_offer {
            w.token("{(=)}");
        }
    }
    for c in &game.trailing {
        comment_tokens(c, &mut w, &mut tok);
    }
    w.token(result);
    w.out.push('\n');
    w.spill(true);
    w.failed
}

/// The PGN TimeControl tag from periods `(moves, seconds, increment seconds)`: `moves/seconds`
/// for a period of a number of moves, `seconds` for the rest of the game, `+increment` when there
/// is one; periods joined by `:`. No periods gives `-` (no time control).
pub fn time_control_tag(periods: &[(Option<u32>, u64, u64)]) -> String {
    if periods.is_empty() {
        return "-".to_owned();
    }
    periods
        .iter()
        .map(|&(moves, secs, inc)| {
            let mut p = match moves {
                Some(n) => format!("{n}/{secs}"),
                None => secs.to_string(),
            };
            if inc > 0 {
                p.push_str(&format!("+{inc}"));
            }
            p
        })
        .collect::<Vec<_>>()
        .join(":")
}

/// What the PGN of a replayed game holds, before it is written (the live relay adds its tags to it).
pub fn pgn_game(
    game: &crate::core::game::Game,
    times: &crate::report::times::Times,
    first_utc: &str,
) -> PgnGame {
    let date = chrono::DateTime::parse_from_rfc3339(first_utc)
        .ok()
        .map_or_else(
            || "????.??.??".to_string(),
            |t| t.format("%Y.%m.%d").to_string(),
        );
    let name = |s| {
        game.player(s)
            .map_or_else(|| "?".to_string(), |p| p.name.clone())
    };
    let (result, termination) = match &game.outcome() {
        Some(o) => (
            o.score.text().to_string(),
            Some(o.termination.pgn().to_string()),
        ),
        None => ("*".to_string(), None),
    };
    let (moves, trailing) = times.pgn_moves();
    PgnGame {
        event: game.profile().profile.name.clone(),
        site: "?".into(),
        date,
        round: game.ctx().game.to_string(),
        white: name(crate::core::Side::White),
        black: name(crate::core::Side::Black),
        result,
        time_control: game.profile().pgn_time_control(crate::core::Side::White),
        termination,
        numbering: game.board().numbering(),
        fen: game
            .board()
            .start_fen()
            .filter(|f| f != crate::core::game::start::INITIAL),
        moves,
        trailing,
        extra: Vec::new(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_comments_tokens_are_its_words_in_braces() {
        // The comment as it was written whole before: its words joined, braces replaced,
        // wrapped in braces, and cut at its spaces; the wrapped text the same either way.
        fn whole(text: &str) -> Vec<String> {
            let clean: Vec<&str> = text.split_whitespace().collect();
            let c = format!(
                "{{{}}}",
                clean.join(" ").replace('{', "(").replace('}', ")")
            );
            c.split(' ').map(str::to_owned).collect()
        }
        let long = "6d: 1. d4, 2. c4 taken back: their time {0:00:00.300} stays ".repeat(9);
        for text in [
            "",
            "   ",
            "one",
            " one ",
            "{",
            "}{ a\t\nb  {c}  ",
            "vertical\u{b}tab and\u{c}form feed\r\n",
            "  émoji 😀 \u{a0}non-breaking\u{2003}em space ",
            &long,
        ] {
            let (mut a, mut b) = (String::from("1. e4"), String::from("1. e4"));
            let mut tok = String::new();
            let mut wa = Wrap {
                out: &mut a,
                line: 5,
                sink: None,
                failed: None,
            };
            comment_tokens(text, &mut wa, &mut tok);
            let line_a = wa.line;
            let mut wb = Wrap {
                out: &mut b,
                line: 5,
                sink: None,
                failed: None,
            };
            for t in whole(text) {
                wb.token(&t);
            }
            let line_b = wb.line;
            assert_eq!((&a, line_a), (&b, line_b), "{text:?}");
            assert_eq!(
                line_a,
                a.len() - a.rfind('\n').map_or(0, |n| n + 1),
                "{text:?}"
            );
        }
    }

    proptest::proptest! {
        /// A comment of single-spaced words, wrapped a line at a time, is the text and
        /// the column its words give written one by one, from any column, whatever their length.
        #[test]
        fn single_spaced_words_wrapped_a_line_at_a_time_as_one_by_one(
            words in proptest::collection::vec("[!-z|~]{1,12}|[a-z]{70,90}", 1..60),
            line in 0usize..100,
        ) {
            let text = words.join(" ");
            proptest::prop_assert!(single_spaced(&text));
            let (mut a, mut b) = ("x".repeat(line), "x".repeat(line));
            let mut tok = String::new();
            let mut wa = Wrap { out: &mut a, line, sink: None, failed: None };
            comment_tokens(&text, &mut wa, &mut tok);
            let line_a = wa.line;
            let mut wb = Wrap { out: &mut b, line, sink: None, failed: None };
            let n = words.len();
            for (i, word) in words.iter().enumerate() {
                let open = if i == 0 { "{" } else { "" };
                let close = if i + 1 == n { "}" } else { "" };
                wb.token_in(open, word, close);
            }
            let line_b = wb.line;
            proptest::prop_assert_eq!((a, line_a), (b, line_b));
        }
    }

    #[test]
    fn only_single_spaced_plain_words_take_the_line_at_a_time_path() {
        for (text, plain) in [
            ("a b c", true),
            ("6d: 1. d4 taken back", true),
            ("", false),
            (" a", false),
            ("a ", false),
            ("a  b", false),
            ("a\tb", false),
            ("a {b}", false),
            ("\u{e9}t\u{e9}", false),
            ("a\u{1}b", false),
        ] {
            assert_eq!(single_spaced(text), plain, "{text:?}");
        }
    }

    fn game(moves: Vec<PgnMove>) -> PgnGame {
        PgnGame {
            event: "Man vs Machine \"2003\"".to_owned(),
            site: "New York".to_owned(),
            date: "2003.01.26".to_owned(),
            round: "1".to_owned(),
            white: "Kasparov, Garry".to_owned(),
            black: "Deep Junior".to_owned(),
            result: "1/2-1/2".to_owned(),
            time_control: "40/7200:20/3600:1800".to_owned(),
            termination: Some("normal".to_owned()),
            fen: None,
            numbering: Default::default(),
            moves,
            trailing: Vec::new(),
            extra: Vec::new(),
        }
    }

    fn mv(san: &str, clock_ms: u64, spent_ms: u64) -> PgnMove {
        PgnMove {
            san: san.to_owned(),
            clock_ms,
            spent_ms,
            before: Vec::new(),
            draw_offer: false,
        }
    }

    #[test]
    fn pgn_written_a_chunk_at_a_time_is_the_whole_text() {
        // Over 64 KB of movetext: several chunks, cut anywhere in a line.
        let mut g = game(
            (0..5_000)
                .map(|i| mv(["d4", "d5"][i % 2], 7_000_000 - i as u64, 1_000))
                .collect(),
        );
        g.moves[1].before = vec!["a comment {with braces} ".repeat(40)];
        g.trailing = vec!["the end".to_owned()];
        let whole = write_pgn(&g);
        assert!(whole.len() > 2 * CHUNK, "{}", whole.len());
        let mut out = Vec::new();
        write_pgn_to(&g, None, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), whole);
        // A lead comment goes before the moves, after the tags' blank line.
        let mut out = Vec::new();
        write_pgn_to(&g, Some("WARNING: demo"), &mut out).unwrap();
        let at = whole.find("\n\n").unwrap() + 2;
        let want = format!("{}{{WARNING: demo}}\n{}", &whole[..at], &whole[at..]);
        assert_eq!(String::from_utf8(out).unwrap(), want);
        // The first write error is the answer.
        struct Full(usize);
        impl std::io::Write for Full {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                if self.0 == 0 {
                    return Err(std::io::Error::other("disk full"));
                }
                self.0 -= 1;
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let e = write_pgn_to(&g, None, &mut Full(1)).unwrap_err();
        assert_eq!(e.to_string(), "disk full");
    }

    #[test]
    fn pgn_exact_output_of_a_short_game() {
        let g = game(vec![
            mv("d4", 7_199_900, 100),
            mv("d5", 7_195_499, 4_501),
            mv("c4", 7_000_000, 199_900),
        ]);
        assert_eq!(
            write_pgn(&g),
            "[Event \"Man vs Machine \\\"2003\\\"\"]\n\
             [Site \"New York\"]\n\
             [Date \"2003.01.26\"]\n\
             [Round \"1\"]\n\
             [White \"Kasparov, Garry\"]\n\
             [Black \"Deep Junior\"]\n\
             [Result \"1/2-1/2\"]\n\
             [TimeControl \"40/7200:20/3600:1800\"]\n\
             [Termination \"normal\"]\n\
             \n\
             1. d4 {[%clk 1:59:59] [%emt 0:00:00]} 1... d5 {[%clk 1:59:55] [%emt 0:00:05]}\n\
             2. c4 {[%clk 1:56:40] [%emt 0:03:20]} 1/2-1/2\n"
        );
    }

    #[test]
    fn pgn_clock_comments_of_their_own_before_the_next_move_and_at_the_end() {
        let mut g = game(vec![mv("d4", 7_199_900, 100), mv("d5", 7_195_499, 4_501)]);
        g.moves[1].before = vec!["1... Nf6 taken back {6d}".to_owned()];
        g.trailing = vec!["white's clock corrected: +0:00:20".to_owned()];
        let pgn = write_pgn(&g);
        assert!(
            pgn.contains(
                "1. d4 {[%clk 1:59:59] [%emt 0:00:00]} {1... Nf6 taken back (6d)} 1... d5"
            ),
            "{pgn}"
        );
        assert!(
            pgn.contains("{white's clock corrected: +0:00:20} 1/2-1/2"),
            "{pgn}"
        );
        assert!(pgn.lines().all(|l| l.len() <= MAX_LINE), "{pgn}");
    }

    #[test]
    fn pgn_rounding_of_clocks_and_elapsed_times() {
        assert_eq!(format_clock(59_999), "0:00:59");
        assert_eq!(format_clock(0), "0:00:00");
        assert_eq!(format_clock(10_800_000), "3:00:00");
        assert_eq!(format_clock(45_296_789), "12:34:56");
        assert_eq!(format_elapsed(499), "0:00:00");
        assert_eq!(format_elapsed(500), "0:00:01");
        assert_eq!(format_elapsed(1_499), "0:00:01");
        assert_eq!(format_elapsed(3_599_500), "1:00:00");
        assert_eq!(format_elapsed(u64::MAX), hms(u64::MAX / 1000));
    }

    #[test]
    fn pgn_no_moves_and_unknown_fields() {
        let mut g = game(Vec::new());
        g.result = String::new();
        g.site = String::new();
        g.termination = None;
        let pgn = write_pgn(&g);
        assert!(pgn.contains("[Site \"?\"]\n"));
        assert!(pgn.contains("[Result \"*\"]\n"));
        assert!(!pgn.contains("Termination"));
        assert!(pgn.ends_with("\n\n*\n"));
    }

    #[test]
    fn pgn_time_control_tags() {
        assert_eq!(
            time_control_tag(&[(Some(40), 7200, 0), (Some(20), 3600, 0), (None, 1800, 0)]),
            "40/7200:20/3600:1800"
        );
        assert_eq!(time_control_tag(&[(None, 5400, 30)]), "5400+30");
        assert_eq!(
            time_control_tag(&[(Some(40), 5400, 30), (None, 1800, 30)]),
            "40/5400+30:1800+30"
        );
        assert_eq!(time_control_tag(&[]), "-");
    }
}
