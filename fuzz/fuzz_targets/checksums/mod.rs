//! Checksum fix-ups, so the fuzzer reaches the code behind the GPT CRCs and the VHD checksum
//! instead of stopping at them. Each target runs the input as it is and, when it differs, once
//! more with its checksums made valid.

#![allow(dead_code)]

use spindle_collectors::image::crc32;

/// Makes the GPT header at `hdr` (and the entry array it points to, when it lies inside `disk`
/// and is at most 64 KiB) carry valid CRCs. `sector` is the logical sector size.
pub fn fix_gpt(disk: &mut [u8], hdr: usize, sector: usize) {
    let Some(h) = disk.get(hdr..hdr + 92) else { return };
    let size = u32::from_le_bytes([h[12], h[13], h[14], h[15]]) as usize;
    let lba = u64::from_le_bytes(h[72..80].try_into().unwrap());
    let count = u32::from_le_bytes(h[80..84].try_into().unwrap()) as u64;
    let esize = u32::from_le_bytes(h[84..88].try_into().unwrap()) as u64;
    let len = count.saturating_mul(esize);
    let at = lba.saturating_mul(sector as u64);
    if len <= 65_536
        && let Some(a) = disk.get(at as usize..(at.saturating_add(len)) as usize)
    {
        let c = crc32(&[a]);
        disk[hdr + 88..hdr + 92].copy_from_slice(&c.to_le_bytes());
    }
    let size = size.clamp(92, sector);
    if disk.len() >= hdr + size {
        disk[hdr + 16..hdr + 20].fill(0);
        let c = crc32(&[&disk[hdr..hdr + size]]);
        disk[hdr + 16..hdr + 20].copy_from_slice(&c.to_le_bytes());
    }
}

/// Makes the 512-byte VHD footer at `at` carry a valid checksum.
pub fn fix_vhd(data: &mut [u8], at: usize) {
    let Some(f) = data.get_mut(at..at + 512) else { return };
    f[64..68].fill(0);
    let sum = f.iter().map(|&b| u32::from(b)).fold(0u32, u32::wrapping_add);
    f[64..68].copy_from_slice(&(!sum).to_be_bytes());
}
