//! Disputes and the arbiter's rulings in the report (12).
use super::{Builder, DisputeRow, Stamp};
use crate::core::event::{Event, EventKind};

impl Builder {
    /// The timeline text of a dispute or a ruling (12).
    pub(super) fn describe_dispute(&self, e: &Event) -> String {
        use EventKind as K;
        match &e.kind {
            K::DisputeRaised { id, text } => format!("dispute {id}: {text}"),
            K::RulingGiven { id, dispute, text } => {
                format!("ruling {id} on dispute {dispute}: {text}")
            }
            _ => e.kind_name(),
        }
    }

    /// A dispute opens a row; rulings on it fill it (12).
    pub(super) fn collect_dispute(&mut self, s: Stamp, e: &Event) {
        use EventKind as K;
        match &e.kind {
            K::DisputeRaised { id, text } => self.report.disputes.push(DisputeRow {
                id: *id,
                raised: s,
                text: text.clone(),
                rulings: Vec::new(),
                decision: None,
            }),
            K::RulingGiven { id, dispute, text } => {
                if let Some(d) = self.report.disputes.iter_mut().find(|d| d.id == *dispute) {
                    d.rulings.push((s, *id, text.clone()));
                }
            }
            _ => {}
        }
    }
}
