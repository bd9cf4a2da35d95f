//! Rule selection given on the command line (`--select`, `--extend-select`, `--ignore`), applied
//! over what the packs left, as ruff applies its flags over its configuration.

use super::error::did_you_mean;
use super::resolve::Config;
use crate::engine::{selector_enables, selector_matches};
use crate::rule::RuleMeta;

/// Selectors are codes (`ALN001`), code prefixes (`ALN`, `acme/`) or rule names, as in packs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// When given, only these rules run: it replaces the packs' selection.
    pub select: Option<Vec<String>>,
    /// Rules that run in addition to the packs' (or `select`'s).
    pub extend_select: Vec<String>,
    /// Rules that do not run, whatever selected them.
    pub ignore: Vec<String>,
}

/// A selector that matches no rule, with the flag it was given to and what was probably meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownSelector {
    pub flag: &'static str,
    pub selector: String,
    pub help: Option<String>,
}

impl Selection {
    pub fn is_empty(&self) -> bool {
        self.select.is_none() && self.extend_select.is_empty() && self.ignore.is_empty()
    }

    /// Every selector that matches no rule of `catalogue`, in the order given: all of them at
    /// once, so one edit fixes the command line.
    pub fn unknown(&self, catalogue: &[(&str, &RuleMeta)]) -> Vec<UnknownSelector> {
        // Prefixes are selectors too (`ALN`, `acme/`), so they are candidates for a typo.
        let mut prefixes: Vec<String> = vec![];
        for (code, _) in catalogue {
            let prefix = match code.split_once('/') {
                Some((ns, _)) => format!("{ns}/"),
                None => code.trim_end_matches(|c: char| c.is_ascii_digit()).to_string(),
            };
            if !prefixes.contains(&prefix) {
                prefixes.push(prefix);
            }
        }
        let given = self.select.iter().flatten().map(|s| ("--select", s));
        let given = given
            .chain(self.extend_select.iter().map(|s| ("--extend-select", s)))
            .chain(self.ignore.iter().map(|s| ("--ignore", s)));
        given
            .filter(|(_, s)| !catalogue.iter().any(|(code, meta)| selector_matches(s, code, meta.name)))
            .map(|(flag, s)| {
                let names = catalogue.iter().flat_map(|(c, m)| [*c, m.name]);
                let help = did_you_mean(s, names.chain(prefixes.iter().map(String::as_str)));
                UnknownSelector { flag, selector: s.clone(), help }
            })
            .collect()
    }
}

impl Config {
    /// Applies `selection` over the packs' choice of rules: `select` replaces it, `extend_select`
    /// adds to it, `ignore` removes from both. Severities and parameters stay the packs'.
    /// `catalogue` is the one the packs were resolved against, in the same order. A selector
    /// that matches no rule is an error (they are all listed), as in a pack.
    pub fn apply_selection(
        &mut self,
        catalogue: &[(&str, &RuleMeta)],
        selection: &Selection,
    ) -> Result<(), Vec<UnknownSelector>> {
        let unknown = selection.unknown(catalogue);
        if !unknown.is_empty() {
            return Err(unknown);
        }
        let enables = |list: &[String], code: &str, meta: &RuleMeta| {
            list.iter().any(|s| selector_enables(s, code, meta))
        };
        for (setting, (code, meta)) in self.rules.iter_mut().zip(catalogue) {
            if let Some(select) = &selection.select {
                setting.enabled = enables(select, code, meta);
            }
            if enables(&selection.extend_select, code, meta) {
                setting.enabled = true;
            }
            if selection.ignore.iter().any(|s| selector_matches(s, code, meta.name)) {
                setting.enabled = false;
            }
        }
        Ok(())
    }
}
