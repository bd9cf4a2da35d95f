//! Calendar dates for waiver expiry. The core stays pure: the caller passes today's date.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    pub year: i32,
    pub month: u8,
    pub day: u8,
}

impl Date {
    /// Parses `YYYY-MM-DD`, checking the day exists in that month.
    pub fn parse(s: &str) -> Option<Date> {
        let b = s.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let year: i32 = s[0..4].parse().ok()?;
        let month: u8 = s[5..7].parse().ok()?;
        let day: u8 = s[8..10].parse().ok()?;
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        let days = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return None,
        };
        (1..=days).contains(&day).then_some(Date { year, month, day })
    }

    /// The civil date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
    pub fn from_days_since_epoch(days: i64) -> Date {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
        Date { year, month, day }
    }

    /// Days since 1970-01-01 (the inverse of [`Date::from_days_since_epoch`]): for "expires in
    /// N days".
    pub fn days_since_epoch(self) -> i64 {
        let year = i64::from(self.year) - i64::from(self.month <= 2);
        let era = year.div_euclid(400);
        let yoe = year.rem_euclid(400);
        let m = i64::from(self.month);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` (RFC 3339, UTC) for a count of seconds since 1970-01-01 UTC. The
/// caller reads the clock; the core only formats.
pub fn rfc3339_utc(secs_since_epoch: u64) -> String {
    let days = i64::try_from(secs_since_epoch / 86_400).unwrap_or(i64::MAX / 2);
    let s = secs_since_epoch % 86_400;
    format!("{}T{:02}:{:02}:{:02}Z", Date::from_days_since_epoch(days), s / 3600, s / 60 % 60, s % 60)
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

#[cfg(test)]
mod tests {
    use super::{Date, rfc3339_utc};

    #[test]
    fn rfc3339() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(1_413_873_612), "2014-10-21T06:40:12Z");
    }

    #[test]
    fn parses_and_rejects() {
        assert_eq!(Date::parse("2026-02-28").unwrap().to_string(), "2026-02-28");
        assert!(Date::parse("2026-02-29").is_none());
        assert!(Date::parse("2024-02-29").is_some());
        assert!(Date::parse("2026-13-01").is_none());
        assert!(Date::parse("26-1-1").is_none());
    }

    #[test]
    fn epoch_days() {
        assert_eq!(Date::from_days_since_epoch(0).to_string(), "1970-01-01");
        assert_eq!(Date::from_days_since_epoch(20_787).to_string(), "2026-11-30");
        assert_eq!(Date::from_days_since_epoch(11_016).to_string(), "2000-02-29");
        for days in [-800_000, -1, 0, 59, 11_016, 20_787, 2_932_896] {
            assert_eq!(Date::from_days_since_epoch(days).days_since_epoch(), days);
        }
    }
}
