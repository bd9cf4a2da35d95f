//! Virtual Hard Disk (VHD) footers, and recognising the container formats that are not raw.
//!
//! Layout from Microsoft's "Virtual Hard Disk Image Format Specification" (version 1.0, 2006;
//! "Hard Disk Footer Format"), all big-endian: cookie `conectix` (0), features (8), file format
//! version 0x00010000 (12), data offset (16, all ones for a fixed disk), creator fields (24..40),
//! original size (40), current size (48), disk geometry (56), disk type (60: 2 fixed, 3 dynamic,
//! 4 differencing), checksum (64: the one's complement of the sum of every footer byte but the
//! checksum's own four). A fixed VHD is the raw disk followed by this 512-byte footer, so its
//! data area is read as the disk itself; dynamic and differencing VHDs (which also keep a copy of
//! the footer at byte 0) allocate blocks through tables and are refused, as are VHDX, qcow2 and
//! sparse VMDK.

use super::ImageError;
use super::read_at::Fields;

pub const COOKIE: &[u8; 8] = b"conectix";
pub const FOOTER_BYTES: u64 = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskType {
    Fixed,
    Dynamic,
    Differencing,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VhdFooter {
    pub disk_type: DiskType,
    /// The virtual disk's size in bytes.
    pub current_size: u64,
    pub original_size: u64,
    pub data_offset: u64,
}

/// Whether `footer` starts with the VHD cookie.
pub fn is_vhd_footer(footer: &[u8]) -> bool {
    Fields::new(footer, 0).has(0, COOKIE)
}

/// The name of a container format whose header is at byte 0, if `first` starts with one this
/// collector refuses (the VHD footer copy of a dynamic disk is checked by [`parse_footer`]).
pub fn unsupported_container(first: &[u8]) -> Option<&'static str> {
    let f = Fields::new(first, 0);
    if f.has(0, b"QFI\xfb") {
        Some("qcow2")
    } else if f.has(0, b"vhdxfile") {
        Some("VHDX")
    } else if f.has(0, b"KDMV") {
        Some("sparse VMDK")
    } else if f.has(0x40, b"<<< Oracle VM VirtualBox Disk Image >>>") {
        Some("VirtualBox VDI")
    } else {
        None
    }
}

pub fn parse_footer(footer: &[u8], base: u64) -> Result<VhdFooter, ImageError> {
    let f = Fields::new(footer, base);
    let cookie = f.get(0, 8, "VHD footer cookie")?;
    if cookie != COOKIE {
        return Err(ImageError::invalid(
            "VHD footer cookie",
            base,
            format!("{cookie:02x?}, not \"conectix\""),
        ));
    }
    let all = f.get(0, FOOTER_BYTES as usize, "VHD footer")?;
    let stored = f.be_u32(64, "VHD footer checksum")?;
    let sum = all.iter().enumerate().filter(|(i, _)| !(64..68).contains(i)).map(|(_, &b)| u32::from(b));
    let computed = !sum.fold(0u32, u32::wrapping_add);
    if stored != computed {
        return Err(ImageError::BadChecksum {
            what: "VHD footer checksum",
            offset: f.abs(64),
            stored,
            computed,
        });
    }
    let version = f.be_u32(12, "VHD footer file format version")?;
    if version >> 16 != 1 {
        return Err(ImageError::invalid(
            "VHD footer file format version",
            f.abs(12),
            format!("{version:#010x}, not 1.x"),
        ));
    }
    let raw_type = f.be_u32(60, "VHD footer disk type")?;
    let disk_type = match raw_type {
        2 => DiskType::Fixed,
        3 => DiskType::Dynamic,
        4 => DiskType::Differencing,
        t => {
            return Err(ImageError::invalid(
                "VHD footer disk type",
                f.abs(60),
                format!("{t}, not 2 (fixed), 3 (dynamic) or 4 (differencing)"),
            ));
        }
    };
    Ok(VhdFooter {
        disk_type,
        data_offset: f.be_u64(16, "VHD footer data offset")?,
        original_size: f.be_u64(40, "VHD footer original size")?,
        current_size: f.be_u64(48, "VHD footer current size")?,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn footer(disk_type: u32, size: u64) -> Vec<u8> {
        let mut s = vec![0u8; 512];
        s[..8].copy_from_slice(COOKIE);
        s[8..12].copy_from_slice(&2u32.to_be_bytes());
        s[12..16].copy_from_slice(&0x0001_0000u32.to_be_bytes());
        s[16..24].copy_from_slice(&u64::MAX.to_be_bytes());
        s[40..48].copy_from_slice(&size.to_be_bytes());
        s[48..56].copy_from_slice(&size.to_be_bytes());
        s[60..64].copy_from_slice(&disk_type.to_be_bytes());
        fix_checksum(&mut s);
        s
    }

    pub(crate) fn fix_checksum(s: &mut [u8]) {
        s[64..68].fill(0);
        let sum: u32 = s.iter().map(|&b| u32::from(b)).fold(0, u32::wrapping_add);
        s[64..68].copy_from_slice(&(!sum).to_be_bytes());
    }

    #[test]
    fn reads_fixed_and_names_the_others() {
        let f = parse_footer(&footer(2, 1 << 20), 0).unwrap();
        assert_eq!((f.disk_type, f.current_size), (DiskType::Fixed, 1 << 20));
        assert_eq!(parse_footer(&footer(3, 1), 0).unwrap().disk_type, DiskType::Dynamic);
        assert_eq!(parse_footer(&footer(4, 1), 0).unwrap().disk_type, DiskType::Differencing);
        assert!(parse_footer(&footer(5, 1), 0).unwrap_err().to_string().contains("disk type"));
        assert_eq!(unsupported_container(b"QFI\xfb\0\0\0\x03"), Some("qcow2"));
        assert_eq!(unsupported_container(b"vhdxfile"), Some("VHDX"));
        assert_eq!(unsupported_container(b"QFI"), None);
    }

    #[test]
    fn bad_checksum_and_truncation_are_errors() {
        let mut s = footer(2, 1 << 20);
        s[50] ^= 1;
        assert!(matches!(parse_footer(&s, 1000), Err(ImageError::BadChecksum { offset: 1064, .. })));
        let s = footer(2, 1 << 20);
        for len in 0..512 {
            assert!(parse_footer(&s[..len], 0).is_err(), "len {len}");
        }
        let mut s = footer(2, 1);
        s[12] = 2;
        fix_checksum(&mut s);
        assert!(parse_footer(&s, 0).is_err());
    }
}
