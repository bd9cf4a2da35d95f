//! Every numeric threshold of the builtin rules, at the boundary and just past it, against what
//! the rule's docs say. Each case names the words of the docs it relies on, and the test checks
//! the docs still say them: a rule whose docs and code disagree fails here, whichever changed.
//!
//! A case's snapshot holds one judged entity; its verdict is the most severe finding, `Pass`
//! when there is none. A not-evaluated entry fails the case (a pass must be a judgement), and a
//! not-applicable one is the `NotApplicable` verdict.

use serde_json::{Value, json};
use spindle_core::date::Date;
use spindle_core::declare::Declarations;
use spindle_core::engine::{ActiveRule, HostReport, check_host};
use spindle_core::finding::Severity;
use spindle_core::load::parse_snapshot;
use spindle_core::params::{ParamValue, Params};
use spindle_core::view::HostView;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Pass,
    NotApplicable,
    Note,
    Warning,
    Error,
}
use Verdict::*;

struct Case {
    code: &'static str,
    name: &'static str,
    /// Words of the rule's docs that promise this verdict.
    doc: &'static str,
    snapshot: Value,
    params: Vec<(&'static str, f64)>,
    expected: Verdict,
}

fn case(
    code: &'static str,
    name: &'static str,
    doc: &'static str,
    snapshot: Value,
    expected: Verdict,
) -> Case {
    Case { code, name, doc, snapshot, params: vec![], expected }
}

/// Runs rule `code` alone, with `params` over its defaults, on `snapshot` (given a schema
/// version, and a Windows host named `h` unless it names one).
fn run(code: &str, snapshot: &Value, params: &[(&str, f64)]) -> Result<HostReport, String> {
    let rules = spindle_rules::all();
    let rule = rules.iter().find(|r| r.meta.code == code).ok_or("no such rule")?;
    let mut values = Params::defaults(rule.meta.params);
    for (name, value) in params {
        values.set(name, ParamValue::Num(*value));
    }
    let active =
        [ActiveRule { rule: *rule, code: code.into(), severity: rule.meta.severity, params: values }];
    let mut snapshot = snapshot.clone();
    snapshot["schema_version"] = json!(1);
    if snapshot.get("host").is_none() {
        snapshot["host"] = json!({"name": "h", "os_family": "windows"});
    }
    let doc = parse_snapshot("case.json", snapshot.to_string()).map_err(|e| e.to_string())?;
    let view = HostView::build(vec![doc], Declarations::default());
    Ok(check_host(&active, &view, &[], Date::parse("2026-01-01").unwrap()))
}

fn verdict(c: &Case) -> Result<Verdict, String> {
    let report = run(c.code, &c.snapshot, &c.params)?;
    if !report.errors.is_empty() || !report.not_evaluated.is_empty() {
        return Err(format!("not judged: {:?} {:?}", report.errors, report.not_evaluated));
    }
    let worst = report.findings.iter().map(|f| f.severity).max();
    Ok(match worst {
        Some(Severity::Error) => Error,
        Some(Severity::Warning) => Warning,
        Some(_) => Note,
        None if !report.not_applicable.is_empty() => NotApplicable,
        None => Pass,
    })
}

/// Runs every case of `cases`, then fails listing each one whose verdict, or whose docs,
/// differ from what it expects.
fn check(cases: Vec<Case>) {
    let rules = spindle_rules::all();
    let mut wrong = vec![];
    for c in &cases {
        let docs = rules.iter().find(|r| r.meta.code == c.code).map(|r| r.meta.docs()).unwrap_or_default();
        // Docs wrap lines; compare with whitespace collapsed.
        let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        if !flat(&docs).contains(&flat(c.doc)) {
            wrong.push(format!("{} {}: the docs no longer say {:?}", c.code, c.name, c.doc));
        }
        match verdict(c) {
            Ok(v) if v == c.expected => {}
            got => wrong.push(format!("{} {}: expected {:?}, got {got:?}", c.code, c.name, c.expected)),
        }
    }
    assert!(wrong.is_empty(), "{} of {} cases wrong:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
}

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const GIB: u64 = 1024 * MIB;

// ---- ALN: offsets, stripe units, clusters, sectors ----

/// A partition at `offset` on a disk exposed by a hardware RAID set with `unit` stripe unit
/// (`None`: not collected) of `kind`, with 4,096-byte physical sectors.
fn partition_on(offset: u64, kind: &str, unit: Option<u64>) -> Value {
    json!({
        "disks": [{"id": "d", "number": 1, "physical_sector_bytes": 4096, "logical_sector_bytes": 512,
                   "backed_by": {"raid_set": "r"}}],
        "raid_sets": [{"id": "r", "kind": kind, "level": "raid0", "stripe_unit_bytes": unit}],
        "partitions": [{"id": "p", "disk_id": "d", "number": 1, "offset_bytes": offset}]
    })
}

#[test]
fn alignment() {
    let hw = |offset, unit| partition_on(offset, "hardware", Some(unit));
    let dynamic = |offset| partition_on(offset, "dynamic", None);
    let every = "Every partition starts at a multiple of `alignment_bytes` (64 KiB by default)";
    let whole = "`partition_offset ÷ stripe_unit` is an integer";
    let sector = "Every partition starts at a multiple of its disk's physical sector size";
    check(vec![
        case("ALN001", "64 KiB", every, hw(64 * KIB, 64 * KIB), Pass),
        case("ALN001", "64 KiB + 4 KiB", every, hw(68 * KIB, 64 * KIB), Error),
        case("ALN001", "60 KiB", every, hw(60 * KIB, 64 * KIB), Error),
        case("ALN001", "sector 63", every, hw(32_256, 64 * KIB), Error),
        case("ALN001", "2 MiB", "2 MiB or 16 MiB offsets are all aligned", hw(2 * MIB, 64 * KIB), Pass),
        case("ALN002", "8 stripe units", whole, hw(2 * MIB, 256 * KIB), Pass),
        case("ALN002", "8.25 stripe units", whole, hw(2 * MIB + 64 * KIB, 256 * KIB), Error),
        case(
            "ALN002",
            "64 KiB on 256 KiB",
            "64 KiB on a 256 KiB interleave fails",
            hw(64 * KIB, 256 * KIB),
            Error,
        ),
        case("ALN002", "dynamic: 1 × 64 KiB", whole, dynamic(64 * KIB), Pass),
        case("ALN002", "dynamic: sector 63", whole, dynamic(32_256), Error),
        case("ALN004", "1 MiB", sector, hw(MIB, 64 * KIB), Pass),
        case("ALN004", "1 MiB + 512 B", sector, hw(MIB + 512, 512), Error),
        case("ALN004", "4 KiB", sector, hw(4 * KIB, 4 * KIB), Pass),
        case("ALN004", "sector 63", sector, hw(32_256, 512), Error),
    ]);
}

/// A volume with `au` clusters on a RAID set of `kind` with `unit` stripe unit.
fn volume_on(au: u64, kind: &str, unit: Option<u64>) -> Value {
    json!({
        "raid_sets": [{"id": "r", "kind": kind, "level": "raid10", "stripe_unit_bytes": unit}],
        "volumes": [{"id": "v", "mount_points": ["E:\\"], "filesystem": "NTFS", "allocation_unit_bytes": au,
                     "backed_by": {"raid_set": "r"}}]
    })
}

/// A volume with `au` clusters on a striped LVM volume with `unit` stripe unit.
fn volume_on_lvm(au: u64, unit: u64) -> Value {
    json!({"volumes": [{"id": "/dev/dm-0", "mount_points": ["/var/opt/mssql/data"], "filesystem": "xfs",
        "allocation_unit_bytes": au,
        "backed_by": {"lvm": {"name": "vg/lv", "stripes": 4, "stripe_unit_bytes": unit, "devices": ["a", "b", "c", "d"]}}}]})
}

#[test]
fn stripe_unit_and_allocation_unit() {
    let doc = "`stripe_unit ÷ allocation_unit` is an integer";
    let hw = |au, unit| volume_on(au, "hardware", Some(unit));
    check(vec![
        case("ALN003", "64 KiB on 64 KiB", doc, hw(64 * KIB, 64 * KIB), Pass),
        case("ALN003", "64 KiB on 256 KiB", doc, hw(64 * KIB, 256 * KIB), Pass),
        case(
            "ALN003",
            "64 KiB on 96 KiB",
            "a 64 KiB cluster on a 16 KiB or 96 KiB stripe unit fails",
            hw(64 * KIB, 96 * KIB),
            Error,
        ),
        case("ALN003", "64 KiB on 32 KiB", doc, hw(64 * KIB, 32 * KIB), Error),
        case("ALN003", "64 KiB on a dynamic set", doc, volume_on(64 * KIB, "dynamic", None), Pass),
        case("ALN003", "128 KiB on a dynamic set", doc, volume_on(128 * KIB, "dynamic", None), Error),
        case("ALN003", "4 KiB on a 512 KiB LVM stripe", doc, volume_on_lvm(4 * KIB, 512 * KIB), Pass),
        case("ALN003", "64 KiB on a 16 KiB LVM stripe", doc, volume_on_lvm(64 * KIB, 16 * KIB), Error),
    ]);
}

// ---- CAP, FMT: free space and clusters of the volumes holding files ----

/// A volume `E:\` with `size` and `free` bytes and `au` clusters, holding a data file.
fn db_volume(size: u64, free: u64, au: u64) -> Value {
    json!({
        "volumes": [{"id": "v", "mount_points": ["E:\\"], "filesystem": "NTFS", "allocation_unit_bytes": au,
                     "size_bytes": size, "free_bytes": free, "os_volume": false, "temp_disk": false}],
        "sql_instances": [{"name": "MSSQLSERVER", "databases": [{"name": "Sales", "files": [
            {"type": "rows", "logical_name": "Sales_Data", "physical_name": "E:\\Sales.mdf"}]}]}]
    })
}

#[test]
fn free_space_and_clusters() {
    let tb = 1_000_000_000_000;
    let free = "Exactly 20 % passes";
    let cluster = "uses an allocation unit (cluster) of `allocation_unit_bytes`, 64 KiB by default";
    check(vec![
        case("CAP001", "20 % free", free, db_volume(tb, tb / 5, 64 * KIB), Pass),
        case("CAP001", "20 % free less a byte", free, db_volume(tb, tb / 5 - 1, 64 * KIB), Warning),
        case("CAP001", "21 % free", free, db_volume(tb, tb / 100 * 21, 64 * KIB), Pass),
        case("FMT001", "64 KiB", cluster, db_volume(tb, tb / 2, 64 * KIB), Pass),
        case("FMT001", "32 KiB", cluster, db_volume(tb, tb / 2, 32 * KIB), Warning),
        case("FMT001", "128 KiB", "more than 64 KiB brings nothing", db_volume(tb, tb / 2, 128 * KIB), Note),
    ]);
}

// ---- GRW: growth increments ----

fn growing(size: u64, growth: Value) -> Value {
    json!({"sql_instances": [{"name": "MSSQLSERVER", "databases": [{"name": "Sales", "files": [
        {"type": "rows", "logical_name": "Sales_Data", "size_bytes": size, "growth": growth}]}]}]})
}

#[test]
fn growth() {
    let inc = |b: u64| json!({"increment_bytes": b});
    let min = "grows by at least `min_growth_bytes` (64 MiB)";
    let tiny = "not by `tiny_growth_bytes` (1 MiB) or less once the file is over `large_file_bytes` (1 GiB)";
    let page = 8 * KIB;
    let alone = |mut c: Case| {
        // The 1 MiB check stands on its own: with the general minimum off.
        c.params.push(("min_growth_bytes", 0.0));
        c
    };
    check(vec![
        case("GRW002", "64 MiB", min, growing(10 * GIB, inc(64 * MIB)), Pass),
        case("GRW002", "64 MiB less a page", min, growing(10 * GIB, inc(64 * MIB - page)), Warning),
        alone(case("GRW002", "1 MiB on exactly 1 GiB", tiny, growing(GIB, inc(MIB)), Pass)),
        alone(case("GRW002", "1 MiB on 1 GiB and a page", tiny, growing(GIB + page, inc(MIB)), Warning)),
        alone(case("GRW002", "1 MiB and a page on 10 GiB", tiny, growing(10 * GIB, inc(MIB + page)), Pass)),
        case(
            "GRW001",
            "1 %",
            "No data or log file grows by a percentage of its size",
            growing(10 * GIB, json!({"percent": 1})),
            Warning,
        ),
        case(
            "GRW001",
            "fixed",
            "No data or log file grows by a percentage of its size",
            growing(10 * GIB, inc(64 * MIB)),
            Pass,
        ),
    ]);
}

// ---- LAT: average stalls ----

/// One file of `kind` with `count` reads (or writes, for a log) stalling `stall_ms` in all, on
/// `E:\`, a volume on one disk of `media` (`rpm` for an HDD).
fn stalled(kind: &str, count: u64, stall_ms: u64, media: &str, rpm: u32) -> Value {
    let io = if kind == "log" {
        json!({"num_of_reads": 0, "num_of_writes": count, "num_of_bytes_read": 0, "num_of_bytes_written": count * 8192,
               "io_stall_read_ms": 0, "io_stall_write_ms": stall_ms, "sample_ms": 300_000})
    } else {
        json!({"num_of_reads": count, "num_of_writes": 0, "num_of_bytes_read": count * 8192, "num_of_bytes_written": 0,
               "io_stall_read_ms": stall_ms, "io_stall_write_ms": 0, "sample_ms": 300_000})
    };
    json!({
        "host": {"name": "h", "os_family": "windows", "is_virtual": false},
        "disks": [{"id": "d", "number": 1, "media": media, "rpm": rpm}],
        "partitions": [{"id": "p", "disk_id": "d", "number": 1, "offset_bytes": MIB}],
        "volumes": [{"id": "v", "mount_points": ["E:\\"], "backed_by": {"partitions": ["p"]}}],
        "sql_instances": [{"name": "MSSQLSERVER", "databases": [{"name": "Sales", "files": [
            {"type": kind, "logical_name": "f", "physical_name": "E:\\f", "io": io}]}]}]
    })
}

#[test]
fn latency() {
    let data = |count, stall| stalled("rows", count, stall, "ssd", 0);
    let log = |count, stall| stalled("log", count, stall, "ssd", 0);
    let read_warn = "a warning above 20 ms";
    let read_error = "an error from 100 ms";
    let write_warn = "a warning from 5 ms";
    let write_error = "an error from 20 ms";
    check(vec![
        // LAT001: a data read should take 20 ms or less.
        case("LAT001", "20 ms", read_warn, data(1000, 20_000), Pass),
        case("LAT001", "20.001 ms", read_warn, data(1000, 20_001), Warning),
        case("LAT001", "99.999 ms", read_error, data(1000, 99_999), Warning),
        case("LAT001", "100 ms", read_error, data(1000, 100_000), Error),
        case(
            "LAT001",
            "999 reads",
            "fewer than `min_reads` reads (1,000) is not judged",
            data(999, 999_000),
            NotApplicable,
        ),
        case(
            "LAT001",
            "1,000 reads",
            "fewer than `min_reads` reads (1,000) is not judged",
            data(1000, 1_000_000),
            Error,
        ),
        // LAT002: a log write warns from 5 ms, errs from 20 ms.
        case("LAT002", "4.999 ms", write_warn, log(1000, 4_999), Pass),
        case("LAT002", "5 ms", write_warn, log(1000, 5_000), Warning),
        case("LAT002", "19.999 ms", write_error, log(1000, 19_999), Warning),
        case("LAT002", "20 ms", write_error, log(1000, 20_000), Error),
        case(
            "LAT002",
            "999 writes",
            "fewer than `min_writes` writes (1,000) is not judged",
            log(999, 99_900),
            NotApplicable,
        ),
        // LAT003: more than 4 × the media's floor; averages under 5 ms are not judged.
        case(
            "LAT003",
            "4 × 7.7 ms",
            "more than `factor` (4) times the floor",
            stalled("rows", 1000, 30_800, "hdd", 10_000),
            Pass,
        ),
        case(
            "LAT003",
            "4 × 7.7 ms + 1 µs",
            "more than `factor` (4) times the floor",
            stalled("rows", 1000, 30_801, "hdd", 10_000),
            Warning,
        ),
        case(
            "LAT003",
            "4 × 5.4 ms",
            "more than `factor` (4) times the floor",
            stalled("rows", 1000, 21_600, "hdd", 15_000),
            Pass,
        ),
        case(
            "LAT003",
            "4.999 ms on SSD",
            "Not judged: averages below `min_stall_ms` (5 ms",
            data(1000, 4_999),
            Pass,
        ),
        case("LAT003", "5 ms on SSD", "5 ms itself is judged", data(1000, 5_000), Warning),
    ]);
}

// ---- PLC005: tempdb data files ----

fn tempdb(cpus: u32, files: usize) -> Value {
    let files: Vec<Value> = (0..files)
        .map(|i| {
            json!({"type": "rows", "logical_name": format!("temp{i}"), "physical_name": format!("T:\\temp{i}.ndf"),
                   "size_bytes": 8 * GIB, "growth": {"increment_bytes": 512 * MIB}})
        })
        .collect();
    json!({"sql_instances": [{"name": "MSSQLSERVER", "cpu_count": cpus,
        "databases": [{"name": "tempdb", "files": files}]}]})
}

#[test]
fn tempdb_files() {
    let per_cpu = "one data file per logical CPU: exactly as many files as CPUs";
    let above = "so 12, 16 or 20 files pass and fewer than 8, or 10, is a finding";
    check(vec![
        case("PLC005", "4 CPUs, 4 files", per_cpu, tempdb(4, 4), Pass),
        case("PLC005", "4 CPUs, 3 files", per_cpu, tempdb(4, 3), Warning),
        case("PLC005", "4 CPUs, 5 files", per_cpu, tempdb(4, 5), Warning),
        case("PLC005", "8 CPUs, 8 files", per_cpu, tempdb(8, 8), Pass),
        case("PLC005", "8 CPUs, 9 files", per_cpu, tempdb(8, 9), Warning),
        case("PLC005", "16 CPUs, 8 files", above, tempdb(16, 8), Pass),
        case("PLC005", "16 CPUs, 7 files", above, tempdb(16, 7), Warning),
        case("PLC005", "16 CPUs, 10 files", above, tempdb(16, 10), Warning),
        case("PLC005", "16 CPUs, 12 files", above, tempdb(16, 12), Pass),
        case("PLC005", "16 CPUs, 20 files", above, tempdb(16, 20), Pass),
    ]);
}

// ---- STR: columns, interleave, log striping, stripe units ----

/// A virtual disk of `columns` columns and `interleave` in a pool of `disks` disks, holding
/// the log of a database on `L:\`.
fn space(resiliency: &str, disks: usize, columns: u32, interleave: u64) -> Value {
    let ids: Vec<String> = (0..disks).map(|i| format!("pd{i}")).collect();
    json!({
        "storage_pools": [{"id": "pool", "name": "SQLPool", "physical_disk_ids": ids}],
        "virtual_disks": [{"id": "vd", "name": "SQLLog", "pool_id": "pool", "columns": columns,
                           "interleave_bytes": interleave, "resiliency": resiliency}],
        "volumes": [{"id": "v", "mount_points": ["L:\\"], "backed_by": {"virtual_disk": "vd"}}],
        "sql_instances": [{"name": "MSSQLSERVER", "databases": [{"name": "Sales", "files": [
            {"type": "log", "logical_name": "Sales_Log", "physical_name": "L:\\Sales_log.ldf"}]}]}]
    })
}

fn raid(kind: &str, level: &str, unit: Option<u64>) -> Value {
    json!({"raid_sets": [{"id": "r", "kind": kind, "level": level, "stripe_unit_bytes": unit}]})
}

fn lvm(stripes: u32, unit: Option<u64>) -> Value {
    json!({"raid_sets": [], "volumes": [{"id": "/dev/dm-0", "mount_points": ["/var/opt/mssql/data"],
        "backed_by": {"lvm": {"name": "vgsql/lvdata", "stripes": stripes, "stripe_unit_bytes": unit}}}]})
}

#[test]
fn striping() {
    let columns = "`NumberOfColumns` = the pool's disks for a Simple space";
    let mirror = "the pool's disks ÷ the data copies for a Mirror space";
    let interleave = "`oltp_interleave_bytes` (64 KiB) for OLTP";
    let log = "striped over at least `min_stripe_disks` disks (2) whenever the disks under it allow that";
    let unit =
        "`oltp_min_stripe_unit_bytes` to `oltp_max_stripe_unit_bytes` for OLTP (both 64 KiB by default";
    let lvm_unit = "every striped LVM logical volume";
    check(vec![
        case("STR001", "16 columns on 16 disks", columns, space("Simple", 16, 16, 64 * KIB), Pass),
        case("STR001", "15 columns on 16 disks", columns, space("Simple", 16, 15, 64 * KIB), Warning),
        case("STR001", "mirror: 8 columns on 16 disks", mirror, space("Mirror", 16, 8, 64 * KIB), Pass),
        case("STR001", "mirror: 7 columns on 16 disks", mirror, space("Mirror", 16, 7, 64 * KIB), Warning),
        case("STR002", "64 KiB", interleave, space("Simple", 4, 4, 64 * KIB), Pass),
        case("STR002", "128 KiB", interleave, space("Simple", 4, 4, 128 * KIB), Warning),
        case("STR002", "32 KiB", interleave, space("Simple", 4, 4, 32 * KIB), Warning),
        case("STR003", "2 columns of 4 disks", log, space("Simple", 4, 2, 64 * KIB), Pass),
        case("STR003", "1 column of 4 disks", log, space("Simple", 4, 1, 64 * KIB), Warning),
        case("STR003", "1 column of 1 disk", log, space("Simple", 1, 1, 64 * KIB), Pass),
        case("STR004", "64 KiB", unit, raid("hardware", "raid10", Some(64 * KIB)), Pass),
        case("STR004", "32 KiB", unit, raid("hardware", "raid10", Some(32 * KIB)), Warning),
        case("STR004", "128 KiB", unit, raid("hardware", "raid10", Some(128 * KIB)), Warning),
        case("STR004", "md 64 KiB", unit, raid("md", "raid5", Some(64 * KIB)), Pass),
        case("STR004", "md 512 KiB", unit, raid("md", "raid5", Some(512 * KIB)), Warning),
        case("STR004", "dynamic", "always uses 64 KiB", raid("dynamic", "raid0", None), Pass),
        case("STR004", "md linear", "linear or spanned sets", raid("md", "linear", None), Pass),
        case("STR004", "LVM 64 KiB", lvm_unit, lvm(4, Some(64 * KIB)), Pass),
        case("STR004", "LVM 512 KiB", lvm_unit, lvm(4, Some(512 * KIB)), Warning),
        case("STR004", "LVM linear", "linear logical volumes do not stripe", lvm(1, None), Pass),
    ]);
}

/// LAT002 warns from 5 ms, inside bands the general scale calls "very good" and "good": its
/// message must not call a value it warns about good.
#[test]
fn a_warned_log_write_is_never_called_good() {
    for stall_ms in [5_000, 5_500, 6_000, 8_000, 12_500, 15_999, 16_000, 19_999] {
        let report = run("LAT002", &stalled("log", 1000, stall_ms, "ssd", 0), &[]).unwrap();
        let [finding] = report.findings.as_slice() else { panic!("{stall_ms}: {:?}", report.findings) };
        let message = finding.message.to_lowercase();
        assert!(!message.contains("good") && !message.contains("excellent"), "{}", finding.message);
        assert!(message.contains("warning threshold"), "{}", finding.message);
    }
}
