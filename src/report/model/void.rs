//! Rule 1: a voided entry leaves every section of the report, not only the timeline (which keeps
//! it, marked): its draw offer, consultation or answer, infraction, incident or detail, dispute or
//! ruling, parameter request, advice or decision, result and clock-chart mark are taken out as if
//! never recorded; a voided take-back puts its moves back in the move table.
use super::{Builder, Stamp};

fn is(s: &Stamp, seq: u64) -> bool {
    s.entry as u64 == seq
}

/// Index `k` after removing the row at `gone`: `None` for the row itself.
fn shift(k: Option<usize>, gone: usize) -> Option<usize> {
    match k {
        Some(k) if k == gone => None,
        Some(k) if k > gone => Some(k - 1),
        other => other,
    }
}

impl Builder {
    /// Entry `seq` was voided: take it out of the sections.
    pub(super) fn void_sections(&mut self, seq: u64) {
        let r = &mut self.report;
        if let Some(k) = r.draw_offers.iter().position(|o| is(&o.stamp, seq)) {
            r.draw_offers.remove(k);
            self.offer_of = self.offer_of.map(|o| shift(o, k));
        }
        for o in &mut r.draw_offers {
            o.consultations.retain(|c| !is(&c.started, seq));
            for c in &mut o.consultations {
                if c.ended.as_ref().is_some_and(|e| is(e, seq)) {
                    c.ended = None;
                    c.used_ms = None;
                }
            }
            if o.answered.as_ref().is_some_and(|a| is(a, seq)) {
                o.answered = None;
                o.outcome = "not answered (its answer was voided)".into();
            }
        }
        r.infractions.retain(|i| !is(&i.stamp, seq));
        if let Some(k) = r.incidents.iter().position(|i| is(&i.start, seq)) {
            r.incidents.remove(k);
            self.open_technical = shift(self.open_technical, k);
            self.open_power = shift(self.open_power, k);
        }
        for i in &mut r.incidents {
            i.details.retain(|(s, _)| !is(s, seq));
            if i.end.as_ref().is_some_and(|e| is(e, seq)) {
                i.end = None;
                i.duration_ms = None;
            }
        }
        r.disputes.retain(|d| !is(&d.raised, seq));
        for d in &mut r.disputes {
            d.rulings.retain(|(s, _, _)| !is(s, seq));
            if d.decision.as_ref().is_some_and(|(s, _)| is(s, seq)) {
                d.decision = None;
            }
        }
        r.parameters.retain(|p| !is(&p.stamp, seq));
        for p in &mut r.parameters {
            p.advice.retain(|(s, _)| !is(s, seq));
            if p.decision.as_ref().is_some_and(|(s, _, _)| is(s, seq)) {
                p.decision = None;
            }
        }
        if r.result.as_ref().is_some_and(|x| is(&x.stamp, seq)) {
            r.result = None;
        }
        r.chart.marks.retain(|m| m.entry as u64 != seq);
        // A voided take-back: its moves stand again, before any made since.
        if let Some(rows) = self.taken.remove(&seq) {
            let at = rows.first().map_or(self.line.len(), |m| m.ply);
            let later = self.line.split_off(at.min(self.line.len()));
            self.line.extend(rows);
            self.line.extend(later);
            let mut mine = [0u32; 2];
            for (ply, m) in self.line.iter_mut().enumerate() {
                mine[m.side.index()] += 1;
                m.ply = ply;
                m.number = mine[m.side.index()];
            }
        }
    }
}
