//! A change plan: what a DBA does, in order, to fix a host's findings. It is data, never run:
//! `spindle-rules` builds it from a host's facts and findings (the builtin rules know their
//! remedies), `spindle-report` writes it as a runbook or as scripts a person reviews and runs.
//!
//! Every command is already written for its language, with the host's real names quoted for it;
//! every other string (titles, notes) is untrusted prose the writers escape.

pub use crate::gain::Gain;

/// When a step can run. Steps run phase by phase, in this order: what works with everything
/// online first, what needs a restart next, what needs files offline after that; what no tool
/// can do safely is left to a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// Takes effect with the databases online (T-SQL settings, a remount).
    Online,
    /// Takes effect at the next start of the SQL Server service (file moves of tempdb, a
    /// privilege granted to the service account).
    Restart,
    /// Needs the files offline: the volume is emptied, rebuilt and refilled.
    Offline,
    /// No safe automatic step: who to ask, and for what.
    Manual,
}

impl Phase {
    pub const ALL: [Phase; 4] = [Phase::Online, Phase::Restart, Phase::Offline, Phase::Manual];

    pub fn title(self) -> &'static str {
        match self {
            Phase::Online => "Online changes",
            Phase::Restart => "Changes that take effect at the next restart",
            Phase::Offline => "Changes that need the files offline",
            Phase::Manual => "Manual steps",
        }
    }
}

/// How the plan builder addresses a builtin rule's findings. A rule declares its remedies
/// (`declare_rule!`'s `remedy:`); the builder picks findings by remedy, never by rule code, so
/// a new rule joins an existing kind of step by naming it here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remedy {
    /// Give the file a fixed growth increment.
    FixedGrowth(GrowthFrom),
    /// Add tempdb data files up to the expected count (online; new files are used at once).
    AddTempdbDataFiles,
    /// Empty and remove the log files beyond the first.
    RemoveExtraLogFiles,
    /// Remount the volume with the expected options, and persist them.
    MountOptions,
    /// Move the database's files to another volume.
    MoveFiles(MoveReason),
    /// Empty the volume, rebuild this part of its stack, refill it: one outage per volume
    /// whatever the number of its findings.
    Rebuild(RebuildPart),
    /// Nothing spindle can write as commands: what the manual step says and when it takes effect.
    Manual(Manual),
}

/// Where a fixed growth increment comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrowthFrom {
    /// The size the next percent growth would add, rounded: the file keeps growing as it did.
    NextPercentGrowth,
    /// The finding's expected value: the minimum increment the rule holds files to.
    ExpectedIncrement,
}

/// Why files move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveReason {
    /// They sit on a volume they should not share (system volume, data with log, tempdb).
    Placement,
    /// Their volume is on the same physical disks as another's: the target must be on others.
    SharedSpindles,
}

/// The part of a volume's stack a rebuild changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RebuildPart {
    /// The partition, recreated at a multiple of the finding's expected boundary.
    Alignment,
    /// The file system's allocation unit: formatted with the expected cluster size.
    AllocationUnit,
    /// The file system itself: formatted as NTFS (Windows) or XFS (Linux).
    Filesystem,
    /// The Storage Spaces virtual disk's number of columns.
    Columns,
    /// The Storage Spaces virtual disk's interleave.
    Interleave,
}

/// What a manual step adds to a finding's fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Manual {
    /// The fix takes effect at the next restart of the service (a privilege granted).
    AtRestart,
    /// The fact behind it lives in the array: ask the storage team for the stripe unit.
    AskStorageTeam,
    /// A measurement: measure again after the plan's changes, which may be its cause.
    MeasureAgain,
    /// Capacity: ask the platform team to extend the volume, or move files off it.
    AskPlatformTeam,
}

/// The language of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    /// T-SQL, run with `sqlcmd` or SSMS against the instance.
    Tsql,
    /// Windows PowerShell (Storage module cmdlets), run elevated on the host.
    PowerShell,
    /// A POSIX shell, run as root on a Linux host.
    Shell,
}

impl Lang {
    pub fn name(self) -> &'static str {
        match self {
            Lang::Tsql => "T-SQL",
            Lang::PowerShell => "PowerShell",
            Lang::Shell => "shell",
        }
    }

    /// The info string of a Markdown code block.
    pub fn fence(self) -> &'static str {
        match self {
            Lang::Tsql => "sql",
            Lang::PowerShell => "powershell",
            Lang::Shell => "sh",
        }
    }
}

/// Lines of one language, quoted for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub lang: Lang,
    /// Complete statements, one or more lines.
    pub text: String,
}

impl Command {
    pub fn tsql(text: impl Into<String>) -> Command {
        Command { lang: Lang::Tsql, text: text.into() }
    }

    pub fn ps(text: impl Into<String>) -> Command {
        Command { lang: Lang::PowerShell, text: text.into() }
    }

    pub fn sh(text: impl Into<String>) -> Command {
        Command { lang: Lang::Shell, text: text.into() }
    }
}

/// A finding a step fixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Addressed {
    pub code: String,
    /// The entity's label (`erp-sql1 › E:\`).
    pub entity: String,
}

/// One reviewable step.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub phase: Phase,
    pub title: String,
    /// Why this step, in a sentence or two.
    pub why: String,
    pub addresses: Vec<Addressed>,
    /// What must hold before it runs (free space, a verified backup).
    pub preconditions: Vec<String>,
    pub commands: Vec<Command>,
    /// What to do, in words, where there are no commands (a manual step): a rule's or a
    /// plugin's fix, untrusted, escaped by the writers.
    pub instructions: Option<String>,
    /// How to undo it, or what to restore from.
    pub rollback: Vec<Command>,
    /// In words, when undoing is not a command (restore from the backup the precondition took).
    pub rollback_note: Option<String>,
    /// Deletes or overwrites data (a partition removed, a volume formatted): marked loudly.
    pub destructive: bool,
    pub gain: Option<Gain>,
    /// Steps that must run together and in order (one outage: offline, copy, rebuild, copy
    /// back, online) share a unit; sorting by gain moves whole units, never steps within one.
    pub unit: u32,
}

impl Step {
    pub fn new(phase: Phase, title: impl Into<String>, why: impl Into<String>) -> Step {
        Step {
            phase,
            title: title.into(),
            why: why.into(),
            addresses: vec![],
            preconditions: vec![],
            commands: vec![],
            instructions: None,
            rollback: vec![],
            rollback_note: None,
            destructive: false,
            gain: None,
            unit: 0,
        }
    }

    /// The largest gain this step is expected to bring, for `--sort gain` ([`Gain::rank`]).
    pub fn best_gain_percent(&self) -> f64 {
        crate::gain::rank_of(self.gain.as_ref())
    }
}

/// A host's plan: its steps in the order they run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plan {
    pub host: String,
    /// The operating system's family the commands are written for (`windows`, `linux`).
    pub os: String,
    /// Windows Server 2008 R2 or older, by the host's `os_version`: no Storage cmdlets (they came
    /// with Windows Server 2012) and PowerShell 2.0, so the commands are diskpart's and
    /// format.com's and the script needs nothing newer.
    pub old_windows: bool,
    pub steps: Vec<Step>,
}

impl Plan {
    /// Steps of one phase, in plan order.
    pub fn phase(&self, phase: Phase) -> impl Iterator<Item = &Step> {
        self.steps.iter().filter(move |s| s.phase == phase)
    }

    /// Orders the steps by phase, keeping the builders' order within a phase; with `by_gain`,
    /// the units (see [`Step::unit`]) of a phase with the largest expected gain first. Phases
    /// never change order, nor do the steps of one unit: that order is what they depend on.
    pub fn order(&mut self, by_gain: bool) {
        // One entry per unit, looked up once per comparison: a wide host has a unit per
        // volume, and a scan of a list of them per step made ordering quadratic.
        let mut best: std::collections::HashMap<u32, f64> = std::collections::HashMap::new();
        for s in &self.steps {
            let g = best.entry(s.unit).or_insert(f64::NEG_INFINITY);
            *g = g.max(s.best_gain_percent());
        }
        let gain_of = |u: u32| best.get(&u).copied().unwrap_or(0.0);
        self.steps.sort_by(|a, b| {
            a.phase.cmp(&b.phase).then_with(|| {
                if by_gain && a.unit != b.unit {
                    gain_of(b.unit).total_cmp(&gain_of(a.unit))
                } else {
                    std::cmp::Ordering::Equal
                }
            })
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(phase: Phase, title: &str, unit: u32, gain: Option<f64>) -> Step {
        let mut s = Step::new(phase, title, "");
        s.unit = unit;
        s.gain = gain.map(|g| Gain {
            metric: String::new(),
            better: crate::gain::Better::Higher,
            after: None,
            low_percent: 0.0,
            high_percent: g,
            assumptions: String::new(),
            evidence: String::new(),
            url: String::new(),
        });
        s
    }

    fn titles(p: &Plan) -> Vec<&str> {
        p.steps.iter().map(|s| s.title.as_str()).collect()
    }

    #[test]
    fn phases_run_in_order_and_gain_sorts_only_within_one() {
        let steps = vec![
            step(Phase::Manual, "ask", 1, None),
            step(Phase::Offline, "small: offline", 2, None),
            step(Phase::Offline, "small: rebuild", 2, Some(10.0)),
            step(Phase::Offline, "small: online", 2, None),
            step(Phase::Online, "growth", 3, None),
            step(Phase::Offline, "large: offline", 4, None),
            step(Phase::Offline, "large: rebuild", 4, Some(80.0)),
            step(Phase::Offline, "none", 5, None),
        ];
        let mut p = Plan { steps: steps.clone(), ..Plan::default() };
        p.order(false);
        assert_eq!(
            titles(&p),
            [
                "growth",
                "small: offline",
                "small: rebuild",
                "small: online",
                "large: offline",
                "large: rebuild",
                "none",
                "ask"
            ]
        );
        let mut p = Plan { steps, ..Plan::default() };
        p.order(true);
        // The outage with the larger gain first, each outage's steps still in their order.
        assert_eq!(
            titles(&p),
            [
                "growth",
                "large: offline",
                "large: rebuild",
                "small: offline",
                "small: rebuild",
                "small: online",
                "none",
                "ask"
            ]
        );
    }
}
