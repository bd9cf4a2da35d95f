//! Byte and duration formatting for messages: exact bytes first, then the binary unit people
//! read (`32,256 B (31.5 KiB)`), so a 31.5 KiB offset never hides behind a rounded "32 KB".

/// `65,536 B (64 KiB)`; `512 B`.
pub fn bytes(n: u64) -> String {
    let exact = format!("{} B", thousands(n));
    if n < 1024 { exact } else { format!("{exact} ({})", binary(n)) }
}

/// The largest binary unit that keeps the value at least 1: `64 KiB`, `31.5 KiB`, `1.5 GiB`.
pub fn binary(n: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    let s = if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}").trim_end_matches('0').to_string()
    };
    format!("{s} {}", UNITS[u])
}

/// `32,256`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Milliseconds with at most one decimal: `149.4 ms`, `3 ms`, `0.1 ms`.
pub fn ms(v: f64) -> String {
    let s = format!("{v:.1}");
    format!("{} ms", s.strip_suffix(".0").unwrap_or(&s))
}

/// A share as a percentage with at most one decimal: `12.5 %`.
pub fn percent(share: f64) -> String {
    let s = format!("{:.1}", share * 100.0);
    format!("{} %", s.strip_suffix(".0").unwrap_or(&s))
}

/// Whether `part` is at least `percent` % of `whole`, exact to 1/100 of a percent for any
/// size (no floating point on the byte counts: 20 % of a 64 TiB volume is still exact).
pub fn at_least_percent(part: u64, whole: u64, percent: f64) -> bool {
    let min_hundredths = (percent * 100.0).round() as u128;
    (part as u128) * 10_000 >= min_hundredths * whole as u128
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(bytes(32_256), "32,256 B (31.5 KiB)");
        assert_eq!(bytes(65_536), "65,536 B (64 KiB)");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(binary(1_048_576), "1 MiB");
        assert_eq!(binary(1_610_612_736), "1.5 GiB");
        assert_eq!(ms(149.4), "149.4 ms");
        assert_eq!(ms(3.0), "3 ms");
        assert_eq!(percent(0.125), "12.5 %");
    }

    #[test]
    fn percent_thresholds_are_exact() {
        assert!(at_least_percent(200, 1000, 20.0));
        assert!(!at_least_percent(199, 1000, 20.0));
        assert!(at_least_percent(0, 1000, 0.0));
        assert!(at_least_percent(125, 1000, 12.5));
        assert!(!at_least_percent(124, 1000, 12.5));
        // 1 PiB, 20 % to the byte, then one byte short.
        let size: u64 = 1 << 50;
        let free = size / 5 + 1;
        assert!(at_least_percent(free, size, 20.0));
        assert!(!at_least_percent(free - 1, size, 20.0));
    }
}
