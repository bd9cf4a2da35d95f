//! Hostile files: see main.rs. Named pipes and endless devices where a file is expected (item
//! 6: snapshots, plugins, packs, images, inventories), snapshots through pipes (7), signals
//! mid-run (13), the modes and owners of what spindle writes (14), a report to stdout without
//! `$TMPDIR` (15), and one snapshot that cannot be saved in a fleet (16).
//!
//! Every case runs the binary under a deadline: a hang fails the case rather than the suite, and
//! an endless read runs under a memory limit rather than against the machine's.

use std::ffi::CString;
use std::fs;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::OnceLock;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;
use spindle_test_support::{fleet_gen, mock_sql};
use tempfile::TempDir;

use spindle_test_support::SECTOR_63;

const PASSWORD: &str = "s3cr3t-Pa55word";

/// Longest any one run may take before it counts as a hang.
const DEADLINE: Duration = Duration::from_secs(30);

/// Address space allowed to a run that reads something endless: the cap is 64 MiB, so a run
/// that trusts no size stays far below; one that reads to the end fails here, not the machine.
const MEMORY_LIMIT: u64 = 2 << 30;

fn spindle() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_spindle"));
    c.env("SPINDLE_TODAY", "2026-11-30").env_remove("NO_COLOR").stdin(Stdio::null());
    c.env_remove("FORCE_COLOR").env_remove("CLICOLOR_FORCE").env_remove("COLUMNS");
    c
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
}

fn limit_memory(cmd: &mut Command) {
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: MEMORY_LIMIT, rlim_max: MEMORY_LIMIT };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
}

fn with_umask(cmd: &mut Command, mask: libc::mode_t) {
    // SAFETY: umask is async-signal-safe and cannot fail.
    unsafe {
        cmd.pre_exec(move || {
            libc::umask(mask);
            Ok(())
        })
    };
}

fn drain(mut r: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

/// The child's exit status, if it exits within `within`. Polling is process supervision here,
/// not synchronisation with what the child does.
fn wait_until(child: &mut Child, within: Duration) -> Option<ExitStatus> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if start.elapsed() > within {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `cmd` to its end, output captured; still running at the deadline, it is killed and the
/// case fails as a hang.
fn run(mut cmd: Command, stdin: Option<&'static str>) -> Output {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    if stdin.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut child = cmd.spawn().expect("spindle runs");
    if let Some(text) = stdin {
        let mut input = child.stdin.take().unwrap();
        std::thread::spawn(move || {
            let _ = input.write_all(text.as_bytes());
        });
    }
    let (out, err) = (drain(child.stdout.take().unwrap()), drain(child.stderr.take().unwrap()));
    let Some(status) = wait_until(&mut child, DEADLINE) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "hung: still running after {DEADLINE:?} ({cmd:?}); stderr: {}",
            String::from_utf8_lossy(&err.join().unwrap())
        );
    };
    Output { status, stdout: out.join().unwrap(), stderr: err.join().unwrap() }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit status 2, with `words` in the error (as one line: miette wraps it in a frame).
fn refused(o: &Output, words: &[&str]) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    let line = e.split_whitespace().filter(|w| *w != "│").collect::<Vec<_>>().join(" ");
    for w in words {
        assert!(line.contains(w), "`{w}` missing from: {e}");
    }
}

fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

#[test]
fn item06_fifo_in_snapshot_dir_is_refused_not_waited_on() {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "a.json", SECTOR_63);
    mkfifo(&dir.path().join("b.json"));
    let mut cmd = spindle();
    cmd.arg("check").arg(dir.path());
    refused(&run(cmd, None), &["b.json", "not a regular file", "named pipe"]);

    // Through a link, the same.
    let linked = TempDir::new().unwrap();
    std::os::unix::fs::symlink(dir.path().join("b.json"), linked.path().join("c.json")).unwrap();
    let mut cmd = spindle();
    cmd.arg("check").arg(linked.path());
    refused(&run(cmd, None), &["c.json", "not a regular file"]);
}

#[test]
fn item06_fifo_or_endless_input_as_snapshot_argument_is_bounded() {
    let dir = TempDir::new().unwrap();
    let fifo = dir.path().join("snap.json");
    mkfifo(&fifo);
    // No writer: refused at once, rather than waiting in open.
    let mut cmd = spindle();
    cmd.arg("check").arg(&fifo);
    refused(&run(cmd, None), &["snap.json", "named pipe"]);

    // Endless devices and pipes: read to one byte over the cap, then refused.
    let mut cmd = spindle();
    cmd.args(["check", "/dev/zero"]);
    limit_memory(&mut cmd);
    refused(&run(cmd, None), &["/dev/zero", "a snapshot is at most"]);

    let mut yes = Command::new("yes").stdout(Stdio::piped()).spawn().unwrap();
    let mut cmd = spindle();
    cmd.args(["check", "/dev/stdin"]).stdin(yes.stdout.take().unwrap());
    limit_memory(&mut cmd);
    refused(&run(cmd, None), &["/dev/stdin", "a snapshot is at most"]);
    let _ = yes.kill();
    let _ = yes.wait();
}

#[test]
fn item06_fifo_as_plugin_path_is_refused() {
    let dir = TempDir::new().unwrap();
    let good = write(dir.path(), "a.json", SECTOR_63);
    let wasm = dir.path().join("plugin.wasm");
    mkfifo(&wasm);
    let mut cmd = spindle();
    cmd.args(["plugin", "inspect"]).arg(&wasm);
    refused(&run(cmd, None), &["plugin.wasm", "named pipe"]);

    let pack = write(dir.path(), "pack.toml", "[plugins.p]\npath = \"plugin.wasm\"\n");
    let mut cmd = spindle();
    cmd.arg("check").arg(&good).arg("--pack").arg(&pack);
    refused(&run(cmd, None), &["plugin.wasm", "named pipe"]);
}

#[test]
fn item06_fifo_as_pack_is_refused() {
    let dir = TempDir::new().unwrap();
    let good = write(dir.path(), "a.json", SECTOR_63);
    let pack = dir.path().join("fifo.toml");
    mkfifo(&pack);
    let mut cmd = spindle();
    cmd.arg("check").arg(&good).arg("--pack").arg(&pack);
    refused(&run(cmd, None), &["fifo.toml", "named pipe"]);
}

/// `--inventory` is opened like a pack: a named pipe is refused without waiting for a writer, a
/// device is refused unread, and a file over the 4 MiB cap is refused by its size.
#[test]
fn item06_fifo_device_or_oversized_inventory_is_refused() {
    let dir = TempDir::new().unwrap();
    let fifo = dir.path().join("servers.toml");
    mkfifo(&fifo);
    let mut cmd = spindle();
    cmd.args(["check", "--inventory"]).arg(&fifo);
    refused(&run(cmd, None), &["servers.toml", "not a regular file", "named pipe"]);

    let mut cmd = spindle();
    cmd.args(["check", "--inventory", "/dev/zero"]);
    limit_memory(&mut cmd);
    refused(&run(cmd, None), &["/dev/zero", "character device"]);

    // Sparse: 4 MiB and one byte that take no disk.
    let big = dir.path().join("big.toml");
    fs::File::create(&big).unwrap().set_len((4 << 20) + 1).unwrap();
    let mut cmd = spindle();
    cmd.args(["check", "--inventory"]).arg(&big);
    limit_memory(&mut cmd);
    refused(&run(cmd, None), &["big.toml", "4194305 bytes", "an inventory is at most 4194304 bytes"]);

    // At the cap it is read, and judged as TOML.
    let at_cap = dir.path().join("at-cap.toml");
    let mut text = b"[[server]]\nname = \"sql01\"\nbad = 1\n".to_vec();
    text.resize(4 << 20, b'#');
    fs::write(&at_cap, text).unwrap();
    let mut cmd = spindle();
    cmd.args(["check", "--inventory"]).arg(&at_cap);
    refused(&run(cmd, None), &["at-cap.toml:3:1:", "unknown field `bad`"]);
}

#[test]
fn item06_fifo_or_character_device_as_image_is_refused() {
    let dir = TempDir::new().unwrap();
    let fifo = dir.path().join("disk.img");
    mkfifo(&fifo);
    let mut cmd = spindle();
    cmd.args(["collect", "host", "--image"]).arg(&fifo);
    refused(&run(cmd, None), &["disk.img", "named pipe", "not a disk image or block device"]);

    let mut cmd = spindle();
    cmd.args(["collect", "host", "--image", "/dev/zero"]);
    limit_memory(&mut cmd);
    refused(&run(cmd, None), &["/dev/zero", "character device"]);
}

#[test]
fn item07_snapshot_through_a_pipe_is_read_once() {
    let host_of = |o: &Output| -> Value {
        assert_eq!(o.status.code(), Some(1), "{}", stderr(o));
        let report: Value = serde_json::from_slice(&o.stdout).expect("a JSON report");
        report["hosts"][0]["host"].clone()
    };
    for arg in ["/dev/stdin", "-"] {
        let mut cmd = spindle();
        cmd.args(["check", "--format", "json", arg]);
        assert_eq!(host_of(&run(cmd, Some(SECTOR_63))), "sql01", "{arg}");
    }
    // Process substitution, as `spindle check <(gunzip -c s.json.gz)`.
    let dir = TempDir::new().unwrap();
    let f = write(dir.path(), "s.json", SECTOR_63);
    let mut cmd = Command::new("bash");
    cmd.args(["-c", r#"exec "$0" check --format json <(cat "$1")"#, env!("CARGO_BIN_EXE_spindle")])
        .arg(&f)
        .env("SPINDLE_TODAY", "2026-11-30")
        .stdin(Stdio::null());
    assert_eq!(host_of(&run(cmd, None)), "sql01");

    // Standard input is read once.
    let mut cmd = spindle();
    cmd.args(["check", "-", "-"]);
    refused(&run(cmd, Some(SECTOR_63)), &["standard input"]);
}

/// A fleet whose check outlasts the time it takes to signal it: generated once for the cases
/// that interrupt a run.
fn fleet() -> &'static Path {
    static FLEET: OnceLock<TempDir> = OnceLock::new();
    FLEET
        .get_or_init(|| {
            let dir = TempDir::new().unwrap();
            fleet_gen::generate(dir.path(), 3000).unwrap();
            dir
        })
        .path()
}

/// Waits until `child` holds a file open in `dir` (its temporary report, with or without a
/// name) that satisfies `ready`; returns that file's descriptor link. Fails if the child ends
/// first or the deadline passes.
fn staged_file(child: &mut Child, dir: &Path, ready: impl Fn(&fs::Metadata) -> bool) -> PathBuf {
    let fds = PathBuf::from(format!("/proc/{}/fd", child.id()));
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended ({status}) before it was interrupted: make the fleet larger");
        }
        for fd in fs::read_dir(&fds).into_iter().flatten().flatten() {
            let (Ok(target), Ok(meta)) = (fs::read_link(fd.path()), fs::metadata(fd.path())) else {
                continue;
            };
            if target.starts_with(dir) && meta.is_file() && ready(&meta) {
                return fd.path();
            }
        }
        assert!(start.elapsed() < DEADLINE, "no temporary report in {} after {DEADLINE:?}", dir.display());
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn signal(child: &Child, sig: libc::c_int) {
    // SAFETY: a signal to our own, not yet reaped, child.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
}

fn interrupted_check(out: &Path) -> Child {
    spindle()
        .args(["check", "--format", "json", "--jobs", "1", "-o"])
        .arg(out.join("report.json"))
        .arg(fleet())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn item13_sigterm_and_sigint_leave_no_temp_file() {
    for (sig, code) in [(libc::SIGTERM, 143), (libc::SIGINT, 130)] {
        let out = TempDir::new().unwrap();
        let mut child = interrupted_check(out.path());
        staged_file(&mut child, out.path(), |_| true);
        signal(&child, sig);
        let status = wait_until(&mut child, DEADLINE).expect("the run ends when signalled");
        assert_eq!(status.code(), Some(code), "signal {sig}: {status}");
        assert_eq!(leftovers(out.path()), Vec::<String>::new(), "signal {sig}");
    }
}

#[test]
fn item13_sigkill_leaves_no_temp_file() {
    let out = TempDir::new().unwrap();
    let mut child = interrupted_check(out.path());
    // Killed mid-write: once part of the report is in the temporary file.
    staged_file(&mut child, out.path(), |m| m.len() > 0);
    signal(&child, libc::SIGKILL);
    let status = wait_until(&mut child, DEADLINE).expect("SIGKILL ends the run");
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    assert_eq!(leftovers(out.path()), Vec::<String>::new());
}

/// A pseudo-terminal: the master end, and the path of the slave end.
fn pty() -> (fs::File, PathBuf) {
    use std::os::fd::FromRawFd;
    // SAFETY: posix_openpt returns a new descriptor or -1; grantpt, unlockpt and ptsname_r act
    // on it; ptsname_r writes a NUL-terminated name into `name`.
    unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(master >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
        assert_eq!(libc::grantpt(master), 0);
        assert_eq!(libc::unlockpt(master), 0);
        let mut name = [0 as libc::c_char; 128];
        assert_eq!(libc::ptsname_r(master, name.as_mut_ptr(), name.len()), 0);
        let slave = std::ffi::CStr::from_ptr(name.as_ptr()).to_str().unwrap().to_owned();
        (fs::File::from_raw_fd(master), PathBuf::from(slave))
    }
}

#[test]
fn item13_ctrl_c_at_the_password_prompt_restores_echo() {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let (mut master, slave_path) = pty();
    let slave =
        fs::OpenOptions::new().read(true).write(true).custom_flags(libc::O_NOCTTY).open(&slave_path).unwrap();
    let mut cmd = spindle();
    cmd.args(["collect", "sql", "--server", "127.0.0.1,1", "--user", "spindle"])
        .env_remove("SPINDLE_SQL_PASSWORD")
        .stdin(slave.try_clone().unwrap())
        .stdout(slave.try_clone().unwrap())
        .stderr(slave.try_clone().unwrap());
    // SAFETY: setsid and ioctl are async-signal-safe: the child leads a session whose
    // controlling terminal is the pty, as at a console, so Ctrl-C there is its SIGINT.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
    let mut child = cmd.spawn().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let mut reader = master.try_clone().unwrap();
    // Detached: it ends with the test process (a read of the master waits while the slave is open).
    std::thread::spawn(move || {
        let mut buf = [0u8; 256];
        while let Ok(n @ 1..) = reader.read(&mut buf) {
            if tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut screen = Vec::new();
    let start = Instant::now();
    while !String::from_utf8_lossy(&screen).contains("Password for spindle:") {
        let left = DEADLINE.checked_sub(start.elapsed()).unwrap_or_else(|| {
            let _ = child.kill();
            panic!("no password prompt: {}", String::from_utf8_lossy(&screen))
        });
        match rx.recv_timeout(left) {
            Ok(bytes) => screen.extend(bytes),
            Err(_) => continue,
        }
    }
    master.write_all(b"\x03").unwrap();
    let status = wait_until(&mut child, DEADLINE).unwrap_or_else(|| {
        let _ = child.kill();
        panic!("Ctrl-C did not end the run")
    });
    assert_eq!(status.code(), Some(130), "{status}");
    // SAFETY: termios is plain data, filled by tcgetattr for the open slave.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::tcgetattr(slave.as_raw_fd(), &mut t) }, 0);
    assert_ne!(t.c_lflag & libc::ECHO, 0, "echo left off after Ctrl-C at the password prompt");
}

#[test]
fn item14_written_files_keep_mode_and_owner_else_honour_the_umask() {
    let dir = TempDir::new().unwrap();
    let good = write(dir.path(), "a.json", SECTOR_63);
    let report = dir.path().join("report.json");
    let check = || {
        let mut cmd = spindle();
        cmd.arg("check").arg(&good).args(["--format", "json", "-o"]).arg(&report);
        with_umask(&mut cmd, 0o022);
        let o = run(cmd, None);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    };
    check();
    assert_eq!(fs::metadata(&report).unwrap().mode() & 0o7777, 0o644, "a new report honours the umask");

    // A report replaced keeps its mode, and as root its owner: a CI step running as that user
    // must still read it.
    fs::set_permissions(&report, fs::Permissions::from_mode(0o640)).unwrap();
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        std::os::unix::fs::chown(&report, Some(65534), Some(65534)).unwrap();
    }
    check();
    let meta = fs::metadata(&report).unwrap();
    assert_eq!(meta.mode() & 0o7777, 0o640);
    if root {
        assert_eq!((meta.uid(), meta.gid()), (65534, 65534));
    }
    let report: Value = serde_json::from_str(&fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(report["hosts"][0]["host"], "sql01", "the file is the new report");

    // Snapshots too.
    let peers = mock_sql::Peers::new();
    let server = peers.sql(mock_sql::healthy("SQL01"));
    let snap = dir.path().join("snap.json");
    let mut cmd = spindle();
    cmd.args(["collect", "sql", "--server", &server, "--user", "spindle", "--encrypt", "off", "-o"])
        .arg(&snap)
        .env("SPINDLE_SQL_PASSWORD", PASSWORD);
    with_umask(&mut cmd, 0o022);
    let o = run(cmd, None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(fs::metadata(&snap).unwrap().mode() & 0o7777, 0o644, "a new snapshot honours the umask");
}

#[test]
fn item15_stdout_report_needs_no_tmpdir() {
    let dir = TempDir::new().unwrap();
    let good = write(dir.path(), "a.json", SECTOR_63);
    let empty = TempDir::new().unwrap();
    for tmpdir in [dir.path().join("missing"), empty.path().to_path_buf()] {
        let mut cmd = spindle();
        cmd.arg("check").arg(&good).args(["--format", "json"]).env("TMPDIR", &tmpdir);
        let o = run(cmd, None);
        assert_eq!(o.status.code(), Some(1), "TMPDIR={}: {}", tmpdir.display(), stderr(&o));
        let report: Value = serde_json::from_slice(&o.stdout).expect("the report on stdout");
        assert_eq!(report["hosts"][0]["host"], "sql01");
    }
    assert_eq!(leftovers(empty.path()), Vec::<String>::new(), "nothing staged in $TMPDIR");
}

#[test]
fn item16_unsaveable_snapshot_is_that_servers_error() {
    let peers = mock_sql::Peers::new();
    let (blocked, fine) = (peers.sql(mock_sql::healthy("SQL01")), peers.sql(mock_sql::healthy("SQL02")));
    let dir = TempDir::new().unwrap();
    let snaps = dir.path().join("snaps");
    // A directory where the first server's snapshot would go: no one, not even root, writes it.
    let in_the_way = snaps.join(format!("{}.json", blocked.replace(',', "_")));
    fs::create_dir_all(&in_the_way).unwrap();
    let mut cmd = spindle();
    cmd.args(["check", "--format", "json", "--server", &blocked, "--server", &fine])
        .args(["--user", "spindle", "--encrypt", "off", "--concurrency", "1", "--save-snapshots"])
        .arg(&snaps)
        .env("SPINDLE_SQL_PASSWORD", PASSWORD);
    let o = run(cmd, None);
    assert_eq!(o.status.code(), Some(2), "the run is incomplete: {}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("a whole report ({e}); stderr: {}", stderr(&o)));
    let hosts = report["hosts"].as_array().unwrap();
    let failed = hosts.iter().find(|h| h["host"] == blocked.as_str()).expect("the server's entry");
    let why = failed["collection_error"].as_str().expect("a collection error");
    assert!(why.contains(&in_the_way.display().to_string()), "{why}");
    let checked = hosts.iter().find(|h| h["host"] == "SQL02").expect("the other server, checked");
    assert!(checked["collection_error"].is_null());
    assert!(checked["rules_run"].as_u64().unwrap() > 0);
    assert_eq!(report["summary"]["collection_errors"], 1);
    assert!(snaps.join(format!("{}.json", fine.replace(',', "_"))).is_file());
}

#[test]
fn split_logs_sigterm_and_sigint_leave_no_staging_folder() {
    for (sig, code) in [(libc::SIGTERM, 143), (libc::SIGINT, 130)] {
        let out = TempDir::new().unwrap();
        let logs = out.path().join("sarif");
        let mut child = spindle()
            .args(["check", "--format", "sarif", "--jobs", "1", "--split-by", "host"])
            .arg(&logs)
            .arg(fleet())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // A host's log being written in the staging folder.
        staged_file(&mut child, &logs, |_| true);
        signal(&child, sig);
        let status = wait_until(&mut child, DEADLINE).expect("the run ends when signalled");
        assert_eq!(status.code(), Some(code), "signal {sig}: {status}");
        assert_eq!(leftovers(&logs), Vec::<String>::new(), "signal {sig}");
    }
}
