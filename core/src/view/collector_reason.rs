//! Why a fact is missing, in the collector's own words.

use crate::view::HostView;

/// The reason a collector of `view` gave for not collecting `fact` (`collector: reason`), if any.
pub fn collector_reason(view: &HostView, fact: &str) -> Option<String> {
    let leaf = fact.rsplit(['.', '/']).next().unwrap_or(fact);
    view.collectors.iter().flat_map(|c| c.not_collected.iter().map(move |n| (c, n))).find_map(|(c, n)| {
        let nf = n.fact.as_str();
        (nf == fact || nf.ends_with(leaf) || fact.starts_with(nf))
            .then(|| format!("{}: {}", c.name, n.reason))
    })
}
