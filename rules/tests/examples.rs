//! Every builtin rule's docs show it at work under `## Example`: a ```` ```json ```` block, a
//! snapshot a reader can save and check (`spindle check example.json --select CODE`), then a
//! ```` ```text ```` block, what the rule alone reports on it at its default parameters, in the
//! fixtures' form (`tests/fixtures/<CODE>/<case>.snap` without its gain lines). `spindle explain`,
//! SARIF help and the plugin contract carry the docs whole, so the example they show is the one
//! this test runs: it fails, naming the rule, with a diff and the block to paste, when the output
//! differs, and for a rule whose docs have no example.

use spindle_core::digest::digest;

mod alone;
use alone::check_alone;

/// Rules whose docs have no `## Example` yet. It only shrinks: a rule on it that has one fails.
const WITHOUT_EXAMPLE: &[&str] = &[];

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
    let (a, b): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    // lcs[i][j]: the length of the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        let line = if i < a.len() && j < b.len() && a[i] == b[j] {
            (i, j) = (i + 1, j + 1);
            format!("  {}", a[i - 1])
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            i += 1;
            format!("- {}", a[i - 1])
        } else {
            j += 1;
            format!("+ {}", b[j - 1])
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// What is wrong with `rule`'s example, if anything.
fn check_example(rule: &'static spindle_core::rule::BuiltinRule) -> Option<String> {
    let code = rule.meta.code;
    let listed = WITHOUT_EXAMPLE.contains(&code);
    let Some(section) = rule.meta.doc_section("Example") else {
        return (!listed).then(|| format!("{code}: the docs have no `## Example`"));
    };
    if listed {
        return Some(format!("{code} has an example: take it off WITHOUT_EXAMPLE"));
    }
    let ex = match example(&section) {
        Ok(ex) => ex,
        Err(e) => return Some(format!("{code}: `## Example`: {e}")),
    };
    let got = match check_alone(rule, &format!("{code}'s example"), ex.json) {
        Ok(report) => digest(&report),
        Err(e) => return Some(format!("{code}: the example's JSON is no snapshot: {e}")),
    };
    if got == ex.text {
        return None;
    }
    let paste: String = got.lines().map(|l| format!("    /// {l}\n")).collect();
    Some(format!(
        "{code}: the example's output is not what the rule reports (- documented, + reported):\n{}\
         The block as it would read in the doc comment:\n    /// ```text\n{paste}    /// ```",
        diff(&ex.text, &got)
    ))
}

#[test]
fn every_rule_reports_what_its_example_says() {
    let problems: Vec<String> = spindle_rules::all().into_iter().filter_map(check_example).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn the_allow_list_names_rules() {
    let codes: Vec<&str> = spindle_rules::all().iter().map(|r| r.meta.code).collect();
    for c in WITHOUT_EXAMPLE {
        assert!(codes.contains(c), "WITHOUT_EXAMPLE names {c}, which no builtin rule has");
    }
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
