//! A check for the tests: user-facing text (docs, fixes, packs, `spindle explain`) cites nothing
//! a reader cannot open, such as the internal source notes the project was written from. It
//! lives here, not in the product, because only the tests ask it.

/// The first citation in `text` of the project's internal source notes, which no reader can
/// open: a note's file name (three digits, `_`, sixteen hex digits, `.txt`) or the word the
/// project calls those notes by, alone or plural, as a word of its own (followed by a number, a
/// file name or nothing). `None` when there is none. Identifiers that merely contain the letters
/// (`DeserializeSeed`, `seeding`) are not words and do not count.
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

    /// A made-up note name of the shape the detector looks for, put together so that no
    /// source file holds one.
    fn note() -> String {
        format!("{}_{}.txt", "000", "0123456789abcdef")
    }

    /// The word, followed by `rest`.
    fn cite(rest: &str) -> String {
        format!("{}{rest}", "seed")
    }

    #[test]
    fn finds_internal_citations() {
        let cited = format!("Seed `{}` (sector 63)", note());
        assert_eq!(internal_citation(&cited), Some(cited.as_str()));
        assert!(internal_citation(&format!("in {} both servers", cite(" 001"))).is_some());
        assert!(internal_citation(&format!("the {}' cases", cite("s"))).is_some());
        assert!(internal_citation(&format!("the {} server", cite("-001"))).is_some());
        assert!(internal_citation(&format!("see {}", note())).is_some());
        assert_eq!(internal_citation("impl DeserializeSeed for KeySeed; seeding; seedless"), None);
        assert_eq!(internal_citation("on two identical ERP servers, 149.4 ms against 74 ms"), None);
        // Cut at a character boundary, however the line goes on.
        assert_eq!(internal_citation(&cite(&format!(" {}", "é".repeat(100)))).unwrap().chars().count(), 60);
    }
}
