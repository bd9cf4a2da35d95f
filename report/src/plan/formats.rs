//! The plan formats, in one registry of the shape of [`crate::formats::FORMATS`]: each is a name,
//! a line of help, who reads it and the function that writes it. `spindle plan --format`'s values
//! and help come from here, so a new plan format is its renderer and one line in
//! [`PLAN_FORMATS`].

use spindle_core::plan::Plan;

use crate::formats::Reader;

/// One plan format.
pub struct PlanFormatSpec {
    /// The `--format` value.
    pub name: &'static str,
    pub help: &'static str,
    /// [`Reader::Program`] is a script: a shell or sqlcmd runs it on one host, so it takes
    /// exactly one host's plan.
    pub reader: Reader,
    /// Whether it can write the plan of a host whose operating system is `os`: a script's
    /// commands are for one system.
    pub fits: fn(os: &str) -> bool,
    /// Writes the plans (one per host) for spindle `version`.
    pub render: fn(plans: &[Plan], version: &str) -> String,
}

/// Every plan format, `--format`'s values in this order.
pub static PLAN_FORMATS: &[PlanFormatSpec] = &[
    PlanFormatSpec {
        name: "text",
        help: "a runbook for people, any number of hosts",
        reader: Reader::Terminal,
        fits: |_| true,
        render: |plans, _| per_host(plans, super::text),
    },
    PlanFormatSpec {
        name: "markdown",
        help: "the runbook as Markdown, for a change ticket",
        reader: Reader::Document,
        fits: |_| true,
        render: |plans, _| per_host(plans, super::markdown),
    },
    PlanFormatSpec {
        name: "ps1",
        help: "one Windows host's PowerShell script (T-SQL through Invoke-Sqlcmd), every other step as comments",
        reader: Reader::Program,
        fits: |os| os != "linux",
        render: |plans, version| plans.first().map(|p| super::ps1(p, version)).unwrap_or_default(),
    },
    PlanFormatSpec {
        name: "sh",
        help: "one Linux host's POSIX shell script (T-SQL through sqlcmd), every other step as comments",
        reader: Reader::Program,
        fits: |os| os == "linux",
        render: |plans, version| plans.first().map(|p| super::sh(p, version)).unwrap_or_default(),
    },
    PlanFormatSpec {
        name: "sql",
        help: "one host's T-SQL steps for sqlcmd, every other step as comments",
        reader: Reader::Program,
        fits: |_| true,
        render: |plans, version| plans.first().map(|p| super::sql(p, version)).unwrap_or_default(),
    },
];

/// A runbook: each host's plan, a blank line between them.
fn per_host(plans: &[Plan], one: fn(&Plan) -> String) -> String {
    plans.iter().map(one).collect::<Vec<_>>().join("\n")
}

/// A format of [`PLAN_FORMATS`], by name: what `spindle plan`'s options carry.
#[derive(Clone, Copy)]
pub struct PlanFormat(&'static PlanFormatSpec);

impl PlanFormat {
    /// The format called `name`, if there is one.
    pub fn named(name: &str) -> Option<PlanFormat> {
        PLAN_FORMATS.iter().find(|f| f.name == name).map(PlanFormat)
    }

    pub fn spec(self) -> &'static PlanFormatSpec {
        self.0
    }

    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// Whether a plan for a host of `os` can be written in this format.
    pub fn fits(self, os: &str) -> bool {
        (self.0.fits)(os)
    }

    /// Whether it is one host's script.
    pub fn is_script(self) -> bool {
        self.0.reader == Reader::Program
    }

    /// The names `--format` offers.
    pub fn offered() -> impl Iterator<Item = &'static str> {
        PLAN_FORMATS.iter().map(|f| f.name)
    }
}

crate::format_handle::named_handle!(PlanFormat);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_scripts_fit_their_system() {
        for f in PLAN_FORMATS {
            assert_eq!(PLAN_FORMATS.iter().filter(|g| g.name == f.name).count(), 1, "{}", f.name);
            assert_eq!(PlanFormat::named(f.name).unwrap().name(), f.name);
        }
        let [ps1, sh] = ["ps1", "sh"].map(|n| PlanFormat::named(n).unwrap());
        assert!(ps1.is_script() && ps1.fits("windows") && !ps1.fits("linux"));
        assert!(sh.is_script() && sh.fits("linux") && !sh.fits("windows"));
        assert!(!PlanFormat::named("text").unwrap().is_script());
    }
}
