//! The engine of a run: the packs a run applies, resolved once into the rules that judge every
//! host (builtin and the packs' plugins), what the run says about the packs' waivers, and the
//! date waivers expire against.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use spindle_core::date::Date;
use spindle_core::engine::{ActiveRule, HostReport, check_host};
use spindle_core::pack::{Config, Selection, UnknownSelector, load_packs};
use spindle_core::rule::{Rule, RuleMeta};
use spindle_core::view::{Document, HostView};
use spindle_plugin_host::{Limits, PluginHost, PluginRule, Pool, default_cache_dir, load_rules};
use spindle_report::{RuleInfo, RuleParams};

use crate::errors::UserError;
use crate::packs::Loader;

/// The rules and settings of one pack list, with the plugins it loaded: what judges a host.
pub struct Engine {
    // Kept alive for the plugin rules, which call into it.
    _host: Option<PluginHost>,
    cfg: Config,
    /// Every rule the packs were resolved against: builtin, then plugin rules.
    rules: Vec<&'static dyn Rule>,
    /// The packs' plugins: name, and the pack that declares it.
    plugins: Vec<(String, String)>,
    /// The enabled rules with their settings, resolved once for every host.
    active: Vec<ActiveRule<'static>>,
    /// Per waiver of the packs: whether it matched a finding on any host checked so far. Hosts
    /// are checked on several threads.
    waiver_used: Vec<AtomicBool>,
    hosts_checked: AtomicUsize,
}

impl Engine {
    /// Loads `packs` (builtin names or TOML files; empty: `recommended`) and the plugins they
    /// declare, and resolves the rules once for every host.
    pub fn load(packs: &[String]) -> Result<Engine, UserError> {
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        Engine::load_with(packs, &Selection::default(), threads + 1)
    }

    /// [`Engine::load`], then the command line's `--select`, `--extend-select` and `--ignore`
    /// over the packs' selection; at most `concurrent_calls` plugin calls run at once (the
    /// plugin host reserves that many instance slots).
    pub fn load_with(
        packs: &[String],
        selection: &Selection,
        concurrent_calls: usize,
    ) -> Result<Engine, UserError> {
        let refs: Vec<&str> =
            if packs.is_empty() { vec!["recommended"] } else { packs.iter().map(String::as_str).collect() };
        let stack = load_packs(&refs, &Loader)?;
        let decls = stack.plugins()?;
        // The engine and its compiled-code cache only when a pack asks for a plugin.
        let host = if decls.is_empty() {
            None
        } else {
            // Fuel metering costs every call; compile it in only when a pack sets a fuel limit.
            let fuel = decls.iter().any(|d| d.fuel.is_some());
            let pool = Pool {
                concurrent_calls: u32::try_from(concurrent_calls).unwrap_or(u32::MAX),
                // Each call's own limit is the store limiter's; the slots fit the largest.
                max_memory_bytes: decls
                    .iter()
                    .map(|d| d.memory_bytes.unwrap_or(Limits::default().memory_bytes))
                    .max()
                    .unwrap_or(Limits::default().memory_bytes),
            };
            Some(
                PluginHost::with_pool(default_cache_dir(), fuel, pool)
                    .map_err(|e| UserError::plain(e.to_string()))?,
            )
        };
        let plugin_rules = match &host {
            Some(host) => load_rules(host, &decls)?,
            None => vec![],
        };
        // A run loads each pack list once and uses its rules to the end, like the builtin rules,
        // which are statics.
        let plugin_rules: &'static [PluginRule] = Box::leak(plugin_rules.into_boxed_slice());
        let rules: Vec<&'static dyn Rule> = spindle_rules::all()
            .iter()
            .map(|r| *r as &dyn Rule)
            .chain(plugin_rules.iter().map(|r| r as &dyn Rule))
            .collect();
        let cfg = {
            let cat: Vec<(&str, &RuleMeta)> = rules.iter().map(|r| (r.meta().code, r.meta())).collect();
            let mut cfg = stack.resolve(&cat)?;
            cfg.apply_selection(&cat, selection).map_err(unknown_selectors)?;
            cfg
        };
        let active = cfg.active(&rules);
        let waiver_used = cfg.waivers.iter().map(|_| AtomicBool::new(false)).collect();
        let plugins = decls.iter().map(|d| (d.name.clone(), d.pack.path.clone())).collect();
        Ok(Engine {
            _host: host,
            cfg,
            rules,
            plugins,
            active,
            waiver_used,
            hosts_checked: AtomicUsize::new(0),
        })
    }

    /// Every rule the packs were resolved against (builtin, then the plugins'), enabled or not.
    pub fn catalogue(&self) -> Vec<(&'static str, &'static RuleMeta)> {
        self.rules.iter().map(|r| (r.meta().code, r.meta())).collect()
    }

    /// For a plugin's rule (`acme/ACM001`): the plugin's name and the pack that declares it.
    pub fn plugin_of(&self, code: &str) -> Option<(&str, &str)> {
        let (ns, _) = code.split_once('/')?;
        self.plugins.iter().find(|(name, _)| name == ns).map(|(n, p)| (n.as_str(), p.as_str()))
    }

    /// The resolved packs: which rules are enabled, at what severity, the files applied.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The active rules as a report's rule table lists them.
    pub fn infos(&self) -> Vec<RuleInfo> {
        self.active.iter().map(|a| RuleInfo::from_meta(&a.code, a.rule.meta(), a.severity)).collect()
    }

    /// The pack files applied, in order.
    pub fn packs(&self) -> &[String] {
        &self.cfg.packs
    }

    /// The parameters of the active rules that have any, as the packs left them.
    pub fn params(&self) -> Vec<RuleParams> {
        self.active.iter().filter_map(RuleParams::from_active).collect()
    }

    /// One host's view, built from its documents with the packs' declarations.
    pub fn view(&self, docs: Vec<Document>) -> HostView {
        HostView::build(docs, self.cfg.declarations.clone())
    }

    /// Runs every active rule on one host and applies the waivers (`today` decides which have
    /// expired).
    pub fn check(&self, view: &HostView, today: Date) -> HostReport {
        let report = check_host(&self.active, view, &self.cfg.waivers, today);
        self.hosts_checked.fetch_add(1, Ordering::Relaxed);
        // The engine applies the first waiver that matches; so is it counted here.
        for f in &report.findings {
            if let Some(i) = self.cfg.waivers.iter().position(|w| w.matches(f)) {
                self.waiver_used[i].store(true, Ordering::Relaxed);
            }
        }
        report
    }

    /// The packs' waivers, each with where it is written (`pack.toml:12:11`) and whether it
    /// matched a finding on a host this engine checked.
    fn waiver_states(&self) -> impl Iterator<Item = (String, &spindle_core::engine::Waiver, bool)> {
        self.cfg.waivers.iter().enumerate().map(|(i, w)| {
            let at = match self.cfg.waiver_at.get(i).copied().flatten() {
                Some((line, col)) => format!("{}:{line}:{col}", w.source),
                None => w.source.clone(),
            };
            (at, w, self.waiver_used[i].load(Ordering::Relaxed))
        })
    }

    /// The active rules, in catalogue order.
    pub fn active(&self) -> &[ActiveRule<'static>] {
        &self.active
    }

    /// The waivers of the packs.
    pub fn waivers(&self) -> &[spindle_core::engine::Waiver] {
        &self.cfg.waivers
    }
}

/// What a run says about the packs' waivers, on stderr: one that expires within the packs'
/// `waiver_warn_days` of `today` (or has expired), and one that matched no finding on any host
/// checked with it. Engines may share a pack (the inventory's pack lists extend the same one):
/// a waiver is one waiver wherever it is written, matched if any engine matched it.
pub fn waiver_warnings(engines: &[&Engine], today: Date) -> Vec<String> {
    // Per waiver, by where it is written: its first engine's view, whether any matched it, and
    // whether any that hold it checked a host.
    let mut seen: Vec<(String, &spindle_core::engine::Waiver, u32, bool, bool)> = vec![];
    for engine in engines {
        let checked = engine.hosts_checked.load(Ordering::Relaxed) > 0;
        for (at, w, used) in engine.waiver_states() {
            match seen.iter_mut().find(|s| s.0 == at) {
                Some(s) => {
                    s.3 |= used;
                    s.4 |= checked;
                }
                None => seen.push((at, w, engine.cfg.waiver_warn_days(), used, checked)),
            }
        }
    }
    let mut out = vec![];
    for (at, w, warn_days, used, checked) in seen {
        let what = format!("waiver for {} on `{}`", w.rules.join(", "), w.entity.as_str());
        if let Some(expires) = w.expires {
            let days = expires.days_since_epoch() - today.days_since_epoch();
            let when = match days {
                0 => "today".to_string(),
                1 => "tomorrow".to_string(),
                n => format!("in {n} days"),
            };
            if days < 0 {
                out.push(format!("warning: {at}: {what} expired on {expires}: its findings count again"));
            } else if days <= i64::from(warn_days) && warn_days > 0 {
                out.push(format!(
                    "warning: {at}: {what} expires on {expires}, {when}: renew it or fix what it waives \
                     (pack setting waiver_warn_days = {warn_days})"
                ));
            }
        }
        if checked && !used {
            out.push(format!(
                "warning: {at}: {what} matched no finding: remove it, or correct its rules or entity"
            ));
        }
    }
    out
}

/// `--select`, `--extend-select` and `--ignore` selectors that match no rule, all in one error.
fn unknown_selectors(unknown: Vec<UnknownSelector>) -> UserError {
    let mut message = match unknown.len() {
        1 => "a rule selector on the command line matches no rule:".to_string(),
        n => format!("{n} rule selectors on the command line match no rule:"),
    };
    for u in &unknown {
        message.push_str(&format!("\n  {} {}", u.flag, u.selector));
        if let Some(help) = &u.help {
            message.push_str(&format!(": {help}"));
        }
    }
    UserError {
        help: Some("selectors are codes (ALN001), code prefixes (ALN, acme/) or rule names; `spindle rules` lists them".into()),
        ..UserError::plain(message)
    }
}

/// Today's date (for waiver expiry) and the run's start time (RFC 3339, UTC, whole seconds).
/// `SPINDLE_TODAY=YYYY-MM-DD` pins both, the time to midnight UTC, so that reports are
/// reproducible.
pub fn clock() -> Result<(Date, String), UserError> {
    if std::env::var_os("SPINDLE_TODAY").is_some() {
        let today = today()?;
        return Ok((today, format!("{today}T00:00:00Z")));
    }
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|_| UserError::plain("the system clock is before 1970"))?
        .as_secs();
    Ok((Date::from_days_since_epoch((secs / 86_400) as i64), spindle_core::date::rfc3339_utc(secs)))
}

/// Today's date, for waiver expiry. `SPINDLE_TODAY=YYYY-MM-DD` pins it (reproducible CI runs).
pub fn today() -> Result<Date, UserError> {
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
