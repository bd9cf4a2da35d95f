//! Runs the active rules over one host's view, then applies waivers.

mod contain;

use crate::date::Date;
use crate::facts::OsFamily;
use crate::fast_hash::FastSet;
use crate::finding::{AppliedWaiver, Finding, NotApplicable, NotEvaluated, Passed, RuleError};
use crate::glob::Glob;
use crate::rule::{Ctx, Need, Recorded, RuleGroup};
use crate::view::{HostView, collector_reason};

// Part of the rule contract (a rule group is handed its active rules); re-exported here,
// where packs make them.
pub use crate::rule::ActiveRule;

/// A rule selector as packs write it: a code (`ALN001`), a code prefix (`ALN`, `acme/`) or a
/// rule name (`partition-offset-alignment`).
pub fn selector_matches(selector: &str, code: &str, name: &str) -> bool {
    code.starts_with(selector) || selector == name
}

/// Whether selecting `selector` turns the rule on: as [`selector_matches`], except that a
/// preview rule is turned on only by its exact code or name, never through a prefix.
pub fn selector_enables(selector: &str, code: &str, meta: &crate::rule::RuleMeta) -> bool {
    match meta.stage {
        crate::rule::Stage::Stable => selector_matches(selector, code, meta.name),
        crate::rule::Stage::Preview => selector == code || selector == meta.name,
    }
}

/// An accepted finding: it stays in every report, marked waived, until it expires.
#[derive(Debug, Clone)]
pub struct Waiver {
    pub rules: Vec<String>,
    /// Matched against the entity's key (`sql01/disk:2/partition:1`) and its label.
    pub entity: Glob,
    pub reason: String,
    pub expires: Option<Date>,
    /// The pack file that holds it.
    pub source: String,
}

impl Waiver {
    /// Whether it covers `f`: one of its selectors matches the rule, its glob the entity.
    pub fn matches(&self, f: &Finding) -> bool {
        self.rules.iter().any(|s| selector_matches(s, &f.code, &f.rule))
            && (self.entity.matches(&f.entity.key) || self.entity.matches(&f.entity.label))
    }
}

/// What the rules said about one host.
#[derive(Debug, Clone, Default)]
pub struct HostReport {
    pub host: String,
    pub findings: Vec<Finding>,
    pub not_evaluated: Vec<NotEvaluated>,
    /// Entities rules had the facts for and chose not to judge: never a failure.
    pub not_applicable: Vec<NotApplicable>,
    /// What each rule judged and found nothing wrong with, by rule (rules with no pass are left
    /// out). Builtin rules only: plugins cannot yet say what they judged.
    pub passed: Vec<Passed>,
    pub errors: Vec<RuleError>,
    /// Rules that ran to the end on this host: their sections were there and they did not fail.
    pub rules_run: usize,
    /// Rules that judged something on this host: a finding or a pass, or — as a plugin cannot
    /// say what it judged — a plugin group that ran to the end.
    pub rules_judged: usize,
    /// Why spindle could not judge this host at all; empty when it could. A host no rule could
    /// be evaluated on passes no check, so its report must not read as clean: the run is
    /// incomplete. Callers add their own reasons (a fact the user required that is missing).
    pub not_judged: Vec<String>,
}

impl HostReport {
    /// Findings that count: not waived (or waived by a waiver that has expired).
    pub fn counting(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| !f.is_waived())
    }
}

/// Checks one host. `today` decides which waivers have expired.
///
/// A rule (or group) that panics is contained like a plugin that traps: it reports nothing for
/// the host, a [`RuleError`] says so (the run is incomplete), and every other rule still runs.
pub fn check_host(rules: &[ActiveRule<'_>], view: &HostView, waivers: &[Waiver], today: Date) -> HostReport {
    let mut report = HostReport { host: view.host_name().to_string(), ..Default::default() };
    let mut groups: Vec<(&dyn RuleGroup, Vec<&ActiveRule<'_>>)> = vec![];
    for active in rules {
        let meta = active.rule.meta();
        if let Some(missing) = meta.needs.iter().find(|n| !n.present(view)) {
            if let Some(reason) = cannot_exist(view, *missing) {
                report.not_applicable.push(NotApplicable {
                    code: active.code.clone(),
                    rule: meta.name.to_string(),
                    entity: view.host.entity(),
                    field: missing.fact().to_string(),
                    reason,
                });
                continue;
            }
            report.not_evaluated.push(NotEvaluated {
                code: active.code.clone(),
                rule: meta.name.to_string(),
                entity: None,
                missing: missing.fact().to_string(),
                reason: collector_reason(view, missing.fact()),
            });
            continue;
        }
        if let Some(group) = active.rule.group() {
            match groups.iter_mut().find(|(g, _)| g.id() == group.id()) {
                Some((_, members)) => members.push(active),
                None => groups.push((group, vec![active])),
            }
            continue;
        }
        let mut cx = Ctx::new(view, &active.params, &active.code, meta, active.severity);
        match contain::contain(|| active.rule.check(&mut cx)) {
            Ok(()) => {
                let mut recorded = cx.into_recorded();
                apply_pack_severity(active, &mut recorded.findings);
                let passed = passes(active, meta.name, &mut recorded);
                if passed.is_some() || !recorded.findings.is_empty() {
                    report.rules_judged += 1;
                }
                report.passed.extend(passed);
                report.findings.extend(recorded.findings);
                report.not_evaluated.extend(recorded.not_evaluated);
                report.not_applicable.extend(recorded.not_applicable);
                report.rules_run += 1;
            }
            Err(panic) => {
                let what = format!("rule {} ({})", active.code, meta.name);
                report.errors.push(RuleError::panicked(&active.code, &what, &panic));
            }
        }
    }
    for (group, members) in groups {
        let outcome = contain::contain(|| group.check(view, &members))
            .unwrap_or_else(|panic| Err(RuleError::panicked(&group_code(&members), group.id(), &panic)));
        match outcome {
            Ok((mut findings, not_evaluated)) => {
                for active in &members {
                    apply_pack_severity(active, findings.iter_mut().filter(|f| f.code == active.code));
                }
                report.findings.extend(findings);
                report.not_evaluated.extend(not_evaluated);
                report.rules_run += members.len();
                report.rules_judged += members.len();
            }
            Err(e) => report.errors.push(e),
        }
    }
    if report.rules_run == 0 {
        report.not_judged.push(no_rule_evaluated(rules.len(), &report));
    } else if report.rules_judged == 0 {
        report.not_judged.push(nothing_judged(rules, &report));
    }
    for f in &mut report.findings {
        if let Some(w) = waivers.iter().find(|w| w.matches(f)) {
            f.waiver = Some(AppliedWaiver {
                reason: w.reason.clone(),
                expires: w.expires.map(|d| d.to_string()),
                source: w.source.clone(),
                expired: w.expires.is_some_and(|d| d < today),
            });
        }
    }
    report
}

/// What `active` judged and passed: its judged entities, each once, less those it recorded a
/// finding, not-evaluated or not-applicable entry for. Keyed by entity key; hashed only when a
/// rule judged more than a walk handles well (a host of thousands of disks).
fn passes(active: &ActiveRule<'_>, rule: &str, recorded: &mut Recorded<'_>) -> Option<Passed> {
    const WALK: usize = 32;
    let judged = std::mem::take(&mut recorded.judged);
    if judged.is_empty() {
        return None;
    }
    let failed = recorded
        .findings
        .iter()
        .map(|f| f.entity.key.as_str())
        .chain(recorded.not_evaluated.iter().filter_map(|n| n.entity.as_ref().map(|e| e.key.as_str())))
        .chain(recorded.not_applicable.iter().map(|n| n.entity.key.as_str()));
    let mut keys: Vec<String> = Vec::with_capacity(judged.len());
    if judged.len() <= WALK {
        let failed: Vec<&str> = failed.collect();
        for k in judged {
            if !failed.contains(&k.as_ref()) && !keys.iter().any(|x| *x == k) {
                keys.push(k.into_owned());
            }
        }
    } else {
        let mut seen: FastSet<&str> = failed.collect();
        seen.reserve(judged.len());
        for k in &judged {
            if seen.insert(k) {
                keys.push(k.to_string());
            }
        }
    }
    (!keys.is_empty()).then(|| Passed { code: active.code.clone(), rule: rule.to_string(), keys })
}

/// Why a section a rule needs can never be collected on this host, when it cannot: Storage
/// Spaces exist only on Windows, so a Linux snapshot without `storage_pools` or `virtual_disks`
/// (written by a collector older than the one that writes them empty) lacks nothing.
fn cannot_exist(view: &HostView, need: Need) -> Option<String> {
    match need {
        Need::StoragePools | Need::VirtualDisks if view.host.os_family == Some(OsFamily::Linux) => Some(
            format!("Storage Spaces exist only on Windows: a Linux host has no {} to collect", need.fact()),
        ),
        _ => None,
    }
}

/// Why no rule of `active` rules ran to the end on the host `report` is about: the snapshot
/// sections they lack, and how many failed.
fn no_rule_evaluated(active: usize, report: &HostReport) -> String {
    if active == 0 {
        return "no rule is active: the packs select none".into();
    }
    let mut missing: Vec<&str> = vec![];
    for n in report.not_evaluated.iter().filter(|n| n.entity.is_none()) {
        if !missing.contains(&n.missing.as_str()) {
            missing.push(&n.missing);
        }
    }
    let mut why = if active == 1 {
        "the one active rule could not be evaluated".to_string()
    } else {
        format!("none of the {active} active rules could be evaluated")
    };
    if !missing.is_empty() {
        why.push_str(&format!(": the snapshots lack {}", missing.join(", ")));
    }
    match report.errors.len() {
        0 => {}
        1 => why.push_str(if missing.is_empty() { ": 1 rule failed" } else { ", and 1 rule failed" }),
        n => why.push_str(&if missing.is_empty() {
            format!(": {n} rule errors")
        } else {
            format!(", and {n} rule errors")
        }),
    }
    why
}

/// Why a host on which some rules ran has nothing verified: which rules ran and judged nothing,
/// and the facts the checks they could not make lacked. Not-applicable entries do not count as
/// judged: a rule that declined every entity (412 reads, too few on every file) verified
/// nothing, and a host passed on that alone would read as clean.
fn nothing_judged(rules: &[ActiveRule<'_>], report: &HostReport) -> String {
    const SHOWN: usize = 6;
    let ran: Vec<&str> = rules
        .iter()
        .map(|a| a.code.as_str())
        .filter(|c| !report.not_evaluated.iter().any(|n| n.entity.is_none() && n.code == *c))
        .filter(|c| !report.errors.iter().any(|e| e.code == *c))
        .collect();
    let mut codes = ran.iter().take(SHOWN).copied().collect::<Vec<_>>().join(", ");
    if ran.len() > SHOWN {
        codes.push_str(&format!(" and {} more", ran.len() - SHOWN));
    }
    let mut why = if report.rules_run == 1 {
        format!("nothing was verified: the one rule that ran ({codes}) judged nothing")
    } else {
        format!("nothing was verified: the {} rules that ran ({codes}) judged nothing", report.rules_run)
    };
    let mut missing: Vec<&str> = vec![];
    for n in &report.not_evaluated {
        if !missing.contains(&n.missing.as_str()) {
            missing.push(&n.missing);
        }
    }
    let mut parts = vec![];
    if !missing.is_empty() {
        let shown = missing.iter().take(SHOWN).copied().collect::<Vec<_>>().join(", ");
        let more = missing.len().saturating_sub(SHOWN);
        parts.push(if more > 0 {
            format!("the facts lack {shown} and {more} more")
        } else {
            format!("the facts lack {shown}")
        });
    }
    match report.not_applicable.len() {
        0 => {}
        1 => parts.push("1 check was not applicable".into()),
        n => parts.push(format!("{n} checks were not applicable")),
    }
    if parts.is_empty() {
        parts.push("the facts hold nothing they check".into());
    }
    why.push_str(": ");
    why.push_str(&parts.join("; "));
    why
}

/// The code a group's error carries: `acme/*` for a plugin's rules (as the plugin host names a
/// plugin that failed), else the members' codes.
fn group_code(members: &[&ActiveRule<'_>]) -> String {
    let namespace = |a: &&ActiveRule<'_>| a.code.split_once('/').map(|(ns, _)| ns.to_string());
    match members.first().and_then(namespace) {
        Some(ns) if members.iter().all(|m| namespace(m).as_deref() == Some(&ns)) => format!("{ns}/*"),
        _ => members.iter().map(|m| m.code.as_str()).collect::<Vec<_>>().join(","),
    }
}

/// A pack's severity is the user's word on the rule: it replaces the grades a rule may give its
/// findings (LAT001's warning at 20 ms and error at 100 ms).
fn apply_pack_severity<'f>(active: &ActiveRule<'_>, findings: impl IntoIterator<Item = &'f mut Finding>) {
    if active.severity != active.rule.meta().severity {
        for f in findings {
            f.severity = active.severity;
        }
    }
}
