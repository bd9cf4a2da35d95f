//! Where things sit: the volume holding a database file, the volume built on a partition, the
//! partitions that hold data.

use crate::facts::*;
use crate::fast_hash::FastMap;

use super::backing::{backing_ids, backs};
use super::file_volume::{self, UnknownVolume};
use super::host::HostView;
use super::index::{WALK, position_by_id};
use super::located::{DatabaseView, Located};

impl HostView {
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
}

/// Whether a normalised path is at or under a normalised mount point (`e:` for `E:\`, `/` for
/// the Linux root): the mount point is a prefix ending at a path separator.
pub(super) fn is_under(path: &str, mount: &str) -> bool {
    if mount == "/" {
        return path.starts_with('/');
    }
    path.strip_prefix(mount).is_some_and(|rest| rest.is_empty() || rest.starts_with(['\\', '/']))
}
