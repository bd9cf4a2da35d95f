//! CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of GPT headers and entry
//! arrays (UEFI specification 2.10, section 5.3.2). Written out here to keep the crate free of
//! dependencies; the table is built at compile time.

const TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// CRC-32 of `parts` concatenated (so a header can be checksummed with its CRC field zeroed
/// without copying it).
pub fn crc32(parts: &[&[u8]]) -> u32 {
    let mut c = !0u32;
    for p in parts {
        for &b in *p {
            c = TABLE[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8);
        }
    }
    !c
}

#[cfg(test)]
mod tests {
    #[test]
    fn matches_the_standard_check_value() {
        assert_eq!(super::crc32(&[b"123456789"]), 0xCBF4_3926);
        assert_eq!(super::crc32(&[b"1234", b"56789"]), 0xCBF4_3926);
        assert_eq!(super::crc32(&[]), 0);
    }
}
