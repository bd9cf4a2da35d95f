use spindle_core::declare_rule;
use spindle_core::facts::{FileType, Growth};
use spindle_core::finding::Quantity;
use spindle_core::params::NoParams;
use spindle_core::rule::Ctx;
use spindle_core::units;

use super::tsql;

declare_rule! {
    /// ## What it checks
    /// No data or log file grows by a percentage of its size (`is_percent_growth = 1` in
    /// `sys.master_files`). When the file's size is known, the message gives the next growth in
    /// bytes (size × percent) and the one after it.
    ///
    /// ## Example
    /// A 50 GiB data file left at the old 10 % default:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql40", "os_family": "windows" },
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "ERP", "files": [
    ///         { "type": "rows", "logical_name": "ERP_Data", "physical_name": "E:\\Data\\ERP.mdf",
    ///           "size_bytes": 53687091200, "growth": { "percent": 10 } }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning GRW001 sql40 › MSSQLSERVER › ERP › ERP_Data (E:\Data\ERP.mdf) [/sql_instances/0/databases/0/files/0/growth]
    ///   grows by 10 % of its size: at 53,687,091,200 B (50 GiB) the next growth is about 5,368,709,120 B (5 GiB), the one after about 5,905,580,032 B (5.5 GiB); each growth is larger than the last
    ///   measured: 10 %; expected: a fixed increment in bytes (64 MiB or more)
    /// ```
    ///
    /// ## Why it matters
    /// A percentage grows with the file: 10 % of a 1 GiB file is about 102 MiB, 10 % of a
    /// 500 GiB file is 50 GiB, and each growth is larger than the last. The transaction that
    /// triggers a growth waits for it. Without instant file initialization (GRW003) SQL Server
    /// writes zeros over every new byte of a data file first, and it always does for log files
    /// (SQL Server 2022 excepts log growths of 64 MB or less): at 140 MB/s, what a published
    /// test measured for sequential writes to a RAID 10 LUN over two 1 Gb/s iSCSI paths, a
    /// 50 GiB growth is six minutes of blocked writes. A large percentage
    /// growth can also claim the last free space of the volume at once, where a fixed increment
    /// would have left room to react.
    ///
    /// ## How to fix
    /// Give the file a fixed increment in megabytes (64 MB or more; GRW002):
    /// ```sql
    /// ALTER DATABASE [Sales] MODIFY FILE (NAME = N'Sales_Data', FILEGROWTH = 256MB);
    /// ```
    /// The suggestion in each finding is the next percentage growth rounded down to a multiple
    /// of 64 MiB, kept between 64 MiB and 1 GiB (at 140 MB/s, zeroing 1 GiB takes about 8 s).
    /// Change `model` too, or every new database inherits the percentage. Size files ahead of
    /// need so that autogrowth is the exception, and turn on instant file initialization for
    /// data files (GRW003).
    ///
    /// ## References
    /// - Microsoft, "Considerations for the autogrow and autoshrink settings in SQL Server":
    ///   <https://learn.microsoft.com/troubleshoot/sql/database-engine/database-file-operations/considerations-autogrow-autoshrink>
    /// - Microsoft Learn, "ALTER DATABASE File and Filegroup options" (`FILEGROWTH`):
    ///   <https://learn.microsoft.com/sql/t-sql/statements/alter-database-transact-sql-file-and-filegroup-options>
    /// - sp_Blitz check 82 ("File growth set to percent"):
    ///   <https://github.com/BrentOzarULTD/SQL-Server-First-Responder-Kit/blob/main/Documentation/sp_Blitz_Checks_by_Priority.md>
    /// - SQL Server Assessment API (rule `FilesAutogrowth`):
    ///   <https://learn.microsoft.com/sql/tools/sql-assessment-api/sql-assessment-api-overview>
    pub static NO_PERCENT_GROWTH = {
        code: "GRW001",
        name: "no-percent-growth",
        severity: Warning,
        summary: "No database file grows by a percentage",
        since: "0.1.0",
        impact: Configuration,
        remedy: [FixedGrowth(NextPercentGrowth)],
        needs: [DatabaseFiles],
        params: [],
        check: check,
    }
}

/// The growth SQL Server will add next: `size × percent / 100`.
pub(crate) fn next_growth(size_bytes: u64, percent: u32) -> u64 {
    (u128::from(size_bytes) * u128::from(percent) / 100).min(u128::from(u64::MAX)) as u64
}

/// A fixed increment to suggest in place of a percentage: the next growth rounded down to a
/// multiple of 64 MiB, between 64 MiB and 1 GiB.
pub(crate) fn suggested_mib(next: Option<u64>) -> u64 {
    next.map_or(64, |n| (n >> 20) / 64 * 64).clamp(64, 1024)
}

fn check(cx: &mut Ctx<'_, NoParams>) {
    let view = cx.view;
    for (db, f) in view.files() {
        if !matches!(f.file_type, FileType::Rows | FileType::Log) {
            continue;
        }
        cx.judged(f);
        let Some(growth) = cx.need(f, "growth", f.growth) else { continue };
        // A 0 % growth never grows: there is no growth to get larger.
        let Growth::Percent(percent) = growth else { continue };
        if percent == 0 {
            continue;
        }
        let share = units::percent(f64::from(percent) / 100.0);
        let next = f.size_bytes.map(|size| next_growth(size, percent));
        let message = match (f.size_bytes, next) {
            (Some(size), Some(next)) => {
                let after = next_growth(size.saturating_add(next), percent);
                format!(
                    "grows by {share} of its size: at {} the next growth is about {}, the one after about {}; each growth is larger than the last",
                    units::bytes(size),
                    units::bytes(next),
                    units::bytes(after)
                )
            }
            _ => format!(
                "grows by {share} of its size, so each growth is larger than the last (size_bytes not collected: the next growth cannot be computed)"
            ),
        };
        let mib = suggested_mib(next);
        let fix = format!(
            "{} (a fixed {}: the next growth rounded down to a multiple of 64 MiB, between 64 MiB and 1 GiB)",
            tsql::set_filegrowth(&db.db.name, &f.logical_name, mib),
            units::binary(mib << 20)
        );
        cx.report(f, "growth", message)
            .values(share, "a fixed increment in bytes (64 MiB or more)")
            .quantities(Quantity::percent(f64::from(percent)), None)
            .fix(fix);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_growth_is_size_times_percent() {
        assert_eq!(next_growth(50 << 30, 10), 5 << 30);
        assert_eq!(next_growth(1 << 30, 10), 107_374_182);
        assert_eq!(next_growth(u64::MAX, 100), u64::MAX);
    }

    #[test]
    fn suggestion_is_clamped() {
        assert_eq!(suggested_mib(None), 64);
        assert_eq!(suggested_mib(Some(10 << 20)), 64);
        assert_eq!(suggested_mib(Some(200 << 20)), 192);
        assert_eq!(suggested_mib(Some(5 << 30)), 1024);
    }

    #[test]
    fn fix_names_the_file_and_a_fixed_increment() {
        let json = r#"{"schema_version": 1, "host": {"name": "h"}, "sql_instances": [{"name": "MSSQLSERVER",
            "databases": [{"name": "O'Neil]DB", "files": [
                {"type": "rows", "logical_name": "big", "size_bytes": 53687091200, "growth": {"percent": 10}},
                {"type": "log", "logical_name": "it's_log", "size_bytes": 2147483648, "growth": {"percent": 10}},
                {"type": "rows", "logical_name": "fixed", "size_bytes": 2147483648, "growth": {"increment_bytes": 67108864}}
            ]}]}]}"#;
        let f = crate::growth::testutil::findings(&NO_PERCENT_GROWTH, json);
        assert_eq!(f.len(), 2);
        assert!(
            f[0].fix
                .starts_with("ALTER DATABASE [O'Neil]]DB] MODIFY FILE (NAME = N'big', FILEGROWTH = 1024MB);"),
            "{}",
            f[0].fix
        );
        // 10 % of 2 GiB is 204.8 MiB: 192 MiB, a multiple of 64 MiB.
        assert!(
            f[1].fix.starts_with(
                "ALTER DATABASE [O'Neil]]DB] MODIFY FILE (NAME = N'it''s_log', FILEGROWTH = 192MB);"
            ),
            "{}",
            f[1].fix
        );
    }
}
