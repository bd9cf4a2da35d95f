//! Field-wise merge of two descriptions of the same entity: what the first snapshot left out, a
//! later one may fill in (host facts from one collector, SQL Server facts from another).

use super::*;

pub trait Merge {
    /// Fills the facts `self` lacks from `other`; facts both have keep `self`'s value.
    fn merge_from(&mut self, other: Self);
}

macro_rules! fill {
    ($self:ident, $other:ident; $($field:ident),* $(,)?) => {
        $( if $self.$field.is_none() { $self.$field = $other.$field; } )*
    };
}

impl Merge for Host {
    fn merge_from(&mut self, o: Self) {
        fill!(self, o; os_family, os_version, cpu_count, memory_bytes, is_virtual, cloud_provider);
    }
}

impl Merge for Disk {
    fn merge_from(&mut self, o: Self) {
        fill!(self, o; number, model, media, rpm, bus, size_bytes, logical_sector_bytes,
            physical_sector_bytes, partition_style, backed_by);
    }
}

impl Merge for Partition {
    fn merge_from(&mut self, o: Self) {
        fill!(self, o; number, offset_bytes, size_bytes);
    }
}

impl Merge for Volume {
    fn merge_from(&mut self, o: Self) {
        for mp in o.mount_points {
            if !self.mount_points.iter().any(|m| same_path(m, &mp)) {
                self.mount_points.push(mp);
            }
        }
        fill!(self, o; label, filesystem, allocation_unit_bytes, size_bytes, free_bytes, compressed,
            encrypted, os_volume, temp_disk, mount_options, fs_stripe_unit_bytes, fs_stripe_width_bytes,
            backed_by);
    }
}

impl Merge for StoragePool {
    fn merge_from(&mut self, o: Self) {
        fill!(self, o; name, physical_disk_ids);
    }
}

impl Merge for VirtualDisk {
    fn merge_from(&mut self, o: Self) {
        fill!(self, o; name, columns, interleave_bytes, resiliency);
    }
}

impl Merge for RaidSet {
    fn merge_from(&mut self, o: Self) {
        fill!(self, o; kind, level, stripe_unit_bytes, member_ids);
    }
}

impl Merge for SqlInstance {
    fn merge_from(&mut self, o: Self) {
        fill!(self, o; version, product_level, edition, clustered, cpu_count, instant_file_initialization,
            service_account, databases);
    }
}

impl Merge for Database {
    fn merge_from(&mut self, o: Self) {
        fill!(self, o; id, role, recovery_model, state, files);
    }
}

impl Merge for DbFile {
    fn merge_from(&mut self, o: Self) {
        fill!(self, o; file_id, physical_name, size_bytes, growth, max_size, volume_id, io);
    }
}

/// Compares two mount points or file paths the way the platform would: Windows paths (with a
/// drive letter or a `\\?\` prefix) case-insensitively with either slash, others exactly.
pub fn same_path(a: &str, b: &str) -> bool {
    norm_path(a) == norm_path(b)
}

/// A path with a trailing separator removed and, for Windows paths, lower-cased with `/` as `\`.
pub fn norm_path(p: &str) -> String {
    let windows = p.contains('\\') || p.as_bytes().get(1) == Some(&b':');
    let mut s = if windows { p.replace('/', "\\").to_lowercase() } else { p.to_string() };
    while s.len() > 1 && (s.ends_with('\\') || s.ends_with('/')) {
        s.pop();
    }
    s
}

/// Normalises a volume id so that ids from different collectors join: GUID paths compare
/// case-insensitively and with or without the trailing backslash (`\\?\Volume{…}\`).
pub fn norm_volume_id(id: &str) -> String {
    norm_path(id.trim())
}
