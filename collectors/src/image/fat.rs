//! FAT boot sectors, recognised so that the EFI system partition of a GPT disk (FAT32) is
//! reported as the FAT volume Windows shows, not as an unknown filesystem.
//!
//! Layout from Microsoft's "FAT: General Overview of On-Disk Format" (FAT32 File System
//! Specification, 2000), little-endian: BPB_BytsPerSec u16 (0x0B), BPB_SecPerClus u8 (0x0D),
//! BPB_TotSec16 u16 (0x13), BPB_TotSec32 u32 (0x20); the type string `FAT32   ` at 0x52 on
//! FAT32 or `FAT12   `/`FAT16   `/`FAT     ` at 0x36 on FAT12/16, and `55 AA` at 510.

use super::ImageError;
use super::read_at::Fields;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FatBoot {
    /// `FAT32` or `FAT` (FAT12/16), as Windows names them.
    pub name: &'static str,
    pub cluster_bytes: u64,
    pub size_bytes: u64,
}

/// The Windows name of the FAT variant, if the sector carries a FAT type string.
pub fn fat_name(sector: &[u8]) -> Option<&'static str> {
    let f = Fields::new(sector, 0);
    if f.has(0x52, b"FAT32   ") {
        Some("FAT32")
    } else if f.has(0x36, b"FAT12   ") || f.has(0x36, b"FAT16   ") || f.has(0x36, b"FAT     ") {
        Some("FAT")
    } else {
        None
    }
}

pub fn parse(sector: &[u8], base: u64) -> Result<FatBoot, ImageError> {
    let f = Fields::new(sector, base);
    let name = fat_name(sector)
        .ok_or_else(|| ImageError::invalid("FAT file system type", f.abs(0x36), "no FAT type string"))?;
    let bps = f.le_u16(0x0B, "FAT bytes per sector")?;
    if !bps.is_power_of_two() || !(512..=4096).contains(&bps) {
        return Err(ImageError::invalid(
            "FAT bytes per sector",
            f.abs(0x0B),
            format!("{bps}, not a power of two from 512 to 4096"),
        ));
    }
    let spc = f.u8(0x0D, "FAT sectors per cluster")?;
    if !spc.is_power_of_two() {
        return Err(ImageError::invalid(
            "FAT sectors per cluster",
            f.abs(0x0D),
            format!("{spc}, not a power of two"),
        ));
    }
    let total16 = f.le_u16(0x13, "FAT total sectors (16-bit)")?;
    let total = if total16 != 0 { u32::from(total16) } else { f.le_u32(0x20, "FAT total sectors (32-bit)")? };
    let sig = f.le_u16(510, "FAT boot sector end marker")?;
    if sig != 0xAA55 {
        return Err(ImageError::invalid(
            "FAT boot sector end marker",
            f.abs(510),
            format!("{sig:#06x}, not 0xaa55"),
        ));
    }
    Ok(FatBoot {
        name,
        cluster_bytes: u64::from(bps) * u64::from(spc),
        size_bytes: u64::from(total) * u64::from(bps),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fat32_and_refuses_bad_fields() {
        let mut s = vec![0u8; 512];
        s[0x0B..0x0D].copy_from_slice(&512u16.to_le_bytes());
        s[0x0D] = 8;
        s[0x20..0x24].copy_from_slice(&1000u32.to_le_bytes());
        s[0x52..0x5A].copy_from_slice(b"FAT32   ");
        s[510] = 0x55;
        s[511] = 0xAA;
        assert_eq!(
            parse(&s, 0).unwrap(),
            FatBoot { name: "FAT32", cluster_bytes: 4096, size_bytes: 512_000 }
        );
        for len in 0..512 {
            assert!(parse(&s[..len], 0).is_err(), "len {len}");
        }
        s[0x0D] = 0;
        assert!(parse(&s, 0).is_err());
    }
}
