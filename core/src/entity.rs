//! What a finding points at: an entity's key, its label and where it was read. A leaf, so that
//! findings can name what they are about without depending on the view that located it.

/// Where an entity was read: document index in [`HostView::docs`] and JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub doc: usize,
    pub pointer: String,
}

/// A reference to an entity of a view, as findings carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityRef {
    pub key: String,
    pub label: String,
    pub origins: Vec<Origin>,
}
