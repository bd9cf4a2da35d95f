//! Hostile text: see main.rs.
