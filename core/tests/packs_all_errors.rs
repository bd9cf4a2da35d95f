//! Pack errors come all at once: every mistake in a pack, and in every pack of a run, each with
//! its own file, line and column and "did you mean", so one edit fixes them all.

use spindle_core::pack::{PackErrors, PackFile, load_packs, resolve};

mod common;

use common::{catalogue, mem};

/// Each error as `path:line:col: message (help)`, the way it reads to a person.
fn lines(e: &PackErrors) -> Vec<String> {
    e.iter().map(ToString::to_string).collect()
}

const THREE_MISTAKES: &str = r#"name = "acme"

[rules.ALN01]
severity = "note"

[rules.ALN001]
alignment_byts = 4096

[[waivers]]
rules = ["ALN"]
entity = "*"
reason = "Rebuilt in Q3"
expires = "31/01/2027"
"#;

#[test]
fn three_independent_mistakes_are_three_errors_in_file_order() {
    let loader = mem(&[("acme.toml", THREE_MISTAKES)]);
    let e = resolve(&catalogue(), &["acme.toml"], &loader).unwrap_err();
    assert_eq!(
        lines(&e),
        [
            "acme.toml:3:8: unknown rule `ALN01` in [rules] (did you mean `ALN001`?)",
            "acme.toml:7:1: unknown parameter `alignment_byts` for ALN001 (did you mean `alignment_bytes`?)",
            "acme.toml:13:11: expires must be a date as YYYY-MM-DD, found `31/01/2027`",
        ]
    );
    let spans: Vec<_> = e.iter().map(|e| e.span.clone().map(|s| &THREE_MISTAKES[s])).collect();
    assert_eq!(spans, [Some("ALN01"), Some("alignment_byts"), Some("\"31/01/2027\"")]);
    assert!(e.iter().all(|e| e.path == "acme.toml" && e.text == THREE_MISTAKES));
    assert_eq!(e.to_string().lines().next(), Some("3 errors in packs:"));
}

#[test]
fn one_mistake_reads_exactly_as_before() {
    let loader = mem(&[("p.toml", "[rules.ALN001]\nalignment_byte = 4096\n")]);
    let e = resolve(&catalogue(), &["p.toml"], &loader).unwrap_err();
    assert_eq!(e.len(), 1);
    let expected =
        "p.toml:2:1: unknown parameter `alignment_byte` for ALN001 (did you mean `alignment_bytes`?)";
    assert_eq!(e.to_string(), expected);
    assert_eq!(e[0].to_string(), expected);
}

#[test]
fn every_parameter_selector_severity_and_declaration_of_a_pack_is_checked() {
    let text = r#"select = ["ALN", "STR02"]
ignore = ["partition-offset-alignmnt"]

[rules.ALN001]
severity = "fatal"
alignment_bytes = -4096

[rules.STR002]
workload = "olap"
interleave = 1

[rules.nope]
severity = "loud"

[declare]
workload = "olap"

[[declare.stripe_unit]]
entity = "a/*"
stripe_unit_bytes = 0

[[declare.stripe_unit]]
entity = "b/*"
stripe_unit_bytes = 0

[[waivers]]
rules = ["XYZ"]
entity = "*"
reason = "r"
expires = "soon"
"#;
    let loader = mem(&[("p.toml", text)]);
    let e = resolve(&catalogue(), &["p.toml"], &loader).unwrap_err();
    let at: Vec<_> = e.iter().map(|e| (e.line_col().unwrap(), &text[e.span.clone().unwrap()])).collect();
    assert_eq!(
        at,
        [
            ((1, 18), "\"STR02\""),
            ((2, 11), "\"partition-offset-alignmnt\""),
            ((5, 12), "\"fatal\""),
            ((6, 19), "-4096"),
            ((9, 12), "\"olap\""),
            ((10, 1), "interleave"),
            ((12, 8), "nope"),
            ((13, 12), "\"loud\""),
            ((16, 12), "\"olap\""),
            ((20, 21), "0"),
            ((24, 21), "0"),
            ((27, 10), "\"XYZ\""),
            ((30, 11), "\"soon\""),
        ],
        "{e}"
    );
    let help = |line: usize| e.iter().find(|e| e.line_col().unwrap().0 == line).unwrap().help.clone();
    assert_eq!(help(1).as_deref(), Some("did you mean `STR002`?"));
    assert_eq!(help(2).as_deref(), Some("did you mean `partition-offset-alignment`?"));
    assert_eq!(help(10).as_deref(), Some("STR002 takes: severity, workload"));
    assert_eq!(help(16).as_deref(), Some("did you mean `oltp`?"));
}

#[test]
fn unknown_keys_and_mistyped_values_are_all_found_and_the_rest_still_checked() {
    let text = r#"nme = "acme"
extends = "oltp"

[rules.ALN01]
severity = "note"

[plugins.acme]
paht = "acme.wasm"

[declare]
workload = 3

[[declare.stripe_unit]]
entity = "a/*"
stripe_unit_bytes = "64K"

[[waivers]]
rules = ["ALN"]
entity = "*"

[[waivers]]
rules = ["ALN"]
entity = "*"
reason = "r"
expires = "never"
"#;
    let loader = mem(&[("p.toml", text)]);
    let e = resolve(&catalogue(), &["p.toml"], &loader).unwrap_err();
    let found: Vec<_> = e.iter().map(|e| (e.line_col().unwrap().0, e.message.as_str())).collect();
    assert_eq!(found.len(), 8, "{e}");
    let at = |line: usize| {
        found.iter().find(|(l, _)| *l == line).unwrap_or_else(|| panic!("nothing on line {line}: {e}")).1
    };
    assert!(at(1).starts_with("unknown field `nme`"), "{e}");
    assert!(at(2).contains("invalid type: string \"oltp\", expected a sequence"), "{e}");
    assert!(at(8).starts_with("unknown field `paht`"), "{e}");
    assert!(at(11).contains("invalid type: integer `3`"), "{e}");
    assert!(at(15).contains("invalid type: string \"64K\""), "{e}");
    assert!(at(17).contains("missing field `reason`"), "{e}");
    // The well-formed parts are checked against the catalogue too.
    assert_eq!(at(4), "unknown rule `ALN01` in [rules]");
    assert!(at(25).starts_with("expires must be a date"), "{e}");
    let hint = |line: usize| e.iter().find(|e| e.line_col().unwrap().0 == line).unwrap().help.clone();
    assert_eq!(hint(1).as_deref(), Some("did you mean `name`?"));
    assert_eq!(hint(8).as_deref(), Some("did you mean `path`?"));
}

/// A single shape mistake is serde's own error, word for word and at the same place, as when
/// the pack was read in one go.
#[test]
fn a_single_shape_mistake_is_serdes_own_error() {
    let packs = [
        "selct = [\"ALN\"]\n",
        "name = 3\n",
        "[rules]\nALN001 = 3\n",
        "[rules.ALN001]\nseverity = \"note\"\n[plugins.acme]\npath = \"a.wasm\"\nfuel = \"lots\"\n",
        "[plugins.acme]\nconfig = 3\n",
        "[declare]\nworkloads = \"oltp\"\n",
        "[declare]\nstripe_unit = 3\n",
        "[[declare.stripe_unit]]\nentity = \"*\"\n",
        "[[waivers]]\nrules = [\"ALN\"]\nentity = \"*\"\nreason = \"r\"\nexpire = \"2027-01-01\"\n",
        "waivers = 3\n",
        "plugins = []\n",
    ];
    for text in packs {
        let whole = toml::from_str::<PackFile>(text).unwrap_err();
        let loader = mem(&[("p.toml", text)]);
        let e = load_packs(&["p.toml"], &loader).err().unwrap_or_else(|| panic!("{text}"));
        assert_eq!(e.len(), 1, "{text}: {e}");
        assert_eq!(
            (e[0].message.as_str(), e[0].span.clone()),
            (whole.message().trim(), whole.span()),
            "{text}"
        );
    }
}

#[test]
fn a_syntax_error_stops_its_file_only() {
    let loader = mem(&[
        ("a.toml", "[rules.ALN001\nseverity = \"note\"\n"),
        ("b.toml", "[rules.ALN01]\nseverity = \"note\"\n"),
        ("c.toml", "extends = [\"gone.toml\", \"b.toml\"]\nignore = [\"XYZ\"]\n"),
    ]);
    let e = resolve(&catalogue(), &["a.toml", "c.toml", "olpt"], &loader).unwrap_err();
    let found: Vec<_> = e.iter().map(|e| (e.path.as_str(), e.line_col())).collect();
    assert_eq!(
        found,
        [
            ("a.toml", Some((1, 14))),
            ("c.toml", Some((1, 12))),
            ("c.toml", Some((2, 11))),
            ("b.toml", Some((1, 8))),
            ("olpt", None),
        ],
        "{e}"
    );
    assert_eq!(e[1].message, "no pack `gone.toml`");
    assert_eq!(e[4].message, "no pack `olpt`");

    // load_packs alone: what cannot be read, in every pack; the rule checks wait for the
    // catalogue.
    let e = load_packs(&["a.toml", "c.toml"], &loader).err().unwrap();
    assert_eq!(e.iter().map(|e| e.path.as_str()).collect::<Vec<_>>(), ["a.toml", "c.toml"]);
}

#[test]
fn a_pack_read_twice_reports_its_errors_once() {
    let loader = mem(&[
        ("base.toml", "ignore = [\"XYZ\"]\nnme = \"base\"\n"),
        ("a.toml", "extends = [\"base.toml\"]\n"),
        ("b.toml", "extends = [\"base.toml\"]\n"),
    ]);
    let e = resolve(&catalogue(), &["a.toml", "b.toml"], &loader).unwrap_err();
    assert_eq!(e.iter().map(|e| e.line_col().unwrap()).collect::<Vec<_>>(), [(1, 11), (2, 1)], "{e}");
}

#[test]
fn every_bad_plugin_is_reported() {
    let loader = mem(&[
        ("a.toml", "[plugins.Acme]\npath = \"a.wasm\"\n[plugins.ok]\npath = \"ok.wasm\"\n"),
        ("b.toml", "[plugins.b_rules]\npath = \"b.wasm\"\n"),
    ]);
    let stack = load_packs(&["a.toml", "b.toml"], &loader).unwrap();
    let e = stack.plugins().unwrap_err();
    let found: Vec<_> = e.iter().map(|e| (e.path.as_str(), e.line_col().unwrap())).collect();
    assert_eq!(found, [("a.toml", (1, 10)), ("b.toml", (1, 10))], "{e}");
    assert!(e.iter().all(|e| e.message.contains("use lowercase letters")), "{e}");
}

#[test]
fn errors_of_several_files_stay_grouped_by_file() {
    let loader = mem(&[
        ("a.toml", "ignore = [\"XYZ\"]\n[rules.ALN001]\nseverity = \"x\"\n"),
        ("b.toml", "[rules.ALN001]\nseverity = \"y\"\n"),
    ]);
    let e = resolve(&catalogue(), &["a.toml", "b.toml"], &loader).unwrap_err();
    let found: Vec<_> = e.iter().map(|e| (e.path.as_str(), e.line_col().unwrap().0)).collect();
    assert_eq!(found, [("a.toml", 1), ("a.toml", 3), ("b.toml", 2)], "{e}");
    assert!(PackErrors::from_vec(vec![]).is_none());
}

/// A pack of a hundred thousand mistakes: each error holds the pack's text, so all of them took
/// memory in the square of the file's size. The first 20 are listed, then how many more there are.
#[test]
fn a_pack_of_endless_mistakes_lists_the_first_twenty() {
    use spindle_core::pack::MAX_ERRORS_PER_PACK;
    let mut text = String::new();
    for i in 0..100_000 {
        text.push_str(&format!("[rules.X{i}]\n"));
    }
    let text: &'static str = Box::leak(text.into_boxed_str());
    let e = resolve(&catalogue(), &["big.toml"], &mem(&[("big.toml", text)])).unwrap_err();
    assert_eq!(e.len(), MAX_ERRORS_PER_PACK + 1);
    assert!(lines(&e)[0].starts_with("big.toml:1:8: unknown rule `X0`"), "{}", lines(&e)[0]);
    assert_eq!(
        lines(&e)[MAX_ERRORS_PER_PACK],
        "big.toml: 99980 more mistakes in this pack are not listed (the first 20 are)"
    );

    // Mistakes of TOML values, found while reading, likewise.
    let mut text = String::from("[[waivers]]\nrules = 1\n");
    for _ in 0..1_000 {
        text.push_str("[[waivers]]\nrules = 1\n");
    }
    let text: &'static str = Box::leak(text.into_boxed_str());
    let e = resolve(&catalogue(), &["w.toml"], &mem(&[("w.toml", text)])).unwrap_err();
    assert_eq!(e.len(), MAX_ERRORS_PER_PACK + 1, "{}", lines(&e).join("\n"));
    assert!(lines(&e)[MAX_ERRORS_PER_PACK].contains("more mistakes in this pack are not listed"));
}

/// Packs that each extend all the others were read a factorial number of times (a dozen small
/// files: hundreds of millions of reads). A stack reads at most 64 packs, counting repeats, and
/// says where it stopped.
#[test]
fn packs_extending_each_other_over_and_over_are_bounded() {
    use spindle_core::pack::MAX_PACK_READS;
    let names =
        ["a.toml", "b.toml", "c.toml", "d.toml", "e.toml", "f.toml", "g.toml", "h.toml", "i.toml", "j.toml"];
    let text: &'static str = Box::leak(
        format!("extends = [{}]\n", names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", "))
            .into_boxed_str(),
    );
    let files: Vec<(&'static str, &'static str)> = names.iter().map(|n| (*n, text)).collect();
    let start = std::time::Instant::now();
    let e = load_packs(&["a.toml"], &mem(&files)).err().expect("refused");
    assert!(start.elapsed() < std::time::Duration::from_secs(5), "{:?}", start.elapsed());
    let bound = e.iter().find(|e| e.message.contains("reaches more than")).expect("the bound is said");
    assert_eq!(bound.message.split_whitespace().nth(4), Some(MAX_PACK_READS.to_string().as_str()));
    assert!(bound.span.is_some(), "at the `extends` entry where the bound was crossed");
    // A diamond, as people write them, is well inside the bound.
    let loader = mem(&[
        ("top.toml", "extends = [\"left.toml\", \"right.toml\"]\n"),
        ("left.toml", "extends = [\"base.toml\"]\n"),
        ("right.toml", "extends = [\"base.toml\"]\n"),
        ("base.toml", "[rules.ALN001]\nseverity = \"note\"\n"),
    ]);
    assert!(load_packs(&["top.toml"], &loader).is_ok());
}

/// Each plugin declaration holds its pack's text: a pack of a hundred thousand plugins took
/// memory in the square of its size. At most 64 plugins are declared.
#[test]
fn at_most_64_plugins_are_declared() {
    use spindle_core::pack::MAX_PLUGINS;
    let mut text = String::new();
    for i in 0..10_000 {
        text.push_str(&format!("[plugins.p{i}]\npath = \"p.wasm\"\n"));
    }
    let text: &'static str = Box::leak(text.into_boxed_str());
    let stack = load_packs(&["p.toml"], &mem(&[("p.toml", text)])).unwrap();
    let e = stack.plugins().unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].message, format!("more than {MAX_PLUGINS} plugins; spindle loads at most {MAX_PLUGINS}"));
    let text = "[plugins.a]\npath = \"a.wasm\"\n[plugins.b]\npath = \"b.wasm\"\n";
    let stack = load_packs(&["p.toml"], &mem(&[("p.toml", text)])).unwrap();
    assert_eq!(stack.plugins().unwrap().len(), 2);
}
