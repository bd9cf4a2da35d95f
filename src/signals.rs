//! SIGINT and SIGTERM: what an interrupted run must undo before it exits (status 130 or 143).
//!
//! Killed by the default action, a run would leave its half-written temporary report beside the
//! destination (hundreds of megabytes for a fleet) and, interrupted at the password prompt, the
//! terminal with echo off. The handler only writes the signal's number into a pipe; a thread
//! waiting on the pipe removes the registered files and restores the terminal, in ordinary code
//! that may lock and allocate, then ends the process. A run that is never interrupted pays one
//! idle thread.
//!
//! Only the binary installs the handlers ([`install`]): a program using the library keeps its
//! own disposition of these signals, and registering is then harmless.

pub(crate) use imp::RemoveOnInterrupt;
pub use imp::install;
#[cfg(unix)]
pub(crate) use imp::{RestoreTerminalOnInterrupt, interrupted};

#[cfg(unix)]
mod imp {
    use std::ffi::CString;
    use std::os::fd::RawFd;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::atomic::{AtomicI32, Ordering};
    use std::sync::{Mutex, Once, PoisonError};

    /// What to undo on an interrupt.
    struct Undo {
        next_id: u64,
        /// Files to remove, by registration id.
        files: Vec<(u64, CString)>,
        /// Directories to remove with what they hold, by registration id.
        dirs: Vec<(u64, std::path::PathBuf)>,
        /// The terminal's settings before the password prompt changed them.
        terminal: Option<(RawFd, libc::termios)>,
    }

    static UNDO: Mutex<Undo> =
        Mutex::new(Undo { next_id: 0, files: Vec::new(), dirs: Vec::new(), terminal: None });

    /// The write end of the pipe the handler wakes the watcher through; -1 until installed.
    static WAKE: AtomicI32 = AtomicI32::new(-1);

    fn undo() -> std::sync::MutexGuard<'static, Undo> {
        // A panic elsewhere while holding the lock leaves the list as it was: still the list.
        UNDO.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Installs the SIGINT and SIGTERM handlers and the thread that acts on them. Idempotent.
    /// Without a pipe or a thread (resource limits), the signals keep their default action.
    pub fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            let mut fds = [-1; 2];
            // SAFETY: `fds` has room for the two descriptors pipe(2) returns.
            if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
                return;
            }
            for fd in fds {
                // SAFETY: fcntl on descriptors just created. Close-on-exec: no child inherits
                // them.
                unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
            }
            let [read_end, write_end] = fds;
            let watcher = std::thread::Builder::new()
                .name("signals".into())
                .stack_size(64 << 10)
                .spawn(move || watch(read_end));
            if watcher.is_err() {
                // SAFETY: closing the descriptors created above, used by nothing else.
                unsafe {
                    libc::close(read_end);
                    libc::close(write_end);
                }
                return;
            }
            WAKE.store(write_end, Ordering::SeqCst);
            for sig in [libc::SIGINT, libc::SIGTERM] {
                // SAFETY: sigaction is plain data; the handler is async-signal-safe (write(2)
                // only). SA_RESTART: a read at the password prompt or a write of the report
                // goes on until the watcher ends the process, rather than failing with EINTR
                // and printing an error of its own first.
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
                    action.sa_flags = libc::SA_RESTART;
                    libc::sigemptyset(&mut action.sa_mask);
                    libc::sigaction(sig, &action, std::ptr::null_mut());
                }
            }
        });
    }

    extern "C" fn on_signal(sig: libc::c_int) {
        #[cfg(target_os = "linux")]
        // SAFETY: errno is thread-local; the interrupted code may be about to read it.
        let saved = unsafe { *libc::__errno_location() };
        let byte = sig as u8;
        // SAFETY: write(2) is async-signal-safe; one byte into a pipe is atomic.
        unsafe { libc::write(WAKE.load(Ordering::Relaxed), (&raw const byte).cast(), 1) };
        #[cfg(target_os = "linux")]
        // SAFETY: as above.
        unsafe {
            *libc::__errno_location() = saved
        };
    }

    fn watch(read_end: RawFd) {
        let mut byte = 0u8;
        loop {
            // SAFETY: reads one byte into `byte`.
            let n = unsafe { libc::read(read_end, (&raw mut byte).cast(), 1) };
            if n == 1 {
                break;
            }
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        exit(libc::c_int::from(byte));
    }

    fn exit(sig: libc::c_int) -> ! {
        // Held to the end: no file is registered or published after the clean-up.
        let undo = undo();
        clean_up(&undo);
        // SAFETY: _exit ends the process at once; the report is abandoned on purpose, and
        // nothing else must run (no destructor would publish a half-written report).
        unsafe { libc::_exit(128 + sig) }
    }

    /// Ends the run as `sig` would, when the handlers are installed. For a read that catches
    /// Ctrl-C itself: rpassword reads the terminal raw, raises SIGINT on Ctrl-C and returns an
    /// error, which would otherwise race the watcher to exit with status 2.
    pub(crate) fn interrupted(sig: libc::c_int) {
        if WAKE.load(Ordering::SeqCst) >= 0 {
            exit(sig);
        }
    }

    fn clean_up(undo: &Undo) {
        for (_, path) in &undo.files {
            // SAFETY: `path` is a NUL-terminated path.
            unsafe { libc::unlink(path.as_ptr()) };
        }
        for (_, dir) in &undo.dirs {
            // Other threads may still add a file while it is emptied: a few tries.
            for _ in 0..3 {
                if std::fs::remove_dir_all(dir).is_ok() || !dir.exists() {
                    break;
                }
            }
        }
        if let Some((fd, saved)) = &undo.terminal {
            // SAFETY: `saved` is the terminal's own earlier state; a closed fd just fails.
            unsafe { libc::tcsetattr(*fd, libc::TCSANOW, saved) };
        }
    }

    /// A file removed if the run is interrupted, until this is dropped.
    pub(crate) struct RemoveOnInterrupt(Option<u64>);

    impl RemoveOnInterrupt {
        pub(crate) fn new(path: &Path) -> Self {
            let Ok(c) = CString::new(path.as_os_str().as_bytes()) else { return RemoveOnInterrupt(None) };
            let mut undo = undo();
            let id = undo.next_id;
            undo.next_id += 1;
            undo.files.push((id, c));
            RemoveOnInterrupt(Some(id))
        }
    }

    impl RemoveOnInterrupt {
        /// A directory, with what it holds, removed if the run is interrupted.
        pub(crate) fn dir(path: &Path) -> Self {
            let mut undo = undo();
            let id = undo.next_id;
            undo.next_id += 1;
            undo.dirs.push((id, path.to_path_buf()));
            RemoveOnInterrupt(Some(id))
        }
    }

    impl Drop for RemoveOnInterrupt {
        fn drop(&mut self) {
            if let Some(id) = self.0 {
                let mut undo = undo();
                undo.files.retain(|(i, _)| *i != id);
                undo.dirs.retain(|(i, _)| *i != id);
            }
        }
    }

    /// The terminal put back as `saved` if the run is interrupted, until this is dropped.
    pub(crate) struct RestoreTerminalOnInterrupt(());

    impl RestoreTerminalOnInterrupt {
        pub(crate) fn new(fd: RawFd, saved: libc::termios) -> Self {
            undo().terminal = Some((fd, saved));
            RestoreTerminalOnInterrupt(())
        }
    }

    impl Drop for RestoreTerminalOnInterrupt {
        fn drop(&mut self) {
            undo().terminal = None;
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn registered_files_are_removed_and_unregistered_ones_kept() {
            let dir = tempfile::TempDir::new().unwrap();
            let (a, b) = (dir.path().join("a.tmp"), dir.path().join("b.tmp"));
            std::fs::write(&a, "a").unwrap();
            std::fs::write(&b, "b").unwrap();
            let registered = RemoveOnInterrupt::new(&a);
            drop(RemoveOnInterrupt::new(&b));
            {
                // Only this test's files: tests running beside it register theirs.
                let undo = undo();
                let mine: Vec<_> = undo
                    .files
                    .iter()
                    .filter(|(_, p)| p.as_bytes().starts_with(dir.path().as_os_str().as_bytes()))
                    .cloned()
                    .collect();
                clean_up(&Undo { next_id: 0, files: mine, dirs: vec![], terminal: None });
            }
            assert!(!a.exists());
            assert!(b.exists());
            drop(registered);
        }
    }
}

#[cfg(not(unix))]
mod imp {
    use std::path::Path;

    /// Nothing to install without POSIX signals.
    pub fn install() {}

    /// Without POSIX signals, Ctrl-C ends the process; the temporary file is the one left.
    pub(crate) struct RemoveOnInterrupt;

    impl RemoveOnInterrupt {
        pub(crate) fn new(_: &Path) -> Self {
            RemoveOnInterrupt
        }

        pub(crate) fn dir(_: &Path) -> Self {
            RemoveOnInterrupt
        }
    }
}
