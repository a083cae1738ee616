//! Digests on several cores, memory still bounded by a small window.
//!
//! The caller's thread splits the array (reading each flat entry in the same pass) and copies
//! entries, with the places of the members the fast path reads, into batches (the batches of the
//! window share [`WINDOW_ENTRIES`] entries and [`WINDOW_BYTES`] bytes). Full batches go to worker
//! threads, which run the fast path ([`super::fast::prepare`]: UTF-8, member checks and both
//! digests) on each entry. The caller's thread takes finished batches back in the order it sent
//! them and runs every check that depends on order ([`super::Chain::entry`]: links, close
//! position, job consistency, findings order, the cap on findings) entry by entry; an entry the
//! fast path declined is read there by the strict reader, exactly as with one thread. So the
//! report does not depend on threads or batch boundaries, and memory not on the number of
//! entries: at most [`MAX_IN_FLIGHT`] batches in flight, plus the one being filled, exist at once,
//! each allocated once at full size.
//!
//! Batches wait in one queue, oldest first, which every worker takes from. The caller's thread
//! never waits while a batch it needs is still waiting: when the oldest batch is not ready, it
//! takes the oldest waiting one and prepares it itself, and it sleeps only when every batch
//! before its turn is in a worker's hands. It also prepares the oldest waiting batch whenever more
//! than [`HELP_AT`] per worker are waiting, so its time is split between splitting and preparing
//! as the load asks. (Handing batches to chosen workers over channels made it wait for the oldest
//! batch while it sat behind another in a worker's queue, with a core idle meanwhile: a quarter of
//! the second core was idle on two cores.) Waking a sleeping worker costs a system call on both
//! sides, so a batch queued signals only when a worker sleeps.
//!
//! The caller's thread counts as one of the threads asked for: with the default, one per
//! available core, two cores run the caller's thread and one worker. (Two workers besides it
//! made three threads share two cores, the splitting thread with two thirds of one.)
//!
//! An entry larger than a quarter of a batch's bytes is not copied: the batches before it are
//! finished and it is checked on the caller's thread straight from the splitter's buffer, so a
//! huge entry costs no more memory than it did before batching. A timeline shorter than one batch
//! never starts a thread.

use std::collections::VecDeque;
use std::mem;
use std::num::NonZeroUsize;
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::Scope;

use crate::digest::Revision;

use super::fast::{self, Picked, Prepared, Scratch};
use super::{Chain, EntrySink, TimelineOptions};

/// Entries in all the batches of the window together (each batch gets an equal share). The window
/// is [`WINDOW`] batches, so a batch holds about 140 entries: the hand-over cost (queueing, and
/// now and then waking a worker, a few microseconds) is negligible next to its work (about a
/// third of a microsecond per small entry).
const WINDOW_ENTRIES: usize = 1280;
/// Bytes of entries in all the batches of the window together. A fixed total, so the heap does
/// not depend on the number of cores: window, per-entry results and the splitter's buffer stay
/// under 1 MiB (the streaming-memory test holds it there).
const WINDOW_BYTES: usize = 384 * 1024;
/// The fewest entries a batch is made for by default.
const MIN_BATCH_ENTRIES: usize = 16;
/// The most entries per batch [`TimelineOptions::batch_entries`] may ask for (batches are
/// allocated at full size).
const MAX_BATCH_ENTRIES: usize = 4096;
/// Batches queued and not yet checked, whatever the number of workers: enough that the workers
/// always find one waiting while the caller's thread splits, and a fixed total keeps the batches
/// the same size, and memory the same, whatever the number of cores.
const MAX_IN_FLIGHT: usize = 8;
/// Batches in the window: those in flight and the one being filled.
const WINDOW: usize = MAX_IN_FLIGHT + 1;
/// More workers than this would wait on the caller's thread, which splits and copies every entry
/// and runs the ordered checks.
const MAX_WORKERS: usize = 8;
/// The caller's thread prepares the oldest waiting batch itself when more than this many per
/// worker are waiting: the workers stay busy meanwhile, and its own part (splitting, copying,
/// the ordered checks) is the smaller one.
const HELP_AT: usize = 2;

/// How many worker threads `options` asks for besides the caller's (`threads` counts the caller's
/// own; 0 is one per available core).
pub(super) fn worker_count(options: &TimelineOptions) -> usize {
    let threads = match options.threads {
        0 => std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
        n => n,
    };
    threads.saturating_sub(1).min(MAX_WORKERS)
}

/// Entries copied out of the splitter, with what the fast path has of each.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    /// One per entry, in order.
    slots: Vec<Slot>,
    /// The index of the first entry in the timeline.
    first_index: u64,
}

/// One entry of a batch.
struct Slot {
    /// Its end in the batch's bytes (it starts where the one before ends).
    end: usize,
    /// Its offset in the input.
    offset: u64,
    work: Work,
}

/// How far the fast path got with an entry.
enum Work {
    /// The flat reader did not read it, or the fast path declined it: the strict path's.
    Strict,
    /// Read by the flat reader while it was split; not yet through the fast path.
    Picked(Picked),
    /// Through the fast path (on a worker).
    Prepared(Prepared),
}

impl Batch {
    /// A batch whose buffers never grow: every batch of the window is allocated once, at full
    /// size, so peak memory is the same for a thousand entries as for a million.
    fn with_capacity(entries: usize, bytes: usize) -> Self {
        Batch {
            bytes: Vec::with_capacity(bytes),
            slots: Vec::with_capacity(entries),
            first_index: 0,
        }
    }

    /// Copies an entry in, with the places of the members the fast path reads.
    fn push(&mut self, bytes: &[u8], offset: u64, picked: Option<&Picked>) {
        self.bytes.extend_from_slice(bytes);
        let work = picked.map_or(Work::Strict, |&picked| Work::Picked(picked));
        self.slots.push(Slot {
            end: self.bytes.len(),
            offset,
            work,
        });
    }

    /// Each entry's bytes and slot, in order.
    fn entries(&self) -> impl Iterator<Item = (&[u8], &Slot)> + '_ {
        let starts = std::iter::once(0).chain(self.slots.iter().map(|slot| slot.end));
        starts
            .zip(&self.slots)
            .map(|(start, slot)| (self.bytes.get(start..slot.end).unwrap_or(&[]), slot))
    }

    /// The worker's part: the fast path on every entry the flat reader read.
    fn prepare_all(&mut self, revision: Revision, scratch: &mut Scratch) {
        let mut start = 0;
        for (index, slot) in (self.first_index..).zip(&mut self.slots) {
            let bytes = self.bytes.get(start..slot.end).unwrap_or(&[]);
            start = slot.end;
            if let Work::Picked(picked) = &slot.work {
                slot.work = match fast::prepare(bytes, picked, index, revision, scratch) {
                    Some(prepared) => Work::Prepared(prepared),
                    None => Work::Strict,
                };
            }
        }
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.slots.clear();
    }
}

/// What the workers and the caller's thread share: batches waiting for a worker, oldest first.
struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when a batch is queued for a sleeping worker, or when the window closes.
    ready: Condvar,
}

struct Queue {
    /// Batches not yet taken up, with their sequence numbers, oldest first.
    waiting: VecDeque<(u64, Batch)>,
    /// Workers asleep on [`Shared::ready`] (only then does queueing signal: waking costs a system
    /// call, signalling nobody should not).
    asleep: usize,
    /// No more batches will come: workers leave when the queue is empty.
    closed: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        // A worker never panics while holding the lock (it holds it only to queue and take).
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A batch a worker has prepared, with its sequence number; `None` in place of the batch when
/// the worker is unwinding from a panic (so that the caller's thread does not wait for it).
type Finished = (u64, Option<Batch>);

/// Tells the caller's thread that its worker is gone, if it unwinds.
struct PanicNotice(Sender<Finished>);

impl Drop for PanicNotice {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let _ = self.0.send((u64::MAX, None));
        }
    }
}

/// The batching sink (see the module documentation).
pub(super) struct Batches<'scope, 'env> {
    scope: &'scope Scope<'scope, 'env>,
    revision: Revision,
    /// Worker threads asked for, then started.
    threads: usize,
    batch_entries: usize,
    /// Bytes per batch: a batch is sent before an entry would take it past this.
    batch_bytes: usize,
    /// Entries larger than this skip the batches (see the module documentation).
    inline_bytes: usize,
    /// Whether starting the workers was tried.
    spawned: bool,
    shared: Arc<Shared>,
    /// Batches the workers finished; `None` until the workers are started.
    finished_rx: Option<Receiver<Finished>>,
    /// A worker died (only a panic does that; `thread::scope` re-raises it when it ends): from
    /// then on batches are checked here.
    broken: bool,
    /// The sequence number of the oldest batch not yet checked, and of the next batch queued.
    oldest: u64,
    next_seq: u64,
    /// One place per batch in flight, oldest first: the batch once prepared (by a worker or
    /// here), `None` while it waits or is being prepared.
    in_flight: VecDeque<Option<Batch>>,
    /// Buffers for batches prepared on the caller's thread.
    scratch: Scratch,
    filling: Batch,
    /// Batches taken back, kept for their buffers.
    spare: Vec<Batch>,
    /// Index of the next entry handed to the sink.
    next_index: u64,
}

impl<'scope, 'env> Batches<'scope, 'env> {
    pub(super) fn new(
        scope: &'scope Scope<'scope, 'env>,
        options: &TimelineOptions,
        workers: usize,
    ) -> Self {
        let threads = workers.clamp(1, MAX_WORKERS);
        let batch_entries = match options.batch_entries {
            0 => (WINDOW_ENTRIES / WINDOW).max(MIN_BATCH_ENTRIES),
            n => n.min(MAX_BATCH_ENTRIES),
        };
        let batch_bytes = WINDOW_BYTES / WINDOW;
        Batches {
            scope,
            revision: options.revision,
            threads,
            batch_entries,
            batch_bytes,
            inline_bytes: batch_bytes / 4,
            spawned: false,
            shared: Arc::new(Shared {
                queue: Mutex::new(Queue {
                    waiting: VecDeque::new(),
                    asleep: 0,
                    closed: false,
                }),
                ready: Condvar::new(),
            }),
            finished_rx: None,
            broken: false,
            oldest: 0,
            next_seq: 0,
            in_flight: VecDeque::new(),
            scratch: Scratch::default(),
            filling: Batch::with_capacity(batch_entries, batch_bytes),
            spare: Vec::new(),
            next_index: 0,
        }
    }

    /// Starts the workers. A thread the system refuses is done without; with none at all,
    /// batches are checked on the caller's thread.
    fn spawn_workers(&mut self) {
        self.spawned = true;
        let (finished_tx, finished_rx) = channel::<Finished>();
        let mut started = 0;
        for _ in 0..self.threads {
            let shared = Arc::clone(&self.shared);
            let finished = finished_tx.clone();
            let revision = self.revision;
            let spawned = std::thread::Builder::new().spawn_scoped(self.scope, move || {
                let _notice = PanicNotice(finished.clone());
                let mut scratch = Scratch::default();
                while let Some((seq, mut batch)) = next_job(&shared) {
                    batch.prepare_all(revision, &mut scratch);
                    if finished.send((seq, Some(batch))).is_err() {
                        break; // the caller stopped reading (an I/O error): nothing to do
                    }
                }
            });
            if spawned.is_err() {
                break;
            }
            started += 1;
        }
        self.threads = started;
        if started > 0 {
            self.finished_rx = Some(finished_rx);
        }
        // With the batch being filled, the window's batches: allocated once, reused throughout.
        while self.spare.len() + 1 < WINDOW {
            let batch = Batch::with_capacity(self.batch_entries, self.batch_bytes);
            self.spare.push(batch);
        }
    }

    /// Queues the batch being filled for the workers (see the module documentation), first
    /// checking the oldest batches while the window is full. When every worker already has a
    /// batch waiting, this thread prepares the oldest waiting batch itself meanwhile.
    fn submit(&mut self, chain: &mut Chain<'_>) {
        if self.filling.slots.is_empty() {
            return;
        }
        if !self.spawned {
            self.spawn_workers();
        }
        if self.finished_rx.is_none() || self.broken {
            let mut batch = mem::take(&mut self.filling);
            self.check_here(chain, &mut batch);
            self.filling = batch;
            return;
        }
        while self.in_flight.len() >= MAX_IN_FLIGHT {
            self.complete_oldest(chain);
        }
        if self.broken {
            return self.submit(chain);
        }
        let (entries, bytes) = (self.batch_entries, self.batch_bytes);
        let fresh = self
            .spare
            .pop()
            .unwrap_or_else(|| Batch::with_capacity(entries, bytes));
        let batch = mem::replace(&mut self.filling, fresh);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.in_flight.push_back(None);
        let help = {
            let mut queue = self.shared.lock();
            queue.waiting.push_back((seq, batch));
            if queue.asleep > 0 {
                self.shared.ready.notify_one();
            }
            if queue.waiting.len() > self.threads * HELP_AT {
                queue.waiting.pop_front()
            } else {
                None
            }
        };
        if let Some((seq, batch)) = help {
            self.prepare_here(seq, batch);
        }
    }

    /// Prepares batch `seq` on this thread and keeps it for its turn.
    fn prepare_here(&mut self, seq: u64, mut batch: Batch) {
        batch.prepare_all(self.revision, &mut self.scratch);
        self.store(seq, batch);
    }

    /// Keeps a prepared batch in its place in the window.
    fn store(&mut self, seq: u64, batch: Batch) {
        let place = seq
            .checked_sub(self.oldest)
            .and_then(|k| usize::try_from(k).ok())
            .and_then(|k| self.in_flight.get_mut(k));
        if let Some(place) = place {
            *place = Some(batch);
        }
    }

    /// Takes back the oldest batch and checks its entries in order. While it is not ready, this
    /// thread prepares the oldest batch still waiting for a worker (the one needed first), and
    /// sleeps only when every batch before its turn is being prepared by a worker.
    fn complete_oldest(&mut self, chain: &mut Chain<'_>) {
        loop {
            match self.in_flight.front() {
                None => return,
                Some(Some(_)) => {
                    if let Some(Some(batch)) = self.in_flight.pop_front() {
                        self.oldest += 1;
                        self.check_prepared(chain, batch);
                    }
                    return;
                }
                Some(None) => {}
            }
            let Some(finished_rx) = &self.finished_rx else {
                return;
            };
            let finished = match finished_rx.try_recv() {
                Ok(finished) => Some(finished),
                Err(TryRecvError::Empty) => None,
                Err(TryRecvError::Disconnected) => Some((u64::MAX, None)),
            };
            if let Some(finished) = finished {
                self.take_finished(finished);
                continue;
            }
            let waiting = self.shared.lock().waiting.pop_front();
            if let Some((seq, batch)) = waiting {
                self.prepare_here(seq, batch);
                continue;
            }
            let finished = finished_rx.recv().unwrap_or((u64::MAX, None));
            self.take_finished(finished);
        }
        // (`broken` ends the loop through `take_finished` emptying the window.)
    }

    /// Keeps a batch a worker finished; a worker's death empties the window (see `broken`).
    fn take_finished(&mut self, (seq, batch): Finished) {
        match batch {
            Some(batch) => self.store(seq, batch),
            None => {
                self.broken = true;
                self.in_flight.clear();
                self.oldest = self.next_seq;
            }
        }
    }

    /// Checks the entries of a batch prepared by a worker or here, in order, and keeps the batch
    /// for reuse.
    fn check_prepared(&mut self, chain: &mut Chain<'_>, mut batch: Batch) {
        for (bytes, slot) in batch.entries() {
            let prepared = match &slot.work {
                Work::Prepared(prepared) => Some(prepared),
                Work::Strict | Work::Picked(_) => None,
            };
            chain.entry(bytes, slot.offset, prepared, None);
        }
        batch.clear();
        self.recycle(batch);
    }

    /// Checks a batch's entries on this thread (fast path included) and empties it.
    fn check_here(&mut self, chain: &mut Chain<'_>, batch: &mut Batch) {
        for (bytes, slot) in batch.entries() {
            let picked = match &slot.work {
                Work::Picked(picked) => Some(picked),
                Work::Strict | Work::Prepared(_) => None,
            };
            chain.entry_here(bytes, slot.offset, picked, None);
        }
        batch.clear();
    }

    fn recycle(&mut self, batch: Batch) {
        if self.spare.len() + 1 < WINDOW {
            self.spare.push(batch);
        }
    }

    /// Takes back every batch queued, in order.
    fn drain(&mut self, chain: &mut Chain<'_>) {
        while !self.in_flight.is_empty() {
            self.complete_oldest(chain);
        }
    }
}

/// A worker's next batch, sleeping while there is none; `None` once the window is closed and
/// nothing is left.
fn next_job(shared: &Shared) -> Option<(u64, Batch)> {
    let mut queue = shared.lock();
    loop {
        if let Some(job) = queue.waiting.pop_front() {
            return Some(job);
        }
        if queue.closed {
            return None;
        }
        queue.asleep += 1;
        queue = shared
            .ready
            .wait(queue)
            .unwrap_or_else(PoisonError::into_inner);
        queue.asleep -= 1;
    }
}

impl Drop for Batches<'_, '_> {
    /// Closes the window, so that the workers leave and `thread::scope` can end.
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.ready.notify_all();
    }
}

impl EntrySink for Batches<'_, '_> {
    fn entry(&mut self, chain: &mut Chain<'_>, bytes: &[u8], offset: u64, picked: Option<&Picked>) {
        if bytes.len() > self.inline_bytes {
            self.flush(chain);
            chain.entry_here(bytes, offset, picked, None);
            self.next_index = self.next_index.saturating_add(1);
            return;
        }
        if self.filling.bytes.len().saturating_add(bytes.len()) > self.batch_bytes {
            self.submit(chain);
        }
        if self.filling.slots.is_empty() {
            self.filling.first_index = self.next_index;
        }
        self.filling.push(bytes, offset, picked);
        self.next_index = self.next_index.saturating_add(1);
        if self.filling.slots.len() >= self.batch_entries {
            self.submit(chain);
        }
    }

    fn flush(&mut self, chain: &mut Chain<'_>) {
        if self.finished_rx.is_none() {
            // Fewer entries than one batch so far: not worth a thread.
            let mut batch = mem::take(&mut self.filling);
            self.check_here(chain, &mut batch);
            self.filling = batch;
        } else {
            self.submit(chain);
        }
        self.drain(chain);
    }
}
