use spindle_plugin_sdk::Ctx;
use spindle_plugin_sdk::declare_rule;
use spindle_plugin_sdk::units;

use crate::config::AcmeConfig;
use crate::files::volumes_holding;

declare_rule! {
    /// ## What it checks
    /// On a production host, every volume that holds database files (any database, any file
    /// type) has at least `min_free_percent` (30 % by default) of its size free. A host is
    /// production when its name matches one of the `production_hosts` globs of the pack's
    /// `config` table (without case; every host by default). Other hosts are not judged, and
    /// are not reported as not evaluated either: the standard does not apply to them. A volume
    /// whose size or free space was not collected is not evaluated.
    ///
    /// This is the builtin CAP001 (20 %) with Acme's production threshold; enable one or the
    /// other for a host, or both with CAP001 as the early warning of a different team.
    ///
    /// ## Why it matters
    /// Acme storage standard STD-SQL-004 §5 (example) keeps 30 % free on production database
    /// volumes: a month of growth at the fleet's observed rate plus an index rebuild of the
    /// largest table, which needs free space of about the table's size. Data and log files
    /// grow into the free space of their volume; when it runs out, a log stops every write to
    /// its database (error 9002) and a data file fails the inserts that needed room (error
    /// 1105).
    ///
    /// ## How to fix
    /// - Extend the volume after growing the LUN or virtual disk
    ///   (`Resize-Partition -DriveLetter E -Size (Get-PartitionSupportedSize -DriveLetter E).SizeMax`;
    ///   `xfs_growfs /var/opt/mssql/data` on Linux), or move a database to another volume.
    /// - Remove what is not the database's: old backups, dumps, copies of files.
    /// - File an exception (a waiver in the pack, with an expiry date) when the volume is being
    ///   replaced.
    ///
    /// ## References
    /// - Acme storage standard STD-SQL-004 §5 (example): free space on production volumes.
    /// - dbachecks `DiskCapacity` check (20 % free), spindle's builtin CAP001.
    pub static PRODUCTION_FREE_SPACE = {
        code: "ACM003",
        name: "production-free-space",
        severity: Warning,
        summary: "Production volumes holding database files keep at least 30 % free",
        needs: [Volumes, DatabaseFiles],
        params: ProductionFreeSpaceParams {
            min_free_percent: { kind: Percent, default: Num(30.0), doc: "Least share of a production volume's size that must be free." },
        },
        check: check,
    }
}

fn check(cx: &mut Ctx<'_, ProductionFreeSpaceParams>) {
    let cfg = AcmeConfig::current();
    if !cfg.is_production(cx.view.host_name()) {
        return;
    }
    let min_percent = cx.params.min_free_percent;
    let min_shown = units::percent(min_percent / 100.0);
    for held in volumes_holding(cx, |_, _| true) {
        let v = held.volume;
        let Some(size) = cx.need(v, "size_bytes", v.size_bytes) else { continue };
        let Some(free) = cx.need(v, "free_bytes", v.free_bytes) else { continue };
        if size == 0 {
            cx.not_evaluated_because(v, "size_bytes", "the collector reported a size of 0 bytes");
            continue;
        }
        if units::at_least_percent(free, size, min_percent) {
            continue;
        }
        // Rounded down, so a share just below the minimum never shows as the minimum.
        let share = format!("{:.1} %", (free as f64 * 1000.0 / size as f64).floor() / 10.0);
        let message = format!(
            "production volume {} has {} free of {} ({share}), below the {min_shown} STD-SQL-004 §5 \
             asks for; it holds {}",
            v.display_name(),
            units::binary(free),
            units::binary(size),
            held.describe(),
        );
        cx.report(v, "free_bytes", message).values(
            format!("{} free of {} ({share})", units::bytes(free), units::bytes(size)),
            format!("at least {min_shown} free"),
        );
    }
}
