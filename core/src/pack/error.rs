use std::fmt;
use std::ops::Range;

use crate::load::line_col;

/// A pack that cannot be used: the file, where in it, what is wrong and, when we can guess, what
/// was meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackError {
    pub path: String,
    /// The file's text, so a renderer can show the offending line.
    pub text: String,
    pub span: Option<Range<usize>>,
    pub message: String,
    pub help: Option<String>,
}

impl PackError {
    pub fn new(path: &str, text: &str, span: Option<Range<usize>>, message: impl Into<String>) -> Self {
        PackError { path: path.into(), text: text.into(), span, message: message.into(), help: None }
    }

    pub fn with_help(mut self, help: Option<String>) -> Self {
        self.help = help;
        self
    }

    pub fn line_col(&self) -> Option<(usize, usize)> {
        self.span.as_ref().map(|s| line_col(&self.text, s.start))
    }
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line_col() {
            Some((l, c)) => write!(f, "{}:{l}:{c}: {}", self.path, self.message)?,
            None => write!(f, "{}: {}", self.path, self.message)?,
        }
        if let Some(h) = &self.help {
            write!(f, " ({h})")?;
        }
        Ok(())
    }
}

impl std::error::Error for PackError {}

pub use crate::names::did_you_mean;
