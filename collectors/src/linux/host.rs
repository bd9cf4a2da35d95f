//! The host section:
//!
//! - name: `/proc/sys/kernel/hostname` (proc_sys_kernel(5));
//! - os_version: `PRETTY_NAME` of `/etc/os-release`, else `/usr/lib/os-release` (os-release(5):
//!   shell-style `KEY=value` lines, values optionally quoted, `\` escapes `"`, `\`, `` ` ``, `$`);
//! - cpu_count: logical CPUs online, from the range list `/sys/devices/system/cpu/online`
//!   (ABI/testing/sysfs-devices-system-cpu), else the `processor` lines of `/proc/cpuinfo`;
//! - memory_bytes: `MemTotal` of `/proc/meminfo`, whose "kB" is KiB (proc_meminfo(5)) → × 1024;
//! - is_virtual, cloud_provider: see [`super::dmi`].

use std::path::Path;

use spindle_core::facts::{Host, OsFamily};

use super::read::{self, kib_to_bytes};
use super::{LinuxError, dmi};
use crate::notes::Uncollected;

pub(crate) fn read_host(root: &Path, notes: &mut Uncollected) -> Result<Host, LinuxError> {
    let hostname = root.join("proc/sys/kernel/hostname");
    let name = read::text(&hostname).map_err(LinuxError::HostName)?;
    if name.is_empty() {
        return Err(LinuxError::HostName(format!("{}: empty", hostname.display())));
    }
    let os_version = ["etc/os-release", "usr/lib/os-release"]
        .iter()
        .find_map(|p| read::text(&root.join(p)).ok())
        .ok_or_else(|| "neither /etc/os-release nor /usr/lib/os-release can be read".to_string())
        .and_then(|t| {
            os_release_value(&t, "PRETTY_NAME").ok_or_else(|| "os-release has no PRETTY_NAME".into())
        });
    let cpu_count = read::text(&root.join("sys/devices/system/cpu/online"))
        .and_then(|t| count_cpu_list(&t))
        .or_else(|e| {
            read::text(&root.join("proc/cpuinfo"))
                .and_then(|c| {
                    let n = c
                        .lines()
                        .filter(|l| l.split(':').next().is_some_and(|k| k.trim() == "processor"))
                        .count();
                    u32::try_from(n)
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| "/proc/cpuinfo lists no processor".to_string())
                })
                .map_err(|e2| format!("{e}; {e2}"))
        });
    let memory = read::text(&root.join("proc/meminfo")).and_then(|t| mem_total_bytes(&t));
    let (is_virtual, cloud_provider) = dmi::virtual_and_cloud(root, notes);
    Ok(Host {
        name,
        os_family: Some(OsFamily::Linux),
        os_version: notes.take("host.os_version", os_version),
        cpu_count: notes.take("host.cpu_count", cpu_count),
        memory_bytes: notes.take("host.memory_bytes", memory),
        is_virtual,
        cloud_provider,
    })
}

/// A value of an os-release file, unquoted.
pub(crate) fn os_release_value(text: &str, key: &str) -> Option<String> {
    let raw = text.lines().find_map(|l| l.trim().strip_prefix(key)?.strip_prefix('='))?;
    let raw = raw.trim();
    let v = if let Some(inner) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                out.extend(chars.next());
            } else {
                out.push(c);
            }
        }
        out
    } else if let Some(inner) = raw.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        inner.to_string()
    } else {
        raw.to_string()
    };
    (!v.is_empty()).then_some(v)
}

/// The number of CPUs in a kernel CPU list (`0-3,8,10-11`).
pub(crate) fn count_cpu_list(t: &str) -> Result<u32, String> {
    let bad = || format!("CPU list {:?} is not understood", read::clip(t));
    let mut n: u32 = 0;
    for part in t.trim().split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b): (u32, u32) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
        n = n.checked_add(b.checked_sub(a).ok_or_else(bad)? + 1).ok_or_else(bad)?;
    }
    if n == 0 { Err(bad()) } else { Ok(n) }
}

/// `MemTotal:  24683652 kB` → bytes.
pub(crate) fn mem_total_bytes(meminfo: &str) -> Result<u64, String> {
    let line = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .ok_or_else(|| "/proc/meminfo has no MemTotal".to_string())?;
    let mut it = line.split_whitespace();
    let (n, unit) = (it.next(), it.next());
    match (n.and_then(|n| n.parse::<u64>().ok()), unit) {
        (Some(kib), Some("kB")) => kib_to_bytes(kib).ok_or_else(|| "MemTotal overflows".to_string()),
        _ => Err(format!("MemTotal {:?} is not a number of kB", read::clip(line.trim()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_release() {
        let t = "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n";
        assert_eq!(os_release_value(t, "PRETTY_NAME").as_deref(), Some("Debian GNU/Linux 12 (bookworm)"));
        assert_eq!(os_release_value(t, "ID").as_deref(), Some("debian"));
        assert_eq!(os_release_value("PRETTY_NAME='RHEL 9'", "PRETTY_NAME").as_deref(), Some("RHEL 9"));
        assert_eq!(os_release_value(r#"PRETTY_NAME="a \"b\"""#, "PRETTY_NAME").as_deref(), Some(r#"a "b""#));
        assert_eq!(os_release_value("PRETTY_NAME=\"\"", "PRETTY_NAME"), None);
        assert_eq!(os_release_value("NAME=x", "PRETTY_NAME"), None);
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(count_cpu_list("0-1\n"), Ok(2));
        assert_eq!(count_cpu_list("0-3,8,10-11"), Ok(7));
        assert_eq!(count_cpu_list("0"), Ok(1));
        assert!(count_cpu_list("3-1").is_err());
        assert!(count_cpu_list("").is_err());
        assert!(count_cpu_list("x").is_err());
    }

    #[test]
    fn meminfo_kib() {
        assert_eq!(mem_total_bytes("MemTotal:       24683652 kB\nMemFree: 1 kB\n"), Ok(24_683_652 * 1024));
        assert!(mem_total_bytes("MemFree: 1 kB\n").is_err());
        assert!(mem_total_bytes("MemTotal: 12 MB\n").is_err());
    }
}
