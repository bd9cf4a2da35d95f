//! What a collector could not read, each fact with why: the one list every collector keeps, and
//! what its `collectors[]` report carries as `not_collected`.

use spindle_core::facts::{CollectorReport, NotCollected};

/// The facts a collector could not read, with the reasons, in the order it found out.
///
/// It reads as a slice of [`NotCollected`], so callers of a collector that hands it over (the
/// image collector's [`ImageFacts`](crate::image::ImageFacts)) see the entries as they are.
#[derive(Clone, Default, PartialEq)]
pub struct Uncollected(Vec<NotCollected>);

impl Uncollected {
    /// Records that `fact` could not be read, and why.
    pub fn miss(&mut self, fact: impl Into<String>, reason: impl Into<String>) {
        self.0.push(NotCollected { fact: fact.into(), reason: reason.into() });
    }

    /// The value, or `None` after recording why `fact` could not be read.
    pub fn take<T>(&mut self, fact: impl Into<String>, r: Result<T, String>) -> Option<T> {
        r.map_err(|reason| self.miss(fact, reason)).ok()
    }

    /// One reason naming the entities it applies to (`what: a, b, c`), when there are any.
    pub fn miss_for(&mut self, fact: &str, what: &str, ids: &[String]) {
        if !ids.is_empty() {
            self.miss(fact, format!("{what}: {}", ids.join(", ")));
        }
    }

    /// Whether a reason is already recorded for `fact`.
    pub fn has(&self, fact: &str) -> bool {
        self.0.iter().any(|n| n.fact == fact)
    }

    /// One entry per fact, sorted by fact name, its distinct reasons joined by `; `: for a
    /// collector (WMI) that learns about one fact from several queries, so that a reader finds
    /// every reason for it in one place.
    pub fn merged_by_fact(self) -> Self {
        let mut by_fact: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for n in self.0 {
            let reasons = by_fact.entry(n.fact).or_default();
            if !reasons.contains(&n.reason) {
                reasons.push(n.reason);
            }
        }
        Self(
            by_fact
                .into_iter()
                .map(|(fact, reasons)| NotCollected { fact, reason: reasons.join("; ") })
                .collect(),
        )
    }

    /// The report of the collector named `name`, this crate's version, with these entries.
    pub fn report(self, name: &str) -> CollectorReport {
        CollectorReport {
            name: name.to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
            not_collected: self.0,
        }
    }
}

impl std::ops::Deref for Uncollected {
    type Target = [NotCollected];

    fn deref(&self) -> &[NotCollected] {
        &self.0
    }
}

/// As the list it holds, so a failed assertion on a collector's output shows the entries alone.
impl std::fmt::Debug for Uncollected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}
