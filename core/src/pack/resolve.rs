use std::ops::Range;

use toml::Spanned;

use super::error::{MAX_ERRORS_PER_PACK, PackError, PackErrors, did_you_mean, more_errors};
use super::file::{DeclareSection, PackFile, SourceText, WaiverEntry};
use super::parse::parse_pack;
use crate::date::Date;
use crate::declare::{Declarations, DeclaredStripe, Workload};
use crate::engine::{ActiveRule, Waiver, selector_enables, selector_matches};
use crate::finding::Severity;
use crate::glob::Glob;
use crate::load::line_col;
use crate::params::{ParamValue, Params};
use crate::rule::{Rule, RuleMeta, Stage};

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
    /// Where each of `waivers` is written, as (line, column) of its `rules`, in the same order.
    pub waiver_at: Vec<Option<(usize, usize)>>,
    /// `waiver_warn_days`, when a pack sets it (see [`Config::waiver_warn_days`]).
    pub waiver_warn_days_set: Option<u32>,
    /// The pack files applied, in order.
    pub packs: Vec<String>,
}

/// How many days before a waiver expires the runs start warning about it, unless a pack says.
pub const DEFAULT_WAIVER_WARN_DAYS: u32 = 30;

impl Config {
    /// A waiver that expires within this many days is a warning.
    pub fn waiver_warn_days(&self) -> u32 {
        self.waiver_warn_days_set.unwrap_or(DEFAULT_WAIVER_WARN_DAYS)
    }

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
///
/// Every error is reported: a pack that cannot be read or parsed does not stop the others from
/// being checked against the catalogue.
pub fn resolve(
    catalogue: &[(&str, &RuleMeta)],
    packs: &[&str],
    loader: &dyn PackLoader,
) -> Result<Config, PackErrors> {
    let (stack, mut errors) = read_all(packs, loader);
    let read = stack.read.clone();
    let (cfg, rule_errors) = stack.apply(catalogue);
    errors.extend(rule_errors);
    finish(cfg, errors, &read)
}

/// Reads `packs` and everything they extend, in the order they apply. Every pack is read, so
/// the error lists what is wrong in all of them: missing files, `extends` cycles, syntax errors,
/// unknown keys and mistyped values.
pub fn load_packs(packs: &[&str], loader: &dyn PackLoader) -> Result<PackStack, PackErrors> {
    let (stack, errors) = read_all(packs, loader);
    let read = stack.read.clone();
    finish(stack, errors, &read)
}

/// The packs that could be read, and what is wrong with the rest (and with parts of those).
fn read_all(packs: &[&str], loader: &dyn PackLoader) -> (PackStack, Vec<PackError>) {
    let mut stack = PackStack { files: vec![], read: vec![] };
    let mut errors = vec![];
    let mut walk = Walk { chain: vec![], reads: 0 };
    for p in packs {
        collect(p, None, loader, &mut walk, &mut stack, &mut errors);
    }
    (stack, errors)
}

/// Most packs one stack reads, each counted every time a `--pack` or an `extends` reaches it. A
/// pack reached twice (two packs extending `recommended`) is read twice, so without a bound a
/// dozen small files that each extend all the others are read a dozen factorial times.
pub const MAX_PACK_READS: usize = 64;

/// Where [`collect`] is: the packs on the way to this one (for cycles) and how many it read.
struct Walk {
    chain: Vec<String>,
    reads: usize,
}

/// `errors` grouped by file in the order the files were read (`read`), which is the order a
/// person named them in, rather than in the order the checks found them.
fn finish<T>(value: T, mut errors: Vec<PackError>, read: &[String]) -> Result<T, PackErrors> {
    errors.sort_by_key(|e| read.iter().position(|p| *p == e.path).unwrap_or(read.len()));
    match PackErrors::from_vec(errors) {
        None => Ok(value),
        Some(errors) => Err(errors),
    }
}

/// Pack files in the order they apply: each one's `extends` first, then itself.
pub struct PackStack {
    files: Vec<(SourceText, PackFile)>,
    /// Every pack read or tried, in that order: errors are listed by file in this order.
    read: Vec<String>,
}

/// Most plugins the packs of one run declare: each is compiled and runs on every host.
pub const MAX_PLUGINS: usize = 64;

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
    /// Where the name, path, sha256 and limits are in the pack, for errors.
    pub name_span: Range<usize>,
    pub path_span: Range<usize>,
    pub sha256_span: Option<Range<usize>>,
    pub memory_bytes_span: Option<Range<usize>>,
    pub timeout_ms_span: Option<Range<usize>>,
    pub fuel_span: Option<Range<usize>>,
    /// Where the `config` table is, when the pack has one.
    pub config_span: Option<Range<usize>>,
}

impl PluginDecl {
    /// An error about this plugin, pointing at `span` in its pack.
    pub fn error(&self, span: Range<usize>, message: impl Into<String>) -> PackError {
        PackError::new(&self.pack.path, &self.pack.text, Some(span), message)
    }
}

impl PackStack {
    /// The plugins the packs declare, by name; a later pack's declaration replaces an earlier.
    pub fn plugins(&self) -> Result<Vec<PluginDecl>, PackErrors> {
        let mut out: Vec<PluginDecl> = vec![];
        let mut errors = vec![];
        for (src, pack) in &self.files {
            let before = errors.len();
            for (name, entry) in &pack.plugins {
                let n = name.get_ref();
                let at_name =
                    |message: String| PackError::new(&src.path, &src.text, Some(name.span()), message);
                if errors.len() - before >= MAX_ERRORS_PER_PACK {
                    break;
                }
                // Each declaration holds its pack's text: thousands of them would be gigabytes.
                if out.len() >= MAX_PLUGINS && !out.iter().any(|d| d.name == *n) {
                    errors.push(at_name(format!(
                        "more than {MAX_PLUGINS} plugins; spindle loads at most {MAX_PLUGINS}"
                    )));
                    break;
                }
                if !crate::names::is_kebab(n) {
                    errors.push(at_name(format!(
                        "plugin name `{n}`: use lowercase letters, digits and `-` (it prefixes rule codes)"
                    )));
                    continue;
                }
                let config = entry.config.as_ref().map(Spanned::get_ref).cloned().unwrap_or_default();
                let config_json = match serde_json::to_string(&config) {
                    Ok(json) => json,
                    Err(e) => {
                        errors.push(at_name(format!("plugin {n}: config: {e}")));
                        continue;
                    }
                };
                let decl = PluginDecl {
                    name: n.clone(),
                    pack: src.clone(),
                    path: entry.path.get_ref().clone(),
                    resolved_path: relative_to(&src.path, entry.path.get_ref()),
                    sha256: entry.sha256.as_ref().map(|s| s.get_ref().to_ascii_lowercase()),
                    config_json,
                    memory_bytes: entry.memory_bytes.as_ref().map(|v| *v.get_ref()),
                    timeout_ms: entry.timeout_ms.as_ref().map(|v| *v.get_ref()),
                    fuel: entry.fuel.as_ref().map(|v| *v.get_ref()),
                    name_span: name.span(),
                    path_span: entry.path.span(),
                    sha256_span: entry.sha256.as_ref().map(Spanned::span),
                    memory_bytes_span: entry.memory_bytes.as_ref().map(Spanned::span),
                    timeout_ms_span: entry.timeout_ms.as_ref().map(Spanned::span),
                    fuel_span: entry.fuel.as_ref().map(Spanned::span),
                    config_span: entry.config.as_ref().map(Spanned::span),
                };
                match out.iter_mut().find(|d| d.name == decl.name) {
                    Some(slot) => *slot = decl,
                    None => out.push(decl),
                }
            }
        }
        finish(out, errors, &self.read)
    }

    /// Applies the stack over the catalogue's defaults, checking every pack of it.
    pub fn resolve(self, catalogue: &[(&str, &RuleMeta)]) -> Result<Config, PackErrors> {
        let read = self.read.clone();
        let (cfg, errors) = self.apply(catalogue);
        finish(cfg, errors, &read)
    }

    fn apply(self, catalogue: &[(&str, &RuleMeta)]) -> (Config, Vec<PackError>) {
        let mut cfg = Config {
            rules: catalogue
                .iter()
                .map(|(code, meta)| RuleSetting {
                    code: code.to_string(),
                    // A preview rule runs only where something selects it by name.
                    enabled: meta.stage == Stage::Stable,
                    severity: meta.severity,
                    params: Params::defaults(meta.params),
                })
                .collect(),
            ..Default::default()
        };
        let mut r = Resolver { catalogue, cfg: &mut cfg, errors: vec![], in_pack: 0 };
        for (src, pack) in self.files {
            r.in_pack = 0;
            r.apply_pack(&src, pack);
            if let Some(e) = more_errors(&src, r.in_pack) {
                r.errors.push(e);
            }
            r.cfg.packs.push(src.path);
        }
        let errors = r.errors;
        (cfg, errors)
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

/// Reads `reference` and what it extends into `out`, each pack after the packs it extends. A pack
/// that cannot be read or parsed is left out and its error kept; the others are still read.
fn collect(
    reference: &str,
    from: Option<(&SourceText, Range<usize>)>,
    loader: &dyn PackLoader,
    walk: &mut Walk,
    out: &mut PackStack,
    errors: &mut Vec<PackError>,
) {
    walk.reads += 1;
    if walk.reads > MAX_PACK_READS {
        // Said once, where the bound was crossed; the rest of the walk reads nothing more.
        if walk.reads == MAX_PACK_READS + 1 {
            let message = format!(
                "`extends` reaches more than {MAX_PACK_READS} packs (each counted every time it is \
                 reached); packs extending each other over and over?"
            );
            errors.push(match &from {
                Some((s, span)) => PackError::new(&s.path, &s.text, Some(span.clone()), message),
                None => PackError::new(reference, "", None, message),
            });
        }
        return;
    }
    let chain = &mut walk.chain;
    let src = match loader.load(reference, from.as_ref().map(|(s, _)| s.path.as_str())) {
        Ok(src) => src,
        Err(e) => {
            errors.push(match &from {
                Some((s, span)) => PackError::new(&s.path, &s.text, Some(span.clone()), e),
                None => {
                    out.read.push(reference.to_string());
                    PackError::new(reference, "", None, e)
                }
            });
            return;
        }
    };
    if !out.read.contains(&src.path) {
        out.read.push(src.path.clone());
    }
    if chain.contains(&src.path) {
        let (s, span) = from.expect("a cycle needs an including pack");
        errors.push(PackError::new(
            &s.path,
            &s.text,
            Some(span),
            format!("`extends` cycle: {} → {}", chain.join(" → "), src.path),
        ));
        return;
    }
    let (pack, parse_errors) = parse_pack(&src);
    errors.extend(parse_errors);
    let Some(pack) = pack else { return };
    chain.push(src.path.clone());
    for ext in &pack.extends {
        collect(ext.get_ref(), Some((&src, ext.span())), loader, walk, out, errors);
    }
    walk.chain.pop();
    out.files.push((src, pack));
}

/// Applies packs one after another, keeping every error and going on, so that one run reports
/// all of a pack's mistakes.
struct Resolver<'a> {
    catalogue: &'a [(&'a str, &'a RuleMeta)],
    cfg: &'a mut Config,
    errors: Vec<PackError>,
    /// Errors found in the pack being applied, kept or not: past [`MAX_ERRORS_PER_PACK`] they
    /// are only counted.
    in_pack: usize,
}

impl Resolver<'_> {
    fn err(&mut self, src: &SourceText, span: Range<usize>, msg: impl Into<String>, help: Option<String>) {
        self.in_pack += 1;
        if self.in_pack <= MAX_ERRORS_PER_PACK {
            self.errors.push(PackError::new(&src.path, &src.text, Some(span), msg).with_help(help));
        }
    }

    /// Checks a selector matches at least one rule; a typo should not silently select nothing.
    fn check_selector(&mut self, src: &SourceText, sel: &Spanned<String>) {
        let s = sel.get_ref();
        if self.catalogue.iter().any(|(code, meta)| selector_matches(s, code, meta.name)) {
            return;
        }
        let names = self.catalogue.iter().flat_map(|(c, m)| [*c, m.name]);
        let help = did_you_mean(s, names);
        self.err(src, sel.span(), format!("no rule matches `{s}` (a code, code prefix or rule name)"), help);
    }

    fn apply_pack(&mut self, src: &SourceText, pack: PackFile) {
        self.apply_selection(src, &pack);
        self.apply_rule_tables(src, &pack);
        if let Some(declare) = pack.declare {
            self.apply_declare(src, declare);
        }
        if let Some(days) = pack.waiver_warn_days {
            self.cfg.waiver_warn_days_set = Some(days);
        }
        self.apply_waivers(src, pack.waivers);
    }

    /// The pack's `select` (which rules run, replacing what was selected before) and `ignore`.
    fn apply_selection(&mut self, src: &SourceText, pack: &PackFile) {
        if let Some(select) = &pack.select {
            for sel in select {
                self.check_selector(src, sel);
            }
            for (setting, (code, meta)) in self.cfg.rules.iter_mut().zip(self.catalogue) {
                setting.enabled = select.iter().any(|s| selector_enables(s.get_ref(), code, meta));
            }
        }
        for sel in &pack.ignore {
            self.check_selector(src, sel);
            for (setting, (code, meta)) in self.cfg.rules.iter_mut().zip(self.catalogue) {
                if selector_matches(sel.get_ref(), code, meta.name) {
                    setting.enabled = false;
                }
            }
        }
    }

    /// The pack's `[rules]` tables: each rule's severity and parameters.
    fn apply_rule_tables(&mut self, src: &SourceText, pack: &PackFile) {
        for (key, table) in &pack.rules {
            let rule =
                self.catalogue.iter().position(|(c, m)| *c == key.get_ref() || m.name == key.get_ref());
            if rule.is_none() {
                let names = self.catalogue.iter().flat_map(|(c, m)| [*c, m.name]);
                let help = did_you_mean(key.get_ref(), names);
                self.err(src, key.span(), format!("unknown rule `{}` in [rules]", key.get_ref()), help);
            }
            for (name, value) in table {
                // A severity reads the same for every rule, so it is checked under an unknown one too.
                if name.get_ref() == "severity" {
                    match value.get_ref().as_str().and_then(Severity::parse) {
                        Some(sev) => {
                            if let Some(i) = rule {
                                self.cfg.rules[i].severity = sev;
                            }
                        }
                        None => self.err(
                            src,
                            value.span(),
                            "severity must be \"error\", \"warning\" or \"note\"",
                            None,
                        ),
                    }
                    continue;
                }
                let Some(i) = rule else { continue };
                self.apply_param(src, i, name, value);
            }
        }
    }

    /// The pack's `[declare]` section: the workload and stripe units spindle cannot collect.
    fn apply_declare(&mut self, src: &SourceText, declare: DeclareSection) {
        if let Some(w) = declare.workload {
            match Workload::parse(w.get_ref()) {
                Some(wl) => self.cfg.declarations.workload = Some((wl, src.path.clone())),
                None => {
                    let help = did_you_mean(w.get_ref(), ["oltp", "data-warehouse"]);
                    self.err(src, w.span(), "workload must be \"oltp\" or \"data-warehouse\"", help);
                }
            }
        }
        for s in declare.stripe_unit {
            if *s.stripe_unit_bytes.get_ref() == 0 {
                // 0 is also what a declare hint prints: say what to put there.
                let help = format!(
                    "{} is the placeholder of spindle's declare hint: replace it with the stripe unit \
                     in bytes (KiB × 1024), as the tool named beside it shows",
                    crate::declare::PLACEHOLDER_STRIPE_UNIT_BYTES
                );
                self.err(src, s.stripe_unit_bytes.span(), "stripe_unit_bytes must be positive", Some(help));
                continue;
            }
            self.cfg.declarations.stripes.push(DeclaredStripe {
                entity: Glob::new(s.entity),
                stripe_unit_bytes: *s.stripe_unit_bytes.get_ref(),
                data_disks: s.data_disks,
                source: src.path.clone(),
            });
        }
    }

    /// The pack's waivers, each checked before it is kept.
    fn apply_waivers(&mut self, src: &SourceText, waivers: Vec<WaiverEntry>) {
        for w in waivers {
            for sel in &w.rules {
                self.check_selector(src, sel);
            }
            let expires = match &w.expires {
                Some(e) => match Date::parse(e.get_ref()) {
                    Some(d) => Some(d),
                    None => {
                        let msg = format!("expires must be a date as YYYY-MM-DD, found `{}`", e.get_ref());
                        self.err(src, e.span(), msg, None);
                        continue;
                    }
                },
                None => None,
            };
            self.cfg.waiver_at.push(w.rules.first().map(|r| line_col(&src.text, r.span().start)));
            self.cfg.waivers.push(Waiver {
                rules: w.rules.into_iter().map(Spanned::into_inner).collect(),
                entity: Glob::new(w.entity),
                reason: w.reason,
                expires,
                source: src.path.clone(),
            });
        }
    }

    /// Sets parameter `name` of the catalogue's rule `i`, or says why it cannot be.
    fn apply_param(
        &mut self,
        src: &SourceText,
        i: usize,
        name: &Spanned<String>,
        value: &Spanned<toml::Value>,
    ) {
        let meta = self.catalogue[i].1;
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
            let msg = format!("unknown parameter `{}` for {}", name.get_ref(), meta.code);
            self.err(src, name.span(), msg, help);
            return;
        };
        let v = match value.get_ref() {
            toml::Value::Integer(n) => ParamValue::Num(*n as f64),
            toml::Value::Float(f) => ParamValue::Num(*f),
            toml::Value::String(s) => ParamValue::Text(s.clone()),
            other => ParamValue::Text(other.to_string()),
        };
        match spec.kind.validate(&v) {
            Ok(()) => self.cfg.rules[i].params.set_from(spec.name, v, &src.path),
            Err(e) => self.err(src, value.span(), format!("{}.{}: {e}", meta.code, spec.name), None),
        }
    }
}
