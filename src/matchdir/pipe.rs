//! Issue 21: the replay of a game on a thread of its own, beside the thread that reads the log
//! and joins its checked blocks. The joining thread hands each line's event (decoded on the
//! checking threads) over in batches and goes on reading; the replay thread applies them to the
//! game and folds them (the times, the Board UI's move list) in log order. Replaying on the
//! joining thread put the reading, the joining and the replay on one core, and a 1,000,000-entry
//! `pgn` or `play` open waited for it alone (about 0.6 s of a 1 s run) while the checking threads
//! waited for it.
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};

use crate::journal::Decoded;

/// What the joining thread hands the replay thread, in log order.
pub(crate) enum Item {
    /// Entry `seq`'s event, or why it is not an event of this kit.
    Line(u64, Decoded),
    /// Forget every event handed so far: they come again from the first (the log is read again).
    Restart,
}

/// Items per batch: a channel send per batch, not per entry.
const BATCH: usize = 256;
/// Batches handed over but not yet replayed. Bounded, so the events in flight (and the memory
/// they hold) stay a few thousand whatever the log's length.
const QUEUE: usize = 8;

/// What takes each item: the item, and where to put what it is done with (dropped on the
/// joining thread).
pub(crate) type Consume<'c> = dyn FnMut(Item, &mut Vec<Item>) + 'c;

/// The joining thread's end of the pipeline.
pub(crate) struct Feed<'c> {
    /// The consumer itself, when it runs on this thread ([`inline`]).
    direct: Option<&'c mut Consume<'c>>,
    tx: Option<SyncSender<Vec<Item>>>,
    /// Batches the replay thread is done with, to be filled again (no buffer made per batch).
    back: Receiver<Vec<Item>>,
    batch: Vec<Item>,
}

impl Feed<'_> {
    /// Hand `item` over (in a batch, sent when full).
    pub(crate) fn push(&mut self, item: Item) {
        if let Some(consume) = self.direct.as_mut() {
            consume(item, &mut self.batch);
            self.batch.clear();
            return;
        }
        self.batch.push(item);
        if self.batch.len() >= BATCH {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        // A batch back from the replay thread brings what it is done with (the events it kept
        // before): dropped here, off the replay's thread.
        let next = match self.back.try_recv() {
            Ok(mut b) => {
                b.clear();
                b
            }
            Err(_) => Vec::with_capacity(BATCH),
        };
        let full = std::mem::replace(&mut self.batch, next);
        // The replay thread is gone only after a panic, which its join hands on: the items
        // are dropped meanwhile.
        if let Some(tx) = &self.tx
            && tx.send(full).is_err()
        {
            self.tx = None;
        }
    }
}

/// Run `produce` on this thread and `consume` on a thread of its own, `consume` taking every
/// item `produce` pushes into its [`Feed`], in order; returns once both are done (every item
/// consumed). What `consume` puts into its second argument (items it is done with) is dropped on
/// this thread. A panic of either is handed on.
pub(crate) fn pipelined<T>(
    consume: &mut (dyn FnMut(Item, &mut Vec<Item>) + Send),
    produce: impl FnOnce(&mut Feed) -> T,
) -> T {
    let (tx, rx) = sync_channel::<Vec<Item>>(QUEUE);
    let (back_tx, back_rx) = channel::<Vec<Item>>();
    std::thread::scope(|s| {
        let worker = s.spawn(move || {
            let mut done = Vec::new();
            for mut batch in rx {
                for item in batch.drain(..) {
                    consume(item, &mut done);
                }
                std::mem::swap(&mut batch, &mut done);
                // The joining thread may have gone on without it (nothing lost).
                let _ = back_tx.send(batch);
            }
        });
        let mut feed = Feed {
            direct: None,
            tx: Some(tx),
            back: back_rx,
            batch: Vec::with_capacity(BATCH),
        };
        let out = produce(&mut feed);
        feed.flush();
        drop(feed);
        if let Err(p) = worker.join() {
            std::panic::resume_unwind(p);
        }
        out
    })
}

/// [`pipelined`] with `consume` run on this thread, as each item is pushed (for a consumer that
/// is not `Send`, or must see each item while `produce` runs).
pub(crate) fn inline<'c, T>(
    consume: &'c mut Consume<'c>,
    produce: impl FnOnce(&mut Feed<'c>) -> T,
) -> T {
    let (_, back) = channel();
    let mut feed = Feed {
        direct: Some(consume),
        tx: None,
        back,
        batch: Vec::new(),
    };
    produce(&mut feed)
}
