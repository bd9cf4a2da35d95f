//! How often an I/O straddles two stripe units on a partition that starts at `offset_bytes`.

/// The share (0 to 1) of `io_bytes`-sized I/Os, issued at multiples of `io_bytes` within the
/// partition, that cross a stripe-unit boundary of the underlying disk.
///
/// With an 8 KiB I/O and a 64 KiB stripe unit on a sector-63 partition, one in eight page I/Os
/// is split (12.5 %); every 64 KiB extent I/O is.
pub fn straddle_share(offset_bytes: u64, io_bytes: u64, stripe_unit_bytes: u64) -> f64 {
    if io_bytes == 0 || stripe_unit_bytes == 0 {
        return 0.0;
    }
    if io_bytes > stripe_unit_bytes {
        return 1.0;
    }
    // Start positions modulo the stripe unit repeat every stripe_unit / gcd(io, stripe_unit) I/Os.
    let period = stripe_unit_bytes / gcd(io_bytes, stripe_unit_bytes);
    let samples = period.min(1 << 20);
    let base = offset_bytes % stripe_unit_bytes;
    let split = (0..samples)
        .filter(|k| {
            let start = (base + (k % period) * (io_bytes % stripe_unit_bytes)) % stripe_unit_bytes;
            start + io_bytes > stripe_unit_bytes
        })
        .count();
    split as f64 / samples as f64
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::straddle_share;

    #[test]
    fn sector_63_on_64k_stripe() {
        assert_eq!(straddle_share(32_256, 8192, 65_536), 0.125);
        assert_eq!(straddle_share(32_256, 65_536, 65_536), 1.0);
    }

    #[test]
    fn aligned_never_straddles() {
        assert_eq!(straddle_share(1_048_576, 8192, 65_536), 0.0);
        assert_eq!(straddle_share(1_048_576, 65_536, 65_536), 0.0);
        assert_eq!(straddle_share(2_097_152, 65_536, 262_144), 0.0);
    }

    #[test]
    fn larger_io_than_stripe_always_straddles() {
        assert_eq!(straddle_share(0, 131_072, 65_536), 1.0);
    }
}
