//! Typed rule parameters: declared by the rule with a default, set by packs, read by the check.

use std::fmt;

/// What a parameter holds; the unit is part of the kind and of the parameter's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A non-negative whole number of bytes.
    Bytes,
    /// Milliseconds (fractions allowed: an SSD's floor is 0.1 ms).
    Ms,
    /// A non-negative whole count.
    Count,
    /// A percentage, 0 to 100.
    Percent,
    /// A positive multiplier.
    Factor,
    /// One of a fixed set of words.
    Choice(&'static [&'static str]),
}

impl ParamKind {
    pub fn describe(self) -> String {
        match self {
            ParamKind::Bytes => "bytes (whole number)".into(),
            ParamKind::Ms => "milliseconds".into(),
            ParamKind::Count => "count (whole number)".into(),
            ParamKind::Percent => "percent (0 to 100)".into(),
            ParamKind::Factor => "factor (positive number)".into(),
            ParamKind::Choice(c) => {
                format!("one of {}", c.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", "))
            }
        }
    }

    /// Checks a value given in a pack; the error says what was expected.
    pub fn validate(self, v: &ParamValue) -> Result<(), String> {
        let ok = match (self, v) {
            (ParamKind::Bytes | ParamKind::Count, ParamValue::Num(n)) => *n >= 0.0 && n.fract() == 0.0,
            (ParamKind::Ms, ParamValue::Num(n)) => *n >= 0.0 && n.is_finite(),
            (ParamKind::Percent, ParamValue::Num(n)) => (0.0..=100.0).contains(n),
            (ParamKind::Factor, ParamValue::Num(n)) => *n > 0.0 && n.is_finite(),
            (ParamKind::Choice(c), ParamValue::Text(t)) => c.contains(&t.as_str()),
            _ => false,
        };
        if ok { Ok(()) } else { Err(format!("expected {}, found {v}", self.describe())) }
    }
}

/// A parameter's default, written in the rule's declaration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamDefault {
    Num(f64),
    Text(&'static str),
}

/// A parameter declared by a rule.
#[derive(Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: ParamKind,
    pub default: ParamDefault,
    pub doc: &'static str,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    Num(f64),
    Text(String),
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Num(n) => write!(f, "{n}"),
            ParamValue::Text(t) => write!(f, "\"{t}\""),
        }
    }
}

impl From<ParamDefault> for ParamValue {
    fn from(d: ParamDefault) -> Self {
        match d {
            ParamDefault::Num(n) => ParamValue::Num(n),
            ParamDefault::Text(t) => ParamValue::Text(t.to_string()),
        }
    }
}

/// A rule's parameter values: its defaults, overridden by the active packs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params {
    values: Vec<(String, ParamValue)>,
}

impl Params {
    pub fn defaults(specs: &[ParamSpec]) -> Self {
        Params { values: specs.iter().map(|s| (s.name.to_string(), s.default.into())).collect() }
    }

    pub fn set(&mut self, name: &str, value: ParamValue) {
        match self.values.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => self.values.push((name.to_string(), value)),
        }
    }

    pub fn get(&self, name: &str) -> Option<&ParamValue> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &ParamValue)> {
        self.values.iter().map(|(n, v)| (n.as_str(), v))
    }

    /// A numeric parameter. Packs are validated against the rule's specs before any check runs,
    /// so a missing or mistyped value here is a bug in the rule's declaration.
    pub fn num(&self, name: &str) -> f64 {
        match self.get(name) {
            Some(ParamValue::Num(n)) => *n,
            other => panic!("rule parameter {name} is not a declared number: {other:?}"),
        }
    }

    pub fn bytes(&self, name: &str) -> u64 {
        self.num(name) as u64
    }

    pub fn text(&self, name: &str) -> &str {
        match self.get(name) {
            Some(ParamValue::Text(t)) => t,
            other => panic!("rule parameter {name} is not a declared choice: {other:?}"),
        }
    }
}
