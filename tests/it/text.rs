//! Free text is kept (rule 5b: the log records what was said): a `#` inside text is never taken
//! for a comment silently, `\#` keeps one, and text longer than the documented limit is refused
//! naming the limit. Entry times never run backwards.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::core::command::{Command, CommandError, MAX_TEXT_CHARS, parse};
use arbiter::core::script::{CommentError, ScriptProblem, parse_script, strip_comment};

#[test]
fn clause_5b_a_hash_inside_text_is_refused_not_swallowed() {
    let e = parse_script("0 arbiter start\n10 arbiter note game #3 was a draw\n").unwrap_err();
    assert_eq!(e.line, 2);
    assert!(
        matches!(&e.problem, ScriptProblem::Comment(CommentError(w)) if w == "#3"),
        "{e}"
    );
    let m = e.problem.to_string();
    assert!(m.contains("'#3'"), "{m}");
    assert!(m.contains("\\#"), "{m}");
}

#[test]
fn clause_5b_escaped_hash_is_kept_and_comments_still_work() {
    let lines = parse_script(
        "# a whole-line comment\n0 arbiter start   # 3\n10 arbiter note game \\#3 was a draw # 5b\n",
    )
    .unwrap();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[1].command,
        Command::Note {
            text: "game #3 was a draw".into()
        }
    );
    assert_eq!(strip_comment("move Qxf7# # mate").unwrap(), "move Qxf7# ");
    assert!(strip_comment("arbiter note a#b").is_err());
    assert_eq!(strip_comment("move e4 #").unwrap(), "move e4 ");
}

#[test]
fn clause_5b_free_text_longer_than_the_limit_is_refused_naming_it() {
    let at_limit = format!("arbiter note {}", "x".repeat(MAX_TEXT_CHARS));
    assert!(parse(&at_limit).is_ok());
    let over = format!("arbiter note {}", "x".repeat(MAX_TEXT_CHARS + 1));
    let e = parse(&over).unwrap_err();
    assert!(
        matches!(e, CommandError::TextTooLong { chars, .. } if chars == MAX_TEXT_CHARS + 1),
        "{e}"
    );
    let e = e.to_string();
    assert!(
        e.contains(&format!("at most {MAX_TEXT_CHARS} characters")),
        "{e}"
    );
    // In a script, the line is named.
    let e = parse_script(&format!("0 {over}\n")).unwrap_err();
    assert_eq!(e.line, 1);
}
