//! The collector's list of facts it could not read, with the reason, for
//! `CollectorReport.not_collected`.

use spindle_core::facts::NotCollected;

#[derive(Debug, Default)]
pub(crate) struct Notes(pub(crate) Vec<NotCollected>);

impl Notes {
    pub(crate) fn miss(&mut self, fact: impl Into<String>, reason: impl Into<String>) {
        self.0.push(NotCollected { fact: fact.into(), reason: reason.into() });
    }

    /// The value, or `None` after recording why `fact` could not be read.
    pub(crate) fn take<T>(&mut self, fact: impl Into<String>, r: Result<T, String>) -> Option<T> {
        r.map_err(|reason| self.miss(fact, reason)).ok()
    }
}
