#![no_main]
use libfuzzer_sys::fuzz_target;
use spindle_collectors::image::{fat, ntfs, refs};

fuzz_target!(|data: &[u8]| {
    if let Ok(b) = ntfs::parse(data, 0) {
        let _ = b.size_bytes();
    }
    let _ = fat::parse(data, 0);
    let _ = refs::is_refs(data);
});
