//! The committee report as Markdown, for the terminal: the same sections as the HTML page, the
//! clock chart as a table of remaining times. A pure function of the [`Report`] model.
use std::fmt::Write;

use super::model::{
    ArchiveSection, Cites, DrawOfferRow, IncidentKind, MoveRow, ParameterRow, Report, Stamp,
    TimelineEntry, Version, exact_signed, hms,
};
use crate::core::{Side, clause as c, timefmt};

/// Escape text from the log for a Markdown table cell or line: no raw HTML, no table breaks,
/// no code spans or links, one line.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    escape_into(&mut out, s);
    out
}

/// [`escape`], appended to `out`.
pub fn escape_into(out: &mut String, s: &str) {
    // Runs of plain text (most of it: printable ASCII with nothing to escape, and any character
    // beyond ASCII but a control) are copied as they are; only the bytes between need a look.
    let mut rest = s;
    while let Some(at) = super::find_special(rest.as_bytes(), special) {
        let (plain, from) = rest.split_at(at);
        out.push_str(plain);
        let mut chars = from.chars();
        match chars.next() {
            Some(c @ ('\\' | '|' | '<' | '>' | '`' | '*' | '[' | ']')) => {
                out.push('\\');
                out.push(c);
            }
            Some('\n' | '\r' | '\t') => out.push(' '),
            Some(c) if c.is_control() => out.push('\u{fffd}'),
            Some(c) => out.push(c),
            None => {}
        }
        rest = chars.as_str();
    }
    out.push_str(rest);
}

/// The bytes [`escape_into`] looks at: the eight it escapes, the ASCII controls, and the first
/// byte of the two-byte characters U+0080..U+009F (the C1 controls). Comparisons only (no
/// table), so that many bytes are looked at at once.
fn special(b: u8) -> bool {
    (b == b'\\')
        | (b == b'|')
        | (b == b'<')
        | (b == b'>')
        | (b == b'`')
        | (b == b'*')
        | (b == b'[')
        | (b == b']')
        | (b == 0x7f)
        | (b == 0xc2)
        | (b < 0x20)
}

fn row(s: &mut String, cells: &[String]) {
    s.push('|');
    for c in cells {
        let _ = write!(s, " {c} |");
    }
    s.push('\n');
}

fn head(s: &mut String, cells: &[&str]) {
    row(s, &cells.iter().map(|c| c.to_string()).collect::<Vec<_>>());
    row(
        s,
        &cells.iter().map(|_| "---".to_string()).collect::<Vec<_>>(),
    );
}

fn when(st: &Stamp) -> String {
    if st.utc.is_empty() {
        st.game_time.clone()
    } else {
        format!("{} ({} UTC)", st.game_time, escape(&st.utc))
    }
}

fn move_cells(m: Option<&MoveRow>, cites: &Cites) -> [String; 3] {
    match m {
        None => [String::new(), String::new(), String::new()],
        Some(m) => {
            let mut san = escape(&m.san);
            if let Some(f) = &m.corrected_from {
                let _ = write!(
                    san,
                    " (executed {}, corrected {})",
                    escape(f),
                    cites.c(c::WRONG_MOVE_PRESSED)
                );
            }
            if m.declines_draw {
                let _ = write!(
                    san,
                    " (rejects the draw offer, {})",
                    cites.c(c::CONSULTATION)
                );
            }
            [
                san,
                exact_signed(m.spent_ms),
                timefmt::clock(m.remaining_ms),
            ]
        }
    }
}

/// The whole report as Markdown.
pub fn render(r: &Report) -> String {
    let mut rows = String::new();
    for t in &r.timeline {
        timeline_row(&mut rows, t);
    }
    let (mut s, tail) = parts(r, r.timeline.len(), rows.len() as u64);
    s.push_str(&rows);
    s.push_str(&tail);
    s
}

/// The report around its timeline rows, for a timeline of `rows` rows taking `rows_bytes` bytes
/// written in between ([`timeline_row`]): what comes before the first row (padded by
/// [`super::align_head`]), and what comes after the last.
pub fn parts(r: &Report, rows: usize, rows_bytes: u64) -> (String, String) {
    let head = head_part(r, rows, rows_bytes);
    let mut tail = String::new();
    tail_part(&mut tail, r, rows, usize::MAX, &mut |_| {});
    (head, tail)
}

/// What comes before the first row ([`parts`]).
pub fn head_part(r: &Report, rows: usize, rows_bytes: u64) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Arbiter report: match {}, game {}\n",
        escape(&r.match_id),
        r.game
    );
    let _ = writeln!(
        s,
        "**{}.** {}\n",
        r.version.title(&r.cites),
        r.version.note(&r.cites)
    );
    if !r.warnings.is_empty() {
        s.push_str("**Problems reading the log:**\n\n");
        for w in &r.warnings {
            let _ = writeln!(s, "- {}", escape(w));
        }
        s.push('\n');
    }
    declarations(&mut s, r);
    verification(&mut s, r);
    result(&mut s, r);
    let at = s.len();
    timeline_head(&mut s, rows, &r.cites);
    super::align_head(&mut s, at, rows_bytes);
    s
}

/// The tail of [`parts`] appended to `s`; `flush` is handed `s` when it holds `piece` bytes or
/// more (it may write and empty it).
pub(super) fn tail_part(
    s: &mut String,
    r: &Report,
    rows: usize,
    piece: usize,
    flush: &mut dyn FnMut(&mut String),
) {
    if rows > 0 {
        s.push('\n');
    }
    moves(s, r, piece, flush);
    clock_notes(s, r);
    draw_offers(s, r);
    infractions(s, r);
    incidents(s, r);
    disputes(s, r);
    parameters(s, r);
    archives(s, r);
}

/// What was declared before the game (1, 4c, 6c, 8a, 9c) and the rules profile.
fn declarations(s: &mut String, r: &Report) {
    s.push_str("## Declarations\n\n");
    match &r.declared {
        Some(d) => {
            let dec = &d.declarations;
            let kind = |k: crate::core::event::PlayerKind| match k {
                crate::core::event::PlayerKind::Human => "human",
                crate::core::event::PlayerKind::Machine => "machine",
            };
            head(s, &["Item", "Declared"]);
            let [h_operator, h_team, h_algorithm, h_config] = r.cites.declaration_headings();
            let rows = [
                (
                    "Match / game",
                    format!("{} / {}", escape(&r.match_id), r.game),
                ),
                (
                    if r.shogi { "Sente" } else { "White" },
                    format!("{} ({})", escape(&dec.white.name), kind(dec.white.kind)),
                ),
                (
                    if r.shogi { "Gote" } else { "Black" },
                    format!("{} ({})", escape(&dec.black.name), kind(dec.black.kind)),
                ),
                (h_operator.as_str(), escape(&dec.operator)),
                (
                    h_team.as_str(),
                    if dec.team.is_empty() {
                        "none declared".into()
                    } else {
                        escape(&dec.team.join(", "))
                    },
                ),
                (
                    h_algorithm.as_str(),
                    format!(
                        "{} (threshold {}; {})",
                        escape(&dec.algorithm.text),
                        hms(dec.algorithm.threshold_ms),
                        escape(&dec.algorithm.source)
                    ),
                ),
                (
                    h_config.as_str(),
                    dec.config_sha256
                        .as_deref()
                        .map_or_else(|| "not declared".to_string(), escape),
                ),
                (
                    "Rules profile",
                    format!("{} ({})", escape(&d.rules_name), escape(&d.rules_file)),
                ),
                ("Rules profile SHA-256", escape(&d.rules_sha256)),
                (
                    "Arbiter key",
                    format!(
                        "{} {}",
                        escape(&d.arbiter_key.principal),
                        escape(&d.arbiter_key.fingerprint)
                    ),
                ),
            ];
            for (k, v) in rows {
                row(s, &[k.to_string(), v]);
            }
            s.push('\n');
        }
        None => s.push_str("No declarations: the log has no game_opened entry.\n\n"),
    }
}

/// The verifier's verdict on the log.
fn verification(s: &mut String, r: &Report) {
    let v = &r.verification;
    s.push_str("## Verification of the log\n\n");
    let _ = writeln!(s, "- Status: **{}**", escape(&v.status));
    let _ = writeln!(s, "- Detail: {}", escape(&v.detail));
    let _ = writeln!(s, "- Entries: {}", v.entries);
    let _ = writeln!(
        s,
        "- Signed up to entry: {}\n",
        v.signed_upto
            .map_or_else(|| "no signed checkpoint".to_string(), |n| n.to_string())
    );
}

/// The result, with its clause.
fn result(s: &mut String, r: &Report) {
    s.push_str("## Result\n\n");
    match &r.result {
        Some(res) => {
            let _ = writeln!(
                s,
                "**{}** by {} (clause {}) at {}: {}{}\n",
                escape(&res.score),
                escape(&res.termination),
                escape(&res.clause),
                when(&res.stamp),
                escape(&res.detail),
                res.ruling
                    .map_or_else(String::new, |n| format!(" (ruling {n})"))
            );
        }
        None => s.push_str("The game has no result in the log.\n\n"),
    }
}

/// Every machine-related action in order (5b).
fn timeline_head(s: &mut String, rows: usize, cites: &Cites) {
    let _ = writeln!(
        s,
        "## {}\n",
        cites.heading("Timeline of machine-related actions", &[c::MACHINE_LOG])
    );
    if rows == 0 {
        s.push_str("No entries.\n\n");
    } else {
        head(s, &["#", "Game time", "UTC", "Actor", "Clause", "Action"]);
    }
}

/// One row of the timeline.
pub fn timeline_row(s: &mut String, t: &TimelineEntry) {
    // The bytes of [`row`] of the six cells, written in place (one row per entry of a log of
    // any length).
    let _ = write!(s, "| {} | {} | ", t.stamp.entry, t.stamp.game_time);
    escape_into(s, &t.stamp.utc);
    s.push_str(" | ");
    escape_into(s, &t.actor);
    s.push_str(" | ");
    escape_into(s, &t.clause);
    s.push_str(" | ");
    escape_into(s, &t.text);
    s.push_str(" |\n");
}

/// [`timeline_row`] of each row of `rows` (the same bytes): every text escaped but the
/// numbers and an internal clock's text (digits, colons, signs and words of the kit's: nothing to
/// escape), written as they are.
pub fn rows(s: &mut String, rows: &super::rows::Rows) {
    use super::model::{push_hms, push_number};
    use super::rows::Text;
    for r in rows.iter() {
        s.push_str("| ");
        push_number(s, r.entry as u64);
        s.push_str(" | ");
        push_hms(s, r.at_ms);
        s.push_str(" | ");
        escape_into(s, r.utc);
        s.push_str(" | ");
        escape_into(s, r.actor.name());
        s.push_str(" | ");
        escape_into(s, r.clause);
        s.push_str(" | ");
        match r.text {
            Text::Written(t) => escape_into(s, t),
            clock @ Text::InternalClock(_) => clock.push_to(s),
        }
        s.push_str(" |\n");
    }
}

/// Time per move, one row per move number.
fn moves(s: &mut String, r: &Report, piece: usize, flush: &mut dyn FnMut(&mut String)) {
    s.push_str("## Time per move\n\n");
    if r.moves.is_empty() {
        s.push_str("No moves.\n\n");
    } else {
        let w = format!(
            "{} ({})",
            escape(&r.name(Side::White)),
            r.side_label(Side::White)
        );
        let b = format!(
            "{} ({})",
            escape(&r.name(Side::Black)),
            r.side_label(Side::Black)
        );
        head(
            s,
            &["No.", "Period", &w, "Time", "Left", &b, "Time", "Left"],
        );
        for (n, wm, bm) in r.move_rows() {
            let period = wm.or(bm).map_or(1, |m| m.period);
            let mut cells = vec![n.to_string(), period.to_string()];
            cells.extend(move_cells(wm, &r.cites));
            cells.extend(move_cells(bm, &r.cites));
            row(s, &cells);
        }
        s.push('\n');
    }
    times(s, r, piece, flush);
}

/// Time used by each side, by its clock, and the clock lines of their own (3, 6d, 7c, 7e,
/// restart gaps): each move's time is the drop of its side's clock between its presses.
fn times(s: &mut String, r: &Report, piece: usize, flush: &mut dyn FnMut(&mut String)) {
    if !r.totals.is_empty() {
        s.push_str("Time used, by the clocks:\n\n");
        for t in &r.totals {
            let _ = writeln!(s, "- {}", escape(&t.sentence()));
        }
        s.push('\n');
    }
    if !r.time_items.is_empty() {
        let _ = writeln!(
            s,
            "### Clock lines of their own ({}, restart gaps, time controls)\n",
            r.cites.list(&[
                c::OPERATOR_CORRECTION,
                c::WRONG_MOVE_PRESSED,
                c::WRONG_ENTRY
            ])
        );
        head(
            s,
            &["When", "Clock of", "Clause", "What", "Line", "On the clock"],
        );
        // Each line written in place, as `row` writes its cells (a long log's
        // take-backs give megabytes of them, written after the pass).
        for t in &r.time_items {
            if s.len() >= piece {
                flush(s);
            }
            s.push_str("| ");
            s.push_str(&t.stamp.game_time);
            if !t.stamp.utc.is_empty() {
                s.push_str(" (");
                escape_into(s, &t.stamp.utc);
                s.push_str(" UTC)");
            }
            s.push_str(" | ");
            escape_into(s, &t.who);
            s.push_str(" | ");
            escape_into(s, &t.clause);
            s.push_str(" | ");
            s.push_str(t.label());
            s.push_str(" | ");
            escape_into(s, &t.text);
            s.push_str(" | ");
            escape_into(s, &t.effect());
            s.push_str(" |\n");
        }
        s.push('\n');
    }
}

/// Time controls and clock marks (7c penalties, 6d/7e corrections) under the move table.
fn clock_notes(s: &mut String, r: &Report) {
    if !r.chart.period_lines.is_empty() || !r.chart.marks.is_empty() {
        let lines: Vec<String> = r.chart.period_lines.iter().map(|p| p.to_string()).collect();
        let _ = writeln!(
            s,
            "Time controls after moves {}.",
            if lines.is_empty() {
                "-".to_string()
            } else {
                lines.join(", ")
            }
        );
        for m in &r.chart.marks {
            let _ = writeln!(s, "- Clock mark: {}", escape(&m.label));
        }
        s.push('\n');
    }
}

/// Draw offers with their consultation (9c, 9d, 9e) and outcome.
fn draw_offers(s: &mut String, r: &Report) {
    let _ = writeln!(
        s,
        "## {}\n",
        r.cites.heading("Draw offers and consultation", &[c::DRAWS])
    );
    if r.draw_offers.is_empty() {
        s.push_str("No draw offers.\n\n");
    } else {
        head(
            s,
            &[
                "When",
                "By",
                "Clause",
                "With move",
                &r.cites.heading("Justification", &[c::MACHINE_DRAW_OFFER]),
                &r.cites.heading("Consultation", &[c::TEAM, c::CONSULTATION]),
                "Outcome",
            ],
        );
        for o in &r.draw_offers {
            row(
                s,
                &[
                    when(&o.stamp),
                    format!("{} ({})", escape(&o.by_name), o.by),
                    escape(&o.clause),
                    escape(o.with_move.as_deref().unwrap_or("-")),
                    escape(o.justification.as_deref().unwrap_or("-")),
                    consultation(o),
                    escape(&o.outcome),
                ],
            );
        }
        s.push('\n');
    }
}

/// The consultation cell of a draw offer (9c, 9e): each consultation and the total.
fn consultation(o: &DrawOfferRow) -> String {
    if o.consultations.is_empty() {
        return "none".to_string();
    }
    let parts: Vec<String> = o
        .consultations
        .iter()
        .map(|c| {
            format!(
                "{}–{} with {}: {}{}",
                c.started.game_time,
                c.ended.as_ref().map_or("open", |e| e.game_time.as_str()),
                escape(&c.with.join(", ")),
                c.used_ms.map_or_else(|| "-".to_string(), hms),
                if c.limit_reached {
                    " (limit reached)"
                } else {
                    ""
                }
            )
        })
        .collect();
    format!("{}; total {}", parts.join("; "), hms(o.consultation_ms))
}

/// Operator errors (7b, 7c).
fn infractions(s: &mut String, r: &Report) {
    let _ = writeln!(
        s,
        "## {}\n",
        r.cites.heading(
            "Operator errors",
            &[c::WRONG_MOVE_NOTIFY, c::WRONG_MOVE_PRESSED]
        )
    );
    if r.infractions.is_empty() {
        s.push_str("No operator errors.\n\n");
    } else {
        head(
            s,
            &[
                "When",
                "Clause",
                "Executed",
                "Machine's move",
                "Clock pressed",
                "Infraction",
                "Penalty",
                "Forfeit",
            ],
        );
        for i in &r.infractions {
            row(
                s,
                &[
                    when(&i.stamp),
                    escape(&i.clause),
                    escape(&i.played),
                    escape(&i.correct),
                    if i.pressed { "yes" } else { "no" }.into(),
                    if i.pressed {
                        i.infraction.to_string()
                    } else {
                        "-".into()
                    },
                    if i.penalty_ms > 0 {
                        format!("+{}", hms(i.penalty_ms))
                    } else {
                        "-".into()
                    },
                    if i.forfeit { "yes" } else { "no" }.into(),
                ],
            );
        }
        s.push('\n');
    }
}

/// Technical problems (8a) and power failures (8b), with their durations.
fn incidents(s: &mut String, r: &Report) {
    let _ = writeln!(
        s,
        "## Technical problems ({}) and power failures ({})\n",
        r.cites.c(c::TECHNICAL),
        r.cites.c(c::POWER_FAILURE)
    );
    if r.incidents.is_empty() {
        s.push_str("No technical problems or power failures.\n\n");
    }
    for inc in &r.incidents {
        let kind = match inc.kind {
            IncidentKind::Technical => "Technical problem",
            IncidentKind::Power => "Power failure",
        };
        let _ = writeln!(
            s,
            "### {kind} ({}) at {}: {}\n",
            escape(&inc.clause),
            inc.start.game_time,
            escape(&inc.text)
        );
        let _ = writeln!(s, "- From: {}", when(&inc.start));
        let _ = writeln!(
            s,
            "- To: {}",
            inc.end
                .as_ref()
                .map_or_else(|| "still open".to_string(), when)
        );
        let _ = writeln!(
            s,
            "- Duration: {}",
            inc.duration_ms.map_or_else(|| "-".to_string(), hms)
        );
        for (n, d) in &inc.durations {
            let _ = writeln!(s, "  - {}: {}", escape(n), hms(*d));
        }
        for (st, t) in &inc.details {
            let _ = writeln!(s, "- {}: {}", when(st), escape(t));
        }
        s.push('\n');
    }
}

/// Disputes and rulings (12).
fn disputes(s: &mut String, r: &Report) {
    let _ = writeln!(
        s,
        "## {}\n",
        r.cites.heading("Disputes and rulings", &[c::COMMITTEE])
    );
    if r.disputes.is_empty() {
        s.push_str("No disputes.\n\n");
    }
    for d in &r.disputes {
        let _ = writeln!(
            s,
            "- Dispute {} at {}: {}",
            d.id,
            when(&d.raised),
            escape(&d.text)
        );
        for (st, id, t) in &d.rulings {
            let _ = writeln!(s, "  - Ruling {id} at {}: {}", when(st), escape(t));
        }
        if let Some((st, t)) = &d.decision {
            let _ = writeln!(s, "  - Decision at {}: {}", when(st), escape(t));
        }
    }
    if !r.disputes.is_empty() {
        s.push('\n');
    }
}

/// Machine parameters set (6g) or corrections requested (6l).
fn parameters(s: &mut String, r: &Report) {
    let _ = writeln!(
        s,
        "## {}\n",
        r.cites.heading(
            "Machine parameters",
            &[c::BEFORE_FIRST_MOVE, c::PARAMETER_CORRECTION]
        )
    );
    if r.parameters.is_empty() {
        s.push_str("No parameters set or requested.\n\n");
    } else {
        head(
            s,
            &[
                "When",
                "Clause",
                "Request",
                "Parameter",
                "Value / reason",
                "Committee advice",
                "Decision",
            ],
        );
        for p in &r.parameters {
            let advice: Vec<String> = p
                .advice
                .iter()
                .map(|(st, t)| format!("{}: {}", st.game_time, escape(t)))
                .collect();
            row(
                s,
                &[
                    when(&p.stamp),
                    escape(&p.clause),
                    p.id.map_or_else(|| "-".to_string(), |i| i.to_string()),
                    escape(&p.name),
                    escape(&p.text),
                    if advice.is_empty() {
                        "-".into()
                    } else {
                        advice.join("; ")
                    },
                    decision(p),
                ],
            );
        }
        s.push('\n');
    }
}

/// The decision cell of a parameter row: the 6l decision, or why there is none.
fn decision(p: &ParameterRow) -> String {
    p.decision.as_ref().map_or_else(
        || {
            if p.id.is_some() {
                "not decided".to_string()
            } else {
                "-".to_string()
            }
        },
        |(st, ok, t)| {
            format!(
                "{}: {} — {}",
                st.game_time,
                if *ok { "permitted" } else { "refused" },
                escape(t)
            )
        },
    )
}

/// The machine's log file and program copy (13).
fn archives(s: &mut String, r: &Report) {
    let _ = writeln!(
        s,
        "## {}\n",
        r.cites
            .heading("Machine's log file and program copy", &[c::MACHINE_FILES])
    );
    if r.archives.is_empty() {
        s.push_str("No engine log or program copy archived in this log.\n\n");
    }
    for a in &r.archives {
        archive(s, a, r.version == Version::Public, &r.cites);
    }
}
fn archive(s: &mut String, a: &ArchiveSection, public: bool, cites: &Cites) {
    let _ = writeln!(
        s,
        "### {} ({}) at {}\n",
        escape(&a.what),
        escape(&a.clause),
        when(&a.stamp)
    );
    if let Some(sum) = &a.summary {
        let _ = writeln!(
            s,
            "- Coverage ({}): **{}**",
            a.coverage_clause(),
            escape(sum)
        );
    }
    if let Some(st) = &a.status {
        let _ = writeln!(s, "- Coverage status: {}", escape(st));
    }
    for m in &a.move_problems {
        let _ = writeln!(
            s,
            "- Move {} {}: {}",
            escape(&m.number),
            escape(&m.san),
            escape(&m.problems.join("; "))
        );
    }
    if let Some(sum) = &a.clock_audit {
        let _ = writeln!(
            s,
            "- Internal clock ({}), from the engine's log: **{}**",
            a.clock_clause(),
            escape(sum)
        );
    }
    for m in &a.clock_problems {
        let _ = writeln!(
            s,
            "- Move {} {}: {}",
            escape(&m.number),
            escape(&m.san),
            escape(&m.problems.join("; "))
        );
    }
    for (k, v) in &a.fields {
        let _ = writeln!(s, "- {}: {}", escape(k), escape(v));
    }
    if public && a.withheld > 0 {
        let _ = writeln!(
            s,
            "- {} item(s) of this entry (per-move engine details, file names and folders) \
             are withheld from the public version ({}).",
            a.withheld,
            cites.c(c::CONFIDENTIAL)
        );
    }
    s.push('\n');
}

#[cfg(test)]
mod tests {
    /// [`super::special`] picks exactly the bytes of the table it replaced.
    #[test]
    fn special_is_the_table_it_replaced() {
        for b in 0..=255u8 {
            let table = matches!(
                b,
                b'\\' | b'|' | b'<' | b'>' | b'`' | b'*' | b'[' | b']' | 0x7f | 0xc2
            ) || b < 0x20;
            assert_eq!(super::special(b), table, "byte {b:#04x}");
        }
        let text = format!("{}|a*b\u{85}\n", "x".repeat(40));
        let mut out = String::new();
        super::escape_into(&mut out, &text);
        assert_eq!(out, format!("{}\\|a\\*b\u{fffd} ", "x".repeat(40)));
    }
}
