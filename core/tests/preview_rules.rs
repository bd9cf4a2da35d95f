//! A preview rule runs only where it is selected by its exact code or name: never by default and
//! never through a prefix, from a pack or from the command line.

use spindle_core::declare_rule;
use spindle_core::pack::{Selection, resolve};
use spindle_core::rule::{Ctx, RuleMeta, Stage};

mod common;

use common::mem;

fn nothing<P>(_: &mut Ctx<'_, P>) {}

declare_rule! {
    /// ## What it checks
    /// Test.
    static SETTLED = {
        code: "ALN001",
        name: "settled",
        severity: Error,
        summary: "test",
        since: "0.1.0",
        needs: [],
        params: [],
        check: nothing,
    }
}

declare_rule! {
    /// ## What it checks
    /// Test.
    static NEW = {
        code: "ALN005",
        name: "brand-new",
        severity: Warning,
        summary: "test",
        since: "0.2.0",
        stage: Preview,
        needs: [],
        params: [],
        check: nothing,
    }
}

fn catalogue() -> Vec<(&'static str, &'static RuleMeta)> {
    vec![("ALN001", &SETTLED.meta), ("ALN005", &NEW.meta)]
}

/// Which of ALN001 and ALN005 run under `pack` and the command line's `select` and `extend`.
fn enabled(pack: &'static str, select: Option<&[&str]>, extend: &[&str]) -> [bool; 2] {
    let loader = mem(&[("p.toml", pack)]);
    let mut cfg = resolve(&catalogue(), &["p.toml"], &loader).unwrap();
    let owned = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let selection = Selection { select: select.map(owned), extend_select: owned(extend), ignore: vec![] };
    cfg.apply_selection(&catalogue(), &selection).unwrap();
    [cfg.rules[0].enabled, cfg.rules[1].enabled]
}

#[test]
fn the_declaration_carries_stage_and_since() {
    assert_eq!((SETTLED.meta.stage, SETTLED.meta.since), (Stage::Stable, "0.1.0"));
    assert_eq!((NEW.meta.stage, NEW.meta.since), (Stage::Preview, "0.2.0"));
}

#[test]
fn not_by_default_nor_by_prefix() {
    assert_eq!(enabled("", None, &[]), [true, false]);
    assert_eq!(enabled("", Some(&["ALN"]), &[]), [true, false]);
    assert_eq!(enabled("", Some(&["ALN00"]), &[]), [true, false]);
    assert_eq!(enabled("select = [\"ALN\"]\n", None, &[]), [true, false]);
    assert_eq!(enabled("", None, &["ALN"]), [true, false]);
}

#[test]
fn by_its_code_or_name_from_a_pack_or_the_command_line() {
    assert_eq!(enabled("", Some(&["ALN005"]), &[]), [false, true]);
    assert_eq!(enabled("", None, &["brand-new"]), [true, true]);
    assert_eq!(enabled("select = [\"ALN\", \"ALN005\"]\n", None, &[]), [true, true]);
    assert_eq!(enabled("select = [\"brand-new\"]\n", None, &[]), [false, true]);
}
