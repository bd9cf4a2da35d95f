//! Snapshot paths as SARIF artifact URIs.

/// A snapshot path as a SARIF artifact URI: `\` becomes `/`; a relative path stays relative (a
/// leading `./` dropped), an absolute one becomes a `file://` URI; every byte but unreserved
/// characters and `/` is percent-encoded (`my snapshots/a.json` → `my%20snapshots/a.json`).
pub fn artifact_uri(path: &str) -> String {
    let p = path.replace('\\', "/");
    let b = p.as_bytes();
    let is_drive =
        b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && b.get(2).is_none_or(|&c| c == b'/');
    let (prefix, rest) = if is_drive {
        // `C:/x` → `file:///C:/x`.
        (format!("file:///{}:", b[0] as char), &p[2..])
    } else if let Some(unc) = p.strip_prefix("//") {
        // `\\server\share\x` → `file://server/share/x`.
        let (host, rest) = unc.split_once('/').map_or((unc, ""), |(h, r)| (h, r));
        (format!("file://{}/", encode(host)), rest)
    } else if p.starts_with('/') {
        ("file://".to_string(), p.as_str())
    } else {
        let mut rel = p.as_str();
        while let Some(r) = rel.strip_prefix("./") {
            rel = r;
        }
        (String::new(), rel)
    };
    prefix + &encode(rest)
}

fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
