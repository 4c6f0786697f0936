//! The article map is profile data (`[articles]` in `rules/*.toml`, `core::articles`): a shogi
//! game's log, refusals and committee report (Markdown and HTML, public and full) cite the
//! Denryu-sen articles the profile gives, never a 2003 clause; a profile missing a key is refused
//! at load naming it; a chess profile goes through the same map.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use arbiter::core::articles::CLAUSES;
use arbiter::core::rules::Profile;

use crate::clauses::{
    DENRYUSEN_2024, KASPAROV_2003, game_from_text, given_game, new_game, rules_text,
};
use crate::realgame::{arbiter, ok};

/// The 2003 clause numbers a report could show: every lettered one the kit names, written as a
/// word of its own (a base64 or hex digest is one longer word), and the bare sections in
/// parentheses or after "rule" / "clause".
pub(crate) fn clause_tokens_2003(text: &str) -> Vec<String> {
    let lettered: Vec<&str> = CLAUSES
        .iter()
        .map(|(_, n, _)| *n)
        .chain(["5a", "6e", "6f", "6i", "6j", "6k", "7a", "7d", "13b", "14a"])
        .filter(|n| n.chars().any(|c| c.is_ascii_alphabetic()))
        .collect();
    let mut found = Vec::new();
    for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || "+/=_-".contains(c))) {
        if lettered.contains(&word) {
            found.push(word.to_string());
        }
    }
    for n in [
        "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "12", "13", "14",
    ] {
        for form in [
            format!("({n})"),
            format!("({n},"),
            format!("rule {n})"),
            format!("rule {n} "),
            format!("rule {n}:"),
            format!("clause {n})"),
            format!("clause {n} "),
        ] {
            if text.contains(&form) {
                found.push(form);
            }
        }
    }
    found
}

/// A shogi game with an entry in most sections the report has for it: a technical problem, a
/// stop with a clock correction, a dispute and its ruling, a note, the result,
/// and an engine log handed over afterwards.
const GAME: &str = "0 arbiter declare sente human Taro Yamada
0 arbiter declare gote program Suisho
0 arbiter declare operator Op
0 arbiter declare team Ann, Bob
0 arbiter start
3.4 move ７六歩
4 operator technical-problem the USI bridge hangs
5 operator repaired restarted the bridge
6 move 3c3d
10 move +2726FU
11 arbiter stop the server reconnected
12 arbiter correct 6d clock gote +5 server lag
13 arbiter resume
14 arbiter dispute sente says the clock ran during the stop
15 committee ruling 1 the clock was right
16 move 4c4d
20 move 2f2e
22 move 2b3c
23 arbiter note all fine
25 human resign
";

/// The four reports of a game played from `script` under `rules`, an engine log archived.
fn reports(dir: &Path, rules: &Path, script: &str, archive: bool) -> Vec<(String, String)> {
    let file = dir.join("game.arb");
    std::fs::write(&file, script).unwrap();
    let m = dir.join("m");
    crate::log_util::arbiter_key_in(&m);
    let d = m.display().to_string();
    ok(&arbiter(&[
        "script",
        file.to_str().unwrap(),
        "--match",
        &d,
        "--rules",
        rules.to_str().unwrap(),
    ]));
    if archive {
        let (c1, c2) = (dir.join("usi1.log"), dir.join("usi2.log"));
        for c in [&c1, &c2] {
            std::fs::write(c, "bestmove 3c3d\n").unwrap();
        }
        let out = ok(&arbiter(&[
            "archive",
            "--match",
            &d,
            "--game",
            "1",
            c1.to_str().unwrap(),
            c2.to_str().unwrap(),
        ]));
        assert!(!out.contains("13c") && out.contains("28.1: "), "{out}");
    }
    let mut out = Vec::new();
    for (name, flags) in [
        ("committee.md", &["--markdown"][..]),
        ("public.md", &["--markdown", "--public"][..]),
        ("committee.html", &[][..]),
        ("public.html", &["--public"][..]),
    ] {
        let path = dir.join(name);
        let mut args = vec![
            "report",
            "--match",
            &d,
            "--game",
            "1",
            "--out",
            path.to_str().unwrap(),
        ];
        args.extend(flags);
        ok(&arbiter(&args));
        out.push((name.to_string(), std::fs::read_to_string(&path).unwrap()));
    }
    out
}

#[test]
fn denryusen_report_cites_the_profiles_articles_not_2003_clauses() {
    let tmp = tempfile::tempdir().unwrap();
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/denryusen-2024.toml");
    for (name, text) in reports(tmp.path(), &rules, GAME, true) {
        assert_eq!(
            clause_tokens_2003(&text),
            Vec::<String>::new(),
            "{name} cites 2003 clauses:\n{text}"
        );
        // The headings cite the profile's articles.
        for heading in [
            "Machine team (5.2)",
            "Internal-clock algorithm (22.3)",
            "Technical problems (26.3) and power failures (26.1)",
            "Machine's log file and program copy (28.1)",
            "Coverage (28.1)",
        ] {
            assert!(text.contains(heading), "{name}: no '{heading}':\n{text}");
        }
    }

    // The detector finds the 2003 clauses in a chess game's report (it can fail).
    let tmp = tempfile::tempdir().unwrap();
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/kasparov-deep-junior-2003.toml");
    let chess = "0 arbiter declare white human Garry Kasparov
0 arbiter declare black machine Deep Junior
0 arbiter declare operator Op
0 arbiter start
5 move e4
9 move e5
12 operator technical-problem the GUI hangs
13 operator repaired restarted
20 human resign
";
    for (name, text) in reports(tmp.path(), &rules, chess, false) {
        let found = clause_tokens_2003(&text);
        for t in ["4c", "9c", "6c", "8a", "5b", "(9)", "(12)", "(13)"] {
            assert!(
                found.iter().any(|f| f == t),
                "{name}: {t} not found in {found:?}"
            );
        }
    }
}

/// The Denryu-sen profile's text with `from` replaced by `to`.
fn edited(from: &str, to: &str) -> String {
    let text = rules_text(DENRYUSEN_2024);
    assert!(text.contains(from), "{from}");
    text.replacen(from, to, 1)
}

#[test]
fn denryusen_articles_are_profile_data_validated_at_load() {
    // Each missing key is named.
    for (from, key) in [
        (
            "internal_clock = \"22.3\"",
            "articles.clauses.internal_clock",
        ),
        ("sennichite = \"13.5\"\n", "articles.shogi.sennichite"),
        ("declaration = \"23\"\n", "articles.shogi.declaration"),
    ] {
        let e = Profile::parse("x.toml", &edited(from, "")).unwrap_err();
        assert_eq!(e.key, key, "{e}");
        assert!(e.message.starts_with("missing"), "{e}");
    }
    let text = rules_text(DENRYUSEN_2024);
    let cut = &text[..text.find("\n[articles.clauses]").unwrap()];
    let e = Profile::parse("x.toml", cut).unwrap_err();
    assert_eq!(e.key, "articles", "{e}");
    assert!(e.message.contains("needs an [articles] table"), "{e}");
    // Unknown names, empty articles and a shogi article that reads as a kit clause are refused.
    for (from, to, key) in [
        (
            "fairness = \"25\"",
            "fairness = \"25\"\nfair_play = \"25\"",
            "articles.clauses.fair_play",
        ),
        (
            "game_opened = \"5.2\"",
            "game_opened = \"5.2\"\nmove_voided = \"4.3\"",
            "articles.entries.move_voided",
        ),
        (
            "sennichite = \"13.5\"",
            "sennichite = \"\"",
            "articles.shogi.sennichite",
        ),
        (
            "sennichite = \"13.5\"",
            "sennichite = \"6c\"",
            "articles.shogi.sennichite",
        ),
    ] {
        let e = Profile::parse("x.toml", &edited(from, to)).unwrap_err();
        assert_eq!(e.key, key, "{e}");
    }
    // A shogi article in a chess profile is refused.
    let mut chess = rules_text(KASPAROV_2003);
    chess.push_str("\n[articles.shogi]\nsennichite = \"13.5\"\n");
    let e = Profile::parse("x.toml", &chess).unwrap_err();
    assert_eq!(e.key, "articles.shogi.sennichite", "{e}");
}

#[test]
fn denryusen_13_5_the_log_cites_what_the_profile_says() {
    // The profile decides the numbers: a refusal and a sennichite cite the edited articles.
    let text = edited("power_failure = \"26.1\"", "power_failure = \"26.9\"").replacen(
        "sennichite = \"13.5\"",
        "sennichite = \"13.5bis\"",
        1,
    );
    let g = game_from_text("edited.toml", &text, 1, None);
    let lines = [
        "0 arbiter declare sente machine A",
        "0 arbiter declare gote machine B",
        "0 arbiter declare operator Op",
    ];
    // The Denryu-sen profile has no power-failure procedure: refused, citing the edited 26.9.
    let mut m = given_game(g, &lines)
        .and("0 arbiter start")
        .when("1 arbiter power-failure the hall lost power")
        .then_refused_saying("26.9", "no [power_failure] section")
        .m;
    let mut t = 3;
    for _ in 0..4 {
        for mv in ["5i5h", "5a5b", "5h5i", "5b5a"] {
            if m.game().outcome().is_some() {
                break;
            }
            m.at(&format!("{t} move {mv}"));
            t += 1;
        }
    }
    let end = m
        .log
        .iter()
        .find(|e| e.kind_name() == "game_ended")
        .expect("sennichite ended the game");
    assert_eq!(end.clause, "13.5bis");
    // A refusal too: shogi has no draw claims (13.1 in the profile's map, edited here).
    let text = edited(
        "server_judgement = \"13.1\"",
        "server_judgement = \"13.1x\"",
    );
    given_game(game_from_text("edited.toml", &text, 1, None), &lines)
        .and("0 arbiter start")
        .when("1 operator claim threefold")
        .then_refused_saying("13.1x", "no draw offers");
}

/// The 2003 profile without its article map.
fn kasparov_without_map() -> String {
    let text = rules_text(KASPAROV_2003);
    text[..text
        .find("\n# The article map")
        .expect("the 2003 profile has a map")]
        .to_string()
}

#[test]
fn denryusen_articles_a_chess_profile_goes_through_the_same_map() {
    // The 2003 profile's map gives every clause the kit names its own number.
    let p = Profile::parse("x.toml", &rules_text(KASPAROV_2003)).unwrap();
    assert!(p.articles.is_some());
    for (key, number, _) in CLAUSES {
        assert_eq!(p.cite(number), *number, "{key}");
    }
    let lines = [
        "0 arbiter declare white human Garry Kasparov",
        "0 arbiter declare black machine Deep Junior",
        "0 arbiter declare operator Op",
    ];
    let play = |g| {
        let mut m = given_game(g, &lines).and("0 arbiter start");
        m.at("5 move e4");
        m.at("6 arbiter power-failure the hall lost power");
        m.at("7 arbiter power-restored");
        m.log
            .iter()
            .map(|e| e.clause.to_string())
            .collect::<Vec<String>>()
    };
    // With the map and without one: the same citations.
    let mapped = play(new_game(KASPAROV_2003));
    let plain = play(game_from_text("x.toml", &kasparov_without_map(), 1, None));
    assert_eq!(plain, mapped);
    assert!(plain.iter().any(|c| c == "8b"), "{plain:?}");
    // A map that renumbers one clause renumbers its entries.
    let text =
        rules_text(KASPAROV_2003).replace("power_failure = \"8b\"", "power_failure = \"VIII.2\"");
    let renumbered = play(game_from_text("x.toml", &text, 1, None));
    assert!(renumbered.iter().any(|c| c == "VIII.2"), "{renumbered:?}");
    assert!(!renumbered.iter().any(|c| c == "8b"), "{renumbered:?}");
    // A chess map missing a key is refused naming it.
    let text = rules_text(KASPAROV_2003).replace("team = \"9c\"\n", "");
    let e = Profile::parse("x.toml", &text).unwrap_err();
    assert_eq!(e.key, "articles.clauses.team", "{e}");
}

/// Refusals of a shogi game whose wording named 2003 clauses (`(6h)`, `(4d)`, `(12c)`, `(7b)`):
/// the words cite the profile's articles too, not only the refusal's clause.
#[test]
fn denryusen_refusals_word_the_profiles_articles_not_2003_clauses() {
    let mut m = given_game(
        new_game(DENRYUSEN_2024),
        &[
            "0 arbiter declare sente human Taro Yamada",
            "0 arbiter declare gote program Suisho",
            "0 arbiter declare operator Op",
        ],
    )
    .and("0 arbiter start");
    m.at("3 move ７六歩");
    m.at("6 move 3c3d");
    let mut said = Vec::new();
    for cmd in [
        "7 operator param hash 1024",
        "8 arbiter declare operator Somebody Else",
        "9 arbiter release-move the operator slipped",
        "10 committee ruling 7 there is no such dispute",
    ] {
        let e = m
            .try_line(cmd)
            .expect_err(&format!("'{cmd}' must be refused"));
        said.push(e.to_string());
    }
    let all = said.join("\n");
    assert_eq!(clause_tokens_2003(&all), Vec::<String>::new(), "{all}");
    // The words still say what the rule is about, with the profile's numbers in them.
    let p = Profile::parse(DENRYUSEN_2024, &rules_text(DENRYUSEN_2024)).unwrap();
    let art = p
        .cite(arbiter::core::clause::NO_PARAMETER_CHANGE)
        .to_string();
    assert!(said[0].contains(&format!("({art})")), "{}", said[0]);
    // A chess game's refusal keeps the 2003 wording (the map there is the clauses themselves).
    let mut chess =
        given_game(new_game(KASPAROV_2003), crate::clauses::HUMAN_WHITE).and("0 arbiter start");
    chess.at("3 move e4");
    chess.at("6 move e5");
    let e = chess.try_line("7 operator param hash 1024").unwrap_err();
    assert!(e.to_string().contains("(6h)"), "{e}");
}

#[test]
fn denryusen_articles_reword_touches_clause_tokens_only() {
    use arbiter::core::articles::reword;
    let cite = |c: &str| match c {
        "6h" => "13.9",
        "13a" => "28.1",
        "12" => "30",
        _ => "X",
    };
    assert_eq!(
        reword("not allowed (6h); copies (13a/13c) under (12)", cite),
        "not allowed (13.9); copies (28.1/X) under (30)"
    );
    // Digests, times, move numbers, bare numbers and SFEN-like words are left alone.
    let text = "a6h9 16h 6hx 2:00:00 move 12 3c3d 1.6h ab12c";
    assert_eq!(reword(text, cite), text);
}
