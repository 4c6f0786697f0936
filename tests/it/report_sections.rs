//! Every section of the report follows the timeline. For a game with voided entries,
//! clock corrections (one voided), a 7c penalty and both time controls (moves 40 and 60, one of
//! them pressed ahead of its notation): no table lists what the timeline marks VOIDED, every table
//! row is an entry of the timeline, and the period additions are rule-3 lines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::report::model::{Report, Verification, build};
use arbiter::report::times::ItemKind;

use crate::clauses::{LONG_GAME, Match, secs, started};

fn seq_of(m: &Match, kind: &str) -> usize {
    m.log.iter().rposition(|e| e.kind_name() == kind).unwrap()
}

/// Every (section, entry) of the tables.
fn table_entries(r: &Report) -> Vec<(&'static str, usize)> {
    let mut out = Vec::new();
    for o in &r.draw_offers {
        out.push(("draw offer", o.stamp.entry));
        for c in &o.consultations {
            out.push(("consultation", c.started.entry));
        }
        if let Some(a) = &o.answered {
            out.push(("answer", a.entry));
        }
    }
    for i in &r.infractions {
        out.push(("infraction", i.stamp.entry));
    }
    for i in &r.incidents {
        out.push(("incident", i.start.entry));
        for (s, _) in &i.details {
            out.push(("incident detail", s.entry));
        }
    }
    for d in &r.disputes {
        out.push(("dispute", d.raised.entry));
        for (s, _, _) in &d.rulings {
            out.push(("ruling", s.entry));
        }
    }
    for p in &r.parameters {
        out.push(("parameter", p.stamp.entry));
    }
    for t in &r.time_items {
        out.push(("clock line", t.stamp.entry));
    }
    if let Some(x) = &r.result {
        out.push(("result", x.stamp.entry));
    }
    out
}

#[test]
fn rule_1_and_rule_3_every_section_follows_the_timeline() {
    let sans: Vec<&str> = LONG_GAME.split_whitespace().take(124).collect();
    let mut m = started();
    let mut t = 0;
    for (i, san) in sans.iter().enumerate() {
        t += 60_000;
        if i == 78 {
            // White's 40th: pressed, the notation after Black's press.
            m.at(&format!("{} press", secs(t)));
            m.at(&format!("{} press", secs(t + 60_000)));
            m.at(&format!("{} move {san}", secs(t + 61_000)));
            continue;
        }
        if i == 79 {
            t += 60_000;
            m.at(&format!("{} move {san}", secs(t + 2_000)));
            t += 2_000;
            continue;
        }
        m.at(&format!("{} move {san}", secs(t)));
        match i {
            4 => {
                // A mis-keyed draw offer (F7), voided.
                m.at(&format!("{} human offer-draw", secs(t + 1_000)));
                let seq = seq_of(&m, "draw_offered");
                m.at(&format!(
                    "{} arbiter void {seq} F7 pressed by mistake",
                    secs(t + 2_000)
                ));
            }
            10 => {
                m.at(&format!(
                    "{} arbiter stop check the clocks",
                    secs(t + 1_000)
                ));
                m.at(&format!(
                    "{} arbiter correct 6d clock machine +30 the operator was slow",
                    secs(t + 2_000)
                ));
                m.at(&format!(
                    "{} arbiter correct 6d clock human +20 typed for the wrong side",
                    secs(t + 3_000)
                ));
                let seq = seq_of(&m, "clock_corrected");
                m.at(&format!("{} arbiter void {seq} mis-keyed", secs(t + 4_000)));
                m.at(&format!("{} arbiter resume", secs(t + 5_000)));
                t += 5_000;
            }
            20 => {
                m.at(&format!(
                    "{} arbiter dispute typed for the wrong game",
                    secs(t + 1_000)
                ));
                let seq = seq_of(&m, "dispute_raised");
                m.at(&format!(
                    "{} arbiter void {seq} wrong game",
                    secs(t + 2_000)
                ));
                t += 2_000;
            }
            _ => {}
        }
    }
    let r = build(&m.log, &[], &Verification::not_checked(m.log.len()), false);
    let voided: Vec<usize> = r
        .timeline
        .iter()
        .filter(|row| row.text.contains("[VOIDED by entry #"))
        .map(|row| row.stamp.entry)
        .collect();
    assert_eq!(voided.len(), 3, "{voided:?}");
    let in_timeline: Vec<usize> = r.timeline.iter().map(|row| row.stamp.entry).collect();
    for (section, entry) in table_entries(&r) {
        assert!(
            !voided.contains(&entry),
            "{section} lists voided entry #{entry}"
        );
        // Moves are in the moves table, not the timeline.
        assert!(
            in_timeline.contains(&entry) || m.log[entry].kind_name() == "move_made",
            "{section} lists entry #{entry} ({}), which the timeline does not show",
            m.log[entry].kind_name()
        );
    }
    assert!(r.draw_offers.is_empty(), "{:?}", r.draw_offers);
    assert!(r.disputes.is_empty(), "{:?}", r.disputes);
    // Clock lines: the kept correction (6d), four rule-3 additions, nothing unexplained.
    let lines: Vec<(ItemKind, String, i64)> = r
        .time_items
        .iter()
        .map(|t| (t.kind, t.clause.clone(), t.clock_ms))
        .collect();
    assert_eq!(
        lines,
        vec![
            (ItemKind::Correction, "6d".to_string(), 30_000),
            (ItemKind::Period, "3".to_string(), 3_600_000),
            (ItemKind::Period, "3".to_string(), 3_600_000),
            (ItemKind::Period, "3".to_string(), 1_800_000),
            (ItemKind::Period, "3".to_string(), 1_800_000),
        ],
        "{:#?}",
        r.time_items
    );
    for total in &r.totals {
        assert!(total.total.adds_up(), "{total:?}");
    }
    // The moves table and the PGN read the same clocks.
    let pgn = arbiter::after::postgame::pgn_of(&m.log, "2003-01-26T16:00:00Z").unwrap();
    for row in &r.moves {
        let clk = format!(
            "[%clk {}]",
            arbiter::report::pgn::format_clock(row.remaining_ms.max(0) as u64)
        );
        assert!(pgn.contains(&clk), "{} {clk}", row.san);
    }
    assert!(!pgn.contains("changed at a"), "{pgn}");
}

/// Rule 1: a voided stop of the clocks. The clock ran through the stop after all; that time is
/// the move's (its `%emt` and the report's time for it), said in a line of its own under rule 1,
/// not an unexplained "other" change; the totals add up.
#[test]
fn rule_1_a_voided_clock_stop_gives_the_move_its_time() {
    let mut m = started();
    m.at("10 move e4");
    m.at("20 move e5");
    m.at("50 arbiter stop check");
    let seq = seq_of(&m, "clock_stopped");
    m.at(&format!("52 arbiter void {seq} mis-keyed"));
    m.at("60 move Nf3");
    let r = build(&m.log, &[], &Verification::not_checked(m.log.len()), false);
    let items: Vec<(&ItemKind, &str, i64, i64)> = r
        .time_items
        .iter()
        .map(|t| (&t.kind, t.clause.as_str(), t.clock_ms, t.time_ms))
        .collect();
    assert_eq!(
        items,
        [(&ItemKind::VoidedStop, "1", 0, 2_000)],
        "{:?}",
        r.time_items
    );
    assert_eq!(
        r.time_items[0].text,
        format!(
            "entry #{seq} (clock stopped) voided: white's clock ran through it after all, counted \
             in its move"
        )
    );
    // Nf3 took 40 s on the clock: 20 → 60, the voided stop included.
    let nf3 = r.moves.last().unwrap();
    assert_eq!((nf3.san.as_str(), nf3.spent_ms), ("Nf3", 40_000));
    for t in &r.totals {
        assert!(t.total.adds_up(), "{t:?}");
    }
    let pgn = arbiter::after::postgame::pgn_of(&m.log, "2003-01-26T16:00:00Z").unwrap();
    let text = pgn.replace('\n', " ");
    assert!(
        text.contains(&format!(
            "{{1: entry #{seq} (clock stopped) voided: white's clock ran through it after all, \
             counted in its move (0:00:02.000)}} 2. Nf3 {{[%clk 1:59:10] [%emt 0:00:40]}}"
        )),
        "{pgn}"
    );
    assert!(!pgn.contains("changed at a"), "{pgn}");
}

/// Rule 1: a voided resume of the clocks. The clock did not run after all between the resume and
/// its void; that time is taken out of the move under way, in a rule-1 line; the totals add up.
#[test]
fn rule_1_a_voided_resume_takes_the_run_out_of_the_move() {
    let mut m = started();
    m.at("10 move e4");
    m.at("20 move e5");
    m.at("50 arbiter stop check");
    m.at("52 arbiter resume");
    let seq = seq_of(&m, "clock_resumed");
    m.at(&format!("60 arbiter void {seq} resumed too early"));
    m.at("61 arbiter resume");
    m.at("70 move Nf3");
    let r = build(&m.log, &[], &Verification::not_checked(m.log.len()), false);
    let items: Vec<(&ItemKind, i64, i64)> = r
        .time_items
        .iter()
        .map(|t| (&t.kind, t.clock_ms, t.time_ms))
        .collect();
    assert_eq!(
        items,
        [(&ItemKind::VoidedStop, 0, -8_000)],
        "{:?}",
        r.time_items
    );
    assert!(
        r.time_items[0]
            .text
            .contains("white's clock did not run after all"),
        "{}",
        r.time_items[0].text
    );
    // Nf3: 30 s before the stop and 9 s after the second resume.
    let nf3 = r.moves.last().unwrap();
    assert_eq!((nf3.san.as_str(), nf3.spent_ms), ("Nf3", 39_000));
    assert_eq!(nf3.remaining_ms, 7_200_000 - 10_000 - 39_000);
    for t in &r.totals {
        assert!(t.total.adds_up(), "{t:?}");
    }
}

/// When no move stands at the end (every move taken back, 6d), the HTML report still
/// gives the clocks' totals and their lines of their own, as the Markdown does: a take-back's
/// time is on the clock whether or not a move follows it.
#[test]
fn html_keeps_the_clock_lines_when_no_move_stands() {
    let mut m = started();
    m.moves("e4 e5 Nf3", 10_000);
    m.at("35 arbiter stop technical problem");
    m.at("36 arbiter correct 6d takeback 3 back to the start position");
    let r = build(&m.log, &[], &Verification::not_checked(m.log.len()), false);
    assert!(r.moves.is_empty(), "{:?}", r.moves);
    let taken: Vec<&str> = r
        .time_items
        .iter()
        .filter(|t| t.kind == ItemKind::TakenBack)
        .map(|t| t.text.as_str())
        .collect();
    assert_eq!(taken.len(), 2, "{:?}", r.time_items);
    let html = arbiter::report::html::render(&r);
    let md = arbiter::report::markdown::render(&r);
    for (name, text) in [("HTML", &html), ("Markdown", &md)] {
        assert!(text.contains("No moves."), "{name}");
        assert!(
            text.contains("Clock lines of their own"),
            "{name} leaves out the clock lines"
        );
        assert!(text.contains("Time used, by the clocks:"), "{name}");
        for t in &taken {
            // The text as each format writes it (the HTML escapes the apostrophes).
            let t = match name {
                "HTML" => t.replace('\'', "&#39;"),
                _ => t.to_string(),
            };
            assert!(text.contains(&t), "{name} leaves out {t}");
        }
    }
}
