//! What both targets do with an error: show it as the binary does (spindle-report's `Shown`: the
//! message and help escaped and cut, the source a [`Snippet`] window around the span), and check
//! that nothing but the frame's own newlines reaches the terminal.

use std::ops::Range;

use spindle_core::untrusted;
use spindle_report::shown::Shown;
use spindle_report::snippet::Snippet;

/// A span into `text` is within it and on character boundaries, or the renderer and the
/// locator's callers would slice through a character.
pub fn check_span(text: &str, span: &Range<usize>, what: &str) {
    assert!(
        span.start <= span.end && span.end <= text.len(),
        "{what}: span {span:?} outside {} bytes",
        text.len()
    );
    assert!(
        text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
        "{what}: span {span:?} splits a character"
    );
}

/// An error on the terminal: `message` and `help` as the binary escapes them, and the text
/// around `span`.
pub fn render(path: &str, text: &str, span: Option<Range<usize>>, message: &str, help: Option<&str>) {
    let snippet =
        span.map(|s| Snippet::new(path, text, s.start..s.end.max(s.start + 1).min(text.len().max(1))));
    let out = Shown::new(message, help).with_snippet(snippet).render_plain();
    check_terminal(&out);
    // The cap on what is echoed: a message of megabytes is cut, and a snippet is a window.
    assert!(out.len() < 256 << 10, "{} bytes of error on the terminal", out.len());
}

/// Nothing but newlines and what a terminal shows as itself: what data put there is escaped.
pub fn check_terminal(out: &str) {
    if let Some((i, c)) = untrusted::first_unsafe_on_terminal(out) {
        panic!("U+{:04X} reached the terminal at byte {i}", c as u32);
    }
}
