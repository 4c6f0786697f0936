//! The time-control model. Vectors worked out by hand for the disputed cases (the
//! increment before move 1, a move ending exactly at zero, the period addition at the control, a
//! delay longer than the move, byo-yomi, shogi-server's flag rule), and a property test that drives
//! the core with random controls and move times against `Reference`, a second implementation
//! written here with the simplest arithmetic: a countdown balance per side, as a mechanical
//! clock keeps it, and a flag time found by bisection on the rule's own words.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use arbiter::core::event::{EventKind, Termination};
use arbiter::core::game::Phase;
use arbiter::core::{Ms, Side};
use proptest::prelude::*;

use crate::clauses::{Match, game_from_text, given_game, move_made, only, secs};

// ----- the control, as data the test builds both the profile and the reference from ---------

#[derive(Debug, Clone)]
struct P {
    moves: Option<u32>,
    secs: u64,
    inc: u64,
    delay: u64,
    bronstein: bool,
    from: Option<u32>,
    repeat: bool,
}

fn p(moves: Option<u32>, secs: u64, inc: u64) -> P {
    P {
        moves,
        secs,
        inc,
        delay: 0,
        bronstein: false,
        from: None,
        repeat: false,
    }
}

#[derive(Debug, Clone)]
struct Tc {
    periods: Vec<P>,
    /// Rounding unit in ms: 1, 1000 or 60000.
    unit: Ms,
    shogi_server: bool,
    inc_first: bool,
    /// (periods, seconds)
    byoyomi: Option<(u32, u64)>,
}

impl Tc {
    fn toml(&self) -> String {
        let rounding = match self.unit {
            1 => "ms",
            1000 => "floor_seconds",
            _ => "floor_minutes",
        };
        let mut t = format!(
            "[profile]\nname = \"vectors\"\nsource = \"tests/it/timecontrol.rs\"\ngame = \"free\"\n\n\
             [time_control]\nclause = \"3\"\nperiod_addition = \"on_move\"\nrounding = \"{rounding}\"\n\
             flag = \"{}\"\nincrement_before_first_move = {}\n",
            if self.shogi_server {
                "shogi_server"
            } else {
                "at_zero"
            },
            self.inc_first
        );
        if let Some((n, s)) = self.byoyomi {
            t += &format!("byoyomi = {{ periods = {n}, seconds = {s} }}\n");
        }
        t += "periods = [\n";
        for q in &self.periods {
            let mut f = vec![format!("seconds = {}", q.secs)];
            if let Some(m) = q.moves {
                f.insert(0, format!("moves = {m}"));
            }
            f.push(format!("increment_seconds = {}", q.inc));
            f.push(format!("delay_seconds = {}", q.delay));
            if q.bronstein {
                f.push("delay = \"bronstein\"".into());
            }
            if let Some(m) = q.from {
                f.push(format!("from_move = {m}"));
            }
            if q.repeat {
                f.push("repeat = true".into());
            }
            t += &format!("  {{ {} }},\n", f.join(", "));
        }
        t += "]\n\n[scoring]\nwin = 1.0\nloss = 0.0\ndraw_first = 0.5\ndraw_second = 0.5\n";
        t
    }
}

// ----- the reference: a countdown balance, as a mechanical clock keeps it --------------------

#[derive(Debug, Clone)]
struct Reference {
    /// What the clock shows (main time), ms.
    main: i64,
    moves: u32,
    period: usize,
    /// Moves still to make in this period before its control.
    to_control: Option<u32>,
    byoyomi_left: u32,
}

impl Reference {
    fn new(tc: &Tc) -> Reference {
        let first = &tc.periods[0];
        let mut main = first.secs as i64 * 1000;
        if tc.inc_first && first.from.unwrap_or(1) <= 1 {
            main += first.inc as i64 * 1000;
        }
        Reference {
            main,
            moves: 0,
            period: 0,
            to_control: first.moves,
            byoyomi_left: tc.byoyomi.map_or(0, |b| b.0),
        }
    }

    /// (charged, given back by Bronstein, Fischer increment) of the next move lasting `e` ms.
    fn figures(&self, tc: &Tc, e: Ms) -> (i64, i64, i64) {
        let q = &tc.periods[self.period];
        let n = self.moves + 1;
        let applies = q.from.is_none_or(|f| n >= f);
        let delay = if applies { q.delay * 1000 } else { 0 };
        let inc = if applies { q.inc * 1000 } else { 0 };
        let floor = |x: Ms| (x - x % tc.unit) as i64;
        if q.bronstein {
            let c = floor(e);
            (c, c.min(delay as i64), inc as i64)
        } else {
            (floor(e.saturating_sub(delay)), 0, inc as i64)
        }
    }

    /// The clock's drop during the move so far, rounded down: negative while a simple delay runs.
    fn drop(&self, tc: &Tc, e: Ms) -> i64 {
        let q = &tc.periods[self.period];
        let applies = q.from.is_none_or(|f| self.moves + 1 >= f);
        let delay = if applies && !q.bronstein {
            q.delay as i64 * 1000
        } else {
            0
        };
        (e as i64 - delay).div_euclid(tc.unit as i64) * tc.unit as i64
    }

    /// Has the flag fallen when the move in progress has lasted `e` ms?
    fn flagged(&self, tc: &Tc, e: Ms) -> bool {
        let (_, _, fischer) = self.figures(tc, e);
        let t = self.drop(tc, e);
        let byo = tc
            .byoyomi
            .map_or(0, |b| self.byoyomi_left as i64 * b.1 as i64 * 1000);
        let mytime = if tc.byoyomi.is_some() {
            self.main.max(0)
        } else {
            self.main
        };
        if tc.shogi_server {
            // shogi-server ChessClock#timeout?: mytime - t + byoyomi + fischer <= 0
            mytime - t + byo + fischer <= 0
        } else if tc.unit == 1 {
            // FIDE 6.9: the flag falls when the clock shows zero
            mytime + byo - t <= 0
        } else {
            // a clock in whole seconds or minutes falls when it would show less than zero
            mytime + byo - t < 0
        }
    }

    /// The first ms of the move in progress at which the flag has fallen (bisection).
    fn flag_after(&self, tc: &Tc) -> Ms {
        let (mut lo, mut hi) = (0u64, 1u64 << 42);
        assert!(self.flagged(tc, hi));
        if self.flagged(tc, 0) {
            return 0;
        }
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if self.flagged(tc, mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }

    /// Make the next move after `e` ms (not flagged).
    fn play(&mut self, tc: &Tc, e: Ms) {
        let (t, back, fischer) = self.figures(tc, e);
        match tc.byoyomi {
            Some((_, s)) => {
                let s = s as i64 * 1000;
                let mytime = self.main.max(0);
                let usable = if tc.shogi_server {
                    mytime + fischer
                } else {
                    mytime
                };
                let strict = i64::from(!tc.shogi_server && tc.unit > 1);
                let over = t - usable - strict;
                if over >= 0 {
                    self.byoyomi_left -= (over / s) as u32;
                }
                self.main = if tc.shogi_server {
                    (mytime + fischer - t).max(0) + back
                } else {
                    (mytime - t).max(0) + fischer + back
                };
            }
            None => self.main += fischer + back - t,
        }
        self.moves += 1;
        if let Some(left) = self.to_control {
            if left > 1 {
                self.to_control = Some(left - 1);
            } else {
                let q = &tc.periods[self.period];
                if !q.repeat {
                    self.period += 1;
                }
                let next = &tc.periods[self.period];
                self.to_control = next.moves;
                self.main += next.secs as i64 * 1000;
            }
        }
    }
}

// ----- driving the core ----------------------------------------------------------------------

fn started(tc: &Tc) -> Match {
    let text = tc.toml();
    let game = game_from_text("vectors.toml", &text, 1, None);
    given_game(
        game,
        &[
            "0 arbiter declare white human A",
            "0 arbiter declare black human B",
            "0 arbiter start",
        ],
    )
}

/// Play the moves lasting `times` (alternately White and Black) under `tc`, checking every
/// move's figures and every flag time against the reference. A time at or past the reference's
/// flag time expects the flag instead, and ends the game.
fn drive(tc: &Tc, times: &[Ms]) -> Result<(), TestCaseError> {
    let mut m = started(tc);
    let mut r = [Reference::new(tc), Reference::new(tc)];
    let mut turn_start: Ms = 0;
    for (k, e) in times.iter().enumerate() {
        let side = if k % 2 == 0 { Side::White } else { Side::Black };
        let reference = &mut r[side.index()];
        let flag = reference.flag_after(tc);
        if m.game().phase() == Phase::Ended {
            // The flag fell as the turn began (a clock at zero): recorded with the last command.
            let end = m.log.last().unwrap();
            prop_assert_eq!(end.kind_name(), "game_ended");
            prop_assert_eq!((flag, end.at), (0, turn_start));
            return Ok(());
        }
        prop_assert_eq!(
            m.game().flag_at(),
            Some(turn_start + flag),
            "flag time of {} at move {}",
            side,
            k
        );
        prop_assert_eq!(
            m.remaining(side, turn_start),
            reference.main,
            "{} before its move {}",
            side,
            k
        );
        let at = turn_start + e;
        if *e >= flag {
            let ev = m.tick(at);
            let end = only(&ev, "game_ended");
            prop_assert_eq!(end.at, turn_start + flag);
            let EventKind::GameEnded { termination, .. } = &end.kind else {
                unreachable!()
            };
            prop_assert_eq!(*termination, Termination::FlagFall);
            return Ok(());
        }
        let ev = m.at(&format!("{} move m{k}", secs(at)));
        let (s, _, spent, inc, remaining, _) = move_made(only(&ev, "move_made"));
        let (t, back, fischer) = reference.figures(tc, *e);
        reference.play(tc, *e);
        prop_assert_eq!(s, side);
        prop_assert_eq!(spent as i64, t, "move {} charged", k);
        prop_assert_eq!(inc as i64, fischer + back, "move {} increment", k);
        prop_assert_eq!(remaining, reference.main, "move {} remaining", k);
        prop_assert_eq!(m.remaining(side, at), reference.main);
        prop_assert_eq!(
            m.game().clock().byoyomi_left(m.game().profile(), side),
            tc.byoyomi.map(|_| reference.byoyomi_left)
        );
        turn_start = at;
    }
    Ok(())
}

fn vectors(tc: &Tc, times: &[Ms]) {
    drive(tc, times).unwrap();
}

fn classical_fide() -> Tc {
    // FIDE's classical control: 90 min for 40 moves, then 30 min, 30 s a move from move 1.
    Tc {
        periods: vec![p(Some(40), 5400, 30), p(None, 1800, 30)],
        unit: 1,
        shogi_server: false,
        inc_first: true,
        byoyomi: None,
    }
}

// ----- vectors worked out by hand -----------------------------------------------------------

#[test]
fn time_control_increment_before_the_first_move_as_fide_gives_it_and_lichess_did_not() {
    // FIDE (and DGT clocks): 90:00 + 30 s shows 90:30 before move 1.
    let fide = classical_fide();
    let m = started(&fide);
    assert_eq!(m.remaining(Side::White, 0), 5_430_000);
    // After a 10 s first move: 90:30 - 0:10 + 0:30 = 90:50.
    let mut m = m;
    let ev = m.at("10 move e4");
    assert_eq!(move_made(&ev[0]).4, 5_450_000);
    // Without it (lichess): 90:00 - 0:10 + 0:30 = 90:20.
    let mut lichess = fide.clone();
    lichess.inc_first = false;
    let mut m = started(&lichess);
    assert_eq!(m.remaining(Side::White, 0), 5_400_000);
    let ev = m.at("10 move e4");
    assert_eq!(move_made(&ev[0]).4, 5_420_000);
    vectors(&fide, &[10_000, 20_000, 5_460_000, 1]);
}

#[test]
fn time_control_a_move_ending_exactly_at_zero_loses_at_zero_but_not_a_ms_before() {
    let tc = Tc {
        periods: vec![p(None, 60, 0)],
        unit: 1,
        shogi_server: false,
        inc_first: false,
        byoyomi: None,
    };
    // 59.999 s: 1 ms left.
    let mut m = started(&tc);
    let ev = m.at("59.999 move a");
    assert_eq!(move_made(&ev[0]).4, 1);
    // 60.000 s: the flag falls at 60.000, the move is too late.
    let m = started(&tc);
    assert_eq!(m.game().flag_at(), Some(60_000));
    vectors(&tc, &[60_000]);
}

#[test]
fn time_control_shogi_server_rule_floors_the_move_and_counts_the_increment() {
    // Denryu-sen 2024, sente: 180 s + 2 s a move, each move floored to whole seconds (22.1);
    // shogi-server: timeout when mytime - t + fischer <= 0, so 180 - 181 + 2 = 1 > 0 survives
    // and 180 - 182 + 2 = 0 loses.
    let mut tc = Tc {
        periods: vec![p(None, 180, 2)],
        unit: 1000,
        shogi_server: true,
        inc_first: false,
        byoyomi: None,
    };
    let mut m = started(&tc);
    assert_eq!(m.game().flag_at(), Some(182_000));
    let ev = m.at("181.999 move 7g7f");
    let (_, _, spent, inc, remaining, _) = move_made(&ev[0]);
    assert_eq!((spent, inc, remaining), (181_000, 2_000, 1_000));
    vectors(&tc, &[181_999, 5_000, 2_999, 6_000, 3_000]);
    // At zero with whole seconds: 180.999 charges 180 (the clock shows 0, then +2);
    // the flag falls at 181.000.
    tc.shogi_server = false;
    let mut m = started(&tc);
    assert_eq!(m.game().flag_at(), Some(181_000));
    let ev = m.at("180.999 move 7g7f");
    assert_eq!(move_made(&ev[0]).4, 2_000);
    vectors(&tc, &[180_999, 1_000, 2_999]);
}

#[test]
fn time_control_the_period_time_is_added_when_the_control_move_is_made() {
    // 2 moves in 10 s, then 20 s: the second move at 4 s (3 s used before) leaves
    // 10 - 3 - 4 + 20 = 23 s.
    let tc = Tc {
        periods: vec![p(Some(2), 10, 0), p(None, 20, 0)],
        unit: 1,
        shogi_server: false,
        inc_first: false,
        byoyomi: None,
    };
    let mut m = started(&tc);
    m.at("3 move a");
    m.at("4 move b");
    let ev = m.at("8 move c");
    assert_eq!(move_made(&ev[0]).4, 23_000);
    vectors(&tc, &[3_000, 1_000, 4_000, 1_000, 22_999, 1]);
}

#[test]
fn time_control_a_delay_longer_than_the_move_charges_nothing_and_gives_back_what_was_used() {
    // 60 s with a 5 s delay. Simple: a 3 s move is not charged (60 s stay); an 8 s move charges
    // 3 s (57 s). Bronstein: 3 s charged and 3 s given back (60 s); 8 s charged, 5 s back (57 s).
    let mut tc = Tc {
        periods: vec![P {
            delay: 5,
            ..p(None, 60, 0)
        }],
        unit: 1,
        shogi_server: false,
        inc_first: false,
        byoyomi: None,
    };
    let mut m = started(&tc);
    let a = m.at("3 move a");
    assert_eq!(
        (move_made(&a[0]).2, move_made(&a[0]).4),
        (0, 60_000),
        "simple, 3 s"
    );
    m.at("4 move b");
    let c = m.at("12 move c");
    assert_eq!((move_made(&c[0]).2, move_made(&c[0]).4), (3_000, 57_000));
    // Simple delay: Black's flag falls 5 s + its 60 s after its turn starts.
    assert_eq!(m.game().flag_at(), Some(12_000 + 5_000 + 60_000));
    vectors(&tc, &[3_000, 1_000, 8_000, 64_999, 5_000, 1]);
    tc.periods[0].bronstein = true;
    let mut m = started(&tc);
    let a = m.at("3 move a");
    let (_, _, spent, inc, remaining, _) = move_made(&a[0]);
    assert_eq!((spent, inc, remaining), (3_000, 3_000, 60_000));
    m.at("4 move b");
    let c = m.at("12 move c");
    let (_, _, spent, inc, remaining, _) = move_made(&c[0]);
    assert_eq!((spent, inc, remaining), (8_000, 5_000, 57_000));
    vectors(&tc, &[3_000, 1_000, 8_000, 59_999, 57_000]);
}

#[test]
fn time_control_byoyomi_keeps_a_period_used_within_it_and_loses_one_that_runs_out() {
    // 60 s, then 3 periods of 30 s (at zero, to the ms). A 70 s move: main 60 s spent, 10 s into
    // the first period: no period lost, the main time shows 0. A 95 s move: 3 periods: 95 = 30+30
    // +30+5 would need 4: with 3 left the flag falls at 90 s.
    let tc = Tc {
        periods: vec![p(None, 60, 0)],
        unit: 1,
        shogi_server: false,
        inc_first: false,
        byoyomi: Some((3, 30)),
    };
    let mut m = started(&tc);
    assert_eq!(m.game().flag_at(), Some(60_000 + 90_000));
    let ev = m.at("70 move a");
    assert_eq!(move_made(&ev[0]).4, 0);
    m.at("71 move b");
    // 65 s: two periods run out (30, 60), the third kept.
    let ev = m.at("136 move c");
    assert_eq!(move_made(&ev[0]).4, 0);
    assert_eq!(
        m.game()
            .clock()
            .byoyomi_left(m.game().profile(), Side::White),
        Some(1)
    );
    vectors(&tc, &[70_000, 1_000, 65_000, 1_000, 29_999, 1_000, 30_000]);
}

#[test]
fn time_control_floor_minutes_stopwatch_charges_only_whole_minutes() {
    // Professional shogi's stopwatch: each move's time floored to whole minutes ("1分未満切り捨て"):
    // a 59.999 s move costs nothing, a 119 s move costs 1 minute.
    let tc = Tc {
        periods: vec![p(None, 600, 0)],
        unit: 60_000,
        shogi_server: false,
        inc_first: false,
        byoyomi: Some((1, 60)),
    };
    let mut m = started(&tc);
    let ev = m.at("59.999 move a");
    assert_eq!(move_made(&ev[0]).2, 0);
    m.at("60 move b");
    let ev = m.at("179 move c");
    assert_eq!(move_made(&ev[0]).2, 60_000);
    vectors(&tc, &[59_999, 1, 119_000, 600_000, 700_000]);
}

#[test]
fn time_control_a_repeating_period_adds_its_time_at_every_control() {
    // 2 moves in 10 s, then 1 move in 5 s for ever.
    let tc = Tc {
        periods: vec![
            p(Some(2), 10, 0),
            P {
                repeat: true,
                ..p(Some(1), 5, 0)
            },
        ],
        unit: 1,
        shogi_server: false,
        inc_first: false,
        byoyomi: None,
    };
    vectors(
        &tc,
        &[
            1_000, 1_000, 1_000, 1_000, 4_000, 4_000, 4_000, 4_000, 14_999, 9_000, 9_000,
        ],
    );
}

#[test]
fn time_control_an_increment_from_a_given_move_only() {
    // 60 s, 3 s a move from move 3 on.
    let tc = Tc {
        periods: vec![P {
            from: Some(3),
            ..p(None, 60, 3)
        }],
        unit: 1,
        shogi_server: false,
        inc_first: true,
        byoyomi: None,
    };
    let m = started(&tc);
    // No increment before move 1: it does not apply to move 1.
    assert_eq!(m.remaining(Side::White, 0), 60_000);
    vectors(&tc, &[1_000, 1_000, 1_000, 1_000, 1_000, 1_000]);
}

// ----- the property --------------------------------------------------------------------------

fn period_strategy(last: bool) -> impl Strategy<Value = P> {
    (
        1u32..4,
        0u64..40,
        0u64..5,
        0u64..5,
        any::<bool>(),
        prop::option::of(1u32..6),
        any::<bool>(),
    )
        .prop_map(
            move |(moves, secs, inc, delay, bronstein, from, repeat)| P {
                moves: if last && !repeat { None } else { Some(moves) },
                secs: if secs == 0 && inc == 0 && delay == 0 {
                    1
                } else {
                    secs
                },
                inc,
                delay,
                bronstein,
                from,
                repeat: last && repeat,
            },
        )
}

fn tc_strategy() -> impl Strategy<Value = Tc> {
    (
        prop::collection::vec(period_strategy(false), 0..3),
        period_strategy(true),
        prop::sample::select(vec![1u64, 1000, 60_000]),
        any::<bool>(),
        any::<bool>(),
        prop::option::of((1u32..4, 1u64..20)),
    )
        .prop_map(
            |(mut periods, last, unit, shogi_server, inc_first, byoyomi)| {
                periods.push(last);
                Tc {
                    periods,
                    unit,
                    shogi_server,
                    inc_first,
                    byoyomi,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Every move's charge, increment and remaining time, and every flag time, equal the
    /// reference's, for random controls and move times (exact unit edges included).
    #[test]
    fn time_control_clock_model_equals_the_reference(
        tc in tc_strategy(),
        times in prop::collection::vec(
            prop_oneof![
                0u64..70_000,
                (0u64..5).prop_map(|k| k * 1000),
                (0u64..3).prop_map(|k| k * 60_000 + 59_999),
            ],
            1..24,
        ),
    ) {
        drive(&tc, &times)?;
    }
}

/// The byo-yomi fields of a `move_made` or `clock_pressed` entry: (periods lost, periods left).
fn byoyomi_of(e: &arbiter::core::event::Event) -> (Option<u32>, Option<u32>) {
    match &e.kind {
        EventKind::MoveMade {
            byoyomi_periods_lost,
            byoyomi_periods_left,
            ..
        }
        | EventKind::ClockPressed {
            byoyomi_periods_lost,
            byoyomi_periods_left,
            ..
        } => (*byoyomi_periods_lost, *byoyomi_periods_left),
        other => panic!("{other:?}"),
    }
}

/// The text a clock widget draws for `side` at `at`, `w` x `h` cells.
fn clock_text(m: &Match, side: Side, at: Ms, w: u16, h: u16) -> String {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    let v = m.view(at);
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    arbiter::board::tui::screen::clock(&v.clocks[side.index()], area, &mut buf);
    (0..h)
        .map(|y| {
            (0..w)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn time_control_byoyomi_periods_shown_on_the_board_and_recorded_in_move_made() {
    // 60 s, then 3 periods of 30 s, as in the vector above.
    let tc = Tc {
        periods: vec![p(None, 60, 0)],
        unit: 1,
        shogi_server: false,
        inc_first: false,
        byoyomi: Some((3, 30)),
    };
    let mut m = started(&tc);
    let b = m.view(10_000).clocks[0].byoyomi.unwrap();
    assert_eq!(
        (b.periods_left, b.period_ms, b.in_byoyomi, b.period_left_ms),
        (3, 30_000, false, 30_000)
    );
    assert!(
        clock_text(&m, Side::White, 10_000, 70, 10).contains("byo-yomi 3 × 30 s"),
        "{}",
        clock_text(&m, Side::White, 10_000, 70, 10)
    );
    // 70 s into White's first move: the main time is spent, 10 s into the first period; the clock
    // runs on (no flag) and its face counts the period down: 20 s left of it.
    let b = m.view(70_000).clocks[0].byoyomi.unwrap();
    assert_eq!(
        (b.periods_left, b.in_byoyomi, b.period_left_ms),
        (3, true, 20_000)
    );
    assert_eq!(
        m.view(70_000).clocks[0].state,
        arbiter::core::view::ClockState::Running
    );
    let face = clock_text(&m, Side::White, 70_000, 40, 3);
    assert!(face.contains("0:00:20"), "{face}");
    let big = clock_text(&m, Side::White, 70_000, 70, 10);
    assert!(big.contains("BYO-YOMI · 3 periods of 30 s left"), "{big}");
    // 95 s: the first period ran out (35 s into byo-yomi): 2 left, 25 s of the second.
    let b = m.view(95_000).clocks[0].byoyomi.unwrap();
    assert_eq!((b.periods_left, b.period_left_ms), (2, 25_000));
    // The move at 70 s keeps its period: recorded as 0 lost, 3 left.
    let ev = m.at("70 move a");
    assert_eq!(byoyomi_of(&ev[0]), (Some(0), Some(3)));
    m.at("71 move b");
    // A 65 s move: two periods run out, one is left.
    let ev = m.at("136 move c");
    assert_eq!(byoyomi_of(&ev[0]), (Some(2), Some(1)));
    let b = m.view(136_000).clocks[0].byoyomi.unwrap();
    assert_eq!(
        (b.periods_left, b.in_byoyomi, b.period_left_ms),
        (1, true, 30_000)
    );
    // Pressed first, named after: the press and the move both record Black's periods (Black has
    // 59 s of main time: a 90 s move is 31 s into byo-yomi, one period lost).
    let press = m.at("226 press");
    assert_eq!(byoyomi_of(&press[0]), (Some(1), Some(2)));
    let ev = m.at("227 move d");
    assert_eq!(byoyomi_of(&ev[0]), (Some(1), Some(2)));
    // The log's readers take the entries: a replay gives the same state.
    let replayed = arbiter::core::game::Game::replay(&m.log).unwrap();
    assert_eq!(replayed.clock(), m.game().clock());
    // Without byo-yomi nothing is added to the entry (its bytes are as before).
    let plain = Tc {
        byoyomi: None,
        ..tc.clone()
    };
    let mut m = started(&plain);
    let ev = m.at("5 move a");
    assert_eq!(byoyomi_of(&ev[0]), (None, None));
    let json = serde_json::to_string(&ev[0]).unwrap();
    assert!(!json.contains("byoyomi"), "{json}");
    assert!(m.view(5_000).clocks[0].byoyomi.is_none());
}

#[test]
fn time_control_byoyomi_entries_read_by_status_pgn_and_relay() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("m");
    crate::log_util::arbiter_key_in(&dir);
    let rules = tmp.path().join("byoyomi.toml");
    // 5 s of main time, then 2 periods of 10 s.
    std::fs::write(
        &rules,
        "[profile]\nname = \"byo-yomi\"\nsource = \"tests/it/timecontrol.rs\"\ngame = \"chess\"\n\n\
         [time_control]\nclause = \"3\"\nperiod_addition = \"on_move\"\n\
         byoyomi = { periods = 2, seconds = 10 }\nperiods = [ { seconds = 5 } ]\n\n\
         [scoring]\nwin = 1.0\nloss = 0.0\ndraw_first = 0.5\ndraw_second = 0.5\n",
    )
    .unwrap();
    let script = tmp.path().join("g.arb");
    // White: 7 s (its 5 s of main time, then 2 s into its first period, kept); Black 1 s; White
    // 18 s, all in byo-yomi: one period of 10 s lost, 8 s into the second, which is kept.
    std::fs::write(
        &script,
        "0 arbiter declare white human A\n0 arbiter declare black machine B\n\
         0 arbiter declare operator O\n0 arbiter start\n7 move e4\n8 move e5\n26 move Nf3\n",
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    crate::realgame::ok(&crate::realgame::arbiter(&[
        "script",
        script.to_str().unwrap(),
        "--match",
        d,
        "--rules",
        rules.to_str().unwrap(),
    ]));
    let log = std::fs::read_to_string(arbiter::record::layout::log_path(&dir, 1)).unwrap();
    let moves: Vec<&str> = log.lines().filter(|l| l.contains("move_made")).collect();
    assert_eq!(moves.len(), 3);
    assert!(
        moves[0].contains("\"byoyomi_periods_lost\":0")
            && moves[0].contains("\"byoyomi_periods_left\":2"),
        "{}",
        moves[0]
    );
    assert!(
        moves[2].contains("\"byoyomi_periods_lost\":1")
            && moves[2].contains("\"byoyomi_periods_left\":1"),
        "{}",
        moves[2]
    );
    // status reads the log back and shows the byo-yomi left.
    let status = crate::realgame::ok(&crate::realgame::arbiter(&[
        "status", "--match", d, "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert_eq!(v["clocks"][0]["byoyomi"]["periods_left"], 1, "{status}");
    assert_eq!(v["clocks"][1]["byoyomi"]["periods_left"], 2, "{status}");
    // The PGN and the relay's reader take the entries.
    let pgn = crate::realgame::ok(&crate::realgame::arbiter(&[
        "pgn", "--match", d, "--game", "1",
    ]));
    assert!(pgn.contains("1. e4") && pgn.contains("2. Nf3"), "{pgn}");
    let out = tmp.path().join("relay.pgn");
    crate::realgame::ok(&crate::realgame::arbiter(&[
        "relay",
        "--match",
        d,
        "--out",
        out.to_str().unwrap(),
        "--once",
    ]));
    let relayed = std::fs::read_to_string(&out).unwrap();
    assert!(relayed.contains("2. Nf3"), "{relayed}");
}
