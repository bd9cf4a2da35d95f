//! An entity as the view holds it: the fact with its key, label and origins.

use std::ops::Deref;

use crate::entity::{EntityRef, Origin};
use crate::facts::{Database, DbFile};

/// An entity with its stable key (used for waivers and fingerprints), its label for people, and
/// every place it was read (several when snapshots were merged).
#[derive(Debug, Clone)]
pub struct Located<T> {
    pub item: T,
    pub key: String,
    pub label: String,
    pub origins: Vec<Origin>,
}

impl<T> Deref for Located<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.item
    }
}

impl<T> Located<T> {
    pub fn entity(&self) -> EntityRef {
        EntityRef { key: self.key.clone(), label: self.label.clone(), origins: self.origins.clone() }
    }
}

/// A database with its files (moved out of [`Database::files`], which is left empty).
#[derive(Debug, Clone)]
pub struct DatabaseView {
    pub db: Located<Database>,
    /// Index into [`HostView::instances`].
    pub instance: usize,
    /// Absent: the files were not collected.
    pub files: Option<Vec<Located<DbFile>>>,
}
