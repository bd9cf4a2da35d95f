//! What spindle's tests and benchmarks share, as a crate of its own so that no test includes
//! another's source by path: the SARIF validator, the check that docs cite nothing internal, the TDS peers, the disk-image tools, the built
//! example plugins, the fleet generator, a many-entity host, and the benches' measuring wrapper.

#[cfg(unix)]
pub mod child;
pub mod citations;
pub mod consumers;
pub mod disk_tools;
pub mod fleet_gen;
pub mod machine;
#[cfg(feature = "live")]
pub mod mock_sql;
pub mod multitool;
pub mod plugins;
pub mod renderers;
pub mod sarif;
pub mod script_parsers;
pub mod tier;
pub mod wide_host;
pub mod wine;

/// The bundled examples, one directory of examples/ each.
pub const EXAMPLES: [&str; 5] = [
    "win2003-sector63",
    "win2003-aligned",
    "azure-storage-spaces",
    "hdd-raid-shared-spindles",
    "linux-xfs-md",
];

/// The `spindle` binary at `bin` (`env!("CARGO_BIN_EXE_spindle")`) as the end-to-end tests run
/// it: no colour or width taken from the environment, and a fixed date for waivers.
pub fn spindle_command(bin: &str) -> std::process::Command {
    let mut c = std::process::Command::new(bin);
    c.env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("COLUMNS")
        .env("SPINDLE_TODAY", "2026-11-30");
    c
}

/// The smallest snapshot with an error: one partition at sector 63 (32,256 B), which ALN001
/// flags. Tests that need a failing run and nothing else share it.
pub const SECTOR_63: &str = r#"{
  "schema_version": 1,
  "host": { "name": "sql01", "os_family": "windows" },
  "disks": [ { "id": "disk1", "number": 1, "physical_sector_bytes": 512 } ],
  "partitions": [
    { "id": "disk1-p1", "disk_id": "disk1", "number": 1, "offset_bytes": 32256 }
  ]
}
"#;
