//! What a Linux filesystem was told at format and mount time: its stripe unit and width, and its
//! mount options.
//!
//! The stripe geometry is `fs_stripe_unit_bytes` and `fs_stripe_width_bytes` when collected;
//! absent, it may be unknown or unset. An XFS mount says which: the kernel lists `sunit=` and
//! `swidth=` (512-byte units) among an XFS mount's options whenever a geometry is set, so
//! collected options without them mean none is, and with them give it. Elsewhere an absent value
//! is unknown, and no change.

use serde_json::Value;
use spindle_core::facts::{FsKind, Volume};

use super::change::{Change, ChangeKind, Shown, bytes, change};
use super::pairing::{Paired, pair};

/// A geometry option: reported, in bytes, as a stripe change rather than as an option.
const GEOMETRY_OPTIONS: [&str; 3] = ["sunit", "swidth", "stripe"];

/// A stripe value: `Some(None)` when known to be unset, `None` when unknown.
type Known = Option<Option<u64>>;

/// The volume's stripe unit and width, as far as they are known.
fn geometry(v: &Volume) -> (Known, Known) {
    let from_xfs_options = |name: &str| -> Known {
        if v.fs_kind() != Some(FsKind::Xfs) {
            return None;
        }
        let options = v.mount_options.as_ref()?;
        match options.iter().find_map(|o| o.strip_prefix(name)?.strip_prefix('=')) {
            None => Some(None),
            Some(units) => Some(Some(units.parse::<u64>().ok()?.checked_mul(512)?)),
        }
    };
    let known = |field: Option<u64>, option: &str| field.map(Some).or_else(|| from_xfs_options(option));
    (known(v.fs_stripe_unit_bytes, "sunit"), known(v.fs_stripe_width_bytes, "swidth"))
}

fn stripe(value: Option<u64>) -> Shown {
    value.map_or_else(|| (Value::Null, "none".to_string()), bytes)
}

/// The name of a mount option: `logbsize` of `logbsize=32k`, `noatime` of `noatime`.
fn option_name(o: &str) -> &str {
    o.split_once('=').map_or(o, |(name, _)| name)
}

/// The filesystem changes of a volume on both sides, under `entity`.
pub(super) fn compare(vb: &Volume, va: &Volume, entity: (&str, &str), out: &mut Vec<Change>) {
    let ((ub, wb), (ua, wa)) = (geometry(vb), geometry(va));
    let mut geometry_compared = true;
    for (kind, b, a) in [(ChangeKind::FsStripeUnit, ub, ua), (ChangeKind::FsStripeWidth, wb, wa)] {
        match (b, a) {
            (Some(b), Some(a)) if b != a => out.push(change(kind, entity, Some(stripe(b)), Some(stripe(a)))),
            (Some(_), Some(_)) => {}
            _ => geometry_compared = false,
        }
    }
    let (Some(ob), Some(oa)) = (&vb.mount_options, &va.mount_options) else { return };
    // Geometry options already compared, in bytes, are not repeated in 512-byte units.
    let shown = |o: &&String| !(geometry_compared && GEOMETRY_OPTIONS.contains(&option_name(o)));
    let ob: Vec<&String> = ob.iter().filter(shown).collect();
    let oa: Vec<&String> = oa.iter().filter(shown).collect();
    let text = |o: &str| (Value::from(o), o.to_string());
    for p in pair(&ob, &oa, |o| option_name(o).to_string(), |o| option_name(o).to_string()) {
        match p {
            Paired::Both(b, a) if b != a => {
                out.push(change(ChangeKind::MountOption, entity, Some(text(b)), Some(text(a))));
            }
            Paired::Both(..) => {}
            Paired::Added(a) => out.push(change(ChangeKind::MountOptionAdded, entity, None, Some(text(a)))),
            Paired::Removed(b) => {
                out.push(change(ChangeKind::MountOptionRemoved, entity, Some(text(b)), None))
            }
        }
    }
}
