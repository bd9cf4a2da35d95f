//! The Linux collector on this machine's own sysfs, mountinfo and statfs, checked against the
//! same facts read another way (stat(1), blockdev(8), findmnt(8), the sysfs files directly).
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::Command;

use spindle_core::facts::{Backing, OsFamily};

fn run(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{cmd} {args:?}: {e} (run scripts/install-test-tools.sh)"));
    assert!(out.status.success(), "{cmd} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn sysfs_number(p: &Path) -> u64 {
    std::fs::read_to_string(p).unwrap().trim().parse().unwrap()
}

#[test]
fn finds_the_root_filesystem_as_the_kernel_reports_it() {
    let snap = spindle_collectors::linux::collect_live().expect("collect_live");
    assert_eq!(snap.schema_version, spindle_core::facts::SCHEMA_VERSION);
    assert_eq!(snap.collectors[0].name, "linux");
    assert!(snap.collected_at.is_some());

    // The root's device, independently: stat(2) st_dev -> /sys/dev/block/M:m -> kernel name.
    let dev = std::os::unix::fs::MetadataExt::dev(&std::fs::metadata("/").unwrap());
    let (major, minor) = spindle_collectors::linux::statfs::split_dev(dev);
    let sys_dev = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    let canonical = std::fs::canonicalize(&sys_dev).unwrap_or_else(|e| {
        panic!("/ is on {major}:{minor}, which is not a block device ({e}): this test needs a root on a disk")
    });
    let name = canonical.file_name().unwrap().to_str().unwrap().to_string();

    let volumes = snap.volumes.as_ref().expect("volumes collected");
    let root_vol = volumes.iter().find(|v| v.mount_points.iter().any(|m| m == "/")).expect("a volume at /");
    assert_eq!(root_vol.id, format!("/dev/{name}"));
    assert_eq!(root_vol.os_volume, Some(true));
    assert_eq!(volumes.iter().filter(|v| v.os_volume == Some(true)).count(), 1);
    assert_eq!(root_vol.filesystem.as_deref(), Some(run("findmnt", &["-n", "-o", "FSTYPE", "/"]).as_str()));
    let unit: u64 = run("stat", &["-f", "-c", "%S", "/"]).parse().unwrap();
    assert_eq!(root_vol.allocation_unit_bytes, Some(unit));
    let blocks: u64 = run("stat", &["-f", "-c", "%b", "/"]).parse().unwrap();
    assert_eq!(root_vol.size_bytes, Some(blocks * unit));
    assert!(root_vol.free_bytes.unwrap() <= root_vol.size_bytes.unwrap());
    let opts = run("findmnt", &["-n", "-o", "VFS-OPTIONS", "/"]);
    for o in opts.split(',') {
        assert!(root_vol.mount_options.as_ref().unwrap().iter().any(|m| m == o), "mount option {o} missing");
    }

    let disks = snap.disks.as_ref().expect("disks collected");
    let partitions = snap.partitions.as_ref().expect("partitions collected");
    let disk_name = if sys_dev.join("partition").exists() {
        let start = sysfs_number(&sys_dev.join("start"));
        let p = partitions.iter().find(|p| p.id == name).expect("the root partition");
        assert_eq!(p.offset_bytes, Some(start * 512));
        assert_eq!(p.size_bytes, Some(sysfs_number(&sys_dev.join("size")) * 512));
        assert_eq!(p.number, Some(sysfs_number(&sys_dev.join("partition")) as u32));
        assert_eq!(root_vol.backed_by, Some(Backing::Partitions(vec![name.clone()])));
        let parent = canonical.parent().unwrap().file_name().unwrap().to_str().unwrap().to_string();
        assert_eq!(p.disk_id, parent);
        parent
    } else {
        eprintln!("/ is on the whole device {name} (no partition table): no partition offset to check");
        name.clone()
    };
    let disk = disks.iter().find(|d| d.id == disk_name).expect("the root's disk");
    // The disk's size and sector sizes from the BLKGETSIZE64/BLKSSZGET/BLKPBSZGET ioctls when the
    // device node can be opened (a sandbox may forbid it), else from the sysfs files directly.
    let dev_node = format!("/dev/{disk_name}");
    let ioctl = |flag: &str| -> Option<u64> {
        let out = Command::new("blockdev").args([flag, &dev_node]).output().ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().parse().ok())?
    };
    let queue = |f: &str| sysfs_number(&Path::new("/sys/block").join(&disk_name).join("queue").join(f));
    match (ioctl("--getsize64"), ioctl("--getss"), ioctl("--getpbsz")) {
        (Some(size), Some(ss), Some(pbsz)) => {
            assert_eq!(disk.size_bytes, Some(size));
            assert_eq!(disk.logical_sector_bytes, Some(ss as u32));
            assert_eq!(disk.physical_sector_bytes, Some(pbsz as u32));
        }
        _ => {
            eprintln!("blockdev cannot open {dev_node}: comparing with sysfs instead");
            let size = sysfs_number(&Path::new("/sys/block").join(&disk_name).join("size"));
            assert_eq!(disk.size_bytes, Some(size * 512));
            assert_eq!(disk.logical_sector_bytes, Some(queue("logical_block_size") as u32));
            assert_eq!(disk.physical_sector_bytes, Some(queue("physical_block_size") as u32));
        }
    }
    // Media is what queue/rotational says (virtual disks often claim 1), or nvme by name.
    let rot = std::fs::read_to_string(format!("/sys/block/{disk_name}/queue/rotational")).unwrap();
    let want = if disk_name.starts_with("nvme") {
        "nvme"
    } else if rot.trim() == "1" {
        "hdd"
    } else {
        "ssd"
    };
    assert_eq!(serde_json::to_value(disk.media).unwrap(), want);

    let host = &snap.host;
    assert_eq!(host.name, std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap().trim());
    assert_eq!(host.os_family, Some(OsFamily::Linux));
    assert_eq!(host.cpu_count, Some(run("getconf", &["_NPROCESSORS_ONLN"]).parse().unwrap()));
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
    let kib: u64 = meminfo.lines().next().unwrap().split_whitespace().nth(1).unwrap().parse().unwrap();
    assert_eq!(host.memory_bytes, Some(kib * 1024));
    if host.cloud_provider.is_none() {
        let nc = &snap.collectors[0].not_collected;
        assert!(nc.iter().any(|n| n.fact == "host.cloud_provider"), "absent cloud_provider has a reason");
    }

    // Every mount point of every volume is one mountinfo lists, exactly.
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    for v in volumes {
        for m in &v.mount_points {
            let escaped = m.replace('\\', "\\134").replace(' ', "\\040").replace('\t', "\\011");
            assert!(mountinfo.lines().any(|l| l.split(' ').nth(4) == Some(escaped.as_str())), "{m}");
        }
    }
}
