//! A number with its unit: what findings measure and expect, and what gain estimates range
//! over. A leaf, so that findings and gains can both speak it without reaching into each other.

/// The unit of a [`Quantity`]: bytes and milliseconds, as everywhere in spindle; percentages
/// from 0 to 100; counts of things (files, disks, columns, growths).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    Bytes,
    Ms,
    Percent,
    Count,
}

impl Unit {
    /// The suffix machine formats put in a key's name (`measured_bytes`, `expected_ms`).
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Bytes => "bytes",
            Unit::Ms => "ms",
            Unit::Percent => "percent",
            Unit::Count => "count",
        }
    }
}

/// A number with its unit, as a finding measured or expected it: the machine-readable twin of
/// [`Finding::measured`](crate::finding::Finding::measured) and
/// [`Finding::expected`](crate::finding::Finding::expected), which are prose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantity {
    pub value: f64,
    pub unit: Unit,
}

impl Quantity {
    pub fn bytes(n: u64) -> Quantity {
        Quantity { value: n as f64, unit: Unit::Bytes }
    }

    pub fn ms(ms: f64) -> Quantity {
        Quantity { value: ms, unit: Unit::Ms }
    }

    /// `percent` from 0 to 100 (not a share: 12.5 for 12.5 %).
    pub fn percent(percent: f64) -> Quantity {
        Quantity { value: percent, unit: Unit::Percent }
    }

    pub fn count(n: u64) -> Quantity {
        Quantity { value: n as f64, unit: Unit::Count }
    }
}
