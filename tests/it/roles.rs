//! Rule 5b and the roles at the keyboard: every command belongs to the operator or needs the
//! arbiter's authorization (the human's acts, the supervisor's and the committee's are recorded by
//! the arbiter). The Board UI asks the arbiter's passphrase for the latter (tests/it/pty.rs).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::core::command::{HELP, Role, parse};
use arbiter::tui::needs_authority;

use crate::tui_support::demo_game;

/// A help line's words made parsable (the same fillers as the unit test of the help table).
fn example(words: &str) -> Option<String> {
    let line = words
        .replace(
            "white|black human|machine NAME",
            "white human Garry Kasparov",
        )
        .replace("waive|charge [H:MM:SS] REASON", "charge 0:01:00 a reason")
        .replace("COPY COPY … [program FILE]", "a.log b.log")
        .replace("SAN|UCI", "e4")
        .replace("threefold|fifty", "threefold")
        .replace("SEQ", "3")
        .replace("REASON", "a reason")
        .replace("TEXT", "some text");
    parse(&line).ok().map(|_| line)
}

#[test]
fn clause_5b_every_command_belongs_to_the_operator_or_needs_the_arbiter() {
    let mut checked = 0;
    for h in HELP {
        let Some(line) = example(h.words) else {
            continue;
        };
        let cmd = parse(&line).unwrap();
        let want = match h.who {
            "operator" => Role::Operator,
            "move" => Role::Operator,
            _ => Role::Arbiter,
        };
        assert_eq!(cmd.role(), want, "{line}");
        checked += 1;
    }
    assert!(checked > 30, "only {checked} help lines checked");
}

#[test]
fn clause_5b_the_operator_s_rights_need_nothing_more_and_the_rest_is_gated() {
    let mut r = crate::tui_support::Rig::new();
    r.at("0", "arbiter start").at("0:10", "move e4");
    let g = &r.s.game;
    for line in [
        "move e5",
        "operator internal-clock 1:59:00",
        "operator offer-draw eval 0.05",
        "operator resign",
        "operator technical-problem the engine hangs",
        "operator param-request hash set at 16 by accident",
        "operator tablebase-draw",
    ] {
        assert!(!needs_authority(&parse(line).unwrap(), g), "{line}");
    }
    for line in [
        "arbiter correct 6d clock machine +600 asked by nobody",
        "arbiter stop a reason",
        "arbiter resume",
        "arbiter decide 1 0-1 a ruling",
        "arbiter restart-gap waive a reason",
        "arbiter no-show human",
        "arbiter tablebase-draw",
        "human resign",
        "human offer-draw",
        "human accept-draw",
        "human claim threefold",
        "committee ruling 1 the game stands",
        "supervisor info-stop what is happening",
    ] {
        assert!(needs_authority(&parse(line).unwrap(), g), "{line}");
    }
    // Before the start, declarations are a draft: nothing is recorded until the (authorized)
    // start.
    let draft = demo_game();
    assert!(!needs_authority(
        &parse("arbiter declare operator Amir Ban").unwrap(),
        &draft
    ));
    assert!(needs_authority(&parse("arbiter start").unwrap(), &draft));
}
