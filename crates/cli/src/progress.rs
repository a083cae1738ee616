//! What a run tells its user on standard error: its progress as it goes (a bar on a terminal,
//! a line every few seconds elsewhere) and, at the end, how it went (a broken wrapper with the
//! smoke check's diagnosis, restarts, an early stop, interruption not watched).

use std::time::Duration;

use agentconf_harness::Finished;

use crate::commands::to_stderr;

/// `go` with a progress bar (or progress lines) for `cases` cases.
pub fn with_progress<T>(cases: usize, go: impl FnOnce(&(dyn Fn(usize, usize) + Sync)) -> T) -> T {
    let progress = Progress::start(cases);
    let on_progress = |done: usize, unexpected: usize| progress.update(done, unexpected);
    let out = go(&on_progress);
    progress.finish();
    out
}

/// What the user should hear about how a run went, on standard error.
pub fn report_notes(finished: &Finished) {
    let notes = finished.notes;
    if let Some(e) = &finished.unwatched {
        to_stderr(&format!("agentconf: cannot watch for interruption: {e}\n"));
    }
    if let Some(diagnosis) = &finished.diagnosis {
        to_stderr(&format!(
            "agentconf: the first {} cases all ended the same way, so the run stopped there \
             (give --keep-going to run every case). The smoke check says what is wrong:\n\n{}\n",
            agentconf_harness::smoke::IDENTICAL_CRASHES,
            diagnosis
        ));
    }
    if notes.restarts > 0 {
        to_stderr(&format!(
            "agentconf: the persistent implementation was restarted {} times (after crashes, \
             hangs or protocol errors, or because it exited between requests)\n",
            notes.restarts
        ));
    }
    if notes.stopped_early && !notes.broken_wrapper {
        to_stderr("agentconf: stopped early (--fail-fast / --max-fail); the results file lists the vectors that ran\n");
    }
}

/// How often a run says how far it is when standard error is not a terminal (a CI log, a file):
/// often enough that a slow implementation never looks like a hung harness.
const PROGRESS_INTERVAL: Duration = Duration::from_secs(10);

/// The environment variable that sets another interval, in whole seconds (at least 1).
const PROGRESS_INTERVAL_VARIABLE: &str = "AGENTCONF_PROGRESS_INTERVAL";

/// A run's progress on standard error: a bar on a terminal, redrawn every second with the time
/// elapsed; elsewhere one plain line every [`PROGRESS_INTERVAL`] (cases done, unexpected so far,
/// time elapsed) from a thread of its own, so that a case that takes minutes still gets its
/// lines. A run shorter than the interval prints none.
enum Progress {
    Bar(indicatif::ProgressBar),
    Lines(ProgressLines),
}

impl Progress {
    fn start(total: usize) -> Progress {
        use std::io::IsTerminal;
        if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new(total as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} cases {msg} [{elapsed}]",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar.enable_steady_tick(Duration::from_secs(1));
            return Progress::Bar(bar);
        }
        Progress::Lines(ProgressLines::start(total, progress_interval()))
    }

    fn update(&self, done: usize, unexpected: usize) {
        match self {
            Progress::Bar(bar) => {
                bar.set_position(done as u64);
                if unexpected > 0 {
                    bar.set_message(format!("({unexpected} unexpected)"));
                }
            }
            Progress::Lines(lines) => lines.update(done, unexpected),
        }
    }

    fn finish(self) {
        match self {
            Progress::Bar(bar) => bar.finish_and_clear(),
            Progress::Lines(lines) => lines.finish(),
        }
    }
}

/// [`PROGRESS_INTERVAL`], or the whole seconds [`PROGRESS_INTERVAL_VARIABLE`] gives.
fn progress_interval() -> Duration {
    std::env::var(PROGRESS_INTERVAL_VARIABLE)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&s| s >= 1)
        .map_or(PROGRESS_INTERVAL, Duration::from_secs)
}

/// What the progress lines report, updated by the workers.
struct Counts {
    total: usize,
    done: std::sync::atomic::AtomicUsize,
    unexpected: std::sync::atomic::AtomicUsize,
    started: std::time::Instant,
}

impl Counts {
    /// `agentconf: 120 of 663 cases done, 2 unexpected so far, 30 s elapsed`.
    fn line(&self) -> String {
        use std::sync::atomic::Ordering::Relaxed;
        format!(
            "agentconf: {} of {} cases done, {} unexpected so far, {} s elapsed\n",
            self.done.load(Relaxed),
            self.total,
            self.unexpected.load(Relaxed),
            self.started.elapsed().as_secs()
        )
    }
}

/// The plain progress lines: a thread that writes one every interval until the run ends.
struct ProgressLines {
    counts: std::sync::Arc<Counts>,
    /// Dropped at the end of the run, which wakes the thread to stop.
    stop: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

impl ProgressLines {
    fn start(total: usize, every: Duration) -> ProgressLines {
        let counts = std::sync::Arc::new(Counts {
            total,
            done: Default::default(),
            unexpected: Default::default(),
            started: std::time::Instant::now(),
        });
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let seen = std::sync::Arc::clone(&counts);
        let thread = std::thread::spawn(move || {
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every)
            {
                to_stderr(&seen.line());
            }
        });
        ProgressLines {
            counts,
            stop,
            thread,
        }
    }

    fn update(&self, done: usize, unexpected: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        // Workers report out of order: keep the largest count seen.
        self.counts.done.fetch_max(done, Relaxed);
        self.counts.unexpected.fetch_max(unexpected, Relaxed);
    }

    fn finish(self) {
        drop(self.stop);
        // The thread only sleeps and writes; a panic there would be a bug here.
        if let Err(panic) = self.thread.join() {
            std::panic::resume_unwind(panic);
        }
    }
}
