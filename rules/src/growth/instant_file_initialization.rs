use spindle_core::declare_rule;
use spindle_core::facts::{FileType, Growth, OsFamily};
use spindle_core::params::NoParams;
use spindle_core::rule::Ctx;
use spindle_core::units;

use crate::commands::ps_string;

declare_rule! {
    /// ## What it checks
    /// Every SQL Server instance runs with instant file initialization
    /// (`sys.dm_server_services.instant_file_initialization_enabled = 'Y'`). An instance whose
    /// collector could not read it is not evaluated: the column came with later service packs
    /// (SQL Server 2016 SP1 and later have it), so older builds need the privilege checked in
    /// Windows instead (`whoami /priv` as the service account, or dbatools `Get-DbaPrivilege`).
    /// On a Linux host the check is not applicable: SQL Server on Linux has no such privilege
    /// and reports no setting, so there is nothing to collect. The message names the service account when it was collected, and the
    /// largest data-file growth of the instance when the growths were.
    ///
    /// ## Example
    /// An instance whose service account lacks "Perform volume maintenance tasks", with a data
    /// file that grows by 10 GiB:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql60", "os_family": "windows" },
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "instant_file_initialization": false,
    ///       "service_account": "CORP\\svc-sql60", "databases": [
    ///       { "name": "ERP", "files": [
    ///         { "type": "rows", "logical_name": "ERP_Data", "physical_name": "E:\\Data\\ERP.mdf",
    ///           "growth": { "increment_bytes": 10737418240 } }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning GRW003 sql60 › MSSQLSERVER [/sql_instances/0/instant_file_initialization]
    ///   instant file initialization is off (service account CORP\svc-sql60): every data-file growth, new data file and restore writes zeros over the new space first; the largest data-file growth here, ERP_Data's, is 10,737,418,240 B (10 GiB)
    ///   measured: off; expected: on
    /// ```
    ///
    /// ## Why it matters
    /// Without it, SQL Server writes zeros over every byte it adds to a data file before using
    /// it: on autogrowth (the transaction that triggered the growth waits), on `CREATE
    /// DATABASE`, on adding a file, and on every restore, which must zero the whole data file
    /// before copying pages into it. At 140 MB/s, what a published test measured for sequential
    /// writes to a RAID 10 LUN over two 1 Gb/s iSCSI paths, a 10 GiB growth blocks for over a minute and restoring a 1 TiB database spends two hours
    /// writing zeros first. With the privilege, Windows hands SQL Server the space at once. Log
    /// files are zeroed either way (SQL Server 2022 excepts log growths of 64 MB or less), and
    /// a database with transparent data encryption cannot use it.
    ///
    /// ## How to fix
    /// Grant the SQL Server service account the "Perform volume maintenance tasks" right
    /// (`SeManageVolumePrivilege`), then restart the service:
    /// - `secpol.msc` › Local Policies › User Rights Assignment › Perform volume maintenance
    ///   tasks › Add the service account (`NT SERVICE\MSSQLSERVER` for a default instance,
    ///   `NT SERVICE\MSSQL$NAME` for a named one);
    /// - or with dbatools: `Set-DbaPrivilege -ComputerName sql01 -Type IFI`;
    /// - `Restart-Service -Name 'MSSQLSERVER' -Force`, or `-Name 'MSSQL$NAME'` for a named
    ///   instance (single quotes: PowerShell would expand `$NAME` inside double quotes);
    /// - check: `SELECT servicename, service_account, instant_file_initialization_enabled
    ///   FROM sys.dm_server_services;`
    ///
    /// Setup offers the same right as a check box ("Grant Perform Volume Maintenance Task
    /// privilege to SQL Server Database Engine Service") since SQL Server 2016.
    ///
    /// ## References
    /// - Microsoft Learn, "Database instant file initialization": what it covers, the privilege,
    ///   and the 64 MB log-growth exception of SQL Server 2022:
    ///   <https://learn.microsoft.com/sql/relational-databases/databases/database-instant-file-initialization>
    /// - Microsoft Learn, "sys.dm_server_services" (`instant_file_initialization_enabled`):
    ///   <https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-server-services-transact-sql>
    /// - SQL Server Assessment API (rule `InstantFileInitialization`):
    ///   <https://learn.microsoft.com/sql/tools/sql-assessment-api/sql-assessment-api-overview>
    /// - sp_Blitz check 192 (instant file initialization not enabled):
    ///   <https://github.com/BrentOzarULTD/SQL-Server-First-Responder-Kit/blob/main/Documentation/sp_Blitz_Checks_by_Priority.md>
    pub static INSTANT_FILE_INITIALIZATION = {
        code: "GRW003",
        name: "instant-file-initialization",
        severity: Warning,
        summary: "Instant file initialization is enabled",
        since: "0.1.0",
        impact: Configuration,
        remedy: [Manual(AtRestart)],
        needs: [SqlInstances],
        params: [],
        check: check,
    }
}

/// The Windows service of an instance: `MSSQLSERVER`, or `MSSQL$NAME` for a named instance.
fn service_name(instance: &str) -> String {
    if instance.eq_ignore_ascii_case("MSSQLSERVER") {
        instance.to_string()
    } else {
        format!("MSSQL${instance}")
    }
}

fn check(cx: &mut Ctx<'_, NoParams>) {
    let view = cx.view;
    for (i, inst) in view.instances.iter().flatten().enumerate() {
        cx.judged(inst);
        let enabled = match inst.instant_file_initialization {
            Some(enabled) => enabled,
            None if view.host.os_family == Some(OsFamily::Linux) => {
                cx.not_applicable(
                    inst,
                    "instant_file_initialization",
                    "SQL Server on Linux has no instant file initialization setting to report (the \
                     privilege it rests on is Windows's; sys.dm_server_services gives none)",
                );
                continue;
            }
            None => {
                cx.not_evaluated(inst, "instant_file_initialization");
                continue;
            }
        };
        if enabled {
            continue;
        }
        let service = service_name(&inst.name);
        let (account, account_note) = match inst.service_account.as_deref().filter(|a| !a.trim().is_empty()) {
            Some(a) => (a.to_string(), format!("service account {a}")),
            None => (
                format!("NT SERVICE\\{service}"),
                format!("service account not collected; the default is NT SERVICE\\{service}"),
            ),
        };
        // The largest data-file growth of the instance, when the files were collected.
        let largest = view
            .databases_of(i)
            .iter()
            .flat_map(|d| d.files.iter().flatten())
            .filter(|f| f.file_type == FileType::Rows)
            .filter_map(|f| match f.growth? {
                Growth::IncrementBytes(n) => Some((n, f)),
                Growth::Percent(p) => f
                    .size_bytes
                    .map(|s| ((u128::from(s) * u128::from(p) / 100).min(u128::from(u64::MAX)) as u64, f)),
                Growth::Disabled => None,
            })
            .max_by_key(|(n, _)| *n);
        let mut message = format!(
            "instant file initialization is off ({account_note}): every data-file growth, new data file and restore writes zeros over the new space first"
        );
        if let Some((n, f)) = largest
            && n > 0
        {
            message.push_str(&format!(
                "; the largest data-file growth here, {}'s, is {}",
                f.logical_name,
                units::bytes(n)
            ));
        }
        let fix = format!(
            "Grant \"Perform volume maintenance tasks\" (SeManageVolumePrivilege) to {account} (secpol.msc › Local Policies › User Rights Assignment, or `Set-DbaPrivilege -ComputerName {host} -Type IFI`), then restart the service: `Restart-Service -Name {service} -Force`. Check with `SELECT servicename, instant_file_initialization_enabled FROM sys.dm_server_services;`.",
            host = ps_string(view.host_name()),
            service = ps_string(&service),
        );
        cx.report(inst, "instant_file_initialization", message).values("off", "on").fix(fix);
    }
}

#[cfg(test)]
mod tests {
    use super::service_name;

    #[test]
    fn service_names() {
        assert_eq!(service_name("MSSQLSERVER"), "MSSQLSERVER");
        assert_eq!(service_name("SALES"), "MSSQL$SALES");
    }

    #[test]
    fn fix_names_the_account_and_service() {
        let json = r#"{"schema_version": 1, "host": {"name": "sql01"}, "sql_instances": [
            {"name": "MSSQLSERVER", "instant_file_initialization": false, "service_account": "CORP\\svc-sql"},
            {"name": "SALES", "instant_file_initialization": false},
            {"name": "HR", "instant_file_initialization": true}
        ]}"#;
        let f = crate::growth::testutil::findings(&super::INSTANT_FILE_INITIALIZATION, json);
        assert_eq!(f.len(), 2);
        assert!(f[0].fix.contains(r"to CORP\svc-sql (secpol.msc"), "{}", f[0].fix);
        assert!(f[0].fix.contains("Set-DbaPrivilege -ComputerName 'sql01' -Type IFI"), "{}", f[0].fix);
        assert!(f[0].fix.contains("Restart-Service -Name 'MSSQLSERVER' -Force"), "{}", f[0].fix);
        assert!(f[1].fix.contains(r"to NT SERVICE\MSSQL$SALES (secpol.msc"), "{}", f[1].fix);
        assert!(f[1].fix.contains("Restart-Service -Name 'MSSQL$SALES' -Force"), "{}", f[1].fix);
    }
}
