//! A snapshot file's bytes, through what `spindle check` does with them (src/input.rs,
//! src/commands/check.rs): the host name from the file's first bytes and then from the whole text
//! (`locate`), the strict parse and, as a plugin's facts, the tolerant one, the merged view, the
//! builtin rules under the recommended pack, and the text report with its located snippets. A
//! parse error is shown as the binary shows it, at its line and column. Whatever the bytes:
//! an error, never a panic; every span inside the text and on character boundaries; nothing but
//! the report's own newlines and the frame reaching the terminal.
#![no_main]
mod shown;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use spindle_core::date::Date;
use spindle_core::engine::check_host;
use spindle_core::load::{LoadError, line_col, parse_snapshot, parse_snapshot_tolerant};
use spindle_core::locate::{containers, locate};
use spindle_core::pack::{Config, PackLoader, SourceText, resolve};
use spindle_core::rule::Rule;
use spindle_core::view::HostView;
use spindle_report::text::TextWriter;
use spindle_report::{ReportWriter, Summary};

/// The recommended pack, as the binary embeds it (`spindle check` with no `--pack`).
struct Recommended;

impl PackLoader for Recommended {
    fn load(&self, reference: &str, _from: Option<&str>) -> Result<SourceText, String> {
        match reference {
            "recommended" => Ok(SourceText {
                path: "builtin:recommended".into(),
                text: include_str!("../../rule-packs/recommended.toml").into(),
            }),
            _ => Err(format!("no pack `{reference}`")),
        }
    }
}

fn config() -> &'static (Config, Vec<&'static dyn Rule>) {
    static CFG: OnceLock<(Config, Vec<&'static dyn Rule>)> = OnceLock::new();
    CFG.get_or_init(|| {
        let rules: Vec<&'static dyn Rule> =
            spindle_rules::all().into_iter().map(|r| r as &dyn Rule).collect();
        let cat: Vec<_> = rules.iter().map(|r| (r.meta().code, r.meta())).collect();
        (resolve(&cat, &["recommended"], &Recommended).expect("the recommended pack"), rules)
    })
}

/// Pointers a check looks up: the host's name, and facts of the first entities.
const POINTERS: &[&str] = &[
    "/host/name",
    "",
    "/disks/0/id",
    "/partitions/0/offset_bytes",
    "/volumes/0/mount_points/0",
    "/sql_instances/0/databases/0/files/0/physical_name",
    "/a~1b/~0/-",
    "/disks/18446744073709551616",
];

fn host_name(text: &str) -> Option<String> {
    let span = locate(text, "/host/name")?;
    shown::check_span(text, &span.value, "host name");
    serde_json::from_str::<String>(&text[span.value]).ok()
}

/// The byte offset of a 1-based line and column (in characters), as src/errors.rs finds it.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    let rest = &text[start.min(text.len())..];
    start + rest.char_indices().nth(column.saturating_sub(1)).map_or(rest.len(), |(i, _)| i)
}

fn show(e: &LoadError, text: &str) {
    let lines = text.split('\n').count();
    assert!(e.line <= lines, "line {} of a text of {lines} lines: {e}", e.line);
    let span = (e.line > 0).then(|| {
        // As src/errors.rs labels it: the character there.
        let at = offset_of(text, e.line, e.column);
        at..at + text[at..].chars().next().map_or(0, char::len_utf8)
    });
    if let Some(span) = &span {
        shown::check_span(text, span, "load error");
    }
    let mut message = e.clone();
    let help = message.help.take();
    shown::render(&e.path, text, span, &message.to_string(), help.as_deref());
}

fuzz_target!(|data: &[u8]| {
    // Grouping reads the host name from the first 8 KiB: the valid UTF-8 part of them.
    let head = &data[..data.len().min(8 << 10)];
    let valid = match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap(),
    };
    let _ = host_name(valid);

    // A file that is not UTF-8 is refused when read; its valid part is still worth parsing.
    let text = String::from_utf8_lossy(data).into_owned();
    let _ = host_name(&text);
    if let Some(index) = containers(&text) {
        // Each look-up rescans the text: 32 spread over the index check the invariant at a
        // fraction of the cost of all of them, which is what keeps this target fast enough to
        // run millions of times.
        for (pointer, start) in index.iter().step_by(index.len().div_ceil(32).max(1)) {
            assert!(*start < text.len(), "{pointer} at {start}");
            let span = locate(&text, pointer).unwrap_or_else(|| panic!("{pointer} indexed but not located"));
            shown::check_span(&text, &span.value, pointer);
            let _ = line_col(&text, span.value.start);
        }
    }
    for pointer in POINTERS {
        if let Some(span) = locate(&text, pointer) {
            shown::check_span(&text, &span.value, pointer);
            if let Some(key) = &span.key {
                shown::check_span(&text, key, pointer);
            }
        }
    }

    match parse_snapshot_tolerant("fuzz.json", text.clone()) {
        Ok(t) => {
            for pointer in &t.ignored {
                assert!(locate(&t.document.text, pointer).is_some(), "ignored {pointer} not located");
            }
        }
        Err(e) => show(&e, &text),
    }
    let doc = match parse_snapshot("fuzz.json", text.clone()) {
        Ok(doc) => doc,
        Err(e) => return show(&e, &text),
    };
    let (cfg, rules) = config();
    let active = cfg.active(rules);
    let view = HostView::build(vec![doc], cfg.declarations.clone());
    let report = check_host(&active, &view, &cfg.waivers, Date::parse("2026-11-30").unwrap());
    let mut out = Vec::new();
    let mut summary = Summary::default();
    {
        let mut w = TextWriter::new(&mut out, false);
        w.begin(&[]).unwrap();
        summary.add(&report);
        w.host(&view, &report).unwrap();
        w.finish(&summary).unwrap();
    }
    let out = String::from_utf8(out).expect("the report is UTF-8");
    shown::check_terminal(&out);
});
