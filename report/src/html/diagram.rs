//! The alignment diagram of a partition, as inline SVG: the disk from sector 0, where the
//! partition starts, the stripe-unit boundaries under it (a RAID set's stripe unit, a Storage
//! Spaces virtual disk's interleave with its columns) and the partition's first 64 KiB extents,
//! each extent that crosses a boundary marked: it is one book across two shelves, read with
//! two I/Os instead of one.
//!
//! Only facts are drawn. When the stripe unit is unknown the diagram says so and draws the
//! 64 KiB grid alone, marking no extent; when the offset is unknown there is no diagram, only
//! the sentence saying why.

use std::fmt::Write as _;
use std::io::{self, Write};

use spindle_core::facts::Partition;
use spindle_core::units;
use spindle_core::untrusted;
use spindle_core::view::{HostView, Located, StripeSource};

use super::esc;
use crate::checklist::short_label;

/// SQL Server reads and writes data in 64 KiB extents.
const EXTENT_BYTES: u64 = 64 * 1024;
/// Extents drawn after the partition's start.
const EXTENTS: u64 = 6;
/// The drawing's width in SVG units, and its margins.
const WIDTH: f64 = 960.0;
const LEFT: f64 = 10.0;
const RIGHT: f64 = 10.0;

/// What lies under a partition, as far as the facts say.
enum Geometry {
    Striped {
        unit: u64,
        columns: Option<u32>,
        what: String,
    },
    /// Nothing under the disk stripes (a single drive, a mirror).
    Unstriped,
    Unknown,
}

fn geometry(view: &HostView, p: &Located<Partition>) -> Geometry {
    if let Some(s) = view.stripe_of_partition(p) {
        let unit = units::binary(s.unit_bytes);
        let width = s.width.map(|w| w.to_string());
        let what = match &s.source {
            StripeSource::VirtualDisk(i) => {
                let vd = view.virtual_disks.as_ref().and_then(|v| v.get(*i));
                let name = vd.map(|v| v.item.name.as_deref().unwrap_or(&v.item.id)).unwrap_or("?");
                format!(
                    "Storage Spaces virtual disk {}: interleave {unit}, {} columns",
                    untrusted::name(name),
                    width.as_deref().unwrap_or("unknown")
                )
            }
            StripeSource::RaidSet(i) => {
                let r = view.raid_sets.as_ref().and_then(|v| v.get(*i));
                let level = r.and_then(|r| r.item.level.as_deref()).unwrap_or("level unknown");
                format!(
                    "RAID set {} ({}): stripe unit {unit}",
                    untrusted::name(r.map_or("?", |r| r.item.id.as_str())),
                    untrusted::name(level)
                )
            }
            StripeSource::DynamicDisk(_) => {
                format!("dynamic-disk striped set: stripe unit {unit}, the only one Windows offers")
            }
            StripeSource::Lvm(name) => format!("LVM volume {}: stripe unit {unit}", untrusted::name(name)),
            StripeSource::Declared(pack) => {
                format!("stripe unit {unit}, declared in the pack {}", untrusted::name(pack))
            }
        };
        let columns = matches!(s.source, StripeSource::VirtualDisk(_)).then_some(s.width).flatten();
        return Geometry::Striped { unit: s.unit_bytes, columns, what };
    }
    match view.disk(&p.item.disk_id) {
        Some(d) if view.disk_is_unstriped(&d.item) => Geometry::Unstriped,
        _ => Geometry::Unknown,
    }
}

/// The share (0 to 1) of `io`-sized I/Os, issued back to back from the partition's start, that
/// cross a boundary of `unit`: the start positions repeat every `unit / gcd(io, unit)` I/Os.
fn straddling(offset: u64, io: u64, unit: u64) -> f64 {
    if io > unit {
        return 1.0;
    }
    let (mut a, mut b) = (io, unit);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    let period = (unit / a).min(1 << 16);
    let split = (0..period).filter(|k| (offset + k * io) % unit + io > unit).count();
    split as f64 / period as f64
}

/// Writes the section of a host's partition diagrams; nothing when no partition was collected.
pub(crate) fn write_diagrams(out: &mut Vec<u8>, view: &HostView, host: &str) -> io::Result<()> {
    let Some(partitions) = view.partitions.as_deref() else {
        return writeln!(
            out,
            "<h3>Partition alignment</h3>\n<p class=\"unknown\">Partitions were not collected: no diagram can be drawn.</p>"
        );
    };
    if partitions.is_empty() {
        return Ok(());
    }
    writeln!(out, "<h3 id=\"alignment-{}\">Partition alignment</h3>", super::anchor(host))?;
    writeln!(
        out,
        "<p class=\"legend\">Each diagram starts at sector 0 of the disk. Top band: the stripe units \
         the data is spread over; middle: the disk before the partition, then the partition; bottom: \
         the partition's first 64 KiB extents. An extent drawn hatched, marked ×2, crosses a stripe-unit \
         boundary: like a book across two shelves, it is read with two I/Os.</p>"
    )?;
    for p in partitions {
        write_one(out, view, p, host)?;
    }
    Ok(())
}

fn write_one(out: &mut Vec<u8>, view: &HostView, p: &Located<Partition>, host: &str) -> io::Result<()> {
    let name = esc(&untrusted::label(short_label(&p.label, host)));
    let Some(offset) = p.item.offset_bytes else {
        return writeln!(
            out,
            "<figure class=\"diagram\"><figcaption><strong>{name}</strong>: the partition's offset \
             (<code>offset_bytes</code>) was not collected, so where it starts is unknown and no diagram is drawn.</figcaption></figure>"
        );
    };
    let sector = view.disk(&p.item.disk_id).and_then(|d| d.item.logical_sector_bytes).map(u64::from);
    let geometry = geometry(view, p);
    let f = Frame::around(offset, &geometry);

    let mut svg = String::with_capacity(8 << 10);
    let _ = write!(
        svg,
        "<svg class=\"alignment\" viewBox=\"0 0 {WIDTH} 170\" width=\"100%\" height=\"170\" role=\"img\" \
         preserveAspectRatio=\"xMinYMin meet\" aria-label=\"alignment of {name}\">"
    );
    // The axis: where the drawing starts.
    let from = if f.start == 0 {
        "sector 0".to_string()
    } else {
        format!("≈ {} before this point not drawn", units::binary(f.start))
    };
    let _ = write!(svg, "<text x=\"{LEFT}\" y=\"14\" class=\"axis\">{}</text>", esc(&from));
    draw_units(&mut svg, &f, &geometry);
    // Before the partition, then the partition.
    let (p0, pe) = (f.x(offset.max(f.start)), f.x(f.end));
    let _ = write!(
        svg,
        "<rect class=\"before\" x=\"{LEFT}\" y=\"60\" width=\"{:.1}\" height=\"24\"/>",
        p0 - LEFT
    );
    let _ =
        write!(svg, "<rect class=\"part\" x=\"{p0:.1}\" y=\"60\" width=\"{:.1}\" height=\"24\"/>", pe - p0);
    let (split, drawn) = draw_extents(&mut svg, &f, offset);
    draw_boundaries(&mut svg, &f);
    draw_start(&mut svg, offset, sector, p0);
    let caption = caption(&geometry, f.unit, offset, split, drawn);
    writeln!(
        out,
        "<figure class=\"diagram\">{svg}<figcaption><strong>{name}</strong>: {caption}</figcaption></figure>"
    )
}

/// The bytes a diagram draws and where they go across it.
struct Frame {
    /// The stripe unit, when known and not zero.
    unit: Option<u64>,
    /// The stripe unit, else the 64 KiB grid: the drawing's boundaries.
    grid: u64,
    start: u64,
    end: u64,
}

impl Frame {
    fn around(offset: u64, geometry: &Geometry) -> Frame {
        let unit = match geometry {
            Geometry::Striped { unit, .. } => Some(*unit).filter(|u| *u > 0),
            _ => None,
        };
        let grid = unit.unwrap_or(EXTENT_BYTES);
        // From sector 0, unless the offset is far in: then from a boundary before it, the bytes
        // before it left out (and said so).
        let start = if offset > 8 * grid { (offset / grid).saturating_sub(1) * grid } else { 0 };
        let end = (offset + EXTENTS * EXTENT_BYTES).div_ceil(grid).max(1) * grid;
        let end = end.max(start + 2 * grid);
        Frame { unit, grid, start, end }
    }

    /// Where byte `b` is drawn.
    fn x(&self, b: u64) -> f64 {
        let span = (self.end - self.start) as f64;
        LEFT + (b.saturating_sub(self.start)) as f64 / span * (WIDTH - LEFT - RIGHT)
    }

    /// The first grid cell drawn.
    fn first(&self) -> u64 {
        self.start / self.grid
    }

    /// One past the last grid cell drawn.
    fn last(&self) -> u64 {
        self.end.div_ceil(self.grid)
    }
}

/// Stripe units, or the 64 KiB grid when the unit is unknown.
fn draw_units(svg: &mut String, f: &Frame, geometry: &Geometry) {
    let grid = f.grid;
    for k in f.first()..f.last() {
        let (a, b) = (f.x(k * grid), f.x((k + 1) * grid));
        match (geometry, f.unit) {
            (Geometry::Striped { columns, .. }, Some(_)) => {
                let class = if k % 2 == 0 { "unit even" } else { "unit odd" };
                let _ = write!(
                    svg,
                    "<rect class=\"{class}\" x=\"{a:.1}\" y=\"22\" width=\"{:.1}\" height=\"30\"/>",
                    b - a
                );
                let tag = match columns {
                    Some(c) if *c > 0 => format!("column {}", k % u64::from(*c) + 1),
                    _ => format!("unit {k}"),
                };
                if b - a > 56.0 {
                    let _ =
                        write!(svg, "<text x=\"{:.1}\" y=\"41\" class=\"tag\">{}</text>", a + 4.0, esc(&tag));
                }
            }
            _ => {
                let _ = write!(
                    svg,
                    "<rect class=\"unit unknown\" x=\"{a:.1}\" y=\"22\" width=\"{:.1}\" height=\"30\"/>",
                    b - a
                );
            }
        }
    }
}

/// The extents from the partition's start, each marked whole or split; how many are split, and
/// how many were drawn.
fn draw_extents(svg: &mut String, f: &Frame, offset: u64) -> (usize, usize) {
    let mut split = 0;
    let mut drawn = 0;
    for k in 0..EXTENTS {
        let a = offset + k * EXTENT_BYTES;
        let b = a + EXTENT_BYTES;
        if a >= f.end {
            break;
        }
        drawn += 1;
        let crosses = f.unit.map(|u| a / u != (b - 1) / u);
        let class = match crosses {
            Some(true) => "extent split",
            Some(false) => "extent whole",
            None => "extent unknown",
        };
        let (xa, xb) = (f.x(a), f.x(b.min(f.end)));
        let _ = write!(
            svg,
            "<rect class=\"{class}\" x=\"{:.1}\" y=\"92\" width=\"{:.1}\" height=\"30\"/>",
            xa + 1.0,
            (xb - xa - 2.0).max(1.0)
        );
        if crosses == Some(true) {
            split += 1;
            let _ =
                write!(svg, "<text x=\"{:.1}\" y=\"112\" class=\"mark\">×2</text>", (xa + xb) / 2.0 - 8.0);
        }
    }
    (split, drawn)
}

/// Boundaries across all bands, a crossing one in the extents' row drawn strong.
fn draw_boundaries(svg: &mut String, f: &Frame) {
    for k in f.first()..=f.last() {
        let b = k * f.grid;
        if b < f.start || b > f.end {
            continue;
        }
        let xb = f.x(b);
        let class = if f.unit.is_some() { "boundary" } else { "boundary grid" };
        let _ = write!(svg, "<line class=\"{class}\" x1=\"{xb:.1}\" y1=\"20\" x2=\"{xb:.1}\" y2=\"126\"/>");
    }
}

/// The partition's start, marked and labelled in bytes (and sectors, when it is on one).
fn draw_start(svg: &mut String, offset: u64, sector: Option<u64>, p0: f64) {
    let at = match sector {
        Some(s) if s > 0 && offset.is_multiple_of(s) => {
            format!("partition start: {} (sector {})", units::bytes(offset), offset / s)
        }
        _ => format!("partition start: {}", units::bytes(offset)),
    };
    let anchor = if p0 > WIDTH * 0.6 { "end" } else { "start" };
    let _ = write!(
        svg,
        "<line class=\"start\" x1=\"{p0:.1}\" y1=\"56\" x2=\"{p0:.1}\" y2=\"140\"/><text x=\"{p0:.1}\" y=\"156\" \
         text-anchor=\"{anchor}\" class=\"start\">{}</text></svg>",
        esc(&at)
    );
}

/// What the diagram shows, as its caption.
fn caption(geometry: &Geometry, unit: Option<u64>, offset: u64, split: usize, drawn: usize) -> String {
    match (geometry, unit) {
        (Geometry::Striped { what, .. }, Some(u)) => {
            let into = offset % u;
            let extents = straddling(offset, EXTENT_BYTES, u);
            let pages = straddling(offset, 8 * 1024, u);
            let verdict = if into == 0 {
                "The partition starts on a stripe-unit boundary: no extent or page I/O straddles two stripe units.".to_string()
            } else {
                format!(
                    "The partition starts {} past a stripe-unit boundary: {} of 64 KiB extent I/Os and {} of 8 KiB page \
                     I/Os straddle two stripe units and cost two I/Os ({split} of the {drawn} extents drawn).",
                    units::bytes(into),
                    units::percent(extents),
                    units::percent(pages)
                )
            };
            format!("{}. {verdict}", esc(what))
        }
        (Geometry::Unstriped, _) => "Nothing under this disk stripes (a single drive or a mirror): there is no \
             stripe-unit boundary to straddle. Dashed lines: the 64 KiB grid from sector 0."
            .to_string(),
        _ => "<span class=\"unknown\">The stripe unit under this partition is unknown</span> (not collected, and \
             not declared in a pack): its boundaries are not drawn and no extent is marked. Dashed lines: the \
             64 KiB grid from sector 0, the smallest stripe unit alignment guidance assumes."
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{straddling, write_diagrams};
    use spindle_core::declare::Declarations;
    use spindle_core::view::{Document, HostView};

    /// The diagrams of a host with one disk under `backing`, partitioned at `offset`.
    fn drawn(backing: serde_json::Value, raid: serde_json::Value, offset: serde_json::Value) -> String {
        let snapshot = serde_json::from_value(serde_json::json!({
            "schema_version": 1,
            "host": { "name": "h" },
            "disks": [ { "id": "d0", "number": 0, "bus": "SAS", "logical_sector_bytes": 512, "backed_by": backing } ],
            "partitions": [ { "id": "p1", "disk_id": "d0", "number": 1, "offset_bytes": offset } ],
            "raid_sets": [ raid ],
            "virtual_disks": [ { "id": "vd", "name": "SQLVDisk", "pool_id": "pool", "columns": 8, "interleave_bytes": 262144 } ]
        }))
        .unwrap();
        let doc = Document { path: "h.json".into(), text: String::new(), snapshot };
        let view = HostView::build(vec![doc], Declarations::default());
        let mut out = vec![];
        write_diagrams(&mut out, &view, "h").unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn extents_across_a_stripe_unit_are_marked_and_unknowns_said() {
        let raid = |unit: serde_json::Value| serde_json::json!({ "id": "r", "level": "raid5", "stripe_unit_bytes": unit, "member_ids": ["a", "b", "c"] });
        let sector63 = drawn(serde_json::json!({ "raid_set": "r" }), raid(65536.into()), 32256.into());
        assert_eq!(sector63.matches("class=\"extent split\"").count(), 6, "{sector63}");
        assert!(
            sector63.contains("(sector 63)") && sector63.contains("100 % of 64 KiB extent I/Os and 12.5 %")
        );

        let aligned = drawn(serde_json::json!({ "raid_set": "r" }), raid(65536.into()), 1048576.into());
        assert_eq!(aligned.matches("class=\"extent whole\"").count(), 6, "{aligned}");
        assert!(!aligned.contains("extent split"));

        let unknown =
            drawn(serde_json::json!({ "raid_set": "r" }), raid(serde_json::Value::Null), 32256.into());
        assert!(unknown.contains("stripe unit under this partition is unknown"), "{unknown}");
        assert_eq!(unknown.matches("class=\"extent unknown\"").count(), 6);
        assert!(!unknown.contains("extent split") && !unknown.contains("extent whole"));

        let no_offset =
            drawn(serde_json::json!({ "raid_set": "r" }), raid(65536.into()), serde_json::Value::Null);
        assert!(no_offset.contains("was not collected") && !no_offset.contains("<svg"), "{no_offset}");

        let space = drawn(serde_json::json!({ "virtual_disk": "vd" }), raid(65536.into()), 1048576.into());
        assert!(space.contains(">column 1<") && space.contains(">column 5<"), "{space}");
        assert!(space.contains("interleave 256 KiB, 8 columns"), "{space}");
    }

    #[test]
    fn sector_63_on_a_64k_stripe_unit() {
        assert_eq!(straddling(32_256, 65_536, 65_536), 1.0);
        assert_eq!(straddling(32_256, 8_192, 65_536), 0.125);
        assert_eq!(straddling(1_048_576, 65_536, 65_536), 0.0);
        assert_eq!(straddling(1_048_576, 65_536, 262_144), 0.0);
        assert_eq!(straddling(0, 131_072, 65_536), 1.0);
    }
}
