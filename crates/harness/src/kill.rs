//! The one kill the harness sends: SIGKILL to an implementation's process group and to the
//! process itself. On the lowest floor, because both the process code that starts
//! implementations and the interruption handler that ends them on a signal send it.

use rustix::process::{kill_process, kill_process_group, Pid, Signal};

/// The process id `pid` as the system takes it: `None` for 0 or an id past `pid_t`, which name
/// no single process (0 and negative ids address process groups, the caller's own among them).
pub(crate) fn pid(pid: u32) -> Option<Pid> {
    i32::try_from(pid).ok().and_then(Pid::from_raw)
}

/// Kills the process group led by `pid`, and `pid` itself (in case it moved to another group, or
/// is a namespace's supervisor, whose death ends the namespace), so helpers it started cannot
/// outlive it and hold the output pipes open. Call it only while `pid` is not yet reaped: until
/// then the pid, and so the group id, cannot have been reused.
pub(crate) fn kill_group(pid: u32) {
    // An id that names no process is never signalled: kill(2) would read it as a group (the
    // harness's own, for 0).
    let Some(pid) = self::pid(pid) else {
        return;
    };
    // Either fails only when the group or process is gone already (ESRCH).
    let _ = kill_process_group(pid, Signal::KILL);
    let _ = kill_process(pid, Signal::KILL);
}
