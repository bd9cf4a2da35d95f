//! `cargo xtask check-arch`: the crate graph as ARCHITECTURE.md draws it, enforced. Arrows
//! point down: every edge between the workspace's crates must be one of [`ALLOWED`]. An upward
//! edge (core on a writer) or a sideways one (a writer on the rules) fails, naming the edge. So
//! does a command-line crate below the library. The table is the one place where the layering
//! is written: a new edge is a deliberate line here and a sentence in ARCHITECTURE.md.

use std::path::Path;
use std::process::ExitCode;

use serde_json::Value;

use crate::Failure;

/// Each workspace crate and the workspace crates it may depend on (normal and build
/// dependencies), from the leaves up.
pub const ALLOWED: &[(&str, &[&str])] = &[
    ("spindle-files", &[]),
    // The bottom of the pure stack: nothing below the text utilities but std and a few leaves
    // from crates.io; core re-exports them at their old paths.
    ("spindle-text", &[]),
    // What a snapshot says and where; core re-exports it too.
    ("spindle-facts", &["spindle-text"]),
    ("spindle-core", &["spindle-facts", "spindle-text"]),
    ("spindle-rules", &["spindle-core"]),
    ("spindle-report", &["spindle-core"]),
    ("spindle-collectors", &["spindle-core", "spindle-files"]),
    ("spindle-plugin-host", &["spindle-core", "spindle-files"]),
    ("spindle-plugin-sdk", &["spindle-core"]),
    (
        "spindle",
        &[
            "spindle-collectors",
            "spindle-core",
            "spindle-files",
            "spindle-plugin-host",
            "spindle-report",
            "spindle-rules",
        ],
    ),
    // Tooling: what tests share, and the repository's chores.
    ("spindle-test-support", &["spindle-core", "spindle-collectors"]),
    ("xtask", &["spindle-core", "spindle-rules"]),
];

/// Development-only edges beyond `spindle-test-support` (which any crate's tests may use).
pub const ALLOWED_DEV: &[(&str, &str)] = &[
    // The SDK's tests run a plugin's rules against their builtin twins.
    ("spindle-plugin-sdk", "spindle-rules"),
];

/// Crates that parse a command line: only the binary's package may link them ("nothing below
/// the library knows the CLI").
const COMMAND_LINE: &[&str] = &["clap", "clap_complete"];

/// The pure crates: core and the crates split out of it, which plugin guests compile too.
const PURE: &[&str] = &["spindle-text", "spindle-facts", "spindle-core"];

/// Crates the pure crates must not link: they do no I/O, run no async runtime and build for
/// wasm32-wasip2, where plugin guests compile them.
const NOT_IN_CORE: &[&str] = &["tokio", "wasmtime", "libc", "tiberius", "wmi", "miette"];

pub fn run(root: &Path) -> Result<ExitCode, Failure> {
    let metadata = crate::workspace_metadata(root)?;
    let mut problems = check(&metadata);
    problems.extend(crate::modules::circles(&metadata));
    problems.extend(crate::length::long_functions(&metadata));
    if problems.is_empty() {
        println!(
            "check-arch: {} crates, every edge points down, no module circle, no function over {} \
             lines without a reason",
            ALLOWED.len(),
            crate::length::MAX_LINES
        );
        return Ok(ExitCode::SUCCESS);
    }
    for p in &problems {
        eprintln!("check-arch: {p}");
    }
    Ok(ExitCode::from(1))
}

/// Every breach of the layering in `cargo metadata`'s packages, each once.
pub fn check(metadata: &Value) -> Vec<String> {
    let packages = metadata["packages"].as_array().map(Vec::as_slice).unwrap_or_default();
    let ours: Vec<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut problems = vec![];
    for p in packages {
        let Some(name) = p["name"].as_str() else { continue };
        let Some((_, allowed)) = ALLOWED.iter().find(|(n, _)| *n == name) else {
            problems.push(format!(
                "`{name}` is a workspace crate with no place in the layering (xtask/src/arch.rs)"
            ));
            continue;
        };
        for d in p["dependencies"].as_array().into_iter().flatten() {
            let Some(dep) = d["name"].as_str() else { continue };
            let dev = d["kind"].as_str() == Some("dev");
            if ours.contains(&dep) {
                let ok = if dev {
                    dep == "spindle-test-support"
                        || allowed.contains(&dep)
                        || ALLOWED_DEV.contains(&(name, dep))
                } else {
                    allowed.contains(&dep)
                };
                if !ok {
                    let kind = if dev { "a dev-dependency" } else { "a dependency" };
                    problems.push(format!(
                        "`{name}` has {kind} on `{dep}`, an edge ARCHITECTURE.md does not draw"
                    ));
                }
            } else if !dev && COMMAND_LINE.contains(&dep) && name != "spindle" && name != "xtask" {
                problems.push(format!(
                    "`{name}` depends on `{dep}`: only the binary's package parses the command line"
                ));
            } else if !dev && PURE.contains(&name) && NOT_IN_CORE.contains(&dep) {
                problems.push(format!(
                    "`{name}` depends on `{dep}`: core does no I/O and builds for wasm32-wasip2"
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn metadata(edges: &[(&str, &str, Option<&str>)]) -> Value {
        let packages: Vec<Value> = ALLOWED
            .iter()
            .map(|(name, allowed)| {
                let mut deps: Vec<Value> =
                    allowed.iter().map(|d| json!({ "name": d, "kind": null })).collect();
                deps.extend(
                    edges
                        .iter()
                        .filter(|(from, _, _)| from == name)
                        .map(|(_, to, kind)| json!({ "name": to, "kind": kind })),
                );
                json!({ "name": name, "dependencies": deps })
            })
            .collect();
        json!({ "packages": packages })
    }

    #[test]
    fn the_drawn_graph_passes() {
        assert_eq!(check(&metadata(&[])), Vec::<String>::new());
        // Tests may use the shared support crate, and the SDK its builtin twins.
        assert!(check(&metadata(&[("spindle-report", "spindle-test-support", Some("dev"))])).is_empty());
        assert!(check(&metadata(&[("spindle-plugin-sdk", "spindle-rules", Some("dev"))])).is_empty());
    }

    #[test]
    fn upward_sideways_and_command_line_edges_fail() {
        let problems = check(&metadata(&[
            ("spindle-core", "spindle-report", None),
            ("spindle-report", "spindle-rules", None),
            ("spindle-collectors", "clap", None),
            ("spindle-core", "tokio", None),
            ("spindle-rules", "spindle-collectors", Some("dev")),
            // The split-off leaves sit below core: an edge back up, or to I/O, fails.
            ("spindle-text", "spindle-core", None),
            ("spindle-text", "libc", None),
            ("spindle-facts", "spindle-core", None),
            ("spindle-facts", "tokio", None),
        ]));
        assert_eq!(problems.len(), 9, "{problems:#?}");
        assert!(problems.iter().any(|p| p.contains("`spindle-core` depends on `tokio`")), "{problems:#?}");
        for edge in [
            "`spindle-core` has a dependency on `spindle-report`",
            "`spindle-report` has a dependency on `spindle-rules`",
            "`spindle-text` has a dependency on `spindle-core`",
            "`spindle-text` depends on `libc`",
            "`spindle-facts` has a dependency on `spindle-core`",
            "`spindle-facts` depends on `tokio`",
        ] {
            assert!(problems.iter().any(|p| p.contains(edge)), "{edge}: {problems:#?}");
        }
        assert!(problems.iter().any(|p| p.contains("`spindle-collectors` depends on `clap`")));
        assert!(problems.iter().any(|p| p.contains("a dev-dependency on `spindle-collectors`")));
    }

    #[test]
    fn a_crate_outside_the_table_fails() {
        let mut m = metadata(&[]);
        m["packages"].as_array_mut().unwrap().push(json!({ "name": "spindle-new", "dependencies": [] }));
        assert_eq!(check(&m).len(), 1);
    }
}
