//! Rule 13e and 5b: `report --public` holds no local path and nothing 13e keeps
//! confidential: the match folder, the folders the copies came from, the program copy's file name
//! and the script's path appear in neither the HTML nor the Markdown; each copy is its digest and
//! size. The committee version keeps them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use crate::pgn_support::read_real;
use crate::realgame::{arbiter, ok, play_the_real_game};

#[test]
fn clause_13e_public_report_has_no_local_path_and_no_program_name() {
    let p = play_the_real_game();
    let home = tempfile::tempdir().unwrap();
    let stick = home.path().join("home/amir.ban/usb-stick");
    std::fs::create_dir_all(&stick).unwrap();
    let log = read_real("machine-debug.log").unwrap();
    let (a, b) = (stick.join("copy1.log"), stick.join("copy2.log"));
    std::fs::write(&a, &log).unwrap();
    std::fs::write(&b, &log).unwrap();
    let program = stick.join("DeepJunior8-secret-build.zip");
    std::fs::write(&program, b"the engine as used in game 1").unwrap();
    ok(&arbiter(&[
        "archive",
        "--match",
        &p.dir,
        "--game",
        "1",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--program",
        program.to_str().unwrap(),
    ]));
    let digest = arbiter::after::archive::hash_file(&program, false)
        .unwrap()
        .0;
    let abs = std::fs::canonicalize(&p.dir).unwrap().display().to_string();
    let script_dir = Path::new(&p.dir).parent().unwrap().display().to_string();
    let secrets = [
        p.dir.as_str(),
        abs.as_str(),
        script_dir.as_str(),
        "amir.ban",
        "usb-stick",
        "DeepJunior8",
        "secret-build",
        "real.arb\u{0}", // the script's name alone may stay; its folder may not
        "/tmp",
        "allowed_signers\u{0}",
    ];
    let out = tempfile::tempdir().unwrap();
    let report = |public: bool, md: bool| {
        let file = out
            .path()
            .join(format!("r-{public}.{}", if md { "md" } else { "html" }));
        let mut args = vec!["report", "--match", &p.dir, "--game", "1"];
        if md {
            args.push("--markdown");
        }
        if public {
            args.push("--public");
        }
        let f = file.display().to_string();
        args.extend(["--out", &f]);
        ok(&arbiter(&args));
        std::fs::read_to_string(&file).unwrap()
    };
    for md in [true, false] {
        let public = report(true, md);
        for s in secrets {
            let s = s.trim_end_matches('\u{0}');
            if s == "real.arb" || s == "allowed_signers" {
                continue;
            }
            assert!(
                !public.contains(s),
                "public {} shows '{s}'",
                if md { "Markdown" } else { "HTML" }
            );
        }
        // Each copy by its digest and size.
        assert!(public.contains(&digest), "the program copy's digest");
        assert!(public.contains("13e"));
        let committee = report(false, md);
        assert!(committee.contains("DeepJunior8-secret-build.zip"));
        assert!(committee.contains("usb-stick"));
    }
}

/// The path filter itself: paths lose their folders, other words with a slash stay.
#[test]
fn clause_13e_public_text_keeps_results_and_drops_folders() {
    use arbiter::report::model::strip_paths;
    assert_eq!(
        strip_paths("script /home/amir/scripts/g1.arb sha256 ab (120 lines)", ""),
        "script g1.arb sha256 ab (120 lines)"
    );
    assert_eq!(
        strip_paths("decided 1/2-1/2 and/or --trust FILE / --fingerprint FP", ""),
        "decided 1/2-1/2 and/or --trust FILE / --fingerprint FP"
    );
    assert_eq!(
        strip_paths("checked against m/allowed_signers, which", "m"),
        "checked against allowed_signers, which"
    );
    assert_eq!(strip_paths("(~/usb/x.zip)", ""), "(x.zip)");
}
