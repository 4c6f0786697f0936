//! The terminal around the Board UI: refuse to start without one (before anything is written to
//! it), and put back a terminal an earlier run left raw on the alternate screen (`kill -9`, a
//! power cut), so the next start recovers it without `reset`.
use std::io::{IsTerminal, Write};

use rustix::termios::{self, InputModes, LocalModes, OptionalActions, OutputModes};

/// `Ok` when stdin and stdout are both terminals; otherwise a clear error, and nothing written
/// to stdout (no escape sequence).
pub fn require() -> std::io::Result<()> {
    let missing = match (
        std::io::stdin().is_terminal(),
        std::io::stdout().is_terminal(),
    ) {
        (true, true) => return Ok(()),
        (false, true) => "stdin",
        (true, false) => "stdout",
        (false, false) => "stdin and stdout",
    };
    Err(std::io::Error::other(format!(
        "arbiter play needs a terminal, and {missing} is not one; run it in a terminal (or use arbiter script for a game without one)"
    )))
}

/// Whether the terminal on stdin was left in raw mode (no line editing, no echo).
pub fn left_raw() -> bool {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return false;
    }
    termios::tcgetattr(&stdin).is_ok_and(|t| {
        !t.local_modes.contains(LocalModes::ICANON) || !t.local_modes.contains(LocalModes::ECHO)
    })
}

/// Undo what a killed Board UI leaves behind: line discipline back to cooked with echo, the main
/// screen, the cursor shown, attributes reset. Returns whether the terminal needed it.
pub fn recover() -> bool {
    if !left_raw() || !std::io::stdout().is_terminal() {
        return false;
    }
    let stdin = std::io::stdin();
    if let Ok(mut t) = termios::tcgetattr(&stdin) {
        t.local_modes |=
            LocalModes::ICANON | LocalModes::ECHO | LocalModes::ISIG | LocalModes::IEXTEN;
        t.input_modes |= InputModes::ICRNL | InputModes::IXON;
        t.output_modes |= OutputModes::OPOST;
        let _ = termios::tcsetattr(&stdin, OptionalActions::Now, &t);
    }
    let mut out = std::io::stdout();
    // Leave the alternate screen, show the cursor, reset colours; mouse and paste modes off.
    let _ = out.write_all(b"\x1b[?1049l\x1b[?25h\x1b[0m\x1b[?1000l\x1b[?2004l");
    let _ = out.flush();
    true
}

/// The locale says UTF-8 (else the diagram uses letters).
pub fn utf8_locale() -> bool {
    ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
        .is_none_or(|s| {
            let s = s.to_ascii_lowercase();
            s.contains("utf-8") || s.contains("utf8")
        })
}

/// `NO_COLOR` is set to something (<https://no-color.org>).
pub fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}
