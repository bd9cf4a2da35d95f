//! Finds the text of a fact in a snapshot file: the byte ranges of the value at an RFC 6901 JSON
//! pointer (and of its key, for an object member), so reports can give a line and column.
//!
//! A small scanner over the text, not a parse into a tree: it walks only the path the pointer
//! names, skipping (and checking) the values it passes. No recursion, so no nesting is too deep;
//! malformed text gives `None`, never a panic.

mod bytes;
mod containers;
mod key;
mod pointer;
mod scanner;
#[cfg(test)]
mod tests;

pub use bytes::first_special;
pub use containers::containers;
pub(crate) use containers::{MAX_INDEXED_DEPTH, containers_of_parsed};
pub(crate) use pointer::locate_from_parsed;
pub use pointer::{Span, locate, locate_from};
