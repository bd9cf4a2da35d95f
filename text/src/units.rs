//! Byte and duration formatting for messages: exact bytes first, then the binary unit people
//! read (`32,256 B (31.5 KiB)`), so a 31.5 KiB offset never hides behind a rounded "32 KB".

/// `1 rule`, `2 rules`, `0 rules`: a count and its noun, with an `s` unless the count is one.
pub fn plural(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// A duration for people: `850 ms`, `42 s`, `15 min`, `2.5 h`, `3.2 days` (as messages write
/// an I/O counters' window).
pub fn duration(ms: u64) -> String {
    const S: u64 = 1000;
    const MIN: u64 = 60 * S;
    const H: u64 = 60 * MIN;
    let one_decimal = |v: f64, unit: &str| {
        let s = fixed(v, 1);
        format!("{} {unit}", s.strip_suffix(".0").unwrap_or(&s))
    };
    match ms {
        ms if ms < S => format!("{ms} ms"),
        ms if ms < MIN => one_decimal(ms as f64 / S as f64, "s"),
        ms if ms < H => one_decimal(ms as f64 / MIN as f64, "min"),
        ms if ms < 48 * H => one_decimal(ms as f64 / H as f64, "h"),
        ms => one_decimal(ms as f64 / (24 * H) as f64, "days"),
    }
}

/// `65,536 B (64 KiB)`; `512 B`.
pub fn bytes(n: u64) -> String {
    // Built in place: rules write a few of these into most messages.
    let mut out = String::with_capacity(40);
    push_thousands(&mut out, n);
    out.push_str(" B");
    if n >= 1024 {
        out.push_str(" (");
        push_binary(&mut out, n);
        out.push(')');
    }
    out
}

/// The largest binary unit that keeps the value at least 1: `64 KiB`, `31.5 KiB`, `1.5 GiB`.
pub fn binary(n: u64) -> String {
    let mut out = String::with_capacity(16);
    push_binary(&mut out, n);
    out
}

fn push_binary(out: &mut String, n: u64) {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if v.fract() == 0.0 {
        out.push_str(&fixed(v, 0));
    } else {
        // 1,025 B is 1.0009… KiB: "1.00" trims to "1", not "1.".
        out.push_str(fixed(v, 2).trim_end_matches('0').trim_end_matches('.'));
    }
    out.push(' ');
    out.push_str(UNITS[u]);
}

/// `32,256`.
pub fn thousands(n: u64) -> String {
    let mut out = String::with_capacity(26);
    push_thousands(&mut out, n);
    out
}

fn push_thousands(out: &mut String, n: u64) {
    let mut buf = [0u8; 20];
    let digits = decimal(n, &mut buf);
    for (k, &d) in digits.iter().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(char::from(d));
    }
}

/// The decimal digits of `n`, written at the end of `buf` (a `u64` has at most 20).
pub fn decimal(n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    let mut m = n;
    loop {
        i -= 1;
        buf[i] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    &buf[i..]
}

/// Milliseconds with at most one decimal: `149.4 ms`, `3 ms`, `0.1 ms`.
pub fn ms(v: f64) -> String {
    let s = fixed(v, 1);
    format!("{} ms", s.strip_suffix(".0").unwrap_or(&s))
}

/// A share as a percentage with at most one decimal: `12.5 %`.
pub fn percent(share: f64) -> String {
    let s = fixed(share * 100.0, 1);
    format!("{} %", s.strip_suffix(".0").unwrap_or(&s))
}

/// `v` with `decimals` digits after the point: what `format!("{v:.decimals$}")` writes (the
/// exact binary value, rounded half to even), without the general float formatter, which costs
/// about a thousand instructions a number; reports write a few hundred numbers per host.
pub fn fixed(v: f64, decimals: usize) -> String {
    const POW10: [u128; 4] = [1, 10, 100, 1000];
    let bits = v.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    // Beyond 2^64, or infinite or NaN, or more decimals than the table: the general formatter.
    if decimals >= POW10.len() || exponent == 0x7ff || v.abs() >= 18_446_744_073_709_551_616.0 {
        return format!("{v:.decimals$}");
    }
    // v = ±mantissa × 2^shift, exactly.
    let fraction = u128::from(bits & ((1 << 52) - 1));
    let (mantissa, shift) =
        if exponent == 0 { (fraction, -1074) } else { (fraction | 1 << 52, exponent - 1075) };
    let scaled = mantissa * POW10[decimals];
    // v × 10^decimals, rounded half to even.
    let units = if shift >= 0 {
        scaled << shift
    } else if -shift >= 120 {
        0
    } else {
        let down = -shift as u32;
        let (q, r) = (scaled >> down, scaled & ((1u128 << down) - 1));
        let half = 1u128 << (down - 1);
        if r > half || (r == half && q & 1 == 1) { q + 1 } else { q }
    };
    let digits = units.to_string();
    let mut out = String::with_capacity(digits.len() + 3);
    if v.is_sign_negative() {
        out.push('-');
    }
    if decimals == 0 {
        out.push_str(&digits);
        return out;
    }
    // At least one digit before the point: 5 hundredths are `0.05`.
    let zeros = (decimals + 1).saturating_sub(digits.len());
    if zeros > 0 {
        out.push_str("0.");
        for _ in 1..zeros {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let (int, frac) = digits.split_at(digits.len() - decimals);
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    }
    out
}

/// Whether `part` is at least `percent` % of `whole`, exact to 1/100 of a percent for any
/// size (no floating point on the byte counts: 20 % of a 64 TiB volume is still exact).
pub fn at_least_percent(part: u64, whole: u64, percent: f64) -> bool {
    let min_hundredths = (percent * 100.0).round() as u128;
    (part as u128) * 10_000 >= min_hundredths * whole as u128
}

#[cfg(test)]
mod tests {
    #[test]
    fn fixed_writes_what_format_writes() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            -2.5,
            0.125,
            0.375,
            0.05,
            0.15,
            0.25,
            0.35,
            1e-300,
            5e-324,
            9.995,
            99.95,
            1023.999,
            18_446_744_073_709_551_615.0,
            1e20,
            f64::MAX,
            f64::INFINITY,
            f64::NAN,
            -1e-7,
        ];
        for _ in 0..20_000 {
            let n = next();
            // Halves, quarters and eighths (the ties), small decimals, ratios of integers, raw bits.
            values.push((n % 100_000) as f64 / [2.0, 4.0, 8.0, 1000.0, 1024.0][(n >> 40) as usize % 5]);
            values.push((n % 1_000_000) as f64 / ((n >> 32) % 1000 + 1) as f64);
            values.push(f64::from_bits(n));
        }
        for v in values {
            for d in 0..=4 {
                assert_eq!(super::fixed(v, d), format!("{v:.d$}"), "{v:e} to {d} decimals");
            }
        }
    }

    use super::*;

    #[test]
    fn formats() {
        assert_eq!(bytes(32_256), "32,256 B (31.5 KiB)");
        assert_eq!(bytes(65_536), "65,536 B (64 KiB)");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(binary(1_048_576), "1 MiB");
        assert_eq!(binary(1025), "1 KiB");
        assert_eq!(bytes(1025), "1,025 B (1 KiB)");
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
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
