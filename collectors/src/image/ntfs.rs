//! The NTFS boot sector (the BIOS parameter block at the start of the volume).
//!
//! Layout from Microsoft's "NTFS Technical Reference" (BPB and extended BPB table) and
//! ntfs-3g's `layout.h` (`NTFS_BOOT_SECTOR`), all little-endian: OEM id `NTFS    ` at byte 3,
//! bytes per sector (u16) at 0x0B, sectors per cluster (u8) at 0x0D, hidden sectors (u32, the
//! partition's start in sectors as the formatter saw it) at 0x1C, total sectors (u64, the
//! volume's size less the backup boot sector) at 0x28, the `55 AA` end-of-sector marker at 510.
//!
//! Sectors per cluster is a count up to 0x80 (128). Clusters over 64 KiB with 512-byte sectors
//! need more, so values from 0xF4 up are read as a negative shift: 2^(256 − v) sectors, 0xF8
//! being 256 sectors (128 KiB) and 0xF4 4096 sectors (2 MiB). This is how Windows 10 1709+
//! formats large clusters, and how ntfs-3g's `mkntfs` and `ntfs_boot_sector_is_ntfs` read it.

use super::ImageError;
use super::read_at::Fields;

/// The OEM id at byte 3 that marks an NTFS boot sector.
pub const OEM_ID: &[u8; 8] = b"NTFS    ";
/// Largest cluster Windows formats (2 MiB); anything larger is corrupt.
pub const MAX_CLUSTER_BYTES: u64 = 2 << 20;

/// What the NTFS boot sector says about the volume.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NtfsBoot {
    pub bytes_per_sector: u32,
    /// Decoded (so 256 for 0xF8).
    pub sectors_per_cluster: u32,
    pub cluster_bytes: u64,
    pub hidden_sectors: u32,
    pub total_sectors: u64,
}

impl NtfsBoot {
    /// The volume's size as Windows reports it (`Win32_Volume.Capacity`): whole clusters.
    pub fn size_bytes(&self) -> u64 {
        // cluster_bytes <= 2 MiB and clusters = total / sectors_per_cluster, so
        // clusters × cluster_bytes <= total_sectors × bytes_per_sector; still checked.
        (self.total_sectors / u64::from(self.sectors_per_cluster)).saturating_mul(self.cluster_bytes)
    }
}

pub fn is_ntfs(sector: &[u8]) -> bool {
    Fields::new(sector, 0).has(3, OEM_ID)
}

/// Decodes the sectors-per-cluster byte: a power of two up to 128, or 2^(256 − v) for
/// v ≥ 0xF4 (up to 4096 sectors).
pub fn decode_sectors_per_cluster(v: u8) -> Option<u32> {
    match v {
        1..=0x80 if v.is_power_of_two() => Some(u32::from(v)),
        0xF4..=0xFF => Some(1u32 << (256 - u32::from(v))),
        _ => None,
    }
}

pub fn parse(sector: &[u8], base: u64) -> Result<NtfsBoot, ImageError> {
    let f = Fields::new(sector, base);
    let oem = f.get(3, 8, "NTFS OEM id")?;
    if oem != OEM_ID {
        return Err(ImageError::invalid("NTFS OEM id", f.abs(3), format!("{oem:02x?}, not \"NTFS    \"")));
    }
    let bps = f.le_u16(0x0B, "NTFS bytes per sector")?;
    if !bps.is_power_of_two() || !(256..=4096).contains(&bps) {
        return Err(ImageError::invalid(
            "NTFS bytes per sector",
            f.abs(0x0B),
            format!("{bps}, not a power of two from 256 to 4096"),
        ));
    }
    let raw_spc = f.u8(0x0D, "NTFS sectors per cluster")?;
    let spc = decode_sectors_per_cluster(raw_spc).ok_or_else(|| {
        ImageError::invalid(
            "NTFS sectors per cluster",
            f.abs(0x0D),
            format!("{raw_spc:#04x}, neither a power of two up to 0x80 nor 0xf4..=0xff (2^(256 - v))"),
        )
    })?;
    let cluster_bytes = u64::from(bps) * u64::from(spc); // <= 4096 × 4096
    if cluster_bytes > MAX_CLUSTER_BYTES {
        return Err(ImageError::invalid(
            "NTFS sectors per cluster",
            f.abs(0x0D),
            format!("{spc} sectors of {bps} bytes make {cluster_bytes}-byte clusters, over 2 MiB"),
        ));
    }
    let hidden_sectors = f.le_u32(0x1C, "NTFS hidden sectors")?;
    let total_sectors = f.le_u64(0x28, "NTFS total sectors")?;
    if total_sectors.checked_mul(u64::from(bps)).is_none() {
        return Err(ImageError::invalid(
            "NTFS total sectors",
            f.abs(0x28),
            format!("{total_sectors} sectors of {bps} bytes overflow 64 bits"),
        ));
    }
    let sig = f.le_u16(510, "NTFS boot sector end marker")?;
    if sig != 0xAA55 {
        return Err(ImageError::invalid(
            "NTFS boot sector end marker",
            f.abs(510),
            format!("{sig:#06x}, not 0xaa55"),
        ));
    }
    Ok(NtfsBoot {
        bytes_per_sector: u32::from(bps),
        sectors_per_cluster: spc,
        cluster_bytes,
        hidden_sectors,
        total_sectors,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn boot(bps: u16, spc: u8, hidden: u32, total: u64) -> Vec<u8> {
        let mut s = vec![0u8; 512];
        s[..3].copy_from_slice(&[0xEB, 0x52, 0x90]);
        s[3..11].copy_from_slice(OEM_ID);
        s[0x0B..0x0D].copy_from_slice(&bps.to_le_bytes());
        s[0x0D] = spc;
        s[0x1C..0x20].copy_from_slice(&hidden.to_le_bytes());
        s[0x28..0x30].copy_from_slice(&total.to_le_bytes());
        s[510] = 0x55;
        s[511] = 0xAA;
        s
    }

    #[test]
    fn decodes_cluster_sizes_including_the_negative_shift() {
        for (bps, spc, cluster) in [
            (512u16, 8u8, 4096u64),
            (512, 0x80, 65_536),
            (512, 0xF8, 131_072),
            (512, 0xF4, 2 << 20),
            (4096, 1, 4096),
            (4096, 16, 65_536),
            (4096, 0xF7, 2 << 20),
        ] {
            let b = parse(&boot(bps, spc, 2048, 1 << 20), 0).unwrap();
            assert_eq!(b.cluster_bytes, cluster, "{bps} {spc:#x}");
        }
        let b = parse(&boot(512, 8, 2048, 8 * 100 + 7), 0).unwrap();
        assert_eq!((b.hidden_sectors, b.size_bytes()), (2048, 100 * 4096));
    }

    #[test]
    fn zero_absurd_and_oversized_clusters_are_errors() {
        for spc in [0u8, 3, 0x81, 0xC0, 0xF3] {
            let e = parse(&boot(512, spc, 0, 100), 100).unwrap_err().to_string();
            assert!(e.contains("sectors per cluster") && e.contains("113"), "{e}");
        }
        // 4096-byte sectors × 2^12 = 16 MiB clusters.
        assert!(parse(&boot(4096, 0xF4, 0, 100), 0).unwrap_err().to_string().contains("over 2 MiB"));
        for bps in [0u16, 100, 513, 8192] {
            assert!(parse(&boot(bps, 8, 0, 100), 0).unwrap_err().to_string().contains("bytes per sector"));
        }
        assert!(parse(&boot(4096, 8, 0, u64::MAX), 0).is_err());
    }

    #[test]
    fn truncation_at_every_length_is_an_error() {
        let s = boot(512, 8, 63, 1000);
        for len in 0..s.len() {
            assert!(parse(&s[..len], 0).is_err(), "len {len}");
        }
    }
}
