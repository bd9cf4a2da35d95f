//! Where a report goes. To a file (`--output`): through a temporary file beside it, renamed over
//! the destination when the run completes, so a run that fails on bad input never leaves a
//! partial report, and never leaves yesterday's report looking current. To stdout, a device or
//! a pipe: written as the run goes, since none can be replaced whole and staging the report
//! elsewhere would make the run depend on that space (`$TMPDIR` full, missing, or RAM-backed).
//!
//! On Linux the temporary file has no name until it is published (`O_TMPFILE`, then `linkat`),
//! so not even SIGKILL leaves it behind; elsewhere, and on file systems without `O_TMPFILE`, it
//! is a named file removed on SIGINT and SIGTERM (see `signals`). A published file keeps the mode
//! (and, as root, the owner) of the one it replaces, else gets the umask's.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::errors::UserError;
use crate::signals::RemoveOnInterrupt;

pub struct Output {
    sink: BufWriter<Sink>,
    dest: Dest,
}

enum Dest {
    Stdout,
    /// A regular file (or one to create): the report is renamed over `target`, the file itself
    /// or, through a symbolic link `given`, the file the link points to.
    File {
        given: PathBuf,
        target: PathBuf,
    },
    /// Something that is not a regular file, such as `/dev/null`, `/dev/stdout` or a named pipe:
    /// it cannot be renamed over (as root, that would replace the device with a file), so the
    /// report is written into it, as to stdout.
    Stream(PathBuf),
}

/// Where `path` sends a report or snapshot.
fn destination(path: &Path) -> Result<Dest, UserError> {
    // `-o -`: standard output, as most tools read it.
    if path.as_os_str() == "-" {
        return Ok(Dest::Stdout);
    }
    // `/dev/stdout` or `/proc/self/fd/1` redirected to a file resolve to that file, which must
    // not be renamed over behind the shell's back: whatever sits there is written into.
    if path.starts_with("/dev") || path.starts_with("/proc") {
        return Ok(Dest::Stream(path.to_path_buf()));
    }
    refuse_planted_links(path)?;
    let file = |target: PathBuf| Dest::File { given: path.to_path_buf(), target };
    Ok(match fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            return Err(UserError::plain(format!(
                "{}: is a directory; expected a file name",
                path.display()
            )));
        }
        // Through a symbolic link, the file it points to gets the output; the link stays.
        Ok(m) if m.is_file() => file(fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())),
        Ok(_) => Dest::Stream(path.to_path_buf()),
        Err(_) => file(path.to_path_buf()),
    })
}

/// Refuses a path through a symbolic link that another user could have planted: one in a
/// sticky, world-writable folder (`/tmp`), owned by neither this user nor the folder's owner.
/// The kernel refuses to follow those when `fs.protected_symlinks` is on; it is off on many
/// machines and in containers, where root's `-o /tmp/report.json` would otherwise replace
/// whatever file another user's link names (`/etc/shadow`). Every link along the path counts.
#[cfg(unix)]
fn refuse_planted_links(path: &Path) -> Result<(), UserError> {
    use std::os::unix::fs::MetadataExt;
    let me = rustix::process::geteuid().as_raw();
    let mut at = PathBuf::new();
    for part in path.components() {
        at.push(part);
        let Ok(link) = fs::symlink_metadata(&at) else { break };
        if !link.is_symlink() || link.uid() == me {
            continue;
        }
        let dir = at.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let Ok(folder) = fs::metadata(dir) else { continue };
        if folder.mode() & 0o1002 == 0o1002 && link.uid() != folder.uid() {
            return Err(UserError {
                help: Some(
                    "a link in a folder every user can write may have been put there by anyone: write \
                     to a path of your own, or remove the link"
                        .into(),
                ),
                ..UserError::plain(format!(
                    "{}: a symbolic link of another user (uid {}) in the shared folder {}; spindle does \
                     not write through it",
                    at.display(),
                    link.uid(),
                    dir.display()
                ))
            });
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn refuse_planted_links(_: &Path) -> Result<(), UserError> {
    Ok(())
}

/// Warns when `output` goes into a folder given as input, or below one: the next run over that
/// folder finds it there (and skips it with a note, as it is no snapshot). The run goes on.
pub fn warn_if_among_inputs<P: AsRef<Path>>(output: Option<&Path>, inputs: &[P]) {
    let Some(out) = output else { return };
    if out.as_os_str() == "-" || out.starts_with("/dev") || out.starts_with("/proc") {
        return;
    }
    let dir = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let Ok(dir) = fs::canonicalize(dir) else { return };
    let input = inputs.iter().map(|i| -> &Path { i.as_ref() }).find(|i| {
        fs::metadata(i).is_ok_and(|m| m.is_dir()) && fs::canonicalize(i).is_ok_and(|i| dir.starts_with(i))
    });
    if let Some(input) = input {
        let shown = |p: &Path| spindle_core::untrusted::name(&p.display().to_string()).into_owned();
        eprintln!(
            "spindle: warning: {} is written into the input folder {}: the next run over that folder \
             will find it there (and skip it with a note); write it elsewhere to keep the folder to snapshots",
            shown(out),
            shown(input)
        );
    }
}

/// Removes a report an earlier run left at `path`, after this run failed. A regular file goes;
/// a symbolic link goes itself, never the file it points to (which may be anything: a failed
/// run must not destroy it). A device, pipe or directory stays, and so does a path through a
/// link [`refuse_planted_links`] refuses.
pub(crate) fn remove_stale(path: &Path) {
    let Ok(meta) = fs::symlink_metadata(path) else { return };
    // Another user's link in a shared folder is theirs: refused, and left as it is.
    if refuse_planted_links(path).is_err() {
        return;
    }
    let is_file_link = meta.is_symlink() && fs::metadata(path).is_ok_and(|m| m.is_file());
    if meta.is_file() || is_file_link {
        let _ = fs::remove_file(path);
    }
}

/// Where the report's bytes go while the run lasts.
enum Sink {
    Staged(Staged),
    /// Stdout or a stream. After the reader closes it (`spindle check … | head`), the rest is
    /// dropped: that is the reader's choice, not a failure, and the run still ends with the
    /// exit status of its findings.
    Direct {
        out: Box<dyn Write>,
        closed: bool,
    },
}

impl Sink {
    fn direct(out: Box<dyn Write>) -> Sink {
        Sink::Direct { out, closed: false }
    }
}

/// Whether a write failed because the reader went away (`spindle … | head`): a broken pipe,
/// or on Windows also ERROR_PIPE_NOT_CONNECTED (233), which std does not count as one and wine
/// returns for a pipe whose reader has exited.
pub fn reader_closed(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe || (cfg!(windows) && e.raw_os_error() == Some(233))
}

fn unless_closed(closed: &mut bool, r: io::Result<()>) -> io::Result<()> {
    match r {
        Err(e) if reader_closed(&e) => {
            *closed = true;
            Ok(())
        }
        r => r,
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Staged(s) => s.file.write(buf),
            Sink::Direct { closed: true, .. } => Ok(buf.len()),
            Sink::Direct { out, closed } => {
                let r = out.write_all(buf);
                unless_closed(closed, r).map(|()| buf.len())
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Staged(s) => s.file.flush(),
            Sink::Direct { closed: true, .. } => Ok(()),
            Sink::Direct { out, closed } => {
                let r = out.flush();
                unless_closed(closed, r)
            }
        }
    }
}

impl Output {
    pub fn new(dest: Option<&Path>) -> Result<Self, UserError> {
        let dest = match dest {
            None => Dest::Stdout,
            Some(d) => destination(d)?,
        };
        let sink = match &dest {
            Dest::File { target: d, .. } => Sink::Staged(Staged::beside(d).map_err(|e| {
                UserError::plain(format!("{}: cannot create a temporary report file: {e}", d.display()))
            })?),
            Dest::Stream(d) => {
                Sink::direct(Box::new(fs::OpenOptions::new().write(true).open(d).map_err(|e| {
                    UserError::plain(format!("{}: cannot write the report: {e}", d.display()))
                })?))
            }
            Dest::Stdout => Sink::direct(Box::new(io::stdout())),
        };
        Ok(Output { sink: BufWriter::with_capacity(256 << 10, sink), dest })
    }

    pub fn writer(&mut self) -> &mut dyn Write {
        &mut self.sink
    }

    /// Publishes the finished report.
    pub fn commit(self) -> Result<(), UserError> {
        let to = match &self.dest {
            Dest::Stdout => "stdout".to_string(),
            Dest::File { target: d, .. } | Dest::Stream(d) => d.display().to_string(),
        };
        let sink = self
            .sink
            .into_inner()
            .map_err(|e| UserError::plain(format!("{to}: cannot write the report: {}", e.error())))?;
        match sink {
            Sink::Staged(staged) => staged.publish(),
            Sink::Direct { mut out, mut closed } => {
                let r = out.flush();
                unless_closed(&mut closed, r)
            }
        }
        .map_err(|e| UserError::plain(format!("{to}: cannot write the report: {e}")))
    }

    /// Abandons the report: the temporary file goes, and so does an older report at the
    /// destination, which would otherwise pass for this run's (through a link, the link: see
    /// [`remove_stale`]). What went to stdout or a stream stays there, followed by the error.
    pub fn abort(self) {
        if let Dest::File { given, .. } = &self.dest {
            remove_stale(given);
        }
    }
}

/// A file being written beside its destination, published by rename when complete.
struct Staged {
    file: fs::File,
    dest: PathBuf,
    /// The temporary file's name when it has one (no `O_TMPFILE`): removed when dropped, and on
    /// SIGINT or SIGTERM. Declared after `file`, and the path before its registration, so that
    /// each is removed before it is forgotten.
    named: Option<(tempfile::TempPath, RemoveOnInterrupt)>,
}

impl Staged {
    /// A new, empty, private (0600) file in `dest`'s directory, so that the rename is atomic.
    fn beside(dest: &Path) -> io::Result<Staged> {
        let dir = dest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        #[cfg(target_os = "linux")]
        if let Some(file) = unnamed_in(dir) {
            return Ok(Staged { file, dest: dest.to_path_buf(), named: None });
        }
        Staged::named_beside(dest, dir)
    }

    /// [`Staged::beside`] with a name, for where there is no unnamed file.
    fn named_beside(dest: &Path, dir: &Path) -> io::Result<Staged> {
        // tempfile names its random file in the error (`… at path "C:\\out\\.tmpvhfpl5"`, quoted
        // with doubled backslashes): the caller names the destination, which the user knows.
        let (file, path) = tempfile::NamedTempFile::new_in(dir)
            .map_err(|e| {
                let text = e.to_string();
                let reason = text.rsplit_once(" at path ").map_or(text.as_str(), |(r, _)| r);
                io::Error::new(e.kind(), reason.to_string())
            })?
            .into_parts();
        let registered = RemoveOnInterrupt::new(&path);
        Ok(Staged { file, dest: dest.to_path_buf(), named: Some((path, registered)) })
    }

    /// Gives the file its destination's name, replacing what was there in one step.
    fn publish(self) -> io::Result<()> {
        settle_mode(&self.file, &self.dest)?;
        match self.named {
            Some((path, _registered)) => path.persist(&self.dest).map_err(|e| e.error),
            #[cfg(target_os = "linux")]
            None => publish_unnamed(&self.file, &self.dest),
            #[cfg(not(target_os = "linux"))]
            None => unreachable!("only Linux stages a file without a name"),
        }
    }
}

/// An unnamed file in `dir` (`O_TMPFILE`): nothing is left of it if the process dies, however.
/// `None` where the file system or kernel has none, or `/proc` (through which it gets its name)
/// is not mounted.
#[cfg(target_os = "linux")]
fn unnamed_in(dir: &Path) -> Option<fs::File> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let file = fs::OpenOptions::new()
        .write(true)
        .custom_flags(rustix::fs::OFlags::TMPFILE.bits() as i32)
        .mode(0o600)
        .open(dir)
        .ok()?;
    Path::new(&format!("/proc/self/fd/{}", file.as_raw_fd())).exists().then_some(file)
}

/// Names an unnamed file `dest`: linked under a fresh temporary name beside it (`linkat` cannot
/// replace a file), then renamed over it. Only between the two does the file have a name of its
/// own, registered for removal on SIGINT and SIGTERM.
#[cfg(target_os = "linux")]
fn publish_unnamed(file: &fs::File, dest: &Path) -> io::Result<()> {
    use rustix::fs::{AtFlags, CWD, linkat};
    use std::os::fd::AsRawFd;
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = dest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let from = format!("/proc/self/fd/{}", file.as_raw_fd());
    let salt =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
    for _ in 0..64 {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = dir.join(format!(".tmp{}-{:x}-{n}", std::process::id(), salt as u32));
        let registered = RemoveOnInterrupt::new(&name);
        // AT_SYMLINK_FOLLOW makes the /proc link name the open file itself.
        let linked = linkat(CWD, from.as_str(), CWD, &name, AtFlags::SYMLINK_FOLLOW);
        if let Err(e) = linked {
            if e == rustix::io::Errno::EXIST {
                continue;
            }
            return Err(e.into());
        }
        let renamed = fs::rename(&name, dest);
        if renamed.is_err() {
            let _ = fs::remove_file(&name);
        }
        drop(registered);
        return renamed;
    }
    Err(io::Error::new(io::ErrorKind::AlreadyExists, "no free temporary name beside the file"))
}

/// Gives the staged file the mode of the file it replaces, and as root its owner and group (a
/// CI step reading the report as another user must still be able to); a user who is not root
/// keeps at least the group where it is theirs. A new file gets `0666` less the umask, as any
/// program's. Set bits other than the permissions (setuid, setgid, sticky) are not copied: a
/// report is not a program.
#[cfg(unix)]
fn settle_mode(file: &fs::File, dest: &Path) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt, fchown};
    let mode = match fs::metadata(dest) {
        Ok(old) if old.is_file() => {
            if fchown(file, Some(old.uid()), Some(old.gid())).is_err() {
                let _ = fchown(file, None, Some(old.gid()));
            }
            old.mode() & 0o777
        }
        _ => 0o666 & !umask(),
    };
    file.set_permissions(fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn settle_mode(_: &fs::File, _: &Path) -> io::Result<()> {
    Ok(())
}

/// The process's umask. Linux says it in /proc/self/status (4.7 and later); umask(2) can only
/// read it by setting it, meanwhile set to the strictest value so that a file another thread
/// creates in between is private rather than public.
#[cfg(unix)]
fn umask() -> u32 {
    let from_proc = fs::read_to_string("/proc/self/status").ok().and_then(|s| {
        s.lines().find_map(|l| l.strip_prefix("Umask:")).and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
    });
    if let Some(m) = from_proc {
        return m;
    }
    use rustix::fs::Mode;
    // umask(2) cannot read without setting: the old value is put back at once.
    let m = rustix::process::umask(Mode::from_raw_mode(0o077));
    rustix::process::umask(m);
    m.as_raw_mode()
}

/// Writes `bytes` to `path` through a temporary file beside it: readers see the old file or the
/// whole new one, never half of it. A device or pipe (`/dev/stdout`, a named pipe) is written
/// into instead.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), UserError> {
    let fail = |e: &dyn std::fmt::Display| UserError::plain(format!("{}: cannot write: {e}", path.display()));
    match destination(path)? {
        Dest::File { target: file, .. } => {
            let mut tmp = Staged::beside(&file).map_err(|e| fail(&e))?;
            tmp.file.write_all(bytes).map_err(|e| fail(&e))?;
            tmp.publish().map_err(|e| fail(&e))?;
        }
        Dest::Stream(_) => {
            let mut out = fs::OpenOptions::new().write(true).open(path).map_err(|e| fail(&e))?;
            out.write_all(bytes).and_then(|()| out.flush()).map_err(|e| fail(&e))?;
        }
        Dest::Stdout => {
            let mut out = io::stdout().lock();
            out.write_all(bytes).and_then(|()| out.flush()).map_err(|e| fail(&e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn snapshots_go_into_pipes_and_through_links_without_replacing_them() {
        let dir = tempfile::TempDir::new().unwrap();
        let fifo = dir.path().join("pipe");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        write_atomically(&fifo, b"{\"schema_version\": 1}").unwrap();
        assert_eq!(reader.join().unwrap(), b"{\"schema_version\": 1}");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());

        let target = dir.path().join("target.json");
        fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomically(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&target).unwrap(), b"new");

        // /dev/null stays a device.
        write_atomically(Path::new("/dev/null"), b"x").unwrap();
        assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device());

        let e = write_atomically(dir.path(), b"x").unwrap_err();
        assert!(e.message.contains("is a directory"), "{}", e.message);
    }

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_staged_file_is_unnamed_on_linux_and_leaves_nothing_when_dropped() {
        let dir = tempfile::TempDir::new().unwrap();
        let dest = dir.path().join("report.json");
        let mut staged = Staged::beside(&dest).unwrap();
        staged.file.write_all(b"half").unwrap();
        if cfg!(target_os = "linux") {
            assert!(staged.named.is_none(), "tmpfs and ext4 have O_TMPFILE");
            assert_eq!(names_in(dir.path()), Vec::<String>::new(), "no name while it is written");
        }
        drop(staged);
        assert_eq!(names_in(dir.path()), Vec::<String>::new());

        let mut staged = Staged::beside(&dest).unwrap();
        staged.file.write_all(b"whole").unwrap();
        staged.publish().unwrap();
        assert_eq!(names_in(dir.path()), ["report.json"]);
        assert_eq!(fs::read(&dest).unwrap(), b"whole");
    }

    #[test]
    fn a_named_staged_file_is_removed_when_dropped_and_renamed_when_published() {
        let dir = tempfile::TempDir::new().unwrap();
        let dest = dir.path().join("report.json");
        let staged = Staged::named_beside(&dest, dir.path()).unwrap();
        assert_eq!(names_in(dir.path()).len(), 1);
        drop(staged);
        assert_eq!(names_in(dir.path()), Vec::<String>::new());

        let mut staged = Staged::named_beside(&dest, dir.path()).unwrap();
        staged.file.write_all(b"whole").unwrap();
        staged.publish().unwrap();
        assert_eq!(names_in(dir.path()), ["report.json"]);
        assert_eq!(fs::read(&dest).unwrap(), b"whole");
    }

    #[test]
    fn a_published_file_keeps_the_mode_it_replaces_else_takes_the_umask() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::TempDir::new().unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        let fresh = dir.path().join("fresh.json");
        write_atomically(&fresh, b"x").unwrap();
        assert_eq!(mode(&fresh), 0o666 & !umask());

        let old = dir.path().join("old.json");
        fs::write(&old, "old").unwrap();
        fs::set_permissions(&old, fs::Permissions::from_mode(0o4751)).unwrap();
        let staged = Staged::named_beside(&old, dir.path()).unwrap();
        staged.publish().unwrap();
        assert_eq!(mode(&old), 0o751, "the permissions, without setuid");
    }
}
