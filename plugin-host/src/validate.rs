//! The contract's rules on what a plugin returns: its metadata at load, its output on each call.
//! Every problem is reported (up to a few), so a plugin author fixes them in one go.
//!
//! Nothing a plugin hands over reaches a report or a terminal unbounded: all the text of one
//! call's output is at most [`MAX_OUTPUT_TEXT`], of its rules' metadata too; each message,
//! check-error and other free text is cut to [`MAX_TEXT_BYTES`], each value quoted in an error
//! about it to [`MAX_QUOTED_BYTES`], with `… (N more bytes)` where it was cut; a finding's
//! `field` (a JSON pointer that reports locate in the snapshot) is refused over
//! [`MAX_FIELD_BYTES`] or [`MAX_FIELD_SEGMENTS`].

use std::collections::HashSet;

use crate::bindings::v0_1::types as wit;
use crate::capture::{escape, escape_bounded};
use crate::types::{Finding, NotEvaluated, PackInfo, ParamDefault, ParamKind, ParamSpec, RuleMeta};

/// The facts `schema_version`s this host can hand a plugin.
pub const FACTS_SCHEMA_VERSIONS: &[u32] = &[spindle_core::facts::SCHEMA_VERSION];
/// Findings one call may return; not-evaluated entries have the same bound.
pub const MAX_FINDINGS: usize = 100_000;
/// Bytes of text one call may return, all strings of all findings and entries together; the
/// same bound holds for all the text of a plugin's `rules`.
pub const MAX_OUTPUT_TEXT: usize = 16 << 20;
/// Bytes kept of one free-text string from a plugin: a check-error's text, a finding's message,
/// measured, expected and fix, a not-evaluated entry's reason, a parameter's doc. A report
/// quotes it for every host, so a longer one is cut, with `… (N more bytes)`.
pub const MAX_TEXT_BYTES: usize = 4096;
/// Bytes of a plugin's value quoted in an error about it (a code, a name, a version, a kind, a
/// default that breaks the contract), cut like [`MAX_TEXT_BYTES`].
pub const MAX_QUOTED_BYTES: usize = 100;
/// Bytes of a finding's `field` or a not-evaluated entry's `missing`: a JSON pointer into an
/// entity, which spindle locates in the snapshot for every report.
pub const MAX_FIELD_BYTES: usize = 4096;
/// Segments of such a pointer: the deepest fact of a snapshot is a handful of levels below its
/// entity.
pub const MAX_FIELD_SEGMENTS: usize = 256;
/// Bytes of an entity key, which names one entity of the facts.
pub const MAX_ENTITY_BYTES: usize = 4096;
/// Rules one plugin may declare.
pub const MAX_RULES: usize = 1000;
/// The headings of a rule's docs, as spindle's builtin rules have them.
pub const DOC_HEADINGS: [&str; 4] = ["What it checks", "Why it matters", "How to fix", "References"];

const MAX_PROBLEMS: usize = 8;

/// The first [`MAX_PROBLEMS`] problems found, and how many there are.
#[derive(Default)]
struct Problems(Vec<String>, usize);

impl Problems {
    fn add(&mut self, p: String) {
        if self.0.len() < MAX_PROBLEMS {
            self.0.push(p);
        }
        self.1 += 1;
    }

    fn finish<T>(self, what: &str, value: T) -> Result<T, String> {
        match self.1 {
            0 => Ok(value),
            1 => Err(format!("{what}: {}", self.0[0])),
            n => {
                let mut s = format!("{what}: {n} problems:");
                for p in &self.0 {
                    s.push_str(&format!("\n  - {p}"));
                }
                if n > MAX_PROBLEMS {
                    s.push_str(&format!("\n  - and {} more", n - MAX_PROBLEMS));
                }
                Err(s)
            }
        }
    }
}

pub use spindle_core::names::{is_code, is_kebab, is_snake};

/// Printable on one line: no control characters.
fn one_line(s: &str) -> bool {
    !s.chars().any(char::is_control)
}

/// A plugin's value, to quote in an error about it.
fn quote(s: &str) -> String {
    escape_bounded(s, MAX_QUOTED_BYTES)
}

/// A plugin's free text, to keep.
pub(crate) fn text(s: &str) -> String {
    escape_bounded(s, MAX_TEXT_BYTES)
}

/// What is wrong with `pointer` as a `field` or `missing`, if it is too long to locate.
fn pointer_too_long(pointer: &str) -> Option<String> {
    if pointer.len() > MAX_FIELD_BYTES {
        return Some(format!("{} bytes long, more than {MAX_FIELD_BYTES}", pointer.len()));
    }
    let segments = pointer.trim_start_matches('/').split('/').count();
    (segments > MAX_FIELD_SEGMENTS)
        .then(|| format!("{segments} segments long, more than {MAX_FIELD_SEGMENTS}"))
}

/// The plugin's `info`, checked.
pub(crate) fn info(info: wit::PackInfo) -> Result<PackInfo, String> {
    let mut p = Problems::default();
    if !is_kebab(&info.id) {
        p.add(format!("pack id `{}` is not kebab-case (`acme`, `contoso-storage`)", quote(&info.id)));
    }
    if info.version.is_empty() || info.version.len() > 64 || !one_line(&info.version) {
        p.add(format!(
            "version `{}` is not a short one-line version (at most 64 bytes)",
            quote(&info.version)
        ));
    }
    if !FACTS_SCHEMA_VERSIONS.contains(&info.facts_schema_version) {
        let accepted: Vec<String> = FACTS_SCHEMA_VERSIONS.iter().map(u32::to_string).collect();
        p.add(format!(
            "it was built for facts schema_version {}; this spindle provides {} (rebuild the plugin \
             against a matching spindle plugin SDK)",
            info.facts_schema_version,
            accepted.join(", ")
        ));
    }
    // Sound or not, what is kept is bounded: a refused plugin's info is still printed.
    let info = PackInfo {
        id: quote(&info.id),
        version: quote(&info.version),
        facts_schema_version: info.facts_schema_version,
    };
    p.finish("its `info` breaks the plugin contract", info)
}

/// The plugin's `rules`, checked and converted.
pub(crate) fn rules(rules: Vec<wit::RuleMeta>) -> Result<Vec<RuleMeta>, String> {
    let mut p = Problems::default();
    if rules.is_empty() {
        p.add("it declares no rules".into());
    }
    if rules.len() > MAX_RULES {
        p.add(format!("it declares {} rules, more than {MAX_RULES}", rules.len()));
    }
    let text_bytes: usize = rules.iter().take(MAX_RULES).map(rule_text).sum();
    if text_bytes > MAX_OUTPUT_TEXT {
        // Refused before anything is escaped or copied.
        return Err(format!(
            "its `rules` break the plugin contract: {} MiB of text, more than {} MiB",
            text_bytes >> 20,
            MAX_OUTPUT_TEXT >> 20
        ));
    }
    let mut codes = HashSet::new();
    let mut names = HashSet::new();
    let mut out = Vec::with_capacity(rules.len().min(MAX_RULES));
    for r in rules.into_iter().take(MAX_RULES) {
        let code = quote(&r.code);
        if !is_code(&r.code) {
            p.add(format!("rule code `{code}` is not 3 uppercase letters and 3 digits (`NAM001`)"));
        } else if !codes.insert(r.code.clone()) {
            p.add(format!("rule code `{code}` is declared twice"));
        }
        if !is_kebab(&r.name) {
            p.add(format!("{code}: name `{}` is not kebab-case (`volume-label-convention`)", quote(&r.name)));
        } else if !names.insert(r.name.clone()) {
            p.add(format!("{code}: name `{}` is used by two rules", r.name));
        }
        if r.summary.trim().is_empty() || r.summary.len() > 300 || !one_line(&r.summary) {
            p.add(format!("{code}: the summary must be one non-empty line of at most 300 bytes"));
        }
        if r.docs.len() > 64 * 1024 {
            p.add(format!("{code}: the docs are over 64 KiB"));
        }
        let missing: Vec<&str> = DOC_HEADINGS
            .iter()
            .copied()
            .filter(|h| !r.docs.lines().any(|l| l.trim_end() == format!("## {h}")))
            .collect();
        if !missing.is_empty() {
            p.add(format!(
                "{code}: the docs lack the heading(s) {}",
                missing.iter().map(|h| format!("`## {h}`")).collect::<Vec<_>>().join(", ")
            ));
        }
        let mut params = Vec::with_capacity(r.params.len());
        let mut param_names = HashSet::new();
        for spec in r.params {
            let name = quote(&spec.name);
            if !is_snake(&spec.name) {
                p.add(format!("{code}: parameter name `{name}` is not snake_case (`min_free_percent`)"));
            } else if !param_names.insert(spec.name.clone()) {
                p.add(format!("{code}: parameter `{name}` is declared twice"));
            }
            match param(&spec) {
                Ok((kind, default)) => {
                    params.push(ParamSpec { name: spec.name, kind, default, doc: text(&spec.doc) })
                }
                Err(e) => p.add(format!("{code}: parameter `{name}`: {e}")),
            }
        }
        out.push(RuleMeta {
            code: r.code,
            name: r.name,
            severity: r.severity.into(),
            summary: escape(&r.summary),
            docs: escape(&r.docs),
            params,
            needs: vec![],
        });
    }
    p.finish("its `rules` break the plugin contract", out)
}

/// A parameter's kind and default, checked as spindle's packs check values.
fn param(spec: &wit::ParamSpec) -> Result<(ParamKind, ParamDefault), String> {
    let default: serde_json::Value = serde_json::from_str(&spec.default_json)
        .map_err(|e| format!("default `{}` is not JSON: {e}", quote(&spec.default_json)))?;
    if spec.kind != "choice" && !spec.choices.is_empty() {
        return Err(format!("kind `{}` takes no choices", quote(&spec.kind)));
    }
    let num = || default.as_f64().filter(|n| n.is_finite());
    let (kind, ok, expected) = match spec.kind.as_str() {
        "bytes" => {
            (ParamKind::Bytes, num().is_some_and(|n| n >= 0.0 && n.fract() == 0.0), "a whole number of bytes")
        }
        "count" => (ParamKind::Count, num().is_some_and(|n| n >= 0.0 && n.fract() == 0.0), "a whole count"),
        "ms" => (ParamKind::Ms, num().is_some_and(|n| n >= 0.0), "milliseconds, 0 or more"),
        "percent" => {
            (ParamKind::Percent, num().is_some_and(|n| (0.0..=100.0).contains(&n)), "a percentage, 0 to 100")
        }
        "factor" => (ParamKind::Factor, num().is_some_and(|n| n > 0.0), "a positive number"),
        "choice" => {
            if spec.choices.is_empty() {
                return Err("kind `choice` needs at least one choice".into());
            }
            let mut seen = HashSet::new();
            if let Some(bad) = spec.choices.iter().find(|c| !is_kebab(c) || !seen.insert(c.as_str())) {
                return Err(format!("choice `{}` is not kebab-case or is listed twice", quote(bad)));
            }
            let ok = default.as_str().is_some_and(|d| spec.choices.iter().any(|c| c == d));
            (ParamKind::Choice(spec.choices.clone()), ok, "one of the choices, as a JSON string")
        }
        other => {
            return Err(format!(
                "unknown kind `{}` (known: bytes, ms, count, percent, factor, choice)",
                quote(other)
            ));
        }
    };
    if !ok {
        return Err(format!("default `{}` is not {expected}", quote(&spec.default_json)));
    }
    let default = match default {
        serde_json::Value::String(s) => ParamDefault::Text(s),
        v => ParamDefault::Num(v.as_f64().unwrap_or_default()),
    };
    Ok((kind, default))
}

/// Text bytes of a rule's metadata.
fn rule_text(r: &wit::RuleMeta) -> usize {
    r.code.len()
        + r.name.len()
        + r.summary.len()
        + r.docs.len()
        + r.params
            .iter()
            .map(|p| {
                p.name.len()
                    + p.kind.len()
                    + p.default_json.len()
                    + p.doc.len()
                    + p.choices.iter().map(String::len).sum::<usize>()
            })
            .sum::<usize>()
}

/// Text bytes of a finding.
fn finding_text(f: &wit::Finding) -> usize {
    let opt = |o: &Option<String>| o.as_ref().map_or(0, String::len);
    f.code.len()
        + f.message.len()
        + f.entity.len()
        + opt(&f.measured)
        + opt(&f.expected)
        + opt(&f.field)
        + opt(&f.fix)
}

fn not_evaluated_text(n: &wit::NotEvaluated) -> usize {
    let opt = |o: &Option<String>| o.as_ref().map_or(0, String::len);
    n.code.len() + n.missing.len() + opt(&n.entity) + opt(&n.reason)
}

/// A call's output, checked against what the plugin declared and the call enabled, converted,
/// with control characters escaped.
pub(crate) fn output(
    out: wit::CheckOutput,
    declared: &[RuleMeta],
    enabled: &[String],
) -> Result<(Vec<Finding>, Vec<NotEvaluated>), String> {
    let what = "its output breaks the plugin contract";
    within_bounds(&out).map_err(|e| format!("{what}: {e}"))?;
    let p = output_problems(&out, declared, enabled);
    if p.1 > 0 {
        return p.finish(what, (vec![], vec![]));
    }
    Ok(converted(out))
}

/// The call's output is no larger than one call may return: in entries, then in text.
fn within_bounds(out: &wit::CheckOutput) -> Result<(), String> {
    if out.findings.len() > MAX_FINDINGS {
        return Err(format!("{} findings, more than {MAX_FINDINGS}", out.findings.len()));
    }
    if out.not_evaluated.len() > MAX_FINDINGS {
        return Err(format!("{} not-evaluated entries, more than {MAX_FINDINGS}", out.not_evaluated.len()));
    }
    let text_bytes: usize = out.findings.iter().map(finding_text).sum::<usize>()
        + out.not_evaluated.iter().map(not_evaluated_text).sum::<usize>();
    if text_bytes > MAX_OUTPUT_TEXT {
        return Err(format!("{} MiB of text, more than {} MiB", text_bytes >> 20, MAX_OUTPUT_TEXT >> 20));
    }
    Ok(())
}

/// Whether `code` is a rule this call enabled; when not, the problem, which says whether the
/// plugin declared it at all.
fn enabled_code(p: &mut Problems, declared: &[RuleMeta], enabled: &[String], kind: &str, code: &str) -> bool {
    if enabled.iter().any(|c| c == code) {
        return true;
    }
    if declared.iter().any(|r| r.code == code) {
        p.add(format!("{kind} for `{code}`, a rule this call did not enable"));
    } else {
        p.add(format!("{kind} for `{}`, a code it did not declare", quote(code)));
    }
    false
}

/// Every entry of the output that breaks the contract: a code not enabled, an entity key that is
/// not one bounded line, an empty message or missing fact, an over-long pointer.
fn output_problems(out: &wit::CheckOutput, declared: &[RuleMeta], enabled: &[String]) -> Problems {
    let mut p = Problems::default();
    for f in &out.findings {
        if enabled_code(&mut p, declared, enabled, "a finding", &f.code) {
            if f.entity.trim().is_empty() || !one_line(&f.entity) || f.entity.len() > MAX_ENTITY_BYTES {
                p.add(format!(
                    "a finding for `{}` names the entity `{}`: an entity key is one non-empty line \
                     of at most {MAX_ENTITY_BYTES} bytes",
                    f.code,
                    quote(&f.entity)
                ));
            }
            if f.message.trim().is_empty() {
                p.add(format!("a finding for `{}` has an empty message", f.code));
            }
            if let Some(why) = f.field.as_deref().and_then(pointer_too_long) {
                p.add(format!("a finding for `{}` has a `field` {why}", f.code));
            }
        }
    }
    for n in &out.not_evaluated {
        if enabled_code(&mut p, declared, enabled, "a not-evaluated entry", &n.code) {
            if n.missing.trim().is_empty() {
                p.add(format!("a not-evaluated entry for `{}` does not say what is missing", n.code));
            }
            if n.entity
                .as_ref()
                .is_some_and(|e| e.trim().is_empty() || !one_line(e) || e.len() > MAX_ENTITY_BYTES)
            {
                p.add(format!(
                    "a not-evaluated entry for `{}` has an empty, multi-line or over-long entity",
                    n.code
                ));
            }
            if let Some(why) = pointer_too_long(&n.missing) {
                p.add(format!("a not-evaluated entry for `{}` has a `missing` {why}", n.code));
            }
        }
    }
    p
}

/// A valid output in spindle's types. Entity keys and pointers are bounded already and must stay
/// whole (they are looked up), so they are only escaped; free text is cut.
fn converted(out: wit::CheckOutput) -> (Vec<Finding>, Vec<NotEvaluated>) {
    let esc = |o: Option<String>| o.map(|s| escape(&s));
    let txt = |o: Option<String>| o.map(|s| text(&s));
    let findings = out
        .findings
        .into_iter()
        .map(|f| {
            let mut f = Finding::from(f);
            f.message = text(&f.message);
            f.entity = escape(&f.entity);
            f.measured = txt(f.measured);
            f.expected = txt(f.expected);
            f.field = esc(f.field);
            f.fix = txt(f.fix);
            f
        })
        .collect();
    let not_evaluated = out
        .not_evaluated
        .into_iter()
        .map(|n| {
            let mut n = NotEvaluated::from(n);
            n.missing = escape(&n.missing);
            n.entity = esc(n.entity);
            n.reason = txt(n.reason);
            n
        })
        .collect();
    (findings, not_evaluated)
}
