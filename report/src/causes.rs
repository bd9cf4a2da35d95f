//! The checks not evaluated on a host, grouped by the fact they miss: what the text, concise,
//! Markdown and HTML reports each say once per missing fact instead of once per check.

use spindle_core::finding::NotEvaluated;

/// Checks not evaluated for one missing fact.
#[derive(Debug)]
pub(crate) struct Cause<'a> {
    pub missing: &'a str,
    /// Distinct codes, in order of first appearance.
    pub codes: Vec<&'a str>,
    pub checks: usize,
    /// Every check of the fact was host-wide (the rule as a whole), not per entity.
    pub host_wide: bool,
    /// Distinct reasons collectors gave, in order of first appearance.
    pub reasons: Vec<&'a str>,
}

/// The checks not evaluated, one cause per missing fact, in order of first appearance.
pub(crate) fn causes(entries: &[NotEvaluated]) -> Vec<Cause<'_>> {
    let mut out: Vec<Cause<'_>> = vec![];
    for n in entries {
        let i = match out.iter().position(|c| c.missing == n.missing) {
            Some(i) => i,
            None => {
                out.push(Cause {
                    missing: &n.missing,
                    codes: vec![],
                    checks: 0,
                    host_wide: true,
                    reasons: vec![],
                });
                out.len() - 1
            }
        };
        let c = &mut out[i];
        c.checks += 1;
        c.host_wide &= n.entity.is_none();
        if !c.codes.contains(&n.code.as_str()) {
            c.codes.push(&n.code);
        }
        if let Some(r) = n.reason.as_deref().filter(|r| !c.reasons.contains(r)) {
            c.reasons.push(r);
        }
    }
    out
}
