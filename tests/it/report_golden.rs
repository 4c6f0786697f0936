//! `arbiter report` made faster must write the same bytes. The six games of Kasparov –
//! Deep Junior, New York 2003 (tests/fixtures/report-2003: the real moves, seeded times, a note,
//! an internal-clock report, a stop and resume, a correction, a draw offer and consultation, the
//! real results), reported in HTML and Markdown, committee and public versions, are compared
//! byte for byte with the reports the kit wrote before the one-pass report (expected/, written
//! by main 37fc746; regenerate with tests/fixtures/report-2003.sh only for a change of the
//! text that is meant).
use std::path::Path;
use std::process::Command;

use crate::report_support::TestResult;

const DIR: &str = "tests/fixtures/report-2003";

#[test]
fn report_of_the_six_2003_games_is_byte_identical_to_the_reference() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let mut compared = 0;
    for n in 1..=6 {
        for (flags, name) in [
            (&[][..], format!("game-{n}.html")),
            (&["--markdown"][..], format!("game-{n}.md")),
            (&["--public"][..], format!("game-{n}.public.html")),
            (
                &["--public", "--markdown"][..],
                format!("game-{n}.public.md"),
            ),
        ] {
            let out = tmp.path().join(&name);
            let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
                .args(["report", "--match", &format!("{DIR}/match"), "--game"])
                .arg(n.to_string())
                .args(flags)
                .arg("--out")
                .arg(&out)
                .output()?;
            assert!(
                o.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let got = std::fs::read(&out)?;
            let want = std::fs::read(Path::new(DIR).join("expected").join(&name))?;
            if got != want {
                let at = got.iter().zip(&want).take_while(|(a, b)| a == b).count();
                let show = |b: &[u8]| {
                    String::from_utf8_lossy(&b[at.saturating_sub(80)..(at + 80).min(b.len())])
                        .into_owned()
                };
                return Err(format!(
                    "{name}: differs from the reference at byte {at} ({} vs {} bytes):\n\
                     got:  {}\nwant: {}",
                    got.len(),
                    want.len(),
                    show(&got),
                    show(&want)
                )
                .into());
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 24);
    // The games are there: each report has its moves and its result.
    let md = std::fs::read_to_string(Path::new(DIR).join("expected/game-4.md"))?;
    assert!(md.contains("1/2-1/2"), "game 4 was drawn");
    Ok(())
}
