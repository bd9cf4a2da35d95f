//! A device-mapper table (`dmsetup table` output) and a dm name: parsed or refused, never a
//! panic or an overflow in the stripe arithmetic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spindle_collectors::linux::dm;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = dm::parse_table(&text);
    let _ = dm::lvm_name(&text);
});
