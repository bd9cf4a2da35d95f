//! Text fitted to the report's width. Words are never broken: a path or a command cut in two
//! could not be copied, so a word longer than the line overflows it instead.

use textwrap::{Options, WordSeparator, WordSplitter};

/// `text` (one paragraph) wrapped to `width` columns, the first line starting with `first`, the
/// others with `rest`. Always at least one line.
pub(crate) fn paragraph(text: &str, width: usize, first: &str, rest: &str) -> String {
    if text.trim().is_empty() {
        return first.trim_end().to_string();
    }
    let options = Options::new(width.max(first.len() + 8))
        .initial_indent(first)
        .subsequent_indent(rest)
        .word_separator(WordSeparator::AsciiSpace)
        .word_splitter(WordSplitter::NoHyphenation)
        .break_words(false);
    textwrap::wrap(text, options).join("\n")
}

/// Multi-line text a rule wrote (a fix: paragraphs, numbered steps, code blocks) reflowed to
/// `width`: lines of a paragraph are joined and wrapped again, a numbered or bulleted step keeps
/// its hanging indent, and code blocks (between ``` fences) and blank lines are kept as they
/// are. The first line starts with `first`, the others with `indent`.
pub(crate) fn reflow(text: &str, width: usize, first: &str, indent: &str) -> String {
    let mut out: Vec<String> = vec![];
    let mut para: Vec<&str> = vec![];
    // The paragraph's leading spaces and the hanging indent of its continuation lines.
    let mut lead = String::new();
    let mut hang = String::new();
    let mut in_code = false;
    let flush = |para: &mut Vec<&str>, lead: &str, hang: &str, out: &mut Vec<String>| {
        if para.is_empty() {
            return;
        }
        let joined = para.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
        let prefix = if out.is_empty() { first.to_string() } else { indent.to_string() };
        out.push(paragraph(&joined, width, &format!("{prefix}{lead}"), &format!("{indent}{hang}")));
        para.clear();
    };
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            flush(&mut para, &lead, &hang, &mut out);
            in_code = !in_code;
        }
        if in_code || trimmed.starts_with("```") || trimmed.is_empty() {
            flush(&mut para, &lead, &hang, &mut out);
            let prefix = if out.is_empty() { first } else { indent };
            out.push(format!("{prefix}{line}").trim_end().to_string());
            continue;
        }
        let spaces = line.len() - trimmed.len();
        let marker = step_marker(trimmed);
        if marker > 0 || para.is_empty() {
            flush(&mut para, &lead, &hang, &mut out);
            lead = " ".repeat(spaces);
            hang = " ".repeat(spaces + marker);
        }
        para.push(line);
    }
    flush(&mut para, &lead, &hang, &mut out);
    out.join("\n")
}

/// The width of a step's marker (`1. `, `12. `, `- `, `* `) at the start of `line`; 0 if none.
fn step_marker(line: &str) -> usize {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && line[digits..].starts_with(". ") {
        return digits + 2;
    }
    if line.starts_with("- ") || line.starts_with("* ") {
        return 2;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_wrap_with_hanging_indents_and_never_break_words() {
        let p = paragraph("one two three four five six", 14, "  - ", "    ");
        assert_eq!(p, "  - one two\n    three four\n    five six");
        let long =
            paragraph("at C:\\Program_Files\\Microsoft_SQL_Server\\MSSQL\\DATA\\master.mdf ok", 20, "", "  ");
        assert_eq!(long, "at\n  C:\\Program_Files\\Microsoft_SQL_Server\\MSSQL\\DATA\\master.mdf\n  ok");
        assert_eq!(paragraph("", 20, "  fix: ", "  "), "  fix:");
    }

    #[test]
    fn fixes_reflow_by_paragraph_and_step_and_keep_code() {
        let fix = "Move the files to a data volume. For a user\ndatabase:\n\n```sql\nALTER DATABASE [Sales] SET OFFLINE WITH ROLLBACK IMMEDIATE;\n```\n\n1. Check the volume with a\n   long command.\n2. Move.";
        let out = reflow(fix, 30, "fix: ", "     ");
        assert_eq!(
            out,
            "fix: Move the files to a data\n     volume. For a user\n     database:\n\n     ```sql\n     ALTER DATABASE [Sales] SET OFFLINE WITH ROLLBACK IMMEDIATE;\n     ```\n\n     1. Check the volume with\n        a long command.\n     2. Move."
        );
    }
}
