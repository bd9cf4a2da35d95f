//! The rule contract: metadata (code, name, severity, parameters, docs) and the check itself.

use crate::facts::{DbFile, Volume};
use crate::finding::{Finding, NotApplicable, NotEvaluated, Severity};
use crate::params::{ParamSpec, Params};
use std::borrow::Cow;

use crate::view::{HostView, Located, UnknownVolume};

/// A section of the snapshot a rule cannot work without. When a host's snapshots lack it, the
/// engine reports the rule "not evaluated" for the host instead of running it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    Disks,
    Partitions,
    Volumes,
    StoragePools,
    VirtualDisks,
    RaidSets,
    SqlInstances,
    DatabaseFiles,
}

impl Need {
    /// The snapshot field, as collectors name it in `not_collected`.
    pub fn fact(self) -> &'static str {
        match self {
            Need::Disks => "disks",
            Need::Partitions => "partitions",
            Need::Volumes => "volumes",
            Need::StoragePools => "storage_pools",
            Need::VirtualDisks => "virtual_disks",
            Need::RaidSets => "raid_sets",
            Need::SqlInstances => "sql_instances",
            Need::DatabaseFiles => "sql_instances[].databases[].files",
        }
    }

    pub fn present(self, v: &HostView) -> bool {
        match self {
            Need::Disks => v.disks.is_some(),
            Need::Partitions => v.partitions.is_some(),
            Need::Volumes => v.volumes.is_some(),
            Need::StoragePools => v.storage_pools.is_some(),
            Need::VirtualDisks => v.virtual_disks.is_some(),
            Need::RaidSets => v.raid_sets.is_some(),
            Need::SqlInstances => v.instances.is_some(),
            Need::DatabaseFiles => v.has_files(),
        }
    }
}

/// How directly a rule's findings cost the server: the text reports list findings of the same
/// severity in this order, most direct first. A builtin rule declares it (`declare_rule!`'s
/// `impact:`); plugin rules are [`Impact::Unclassified`], after every builtin class.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Impact {
    /// Harm measured on the server itself: latency, a volume filling up.
    Measured,
    /// A layout cause that takes an outage to fix: alignment, striping, the file system's
    /// format, log and data on the same spindles.
    Layout,
    /// Configuration fixed online or at a restart: file placement, growth.
    Configuration,
    /// Not declared (plugin rules, whose contract does not carry it).
    #[default]
    Unclassified,
}

impl Impact {
    /// In words, for `spindle explain`.
    pub fn describe(self) -> &'static str {
        match self {
            Impact::Measured => "measured harm on the server",
            Impact::Layout => "a layout cause, fixed with an outage",
            Impact::Configuration => "configuration, fixed online or at a restart",
            Impact::Unclassified => "unclassified",
        }
    }
}

/// How settled a rule is. A preview rule runs only where it is selected by its exact code or
/// name (`--select ALN005`, a pack's `extend-select`): never by default, and never through a
/// prefix (`ALN`), so that a new check cannot fail a pipeline that did not ask for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stage {
    #[default]
    Stable,
    Preview,
}

/// What every rule declares about itself. The docs are the rule's doc comment, with the fixed
/// headings What it checks / Why it matters / How to fix / References.
#[derive(Debug)]
pub struct RuleMeta {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
    /// How directly its findings cost the server: the triage order of the text reports.
    pub impact: Impact,
    /// The spindle version that first shipped it (`0.1.0`); empty for plugin rules.
    pub since: &'static str,
    pub stage: Stage,
    /// How the plan builder addresses its findings, in the order it tries them; empty: each
    /// finding is a manual step with the rule's fix.
    pub remedies: &'static [crate::plan::Remedy],
    pub needs: &'static [Need],
    pub params: &'static [ParamSpec],
    /// Raw doc comment lines (each with rustdoc's leading space); see [`RuleMeta::docs`].
    pub raw_docs: &'static str,
    /// [`RuleMeta::default_fix`], worked out on first use: `std::sync::OnceLock::new()`.
    #[doc(hidden)]
    pub fix_cache: std::sync::OnceLock<String>,
}

impl RuleMeta {
    /// The docs as Markdown.
    pub fn docs(&self) -> String {
        let mut out = String::with_capacity(self.raw_docs.len());
        for line in self.raw_docs.lines() {
            out.push_str(line.strip_prefix(' ').unwrap_or(line));
            out.push('\n');
        }
        out.trim().to_string() + "\n"
    }

    /// One section of the docs (`"How to fix"`), without its heading. Read from the raw lines,
    /// without building the whole docs: rules take their default fix from it on every host.
    pub fn doc_section(&self, heading: &str) -> Option<String> {
        let mut lines = self.raw_docs.lines().map(|l| l.strip_prefix(' ').unwrap_or(l));
        lines.by_ref().find(|l| l.strip_prefix("## ") == Some(heading))?;
        let mut out = String::new();
        for line in lines.take_while(|l| !l.starts_with("## ")) {
            out.push_str(line);
            out.push('\n');
        }
        Some(out.trim().to_string())
    }

    /// The fix a finding gives unless the rule writes its own: the docs' "How to fix", read
    /// once per run rather than once per host.
    pub fn default_fix(&self) -> &str {
        self.fix_cache.get_or_init(|| self.doc_section("How to fix").unwrap_or_default())
    }

    /// The category, from the code's letters (`ALN001` → `ALN`).
    pub fn category(&self) -> &'static str {
        let n = self.code.find(|c: char| c.is_ascii_digit()).unwrap_or(self.code.len());
        &self.code[..n]
    }
}

/// A rule the engine can run.
pub trait Rule: Send + Sync {
    fn meta(&self) -> &RuleMeta;
    /// Checks one host. Not called for a rule that belongs to a [`RuleGroup`].
    fn check(&self, cx: &mut Ctx<'_>);
    /// The group that checks this rule together with others in one call (a plugin's rules).
    fn group(&self) -> Option<&dyn RuleGroup> {
        None
    }
}

/// Rules checked together, in one call per host: a plugin runs all its enabled rules at once.
pub trait RuleGroup: Send + Sync {
    /// Names the group in errors (`plugin acme (pack ./acme.toml)`); rules of one group share it.
    fn id(&self) -> &str;
    /// Checks `rules` on one host. Findings and not-evaluated entries carry the rules' active
    /// codes. An error stands for every rule of the call: the run is then incomplete.
    fn check(
        &self,
        view: &HostView,
        rules: &[&ActiveRule<'_>],
    ) -> Result<(Vec<Finding>, Vec<NotEvaluated>), crate::finding::RuleError>;
}

/// A builtin rule: its metadata and check function, made by [`declare_rule!`](crate::declare_rule).
pub struct BuiltinRule {
    pub meta: RuleMeta,
    /// The rule's check behind its typed parameters: reads them from the context's [`Params`]
    /// (once per active rule, see [`Params::typed`]) and runs the check the declaration names.
    pub check: fn(&mut Ctx<'_>),
}

impl Rule for BuiltinRule {
    fn meta(&self) -> &RuleMeta {
        &self.meta
    }
    fn check(&self, cx: &mut Ctx<'_>) {
        (self.check)(cx)
    }
}

/// What a rule sees while it runs, and where its findings go. `P` is how it reads its
/// parameters: the typed struct of a builtin rule's declaration, or the [`Params`] by name
/// where they cross into the engine ([`Rule::check`]).
pub struct Ctx<'a, P = Params> {
    pub view: &'a HostView,
    pub params: &'a P,
    pub(crate) code: &'a str,
    pub(crate) meta: &'a RuleMeta,
    pub(crate) severity: Severity,
    pub(crate) findings: Vec<Finding>,
    pub(crate) not_evaluated: Vec<NotEvaluated>,
    pub(crate) not_applicable: Vec<NotApplicable>,
    /// Keys only, borrowed from the view: most judged entities pass, and a pass is reported by
    /// key, so nothing is copied until the engine keeps the few that did.
    pub(crate) judged: Vec<Cow<'a, str>>,
}

/// Everything one rule recorded on one host.
#[derive(Debug, Default)]
pub struct Recorded<'a> {
    pub findings: Vec<Finding>,
    pub not_evaluated: Vec<NotEvaluated>,
    pub not_applicable: Vec<NotApplicable>,
    /// The key of every entity the rule judged, findings or not (see [`Ctx::judged`]); may
    /// repeat one.
    pub judged: Vec<Cow<'a, str>>,
}

impl<'a, P> Ctx<'a, P> {
    pub fn new(
        view: &'a HostView,
        params: &'a P,
        code: &'a str,
        meta: &'a RuleMeta,
        severity: Severity,
    ) -> Self {
        Ctx {
            view,
            params,
            code,
            meta,
            severity,
            findings: vec![],
            not_evaluated: vec![],
            not_applicable: vec![],
            judged: vec![],
        }
    }

    /// Runs `f` on this host and rule with `params` as the parameters; what it records joins
    /// this context's findings. Parameters that live as long as the view (the typed parameters
    /// [`Params::typed_ref`] caches) take [`Ctx::with_params_of`], which copies nothing.
    pub fn with_params<Q, R>(&mut self, params: &Q, f: impl FnOnce(&mut Ctx<'_, Q>) -> R) -> R {
        let (out, judged) = self.run_with(params, vec![], f);
        // Keys borrowed for the shorter life of `params` are kept as copies.
        self.judged.extend(judged.into_iter().map(|k| Cow::Owned(k.into_owned())));
        out
    }

    /// [`Ctx::with_params`] for parameters that live as long as the view.
    pub fn with_params_of<Q, R>(&mut self, params: &'a Q, f: impl FnOnce(&mut Ctx<'a, Q>) -> R) -> R {
        let judged = std::mem::take(&mut self.judged);
        let (out, judged) = self.run_with(params, judged, f);
        self.judged = judged;
        out
    }

    /// Runs `f` in a context with `params` that records into this one's lists, starting from
    /// `judged`; gives back what `f` returned and the judged keys.
    fn run_with<'b, Q, R>(
        &mut self,
        params: &'b Q,
        judged: Vec<Cow<'b, str>>,
        f: impl FnOnce(&mut Ctx<'b, Q>) -> R,
    ) -> (R, Vec<Cow<'b, str>>)
    where
        'a: 'b,
    {
        let mut inner = Ctx {
            view: self.view,
            params,
            code: self.code,
            meta: self.meta,
            severity: self.severity,
            findings: std::mem::take(&mut self.findings),
            not_evaluated: std::mem::take(&mut self.not_evaluated),
            not_applicable: std::mem::take(&mut self.not_applicable),
            judged,
        };
        let out = f(&mut inner);
        self.findings = inner.findings;
        self.not_evaluated = inner.not_evaluated;
        self.not_applicable = inner.not_applicable;
        (out, inner.judged)
    }

    /// Records that the rule judged `at`: the engine lists it as passed unless the rule also
    /// records a finding, a not-evaluated or a not-applicable entry for it. Call it for each
    /// entity the rule decides about, before or after deciding; never for one it skips as out of
    /// its scope (a log file for a data-file rule), which would list it as verified.
    pub fn judged<T>(&mut self, at: &'a Located<T>) {
        self.judged.push(Cow::Borrowed(&at.key));
    }

    /// Records a finding about `field` of `at` with the rule's severity and its docs' fix;
    /// adjust it through the returned reference.
    pub fn report<T>(&mut self, at: &Located<T>, field: &str, message: impl Into<String>) -> &mut Finding {
        // Empty until the rule is done: most rules write a fix of their own for the entity, and
        // the docs' fix (some hundred bytes) is copied only into the findings left without one.
        let fix = String::new();
        self.findings.push(Finding {
            code: self.code.to_string(),
            rule: self.meta.name.to_string(),
            severity: self.severity,
            message: message.into(),
            measured: None,
            expected: None,
            measured_quantity: None,
            expected_quantity: None,
            entity: at.entity(),
            field: (!field.is_empty()).then(|| field.to_string()),
            fix,
            gain: None,
            waiver: None,
            baseline: None,
        });
        self.findings.last_mut().expect("just pushed")
    }

    /// Records that the rule could not judge `at` because `missing` is absent.
    pub fn not_evaluated<T>(&mut self, at: &Located<T>, missing: &str) {
        let reason = self.collector_reason(missing);
        self.not_evaluated.push(NotEvaluated {
            code: self.code.to_string(),
            rule: self.meta.name.to_string(),
            entity: Some(at.entity()),
            missing: missing.to_string(),
            reason,
        });
    }

    /// Records a not-evaluated with an explanation of the rule's own (e.g. how to declare it).
    pub fn not_evaluated_because<T>(&mut self, at: &Located<T>, missing: &str, reason: impl Into<String>) {
        self.not_evaluated.push(NotEvaluated {
            code: self.code.to_string(),
            rule: self.meta.name.to_string(),
            entity: Some(at.entity()),
            missing: missing.to_string(),
            reason: Some(reason.into()),
        });
    }

    /// Records that the rule had `field` of `at` and chose not to judge it, for `reason` (too
    /// few I/Os to average, a check that does not apply). Unlike "not evaluated", this is not a
    /// gap in the facts: use it only when the fact is there.
    pub fn not_applicable<T>(&mut self, at: &Located<T>, field: &str, reason: impl Into<String>) {
        self.not_applicable.push(NotApplicable {
            code: self.code.to_string(),
            rule: self.meta.name.to_string(),
            entity: at.entity(),
            field: field.to_string(),
            reason: reason.into(),
        });
    }

    /// The value of a fact, or `None` after recording "not evaluated" for it.
    pub fn need<T, V>(&mut self, at: &Located<T>, field: &str, value: Option<V>) -> Option<V> {
        if value.is_none() {
            self.not_evaluated(at, field);
        }
        value
    }

    /// The volume of a database file, or `None` after recording the file "not evaluated" with
    /// the reason [`HostView::volume_of_file`] gives.
    pub fn volume_of_file(&mut self, f: &Located<DbFile>) -> Option<&'a Located<Volume>> {
        let view: &'a HostView = self.view;
        match view.volume_of_file(f) {
            Ok(v) => Some(v),
            Err(why) => {
                self.unknown_volume(f, &why);
                None
            }
        }
    }

    /// Records that the rule could not judge file `f` because its volume is unknown.
    pub fn unknown_volume(&mut self, f: &Located<DbFile>, why: &UnknownVolume) {
        self.not_evaluated_because(f, why.missing(), why.to_string());
    }

    /// The docs' fix for each finding the rule gave none of its own.
    fn default_fixes(&mut self) {
        for f in self.findings.iter_mut().filter(|f| f.fix.is_empty()) {
            f.fix = self.meta.default_fix().to_string();
        }
    }

    /// The reason a collector gave for not collecting `fact`, if any.
    pub fn collector_reason(&self, fact: &str) -> Option<String> {
        collector_reason(self.view, fact)
    }

    /// The findings and not-evaluated entries; [`Ctx::into_recorded`] has the not-applicable
    /// ones too.
    pub fn into_results(mut self) -> (Vec<Finding>, Vec<NotEvaluated>) {
        self.default_fixes();
        (self.findings, self.not_evaluated)
    }

    pub fn into_recorded(mut self) -> Recorded<'a> {
        self.default_fixes();
        Recorded {
            findings: self.findings,
            not_evaluated: self.not_evaluated,
            not_applicable: self.not_applicable,
            judged: self.judged,
        }
    }
}

// Defined beside the view it reads; kept here under its old path for rule crates.
pub use crate::view::collector_reason;

/// The impact class a rule declares; plugin rules, which declare none, are unclassified.
#[doc(hidden)]
#[macro_export]
macro_rules! __impact {
    () => {
        $crate::rule::Impact::Unclassified
    };
    ($impact:ident) => {
        $crate::rule::Impact::$impact
    };
}

/// The stage a rule declares; stable when it declares none.
#[doc(hidden)]
#[macro_export]
macro_rules! __stage {
    () => {
        $crate::rule::Stage::Stable
    };
    ($stage:ident) => {
        $crate::rule::Stage::$stage
    };
}

/// Declares a builtin rule: its doc comment is its documentation (What it checks / Why it
/// matters / How to fix / References), feeding `spindle explain`, SARIF help and the README; its
/// parameters become both the rule's [`ParamSpec`](crate::params::ParamSpec)s (what packs
/// validate against) and a struct with one typed field per parameter (what the check reads).
///
/// ```ignore
/// declare_rule! {
///     /// ## What it checks
///     /// ...
///     pub static PARTITION_OFFSET_ALIGNMENT = {
///         code: "ALN001",
///         name: "partition-offset-alignment",
///         severity: Error,
///         summary: "Partition offsets are a multiple of the alignment boundary",
///         since: "0.1.0",
///         impact: Layout,
///         remedy: [Rebuild(Alignment)],
///         needs: [Partitions],
///         params: AlignmentParams {
///             alignment_bytes: { kind: Bytes, default: Num(65536.0), doc: "Boundary offsets must be a multiple of" },
///         },
///         check: check,
///     }
/// }
///
/// fn check(cx: &mut Ctx<'_, AlignmentParams>) {
///     let alignment: u64 = cx.params.alignment_bytes;
/// }
/// ```
///
/// A field's type follows its kind: `Bytes` → `u64`, `Count` → `u32`, `Ms`, `Percent` and
/// `Factor` → `f64`, `Choice(&["a", "b"])` → `&'static str` (one of the words), `Choice(T)` →
/// `T` for a [`Choice`](crate::params::Choice) type (`bool` for `"no"`/`"yes"`, `Workload`). A
/// rule without parameters writes `params: []` and its check takes
/// `Ctx<'_, NoParams>`.
///
/// `since:` is the version that first shipped the rule and `stage:` a [`Stage`] (`Preview`
/// until its thresholds are settled; stable when absent).
/// `impact:` is an [`Impact`] variant (every builtin rule declares one: a test holds it).
/// `remedy:` lists the [`Remedy`](crate::plan::Remedy) values the plan builder addresses its
/// findings with, in order (the variants of `Remedy` and of the enums inside it are in scope);
/// without it, each finding is a manual step carrying the rule's fix.
#[macro_export]
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        $vis:vis static $ident:ident = {
            code: $code:literal,
            name: $name:literal,
            severity: $sev:ident,
            summary: $summary:literal,
            $(since: $since:literal,)?
            $(stage: $stage:ident,)?
            $(impact: $impact:ident,)?
            $(remedy: [$($remedy:expr),* $(,)?],)?
            needs: [$($need:ident),* $(,)?],
            params: [],
            check: $check:path $(,)?
        }
    ) => {
        $crate::declare_rule! {
            @static [$($doc)*] $vis $ident $code $name $sev $summary [$($since)?] [$($stage)?] [$($impact)?] [$($($remedy),*)?]
            [$($need)*] $crate::params::NoParams [] $check
        }
    };
    (
        $(#[doc = $doc:literal])*
        $vis:vis static $ident:ident = {
            code: $code:literal,
            name: $name:literal,
            severity: $sev:ident,
            summary: $summary:literal,
            $(since: $since:literal,)?
            $(stage: $stage:ident,)?
            $(impact: $impact:ident,)?
            $(remedy: [$($remedy:expr),* $(,)?],)?
            needs: [$($need:ident),* $(,)?],
            params: $params:ident {
                $($pname:ident : {
                    kind: $kind:ident $(($($karg:tt)*))?,
                    default: $pdefault:expr,
                    doc: $pdoc:literal $(,)?
                }),* $(,)?
            },
            check: $check:path $(,)?
        }
    ) => {
        #[doc = concat!("The parameters of ", $code, " as its check reads them.")]
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $params {
            $(
                #[doc = $pdoc]
                pub $pname: $crate::__param_type!($kind $(($($karg)*))?),
            )*
        }

        impl $crate::params::FromParams for $params {
            fn from_params(p: &$crate::params::Params) -> Self {
                $params {
                    $($pname: p.read(
                        stringify!($pname),
                        $crate::__param_kind!($kind $(($($karg)*))?),
                        { #[allow(unused_imports)] use $crate::params::ParamDefault::*; $pdefault },
                    ),)*
                }
            }
        }

        $crate::declare_rule! {
            @static [$($doc)*] $vis $ident $code $name $sev $summary [$($since)?] [$($stage)?] [$($impact)?] [$($($remedy),*)?]
            [$($need)*] $params [$({ $pname [$kind $(($($karg)*))?] $pdefault, $pdoc })*] $check
        }
    };
    (
        @static [$($doc:tt)*] $vis:vis $ident:ident $code:tt $name:tt $sev:ident $summary:tt
        [$($since:literal)?] [$($stage:ident)?] [$($impact:ident)?] [$($remedy:expr),*] [$($need:ident)*] $params:ty [$({ $pname:ident [$($kind:tt)*] $pdefault:expr, $pdoc:tt })*]
        $check:path
    ) => {
        $vis static $ident: $crate::rule::BuiltinRule = $crate::rule::BuiltinRule {
            meta: $crate::rule::RuleMeta {
                code: $code,
                name: $name,
                severity: $crate::finding::Severity::$sev,
                summary: $summary,
                impact: $crate::__impact!($($impact)?),
                since: concat!("", $($since)?),
                stage: $crate::__stage!($($stage)?),
                remedies: {
                    #[allow(unused_imports)]
                    use $crate::plan::{GrowthFrom::*, Manual::*, MoveReason::*, RebuildPart::*, Remedy::*};
                    &[$($remedy),*]
                },
                needs: &[$($crate::rule::Need::$need),*],
                params: &[$($crate::params::ParamSpec {
                    name: stringify!($pname),
                    kind: $crate::__param_kind!($($kind)*),
                    default: { #[allow(unused_imports)] use $crate::params::ParamDefault::*; $pdefault },
                    doc: $pdoc,
                }),*],
                raw_docs: concat!($($doc, "\n"),*),
                fix_cache: ::std::sync::OnceLock::new(),
            },
            check: {
                fn typed(cx: &mut $crate::rule::Ctx<'_>) {
                    match cx.params.typed_ref::<$params>() {
                        Some(params) => cx.with_params_of(params, $check),
                        None => {
                            let params = cx.params.typed::<$params>();
                            cx.with_params(&*params, $check)
                        }
                    }
                }
                typed
            },
        };
    };
}

/// A rule as the active packs configure it.
pub struct ActiveRule<'r> {
    pub rule: &'r dyn Rule,
    /// The code findings carry (plugin rules are namespaced: `acme/NAM001`).
    pub code: String,
    pub severity: Severity,
    pub params: Params,
}

impl<'r> ActiveRule<'r> {
    /// `rule` under its own code, at its default severity and parameters (no pack).
    pub fn at_defaults(rule: &'r dyn Rule) -> Self {
        let m = rule.meta();
        ActiveRule {
            rule,
            code: m.code.to_string(),
            severity: m.severity,
            params: Params::defaults(m.params),
        }
    }
}
