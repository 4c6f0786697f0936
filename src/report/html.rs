//! The committee report as one self-contained HTML page: inline CSS and SVG, no script, no
//! external assets. A pure function of the [`Report`] model; every text from the log is escaped.
use std::fmt::Write;

use super::model::{
    ArchiveSection, Cites, DrawOfferRow, IncidentKind, MoveRow, Report, Stamp, TimelineEntry,
    Version, exact_signed, hms,
};
use super::svg;
use crate::core::{Side, clause as c, timefmt};

/// Escape text for HTML element content and double- or single-quoted attribute values.
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
            Some('&') => out.push_str("&amp;"),
            Some('<') => out.push_str("&lt;"),
            Some('>') => out.push_str("&gt;"),
            Some('"') => out.push_str("&quot;"),
            Some('\'') => out.push_str("&#39;"),
            Some(c) if c.is_control() && c != '\n' && c != '\t' => out.push('\u{fffd}'),
            Some(c) => out.push(c),
            None => {}
        }
        rest = chars.as_str();
    }
    out.push_str(rest);
}

/// The bytes [`escape_into`] looks at: the five it escapes, the ASCII controls but `\n` and
/// `\t`, and the first byte of the two-byte characters U+0080..U+009F (the C1 controls).
/// Comparisons only (no table), so that many bytes are looked at at once.
fn special(b: u8) -> bool {
    (b == b'&')
        | (b == b'<')
        | (b == b'>')
        | (b == b'"')
        | (b == b'\'')
        | (b == 0x7f)
        | (b == 0xc2)
        | ((b < 0x20) & (b != b'\n') & (b != b'\t'))
}

const CSS: &str = r#"
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  color: #111827; background: #f9fafb; margin: 0; padding: 24px; line-height: 1.4; }
main { max-width: 1120px; margin: 0 auto; background: #fff; padding: 24px 32px;
  border: 1px solid #e5e7eb; border-radius: 6px; }
h1 { font-size: 1.6em; margin: 0 0 4px 0; }
h2 { font-size: 1.2em; margin: 28px 0 8px 0; padding-bottom: 4px; border-bottom: 2px solid #e5e7eb; }
h3 { font-size: 1em; margin: 16px 0 6px 0; }
.sub { color: #4b5563; margin: 0 0 12px 0; }
.version { padding: 10px 14px; border-radius: 4px; margin: 12px 0; font-weight: 600; }
.version p { font-weight: normal; margin: 4px 0 0 0; }
.version-committee { background: #fef2f2; border: 2px solid #dc2626; color: #7f1d1d; }
.version-public { background: #ecfdf5; border: 2px solid #059669; color: #064e3b; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px 0; font-size: 0.92em; }
th, td { border: 1px solid #e5e7eb; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f3f4f6; font-weight: 600; }
table.kv th { width: 16em; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.time { white-space: nowrap; font-variant-numeric: tabular-nums; }
td.utc { white-space: nowrap; font-size: 0.85em; color: #374151; }
.clause { display: inline-block; min-width: 2.2em; padding: 0 4px; border-radius: 3px;
  background: #eef2ff; color: #3730a3; font-weight: 600; text-align: center; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.9em;
  overflow-wrap: anywhere; }
.none { color: #6b7280; font-style: italic; }
.warn { color: #92400e; background: #fffbeb; border: 1px solid #f59e0b; padding: 8px 12px; border-radius: 4px; }
.ok { color: #065f46; }
.bad { color: #991b1b; font-weight: 600; }
.result { font-size: 1.3em; font-weight: 700; }
.chart { overflow-x: auto; }
.chart svg { max-width: 100%; height: auto; }
.withheld { color: #065f46; font-style: italic; }
@media print { body { background: #fff; padding: 0; } main { border: 0; } }
"#;

fn stamp_cells(s: &Stamp) -> String {
    let mut out = String::new();
    push_stamp_cells(&mut out, s);
    out
}

/// [`stamp_cells`], appended to `s`.
fn push_stamp_cells(s: &mut String, st: &Stamp) {
    s.push_str(r#"<td class="time">"#);
    escape_into(s, &st.game_time);
    s.push_str(r#"</td><td class="utc">"#);
    escape_into(s, &st.utc);
    s.push_str("</td>");
}

fn clause(c: &str) -> String {
    let mut out = String::new();
    push_clause(&mut out, c);
    out
}

/// [`clause`], appended to `s`.
fn push_clause(s: &mut String, c: &str) {
    s.push_str(r#"<span class="clause">"#);
    escape_into(s, c);
    s.push_str("</span>");
}

fn none(s: &mut String, what: &str) {
    let _ = write!(s, r#"<p class="none">{}</p>"#, escape(what));
}

fn kv(s: &mut String, rows: &[(&str, String)]) {
    s.push_str(r#"<table class="kv">"#);
    for (k, v) in rows {
        let _ = write!(s, "<tr><th>{}</th><td>{v}</td></tr>", escape(k));
    }
    s.push_str("</table>");
}

fn mono(v: &str) -> String {
    format!("<code>{}</code>", escape(v))
}

/// The whole page.
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
    let mut tail = String::new();
    tail_part(&mut tail, r, rows, usize::MAX, &mut |_| {});
    (head_part(r, rows, rows_bytes), tail)
}

/// What comes before the first row ([`parts`]).
pub fn head_part(r: &Report, rows: usize, rows_bytes: u64) -> String {
    let mut s = String::new();
    let title = format!("Arbiter report: match {}, game {}", r.match_id, r.game);
    let _ = write!(
        s,
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="report-version" content="{}"><title>{}</title><style>{CSS}</style></head><body><main>"#,
        match r.version {
            Version::Committee => "committee",
            Version::Public => "public",
        },
        escape(&title)
    );
    let _ = write!(s, "<h1>{}</h1>", escape(&title));
    if let Some(d) = &r.declared {
        let _ = write!(
            s,
            r#"<p class="sub">{} ({}) vs {} ({}) · {} · arbiter kit {}</p>"#,
            escape(&d.declarations.white.name),
            r.side_label(Side::White),
            escape(&d.declarations.black.name),
            r.side_label(Side::Black),
            escape(&d.rules_name),
            escape(&r.kit_version)
        );
    }
    let (class, id) = match r.version {
        Version::Committee => ("version-committee", "version-committee"),
        Version::Public => ("version-public", "version-public"),
    };
    let _ = write!(
        s,
        r#"<div class="version {class}" id="{id}">{}<p>{}</p></div>"#,
        escape(&r.version.title(&r.cites)),
        escape(&r.version.note(&r.cites))
    );
    if !r.warnings.is_empty() {
        s.push_str(r#"<div class="warn"><strong>Problems reading the log:</strong><ul>"#);
        for w in &r.warnings {
            let _ = write!(s, "<li>{}</li>", escape(w));
        }
        s.push_str("</ul></div>");
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
        s.push_str("</tbody></table>");
    }
    s.push_str("</section>");
    chart(s, r);
    moves(s, r, piece, flush);
    draw_offers(s, r);
    infractions(s, r);
    incidents(s, r);
    disputes(s, r);
    parameters(s, r);
    archives(s, r);
    s.push_str("</main></body></html>\n");
}

fn declarations(s: &mut String, r: &Report) {
    s.push_str(r#"<section id="declarations"><h2>Declarations</h2>"#);
    let Some(d) = &r.declared else {
        none(s, "No declarations: the log has no game_opened entry.");
        s.push_str("</section>");
        return;
    };
    let dec = &d.declarations;
    let player = |p: &crate::core::event::Player| {
        format!(
            "{} <span class=\"none\">({})</span>",
            escape(&p.name),
            match p.kind {
                crate::core::event::PlayerKind::Human => "human",
                crate::core::event::PlayerKind::Machine => "machine",
            }
        )
    };
    let [h_operator, h_team, h_algorithm, h_config] = r.cites.declaration_headings();
    let team = if dec.team.is_empty() {
        r#"<span class="none">none declared</span>"#.to_string()
    } else {
        escape(&dec.team.join(", "))
    };
    kv(
        s,
        &[
            (
                "Match / game",
                escape(&format!("{} / {}", r.match_id, r.game)),
            ),
            (if r.shogi { "Sente" } else { "White" }, player(&dec.white)),
            (if r.shogi { "Gote" } else { "Black" }, player(&dec.black)),
            (h_operator.as_str(), escape(&dec.operator)),
            (h_team.as_str(), team),
            (
                h_algorithm.as_str(),
                format!(
                    "{}<br><span class=\"none\">threshold {}; {}</span>",
                    escape(&dec.algorithm.text),
                    escape(&hms(dec.algorithm.threshold_ms)),
                    escape(&dec.algorithm.source)
                ),
            ),
            (
                h_config.as_str(),
                dec.config_sha256.as_deref().map_or_else(
                    || r#"<span class="none">not declared</span>"#.to_string(),
                    mono,
                ),
            ),
            (
                "Rules profile",
                format!(
                    "{} <span class=\"none\">({})</span>",
                    escape(&d.rules_name),
                    escape(&d.rules_file)
                ),
            ),
            ("Rules profile SHA-256", mono(&d.rules_sha256)),
            (
                "Arbiter key",
                format!(
                    "{} {}",
                    escape(&d.arbiter_key.principal),
                    mono(&d.arbiter_key.fingerprint)
                ),
            ),
        ],
    );
    s.push_str("</section>");
}

fn verification(s: &mut String, r: &Report) {
    let v = &r.verification;
    s.push_str(r#"<section id="verification"><h2>Verification of the log</h2>"#);
    kv(
        s,
        &[
            ("Status", format!("<strong>{}</strong>", escape(&v.status))),
            ("Detail", escape(&v.detail)),
            ("Entries", v.entries.to_string()),
            (
                "Signed up to entry",
                v.signed_upto.map_or_else(
                    || r#"<span class="none">no signed checkpoint</span>"#.to_string(),
                    |n| n.to_string(),
                ),
            ),
        ],
    );
    s.push_str("</section>");
}

fn result(s: &mut String, r: &Report) {
    s.push_str(r#"<section id="result"><h2>Result</h2>"#);
    match &r.result {
        Some(res) => {
            let _ = write!(
                s,
                r#"<p class="result">{} <span class="none">— {}</span></p>"#,
                escape(&res.score),
                escape(&res.termination)
            );
            kv(
                s,
                &[
                    ("Detail", escape(&res.detail)),
                    ("Clause", clause(&res.clause)),
                    (
                        "Time",
                        format!(
                            "{} game time, {} UTC",
                            escape(&res.stamp.game_time),
                            escape(&res.stamp.utc)
                        ),
                    ),
                    (
                        "Ruling",
                        res.ruling.map_or_else(
                            || r#"<span class="none">none</span>"#.to_string(),
                            |n| n.to_string(),
                        ),
                    ),
                ],
            );
        }
        None => none(s, "The game has no result in the log."),
    }
    s.push_str("</section>");
}

/// The timeline's heading, and its table's head when it has rows.
fn timeline_head(s: &mut String, rows: usize, cites: &Cites) {
    let _ = write!(
        s,
        r#"<section id="timeline"><h2>{}</h2>"#,
        cites.heading("Timeline of machine-related actions", &[c::MACHINE_LOG])
    );
    s.push_str(
        r#"<p class="sub">Every entry of the log except the moves (which are in the time-per-move table; a move that rejects a draw offer is listed here too).</p>"#,
    );
    if rows == 0 {
        none(s, "No entries.");
    } else {
        s.push_str(
            r#"<table class="timeline"><thead><tr><th class="num">#</th><th>Game time</th><th>UTC</th><th>Actor</th><th>Clause</th><th>Action</th></tr></thead><tbody>"#,
        );
    }
}

/// One row of the timeline.
pub fn timeline_row(s: &mut String, t: &TimelineEntry) {
    // The bytes of `<tr data-kind="{kind}" data-clause="{clause}"><td class="num">{entry}</td>`
    // [`stamp_cells`] `<td>{actor}</td><td>`[`clause`]`</td><td>{text}</td></tr>`, written
    // in place (one row per entry of a log of any length).
    s.push_str(r#"<tr data-kind=""#);
    escape_into(s, &t.kind);
    s.push_str(r#"" data-clause=""#);
    escape_into(s, &t.clause);
    let _ = write!(s, r#""><td class="num">{}</td>"#, t.stamp.entry);
    push_stamp_cells(s, &t.stamp);
    s.push_str("<td>");
    escape_into(s, &t.actor);
    s.push_str("</td><td>");
    push_clause(s, &t.clause);
    s.push_str("</td><td>");
    escape_into(s, &t.text);
    s.push_str("</td></tr>");
}

/// [`timeline_row`] of each row of `rows` (the same bytes): every text escaped but the
/// numbers and an internal clock's text (digits, colons, signs and words of the kit's: nothing to
/// escape), written as they are.
pub fn rows(s: &mut String, rows: &super::rows::Rows) {
    use super::model::{push_hms, push_number};
    use super::rows::Text;
    for r in rows.iter() {
        s.push_str(r#"<tr data-kind=""#);
        escape_into(s, r.kind);
        s.push_str(r#"" data-clause=""#);
        escape_into(s, r.clause);
        s.push_str(r#""><td class="num">"#);
        push_number(s, r.entry as u64);
        s.push_str(r#"</td><td class="time">"#);
        push_hms(s, r.at_ms);
        s.push_str(r#"</td><td class="utc">"#);
        escape_into(s, r.utc);
        s.push_str("</td><td>");
        escape_into(s, r.actor.name());
        s.push_str(r#"</td><td><span class="clause">"#);
        escape_into(s, r.clause);
        s.push_str("</span></td><td>");
        match r.text {
            Text::Written(t) => escape_into(s, t),
            clock @ Text::InternalClock(_) => clock.push_to(s),
        }
        s.push_str("</td></tr>");
    }
}

fn chart(s: &mut String, r: &Report) {
    s.push_str(r#"<section id="chart"><h2>Clocks</h2>"#);
    let _ = write!(
        s,
        r#"<p class="sub">Each side's remaining time after each of its moves; dashed lines mark the time controls; triangles mark penalties ({}), diamonds clock corrections ({}).</p><div class="chart">"#,
        r.cites.c(c::WRONG_MOVE_PRESSED),
        r.cites.list(&[c::OPERATOR_CORRECTION, c::WRONG_ENTRY])
    );
    s.push_str(&svg::chart(&r.chart));
    s.push_str("</div></section>");
}

fn move_cells(m: Option<&MoveRow>, cites: &Cites) -> String {
    match m {
        None => r#"<td></td><td></td><td></td>"#.to_string(),
        Some(m) => {
            let mut san = escape(&m.san);
            if let Some(f) = &m.corrected_from {
                let _ = write!(
                    san,
                    r#" <span class="bad" title="{}">(executed {}, corrected)</span>"#,
                    cites.c(c::WRONG_MOVE_PRESSED),
                    escape(f)
                );
            }
            if m.declines_draw {
                let _ = write!(
                    san,
                    r#" <span class="none">(rejects the draw offer, {})</span>"#,
                    cites.c(c::CONSULTATION)
                );
            }
            format!(
                r#"<td class="san">{san}</td><td class="num">{}</td><td class="num">{}</td>"#,
                escape(&exact_signed(m.spent_ms)),
                escape(&timefmt::clock(m.remaining_ms))
            )
        }
    }
}

fn moves(s: &mut String, r: &Report, piece: usize, flush: &mut dyn FnMut(&mut String)) {
    s.push_str(r#"<section id="moves"><h2>Time per move</h2>"#);
    if r.moves.is_empty() {
        // The clocks' totals and lines of their own stand even so (a take-back of every move,
        // a correction before the first): as the Markdown shows them.
        none(s, "No moves.");
    } else {
        move_table(s, r);
    }
    times(s, r, piece, flush);
    s.push_str("</section>");
}

/// The table of [`moves`], one row per move number.
fn move_table(s: &mut String, r: &Report) {
    let _ = write!(
        s,
        r#"<table class="moves"><thead><tr><th class="num">No.</th><th>Period</th><th>{} ({})</th><th class="num">Time</th><th class="num">Left</th><th>{} ({})</th><th class="num">Time</th><th class="num">Left</th></tr></thead><tbody>"#,
        escape(&r.name(Side::White)),
        r.side_label(Side::White),
        escape(&r.name(Side::Black)),
        r.side_label(Side::Black)
    );
    for (n, w, b) in r.move_rows() {
        let period = w.or(b).map_or(1, |m| m.period);
        let _ = write!(
            s,
            r#"<tr><td class="num">{n}</td><td class="num">{period}</td>{}{}</tr>"#,
            move_cells(w, &r.cites),
            move_cells(b, &r.cites)
        );
    }
    s.push_str("</tbody></table>");
}

/// Time used by each side, by its clock, and the clock lines of their own (3, 6d, 7c, 7e,
/// restart gaps).
fn times(s: &mut String, r: &Report, piece: usize, flush: &mut dyn FnMut(&mut String)) {
    if !r.totals.is_empty() {
        s.push_str(r#"<p class="sub">Time used, by the clocks:</p><ul class="totals">"#);
        for t in &r.totals {
            let _ = write!(s, "<li>{}</li>", escape(&t.sentence()));
        }
        s.push_str("</ul>");
    }
    if !r.time_items.is_empty() {
        let _ = write!(
            s,
            r#"<h3>Clock lines of their own ({}, restart gaps, time controls)</h3><table class="times"><thead><tr><th>Game time</th><th>UTC</th><th>Clock of</th><th>Clause</th><th>What</th><th>Line</th><th class="num">On the clock</th></tr></thead><tbody>"#,
            r.cites.list(&[
                c::OPERATOR_CORRECTION,
                c::WRONG_MOVE_PRESSED,
                c::WRONG_ENTRY
            ])
        );
        // Written in place, each text escaped straight into the page, a piece at a time (issue
        // 21: the clock lines of a long log's take-backs are megabytes, written after the pass).
        for t in &r.time_items {
            if s.len() >= piece {
                flush(s);
            }
            s.push_str("<tr>");
            push_stamp_cells(s, &t.stamp);
            s.push_str("<td>");
            escape_into(s, &t.who);
            s.push_str("</td><td>");
            push_clause(s, &t.clause);
            s.push_str("</td><td>");
            escape_into(s, t.label());
            s.push_str("</td><td>");
            escape_into(s, &t.text);
            s.push_str(r#"</td><td class="num">"#);
            escape_into(s, &t.effect());
            s.push_str("</td></tr>");
        }
        s.push_str("</tbody></table>");
    }
}

fn offer_rows(s: &mut String, o: &DrawOfferRow, cites: &Cites) {
    let mut consult = String::new();
    if o.consultations.is_empty() {
        consult.push_str(r#"<span class="none">none</span>"#);
    } else {
        consult.push_str("<ul>");
        for c in &o.consultations {
            let _ = write!(
                consult,
                "<li>{} – {} with {}: {}{}</li>",
                escape(&c.started.game_time),
                escape(c.ended.as_ref().map_or("open", |e| e.game_time.as_str())),
                escape(&c.with.join(", ")),
                escape(&c.used_ms.map_or_else(|| "-".to_string(), hms)),
                if c.limit_reached {
                    r#" <span class="bad">limit reached</span>"#
                } else {
                    ""
                }
            );
        }
        consult.push_str("</ul>");
        let _ = write!(
            consult,
            "total {}{}",
            escape(&hms(o.consultation_ms)),
            if o.limit_reached {
                format!(
                    r#" <span class="bad">(ten-minute limit reached, {})</span>"#,
                    cites.c(c::CONSULTATION)
                )
            } else {
                String::new()
            }
        );
    }
    let _ = write!(
        s,
        r#"<tr>{}<td>{} ({})</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
        stamp_cells(&o.stamp),
        escape(&o.by_name),
        o.by,
        clause(&o.clause),
        escape(o.with_move.as_deref().unwrap_or("-")),
        escape(o.justification.as_deref().unwrap_or("-")),
        consult,
        escape(&o.outcome)
    );
}

fn draw_offers(s: &mut String, r: &Report) {
    let _ = write!(
        s,
        r#"<section id="draw-offers"><h2>{}</h2>"#,
        r.cites.heading("Draw offers and consultation", &[c::DRAWS])
    );
    if r.draw_offers.is_empty() {
        none(s, "No draw offers.");
    } else {
        let _ = write!(
            s,
            r#"<table><thead><tr><th>Game time</th><th>UTC</th><th>By</th><th>Clause</th><th>With move</th><th>{}</th><th>{}</th><th>Outcome</th></tr></thead><tbody>"#,
            r.cites.heading("Justification", &[c::MACHINE_DRAW_OFFER]),
            r.cites.heading("Consultation", &[c::TEAM, c::CONSULTATION])
        );
        for o in &r.draw_offers {
            offer_rows(s, o, &r.cites);
        }
        s.push_str("</tbody></table>");
    }
    s.push_str("</section>");
}

fn infractions(s: &mut String, r: &Report) {
    let _ = write!(
        s,
        r#"<section id="infractions"><h2>{}</h2>"#,
        r.cites.heading(
            "Operator errors",
            &[c::WRONG_MOVE_NOTIFY, c::WRONG_MOVE_PRESSED]
        )
    );
    if r.infractions.is_empty() {
        none(s, "No operator errors.");
    } else {
        s.push_str(
            r#"<table><thead><tr><th>Game time</th><th>UTC</th><th>Clause</th><th>Executed</th><th>Machine's move</th><th>Clock pressed</th><th class="num">Infraction</th><th class="num">Penalty</th><th>Forfeit</th></tr></thead><tbody>"#,
        );
        for i in &r.infractions {
            let _ = write!(
                s,
                r#"<tr>{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class="num">{}</td><td class="num">{}</td><td>{}</td></tr>"#,
                stamp_cells(&i.stamp),
                clause(&i.clause),
                escape(&i.played),
                escape(&i.correct),
                if i.pressed { "yes" } else { "no" },
                if i.pressed {
                    i.infraction.to_string()
                } else {
                    "-".into()
                },
                if i.penalty_ms > 0 {
                    format!("+{}", escape(&hms(i.penalty_ms)))
                } else {
                    "-".into()
                },
                if i.forfeit {
                    r#"<span class="bad">yes</span>"#
                } else {
                    "no"
                }
            );
        }
        s.push_str("</tbody></table>");
    }
    s.push_str("</section>");
}

fn incidents(s: &mut String, r: &Report) {
    let _ = write!(
        s,
        r#"<section id="incidents"><h2>Technical problems ({}) and power failures ({})</h2>"#,
        r.cites.c(c::TECHNICAL),
        r.cites.c(c::POWER_FAILURE)
    );
    if r.incidents.is_empty() {
        none(s, "No technical problems or power failures.");
    }
    for inc in &r.incidents {
        let kind = match inc.kind {
            IncidentKind::Technical => "Technical problem",
            IncidentKind::Power => "Power failure",
        };
        let _ = write!(
            s,
            r#"<h3>{kind} {} at {}: {}</h3>"#,
            clause(&inc.clause),
            escape(&inc.start.game_time),
            escape(&inc.text)
        );
        let mut rows: Vec<(&str, String)> = vec![
            (
                "From",
                format!(
                    "{} game time, {} UTC",
                    escape(&inc.start.game_time),
                    escape(&inc.start.utc)
                ),
            ),
            (
                "To",
                inc.end.as_ref().map_or_else(
                    || r#"<span class="bad">still open</span>"#.to_string(),
                    |e| format!("{} game time, {} UTC", escape(&e.game_time), escape(&e.utc)),
                ),
            ),
            (
                "Duration",
                inc.duration_ms.map_or_else(|| "-".to_string(), hms),
            ),
        ];
        let parts: Vec<String> = inc
            .durations
            .iter()
            .map(|(n, d)| format!("{}: {}", escape(n), escape(&hms(*d))))
            .collect();
        if !parts.is_empty() {
            rows.push(("Of which", parts.join("<br>")));
        }
        kv(s, &rows);
        if !inc.details.is_empty() {
            s.push_str(
                r#"<table><thead><tr><th>Game time</th><th>UTC</th><th>What</th></tr></thead><tbody>"#,
            );
            for (st, t) in &inc.details {
                let _ = write!(s, "<tr>{}<td>{}</td></tr>", stamp_cells(st), escape(t));
            }
            s.push_str("</tbody></table>");
        }
    }
    s.push_str("</section>");
}

fn disputes(s: &mut String, r: &Report) {
    let _ = write!(
        s,
        r#"<section id="disputes"><h2>{}</h2>"#,
        r.cites.heading("Disputes and rulings", &[c::COMMITTEE])
    );
    if r.disputes.is_empty() {
        none(s, "No disputes.");
    } else {
        s.push_str(
            r#"<table><thead><tr><th class="num">Dispute</th><th>Game time</th><th>UTC</th><th>Text</th><th>Rulings</th><th>Decision</th></tr></thead><tbody>"#,
        );
        for d in &r.disputes {
            let rulings = if d.rulings.is_empty() {
                r#"<span class="none">none yet</span>"#.to_string()
            } else {
                d.rulings
                    .iter()
                    .map(|(st, id, t)| {
                        format!(
                            "ruling {id} at {} ({} UTC): {}",
                            escape(&st.game_time),
                            escape(&st.utc),
                            escape(t)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("<br>")
            };
            let _ = write!(
                s,
                r#"<tr><td class="num">{}</td>{}<td>{}</td><td>{rulings}</td><td>{}</td></tr>"#,
                d.id,
                stamp_cells(&d.raised),
                escape(&d.text),
                d.decision.as_ref().map_or_else(
                    || "-".to_string(),
                    |(st, t)| format!("{}: {}", escape(&st.game_time), escape(t))
                )
            );
        }
        s.push_str("</tbody></table>");
    }
    s.push_str("</section>");
}

fn parameters(s: &mut String, r: &Report) {
    let _ = write!(
        s,
        r#"<section id="parameters"><h2>{}</h2>"#,
        r.cites.heading(
            "Machine parameters",
            &[c::BEFORE_FIRST_MOVE, c::PARAMETER_CORRECTION]
        )
    );
    if r.parameters.is_empty() {
        none(s, "No parameters set or requested.");
    } else {
        s.push_str(
            r#"<table><thead><tr><th>Game time</th><th>UTC</th><th>Clause</th><th>Request</th><th>Parameter</th><th>Value / reason</th><th>Committee advice</th><th>Decision</th></tr></thead><tbody>"#,
        );
        for p in &r.parameters {
            let advice = p
                .advice
                .iter()
                .map(|(st, t)| format!("{}: {}", escape(&st.game_time), escape(t)))
                .collect::<Vec<_>>()
                .join("<br>");
            let decision = p.decision.as_ref().map_or_else(
                || {
                    if p.id.is_some() {
                        r#"<span class="bad">not decided</span>"#.to_string()
                    } else {
                        "-".to_string()
                    }
                },
                |(st, ok, t)| {
                    format!(
                        "{}: {} — {}",
                        escape(&st.game_time),
                        if *ok { "permitted" } else { "refused" },
                        escape(t)
                    )
                },
            );
            let _ = write!(
                s,
                r#"<tr>{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{decision}</td></tr>"#,
                stamp_cells(&p.stamp),
                clause(&p.clause),
                p.id.map_or_else(|| "-".to_string(), |i| i.to_string()),
                escape(&p.name),
                escape(&p.text),
                if advice.is_empty() {
                    "-".to_string()
                } else {
                    advice
                },
            );
        }
        s.push_str("</tbody></table>");
    }
    s.push_str("</section>");
}

fn archive(s: &mut String, a: &ArchiveSection, public: bool, cites: &Cites) {
    let _ = write!(
        s,
        r#"<h3>{} {} at {} ({} UTC)</h3>"#,
        escape(&a.what),
        clause(&a.clause),
        escape(&a.stamp.game_time),
        escape(&a.stamp.utc)
    );
    let coverage = format!("Coverage ({})", a.coverage_clause());
    let clock_audit = format!(
        "Internal clock ({}), from the engine's log",
        a.clock_clause()
    );
    let mut rows: Vec<(&str, String)> = Vec::new();
    if let Some(sum) = &a.summary {
        rows.push((&coverage, format!("<strong>{}</strong>", escape(sum))));
    }
    if let Some(st) = &a.status {
        rows.push(("Coverage status", escape(st)));
    }
    if let Some(sum) = &a.clock_audit {
        rows.push((&clock_audit, format!("<strong>{}</strong>", escape(sum))));
    }
    if !rows.is_empty() {
        kv(s, &rows);
    }
    if !a.move_problems.is_empty() || !a.clock_problems.is_empty() {
        s.push_str(
            r#"<table class="engine-moves"><thead><tr><th class="num">Move</th><th>SAN</th><th>Problems</th></tr></thead><tbody>"#,
        );
        for m in a.move_problems.iter().chain(&a.clock_problems) {
            let _ = write!(
                s,
                r#"<tr><td class="num">{}</td><td>{}</td><td>{}</td></tr>"#,
                escape(&m.number),
                escape(&m.san),
                escape(&m.problems.join("; "))
            );
        }
        s.push_str("</tbody></table>");
    }
    if !a.fields.is_empty() {
        s.push_str(r#"<table class="kv engine-fields">"#);
        for (k, v) in &a.fields {
            let _ = write!(s, "<tr><th>{}</th><td>{}</td></tr>", escape(k), mono(v));
        }
        s.push_str("</table>");
    }
    if public && a.withheld > 0 {
        let _ = write!(
            s,
            r#"<p class="withheld">{} item(s) of this entry (per-move engine details, file names and folders) are withheld from the public version ({}).</p>"#,
            a.withheld,
            cites.c(c::CONFIDENTIAL)
        );
    }
}

fn archives(s: &mut String, r: &Report) {
    let _ = write!(
        s,
        r#"<section id="engine-log"><h2>{}</h2>"#,
        r.cites
            .heading("Machine's log file and program copy", &[c::MACHINE_FILES])
    );
    if r.archives.is_empty() {
        none(s, "No engine log or program copy archived in this log.");
    }
    for a in &r.archives {
        archive(s, a, r.version == Version::Public, &r.cites);
    }
    s.push_str("</section>");
}

#[cfg(test)]
mod tests {
    /// [`super::special`] picks exactly the bytes of the table it replaced.
    #[test]
    fn special_is_the_table_it_replaced() {
        for b in 0..=255u8 {
            let table = matches!(b, b'&' | b'<' | b'>' | b'"' | b'\'' | 0x7f | 0xc2)
                || (b < 0x20 && b != b'\n' && b != b'\t');
            assert_eq!(super::special(b), table, "byte {b:#04x}");
        }
        let text = format!("{}<é\u{85}>&\"'\t\n\u{1}", "x".repeat(70));
        assert_eq!(
            super::escape(&text),
            format!(
                "{}&lt;é\u{fffd}&gt;&amp;&quot;&#39;\t\n\u{fffd}",
                "x".repeat(70)
            )
        );
    }
}
