//! Rule-pack resolution: stacking, selection, parameters, declarations, waivers, and errors that
//! name the file and position with a "did you mean".

use spindle_core::pack::{PackError, PackErrors, resolve};
use spindle_core::params::ParamValue;
use spindle_core::{Severity, declare::Workload};

mod common;

use common::{catalogue, mem};

/// The one error of a pack with one mistake: a single mistake is reported once, as it always was.
fn only(e: PackErrors) -> PackError {
    assert_eq!(e.len(), 1, "{e}");
    e.into_vec().remove(0)
}

#[test]
fn stacks_extends_then_self_then_next_pack() {
    let loader = mem(&[
        ("base.toml", "ignore = [\"STR\"]\n[rules.ALN001]\nalignment_bytes = 1048576\n"),
        (
            "co.toml",
            "extends = [\"base.toml\"]\n[rules.partition-offset-alignment]\nseverity = \"warning\"\n",
        ),
        ("last.toml", "select = [\"STR002\"]\n"),
    ]);
    let cfg = resolve(&catalogue(), &["co.toml"], &loader).unwrap();
    assert_eq!(cfg.packs, ["base.toml", "co.toml"]);
    assert!(cfg.rules[0].enabled && !cfg.rules[1].enabled);
    assert_eq!(cfg.rules[0].severity, Severity::Warning);
    assert_eq!(cfg.rules[0].params.get("alignment_bytes"), Some(&ParamValue::Num(1_048_576.0)));

    let cfg = resolve(&catalogue(), &["co.toml", "last.toml"], &loader).unwrap();
    assert!(!cfg.rules[0].enabled && cfg.rules[1].enabled);
}

#[test]
fn unknown_key_names_position_and_suggests() {
    let loader = mem(&[("p.toml", "name = \"x\"\nselct = [\"ALN\"]\n")]);
    let e = only(resolve(&catalogue(), &["p.toml"], &loader).unwrap_err());
    assert_eq!(e.line_col(), Some((2, 1)), "{e}");
    assert_eq!(e.help.as_deref(), Some("did you mean `select`?"));
}

#[test]
fn unknown_rule_code_suggests_closest() {
    let loader = mem(&[("p.toml", "[rules.ALN01]\nseverity = \"note\"\n")]);
    let e = only(resolve(&catalogue(), &["p.toml"], &loader).unwrap_err());
    assert!(e.message.contains("unknown rule `ALN01`"), "{e}");
    assert_eq!(e.line_col().map(|p| p.0), Some(1));
    assert_eq!(e.help.as_deref(), Some("did you mean `ALN001`?"));
}

#[test]
fn unknown_selector_is_an_error_not_an_empty_selection() {
    let loader = mem(&[("p.toml", "select = [\"partition-offset-alignmnt\"]\n")]);
    let e = only(resolve(&catalogue(), &["p.toml"], &loader).unwrap_err());
    assert!(e.message.contains("no rule matches"), "{e}");
    assert_eq!(e.help.as_deref(), Some("did you mean `partition-offset-alignment`?"));
}

#[test]
fn parameters_are_typed() {
    let loader = mem(&[
        ("typo.toml", "[rules.ALN001]\nalignment_byte = 4096\n"),
        ("neg.toml", "[rules.ALN001]\nalignment_bytes = -4096\n"),
        ("choice.toml", "[rules.STR002]\nworkload = \"olap\"\n"),
        ("sev.toml", "[rules.STR002]\nseverity = \"fatal\"\n"),
    ]);
    let e = only(resolve(&catalogue(), &["typo.toml"], &loader).unwrap_err());
    assert_eq!(e.help.as_deref(), Some("did you mean `alignment_bytes`?"));
    let e = only(resolve(&catalogue(), &["neg.toml"], &loader).unwrap_err());
    assert!(e.message.contains("expected bytes"), "{e}");
    assert_eq!(e.line_col(), Some((2, 19)));
    let e = only(resolve(&catalogue(), &["choice.toml"], &loader).unwrap_err());
    assert!(e.message.contains("one of \"oltp\", \"data-warehouse\""), "{e}");
    let e = only(resolve(&catalogue(), &["sev.toml"], &loader).unwrap_err());
    assert_eq!(
        (e.message.as_str(), e.line_col()),
        ("severity must be \"error\", \"warning\" or \"note\"", Some((2, 12)))
    );
}

#[test]
fn extends_cycle_is_reported() {
    let loader = mem(&[("a.toml", "extends = [\"b.toml\"]\n"), ("b.toml", "extends = [\"a.toml\"]\n")]);
    let e = only(resolve(&catalogue(), &["a.toml"], &loader).unwrap_err());
    assert!(e.message.contains("cycle"), "{e}");
    assert_eq!(e.path, "b.toml");
}

#[test]
fn missing_extends_points_at_the_reference() {
    let loader = mem(&[("a.toml", "extends = [\"gone.toml\"]\n")]);
    let e = only(resolve(&catalogue(), &["a.toml"], &loader).unwrap_err());
    assert_eq!((e.path.as_str(), e.line_col()), ("a.toml", Some((1, 12))));
}

#[test]
fn declarations_and_waivers() {
    let loader = mem(&[(
        "p.toml",
        r#"
[declare]
workload = "data-warehouse"

[[declare.stripe_unit]]
entity = "sql01/disk:*"
stripe_unit_bytes = 262144
data_disks = 4

[[waivers]]
rules = ["ALN"]
entity = "legacy01/*"
reason = "Rebuilt in Q3"
expires = "2027-01-31"
"#,
    )]);
    let cfg = resolve(&catalogue(), &["p.toml"], &loader).unwrap();
    assert_eq!(cfg.declarations.workload, Some((Workload::DataWarehouse, "p.toml".into())));
    assert_eq!(cfg.declarations.stripes[0].stripe_unit_bytes, 262_144);
    assert_eq!(cfg.waivers[0].expires.unwrap().to_string(), "2027-01-31");

    let bad = mem(&[(
        "p.toml",
        "[[waivers]]\nrules = [\"ALN\"]\nentity = \"*\"\nreason = \"r\"\nexpires = \"31/01/2027\"\n",
    )]);
    let e = only(resolve(&catalogue(), &["p.toml"], &bad).unwrap_err());
    assert_eq!(e.line_col().map(|p| p.0), Some(5), "{e}");
}

#[test]
fn plugins_are_declared_relative_to_their_pack_and_later_declarations_win() {
    let loader = mem(&[
        ("dir/base.toml", "[plugins.acme]\npath = \"acme.wasm\"\nconfig = { label = \"LOG\" }\n"),
        (
            "dir/sub/co.toml",
            "extends = [\"dir/base.toml\"]\n[plugins.acme]\npath = \"../plugins/acme.wasm\"\nsha256 = \"ABCDEF\"\ntimeout_ms = 500\n",
        ),
        ("bad.toml", "[plugins.Acme_Rules]\npath = \"x.wasm\"\n"),
    ]);
    let stack = spindle_core::pack::load_packs(&["dir/sub/co.toml"], &loader).unwrap();
    let plugins = stack.plugins().unwrap();
    assert_eq!(plugins.len(), 1);
    let p = &plugins[0];
    assert_eq!((p.name.as_str(), p.resolved_path.as_str()), ("acme", "dir/sub/../plugins/acme.wasm"));
    assert_eq!((p.sha256.as_deref(), p.timeout_ms), (Some("abcdef"), Some(500)));
    assert_eq!(p.config_json, "{}");

    let stack = spindle_core::pack::load_packs(&["dir/base.toml"], &loader).unwrap();
    assert_eq!(stack.plugins().unwrap()[0].config_json, r#"{"label":"LOG"}"#);

    let stack = spindle_core::pack::load_packs(&["bad.toml"], &loader).unwrap();
    let e = only(stack.plugins().unwrap_err());
    assert!(e.message.contains("lowercase"), "{e}");
    assert_eq!(e.line_col(), Some((1, 10)));
}
