//! The XFS superblock (at byte 0 of the filesystem, big-endian).
//!
//! Layout from the "XFS Algorithms & Data Structures" book (kernel.org, chapter "Superblocks")
//! and `struct xfs_dsb` in the kernel's `fs/xfs/libxfs/xfs_format.h`: magic `XFSB` (0),
//! sb_blocksize u32 (4), sb_dblocks u64 (8), sb_sectsize u16 (102), `sb_fname[12]` (108),
//! sb_blocklog u8 (120), sb_unit u32 (184) and sb_width u32 (188). sb_unit and sb_width are in
//! filesystem blocks here (the `sunit=`/`swidth=` mount options use 512-byte units instead);
//! mkfs.xfs prints them the same way (`sunit=16 swidth=64 blks`).

use super::ImageError;
use super::read_at::Fields;

pub const MAGIC: &[u8; 4] = b"XFSB";
/// Bytes of the superblock this parser reads.
pub const SUPERBLOCK_BYTES: usize = 192;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XfsSuper {
    pub block_bytes: u32,
    pub data_blocks: u64,
    pub sector_bytes: u16,
    pub label: String,
    /// sb_unit, in filesystem blocks; 0 when none was set.
    pub stripe_unit_blocks: u32,
    /// sb_width, in filesystem blocks; 0 when none was set.
    pub stripe_width_blocks: u32,
}

impl XfsSuper {
    /// The data section's size (sb_dblocks × sb_blocksize, what `xfs_info` shows; `df` shows a
    /// little less, without the internal log).
    pub fn size_bytes(&self) -> u64 {
        // parse checked the product.
        self.data_blocks * u64::from(self.block_bytes)
    }
    pub fn stripe_unit_bytes(&self) -> Option<u64> {
        (self.stripe_unit_blocks != 0)
            .then(|| u64::from(self.stripe_unit_blocks) * u64::from(self.block_bytes))
    }
    pub fn stripe_width_bytes(&self) -> Option<u64> {
        (self.stripe_width_blocks != 0)
            .then(|| u64::from(self.stripe_width_blocks) * u64::from(self.block_bytes))
    }
}

pub fn is_xfs(first: &[u8]) -> bool {
    Fields::new(first, 0).has(0, MAGIC)
}

pub fn parse(sb: &[u8], base: u64) -> Result<XfsSuper, ImageError> {
    let f = Fields::new(sb, base);
    let magic = f.get(0, 4, "XFS superblock magic")?;
    if magic != MAGIC {
        return Err(ImageError::invalid("XFS superblock magic", base, format!("{magic:02x?}, not \"XFSB\"")));
    }
    let block_bytes = f.be_u32(4, "XFS sb_blocksize")?;
    if !block_bytes.is_power_of_two() || !(512..=65_536).contains(&block_bytes) {
        return Err(ImageError::invalid(
            "XFS sb_blocksize",
            f.abs(4),
            format!("{block_bytes}, not a power of two from 512 to 65536"),
        ));
    }
    let blocklog = f.u8(120, "XFS sb_blocklog")?;
    if u32::from(blocklog) != block_bytes.trailing_zeros() {
        return Err(ImageError::invalid(
            "XFS sb_blocklog",
            f.abs(120),
            format!("{blocklog} does not match sb_blocksize {block_bytes}"),
        ));
    }
    let data_blocks = f.be_u64(8, "XFS sb_dblocks")?;
    if data_blocks.checked_mul(u64::from(block_bytes)).is_none() {
        return Err(ImageError::invalid(
            "XFS sb_dblocks",
            f.abs(8),
            format!("{data_blocks} blocks overflow 64 bits"),
        ));
    }
    let sector_bytes = f.be_u16(102, "XFS sb_sectsize")?;
    if !sector_bytes.is_power_of_two() || !(512..=32_768).contains(&sector_bytes) {
        return Err(ImageError::invalid(
            "XFS sb_sectsize",
            f.abs(102),
            format!("{sector_bytes}, not a power of two from 512 to 32768"),
        ));
    }
    let label_bytes = f.get(108, 12, "XFS sb_fname")?;
    let label =
        String::from_utf8_lossy(label_bytes.split(|&b| b == 0).next().unwrap_or_default()).into_owned();
    let unit = f.be_u32(184, "XFS sb_unit")?;
    let width = f.be_u32(188, "XFS sb_width")?;
    // The kernel's xfs_validate_sb_common: both zero or both set, the width a multiple of the unit.
    if (unit == 0) != (width == 0) || (unit != 0 && width % unit != 0) {
        return Err(ImageError::invalid(
            "XFS sb_unit/sb_width",
            f.abs(184),
            format!("stripe unit {unit} and width {width} blocks: both must be set, the width a multiple"),
        ));
    }
    Ok(XfsSuper {
        block_bytes,
        data_blocks,
        sector_bytes,
        label,
        stripe_unit_blocks: unit,
        stripe_width_blocks: width,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn sb(block: u32, blocks: u64, unit: u32, width: u32) -> Vec<u8> {
        let mut s = vec![0u8; 512];
        s[..4].copy_from_slice(MAGIC);
        s[4..8].copy_from_slice(&block.to_be_bytes());
        s[8..16].copy_from_slice(&blocks.to_be_bytes());
        s[102..104].copy_from_slice(&512u16.to_be_bytes());
        s[108..112].copy_from_slice(b"data");
        s[120] = block.trailing_zeros() as u8;
        s[184..188].copy_from_slice(&unit.to_be_bytes());
        s[188..192].copy_from_slice(&width.to_be_bytes());
        s
    }

    #[test]
    fn reads_stripe_geometry_in_bytes() {
        let x = parse(&sb(4096, 1000, 16, 64), 0).unwrap();
        assert_eq!(x.stripe_unit_bytes(), Some(65_536));
        assert_eq!(x.stripe_width_bytes(), Some(262_144));
        assert_eq!((x.size_bytes(), x.label.as_str()), (4_096_000, "data"));
        let x = parse(&sb(4096, 1000, 0, 0), 0).unwrap();
        assert_eq!((x.stripe_unit_bytes(), x.stripe_width_bytes()), (None, None));
    }

    #[test]
    fn bad_fields_are_errors() {
        for block in [0u32, 256, 4095, 131_072] {
            let mut s = sb(4096, 10, 0, 0);
            s[4..8].copy_from_slice(&block.to_be_bytes());
            assert!(parse(&s, 0).unwrap_err().to_string().contains("sb_blocksize"), "{block}");
        }
        let mut s = sb(4096, 10, 0, 0);
        s[120] = 9;
        assert!(parse(&s, 0).is_err());
        assert!(parse(&sb(65_536, u64::MAX / 2, 0, 0), 0).is_err());
        assert!(parse(&sb(4096, 10, 16, 0), 0).is_err());
        assert!(parse(&sb(4096, 10, 16, 40), 0).is_err());
        let mut s = sb(4096, 10, 0, 0);
        s[102..104].copy_from_slice(&0u16.to_be_bytes());
        assert!(parse(&s, 0).is_err());
    }

    #[test]
    fn truncation_at_every_length_is_an_error() {
        let s = sb(4096, 1000, 16, 64);
        for len in 0..SUPERBLOCK_BYTES {
            assert!(parse(&s[..len], 0).is_err(), "len {len}");
        }
    }
}
