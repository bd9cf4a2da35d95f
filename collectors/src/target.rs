//! Naming a server: `host`, `host\instance` (found through the SQL Browser) or `host,port`, as
//! SQL Server's own tools take them.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub host: String,
    pub instance: Option<String>,
    pub port: Option<u16>,
}

impl Target {
    pub fn parse(s: &str) -> Result<Target, String> {
        let s = s.trim();
        let s = s.strip_prefix("tcp:").unwrap_or(s);
        let bad =
            |why: &str| Err(format!("server `{s}`: {why} (expected host, host\\instance or host,port)"));
        if s.is_empty() {
            return bad("empty name");
        }
        let (rest, port) = match s.rsplit_once(',') {
            Some((h, p)) => match p.trim().parse::<u16>() {
                Ok(p) if p > 0 => (h.trim(), Some(p)),
                _ => return bad("the port is not a number from 1 to 65535"),
            },
            None => (s, None),
        };
        let (host, instance) = match rest.split_once('\\') {
            Some((h, i)) if !i.is_empty() && !i.contains('\\') => (h, Some(i.to_owned())),
            Some(_) => return bad("bad instance name"),
            None => (rest, None),
        };
        if host.is_empty() || host.chars().any(|c| c.is_whitespace() || c == '/') {
            return bad("bad host name");
        }
        // `.` and `(local)` are SQL Server's names for this machine.
        let host = if host == "." || host.eq_ignore_ascii_case("(local)") { "localhost" } else { host };
        Ok(Target { host: host.to_owned(), instance, port })
    }

    /// A file-name-safe form, for saved snapshots: `sql01`, `sql01_SALES`, `sql01_1433`.
    pub fn file_stem(&self) -> String {
        let mut s = self.host.clone();
        if let Some(i) = &self.instance {
            s.push('_');
            s.push_str(i);
        }
        if let Some(p) = self.port {
            s.push('_');
            s.push_str(&p.to_string());
        }
        s.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect()
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.host)?;
        if let Some(i) = &self.instance {
            write!(f, "\\{i}")?;
        }
        if let Some(p) = self.port {
            write!(f, ",{p}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_forms() {
        assert_eq!(
            Target::parse("sql01").unwrap(),
            Target { host: "sql01".into(), instance: None, port: None }
        );
        let named = Target::parse(r"sql01\SALES").unwrap();
        assert_eq!((named.host.as_str(), named.instance.as_deref()), ("sql01", Some("SALES")));
        let port = Target::parse("tcp:10.0.0.5,14330").unwrap();
        assert_eq!((port.host.as_str(), port.port), ("10.0.0.5", Some(14330)));
        assert_eq!(Target::parse(r"(local)\X,1500").unwrap().to_string(), r"localhost\X,1500");
        assert_eq!(Target::parse(r"sql01\SALES").unwrap().file_stem(), "sql01_SALES");
    }

    #[test]
    fn bad_names_say_what_is_expected() {
        for bad in ["", "sql01,", "sql01,70000", r"sql01\", r"a\b\c", "two words"] {
            let e = Target::parse(bad).unwrap_err();
            assert!(e.contains("expected host"), "{bad}: {e}");
        }
    }
}
