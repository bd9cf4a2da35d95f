//! Text spindle did not write — from a snapshot, a server or a plugin — on its way to a terminal.
//!
//! A terminal obeys what it is sent: ESC `[2J` clears the screen, an OSC sequence retitles the
//! window, U+202E shows what follows reversed, a zero-width character hides a difference between
//! two names, and a newline starts a line of the data's choosing at column 0 — one that reads like
//! spindle's own summary. Every such string goes through [`escape_for_terminal`] (or one of the
//! bounded forms below) before a terminal sees it, in the text report and on stderr alike.
//!
//! A name can also be megabytes long, and a report echoes it many times: [`name`] and
//! [`message`] cut what they show, saying how much was left out. Source snippets are cut by
//! [`excerpt`] to a window around the span they point at, so a minified file's line of megabytes
//! is shown as a few hundred characters (and no column is past what a formatter can pad to).
//!
//! JSON and SARIF carry strings as data, escaped by their own rules: nothing here applies to them.

use std::borrow::Cow;
use std::ops::Range;

/// Characters of a name shown: a host, database, file, volume, path or code.
pub const NAME_CHARS: usize = 256;
/// Characters of an entity's label shown: it joins a few names (`sql01 › SALES › SALES_log`).
pub const LABEL_CHARS: usize = 1024;
/// Characters of a message shown: a finding's, a server's error, a plugin's check-error.
pub const MESSAGE_CHARS: usize = 4096;

/// Characters of the span's line shown before the span, and after it.
pub const EXCERPT_MARGIN: usize = 120;
/// Characters of the span shown on its first line; a longer span is cut there, with a mark.
pub const EXCERPT_SPAN: usize = 160;
/// Lines of a span shown; a span over more lines is shown to the end of its first line.
pub const EXCERPT_SPAN_LINES: usize = 24;

/// The mark where shown text was cut.
const CUT: char = '…';

/// `s` with every character a terminal would act on or not show written as a visible escape:
/// `\n`, `\r`, `\t`, `\e` (ESC), else `\u{..}`. Escaped: the C0 controls, DEL, the C1 controls,
/// the bidirectional embeddings, overrides, isolates and marks, the zero-width and other invisible
/// formatting characters, the line and paragraph separators, and a combining mark with nothing
/// of its own to combine with (at the start, or after an escape). A backslash is left as it is:
/// Windows paths are full of them.
pub fn escape_for_terminal(s: &str) -> Cow<'_, str> {
    escape(s, false)
}

/// [`escape_for_terminal`], but newlines are kept: for text that is multi-line by nature (a
/// plugin's docs, its output, an error quoting it) and is framed line by line where it is shown.
pub fn escape_keeping_lines(s: &str) -> Cow<'_, str> {
    escape(s, true)
}

/// `s` escaped, and cut to [`NAME_CHARS`] characters with `… (N more bytes)`.
pub fn name(s: &str) -> Cow<'_, str> {
    head(s, NAME_CHARS)
}

/// An entity's label escaped, and cut to [`LABEL_CHARS`] characters with `… (N more bytes)`.
pub fn label(s: &str) -> Cow<'_, str> {
    head(s, LABEL_CHARS)
}

/// `s` escaped, and cut to `max_chars` characters with `… (N more bytes)`.
pub fn head(s: &str, max_chars: usize) -> Cow<'_, str> {
    let cut = char_boundary_after(s, 0, max_chars);
    if cut == s.len() {
        return escape_for_terminal(s);
    }
    let mut out = escape_for_terminal(&s[..cut]).into_owned();
    out.push_str(&format!("{CUT} ({} more bytes)", s.len() - cut));
    out.into()
}

/// `s` escaped, and when longer than [`MESSAGE_CHARS`] characters, its start and its end with
/// `… (N bytes left out) …` between: an error's cause is as often at the end (a panic after pages
/// of output) as at the start.
pub fn message(s: &str) -> Cow<'_, str> {
    message_lines(s, false)
}

/// [`message`], but newlines are kept, for text framed line by line where it is shown.
pub fn message_keeping_lines(s: &str) -> Cow<'_, str> {
    message_lines(s, true)
}

fn message_lines(s: &str, keep_lines: bool) -> Cow<'_, str> {
    let head_end = char_boundary_after(s, 0, MESSAGE_CHARS);
    if head_end == s.len() {
        return escape(s, keep_lines);
    }
    let head_end = char_boundary_after(s, 0, MESSAGE_CHARS * 3 / 4);
    let tail_start = char_boundary_before(s, s.len(), MESSAGE_CHARS / 4).max(head_end);
    let mut out = escape(&s[..head_end], keep_lines).into_owned();
    out.push_str(&format!(" {CUT} ({} bytes left out) {CUT} ", tail_start - head_end));
    out.push_str(&escape(&s[tail_start..], keep_lines));
    out.into()
}

/// The byte offset `n` characters after `from` (or the end).
fn char_boundary_after(s: &str, from: usize, n: usize) -> usize {
    if s.len() - from <= n {
        return s.len();
    }
    s[from..].char_indices().nth(n).map_or(s.len(), |(i, _)| from + i)
}

/// The byte offset `n` characters before `to` (or the start).
fn char_boundary_before(s: &str, to: usize, n: usize) -> usize {
    if to <= n {
        return 0;
    }
    s[..to].char_indices().rev().nth(n.saturating_sub(1)).map_or(0, |(i, _)| i)
}

/// The first character of `out` (rendered for a terminal, newlines its own) that a terminal must
/// not be sent as itself, with its byte offset: what tests and fuzz targets assert is absent.
pub fn first_unsafe_on_terminal(out: &str) -> Option<(usize, char)> {
    out.char_indices().find(|&(_, c)| c != '\n' && is_unsafe(c))
}

/// Whether a terminal must not be sent `c` as itself.
pub fn is_unsafe(c: char) -> bool {
    matches!(c,
        // C0, DEL, C1.
        '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        // Soft hyphen, combining grapheme joiner, Arabic letter mark: invisible.
        | '\u{ad}' | '\u{34f}' | '\u{61c}'
        // Hangul fillers, Khmer inherent vowels, Mongolian selectors and vowel separator: blank.
        | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}' | '\u{180b}'..='\u{180f}'
        // Zero-width space, non-joiner, joiner; left-to-right and right-to-left marks.
        | '\u{200b}'..='\u{200f}'
        // Line and paragraph separators; bidirectional embeddings and overrides.
        | '\u{2028}'..='\u{202e}'
        // Word joiner, invisible operators, bidirectional isolates, deprecated format controls.
        | '\u{2060}'..='\u{206f}'
        | '\u{3164}' | '\u{feff}' | '\u{ffa0}'
        // Interlinear annotation; musical formatting; tags (invisible ASCII).
        | '\u{fff9}'..='\u{fffb}' | '\u{1d173}'..='\u{1d17a}' | '\u{e0000}'..='\u{e007f}'
    )
}

/// A combining mark of the common blocks: shown alone, it lands on the character before it —
/// spindle's quote or frame when the string starts with it.
fn is_combining(c: char) -> bool {
    matches!(c,
        '\u{300}'..='\u{36f}' | '\u{483}'..='\u{489}' | '\u{1ab0}'..='\u{1aff}' | '\u{1dc0}'..='\u{1dff}'
        | '\u{20d0}'..='\u{20ff}' | '\u{fe20}'..='\u{fe2f}'
    )
}

fn escape(s: &str, keep_lines: bool) -> Cow<'_, str> {
    // Most strings are printable ASCII: nothing to look at character by character.
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return Cow::Borrowed(s);
    }
    let mut probe = Escaper::new(keep_lines);
    if s.chars().all(|c| !probe.needs_escape(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut e = Escaper::new(keep_lines);
    for c in s.chars() {
        e.push(&mut out, c);
    }
    Cow::Owned(out)
}

/// Escapes characters one at a time, remembering whether the next one would combine with
/// something that is not its own (the start, or an escape).
struct Escaper {
    keep_lines: bool,
    at_boundary: bool,
}

impl Escaper {
    fn new(keep_lines: bool) -> Self {
        Escaper { keep_lines, at_boundary: true }
    }

    /// Whether `c` is written escaped; advances the state as [`Escaper::push`] would.
    fn needs_escape(&mut self, c: char) -> bool {
        if self.keep_lines && c == '\n' {
            self.at_boundary = true;
            return false;
        }
        let escaped = is_unsafe(c) || (self.at_boundary && is_combining(c));
        self.at_boundary = escaped;
        escaped
    }

    fn push(&mut self, out: &mut String, c: char) {
        if !self.needs_escape(c) {
            out.push(c);
            return;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{1b}' => out.push_str("\\e"),
            c => {
                use std::fmt::Write;
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
}

/// What a report shows of a text around a span: the span's line and `context_lines` lines each
/// side, every line cut to the same window of columns around the span's start, with `…` where
/// text was left out, and escaped as [`escape_for_terminal`] does (tabs kept, for the renderer to
/// expand). The span is mapped into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excerpt {
    /// The lines shown, each ended by `\n` when the original line was.
    pub text: String,
    /// The span within `text`.
    pub span: Range<usize>,
    /// 0-based number, in the original, of the first line of `text`.
    pub first_line: usize,
    /// 0-based line and column (in characters) of the span's start in the original.
    pub line: usize,
    pub column: usize,
}

/// The part of `text` to show around `span` (byte offsets; clamped to the text and to character
/// boundaries). Costs a scan of the text before the span (to number its line) and of the lines
/// shown; what is shown is at most about `2 × EXCERPT_MARGIN + EXCERPT_SPAN` characters wide.
pub fn excerpt(text: &str, span: Range<usize>, context_lines: usize) -> Excerpt {
    excerpt_from(text, span, None, context_lines)
}

/// [`excerpt`] for a caller that knows the 0-based line and column (in characters) of
/// `span.start` already, from an index of the text's lines: a report showing many findings of
/// one large file then does not scan the file up to each of them.
pub fn excerpt_at(
    text: &str,
    span: Range<usize>,
    line: usize,
    column: usize,
    context_lines: usize,
) -> Excerpt {
    excerpt_from(text, span, Some((line, column)), context_lines)
}

fn excerpt_from(text: &str, span: Range<usize>, at: Option<(usize, usize)>, context_lines: usize) -> Excerpt {
    let len = text.len();
    let bytes = text.as_bytes();
    let (start, mut end) = char_span(text, span);
    let start_line_begin = line_start(bytes, start);
    let (line, column) = at.unwrap_or_else(|| {
        let line = bytes[..start_line_begin].iter().filter(|&&b| b == b'\n').count();
        (line, text[start_line_begin..start].chars().count())
    });
    let start_line_end = line_end(bytes, start);
    // A span over many lines (a whole object of a pretty-printed file) is shown as its first.
    if end > start_line_end
        && bytes[start..end].iter().filter(|&&b| b == b'\n').nth(EXCERPT_SPAN_LINES).is_some()
    {
        end = start_line_end;
    }

    // The window of columns, the same on every line shown, as an editor scrolled to the span.
    let span_chars = text[start..end.min(start_line_end)].chars().take(EXCERPT_SPAN + 1).count();
    let lo = column.saturating_sub(EXCERPT_MARGIN);
    let hi = if span_chars > EXCERPT_SPAN {
        column + EXCERPT_SPAN
    } else {
        column + span_chars.max(1) + EXCERPT_MARGIN
    };

    let mut first = start_line_begin;
    let mut first_line = line;
    for _ in 0..context_lines {
        if first == 0 {
            break;
        }
        first = line_start(bytes, first - 1);
        first_line -= 1;
    }
    // The last line of the span holds its last character (a span may end just past a newline).
    let mut last_end = line_end(bytes, if end > start { end - 1 } else { end });
    for _ in 0..context_lines {
        if last_end >= len {
            break;
        }
        last_end = line_end(bytes, last_end + 1);
    }

    let (out, shown_start, shown_end) = render_window(text, first..last_end, start..end, lo..hi);
    let shown_start = shown_start.unwrap_or(0);
    let shown_end = shown_end.unwrap_or(out.len()).max(shown_start);
    Excerpt { text: out, span: shown_start..shown_end, first_line, line, column }
}

/// `span` clamped to the text and widened to character boundaries.
fn char_span(text: &str, span: Range<usize>) -> (usize, usize) {
    let len = text.len();
    let mut start = span.start.min(len);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = span.end.clamp(start, len);
    while !text.is_char_boundary(end) {
        end += 1;
    }
    (start, end)
}

/// Where the line holding byte `at` starts.
fn line_start(bytes: &[u8], at: usize) -> usize {
    bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)
}

/// Where the line holding byte `at` ends: its newline, or the end of the text.
fn line_end(bytes: &[u8], at: usize) -> usize {
    bytes[at..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| at + i)
}

/// The lines from the one starting at `lines.start` to the one ending at `lines.end`, each cut
/// to the columns `window` and escaped, with where the span's start and end landed in the output
/// (`None` when neither shown nor cut away on a line shown).
fn render_window(
    text: &str,
    lines: Range<usize>,
    span: Range<usize>,
    window: Range<usize>,
) -> (String, Option<usize>, Option<usize>) {
    let (len, bytes) = (text.len(), text.as_bytes());
    let (start, end) = (span.start, span.end);
    let (lo, hi) = (window.start, window.end);
    let mut out = String::new();
    let (mut shown_start, mut shown_end) = (None, None);
    let mut at = lines.start;
    loop {
        let newline = line_end(bytes, at);
        // CRLF ends a line as LF does; a lone CR is escaped like any control.
        let body_end =
            if newline < len && newline > at && bytes[newline - 1] == b'\r' { newline - 1 } else { newline };
        let body = &text[at..body_end];
        let from = char_boundary_after(body, 0, lo);
        let to = char_boundary_after(body, from, hi - lo);
        let line_begin_out = out.len();
        if from > 0 {
            out.push(CUT);
        }
        let mut e = Escaper::new(false);
        for (i, c) in body[from..to].char_indices() {
            let p = at + from + i;
            if p == start {
                shown_start = Some(out.len());
            }
            if p == end {
                shown_end = Some(out.len());
            }
            // Tabs stay: the renderer expands them to the next stop.
            if c == '\t' {
                e.at_boundary = false;
                out.push('\t');
            } else {
                e.push(&mut out, c);
            }
        }
        // Where a position left of the window or right of it lands.
        let place = |p: usize, after_cut: usize| -> Option<usize> {
            if p < at || p > newline {
                None
            } else if p < at + from {
                Some(line_begin_out)
            } else if p >= at + to {
                Some(after_cut)
            } else {
                None
            }
        };
        let before_right_cut = out.len();
        if to < body.len() {
            out.push(CUT);
        }
        let after_right_cut = out.len();
        for (pos, shown) in [(start, &mut shown_start), (end, &mut shown_end)] {
            if shown.is_none() {
                // Exactly at the window's right edge is before the mark; past it, after.
                let right = if pos == at + to { before_right_cut } else { after_right_cut };
                *shown = place(pos, right);
            }
        }
        if newline < len {
            out.push('\n');
        }
        if newline >= lines.end {
            break;
        }
        at = newline + 1;
    }
    (out, shown_start, shown_end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_and_invisible_formatting() {
        assert_eq!(escape_for_terminal("sql01"), "sql01");
        assert!(matches!(escape_for_terminal("C:\\Data\\x.mdf"), Cow::Borrowed(_)));
        assert_eq!(escape_for_terminal("a\u{1b}[2Jb"), "a\\e[2Jb");
        assert_eq!(escape_for_terminal("\u{1b}]0;pwned\u{7}"), "\\e]0;pwned\\u{7}");
        assert_eq!(escape_for_terminal("x\n1 host checked: 0 errors"), "x\\n1 host checked: 0 errors");
        assert_eq!(escape_for_terminal("\r\t\0\u{7f}\u{85}\u{9b}"), "\\r\\t\\u{0}\\u{7f}\\u{85}\\u{9b}");
        for c in [
            '\u{202a}',
            '\u{202e}',
            '\u{2066}',
            '\u{2069}',
            '\u{200e}',
            '\u{200f}',
            '\u{61c}',
            '\u{200b}',
            '\u{200d}',
            '\u{feff}',
            '\u{2028}',
            '\u{2029}',
            '\u{2060}',
            '\u{e0041}',
            '\u{ad}',
        ] {
            let s = format!("a{c}b");
            assert_eq!(escape_for_terminal(&s), format!("a\\u{{{:x}}}b", c as u32), "{:x}", c as u32);
        }
        // Printable text of any script is left alone.
        assert!(matches!(escape_for_terminal("Données ›日本語 › é"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_combining_mark_with_nothing_to_combine_with_is_escaped() {
        assert_eq!(escape_for_terminal("\u{301}x"), "\\u{301}x");
        assert_eq!(escape_for_terminal("e\u{301}"), "e\u{301}");
        assert_eq!(escape_for_terminal("\u{7}\u{301}"), "\\u{7}\\u{301}");
        assert_eq!(escape_keeping_lines("a\n\u{301}"), "a\n\\u{301}");
    }

    #[test]
    fn keeping_lines_keeps_newlines_only() {
        assert_eq!(escape_keeping_lines("a\tb\nc\r\u{7}\u{1b}"), "a\\tb\nc\\r\\u{7}\\e");
    }

    #[test]
    fn names_and_messages_are_cut_saying_how_much() {
        assert_eq!(name("short"), "short");
        let long = "é".repeat(300);
        let shown = name(&long);
        assert!(shown.starts_with(&"é".repeat(NAME_CHARS)), "{shown}");
        assert!(shown.ends_with("… (88 more bytes)"), "{shown}");
        // Escapes are counted after the cut: a name of controls stays bounded.
        let ctl = "\u{1b}".repeat(10_000);
        assert!(name(&ctl).len() < NAME_CHARS * 2 + 32);

        let m = format!("start {} end", "x".repeat(100_000));
        let shown = message(&m);
        assert!(shown.starts_with("start x"), "{shown}");
        assert!(shown.ends_with("x end"), "{shown}");
        assert!(shown.contains(" … ("), "{shown}");
        assert!(shown.chars().count() < MESSAGE_CHARS + 64);
        assert_eq!(message("fine"), "fine");
        assert_eq!(message_keeping_lines("a\nb\u{1b}"), "a\nb\\e");
    }

    fn check(text: &str, span: Range<usize>, context: usize) -> Excerpt {
        let x = excerpt(text, span, context);
        assert!(x.span.start <= x.span.end && x.span.end <= x.text.len(), "{x:?}");
        assert!(x.text.is_char_boundary(x.span.start) && x.text.is_char_boundary(x.span.end), "{x:?}");
        for line in x.text.lines() {
            assert!(line.chars().count() <= 2 * EXCERPT_MARGIN + EXCERPT_SPAN + 4, "{line}");
        }
        x
    }

    #[test]
    fn a_short_file_is_shown_as_it_is() {
        let text = "{\n  \"a\": 1,\n  \"b\": 2\n}\n";
        let at = text.find("\"b\"").unwrap();
        let x = check(text, at..at + 8, 2);
        assert_eq!(x.text, text);
        assert_eq!(&x.text[x.span.clone()], "\"b\": 2\n}");
        let x = check(text, at..at + 6, 1);
        assert_eq!(x.text, "  \"a\": 1,\n  \"b\": 2\n}\n");
        assert_eq!(&x.text[x.span.clone()], "\"b\": 2");
        assert_eq!((x.first_line, x.line, x.column), (1, 2, 2));
    }

    #[test]
    fn a_long_line_is_cut_to_a_window_around_the_span() {
        let mut text = String::from("{\"pad\": \"");
        text.push_str(&"p".repeat(200_000));
        text.push_str("\", \"offset_bytes\": 32256, \"more\": \"");
        text.push_str(&"q".repeat(100_000));
        text.push_str("\"}\nnext line\n");
        let at = text.find("\"offset_bytes\"").unwrap();
        let x = check(&text, at..at + 21, 2);
        assert_eq!(&x.text[x.span.clone()], "\"offset_bytes\": 32256");
        assert_eq!((x.first_line, x.line, x.column), (0, 0, at));
        let first = x.text.lines().next().unwrap();
        assert!(first.starts_with('…') && first.ends_with('…'), "{first}");
        // The window is set by the span's line; the next line, short, shows as nothing but a mark.
        assert_eq!(x.text.lines().nth(1), Some("…"));
    }

    #[test]
    fn a_known_position_gives_the_same_excerpt() {
        let text = "{\n  \"a\": 1,\n  \"é\": [\n    2\n  ]\n}\n";
        for start in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
            let line = text[..start].matches('\n').count();
            let column = text[..start].rsplit('\n').next().unwrap().chars().count();
            for end in [start, start + 1, text.len()] {
                assert_eq!(
                    excerpt_at(text, start..end, line, column, 1),
                    excerpt(text, start..end, 1),
                    "{start}..{end}"
                );
            }
        }
    }

    #[test]
    fn a_long_span_is_cut_with_its_line() {
        let text = format!("[{}]", "1,".repeat(10_000));
        let x = check(&text, 0..text.len(), 0);
        assert!(x.text.ends_with('…'));
        assert_eq!(x.span, 0..x.text.len());
        assert_eq!(x.text.chars().count(), EXCERPT_SPAN + 1);
    }

    #[test]
    fn a_span_over_many_lines_is_shown_as_its_first() {
        let text = format!("{{\n{}}}\n", "  \"a\": 1,\n".repeat(1000));
        let x = check(&text, 0..text.len() - 1, 2);
        assert_eq!(x.text, "{\n  \"a\": 1,\n  \"a\": 1,\n");
        assert_eq!(x.span, 0..1);
        let five = text.match_indices('\n').nth(4).unwrap().0;
        let x = check(&text, 0..five, 0);
        assert_eq!(x.text.lines().count(), 5);
    }

    #[test]
    fn controls_in_the_source_are_escaped_and_the_span_follows() {
        let text = "{\"name\": \"\u{1b}[2J\u{202e}x\", \"n\": 1}\r\n\"\u{7}\"\r\n\rz\n";
        let at = text.find("\"n\"").unwrap();
        let x = check(text, at..at + 6, 2);
        assert_eq!(&x.text[x.span.clone()], "\"n\": 1");
        assert_eq!(x.text, "{\"name\": \"\\e[2J\\u{202e}x\", \"n\": 1}\n\"\\u{7}\"\n\\rz\n");
        assert_eq!(x.column, text[..at].chars().count());
    }

    #[test]
    fn spans_at_the_edges() {
        let text = "ab\ncd";
        for (span, shown) in [(5..5, ""), (0..0, ""), (2..3, "\n"), (4..9, "d"), (9..12, "")] {
            let x = check(text, span.clone(), 1);
            assert_eq!(&x.text[x.span.clone()], shown, "{span:?} {x:?}");
        }
        let x = check("", 0..1, 2);
        assert_eq!((x.text.as_str(), x.span), ("", 0..0));
        // Inside a character: widened to it.
        let x = check("aé", 2..2, 0);
        assert_eq!(x.span, 1..3);
    }
}
