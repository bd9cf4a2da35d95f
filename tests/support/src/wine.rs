//! The cross-built `spindle.exe`, run under Wine: scripts/build-windows-exe.sh builds it beside
//! the Linux build (`<target>/x86_64-pc-windows-gnu/debug/`, with the test-only
//! `bcryptprimitives.dll` Wine 8.0 lacks) and makes the Wine prefix `<target>/wine-prefix`.
//!
//! When the exe or Wine is missing the tests skip, saying why, unless `CI` or
//! `SPINDLE_REQUIRE_WINE` is set (scripts/test.sh sets the latter): there a missing piece fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long one run of the exe may take under Wine before the test fails: a hang (a WMI query
/// that never returns) must fail the run, not stall CI. A run takes well under a second.
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// The Windows build and the Wine prefix it runs in.
pub struct Wine {
    pub exe: PathBuf,
    prefix: PathBuf,
}

impl Wine {
    /// The exe built for the Linux binary at `linux_bin` (`env!("CARGO_BIN_EXE_spindle")`,
    /// `<target>/debug/spindle`), or `None` after printing why the test skips.
    pub fn find(linux_bin: &str) -> Option<Wine> {
        let target = Path::new(linux_bin).parent().and_then(Path::parent).expect("<target>/debug/spindle");
        let exe = target.join("x86_64-pc-windows-gnu/debug/spindle.exe");
        let dll = exe.with_file_name("bcryptprimitives.dll");
        let wine =
            ["/usr/bin/wine", "/usr/local/bin/wine"].into_iter().map(PathBuf::from).find(|p| p.is_file());
        let why = if wine.is_none() {
            Some(
                "Wine is not installed: run scripts/install-test-tools.sh (Debian packages `wine`, `wine64`)",
            )
        } else if !exe.is_file() || !dll.is_file() {
            Some("spindle.exe is not built: run scripts/build-windows-exe.sh")
        } else {
            None
        };
        if let Some(why) = why {
            crate::tier::unavailable(why, &["SPINDLE_REQUIRE_WINE"]);
            return None;
        }
        Some(Wine { exe, prefix: target.join("wine-prefix") })
    }

    /// `spindle.exe` as the end-to-end tests run spindle (see `spindle_command`), under Wine with
    /// its own prefix and its debug channels off.
    pub fn command(&self) -> Command {
        let mut c = Command::new("wine");
        c.arg(&self.exe)
            .env("WINEPREFIX", &self.prefix)
            .env("WINEDEBUG", "-all")
            .env_remove("NO_COLOR")
            .env_remove("FORCE_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("COLUMNS")
            .env("SPINDLE_TODAY", "2026-11-30");
        c
    }

    /// The Unix path of `C:\…` in this prefix (`windows_path` without its `C:\`).
    pub fn drive_c(&self, windows_path: &str) -> PathBuf {
        let rest = windows_path.strip_prefix(r"C:\").expect(r"a C:\ path");
        rest.split('\\').fold(self.prefix.join("drive_c"), |p, part| p.join(part))
    }
}

/// Runs `command` to its end with stdin closed, failing the test if it runs longer than
/// [`RUN_LIMIT`] (and killing it).
pub fn run_bounded(mut command: Command) -> Output {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("wine starts");
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(RUN_LIMIT) {
        Ok(out) => out.expect("wine's output"),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("{command:?} ran longer than {RUN_LIMIT:?}");
        }
    }
}

/// What Wine itself writes to stderr (`wine: Read access denied for device …`, `wine: created
/// the configuration directory …`), removed: the program's own stderr is the rest.
pub fn program_stderr(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| !l.starts_with("wine: "))
        .map(|l| format!("{l}\n"))
        .collect()
}
