//! The GUID Partition Table: header at LBA 1, entry array, both CRC-32 checked.
//!
//! Layout from the UEFI specification 2.10, section 5.3 "GUID Partition Table (GPT) Disk
//! Layout" (all fields little-endian): the header starts with the signature `EFI PART`, then
//! revision (8), header size (12), header CRC-32 (16, computed with this field zeroed over
//! `header size` bytes), my LBA (24), alternate LBA (32), first and last usable LBA (40, 48),
//! disk GUID (56), partition entry array LBA (72), number of entries (80), size of one entry (84,
//! `128 × 2^n`) and the entry array's CRC-32 (88). Each entry holds the partition type GUID (0),
//! unique GUID (16), first and last LBA, inclusive (32, 40), attributes (48) and a UTF-16LE
//! name (56). GUIDs are stored with their first three fields little-endian.
//!
//! A damaged primary header or array is reported as an error rather than silently replaced by
//! the backup copy: spindle reports what is on the disk, and a disk whose primary GPT is bad
//! needs attention anyway.

use std::fmt;

use super::ImageError;
use super::crc32::crc32;
use super::read_at::Fields;

/// The header signature, at byte 0 of LBA 1.
pub const SIGNATURE: &[u8; 8] = b"EFI PART";
/// The largest entry array read (count × entry size). The specification asks for at least
/// 16,384 bytes (128 entries of 128 bytes); real disks use exactly that.
pub const MAX_ENTRY_ARRAY_BYTES: u64 = 1 << 20;
const HEADER_MIN_BYTES: u32 = 92;

/// A GUID as stored on disk (mixed endian), printed in the usual lowercase form.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Guid(pub [u8; 16]);

impl Guid {
    /// The GUID `d1-d2-d3-d4[0..2]-d4[2..8]`, laid out as on disk.
    pub const fn new(d1: u32, d2: u16, d3: u16, d4: [u8; 8]) -> Guid {
        let a = d1.to_le_bytes();
        let b = d2.to_le_bytes();
        let c = d3.to_le_bytes();
        Guid([
            a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], d4[0], d4[1], d4[2], d4[3], d4[4], d4[5], d4[6],
            d4[7],
        ])
    }
    pub fn is_zero(&self) -> bool {
        self.0 == [0; 16]
    }
}

impl fmt::Display for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = &self.0;
        write!(
            f,
            "{:08x}-{:04x}-{:04x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
            u32::from_le_bytes([g[0], g[1], g[2], g[3]]),
            u16::from_le_bytes([g[4], g[5]]),
            u16::from_le_bytes([g[6], g[7]]),
            g[8],
            g[9],
            g[10],
            g[11],
            g[12],
            g[13],
            g[14],
            g[15]
        )
    }
}

impl fmt::Debug for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Microsoft Reserved partition (MSR), `e3c9e316-0b5c-4db8-817d-f92df00215ae`: space Windows
/// keeps for its own use; it never holds a filesystem.
pub const MICROSOFT_RESERVED: Guid =
    Guid::new(0xE3C9_E316, 0x0B5C, 0x4DB8, [0x81, 0x7D, 0xF9, 0x2D, 0xF0, 0x02, 0x15, 0xAE]);
/// Microsoft basic data, `ebd0a0a2-b9e5-4433-87c0-68b6b72699c7`.
pub const BASIC_DATA: Guid =
    Guid::new(0xEBD0_A0A2, 0xB9E5, 0x4433, [0x87, 0xC0, 0x68, 0xB6, 0xB7, 0x26, 0x99, 0xC7]);
/// EFI system partition, `c12a7328-f81f-11d2-ba4b-00a0c93ec93b`.
pub const EFI_SYSTEM: Guid =
    Guid::new(0xC12A_7328, 0xF81F, 0x11D2, [0xBA, 0x4B, 0x00, 0xA0, 0xC9, 0x3E, 0xC9, 0x3B]);
/// Linux filesystem data, `0fc63daf-8483-4772-8e79-3d69d8477de4`.
pub const LINUX_DATA: Guid =
    Guid::new(0x0FC6_3DAF, 0x8483, 0x4772, [0x8E, 0x79, 0x3D, 0x69, 0xD8, 0x47, 0x7D, 0xE4]);

/// The fields of a GPT header this collector uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GptHeader {
    pub revision: u32,
    pub header_bytes: u32,
    pub my_lba: u64,
    pub alternate_lba: u64,
    pub first_usable_lba: u64,
    pub last_usable_lba: u64,
    pub disk_guid: Guid,
    pub entries_lba: u64,
    pub entry_count: u32,
    pub entry_bytes: u32,
    pub entries_crc32: u32,
}

impl GptHeader {
    /// Size of the entry array, refused above [`MAX_ENTRY_ARRAY_BYTES`].
    pub fn entry_array_bytes(&self, header_offset: u64) -> Result<u64, ImageError> {
        let len = u64::from(self.entry_count) * u64::from(self.entry_bytes); // u32 × u32 fits u64
        if len > MAX_ENTRY_ARRAY_BYTES {
            return Err(ImageError::TooLarge {
                what: "GPT partition entry array",
                offset: header_offset + 80,
                len,
                limit: MAX_ENTRY_ARRAY_BYTES,
            });
        }
        Ok(len)
    }
}

/// One used entry of the array (type GUID not zero).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GptEntry {
    /// 1-based position in the array (Linux numbers GPT partitions this way).
    pub number: u32,
    pub type_guid: Guid,
    pub unique_guid: Guid,
    pub first_lba: u64,
    /// Inclusive.
    pub last_lba: u64,
    pub attributes: u64,
    pub name: String,
}

impl GptEntry {
    pub fn sectors(&self) -> u64 {
        // parse_entries guarantees last >= first, and last - first < u64::MAX.
        self.last_lba - self.first_lba + 1
    }
}

/// Whether the sector holds a GPT header signature.
pub fn has_signature(sector: &[u8]) -> bool {
    Fields::new(sector, 0).has(0, SIGNATURE)
}

/// Parses and CRC-checks the header in `sector` (the whole logical sector holding it; `base` is
/// its absolute offset and `sector_bytes` the logical sector size).
pub fn parse_header(sector: &[u8], base: u64, sector_bytes: u64) -> Result<GptHeader, ImageError> {
    let f = Fields::new(sector, base);
    let sig = f.get(0, 8, "GPT header signature")?;
    if sig != SIGNATURE {
        return Err(ImageError::invalid(
            "GPT header signature",
            base,
            format!("{sig:02x?}, not \"EFI PART\""),
        ));
    }
    let revision = f.le_u32(8, "GPT header revision")?;
    let header_bytes = f.le_u32(12, "GPT header size")?;
    if header_bytes < HEADER_MIN_BYTES || u64::from(header_bytes) > sector_bytes {
        return Err(ImageError::invalid(
            "GPT header size",
            f.abs(12),
            format!(
                "{header_bytes} bytes, not between {HEADER_MIN_BYTES} and the sector size {sector_bytes}"
            ),
        ));
    }
    let stored = f.le_u32(16, "GPT header CRC-32")?;
    let covered = f.get(0, header_bytes as usize, "GPT header")?;
    let computed = crc32(&[&covered[..16], &[0; 4], &covered[20..]]);
    if stored != computed {
        return Err(ImageError::BadChecksum {
            what: "GPT header CRC-32",
            offset: f.abs(16),
            stored,
            computed,
        });
    }
    let my_lba = f.le_u64(24, "GPT header my LBA")?;
    if my_lba.checked_mul(sector_bytes) != Some(base) {
        return Err(ImageError::invalid(
            "GPT header my LBA",
            f.abs(24),
            format!("says LBA {my_lba}, but the header was read at LBA {}", base / sector_bytes.max(1)),
        ));
    }
    let h = GptHeader {
        revision,
        header_bytes,
        my_lba,
        alternate_lba: f.le_u64(32, "GPT header alternate LBA")?,
        first_usable_lba: f.le_u64(40, "GPT header first usable LBA")?,
        last_usable_lba: f.le_u64(48, "GPT header last usable LBA")?,
        disk_guid: Guid(f.get(56, 16, "GPT header disk GUID")?.try_into().unwrap_or_default()),
        entries_lba: f.le_u64(72, "GPT header partition entry LBA")?,
        entry_count: f.le_u32(80, "GPT header number of partition entries")?,
        entry_bytes: f.le_u32(84, "GPT header size of partition entry")?,
        entries_crc32: f.le_u32(88, "GPT header partition entry array CRC-32")?,
    };
    if h.entry_bytes < 128 || !h.entry_bytes.is_power_of_two() {
        return Err(ImageError::invalid(
            "GPT header size of partition entry",
            f.abs(84),
            format!("{} bytes, not 128 × 2^n", h.entry_bytes),
        ));
    }
    h.entry_array_bytes(base)?;
    Ok(h)
}

/// Checks the entry array's CRC-32 and returns the used entries. `array` must be exactly
/// `entry_count × entry_bytes` long; `base` is its absolute offset.
pub fn parse_entries(array: &[u8], base: u64, h: &GptHeader) -> Result<Vec<GptEntry>, ImageError> {
    let len = h.entry_array_bytes(base)? as usize;
    let f = Fields::new(array, base);
    let bytes = f.get(0, len, "GPT partition entry array")?;
    let computed = crc32(&[bytes]);
    if computed != h.entries_crc32 {
        return Err(ImageError::BadChecksum {
            what: "GPT partition entry array CRC-32",
            offset: base,
            stored: h.entries_crc32,
            computed,
        });
    }
    let mut out = Vec::new();
    for i in 0..h.entry_count {
        let at = i as usize * h.entry_bytes as usize; // < len, which is at most 1 MiB
        let type_guid = Guid(f.get(at, 16, "GPT entry type GUID")?.try_into().unwrap_or_default());
        if type_guid.is_zero() {
            continue;
        }
        let first_lba = f.le_u64(at + 32, "GPT entry first LBA")?;
        let last_lba = f.le_u64(at + 40, "GPT entry last LBA")?;
        if last_lba < first_lba || last_lba == u64::MAX {
            return Err(ImageError::invalid(
                "GPT entry last LBA",
                f.abs(at + 40),
                format!("{last_lba} is before the first LBA {first_lba} (or the largest LBA)"),
            ));
        }
        let name_units: Vec<u16> = f
            .get(at + 56, 72, "GPT entry name")?
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .take_while(|&u| u != 0)
            .collect();
        out.push(GptEntry {
            number: i + 1,
            type_guid,
            unique_guid: Guid(f.get(at + 16, 16, "GPT entry unique GUID")?.try_into().unwrap_or_default()),
            first_lba,
            last_lba,
            attributes: f.le_u64(at + 48, "GPT entry attributes")?,
            name: String::from_utf16_lossy(&name_units),
        });
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A GPT header for `sector_bytes` sectors with valid CRCs over `entries`.
    pub(crate) fn header(sector_bytes: usize, count: u32, entry_bytes: u32, entries: &[u8]) -> Vec<u8> {
        let mut s = vec![0u8; sector_bytes];
        s[..8].copy_from_slice(SIGNATURE);
        s[8..12].copy_from_slice(&0x0001_0000u32.to_le_bytes());
        s[12..16].copy_from_slice(&92u32.to_le_bytes());
        s[24..32].copy_from_slice(&1u64.to_le_bytes());
        s[72..80].copy_from_slice(&2u64.to_le_bytes());
        s[80..84].copy_from_slice(&count.to_le_bytes());
        s[84..88].copy_from_slice(&entry_bytes.to_le_bytes());
        s[88..92].copy_from_slice(&crc32(&[entries]).to_le_bytes());
        fix_crc(&mut s);
        s
    }

    pub(crate) fn fix_crc(s: &mut [u8]) {
        s[16..20].fill(0);
        let c = crc32(&[&s[..92]]);
        s[16..20].copy_from_slice(&c.to_le_bytes());
    }

    pub(crate) fn entry(type_guid: Guid, first: u64, last: u64) -> Vec<u8> {
        let mut e = vec![0u8; 128];
        e[..16].copy_from_slice(&type_guid.0);
        e[16] = 1;
        e[32..40].copy_from_slice(&first.to_le_bytes());
        e[40..48].copy_from_slice(&last.to_le_bytes());
        for (i, u) in "data".encode_utf16().enumerate() {
            e[56 + 2 * i..58 + 2 * i].copy_from_slice(&u.to_le_bytes());
        }
        e
    }

    fn array() -> Vec<u8> {
        let mut a = entry(MICROSOFT_RESERVED, 34, 32_767);
        a.extend(entry(BASIC_DATA, 32_768, 65_535));
        a.resize(128 * 128, 0);
        a
    }

    #[test]
    fn guid_prints_as_windows_does() {
        assert_eq!(MICROSOFT_RESERVED.to_string(), "e3c9e316-0b5c-4db8-817d-f92df00215ae");
        assert_eq!(BASIC_DATA.to_string(), "ebd0a0a2-b9e5-4433-87c0-68b6b72699c7");
    }

    #[test]
    fn reads_header_and_entries() {
        let a = array();
        let h = parse_header(&header(512, 128, 128, &a), 512, 512).unwrap();
        let e = parse_entries(&a, 1024, &h).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].number, e[0].type_guid), (1, MICROSOFT_RESERVED));
        assert_eq!((e[1].first_lba, e[1].sectors(), e[1].name.as_str()), (32_768, 32_768, "data"));
    }

    #[test]
    fn truncation_at_every_length_is_an_error() {
        let a = array();
        let s = header(512, 128, 128, &a);
        for len in 0..92 {
            assert!(parse_header(&s[..len], 512, 512).is_err(), "len {len}");
        }
        let h = parse_header(&s, 512, 512).unwrap();
        for len in [0, 1, 127, 128, 16_383] {
            assert!(parse_entries(&a[..len], 1024, &h).is_err(), "len {len}");
        }
    }

    #[test]
    fn bad_crcs_are_reported_with_their_offset() {
        let mut a = array();
        let mut s = header(512, 128, 128, &a);
        s[40] ^= 1;
        match parse_header(&s, 512, 512) {
            Err(ImageError::BadChecksum { offset: 528, .. }) => {}
            other => panic!("{other:?}"),
        }
        let h = parse_header(&header(512, 128, 128, &a), 512, 512).unwrap();
        a[33] ^= 1;
        assert!(matches!(parse_entries(&a, 1024, &h), Err(ImageError::BadChecksum { offset: 1024, .. })));
    }

    #[test]
    fn absurd_counts_and_sizes_are_refused() {
        let a = array();
        // Count × size far beyond the cap (u32::MAX × 2^31 would overflow a u32 product).
        let s = header(512, u32::MAX, 1 << 31, &a);
        assert!(matches!(parse_header(&s, 512, 512), Err(ImageError::TooLarge { .. })));
        for bad in [0u32, 64, 129, 200, 384] {
            let s = header(512, 128, bad, &a);
            assert!(parse_header(&s, 512, 512).unwrap_err().to_string().contains("128 × 2^n"), "{bad}");
        }
        let mut s = header(512, 128, 128, &a);
        s[12..16].copy_from_slice(&600u32.to_le_bytes());
        fix_crc(&mut s);
        assert!(parse_header(&s, 512, 512).unwrap_err().to_string().contains("header size"));
        // Read at the wrong LBA.
        let s = header(512, 128, 128, &a);
        assert!(parse_header(&s, 8192, 4096).unwrap_err().to_string().contains("my LBA"));
    }

    #[test]
    fn backwards_entries_are_refused() {
        let mut a = entry(BASIC_DATA, 100, 99);
        a.resize(128 * 4, 0);
        let h = parse_header(&header(512, 4, 128, &a), 512, 512).unwrap();
        assert!(parse_entries(&a, 1024, &h).unwrap_err().to_string().contains("last LBA"));
        let mut a = entry(BASIC_DATA, 0, u64::MAX);
        a.resize(128 * 4, 0);
        let h = parse_header(&header(512, 4, 128, &a), 512, 512).unwrap();
        assert!(parse_entries(&a, 1024, &h).is_err());
    }
}
