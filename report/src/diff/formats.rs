//! The diff formats, in one registry of the shape of [`crate::formats::FORMATS`]: each is a name,
//! a line of help, who reads it and the function that writes it. `spindle diff --format`'s values
//! and help come from here, so a new diff format is its renderer's file and one line in
//! [`DIFF_FORMATS`].

use std::io::{self, Write};

use super::model::Diff;
use crate::formats::Reader;

/// One diff format.
pub struct DiffFormatSpec {
    /// The `--format` value.
    pub name: &'static str,
    pub help: &'static str,
    pub reader: Reader,
    pub render: fn(&Diff, &mut dyn Write) -> io::Result<()>,
}

/// Every diff format, `--format`'s values in this order.
pub static DIFF_FORMATS: &[DiffFormatSpec] = &[
    DiffFormatSpec {
        name: "text",
        help: "per host, new findings, fixed ones, layout changes, then latency",
        reader: Reader::Terminal,
        render: super::text::text,
    },
    DiffFormatSpec {
        name: "json",
        help: "every finding with its fingerprint and every change with its values",
        reader: Reader::Program,
        render: super::json::json,
    },
    DiffFormatSpec {
        name: "markdown",
        help: "the text's order as Markdown, for a change ticket",
        reader: Reader::Document,
        render: super::markdown::markdown,
    },
];

/// A format of [`DIFF_FORMATS`], by name: what `spindle diff`'s options carry.
#[derive(Clone, Copy)]
pub struct DiffFormat(&'static DiffFormatSpec);

impl DiffFormat {
    /// The format called `name`, if there is one.
    pub fn named(name: &str) -> Option<DiffFormat> {
        DIFF_FORMATS.iter().find(|f| f.name == name).map(DiffFormat)
    }

    pub fn spec(self) -> &'static DiffFormatSpec {
        self.0
    }

    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The names `--format` offers.
    pub fn offered() -> impl Iterator<Item = &'static str> {
        DIFF_FORMATS.iter().map(|f| f.name)
    }
}

crate::format_handle::named_handle!(DiffFormat);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        for f in DIFF_FORMATS {
            assert_eq!(DIFF_FORMATS.iter().filter(|g| g.name == f.name).count(), 1, "{}", f.name);
            assert_eq!(DiffFormat::named(f.name).unwrap().name(), f.name);
        }
        assert!(DiffFormat::named("pdf").is_none());
    }
}
