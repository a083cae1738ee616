//! Starting an implementation's process so that nothing it starts can outlive it, nothing
//! outlives the harness either, and it cannot reach the user's terminal.
//!
//! On Linux, where the system lets the harness make PID and mount namespaces and mount a `/proc`
//! of their own (root, or an unprivileged user namespace), every implementation process gets
//! them:
//!
//! ```text
//! harness ── keeper thread ──clone(NEWPID|NEWNS)──► supervisor (PID 1) ──clone──► implementation
//!                                                   │  its own /proc, /dev         no capabilities,
//!                                                   │                              no_new_privs
//!                                 PR_SET_PDEATHSIG: dies with the keeper thread   └─► whatever it starts
//! ```
//!
//! The supervisor makes the implementation's view of the system in its mount namespace (a copy
//! of the harness's, every mount made private first, so the system's mounts never change): a
//! `/proc` of the PID namespace, where no process outside it, and so no terminal another process
//! holds open, can be seen; a read-only `/dev` with no terminal of the system in it
//! ([`Containment::note`]).
//! The implementation drops every capability and sets `no_new_privs` before it executes its
//! program, so that, even as root, it can neither undo those mounts nor inject input into a
//! terminal (TIOCSTI). Where the system refuses the mount namespace or the `/proc` (a container
//! whose `/proc` is partly masked), the PID namespace alone.
//!
//! The supervisor reaps what is orphaned in the namespace and, when the implementation exits,
//! notes what it left running and exits too; the kernel then kills everything left in the
//! namespace (`setsid`, double forks and daemons included) before the harness sees the exit.
//! The harness waits for and kills the supervisor; the implementation's own exit status is
//! handed back through memory the supervisor shares with the harness. The supervisor is not an
//! executed program but a clone sharing the harness's memory (as `posix_spawn` does), and the
//! implementation is not PID 1 itself, whose signals would behave differently (a signal it sends
//! itself without a handler is ignored there).
//!
//! `PR_SET_PDEATHSIG` ties a process to the *thread* that started it, so the starting thread
//! must outlive the process: then a harness killed with SIGKILL takes its supervisors, and so the
//! namespaces, with it. A process is started from a thread of its own, the keeper, which lives
//! exactly as long as the process ([`Starter::Keeper`]) — except a one-shot run's in a process
//! group, which the calling thread starts (a worker, which reaps it before the call returns:
//! [`Starter::Caller`]). A supervisor cannot be started that way: it never executes a program,
//! so it runs on the memory and thread-local storage (errno) of the thread that cloned it for the
//! implementation's whole life, and that thread must stay suspended meanwhile. The exit watch is
//! the process's pidfd (readable once it has exited: in a namespace, once the whole namespace is
//! gone); where the system has none (before Linux 5.3) the keeper's pipe, which reaches its end
//! at that moment, is, and every process has a keeper.
//!
//! Elsewhere, or where the system refuses namespaces (or `AGENTCONF_CONTAINMENT=process-group`
//! asks for it), the implementation runs in a session and process group of its own, still with
//! `PR_SET_PDEATHSIG` and without capabilities on Linux; the harness kills the group. Every
//! implementation runs without a controlling terminal (`setsid`); only a mount namespace keeps a
//! terminal its user holds open out of its reach.

use std::io;
use std::process::ExitStatus;

use serde::{Deserialize, Serialize};

/// The environment variable that can ask for the weaker containment (`process-group`), for an
/// implementation that must see the harness as its parent.
pub const CONTAINMENT_VAR: &str = "AGENTCONF_CONTAINMENT";

/// What keeps an implementation's processes from outliving it, and what it can reach of the
/// system: which one is in force is recorded in the results header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Containment {
    /// PID and mount namespaces of its own (as root): everything it started is killed by the
    /// kernel when it exits, its `/proc` shows only its own namespace's processes, and its `/dev`
    /// holds no terminal (see [`Containment::note`]).
    MountAndPidNamespace,
    /// The same, made inside a user namespace (where an unprivileged user may make one), which
    /// maps the user's own user and group ids to themselves.
    UserMountAndPidNamespace,
    /// A PID namespace of its own, where the system refuses the mount namespace or a `/proc` of
    /// its own: when the implementation exits, everything it started is killed by the kernel,
    /// wherever it moved (another session, a daemon's double fork); but it sees the system's
    /// `/proc` and `/dev`.
    PidNamespace,
    /// The same, made inside a user namespace.
    UserAndPidNamespace,
    /// Its own session and process group only: what leaves the group (`setsid`, a daemon's
    /// double fork) escapes the harness's kills.
    ProcessGroup,
}

impl Containment {
    pub fn as_str(self) -> &'static str {
        match self {
            Containment::MountAndPidNamespace => "mount-and-pid-namespace",
            Containment::UserMountAndPidNamespace => "user-mount-and-pid-namespace",
            Containment::PidNamespace => "pid-namespace",
            Containment::UserAndPidNamespace => "user-and-pid-namespace",
            Containment::ProcessGroup => "process-group",
        }
    }

    /// Whether the implementation runs in a PID namespace of its own.
    pub fn is_namespace(self) -> bool {
        self != Containment::ProcessGroup
    }

    /// Whether the implementation runs in a mount namespace of its own, with its own `/proc` and
    /// a `/dev` without terminals.
    pub fn is_mount_namespace(self) -> bool {
        matches!(
            self,
            Containment::MountAndPidNamespace | Containment::UserMountAndPidNamespace
        )
    }

    /// What an implementation can still reach under this containment (CONTRACT.md 3.3), in one
    /// sentence: the results header's `containment_note`.
    pub fn note(self) -> &'static str {
        match self {
            Containment::MountAndPidNamespace | Containment::UserMountAndPidNamespace => {
                "no terminal device is reachable: /proc shows only the implementation's own \
                 processes and /dev holds no terminal (a new devpts instance); no capabilities, \
                 no_new_privs; still shared with the system: the file system, the network and \
                 Unix sockets (a terminal multiplexer's included)"
            }
            Containment::PidNamespace | Containment::UserAndPidNamespace => {
                "the system refused a mount namespace or a /proc of its own: /proc shows the \
                 whole system and /dev is the system's, so an implementation can open a terminal \
                 by its path (/dev/pts/N, /dev/tty*, /dev/console) or through /proc/PID/fd of \
                 another process of its user, and write to it; no capabilities, no_new_privs \
                 (so no TIOCSTI)"
            }
            Containment::ProcessGroup => {
                "a process group only: processes that leave it escape the kills; /proc shows the \
                 whole system and /dev is the system's, so an implementation can open a terminal \
                 by its path (/dev/pts/N, /dev/tty*, /dev/console) or through /proc/PID/fd of \
                 another process of its user, and write to it; on Linux no capabilities and \
                 no_new_privs (so no TIOCSTI)"
            }
        }
    }
}

/// The containment every implementation process of this harness runs under: worked out once
/// (on Linux by trying to make the namespaces), then the same for the whole process.
pub fn containment() -> Containment {
    static CHOSEN: std::sync::OnceLock<Containment> = std::sync::OnceLock::new();
    *CHOSEN.get_or_init(|| {
        let asked = std::env::var(CONTAINMENT_VAR).unwrap_or_default();
        if asked == Containment::ProcessGroup.as_str() {
            return Containment::ProcessGroup;
        }
        platform::probe()
    })
}

/// A started implementation process: the process the harness waits for and kills (the
/// supervisor in a namespace, the implementation otherwise), its standard streams, and the
/// pipe that reaches its end when it has exited.
pub(crate) struct Spawned {
    pid: u32,
    pub(crate) stdin: Option<io::PipeWriter>,
    pub(crate) stdout: Option<io::PipeReader>,
    pub(crate) stderr: Option<io::PipeReader>,
    exit_watch: Option<std::os::fd::OwnedFd>,
    keeper: platform::Keeper,
}

impl Spawned {
    /// The process id the harness waits for and kills.
    pub(crate) fn id(&self) -> u32 {
        self.pid
    }

    /// A descriptor that becomes readable when the process has exited (taken once).
    pub(crate) fn take_exit_watch(&mut self) -> Option<std::os::fd::OwnedFd> {
        self.exit_watch.take()
    }

    /// Kills everything the implementation runs as (its namespace, or its process group). Only
    /// while it is not reaped: until then its pid, and so its group id, cannot be reused.
    pub(crate) fn kill(&self) {
        crate::kill::kill_group(self.pid);
    }

    /// Waits for the process and reaps it, and forgets it for the interruption handler (after
    /// this its pid may be reused, so it is never signalled again). The status is the
    /// implementation's own, also in a namespace.
    pub(crate) fn reap(&mut self) -> io::Result<ExitStatus> {
        let status = platform::reap(self.pid, &mut self.keeper);
        crate::interrupt::unregister_group(self.pid as i32);
        status
    }

    /// Reaps the process if it has exited, without waiting.
    pub(crate) fn try_reap(&mut self) -> io::Result<Option<ExitStatus>> {
        let status = platform::try_reap(self.pid, &mut self.keeper)?;
        if status.is_some() {
            crate::interrupt::unregister_group(self.pid as i32);
        }
        Ok(status)
    }

    /// Whether the implementation, which has exited (its process not yet reaped), left
    /// descendants running that held its output; `held` says whether anything holds the harness's
    /// ends of its output pipes now. In a namespace the supervisor saw it at the exit (the kernel
    /// has killed them since).
    pub(crate) fn left_descendants(&self, held: impl FnOnce() -> bool) -> bool {
        platform::left_descendants(self.pid, &self.keeper, held)
    }
}

/// Which thread starts a process, and so ties it to its own life (`PR_SET_PDEATHSIG` follows the
/// thread that started a process, not the harness process).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Starter {
    /// The calling thread, when it can: only for a process it reaps before it can end (a one-shot
    /// run, which waits for the process before it returns), in a process group (a namespace's
    /// supervisor always has a keeper). No thread is made, and nothing waits for one to be
    /// scheduled: the cheap way, once per case.
    Caller,
    /// A keeper thread of the process's own, living exactly as long as the process: for processes
    /// that outlive the call that started them (persistent servers, GRP receivers), whose
    /// starting thread may end first.
    Keeper,
}

/// Starts `argv` (program first, found through `PATH` when it has no slash) with piped standard
/// streams, contained as [`containment`] says, from a keeper thread of its own, and registers it
/// with the interruption handler. `Err` for an empty or wrong command (or a system that cannot
/// start a process).
pub(crate) fn spawn(argv: &[String]) -> io::Result<Spawned> {
    spawn_by(argv, Starter::Keeper)
}

/// As [`spawn`], started by the thread `starter` says.
pub(crate) fn spawn_by(argv: &[String], starter: Starter) -> io::Result<Spawned> {
    if argv.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "empty command"));
    }
    let spawned = platform::spawn(argv, in_force(), starter)?;
    // Known to the interruption handler until reaped, so SIGINT ends it too.
    crate::interrupt::register_group(spawned.pid as i32);
    Ok(spawned)
}

/// The containment a spawn uses: [`containment`], or in the harness's own tests what a test
/// asked for on its thread (to hold the process-group behaviour where namespaces work too).
fn in_force() -> Containment {
    #[cfg(test)]
    if let Some(forced) = tests::FORCED.get() {
        return forced;
    }
    containment()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::Containment;
    use std::cell::Cell;

    thread_local! {
        pub(super) static FORCED: Cell<Option<Containment>> = const { Cell::new(None) };
    }

    /// Runs `f` with every process this thread spawns contained as `c` (only `ProcessGroup`
    /// always works).
    pub(crate) fn forcing<T>(c: Containment, f: impl FnOnce() -> T) -> T {
        FORCED.set(Some(c));
        let out = f();
        FORCED.set(None);
        out
    }
}

#[cfg(target_os = "linux")]
use linux as platform;
#[cfg(not(target_os = "linux"))]
use portable as platform;

#[cfg(target_os = "linux")]
mod linux {
    //! clone(2) with the implementation's stack and the supervisor's in memory of the keeper's,
    //! shared until the implementation executes its program. The code that runs in the children
    //! before that calls only system calls (no allocation, no lock, no panic): it shares the
    //! harness's memory while other threads run on.

    use std::ffi::{CStr, CString, OsStr, OsString};
    use std::io::{self, Read};
    use std::os::fd::{AsRawFd, OwnedFd, RawFd};
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;
    use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
    use std::sync::Arc;

    use super::{Containment, Spawned, Starter};
    use crate::process::{others_in_group, waitid_unreaped};

    /// The stack of each child before it executes a program, or of the supervisor for its
    /// whole life: the code on it is a few system calls deep.
    const STACK_BYTES: usize = 64 * 1024;

    /// What the children report, in memory they share with the harness.
    #[derive(Default)]
    pub(super) struct Outcome {
        /// The process the harness waits for (written by the kernel: CLONE_PARENT_SETTID).
        pid: AtomicI32,
        /// Why the implementation's program could not be executed (0: it was).
        exec_errno: AtomicI32,
        /// Why the supervisor could not set the namespace up (0: it could).
        setup_errno: AtomicI32,
        /// In a namespace: the implementation's wait status, once `reported`.
        status: AtomicI32,
        reported: AtomicBool,
        /// In a namespace: it exited leaving descendants running that held its output.
        left_descendants: AtomicBool,
    }

    impl Outcome {
        /// Records that the process could not be set up: the last error of this thread, or
        /// `otherwise` when there is none.
        fn setup_failed(&self, otherwise: libc::c_int) {
            let errno = io::Error::last_os_error().raw_os_error();
            self.setup_errno.store(
                errno.filter(|e| *e != 0).unwrap_or(otherwise),
                Ordering::SeqCst,
            );
        }
    }

    pub(super) type Keeper = Arc<Outcome>;

    /// What the children read: pointers into memory the keeper owns until they are done.
    struct Launch {
        path: *const libc::c_char,
        argv: *const *const libc::c_char,
        envp: *const *const libc::c_char,
        /// The implementation's ends of its standard input, output and error.
        stdio: [RawFd; 3],
        /// Where the supervisor writes one byte once the program is executed (or failed).
        ready: RawFd,
        /// The harness's ends of the output pipes: the supervisor looks at them when the
        /// implementation exits, to tell whether anything else still holds the pipes.
        probes: [RawFd; 2],
        /// The user namespace's maps (`deny` for setgroups, the uid map, the gid map), when one
        /// is made.
        user_maps: Option<[*const libc::c_char; 3]>,
        /// In a mount namespace of its own (CLONE_NEWNS): the supervisor gives it its own `/proc`
        /// and a `/dev` without terminals ([`isolate`]). The harness's own mount namespace (its
        /// inode), which the supervisor checks it has left before it mounts anything.
        isolate: Option<u64>,
        /// The parent the implementation must see once it has asked for PR_SET_PDEATHSIG (the
        /// harness, or the supervisor as PID 1): another means its parent died before.
        parent: libc::pid_t,
        /// Where the implementation's stack starts (the supervisor starts it).
        child_stack: *mut libc::c_void,
        /// The highest standard signal, whose handlers are reset before the program runs.
        max_signal: libc::c_int,
        outcome: *const Outcome,
    }

    /// Two stacks with a guard page below each, mapped for one spawn.
    struct Stacks {
        base: *mut libc::c_void,
        len: usize,
        page: usize,
    }

    impl Stacks {
        fn new() -> io::Result<Stacks> {
            use rustix::mm::{MapFlags, MprotectFlags, ProtFlags};
            let page = rustix::param::page_size().max(4096);
            let len = 2 * (page + STACK_BYTES);
            // SAFETY: a fresh private anonymous mapping at an address the kernel chooses (a null
            // hint), so no existing memory is replaced; only `Stacks` refers to it.
            let base = unsafe {
                rustix::mm::mmap_anonymous(
                    std::ptr::null_mut(),
                    len,
                    ProtFlags::READ | ProtFlags::WRITE,
                    MapFlags::PRIVATE | MapFlags::STACK,
                )
            }?;
            let stacks = Stacks { base, len, page };
            for guard in [0, page + STACK_BYTES] {
                // SAFETY: one page inside the mapping made above, which nothing uses yet; a stack
                // overflow faults there instead of writing into the harness's memory.
                let guarded =
                    unsafe { rustix::mm::mprotect(stacks.at(guard), page, MprotectFlags::empty()) };
                if let Err(e) = guarded {
                    // Without its guard a stack could overflow into the harness's memory: none is
                    // used (`stacks` is unmapped on the way out), and the spawn fails (the probe
                    // reports the containment unavailable).
                    return Err(io::Error::other(format!(
                        "a guard page below a child's stack could not be set: {e}"
                    )));
                }
            }
            Ok(stacks)
        }

        fn at(&self, offset: usize) -> *mut libc::c_void {
            self.base.cast::<u8>().wrapping_add(offset).cast()
        }

        /// The top of the first stack (stacks grow down on every Linux target this builds for).
        fn first(&self) -> *mut libc::c_void {
            self.at(self.page + STACK_BYTES)
        }

        fn second(&self) -> *mut libc::c_void {
            self.at(self.len)
        }
    }

    impl Drop for Stacks {
        fn drop(&mut self) {
            // SAFETY: exactly the mapping made in `new`; no child runs on it any more (see `keep`)
            // and no pointer into it outlives `self`. A failure leaves it mapped, not unsound.
            let _ = unsafe { rustix::mm::munmap(self.base, self.len) };
        }
    }

    /// Everything the keeper owns for the children: the strings their pointers point into.
    struct Owned {
        path: CString,
        argv: Vec<CString>,
        env: Vec<CString>,
        user_maps: Option<[CString; 3]>,
    }

    impl Owned {
        fn new(argv: &[String], user: bool) -> io::Result<Owned> {
            let nul = |_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the command");
            let path = resolve(OsStr::new(&argv[0]))?;
            let argv: Vec<CString> = argv
                .iter()
                .map(|a| CString::new(a.as_bytes()).map_err(nul))
                .collect::<io::Result<_>>()?;
            let env: Vec<CString> = std::env::vars_os()
                .filter_map(|(k, v)| {
                    let mut kv = k.into_vec();
                    kv.push(b'=');
                    kv.extend(v.into_vec());
                    CString::new(kv).ok()
                })
                .collect();
            Ok(Owned {
                path,
                argv,
                env,
                user_maps: user_maps(user),
            })
        }
    }

    /// What a user namespace's supervisor writes to /proc/self/{setgroups,uid_map,gid_map}: the
    /// user's own ids mapped to themselves, so files the implementation writes are the user's,
    /// as they would be without the namespace.
    fn user_maps(user: bool) -> Option<[CString; 3]> {
        user.then(|| {
            let (uid, gid) = (
                rustix::process::getuid().as_raw(),
                rustix::process::getgid().as_raw(),
            );
            let line = |id: u32| CString::new(format!("{id} {id} 1")).unwrap_or_default();
            [c"deny".to_owned(), line(uid), line(gid)]
        })
    }

    fn map_pointers(maps: Option<&[CString; 3]>) -> Option<[*const libc::c_char; 3]> {
        maps.map(|m| [m[0].as_ptr(), m[1].as_ptr(), m[2].as_ptr()])
    }

    /// A NULL-terminated array of pointers into `strings`.
    fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
        strings
            .iter()
            .map(|s| s.as_ptr())
            .chain(std::iter::once(std::ptr::null()))
            .collect()
    }

    /// The program's path: as given when it has a slash, else the first executable file of that
    /// name in `PATH` (as execvp looks, before the children run, which must not allocate).
    fn resolve(program: &OsStr) -> io::Result<CString> {
        let found = if program.as_bytes().contains(&b'/') {
            Some(std::path::PathBuf::from(program))
        } else {
            let path = std::env::var_os("PATH").unwrap_or_else(|| OsString::from("/bin:/usr/bin"));
            std::env::split_paths(&path)
                .map(|dir| dir.join(program))
                .find(|p| is_executable_file(p))
        };
        let Some(found) = found else {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{} not found in PATH", program.to_string_lossy()),
            ));
        };
        CString::new(found.into_os_string().into_vec())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the command"))
    }

    fn is_executable_file(p: &std::path::Path) -> bool {
        p.is_file() && rustix::fs::access(p, rustix::fs::Access::EXEC_OK).is_ok()
    }

    /// Tries the containments, strongest first: mount and PID namespaces (then inside a user
    /// namespace), then a PID namespace alone (then inside a user namespace).
    pub(super) fn probe() -> Containment {
        for containment in [
            Containment::MountAndPidNamespace,
            Containment::UserMountAndPidNamespace,
            Containment::PidNamespace,
            Containment::UserAndPidNamespace,
        ] {
            if probe_once(containment) {
                return containment;
            }
        }
        Containment::ProcessGroup
    }

    /// Whether `containment` is made inside a user namespace.
    fn in_user_namespace(containment: Containment) -> bool {
        matches!(
            containment,
            Containment::UserAndPidNamespace | Containment::UserMountAndPidNamespace
        )
    }

    /// The inode of this process's mount namespace (`isolate` of a launch in a mount namespace
    /// of its own: the supervisor mounts nothing while it is still in this one). `None` where
    /// the system does not say, and then no mount namespace is made.
    fn own_mount_namespace() -> Option<u64> {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata("/proc/self/ns/mnt").ok().map(|m| m.ino())
    }

    /// `isolate` of a launch with the clone flags `flags`.
    fn isolate_for(flags: libc::c_int) -> Option<u64> {
        if flags & libc::CLONE_NEWNS != 0 {
            // Never 0: the supervisor's check compares it with a real inode number.
            Some(own_mount_namespace().unwrap_or(0))
        } else {
            None
        }
    }

    /// Whether a supervisor can be started under `containment` and set itself up (the user
    /// maps, closing descriptors with close_range, and in a mount namespace its own `/proc` and
    /// `/dev`, made in the probe's namespace, which goes with it), doing nothing else.
    fn probe_once(containment: Containment) -> bool {
        let flags = namespace_flags(containment);
        let isolate = isolate_for(flags);
        if isolate == Some(0) {
            return false;
        }
        let Ok(stacks) = Stacks::new() else {
            return false;
        };
        let maps = user_maps(in_user_namespace(containment));
        let outcome = Outcome::default();
        let launch = Launch {
            path: std::ptr::null(),
            argv: std::ptr::null(),
            envp: std::ptr::null(),
            stdio: [-1; 3],
            ready: -1,
            probes: [-1; 2],
            user_maps: map_pointers(maps.as_ref()),
            isolate,
            parent: 1,
            child_stack: stacks.second(),
            max_signal: 31,
            outcome: &outcome,
        };
        let _blocked = BlockedSignals::new();
        // SAFETY: the child runs `probe_entry` on its own stack with `launch`, which outlives
        // it: CLONE_VFORK suspends this thread until the child has exited.
        let pid = unsafe {
            libc::clone(
                probe_entry,
                stacks.first(),
                libc::CLONE_VM | libc::CLONE_VFORK | flags | libc::SIGCHLD,
                std::ptr::from_ref(&launch).cast_mut().cast(),
            )
        };
        if pid <= 0 {
            return false;
        }
        let Ok(status) = reap_raw(pid) else {
            return false;
        };
        outcome.setup_errno.load(Ordering::SeqCst) == 0
            && libc::WIFEXITED(status)
            && libc::WEXITSTATUS(status) == 0
    }

    /// What the children of one spawn read. `argv` and `envp` are the NULL-terminated pointer
    /// arrays of `owned`'s strings.
    #[allow(clippy::too_many_arguments)]
    fn launch(
        owned: &Owned,
        argv: &[*const libc::c_char],
        envp: &[*const libc::c_char],
        stdio: [RawFd; 3],
        ready: RawFd,
        probes: [RawFd; 2],
        isolate: Option<u64>,
        parent: libc::pid_t,
        stacks: &Stacks,
        outcome: &Outcome,
    ) -> Launch {
        Launch {
            path: owned.path.as_ptr(),
            argv: argv.as_ptr(),
            envp: envp.as_ptr(),
            stdio,
            ready,
            probes,
            user_maps: map_pointers(owned.user_maps.as_ref()),
            isolate,
            parent,
            child_stack: stacks.second(),
            max_signal: 31,
            outcome,
        }
    }

    /// Every signal blocked on this thread while it lives (the children start with this mask,
    /// so no handler of the harness's can run in them before they reset theirs).
    struct BlockedSignals(libc::sigset_t);

    impl BlockedSignals {
        fn new() -> BlockedSignals {
            // SAFETY: all-zero bytes are a valid `sigset_t` (plain data), filled below.
            let mut all: libc::sigset_t = unsafe { std::mem::zeroed() };
            // SAFETY: as above; pthread_sigmask writes the old mask into it.
            let mut old: libc::sigset_t = unsafe { std::mem::zeroed() };
            // SAFETY: sigfillset(3) writes the valid local it is given.
            unsafe { libc::sigfillset(&mut all) };
            // SAFETY: sets this thread's own mask from a valid local and saves the old one into
            // another (no safe wrapper for a thread's mask outside a libc runtime).
            unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old) };
            BlockedSignals(old)
        }
    }

    impl Drop for BlockedSignals {
        fn drop(&mut self) {
            // SAFETY: restores this thread's mask from the valid one saved in `new` (the value is
            // dropped on the thread that made it: it is neither Send nor shared).
            unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.0, std::ptr::null_mut()) };
        }
    }

    /// Starts `argv` under `containment` from the thread `starter` says (see the module's
    /// documentation).
    pub(super) fn spawn(
        argv: &[String],
        containment: Containment,
        starter: Starter,
    ) -> io::Result<Spawned> {
        match starter {
            // A namespace's supervisor runs for the implementation's whole life without ever
            // executing a program, on the memory and the thread-local storage (errno) of the
            // thread that cloned it: that thread must stay suspended meanwhile, so it is a
            // keeper, never a worker. Without a pidfd the keeper's pipe is the only exit watch.
            Starter::Caller if !containment.is_namespace() && pidfds_work() => spawn_here(argv),
            _ => spawn_with_keeper(argv, containment),
        }
    }

    /// Whether this system has pidfd_open(2) (asked once, of this process).
    fn pidfds_work() -> bool {
        static WORKS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *WORKS.get_or_init(|| pidfd(own_pid()).is_some())
    }

    /// The clone(2) flags of a containment's first child (the supervisor, or the implementation).
    fn namespace_flags(containment: Containment) -> libc::c_int {
        match containment {
            Containment::MountAndPidNamespace => libc::CLONE_NEWPID | libc::CLONE_NEWNS,
            Containment::UserMountAndPidNamespace => {
                libc::CLONE_NEWPID | libc::CLONE_NEWNS | libc::CLONE_NEWUSER
            }
            Containment::PidNamespace => libc::CLONE_NEWPID,
            Containment::UserAndPidNamespace => libc::CLONE_NEWPID | libc::CLONE_NEWUSER,
            Containment::ProcessGroup => 0,
        }
    }

    /// The pipes of one spawn: the harness's ends and the implementation's.
    struct Pipes {
        stdin: io::PipeWriter,
        stdout: io::PipeReader,
        stderr: io::PipeReader,
        child: (io::PipeReader, io::PipeWriter, io::PipeWriter),
    }

    impl Pipes {
        fn new() -> io::Result<Pipes> {
            let (child_stdin, stdin) = io::pipe()?;
            let (stdout, child_stdout) = io::pipe()?;
            let (stderr, child_stderr) = io::pipe()?;
            Ok(Pipes {
                stdin,
                stdout,
                stderr,
                child: (child_stdin, child_stdout, child_stderr),
            })
        }

        /// The implementation's ends, as its standard input, output and error.
        fn stdio(&self) -> [RawFd; 3] {
            [
                self.child.0.as_raw_fd(),
                self.child.1.as_raw_fd(),
                self.child.2.as_raw_fd(),
            ]
        }

        /// The harness's ends, once the children have their copies of theirs: ours are closed,
        /// or they would keep the pipes open.
        fn harness_ends(self) -> (io::PipeWriter, io::PipeReader, io::PipeReader) {
            drop(self.child);
            (self.stdin, self.stdout, self.stderr)
        }

        /// The harness's ends of the output pipes (see [`Launch::probes`]).
        fn probes(&self) -> [RawFd; 2] {
            [self.stdout.as_raw_fd(), self.stderr.as_raw_fd()]
        }
    }

    /// Waits for the one byte a start writes once the program runs (or failed to); `false` when
    /// the pipe ended without it (the start failed before).
    fn started(mut ready: io::PipeReader) -> bool {
        let mut byte = [0u8; 1];
        loop {
            match ready.read(&mut byte) {
                Ok(n) => return n == 1,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return false,
            }
        }
    }

    /// Why a start failed, from what its children reported (`None`: it did not).
    fn start_failure(outcome: &Outcome, started: bool) -> Option<io::Error> {
        let pid = outcome.pid.load(Ordering::SeqCst);
        match (
            outcome.setup_errno.load(Ordering::SeqCst),
            outcome.exec_errno.load(Ordering::SeqCst),
        ) {
            (0, 0) if started && pid > 0 => None,
            (0, 0) => Some(io::Error::other(
                "the implementation's process could not be set up",
            )),
            (0, exec) => Some(io::Error::from_raw_os_error(exec)),
            (setup, _) => Some(io::Error::from_raw_os_error(setup)),
        }
    }

    /// Starts `argv` in a process group of its own from the calling thread, which must reap it
    /// before it ends. The clone returns once the program runs (or failed to): the calling
    /// thread is suspended until then, so the child may use its memory and its errno.
    fn spawn_here(argv: &[String]) -> io::Result<Spawned> {
        let owned = Owned::new(argv, false)?;
        let pipes = Pipes::new()?;
        let stacks = Stacks::new()?;
        let outcome = Arc::new(Outcome::default());
        let (argv, envp) = (pointers(&owned.argv), pointers(&owned.env));
        let launch = launch(
            &owned,
            &argv,
            &envp,
            pipes.stdio(),
            // Only a supervisor reports that the program runs: here the clone's return says it.
            -1,
            pipes.probes(),
            None,
            own_pid(),
            &stacks,
            &outcome,
        );
        let pid = {
            let _blocked = BlockedSignals::new();
            // SAFETY: the child runs `implementation` on a stack of `stacks` and reads `launch`,
            // `owned` and `outcome`, all alive until it is done with them: CLONE_VFORK suspends
            // this thread until the child executes a program or exits.
            unsafe {
                libc::clone(
                    implementation,
                    stacks.second(),
                    libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_PARENT_SETTID | libc::SIGCHLD,
                    std::ptr::from_ref(&launch).cast_mut().cast(),
                    outcome.pid.as_ptr(),
                )
            }
        };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        let (stdin, stdout, stderr) = pipes.harness_ends();
        if let Some(e) = start_failure(&outcome, true) {
            let _ = reap_raw(pid);
            return Err(e);
        }
        let Some(exit_watch) = pidfd(pid) else {
            crate::kill::kill_group(pid as u32);
            let _ = reap_raw(pid);
            return Err(io::Error::other(
                "no pidfd for the implementation's process",
            ));
        };
        Ok(Spawned {
            pid: pid as u32,
            stdin: Some(stdin),
            stdout: Some(stdout),
            stderr: Some(stderr),
            exit_watch: Some(exit_watch),
            keeper: outcome,
        })
    }

    fn own_pid() -> libc::pid_t {
        rustix::process::getpid().as_raw_nonzero().get()
    }

    /// Starts `argv` from a keeper thread of its own.
    fn spawn_with_keeper(argv: &[String], containment: Containment) -> io::Result<Spawned> {
        let owned = Owned::new(argv, in_user_namespace(containment))?;
        let pipes = Pipes::new()?;
        let (ready, ready_w) = io::pipe()?;
        let (exit_watch, watch_w) = io::pipe()?;
        let outcome = Arc::new(Outcome::default());
        let (stdio, probes) = (pipes.stdio(), pipes.probes());
        let flags = namespace_flags(containment);
        let kept = Arc::clone(&outcome);
        std::thread::Builder::new()
            .name("agentconf-keeper".into())
            .stack_size(64 * 1024)
            .spawn(move || keep(owned, stdio, ready_w.into(), probes, flags, kept, watch_w))?;
        let started = started(ready);
        let (stdin, stdout, stderr) = pipes.harness_ends();
        let pid = outcome.pid.load(Ordering::SeqCst);
        if let Some(e) = start_failure(&outcome, started) {
            if pid > 0 {
                let _ = reap_raw(pid);
            }
            return Err(e);
        }
        Ok(Spawned {
            pid: pid as u32,
            stdin: Some(stdin),
            stdout: Some(stdout),
            stderr: Some(stderr),
            // The process's own descriptor wakes the harness at the exit without waiting for the
            // keeper to be scheduled; the keeper's pipe where there is none (before Linux 5.3).
            exit_watch: Some(pidfd(pid).unwrap_or_else(|| exit_watch.into())),
            keeper: outcome,
        })
    }

    /// A pidfd of our child `pid` (readable once it has exited: for a supervisor, once its
    /// namespace is gone), where the system has pidfd_open(2).
    fn pidfd(pid: libc::pid_t) -> Option<OwnedFd> {
        let pid = rustix::process::Pid::from_raw(pid.max(0))?;
        rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
    }

    /// The keeper thread: starts the process, and lives until it has exited (so that
    /// PR_SET_PDEATHSIG, which follows the thread that started a process, fires only when the
    /// harness dies), then ends the exit watch.
    fn keep(
        owned: Owned,
        stdio: [RawFd; 3],
        ready: OwnedFd,
        probes: [RawFd; 2],
        flags: libc::c_int,
        outcome: Arc<Outcome>,
        watch: io::PipeWriter,
    ) {
        let _blocked = BlockedSignals::new();
        let stacks = match Stacks::new() {
            Ok(stacks) => stacks,
            Err(e) => {
                // Dropping `ready` unwritten tells the caller. The error is the one returned
                // (rustix does not set errno), ENOMEM for a guard page that could not be set.
                let errno = e.raw_os_error().filter(|e| *e != 0).unwrap_or(libc::ENOMEM);
                outcome.setup_errno.store(errno, Ordering::SeqCst);
                return;
            }
        };
        let namespace = flags != 0;
        // The implementation must see the harness as its parent, or the supervisor (PID 1).
        let parent = if namespace { 1 } else { own_pid() };
        let (argv, envp) = (pointers(&owned.argv), pointers(&owned.env));
        let launch = launch(
            &owned,
            &argv,
            &envp,
            stdio,
            ready.as_raw_fd(),
            probes,
            isolate_for(flags),
            parent,
            &stacks,
            &outcome,
        );
        let (entry, stack): (extern "C" fn(*mut libc::c_void) -> libc::c_int, _) = if namespace {
            (supervise, stacks.first())
        } else {
            (implementation, stacks.second())
        };
        // SAFETY: the child runs `entry` on a stack of `stacks` and reads `launch`, `owned` and
        // `outcome`, all alive until it is gone: CLONE_VFORK suspends this thread until it
        // executes a program or exits, and in a namespace the waitid below waits until the whole
        // namespace is gone before they are dropped.
        let pid = unsafe {
            libc::clone(
                entry,
                stack,
                libc::CLONE_VM
                    | libc::CLONE_VFORK
                    | libc::CLONE_PARENT_SETTID
                    | flags
                    | libc::SIGCHLD,
                std::ptr::from_ref(&launch).cast_mut().cast(),
                outcome.pid.as_ptr(),
            )
        };
        if pid < 0 {
            return outcome.setup_failed(libc::EAGAIN);
        }
        if !namespace {
            // The program runs (or failed): the caller may read the outcome, and nothing runs on
            // the stacks or reads the strings any more.
            let _ = rustix::io::write(&ready, b"x");
            drop((stacks, launch, argv, envp, owned));
            drop(ready);
            // ECHILD (the owner reaped it already) ends the watch as well as the exit does.
            let _ = waitid_unreaped(pid as u32, rustix::process::WaitIdOptions::empty());
            drop(watch);
            return;
        }
        drop(ready);
        // The namespace is gone once its supervisor is a zombie (or reaped: ECHILD).
        let _ = waitid_unreaped(pid as u32, rustix::process::WaitIdOptions::empty());
        // The exit first: unmapping the stacks is not on the harness's way.
        drop(watch);
        drop((stacks, launch, argv, envp, owned));
    }

    /// errno of the last failed call on this thread (the children's is the keeper's, which is
    /// suspended while they use it).
    fn errno() -> libc::c_int {
        // SAFETY: __errno_location returns this thread's errno slot, valid for reading.
        unsafe { *libc::__errno_location() }
    }

    /// The supervisor: PID 1 of the namespace. Sets the namespace up, starts the implementation,
    /// reaps what is orphaned until the implementation exits, notes its status and whether it left
    /// descendants holding its output, and exits: the kernel kills the rest of the namespace.
    extern "C" fn supervise(arg: *mut libc::c_void) -> libc::c_int {
        // Everything below runs in a clone sharing the harness's memory, on the keeper's stack
        // slot and errno (the keeper is suspended by CLONE_VFORK, then waits in waitid until
        // this process is gone): only async-signal-safe system calls, no allocation, no lock,
        // no panic.
        // SAFETY: `arg` is the keeper's `Launch`, alive while this process runs (the keeper
        // drops it only after waitid has seen this process exit).
        let l = unsafe { &*arg.cast::<Launch>() };
        // SAFETY: as above: `l.outcome` points at the keeper's `Outcome`, held by an `Arc` the
        // keeper keeps for as long.
        let outcome = unsafe { &*l.outcome };
        // SAFETY: prctl(PR_SET_PDEATHSIG) takes two integers and changes only this process's
        // own death signal; async-signal-safe.
        let tied = unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) } == 0;
        // SAFETY: `l` is valid (above) and its pointers are the keeper's live strings; `setup`
        // runs here, in the supervisor, as its contract asks.
        if !tied || unsafe { setup(l) }.is_err() {
            outcome.setup_errno.store(errno().max(1), Ordering::SeqCst);
            report_ready(l.ready);
            // SAFETY: _exit(2) ends this process at once, without running the harness's atexit
            // handlers or flushing its buffers, which a clone must not touch.
            unsafe { libc::_exit(1) };
        }
        // The implementation's id in the namespace is the supervisor's outside it (unique
        // while it runs), not 2 for every implementation: scripts name temporary files after
        // `$$`, and implementations running side by side share the file system. Where the
        // system refuses (a read-only /proc/sys), it is 2.
        let _ = write_number(
            c"/proc/sys/kernel/ns_last_pid",
            outcome.pid.load(Ordering::SeqCst) - 1,
        );
        // SAFETY: `implementation` runs on `l.child_stack`, the second stack of the keeper's
        // `Stacks` (nothing else runs on it), and reads `arg`, alive until it executes its
        // program: CLONE_VFORK suspends this process until then.
        let pid = unsafe {
            libc::clone(
                implementation,
                l.child_stack,
                libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                arg,
            )
        };
        if pid < 0 {
            outcome.exec_errno.store(errno(), Ordering::SeqCst);
        }
        // Its copies of the implementation's streams would keep them open.
        for fd in l.stdio {
            // SAFETY: close(2) of this process's own copy (its descriptor table is its own: no
            // CLONE_FILES); the harness's descriptors and Rust owners are in another table.
            unsafe { libc::close(fd) };
        }
        report_ready(l.ready);
        // SAFETY: as above: this process's own copy of the keeper's `ready` pipe end.
        unsafe { libc::close(l.ready) };
        if pid < 0 {
            // SAFETY: as above: _exit(2) touches none of the harness's state.
            unsafe { libc::_exit(1) };
        }
        let mut status = 0;
        loop {
            // SAFETY: waitpid(2) for any child of this process (the implementation, or orphans
            // the namespace gave it), with a valid out-pointer to a local.
            let reaped = unsafe { libc::waitpid(-1, &mut status, libc::__WALL) };
            if reaped == pid || (reaped < 0 && errno() != libc::EINTR) {
                break;
            }
        }
        outcome.status.store(status, Ordering::SeqCst);
        let left = anything_running();
        let held = l.probes.iter().any(|fd| !pipe_hung_up(*fd));
        outcome
            .left_descendants
            .store(left && held, Ordering::SeqCst);
        outcome.reported.store(true, Ordering::SeqCst);
        // SAFETY: as above: _exit(2) touches none of the harness's state.
        unsafe { libc::_exit(0) }
    }

    /// Writes the one byte that tells the caller the start is done (the program runs, or it
    /// failed), from a child before or instead of executing a program.
    fn report_ready(ready: RawFd) {
        // SAFETY: write(2) of one byte from a static buffer to a descriptor of this process's
        // own table; async-signal-safe. A failure only leaves the caller to see the pipe's end.
        unsafe { libc::write(ready, b"x".as_ptr().cast(), 1) };
    }

    /// Whether no process holds the write end of the pipe `fd` reads any more: the supervisor's
    /// own poll(2) through libc, like every call it makes (a raw descriptor of its own table,
    /// no allocation).
    fn pipe_hung_up(fd: RawFd) -> bool {
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd on this stack for the duration of the call; no waiting.
        let r = unsafe { libc::poll(&mut p, 1, 0) };
        r > 0 && p.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0
    }

    /// Whether a child of this process (an orphan the namespace gave it) is still running,
    /// reaping those that exited.
    fn anything_running() -> bool {
        loop {
            let mut status = 0;
            // SAFETY: waitpid on our own children, without waiting.
            let r = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG | libc::__WALL) };
            if r > 0 {
                continue;
            }
            return r == 0;
        }
    }

    /// The supervisor's set-up: the user namespace's maps when there is one, then every
    /// descriptor closed but the ones it keeps (it never executes a program, so close-on-exec
    /// does not close the harness's descriptors for it: another implementation's input, held
    /// open here, would never reach its end), then in a mount namespace of its own the
    /// implementation's view of the system ([`isolate`]).
    ///
    /// # Safety
    /// Runs in the supervisor only.
    unsafe fn setup(l: &Launch) -> Result<(), ()> {
        if let Some([setgroups, uid_map, gid_map]) = l.user_maps {
            for (file, text) in [
                (c"/proc/self/setgroups", setgroups),
                (c"/proc/self/uid_map", uid_map),
                (c"/proc/self/gid_map", gid_map),
            ] {
                // SAFETY: the caller vouches that `user_maps` points at the keeper's
                // NUL-terminated strings, alive while this process runs.
                let text = unsafe { std::ffi::CStr::from_ptr(text) };
                write_file(file, text)?;
            }
        }
        let mut keep = [
            l.stdio[0],
            l.stdio[1],
            l.stdio[2],
            l.ready,
            l.probes[0],
            l.probes[1],
        ];
        keep.sort_unstable();
        let mut first: libc::c_uint = 0;
        for fd in keep {
            let Ok(fd) = libc::c_uint::try_from(fd) else {
                continue;
            };
            if fd > first && close_range(first, fd - 1).is_err() {
                return Err(());
            }
            first = first.max(fd.saturating_add(1));
        }
        close_range(first, libc::c_uint::MAX)?;
        match l.isolate {
            // SAFETY: this is the supervisor, as `isolate` asks (and so is `setup`'s caller).
            Some(harness_namespace) => unsafe { isolate(harness_namespace) },
            None => Ok(()),
        }
    }

    /// Device nodes of the system's `/dev` the implementation's `/dev` keeps (each bound from
    /// the system's, where it has one): the ones any program may open, and `/dev/tty`, which
    /// opens only a process's controlling terminal (the implementation has none: the only one it
    /// could get is a pseudo-terminal of its own `/dev/pts`).
    const DEVICES: [(&std::ffi::CStr, &std::ffi::CStr); 6] = [
        (c"/dev/null", c"/proc/null"),
        (c"/dev/zero", c"/proc/zero"),
        (c"/dev/full", c"/proc/full"),
        (c"/dev/random", c"/proc/random"),
        (c"/dev/urandom", c"/proc/urandom"),
        (c"/dev/tty", c"/proc/tty"),
    ];

    /// The symbolic links of the implementation's `/dev` (target, link).
    const DEVICE_LINKS: [(&std::ffi::CStr, &std::ffi::CStr); 5] = [
        (c"pts/ptmx", c"/proc/ptmx"),
        (c"/proc/self/fd", c"/proc/fd"),
        (c"/proc/self/fd/0", c"/proc/stdin"),
        (c"/proc/self/fd/1", c"/proc/stdout"),
        (c"/proc/self/fd/2", c"/proc/stderr"),
    ];

    /// The implementation's view of the system, made in the supervisor's mount namespace (a copy
    /// of the harness's, which nothing here changes): every mount made private first, so that
    /// nothing mounted here reaches the system's mounts; a `/dev` of its own, with no terminal
    /// of the system in it (the device nodes of [`DEVICES`], the system's `/dev/shm`, a new
    /// devpts instance at `/dev/pts` and the links of [`DEVICE_LINKS`]; read-only); and a
    /// `/proc` of its own PID namespace, where no process outside it (the harness, the user's
    /// shell, and the terminals they hold open) can be seen. The new `/dev` is put together over
    /// `/proc` (the one directory sure to be there, covered meanwhile), then moved to `/dev`.
    ///
    /// # Safety
    /// Runs in the supervisor only.
    unsafe fn isolate(harness_namespace: u64) -> Result<(), ()> {
        // Never in the harness's own mount namespace: that would change the user's mounts.
        // SAFETY: all-zero bytes are a valid `stat` (integers only), an out-parameter.
        let mut ns: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: stat(2) of a static NUL-terminated path into a valid local out-parameter.
        if unsafe { libc::stat(c"/proc/self/ns/mnt".as_ptr(), &mut ns) } != 0 {
            return Err(());
        }
        if harness_namespace == 0 || ns.st_ino == harness_namespace {
            return fail(libc::EPERM);
        }
        let hidden = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        mount(None, c"/", None, libc::MS_REC | libc::MS_PRIVATE, None)?;
        mount(
            Some(c"tmpfs"),
            c"/proc",
            Some(c"tmpfs"),
            hidden,
            Some(c"mode=0755"),
        )?;
        for (device, at) in DEVICES {
            // SAFETY: open(2) of a static NUL-terminated path; the descriptor it returns is
            // closed just below and never reaches a Rust owner.
            let fd = unsafe {
                libc::open(
                    at.as_ptr(),
                    libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC,
                    0o666,
                )
            };
            // SAFETY: closes the descriptor just opened, owned by nothing else.
            if fd < 0 || unsafe { libc::close(fd) } != 0 {
                return Err(());
            }
            if mount(Some(device), at, None, libc::MS_BIND, None).is_err() {
                // A device the system does not have, the implementation has not either.
                // SAFETY: unlink(2) of a static NUL-terminated path.
                if errno() != libc::ENOENT || unsafe { libc::unlink(at.as_ptr()) } != 0 {
                    return Err(());
                }
            }
        }
        for dir in [c"/proc/shm", c"/proc/pts"] {
            // SAFETY: mkdir(2) of a static NUL-terminated path.
            if unsafe { libc::mkdir(dir.as_ptr(), 0o755) } != 0 {
                return Err(());
            }
        }
        // Shared memory stays the system's (the harness may write the implementation's inputs
        // there).
        if mount(
            Some(c"/dev/shm"),
            c"/proc/shm",
            None,
            libc::MS_BIND | libc::MS_REC,
            None,
        )
        .is_err()
            && errno() != libc::ENOENT
        {
            return Err(());
        }
        // Pseudo-terminals of its own, none of the system's. Where the system refuses a new
        // instance, /dev/pts stays empty: no terminal either way.
        let _ = mount(
            Some(c"devpts"),
            c"/proc/pts",
            Some(c"devpts"),
            libc::MS_NOSUID | libc::MS_NOEXEC,
            Some(c"newinstance,ptmxmode=0666,mode=620"),
        );
        for (target, link) in DEVICE_LINKS {
            // SAFETY: symlink(2) of two static NUL-terminated paths.
            if unsafe { libc::symlink(target.as_ptr(), link.as_ptr()) } != 0 {
                return Err(());
            }
        }
        mount(
            None,
            c"/proc",
            None,
            libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | hidden,
            None,
        )?;
        mount(Some(c"/proc"), c"/dev", None, libc::MS_MOVE, None)?;
        mount(Some(c"proc"), c"/proc", Some(c"proc"), hidden, None)
    }

    /// mount(2), its result checked (errno says why it failed).
    fn mount(
        source: Option<&CStr>,
        target: &CStr,
        fstype: Option<&CStr>,
        flags: libc::c_ulong,
        data: Option<&CStr>,
    ) -> Result<(), ()> {
        let ptr = |s: Option<&CStr>| s.map_or(std::ptr::null(), CStr::as_ptr);
        // SAFETY: every pointer is null or a NUL-terminated string borrowed for the call;
        // mount(2) copies what it reads and keeps no pointer.
        let r = unsafe {
            libc::mount(
                ptr(source),
                target.as_ptr(),
                ptr(fstype),
                flags,
                ptr(data).cast(),
            )
        };
        if r == 0 {
            Ok(())
        } else {
            Err(())
        }
    }

    /// A failure with the error `e` (for the supervisor's report).
    fn fail(e: libc::c_int) -> Result<(), ()> {
        // SAFETY: __errno_location returns this thread's errno slot, valid for writing (in a
        // child, the suspended keeper's, which it reads no more until the child is done).
        unsafe {
            *libc::__errno_location() = e;
        }
        Err(())
    }

    /// close_range(2) (Linux 5.9): the supervisor is not made where it is missing.
    fn close_range(first: libc::c_uint, last: libc::c_uint) -> Result<(), ()> {
        // SAFETY: closes descriptors of the supervisor's own table (no CLONE_FILES: the
        // harness's descriptors, and the Rust values owning them, are in another table).
        let r = unsafe { libc::syscall(libc::SYS_close_range, first, last, 0 as libc::c_uint) };
        if r == 0 {
            Ok(())
        } else {
            Err(())
        }
    }

    /// Writes `n` in decimal to the file `path` (formatted on the stack: the supervisor does not
    /// allocate).
    fn write_number(path: &CStr, n: libc::c_int) -> Result<(), ()> {
        let mut digits = [0u8; 12];
        let mut at = digits.len() - 1;
        let mut rest = n.max(0).unsigned_abs();
        loop {
            at -= 1;
            digits[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 || at == 0 {
                break;
            }
        }
        // The last byte stays 0: the text is NUL-terminated.
        match CStr::from_bytes_until_nul(&digits[at..]) {
            Ok(text) => write_file(path, text),
            Err(_) => Err(()),
        }
    }

    /// Writes `text` to the file `path` (a /proc map).
    fn write_file(path: &CStr, text: &CStr) -> Result<(), ()> {
        // SAFETY: open(2) of a NUL-terminated path borrowed for the call; the descriptor is
        // closed below and never reaches a Rust owner.
        let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(());
        }
        let bytes = text.to_bytes();
        // SAFETY: write(2) from a borrowed buffer of exactly `bytes.len()` bytes.
        let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        // SAFETY: closes the descriptor opened above, owned by nothing else.
        unsafe { libc::close(fd) };
        if usize::try_from(written) == Ok(bytes.len()) {
            Ok(())
        } else {
            Err(())
        }
    }

    /// The probe's supervisor: the set-up alone (on its own copy of the descriptor table).
    extern "C" fn probe_entry(arg: *mut libc::c_void) -> libc::c_int {
        // SAFETY: `arg` is the prober's `Launch`, alive until this process exits.
        let l = unsafe { &*arg.cast::<Launch>() };
        // SAFETY: as above.
        let outcome = unsafe { &*l.outcome };
        // SAFETY: `l` is valid (above), its map pointers the prober's live strings; this is
        // the probe's supervisor, where `setup` may run.
        if unsafe { setup(l) }.is_err() {
            outcome.setup_errno.store(errno().max(1), Ordering::SeqCst);
            // SAFETY: _exit(2) ends this clone without touching the harness's state.
            unsafe { libc::_exit(1) };
        }
        // SAFETY: as above.
        unsafe { libc::_exit(0) }
    }

    /// The implementation, before it executes its program: a session of its own (no controlling
    /// terminal, its own process group), death with its parent, its standard streams, the
    /// signal handling a new program expects, then the program.
    extern "C" fn implementation(arg: *mut libc::c_void) -> libc::c_int {
        // SAFETY: `arg` is the keeper's `Launch`, alive until this process executes a program.
        let l = unsafe { &*arg.cast::<Launch>() };
        // SAFETY: as above.
        let outcome = unsafe { &*l.outcome };
        // SAFETY: setsid(2) takes nothing and changes only this process's session.
        let own_session = unsafe { libc::setsid() } >= 0;
        // SAFETY: prctl(PR_SET_PDEATHSIG) takes two integers and changes only this process.
        if !own_session || unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) } != 0 {
            outcome.exec_errno.store(errno().max(1), Ordering::SeqCst);
            // SAFETY: _exit(2) ends this clone without touching the harness's state.
            unsafe { libc::_exit(127) };
        }
        // SAFETY: getppid(2) takes nothing and cannot fail.
        if unsafe { libc::getppid() } != l.parent {
            // Its parent died before it asked to die with it.
            // SAFETY: as above.
            unsafe { libc::_exit(127) };
        }
        // SAFETY: this is the implementation before it executes its program, as both ask: its
        // descriptor table and capabilities are its own.
        if unsafe { redirect(l.stdio) }.is_err() || unsafe { drop_capabilities() }.is_err() {
            outcome.exec_errno.store(errno().max(1), Ordering::SeqCst);
            // SAFETY: as above.
            unsafe { libc::_exit(127) };
        }
        // SAFETY: as above: its signal dispositions are its own from here on (it shares the
        // harness's memory, not its signal handlers: no CLONE_SIGHAND).
        unsafe { default_signals(l.max_signal) };
        // SAFETY: `path`, `argv` and `envp` point at the keeper's NUL-terminated strings and
        // NULL-terminated pointer arrays, alive until this call replaces the process image
        // (CLONE_VFORK keeps the keeper suspended until then).
        unsafe { libc::execve(l.path, l.argv, l.envp) };
        outcome.exec_errno.store(errno().max(1), Ordering::SeqCst);
        // SAFETY: as above.
        unsafe { libc::_exit(127) }
    }

    /// capget(2)/capset(2)'s header (`_LINUX_CAPABILITY_VERSION_3`: two `CapData`, 64 bits).
    #[repr(C)]
    struct CapHeader {
        version: u32,
        pid: libc::c_int,
    }

    /// One half of capget(2)/capset(2)'s sets.
    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    struct CapData {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }

    const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
    const CAP_SETPCAP: u32 = 8;

    /// No capabilities for the implementation, nor for any program it executes: the bounding set
    /// emptied (where it holds CAP_SETPCAP: as root, or in its user namespace; a process without
    /// it has no capability to lose, and no_new_privs keeps it from gaining one), no ambient
    /// capability, `no_new_privs` (no set-user-ID program, no file capability), and its own
    /// effective, permitted and inheritable sets empty. So it cannot undo its mounts, inject
    /// input into a terminal (TIOCSTI), nor trace the supervisor it shares the harness's memory
    /// with. PR_SET_PDEATHSIG stays: dropping capabilities does not clear it.
    ///
    /// # Safety
    /// Runs in the implementation before it executes its program.
    unsafe fn drop_capabilities() -> Result<(), ()> {
        let mut header = CapHeader {
            version: LINUX_CAPABILITY_VERSION_3,
            pid: 0,
        };
        let mut sets = [CapData::default(); 2];
        // SAFETY: capget(2) reads one valid header and writes two `CapData` (version 3) into a
        // local array of exactly two.
        if unsafe { libc::syscall(libc::SYS_capget, &mut header, sets.as_mut_ptr()) } != 0 {
            return Err(());
        }
        if sets[0].effective & (1 << CAP_SETPCAP) != 0 {
            // Every capability the kernel has (past the last one it answers EINVAL).
            for cap in 0..64 as libc::c_ulong {
                // SAFETY: prctl(2) with integer arguments only, on this process's own sets.
                if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) } != 0 {
                    if errno() == libc::EINVAL && cap > 0 {
                        break;
                    }
                    return Err(());
                }
            }
        }
        // EINVAL: a kernel without ambient capabilities (before Linux 4.3).
        // SAFETY: as above.
        if unsafe {
            libc::prctl(
                libc::PR_CAP_AMBIENT,
                libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
                0,
                0,
                0,
            )
        } != 0
            && errno() != libc::EINVAL
        {
            return Err(());
        }
        // SAFETY: as above.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1 as libc::c_ulong, 0, 0, 0) } != 0 {
            return Err(());
        }
        let none = [CapData::default(); 2];
        // SAFETY: capset(2) reads one valid header and two `CapData` from a local array of two.
        if unsafe { libc::syscall(libc::SYS_capset, &mut header, none.as_ptr()) } != 0 {
            return Err(());
        }
        Ok(())
    }

    /// Makes `stdio` the standard input, output and error. A descriptor already below 3 is
    /// moved up first, so that placing one cannot close another.
    ///
    /// # Safety
    /// Runs in the implementation before it executes its program.
    unsafe fn redirect(stdio: [RawFd; 3]) -> Result<(), ()> {
        let mut fds = stdio;
        for fd in fds.iter_mut() {
            if *fd < 3 {
                // SAFETY: fcntl(2) duplicates a descriptor of this process's own table; the
                // copy is close-on-exec and owned by nothing in Rust.
                *fd = unsafe { libc::fcntl(*fd, libc::F_DUPFD_CLOEXEC, 3) };
                if *fd < 0 {
                    return Err(());
                }
            }
        }
        for (target, fd) in fds.into_iter().enumerate() {
            // SAFETY: dup2(2) onto 0, 1 and 2 of this process's own table, which no Rust value
            // of this process owns (the caller's contract: before it executes its program).
            if unsafe { libc::dup2(fd, target as RawFd) } < 0 {
                return Err(());
            }
        }
        Ok(())
    }

    /// Every caught signal back to its default action and nothing blocked, as a new program
    /// expects (SIGPIPE and SIGXFSZ too, which agentconf ignores for its own writes). Other
    /// ignored signals stay ignored, as they would through execve.
    ///
    /// # Safety
    /// Runs in the implementation before it executes its program.
    unsafe fn default_signals(max_signal: libc::c_int) {
        // SAFETY: all-zero bytes are a valid `sigaction` (an empty mask, no flags, SIG_DFL).
        let mut default: libc::sigaction = unsafe { std::mem::zeroed() };
        default.sa_sigaction = libc::SIG_DFL;
        for signal in 1..=max_signal {
            // SAFETY: as above.
            let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
            // SAFETY: sigaction(2) only reads the disposition into a valid local.
            if unsafe { libc::sigaction(signal, std::ptr::null(), &mut old) } == 0
                && old.sa_sigaction != libc::SIG_DFL
                && (old.sa_sigaction != libc::SIG_IGN
                    || signal == libc::SIGPIPE
                    || signal == libc::SIGXFSZ)
            {
                // SAFETY: installs SIG_DFL (no handler code) from a valid local, in this process
                // only (no CLONE_SIGHAND: the harness's handlers are untouched).
                unsafe { libc::sigaction(signal, &default, std::ptr::null_mut()) };
            }
        }
        // SAFETY: all-zero bytes are a valid `sigset_t`, emptied below.
        let mut none: libc::sigset_t = unsafe { std::mem::zeroed() };
        // SAFETY: sigemptyset(3) writes the valid local it is given.
        unsafe { libc::sigemptyset(&mut none) };
        // SAFETY: sets this thread's mask from a valid local; the old one is not asked for.
        unsafe { libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut()) };
    }

    /// Waits for our child `pid` and reaps it: its raw wait status.
    fn reap_raw(pid: libc::pid_t) -> io::Result<libc::c_int> {
        let Some(pid) = rustix::process::Pid::from_raw(pid.max(0)) else {
            return Err(io::Error::from(io::ErrorKind::InvalidInput));
        };
        loop {
            match rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty()) {
                Ok(Some((_, status))) => return Ok(status.as_raw()),
                // Without WNOHANG waitpid reports a child or fails; nothing else is expected.
                Ok(None) => return Err(io::Error::from(io::ErrorKind::WouldBlock)),
                Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// The implementation's status: the supervisor's report in a namespace (when it made one:
    /// a supervisor the harness killed first reports nothing, and its own SIGKILL stands).
    fn status_of(raw: libc::c_int, outcome: &Outcome) -> ExitStatus {
        if outcome.reported.load(Ordering::SeqCst) {
            ExitStatus::from_raw(outcome.status.load(Ordering::SeqCst))
        } else {
            ExitStatus::from_raw(raw)
        }
    }

    pub(super) fn reap(pid: u32, outcome: &mut Keeper) -> io::Result<ExitStatus> {
        reap_raw(pid as libc::pid_t).map(|raw| status_of(raw, outcome))
    }

    pub(super) fn try_reap(pid: u32, outcome: &mut Keeper) -> io::Result<Option<ExitStatus>> {
        let Some(pid) = crate::kill::pid(pid) else {
            return Err(io::Error::from(io::ErrorKind::InvalidInput));
        };
        match rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG) {
            Ok(None) => Ok(None),
            Ok(Some((_, status))) => Ok(Some(status_of(status.as_raw(), outcome))),
            Err(e) => Err(e.into()),
        }
    }

    pub(super) fn left_descendants(
        pid: u32,
        outcome: &Keeper,
        held: impl FnOnce() -> bool,
    ) -> bool {
        if outcome.reported.load(Ordering::SeqCst) {
            return outcome.left_descendants.load(Ordering::SeqCst);
        }
        // Its own process group: a held pipe alone does not say so (a process the harness is
        // starting at that moment holds copies of every descriptor until it executes its
        // program), so the group is looked at as well.
        held() && others_in_group(pid).unwrap_or(true)
    }
}

#[cfg(not(target_os = "linux"))]
mod portable {
    //! Where there is no PID namespace nor PR_SET_PDEATHSIG (macOS): the standard library's
    //! spawn, the implementation in a process group of its own, and a thread that watches for
    //! its exit.

    use std::io;
    use std::os::fd::OwnedFd;
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command, ExitStatus, Stdio};

    use super::{Containment, Spawned, Starter};
    use crate::process::{others_in_group, waitid_unreaped};

    pub(super) type Keeper = Child;

    pub(super) fn probe() -> Containment {
        Containment::ProcessGroup
    }

    /// Every process gets a thread that watches for its exit, whoever starts it (there is no
    /// PR_SET_PDEATHSIG to tie it to a thread here).
    pub(super) fn spawn(argv: &[String], _: Containment, _: Starter) -> io::Result<Spawned> {
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()?;
        let pid = child.id();
        let pipes = (|| {
            let (watch, writer) = io::pipe()?;
            std::thread::Builder::new()
                .name("agentconf-exit-watch".into())
                .spawn(move || {
                    // ECHILD (the owner reaped it already) ends the watch as well as the exit.
                    let _ = waitid_unreaped(pid, rustix::process::WaitIdOptions::empty());
                    drop(writer);
                })?;
            Ok::<_, io::Error>(watch)
        })();
        let watch = match pipes {
            Ok(w) => w,
            Err(e) => {
                crate::kill::kill_group(pid);
                let _ = child.wait();
                return Err(e);
            }
        };
        Ok(Spawned {
            pid,
            stdin: child.stdin.take().map(|p| OwnedFd::from(p).into()),
            stdout: child.stdout.take().map(|p| OwnedFd::from(p).into()),
            stderr: child.stderr.take().map(|p| OwnedFd::from(p).into()),
            exit_watch: Some(watch.into()),
            keeper: child,
        })
    }

    pub(super) fn reap(_: u32, child: &mut Keeper) -> io::Result<ExitStatus> {
        child.wait()
    }

    pub(super) fn try_reap(_: u32, child: &mut Keeper) -> io::Result<Option<ExitStatus>> {
        child.try_wait()
    }

    pub(super) fn left_descendants(pid: u32, _: &Keeper, held: impl FnOnce() -> bool) -> bool {
        held() && others_in_group(pid).unwrap_or(true)
    }
}
