//! A pack file's bytes, through what `spindle check --pack` does with them (src/packs.rs,
//! src/engine.rs): read as TOML with every mistake kept, its `extends` followed, its plugins
//! declared and the stack resolved over the builtin rules' catalogue; each error shown as the
//! binary shows it, at its line and column. Whatever the bytes: errors, never a panic; every
//! span inside its pack's text and on character boundaries; nothing from the pack driving the
//! terminal. `extends` of a builtin pack gives its text; of any other name, the input again
//! (under that name), so chains, diamonds and cycles are all reachable.
#![no_main]
mod shown;

use libfuzzer_sys::fuzz_target;
use spindle_core::pack::{
    MAX_ERRORS_PER_PACK, MAX_PACK_READS, MAX_PLUGINS, PackError, PackErrors, PackLoader, SourceText,
    load_packs,
};
use spindle_core::rule::RuleMeta;

const BUILTIN: &[(&str, &str)] = &[
    ("recommended", include_str!("../../rule-packs/recommended.toml")),
    ("oltp", include_str!("../../rule-packs/oltp.toml")),
    ("data-warehouse", include_str!("../../rule-packs/data-warehouse.toml")),
];

struct Loader(String);

impl PackLoader for Loader {
    fn load(&self, reference: &str, _from: Option<&str>) -> Result<SourceText, String> {
        if let Some((name, text)) = BUILTIN.iter().find(|(n, _)| *n == reference) {
            return Ok(SourceText { path: format!("builtin:{name}"), text: text.to_string() });
        }
        if reference.len() > 64 || reference.is_empty() {
            return Err(format!("cannot read pack `{}`", reference.len()));
        }
        Ok(SourceText { path: reference.to_string(), text: self.0.clone() })
    }
}

/// Every error holds its pack's text: their number must stay bounded whatever the pack, or a
/// large pack of mistakes takes memory in the square of its size. Per pack read: its parse and
/// resolve errors (each capped) and one per `extends` entry that fails.
fn show_all(errors: &PackErrors) {
    let bound = (MAX_PACK_READS + 1) * (2 * (MAX_ERRORS_PER_PACK + 1) + 1);
    assert!(errors.len() <= bound, "{} errors", errors.len());
    errors.iter().for_each(show);
}

fn show(e: &PackError) {
    if let Some(span) = &e.span {
        shown::check_span(&e.text, span, &e.message);
    }
    let message = match e.line_col() {
        Some((l, c)) => format!("{}:{l}:{c}: {}", e.path, e.message),
        None => format!("{}: {}", e.path, e.message),
    };
    let span = e.span.clone().filter(|_| !e.text.is_empty());
    shown::render(&e.path, &e.text, span, &message, e.help.as_deref());
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let rules = spindle_rules::all();
    let cat: Vec<(&str, &RuleMeta)> = rules.iter().map(|r| (r.meta.code, &r.meta)).collect();
    let stack = match load_packs(&["fuzz.toml"], &Loader(text)) {
        Ok(stack) => stack,
        Err(errors) => return show_all(&errors),
    };
    match stack.plugins() {
        Ok(decls) => {
            assert!(decls.len() <= MAX_PLUGINS);
            for d in &decls {
                let t = &d.pack.text;
                for span in [Some(&d.name_span), Some(&d.path_span)]
                    .into_iter()
                    .chain(
                        [&d.sha256_span, &d.memory_bytes_span, &d.timeout_ms_span, &d.fuel_span]
                            .map(Option::as_ref),
                    )
                    .flatten()
                {
                    shown::check_span(t, span, &d.name);
                }
                show(&d.error(d.path_span.clone(), "cannot read the plugin file"));
            }
        }
        Err(errors) => show_all(&errors),
    }
    if let Err(errors) = stack.resolve(&cat) {
        show_all(&errors);
    }
});
