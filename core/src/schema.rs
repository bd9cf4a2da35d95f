//! JSON Schemas generated from the Rust types: the facts snapshot and the rule-pack format.
//! Committed under `core/schema/`; a test fails when they are stale.

use crate::facts::Snapshot;
use crate::pack::PackFile;

pub fn facts_schema() -> String {
    pretty(schemars::schema_for!(Snapshot))
}

pub fn pack_schema() -> String {
    pretty(schemars::schema_for!(PackFile))
}

fn pretty(schema: schemars::Schema) -> String {
    serde_json::to_string_pretty(&schema).expect("a schema serialises") + "\n"
}
