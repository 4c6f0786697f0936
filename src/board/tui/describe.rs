//! One-line descriptions of log entries for the status and message lines (pure).
use crate::core::event::{Event, EventKind, Termination};
use crate::core::timefmt;

fn brief(v: &serde_json::Value) -> Option<String> {
    match v {
        // Never cut: the message line wraps.
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `0:41:02 operator 6a move_made Nf3`, `1:12:09 kit 3 game_ended 1-0 ...`.
pub fn describe_event(e: &Event) -> String {
    describe_event_as(e, false)
}

/// [`describe_event`], a shogi game's sides named as shogi names them (sente, gote), never white
/// and black.
pub fn describe_event_as(e: &Event, shogi: bool) -> String {
    let text = describe_plain(e);
    if !shogi {
        return text;
    }
    let text = match &e.kind {
        EventKind::MoveMade { side, .. } => text.replacen(
            &format!(" {side} "),
            &format!(" {} ", crate::core::shogi::side_name(*side)),
            1,
        ),
        _ => text,
    };
    text.replace("=white", "=sente").replace("=black", "=gote")
}

fn describe_plain(e: &Event) -> String {
    let head = format!(
        "{} {} ({}) {}",
        timefmt::clock(e.at as i64),
        e.actor.name(),
        e.clause,
        e.kind_name()
    );
    let detail = match &e.kind {
        EventKind::GameOpened(o) => format!(
            "{} v {}",
            o.declarations.white.name, o.declarations.black.name
        ),
        EventKind::MoveMade { san, side, .. } => format!("{side} {san}"),
        EventKind::GameEnded {
            score, termination, ..
        } => format!("{} {}", score.text(), termination_text(*termination)),
        EventKind::Recovery(_)
        | EventKind::EngineLogArchived(_)
        | EventKind::ProgramArchived(_) => String::new(),
        _ => {
            let (_, body) = crate::log::codec::kind_and_body(e);
            match body {
                serde_json::Value::Object(m) => m
                    .iter()
                    .filter_map(|(k, v)| brief(v).map(|b| format!("{k}={b}")))
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" "),
                other => brief(&other).unwrap_or_default(),
            }
        }
    };
    if detail.is_empty() {
        head
    } else {
        format!("{head} {detail}")
    }
}

/// How a game ended, in words.
pub fn termination_text(t: Termination) -> &'static str {
    match t {
        Termination::Checkmate => "checkmate",
        Termination::Stalemate => "stalemate",
        Termination::InsufficientMaterial => "insufficient material",
        Termination::FivefoldRepetition => "fivefold repetition",
        Termination::SeventyFiveMoves => "75-move rule",
        Termination::ThreefoldClaim => "threefold repetition claimed",
        Termination::FiftyMoveClaim => "50-move rule claimed",
        Termination::FlagFall => "flag fall",
        Termination::FlagFallDraw => "flag fall, no mating material",
        Termination::Resignation => "resignation",
        Termination::DrawAgreed => "draw agreed",
        Termination::TablebaseDraw => "tablebase draw (10a)",
        Termination::Forfeit => "forfeit",
        Termination::NoShow => "no-show",
        Termination::ArbiterDecision => "arbiter's decision",
        Termination::MoveCap => "move cap",
        Termination::Sennichite => "sennichite",
        Termination::PerpetualCheck => "perpetual check",
        Termination::IllegalMove => "illegal move",
        Termination::Declaration => "entering-king declaration",
        Termination::FailedDeclaration => "failed entering-king declaration",
    }
}

/// A log entry's whole text, nothing cut: `move_made white Nf3 spent_ms=3000 ...` with every
/// field of its body, for the log page.
pub fn full_text(e: &Event) -> String {
    let (kind, body) = crate::log::codec::kind_and_body(e);
    // Who and what first, the rest in the log's order.
    const FIRST: [&str; 6] = ["side", "by", "san", "text", "reason", "question"];
    let detail = match body {
        serde_json::Value::Object(m) => {
            let mut fields: Vec<(&String, &serde_json::Value)> = m.iter().collect();
            fields.sort_by_key(|(k, _)| FIRST.iter().position(|f| f == k).unwrap_or(FIRST.len()));
            fields
                .into_iter()
                .map(|(k, v)| match v {
                    serde_json::Value::String(s) => format!("{k}: {s}"),
                    other => format!("{k}: {}", shorten_documents(other)),
                })
                .collect::<Vec<_>>()
                .join(" · ")
        }
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    };
    if detail.is_empty() {
        kind
    } else {
        format!("{kind} · {detail}")
    }
}

/// A nested value as JSON, with any embedded document (a rules profile's whole text) replaced by
/// its size: the log holds it, `arbiter report` prints it; the screen shows what it is.
fn shorten_documents(v: &serde_json::Value) -> String {
    fn walk(v: &serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::String(s) if s.len() > 300 && s.contains('\n') => {
                serde_json::Value::String(format!(
                    "({} lines of text, in the log)",
                    s.lines().count()
                ))
            }
            serde_json::Value::Object(m) => {
                serde_json::Value::Object(m.iter().map(|(k, v)| (k.clone(), walk(v))).collect())
            }
            serde_json::Value::Array(a) => serde_json::Value::Array(a.iter().map(walk).collect()),
            other => other.clone(),
        }
    }
    walk(v).to_string()
}
