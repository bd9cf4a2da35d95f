//! Rule parameters: declared by the rule with a default, set by packs, read by the check.
//!
//! Packs and the plugin contract carry parameters by name ([`Params`]); a builtin rule's check
//! reads them as the typed fields of the struct [`declare_rule!`](crate::declare_rule) generates
//! ([`FromParams`]), so a misspelt name or a wrong type is a compile error, not a panic on a host.

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

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

/// As JSON: a number or a string.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
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

/// A rule's parameter values by name: its defaults, overridden by the active packs. What packs
/// and the plugin wire format carry; a builtin rule reads [`Params::typed`] instead.
#[derive(Clone, Default)]
pub struct Params {
    values: Vec<(String, ParamValue)>,
    /// Which pack set each value that is not the rule's default (name, pack path or
    /// `builtin:NAME`): what reports show as the parameters applied. Ignored by `==`.
    set_by: Vec<(String, String)>,
    /// The rule's typed parameters, built from `values` by the first host's check and shared by
    /// every later one (one [`ActiveRule`](crate::engine::ActiveRule) holds one `Params` for the
    /// whole run). Dropped by [`Params::set`]; ignored by `==` and `Debug`.
    typed: OnceLock<Arc<dyn Any + Send + Sync>>,
}

impl fmt::Debug for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Params").field("values", &self.values).finish()
    }
}

impl PartialEq for Params {
    fn eq(&self, other: &Self) -> bool {
        self.values == other.values
    }
}

impl Params {
    pub fn defaults(specs: &[ParamSpec]) -> Self {
        Params {
            values: specs.iter().map(|s| (s.name.to_string(), s.default.into())).collect(),
            set_by: vec![],
            typed: OnceLock::new(),
        }
    }

    pub fn set(&mut self, name: &str, value: ParamValue) {
        self.typed = OnceLock::new();
        match self.values.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => self.values.push((name.to_string(), value)),
        }
    }

    /// [`Params::set`], recording that the pack `source` set it (a later pack's value replaces
    /// the earlier one, and its source with it).
    pub fn set_from(&mut self, name: &str, value: ParamValue, source: &str) {
        self.set(name, value);
        match self.set_by.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = source.to_string(),
            None => self.set_by.push((name.to_string(), source.to_string())),
        }
    }

    /// The pack that set `name`, or `None` when the value is the rule's default (or was set
    /// without a source).
    pub fn set_by(&self, name: &str) -> Option<&str> {
        self.set_by.iter().find(|(n, _)| n == name).map(|(_, s)| s.as_str())
    }

    pub fn get(&self, name: &str) -> Option<&ParamValue> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &ParamValue)> {
        self.values.iter().map(|(n, v)| (n.as_str(), v))
    }

    /// The values as the rule's typed struct `T`: built on first use, then shared.
    pub fn typed<T: FromParams>(&self) -> Arc<T> {
        let cached = self.typed.get_or_init(|| Arc::new(T::from_params(self)));
        // Only a `Params` read as two different types misses (one map handed to two rules);
        // it is then read afresh rather than cached twice.
        Arc::clone(cached).downcast::<T>().unwrap_or_else(|_| Arc::new(T::from_params(self)))
    }

    /// [`Params::typed`] borrowed for as long as the map: `None` only when the map was first
    /// read as another type.
    pub fn typed_ref<T: FromParams>(&self) -> Option<&T> {
        self.typed.get_or_init(|| Arc::new(T::from_params(self))).downcast_ref::<T>()
    }

    /// One value as the field type its kind gives it, the declared default when the map lacks
    /// it. Called by the code `declare_rule!` generates, once per parameter and active rule.
    /// Packs and the plugin contract validate values against the kind before any check runs, so
    /// a value that does not convert is a bug in the rule's declaration: it panics, and the
    /// engine reports the rule failed.
    #[doc(hidden)]
    pub fn read<T: ParamType>(&self, name: &str, kind: ParamKind, default: ParamDefault) -> T {
        let value = self.get(name).map_or_else(|| Cow::Owned(default.into()), Cow::Borrowed);
        T::from_value(kind, &value)
            .unwrap_or_else(|| panic!("rule parameter {name} = {value} does not read as {}", kind.describe()))
    }
}

/// A rule's parameters as a struct with one typed field per parameter, made by
/// [`declare_rule!`](crate::declare_rule) from the same declaration as the rule's
/// [`ParamSpec`]s.
pub trait FromParams: Any + Send + Sync {
    fn from_params(params: &Params) -> Self;
}

/// The parameters of a rule that declares none (`params: []`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoParams;

impl FromParams for NoParams {
    fn from_params(_: &Params) -> Self {
        NoParams
    }
}

/// A field type of a typed parameter struct, read from a value its kind has accepted.
pub trait ParamType: Sized {
    fn from_value(kind: ParamKind, value: &ParamValue) -> Option<Self>;
}

/// `Bytes`: validated whole and non-negative.
impl ParamType for u64 {
    fn from_value(_: ParamKind, value: &ParamValue) -> Option<Self> {
        match value {
            ParamValue::Num(n) => Some(*n as u64),
            ParamValue::Text(_) => None,
        }
    }
}

/// `Count`: validated whole and non-negative; a count beyond `u32::MAX` (more disks, files or
/// CPUs than any host has) reads as `u32::MAX`.
impl ParamType for u32 {
    fn from_value(_: ParamKind, value: &ParamValue) -> Option<Self> {
        match value {
            ParamValue::Num(n) => Some(*n as u32),
            ParamValue::Text(_) => None,
        }
    }
}

/// `Ms`, `Percent`, `Factor`.
impl ParamType for f64 {
    fn from_value(_: ParamKind, value: &ParamValue) -> Option<Self> {
        match value {
            ParamValue::Num(n) => Some(*n),
            ParamValue::Text(_) => None,
        }
    }
}

/// `Choice(&["a", "b"])`: the declared word, so the field can only hold one of them.
impl ParamType for &'static str {
    fn from_value(kind: ParamKind, value: &ParamValue) -> Option<Self> {
        match (kind, value) {
            (ParamKind::Choice(words), ParamValue::Text(t)) => words.iter().find(|w| **w == t).copied(),
            _ => None,
        }
    }
}

/// `Choice(T)`: the word read as `T`.
impl<T: Choice> ParamType for T {
    fn from_value(_: ParamKind, value: &ParamValue) -> Option<Self> {
        match value {
            ParamValue::Text(t) => T::from_word(t),
            ParamValue::Num(_) => None,
        }
    }
}

/// A type a choice parameter reads into (`kind: Choice(Workload)`): its words are the ones
/// packs may write, and every one of them must read. `Debug`, `Clone` and `PartialEq` because
/// the parameter struct derives them.
pub trait Choice: Sized + fmt::Debug + Clone + PartialEq {
    const WORDS: &'static [&'static str];
    fn from_word(word: &str) -> Option<Self>;
}

/// `"no"` or `"yes"`.
impl Choice for bool {
    const WORDS: &'static [&'static str] = &["no", "yes"];
    fn from_word(word: &str) -> Option<Self> {
        match word {
            "no" => Some(false),
            "yes" => Some(true),
            _ => None,
        }
    }
}

/// The field type of a parameter of kind `$kind` (see [`declare_rule!`](crate::declare_rule)).
#[doc(hidden)]
#[macro_export]
macro_rules! __param_type {
    (Bytes) => { u64 };
    (Count) => { u32 };
    (Ms) => { f64 };
    (Percent) => { f64 };
    (Factor) => { f64 };
    (Choice(&[$($word:literal),* $(,)?])) => { &'static str };
    (Choice($t:ty)) => { $t };
}

/// The [`ParamKind`] of a parameter declared with kind `$kind`.
#[doc(hidden)]
#[macro_export]
macro_rules! __param_kind {
    (Choice(&[$($word:literal),* $(,)?])) => { $crate::params::ParamKind::Choice(&[$($word),*]) };
    (Choice($t:ty)) => { $crate::params::ParamKind::Choice(<$t as $crate::params::Choice>::WORDS) };
    ($kind:ident) => { $crate::params::ParamKind::$kind };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declare::Workload;

    struct Two {
        limit: u64,
        mode: &'static str,
    }

    impl FromParams for Two {
        fn from_params(p: &Params) -> Self {
            Two {
                limit: p.read("limit", ParamKind::Bytes, ParamDefault::Num(4096.0)),
                mode: p.read("mode", ParamKind::Choice(&["a", "b"]), ParamDefault::Text("a")),
            }
        }
    }

    #[test]
    fn typed_values_are_built_once_and_rebuilt_after_a_change() {
        let mut p = Params::default();
        let first = p.typed::<Two>();
        assert_eq!((first.limit, first.mode), (4096, "a"), "an unset parameter reads its default");
        assert!(Arc::ptr_eq(&first, &p.typed::<Two>()), "read once, then shared");
        p.set("mode", ParamValue::Text("b".into()));
        p.set("limit", ParamValue::Num(65536.0));
        let changed = p.typed::<Two>();
        assert_eq!((changed.limit, changed.mode), (65536, "b"));
        assert_eq!(p.typed::<NoParams>().as_ref(), &NoParams, "another type is read afresh");
        assert_eq!(p.clone(), p, "the cache does not take part in equality");
    }

    #[test]
    #[should_panic(expected = "rule parameter limit = \"x\" does not read as bytes")]
    fn a_value_of_the_wrong_type_is_a_declaration_bug() {
        let mut p = Params::default();
        p.set("limit", ParamValue::Text("x".into()));
        p.typed::<Two>();
    }

    #[test]
    fn every_word_of_a_typed_choice_reads() {
        fn all_read<T: Choice>() -> bool {
            T::WORDS.iter().all(|w| T::from_word(w).is_some())
        }
        assert!(all_read::<bool>());
        assert!(all_read::<Workload>());
        assert_eq!(
            bool::from_value(ParamKind::Choice(bool::WORDS), &ParamValue::Text("yes".into())),
            Some(true)
        );
        assert_eq!(Workload::from_word("data-warehouse"), Some(Workload::DataWarehouse));
        assert_eq!(<&str>::from_value(ParamKind::Choice(&["a"]), &ParamValue::Text("b".into())), None);
        assert_eq!(u32::from_value(ParamKind::Count, &ParamValue::Num(1e12)), Some(u32::MAX));
    }
}
