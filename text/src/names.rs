//! The shapes of names in rules and packs, shared by the plugin host (which checks what a plugin
//! declares) and the SDK (which checks it before the plugin is built).

/// A rule code: three uppercase letters and three digits (`ALN001`).
pub fn is_code(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 6 && b[..3].iter().all(u8::is_ascii_uppercase) && b[3..].iter().all(u8::is_ascii_digit)
}

/// kebab-case: lowercase words of letters and digits joined by single hyphens, starting with a
/// letter (rule names, pack ids, choice words).
pub fn is_kebab(s: &str) -> bool {
    s.len() <= 64
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.split('-')
            .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

/// snake_case, as parameter names are (`min_free_percent`).
pub fn is_snake(s: &str) -> bool {
    s.len() <= 64
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// "did you mean `X`?" for the closest candidate, when one is close enough to be a typo.
pub fn did_you_mean<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(&given.to_ascii_lowercase(), &c.to_ascii_lowercase()), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| format!("did you mean `{c}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert!(is_code("ALN001") && !is_code("ALN01") && !is_code("aln001") && !is_code("acme/ACM001"));
        assert!(
            is_kebab("partition-offset-alignment") && !is_kebab("a--b") && !is_kebab("-a") && !is_kebab("A")
        );
        assert!(is_snake("min_free_percent") && !is_snake("min-free") && !is_snake("1x"));
    }
}
