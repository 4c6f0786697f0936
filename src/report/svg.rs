//! The clock chart as inline SVG: both sides' remaining time after each of their moves, the
//! time-control lines (e.g. after moves 40 and 60), and the penalties and clock corrections. The
//! x axis counts the moves each side played in this game (what rule 3 counts), not the
//! scoresheet numbers of a game started from a FEN.
//! A pure function of [`Chart`]; no script, no external assets.
use std::fmt::Write;

use super::html::escape;
use super::model::{Chart, MarkKind};
use crate::core::Side;

pub const WIDTH: f64 = 800.0;
pub const HEIGHT: f64 = 300.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 30.0;
const BOTTOM: f64 = 40.0;

/// Colour of a side's line (White's clock in blue: white on white would not show).
pub fn colour(side: Side) -> &'static str {
    match side {
        Side::White => "#2563eb",
        Side::Black => "#111827",
    }
}
const PENALTY: &str = "#dc2626";
const CORRECTION: &str = "#d97706";
const GRID: &str = "#e5e7eb";
const PERIOD: &str = "#6b7280";

const MINUTE: i64 = 60_000;

/// Tick step for the time axis: at most eight ticks.
fn time_step(max_ms: i64) -> i64 {
    for m in [5, 10, 15, 30, 60, 120, 240] {
        if max_ms <= 8 * m * MINUTE {
            return m * MINUTE;
        }
    }
    480 * MINUTE
}

fn hm(ms: i64) -> String {
    let m = ms / MINUTE;
    format!("{}:{:02}", m / 60, m % 60)
}

/// The chart as an `<svg>` element.
pub fn chart(c: &Chart) -> String {
    let w = WIDTH - LEFT - RIGHT;
    let h = HEIGHT - TOP - BOTTOM;
    let step = time_step(c.max_ms);
    let top_ms = ((c.max_ms + step - 1) / step).max(1) * step;
    let max_move = f64::from(c.max_move.max(1));
    let x = |n: f64| LEFT + n / max_move * w;
    let y = |ms: i64| TOP + h - (ms.clamp(0, top_ms) as f64) / (top_ms as f64) * h;

    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="clock-chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" aria-labelledby="chart-title" font-family="sans-serif" font-size="11">"##
    );
    let _ = write!(
        s,
        r##"<title id="chart-title">Remaining time of {} and {} after each move</title>"##,
        escape(&c.series[0].name),
        escape(&c.series[1].name)
    );
    let _ = write!(
        s,
        r##"<rect x="{LEFT}" y="{TOP}" width="{w}" height="{h}" fill="#ffffff" stroke="#9ca3af"/>"##
    );
    // Time axis.
    let mut t = 0;
    while t <= top_ms {
        let yy = y(t);
        let _ = write!(
            s,
            r##"<line class="grid" x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="{GRID}"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT + w,
            LEFT - 6.0,
            yy + 4.0,
            hm(t)
        );
        t += step;
    }
    // Move axis.
    let xstep = if c.max_move > 100 { 20 } else { 10 };
    let mut n = 0;
    while n <= c.max_move {
        let xx = x(f64::from(n));
        let _ = write!(
            s,
            r##"<line x1="{xx:.1}" y1="{:.1}" x2="{xx:.1}" y2="{:.1}" stroke="#9ca3af"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle">{n}</text>"##,
            TOP + h,
            TOP + h + 4.0,
            TOP + h + 16.0
        );
        n += xstep;
    }
    let _ = write!(
        s,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle">moves played in this game (rule {})</text>"##,
        LEFT + w / 2.0,
        HEIGHT - 6.0,
        escape(&c.moves_clause)
    );
    let _ = write!(
        s,
        r##"<text transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle">remaining time (h:mm)</text>"##,
        TOP + h / 2.0
    );
    // Time controls.
    for p in &c.period_lines {
        let xx = x(f64::from(*p));
        let _ = write!(
            s,
            r##"<line class="period-line" data-move="{p}" x1="{xx:.1}" y1="{TOP}" x2="{xx:.1}" y2="{:.1}" stroke="{PERIOD}" stroke-dasharray="5 4"/><text x="{:.1}" y="{:.1}" fill="{PERIOD}">{p} moves</text>"##,
            TOP + h,
            xx + 3.0,
            TOP + h - 6.0
        );
    }
    // The two clocks.
    for series in &c.series {
        let pts: Vec<String> = series
            .points
            .iter()
            .map(|(n, ms)| format!("{:.1},{:.1}", x(f64::from(*n)), y(*ms)))
            .collect();
        let _ = write!(
            s,
            r##"<polyline class="clock clock-{side}" data-side="{side}" data-points="{count}" fill="none" stroke="{col}" stroke-width="2" stroke-linejoin="round" points="{pts}"><title>{name} ({label})</title></polyline>"##,
            side = series.side,
            label = if c.shogi {
                crate::core::shogi::side_name(series.side)
            } else {
                series.side.name()
            },
            count = series.points.len(),
            col = colour(series.side),
            pts = pts.join(" "),
            name = escape(&series.name),
        );
    }
    // Penalties and corrections.
    for m in &c.marks {
        let (cx, cy) = (x(m.x), y(m.y_ms));
        let (class, col, shape) = match m.kind {
            MarkKind::Penalty => (
                "mark-penalty",
                PENALTY,
                format!(
                    "{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
                    cx,
                    cy - 7.0,
                    cx - 6.0,
                    cy + 5.0,
                    cx + 6.0,
                    cy + 5.0
                ),
            ),
            MarkKind::Correction => (
                "mark-correction",
                CORRECTION,
                format!(
                    "{:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
                    cx,
                    cy - 6.0,
                    cx + 6.0,
                    cy,
                    cx,
                    cy + 6.0,
                    cx - 6.0,
                    cy
                ),
            ),
        };
        let _ = write!(
            s,
            r##"<polygon class="mark {class}" data-side="{}" points="{shape}" fill="{col}" stroke="#ffffff"><title>{}</title></polygon>"##,
            m.side,
            escape(&m.label)
        );
    }
    // Legend.
    let mut lx = LEFT;
    let ly = 14.0;
    for series in &c.series {
        let label = format!(
            "{} ({})",
            series.name,
            if c.shogi {
                crate::core::shogi::side_name(series.side)
            } else {
                series.side.name()
            }
        );
        let _ = write!(
            s,
            r##"<line x1="{lx:.1}" y1="{ly}" x2="{:.1}" y2="{ly}" stroke="{}" stroke-width="3"/><text x="{:.1}" y="{:.1}">{}</text>"##,
            lx + 18.0,
            colour(series.side),
            lx + 22.0,
            ly + 4.0,
            escape(&label)
        );
        lx += 30.0 + 6.5 * label.chars().count().min(40) as f64;
    }
    let _ = write!(
        s,
        r##"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{PENALTY}"/><text x="{:.1}" y="{:.1}">penalty ({})</text>"##,
        lx + 6.0,
        ly - 6.0,
        lx,
        ly + 5.0,
        lx + 12.0,
        ly + 5.0,
        lx + 16.0,
        ly + 4.0,
        escape(&c.penalty_clause)
    );
    lx += 100.0;
    let _ = write!(
        s,
        r##"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{CORRECTION}"/><text x="{:.1}" y="{:.1}">clock correction</text>"##,
        lx + 6.0,
        ly - 6.0,
        lx + 12.0,
        ly,
        lx + 6.0,
        ly + 6.0,
        lx,
        ly,
        lx + 16.0,
        ly + 4.0
    );
    s.push_str("</svg>");
    s
}
