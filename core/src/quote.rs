//! Quoting for the languages spindle writes commands in: a name from a snapshot (a database
//! called `O'Brien]`, a pool named `Data $(x)`) must stay a name, never become code. The rules'
//! fixes and the change plan's scripts quote through these.

/// A T-SQL identifier as `QUOTENAME` writes it: `[Sales]`, `[a]]b]`.
pub fn tsql_name(name: &str) -> String {
    format!("[{}]", name.replace(']', "]]"))
}

/// A T-SQL Unicode string literal: `N'O''Brien'`.
pub fn tsql_string(s: &str) -> String {
    format!("N'{}'", s.replace('\'', "''"))
}

/// A PowerShell single-quoted string, in which nothing expands: `'a''b'`. PowerShell also
/// takes the typographic single quotes (‘ ’ ‚ ‛) as quote marks, so those are doubled too.
pub fn ps_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}') {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// A word for a POSIX shell: as it is when it holds only characters no shell interprets, else
/// in single quotes (`'it'\''s'`).
pub fn sh_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}
