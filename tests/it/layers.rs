//! The layer rules stated in `src/lib.rs`, checked by reading the source (grep-level), the one
//! exit-code table against README.md and docs/log-format.md, and the test binary's module list.
//! Each checker is also shown a violation, so that none of them passes for want of looking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use arbiter::error::{Documented, Exit};

/// A source file: its path from the crate root and its text.
type Source = (String, String);

/// Every `.rs` file under `dir` (recursively), sorted by path.
fn sources(dir: &str) -> Vec<Source> {
    fn walk(dir: &Path, out: &mut Vec<Source>) {
        for item in std::fs::read_dir(dir).unwrap() {
            let path = item.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path.display().to_string(), text));
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new(dir), &mut out);
    out.sort();
    out
}

/// The code lines of a file (numbered from 1): comments (whole lines, and trailing ` // …`) are
/// left out, and so is everything from the first `#[cfg(test)]` on (unit tests may read files).
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, l)| l.trim() != "#[cfg(test)]")
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .map(|(i, l)| (i + 1, l.split(" // ").next().unwrap_or(l)))
}

/// `path:line: text` for every code line that contains one of `needles`.
fn lines_with(files: &[Source], needles: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for (path, text) in files {
        for (n, line) in code_lines(text) {
            if needles.iter().any(|w| line.contains(w)) {
                out.push(format!("{path}:{n}: {}", line.trim()));
            }
        }
    }
    out
}

/// `path:line: text` for every use of `crate::<module>` whose module is not in `allowed`.
fn uses_outside(files: &[Source], allowed: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for (path, text) in files {
        for (n, line) in code_lines(text) {
            for (at, _) in line.match_indices("crate::") {
                let rest = &line[at + "crate::".len()..];
                let module: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                // `crate::{a, b}` lists several: check each.
                let modules: Vec<String> = if rest.starts_with('{') {
                    rest[1..rest.find('}').unwrap_or(rest.len())]
                        .split(',')
                        .map(|m| m.trim().split("::").next().unwrap_or("").to_string())
                        .collect()
                } else {
                    vec![module]
                };
                for m in modules {
                    if !m.is_empty() && !allowed.contains(&m.as_str()) {
                        out.push(format!("{path}:{n}: crate::{m}: {}", line.trim()));
                    }
                }
            }
        }
    }
    out
}

/// What the pure layers may not touch: the file system, clocks, the environment, the process.
const CLOCK_AND_FILE: [&str; 14] = [
    "std::fs",
    "fs::",
    "File::",
    "OpenOptions",
    "read_to_string",
    "read_dir",
    "Instant::now",
    "SystemTime",
    "Utc::now",
    "Local::now",
    "chrono::Local",
    "std::env",
    "thread::sleep",
    "std::process",
];

fn assert_none(what: &str, found: Vec<String>) {
    assert!(found.is_empty(), "{what}:\n{}", found.join("\n"));
}

#[test]
fn layers_core_log_and_enginelog_read_no_clock_and_no_file() {
    for dir in ["src/core", "src/log", "src/enginelog"] {
        assert_none(
            &format!("{dir} is PURE: it reads no clock and no file"),
            lines_with(&sources(dir), &CLOCK_AND_FILE),
        );
    }
}

#[test]
fn layers_pure_layers_use_only_the_layers_below() {
    assert_none(
        "src/core uses no other layer",
        uses_outside(&sources("src/core"), &["core"]),
    );
    assert_none(
        "src/log uses only the core",
        uses_outside(&sources("src/log"), &["log", "core"]),
    );
    assert_none(
        "src/enginelog uses only the core",
        uses_outside(&sources("src/enginelog"), &["enginelog", "core"]),
    );
}

#[test]
fn layers_report_is_pure() {
    let report = sources("src/report");
    assert_none(
        "src/report is PURE: it reads no clock and no file",
        lines_with(&report, &CLOCK_AND_FILE),
    );
    assert_none(
        "src/report uses only core, log and enginelog",
        uses_outside(&report, &["report", "core", "log", "enginelog"]),
    );
}

/// `path:line: Result<…, String>` for every `Result` in code whose error type is a bare
/// `String` (written over several lines too, or nested in another type).
fn string_errors(files: &[Source]) -> Vec<String> {
    let mut out = Vec::new();
    for (path, text) in files {
        let mut code = String::new();
        let mut starts = Vec::new();
        for (n, line) in code_lines(text) {
            starts.push((code.len(), n));
            code.push_str(line);
            code.push('\n');
        }
        for (at, _) in code.match_indices("Result<") {
            // `MyResult<…>` is another type.
            if code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
            {
                continue;
            }
            let body = &code[at + "Result<".len()..];
            let (mut depth, mut commas, mut end) = (0usize, Vec::new(), None);
            for (i, c) in body.char_indices() {
                match c {
                    '<' | '(' | '[' => depth += 1,
                    '>' | ')' | ']' if depth == 0 => {
                        end = Some(i);
                        break;
                    }
                    '>' | ')' | ']' => depth -= 1,
                    ',' if depth == 0 => commas.push(i),
                    _ => {}
                }
            }
            let Some(end) = end else {
                continue;
            };
            // The error type: the last argument (a trailing comma ends it).
            let mut bounds: Vec<usize> = commas;
            if bounds
                .last()
                .is_some_and(|&c| body[c + 1..end].trim().is_empty())
            {
                bounds.pop();
            }
            let Some(&comma) = bounds.last() else {
                continue;
            };
            let error = body[comma + 1..end].trim().trim_end_matches(',').trim();
            if error.trim_start_matches("std::string::") == "String" {
                let n = starts
                    .iter()
                    .rev()
                    .find(|(o, _)| *o <= at)
                    .map_or(0, |(_, n)| *n);
                let shown: String = code[at..at + "Result<".len() + end + 1]
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                out.push(format!("{path}:{n}: {shown}"));
            }
        }
    }
    out
}

#[test]
fn layers_core_enginelog_and_report_return_typed_errors() {
    for dir in ["src/core", "src/enginelog", "src/report"] {
        assert_none(
            &format!(
                "{dir} returns typed errors (thiserror), never Result<_, String>: a refusal reaches the CLI's exit-code table by its type"
            ),
            string_errors(&sources(dir)),
        );
    }
}

/// `module -> modules it uses` over the top-level modules of the files (`src/<m>.rs`,
/// `src/<m>/…`).
fn module_graph(files: &[Source]) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in files {
        let rel = path.strip_prefix("src/").unwrap_or(path);
        let top = rel.split('/').next().unwrap_or(rel).trim_end_matches(".rs");
        let file = [(path.clone(), text.clone())];
        let used = graph.entry(top.to_string()).or_default();
        for hit in uses_outside(&file, &[top]) {
            let m = hit.split("crate::").nth(1).unwrap_or("");
            used.insert(m.split(':').next().unwrap_or("").to_string());
        }
    }
    graph
}

/// A cycle of module uses (`a -> b -> a`), if there is one.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut c = path[at..].to_vec();
            c.push(m.to_string());
            return Some(c);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for next in graph.get(m).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

#[test]
fn layers_modules_do_not_use_each_other_in_a_cycle() {
    let graph = module_graph(&sources("src"));
    assert!(graph.contains_key("record") && graph.contains_key("board"));
    if let Some(c) = cycle(&graph) {
        panic!("modules use each other in a cycle: {}", c.join(" -> "));
    }
}

/// What opens a socket.
const SOCKETS: [&str; 6] = [
    "std::net",
    "TcpListener",
    "TcpStream",
    "UdpSocket",
    "UnixStream",
    "tungstenite",
];

#[test]
fn layers_the_table_uses_core_log_and_the_record_never_the_board_or_the_cli() {
    let table = sources("src/table");
    assert!(!table.is_empty(), "src/table holds the werewolf table");
    let used: BTreeSet<String> = module_graph(&table).into_values().flatten().collect();
    for forbidden in ["board", "after", "cli"] {
        assert!(
            !used.contains(forbidden),
            "src/table uses crate::{forbidden}: the table uses the core, the log and the record, never the board, what comes after the game, or the CLI"
        );
    }
    assert!(used.contains("record") && used.contains("core"));
    assert_none(
        "the core never uses the table",
        lines_with(&sources("src/core"), &["crate::table"]),
    );
}

/// The groups of the shell a group's files use (`crate::<group>`), from its folder.
fn group_uses(group: &str) -> BTreeSet<String> {
    let files = sources(&format!("src/{group}"));
    assert!(!files.is_empty(), "src/{group} holds its group");
    module_graph(&files).into_values().flatten().collect()
}

#[test]
fn layers_the_record_knows_no_games_shell() {
    let used = group_uses("record");
    for forbidden in ["board", "table", "after", "cli", "bundled"] {
        assert!(
            !used.contains(forbidden),
            "src/record uses crate::{forbidden}: the record every game family shares uses only the pure layers"
        );
    }
}

#[test]
fn layers_the_board_and_the_table_do_not_use_each_other_nor_what_comes_after() {
    let board = group_uses("board");
    for forbidden in ["table", "after", "cli"] {
        assert!(
            !board.contains(forbidden),
            "src/board uses crate::{forbidden}: the board uses the record and the pure layers"
        );
    }
    let after = group_uses("after");
    for forbidden in ["table", "cli"] {
        assert!(
            !after.contains(forbidden),
            "src/after uses crate::{forbidden}: after the game uses the record and the board's replay"
        );
    }
}

#[test]
fn layers_only_the_tables_control_channel_and_the_agent_client_use_a_unix_socket() {
    // The game master's screen hands the arbiter's acts to the table through the match folder's
    // own socket file (`layout::control_socket`, owner-only), and `--agent` asks the local
    // ssh-agent at SSH_AUTH_SOCK for a signature (src/record/agent.rs, a client only): neither
    // is a network connection, and no other module opens a Unix socket.
    let unix = ["UnixStream", "UnixListener", "UnixDatagram"];
    let outside: Vec<Source> = sources("src")
        .into_iter()
        .filter(|(p, _)| p != "src/table/control.rs" && p != "src/record/agent.rs")
        .collect();
    assert_none(
        "only src/table/control.rs (the control socket of the match folder) and src/record/agent.rs (the ssh-agent client) use a Unix socket",
        lines_with(&outside, &unix),
    );
    let agent: Vec<Source> = sources("src/record")
        .into_iter()
        .filter(|(p, _)| p == "src/record/agent.rs")
        .collect();
    assert!(!lines_with(&agent, &["UnixStream::connect"]).is_empty());
    assert_none(
        "the agent client connects to the agent's socket; it never listens",
        lines_with(&agent, &["UnixListener", "UnixDatagram", "std::net"]),
    );
    let control: Vec<Source> = sources("src/table")
        .into_iter()
        .filter(|(p, _)| p == "src/table/control.rs")
        .collect();
    assert!(!lines_with(&control, &["UnixListener::bind"]).is_empty());
    assert!(!lines_with(&control, &["layout::control_socket(match_dir)"]).is_empty());
    // The checker sees a violation.
    let shown = vec![(
        "src/board/x.rs".to_string(),
        "let s = UnixStream::connect(p);".to_string(),
    )];
    assert!(!lines_with(&shown, &unix).is_empty());
}

#[test]
fn layers_only_serve_live_the_witness_and_the_seat_open_sockets() {
    // Only what serves a table (`serve`, listening), its human's seat (connecting to the table),
    // the live record (`live`, listening) and a camp's witness (run on the camp's own machine,
    // connecting to the live record) touch sockets.
    let allowed = |p: &str| {
        p.starts_with("src/table/")
            || p == "src/cli/serve.rs"
            || p == "src/record/live/server.rs"
            || p == "src/record/live/witness.rs"
            // The ssh-agent client (`--agent`): a local Unix socket, never the network.
            || p == "src/record/agent.rs"
    };
    let elsewhere: Vec<Source> = sources("src")
        .into_iter()
        .filter(|(p, _)| !allowed(p))
        .collect();
    assert_none(
        "only src/table (`arbiter serve` and `arbiter seat`) and src/record/live (`arbiter live` and `arbiter witness`) open a socket",
        lines_with(&elsewhere, &SOCKETS),
    );
    assert!(!lines_with(&sources("src/table"), &SOCKETS).is_empty());
    assert!(!lines_with(&sources("src/table/seat"), &SOCKETS).is_empty());
    // Only a command given a URL connects out: the seat to its table; the witness, `display
    // --connect` and `relay --connect` (all through record/live/witness.rs) to a live record.
    // Everything else that opens a socket listens.
    let connecting: Vec<Source> = sources("src")
        .into_iter()
        .filter(|(p, _)| p != "src/record/live/witness.rs" && !p.starts_with("src/table/seat/"))
        .collect();
    assert_none(
        "only a camp's witness and a human's seat open an outbound connection",
        lines_with(
            &connecting,
            &[
                "TcpStream::connect",
                "tungstenite::client",
                "tungstenite::connect",
            ],
        ),
    );
    let witness: Vec<Source> = sources("src/record/live")
        .into_iter()
        .filter(|(p, _)| p == "src/record/live/witness.rs")
        .collect();
    assert!(!lines_with(&witness, &["TcpStream::connect"]).is_empty());
    // The seat's model and view are pure: only its shell (mod.rs) touches the socket.
    let seat_pure: Vec<Source> = sources("src/table/seat")
        .into_iter()
        .filter(|(p, _)| p != "src/table/seat/mod.rs")
        .collect();
    assert_none(
        "the seat's model and view open no socket",
        lines_with(&seat_pure, &SOCKETS),
    );
    assert_none(
        "the seat's model and view read no clock",
        lines_with(&seat_pure, &["Instant", "SystemTime", "Utc::now"]),
    );
}

/// Every source file outside the CLI layer (`src/cli/` and `src/main.rs`).
fn outside_cli() -> Vec<Source> {
    sources("src")
        .into_iter()
        .filter(|(p, _)| !p.starts_with("src/cli/") && p != "src/main.rs")
        .collect()
}

#[test]
fn layers_only_the_cli_knows_clap() {
    assert_none(
        "only src/cli/ and src/main.rs know clap",
        lines_with(&outside_cli(), &["clap", "crate::cli"]),
    );
}

#[test]
fn layers_only_the_cli_prints_errors_and_picks_exit_codes() {
    assert_none(
        "only the CLI layer prints `arbiter: …` and makes an exit code",
        lines_with(
            &outside_cli(),
            &["\"arbiter: ", "ExitCode", "process::exit", "eprintln!"],
        ),
    );
}

#[test]
fn layers_every_source_file_opens_with_a_doc_line() {
    let mut files = sources("src");
    files.extend(sources("tests"));
    files.extend(sources("benches"));
    let missing: Vec<String> = files
        .iter()
        .filter(|(_, text)| !text.starts_with("//!"))
        .map(|(p, _)| p.clone())
        .collect();
    assert_none("every file opens with a //! line", missing);
}

/// Names of the test modules a `main.rs` lists (`mod name;`).
fn listed_modules(main: &str) -> BTreeSet<String> {
    main.lines()
        .filter_map(|l| l.trim().strip_prefix("mod "))
        .filter_map(|l| l.split(';').next())
        .map(|m| m.trim().to_string())
        .collect()
}

/// Test files under `dir` that its `main.rs` does not list.
fn forgotten_test_files(dir: &Path) -> Vec<String> {
    let listed = listed_modules(&std::fs::read_to_string(dir.join("main.rs")).unwrap());
    let mut forgotten = Vec::new();
    for item in std::fs::read_dir(dir).unwrap() {
        let path = item.unwrap().path();
        let name = if path.is_dir() {
            if !path.join("mod.rs").exists() {
                continue; // e.g. snapshots/
            }
            path.file_name().unwrap().to_string_lossy().into_owned()
        } else if path.extension().is_some_and(|e| e == "rs") {
            path.file_stem().unwrap().to_string_lossy().into_owned()
        } else {
            continue;
        };
        if name != "main" && !listed.contains(&name) {
            forgotten.push(path.display().to_string());
        }
    }
    forgotten.sort();
    forgotten
}

#[test]
fn layers_no_forgotten_test_files() {
    assert_none(
        "every file under tests/it is a `mod` of tests/it/main.rs",
        forgotten_test_files(Path::new("tests/it")),
    );
}

/// Fields of `pub struct Game` declared plainly `pub` (writable from outside the core).
fn public_game_fields(text: &str) -> Vec<String> {
    let Some(at) = text.find("pub struct Game {") else {
        return vec!["no `pub struct Game` in src/core/game.rs".into()];
    };
    let body = &text[at..];
    let body = &body[..body.find("\n}").unwrap_or(body.len())];
    body.lines()
        .filter(|l| l.trim_start().starts_with("pub ") && l.contains(':'))
        .map(|l| format!("src/core/game.rs: {}", l.trim()))
        .collect()
}

#[test]
fn layers_help_cites_clauses_through_the_clause_constants() {
    let text = std::fs::read_to_string("src/core/command.rs").unwrap();
    let at = text.find("pub const HELP").unwrap();
    let help = &text[at..at + text[at..].find("\n];").unwrap()];
    let literal: Vec<String> = help
        .lines()
        .filter(|l| l.trim_start().starts_with("clause: \""))
        .map(|l| format!("src/core/command.rs HELP: {}", l.trim()))
        .collect();
    assert_none(
        "HELP names clauses by their constants (core::clause)",
        literal,
    );
    assert!(help.matches("clause: super::clause::").count() > 40);
    // The clause each command cites and its confirmation need live beside it.
    assert!(text.contains("pub fn needs_confirmation(&self)"));
    assert!(text.contains("pub fn role(&self)"));
}

#[test]
fn layers_every_rule_family_file_opens_with_its_rules() {
    let mut bad = Vec::new();
    for (path, text) in sources("src/core/game") {
        if !text.starts_with("//! Rule") {
            bad.push(format!("{path}: does not open with `//! Rule…`"));
        }
    }
    assert!(
        sources("src/core/game").len() >= 9,
        "the rule families are files under src/core/game"
    );
    assert_none(
        "each file under src/core/game names the rules it implements first",
        bad,
    );
}

#[test]
fn layers_game_fields_are_not_writable_outside_the_core() {
    let text = std::fs::read_to_string("src/core/game.rs").unwrap();
    assert_none(
        "Game's fields are private to the core (read through accessors)",
        public_game_fields(&text),
    );
    // The check itself catches a plain `pub` field.
    assert_eq!(
        public_game_fields(
            "pub struct Game {\n    pub phase: Phase,\n    pub(in crate::core) clock: Clock,\n}\n"
        )
        .len(),
        1
    );
}

/// The codes of a `0 success; 1 a command …; 65 …` paragraph starting at `lead`.
fn paragraph_codes(text: &str, lead: &str) -> BTreeSet<u8> {
    let at = text.find(lead).unwrap_or_else(|| panic!("no {lead:?}"));
    let rest = &text[at + lead.len()..];
    let paragraph = &rest[..rest.find("\n\n").unwrap_or(rest.len())];
    paragraph
        .split(';')
        .filter_map(|item| item.split_whitespace().next()?.parse().ok())
        .collect()
}

/// `code -> verdict` of the `| exit | verdict | meaning |` table (`None` for `—`).
fn verify_table(text: &str) -> BTreeMap<u8, Option<String>> {
    let at = text.find("| exit | verdict | meaning |").unwrap();
    text[at..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let verdict = cells[2].trim_matches('`');
            (
                cells[1].parse().unwrap(),
                (verdict != "—").then(|| verdict.to_string()),
            )
        })
        .collect()
}

/// The codes the table says are documented in `doc`.
fn table_codes(doc: Documented) -> BTreeSet<u8> {
    Exit::ALL
        .iter()
        .filter(|e| e.documented().contains(&doc))
        .map(|e| e.code())
        .collect()
}

#[test]
fn layers_readme_exit_codes_are_the_table() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    assert_eq!(
        paragraph_codes(&readme, "Exit codes: "),
        table_codes(Documented::Readme),
        "README.md's exit codes and src/error.rs disagree"
    );
    // README repeats verify's codes in prose (all but clap's usage code).
    let mut verify = table_codes(Documented::VerifyTable);
    verify.remove(&Exit::Usage.code());
    assert_eq!(
        paragraph_codes(&readme, "`arbiter verify` exit codes: "),
        verify,
        "README.md's verify codes and src/error.rs disagree"
    );
}

#[test]
fn layers_verify_exit_codes_in_the_log_format_are_the_table() {
    let doc = std::fs::read_to_string("docs/log-format.md").unwrap();
    let table: BTreeMap<u8, Option<String>> = Exit::ALL
        .iter()
        .filter(|e| e.documented().contains(&Documented::VerifyTable))
        .map(|e| (e.code(), e.verdict().map(str::to_string)))
        .collect();
    assert_eq!(
        verify_table(&doc),
        table,
        "docs/log-format.md's verify table and src/error.rs disagree"
    );
}

#[test]
fn layers_exit_codes_are_distinct() {
    let codes: BTreeSet<u8> = Exit::ALL.iter().map(|e| e.code()).collect();
    assert_eq!(codes.len(), Exit::ALL.len(), "two kinds share a code");
}

/// The checkers find what they look for: each is shown one violation.
#[test]
fn layers_checkers_catch_a_violation() {
    let file = |text: &str| vec![("src/x.rs".to_string(), text.to_string())];
    let clock = file("//! x\nfn f() { let t = chrono::Utc::now(); }\n");
    assert_eq!(lines_with(&clock, &CLOCK_AND_FILE).len(), 1);
    let in_comment = file("//! x\n// Utc::now is not read here\nfn f() {} // nor Utc::now\n");
    assert!(lines_with(&in_comment, &CLOCK_AND_FILE).is_empty());
    let in_tests = file("//! x\n#[cfg(test)]\nmod t { fn f() { std::fs::read(\"a\"); } }\n");
    assert!(lines_with(&in_tests, &CLOCK_AND_FILE).is_empty());
    let up = file("use crate::session::Session;\nuse crate::{core::Ms, journal};\n");
    assert_eq!(
        uses_outside(&up, &["core"]),
        [
            "src/x.rs:1: crate::session: use crate::session::Session;",
            "src/x.rs:2: crate::journal: use crate::{core::Ms, journal};"
        ]
    );
    let pair = [
        ("src/a.rs".to_string(), "use crate::b::X;\n".to_string()),
        (
            "src/b/mod.rs".to_string(),
            "fn f() { crate::a::g() }\n".to_string(),
        ),
    ];
    assert_eq!(
        cycle(&module_graph(&pair)),
        Some(vec!["a".to_string(), "b".to_string(), "a".to_string()])
    );
    assert_eq!(cycle(&module_graph(&pair[..1])), None);
    let stringly = file(
        "//! x\nfn f() -> Result<u32, String> {}\nfn g(\n) -> Result<\n    Vec<Option<u8>>,\n    std::string::String,\n> {}\nfn h(v: Vec<Result<Chess, String>>) {}\n",
    );
    assert_eq!(
        string_errors(&stringly),
        [
            "src/x.rs:2: Result<u32, String>",
            "src/x.rs:4: Result< Vec<Option<u8>>, std::string::String, >",
            "src/x.rs:8: Result<Chess, String>"
        ]
    );
    let typed = file(
        "//! x\nfn f() -> Result<String, BoardError> {}\ntype R = MyResult<u8, String>;\n// Result<u8, String> in a comment\n#[cfg(test)]\nfn t() -> Result<(), String> {}\n",
    );
    assert!(
        string_errors(&typed).is_empty(),
        "{:?}",
        string_errors(&typed)
    );
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("main.rs"), "//! m\nmod listed; // why\n").unwrap();
    std::fs::write(tmp.path().join("listed.rs"), "//! l\n").unwrap();
    std::fs::write(tmp.path().join("unlisted.rs"), "//! u\n").unwrap();
    let forgotten = forgotten_test_files(tmp.path());
    assert_eq!(forgotten.len(), 1);
    assert!(forgotten[0].ends_with("unlisted.rs"), "{forgotten:?}");
    let readme = "Exit codes: 0 success; 1 refused;\n65 bad input; 99 new.\n\nmore";
    assert_eq!(
        paragraph_codes(readme, "Exit codes: "),
        BTreeSet::from([0, 1, 65, 99])
    );
    let doc = "| exit | verdict | meaning |\n|---|---|---|\n| 0 | `OK` | fine |\n| 24 | — | x |\n";
    assert_eq!(
        verify_table(doc),
        BTreeMap::from([(0, Some("OK".to_string())), (24, None)])
    );
}
