//! A host's header: which server, on what, when and by what its facts were collected, from which
//! files, and which packs judged it.

use spindle_core::facts::{CloudProvider, OsFamily};
use spindle_core::units;
use spindle_core::untrusted;
use spindle_core::view::HostView;

use crate::HostContext;

/// The header's lines as (key, value), values escaped.
pub(crate) fn fields(view: &HostView, context: &HostContext<'_>) -> Vec<(&'static str, String)> {
    let mut out =
        vec![("server", server(view)), ("platform", platform(view)), ("collected", collected(view))];
    let files: Vec<String> = view.docs.iter().map(|d| untrusted::name(&d.path).into_owned()).collect();
    out.push(("snapshots", files.join(", ")));
    if !context.packs.is_empty() {
        let packs: Vec<String> = context.packs.iter().map(|p| untrusted::name(p).into_owned()).collect();
        out.push(("packs", packs.join(", ")));
    }
    out
}

/// `MSSQLSERVER 9.00.5000.00 SP4, Enterprise Edition`, one per instance.
fn server(view: &HostView) -> String {
    let Some(instances) = &view.instances else {
        return "SQL Server facts not collected".to_string();
    };
    if instances.is_empty() {
        return "no SQL Server instance".to_string();
    }
    let shown: Vec<String> = instances
        .iter()
        .map(|i| {
            let mut s = untrusted::name(&i.name).into_owned();
            for part in [&i.version, &i.product_level].into_iter().flatten() {
                s.push(' ');
                s.push_str(&untrusted::name(part));
            }
            if let Some(e) = &i.edition {
                s.push_str(", ");
                s.push_str(&untrusted::name(e));
            }
            s
        })
        .collect();
    shown.join("; ")
}

/// `Windows Server 2003 R2 … · bare metal · 8 logical CPUs · 14 GiB`.
fn platform(view: &HostView) -> String {
    let h = &view.host.item;
    let mut parts: Vec<String> = vec![];
    match (&h.os_version, h.os_family) {
        (Some(v), _) => parts.push(untrusted::name(v).into_owned()),
        (None, Some(OsFamily::Windows)) => parts.push("Windows".into()),
        (None, Some(OsFamily::Linux)) => parts.push("Linux".into()),
        (None, _) => parts.push("operating system unknown".into()),
    }
    match (h.is_virtual, h.cloud_provider) {
        (Some(true), Some(CloudProvider::Azure)) => parts.push("virtual machine in Azure".into()),
        (Some(true), Some(CloudProvider::Aws)) => parts.push("virtual machine in AWS".into()),
        (Some(true), Some(CloudProvider::Gcp)) => parts.push("virtual machine in Google Cloud".into()),
        (Some(true), _) => parts.push("virtual machine".into()),
        (Some(false), _) => parts.push("bare metal".into()),
        (None, _) => {}
    }
    if let Some(n) = h.cpu_count {
        parts.push(format!("{n} logical CPU{}", if n == 1 { "" } else { "s" }));
    }
    if let Some(m) = h.memory_bytes {
        parts.push(format!("{} memory", units::binary(m)));
    }
    parts.join(" · ")
}

/// `2010-01-12T10:05:31+00:00 by wmi 0.1.0, sql 0.1.0`: each file's time (once each) and the
/// collectors.
fn collected(view: &HostView) -> String {
    let mut times: Vec<String> = vec![];
    for doc in &view.docs {
        let at = doc
            .locate("/collected_at")
            .and_then(|s| serde_json::from_str::<String>(&doc.text[s.value]).ok())
            .map(|t| untrusted::name(&t).into_owned());
        if let Some(t) = at.filter(|t| !times.contains(t)) {
            times.push(t);
        }
    }
    let mut by: Vec<String> = vec![];
    for c in &view.collectors {
        let mut s = untrusted::name(&c.name).into_owned();
        if let Some(v) = &c.version {
            s.push(' ');
            s.push_str(&untrusted::name(v));
        }
        if !by.contains(&s) {
            by.push(s);
        }
    }
    let when = if times.is_empty() { "at an unknown time".to_string() } else { times.join(", ") };
    if by.is_empty() {
        format!("{when} by unnamed collectors")
    } else {
        format!("{when} by {}", by.join(", "))
    }
}
