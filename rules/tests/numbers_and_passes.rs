//! What the machine formats read from every builtin rule besides its prose: the numbers behind
//! `measured` and `expected` (each agreeing with the prose it stands beside), and the entities
//! the rule judged and passed. Run over every fixture of `tests/fixtures/`, one test per code.

use std::fs;
use std::path::{Path, PathBuf};

use spindle_core::date::Date;
use spindle_core::declare::Declarations;
use spindle_core::engine::{ActiveRule, HostReport, check_host};
use spindle_core::finding::{Finding, Quantity, Unit};
use spindle_core::load::parse_snapshot;
use spindle_core::params::Params;
use spindle_core::view::HostView;

/// Per rule: the units of the measured and the expected number its findings carry (`None`: the
/// rule measures no number there, as FMT002's filesystem names), and whether some fixture
/// finding must show them.
macro_rules! rules {
    ($($code:ident: $measured:expr, $expected:expr;)*) => {
        const LISTED: &[&str] = &[$(stringify!($code)),*];
        $(
            #[test]
            #[allow(non_snake_case)]
            fn $code() {
                check_code(stringify!($code), $measured, $expected);
            }
        )*
    };
}

use Unit::*;

rules! {
    ALN001: Some(Bytes), Some(Bytes);
    ALN002: Some(Bytes), Some(Bytes);
    ALN003: Some(Bytes), Some(Bytes);
    ALN004: Some(Bytes), Some(Bytes);
    CAP001: Some(Percent), Some(Percent);
    FMT001: Some(Bytes), Some(Bytes);
    FMT002: None, None;
    FMT003: None, None;
    FMT004: None, None;
    GRW001: Some(Percent), None;
    GRW002: Some(Bytes), Some(Bytes);
    GRW003: None, None;
    LAT001: Some(Ms), Some(Ms);
    LAT002: Some(Ms), Some(Ms);
    LAT003: Some(Ms), Some(Ms);
    MED001: Some(Count), Some(Count);
    PLC001: Some(Count), Some(Count);
    PLC002: None, None;
    PLC003: Some(Count), Some(Count);
    PLC004: Some(Count), Some(Count);
    PLC005: Some(Count), Some(Count);
    STR001: Some(Count), Some(Count);
    STR002: Some(Bytes), Some(Bytes);
    STR003: Some(Count), Some(Count);
    STR004: Some(Bytes), Some(Bytes);
}

#[test]
fn every_rule_is_listed() {
    let codes: Vec<&str> = spindle_rules::all().iter().map(|r| r.meta.code).collect();
    assert_eq!(codes, LISTED, "every builtin rule says what numbers it gives");
}

fn fixtures(code: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(code);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn reports(code: &str) -> Vec<(String, HostReport)> {
    let rules = spindle_rules::all();
    let rule = rules.iter().find(|r| r.meta.code == code).unwrap();
    let active = [ActiveRule {
        rule: *rule,
        code: code.to_string(),
        severity: rule.meta.severity,
        params: Params::defaults(rule.meta.params),
    }];
    fixtures(code)
        .into_iter()
        .map(|file| {
            let text = fs::read_to_string(&file).unwrap();
            let doc = parse_snapshot(&file.display().to_string(), text).unwrap();
            let view = HostView::build(vec![doc], Declarations::default());
            let name = file.file_stem().unwrap().to_string_lossy().into_owned();
            (name, check_host(&active, &view, &[], Date::parse("2026-01-01").unwrap()))
        })
        .collect()
}

fn check_code(code: &str, measured: Option<Unit>, expected: Option<Unit>) {
    let reports = reports(code);
    let mut with_numbers = 0;
    for (case, report) in &reports {
        for f in &report.findings {
            let at = format!("{code} {case}: {}", f.entity.label);
            // A finding a rule gives a number for carries it in the unit the rule declares.
            // (PLC004's size spread and STR/PLC findings without a single figure carry fewer.)
            if let Some(q) = f.measured_quantity {
                assert_eq!(Some(q.unit), measured, "{at}: measured unit");
                assert_agrees(q, f.measured.as_deref(), f, &format!("{at}: measured"));
                with_numbers += 1;
            }
            if let Some(q) = f.expected_quantity {
                assert_eq!(Some(q.unit), expected, "{at}: expected unit");
                assert_agrees(q, f.expected.as_deref(), f, &format!("{at}: expected"));
            }
            if measured.is_none() {
                assert!(f.measured_quantity.is_none() && f.expected_quantity.is_none(), "{at}");
            }
        }
        // Passes are what the rule judged less what it found fault with or could not judge.
        for p in &report.passed {
            assert_eq!(p.code, code);
            for key in &p.keys {
                let at = format!("{code} {case}: {key} passed");
                assert!(!report.findings.iter().any(|f| f.entity.key == *key), "{at} with a finding");
                assert!(
                    !report.not_evaluated.iter().any(|n| n.entity.as_ref().is_some_and(|x| x.key == *key)),
                    "{at} while not evaluated"
                );
                assert!(
                    !report.not_applicable.iter().any(|n| n.entity.key == *key),
                    "{at} while not applicable"
                );
            }
            let mut keys: Vec<&str> = p.keys.iter().map(String::as_str).collect();
            keys.sort_unstable();
            keys.dedup();
            assert_eq!(keys.len(), p.keys.len(), "{code} {case}: an entity passed twice");
        }
    }
    if measured.is_some() {
        assert!(with_numbers > 0, "{code}: no fixture finding carries its measured number");
    }
    assert!(
        reports.iter().any(|(_, r)| r.passed.iter().any(|p| !p.keys.is_empty())),
        "{code}: no fixture has an entity that passes: the rule does not say what it judged"
    );
}

/// `q` is one of the numbers of `prose` (else of the message), to the precision the prose
/// shows: `32,256 B (31.5 KiB)` for 32256 bytes, `149.4 ms`, `19.99 %`, `8 data files`;
/// a count of 0 reads "no" or "none".
fn assert_agrees(q: Quantity, prose: Option<&str>, f: &Finding, what: &str) {
    let texts = [prose.unwrap_or(""), f.message.as_str()];
    let found = texts.iter().any(|t| {
        numbers(t).iter().any(|&(v, unit)| match (q.unit, unit) {
            (Bytes, Some(mult)) if mult > 0.0 => (v * mult - q.value).abs() <= q.value * 0.005 + 0.5,
            (Ms, Some(m)) if m == MS => (v - q.value).abs() <= 0.05 + 1e-9,
            (Percent, Some(p)) if p == PERCENT => (v - q.value).abs() <= 0.051,
            (Count, _) => v == q.value,
            _ => false,
        }) || (q.unit == Count && q.value == 0.0 && (t.contains("no ") || t.contains("none")))
    });
    assert!(
        found,
        "{what}: {} {} not in {:?} nor the message {:?}",
        q.value,
        q.unit.as_str(),
        prose,
        f.message
    );
}

const MS: f64 = -1.0;
const PERCENT: f64 = -2.0;

/// The numbers of `text` with their unit: a byte multiplier (`B` 1, `KiB` 1024, ...), [`MS`],
/// [`PERCENT`], or `None` for a bare number.
fn numbers(text: &str) -> Vec<(f64, Option<f64>)> {
    let b = text.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.')) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len()
            && (b[i].is_ascii_digit()
                || (matches!(b[i], b',' | b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit)))
        {
            i += 1;
        }
        let Ok(v) = text[start..i].replace(',', "").parse::<f64>() else { continue };
        let rest = text[i..].trim_start_matches(' ');
        let word: String = rest.chars().take_while(|c| c.is_ascii_alphabetic() || *c == '%').collect();
        let unit = match word.as_str() {
            "B" => Some(1.0),
            "KiB" => Some(1024.0),
            "MiB" => Some(1024.0 * 1024.0),
            "GiB" => Some(1024.0 * 1024.0 * 1024.0),
            "TiB" => Some(1024.0f64.powi(4)),
            "ms" => Some(MS),
            "%" => Some(PERCENT),
            _ => None,
        };
        out.push((v, unit));
    }
    out
}

#[test]
fn numbers_are_read_with_their_units() {
    let n = numbers("partition starts at 32,256 B (31.5 KiB), 12.5 % of 8 data files; 149.4 ms, v2");
    assert_eq!(
        n,
        [(32256.0, Some(1.0)), (31.5, Some(1024.0)), (12.5, Some(PERCENT)), (8.0, None), (149.4, Some(MS))]
    );
}
