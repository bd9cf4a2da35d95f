//! Plugin rules in the engine. Each loaded plugin is one [`RuleGroup`]: the engine hands it all
//! of its enabled rules for a host in one call. Its rules join the catalogue under codes
//! namespaced by the plugin's name in the pack (`acme/ACM001`), so packs select, ignore, grade,
//! parameterise and waive them like builtin rules.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use spindle_core::engine::ActiveRule;
use spindle_core::finding::{Finding, NotEvaluated, RuleError, Severity};
use spindle_core::pack::{PackError, PluginDecl};
use spindle_core::params::{ParamDefault, ParamKind, ParamSpec, ParamValue};
use spindle_core::rule::{Ctx, Impact, Rule, RuleGroup, RuleMeta, Stage};
use spindle_core::view::HostView;

use crate as plugin;
use crate::{LimitField, Limits, Plugin, PluginErrorKind, PluginHost};

/// A plugin, loaded and ready to check hosts.
pub struct PluginGroup {
    id: String,
    name: String,
    plugin: Plugin,
    config: Value,
}

/// One rule of a plugin, as the engine and the packs see it.
pub struct PluginRule {
    meta: RuleMeta,
    group: Arc<PluginGroup>,
}

impl Rule for PluginRule {
    fn meta(&self) -> &RuleMeta {
        &self.meta
    }

    fn check(&self, _: &mut Ctx<'_>) {
        // The engine calls the group instead (Rule::group); nothing to do per rule.
    }

    fn group(&self) -> Option<&dyn RuleGroup> {
        Some(&*self.group)
    }
}

/// Loads the plugins the packs declare. A plugin that cannot be loaded is bad input: exit 2,
/// with the position of its declaration in the pack.
pub fn load(host: &PluginHost, decls: &[PluginDecl]) -> Result<Vec<PluginRule>, PackError> {
    let mut rules = vec![];
    for decl in decls {
        let defaults = Limits::default();
        let limits = Limits {
            memory_bytes: decl.memory_bytes.unwrap_or(defaults.memory_bytes),
            timeout_ms: decl.timeout_ms.unwrap_or(defaults.timeout_ms),
            fuel: decl.fuel,
        };
        // Caught here rather than where packs are read (spindle-core) because the caps are the
        // sandbox's; the error points at the value over its cap.
        if let Some((field, why)) = limits.over_cap() {
            let span = match field {
                LimitField::MemoryBytes => &decl.memory_bytes_span,
                LimitField::TimeoutMs => &decl.timeout_ms_span,
                LimitField::Fuel => &decl.fuel_span,
            };
            let span = span.clone().unwrap_or_else(|| decl.name_span.clone());
            return Err(decl.error(span, format!("plugin `{}`: {why}", decl.name)));
        }
        let loaded = host.load(
            &decl.name,
            &decl.pack.path,
            std::path::Path::new(&decl.resolved_path),
            decl.sha256.as_deref(),
            limits,
        );
        let plugin = loaded.map_err(|e| {
            let span = match (e.kind, &decl.sha256_span) {
                (PluginErrorKind::Digest, Some(span)) => span.clone(),
                _ => decl.path_span.clone(),
            };
            decl.error(span, e.to_string())
        })?;
        let config: Value = serde_json::from_str(&decl.config_json).unwrap_or(Value::Object(Map::new()));
        // Once, here, rather than in the check of every host: a mistake in the pack is bad input,
        // shown where it is written.
        let probe = match plugin.wit_version() {
            "0.1.0" => {
                json!({ "config": config, "params": {}, "declared": { "workload": null, "stripe_units": [] } })
            }
            _ => config.clone(),
        };
        if let Err(why) = plugin.check_config(&probe.to_string()) {
            let span = decl.config_span.clone().unwrap_or_else(|| decl.name_span.clone());
            return Err(decl.error(span, format!("plugin `{}` does not accept its config: {why}", decl.name)));
        }
        let metas: Vec<RuleMeta> = plugin.rules().iter().map(|r| static_meta(&decl.name, r)).collect();
        let group = Arc::new(PluginGroup {
            id: format!("plugin `{}` of pack {}", decl.name, decl.pack.path),
            name: decl.name.clone(),
            plugin,
            config,
        });
        rules.extend(metas.into_iter().map(|meta| PluginRule { meta, group: Arc::clone(&group) }));
    }
    Ok(rules)
}

/// Core's rule metadata is `'static` (builtin rules are statics); a plugin's is read once per
/// run and lives as long as the process, so it is leaked rather than threaded through lifetimes.
fn static_meta(plugin: &str, r: &plugin::RuleMeta) -> RuleMeta {
    fn leak(s: String) -> &'static str {
        Box::leak(s.into_boxed_str())
    }
    let params: Vec<ParamSpec> = r
        .params
        .iter()
        .map(|p| ParamSpec {
            name: leak(p.name.clone()),
            kind: match &p.kind {
                plugin::ParamKind::Bytes => ParamKind::Bytes,
                plugin::ParamKind::Ms => ParamKind::Ms,
                plugin::ParamKind::Count => ParamKind::Count,
                plugin::ParamKind::Percent => ParamKind::Percent,
                plugin::ParamKind::Factor => ParamKind::Factor,
                plugin::ParamKind::Choice(c) => ParamKind::Choice(Box::leak(
                    c.iter().map(|s| leak(s.clone())).collect::<Vec<_>>().into_boxed_slice(),
                )),
            },
            default: match &p.default {
                plugin::ParamDefault::Num(n) => ParamDefault::Num(*n),
                plugin::ParamDefault::Text(t) => ParamDefault::Text(leak(t.clone())),
            },
            doc: leak(p.doc.clone()),
        })
        .collect();
    RuleMeta {
        code: leak(format!("{plugin}/{}", r.code)),
        name: leak(r.name.clone()),
        severity: match r.severity {
            plugin::Severity::Error => Severity::Error,
            plugin::Severity::Warning => Severity::Warning,
            plugin::Severity::Note => Severity::Note,
        },
        summary: leak(r.summary.clone()),
        // The frozen contracts carry neither: a plugin's findings rank after every builtin
        // class and are manual steps of a plan, with the plugin's own fix.
        impact: Impact::Unclassified,
        since: "",
        stage: Stage::Stable,
        remedies: &[],
        needs: Box::leak(r.needs.clone().into_boxed_slice()),
        params: Box::leak(params.into_boxed_slice()),
        // RuleMeta::docs() drops rustdoc's one leading space per line: give it one.
        raw_docs: leak(r.docs.lines().map(|l| format!(" {l}\n")).collect()),
        fix_cache: std::sync::OnceLock::new(),
    }
}

impl PluginGroup {
    fn unprefixed<'c>(&self, code: &'c str) -> &'c str {
        code.strip_prefix(&self.name).and_then(|c| c.strip_prefix('/')).unwrap_or(code)
    }

    fn config_json(&self, view: &HostView, rules: &[&ActiveRule<'_>]) -> String {
        let params: Map<String, Value> = rules
            .iter()
            .map(|r| {
                let values: Map<String, Value> = r
                    .params
                    .iter()
                    .map(|(name, v)| {
                        let v = match v {
                            ParamValue::Num(n) => json!(n),
                            ParamValue::Text(t) => json!(t),
                        };
                        (name.to_string(), v)
                    })
                    .collect();
                (self.unprefixed(&r.code).to_string(), Value::Object(values))
            })
            .collect();
        let d = &view.declared;
        let stripes: Vec<Value> = d
            .stripes
            .iter()
            .map(|s| {
                json!({
                    "entity": s.entity.as_str(),
                    "stripe_unit_bytes": s.stripe_unit_bytes,
                    "data_disks": s.data_disks,
                    "source": s.source,
                })
            })
            .collect();
        json!({
            "config": self.config,
            "params": params,
            "declared": { "workload": d.workload.as_ref().map(|(w, _)| w.as_str()), "stripe_units": stripes },
        })
        .to_string()
    }

    /// Contract 0.2.0's typed configuration: the same values as [`PluginGroup::config_json`].
    fn check_config(
        &self,
        view: &HostView,
        rules: &[&ActiveRule<'_>],
    ) -> crate::bindings::v0_2::types::CheckConfig {
        let enabled = rules
            .iter()
            .map(|r| {
                let params = r.params.iter().map(|(name, v)| (name.to_string(), v.clone())).collect();
                (self.unprefixed(&r.code).to_string(), params)
            })
            .collect();
        let d = &view.declared;
        let stripes = d
            .stripes
            .iter()
            .map(|s| crate::bindings::v0_2::types::DeclaredStripe {
                entity: s.entity.as_str().to_string(),
                stripe_unit_bytes: s.stripe_unit_bytes,
                data_disks: s.data_disks,
                source: Some(s.source.clone()),
            })
            .collect();
        crate::v0_2::check_config(
            enabled,
            d.workload.as_ref().map(|(w, _)| w.as_str().to_string()),
            stripes,
            self.config.to_string(),
        )
    }

    fn error(&self, message: impl Into<String>) -> RuleError {
        RuleError { code: format!("{}/*", self.name), message: message.into() }
    }
}

impl RuleGroup for PluginGroup {
    fn id(&self) -> &str {
        &self.id
    }

    fn check(
        &self,
        view: &HostView,
        rules: &[&ActiveRule<'_>],
    ) -> Result<(Vec<Finding>, Vec<NotEvaluated>), RuleError> {
        let out = if self.plugin.wit_version() == "0.1.0" {
            let facts = serde_json::to_string(&view.to_snapshot()).map_err(|e| self.error(e.to_string()))?;
            let enabled: Vec<String> = rules.iter().map(|r| self.unprefixed(&r.code).to_string()).collect();
            self.plugin.check(&facts, &enabled, &self.config_json(view, rules))
        } else {
            // Encoded once per host, for all of its 0.2.0 plugins.
            let shared = view.derived(|v| Arc::new(crate::v0_2::facts::encode(v)));
            let facts = shared.cloned().unwrap_or_else(|| Arc::new(crate::v0_2::facts::encode(view)));
            self.plugin.check_v0_2(facts, &self.check_config(view, rules))
        }
        .map_err(|e| self.error(e.to_string()))?;
        let active = |code: &str| {
            rules.iter().find(|r| self.unprefixed(&r.code) == code).ok_or_else(|| {
                self.error(format!("{}: it reported rule {code}, which was not enabled", self.id))
            })
        };
        let entity = |key: &str| {
            view.entity(key).ok_or_else(|| {
                self.error(format!(
                    "{}: a finding names entity `{key}`, which is not in this host's facts",
                    self.id
                ))
            })
        };
        let mut findings = Vec::with_capacity(out.findings.len());
        for f in out.findings {
            let rule = active(&f.code)?;
            let meta = rule.rule.meta();
            findings.push(Finding {
                code: rule.code.clone(),
                rule: meta.name.to_string(),
                severity: match f.severity {
                    Some(plugin::Severity::Error) => Severity::Error,
                    Some(plugin::Severity::Warning) => Severity::Warning,
                    Some(plugin::Severity::Note) => Severity::Note,
                    None => rule.severity,
                },
                message: f.message,
                measured: f.measured,
                expected: f.expected,
                // Contract 0.1.0 carries the values as prose only.
                measured_quantity: f.measured_quantity,
                expected_quantity: f.expected_quantity,
                entity: entity(&f.entity)?,
                field: f.field,
                fix: f.fix.unwrap_or_else(|| meta.default_fix().to_string()),
                gain: None,
                waiver: None,
                baseline: None,
            });
        }
        let mut not_evaluated = Vec::with_capacity(out.not_evaluated.len());
        for n in out.not_evaluated {
            let rule = active(&n.code)?;
            not_evaluated.push(NotEvaluated {
                code: rule.code.clone(),
                rule: rule.rule.meta().name.to_string(),
                entity: n.entity.as_deref().map(entity).transpose()?,
                missing: n.missing,
                reason: n.reason,
            });
        }
        Ok((findings, not_evaluated))
    }
}
