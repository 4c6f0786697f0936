//! The committee report: model, HTML, SVG chart and Markdown of a realistic game run through a
//! session (draw offers with consultation, operator errors, a technical problem, a power failure,
//! a dispute and ruling, a parameter request, the machine's log archived).
use crate::report_support::{TestResult, game_events, run, utc_of};
use arbiter::core::Side;
use arbiter::report::model::{self, IncidentKind, MarkKind, Report, Verification};
use arbiter::report::{html, markdown, svg};

fn verification(entries: usize) -> Verification {
    Verification {
        status: "verified".into(),
        detail: "chain intact; checkpoint 3 signature good".into(),
        entries,
        signed_upto: Some(entries),
    }
}

fn report(public: bool) -> Result<Report, String> {
    let (events, utc) = game_events("Garry Kasparov")?;
    Ok(model::build(
        &events,
        &utc,
        &verification(events.len()),
        public,
    ))
}

/// The part of `html` from `<section id="{id}">` to its end.
fn section<'a>(html: &'a str, id: &str) -> &'a str {
    let open = format!(r#"<section id="{id}">"#);
    let Some(start) = html.find(&open) else {
        return "";
    };
    let rest = &html[start..];
    let end = rest
        .find("</section>")
        .map_or(rest.len(), |e| e + "</section>".len());
    &rest[..end]
}

/// The points of the polyline of `side` in an SVG chart.
fn polyline_points(svg: &str, side: &str) -> Vec<(f64, f64)> {
    let tag = format!(r#"<polyline class="clock clock-{side}""#);
    let Some(start) = svg.find(&tag) else {
        return Vec::new();
    };
    let rest = &svg[start..];
    let Some(p) = rest.find(r#" points=""#) else {
        return Vec::new();
    };
    let pts = &rest[p + r#" points=""#.len()..];
    let pts = &pts[..pts.find('"').unwrap_or(0)];
    pts.split_whitespace()
        .filter_map(|xy| {
            let (x, y) = xy.split_once(',')?;
            Some((x.parse().ok()?, y.parse().ok()?))
        })
        .collect()
}

#[test]
fn report_timeline_lists_each_action_with_its_clause() -> TestResult {
    let (events, utc) = game_events("Garry Kasparov")?;
    let r = model::build(&events, &utc, &verification(events.len()), false);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let expected = [
        ("game_opened", "5b"),
        ("clock_started", "3"),
        ("parameter_set", "6g"),
        ("internal_clock_reported", "6c"),
        ("internal_clock_corrected", "6c"),
        ("draw_offered", "9e"),
        ("consultation_started", "9e"),
        ("consultation_ended", "9e"),
        ("draw_declined", "9a"),
        ("wrong_move", "7c"),
        ("wrong_move", "7b"),
        ("move_made", "6b"),
        ("technical_problem", "8a"),
        ("info_stopped", "8a"),
        ("info_resumed", "8a"),
        ("work_note", "8a"),
        ("technical_resolved", "8a"),
        ("power_failed", "8b"),
        ("power_restored", "8b"),
        ("machine_reset", "8b"),
        ("clock_resumed", "8b"),
        ("clock_corrected", "6d"),
        ("dispute_raised", "12"),
        ("ruling_given", "12"),
        ("parameter_requested", "6l"),
        ("committee_advised", "6l"),
        ("parameter_decided", "6l"),
        ("draw_offered", "9d"),
        ("draw_declined", "9d"),
        ("note", "5b"),
        ("game_ended", "2"),
        ("engine_log_archived", "13a"),
    ];
    let page = html::render(&r);
    let md = markdown::render(&r);
    for (kind, clause) in expected {
        let hit = r
            .timeline
            .iter()
            .find(|t| t.kind == kind && t.clause == clause);
        let Some(t) = hit else {
            return Err(format!("no {kind} ({clause}) in the timeline: {:#?}", r.timeline).into());
        };
        assert!(!t.text.is_empty() && !t.actor.is_empty());
        assert_eq!(t.stamp.utc, utc[t.stamp.entry], "{kind}");
        assert_eq!(
            t.stamp.game_time,
            arbiter::core::timefmt::clock(t.stamp.at_ms as i64)
        );
        assert!(
            page.contains(&format!(r#"data-kind="{kind}" data-clause="{clause}""#)),
            "HTML timeline lacks {kind} ({clause})"
        );
        assert!(
            md.contains(&format!(
                "| {} | {} | {} | {clause} |",
                t.stamp.game_time, t.stamp.utc, t.actor
            )),
            "Markdown timeline lacks {kind} ({clause})"
        );
    }
    // Every entry but the plain moves is in the timeline, in log order.
    let plain_moves = events
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                arbiter::core::event::EventKind::MoveMade {
                    declines_draw: false,
                    ..
                }
            )
        })
        .count();
    assert_eq!(r.timeline.len(), events.len() - plain_moves);
    assert!(
        r.timeline
            .windows(2)
            .all(|w| w[0].stamp.entry < w[1].stamp.entry)
    );
    // Times are shown both ways: the technical problem 5 s after White's 13th move.
    let tech = r
        .timeline
        .iter()
        .find(|t| t.kind == "technical_problem")
        .ok_or("technical problem")?;
    assert_eq!(tech.stamp.utc, utc_of(tech.stamp.at_ms));
    assert!(tech.text.contains("engine process crashed"));
    Ok(())
}

#[test]
fn report_sections_summarise_the_game() -> TestResult {
    let r = report(false)?;
    // Declarations.
    let d = r.declared.as_ref().ok_or("declarations")?;
    assert_eq!(d.declarations.white.name, "Garry Kasparov");
    assert_eq!(d.declarations.operator, "Amir Ban");
    assert_eq!(d.declarations.team, ["Shay Bushinsky", "Boris Alterman"]);
    assert_eq!(d.rules_name, "Kasparov vs Deep Junior, New York 2003");
    assert_eq!(d.rules_sha256.len(), 64);
    // Moves: the whole game, the 7c correction in place.
    assert_eq!(r.moves.len(), 106);
    let m = &r.moves[13];
    assert_eq!(
        (m.san.as_str(), m.corrected_from.as_deref()),
        ("Qb6", Some("Qa5"))
    );
    assert_eq!(r.moves[105].san, "Qa7#");
    assert_eq!(r.moves.iter().filter(|m| m.period == 1).count(), 80);
    assert_eq!(r.moves.iter().filter(|m| m.period == 2).count(), 26);
    assert_eq!(r.moves.iter().filter(|m| m.declines_draw).count(), 1);
    // Draw offers.
    assert_eq!(r.draw_offers.len(), 3);
    let first = &r.draw_offers[0];
    assert_eq!(first.by, Side::White);
    assert_eq!(first.with_move.as_deref(), Some("5. cxd5"));
    assert_eq!(first.consultations.len(), 1);
    assert_eq!(first.consultations[0].with, ["Shay Bushinsky"]);
    assert_eq!(first.consultation_ms, 240_000);
    assert!(
        first.outcome.starts_with("declined by Deep Junior"),
        "{}",
        first.outcome
    );
    let second = &r.draw_offers[1];
    assert_eq!(second.consultation_ms, 120_000);
    assert!(
        second
            .outcome
            .contains("rejected by Deep Junior's move 11... Bf5 (9e)"),
        "{}",
        second.outcome
    );
    let third = &r.draw_offers[2];
    assert_eq!((third.by, third.clause.as_str()), (Side::Black, "9d"));
    assert_eq!(
        third.justification.as_deref(),
        Some("evaluation +0.12 (pawns)")
    );
    assert!(third.outcome.starts_with("declined by Garry Kasparov"));
    // Operator errors.
    assert_eq!(r.infractions.len(), 2);
    let i = &r.infractions[0];
    assert_eq!(
        (
            i.clause.as_str(),
            i.pressed,
            i.infraction,
            i.penalty_ms,
            i.forfeit
        ),
        ("7c", true, 1, 600_000, false)
    );
    assert_eq!(
        (r.infractions[1].clause.as_str(), r.infractions[1].pressed),
        ("7b", false)
    );
    // Technical problem and power failure, with durations.
    assert_eq!(r.incidents.len(), 2);
    let tech = &r.incidents[0];
    assert_eq!(tech.kind, IncidentKind::Technical);
    assert_eq!(tech.duration_ms, Some(255_000));
    assert_eq!(
        tech.durations,
        [
            ("machine's clock running (8a)".to_string(), 135_000),
            ("machine's clock stopped for questions".to_string(), 120_000)
        ]
    );
    assert_eq!(tech.details.len(), 4);
    let power = &r.incidents[1];
    assert_eq!(power.kind, IncidentKind::Power);
    assert_eq!(power.duration_ms, Some(1_210_000));
    assert_eq!(
        power.durations,
        [
            ("without power".to_string(), 900_000),
            ("machine reset".to_string(), 300_000),
            ("suspended in total".to_string(), 1_210_000)
        ]
    );
    // Dispute and ruling.
    assert_eq!(r.disputes.len(), 1);
    assert_eq!(r.disputes[0].rulings.len(), 1);
    assert_eq!(r.disputes[0].rulings[0].2, "no infraction; play on");
    // Parameters.
    assert_eq!(r.parameters.len(), 2);
    assert_eq!(
        (
            r.parameters[0].clause.as_str(),
            r.parameters[0].name.as_str()
        ),
        ("6g", "hash")
    );
    let p = &r.parameters[1];
    assert_eq!(
        (p.clause.as_str(), p.id, p.advice.len()),
        ("6l", Some(1), 1)
    );
    assert!(p.decision.as_ref().is_some_and(|d| d.1));
    // Engine log; and the program copy the profile asks for (13d), said missing.
    assert_eq!(r.archives.len(), 2);
    assert_eq!(r.archives[1].clause, "13d");
    assert!(
        r.archives[1].fields[0]
            .1
            .starts_with("NO: no copy of the program")
    );
    let a = &r.archives[0];
    assert_eq!(
        a.summary.as_deref(),
        Some("52/53 machine moves covered; move 23: no evaluation")
    );
    assert_eq!(a.move_problems.len(), 1);
    assert_eq!(a.move_problems[0].problems, ["no evaluation"]);
    assert!(a.fields.iter().any(|(k, _)| k == "log.sha256"));
    // Result.
    let res = r.result.as_ref().ok_or("result")?;
    assert_eq!(
        (res.score.as_str(), res.termination.as_str()),
        ("0-1", "checkmate")
    );
    Ok(())
}

#[test]
fn report_chart_has_both_clocks_one_point_per_move_and_the_period_lines() -> TestResult {
    let r = report(false)?;
    assert_eq!(r.chart.period_lines, [40, 60]);
    let svg = svg::chart(&r.chart);
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    assert!(svg.contains(r#"viewBox="0 0 800 300""#));
    for side in ["white", "black"] {
        let pts = polyline_points(&svg, side);
        assert_eq!(pts.len(), 53, "{side}");
        assert!(
            pts.windows(2).all(|w| w[0].0 < w[1].0),
            "{side}: x grows with the move number"
        );
        assert!(
            pts.iter()
                .all(|(x, y)| (0.0..=800.0).contains(x) && (0.0..=300.0).contains(y))
        );
        assert!(svg.contains(&format!(r#"data-side="{side}" data-points="53""#)));
    }
    for n in [40, 60] {
        assert!(
            svg.contains(&format!(r#"class="period-line" data-move="{n}""#)),
            "line {n}"
        );
        assert!(svg.contains(&format!(">{n} moves</text>")));
    }
    // Period addition on the 40th move: an hour more after it than after the 39th.
    let white = &r.chart.series[0].points;
    assert!(
        white[39].1 - white[38].1 > 3_000_000,
        "{:?}",
        &white[37..41]
    );
    // One penalty (7c, on the human's clock) and one correction (6d, on the machine's).
    let kinds: Vec<(MarkKind, Side)> = r.chart.marks.iter().map(|m| (m.kind, m.side)).collect();
    assert_eq!(
        kinds,
        [
            (MarkKind::Penalty, Side::White),
            (MarkKind::Correction, Side::Black)
        ]
    );
    assert_eq!(svg.matches(r#"class="mark mark-penalty""#).count(), 1);
    assert_eq!(svg.matches(r#"class="mark mark-correction""#).count(), 1);
    assert!(r.chart.marks[0].label.contains("+0:10:00"));
    // The chart is inline in the page.
    let page = html::render(&r);
    assert!(section(&page, "chart").contains(&svg));
    Ok(())
}

#[test]
fn report_public_version_leaves_out_the_engine_log_contents() -> TestResult {
    let committee = report(false)?;
    let public = report(true)?;
    let sha = "aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44";
    let sums = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    let full = html::render(&committee);
    let part = html::render(&public);
    let full_sec = section(&full, "engine-log");
    let part_sec = section(&part, "engine-log");
    assert!(full_sec.contains(sha) && full_sec.contains(sums));
    assert!(full_sec.contains("Nxc1"));
    // Each copy by its digest and size; no file name, no folder (13e).
    assert!(part.contains(sha) && part.contains(sums));
    assert!(!part.contains("/media/usb1") && !part.contains("junior-game1.log"));
    assert!(!part_sec.contains("Nxc1"));
    assert!(!part_sec.contains(r#"class="engine-moves""#));
    // What may be released stays: the coverage summary, the copies, the deadline.
    assert!(part_sec.contains("52/53 machine moves covered"));
    assert!(part_sec.contains("within_deadline"));
    assert!(part_sec.contains("withheld from the public version (13e)"));
    // The per-move details (1 + the one problem), the two copies' paths and the log's name.
    assert_eq!(public.archives[0].withheld, 5);
    // The page says which version it is.
    assert!(part.contains(r#"<meta name="report-version" content="public">"#));
    assert!(part.contains("Public version (rule 5b release)"));
    assert!(full.contains(r#"<meta name="report-version" content="committee">"#));
    assert!(full.contains("Committee version (confidential: rule 13e)"));
    // The rest of the report is the same.
    for id in [
        "declarations",
        "timeline",
        "chart",
        "moves",
        "draw-offers",
        "incidents",
    ] {
        assert_eq!(section(&full, id), section(&part, id), "{id}");
    }
    let md = markdown::render(&public);
    assert!(md.contains(sha) && md.contains(sums) && md.contains("Public version"));
    assert!(!md.contains("/media/usb") && !md.contains("junior-game1.log"));
    assert!(!md.contains("Move 23 Nxc1"));
    assert!(markdown::render(&committee).contains("Move 23 Nxc1: no evaluation"));
    Ok(())
}

#[test]
fn report_escapes_text_from_the_log() -> TestResult {
    let evil = "Garry <script>alert(1)</script> Kasparov";
    let text = format!(
        "0 arbiter declare white human {evil}\n\
         0 arbiter declare black machine Deep Junior\n\
         0 arbiter declare operator Amir Ban\n\
         0 arbiter start\n\
         10 move d4\n\
         20 move d5\n\
         30 arbiter note a \"quoted\" & <b>bold</b> 'remark' | pipe\n\
         40 arbiter stop </td></tr></table><img src=x onerror=alert(2)>\n"
    );
    let (events, utc) = run(&text)?;
    let r = model::build(&events, &utc, &verification(events.len()), false);
    let page = html::render(&r);
    for raw in ["<script>", "</script>", "<b>", "<img", "\"quoted\""] {
        assert!(!page.contains(raw), "unescaped {raw}");
    }
    assert!(page.contains("Garry &lt;script&gt;alert(1)&lt;/script&gt; Kasparov"));
    assert!(
        page.contains("a &quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt; &#39;remark&#39; | pipe")
    );
    assert!(
        page.contains("&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;img src=x onerror=alert(2)&gt;")
    );
    let chart = svg::chart(&r.chart);
    assert!(!chart.contains("<script>") && chart.contains("&lt;script&gt;"));
    let md = markdown::render(&r);
    assert!(!md.contains("<script>") && !md.contains("<b>"));
    assert!(md.contains(r"Garry \<script\>alert(1)\</script\> Kasparov"));
    assert!(md.contains(r"\<b\>bold\</b\> 'remark' \| pipe"));
    Ok(())
}

#[test]
fn report_of_an_empty_or_foreign_log_is_made_with_warnings() {
    let v = Verification::not_checked(0);
    let r = model::build(&[], &[], &v, false);
    assert_eq!(r.warnings, ["the log is empty"]);
    let page = html::render(&r);
    assert!(page.contains("No declarations") && page.contains("not checked by this build"));
    assert!(markdown::render(&r).contains("The game has no result in the log."));
    let stray = arbiter::core::event::Event::new(
        5,
        arbiter::core::Actor::Arbiter,
        "5b",
        arbiter::core::event::EventKind::Note { text: "x".into() },
    );
    let r = model::build(&[stray], &[], &v, true);
    assert_eq!(r.warnings, ["the first entry is not game_opened"]);
    assert_eq!(r.timeline.len(), 1);
    assert_eq!(r.timeline[0].stamp.utc, "");
    assert!(svg::chart(&r.chart).contains("clock-white"));
}

#[test]
fn report_markdown_snapshot() -> TestResult {
    let r = report(false)?;
    insta::assert_snapshot!(markdown::render(&r));
    Ok(())
}
