//! SARIF split by host: one log per host, each its own GitHub analysis category, for fleets
//! whose single log would pass GitHub code scanning's limits (25,000 results a run, 10 MB
//! gzipped a file) or that GitHub should track host by host.
//!
//! Each host's log is a whole SARIF log, as [`SarifWriter`] writes it, with the host's results,
//! notifications, artifacts and counts. A server that could not be collected gets a log of its
//! own, with no results and its `collection-error` notification, so that its category shows
//! the failure rather than keep its last results. Where the files go is the caller's
//! ([`SplitFiles`]); this module names them and writes them, one at a time, keeping nothing of a
//! host once its file is closed.

use std::io::{self, Write};
use std::sync::Arc;

use super::provenance::RunProvenance;
use super::sarif::{SarifRender, SarifWriter, Waived, github_limit_warnings, rule_descriptor};
use super::{Render, Rendered, ReportWriter, RuleInfo, Stage, Summary};

/// Where the logs of a split run go.
pub trait SplitFiles {
    type File: Write;
    /// Creates the file for one log, named for `stem` (already safe as a file name):
    /// `<stem>.sarif`, or with a suffix when that name is taken (`<stem>-2.sarif`). Returns the
    /// file and the stem it got.
    fn create(&mut self, stem: &str) -> io::Result<(Self::File, String)>;
    /// The log in `file` is complete.
    fn close(&mut self, file: Self::File) -> io::Result<()>;
}

/// The category prefix of split logs when the run names none.
pub const DEFAULT_CATEGORY: &str = "spindle";

/// Writes one SARIF log per host (and per server not collected) into [`SplitFiles`].
pub struct SplitSarifWriter<F: SplitFiles> {
    files: F,
    tool_version: String,
    /// Each log's category is `<prefix>/<file stem>/`.
    prefix: String,
    waived: Waived,
    /// Each log's limit on not-evaluated and not-applicable notifications.
    limit: usize,
    unreachable_allowed: bool,
    run: RunProvenance,
    /// Each rule's code and serialized descriptor, in the run's order.
    rules: Vec<(String, Vec<u8>)>,
    render: Option<Arc<SarifRender>>,
    stage: Stage,
    on_warning: Option<Box<dyn FnMut(String) + Send>>,
}

impl<F: SplitFiles> SplitSarifWriter<F> {
    /// `category`: the prefix of every log's category (default [`DEFAULT_CATEGORY`]).
    /// `unreachable_allowed`: whether a server not collected leaves its log successful (the run's
    /// `--allow-unreachable`).
    pub fn new(files: F, tool_version: &str, category: Option<&str>, unreachable_allowed: bool) -> Self {
        SplitSarifWriter {
            files,
            tool_version: tool_version.to_string(),
            prefix: category.unwrap_or(DEFAULT_CATEGORY).trim_end_matches('/').to_string(),
            waived: Waived::default(),
            limit: super::sarif::DEFAULT_NOTIFICATION_LIMIT,
            unreachable_allowed,
            run: RunProvenance::default(),
            rules: vec![],
            render: None,
            stage: Stage::New,
            on_warning: None,
        }
    }

    pub fn with_waived(mut self, waived: Waived) -> Self {
        self.waived = waived;
        self
    }

    /// Each log's limit on not-evaluated and not-applicable notifications (see
    /// [`SarifWriter::with_notification_limit`]).
    pub fn with_notification_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Where warnings about GitHub's limits go, each naming its file.
    pub fn with_limit_warnings(mut self, on_warning: Box<dyn FnMut(String) + Send>) -> Self {
        self.on_warning = Some(on_warning);
        self
    }

    pub fn into_inner(self) -> F {
        self.files
    }

    /// Writes one log into a new file named for `name`: its header with the rules named by
    /// `codes` (sorted), what `fill` adds, and its end with `summary`.
    fn log(
        &mut self,
        name: &str,
        codes: &[String],
        summary: &Summary,
        fill: impl FnOnce(&mut SarifWriter<F::File>) -> io::Result<()>,
    ) -> io::Result<()> {
        self.stage.expect(Stage::Begun, "host")?;
        let render = self.render.clone().ok_or_else(|| io::Error::other("split SARIF: not begun"))?;
        let named = |code: &String| codes.binary_search(code).is_ok();
        let rules: Vec<&[u8]> =
            self.rules.iter().filter(|(code, _)| named(code)).map(|(_, d)| d.as_slice()).collect();
        let mut run = self.run.clone();
        run.rules.retain(|r| named(&r.code));
        let (file, stem) = self.files.create(&file_stem(name))?;
        let mut log = SarifWriter::new(file, &self.tool_version)
            .with_category(&format!("{}/{stem}/", self.prefix))
            .with_waived(self.waived)
            .with_notification_limit(self.limit);
        log.provenance(&run);
        log.begin_sharing(&rules, render)?;
        fill(&mut log)?;
        log.finish(summary)?;
        let (results, bytes) = log.written();
        self.files.close(log.into_inner())?;
        if let Some(warn) = self.on_warning.as_mut() {
            for w in github_limit_warnings(results, bytes) {
                warn(format!("{stem}.sarif: {w}"));
            }
        }
        Ok(())
    }
}

impl<F: SplitFiles> ReportWriter for SplitSarifWriter<F> {
    fn provenance(&mut self, run: &RunProvenance) {
        self.run = run.clone();
    }

    fn begin(&mut self, rules: &[RuleInfo]) -> io::Result<()> {
        self.stage.expect(Stage::New, "begin")?;
        self.stage = Stage::Begun;
        // Every log shares one renderer; each lists only the rules its host's report names
        // (the full table, help included, is some 200 KB: a fleet's logs would repeat it per
        // host), so results name rules by id, not by an index into one table.
        self.render = Some(Arc::new(SarifRender::shared(self.waived)));
        self.rules =
            rules.iter().map(|r| Ok((r.code.clone(), rule_descriptor(r)?))).collect::<io::Result<_>>()?;
        Ok(())
    }

    fn renderer(&self) -> Arc<dyn Render> {
        match &self.render {
            Some(r) => r.clone(),
            None => Arc::new(SarifRender::default()),
        }
    }

    fn append(&mut self, host: &Rendered) -> io::Result<()> {
        let meta =
            host.host().ok_or_else(|| io::Error::other("split SARIF: a host rendered without its name"))?;
        self.log(&meta.name, &meta.rules, &meta.counts, |log| log.append(host))
    }

    fn collection_error(&mut self, source: &str, message: &str) -> io::Result<()> {
        let summary = Summary {
            collection_errors: 1,
            unreachable_allowed: self.unreachable_allowed,
            ..Summary::default()
        };
        self.log(source, &[], &summary, |log| log.collection_error(source, message))
    }

    fn finish(&mut self, _summary: &Summary) -> io::Result<()> {
        self.stage.expect(Stage::Begun, "finish")?;
        self.stage = Stage::Finished;
        Ok(())
    }
}

/// A host or server name as a file name stem, the same on every file system and from the name
/// alone, so that a host keeps its log's name and its GitHub category whichever hosts run beside
/// it: ASCII letters (lowercased: host names are compared without case), digits, `.`, `-` and
/// `_` kept, every other character `_`; no leading dot or dash (no hidden file, no option), no
/// trailing dot; Windows' device names (`con`, `nul`, `com1`, ...) get a leading `_`; an empty
/// result is `host`. When any of that changed the name (beyond case) or it is over 100 bytes,
/// the stem is cut and ends `~` and 16 hexadecimal digits of the name's hash: `~` is no
/// character a name keeps, so such a stem is never another name's, and two names that differ
/// only in what was replaced get different stems.
pub fn file_stem(name: &str) -> String {
    const MAX_BYTES: usize = 100;
    const HASHED_BYTES: usize = MAX_BYTES - 17;
    let lower = name.to_ascii_lowercase();
    let mut stem: String = lower
        .chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '.' | '-' | '_' => c,
            _ => '_',
        })
        .collect();
    while stem.ends_with('.') {
        stem.pop();
    }
    let mut stem = stem.trim_start_matches(['.', '-']).to_string();
    if stem.is_empty() {
        stem = "host".to_string();
    }
    let device = stem.split('.').next().unwrap_or("");
    let reserved = matches!(device, "con" | "prn" | "aux" | "nul")
        || (device.len() == 4
            && (device.starts_with("com") || device.starts_with("lpt"))
            && device.as_bytes()[3].is_ascii_digit());
    if reserved {
        stem.insert(0, '_');
    }
    if stem == lower && stem.len() <= MAX_BYTES {
        return stem;
    }
    // ASCII only by now: any byte is a character boundary.
    stem.truncate(HASHED_BYTES);
    format!("{stem}~{:016x}", super::fnv1a64(lower.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The readable part of a stem that was changed, after checking its hash suffix.
    fn hashed(stem: &str) -> &str {
        let (base, hash) = stem.rsplit_once('~').unwrap_or_else(|| panic!("{stem}: no hash"));
        assert!(hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()), "{stem}");
        base
    }

    #[test]
    fn stems_are_safe_file_names() {
        assert_eq!(file_stem("erp-sql1"), "erp-sql1");
        // Case is no change: host names are compared without it.
        assert_eq!(file_stem("ERP-SQL1.corp.example"), "erp-sql1.corp.example");
        assert_eq!(hashed(&file_stem("SQL01\\INST")), "sql01_inst");
        assert_eq!(hashed(&file_stem("127.0.0.1,1433")), "127.0.0.1_1433");
        assert_eq!(hashed(&file_stem("../../etc/passwd")), "_.._etc_passwd");
        assert_eq!(hashed(&file_stem(".hidden")), "hidden");
        assert_eq!(hashed(&file_stem("-rf")), "rf");
        assert_eq!(hashed(&file_stem("trailing.")), "trailing");
        assert_eq!(hashed(&file_stem("")), "host");
        assert_eq!(hashed(&file_stem("...")), "host");
        assert_eq!(hashed(&file_stem("sql-é")), "sql-_");
        assert_eq!(hashed(&file_stem("CON")), "_con");
        assert_eq!(hashed(&file_stem("com1.example")), "_com1.example");
        assert_eq!(file_stem("console"), "console");
        assert_eq!(file_stem(&"x".repeat(100)), "x".repeat(100));
        assert_eq!(file_stem(&"x".repeat(300)).len(), 100);
        assert_eq!(hashed(&file_stem("a\u{0}b\nc")), "a_b_c");
    }

    #[test]
    fn a_stem_depends_on_its_name_alone_and_names_that_differ_get_different_stems() {
        // Names that sanitize alike, or are cut alike, as 4,000 hosts of a fleet might: each
        // stem is found from its name alone (no search among the taken ones, which was
        // quadratic), and no two are the same.
        let long = "x".repeat(200);
        let names: Vec<String> = (0..1000)
            .flat_map(|i| {
                [format!("sql {i}"), format!("sql/{i}"), format!("{long}{i}"), format!("{long}-{i}")]
            })
            .chain(["a b", "a/b", "a_b", "a:b", "A B"].map(String::from))
            .collect();
        let mut stems: Vec<String> = names.iter().map(|n| file_stem(n)).collect();
        // `a b` and `A B` are one host; every other pair differs.
        assert_eq!(file_stem("a b"), file_stem("A B"));
        stems.sort_unstable();
        stems.dedup();
        assert_eq!(stems.len(), names.len() - 1);
        // A host's stem is the same whichever hosts run beside it, and none is a plain name's.
        assert_eq!(file_stem("a b"), file_stem("a b"));
        assert_ne!(file_stem("a b"), "a_b");
        assert!(!stems.iter().any(|s| s.len() > 100 || s.matches('~').count() > 1));
    }
}
