//! The Board UI's request to the camps: at each time control where the profile says,
//! and when the game ends, each declared camp is shown what IT signs — the result, both clocks,
//! and every entry of the arbiter or the committee since its own last countersignature (as
//! `arbiter countersign` prints it) — and leaves the request once it has countersigned. Pure: the
//! camps' countersignatures are the shell's [`Status`], found beside the log.
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::screen::Status;
use crate::core::timefmt;
use crate::core::view::{Acts, CampToSign, Panel, View};

/// How many of a camp's entries the request lists (the latest); the rest are counted, and
/// `arbiter countersign` prints them all.
pub const SHOWN: usize = 8;

/// The view with each camp's latest countersignature filled in from `status`, without the camps
/// that already countersigned what is asked (a checkpoint at least as large), and without a
/// request no camp is left to answer. `None` when there is nothing to change.
pub fn with_camps_known(view: &View, status: &Status) -> Option<View> {
    let asks = view
        .panels
        .iter()
        .any(|p| matches!(p, Panel::Countersign { .. } | Panel::CountersignEnd { .. }));
    if !asks || status.countersigned.is_empty() {
        return None;
    }
    let known = |camps: &mut Vec<CampToSign>, checkpoint: u64| {
        for c in camps.iter_mut() {
            c.last = status
                .countersigned
                .iter()
                .find(|(name, _)| *name == c.name)
                .map(|(_, upto)| *upto);
        }
        camps.retain(|c| c.last.is_none_or(|upto| upto < checkpoint));
        !camps.is_empty()
    };
    let mut v = view.clone();
    v.panels.retain_mut(|p| match p {
        Panel::Countersign {
            checkpoint, camps, ..
        }
        | Panel::CountersignEnd {
            checkpoint, camps, ..
        } => known(camps, *checkpoint),
        _ => true,
    });
    Some(v)
}

/// The camps still asked to countersign the result (after [`with_camps_known`]); `None` when
/// the game has no end request (no camps, not over, or every camp has countersigned).
pub fn end_camps(view: &View) -> Option<Vec<&str>> {
    view.panels.iter().find_map(|p| match p {
        Panel::CountersignEnd { camps, .. } => {
            Some(camps.iter().map(|c| c.name.as_str()).collect())
        }
        _ => None,
    })
}

fn tag(text: &str) -> Span<'static> {
    Span::styled(
        format!(" {text} "),
        Style::new()
            .fg(Color::Black)
            .bg(Color::Cyan)
            .add_modifier(Modifier::BOLD),
    )
}

/// The request's lines, for a [`Panel::Countersign`] or [`Panel::CountersignEnd`] (none for any
/// other panel).
pub fn lines(p: &Panel) -> Vec<Line<'static>> {
    let clocks = |c: &[i64; 2]| {
        format!(
            "White {}, Black {}",
            timefmt::clock(c[0]),
            timefmt::clock(c[1])
        )
    };
    let (head, what, rulings, camps) = match p {
        Panel::Countersign {
            control,
            move_number,
            checkpoint,
            clocks: c,
            rulings,
            camps,
        } => (
            format!(
                " time control {control} ({move_number} moves played) passed: {} · arbiter countersign --camp NAME --checkpoint {checkpoint}",
                names(camps)
            ),
            format!("  they sign: clocks at the control move {}", clocks(c)),
            rulings,
            camps,
        ),
        Panel::CountersignEnd {
            score,
            checkpoint,
            clocks: c,
            rulings,
            camps,
        } => (
            format!(
                " the game is over: {} · arbiter countersign --camp NAME (a checkpoint of {checkpoint} entries or more), then --index",
                names(camps)
            ),
            format!("  they sign: result {score} · clocks {}", clocks(c)),
            rulings,
            camps,
        ),
        _ => return Vec::new(),
    };
    let mut out = vec![
        Line::from(vec![tag("CAMPS COUNTERSIGN"), Span::raw(head)]),
        Line::from(Span::raw(what)),
    ];
    // One line per camp, camps whose last countersignature is the same sharing it.
    let mut groups: Vec<(Option<u64>, Vec<&str>)> = Vec::new();
    for c in camps {
        match groups.iter_mut().find(|(last, _)| *last == c.last) {
            Some((_, names)) => names.push(&c.name),
            None => groups.push((c.last, vec![&c.name])),
        }
    }
    for (last, who) in groups {
        out.push(Line::from(Span::raw(format!(
            "  {}: arbiter and committee entries since {}: {}",
            who.join(", "),
            last.map_or_else(
                || "the start (no countersignature yet)".to_owned(),
                |n| format!("its countersignature of checkpoint {n}")
            ),
            since(rulings, last)
        ))));
    }
    out
}

fn names(camps: &[CampToSign]) -> String {
    camps
        .iter()
        .map(|c| c.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The entries at or after `last` (a checkpoint of `last` entries covers `0..last`; line 0, the
/// declarations, the camps saw before the start), the latest [`SHOWN`] listed.
fn since(acts: &Acts, last: Option<u64>) -> String {
    let from = last.unwrap_or(1);
    let new: Vec<&str> = acts
        .list
        .iter()
        .filter(|(seq, _)| *seq >= from)
        .map(|(_, text)| text.as_str())
        .collect();
    // Entries older than the ones kept, and possibly since `last`.
    let unkept = match acts.list.first() {
        Some((first, _)) if *first > from => acts.not_kept,
        None => acts.not_kept,
        _ => 0,
    };
    let hidden = new.len().saturating_sub(SHOWN) as u64 + unkept;
    let shown = &new[new.len().saturating_sub(SHOWN)..];
    match (shown.is_empty(), hidden) {
        (true, 0) => "none".into(),
        (_, 0) => shown.join(", "),
        (_, n) => format!(
            "{n} earlier (arbiter countersign lists them all), {}",
            shown.join(", ")
        ),
    }
}
