//! What a rule's docs point a reader to: the public addresses under its References heading (the
//! first is the rule's SARIF `helpUri`).

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
}
