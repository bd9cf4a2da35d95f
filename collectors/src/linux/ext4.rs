//! ext4 stripe geometry. mountinfo shows `stripe=N` (filesystem blocks) whenever the allocator
//! uses a stripe, but N is the mount option `stripe=`, else the superblock's
//! `s_raid_stripe_width`, else its `s_raid_stride` (fs/ext4/super.c `ext4_get_stripe_size`), so
//! on its own it does not say whether it is a width or a unit. The superblock says: it is 1024
//! bytes into the device (Documentation/filesystems/ext4/super.rst; parsed by
//! [`crate::image::ext4`]): `s_raid_stride` and `s_raid_stripe_width`, in blocks
//! (`mke2fs -E stride=,stripe_width=`).
//! It is read from `/dev/<name>` under the root, which needs read access to the device (root);
//! a captured tree has no device, and the geometry is then recorded as not collected when
//! mountinfo shows a stripe.

use std::io::Read;
use std::path::Path;

/// What the superblock records, in bytes; `None` for a value not set (0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ext4Stripe {
    pub block_bytes: u64,
    pub stride_bytes: Option<u64>,
    pub stripe_width_bytes: Option<u64>,
    /// The raw counts, in filesystem blocks.
    pub stride_blocks: u64,
    pub stripe_width_blocks: u64,
}

/// Parses the 1024-byte superblock, with the image collector's bounds-checked parser (one
/// reading of the on-disk layout for both collectors).
pub fn parse_superblock(sb: &[u8]) -> Result<Ext4Stripe, String> {
    let s = crate::image::ext4::parse(sb, 1024).map_err(|e| e.to_string())?;
    Ok(Ext4Stripe {
        block_bytes: u64::from(s.block_bytes),
        stride_bytes: s.stripe_unit_bytes(),
        stripe_width_bytes: s.stripe_width_bytes(),
        stride_blocks: u64::from(s.raid_stride_blocks),
        stripe_width_blocks: u64::from(s.raid_stripe_width_blocks),
    })
}

/// Reads the superblock of `/dev/<name>` under `root`.
pub fn read_superblock(root: &Path, name: &str) -> Result<Ext4Stripe, String> {
    let path = root.join("dev").join(name);
    let mut f = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut buf = vec![0u8; 2048];
    f.read_exact(&mut buf).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_superblock(&buf[1024..]).map_err(|e| format!("{}: {e}", path.display()))
}

/// (unit, width) in bytes from the superblock and mountinfo's `stripe=` (blocks). A `stripe=`
/// that is neither the superblock's width nor its stride was given at mount time and is the
/// width the allocator uses.
pub fn geometry(sb: &Ext4Stripe, mount_stripe: Option<u64>) -> (Option<u64>, Option<u64>) {
    let width = match mount_stripe {
        Some(s) if s > 0 && s != sb.stripe_width_blocks && s != sb.stride_blocks => {
            s.checked_mul(sb.block_bytes)
        }
        _ => sb.stripe_width_bytes,
    };
    (sb.stride_bytes, width)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sb(log: u32, stride: u16, width: u32) -> Vec<u8> {
        let mut b = vec![0u8; 1024];
        b[0x18..0x1c].copy_from_slice(&log.to_le_bytes());
        b[0x38..0x3a].copy_from_slice(&0xEF53u16.to_le_bytes());
        b[0x164..0x166].copy_from_slice(&stride.to_le_bytes());
        b[0x170..0x174].copy_from_slice(&width.to_le_bytes());
        b
    }

    #[test]
    fn stride_and_width_in_blocks() {
        // mkfs.ext4 -b 4096 -E stride=16,stripe_width=64: 64 KiB unit, 256 KiB width.
        let s = parse_superblock(&sb(2, 16, 64)).unwrap();
        assert_eq!(
            (s.block_bytes, s.stride_bytes, s.stripe_width_bytes),
            (4096, Some(65_536), Some(262_144))
        );
        assert_eq!(geometry(&s, Some(64)), (Some(65_536), Some(262_144)));
        // stripe=128 at mount time overrides the width.
        assert_eq!(geometry(&s, Some(128)), (Some(65_536), Some(524_288)));
        let none = parse_superblock(&sb(0, 0, 0)).unwrap();
        assert_eq!((none.block_bytes, geometry(&none, None)), (1024, (None, None)));
        let mut bad = sb(2, 16, 64);
        bad[0x38] = 0;
        assert!(parse_superblock(&bad).is_err());
        assert!(parse_superblock(&sb(40, 1, 1)).is_err());
        assert!(parse_superblock(&[0u8; 100]).is_err());
    }
}
