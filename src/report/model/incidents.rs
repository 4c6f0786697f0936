//! Technical problems (8a) and power failures (8b) in the report: each is an incident with its
//! start, what happened during it, its end and how long each part lasted.
use super::{Builder, IncidentKind, IncidentRow, Stamp, hms};
use crate::core::event::{Event, EventKind};
use crate::core::{Ms, clause};

impl Builder {
    /// The timeline text of a technical problem (8a) or a power failure (8b).
    pub(super) fn describe_incident(&self, e: &Event) -> String {
        use EventKind as K;
        match &e.kind {
            K::TechnicalProblem { text } => {
                format!("technical problem: {text} (machine's clock keeps running)")
            }
            K::WorkNote { text } => format!("work note: {text}"),
            K::InfoStopped { question } => {
                format!("machine's clock stopped to ask: {question}")
            }
            K::InfoResumed => "information received; machine's clock restarted".into(),
            K::TechnicalResolved { text } => format!("machine restored: {text}"),
            K::PowerFailed { text } => format!("power failure: {text}; game suspended"),
            K::PowerRestored { window_ms } => {
                format!("power restored; reset window of {} starts", hms(*window_ms))
            }
            K::MachineReset => "machine reset reported by the operator".into(),
            _ => e.kind_name(),
        }
    }

    /// A technical problem (8a): opened, noted on, stopped for questions, resolved.
    pub(super) fn collect_technical(&mut self, s: Stamp, e: &Event) {
        use EventKind as K;
        match &e.kind {
            K::TechnicalProblem { text } => {
                self.open_technical = Some(self.open_incident(IncidentKind::Technical, s, e, text));
            }
            K::WorkNote { text } => {
                if let Some(inc) = self.open_technical_mut() {
                    inc.details.push((s, format!("work note: {text}")));
                }
            }
            K::InfoStopped { question } => {
                self.open_info = Some(s.clone());
                if let Some(inc) = self.open_technical_mut() {
                    inc.details
                        .push((s, format!("machine's clock stopped to ask: {question}")));
                }
            }
            K::InfoResumed => {
                let since = self.open_info.take();
                if let Some(inc) = self.open_technical_mut() {
                    let used = since.map(|f| e.at.saturating_sub(f.at_ms));
                    if let Some(u) = used {
                        add_duration(
                            &mut inc.durations,
                            "machine's clock stopped for questions",
                            u,
                        );
                    }
                    inc.details.push((
                        s,
                        match used {
                            Some(u) => format!(
                                "information received after {}; machine's clock restarted",
                                hms(u)
                            ),
                            None => "machine's clock restarted".into(),
                        },
                    ));
                }
            }
            K::TechnicalResolved { text } => {
                if let Some(k) = self.open_technical.take()
                    && let Some(inc) = self.report.incidents.get_mut(k)
                {
                    let total = e.at.saturating_sub(inc.start.at_ms);
                    let stopped: Ms = inc.durations.iter().map(|d| d.1).sum();
                    inc.durations.insert(
                        0,
                        (
                            format!(
                                "machine's clock running ({})",
                                self.report.cites.c(crate::core::clause::TECHNICAL)
                            ),
                            total.saturating_sub(stopped),
                        ),
                    );
                    inc.details.push((s.clone(), format!("restored: {text}")));
                    inc.end = Some(s);
                    inc.duration_ms = Some(total);
                }
            }
            _ => {}
        }
    }

    /// A power failure (8b): power restored, the machine reset, play resumed.
    pub(super) fn collect_power(&mut self, s: Stamp, e: &Event) {
        use EventKind as K;
        match &e.kind {
            K::PowerFailed { text } => {
                self.power_off_since = Some(e.at);
                match self.open_power_mut() {
                    // 8b: power failed again before play resumed: the same suspension.
                    Some(inc) => inc.details.push((
                        s,
                        format!(
                            "power failed again: {text}; the reset window starts again when \
                             power is restored"
                        ),
                    )),
                    None => {
                        self.open_power = Some(self.open_incident(IncidentKind::Power, s, e, text));
                    }
                }
            }
            K::PowerRestored { window_ms } => {
                let off = self.power_off_since.take();
                if let Some(inc) = self.open_power_mut() {
                    let d = e.at.saturating_sub(off.unwrap_or(inc.start.at_ms));
                    inc.durations.push(("without power".into(), d));
                    inc.details.push((
                        s,
                        format!("power restored; reset window of {}", hms(*window_ms)),
                    ));
                }
            }
            K::MachineReset => {
                if let Some(inc) = self.open_power_mut() {
                    let from = inc
                        .details
                        .last()
                        .map_or(inc.start.at_ms, |(st, _)| st.at_ms);
                    inc.durations
                        .push(("machine reset".into(), e.at.saturating_sub(from)));
                    inc.details
                        .push((s, "machine reset reported by the operator".into()));
                }
            }
            K::ClockResumed { .. } => {
                if e.clause == clause::POWER_FAILURE
                    && let Some(k) = self.open_power.take()
                    && let Some(inc) = self.report.incidents.get_mut(k)
                {
                    let total = e.at.saturating_sub(inc.start.at_ms);
                    inc.durations.push(("suspended in total".into(), total));
                    inc.details.push((s.clone(), "play resumed".into()));
                    inc.end = Some(s);
                    inc.duration_ms = Some(total);
                }
            }
            _ => {}
        }
    }

    /// Open an incident of `kind` at `start`: its row, and its index in the report.
    fn open_incident(&mut self, kind: IncidentKind, start: Stamp, e: &Event, text: &str) -> usize {
        self.report.incidents.push(IncidentRow {
            kind,
            clause: e.clause.to_string(),
            start,
            text: text.to_string(),
            end: None,
            duration_ms: None,
            durations: Vec::new(),
            details: Vec::new(),
        });
        self.report.incidents.len() - 1
    }

    fn open_technical_mut(&mut self) -> Option<&mut IncidentRow> {
        self.open_technical
            .and_then(|k| self.report.incidents.get_mut(k))
    }

    fn open_power_mut(&mut self) -> Option<&mut IncidentRow> {
        self.open_power
            .and_then(|k| self.report.incidents.get_mut(k))
    }
}

fn add_duration(list: &mut Vec<(String, Ms)>, name: &str, ms: Ms) {
    match list.iter_mut().find(|(n, _)| n == name) {
        Some(d) => d.1 += ms,
        None => list.push((name.to_string(), ms)),
    }
}
