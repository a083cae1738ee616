//! The one kill the harness sends: SIGKILL to an implementation's process group and to the
//! process itself. On the lowest floor, because both the process code that starts
//! implementations and the interruption handler that ends them on a signal send it.

/// Kills the process group led by `pid`, and `pid` itself (in case it moved to another group, or
/// is a namespace's supervisor, whose death ends the namespace), so helpers it started cannot
/// outlive it and hold the output pipes open. Call it only while `pid` is not yet reaped: until
/// then the pid, and so the group id, cannot have been reused.
pub(crate) fn kill_group(pid: u32) {
    let pid = pid as libc::pid_t;
    // SAFETY: kill(2) with a negative pid signals that process group; no memory is involved.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
        libc::kill(pid, libc::SIGKILL);
    }
}
