//! Facts no machine can report, declared by people in a rule pack: a SAN LUN's or a hardware
//! RAID's stripe unit, the workload class. Declared facts are marked so wherever they are used.

use crate::glob::Glob;
use crate::params::Choice;

/// The workload a server runs, which sets the recommended stripe unit (64 KiB for OLTP, 256 KiB
/// for a data warehouse: Microsoft's "Disk Partition Alignment Best Practices for SQL Server").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    Oltp,
    DataWarehouse,
}

impl Workload {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "oltp" => Some(Workload::Oltp),
            "data-warehouse" => Some(Workload::DataWarehouse),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Workload::Oltp => "oltp",
            Workload::DataWarehouse => "data-warehouse",
        }
    }
}

/// A rule parameter of kind `Choice(Workload)` (the workload assumed when no pack declares one).
impl Choice for Workload {
    const WORDS: &'static [&'static str] = &["oltp", "data-warehouse"];
    fn from_word(word: &str) -> Option<Self> {
        Workload::parse(word)
    }
}

/// A stripe unit declared for the disks or volumes whose key or label matches `entity`.
#[derive(Debug, Clone)]
pub struct DeclaredStripe {
    pub entity: Glob,
    pub stripe_unit_bytes: u64,
    /// How many data disks a stripe spans, when known.
    pub data_disks: Option<u32>,
    /// The pack file that declared it, shown next to every finding that used it.
    pub source: String,
}

/// Everything the active packs declare.
#[derive(Debug, Clone, Default)]
pub struct Declarations {
    pub workload: Option<(Workload, String)>,
    pub stripes: Vec<DeclaredStripe>,
}

/// The value a declare hint prints for `stripe_unit_bytes`: not a stripe unit anyone has, so a
/// hint pasted unchanged is refused when the pack loads instead of passing for a measurement.
pub const PLACEHOLDER_STRIPE_UNIT_BYTES: u64 = 0;

/// The `[[declare.stripe_unit]]` entry that would give `entity_key` (a disk's or volume's key) a
/// stripe unit, as TOML lines to paste into a pack: the key as a TOML string (literal when it
/// can be, so a Windows device path such as `\\.\PHYSICALDRIVE0` stays as it is), the
/// placeholder [`PLACEHOLDER_STRIPE_UNIT_BYTES`], and a comment naming `reveal`, the tool that
/// shows the real value (a controller CLI, the SAN console). Ends with a newline.
pub fn stripe_unit_hint(entity_key: &str, reveal: &str) -> String {
    // A comment ends at the line's end: nothing in it may start another line.
    let reveal: String = reveal.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    format!(
        "[[declare.stripe_unit]]\nentity = {}\nstripe_unit_bytes = {PLACEHOLDER_STRIPE_UNIT_BYTES}  \
         # placeholder: replace with the stripe unit in bytes, from {reveal}\n",
        toml_string(entity_key)
    )
}

/// `s` as a TOML string: a literal string (`'…'`, no escapes) when it holds no `'` and no
/// control character, else a basic string with `\`, `"` and control characters escaped.
pub fn toml_string(s: &str) -> String {
    if !s.contains('\'') && !s.chars().any(char::is_control) {
        return format!("'{s}'");
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_strings() {
        assert_eq!(toml_string(r"erp-sql1/disk:\\.\PHYSICALDRIVE0"), r"'erp-sql1/disk:\\.\PHYSICALDRIVE0'");
        assert_eq!(toml_string(r#"a'b\c"d"#), r#""a'b\\c\"d""#);
        assert_eq!(toml_string("x\ny\u{7f}"), r#""x\u000Ay\u007F""#);
    }

    #[test]
    fn hint_lines() {
        let hint = stripe_unit_hint(r"h/disk:\\.\PHYSICALDRIVE1", "`perccli /c0/v0 show all`\n(Strip Size)");
        assert_eq!(
            hint,
            "[[declare.stripe_unit]]\nentity = 'h/disk:\\\\.\\PHYSICALDRIVE1'\nstripe_unit_bytes = 0  # placeholder: \
             replace with the stripe unit in bytes, from `perccli /c0/v0 show all` (Strip Size)\n"
        );
    }
}
