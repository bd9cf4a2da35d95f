//! `spindle plan`: a host's findings turned into an ordered change plan. The builtin rules know
//! their remedies, so the plan is built here, from the same facts, quoting helpers and targets
//! the rules' fixes use (the target of each step is the finding's expected value). It is never
//! run: the writers in `spindle-report` lay it out for a DBA to review, edit and run.
//!
//! Order: online changes (growth, tempdb and log files), changes that take effect at a restart
//! (tempdb moved, a privilege granted), then each outage that needs files offline (databases
//! offline, files copied off, the volume rebuilt aligned, formatted, and on a virtual disk with
//! the right columns and interleave, files copied back, databases online), then what a person
//! must do: a SAN's stripe unit, a plugin's fix, a latency to investigate.

mod files;
mod growth;
mod manual;
mod on_volume;
mod rebuild;
mod subject;
#[cfg(test)]
mod tests;

use spindle_core::facts::OsFamily;
use spindle_core::fast_hash::FastMap;
use spindle_core::finding::Finding;
use spindle_core::plan::{Addressed, Phase, Plan, Remedy, Step};
use spindle_core::quote::{self, Audit};
use spindle_core::untrusted;
use spindle_core::view::HostView;

/// How the plan is laid out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlanOptions {
    /// Within each phase, the step with the largest expected gain first.
    pub by_gain: bool,
}

/// The plan for one host's findings: every unwaived finding is addressed by a step, automatic
/// where spindle can write the commands safely, manual where it cannot.
pub fn build(view: &HostView, findings: &[Finding], options: PlanOptions) -> Plan {
    let rules = crate::all();
    let remedies_of = |f: &Finding| -> &'static [Remedy] {
        rules.binary_search_by(|r| r.meta.code.cmp(f.code.as_str())).map_or(&[], |at| rules[at].meta.remedies)
    };
    let mut b = Builder {
        view,
        subjects: subject::Subjects::of_view(view),
        os_volumes: crate::volume_os::OsVolumes::of_view(view),
        on_volumes: on_volume::FilesOnVolumes::of_view(view),
        linux: view.host.os_family == Some(OsFamily::Linux),
        findings: findings.iter().filter(|f| !f.is_waived()).collect(),
        remedies: findings.iter().filter(|f| !f.is_waived()).map(remedies_of).collect(),
        waived: findings.iter().filter(|f| f.is_waived()).map(|f| (f, remedies_of(f))).collect(),
        used: vec![],
        steps: vec![],
        unit: 0,
        in_unit: false,
        unit_refused: vec![],
        audit: Audit::open(),
        growth_mib: FastMap::default(),
    };
    b.used = vec![false; b.findings.len()];
    growth::steps(&mut b);
    files::fenced_tsql_steps(&mut b);
    files::mount_options(&mut b);
    rebuild::steps(&mut b);
    files::moves(&mut b);
    manual::steps(&mut b);
    let mut steps = std::mem::take(&mut b.steps);
    for s in &mut steps {
        refuse_unsafe_commands(s);
    }
    let mut plan = Plan {
        host: view.host_name().to_string(),
        os: if b.linux { "linux" } else { "windows" }.to_string(),
        old_windows: !b.linux && rebuild::old_windows(view),
        steps,
    };
    plan.order(options.by_gain);
    plan
}

/// What the step builders share: the host, its unwaived findings and which of them a step
/// already addresses.
pub(crate) struct Builder<'v> {
    pub view: &'v HostView,
    subjects: subject::Subjects<'v>,
    /// Which volumes hold the running system, decided once for the host.
    pub os_volumes: crate::volume_os::OsVolumes<'v>,
    /// The files on each volume, gathered once for the host.
    pub on_volumes: on_volume::FilesOnVolumes<'v>,
    pub linux: bool,
    pub findings: Vec<&'v Finding>,
    /// The remedies each finding's rule declares, by index into `findings` (none for a plugin's).
    remedies: Vec<&'static [Remedy]>,
    /// The waived findings, with their rules' remedies: a step that rebuilds a volume anyway
    /// names the waivers it could lift at no extra cost.
    pub waived: Vec<(&'v Finding, &'static [Remedy])>,
    used: Vec<bool>,
    pub steps: Vec<Step>,
    /// The unit the next step joins (see [`Step::unit`]).
    unit: u32,
    /// Between [`Builder::begin_unit`] and [`Builder::end_unit`]: steps share one unit.
    in_unit: bool,
    /// Why the open unit's steps may not run as commands: one refused step refuses them all (an
    /// outage whose offline step is manual must not copy or format anything).
    unit_refused: Vec<String>,
    /// Records every name the steps' commands quote that fails [`quote::refusal`].
    audit: Audit,
    /// The fixed increments the growth step gives files: database, logical name, MiB.
    pub growth_mib: FastMap<(String, String), u64>,
}

impl<'v> Builder<'v> {
    /// The findings no step addresses yet whose rule declares a remedy `wanted` accepts, with
    /// their index and that remedy (the first accepted, in the rule's order).
    pub fn open(&self, wanted: impl Fn(Remedy) -> bool) -> Vec<(usize, &'v Finding, Remedy)> {
        self.findings
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.used[*i])
            .filter_map(|(i, f)| self.remedies[i].iter().copied().find(|r| wanted(*r)).map(|r| (i, *f, r)))
            .collect()
    }

    /// What the finding with entity key `key` is about.
    pub fn subject(&self, key: &str) -> subject::Subject<'v> {
        self.subjects.of(key)
    }

    /// The remedies the rule of finding `i` declares.
    pub fn remedies(&self, i: usize) -> &'static [Remedy] {
        self.remedies[i]
    }

    /// Marks findings as addressed by `step` and adds it. `names` are the names from the
    /// snapshot its commands quote: one that holds a newline or another character a terminal or
    /// an editor acts on or hides makes the step manual (see [`refuse_unsafe_commands`]).
    ///
    /// Every name the step's commands quoted since the last step was added went through
    /// [`quote::refusal`] (see [`Audit`]): one refused makes the step manual, with the reason.
    pub fn add(&mut self, mut step: Step, addressed: &[usize], names: &[&str]) {
        let mut refused = self.audit.take();
        refused.extend(names.iter().filter_map(|n| quote::refusal(n)));
        if self.in_unit {
            for r in &refused {
                if !self.unit_refused.contains(r) {
                    self.unit_refused.push(r.clone());
                }
            }
        }
        if !refused.is_empty() {
            make_manual(&mut step, &refused);
        }
        step.unit = self.unit;
        if !self.in_unit {
            self.unit += 1;
        }
        let mut gain = None;
        for &i in addressed {
            if !self.used[i] {
                self.used[i] = true;
                step.addresses.push(addressed_of(self.findings[i]));
                gain = spindle_core::gain::best(gain, self.findings[i].gain.as_ref());
            }
        }
        // The rules' own estimates: the step that fixes a finding gains what the finding says.
        if step.gain.is_none() {
            step.gain = gain.cloned();
        }
        self.steps.push(step);
    }

    /// Steps added from here to [`Builder::end_unit`] run together, in order.
    pub fn begin_unit(&mut self) {
        self.in_unit = true;
    }

    pub fn end_unit(&mut self) {
        let refused = std::mem::take(&mut self.unit_refused);
        if !refused.is_empty() {
            let unit = self.unit;
            for s in self.steps.iter_mut().filter(|s| s.unit == unit) {
                make_manual(s, &refused);
            }
        }
        self.in_unit = false;
        self.unit += 1;
    }

    /// Whether commands may quote these names: none fails [`quote::refusal`].
    pub fn safe(names: &[&str]) -> bool {
        names.iter().all(|n| quote::refusal(n).is_none())
    }

    /// The increment the plan's growth step gives this file, in MiB.
    pub fn planned_growth_mib(&self, db: &str, logical: &str) -> Option<u64> {
        self.growth_mib.get(&(db.to_string(), logical.to_string())).copied()
    }

    pub fn is_used(&self, i: usize) -> bool {
        self.used[i]
    }
}

pub(crate) fn addressed_of(f: &Finding) -> Addressed {
    Addressed { code: f.code.clone(), entity: f.entity.label.clone() }
}

/// A step whose commands hold a character a terminal or an editor would act on or hide (a
/// newline or a bidirectional override inside a database name) is not written as commands: such
/// a name could end a statement, or show a reviewer something other than what runs. The step
/// becomes manual and says why.
fn refuse_unsafe_commands(step: &mut Step) {
    let unsafe_text = |t: &str| t.chars().any(|c| c != '\n' && untrusted::is_unsafe(c));
    if step.commands.iter().chain(&step.rollback).any(|c| unsafe_text(&c.text)) {
        make_manual(step, &["a name it uses holds a control, invisible or bidirectional character".into()]);
    }
}

/// Turns `step` into words only, saying why (`reasons`, from [`quote::refusal`]).
fn make_manual(step: &mut Step, reasons: &[String]) {
    if step.phase != Phase::Manual || !step.commands.is_empty() {
        step.commands.clear();
        step.rollback.clear();
        step.phase = Phase::Manual;
        step.why.push_str(&format!(
            " spindle wrote no commands for it: {}. Rename the object, or write the commands by hand.",
            reasons.join("; ")
        ));
    }
}
