//! On the Board UI: the camps asked to countersign at each time control where the
//! profile says (`[witness] countersign_at_controls`), seeing what they sign; the camps carried
//! over to the next game's declarations like the players.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use arbiter::board::session::{Memory, Session};
use arbiter::board::tui::{self, Status, UiState};
use arbiter::core::command::Command;
use arbiter::core::event::{Event, KeyRef};
use arbiter::core::game::{Game, GameContext};
use arbiter::core::rules::Profile;
use arbiter::core::view::{Acts, CampToSign, Panel};
use arbiter::core::{Side, timefmt};

use crate::tui_support::{Rig, t};

const RULES: &str = "rules/kasparov-deep-junior-2003.toml";
const AT_CONTROLS: &str = "\n[witness]\ncountersign_at_controls = true\n";

/// Camp `camp`'s declaration with its proof of possession for match `match_id`.
fn proven(dir: &Path, match_id: &str, camp: &str) -> Command {
    let file = dir.join(camp);
    let key = arbiter::record::sign::keygen(&file, None, camp)
        .unwrap()
        .to_openssh()
        .unwrap();
    let statement = arbiter::core::camp::statement(match_id, camp, &key);
    let proof = arbiter::record::sign::load_key(&file, None)
        .unwrap()
        .sign(
            arbiter::core::camp::NAMESPACE,
            ssh_key::HashAlg::Sha512,
            statement.as_bytes(),
        )
        .unwrap()
        .to_pem(ssh_key::LineEnding::LF)
        .unwrap();
    Command::DeclareCamp {
        name: camp.into(),
        key,
        proof: Some(proof),
    }
}

/// Game `n` of match nyc-2003 under the 2003 rules plus `extra` profile text, declared as the
/// demo declares and with camps kasparov and junior.
fn game(extra: &str, n: u32, dir: &Path) -> Game {
    let text = std::fs::read_to_string(RULES).unwrap() + extra;
    let profile = Profile::parse(RULES, &text).unwrap();
    let pref = arbiter::core::event::ProfileRef {
        name: profile.profile.name.clone(),
        file: RULES.into(),
        sha256: "0".repeat(64),
        toml: text,
    };
    let ctx = GameContext {
        match_id: "nyc-2003".into(),
        game: n,
        profile: pref,
        arbiter_key: KeyRef {
            principal: "arbiter".into(),
            fingerprint: "SHA256:test".into(),
            demo: false,
        },
        previous_algorithm: None,
    };
    let mut g = Game::new(ctx, profile);
    for c in tui::parse_declarations(tui::DEMO_DECLARATIONS).unwrap() {
        g.declare(&c).unwrap();
    }
    for camp in ["kasparov", "junior"] {
        g.declare(&proven(dir, "nyc-2003", camp)).unwrap();
    }
    g
}

fn rig(g: Game) -> Rig {
    let utc = chrono::DateTime::from_timestamp(1_044_000_000, 0).unwrap();
    Rig {
        s: Session::new(g, Box::new(Memory::default()), utc),
        ui: UiState {
            utc_origin: Some(utc),
            ..UiState::new(None)
        },
        last: None,
        signed_upto: None,
        countersigned: Vec::new(),
        index_countersigned: Vec::new(),
    }
}

/// Knights out and back: legal for ever (the 2001 Laws end nothing by repetition by themselves).
const SHUFFLE: [&str; 4] = ["Nf3", "Nf6", "Ng1", "Ng8"];

/// Run `line` at `when` as the board does; keep what it recorded in `log`.
fn run(r: &mut Rig, log: &mut Vec<Event>, when: &str, line: &str) {
    let out =
        r.s.execute(&arbiter::core::command::parse(line).unwrap(), t(when));
    log.extend(out.as_ref().unwrap().iter().cloned());
    tui::after_execute(&mut r.ui, &out, r.s.storage.len());
}

/// Moves `from..to` (0-based plies) of the shuffle, one every 30 s from 0:01:00.
fn plies(r: &mut Rig, log: &mut Vec<Event>, from: usize, to: usize) {
    for i in from..to {
        run(r, log, &at(i), &format!("move {}", SHUFFLE[i % 4]));
    }
}

fn at(ply: usize) -> String {
    timefmt::clock(60_000 + 30_000 * ply as i64)
}

/// The screen as text, drawn with the status the shell gives (the camps' countersignatures).
fn shot(r: &mut Rig, now: &str, countersigned: Vec<(String, u64)>) -> String {
    r.catch_up(t(now));
    let view = r.s.game.view(t(now), tui::LAST_MOVES);
    let status = Status {
        entries: r.s.storage.len(),
        countersigned,
        ..Status::default()
    };
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(200, 40)).unwrap();
    term.draw(|f| tui::render(&view, &r.ui, &status, f.area(), f.buffer_mut()))
        .unwrap();
    crate::tui_support::text(term.backend().buffer())
}

fn countersign_panel(g: &Game, now: &str) -> Option<Panel> {
    g.view(t(now), tui::LAST_MOVES)
        .panels
        .into_iter()
        .find(|p| matches!(p, Panel::Countersign { .. }))
}

/// Rule 3's first control (move 40) under a profile that has the camps countersign at each
/// control: after Black's 40th move the board asks both camps, showing both clocks at the control
/// move and the arbiter's correction recorded since the start; the request stays (clocks as at
/// the control) while play goes on, leaves each camp once it has countersigned, and is the same
/// after a replay of the log.
#[test]
fn witness_camps_countersign_at_each_time_control() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = rig(game(AT_CONTROLS, 1, dir.path()));
    let mut log = Vec::new();
    run(&mut r, &mut log, "0", "arbiter start");
    plies(&mut r, &mut log, 0, 10);
    run(
        &mut r,
        &mut log,
        &at(10),
        "arbiter correct 6d clock machine +60 operator slow to press",
    );
    let correction = r.s.storage.len() as u64 - 1;
    plies(&mut r, &mut log, 10, 79);
    // White has made its 40th move, Black not yet: the control is not passed by both.
    assert_eq!(r.s.game.controls_passed(), 0);
    assert!(countersign_panel(&r.s.game, &at(79)).is_none());
    assert!(!shot(&mut r, &at(79), vec![]).contains("CAMPS COUNTERSIGN"));
    plies(&mut r, &mut log, 79, 80);
    let control_at = t(&at(79));
    let entries = r.s.storage.len() as u64;
    let clocks = [
        r.s.game.remaining(Side::White, control_at),
        r.s.game.remaining(Side::Black, control_at),
    ];
    // The second period (1 h) is on both clocks: 2 h + 1 h less each side's own time used.
    assert!(clocks[0] > 3_600_000 && clocks[1] > 3_600_000, "{clocks:?}");
    let expected = Panel::Countersign {
        control: 1,
        move_number: 40,
        checkpoint: entries,
        clocks,
        // The arbiter's start and correction (as `arbiter countersign` lists them).
        rulings: Acts {
            list: vec![
                (1, "#1 clock_started (clause 3)".into()),
                (
                    correction,
                    format!("#{correction} clock_corrected (clause 6d)"),
                ),
            ],
            not_kept: 0,
        },
        camps: ["kasparov", "junior"]
            .map(|name| CampToSign {
                name: name.into(),
                last: None,
            })
            .to_vec(),
    };
    assert_eq!(
        countersign_panel(&r.s.game, &at(79)),
        Some(expected.clone())
    );
    // Play goes on: the request stays, with the clocks of the control move.
    plies(&mut r, &mut log, 80, 84);
    assert_eq!(
        countersign_panel(&r.s.game, &at(84)),
        Some(expected.clone())
    );
    let s = shot(&mut r, &at(84), vec![]);
    assert!(
        s.contains("CAMPS COUNTERSIGN")
            && s.contains("time control 1 (40 moves played) passed: kasparov, junior")
            && s.contains(&format!("--checkpoint {entries}")),
        "{s}"
    );
    assert!(
        s.contains(&format!(
            "clocks at the control move White {}, Black {}",
            timefmt::clock(clocks[0]),
            timefmt::clock(clocks[1])
        )) && s.contains(&format!("#{correction} clock_corrected (clause 6d)")),
        "{s}"
    );
    // Kasparov's camp countersigned that checkpoint: only Junior's is asked; then nobody.
    let s = shot(&mut r, &at(84), vec![("kasparov".into(), entries)]);
    assert!(s.contains("passed: junior ·"), "{s}");
    let s = shot(&mut r, &at(84), vec![("kasparov".into(), entries - 1)]);
    assert!(
        s.contains("passed: kasparov, junior"),
        "an older one does not count: {s}"
    );
    let both = vec![("kasparov".into(), entries), ("junior".into(), entries + 3)];
    assert!(!shot(&mut r, &at(84), both).contains("CAMPS COUNTERSIGN"));
    // The state is the log's: a replay asks the same.
    assert_eq!(log.len(), r.s.storage.len());
    let replayed = Game::replay(&log).unwrap();
    assert_eq!(countersign_panel(&replayed, &at(84)), Some(expected));
    // The game ends: the end's own request takes over.
    run(&mut r, &mut log, &at(85), "human resign");
    assert!(countersign_panel(&r.s.game, &at(86)).is_none());
    assert!(
        r.s.game
            .view(t(&at(86)), tui::LAST_MOVES)
            .panels
            .iter()
            .any(|p| matches!(p, Panel::CountersignEnd { .. }))
    );
}

/// The line of the request that names `camp` (the camps whose last countersignature is the same
/// share one).
fn camp_line<'a>(screen: &'a str, camp: &str) -> &'a str {
    screen
        .lines()
        .find(|l| {
            l.trim_start_matches(['│', ' '])
                .split(": arbiter and committee entries since")
                .next()
                .is_some_and(|who| who.split(", ").any(|w| w.trim() == camp))
                && l.contains("arbiter and committee entries since")
        })
        .unwrap_or_else(|| panic!("no request line for {camp}: {screen}"))
}

/// The request shows what EACH camp signs. Kasparov's camp countersigned the first
/// control, Junior's did not: at the second control Kasparov's is shown the arbiter's entries
/// since its own countersignature (the second correction only), Junior's every one since the
/// start. At the end each is shown the result, both clocks and the entries since its own last
/// countersignature, leaves the request once it countersigned past the last change, and the
/// input line then asks for the match index.
#[test]
fn witness_board_request_per_camp_since_its_own_countersignature() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = rig(game(AT_CONTROLS, 1, dir.path()));
    let mut log = Vec::new();
    run(&mut r, &mut log, "0", "arbiter start");
    plies(&mut r, &mut log, 0, 10);
    run(
        &mut r,
        &mut log,
        &at(10),
        "arbiter correct 6d clock machine +60 operator slow to press",
    );
    let first = r.s.storage.len() as u64 - 1;
    plies(&mut r, &mut log, 10, 80);
    let control1 = r.s.storage.len() as u64;
    let first_text = format!("#{first} clock_corrected (clause 6d)");
    let s = shot(&mut r, &at(80), vec![]);
    assert!(
        camp_line(&s, "kasparov").contains(&first_text)
            && camp_line(&s, "kasparov") == camp_line(&s, "junior"),
        "{s}"
    );
    // Kasparov's camp countersigns the first control; play goes on to the second (move 60).
    plies(&mut r, &mut log, 80, 90);
    run(
        &mut r,
        &mut log,
        &at(90),
        "arbiter correct 6d clock human -30 pressed twice",
    );
    let second = r.s.storage.len() as u64 - 1;
    let second_text = format!("#{second} clock_corrected (clause 6d)");
    plies(&mut r, &mut log, 90, 120);
    assert_eq!(r.s.game.controls_passed(), 2);
    let control2 = r.s.storage.len() as u64;
    let s = shot(&mut r, &at(120), vec![("kasparov".into(), control1)]);
    assert!(
        s.contains("time control 2 (60 moves played) passed: kasparov, junior"),
        "{s}"
    );
    let k = camp_line(&s, "kasparov");
    assert!(
        k.contains(&format!(
            "since its countersignature of checkpoint {control1}: {second_text}"
        )) && !k.contains(&first_text),
        "{k}"
    );
    let j = camp_line(&s, "junior");
    assert!(
        j.contains("since the start (no countersignature yet): #1 clock_started (clause 3)")
            && j.contains(&first_text)
            && j.contains(&second_text),
        "{j}"
    );
    assert_ne!(k, j);
    // The game ends: Kasparov's camp has signed the second control, Junior's the first.
    run(&mut r, &mut log, &at(121), "human resign");
    let resign = r.s.storage.len() as u64 - 1;
    let status = vec![("kasparov".into(), control2), ("junior".into(), control1)];
    let s = shot(&mut r, &at(122), status);
    let end = r.s.game.view(t(&at(122)), tui::LAST_MOVES);
    let clocks = [Side::White, Side::Black].map(|side| {
        let c = end.clocks.iter().find(|c| c.side == side).unwrap();
        timefmt::clock(c.remaining_ms)
    });
    assert!(
        s.contains("the game is over: kasparov, junior")
            && s.contains(&format!(
                "they sign: result 0-1 · clocks White {}, Black {}",
                clocks[0], clocks[1]
            ))
            && s.contains(" CAMPS kasparov, junior: countersign the result now"),
        "{s}"
    );
    let k = camp_line(&s, "kasparov");
    assert!(
        k.contains(&format!(
            "since its countersignature of checkpoint {control2}: #{resign} "
        )) && !k.contains(&second_text),
        "{k}"
    );
    let j = camp_line(&s, "junior");
    assert!(
        j.contains(&format!(
            "since its countersignature of checkpoint {control1}: {second_text}, #{resign} "
        )),
        "{j}"
    );
    // Kasparov's camp countersigns past the result: only Junior's is asked; then the index.
    let all = r.s.storage.len() as u64;
    let s = shot(
        &mut r,
        &at(122),
        vec![("kasparov".into(), all), ("junior".into(), control1)],
    );
    assert!(
        s.contains("the game is over: junior ·") && s.contains(" CAMPS junior: countersign"),
        "{s}"
    );
    let s = shot(
        &mut r,
        &at(122),
        vec![("kasparov".into(), all), ("junior".into(), all)],
    );
    assert!(
        !s.contains("CAMPS COUNTERSIGN")
            && s.contains("the result is countersigned; now the match index"),
        "{s}"
    );
}

/// The same game under the 2003 profile as published (no `[witness]`): no request at move 40.
#[test]
fn witness_no_countersign_at_controls_unless_the_profile_says() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = rig(game("", 1, dir.path()));
    let mut log = Vec::new();
    run(&mut r, &mut log, "0", "arbiter start");
    plies(&mut r, &mut log, 0, 84);
    assert_eq!(r.s.game.controls_passed(), 1);
    assert!(countersign_panel(&r.s.game, &at(84)).is_none());
    assert!(!shot(&mut r, &at(84), vec![]).contains("CAMPS COUNTERSIGN"));
    // The published profile is untouched by the field.
    assert!(
        !std::fs::read_to_string(RULES)
            .unwrap()
            .contains("[witness]")
    );
}

/// The Board UI's next game gets the camps (name, key, proof) with the players, colours
/// swapped; the proofs are over (match, camp, key), so they hold for game 2 and line 0 of game 2
/// records them.
#[test]
fn witness_camps_carried_over_to_the_next_game() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = rig(game("", 1, dir.path()));
    r.at("0", "arbiter start");
    let d1 = r.s.game.decl().unwrap().clone();
    assert_eq!(d1.camps.len(), 2);
    // Game 2 as the board opens it: nothing declared but what is carried over.
    let text = std::fs::read_to_string(RULES).unwrap();
    let profile = Profile::parse(RULES, &text).unwrap();
    let mut ctx = r.s.game.ctx().clone();
    ctx.game = 2;
    let mut next = Game::new(ctx, profile);
    for cmd in tui::carry_over(&d1) {
        next.declare(&cmd).unwrap();
    }
    let mut r2 = rig(next);
    r2.at("0", "arbiter start");
    let d2 = r2.s.game.decl().unwrap();
    assert_eq!(d2.camps, d1.camps);
    assert!(d2.camps.iter().all(|c| c.proof.is_some()));
    assert_eq!(d2.white.name, d1.black.name);
    assert_eq!(d2.black.name, d1.white.name);
    // Without camps, none are invented.
    let mut plain = Rig::new();
    plain.at("0", "arbiter start");
    let none = tui::carry_over(plain.s.game.decl().unwrap());
    assert!(
        !none
            .iter()
            .any(|c| matches!(c, Command::DeclareCamp { .. }))
    );
}

fn arbiter_cmd(args: &[&str]) -> (i32, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

/// The quick rehearsal with camps kasparov and junior declared (with proofs), `tail` appended.
fn camps_match(
    tmp: &Path,
    tail: &str,
) -> (std::path::PathBuf, Vec<(&'static str, std::path::PathBuf)>) {
    let m = tmp.join("m");
    crate::log_util::arbiter_key_in(&m);
    let mut declared = String::new();
    let mut keys = Vec::new();
    for camp in ["kasparov", "junior"] {
        let (k, line) = crate::witness::proven_camp(tmp, &m, camp);
        declared.push_str(&line);
        keys.push((camp, k));
    }
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    let script = quick.replacen(
        "0        arbiter start\n",
        &format!("{declared}0        arbiter start\n"),
        1,
    ) + tail;
    let p = tmp.join("camps.arb");
    std::fs::write(&p, script).unwrap();
    let (code, out) = arbiter_cmd(&[
        "script",
        p.to_str().unwrap(),
        "--match",
        m.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
    (m, keys)
}

fn cosign(m: &Path, camp: &str, key: &Path, index: bool) {
    let mut args = vec![
        "countersign",
        "--yes",
        "--match",
        m.to_str().unwrap(),
        "--camp",
        camp,
        "--key",
        key.to_str().unwrap(),
    ];
    if index {
        args.push("--index");
    }
    let (code, out) = arbiter_cmd(&args);
    assert_eq!(code, 0, "{out}");
}

/// The committee's rule: a finished game with camps is witnessed only when every camp also
/// countersigned a match index recording it with its final result (else deleting the game and
/// putting back the index of before it leaves nothing to see). Each missing camp is named; the
/// verdict is NOT COUNTERSIGNED (12) until the last one signs; a game still in play asks none.
#[test]
fn witness_match_index_countersign_required_for_a_witnessed_game() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, keys) = camps_match(tmp.path(), "0:17:00  human resign\n");
    let verify = || arbiter_cmd(&["verify", "--match", m.to_str().unwrap()]);
    for (camp, k) in &keys {
        cosign(&m, camp, k, false);
    }
    let (code, out) = verify();
    assert_eq!(code, 12, "{out}");
    for camp in ["kasparov", "junior"] {
        assert!(
            out.contains(&format!(
                "NOT COUNTERSIGNED: camp {camp} has not countersigned a match index recording game 1 with its final result"
            )),
            "{out}"
        );
    }
    cosign(&m, "kasparov", &keys[0].1, true);
    let (code, out) = verify();
    assert_eq!(code, 12, "{out}");
    assert!(!out.contains("NOT COUNTERSIGNED: camp kasparov"), "{out}");
    assert!(
        out.contains("NOT COUNTERSIGNED: camp junior has not countersigned a match index"),
        "{out}"
    );
    cosign(&m, "junior", &keys[1].1, true);
    let (code, out) = verify();
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("recording game 1 with its result, countersigned by camp junior"),
        "{out}"
    );

    // A game still in play: nothing is asked of the index yet.
    let tmp = tempfile::tempdir().unwrap();
    let (m, _) = camps_match(tmp.path(), "");
    let (code, out) = arbiter_cmd(&["verify", "--match", m.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("NOT COUNTERSIGNED"), "{out}");
}

/// Through the binary: under a profile with `[witness] countersign_at_controls`, `arbiter script`
/// signs a checkpoint at Black's 40th move (the control for both sides), and a camp countersigns
/// it with `arbiter countersign --checkpoint N`, shown both clocks first. Under the published
/// profile no checkpoint is signed there.
#[test]
fn witness_checkpoint_signed_at_the_time_control_for_the_camps() {
    for (extra, signed) in [(AT_CONTROLS, true), ("", false)] {
        let tmp = tempfile::tempdir().unwrap();
        let m = tmp.path().join("m");
        crate::log_util::arbiter_key_in(&m);
        let rules = tmp.path().join("2003-witnessed.toml");
        std::fs::write(&rules, std::fs::read_to_string(RULES).unwrap() + extra).unwrap();
        let (k, declared) = crate::witness::proven_camp(tmp.path(), &m, "kasparov");
        let mut script = String::from(
            "0 arbiter declare white human Garry Kasparov\n0 arbiter declare black machine Deep Junior\n0 arbiter declare operator Amir Ban\n",
        );
        script.push_str(&declared);
        script.push_str("0 arbiter start\n");
        for i in 0..82 {
            script.push_str(&format!("{} move {}\n", at(i), SHUFFLE[i % 4]));
        }
        let p = tmp.path().join("g.arb");
        std::fs::write(&p, script).unwrap();
        let ms = m.to_str().unwrap();
        let (code, out) = arbiter_cmd(&[
            "script",
            p.to_str().unwrap(),
            "--match",
            ms,
            "--rules",
            rules.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{out}");
        // Line 0, the start, 80 moves: the control move is entry 81, the checkpoint covers 82.
        let cp = m.join("game-1/checkpoints/82.txt");
        assert_eq!(cp.exists(), signed, "{extra:?}: {}", cp.display());
        if !signed {
            continue;
        }
        let (code, out) = arbiter_cmd(&[
            "countersign",
            "--yes",
            "--match",
            ms,
            "--camp",
            "kasparov",
            "--checkpoint",
            "82",
            "--key",
            k.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{out}");
        assert!(
            out.contains("camp kasparov countersigns game 1, checkpoint 82")
                && out.contains("result: none yet")
                && out.contains("clocks: White 2:")
                && out.contains("#1 clock_started"),
            "{out}"
        );
        assert!(m.join("game-1/checkpoints/82.txt.cosig-kasparov").exists());
        // What the Board UI's status reads to stop asking kasparov.
        assert_eq!(
            arbiter::record::witness::countersigned_upto(&m, 1),
            vec![("kasparov".to_string(), 82)]
        );
    }
}

/// The fold's cheap test of a witness-neutral entry (by variant, for every entry) names the same
/// kinds as the list `verify` and `countersign` use (by name).
#[test]
fn witness_neutral_kinds_agree_by_variant_and_by_name() {
    use arbiter::core::Actor;
    use arbiter::core::event::EventKind;
    use arbiter::core::game::witness::{NEUTRAL, is_neutral};
    let v = serde_json::json!({});
    let kinds = [
        EventKind::WorkNote { text: "t".into() },
        EventKind::Note { text: "t".into() },
        EventKind::Authorized {
            by: "passphrase".into(),
            command: "c".into(),
            first: 1,
            last: 1,
        },
        EventKind::AuthorizationFailed {
            command: "c".into(),
            why: "w".into(),
        },
        EventKind::Recovery(v.clone()),
        EventKind::EngineLogArchived(v.clone()),
        EventKind::ProgramArchived(v),
    ];
    let mut names = Vec::new();
    for kind in kinds {
        assert!(is_neutral(&kind), "{kind:?}");
        let e = Event {
            at: 0,
            actor: Actor::Arbiter,
            clause: "5b".into(),
            kind,
        };
        names.push(e.kind_name());
    }
    names.sort();
    let mut listed: Vec<String> = NEUTRAL.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(names, listed);
    assert!(!is_neutral(&EventKind::InfoResumed));
}
