//! Every builtin rule's docs cite what a reader can open: at least one `https://` address under
//! References, and none of the project's internal source notes anywhere (nor in the fix a finding
//! takes from the docs).

use spindle_core::references::reference_urls;
use spindle_test_support::citations::internal_citation;

#[test]
fn every_rule_has_a_public_reference() {
    for r in spindle_rules::all() {
        let docs = r.meta.docs();
        let urls = reference_urls(&docs);
        assert!(!urls.is_empty(), "{}: no https:// address under ## References:\n{docs}", r.meta.code);
        for u in urls {
            assert!(!u.contains(['<', '>', '`', ' ']), "{}: malformed address {u}", r.meta.code);
        }
    }
}

#[test]
fn no_rule_cites_internal_notes() {
    for r in spindle_rules::all() {
        let m = &r.meta;
        for (what, text) in [
            ("docs", m.docs()),
            ("summary", m.summary.to_string()),
            ("default fix", m.default_fix().to_string()),
        ] {
            assert_eq!(internal_citation(&text), None, "{}'s {what} cites an internal note", m.code);
        }
        for p in m.params {
            assert_eq!(
                internal_citation(p.doc),
                None,
                "{}'s parameter {} cites an internal note",
                m.code,
                p.name
            );
        }
    }
}
