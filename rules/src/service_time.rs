//! How long one I/O takes a hard disk: seek + rotational latency + transfer, from published
//! enterprise drive figures (10,000 rpm: 4.6 + 3 + 0.1 = 7.7 ms; 15,000 rpm: 3.3 + 2 + 0.1 =
//! 5.4 ms). LAT003 judges averages against these floors, MED001 prices a seek with them, and the
//! expected gain of moving a log to spindles of its own is computed from them.

/// Transfer time of one 8 KiB I/O on an enterprise hard disk.
pub(crate) const TRANSFER_MS: f64 = 0.1;

/// Average seek assumed for a drive of a speed with no published figure (LAT003's
/// `other_seek_ms` default: a typical datasheet figure for 7,200 rpm 3.5-inch drives).
pub(crate) const ASSUMED_SEEK_MS: f64 = 8.5;

/// Average rotational latency: half a revolution, 60,000 / rpm / 2 ms.
pub(crate) fn half_revolution_ms(rpm: u32) -> f64 {
    30_000.0 / f64::from(rpm)
}

/// The published average seek of enterprise drives of this speed, when there is one.
pub(crate) fn published_seek_ms(rpm: u32) -> Option<f64> {
    match rpm {
        10_000 => Some(4.6),
        15_000 => Some(3.3),
        _ => None,
    }
}

/// One random I/O on a drive of this speed, when its seek is published.
pub(crate) fn published_random_io_ms(rpm: u32) -> Option<f64> {
    published_seek_ms(rpm).map(|seek| seek + half_revolution_ms(rpm) + TRANSFER_MS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_figures_add_up() {
        // Published rotational latencies: 3 ms at 10K, 2 ms at 15K.
        assert_eq!(half_revolution_ms(10_000), 3.0);
        assert_eq!(half_revolution_ms(15_000), 2.0);
        assert!((half_revolution_ms(7_200) - 4.1667).abs() < 1e-3);
        assert!((published_random_io_ms(10_000).unwrap() - 7.7).abs() < 1e-9);
        assert!((published_random_io_ms(15_000).unwrap() - 5.4).abs() < 1e-9);
        assert_eq!(published_random_io_ms(7_200), None);
    }
}
