//! The SDK's `check`, run natively: builtin rules compiled through the SDK say exactly what the
//! builtin engine says, and every malformed argument is refused with a message naming it.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use spindle_core::date::Date;
use spindle_core::declare::{Declarations, DeclaredStripe, Workload};
use spindle_core::engine::{ActiveRule, check_host};
use spindle_core::glob::Glob;
use spindle_core::load::{line_col, parse_snapshot, parse_snapshot_tolerant};
use spindle_core::locate::locate;
use spindle_core::params::Params;
use spindle_plugin_sdk::testing::{config_json, problems};
use spindle_plugin_sdk::{BuiltinRule, Ctx, NoParams, RulePack, check, declare_rule, info, rules, wit};

/// Every builtin rule, as a plugin.
struct Builtins;

impl RulePack for Builtins {
    const ID: &'static str = "builtins";
    const VERSION: &'static str = "0.1.0";
    fn rules() -> Vec<&'static BuiltinRule> {
        spindle_rules::all()
    }
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// Each example host's snapshot files.
fn example_hosts() -> Vec<(String, Vec<PathBuf>)> {
    let mut hosts = vec![];
    for entry in std::fs::read_dir(examples()).unwrap() {
        let dir = entry.unwrap().path();
        if !dir.is_dir() || dir.ends_with("packs") {
            continue;
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        hosts.push((dir.file_name().unwrap().to_string_lossy().into_owned(), files));
    }
    hosts.sort();
    assert!(hosts.len() >= 5, "examples not found: {hosts:?}");
    hosts
}

fn view_of(files: &[PathBuf], declared: Declarations) -> spindle_core::HostView {
    let docs = files
        .iter()
        .map(|p| parse_snapshot(&p.display().to_string(), std::fs::read_to_string(p).unwrap()).unwrap())
        .collect();
    spindle_core::HostView::build(docs, declared)
}

fn wit_severity(s: spindle_core::Severity) -> wit::Severity {
    match s {
        spindle_core::Severity::Error => wit::Severity::Error,
        spindle_core::Severity::Warning => wit::Severity::Warning,
        spindle_core::Severity::Note => wit::Severity::Note,
    }
}

/// A finding or not-evaluated as one comparable line.
fn line_of_finding(f: &wit::Finding) -> String {
    format!(
        "{} {:?} {} | {} | {:?} | {:?} | {:?} | {:?} | {:?} | {:?}",
        f.code,
        f.severity,
        f.entity,
        f.message,
        f.measured,
        f.expected,
        f.measured_quantity,
        f.expected_quantity,
        f.field,
        f.fix
    )
}

fn wit_quantity(q: Option<spindle_core::finding::Quantity>) -> Option<wit::Quantity> {
    use spindle_core::finding::Unit;
    q.map(|q| wit::Quantity {
        value: q.value,
        unit: match q.unit {
            Unit::Bytes => wit::Unit::Bytes,
            Unit::Ms => wit::Unit::Ms,
            Unit::Percent => wit::Unit::Percent,
            Unit::Count => wit::Unit::Count,
        },
    })
}

fn line_of_not_evaluated(n: &wit::NotEvaluated) -> String {
    format!("{} {:?} {} {:?}", n.code, n.entity, n.missing, n.reason)
}

fn parity(declared: Declarations, declared_json: Value) {
    let all = spindle_rules::all();
    let codes: Vec<String> = all.iter().map(|r| r.meta.code.to_string()).collect();
    let mut compared = 0;
    for (name, files) in example_hosts() {
        // The builtin engine, as `spindle check` runs it.
        let view = view_of(&files, declared.clone());
        let active: Vec<ActiveRule<'_>> = all
            .iter()
            .map(|r| ActiveRule {
                rule: *r,
                code: r.meta.code.to_string(),
                severity: r.meta.severity,
                params: Params::defaults(r.meta.params),
            })
            .collect();
        let report = check_host(&active, &view, &[], Date::from_days_since_epoch(0));
        let expected: Vec<String> = report
            .findings
            .iter()
            .map(|f| {
                line_of_finding(&wit::Finding {
                    code: f.code.clone(),
                    severity: Some(wit_severity(f.severity)),
                    message: f.message.clone(),
                    measured: f.measured.clone(),
                    expected: f.expected.clone(),
                    measured_quantity: wit_quantity(f.measured_quantity),
                    expected_quantity: wit_quantity(f.expected_quantity),
                    entity: f.entity.key.clone(),
                    field: f.field.clone(),
                    fix: Some(f.fix.clone()).filter(|f| !f.is_empty()),
                })
            })
            .collect();
        let expected_ne: Vec<String> = report
            .not_evaluated
            .iter()
            .map(|n| {
                line_of_not_evaluated(&wit::NotEvaluated {
                    code: n.code.clone(),
                    entity: n.entity.as_ref().map(|e| e.key.clone()),
                    missing: n.missing.clone(),
                    reason: n.reason.clone(),
                })
            })
            .collect();

        // The same rules through the SDK, given the merged snapshot as spindle gives a plugin.
        let facts = serde_json::to_string(&view.to_snapshot()).unwrap();
        let cfg = config_json(json!(null), json!({}), declared_json.clone());
        let out = check::<Builtins>(facts, &codes, &cfg).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let got: Vec<String> = out.findings.iter().map(line_of_finding).collect();
        let got_ne: Vec<String> = out.not_evaluated.iter().map(line_of_not_evaluated).collect();
        assert_eq!(got, expected, "{name}: findings differ");
        assert_eq!(got_ne, expected_ne, "{name}: not-evaluated differ");
        compared += expected.len();
    }
    assert!(compared > 10, "the examples should produce findings to compare, got {compared}");
}

#[test]
fn builtin_rules_through_the_sdk_say_what_the_engine_says() {
    parity(Declarations::default(), json!(null));
}

#[test]
fn declarations_cross_the_contract() {
    let declared = Declarations {
        workload: Some((Workload::DataWarehouse, "the rule pack".into())),
        stripes: vec![DeclaredStripe {
            entity: Glob::new("erp-sql1/disk:*"),
            stripe_unit_bytes: 65536,
            data_disks: Some(5),
            source: "packs/acme.toml".into(),
        }],
    };
    let json = json!({
        "workload": "data-warehouse",
        "stripe_units": [{"entity": "erp-sql1/disk:*", "stripe_unit_bytes": 65536, "data_disks": 5,
                          "source": "packs/acme.toml"}],
    });
    parity(declared, json);
}

#[test]
fn builtin_rules_are_well_formed_plugin_rules() {
    assert_eq!(problems::<Builtins>(), Vec::<String>::new());
}

#[test]
fn info_and_rules() {
    let i = info::<Builtins>();
    assert_eq!((i.id.as_str(), i.facts_schema_version), ("builtins", spindle_core::facts::SCHEMA_VERSION));
    let metas = rules::<Builtins>();
    let aln = metas.iter().find(|m| m.code == "ALN001").unwrap();
    assert_eq!(aln.name, "partition-offset-alignment");
    assert!(matches!(aln.severity, wit::Severity::Error));
    assert!(aln.docs.starts_with("## What it checks\n"), "{}", aln.docs);
    assert_eq!(aln.params.len(), 1);
    let p = &aln.params[0];
    assert_eq!(p.name, "alignment_bytes");
    assert!(matches!(p.kind, wit::ParamKind::Bytes), "{:?}", p.kind);
    assert!(matches!(p.default, wit::ParamValue::Num(n) if n == 65536.0), "{:?}", p.default);
    let choice = metas
        .iter()
        .flat_map(|m| &m.params)
        .find(|p| matches!(p.kind, wit::ParamKind::Choice(_)))
        .expect("a choice parameter");
    let wit::ParamKind::Choice(words) = &choice.kind else { unreachable!() };
    assert!(!words.is_empty());
    assert!(matches!(&choice.default, wit::ParamValue::Text(t) if words.contains(t)), "{:?}", choice.default);
}

const FACTS: &str = r#"{"schema_version": 1, "host": {"name": "h"},
    "partitions": [{"id": "p1", "disk_id": "d1", "number": 1, "offset_bytes": 32256}]}"#;

fn bad_config(enabled: &[&str], config_json: &str) -> String {
    let enabled: Vec<String> = enabled.iter().map(|s| s.to_string()).collect();
    match check::<Builtins>(FACTS.into(), &enabled, config_json) {
        Err(wit::CheckError::BadConfig(m)) => m,
        other => panic!("expected bad-config, got {other:?}"),
    }
}

#[test]
fn parameters_are_applied_and_checked() {
    let run = |params: Value| {
        let cfg = config_json(json!(null), params, json!(null));
        check::<Builtins>(FACTS.into(), &["ALN001".into()], &cfg)
    };
    assert_eq!(run(json!({})).unwrap().findings.len(), 1);
    // 32,256 B is a multiple of 512: no finding at a 512 B boundary.
    assert_eq!(run(json!({"ALN001": {"alignment_bytes": 512}})).unwrap().findings.len(), 0);
    let m = bad_config(
        &["ALN001"],
        &config_json(json!(null), json!({"ALN001": {"alignment_bytes": 1.5}}), json!(null)),
    );
    assert!(m.contains("ALN001.alignment_bytes") && m.contains("whole number"), "{m}");
    let m = bad_config(
        &["ALN001"],
        &config_json(json!(null), json!({"ALN001": {"alignment": 512}}), json!(null)),
    );
    assert!(m.contains("no parameter alignment") && m.contains("alignment_bytes"), "{m}");
    let m = bad_config(
        &["ALN001"],
        &config_json(json!(null), json!({"ALN001": {"alignment_bytes": [1]}}), json!(null)),
    );
    assert!(m.contains("ALN001.alignment_bytes: expected bytes"), "{m}");
    let m = bad_config(&["ALN001"], &config_json(json!(null), json!({"NOP001": {}}), json!(null)));
    assert!(m.contains("NOP001"), "{m}");
    let m = bad_config(
        &["STR002"],
        &config_json(json!(null), json!({"STR002": {"workload": "batch"}}), json!(null)),
    );
    assert!(m.contains("STR002.workload") && m.contains("\"oltp\""), "{m}");
}

#[test]
fn malformed_arguments_are_named() {
    let m = bad_config(&["NOP001"], "{}");
    assert!(m.contains("enabled rule NOP001") && m.contains("ALN001"), "{m}");
    let m = bad_config(&["ALN001"], "{\"params\": 3}");
    assert!(m.starts_with("config-json: invalid type"), "{m}");
    let m = bad_config(&["ALN001"], "not json");
    assert!(m.starts_with("config-json: "), "{m}");
    let m = bad_config(&["ALN001"], r#"{"declared": {"workload": "batch"}}"#);
    assert!(m.contains("declared.workload"), "{m}");
    let m = bad_config(
        &["ALN001"],
        r#"{"declared": {"stripe_units": [{"entity": "*", "stripe_unit_bytes": 0}]}}"#,
    );
    assert!(m.contains("stripe_unit_bytes must be positive"), "{m}");
    // An empty config-json and unknown keys are accepted: a later contract may add keys.
    assert!(check::<Builtins>(FACTS.into(), &["ALN001".into()], "").is_ok());
    assert!(check::<Builtins>(FACTS.into(), &["ALN001".into()], r#"{"future": 1}"#).is_ok());

    for (facts, needle) in [
        ("{", "facts-json:"),
        (r#"{"schema_version": 9, "host": {"name": "h"}}"#, "unsupported schema_version 9"),
        (r#"{"schema_version": 9, "host": {"name": "h", "cpus": 4}}"#, "unsupported schema_version 9"),
        (r#"{"schema_version": 1, "host": {"name": "h", "cpu_count": "8"}}"#, "invalid type: string \"8\""),
    ] {
        match check::<Builtins>(facts.into(), &["ALN001".into()], "{}") {
            Err(wit::CheckError::BadFacts(m)) => assert!(m.contains(needle), "{m}"),
            other => panic!("expected bad-facts, got {other:?}"),
        }
    }
}

/// Facts from a newer spindle: fields this build does not know, at the top level, in a volume
/// and in a partition.
fn with_unknown_fields(facts: &str) -> String {
    let mut v: Value = serde_json::from_str(facts).unwrap();
    v["collector_build"] = json!("9.9.0");
    for volume in v["volumes"].as_array_mut().into_iter().flatten() {
        volume["fs_stripe_layout"] = json!({"unit_bytes": 65536, "width_bytes": 262144});
    }
    if let Some(p) = v.get_mut("partitions").and_then(|p| p.get_mut(0)) {
        p["alignment_checked"] = json!(true);
    }
    serde_json::to_string_pretty(&v).unwrap()
}

#[test]
fn fields_from_a_newer_spindle_are_skipped_and_change_no_finding() {
    let all = spindle_rules::all();
    let codes: Vec<String> = all.iter().map(|r| r.meta.code.to_string()).collect();
    let mut compared = 0;
    for (name, files) in example_hosts() {
        let view = view_of(&files, Declarations::default());
        let facts = serde_json::to_string_pretty(&view.to_snapshot()).unwrap();
        if !facts.contains("\"volumes\"") {
            continue;
        }
        let newer = with_unknown_fields(&facts);

        let known = check::<Builtins>(facts, &codes, "{}").unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let got = check::<Builtins>(newer.clone(), &codes, "{}").unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let lines = |o: &wit::CheckOutput| {
            let mut l: Vec<String> = o.findings.iter().map(line_of_finding).collect();
            l.extend(o.not_evaluated.iter().map(line_of_not_evaluated));
            l
        };
        assert_eq!(lines(&got), lines(&known), "{name}");
        compared += known.findings.len();

        // What the plugin skipped: every field added, and nothing else.
        let tolerated = parse_snapshot_tolerant("facts-json", newer.clone()).unwrap();
        let volumes = tolerated.document.snapshot.volumes.as_ref().map_or(0, Vec::len);
        let partitions =
            usize::from(tolerated.document.snapshot.partitions.as_ref().is_some_and(|p| !p.is_empty()));
        assert_eq!(tolerated.ignored.len(), 1 + volumes + partitions, "{name}: {:?}", tolerated.ignored);
        assert!(tolerated.ignored.contains(&"/collector_build".to_string()), "{:?}", tolerated.ignored);
        assert!(
            tolerated.ignored.contains(&"/volumes/0/fs_stripe_layout".to_string()),
            "{:?}",
            tolerated.ignored
        );

        // A snapshot file is read strictly: the same text is refused at the first unknown field,
        // with the line and column of its key.
        let first = &tolerated.ignored[0];
        let key = first.rsplit('/').next().unwrap();
        let e = parse_snapshot(&format!("{name}.json"), newer.clone()).unwrap_err();
        let at = locate(&newer, first).unwrap().key.unwrap().start;
        assert_eq!((e.line, e.column), line_col(&newer, at), "{name}: {e}");
        assert!(e.message.starts_with(&format!("unknown field `{key}` at {first}, expected one of")), "{e}");
    }
    assert!(compared > 10, "the examples should produce findings to compare, got {compared}");
}

#[test]
fn a_missing_section_is_not_evaluated_for_the_host() {
    let facts = r#"{"schema_version": 1, "host": {"name": "h"}}"#;
    let out = check::<Builtins>(facts.into(), &["ALN001".into()], "{}").unwrap();
    assert!(out.findings.is_empty());
    assert_eq!(out.not_evaluated.len(), 1);
    assert_eq!(
        (out.not_evaluated[0].entity.as_deref(), out.not_evaluated[0].missing.as_str()),
        (None, "partitions")
    );
}

declare_rule! {
    /// ## What it checks
    /// The host is named with the prefix the config gives.
    ///
    /// ## Why it matters
    /// A test.
    ///
    /// ## How to fix
    /// Rename the host.
    ///
    /// ## References
    /// - None.
    static HOST_PREFIX = {
        code: "TST001",
        name: "host-prefix",
        severity: Note,
        summary: "Hosts carry the configured prefix",
        needs: [],
        params: [],
        check: host_prefix,
    }
}

#[derive(serde::Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct PrefixConfig {
    prefix: Option<String>,
}

fn host_prefix(cx: &mut Ctx<'_, NoParams>) {
    let cfg: PrefixConfig = spindle_plugin_sdk::config::parse().expect("validated");
    let prefix = cfg.prefix.unwrap_or_else(|| "sql".into());
    if !cx.view.host_name().starts_with(&prefix) {
        let host = &cx.view.host;
        cx.report(host, "name", format!("host {} does not start with {prefix}", host.key));
    }
}

struct Prefix;

impl RulePack for Prefix {
    const ID: &'static str = "prefix";
    const VERSION: &'static str = "1.0.0";
    fn rules() -> Vec<&'static BuiltinRule> {
        vec![&HOST_PREFIX]
    }
    fn validate_config(config: &Value) -> Result<(), String> {
        spindle_plugin_sdk::config::parse_value::<PrefixConfig>(config).map(|_| ())
    }
}

spindle_plugin_sdk::export_pack!(Prefix);

#[test]
fn the_config_table_reaches_the_rules() {
    assert_eq!(problems::<Prefix>(), Vec::<String>::new());
    let run = |config: Value| spindle_plugin_sdk::testing::run::<Prefix>(FACTS, config);
    let out = run(json!(null)).unwrap();
    assert_eq!(out.findings.len(), 1);
    let f = &out.findings[0];
    assert_eq!((f.code.as_str(), f.entity.as_str(), f.field.as_deref()), ("TST001", "h", Some("name")));
    assert_eq!(f.fix.as_deref(), Some("Rename the host."));
    assert!(matches!(f.severity, Some(wit::Severity::Note)));
    assert!(run(json!({"prefix": "h"})).unwrap().findings.is_empty());
    // Outside a check the config is gone.
    assert!(spindle_plugin_sdk::config::get().is_null());
    match run(json!({"prefx": "h"})) {
        Err(wit::CheckError::BadConfig(m)) => {
            assert!(m.starts_with("config of plugin prefix: unknown field `prefx`"), "{m}")
        }
        other => panic!("expected bad-config, got {other:?}"),
    }
}

/// Natively the engine contains a rule's panic; `check` says `failed` with its message, as
/// spindle reports a plugin that trapped.
#[test]
fn a_panicking_rule_fails_the_check() {
    fn panics(_: &mut Ctx<'_, NoParams>) {
        panic!("no such volume");
    }
    declare_rule! {
        /// ## What it checks
        /// Nothing: it panics.
        static PANICS = {
            code: "PAN001",
            name: "panics",
            severity: Note,
            summary: "Panics",
            needs: [],
            params: [],
            check: panics,
        }
    }
    struct Panicky;
    impl RulePack for Panicky {
        const ID: &'static str = "panicky";
        const VERSION: &'static str = "1.0.0";
        fn rules() -> Vec<&'static BuiltinRule> {
            vec![&HOST_PREFIX, &PANICS]
        }
    }
    match spindle_plugin_sdk::testing::run::<Panicky>(FACTS, json!(null)) {
        Err(wit::CheckError::Failed(m)) => {
            assert!(m.starts_with("rule PAN001 (panics) panicked"), "{m}");
            assert!(m.contains("no such volume"), "{m}");
        }
        other => panic!("expected failed, got {other:?}"),
    }
}

#[test]
#[allow(non_snake_case)]
fn problems_are_found() {
    fn nothing<P>(_: &mut Ctx<'_, P>) {}
    declare_rule! {
        /// ## What it checks
        /// Nothing.
        static BAD = {
            code: "bad1",
            name: "Bad_Name",
            severity: Note,
            summary: "",
            needs: [],
            params: BadParams { X: { kind: Percent, default: Num(150.0), doc: "" } },
            check: nothing,
        }
    }
    struct Bad;
    impl RulePack for Bad {
        const ID: &'static str = "Bad Pack";
        const VERSION: &'static str = "";
        fn rules() -> Vec<&'static BuiltinRule> {
            vec![&BAD, &BAD]
        }
    }
    let p = problems::<Bad>().join("\n");
    for needle in [
        "pack id",
        "is not a short one-line version",
        "3 capital letters",
        "code used by two rules",
        "not kebab-case",
        "summary must be one non-empty line",
        "parameter name \"X\" is not snake_case",
        "## Why it matters",
        "bad1.X: default refused",
    ] {
        assert!(p.contains(needle), "{needle} missing from:\n{p}");
    }
}
