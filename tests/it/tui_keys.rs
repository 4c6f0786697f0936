//! Key handling as a pure mapping: (UiState, key, game) -> (Action, UiState).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use arbiter::board::tui::keys::{command_words, needs_confirmation};
use arbiter::board::tui::{Action, LineKind, Mode, MsgKind, Pending, UiState, on_key, wait_for};
use arbiter::core::command::{Command, HELP, parse};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind};

use crate::tui_support::{Rig, ch, ctrl, demo_game, key, t};

fn press(ui: &mut UiState, g: &arbiter::core::game::Game, keys: &[KeyEvent]) -> Vec<Action> {
    keys.iter().map(|k| on_key(ui, *k, g)).collect()
}

#[test]
fn keys_space_starts_the_clock_before_the_game() {
    let g = demo_game();
    let mut ui = UiState::default();
    assert_eq!(
        on_key(&mut ui, ch(' '), &g),
        Action::Execute(Command::Start)
    );
    assert_eq!(ui.mode, Mode::Clock);
}

#[test]
fn keys_space_opens_the_move_line_and_enter_presses_the_clock() {
    let mut r = Rig::new();
    r.at("0", "arbiter start");
    let g = &r.s.game;
    let mut ui = UiState::default();
    let a = press(
        &mut ui,
        g,
        &[ch(' '), ch('e'), ch('4'), key(KeyCode::Enter)],
    );
    assert_eq!(a[..3], [Action::None, Action::None, Action::None]);
    assert_eq!(a[3], Action::Execute(Command::Move { text: "e4".into() }));
    assert_eq!(ui.mode, Mode::Clock);
    assert_eq!(ui.submitted, Some((LineKind::Move, "e4".into())));
}

#[test]
fn keys_a_move_letter_starts_the_move_line() {
    let mut r = Rig::new();
    r.at("0", "arbiter start");
    let mut ui = UiState::default();
    on_key(&mut ui, ch('N'), &r.s.game);
    assert_eq!(ui.mode, Mode::Line(LineKind::Move));
    assert_eq!(ui.line, "N");
}

#[test]
fn keys_tab_cycles_san_completions_both_ways() {
    let mut r = Rig::new();
    r.at("0", "arbiter start");
    let g = &r.s.game;
    let mut ui = UiState::default();
    press(&mut ui, g, &[ch('N'), key(KeyCode::Tab)]);
    let c = ui.completion.clone().unwrap();
    assert_eq!(c.candidates, ["Na3", "Nc3", "Nf3", "Nh3"]);
    assert_eq!(ui.line, "Na3");
    on_key(&mut ui, key(KeyCode::Tab), g);
    assert_eq!(ui.line, "Nc3");
    on_key(&mut ui, key(KeyCode::BackTab), g);
    on_key(&mut ui, key(KeyCode::BackTab), g);
    assert_eq!(ui.line, "Nh3");
    // Typing resets the completion; a prefix with no move says so.
    press(&mut ui, g, &[ch('x'), key(KeyCode::Tab)]);
    assert!(ui.completion.is_none());
    assert!(ui.message.unwrap().text.contains("no legal move"));
}

#[test]
fn keys_stop_and_resume_when_the_line_is_empty() {
    let g = demo_game();
    let mut ui = UiState::default();
    for k in [ch('s'), key(KeyCode::F(5))] {
        assert!(matches!(
            on_key(&mut ui, k, &g),
            Action::Execute(Command::Stop { .. })
        ));
    }
    for k in [ch('r'), key(KeyCode::F(6))] {
        assert_eq!(on_key(&mut ui, k, &g), Action::Execute(Command::Resume));
    }
    // On a line, s and r are just letters.
    ui.mode = Mode::Line(LineKind::Command);
    assert_eq!(on_key(&mut ui, ch('s'), &g), Action::None);
    assert_eq!(ui.line, "s");
}

#[test]
fn keys_command_line_accepts_exactly_the_script_words() {
    let g = demo_game();
    // Timed at the key (stop, info-stop) and the operator's own rights act at once.
    for line in [
        "arbiter stop player unwell",
        "supervisor info-stop what is that cable",
        "operator consult Shay Bushinsky",
    ] {
        let mut ui = UiState::default();
        on_key(&mut ui, ch(':'), &g);
        for c in line.chars() {
            on_key(&mut ui, ch(c), &g);
        }
        let a = on_key(&mut ui, key(KeyCode::Enter), &g);
        assert_eq!(a, Action::Execute(parse(line).unwrap()), "{line}");
    }
    // Every other arbiter-only command asks first (here, before the game, the rules refuse
    // them at once and nothing is asked).
    for line in ["human offer-draw", "committee ruling 1 the game stands"] {
        let mut ui = UiState::default();
        on_key(&mut ui, ch(':'), &g);
        for c in line.chars() {
            on_key(&mut ui, ch(c), &g);
        }
        let a = on_key(&mut ui, key(KeyCode::Enter), &g);
        assert_eq!(a, Action::None, "{line}");
        assert!(
            matches!(ui.mode, Mode::Confirm { .. })
                || ui
                    .message
                    .as_ref()
                    .unwrap()
                    .text
                    .contains("nothing recorded"),
            "{line}: {:?} {:?}",
            ui.mode,
            ui.message
        );
    }
    let mut ui = UiState::default();
    press(&mut ui, &g, &[ch(':'), ch('x'), key(KeyCode::Enter)]);
    let m = ui.message.clone().unwrap();
    assert_eq!(m.kind, MsgKind::Error);
    assert!(m.text.starts_with("not understood"), "{m:?}");
    assert_eq!(
        ui.mode,
        Mode::Line(LineKind::Command),
        "the line stays for fixing"
    );
}

#[test]
fn keys_irreversible_commands_ask_for_confirmation() {
    let g = demo_game();
    let irreversible = [
        "operator resign",
        "human resign",
        "operator accept-draw",
        "human accept-draw",
        "arbiter tablebase-draw",
        "arbiter decide 1 1/2-1/2 committee ruling",
        "arbiter no-show human",
        "operator claim threefold",
        "human claim fifty",
        "arbiter wrong-move e6 e5",
        "arbiter correct 6d clock human +60 wrong press",
        "arbiter correct 7e takeback 1 wrong entry",
    ];
    for line in irreversible {
        let cmd = parse(line).unwrap();
        assert!(needs_confirmation(&cmd), "{line}");
        let mut ui = UiState::default();
        on_key(&mut ui, ch(':'), &g);
        for c in line.chars() {
            on_key(&mut ui, ch(c), &g);
        }
        assert_eq!(on_key(&mut ui, key(KeyCode::Enter), &g), Action::None);
        // Before the game every one of them is refused by the rules: refused at once, before any
        // question, and nothing is executed.
        assert_eq!(ui.mode, Mode::Clock, "{line}");
        let m = ui.message.clone().unwrap();
        assert!(m.text.contains("nothing recorded"), "{line}: {}", m.text);
        // Asked (the question state as it is once the rules allow the command): other keys do
        // nothing; n cancels; asking again and y executes.
        ui.mode = Mode::Confirm {
            pending: Pending::Command(cmd.clone()),
            text: line.into(),
        };
        assert_eq!(on_key(&mut ui, ch('x'), &g), Action::None);
        assert_eq!(on_key(&mut ui, ch('n'), &g), Action::None);
        assert_eq!(ui.mode, Mode::Clock);
        assert!(ui.message.clone().unwrap().text.contains("cancelled"));
        ui.mode = Mode::Confirm {
            pending: Pending::Command(cmd.clone()),
            text: line.into(),
        };
        assert_eq!(on_key(&mut ui, ch('y'), &g), Action::Execute(cmd));
    }
    for line in [
        "arbiter stop x",
        "move e4",
        "human offer-draw",
        "operator decline-draw",
    ] {
        assert!(!needs_confirmation(&parse(line).unwrap()), "{line}");
    }
}

#[test]
fn clause_9b_confirmation_states_the_consequence_before_asking() {
    let mut r = crate::tui_support::Rig::new();
    r.at("0", "arbiter start").at("0:10", "move e4");
    let g = &r.s.game;
    let mut ui = UiState::default();
    on_key(&mut ui, ch(':'), g);
    for c in "human resign".chars() {
        on_key(&mut ui, ch(c), g);
    }
    on_key(&mut ui, key(KeyCode::Enter), g);
    match &ui.mode {
        Mode::Confirm { text, .. } => {
            assert_eq!(text, "human resign → the game ENDS 0-1 (resignation)")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        arbiter::board::tui::keys::consequence(
            &parse("arbiter correct 6d clock human +600 wrong press").unwrap(),
            g
        )
        .unwrap(),
        "Garry Kasparov 1:59:50 → 2:09:50"
    );
    r.at("0:20", "arbiter stop wrong entry");
    assert_eq!(
        arbiter::board::tui::keys::consequence(
            &parse("arbiter correct 7e takeback 1 wrong entry").unwrap(),
            &r.s.game
        )
        .unwrap(),
        "1. e4 will be taken back; typed again before the resume, no time is charged"
    );
}

#[test]
fn clause_9e_f7_asks_before_recording_the_human_s_draw_offer() {
    let mut r = crate::tui_support::Rig::new();
    r.at("0", "arbiter start").at("0:10", "move e4");
    let g = &r.s.game;
    let mut ui = UiState::default();
    assert_eq!(on_key(&mut ui, key(KeyCode::F(7)), g), Action::None);
    match &ui.mode {
        Mode::Confirm { text, .. } => assert!(
            text.starts_with("human offer-draw → Garry Kasparov offers a draw"),
            "{text}"
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(on_key(&mut ui, ch('n'), g), Action::None);
    assert_eq!(ui.mode, Mode::Clock);
    on_key(&mut ui, key(KeyCode::F(7)), g);
    assert_eq!(
        on_key(&mut ui, ch('y'), g),
        Action::Execute(Command::HumanOfferDraw)
    );
}

#[test]
fn keys_help_opens_scrolls_and_closes() {
    let g = demo_game();
    let mut ui = UiState::default();
    on_key(&mut ui, ch('?'), &g);
    assert_eq!(ui.mode, Mode::Help { scroll: 0 });
    press(&mut ui, &g, &[key(KeyCode::Down), key(KeyCode::PageDown)]);
    assert_eq!(ui.mode, Mode::Help { scroll: 11 });
    on_key(&mut ui, key(KeyCode::Esc), &g);
    assert_eq!(ui.mode, Mode::Clock);
    on_key(&mut ui, key(KeyCode::F(1)), &g);
    assert!(matches!(ui.mode, Mode::Help { .. }));
}

#[test]
fn keys_quit_asks_first() {
    let g = demo_game();
    let mut ui = UiState::default();
    assert_eq!(on_key(&mut ui, ch('q'), &g), Action::None);
    assert_eq!(on_key(&mut ui, ch('y'), &g), Action::Quit);
    assert_eq!(on_key(&mut ui, ctrl('c'), &g), Action::None);
    assert_eq!(on_key(&mut ui, ch('n'), &g), Action::None);
    assert_eq!(ui.mode, Mode::Clock);
}

#[test]
fn keys_frozen_input_only_quits() {
    let g = demo_game();
    let mut ui = UiState {
        frozen: Some("disk full".into()),
        ..UiState::default()
    };
    for k in [ch(' '), ch(':'), ch('s'), key(KeyCode::Enter), ch('?')] {
        assert_eq!(on_key(&mut ui, k, &g), Action::None);
    }
    assert_eq!(ui.mode, Mode::Clock);
    assert_eq!(on_key(&mut ui, ch('q'), &g), Action::Quit);
}

#[test]
fn keys_release_events_are_ignored() {
    let g = demo_game();
    let mut ui = UiState::default();
    let mut k = ch(' ');
    k.kind = KeyEventKind::Release;
    assert_eq!(on_key(&mut ui, k, &g), Action::None);
}

#[test]
fn keys_f8_prefills_consultation_with_the_registered_team() {
    let g = demo_game();
    let mut ui = UiState::default();
    on_key(&mut ui, key(KeyCode::F(8)), &g);
    assert_eq!(ui.mode, Mode::Line(LineKind::Command));
    assert_eq!(ui.line, "operator consult Shay Bushinsky, Boris Alterman");
    assert_eq!(
        on_key(&mut ui, key(KeyCode::F(7)), &g),
        Action::None,
        "F7 is not text"
    );
}

#[test]
fn keys_command_words_complete_every_help_entry() {
    let words = command_words();
    for h in HELP {
        assert!(
            words.iter().any(|w| h.words.starts_with(w.trim_end())),
            "{} has no completion",
            h.words
        );
    }
    let g = demo_game();
    let mut ui = UiState::default();
    on_key(&mut ui, ch(':'), &g);
    for c in "operator con".chars() {
        on_key(&mut ui, ch(c), &g);
    }
    on_key(&mut ui, key(KeyCode::Tab), &g);
    assert_eq!(
        ui.completion.clone().unwrap().candidates,
        ["operator consult ", "operator consult-end"]
    );
    // History: Up recalls the previous line.
    let mut ui = UiState::default();
    press(&mut ui, &g, &[ch(':'), ch('h'), key(KeyCode::Enter)]);
    press(&mut ui, &g, &[key(KeyCode::Esc), ch(':'), key(KeyCode::Up)]);
    assert_eq!(ui.line, "h");
}

#[test]
fn keys_refused_move_restores_the_line_for_correction() {
    let mut r = Rig::new();
    r.at("0", "arbiter start");
    r.key("5", ch(' '));
    r.typed("5", "e5");
    r.key("5", key(KeyCode::Enter));
    assert_eq!(r.ui.mode, Mode::Line(LineKind::Move));
    assert_eq!(r.ui.line, "e5");
    assert_eq!(r.ui.message.clone().unwrap().kind, MsgKind::Refused);
    assert_eq!(r.s.game.board().plies(), 0);
}

#[test]
fn keys_wake_times_follow_the_running_clock_and_deadlines() {
    let mut r = Rig::new();
    // Before the start nothing changes on its own: the loop sleeps long.
    let v = r.s.game.view(0, 10);
    assert_eq!(wait_for(&v, 0), arbiter::board::tui::timing::IDLE_WAKE);
    r.at("0", "arbiter start");
    // White's face shows 2:00:00 until 1 ms has passed, then 1:59:59 for a second.
    let v = r.s.game.view(t("0.250"), 10);
    assert_eq!(
        wait_for(&v, t("0.250")),
        Duration::from_millis(1000 - 250 + 1)
    );
    // The 8b reset window counts down while both clocks are stopped.
    r.at("10", "move e4")
        .at("20", "arbiter power-failure storm")
        .at("30", "arbiter power-restored");
    let now = t("40.4");
    let v = r.s.game.view(now, 10);
    assert_eq!(wait_for(&v, now), Duration::from_millis(600));
    // After the window ends (a deadline in the past), the loop does not spin.
    let now = t("25:00");
    let v = r.s.game.view(now, 10);
    assert!(wait_for(&v, now) >= Duration::from_millis(1));
}

#[test]
fn clause_8a_space_without_a_configuration_digest_asks_first() {
    let g = crate::tui_support::demo_game_without_config();
    let mut ui = UiState::default();
    assert_eq!(on_key(&mut ui, ch(' '), &g), Action::None);
    assert!(
        matches!(
            ui.mode,
            Mode::Confirm {
                pending: Pending::StartWithoutDigest,
                ..
            }
        ),
        "{:?}",
        ui.mode
    );
    // n: nothing starts, and the message says how to declare the digest.
    assert_eq!(on_key(&mut ui, ch('n'), &g), Action::None);
    assert!(ui.message.as_ref().unwrap().text.contains("config-file"));
    // y: the game starts without it.
    on_key(&mut ui, ch(' '), &g);
    assert_eq!(
        on_key(&mut ui, ch('y'), &g),
        Action::Execute(Command::Start)
    );
}

/// 4a / 6b: each side presses its own clock on its own key, the instant the key goes down; the
/// notation is typed after. The human's key (F12 by default, mappable to a pedal) presses only his
/// clock; the operator's key (F4) presses only the machine's; a press key of the wrong side
/// records nothing.
#[test]
fn laws_6_2_each_side_presses_its_own_clock_on_its_own_key() {
    let mut r = Rig::new();
    r.at("0", "arbiter start");
    let human = r.s.game.human_side().unwrap();
    assert_eq!(r.s.game.clock().running(), Some(arbiter::core::Side::White));
    let mut ui = UiState::default();
    let (first, second) = if human == arbiter::core::Side::White {
        (KeyCode::F(12), KeyCode::F(4))
    } else {
        (KeyCode::F(4), KeyCode::F(12))
    };
    // The other side's key while White's clock runs: nothing recorded.
    let a = on_key(&mut ui, key(second), &r.s.game);
    assert_eq!(a, Action::None);
    assert_eq!(ui.message.as_ref().unwrap().kind, MsgKind::Refused);
    assert_eq!(ui.mode, Mode::Clock, "a press key opens nothing");
    assert_eq!(
        on_key(&mut ui, key(first), &r.s.game),
        Action::Execute(Command::Press)
    );
    r.at("0:30", "press");
    // The notation is typed while the other clock runs.
    let a = press(&mut ui, &r.s.game, &[ch('e'), ch('4'), key(KeyCode::Enter)]);
    assert_eq!(a[2], Action::Execute(Command::Move { text: "e4".into() }));
    r.at("0:35", "move e4");
    assert_eq!(r.s.game.clock().running(), Some(arbiter::core::Side::Black));
    assert_eq!(
        on_key(&mut ui, key(second), &r.s.game),
        Action::Execute(Command::Press)
    );
}

#[test]
fn laws_6_2_press_keys_are_checked_when_mapped() {
    use arbiter::board::tui::keys::{PressKeyError, parse_press_key};
    assert_eq!(parse_press_key("F12"), Ok(KeyCode::F(12)));
    assert_eq!(parse_press_key("pause"), Ok(KeyCode::Pause));
    assert_eq!(parse_press_key("F4"), Ok(KeyCode::F(4)));
    // A key that can be typed into a field is never a press key: a press made while the : line
    // or the passphrase is open would become text.
    for typed in ["Space", "x", "e", "Enter", "Tab", ":"] {
        let e = parse_press_key(typed).unwrap_err();
        assert_eq!(e, PressKeyError::Typeable(typed.into()));
        assert!(e.to_string().contains("typed into a field"), "{typed}: {e}");
    }
    for taken in ["F7", "F1", "F5"] {
        let e = parse_press_key(taken).unwrap_err();
        assert_eq!(e, PressKeyError::Reserved(taken.into()));
        assert!(e.to_string().contains("already a key"), "{taken}: {e}");
    }
    assert!(
        parse_press_key("F99")
            .unwrap_err()
            .to_string()
            .contains("F1 to F24")
    );
    assert!(
        parse_press_key("pedal")
            .unwrap_err()
            .to_string()
            .contains("not a key")
    );
}

/// 4a / 6b: a press is never lost. The human's and the operator's press keys act first
/// in every state of the screen (the `:` line, the move line, help, the log page, a y/n question,
/// the passphrase prompt): the press is the action, the open dialog stays as it was, and the key
/// is never taken as text.
#[test]
fn laws_6_2_a_press_key_acts_in_every_state_of_the_screen() {
    use arbiter::board::tui::keys::Pending;
    let mut r = Rig::new();
    r.at("0", "arbiter start");
    let human = r.s.game.human_side().unwrap();
    let (white_key, black_key) = if human == arbiter::core::Side::White {
        (KeyCode::F(12), KeyCode::F(4))
    } else {
        (KeyCode::F(4), KeyCode::F(12))
    };
    let states = [
        (Mode::Line(LineKind::Command), "arbiter note typing"),
        (Mode::Line(LineKind::Move), "Nf"),
        (Mode::Help { scroll: 3 }, ""),
        (Mode::Log { back: 2 }, ""),
        (
            Mode::Confirm {
                pending: Pending::Quit,
                text: "quit".into(),
            },
            "",
        ),
        (
            Mode::Authorize {
                pending: Command::Stop { reason: "x".into() },
                words: "arbiter stop x".into(),
                typed: "secr".into(),
                recorded: Some((4, 4)),
            },
            "",
        ),
    ];
    for (mode, line) in states {
        let mut ui = UiState {
            mode: mode.clone(),
            line: line.to_string(),
            ..UiState::default()
        };
        // White's clock runs: White's press key presses, whatever is open.
        assert_eq!(
            on_key(&mut ui, key(white_key), &r.s.game),
            Action::Execute(Command::Press),
            "{mode:?}"
        );
        assert_eq!(ui.mode, mode, "the open dialog stays");
        assert_eq!(ui.line, line, "the press is not typed into the field");
        // Black's key while White's clock runs: refused in words, nothing typed, nothing opened.
        assert_eq!(on_key(&mut ui, key(black_key), &r.s.game), Action::None);
        assert_eq!(ui.mode, mode);
        assert_eq!(ui.line, line);
        let m = ui.message.as_ref().unwrap();
        assert!(m.text.contains("not running"), "{}", m.text);
    }
}

/// The question of `line` typed on the `:` line at the state of `r`, or what the board does
/// instead: `Ok(question)` when it asks, `Err(action)` when it acts at once.
fn question(r: &mut Rig, line: &str) -> Result<String, String> {
    let g = &r.s.game;
    let mut ui = UiState {
        restart_measured: r.s.restart_gap.map(|g| (g, r.s.restart_side)),
        ..UiState::default()
    };
    on_key(&mut ui, ch(':'), g);
    for c in line.chars() {
        on_key(&mut ui, ch(c), g);
    }
    let a = on_key(&mut ui, key(KeyCode::Enter), g);
    match (&ui.mode, a) {
        (Mode::Confirm { text, .. }, Action::None) => Ok(text.clone()),
        (m, a) => Err(format!("{m:?} {a:?} {:?}", ui.message)),
    }
}

/// The consequence part of a question must be words: no `key=value`, no log field or kind names.
fn assert_words(line: &str, q: &str) {
    let (typed, what) = q.split_once(" → ").unwrap_or_else(|| panic!("{line}: {q}"));
    assert_eq!(typed, line);
    assert!(!what.is_empty(), "{line}");
    for bad in ["=", "_ms", "_uci", "forfeit=", "true", "false", "{", "\""] {
        assert!(
            !what.contains(bad),
            "{line}: '{bad}' in the question: {what}"
        );
    }
    assert!(
        !what
            .split_whitespace()
            .any(|w| w.contains('_') && !line.contains(w)),
        "{line}: a field name in the question: {what}"
    );
}

/// One way to confirm (5b): every arbiter-only command of the every-clause rehearsal,
/// typed on the board at the moment the script gives it, asks y/n with its consequence in words
/// decided by a dry run — except the clock acts timed at the key (start, stop, resume, info-stop,
/// info-resume, power-failure, power-restored), recorded at once.
#[test]
fn clause_5b_every_arbiter_only_command_asks_in_words_before_it_is_recorded() {
    use arbiter::board::tui::keys::timed_at_key;
    let script = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/scripts/every-clause.arb"),
    )
    .unwrap();
    let mut r = Rig::new();
    let mut asked = 0;
    let mut timed = 0;
    for raw in script.lines() {
        let kept = arbiter::core::script::strip_comment(raw).unwrap();
        let Some((at, line)) = kept.trim().split_once(char::is_whitespace) else {
            continue;
        };
        let line = line.trim();
        if line.starts_with("arbiter declare") {
            continue;
        }
        let cmd = parse(line).unwrap();
        if arbiter::board::tui::needs_authority(&cmd, &r.s.game) {
            if timed_at_key(&cmd) {
                assert!(question(&mut r, line).is_err(), "{line} acts at the key");
                timed += 1;
            } else {
                let q = question(&mut r, line).unwrap_or_else(|e| panic!("{line}: {e}"));
                assert_words(line, &q);
                asked += 1;
            }
        }
        r.at(at, line);
    }
    assert!(asked >= 12 && timed >= 5, "asked {asked}, timed {timed}");
}

/// 7c in words: the first infraction gives the human ten minutes ("Garry Kasparov 1:58:17 →
/// 2:08:17"), the second says "the machine FORFEITS"; a restart ruling says what it charges
/// ("Deep Junior is charged 0:00:43 of the 0:00:43 measured").
#[test]
fn clause_7c_and_6d_questions_say_the_clocks_and_the_forfeit_in_words() {
    let mut r = Rig::new();
    r.at("0", "arbiter start")
        .at("0:10", "move e4")
        .at("0:30", "move Nf6");
    let q = question(&mut r, "arbiter wrong-move Nf6 Nc6").unwrap();
    assert_words("arbiter wrong-move Nf6 Nc6", &q);
    assert!(q.contains("Garry Kasparov 1:59:50 → 2:09:50"), "{q}");
    r.at("0:40", "arbiter wrong-move Nf6 Nc6");
    r.at("0:50", "move d4").at("1:00", "move d5");
    let q = question(&mut r, "arbiter wrong-move d5 e5").unwrap();
    assert_words("arbiter wrong-move d5 e5", &q);
    assert!(q.contains("the machine FORFEITS"), "{q}");
    // A restart ruling, with the gap the shell measured.
    r.s.restart_gap = Some(43_000);
    r.s.restart_side = r.s.game.clock().running();
    let side = r.s.game.clock().running().unwrap();
    let name = r.s.game.player(side).unwrap().name.clone();
    let q = question(&mut r, "arbiter restart-gap charge the kit crashed").unwrap();
    assert_words("arbiter restart-gap charge the kit crashed", &q);
    assert!(
        q.contains(&format!(
            "{name} is charged 0:00:43 of the 0:00:43 measured"
        )),
        "{q}"
    );
}
