//! Errors shown to the user: each names the file and position, and exits with status 2.

use miette::{Diagnostic, NamedSource, SourceSpan};
use spindle_core::load::LoadError;
use spindle_core::pack::{PackError, PackErrors};
use thiserror::Error;

/// What went wrong, with the file around it. Several mistakes found in one pass are one
/// `UserError` that counts them, each in `related` with its own snippet, so that one edit fixes
/// them all.
#[derive(Debug, Error, Diagnostic)]
#[error("{message}")]
pub struct UserError {
    pub message: String,
    #[source_code]
    pub src: Option<NamedSource<String>>,
    #[label("here")]
    pub span: Option<SourceSpan>,
    #[help]
    pub help: Option<String>,
    #[related]
    pub related: Vec<UserError>,
}

impl UserError {
    pub fn plain(message: impl Into<String>) -> Self {
        UserError { message: message.into(), src: None, span: None, help: None, related: vec![] }
    }

    /// All of `errors` as one, headed `"{what}: N errors"`; a single error stays as it is, and
    /// none is `None`.
    pub fn all(what: &str, mut errors: Vec<UserError>) -> Option<UserError> {
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            n => Some(UserError { related: errors, ..UserError::plain(format!("{what}: {n} errors")) }),
        }
    }
}

impl From<PackError> for UserError {
    fn from(e: PackError) -> Self {
        let message = match e.line_col() {
            Some((l, c)) => format!("{}:{l}:{c}: {}", e.path, e.message),
            None => format!("{}: {}", e.path, e.message),
        };
        let span = e
            .span
            .clone()
            .map(|s| SourceSpan::from(s.start..s.end.max(s.start + 1).min(e.text.len().max(1))));
        let src = (!e.text.is_empty()).then(|| NamedSource::new(e.path.clone(), e.text.clone()));
        UserError { message, span: src.as_ref().and(span), src, help: e.help, related: vec![] }
    }
}

/// Headed by the pack when every error is in one (`acme.toml: 3 errors`), else by the packs.
impl From<PackErrors> for UserError {
    fn from(e: PackErrors) -> Self {
        let mut files: Vec<&str> = vec![];
        for err in e.iter() {
            if !files.contains(&err.path.as_str()) {
                files.push(&err.path);
            }
        }
        let what = files.join(", ");
        let errors = e.into_vec().into_iter().map(UserError::from).collect();
        UserError::all(&what, errors).expect("PackErrors is never empty")
    }
}

/// A snapshot that could not be read; `text` is the file's content when it was read.
pub fn load_error(mut e: LoadError, text: Option<&str>) -> UserError {
    // The hint goes under the message, not into it.
    let help = e.help.take();
    let span = text.filter(|_| e.line > 0).map(|t| {
        let offset = offset_of(t, e.line, e.column);
        // One character, not one byte: a byte would end inside `é`.
        SourceSpan::from(offset..offset + t[offset..].chars().next().map_or(0, char::len_utf8))
    });
    UserError {
        message: e.to_string(),
        src: span.and(text).map(|t| NamedSource::new(e.path.clone(), t.to_string())),
        span,
        help,
        related: vec![],
    }
}

/// Byte offset of a 1-based line and column (in characters).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    let rest = &text[start.min(text.len())..];
    start + rest.char_indices().nth(column.saturating_sub(1)).map_or(rest.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use miette::{GraphicalReportHandler, GraphicalTheme};
    use spindle_core::pack::{PackLoader, SourceText, resolve};

    use super::*;

    /// `acme.toml` with the given text; any other pack is missing.
    struct Acme(&'static str);

    impl PackLoader for Acme {
        fn load(&self, reference: &str, _from: Option<&str>) -> Result<SourceText, String> {
            match reference {
                "acme.toml" => Ok(SourceText { path: reference.into(), text: self.0.into() }),
                _ => Err(format!("no pack `{reference}`")),
            }
        }
    }

    fn pack_errors(packs: &[&str], text: &'static str) -> PackErrors {
        resolve(&crate::commands::explain::catalogue(), packs, &Acme(text)).unwrap_err()
    }

    /// What the terminal shows, without colour.
    fn render(e: &UserError) -> String {
        let mut out = String::new();
        GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
            .with_width(200)
            .render_report(&mut out, e)
            .unwrap();
        out
    }

    /// Found by fuzzing (fuzz/, `snapshot`): an error at a character of several bytes was
    /// labelled with its first byte alone, a span ending inside the character.
    #[test]
    fn a_load_error_at_a_multibyte_character_spans_the_character() {
        let text = "{\n  \"host\": é\n}";
        let e = spindle_core::load::parse_snapshot("s.json", text.to_string()).unwrap_err();
        let shown = load_error(e, Some(text));
        let span = shown.span.unwrap();
        assert_eq!(&text[span.offset()..span.offset() + span.len()], "é");
        // At the end of the text, an empty span.
        let e = spindle_core::load::parse_snapshot("s.json", "{".to_string()).unwrap_err();
        let span = load_error(e, Some("{")).span.unwrap();
        assert!(span.offset() + span.len() <= 1);
    }

    const THREE_MISTAKES: &str = r#"name = "acme"

[rules.ALN01]
severity = "note"

[rules.ALN001]
alignment_byts = 4096

[[waivers]]
rules = ["ALN"]
entity = "*"
reason = "Rebuilt in Q3"
expires = "31/01/2027"
"#;

    #[test]
    fn every_pack_error_is_shown_with_its_own_snippet_under_their_count() {
        let e = UserError::from(pack_errors(&["acme.toml"], THREE_MISTAKES));
        assert_eq!(e.message, "acme.toml: 3 errors");
        assert!(e.src.is_none() && e.span.is_none());
        let messages: Vec<&str> = e.related.iter().map(|r| r.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "acme.toml:3:8: unknown rule `ALN01` in [rules]",
                "acme.toml:7:1: unknown parameter `alignment_byts` for ALN001",
                "acme.toml:13:11: expires must be a date as YYYY-MM-DD, found `31/01/2027`",
            ]
        );
        let spans: Vec<_> = e.related.iter().map(|r| r.span.map(|s| (s.offset(), s.len()))).collect();
        let at = |needle: &str| Some((THREE_MISTAKES.find(needle).unwrap(), needle.len()));
        assert_eq!(spans, [at("ALN01]").map(|(o, _)| (o, 5)), at("alignment_byts"), at("\"31/01/2027\"")]);

        let shown = render(&e);
        assert!(shown.starts_with("  × acme.toml: 3 errors\n"), "{shown}");
        for expected in [
            // Each error: its message, its line of the pack with the number, and its help.
            "× acme.toml:3:8: unknown rule `ALN01` in [rules]",
            " 3 │ [rules.ALN01]",
            "help: did you mean `ALN001`?",
            "× acme.toml:7:1: unknown parameter `alignment_byts` for ALN001",
            " 7 │ alignment_byts = 4096",
            "help: did you mean `alignment_bytes`?",
            "× acme.toml:13:11: expires must be a date as YYYY-MM-DD, found `31/01/2027`",
            "13 │ expires = \"31/01/2027\"",
        ] {
            assert!(shown.contains(expected), "missing {expected:?} in:\n{shown}");
        }
        assert_eq!(shown.matches("[acme.toml:").count(), 3, "one snippet per error:\n{shown}");
    }

    #[test]
    fn one_pack_error_renders_exactly_as_before() {
        let text = "[rules.ALN001]\nalignment_byte = 4096\n";
        let errors = pack_errors(&["acme.toml"], text);
        assert_eq!(errors.len(), 1);
        // The single-error conversion is the one there always was.
        let before = UserError::from(errors[0].clone());
        let now = UserError::from(errors);
        assert_eq!(now.message, "acme.toml:2:1: unknown parameter `alignment_byte` for ALN001");
        assert!(now.related.is_empty());
        assert_eq!(render(&now), render(&before));
        let shown = render(&now);
        assert!(
            shown.starts_with("  × acme.toml:2:1: unknown parameter `alignment_byte` for ALN001\n"),
            "{shown}"
        );
        assert!(
            shown.contains(" 2 │ alignment_byte = 4096") && shown.contains("help: did you mean"),
            "{shown}"
        );
    }

    #[test]
    fn errors_in_several_packs_name_them_all() {
        let e = UserError::from(pack_errors(&["acme.toml", "olpt"], "ignore = [\"XYZ\"]\n"));
        assert_eq!(e.message, "acme.toml, olpt: 2 errors");
        let shown = render(&e);
        assert!(shown.contains("× acme.toml:1:11: no rule matches `XYZ`"), "{shown}");
        assert!(shown.contains("× olpt: no pack `olpt`"), "{shown}");
    }
}
