use std::fmt;
use std::ops::{Deref, Range};

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

/// Most errors kept of one pack file. Each error carries the pack's text for its snippet, so a
/// 4 MiB pack of a million mistakes needed terabytes; 20 screens of them are as many as one
/// sitting fixes (clang stops at 20 errors too, by default).
pub const MAX_ERRORS_PER_PACK: usize = 20;

/// The error that stands for those past [`MAX_ERRORS_PER_PACK`] when a pack had `found` of them.
pub(crate) fn more_errors(src: &super::file::SourceText, found: usize) -> Option<PackError> {
    (found > MAX_ERRORS_PER_PACK).then(|| {
        PackError::new(
            &src.path,
            "",
            None,
            format!(
                "{} more mistakes in this pack are not listed (the first {MAX_ERRORS_PER_PACK} are)",
                found - MAX_ERRORS_PER_PACK
            ),
        )
    })
}

/// Everything found wrong with the packs of one run, so that one edit fixes them all rather than
/// one per run. Never empty. Grouped by file, files in the order they were first read, and by
/// position within a file; an error found twice (a pack two others extend is read twice) is kept
/// once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackErrors(Vec<PackError>);

impl PackErrors {
    /// `None` when there is nothing wrong.
    pub fn from_vec(errors: Vec<PackError>) -> Option<PackErrors> {
        let mut files: Vec<&str> = vec![];
        for e in &errors {
            if !files.contains(&e.path.as_str()) {
                files.push(&e.path);
            }
        }
        let keys: Vec<(usize, usize)> = errors
            .iter()
            // An error about the file as a whole (how many more there are) after those placed in it.
            .map(|e| {
                (
                    files.iter().position(|f| *f == e.path).unwrap_or(0),
                    e.span.as_ref().map_or(usize::MAX, |s| s.start),
                )
            })
            .collect();
        let mut keyed: Vec<((usize, usize), PackError)> = keys.into_iter().zip(errors).collect();
        // Stable, so errors at one position keep the order they were found in.
        keyed.sort_by_key(|(key, _)| *key);
        // One pack's text is the same in each of its errors: they are told apart without
        // comparing it, since megabytes compared for each pair of errors took minutes.
        let mut seen = std::collections::HashSet::new();
        let mut out: Vec<PackError> = Vec::with_capacity(keyed.len());
        for (_, e) in keyed {
            if seen.insert((e.path.clone(), e.span.clone(), e.message.clone(), e.help.clone())) {
                out.push(e);
            }
        }
        (!out.is_empty()).then_some(PackErrors(out))
    }

    pub fn into_vec(self) -> Vec<PackError> {
        self.0
    }
}

impl Deref for PackErrors {
    type Target = [PackError];

    fn deref(&self) -> &[PackError] {
        &self.0
    }
}

impl From<PackError> for PackErrors {
    fn from(e: PackError) -> Self {
        PackErrors(vec![e])
    }
}

impl IntoIterator for PackErrors {
    type Item = PackError;
    type IntoIter = std::vec::IntoIter<PackError>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a PackErrors {
    type Item = &'a PackError;
    type IntoIter = std::slice::Iter<'a, PackError>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// One error reads exactly as a [`PackError`]; several, one per line under their count.
impl fmt::Display for PackErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let [only] = self.0.as_slice() {
            return only.fmt(f);
        }
        write!(f, "{} errors in packs:", self.0.len())?;
        for e in &self.0 {
            write!(f, "\n{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for PackErrors {}

pub use crate::names::did_you_mean;
