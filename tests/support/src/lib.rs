//! What spindle's tests and benchmarks share, as a crate of its own so that no test includes
//! another's source by path: the SARIF validator, the TDS peers, the disk-image tools, the built
//! example plugins, the fleet generator, a many-entity host, and the benches' measuring wrapper.

#[cfg(unix)]
pub mod child;
pub mod consumers;
pub mod disk_tools;
pub mod fleet_gen;
pub mod machine;
pub mod mock_sql;
pub mod plugins;
pub mod renderers;
pub mod sarif;
pub mod wide_host;
