//! The committed JSON Schemas match the Rust types. To refresh after changing the facts model or
//! the pack format: `cargo run -- schema facts > core/schema/facts.schema.json` (and `pack`).

use std::path::Path;

fn check(file: &str, generated: String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema").join(file);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is stale: run `cargo run -- schema {}` into it",
        path.display(),
        file.split('.').next().unwrap()
    );
}

#[test]
fn facts_schema_is_current() {
    check("facts.schema.json", spindle_core::schema::facts_schema());
}

#[test]
fn pack_schema_is_current() {
    check("pack.schema.json", spindle_core::schema::pack_schema());
}
