//! ReFS: recognised by its boot sector, cluster size deliberately not read.
//!
//! A ReFS volume starts with a boot sector whose bytes 3..11 are `ReFS` followed by four zero
//! bytes (the "file system name" of the volume header described by libfsrefs' "Resilient File
//! System (ReFS)" format notes, which also place bytes per sector and sectors per cluster as
//! u32 values at 0x20 and 0x24). Those offsets come from reverse engineering, and no tool on
//! Linux can create a ReFS volume to check them against, so the collector reports the
//! filesystem as `ReFS` and the cluster size as not collected rather than trusting an
//! unverified offset. (ReFS clusters are 4 KiB or 64 KiB; Windows reports them through
//! `fsutil fsinfo refsinfo` and `MSFT_Volume.AllocationUnitSize`.)

use super::read_at::Fields;

/// The file system name at byte 3.
pub const FS_NAME: &[u8; 8] = b"ReFS\0\0\0\0";

pub fn is_refs(sector: &[u8]) -> bool {
    Fields::new(sector, 0).has(3, FS_NAME)
}

/// Why the cluster size of a ReFS volume is not reported.
pub const CLUSTER_NOT_READ: &str = "the ReFS boot sector's cluster-size field is known only from reverse \
    engineering and could not be checked against a real ReFS volume; read it on Windows with \
    `fsutil fsinfo refsinfo <drive>:`";

#[cfg(test)]
mod tests {
    #[test]
    fn recognises_the_name_only_at_byte_3() {
        let mut s = vec![0u8; 512];
        assert!(!super::is_refs(&s));
        s[3..11].copy_from_slice(super::FS_NAME);
        assert!(super::is_refs(&s));
        assert!(!super::is_refs(&s[..10]));
    }
}
