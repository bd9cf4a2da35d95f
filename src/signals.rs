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
    use std::fs::File;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Mutex, Once, PoisonError};

    use rustix::termios::{OptionalActions, Termios, tcsetattr};
    use signal_hook::consts::{SIGINT, SIGTERM};
    use signal_hook::iterator::Signals;

    /// What to undo on an interrupt.
    struct Undo {
        next_id: u64,
        /// Files to remove, by registration id.
        files: Vec<(u64, PathBuf)>,
        /// Directories to remove with what they hold, by registration id.
        dirs: Vec<(u64, PathBuf)>,
        /// The terminal (its own descriptor) and its settings before the password prompt
        /// changed them.
        terminal: Option<(File, Termios)>,
    }

    static UNDO: Mutex<Undo> =
        Mutex::new(Undo { next_id: 0, files: Vec::new(), dirs: Vec::new(), terminal: None });

    /// Set once the watcher is waiting for SIGINT and SIGTERM.
    static INSTALLED: AtomicBool = AtomicBool::new(false);

    fn undo() -> std::sync::MutexGuard<'static, Undo> {
        // A panic elsewhere while holding the lock leaves the list as it was: still the list.
        UNDO.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Installs the SIGINT and SIGTERM handlers and the thread that acts on them. Idempotent.
    /// The handlers are registered from inside the watcher thread, once it runs: without a
    /// thread (resource limits) nothing is registered and the signals keep their default action,
    /// rather than being caught with no one to act on them.
    pub fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            let (registered, answer) = std::sync::mpsc::sync_channel(1);
            let watcher =
                std::thread::Builder::new().name("signals".into()).stack_size(64 << 10).spawn(move || {
                    // signal-hook's handler saves errno, writes to its own pipe and sets
                    // SA_RESTART: a read at the password prompt or a write of the report goes
                    // on until this thread ends the process, rather than failing with EINTR
                    // and printing an error of its own first.
                    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM]) else {
                        let _ = registered.send(false);
                        return;
                    };
                    let _ = registered.send(true);
                    if let Some(sig) = signals.forever().next() {
                        exit(sig);
                    }
                });
            if watcher.is_ok() && answer.recv() == Ok(true) {
                INSTALLED.store(true, Ordering::SeqCst);
            }
        });
    }

    fn exit(sig: i32) -> ! {
        // Held to the end: no file is registered or published after the clean-up.
        let undo = undo();
        clean_up(&undo);
        // _exit(2) ends the process at once: the report is abandoned on purpose, and nothing
        // else must run (no destructor would publish a half-written report).
        signal_hook::low_level::exit(128 + sig)
    }

    /// Ends the run as `sig` would, when the handlers are installed. For a read that catches
    /// Ctrl-C itself: rpassword reads the terminal raw, raises SIGINT on Ctrl-C and returns an
    /// error, which would otherwise race the watcher to exit with status 2.
    pub(crate) fn interrupted(sig: i32) {
        if INSTALLED.load(Ordering::SeqCst) {
            exit(sig);
        }
    }

    fn clean_up(undo: &Undo) {
        for (_, path) in &undo.files {
            let _ = std::fs::remove_file(path);
        }
        for (_, dir) in &undo.dirs {
            // Other threads may still add a file while it is emptied: a few tries.
            for _ in 0..3 {
                if std::fs::remove_dir_all(dir).is_ok() || !dir.exists() {
                    break;
                }
            }
        }
        if let Some((tty, saved)) = &undo.terminal {
            let _ = tcsetattr(tty, OptionalActions::Now, saved);
        }
    }

    /// A file or directory removed if the run is interrupted, until this is dropped: its
    /// registration id in [`Undo`].
    pub(crate) struct RemoveOnInterrupt(u64);

    impl RemoveOnInterrupt {
        /// A file removed if the run is interrupted.
        pub(crate) fn new(path: &Path) -> Self {
            Self::register(|undo| &mut undo.files, path)
        }

        /// A directory, with what it holds, removed if the run is interrupted.
        pub(crate) fn dir(path: &Path) -> Self {
            Self::register(|undo| &mut undo.dirs, path)
        }

        fn register(list: impl FnOnce(&mut Undo) -> &mut Vec<(u64, PathBuf)>, path: &Path) -> Self {
            let mut undo = undo();
            let id = undo.next_id;
            undo.next_id += 1;
            list(&mut undo).push((id, path.to_path_buf()));
            RemoveOnInterrupt(id)
        }
    }

    impl Drop for RemoveOnInterrupt {
        fn drop(&mut self) {
            let id = self.0;
            let mut undo = undo();
            undo.files.retain(|(i, _)| *i != id);
            undo.dirs.retain(|(i, _)| *i != id);
        }
    }

    /// The terminal put back as `saved` if the run is interrupted, until this is dropped.
    pub(crate) struct RestoreTerminalOnInterrupt(());

    impl RestoreTerminalOnInterrupt {
        /// `tty` is duplicated: the clean-up has its own descriptor of the terminal.
        pub(crate) fn new(tty: &File, saved: Termios) -> Self {
            undo().terminal = tty.try_clone().ok().map(|t| (t, saved));
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
                let mine: Vec<_> =
                    undo.files.iter().filter(|(_, p)| p.starts_with(dir.path())).cloned().collect();
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
