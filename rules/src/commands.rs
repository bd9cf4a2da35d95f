//! The commands fixes print, written for the entity in question and quoted for where they are
//! pasted: T-SQL names as `QUOTENAME` writes them and strings as `N'…'`, PowerShell arguments in
//! single quotes, shell words quoted when they need it. Names come from the server (a database
//! called `O'Brien]`, a pool named `Data $(x)`): a fix must never turn one into code.

use spindle_core::facts::{DbFile, OsFamily, Volume};
use spindle_core::view::HostView;

use crate::volume_os::os_of_volume;

pub(crate) use spindle_core::quote::{ps_string, sh_word, tsql_name, tsql_string};

/// A path as `/etc/fstab` writes it: space, tab, newline and backslash as octal escapes
/// (`/mnt/sql data` → `/mnt/sql\\040data`).
pub(crate) fn fstab_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            ' ' => out.push_str("\\040"),
            '\t' => out.push_str("\\011"),
            '\n' => out.push_str("\\012"),
            '\\' => out.push_str("\\134"),
            c => out.push(c),
        }
    }
    out
}

/// A path for `cmd.exe` (`compact`, `cipher`): in double quotes when it holds a space or a
/// character cmd interprets, without a trailing backslash (which would escape the closing quote
/// for many programs) unless it is a drive root.
pub(crate) fn cmd_path(path: &str) -> String {
    let trimmed = if path.len() > 3 { path.trim_end_matches('\\') } else { path };
    if trimmed.chars().any(|c| c.is_whitespace() || "&|<>^()%!,;=".contains(c)) {
        format!("\"{trimmed}\"")
    } else {
        trimmed.to_string()
    }
}

/// The drive letter of a volume mounted at a drive's root (`E:\` → `E`).
pub(crate) fn drive_letter(v: &Volume) -> Option<char> {
    v.mount_points.iter().find_map(|m| {
        let b = m.as_bytes();
        let root = (b.len() == 2 || (b.len() == 3 && b[2] == b'\\')) && b[1] == b':';
        (root && b[0].is_ascii_alphabetic()).then(|| char::from(b[0].to_ascii_uppercase()))
    })
}

/// The volume GUID path of a Windows volume (`\\?\Volume{…}\`, with its trailing backslash), when
/// that is its id.
fn guid_path(v: &Volume) -> Option<String> {
    let id = v.id.as_str();
    id.get(..11)
        .is_some_and(|p| p.eq_ignore_ascii_case(r"\\?\Volume{"))
        .then(|| if id.ends_with('\\') { id.to_string() } else { format!("{id}\\") })
}

/// `Get-Volume` for this volume: by drive letter, else by volume GUID path, else by the folder
/// it is mounted on. Never a made-up letter.
pub(crate) fn get_volume(v: &Volume) -> String {
    if let Some(l) = drive_letter(v) {
        return format!("Get-Volume -DriveLetter {l}");
    }
    if let Some(p) = guid_path(v) {
        return format!("Get-Volume -Path {}", ps_string(&p));
    }
    match v.mount_points.first() {
        Some(m) => format!("Get-Volume -FilePath {}", ps_string(m)),
        None => format!("Get-Volume -Path {}", ps_string(&v.id)),
    }
}

/// `Format-Volume` for this volume with `filesystem` and an allocation unit of `au_bytes`.
pub(crate) fn format_volume(v: &Volume, filesystem: &str, au_bytes: u64) -> String {
    let args = format!("-FileSystem {filesystem} -AllocationUnitSize {au_bytes}");
    if let Some(l) = drive_letter(v) {
        return format!("Format-Volume -DriveLetter {l} {args}");
    }
    if let Some(p) = guid_path(v) {
        return format!("Format-Volume -Path {} {args}", ps_string(&p));
    }
    format!("{} | Format-Volume {args}", get_volume(v))
}

/// The instance of the `LogicalDisk` performance counters for this volume: `E:` for a drive,
/// the folder without its trailing backslash for a mounted folder; `None` when it has neither.
fn counter_instance(v: &Volume) -> Option<String> {
    if let Some(l) = drive_letter(v) {
        return Some(format!("{l}:"));
    }
    let m = v.mount_points.iter().find(|m| m.as_bytes().get(1) == Some(&b':'))?;
    Some(m.trim_end_matches('\\').to_string())
}

/// Where a volume is mounted on Linux.
pub(crate) fn linux_mount(v: &Volume) -> Option<&str> {
    v.mount_points.iter().map(String::as_str).find(|m| m.starts_with('/'))
}

/// A Linux device as a path: `md0` → `/dev/md0`; a path stays as it is.
pub(crate) fn dev_path(id: &str) -> String {
    if id.starts_with('/') { id.to_string() } else { format!("/dev/{id}") }
}

/// The block device of a Linux volume (`/dev/md0`), when its id is one.
pub(crate) fn linux_device(v: &Volume) -> Option<&str> {
    v.id.starts_with("/dev/").then_some(v.id.as_str())
}

/// The operating system of a volume, as far as the host or the volume tells; Windows when
/// nothing does (the facts spindle reads most often come from Windows).
pub(crate) fn is_linux(view: &HostView, v: &Volume) -> bool {
    os_of_volume(view, v) == Some(OsFamily::Linux)
}

/// Watching the volume's latency for a minute, in the tool of its OS: `Get-Counter` on the
/// volume's `LogicalDisk` instance (`sec` is `Read` or `Write`), `iostat` on its device.
pub(crate) fn watch_latency(view: &HostView, v: &Volume, sec: &str) -> String {
    if is_linux(view, v) {
        let dev = linux_device(v).map_or_else(|| v.id.clone(), |d| d.trim_start_matches("/dev/").to_string());
        return format!("`iostat -dx {} 5 12` (r_await, w_await, aqu-sz)", sh_word(&dev));
    }
    match counter_instance(v) {
        Some(i) => format!(
            "`Get-Counter {}, {} -SampleInterval 5 -MaxSamples 12`",
            ps_string(&format!(r"\LogicalDisk({i})\Avg. Disk sec/{sec}")),
            ps_string(&format!(r"\LogicalDisk({i})\Avg. Disk Queue Length")),
        ),
        // No letter and no folder: the counters name it HarddiskVolumeN; list them all.
        None => format!(
            "`Get-Counter {} -SampleInterval 5 -MaxSamples 12` (the volume {} has no drive letter or \
             folder; find its HarddiskVolume instance)",
            ps_string(&format!(r"\LogicalDisk(*)\Avg. Disk sec/{sec}")),
            v.id
        ),
    }
}

/// A file's name within its folder (`ERP_PROD.mdf`), else `fallback`.
pub(crate) fn file_leaf<'a>(f: &'a DbFile, fallback: &'a str) -> &'a str {
    f.physical_name
        .as_deref()
        .and_then(|p| p.rsplit(['\\', '/']).next())
        .filter(|s| !s.is_empty())
        .unwrap_or(fallback)
}

/// The folder a file is in, with its trailing separator (`D:\MSSQL\Data\`), when its path is known.
pub(crate) fn file_folder(f: &DbFile) -> Option<&str> {
    let p = f.physical_name.as_deref()?;
    let cut = p.rfind(['\\', '/'])?;
    Some(&p[..=cut])
}

/// `ALTER DATABASE [db] MODIFY FILE (NAME = N'logical', FILENAME = N'<to>');`, the T-SQL that
/// points a file at a new path (taken at the database's next start).
pub(crate) fn move_file(database: &str, f: &DbFile, to: &str) -> String {
    format!(
        "ALTER DATABASE {} MODIFY FILE (NAME = {}, FILENAME = {});",
        tsql_name(database),
        tsql_string(&f.logical_name),
        tsql_string(to)
    )
}

/// The path a file gets in a folder the user picks: `<place>\ERP_PROD.mdf`, or with `/` for a
/// file whose path is a Linux one.
pub(crate) fn relocated(f: &DbFile, place: &str) -> String {
    let sep = if f.physical_name.as_deref().is_some_and(|p| p.starts_with('/')) { '/' } else { '\\' };
    format!("<{place}>{sep}{}", file_leaf(f, &f.logical_name))
}

/// The steps that move a user database's file to a new folder: point it there, take the
/// database offline, copy, bring it online. `target` names where the folder should be.
pub(crate) fn move_user_file(database: &str, f: &DbFile, target: &str) -> String {
    let to = relocated(f, &format!("new folder on {target}"));
    format!(
        "{}\nALTER DATABASE {db} SET OFFLINE WITH ROLLBACK IMMEDIATE;\n-- copy {} to the new folder \
         (keep the service account's permissions), then:\nALTER DATABASE {db} SET ONLINE;",
        move_file(database, f, &to),
        f.physical_name.as_deref().unwrap_or("the file"),
        db = tsql_name(database),
    )
}

/// A volume with only an id and mount points, for tests.
#[cfg(test)]
pub(crate) fn test_volume(id: &str, mounts: &[&str]) -> Volume {
    Volume {
        id: id.into(),
        mount_points: mounts.iter().map(|s| s.to_string()).collect(),
        ..Volume::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use test_volume as vol;

    #[test]
    fn quoting() {
        assert_eq!(tsql_name("Sales]Q [x]"), "[Sales]]Q [x]]]");
        assert_eq!(tsql_string("O'Brien's"), "N'O''Brien''s'");
        assert_eq!(ps_string("Data $(rm) 'x' ‘y’"), "'Data $(rm) ''x'' ‘‘y’’'");
        assert_eq!(sh_word("/var/opt/mssql/data"), "/var/opt/mssql/data");
        assert_eq!(sh_word("/mnt/sql data/it's"), r"'/mnt/sql data/it'\''s'");
        assert_eq!(sh_word(""), "''");
        assert_eq!(cmd_path(r"E:\"), r"E:\");
        assert_eq!(cmd_path(r"E:\SQL Data\"), r#""E:\SQL Data""#);
        assert_eq!(cmd_path(r"E:\SQLData\"), r"E:\SQLData");
        assert_eq!(fstab_path("/var/opt/sql data's\\x"), r"/var/opt/sql\040data's\134x");
    }

    #[test]
    fn volumes_by_letter_guid_or_folder() {
        let d = vol(r"\\?\Volume{5e1b}\", &[r"D:\"]);
        assert_eq!(drive_letter(&d), Some('D'));
        assert_eq!(
            format_volume(&d, "NTFS", 65536),
            "Format-Volume -DriveLetter D -FileSystem NTFS -AllocationUnitSize 65536"
        );
        let folder = vol(r"\\?\Volume{77aa}", &[r"E:\SQL Data\"]);
        assert_eq!(drive_letter(&folder), None);
        assert_eq!(
            format_volume(&folder, "NTFS", 65536),
            r"Format-Volume -Path '\\?\Volume{77aa}\' -FileSystem NTFS -AllocationUnitSize 65536"
        );
        assert_eq!(counter_instance(&folder).as_deref(), Some(r"E:\SQL Data"));
        let odd = vol("vol-9", &[r"F:\Mount's\"]);
        assert_eq!(get_volume(&odd), r"Get-Volume -FilePath 'F:\Mount''s\'");
        assert_eq!(counter_instance(&vol(r"\\?\Volume{1}\", &[])), None);
    }

    #[test]
    fn moves_quote_every_name() {
        let f = DbFile {
            logical_name: "it's_log".into(),
            physical_name: Some(r"L:\Logs\it's.ldf".into()),
            ..DbFile::default()
        };
        assert_eq!(
            move_file("O]Neil", &f, r"M:\x\it's.ldf"),
            r"ALTER DATABASE [O]]Neil] MODIFY FILE (NAME = N'it''s_log', FILENAME = N'M:\x\it''s.ldf');"
        );
        assert_eq!(file_folder(&f), Some(r"L:\Logs\"));
        assert_eq!(file_leaf(&f, "x"), "it's.ldf");
    }
}
