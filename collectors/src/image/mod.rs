//! The disk-image and raw-device collector: the facts of one disk read from its bytes alone,
//! with no operating system API, so a disk image, a `dd` copy, a fixed VHD or a block device
//! (`/dev/sdb`, `\\.\PhysicalDrive2`) can be checked anywhere.
//!
//! Each file parses one on-disk structure from bytes and cites where its layout comes from:
//! [`mbr`] and [`gpt`] (partition tables), [`ntfs`], [`refs`], [`xfs`], [`ext4`] and [`fat`]
//! (boot sectors and superblocks), [`vhd`] (the fixed VHD footer). [`collect()`] ties them
//! together; its module docs say how the logical sector size is decided and which partitions
//! become volumes.
//!
//! Every field is read through bounds-checked helpers and every size computed with checked
//! arithmetic; every read is bounded (the GPT entry array at 1 MiB, a partition probe at
//! 8 KiB), so a crafted or truncated image yields an [`ImageError`] naming the structure and
//! its byte offset, never a panic or a large allocation. The parsers are fuzzed (`fuzz/`).

mod collect;
mod content;
mod crc32;
mod error;
pub mod ext4;
pub mod fat;
pub mod gpt;
pub mod mbr;
pub mod ntfs;
mod overlaps;
mod read_at;
pub mod refs;
mod tables;
pub mod vhd;
pub mod xfs;

pub use collect::{COLLECTOR, ImageFacts, PartitionType, collect, snapshot};
pub use crc32::crc32;
pub use error::ImageError;
pub use read_at::{ReadAt, Window};
