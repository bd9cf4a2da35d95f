//! The Linux collector on real partitions and filesystems: a sparse image partitioned with
//! sfdisk (one partition at sector 63, one at 2048-sector alignment), attached with losetup,
//! formatted ext4 (`-E stride=16,stripe_width=64`) and XFS (`-d su=64k,sw=4`), mounted (ext4 with
//! `noatime` on a path with a space, XFS twice through a bind mount), then collected live.
//!
//! Needs root, loop devices and util-linux/fdisk/e2fsprogs/xfsprogs
//! (scripts/install-test-tools.sh). Where any of that is missing the test fails in CI and skips
//! elsewhere, saying why (`spindle_test_support::tier`): CI never passes without having looked.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use spindle_core::facts::Backing;
use spindle_test_support::tier;

const MIB: u64 = 1024 * 1024;
const P1_START: u64 = 63;
const P1_SECTORS: u64 = 256 * 2048;
const P2_START: u64 = 260 * 2048;

fn run(cmd: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .map_err(|e| format!("{cmd}: {e} (run scripts/install-test-tools.sh)"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd} {args:?}: {} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn must(cmd: &str, args: &[&str]) -> String {
    run(cmd, args).unwrap_or_else(|e| panic!("{e}"))
}

/// Undoes the setup whatever happens: unmounts (last first), removes the partitions, detaches
/// the loop device.
struct Guard {
    loop_dev: Option<String>,
    mounts: Vec<PathBuf>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        for m in self.mounts.iter().rev() {
            if let Err(e) = run("umount", &[m.to_str().unwrap()]) {
                eprintln!("cleanup: {e}");
            }
        }
        if let Some(l) = &self.loop_dev {
            let _ = run("partx", &["-d", l]);
            if let Err(e) = run("losetup", &["-d", l]) {
                eprintln!("cleanup: {e}");
            }
        }
    }
}

fn wait_for(p: &Path) {
    let start = Instant::now();
    while !p.exists() {
        assert!(start.elapsed() < Duration::from_secs(10), "{} did not appear", p.display());
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn loop_device_partitions_and_filesystems() {
    if !tier::root("attaching loop devices and mounting filesystems") {
        return;
    }
    for tool in ["sfdisk", "losetup", "partx", "mkfs.ext4", "mkfs.xfs", "mount", "umount"] {
        if run("sh", &["-c", &format!("command -v {tool}")]).is_err() {
            tier::unavailable(&format!("{tool} is missing: run scripts/install-test-tools.sh"), &[]);
            return;
        }
    }

    let tmp = tempfile::tempdir().unwrap();
    let img = tmp.path().join("disk.img");
    let size = 1200 * MIB;
    std::fs::File::create(&img).unwrap().set_len(size).unwrap();
    let layout =
        format!("label: dos\nstart={P1_START}, size={P1_SECTORS}, type=83\nstart={P2_START}, type=83\n");
    let mut child = Command::new("sfdisk")
        .args(["-q", img.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("sfdisk");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), layout.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success(), "sfdisk failed");

    let mut guard = Guard { loop_dev: None, mounts: vec![] };
    let loop_dev = run("losetup", &["-fP", "--show", img.to_str().unwrap()])
        .unwrap_or_else(|e| panic!("the kernel refused a loop device: {e}"));
    guard.loop_dev = Some(loop_dev.clone());
    let name = loop_dev.trim_start_matches("/dev/").to_string();
    let (p1, p2) = (format!("{name}p1"), format!("{name}p2"));
    // losetup -P asks the kernel to scan the table; where it does not, partx adds the partitions.
    if !Path::new("/sys/class/block").join(&p1).exists() {
        must("partx", &["-a", &loop_dev]);
    }
    wait_for(&Path::new("/dev").join(&p1));
    wait_for(&Path::new("/dev").join(&p2));

    must("mkfs.ext4", &["-q", "-F", "-b", "4096", "-E", "stride=16,stripe_width=64", &format!("/dev/{p1}")]);
    must("mkfs.xfs", &["-q", "-f", "-d", "su=64k,sw=4", &format!("/dev/{p2}")]);
    let ext4_dir = tmp.path().join("ext 4");
    let xfs_dir = tmp.path().join("xfs");
    let bind_dir = tmp.path().join("xfs-bind");
    for d in [&ext4_dir, &xfs_dir, &bind_dir] {
        std::fs::create_dir(d).unwrap();
    }
    must("mount", &["-o", "noatime", &format!("/dev/{p1}"), ext4_dir.to_str().unwrap()]);
    guard.mounts.push(ext4_dir.clone());
    must("mount", &[&format!("/dev/{p2}"), xfs_dir.to_str().unwrap()]);
    guard.mounts.push(xfs_dir.clone());
    must("mount", &["--bind", xfs_dir.to_str().unwrap(), bind_dir.to_str().unwrap()]);
    guard.mounts.push(bind_dir.clone());

    let snap = spindle_collectors::linux::collect_live().expect("collect_live");
    let nc = &snap.collectors[0].not_collected;

    // The disk and its partitions: offsets are sectors x 512.
    let disk = snap.disks.as_ref().unwrap().iter().find(|d| d.id == name).expect("the loop disk");
    assert_eq!(disk.size_bytes, Some(size));
    assert_eq!(disk.logical_sector_bytes, Some(512));
    assert!(disk.media.is_some(), "media is read from queue/rotational");
    let parts = snap.partitions.as_ref().unwrap();
    let part = |id: &str| parts.iter().find(|p| p.id == id).unwrap_or_else(|| panic!("partition {id}"));
    assert_eq!((part(&p1).disk_id.as_str(), part(&p1).number), (name.as_str(), Some(1)));
    assert_eq!(part(&p1).offset_bytes, Some(P1_START * 512));
    assert_eq!(part(&p1).offset_bytes, Some(32_256));
    assert_eq!(part(&p1).size_bytes, Some(P1_SECTORS * 512));
    assert_eq!((part(&p2).disk_id.as_str(), part(&p2).number), (name.as_str(), Some(2)));
    assert_eq!(part(&p2).offset_bytes, Some(P2_START * 512));
    assert_eq!(part(&p2).size_bytes, Some(size - P2_START * 512));

    let vols = snap.volumes.as_ref().unwrap();
    let vol = |id: &str| {
        vols.iter().find(|v| v.id == format!("/dev/{id}")).unwrap_or_else(|| panic!("volume /dev/{id}"))
    };

    // ext4: noatime, 4 KiB blocks, stride 16 x 4 KiB and stripe_width 64 x 4 KiB from the superblock.
    let e = vol(&p1);
    assert_eq!(e.mount_points, [ext4_dir.to_str().unwrap()], "the \\040 escape is decoded");
    assert_eq!(e.filesystem.as_deref(), Some("ext4"));
    let e_opts = e.mount_options.as_ref().unwrap();
    assert!(e_opts.iter().any(|o| o == "noatime"), "{e_opts:?}");
    assert!(e_opts.iter().any(|o| o == "stripe=64"), "{e_opts:?}");
    assert_eq!(e.allocation_unit_bytes, Some(4096));
    assert_eq!(e.fs_stripe_unit_bytes, Some(64 * 1024), "{nc:?}");
    assert_eq!(e.fs_stripe_width_bytes, Some(256 * 1024));
    assert_eq!(e.backed_by, Some(Backing::Partitions(vec![p1.clone()])));
    assert_eq!(e.os_volume, Some(false));
    let (esize, efree) = (e.size_bytes.unwrap(), e.free_bytes.unwrap());
    assert!(esize > 200 * MIB && esize <= P1_SECTORS * 512 && efree < esize, "{esize} {efree}");

    // XFS: sunit=128,swidth=512 in 512-byte units are 64 KiB and 256 KiB; one volume, two mounts.
    let x = vol(&p2);
    assert_eq!(x.mount_points, [xfs_dir.to_str().unwrap(), bind_dir.to_str().unwrap()]);
    assert_eq!(x.filesystem.as_deref(), Some("xfs"));
    let x_opts = x.mount_options.as_ref().unwrap();
    assert!(
        x_opts.iter().any(|o| o == "sunit=128") && x_opts.iter().any(|o| o == "swidth=512"),
        "{x_opts:?}"
    );
    assert!(!x_opts.iter().any(|o| o == "noatime"));
    assert_eq!(x.fs_stripe_unit_bytes, Some(65_536));
    assert_eq!(x.fs_stripe_width_bytes, Some(262_144));
    let x_unit: u64 = must("stat", &["-f", "-c", "%S", xfs_dir.to_str().unwrap()]).parse().unwrap();
    assert_eq!(x.allocation_unit_bytes, Some(x_unit));
    assert_eq!(x.allocation_unit_bytes, Some(4096));
    assert_eq!(x.backed_by, Some(Backing::Partitions(vec![p2.clone()])));
    assert_eq!(vols.iter().filter(|v| v.id == format!("/dev/{p2}")).count(), 1);

    // Nothing about these volumes is missing.
    let ours: Vec<_> = nc.iter().filter(|n| n.fact.contains(&name)).collect();
    assert!(ours.is_empty(), "{ours:?}");
    drop(guard);
}
