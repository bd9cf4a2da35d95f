//! `spindle rules` and `spindle explain`: the rule docs, from the rules' doc comments, and with
//! `--pack`, those of the rules the packs' plugins declare.

use std::fmt::Write as _;

use spindle_core::pack::{Selection, resolve};
use spindle_core::params::ParamDefault;
use spindle_core::rule::{RuleMeta, Stage};
use spindle_core::untrusted;

use crate::engine::Engine;
use crate::errors::UserError;
use crate::options::RuleChoice;
use crate::packs::{BUILTIN, Loader, packs_to_apply};

/// Every builtin rule with its code.
pub fn catalogue() -> Vec<(&'static str, &'static RuleMeta)> {
    spindle_rules::all().into_iter().map(|r| (r.meta.code, &r.meta)).collect()
}

/// The builtin packs that enable each rule of the catalogue.
fn packs_enabling() -> Result<Vec<Vec<&'static str>>, UserError> {
    let cat = catalogue();
    let mut out = vec![vec![]; cat.len()];
    for (name, _) in BUILTIN {
        let cfg = resolve(&cat, &[name], &Loader)?;
        for (i, r) in cfg.rules.iter().enumerate() {
            if r.enabled {
                out[i].push(*name);
            }
        }
    }
    Ok(out)
}

/// How `spindle rules` lays out the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RulesFormat {
    /// Aligned columns with the packs that enable each rule.
    Table,
    /// The Markdown table of the manual's Rules chapter (docs/rules.md).
    Markdown,
}

/// One rule as `rules` and `explain` describe it.
struct Described {
    code: &'static str,
    meta: &'static RuleMeta,
    /// The builtin packs that enable it, or for a plugin's rule, which plugin of which pack.
    from: String,
    /// With `--pack`: whether those packs enable it, and at what severity.
    in_packs: Option<(bool, &'static str)>,
    plugin: bool,
}

/// The builtin rules and, when packs are given or found (or a selection is), those of their
/// plugins, with what the packs and the selection make of each. Loading the packs loads their
/// plugins (and checks their configuration).
fn described(packs: &[String], selection: &Selection) -> Result<Vec<Described>, UserError> {
    let builtin = packs_enabling()?;
    let engine = if packs.is_empty() && selection.is_empty() {
        None
    } else {
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        Some(Engine::load_with(packs, selection, threads + 1)?)
    };
    let cat = engine.as_ref().map_or_else(catalogue, Engine::catalogue);
    Ok(cat
        .iter()
        .enumerate()
        .map(|(i, &(code, meta))| {
            let plugin = engine.as_ref().and_then(|e| e.plugin_of(code));
            let from = match (&plugin, builtin.get(i)) {
                (Some((name, pack)), _) => format!("plugin {name} of {pack}"),
                (None, Some(packs)) => packs.join(", "),
                (None, None) => String::new(),
            };
            let in_packs = engine.as_ref().map(|e| {
                let setting = &e.config().rules[i];
                (setting.enabled, setting.severity.as_str())
            });
            Described { code, meta, from, in_packs, plugin: plugin.is_some() }
        })
        .collect())
}

/// The rules table; the Markdown form is the one in docs/rules.md. With packs (given, or the
/// project's found as `check` finds it), their plugins' rules too, and whether the packs and
/// the selection enable each rule.
pub fn rules_table(format: RulesFormat, choice: &RuleChoice) -> Result<String, UserError> {
    let packs = packs_to_apply(&choice.packs, choice.discover_config);
    let rules = described(&packs, &choice.selection)?;
    let mut out = String::new();
    match format {
        RulesFormat::Markdown => {
            out.push_str(&spindle_rules::markdown_table());
            // A plugin's words are its own: escaped, and kept from breaking the table.
            let cell = |s: &str| untrusted::message(s).replace('|', "\\|");
            for r in rules.iter().filter(|r| r.plugin) {
                let m = r.meta;
                let _ = writeln!(
                    out,
                    "| {} | `{}` | {} | {} |",
                    cell(r.code),
                    cell(m.name),
                    m.severity,
                    cell(m.summary)
                );
            }
        }
        RulesFormat::Table => {
            let names: Vec<String> =
                rules.iter().map(|r| untrusted::name(r.meta.name).into_owned()).collect();
            let codes: Vec<String> = rules.iter().map(|r| untrusted::name(r.code).into_owned()).collect();
            let w = names.iter().map(|n| n.chars().count()).max().unwrap_or(4).max(4);
            let c = codes.iter().map(|n| n.chars().count()).max().unwrap_or(7).max(7);
            let with_packs = rules.first().is_some_and(|r| r.in_packs.is_some());
            let _ = if with_packs {
                writeln!(out, "{:<c$} {:<w$} {:<8} {:<7} PACKS", "CODE", "NAME", "SEVERITY", "ENABLED")
            } else {
                writeln!(out, "{:<c$} {:<w$} {:<8} PACKS", "CODE", "NAME", "SEVERITY")
            };
            for ((r, code), name) in rules.iter().zip(&codes).zip(&names) {
                let from = untrusted::message(&r.from);
                let _ = match r.in_packs {
                    Some((enabled, severity)) => writeln!(
                        out,
                        "{code:<c$} {name:<w$} {severity:<8} {:<7} {from}",
                        if enabled { "yes" } else { "no" }
                    ),
                    None => writeln!(out, "{code:<c$} {name:<w$} {:<8} {from}", r.meta.severity.as_str()),
                };
            }
        }
    }
    Ok(out)
}

/// `spindle explain RULE`: a rule's full docs, by code (any case) or name; a code prefix
/// (`GRW`, `acme/`) lists the rules it covers, or explains the one. With packs (given, or the
/// project's found as `check` finds it), the rules of their plugins too (`acme/ACM001`).
pub fn explain(rule: &str, choice: &RuleChoice) -> Result<String, UserError> {
    let packs = packs_to_apply(&choice.packs, choice.discover_config);
    let rules = described(&packs, &choice.selection)?;
    let exact = rules.iter().find(|r| r.code.eq_ignore_ascii_case(rule) || r.meta.name == rule);
    let matching: Vec<&Described> = match exact {
        Some(r) => vec![r],
        None => rules
            .iter()
            .filter(|r| {
                !rule.is_empty() && r.code.to_ascii_lowercase().starts_with(&rule.to_ascii_lowercase())
            })
            .collect(),
    };
    match matching.as_slice() {
        [] => {
            let names = rules.iter().flat_map(|r| [r.code, r.meta.name]);
            let help = spindle_core::pack::did_you_mean(rule, names).or_else(|| {
                Some(if packs.is_empty() && rule.contains('/') {
                    "a plugin's rules are known with the pack that declares it: `spindle explain CODE --pack FILE`"
                        .into()
                } else {
                    "`spindle rules` lists every rule".into()
                })
            });
            Err(UserError { help, ..UserError::plain(format!("no rule `{}`", untrusted::name(rule))) })
        }
        [one] => Ok(docs(one)),
        several => {
            let mut out = format!("# {} rules match `{}`\n\n", several.len(), untrusted::name(rule));
            let c = several.iter().map(|r| r.code.chars().count()).max().unwrap_or(6);
            for r in several {
                let _ = writeln!(
                    out,
                    "{:<c$}  {} ({}): {}",
                    untrusted::name(r.code),
                    untrusted::name(r.meta.name),
                    r.meta.severity,
                    untrusted::message(r.meta.summary)
                );
            }
            let _ = writeln!(out, "\n`spindle explain {}` shows one rule's docs.", several[0].code);
            Ok(out)
        }
    }
}

/// One rule's docs as `explain` prints them. A plugin's text is the plugin's: escaped.
fn docs(r: &Described) -> String {
    let (code, meta) = (r.code, r.meta);
    let text =
        |s: &str| if r.plugin { untrusted::escape_keeping_lines(s).into_owned() } else { s.to_string() };
    let mut out = String::new();
    let _ = writeln!(out, "# {} {}\n", text(code), text(meta.name));
    let _ = writeln!(out, "{}\n", text(meta.summary));
    let origin = if r.plugin { format!("From {}", r.from) } else { format!("Builtin packs: {}", r.from) };
    let _ = write!(out, "Default severity: {}. {}.", meta.severity, text(&origin));
    if !r.plugin {
        let _ = write!(out, " Since {}. Impact: {}.", meta.since, meta.impact.describe());
        if meta.stage == Stage::Preview {
            out.push_str(" In preview: it runs only where selected by its code or name.");
        }
    }
    if let Some((enabled, severity)) = r.in_packs {
        let _ = write!(
            out,
            " In the packs given: {}.",
            if enabled { format!("enabled, severity {severity}") } else { "not enabled".to_string() }
        );
    }
    out.push_str("\n\n");
    out.push_str(&text(&meta.docs()));
    if !meta.params.is_empty() {
        let _ = writeln!(out, "\n## Parameters\n");
        // A plugin's code has a `/`: a TOML key then needs quotes.
        let key = if code.contains('/') { format!("\"{code}\"") } else { code.to_string() };
        let _ = writeln!(out, "Set them in a pack under `[rules.{}]`.\n", text(&key));
        for p in meta.params {
            let default = match p.default {
                ParamDefault::Num(n) => n.to_string(),
                ParamDefault::Text(t) => format!("\"{t}\""),
            };
            let line = format!("- `{}` ({}; default {default}): {}", p.name, p.kind.describe(), p.doc);
            let _ = writeln!(out, "{}", text(&line));
        }
    }
    out
}
