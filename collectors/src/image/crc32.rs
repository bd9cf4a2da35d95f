//! CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of GPT headers and entry
//! arrays (UEFI specification 2.10, section 5.3.2). `crc32fast` computes it (table-driven, with
//! SIMD where the CPU has it, and already in the tree through flate2).

/// CRC-32 of `parts` concatenated (so a header can be checksummed with its CRC field zeroed
/// without copying it).
pub fn crc32(parts: &[&[u8]]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    for p in parts {
        h.update(p);
    }
    h.finalize()
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
