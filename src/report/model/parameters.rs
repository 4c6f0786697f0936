//! The machine's parameters in the report: set before its first move (6g), or a correction
//! requested, advised on by the committee and decided (6l).
use super::{Builder, ParameterRow, Stamp};
use crate::core::event::{Event, EventKind};

impl Builder {
    /// The timeline text of a parameter entry (6g, 6l).
    pub(super) fn describe_parameter(&self, e: &Event) -> String {
        use EventKind as K;
        match &e.kind {
            K::ParameterSet { name, value } => {
                format!("parameter {name} set to {value} before the machine's first move")
            }
            K::ParameterRequested { id, name, reason } => {
                format!("request {id}: correct parameter {name}: {reason}")
            }
            K::CommitteeAdvised { request, text } => {
                format!("committee advice on request {request}: {text}")
            }
            K::ParameterDecided {
                id,
                permitted,
                reason,
            } => format!(
                "request {id} {}: {reason}",
                if *permitted { "permitted" } else { "refused" }
            ),
            _ => e.kind_name(),
        }
    }

    /// A parameter set (6g) or a request (6l) opens a row; advice and the decision fill it.
    pub(super) fn collect_parameter(&mut self, s: Stamp, e: &Event) {
        use EventKind as K;
        match &e.kind {
            K::ParameterSet { name, value } => self.report.parameters.push(ParameterRow {
                clause: e.clause.to_string(),
                id: None,
                stamp: s,
                name: name.clone(),
                text: value.clone(),
                advice: Vec::new(),
                decision: None,
            }),
            K::ParameterRequested { id, name, reason } => {
                self.report.parameters.push(ParameterRow {
                    clause: e.clause.to_string(),
                    id: Some(*id),
                    stamp: s,
                    name: name.clone(),
                    text: reason.clone(),
                    advice: Vec::new(),
                    decision: None,
                })
            }
            K::CommitteeAdvised { request, text } => {
                if let Some(p) = self.param_mut(*request) {
                    p.advice.push((s, text.clone()));
                }
            }
            K::ParameterDecided {
                id,
                permitted,
                reason,
            } => {
                if let Some(p) = self.param_mut(*id) {
                    p.decision = Some((s, *permitted, reason.clone()));
                }
            }
            _ => {}
        }
    }

    fn param_mut(&mut self, id: u32) -> Option<&mut ParameterRow> {
        self.report.parameters.iter_mut().find(|p| p.id == Some(id))
    }
}
