//! The result in the report: how the game ended and under which clause, the draw offers an
//! agreed draw answers (9a) and the dispute a ruling that ended the game decided (12).
use super::{Builder, ResultRow, Stamp, termination_text};
use crate::core::event::{Event, EventKind, Termination};

impl Builder {
    /// The timeline text of the end of the game.
    pub(super) fn describe_result(&self, e: &Event) -> String {
        use EventKind as K;
        let K::GameEnded {
            score,
            termination,
            detail,
            ruling,
            ..
        } = &e.kind
        else {
            return e.kind_name();
        };
        let mut t = format!(
            "game ended {} by {}: {detail}",
            score.text(),
            termination_text(*termination)
        );
        if let Some(r) = ruling {
            t.push_str(&format!(" (ruling {r})"));
        }
        t
    }

    /// The end of the game: the result, the offers it accepts and the decision on a dispute.
    pub(super) fn collect_result(&mut self, s: Stamp, e: &Event) {
        use EventKind as K;
        let K::GameEnded {
            score,
            termination,
            detail,
            ruling,
            ..
        } = &e.kind
        else {
            return;
        };
        if *termination == Termination::DrawAgreed {
            for k in self.offer_of.into_iter().flatten() {
                if let Some(o) = self.report.draw_offers.get_mut(k)
                    && o.answered.is_none()
                {
                    o.answered = Some(s.clone());
                    o.outcome = "accepted: game drawn".into();
                }
            }
        }
        if let Some(r) = ruling {
            let dispute = self
                .game
                .as_ref()
                .and_then(|g| g.rulings().iter().find(|(id, _)| id == r).map(|(_, d)| *d));
            let target = self.report.disputes.iter_mut().find(|d| {
                dispute.map_or_else(|| d.rulings.iter().any(|(_, id, _)| id == r), |x| d.id == x)
            });
            if let Some(d) = target {
                d.decision = Some((
                    s.clone(),
                    format!("game ended {} on ruling {r}: {detail}", score.text()),
                ));
            }
        }
        // A consultation still open ends with the game.
        self.report.result = Some(ResultRow {
            stamp: s,
            score: score.text().to_string(),
            termination: termination_text(*termination),
            clause: e.clause.to_string(),
            detail: detail.clone(),
            ruling: *ruling,
        });
    }
}
