//! The ext2/3/4 superblock (1,024 bytes at byte 1,024 of the filesystem, little-endian).
//!
//! Layout from the kernel's "ext4 Data Structures and Algorithms" documentation
//! (`Documentation/filesystems/ext4/super.rst`) and `struct ext4_super_block` in
//! `fs/ext4/ext4.h`: s_blocks_count_lo (0x04), s_log_block_size (0x18, block size
//! 2^(10 + v)), s_magic 0xEF53 (0x38), s_feature_compat (0x5C), s_feature_incompat (0x60),
//! s_feature_ro_compat (0x64), `s_volume_name[16]` (0x78), s_blocks_count_hi (0x150, with the
//! 64bit feature), s_raid_stride u16 (0x164) and s_raid_stripe_width u32 (0x170), the last two
//! in filesystem blocks (mke2fs `-E stride=,stripe_width=`).
//!
//! The filesystem is named as blkid and the kernel would: `ext4` when it uses a feature ext3
//! lacks, `ext3` when it has a journal, else `ext2`.

use super::ImageError;
use super::read_at::Fields;

/// Where the superblock starts, from the start of the filesystem.
pub const OFFSET: u64 = 1024;
pub const MAGIC: u16 = 0xEF53;
/// Bytes of the superblock this parser reads.
pub const SUPERBLOCK_BYTES: usize = 0x174;

const COMPAT_HAS_JOURNAL: u32 = 0x4;
const INCOMPAT_JOURNAL_DEV: u32 = 0x8;
const INCOMPAT_64BIT: u32 = 0x80;
/// Incompatible features ext3 understands (filetype, recover, journal_dev, meta_bg).
const INCOMPAT_EXT3: u32 = 0x2 | 0x4 | 0x8 | 0x10;
/// Read-only-compatible features ext3 understands (sparse_super, large_file, btree_dir).
const RO_COMPAT_EXT3: u32 = 0x1 | 0x2 | 0x4;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtSuper {
    /// `ext4`, `ext3` or `ext2`.
    pub name: &'static str,
    pub block_bytes: u32,
    pub blocks: u64,
    pub label: String,
    /// s_raid_stride, in blocks; 0 when none was set.
    pub raid_stride_blocks: u16,
    /// s_raid_stripe_width, in blocks; 0 when none was set.
    pub raid_stripe_width_blocks: u32,
}

impl ExtSuper {
    /// The filesystem's size (s_blocks_count × block size, what `dumpe2fs` shows; `df` shows
    /// less, without metadata).
    pub fn size_bytes(&self) -> u64 {
        self.blocks * u64::from(self.block_bytes) // parse checked the product
    }
    pub fn stripe_unit_bytes(&self) -> Option<u64> {
        (self.raid_stride_blocks != 0)
            .then(|| u64::from(self.raid_stride_blocks) * u64::from(self.block_bytes))
    }
    pub fn stripe_width_bytes(&self) -> Option<u64> {
        (self.raid_stripe_width_blocks != 0)
            .then(|| u64::from(self.raid_stripe_width_blocks) * u64::from(self.block_bytes))
    }
}

/// Whether the superblock (the bytes from `OFFSET`) carries the magic.
pub fn is_ext(sb: &[u8]) -> bool {
    Fields::new(sb, 0).has(0x38, &MAGIC.to_le_bytes())
}

/// Parses the superblock; `sb` starts at the superblock (byte 1,024 of the filesystem) and
/// `base` is its absolute offset.
pub fn parse(sb: &[u8], base: u64) -> Result<ExtSuper, ImageError> {
    let f = Fields::new(sb, base);
    let magic = f.le_u16(0x38, "ext4 s_magic")?;
    if magic != MAGIC {
        return Err(ImageError::invalid("ext4 s_magic", f.abs(0x38), format!("{magic:#06x}, not 0xef53")));
    }
    let log = f.le_u32(0x18, "ext4 s_log_block_size")?;
    if log > 6 {
        return Err(ImageError::invalid(
            "ext4 s_log_block_size",
            f.abs(0x18),
            format!("{log}: blocks of 2^(10 + {log}) bytes, over the 64 KiB maximum"),
        ));
    }
    let block_bytes = 1024u32 << log;
    let compat = f.le_u32(0x5C, "ext4 s_feature_compat")?;
    let incompat = f.le_u32(0x60, "ext4 s_feature_incompat")?;
    let ro_compat = f.le_u32(0x64, "ext4 s_feature_ro_compat")?;
    if incompat & INCOMPAT_JOURNAL_DEV != 0 {
        return Err(ImageError::invalid(
            "ext4 s_feature_incompat",
            f.abs(0x60),
            "an external journal device, not a filesystem",
        ));
    }
    let lo = f.le_u32(0x04, "ext4 s_blocks_count_lo")?;
    let hi = if incompat & INCOMPAT_64BIT != 0 { f.le_u32(0x150, "ext4 s_blocks_count_hi")? } else { 0 };
    let blocks = (u64::from(hi) << 32) | u64::from(lo);
    if blocks.checked_mul(u64::from(block_bytes)).is_none() {
        return Err(ImageError::invalid(
            "ext4 s_blocks_count",
            f.abs(0x04),
            format!("{blocks} blocks of {block_bytes} bytes overflow 64 bits"),
        ));
    }
    let label_bytes = f.get(0x78, 16, "ext4 s_volume_name")?;
    let label =
        String::from_utf8_lossy(label_bytes.split(|&b| b == 0).next().unwrap_or_default()).into_owned();
    let name = if incompat & !INCOMPAT_EXT3 != 0 || ro_compat & !RO_COMPAT_EXT3 != 0 {
        "ext4"
    } else if compat & COMPAT_HAS_JOURNAL != 0 {
        "ext3"
    } else {
        "ext2"
    };
    Ok(ExtSuper {
        name,
        block_bytes,
        blocks,
        label,
        raid_stride_blocks: f.le_u16(0x164, "ext4 s_raid_stride")?,
        raid_stripe_width_blocks: f.le_u32(0x170, "ext4 s_raid_stripe_width")?,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn sb(log: u32, blocks: u64, stride: u16, width: u32) -> Vec<u8> {
        let mut s = vec![0u8; 1024];
        s[0x04..0x08].copy_from_slice(&(blocks as u32).to_le_bytes());
        s[0x18..0x1C].copy_from_slice(&log.to_le_bytes());
        s[0x38..0x3A].copy_from_slice(&MAGIC.to_le_bytes());
        s[0x5C..0x60].copy_from_slice(&COMPAT_HAS_JOURNAL.to_le_bytes());
        s[0x60..0x64].copy_from_slice(&(0x2 | 0x40 | INCOMPAT_64BIT).to_le_bytes()); // extents
        s[0x150..0x154].copy_from_slice(&((blocks >> 32) as u32).to_le_bytes());
        s[0x164..0x166].copy_from_slice(&stride.to_le_bytes());
        s[0x170..0x174].copy_from_slice(&width.to_le_bytes());
        s
    }

    #[test]
    fn reads_block_size_stripe_and_name() {
        let e = parse(&sb(2, (1 << 32) + 10, 16, 64), 1024).unwrap();
        assert_eq!((e.name, e.block_bytes, e.blocks), ("ext4", 4096, (1 << 32) + 10));
        assert_eq!((e.stripe_unit_bytes(), e.stripe_width_bytes()), (Some(65_536), Some(262_144)));
        let mut s = sb(0, 100, 0, 0);
        s[0x60..0x64].copy_from_slice(&0x2u32.to_le_bytes());
        let e = parse(&s, 1024).unwrap();
        assert_eq!((e.name, e.stripe_unit_bytes(), e.size_bytes()), ("ext3", None, 102_400));
        s[0x5C..0x60].fill(0);
        assert_eq!(parse(&s, 1024).unwrap().name, "ext2");
    }

    #[test]
    fn bad_fields_are_errors() {
        let e = parse(&sb(7, 10, 0, 0), 1024).unwrap_err().to_string();
        assert!(e.contains("s_log_block_size") && e.contains("1048"), "{e}");
        assert!(parse(&sb(u32::MAX, 10, 0, 0), 0).is_err());
        assert!(parse(&sb(6, u64::MAX, 0, 0), 0).is_err());
        let mut s = sb(2, 10, 0, 0);
        s[0x60] |= INCOMPAT_JOURNAL_DEV as u8;
        assert!(parse(&s, 0).is_err());
        s[0x38] = 0;
        assert!(parse(&s, 0).is_err());
    }

    #[test]
    fn truncation_at_every_length_is_an_error() {
        let s = sb(2, 1000, 16, 64);
        for len in 0..SUPERBLOCK_BYTES {
            assert!(parse(&s[..len], 0).is_err(), "len {len}");
        }
    }
}
