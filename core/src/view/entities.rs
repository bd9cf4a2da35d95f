//! The view's entities as a whole: every one, one by key, the merged snapshot, and what another
//! layer derives from them.

use crate::entity::EntityRef;
use crate::facts::*;
use crate::fast_hash::FastMap;

use super::host::HostView;
use super::located::Located;
use super::memo::{Derived, Place};

impl HostView {
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
}
