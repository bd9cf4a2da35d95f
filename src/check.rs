//! `spindle check`: packs → rules → each host's snapshots → findings → the chosen report.

use std::io::IsTerminal;
use std::process::ExitCode;

use spindle_core::date::Date;
use spindle_core::engine::check_host;
use spindle_core::pack::load_packs;
use spindle_core::report::json::JsonWriter;
use spindle_core::report::sarif::SarifWriter;
use spindle_core::report::{ReportWriter, RuleInfo, Summary};
use spindle_core::rule::{Rule, RuleMeta};
use spindle_core::view::HostView;

use crate::cli::{CheckArgs, FailOn, Format};
use crate::errors::UserError;
use crate::input;
use crate::output::Output;
use crate::packs::Loader;
use crate::plugin::{PluginHost, default_cache_dir};
use crate::plugin_rules;
use crate::text::TextWriter;

pub fn run(args: &CheckArgs) -> Result<ExitCode, UserError> {
    let refs: Vec<&str> = if args.packs.is_empty() {
        vec!["recommended"]
    } else {
        args.packs.iter().map(String::as_str).collect()
    };
    let stack = load_packs(&refs, &Loader)?;
    let decls = stack.plugins()?;
    // The engine and its compiled-code cache only when a pack asks for a plugin.
    let host = if decls.is_empty() {
        None
    } else {
        // Fuel metering costs every call; compile it in only when a pack sets a fuel limit.
        let fuel = decls.iter().any(|d| d.fuel.is_some());
        Some(
            PluginHost::with_options(default_cache_dir(), fuel)
                .map_err(|e| UserError::plain(e.to_string()))?,
        )
    };
    let plugin_rules = match &host {
        Some(host) => plugin_rules::load(host, &decls)?,
        None => vec![],
    };
    let builtins = spindle_rules::all();
    let rules: Vec<&dyn Rule> =
        builtins.iter().map(|r| *r as &dyn Rule).chain(plugin_rules.iter().map(|r| r as &dyn Rule)).collect();
    let cat: Vec<(&str, &RuleMeta)> = rules.iter().map(|r| (r.meta().code, r.meta())).collect();
    let cfg = stack.resolve(&cat)?;
    let active = cfg.active(&rules);
    let infos: Vec<RuleInfo> =
        active.iter().map(|a| RuleInfo::from_meta(&a.code, a.rule.meta(), a.severity)).collect();

    let paths = input::discover(&args.inputs)?;
    let groups = input::group_by_host(paths)?;
    let today = today()?;

    let mut out = Output::new(args.output.as_deref())?;
    let result = (|| -> Result<Summary, UserError> {
        let w = out.writer();
        let mut writer: Box<dyn ReportWriter + '_> = match args.format {
            Format::Text => Box::new(TextWriter::new(w, use_colour(args))),
            Format::Json => Box::new(JsonWriter::new(w, env!("CARGO_PKG_VERSION"))),
            Format::Sarif => Box::new(SarifWriter::new(w, env!("CARGO_PKG_VERSION"))),
        };
        let io = |e: std::io::Error| UserError::plain(format!("cannot write the report: {e}"));
        writer.begin(&infos).map_err(io)?;
        let mut summary = Summary::default();
        for group in &groups {
            let docs = input::load_group(group)?;
            let view = HostView::build(docs, cfg.declarations.clone());
            let report = check_host(&active, &view, &cfg.waivers, today);
            writer.host(&view, &report).map_err(io)?;
            summary.add(&report);
        }
        writer.finish(&summary).map_err(io)?;
        Ok(summary)
    })();
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            out.abort();
            return Err(e);
        }
    };
    out.commit()?;
    Ok(exit_code(&summary, args.fail_on))
}

/// 2 when a rule failed (the run is incomplete), 1 when a finding at or above `--fail-on` is not
/// waived, else 0. A rule not evaluated for lack of facts counts as a note.
fn exit_code(s: &Summary, fail_on: FailOn) -> ExitCode {
    if s.incomplete() {
        return ExitCode::from(2);
    }
    let failing = match fail_on {
        FailOn::Error => s.errors,
        FailOn::Warning => s.errors + s.warnings,
        FailOn::Note => s.errors + s.warnings + s.notes + s.not_evaluated,
        FailOn::Never => 0,
    };
    if failing > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// Colour only on a terminal, never with `NO_COLOR` set or when writing to a file.
fn use_colour(args: &CheckArgs) -> bool {
    args.output.is_none()
        && std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Today's date, for waiver expiry. `SPINDLE_TODAY=YYYY-MM-DD` pins it (reproducible CI runs).
fn today() -> Result<Date, UserError> {
    if let Ok(s) = std::env::var("SPINDLE_TODAY") {
        return Date::parse(&s)
            .ok_or_else(|| UserError::plain(format!("SPINDLE_TODAY={s}: expected YYYY-MM-DD")));
    }
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|_| UserError::plain("the system clock is before 1970"))?
        .as_secs();
    Ok(Date::from_days_since_epoch((secs / 86_400) as i64))
}
