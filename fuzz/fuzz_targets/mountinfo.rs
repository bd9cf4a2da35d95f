//! `/proc/self/mountinfo` text: every line either parses or is reported as a bad line, and the
//! XFS stripe options in a parsed entry convert without overflow.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spindle_collectors::linux::mountinfo;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (entries, _bad) = mountinfo::parse(&text);
    for e in &entries {
        let _ = mountinfo::xfs_stripe(e);
    }
});
