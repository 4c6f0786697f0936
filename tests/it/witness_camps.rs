//! The remaining items: camps prove they hold the keys they declare (with the kit or
//! stock `ssh-keygen -Y sign`), and `verify` checks those proofs in line 0.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use arbiter::record::journal::Journal;

fn arbiter(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn verify(m: &Path, extra: &[&str]) -> (i32, String) {
    let mut args = vec!["verify", "--match", m.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = arbiter(&args);
    (o.status.code().unwrap_or(-1), text(&o))
}

/// Run examples/scripts/quick.arb with `declared` lines before the start and a resignation.
fn play(tmp: &Path, m: &Path, declared: &str) -> Output {
    let quick = std::fs::read_to_string("examples/scripts/quick.arb").unwrap();
    let script = quick.replacen(
        "0        arbiter start\n",
        &format!("{declared}0        arbiter start\n"),
        1,
    ) + "0:17:00  human resign\n";
    let p = tmp.join("camps.arb");
    std::fs::write(&p, script).unwrap();
    arbiter(&[
        "script",
        p.to_str().unwrap(),
        "--match",
        m.to_str().unwrap(),
    ])
}

/// The attack: the arbiter types a key for a camp that never held it (a key the forger holds).
#[test]
fn witness_camp_key_without_proof_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let public = arbiter::record::sign::keygen(&tmp.path().join("forger"), None, "forger").unwrap();
    let fp = arbiter::record::sign::fingerprint(&public);
    let o = play(
        tmp.path(),
        &m,
        &format!(
            "0        arbiter declare camp kasparov {}\n",
            public.to_openssh().unwrap()
        ),
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("camp kasparov") && out.contains(&fp), "{out}");
    assert!(out.contains("proof of possession"), "{out}");
    assert!(!m.join("game-1/log.jsonl").exists(), "nothing is written");
}

/// The attack: a proof, but by another key (the forger's) or for another camp or match.
#[test]
fn witness_camp_proof_by_another_key_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let (_, line) = crate::witness::proven_camp(tmp.path(), &m, "kasparov");
    let camp = arbiter::record::sign::load_public_key(&tmp.path().join("kasparov-key")).unwrap();
    let fp = arbiter::record::sign::fingerprint(&camp);
    let forger = arbiter::record::sign::keygen(&tmp.path().join("forger"), None, "forger").unwrap();
    // The camp's real proof, declared with the forger's key typed on the line.
    let proof = line.split("proof ").nth(1).unwrap().trim().to_owned();
    let o = play(
        tmp.path(),
        &m,
        &format!(
            "0        arbiter declare camp kasparov {} proof {proof}\n",
            forger.to_openssh().unwrap()
        ),
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = text(&o);
    assert!(
        out.contains(&arbiter::record::sign::fingerprint(&forger)) && out.contains(&fp),
        "{out}"
    );
    // The same proof declared for another camp: the statement names the camp.
    let o = play(
        tmp.path(),
        &m,
        &format!("0        arbiter declare camp junior proof {proof}\n"),
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("camp junior"), "{}", text(&o));
    // A proof for another match (its folder named otherwise) does not serve here.
    let other = tmp.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let o = arbiter(&[
        "countersign",
        "--match",
        other.to_str().unwrap(),
        "--camp",
        "kasparov",
        "--declaration",
        "--signature",
        &proof,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains(&fp), "{}", text(&o));
    assert!(!m.join("game-1/log.jsonl").exists(), "nothing is written");
}

/// The README's recipe with stock OpenSSH: the statement printed by the kit, signed with
/// `ssh-keygen -Y sign -n arbiter-kit-camp-key@v1`, checked, declared; `verify` checks the proof
/// in line 0, and `ssh-keygen -Y verify` checks it without the kit.
#[test]
fn witness_camp_proof_made_with_ssh_keygen_is_accepted() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    let ms = m.to_str().unwrap();
    crate::log_util::arbiter_key_in(&m);
    let key = tmp.path().join("kasparov-key");
    let public = arbiter::record::sign::keygen(&key, None, "kasparov").unwrap();
    let o = arbiter(&[
        "countersign",
        "--match",
        ms,
        "--camp",
        "kasparov",
        "--declaration",
        "--public",
        tmp.path().join("kasparov-key.pub").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let statement = String::from_utf8(o.stdout).unwrap();
    assert_eq!(
        statement,
        format!(
            "arbiter-kit camp key v1\nmatch m\ncamp kasparov\nkey {}\n",
            ssh_key::PublicKey::new(public.key_data().clone(), "")
                .to_openssh()
                .unwrap()
        )
    );
    let decl = tmp.path().join("kasparov-declaration.txt");
    std::fs::write(&decl, &statement).unwrap();
    let proof = tmp.path().join("kasparov.proof");
    let sh = format!(
        "ssh-keygen -Y sign -n arbiter-kit-camp-key@v1 -f {} < {} > {}",
        key.display(),
        decl.display(),
        proof.display()
    );
    let ok = Command::new("sh").args(["-c", &sh]).status().unwrap();
    assert!(ok.success(), "{sh}");
    let o = arbiter(&[
        "countersign",
        "--match",
        ms,
        "--camp",
        "kasparov",
        "--declaration",
        "--signature",
        proof.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("proof of possession OK"), "{}", text(&o));
    let o = play(
        tmp.path(),
        &m,
        &format!(
            "0        arbiter declare camp kasparov proof {}\n",
            proof.display()
        ),
    );
    assert!(o.status.success(), "{}", text(&o));
    let line0 = std::fs::read_to_string(m.join("game-1/log.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(line0.lines().next().unwrap()).unwrap();
    let bound = first["body"]["declarations"]["camps"][0]["proof"]
        .as_str()
        .unwrap()
        .to_owned();
    // Anyone can check the bound proof with OpenSSH alone.
    let signers = tmp.path().join("camps_allowed_signers");
    std::fs::write(
        &signers,
        format!(
            "kasparov namespaces=\"arbiter-kit-camp-key@v1\" {}\n",
            public.to_openssh().unwrap()
        ),
    )
    .unwrap();
    let bound_file = tmp.path().join("bound.proof");
    std::fs::write(&bound_file, bound).unwrap();
    let sh = format!(
        "ssh-keygen -Y verify -f {} -I kasparov -n arbiter-kit-camp-key@v1 -s {} < {}",
        signers.display(),
        bound_file.display(),
        decl.display()
    );
    let ok = Command::new("sh").args(["-c", &sh]).output().unwrap();
    assert!(ok.status.success(), "{sh}: {}", text(&ok));
    let (code, out) = verify(&m, &[]);
    assert_eq!(code, 12, "not countersigned yet: {out}");
    assert!(!out.contains("NOT PROVEN"), "{out}");
    assert!(!out.contains("BAD CAMP PROOF"), "{out}");
}

/// A synthetic match (signed with its arbiter key) whose line 0 declares `camps`.
fn synthetic(camps: serde_json::Value) -> crate::log_util::TestMatch {
    let tm = crate::log_util::TestMatch::new();
    let mut first = crate::log_util::first_entry(&tm.fingerprint(), 1);
    first.body["declarations"]["camps"] = camps;
    let mut j = Journal::create(&tm.log_path(1), first).unwrap();
    j.append(crate::log_util::entry(1)).unwrap();
    tm.sign(&j, 1);
    tm
}

fn camp_key(dir: &Path, name: &str) -> (PathBuf, ssh_key::PublicKey) {
    let p = dir.join(format!("{name}-camp"));
    let k = arbiter::record::sign::keygen(&p, None, name).unwrap();
    (p, k)
}

/// Old logs stay verifiable, but never silently: a line 0 without proofs says the camp keys are
/// not proven; a proof in line 0 that does not hold is a bad binding (25).
#[test]
fn witness_camp_proofs_in_line_0_are_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, public) = camp_key(tmp.path(), "kasparov");
    let key_text = public.to_openssh().unwrap();
    let fp = arbiter::record::sign::fingerprint(&public);
    let tm = synthetic(serde_json::json!([{"name": "kasparov", "key": key_text}]));
    let (code, out) = verify(&tm.dir, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("camp keys NOT PROVEN") && out.contains(&format!("kasparov {fp}")),
        "{out}"
    );
    // A proof by the forger's key, bound by a rogue arbiter next to the camp's key.
    let (forger, _) = camp_key(tmp.path(), "forger");
    let statement =
        arbiter::core::camp::statement(crate::log_util::MATCH_ID, "kasparov", &key_text);
    let forged = arbiter::record::sign::load_key(&forger, None)
        .unwrap()
        .sign(
            arbiter::core::camp::NAMESPACE,
            ssh_key::HashAlg::Sha512,
            statement.as_bytes(),
        )
        .unwrap()
        .to_pem(ssh_key::LineEnding::LF)
        .unwrap();
    let tm = synthetic(serde_json::json!([
        {"name": "kasparov", "key": key_text, "proof": forged}
    ]));
    let (code, out) = verify(&tm.dir, &[]);
    assert_eq!(code, 25, "{out}");
    assert!(out.contains("BAD CAMP PROOF") && out.contains(&fp), "{out}");
    // The camp's own proof verifies.
    let own = arbiter::record::sign::load_key(&tmp.path().join("kasparov-camp"), None)
        .unwrap()
        .sign(
            arbiter::core::camp::NAMESPACE,
            ssh_key::HashAlg::Sha512,
            statement.as_bytes(),
        )
        .unwrap()
        .to_pem(ssh_key::LineEnding::LF)
        .unwrap();
    let tm = synthetic(serde_json::json!([
        {"name": "kasparov", "key": key_text, "proof": own}
    ]));
    let (code, out) = verify(&tm.dir, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        !out.contains("NOT PROVEN") && !out.contains("BAD CAMP PROOF"),
        "{out}"
    );
}

/// A match with camps kasparov and junior (proven), `games` games each ended by a resignation,
/// each game's final checkpoint and then the match index countersigned by both camps. Returns
/// the folder, the pinned arbiter key and the match code noted after each game.
fn match_with_games(tmp: &Path, games: u32) -> (PathBuf, PathBuf, Vec<String>) {
    let m = tmp.join("m");
    crate::log_util::arbiter_key_in(&m);
    let ms = m.to_str().unwrap().to_owned();
    let mut declared = String::new();
    let mut keys = Vec::new();
    for camp in ["kasparov", "junior"] {
        let (k, line) = crate::witness::proven_camp(tmp, &m, camp);
        declared.push_str(&line);
        keys.push((camp, k));
    }
    let mut codes = Vec::new();
    for g in 1..=games {
        let o = play(tmp, &m, &declared);
        assert!(o.status.success(), "game {g}: {}", text(&o));
        assert!(m.join(format!("game-{g}/log.jsonl")).exists());
        for (camp, k) in &keys {
            let o = arbiter(&[
                "countersign",
                "--yes",
                "--match",
                &ms,
                "--game",
                &g.to_string(),
                "--camp",
                camp,
                "--key",
                k.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "{}", text(&o));
        }
        let mut code = String::new();
        for (camp, k) in &keys {
            let o = arbiter(&[
                "countersign",
                "--match",
                &ms,
                "--camp",
                camp,
                "--index",
                "--key",
                k.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "{}", text(&o));
            let out = text(&o);
            code = out
                .split("note the match code ")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .unwrap()
                .to_owned();
        }
        codes.push(code);
    }
    let pinned = tmp.join("arbiter.pub");
    std::fs::copy(m.join("keys/arbiter.pub"), &pinned).unwrap();
    (m, pinned, codes)
}

/// The attack: the last game deleted with its whole folder and the index of before it put back
/// (validly signed, it lists every game left). The camps' countersigned copy of the later index
/// names the deleted game; with that copy removed too, the match code the camps noted does.
#[test]
fn witness_older_index_omitting_a_deleted_game_is_rolled_back() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    // The forger keeps the index as it stood after game 1.
    let (m1, pinned, codes) = match_with_games(tmp.path(), 1);
    assert_eq!(m1, m);
    let old_idx = std::fs::read(m.join("index.txt")).unwrap();
    let old_sig = std::fs::read(m.join("index.txt.sig")).unwrap();
    let code1 = codes[0].clone();
    // Game 2 is played and countersigned, index and all.
    let (_, _, codes2) = {
        let mut declared = String::new();
        for camp in ["kasparov", "junior"] {
            declared.push_str(&format!(
                "0        arbiter declare camp {camp} proof {}\n",
                tmp.path().join(format!("{camp}.proof")).display()
            ));
        }
        let o = play(tmp.path(), &m, &declared);
        assert!(o.status.success(), "{}", text(&o));
        assert!(m.join("game-2/log.jsonl").exists());
        let mut code = String::new();
        for camp in ["kasparov", "junior"] {
            let k = tmp.path().join(format!("{camp}-key"));
            for extra in [&["--game", "2"][..], &["--index"][..]] {
                let mut args = vec![
                    "countersign",
                    "--yes",
                    "--match",
                    m.to_str().unwrap(),
                    "--camp",
                    camp,
                    "--key",
                    k.to_str().unwrap(),
                ];
                args.extend_from_slice(extra);
                let o = arbiter(&args);
                assert!(o.status.success(), "{}", text(&o));
                if let Some(c) = text(&o).split("note the match code ").nth(1) {
                    code = c.split_whitespace().next().unwrap().to_owned();
                }
            }
        }
        (m.clone(), pinned.clone(), vec![code])
    };
    let code2 = codes2[0].clone();
    let trust = ["--trust", pinned.to_str().unwrap()];
    let (code, out) = verify(&m, &trust);
    assert_eq!(code, 0, "{out}");
    let with_code = |c: &str| {
        let mut a = trust.to_vec();
        a.extend_from_slice(&["--code", c]);
        verify(&m, &a)
    };
    let (code, out) = with_code(&code2);
    assert_eq!(
        code, 0,
        "the match code is accepted as a game code is: {out}"
    );
    assert!(
        out.contains(&format!("noted match code {code2}: matches")),
        "{out}"
    );
    let (code, out) = with_code(&code1);
    assert_eq!(code, 0, "an earlier noted code names a kept copy: {out}");
    // The attack.
    std::fs::remove_dir_all(m.join("game-2")).unwrap();
    std::fs::write(m.join("index.txt"), &old_idx).unwrap();
    std::fs::write(m.join("index.txt.sig"), &old_sig).unwrap();
    let (code, out) = verify(&m, &trust);
    assert_eq!(code, 26, "{out}");
    assert!(
        out.contains("game 2") && out.contains("folder is missing"),
        "{out}"
    );
    // The countersigned copies removed as well: the camps' noted match code still catches it.
    std::fs::remove_dir_all(m.join("index")).unwrap();
    let (code, out) = with_code(&code2);
    assert_eq!(code, 26, "{out}");
    assert!(out.contains(&format!("noted match code {code2}")), "{out}");
}

/// Each checkpoint names the match index version it was signed with: an index put back that is
/// older than that version is rolled back, by name.
#[test]
fn witness_checkpoint_names_its_index_version() {
    let tmp = tempfile::tempdir().unwrap();
    let (m, pinned, _) = match_with_games(tmp.path(), 1);
    let key = arbiter::record::sign::load_key(&m.join("keys/arbiter"), None).unwrap();
    let old_idx = std::fs::read_to_string(m.join("index.txt")).unwrap();
    let old_sig = std::fs::read(m.join("index.txt.sig")).unwrap();
    let old = arbiter::log::index::MatchIndex::parse(&old_idx).unwrap();
    assert!(old.version > 1, "{old_idx}");
    // Two later checkpoints: each names the index written just before it, recording it (the
    // index first, then the checkpoint: a crash between them leaves the index ahead, never behind).
    for n in 0..2 {
        let mut j = Journal::open(&m.join("game-1/log.jsonl")).unwrap();
        let at = j.last().unwrap().mono_ms;
        j.append(arbiter::log::NewEntry {
            mono_ms: at,
            utc: crate::log_util::t0(),
            actor: "kit".into(),
            clause: "5b".into(),
            kind: "note".into(),
            body: serde_json::json!({"text": format!("later {n}")}),
        })
        .unwrap();
        arbiter::record::witness::sign_and_index(&m, 1, &j.entries(), &key, crate::log_util::t0())
            .unwrap();
    }
    let size = std::fs::read_to_string(m.join("game-1/log.jsonl"))
        .unwrap()
        .lines()
        .count();
    let last = std::fs::read_to_string(m.join(format!("game-1/checkpoints/{size}.txt"))).unwrap();
    let cp = arbiter::log::checkpoint::Checkpoint::parse(&last).unwrap();
    assert_eq!(cp.index.map(|i| i.0), Some(old.version + 2), "{last}");
    let now = arbiter::log::index::MatchIndex::parse(
        &std::fs::read_to_string(m.join("index.txt")).unwrap(),
    )
    .unwrap();
    assert_eq!(now.version, old.version + 2);
    assert_eq!(now.game(1).map(|g| g.size), Some(size as u64));
    std::fs::write(m.join("index.txt"), &old_idx).unwrap();
    std::fs::write(m.join("index.txt.sig"), &old_sig).unwrap();
    let (code, out) = verify(&m, &["--trust", pinned.to_str().unwrap()]);
    assert_eq!(code, 26, "{out}");
    assert!(
        out.contains(&format!(
            "was signed with match index version {}, but the match index is version {}",
            old.version + 1,
            old.version
        )),
        "{out}"
    );
}

/// Before a camp countersigns, the kit shows what it signs: the result, both clocks, and every
/// entry of the arbiter or the committee since the camp's last countersignature (here a clock
/// correction recorded after the camps signed).
#[test]
fn witness_countersign_shows_the_result_clocks_and_rulings_signed() {
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let (k, line) = crate::witness::proven_camp(tmp.path(), &m, "kasparov");
    let o = play(tmp.path(), &m, &line);
    assert!(o.status.success(), "{}", text(&o));
    let cosign = |extra: &[&str]| {
        let mut args = vec![
            "countersign",
            "--yes",
            "--match",
            m.to_str().unwrap(),
            "--camp",
            "kasparov",
            "--key",
            k.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        arbiter(&args)
    };
    let o = cosign(&[]);
    assert!(o.status.success(), "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("camp kasparov countersigns game 1"), "{out}");
    assert!(out.contains("result: 0-1"), "{out}");
    assert!(out.contains("clocks: White 1:"), "{out}");
    assert!(out.contains("since the start"), "{out}");
    assert!(
        out.contains("game_ended"),
        "the resignation is listed: {out}"
    );
}

/// When the game ends, the Board UI asks the declared camps to countersign the result (and
/// `countersign` shows each what it signs); without camps the line is as before.
#[test]
fn witness_board_asks_the_camps_to_countersign_when_the_game_ends() {
    let mut r = crate::tui_support::Rig::new();
    let dir = tempfile::tempdir().unwrap();
    let public = arbiter::record::sign::keygen(&dir.path().join("camp"), None, "kasparov").unwrap();
    let key = public.to_openssh().unwrap();
    let statement = arbiter::core::camp::statement(&r.s.game.ctx().match_id, "kasparov", &key);
    let proof = arbiter::record::sign::load_key(&dir.path().join("camp"), None)
        .unwrap()
        .sign(
            arbiter::core::camp::NAMESPACE,
            ssh_key::HashAlg::Sha512,
            statement.as_bytes(),
        )
        .unwrap()
        .to_pem(ssh_key::LineEnding::LF)
        .unwrap();
    r.s.game
        .declare(&arbiter::core::command::Command::DeclareCamp {
            name: "kasparov".into(),
            key,
            proof: Some(proof),
        })
        .unwrap();
    r.at("0", "arbiter start").at("0:00:05", "move e4");
    assert!(
        !r.shot("0:00:06", 120, 30)
            .contains("countersign the result")
    );
    r.at("0:00:10", "human resign");
    let s = r.shot("0:00:11", 120, 30);
    assert!(
        s.contains("CAMPS kasparov: countersign the result now: arbiter countersign --camp NAME"),
        "{s}"
    );
    let mut plain = crate::tui_support::Rig::new();
    plain.at("0", "arbiter start").at("0:00:05", "move e4");
    plain.at("0:00:10", "human resign");
    let s = plain.shot("0:00:11", 120, 30);
    assert!(!s.contains("CAMPS"), "{s}");
}

/// After the game the board asks each camp for the result, then for the match index, and stops
/// asking once every camp has countersigned both (the index in force, listing this game).
#[test]
fn witness_board_stops_asking_for_the_index_once_every_camp_countersigned_it() {
    let mut r = crate::tui_support::Rig::new();
    let dir = tempfile::tempdir().unwrap();
    for camp in ["kasparov", "junior"] {
        let public = arbiter::record::sign::keygen(&dir.path().join(camp), None, camp).unwrap();
        let key = public.to_openssh().unwrap();
        let statement = arbiter::core::camp::statement(&r.s.game.ctx().match_id, camp, &key);
        let proof = arbiter::record::sign::load_key(&dir.path().join(camp), None)
            .unwrap()
            .sign(
                arbiter::core::camp::NAMESPACE,
                ssh_key::HashAlg::Sha512,
                statement.as_bytes(),
            )
            .unwrap()
            .to_pem(ssh_key::LineEnding::LF)
            .unwrap();
        r.s.game
            .declare(&arbiter::core::command::Command::DeclareCamp {
                name: camp.into(),
                key,
                proof: Some(proof),
            })
            .unwrap();
    }
    r.at("0", "arbiter start").at("0:00:05", "move e4");
    r.at("0:00:10", "human resign");
    let all = r.s.storage.len() as u64;
    r.countersigned = vec![("kasparov".into(), all), ("junior".into(), all)];
    let s = r.shot("0:00:11", 160, 30);
    assert!(
        s.contains("CAMPS kasparov, junior: the result is countersigned; now the match index"),
        "{s}"
    );
    r.index_countersigned = vec!["junior".into()];
    let s = r.shot("0:00:12", 160, 30);
    assert!(
        s.contains("CAMPS kasparov: the result is countersigned; now the match index"),
        "{s}"
    );
    r.index_countersigned = vec!["junior".into(), "kasparov".into()];
    let s = r.shot("0:00:13", 160, 30);
    assert!(!s.contains("now the match index"), "{s}");
    assert!(
        s.contains("CAMPS: the result and the match index are countersigned by every camp"),
        "{s}"
    );
}

/// Clause 8a: the supervisor's stop of the machine's clock moved a clock, so the camp sees it
/// among what it signs; with its key here, the camp is asked y/n before anything is signed, and
/// only `y` signs (`n` or no answer writes nothing).
#[test]
fn clause_8a_countersign_lists_the_machines_clock_stop_and_asks_y_n_before_signing() {
    use std::io::Write;
    use std::process::Stdio;
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&m);
    let (k, line) = crate::witness::proven_camp(tmp.path(), &m, "kasparov");
    // The machine (black) to move after 8. e3; its clock stopped for the supervisor's question.
    let script = std::fs::read_to_string("examples/scripts/quick.arb")
        .unwrap()
        .replacen(
            "0        arbiter start\n",
            &format!("{line}0        arbiter start\n"),
            1,
        )
        + "0:16:20  move e3\n\
           0:16:30  operator technical-problem engine crashed\n\
           0:16:40  supervisor info-stop what are you changing?\n\
           0:16:50  supervisor info-resume\n\
           0:17:00  human resign\n";
    let p = tmp.path().join("stop.arb");
    std::fs::write(&p, script).unwrap();
    let o = arbiter(&[
        "script",
        p.to_str().unwrap(),
        "--match",
        m.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let cosigs = || {
        std::fs::read_dir(m.join("game-1/checkpoints"))
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains("cosig"))
            .count()
    };
    let cosign = |answer: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args([
                "countersign",
                "--match",
                m.to_str().unwrap(),
                "--camp",
                "kasparov",
                "--key",
                k.to_str().unwrap(),
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = c.stdin.take().unwrap();
        if let Some(a) = answer {
            stdin.write_all(a.as_bytes()).unwrap();
        }
        drop(stdin);
        c.wait_with_output().unwrap()
    };
    for answer in [None, Some("n\n"), Some("\n")] {
        let o = cosign(answer);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(1), "{answer:?}: {out}");
        assert!(out.contains("not countersigned"), "{out}");
        assert!(out.contains("sign this for camp kasparov? [y/n]"), "{out}");
        assert_eq!(cosigs(), 0, "{answer:?}: nothing written");
    }
    let o = cosign(Some("y\n"));
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    // The supervisor's stop and resume of the machine's clock are listed, before the question.
    let asked = out.find("[y/n]").unwrap();
    let stop = out.find("info_stopped (clause 8a)").expect(&out);
    let resume = out.find("info_resumed (clause 8a)").expect(&out);
    assert!(stop < asked && resume < asked, "{out}");
    assert!(out.contains("countersigned by camp kasparov"), "{out}");
    assert_eq!(cosigs(), 1);
}
