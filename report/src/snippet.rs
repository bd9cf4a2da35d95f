//! A source snippet for miette, cut to a window around the span it labels.
//!
//! miette draws a label under its column with a padded format, and Rust's formatter refuses a
//! width past 65,535: a finding far along the one line of a minified snapshot, or a parse error
//! there, panicked the whole run. And miette shows every line it is given whole, so a line of
//! megabytes went to the terminal whole. A [`Snippet`] holds only an
//! [`excerpt`](spindle_core::untrusted::excerpt) of the text (escaped, every line a window of a
//! few hundred characters) and tells miette the line and column the span has in the whole file,
//! so the header and gutter still say where it is.

use std::ops::Range;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};
use spindle_core::untrusted::{self, Excerpt};

/// Lines shown each side of the span's: as many as any handler here asks miette for.
pub const CONTEXT_LINES: usize = 3;

/// A file's text around one span, for miette's `#[source_code]`, with the span to label in it.
#[derive(Debug, Clone)]
pub struct Snippet {
    name: String,
    excerpt: Excerpt,
}

impl Snippet {
    /// The part of `text` around `span` (byte offsets into `text`) to show under the name `name`
    /// (a path: escaped and cut as a name is).
    pub fn new(name: &str, text: &str, span: Range<usize>) -> Snippet {
        Snippet {
            name: untrusted::name(name).into_owned(),
            excerpt: untrusted::excerpt(text, span, CONTEXT_LINES),
        }
    }

    /// [`Snippet::new`] for a span whose 0-based line and column (in characters) are known,
    /// from an index of the file's lines (`SourceDoc::line_col`).
    pub fn at(name: &str, text: &str, span: Range<usize>, line: usize, column: usize) -> Snippet {
        Snippet {
            name: untrusted::name(name).into_owned(),
            excerpt: untrusted::excerpt_at(text, span, line, column, CONTEXT_LINES),
        }
    }

    /// The span to label, in the snippet's own offsets.
    pub fn span(&self) -> SourceSpan {
        SourceSpan::from(self.excerpt.span.clone())
    }

    /// The text shown: the span's lines, cut and escaped.
    pub fn text(&self) -> &str {
        &self.excerpt.text
    }
}

impl SourceCode for Snippet {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self.excerpt.text.as_str().read_span(span, context_lines_before, context_lines_after)?;
        // The column miette puts in the header is the span's in the whole file; other reads
        // start at a line's beginning, where the snippet's column is the file's.
        let column = if span.offset() == self.excerpt.span.start && context_lines_before == 0 {
            self.excerpt.column
        } else {
            inner.column()
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line() + self.excerpt.first_line,
            column,
            inner.line_count(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan};

    #[derive(Debug)]
    struct Labelled(Snippet);

    impl std::fmt::Display for Labelled {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("bad value")
        }
    }
    impl std::error::Error for Labelled {}
    impl Diagnostic for Labelled {
        fn source_code(&self) -> Option<&dyn SourceCode> {
            Some(&self.0)
        }
        fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
            Some(Box::new(std::iter::once(LabeledSpan::new_with_span(Some("here".into()), self.0.span()))))
        }
    }

    fn render(snippet: Snippet) -> String {
        let mut out = String::new();
        GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
            .with_context_lines(2)
            .render_report(&mut out, &Labelled(snippet))
            .unwrap();
        out
    }

    #[test]
    fn a_label_far_along_a_line_renders_with_its_true_position() {
        let text = format!("{{\n\"pad\": \"{}\", \"bad\": -1}}\n", "p".repeat(100_000));
        let at = text.find("\"bad\"").unwrap();
        let out = render(Snippet::new("big.json", &text, at..at + 9));
        let column = at - text.find('\n').unwrap();
        assert!(out.contains(&format!("[big.json:2:{column}]")), "{out}");
        assert!(out.contains(" 2 │ …ppp"), "{out}");
        assert!(out.lines().all(|l| l.chars().count() < 400), "{out}");
    }

    #[test]
    fn a_short_file_renders_as_miette_would_render_it_whole() {
        let text = "{\n  \"a\": 1,\n  \"b\": 2\n}\n";
        let at = text.find("\"b\"").unwrap();
        let whole = {
            let mut out = String::new();
            let diag = miette::MietteDiagnostic::new("bad value")
                .with_label(LabeledSpan::new_with_span(Some("here".into()), at..at + 6));
            let report = miette::Report::new(diag).with_source_code(miette::NamedSource::new("f.json", text));
            GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
                .with_context_lines(2)
                .render_report(&mut out, report.as_ref())
                .unwrap();
            out
        };
        assert_eq!(render(Snippet::new("f.json", text, at..at + 6)), whole);
    }

    #[test]
    fn the_name_and_the_text_are_escaped() {
        let out = render(Snippet::new("a\u{1b}[2J\n.json", "{\"x\u{202e}\": \u{7}}", 1..6));
        assert!(out.contains("a\\e[2J\\n.json"), "{out}");
        assert!(out.contains("\"x\\u{202e}\": \\u{7}}"), "{out}");
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}') && !out.contains('\u{202e}'), "{out}");
    }
}
