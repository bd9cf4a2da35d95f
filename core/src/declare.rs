//! Facts no machine can report, declared by people in a rule pack: a SAN LUN's or a hardware
//! RAID's stripe unit, the workload class. Declared facts are marked so wherever they are used.

use crate::glob::Glob;
use crate::params::Choice;

/// The workload a server runs, which sets the recommended stripe unit (64 KiB for OLTP, 256 KiB
/// for a data warehouse: Microsoft's "Disk Partition Alignment Best Practices for SQL Server").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    Oltp,
    DataWarehouse,
}

impl Workload {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "oltp" => Some(Workload::Oltp),
            "data-warehouse" => Some(Workload::DataWarehouse),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Workload::Oltp => "oltp",
            Workload::DataWarehouse => "data-warehouse",
        }
    }
}

/// A rule parameter of kind `Choice(Workload)` (the workload assumed when no pack declares one).
impl Choice for Workload {
    const WORDS: &'static [&'static str] = &["oltp", "data-warehouse"];
    fn from_word(word: &str) -> Option<Self> {
        Workload::parse(word)
    }
}

/// A stripe unit declared for the disks or volumes whose key or label matches `entity`.
#[derive(Debug, Clone)]
pub struct DeclaredStripe {
    pub entity: Glob,
    pub stripe_unit_bytes: u64,
    /// How many data disks a stripe spans, when known.
    pub data_disks: Option<u32>,
    /// The pack file that declared it, shown next to every finding that used it.
    pub source: String,
}

/// Everything the active packs declare.
#[derive(Debug, Clone, Default)]
pub struct Declarations {
    pub workload: Option<(Workload, String)>,
    pub stripes: Vec<DeclaredStripe>,
}
