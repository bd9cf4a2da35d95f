//! Linux software RAID (md) arrays from `/sys/block/mdN/md/` (Documentation/admin-guide/md.rst):
//!
//! - `level`: text (`raid0`, `raid1`, `raid5`, `raid10`, `linear`, ...), recorded as read;
//! - `chunk_size`: bytes, for the striped levels (0, 4, 5, 6, 10); `0` or absent for levels
//!   without a chunk. During a reshape md shows `new (old)`: the chunk is then not collected,
//!   since neither value describes all of the array;
//! - `dev-XXX/`: one directory per component device, XXX its kernel name; `dev-XXX/slot` is
//!   the role number, or `none` for a spare (which holds no data and is left out of the members);
//! - `/sys/block/mdN/slaves/`: links named after the component devices (block/holder.c), used
//!   when no `dev-*` directory can be read.
//!
//! The md device becomes a [`RaidSet`] of kind `md` with the id of its kernel name, and the md
//! disk (`md0`) is `backed_by` it.

use std::path::Path;

use spindle_core::facts::{RaidKind, RaidSet};

use super::read;
use crate::notes::Uncollected;

/// The array behind `/sys/block/<name>`, or `None` when it is not an md device.
pub(crate) fn read_array(root: &Path, name: &str, notes: &mut Uncollected) -> Option<RaidSet> {
    let dir = root.join("sys/block").join(name);
    let md = dir.join("md");
    if !md.is_dir() {
        return None;
    }
    let fact = |f: &str| format!("raid_sets[{name}].{f}");
    let level = notes.take(
        fact("level"),
        read::text(&md.join("level")).and_then(|l| {
            if l.is_empty() {
                Err(format!("{}: empty (array not running)", md.join("level").display()))
            } else {
                Ok(l)
            }
        }),
    );
    let chunk = read::text(&md.join("chunk_size")).and_then(|t| parse_chunk(&t));
    let stripe_unit_bytes = match chunk {
        Ok(Some(c)) => Some(c),
        Ok(None) => {
            if level.as_deref().is_some_and(is_striped) {
                notes.miss(
                    fact("stripe_unit_bytes"),
                    format!("md/chunk_size is 0 for level {}", level.as_deref().unwrap_or("")),
                );
            }
            None
        }
        Err(e) => {
            notes.miss(fact("stripe_unit_bytes"), e);
            None
        }
    };
    let members = members(&dir, &md);
    Some(RaidSet {
        id: name.to_string(),
        kind: Some(RaidKind::Md),
        level,
        stripe_unit_bytes,
        member_ids: notes.take(fact("member_ids"), members),
    })
}

/// `chunk_size` in bytes; `Ok(None)` for 0 (no chunk); an error during a reshape (`new (old)`).
pub(crate) fn parse_chunk(t: &str) -> Result<Option<u64>, String> {
    if t.contains('(') {
        return Err(format!("md/chunk_size reads {:?}: a reshape is changing the chunk", read::clip(t)));
    }
    match t.parse::<u64>() {
        Ok(0) => Ok(None),
        Ok(n) => Ok(Some(n)),
        Err(_) => Err(format!("md/chunk_size: expected bytes, read {:?}", read::clip(t))),
    }
}

fn is_striped(level: &str) -> bool {
    matches!(level, "raid0" | "raid4" | "raid5" | "raid6" | "raid10" | "0" | "4" | "5" | "6" | "10")
}

/// Active members: `md/dev-*` whose slot is not `none`; else the `slaves/` entries.
fn members(dir: &Path, md: &Path) -> Result<Vec<String>, String> {
    let from_dev: Vec<String> = read::names(md)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|n| n.strip_prefix("dev-").map(str::to_string))
        .collect();
    if !from_dev.is_empty() {
        let active: Vec<String> = from_dev
            .into_iter()
            .filter(|m| read::text(&md.join(format!("dev-{m}/slot"))).map_or(true, |s| s != "none"))
            .collect();
        return Ok(active);
    }
    let slaves = read::names(&dir.join("slaves"))?;
    if slaves.is_empty() {
        return Err(format!("{}: no md/dev-* entries and no slaves", dir.display()));
    }
    Ok(slaves)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_sizes() {
        assert_eq!(parse_chunk("524288"), Ok(Some(524_288)));
        assert_eq!(parse_chunk("0"), Ok(None));
        assert!(parse_chunk("524288 (65536)").is_err());
        assert!(parse_chunk("").is_err());
    }
}
