//! `spindle plan`: each host's findings as an ordered change plan, written as a runbook (text,
//! Markdown) or as one host's script (PowerShell, shell, T-SQL). The hosts are read and checked
//! exactly as `spindle check` reads and checks them; nothing is ever run.

use std::io::Write as _;
use std::path::PathBuf;

use spindle_core::pack::Selection;
use spindle_report::plan::PlanFormat;
use spindle_rules::plan::PlanOptions as Layout;

use crate::engine::{Engine, today};
use crate::errors::UserError;
use crate::options::Exit;
use crate::output::write_atomically;
use crate::sources::{Snapshots, Source};

/// What `spindle plan` was asked for.
#[derive(Debug, Clone)]
pub struct PlanOptions {
    pub inputs: Vec<PathBuf>,
    /// `--exclude`: globs a directory walk leaves out, as for `spindle check`.
    pub exclude: Vec<String>,
    /// Builtin pack names or TOML files, as for `spindle check` (empty: the discovered
    /// spindle.toml, else `recommended`).
    pub packs: Vec<String>,
    /// With no `packs`, look for `spindle.toml` (or `.spindle.toml`) as `check` does.
    pub discover_config: bool,
    /// `--select`, `--extend-select`, `--ignore`, over the packs' choice of rules.
    pub selection: Selection,
    pub format: PlanFormat,
    /// Written atomically; stdout when absent.
    pub output: Option<PathBuf>,
    /// Within each phase, the largest expected gain first.
    pub by_gain: bool,
}

/// Writes the plan. [`Exit::Incomplete`] when a host could not be fully checked (a rule failed,
/// nothing could be judged): the plan is written, but it cannot address what was not seen.
pub fn run(o: &PlanOptions) -> Result<Exit, UserError> {
    if o.inputs.is_empty() {
        return Err(UserError::plain("spindle plan needs snapshot files or directories to plan from"));
    }
    let packs = crate::packs::packs_to_apply(&o.packs, o.discover_config);
    let engine = Engine::load_with(&packs, &o.selection, 2)?;
    crate::output::warn_if_among_inputs(o.output.as_deref(), &o.inputs);
    let snapshots = Snapshots::open(&[Source::files(o.inputs.clone(), o.exclude.clone())], 1)?;
    if o.format.is_script() && snapshots.hosts() != 1 {
        return Err(UserError::plain(format!(
            "a script runs on one host, and the inputs describe {}: give one host's snapshots, or use \
             --format text or markdown",
            snapshots.hosts()
        )));
    }
    let today = today()?;
    let mut plans = vec![];
    let mut incomplete = vec![];
    for g in 0..snapshots.hosts() {
        let view = engine.view(snapshots.load(g)?);
        let report = engine.check(&view, today);
        if !report.errors.is_empty() || !report.not_judged.is_empty() {
            incomplete.push(view.host_name().to_string());
        }
        let plan = spindle_rules::plan::build(&view, &report.findings, Layout { by_gain: o.by_gain });
        if !o.format.fits(&plan.os) {
            let (os, use_instead) = if plan.os == "linux" { ("Linux", "sh") } else { ("Windows", "ps1") };
            return Err(UserError::plain(format!(
                "{} runs {os}: its plan's commands are for {os}; use --format {use_instead} (or sql, text, markdown)",
                spindle_core::untrusted::name(&plan.host)
            )));
        }
        plans.push(plan);
    }
    let text = spindle_report::plan::write(&plans, o.format, env!("CARGO_PKG_VERSION"));
    match &o.output {
        Some(path) if path.as_os_str() != "-" => write_atomically(path, text.as_bytes())?,
        _ => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| UserError::plain(format!("stdout: {e}")))?;
        }
    }
    for host in &incomplete {
        eprintln!(
            "spindle: {} could not be fully checked (a rule failed or nothing could be judged): the plan \
             covers only what was seen",
            spindle_core::untrusted::name(host)
        );
    }
    Ok(if incomplete.is_empty() { Exit::Clean } else { Exit::Incomplete })
}
