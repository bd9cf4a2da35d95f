//! The GPT header (the first 512 bytes, as LBA 1) and, when it parses, the entry array (the rest:
//! the entry LBA is taken as 2). Run as given, then with the CRCs made valid.
#![no_main]
mod checksums;
use libfuzzer_sys::fuzz_target;
use spindle_collectors::image::gpt;

fn run(data: &[u8]) {
    let (header, rest) = data.split_at(data.len().min(512));
    if let Ok(h) = gpt::parse_header(header, 512, 512) {
        let _ = gpt::parse_entries(rest, 1024, &h);
    }
}

fuzz_target!(|data: &[u8]| {
    run(data);
    // Lay the input out as LBA 1 onwards of a disk, so the header's entry LBA 2 is byte 512.
    let mut disk = vec![0u8; 512];
    disk.extend_from_slice(data);
    if disk.len() >= 512 + 92 {
        disk[512 + 72..512 + 80].copy_from_slice(&2u64.to_le_bytes());
        checksums::fix_gpt(&mut disk, 512, 512);
        run(&disk[512..]);
    }
});
