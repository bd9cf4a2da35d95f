//! Hostile files: see main.rs.
