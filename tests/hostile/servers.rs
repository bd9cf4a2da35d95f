//! Hostile servers: see main.rs.
