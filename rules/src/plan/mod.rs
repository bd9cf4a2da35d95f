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
mod rebuild;
mod subject;
#[cfg(test)]
mod tests;

use spindle_core::facts::OsFamily;
use spindle_core::finding::Finding;
use spindle_core::plan::{Addressed, Phase, Plan, Step};
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
    let mut b = Builder {
        view,
        linux: view.host.os_family == Some(OsFamily::Linux),
        findings: findings.iter().filter(|f| !f.is_waived()).collect(),
        used: vec![],
        steps: vec![],
        unit: 0,
        in_unit: false,
    };
    b.used = vec![false; b.findings.len()];
    growth::steps(&mut b);
    files::fenced_tsql_steps(&mut b);
    files::mount_options(&mut b);
    rebuild::steps(&mut b);
    files::moves(&mut b);
    manual::steps(&mut b);
    let mut steps = b.steps;
    for s in &mut steps {
        refuse_unsafe_commands(s);
    }
    let mut plan = Plan {
        host: view.host_name().to_string(),
        os: if b.linux { "linux" } else { "windows" }.to_string(),
        steps,
    };
    plan.order(options.by_gain);
    plan
}

/// What the step builders share: the host, its unwaived findings and which of them a step
/// already addresses.
pub(crate) struct Builder<'v> {
    pub view: &'v HostView,
    pub linux: bool,
    pub findings: Vec<&'v Finding>,
    used: Vec<bool>,
    pub steps: Vec<Step>,
    /// The unit the next step joins (see [`Step::unit`]).
    unit: u32,
    /// Between [`Builder::begin_unit`] and [`Builder::end_unit`]: steps share one unit.
    in_unit: bool,
}

impl<'v> Builder<'v> {
    /// The findings of these rules no step addresses yet, with their index.
    pub fn open(&self, codes: &[&str]) -> Vec<(usize, &'v Finding)> {
        self.findings
            .iter()
            .enumerate()
            .filter(|(i, f)| !self.used[*i] && codes.contains(&f.code.as_str()))
            .map(|(i, f)| (i, *f))
            .collect()
    }

    /// Marks findings as addressed by `step` and adds it. `names` are the names from the
    /// snapshot its commands quote: one that holds a newline or another character a terminal or
    /// an editor acts on or hides makes the step manual (see [`refuse_unsafe_commands`]).
    pub fn add(&mut self, mut step: Step, addressed: &[usize], names: &[&str]) {
        if !Self::safe(names) {
            make_manual(&mut step);
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
        self.in_unit = false;
        self.unit += 1;
    }

    /// Whether commands may quote these names: none holds a newline or another character a
    /// terminal or an editor acts on or hides.
    pub fn safe(names: &[&str]) -> bool {
        !names.iter().any(|n| n.chars().any(untrusted::is_unsafe))
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
        make_manual(step);
    }
}

fn make_manual(step: &mut Step) {
    if step.phase != Phase::Manual || !step.commands.is_empty() {
        step.commands.clear();
        step.rollback.clear();
        step.phase = Phase::Manual;
        step.why.push_str(
            " A name this step would use holds a control, invisible or bidirectional character, so \
             spindle wrote no commands for it: rename the object or write them by hand.",
        );
    }
}
