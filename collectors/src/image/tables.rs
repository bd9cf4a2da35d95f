//! The partition tables: an MBR's primary and logical partitions, a GPT's entries, each placed
//! in bytes and held to the image's end.

use super::gpt::{self, Guid};
use super::read_at::{ReadAt, read_bytes};
use super::{ImageError, mbr};

/// What the partition table says a partition is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionType {
    /// The MBR type byte (0x07 NTFS/exFAT, 0x83 Linux, ...).
    Mbr(u8),
    /// The GPT partition type GUID.
    Gpt(Guid),
}

impl PartitionType {
    pub fn is_microsoft_reserved(&self) -> bool {
        *self == PartitionType::Gpt(gpt::MICROSOFT_RESERVED)
    }
}

/// One partition before it becomes facts.
pub(super) struct Part {
    pub number: u32,
    pub kind: PartitionType,
    pub offset: u64,
    pub size: u64,
}

/// Byte offset and size of a partition from its LBA and sector count, refused when it reaches
/// past the end of the image.
fn place(
    what: &'static str,
    entry_at: u64,
    lba: u64,
    sectors: u64,
    sector_bytes: u64,
    disk: u64,
) -> Result<(u64, u64), ImageError> {
    let offset = lba.checked_mul(sector_bytes);
    let size = sectors.checked_mul(sector_bytes);
    match (offset, size) {
        (Some(o), Some(s)) if o.checked_add(s).is_some_and(|end| end <= disk) => Ok((o, s)),
        _ => Err(ImageError::invalid(
            what,
            entry_at,
            format!(
                "partition at LBA {lba}, {sectors} sectors of {sector_bytes} bytes, reaches past the end of \
                 the {disk}-byte image (truncated image, or a wrong table)"
            ),
        )),
    }
}

/// The partitions an MBR lists, its logical ones numbered from 5, with sectors of
/// `sector_bytes`.
pub(super) fn mbr_partitions(
    src: &dyn ReadAt,
    m: &mbr::Mbr,
    sector_bytes: u64,
    disk: u64,
) -> Result<Vec<Part>, ImageError> {
    let mut parts = Vec::new();
    let mut next_logical = 5;
    for e in &m.entries {
        let entry_at = (mbr::ENTRIES_OFFSET + 16 * (e.number as usize - 1)) as u64;
        let (offset, size) =
            place("MBR partition entry", entry_at, e.start_lba, e.sectors, sector_bytes, disk)?;
        if e.is_extended() {
            let logical = mbr::logical_partitions(src, e, sector_bytes, next_logical)?;
            next_logical = next_logical.saturating_add(logical.len() as u32);
            for l in logical {
                let at = e.start_lba.saturating_mul(sector_bytes);
                let (offset, size) =
                    place("EBR partition entry", at, l.start_lba, l.sectors, sector_bytes, disk)?;
                parts.push(Part { number: l.number, kind: PartitionType::Mbr(l.kind), offset, size });
            }
        } else {
            parts.push(Part { number: e.number, kind: PartitionType::Mbr(e.kind), offset, size });
        }
    }
    Ok(parts)
}

/// The GPT's partitions, behind a protective MBR, and the sector size its header was found at.
pub(super) fn gpt_partitions(src: &dyn ReadAt, disk: u64) -> Result<(u32, Vec<Part>), ImageError> {
    let mut found = None;
    for ss in [512u64, 4096] {
        if disk < ss * 2 {
            break;
        }
        let sector = read_bytes(src, 0, ss, ss, ss, "GPT header")?;
        if gpt::has_signature(&sector) {
            found = Some((ss, sector));
            break;
        }
    }
    let Some((ss, sector)) = found else {
        return Err(ImageError::invalid(
            "protective MBR",
            mbr::ENTRIES_OFFSET as u64,
            "has a GPT (type 0xee) entry, but there is no \"EFI PART\" header at byte 512 or 4096",
        ));
    };
    let h = gpt::parse_header(&sector, ss, ss)?;
    let array_at = h.entries_lba.checked_mul(ss).ok_or_else(|| {
        ImageError::invalid("GPT header partition entry LBA", ss + 72, format!("{} overflows", h.entries_lba))
    })?;
    let len = h.entry_array_bytes(ss)?;
    let array = read_bytes(src, 0, array_at, len, gpt::MAX_ENTRY_ARRAY_BYTES, "GPT partition entry array")?;
    let mut parts = Vec::new();
    for e in gpt::parse_entries(&array, array_at, &h)? {
        let entry_at = array_at + u64::from(e.number - 1) * u64::from(h.entry_bytes) + 32;
        let (offset, size) = place("GPT entry first LBA", entry_at, e.first_lba, e.sectors(), ss, disk)?;
        parts.push(Part { number: e.number, kind: PartitionType::Gpt(e.type_guid), offset, size });
    }
    Ok((ss as u32, parts))
}
