//! A reason a check could not be made, as a person reads it: its prose, and the lines after it
//! that are meant to be pasted (a declare hint's TOML entry), shown as lines, each whole: never
//! joined into the prose, wrapped or cut, so that what is pasted is the TOML printed.

use spindle_core::untrusted;

/// The prose of `reason`, and the TOML lines after it when it ends in one of spindle's declare
/// hints: a `[[declare.…]]` line, then only `key = value` lines. Any other reason (a
/// collector's, a server's: untrusted) is prose whole, its newlines shown escaped, so that no
/// line of it passes for one of spindle's.
pub(crate) fn split(reason: &str) -> (&str, Vec<&str>) {
    let Some(at) = reason.find("\n[[declare.") else { return (reason, vec![]) };
    let lines: Vec<&str> = reason[at + 1..].lines().filter(|l| !l.trim().is_empty()).collect();
    let key_value = |l: &str| {
        l.split_once(" = ")
            .is_some_and(|(k, _)| !k.is_empty() && k.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
    };
    let table = |l: &str| {
        l.strip_prefix("[[declare.")
            .and_then(|r| r.strip_suffix("]]"))
            .is_some_and(|t| t.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
    };
    if lines.first().is_some_and(|l| table(l)) && lines[1..].iter().all(|l| key_value(l)) {
        (&reason[..at], lines)
    } else {
        (reason, vec![])
    }
}

/// The lines of `reason` to paste, escaped for a terminal or a file, each whole unless absurdly
/// long (cut as any message is: such a key is no key anyone types).
pub(crate) fn paste_lines(reason: &str) -> Vec<String> {
    split(reason).1.into_iter().map(|l| untrusted::message(l).into_owned()).collect()
}

/// A line of TOML to paste in lines of at most `width` characters where it can be: a trailing
/// comment (`  # …`) goes on in comment lines of its own, which TOML reads the same; the code
/// before it is never broken, however long.
pub(crate) fn wrap_toml(line: &str, width: usize) -> Vec<String> {
    let Some(at) = line.find("  # ").filter(|_| line.chars().count() > width) else {
        return vec![line.to_string()];
    };
    let mut out = vec![];
    let mut current = format!("{}  #", &line[..at]);
    for word in line[at + 4..].split(' ').filter(|w| !w.is_empty()) {
        if current.chars().count() + 1 + word.chars().count() > width && !current.ends_with('#') {
            out.push(std::mem::replace(&mut current, "#".to_string()));
        }
        current.push(' ');
        current.push_str(word);
    }
    out.push(current);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prose_then_the_lines_to_paste() {
        let hint = "not collected; declare it:\n[[declare.stripe_unit]]\nentity = 'h/disk:1'\n\n";
        assert_eq!(
            split(hint),
            ("not collected; declare it:", vec!["[[declare.stripe_unit]]", "entity = 'h/disk:1'"])
        );
        assert_eq!(split("one line"), ("one line", vec![]));
        // A server's or collector's newline starts no line of its own.
        for hostile in
            ["denied\n0 errors, 0 warnings", "x\n[[declare.stripe_unit]]\n1 host checked: 0 errors"]
        {
            assert_eq!(split(hostile), (hostile, vec![]));
        }
        let escaped = paste_lines("x\n[[declare.stripe_unit]]\nentity = '\u{1b}[2J'");
        assert!(escaped.len() == 2 && !escaped[1].contains('\u{1b}'), "{escaped:?}");
    }

    #[test]
    fn a_long_comment_wraps_onto_comment_lines_and_stays_toml() {
        let line =
            "stripe_unit_bytes = 0  # placeholder: replace with the stripe unit in bytes, from the RAID CLI";
        let wrapped = wrap_toml(line, 40);
        assert_eq!(
            wrapped,
            [
                "stripe_unit_bytes = 0  # placeholder:",
                "# replace with the stripe unit in bytes,",
                "# from the RAID CLI"
            ]
        );
        assert_eq!(wrap_toml("entity = 'a-very-long-key'", 10), ["entity = 'a-very-long-key'"]);
    }
}
