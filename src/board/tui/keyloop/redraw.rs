//! What reaches the terminal: the screen's state brought up to the session's, the status asked
//! for only when it may have changed, the bell, and the frame painted (only what changed).
use std::io::Write;
use std::time::Duration;

use ratatui::layout::Rect;

use super::Board;
use crate::board::session::Session;
use crate::board::tui::{LAST_MOVES, Status, bell, frame, refresh_score, sticky_alarms, wait_for};
use crate::core::Ms;

/// What the status depended on when it was asked for: entries, the storage's count of changes
/// seen outside this process, events handled, the live witnesses' changes.
type StatusAsked = (usize, Option<u64>, u64, u64);

/// The screen kept from frame to frame.
pub(super) struct Redraw<'s> {
    status: &'s mut dyn FnMut(&Session) -> Status,
    /// Only what changed reaches the terminal; a tick of the clock draws only the clocks.
    painter: frame::Painter,
    /// The view is rebuilt only after an entry; a tick only retimes it.
    views: frame::Views,
    /// Events taken so far, and the status last asked for with what it depended on.
    handled: u64,
    asked: Option<(StatusAsked, Option<String>, Status)>,
}

impl<'s> Redraw<'s> {
    /// The screen starts clean: cells an earlier run left (killed, same terminal) are never
    /// shown.
    pub(super) fn new(
        terminal: &mut ratatui::DefaultTerminal,
        status: &'s mut dyn FnMut(&Session) -> Status,
    ) -> std::io::Result<Redraw<'s>> {
        terminal.clear()?;
        terminal.hide_cursor()?;
        let size = terminal.size()?;
        Ok(Redraw {
            status,
            painter: frame::Painter::new(Rect::new(0, 0, size.width, size.height)),
            views: frame::Views::default(),
            handled: 0,
            asked: None,
        })
    }

    /// An event was taken: the status may have changed.
    pub(super) fn seen(&mut self) {
        self.handled = self.handled.wrapping_add(1);
    }

    /// After a resize the terminal is cleared and the screen drawn again from state alone.
    pub(super) fn resized(
        &mut self,
        terminal: &mut ratatui::DefaultTerminal,
        w: u16,
        h: u16,
    ) -> std::io::Result<()> {
        terminal.clear()?;
        self.painter.cleared(Rect::new(0, 0, w, h));
        Ok(())
    }

    /// Bring the terminal to the board's screen at `now`. Returns how long nothing on it
    /// changes by itself, and the log's alarm (the status's) if any.
    pub(super) fn frame(
        &mut self,
        terminal: &mut ratatui::DefaultTerminal,
        b: &mut Board<'_, '_, '_>,
        now: Ms,
    ) -> std::io::Result<(Duration, Option<String>)> {
        let (session, ui) = (&*b.session, &mut b.ui);
        ui.restart_measured = session.restart_gap.map(|g| (g, session.restart_side));
        ui.restart_uncertainty = session.restart_uncertainty;
        refresh_score(ui, &session.game);
        if ui.frozen.is_none() {
            ui.frozen = session.frozen.clone();
        }
        let view = self.views.at(&session.game, now, LAST_MOVES);
        // The status is asked for again only when something it reports may have changed: an
        // entry, a key, the session frozen, or a change the storage's watch saw outside this
        // process (a countersignature), a camp's live witness come or gone; a storage with no
        // watch is asked at every frame.
        let asks = (
            session.storage.len(),
            session.storage.outside_changes(),
            self.handled,
            crate::record::live::server::changes(),
        );
        let st = match &self.asked {
            Some((k, frozen, st))
                if k.1.is_some()
                    && *k == asks
                    && frozen.as_deref() == session.frozen.as_deref() =>
            {
                st
            }
            _ => {
                let mut st = (self.status)(session);
                if st.last_entry.is_none() {
                    st.last_entry = b.last.clone();
                }
                &self.asked.insert((asks, session.frozen.clone(), st)).2
            }
        };
        let frozen = ui.frozen.is_some() || st.alarm.is_some();
        let latched = ui.latch(sticky_alarms(&ui.log.alarm_sources, session.restart_gap));
        if bell(ui, view, frozen) || latched {
            let mut out = std::io::stdout();
            out.write_all(b"\x07")?;
            out.flush()?;
        }
        let wait = wait_for(view, now);
        self.painter.paint(terminal.backend_mut(), view, ui, st)?;
        Ok((wait, st.alarm.clone()))
    }
}
