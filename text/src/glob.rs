//! Entity globs for waivers and declared facts: `*` matches any run of characters (including
//! `/`), `?` one character; everything else matches itself, case-sensitively.

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob(String);

impl Glob {
    pub fn new(pattern: impl Into<String>) -> Self {
        Glob(pattern.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn matches(&self, text: &str) -> bool {
        let p: Vec<char> = self.0.chars().collect();
        let t: Vec<char> = text.chars().collect();
        // Iterative wildcard match with one backtrack point: linear in practice, no recursion.
        let (mut pi, mut ti) = (0, 0);
        let mut star: Option<(usize, usize)> = None;
        while ti < t.len() {
            if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
                pi += 1;
                ti += 1;
            } else if pi < p.len() && p[pi] == '*' {
                star = Some((pi, ti));
                pi += 1;
            } else if let Some((sp, st)) = star {
                pi = sp + 1;
                ti = st + 1;
                star = Some((sp, st + 1));
            } else {
                return false;
            }
        }
        p[pi..].iter().all(|&c| c == '*')
    }
}

#[cfg(test)]
mod tests {
    use super::Glob;

    #[test]
    fn globs() {
        assert!(Glob::new("sql01/*").matches("sql01/disk:2/partition:1"));
        assert!(Glob::new("*partition:?").matches("sql01/disk:2/partition:1"));
        assert!(!Glob::new("sql02/*").matches("sql01/disk:2"));
        assert!(Glob::new("*").matches(""));
        assert!(!Glob::new("a*b").matches("acbd"));
        assert!(Glob::new("a*b*").matches("acbd"));
        assert!(Glob::new(r"sql01 › volume E:\*").matches(r"sql01 › volume E:\"));
    }
}
