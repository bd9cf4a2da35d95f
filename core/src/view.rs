//! One host's facts, merged from every snapshot file that describes it, with each entity's stable
//! key, readable label and origin (file and JSON pointer) so findings can point at the fact.

use crate::fast_hash::{FastMap, FastSet};
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::ops::{Deref, Range};
use std::sync::OnceLock;

use crate::declare::Declarations;
use crate::facts::*;
use crate::source::SourceDoc;

mod collector_reason;
mod file_volume;
mod stale;

pub use collector_reason::collector_reason;
pub use file_volume::{UnknownVolume, UnknownVolumeCause};
pub use stale::StaleFacts;

pub use crate::entity::{EntityRef, Origin};

// What a loaded file is belongs to the facts crate, which reads it; the view keeps the name.
pub use crate::load::Document;

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

/// What [`HostView::from_parts`] builds a view from.
#[derive(Debug, Clone, Default)]
pub struct ViewParts {
    pub host: Host,
    pub collectors: Vec<CollectorReport>,
    pub disks: Option<Vec<Located<Disk>>>,
    pub partitions: Option<Vec<Located<Partition>>>,
    pub volumes: Option<Vec<Located<Volume>>>,
    pub storage_pools: Option<Vec<Located<StoragePool>>>,
    pub virtual_disks: Option<Vec<Located<VirtualDisk>>>,
    pub raid_sets: Option<Vec<Located<RaidSet>>>,
    /// Their `databases` taken out into `databases` (an empty list when they were collected).
    pub instances: Option<Vec<Located<SqlInstance>>>,
    pub databases: Vec<DatabaseView>,
}

/// Where a stripe unit comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StripeSource {
    /// A Storage Spaces virtual disk (its interleave), by index into `virtual_disks`.
    VirtualDisk(usize),
    /// A RAID set (its stripe unit), by index into `raid_sets`.
    RaidSet(usize),
    /// A Windows dynamic-disk striped set whose stripe unit was not collected: the fixed 64 KiB
    /// every such set uses ([`RaidSet::stripe_unit`]), by index into `raid_sets`.
    DynamicDisk(usize),
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

/// Where one snapshot file's facts came from: when they were collected and by which collectors.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Provenance {
    /// The snapshot's `collected_at`, as written (RFC 3339 by spindle's collectors).
    pub collected_at: Option<String>,
    /// The snapshot's collectors: this range of [`HostView::collectors`].
    pub collectors: Range<usize>,
}

/// One host's merged facts. Sections are `None` when no snapshot collected them.
#[derive(Debug, Clone)]
pub struct HostView {
    /// The snapshot files, indexed for locating facts.
    pub docs: Vec<SourceDoc>,
    /// Each snapshot file's provenance, by index in `docs`.
    pub provenance: Vec<Provenance>,
    pub host: Located<Host>,
    /// Every snapshot's collectors, file after file (see [`Provenance::collectors`]).
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
    /// Sections two files of this host from the same collector both carried, and which file's
    /// copy was used (the newer): said on stderr, never resolved in silence.
    pub stale: Vec<StaleFacts>,
    /// Normalised volume id → index in `volumes`, for joins by id.
    volume_ids: FastMap<String, usize>,
    /// Normalised mount points with their volume's index, longest first, for joins by path.
    mounts: Vec<(String, usize)>,
    /// Where each instance's databases are in `databases` (they are kept instance by instance).
    instance_databases: Vec<Range<usize>>,
    /// Joins several rules ask for per file or per volume, answered once per host.
    memo: Memo,
}

/// Sections up to this long are searched by walking them: for the handful of disks or volumes of
/// most hosts a walk is quicker than hashing and allocates nothing. Longer ones are searched
/// through an index built on first use, so a host of 40,000 disks is joined in time linear in
/// its size rather than quadratic (a walk per lookup took 168 s there).
const WALK: usize = 16;

/// How many layers of storage (a volume on an LVM volume on an md array on partitions...) the
/// stripe joins follow: real stacks are three or four deep.
const MAX_LAYERS: usize = 8;

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
    /// The index in `volumes` of the first volume built on each partition, by index in
    /// `partitions`, for [`HostView::volume_of_partition`].
    partition_volumes: OnceLock<Vec<Option<usize>>>,
    /// Each long section's first entity of each id, by id.
    disk_ids: OnceLock<FastMap<String, usize>>,
    partition_ids: OnceLock<FastMap<String, usize>>,
    pool_ids: OnceLock<FastMap<String, usize>>,
    virtual_disk_ids: OnceLock<FastMap<String, usize>>,
    raid_set_ids: OnceLock<FastMap<String, usize>>,
    /// Ids of the partitions something is built on (a volume or a RAID set), when the volumes
    /// and RAID sets are too many to walk for each partition.
    built_on: OnceLock<FastSet<String>>,
    /// Normalised mount points to their volume's index (the first volume mounted there), when
    /// there are too many to walk for each file.
    mount_index: OnceLock<FastMap<String, usize>>,
    /// Every entity's key to where it is, for [`HostView::entity`].
    entities: OnceLock<FastMap<String, Place>>,
    /// What another layer derived from the whole view, for [`HostView::derived`].
    derived: OnceLock<Derived>,
}

/// A value of any type, for [`HostView::derived`].
struct Derived(Box<dyn std::any::Any + Send + Sync>);

impl std::fmt::Debug for Derived {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Derived(..)")
    }
}

/// Where an entity is in the view.
#[derive(Debug, Clone, Copy)]
enum Place {
    Disk(usize),
    Partition(usize),
    Volume(usize),
    Pool(usize),
    VirtualDisk(usize),
    RaidSet(usize),
    Instance(usize),
    Database(usize),
    File(usize, usize),
}

/// The position of the first entity whose id is `id`: walked when the section is short, else
/// looked up in `index`, built on first use.
fn position_by_id<T>(
    section: &Option<Vec<Located<T>>>,
    index: &OnceLock<FastMap<String, usize>>,
    id: &str,
    id_of: impl Fn(&T) -> &str,
) -> Option<usize> {
    let items = section.as_deref()?;
    if items.len() <= WALK {
        return items.iter().position(|l| id_of(&l.item) == id);
    }
    let index = index.get_or_init(|| {
        let mut m = FastMap::with_capacity_and_hasher(items.len(), Default::default());
        for (i, l) in items.iter().enumerate() {
            m.entry(id_of(&l.item).to_owned()).or_insert(i);
        }
        m
    });
    index.get(id).copied()
}

/// The position of `item` in `items`, when it is one of them, found by its address (rules pass
/// the view's own entities): no walk, no comparison of contents.
fn position_of<T>(items: &[Located<T>], item: &T) -> Option<usize> {
    let first = items.first()?;
    let offset = std::ptr::from_ref(item) as usize;
    let start = std::ptr::from_ref(&first.item) as usize;
    let i = offset.checked_sub(start)? / std::mem::size_of::<Located<T>>().max(1);
    items.get(i).filter(|l| std::ptr::eq(&l.item, item)).map(|_| i)
}

/// Finds an entity by key while a section is being merged: walked while the section is short,
/// then through a map kept up to date from then on.
#[derive(Default)]
struct Keys(Option<FastMap<String, usize>>);

impl Keys {
    fn find<T>(&mut self, out: &[Located<T>], key: &str) -> Option<usize> {
        if self.0.is_none() && out.len() > WALK {
            self.0 = Some(out.iter().enumerate().map(|(i, l)| (l.key.clone(), i)).collect());
        }
        match &self.0 {
            Some(m) => m.get(key).copied(),
            None => out.iter().position(|l| l.key == key),
        }
    }

    fn added(&mut self, key: &str, i: usize) {
        if let Some(m) = &mut self.0 {
            m.insert(key.to_owned(), i);
        }
    }
}

/// One [`Keys`] per merged section.
#[derive(Default)]
struct SectionKeys {
    disks: Keys,
    partitions: Keys,
    volumes: Keys,
    storage_pools: Keys,
    virtual_disks: Keys,
    raid_sets: Keys,
    instances: Keys,
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
    keys: &mut Keys,
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
        match keys.find(out, &key) {
            Some(at) => {
                let existing = &mut out[at];
                existing.item.merge_from(item);
                existing.origins.push(origin);
            }
            None => {
                keys.added(&key, out.len());
                out.push(Located { item, key, label: String::new(), origins: vec![origin] });
            }
        }
    }
}

impl HostView {
    /// Merges snapshot files of one host. The caller groups documents by `host.name`. Files
    /// from different collectors complement each other field by field (the file given first
    /// keeps a fact both report); two from the same collector are resolved by [`stale::resolve`]
    /// first: the newer one's sections are used.
    pub fn build(mut docs: Vec<Document>, declared: Declarations) -> HostView {
        let stale = stale::resolve(&mut docs);
        let mut host: Option<Located<Host>> = None;
        let mut v = HostView {
            docs: Vec::with_capacity(docs.len()),
            provenance: Vec::with_capacity(docs.len()),
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
            stale,
            volume_ids: FastMap::default(),
            mounts: vec![],
            instance_databases: vec![],
            memo: Memo::default(),
        };
        let mut raw_instances: Option<Vec<Located<SqlInstance>>> = None;
        let mut keys = SectionKeys::default();
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
            let first = v.collectors.len();
            v.collectors.extend(s.collectors);
            v.provenance
                .push(Provenance { collected_at: s.collected_at, collectors: first..v.collectors.len() });
            let h = host.as_ref().map(|h| h.key.clone()).unwrap_or_default();
            merge_into(&mut v.disks, &mut keys.disks, s.disks, d, "/disks", |x| format!("{h}/disk:{}", x.id));
            merge_into(&mut v.partitions, &mut keys.partitions, s.partitions, d, "/partitions", |x| {
                format!(
                    "{h}/disk:{}/partition:{}",
                    x.disk_id,
                    x.number.map_or(x.id.clone(), |n| n.to_string())
                )
            });
            merge_into(&mut v.volumes, &mut keys.volumes, s.volumes, d, "/volumes", |x| {
                format!("{h}/volume:{}", norm_volume_id(&x.id))
            });
            merge_into(
                &mut v.storage_pools,
                &mut keys.storage_pools,
                s.storage_pools,
                d,
                "/storage_pools",
                |x| format!("{h}/pool:{}", x.id),
            );
            merge_into(
                &mut v.virtual_disks,
                &mut keys.virtual_disks,
                s.virtual_disks,
                d,
                "/virtual_disks",
                |x| format!("{h}/virtual-disk:{}", x.id),
            );
            merge_into(&mut v.raid_sets, &mut keys.raid_sets, s.raid_sets, d, "/raid_sets", |x| {
                format!("{h}/raid:{}", x.id)
            });
            merge_into(&mut raw_instances, &mut keys.instances, s.sql_instances, d, "/sql_instances", |x| {
                format!("{h}/instance:{}", x.name)
            });
        }
        v.host = host.unwrap_or(v.host);
        v.split_databases(raw_instances);
        v.label_entities();
        v.index_volumes();
        v
    }

    /// A view of entities whose keys and labels were already made (by the spindle that sends a
    /// plugin its facts): nothing is formatted again, and no entity has an origin in a file.
    /// `parts.databases` must be in the order of their instances.
    pub fn from_parts(parts: ViewParts, declared: Declarations) -> HostView {
        let ViewParts {
            host,
            collectors,
            disks,
            partitions,
            volumes,
            storage_pools,
            virtual_disks,
            raid_sets,
            instances,
            databases,
        } = parts;
        let instance_count = instances.as_ref().map_or(0, Vec::len);
        let mut instance_databases = vec![0..0; instance_count];
        for (i, d) in databases.iter().enumerate() {
            if let Some(r) = instance_databases.get_mut(d.instance) {
                if r.start == r.end {
                    *r = i..i;
                }
                r.end = i + 1;
            }
        }
        let name = host.name.clone();
        let mut v = HostView {
            docs: vec![],
            provenance: vec![],
            host: Located { item: host, key: name.clone(), label: name, origins: vec![] },
            collectors,
            disks,
            partitions,
            volumes,
            storage_pools,
            virtual_disks,
            raid_sets,
            instances,
            databases,
            declared,
            stale: vec![],
            volume_ids: FastMap::default(),
            mounts: vec![],
            instance_databases,
            memo: Memo::default(),
        };
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
            let start = self.databases.len();
            self.instance_databases.push(start..start);
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
            self.instance_databases[ii] = start..self.databases.len();
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
        // Each partition's mount point: that of the first volume built on it. One pass over the
        // volumes, rather than one per partition.
        let mut mount_of: FastMap<&str, &str> = FastMap::default();
        if self.partitions.as_ref().is_some_and(|p| !p.is_empty()) {
            for v in self.volumes.iter().flatten() {
                let mount = v.item.mount_points.first().map_or("", String::as_str);
                for id in backing_ids(&v.item.backed_by) {
                    mount_of.entry(id.as_str()).or_insert(mount);
                }
            }
        }
        for p in self.partitions.iter_mut().flatten() {
            let disk = position_by_id(&self.disks, &self.memo.disk_ids, &p.item.disk_id, |d| &d.id)
                .and_then(|i| self.disks.as_ref()?.get(i))
                .map_or_else(|| format!("{h} › disk {}", p.item.disk_id), |d| d.label.clone());
            let part = p.item.number.map_or(p.item.id.clone(), |n| n.to_string());
            let mount = mount_of.get(p.item.id.as_str()).copied().unwrap_or("");
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

    /// Every entity of the view: the host, then disks, partitions, volumes, pools, virtual
    /// disks, RAID sets, instances, databases and files, each in snapshot order.
    pub fn entity_refs(&self) -> Vec<EntityRef> {
        let mut out = vec![self.host.entity()];
        out.extend(self.disks.iter().flatten().map(Located::entity));
        out.extend(self.partitions.iter().flatten().map(Located::entity));
        out.extend(self.volumes.iter().flatten().map(Located::entity));
        out.extend(self.storage_pools.iter().flatten().map(Located::entity));
        out.extend(self.virtual_disks.iter().flatten().map(Located::entity));
        out.extend(self.raid_sets.iter().flatten().map(Located::entity));
        out.extend(self.instances.iter().flatten().map(Located::entity));
        out.extend(self.databases.iter().map(|d| d.db.entity()));
        out.extend(self.files().map(|(_, f)| f.entity()));
        out
    }

    /// The entity with this key, wherever it is in the view. Through an index of every key,
    /// built on first use: a plugin's findings each name their entity by key.
    pub fn entity(&self, key: &str) -> Option<EntityRef> {
        if self.host.key == key {
            return Some(self.host.entity());
        }
        let places = self.memo.entities.get_or_init(|| {
            let mut m = FastMap::default();
            fn add<T>(
                m: &mut FastMap<String, Place>,
                s: &Option<Vec<Located<T>>>,
                place: fn(usize) -> Place,
            ) {
                for (i, l) in s.iter().flatten().enumerate() {
                    m.entry(l.key.clone()).or_insert(place(i));
                }
            }
            add(&mut m, &self.disks, Place::Disk);
            add(&mut m, &self.partitions, Place::Partition);
            add(&mut m, &self.volumes, Place::Volume);
            add(&mut m, &self.storage_pools, Place::Pool);
            add(&mut m, &self.virtual_disks, Place::VirtualDisk);
            add(&mut m, &self.raid_sets, Place::RaidSet);
            add(&mut m, &self.instances, Place::Instance);
            for (d, dv) in self.databases.iter().enumerate() {
                m.entry(dv.db.key.clone()).or_insert(Place::Database(d));
                for (f, file) in dv.files.iter().flatten().enumerate() {
                    m.entry(file.key.clone()).or_insert(Place::File(d, f));
                }
            }
            m
        });
        fn at<T>(s: &Option<Vec<Located<T>>>, i: usize) -> Option<EntityRef> {
            s.as_ref()?.get(i).map(Located::entity)
        }
        match *places.get(key)? {
            Place::Disk(i) => at(&self.disks, i),
            Place::Partition(i) => at(&self.partitions, i),
            Place::Volume(i) => at(&self.volumes, i),
            Place::Pool(i) => at(&self.storage_pools, i),
            Place::VirtualDisk(i) => at(&self.virtual_disks, i),
            Place::RaidSet(i) => at(&self.raid_sets, i),
            Place::Instance(i) => at(&self.instances, i),
            Place::Database(d) => self.databases.get(d).map(|dv| dv.db.entity()),
            Place::File(d, f) => self.databases.get(d)?.files.as_ref()?.get(f).map(Located::entity),
        }
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

    /// A value another layer derives from the whole view, made on first use and shared by every
    /// later caller (the plugin host encodes the facts once per host for all of its plugins).
    /// One value per view: `None` when it already holds a value of another type.
    pub fn derived<T: std::any::Any + Send + Sync>(&self, make: impl FnOnce(&HostView) -> T) -> Option<&T> {
        self.memo.derived.get_or_init(|| Derived(Box::new(make(self)))).0.downcast_ref()
    }

    pub fn host_name(&self) -> &str {
        &self.host.key
    }

    pub fn disk(&self, id: &str) -> Option<&Located<Disk>> {
        let i = position_by_id(&self.disks, &self.memo.disk_ids, id, |d| &d.id)?;
        self.disks.as_ref()?.get(i)
    }

    pub fn partition(&self, id: &str) -> Option<&Located<Partition>> {
        let i = position_by_id(&self.partitions, &self.memo.partition_ids, id, |p| &p.id)?;
        self.partitions.as_ref()?.get(i)
    }

    pub fn volume(&self, id: &str) -> Option<&Located<Volume>> {
        let i = *self.volume_ids.get(&norm_volume_id(id))?;
        self.volumes.as_ref()?.get(i)
    }

    pub fn pool(&self, id: &str) -> Option<&Located<StoragePool>> {
        let i = position_by_id(&self.storage_pools, &self.memo.pool_ids, id, |p| &p.id)?;
        self.storage_pools.as_ref()?.get(i)
    }

    pub fn virtual_disk_index(&self, id: &str) -> Option<usize> {
        position_by_id(&self.virtual_disks, &self.memo.virtual_disk_ids, id, |x| &x.id)
    }

    pub fn raid_set_index(&self, id: &str) -> Option<usize> {
        position_by_id(&self.raid_sets, &self.memo.raid_set_ids, id, |x| &x.id)
    }

    /// Where `v` is in `volumes`, when it is one of the view's own volumes (found by address).
    pub fn volume_index(&self, v: &Volume) -> Option<usize> {
        position_of(self.volumes.as_deref()?, v)
    }

    /// The databases of the instance at `instance` in `instances`.
    pub fn databases_of(&self, instance: usize) -> &[DatabaseView] {
        self.instance_databases.get(instance).and_then(|r| self.databases.get(r.clone())).unwrap_or_default()
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
        if self.mounts.len() <= WALK {
            return self.mounts.iter().find(|(m, _)| is_under(&path, m)).map(|&(_, i)| i);
        }
        // Every mount point that could hold the path is one of its prefixes ending at a
        // separator: look those up, longest first, instead of walking every mount point.
        let index = self.memo.mount_index.get_or_init(|| {
            let mut m = FastMap::with_capacity_and_hasher(self.mounts.len(), Default::default());
            for (mount, i) in &self.mounts {
                m.entry(mount.clone()).or_insert(*i);
            }
            m
        });
        let separators = path.char_indices().rev().filter(|&(_, c)| c == '\\' || c == '/').map(|(at, _)| at);
        for end in std::iter::once(path.len()).chain(separators).filter(|&end| end > 0) {
            if let Some(&i) = index.get(&path[..end]) {
                return Some(i);
            }
        }
        // The shortest last, as the walk has them: the Linux root holds every absolute path, and
        // an empty mount point every path that starts at a separator.
        let root = path.starts_with('/').then(|| index.get("/")).flatten();
        let empty = path.starts_with(['\\', '/']).then(|| index.get("")).flatten();
        root.or(empty).copied()
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
        let raid_sets = self.raid_sets.as_deref().unwrap_or_default();
        let built_on = self.volumes.as_ref().map(|volumes| {
            (volumes.len() + raid_sets.len() > WALK).then(|| {
                self.memo.built_on.get_or_init(|| {
                    let from_volumes = volumes.iter().flat_map(|v| backing_ids(&v.item.backed_by));
                    let from_raids = raid_sets.iter().flat_map(|r| r.item.member_ids.iter().flatten());
                    from_volumes.chain(from_raids).cloned().collect()
                })
            })
        });
        self.partitions.iter().flatten().filter(move |p| {
            let Some(built_on) = &built_on else { return true };
            if let Some(set) = built_on {
                return set.contains(&p.item.id);
            }
            let volumes = self.volumes.iter().flatten();
            volumes.clone().any(|v| backs(&v.item.backed_by, &p.item.id))
                || raid_sets.iter().any(|r| r.item.member_ids.iter().flatten().any(|m| *m == p.item.id))
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

    /// The volume built on a partition (directly, or as one of an LVM volume's devices): the
    /// first in `volumes` whose backing names it. A backing names a partition by id, which is
    /// the first partition with that id, so `p` counts as that one only when it is on the same
    /// disk.
    ///
    /// Through an index of every partition's volume, built on first use: the alignment fixes ask
    /// for each misaligned partition, and a walk over every volume's partitions for each made a
    /// host of 5,000 misaligned partitions take 12 s (issue 27).
    pub fn volume_of_partition(&self, p: &Partition) -> Option<&Located<Volume>> {
        let parts = self.partitions.as_deref()?;
        let i = position_by_id(&self.partitions, &self.memo.partition_ids, &p.id, |q| &q.id)?;
        if parts[i].item.disk_id != p.disk_id {
            return None;
        }
        let memo = self.memo.partition_volumes.get_or_init(|| {
            let mut out = vec![None; parts.len()];
            for (vi, v) in self.volumes.iter().flatten().enumerate() {
                for id in backing_ids(&v.item.backed_by) {
                    if let Some(pi) =
                        position_by_id(&self.partitions, &self.memo.partition_ids, id, |q| &q.id)
                    {
                        out[pi].get_or_insert(vi);
                    }
                }
            }
            out
        });
        memo[i].and_then(|vi| self.volumes.as_ref()?.get(vi))
    }

    /// The disk a volume's filesystem was made on directly, with no partition table
    /// (`mkfs.xfs /dev/sdb`): a volume with no backing whose Linux device is a disk's.
    pub fn whole_disk_of_volume(&self, v: &Volume) -> Option<&Located<Disk>> {
        if v.backed_by.is_some() {
            return None;
        }
        self.disk(v.id.strip_prefix("/dev/")?)
    }

    /// The stripe geometry under a disk: the virtual disk or RAID set exposing it, else a
    /// declaration in a pack.
    pub fn stripe_of_disk(&self, disk: &Located<Disk>) -> Option<Stripe> {
        self.stripe_of_disk_at(disk, 0)
    }

    fn stripe_of_disk_at(&self, disk: &Located<Disk>, depth: usize) -> Option<Stripe> {
        if let Some(b) = &disk.item.backed_by
            && let Some(s) = self.stripe_of_backing(b, depth)
        {
            return Some(s);
        }
        self.declared_stripe(&[&disk.key, &disk.label])
    }

    /// The stripe geometry under a partition (that of its disk).
    pub fn stripe_of_partition(&self, p: &Located<Partition>) -> Option<Stripe> {
        self.stripe_of_partition_at(p, 0)
    }

    fn stripe_of_partition_at(&self, p: &Located<Partition>, depth: usize) -> Option<Stripe> {
        let from_disk = self.disk(&p.item.disk_id).and_then(|d| self.stripe_of_disk_at(d, depth));
        from_disk.or_else(|| self.declared_stripe(&[&p.key, &p.label]))
    }

    /// The stripe geometry under a volume.
    pub fn stripe_of_volume(&self, v: &Located<Volume>) -> Option<Stripe> {
        if let Some(b) = &v.item.backed_by {
            if let Some(s) = self.stripe_of_backing(b, 0) {
                return Some(s);
            }
            for p in self.partitions_of_volume(&v.item) {
                if let Some(s) = self.stripe_of_partition(p) {
                    return Some(s);
                }
            }
        } else if let Some(d) = self.whole_disk_of_volume(&v.item)
            && let Some(s) = self.stripe_of_disk(d)
        {
            return Some(s);
        }
        self.declared_stripe(&[&v.key, &v.label])
    }

    /// The stripe geometry a backing gives, `depth` layers down from what asked. Layers are
    /// followed at most [`MAX_LAYERS`] deep: a snapshot is untrusted, and one whose disk is
    /// built on its own partition (or an LVM volume on itself) must not recurse for ever.
    fn stripe_of_backing(&self, b: &Backing, depth: usize) -> Option<Stripe> {
        if depth >= MAX_LAYERS {
            return None;
        }
        let depth = depth + 1;
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
                let (unit_bytes, fixed) = r.stripe_unit()?;
                let source = if fixed { StripeSource::DynamicDisk(i) } else { StripeSource::RaidSet(i) };
                Some(Stripe { unit_bytes, width, source })
            }
            // A linear logical volume writes each extent to one device: the stripes that matter
            // are those under its devices (an md array, a RAID logical drive).
            Backing::Lvm { devices, stripes: Some(1), stripe_unit_bytes: None, .. } => {
                devices.iter().find_map(|id| self.stripe_of_device(id, depth))
            }
            Backing::Lvm { name, stripes, stripe_unit_bytes, .. } => Some(Stripe {
                unit_bytes: (*stripe_unit_bytes)?,
                width: *stripes,
                source: StripeSource::Lvm(name.clone()),
            }),
            Backing::Partitions(ids) => ids
                .iter()
                .filter_map(|id| self.partition(id))
                .find_map(|p| self.disk(&p.item.disk_id).and_then(|d| self.stripe_of_disk_at(d, depth))),
        }
    }

    /// The stripe geometry under a device an LVM volume names: a partition's, else a disk's.
    fn stripe_of_device(&self, id: &str, depth: usize) -> Option<Stripe> {
        match self.partition(id) {
            Some(p) => self.stripe_of_partition_at(p, depth),
            None => self.disk(id).and_then(|d| self.stripe_of_disk_at(d, depth)),
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
            Some(Backing::RaidSet(id)) => self.raid_is_unstriped(id),
            Some(_) => false,
            None => d.bus.as_deref().is_some_and(|b| {
                let b = b.to_ascii_lowercase();
                ["sata", "ata", "atapi", "nvme", "usb", "sd", "mmc"].contains(&b.as_str())
            }),
        }
    }

    /// Whether nothing under a volume is striped (see [`HostView::disk_is_unstriped`]): also
    /// a linear LVM volume whose devices are all unstriped.
    pub fn volume_is_unstriped(&self, v: &Volume) -> bool {
        match &v.backed_by {
            Some(Backing::RaidSet(id)) => self.raid_is_unstriped(id),
            Some(Backing::Lvm { devices, stripes: Some(1), .. }) => {
                !devices.is_empty()
                    && devices.iter().all(|id| {
                        let disk = self.partition(id).map_or(id.as_str(), |p| p.item.disk_id.as_str());
                        self.disk(disk).is_some_and(|d| self.disk_is_unstriped(d))
                    })
            }
            Some(Backing::Partitions(_)) => {
                let parts = self.partitions_of_volume(v);
                !parts.is_empty()
                    && parts
                        .iter()
                        .all(|p| self.disk(&p.item.disk_id).is_some_and(|d| self.disk_is_unstriped(d)))
            }
            None => self.whole_disk_of_volume(v).is_some_and(|d| self.disk_is_unstriped(d)),
            _ => false,
        }
    }

    /// Whether a RAID set writes without striping: a mirror, a linear or spanned set.
    fn raid_is_unstriped(&self, id: &str) -> bool {
        self.raid_set_index(id)
            .and_then(|i| self.raid_sets.as_ref()?.get(i))
            .is_some_and(|r| !r.item.is_striped())
    }

    /// The disks whose spindles (or flash) serve a volume: the pool's physical disks under a
    /// virtual disk, a RAID set's members, or the disks of its partitions. `None` when the
    /// backing is not known.
    ///
    /// Borrowed from the view's memo when `v` is one of its own volumes, as rules pass them.
    pub fn physical_disks_of_volume(&self, v: &Volume) -> Option<Cow<'_, BTreeSet<String>>> {
        let volumes = self.volumes.as_deref().unwrap_or_default();
        let Some(i) = position_of(volumes, v) else {
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

/// The partitions (or, for LVM, devices) a backing names.
fn backing_ids(b: &Option<Backing>) -> &[String] {
    match b {
        Some(Backing::Partitions(ids)) => ids,
        Some(Backing::Lvm { devices, .. }) => devices,
        _ => &[],
    }
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

    /// A host of `n` disks, each with one partition and a volume folder-mounted under `E:\`
    /// (volume 0 is `E:\` itself), with one database file on each volume, and two instances.
    fn long_host(n: usize) -> HostView {
        use serde_json::json;
        let disks: Vec<_> = (0..n).map(|i| json!({"id": format!("d{i}"), "number": i})).collect();
        let partitions: Vec<_> = (0..n)
            .map(|i| json!({"id": format!("d{i}-p1"), "disk_id": format!("d{i}"), "number": 1}))
            .collect();
        let mount = |i: usize| if i == 0 { "E:\\".to_string() } else { format!("E:\\Mounts\\L{i}\\") };
        let volumes: Vec<_> = (0..n)
            .map(|i| {
                json!({"id": format!("v{i}"), "mount_points": [mount(i)],
                       "backed_by": {"partitions": [format!("d{i}-p1")]}})
            })
            .collect();
        // By path only, so the mount points place them; the last one under no folder of its own.
        let files: Vec<_> = (0..n)
            .map(|i| {
                json!({"type": "rows", "logical_name": format!("f{i}"),
                            "physical_name": format!("{}data\\f{i}.mdf", mount(i))})
            })
            .collect();
        let snap = json!({"schema_version": 1, "host": {"name": "h"},
            "disks": disks, "partitions": partitions, "volumes": volumes,
            "sql_instances": [
                {"name": "A", "databases": [{"name": "a1", "files": files}, {"name": "a2"}]},
                {"name": "B", "databases": []},
                {"name": "C", "databases": [{"name": "c1"}]}]});
        let doc = crate::load::parse_snapshot("long.json", snap.to_string()).unwrap();
        HostView::build(vec![doc], Declarations::default())
    }

    #[test]
    fn long_sections_are_joined_as_short_ones() {
        for n in [WALK / 2, WALK * 4] {
            let view = long_host(n);
            for i in 0..n {
                assert_eq!(view.disk(&format!("d{i}")).unwrap().number, Some(i as u32), "n = {n}");
                assert_eq!(view.partition(&format!("d{i}-p1")).unwrap().disk_id, format!("d{i}"));
                let v = view.volume(&format!("v{i}")).unwrap();
                assert_eq!(view.volume_index(v), Some(i));
                let p = &view.partitions.as_ref().unwrap()[i];
                assert!(p.label.ends_with(&format!("partition 1 ({})", v.mount_points[0])), "{}", p.label);
                assert!(p.label.starts_with(&format!("h › disk {i} ")), "{}", p.label);
            }
            assert!(view.disk("nope").is_none() && view.partition("nope").is_none());
            assert_eq!(view.data_partitions().count(), n);
            // The deepest mount point holding each path, E:\ for the last resort.
            let files: Vec<_> = view.files().map(|(_, f)| f).collect();
            for (i, f) in files.iter().enumerate() {
                let v = view.volume_of_file(f).unwrap();
                assert_eq!(v.item.id, format!("v{i}"), "{:?} (n = {n})", f.physical_name);
            }
            let copy =
                DbFile { physical_name: Some(r"e:/mounts/l1/deeper/x.mdf".into()), ..files[0].item.clone() };
            assert_eq!(view.volume_of_file(&copy).unwrap().item.id, "v1");
            let elsewhere = DbFile { physical_name: Some(r"F:\x.mdf".into()), ..files[0].item.clone() };
            assert!(view.volume_of_file(&elsewhere).is_err());
            for key in
                view.disks.iter().flatten().map(|d| d.key.clone()).chain(files.iter().map(|f| f.key.clone()))
            {
                assert_eq!(view.entity(&key).unwrap().key, key);
            }
            assert!(view.entity("h/disk:nope").is_none());
            let names =
                |i: usize| view.databases_of(i).iter().map(|d| d.db.name.as_str()).collect::<Vec<_>>();
            assert_eq!((names(0), names(1), names(2)), (vec!["a1", "a2"], vec![], vec!["c1"]));
            assert!(view.databases_of(3).is_empty());
        }
    }

    #[test]
    fn merging_long_sections_keeps_one_entity_per_key() {
        let n = WALK * 3;
        let a = long_host(n);
        // From two collectors, so the files complement each other (two of one collector would be
        // an older and a newer reading: see `stale`).
        let doc = |v: &HostView, collector: &str| {
            let mut snapshot = v.to_snapshot();
            snapshot.collectors = vec![CollectorReport { name: collector.into(), ..Default::default() }];
            Document { path: "x".into(), text: String::new(), snapshot }
        };
        let twice = HostView::build(vec![doc(&a, "linux"), doc(&a, "sql")], Declarations::default());
        assert_eq!(twice.disks.as_ref().unwrap().len(), n);
        assert!(twice.disks.as_ref().unwrap().iter().all(|d| d.origins.len() == 2));
        assert_eq!(twice.volumes.as_ref().unwrap().len(), n);
    }

    fn view_of(json: &str) -> HostView {
        HostView::build(
            vec![crate::load::parse_snapshot("t.json", json.into()).unwrap()],
            Declarations::default(),
        )
    }

    /// [`HostView::volume_of_partition`] as it was worked out before its index (issue 27): the
    /// first volume, in snapshot order, one of whose partitions has `p`'s id and disk.
    fn volume_of_partition_by_walk<'v>(view: &'v HostView, p: &Partition) -> Option<&'v Located<Volume>> {
        view.volumes
            .iter()
            .flatten()
            .find(|v| view.partitions_of_volume(v).iter().any(|q| q.id == p.id && q.disk_id == p.disk_id))
    }

    #[test]
    fn a_partitions_volume_is_the_first_built_on_it() {
        let view = view_of(
            r#"{"schema_version": 1, "host": {"name": "h"},
            "disks": [{"id": "d1"}, {"id": "d2"}, {"id": "d3"}],
            "partitions": [{"id": "p1", "disk_id": "d1"}, {"id": "p2", "disk_id": "d2"},
                           {"id": "p3", "disk_id": "d3"}, {"id": "p1", "disk_id": "d2"}],
            "raid_sets": [{"id": "r", "kind": "md", "level": "raid1", "member_ids": ["p3"]}],
            "volumes": [{"id": "/dev/md0", "backed_by": {"raid_set": "r"}},
                        {"id": "/dev/dm-0", "backed_by": {"lvm": {"name": "vg/lv", "devices": ["nope", "p2", "p1"]}}},
                        {"id": "a", "backed_by": {"partitions": ["p1"]}},
                        {"id": "b", "backed_by": {"partitions": ["p2", "p1"]}},
                        {"id": "c", "backed_by": {"partitions": ["p2"]}}]}"#,
        );
        let parts = view.partitions.as_ref().unwrap();
        let id = |p: &Partition| view.volume_of_partition(p).map(|v| v.item.id.as_str());
        // Several volumes on p1 and on p2: the first in snapshot order, an LVM volume's devices
        // counting as its partitions.
        assert_eq!(id(&parts[0]), Some("/dev/dm-0"));
        assert_eq!(id(&parts[1]), Some("/dev/dm-0"));
        // Only a RAID set on p3: no volume.
        assert_eq!(id(&parts[2]), None);
        // The second p1 is on another disk: the volumes name the first.
        assert_eq!(id(&parts[3]), None);
        // A copy is found as the original; a partition the view does not have, never.
        assert_eq!(id(&parts[0].item.clone()), Some("/dev/dm-0"));
        assert_eq!(id(&Partition { id: "p9".into(), ..parts[0].item.clone() }), None);
        assert_eq!(id(&Partition { disk_id: "d3".into(), ..parts[1].item.clone() }), None);
        for p in parts {
            let walked = volume_of_partition_by_walk(&view, p).map(|v| v.item.id.as_str());
            assert_eq!(id(p), walked, "{}", p.key);
        }
        let none = view_of(
            r#"{"schema_version": 1, "host": {"name": "h"}, "partitions": [{"id": "p1", "disk_id": "d1"}]}"#,
        );
        assert!(none.volume_of_partition(&none.partitions.as_ref().unwrap()[0]).is_none());
    }

    #[test]
    fn a_long_hosts_partitions_find_their_volumes_as_a_short_ones() {
        for n in [WALK / 2, WALK * 4] {
            let view = long_host(n);
            for (i, p) in view.partitions.iter().flatten().enumerate() {
                let v = view.volume_of_partition(p).unwrap();
                assert_eq!(v.item.id, format!("v{i}"), "n = {n}");
                assert!(std::ptr::eq(v, volume_of_partition_by_walk(&view, p).unwrap()));
            }
        }
    }

    #[test]
    fn a_dynamic_disk_set_stripes_in_64k_unless_its_unit_was_collected() {
        let view = view_of(
            r#"{"schema_version": 1, "host": {"name": "h", "os_version": "Windows Server 2008 R2"},
            "disks": [{"id": "d2"}, {"id": "d3"}, {"id": "x", "backed_by": {"raid_set": "dyn"}}],
            "partitions": [{"id": "d2-p1", "disk_id": "d2"}, {"id": "d3-p1", "disk_id": "d3"}],
            "raid_sets": [{"id": "dyn", "kind": "dynamic", "level": "raid0", "member_ids": ["d2-p1", "d3-p1"]},
                          {"id": "hw", "kind": "hardware", "level": "raid0"},
                          {"id": "mir", "kind": "dynamic", "level": "mirror"}],
            "volumes": [{"id": "v", "backed_by": {"raid_set": "dyn"}},
                        {"id": "w", "backed_by": {"raid_set": "hw"}},
                        {"id": "m", "backed_by": {"raid_set": "mir"}}]}"#,
        );
        let vols = view.volumes.as_ref().unwrap();
        let s = view.stripe_of_volume(&vols[0]).unwrap();
        assert_eq!((s.unit_bytes, s.width, s.source), (65_536, Some(2), StripeSource::DynamicDisk(0)));
        let disk = view.disk("x").unwrap();
        assert_eq!(view.stripe_of_disk(disk).unwrap().source, StripeSource::DynamicDisk(0));
        assert_eq!(view.stripe_of_volume(&vols[1]), None, "a hardware set's unit is never assumed");
        assert_eq!(view.stripe_of_volume(&vols[2]), None);
        assert!(view.volume_is_unstriped(&vols[2]), "a dynamic mirror has no stripe");
    }

    #[test]
    fn a_linear_lvm_volume_has_the_stripe_of_its_devices() {
        let view = view_of(
            r#"{"schema_version": 1, "host": {"name": "h"},
            "disks": [{"id": "md0", "backed_by": {"raid_set": "md0"}}, {"id": "sdb", "bus": "SATA"},
                      {"id": "loop", "backed_by": {"lvm": {"name": "vg/self", "stripes": 1, "devices": ["loop"]}}}],
            "partitions": [{"id": "sdb1", "disk_id": "sdb"}],
            "raid_sets": [{"id": "md0", "kind": "md", "level": "raid10", "stripe_unit_bytes": 32768}],
            "volumes": [{"id": "/dev/dm-0", "backed_by": {"lvm": {"name": "vg/lin", "stripes": 1, "devices": ["md0"]}}},
                        {"id": "/dev/dm-1", "backed_by": {"lvm": {"name": "vg/plain", "stripes": 1, "devices": ["sdb1"]}}},
                        {"id": "/dev/dm-2", "backed_by": {"lvm": {"name": "vg/st", "stripes": 2,
                            "stripe_unit_bytes": 524288, "devices": ["md0", "sdb1"]}}},
                        {"id": "/dev/dm-3", "backed_by": {"lvm": {"name": "vg/self", "stripes": 1, "devices": ["loop"]}}}]}"#,
        );
        let vols = view.volumes.as_ref().unwrap();
        let lin = view.stripe_of_volume(&vols[0]).unwrap();
        assert_eq!((lin.unit_bytes, lin.source), (32_768, StripeSource::RaidSet(0)));
        assert_eq!(view.stripe_of_volume(&vols[1]), None);
        assert!(view.volume_is_unstriped(&vols[1]), "linear over a SATA drive");
        assert!(!view.volume_is_unstriped(&vols[0]));
        let st = view.stripe_of_volume(&vols[2]).unwrap();
        assert_eq!(
            (st.unit_bytes, st.width, st.source),
            (524_288, Some(2), StripeSource::Lvm("vg/st".into()))
        );
        // A volume built on itself ends the walk instead of the stack.
        assert_eq!(view.stripe_of_volume(&vols[3]), None);
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
