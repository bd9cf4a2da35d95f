//! A compact, stable plain-text rendering of a host report, for fixture snapshots and for
//! comparing builtin rules with their plugin twins.

use std::fmt::Write;

use crate::engine::HostReport;

pub fn digest(report: &HostReport) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let pointer = f.entity.origins.first().map(|o| match &f.field {
            Some(field) => format!("{}/{field}", o.pointer),
            None => o.pointer.clone(),
        });
        let _ =
            writeln!(out, "{} {} {} [{}]", f.severity, f.code, f.entity.label, pointer.unwrap_or_default());
        let _ = writeln!(out, "  {}", f.message);
        if let (Some(m), Some(e)) = (&f.measured, &f.expected) {
            let _ = writeln!(out, "  measured: {m}; expected: {e}");
        }
        if let Some(w) = &f.waiver {
            let state = if w.expired { "expired waiver" } else { "waived" };
            let _ = writeln!(
                out,
                "  {state}: {} (expires {})",
                w.reason,
                w.expires.as_deref().unwrap_or("never")
            );
        }
    }
    for n in &report.not_evaluated {
        let at = n.entity.as_ref().map_or(report.host.as_str(), |e| e.label.as_str());
        let _ = write!(out, "not-evaluated {} {at}: missing {}", n.code, n.missing);
        if let Some(r) = &n.reason {
            let _ = write!(out, " ({r})");
        }
        out.push('\n');
    }
    for n in &report.not_applicable {
        let _ = writeln!(out, "not-applicable {} {}: {} ({})", n.code, n.entity.label, n.field, n.reason);
    }
    for e in &report.errors {
        let _ = writeln!(out, "rule-error {}: {}", e.code, e.message);
    }
    if out.is_empty() {
        out.push_str("no findings\n");
    }
    out
}
