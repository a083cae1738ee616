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
//! Handing a batch to a sleeping thread costs a system call and a switch on both sides, so a batch
//! goes preferably to a worker that is busy with one batch and has none waiting (it takes the new
//! one up without sleeping), then to an idle one. When every worker has a batch waiting besides
//! the one it works on ([`HELP_AT`]), the caller's thread prepares the batch itself: its own part
//! is the smaller one, and the time it would otherwise spend waiting for a worker is used.
//!
//! An entry larger than a quarter of a batch's bytes is not copied: the batches before it are
//! finished and it is checked on the caller's thread straight from the splitter's buffer, so a
//! huge entry costs no more memory than it did before batching. A timeline shorter than one batch
//! never starts a thread.

use std::collections::VecDeque;
use std::mem;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::Scope;

use crate::digest::Revision;

use super::fast::{self, Picked, Prepared, Scratch};
use super::{Chain, EntrySink, TimelineOptions};

/// Entries in all the batches of the window together (each batch gets an equal share). The window
/// is at most nine batches ([`MAX_IN_FLIGHT`] and the one being filled), so a batch holds at
/// least about 140 entries: the hand-over cost (a channel send and receive, a few microseconds) is
/// negligible next to its work (about a microsecond per small entry).
const WINDOW_ENTRIES: usize = 1280;
/// Bytes of entries in all the batches of the window together. A fixed total, so the heap does
/// not depend on the number of cores: window, per-entry results and the splitter's buffer stay
/// under 1 MiB (the streaming-memory test holds it there).
const WINDOW_BYTES: usize = 384 * 1024;
/// The fewest entries a batch is made for by default, however many workers share the window.
const MIN_BATCH_ENTRIES: usize = 16;
/// The most entries per batch [`TimelineOptions::batch_entries`] may ask for (batches are
/// allocated at full size).
const MAX_BATCH_ENTRIES: usize = 4096;
/// Batches sent to workers and not yet taken back, all workers together (each worker gets an
/// equal share, at least one). With two workers, one batch being worked on and three waiting
/// each: the caller's thread shares the cores with the workers, and the slack keeps them busy
/// while it is not running (measured a little faster than two per worker on two cores). A fixed
/// total keeps the batches the same size, and memory the same, whatever the number of cores.
const MAX_IN_FLIGHT: usize = 8;
/// More workers than this would wait on the caller's thread, which splits and copies every entry
/// and runs the ordered checks.
const MAX_WORKERS: usize = 8;
/// A batch is prepared on the caller's thread when every worker has this many unfinished (one
/// being worked on, one waiting), so that the workers stay busy while it does.
const HELP_AT: usize = 2;

/// How many digesting threads `options` asks for (0: one per available core).
pub(super) fn worker_count(options: &TimelineOptions) -> usize {
    match options.threads {
        0 => std::thread::available_parallelism()
            .map_or(1, NonZeroUsize::get)
            .min(MAX_WORKERS),
        n => n.min(MAX_WORKERS),
    }
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

/// One worker thread's two channels.
struct Worker {
    jobs: SyncSender<Batch>,
    done: Receiver<Batch>,
    /// Batches sent to it and not yet taken back.
    outstanding: usize,
    /// Batches sent to it.
    sent: usize,
    /// Batches it has finished (counted by the worker).
    finished: Arc<AtomicUsize>,
}

impl Worker {
    /// Batches sent to it that it has not finished: the one it works on and those waiting.
    fn unfinished(&self) -> usize {
        self.sent
            .saturating_sub(self.finished.load(Ordering::Acquire))
    }
}

/// A batch of the window, in order.
enum InFlight {
    /// With a worker (its index).
    Sent(usize),
    /// Prepared on the caller's thread, waiting for its turn.
    Here(Batch),
}

/// The batching sink (see the module documentation).
pub(super) struct Batches<'scope, 'env> {
    scope: &'scope Scope<'scope, 'env>,
    revision: Revision,
    threads: usize,
    /// Batches in flight per worker.
    per_worker: usize,
    batch_entries: usize,
    /// Bytes per batch: a batch is sent before an entry would take it past this.
    batch_bytes: usize,
    /// Entries larger than this skip the batches (see the module documentation).
    inline_bytes: usize,
    /// Started with the first full batch.
    workers: Vec<Worker>,
    /// Whether starting the workers was tried.
    spawned: bool,
    next_worker: usize,
    /// Every batch sent or prepared here and not yet checked, oldest first.
    in_flight: VecDeque<InFlight>,
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
        threads: usize,
    ) -> Self {
        let threads = threads.clamp(1, MAX_WORKERS);
        let per_worker = (MAX_IN_FLIGHT / threads).max(1);
        let window = threads * per_worker + 1;
        let batch_entries = match options.batch_entries {
            0 => (WINDOW_ENTRIES / window).max(MIN_BATCH_ENTRIES),
            n => n.min(MAX_BATCH_ENTRIES),
        };
        let batch_bytes = WINDOW_BYTES / window;
        Batches {
            scope,
            revision: options.revision,
            threads,
            per_worker,
            batch_entries,
            batch_bytes,
            inline_bytes: batch_bytes / 4,
            workers: Vec::new(),
            spawned: false,
            next_worker: 0,
            in_flight: VecDeque::new(),
            scratch: Scratch::default(),
            filling: Batch::with_capacity(batch_entries, batch_bytes),
            spare: Vec::new(),
            next_index: 0,
        }
    }

    /// Batches in the window: those in flight and the one being filled.
    fn window(&self) -> usize {
        self.threads * self.per_worker + 1
    }

    /// Starts the workers. A thread the system refuses is done without (the window shrinks with
    /// the workers); with none at all, batches are checked on the caller's thread.
    fn spawn_workers(&mut self) {
        self.spawned = true;
        for _ in 0..self.threads {
            // Sends never block: the caller keeps at most `per_worker` batches per worker.
            let (jobs, jobs_rx) = sync_channel::<Batch>(self.per_worker);
            let (done_tx, done) = sync_channel::<Batch>(self.per_worker);
            let revision = self.revision;
            let finished = Arc::new(AtomicUsize::new(0));
            let counter = Arc::clone(&finished);
            let started = std::thread::Builder::new().spawn_scoped(self.scope, move || {
                let mut scratch = Scratch::default();
                for mut batch in jobs_rx {
                    batch.prepare_all(revision, &mut scratch);
                    counter.fetch_add(1, Ordering::Release);
                    if done_tx.send(batch).is_err() {
                        break; // the caller stopped reading (an I/O error): nothing to do
                    }
                }
            });
            if started.is_err() {
                break;
            }
            self.workers.push(Worker {
                jobs,
                done,
                outstanding: 0,
                sent: 0,
                finished,
            });
        }
        self.threads = self.workers.len().max(1);
        while self.spare.len() + 1 < self.window() {
            let batch = Batch::with_capacity(self.batch_entries, self.batch_bytes);
            self.spare.push(batch);
        }
    }

    /// Hands the batch being filled to a worker ([`Self::choose_worker`]) or prepares it here
    /// (see the module documentation), first taking back the oldest batches while the window is
    /// full.
    fn submit(&mut self, chain: &mut Chain<'_>) {
        if self.filling.slots.is_empty() {
            return;
        }
        if !self.spawned {
            self.spawn_workers();
        }
        if self.workers.is_empty() {
            let mut batch = mem::take(&mut self.filling);
            self.check_here(chain, &mut batch);
            self.filling = batch;
            return;
        }
        while self.in_flight.len() >= self.workers.len() * self.per_worker {
            self.complete_oldest(chain);
        }
        let (entries, bytes) = (self.batch_entries, self.batch_bytes);
        let fresh = self
            .spare
            .pop()
            .unwrap_or_else(|| Batch::with_capacity(entries, bytes));
        let mut batch = mem::replace(&mut self.filling, fresh);
        let w = self.choose_worker();
        if self.workers[w].unfinished() >= HELP_AT {
            batch.prepare_all(self.revision, &mut self.scratch);
            self.in_flight.push_back(InFlight::Here(batch));
            return;
        }
        match self.workers[w].jobs.send(batch) {
            Ok(()) => {
                self.workers[w].outstanding += 1;
                self.workers[w].sent += 1;
                self.in_flight.push_back(InFlight::Sent(w));
            }
            // The worker is gone, which only a panic in it can cause; `thread::scope` re-raises
            // that panic when it ends, so no report is returned either way. Checking the batch
            // here keeps this thread's work consistent until then.
            Err(returned) => {
                let mut batch = returned.0;
                self.drain(chain);
                self.check_here(chain, &mut batch);
                self.recycle(batch);
            }
        }
    }

    /// The worker to send the next batch to, among those with room for one more: one that is
    /// working and has nothing waiting (it takes the batch up when it is done, with no need to
    /// be woken: waking a sleeping thread is a system call and a switch on both sides), else an
    /// idle one, else the one with the fewest unfinished (the next in turn among equals).
    fn choose_worker(&mut self) -> usize {
        let n = self.workers.len();
        let per_worker = self.per_worker;
        let rank = |unfinished: usize| match unfinished {
            1 => 0,
            0 => 1,
            more => more,
        };
        let w = (0..n)
            .map(|k| (self.next_worker + k) % n)
            .filter(|&w| self.workers[w].outstanding < per_worker)
            .min_by_key(|&w| rank(self.workers[w].unfinished()))
            .unwrap_or(self.next_worker % n);
        self.next_worker = (w + 1) % n;
        w
    }

    /// Takes back the oldest batch and checks its entries in order.
    fn complete_oldest(&mut self, chain: &mut Chain<'_>) {
        let mut batch = match self.in_flight.pop_front() {
            None => return,
            Some(InFlight::Here(batch)) => batch,
            Some(InFlight::Sent(w)) => {
                self.workers[w].outstanding -= 1;
                // A failed receive means the worker panicked: `thread::scope` re-raises it (see
                // `submit`).
                let Ok(batch) = self.workers[w].done.recv() else {
                    return;
                };
                batch
            }
        };
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
        if self.spare.len() + 1 < self.window() {
            self.spare.push(batch);
        }
    }

    /// Takes back every batch sent, in order.
    fn drain(&mut self, chain: &mut Chain<'_>) {
        while !self.in_flight.is_empty() {
            self.complete_oldest(chain);
        }
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
        if self.workers.is_empty() {
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
