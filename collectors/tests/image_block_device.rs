//! The image collector on a real block device (a loop device over an image built with sfdisk
//! and mkfs.xfs): `File`'s size comes from seeking to the end, since a block device's metadata
//! length is 0. Needs root, loop devices and the disk tools: where they are missing it fails in
//! CI and skips elsewhere, saying why (`spindle_test_support::tier`).

#![cfg(target_os = "linux")]

use spindle_collectors::image;
use spindle_test_support::disk_tools::{self, MIB, TempDir, mkfs_xfs, open, run, s, splice};
use spindle_test_support::tier;

#[test]
fn loop_device_reads_like_its_image() {
    if !disk_tools::ready() || !tier::root("attaching a loop device") {
        return;
    }
    let dir = TempDir::new("loop");
    let disk = dir.sparse("disk.img", 80 * MIB);
    run("sfdisk", &["-q", s(&disk)], Some("label: dos\nstart=2048, size=131072, type=83\n"), &[]);
    splice(&mkfs_xfs(&dir, "p1.xfs"), &disk, MIB);
    let dev = run("losetup", &["--find", "--show", "--read-only", s(&disk)], None, &[]).trim().to_string();
    let from_dev = image::collect(&open(dev.as_ref()), "loop");
    run("losetup", &["--detach", &dev], None, &[]);
    let from_dev = from_dev.unwrap();
    let from_file = image::collect(&open(&disk), "loop").unwrap();
    assert_eq!(from_dev.disk.size_bytes, Some(80 * MIB));
    assert_eq!(from_dev, from_file);
}
