//! `spindle plugin inspect FILE.wasm`: what a plugin declares, after the same checks as a load.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::json;

use crate::{Limits, Plugin, PluginError, PluginHost, WIT_PACKAGE, WIT_VERSIONS};

/// Loads `file` as `spindle check` would (no pinned sha256) and describes what it declares, as
/// text or JSON.
pub fn describe(file: &Path, json: bool) -> Result<String, PluginError> {
    let host = PluginHost::new()?;
    let name =
        file.file_stem().map_or_else(|| file.display().to_string(), |s| s.to_string_lossy().into_owned());
    let plugin = host.load(&name, "", file, None, Limits::default())?;
    Ok(if json { render_json(&plugin) } else { render_text(&plugin) })
}

pub fn render_json(p: &Plugin) -> String {
    let v = json!({
        "file": p.path().display().to_string(),
        "sha256": p.sha256(),
        "contract": format!("{WIT_PACKAGE}@{}", p.wit_version()),
        "wit_version": p.wit_version(),
        "contracts_accepted": WIT_VERSIONS,
        "pack": p.info(),
        "rules": p.rules(),
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

pub fn render_text(p: &Plugin) -> String {
    let info = p.info();
    let mut s = String::new();
    let _ = writeln!(s, "{} {}", info.id, info.version);
    let _ = writeln!(s, "  file:          {}", p.path().display());
    let _ = writeln!(s, "  sha256:        {}", p.sha256());
    let _ = writeln!(
        s,
        "  contract:      {WIT_PACKAGE}@{} (this spindle runs {})",
        p.wit_version(),
        WIT_VERSIONS.join(", ")
    );
    let _ = writeln!(s, "  facts schema:  {}", info.facts_schema_version);
    let _ = writeln!(s, "  rules:         {}", p.rules().len());
    let w = p.rules().iter().map(|r| r.name.len()).max().unwrap_or(4).max(4);
    let _ = writeln!(s, "\n{:<7} {:<w$} {:<8} SUMMARY", "CODE", "NAME", "SEVERITY");
    for r in p.rules() {
        let _ = writeln!(s, "{:<7} {:<w$} {:<8} {}", r.code, r.name, r.severity.as_str(), r.summary);
        for param in &r.params {
            let kind = match &param.kind {
                crate::ParamKind::Choice(c) => format!("one of {}", c.join(", ")),
                k => k.as_str().to_string(),
            };
            let _ =
                writeln!(s, "{:7} {:w$}   param {} ({kind}, default {})", "", "", param.name, param.default);
            if !param.doc.is_empty() {
                let _ = writeln!(s, "{:7} {:w$}     {}", "", "", param.doc);
            }
        }
    }
    s
}
