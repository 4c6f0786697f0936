//! What a command will record, in words (pure): the question the Board UI asks before every
//! arbiter-only command, decided by a dry run of the core against the game as it stands
//! ("the game ENDS 1-0 (resignation)", "Garry Kasparov 1:58:17 → 2:08:17", "23... Qc7 will be
//! taken back", "the machine FORFEITS", "Deep Junior is charged 0:00:43 of the 0:00:43 measured").
//! No field names: every entry kind an arbiter-only command records has its sentence.
use crate::core::command::Command;
use crate::core::event::{ClockSet, Event, EventKind, Termination};
use crate::core::game::Game;
use crate::core::{Ms, Refusal, Side, timefmt};

use super::describe::termination_text;

/// The player's name on `side` (or `white`/`black` before the declarations).
fn name(game: &Game, side: Side) -> String {
    game.player(side)
        .map_or_else(|| side.to_string(), |p| p.name.clone())
}

fn quoted(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!(": «{text}»")
    }
}

/// One recorded entry in words, as a consequence of a command decided at `at` on `game` (the
/// state before the command): each rule family words its own entries.
pub fn plain(e: &Event, game: &Game, at: Ms) -> String {
    result(e, game)
        .or_else(|| clocks(e, game, at))
        .or_else(|| moves(e, game, at))
        .or_else(|| technical(e, game))
        .or_else(|| committee(e))
        .or_else(|| record(e))
        .unwrap_or_else(|| e.kind_name().replace('_', " "))
}

/// Rules 9 and 10: results, draw offers and claims.
fn result(e: &Event, game: &Game) -> Option<String> {
    let text = match &e.kind {
        EventKind::GameEnded {
            score,
            termination: Termination::Forfeit,
            ..
        } => format!("the machine FORFEITS: the game ENDS {}", score.text()),
        EventKind::GameEnded {
            score, termination, ..
        } => format!(
            "the game ENDS {} ({})",
            score.text(),
            termination_text(*termination)
        ),
        EventKind::DrawOffered { by, .. } => format!(
            "{} offers a draw: the other side may accept it, and the game ends ½–½",
            name(game, *by)
        ),
        EventKind::DrawDeclined { by, .. } => {
            format!("{} DECLINES the draw offer: play goes on", name(game, *by))
        }
        EventKind::ClaimDismissed {
            claimant,
            to,
            added_ms,
            ..
        } => format!(
            "{}'s claim is found INCORRECT: {} gets {} more",
            name(game, *claimant),
            name(game, *to),
            timefmt::clock(*added_ms as i64)
        ),
        _ => return None,
    };
    Some(text)
}

/// Rules 1, 3, 6d and 7e: the clocks started, stopped, resumed, pressed and corrected.
fn clocks(e: &Event, game: &Game, at: Ms) -> Option<String> {
    let clock_of = |side: Side| timefmt::clock(game.remaining(side, at));
    let running = || game.clock().running();
    let text = match &e.kind {
        EventKind::ClockStarted { side } => format!(
            "{}'s clock STARTS at {}: the game begins",
            name(game, *side),
            clock_of(*side)
        ),
        EventKind::ClockStopped { reason } => match running() {
            Some(s) => format!(
                "both clocks STOP, {}'s at {}{}",
                name(game, s),
                clock_of(s),
                quoted(reason)
            ),
            None => format!("both clocks STOP{}", quoted(reason)),
        },
        EventKind::ClockResumed { side } => format!(
            "{}'s clock RUNS again from {}",
            name(game, *side),
            clock_of(*side)
        ),
        EventKind::ClockPressed {
            side, remaining_ms, ..
        } => format!(
            "{} presses the clock at {}",
            name(game, *side),
            timefmt::clock(*remaining_ms)
        ),
        EventKind::ClockCorrected {
            side,
            how,
            to_ms,
            delta_ms,
            reason,
            ..
        } => {
            let before = game.remaining(*side, at);
            let after = match how {
                ClockSet::Remaining => *to_ms,
                ClockSet::Delta => before.saturating_add(*delta_ms),
            };
            // The reason is in the words the question repeats.
            let _ = reason;
            format!(
                "{} {} → {}",
                name(game, *side),
                timefmt::clock(before),
                timefmt::clock(after)
            )
        }
        _ => return None,
    };
    Some(text)
}

/// Rules 6 and 7: moves made, taken back, wrongly executed, owed.
fn moves(e: &Event, game: &Game, at: Ms) -> Option<String> {
    let text = match &e.kind {
        EventKind::MoveMade { side, san, .. } => {
            format!("{} plays {san}", name(game, *side))
        }
        EventKind::MovesTakenBack { plies, .. } => {
            let moves = game.board().moves();
            let from = moves.len().saturating_sub(*plies);
            let list: Vec<String> = moves[from..]
                .iter()
                .enumerate()
                .map(|(i, m)| game.board().numbering().numbered(from + i, &m.san))
                .collect();
            format!(
                "{} will be taken back; typed again before the resume, no time is charged",
                list.join(" ")
            )
        }
        EventKind::WrongMove {
            played,
            correct,
            pressed,
            infraction,
            penalty_ms,
            forfeit,
            ..
        } => {
            if *forfeit {
                format!(
                    "{played} was not the machine's move ({correct} was), infraction {infraction}: the machine FORFEITS"
                )
            } else if *pressed && *penalty_ms > 0 {
                let human = game.human_side();
                let given = human.map_or_else(String::new, |h| {
                    let before = game.remaining(h, at);
                    format!(
                        "; {} {} → {}",
                        name(game, h),
                        timefmt::clock(before),
                        timefmt::clock(before.saturating_add(*penalty_ms as i64))
                    )
                });
                format!(
                    "{played} is replaced by {correct} (infraction {infraction}, the clock was pressed){given}"
                )
            } else {
                format!("{played} is replaced by {correct} (the clock was not pressed: no penalty)")
            }
        }
        EventKind::OwedMoveReleased { san, reason } => format!(
            "the owed move {san} is released: another move may be entered{}",
            quoted(reason)
        ),
        _ => return None,
    };
    Some(text)
}

/// Rule 8: technical problems, the supervisor's questions, power failures and restarts.
fn technical(e: &Event, game: &Game) -> Option<String> {
    let text = match &e.kind {
        EventKind::TechnicalProblem { text } => {
            format!(
                "a technical problem is recorded, the machine's clock runs on{}",
                quoted(text)
            )
        }
        EventKind::TechnicalResolved { text } => {
            format!("the machine is restored{}", quoted(text))
        }
        EventKind::InfoStopped { question } => format!(
            "the machine's clock STOPS for the supervisor's question{}",
            quoted(question)
        ),
        EventKind::InfoResumed => "the machine's clock RUNS again".to_string(),
        EventKind::WorkNote { text } => {
            format!("the supervisor's note is recorded{}", quoted(text))
        }
        EventKind::PowerFailed { text } => format!(
            "the game is SUSPENDED and both clocks stop (8b){}",
            quoted(text)
        ),
        EventKind::PowerRestored { window_ms } => format!(
            "the power is back: the machine has {} to reset (8b)",
            timefmt::clock(*window_ms as i64)
        ),
        EventKind::RestartGap {
            gap_ms,
            side,
            charged_ms,
            charged,
            ..
        } => {
            let who = side.map_or_else(|| "the running side".to_string(), |s| name(game, s));
            let charged = charged_ms.unwrap_or(if *charged { *gap_ms } else { 0 });
            let gap = timefmt::clock(*gap_ms as i64);
            if charged == 0 {
                format!("{who} is charged nothing of the {gap} measured: it is given back (8b)")
            } else if charged >= *gap_ms {
                format!(
                    "{who} is charged {} of the {gap} measured (8b)",
                    timefmt::clock(charged as i64)
                )
            } else {
                format!(
                    "{who} is charged {} of the {gap} measured, {} given back (8b)",
                    timefmt::clock(charged as i64),
                    timefmt::clock((*gap_ms - charged) as i64)
                )
            }
        }
        _ => return None,
    };
    Some(text)
}

/// Rules 6l and 11: parameters, disputes, rulings and the committee's advice.
fn committee(e: &Event) -> Option<String> {
    let text = match &e.kind {
        EventKind::ParameterSet { name: p, value } => {
            format!("the parameter {p} is set to {value}")
        }
        EventKind::ParameterDecided {
            id,
            permitted,
            reason,
        } => format!(
            "request {id} is {}{}",
            if *permitted { "PERMITTED" } else { "REFUSED" },
            quoted(reason)
        ),
        EventKind::DisputeRaised { id, text } => {
            format!("dispute {id} is raised{}", quoted(text))
        }
        EventKind::RulingGiven { id, dispute, text } => {
            format!(
                "ruling {id} on dispute {dispute} is recorded{}",
                quoted(text)
            )
        }
        EventKind::CommitteeAdvised { request, text } => {
            format!(
                "the committee's advice on {request} is recorded{}",
                quoted(text)
            )
        }
        _ => return None,
    };
    Some(text)
}

/// Rules 1 and 5b: the log itself: the opening, notes and voided entries.
fn record(e: &Event) -> Option<String> {
    let text = match &e.kind {
        EventKind::GameOpened(o) => format!(
            "the game is opened: {} (White) v {} (Black), the declarations bound into the log's first entry",
            o.declarations.white.name, o.declarations.black.name
        ),
        EventKind::Note { text } => format!("a note is recorded{}", quoted(text)),
        EventKind::EntryVoided { seq, kind, reason } => format!(
            "entry #{seq} ({}) becomes VOID: its effect is undone; it stays in the log{}",
            kind.replace('_', " "),
            quoted(reason)
        ),
        _ => return None,
    };
    Some(text)
}

/// What `cmd` would record, in words, from a dry decide at the latest entry's time; or the
/// refusal it would get. `measured` is the restart gap the shell measured (8b), which a
/// `restart-gap` ruling is decided against.
pub fn consequence(
    cmd: &Command,
    game: &Game,
    measured: Option<(Ms, Option<Side>)>,
) -> Result<String, Refusal> {
    if let Command::HandOverFiles {
        copies,
        program,
        side,
    } = cmd
    {
        // Which program's log: a side's own (a game between two programs), or the machine's.
        let whose = side.map_or("the machine's log".to_string(), |s| {
            format!("{}'s program's log", game.side_label(s))
        });
        return Ok(format!(
            "{} cop{} of {whose}{} examined, stored and recorded ({}{})",
            copies.len(),
            if copies.len() == 1 { "y" } else { "ies" },
            if program.is_some() {
                " and the program copy are"
            } else {
                " are"
            },
            game.cites(crate::core::clause::ENGINE_LOG),
            if program.is_some() {
                format!(", {}", game.cites(crate::core::clause::PROGRAM_COPY))
            } else {
                String::new()
            }
        ));
    }
    let cmd = match (cmd, measured) {
        (Command::RestartGap { ruling, reason, .. }, Some(m)) => Command::RestartGap {
            ruling: *ruling,
            reason: reason.clone(),
            measured: Some(m),
        },
        _ => cmd.clone(),
    };
    let at = game.last_at();
    let events = game.decide(&cmd, at)?;
    if events.is_empty() {
        return Ok("nothing changes on the clocks or the board".to_string());
    }
    Ok(events
        .iter()
        .map(|e| plain(e, game, at))
        .collect::<Vec<_>>()
        .join(" · "))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::Actor;

    /// Each entry kind is worded by exactly one rule family (no family answers for another's).
    #[test]
    fn rule_families_each_word_their_own_entries() {
        let s = crate::board::session::memory_session(
            std::path::Path::new("kasparov-deep-junior-2003"),
            "m",
            1,
        )
        .unwrap();
        let g = &s.game;
        let kinds = [
            EventKind::DrawDeclined {
                by: Side::White,
                how: crate::core::event::DeclineHow::Declined,
            },
            EventKind::ClockStopped { reason: "r".into() },
            EventKind::MoveMade {
                side: Side::White,
                san: "e4".into(),
                uci: "e2e4".into(),
                spent_ms: 0,
                increment_ms: 0,
                remaining_ms: 0,
                fen: None,
                declines_draw: false,
                pressed_at: None,
                byoyomi_periods_lost: None,
                byoyomi_periods_left: None,
            },
            EventKind::PowerRestored { window_ms: 1000 },
            EventKind::DisputeRaised {
                id: 1,
                text: "t".into(),
            },
            EventKind::Note { text: "n".into() },
        ];
        for (i, k) in kinds.into_iter().enumerate() {
            let e = Event::new(0, Actor::Arbiter, "1", k);
            let answers = [
                result(&e, g).is_some(),
                clocks(&e, g, 0).is_some(),
                moves(&e, g, 0).is_some(),
                technical(&e, g).is_some(),
                committee(&e).is_some(),
                record(&e).is_some(),
            ];
            // The i-th kind is the i-th family's, and no other family's.
            let want: Vec<bool> = (0..6).map(|f| f == i).collect();
            assert_eq!(answers.to_vec(), want, "{e:?}");
        }
    }
}
