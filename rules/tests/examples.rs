//! Every builtin rule's docs show it at work under `## Example`: a ```` ```json ```` block, a
//! snapshot a reader can save and check (`spindle check example.json --select CODE`), then a
//! ```` ```text ```` block, what the rule alone reports on it at its default parameters, in the
//! fixtures' form (`tests/fixtures/<CODE>/<case>.snap` without its gain lines). `spindle explain`,
//! SARIF help and the plugin contract carry the docs whole, so the example they show is the one
//! this test runs: it fails, naming the rule, with a diff and the block to paste, when the output
//! differs; for a rule whose docs have no example, or keep the skeleton `cargo xtask new-rule`
//! writes (saying what goes there); and for an example on which the rule finds nothing.

use spindle_core::digest::digest;

mod alone;
use alone::check_alone;

/// The example of a rule's docs: the snapshot and the documented output.
#[derive(Debug, PartialEq)]
struct Example {
    json: String,
    text: String,
}

/// The fenced blocks of `section` (the text under `## Example`), which must be one ```` ```json ````
/// then one ```` ```text ````; prose around them is the author's.
fn example(section: &str) -> Result<Example, String> {
    let mut blocks: Vec<(&str, String)> = vec![];
    let mut open: Option<(&str, String)> = None;
    for line in section.lines() {
        match (open.take(), line.strip_prefix("```")) {
            (None, Some(lang)) => open = Some((lang.trim(), String::new())),
            (None, None) => {}
            (Some(block), Some(_)) => blocks.push(block),
            (Some((lang, mut body)), None) => {
                body.push_str(line);
                body.push('\n');
                open = Some((lang, body));
            }
        }
    }
    if open.is_some() {
        return Err("a ``` block is not closed".into());
    }
    match <[(&str, String); 2]>::try_from(blocks) {
        Ok([("json", json), ("text", text)]) => Ok(Example { json, text }),
        Ok(other) => Err(format!("blocks {:?}, {:?}: want ```json then ```text", other[0].0, other[1].0)),
        Err(blocks) => Err(format!("{} fenced blocks: want two, ```json then ```text", blocks.len())),
    }
}

/// A line diff of `want` and `got`: `  ` in both, `- ` only in `want`, `+ ` only in `got`.
fn diff(want: &str, got: &str) -> String {
    use similar::{ChangeTag, TextDiff};
    let mut out = String::new();
    for change in TextDiff::from_lines(want, got).iter_all_changes() {
        let sign = match change.tag() {
            ChangeTag::Equal => "  ",
            ChangeTag::Delete => "- ",
            ChangeTag::Insert => "+ ",
        };
        out.push_str(sign);
        out.push_str(change.value().trim_end_matches('\n'));
        out.push('\n');
    }
    out
}

/// What goes under `## Example`, for a rule without one or with the new-rule skeleton.
const WHAT_GOES_THERE: &str = "one line on the case; then a ```json block, the smallest snapshot \
    that breaks the rule (only the entities and facts it reads, with realistic values: a fixture \
    case is a good start); then a ```text block, what the rule alone reports on that snapshot, \
    which this test prints when it differs";

/// The block as it would read in the doc comment, to paste.
fn paste(got: &str) -> String {
    let lines: String = got.lines().map(|l| format!("    /// {l}\n")).collect();
    format!("    /// ```text\n{lines}    /// ```")
}

/// Why the example of `code`, whose section is `section`, fails, if it does; `run` is the rule's
/// report on a snapshot in digest form (None: no findings), or why the text is no snapshot.
fn judge(
    code: &str,
    section: Option<&str>,
    run: impl Fn(String) -> Result<Option<String>, String>,
) -> Option<String> {
    let Some(section) = section else {
        return Some(format!(
            "{code}: the docs have no `## Example`. Add one after What it checks: {WHAT_GOES_THERE}."
        ));
    };
    if section.contains("TODO") {
        return Some(format!(
            "{code}: `## Example` is still the new-rule skeleton: replace its TODOs with {WHAT_GOES_THERE}."
        ));
    }
    let ex = match example(section) {
        Ok(ex) => ex,
        Err(e) => return Some(format!("{code}: `## Example`: {e}")),
    };
    let got = match run(ex.json) {
        Ok(Some(got)) => got,
        Ok(None) => {
            return Some(format!(
                "{code}: the rule finds nothing in the example's snapshot: an example shows a finding, \
                 so the snapshot breaks the rule"
            ));
        }
        Err(e) => return Some(format!("{code}: the example's JSON is no snapshot: {e}")),
    };
    if got == ex.text {
        return None;
    }
    Some(format!(
        "{code}: the example's output is not what the rule reports (- documented, + reported):\n{}\
         The block as it would read in the doc comment:\n{}",
        diff(&ex.text, &got),
        paste(&got)
    ))
}

/// What is wrong with `rule`'s example, if anything.
fn check_example(rule: &'static spindle_core::rule::BuiltinRule) -> Option<String> {
    let code = rule.meta.code;
    judge(code, rule.meta.doc_section("Example").as_deref(), |json| {
        let report = check_alone(rule, &format!("{code}'s example"), json)?;
        Ok((!report.findings.is_empty()).then(|| digest(&report)))
    })
}

#[test]
fn every_rule_reports_what_its_example_says() {
    let problems: Vec<String> = spindle_rules::all().into_iter().filter_map(check_example).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn a_missing_or_unfilled_example_says_what_goes_there() {
    let never = |_: String| -> Result<Option<String>, String> { panic!("not run") };
    let missing = judge("XYZ001", None, never).unwrap();
    assert!(missing.starts_with("XYZ001: the docs have no `## Example`. Add one"), "{missing}");
    // The skeleton `cargo xtask new-rule` writes (xtask/tests/new_rule.rs holds it whole).
    let skeleton = "TODO: one line on the case.\n\n```json\n{\n  \"schema_version\": 1,\n  \"host\": \
        { \"name\": \"sql01\" }\n}\n```\n\n```text\nTODO: what the rule reports\n```";
    let unfilled = judge("XYZ001", Some(skeleton), never).unwrap();
    assert!(unfilled.starts_with("XYZ001: `## Example` is still the new-rule skeleton"), "{unfilled}");
    for says in [WHAT_GOES_THERE, "```json block, the smallest snapshot", "```text block, what the rule"] {
        assert!(missing.contains(says) && unfilled.contains(says), "{says:?} in {unfilled}");
    }
    let filled = "```json\n{}\n```\n```text\nerror X\n```";
    let nothing = judge("XYZ001", Some(filled), |_| Ok(None)).unwrap();
    assert!(nothing.contains("the rule finds nothing in the example's snapshot"), "{nothing}");
    assert_eq!(judge("XYZ001", Some(filled), |_| Ok(Some("error X\n".into()))), None);
    let wrong = judge("XYZ001", Some(filled), |_| Ok(Some("error Y\n".into()))).unwrap();
    assert!(
        wrong.contains("- error X\n+ error Y\n") && wrong.ends_with("    /// error Y\n    /// ```"),
        "{wrong}"
    );
}

#[test]
fn an_example_is_a_json_block_then_a_text_block() {
    let section =
        "A partition at sector 63:\n\n```json\n{\n  \"a\": 1\n}\n```\n\nreports\n\n```text\nerror X\n```";
    assert_eq!(example(section), Ok(Example { json: "{\n  \"a\": 1\n}\n".into(), text: "error X\n".into() }));
    assert!(example("```json\n{}\n```").unwrap_err().contains("1 fenced blocks"));
    assert!(example("```text\nx\n```\n```json\n{}\n```").unwrap_err().contains("want ```json then"));
    assert!(example("```json\n{}\n```\n```text\nx\n").unwrap_err().contains("not closed"));
}

#[test]
fn the_diff_marks_lines_on_one_side() {
    assert_eq!(diff("a\nb\nc\n", "a\nx\nc\nd\n"), "  a\n- b\n+ x\n  c\n+ d\n");
}
