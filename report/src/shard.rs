//! Shard files: one share of a fleet's check (`spindle check --shard I/N`), kept as its hosts
//! were rendered for the report's format, so that `spindle merge` writes the report the whole
//! run would have written, byte for byte: it replays every shard's hosts into the same writer,
//! in the order of the unsharded run, then finishes it with the shards' counts added up.
//!
//! The file is JSON Lines: a [`ShardHeader`], then one line per host or server that gave no
//! facts, each with its position in the unsharded run, then an `end` line with the shard's
//! counts and the baseline's findings it did not check. A file without its `end` line is a
//! shard that did not finish, and a merge refuses it.

use std::io::{self, BufRead, Write};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::baseline::BaselineEntry;
use super::{HostMeta, Part, Render, Rendered, ReportWriter, RuleInfo, RunProvenance, Summary};

/// The version of the shard file layout. A merge takes only its own.
pub const SHARD_VERSION: u32 = 1;

/// The longest line a merge reads: a host rendered from a 64 MiB snapshot stays far below it.
const MAX_LINE_BYTES: u64 = 512 << 20;

/// The first line of a shard file: which share of which run it holds, and everything a merge
/// needs to build the report's writer as the run did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardHeader {
    pub spindle_shard: u32,
    pub spindle_version: String,
    /// 1-based.
    pub index: u32,
    pub count: u32,
    /// The report's format and its options, as the library describes them.
    pub writer: serde_json::Value,
    pub rules: Vec<RuleInfo>,
    pub provenance: RunProvenance,
}

impl ShardHeader {
    /// Whether `other` is a shard of the same run: the same spindle, shard count, report
    /// writer, rules and provenance (but for the time each shard started).
    pub fn same_run(&self, other: &ShardHeader) -> bool {
        let started = |h: &ShardHeader| RunProvenance { started_at: String::new(), ..h.provenance.clone() };
        self.spindle_shard == other.spindle_shard
            && self.spindle_version == other.spindle_version
            && self.count == other.count
            && self.writer == other.writer
            && self.rules == other.rules
            && started(self) == started(other)
    }
}

/// A line after the header.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Line {
    Host {
        position: u64,
        text: String,
        parts: Vec<(Part, usize, usize)>,
        meta: Option<HostMeta>,
    },
    CollectionError {
        position: u64,
        source: String,
        message: String,
    },
    End {
        summary: Summary,
        /// The baseline's findings this shard's hosts were not checked for, with their place
        /// in the baseline.
        not_checked: Vec<(usize, BaselineEntry)>,
    },
}

/// A [`ReportWriter`] that writes a shard file: hosts are rendered by the report format's own
/// renderer (`format`, which writes nowhere), and kept with their position.
pub struct ShardRecorder<'w> {
    out: &'w mut dyn Write,
    format: Box<dyn ReportWriter + 'w>,
    header: ShardHeader,
    position: Option<u64>,
    not_checked: Vec<BaselineEntry>,
}

impl<'w> ShardRecorder<'w> {
    /// `format` is the report's writer, built as for an unsharded run but writing nowhere;
    /// `writer` describes it for the merge.
    pub fn new(
        out: &'w mut dyn Write,
        format: Box<dyn ReportWriter + 'w>,
        (index, count): (u32, u32),
        spindle_version: &str,
        writer: serde_json::Value,
    ) -> Self {
        let header = ShardHeader {
            spindle_shard: SHARD_VERSION,
            spindle_version: spindle_version.to_string(),
            index,
            count,
            writer,
            rules: vec![],
            provenance: RunProvenance::default(),
        };
        ShardRecorder { out, format, header, position: None, not_checked: vec![] }
    }

    fn line(&mut self, line: &Line) -> io::Result<()> {
        serde_json::to_writer(&mut *self.out, line).map_err(io::Error::other)?;
        self.out.write_all(b"\n")
    }

    fn take_position(&mut self) -> io::Result<u64> {
        self.position.take().ok_or_else(|| io::Error::other("a shard's host came without its position"))
    }
}

impl ReportWriter for ShardRecorder<'_> {
    fn provenance(&mut self, run: &RunProvenance) {
        self.header.provenance = run.clone();
        self.format.provenance(run);
    }

    fn begin(&mut self, rules: &[RuleInfo]) -> io::Result<()> {
        self.header.rules = rules.to_vec();
        self.format.begin(rules)?;
        serde_json::to_writer(&mut *self.out, &self.header).map_err(io::Error::other)?;
        self.out.write_all(b"\n")
    }

    fn renderer(&self) -> Arc<dyn Render> {
        self.format.renderer()
    }

    fn position(&mut self, position: u64) {
        self.position = Some(position);
    }

    fn append(&mut self, host: &Rendered) -> io::Result<()> {
        let position = self.take_position()?;
        // Every writer renders text; a merge writes these bytes back as they are.
        let text = std::str::from_utf8(&host.bytes).map_err(io::Error::other)?.to_string();
        let parts = host.parts.iter().map(|(p, r)| (*p, r.start, r.end)).collect();
        self.line(&Line::Host { position, text, parts, meta: host.host.as_deref().cloned() })
    }

    fn collection_error(&mut self, source: &str, message: &str) -> io::Result<()> {
        let position = self.take_position()?;
        self.line(&Line::CollectionError { position, source: source.into(), message: message.into() })
    }

    fn not_checked(&mut self, entries: Vec<BaselineEntry>) {
        self.not_checked = entries;
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        let not_checked = std::mem::take(&mut self.not_checked).into_iter().map(|e| (e.index, e)).collect();
        self.line(&Line::End { summary: *summary, not_checked })?;
        self.out.flush()
    }
}

/// One shard file being read by a merge.
pub struct ShardReader<R: BufRead> {
    name: String,
    input: R,
    line: usize,
    pub header: ShardHeader,
    next: Option<Line>,
    last_position: Option<u64>,
    end: Option<(Summary, Vec<(usize, BaselineEntry)>)>,
}

impl<R: BufRead> ShardReader<R> {
    /// Reads the header of the shard file `name`. Errors name the file and the line.
    pub fn open(name: &str, mut input: R) -> Result<Self, String> {
        let text = read_line(&mut input, name, 1)?.ok_or_else(|| {
            format!("{name}: empty: not a shard file (`spindle check --shard I/N` writes them)")
        })?;
        let header: ShardHeader = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{name}:1:{}: not a shard file header ({e}); `spindle check --shard I/N` writes them",
                e.column()
            )
        })?;
        if header.spindle_shard != SHARD_VERSION {
            return Err(format!(
                "{name}:1: shard file version {}, this spindle merges version {SHARD_VERSION}: merge with the spindle that wrote it",
                header.spindle_shard
            ));
        }
        if header.count == 0 || header.index == 0 || header.index > header.count {
            return Err(format!("{name}:1: shard {}/{}: not a share of a run", header.index, header.count));
        }
        let mut reader = ShardReader {
            name: name.to_string(),
            input,
            line: 1,
            header,
            next: None,
            last_position: None,
            end: None,
        };
        reader.advance()?;
        Ok(reader)
    }

    /// Reads the next line: a host or collection error into `next`, the end into `end`.
    fn advance(&mut self) -> Result<(), String> {
        if self.end.is_some() {
            self.next = None;
            return Ok(());
        }
        self.line += 1;
        let (name, n) = (&self.name, self.line);
        let text = read_line(&mut self.input, name, n)?.ok_or_else(|| {
            format!("{name}:{n}: the file ends before its `end` line: the shard did not finish; run it again")
        })?;
        let line: Line = serde_json::from_str(&text)
            .map_err(|e| format!("{name}:{n}:{}: not a shard file line ({e})", e.column()))?;
        let position = match &line {
            Line::Host { position, text, parts, .. } => {
                if parts.iter().any(|&(_, s, e)| s > e || e > text.len() || !text.is_char_boundary(s)) {
                    return Err(format!("{name}:{n}: a host's parts lie outside its text"));
                }
                *position
            }
            Line::CollectionError { position, .. } => *position,
            Line::End { summary, not_checked } => {
                self.end = Some((*summary, not_checked.clone()));
                self.next = None;
                return Ok(());
            }
        };
        if self.last_position.is_some_and(|last| position <= last) {
            return Err(format!("{name}:{n}: position {position} out of order"));
        }
        self.last_position = Some(position);
        self.next = Some(line);
        Ok(())
    }

    /// The file's name, as errors give it.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn next_position(&self) -> Option<u64> {
        match &self.next {
            Some(Line::Host { position, .. } | Line::CollectionError { position, .. }) => Some(*position),
            _ => None,
        }
    }
}

/// Reads one line of at most [`MAX_LINE_BYTES`]; `None` at the end of the file.
fn read_line<R: BufRead>(input: &mut R, name: &str, n: usize) -> Result<Option<String>, String> {
    let mut buf = vec![];
    let read = io::Read::take(&mut *input, MAX_LINE_BYTES + 1)
        .read_until(b'\n', &mut buf)
        .map_err(|e| format!("{name}:{n}: cannot read: {e}"))?;
    if read == 0 {
        return Ok(None);
    }
    if buf.len() as u64 > MAX_LINE_BYTES {
        return Err(format!("{name}:{n}: a line longer than {} MiB: not a shard file", MAX_LINE_BYTES >> 20));
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    } else {
        return Err(format!(
            "{name}:{n}: the file ends inside a line: the shard did not finish; run it again"
        ));
    }
    String::from_utf8(buf)
        .map(Some)
        .map_err(|e| format!("{name}:{n}: not UTF-8 (byte {})", e.utf8_error().valid_up_to()))
}

/// Merges complete shard files (every one of `1..=count`, each once, all of one run, checked
/// by the caller with [`ShardHeader::same_run`]) into `writer`: the report the unsharded run
/// would have written. Returns the run's counts.
pub fn merge<R: BufRead>(
    mut shards: Vec<ShardReader<R>>,
    writer: &mut dyn ReportWriter,
) -> Result<Summary, MergeError> {
    let Some(first) = shards.first() else {
        return Err(MergeError::Shard("no shard to merge".into()));
    };
    let mut run = first.header.provenance.clone();
    // The run started when its first shard did.
    if let Some(earliest) =
        shards.iter().map(|s| &s.header.provenance.started_at).filter(|s| !s.is_empty()).min()
    {
        run.started_at = earliest.clone();
    }
    let rules = first.header.rules.clone();
    writer.provenance(&run);
    writer.begin(&rules).map_err(MergeError::Write)?;
    let mut last: Option<(u64, usize)> = None;
    // The shard whose next host comes first in the whole run's order, until all are read.
    let first_due = |shards: &[ShardReader<R>]| {
        shards
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.next_position().map(|p| (i, p)))
            .min_by_key(|&(_, p)| p)
    };
    while let Some((i, position)) = first_due(&shards) {
        if let Some((p, other)) = last.filter(|&(p, _)| p == position) {
            return Err(MergeError::Shard(format!(
                "{} and {}: both hold position {p}: shards of two different runs?",
                shards[other].name, shards[i].name
            )));
        }
        last = Some((position, i));
        match shards[i].next.take() {
            Some(Line::Host { text, parts, meta, .. }) => {
                let rendered = Rendered {
                    bytes: text.into_bytes(),
                    parts: parts.into_iter().map(|(p, s, e)| (p, s..e)).collect(),
                    host: meta.map(Box::new),
                };
                writer.position(position);
                writer.append(&rendered).map_err(MergeError::Write)?;
            }
            Some(Line::CollectionError { source, message, .. }) => {
                writer.position(position);
                writer.collection_error(&source, &message).map_err(MergeError::Write)?;
            }
            _ => {}
        }
        shards[i].advance().map_err(MergeError::Shard)?;
    }
    let mut summary = Summary::default();
    let mut not_checked = vec![];
    for shard in &mut shards {
        let (counts, entries) = shard.end.take().expect("every shard read to its end");
        summary.merge(&counts);
        not_checked.extend(entries);
    }
    if summary.baseline.is_some() {
        not_checked.sort_by_key(|(i, _)| *i);
        writer.not_checked(not_checked.into_iter().map(|(index, e)| BaselineEntry { index, ..e }).collect());
    }
    writer.finish(&summary).map_err(MergeError::Write)?;
    Ok(summary)
}

/// Why a merge stopped.
#[derive(Debug)]
pub enum MergeError {
    /// A shard file is not what a complete shard of this run writes (the message names it).
    Shard(String),
    /// The merged report could not be written.
    Write(io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(index: u32) -> String {
        let h = ShardHeader {
            spindle_shard: SHARD_VERSION,
            spindle_version: "0.1.0".into(),
            index,
            count: 2,
            writer: serde_json::json!({"format": "json"}),
            rules: vec![],
            provenance: RunProvenance::default(),
        };
        serde_json::to_string(&h).unwrap() + "\n"
    }

    fn host(position: u64, text: &str) -> String {
        let line =
            Line::Host { position, text: text.into(), parts: vec![(Part::Host, 0, text.len())], meta: None };
        serde_json::to_string(&line).unwrap() + "\n"
    }

    fn end() -> String {
        let line = Line::End { summary: Summary { hosts: 1, ..Summary::default() }, not_checked: vec![] };
        serde_json::to_string(&line).unwrap() + "\n"
    }

    fn open(text: &str) -> Result<ShardReader<&[u8]>, String> {
        ShardReader::open("s.jsonl", text.as_bytes())
    }

    /// Records what it is given, as the text of each host in order.
    #[derive(Default)]
    struct Tape(Vec<String>, Option<Summary>);

    impl ReportWriter for Tape {
        fn begin(&mut self, _: &[RuleInfo]) -> io::Result<()> {
            Ok(())
        }
        fn renderer(&self) -> Arc<dyn Render> {
            unreachable!("a merge renders nothing")
        }
        fn append(&mut self, host: &Rendered) -> io::Result<()> {
            self.0.push(String::from_utf8(host.bytes.clone()).unwrap());
            Ok(())
        }
        fn collection_error(&mut self, source: &str, _: &str) -> io::Result<()> {
            self.0.push(format!("error {source}"));
            Ok(())
        }
        fn finish(&mut self, summary: &Summary) -> io::Result<()> {
            self.1 = Some(*summary);
            Ok(())
        }
    }

    #[test]
    fn hosts_interleave_by_position_and_counts_add_up() {
        let a = header(1) + &host(0, "a0") + &host(3, "a3") + &end();
        let b = header(2) + &host(1, "b1") + &host(2, "b2") + &host(7, "b7") + &end();
        let mut tape = Tape::default();
        let summary = merge(vec![open(&b).unwrap(), open(&a).unwrap()], &mut tape).unwrap();
        assert_eq!(tape.0, ["a0", "b1", "b2", "a3", "b7"]);
        assert_eq!(summary.hosts, 2);
        assert_eq!(tape.1, Some(summary));
    }

    #[test]
    fn a_damaged_shard_is_refused_where_it_is_damaged() {
        let cases = [
            (header(1) + &host(0, "x"), "s.jsonl:3: the file ends before its `end` line"),
            (header(1) + &host(0, "x") + &end()[..10], "s.jsonl:3: the file ends inside a line"),
            (header(1) + &host(4, "x") + &host(2, "y") + &end(), "s.jsonl:3: position 2 out of order"),
            (
                header(1).replace("\"spindle_shard\":1", "\"spindle_shard\":9") + &end(),
                "s.jsonl:1: shard file version 9",
            ),
            (header(3) + &end(), "s.jsonl:1: shard 3/2"),
            ("{\"hosts\": []}\n".to_string(), "s.jsonl:1:"),
            (String::new(), "s.jsonl: empty"),
        ];
        for (text, expect) in cases {
            let error = open(&text).and_then(|mut r| {
                while r.next.is_some() {
                    r.advance()?;
                }
                Ok(())
            });
            let e = error.expect_err(expect);
            assert!(e.starts_with(expect), "{expect:?}: {e}");
        }
        let outside = header(1) + &host(0, "x").replace("[\"Host\",0,1]", "[\"Host\",0,9]") + &end();
        assert!(open(&outside).err().unwrap().contains("outside its text"));
    }

    #[test]
    fn two_shards_at_one_position_are_two_runs() {
        let a = header(1) + &host(5, "a") + &end();
        let b = header(2) + &host(5, "b") + &end();
        let e = merge(vec![open(&a).unwrap(), open(&b).unwrap()], &mut Tape::default()).unwrap_err();
        assert!(matches!(e, MergeError::Shard(m) if m.contains("both hold position 5")));
    }
}
