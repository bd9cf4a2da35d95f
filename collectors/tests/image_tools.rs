//! The image collector against images built by the real tools: sfdisk, fdisk and sgdisk
//! partition tables, mkntfs, mkfs.xfs and mke2fs filesystems, qemu-img VHDs. Where a tool can
//! read back what it wrote (parted, ntfsinfo, xfs_db, dumpe2fs, sgdisk -i), its reading is the
//! oracle; every expected value also follows from the command line that built the image.
//!
//! Needs: fdisk gdisk ntfs-3g xfsprogs e2fsprogs parted qemu-utils (scripts/install-test-tools.sh).

use spindle_collectors::image::{self, ImageError, ImageFacts, gpt};
use spindle_core::facts::{Backing, PartitionStyle, Volume};
use spindle_test_support::disk_tools::{
    self, MIB, TempDir, field, mke2fs, mkfs_xfs, mkntfs, open, parted_aligned, parted_starts, run, s, splice,
};

fn collect(p: &std::path::Path, id: &str) -> Result<ImageFacts, ImageError> {
    image::collect(&open(p), id)
}

fn volume<'a>(f: &'a ImageFacts, id: &str) -> &'a Volume {
    f.volumes.iter().flatten().find(|v| v.id == id).unwrap_or_else(|| panic!("no volume {id} in {f:#?}"))
}

fn offset(f: &ImageFacts, id: &str) -> u64 {
    f.partitions.iter().flatten().find(|p| p.id == id).and_then(|p| p.offset_bytes).expect(id)
}

/// Every partition spindle lists starts where parted says, and parted's `align-check optimal`
/// (1 MiB for an image file) agrees with spindle's offset.
fn agrees_with_parted(f: &ImageFacts, disk: &std::path::Path) {
    let starts = parted_starts(disk);
    for p in f.partitions.iter().flatten() {
        let n = p.number.expect("number");
        let (_, start) = starts.iter().find(|(pn, _)| *pn == n).unwrap_or_else(|| panic!("parted lacks {n}"));
        assert_eq!(p.offset_bytes, Some(*start), "partition {n}");
        assert_eq!(parted_aligned(disk, n), start % MIB == 0, "parted align-check of partition {n}");
    }
}

fn ntfsinfo_cluster_bytes(fs: &std::path::Path) -> u64 {
    field(&run("ntfsinfo", &["-m", "-f", s(fs)], None, &[]), "Cluster Size")
}

#[test]
fn mbr_legacy_start_63_and_a_logical_partition() {
    if !disk_tools::ready() {
        return;
    }
    let dir = TempDir::new("mbr63");
    let disk = dir.sparse("disk.img", 128 * MIB);
    run(
        "sfdisk",
        &["-q", s(&disk)],
        Some(
            "label: dos\nstart=63, size=40897, type=7\nstart=40960, type=5\nstart=43008, size=65536, type=83\n",
        ),
        &[],
    );
    let ntfs = mkntfs(&dir, "p1.ntfs", 40_897 * 512, 512, 4096, 63);
    splice(&ntfs, &disk, 63 * 512);
    let ext = mke2fs(&dir, "p5.ext4");
    splice(&ext, &disk, 43_008 * 512);

    let f = collect(&disk, "sda").unwrap();
    assert_eq!(f.disk.partition_style, Some(PartitionStyle::Mbr));
    assert_eq!(f.disk.logical_sector_bytes, Some(512));
    assert_eq!(f.disk.size_bytes, Some(128 * MIB));
    let ids: Vec<_> = f.partitions.iter().flatten().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["sda-p1", "sda-p5"], "the extended container is not a partition of its own");
    assert_eq!(offset(&f, "sda-p1"), 32_256);
    assert_eq!(offset(&f, "sda-p5"), 43_008 * 512);
    agrees_with_parted(&f, &disk);

    let v = volume(&f, "sda-p1");
    assert_eq!((v.filesystem.as_deref(), v.allocation_unit_bytes), (Some("NTFS"), Some(4096)));
    assert_eq!(v.allocation_unit_bytes, Some(ntfsinfo_cluster_bytes(&ntfs)));
    assert_eq!(v.backed_by, Some(Backing::Partitions(vec!["sda-p1".into()])));
    let v = volume(&f, "sda-p5");
    assert_eq!(v.filesystem.as_deref(), Some("ext4"));
    assert_eq!((v.fs_stripe_unit_bytes, v.fs_stripe_width_bytes), (Some(16 * 4096), Some(64 * 4096)));
    assert!(f.not_collected.is_empty(), "{:?}", f.not_collected);
}

#[test]
fn mbr_start_2048_with_xfs_stripe_geometry() {
    if !disk_tools::ready() {
        return;
    }
    let dir = TempDir::new("xfs");
    let disk = dir.sparse("disk.img", 80 * MIB);
    run("sfdisk", &["-q", s(&disk)], Some("label: dos\nstart=2048, size=131072, type=83\n"), &[]);
    let xfs = mkfs_xfs(&dir, "p1.xfs");
    splice(&xfs, &disk, MIB);

    let f = collect(&disk, "sdb").unwrap();
    assert_eq!(offset(&f, "sdb-p1"), MIB);
    agrees_with_parted(&f, &disk);
    let db = run("xfs_db", &["-r", "-c", "sb 0", "-c", "p blocksize dblocks unit width", s(&xfs)], None, &[]);
    let (block, blocks) = (field(&db, "blocksize"), field(&db, "dblocks"));
    let v = volume(&f, "sdb-p1");
    assert_eq!(v.filesystem.as_deref(), Some("xfs"));
    assert_eq!(v.allocation_unit_bytes, Some(block));
    assert_eq!(v.size_bytes, Some(block * blocks));
    // su=64k,sw=4: the unit is 64 KiB whatever the block size, the width four of them.
    assert_eq!(v.fs_stripe_unit_bytes, Some(65_536));
    assert_eq!(v.fs_stripe_unit_bytes, Some(field(&db, "unit") * block));
    assert_eq!(v.fs_stripe_width_bytes, Some(4 * 65_536));
    assert_eq!(v.fs_stripe_width_bytes, Some(field(&db, "width") * block));

    // The same disk cut short inside its partition is refused, naming the entry.
    let cut = dir.path("cut.img");
    std::fs::copy(&disk, &cut).unwrap();
    std::fs::OpenOptions::new().write(true).open(&cut).unwrap().set_len(40 * MIB).unwrap();
    let e = collect(&cut, "sdb").unwrap_err().to_string();
    assert!(e.contains("past the end") && e.contains("byte 446"), "{e}");
}

#[test]
fn gpt_with_microsoft_reserved_and_ntfs_data() {
    if !disk_tools::ready() {
        return;
    }
    let dir = TempDir::new("gpt");
    let disk = dir.sparse("disk.img", 64 * MIB);
    // Windows Server 2008-era layout: the MSR from sector 34 (17,408 B), data at 16 MiB.
    run(
        "sgdisk",
        &["-a", "1", "-n", "1:34:32767", "-t", "1:0C01", "-n", "2:32768:0", "-t", "2:0700", s(&disk)],
        None,
        &[],
    );
    let info = run("sgdisk", &["-i", "1", s(&disk)], None, &[]);
    assert!(info.contains("E3C9E316-0B5C-4DB8-817D-F92DF00215AE"), "{info}");
    let starts = parted_starts(&disk);
    let (p2_start, disk_end) = (starts[1].1, 64 * MIB - 33 * 512);
    let ntfs = mkntfs(&dir, "p2.ntfs", disk_end - p2_start, 512, 65_536, p2_start / 512);
    splice(&ntfs, &disk, p2_start);

    let f = collect(&disk, "disk1").unwrap();
    assert_eq!(f.disk.partition_style, Some(PartitionStyle::Gpt));
    assert_eq!(f.disk.logical_sector_bytes, Some(512));
    assert_eq!(offset(&f, "disk1-p1"), 17_408);
    assert_eq!(offset(&f, "disk1-p2"), 16 * MIB);
    agrees_with_parted(&f, &disk);
    assert!(f.partition_types["disk1-p1"].is_microsoft_reserved());
    assert_eq!(f.partition_types["disk1-p2"], image::PartitionType::Gpt(gpt::BASIC_DATA));
    let vols: Vec<_> = f.volumes.iter().flatten().map(|v| v.id.as_str()).collect();
    assert_eq!(vols, ["disk1-p2"], "the MSR holds no volume");
    assert_eq!(volume(&f, "disk1-p2").allocation_unit_bytes, Some(65_536));
    assert!(f.not_collected.is_empty(), "{:?}", f.not_collected);

    // The snapshot is a valid facts file of one host.
    let snap = image::snapshot(&open(&disk), "disk1", "sql01").unwrap();
    assert_eq!(snap.host.name, "sql01");
    assert_eq!(snap.collectors[0].name, "image");
    assert_eq!(snap.partitions.as_ref().map(Vec::len), Some(2));

    // A flipped bit in the entry array (LBA 2) or the header (LBA 1) fails its CRC.
    let bytes = std::fs::read(&disk).unwrap();
    let mut bad = bytes.clone();
    bad[1024 + 200] ^= 1;
    match image::collect(&bad, "disk1") {
        Err(ImageError::BadChecksum { offset: 1024, .. }) => {}
        other => panic!("{other:?}"),
    }
    let mut bad = bytes;
    bad[512 + 40] ^= 1;
    match image::collect(&bad, "disk1") {
        Err(ImageError::BadChecksum { offset: 528, .. }) => {}
        other => panic!("{other:?}"),
    }
}

/// A GPT disk with one 64 MiB partition at 1 MiB (sector 2048 or 256), holding an NTFS volume
/// with the given sector and cluster size. `fdisk -b` writes the table: sgdisk and sfdisk 2.38
/// cannot write a 4Kn table to a file (and sfdisk/sgdisk sync, which is slow).
fn ntfs_disk(
    dir: &TempDir,
    name: &str,
    sector: u32,
    cluster: u32,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let disk = dir.sparse(name, 80 * MIB);
    let start_lba = MIB / u64::from(sector);
    let b = sector.to_string();
    let script = format!("g\nn\n1\n{start_lba}\n+64M\nt\nEBD0A0A2-B9E5-4433-87C0-68B6B72699C7\nw\n");
    run("fdisk", &["-b", &b, s(&disk)], Some(&script), &[]);
    let listing = run("fdisk", &["-b", &b, "-l", s(&disk)], None, &[]);
    let row = listing.lines().find(|l| l.contains(&format!("{name}1"))).expect("fdisk listing");
    assert_eq!(row.split_whitespace().nth(1), Some(start_lba.to_string().as_str()), "{listing}");
    let fs = mkntfs(dir, &format!("{name}.ntfs"), 64 * MIB, sector, cluster, start_lba);
    splice(&fs, &disk, MIB);
    (disk, fs)
}

#[test]
fn ntfs_cluster_sizes_on_512_and_4096_byte_sectors() {
    if !disk_tools::ready() {
        return;
    }
    let dir = TempDir::new("ntfs");
    for (sector, cluster) in [
        (512, 4096),
        (512, 65_536),
        (512, 131_072),
        (512, 2 << 20),
        (4096, 4096),
        (4096, 65_536),
        (4096, 2 << 20),
    ] {
        let name = format!("d{sector}-{cluster}.img");
        let (disk, fs) = ntfs_disk(&dir, &name, sector, cluster);
        let f = collect(&disk, "d").unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(f.disk.logical_sector_bytes, Some(sector), "{name}");
        assert_eq!(offset(&f, "d-p1"), MIB, "{name}");
        let v = volume(&f, "d-p1");
        assert_eq!(v.filesystem.as_deref(), Some("NTFS"), "{name}");
        assert_eq!(v.allocation_unit_bytes, Some(u64::from(cluster)), "{name}");
        assert_eq!(v.allocation_unit_bytes, Some(ntfsinfo_cluster_bytes(&fs)), "{name}");
        let clusters = field(&run("ntfsinfo", &["-m", "-f", s(&fs)], None, &[]), "Volume Size in Clusters");
        assert_eq!(v.size_bytes, Some(clusters * u64::from(cluster)), "{name}");
        if sector == 512 {
            agrees_with_parted(&f, &disk);
        }
    }
}

#[test]
fn whole_disk_ntfs_and_ext4_without_a_partition_table() {
    if !disk_tools::ready() {
        return;
    }
    let dir = TempDir::new("whole");
    let ntfs = mkntfs(&dir, "ntfs.img", 32 * MIB, 4096, 65_536, 0);
    let f = collect(&ntfs, "raw1").unwrap();
    assert_eq!(f.disk.partition_style, Some(PartitionStyle::Raw));
    assert_eq!(f.partitions, Some(vec![]));
    assert_eq!(f.disk.logical_sector_bytes, Some(4096), "NTFS records the sector size it was formatted with");
    let v = volume(&f, "raw1");
    assert_eq!((v.allocation_unit_bytes, &v.backed_by), (Some(65_536), &None));

    let ext = mke2fs(&dir, "ext4.img");
    let f = collect(&ext, "raw2").unwrap();
    let d = run("dumpe2fs", &["-h", s(&ext)], None, &[]);
    let block = field(&d, "Block size");
    let v = volume(&f, "raw2");
    assert_eq!(v.filesystem.as_deref(), Some("ext4"));
    assert_eq!(v.allocation_unit_bytes, Some(block));
    assert_eq!(v.size_bytes, Some(field(&d, "Block count") * block));
    assert_eq!(v.fs_stripe_unit_bytes, Some(field(&d, "RAID stride") * block));
    assert_eq!(v.fs_stripe_width_bytes, Some(field(&d, "RAID stripe width") * block));
    assert_eq!((v.fs_stripe_unit_bytes, v.fs_stripe_width_bytes), (Some(65_536), Some(262_144)));
    assert_eq!(f.disk.logical_sector_bytes, None);
    assert_eq!(f.not_collected[0].fact, "disks[].logical_sector_bytes");
}

#[test]
fn fixed_vhd_reads_like_the_raw_disk_and_other_containers_are_refused() {
    if !disk_tools::ready() {
        return;
    }
    let dir = TempDir::new("vhd");
    let raw = dir.sparse("disk.img", 48 * MIB);
    run("sfdisk", &["-q", s(&raw)], Some("label: dos\nstart=2048, type=7\n"), &[]);
    let ntfs = mkntfs(&dir, "p1.ntfs", 47 * MIB, 512, 65_536, 2048);
    splice(&ntfs, &raw, MIB);
    let vhd = dir.path("disk.vhd");
    run(
        "qemu-img",
        &["convert", "-f", "raw", "-O", "vpc", "-o", "subformat=fixed", s(&raw), s(&vhd)],
        None,
        &[],
    );

    let a = collect(&raw, "v").unwrap();
    let b = collect(&vhd, "v").unwrap();
    assert_eq!((&a.partitions, &a.volumes), (&b.partitions, &b.volumes));
    assert_eq!(b.volumes.as_ref().unwrap()[0].allocation_unit_bytes, Some(65_536));
    // qemu-img rounds the virtual size up to a whole CHS geometry; the footer says by how much.
    let vhd_len = std::fs::metadata(&vhd).unwrap().len();
    assert_eq!(b.disk.size_bytes, Some(vhd_len - 512));
    assert!(b.disk.size_bytes >= a.disk.size_bytes);

    for (format, opts, name) in [("vpc", "subformat=dynamic", "dynamic VHD"), ("qcow2", "", "qcow2")] {
        let out = dir.path(&format!("disk.{format}"));
        let mut args = vec!["convert", "-f", "raw", "-O", format];
        if !opts.is_empty() {
            args.extend(["-o", opts]);
        }
        args.extend([s(&raw), s(&out)]);
        run("qemu-img", &args, None, &[]);
        let e = collect(&out, "v").unwrap_err();
        assert!(matches!(e, ImageError::Unsupported { .. }), "{e}");
        let e = e.to_string();
        assert!(e.contains(name) && e.contains("qemu-img convert -O raw"), "{e}");
    }
}
