//! Measuring one run of a program, exactly: wall time, CPU time and *its own* peak RSS. Used by
//! the benches. A bench's `main`
//! must hand over to [`wrapper_main`] when its first argument is [`WRAPPER_FLAG`].
//!
//! Why a wrapper: Linux counts in a child's `ru_maxrss` the peak RSS of the address space it had
//! before `exec` (fs/exec.c: `setmax_mm_hiwater_rss` on the old mm). Rust spawns with
//! `posix_spawn` (vfork: the child runs in the parent's address space until it execs), so a
//! program spawned straight from the bench would inherit the bench's own peak (in the `live`
//! bench: hundreds of mock servers). `getrusage(RUSAGE_CHILDREN)` is worse still: it is the
//! maximum over every child ever waited for, so a second fleet size would inherit the first's
//! peak. So the bench re-executes itself as a small wrapper whose peak is a few MiB (reported),
//! and the wrapper reaps the program with `wait4(pid)`, which gives that one child's rusage. This
//! is the method of `benches/fleet.rs`, which has its own copy.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::ErrorKind;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// First argument of the bench executable when it runs as the measuring wrapper.
pub const WRAPPER_FLAG: &str = "--measure-child";

/// One run of the measured program, as the wrapper saw it.
#[derive(Debug, Clone)]
pub struct ChildRun {
    /// From spawn to exit, measured by the wrapper.
    pub wall: Duration,
    /// User + system CPU time of the program.
    pub cpu: Duration,
    /// `ru_maxrss` of the program, from `wait4` (KiB).
    pub maxrss_kib: u64,
    /// Largest `VmHWM` seen while polling `/proc/<pid>/status` every 2 ms (KiB): a lower bound.
    pub polled_hwm_kib: u64,
    /// The wrapper's address space's peak (`VmHWM`, KiB) when it spawned the program. The
    /// program's `ru_maxrss` cannot be less, since exec folds this into it.
    pub wrapper_kib: u64,
    /// Exit status, or minus the signal that ended it.
    pub status: i32,
    /// What the program wrote to stderr.
    pub stderr: String,
}

/// Runs `program args…` under the wrapper (this executable, re-executed with `WRAPPER_FLAG`),
/// with `env` added, stdin and stdout null, stderr captured.
pub fn measure(program: &Path, args: &[impl AsRef<OsStr>], env: &[(&str, &str)]) -> Result<ChildRun, String> {
    let me = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let output = Command::new(me)
        .arg(WRAPPER_FLAG)
        .arg(program)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run the wrapper: {e}"))?;
    let line = String::from_utf8_lossy(&output.stdout);
    let v: Vec<i64> = line.split_whitespace().filter_map(|x| x.parse().ok()).collect();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let [wall_ns, cpu_us, maxrss, polled, wrapper, status] = v[..] else {
        return Err(format!("wrapper failed ({}): {line:?}\n{stderr}", output.status));
    };
    Ok(ChildRun {
        wall: Duration::from_nanos(wall_ns as u64),
        cpu: Duration::from_micros(cpu_us as u64),
        maxrss_kib: maxrss as u64,
        polled_hwm_kib: polled as u64,
        wrapper_kib: wrapper as u64,
        status: status as i32,
        stderr,
    })
}

/// The wrapper: runs `args` (a program and its arguments), reaps it with `wait4` to get *its*
/// rusage, and prints the figures on one line for [`measure`]. The program's stderr is the
/// wrapper's (captured by `measure`).
pub fn wrapper_main(args: &[OsString]) -> ExitCode {
    let Some((program, rest)) = args.split_first() else {
        eprintln!("{WRAPPER_FLAG}: no command");
        return ExitCode::FAILURE;
    };
    let start = Instant::now();
    let child = match Command::new(program).args(rest).stdin(Stdio::null()).stdout(Stdio::null()).spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{}: {e}", Path::new(program).display());
            return ExitCode::FAILURE;
        }
    };
    // Not getrusage(RUSAGE_SELF): that includes the bench's peak, folded into the wrapper at its
    // own exec. VmHWM is this address space's alone, which is what the program inherits.
    let wrapper_kib = fs::read("/proc/self/status").ok().and_then(|s| vm_hwm_kib(&s)).unwrap_or(0);
    let pid = child.id() as libc::pid_t;
    // A cross-check for ru_maxrss: poll VmHWM. The open file stays bound to this process, so a
    // reused pid is never read.
    let done = Arc::new(AtomicBool::new(false));
    let poller = fs::File::open(format!("/proc/{pid}/status")).ok().map(|f| {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let mut best = 0;
            let mut buf = vec![0u8; 8192];
            while !done.load(Ordering::Relaxed) {
                if let Ok(n) = f.read_at(&mut buf, 0)
                    && let Some(kib) = vm_hwm_kib(&buf[..n])
                {
                    best = best.max(kib);
                }
                // A sampling period, not a synchronisation: wait4 below is what ends the run.
                std::thread::sleep(Duration::from_millis(2));
            }
            best
        })
    });
    let mut status = 0;
    // SAFETY: rusage is plain old data; wait4 fills it for the child we spawned and have not
    // reaped (std::process::Child only reaps in wait/try_wait, which are never called).
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != ErrorKind::Interrupted {
            eprintln!("wait4: {e}");
            return ExitCode::FAILURE;
        }
    }
    let wall = start.elapsed();
    drop(child);
    done.store(true, Ordering::Relaxed);
    let polled = poller.and_then(|p| p.join().ok()).unwrap_or(0);
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -libc::WTERMSIG(status) };
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    println!(
        "{} {} {} {} {} {}",
        wall.as_nanos(),
        tv(ru.ru_utime) + tv(ru.ru_stime),
        ru.ru_maxrss,
        polled,
        wrapper_kib,
        code
    );
    ExitCode::SUCCESS
}

/// This process's CPU time so far (user + system, all threads).
pub fn self_cpu() -> Duration {
    let ru = self_rusage();
    let tv =
        |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn self_rusage() -> libc::rusage {
    // SAFETY: rusage is plain old data, filled by getrusage.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    ru
}

fn vm_hwm_kib(status: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(status).ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    line["VmHWM:".len()..].trim().trim_end_matches("kB").trim().parse().ok()
}
