//! An error as spindle shows it on stderr: the binary's errors, and the fuzz targets that check
//! what those errors can put on a terminal, render through this one piece.
//!
//! Its message and help quote data (a file's name, a server's message, a plugin's output):
//! escaped, so they cannot drive the terminal, and cut, so a megabyte of it is not echoed;
//! newlines stay, inside miette's frame. Its snippet is a window around the span, not the whole
//! line: a line of megabytes was printed whole, and a span past column 65,535 made miette panic.

use std::fmt;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};
use spindle_core::untrusted;

use crate::snippet::Snippet;

#[derive(Debug)]
pub struct Shown {
    message: String,
    help: Option<String>,
    snippet: Option<Snippet>,
    /// Each of several errors found at once (a pack's), with its own snippet.
    related: Vec<Shown>,
}

impl Shown {
    /// `message` and `help`, escaped and cut as data.
    pub fn new(message: &str, help: Option<&str>) -> Shown {
        Shown {
            message: untrusted::message_keeping_lines(message).into_owned(),
            help: help.map(|h| untrusted::message_keeping_lines(h).into_owned()),
            snippet: None,
            related: vec![],
        }
    }

    /// The text around the error, labelled "here".
    pub fn with_snippet(mut self, snippet: Option<Snippet>) -> Shown {
        self.snippet = snippet;
        self
    }

    pub fn with_related(mut self, related: Vec<Shown>) -> Shown {
        self.related = related;
        self
    }

    /// As stderr shows it without colour.
    pub fn render_plain(&self) -> String {
        let mut out = String::new();
        GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
            .render_report(&mut out, self)
            .expect("writing to a String");
        out
    }
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
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(self.related.iter().map(|r| r as &dyn Diagnostic)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_in_an_error_cannot_drive_the_terminal() {
        let text = "{\"host\": {\"name\": \"\u{1b}[2J\u{202e}x\"}}\n";
        let at = text.find('\u{1b}').unwrap();
        let shown = Shown::new("bad name \u{1b}]0;owned\u{7}", Some("help \u{9b}31m"))
            .with_snippet(Some(Snippet::new("f.json", text, at..at + 1)))
            .with_related(vec![Shown::new("second \u{200f}", None)]);
        let out = shown.render_plain();
        assert_eq!(untrusted::first_unsafe_on_terminal(&out), None, "{out}");
        assert!(out.contains("bad name") && out.contains("second") && out.contains("f.json"), "{out}");
    }
}
