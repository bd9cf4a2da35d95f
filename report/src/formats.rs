//! The report formats, in one registry: each is a name, a line of help, who reads it and the
//! constructor of its writer. The command line's `--format` values, the writer a check (or
//! `spindle merge`) builds and the name a shard file records all come from here, so a new format
//! is its writer's file and one line in [`FORMATS`].

use std::io::Write;

use crate::ReportWriter;
use crate::baseline::BaselineWriter;
use crate::concise::ConciseWriter;
use crate::github::GithubWriter;
use crate::gitlab::GitlabWriter;
use crate::html::HtmlWriter;
use crate::json::JsonWriter;
use crate::junit::JunitWriter;
use crate::markdown::MarkdownWriter;
use crate::sarif::{LimitWarnings, SarifWriter, Waived};
use crate::text::{TextOptions, TextWriter};

/// Who reads a format, which decides what the run prints around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// A person at a terminal: progress and summaries go to stderr beside it.
    Terminal,
    /// A person, in a file or a page (Markdown, HTML).
    Document,
    /// A program: nothing but the report on stdout.
    Program,
}

/// What a writer is built with: the run's options, already settled.
pub struct WriterOptions {
    pub spindle_version: &'static str,
    pub text: TextOptions,
    pub sarif_category: Option<String>,
    pub waived: Waived,
    /// Where warnings about the report itself go (SARIF's limits).
    pub warn: LimitWarnings,
}

/// One report format.
pub struct FormatSpec {
    /// The `--format` value, and the name shard files record.
    pub name: &'static str,
    pub help: &'static str,
    pub reader: Reader,
    /// Offered by `spindle check --format`; the baseline file is written by `spindle baseline`.
    pub offered: bool,
    pub build: for<'w> fn(&'w mut dyn Write, WriterOptions) -> Box<dyn ReportWriter + 'w>,
}

/// Every format, `--format`'s values in this order.
pub static FORMATS: &[FormatSpec] = &[
    FormatSpec {
        name: "text",
        help: "findings grouped per host in triage order, with their fix",
        reader: Reader::Terminal,
        offered: true,
        build: |w, o| Box::new(TextWriter::with_options(w, o.text)),
    },
    FormatSpec {
        name: "concise",
        help: "one line per finding: FILE:LINE:COL: CODE [severity] message (entity)",
        reader: Reader::Terminal,
        offered: true,
        build: |w, _| Box::new(ConciseWriter::new(w)),
    },
    FormatSpec {
        name: "json",
        help: "the JSON report (docs/report-json.md)",
        reader: Reader::Program,
        offered: true,
        build: |w, o| Box::new(JsonWriter::new(w, o.spindle_version)),
    },
    FormatSpec {
        name: "sarif",
        help: "SARIF 2.1.0, for code-scanning and compliance pipelines",
        reader: Reader::Program,
        offered: true,
        build: |w, o| {
            let log =
                SarifWriter::new(w, o.spindle_version).with_waived(o.waived).with_limit_warnings(o.warn);
            Box::new(match &o.sarif_category {
                Some(c) => log.with_category(c),
                None => log,
            })
        },
    },
    FormatSpec {
        name: "markdown",
        help: "a checklist per host to attach to a change ticket",
        reader: Reader::Document,
        offered: true,
        build: |w, _| Box::new(MarkdownWriter::new(w)),
    },
    FormatSpec {
        name: "html",
        help: "one self-contained page: fleet summary, checklists, alignment diagrams",
        reader: Reader::Document,
        offered: true,
        build: |w, _| Box::new(HtmlWriter::new(w)),
    },
    FormatSpec {
        name: "junit",
        help: "JUnit XML, for the test reports of CI systems",
        reader: Reader::Program,
        offered: true,
        build: |w, _| Box::new(JunitWriter::new(w)),
    },
    FormatSpec {
        name: "gitlab",
        help: "GitLab Code Quality",
        reader: Reader::Program,
        offered: true,
        build: |w, _| Box::new(GitlabWriter::new(w)),
    },
    FormatSpec {
        name: "github",
        help: "GitHub Actions workflow commands (annotations and a job summary)",
        reader: Reader::Program,
        offered: true,
        build: |w, _| Box::new(GithubWriter::new(w)),
    },
    FormatSpec {
        name: "baseline",
        help: "not a report: the baseline file of `spindle baseline`",
        reader: Reader::Program,
        offered: false,
        build: |w, _| Box::new(BaselineWriter::new(w)),
    },
];

/// A format of [`FORMATS`], by name: what options and shard files carry.
#[derive(Clone, Copy)]
pub struct Format(&'static FormatSpec);

impl Format {
    /// The format called `name`, if there is one.
    pub fn named(name: &str) -> Option<Format> {
        FORMATS.iter().find(|f| f.name == name).map(Format)
    }

    pub fn spec(self) -> &'static FormatSpec {
        self.0
    }

    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The writer of one report into `w`.
    pub fn writer<'w>(self, w: &'w mut dyn Write, options: WriterOptions) -> Box<dyn ReportWriter + 'w> {
        (self.0.build)(w, options)
    }

    /// The names `--format` offers.
    pub fn offered() -> impl Iterator<Item = &'static str> {
        FORMATS.iter().filter(|f| f.offered).map(|f| f.name)
    }
}

crate::format_handle::named_handle!(Format);

impl serde::Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name)
    }
}

impl<'de> serde::Deserialize<'de> for Format {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Format, D::Error> {
        let name = String::deserialize(d)?;
        Format::named(&name).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown format `{name}` (this spindle writes {})",
                FORMATS.iter().map(|f| f.name).collect::<Vec<_>>().join(", ")
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        for f in FORMATS {
            assert_eq!(FORMATS.iter().filter(|g| g.name == f.name).count(), 1, "{}", f.name);
            let format = Format::named(f.name).unwrap();
            let json = serde_json::to_string(&format).unwrap();
            assert_eq!(serde_json::from_str::<Format>(&json).unwrap(), format);
        }
        let e = serde_json::from_str::<Format>("\"pdf\"").unwrap_err().to_string();
        assert!(e.contains("unknown format `pdf`") && e.contains("sarif"), "{e}");
        assert!(Format::offered().all(|n| n != "baseline"));
    }
}
