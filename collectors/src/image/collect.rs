//! From the bytes of a whole disk to the facts snapshot's disk, partitions and volumes.
//!
//! Order of recognition at byte 0 (each structure would be meaningless as another):
//! 1. a container: qcow2, VHDX, sparse VMDK, VDI or a dynamic/differencing VHD is refused; a
//!    fixed VHD (footer in the last 512 bytes) is unwrapped to its data area;
//! 2. a filesystem written to the whole disk (NTFS, ReFS, XFS or FAT at byte 0): partition style
//!    `raw`, one volume whose id is the disk id and which has no `backed_by` (the facts model
//!    has no "directly on a disk" backing);
//! 3. a protective MBR (type 0xEE) in front of a GPT, or an MBR with its logical partitions;
//! 4. ext2/3/4 on the whole disk (its superblock at 1,024 leaves sector 0 free, so an MBR
//!    found there wins);
//! 5. nothing recognised: `raw` and empty when the first 8 KiB are zero, else style `unknown`
//!    with partitions and volumes recorded as not collected.
//!
//! ## Logical sector size
//! A partition table counts in logical sectors and an image does not say how large they are.
//! The collector decides from evidence only:
//! - GPT: the size at which the header was found, 512 (LBA 1 at byte 512) or 4096 (byte 4096);
//! - MBR: 512 if any partition's filesystem is found at `LBA × 512`; else 4096 if every
//!   partition fits the disk and one is found at `LBA × 4096`; else 512, the MBR convention;
//! - fixed VHD: 512, the only sector size the VHD format has (unless its GPT says otherwise);
//! - a filesystem on the whole disk: NTFS's bytes-per-sector field (Windows formats with the
//!   disk's logical sector size); XFS, ext4 and ReFS do not record it, so it is not collected.
//!
//! ## Partitions and volumes
//! Partitions are numbered as Linux does (`{disk_id}-p{n}`: MBR slots 1–4 and logical
//! partitions from 5, the extended container itself not listed; GPT entry position). Each
//! partition's first 8 KiB decide its volume:
//! - NTFS, ReFS, XFS, ext2/3/4, FAT: a volume with the partition's id, backed by it;
//! - the Microsoft Reserved partition (and any partition whose first 8 KiB are zero, or that
//!   holds swap): no volume. The facts' `Partition` has no type field, so the MSR is listed
//!   like any partition, and the view's data-partition filter ignores it because no volume is
//!   built on it; [`ImageFacts::partition_types`] keeps the type for callers that want it;
//! - anything else (BitLocker, LVM, an unknown filesystem): a volume with no filesystem, so
//!   rules say "not evaluated" for it rather than ignore a partition that may hold data, and a
//!   `not_collected` entry saying why;
//! - a recognised filesystem whose header is invalid: the volume keeps the filesystem name and
//!   the bad field's error becomes a `not_collected` reason. Errors in the partition table
//!   itself, or a partition reaching past the end of the image, fail the whole collection.

use std::collections::BTreeMap;

use spindle_core::facts::{Backing, Disk, Host, Partition, PartitionStyle, SCHEMA_VERSION, Snapshot, Volume};

use super::content::{Content, probe, volume_of};
use super::overlaps::overlaps;
use super::read_at::{ReadAt, Window, read_bytes};
pub use super::tables::PartitionType;
use super::tables::{Part, gpt_partitions, mbr_partitions};
use super::{ImageError, mbr, vhd};
use crate::notes::Uncollected;

/// The collector's name in `CollectorReport`.
pub const COLLECTOR: &str = "image";

/// What one disk image holds, in the facts model's terms.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageFacts {
    pub disk: Disk,
    /// `None` when no partition table could be recognised (see `not_collected`).
    pub partitions: Option<Vec<Partition>>,
    /// `None` when nothing at all could be recognised.
    pub volumes: Option<Vec<Volume>>,
    /// The table's type for each partition, by partition id.
    pub partition_types: BTreeMap<String, PartitionType>,
    pub not_collected: Uncollected,
}

impl ImageFacts {
    /// A whole snapshot of one host holding this one disk.
    pub fn into_snapshot(self, host_name: &str) -> Snapshot {
        Snapshot {
            schema_version: SCHEMA_VERSION,
            host: Host { name: host_name.to_string(), ..Host::default() },
            collectors: vec![self.not_collected.report(COLLECTOR)],
            disks: Some(vec![self.disk]),
            partitions: self.partitions,
            volumes: self.volumes,
            ..Snapshot::default()
        }
    }
}

/// Reads the disk image or raw device `source` and returns its facts, the disk named `disk_id`.
pub fn collect(source: &dyn ReadAt, disk_id: &str) -> Result<ImageFacts, ImageError> {
    let size = source.size_bytes();
    let head = read_bytes(source, 0, 0, 512, 512, "sector 0")?;
    if let Some(format) = vhd::unsupported_container(&head) {
        return Err(ImageError::Unsupported { format });
    }
    if vhd::is_vhd_footer(&head) {
        // Dynamic and differencing VHDs start with a copy of their footer.
        let f = vhd::parse_footer(&head, 0)?;
        return Err(ImageError::Unsupported {
            format: match f.disk_type {
                vhd::DiskType::Dynamic => "dynamic VHD",
                vhd::DiskType::Differencing => "differencing VHD",
                vhd::DiskType::Fixed => "VHD with a footer at byte 0",
            },
        });
    }
    let tail_at = size.saturating_sub(vhd::FOOTER_BYTES);
    let tail = read_bytes(source, 0, tail_at, vhd::FOOTER_BYTES, vhd::FOOTER_BYTES, "last sector")?;
    if vhd::is_vhd_footer(&tail) {
        let f = vhd::parse_footer(&tail, tail_at)?;
        if f.disk_type != vhd::DiskType::Fixed {
            return Err(ImageError::Unsupported { format: "dynamic or differencing VHD" });
        }
        if f.current_size > tail_at {
            return Err(ImageError::invalid(
                "VHD footer current size",
                tail_at + 48,
                format!("{} bytes, but only {tail_at} bytes precede the footer", f.current_size),
            ));
        }
        let data = Window::new(source, 0, f.current_size);
        return collect_disk(&data, disk_id, Some(512));
    }
    collect_disk(source, disk_id, None)
}

/// [`collect`], then [`ImageFacts::into_snapshot`].
pub fn snapshot(source: &dyn ReadAt, disk_id: &str, host_name: &str) -> Result<Snapshot, ImageError> {
    Ok(collect(source, disk_id)?.into_snapshot(host_name))
}

fn collect_disk(src: &dyn ReadAt, disk_id: &str, sector_hint: Option<u32>) -> Result<ImageFacts, ImageError> {
    let size = src.size_bytes();
    let mut out = ImageFacts {
        disk: Disk { id: disk_id.to_string(), size_bytes: Some(size), ..Disk::default() },
        partitions: None,
        volumes: None,
        partition_types: BTreeMap::new(),
        not_collected: Uncollected::default(),
    };
    let head = read_bytes(src, 0, 0, 512, 512, "sector 0")?;
    let whole = probe(src, 0, size)?;
    if matches!(whole, Content::Ntfs(_) | Content::Refs | Content::Xfs(_) | Content::Fat(_)) {
        return Ok(whole_disk(out, whole, disk_id, sector_hint));
    }
    let table = mbr::has_signature(&head).then(|| mbr::parse(&head, 0));
    let is_ext = matches!(whole, Content::Ext(_));
    let m = match table {
        Some(Ok(m)) if m.is_protective() => {
            let (ss, parts) = gpt_partitions(src, size)?;
            return Ok(finish(out, src, disk_id, PartitionStyle::Gpt, ss, parts));
        }
        Some(Ok(m)) if !(m.entries.is_empty() && is_ext) => m,
        _ if is_ext => return Ok(whole_disk(out, whole, disk_id, sector_hint)),
        Some(Err(e)) => return Err(e),
        Some(Ok(m)) => m,
        None => {
            out.disk.partition_style = Some(if matches!(whole, Content::Empty) {
                out.partitions = Some(vec![]);
                out.volumes = Some(vec![]);
                PartitionStyle::Raw
            } else {
                let why = "no MBR or GPT partition table and no filesystem spindle reads at byte 0";
                out.not_collected.miss("partitions", why.to_string());
                out.not_collected.miss("volumes", why.to_string());
                PartitionStyle::Unknown
            });
            out.disk.logical_sector_bytes = sector_hint;
            return Ok(out);
        }
    };
    let at512 = mbr_partitions(src, &m, 512, size);
    let mut chosen = (512u32, at512);
    if sector_hint.is_none()
        && !any_recognised(src, chosen.1.as_deref().unwrap_or(&[]))
        && let Ok(p4) = mbr_partitions(src, &m, 4096, size)
        && any_recognised(src, &p4)
    {
        chosen = (4096, Ok(p4));
    }
    let (ss, parts) = (sector_hint.unwrap_or(chosen.0), chosen.1?);
    let extended: Vec<String> =
        m.entries.iter().filter(|e| e.is_extended()).map(|e| format!("{disk_id}-p{}", e.number)).collect();
    if extended.len() > 1 {
        // Several extended partitions are what a crafted table uses to list one EBR chain
        // several times; their logical partitions are kept, and the overlap note says which.
        out.not_collected.miss(
            "partitions",
            format!(
                "the MBR lists {} extended partitions ({}); a valid table has at most one",
                extended.len(),
                extended.join(", ")
            ),
        );
    }
    Ok(finish(out, src, disk_id, PartitionStyle::Mbr, ss, parts))
}

fn any_recognised(src: &dyn ReadAt, parts: &[Part]) -> bool {
    parts.iter().any(|p| probe(src, p.offset, p.size).is_ok_and(|c| c.recognised()))
}

fn whole_disk(mut out: ImageFacts, whole: Content, disk_id: &str, sector_hint: Option<u32>) -> ImageFacts {
    out.disk.partition_style = Some(PartitionStyle::Raw);
    out.disk.logical_sector_bytes = match (&whole, sector_hint) {
        (_, Some(s)) => Some(s),
        (Content::Ntfs(Ok(b)), None) => Some(b.bytes_per_sector),
        _ => {
            out.not_collected.miss(
                "disks[].logical_sector_bytes",
                format!("disk {disk_id}: the filesystem on the whole disk does not record the disk's logical sector size"),
            );
            None
        }
    };
    out.partitions = Some(vec![]);
    let volume = volume_of(&mut out.not_collected, whole, disk_id, None, 0);
    out.volumes.get_or_insert_with(Vec::new).extend(volume);
    out
}

fn finish(
    mut out: ImageFacts,
    src: &dyn ReadAt,
    disk_id: &str,
    style: PartitionStyle,
    sector_bytes: u32,
    parts: Vec<Part>,
) -> ImageFacts {
    out.disk.partition_style = Some(style);
    out.disk.logical_sector_bytes = Some(sector_bytes);
    if let Some(why) = overlaps(disk_id, &parts) {
        out.not_collected.miss("partitions", why);
    }
    let mut partitions = Vec::new();
    out.volumes = Some(vec![]);
    for p in parts {
        let id = format!("{disk_id}-p{}", p.number);
        partitions.push(Partition {
            id: id.clone(),
            disk_id: disk_id.to_string(),
            number: Some(p.number),
            offset_bytes: Some(p.offset),
            size_bytes: Some(p.size),
        });
        out.partition_types.insert(id.clone(), p.kind);
        if p.kind.is_microsoft_reserved() {
            continue;
        }
        match probe(src, p.offset, p.size) {
            Ok(c) => {
                let backing = Some(Backing::Partitions(vec![id.clone()]));
                let volume = volume_of(&mut out.not_collected, c, &id, backing, p.offset);
                out.volumes.get_or_insert_with(Vec::new).extend(volume);
            }
            Err(e) => out.not_collected.miss("volumes[].filesystem", format!("volume {id}: {e}")),
        }
    }
    out.partitions = Some(partitions);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::gpt;
    use crate::image::gpt::tests::{entry, header};
    use crate::image::mbr::tests::mbr_with;
    use crate::image::ntfs::tests::boot;
    use crate::image::vhd::tests::footer;

    const MIB: usize = 1 << 20;

    fn ntfs_mbr_disk(start: u32) -> Vec<u8> {
        let mut d = vec![0u8; 4 * MIB];
        d[..512].copy_from_slice(&mbr_with(&[(0x07, start, 4096)]));
        let at = start as usize * 512;
        d[at..at + 512].copy_from_slice(&boot(512, 0x80, start, 4095));
        d
    }

    #[test]
    fn mbr_disk_with_ntfs() {
        let f = collect(&ntfs_mbr_disk(63), "d0").unwrap();
        assert_eq!(f.disk.partition_style, Some(PartitionStyle::Mbr));
        assert_eq!(f.disk.logical_sector_bytes, Some(512));
        let p = &f.partitions.as_ref().unwrap()[0];
        assert_eq!((p.id.as_str(), p.offset_bytes, p.size_bytes), ("d0-p1", Some(32_256), Some(4096 * 512)));
        let v = &f.volumes.as_ref().unwrap()[0];
        assert_eq!((v.filesystem.as_deref(), v.allocation_unit_bytes), (Some("NTFS"), Some(65_536)));
        assert_eq!(v.backed_by, Some(Backing::Partitions(vec!["d0-p1".into()])));
        assert!(f.not_collected.is_empty(), "{:?}", f.not_collected);
    }

    #[test]
    fn mbr_lbas_in_4096_byte_sectors_are_recognised_by_their_contents() {
        let mut d = vec![0u8; 8 * MIB];
        d[..512].copy_from_slice(&mbr_with(&[(0x07, 256, 1024)]));
        d[256 * 4096..256 * 4096 + 512].copy_from_slice(&boot(4096, 16, 256, 1023));
        let f = collect(&d, "d").unwrap();
        assert_eq!(f.disk.logical_sector_bytes, Some(4096));
        assert_eq!(f.partitions.unwrap()[0].offset_bytes, Some(1 << 20));
    }

    #[test]
    fn gpt_disk_lists_msr_without_a_volume() {
        let mut d = vec![0u8; 4 * MIB];
        d[..512].copy_from_slice(&mbr_with(&[(0xEE, 1, 8191)]));
        let mut a = entry(gpt::MICROSOFT_RESERVED, 34, 2047);
        a.extend(entry(gpt::BASIC_DATA, 2048, 6143));
        a.extend(entry(gpt::LINUX_DATA, 6144, 8000));
        a.resize(128 * 128, 0);
        d[512..1024].copy_from_slice(&header(512, 128, 128, &a));
        d[1024..1024 + a.len()].copy_from_slice(&a);
        d[2048 * 512..2048 * 512 + 512].copy_from_slice(&boot(512, 8, 2048, 4095));
        d[6144 * 512 + 100] = 1; // something, but nothing spindle reads
        let f = collect(&d, "g").unwrap();
        assert_eq!(f.disk.partition_style, Some(PartitionStyle::Gpt));
        let parts = f.partitions.as_ref().unwrap();
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[0].offset_bytes, Some(17_408));
        assert!(f.partition_types["g-p1"].is_microsoft_reserved());
        let vols = f.volumes.as_ref().unwrap();
        assert_eq!(vols.iter().map(|v| v.id.as_str()).collect::<Vec<_>>(), ["g-p2", "g-p3"]);
        assert_eq!(vols[1].filesystem, None);
        assert_eq!(f.not_collected.len(), 1);
        assert!(f.not_collected[0].reason.contains("g-p3"), "{:?}", f.not_collected);
        // The snapshot carries it all.
        let s = f.into_snapshot("h");
        assert_eq!(s.schema_version, SCHEMA_VERSION);
        assert_eq!(s.collectors[0].name, "image");
        assert_eq!(s.collectors[0].not_collected.len(), 1);
    }

    #[test]
    fn overlapping_gpt_entries_are_noted_by_name() {
        let mut d = vec![0u8; 4 * MIB];
        d[..512].copy_from_slice(&mbr_with(&[(0xEE, 1, 8191)]));
        let mut a = entry(gpt::BASIC_DATA, 2048, 4095);
        a.extend(entry(gpt::BASIC_DATA, 4000, 6143));
        a.extend(entry(gpt::LINUX_DATA, 6144, 8000));
        a.extend(entry(gpt::LINUX_DATA, 6144, 8000));
        a.resize(128 * 128, 0);
        d[512..1024].copy_from_slice(&header(512, 128, 128, &a));
        d[1024..1024 + a.len()].copy_from_slice(&a);
        let f = collect(&d, "g").unwrap();
        assert_eq!(f.partitions.as_ref().unwrap().len(), 4, "all kept: the note says which to doubt");
        let notes: Vec<&str> =
            f.not_collected.iter().filter(|n| n.fact == "partitions").map(|n| n.reason.as_str()).collect();
        assert_eq!(notes.len(), 1, "{:?}", f.not_collected);
        assert!(
            notes[0].starts_with("4 partitions overlap others")
                && notes[0].contains("g-p1 and g-p2 over bytes 1048576..3145728")
                && notes[0].contains("g-p3 and g-p4 over bytes 3145728..4096512"),
            "{}",
            notes[0]
        );
    }

    #[test]
    fn extended_partitions_sharing_one_chain_are_noted_and_numbered_apart() {
        let mut d = vec![0u8; 4 * MIB];
        d[..512].copy_from_slice(&mbr_with(&[(0x05, 2048, 2000), (0x05, 2048, 2000), (0x05, 2048, 2000)]));
        d[2048 * 512..2049 * 512].copy_from_slice(&mbr_with(&[(0x83, 10, 500), (0x05, 600, 600)]));
        d[2648 * 512..2649 * 512].copy_from_slice(&mbr_with(&[(0x83, 10, 500)]));
        let f = collect(&d, "m").unwrap();
        let ids: Vec<&str> = f.partitions.as_ref().unwrap().iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["m-p5", "m-p6", "m-p7", "m-p8", "m-p9", "m-p10"]);
        let reasons: Vec<&str> = f.not_collected.iter().map(|n| n.reason.as_str()).collect();
        assert!(
            reasons.iter().any(|r| r.contains("3 extended partitions (m-p1, m-p2, m-p3)")),
            "{reasons:#?}"
        );
        assert!(
            reasons
                .iter()
                .any(|r| r.contains("m-p5, m-p7 and m-p9 over") && r.contains("m-p6, m-p8 and m-p10 over")),
            "{reasons:#?}"
        );
    }

    #[test]
    fn gpt_entry_past_the_end_is_an_error() {
        let mut d = vec![0u8; MIB];
        d[..512].copy_from_slice(&mbr_with(&[(0xEE, 1, 8191)]));
        let mut a = entry(gpt::BASIC_DATA, 2048, 1 << 40);
        a.resize(128 * 128, 0);
        d[512..1024].copy_from_slice(&header(512, 128, 128, &a));
        d[1024..1024 + a.len()].copy_from_slice(&a);
        let e = collect(&d, "g").unwrap_err().to_string();
        assert!(e.contains("past the end") && e.contains("1056"), "{e}");
    }

    #[test]
    fn whole_disk_filesystems_and_empty_disks() {
        let mut d = vec![0u8; MIB];
        d[..512].copy_from_slice(&boot(4096, 1, 0, 255));
        let f = collect(&d, "w").unwrap();
        assert_eq!(f.disk.partition_style, Some(PartitionStyle::Raw));
        assert_eq!(f.disk.logical_sector_bytes, Some(4096));
        assert_eq!(f.volumes.as_ref().unwrap()[0].id, "w");
        assert_eq!(f.volumes.unwrap()[0].backed_by, None);

        let mut d = vec![0u8; MIB];
        d[1024..2048].copy_from_slice(&crate::image::ext4::tests::sb(2, 256, 16, 64));
        let f = collect(&d, "e").unwrap();
        assert_eq!(f.volumes.unwrap()[0].fs_stripe_width_bytes, Some(262_144));
        assert_eq!(f.disk.logical_sector_bytes, None);
        assert_eq!(f.not_collected[0].fact, "disks[].logical_sector_bytes");

        // A FAT "superfloppy" (boot sector with 55 AA, but no partition table).
        let mut d = vec![0u8; MIB];
        d[0x0B..0x0D].copy_from_slice(&512u16.to_le_bytes());
        d[0x0D] = 8;
        d[0x20..0x24].copy_from_slice(&2048u32.to_le_bytes());
        d[0x52..0x5A].copy_from_slice(b"FAT32   ");
        d[510..512].copy_from_slice(&[0x55, 0xAA]);
        let f = collect(&d, "f").unwrap();
        assert_eq!(f.disk.partition_style, Some(PartitionStyle::Raw));
        let v = &f.volumes.unwrap()[0];
        assert_eq!((v.filesystem.as_deref(), v.allocation_unit_bytes), (Some("FAT32"), Some(4096)));

        let f = collect(&vec![0u8; MIB], "z").unwrap();
        assert_eq!(
            (f.disk.partition_style, f.partitions, f.volumes),
            (Some(PartitionStyle::Raw), Some(vec![]), Some(vec![]))
        );
        let f = collect(&vec![7u8; MIB], "u").unwrap();
        assert_eq!((f.disk.partition_style, f.partitions), (Some(PartitionStyle::Unknown), None));
        assert_eq!(f.not_collected.len(), 2);
    }

    #[test]
    fn containers() {
        let mut d = ntfs_mbr_disk(2048);
        d.extend(footer(2, 4 * MIB as u64));
        let f = collect(&d, "v").unwrap();
        assert_eq!(f.disk.size_bytes, Some(4 * MIB as u64));
        assert_eq!(f.volumes.unwrap()[0].allocation_unit_bytes, Some(65_536));
        let mut d = ntfs_mbr_disk(2048);
        d.extend(footer(2, 8 * MIB as u64));
        assert!(collect(&d, "v").unwrap_err().to_string().contains("current size"));
        let mut d = footer(3, 1 << 30);
        d.resize(MIB, 0);
        assert!(collect(&d, "v").unwrap_err().to_string().contains("dynamic VHD images are not supported"));
        let mut d = b"QFI\xfb".to_vec();
        d.resize(MIB, 0);
        assert!(collect(&d, "q").unwrap_err().to_string().contains("qemu-img convert -O raw"));
    }

    #[test]
    fn short_images_and_bad_filesystems() {
        for len in [0usize, 100, 511] {
            assert!(matches!(collect(&vec![0u8; len], "s"), Err(ImageError::Truncated { .. })));
        }
        // A disk cut short inside its partition.
        let d = ntfs_mbr_disk(2048);
        assert!(collect(&d[..2 * MIB].to_vec(), "t").unwrap_err().to_string().contains("past the end"));
        // A bad NTFS field becomes a reason, not a failure of the whole disk.
        let mut d = ntfs_mbr_disk(2048);
        d[2048 * 512 + 0x0D] = 0x90;
        let f = collect(&d, "b").unwrap();
        assert_eq!(f.volumes.as_ref().unwrap()[0].allocation_unit_bytes, None);
        assert!(f.not_collected[0].reason.contains("sectors per cluster"), "{:?}", f.not_collected);
    }
}
