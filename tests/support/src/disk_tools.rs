//! Building disk images with the real partitioning and formatting tools, for the image
//! collector's integration tests. Each test asks [`ready`] first: a missing tool fails it in CI
//! and makes it skip elsewhere, naming the packages to install (see [`crate::tier`]).

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

pub const MIB: u64 = 1 << 20;

/// The Debian/Ubuntu package of each tool the tests run.
const PACKAGES: &[(&str, &str)] = &[
    ("sfdisk", "fdisk"),
    ("fdisk", "fdisk"),
    ("sgdisk", "gdisk"),
    ("mkntfs", "ntfs-3g"),
    ("ntfsinfo", "ntfs-3g"),
    ("mkfs.xfs", "xfsprogs"),
    ("xfs_db", "xfsprogs"),
    ("mke2fs", "e2fsprogs"),
    ("dumpe2fs", "e2fsprogs"),
    ("parted", "parted"),
    ("qemu-img", "qemu-utils"),
    ("dd", "coreutils"),
    ("losetup", "mount"),
];

/// Whether every tool of [`PACKAGES`] is installed; if not, the test cannot run here
/// ([`crate::tier::unavailable`]: a failure in CI, a skip elsewhere, naming the packages).
pub fn ready() -> bool {
    let mut missing: Vec<&str> =
        PACKAGES.iter().filter(|(t, _)| find(t).is_none()).map(|(_, p)| *p).collect();
    missing.dedup();
    if !missing.is_empty() {
        crate::tier::unavailable(
            &format!(
                "the disk-image tests need tools that are not installed: run `apt-get install -y {}` \
                 (or scripts/install-test-tools.sh)",
                missing.join(" ")
            ),
            &[],
        );
    }
    missing.is_empty()
}

fn find(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/bin", "/bin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The path of `tool`, or a panic saying how to install it.
pub fn tool(name: &str) -> PathBuf {
    if let Some(p) = find(name) {
        return p;
    }
    let pkg = PACKAGES.iter().find(|(t, _)| *t == name).map_or(name, |(_, p)| p);
    panic!(
        "the image tests need `{name}`, which is not installed: run `apt-get install -y {pkg}` \
         (or scripts/install-test-tools.sh, which installs every tool these tests use)"
    );
}

/// Runs `name args…` (with `stdin` fed in), panicking with its output when it fails.
pub fn run(name: &str, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> String {
    let out = run_status(name, args, stdin, env);
    assert!(
        out.status.success(),
        "`{name} {}` failed ({}):\n{}{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn run_status(name: &str, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(tool(name));
    cmd.args(args).stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    cmd.env("LC_ALL", "C");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    if let Some(s) = stdin {
        use std::io::Write;
        child.stdin.take().expect("stdin").write_all(s.as_bytes()).expect("write stdin");
    }
    child.wait_with_output().expect("wait")
}

/// A directory removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("spindle-image-{name}-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).expect("create temp dir");
        TempDir(p)
    }
    /// A sparse file of `len` bytes in the directory.
    pub fn sparse(&self, name: &str, len: u64) -> PathBuf {
        let p = self.0.join(name);
        File::create(&p).and_then(|f| f.set_len(len)).expect("create sparse file");
        p
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Copies the filesystem image `fs` into `disk` at byte `offset`, as `dd conv=notrunc` does
/// (skipping zeros keeps the disk sparse).
pub fn splice(fs: &Path, disk: &Path, offset: u64) {
    run(
        "dd",
        &[
            &format!("if={}", s(fs)),
            &format!("of={}", s(disk)),
            "bs=1M",
            &format!("seek={offset}"),
            "oflag=seek_bytes",
            "conv=notrunc,sparse",
            "status=none",
        ],
        None,
        &[],
    );
}

/// `mkntfs` on a file of `len` bytes: `sector`-byte sectors, `cluster`-byte clusters and
/// `hidden` sectors before it (the partition start the boot sector records).
pub fn mkntfs(dir: &TempDir, name: &str, len: u64, sector: u32, cluster: u32, hidden: u64) -> PathBuf {
    let p = dir.sparse(name, len);
    run(
        "mkntfs",
        &[
            "-F",
            "-Q",
            "-q",
            "-s",
            &sector.to_string(),
            "-c",
            &cluster.to_string(),
            "-p",
            &hidden.to_string(),
            s(&p),
        ],
        None,
        &[],
    );
    p
}

/// `mkfs.xfs` with a 64 KiB stripe unit over 4 data disks on a 64 MiB file. xfsprogs 5.19+
/// refuses filesystems under 300 MB unless it runs under fstests; the variables fstests sets
/// (TEST_DIR, TEST_DEV, QA_CHECK_FS) lift that check, and older xfsprogs ignore them.
pub fn mkfs_xfs(dir: &TempDir, name: &str) -> PathBuf {
    let p = dir.sparse(name, 64 * MIB);
    run(
        "mkfs.xfs",
        &["-q", "-f", "-d", "su=64k,sw=4", s(&p)],
        None,
        &[("TEST_DIR", "/tmp"), ("TEST_DEV", "/dev/null"), ("QA_CHECK_FS", "1")],
    );
    p
}

/// `mke2fs -t ext4` with a stride of 16 blocks and a stripe width of 64 on a 32 MiB file.
pub fn mke2fs(dir: &TempDir, name: &str) -> PathBuf {
    let p = dir.sparse(name, 32 * MIB);
    run(
        "mke2fs",
        &["-q", "-F", "-t", "ext4", "-b", "4096", "-E", "stride=16,stripe_width=64", s(&p)],
        None,
        &[],
    );
    p
}

/// Partition starts in bytes as parted reads them (`parted -m unit B print`), by number.
pub fn parted_starts(disk: &Path) -> Vec<(u32, u64)> {
    let out = run("parted", &["-s", "-m", s(disk), "unit", "B", "print"], None, &[]);
    out.lines()
        .skip(2)
        .filter_map(|l| {
            let mut f = l.split(':');
            let n = f.next()?.parse().ok()?;
            let start = f.next()?.strip_suffix('B')?.parse().ok()?;
            Some((n, start))
        })
        .collect()
}

/// parted's verdict on partition `n` (`align-check optimal`): its exit status is 0 when aligned.
pub fn parted_aligned(disk: &Path, n: u32) -> bool {
    run_status("parted", &["-s", s(disk), "align-check", "optimal", &n.to_string()], None, &[])
        .status
        .success()
}

/// The value after `key` in a tool's `key: value` or `key = value` output.
pub fn field(out: &str, key: &str) -> u64 {
    out.lines()
        .find_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix(key)?;
            rest.trim_start_matches([':', '=', ' ', '\t']).split_whitespace().next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no `{key}` in:\n{out}"))
}

pub fn open(p: &Path) -> File {
    OpenOptions::new().read(true).open(p).expect("open image")
}
