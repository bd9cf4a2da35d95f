//! The ext2/3/4 superblock (the input starts at byte 1,024 of the filesystem).
#![no_main]
use libfuzzer_sys::fuzz_target;
use spindle_collectors::image::ext4;

fuzz_target!(|data: &[u8]| {
    if let Ok(x) = ext4::parse(data, 1024) {
        let _ = (x.size_bytes(), x.stripe_unit_bytes(), x.stripe_width_bytes());
    }
});
