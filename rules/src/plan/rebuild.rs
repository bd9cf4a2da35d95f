//! Volumes that must be rebuilt ([`Remedy::Rebuild`]): a partition recreated at an aligned
//! offset, a volume formatted with other clusters or another filesystem, a Storage Spaces
//! virtual disk recreated with other columns or interleave. All
//! of a volume's changes are made in one rebuild, and volumes whose databases overlap share one
//! outage: databases offline, every volume copied off, rebuilt, copied back, databases online.

use spindle_core::facts::{DatabaseRole, Partition, VirtualDisk, Volume};
use spindle_core::fast_hash::{FastMap, FastSet};
use spindle_core::plan::{Command, Phase, RebuildPart, Remedy, Step};
use spindle_core::quote::{self, checked_path, ps_native_path};
use spindle_core::units;
use spindle_core::view::{DatabaseView, HostView, Located};

use super::Builder;
use super::on_volume::FilesOnVolumes;
use super::subject::{self, Subject};
use crate::alignment::recreate::aligned_offset;
use crate::commands::{dev_path, drive_letter, linux_mount, ps_string, sh_word, tsql_name};
use crate::striping::spaces::{Resiliency, new_virtual_disk, pool_name, vd_name};

/// What one volume's rebuild changes.
pub(super) struct Rebuild<'v> {
    pub volume: &'v Located<Volume>,
    /// The partition to recreate, and the boundary its new offset must be a multiple of.
    pub partition: Option<(&'v Located<Partition>, u64)>,
    pub cluster_bytes: Option<u64>,
    pub filesystem: Option<String>,
    /// The virtual disk to recreate, with the columns and interleave it must get.
    pub virtual_disk: Option<(&'v Located<VirtualDisk>, Option<u32>, Option<u64>)>,
    /// The number of the partition's disk, when the snapshot has it.
    pub disk_number: Option<u32>,
    pub findings: Vec<usize>,
}

pub(super) fn steps(b: &mut Builder<'_>) {
    let view = b.view;
    let mut rebuilds = Rebuilds::default();
    for (i, f, remedy) in b.open(|r| matches!(r, Remedy::Rebuild(_))) {
        let Remedy::Rebuild(part) = remedy else { continue };
        let expected = f.expected_quantity.map(|q| q.value);
        match b.subject(&f.entity.key) {
            Subject::Partition(p) => {
                let Some(v) = view.volume_of_partition(p) else { continue };
                let r = rebuilds.slot(v);
                let align = expected.map_or(65_536, |e| e as u64).max(4096);
                let prev = r.partition.map_or(1, |(_, a)| a);
                r.partition = Some((p, lcm(prev, align)));
                r.disk_number = view.disk(&p.disk_id).and_then(|d| d.number);
                r.findings.push(i);
            }
            Subject::Volume(v) => {
                let r = rebuilds.slot(v);
                if part == RebuildPart::AllocationUnit {
                    r.cluster_bytes = expected.map(|e| e as u64).or(Some(65_536));
                } else {
                    r.filesystem = Some(if b.linux { "xfs" } else { "NTFS" }.to_string());
                }
                r.findings.push(i);
            }
            Subject::VirtualDisk(vd) => {
                for v in subject::volumes_on_virtual_disk(view, vd) {
                    let r = rebuilds.slot(v);
                    let (mut cols, mut inter) = r.virtual_disk.map_or((None, None), |x| (x.1, x.2));
                    if part == RebuildPart::Columns {
                        cols = expected.map(|e| e as u32);
                    } else {
                        inter = expected.map(|e| e as u64);
                    }
                    r.virtual_disk = Some((vd, cols, inter));
                    r.findings.push(i);
                }
            }
            _ => {}
        }
    }
    // The operating system's volume cannot be emptied while the system runs from it.
    let (os, rebuilds): (Vec<_>, Vec<_>) =
        rebuilds.list.into_iter().partition(|r| b.os_volumes.holds_os(r.volume));
    for r in os {
        let mut step = Step::new(
            Phase::Manual,
            format!("Rebuild the system volume {} when the server is rebuilt", r.volume.display_name()),
            format!(
                "{} holds the running operating system: it cannot be taken offline, copied off and \
                 recreated in place. Keep database files off it (see the moves in this plan), and \
                 realign and reformat it when the server is reinstalled or migrated.",
                r.volume.display_name()
            ),
        );
        step.instructions = Some(what_changes(&r));
        b.add(step, &r.findings, &[]);
    }
    for group in outages(&b.on_volumes, rebuilds) {
        outage(b, group);
    }
}

/// The volumes to rebuild, in the order their first finding came.
#[derive(Default)]
struct Rebuilds<'v> {
    list: Vec<Rebuild<'v>>,
    /// Where each volume is in `list`, by its key: a walk of `list` per finding made a host
    /// with thousands of misaligned partitions quadratic (issue 27).
    at: FastMap<&'v str, usize>,
}

impl<'v> Rebuilds<'v> {
    /// The slot of volume `v`, added when new.
    fn slot(&mut self, v: &'v Located<Volume>) -> &mut Rebuild<'v> {
        let list = &mut self.list;
        let i = *self.at.entry(v.key.as_str()).or_insert_with(|| {
            list.push(Rebuild {
                volume: v,
                partition: None,
                cluster_bytes: None,
                filesystem: None,
                virtual_disk: None,
                disk_number: None,
                findings: vec![],
            });
            list.len() - 1
        });
        &mut list[i]
    }
}

fn lcm(a: u64, b: u64) -> u64 {
    a / crate::alignment::recreate::gcd(a, b).max(1) * b
}

/// Rebuilds grouped into outages: volumes that hold files of the same database are rebuilt
/// while it is offline once. A group's place is where its last rebuild joined it.
fn outages<'v>(
    on_volumes: &FilesOnVolumes<'v>,
    rebuilds: Vec<Rebuild<'v>>,
) -> Vec<(Vec<&'v DatabaseView>, Vec<Rebuild<'v>>)> {
    // Merged groups leave a hole, so that the places of the others stay put; `group_of` holds
    // each database's group (a database is in one group at most), so that a rebuild finds the
    // groups it joins without a walk of them all.
    let mut groups: Vec<Option<Outage<'v>>> = vec![];
    let mut group_of: FastMap<*const DatabaseView, usize> = FastMap::default();
    for r in rebuilds {
        let dbs = on_volumes.databases_on(r.volume);
        let mut overlapping: Vec<usize> =
            dbs.iter().filter_map(|d| group_of.get(&std::ptr::from_ref(*d)).copied()).collect();
        overlapping.sort_unstable();
        overlapping.dedup();
        let merged = merge(&mut groups, &overlapping, dbs, r);
        for d in &merged.0 {
            group_of.insert(std::ptr::from_ref(*d), groups.len());
        }
        groups.push(Some(merged));
    }
    groups.into_iter().flatten().collect()
}

/// The databases offline in one outage, and the rebuilds made during it.
type Outage<'v> = (Vec<&'v DatabaseView>, Vec<Rebuild<'v>>);

/// Rebuild `r` of a volume holding `dbs` with the groups at `overlapping` (ascending), which
/// leave their places empty: its databases then theirs, latest group first; their rebuilds in
/// the groups' order, then `r`.
fn merge<'v>(
    groups: &mut [Option<Outage<'v>>],
    overlapping: &[usize],
    mut dbs: Vec<&'v DatabaseView>,
    r: Rebuild<'v>,
) -> Outage<'v> {
    let mut seen: FastSet<*const DatabaseView> = dbs.iter().map(|d| std::ptr::from_ref(*d)).collect();
    for &i in overlapping.iter().rev() {
        for &x in groups[i].as_ref().map_or(&[][..], |g| g.0.as_slice()) {
            if seen.insert(std::ptr::from_ref(x)) {
                dbs.push(x);
            }
        }
    }
    let mut taken = overlapping.iter().filter_map(|&i| groups[i].take());
    let mut rebuilds = taken.next().map_or_else(Vec::new, |g| g.1);
    for g in taken {
        rebuilds.extend(g.1);
    }
    rebuilds.push(r);
    (dbs, rebuilds)
}

/// The databases an outage takes offline, and what its steps say about them.
struct Offline<'a> {
    dbs: &'a [&'a DatabaseView],
    names: Vec<String>,
    /// A system database is among them: the whole instance stops.
    whole_instance: bool,
    service: String,
    /// The volumes rebuilt, as one list for titles.
    vols: String,
    linux: bool,
}

/// The steps of one outage, in one unit: databases offline, each volume copied off, rebuilt and
/// copied back, databases online.
fn outage<'v>(b: &mut Builder<'v>, (dbs, rebuilds): Outage<'v>) {
    let offline = Offline {
        dbs: &dbs,
        names: dbs.iter().map(|d| d.db.name.clone()).collect(),
        whole_instance: dbs.iter().any(|d| d.db.effective_role() != DatabaseRole::User),
        service: service_name(b.view, dbs.first().map_or(0, |d| d.instance)),
        vols: rebuilds.iter().map(|r| r.volume.display_name()).collect::<Vec<_>>().join(", "),
        linux: b.linux,
    };
    let mut all_names: Vec<&str> = offline.names.iter().map(String::as_str).collect();
    for r in &rebuilds {
        all_names.extend(r.volume.mount_points.iter().map(String::as_str));
        all_names.extend(r.volume.item.label.as_deref());
        if let Some((vd, _, _)) = r.virtual_disk {
            all_names.extend(vd.name.as_deref());
        }
    }

    b.begin_unit();
    b.add(offline_step(&offline), &[], &all_names);
    for (k, r) in rebuilds.iter().enumerate() {
        volume_steps(b, k, r, &all_names);
    }
    if !dbs.is_empty() {
        b.add(online_step(&offline), &[], &all_names);
    }
    b.end_unit();
}

/// The outage's first step: its databases offline, or the instance stopped.
fn offline_step(o: &Offline<'_>) -> Step {
    let vols = &o.vols;
    let mut off = Step::new(
        Phase::Offline,
        if o.dbs.is_empty() {
            format!("Start the outage for {vols}")
        } else if o.whole_instance {
            format!("Stop SQL Server for the rebuild of {vols}")
        } else {
            format!("Take {} offline for the rebuild of {vols}", o.names.join(", "))
        },
        "The files on these volumes must not change while they are copied off and back.",
    );
    for d in o.dbs {
        off.preconditions.push(format!(
            "A verified full backup of {} (`BACKUP DATABASE … WITH CHECKSUM`, then `RESTORE VERIFYONLY`), kept off these volumes.",
            d.db.name
        ));
    }
    off.preconditions.push(format!(
        "A maintenance window: {vols} and their databases are unavailable until the last step of this outage."
    ));
    if o.whole_instance {
        off.commands.push(stop_service(o.linux, &o.service, true));
        off.rollback.push(stop_service(o.linux, &o.service, false));
    } else if !o.dbs.is_empty() {
        let sql: String = o
            .dbs
            .iter()
            .map(|d| {
                format!("ALTER DATABASE {} SET OFFLINE WITH ROLLBACK IMMEDIATE;\n", tsql_name(&d.db.name))
            })
            .collect();
        off.commands.push(Command::tsql(sql));
        let back: String =
            o.dbs.iter().map(|d| format!("ALTER DATABASE {} SET ONLINE;\n", tsql_name(&d.db.name))).collect();
        off.rollback.push(Command::tsql(back));
    }
    off
}

/// The `k`th volume of an outage: copied off, rebuilt, copied back.
fn volume_steps(b: &mut Builder<'_>, k: usize, r: &Rebuild<'_>, all_names: &[&str]) {
    let (view, linux) = (b.view, b.linux);
    let slot = format!("volume-{}", k + 1);
    let used = match (r.volume.size_bytes, r.volume.free_bytes) {
        (Some(s), Some(f)) => Some(s.saturating_sub(f)),
        _ => None,
    };
    let mut copy = Step::new(
        Phase::Offline,
        format!("Copy everything on {} to the staging folder", r.volume.display_name()),
        "A partition cannot be moved or realigned in place, nor clusters changed: the volume is \
         emptied and refilled.",
    );
    copy.preconditions.push(match used {
        Some(u) => format!(
            "A staging folder on another volume (`$StagingPath` in PowerShell, `$STAGING` in shell) with more than {} free.",
            units::bytes(u)
        ),
        None => "A staging folder on another volume (`$StagingPath` in PowerShell, `$STAGING` in shell) with room for everything on the volume.".to_string(),
    });
    let mount = mount_of(r.volume);
    copy.commands.push(copy_cmd(linux, &mount, &slot, true));
    copy.rollback_note = Some("Nothing on the volume changed: delete the staging copy.".into());
    b.add(copy, &[], all_names);

    let mut rebuild = Step::new(
        Phase::Offline,
        rebuild_title(r),
        format!(
            "{} This deletes everything on {}.{}",
            what_changes(r),
            r.volume.display_name(),
            waived_alignment(b, r)
        ),
    );
    rebuild.destructive = true;
    rebuild.commands = rebuild_commands(view, linux, r);
    rebuild.rollback_note = Some(format!(
        "The old {} and its contents are gone: copy the staging folder back onto a volume made as \
         before, or restore the verified backups.",
        if r.virtual_disk.is_some() { "virtual disk" } else { "partition" }
    ));
    rebuild.preconditions.push(format!(
        "The staging copy of {} is complete (the step before succeeded).",
        r.volume.display_name()
    ));
    b.add(rebuild, &r.findings, all_names);

    let mut back = Step::new(
        Phase::Offline,
        format!("Copy the files back to {} and check the new layout", r.volume.display_name()),
        "The files return to the same paths, so SQL Server finds them where it left them.",
    );
    back.commands.push(copy_cmd(linux, &mount, &slot, false));
    back.commands.push(verify_cmd(view, linux, r));
    back.rollback_note = Some("Copy again from the staging folder.".into());
    b.add(back, &[], all_names);
}

/// The outage's last step: its databases online (or the instance started) and checked.
fn online_step(o: &Offline<'_>) -> Step {
    let mut on = Step::new(
        Phase::Offline,
        if o.whole_instance {
            "Start SQL Server and check the databases".to_string()
        } else {
            format!(
                "Bring {} online and check {}",
                o.names.join(", "),
                if o.names.len() == 1 { "it" } else { "them" }
            )
        },
        "Ends the outage. DBCC CHECKDB confirms the copied files are whole.",
    );
    if o.whole_instance {
        on.commands.push(stop_service(o.linux, &o.service, false));
    } else {
        let sql: String =
            o.dbs.iter().map(|d| format!("ALTER DATABASE {} SET ONLINE;\n", tsql_name(&d.db.name))).collect();
        on.commands.push(Command::tsql(sql));
    }
    let check: String = o
        .dbs
        .iter()
        .map(|d| format!("DBCC CHECKDB ({}) WITH NO_INFOMSGS;\n", crate::commands::tsql_string(&d.db.name)))
        .collect();
    on.commands.push(Command::tsql(check));
    on.rollback_note =
        Some("If a check fails: take the database offline and restore the verified backup.".into());
    on
}

fn service_name(view: &HostView, instance: usize) -> String {
    let name = view.instances.iter().flatten().nth(instance).map_or("MSSQLSERVER", |i| i.name.as_str());
    if name.eq_ignore_ascii_case("MSSQLSERVER") { name.to_string() } else { format!("MSSQL${name}") }
}

fn stop_service(linux: bool, service: &str, stop: bool) -> Command {
    match (linux, stop) {
        (true, true) => Command::sh("systemctl stop mssql-server"),
        (true, false) => Command::sh("systemctl start mssql-server"),
        (false, true) => Command::ps(format!("Stop-Service -Name {} -Force", ps_string(service))),
        (false, false) => Command::ps(format!("Start-Service -Name {}", ps_string(service))),
    }
}

/// Where the volume is mounted: its drive letter's root, else its first mount point.
fn mount_of(v: &Volume) -> String {
    match drive_letter(v) {
        Some(l) => format!("{l}:\\"),
        None => v.mount_points.first().cloned().unwrap_or_else(|| v.id.clone()),
    }
}

fn copy_cmd(linux: bool, mount: &str, slot: &str, off: bool) -> Command {
    if linux {
        let m = sh_word(checked_path(mount));
        return Command::sh(if off {
            format!("mkdir -p \"$STAGING/{slot}\"\ncp -a {m}/. \"$STAGING/{slot}/\"")
        } else {
            format!("cp -a \"$STAGING/{slot}/.\" {m}/")
        });
    }
    let (from, to) = if off {
        (ps_native_path(mount), format!("(Join-Path $StagingPath '{slot}')"))
    } else {
        (format!("(Join-Path $StagingPath '{slot}')"), ps_native_path(mount))
    };
    // robocopy's exit codes 0-7 are success; 8 and above mean files were not copied.
    Command::ps(format!(
        "robocopy {from} {to} /E /COPYALL /DCOPY:DAT /R:1 /W:1 /XD 'System Volume Information' '$RECYCLE.BIN'\n\
         if ($LASTEXITCODE -ge 8) {{ throw \"robocopy failed with exit code $LASTEXITCODE\" }}"
    ))
}

/// The disk number diskpart and the Storage cmdlets take: the disk's, or the one a
/// `\\.\PHYSICALDRIVEn` id carries.
fn disk_number(disk: Option<u32>, p: &Partition) -> Option<u32> {
    disk.or_else(|| p.disk_id.strip_prefix(r"\\.\PHYSICALDRIVE").and_then(|n| n.parse().ok()))
}

fn rebuild_title(r: &Rebuild<'_>) -> String {
    let v = r.volume.display_name();
    if let Some((vd, _, _)) = r.virtual_disk {
        format!("Recreate virtual disk {} and volume {v}", vd_name(vd))
    } else if let Some((p, _)) = r.partition {
        format!(
            "Recreate partition {} of disk {} ({v}) aligned, and format it",
            p.number.map_or_else(|| p.id.clone(), |n| n.to_string()),
            disk_number(r.disk_number, p).map_or_else(|| p.disk_id.clone(), |n| n.to_string())
        )
    } else {
        format!("Format {v} again")
    }
}

/// What the rebuild changes, in words.
fn what_changes(r: &Rebuild<'_>) -> String {
    let mut parts = vec![];
    if let Some((vd, cols, inter)) = r.virtual_disk {
        let mut s = format!("virtual disk {}", vd_name(vd));
        if let Some(c) = cols {
            s.push_str(&format!(" from {} to {c} columns", vd.columns.map_or("?".into(), |x| x.to_string())));
        }
        if let Some(i) = inter {
            s.push_str(&format!(
                ", interleave from {} to {}",
                vd.interleave_bytes.map_or("?".into(), units::binary),
                units::binary(i)
            ));
        }
        parts.push(s);
    }
    if let Some((p, align)) = r.partition {
        parts.push(format!(
            "partition start from {} to {} (a multiple of {})",
            p.offset_bytes.map_or("?".into(), units::bytes),
            units::binary(aligned_offset(align)),
            units::binary(align)
        ));
    }
    let cluster = r.cluster_bytes.unwrap_or(65_536);
    parts.push(format!(
        "clusters from {} to {}",
        r.volume.allocation_unit_bytes.map_or("?".into(), units::bytes),
        units::binary(cluster)
    ));
    if let Some(fs) = &r.filesystem {
        parts.push(format!("filesystem from {} to {fs}", r.volume.filesystem.as_deref().unwrap_or("?")));
    }
    format!("Changes {}.", parts.join("; "))
}

/// The rebuild with diskpart and format.com, for Windows Server 2008 R2 and older, which lack
/// the Storage cmdlets (Windows Server 2012 brought them). diskpart reads its commands from a
/// file and stops at the first error with a non-zero exit code.
fn diskpart_commands(r: &Rebuild<'_>) -> Vec<Command> {
    let Some(letter) = drive_letter(r.volume) else {
        quote::refuse(format!(
            "{} has no drive letter, and diskpart and format.com of Windows Server 2008 R2 and older \
             are only written here for a drive",
            r.volume.display_name()
        ));
        return vec![];
    };
    let mut s = String::new();
    if let Some((p, align)) = r.partition {
        let Some(disk) = disk_number(r.disk_number, p) else {
            quote::refuse(format!("the disk number of partition {} is not known", p.id));
            return vec![];
        };
        s.push_str(&format!(
            "$diskpartScript = Join-Path $env:TEMP 'spindle-diskpart.txt'\n\
             Set-Content -LiteralPath $diskpartScript -Encoding ASCII -Value 'select disk {disk}', \
             'select partition {}', 'delete partition', 'create partition primary align={}', 'assign letter={letter}'\n\
             diskpart /s $diskpartScript\n\
             if ($LASTEXITCODE -ne 0) {{ throw \"diskpart failed with exit code $LASTEXITCODE\" }}\n",
            p.number.unwrap_or(1),
            aligned_offset(align) / 1024
        ));
    }
    // A label is passed only when format.com cannot misread it; otherwise it is set by hand.
    let label = r
        .volume
        .item
        .label
        .as_deref()
        .filter(|l| {
            !l.is_empty()
                && l.len() <= 32
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
        .map(|l| format!(" /V:{l}"))
        .unwrap_or_default();
    // format.com asks before it formats: the answer is piped in.
    s.push_str(&format!(
        "'Y' | format.com {letter}: /FS:{} /A:{}K /Q{label}\n\
         if ($LASTEXITCODE -ne 0) {{ throw \"format failed with exit code $LASTEXITCODE\" }}",
        r.filesystem.as_deref().unwrap_or("NTFS"),
        r.cluster_bytes.unwrap_or(65_536) / 1024
    ));
    vec![Command::ps(s)]
}

pub(super) fn old_windows(view: &HostView) -> bool {
    view.host.os_version.as_deref().is_some_and(|v| ["2003", "2008", " 2000"].iter().any(|o| v.contains(o)))
}

fn rebuild_commands(view: &HostView, linux: bool, r: &Rebuild<'_>) -> Vec<Command> {
    let v = r.volume;
    let cluster = r.cluster_bytes.unwrap_or(65_536);
    if !linux && r.virtual_disk.is_none() && old_windows(view) {
        return diskpart_commands(r);
    }
    if linux {
        let mount = linux_mount(v).map(sh_word);
        let mut s = String::new();
        if let Some(m) = &mount {
            s.push_str(&format!("umount {m}\n"));
        }
        let dev = if let Some((p, align)) = r.partition {
            let disk = sh_word(&dev_path(&p.disk_id));
            let n = p.number.unwrap_or(1);
            let start_mib = aligned_offset(align) >> 20;
            s.push_str(&format!(
                "parted -s {disk} rm {n}\nparted -s -a none {disk} mkpart primary {start_mib}MiB 100%\n"
            ));
            sh_word(&dev_path(&p.id))
        } else {
            sh_word(&dev_path(&v.id))
        };
        let su = view
            .stripe_of_volume(v)
            .map(|st| match st.width {
                Some(w) => format!(" -d su={}k,sw={w}", st.unit_bytes / 1024),
                None => format!(" -d su={}k,sw=1", st.unit_bytes / 1024),
            })
            .unwrap_or_default();
        let fs = r.filesystem.as_deref().unwrap_or("xfs");
        if fs == "xfs" {
            s.push_str(&format!("mkfs.xfs -f{su} {dev}\n"));
        } else {
            s.push_str(&format!("mkfs.{fs} {dev}\n"));
        }
        if let Some(m) = &mount {
            s.push_str(&format!("mount {m}\n"));
        }
        return vec![Command::sh(s)];
    }
    let label =
        v.item.label.as_deref().map(|l| format!(" -NewFileSystemLabel {}", ps_string(l))).unwrap_or_default();
    let fs = r.filesystem.as_deref().unwrap_or_else(|| match v.filesystem.as_deref() {
        Some(f) if f.eq_ignore_ascii_case("refs") => "ReFS",
        _ => "NTFS",
    });
    let format =
        format!("Format-Volume -FileSystem {fs} -AllocationUnitSize {cluster}{label} -Confirm:$false");
    let letter = drive_letter(v);
    let place = letter.map(|l| format!(" -DriveLetter {l}")).unwrap_or_default();
    let folder = if letter.is_none() { v.mount_points.first() } else { None };
    let access = |target: &str| {
        folder
            .map(|f| format!("\n{target} | Add-PartitionAccessPath -AccessPath {}", ps_string(f)))
            .unwrap_or_default()
    };
    if let Some((vd, cols, inter)) = r.virtual_disk {
        let pool = view.pool(&vd.pool_id).map_or(vd.pool_id.as_str(), |p| pool_name(p));
        let resiliency = vd.resiliency.as_deref().and_then(Resiliency::parse).unwrap_or(Resiliency::Simple);
        let columns = cols.or(vd.columns).unwrap_or(1);
        let interleave = format!("{}KB", inter.or(vd.interleave_bytes).unwrap_or(65_536) / 1024);
        let name = vd_name(vd);
        let s = format!(
            "Remove-VirtualDisk -FriendlyName {n} -Confirm:$false\n{}\n\
             $disk = Get-VirtualDisk -FriendlyName {n} | Get-Disk\n\
             Initialize-Disk -Number $disk.Number -PartitionStyle GPT\n\
             $part = New-Partition -DiskNumber $disk.Number -UseMaximumSize -Alignment {}{place}\n\
             $part | {format}{}",
            new_virtual_disk(pool, name, resiliency, columns, 2, &interleave),
            aligned_offset(inter.or(vd.interleave_bytes).unwrap_or(65_536)),
            access("$part"),
            n = ps_string(name),
        );
        return vec![Command::ps(s)];
    }
    if let Some((p, align)) = r.partition {
        let disk_arg = match disk_number(r.disk_number, p) {
            Some(n) => format!("-DiskNumber {n}"),
            None => format!("-DiskNumber (Get-Disk -UniqueId {}).Number", ps_string(&p.disk_id)),
        };
        let n = p.number.unwrap_or(1);
        let s = format!(
            "Remove-Partition {disk_arg} -PartitionNumber {n} -Confirm:$false\n\
             $part = New-Partition {disk_arg} -UseMaximumSize -Alignment {}{place}\n\
             $part | {format}{}",
            aligned_offset(align),
            access("$part"),
        );
        return vec![Command::ps(s)];
    }
    let get = match letter {
        Some(l) => format!("Get-Volume -DriveLetter {l}"),
        None => format!("Get-Volume -FilePath {}", ps_string(&mount_of(v))),
    };
    vec![Command::ps(format!("{get} | {format}"))]
}

fn verify_cmd(view: &HostView, linux: bool, r: &Rebuild<'_>) -> Command {
    let v = r.volume;
    if linux {
        let mut s = String::new();
        if let Some(m) = linux_mount(v) {
            s.push_str(&format!("xfs_info {}\n", sh_word(m)));
        }
        if let Some((p, _)) = r.partition {
            let name = p.id.trim_start_matches("/dev/");
            s.push_str(&format!("cat /sys/class/block/{}/start\n", sh_word(name)));
        }
        return Command::sh(s);
    }
    let mut s = String::new();
    match drive_letter(v) {
        Some(l) if old_windows(view) => {
            s.push_str(&format!(
                "Get-WmiObject -Class Win32_DiskPartition | Select-Object -Property 'DiskIndex', 'Index', 'StartingOffset'\n\
                 fsutil fsinfo ntfsinfo {l}:\n"
            ));
        }
        Some(l) => {
            s.push_str(&format!("Get-Partition -DriveLetter {l} | Select-Object -Property 'DiskNumber', 'PartitionNumber', 'Offset'\n"));
            s.push_str(&format!("fsutil fsinfo ntfsinfo {l}:\n"));
        }
        None => s.push_str(&format!(
            "{} | Format-List -Property 'FileSystem', 'AllocationUnitSize'\n",
            format_args!("Get-Volume -FilePath {}", ps_string(&mount_of(v)))
        )),
    }
    if let Some((vd, _, _)) = r.virtual_disk {
        s.push_str(&format!(
            "Get-VirtualDisk -FriendlyName {} | Select-Object -Property 'NumberOfColumns', 'Interleave'\n",
            ps_string(vd_name(vd))
        ));
    }
    Command::ps(s)
}

/// What a rebuild that leaves the partition where it is says about a waived alignment finding
/// on that partition: the volume is emptied anyway, so realigning it in the same outage costs
/// nothing more.
fn waived_alignment(b: &Builder<'_>, r: &Rebuild<'_>) -> String {
    if r.partition.is_some() {
        return String::new();
    }
    let parts = b.view.partitions_of_volume(r.volume);
    let waived: Vec<String> = b
        .waived
        .iter()
        .filter(|(_, remedies)| remedies.contains(&Remedy::Rebuild(RebuildPart::Alignment)))
        .map(|(f, _)| *f)
        .filter(|f| parts.iter().any(|p| p.key == f.entity.key))
        .map(|f| {
            let w = f.waiver.as_ref();
            format!(
                "{} on {} (waived in {}: {})",
                f.code,
                f.entity.label,
                w.map_or("a pack", |w| w.source.as_str()),
                w.map_or("", |w| w.reason.as_str())
            )
        })
        .collect();
    if waived.is_empty() {
        return String::new();
    }
    format!(
        " The volume is emptied and refilled anyway: realigning its partition in the same outage \
         costs nothing more, so consider lifting the waiver of {} and recreating the partition here.",
        waived.join("; ")
    )
}
