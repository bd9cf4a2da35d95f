//! The host view itself: one host's merged sections, and where each snapshot file's facts came from.

use std::ops::Range;

use crate::declare::Declarations;
use crate::facts::*;
use crate::fast_hash::FastMap;
use crate::source::SourceDoc;

use super::located::{DatabaseView, Located};
use super::memo::Memo;
use super::stale::StaleFacts;

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
    pub(super) volume_ids: FastMap<String, usize>,
    /// Normalised mount points with their volume's index, longest first, for joins by path.
    pub(super) mounts: Vec<(String, usize)>,
    /// Where each instance's databases are in `databases` (they are kept instance by instance).
    pub(super) instance_databases: Vec<Range<usize>>,
    /// Joins several rules ask for per file or per volume, answered once per host.
    pub(super) memo: Memo,
}
