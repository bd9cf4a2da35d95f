//! device-mapper devices and LVM logical volumes.
//!
//! sysfs (Documentation/ABI/testing/sysfs-block-dm): `/sys/block/dm-N/dm/name` (the mapped
//! device's name, `vg-lv` for LVM with `-` inside a name doubled), `dm/uuid` (LVM's start with
//! `LVM-`), and `/sys/block/dm-N/slaves/` (the devices underneath, block/holder.c).
//!
//! The striping is **not in sysfs**: it is in the device's table, read with `dmsetup table`
//! (or the DM_TABLE_STATUS ioctl). A striped line is
//! `<start> <length> striped <#stripes> <chunk> <dev> <offset> [<dev> <offset>]...` with start,
//! length, chunk and offset in 512-byte sectors (admin-guide/device-mapper/striped.rst: a 128 KiB
//! chunk is 256) and devices as `major:minor`. A linear line is `<start> <length> linear <dev>
//! <offset>`. Tables come through the [`DmTables`] trait: [`Dmsetup`] runs the binary on a live
//! host (only when it exists and we are root, the only user it answers), and captured trees use
//! a table-driven implementation or none at all.
//!
//! Only a dm device whose uuid says LVM becomes `Backing::Lvm`; the facts model has no backing
//! for dm-crypt, multipath or hand-made dm tables, so those are recorded as not collected.

use std::collections::BTreeMap;
use std::path::Path;

use spindle_core::facts::Backing;

use super::block::{DevMap, parse_dev};
use super::read::{self, sectors_to_bytes};
use crate::notes::Uncollected;

/// Where device-mapper tables come from.
pub trait DmTables {
    /// The table of the mapped device `name` (as in `dm/name`), in `dmsetup table` format;
    /// `Err` with the reason it could not be read.
    fn table(&self, name: &str) -> Result<String, String>;
}

/// Runs `dmsetup table <name>`: only when the binary is on `PATH` (or in `/sbin`, `/usr/sbin`)
/// and the process runs as root; otherwise every table is `Err` saying why.
#[derive(Debug, Default, Clone, Copy)]
pub struct Dmsetup;

impl DmTables for Dmsetup {
    fn table(&self, name: &str) -> Result<String, String> {
        live_table(name)
    }
}

#[cfg(target_os = "linux")]
fn live_table(name: &str) -> Result<String, String> {
    if !rustix::process::geteuid().is_root() {
        return Err("the device-mapper table needs root (dmsetup table); not running as root".into());
    }
    let bin = find_dmsetup().ok_or("the device-mapper table needs dmsetup, which is not installed")?;
    let out = std::process::Command::new(&bin)
        .arg("table")
        .arg(name)
        .output()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    if !out.status.success() {
        return Err(format!(
            "dmsetup table {name}: {} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8(out.stdout).map_err(|_| format!("dmsetup table {name}: output is not UTF-8"))
}

#[cfg(not(target_os = "linux"))]
fn live_table(_name: &str) -> Result<String, String> {
    Err("device-mapper tables are read on Linux only".into())
}

#[cfg(target_os = "linux")]
fn find_dmsetup() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/sbin", "/usr/sbin"].map(std::path::PathBuf::from))
        .map(|d| d.join("dmsetup"))
        .find(|p| p.is_file())
}

/// No tables: every lookup fails with the given reason (a captured tree has no dm tables).
#[derive(Debug, Clone)]
pub struct NoDmTables(pub String);

impl DmTables for NoDmTables {
    fn table(&self, _name: &str) -> Result<String, String> {
        Err(self.0.clone())
    }
}

/// Tables given by mapped-device name (tests, or tables captured with `dmsetup table`).
#[derive(Debug, Clone, Default)]
pub struct TableDm(pub BTreeMap<String, String>);

impl DmTables for TableDm {
    fn table(&self, name: &str) -> Result<String, String> {
        self.0.get(name).cloned().ok_or_else(|| format!("no table captured for {name}"))
    }
}

/// The striping a table describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub stripes: u32,
    /// Chunk in bytes; `None` for a linear mapping (no striping).
    pub chunk_bytes: Option<u64>,
    /// Underlying devices as written in the table (`major:minor` or a path), in order, once each.
    pub devices: Vec<String>,
}

/// Parses a `dmsetup table` for one device: every segment striped alike, or every segment
/// linear (one stripe). Other targets, or segments that differ, are `Err` with the reason.
pub fn parse_table(table: &str) -> Result<Layout, String> {
    let mut layout: Option<Layout> = None;
    for line in table.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("table line {:?} is not understood", read::clip(line));
        let (stripes, chunk_bytes, devs) = match f.get(2).copied() {
            Some("striped") => {
                let n: u32 = f.get(3).and_then(|s| s.parse().ok()).filter(|n| *n > 0).ok_or_else(bad)?;
                let chunk: u64 = f.get(4).and_then(|s| s.parse().ok()).ok_or_else(bad)?;
                let pairs = &f[5..];
                if pairs.len() != 2 * n as usize {
                    return Err(bad());
                }
                let bytes = sectors_to_bytes(chunk).ok_or_else(bad)?;
                (n, Some(bytes), pairs.iter().step_by(2).map(|s| s.to_string()).collect::<Vec<_>>())
            }
            Some("linear") => (1, None, vec![f.get(3).ok_or_else(bad)?.to_string()]),
            Some(target) => {
                return Err(format!("device-mapper target {target:?} is neither striped nor linear"));
            }
            None => return Err(bad()),
        };
        match &mut layout {
            None => layout = Some(Layout { stripes, chunk_bytes, devices: devs }),
            Some(l) if l.stripes == stripes && l.chunk_bytes == chunk_bytes => {
                for d in devs {
                    if !l.devices.contains(&d) {
                        l.devices.push(d);
                    }
                }
            }
            Some(_) => return Err("the table's segments are striped differently".to_string()),
        }
    }
    layout.ok_or_else(|| "the table is empty".to_string())
}

/// LVM's dm name `vg-lv` (a `-` inside either name doubled) as `vg/lv`; `None` when it does not
/// split that way.
pub fn lvm_name(dm_name: &str) -> Option<String> {
    let b = dm_name.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'-' {
            if b.get(i + 1) == Some(&b'-') {
                i += 2;
                continue;
            }
            let (vg, lv) = (&dm_name[..i], &dm_name[i + 1..]);
            if vg.is_empty() || lv.is_empty() {
                return None;
            }
            return Some(format!("{}/{}", vg.replace("--", "-"), lv.replace("--", "-")));
        }
        i += 1;
    }
    None
}

/// The backing of the dm device `/sys/block/<kname>`, or `None` when it is not a dm device.
/// `Some(None)`: a dm device that is not an LVM logical volume (recorded in `notes`).
pub(crate) fn read_backing(
    root: &Path,
    kname: &str,
    devs: &DevMap,
    tables: &dyn DmTables,
    notes: &mut Uncollected,
) -> Option<Option<Backing>> {
    let dir = root.join("sys/block").join(kname);
    let dm = dir.join("dm");
    if !dm.is_dir() {
        return None;
    }
    let fact = format!("disks[{kname}].backed_by");
    let name = match read::text(&dm.join("name")) {
        Ok(n) if !n.is_empty() => n,
        Ok(_) => {
            notes.miss(fact, format!("{}: empty", dm.join("name").display()));
            return Some(None);
        }
        Err(e) => {
            notes.miss(fact, e);
            return Some(None);
        }
    };
    let uuid = read::text(&dm.join("uuid")).unwrap_or_default();
    if !uuid.starts_with("LVM-") {
        notes.miss(
            fact,
            format!("device-mapper device {name} is not an LVM logical volume (dm uuid {uuid:?}); the facts model has no backing for it"),
        );
        return Some(None);
    }
    let slaves = read::names(&dir.join("slaves")).unwrap_or_default();
    let (stripes, stripe_unit_bytes, devices) = match tables.table(&name).and_then(|t| parse_table(&t)) {
        Ok(l) => {
            let devices = l
                .devices
                .iter()
                .map(|d| {
                    resolve(d, devs).ok_or_else(|| format!("table device {d} is not a block device in sysfs"))
                })
                .collect::<Result<Vec<_>, _>>();
            let devices = match devices {
                Ok(d) => d,
                Err(e) => {
                    notes.miss(format!("{fact}.devices"), e);
                    slaves
                }
            };
            (Some(l.stripes), l.chunk_bytes, devices)
        }
        Err(e) => {
            notes.miss(format!("{fact}.stripes"), format!("{name}: {e}"));
            notes.miss(format!("{fact}.stripe_unit_bytes"), format!("{name}: {e}"));
            (None, None, slaves)
        }
    };
    Some(Some(Backing::Lvm { name: lvm_name(&name).unwrap_or(name), stripes, stripe_unit_bytes, devices }))
}

/// A table device (`major:minor`, or `/dev/NAME`) as a kernel device name.
fn resolve(dev: &str, devs: &DevMap) -> Option<String> {
    if let Ok(d) = parse_dev(dev) {
        return devs.get(&d).cloned();
    }
    let name = dev.strip_prefix("/dev/")?;
    devs.values().find(|v| *v == name).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn striped_table() {
        // lvcreate -i 4 -I 64k: 4 stripes, 64 KiB = 128 sectors.
        let t = "0 8388608 striped 4 128 8:16 2048 8:32 2048 8:48 2048 8:64 2048\n";
        let l = parse_table(t).unwrap();
        assert_eq!(l.stripes, 4);
        assert_eq!(l.chunk_bytes, Some(65_536));
        assert_eq!(l.devices, ["8:16", "8:32", "8:48", "8:64"]);
        // striped.rst's example: 128 KiB chunk written as 256.
        assert_eq!(
            parse_table("0 1024 striped 2 256 /dev/sda 0 /dev/sdb 0").unwrap().chunk_bytes,
            Some(131_072)
        );
    }

    #[test]
    fn linear_and_multi_segment() {
        let l = parse_table("0 2048 linear 8:16 2048\n2048 4096 linear 8:32 2048\n").unwrap();
        assert_eq!((l.stripes, l.chunk_bytes), (1, None));
        assert_eq!(l.devices, ["8:16", "8:32"]);
        assert!(parse_table("0 2048 linear 8:16 2048\n2048 4096 striped 2 128 8:32 0 8:48 0").is_err());
        assert!(parse_table("0 2048 crypt aes-xts-plain64 :64:logon:x 0 8:16 4096").is_err());
        assert!(parse_table("0 2048 striped 3 128 8:16 0").is_err());
        assert!(parse_table("").is_err());
    }

    #[test]
    fn lvm_names() {
        assert_eq!(lvm_name("vgdata-lvsql").as_deref(), Some("vgdata/lvsql"));
        assert_eq!(lvm_name("vg--sql-data--lv").as_deref(), Some("vg-sql/data-lv"));
        assert_eq!(lvm_name("nodash"), None);
        assert_eq!(lvm_name("-x"), None);
    }
}
