//! The machine's log file (13a, 13c) and the program copy (13d) in the report, with what rule 13e
//! keeps out of the public version (per-move engine details, file names and folders).
use super::{ArchiveCites, ArchiveSection, Builder, MoveProblem, Stamp};
use crate::core::event::{Event, EventKind};
use crate::core::{clause, timefmt};

impl Builder {
    /// The timeline text of an archive entry (13a, 13c, 13d).
    pub(super) fn describe_archive(&self, e: &Event) -> String {
        use EventKind as K;
        match &e.kind {
            K::EngineLogArchived(v) => {
                let mut t = "machine's log file archived".to_string();
                if let Some(s) = v.pointer("/coverage/summary").and_then(|s| s.as_str()) {
                    t.push_str(&format!(": {s}"));
                }
                t
            }
            K::ProgramArchived(_) => "copy of the program archived".into(),
            _ => e.kind_name(),
        }
    }

    /// An archive entry: its section, confidential parts left out of the public version (13e).
    pub(super) fn collect_archive(&mut self, s: Stamp, e: &Event) {
        use EventKind as K;
        match &e.kind {
            K::EngineLogArchived(v) => {
                let what = match v.get("side").and_then(|x| x.as_str()) {
                    // Shogi between two programs: each program's own log (5.2, 28.1).
                    Some(side) => format!("Log file of {side}'s program"),
                    None => "Machine's log file".to_string(),
                };
                let sec = archive_section(s, &e.clause, &what, v, self.public, &self.report.cites);
                self.report.archives.push(sec);
            }
            K::ProgramArchived(v) => {
                let sec = archive_section(
                    s,
                    &e.clause,
                    "Program copy",
                    v,
                    self.public,
                    &self.report.cites,
                );
                self.report.archives.push(sec);
            }
            _ => {}
        }
    }
}

/// Keys whose values name a file or a folder (left out of the public version).
fn is_name(key: &str) -> bool {
    let last = key
        .rsplit(['.', ']'])
        .next()
        .unwrap_or(key)
        .to_ascii_lowercase();
    [
        "path", "source", "name", "file", "dir", "folder", "program", "script",
    ]
    .iter()
    .any(|w| last.contains(w))
}

fn scalar(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "-".into(),
        other => other.to_string(),
    }
}

fn flatten(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, x, out);
            }
        }
        serde_json::Value::Array(a) if !a.is_empty() => {
            for (i, x) in a.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), x, out);
            }
        }
        other => out.push((prefix.to_string(), scalar(other))),
    }
}

/// Most key/values shown from one archive entry.
const MAX_FIELDS: usize = 200;

fn archive_section(
    stamp: Stamp,
    clause: &str,
    what: &str,
    v: &serde_json::Value,
    public: bool,
    cites: &super::Cites,
) -> ArchiveSection {
    let summary = v
        .pointer("/coverage/summary")
        .and_then(|s| s.as_str())
        .map(str::to_string);
    let status = v
        .pointer("/coverage/status")
        .and_then(|s| s.as_str())
        .map(str::to_string);
    let mut move_problems = Vec::new();
    let mut withheld = 0;
    if let Some(moves) = v.pointer("/coverage/moves").and_then(|m| m.as_array()) {
        for m in moves {
            let problems: Vec<String> = m
                .get("problems")
                .and_then(|p| p.as_array())
                .map(|p| p.iter().map(scalar).collect())
                .unwrap_or_default();
            if problems.is_empty() {
                continue;
            }
            let number = m.get("move_number").map(scalar).unwrap_or_default();
            let san = m.get("san").map(scalar).unwrap_or_default();
            move_problems.push(MoveProblem {
                number,
                san,
                problems,
            });
        }
        if public && !moves.is_empty() {
            withheld += 1;
        }
    }
    // The coverage and the clock audit cite the game's own articles (the profile's map: in
    // shogi, 28.1 and 22.3), not the 2003 rules' 13c and 6c, when they differ.
    let cites = (cites.c(clause::ENGINE_LOG_CONTENT) != clause::ENGINE_LOG_CONTENT
        || cites.c(clause::INTERNAL_CLOCK) != clause::INTERNAL_CLOCK)
        .then(|| ArchiveCites {
            coverage: cites.c(clause::ENGINE_LOG_CONTENT).to_string(),
            clock_audit: cites.c(clause::INTERNAL_CLOCK).to_string(),
        });
    let clock_audit = v
        .pointer("/clock_audit/summary")
        .and_then(|s| s.as_str())
        .map(str::to_string);
    let sync_rule = v
        .pointer("/clock_audit/sync_rule")
        .and_then(|b| b.as_bool())
        .unwrap_or(true);
    let mut clock_problems = Vec::new();
    if let Some(checks) = v.pointer("/clock_audit/checks").and_then(|m| m.as_array()) {
        for c in checks {
            let flagged = c.get("beyond_threshold").and_then(|b| b.as_bool()) == Some(true)
                && c.get("synced").and_then(|b| b.as_bool()) != Some(true);
            if !flagged {
                continue;
            }
            let ms = |k: &str| c.get(k).and_then(|x| x.as_i64()).unwrap_or(0);
            let line = c.get("search_line").map(scalar).unwrap_or_default();
            clock_problems.push(MoveProblem {
                number: c.get("move_number").map(scalar).unwrap_or_default(),
                san: c.get("san").map(scalar).unwrap_or_default(),
                problems: vec![format!(
                    "the engine was given {} ({}, search at line {line}) when the official clock \
                     showed {} ({}); no sync recorded{} ({})",
                    timefmt::clock(ms("given_ms")),
                    c.get("source").map(scalar).unwrap_or_default(),
                    timefmt::clock(ms("official_ms")),
                    super::signed_hms(ms("diff_ms")),
                    if sync_rule {
                        ""
                    } else {
                        ", none owed: the rules set no duty on the engine's own clock"
                    },
                    cites.as_ref().map_or("6c", |c| c.clock_audit.as_str())
                )],
            });
        }
        if public && !checks.is_empty() {
            withheld += 1;
        }
    }
    if public {
        withheld += move_problems.len() + clock_problems.len();
        move_problems.clear();
        clock_problems.clear();
    }
    let mut all = Vec::new();
    flatten("", v, &mut all);
    let mut fields = Vec::new();
    for (k, val) in all {
        if k == "coverage.summary"
            || k == "coverage.status"
            || k.starts_with("coverage.moves")
            || k == "clock_audit.summary"
            || k == "clock_audit.sync_rule"
            || k.starts_with("clock_audit.checks")
            || k.starts_with("clock_audit.unsynced")
        {
            continue;
        }
        // 13e / 13d: the public version names no file and no folder: each copy is its digest
        // and its size; the program copy's file name is the committee's alone.
        if public && (is_name(&k) || val.contains(['/', '\\'])) {
            withheld += 1;
            continue;
        }
        fields.push((k, val));
    }
    if fields.len() > MAX_FIELDS {
        let more = fields.len() - MAX_FIELDS;
        fields.truncate(MAX_FIELDS);
        fields.push(("…".into(), format!("{more} more values in the log entry")));
    }
    ArchiveSection {
        stamp,
        clause: clause.to_string(),
        what: what.to_string(),
        summary,
        status,
        move_problems,
        clock_audit,
        clock_problems,
        fields,
        withheld,
        cites,
    }
}
