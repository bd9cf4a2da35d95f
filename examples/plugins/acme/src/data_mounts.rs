use spindle_plugin_sdk::declare_rule;
use spindle_plugin_sdk::facts::FileType;
use spindle_plugin_sdk::{Ctx, NoParams};

use crate::config::{AcmeConfig, is_windows_path};
use crate::files::{is_user, mounts_reaching};

declare_rule! {
    /// ## What it checks
    /// Every data file (`type` rows) of a user database lives on a volume mounted at a mount
    /// point the Acme standard names: one matching `data_mounts_windows` (default `*\SQLData*`,
    /// compared without case) on Windows, `data_mounts_linux` (default `/var/opt/mssql/data*`,
    /// case-sensitive) on Linux. Both are globs in the pack's `config` table for the plugin.
    ///
    /// The file is judged by the mount point of the volume that holds it, found by volume id or
    /// by the longest mount point prefixing its path, never by its drive letter or folder names:
    /// `E:\SQLData\Sales.mdf` passes when `E:\SQLData\` is a volume mounted there, and fails when
    /// `SQLData` is only a folder on `E:\`. The system databases and tempdb are out of scope
    /// (the builtin PLC rules place them). A file whose volume, or a volume whose mount points,
    /// were not collected is not evaluated.
    ///
    /// ## Why it matters
    /// Acme storage standard STD-SQL-004 §3 (example) gives every data volume a mount point of
    /// its own, named `SQLData` (`E:\SQLData01\`, `/var/opt/mssql/data`). Backups, snapshots,
    /// monitoring thresholds and the SAN team's capacity reports select volumes by that name:
    /// a data file on `E:\` is not in the nightly volume snapshot, and a full `E:\` pages the
    /// wrong team. A folder named `SQLData` on a shared volume looks right in the file path and
    /// defeats all of that, which is why the rule reads the mount point.
    ///
    /// ## How to fix
    /// 1. Give the data a volume of its own and mount it at the standard's path:
    ///    `Add-PartitionAccessPath -DiskNumber 3 -PartitionNumber 2 -AccessPath E:\SQLData01\`
    ///    (Windows), or an `/etc/fstab` entry for `/var/opt/mssql/data` (Linux).
    /// 2. Move the files: `ALTER DATABASE … MODIFY FILE (NAME = …, FILENAME = 'E:\SQLData01\…')`,
    ///    take the database offline, copy the file, bring it online.
    /// 3. When the volume is right and only its mount point is named otherwise, add the standard's
    ///    access path to it (a volume may have several) and point the files at that path.
    ///
    /// ## References
    /// - Acme storage standard STD-SQL-004 §3 (example): data volumes and their mount points
    ///   (§3.1 Windows, §3.2 Linux).
    /// - Microsoft Learn, "Database files and filegroups": place data and log files on separate
    ///   disks.
    /// - Microsoft Learn, "Configure SQL Server on Linux with the mssql-conf tool":
    ///   `filelocation.defaultdatadir`, `/var/opt/mssql/data` by default.
    pub static DATA_FILES_ON_STANDARD_MOUNTS = {
        code: "ACM001",
        name: "data-files-on-standard-mounts",
        severity: Warning,
        summary: "User data files live on volumes mounted at the standard's data mount points",
        needs: [Volumes, DatabaseFiles],
        params: [],
        check: check,
    }
}

fn check(cx: &mut Ctx<'_, NoParams>) {
    let cfg = AcmeConfig::current();
    let view = cx.view;
    for (db, f) in view.files() {
        if !is_user(db) || f.file_type != FileType::Rows {
            continue;
        }
        let Some(v) = cx.volume_of_file(f) else { continue };
        let path = f.physical_name.as_deref();
        let mounts = mounts_reaching(v, path);
        if mounts.is_empty() {
            cx.not_evaluated_because(v, "mount_points", "the volume's mount points were not collected");
            continue;
        }
        if mounts.iter().any(|m| cfg.data_mount_match(m).is_some()) {
            continue;
        }
        let shown = mounts.join(", ");
        let patterns = cfg.data_mount_patterns(mounts[0]);
        let mut message = format!(
            "data file {} of {} is on volume {} mounted at {shown}, not at a data mount point of the \
             standard ({patterns})",
            f.logical_name,
            db.db.name,
            v.display_name(),
        );
        if let Some(folder) = path.and_then(|p| folder_named_like_a_mount(&cfg, p)) {
            message.push_str(&format!(
                "; {folder} is named like one, but it is a folder on {shown}, not a volume mounted there"
            ));
        }
        cx.report(f, "physical_name", message)
            .values(format!("mounted at {shown}"), format!("a volume mounted at {patterns}"));
    }
}

/// The first folder of `path` whose own path matches a data mount pattern (`E:\SQLData`).
fn folder_named_like_a_mount(cfg: &AcmeConfig, path: &str) -> Option<String> {
    let sep = if is_windows_path(path) { '\\' } else { '/' };
    let path = if sep == '\\' { path.replace('/', "\\") } else { path.to_string() };
    let ends: Vec<usize> = path.match_indices(sep).map(|(i, _)| i).collect();
    // Every folder but the file itself: the prefixes ending before each separator after the first
    // character.
    ends.iter()
        .filter(|&&i| i > 0)
        .map(|&i| &path[..i])
        .find(|f| cfg.data_mount_match(f).is_some())
        .map(str::to_string)
}
