//! A rule's fix, as the reports people read lay it out: paragraphs of prose with inline code
//! (`diskpart` commands, cmdlets) and fenced code blocks (T-SQL, PowerShell, shell). Fixes come
//! from rules and plugins, so they are untrusted: this only finds their structure, and each
//! format writes every piece escaped by its own rules with fences of its own.

use std::borrow::Cow;

use memchr::memchr;
use spindle_core::untrusted;

/// A piece of a fix.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Block<'a> {
    /// Lines of prose (a paragraph, or the steps of a list), each split into text and code.
    Prose(Vec<Vec<Inline<'a>>>),
    /// A code block: its info string's first word (the language, if any) and its lines.
    Code { lang: &'a str, text: String },
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Inline<'a> {
    Text(&'a str),
    Code(&'a str),
}

/// The fix escaped for display (control characters made visible, cut to a message's length),
/// ready for [`blocks`].
pub(crate) fn escaped(fix: &str) -> Cow<'_, str> {
    untrusted::message_keeping_lines(fix)
}

/// The blocks of `fix` (already [`escaped`]): blank lines end a paragraph, a line of three or
/// more backticks or tildes opens a code block that a like fence closes (or the end does).
pub(crate) fn blocks(fix: &str) -> Vec<Block<'_>> {
    let mut out = vec![];
    let mut prose: Vec<Vec<Inline<'_>>> = vec![];
    let mut lines = fix.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if let Some((fence, info)) = fence(trimmed) {
            if !prose.is_empty() {
                out.push(Block::Prose(std::mem::take(&mut prose)));
            }
            let mut text = String::new();
            for line in lines.by_ref() {
                let t = line.trim();
                if t.starts_with(fence) && t.chars().all(|c| fence.starts_with(c)) {
                    break;
                }
                text.push_str(line);
                text.push('\n');
            }
            let lang = info.split_whitespace().next().unwrap_or("");
            out.push(Block::Code { lang, text });
        } else if trimmed.is_empty() {
            if !prose.is_empty() {
                out.push(Block::Prose(std::mem::take(&mut prose)));
            }
        } else {
            prose.push(inlines(line.trim_end()));
        }
    }
    if !prose.is_empty() {
        out.push(Block::Prose(prose));
    }
    out
}

/// A fence opening a code block: the run of backticks or tildes, and the info string after it.
fn fence(line: &str) -> Option<(&str, &str)> {
    let c = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = line.len() - line.trim_start_matches(c).len();
    if n < 3 {
        return None;
    }
    let info = &line[n..];
    // A backtick fence's info string cannot hold a backtick (that is inline code).
    if c == '`' && info.contains('`') {
        return None;
    }
    Some((&line[..n], info.trim()))
}

/// A line split into text and inline code: a run of n backticks opens code that the next run of
/// exactly n closes; a run with no match is text.
pub(crate) fn inlines(line: &str) -> Vec<Inline<'_>> {
    let mut out = vec![];
    let mut text_start = 0;
    let mut i = 0;
    let bytes = line.as_bytes();
    while let Some(j) = memchr(b'`', &bytes[i..]) {
        i += j;
        let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        let content_start = i + run;
        let close = find_run(&line[content_start..], run).map(|j| content_start + j);
        match close {
            Some(end) => {
                if text_start < i {
                    out.push(Inline::Text(&line[text_start..i]));
                }
                let mut code = &line[content_start..end];
                if code.len() >= 2 && code.starts_with(' ') && code.ends_with(' ') && !code.trim().is_empty()
                {
                    code = &code[1..code.len() - 1];
                }
                out.push(Inline::Code(code));
                i = end + run;
                text_start = i;
            }
            None => i = content_start,
        }
    }
    if text_start < line.len() {
        out.push(Inline::Text(&line[text_start..]));
    }
    out
}

/// Where the next run of exactly `n` backticks starts in `s`.
fn find_run(s: &str, n: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while let Some(j) = memchr(b'`', &bytes[i..]) {
        i += j;
        let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        if run == n {
            return Some(i);
        }
        i += run;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_inline_code_and_blocks() {
        let fix = "Run `select disk 0` then ``a ` b``.\n\n```powershell\nGet-Partition | Select Offset\n```\nMore `unclosed";
        let b = blocks(fix);
        assert_eq!(
            b,
            vec![
                Block::Prose(vec![vec![
                    Inline::Text("Run "),
                    Inline::Code("select disk 0"),
                    Inline::Text(" then "),
                    Inline::Code("a ` b"),
                    Inline::Text("."),
                ]]),
                Block::Code { lang: "powershell", text: "Get-Partition | Select Offset\n".into() },
                Block::Prose(vec![vec![Inline::Text("More `unclosed")]]),
            ]
        );
    }

    #[test]
    fn an_unclosed_block_runs_to_the_end() {
        assert_eq!(blocks("~~~~\nx\n~~~"), vec![Block::Code { lang: "", text: "x\n~~~\n".into() }]);
    }
}
