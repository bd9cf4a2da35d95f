//! The VHD footer, as given and with its checksum made valid, and the container recogniser.
#![no_main]
mod checksums;
use libfuzzer_sys::fuzz_target;
use spindle_collectors::image::vhd;

fuzz_target!(|data: &[u8]| {
    let _ = vhd::parse_footer(data, 0);
    let _ = vhd::unsupported_container(data);
    let mut fixed = data.to_vec();
    checksums::fix_vhd(&mut fixed, 0);
    let _ = vhd::parse_footer(&fixed, 0);
});
