//! `spindle rules` and `spindle explain`: the rule docs, from the rules' doc comments.

use spindle_core::pack::resolve;
use spindle_core::params::ParamDefault;
use spindle_core::rule::RuleMeta;

use crate::errors::UserError;
use crate::packs::{BUILTIN, Loader};

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
    /// The README's Markdown table.
    Markdown,
}

/// The rules table; the Markdown form is the one in the README.
pub fn rules_table(format: RulesFormat) -> Result<String, UserError> {
    let cat = catalogue();
    let packs = packs_enabling()?;
    let mut out = String::new();
    match format {
        RulesFormat::Markdown => out.push_str(&spindle_rules::markdown_table()),
        RulesFormat::Table => {
            let w = cat.iter().map(|(_, m)| m.name.len()).max().unwrap_or(4);
            out.push_str(&format!("{:<7} {:<w$} {:<8} PACKS\n", "CODE", "NAME", "SEVERITY"));
            for ((code, meta), packs) in cat.iter().zip(&packs) {
                out.push_str(&format!(
                    "{code:<7} {:<w$} {:<8} {}\n",
                    meta.name,
                    meta.severity.as_str(),
                    packs.join(", ")
                ));
            }
        }
    }
    Ok(out)
}

/// `spindle explain RULE`: a rule's full docs, by code (any case) or name.
pub fn explain(rule: &str) -> Result<String, UserError> {
    use std::fmt::Write as _;
    let cat = catalogue();
    let Some(i) = cat.iter().position(|(c, m)| c.eq_ignore_ascii_case(rule) || m.name == rule) else {
        let names = cat.iter().flat_map(|(c, m)| [*c, m.name]);
        let help = spindle_core::pack::did_you_mean(rule, names)
            .or_else(|| Some("`spindle rules` lists every rule".into()));
        return Err(UserError { help, ..UserError::plain(format!("no rule `{rule}`")) });
    };
    let (code, meta) = cat[i];
    let packs = packs_enabling()?;
    let mut out = String::new();
    let _ = writeln!(out, "# {code} {}\n", meta.name);
    let _ = writeln!(out, "{}\n", meta.summary);
    let _ = writeln!(out, "Default severity: {}. Builtin packs: {}.\n", meta.severity, packs[i].join(", "));
    out.push_str(&meta.docs());
    if !meta.params.is_empty() {
        let _ = writeln!(out, "\n## Parameters\n");
        let _ = writeln!(out, "Set them in a pack under `[rules.{code}]`.\n");
        for p in meta.params {
            let default = match p.default {
                ParamDefault::Num(n) => n.to_string(),
                ParamDefault::Text(t) => format!("\"{t}\""),
            };
            let _ = writeln!(out, "- `{}` ({}; default {default}): {}", p.name, p.kind.describe(), p.doc);
        }
    }
    Ok(out)
}
