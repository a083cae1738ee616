//! Interruption: SIGINT or SIGTERM to the harness ends every implementation process it started
//! (its PID namespace, or its process group), stops the run from starting more cases, and lets it
//! write what it gathered as a results file marked `interrupted`; a second signal ends the
//! harness at once (its implementations killed and its work directory removed first).
//!
//! Signals are received on a thread of their own (signal-hook's self-pipe), so everything done
//! about them runs in ordinary code, not in a signal handler.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Mutex, Once};

/// Set by the first SIGINT or SIGTERM.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The implementation processes alive now, each the leader of its process group or the
/// supervisor of its PID namespace (0: a free slot). A fixed table: registering must work from
/// any worker without allocation, and a run has at most a few hundred alive at once (workers ×
/// receivers).
static GROUPS: [AtomicI32; 1024] = [const { AtomicI32::new(0) }; 1024];

/// Directories to remove when a second signal ends the harness at once.
static WORK_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

static INSTALL: Once = Once::new();

/// Whether the run was interrupted: workers start no more cases, and results gathered after
/// this are not trusted (their processes were killed by us, not by themselves).
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// Starts listening for SIGINT and SIGTERM (once per process; later calls do nothing). `Err`
/// when the signals cannot be hooked: the run then goes on without interruption handling.
pub fn install() -> std::io::Result<()> {
    let mut result = Ok(());
    INSTALL.call_once(|| {
        use signal_hook::consts::{SIGINT, SIGTERM};
        match signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) {
            Ok(mut signals) => {
                let spawned = std::thread::Builder::new()
                    .name("agentconf-signals".into())
                    .spawn(move || {
                        for signal in signals.forever() {
                            on_signal(signal);
                        }
                    });
                if let Err(e) = spawned {
                    result = Err(e);
                }
            }
            Err(e) => result = Err(e),
        }
    });
    result
}

fn on_signal(signal: i32) {
    let first = !INTERRUPTED.swap(true, Ordering::SeqCst);
    kill_all_groups();
    if first {
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"\nagentconf: interrupted: stopping the implementation and writing the results \
              gathered so far (interrupt again to stop at once)\n",
        );
    } else {
        if let Ok(dirs) = WORK_DIRS.lock() {
            for d in dirs.iter() {
                let _ = std::fs::remove_dir_all(d);
            }
        }
        // 128 + the signal, as a shell reports a process ended by it.
        std::process::exit(128 + signal);
    }
}

/// Records a live implementation process (see [`GROUPS`]).
pub(crate) fn register_group(pgid: i32) {
    if pgid <= 0 {
        return;
    }
    for slot in &GROUPS {
        if slot
            .compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            break;
        }
    }
    // A group that arrives after an interruption is ended at once.
    if interrupted() {
        crate::kill::kill_group(pgid as u32);
    }
}

/// Forgets a process once it has been reaped.
pub(crate) fn unregister_group(pgid: i32) {
    if pgid <= 0 {
        return;
    }
    for slot in &GROUPS {
        if slot
            .compare_exchange(pgid, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            break;
        }
    }
}

/// Records a work directory that a second signal removes.
pub(crate) fn register_work_dir(dir: PathBuf) {
    if let Ok(mut dirs) = WORK_DIRS.lock() {
        dirs.push(dir);
    }
}

fn kill_all_groups() {
    for slot in &GROUPS {
        let pgid = slot.load(Ordering::SeqCst);
        if pgid > 0 {
            crate::kill::kill_group(pgid as u32);
        }
    }
}
