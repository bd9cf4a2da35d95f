//! An inventory file's text (`spindle check --inventory`), through
//! `spindle_collectors::inventory::parse` and each error shown as the binary shows it (src/
//! inventory.rs, src/main.rs): in the masked text, at its line and column. Whatever the text:
//! servers or errors, never a panic; every span inside the text and on character boundaries;
//! the masked text the same length as the text, differing only by `*`; nothing from the file
//! driving the terminal.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use spindle_collectors::inventory::{MAX_ERRORS, parse};
use spindle_core::untrusted;
use spindle_report::shown::Shown;
use spindle_report::snippet::Snippet;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let rejected = match parse(&text, Path::new("fleet")) {
        Ok(servers) => {
            assert!(!servers.is_empty());
            return;
        }
        Err(r) => r,
    };
    let masked = &rejected.masked;
    assert_eq!(masked.len(), text.len(), "the mask keeps every position");
    for (a, b) in text.bytes().zip(masked.bytes()) {
        assert!(a == b || b == b'*', "the mask only hides");
    }
    assert!(!rejected.errors.is_empty() && rejected.errors.len() <= MAX_ERRORS + 1);
    for e in &rejected.errors {
        let snippet = e.span.as_ref().map(|span| {
            assert!(span.start <= span.end && span.end <= text.len(), "span {span:?} of {}", text.len());
            assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end), "span {span:?}");
            let (line, col) = spindle_core::load::line_col(masked, span.start);
            assert!(line >= 1 && col >= 1);
            let end = span.end.max(span.start + 1).min(masked.len().max(1));
            Snippet::new("servers.toml", masked, span.start..end)
        });
        let out = Shown::new(&e.message, e.help.as_deref()).with_snippet(snippet).render_plain();
        let bad = untrusted::first_unsafe_on_terminal(&out);
        assert!(bad.is_none(), "{bad:?} reached the terminal");
    }
});
