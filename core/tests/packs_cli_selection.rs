//! `--select`, `--extend-select` and `--ignore` over what the packs selected.

use spindle_core::pack::{Selection, resolve};

mod common;

use common::{catalogue, mem};

fn enabled(packs: &[&str], selection: &Selection) -> Vec<bool> {
    let loader = mem(&[("only-str.toml", "select = [\"STR\"]\n")]);
    let mut cfg = resolve(&catalogue(), packs, &loader).unwrap();
    cfg.apply_selection(&catalogue(), selection).unwrap();
    cfg.rules.iter().map(|r| r.enabled).collect()
}

fn sel(select: Option<&[&str]>, extend: &[&str], ignore: &[&str]) -> Selection {
    let owned = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    Selection { select: select.map(owned), extend_select: owned(extend), ignore: owned(ignore) }
}

#[test]
fn select_replaces_extend_adds_ignore_removes() {
    // The pack selects STR only: ALN001 is off.
    assert_eq!(enabled(&["only-str.toml"], &Selection::default()), [false, true]);
    // --select replaces the pack's selection, by prefix or by name.
    assert_eq!(enabled(&["only-str.toml"], &sel(Some(&["ALN"]), &[], &[])), [true, false]);
    assert_eq!(
        enabled(&["only-str.toml"], &sel(Some(&["partition-offset-alignment"]), &[], &[])),
        [true, false]
    );
    // --extend-select adds to it.
    assert_eq!(enabled(&["only-str.toml"], &sel(None, &["ALN001"], &[])), [true, true]);
    // --ignore wins over both.
    assert_eq!(enabled(&["only-str.toml"], &sel(Some(&["ALN", "STR"]), &[], &["STR002"])), [true, false]);
    assert_eq!(
        enabled(&["only-str.toml"], &sel(None, &["ALN"], &["interleave-for-workload"])),
        [true, false]
    );
}

#[test]
fn every_unknown_selector_is_listed_with_a_suggestion() {
    let loader = mem(&[("p.toml", "")]);
    let mut cfg = resolve(&catalogue(), &["p.toml"], &loader).unwrap();
    let before: Vec<bool> = cfg.rules.iter().map(|r| r.enabled).collect();
    let e = cfg
        .apply_selection(
            &catalogue(),
            &sel(Some(&["ALX", "ALN001"]), &["partition-offset-alignmnt"], &["XYZ999"]),
        )
        .unwrap_err();
    let got: Vec<(&str, &str, Option<&str>)> =
        e.iter().map(|u| (u.flag, u.selector.as_str(), u.help.as_deref())).collect();
    assert_eq!(
        got,
        [
            ("--select", "ALX", Some("did you mean `ALN`?")),
            (
                "--extend-select",
                "partition-offset-alignmnt",
                Some("did you mean `partition-offset-alignment`?")
            ),
            ("--ignore", "XYZ999", None),
        ]
    );
    // Nothing was applied.
    assert_eq!(cfg.rules.iter().map(|r| r.enabled).collect::<Vec<_>>(), before);
}
