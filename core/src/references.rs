//! What a rule's docs point a reader to: the public addresses under its References heading (the
//! first is the rule's SARIF `helpUri`), and a check that user-facing text cites nothing a reader
//! cannot open, such as the project's internal source notes.

/// The `https://` addresses under the `## References` heading of Markdown `docs`, in order.
///
/// An address ends at white space, `>` or `` ` ``; trailing punctuation of the sentence around
/// it (`.`, `,`, `;`, `:`) and a `)` with no `(` in the address are not part of it, so
/// `(<https://a/b(v=1)>)` and `see https://a/b.` both give the address alone.
pub fn reference_urls(docs: &str) -> Vec<&str> {
    let mut urls = Vec::new();
    let mut in_references = false;
    for line in docs.lines() {
        let line = line.trim_start();
        if let Some(heading) = line.strip_prefix("## ") {
            in_references = heading.trim() == "References";
            continue;
        }
        if !in_references {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("https://") {
            let tail = &rest[at..];
            let end = tail.find(|c: char| c.is_whitespace() || c == '>' || c == '`').unwrap_or(tail.len());
            let url = trim_url(&tail[..end]);
            if url.len() > "https://".len() {
                urls.push(url);
            }
            rest = &tail[end..];
        }
    }
    urls
}

fn trim_url(mut url: &str) -> &str {
    loop {
        let trimmed = url.trim_end_matches(['.', ',', ';', ':', '"', '\'']);
        let unbalanced =
            trimmed.ends_with(')') && trimmed.matches('(').count() < trimmed.matches(')').count();
        let trimmed = if unbalanced { &trimmed[..trimmed.len() - 1] } else { trimmed };
        if trimmed.len() == url.len() {
            return url;
        }
        url = trimmed;
    }
}

/// The first citation in `text` of the project's internal source notes, which no reader can
/// open: a note's file name (three digits, `_`, sixteen hex digits, `.txt`) or the word "seed" ("seed 001",
/// "seed `002_…`", "the seeds' cases"). `None` when there is none. Identifiers that merely
/// contain the letters (`DeserializeSeed`) are not words and do not count.
pub fn internal_citation(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("seed") {
        let start = from + at;
        let end = start + 4;
        let before = start == 0 || !is_word(bytes[start - 1]);
        // "seed" or "seeds", then the end of the word.
        let rest = lower[end..].strip_prefix('s').unwrap_or(&lower[end..]);
        let after = rest.bytes().next().is_none_or(|b| !is_word(b));
        if before && after {
            // The rest of the line, at most 60 characters of it.
            let line = text[start..].split('\n').next().unwrap_or_default();
            let end = line.char_indices().nth(60).map_or(line.len(), |(i, _)| i);
            return Some(&line[..end]);
        }
        from = end;
    }
    // A note's file name: three digits, `_`, sixteen hex digits, `.txt`.
    for (i, _) in text.match_indices(".txt") {
        if i >= 20 {
            let name = &bytes[i - 20..i];
            let digits = name[..3].iter().all(u8::is_ascii_digit);
            let hex = name[4..].iter().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b));
            if digits && name[3] == b'_' && hex {
                return Some(&text[i - 20..i + 4]);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_under_references_only() {
        let docs = "## What it checks\nSee https://example.com/not-this.\n\n## References\n\
                    - Microsoft, \"Paper\" (2009):\n  <https://learn.microsoft.com/a/dd758814(v=sql.100)>.\n\
                    - Two on a line: https://a.example/x, and (https://b.example/y).\n\n## Other\nhttps://c.example\n";
        assert_eq!(
            reference_urls(docs),
            [
                "https://learn.microsoft.com/a/dd758814(v=sql.100)",
                "https://a.example/x",
                "https://b.example/y"
            ]
        );
        assert!(reference_urls("## References\n- a book, no address\n").is_empty());
        assert!(reference_urls("no headings, https://x.example\n").is_empty());
    }

    /// A made-up name of the shape the detector looks for; no such note exists.
    const NOTE: &str = "000_0123456789abcdef.txt";

    #[test]
    fn finds_internal_citations() {
        let cited = format!("Seed `{NOTE}` (sector 63)");
        assert_eq!(internal_citation(&cited), Some(cited.as_str()));
        assert!(internal_citation("in seed 001 both servers").is_some());
        assert!(internal_citation("the seeds' cases").is_some());
        assert!(internal_citation("the seed-001 server").is_some());
        assert!(internal_citation(&format!("see {NOTE}")).is_some());
        assert_eq!(internal_citation("impl DeserializeSeed for KeySeed; seeding; seedless"), None);
        assert_eq!(internal_citation("on two identical ERP servers, 149.4 ms against 74 ms"), None);
        // Cut at a character boundary, however the line goes on.
        assert_eq!(internal_citation(&format!("seed {}", "é".repeat(100))).unwrap().chars().count(), 60);
    }
}
