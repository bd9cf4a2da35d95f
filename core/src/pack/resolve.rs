use std::ops::Range;

use toml::Spanned;

use super::error::{PackError, did_you_mean};
use super::file::PackFile;
use crate::date::Date;
use crate::declare::{Declarations, DeclaredStripe, Workload};
use crate::engine::{ActiveRule, Waiver, selector_matches};
use crate::finding::Severity;
use crate::glob::Glob;
use crate::params::{ParamValue, Params};
use crate::rule::{Rule, RuleMeta};

/// A pack's text and the path (or `builtin:NAME`) it came from.
#[derive(Debug, Clone)]
pub struct SourceText {
    pub path: String,
    pub text: String,
}

/// Turns a pack reference into text: a builtin pack name, or a path relative to the pack that
/// names it (`from`), or to the working directory for packs given on the command line.
pub trait PackLoader {
    fn load(&self, reference: &str, from: Option<&str>) -> Result<SourceText, String>;
}

/// One rule as the packs leave it.
#[derive(Debug, Clone)]
pub struct RuleSetting {
    pub code: String,
    pub enabled: bool,
    pub severity: Severity,
    pub params: Params,
}

/// The outcome of stacking packs.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// In catalogue order.
    pub rules: Vec<RuleSetting>,
    pub declarations: Declarations,
    pub waivers: Vec<Waiver>,
    /// The pack files applied, in order.
    pub packs: Vec<String>,
}

impl Config {
    /// The enabled rules as the engine runs them; `rules` is the catalogue the packs were
    /// resolved against, in the same order.
    pub fn active<'r>(&self, rules: &[&'r dyn Rule]) -> Vec<ActiveRule<'r>> {
        self.rules
            .iter()
            .zip(rules)
            .filter(|(setting, _)| setting.enabled)
            .map(|(s, rule)| ActiveRule {
                rule: *rule,
                code: s.code.clone(),
                severity: s.severity,
                params: s.params.clone(),
            })
            .collect()
    }
}

/// Stacks `packs` (each a builtin name or a path) over the catalogue's defaults. For packs that
/// may declare plugins, use [`load_packs`], load the plugins, then [`PackStack::resolve`].
pub fn resolve(
    catalogue: &[(&str, &RuleMeta)],
    packs: &[&str],
    loader: &dyn PackLoader,
) -> Result<Config, PackError> {
    load_packs(packs, loader)?.resolve(catalogue)
}

/// Reads `packs` and everything they extend, in the order they apply.
pub fn load_packs(packs: &[&str], loader: &dyn PackLoader) -> Result<PackStack, PackError> {
    let mut stack = PackStack { files: vec![] };
    let mut chain = vec![];
    for p in packs {
        collect(p, None, loader, &mut chain, &mut stack.files)?;
    }
    Ok(stack)
}

/// Pack files in the order they apply: each one's `extends` first, then itself.
pub struct PackStack {
    files: Vec<(SourceText, PackFile)>,
}

/// A plugin a pack declares (`[plugins.NAME]`), as the host needs it to load the plugin.
#[derive(Debug, Clone)]
pub struct PluginDecl {
    /// The name codes are namespaced by (`acme` → `acme/NAM001`).
    pub name: String,
    /// The pack that declares it (a later declaration of the same name replaces an earlier).
    pub pack: SourceText,
    /// The `.wasm` path: as written, and joined to the pack's folder.
    pub path: String,
    pub resolved_path: String,
    pub sha256: Option<String>,
    /// The plugin's `config` table as JSON.
    pub config_json: String,
    pub memory_bytes: Option<u64>,
    pub timeout_ms: Option<u64>,
    pub fuel: Option<u64>,
    /// Where the name, path and sha256 are in the pack, for errors.
    pub name_span: Range<usize>,
    pub path_span: Range<usize>,
    pub sha256_span: Option<Range<usize>>,
}

impl PluginDecl {
    /// An error about this plugin, pointing at `span` in its pack.
    pub fn error(&self, span: Range<usize>, message: impl Into<String>) -> PackError {
        PackError::new(&self.pack.path, &self.pack.text, Some(span), message)
    }
}

impl PackStack {
    /// The plugins the packs declare, by name; a later pack's declaration replaces an earlier.
    pub fn plugins(&self) -> Result<Vec<PluginDecl>, PackError> {
        let mut out: Vec<PluginDecl> = vec![];
        for (src, pack) in &self.files {
            for (name, entry) in &pack.plugins {
                let n = name.get_ref();
                if !crate::names::is_kebab(n) {
                    return Err(PackError::new(
                        &src.path,
                        &src.text,
                        Some(name.span()),
                        format!(
                            "plugin name `{n}`: use lowercase letters, digits and `-` (it prefixes rule codes)"
                        ),
                    ));
                }
                let config_json = serde_json::to_string(&entry.config).map_err(|e| {
                    PackError::new(
                        &src.path,
                        &src.text,
                        Some(name.span()),
                        format!("plugin {n}: config: {e}"),
                    )
                })?;
                let decl = PluginDecl {
                    name: n.clone(),
                    pack: src.clone(),
                    path: entry.path.get_ref().clone(),
                    resolved_path: relative_to(&src.path, entry.path.get_ref()),
                    sha256: entry.sha256.as_ref().map(|s| s.get_ref().to_ascii_lowercase()),
                    config_json,
                    memory_bytes: entry.memory_bytes,
                    timeout_ms: entry.timeout_ms,
                    fuel: entry.fuel,
                    name_span: name.span(),
                    path_span: entry.path.span(),
                    sha256_span: entry.sha256.as_ref().map(Spanned::span),
                };
                match out.iter_mut().find(|d| d.name == decl.name) {
                    Some(slot) => *slot = decl,
                    None => out.push(decl),
                }
            }
        }
        Ok(out)
    }

    /// Applies the stack over the catalogue's defaults.
    pub fn resolve(self, catalogue: &[(&str, &RuleMeta)]) -> Result<Config, PackError> {
        let mut cfg = Config {
            rules: catalogue
                .iter()
                .map(|(code, meta)| RuleSetting {
                    code: code.to_string(),
                    enabled: true,
                    severity: meta.severity,
                    params: Params::defaults(meta.params),
                })
                .collect(),
            ..Default::default()
        };
        let mut r = Resolver { catalogue, cfg: &mut cfg };
        for (src, pack) in self.files {
            r.apply_pack(&src, pack)?;
            r.cfg.packs.push(src.path);
        }
        Ok(cfg)
    }
}

/// A path written in a pack, relative to the pack's folder (builtin packs: to the working
/// directory).
fn relative_to(pack_path: &str, path: &str) -> String {
    let p = std::path::Path::new(path);
    if p.is_absolute() || pack_path.starts_with("builtin:") {
        return path.to_string();
    }
    match std::path::Path::new(pack_path).parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(p).display().to_string(),
        _ => path.to_string(),
    }
}

fn collect(
    reference: &str,
    from: Option<(&SourceText, Range<usize>)>,
    loader: &dyn PackLoader,
    chain: &mut Vec<String>,
    out: &mut Vec<(SourceText, PackFile)>,
) -> Result<(), PackError> {
    let src =
        loader.load(reference, from.as_ref().map(|(s, _)| s.path.as_str())).map_err(|e| match &from {
            Some((s, span)) => PackError::new(&s.path, &s.text, Some(span.clone()), e),
            None => PackError::new(reference, "", None, e),
        })?;
    if chain.contains(&src.path) {
        let (s, span) = from.expect("a cycle needs an including pack");
        return Err(PackError::new(
            &s.path,
            &s.text,
            Some(span),
            format!("`extends` cycle: {} → {}", chain.join(" → "), src.path),
        ));
    }
    let pack: PackFile = toml::from_str(&src.text).map_err(|e| toml_error(&src, &e))?;
    chain.push(src.path.clone());
    for ext in &pack.extends {
        collect(ext.get_ref(), Some((&src, ext.span())), loader, chain, out)?;
    }
    chain.pop();
    out.push((src, pack));
    Ok(())
}

struct Resolver<'a> {
    catalogue: &'a [(&'a str, &'a RuleMeta)],
    cfg: &'a mut Config,
}

impl Resolver<'_> {
    fn err(&self, src: &SourceText, span: Range<usize>, msg: impl Into<String>) -> PackError {
        PackError::new(&src.path, &src.text, Some(span), msg)
    }

    /// Checks a selector matches at least one rule; a typo should not silently select nothing.
    fn check_selector(&self, src: &SourceText, sel: &Spanned<String>) -> Result<(), PackError> {
        let s = sel.get_ref();
        if self.catalogue.iter().any(|(code, meta)| selector_matches(s, code, meta.name)) {
            return Ok(());
        }
        let names = self.catalogue.iter().flat_map(|(c, m)| [*c, m.name]);
        Err(self
            .err(src, sel.span(), format!("no rule matches `{s}` (a code, code prefix or rule name)"))
            .with_help(did_you_mean(s, names)))
    }

    fn apply_pack(&mut self, src: &SourceText, pack: PackFile) -> Result<(), PackError> {
        if let Some(select) = &pack.select {
            for sel in select {
                self.check_selector(src, sel)?;
            }
            for (setting, (code, meta)) in self.cfg.rules.iter_mut().zip(self.catalogue) {
                setting.enabled = select.iter().any(|s| selector_matches(s.get_ref(), code, meta.name));
            }
        }
        for sel in &pack.ignore {
            self.check_selector(src, sel)?;
            for (setting, (code, meta)) in self.cfg.rules.iter_mut().zip(self.catalogue) {
                if selector_matches(sel.get_ref(), code, meta.name) {
                    setting.enabled = false;
                }
            }
        }
        for (key, table) in &pack.rules {
            let Some(i) =
                self.catalogue.iter().position(|(c, m)| *c == key.get_ref() || m.name == key.get_ref())
            else {
                let names = self.catalogue.iter().flat_map(|(c, m)| [*c, m.name]);
                return Err(self
                    .err(src, key.span(), format!("unknown rule `{}` in [rules]", key.get_ref()))
                    .with_help(did_you_mean(key.get_ref(), names)));
            };
            let meta = self.catalogue[i].1;
            for (name, value) in table {
                if name.get_ref() == "severity" {
                    let sev = value.get_ref().as_str().and_then(Severity::parse).ok_or_else(|| {
                        self.err(src, value.span(), "severity must be \"error\", \"warning\" or \"note\"")
                    })?;
                    self.cfg.rules[i].severity = sev;
                    continue;
                }
                let Some(spec) = meta.params.iter().find(|p| p.name == name.get_ref()) else {
                    let names = meta.params.iter().map(|p| p.name).chain(["severity"]);
                    let known: Vec<&str> = meta.params.iter().map(|p| p.name).collect();
                    let help = did_you_mean(name.get_ref(), names).or_else(|| {
                        Some(if known.is_empty() {
                            format!("{} has no parameters; only `severity` can be set", meta.code)
                        } else {
                            format!("{} takes: severity, {}", meta.code, known.join(", "))
                        })
                    });
                    return Err(self
                        .err(
                            src,
                            name.span(),
                            format!("unknown parameter `{}` for {}", name.get_ref(), meta.code),
                        )
                        .with_help(help));
                };
                let v = match value.get_ref() {
                    toml::Value::Integer(n) => ParamValue::Num(*n as f64),
                    toml::Value::Float(f) => ParamValue::Num(*f),
                    toml::Value::String(s) => ParamValue::Text(s.clone()),
                    other => ParamValue::Text(other.to_string()),
                };
                spec.kind
                    .validate(&v)
                    .map_err(|e| self.err(src, value.span(), format!("{}.{}: {e}", meta.code, spec.name)))?;
                self.cfg.rules[i].params.set(spec.name, v);
            }
        }
        if let Some(declare) = pack.declare {
            if let Some(w) = declare.workload {
                let wl = Workload::parse(w.get_ref()).ok_or_else(|| {
                    self.err(src, w.span(), "workload must be \"oltp\" or \"data-warehouse\"")
                        .with_help(did_you_mean(w.get_ref(), ["oltp", "data-warehouse"]))
                })?;
                self.cfg.declarations.workload = Some((wl, src.path.clone()));
            }
            for s in declare.stripe_unit {
                if *s.stripe_unit_bytes.get_ref() == 0 {
                    return Err(self.err(
                        src,
                        s.stripe_unit_bytes.span(),
                        "stripe_unit_bytes must be positive",
                    ));
                }
                self.cfg.declarations.stripes.push(DeclaredStripe {
                    entity: Glob::new(s.entity),
                    stripe_unit_bytes: *s.stripe_unit_bytes.get_ref(),
                    data_disks: s.data_disks,
                    source: src.path.clone(),
                });
            }
        }
        for w in pack.waivers {
            for sel in &w.rules {
                self.check_selector(src, sel)?;
            }
            let expires = match &w.expires {
                Some(e) => Some(Date::parse(e.get_ref()).ok_or_else(|| {
                    self.err(
                        src,
                        e.span(),
                        format!("expires must be a date as YYYY-MM-DD, found `{}`", e.get_ref()),
                    )
                })?),
                None => None,
            };
            self.cfg.waivers.push(Waiver {
                rules: w.rules.into_iter().map(Spanned::into_inner).collect(),
                entity: Glob::new(w.entity),
                reason: w.reason,
                expires,
                source: src.path.clone(),
            });
        }
        Ok(())
    }
}

/// A TOML or shape error, with a "did you mean" for a misspelt key.
fn toml_error(src: &SourceText, e: &toml::de::Error) -> PackError {
    let msg = e.message().trim().to_string();
    let help = unknown_field_hint(&msg);
    PackError::new(&src.path, &src.text, e.span(), msg).with_help(help)
}

/// Reads serde's "unknown field `x`, expected one of `a`, `b`" and suggests the closest.
fn unknown_field_hint(msg: &str) -> Option<String> {
    let rest = msg.strip_prefix("unknown field `")?;
    let (given, rest) = rest.split_once('`')?;
    let expected: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
    did_you_mean(given, expected.iter().copied())
}
