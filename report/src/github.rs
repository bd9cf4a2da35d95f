//! `--format github`: GitHub Actions workflow commands, which a workflow step's log turns into
//! annotations on the snapshot files (`docs/report-github.md`):
//! `::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=CODE rule::message`.
//!
//! A finding that counts is an `error`, `warning` or `notice` as its severity is an error, a
//! warning or a note; waived findings are left out (only counted in the last line). With
//! `--baseline`, a new finding's title ends `(new)`, and a finding unchanged since the baseline is
//! a `notice` titled `(unchanged)`, written after every host's new findings: GitHub shows only 10
//! annotations of each kind per step, and the one new finding must not be the fiftieth. A rule that
//! could not be evaluated for a missing fact is a `notice` per rule and fact on a host; a rule
//! error, a host spindle could not judge and a server that gave no facts are `error`s, and an
//! incomplete run ends with one more `error` before the run's summary line.
//!
//! Escaped as GitHub's toolkit escapes a command (`%` → `%25`, CR → `%0D`, LF → `%0A` in the
//! message; `:` → `%3A` and `,` → `%2C` as well in a property), after every string from the data
//! is escaped as for a terminal: the log is shown in a browser and in terminals alike, and no
//! string from the data can end the command or start a line (so it cannot issue one).

use std::fmt::Write as _;
use std::io::{self, Write};
use std::sync::Arc;

use spindle_core::engine::HostReport;
use spindle_core::finding::{BaselineState, Finding, Severity};
use spindle_core::untrusted;
use spindle_core::view::HostView;

use crate::ci::{
    Place, headline, not_evaluated_groups, not_evaluated_place, not_evaluated_text, not_judged, values,
};
use crate::text::run_summary;
use crate::{HostContext, Part, Render, Rendered, ReportWriter, RuleInfo, Summary};

/// GitHub's command for a severity.
pub fn github_command(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    }
}

/// A command's message: `%`, CR and LF escaped.
pub fn escape_data(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c => out.push(c),
        }
    }
    out
}

/// A command's property value: as [`escape_data`], and `:` and `,` too.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub struct GithubWriter<'w> {
    w: &'w mut dyn Write,
    /// The findings unchanged since the baseline, written after every host.
    later: Vec<u8>,
}

impl<'w> GithubWriter<'w> {
    pub fn new(w: &'w mut dyn Write) -> Self {
        GithubWriter { w, later: vec![] }
    }
}

/// Writes one command: `::command file=…,line=…,col=…,title=…::message`. `title` and `message`
/// are spindle's text around escaped data; the place's path is escaped here.
fn command(
    out: &mut Vec<u8>,
    command: &str,
    place: Option<&Place>,
    title: &str,
    message: &str,
) -> io::Result<()> {
    let mut props = String::new();
    if let Some(p) = place {
        let _ = write!(
            props,
            "file={},line={},col={},",
            escape_property(&untrusted::escape_for_terminal(&p.path)),
            p.line,
            p.column
        );
        if let Some((line, col)) = p.end {
            let _ = write!(props, "endLine={line},endColumn={col},");
        }
    }
    writeln!(out, "::{command} {props}title={}::{}", escape_property(title), escape_data(message))
}

fn finding_message(f: &Finding) -> String {
    let mut text = headline(f);
    if let Some(v) = values(f) {
        text.push('\n');
        text.push_str(&v);
    }
    if f.waiver.is_some() {
        text.push_str("\n(its waiver has expired)");
    }
    text
}

struct GithubRender;

impl Render for GithubRender {
    fn render_in(&self, view: &HostView, report: &HostReport, _: &HostContext) -> io::Result<Rendered> {
        let host = untrusted::name(&report.host);
        let mut out = Rendered::new();
        out.part(Part::Host, |buf| {
            let file = Place::fallback(view, None);
            if let Some(why) = not_judged(report) {
                let message = format!("spindle could not judge {host}: {why}");
                command(buf, "error", Some(&file), "spindle: host not judged", &message)?;
            }
            for e in &report.errors {
                let title = format!("spindle: rule error {}", untrusted::name(&e.code));
                let message = format!("{host} is not fully checked: {}", untrusted::message(&e.message));
                command(buf, "error", Some(&file), &title, &message)?;
            }
            for f in report.counting().filter(|f| f.baseline != Some(BaselineState::Unchanged)) {
                let new = if f.baseline.is_some() { " (new)" } else { "" };
                let title = format!("{} {}{new}", untrusted::name(&f.code), untrusted::name(&f.rule));
                let place = Place::of_finding(view, f);
                command(buf, github_command(f.severity), Some(&place), &title, &finding_message(f))?;
            }
            for (n, count) in not_evaluated_groups(report) {
                let title = format!("{} not evaluated", untrusted::name(&n.code));
                let place = not_evaluated_place(view, n);
                command(buf, "notice", Some(&place), &title, &not_evaluated_text(&report.host, n, count))?;
            }
            io::Result::Ok(())
        })?;
        out.part(Part::Later, |buf| {
            for f in report.counting().filter(|f| f.baseline == Some(BaselineState::Unchanged)) {
                let title = format!("{} {} (unchanged)", untrusted::name(&f.code), untrusted::name(&f.rule));
                let place = Place::of_finding(view, f);
                command(buf, "notice", Some(&place), &title, &finding_message(f))?;
            }
            io::Result::Ok(())
        })?;
        Ok(out)
    }
}

impl ReportWriter for GithubWriter<'_> {
    fn begin(&mut self, _rules: &[RuleInfo]) -> io::Result<()> {
        Ok(())
    }

    fn renderer(&self) -> Arc<dyn Render> {
        Arc::new(GithubRender)
    }

    fn append(&mut self, host: &Rendered) -> io::Result<()> {
        for (part, bytes) in host.parts() {
            match part {
                Part::Later => self.later.extend_from_slice(bytes),
                _ => self.w.write_all(bytes)?,
            }
        }
        Ok(())
    }

    fn collection_error(&mut self, source: &str, message: &str) -> io::Result<()> {
        let text =
            format!("no facts collected from {}: {}", untrusted::name(source), untrusted::message(message));
        let mut buf = vec![];
        command(&mut buf, "error", None, "spindle: server not collected", &text)?;
        self.w.write_all(&buf)
    }

    fn finish(&mut self, s: &Summary) -> io::Result<()> {
        self.w.write_all(&std::mem::take(&mut self.later))?;
        let line = run_summary(s);
        if s.incomplete() {
            let mut buf = vec![];
            command(&mut buf, "error", None, "spindle: run incomplete", &line)?;
            self.w.write_all(&buf)?;
        }
        writeln!(self.w, "spindle: {line}")?;
        self.w.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_githubs_toolkit_does() {
        assert_eq!(escape_data("50 % of a\r\nb: c, d"), "50 %25 of a%0D%0Ab: c, d");
        assert_eq!(escape_property("C:\\a,b%\n"), "C%3A\\a%2Cb%25%0A");
        // `%` first: an escape in the data is not taken for one of spindle's.
        assert_eq!(escape_data("%0A"), "%250A");
    }

    #[test]
    fn a_command_is_one_line_whatever_the_data() {
        let place = Place { path: "a,b:c\n.json".into(), line: 3, column: 4, end: Some((3, 9)) };
        let mut out = vec![];
        command(&mut out, "warning", Some(&place), "X1 t:i,t", "one\ntwo::three").unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "::warning file=a%2Cb%3Ac\\n.json,line=3,col=4,endLine=3,endColumn=9,title=X1 t%3Ai%2Ct::one%0Atwo::three\n"
        );
    }
}
