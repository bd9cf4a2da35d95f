//! Reading small sysfs/procfs text files. Every reader returns the reason it failed as text, so
//! the caller can record the fact as not collected in the collector's own words.

use std::fs;
use std::path::Path;

/// A file's contents with surrounding whitespace (the trailing newline sysfs adds) removed.
pub(crate) fn text(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map(|s| s.trim().to_string()).map_err(|e| format!("{}: {e}", path.display()))
}

/// A file's contents, or `None` when it does not exist; other errors are reported.
pub(crate) fn optional_text(path: &Path) -> Result<Option<String>, String> {
    match fs::read_to_string(path) {
        Ok(s) => Ok(Some(s.trim().to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// A file holding one unsigned decimal number.
pub(crate) fn number(path: &Path) -> Result<u64, String> {
    let t = text(path)?;
    t.parse::<u64>().map_err(|_| format!("{}: expected a number, read {:?}", path.display(), clip(&t)))
}

/// The names of a directory's entries, sorted (sysfs order is not meaningful).
pub(crate) fn names(dir: &Path) -> Result<Vec<String>, String> {
    let rd = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut out: Vec<String> =
        rd.filter_map(Result::ok).filter_map(|e| e.file_name().into_string().ok()).collect();
    out.sort_by(|a, b| natural(a, b));
    Ok(out)
}

/// Orders `sda2` before `sda10`: digit runs compare as numbers.
pub(crate) fn natural(a: &str, b: &str) -> std::cmp::Ordering {
    fn key(s: &str) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        let mut text = String::new();
        let mut num: Option<u64> = None;
        for c in s.chars() {
            if let Some(d) = c.to_digit(10) {
                num = Some(num.unwrap_or(0).saturating_mul(10).saturating_add(u64::from(d)));
            } else {
                if let Some(n) = num.take() {
                    out.push((std::mem::take(&mut text), n));
                }
                text.push(c);
            }
        }
        out.push((text, num.unwrap_or(0)));
        out
    }
    key(a).cmp(&key(b)).then_with(|| a.cmp(b))
}

/// At most 60 characters of a garbled value, for an error message.
pub(crate) fn clip(s: &str) -> String {
    s.chars().take(60).collect()
}

/// 512-byte sectors (the unit of sysfs `start`/`size`, dm tables and XFS `sunit`/`swidth`
/// mount options) to bytes; `None` on overflow.
pub(crate) fn sectors_to_bytes(sectors: u64) -> Option<u64> {
    sectors.checked_mul(512)
}

/// KiB (`/proc/meminfo`'s "kB") to bytes; `None` on overflow.
pub(crate) fn kib_to_bytes(kib: u64) -> Option<u64> {
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(sectors_to_bytes(2048), Some(1_048_576));
        assert_eq!(sectors_to_bytes(63), Some(32_256));
        assert_eq!(sectors_to_bytes(u64::MAX), None);
        assert_eq!(kib_to_bytes(24_683_652), Some(25_276_059_648));
        assert_eq!(kib_to_bytes(u64::MAX / 2), None);
    }

    #[test]
    fn natural_order() {
        let mut v = vec!["sda10", "sda2", "sda1", "nvme0n1p1", "md0", "dm-10", "dm-2"];
        v.sort_by(|a, b| natural(a, b));
        assert_eq!(v, ["dm-2", "dm-10", "md0", "nvme0n1p1", "sda1", "sda2", "sda10"]);
    }
}
