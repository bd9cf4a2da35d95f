//! The whole collector with the input as the disk image: as given, then with the GPT CRCs (at
//! 512 and 4096) and a trailing VHD footer's checksum made valid.
#![no_main]
mod checksums;
use libfuzzer_sys::fuzz_target;
use spindle_collectors::image;

fn run(disk: &[u8]) {
    if let Ok(f) = image::collect(&disk, "fuzz") {
        let _ = f.into_snapshot("fuzz");
    }
}

fuzz_target!(|data: &[u8]| {
    let disk = data.to_vec();
    run(&disk);
    let mut fixed = disk.clone();
    let len = fixed.len();
    if len >= 1024 && &fixed[len - 512..len - 504] == b"conectix" {
        checksums::fix_vhd(&mut fixed, len - 512);
    }
    checksums::fix_gpt(&mut fixed, 512, 512);
    checksums::fix_gpt(&mut fixed, 4096, 4096);
    if fixed != disk {
        run(&fixed);
    }
});
