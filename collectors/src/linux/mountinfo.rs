//! `/proc/self/mountinfo` (Linux 2.6.26+), one line per mount, fields separated by spaces:
//!
//! ```text
//! 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//! (1)(2)(3)   (4)   (5)      (6)      (7)    (8) (9)    (10)         (11)
//! ```
//!
//! mount id, parent id, `major:minor` of the filesystem's device (the `st_dev` of files on it),
//! root of the mount inside the filesystem (not `/` for a bind mount of a subdirectory), mount
//! point, per-mount options, zero or more optional `tag[:value]` fields ended by a lone `-`,
//! filesystem type, mount source, per-superblock options. Source: `proc_pid_mountinfo(5)`.
//!
//! Space, tab, newline and backslash in the path fields are written as octal escapes (`\040`,
//! `\011`, `\012`, `\134`; fs/proc_namespace.c `mangle()`), so a line is split on spaces first and
//! each field decoded afterwards.
//!
//! Filesystem-specific options are in the superblock options (field 11): XFS `sunit=`/`swidth=`
//! in 512-byte units (Documentation/admin-guide/xfs.rst; shown via `XFS_FSB_TO_BB` in
//! fs/xfs/xfs_super.c), ext4 `stripe=` in filesystem blocks (admin-guide/ext4.rst).

use super::read::sectors_to_bytes;

/// One mountinfo line, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountEntry {
    pub mount_id: u64,
    pub parent_id: u64,
    pub major: u32,
    pub minor: u32,
    /// Root of the mount within the filesystem (`/` unless a bind mount of a subdirectory).
    pub root: String,
    pub mount_point: String,
    pub mount_options: Vec<String>,
    /// `type` or `type.subtype` (FUSE).
    pub fs_type: String,
    pub source: String,
    pub super_options: Vec<String>,
}

impl MountEntry {
    /// Per-mount options followed by the superblock options not already among them (`rw`
    /// appears in both).
    pub fn all_options(&self) -> Vec<String> {
        let mut out = self.mount_options.clone();
        for o in &self.super_options {
            if !out.contains(o) {
                out.push(o.clone());
            }
        }
        out
    }

    /// The value of a `key=value` superblock option.
    pub fn super_option(&self, key: &str) -> Option<&str> {
        self.super_options.iter().find_map(|o| o.strip_prefix(key)?.strip_prefix('='))
    }
}

/// Why a mountinfo line could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    pub line_no: usize,
    pub reason: String,
}

/// Parses the whole file: the entries that could be read, and the lines that could not.
pub fn parse(text: &str) -> (Vec<MountEntry>, Vec<BadLine>) {
    let mut entries = Vec::new();
    let mut bad = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(line) {
            Ok(e) => entries.push(e),
            Err(reason) => bad.push(BadLine { line_no: i + 1, reason }),
        }
    }
    (entries, bad)
}

/// Parses one line.
pub fn parse_line(line: &str) -> Result<MountEntry, String> {
    let fields: Vec<&str> = line.split(' ').collect();
    // Fields 1-6, then optional fields, then `-` and fields 9-11.
    let sep = fields
        .iter()
        .enumerate()
        .skip(6)
        .find(|(_, f)| **f == "-")
        .map(|(i, _)| i)
        .ok_or_else(|| "no `-` separator after the sixth field".to_string())?;
    if fields.len() < sep + 4 {
        return Err(format!("{} fields after `-`, expected 3", fields.len() - sep - 1));
    }
    let num = |s: &str, what: &str| s.parse::<u64>().map_err(|_| format!("{what} {s:?} is not a number"));
    let (major, minor) =
        fields[2].split_once(':').ok_or_else(|| format!("device {:?} is not M:m", fields[2]))?;
    let dev = |s: &str| s.parse::<u32>().map_err(|_| format!("device {:?} is not M:m", fields[2]));
    let options = |s: &str| s.split(',').filter(|o| !o.is_empty()).map(unescape).collect::<Vec<_>>();
    Ok(MountEntry {
        mount_id: num(fields[0], "mount id")?,
        parent_id: num(fields[1], "parent id")?,
        major: dev(major)?,
        minor: dev(minor)?,
        root: unescape(fields[3]),
        mount_point: unescape(fields[4]),
        mount_options: options(fields[5]),
        fs_type: unescape(fields[sep + 1]),
        source: unescape(fields[sep + 2]),
        // Anything after field 11 would be spaces inside the options, which the kernel escapes;
        // join defensively rather than drop it.
        super_options: options(&fields[sep + 3..].join(" ")),
    })
}

/// Decodes the kernel's `\ooo` octal escapes. A backslash not followed by three octal digits
/// is kept as it is; bytes that are not UTF-8 become U+FFFD.
pub fn unescape(field: &str) -> String {
    let b = field.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..=i + 3].iter().all(|c| (b'0'..=b'7').contains(c)) {
            let v =
                u32::from(b[i + 1] - b'0') * 64 + u32::from(b[i + 2] - b'0') * 8 + u32::from(b[i + 3] - b'0');
            if let Ok(byte) = u8::try_from(v) {
                out.push(byte);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// XFS stripe geometry from the superblock options: (`sunit`, `swidth`) in bytes. The options are
/// in 512-byte units. Each is `Err` with a reason when present but not a number; `Ok(None)` when
/// not shown (no stripe geometry set).
pub fn xfs_stripe(e: &MountEntry) -> (Result<Option<u64>, String>, Result<Option<u64>, String>) {
    let get = |key: &str| match e.super_option(key) {
        None => Ok(None),
        Some(v) => v
            .parse::<u64>()
            .ok()
            .and_then(sectors_to_bytes)
            .map(Some)
            .ok_or_else(|| format!("XFS option {key}={v} is not a count of 512-byte units")),
    };
    (get("sunit"), get("swidth"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn man_page_example() {
        let e = parse_line("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue")
            .unwrap();
        assert_eq!((e.mount_id, e.parent_id, e.major, e.minor), (36, 35, 98, 0));
        assert_eq!(e.root, "/mnt1");
        assert_eq!(e.mount_point, "/mnt2");
        assert_eq!(e.mount_options, ["rw", "noatime"]);
        assert_eq!(e.fs_type, "ext3");
        assert_eq!(e.source, "/dev/root");
        assert_eq!(e.super_options, ["rw", "errors=continue"]);
        assert_eq!(e.all_options(), ["rw", "noatime", "errors=continue"]);
    }

    #[test]
    fn optional_fields_vary() {
        let none = parse_line("27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard").unwrap();
        assert_eq!(none.fs_type, "ext4");
        let three = parse_line(
            "90 27 8:17 / /var/opt/mssql rw,noatime shared:40 master:2 propagate_from:3 - xfs /dev/sdb1 rw,attr2,inode64,sunit=1024,swidth=4096,noquota",
        )
        .unwrap();
        assert_eq!(three.mount_point, "/var/opt/mssql");
        assert_eq!(three.fs_type, "xfs");
        assert_eq!(three.source, "/dev/sdb1");
        assert_eq!(three.super_option("sunit"), Some("1024"));
        // 1024 x 512 B = 512 KiB stripe unit; 4096 x 512 B = 2 MiB width.
        assert_eq!(xfs_stripe(&three), (Ok(Some(524_288)), Ok(Some(2_097_152))));
    }

    #[test]
    fn escapes() {
        let e =
            parse_line(r"40 27 259:1 /sub\040dir /mnt/with\040space\011tab\134back rw - xfs /dev/loop0p2 rw")
                .unwrap();
        assert_eq!(e.root, "/sub dir");
        assert_eq!(e.mount_point, "/mnt/with space\ttab\\back");
        assert_eq!(unescape(r"\012"), "\n");
        // Not an escape: kept as is.
        assert_eq!(unescape(r"a\b\04"), r"a\b\04");
        assert_eq!(unescape(r"\777x"), r"\777x");
        assert_eq!(unescape(r"trailing\"), r"trailing\");
    }

    #[test]
    fn xfs_units_are_512_byte_units() {
        let e = parse_line("1 1 7:0 / /x rw - xfs /dev/loop0 rw,sunit=128,swidth=512").unwrap();
        assert_eq!(xfs_stripe(&e), (Ok(Some(65_536)), Ok(Some(262_144))));
        let none = parse_line("1 1 7:0 / /x rw - xfs /dev/loop0 rw,noquota").unwrap();
        assert_eq!(xfs_stripe(&none), (Ok(None), Ok(None)));
        let bad = parse_line("1 1 7:0 / /x rw - xfs /dev/loop0 rw,sunit=x").unwrap();
        assert!(xfs_stripe(&bad).0.is_err());
    }

    #[test]
    fn bad_lines_are_reported_not_fatal() {
        let (ok, bad) = parse("garbage\n27 1 254:0 / / rw - ext4 /dev/vda rw\n1 2 3:4 / /x rw -\n\n");
        assert_eq!(ok.len(), 1);
        assert_eq!(bad.iter().map(|b| b.line_no).collect::<Vec<_>>(), [1, 3]);
        assert!(parse_line("a 1 8:0 / / rw - ext4 x rw").is_err());
        assert!(parse_line("1 1 80 / / rw - ext4 x rw").is_err());
    }
}
