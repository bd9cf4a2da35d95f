use spindle_core::declare_rule;
use spindle_core::facts::{FileType, Growth};
use spindle_core::finding::Quantity;
use spindle_core::rule::Ctx;
use spindle_core::units;

use super::tsql;

declare_rule! {
    /// ## What it checks
    /// Every data and log file that grows by a fixed increment grows by at least
    /// `min_growth_bytes` (64 MiB), and specifically not by `tiny_growth_bytes` (1 MiB) or less
    /// once the file is over `large_file_bytes` (1 GiB): sp_Blitz's "File growth set to 1MB".
    /// The second check stands on its own, so a pack that lowers `min_growth_bytes` still
    /// catches 1 MiB growths on large files. Files that do not grow (`FILEGROWTH = 0`) are not
    /// findings here, and percentage growth is GRW001's.
    ///
    /// Everything is in bytes: the snapshot's `growth` already converts `sys.master_files`'
    /// 8 KiB pages, so 1 MiB is 128 pages and 1,048,576 bytes. (dbachecks' `FileGrowthValue`
    /// mixes the two and multiplies a KB value by 8.)
    ///
    /// ## Example
    /// A 50 GiB data file that grows by 1 MiB:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql50", "os_family": "windows" },
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "ERP", "files": [
    ///         { "type": "rows", "logical_name": "ERP_Hist",
    ///           "physical_name": "E:\\Data\\ERP_hist.ndf",
    ///           "size_bytes": 53687091200, "growth": { "increment_bytes": 1048576 } }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning GRW002 sql50 › MSSQLSERVER › ERP › ERP_Hist (E:\Data\ERP_hist.ndf) [/sql_instances/0/databases/0/files/0/growth]
    ///   grows by 1,048,576 B (1 MiB) at a time on a file over 1 GiB; the file is 53,687,091,200 B (50 GiB), and gaining 1 GiB takes 1,024 growths
    ///   measured: 1,048,576 B (1 MiB); expected: at least 64 MiB
    /// ```
    ///
    /// ## Why it matters
    /// Each growth stops the transaction that triggered it, and a small increment means many of
    /// them: a file growing by 1 MiB needs 1,024 growths to gain 1 GiB, each one extending the
    /// file in a new piece of the volume (fragmenting it) and, for data files without instant
    /// file initialization and for every log file, zero-writing the new space first. On a log
    /// file each growth also adds virtual log files; thousands of small ones slow recovery,
    /// restores and log backups. 64 MiB is the floor of the public autogrowth guidance (sp_Blitz,
    /// dbachecks, the SQL Assessment API) and the increment dbatools' `Set-DbaDbFileGrowth` sets
    /// by default.
    ///
    /// ## How to fix
    /// Set a larger fixed increment:
    /// ```sql
    /// ALTER DATABASE [Sales] MODIFY FILE (NAME = N'Sales_Data', FILEGROWTH = 64MB);
    /// ```
    /// or with dbatools: `Set-DbaDbFileGrowth -SqlInstance sql01 -Database Sales -GrowthType MB -Growth 64`.
    /// Larger files that grow fast deserve larger increments (256 MB to 1 GB), with instant
    /// file initialization on for data files (GRW003). Better still, size the file for the
    /// next year so that autogrowth is the safety net, not the plan.
    ///
    /// ## References
    /// - sp_Blitz check 158 ("File growth set to 1MB", on files of about 1 GB and more):
    ///   <https://github.com/BrentOzarULTD/SQL-Server-First-Responder-Kit/blob/main/Documentation/sp_Blitz_Checks_by_Priority.md>
    /// - dbachecks `FileGrowthValue` (and its pages-vs-KB slip):
    ///   <https://github.com/dataplat/dbachecks>
    /// - dbatools `Set-DbaDbFileGrowth` (64 MB by default): <https://docs.dbatools.io/Set-DbaDbFileGrowth>
    /// - Microsoft, "Considerations for the autogrow and autoshrink settings in SQL Server":
    ///   <https://learn.microsoft.com/troubleshoot/sql/database-engine/database-file-operations/considerations-autogrow-autoshrink>
    pub static GROWTH_INCREMENT = {
        code: "GRW002",
        name: "growth-increment",
        severity: Warning,
        summary: "Fixed file growth is at least 64 MiB",
        since: "0.1.0",
        impact: Configuration,
        remedy: [FixedGrowth(ExpectedIncrement)],
        needs: [DatabaseFiles],
        params: GrowthIncrementParams {
            min_growth_bytes: { kind: Bytes, default: Num(67108864.0), doc: "Smallest fixed growth increment accepted for any data or log file." },
            tiny_growth_bytes: { kind: Bytes, default: Num(1048576.0), doc: "A growth of this much or less is reported on files larger than large_file_bytes, whatever min_growth_bytes says." },
            large_file_bytes: { kind: Bytes, default: Num(1073741824.0), doc: "Size above which a growth of tiny_growth_bytes or less is reported." },
        },
        check: check,
    }
}

/// What is wrong with a fixed increment, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Fine,
    /// Below `min_growth_bytes`.
    Small,
    /// At most `tiny_growth_bytes` on a file over `large_file_bytes` (whether or not also small).
    TinyOnLarge,
    /// The increment is tiny, and whether the file is large is unknown.
    NeedSize,
}

fn judge(increment: u64, size: Option<u64>, min: u64, tiny: u64, large: u64) -> Verdict {
    let small = increment < min;
    if increment <= tiny {
        match size {
            Some(s) if s > large => return Verdict::TinyOnLarge,
            None if !small => return Verdict::NeedSize,
            _ => {}
        }
    }
    if small { Verdict::Small } else { Verdict::Fine }
}

/// How many growths of `increment` it takes to gain 1 GiB.
fn growths_per_gib(increment: u64) -> u64 {
    (1u64 << 30).div_ceil(increment.max(1))
}

fn check(cx: &mut Ctx<'_, GrowthIncrementParams>) {
    let min = cx.params.min_growth_bytes;
    let tiny = cx.params.tiny_growth_bytes;
    let large = cx.params.large_file_bytes;
    let view = cx.view;
    for (db, f) in view.files() {
        if !matches!(f.file_type, FileType::Rows | FileType::Log) {
            continue;
        }
        let Some(growth) = cx.need(f, "growth", f.growth) else { continue };
        // Disabled growth is not a finding here; percentage growth is GRW001's.
        let Growth::IncrementBytes(increment) = growth else { continue };
        if increment == 0 {
            continue;
        }
        cx.judged(f);
        // Worded only for the files that get a message: most files are fine.
        let size = || match f.size_bytes {
            Some(s) => format!("the file is {}", units::bytes(s)),
            None => "file size not collected".to_string(),
        };
        let per_gib = growths_per_gib(increment);
        let message = match judge(increment, f.size_bytes, min, tiny, large) {
            Verdict::Fine => continue,
            Verdict::NeedSize => {
                cx.not_evaluated_because(
                    f,
                    "size_bytes",
                    format!(
                        "the file grows by {}; whether it is over {} (where that is reported) needs its size",
                        units::bytes(increment),
                        units::binary(large)
                    ),
                );
                continue;
            }
            Verdict::Small => format!(
                "grows by {} at a time, below the {} minimum; {}, and gaining 1 GiB takes {} growths",
                units::bytes(increment),
                units::binary(min),
                size(),
                units::thousands(per_gib)
            ),
            Verdict::TinyOnLarge => format!(
                "grows by {} at a time on a file over {}; {}, and gaining 1 GiB takes {} growths",
                units::bytes(increment),
                units::binary(large),
                size(),
                units::thousands(per_gib)
            ),
        };
        // The minimum, unless a pack lowered it to the tiny size itself.
        let suggested = if min > tiny { min } else { 64 << 20 };
        let fix = tsql::set_filegrowth(&db.db.name, &f.logical_name, tsql::mib_ceil(suggested));
        cx.report(f, "growth", message)
            .values(units::bytes(increment), format!("at least {}", units::binary(min)))
            .quantities(Quantity::bytes(increment), Quantity::bytes(min))
            .fix(fix);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;

    #[test]
    fn verdicts() {
        assert_eq!(judge(64 * MIB, Some(10 * GIB), 64 * MIB, MIB, GIB), Verdict::Fine);
        assert_eq!(judge(64 * MIB - 1, Some(10 * GIB), 64 * MIB, MIB, GIB), Verdict::Small);
        assert_eq!(judge(MIB, Some(GIB + 1), 64 * MIB, MIB, GIB), Verdict::TinyOnLarge);
        // 1 MiB on a file of exactly 1 GiB is only small.
        assert_eq!(judge(MIB, Some(GIB), 64 * MIB, MIB, GIB), Verdict::Small);
        assert_eq!(judge(MIB, None, 64 * MIB, MIB, GIB), Verdict::Small);
        // With the general minimum lowered, the 1 MiB check still stands.
        assert_eq!(judge(MIB, Some(50 * GIB), 0, MIB, GIB), Verdict::TinyOnLarge);
        assert_eq!(judge(MIB, Some(GIB / 2), 0, MIB, GIB), Verdict::Fine);
        assert_eq!(judge(MIB, None, 0, MIB, GIB), Verdict::NeedSize);
    }

    #[test]
    fn growth_counts() {
        assert_eq!(growths_per_gib(MIB), 1024);
        assert_eq!(growths_per_gib(16 * MIB), 64);
        assert_eq!(growths_per_gib(3 * MIB), 342);
    }

    #[test]
    fn fix_sets_the_minimum() {
        let json = r#"{"schema_version": 1, "host": {"name": "h"}, "sql_instances": [{"name": "MSSQLSERVER",
            "databases": [{"name": "Sales", "files": [
                {"type": "rows", "logical_name": "Sales_Data", "size_bytes": 53687091200, "growth": {"increment_bytes": 1048576}},
                {"type": "rows", "logical_name": "Sales_Ok", "size_bytes": 53687091200, "growth": {"increment_bytes": 67108864}},
                {"type": "log", "logical_name": "Sales_Log", "size_bytes": 53687091200, "growth": "disabled"}
            ]}]}]}"#;
        let f = crate::growth::testutil::findings(&GROWTH_INCREMENT, json);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].fix, "ALTER DATABASE [Sales] MODIFY FILE (NAME = N'Sales_Data', FILEGROWTH = 64MB);");
    }
}
