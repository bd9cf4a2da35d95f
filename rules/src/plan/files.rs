//! Online changes to files and mounts, and file moves: tempdb's data files and a database's log
//! files (whose rules' fixes are T-SQL already written for the host), `noatime`, and moving
//! files to another volume ([`Remedy::MoveFiles`]).

use std::collections::BTreeSet;

use spindle_core::facts::{DatabaseRole, DbFile, FileType, Growth, Volume};
use spindle_core::fast_hash::FastMap;
use spindle_core::plan::{Command, MoveReason, Phase, Remedy, Step};
use spindle_core::view::{DatabaseView, HostView, Located};

use super::Builder;
use super::subject::Subject;
use crate::commands::{
    file_folder, file_leaf, fstab_path, linux_mount, move_file, ps_string, sh_word, tsql_name,
};
use spindle_core::quote::checked_path;
use spindle_core::units::plural;

/// The code blocks of a fix in one language (` ```sql `), as the fix writes them.
pub(super) fn fenced(fix: &str, lang: &str) -> Vec<String> {
    let mut out = vec![];
    let mut lines = fix.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.trim().strip_prefix("```") else { continue };
        let mut block = String::new();
        for l in lines.by_ref() {
            if l.trim() == "```" {
                break;
            }
            block.push_str(l);
            block.push('\n');
        }
        if info.trim() == lang {
            out.push(block);
        }
    }
    out
}

/// tempdb's data files and a database's extra log files: the rules' fixes are the T-SQL,
/// written for this host by the rule.
pub(super) fn fenced_tsql_steps(b: &mut Builder<'_>) {
    for (i, f, remedy) in b.open(|r| matches!(r, Remedy::AddTempdbDataFiles | Remedy::RemoveExtraLogFiles)) {
        let tempdb = remedy == Remedy::AddTempdbDataFiles;
        let blocks = fenced(&f.fix, "sql");
        if blocks.is_empty() {
            continue;
        }
        let Subject::Database(dv) = b.subject(&f.entity.key) else { continue };
        let adds = blocks.iter().map(|bl| bl.matches(" ADD FILE ").count()).sum::<usize>();
        if tempdb && adds > 0 {
            tempdb_adds(b, i, dv, adds);
            continue;
        }
        let (title, why) = match tempdb {
            true => (
                "Even out tempdb's data files".to_string(),
                "tempdb allocates from its data files in proportion to their free space: as many \
                 files as the rule expects, all the same size and growth, spread allocation \
                 contention evenly. Added files are used at once; removed ones once emptied.",
            ),
            false => (
                format!("Keep one log file in {}", dv.db.name),
                "The log is written sequentially, one file after the other: files beyond the first \
                 add no throughput, only recovery time. A log file can be removed once it holds no \
                 active log (after a log backup in the full recovery model).",
            ),
        };
        let mut step = Step::new(Phase::Online, title, why);
        step.commands = blocks.into_iter().map(Command::tsql).collect();
        step.preconditions.push(if tempdb {
            "A quiet period. No backup: tempdb is recreated at every restart.".into()
        } else {
            "A log backup just taken (full recovery model), and a quiet period.".into()
        });
        step.rollback_note =
            Some("Add back or remove files with the same statements: nothing in them deletes data.".into());
        let names = file_names(dv);
        b.add(step, &[i], &names);
    }
}

/// `noatime` applied with a remount, and the line for `/etc/fstab`.
pub(super) fn mount_options(b: &mut Builder<'_>) {
    for (i, f, _) in b.open(|r| r == Remedy::MountOptions) {
        let Subject::Volume(v) = b.subject(&f.entity.key) else { continue };
        let Some(at) = linux_mount(v) else { continue };
        let mount = sh_word(at);
        let mut step = Step::new(
            Phase::Online,
            format!("Mount {} with noatime", v.display_name()),
            "Without noatime every read of a database file also writes its access time. A remount \
             applies it at once; the fstab line keeps it at the next boot.",
        );
        step.commands
            .push(Command::sh(format!("mount -o remount,noatime {mount}\nfindmnt -no OPTIONS {mount}")));
        let fs = v.filesystem.as_deref().unwrap_or("xfs");
        step.instructions = Some(format!(
            "Add noatime to the options of {} in /etc/fstab, the device by UUID (`blkid` gives it): \
             `UUID=<uuid> {} {fs} defaults,noatime 0 0`.",
            v.display_name(),
            fstab_path(at)
        ));
        step.rollback.push(Command::sh(format!("mount -o remount,relatime {mount}")));
        b.add(step, &[i], &[at]);
    }
}

/// What kind of volume a file should move to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Tempdb,
    Log,
    Data,
}

fn role_of(dv: &DatabaseView, f: &DbFile) -> Role {
    if dv.db.effective_role() == DatabaseRole::Tempdb {
        Role::Tempdb
    } else if f.file_type == FileType::Log {
        Role::Log
    } else {
        Role::Data
    }
}

/// Moves of files to another volume. A volume already used for that kind of file (a log
/// volume with no data file, tempdb's own volume or a cloud VM's temporary disk, a data volume
/// with no log) is the target; with none, provisioning one is a manual step.
pub(super) fn moves(b: &mut Builder<'_>) {
    let open = b.open(|r| matches!(r, Remedy::MoveFiles(_)));
    // One step per database: it goes offline once for all its files.
    type Files<'v> = Vec<(usize, &'v Located<DbFile>)>;
    let mut by_db: Vec<(&DatabaseView, Files<'_>)> = vec![];
    // Where each database is in `by_db`, by its address: one walk of `by_db` per finding made a
    // host with many databases quadratic.
    let mut db_at: FastMap<*const DatabaseView, usize> = FastMap::default();
    for (i, f, _) in open {
        let Subject::File(dv, file) = b.subject(&f.entity.key) else { continue };
        let at = *db_at.entry(std::ptr::from_ref(dv)).or_insert_with(|| {
            by_db.push((dv, vec![]));
            by_db.len() - 1
        });
        by_db[at].1.push((i, file));
    }
    for (dv, files) in by_db {
        // One entry per file, with every finding about it (a log can be both on the data's volume and on its spindles).
        let mut per_file: Vec<(Vec<usize>, &Located<DbFile>)> = vec![];
        let mut file_at: FastMap<*const Located<DbFile>, usize> = FastMap::default();
        for &(i, file) in &files {
            let at = *file_at.entry(std::ptr::from_ref(file)).or_insert_with(|| {
                per_file.push((vec![], file));
                per_file.len() - 1
            });
            per_file[at].0.push(i);
        }
        let mut targets = vec![];
        let mut missing = vec![];
        for (idx, file) in per_file {
            let role = role_of(dv, file);
            let from = b.view.volume_of_file(file).ok();
            // A log moved because it shares spindles with the data must land on others.
            let shares_spindles =
                idx.iter().any(|&i| b.remedies(i).contains(&Remedy::MoveFiles(MoveReason::SharedSpindles)));
            let avoid = if shares_spindles { data_disks(b.view, dv) } else { None };
            match target(b, role, from.map(|v| &v.item), avoid.as_ref()) {
                Some((v, folder)) => targets.push((idx, file, v, folder)),
                None => missing.push((idx, file, role, from)),
            }
        }
        if !targets.is_empty() {
            move_step(b, dv, &targets);
        }
        // One manual step per kind of volume the database needs.
        for role in [Role::Tempdb, Role::Log, Role::Data] {
            let these: Vec<_> = missing.iter().filter(|m| m.2 == role).collect();
            let Some(first) = these.first() else { continue };
            let kind = match role {
                Role::Tempdb => "tempdb",
                Role::Log => "transaction log",
                Role::Data => "data",
            };
            let list = these.iter().map(|m| m.1.logical_name.as_str()).collect::<Vec<_>>().join(", ");
            let mut step = Step::new(
                Phase::Manual,
                format!("Provide a {kind} volume for {list} of {}", dv.db.name),
                format!(
                    "{list} {} on {}, and no other volume of this host is fit to take {}: ask the \
                     storage or platform team for a volume on disks of its own (formatted NTFS with \
                     64 KiB clusters on Windows, XFS on Linux), then move the {} there.",
                    if these.len() == 1 { "is" } else { "are" },
                    first.3.map_or("an unknown volume", |v| v.display_name()),
                    if these.len() == 1 { "it" } else { "them" },
                    if these.len() == 1 { "file" } else { "files" },
                ),
            );
            let statements: Vec<String> = these
                .iter()
                .map(|m| {
                    let sep = if m.1.physical_name.as_deref().is_some_and(|p| p.starts_with('/')) {
                        '/'
                    } else {
                        '\\'
                    };
                    let to = format!("<folder on the new volume>{sep}{}", file_leaf(m.1, &m.1.logical_name));
                    format!("`{}`", move_file(&dv.db.name, m.1, &to))
                })
                .collect();
            step.instructions = Some(format!(
                "Then point the files at it ({}), {}.",
                statements.join(", "),
                if role == Role::Tempdb {
                    "and restart the service: tempdb is recreated there, and its old files can be deleted"
                } else {
                    "take the database offline, move the files, and bring it online"
                }
            ));
            let idx: Vec<usize> = these.iter().flat_map(|m| m.0.iter().copied()).collect();
            b.add(step, &idx, &[]);
        }
    }
}

/// The volume a file of `role` should go to, and the folder on it: the folder of a file of the
/// same kind already there, else the volume's first mount point.
fn target<'v>(
    b: &Builder<'v>,
    role: Role,
    from: Option<&Volume>,
    avoid_disks: Option<&BTreeSet<String>>,
) -> Option<(&'v Located<Volume>, String)> {
    let view = b.view;
    let holds = |v: &Volume, want: &dyn Fn(&DatabaseView, &DbFile) -> bool| {
        b.on_volumes.files_on(v).iter().find(|(dv, f)| want(dv, f)).map(|(_, f)| f.physical_name.clone())
    };
    let is_tempdb = |dv: &DatabaseView, _: &DbFile| dv.db.effective_role() == DatabaseRole::Tempdb;
    let is_log = |dv: &DatabaseView, f: &DbFile| !is_tempdb(dv, f) && f.file_type == FileType::Log;
    let is_data = |dv: &DatabaseView, f: &DbFile| !is_tempdb(dv, f) && f.file_type != FileType::Log;
    for v in view.volumes.iter().flatten() {
        if from.is_some_and(|f| f.id == v.id) || b.os_volumes.holds_os(v) || v.mount_points.is_empty() {
            continue;
        }
        // Spindles to stay off: a volume whose disks are not known cannot be shown to.
        if let Some(avoid) = avoid_disks {
            match view.physical_disks_of_volume(v) {
                Some(disks) if disks.is_disjoint(avoid) => {}
                _ => continue,
            }
        }
        let found = match role {
            Role::Tempdb if v.temp_disk == Some(true) => Some(None),
            Role::Tempdb => {
                holds(v, &is_tempdb).filter(|_| holds(v, &|d, f| !is_tempdb(d, f)).is_none()).map(Some)
            }
            Role::Log if v.temp_disk != Some(true) => {
                holds(v, &is_log).filter(|_| holds(v, &is_data).is_none()).map(Some)
            }
            Role::Data if v.temp_disk != Some(true) => {
                holds(v, &is_data).filter(|_| holds(v, &is_log).is_none()).map(Some)
            }
            _ => None,
        };
        if let Some(path) = found {
            let folder = path
                .flatten()
                .and_then(|p| {
                    let f = DbFile { physical_name: Some(p), ..Default::default() };
                    file_folder(&f).map(str::to_string)
                })
                .unwrap_or_else(|| v.mount_points[0].clone());
            return Some((v, folder));
        }
    }
    None
}

/// The physical disks under the database's data files, when every one of them is known.
fn data_disks(view: &HostView, dv: &DatabaseView) -> Option<BTreeSet<String>> {
    let mut out = BTreeSet::new();
    for f in dv.files.iter().flatten().filter(|f| f.file_type != FileType::Log) {
        let v = view.volume_of_file(f).ok()?;
        out.extend(view.physical_disks_of_volume(v)?.iter().cloned());
    }
    Some(out)
}

/// A file to move: the findings it fixes, the file, the volume it goes to and the folder there.
type Target<'v> = (Vec<usize>, &'v Located<DbFile>, &'v Located<Volume>, String);

/// Points each file at its new folder, then (for tempdb) restarts the service, or (for a user
/// database) takes it offline, moves the files and brings it online.
fn move_step(b: &mut Builder<'_>, dv: &DatabaseView, targets: &[Target<'_>]) {
    let tempdb = dv.db.effective_role() == DatabaseRole::Tempdb;
    let system = dv.db.effective_role() == DatabaseRole::System;
    let db = tsql_name(&dv.db.name);
    let dest = |t: &Target<'_>| {
        let sep = if t.3.starts_with('/') { "/" } else { "\\" };
        let folder = if t.3.ends_with(['/', '\\']) { t.3.clone() } else { format!("{}{sep}", t.3) };
        format!("{folder}{}", file_leaf(t.1, &t.1.logical_name))
    };
    let list = targets.iter().map(|t| t.1.logical_name.as_str()).collect::<Vec<_>>().join(", ");
    let to = targets.iter().map(|t| t.2.display_name()).collect::<Vec<_>>();
    let phase = if tempdb || system { Phase::Restart } else { Phase::Offline };
    let mut step = Step::new(
        phase,
        format!("Move {} of {} to {}", list, dv.db.name, to.join(", ")),
        format!(
            "{} already holds this kind of file and nothing else of the database: the move puts \
             {} where its I/O does not compete with the files it shares a volume with today.",
            to.join(", "),
            plural(targets.len(), "file")
        ),
    );
    let mut modify = String::new();
    let mut back = String::new();
    for t in targets {
        modify.push_str(&move_file(&dv.db.name, t.1, &dest(t)));
        modify.push('\n');
        if let Some(old) = &t.1.physical_name {
            back.push_str(&move_file(&dv.db.name, t.1, old));
            back.push('\n');
        }
    }
    step.commands.push(Command::tsql(modify));
    let service =
        b.view.instances.iter().flatten().nth(dv.instance).map_or("MSSQLSERVER", |i| i.name.as_str());
    let service = if service.eq_ignore_ascii_case("MSSQLSERVER") {
        service.to_string()
    } else {
        format!("MSSQL${service}")
    };
    if tempdb {
        step.commands.push(if b.linux {
            Command::sh("systemctl restart mssql-server")
        } else {
            Command::ps(format!("Restart-Service -Name {} -Force", ps_string(&service)))
        });
        step.instructions = Some(
            "tempdb is recreated at its new place at the restart; delete its old files afterwards.".into(),
        );
    } else if system {
        step.instructions = Some(
            "A system database's files move with the service stopped: stop it, move the files, start it \
             (Microsoft Learn, \"Move system databases\")."
                .into(),
        );
    } else {
        step.commands
            .push(Command::tsql(format!("ALTER DATABASE {db} SET OFFLINE WITH ROLLBACK IMMEDIATE;\n")));
        let mut mv = String::new();
        for t in targets {
            let Some(old) = &t.1.physical_name else { continue };
            let (old, new) = (checked_path(old), dest(t));
            let new = checked_path(&new);
            if b.linux {
                mv.push_str(&format!("mv {} {}\n", sh_word(old), sh_word(new)));
            } else {
                mv.push_str(&format!(
                    "Move-Item -LiteralPath {} -Destination {}\n",
                    ps_string(old),
                    ps_string(new)
                ));
            }
        }
        step.commands.push(if b.linux { Command::sh(mv) } else { Command::ps(mv) });
        step.commands.push(Command::tsql(format!("ALTER DATABASE {db} SET ONLINE;\n")));
        step.preconditions.push(format!("A verified full backup of {} (RESTORE VERIFYONLY).", dv.db.name));
    }
    step.preconditions.push(format!(
        "Free space on {} for {}.",
        to.join(", "),
        spindle_core::units::bytes(targets.iter().filter_map(|t| t.1.size_bytes).sum())
    ));
    if !back.is_empty() {
        step.rollback.push(Command::tsql(back));
        step.rollback_note = Some("Point the files back, and move them back the same way.".into());
    }
    let idx: Vec<usize> = targets.iter().flat_map(|t| t.0.iter().copied()).collect();
    let mut names: Vec<&str> = vec![&dv.db.name];
    for t in targets {
        names.push(&t.1.logical_name);
        names.extend(t.1.physical_name.as_deref());
        names.push(&t.3);
    }
    b.add(step, &idx, &names);
}

/// The database's name and its files' names and paths, for [`Builder::add`].
fn file_names(dv: &DatabaseView) -> Vec<&str> {
    let mut out = vec![dv.db.name.as_str()];
    for f in dv.files.iter().flatten() {
        out.push(&f.logical_name);
        out.extend(f.physical_name.as_deref());
    }
    out
}

/// The tempdb data files a rule adds, where the plan puts tempdb and with the growth the plan gives
/// its files: on the volume tempdb moves to when it moves (in words, once that volume exists,
/// when no volume of the host is fit for it), else beside its first data file.
fn tempdb_adds(b: &mut Builder<'_>, i: usize, dv: &DatabaseView, adds: usize) {
    let data: Vec<&Located<DbFile>> =
        dv.files.iter().flatten().filter(|f| f.file_type == FileType::Rows).collect();
    let Some(first) = data.first() else { return };
    let moving = b
        .open(|r| matches!(r, Remedy::MoveFiles(_)))
        .iter()
        .any(|(_, f, _)| matches!(b.subject(&f.entity.key), Subject::File(d, _) if std::ptr::eq(d, dv)));
    let from = b.view.volume_of_file(first).ok().map(|v| &v.item);
    let target = if moving { target(b, Role::Tempdb, from, None) } else { None };
    let folder = match (&target, moving) {
        (Some((_, folder)), _) => Some(folder.clone()),
        (None, true) => None,
        (None, false) => file_folder(first).map(str::to_string),
    };
    let sep = if first.physical_name.as_deref().is_some_and(|p| p.starts_with('/')) { '/' } else { '\\' };
    let folder_text = folder.clone().unwrap_or_else(|| "<folder on the new tempdb volume>".to_string());
    let folder_text =
        if folder_text.ends_with(['/', '\\']) { folder_text } else { format!("{folder_text}{sep}") };
    // The growth the plan's growth step gives the first data file, else the file's own.
    let growth = b
        .planned_growth_mib(&dv.db.name, &first.logical_name)
        .map(|mib| Growth::IncrementBytes(mib << 20))
        .or(first.growth);
    let mut model: Located<DbFile> = (*first).clone();
    model.item.physical_name = Some(format!("{folder_text}{}", file_leaf(first, &first.logical_name)));
    model.item.growth = growth;
    let mut files: Vec<&Located<DbFile>> = vec![&model];
    files.extend(data.iter().skip(1).copied());
    let fix = crate::placement::tempdb_tsql::count(&dv.db.name, &files, (data.len() + adds) as u32);
    let sql = fenced(&fix, "sql");
    let added: Vec<String> = sql
        .iter()
        .flat_map(|bl| bl.lines())
        .filter_map(|l| l.split("NAME = ").nth(1).and_then(|n| n.split(',').next()).map(str::to_string))
        .collect();
    let where_ = match (&target, moving) {
        (Some((v, _)), _) => v.display_name().to_string(),
        (None, true) => "the new tempdb volume".to_string(),
        (None, false) => from.map_or_else(|| folder_text.clone(), |v| v.display_name().to_string()),
    };
    let mut step = Step::new(
        Phase::Online,
        format!("Add {} to tempdb on {where_}", plural(adds, "data file")),
        "tempdb allocates from its data files in proportion to their free space: as many files as the \
         rule expects, all the same size and growth, spread allocation contention evenly. Added files \
         are used at once. They go where this plan puts tempdb, with the growth it gives tempdb's files.",
    );
    step.preconditions.push(format!(
        "Room on {where_} for {adds} more {} of {} each. No backup: tempdb is recreated at every restart.",
        if adds == 1 { "file" } else { "files" },
        first.size_bytes.map_or("the size of the others".to_string(), spindle_core::units::bytes)
    ));
    let mut undo = format!("USE {};\n", tsql_name(&dv.db.name));
    for n in &added {
        let name = n.trim_start_matches("N'").trim_end_matches('\'');
        undo.push_str(&format!(
            "DBCC SHRINKFILE ({n}, EMPTYFILE);\nALTER DATABASE {} REMOVE FILE {};\n",
            tsql_name(&dv.db.name),
            tsql_name(name)
        ));
    }
    if target.is_none() && moving {
        // No volume to put them on yet: the files are added once the manual step has provided it.
        step.phase = Phase::Manual;
        step.why.push_str(
            " tempdb moves off its volume in this plan, and no volume of this host is fit for it yet: \
             add the files once the tempdb volume is provided (see the manual step for it), in its folder.",
        );
        step.instructions = Some(format!("```sql\n{}```", sql.concat()));
    } else {
        step.commands = sql.into_iter().map(Command::tsql).collect();
        step.rollback.push(Command::tsql(undo));
        step.rollback_note =
            Some("Empty and remove the added files; nothing in them holds data past a restart.".into());
    }
    let mut names = file_names(dv);
    names.push(&folder_text);
    b.add(step, &[i], &names);
}
