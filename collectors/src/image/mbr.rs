//! The Master Boot Record partition table and the extended boot records of logical partitions.
//!
//! Layout (IBM PC/AT convention, as in Microsoft's "Master Boot Record" and the UEFI
//! specification 2.10, section 5.2.1 "Legacy MBR"): sector 0 ends with the signature `55 AA` at
//! byte 510; four 16-byte entries start at byte 0x1BE. In each entry, byte 0 is the boot
//! indicator (0x00 or 0x80), byte 4 the partition type, bytes 8..12 the starting LBA and bytes
//! 12..16 the number of sectors, both little-endian and counted in logical sectors. Type 0xEE is
//! the protective MBR of a GPT disk; types 0x05, 0x0F and 0x85 are extended partitions, a chain
//! of extended boot records (EBRs) each holding one logical partition (entry 0, relative to the
//! EBR) and the link to the next EBR (entry 1, relative to the start of the extended partition).

use super::ImageError;
use super::read_at::{Fields, ReadAt, read_bytes};

/// Offset of the first partition entry in sector 0.
pub const ENTRIES_OFFSET: usize = 0x1BE;
/// Partition type of a GPT disk's protective MBR entry.
pub const TYPE_GPT_PROTECTIVE: u8 = 0xEE;
/// Most extended boot records followed in an extended partition, each holding at most one
/// logical partition (Linux stops at a similar bound); it also ends a crafted chain that loops
/// or that links thousands of empty EBRs.
pub const MAX_LOGICAL: usize = 128;

/// One used entry of the MBR (or of an EBR, with its LBA made absolute).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MbrEntry {
    /// Linux numbering: slots 0..3 are partitions 1..4, logical partitions count from 5.
    pub number: u32,
    pub boot_indicator: u8,
    pub kind: u8,
    /// First sector, in logical sectors from the start of the disk.
    pub start_lba: u64,
    pub sectors: u64,
}

impl MbrEntry {
    pub fn is_extended(&self) -> bool {
        is_extended(self.kind)
    }
}

pub fn is_extended(kind: u8) -> bool {
    matches!(kind, 0x05 | 0x0F | 0x85)
}

/// The four primary slots of sector 0 that are in use (type not 0 and a non-zero length).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mbr {
    pub entries: Vec<MbrEntry>,
}

impl Mbr {
    /// Whether this is the protective MBR in front of a GPT.
    pub fn is_protective(&self) -> bool {
        self.entries.iter().any(|e| e.kind == TYPE_GPT_PROTECTIVE)
    }
}

/// Whether sector 0 carries the `55 AA` signature (an MBR, or a boot sector of a filesystem).
pub fn has_signature(sector0: &[u8]) -> bool {
    Fields::new(sector0, 0).has(510, &[0x55, 0xAA])
}

/// Reads the MBR from sector 0 (`base` is its absolute offset, for errors).
pub fn parse(sector0: &[u8], base: u64) -> Result<Mbr, ImageError> {
    let f = Fields::new(sector0, base);
    let sig = f.le_u16(510, "MBR boot signature")?;
    if sig != 0xAA55 {
        return Err(ImageError::invalid("MBR boot signature", f.abs(510), format!("{sig:#06x}, not 0xaa55")));
    }
    let mut entries = Vec::new();
    for slot in 0..4u32 {
        let at = ENTRIES_OFFSET + 16 * slot as usize;
        if let Some(e) = parse_entry(&f, at, slot + 1, 0)? {
            entries.push(e);
        }
    }
    Ok(Mbr { entries })
}

/// One 16-byte entry at `at`, with `lba_base` added to its start (0 for the MBR itself); `None`
/// for an unused slot.
fn parse_entry(f: &Fields, at: usize, number: u32, lba_base: u64) -> Result<Option<MbrEntry>, ImageError> {
    let boot_indicator = f.u8(at, "MBR partition entry boot indicator")?;
    let kind = f.u8(at + 4, "MBR partition entry type")?;
    let start = f.le_u32(at + 8, "MBR partition entry starting LBA")?;
    let sectors = f.le_u32(at + 12, "MBR partition entry sector count")?;
    if kind == 0 || sectors == 0 {
        return Ok(None);
    }
    if boot_indicator != 0 && boot_indicator != 0x80 {
        return Err(ImageError::invalid(
            "MBR partition entry boot indicator",
            f.abs(at),
            format!("{boot_indicator:#04x}, neither 0x00 nor 0x80 (not a partition table)"),
        ));
    }
    let start_lba = lba_base
        .checked_add(u64::from(start))
        .ok_or_else(|| ImageError::invalid("MBR partition entry starting LBA", f.abs(at + 8), "overflows"))?;
    Ok(Some(MbrEntry { number, boot_indicator, kind, start_lba, sectors: u64::from(sectors) }))
}

/// Follows the EBR chain of the extended partition `ext` and returns its logical partitions,
/// numbered from `first_number` (5 for the first extended partition; a table with several goes
/// on where the previous chain stopped, as Linux numbers them, so no two share a number).
/// `sector_bytes` is the logical sector size the LBAs count in.
pub fn logical_partitions(
    src: &dyn ReadAt,
    ext: &MbrEntry,
    sector_bytes: u64,
    first_number: u32,
) -> Result<Vec<MbrEntry>, ImageError> {
    let mut out = Vec::new();
    let mut ebr_rel = 0u64; // the current EBR, in sectors from the start of the extended partition
    for ebrs in 0.. {
        if ebrs >= MAX_LOGICAL {
            return Err(ImageError::invalid(
                "extended partition's EBR chain",
                ext.start_lba.saturating_mul(sector_bytes),
                format!(
                    "goes on past {MAX_LOGICAL} logical partitions (extended boot records), the most \
                     spindle follows: a corrupt or crafted chain"
                ),
            ));
        }
        let lba = ext.start_lba.checked_add(ebr_rel).ok_or_else(|| overflow(ext, sector_bytes))?;
        let at = lba.checked_mul(sector_bytes).ok_or_else(|| overflow(ext, sector_bytes))?;
        let sector = read_bytes(src, 0, at, 512, 512, "extended boot record")?;
        let f = Fields::new(&sector, at);
        let sig = f.le_u16(510, "EBR boot signature")?;
        if sig != 0xAA55 {
            return Err(ImageError::invalid(
                "EBR boot signature",
                at + 510,
                format!("{sig:#06x}, not 0xaa55"),
            ));
        }
        let number = first_number.saturating_add(out.len() as u32);
        if let Some(e) = parse_entry(&f, ENTRIES_OFFSET, number, lba)? {
            out.push(e);
        }
        let Some(next) = parse_entry(&f, ENTRIES_OFFSET + 16, 0, 0)? else { break };
        // Each link must move forward inside the extended partition: a chain that points back
        // or outside is corrupt (and would otherwise loop).
        if next.start_lba <= ebr_rel || next.start_lba >= ext.sectors {
            return Err(ImageError::invalid(
                "EBR link to the next EBR",
                at + ENTRIES_OFFSET as u64 + 16,
                format!(
                    "points to sector {} of the extended partition, not after sector {} and before its end ({})",
                    next.start_lba, ebr_rel, ext.sectors
                ),
            ));
        }
        ebr_rel = next.start_lba;
    }
    Ok(out)
}

fn overflow(ext: &MbrEntry, sector_bytes: u64) -> ImageError {
    ImageError::invalid(
        "extended partition",
        ext.start_lba.saturating_mul(sector_bytes),
        "an EBR position overflows 64 bits",
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn put_entry(s: &mut [u8], slot: usize, kind: u8, start: u32, sectors: u32) {
        let at = ENTRIES_OFFSET + 16 * slot;
        s[at + 4] = kind;
        s[at + 8..at + 12].copy_from_slice(&start.to_le_bytes());
        s[at + 12..at + 16].copy_from_slice(&sectors.to_le_bytes());
    }

    pub(crate) fn mbr_with(entries: &[(u8, u32, u32)]) -> Vec<u8> {
        let mut s = vec![0u8; 512];
        s[510] = 0x55;
        s[511] = 0xAA;
        for (i, &(k, st, n)) in entries.iter().enumerate() {
            put_entry(&mut s, i, k, st, n);
        }
        s
    }

    #[test]
    fn reads_primary_entries_including_the_legacy_start() {
        let s = mbr_with(&[(0x07, 63, 1000), (0, 0, 0), (0x83, 2048, 4096)]);
        let m = parse(&s, 0).unwrap();
        assert_eq!(m.entries.len(), 2);
        assert_eq!(m.entries[0].start_lba * 512, 32_256);
        assert_eq!(m.entries[1].number, 3);
        assert!(!m.is_protective());
        assert!(parse(&mbr_with(&[(0xEE, 1, 100)]), 0).unwrap().is_protective());
    }

    #[test]
    fn truncation_at_every_length_is_an_error_not_a_panic() {
        let s = mbr_with(&[(0x07, 2048, 1000)]);
        for len in 0..s.len() {
            assert!(parse(&s[..len], 0).is_err(), "len {len}");
        }
    }

    #[test]
    fn bad_signature_and_boot_indicator_are_named() {
        let mut s = mbr_with(&[(0x07, 2048, 1000)]);
        s[ENTRIES_OFFSET] = 0x12;
        let e = parse(&s, 0).unwrap_err().to_string();
        assert!(e.contains("boot indicator") && e.contains("446"), "{e}");
        s[511] = 0;
        assert!(parse(&s, 0).unwrap_err().to_string().contains("signature"));
    }

    #[test]
    fn follows_and_bounds_the_ebr_chain() {
        // Extended partition at sector 100, 1000 sectors; two logical partitions.
        let mut disk = vec![0u8; 512 * 1200];
        disk[..512].copy_from_slice(&mbr_with(&[(0x05, 100, 1000)]));
        let ebr1 = mbr_with(&[(0x83, 10, 50), (0x05, 200, 100)]);
        disk[512 * 100..512 * 101].copy_from_slice(&ebr1);
        let ebr2 = mbr_with(&[(0x83, 10, 50)]);
        disk[512 * 300..512 * 301].copy_from_slice(&ebr2);
        let ext = parse(&disk[..512], 0).unwrap().entries[0];
        let l = logical_partitions(&disk, &ext, 512, 5).unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!((l[0].number, l[0].start_lba), (5, 110));
        assert_eq!((l[1].number, l[1].start_lba), (6, 310));
        // A link pointing back to itself is refused rather than followed forever.
        let looping = mbr_with(&[(0x83, 10, 50), (0x05, 0, 100)]);
        disk[512 * 100..512 * 101].copy_from_slice(&looping);
        assert!(logical_partitions(&disk, &ext, 512, 5).is_err());
        // An EBR past the end of the image is a truncation error.
        let far = MbrEntry { number: 1, boot_indicator: 0, kind: 5, start_lba: 1 << 40, sectors: 10 };
        assert!(matches!(logical_partitions(&disk, &far, 512, 5), Err(ImageError::Truncated { .. })));
        let huge = MbrEntry { start_lba: u64::MAX, ..far };
        assert!(logical_partitions(&disk, &huge, 4096, 5).is_err());
    }

    /// An extended partition at sector 100 whose chain has `ebrs` EBRs, 2 sectors apart, each
    /// with one logical partition when `with_partitions`.
    fn chain(ebrs: u32, with_partitions: bool) -> (Vec<u8>, MbrEntry) {
        let mut disk = vec![0u8; 512 * (100 + 2 * ebrs as usize + 2)];
        disk[..512].copy_from_slice(&mbr_with(&[(0x05, 100, 2 * ebrs + 2)]));
        for i in 0..ebrs {
            let mut e = Vec::new();
            if with_partitions {
                e.push((0x83, 1, 1));
            } else {
                e.push((0, 0, 0));
            }
            if i + 1 < ebrs {
                e.push((0x05, 2 * (i + 1), 2));
            }
            let at = 512 * (100 + 2 * i as usize);
            disk[at..at + 512].copy_from_slice(&mbr_with(&e));
        }
        let ext = parse(&disk[..512], 0).unwrap().entries[0];
        (disk, ext)
    }

    #[test]
    fn the_chain_limit_counts_logical_partitions_not_bytes() {
        let (disk, ext) = chain(MAX_LOGICAL as u32, true);
        assert_eq!(logical_partitions(&disk, &ext, 512, 5).unwrap().len(), MAX_LOGICAL);
        let (disk, ext) = chain(MAX_LOGICAL as u32 + 1, true);
        let e = logical_partitions(&disk, &ext, 512, 5).unwrap_err().to_string();
        assert!(e.contains("past 128 logical partitions") && !e.contains("bytes read"), "{e}");
        assert!(e.contains("at byte 51200"), "names the extended partition: {e}");
        // Empty EBRs count too: a long chain of them is not followed to its end.
        let (disk, ext) = chain(10_000, false);
        let e = logical_partitions(&disk, &ext, 512, 5).unwrap_err().to_string();
        assert!(e.contains("past 128 logical partitions"), "{e}");
    }

    #[test]
    fn a_second_chain_numbers_on_from_the_first() {
        let (disk, ext) = chain(3, true);
        let l = logical_partitions(&disk, &ext, 512, 8).unwrap();
        assert_eq!(l.iter().map(|e| e.number).collect::<Vec<_>>(), [8, 9, 10]);
    }
}
