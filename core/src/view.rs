//! One host's facts, merged from every snapshot file that describes it, with each entity's stable
//! key, readable label and origin (file and JSON pointer) so findings can point at the fact.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::ops::Deref;
use std::sync::OnceLock;

use crate::declare::Declarations;
use crate::facts::*;
use crate::source::SourceDoc;

mod file_volume;

pub use file_volume::{UnknownVolume, UnknownVolumeCause};

/// A loaded snapshot file: its path and text (kept to locate facts for reports) and its facts.
#[derive(Debug, Clone)]
pub struct Document {
    pub path: String,
    pub text: String,
    pub snapshot: Snapshot,
}

/// Where an entity was read: document index in [`HostView::docs`] and JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub doc: usize,
    pub pointer: String,
}

/// An entity with its stable key (used for waivers and fingerprints), its label for people, and
/// every place it was read (several when snapshots were merged).
#[derive(Debug, Clone)]
pub struct Located<T> {
    pub item: T,
    pub key: String,
    pub label: String,
    pub origins: Vec<Origin>,
}

impl<T> Deref for Located<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.item
    }
}

/// A reference to an entity of a view, as findings carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityRef {
    pub key: String,
    pub label: String,
    pub origins: Vec<Origin>,
}

impl<T> Located<T> {
    pub fn entity(&self) -> EntityRef {
        EntityRef { key: self.key.clone(), label: self.label.clone(), origins: self.origins.clone() }
    }
}

/// A database with its files (moved out of [`Database::files`], which is left empty).
#[derive(Debug, Clone)]
pub struct DatabaseView {
    pub db: Located<Database>,
    /// Index into [`HostView::instances`].
    pub instance: usize,
    /// Absent: the files were not collected.
    pub files: Option<Vec<Located<DbFile>>>,
}

/// Where a stripe unit comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StripeSource {
    /// A Storage Spaces virtual disk (its interleave), by index into `virtual_disks`.
    VirtualDisk(usize),
    /// A RAID set (its stripe unit), by index into `raid_sets`.
    RaidSet(usize),
    /// An LVM logical volume's striping.
    Lvm(String),
    /// Declared in a rule pack (the pack's path).
    Declared(String),
}

/// The stripe geometry under a volume or partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stripe {
    pub unit_bytes: u64,
    /// Disks a stripe spans (columns, data disks), when known.
    pub width: Option<u32>,
    pub source: StripeSource,
}

/// One host's merged facts. Sections are `None` when no snapshot collected them.
#[derive(Debug, Clone)]
pub struct HostView {
    /// The snapshot files, indexed for locating facts.
    pub docs: Vec<SourceDoc>,
    pub host: Located<Host>,
    pub collectors: Vec<CollectorReport>,
    pub disks: Option<Vec<Located<Disk>>>,
    pub partitions: Option<Vec<Located<Partition>>>,
    pub volumes: Option<Vec<Located<Volume>>>,
    pub storage_pools: Option<Vec<Located<StoragePool>>>,
    pub virtual_disks: Option<Vec<Located<VirtualDisk>>>,
    pub raid_sets: Option<Vec<Located<RaidSet>>>,
    /// Instances; their `databases` are moved to [`HostView::databases`] (an instance whose
    /// databases were collected keeps an empty list, one whose were not keeps `None`).
    pub instances: Option<Vec<Located<SqlInstance>>>,
    pub databases: Vec<DatabaseView>,
    pub declared: Declarations,
    /// Normalised volume id → index in `volumes`, for joins by id.
    volume_ids: HashMap<String, usize>,
    /// Normalised mount points with their volume's index, longest first, for joins by path.
    mounts: Vec<(String, usize)>,
    /// Joins several rules ask for per file or per volume, answered once per host.
    memo: Memo,
}

/// Answers to joins, computed on first use from the view's facts: a rule that asks for the
/// volume of each of 50 files, or the physical disks of each file's volume, would otherwise
/// redo the same normalising and walking for every file, in every rule that asks. Computed
/// lazily so hosts (and rule selections) that never ask pay nothing. They assume the view is
/// not changed once rules look at it; a clone starts with none.
#[derive(Debug, Default)]
struct Memo {
    /// The index in `volumes` of each database file's volume, by database and file index.
    file_volumes: OnceLock<Vec<Vec<Option<usize>>>>,
    /// [`HostView::physical_disks_of_volume`] of each volume, by index in `volumes`.
    volume_disks: OnceLock<Vec<Option<BTreeSet<String>>>>,
}

impl Clone for Memo {
    fn clone(&self) -> Self {
        Memo::default()
    }
}

/// The parts joined, in one allocation: keys, pointers and labels are built for every entity of
/// every host, and `format!` costs several times as much for such plain joins.
fn cat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        out.push_str(p);
    }
    out
}

fn merge_into<T: Merge>(
    section: &mut Option<Vec<Located<T>>>,
    items: Option<Vec<T>>,
    doc: usize,
    base: &str,
    key_of: impl Fn(&T) -> String,
) {
    let Some(items) = items else { return };
    let out = section.get_or_insert_with(Vec::new);
    for (i, item) in items.into_iter().enumerate() {
        let origin = Origin { doc, pointer: cat(&[base, "/", &i.to_string()]) };
        let key = key_of(&item);
        match out.iter_mut().find(|l| l.key == key) {
            Some(existing) => {
                existing.item.merge_from(item);
                existing.origins.push(origin);
            }
            None => out.push(Located { item, key, label: String::new(), origins: vec![origin] }),
        }
    }
}

impl HostView {
    /// Merges snapshot files of one host. The caller groups documents by `host.name`.
    pub fn build(docs: Vec<Document>, declared: Declarations) -> HostView {
        let mut host: Option<Located<Host>> = None;
        let mut v = HostView {
            docs: Vec::with_capacity(docs.len()),
            host: Located {
                item: Host::default(),
                key: String::new(),
                label: String::new(),
                origins: vec![],
            },
            collectors: vec![],
            disks: None,
            partitions: None,
            volumes: None,
            storage_pools: None,
            virtual_disks: None,
            raid_sets: None,
            instances: None,
            databases: vec![],
            declared,
            volume_ids: HashMap::new(),
            mounts: vec![],
            memo: Memo::default(),
        };
        let mut raw_instances: Option<Vec<Located<SqlInstance>>> = None;
        for (d, doc) in docs.into_iter().enumerate() {
            v.docs.push(SourceDoc::new(doc.path, doc.text));
            let s = doc.snapshot;
            let origin = Origin { doc: d, pointer: "/host".into() };
            match &mut host {
                Some(h) => {
                    h.item.merge_from(s.host);
                    h.origins.push(origin);
                }
                None => {
                    let name = s.host.name.clone();
                    host =
                        Some(Located { item: s.host, key: name.clone(), label: name, origins: vec![origin] });
                }
            }
            v.collectors.extend(s.collectors);
            let h = host.as_ref().map(|h| h.key.clone()).unwrap_or_default();
            merge_into(&mut v.disks, s.disks, d, "/disks", |x| format!("{h}/disk:{}", x.id));
            merge_into(&mut v.partitions, s.partitions, d, "/partitions", |x| {
                format!(
                    "{h}/disk:{}/partition:{}",
                    x.disk_id,
                    x.number.map_or(x.id.clone(), |n| n.to_string())
                )
            });
            merge_into(&mut v.volumes, s.volumes, d, "/volumes", |x| {
                format!("{h}/volume:{}", norm_volume_id(&x.id))
            });
            merge_into(&mut v.storage_pools, s.storage_pools, d, "/storage_pools", |x| {
                format!("{h}/pool:{}", x.id)
            });
            merge_into(&mut v.virtual_disks, s.virtual_disks, d, "/virtual_disks", |x| {
                format!("{h}/virtual-disk:{}", x.id)
            });
            merge_into(&mut v.raid_sets, s.raid_sets, d, "/raid_sets", |x| format!("{h}/raid:{}", x.id));
            merge_into(&mut raw_instances, s.sql_instances, d, "/sql_instances", |x| {
                format!("{h}/instance:{}", x.name)
            });
        }
        v.host = host.unwrap_or(v.host);
        v.split_databases(raw_instances);
        v.label_entities();
        v.index_volumes();
        v
    }

    fn index_volumes(&mut self) {
        for (i, vol) in self.volumes.iter().flatten().enumerate() {
            self.volume_ids.entry(norm_volume_id(&vol.item.id)).or_insert(i);
            self.mounts.extend(vol.item.mount_points.iter().map(|m| (norm_path(m), i)));
        }
        self.mounts.sort_by_key(|(m, _)| std::cmp::Reverse(m.len()));
    }

    /// Moves databases and files out of the instances so rules can walk them with origins.
    fn split_databases(&mut self, instances: Option<Vec<Located<SqlInstance>>>) {
        let Some(mut instances) = instances else { return };
        for (ii, inst) in instances.iter_mut().enumerate() {
            let Some(dbs) = inst.item.databases.take() else { continue };
            // Collected, now held by `self.databases`: keep "collected" visible on the instance.
            inst.item.databases = Some(Vec::new());
            // Merged instances keep the first origin for the databases list; that is where
            // merge_from kept them from.
            let base = inst.origins[0].clone();
            for (di, mut db) in dbs.into_iter().enumerate() {
                let db_origin =
                    Origin { doc: base.doc, pointer: cat(&[&base.pointer, "/databases/", &di.to_string()]) };
                let db_key = cat(&[&inst.key, "/database:", &db.name]);
                let files = db.files.take().map(|files| {
                    files
                        .into_iter()
                        .enumerate()
                        .map(|(fi, f)| Located {
                            key: cat(&[&db_key, "/file:", &f.logical_name]),
                            label: String::new(),
                            origins: vec![Origin {
                                doc: base.doc,
                                pointer: cat(&[&db_origin.pointer, "/files/", &fi.to_string()]),
                            }],
                            item: f,
                        })
                        .collect()
                });
                self.databases.push(DatabaseView {
                    db: Located { item: db, key: db_key, label: String::new(), origins: vec![db_origin] },
                    instance: ii,
                    files,
                });
            }
        }
        self.instances = Some(instances);
    }

    fn label_entities(&mut self) {
        let h = self.host.label.clone();
        for d in self.disks.iter_mut().flatten() {
            d.label = match d.item.number {
                Some(n) => format!("{h} › disk {n}"),
                None => format!("{h} › disk {}", d.item.id),
            };
        }
        let disk_labels: Vec<(String, String)> =
            self.disks.iter().flatten().map(|d| (d.item.id.clone(), d.label.clone())).collect();
        let mounts: Vec<(String, String)> = self
            .partitions
            .iter()
            .flatten()
            .map(|p| {
                let mount = self
                    .volumes
                    .iter()
                    .flatten()
                    .find(|v| backs(&v.item.backed_by, &p.item.id))
                    .and_then(|v| v.item.mount_points.first().cloned())
                    .unwrap_or_default();
                (p.item.id.clone(), mount)
            })
            .collect();
        for p in self.partitions.iter_mut().flatten() {
            let disk = disk_labels
                .iter()
                .find(|(id, _)| *id == p.item.disk_id)
                .map_or(format!("{h} › disk {}", p.item.disk_id), |(_, l)| l.clone());
            let part = p.item.number.map_or(p.item.id.clone(), |n| n.to_string());
            let mount = mounts.iter().find(|(id, _)| *id == p.item.id).map(|(_, m)| m.as_str()).unwrap_or("");
            p.label = if mount.is_empty() {
                format!("{disk} › partition {part}")
            } else {
                format!("{disk} › partition {part} ({mount})")
            };
        }
        for v in self.volumes.iter_mut().flatten() {
            v.label = format!("{h} › volume {}", v.item.display_name());
        }
        for p in self.storage_pools.iter_mut().flatten() {
            p.label = format!("{h} › pool {}", p.item.name.as_deref().unwrap_or(&p.item.id));
        }
        for x in self.virtual_disks.iter_mut().flatten() {
            x.label = format!("{h} › virtual disk {}", x.item.name.as_deref().unwrap_or(&x.item.id));
        }
        for r in self.raid_sets.iter_mut().flatten() {
            r.label = format!("{h} › RAID set {}", r.item.id);
        }
        for i in self.instances.iter_mut().flatten() {
            i.label = format!("{h} › {}", i.item.name);
        }
        let inst_labels: Vec<String> = self.instances.iter().flatten().map(|i| i.label.clone()).collect();
        for dv in &mut self.databases {
            dv.db.label = cat(&[&inst_labels[dv.instance], " › ", &dv.db.item.name]);
            for f in dv.files.iter_mut().flatten() {
                f.label = match &f.item.physical_name {
                    Some(p) => cat(&[&dv.db.label, " › ", &f.item.logical_name, " (", p, ")"]),
                    None => cat(&[&dv.db.label, " › ", &f.item.logical_name]),
                };
            }
        }
    }

    /// The entity with this key, wherever it is in the view.
    pub fn entity(&self, key: &str) -> Option<EntityRef> {
        fn find<T>(s: &Option<Vec<Located<T>>>, key: &str) -> Option<EntityRef> {
            s.iter().flatten().find(|l| l.key == key).map(Located::entity)
        }
        if self.host.key == key {
            return Some(self.host.entity());
        }
        find(&self.disks, key)
            .or_else(|| find(&self.partitions, key))
            .or_else(|| find(&self.volumes, key))
            .or_else(|| find(&self.storage_pools, key))
            .or_else(|| find(&self.virtual_disks, key))
            .or_else(|| find(&self.raid_sets, key))
            .or_else(|| find(&self.instances, key))
            .or_else(|| {
                self.databases.iter().find_map(|d| {
                    if d.db.key == key {
                        return Some(d.db.entity());
                    }
                    d.files.iter().flatten().find(|f| f.key == key).map(Located::entity)
                })
            })
    }

    /// The merged facts as one snapshot: what a plugin is given for this host. Entity keys
    /// computed from it are the view's own, so a plugin's findings map back to these entities.
    pub fn to_snapshot(&self) -> Snapshot {
        fn items<T: Clone>(s: &Option<Vec<Located<T>>>) -> Option<Vec<T>> {
            s.as_ref().map(|v| v.iter().map(|l| l.item.clone()).collect())
        }
        let mut sql_instances = items(&self.instances);
        for dv in &self.databases {
            let mut db = dv.db.item.clone();
            db.files = dv.files.as_ref().map(|f| f.iter().map(|l| l.item.clone()).collect());
            if let Some(inst) = sql_instances.as_mut().and_then(|i| i.get_mut(dv.instance)) {
                inst.databases.get_or_insert_with(Vec::new).push(db);
            }
        }
        Snapshot {
            schema_version: SCHEMA_VERSION,
            collected_at: None,
            host: self.host.item.clone(),
            collectors: self.collectors.clone(),
            disks: items(&self.disks),
            partitions: items(&self.partitions),
            volumes: items(&self.volumes),
            storage_pools: items(&self.storage_pools),
            virtual_disks: items(&self.virtual_disks),
            raid_sets: items(&self.raid_sets),
            sql_instances,
        }
    }

    pub fn host_name(&self) -> &str {
        &self.host.key
    }

    pub fn disk(&self, id: &str) -> Option<&Located<Disk>> {
        self.disks.iter().flatten().find(|d| d.item.id == id)
    }

    pub fn partition(&self, id: &str) -> Option<&Located<Partition>> {
        self.partitions.iter().flatten().find(|p| p.item.id == id)
    }

    pub fn volume(&self, id: &str) -> Option<&Located<Volume>> {
        let i = *self.volume_ids.get(&norm_volume_id(id))?;
        self.volumes.as_ref()?.get(i)
    }

    pub fn pool(&self, id: &str) -> Option<&Located<StoragePool>> {
        self.storage_pools.iter().flatten().find(|p| p.item.id == id)
    }

    pub fn virtual_disk_index(&self, id: &str) -> Option<usize> {
        self.virtual_disks.iter().flatten().position(|x| x.item.id == id)
    }

    pub fn raid_set_index(&self, id: &str) -> Option<usize> {
        self.raid_sets.iter().flatten().position(|x| x.item.id == id)
    }

    /// The volume holding a database file: by `volume_id` when the collector recorded one, else
    /// by the longest mount point that prefixes the file's path (so `E:\SQLData\` wins over `E:\`
    /// for a folder-mounted volume, and `E:\SQLDataOld\` stays on `E:\`). Never by drive letter
    /// alone. An empty `volume_id` (what `sys.dm_os_volume_stats` reports for a UNC path) counts
    /// as absent. When no collected volume holds the file, why not, worded the same for every
    /// rule that asks.
    pub fn volume_of_file(&self, f: &DbFile) -> Result<&Located<Volume>, UnknownVolume> {
        let i = match self.file_position(f) {
            Some((d, fi)) => {
                let memo = self.memo.file_volumes.get_or_init(|| {
                    let files = |d: &DatabaseView| {
                        d.files.iter().flatten().map(|f| self.find_volume_of_file(f)).collect()
                    };
                    self.databases.iter().map(files).collect()
                });
                memo[d][fi]
            }
            None => self.find_volume_of_file(f),
        };
        match i.and_then(|i| self.volumes.as_ref()?.get(i)) {
            Some(v) => Ok(v),
            None => Err(UnknownVolume::of(self, f)),
        }
    }

    /// [`HostView::volume_of_file`], worked out: the volume's index in `volumes`.
    fn find_volume_of_file(&self, f: &DbFile) -> Option<usize> {
        if let Some(id) = file_volume::file_volume_id(f) {
            return self.volume_ids.get(&norm_volume_id(id)).copied();
        }
        let path = norm_path(f.physical_name.as_deref()?);
        self.mounts.iter().find(|(m, _)| is_under(&path, m)).map(|&(_, i)| i)
    }

    /// Where `f` is in `databases` (database index, file index), when it is one of this view's
    /// own files, as rules pass them: found by address, so a copy or a file from elsewhere is
    /// never mistaken for one and is worked out afresh.
    fn file_position(&self, f: &DbFile) -> Option<(usize, usize)> {
        // Which database's file list holds the address, then which element: arithmetic on
        // addresses, confirmed by comparing the element's, rather than a walk over every file
        // (rules ask for each file, so the walk made them quadratic in the host's files).
        let addr = std::ptr::from_ref(f) as usize;
        let size = std::mem::size_of::<Located<DbFile>>();
        self.databases.iter().enumerate().find_map(|(d, dv)| {
            let files = dv.files.as_deref()?;
            let start = files.as_ptr() as usize;
            let fi = addr.checked_sub(start)? / size.max(1);
            files.get(fi).filter(|l| std::ptr::eq(&l.item, f)).map(|_| (d, fi))
        })
    }

    /// Partitions that hold data: those a volume or a RAID set is built on. When volumes were
    /// not collected every partition counts, since none can be ruled out. A partition nothing is
    /// built on (the Microsoft Reserved partition at 17,408 B on a GPT disk, an unformatted
    /// leftover) serves no I/O, so where it starts does not matter.
    pub fn data_partitions(&self) -> impl Iterator<Item = &Located<Partition>> {
        self.partitions.iter().flatten().filter(|p| {
            let Some(volumes) = &self.volumes else { return true };
            volumes.iter().any(|v| backs(&v.item.backed_by, &p.item.id))
                || self
                    .raid_sets
                    .iter()
                    .flatten()
                    .any(|r| r.item.member_ids.iter().flatten().any(|m| *m == p.item.id))
        })
    }

    /// Partitions a volume is built on (directly or, for an LVM volume, through its devices).
    pub fn partitions_of_volume(&self, v: &Volume) -> Vec<&Located<Partition>> {
        match &v.backed_by {
            Some(Backing::Partitions(ids)) => ids.iter().filter_map(|id| self.partition(id)).collect(),
            Some(Backing::Lvm { devices, .. }) => {
                devices.iter().filter_map(|id| self.partition(id)).collect()
            }
            _ => vec![],
        }
    }

    /// The stripe geometry under a disk: the virtual disk or RAID set exposing it, else a
    /// declaration in a pack.
    pub fn stripe_of_disk(&self, disk: &Located<Disk>) -> Option<Stripe> {
        if let Some(b) = &disk.item.backed_by
            && let Some(s) = self.stripe_of_backing(b)
        {
            return Some(s);
        }
        self.declared_stripe(&[&disk.key, &disk.label])
    }

    /// The stripe geometry under a partition (that of its disk).
    pub fn stripe_of_partition(&self, p: &Located<Partition>) -> Option<Stripe> {
        let from_disk = self.disk(&p.item.disk_id).and_then(|d| self.stripe_of_disk(d));
        from_disk.or_else(|| self.declared_stripe(&[&p.key, &p.label]))
    }

    /// The stripe geometry under a volume.
    pub fn stripe_of_volume(&self, v: &Located<Volume>) -> Option<Stripe> {
        if let Some(b) = &v.item.backed_by {
            if let Some(s) = self.stripe_of_backing(b) {
                return Some(s);
            }
            for p in self.partitions_of_volume(&v.item) {
                if let Some(s) = self.stripe_of_partition(p) {
                    return Some(s);
                }
            }
        }
        self.declared_stripe(&[&v.key, &v.label])
    }

    fn stripe_of_backing(&self, b: &Backing) -> Option<Stripe> {
        match b {
            Backing::VirtualDisk(id) => {
                let i = self.virtual_disk_index(id)?;
                let vd = &self.virtual_disks.as_ref()?[i].item;
                Some(Stripe {
                    unit_bytes: vd.interleave_bytes?,
                    width: vd.columns,
                    source: StripeSource::VirtualDisk(i),
                })
            }
            Backing::RaidSet(id) => {
                let i = self.raid_set_index(id)?;
                let r = &self.raid_sets.as_ref()?[i].item;
                let width = r.member_ids.as_ref().map(|m| data_disks(r.level.as_deref(), m.len() as u32));
                Some(Stripe { unit_bytes: r.stripe_unit_bytes?, width, source: StripeSource::RaidSet(i) })
            }
            Backing::Lvm { name, stripes, stripe_unit_bytes, .. } => Some(Stripe {
                unit_bytes: (*stripe_unit_bytes)?,
                width: *stripes,
                source: StripeSource::Lvm(name.clone()),
            }),
            Backing::Partitions(ids) => ids
                .iter()
                .filter_map(|id| self.partition(id))
                .find_map(|p| self.disk(&p.item.disk_id).and_then(|d| self.stripe_of_disk(d))),
        }
    }

    fn declared_stripe(&self, names: &[&str]) -> Option<Stripe> {
        let d = self.declared.stripes.iter().find(|d| names.iter().any(|n| d.entity.matches(n)))?;
        Some(Stripe {
            unit_bytes: d.stripe_unit_bytes,
            width: d.data_disks,
            source: StripeSource::Declared(d.source.clone()),
        })
    }

    /// Whether nothing under a disk is striped, so stripe-unit alignment does not apply: a disk
    /// exposed by a RAID 1 mirror, or a drive attached on a bus no array hides behind (SATA,
    /// NVMe, USB). A SAS, SCSI, RAID, iSCSI or Fibre Channel disk may be an array's logical
    /// drive or a SAN LUN, so it is never assumed unstriped.
    pub fn disk_is_unstriped(&self, d: &Disk) -> bool {
        match &d.backed_by {
            Some(Backing::RaidSet(id)) => self.raid_is_mirror(id),
            Some(_) => false,
            None => d.bus.as_deref().is_some_and(|b| {
                let b = b.to_ascii_lowercase();
                ["sata", "ata", "atapi", "nvme", "usb", "sd", "mmc"].contains(&b.as_str())
            }),
        }
    }

    /// Whether nothing under a volume is striped (see [`HostView::disk_is_unstriped`]).
    pub fn volume_is_unstriped(&self, v: &Volume) -> bool {
        match &v.backed_by {
            Some(Backing::RaidSet(id)) => self.raid_is_mirror(id),
            Some(Backing::Partitions(_)) => {
                let parts = self.partitions_of_volume(v);
                !parts.is_empty()
                    && parts
                        .iter()
                        .all(|p| self.disk(&p.item.disk_id).is_some_and(|d| self.disk_is_unstriped(d)))
            }
            _ => false,
        }
    }

    fn raid_is_mirror(&self, id: &str) -> bool {
        self.raid_set_index(id).and_then(|i| self.raid_sets.as_ref()?.get(i)).is_some_and(|r| {
            let level = r.item.level.as_deref().unwrap_or("").to_ascii_lowercase();
            ["raid1", "1", "mirror"].contains(&level.as_str())
        })
    }

    /// The disks whose spindles (or flash) serve a volume: the pool's physical disks under a
    /// virtual disk, a RAID set's members, or the disks of its partitions. `None` when the
    /// backing is not known.
    ///
    /// Borrowed from the view's memo when `v` is one of its own volumes, as rules pass them.
    pub fn physical_disks_of_volume(&self, v: &Volume) -> Option<Cow<'_, BTreeSet<String>>> {
        let volumes = self.volumes.as_deref().unwrap_or_default();
        let Some(i) = volumes.iter().position(|l| std::ptr::eq(&l.item, v)) else {
            return self.find_physical_disks(v).map(Cow::Owned);
        };
        let memo = self
            .memo
            .volume_disks
            .get_or_init(|| volumes.iter().map(|l| self.find_physical_disks(&l.item)).collect());
        memo[i].as_ref().map(Cow::Borrowed)
    }

    /// [`HostView::physical_disks_of_volume`], worked out.
    fn find_physical_disks(&self, v: &Volume) -> Option<BTreeSet<String>> {
        let mut out = BTreeSet::new();
        match v.backed_by.as_ref()? {
            Backing::VirtualDisk(id) => self.expand_virtual_disk(id, &mut out)?,
            Backing::RaidSet(id) => self.expand_raid(id, &mut out)?,
            Backing::Lvm { devices, .. } if !devices.is_empty() => {
                for d in devices {
                    self.expand_device(d, &mut out);
                }
            }
            Backing::Lvm { .. } => return None,
            Backing::Partitions(ids) => {
                for id in ids {
                    let p = self.partition(id)?;
                    self.expand_device(&p.item.disk_id, &mut out);
                }
            }
        }
        Some(out)
    }

    fn expand_device(&self, id: &str, out: &mut BTreeSet<String>) {
        let disk_id = self.partition(id).map_or(id, |p| p.item.disk_id.as_str());
        match self.disk(disk_id).and_then(|d| d.item.backed_by.as_ref()) {
            Some(Backing::VirtualDisk(vd)) if self.expand_virtual_disk(vd, out).is_some() => {}
            Some(Backing::RaidSet(r)) if self.expand_raid(r, out).is_some() => {}
            _ => {
                out.insert(disk_id.to_string());
            }
        }
    }

    fn expand_virtual_disk(&self, id: &str, out: &mut BTreeSet<String>) -> Option<()> {
        let vd = &self.virtual_disks.as_ref()?[self.virtual_disk_index(id)?].item;
        let pool = self.pool(&vd.pool_id)?;
        out.extend(pool.item.physical_disk_ids.clone()?);
        Some(())
    }

    fn expand_raid(&self, id: &str, out: &mut BTreeSet<String>) -> Option<()> {
        let r = &self.raid_sets.as_ref()?[self.raid_set_index(id)?].item;
        for m in r.member_ids.as_ref()? {
            // md members are often partitions; count the disk they live on.
            out.insert(self.partition(m).map_or(m.clone(), |p| p.item.disk_id.clone()));
        }
        Some(())
    }

    /// All database files with their database, in snapshot order.
    pub fn files(&self) -> impl Iterator<Item = (&DatabaseView, &Located<DbFile>)> {
        self.databases.iter().flat_map(|d| d.files.iter().flatten().map(move |f| (d, f)))
    }

    /// Whether any SQL Server database file facts were collected.
    pub fn has_files(&self) -> bool {
        self.databases.iter().any(|d| d.files.is_some())
    }
}

/// Whether a normalised path is at or under a normalised mount point (`e:` for `E:\`, `/` for
/// the Linux root): the mount point is a prefix ending at a path separator.
fn is_under(path: &str, mount: &str) -> bool {
    if mount == "/" {
        return path.starts_with('/');
    }
    path.strip_prefix(mount).is_some_and(|rest| rest.is_empty() || rest.starts_with(['\\', '/']))
}

fn backs(b: &Option<Backing>, partition_id: &str) -> bool {
    match b {
        Some(Backing::Partitions(ids)) => ids.iter().any(|i| i == partition_id),
        Some(Backing::Lvm { devices, .. }) => devices.iter().any(|i| i == partition_id),
        _ => false,
    }
}

/// Data disks of a RAID set: members less parity (RAID 5: one, RAID 6: two) or mirrors.
fn data_disks(level: Option<&str>, members: u32) -> u32 {
    let level = level.unwrap_or("").to_ascii_lowercase().replace(['-', ' '], "");
    match level.as_str() {
        "raid5" | "5" | "raid4" | "4" => members.saturating_sub(1).max(1),
        "raid6" | "6" => members.saturating_sub(2).max(1),
        "raid1" | "1" => 1,
        "raid10" | "10" | "raid1+0" => (members / 2).max(1),
        _ => members.max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_snapshot_round_trips_merged_facts_and_keys() {
        let a = r#"{"schema_version": 1, "host": {"name": "h"},
            "volumes": [{"id": "\\\\?\\Volume{AB}\\", "mount_points": ["E:\\"]}],
            "sql_instances": [{"name": "I", "databases": [{"name": "d", "files": [
                {"type": "rows", "logical_name": "f", "volume_id": "\\\\?\\volume{ab}"}]}]}]}"#;
        let b = r#"{"schema_version": 1, "host": {"name": "h", "cpu_count": 4},
            "volumes": [{"id": "\\\\?\\VOLUME{AB}", "allocation_unit_bytes": 4096}]}"#;
        let docs = vec![
            crate::load::parse_snapshot("a.json", a.into()).unwrap(),
            crate::load::parse_snapshot("b.json", b.into()).unwrap(),
        ];
        let view = HostView::build(docs, Declarations::default());
        let snap = view.to_snapshot();
        assert_eq!(snap.host.cpu_count, Some(4));
        assert_eq!(snap.volumes.as_ref().unwrap()[0].allocation_unit_bytes, Some(4096));
        let again = HostView::build(
            vec![Document { path: "x".into(), text: String::new(), snapshot: snap }],
            Declarations::default(),
        );
        let keys = |v: &HostView| v.files().map(|(_, f)| f.key.clone()).collect::<Vec<_>>();
        assert_eq!(keys(&view), keys(&again));
        assert_eq!(keys(&view), ["h/instance:I/database:d/file:f"]);
        assert!(view.entity("h/instance:I/database:d/file:f").is_some());
        assert!(view.entity(r"h/volume:\\?\volume{ab}").is_some());
        assert!(view.entity("h/volume:nope").is_none());
    }

    #[test]
    fn under_a_mount_point() {
        assert!(is_under(&norm_path("E:\\Archive_log.ldf"), &norm_path("E:\\")));
        assert!(is_under(&norm_path("E:/SQLLOGS/x.ldf"), &norm_path("e:\\SQLLogs\\")));
        assert!(is_under(&norm_path("E:\\SQLData"), &norm_path("E:\\SQLData\\")));
        assert!(!is_under(&norm_path("E:\\SQLDataOld\\x.mdf"), &norm_path("E:\\SQLData\\")));
        assert!(!is_under(&norm_path("F:\\x.mdf"), &norm_path("E:\\")));
        assert!(is_under("/var/opt/mssql/data/x.mdf", "/"));
        assert!(is_under("/var/opt/mssql/data/x.mdf", "/var/opt/mssql/data"));
        assert!(!is_under("/var/opt/mssql/data2/x.mdf", "/var/opt/mssql/data"));
        assert!(
            !is_under("/var/opt/mssql/Data/x.mdf", "/var/opt/mssql/data"),
            "Linux paths are case-sensitive"
        );
        assert!(!is_under(&norm_path("C:\\x.mdf"), "/"));
    }
}
