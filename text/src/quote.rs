//! Quoting for the languages spindle writes commands in: a name from a snapshot (a database
//! called `O'Brien]`, a pool named `Data $(x)`) must stay a name, never become code. The rules'
//! fixes and the change plan's scripts quote through these.
//!
//! Quoting alone cannot make every name safe: a newline ends a sqlcmd batch or a runbook line
//! whatever the quotes, a double quote splits a program's arguments under Windows PowerShell
//! 5.1, a `..` segment moves a path out of its folder. Every quoting function here also puts the
//! name through [`refusal`], the one check of a name that reaches a command; while an
//! [`Audit`] is open on this thread (the change plan opens one while it writes commands), each
//! name that fails it is recorded, and the step that quoted it becomes manual, with the reason.

use std::cell::RefCell;

use crate::untrusted;

/// Why `name` may not reach a command, or `None` when it may: it holds a newline, another
/// control character, or a character a terminal or an editor hides or reorders (so a reviewer
/// would not see what runs).
pub fn refusal(name: &str) -> Option<String> {
    let c = name.chars().find(|&c| untrusted::is_unsafe(c))?;
    let what = match c {
        '\n' | '\r' | '\u{2028}' | '\u{2029}' => "a line break",
        c if c.is_control() => "a control character",
        _ => "an invisible or bidirectional character",
    };
    Some(format!("`{}` holds {what} (U+{:04X})", untrusted::name(name), c as u32))
}

/// Why `path` may not reach a command that moves, copies or mounts it: [`refusal`], or a `..`
/// segment (`/var/opt/mssql/../../etc/shadow` is not under the folder it names).
pub fn path_refusal(path: &str) -> Option<String> {
    refusal(path).or_else(|| {
        path.split(['/', '\\'])
            .any(|seg| seg == "..")
            .then(|| format!("`{}` has a `..` segment, so it is not where it seems", untrusted::name(path)))
    })
}

thread_local! {
    /// The refusals recorded since the open audit began; `None` when none is open.
    static REFUSED: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

fn record(reason: Option<String>) {
    if let Some(r) = reason {
        REFUSED.with(|v| {
            if let Some(list) = v.borrow_mut().as_mut()
                && !list.contains(&r)
            {
                list.push(r);
            }
        });
    }
}

/// While alive, every name the quoting functions of this thread refuse is recorded; [`Audit::take`]
/// hands over (and clears) what was recorded. Ends when dropped.
pub struct Audit(());

impl Audit {
    pub fn open() -> Audit {
        REFUSED.with(|v| *v.borrow_mut() = Some(vec![]));
        Audit(())
    }

    /// The reasons recorded since the audit opened or since the last `take`.
    pub fn take(&self) -> Vec<String> {
        REFUSED.with(|v| v.borrow_mut().as_mut().map(std::mem::take).unwrap_or_default())
    }
}

impl Drop for Audit {
    fn drop(&mut self) {
        REFUSED.with(|v| *v.borrow_mut() = None);
    }
}

/// Records (under an open [`Audit`]) why a command cannot be written, when that is not a name
/// (a disk number that is not known, a tool that cannot address the volume).
pub fn refuse(reason: String) {
    record(Some(reason));
}

/// Puts `name` through [`refusal`] (recorded under an open [`Audit`]) and hands it back, for a
/// name that reaches a command unquoted (a number's text, a letter).
pub fn checked(name: &str) -> &str {
    record(refusal(name));
    name
}

/// Puts `path` through [`path_refusal`] (recorded under an open [`Audit`]) and hands it back.
pub fn checked_path(path: &str) -> &str {
    record(path_refusal(path));
    path
}

/// A T-SQL identifier as `QUOTENAME` writes it: `[Sales]`, `[a]]b]`.
pub fn tsql_name(name: &str) -> String {
    format!("[{}]", checked(name).replace(']', "]]"))
}

/// A T-SQL Unicode string literal: `N'O''Brien'`.
pub fn tsql_string(s: &str) -> String {
    format!("N'{}'", checked(s).replace('\'', "''"))
}

/// A PowerShell single-quoted string, in which nothing expands: `'a''b'`. PowerShell also
/// takes the typographic single quotes (‘ ’ ‚ ‛) as quote marks, so those are doubled too.
pub fn ps_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in checked(s).chars() {
        if matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}') {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// A path for a program PowerShell starts (robocopy), as a single-quoted string. Windows
/// PowerShell 5.1 puts an argument holding a space in double quotes without escaping the double
/// quotes or the trailing backslash inside it, so the program would split it there: a double
/// quote is refused (under an [`Audit`]), and the trailing backslash of a folder other than a
/// drive's root is dropped (`C:\Mounts\Log Vol\` → `C:\Mounts\Log Vol`).
pub fn ps_native_path(path: &str) -> String {
    if path.contains('"') {
        record(Some(format!(
            "`{}` holds a double quote, which Windows PowerShell 5.1 does not escape for programs \
             such as robocopy",
            untrusted::name(path)
        )));
    }
    let trimmed = if path.len() > 3 { path.trim_end_matches('\\') } else { path };
    ps_string(checked_path(trimmed))
}

/// A word for a POSIX shell: as it is when it holds only characters no shell interprets, else
/// in single quotes (`'it'\''s'`).
pub fn sh_word(s: &str) -> String {
    let s = checked(s);
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_audit_records_every_refused_name_once() {
        // No audit: nothing is kept.
        let _ = ps_string("a\nb");
        let audit = Audit::open();
        assert!(audit.take().is_empty());
        let _ = ps_string("Pool\nRemove-Item C:\\Windows");
        let _ = sh_word("Pool\nRemove-Item C:\\Windows");
        let _ = tsql_name("fine");
        let _ = checked_path("/var/opt/mssql/../../etc/shadow");
        let _ = ps_native_path("C:\\Mounts\\a\" b\\");
        let got = audit.take();
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got[0].contains("holds a line break"), "{got:?}");
        assert!(got[1].contains("`..` segment"), "{got:?}");
        assert!(got[2].contains("double quote"), "{got:?}");
        assert!(audit.take().is_empty());
        drop(audit);
        let _ = ps_string("a\nb");
        assert!(Audit::open().take().is_empty());
    }

    #[test]
    fn native_paths_lose_the_backslash_that_would_escape_their_closing_quote() {
        assert_eq!(ps_native_path("D:\\"), "'D:\\'");
        assert_eq!(ps_native_path("C:\\Mounts\\Log Vol's\\"), "'C:\\Mounts\\Log Vol''s'");
    }
}
