//! Memory flat: `arbiter report` streams the log (`report_io::write_report`:
//! in one pass, each row held until no void can reach it, a second pass for a void reaching
//! further) and writes exactly the bytes of the whole rendering (`report_io::render_game`),
//! Markdown and HTML, committee and public, voided entries marked; the clock chart keeps a
//! bounded number of points however long the log.
use std::path::Path;

use arbiter::after::report_io::{render_game, write_report};
use arbiter::core::event::Event;
use arbiter::log::codec::kind_and_body;
use arbiter::report::model::{self, CHART_MAX, Verification};
use arbiter::report::{Format, Input, render};

use crate::report_support::{TestResult, game_events, run};

/// Write `events` as game `n`'s log through the journal (hash-chained, no checkpoint).
fn write_events(match_dir: &Path, n: u32, events: &[Event], utc: &[String]) -> TestResult {
    let mut journal: Option<arbiter::record::journal::Journal> = None;
    for (e, u) in events.iter().zip(utc) {
        let (kind, body) = kind_and_body(e);
        let ne = arbiter::log::NewEntry {
            mono_ms: e.at,
            utc: chrono::DateTime::parse_from_rfc3339(u)?.with_timezone(&chrono::Utc),
            actor: e.actor.name().to_string(),
            clause: e.clause.to_string(),
            kind,
            body,
        };
        match journal.as_mut() {
            Some(j) => {
                j.append(ne)?;
            }
            None => {
                journal = Some(arbiter::record::journal::Journal::create(
                    &arbiter::record::layout::log_path(match_dir, n),
                    ne,
                )?);
            }
        }
    }
    Ok(())
}

fn verdict() -> Verification {
    Verification {
        status: "Ok (arbiter verify exit code 0)".into(),
        detail: "chain head abc".into(),
        entries: 3,
        signed_upto: Some(2),
    }
}

/// Every format and version, with and without a verdict: the streamed file is the whole render.
fn streamed_equals_whole(dir: &Path) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let mut texts = Vec::new();
    for format in [Format::Html, Format::Markdown] {
        for public in [false, true] {
            for v in [None, Some(verdict())] {
                let out = dir.join("out.txt");
                write_report(dir, 1, format, public, v.clone(), &out)?;
                let streamed = std::fs::read_to_string(&out)?;
                let whole = render_game(dir, 1, format, public, v)?;
                assert_eq!(
                    streamed, whole,
                    "{format:?} public={public}: the streamed report differs"
                );
                texts.push(streamed);
            }
        }
    }
    Ok(texts)
}

#[test]
fn report_streamed_writes_the_bytes_of_the_whole_rendering() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("ny-2003");
    let (events, utc) = game_events("Garry Kasparov")?;
    write_events(&dir, 1, &events, &utc)?;
    let texts = streamed_equals_whole(&dir)?;
    // The rows really are there (the comparison is not between two empty timelines).
    assert!(
        texts[0].contains(r#"<table class="timeline">"#)
            && texts[0].contains("data-kind=\"game_opened\"")
    );
    assert!(texts[4].contains("| # | Game time | UTC | Actor | Clause | Action |"));
    // And the same as the pure render of the events.
    let whole = render(&Input::new(events, utc, None), Format::Html, false);
    assert_eq!(texts[0], whole);
    Ok(())
}

#[test]
fn clause_1_report_streamed_marks_the_voided_entries() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("ny-2003");
    let script = "0 arbiter declare white human Garry Kasparov\n\
                  0 arbiter declare black machine Deep Junior\n\
                  0 arbiter declare operator Amir Ban\n\
                  0 arbiter start\n\
                  10 move e4\n\
                  20 human offer-draw\n\
                  30 arbiter void 3 F7 pressed by mistake\n\
                  40 arbiter note first note\n\
                  50 arbiter void 5 typed in the wrong game\n\
                  60 move e5\n";
    let (events, utc) = run(script)?;
    assert_eq!(events[3].kind_name(), "draw_offered", "{events:#?}");
    assert_eq!(events[5].kind_name(), "note");
    write_events(&dir, 1, &events, &utc)?;
    let texts = streamed_equals_whole(&dir)?;
    assert!(texts[0].contains("[VOIDED by entry #4]"), "{}", texts[0]);
    assert!(texts[0].contains("[VOIDED by entry #6]"));
    assert!(texts[4].contains("VOIDED by entry #4"));
    Ok(())
}

#[test]
fn report_a_failed_write_leaves_the_old_file_and_no_temporary() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("ny-2003");
    let (events, utc) = game_events("Garry Kasparov")?;
    write_events(&dir, 1, &events, &utc)?;
    let out = tmp.path().join("report.html");
    std::fs::write(&out, "old")?;
    // The log is gone before the report: nothing is written, the old file stays.
    std::fs::remove_file(arbiter::record::layout::log_path(&dir, 1))?;
    assert!(write_report(&dir, 1, Format::Html, false, None, &out).is_err());
    assert_eq!(std::fs::read_to_string(&out)?, "old");
    let names: Vec<String> = std::fs::read_dir(tmp.path())?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");
    Ok(())
}

#[test]
fn report_clock_chart_keeps_a_bounded_number_of_marks() -> TestResult {
    let mut script = String::from(
        "0 arbiter declare white human Garry Kasparov\n\
         0 arbiter declare black machine Deep Junior\n\
         0 arbiter declare operator Amir Ban\n\
         0 arbiter start\n\
         10 move e4\n\
         11 arbiter stop corrections\n",
    );
    let corrections = 2 * CHART_MAX + 123;
    for k in 0..corrections {
        script.push_str(&format!(
            "{} arbiter correct 6d clock white +1 correction {k}\n",
            12 + k
        ));
    }
    let (events, utc) = run(&script)?;
    let r = model::build(
        &events,
        &utc,
        &Verification::not_checked(events.len()),
        false,
    );
    let marks = &r.chart.marks;
    assert!(
        marks.len() <= CHART_MAX && marks.len() >= CHART_MAX / 2,
        "{} marks",
        marks.len()
    );
    // Evenly thinned, in order, from the first.
    assert!(
        marks[0].label.ends_with("(correction 0)"),
        "{}",
        marks[0].label
    );
    assert!(marks.windows(2).all(|w| w[0].label != w[1].label));
    // Every correction is still in the timeline and among the clock lines.
    assert_eq!(
        r.timeline
            .iter()
            .filter(|t| t.kind == "clock_corrected")
            .count(),
        corrections
    );
    Ok(())
}

/// A game with one move, then `notes` arbiter notes, one a second.
fn notes_script(notes: usize) -> String {
    let mut script = String::from(
        "0 arbiter declare white human Garry Kasparov\n\
         0 arbiter declare black machine Deep Junior\n\
         0 arbiter declare operator Amir Ban\n\
         0 arbiter start\n\
         10 move e4\n",
    );
    for k in 0..notes {
        script.push_str(&format!("{} arbiter note note {k}\n", 20 + k));
    }
    script
}

#[test]
fn report_one_pass_marks_a_void_made_far_after_its_entry() -> TestResult {
    // Rule 1: a void reaches back up to 2 x VOID_WINDOW entries; the one pass holds each row
    // until no later entry can void it, so the row written carries its mark.
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("ny-2003");
    let back = arbiter::core::game::VOID_WINDOW + 10;
    let mut script = notes_script(back + 5);
    let target = 6;
    script.push_str(&format!(
        "{} arbiter void {target} a note in the wrong game\n",
        20 + back + 5
    ));
    let (events, utc) = run(&script)?;
    assert_eq!(events[target].kind_name(), "note");
    assert!(events.len() - target > arbiter::core::game::VOID_WINDOW);
    write_events(&dir, 1, &events, &utc)?;
    let texts = streamed_equals_whole(&dir)?;
    let by = events.len() - 1;
    assert!(texts[0].contains(&format!("[VOIDED by entry #{by}]")));
    Ok(())
}

#[test]
fn report_a_void_beyond_the_rows_held_gets_a_second_pass() -> TestResult {
    // A changed log whose void names an entry older than any void may reach (the game refuses
    // it; the report reads the log leniently): the row was already written by the one pass, so
    // the rows come from a second pass, and the bytes are still those of the whole rendering.
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("ny-2003");
    let (mut events, mut utc) = run(&notes_script(8 * arbiter::core::game::VOID_WINDOW))?;
    let target = 5;
    assert_eq!(events[target].kind_name(), "note");
    let at = events.last().map_or(0, |e| e.at) + 1000;
    events.push(Event {
        at,
        actor: arbiter::core::Actor::Arbiter,
        clause: "1".into(),
        kind: arbiter::core::event::EventKind::EntryVoided {
            seq: target as u64,
            kind: "note".into(),
            reason: "far back".into(),
        },
    });
    utc.push(crate::report_support::utc_of(at));
    write_events(&dir, 1, &events, &utc)?;
    let texts = streamed_equals_whole(&dir)?;
    let by = events.len() - 1;
    let arbiter::core::event::EventKind::Note { text } = &events[target].kind else {
        return Err("not a note".into());
    };
    assert!(
        texts[0].contains(&format!("note: {text} [VOIDED by entry #{by}]")),
        "the far void's mark is missing"
    );
    assert!(texts[4].contains(&format!("note: {text} \\[VOIDED by entry #{by}\\]")));
    Ok(())
}

#[test]
fn report_clock_text_written_in_place_is_timefmt_clock() {
    // The report writes the game time of every entry, and four clock figures for each internal
    // clock report, in place: the same text as `timefmt::clock`, at every edge.
    use arbiter::core::timefmt::clock;
    let mut samples: Vec<i64> = vec![i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 999];
    for base in [
        0i64,
        59_000,
        60_000,
        3_599_000,
        3_600_000,
        36_000_000,
        359_999_999,
    ] {
        for d in -1001..=1001 {
            samples.push(base + d);
            samples.push(-base + d);
        }
    }
    // Every minute and second of the first two hours.
    samples.extend((0..7_200).map(|s| s * 1000 + 999));
    for ms in samples {
        let mut s = String::from("x");
        model::push_clock(&mut s, ms);
        assert_eq!(s, format!("x{}", clock(ms)), "{ms}");
        assert_eq!(
            model::signed_hms(ms),
            format!(
                "{}{}",
                if ms < 0 { "-" } else { "+" },
                clock(i64::try_from(ms.unsigned_abs()).unwrap_or(i64::MAX))
            ),
            "{ms}"
        );
        let abs = ms.unsigned_abs();
        assert_eq!(
            model::hms(abs),
            clock(i64::try_from(abs).unwrap_or(i64::MAX)),
            "{abs}"
        );
    }
    assert_eq!(model::hms(u64::MAX), clock(i64::MAX));
}

#[test]
fn report_rows_moved_into_the_output_are_on_disk_once() -> TestResult {
    // The spooled rows are moved into the report by the kernel a chunk at a time, each chunk
    // punched out of the spool at once: the output gets every byte, in order, after what it
    // already had, and the spool no longer holds the blocks it gave.
    use std::io::Write;
    use std::os::unix::fs::MetadataExt;
    let tmp = tempfile::tempdir()?;
    let len = 3 * arbiter::after::report_io::MOVE_CHUNK + 12_345;
    let rows: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
    let mut spool = tempfile::tempfile_in(tmp.path())?;
    spool.write_all(&rows)?;
    spool.sync_all()?;
    let before = spool.metadata()?.blocks();
    let out_path = tmp.path().join("out");
    let mut out = std::fs::File::create(&out_path)?;
    out.write_all(b"head")?;
    arbiter::after::report_io::move_rows(&spool, 0, len as u64, &mut out)?;
    out.write_all(b"tail")?;
    drop(out);
    let got = std::fs::read(&out_path)?;
    assert_eq!(got.len(), 4 + len + 4);
    assert!(got.starts_with(b"head") && got.ends_with(b"tail"));
    assert!(got[4..4 + len] == rows[..], "the rows differ");
    // Where the file system punches holes (ext4, xfs, btrfs, tmpfs), the spool kept none of
    // the rows' blocks.
    let probe = tempfile::tempfile_in(tmp.path())?;
    probe.set_len(1 << 16)?;
    let punches = rustix::fs::fallocate(
        &probe,
        rustix::fs::FallocateFlags::PUNCH_HOLE | rustix::fs::FallocateFlags::KEEP_SIZE,
        0,
        4096,
    )
    .is_ok();
    let after = spool.metadata()?.blocks();
    if punches {
        assert!(before * 512 >= len as u64, "{before} blocks before");
        assert!(after < before / 8, "{after} of {before} blocks still held");
    } else {
        eprintln!("this file system punches no holes: the spool keeps {after} blocks");
    }
    Ok(())
}

#[test]
fn report_escaping_by_runs_is_the_escaping_char_by_char() {
    // The escapers copy runs of plain text whole and look only at the bytes between: the text is
    // that of escaping each character on its own, for every character of the first 256 and some
    // beyond, alone and among plain text.
    fn html(s: &str) -> String {
        s.chars()
            .map(|c| match c {
                '&' => "&amp;".to_string(),
                '<' => "&lt;".to_string(),
                '>' => "&gt;".to_string(),
                '"' => "&quot;".to_string(),
                '\'' => "&#39;".to_string(),
                c if c.is_control() && c != '\n' && c != '\t' => "\u{fffd}".to_string(),
                c => c.to_string(),
            })
            .collect()
    }
    fn markdown(s: &str) -> String {
        s.chars()
            .map(|c| match c {
                '\\' | '|' | '<' | '>' | '`' | '*' | '[' | ']' => format!("\\{c}"),
                '\n' | '\r' | '\t' => " ".to_string(),
                c if c.is_control() => "\u{fffd}".to_string(),
                c => c.to_string(),
            })
            .collect()
    }
    let mut chars: Vec<char> = (0u32..0x300).filter_map(char::from_u32).collect();
    chars.extend(['\u{2028}', '\u{feff}', '–', '♔', '\u{10ffff}', '😀']);
    let mut texts = vec![String::new(), "plain text 1:02:03".to_string()];
    for &c in &chars {
        texts.push(c.to_string());
        texts.push(format!("a{c}b{c}{c}c"));
    }
    texts.push(chars.iter().collect());
    // Each at every place of the first chunks of 32 bytes looked at together and of what is left
    // after them (a long text's runs are looked at a chunk at a time).
    for c in ['&', '\'', '|', '\u{1}', '\u{85}', 'é', '\n'] {
        for len in [31, 32, 33, 64, 70, 100] {
            for at in 0..len {
                let mut t: String = "x".repeat(len);
                t.replace_range(at..=at, &c.to_string());
                texts.push(t);
            }
        }
    }
    for t in &texts {
        assert_eq!(arbiter::report::html::escape(t), html(t), "{t:?}");
        assert_eq!(arbiter::report::markdown::escape(t), markdown(t), "{t:?}");
    }
}

/// `arbiter report` builds the report from the lines verify's own pass checks and
/// decodes (`report_io::write_report_verified`): the bytes of the whole rendering, with the
/// verdict; and when that pass does not hand every line over (a tampered log goes verify's
/// exact way, or no line was watched), the report reads the log itself: the same bytes again.
#[test]
fn report_from_verifys_pass_writes_the_bytes_of_the_whole_rendering() -> TestResult {
    use arbiter::after::report_io::{verification, verification_watching, write_report_verified};
    let tmp = tempfile::tempdir()?;
    // A match the kit made (keys, checkpoints), notes with quotes and a letter beyond ASCII.
    let dir = crate::decode::scripted_match(tmp.path(), 40);
    let out = tmp.path().join("out.txt");
    let same =
        |format: Format, public: bool, watch: bool| -> Result<bool, Box<dyn std::error::Error>> {
            let mut seen = 0usize;
            let mut streamed = false;
            write_report_verified(
                &dir,
                1,
                format,
                public,
                |w| {
                    let (v, s) = if watch {
                        verification_watching(
                            &dir,
                            1,
                            Some(&mut |l| {
                                seen += 1;
                                w(l)
                            }),
                        )
                    } else {
                        (verification(&dir, 1), false)
                    };
                    streamed = s;
                    (Some(v), s)
                },
                &out,
            )?;
            let whole = render_game(&dir, 1, format, public, Some(verification(&dir, 1)))?;
            assert_eq!(
                std::fs::read_to_string(&out)?,
                whole,
                "{format:?} public={public}"
            );
            // Streamed: every line went through the watcher; none when none was watched.
            assert!(seen > 0 || !streamed, "{format:?}: streamed, no line seen");
            assert!(watch || seen == 0);
            Ok(streamed)
        };
    for format in [Format::Html, Format::Markdown] {
        for public in [false, true] {
            // The lines come from verify's pass (the clean log is streamed).
            assert!(
                same(format, public, true)?,
                "{format:?}: not from verify's pass"
            );
            // None handed over: the report reads the log itself.
            assert!(!same(format, public, false)?);
        }
    }
    // A byte of an entry changed: verify goes its exact way, the report reads the log itself.
    let log = arbiter::record::layout::log_path(&dir, 1);
    let text = std::fs::read_to_string(&log)?.replacen("quoted", "quotes", 1);
    std::fs::write(&log, text)?;
    for format in [Format::Html, Format::Markdown] {
        assert!(
            !same(format, false, true)?,
            "{format:?}: a tampered log streamed"
        );
    }
    Ok(())
}

/// The tail of either format (a long log's clock lines are megabytes) is written a
/// piece at a time (`report::write_tail_in_pieces`; `arbiter report` renders the pieces on a
/// thread of its own): the bytes of `parts`' tail, whatever the piece.
#[test]
fn report_tail_written_in_pieces_is_the_whole_tail() -> TestResult {
    let (events, utc) = game_events("Garry <Kasparov> | `the` *human* [w]")?;
    let r = model::build(&events, &utc, &verdict(), false);
    assert!(r.time_items.len() > 1, "no clock lines to write");
    let rows = r.timeline.len();
    for format in [Format::Html, Format::Markdown] {
        let (_, tail) = arbiter::report::parts(&r, rows, 0, format);
        for piece in [0, 1, 100, usize::MAX] {
            let mut out = Vec::new();
            arbiter::report::write_tail_in_pieces(&r, rows, format, &mut out, piece)?;
            assert_eq!(
                String::from_utf8(out)?,
                tail,
                "{format:?}: pieces of {piece}"
            );
        }
    }
    Ok(())
}

#[test]
fn report_rows_handed_over_as_figures_are_the_second_passs_rows() -> TestResult {
    // The one pass hands the timeline's rows to the writer's thread as what their
    // texts are made of (`report::rows`: an internal clock reported by its figures, any other
    // text written out), a batch at a time, each batch marked with the voids found so far. Those
    // rows are the second pass's (`model::Timeline`), and render its bytes, in both formats and
    // versions: clock figures at their edges, a correction owed, texts and UTC texts with what
    // each format escapes, a clock report and a note voided (one of them twice), a void of an
    // entry of another batch.
    use arbiter::core::Actor;
    use arbiter::core::event::EventKind;
    use arbiter::report::model::{Stream, Timeline};
    use arbiter::report::rows::Rows;
    use arbiter::report::{timeline_row, timeline_rows};
    let (mut events, mut utc) = game_events("Garry <Kasparov> | `the` *human* [w]")?;
    let mut at = events.last().map_or(0, |e| e.at);
    let mut add = |events: &mut Vec<Event>, utc: &mut Vec<String>, kind: EventKind, u: &str| {
        at += 1000;
        events.push(Event::new(at, Actor::Operator, "6c", kind));
        utc.push(u.to_string());
    };
    let clock = |reading_ms: u64, game_clock_ms: i64, diff_ms: i64, owed: bool| {
        EventKind::InternalClockReported {
            reading_ms,
            game_clock_ms,
            diff_ms,
            threshold_ms: 120_000,
            correction_owed: owed,
        }
    };
    let first = events.len();
    add(
        &mut events,
        &mut utc,
        clock(7_199_000, 7_199_990, -990, false),
        "2003-01-26T20:00:00.000Z",
    );
    add(
        &mut events,
        &mut utc,
        clock(u64::MAX, i64::MIN, i64::MAX, true),
        "<&\"'|`*[]\\>",
    );
    add(&mut events, &mut utc, clock(0, -1, i64::MIN, true), "");
    let note = |text: &str| EventKind::Note { text: text.into() };
    add(
        &mut events,
        &mut utc,
        note("a <b> & 'c' | `d` *e* [f] \\ g\u{85}h\ti"),
        "x",
    );
    for k in 0..20 {
        add(
            &mut events,
            &mut utc,
            note(&format!("filler {k} /tmp/a/b.txt")),
            "y",
        );
    }
    let void = |seq: usize| EventKind::EntryVoided {
        seq: seq as u64,
        kind: "x".into(),
        reason: "typed <wrong> | [here]".into(),
    };
    add(&mut events, &mut utc, void(first + 1), "z");
    add(&mut events, &mut utc, void(first + 3), "z");
    add(&mut events, &mut utc, void(first + 3), "z");
    add(&mut events, &mut utc, void(2), "z");
    for public in [false, true] {
        let mut stream = Stream::new(&verdict(), public);
        let mut batches = vec![Rows::default()];
        for (e, u) in events.iter().zip(&utc) {
            if batches.last().is_some_and(|b| b.len() >= 7) {
                batches.push(Rows::default());
            }
            if let Some(open) = batches.last_mut() {
                stream.push_rows(&std::sync::Arc::new(e.clone()), u, open);
            }
        }
        for b in &mut batches {
            stream.mark_voided_rows(b);
        }
        let voids = stream.finish().voids;
        assert!(voids.len() >= 3, "{voids:?}");
        let mut second = Timeline::new(public, voids);
        let want: Vec<_> = events
            .iter()
            .zip(&utc)
            .filter_map(|(e, u)| second.push(e, u))
            .collect();
        let got: Vec<_> = batches.iter().flat_map(Rows::entries).collect();
        assert_eq!(got, want, "public={public}");
        assert!(
            got.iter()
                .any(|r| r.text.contains("correction owed [VOIDED by entry #"))
        );
        for format in [Format::Html, Format::Markdown] {
            let mut rendered = String::new();
            for b in &batches {
                timeline_rows(&mut rendered, b, format);
            }
            let mut whole = String::new();
            for r in &want {
                timeline_row(&mut whole, r, format);
            }
            assert_eq!(rendered, whole, "{format:?} public={public}");
        }
    }
    Ok(())
}

/// Game `n`'s log written at once (hash-chained as the journal writes it, no fsync per line:
/// for logs of thousands of entries).
fn write_log_at_once(match_dir: &Path, n: u32, events: &[Event], utc: &[String]) -> TestResult {
    let path = arbiter::record::layout::log_path(match_dir, n);
    std::fs::create_dir_all(path.parent().ok_or("no game folder")?)?;
    let mut text = Vec::new();
    let mut prev = [0u8; 32];
    for (seq, (e, u)) in events.iter().zip(utc).enumerate() {
        let utc = chrono::DateTime::parse_from_rfc3339(u)?.with_timezone(&chrono::Utc);
        let line =
            arbiter::log::encode_line(seq as u64, &prev, &arbiter::log::codec::new_entry(e, utc));
        prev = arbiter::log::entry_hash(&line);
        text.extend_from_slice(&line);
        text.push(b'\n');
    }
    std::fs::write(path, text)?;
    Ok(())
}

/// The rows of a long log ([`arbiter::report::ALIGN_FROM`] bytes or more) start on a
/// block of the file: what comes before them is padded with a line of spaces between two
/// sections, so that `arbiter report` puts it in front of the rows written during the pass
/// without copying them (`report_io::head_in_front`). The file written is the whole rendering,
/// padding included, in both formats; without the padding line it is the rendering of a head
/// that is not padded.
#[test]
fn report_long_rows_start_on_a_block_of_the_file() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("ny-2003");
    let (mut events, mut utc) = run(&notes_script(1))?;
    let words = "a long note of the arbiter's, ".repeat(14);
    let mut at = events.last().map_or(0, |e| e.at);
    while events.len() < 10_000 {
        at += 1000;
        events.push(Event {
            at,
            actor: arbiter::core::Actor::Arbiter,
            clause: "5b".into(),
            kind: arbiter::core::event::EventKind::Note {
                text: format!("{words}{}", events.len()).into(),
            },
        });
        utc.push(crate::report_support::utc_of(at));
    }
    write_log_at_once(&dir, 1, &events, &utc)?;
    // Written on this file system (ext4 here: the head is inserted in front of the rows), and
    // where there is one, on a tmpfs, which cannot insert a range (the rows are copied behind
    // the head): the same bytes.
    let shm = std::path::Path::new("/dev/shm");
    let other = match shm.is_dir() {
        true => Some(tempfile::tempdir_in(shm)?),
        false => None,
    };
    let outs = std::iter::once(tmp.path().join("out.txt"))
        .chain(other.as_ref().map(|d| d.path().join("out.txt")));
    for (out, (format, first_row)) in outs.flat_map(|o| {
        [
            (o.clone(), (Format::Html, "<tr data-kind=")),
            (o, (Format::Markdown, "| 0 | ")),
        ]
    }) {
        // An old report at `out` is replaced.
        std::fs::write(&out, "an old report")?;
        write_report(&dir, 1, format, false, Some(verdict()), &out)?;
        let written = std::fs::read_to_string(&out)?;
        let whole = render_game(&dir, 1, format, false, Some(verdict()))?;
        assert!(
            written == whole,
            "{format:?}: the report differs from its rendering"
        );
        let rows_at = written.find(first_row).ok_or("no row")?;
        let tail_at = written.rfind(" long note").ok_or("no last row")?;
        assert!(tail_at - rows_at >= arbiter::report::ALIGN_FROM as usize);
        assert_eq!(rows_at % arbiter::report::ROWS_ALIGN, 0, "{format:?}");
        // The padding is one line of spaces before the timeline's heading, nothing else.
        let pad_end = written[..rows_at].rfind(" \n").ok_or("no padding")? + 2;
        let pad_start = written[..pad_end - 1]
            .rfind(|c| c != ' ')
            .ok_or("all padding")?
            + 1;
        assert!(pad_end - pad_start > 1, "{format:?}");
        let heading = &written[pad_end..rows_at];
        assert!(
            heading.contains("Timeline of machine-related actions"),
            "{heading}"
        );
        let r = arbiter::report::model::build(&events, &utc, &verdict(), false);
        let (head, _) = arbiter::report::parts(&r, r.timeline.len(), 0, format);
        assert_eq!(
            format!("{}{}", &written[..pad_start], &written[pad_end..rows_at]),
            head,
            "{format:?}: the head is more than padded"
        );
        assert!(!out.with_file_name("out.txt.tmp").exists());
    }
    Ok(())
}

/// `report_io::head_in_front` puts a head of whole blocks in front of rows already
/// written (into the room left before them, made larger by the file system when the head is
/// longer), and a tail after them, and renames the file over `out`; where it cannot (tmpfs for
/// a head longer than the room, a head not of whole blocks or shorter than the room) it changes
/// nothing and says so.
#[test]
fn report_head_put_in_front_of_the_rows_without_moving_them() -> TestResult {
    use std::os::unix::fs::{FileExt, OpenOptionsExt};
    let tmp = tempfile::tempdir()?;
    let out = tmp.path().join("report.html");
    let room = arbiter::report::ROWS_ALIGN;
    let rows: Vec<u8> = (0..3 * room + 77).map(|i| b'a' + (i % 26) as u8).collect();
    // The rows written after `at` bytes left empty, as the report's pass writes them.
    let spool = |at: usize| -> std::io::Result<std::fs::File> {
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .mode(0o600)
            .custom_flags(libc::O_TMPFILE)
            .open(tmp.path())?;
        f.write_all_at(&rows, at as u64)?;
        Ok(f)
    };
    let tail = |f: &mut std::fs::File| std::io::Write::write_all(f, b"<tail>");
    let head_of = |len: usize| format!("<head>{}\n", " ".repeat(len - 7));
    // A head that is not a whole number of blocks, or shorter than the room: nothing done,
    // nothing changed.
    for (at, head) in [(0, "short".to_string()), (room, head_of(room / 2))] {
        std::fs::write(&out, "old")?;
        let f = spool(at)?;
        let done = arbiter::after::report_io::head_in_front(
            &f,
            at as u64,
            rows.len() as u64,
            &head,
            tail,
            &out,
        );
        assert!(done.is_none(), "{at} {}", head.len());
        assert_eq!(std::fs::read(&out)?, b"old");
        assert_eq!(f.metadata()?.len(), (at + rows.len()) as u64);
    }
    // Into the room as it is, into a room made larger, in front of rows with no room.
    for (at, head_len) in [(room, room), (room, 3 * room), (0, 2 * room)] {
        std::fs::write(&out, "old")?;
        let head = head_of(head_len);
        let f = spool(at)?;
        match arbiter::after::report_io::head_in_front(
            &f,
            at as u64,
            rows.len() as u64,
            &head,
            tail,
            &out,
        ) {
            Some(done) => {
                done?;
                let got = std::fs::read(&out)?;
                assert_eq!(got.len(), head.len() + rows.len() + 6, "{at} {head_len}");
                assert!(got.starts_with(head.as_bytes()) && got.ends_with(b"<tail>"));
                assert!(got[head.len()..head.len() + rows.len()] == rows[..]);
                assert_eq!(crate::log_util::mode(&out), 0o600);
                assert!(!tmp.path().join("report.html.tmp").exists());
            }
            // Not on this file system (a range to insert): the rows are as they were, `out` too.
            None => {
                assert!(head_len > at, "{at} {head_len}: nothing to insert");
                assert_eq!(std::fs::read(&out)?, b"old");
                assert_eq!(f.metadata()?.len(), (at + rows.len()) as u64);
                assert!(!tmp.path().join("report.html.tmp").exists());
            }
        }
    }
    Ok(())
}
