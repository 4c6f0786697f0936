//! The replay of a game on a thread of its own, beside the thread that reads the log
//! and joins its checked blocks. The joining thread hands each joined block's events (decoded on
//! the checking threads) over whole, by value, and goes on reading; the replay thread applies
//! them to the game and folds them (the times, the Board UI's move list) in log order. Replaying
//! on the joining thread put the reading, the joining and the replay on one core, and a
//! 1,000,000-entry `pgn` or `play` open waited for it alone (about 0.6 s of a 1 s run) while the
//! checking threads waited for it; handing each event over one by one cost the joining thread a
//! reference count per event, taken on memory another core had just written.
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};

use crate::record::journal::Decoded;

/// What the joining thread hands the replay thread one by one, in log order: the lines that did
/// not come in a checked block (a log read entry by entry).
pub(crate) enum Item {
    /// Entry `seq`'s event, or why it is not an event of this kit.
    Line(u64, Decoded),
    /// Forget every event handed so far: they come again from the first (the log is read again).
    Restart,
}

/// What the replay thread takes, in log order: entry `seq`'s event, or a new start.
pub(crate) enum Step<'a> {
    Line(u64, &'a Decoded),
    /// Entry `seq`'s event in a joined block ([`pipelined`]), which stays in its block until
    /// `hold` later events of blocks were taken, and among the [`Step::Kept`] blocks when it is
    /// one of the latest `hold`: a consumer that keeps the latest events need not hold a
    /// reference of its own to each (a reference count taken on each of 1,000,000
    /// events and given back 2,000 events later, on memory long gone cold, was a twentieth of
    /// a `play` open's time).
    Held(u64, &'a Decoded),
    Restart,
    /// The end ([`pipelined`] only): the blocks still held, oldest first. Their events are the
    /// latest [`Step::Held`] ones (at least `hold` of them, when as many came), in order.
    Kept(&'a std::collections::VecDeque<Vec<Decoded>>),
}

/// What goes over to the replay thread: a joined block's events (one for each of its lines, the
/// entries after the last one handed), or items.
enum Msg {
    Block(Vec<Decoded>),
    Items(Vec<Item>),
}

/// Items per batch: a channel send per batch, not per entry.
const BATCH: usize = 128;
/// Messages handed over but not yet replayed. Bounded, so the events in flight (and the memory
/// they hold) stay a few blocks whatever the log's length: the joining thread waits for the
/// replay, and the checking threads for the joining thread. Eight blocks (about 2 MB of events)
/// rather than two: with two, the joining thread waited for the replay often enough to leave a
/// core idle (pgn at 1,000,000 entries 0.565 -> 0.55 s wall, medians of 6 quiet rounds).
const QUEUE: usize = 8;

/// What takes each step, in log order.
pub(crate) type Consume<'c> = dyn FnMut(Step<'_>) + 'c;

/// The joining thread's end of the pipeline.
pub(crate) struct Feed<'c> {
    /// The consumer itself, when it runs on this thread ([`inline`]).
    direct: Option<&'c mut Consume<'c>>,
    /// Items not yet sent, shared with the hand-over of the blocks (which sends them first: the
    /// order of the log is kept).
    pending: Rc<Pending>,
}

/// The sending side of [`pipelined`], on the joining thread.
struct Pending {
    tx: SyncSender<Msg>,
    batch: RefCell<Vec<Item>>,
    /// Batches the replay thread is done with, to be filled again (no buffer made per batch;
    /// their items are dropped here, off the replay's thread).
    back: Receiver<Vec<Item>>,
}

impl Pending {
    fn flush(&self) {
        let mut batch = self.batch.borrow_mut();
        if batch.is_empty() {
            return;
        }
        let next = match self.back.try_recv() {
            Ok(mut b) => {
                b.clear();
                b
            }
            Err(_) => Vec::with_capacity(BATCH),
        };
        let full = std::mem::replace(&mut *batch, next);
        // The replay thread is gone only after a panic, which its join hands on: the items are
        // dropped meanwhile.
        let _ = self.tx.send(Msg::Items(full));
    }

    fn block(&self, events: Vec<Decoded>) {
        self.flush();
        let _ = self.tx.send(Msg::Block(events));
    }
}

impl Feed<'_> {
    /// Hand `item` over (in a batch, sent when full, or before the next block).
    pub(crate) fn push(&mut self, item: Item) {
        if let Some(consume) = self.direct.as_mut() {
            consume(match &item {
                Item::Line(seq, d) => Step::Line(*seq, d),
                Item::Restart => Step::Restart,
            });
            return;
        }
        let full = {
            let mut batch = self.pending.batch.borrow_mut();
            batch.push(item);
            batch.len() >= BATCH
        };
        if full {
            self.pending.flush();
        }
    }
}

/// Run `produce` on this thread and `consume` on a thread of its own, `consume` taking every
/// event of the blocks that the streamed passes `produce` makes hand over
/// ([`crate::record::journal::with_events_handed_to`]) and every item `produce` pushes into its
/// [`Feed`], in order; returns once both are done. A
/// block's events are sent back to the checking threads (to be written over) once `hold` later
/// events were taken: what `consume` keeps of the latest `hold` events is still theirs then (no
/// event freed on another thread than the one that made it). A panic of either is handed on.
pub(crate) fn pipelined<T>(
    consume: &mut (dyn FnMut(Step<'_>) + Send),
    hold: usize,
    produce: impl FnOnce(&mut Feed) -> T,
) -> T {
    let (tx, rx) = sync_channel::<Msg>(QUEUE);
    let (back_tx, back_rx) = channel::<Vec<Item>>();
    let (seen_tx, seen_rx) = channel::<Vec<Decoded>>();
    std::thread::scope(|s| {
        let worker = s.spawn(move || {
            let mut held: std::collections::VecDeque<Vec<Decoded>> = Default::default();
            let (mut in_hand, mut next) = (0usize, 0u64);
            for msg in rx {
                match msg {
                    Msg::Block(events) => {
                        for d in &events {
                            consume(Step::Held(next, d));
                            next += 1;
                        }
                        in_hand += events.len();
                        held.push_back(events);
                        while held.front().is_some_and(|b| in_hand - b.len() >= hold) {
                            if let Some(b) = held.pop_front() {
                                in_hand -= b.len();
                                // The pass may be over (nothing lost: dropped here).
                                let _ = seen_tx.send(b);
                            }
                        }
                    }
                    Msg::Items(mut items) => {
                        for item in &items {
                            match item {
                                Item::Line(seq, d) => consume(Step::Line(*seq, d)),
                                Item::Restart => {
                                    next = 0;
                                    consume(Step::Restart);
                                }
                            }
                        }
                        items.clear();
                        let _ = back_tx.send(items);
                    }
                }
            }
            consume(Step::Kept(&held));
        });
        let pending = Rc::new(Pending {
            tx,
            batch: RefCell::new(Vec::with_capacity(BATCH)),
            back: back_rx,
        });
        let to = Rc::clone(&pending);
        let out = crate::record::journal::with_events_handed_to(
            Rc::new(move |events| to.block(events)),
            seen_rx,
            || {
                let mut feed = Feed {
                    direct: None,
                    pending: Rc::clone(&pending),
                };
                produce(&mut feed)
            },
        );
        pending.flush();
        drop(pending);
        if let Err(p) = worker.join() {
            std::panic::resume_unwind(p);
        }
        out
    })
}

/// [`pipelined`] with `consume` run on this thread, as each item is pushed (for a consumer that
/// is not `Send`, or must see each item while `produce` runs): nothing comes in blocks.
pub(crate) fn inline<'c, T>(
    consume: &'c mut Consume<'c>,
    produce: impl FnOnce(&mut Feed<'c>) -> T,
) -> T {
    let (tx, _) = sync_channel(0);
    let (_, back) = channel();
    let mut feed = Feed {
        direct: Some(consume),
        pending: Rc::new(Pending {
            tx,
            batch: RefCell::new(Vec::new()),
            back,
        }),
    };
    produce(&mut feed)
}
