//! The MBR parser on sector 0, then the EBR chain of every extended entry, with the input as
//! the whole disk.
#![no_main]
use libfuzzer_sys::fuzz_target;
use spindle_collectors::image::mbr;

fuzz_target!(|data: &[u8]| {
    let Ok(m) = mbr::parse(&data[..data.len().min(512)], 0) else { return };
    let disk = data.to_vec();
    for e in m.entries.iter().filter(|e| e.is_extended()) {
        for ss in [512, 4096] {
            let _ = mbr::logical_partitions(&disk, e, ss, 5);
        }
    }
});
