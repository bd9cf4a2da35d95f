//! Errors shown to the user: each names the file and position, and exits with status 2.

use miette::{Diagnostic, NamedSource, SourceSpan};
use spindle_core::load::LoadError;
use spindle_core::pack::PackError;
use thiserror::Error;

#[derive(Debug, Error, Diagnostic)]
#[error("{message}")]
pub struct UserError {
    pub message: String,
    #[source_code]
    pub src: Option<NamedSource<String>>,
    #[label("here")]
    pub span: Option<SourceSpan>,
    #[help]
    pub help: Option<String>,
}

impl UserError {
    pub fn plain(message: impl Into<String>) -> Self {
        UserError { message: message.into(), src: None, span: None, help: None }
    }
}

impl From<PackError> for UserError {
    fn from(e: PackError) -> Self {
        let message = match e.line_col() {
            Some((l, c)) => format!("{}:{l}:{c}: {}", e.path, e.message),
            None => format!("{}: {}", e.path, e.message),
        };
        let span = e
            .span
            .clone()
            .map(|s| SourceSpan::from(s.start..s.end.max(s.start + 1).min(e.text.len().max(1))));
        let src = (!e.text.is_empty()).then(|| NamedSource::new(e.path.clone(), e.text.clone()));
        UserError { message, span: src.as_ref().and(span), src, help: e.help }
    }
}

/// A snapshot that could not be read; `text` is the file's content when it was read.
pub fn load_error(mut e: LoadError, text: Option<&str>) -> UserError {
    // The hint goes under the message, not into it.
    let help = e.help.take();
    let span = text.filter(|_| e.line > 0).map(|t| {
        let offset = offset_of(t, e.line, e.column);
        SourceSpan::from(offset..(offset + 1).min(t.len()).max(offset))
    });
    UserError {
        message: e.to_string(),
        src: span.and(text).map(|t| NamedSource::new(e.path.clone(), t.to_string())),
        span,
        help,
    }
}

/// Byte offset of a 1-based line and column (in characters).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    let rest = &text[start.min(text.len())..];
    start + rest.char_indices().nth(column.saturating_sub(1)).map_or(rest.len(), |(i, _)| i)
}
