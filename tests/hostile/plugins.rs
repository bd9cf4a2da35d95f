//! Hostile plugins: see main.rs.
