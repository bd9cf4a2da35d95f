#![no_main]
use libfuzzer_sys::fuzz_target;
use spindle_collectors::image::xfs;

fuzz_target!(|data: &[u8]| {
    if let Ok(x) = xfs::parse(data, 0) {
        let _ = (x.size_bytes(), x.stripe_unit_bytes(), x.stripe_width_bytes());
    }
});
