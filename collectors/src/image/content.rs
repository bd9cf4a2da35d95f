//! What the first bytes of a partition, or of a whole disk, hold, and the volume that makes:
//! which filesystem, its clusters and size, or why it is not read.

use spindle_core::facts::{Backing, Volume};

use super::read_at::{Fields, ReadAt, read_bytes};
use super::{ImageError, ext4, fat, ntfs, refs, xfs};
use crate::notes::Uncollected;

/// Bytes read from the start of each partition to recognise its contents.
const PROBE_BYTES: u64 = 8192;

/// What the first bytes of a partition (or of the whole disk) hold.
pub(super) enum Content {
    Empty,
    Swap,
    Ntfs(Result<ntfs::NtfsBoot, ImageError>),
    Refs,
    Xfs(Result<xfs::XfsSuper, ImageError>),
    Ext(Result<ext4::ExtSuper, ImageError>),
    Fat(Result<fat::FatBoot, ImageError>),
    /// Known, but not a filesystem spindle reads: the reason.
    Opaque(&'static str),
    Unknown,
}

impl Content {
    pub fn recognised(&self) -> bool {
        !matches!(self, Content::Empty | Content::Unknown)
    }
}

/// What the first bytes at `offset` hold, of a partition or disk of `len` bytes.
pub(super) fn probe(src: &dyn ReadAt, offset: u64, len: u64) -> Result<Content, ImageError> {
    let n = len.min(PROBE_BYTES);
    let buf = read_bytes(src, 0, offset, n, PROBE_BYTES, "first sectors of a partition")?;
    let f = Fields::new(&buf, offset);
    let first = &buf[..buf.len().min(512)];
    Ok(if ntfs::is_ntfs(first) {
        Content::Ntfs(ntfs::parse(first, offset))
    } else if refs::is_refs(first) {
        Content::Refs
    } else if xfs::is_xfs(first) {
        Content::Xfs(xfs::parse(first, offset))
    } else if buf.len() > 1024 && ext4::is_ext(&buf[1024..]) {
        let end = buf.len().min(2048);
        Content::Ext(ext4::parse(&buf[1024..end], offset + 1024))
    } else if fat::fat_name(first).is_some() {
        Content::Fat(fat::parse(first, offset))
    } else if f.has(3, b"-FVE-FS-") {
        Content::Opaque(
            "holds a BitLocker-encrypted volume; the filesystem inside is read once it is unlocked",
        )
    } else if f.has(512, b"LABELONE") || f.has(24, b"LABELONE") {
        Content::Opaque("holds an LVM physical volume; the logical volumes on it are not read from images")
    } else if f.has(4096, &[0xFC, 0x4E, 0x2B, 0xA9]) {
        Content::Opaque("holds a Linux md RAID member; the array is not assembled from images")
    } else if f.has(4086, b"SWAPSPACE2") || f.has(4086, b"SWAP-SPACE") {
        Content::Swap
    } else if buf.iter().all(|&b| b == 0) {
        Content::Empty
    } else {
        Content::Unknown
    })
}

/// The volume (if any) a partition's or disk's content makes; what it could not read goes to
/// `notes`.
pub(super) fn volume_of(
    notes: &mut Uncollected,
    content: Content,
    id: &str,
    backed_by: Option<Backing>,
    at: u64,
) -> Option<Volume> {
    let mut v = Volume { id: id.to_string(), backed_by, ..Volume::default() };
    let err_note =
        |notes: &mut Uncollected, fact: &str, e: ImageError| notes.miss(fact, format!("volume {id}: {e}"));
    match content {
        Content::Empty | Content::Swap => return None,
        Content::Ntfs(r) => {
            v.filesystem = Some("NTFS".into());
            match r {
                Ok(b) => {
                    v.allocation_unit_bytes = Some(b.cluster_bytes);
                    v.size_bytes = Some(b.size_bytes());
                }
                Err(e) => err_note(notes, "volumes[].allocation_unit_bytes", e),
            }
        }
        Content::Refs => {
            v.filesystem = Some("ReFS".into());
            notes.miss("volumes[].allocation_unit_bytes", format!("volume {id}: {}", refs::CLUSTER_NOT_READ));
        }
        Content::Xfs(r) => {
            v.filesystem = Some("xfs".into());
            match r {
                Ok(x) => {
                    v.allocation_unit_bytes = Some(u64::from(x.block_bytes));
                    v.size_bytes = Some(x.size_bytes());
                    v.fs_stripe_unit_bytes = x.stripe_unit_bytes();
                    v.fs_stripe_width_bytes = x.stripe_width_bytes();
                    v.label = (!x.label.is_empty()).then_some(x.label);
                }
                Err(e) => err_note(notes, "volumes[].allocation_unit_bytes", e),
            }
        }
        Content::Ext(r) => match r {
            Ok(x) => {
                v.filesystem = Some(x.name.into());
                v.allocation_unit_bytes = Some(u64::from(x.block_bytes));
                v.size_bytes = Some(x.size_bytes());
                v.fs_stripe_unit_bytes = x.stripe_unit_bytes();
                v.fs_stripe_width_bytes = x.stripe_width_bytes();
                v.label = (!x.label.is_empty()).then_some(x.label);
            }
            Err(e) => err_note(notes, "volumes[].filesystem", e),
        },
        Content::Fat(r) => match r {
            Ok(b) => {
                v.filesystem = Some(b.name.into());
                v.allocation_unit_bytes = Some(b.cluster_bytes);
                v.size_bytes = Some(b.size_bytes);
            }
            Err(e) => err_note(notes, "volumes[].filesystem", e),
        },
        Content::Opaque(why) => notes.miss("volumes[].filesystem", format!("volume {id}: {why}")),
        Content::Unknown => notes.miss(
            "volumes[].filesystem",
            format!(
                "volume {id}: no NTFS, ReFS, XFS, ext2/3/4 or FAT boot sector or superblock at byte {at}; \
                 the filesystem is not one spindle reads from images"
            ),
        ),
    }
    Some(v)
}
