//! What both targets do with an error: show it as the binary does (`src/main.rs`'s `Shown`: the
//! message and help escaped and cut, the source a [`Snippet`] window around the span), and check
//! that nothing but the frame's own newlines reaches the terminal.

use std::fmt;
use std::ops::Range;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};
use spindle_core::untrusted;
use spindle_report::snippet::Snippet;

/// A span into `text` is within it and on character boundaries, or the renderer and the
/// locator's callers would slice through a character.
pub fn check_span(text: &str, span: &Range<usize>, what: &str) {
    assert!(span.start <= span.end && span.end <= text.len(), "{what}: span {span:?} outside {} bytes", text.len());
    assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end), "{what}: span {span:?} splits a character");
}

/// An error on the terminal: `message` and `help` as the binary escapes them, and the text
/// around `span`.
pub fn render(path: &str, text: &str, span: Option<Range<usize>>, message: &str, help: Option<&str>) {
    let shown = Shown {
        message: untrusted::message_keeping_lines(message).into_owned(),
        help: help.map(|h| untrusted::message_keeping_lines(h).into_owned()),
        snippet: span.map(|s| Snippet::new(path, text, s.start..s.end.max(s.start + 1).min(text.len().max(1)))),
    };
    let mut out = String::new();
    GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
        .render_report(&mut out, &shown)
        .unwrap();
    check_terminal(&out);
    // The cap on what is echoed: a message of megabytes is cut, and a snippet is a window.
    assert!(out.len() < 256 << 10, "{} bytes of error on the terminal", out.len());
}

/// Nothing but newlines and printable text: what data put there is escaped.
pub fn check_terminal(out: &str) {
    if let Some((i, c)) = out.char_indices().find(|&(_, c)| forbidden(c)) {
        panic!("U+{:04X} reached the terminal at byte {i}", c as u32);
    }
}

/// What must never reach the terminal from data: control characters other than newline (tabs
/// are expanded by the renderer), C1 controls, and bidirectional or invisible formatting.
fn forbidden(c: char) -> bool {
    (c < ' ' && c != '\n')
        || ('\u{7f}'..='\u{9f}').contains(&c)
        || matches!(
            c,
            '\u{61c}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{feff}'
                | '\u{e0000}'..='\u{e007f}'
        )
}

#[derive(Debug)]
struct Shown {
    message: String,
    help: Option<String>,
    snippet: Option<Snippet>,
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Shown {}

impl Diagnostic for Shown {
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.snippet.as_ref().map(|s| s as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let label = LabeledSpan::new_with_span(Some("here".into()), self.snippet.as_ref()?.span());
        Some(Box::new(std::iter::once(label)))
    }
}
