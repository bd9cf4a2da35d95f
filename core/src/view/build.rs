//! Building a host view: merging one host's snapshot files (or taking parts already keyed), then
//! labelling and indexing its entities.

use crate::declare::Declarations;
use crate::entity::Origin;
use crate::facts::*;
use crate::fast_hash::FastMap;
use crate::load::Document;
use crate::source::SourceDoc;

use super::backing::backing_ids;
use super::host::{HostView, Provenance};
use super::index::{WALK, position_by_id};
use super::located::{DatabaseView, Located};
use super::memo::Memo;
use super::stale;

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
}
