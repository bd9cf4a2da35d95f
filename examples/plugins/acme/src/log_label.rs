use spindle_plugin_sdk::declare_rule;
use spindle_plugin_sdk::facts::FileType;
use spindle_plugin_sdk::{Ctx, NoParams};

use crate::config::AcmeConfig;
use crate::files::{is_user, volumes_holding};

declare_rule! {
    /// ## What it checks
    /// Every volume that holds a log file of a user database has a label containing the word
    /// `log_label_word` of the pack's `config` table (`LOG` by default), compared without case:
    /// `SQLLOG01`, `SQLLogs` and `sqllog` pass, `SQLData` and an empty label do not. The volume
    /// is found through the log files, by volume identity. A volume whose label was not
    /// collected is not evaluated. System databases and tempdb are out of scope.
    ///
    /// ## Why it matters
    /// Acme storage standard STD-SQL-004 §4 (example) labels log volumes so that whoever works on
    /// the storage sees what a volume carries before touching it: the SAN team extends, moves or
    /// snapshots LUNs by label, and the restore runbook finds the log volume by it. An
    /// unlabelled log volume is the one that gets reformatted by mistake, or left out of a
    /// consistent snapshot of data and log.
    ///
    /// ## How to fix
    /// Set the label; it changes no data and needs no downtime:
    /// - Windows: `Set-Volume -DriveLetter L -NewFileSystemLabel SQLLOG01` (for a mounted folder,
    ///   `Get-Volume -FilePath L:\SQLLog01\ | Set-Volume -NewFileSystemLabel SQLLOG01`).
    /// - Linux: `xfs_admin -L sqllog01 /dev/md1` (the filesystem unmounted), or
    ///   `e2label /dev/sdc1 sqllog01` for ext4.
    ///
    /// If the log shares a volume with data (the label then says `SQLData`), the fix is to move
    /// the log to a volume of its own: see the builtin rule PLC001.
    ///
    /// ## References
    /// - Acme storage standard STD-SQL-004 §4 (example): volume labels.
    /// - Microsoft Learn, `Set-Volume` (`-NewFileSystemLabel`); `xfs_admin(8)` (`-L`).
    pub static LOG_VOLUME_LABEL = {
        code: "ACM002",
        name: "log-volume-label",
        severity: Note,
        summary: "Volumes holding user log files are labelled LOG",
        needs: [Volumes, DatabaseFiles],
        params: [],
        check: check,
    }
}

fn check(cx: &mut Ctx<'_, NoParams>) {
    let cfg = AcmeConfig::current();
    let word = cfg.log_label_word.trim();
    let wanted = word.to_lowercase();
    for held in volumes_holding(cx, |db, f| is_user(db) && f.file_type == FileType::Log) {
        let v = held.volume;
        let Some(label) = cx.need(v, "label", v.item.label.as_deref()) else { continue };
        if label.to_lowercase().contains(&wanted) {
            continue;
        }
        let shown = if label.is_empty() { "no label".to_string() } else { format!("the label \"{label}\"") };
        let message = format!(
            "volume {} holds {} but has {shown}, without the word \"{word}\" log volumes carry",
            v.display_name(),
            held.describe(),
        );
        cx.report(v, "label", message)
            .values(format!("\"{label}\""), format!("a label containing \"{word}\""));
    }
}
