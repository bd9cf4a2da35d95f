//! Checks SARIF logs against the official SARIF 2.1.0 JSON Schema, plus what GitHub code scanning
//! requires beyond it (a region on every result).
//!
//! The schema is the OASIS one, kept beside this crate (`schemas/sarif-schema-2.1.0.json`), so
//! the tests need nothing outside the repository.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

const FILE: &str = "schemas/sarif-schema-2.1.0.json";

/// The path of the SARIF 2.1.0 schema.
pub fn schema_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(FILE)
}

fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let path = schema_path();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let schema: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    })
}

/// Every way `log` breaks the schema or code scanning's requirements, one line each.
pub fn sarif_errors(log: &Value) -> Vec<String> {
    let mut errors: Vec<String> =
        validator().iter_errors(log).map(|e| format!("{}: {e}", e.instance_path())).collect();
    let results = log.pointer("/runs").and_then(Value::as_array).into_iter().flatten().enumerate().flat_map(
        |(r, run)| {
            run.get("results")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
                .map(move |(i, res)| (format!("/runs/{r}/results/{i}"), res))
        },
    );
    for (at, res) in results {
        let loc = res.pointer("/locations/0/physicalLocation");
        if loc.and_then(|l| l.pointer("/artifactLocation/uri")).and_then(Value::as_str).is_none() {
            errors.push(format!("{at}: no physicalLocation.artifactLocation.uri (code scanning rejects it)"));
        }
        if loc.and_then(|l| l.pointer("/region/startLine")).and_then(Value::as_u64).is_none_or(|l| l < 1) {
            errors.push(format!("{at}: no physicalLocation.region.startLine (code scanning rejects it)"));
        }
    }
    errors
}

/// Panics with every violation when `log` is not a valid SARIF 2.1.0 log.
pub fn assert_valid_sarif(log: &Value) {
    let errors = sarif_errors(log);
    assert!(errors.is_empty(), "invalid SARIF:\n{}\n{log:#}", errors.join("\n"));
}

/// Parses `text` and checks it.
pub fn assert_valid_sarif_text(text: &str) -> Value {
    let log: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("SARIF is not JSON: {e}\n{text}"));
    assert_valid_sarif(&log);
    log
}
